//! Data races as the memory model defines them.
//!
//! A model that defines a relation `race` (the C11 models: conflicting accesses, one of
//! them non-atomic, of different threads, that the model's happens-before orders neither
//! way) says itself which pairs make the behaviour undefined. The races query then lists
//! those pairs over the executions the model allows, rather than the SC races of
//! `races.rs` (program order and locks), which ignore release/acquire synchronisation.

use std::collections::BTreeMap;

use super::races::{add_candidate, share_a_lock, RaceResult, RaceSearch, StatementPair};
use super::{AnalysisError, Candidates, Session};
use crate::encode::cnf::Gates;
use crate::events::EventId;

impl Session<'_> {
    /// Every pair of statements the model's `race` relates in some allowed execution, each
    /// once with a witness; `None` when the model defines no `race`.
    pub fn model_races(&mut self) -> Option<Result<RaceResult, AnalysisError>> {
        self.model_races_with(RaceSearch::All)
    }

    /// The pairs `search` asks for of the model's `race`; `None` when it defines none.
    pub fn model_races_with(
        &mut self,
        search: RaceSearch,
    ) -> Option<Result<RaceResult, AnalysisError>> {
        let race = self.compiled.race.clone()?;
        let events = self.encoding.events;
        // `race` may hold both ways for a pair: one candidate per unordered pair.
        let mut pairs: BTreeMap<(EventId, EventId), Vec<_>> = BTreeMap::new();
        for (a, b, lit) in race.iter().filter(|(a, b, l)| a != b && !l.is_false()) {
            pairs.entry((a.min(b), a.max(b))).or_default().push(lit);
        }
        let mut by_statement: Candidates<StatementPair, (EventId, EventId)> = BTreeMap::new();
        let mutexes = &self.encoding.mutexes;
        for ((a, b), lits) in pairs {
            // Never a race when the model's happens-before holds the lock order (rc11,
            // c11): proving it would take the solver through every order of the sections.
            if self.compiled.race_after_locks && share_a_lock(events, mutexes, a, b) {
                continue;
            }
            let lit = self.solver.or(&lits);
            add_candidate(&mut by_statement, events, (a, b), lit);
        }
        let name = self.model.name.clone();
        let result = self.distinct_races(by_statement, search).map(|mut result| {
            result.definition = format!("{name}'s own relation `race`");
            result
        });
        Some(result)
    }
}
