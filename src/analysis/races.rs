//! Data races across all SC executions (the Nemos/DefectFinder paper, Appendix C).
//!
//! `hb` is program order plus synchronisation, closed transitively: an unlock synchronises
//! with the lock acquisition that follows it (the next acquisition of that lock in the SC
//! order), and an atomic write with an atomic read that reads from it (under SC every
//! atomic access is sequentially consistent, so reads-from between atomics synchronises, as
//! the DRF-SC guarantee has it). Two feasible events of different threads race when they
//! access the same location, at least one writes, at least one is a plain (non-atomic)
//! access, and neither is `hb`-before the other: two atomic accesses never race.
//!
//! The critical sections of one mutex are totally ordered by the lock order `lko`, and each
//! acquisition synchronises with the release just before it, so an unlock is `hb`-before
//! every later (in `lko`) lock of the same mutex: `hb = (po | lko | rf between atomics)+`.
//! (A lock location also used as data synchronises through `rf` from the release an
//! acquisition reads.) Call unlocks and atomic writes releases, locks and atomic reads
//! acquisitions. Reachability from an access `a` only changes at acquisitions along a
//! thread, and only through the first release after `a` in `a`'s thread, so it is encoded
//! once per release with a literal per acquisition of the other threads:
//! `reach_u(k) <- reach_u(previous acquisition) | OR_u' (u' syncs with k & reach_u(last
//! acquisition before u'))`. When the candidate pairs need fewer targets (last acquisitions
//! before `b`) than sources, as when one unprotected read faces every critical section of
//! the other threads, it is encoded the other way, once per acquisition with a literal per
//! release of the other threads: `reached_k(u) <- reached_k(next release) | OR_k' (u syncs
//! with k' & reached_k(first release after k'))`, where an acquisition of `k`'s own thread
//! up to `k` counts as reached. Either way the literals only have lower bounds.
//!
//! All racing pairs of statements are found by solving for any pair not yet reported,
//! recording every pair the witness exhibits, and solving again: one solve per distinct race
//! plus one proof that no more exist.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use super::{AnalysisError, Candidates, Session};
use crate::diagnostics::Span;
use crate::encode::cnf::{Bool, ClauseSink, Gates};
use crate::events::{EventId, EventKind, Events};
use crate::program::{MemOrder, Program};
use crate::witness::Execution;

/// What `races` calls a race when the model defines none (SC, TSO, ...).
pub const SC_RACE_DEFINITION: &str = "SC's: conflicting accesses, at least one plain, \
unordered by happens-before (program order, lock order, reads-from between atomics)";

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

/// How far `races` searches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RaceSearch {
    /// Every racing pair of statements, and a proof that there are no others.
    #[default]
    All,
    /// Stop at the first racing pair found, as a stateless checker does.
    First,
    /// [`RaceSearch::First`] for a caller that reads the pair alone (`check`'s race search,
    /// [`super::check_races`]): [`RaceResult::bound_hit`] and [`RaceResult::deadlock`] are
    /// not asked (false and `None`), since each is a solve of its own, often a proof as
    /// costly as the race search (GenMC's `linuxrwlocks` under sc: 2 s of 4), and the
    /// caller's own session answers both.
    FirstPair,
}

#[derive(Clone, Debug, Serialize)]
pub struct RaceResult {
    /// Which definition of a race was used, in words.
    pub definition: String,
    pub races: Vec<Race>,
    /// Every racing pair is listed; false when [`RaceSearch::First`] stopped at the first
    /// one and others were not searched for.
    pub complete: bool,
    /// Some execution needs more loop iterations than were unrolled: races beyond the bound
    /// are not covered.
    pub bound_hit: bool,
    /// An execution in which a thread is blocked for good (excluded from the races).
    pub deadlock: Option<crate::witness::Execution>,
    /// The locations whose memory the encoding left out, the query being blind to it
    /// (`super::slice`): plain accesses whose values feed only their own writes.
    pub sliced: Vec<String>,
}

