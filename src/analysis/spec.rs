//! Correctness against the `spec { }` block (seed 003's and CDSSpec's question: is the
//! object correct against its sequential specification?), in three modes.
//!
//! `Linearizable`, under SC:
//! An execution is linearizable when some history of its method calls (an order of the
//! calls that keeps each thread's program order, see [`crate::events::spec`]) respects its
//! real-time order and matches: run in that order, the sequential versions return what every
//! completed call returned. Real time is the SC interleaving's: call `a` precedes call `b`
//! when every memory access of `a` comes before every memory access of `b`
//! ([`Session::order_before`]); calls that overlap may be ordered either way. A call that
//! executes no memory access has no place of its own in the interleaving and is ordered
//! only with its own thread's calls.
//!
//! `Loose` and `Strict` are CDSSpec's C11 correctness (seed 000), over every execution the
//! model allows: the calls are ordered by their ordering points (`ordering_point(e)` after
//! an access) instead of real time. Two ordering points X, Y of one location are ordered,
//! X `opo` Y, by CDSSpec's five rules: `rf`, `mo`, `rf^-1; mo`, `mo; rf` and
//! `rf^-1; mo; rf`; a call with an ordering point `opo` before one of another call's comes
//! first in every history consistent with them. Loosely exhaustive: some consistent
//! history matches; strictly exhaustive: every one does. Calls without ordering points are
//! ordered only by their threads' program order.
//!
//! One SAT instance asks for a violation over all executions at once: an execution (with
//! its interleaving) in which every history breaks real time or does not match. The
//! histories are enumerated (their number is bounded by `events::spec::MAX_HISTORIES`); the
//! executions are not. The witness is checked again on explicit values: every history is
//! evaluated on the decoded execution, and one that fits would be an internal error.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::Serialize;

use super::{AnalysisError, Session};
use crate::cat::{Model, TExpr};
use crate::diagnostics::SourceFile;
use crate::encode::cnf::{Bool, Gates};
use crate::encode::model::{encode_definition, Val};
use crate::encode::value;
use crate::events::spec::{History, SpecRuns};
use crate::events::{CallId, EventId, Events, OrderingPoint};
use crate::witness::eval::Explicit;
use crate::witness::Execution;

/// Happens-before for the synchronisation rules under a model that defines none (sc, tso,
/// ...), as the SC races define it: program order, an unlock before the next lock of its
/// mutex, and an atomic write before an atomic read of it, transitively.
const CAUSALITY: &str =
    "\"happens-before of the synchronisation rules\"\nlet hb = (po | lko | [W \\ NA]; rf; [R \\ NA])+\n";

