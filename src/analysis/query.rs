//! One question about one test, asked the way every front end asks it.
//!
//! The decisions that turn a command into solver work live here, not in the CLI: which race
//! definition applies (the model's own `race`, or the SC definition), which acyclicity
//! encoding an exported instance needs, which solve of a session is the query to export,
//! which witness an answer shows and what its picture is, and what the answer means for the
//! exit status.

use std::sync::Arc;

use super::atomicity::{AtomicityMode, AtomicityResult};
use super::check_races::{self, CheckRace};
use super::explain::Explanation;
use super::graph::Overlay;
use super::infer::{self, InferError, Inference, Property, Search};
use super::localize::{repair, Localization, LocalizeSettings};
use super::races::{RaceResult, RaceSearch};
use super::spec::{SpecMode, SpecResult};
use super::{
    observation_of, AnalysisError, AnalysisOptions, CheckResult, FinalState, Observation, Session,
};
use crate::cat::Model;
use crate::encode::acyclic::AcyclicStrategy;
use crate::load::Test;
use crate::solver::{Backend, EmitFormat, Recording, SolverOptions};
use crate::witness::Execution;

/// What is asked of a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Query {
    /// Decide the final condition; with `states`, also enumerate the reachable final
    /// states; with `certify`, have the solver check its proofs of every unsatisfiable
    /// answer.
    Check { states: bool, certify: bool },
    /// Every reachable final state.
    Outcomes,
    /// Every pair of statements that race in some execution.
    Races,
    /// Whether the `atomic { }` blocks are atomic.
    Atomicity(AtomicityMode),
    /// Which checks of the model forbid the condition's outcome.
    Explain,
    /// The weakest memory orders under which the program is correct.
    Infer,
    /// Whether every execution is correct with respect to the `spec { }` block.
    Spec(SpecMode),
    /// The critical orderings of the failing check, and verified fixes.
    Localize,
}

impl Query {
    /// The model a query runs under when none is named: SC, except for `infer`, which
    /// starts from RC11 (orders change nothing under SC).
    pub fn default_model(self) -> &'static str {
        match self {
            Query::Infer => "rc11",
            _ => "sc",
        }
    }

    /// Why the query's instance cannot be written out (`--emit`), if it cannot: `infer`
    /// solves one instance per assignment of orders, so there is no one instance to write.
    pub fn emit_refusal(self) -> Option<&'static str> {
        match self {
            Query::Infer => {
                Some("infer solves one instance per assignment of orders: --emit cannot write one")
            }
            _ => None,
        }
    }

    /// What an exported instance of this query asks, for the comment on top of the file.
    fn exported_question(self) -> &'static str {
        match self {
            Query::Check { .. } => {
                "check, the condition query: some execution the model allows, within the \
                 unrolling bound, satisfies the final condition (check's first solve; the \
                 second asks the negation)"
            }
            Query::Outcomes => {
                "outcomes, the first solve of the enumeration: some execution the model \
                 allows exists within the unrolling bound (each later solve adds a clause \
                 blocking the final states found)"
            }
            Query::Races => "races, the first solve: some candidate race occurs",
            Query::Atomicity(_) => "atomicity, the first solve: some candidate violation occurs",
            Query::Explain => "explain, the first solve: the condition under every check in force",
            Query::Infer => "infer, which solves one instance per assignment of orders",
            Query::Spec(SpecMode::Strict) => {
                "spec --mode strict: some execution in which some history of the method calls \
                 consistent with the ordering points does not match the specification"
            }
            Query::Spec(_) => {
                "spec: some execution in which no history of the method calls respects real \
                 time (or the ordering points) and matches the specification"
            }
            Query::Localize => "localize, the first solve: some execution is bad",
        }
    }
}

