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

use super::{EventId, EventKind, Events, Term};
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
    let write = &events.events[w];
    let Some(t) = write.value else {
        // Encoded as 0.
        return Some(CounterWrite::Root(0));
    };
    let terms = &events.terms;
    if let Some(v) = terms.constant_value(t) {
        return Some(CounterWrite::Root(v));
    }
    let Term::Binary(BinaryOp::Add, a, b) = *terms.get(t) else {
        return None;
    };
    let (read, k) = match (terms.get(a), terms.get(b)) {
        (&Term::Read(r), &Term::Const(k)) | (&Term::Const(k), &Term::Read(r)) => (r, k),
        _ => return None,
    };
    let source = &events.events[read];
    let feeds = source.kind == EventKind::Read
        && source.location == Some(loc)
        && write.thread.is_some()
        && source.thread == write.thread
        && source.position < write.position
        && events.guard_implies(&write.guard, &source.guard);
    (feeds && k >= 1).then_some(CounterWrite::Increment { read, k })
}

/// Every counter of the test, by location.
pub fn counters(events: &Events) -> Vec<Counter> {
    let locations = events.init.len();
    let mut writes: Vec<Vec<EventId>> = vec![Vec::new(); locations];
    for w in events.writes() {
        if let Some(loc) = w.location {
            writes[loc].push(w.id);
        }
    }
    let mut result = Vec::new();
    'locations: for (loc, ws) in writes.into_iter().enumerate() {
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
