//! Solvers behind one small interface. The encodings write clauses into a
//! [`ClauseSink`](crate::encode::cnf::ClauseSink); the queries solve, read models and cores.
//! This module knows literals and clauses, nothing of memory models.

mod varisat_backend;

pub use varisat_backend::VarisatSolver;

use crate::encode::cnf::{Bool, ClauseSink, Lit};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolveOutcome {
    Sat,
    Unsat,
}

#[derive(Debug, thiserror::Error)]
pub enum SolverError {
    #[error("the {solver} solver failed: {message}")]
    Failed {
        solver: &'static str,
        message: String,
    },
}

pub trait Solver: ClauseSink {
    fn name(&self) -> &'static str;

    /// Solve with `assumptions` holding for this call only.
    fn solve(&mut self, assumptions: &[Lit]) -> Result<SolveOutcome, SolverError>;

    /// The value of a literal in the last model (false when unknown).
    fn value(&self, lit: Lit) -> bool;

    fn value_of(&self, b: Bool) -> bool {
        match b {
            Bool::Const(c) => c,
            Bool::Lit(l) => self.value(l),
        }
    }

    /// After an unsatisfiable call: a subset of the assumptions that is already unsatisfiable.
    fn failed_core(&self) -> Vec<Lit>;
}

/// Solve under assumptions given as [`Bool`]s: a constant false assumption is unsatisfiable
/// without asking the solver.
pub fn solve_under<S: Solver + ?Sized>(
    solver: &mut S,
    assumptions: &[Bool],
) -> Result<SolveOutcome, SolverError> {
    let mut lits = Vec::with_capacity(assumptions.len());
    for a in assumptions {
        match *a {
            Bool::Const(true) => {}
            Bool::Const(false) => return Ok(SolveOutcome::Unsat),
            Bool::Lit(l) => lits.push(l),
        }
    }
    solver.solve(&lits)
}