/// How a query is answered.
#[derive(Clone, Debug)]
pub struct QueryOptions {
    pub model: Arc<Model>,
    /// The model as the user named it (`sc`, `models/tso.cat`), for reports.
    pub model_label: String,
    /// Named checks of the model switched off (what-if).
    pub skip: Vec<String>,
    pub strategy: AcyclicStrategy,
    pub backend: Backend,
    /// Count the allowed executions (distinct rf and co) as herd does.
    pub count: bool,
    /// The answer is printed in herd7's layout, which lists every final state and counts
    /// the executions: `check` and `outcomes` compute both.
    pub herd_layout: bool,
    /// The answer is compared with herd7's log of the test (`--expect`), which lists its
    /// final states: `check` computes them.
    pub compared_with_log: bool,
    /// Also compute the execution a picture of the answer shows.
    pub picture: bool,
    /// Also write out the query's instance in this format.
    pub emit: Option<EmitFormat>,
    /// Refuse a test that unrolls into more events than this. The test is already
    /// unrolled here; [`crate::LoadOptions::max_events`] refuses it while unrolling, before
    /// the work, and is what the command line uses.
    pub max_events: Option<usize>,
    /// What `infer` requires of the program, and the source lines whose orders it keeps.
    pub infer: InferSettings,
    /// How far `localize` searches, and whether it looks for fixes.
    pub localize: LocalizeSettings,
    /// Whether `races` lists every racing pair or stops at the first.
    pub race_search: RaceSearch,
    /// A data race is no defect of a C program's `check` (GenMC's
    /// `-disable-race-detection`); see [`Defects::data_race`].
    pub ignore_races: bool,
    /// A thread blocked for good is no defect: such executions are left out, as GenMC
    /// leaves them without `-check-liveness`; see [`Defects::deadlock`].
    pub no_liveness: bool,
}

impl QueryOptions {
    /// Whether `query` enumerates the reachable final states: `outcomes` always, `check`
    /// when asked to or when its answer lists them (herd's layout, a comparison with
    /// herd's log).
    pub fn lists_states(&self, query: Query) -> bool {
        match query {
            Query::Outcomes => true,
            Query::Check { states, .. } => states || self.herd_layout || self.compared_with_log,
            _ => false,
        }
    }

    /// Whether `query` counts the allowed executions: when asked to, and for herd's layout
    /// of `check` and `outcomes`.
    pub fn counts(&self, query: Query) -> bool {
        self.count || self.herd_layout && matches!(query, Query::Check { .. } | Query::Outcomes)
    }
}

/// Whether `query`, asked with `options`, may read a test unrolled with store forwarding
/// (`events::UnrollOptions::forward_stores`, docs/unrolling.md "Store forwarding"): the
/// forwarded value is the only one a read can return under a model with coherence and
/// without load buffering through thread creation, so only `check`, `outcomes` and
/// `races` under SC or RC11 as shipped with every check in force (`explain` and `--skip`
/// switch checks off; `infer`, `spec` and `localize` unroll for themselves).
pub fn forwards_stores(query: Query, options: &QueryOptions) -> bool {
    matches!(query, Query::Check { .. } | Query::Outcomes | Query::Races)
        && options.skip.is_empty()
        && (super::slice::is_sc(&options.model) || super::slice::is_rc11(&options.model))
}

/// The settings of an `infer` query.
#[derive(Clone, Debug, Default)]
pub struct InferSettings {
    pub property: Property,
    pub keep_lines: Vec<usize>,
    pub search: Search,
}

impl QueryOptions {
    /// SC (or `model`), every check in force, the embedded solver, lazy acyclicity.
    pub fn new(model: Arc<Model>, model_label: impl Into<String>) -> QueryOptions {
        QueryOptions {
            model,
            model_label: model_label.into(),
            skip: Vec::new(),
            strategy: AcyclicStrategy::default(),
            backend: Backend::default(),
            count: false,
            herd_layout: false,
            compared_with_log: false,
            picture: false,
            emit: None,
            max_events: None,
            infer: InferSettings::default(),
            localize: LocalizeSettings::default(),
            race_search: RaceSearch::All,
            ignore_races: false,
            no_liveness: false,
        }
    }
}