#[derive(Clone, Debug, Serialize)]
pub struct SpecResult {
    pub mode: SpecMode,
    /// The method calls the threads make (each unrolled call once).
    pub calls: usize,
    /// The histories of those calls that keep program order.
    pub histories: usize,
    pub violation: Option<Box<SpecViolation>>,
    /// Some execution needs more loop iterations than were unrolled.
    pub bound_hit: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SpecMode {
    /// Linearizability under SC: histories respect real time.
    #[default]
    Linearizable,
    /// CDSSpec's loosely exhaustive mode: some history consistent with the ordering points
    /// matches.
    Loose,
    /// CDSSpec's strictly exhaustive mode: every history consistent with the ordering points
    /// matches.
    Strict,
}

/// An execution that breaks the specification.
#[derive(Clone, Debug, Serialize)]
pub struct SpecViolation {
    pub witness: Execution,
    /// The completed method calls, in the order they begin in the interleaving.
    pub calls: Vec<CallView>,
    /// `(a, b)`: call `a` must come before call `b` (indices into `calls`), for calls of
    /// different threads: `a` ended before `b` began (linearizability), or an ordering
    /// point of `a` is `opo` before one of `b` (the ordering-point modes).
    pub ordered: Vec<(usize, usize)>,
    /// The histories that respect program order and `ordered`, each with the first call
    /// whose value the specification contradicts (in strict mode, only those that fail).
    pub candidates: Vec<Mismatch>,
    /// Histories ruled out by `ordered` alone.
    pub out_of_order: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct CallView {
    pub call: CallId,
    pub thread: usize,
    pub function: String,
    pub args: Vec<i32>,
    pub value: Option<i32>,
    /// Positions in the interleaving of its first and last memory access.
    pub interval: Option<(usize, usize)>,
}

/// A history (indices into [`SpecViolation::calls`]) and where it fails.
#[derive(Clone, Debug, Serialize)]
pub struct Mismatch {
    pub order: Vec<usize>,
    pub failure: Failure,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Failure {
    /// At position `at` of the history the specification returns `expected`.
    Value { at: usize, expected: i32 },
    /// The history puts call `before` ahead of call `after` (indices into
    /// [`SpecViolation::calls`]), `rule` applies to them, and the beginning of `before` does
    /// not happen before the end of `after`.
    Unsynchronised {
        rule: String,
        before: usize,
        after: usize,
    },
}

/// A specification encoded in a session: the literal that, assumed, restricts the session
/// to executions that break it.
pub(crate) struct EncodedSpec {
    /// Implies that the execution breaks the specification (one way only: its negation
    /// says nothing).
    pub violation: Bool,
    memory: Vec<Vec<EventId>>,
    points: Vec<Vec<OrderingPoint>>,
    sync: Option<Synchronisation>,
}

impl Session<'_> {
    /// Is every execution correct with respect to the test's specification, in `mode`?
    pub fn spec(&mut self, mode: SpecMode) -> Result<SpecResult, AnalysisError> {
        let events = self.encoding.events;
        let (Some(runs), Some(encoded)) = (events.spec.as_ref(), self.encode_spec(mode)?) else {
            return Ok(SpecResult {
                mode,
                calls: 0,
                histories: 0,
                violation: None,
                bound_hit: false,
            });
        };
        let EncodedSpec {
            violation,
            memory,
            points,
            sync,
        } = encoded;
        let points: Vec<Vec<&OrderingPoint>> = points.iter().map(|p| p.iter().collect()).collect();
        let n = runs.calls.len();
        let found = self.find(&[self.within_bound, violation])?;
        let violation = match found {
            None => None,
            Some(mut witness) => {
                if let Some(priority) = self.order_priority() {
                    witness.reinterleave(events, &priority);
                }
                let synchronised = match &sync {
                    Some(sync) => sync.explicit(events, &self.encoding.mutexes, runs, &witness)?,
                    None => Vec::new(),
                };
                let rules = self.encoding.program.spec.as_ref().map(|s| &s.rules);
                // Per rule pair, the rule's text when the witness does not synchronise it.
                let unsynchronised: Vec<Option<String>> = runs
                    .sync
                    .iter()
                    .zip(&synchronised)
                    .map(|(pair, &ok)| {
                        let rule = rules.and_then(|r| r.get(pair.rule));
                        rule.filter(|_| !ok).map(|r| r.text.clone())
                    })
                    .collect();
                Some(Box::new(explain_violation(
                    events,
                    runs,
                    mode,
                    &memory,
                    &points,
                    &unsynchronised,
                    witness,
                )?))
            }
        };
        Ok(SpecResult {
            mode,
            calls: n,
            histories: runs.histories.len(),
            violation,
            bound_hit: self.bound_reachable()?,
        })
    }

