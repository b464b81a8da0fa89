//! Where a bug is: the critical orderings of a failing check and the smallest verified fixes
//! (the FGVT paper's fine-grained fault localization, seed 003).
//!
//! An *ordering* `A before B` is a fact about an execution: `A` and `B` are statements of
//! different threads with conflicting data accesses (same location, at least one a write),
//! and some executed instance of `A` comes before some executed instance of `B` in the
//! location's communication order: for two writes, coherence `co`; for a write `a` and a
//! read `b`, `b` reads `a` or a write coherence-after it (`a` executed, `b` executed, not
//! `fr(b, a)`); for a read `a` and a write `b`, `fr(a, b)`. Under SC this is the order of
//! the two accesses in every interleaving of the execution, and the facts do not depend on
//! the model, so they mean the same under the weak ones. Instances of one statement (loop
//! iterations, calls) fold into the statement, as races do.
//!
//! *Forbidding* `A before B` removes every execution in which it holds: no executed
//! instance of `A` comes before an executed instance of `B` (an execution where one of them
//! does not run keeps nothing to forbid). A set of orderings is *critical* when forbidding
//! all of them together removes every bad execution (one reaching the outcome the check
//! rejects), and minimal when no proper subset is critical: the minimal critical sets are
//! the minimal hitting sets of the bad executions' orderings. A set whose forbidding
//! removes every execution, good ones too (both orders of two accesses that always run), is
//! no schedule and is not reported; nor are its supersets.
//!
//! One incremental solver holds the program: each ordering has a selector literal that,
//! assumed, forbids it. Sets are found smallest first by the implicit hitting-set loop:
//! the smallest set of orderings hitting every bad execution found so far (and not
//! containing a set already found) is assumed forbidden; a bad execution that survives adds
//! its orderings to the sets to hit, an unsatisfiable answer makes the set critical and,
//! being the smallest candidate, minimal. [`repair`] turns each set into fixes, each
//! checked on the rewritten program.

pub mod repair;
mod written;

pub use written::FixFile;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::races::{is_data_access, Statement};
use super::spec::SpecMode;
use super::{AnalysisError, Session};
use crate::encode::cnf::{Bool, ClauseSink, Gates};
use crate::events::EventId;
use crate::program::Quantifier;
use crate::witness::Execution;

/// Sets are searched up to this many orderings unless asked otherwise.
pub const DEFAULT_MAX_SIZE: usize = 3;
/// At most this many sets are reported unless asked otherwise.
pub const DEFAULT_MAX_SETS: usize = 6;
/// The flips of a set are shown up to this many orderings (2^n combinations).
pub const MAX_FLIPPED: usize = 3;

/// How far the search goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalizeSettings {
    pub max_size: usize,
    pub max_sets: usize,
    /// Look for fixes and check each on the rewritten program.
    pub repairs: bool,
}

impl Default for LocalizeSettings {
    fn default() -> Self {
        LocalizeSettings {
            max_size: DEFAULT_MAX_SIZE,
            max_sets: DEFAULT_MAX_SETS,
            repairs: true,
        }
    }
}

/// Which executions are bad.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Target {
    /// The final condition holds (`exists`, `~exists`: the outcome it names).
    Condition,
    /// The final condition fails (`forall`).
    Violation,
    /// An assertion fails (the program has assertions: they come first).
    Assertion,
    /// The execution is not linearizable against the `spec { }` block (a test with no
    /// condition: the specification is its check), among the SC executions, as `spec`
    /// decides it.
    Spec,
}

/// `first before second`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Ordering {
    pub first: Statement,
    pub second: Statement,
}

/// One combination of a critical set's orderings, each kept or forbidden, and what the
/// executions with that combination reach (FGVT's labelled interleavings).
#[derive(Clone, Debug, Serialize)]
pub struct Flip {
    /// Per ordering of the set: it holds (`true`) or is forbidden (`false`).
    pub holds: Vec<bool>,
    /// A bad execution with this combination, if any.
    pub bad: Option<Execution>,
    /// A good execution with this combination, if any (looked for when none is bad).
    pub good: Option<Execution>,
}

/// A minimal critical set.
#[derive(Clone, Debug, Serialize)]
pub struct CriticalSet {
    pub orderings: Vec<Ordering>,
    /// The location each ordering is about.
    pub locations: Vec<String>,
    /// A bad execution in which the set's orderings hold (as many as one can).
    pub witness: Execution,
    /// Per ordering, the two events that order it in the witness, when it holds there.
    pub marked: Vec<Option<(EventId, EventId)>>,
    /// Every combination of the orderings, the bad one first; empty beyond
    /// [`MAX_FLIPPED`] orderings.
    pub flips: Vec<Flip>,
    /// Fixes checked on the rewritten program.
    pub repairs: Vec<repair::Repair>,
}