/// The answer to `check` (and `outcomes`): the verdict, and what was asked beside it.
#[derive(Clone, Debug)]
pub struct CheckAnswer {
    pub result: CheckResult,
    /// The reachable final states, when enumerated.
    pub states: Option<Vec<FinalState>>,
    /// The enumeration stopped at [`super::THIN_AIR_STATES`]: more states exist, with
    /// values out of thin air.
    pub states_cut: bool,
    /// herd's Positive and Negative execution counts, when counted.
    pub counts: Option<(u64, u64)>,
    /// Which of the findings beside the condition and the assertions are defects.
    pub defects: Defects,
    /// With `--block-at-bound`: the executions left out because they need more loop
    /// iterations, when there are some.
    pub left_at_bound: Option<LeftAtBound>,
    /// Under a model that raises no race flag (sc, tso, ...): the racing pair found by
    /// `races`' definition, a data race of a C program ([`super::check_races`]).
    pub race: Option<Box<CheckRace>>,
}

/// The executions `--block-at-bound` left out of an answer (GenMC's blocked executions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LeftAtBound {
    /// How many, when executions were counted (`--count`).
    pub count: Option<u64>,
}

/// Which of `check`'s findings, beside its condition and its assertions, are defects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Defects {
    /// The model's flag `undefined` (herd's undefined behaviour: under the C11 models, a
    /// data race), raised by some allowed execution: a defect of a C program, as GenMC
    /// reports a "Non-atomic race", unless [`QueryOptions::ignore_races`]. A litmus test
    /// keeps herd's reading, a flag beside the verdict.
    pub data_race: bool,
    /// The model raises no race flag, and `races`' definition found a race in some allowed
    /// execution ([`CheckAnswer::race`]): a data race, as the C11 models' flag is.
    pub race_found: bool,
    /// A thread blocked for good in some execution; unless [`QueryOptions::no_liveness`],
    /// as GenMC counts such executions as blocked without `-check-liveness`.
    pub deadlock: bool,
    /// The test is a C program: a pointer access to no cell is GenMC's access to
    /// non-allocated memory (a litmus test keeps it an invalid access).
    pub c_program: bool,
}

impl Defects {
    /// The flag whose raising is a data race.
    pub const RACE_FLAG: &'static str = "undefined";

    fn of(test: &Test, options: &QueryOptions) -> Defects {
        Defects {
            data_race: crate::cfront::is_c_file(&test.file().name) && !options.ignore_races,
            race_found: false,
            deadlock: !options.no_liveness,
            c_program: crate::cfront::is_c_file(&test.file().name),
        }
    }

    /// Whether `result` holds a data race that is a defect.
    pub fn race_in(self, result: &CheckResult) -> bool {
        self.data_race && (self.race_found || result.flags.iter().any(|f| f == Self::RACE_FLAG))
    }

    /// The memory defects of `result` (always defects), GenMC's, by the names of
    /// [`crate::cat::memory`]: the flags raised, and the implicit checks of the failing
    /// execution shown, a pointer access to no cell (`NULL`, an integer: GenMC's access to
    /// non-allocated memory) and a `free` of no block ([`Defects::FREE_NON_ALLOCATED`]).
    pub fn memory_in(
        self,
        result: &CheckResult,
        events: &crate::events::Events,
    ) -> Vec<&'static str> {
        use crate::cat::memory::{FLAGS, NON_ALLOCATED};
        let mut kinds: Vec<&'static str> = FLAGS
            .iter()
            .copied()
            .filter(|k| result.flags.iter().any(|f| f == k))
            .collect();
        if let Some(failure) = &result.assertion_failure {
            for e in &failure.failed_assertions {
                let kind = if events.free_checks.contains(e) {
                    Self::FREE_NON_ALLOCATED
                } else if events
                    .access_checks
                    .get(e)
                    .is_some_and(|c| c.cells.is_none() && self.c_program)
                {
                    NON_ALLOCATED
                } else {
                    continue;
                };
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                }
            }
        }
        kinds
    }

    /// A free of something no allocation returned.
    pub const FREE_NON_ALLOCATED: &'static str = "free-non-allocated";

    /// Whether an assertion of `result`'s failing execution is the program's own (not an
    /// implicit check that [`Defects::memory_in`] names).
    pub fn assertion_in(self, result: &CheckResult, events: &crate::events::Events) -> bool {
        result.assertion_failure.as_ref().is_some_and(|failure| {
            failure
                .failed_assertions
                .iter()
                .any(|&e| self.is_own_assertion(e, events))
        })
    }

    /// Whether the assertion event `e` is the program's own: not a memory check that
    /// [`Defects::memory_in`] names, nor the check of a library's use (`program::checks`)
    /// that the report names by its kind.
    pub fn is_own_assertion(
        self,
        e: crate::events::EventId,
        events: &crate::events::Events,
    ) -> bool {
        !events.free_checks.contains(&e)
            && !events.library_checks.contains_key(&e)
            && !events
                .access_checks
                .get(&e)
                .is_some_and(|c| c.cells.is_none() && self.c_program)
    }
}