    /// The specification's clauses for `mode` (`None` when the test has none): every
    /// history of the calls is enumerated, the executions are not. Under linearizability
    /// the session is restricted to executions with an SC interleaving from here on.
    pub(crate) fn encode_spec(
        &mut self,
        mode: SpecMode,
    ) -> Result<Option<EncodedSpec>, AnalysisError> {
        let events = self.encoding.events;
        let Some(runs) = events.spec.as_ref() else {
            return Ok(None);
        };
        let memory: Vec<Vec<EventId>> = runs
            .calls
            .iter()
            .map(|&c| call_accesses(events, c))
            .collect();
        let points = ordering_points(events, runs);
        let sync = self.synchronisation(runs)?;
        // precedes[i][j]: call i must come before call j (calls of different threads).
        // Built on demand: a pair no history inverts is never asked.
        let n = runs.calls.len();
        let mut precedes: Vec<Vec<Option<Bool>>> = vec![vec![None; n]; n];
        let violation = Bool::Lit(self.solver.new_lit());
        let mut failing = Vec::new();
        for history in &runs.histories {
            let mut broken = Vec::new();
            let fits = self.truth_of(history.matches);
            let unsynchronised: Vec<Bool> = match &sync {
                Some(sync) => {
                    let place = places(&history.order, n);
                    sync.unsynchronised
                        .iter()
                        .zip(&runs.sync)
                        .filter(|(_, p)| place[p.before] < place[p.after])
                        .map(|(&lit, _)| lit)
                        .collect()
                }
                None => Vec::new(),
            };
            for (later, &i) in history.order.iter().enumerate() {
                for &j in &history.order[..later] {
                    if events.calls[runs.calls[i]].thread == events.calls[runs.calls[j]].thread {
                        continue;
                    }
                    // The history puts `j` first although `i` must come before it.
                    let lit = match precedes[i][j] {
                        Some(lit) => lit,
                        None => {
                            let lit = match mode {
                                SpecMode::Linearizable => self.real_time(runs, &memory, i, j),
                                SpecMode::Loose | SpecMode::Strict => {
                                    self.point_order(&points[i], &points[j])
                                }
                            };
                            precedes[i][j] = Some(lit);
                            lit
                        }
                    };
                    broken.push(lit);
                }
            }
            match mode {
                // Every history breaks the order or does not match.
                SpecMode::Linearizable | SpecMode::Loose => {
                    let mut clause = vec![!violation, !fits];
                    clause.extend(broken);
                    clause.extend(unsynchronised);
                    self.solver.clause(&clause);
                }
                // Some history keeps the order and does not match.
                SpecMode::Strict => {
                    let mut parts: Vec<Bool> = broken.iter().map(|&b| !b).collect();
                    let mut fails = unsynchronised;
                    fails.push(!fits);
                    parts.push(self.solver.or(&fails));
                    failing.push(self.solver.and(&parts));
                }
            }
        }
        if mode == SpecMode::Strict {
            let mut clause = vec![!violation];
            clause.extend(failing);
            self.solver.clause(&clause);
        }
        if mode == SpecMode::Linearizable {
            // Executions without an interleaving are no SC executions: the order over
            // events exists even when no history inverts a pair.
            self.interleavings_only();
        }
        let points = points
            .into_iter()
            .map(|p| p.into_iter().cloned().collect())
            .collect();
        Ok(Some(EncodedSpec {
            violation,
            memory,
            points,
            sync,
        }))
    }

    /// The synchronisation rules' pairs of calls, each with the literal of "the rule applies
    /// and the first call's beginning does not happen before the second's end"; `None`
    /// when the specification has no rule.
    fn synchronisation(
        &mut self,
        runs: &SpecRuns,
    ) -> Result<Option<Synchronisation>, AnalysisError> {
        if runs.sync.is_empty() {
            return Ok(None);
        }
        let model = match self.model.defs.iter().any(|(name, _, _)| name == "hb") {
            true => self.model.clone(),
            false => Arc::new(causality()?),
        };
        let hb = match encode_definition(&mut self.solver, &self.encoding, &model, "hb") {
            Some(Val::Rel(hb)) => hb,
            _ => {
                return Err(AnalysisError::InvalidWitness {
                    what: format!(
                        "the specification: model {}'s `hb` is no relation",
                        model.name
                    ),
                })
            }
        };
        let events = self.encoding.events;
        let mut unsynchronised = Vec::new();
        for pair in &runs.sync {
            let (first, second) = (
                &events.calls[runs.calls[pair.before]],
                &events.calls[runs.calls[pair.after]],
            );
            let paths: Vec<Bool> = hb
                .iter()
                .filter(|&(a, b, _)| {
                    after_beginning(events, first, a) && before_end(events, second, b)
                })
                .map(|(_, _, lit)| lit)
                .collect();
            let synchronised = self.solver.or(&paths);
            let applies = self.truth_of(pair.when);
            unsynchronised.push(self.solver.and2(applies, !synchronised));
        }
        Ok(Some(Synchronisation {
            model,
            unsynchronised,
        }))
    }

    fn truth_of(&mut self, term: crate::events::TermId) -> Bool {
        let v = self.encoding.term(&mut self.solver, term);
        value::is_nonzero(&mut self.solver, &v)
    }

    /// Call `i` completed, call `j` completed, both accessed memory and every access of
    /// `i` comes before every access of `j` in the interleaving.
    fn real_time(&mut self, runs: &SpecRuns, memory: &[Vec<EventId>], i: usize, j: usize) -> Bool {
        let events = self.encoding.events;
        let mut parts = Vec::new();
        for k in [i, j] {
            let call = &events.calls[runs.calls[k]];
            parts.push(self.truth_of(call.returned));
            let executed: Vec<Bool> = memory[k]
                .iter()
                .map(|&e| self.encoding.feasible[e])
                .collect();
            parts.push(self.solver.or(&executed));
        }
        for &a in &memory[i] {
            for &b in &memory[j] {
                let both = self
                    .solver
                    .and2(self.encoding.feasible[a], self.encoding.feasible[b]);
                let before = self.order_before(a, b);
                let ordered = self.solver.or(&[!both, before]);
                parts.push(ordered);
            }
        }
        self.solver.and(&parts)
    }

