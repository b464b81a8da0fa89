//! From a satisfying assignment back to an execution a person can read.
//!
//! A witness is decoded from the solver's model through the encoding's literals only: which
//! events executed, what each read returned and from which write, the coherence order, the
//! final state, and an interleaving. The interleaving is a linear extension of
//! `po | rf | co | fr` over the executed events, chosen by always running the lowest-numbered
//! event that may run next, so that it reads like the paper's `1 2 6 7 8 3 4 5`.

pub mod eval;
pub mod relations;
pub mod validate;

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use serde::Serialize;

use crate::encode::cnf::{Bool, Lit};
use crate::encode::Encoding;
use crate::events::{EventId, Events};
use crate::program::Observable;

/// A concrete execution.
#[derive(Clone, Debug, Serialize)]
pub struct Execution {
    /// Per event: it executed.
    pub feasible: Vec<bool>,
    /// Per event: the value it read, wrote or computed.
    pub values: Vec<Option<i32>>,
    /// `(write, read)` pairs.
    pub rf: Vec<(EventId, EventId)>,
    /// Per location, its executed writes in coherence order (initial write first).
    pub co: Vec<Vec<EventId>>,
    /// The executed events in one interleaving; when there is none (`cyclic`), in event
    /// order (initial writes, then each thread in program order).
    pub interleaving: Vec<EventId>,
    /// `po | rf | co | fr` has a cycle: the execution has no SC interleaving (a weak model,
    /// or a skipped check).
    pub cyclic: bool,
    /// The final state over the observed registers and locations.
    pub final_state: Vec<(Observable, i32)>,
    pub failed_assertions: Vec<EventId>,
    pub bound_hit: bool,
    /// The wait points (indices into `Events::waits`) at which a thread is blocked for good.
    pub blocked: Vec<usize>,
}

impl Execution {
    /// Decode the model `value_of` against `enc`.
    pub fn decode(
        enc: &Encoding,
        value_of: &dyn Fn(Lit) -> bool,
        final_values: &[(Observable, crate::encode::value::Value)],
    ) -> Execution {
        let events = enc.events;
        let truth = |b: Bool| match b {
            Bool::Const(c) => c,
            Bool::Lit(l) => value_of(l),
        };
        let feasible: Vec<bool> = enc.feasible.iter().map(|&b| truth(b)).collect();
        let mut rf: Vec<(EventId, EventId)> = enc
            .rf
            .iter()
            .filter(|&(_, _, lit)| truth(lit))
            .map(|(w, r, _)| (w, r))
            .collect();
        let mut co = Vec::new();
        for (loc, &init) in events.init.iter().enumerate() {
            // A cell nothing accesses: no write at all, its initial one left out.
            let Some(init) = init else {
                co.push(Vec::new());
                continue;
            };
            if enc.mutexes[loc] {
                let (sources, writes) = mutex_history(enc, &feasible, &truth, loc);
                rf.extend(sources);
                co.push(writes);
                continue;
            }
            if enc.sliced[loc] {
                // Completed along the interleaving below (`complete_sliced`).
                co.push(vec![init]);
                continue;
            }
            let mut writes: Vec<EventId> = events
                .writes()
                .filter(|w| w.location == Some(loc) && feasible[w.id] && w.id != init)
                .map(|w| w.id)
                .collect();
            // Sort by the number of writes before each: a total order gives 0, 1, 2, ...
            writes.sort_by_key(|&w| {
                events
                    .writes()
                    .filter(|w2| truth(enc.co.get(w2.id, w)))
                    .count()
            });
            writes.insert(0, init);
            co.push(writes);
        }
        rf.sort_unstable();
        // A mutex wait's value is a choice, not computed from reads: the model's.
        let mut chosen: Vec<(EventId, i32)> = events
            .waits
            .iter()
            .filter(|w| matches!(w.on, crate::events::WaitOn::Mutex { .. }))
            .filter_map(|w| {
                let v = enc.values[w.event].as_ref()?.decode(value_of)?;
                Some((w.event, v))
            })
            .collect();
        let mut values = evaluate_values(events, &feasible, &rf, &chosen);
        // A value out of thin air justifies itself around a cycle of reads and writes, so
        // it cannot be computed along `rf`: it is the solver's choice, where the encoding
        // has it (the validator checks that the cycle computes it back).
        if enc.thin_air {
            let before = chosen.len();
            chosen.extend(events.reads().filter_map(|r| {
                if !feasible[r.id] || values[r.id].is_some() {
                    return None;
                }
                Some((r.id, enc.encoded_value(r.id)?.decode(value_of)?))
            }));
            if chosen.len() > before {
                values = evaluate_values(events, &feasible, &rf, &chosen);
            }
        }
        let blocked = enc
            .blocked
            .iter()
            .enumerate()
            .filter(|&(_, &b)| truth(b))
            .map(|(i, _)| i)
            .collect();
        let final_state = final_values
            .iter()
            .map(|(o, v)| (*o, v.decode(value_of).unwrap_or(0)))
            .collect();
        let failed_assertions = enc
            .assertion_failures
            .iter()
            .filter(|&&(_, lit)| truth(lit))
            .map(|&(e, _)| e)
            .collect();
        let mut execution = Execution {
            feasible,
            values,
            rf,
            co,
            interleaving: Vec::new(),
            cyclic: false,
            final_state,
            failed_assertions,
            bound_hit: truth(enc.bound_hit),
            blocked,
        };
        execution.interleave(enc);
        if enc.sliced.contains(&true) {
            // Under SC, the interleaving; under RC11 (whose executions need not have one) an
            // order of `po | rf`, which its no-thin-air check keeps acyclic.
            let order = if execution.cyclic {
                execution.po_rf_order(events)
            } else {
                Some(execution.interleaving.clone())
            };
            if let Some(order) = order {
                execution.complete_sliced(events, &enc.sliced, &order);
                execution.values =
                    evaluate_values(events, &execution.feasible, &execution.rf, &chosen);
                execution.interleave(enc);
            }
        }
        execution
    }