/// Which execution a `check` report shows, and in what role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WitnessRole {
    /// An execution satisfying an `exists` condition.
    Witness,
    /// An execution contradicting the test's expectation (`~exists`, `forall`).
    Counterexample,
    /// An execution satisfying a `forall` condition that always holds.
    Example,
}

impl WitnessRole {
    pub fn title(self) -> &'static str {
        match self {
            WitnessRole::Witness => "Witness",
            WitnessRole::Counterexample => "Counterexample",
            WitnessRole::Example => "Example",
        }
    }
}

impl CheckResult {
    /// The verdict stands whatever the executions the unrolling bound cut do: it rests on
    /// an execution that was found (a witness, a counterexample), or no execution was cut.
    pub fn conclusive(&self) -> bool {
        use crate::program::Quantifier;
        !self.bound_hit
            || match self.quantifier {
                Quantifier::Exists => self.ok,
                Quantifier::NotExists | Quantifier::Forall => !self.ok,
            }
    }

    /// The test states a requirement (`~exists`, `forall`) that some execution breaks.
    pub fn requirement_fails(&self) -> bool {
        use crate::program::Quantifier;
        !self.ok && matches!(self.quantifier, Quantifier::NotExists | Quantifier::Forall)
    }

    /// The witness worth showing: the one that meets the condition for `exists`, and a
    /// counterexample to the test's expectation otherwise.
    pub fn shown_witness(&self) -> Option<(WitnessRole, &Execution)> {
        use crate::program::Quantifier;
        match self.quantifier {
            Quantifier::Exists => self.positive.as_ref().map(|e| (WitnessRole::Witness, e)),
            Quantifier::NotExists => self
                .positive
                .as_ref()
                .map(|e| (WitnessRole::Counterexample, e)),
            Quantifier::Forall => match &self.negative {
                Some(e) => Some((WitnessRole::Counterexample, e)),
                None => self.positive.as_ref().map(|e| (WitnessRole::Example, e)),
            },
        }
    }
}

/// What a query found.
#[derive(Clone, Debug)]
pub enum Finding {
    /// A limit stopped the query before any verdict.
    Limit(String),
    Check(Box<CheckAnswer>),
    Races(RaceResult),
    Atomicity(AtomicityResult),
    Explain(Explanation),
    Infer(Box<Inference>),
    Spec(SpecResult),
    Localize(Box<Localization>),
}

/// The picture of an answer ([`QueryOptions::picture`]).
#[derive(Clone, Debug, Default)]
pub enum Picture {
    /// No picture was asked for, or the query draws none.
    #[default]
    NotAsked,
    /// A picture was asked for, but the answer has no execution to draw.
    NoExecution,
    /// The execution to draw and the model's relations over it.
    Drawn(Box<(Execution, Overlay)>),
}

impl Picture {
    fn of(drawn: Option<(Execution, Overlay)>) -> Picture {
        match drawn {
            Some(drawn) => Picture::Drawn(Box::new(drawn)),
            None => Picture::NoExecution,
        }
    }

    /// The execution and its overlay, when there is one to draw.
    pub fn drawn(&self) -> Option<(&Execution, &Overlay)> {
        match self {
            Picture::Drawn(drawn) => Some((&drawn.0, &drawn.1)),
            Picture::NotAsked | Picture::NoExecution => None,
        }
    }
}

