//! The queries: decide a final condition, enumerate final states, find failing assertions.
//!
//! Each query owns one incremental solver holding the encoding of one test under one model,
//! and asks it questions under assumptions, so that the instance is built once per test.
//! Executions that would need more loop iterations than the unrolling gives are excluded
//! from every answer (assumption `!bound_hit`) and reported separately, as bounded model
//! checkers report a failed unwinding assertion.

pub mod atomicity;
pub mod check_races;
pub mod deepen;
pub mod explain;
pub mod graph;
pub mod infer;
mod left_out;
pub mod localize;
mod lock_order;
pub mod model_races;
pub mod query;
pub mod races;
pub mod slice;
pub mod spec;

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use serde::Serialize;

use crate::cat::Model;
use crate::encode::acyclic::{AcyclicStrategy, Order};
use crate::encode::cnf::{Bool, ClauseSink, Gates, Lit};
use crate::encode::counting::{
    add_lemmas, add_order_lemmas, add_read_lemmas, lock_premise, locked_counters, LockedCounter,
};
use crate::encode::model::{encode_model, CompiledModel};
use crate::encode::sc;
use crate::encode::symmetry::break_symmetry;
use crate::encode::value::{self, Value};
use crate::encode::{Encoding, EncodingOptions};
use crate::events::{EventId, EventKind, Events, WaitOn};
use crate::program::symmetry::interchangeable_threads;
use crate::program::Quantifier;
use crate::program::{LocId, Observable, Program, StateProp};
use crate::solver::{solve_under, SolveOutcome, Solver, SolverError, SolverOptions, VarisatSolver};
use crate::witness::validate::{validate, validate_model, ModelChecks};
use crate::witness::Execution;

#[derive(Clone, Debug)]
pub struct AnalysisOptions {
    pub strategy: AcyclicStrategy,
    /// Named checks of the model to switch off (what-if).
    pub skip: Vec<String>,
    /// The memory model; SC unless chosen.
    pub model: Arc<Model>,
    /// Have the solver check its own proofs, so that every unsatisfiable answer is certified.
    pub certify: bool,
    /// The backend, and a recording of the instance for `--emit`.
    pub solver: SolverOptions,
    /// Look at one execution per renaming of interchangeable threads
    /// (`encode::symmetry`): only for questions blind to the renaming.
    pub symmetry: bool,
    /// The session answers SC's races and nothing else: leave out the memory of the
    /// locations that query cannot observe (`slice`). It takes effect only under SC with
    /// no check skipped and without `symmetry`; `check`, `outcomes` and the other queries
    /// must not be asked of such a session.
    pub slice_races: bool,
    /// Add the counting lemmas (`encode::counting`) where the model makes them hold, and
    /// bound every counter write to its counter's range (`Encoding::bound_counter_writes`):
    /// off only to compare with the encoding without them.
    pub counting: bool,
    /// Some solve of the session drops named checks that `skip` keeps (`explain`, the
    /// picture of a forbidden outcome): the values reads may return are then those of the
    /// model without its named checks, which may allow them out of thin air.
    pub what_if: bool,
    /// `check` first looks for its witnesses among the schedules that run the threads one
    /// after the other ([`Session::sequential_guess`]): off only to compare with the
    /// search without that guess.
    pub sequential_guess: bool,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            strategy: AcyclicStrategy::default(),
            skip: Vec::new(),
            model: Arc::new(crate::cat::sc()),
            certify: false,
            solver: SolverOptions::default(),
            symmetry: false,
            slice_races: false,
            counting: true,
            what_if: false,
            sequential_guess: true,
        }
    }
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
    /// An execution in which some thread is blocked for good, if any.
    pub deadlock: Option<Execution>,
    /// The model's flags that some allowed execution raises (herd's `Flag NAME`).
    pub flags: Vec<String>,
    /// Per memory defect raised (`cat::memory::FLAGS`), an execution that has it.
    pub memory_witnesses: Vec<(String, Execution)>,
}

