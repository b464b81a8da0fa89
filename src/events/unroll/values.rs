//! Value sets while unrolling: an access through a computed index or pointer is split
//! only into the cells its selector can denote.
//!
//! `Builder::at` splits `a[i]` into one case per cell of `a`; with large arrays reached
//! through values read from memory (GenMC's `free_lists[t][free_index[t]++]`, a cell per
//! thread and slot) that is thousands of cases per access, most of which no execution
//! takes. The static value sets of `bounds` would prune them, but they are computed from
//! the events, after unrolling. This module closes the circle with a fixpoint over
//! per-location value sets `V`: unroll with every read of location `l` assumed to return a
//! value of `V(l)` (cases whose key is outside the selector's set so evaluated are left
//! out, and the access check becomes "the selector is one of the kept keys"), compute
//! `bounds` on the result, and stop when every write's value set is within `V` of its
//! location; otherwise grow `V` and unroll again. `V` starts at the initial values.
//!
//! Why no execution is lost, in the models whose executions make `po | rf` acyclic (the
//! least fixpoint of `bounds`; SC, TSO, C11, RC11): at the fixpoint, take an execution of
//! the program unrolled without pruning and follow `po | rf` from the initial writes.
//! Every read returns the value of a write before it, which (by induction) is an event of
//! the pruned unrolling whose value `bounds` puts in `V` of its location; so every
//! selector evaluates within the set computed from `V`, its case is kept, and the
//! execution is one of the pruned unrolling. A model that allows values out of thin air
//! may give a selector a value that justifies itself outside the sets: such an access is
//! reported as an invalid access rather than followed, as `program::points_to` already
//! does for pointers.
//!
//! The fixpoint runs only when some access, or some chain of a lock at a computed address,
//! has more than [`PRUNE_FROM`] cells (small splits cost little, and litmus tests keep
//! their events as they were), and for at most [`MAX_ROUNDS`] unrollings, after which the
//! program is unrolled without pruning.
//!
//! A lock at a computed address is a chain of `if (selector == key)` cases
//! (`program::computed_lock`); a case whose key is outside the selector's set is made false
//! here ([`Builder::chain_case`]), so the chain keeps the cells the selector can denote, as
//! an access does. The argument above is the same, and a selector out of its set falls
//! through to the chain's invalid access, as an access's does.

use std::collections::{BTreeSet, HashMap};

use super::ThreadState;
use super::{Builder, UnrollError};
use crate::events::bounds::{binary_set, union};
use crate::events::{Events, Term, TermId};
use crate::program::arith::eval_unary;
use crate::program::computed_lock::{chain_length, tests_selector, SELECTOR};
use crate::program::{Expr, Instr, Program, RegId, ThreadProgram};

/// A set of values, `None` for any value.
pub(super) use crate::events::bounds::ValueSet;

/// Accesses with more cells than this are worth the fixpoint.
const PRUNE_FROM: usize = 16;
/// Unrollings tried before giving up on pruning.
const MAX_ROUNDS: usize = 8;

/// Whether some access of `program`, or some chain of a lock at a computed address, splits
/// into more than [`PRUNE_FROM`] cells.
pub(super) fn worth_pruning(program: &Program) -> bool {
    fn any(instrs: &[Instr], selector: Option<RegId>) -> bool {
        instrs.iter().any(|i| {
            i.address().is_some_and(|a| a.cells().len() > PRUNE_FROM)
                || selector.is_some_and(|s| chain_length(i, s) > PRUNE_FROM)
                || i.nested().iter().any(|block| any(block, selector))
        })
    }
    program
        .threads
        .iter()
        .any(|t| any(&t.body, selector_register(t)))
}

/// The register the cases of the thread's lock chains test, if it has any.
pub(super) fn selector_register(thread: &ThreadProgram) -> Option<RegId> {
    thread.registers.iter().position(|r| r.name == SELECTOR)
}

/// Unroll `program` through `once` (given the assumed value set of each location) until
/// the assumed sets hold every value written; `None` after [`MAX_ROUNDS`] rounds.
pub(super) fn fixpoint(
    program: &Program,
    mut once: impl FnMut(Vec<ValueSet>) -> Result<Events, UnrollError>,
) -> Result<Option<Events>, UnrollError> {
    let mut assumed: Vec<ValueSet> = program
        .locations
        .iter()
        .map(|l| Some(BTreeSet::from([l.initial])))
        .collect();
    for _ in 0..MAX_ROUNDS {
        let events = once(assumed.clone())?;
        let mut grown = false;
        for write in events.writes() {
            let (Some(loc), Some(term)) = (write.location, write.value) else {
                continue;
            };
            let Some(slot) = assumed.get_mut(loc) else {
                continue;
            };
            let written: ValueSet = events.bounds.values[term]
                .as_ref()
                .map(|v| v.iter().copied().collect());
            let next = union(slot.clone(), written);
            if next != *slot {
                *slot = next;
                grown = true;
            }
        }
        if !grown {
            return Ok(Some(events));
        }
    }
    Ok(None)
}

impl Builder {
    /// The values `term` may take when every read returns a value of its location's
    /// assumed set; `None` when not pruning or not known.
    pub(super) fn term_values(&mut self, term: TermId) -> ValueSet {
        self.assumed.as_ref()?;
        if let Some(known) = self.value_memo.get(&term) {
            return known.clone();
        }
        let result = match *self.terms.get(term) {
            Term::Const(v) => Some(BTreeSet::from([v])),
            Term::Read(e) => {
                let loc = self.events.get(e).and_then(|e| e.location);
                loc.and_then(|l| self.assumed.as_ref()?.get(l)?.clone())
            }
            Term::Unary(op, a) => {
                let a = self.term_values(a)?;
                Some(a.into_iter().map(|v| eval_unary(op, v)).collect())
            }
            Term::Binary(op, a, b) => {
                let (a, b) = (self.term_values(a), self.term_values(b));
                binary_set(op, a, b)
            }
            Term::Ite(c, a, b) => {
                let c = self.term_values(c);
                let (a, b) = (self.term_values(a), self.term_values(b));
                match c {
                    Some(c) if c.iter().all(|&v| v == 0) => b,
                    Some(c) if !c.contains(&0) => a,
                    _ => union(a, b),
                }
            }
        };
        self.value_memo.insert(term, result.clone());
        result
    }
}

impl Builder {
    /// The test `term` of `cond`, made false when `cond` is a case of a lock chain (it tests
    /// the thread's selector register) whose key the selector's value set excludes.
    pub(super) fn chain_case(&mut self, state: &ThreadState, cond: &Expr, term: TermId) -> TermId {
        let Some(selector) = state.selector else {
            return term;
        };
        if !tests_selector(cond, selector) {
            return term;
        }
        match self.term_values(term) {
            Some(values) if values.iter().all(|&v| v == 0) => self.terms.constant(0),
            _ => term,
        }
    }
}

/// Per term, memoised [`Builder::term_values`].
pub(super) type ValueMemo = HashMap<TermId, ValueSet>;
