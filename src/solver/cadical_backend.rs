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
        CadicalSolver {
            solver: CaDiCal::new(),
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
        let v = self.model.get(lit.var() as usize).copied().unwrap_or(false);
        if lit.is_positive() {
            v
        } else {
            !v
        }
    }

    fn failed_core(&self) -> Vec<Lit> {
        self.core.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::cnf::Gates;

    #[test]
    fn sat_unsat_and_core() {
        let mut s = CadicalSolver::new();
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

    #[test]
    fn counts_models_of_exactly_one() {
        let mut s = CadicalSolver::new();
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
