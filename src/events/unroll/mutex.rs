//! POSIX mutexes that are memory (`program::mutex`): a lock waits or reads 0, nothing
//! matches it with an unlock, and a lock of a destroyed mutex checks what it read.

use super::{blank_event, Builder, ThreadState};
use crate::diagnostics::Span;
use crate::events::{Event, EventKind, WaitOn};
use crate::program::checks::CheckKind;
use crate::program::mutex::DESTROYED;
use crate::program::{BinaryOp, LocId};

impl Builder {
    /// `lock(m)`: the thread may wait here for good (when the mutex ends held), or its
    /// acquisition reads 0 (the encoding requires it) and writes 1. On a destroyed mutex
    /// the acquisition may read the destroy's -1 instead, and then a check fails (GenMC's
    /// lock of a destroyed mutex).
    pub(super) fn memory_lock(&mut self, state: &mut ThreadState, loc: LocId, span: Span) {
        let on = WaitOn::Mutex {
            loc,
            lock: usize::MAX,
        };
        let wait = self.wait(state, None, on, span);
        let read = self.acquire(state, loc, span, Vec::new());
        if let Some(WaitOn::Mutex { lock, .. }) = wait.map(|w| &mut self.waits[w].on) {
            *lock = read;
        }
        if !self.destroyed_mutexes[loc] {
            return;
        }
        let value = self.terms.read(read);
        let destroyed = self.terms.constant(DESTROYED);
        let alive = self.terms.binary(BinaryOp::Ne, value, destroyed);
        let check = self.emit(
            state,
            Event {
                kind: EventKind::Assert,
                value: Some(alive),
                ..blank_event(None, 0, span)
            },
        );
        self.library_checks.insert(check, CheckKind::DestroyedMutex);
    }

    /// `unlock(m)`: a release write of 0, matched with no lock (the front end checks that
    /// the thread holds the mutex, `program::mutex`).
    pub(super) fn memory_unlock(&mut self, state: &mut ThreadState, loc: LocId, span: Span) {
        self.release(state, loc, span, None, Vec::new());
    }
}
