//! Solvers behind one small interface. The encodings write clauses into a
//! [`ClauseSink`](crate::encode::cnf::ClauseSink); the queries solve, read models and cores.
//! This module knows literals and clauses, nothing of memory models.
//!
//! Backends: varisat, embedded (the default: nothing to install); CaDiCaL, embedded when
//! nemos is built with the `cadical` feature; z3 and cvc5 as processes speaking SMT-LIB
//! through rsmt2. A [`Recorder`] in front of any backend keeps the clauses,
//! the names of literals and the queries, for `--emit dimacs|smt2`.

#[cfg(feature = "cadical")]
mod cadical_backend;
#[cfg(feature = "cadical")]
mod cadical_propagator;
mod record;
mod smt_backend;
mod varisat_backend;

#[cfg(feature = "cadical")]
pub use cadical_backend::CadicalSolver;
pub use record::{EmitFormat, Log, QueryRecord, Recorder, Recording};
pub use smt_backend::{SmtKind, SmtSolver};
pub use varisat_backend::VarisatSolver;

use crate::encode::cnf::{Bool, ClauseSink, Lit};

/// For comparisons, with the `cadical` feature: `off` leaves the lazy orders' acyclicity to
/// `Session::solve`'s cycle cutting, as with the other backends, instead of CaDiCaL's
/// acyclicity propagator (`cadical_propagator`); `cycles` has the propagator refuse cycles
/// without propagating transitivity; unset (or anything else), it does both.
pub const PROPAGATOR_VAR: &str = "NEMOS_CADICAL_PROPAGATOR";

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
    #[error(
        "the {solver} solver is not installed (no `{command}` on PATH): install it with \
         `apt-get install {package}` (Debian, Ubuntu), or use the embedded `--solver varisat`"
    )]
    NotInstalled {
        solver: &'static str,
        command: &'static str,
        package: &'static str,
    },
    #[error(
        "this nemos was built without the {solver} solver: build it with `cargo build \
         --release --features {solver}`, or use the embedded `--solver varisat`"
    )]
    NotBuilt { solver: &'static str },
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

    /// A query was answered without the solver: one of its assumptions is constant false.
    /// Only a recorder cares, so that the queries it lists are the ones the analysis asked.
    fn answered_unsat_without_solving(&mut self) {}
}

impl<S: Solver + ?Sized> Solver for Box<S> {
    fn name(&self) -> &'static str {
        (**self).name()
    }

    fn solve(&mut self, assumptions: &[Lit]) -> Result<SolveOutcome, SolverError> {
        (**self).solve(assumptions)
    }

    fn value(&self, lit: Lit) -> bool {
        (**self).value(lit)
    }

    fn failed_core(&self) -> Vec<Lit> {
        (**self).failed_core()
    }

    fn answered_unsat_without_solving(&mut self) {
        (**self).answered_unsat_without_solving()
    }
}

/// Which solver answers the queries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// Embedded, in process; the fastest on nemos's instances (see the README's table).
    #[default]
    Varisat,
    /// Embedded too, when built with the `cadical` feature.
    Cadical,
    Z3,
    Cvc5,
}

impl Backend {
    pub const ALL: [Backend; 4] = [
        Backend::Varisat,
        Backend::Cadical,
        Backend::Z3,
        Backend::Cvc5,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Backend::Varisat => "varisat",
            Backend::Cadical => "cadical",
            Backend::Z3 => "z3",
            Backend::Cvc5 => "cvc5",
        }
    }

    /// Whether the backend can run here: an external solver must be on PATH, CaDiCaL built
    /// in. The error names the package or the feature that provides it.
    pub fn available(self) -> Result<(), SolverError> {
        match self {
            Backend::Varisat => Ok(()),
            Backend::Cadical if cfg!(feature = "cadical") => Ok(()),
            Backend::Cadical => Err(SolverError::NotBuilt { solver: "cadical" }),
            Backend::Z3 => SmtKind::Z3.available(),
            Backend::Cvc5 => SmtKind::Cvc5.available(),
        }
    }

    pub fn create(self) -> Result<Box<dyn Solver>, SolverError> {
        Ok(match self {
            Backend::Varisat => Box::new(VarisatSolver::new()),
            #[cfg(feature = "cadical")]
            Backend::Cadical => Box::new(CadicalSolver::new()),
            #[cfg(not(feature = "cadical"))]
            Backend::Cadical => return Err(SolverError::NotBuilt { solver: "cadical" }),
            Backend::Z3 => Box::new(SmtSolver::new(SmtKind::Z3)?),
            Backend::Cvc5 => Box::new(SmtSolver::new(SmtKind::Cvc5)?),
        })
    }
}

