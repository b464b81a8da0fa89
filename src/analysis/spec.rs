//! Linearizability against the `spec { }` block, under SC (seed 003's and CDSSpec's question:
//! is the object correct against its sequential specification?).
//!
//! An execution is linearizable when some history of its method calls (an order of the
//! calls that keeps each thread's program order, see [`crate::events::spec`]) respects its
//! real-time order and matches: run in that order, the sequential versions return what every
//! completed call returned. Real time is the SC interleaving's: call `a` precedes call `b`
//! when every memory access of `a` comes before every memory access of `b`
//! ([`Session::order_before`]); calls that overlap may be ordered either way. A call that
//! executes no memory access has no place of its own in the interleaving and is ordered
//! only with its own thread's calls.
//!
//! One SAT instance asks for a violation over all executions at once: an execution (with
//! its interleaving) in which every history breaks real time or does not match. The
//! histories are enumerated (their number is bounded by `events::spec::MAX_HISTORIES`); the
//! executions are not. The witness is checked again on explicit values: every history is
//! evaluated on the decoded execution, and one that fits would be an internal error.

use std::collections::BTreeSet;

use serde::Serialize;

use super::{AnalysisError, Session};
use crate::encode::cnf::{Bool, Gates};
use crate::encode::value;
use crate::events::spec::{History, SpecRuns};
use crate::events::{CallId, EventId, Events};
use crate::witness::Execution;

#[derive(Clone, Debug, Serialize)]
pub struct SpecResult {
    /// The method calls the threads make (each unrolled call once).
    pub calls: usize,
    /// The histories of those calls that keep program order.
    pub histories: usize,
    pub violation: Option<Box<SpecViolation>>,
    /// Some execution needs more loop iterations than were unrolled.
    pub bound_hit: bool,
}

