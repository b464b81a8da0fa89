//! The queries: decide a final condition, enumerate final states, find failing assertions.
//!
//! Each query owns one incremental solver holding the encoding of one test under one model,
//! and asks it questions under assumptions, so that the instance is built once per test.
//! Executions that would need more loop iterations than the unrolling gives are excluded
//! from every answer (assumption `!bound_hit`) and reported separately, as bounded model
//! checkers report a failed unwinding assertion.

pub mod atomicity;
pub mod races;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::encode::acyclic::AcyclicStrategy;
use crate::encode::cnf::{Bool, ClauseSink, Gates, Lit};
use crate::encode::sc::{self, ScChecks};
use crate::encode::value::{self, Value};
use crate::encode::Encoding;
use crate::events::Events;
use crate::program::{Observable, Program, StateProp};
use crate::solver::{solve_under, SolveOutcome, Solver, SolverError, SolverOptions};
use crate::syntax::ast::Quantifier;
use crate::witness::Execution;

#[derive(Clone, Debug, Default)]
pub struct AnalysisOptions {
    pub strategy: AcyclicStrategy,
    /// Named checks of the model to switch off (what-if).
    pub skip: Vec<String>,
    /// The backend, and a recording of the instance for `--emit`.
    pub solver: SolverOptions,
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
    pub solver: Box<dyn Solver>,
    pub encoding: Encoding<'a>,
    pub checks: ScChecks,
    /// The final state and condition are encoded on first use: races and atomicity do not
    /// need them, and leaving them out keeps values out of the encoding (cone of influence).
    observed: Vec<(Observable, Value)>,
    condition: Option<Bool>,
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
        let mut solver = options.solver.build()?;
        let mut encoding = Encoding::new(&mut solver, program, events);
        let skip = options.skip.clone();
        let checks = sc::encode(&mut solver, &encoding, options.strategy, &mut |_, name| {
            Bool::Const(!skip.iter().any(|s| s == name))
        });
        if let Some(filter) = &program.filter {
            let f = encoding.prop(&mut solver, filter);
            solver.assert_true(f);
        }
        let within_bound = !encoding.bound_hit;
        Ok(Session {
            solver,
            encoding,
            checks,
            observed: Vec::new(),
            condition: None,
            within_bound,
        })
    }

    /// The literal of the final condition, encoding the final state it needs on first use.
    fn condition(&mut self) -> Bool {
        if let Some(c) = self.condition {
            return c;
        }
        let program = self.encoding.program;
        if self.observed.is_empty() {
            self.observe(program.observed.clone());
        }
        let c = match &program.condition {
            Some(c) => self.encoding.prop(&mut self.solver, &c.prop),
            None => Bool::TRUE,
        };
        self.condition = Some(c);
        c
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

    /// Report `vars` in final states from now on, instead of the program's observed set.
    pub fn observe(&mut self, vars: Vec<Observable>) {
        self.observed = vars
            .into_iter()
            .map(|o| (o, self.encoding.final_value(&mut self.solver, o)))
            .collect();
    }

    /// Each event's place in the solver's SC order in the last model (rank strategy only):
    /// initial writes first.
    pub fn order_priority(&self) -> Option<Vec<u64>> {
        let events = self.encoding.events;
        let mut priority = vec![0u64; events.len()];
        for (e, slot) in priority.iter_mut().enumerate() {
            if events.events[e].kind == crate::events::EventKind::Init {
                continue;
            }
            let bits = self.checks.order.rank_bits(e)?;
            let mut rank = 0u64;
            for (i, &b) in bits.iter().enumerate() {
                if self.solver.value_of(b) {
                    rank |= 1 << i;
                }
            }
            *slot = rank + 1;
        }
        Some(priority)
    }

    /// One witness per key of `groups`, for every key some allowed execution exhibits.
    ///
    /// A key is what the user sees (a pair of statements); its instances are the event-level
    /// candidates, each with the literal under which it occurs. Solve for any key not yet
    /// shown, record every key the witness exhibits, and solve again: one solve per distinct
    /// defect plus one proof that no more exist. With `solver_order`, the witness shows the
    /// solver's own interleaving rather than the canonical one, so that an order-dependent
    /// defect (an event inside a block) is visible in it.
    pub fn each_distinct<K: Ord + Clone, C: Clone>(
        &mut self,
        groups: Candidates<K, C>,
        solver_order: bool,
    ) -> Result<Vec<Found<K, C>>, AnalysisError> {
        let mut open: BTreeMap<K, (Bool, Vec<(C, Bool)>)> = BTreeMap::new();
        for (key, instances) in groups {
            let lits: Vec<Bool> = instances.iter().map(|i| i.1).collect();
            let any = self.solver.or(&lits);
            if !any.is_false() {
                open.insert(key, (any, instances));
            }
        }
        let mut found = Vec::new();
        while !open.is_empty() {
            let lits: Vec<Bool> = open.values().map(|v| v.0).collect();
            let any = self.solver.or(&lits);
            let Some(mut witness) = self.find(&[self.within_bound, any])? else {
                break;
            };
            if solver_order {
                if let Some(priority) = self.order_priority() {
                    witness.reinterleave(self.encoding.events, &priority);
                }
            }
            let shown: Vec<K> = open
                .iter()
                .filter(|(_, (lit, _))| self.solver.value_of(*lit))
                .map(|(k, _)| k.clone())
                .collect();
            for key in shown {
                let Some((_, instances)) = open.remove(&key) else {
                    continue;
                };
                let Some((instance, _)) = instances.iter().find(|i| self.solver.value_of(i.1))
                else {
                    continue;
                };
                found.push(Found {
                    key,
                    instance: instance.clone(),
                    witness: witness.clone(),
                });
            }
        }
        Ok(found)
    }

    /// Decide the final condition.
    pub fn check(&mut self) -> Result<CheckResult, AnalysisError> {
        let quantifier = self
            .encoding
            .program
            .condition
            .as_ref()
            .map_or(Quantifier::Exists, |c| c.quantifier);
        let condition = self.condition();
        let positive = self.find(&[self.within_bound, condition])?;
        let negative = self.find(&[self.within_bound, !condition])?;
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
        self.outcomes_under(&[])
    }

    /// Every reachable final state in executions that also satisfy `extra`.
    pub fn outcomes_under(&mut self, extra: &[Bool]) -> Result<Vec<FinalState>, AnalysisError> {
        self.condition();
        let enumerating = Bool::Lit(self.solver.new_lit());
        let mut states = Vec::new();
        let prop = self
            .encoding
            .program
            .condition
            .as_ref()
            .map(|c| c.prop.clone());
        let mut assumptions = vec![self.within_bound, enumerating];
        assumptions.extend_from_slice(extra);
        while let Some(execution) = self.find(&assumptions)? {
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
        let condition = self.condition();
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
            if self.solver.value_of(condition) {
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

/// Defect candidates by the key a user sees, each instance with the literal under which it
/// occurs.
pub type Candidates<K, C> = BTreeMap<K, Vec<(C, Bool)>>;

/// A defect found by [`Session::each_distinct`]: its key, the instance the witness shows.
pub struct Found<K, C> {
    pub key: K,
    pub instance: C,
    pub witness: Execution,
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
