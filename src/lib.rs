//! nemos: a declarative SAT-based memory-model analyzer for small concurrent C programs.
//!
//! The crate is a one-way pipeline, one module per stage; each imports only earlier ones:
//! [`syntax`] -> [`program`] -> [`events`] -> [`encode`] -> [`solver`] -> [`witness`] ->
//! [`analysis`] -> [`report`]. Memory models are read by [`cat`], a front end beside
//! [`syntax`] that [`encode`] compiles. See ARCHITECTURE.md.

pub mod analysis;
pub mod cat;
pub mod diagnostics;
pub mod encode;
pub mod events;
pub mod program;
pub mod report;
pub mod solver;
pub mod syntax;
pub mod witness;