    /// Some ordering point of `a` is `opo` before some ordering point of `b` (CDSSpec's five
    /// rules, over `rf` and `co` of one location), both active.
    fn point_order(&mut self, a: &[&OrderingPoint], b: &[&OrderingPoint]) -> Bool {
        let events = self.encoding.events;
        let mut any = Vec::new();
        for x in a {
            for y in b {
                let (ex, ey) = (&events.events[x.access], &events.events[y.access]);
                if ex.location.is_none() || ex.location != ey.location {
                    continue;
                }
                let (loc, rf, co) = (ex.location, &self.encoding.rf, &self.encoding.co);
                let writes: Vec<EventId> = events
                    .writes()
                    .filter(|w| w.location == loc)
                    .map(|w| w.id)
                    .collect();
                // The writes whose place in `co` an access takes: a write its own, a read
                // the write it reads from.
                let place = |e: EventId| -> Vec<(EventId, Bool)> {
                    if events.events[e].is_write() {
                        vec![(e, Bool::TRUE)]
                    } else {
                        writes.iter().map(|&w| (w, rf.get(w, e))).collect()
                    }
                };
                let mut cases = Vec::new();
                for (wx, px) in place(x.access) {
                    for (wy, py) in place(y.access) {
                        // Same write: only a write before a read of it (`rf`).
                        let ordered = if wx == wy {
                            Bool::from(ex.is_write() && !ey.is_write())
                        } else {
                            co.get(wx, wy)
                        };
                        cases.push(self.solver.and(&[px, py, ordered]));
                    }
                }
                let ordered = self.solver.or(&cases);
                let active_x = self.point_active(x);
                let active_y = self.point_active(y);
                any.push(self.solver.and(&[active_x, active_y, ordered]));
            }
        }
        self.solver.or(&any)
    }

    fn point_active(&mut self, point: &OrderingPoint) -> Bool {
        let when = self.truth_of(point.when);
        let access = self.encoding.feasible[point.access];
        let marker = self.encoding.feasible[point.marker];
        self.solver.and(&[when, access, marker])
    }
}

/// The happens-before the synchronisation rules are checked with, as literals and as the
/// model that defines it (for the explicit check of a witness).
struct Synchronisation {
    model: Arc<Model>,
    /// Per pair of `SpecRuns::sync`.
    unsynchronised: Vec<Bool>,
}

impl Synchronisation {
    /// Per pair of `runs.sync`, whether the witness synchronises its calls (or the rule
    /// does not apply): evaluated on the explicit execution, independently of the literals.
    fn explicit(
        &self,
        events: &Events,
        mutexes: &[bool],
        runs: &SpecRuns,
        witness: &Execution,
    ) -> Result<Vec<bool>, AnalysisError> {
        let explicit = Explicit::of_execution(events, mutexes, witness);
        let mut evaluator = explicit.evaluator(&self.model);
        let invalid = |what: String| AnalysisError::InvalidWitness { what };
        let id = self
            .model
            .defs
            .iter()
            .rposition(|(name, _, _)| name == "hb")
            .ok_or_else(|| invalid("the specification: no `hb`".to_string()))?;
        let hb = evaluator.eval(&TExpr::Def(id)).map_err(invalid)?;
        let pairs = explicit.pairs(&hb);
        Ok(runs
            .sync
            .iter()
            .map(|pair| {
                let (first, second) = (
                    &events.calls[runs.calls[pair.before]],
                    &events.calls[runs.calls[pair.after]],
                );
                witness.term_value(events, pair.when) == 0
                    || pairs.iter().any(|&(a, b)| {
                        after_beginning(events, first, a) && before_end(events, second, b)
                    })
            })
            .collect())
    }
}

/// [`CAUSALITY`], checked.
fn causality() -> Result<Model, AnalysisError> {
    let file = SourceFile::new("happens-before.cat", CAUSALITY);
    crate::cat::load(&file, "happens-before", &mut |path: &str| {
        Err(format!("no file `{path}`"))
    })
    .map_err(|e| AnalysisError::InvalidWitness {
        what: format!("the synchronisation rules' happens-before does not compile: {e:?}"),
    })
}

/// Event `e` comes at or after the beginning of `call`, in its thread.
fn after_beginning(events: &Events, call: &crate::events::Call, e: EventId) -> bool {
    events.events[e].thread == Some(call.thread) && e >= call.begin
}

/// Event `e` comes before the end of `call`, in its thread.
fn before_end(events: &Events, call: &crate::events::Call, e: EventId) -> bool {
    events.events[e].thread == Some(call.thread) && e < call.end
}

/// Per call, its place in `order` (a history's order of `n` calls).
fn places(order: &[usize], n: usize) -> Vec<usize> {
    let mut place = vec![usize::MAX; n];
    for (p, &i) in order.iter().enumerate() {
        place[i] = p;
    }
    place
}

/// Per method call of `runs`, its ordering points (those of the calls it makes included).
fn ordering_points<'e>(events: &'e Events, runs: &SpecRuns) -> Vec<Vec<&'e OrderingPoint>> {
    let top = |e: EventId| {
        let mut call = events.events[e].call?;
        while let Some(parent) = events.calls[call].parent {
            call = parent;
        }
        Some(call)
    };
    runs.calls
        .iter()
        .map(|&c| {
            events
                .ordering_points
                .iter()
                .filter(|p| top(p.access) == Some(c))
                .collect()
        })
        .collect()
}