    /// Reads and coherence of the locations the encoding left out (`Encoding::sliced`),
    /// chosen along `order` (the interleaving of everything else, or under RC11 an order of
    /// `po | rf`): each write comes after the writes before it, each read reads the latest
    /// write before it. Every new `rf`, `co` and `fr` edge then follows that order, so the
    /// execution keeps it; and nothing the encoding constrained depends on these values
    /// (`analysis::slice`).
    fn complete_sliced(&mut self, events: &Events, sliced: &[bool], order: &[EventId]) {
        let mut latest: Vec<Option<EventId>> = events.init.clone();
        for &e in order {
            let event = &events.events[e];
            let Some(loc) = event.location.filter(|&l| sliced[l]) else {
                continue;
            };
            if event.is_read() {
                // An accessed cell has its initial write.
                if let Some(w) = latest[loc] {
                    self.rf.push((w, e));
                }
            } else if event.is_write() && Some(e) != events.init[loc] {
                self.co[loc].push(e);
                latest[loc] = Some(e);
            }
        }
        self.rf.sort_unstable();
    }

    /// The executed events in an order of `po | rf` (`None` when it is cyclic).
    fn po_rf_order(&self, events: &Events) -> Option<Vec<EventId>> {
        let mut graph = self.clone();
        graph.co = vec![Vec::new(); self.co.len()];
        let priority: Vec<u64> = (0..events.len() as u64).collect();
        graph.reinterleave(events, &priority);
        (!graph.cyclic).then_some(graph.interleaving)
    }

    /// The value of a term in this execution; a read that did not execute counts as 0
    /// (terms that depend on one are those of paths the execution did not take).
    pub fn term_value(&self, events: &Events, term: crate::events::TermId) -> i32 {
        events.terms.eval(term, &|r| {
            self.values.get(r).copied().flatten().unwrap_or(0)
        })
    }