/// A query's answer, with the picture and the exported instance when asked for.
#[derive(Clone, Debug)]
pub struct Answer {
    pub query: Query,
    pub finding: Finding,
    pub picture: Picture,
    /// The query's instance, as asked by [`QueryOptions::emit`].
    pub instance: Option<String>,
}

/// What an answer means for the one who asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Ran and found no defect.
    Clean,
    /// A race, an atomicity violation, a failed assertion, a deadlock, a failed `~exists` or
    /// `forall`.
    Defect,
    /// A limit cut the question: the unrolling bound, `--max-events`.
    LimitHit,
    /// The answer differs from the result the user expected (`--expect`).
    Differs,
}

impl Answer {
    pub fn severity(&self) -> Severity {
        let (defect, limited) = match &self.finding {
            Finding::Limit(_) => (false, true),
            Finding::Check(c) => (
                c.result.assertion_failure.is_some()
                    || (c.defects.deadlock && c.result.deadlock.is_some())
                    || c.defects.race_in(&c.result)
                    || c.result
                        .flags
                        .iter()
                        .any(|f| crate::cat::memory::FLAGS.contains(&f.as_str()))
                    || c.result.requirement_fails(),
                c.result.bound_hit || c.states_cut,
            ),
            Finding::Races(r) => (!r.races.is_empty() || r.deadlock.is_some(), r.bound_hit),
            Finding::Atomicity(a) => (a.violated(), a.bound_hit),
            Finding::Explain(_) => (false, false),
            Finding::Infer(i) => (i.written_failure.is_some(), i.bound_hit),
            Finding::Spec(s) => (s.violation.is_some(), s.bound_hit),
            Finding::Localize(l) => (l.bad.is_some(), l.bound_hit),
        };
        if defect {
            Severity::Defect
        } else if limited {
            Severity::LimitHit
        } else {
            Severity::Clean
        }
    }

    /// The severity once the answer is compared with the result the user expected:
    /// `matches` is `None` when there is nothing to compare with. A matching answer is
    /// clean, since the expectation already says whether a defect is wanted, unless a
    /// limit cut it: then there is no result to compare, whatever the expectation says.
    pub fn severity_against(&self, matches: Option<bool>) -> Severity {
        let severity = self.severity();
        match matches {
            Some(false) => Severity::Differs,
            Some(true) if severity != Severity::LimitHit => Severity::Clean,
            _ => severity,
        }
    }
}

/// What an answer found, in a few counts: whether the condition's outcome is reachable,
/// how many races, whether a check was violated or an assertion failed, whether the
/// unrolling bound cut executions. A batch of tests adds them up.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally {
    /// The condition's outcome is reachable (`Some(true)`) or not (`Some(false)`).
    pub reachable: Option<bool>,
    pub races: usize,
    pub violated: bool,
    pub assertion_failed: bool,
    pub bound_hit: bool,
}

impl Answer {
    /// What the answer found, as a batch's summary counts it.
    pub fn tally(&self) -> Tally {
        match &self.finding {
            Finding::Check(found) => Tally {
                reachable: Some(found.result.observation != Observation::Never),
                assertion_failed: found.result.assertion_failure.is_some(),
                bound_hit: found.result.bound_hit || found.states_cut,
                ..Tally::default()
            },
            Finding::Races(result) => Tally {
                races: result.races.len(),
                bound_hit: result.bound_hit,
                ..Tally::default()
            },
            Finding::Atomicity(result) => Tally {
                violated: result.violated(),
                bound_hit: result.bound_hit,
                ..Tally::default()
            },
            Finding::Infer(inference) => Tally {
                bound_hit: inference.bound_hit,
                ..Tally::default()
            },
            Finding::Spec(result) => Tally {
                violated: result.violation.is_some(),
                bound_hit: result.bound_hit,
                ..Tally::default()
            },
            Finding::Localize(localization) => Tally {
                reachable: Some(localization.bad.is_some()),
                bound_hit: localization.bound_hit,
                ..Tally::default()
            },
            Finding::Limit(_) | Finding::Explain(_) => Tally::default(),
        }
    }
}

