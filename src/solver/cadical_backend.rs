//! CaDiCaL in process, through `cadical-sys` (feature `cadical`): the solver's C++ is built
//! from the source bundled in that crate.
//!
//! nemos numbers its variables 1, 2, ... as it creates them; CaDiCaL's own simplifications
//! (bounded variable addition, `factor`) may introduce extension variables of their own, so
//! every variable is declared to CaDiCaL when it is created and mapped to the index CaDiCaL
//! gives it.

use cadical_sys::{CaDiCal, Status};

use super::{SolveOutcome, Solver, SolverError};
use crate::encode::cnf::{ClauseSink, Lit};

pub struct CadicalSolver {
    solver: CaDiCal,
    /// Indexed by nemos's variable: CaDiCaL's variable.
    vars: Vec<i32>,
    /// Indexed by nemos's variable: its value in the last model.
    model: Vec<bool>,
    core: Vec<Lit>,
}

impl Default for CadicalSolver {
    fn default() -> Self {
        CadicalSolver::new()
    }
}

impl CadicalSolver {
    pub fn new() -> CadicalSolver {
        let mut solver = CaDiCal::new();
        // No "lucky" phases: CaDiCaL tries them at the start of every solve, and nemos
        // solves many times per instance (enumeration, lazy acyclicity). Off, the corpus's
        // `outcomes` took a quarter of the time, and the locked counter 4 x 3's `check` 23 s
        // instead of 57 s (README, "Solver backends").
        solver.set("lucky", 0);
        CadicalSolver {
            solver,
            // Variable 0 does not exist.
            vars: vec![0],
            model: Vec::new(),
            core: Vec::new(),
        }
    }

    fn to_cadical(&self, lit: Lit) -> i32 {
        let var = self.vars[lit.var() as usize];
        if lit.is_positive() {
            var
        } else {
            -var
        }
    }
}

impl ClauseSink for CadicalSolver {
    fn new_lit(&mut self) -> Lit {
        let var = self.solver.declare_one_more_variable();
        self.vars.push(var);
        Lit::positive(self.vars.len() as u32 - 1)
    }

    fn add_clause(&mut self, clause: &[Lit]) {
        for &lit in clause {
            self.solver.add(self.to_cadical(lit));
        }
        self.solver.add(0);
    }

    fn num_vars(&self) -> u32 {
        self.vars.len() as u32 - 1
    }
}

impl Solver for CadicalSolver {
    fn name(&self) -> &'static str {
        "cadical"
    }

    fn solve(&mut self, assumptions: &[Lit]) -> Result<SolveOutcome, SolverError> {
        for &lit in assumptions {
            self.solver.assume(self.to_cadical(lit));
        }
        match self.solver.solve() {
            Status::SATISFIABLE => {
                self.model = vec![false; self.vars.len()];
                for index in 1..self.vars.len() {
                    self.model[index] = self.solver.val(self.vars[index]) > 0;
                }
                self.core.clear();
                Ok(SolveOutcome::Sat)
            }
            Status::UNSATISFIABLE => {
                self.core = assumptions
                    .iter()
                    .copied()
                    .filter(|&lit| self.solver.failed(self.to_cadical(lit)))
                    .collect();
                Ok(SolveOutcome::Unsat)
            }
            Status::UNKNOWN => Err(SolverError::Failed {
                solver: "cadical",
                message: "no answer (interrupted)".into(),
            }),
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
        crate::solver::conformance::sat_unsat_and_core(&mut CadicalSolver::new());
    }

    #[test]
    fn counts_models_of_exactly_one() {
        crate::solver::conformance::counts_models_of_exactly_one(&mut CadicalSolver::new());
    }
}
