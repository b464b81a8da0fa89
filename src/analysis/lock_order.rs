//! `hb` read off one mutex's lock order, for SC's races (`races.rs`).
//!
//! When every synchronisation point of a test (every acquisition and release `races.rs`
//! counts: locks, unlocks, atomic reads and writes) is a `lock` or `unlock` of one pure
//! mutex `m`, each of its locks matched, and a check in force makes `po | lko` acyclic
//! (`encode::counting::lock_premise`), happens-before between two threads is the lock
//! order itself: `a hb b` iff the critical section released by the first release `u` after
//! `a` precedes, in `lko`, the one entered by the last acquisition `k` before `b`, provided
//! `u` (with its lock) and `k` run whenever `a` and `b` do. So the race literal of such a
//! pair needs no reach literals: `!lko(u, k)` and `!lko(u', k')` the other way.
//!
//! Why it is exact: the sections of `m` that run, ordered by `lko` between threads (one
//! choice literal per pair, `Encoding::encode_locks`) and by `po` within one, form a
//! tournament; the check makes it acyclic, hence transitive. An `hb` path from `a` to `b`
//! leaves `a`'s thread at a release `u1` that runs, `po`-after or equal to `u`, goes
//! `u1 lko k1 po u2 lko k2 ... lko kn` and enters `b`'s thread at `kn`, `po`-before or equal
//! to `k`: the sections then increase along the tournament from `u`'s to `k`'s, so `u`'s
//! precedes `k`'s, and as they lie in different threads that is the literal `lko(u, k)`.
//! Conversely `lko(u, k)` is the path `a po u lko k po b`. The literal is `hb` exactly in
//! every execution the race solves look at (they assume the checks in force), where the
//! general encoding gives reach literals bounded below; both answer the same races. The
//! general encoding builds one literal per release and acquisition for each anchor, with a
//! clause per pair of synchronisation points (a racy read in each of 50 loop iterations
//! of thread 0 among 4 x 50 locked increments: 50 anchors of 150 x 200 clauses); this one
//! builds nothing.

use super::Session;
use crate::encode::cnf::Bool;
use crate::encode::counting::lock_premise;
use crate::events::{EventId, EventKind};

/// The single mutex whose lock order is `hb` between threads, and each unlock's lock.
pub(super) struct LockOrderHb {
    lock_of: Vec<Option<EventId>>,
}

impl Session<'_> {
    /// [`LockOrderHb`] when the test and the checks in force allow it: every
    /// synchronisation point (`is_sync`) a lock or unlock of one pure mutex, every lock of
    /// it matched, and a check in force that makes `po | lko` acyclic.
    pub(super) fn lock_order_hb(&self, is_sync: impl Fn(EventId) -> bool) -> Option<LockOrderHb> {
        let premise = lock_premise(&self.model, &self.compiled)?;
        if premise != Bool::TRUE && !self.enabled.contains(&premise) {
            return None;
        }
        let events = self.encoding.events;
        let mut mutex = None;
        let mut lock_of = vec![None; events.len()];
        for e in (0..events.len()).filter(|&e| is_sync(e)) {
            let event = &events.events[e];
            let location = event.location?;
            if !matches!(event.kind, EventKind::Lock | EventKind::Unlock)
                || !self.encoding.mutexes[location]
                || mutex.is_some_and(|m| m != location)
            {
                return None;
            }
            mutex = Some(location);
            if event.kind == EventKind::Lock {
                let unlock = event.lock_match?;
                lock_of[unlock] = Some(e);
            }
        }
        Some(LockOrderHb { lock_of })
    }
}

impl LockOrderHb {
    /// The literal "`a` happens before `b`" (different threads), given the first release
    /// after `a` and the last acquisition before `b` (`None` when either is missing: then
    /// nothing leads from `a` to `b`), or `None` when this pair needs the general
    /// encoding: the release, its lock or the acquisition may not run when `a` and `b` do.
    pub(super) fn reaches(
        &self,
        session: &Session<'_>,
        (a, b): (EventId, EventId),
        ends: Option<(EventId, EventId)>,
    ) -> Option<Bool> {
        let events = session.encoding.events;
        let Some((u, k)) = ends else {
            return Some(Bool::FALSE);
        };
        let lock = self.lock_of[u]?;
        let runs_with = |x: EventId, y: EventId| {
            events.guard_implies(&events.events[x].guard, &events.events[y].guard)
        };
        if !(runs_with(a, u) && runs_with(a, lock) && runs_with(b, k)) {
            return None;
        }
        Some(session.encoding.lko.get(u, k))
    }
}