#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error(transparent)]
    Solver(#[from] SolverError),
    #[error("internal error: the SAT witness does not satisfy {what}; this is a bug in nemos, please report it with the test file")]
    InvalidWitness { what: String },
    #[error("internal error: evaluating the model on a witness: {0}; this is a bug in nemos, please report it with the test file")]
    Evaluation(String),
    #[error("test {test} has no `spec {{ }}` block: write the sequential version of its methods there (README.md, \"Specifications\")")]
    NoSpecification { test: String },
    #[error("test {test} has nothing for localize to localize: no condition, no assertion and no `spec {{ }}` block (README.md, \"Where the bug is: `localize`\")")]
    NothingToLocalize { test: String },
    #[error("unknown check `{name}` for model {model}: its checks are {known}")]
    UnknownCheck {
        name: String,
        model: String,
        known: String,
    },
}

/// One test encoded under one memory model in one solver, ready for questions.
pub struct Session<'a> {
    pub solver: Box<dyn Solver>,
    pub encoding: Encoding<'a>,
    pub model: Arc<Model>,
    /// The model's selector and flag literals.
    pub compiled: CompiledModel,
    /// The selectors of the checks in force (all but the skipped ones): assumed by every
    /// solve, so that `explain` can drop some without re-encoding.
    pub enabled: Vec<Bool>,
    strategy: AcyclicStrategy,
    /// An SC interleaving of the executions, built when a query asks where events fall.
    order: Option<Order>,
    /// The final state and condition are encoded on first use: races and atomicity do not
    /// need them, and leaving them out keeps values out of the encoding (cone of influence).
    observed: Vec<(Observable, Value)>,
    condition: Option<Bool>,
    within_bound: Bool,
    /// The locked counters (`encode::counting`) whose final value is not yet tied to its
    /// sum, and the literal under which the model makes the lemma hold.
    counters: Vec<LockedCounter>,
    counting_premise: Option<Bool>,
    /// How many counting lemmas this session added (a counter's final value tied to the
    /// sum of its increments): tests check that they fire where they should.
    pub counting_lemmas: usize,
    /// How many reads of locked counters inside critical sections were tied to the number
    /// of increments `lko` puts before them (`encode::counting::add_read_lemmas`, once per
    /// session, when one of them assigns an observed register).
    pub read_lemmas: usize,
    /// The clauses `encode::counting::add_order_lemmas` added with them (the lock order of
    /// the counter's mutex stated eagerly: without it the read lemmas alone did not help).
    pub order_lemmas: usize,
    reads_tied: bool,
    /// How many `hb` literals of `races` were read off one mutex's lock order
    /// (`lock_order.rs`): tests check that it fires where it should.
    pub lock_order_pairs: usize,
    /// The last enumeration of final states stopped at [`THIN_AIR_STATES`].
    pub outcomes_cut: bool,
    /// [`AnalysisOptions::sequential_guess`].
    guess: bool,
    /// The serial schedule the guess assumes, built on its first use.
    schedule: Option<Schedule>,
    /// How many of `check`'s finds (its two witnesses, the model's flags) the sequential
    /// guess answered (tests check that it answers those a serial schedule meets).
    pub schedule_guesses: usize,
    /// `events.block_at_bound` is not in force yet: the executions that meet the bound
    /// exist until [`Session::close_block`] (`left_out.rs`).
    block_deferred: bool,
}

/// A serial order of the threads, in force under `guard` (`Session::serial_schedule`).
struct Schedule {
    guard: Bool,
    /// `first[i][j]` for `i < j`: thread `i` runs entirely before thread `j`.
    first: Vec<Vec<Bool>>,
    /// The pair literals already tied to it.
    tied: HashSet<Lit>,
}