/// A non-linearizable execution.
#[derive(Clone, Debug, Serialize)]
pub struct SpecViolation {
    pub witness: Execution,
    /// The completed method calls, in the order they begin in the interleaving.
    pub calls: Vec<CallView>,
    /// `(a, b)`: call `a` ended before call `b` began (indices into `calls`), for calls of
    /// different threads.
    pub real_time: Vec<(usize, usize)>,
    /// The histories that respect program order and real time, each with the first call
    /// whose value the specification contradicts.
    pub candidates: Vec<Mismatch>,
    /// Histories ruled out by real time alone.
    pub out_of_real_time: usize,
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

/// A history (indices into [`SpecViolation::calls`]) and where it fails: at position
/// `at` the specification returns `expected`.
#[derive(Clone, Debug, Serialize)]
pub struct Mismatch {
    pub order: Vec<usize>,
    pub at: usize,
    pub expected: i32,
}

impl Session<'_> {
    /// Is every execution linearizable with respect to the test's specification?
    pub fn linearizability(&mut self) -> Result<SpecResult, AnalysisError> {
        let events = self.encoding.events;
        let Some(runs) = events.spec.as_ref() else {
            return Ok(SpecResult {
                calls: 0,
                histories: 0,
                violation: None,
                bound_hit: false,
            });
        };
        let memory: Vec<Vec<EventId>> = runs
            .calls
            .iter()
            .map(|&c| call_accesses(events, c))
            .collect();
        let index_of = |c: CallId| runs.calls.iter().position(|&k| k == c);
        // precedes[i][j]: call i ends before call j begins, both completed, of different
        // threads. Built on demand: a pair no history inverts is never asked.
        let n = runs.calls.len();
        let mut precedes: Vec<Vec<Option<Bool>>> = vec![vec![None; n]; n];
        let violation = self.solver.new_lit();
        for history in &runs.histories {
            let mut broken = Vec::new();
            let fits = self.truth_of(history.matches);
            broken.push(!fits);
            for (later_pos, &later) in history.order.iter().enumerate() {
                for &earlier in &history.order[..later_pos] {
                    let (i, j) = (index_of(later), index_of(earlier));
                    let (Some(i), Some(j)) = (i, j) else { continue };
                    if events.calls[runs.calls[i]].thread == events.calls[runs.calls[j]].thread {
                        continue;
                    }
                    // The history puts `earlier` first although `later` ended before it.
                    let lit = match precedes[i][j] {
                        Some(lit) => lit,
                        None => {
                            let lit = self.real_time(runs, &memory, i, j);
                            precedes[i][j] = Some(lit);
                            lit
                        }
                    };
                    broken.push(lit);
                }
            }
            let mut clause = vec![!Bool::from(violation)];
            clause.extend(broken);
            self.solver.clause(&clause);
        }
        let found = self.find(&[self.within_bound, Bool::from(violation)])?;
        let violation = match found {
            None => None,
            Some(mut witness) => {
                if let Some(priority) = self.order_priority() {
                    witness.reinterleave(events, &priority);
                }
                Some(Box::new(explain_violation(events, runs, &memory, witness)?))
            }
        };
        Ok(SpecResult {
            calls: n,
            histories: runs.histories.len(),
            violation,
            bound_hit: self.bound_reachable()?,
        })
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

/// The calls of the witness, its real-time order and why each history fails; an error
/// when some history fits after all (the encoding and the explicit check disagree).
fn explain_violation(
    events: &Events,
    runs: &SpecRuns,
    memory: &[Vec<EventId>],
    witness: Execution,
) -> Result<SpecViolation, AnalysisError> {
    let read = |e: EventId| witness.values.get(e).copied().flatten().unwrap_or(0);
    let eval = |t| events.terms.eval(t, &read);
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
    let precedes = |i: usize, j: usize| {
        events.calls[runs.calls[i]].thread != events.calls[runs.calls[j]].thread
            && matches!((intervals[i], intervals[j]), (Some(a), Some(b)) if a.1 < b.0)
    };
    let mut real_time = BTreeSet::new();
    for &i in &shown {
        for &j in &shown {
            if precedes(i, j) {
                if let (Some(a), Some(b)) = (view_index(i), view_index(j)) {
                    real_time.insert((a, b));
                }
            }
        }
    }
    let mut candidates = Vec::new();
    let mut out_of_real_time = 0;
    let mut seen = BTreeSet::new();
    for history in &runs.histories {
        let order: Vec<usize> = history
            .order
            .iter()
            .filter_map(|&c| runs.calls.iter().position(|&k| k == c))
            .collect();
        let kept: Vec<usize> = order.iter().copied().filter(|&i| completed[i]).collect();
        let respects = kept
            .iter()
            .enumerate()
            .all(|(p, &j)| kept[p + 1..].iter().all(|&i| !precedes(i, j)));
        if !respects {
            out_of_real_time += 1;
            continue;
        }
        let Some((at, expected)) = first_mismatch(events, history, &order, &completed, &eval)
        else {
            return Err(AnalysisError::InvalidWitness {
                what: "linearizability: a history of the witness fits the specification"
                    .to_string(),
            });
        };
        let shown_order: Vec<usize> = kept.iter().filter_map(|&i| view_index(i)).collect();
        let shown_at = order[..=at]
            .iter()
            .filter(|&&i| completed[i])
            .count()
            .saturating_sub(1);
        // Histories that differ only in calls that did not complete look the same.
        if seen.insert(shown_order.clone()) {
            candidates.push(Mismatch {
                order: shown_order,
                at: shown_at,
                expected,
            });
        }
    }
    Ok(SpecViolation {
        witness,
        calls,
        real_time: real_time.into_iter().collect(),
        candidates,
        out_of_real_time,
    })
}

/// The first completed call of the history whose value is not the specification's.
fn first_mismatch(
    events: &Events,
    history: &History,
    order: &[usize],
    completed: &[bool],
    eval: &impl Fn(crate::events::TermId) -> i32,
) -> Option<(usize, i32)> {
    for (p, (&call, expected)) in history.order.iter().zip(&history.expected).enumerate() {
        if !completed[order[p]] {
            continue;
        }
        let (Some(expected), Some(actual)) = (expected, events.calls[call].value) else {
            continue;
        };
        let expected = eval(*expected);
        if expected != eval(actual) {
            return Some((p, expected));
        }
    }
    None
}
