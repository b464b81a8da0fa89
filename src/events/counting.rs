//! Counters: locations every write of which adds a positive constant to a value its own
//! thread read from the same location, or writes a constant. The values such a location
//! can hold follow from arithmetic alone, whatever order the writes take, so the static
//! pass ([`super::bounds`]) bounds them to a range and the encoding
//! (`encode::counting`) states the final value of a lock-protected counter as a sum of
//! guarded constants, so that SAT does not count increments order by order.
//!
//! Why the range holds in every execution, under every model. Follow a feasible write `w`
//! back: if it is an increment `r + k`, its read `r` executes (the write's guard implies
//! the read's) and reads some feasible write `w'` of the location, whose value it returns;
//! so `value(w) = value(w') + k`. The chain `w, w', w'', ..` visits distinct writes: a
//! repeated one would close a cycle whose increments sum to 0 modulo 2^32, impossible
//! when every `k >= 1` and the sum of all of them stays below 2^31. It ends at a root (the
//! initial write or a constant write), so `value(w)` is the root's value plus the sum of
//! distinct increments: within `[least root, greatest root + sum of all k]`, no wrapping.

use serde::Serialize;

use super::{EventId, EventKind, Events, Guard, Term, TermId};
use crate::program::{BinaryOp, LocId};

/// One write of a counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CounterWrite {
    /// Writes a constant (the initial write, a reset, a lock's write half).
    Root(i32),
    /// Writes the value its read `read` (same location, same thread, earlier) returned,
    /// plus `k >= 1`.
    Increment { read: EventId, k: i32 },
}

/// A location whose writes are all roots or increments.
#[derive(Clone, Debug, Serialize)]
pub struct Counter {
    pub location: LocId,
    /// Every write of the location, in event order, with its shape.
    pub writes: Vec<(EventId, CounterWrite)>,
    /// Every value a feasible write (so every feasible read) of the location can have.
    pub range: (i32, i32),
}

/// The shape of one write of `loc`, or `None` when it is neither a root nor an increment.
fn write_shape(events: &Events, loc: LocId, w: EventId) -> Option<CounterWrite> {
    match write_step(events, loc, w)? {
        CounterWrite::Increment { k, .. } if k < 1 => None,
        shape => Some(shape),
    }
}

/// As [`write_shape`], but a write of its read's value plus any non-zero constant `k`
/// (`r + k`, `k + r`, `r - k`) is an `Increment` of that `k`, negative ones included.
fn write_step(events: &Events, loc: LocId, w: EventId) -> Option<CounterWrite> {
    let write = &events.events[w];
    let Some(t) = write.value else {
        // Encoded as 0.
        return Some(CounterWrite::Root(0));
    };
    let terms = &events.terms;
    // The value the write has when it runs: a choice its guard decides is made.
    let t = decided(events, &write.guard, t);
    if let Some(v) = terms.constant_value(t) {
        return Some(CounterWrite::Root(v));
    }
    let (op, a, b) = match *terms.get(t) {
        Term::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) => (op, a, b),
        _ => return None,
    };
    let (a, b) = (
        decided(events, &write.guard, a),
        decided(events, &write.guard, b),
    );
    let (read, k) = match (op, terms.get(a), terms.get(b)) {
        (BinaryOp::Add, &Term::Read(r), &Term::Const(k))
        | (BinaryOp::Add, &Term::Const(k), &Term::Read(r)) => (r, k),
        (BinaryOp::Sub, &Term::Read(r), &Term::Const(k)) => (r, k.checked_neg()?),
        _ => return None,
    };
    let source = &events.events[read];
    let feeds = source.kind == EventKind::Read
        && source.location == Some(loc)
        && write.thread.is_some()
        && source.thread == write.thread
        && source.position < write.position
        && guard_entails(events, &write.guard, &source.guard, 0);
    (feeds && k != 0).then_some(CounterWrite::Increment { read, k })
}

/// `term` with each choice `c ? a : b` whose condition `guard` decides replaced by the
/// branch taken: the value `term` has in every execution where `guard` holds. An access
/// through a computed index (`n[t] = n[t] + 1`, `events::unroll::access`) writes cell `k`
/// under the case `t == k` the value `(t == 0 ? r0 : t == 1 ? r1 : ..) + 1`, in which the
/// case decides the read: `r_k + 1`.
fn decided(events: &Events, guard: &Guard, term: TermId) -> TermId {
    let mut term = term;
    while let Term::Ite(c, a, b) = *events.terms.get(term) {
        match condition_known(events, guard, c, 0) {
            Some(true) => term = a,
            Some(false) => term = b,
            None => break,
        }
    }
    term
}