impl Schedule {
    fn new<S: ClauseSink + ?Sized>(sink: &mut S, threads: usize) -> Schedule {
        let guard = Bool::Lit(sink.new_lit());
        let first: Vec<Vec<Bool>> = (0..threads)
            .map(|i| {
                (0..threads)
                    .map(|j| match i < j {
                        true => Bool::Lit(sink.new_lit()),
                        false => Bool::FALSE,
                    })
                    .collect()
            })
            .collect();
        let schedule = Schedule {
            guard,
            first,
            tied: HashSet::new(),
        };
        for i in 0..threads {
            for j in (0..threads).filter(|&j| j != i) {
                for k in (0..threads).filter(|&k| k != i && k != j) {
                    let (ij, jk, ik) = (
                        schedule.first(i, j),
                        schedule.first(j, k),
                        schedule.first(i, k),
                    );
                    sink.clause(&[!guard, !ij, !jk, ik]);
                }
            }
        }
        schedule
    }

    /// "Thread `i` runs entirely before thread `j`" (`i != j`).
    fn first(&self, i: usize, j: usize) -> Bool {
        match i < j {
            true => self.first[i][j],
            false => !self.first[j][i],
        }
    }
}

/// Where reads may return values out of thin air, a value justified only by itself may be
/// any of the 2^32 (`r = x; y = r` against `s = y; x = s`): an enumeration of final states
/// stops after this many, and says so.
pub const THIN_AIR_STATES: usize = 256;

