//! nemos: a declarative SAT-based memory-model analyzer for small concurrent C programs.
//!
//! The crate is a one-way pipeline, one module per stage; each imports only earlier ones:
//! [`syntax`] -> [`program`] -> [`events`] -> [`encode`] -> [`solver`] -> [`witness`] ->
//! [`analysis`] -> [`report`]. Memory models are read by [`cat`], a front end beside
//! [`syntax`] that [`encode`] compiles. See ARCHITECTURE.md.
//!
//! Deciding a litmus test through the library, as `nemos check` does:
//!
//! ```
//! use nemos::analysis::{AnalysisOptions, Observation, Session};
//! use nemos::diagnostics::SourceFile;
//! use nemos::events::{unroll, UnrollOptions};
//!
//! let text = "C SB\n{ x = 0; y = 0; }\n\
//!     P0 (int* x, int* y) { *x = 1; int r0 = *y; }\n\
//!     P1 (int* x, int* y) { *y = 1; int r0 = *x; }\n\
//!     exists (0:r0=0 /\\ 1:r0=0)\n";
//! let file = SourceFile::new("SB.litmus", text);
//! let test = nemos::syntax::parse(&file).expect("parses");
//! let program = nemos::program::lower(&test, &file).expect("lowers");
//! let events = unroll(&program, UnrollOptions::default()).expect("unrolls");
//!
//! // Under SC (the default model) store buffering's weak outcome never happens.
//! let mut session = Session::new(&program, &events, &AnalysisOptions::default()).unwrap();
//! let result = session.check().unwrap();
//! assert_eq!(result.observation, Observation::Never);
//! assert!(result.positive.is_none());
//! ```

pub mod analysis;
pub mod cat;
pub mod diagnostics;
pub mod encode;
pub mod events;
pub mod load;
pub mod program;
pub mod report;
pub mod solver;
pub mod syntax;
pub mod witness;

pub use load::{load, LoadOptions, Test};