impl CriticalSet {
    /// The pairs of the set's orderings (indices) that are the two orders of one pair of
    /// statements: forbidding both removes every execution in which both run, so such a
    /// set says "do not run both", not which of two racing orders is bad.
    pub fn both_orders(&self) -> Vec<(usize, usize)> {
        let o = &self.orderings;
        (0..o.len())
            .flat_map(|i| (i + 1..o.len()).map(move |j| (i, j)))
            .filter(|&(i, j)| o[i].first == o[j].second && o[i].second == o[j].first)
            .collect()
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Localization {
    pub target: Target,
    /// A bad execution; `None` when there is none and nothing to localize.
    pub bad: Option<Execution>,
    /// The orderings of the program (statement pairs in either order).
    pub orderings: usize,
    /// Minimal critical sets, smallest first.
    pub sets: Vec<CriticalSet>,
    /// Every minimal critical set of at most `max_size` orderings is listed.
    pub complete: bool,
    pub max_size: usize,
    /// Some bad execution has no ordering between threads at all: forbidding orderings
    /// cannot remove it.
    pub unavoidable: bool,
    pub bound_hit: bool,
    /// Fixes were looked for.
    pub repairs_searched: bool,
    /// Fixes of the whole program rather than of one set (stronger memory orders).
    pub repairs: Vec<repair::Repair>,
}

/// Two events ordering a pair of statements, with the literal of their order.
type Instance = (EventId, EventId, Bool);

/// One ordering's literals: `holds` is true when it holds, `forbid`, assumed, forbids it.
struct Fact {
    ordering: Ordering,
    location: String,
    instances: Vec<Instance>,
    holds: Bool,
    forbid: Bool,
}

impl Session<'_> {
    /// Which executions are bad for this test: failed assertions when it has any that can
    /// fail, else its condition's outcome (`exists`, `~exists`) or violation (`forall`),
    /// else, without a condition, the executions its `spec { }` block finds not
    /// linearizable, else those where one of its assertions fails (none, then). A test
    /// with none of these checks has nothing to localize.
    pub(crate) fn localize_target(&mut self) -> Result<(Target, Bool), AnalysisError> {
        if !self.encoding.assertion_failures.is_empty() && self.assertion_failure()?.is_some() {
            return Ok((Target::Assertion, self.some_assertion_fails()));
        }
        let program = self.encoding.program;
        if let Some(condition) = &program.condition {
            let forall = condition.quantifier == Quantifier::Forall;
            let condition = self.condition();
            return Ok(if forall {
                (Target::Violation, !condition)
            } else {
                (Target::Condition, condition)
            });
        }
        if program.spec.is_some() {
            let violation = self
                .encode_spec(SpecMode::Linearizable)?
                .map_or(Bool::FALSE, |spec| spec.violation);
            return Ok((Target::Spec, violation));
        }
        let events = self.encoding.events;
        // Address checks are the program's accesses, not checks its author wrote.
        let written_assertion = self
            .encoding
            .assertion_failures
            .iter()
            .any(|(e, _)| !events.access_checks.contains_key(e));
        if written_assertion {
            return Ok((Target::Assertion, self.some_assertion_fails()));
        }
        Err(AnalysisError::NothingToLocalize {
            test: program.name.clone(),
        })
    }

    /// The orderings between conflicting statements of different threads, with their
    /// literals; those that can never hold are left out.
    fn ordering_facts(&mut self) -> Vec<Fact> {
        let program = self.encoding.program;
        let events = self.encoding.events;
        let accesses: Vec<EventId> = (0..events.len())
            .filter(|&e| is_data_access(program, events, e))
            .collect();
        let mut by_statement: BTreeMap<Ordering, (String, Vec<Instance>)> = BTreeMap::new();
        for &a in &accesses {
            for &b in &accesses {
                let (ea, eb) = (&events.events[a], &events.events[b]);
                if ea.thread == eb.thread
                    || ea.location != eb.location
                    || !(ea.is_write() || eb.is_write())
                {
                    continue;
                }
                let before = self.access_before(a, b);
                if before.is_false() {
                    continue;
                }
                let ordering = Ordering {
                    first: Statement::of(events, a),
                    second: Statement::of(events, b),
                };
                let location = ea
                    .location
                    .map(|l| program.locations[l].name.clone())
                    .unwrap_or_default();
                by_statement
                    .entry(ordering)
                    .or_insert_with(|| (location, Vec::new()))
                    .1
                    .push((a, b, before));
            }
        }
        let mut facts = Vec::new();
        for (ordering, (location, instances)) in by_statement {
            let lits: Vec<Bool> = instances.iter().map(|i| i.2).collect();
            let holds = self.solver.or(&lits);
            let forbid = Bool::Lit(self.solver.new_lit());
            for &(_, _, before) in &instances {
                self.solver.clause(&[!forbid, !before]);
            }
            facts.push(Fact {
                ordering,
                location,
                instances,
                holds,
                forbid,
            });
        }
        facts
    }

    /// The literal of "`a` comes before `b`" for conflicting accesses of one location.
    fn access_before(&mut self, a: EventId, b: EventId) -> Bool {
        let events = self.encoding.events;
        let (wa, wb) = (events.events[a].is_write(), events.events[b].is_write());
        let (fa, fb) = (self.encoding.feasible[a], self.encoding.feasible[b]);
        match (wa, wb) {
            (true, true) => self.encoding.co.get(a, b),
            (true, false) => {
                let fr = self.encoding.fr.get(b, a);
                self.solver.and(&[fa, fb, !fr])
            }
            (false, _) => self.encoding.fr.get(a, b),
        }
    }

    /// The minimal critical sets of the test's failing check, smallest first.
    pub fn localize(&mut self, settings: LocalizeSettings) -> Result<Localization, AnalysisError> {
        let bound_hit = self.bound_reachable()?;
        let (target, bad_lit) = self.localize_target()?;
        let base = [self.within_bound, bad_lit];
        let facts = self.ordering_facts();
        let mut result = Localization {
            target,
            bad: None,
            orderings: facts.len(),
            sets: Vec::new(),
            complete: true,
            max_size: settings.max_size,
            unavoidable: false,
            bound_hit,
            repairs_searched: false,
            repairs: Vec::new(),
        };
        let Some(first) = self.find(&base)? else {
            return Ok(result);
        };
        result.bad = Some(first);
        let mut to_hit: BTreeSet<BTreeSet<usize>> = BTreeSet::new();
        to_hit.insert(self.holding(&facts));
        let mut found: Vec<BTreeSet<usize>> = Vec::new();
        let mut vacuous: Vec<BTreeSet<usize>> = Vec::new();
        loop {
            let skipped: Vec<BTreeSet<usize>> = found.iter().chain(&vacuous).cloned().collect();
            let Some(candidate) = smallest_hitting_set(&to_hit, &skipped, settings.max_size) else {
                break;
            };
            if found.len() >= settings.max_sets {
                result.complete = false;
                break;
            }
            let forbid: Vec<Bool> = candidate.iter().map(|&f| facts[f].forbid).collect();
            let mut assumptions = base.to_vec();
            assumptions.extend_from_slice(&forbid);
            if self.find(&assumptions)?.is_some() {
                to_hit.insert(self.holding(&facts));
                continue;
            }
            // A set that removes every execution, good ones too, is no schedule: it and
            // its supersets are skipped, not reported.
            let mut any = vec![self.within_bound];
            any.extend_from_slice(&forbid);
            if self.find(&any)?.is_none() {
                vacuous.push(candidate);
            } else {
                found.push(candidate);
            }
        }
        result.unavoidable = to_hit.iter().any(BTreeSet::is_empty);
        for set in found {
            let set: Vec<usize> = set.into_iter().collect();
            result.sets.push(self.critical_set(&facts, &set, base)?);
        }
        Ok(result)
    }

    /// The orderings that hold in the solver's last model.
    fn holding(&self, facts: &[Fact]) -> BTreeSet<usize> {
        (0..facts.len())
            .filter(|&f| self.solver.value_of(facts[f].holds))
            .collect()
    }

    fn critical_set(
        &mut self,
        facts: &[Fact],
        set: &[usize],
        base: [Bool; 2],
    ) -> Result<CriticalSet, AnalysisError> {
        // A bad execution with every ordering of the set, else one with all but the first
        // forbidden (which exists: the set is minimal).
        let mut all = base.to_vec();
        all.extend(set.iter().map(|&f| facts[f].holds));
        let witness = match self.find(&all)? {
            Some(w) => w,
            None => {
                let mut rest = base.to_vec();
                rest.extend(set.iter().skip(1).map(|&f| facts[f].forbid));
                self.find(&rest)?
                    .ok_or_else(|| AnalysisError::InvalidWitness {
                        what: "a minimal critical set whose subsets leave no bad execution".into(),
                    })?
            }
        };
        let marked = set
            .iter()
            .map(|&f| {
                facts[f]
                    .instances
                    .iter()
                    .find(|i| witness_orders(&witness, i.0, i.1))
                    .map(|i| (i.0, i.1))
            })
            .collect();
        let mut flips = Vec::new();
        if set.len() <= MAX_FLIPPED {
            for mask in 0..(1usize << set.len()) {
                let holds: Vec<bool> = (0..set.len()).map(|i| mask & (1 << i) == 0).collect();
                let mut pins = vec![self.within_bound];
                for (i, &f) in set.iter().enumerate() {
                    pins.push(if holds[i] {
                        facts[f].holds
                    } else {
                        facts[f].forbid
                    });
                }
                let mut bad_pins = pins.clone();
                bad_pins.push(base[1]);
                let bad = self.find(&bad_pins)?;
                // With no bad execution under these pins, every execution under them is
                // good (a specification's literal is one-way: its negation says nothing).
                let good = if bad.is_none() {
                    self.find(&pins)?
                } else {
                    None
                };
                flips.push(Flip { holds, bad, good });
            }
        }
        Ok(CriticalSet {
            orderings: set.iter().map(|&f| facts[f].ordering).collect(),
            locations: set.iter().map(|&f| facts[f].location.clone()).collect(),
            witness,
            marked,
            flips,
            repairs: Vec::new(),
        })
    }
}

/// `a` comes before `b` in the decoded execution (both executed, same location): by
/// coherence for two writes, by what the read reads otherwise.
fn witness_orders(execution: &Execution, a: EventId, b: EventId) -> bool {
    if !execution.feasible[a] || !execution.feasible[b] {
        return false;
    }
    let co_place = |w: EventId| {
        execution
            .co
            .iter()
            .find_map(|chain| chain.iter().position(|&x| x == w))
    };
    let source = |r: EventId| execution.rf.iter().find(|p| p.1 == r).map(|p| p.0);
    match (co_place(a), co_place(b)) {
        (Some(x), Some(y)) => x < y,
        // a writes, b reads: b reads a or a later write.
        (Some(x), None) => source(b).and_then(co_place).is_some_and(|s| s >= x),
        // a reads, b writes: a reads a write before b.
        (None, Some(y)) => source(a).and_then(co_place).is_some_and(|s| s < y),
        (None, None) => false,
    }
}

/// The smallest set of at most `max` elements that meets every set of `to_hit` and
/// contains none of `found`; the first in lexicographic order among the smallest.
pub fn smallest_hitting_set(
    to_hit: &BTreeSet<BTreeSet<usize>>,
    found: &[BTreeSet<usize>],
    max: usize,
) -> Option<BTreeSet<usize>> {
    if to_hit.iter().any(BTreeSet::is_empty) {
        return None;
    }
    let universe: Vec<usize> = to_hit
        .iter()
        .flatten()
        .copied()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    (1..=max).find_map(|size| hitting_of_size(to_hit, found, &universe, size))
}

/// A hitting set of exactly `size` elements of `universe` (which holds every element of the
/// sets to hit), by increasing lexicographic order: choose elements in increasing order,
/// and give up a prefix when some set can no longer be hit by the elements left.
fn hitting_of_size(
    to_hit: &BTreeSet<BTreeSet<usize>>,
    found: &[BTreeSet<usize>],
    universe: &[usize],
    size: usize,
) -> Option<BTreeSet<usize>> {
    fn go(
        to_hit: &BTreeSet<BTreeSet<usize>>,
        found: &[BTreeSet<usize>],
        universe: &[usize],
        size: usize,
        start: usize,
        chosen: &mut Vec<usize>,
    ) -> Option<BTreeSet<usize>> {
        let set: BTreeSet<usize> = chosen.iter().copied().collect();
        if found.iter().any(|f| f.is_subset(&set)) {
            return None;
        }
        // A set not hit yet must be hit by an element chosen later, greater than the last.
        let last = chosen.last().copied();
        let unhit: Vec<&BTreeSet<usize>> = to_hit.iter().filter(|s| s.is_disjoint(&set)).collect();
        if chosen.len() == size {
            return unhit.is_empty().then_some(set);
        }
        if unhit
            .iter()
            .any(|s| s.iter().all(|&e| last.is_some_and(|l| e <= l)))
        {
            return None;
        }
        for i in start..universe.len() {
            if universe.len() - i < size - chosen.len() {
                break;
            }
            chosen.push(universe[i]);
            if let Some(h) = go(to_hit, found, universe, size, i + 1, chosen) {
                return Some(h);
            }
            chosen.pop();
        }
        None
    }
    go(to_hit, found, universe, size, 0, &mut Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sets(s: &[&[usize]]) -> BTreeSet<BTreeSet<usize>> {
        s.iter().map(|x| x.iter().copied().collect()).collect()
    }

    #[test]
    fn the_smallest_hitting_set_comes_first_and_found_sets_are_skipped() {
        let to_hit = sets(&[&[1, 2], &[2, 3], &[4]]);
        let h = smallest_hitting_set(&to_hit, &[], 3);
        assert_eq!(h, Some([2, 4].into_iter().collect()));
        let found = vec![[2, 4].into_iter().collect()];
        let h = smallest_hitting_set(&to_hit, &found, 3);
        assert_eq!(h, Some([1, 3, 4].into_iter().collect()));
        assert_eq!(smallest_hitting_set(&to_hit, &found, 2), None);
        assert_eq!(smallest_hitting_set(&sets(&[&[]]), &[], 3), None);
    }
}
