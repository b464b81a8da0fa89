//! The embedded default: varisat, a CDCL solver in pure Rust (nothing to install).

use varisat::ExtendFormula;

use super::{SolveOutcome, Solver, SolverError};
use crate::encode::cnf::{ClauseSink, Lit};

pub struct VarisatSolver {
    solver: varisat::Solver<'static>,
    num_vars: u32,
    /// Indexed by variable: its value in the last model.
    model: Vec<bool>,
    core: Vec<Lit>,
    scratch: Vec<varisat::Lit>,
}

impl Default for VarisatSolver {
    fn default() -> Self {
        VarisatSolver::new()
    }
}

impl VarisatSolver {
    pub fn new() -> VarisatSolver {
        VarisatSolver {
            solver: varisat::Solver::new(),
            num_vars: 0,
            model: Vec::new(),
            core: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// A solver that checks its own proof as it goes (varisat's self-checking mode): every
    /// clause it learns is verified, and so is each unsatisfiability answer, assumptions
    /// included. A step that fails the check makes `solve` return an error, so an `Unsat`
    /// from this solver is certified.
    pub fn self_checking() -> VarisatSolver {
        let mut solver = VarisatSolver::new();
        // Must precede the first clause: `new` adds none.
        solver.solver.enable_self_checking();
        solver
    }
}

fn to_varisat(lit: Lit) -> varisat::Lit {
    varisat::Lit::from_dimacs(lit.to_dimacs() as isize)
}

fn from_varisat(lit: varisat::Lit) -> Lit {
    Lit::from_dimacs(lit.to_dimacs() as i32)
}

impl ClauseSink for VarisatSolver {
    fn new_lit(&mut self) -> Lit {
        self.num_vars += 1;
        Lit::positive(self.num_vars)
    }

    fn add_clause(&mut self, clause: &[Lit]) {
        self.scratch.clear();
        self.scratch.extend(clause.iter().map(|&l| to_varisat(l)));
        self.solver.add_clause(&self.scratch);
    }

    fn num_vars(&self) -> u32 {
        self.num_vars
    }
}

impl Solver for VarisatSolver {
    fn name(&self) -> &'static str {
        "varisat"
    }

    fn solve(&mut self, assumptions: &[Lit]) -> Result<SolveOutcome, SolverError> {
        let assumed: Vec<varisat::Lit> = assumptions.iter().map(|&l| to_varisat(l)).collect();
        self.solver.assume(&assumed);
        let sat = self.solver.solve().map_err(|e| SolverError::Failed {
            solver: "varisat",
            message: e.to_string(),
        })?;
        if sat {
            self.model = vec![false; self.num_vars as usize + 1];
            for lit in self.solver.model().unwrap_or_default() {
                let index = lit.var().to_dimacs() as usize;
                if index < self.model.len() {
                    self.model[index] = lit.is_positive();
                }
            }
            self.core.clear();
            Ok(SolveOutcome::Sat)
        } else {
            self.core = self
                .solver
                .failed_core()
                .map(|core| core.iter().map(|&l| from_varisat(l)).collect())
                .unwrap_or_default();
            Ok(SolveOutcome::Unsat)
        }
    }

    fn value(&self, lit: Lit) -> bool {
        super::model_value(&self.model, lit)
    }

    fn failed_core(&self) -> Vec<Lit> {
        self.core.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sat_unsat_and_core() {
        crate::solver::conformance::sat_unsat_and_core(&mut VarisatSolver::new());
    }

    #[test]
    fn self_checking_certifies_unsat_under_assumptions() {
        // Pigeonhole: 3 pigeons, 2 holes, under an assumption that switches it on.
        let mut s = VarisatSolver::self_checking();
        let on = s.new_lit();
        let p: Vec<Vec<Lit>> = (0..3)
            .map(|_| (0..2).map(|_| s.new_lit()).collect())
            .collect();
        for pigeon in &p {
            s.add_clause(&[!on, pigeon[0], pigeon[1]]);
        }
        for (a, first) in p.iter().enumerate() {
            for second in &p[a + 1..] {
                for (x, y) in first.iter().zip(second) {
                    s.add_clause(&[!*x, !*y]);
                }
            }
        }
        assert_eq!(s.solve(&[on]).unwrap(), SolveOutcome::Unsat);
        assert_eq!(s.solve(&[!on]).unwrap(), SolveOutcome::Sat);
    }

    #[test]
    fn counts_models_of_exactly_one() {
        crate::solver::conformance::counts_models_of_exactly_one(&mut VarisatSolver::new());
    }
}
