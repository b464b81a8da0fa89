//! The queries: decide a final condition, enumerate final states, find failing assertions.
//!
//! Each query owns one incremental solver holding the encoding of one test under one model,
//! and asks it questions under assumptions, so that the instance is built once per test.
//! Executions that would need more loop iterations than the unrolling gives are excluded
//! from every answer (assumption `!bound_hit`) and reported separately, as bounded model
//! checkers report a failed unwinding assertion.

use serde::Serialize;

use crate::encode::acyclic::AcyclicStrategy;
use crate::encode::cnf::{Bool, ClauseSink, Gates, Lit};
use crate::encode::sc::{self, ScChecks};
use crate::encode::value::{self, Value};
use crate::encode::Encoding;
use crate::events::Events;
use crate::program::{Observable, Program, StateProp};
use crate::solver::{solve_under, SolveOutcome, Solver, SolverError, VarisatSolver};
use crate::syntax::ast::Quantifier;
use crate::witness::Execution;

#[derive(Clone, Debug, Default)]
pub struct AnalysisOptions {
    pub strategy: AcyclicStrategy,
    /// Named checks of the model to switch off (what-if).
    pub skip: Vec<String>,
}

/// How often the condition holds over the allowed executions, in herd's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Observation {
    Always,
    Sometimes,
    Never,
}

/// One reachable final state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FinalState {
    pub values: Vec<(Observable, i32)>,
    /// The final condition holds in this state.
    pub satisfies: bool,
}

/// The answer to `check`.
#[derive(Clone, Debug, Serialize)]
pub struct CheckResult {
    pub quantifier: Quantifier,
    pub observation: Observation,
    /// The test's expectation is met: herd's `Ok` (reachable for `exists`, unreachable for
    /// `~exists`, always for `forall`).
    pub ok: bool,
    /// An execution that satisfies the condition, if any.
    pub positive: Option<Execution>,
    /// An execution that falsifies it, if any.
    pub negative: Option<Execution>,
    /// Some execution needs more loop iterations than the unrolling allows.
    pub bound_hit: bool,
    /// An execution in which an assertion fails, if any.
    pub assertion_failure: Option<Execution>,
}

#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error(transparent)]
    Solver(#[from] SolverError),
    #[error("unknown check `{name}` for model {model}: its checks are {known}")]
    UnknownCheck {
        name: String,
        model: String,
        known: String,
    },
}

/// One test encoded under SC in one solver, ready for questions.
pub struct Session<'a> {
    pub solver: VarisatSolver,
    pub encoding: Encoding<'a>,
    pub checks: ScChecks,
    observed: Vec<(Observable, Value)>,
    condition: Bool,
    within_bound: Bool,
}

