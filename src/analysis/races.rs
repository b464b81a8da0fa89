//! Data races across all SC executions (seed 004, Appendix C).
//!
//! `hb` is program order plus the synchronisation of an unlock with the lock acquisition that
//! reads from it (the next acquisition of that lock in the SC order), closed transitively.
//! Two feasible events of different threads race when they access the same location, at
//! least one writes, and neither is `hb`-before the other. Accesses made through C11 atomics
//! synchronise rather than race: two atomic accesses never race with each other.
//!
//! Reachability in `hb` from an access `a` is encoded exactly: along a thread it only changes
//! at lock acquisitions, so `reached_a(x)` needs a literal per lock event only:
//! `reached_a(lock) = reached_a(previous event) | OR_u (rf(u, lock) & reached_a(u))`.
//! The definition is a least fixpoint; it is exact because in every consistent execution
//! `rf` from an unlock points forward in the SC order, so the equations are well-founded.
//!
//! All racing pairs of statements are found by solving for any pair not yet reported,
//! recording every pair the witness exhibits, and solving again: one solve per distinct race
//! plus one proof that no more exist.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::{AnalysisError, Candidates, Session};
use crate::encode::cnf::{Bool, Gates};
use crate::events::{EventId, EventKind, Events};
use crate::program::{MemOrder, Program};
use crate::syntax::ast::Span;
use crate::witness::Execution;

/// A program statement: thread and source span.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Statement {
    pub thread: usize,
    pub span: (usize, usize),
}

impl Statement {
    pub fn of(events: &Events, e: EventId) -> Statement {
        let event = &events.events[e];
        Statement {
            thread: event.thread.unwrap_or(usize::MAX),
            span: (event.span.start, event.span.end),
        }
    }

    pub fn span(&self) -> Span {
        Span::new(self.span.0, self.span.1)
    }
}

/// Two statements, in a stable order: the key of a race or of an atomicity violation.
pub type StatementPair = (Statement, Statement);

/// One racing pair of statements with an execution in which two of their events race.
#[derive(Clone, Debug, Serialize)]
pub struct Race {
    pub first: Statement,
    pub second: Statement,
    /// The two racing events in the witness.
    pub events: (EventId, EventId),
    pub location: String,
    pub witness: Execution,
}

#[derive(Clone, Debug, Serialize)]
pub struct RaceResult {
    pub races: Vec<Race>,
    /// Some execution needs more loop iterations than were unrolled: races beyond the bound
    /// are not covered.
    pub bound_hit: bool,
}

/// Accesses that can take part in a race: thread accesses to locations not used as locks.
fn is_data_access(program: &Program, events: &Events, e: EventId) -> bool {
    let event = &events.events[e];
    event.thread.is_some()
        && event.is_memory()
        && !matches!(event.kind, EventKind::Lock | EventKind::Unlock)
        && event
            .location
            .is_some_and(|l| !program.locations[l].is_lock)
}

/// Conflicting pairs `(a, b)` with `a < b` that may race: different threads, same location,
/// one a write, not both atomic.
fn candidate_pairs(program: &Program, events: &Events) -> Vec<(EventId, EventId)> {
    let accesses: Vec<EventId> = (0..events.len())
        .filter(|&e| is_data_access(program, events, e))
        .collect();
    let mut pairs = Vec::new();
    for (i, &a) in accesses.iter().enumerate() {
        for &b in &accesses[i + 1..] {
            let (ea, eb) = (&events.events[a], &events.events[b]);
            let conflicting = ea.location == eb.location
                && ea.thread != eb.thread
                && (ea.is_write() || eb.is_write());
            let both_atomic = ea.order != MemOrder::NonAtomic && eb.order != MemOrder::NonAtomic;
            if conflicting && !both_atomic {
                pairs.push((a, b));
            }
        }
    }
    pairs
}