/// Ask `query` of `test`: one session, one solver, every solve incremental.
pub fn ask(test: &Test, query: Query, options: &QueryOptions) -> Result<Answer, AnalysisError> {
    let Test { program, events } = test;
    if let Some(max) = options.max_events {
        let count = events.events.len();
        if count > max {
            return Ok(Answer::limit(
                query,
                format!("{count} events exceed --max-events {max}"),
            ));
        }
    }
    let recording = options.emit.map(|_| Recording::new());
    // RC11's races of a program whose reads all feed nothing are SC's, which SC's encoding
    // decides without building RC11's `hb` closure (`slice::rc11_races_are_sc`).
    let races_as_sc = query == Query::Races
        && options.skip.is_empty()
        && super::slice::rc11_races_are_sc(&options.model, program, events);
    let analysis = analysis_options(query, options, races_as_sc, recording.clone());
    if query == Query::Infer {
        if let (Some(_), Some(too_many)) = (
            options.infer.property.spec,
            events.spec.as_ref().and_then(|s| s.too_many.as_ref()),
        ) {
            return Ok(Answer::limit(query, too_many.to_string()));
        }
        return Ok(Answer {
            query,
            finding: infer_finding(test, &analysis, options)?,
            picture: Picture::NotAsked,
            instance: None,
        });
    }
    if matches!(query, Query::Spec(_)) && program.spec.is_none() {
        return Err(AnalysisError::NoSpecification {
            test: program.name.clone(),
        });
    }
    // `localize` of a test without a condition localizes its specification's violations.
    let spec_checked = match query {
        Query::Spec(_) => true,
        Query::Localize => program.condition.is_none(),
        _ => false,
    };
    if let (true, Some(too_many)) = (
        spec_checked,
        events.spec.as_ref().and_then(|s| s.too_many.as_ref()),
    ) {
        return Ok(Answer::limit(query, too_many.to_string()));
    }
    // `--block-at-bound`: `check` says in its own session what the block left out.
    let mut session = match query {
        Query::Check { .. } | Query::Outcomes if events.block_at_bound => {
            Session::with_block_deferred(program, events, &analysis)?
        }
        _ => Session::new(program, events, &analysis)?,
    };
    let mut picture = Picture::NotAsked;
    // The solve whose instance is exported: the query's first, except for `outcomes`,
    // whose enumeration starts after the condition's two solves.
    let mut exported_solve = 0;
    let finding = match query {
        Query::Check { .. } | Query::Outcomes => {
            let mut result = session.check()?;
            let left_at_bound = session.left_out(&mut result, options.counts(query))?;
            if let (Query::Outcomes, Some(recording)) = (query, &recording) {
                exported_solve = recording.log().queries.len();
            }
            let mut defects = Defects::of(test, options);
            // A model that raises no race flag: `races`' definition, in a session of its own.
            let race = if defects.data_race
                && matches!(query, Query::Check { .. })
                && !check_races::model_flags_races(&options.model, Defects::RACE_FLAG)
            {
                let races = analysis_options(Query::Races, options, false, None);
                check_races::first_race(test, &races)?.map(Box::new)
            } else {
                None
            };
            defects.race_found = race.is_some();
            let found = CheckFound {
                result,
                defects,
                left_at_bound,
                race,
            };
            check_finding(&mut session, found, query, options, &mut picture)?
        }
        Query::Races => races_finding(&mut session, options, races_as_sc)?,
        Query::Atomicity(mode) => Finding::Atomicity(session.atomicity(mode)?),
        Query::Explain => {
            let explanation = session.explain()?;
            if options.picture {
                picture = Picture::of(session.explanation_picture(&explanation)?);
            }
            Finding::Explain(explanation)
        }
        Query::Spec(mode) => Finding::Spec(session.spec(mode)?),
        Query::Localize => localize_finding(test, &mut session, &analysis, options, &mut picture)?,
        // Answered above, before a session for the written program is opened.
        Query::Infer => infer_finding(test, &analysis, options)?,
    };
    let instance = match (options.emit, &recording) {
        (Some(format), Some(recording)) => {
            let header = exported_header(test, query, options);
            Some(recording.log().emit(format, Some(exported_solve), &header))
        }
        _ => None,
    };
    Ok(Answer {
        query,
        finding,
        picture,
        instance,
    })
}

