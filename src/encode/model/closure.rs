//! `r+`, exactly, by eliminating intermediate nodes one at a time (Warshall's algorithm
//! over literals).
//!
//! After node `k` is eliminated, `c(i, j)` holds exactly when a path from `i` to `j` has all
//! its intermediate nodes among the nodes eliminated so far:
//! `c(i, j) := c(i, j) | (c(i, k) & c(k, j))`. Once every node that has both a predecessor
//! and a successor (other than itself) is eliminated, `c` is the closure, cycles (the
//! diagonal) included. Each path of two edges through `k` costs one gate, once, where
//! squaring (`c := c | c;c`, `log2(nodes)` rounds) pays for it in every round.
//!
//! Two choices keep it small, neither of which changes a literal's meaning:
//! - the node eliminated next is the one with the fewest paths through it (predecessors
//!   times successors, on the pairs the relation may hold so far), as in variable
//!   elimination: a node whose paths are few adds few new pairs;
//! - a pair is updated only while it can still be read: when it is asked for, or when one
//!   of its ends is still to be eliminated (a later step reads `c(i, k)` and `c(k, j)` only
//!   for the `k` it eliminates). Pairs between eliminated nodes that nobody asked for are
//!   never completed, and are left out of the result.

use std::collections::{BTreeMap, BTreeSet};

use super::Mask;
use crate::encode::cnf::{Bool, ClauseSink, Gates};
use crate::encode::relation::Relation;
use crate::events::EventId;

/// `r+` on the pairs `wanted` (all of them for `None`).
pub(super) fn closure<S: ClauseSink>(
    sink: &mut S,
    r: &Relation,
    wanted: Option<&Mask>,
) -> Relation {
    let mut succ: BTreeMap<EventId, BTreeMap<EventId, Bool>> = BTreeMap::new();
    let mut pred: BTreeMap<EventId, BTreeSet<EventId>> = BTreeMap::new();
    for (a, b, l) in r.iter() {
        succ.entry(a).or_default().insert(b, l);
        pred.entry(b).or_default().insert(a);
    }
    let others = |set: usize, has_self: bool| set - usize::from(has_self);
    let outs = |succ: &BTreeMap<EventId, BTreeMap<EventId, Bool>>, k: EventId| {
        succ.get(&k)
            .map_or(0, |s| others(s.len(), s.contains_key(&k)))
    };
    let ins = |pred: &BTreeMap<EventId, BTreeSet<EventId>>, k: EventId| {
        pred.get(&k).map_or(0, |p| others(p.len(), p.contains(&k)))
    };
    // A node without a predecessor (or a successor) other than itself never gains one:
    // a new pair `(i, j)` needs `(k, j)` (and `(i, k)`) already there.
    let mut remaining: BTreeSet<EventId> = succ
        .keys()
        .copied()
        .filter(|&k| ins(&pred, k) > 0 && outs(&succ, k) > 0)
        .collect();
    while let Some(k) = remaining
        .iter()
        .copied()
        .min_by_key(|&k| (ins(&pred, k) * outs(&succ, k), k))
    {
        remaining.remove(&k);
        let into: Vec<(EventId, Bool)> = pred
            .get(&k)
            .into_iter()
            .flatten()
            .filter(|&&i| i != k)
            .map(|&i| (i, succ[&i][&k]))
            .collect();
        let from: Vec<(EventId, Bool)> = succ
            .get(&k)
            .into_iter()
            .flatten()
            .filter(|&(&j, _)| j != k)
            .map(|(&j, &l)| (j, l))
            .collect();
        for &(i, li) in &into {
            for &(j, lj) in &from {
                let read_later = remaining.contains(&i) || remaining.contains(&j);
                if !read_later && !wanted.is_none_or(|w| w.get(i, j)) {
                    continue;
                }
                let via = sink.and2(li, lj);
                if via.is_false() {
                    continue;
                }
                let row = succ.entry(i).or_default();
                let old = row.get(&j).copied().unwrap_or(Bool::FALSE);
                let new = sink.or2(old, via);
                row.insert(j, new);
                pred.entry(j).or_default().insert(i);
            }
        }
    }
    let mut out = Relation::new();
    for (&a, row) in &succ {
        for (&b, &l) in row {
            if wanted.is_none_or(|w| w.get(a, b)) {
                out.set(a, b, l);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::bits::Bits;
    use crate::encode::cnf::Lit;
    use crate::solver::{SolveOutcome, Solver, VarisatSolver};

    /// A small linear congruential generator: the same relations on every run.
    struct Lcg(u64);
    impl Lcg {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
    }

    /// On random relations of literals and constants, with and without a mask, every
    /// wanted pair of the closure is true exactly when the explicit closure of the pairs
    /// chosen true holds it, under random choices of the inputs.
    #[test]
    fn closure_is_the_explicit_closure_under_every_choice() {
        let mut rng = Lcg(7);
        for round in 0..40 {
            let n = 3 + rng.below(6) as usize;
            let mut solver = VarisatSolver::new();
            let mut r = Relation::new();
            let mut inputs: Vec<(usize, usize, Lit)> = Vec::new();
            for a in 0..n {
                for b in 0..n {
                    match rng.below(6) {
                        0 => r.set(a, b, Bool::TRUE),
                        1 | 2 => {
                            let l = solver.new_lit();
                            r.set(a, b, Bool::Lit(l));
                            inputs.push((a, b, l));
                        }
                        _ => {}
                    }
                }
            }
            let wanted = (round % 2 == 0).then(|| {
                let mut w = Bits::new(n);
                for a in 0..n {
                    for b in 0..n {
                        if rng.below(3) == 0 {
                            w.set(a, b);
                        }
                    }
                }
                w
            });
            let c = closure(&mut solver, &r, wanted.as_ref());
            for _ in 0..8 {
                let mut chosen = Bits::new(n);
                let mut assumptions = Vec::new();
                for (a, b, l) in r.iter() {
                    if l == Bool::TRUE {
                        chosen.set(a, b);
                    }
                }
                for &(a, b, l) in &inputs {
                    if rng.below(2) == 0 {
                        chosen.set(a, b);
                        assumptions.push(l);
                    } else {
                        assumptions.push(!l);
                    }
                }
                let outcome = solver.solve(&assumptions).expect("solves");
                assert!(matches!(outcome, SolveOutcome::Sat));
                let explicit = chosen.closure();
                for a in 0..n {
                    for b in 0..n {
                        if wanted.as_ref().is_some_and(|w| !w.get(a, b)) {
                            assert!(c.get(a, b).is_false(), "({a}, {b}) was not asked for");
                            continue;
                        }
                        assert_eq!(
                            solver.value_of(c.get(a, b)),
                            explicit.get(a, b),
                            "round {round}: pair ({a}, {b})"
                        );
                    }
                }
            }
        }
    }
}