    /// The edges of `po | rf | co | fr` between executed events, initial writes included.
    pub fn edges(&self, events: &Events) -> Vec<(EventId, EventId)> {
        let mut edges = Vec::new();
        for thread in &events.threads {
            let run: Vec<EventId> = thread
                .iter()
                .copied()
                .filter(|&e| self.feasible[e])
                .collect();
            for pair in run.windows(2) {
                edges.push((pair[0], pair[1]));
            }
        }
        edges.extend(self.rf.iter().copied());
        for writes in &self.co {
            for pair in writes.windows(2) {
                edges.push((pair[0], pair[1]));
            }
        }
        for &(w, r) in &self.rf {
            let Some(loc) = events.events[r].location else {
                continue;
            };
            let chain = &self.co[loc];
            if let Some(pos) = chain.iter().position(|&x| x == w) {
                if let Some(&next) = chain.get(pos + 1) {
                    edges.push((r, next));
                }
            }
        }
        // Initial writes precede every event of every thread.
        for &init in events.init.iter().flatten() {
            for thread in &events.threads {
                if let Some(&first) = thread.iter().find(|&&e| self.feasible[e]) {
                    edges.push((init, first));
                }
            }
        }
        edges.retain(|&(a, b)| a != b);
        edges.sort_unstable();
        edges.dedup();
        edges
    }

    /// The interleaving (and `cyclic`) recomputed from the events that run, as `decode`
    /// computes it.
    pub(crate) fn interleave(&mut self, enc: &Encoding) {
        let priority: Vec<u64> = (0..enc.events.len() as u64).collect();
        self.reinterleave(enc.events, &priority);
    }

    /// Recompute the interleaving, running among the ready events the one with the smallest
    /// `(priority, id)`. With the solver's own ranks as priorities it shows the order the
    /// solver found, in which, say, an intruder lies inside an atomic block.
    pub fn reinterleave(&mut self, events: &Events, priority: &[u64]) {
        let n = events.len();
        let edges = self.edges(events);
        let mut successors = vec![Vec::new(); n];
        let mut indegree = vec![0usize; n];
        for &(a, b) in &edges {
            successors[a].push(b);
            indegree[b] += 1;
        }
        let key = |e: EventId| Reverse((priority.get(e).copied().unwrap_or(0), e));
        let mut ready: BinaryHeap<Reverse<(u64, EventId)>> = (0..n)
            .filter(|&e| self.feasible[e] && indegree[e] == 0)
            .map(key)
            .collect();
        let mut order = Vec::new();
        while let Some(Reverse((_, e))) = ready.pop() {
            order.push(e);
            for &s in &successors[e] {
                indegree[s] -= 1;
                if indegree[s] == 0 {
                    ready.push(key(s));
                }
            }
        }
        let placed: BTreeSet<EventId> = order.iter().copied().collect();
        self.cyclic = (0..n).any(|e| self.feasible[e] && !placed.contains(&e));
        if self.cyclic {
            // A partial order followed by the rest would read as an interleaving; it is not.
            order = (0..n).filter(|&e| self.feasible[e]).collect();
        }
        self.interleaving = order;
    }

