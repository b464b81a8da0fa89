//! One question about one test, asked the way every front end asks it.
//!
//! The decisions that turn a command into solver work live here, not in the CLI: which race
//! definition applies (the model's own `race`, or the SC definition), which acyclicity
//! encoding an exported instance needs, which solve of a session is the query to export,
//! which witness an answer shows and what its picture is, and what the answer means for the
//! exit status.

use std::sync::Arc;

use super::atomicity::{AtomicityMode, AtomicityResult};
use super::explain::Explanation;
use super::graph::Overlay;
use super::infer::{self, InferError, Inference, Property, Search};
use super::localize::{repair, Localization, LocalizeSettings};
use super::races::{RaceResult, RaceSearch};
use super::spec::{SpecMode, SpecResult};
use super::{observation_of, AnalysisError, AnalysisOptions, CheckResult, FinalState, Session};
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
            picture: false,
            emit: None,
            max_events: None,
            infer: InferSettings::default(),
            localize: LocalizeSettings::default(),
            race_search: RaceSearch::All,
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

/// A query's answer, with the picture and the exported instance when asked for.
#[derive(Clone, Debug)]
pub struct Answer {
    pub query: Query,
    pub finding: Finding,
    /// The execution to draw and the model's relations over it; `None` inside when there
    /// is no execution to draw.
    pub picture: Option<Option<(Execution, Overlay)>>,
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
}

impl Answer {
    pub fn severity(&self) -> Severity {
        let (defect, limited) = match &self.finding {
            Finding::Limit(_) => (false, true),
            Finding::Check(c) => (
                c.result.assertion_failure.is_some()
                    || c.result.deadlock.is_some()
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
}

/// Ask `query` of `test`: one session, one solver, every solve incremental.
pub fn ask(test: &Test, query: Query, options: &QueryOptions) -> Result<Answer, AnalysisError> {
    let Test { program, events } = test;
    if let Some(max) = options.max_events {
        let count = events.events.len();
        if count > max {
            return Ok(Answer {
                query,
                finding: Finding::Limit(format!("{count} events exceed --max-events {max}")),
                picture: None,
                instance: None,
            });
        }
    }
    let recording = options.emit.map(|_| Recording::new());
    // RC11's races of a program whose reads all feed nothing are SC's, which SC's encoding
    // decides without building RC11's `hb` closure (`slice::rc11_races_are_sc`).
    let races_as_sc = query == Query::Races
        && options.skip.is_empty()
        && super::slice::rc11_races_are_sc(&options.model, program, events);
    let analysis = AnalysisOptions {
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
        ) && !options.count,
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
            record: recording.clone(),
        },
    };
    if query == Query::Infer {
        return Ok(Answer {
            query,
            finding: infer_finding(test, &analysis, options)?,
            picture: None,
            instance: None,
        });
    }
    if matches!(query, Query::Spec(_)) && program.spec.is_none() {
        return Err(AnalysisError::NoSpecification {
            test: program.name.clone(),
        });
    }
    if let (Query::Spec(_), Some(too_many)) = (
        query,
        events.spec.as_ref().and_then(|s| s.too_many.as_ref()),
    ) {
        return Ok(Answer {
            query,
            finding: Finding::Limit(too_many.to_string()),
            picture: None,
            instance: None,
        });
    }
    let mut session = Session::new(program, events, &analysis)?;
    // The solve whose instance is exported: the query's first, except for `outcomes`,
    // whose enumeration starts after the condition's two solves.
    let mut exported_solve = 0;
    let mut picture = None;
    let finding = match query {
        Query::Check { .. } | Query::Outcomes => {
            let mut result = session.check()?;
            if let Some(recording) = &recording {
                if query == Query::Outcomes {
                    exported_solve = recording.log().queries.len();
                }
            }
            let states = match query {
                Query::Check { states: false, .. } => None,
                _ => Some(session.outcomes()?),
            };
            if let Some(states) = &states {
                // The enumeration is the more direct source of the observation; the two
                // agree.
                debug_assert_eq!(observation_of(states), result.observation);
                result.observation = observation_of(states);
            }
            let counts = if options.count {
                Some(session.count_executions()?)
            } else {
                None
            };
            if options.picture && matches!(query, Query::Check { .. }) {
                let shown = result.shown_witness().map(|(_, e)| e);
                picture = Some(session.check_picture(shown)?);
            }
            Finding::Check(Box::new(CheckAnswer {
                result,
                states,
                states_cut: session.outcomes_cut,
                counts,
            }))
        }
        Query::Races if races_as_sc => {
            let mut result = session.races_with(options.race_search)?;
            result.definition = format!(
                "{}'s own relation `race`; no value read here feeds anything, so its races \
                 are SC's (unordered by program order and lock order)",
                options.model.name
            );
            Finding::Races(result)
        }
        Query::Races => Finding::Races(match session.model_races_with(options.race_search) {
            Some(result) => result?,
            None => session.races_with(options.race_search)?,
        }),
        Query::Atomicity(mode) => Finding::Atomicity(session.atomicity(mode)?),
        Query::Explain => {
            let explanation = session.explain()?;
            if options.picture {
                picture = Some(session.explanation_picture(&explanation)?);
            }
            Finding::Explain(explanation)
        }
        Query::Spec(mode) => Finding::Spec(session.spec(mode)?),
        Query::Localize => {
            let mut localization = session.localize(options.localize)?;
            if options.localize.repairs {
                localization.repairs_searched = true;
                let target = localization.target;
                for set in &mut localization.sets {
                    set.repairs = repair::repairs(program, events, &analysis, target, set)?;
                }
                if localization.bad.is_some() {
                    localization.repairs =
                        repair::stronger_orders(program, events, &analysis, target)?
                            .into_iter()
                            .collect();
                }
            }
            if options.picture {
                picture = Some(match localization.sets.first() {
                    Some(set) => {
                        let overlay = session.overlay(&set.witness)?;
                        Some((set.witness.clone(), critical_overlay(set, overlay)))
                    }
                    None => None,
                });
            }
            Finding::Localize(Box::new(localization))
        }
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