impl Answer {
    /// The answer of a query a limit stopped before any verdict.
    fn limit(query: Query, limit: String) -> Answer {
        Answer {
            query,
            finding: Finding::Limit(limit),
            picture: Picture::NotAsked,
            instance: None,
        }
    }
}

/// How the session of `query` is built.
fn analysis_options(
    query: Query,
    options: &QueryOptions,
    races_as_sc: bool,
    record: Option<Recording>,
) -> AnalysisOptions {
    AnalysisOptions {
        // An exported query must be the whole question: lazy acyclicity adds its
        // transitivity clauses only between solves, so the file gets ranks instead.
        strategy: match (options.emit, options.strategy) {
            (Some(_), AcyclicStrategy::Lazy) => AcyclicStrategy::Ranks,
            (_, strategy) => strategy,
        },
        skip: options.skip.clone(),
        model: if races_as_sc {
            Arc::new(crate::cat::sc())
        } else {
            options.model.clone()
        },
        certify: matches!(query, Query::Check { certify: true, .. }),
        // Which execution of a class of renamings is found changes neither the condition's
        // verdict, nor the final states, nor the model's flags; counts of executions and
        // per-thread reports (races, atomicity) do see it, and infer's sites tell the
        // threads' accesses apart.
        symmetry: matches!(
            query,
            Query::Check { .. } | Query::Outcomes | Query::Explain
        ) && !options.counts(query),
        // Races under SC read no final state and no value of a plain location that only
        // feeds its own writes: such locations need no memory encoding.
        slice_races: query == Query::Races,
        counting: true,
        // `explain`, and `check`'s picture of a forbidden outcome, drop checks.
        what_if: query == Query::Explain
            || (options.picture && matches!(query, Query::Check { .. })),
        sequential_guess: true,
        solver: SolverOptions {
            backend: options.backend,
            record,
        },
    }
}

/// `check`'s and `outcomes`' answer: the verdict `result`, and the final states, the counts
/// and the picture when asked for.
/// What `check` found before the states, counts and picture are added to it.
struct CheckFound {
    result: CheckResult,
    defects: Defects,
    left_at_bound: Option<LeftAtBound>,
    race: Option<Box<CheckRace>>,
}

fn check_finding(
    session: &mut Session,
    found: CheckFound,
    query: Query,
    options: &QueryOptions,
    picture: &mut Picture,
) -> Result<Finding, AnalysisError> {
    let CheckFound {
        mut result,
        defects,
        left_at_bound,
        race,
    } = found;
    let states = if options.lists_states(query) {
        Some(session.outcomes()?)
    } else {
        None
    };
    if let Some(states) = &states {
        // The enumeration is the more direct source of the observation; the two agree.
        debug_assert_eq!(observation_of(states), result.observation);
        result.observation = observation_of(states);
    }
    let counts = if options.counts(query) {
        Some(session.count_executions()?)
    } else {
        None
    };
    if options.picture && matches!(query, Query::Check { .. }) {
        let shown = result.shown_witness().map(|(_, e)| e);
        *picture = Picture::of(session.check_picture(shown)?);
    }
    Ok(Finding::Check(Box::new(CheckAnswer {
        result,
        states,
        states_cut: session.outcomes_cut,
        counts,
        defects,
        left_at_bound,
        race,
    })))
}

/// `races`' answer: the model's own `race` where it has one, SC's definition otherwise.
fn races_finding(
    session: &mut Session,
    options: &QueryOptions,
    races_as_sc: bool,
) -> Result<Finding, AnalysisError> {
    if races_as_sc {
        let mut result = session.races_with(options.race_search)?;
        result.definition = format!(
            "{}'s own relation `race`; no value read here feeds anything, so its races \
             are SC's (unordered by program order and lock order)",
            options.model.name
        );
        return Ok(Finding::Races(result));
    }
    Ok(Finding::Races(
        match session.model_races_with(options.race_search) {
            Some(result) => result?,
            None => session.races_with(options.race_search)?,
        },
    ))
}

