//! Symmetry breaking over interchangeable threads (`program::symmetry`).
//!
//! Renaming interchangeable threads maps executions to executions. Each thread of a class
//! gets a key from its own part of the execution, the same way in every thread: the place,
//! in the lock order of a mutex (or the coherence order of a location) that all of them
//! use, of its first critical section (first write) there, and "never" when that event does
//! not execute. Every execution can be renamed so that the keys ascend along the class, so
//! requiring it of adjacent threads keeps one execution of each class of renamings and
//! loses no answer to a question that is blind to the renaming (the final memory, whether
//! an assertion fails, the model's flags). Nothing is required where the order of the two
//! events is not a free choice of the solver.

use super::cnf::{Bool, ClauseSink, Gates};
use super::Encoding;
use crate::events::{EventId, EventKind};

/// Add the constraints for `classes`; returns how many pairs of threads they order.
pub fn break_symmetry<S: ClauseSink>(
    sink: &mut S,
    encoding: &Encoding,
    classes: &[Vec<usize>],
) -> usize {
    let mut ordered = 0;
    for class in classes {
        let Some(keys) = keys(encoding, class) else {
            continue;
        };
        for pair in keys.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let (fa, fb) = (encoding.feasible[a.event], encoding.feasible[b.event]);
            let (a_first, b_first) = (
                encoding_order(encoding, a, b),
                encoding_order(encoding, b, a),
            );
            // Only a genuine choice of the solver may be fixed.
            if !(matches!(a_first, Bool::Lit(_)) && matches!(b_first, Bool::Lit(_))) {
                continue;
            }
            // "Never" is the largest key: b's event executes only if a's does.
            sink.implies(fb, fa);
            let both = sink.and2(fa, fb);
            sink.implies(both, a_first);
            ordered += 1;
        }
    }
    ordered
}

/// A thread's key event: its first lock of a mutex, with its unlock, or its first write
/// of a location.
#[derive(Clone, Copy)]
struct Key {
    event: EventId,
    unlock: Option<EventId>,
}

/// "a's key comes before b's": for critical sections, a's unlock before b's lock in
/// `lko`; for writes, `co`.
fn encoding_order(encoding: &Encoding, a: Key, b: Key) -> Bool {
    match a.unlock {
        Some(unlock) => encoding.lko.get(unlock, b.event),
        None => encoding.co.get(a.event, b.event),
    }
}

/// The key events of the class's threads, in the class's order, from the first mutex every
/// thread locks, else the first location every thread writes; `None` when there is neither.
fn keys(encoding: &Encoding, class: &[usize]) -> Option<Vec<Key>> {
    let events = &encoding.events.events;
    let first = |thread: usize, matches: &dyn Fn(EventKind, usize) -> bool| {
        events
            .iter()
            .filter(|e| e.thread == Some(thread))
            .find(|e| e.location.is_some_and(|l| matches(e.kind, l)))
    };
    let locations = encoding.program.locations.len();
    for mutex in (0..locations).filter(|&l| encoding.mutexes[l]) {
        let locks: Option<Vec<Key>> = class
            .iter()
            .map(|&t| {
                let lock = first(t, &|kind, l| kind == EventKind::Lock && l == mutex)?;
                Some(Key {
                    event: lock.id,
                    unlock: Some(lock.lock_match?),
                })
            })
            .collect();
        if locks.is_some() {
            return locks;
        }
    }
    for location in (0..locations).filter(|&l| !encoding.mutexes[l]) {
        let writes: Option<Vec<Key>> = class
            .iter()
            .map(|&t| {
                let write = first(t, &|kind, l| kind == EventKind::Write && l == location)?;
                Some(Key {
                    event: write.id,
                    unlock: None,
                })
            })
            .collect();
        if writes.is_some() {
            return writes;
        }
    }
    None
}
