//! nemos: a declarative SAT-based memory-model analyzer for small concurrent C programs.
//!
//! The crate is a one-way pipeline, one module per stage; each imports only earlier ones:
//! [`syntax`] -> [`program`] -> [`events`] -> [`encode`] -> [`solver`] -> [`witness`] ->
//! [`analysis`] -> [`report`], with [`load`] the front door over the first three (and
//! [`load_model`] the one for models). Memory models are read by [`cat`], a front end
//! beside [`syntax`]: lowering takes herd's tags from it, [`encode`] compiles its models,
//! [`witness`] evaluates them. See ARCHITECTURE.md.
//!
//! Deciding a litmus test through the library, as `nemos check` does: the front door
//! [`load`] takes a text to events, [`analysis::query::ask`] answers a question about it,
//! and [`report`] prints the answer.
//!
//! ```
//! use std::sync::Arc;
//! use nemos::analysis::query::{ask, Finding, Query, QueryOptions};
//! use nemos::analysis::Observation;
//! use nemos::diagnostics::SourceFile;
//!
//! let text = "C SB\n{ x = 0; y = 0; }\n\
//!     P0 (int* x, int* y) { *x = 1; int r0 = *y; }\n\
//!     P1 (int* x, int* y) { *y = 1; int r0 = *x; }\n\
//!     exists (0:r0=0 /\\ 1:r0=0)\n";
//! let test = nemos::load(&SourceFile::new("SB.litmus", text), &Default::default())
//!     .expect("a well-formed test");
//!
//! // Under SC store buffering's weak outcome never happens.
//! let options = QueryOptions::new(Arc::new(nemos::cat::sc()), "sc");
//! let query = Query::Check { states: false, certify: false };
//! let answer = ask(&test, query, &options).unwrap();
//! let Finding::Check(found) = &answer.finding else { unreachable!() };
//! assert_eq!(found.result.observation, Observation::Never);
//! assert!(found.result.positive.is_none());
//! ```

pub mod analysis;
pub mod cat;
pub mod cfront;
pub mod diagnostics;
pub mod encode;
pub mod events;
pub mod load;
pub mod operators;
pub mod program;
pub mod report;
pub mod solver;
pub mod syntax;
pub mod witness;

pub use load::model::{load_model, load_model_with, LoadedModel, ModelError};
pub use load::{load, LoadError, LoadOptions, Test};