    /// Transitive closure of the execution's edges, as the paper's matrix: `Some(true)` when
    /// `a` must precede `b`, `Some(false)` when it cannot, `None` when either order is
    /// possible with this execution.
    pub fn precedence(&self, events: &Events) -> Vec<Vec<Option<bool>>> {
        let n = events.len();
        let mut reach = vec![vec![false; n]; n];
        for (a, b) in self.edges(events) {
            reach[a][b] = true;
        }
        for k in 0..n {
            let via = reach[k].clone();
            for row in reach.iter_mut() {
                if row[k] {
                    for (cell, &through) in row.iter_mut().zip(&via) {
                        *cell |= through;
                    }
                }
            }
        }
        (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        if reach[i][j] {
                            Some(true)
                        } else if i == j || reach[j][i] {
                            Some(false)
                        } else {
                            None
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

/// Every executed event's value, computed from the program's terms along `rf`: a read
/// returns the value of the write it reads from. Values outside the encoding's cone of
/// influence were never encoded; evaluation gives them all the same way. `None` where `rf`
/// and the data flow form a cycle (only possible when a model check was skipped).
/// A mutex's history as memory would show it: its executed critical sections in lock order,
/// each acquisition reading the release before it (or the initial write), and the writes
/// in coherence order (initial write, then each section's acquisition and release).
fn mutex_history(
    enc: &Encoding,
    feasible: &[bool],
    truth: &dyn Fn(Bool) -> bool,
    loc: usize,
) -> (Vec<(EventId, EventId)>, Vec<EventId>) {
    let events = enc.events;
    let sections: Vec<(EventId, Option<EventId>, EventId)> = events
        .events
        .iter()
        .filter(|e| e.kind == crate::events::EventKind::Lock && e.location == Some(loc))
        .filter(|e| feasible[e.id])
        .filter_map(|e| e.lock_match.map(|u| (e.id, e.rmw, u)))
        .collect();
    let precedes = |(ka, _, ua): (EventId, Option<EventId>, EventId),
                    (kb, _, _): (EventId, Option<EventId>, EventId)| {
        if events.events[ka].thread == events.events[kb].thread {
            events.po(ka, kb)
        } else {
            truth(enc.lko.get(ua, kb))
        }
    };
    let mut ordered = sections.clone();
    ordered.sort_by_key(|&s| sections.iter().filter(|&&t| precedes(t, s)).count());
    let Some(init) = events.init[loc] else {
        return (Vec::new(), Vec::new());
    };
    let mut sources = Vec::new();
    let mut writes = vec![init];
    let mut last_release = init;
    for (k, half, u) in ordered {
        sources.push((last_release, k));
        writes.extend(half);
        // A section whose release never runs (its thread was cut short or stopped) holds
        // the mutex for good: it is the last one.
        if feasible[u] {
            writes.push(u);
            last_release = u;
        }
    }
    (sources, writes)
}

fn evaluate_values(
    events: &Events,
    feasible: &[bool],
    rf: &[(EventId, EventId)],
    chosen: &[(EventId, i32)],
) -> Vec<Option<i32>> {
    let source: std::collections::HashMap<EventId, EventId> =
        rf.iter().map(|&(w, r)| (r, w)).collect();
    let mut memo: Vec<Option<Option<i32>>> = vec![None; events.len()];
    for &(e, v) in chosen {
        memo[e] = Some(Some(v));
    }
    let mut visiting = vec![false; events.len()];
    (0..events.len())
        .map(|e| {
            if feasible[e] {
                event_value(events, &source, e, &mut memo, &mut visiting)
            } else {
                None
            }
        })
        .collect()
}

fn event_value(
    events: &Events,
    source: &std::collections::HashMap<EventId, EventId>,
    e: EventId,
    memo: &mut Vec<Option<Option<i32>>>,
    visiting: &mut Vec<bool>,
) -> Option<i32> {
    if let Some(known) = memo[e] {
        return known;
    }
    if visiting[e] {
        return None;
    }
    visiting[e] = true;
    let event = &events.events[e];
    let result = if event.is_read() {
        source
            .get(&e)
            .and_then(|&w| event_value(events, source, w, memo, visiting))
    } else {
        event
            .value
            .and_then(|t| term_value(events, source, t, memo, visiting))
    };
    visiting[e] = false;
    memo[e] = Some(result);
    result
}

fn term_value(
    events: &Events,
    source: &std::collections::HashMap<EventId, EventId>,
    t: crate::events::TermId,
    memo: &mut Vec<Option<Option<i32>>>,
    visiting: &mut Vec<bool>,
) -> Option<i32> {
    use crate::events::Term;
    use crate::program::arith::{eval_binary, eval_unary};
    Some(match *events.terms.get(t) {
        Term::Const(v) => v,
        Term::Read(r) => event_value(events, source, r, memo, visiting)?,
        Term::Unary(op, a) => eval_unary(op, term_value(events, source, a, memo, visiting)?),
        Term::Binary(op, a, b) => eval_binary(
            op,
            term_value(events, source, a, memo, visiting)?,
            term_value(events, source, b, memo, visiting)?,
        ),
        Term::Ite(c, a, b) => {
            if term_value(events, source, c, memo, visiting)? != 0 {
                term_value(events, source, a, memo, visiting)?
            } else {
                term_value(events, source, b, memo, visiting)?
            }
        }
    })
}
