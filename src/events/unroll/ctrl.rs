//! The reads the enclosing conditions depend on, and the `ctrl` spans they leave.
//!
//! Every access and fence emitted while a condition depends on a read depends on it by
//! `ctrl`. Instead of a pair per read and event (O(n^2) for n nested branches), the thread
//! keeps, per read, where its current run began (`CtrlScope::open`), and each change of
//! the read's condition (it starts, changes or ends) closes the run as one
//! [`CtrlSpan`](crate::events::CtrlSpan) over the thread's positions. A run in which no
//! access or fence was emitted leaves nothing.

use std::collections::BTreeMap;

use super::{Deps, ThreadState};
use crate::events::{CtrlSpan, EventId, TermId};

/// The reads the enclosing conditions depend on, each with its condition and where its
/// run began: the thread's position and how many accesses and fences came before it.
#[derive(Default)]
pub(super) struct CtrlScope {
    current: Deps,
    open: BTreeMap<EventId, (usize, usize)>,
    /// The accesses and fences emitted in the thread so far.
    targets: usize,
    closed: Vec<CtrlSpan>,
}

impl ThreadState {
    /// The condition under which the enclosing conditions depend on `read`, if they do.
    pub(super) fn ctrl_get(&self, read: EventId) -> Option<TermId> {
        self.ctrl.current.get(&read).copied()
    }

    /// The enclosing conditions' reads and their conditions.
    pub(super) fn ctrl_deps(&self) -> &Deps {
        &self.ctrl.current
    }

    /// From now on the enclosing conditions depend on `read` when `when` holds (`None`:
    /// not at all).
    pub(super) fn ctrl_set(&mut self, read: EventId, when: Option<TermId>) {
        if self.ctrl.current.get(&read).copied() == when {
            return;
        }
        let now = (self.events.len(), self.ctrl.targets);
        if let Some(old) = self.ctrl.current.remove(&read) {
            let (position, targets) = self.ctrl.open.remove(&read).unwrap_or(now);
            if self.ctrl.targets > targets {
                self.ctrl.closed.push(CtrlSpan {
                    from: read,
                    thread: self.index,
                    targets: position..now.0,
                    when: old,
                });
            }
        }
        if let Some(when) = when {
            self.ctrl.current.insert(read, when);
            self.ctrl.open.insert(read, now);
        }
    }

    /// The enclosing conditions' reads become `deps`.
    pub(super) fn ctrl_replace(&mut self, deps: Deps) {
        let gone: Vec<EventId> = self
            .ctrl
            .current
            .keys()
            .filter(|r| !deps.contains_key(r))
            .copied()
            .collect();
        for read in gone {
            self.ctrl_set(read, None);
        }
        for (read, when) in deps {
            self.ctrl_set(read, Some(when));
        }
    }

    /// An access or a fence was emitted: it depends on the open runs' reads.
    pub(super) fn ctrl_target(&mut self) {
        self.ctrl.targets += 1;
    }

    /// The thread ends: the open runs close, and every span is returned.
    pub(super) fn ctrl_finish(&mut self) -> Vec<CtrlSpan> {
        self.ctrl_replace(Deps::new());
        std::mem::take(&mut self.ctrl.closed)
    }
}