/// How deep [`guard_entails`] follows the guards of the controls it compares.
const DEPTH: usize = 8;

/// The truth of condition `term` (non-zero or not) wherever `guard` holds, when one of its
/// literals is a control on the same term: a true control `d` means `term != 0`; a false
/// one means `term == 0` where `d`'s own guard holds, which `guard` must then entail.
fn condition_known(events: &Events, guard: &Guard, term: TermId, depth: usize) -> Option<bool> {
    guard.0.iter().find_map(|&(d, q)| {
        let control = &events.controls[d];
        let known = control.term == term
            && (q || (depth < DEPTH && guard_entails(events, guard, &control.within, depth + 1)));
        known.then_some(q)
    })
}

/// Every execution in which `guard` holds satisfies `implied`: as
/// [`Events::guard_implies`], and also when a literal of `implied` is a control on a term
/// whose truth `guard` decides through another control on the same term (two case splits
/// of one index, each with its own control, in one access `n[t]++`). Control `c` holds iff
/// its own guard does and its term is non-zero (`encode`): `(c, true)` needs both, `(c,
/// false)` is met by a zero term.
fn guard_entails(events: &Events, guard: &Guard, implied: &Guard, depth: usize) -> bool {
    implied.0.iter().all(|&(c, p)| {
        if events.guard_implies(guard, &Guard(vec![(c, p)])) {
            return true;
        }
        let control = &events.controls[c];
        condition_known(events, guard, control.term, depth) == Some(p)
            && (!p || (depth < DEPTH && guard_entails(events, guard, &control.within, depth + 1)))
    })
}

/// Each location's writes, its initial write included, in event order.
fn writes_by_location(events: &Events) -> Vec<Vec<EventId>> {
    let mut writes: Vec<Vec<EventId>> = vec![Vec::new(); events.init.len()];
    for w in events.writes() {
        if let Some(loc) = w.location {
            writes[loc].push(w.id);
        }
    }
    writes
}

/// Every counter of the test, by location.
pub fn counters(events: &Events) -> Vec<Counter> {
    let mut result = Vec::new();
    'locations: for (loc, ws) in writes_by_location(events).into_iter().enumerate() {
        let mut shaped = Vec::with_capacity(ws.len());
        let (mut low, mut high, mut sum) = (i64::MAX, i64::MIN, 0i64);
        let mut increments = 0;
        for w in ws {
            let Some(shape) = write_shape(events, loc, w) else {
                continue 'locations;
            };
            match shape {
                CounterWrite::Root(v) => {
                    low = low.min(v as i64);
                    high = high.max(v as i64);
                }
                CounterWrite::Increment { k, .. } => {
                    sum += k as i64;
                    increments += 1;
                }
            }
            if high.saturating_add(sum) > i32::MAX as i64 {
                continue 'locations;
            }
            shaped.push((w, shape));
        }
        if increments == 0 || low > high {
            continue;
        }
        result.push(Counter {
            location: loc,
            writes: shaped,
            range: (low as i32, (high + sum) as i32),
        });
    }
    result
}

/// The locations every write of which subtracts a positive constant from a value its own
/// thread read there (`r - k`, `r + -k`: a decrement, as the kernel's `atomic_dec`), or
/// writes a constant, with at least one decrement; each with the range of values its
/// writes (so its reads) can have. The argument above, mirrored: along the chain of
/// writes a feasible write's value is computed from, values strictly decrease (no cycle,
/// no wrapping while the sum of all decrements stays within `i32`), so every value is
/// within `[least root - sum of all k, greatest root]`. Only `events::bounds` uses them
/// (the counting lemmas are argued for increments).
pub fn decreasing_ranges(events: &Events) -> Vec<(LocId, (i32, i32))> {
    let mut result = Vec::new();
    'locations: for (loc, ws) in writes_by_location(events).into_iter().enumerate() {
        let (mut low, mut high, mut sum) = (i64::MAX, i64::MIN, 0i64);
        for w in ws {
            match write_step(events, loc, w) {
                Some(CounterWrite::Root(v)) => {
                    low = low.min(v as i64);
                    high = high.max(v as i64);
                }
                Some(CounterWrite::Increment { k, .. }) if k < 0 => sum += k as i64,
                _ => continue 'locations,
            }
            if low.saturating_add(sum) < i32::MIN as i64 {
                continue 'locations;
            }
        }
        if sum < 0 && low <= high {
            result.push((loc, ((low + sum) as i32, high as i32)));
        }
    }
    result
}
