//! CaDiCaL in process, through `cadical-sys` (feature `cadical`): the solver's C++ is built
//! from the source bundled in that crate.
//!
//! nemos numbers its variables 1, 2, ... as it creates them; CaDiCaL's own simplifications
//! (bounded variable addition, `factor`) may introduce extension variables of their own, so
//! every variable is declared to CaDiCaL when it is created and mapped to the index CaDiCaL
//! gives it.

use std::cell::RefCell;
use std::rc::Rc;

use cadical_sys::{CaDiCal, Status};

use super::cadical_propagator::{Acyclicity, Propagator};
use super::{SolveOutcome, Solver, SolverError, PROPAGATOR_VAR};
use crate::encode::cnf::{ClauseSink, Lit};

/// What the acyclicity propagator does ([`PROPAGATOR_VAR`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Propagation {
    Off,
    Cycles,
    Transitivity,
}

impl Propagation {
    fn from_env() -> Propagation {
        match std::env::var(PROPAGATOR_VAR).as_deref() {
            Ok("off") => Propagation::Off,
            Ok("cycles") => Propagation::Cycles,
            _ => Propagation::Transitivity,
        }
    }
}

pub struct CadicalSolver {
    solver: CaDiCal,
    /// Indexed by nemos's variable: CaDiCaL's variable.
    vars: Vec<i32>,
    /// Indexed by nemos's variable: its value in the last model.
    model: Vec<bool>,
    core: Vec<Lit>,
    /// The acyclicity propagator's state, once an order asked for it
    /// (`cadical_propagator`).
    acyclic: Option<Rc<RefCell<Acyclicity>>>,
    propagation: Propagation,
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
            acyclic: None,
            propagation: Propagation::from_env(),
        }
    }

    /// Clauses the acyclicity propagator added, and literals it propagated, so far.
    #[cfg(test)]
    fn propagator_counts(&self) -> (usize, usize) {
        self.acyclic.as_ref().map_or((0, 0), |state| {
            let state = state.borrow();
            (state.cuts, state.propagated)
        })
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

    fn acyclic_graph(&mut self) -> Option<u32> {
        if self.propagation == Propagation::Off {
            return None;
        }
        let state = match &self.acyclic {
            Some(state) => state.clone(),
            None => {
                let transitivity = self.propagation == Propagation::Transitivity;
                let state = Rc::new(RefCell::new(Acyclicity::new(transitivity)));
                self.solver
                    .connect_external_propagator(Propagator(state.clone()));
                self.acyclic = Some(state.clone());
                state
            }
        };
        let graph = state.borrow_mut().new_graph();
        Some(graph)
    }

    fn acyclic_edge(&mut self, graph: u32, lit: Lit, from: usize, to: usize) {
        let lit = self.to_cadical(lit);
        let Some(state) = &self.acyclic else {
            return;
        };
        if state.borrow_mut().add_edge(graph, lit, from, to) {
            self.solver.add_observed_var(lit.abs());
        }
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

    /// A pair literal per two of `n` nodes, "i before j" for i < j, registered with the
    /// propagator as the order `encode::acyclic` builds.
    fn tournament(s: &mut CadicalSolver, n: usize) -> Vec<Lit> {
        let graph = s.acyclic_graph().expect("the propagator is on");
        let mut pairs = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                let lit = s.new_lit();
                s.acyclic_edge(graph, lit, i, j);
                s.acyclic_edge(graph, !lit, j, i);
                pairs.push(lit);
            }
        }
        pairs
    }

    /// With no cycle cut between solves, the models of the pair literals of 5 nodes are
    /// the 5! orders, not the 2^10 assignments: the propagator alone removes every cycle,
    /// refusing them (`Cycles`) or propagating transitivity too.
    #[test]
    fn propagator_leaves_exactly_the_orders() {
        for propagation in [Propagation::Cycles, Propagation::Transitivity] {
            let mut s = CadicalSolver::new();
            s.propagation = propagation;
            let pairs = tournament(&mut s, 5);
            let mut models = 0;
            while s.solve(&[]).unwrap() == SolveOutcome::Sat {
                models += 1;
                // Acyclic: ranking the nodes by how many they precede gives 0..5 once each.
                let mut wins = [0usize; 5];
                let mut k = 0;
                for i in 0..5 {
                    for j in i + 1..5 {
                        wins[if s.value(pairs[k]) { i } else { j }] += 1;
                        k += 1;
                    }
                }
                wins.sort_unstable();
                assert_eq!(wins, [0, 1, 2, 3, 4], "{propagation:?}");
                let block: Vec<Lit> = pairs
                    .iter()
                    .map(|&l| if s.value(l) { !l } else { l })
                    .collect();
                s.add_clause(&block);
            }
            assert_eq!(models, 120, "{propagation:?}");
            let (cuts, propagated) = s.propagator_counts();
            match propagation {
                Propagation::Cycles => assert!(cuts > 0 && propagated == 0),
                _ => assert!(propagated > 0),
            }
        }
    }

    /// A cycle reached under assumptions and one forced by unit clauses are both refused;
    /// switched off, the propagator leaves the cyclic model to cycle cutting.
    #[test]
    fn propagator_refuses_forced_cycles() {
        for propagation in [
            Propagation::Off,
            Propagation::Cycles,
            Propagation::Transitivity,
        ] {
            let mut s = CadicalSolver::new();
            s.propagation = propagation;
            let graph = s.acyclic_graph();
            assert_eq!(graph.is_none(), propagation == Propagation::Off);
            let pairs: Vec<Lit> = (0..6).map(|_| s.new_lit()).collect();
            let mut k = 0;
            for i in 0..4 {
                for j in i + 1..4 {
                    if let Some(graph) = graph {
                        s.acyclic_edge(graph, pairs[k], i, j);
                        s.acyclic_edge(graph, !pairs[k], j, i);
                    }
                    k += 1;
                }
            }
            // Pairs in order (0,1) (0,2) (0,3) (1,2) (1,3) (2,3): 0 -> 1 -> 2 -> 0 under
            // assumptions, then 1 -> 2 -> 3 -> 1 as clauses.
            let (p01, p02, p12, p13, p23) = (pairs[0], pairs[1], pairs[3], pairs[4], pairs[5]);
            let cyclic = s.solve(&[p01, p12, !p02]).unwrap();
            assert_eq!(
                cyclic == SolveOutcome::Sat,
                propagation == Propagation::Off,
                "{propagation:?}"
            );
            assert_eq!(s.solve(&[p01, p12]).unwrap(), SolveOutcome::Sat);
            if propagation != Propagation::Off {
                assert!(s.value(p02));
            }
            s.add_clause(&[p12]);
            s.add_clause(&[p23]);
            s.add_clause(&[!p13]);
            let cyclic = s.solve(&[]).unwrap();
            assert_eq!(
                cyclic == SolveOutcome::Sat,
                propagation == Propagation::Off,
                "{propagation:?}"
            );
        }
    }
}