/// Accesses that can take part in a race: thread accesses to locations not used as locks.
pub(crate) fn is_data_access(program: &Program, events: &Events, e: EventId) -> bool {
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
fn candidate_pairs(
    program: &Program,
    events: &Events,
    mutexes: &[bool],
) -> Vec<(EventId, EventId)> {
    let accesses: Vec<EventId> = (0..events.len())
        .filter(|&e| is_data_access(program, events, e))
        .collect();
    let held: Vec<Vec<usize>> = accesses
        .iter()
        .map(|&a| locks_held(events, mutexes, a))
        .collect();
    let mut pairs = Vec::new();
    for (i, &a) in accesses.iter().enumerate() {
        for (j, &b) in accesses.iter().enumerate().skip(i + 1) {
            let (ea, eb) = (&events.events[a], &events.events[b]);
            let conflicting = ea.location == eb.location
                && ea.thread != eb.thread
                && (ea.is_write() || eb.is_write());
            let both_atomic = ea.order != MemOrder::NonAtomic && eb.order != MemOrder::NonAtomic;
            // Eraser's lockset argument: the two critical sections are ordered by `lko`,
            // so the earlier one's unlock happens before the later one's lock.
            let common_lock = held[i].iter().any(|m| held[j].contains(m));
            if conflicting && !both_atomic && !common_lock {
                pairs.push((a, b));
            }
        }
    }
    pairs
}

/// Two accesses inside critical sections of one pure mutex whenever they run: `lko`
/// orders the sections (see [`candidate_pairs`]).
pub(super) fn share_a_lock(events: &Events, mutexes: &[bool], a: EventId, b: EventId) -> bool {
    let held = locks_held(events, mutexes, a);
    !held.is_empty()
        && locks_held(events, mutexes, b)
            .iter()
            .any(|m| held.contains(m))
}

/// The mutexes whose critical sections enclose `e` whenever `e` runs: a lock before `e`
/// whose matching unlock follows it, both running whenever `e` does (their guards are implied
/// by `e`'s). Only pure mutexes count (`mutexes`): a lock location also used as data keeps
/// the memory encoding, where another thread's store of 0 can let two sections overlap.
fn locks_held(events: &Events, mutexes: &[bool], e: EventId) -> Vec<usize> {
    let event = &events.events[e];
    let Some(thread) = event.thread else {
        return Vec::new();
    };
    let mut held = Vec::new();
    for &k in &events.threads[thread] {
        let lock = &events.events[k];
        let (EventKind::Lock, Some(u), Some(mutex)) = (&lock.kind, lock.lock_match, lock.location)
        else {
            continue;
        };
        let encloses = events.po(k, e)
            && events.po(e, u)
            && events.guard_implies(&event.guard, &lock.guard)
            && events.guard_implies(&event.guard, &events.events[u].guard);
        if encloses && mutexes[mutex] {
            held.push(mutex);
        }
    }
    held
}

/// Record that events `pair` race under `lit`, keyed by their statements in a stable order.
pub(super) fn add_candidate(
    by_statement: &mut Candidates<StatementPair, (EventId, EventId)>,
    events: &Events,
    pair: (EventId, EventId),
    lit: Bool,
) {
    let (sa, sb) = (Statement::of(events, pair.0), Statement::of(events, pair.1));
    let key = if sa <= sb { (sa, sb) } else { (sb, sa) };
    by_statement.entry(key).or_default().push((pair, lit));
}

/// Where `hb` enters a thread: a lock acquisition, or an atomic read (which synchronises
/// with the atomic write it reads from).
/// A kind of synchronisation point ([`is_acquisition`], [`is_release`]).
type EventTest = fn(&Events, EventId) -> bool;

fn is_acquisition(events: &Events, e: EventId) -> bool {
    let event = &events.events[e];
    event.thread.is_some()
        && match event.kind {
            EventKind::Lock => true,
            EventKind::Read => event.order != MemOrder::NonAtomic,
            _ => false,
        }
}

/// Where `hb` leaves a thread: an unlock, or an atomic write (not the write half of a lock
/// acquisition, which releases nothing).
fn is_release(events: &Events, e: EventId) -> bool {
    let event = &events.events[e];
    event.thread.is_some()
        && match event.kind {
            EventKind::Unlock => true,
            EventKind::Write => {
                event.order != MemOrder::NonAtomic
                    && !event
                        .rmw
                        .is_some_and(|r| events.events[r].kind == EventKind::Lock)
            }
            _ => false,
        }
}

/// Per event of a thread: the last acquisition of its thread before it (or itself when it
/// is one), and the first release after it (or itself): where `hb` enters and leaves.
struct SyncPoints {
    last_acquisition: Vec<Option<EventId>>,
    first_release: Vec<Option<EventId>>,
}

/// The `hb` reach literals built so far: per source release (forward), or per target
/// acquisition (`backward`), the literals of the other end.
struct Reach {
    backward: bool,
    maps: HashMap<EventId, HashMap<EventId, Bool>>,
}

impl SyncPoints {
    /// One walk of each thread in program order, each way.
    fn of(events: &Events) -> SyncPoints {
        let mut last_acquisition = vec![None; events.len()];
        let mut first_release = vec![None; events.len()];
        for thread in &events.threads {
            let mut last = None;
            for &e in thread {
                if is_acquisition(events, e) {
                    last = Some(e);
                }
                last_acquisition[e] = last;
            }
            let mut first = None;
            for &e in thread.iter().rev() {
                if is_release(events, e) {
                    first = Some(e);
                }
                first_release[e] = first;
            }
        }
        SyncPoints {
            last_acquisition,
            first_release,
        }
    }

    /// Where an `hb` path from `a` to `b` (of another thread) leaves `a`'s thread and
    /// enters `b`'s: none when either thread has no such point.
    fn ends(&self, a: EventId, b: EventId) -> Option<(EventId, EventId)> {
        Some((self.first_release[a]?, self.last_acquisition[b]?))
    }
}

impl Session<'_> {
    /// `hb` reach between `anchor` and the other threads. Forward, from the release
    /// `anchor`: one literal per acquisition, true when it is `hb`-after `anchor`. Backward,
    /// into the acquisition `anchor`: one literal per release, true when it is `hb`-before
    /// `anchor`. Only lower bounds are stated (every `hb` path forces its literal); a race
    /// needs the literals false, so they cannot claim less reach than there is, and any true
    /// race leaves them free to be false.
    fn hb_reach(
        &mut self,
        anchor: EventId,
        backward: bool,
        sync_points: &SyncPoints,
    ) -> HashMap<EventId, Bool> {
        let events = self.encoding.events;
        let anchor_thread = events.events[anchor].thread;
        // The ends that get literals, and the synchronisation points that lead to them.
        let (is_end, is_step): (EventTest, EventTest) = if backward {
            (is_release, is_acquisition)
        } else {
            (is_acquisition, is_release)
        };
        let mut reach: HashMap<EventId, Bool> = HashMap::new();
        for e in 0..events.len() {
            if is_end(events, e) && events.events[e].thread != anchor_thread {
                reach.insert(e, Bool::Lit(self.solver.new_lit()));
            }
        }
        // Along a thread, reach carries away from the anchor: to later acquisitions
        // forward, to earlier releases backward.
        for thread in &events.threads {
            let away: Box<dyn Iterator<Item = &EventId>> = if backward {
                Box::new(thread.iter().rev())
            } else {
                Box::new(thread.iter())
            };
            let mut nearer: Option<Bool> = None;
            for e in away {
                if let Some(&here) = reach.get(e) {
                    if let Some(nearer) = nearer {
                        self.solver.implies(nearer, here);
                    }
                    nearer = Some(here);
                }
            }
        }
        // Synchronisation between a release and an acquisition of another thread and the
        // same location (the lock order, or the release the acquisition reads): the end is
        // reached when the step's side is, that is when the step is the anchor or on the
        // anchor's side of it in the anchor's thread, or when the step's thread is reached
        // at its nearest end (its last acquisition before a release, forward; its first
        // release after an acquisition, backward).
        let steps: Vec<EventId> = (0..events.len()).filter(|&e| is_step(events, e)).collect();
        let ends: Vec<EventId> = reach.keys().copied().collect();
        for end in ends {
            let e_end = &events.events[end];
            for &step in &steps {
                let e_step = &events.events[step];
                if e_step.thread == e_end.thread || e_step.location != e_end.location {
                    continue;
                }
                let carried = if e_step.thread == anchor_thread {
                    let (first, then) = if backward {
                        (step, anchor)
                    } else {
                        (anchor, step)
                    };
                    if step == anchor || events.po(first, then) {
                        Bool::TRUE
                    } else {
                        continue;
                    }
                } else {
                    let nearest = if backward {
                        sync_points.first_release[step]
                    } else {
                        sync_points.last_acquisition[step]
                    };
                    match nearest {
                        Some(n) => reach[&n],
                        None => continue,
                    }
                };
                let (release, acquisition) = if backward { (end, step) } else { (step, end) };
                let sync = self.sync(release, acquisition);
                if sync.is_false() {
                    continue;
                }
                self.solver.clause(&[!sync, !carried, reach[&end]]);
            }
        }
        reach
    }

    /// The release `u` synchronises with the acquisition `k` of another thread. A mutex
    /// orders critical sections by the lock order; a lock location also used as data
    /// synchronises through the release its acquisition reads.
    fn sync(&self, u: EventId, k: EventId) -> Bool {
        match self.encoding.lko.get(u, k) {
            Bool::Const(false) => self.encoding.rf.get(u, k),
            lko => lko,
        }
    }

    /// The literal "`a` happens before `b`", for events of different threads: `a` reaches
    /// the last acquisition before `b` through the first release after `a`.
    fn reaches(
        &mut self,
        a: EventId,
        b: EventId,
        reach: &mut Reach,
        sync_points: &SyncPoints,
    ) -> Bool {
        let Some((source, target)) = sync_points.ends(a, b) else {
            return Bool::FALSE;
        };
        let (key, other) = if reach.backward {
            (target, source)
        } else {
            (source, target)
        };
        if let std::collections::hash_map::Entry::Vacant(slot) = reach.maps.entry(key) {
            slot.insert(self.hb_reach(key, reach.backward, sync_points));
        }
        reach.maps[&key].get(&other).copied().unwrap_or(Bool::FALSE)
    }

    /// Every racing pair of statements, each once, with a witness.
    pub fn races(&mut self) -> Result<RaceResult, AnalysisError> {
        self.races_with(RaceSearch::All)
    }

    /// The racing pairs of statements `search` asks for, each once, with a witness.
    pub fn races_with(&mut self, search: RaceSearch) -> Result<RaceResult, AnalysisError> {
        self.races_with_reach(search, None)
    }

    /// [`Self::races_with`] with the `hb` reach literals built per source release
    /// (`Some(false)`), per target acquisition (`Some(true)`), or whichever needs fewer maps
    /// (`None`, what `races` does, reading `hb` off one mutex's lock order where
    /// `lock_order.rs` allows it): for tests that compare the encodings.
    #[doc(hidden)]
    pub fn races_with_reach(
        &mut self,
        search: RaceSearch,
        backward: Option<bool>,
    ) -> Result<RaceResult, AnalysisError> {
        let program = self.encoding.program;
        let events = self.encoding.events;
        let mut by_statement: Candidates<StatementPair, (EventId, EventId)> = BTreeMap::new();
        let sync_points = SyncPoints::of(events);
        let pairs = candidate_pairs(program, events, &self.encoding.mutexes);
        // One reach map per distinct source or per distinct target, whichever are fewer.
        let ends: Vec<(EventId, EventId)> = pairs
            .iter()
            .flat_map(|&(a, b)| [sync_points.ends(a, b), sync_points.ends(b, a)])
            .flatten()
            .collect();
        let sources: HashSet<EventId> = ends.iter().map(|&(s, _)| s).collect();
        let targets: HashSet<EventId> = ends.iter().map(|&(_, t)| t).collect();
        let mut reach = Reach {
            backward: backward.unwrap_or(targets.len() < sources.len()),
            maps: HashMap::new(),
        };
        // One mutex's lock order, when it is all of `hb` between threads (`lock_order.rs`)
        // and the reach literals would need several maps. One map costs clauses linear in
        // its ends and steps, and its propagation orders the sections for the solver (SC,
        // locked counter 4 x 50: 0.29 s of CPU against 1.15 s with the lock order's
        // literals); a map per loop iteration of a racy read is what made it explode.
        let lock_order = match backward {
            None if sources.len().min(targets.len()) > 1 => {
                self.lock_order_hb(|e| is_acquisition(events, e) || is_release(events, e))
            }
            _ => None,
        };
        for (a, b) in pairs {
            let mut hb = |session: &mut Self, (a, b)| {
                let direct = lock_order
                    .as_ref()
                    .and_then(|l| l.reaches(session, (a, b), sync_points.ends(a, b)));
                match direct {
                    Some(lit) => {
                        session.lock_order_pairs += 1;
                        lit
                    }
                    None => session.reaches(a, b, &mut reach, &sync_points),
                }
            };
            let a_reaches_b = hb(self, (a, b));
            let b_reaches_a = hb(self, (b, a));
            let race = self.solver.and(&[
                self.encoding.feasible[a],
                self.encoding.feasible[b],
                !a_reaches_b,
                !b_reaches_a,
            ]);
            if race.is_false() {
                continue;
            }
            add_candidate(&mut by_statement, events, (a, b), race);
        }
        let mut result = self.distinct_races(by_statement, search)?;
        result.definition = SC_RACE_DEFINITION.to_string();
        Ok(result)
    }

    /// One witness per racing statement pair among the candidates, sorted, with whether the
    /// unrolling bound cut some executions.
    pub(super) fn distinct_races(
        &mut self,
        by_statement: Candidates<StatementPair, (EventId, EventId)>,
        search: RaceSearch,
    ) -> Result<RaceResult, AnalysisError> {
        let program = self.encoding.program;
        let events = self.encoding.events;
        let (found, complete) =
            self.each_distinct_until(by_statement, false, search != RaceSearch::All)?;
        let mut races: Vec<Race> = found
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
        let (bound_hit, deadlock) = match search {
            RaceSearch::FirstPair => (false, None),
            _ => (self.bound_reachable()?, self.deadlock()?),
        };
        let sliced = (0..self.encoding.sliced.len())
            .filter(|&l| self.encoding.sliced[l])
            .map(|l| program.locations[l].name.clone())
            .collect();
        Ok(RaceResult {
            definition: String::new(),
            races,
            complete,
            bound_hit,
            deadlock,
            sliced,
        })
    }
}
