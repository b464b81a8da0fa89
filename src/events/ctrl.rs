//! herd's `ctrl`, kept as spans: a read and the run of its thread's events during which
//! an enclosing condition depends on it.
//!
//! `ctrl` relates a read to every access and fence inside the branches of a condition that
//! uses it. Written out pair by pair, n nested `if`s on n reads hold n^2/2 pairs (5000
//! nested `if (READ_ONCE(*x) == i)`: 12.5 million, hundreds of megabytes) whether or not
//! the model reads `ctrl`. A read depends-by-condition on a contiguous run of its thread's
//! events under one condition `when` (the unroller opens a span when a condition starts to
//! depend on the read, or its condition changes, and closes it when that ends), so one
//! span per change stands for the run. [`Events::ctrl_pairs`] writes the pairs out, for a
//! model that names `ctrl` (and for the witness's check of such a model).

use serde::Serialize;

use super::{Dependency, EventId, EventKind, Events, TermId};

/// `ctrl` from `from` to every access and fence among the events at positions `targets`
/// of `thread`, where `when` holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CtrlSpan {
    pub from: EventId,
    pub thread: usize,
    pub targets: std::ops::Range<usize>,
    pub when: TermId,
}

impl Events {
    /// The `ctrl` pairs, by target, then by read: the relation the spans stand for.
    pub fn ctrl_pairs(&self) -> Vec<Dependency> {
        let mut pairs = Vec::new();
        for span in &self.dependencies.ctrl {
            let Some(thread) = self.threads.get(span.thread) else {
                continue;
            };
            let targets = thread.get(span.targets.clone()).unwrap_or_default();
            for &to in targets {
                let event = &self.events[to];
                if to != span.from && (event.is_memory() || event.kind == EventKind::Fence) {
                    pairs.push(Dependency {
                        from: span.from,
                        to,
                        when: span.when,
                    });
                }
            }
        }
        pairs.sort_by_key(|d| (d.to, d.from));
        pairs
    }
}
