//! Thread creation and join as relations a model can name: `tc` and `tj`.
//!
//! The C front end starts thread `k` with a release write of 1 to a location `spawn#k`
//! (the create), which the thread's first event, an acquire read, is assumed to read; a
//! joined thread ends with a release write of 1 to `exit#k`, which each join, an acquire
//! read, is assumed to read (`cfront::translate`). No other instruction touches these
//! locations, and no litmus or C name can spell them (`#` is not an identifier
//! character), so the pairs are found here by the locations' names, as
//! `program::spawn_symmetry` finds them.
//!
//! `tc` relates a create to the first event of the thread it starts, `tj` a joined
//! thread's last event to a join that waits for it (GenMC's names for the two edges).
//! Both are static: a pair holds in an execution when both of its events run (a join
//! that runs has read the thread's end, so the end ran too). The thread order of a
//! program, program order extended by creation and join, is `(po | tc | tj)+`.

use std::collections::BTreeSet;

use serde::Serialize;

use super::{Event, EventId, EventKind};
use crate::program::Program;

/// The create and join edges of a program's events.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ThreadSync {
    /// From a create (the write of `spawn#k`) to the started thread's first event.
    pub create: BTreeSet<(EventId, EventId)>,
    /// From a joined thread's end (the write of `exit#k`) to a join.
    pub join: BTreeSet<(EventId, EventId)>,
    /// Each started thread's read of its `spawn#k`, whether or not a create writes it.
    pub starts: BTreeSet<EventId>,
}

impl ThreadSync {
    pub fn is_empty(&self) -> bool {
        self.create.is_empty() && self.join.is_empty()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flag {
    Spawn,
    Exit,
}

/// Which of the front end's flags a location is, from its name (`spawn#3`, `exit#3`).
fn flag(name: &str) -> Option<Flag> {
    let numbered = |rest: &str| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit());
    if name.strip_prefix("spawn#").is_some_and(numbered) {
        Some(Flag::Spawn)
    } else if name.strip_prefix("exit#").is_some_and(numbered) {
        Some(Flag::Exit)
    } else {
        None
    }
}

/// Whether a location is one of the front end's flags (`spawn#k` or `exit#k`).
pub(super) fn is_flag(name: &str) -> bool {
    flag(name).is_some()
}

/// Every write of a flag location (not its initial write) paired with every read of it.
pub(super) fn compute(program: &Program, events: &[Event]) -> ThreadSync {
    let mut out = ThreadSync::default();
    let kinds: Vec<Option<Flag>> = program.locations.iter().map(|l| flag(&l.name)).collect();
    let on_flag = |e: &Event| e.location.and_then(|l| kinds.get(l).copied().flatten());
    out.starts = events
        .iter()
        .filter(|e| e.is_read() && on_flag(e) == Some(Flag::Spawn))
        .map(|e| e.id)
        .collect();
    for w in events.iter().filter(|e| e.kind == EventKind::Write) {
        let Some(kind) = on_flag(w) else { continue };
        for r in events
            .iter()
            .filter(|e| e.is_read() && e.location == w.location)
        {
            let pairs = match kind {
                Flag::Spawn => &mut out.create,
                Flag::Exit => &mut out.join,
            };
            pairs.insert((w.id, r.id));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_known_by_their_names_only() {
        assert!(flag("spawn#1") == Some(Flag::Spawn));
        assert!(flag("exit#12") == Some(Flag::Exit));
        assert!(flag("spawn#").is_none());
        assert!(flag("spawn#x").is_none());
        assert!(flag("spawn").is_none());
        assert!(flag("exit#1a").is_none());
    }
}