impl std::str::FromStr for Backend {
    type Err = String;
    fn from_str(s: &str) -> Result<Backend, String> {
        Backend::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| {
                format!("unknown solver `{s}`: the solvers are varisat, cadical, z3, cvc5")
            })
    }
}

/// How a session gets its solver: the backend, and optionally a recording of everything it
/// is told (for `--emit`).
#[derive(Clone, Debug, Default)]
pub struct SolverOptions {
    pub backend: Backend,
    pub record: Option<Recording>,
}

impl SolverOptions {
    pub fn build(&self) -> Result<Box<dyn Solver>, SolverError> {
        let solver = self.backend.create()?;
        Ok(match &self.record {
            Some(recording) => Box::new(Recorder::new(solver, recording.clone())),
            None => solver,
        })
    }
}

/// The value of `lit` in a model indexed by variable; an unknown variable is false.
fn model_value(model: &[bool], lit: Lit) -> bool {
    model.get(lit.var() as usize).copied().unwrap_or(false) == lit.is_positive()
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
            Bool::Const(false) => {
                solver.answered_unsat_without_solving();
                return Ok(SolveOutcome::Unsat);
            }
            Bool::Lit(l) => lits.push(l),
        }
    }
    solver.solve(&lits)
}

/// What every in-process backend must do, run by each backend's tests.
#[cfg(test)]
mod conformance {
    use super::{SolveOutcome, Solver};
    use crate::encode::cnf::{Gates, Lit};

    /// Models, failed-assumption cores, and clauses added between solves.
    pub fn sat_unsat_and_core(s: &mut impl Solver) {
        let a = s.new_lit();
        let b = s.new_lit();
        let c = s.new_lit();
        s.add_clause(&[a, b]);
        assert_eq!(s.solve(&[!a]).unwrap(), SolveOutcome::Sat);
        assert!(s.value(b) && !s.value(a));
        assert_eq!(s.solve(&[c, !a, !b]).unwrap(), SolveOutcome::Unsat);
        let core = s.failed_core();
        assert!(!core.is_empty() && core.iter().all(|l| *l == !a || *l == !b));
        // Clauses between solves; the assumptions held for one call only.
        s.add_clause(&[!a]);
        assert_eq!(s.solve(&[]).unwrap(), SolveOutcome::Sat);
        assert!(!s.value(a) && s.value(b));
        s.add_clause(&[!b]);
        assert_eq!(s.solve(&[]).unwrap(), SolveOutcome::Unsat);
        assert!(s.failed_core().is_empty());
    }

    /// Enumeration by blocking clauses added between solves: the 9 models of exactly-one.
    pub fn counts_models_of_exactly_one(s: &mut impl Solver) {
        let lits: Vec<_> = (0..9).map(|_| s.new_lit()).collect();
        let parts: Vec<_> = lits.iter().map(|&l| l.into()).collect();
        s.exactly_one(&parts);
        let mut models = 0;
        while s.solve(&[]).unwrap() == SolveOutcome::Sat {
            models += 1;
            let block: Vec<Lit> = lits
                .iter()
                .map(|&l| if s.value(l) { !l } else { l })
                .collect();
            s.add_clause(&block);
        }
        assert_eq!(models, 9);
    }
}
