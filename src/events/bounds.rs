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
//! writes, in two ways. The least fixpoint ([`Bounds::values`]) holds the values of
//! executions in which `po | rf` is acyclic: follow a read's value back along `rf` and the
//! reads its write's value is computed from; the chain ends, at constants. SC, TSO, C11 and
//! RC11 are such models. Others (the Linux-kernel model, a model with its `no-thin-air`
//! check skipped) allow a value to justify itself around a cycle (LB with data
//! dependencies: `r = x; y = r` against `s = y; x = s` may end with `r = 42`); the greatest
//! fixpoint (`Bounds::thin_air_values`) holds those, since in every execution the family
//! of values each read returns is a post-fixpoint of the step (each read's value is a value
//! of the term of the write it reads from) and the greatest fixpoint contains every
//! post-fixpoint. The encoding picks one by the model (`Model::forbids_thin_air`). A set
//! that grows past [`VALUE_SET_CAP`] becomes "unbounded" and that term is encoded with
//! 32-bit vectors instead of one-hot literals. The reads of a counter
//! ([`super::counting`]: every write adds a positive constant to a value its thread read
//! there, or writes a constant) are clamped to the counter's range when it is small
//! enough: their candidates form cycles along which the fixpoint would grow past the cap.
//! So are the reads of a location only decremented (two `atomic_dec_and_test` on one
//! counter: each decrement may read the other's, and the fixpoint grew one value a round
//! until it passed the cap, the values then encoded as 32-bit vectors).

use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;
use std::sync::OnceLock;

use serde::Serialize;

use super::counting::{self, Counter};
use super::{EventId, EventKind, Events, Term, TermId};
use crate::program::arith::{eval_binary, eval_unary};
use crate::program::{BinaryOp, LocId};

/// Largest value set kept as a finite set.
pub const VALUE_SET_CAP: usize = 64;
/// Largest product of operand set sizes evaluated pointwise.
const PRODUCT_CAP: usize = 4096;

#[derive(Clone, Debug, Default, Serialize)]
pub struct Bounds {
    /// Per event: for reads, the writes it may read from (in event order); empty otherwise.
    pub rf_candidates: Vec<Vec<EventId>>,
    /// Per term: its possible values in increasing order, or `None` when unbounded, in the
    /// executions of a model that makes `po | rf` acyclic (no value out of thin air).
    pub values: Vec<Option<Vec<i32>>>,
    /// The same, in the executions of any coherent model: values may justify themselves
    /// through a cycle of reads and writes (out of thin air), so the sets are a greatest
    /// fixpoint and contain [`Bounds::values`]. Computed on first use
    /// ([`Events::value_set`]): only sessions whose model allows thin air ask.
    #[serde(skip)]
    thin_air_values: OnceLock<Vec<Option<Vec<i32>>>>,
    /// The counters of the test (see [`super::counting`]), whose reads' values are clamped
    /// to the counter's range.
    pub counters: Vec<Counter>,
    /// The locations only decremented ([`counting::decreasing_ranges`]), with their
    /// ranges, to which their reads' values are clamped as a counter's.
    pub decreasing: Vec<(LocId, (i32, i32))>,
}

impl Bounds {
    pub fn may_read_from(&self, read: EventId, write: EventId) -> bool {
        self.rf_candidates[read].contains(&write)
    }
}

impl Events {
    /// The possible values of `term`: `Bounds::thin_air_values` when `thin_air`, else
    /// [`Bounds::values`].
    pub fn value_set(&self, term: TermId, thin_air: bool) -> Option<&[i32]> {
        let bounds = &self.bounds;
        let sets = if thin_air {
            bounds.thin_air_values.get_or_init(|| {
                let ranges = ranges(&bounds.counters, &bounds.decreasing);
                let candidates = &bounds.rf_candidates;
                values(self, candidates, &ranges, Justification::SelfJustified)
            })
        } else {
            &bounds.values
        };
        sets[term].as_deref()
    }
}