/// The memory accesses of a call and of the calls it makes.
fn call_accesses(events: &Events, call: CallId) -> Vec<EventId> {
    let within = |mut c: Option<CallId>| {
        while let Some(k) = c {
            if k == call {
                return true;
            }
            c = events.calls[k].parent;
        }
        false
    };
    events
        .events
        .iter()
        .filter(|e| e.is_memory() && within(e.call))
        .map(|e| e.id)
        .collect()
}

/// The calls of the witness, the order they must keep and why each history fails; an
/// error when the witness is no violation after all (the encoding and this explicit check
/// disagree).
fn explain_violation(
    events: &Events,
    runs: &SpecRuns,
    mode: SpecMode,
    memory: &[Vec<EventId>],
    points: &[Vec<&OrderingPoint>],
    unsynchronised: &[Option<String>],
    witness: Execution,
) -> Result<SpecViolation, AnalysisError> {
    let eval = |t| witness.term_value(events, t);
    let position: std::collections::HashMap<EventId, usize> = witness
        .interleaving
        .iter()
        .enumerate()
        .map(|(p, &e)| (e, p))
        .collect();
    let completed: Vec<bool> = runs
        .calls
        .iter()
        .map(|&c| eval(events.calls[c].returned) != 0)
        .collect();
    let intervals: Vec<Option<(usize, usize)>> = memory
        .iter()
        .map(|accesses| {
            let places: Vec<usize> = accesses
                .iter()
                .filter(|&&e| witness.feasible[e])
                .filter_map(|e| position.get(e).copied())
                .collect();
            Some((*places.iter().min()?, *places.iter().max()?))
        })
        .collect();
    // Per active ordering point, its place in its location's coherence order: a write's
    // own, a read's the write it read from (after it), as CDSSpec's five rules order them.
    let read_from: std::collections::HashMap<EventId, EventId> =
        witness.rf.iter().map(|&(w, r)| (r, w)).collect();
    let co_place = |w: EventId| {
        witness
            .co
            .iter()
            .find_map(|order| order.iter().position(|&x| x == w))
    };
    let key = |p: &OrderingPoint| -> Option<(Option<usize>, usize, bool)> {
        let active = witness.feasible[p.access] && witness.feasible[p.marker] && eval(p.when) != 0;
        if !active {
            return None;
        }
        let e = &events.events[p.access];
        let write = if e.is_write() {
            p.access
        } else {
            *read_from.get(&p.access)?
        };
        Some((e.location, co_place(write)?, !e.is_write()))
    };
    let keys: Vec<Vec<(Option<usize>, usize, bool)>> = points
        .iter()
        .map(|ps| ps.iter().filter_map(|p| key(p)).collect())
        .collect();
    let precedes = |i: usize, j: usize| {
        if events.calls[runs.calls[i]].thread == events.calls[runs.calls[j]].thread {
            return false;
        }
        match mode {
            SpecMode::Linearizable => {
                matches!((intervals[i], intervals[j]), (Some(a), Some(b)) if a.1 < b.0)
            }
            SpecMode::Loose | SpecMode::Strict => keys[i].iter().any(|x| {
                keys[j]
                    .iter()
                    .any(|y| x.0 == y.0 && (x.1, x.2) < (y.1, y.2))
            }),
        }
    };
    // Shown calls: the completed ones, by where they begin.
    let mut shown: Vec<usize> = (0..runs.calls.len()).filter(|&i| completed[i]).collect();
    shown.sort_by_key(|&i| (intervals[i].map_or(usize::MAX, |x| x.0), i));
    let view_index = |i: usize| shown.iter().position(|&k| k == i);
    let calls = shown
        .iter()
        .map(|&i| {
            let call = &events.calls[runs.calls[i]];
            CallView {
                call: runs.calls[i],
                thread: call.thread,
                function: call.function.clone(),
                args: call
                    .args
                    .iter()
                    .map(|a| match a {
                        crate::events::CallArgValue::Value { value, .. } => eval(*value),
                        crate::events::CallArgValue::Pointer { offset, .. } => eval(*offset),
                    })
                    .collect(),
                value: call.value.map(eval),
                interval: intervals[i],
            }
        })
        .collect();
    let mut ordered = BTreeSet::new();
    for &i in &shown {
        for &j in &shown {
            if precedes(i, j) {
                if let (Some(a), Some(b)) = (view_index(i), view_index(j)) {
                    ordered.insert((a, b));
                }
            }
        }
    }
    let mut candidates = Vec::new();
    let mut out_of_order = 0;
    let mut seen = BTreeSet::new();
    for history in &runs.histories {
        let order = &history.order;
        let kept: Vec<usize> = order.iter().copied().filter(|&i| completed[i]).collect();
        let respects = kept
            .iter()
            .enumerate()
            .all(|(p, &j)| kept[p + 1..].iter().all(|&i| !precedes(i, j)));
        if !respects {
            out_of_order += 1;
            continue;
        }
        let failure = match first_mismatch(events, runs, history, &completed, &eval) {
            Some((at, expected)) => Failure::Value {
                at: order[..=at]
                    .iter()
                    .filter(|&&i| completed[i])
                    .count()
                    .saturating_sub(1),
                expected,
            },
            None => {
                let place = places(order, runs.calls.len());
                let broken = runs.sync.iter().zip(unsynchronised).find_map(|(p, rule)| {
                    rule.as_ref()
                        .filter(|_| place[p.before] < place[p.after])
                        .map(|rule| (p, rule))
                });
                match broken {
                    Some((pair, rule)) => Failure::Unsynchronised {
                        rule: rule.clone(),
                        before: view_index(pair.before).unwrap_or(usize::MAX),
                        after: view_index(pair.after).unwrap_or(usize::MAX),
                    },
                    None if mode == SpecMode::Strict => continue,
                    None => {
                        return Err(AnalysisError::InvalidWitness {
                            what: "the specification: a history of the witness fits".to_string(),
                        })
                    }
                }
            }
        };
        let shown_order: Vec<usize> = kept.iter().filter_map(|&i| view_index(i)).collect();
        // Histories that differ only in calls that did not complete look the same.
        if seen.insert(shown_order.clone()) {
            candidates.push(Mismatch {
                order: shown_order,
                failure,
            });
        }
    }
    if mode == SpecMode::Strict && candidates.is_empty() {
        return Err(AnalysisError::InvalidWitness {
            what: "the specification: every history of the witness fits".to_string(),
        });
    }
    Ok(SpecViolation {
        witness,
        calls,
        ordered: ordered.into_iter().collect(),
        candidates,
        out_of_order,
    })
}

/// The first completed call of the history whose value is not the specification's.
fn first_mismatch(
    events: &Events,
    runs: &SpecRuns,
    history: &History,
    completed: &[bool],
    eval: &impl Fn(crate::events::TermId) -> i32,
) -> Option<(usize, i32)> {
    for (p, (&i, expected)) in history.order.iter().zip(&history.expected).enumerate() {
        if !completed[i] {
            continue;
        }
        let (Some(expected), Some(actual)) = (expected, events.calls[runs.calls[i]].value) else {
            continue;
        };
        let expected = eval(*expected);
        if expected != eval(actual) {
            return Some((p, expected));
        }
    }
    None
}
