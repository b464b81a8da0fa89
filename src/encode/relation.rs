//! Sparse relation matrices over literals.
//!
//! A relation is an `n x n` matrix of [`Bool`]s, stored sparsely: a pair missing from the map
//! is constant false (outside the static upper bound), as in Kodkod. Only pairs that can
//! actually vary cost a variable.

use std::collections::BTreeMap;

use super::cnf::Bool;
use crate::events::EventId;

#[derive(Clone, Debug, Default)]
pub struct Relation {
    entries: BTreeMap<(EventId, EventId), Bool>,
}

impl Relation {
    /// The empty relation, as a constant.
    pub const EMPTY: Relation = Relation {
        entries: BTreeMap::new(),
    };

    pub fn new() -> Relation {
        Relation::default()
    }

    pub fn get(&self, a: EventId, b: EventId) -> Bool {
        self.entries.get(&(a, b)).copied().unwrap_or(Bool::FALSE)
    }

    /// Set an entry; constant false entries are not stored.
    pub fn set(&mut self, a: EventId, b: EventId, value: Bool) {
        if value.is_false() {
            self.entries.remove(&(a, b));
        } else {
            self.entries.insert((a, b), value);
        }
    }

    /// The pairs that may be in the relation, with their literals.
    pub fn iter(&self) -> impl Iterator<Item = (EventId, EventId, Bool)> + '_ {
        self.entries.iter().map(|(&(a, b), &v)| (a, b, v))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The pairs `(a, _)` that may be in the relation.
    pub fn successors(&self, a: EventId) -> impl Iterator<Item = (EventId, Bool)> + '_ {
        self.entries
            .range((a, 0)..=(a, EventId::MAX))
            .map(|(&(_, b), &v)| (b, v))
    }
}
