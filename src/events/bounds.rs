//! The static pass: which writes each read may read from, and which values each term may
//! take (Kodkod-style upper bounds that keep the SAT matrices sparse).
//!
//! Both are over-approximations valid for every model nemos ships, all of which are
//! coherent (SC per location):
//! - a read never reads from a write later in its own thread's program order;
//! - a lock acquisition reads 0, so never from a write of a known non-zero value;
//! - a read does not read from a write that is followed, in its thread's program order and
//!   before the read, by another write to the same location that surely executes when the
//!   read does (its guard is implied by the read's guard); the initial write counts as
//!   preceding every write.
//!
//! Values: a fixpoint over finite sets, where a read may return any value of its candidate
//! writes. A set that grows past [`VALUE_SET_CAP`] becomes "unbounded" and that term is
//! encoded with 32-bit vectors instead of one-hot literals. The reads of a counter
//! ([`super::counting`]: every write adds a positive constant to a value its thread read
//! there, or writes a constant) are clamped to the counter's range when it is small
//! enough: their candidates form cycles along which the fixpoint would grow past the cap.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use super::counting::{self, Counter};
use super::{EventId, EventKind, Events, Term, TermId};
use crate::program::arith::{eval_binary, eval_unary};
use crate::program::LocId;

/// Largest value set kept as a finite set.
pub const VALUE_SET_CAP: usize = 64;
/// Largest product of operand set sizes evaluated pointwise.
const PRODUCT_CAP: usize = 4096;

#[derive(Clone, Debug, Default, Serialize)]
pub struct Bounds {
    /// Per event: for reads, the writes it may read from (in event order); empty otherwise.
    pub rf_candidates: Vec<Vec<EventId>>,
    /// Per term: its possible values in increasing order, or `None` when unbounded.
    pub values: Vec<Option<Vec<i32>>>,
    /// The counters of the test (see [`super::counting`]), whose reads' values are clamped
    /// to the counter's range.
    pub counters: Vec<Counter>,
}

impl Bounds {
    pub fn may_read_from(&self, read: EventId, write: EventId) -> bool {
        self.rf_candidates[read].contains(&write)
    }
}

pub fn compute(events: &Events) -> Bounds {
    let rf_candidates = rf_candidates(events);
    let counters = counting::counters(events);
    let values = values(events, &rf_candidates, &counters);
    Bounds {
        rf_candidates,
        values,
        counters,
    }
}

fn rf_candidates(events: &Events) -> Vec<Vec<EventId>> {
    let mut result = vec![Vec::new(); events.len()];
    for read in events.reads() {
        let loc = read.location;
        let mut candidates = Vec::new();
        for write in events.writes().filter(|w| w.location == loc) {
            let same_thread = write.thread.is_some() && write.thread == read.thread;
            if same_thread
                && (write.position > read.position
                    || events.guards_exclusive(&write.guard, &read.guard))
            {
                continue;
            }
            let shadowed = (write.kind == EventKind::Init || same_thread)
                && events.threads[read.thread.unwrap_or(0)]
                    .iter()
                    .map(|&id| &events.events[id])
                    .any(|between| {
                        read.thread.is_some()
                            && between.is_write()
                            && between.location == loc
                            && between.position < read.position
                            && (write.kind == EventKind::Init || between.position > write.position)
                            && events.guard_implies(&read.guard, &between.guard)
                    });
            // A lock acquisition reads 0: a write of a known non-zero value (another
            // acquisition's write half) cannot be its source.
            let never_zero = read.kind == EventKind::Lock
                && write
                    .value
                    .and_then(|t| events.terms.constant_value(t))
                    .is_some_and(|v| v != 0);
            if !shadowed && !never_zero {
                candidates.push(write.id);
            }
        }
        result[read.id] = candidates;
    }
    result
}

type ValueSet = Option<BTreeSet<i32>>;

fn values(
    events: &Events,
    rf_candidates: &[Vec<EventId>],
    counters: &[Counter],
) -> Vec<Option<Vec<i32>>> {
    // A counter's reads return values of its range, whatever the fixpoint below would
    // make of its cycles of candidates (which grow the sets past the cap): see `counting`.
    let mut ranges: HashMap<LocId, (i32, i32)> = HashMap::new();
    for c in counters {
        let (low, high) = c.range;
        if (high as i64 - low as i64) < VALUE_SET_CAP as i64 {
            ranges.insert(c.location, c.range);
        }
    }
    let clamp = |loc: Option<LocId>, set: ValueSet| -> ValueSet {
        let Some(&(low, high)) = loc.and_then(|l| ranges.get(&l)) else {
            return set;
        };
        Some(match set {
            Some(s) => s.into_iter().filter(|v| (low..=high).contains(v)).collect(),
            None => (low..=high).collect(),
        })
    };
    let mut read_sets: Vec<ValueSet> = vec![Some(BTreeSet::new()); events.len()];
    // A mutex wait's value is the thread's choice to block there: 0 or 1.
    for wait in &events.waits {
        if matches!(wait.on, super::WaitOn::Mutex { .. }) {
            read_sets[wait.event] = Some(BTreeSet::from([0, 1]));
        }
    }
    loop {
        let mut memo = HashMap::new();
        let mut changed = false;
        for read in events.reads() {
            let mut set = Some(BTreeSet::new());
            for &w in &rf_candidates[read.id] {
                let Some(term) = events.events[w].value else {
                    continue;
                };
                set = union(set, term_set(events, &read_sets, term, &mut memo));
            }
            let set = clamp(read.location, set);
            if set != read_sets[read.id] {
                read_sets[read.id] = set;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut memo = HashMap::new();
    (0..events.terms.len())
        .map(|t| term_set(events, &read_sets, t, &mut memo).map(|s| s.into_iter().collect()))
        .collect()
}

fn union(a: ValueSet, b: ValueSet) -> ValueSet {
    let (mut a, b) = (a?, b?);
    a.extend(b);
    (a.len() <= VALUE_SET_CAP).then_some(a)
}

fn term_set(
    events: &Events,
    read_sets: &[ValueSet],
    term: TermId,
    memo: &mut HashMap<TermId, ValueSet>,
) -> ValueSet {
    if let Some(known) = memo.get(&term) {
        return known.clone();
    }
    let result = match *events.terms.get(term) {
        Term::Const(v) => Some(BTreeSet::from([v])),
        Term::Read(e) => read_sets[e].clone(),
        Term::Unary(op, a) => {
            let a = term_set(events, read_sets, a, memo)?;
            Some(a.into_iter().map(|v| eval_unary(op, v)).collect())
        }
        Term::Binary(op, a, b) => {
            let a = term_set(events, read_sets, a, memo);
            let b = term_set(events, read_sets, b, memo);
            match (a, b) {
                (Some(a), Some(b)) if a.len() * b.len() <= PRODUCT_CAP => {
                    let set: BTreeSet<i32> = a
                        .iter()
                        .flat_map(|&x| b.iter().map(move |&y| eval_binary(op, x, y)))
                        .collect();
                    (set.len() <= VALUE_SET_CAP).then_some(set)
                }
                _ => None,
            }
        }
        Term::Ite(c, a, b) => {
            let c = term_set(events, read_sets, c, memo);
            let a = term_set(events, read_sets, a, memo);
            let b = term_set(events, read_sets, b, memo);
            match c {
                Some(c) if c.iter().all(|&v| v == 0) => b,
                Some(c) if !c.contains(&0) => a,
                _ => union(a, b),
            }
        }
    };
    memo.insert(term, result.clone());
    result
}