impl<'a> Session<'a> {
    pub fn new(
        program: &'a Program,
        events: &'a Events,
        options: &AnalysisOptions,
    ) -> Result<Session<'a>, AnalysisError> {
        Session::prepared(program, events, options, |_, _| {})
    }

    /// A session whose shared encoding `prepare` may change before the model is compiled
    /// over it (infer lets the solver choose memory orders there).
    pub fn prepared(
        program: &'a Program,
        events: &'a Events,
        options: &AnalysisOptions,
        prepare: impl FnOnce(&mut Box<dyn Solver>, &mut Encoding<'a>),
    ) -> Result<Session<'a>, AnalysisError> {
        Session::build(program, events, options, false, prepare)
    }

    /// [`Session::prepared`]; with `defer_block`, `events.block_at_bound` is not yet in force
    /// (`left_out.rs`).
    fn build(
        program: &'a Program,
        events: &'a Events,
        options: &AnalysisOptions,
        defer_block: bool,
        prepare: impl FnOnce(&mut Box<dyn Solver>, &mut Encoding<'a>),
    ) -> Result<Session<'a>, AnalysisError> {
        // A program that allocates memory has GenMC's memory defects as flags.
        let allocates = events.events.iter().any(|e| {
            e.tags
                .iter()
                .any(|t| t == crate::cat::memory::ALLOC_TAG || t == crate::cat::memory::FREE_TAG)
        });
        let model = if allocates {
            Arc::new(crate::cat::memory::with_memory_flags(&options.model))
        } else {
            options.model.clone()
        };
        let names = model.check_names();
        for name in &options.skip {
            if !names.contains(name) {
                return Err(AnalysisError::UnknownCheck {
                    name: name.clone(),
                    model: model.name.clone(),
                    known: if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    },
                });
            }
        }
        // Proof checking is varisat's own: `--certify` runs the embedded solver.
        let mut solver: Box<dyn Solver> = if options.certify {
            Box::new(VarisatSolver::self_checking())
        } else {
            options.solver.build()?
        };
        // Clauses for `fr` where a union in an acyclicity check holds it (SC: half the
        // memory of gates on counters, and faster); gates otherwise, which the C11 models'
        // compositions (`fr; rf?`) do much better with (races on 4 x 25 unlocked
        // increments under rc11: 9 s against 119 s).
        let direct_fr = model.acyclic_over_fr();
        let sliced = if options.slice_races && options.skip.is_empty() && !options.symmetry {
            slice::races_slice(&model, program, events)
        } else {
            vec![false; events.init.len()]
        };
        // Values out of thin air only where the model allows them (`events::bounds`).
        let thin_air = !model.forbids_thin_air(|check| match &check.name {
            Some(name) => !options.what_if && !options.skip.contains(name),
            None => true,
        });
        let shape = EncodingOptions {
            strategy: options.strategy,
            direct_fr,
            sliced,
            thin_air,
            defer_block,
        };
        let mut encoding = Encoding::with_options(&mut solver, program, events, shape);
        prepare(&mut solver, &mut encoding);
        if options.symmetry {
            // Started C threads' flags: the argument is made for SC and RC11 as shipped.
            let classes = if slice::is_sc(&model) || slice::is_rc11(&model) {
                crate::program::spawn_symmetry::interchangeable_spawned_threads(program)
            } else {
                interchangeable_threads(program)
            };
            break_symmetry(&mut solver, &encoding, &classes);
        }
        if model.uses_values() {
            for e in 0..events.len() {
                if events.events[e].is_memory() {
                    encoding.event_value(&mut solver, e);
                }
            }
        }
        let compiled = encode_model(&mut solver, &encoding, &model, options.strategy);
        let enabled = compiled
            .selectors
            .iter()
            .filter(|(name, _)| !options.skip.contains(name))
            .map(|&(_, lit)| lit)
            .collect();
        if let Some(filter) = &program.filter {
            let f = encoding.prop(&mut solver, filter);
            solver.assert_true(f);
        }
        // The normal answers are about executions within the bound in which no thread is
        // blocked for good; the others are reported apart.
        let within_bound = solver.and2(!encoding.bound_hit, !encoding.deadlock);
        let counting_premise = lock_premise(&model, &compiled).filter(|_| options.counting);
        let counters = match counting_premise {
            Some(_) => locked_counters(events, &encoding.mutexes),
            None => Vec::new(),
        };
        if options.counting {
            let locked: Vec<LocId> = counters.iter().map(|c| c.location).collect();
            encoding.bound_counter_writes(&mut solver, &locked);
        }
        Ok(Session {
            solver,
            encoding,
            model,
            compiled,
            enabled,
            strategy: options.strategy,
            order: None,
            observed: Vec::new(),
            condition: None,
            within_bound,
            counters,
            counting_premise,
            counting_lemmas: 0,
            read_lemmas: 0,
            order_lemmas: 0,
            reads_tied: false,
            lock_order_pairs: 0,
            outcomes_cut: false,
            guess: options.sequential_guess,
            schedule: None,
            schedule_guesses: 0,
            block_deferred: defer_block && events.block_at_bound,
        })
    }

    /// The literal of the final condition, encoding the final state it needs on first use.
    pub(crate) fn condition(&mut self) -> Bool {
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

    /// Solve under assumptions with the checks in force; decode a witness when satisfiable.
    pub fn find(&mut self, assumptions: &[Bool]) -> Result<Option<Execution>, AnalysisError> {
        let checks = self.enabled.clone();
        self.find_under_checks(assumptions, &checks)
    }

    /// Solve with only the checks whose selectors are in `checks` in force.
    pub fn find_under_checks(
        &mut self,
        assumptions: &[Bool],
        checks: &[Bool],
    ) -> Result<Option<Execution>, AnalysisError> {
        let mut all = assumptions.to_vec();
        all.extend_from_slice(checks);
        match self.solve(&all)? {
            SolveOutcome::Unsat => Ok(None),
            SolveOutcome::Sat => {
                let solver = &self.solver;
                let execution =
                    Execution::decode(&self.encoding, &|l: Lit| solver.value(l), &self.observed);
                // Never print a verdict from a witness the model's definitions reject: the
                // model's checks in force, evaluated on the execution itself. SC's
                // acyclicity is required on top of them when a query restricted the session
                // to executions with an interleaving (`order_before`).
                let interleaved = ModelChecks {
                    sc: self.order.is_some(),
                };
                let truth = |b: Bool| solver.value_of(b);
                validate(&self.encoding, &truth, &execution, interleaved)
                    .and_then(|()| {
                        validate_model(
                            &self.encoding,
                            &truth,
                            &execution,
                            &self.model,
                            &self.compiled,
                            checks,
                        )
                    })
                    .map_err(|what| AnalysisError::InvalidWitness { what })?;
                Ok(Some(execution))
            }
        }
    }

    /// Report `vars` in final states from now on, instead of the program's observed set.
    pub fn observe(&mut self, vars: Vec<Observable>) {
        self.observed = vars
            .into_iter()
            .map(|o| (o, self.encoding.final_value(&mut self.solver, o)))
            .collect();
        self.tie_reads();
        self.tie_counters();
    }

    /// Tie the reads of each locked counter inside its critical sections to the increments
    /// before them in the lock order (`encode::counting::add_read_lemmas`), once, when one
    /// of them assigns an observed register (a condition on the counter's final value has
    /// its own lemma).
    fn tie_reads(&mut self) {
        let Some(premise) = self.counting_premise else {
            return;
        };
        let registers: Vec<_> = (self.observed.iter())
            .filter_map(|(o, _)| match *o {
                Observable::Reg { thread, reg } => Some((thread, reg)),
                Observable::Loc(_) => None,
            })
            .collect();
        if registers.is_empty() || self.reads_tied {
            return;
        }
        for counter in &self.counters {
            let (solver, encoding) = (&mut self.solver, &mut self.encoding);
            let reads = add_read_lemmas(solver, encoding, counter, premise, &registers);
            if reads > 0 {
                self.reads_tied = true;
                self.read_lemmas += reads;
                self.order_lemmas += add_order_lemmas(solver, encoding, counter, premise);
            }
        }
    }

    /// Tie the final value of each locked counter now observed to the sum of its
    /// increments (`encode::counting`), once.
    fn tie_counters(&mut self) {
        let Some(premise) = self.counting_premise else {
            return;
        };
        for (var, last) in &self.observed {
            let Observable::Loc(loc) = *var else { continue };
            let Some(i) = self.counters.iter().position(|c| c.location == loc) else {
                continue;
            };
            let counter = self.counters.swap_remove(i);
            add_lemmas(
                &mut self.solver,
                &mut self.encoding,
                &counter,
                last,
                premise,
            );
            self.counting_lemmas += 1;
        }
    }

    /// The selector of the named check when the model has it and it is not skipped.
    pub fn check_in_force(&self, name: &str) -> Option<Bool> {
        self.compiled
            .selector(name)
            .filter(|s| self.enabled.contains(s))
    }

    /// Where events fall in an SC interleaving of the execution: a literal for "`a` runs
    /// before `b`". Atomicity is defined over SC executions (semantics.md section 5), so
    /// the first call adds `po | rf | co | fr` to an order as hard constraints: from then on
    /// this session only finds executions with an SC interleaving, whatever the model.
    pub fn order_before(&mut self, a: EventId, b: EventId) -> Bool {
        self.interleavings_only();
        match self.order.as_mut() {
            Some(order) => order.before(&mut self.solver, a, b),
            None => Bool::FALSE,
        }
    }

    /// From now on, only executions with an SC interleaving (see [`Session::order_before`]).
    pub fn interleavings_only(&mut self) {
        if self.order.is_none() {
            self.order = Some(sc::interleaving_order(
                &mut self.solver,
                &self.encoding,
                self.strategy,
            ));
        }
    }

    /// Each event's place in the solver's SC order in the last model (initial writes first),
    /// once [`Session::order_before`] built the order and when its strategy keeps one.
    pub fn order_priority(&self) -> Option<Vec<u64>> {
        let events = self.encoding.events;
        let solver = &self.solver;
        let places = self.order.as_ref()?.positions(&|b| solver.value_of(b))?;
        Some(
            (0..events.len())
                .map(|e| places.get(&e).map_or(0, |&p| p + 1))
                .collect(),
        )
    }

    /// Every order of the session: the SC interleaving order once built, the model's, and
    /// `co`'s per location.
    fn orders(&self) -> impl Iterator<Item = &Order> {
        self.order
            .iter()
            .chain(&self.compiled.orders)
            .chain(&self.encoding.co_orders)
    }

    /// Solve under assumptions. With lazy acyclicity a model may still violate
    /// transitivity: each such model has its cycles cut by clauses and the solver runs
    /// again, until a model is acyclic or the assumptions are unsatisfiable.
    pub fn solve(&mut self, assumptions: &[Bool]) -> Result<SolveOutcome, AnalysisError> {
        loop {
            if solve_under(&mut self.solver, assumptions)? == SolveOutcome::Unsat {
                return Ok(SolveOutcome::Unsat);
            }
            let solver = &self.solver;
            let value = |b: Bool| solver.value_of(b);
            let cuts: Vec<Vec<Bool>> = self
                .orders()
                .flat_map(|order| order.cycle_cuts(&value))
                .collect();
            if cuts.is_empty() {
                return Ok(SolveOutcome::Sat);
            }
            for cut in cuts {
                self.solver.clause(&cut);
            }
        }
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
        Ok(self.each_distinct_until(groups, solver_order, false)?.0)
    }

    /// [`Session::each_distinct`], or with `first` only the first key found (the least
    /// its witness exhibits), as a checker stopping at the first defect does. The flag
    /// says whether the keys found are all there are: with `first`, only when the one
    /// witness showed the only key that can occur.
    pub fn each_distinct_until<K: Ord + Clone, C: Clone>(
        &mut self,
        groups: Candidates<K, C>,
        solver_order: bool,
        first: bool,
    ) -> Result<(Vec<Found<K, C>>, bool), AnalysisError> {
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
            if first {
                let complete = found.len() == 1 && open.is_empty();
                found.truncate(1);
                return Ok((found, complete));
            }
        }
        Ok((found, true))
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
        let positive = self.find_guessing(condition)?;
        let negative = self.find_guessing(!condition)?;
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
        let deadlock = self.deadlock()?;
        let found = self.flags_found()?;
        let flags = found.iter().map(|(name, _)| name.clone()).collect();
        let memory_witnesses = found
            .into_iter()
            .filter(|(name, _)| crate::cat::memory::FLAGS.contains(&name.as_str()))
            .collect();
        Ok(CheckResult {
            quantifier,
            observation,
            ok,
            positive,
            negative,
            bound_hit,
            assertion_failure,
            deadlock,
            flags,
            memory_witnesses,
        })
    }

    /// An execution within the bound that satisfies `goal`: first among those that run the
    /// threads one after the other, in any order, when the test has critical sections
    /// (see [`Session::sequential_guess`]), then among all.
    fn find_guessing(&mut self, goal: Bool) -> Result<Option<Execution>, AnalysisError> {
        match self.sequential_guess(goal)? {
            Some(found) => Ok(Some(found)),
            None => self.find(&[self.within_bound, goal]),
        }
    }

    /// A witness of `goal` among the executions that run the threads one after the
    /// other, in some order of the threads the solver chooses, when the test has critical
    /// sections (`None` when it has none, or when no such execution is allowed and
    /// satisfies `goal`).
    ///
    /// Finding one execution of many locked sections is slow for the solver (it must pick
    /// a consistent order of the sections and the values they pass on: 4 threads of 10
    /// locked increments, `exists (c=40)`, took over 60 s), and a serial schedule runs
    /// every section whole: once the solver has ordered the threads, propagation fixes
    /// every lazy order. The schedule's clauses hold only under a guard literal that only
    /// this guess assumes: a model under it is a model of the whole instance, solved and
    /// validated as any other, and when there is none the caller solves without it, so no
    /// answer changes, only which witness shows it (docs/queries.md, "Sequential guess").
    fn sequential_guess(&mut self, goal: Bool) -> Result<Option<Execution>, AnalysisError> {
        let events = self.encoding.events;
        if !self.guess || !events.events.iter().any(|e| e.kind == EventKind::Lock) {
            return Ok(None);
        }
        let Some(guard) = self.serial_schedule() else {
            return Ok(None);
        };
        let found = self.find(&[self.within_bound, goal, guard])?;
        if found.is_some() {
            self.schedule_guesses += 1;
        }
        Ok(found)
    }

    /// The guard under which the lazy orders follow a serial schedule, built on first use
    /// and extended to the pair literals built since; `None` when no pair literal relates
    /// two events of threads.
    ///
    /// One literal per pair of threads says that the first runs entirely before the other,
    /// with transitivity among them (a total order of the threads); each pair literal of
    /// two events of one thread follows program order, and of two threads the threads'
    /// literal. Every clause has the guard's negation, which occurs nowhere else: any model
    /// of the instance extends to one with the guard false.
    fn serial_schedule(&mut self) -> Option<Bool> {
        let events = self.encoding.events;
        let place = |e: EventId| {
            let event = &events.events[e];
            Some((event.thread?, event.position))
        };
        let lock_choices = self
            .encoding
            .lock_choices
            .iter()
            .filter_map(|&(a, b, choice)| {
                let Bool::Lit(lit) = choice else { return None };
                Some((a, b, lit))
            });
        let pairs: Vec<(usize, usize, usize, usize, Lit)> = self
            .orders()
            .flat_map(Order::pair_literals)
            .chain(lock_choices)
            .filter_map(|(a, b, lit)| {
                let ((ta, pa), (tb, pb)) = (place(a)?, place(b)?);
                Some((ta, pa, tb, pb, lit))
            })
            .collect();
        if self.schedule.is_none() {
            if pairs.is_empty() {
                return None;
            }
            let threads = events.events.iter().filter_map(|e| e.thread).max()? + 1;
            self.schedule = Some(Schedule::new(&mut self.solver, threads));
        }
        let schedule = self.schedule.as_mut()?;
        let guard = schedule.guard;
        for (ta, pa, tb, pb, lit) in pairs {
            if !schedule.tied.insert(lit) {
                continue;
            }
            let before = Bool::Lit(lit);
            let serial = if ta == tb {
                match pa.cmp(&pb) {
                    std::cmp::Ordering::Less => Bool::TRUE,
                    std::cmp::Ordering::Greater => Bool::FALSE,
                    std::cmp::Ordering::Equal => continue,
                }
            } else {
                schedule.first(ta, tb)
            };
            self.solver.clause(&[!guard, !before, serial]);
            self.solver.clause(&[!guard, before, !serial]);
        }
        Some(guard)
    }

    /// The model's flags that some allowed execution raises.
    pub fn flags(&mut self) -> Result<Vec<String>, AnalysisError> {
        Ok(self
            .flags_found()?
            .into_iter()
            .map(|(name, _)| name)
            .collect())
    }

    /// [`Session::flags`], each with an execution that raises it.
    pub fn flags_found(&mut self) -> Result<Vec<(String, Execution)>, AnalysisError> {
        let mut raised: Vec<(String, Execution)> = Vec::new();
        for (name, lit) in self.compiled.flags.clone() {
            if raised.iter().any(|(n, _)| *n == name) {
                continue;
            }
            if let Some(execution) = self.find_guessing(lit)? {
                raised.push((name, execution));
            }
        }
        Ok(raised)
    }

    /// Whether some execution needs more loop iterations than were unrolled.
    pub fn bound_reachable(&mut self) -> Result<bool, AnalysisError> {
        if self.encoding.events.bound_hits.is_empty() {
            return Ok(false);
        }
        let mut assumptions = vec![self.encoding.bound_hit];
        assumptions.extend_from_slice(&self.enabled);
        Ok(self.solve(&assumptions)? == SolveOutcome::Sat)
    }

    /// An execution within the bound in which some thread is blocked for good.
    pub fn deadlock(&mut self) -> Result<Option<Execution>, AnalysisError> {
        if self.encoding.events.waits.is_empty() {
            return Ok(None);
        }
        let deadlock = self.encoding.deadlock;
        self.find(&[!self.encoding.bound_hit, deadlock])
    }

    pub fn assertion_failure(&mut self) -> Result<Option<Execution>, AnalysisError> {
        if self.encoding.assertion_failures.is_empty() {
            return Ok(None);
        }
        let any = self.some_assertion_fails();
        // An assertion fails in a reachable state even where a thread then blocks for good:
        // GenMC reports it on such a blocked execution too.
        self.find(&[!self.encoding.bound_hit, any])
    }

    /// The literal of "some assertion fails".
    pub(crate) fn some_assertion_fails(&mut self) -> Bool {
        let failures: Vec<Bool> = self
            .encoding
            .assertion_failures
            .iter()
            .map(|f| f.1)
            .collect();
        self.solver.or(&failures)
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
        self.outcomes_cut = false;
        while let Some(execution) = self.find(&assumptions)? {
            if self.encoding.thin_air && states.len() == THIN_AIR_STATES {
                self.outcomes_cut = true;
                break;
            }
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
        let within_bound = self.within_bound;
        self.count_executions_where(within_bound)
    }

    /// Count the executions that need more loop iterations than were unrolled, each up to
    /// where it meets the bound (GenMC's blocked executions under `-unroll`), as
    /// [`Session::count_executions`] counts the complete ones.
    pub fn count_cut_executions(&mut self) -> Result<u64, AnalysisError> {
        if self.encoding.events.bound_hits.is_empty() {
            return Ok(0);
        }
        let cut = self.encoding.bound_hit;
        let (positive, negative) = self.count_executions_where(cut)?;
        Ok(positive + negative)
    }

    fn count_executions_where(&mut self, premise: Bool) -> Result<(u64, u64), AnalysisError> {
        let condition = self.condition();
        let counting = Bool::Lit(self.solver.new_lit());
        let mut choice_lits: Vec<Bool> = Vec::new();
        // A barrier's arrivals are its machinery, not the program's choices
        // (`program::checks::is_barrier_arrivals`).
        let events = self.encoding.events;
        let program = self.encoding.program;
        let internal = |e: usize| {
            events.events[e].location.is_some_and(|loc| {
                crate::program::checks::is_barrier_arrivals(&program.locations[loc].name)
            })
        };
        for relation in [&self.encoding.rf, &self.encoding.co] {
            choice_lits.extend(
                relation
                    .iter()
                    .filter(|&(a, b, _)| !internal(a) && !internal(b))
                    .map(|(_, _, l)| l)
                    .filter(|l| !matches!(l, Bool::Const(_))),
            );
        }
        // GenMC's spin-assume blocks an execution that takes a spin loop's back edge: only
        // the executions whose reduced spin loops exit at their first test are complete
        // (docs/unrolling.md, "Spin loops"); the others are the same executions with failed
        // iterations kept, or blocked ones.
        for wait in &events.waits {
            if let WaitOn::Spin { went_on, .. } = &wait.on {
                let g = self.encoding.guard(&mut self.solver, went_on);
                self.solver.clause(&[!counting, !g]);
            }
        }
        let (mut positive, mut negative) = (0u64, 0u64);
        let mut assumptions = vec![premise, counting];
        assumptions.extend_from_slice(&self.enabled);
        loop {
            let outcome = self.solve(&assumptions)?;
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
