//! The initial writes of the cells nothing accesses, left out.
//!
//! Lowering lays out every cell a program declares, and the unroller gives each its
//! initial write; but a cell that no event of any thread reads, writes, locks or fences
//! (its accesses are resolved to fixed cells by then: points-to sets and the pruned case
//! splits of `values.rs`) and that no final state observes takes part in no `rf`, `co`,
//! `fr` or `loc` edge other than its initial write's own. herd7 makes no initial write for
//! such a cell either, nor GenMC an event. Leaving it out changes no answer: its value is
//! never read and its coherence has one write. The initial writes are the first events, so
//! dropping `k` of them keeps the kept ones in order and moves every thread's event down
//! by `k`; each event id the unrolling recorded is renumbered that way
//! ([`Events::init`] says `None` for a cell left out).

use std::collections::{BTreeMap, BTreeSet};

use super::super::{EventId, EventKind, Events, WaitOn};
use crate::program::{Observable, Program};

/// The cells some final state observes (the `locations` clause, the condition, the
/// filter) or some event of a thread accesses.
fn touched(program: &Program, events: &Events) -> Vec<bool> {
    let mut touched = vec![false; events.init.len()];
    for o in program.named_observables() {
        if let Observable::Loc(l) = o {
            if let Some(t) = touched.get_mut(l) {
                *t = true;
            }
        }
    }
    for e in &events.events {
        if e.kind == EventKind::Init {
            continue;
        }
        if let Some(t) = e.location.and_then(|l| touched.get_mut(l)) {
            *t = true;
        }
    }
    for w in &events.waits {
        if let WaitOn::Mutex { loc, .. } = w.on {
            if let Some(t) = touched.get_mut(loc) {
                *t = true;
            }
        }
    }
    touched
}

/// Leave out the initial writes of the cells [`touched`] does not name, renumbering the
/// events after them. To be run before the passes that read event ids into tables of
/// their own (`thread_sync`, `spec`, `bounds`).
pub(super) fn drop_untouched_inits(program: &Program, events: &mut Events) {
    let touched = touched(program, events);
    let first_thread_event = events.init.iter().flatten().count();
    // Every initial write precedes every thread's event (they are made first).
    if events.init.iter().enumerate().any(|(i, e)| *e != Some(i))
        || events.events[..first_thread_event]
            .iter()
            .any(|e| e.kind != EventKind::Init)
    {
        return;
    }
    let dropped = touched.iter().filter(|t| !**t).count();
    if dropped == 0 {
        return;
    }
    let mut new_init_id = vec![None; first_thread_event];
    let mut next = 0;
    for (loc, &t) in touched.iter().enumerate() {
        if t {
            new_init_id[loc] = Some(next);
            next += 1;
        }
    }
    let map = |e: EventId| -> EventId {
        if e < first_thread_event {
            new_init_id[e].unwrap_or(e)
        } else {
            e - dropped
        }
    };
    let old = std::mem::take(&mut events.events);
    events.events = old
        .into_iter()
        .filter(|e| e.kind != EventKind::Init || e.location.is_some_and(|l| touched[l]))
        .map(|mut e| {
            e.id = map(e.id);
            e.rmw = e.rmw.map(map);
            e.lock_match = e.lock_match.map(map);
            e.atomic_match = e.atomic_match.map(map);
            e
        })
        .collect();
    for (loc, init) in events.init.iter_mut().enumerate() {
        *init = new_init_id[loc];
    }
    events.terms.renumber_reads(map);
    for c in &mut events.controls {
        c.event = map(c.event);
    }
    for thread in &mut events.threads {
        for e in thread.iter_mut() {
            *e = map(*e);
        }
    }
    for w in &mut events.waits {
        w.event = map(w.event);
        match &mut w.on {
            WaitOn::Spin { reads, .. } => {
                for r in reads.iter_mut() {
                    *r = map(*r);
                }
            }
            WaitOn::Mutex { lock, .. } => *lock = map(*lock),
            WaitOn::Forever { .. } => {}
        }
    }
    for call in &mut events.calls {
        call.begin = map(call.begin);
        call.end = map(call.end);
    }
    events.access_checks = std::mem::take(&mut events.access_checks)
        .into_iter()
        .map(|(e, c)| (map(e), c))
        .collect::<BTreeMap<_, _>>();
    events.library_checks = std::mem::take(&mut events.library_checks)
        .into_iter()
        .map(|(e, c)| (map(e), c))
        .collect::<BTreeMap<_, _>>();
    events.free_checks = std::mem::take(&mut events.free_checks)
        .into_iter()
        .map(map)
        .collect::<BTreeSet<_>>();
    events.address_controls = std::mem::take(&mut events.address_controls)
        .into_iter()
        .map(map)
        .collect::<BTreeSet<_>>();
    for p in &mut events.ordering_points {
        p.access = map(p.access);
        p.marker = map(p.marker);
    }
    let deps = &mut events.dependencies;
    for d in deps.addr.iter_mut().chain(deps.data.iter_mut()) {
        d.from = map(d.from);
        d.to = map(d.to);
    }
    for span in &mut deps.ctrl {
        span.from = map(span.from);
    }
}