impl Session<'_> {
    /// The literal "`target` is reachable from `source` in hb", built per source.
    fn hb_reach(&mut self, source: EventId, cache: &mut HashMap<EventId, Vec<Bool>>) -> Vec<Bool> {
        if let Some(known) = cache.get(&source) {
            return known.clone();
        }
        let events = self.encoding.events;
        let source_thread = events.events[source].thread;
        let mut reached = vec![Bool::FALSE; events.len()];
        // Program order: everything after the source in its own thread.
        if let Some(t) = source_thread {
            for &e in &events.threads[t] {
                if events.po(source, e) {
                    reached[e] = Bool::TRUE;
                }
            }
        }
        // Other threads in an order where every unlock's value is known before a lock that
        // reads from it is visited: repeat until stable (locks chain across threads).
        let locks: Vec<EventId> = events
            .events
            .iter()
            .filter(|e| e.kind == EventKind::Lock && e.thread != source_thread)
            .map(|e| e.id)
            .collect();
        let mut lock_literal: HashMap<EventId, Bool> = HashMap::new();
        for &l in &locks {
            lock_literal.insert(l, Bool::Lit(self.solver_new_lit()));
        }
        let propagate = |reached: &mut Vec<Bool>, lock_literal: &HashMap<EventId, Bool>| {
            for (t, thread) in events.threads.iter().enumerate() {
                if Some(t) == source_thread {
                    continue;
                }
                let mut current = Bool::FALSE;
                for &e in thread {
                    if let Some(&lit) = lock_literal.get(&e) {
                        current = lit;
                    }
                    reached[e] = current;
                }
            }
        };
        propagate(&mut reached, &lock_literal);
        // Define each lock's literal: reached before it, or synchronised from a reached unlock.
        for &l in &locks {
            let thread = events.events[l].thread.unwrap_or(0);
            let before = events.threads[thread]
                .iter()
                .take_while(|&&e| e != l)
                .last()
                .map_or(Bool::FALSE, |&p| reached[p]);
            let mut ways = vec![before];
            for u in events.events.iter().filter(|u| u.kind == EventKind::Unlock) {
                let rf = self.encoding.rf.get(u.id, l);
                if rf.is_false() {
                    continue;
                }
                let from = if u.thread == source_thread {
                    Bool::Const(events.po(source, u.id))
                } else {
                    reached[u.id]
                };
                ways.push(self.solver.and2(rf, from));
            }
            let definition = self.solver.or(&ways);
            let lit = lock_literal[&l];
            let same = self.solver.iff(lit, definition);
            self.solver.assert_true(same);
        }
        cache.insert(source, reached.clone());
        reached
    }

    fn solver_new_lit(&mut self) -> crate::encode::cnf::Lit {
        use crate::encode::cnf::ClauseSink;
        self.solver.new_lit()
    }

    /// Every racing pair of statements, each once, with a witness.
    pub fn races(&mut self) -> Result<RaceResult, AnalysisError> {
        let program = self.encoding.program;
        let events = self.encoding.events;
        let mut cache = HashMap::new();
        let mut by_statement: Candidates<StatementPair, (EventId, EventId)> = BTreeMap::new();
        for (a, b) in candidate_pairs(program, events) {
            let from_a = self.hb_reach(a, &mut cache);
            let from_b = self.hb_reach(b, &mut cache);
            let race = self.solver.and(&[
                self.encoding.feasible[a],
                self.encoding.feasible[b],
                !from_a[b],
                !from_b[a],
            ]);
            if race.is_false() {
                continue;
            }
            let (sa, sb) = (Statement::of(events, a), Statement::of(events, b));
            let key = if sa <= sb { (sa, sb) } else { (sb, sa) };
            by_statement.entry(key).or_default().push(((a, b), race));
        }
        let mut races: Vec<Race> = self
            .each_distinct(by_statement, false)?
            .into_iter()
            .map(|found| {
                let (a, b) = found.instance;
                let location = events.events[a]
                    .location
                    .map(|l| program.locations[l].name.clone())
                    .unwrap_or_default();
                Race {
                    first: found.key.0,
                    second: found.key.1,
                    events: (a, b),
                    location,
                    witness: found.witness,
                }
            })
            .collect();
        races.sort_by_key(|r| (r.first, r.second));
        let bound_hit = self.bound_reachable()?;
        Ok(RaceResult { races, bound_hit })
    }
}