impl<'a> Session<'a> {
    pub fn new(
        program: &'a Program,
        events: &'a Events,
        options: &AnalysisOptions,
    ) -> Result<Session<'a>, AnalysisError> {
        for name in &options.skip {
            if name != sc::CHECK_SC && name != sc::CHECK_ATOMIC {
                return Err(AnalysisError::UnknownCheck {
                    name: name.clone(),
                    model: "sc".into(),
                    known: format!("{}, {}", sc::CHECK_SC, sc::CHECK_ATOMIC),
                });
            }
        }
        let mut solver = VarisatSolver::new();
        let mut encoding = Encoding::new(&mut solver, program, events);
        let skip = options.skip.clone();
        let checks = sc::encode(&mut solver, &encoding, options.strategy, &mut |_, name| {
            Bool::Const(!skip.iter().any(|s| s == name))
        });
        if let Some(filter) = &program.filter {
            let f = encoding.prop(&mut solver, filter);
            solver.assert_true(f);
        }
        let observed = program
            .observed
            .iter()
            .map(|&o| (o, encoding.final_value(&mut solver, o)))
            .collect();
        let condition = match &program.condition {
            Some(c) => encoding.prop(&mut solver, &c.prop),
            None => Bool::TRUE,
        };
        let within_bound = !encoding.bound_hit;
        Ok(Session {
            solver,
            encoding,
            checks,
            observed,
            condition,
            within_bound,
        })
    }

    /// Solve under assumptions; decode a witness when satisfiable.
    pub fn find(&mut self, assumptions: &[Bool]) -> Result<Option<Execution>, AnalysisError> {
        match solve_under(&mut self.solver, assumptions)? {
            SolveOutcome::Unsat => Ok(None),
            SolveOutcome::Sat => {
                let solver = &self.solver;
                Ok(Some(Execution::decode(
                    &self.encoding,
                    &|l: Lit| solver.value(l),
                    &self.observed,
                )))
            }
        }
    }

    /// Decide the final condition.
    pub fn check(&mut self) -> Result<CheckResult, AnalysisError> {
        let quantifier = self
            .encoding
            .program
            .condition
            .as_ref()
            .map_or(Quantifier::Exists, |c| c.quantifier);
        let positive = self.find(&[self.within_bound, self.condition])?;
        let negative = self.find(&[self.within_bound, !self.condition])?;
        let observation = match (&positive, &negative) {
            (Some(_), None) => Observation::Always,
            (Some(_), Some(_)) => Observation::Sometimes,
            (None, _) => Observation::Never,
        };
        let ok = match quantifier {
            Quantifier::Exists => positive.is_some(),
            Quantifier::NotExists => positive.is_none(),
            Quantifier::Forall => negative.is_none(),
        };
        let bound_hit = self.bound_reachable()?;
        let assertion_failure = self.assertion_failure()?;
        Ok(CheckResult {
            quantifier,
            observation,
            ok,
            positive,
            negative,
            bound_hit,
            assertion_failure,
        })
    }

    /// Whether some execution needs more loop iterations than were unrolled.
    pub fn bound_reachable(&mut self) -> Result<bool, AnalysisError> {
        if self.encoding.events.bound_hits.is_empty() {
            return Ok(false);
        }
        let hit = !self.within_bound;
        Ok(solve_under(&mut self.solver, &[hit])? == SolveOutcome::Sat)
    }

    pub fn assertion_failure(&mut self) -> Result<Option<Execution>, AnalysisError> {
        if self.encoding.assertion_failures.is_empty() {
            return Ok(None);
        }
        let failures: Vec<Bool> = self
            .encoding
            .assertion_failures
            .iter()
            .map(|f| f.1)
            .collect();
        let any = self.solver.or(&failures);
        self.find(&[self.within_bound, any])
    }

    /// Every reachable final state over the observed registers and locations, in a stable
    /// order (sorted by values).
    pub fn outcomes(&mut self) -> Result<Vec<FinalState>, AnalysisError> {
        let enumerating = Bool::Lit(self.solver.new_lit());
        let mut states = Vec::new();
        let prop = self
            .encoding
            .program
            .condition
            .as_ref()
            .map(|c| c.prop.clone());
        while let Some(execution) = self.find(&[self.within_bound, enumerating])? {
            let values = execution.final_state.clone();
            let mut block = vec![!enumerating];
            for ((_, value), (_, v)) in self.observed.iter().zip(&values) {
                let eq = value::equals_const(&mut self.solver, value, *v);
                block.push(!eq);
            }
            self.solver.clause(&block);
            let satisfies = prop.as_ref().is_none_or(|p| satisfies(p, &values));
            states.push(FinalState { values, satisfies });
            if self.observed.is_empty() {
                break;
            }
        }
        states.sort_by(|a, b| {
            let key = |s: &FinalState| s.values.iter().map(|v| v.1).collect::<Vec<_>>();
            key(a).cmp(&key(b))
        });
        Ok(states)
    }

    /// Count allowed executions as herd does: distinct choices of `rf` and `co`, split by
    /// whether they satisfy the condition.
    pub fn count_executions(&mut self) -> Result<(u64, u64), AnalysisError> {
        let counting = Bool::Lit(self.solver.new_lit());
        let mut choice_lits: Vec<Bool> = Vec::new();
        for relation in [&self.encoding.rf, &self.encoding.co] {
            choice_lits.extend(
                relation
                    .iter()
                    .map(|(_, _, l)| l)
                    .filter(|l| !matches!(l, Bool::Const(_))),
            );
        }
        let (mut positive, mut negative) = (0u64, 0u64);
        loop {
            let outcome = solve_under(&mut self.solver, &[self.within_bound, counting])?;
            if outcome == SolveOutcome::Unsat {
                break;
            }
            if self.solver.value_of(self.condition) {
                positive += 1;
            } else {
                negative += 1;
            }
            let mut block = vec![!counting];
            for &l in &choice_lits {
                block.push(if self.solver.value_of(l) { !l } else { l });
            }
            self.solver.clause(&block);
        }
        Ok((positive, negative))
    }
}

fn satisfies(prop: &StateProp, values: &[(Observable, i32)]) -> bool {
    prop.eval(&|o| {
        values
            .iter()
            .find(|(var, _)| *var == o)
            .map_or(0, |(_, v)| *v)
    })
}

/// Observation from a set of reachable states.
pub fn observation_of(states: &[FinalState]) -> Observation {
    let positive = states.iter().filter(|s| s.satisfies).count();
    if positive == 0 {
        Observation::Never
    } else if positive == states.len() {
        Observation::Always
    } else {
        Observation::Sometimes
    }
}