/// `localize`'s answer: the critical sets, each with its verified fixes when asked for.
fn localize_finding(
    test: &Test,
    session: &mut Session,
    analysis: &AnalysisOptions,
    options: &QueryOptions,
    picture: &mut Picture,
) -> Result<Finding, AnalysisError> {
    let Test { program, events } = test;
    let mut localization = session.localize(options.localize)?;
    if options.localize.repairs {
        localization.repairs_searched = true;
        let target = localization.target;
        for set in &mut localization.sets {
            set.repairs = repair::repairs(program, events, analysis, target, set)?;
        }
        if localization.bad.is_some() {
            localization.repairs = repair::stronger_orders(program, events, analysis, target)?
                .into_iter()
                .collect();
        }
    }
    if options.picture {
        *picture = Picture::of(match localization.sets.first() {
            Some(set) => {
                let overlay = session.overlay(&set.witness)?;
                Some((set.witness.clone(), critical_overlay(set, overlay)))
            }
            None => None,
        });
    }
    Ok(Finding::Localize(Box::new(localization)))
}

/// A picture of a critical set's execution: its orderings drawn as the heavy steps.
fn critical_overlay(set: &super::localize::CriticalSet, overlay: Overlay) -> Overlay {
    let steps = set
        .marked
        .iter()
        .flatten()
        .map(|&(from, to)| crate::witness::relations::Step {
            from,
            to,
            relation: "critical".to_string(),
        })
        .collect();
    Overlay {
        violation: Some(crate::witness::relations::Violation {
            check: "critical".to_string(),
            kind: crate::cat::ast::CheckKind::Empty,
            steps,
        }),
        ..overlay
    }
}

/// `infer`'s answer. The exhaustive search's number of assignments is a limit, checked
/// before any is solved.
fn infer_finding(
    test: &Test,
    analysis: &AnalysisOptions,
    options: &QueryOptions,
) -> Result<Finding, AnalysisError> {
    match infer::infer(
        &test.program,
        test.events.unroll,
        analysis,
        options.infer.property,
        &options.infer.keep_lines,
        options.infer.search,
    ) {
        Ok(inference) => Ok(Finding::Infer(Box::new(inference))),
        Err(limit @ InferError::TooMany { .. }) => Ok(Finding::Limit(limit.to_string())),
        Err(InferError::Analysis(e)) => Err(e),
        Err(InferError::Unroll(message)) => Err(AnalysisError::Evaluation(message)),
        Err(e @ InferError::Linearizable) => Err(AnalysisError::Evaluation(e.to_string())),
    }
}

/// The comment on top of an exported instance: which test, and which question it asks.
fn exported_header(test: &Test, query: Query, options: &QueryOptions) -> String {
    format!(
        "nemos {}: test {} ({}), model {}, unroll {}, solver {}\n\
         query: {}\n\
         variables: fb(eN) event N executes, rf(eW,eR) R reads from W, co(eA,eB) coherence \
         order, fr(eR,eW) from-read, ctl(cN) control N holds; event numbers as in `nemos \
         events`",
        env!("CARGO_PKG_VERSION"),
        test.program.name,
        test.file().name,
        options.model_label,
        test.events.unroll,
        options.backend.name(),
        query.exported_question(),
    )
}

/// `infer --together`: one assignment of orders for the functions `tests` share, under
/// which the property of `options.infer` holds in every one of them (`infer::together`),
/// each test under the session `infer` would open for it.
pub fn ask_together(
    tests: &[&Test],
    options: &QueryOptions,
) -> Result<infer::Together, infer::TogetherError> {
    let analysis = analysis_options(Query::Infer, options, false, None);
    let programs: Vec<(&crate::program::Program, u32)> = tests
        .iter()
        .map(|t| (&t.program, t.events.unroll))
        .collect();
    infer::together(&programs, &analysis, options.infer.property)
}