pub fn compute(events: &Events) -> Bounds {
    let rf_candidates = rf_candidates(events);
    let counters = counting::counters(events);
    let decreasing = counting::decreasing_ranges(events);
    let ranges = ranges(&counters, &decreasing);
    let values = values(events, &rf_candidates, &ranges, Justification::Grounded);
    Bounds {
        rf_candidates,
        values,
        thin_air_values: OnceLock::new(),
        counters,
        decreasing,
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
            // acquisition's write half) cannot be its source. (Or a destroyed POSIX
            // mutex's -1, a defect: `program::mutex`.)
            let never_zero = read.kind == EventKind::Lock
                && write
                    .value
                    .and_then(|t| events.terms.constant_value(t))
                    .is_some_and(|v| v != 0 && v != crate::program::mutex::DESTROYED);
            if !shadowed && !never_zero {
                candidates.push(write.id);
            }
        }
        result[read.id] = candidates;
    }
    result
}

pub(crate) type ValueSet = Option<BTreeSet<i32>>;

/// Where the fixpoint over reads' value sets starts, and so which one it finds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Justification {
    /// From empty sets, growing: the least fixpoint. Every value a read returns was
    /// written by a write that an earlier read in `po | rf` justified, which holds when
    /// the model makes `po | rf` acyclic.
    Grounded,
    /// From "anything", shrinking: the greatest fixpoint. A read may return a value that
    /// justifies itself through a cycle of reads and writes (out of thin air), as in
    /// models that allow `po | rf` cycles.
    SelfJustified,
}

/// The ranges of the counters and of the decreasing locations small enough to clamp to.
fn ranges(counters: &[Counter], decreasing: &[(LocId, (i32, i32))]) -> HashMap<LocId, (i32, i32)> {
    let all = counters.iter().map(|c| (c.location, c.range));
    all.chain(decreasing.iter().copied())
        .filter(|&(_, (low, high))| (high as i64 - low as i64) < VALUE_SET_CAP as i64)
        .collect()
}

fn values(
    events: &Events,
    rf_candidates: &[Vec<EventId>],
    ranges: &HashMap<LocId, (i32, i32)>,
    justification: Justification,
) -> Vec<Option<Vec<i32>>> {
    // A counter's (or a decreasing location's) reads return values of its range, whatever
    // the fixpoint below would make of its cycles of candidates (which grow the sets past
    // the cap): see `counting`.
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
    if justification == Justification::SelfJustified {
        for read in events.reads() {
            read_sets[read.id] = None;
        }
    }
    // A mutex wait's value is the thread's choice to block there: 0 or 1.
    for wait in &events.waits {
        if matches!(wait.on, super::WaitOn::Mutex { .. }) {
            read_sets[wait.event] = Some(BTreeSet::from([0, 1]));
        }
    }
    loop {
        let mut memo = HashMap::default();
        let mut changed = false;
        for read in events.reads() {
            let mut set = Some(BTreeSet::new());
            for &w in &rf_candidates[read.id] {
                let Some(term) = events.events[w].value else {
                    continue;
                };
                set = union(set, term_set(events, &read_sets, term, &mut memo));
            }
            let mut set = clamp(read.location, set);
            if justification == Justification::SelfJustified {
                // Descending from "anything": keep every step within the last (the caps
                // make a step's sets only an over-approximation, which could grow back).
                set = meet(set, read_sets[read.id].clone());
            }
            if set != read_sets[read.id] {
                read_sets[read.id] = set;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut memo = HashMap::default();
    (0..events.terms.len())
        .map(|t| term_set(events, &read_sets, t, &mut memo).map(|s| s.into_iter().collect()))
        .collect()
}

/// The intersection, `None` standing for every value.
fn meet(a: ValueSet, b: ValueSet) -> ValueSet {
    match (a, b) {
        (None, other) | (other, None) => other,
        (Some(a), Some(b)) => Some(a.intersection(&b).copied().collect()),
    }
}

pub(crate) fn union(a: ValueSet, b: ValueSet) -> ValueSet {
    let (mut a, b) = (a?, b?);
    a.extend(b);
    (a.len() <= VALUE_SET_CAP).then_some(a)
}

/// `op` applied to every pair of the operands' values, while the pairs and the results stay
/// within the caps; unknown otherwise.
pub(crate) fn binary_set(op: BinaryOp, a: ValueSet, b: ValueSet) -> ValueSet {
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
            binary_set(op, a, b)
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
