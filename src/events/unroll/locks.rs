//! Locks: acquisitions, releases, and the balance of the locks a block takes.

use super::{blank_event, Builder, ThreadState};
use crate::diagnostics::{Diagnostic, Span};
use crate::events::{Event, EventId, EventKind};
use crate::program::{LocId, MemOrder};

impl Builder {
    /// A lock's acquisition: its read (the `Lock` event, returned), which reads the lock,
    /// and its write half, a write of 1, linked as one read-modify-write.
    pub(super) fn acquire(
        &mut self,
        state: &mut ThreadState,
        loc: LocId,
        span: Span,
        tags: crate::program::Tags,
    ) -> EventId {
        let read = self.emit(
            state,
            Event {
                kind: EventKind::Lock,
                location: Some(loc),
                order: MemOrder::Acquire,
                tags,
                ..blank_event(None, 0, span)
            },
        );
        let value = self.terms.read(read);
        self.events[read].value = Some(value);
        let one = self.terms.constant(1);
        let write = self.write(state, loc, one, MemOrder::Relaxed, span);
        self.link_rmw(read, write);
        read
    }

    /// A lock's release: a write of 0 (the `Unlock` event, returned).
    pub(super) fn release(
        &mut self,
        state: &mut ThreadState,
        loc: LocId,
        span: Span,
        lock_match: Option<EventId>,
        tags: crate::program::Tags,
    ) -> EventId {
        let zero = self.terms.constant(0);
        self.emit(
            state,
            Event {
                kind: EventKind::Unlock,
                location: Some(loc),
                value: Some(zero),
                order: MemOrder::Release,
                lock_match,
                tags,
                ..blank_event(None, 0, span)
            },
        )
    }

    /// Run `body` and require that it releases exactly the locks it takes.
    pub(super) fn balanced(
        &mut self,
        state: &mut ThreadState,
        span: Span,
        what: &str,
        body: impl FnOnce(&mut Builder, &mut ThreadState),
    ) {
        let held_before: Vec<EventId> = state.held.iter().map(|h| h.1).collect();
        body(self, state);
        let held_after: Vec<EventId> = state.held.iter().map(|h| h.1).collect();
        // A body the event limit stopped did not reach its releases.
        if held_after == held_before || self.cut {
            return;
        }
        let taken_inside = state.held.iter().find(|h| !held_before.contains(&h.1));
        let diagnostic = match taken_inside {
            Some(&(_, _, lock_span)) => Diagnostic::new(
                format!("a lock taken inside this {what} is still held at its end"),
                lock_span,
            )
            .with_label("taken here")
            .with_help(format!("release it inside the same {what}")),
            None => Diagnostic::new(
                format!("this {what} releases a lock taken outside it"),
                span,
            )
            .with_help(format!("take and release each lock inside the same {what}")),
        };
        // Continue with the locks as the block left them: the matching unlock (or the end
        // of the thread) then raises no second, derived error.
        self.errors.push(diagnostic);
    }
}
