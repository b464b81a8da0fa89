//! Polarity of the `let rec` groups in a model's checks, and the copy of the model whose
//! checks read one-sided copies of the groups they use positively only.
//!
//! A check `acyclic e`, `irreflexive e` or `empty e` fails more as `e` grows, and every
//! operator but the right operand of `\` (`~S` is written as one) is monotone. When a
//! monotone group is read by the checks only positively, "some value `V` with
//! `body(V) ⊆ V` satisfies the checks" holds exactly when its least fixed point does
//! (docs/encoding.md, "One-sided fixed points"): the encoding then needs one copy of the
//! body instead of the rounds of herd's iteration. Flags (and `race`) keep the exact group.

// FxHash: the keys are small integers, and the walk runs for every test.
use std::sync::Arc;

use rustc_hash::FxHashSet as HashSet;

use super::ast::BinOp;
use super::check::{Model, RecGroup, TExpr};

impl Model {
    /// The groups a one-sided encoding serves: monotone, no definitions made inside their
    /// bodies, and read by some check (not flag), always positively.
    fn positive_groups(&self) -> Vec<usize> {
        let mut occurrences: HashSet<(usize, bool)> = HashSet::default();
        let mut seen: HashSet<(usize, bool)> = HashSet::default();
        let mut group_of = vec![None; self.defs.len()];
        for (g, group) in self.rec_groups.iter().enumerate() {
            for &m in &group.members {
                if let Some(slot) = group_of.get_mut(m) {
                    *slot = Some(g);
                }
            }
        }
        let walk = Polarities {
            model: self,
            group_of: &group_of,
        };
        for check in self.checks.iter().filter(|c| !c.flag) {
            walk.polarities(&check.expr, check.negated, &mut seen, &mut occurrences);
        }
        (0..self.rec_groups.len())
            .filter(|&g| {
                let group = &self.rec_groups[g];
                group.inner.is_empty()
                    && self.rec_group_monotone(group)
                    && occurrences.contains(&(g, false))
                    && !occurrences.contains(&(g, true))
            })
            .collect()
    }

    /// The model whose checks read one-sided copies ([`RecGroup::one_sided`]) of the groups
    /// they use positively only, with a copy of every definition built on them; flags and
    /// every definition keep their index and meaning, copies come after them. `None` when
    /// no group qualifies, or when a definition built on one belongs to another group
    /// (whose iteration might not be monotone in it).
    pub fn one_sided(&self) -> Option<Model> {
        let positive = self.positive_groups();
        if positive.is_empty() {
            return None;
        }
        let n = self.defs.len();
        let mut dependent = vec![false; n];
        for &g in &positive {
            for &m in &self.rec_groups[g].members {
                if let Some(d) = dependent.get_mut(m) {
                    *d = true;
                }
            }
        }
        // A definition reads earlier ones only (a group's members also each other, and
        // they are all marked already), so one pass in order finds every dependent one.
        for id in 0..n {
            if !dependent[id] && reads(&self.defs[id].1, &dependent) {
                dependent[id] = true;
            }
        }
        for (g, group) in self.rec_groups.iter().enumerate() {
            let mut copied = group.members.iter().copied().chain(group.inner.clone());
            if !positive.contains(&g) && copied.any(|m| dependent.get(m).copied().unwrap_or(false))
            {
                return None;
            }
        }
        let mut copy_of = vec![None; n];
        let mut next = n;
        for (id, slot) in copy_of.iter_mut().enumerate() {
            if dependent[id] {
                *slot = Some(next);
                next += 1;
            }
        }
        let mut model = self.clone();
        for id in (0..n).filter(|&id| dependent[id]) {
            let (name, body, ty) = &self.defs[id];
            model
                .defs
                .push((name.clone(), Arc::new(rename(body, &copy_of)), *ty));
        }
        for check in model.checks.iter_mut().filter(|c| !c.flag) {
            check.expr = rename(&check.expr, &copy_of);
        }
        for &g in &positive {
            let members = self.rec_groups[g]
                .members
                .iter()
                .filter_map(|&m| copy_of[m])
                .collect();
            model.rec_groups.push(RecGroup {
                members,
                inner: 0..0,
                one_sided: true,
            });
        }
        Some(model)
    }
}

/// `e` reads a definition marked in `marked`.
fn reads(e: &TExpr, marked: &[bool]) -> bool {
    match e {
        TExpr::Def(id) => marked.get(*id).copied().unwrap_or(false),
        TExpr::Binary(_, a, b) => reads(a, marked) || reads(b, marked),
        TExpr::Unary(_, a) | TExpr::Domain(a) | TExpr::Range(a) | TExpr::DifferentValues(a) => {
            reads(a, marked)
        }
        TExpr::Base(_) | TExpr::Empty(_) => false,
    }
}

/// `e` with every definition that has a copy replaced by it.
fn rename(e: &TExpr, copy_of: &[Option<usize>]) -> TExpr {
    let go = |x: &TExpr| Box::new(rename(x, copy_of));
    match e {
        TExpr::Def(id) => TExpr::Def(copy_of.get(*id).copied().flatten().unwrap_or(*id)),
        TExpr::Binary(op, a, b) => TExpr::Binary(*op, go(a), go(b)),
        TExpr::Unary(op, a) => TExpr::Unary(*op, go(a)),
        TExpr::Domain(a) => TExpr::Domain(go(a)),
        TExpr::Range(a) => TExpr::Range(go(a)),
        TExpr::DifferentValues(a) => TExpr::DifferentValues(go(a)),
        TExpr::Base(_) | TExpr::Empty(_) => e.clone(),
    }
}

/// The walk of [`Model::positive_groups`]: the model, and per definition its `let rec`
/// group (looked up at every definition the checks read).
struct Polarities<'m> {
    model: &'m Model,
    group_of: &'m [Option<usize>],
}

impl Polarities<'_> {
    /// Record `(group, negative)` for every member of a group `e` reads, looked through
    /// definitions; `negative`: under an odd number of right operands of `\`.
    fn polarities(
        &self,
        e: &TExpr,
        negative: bool,
        seen: &mut HashSet<(usize, bool)>,
        out: &mut HashSet<(usize, bool)>,
    ) {
        match e {
            TExpr::Def(id) => {
                if let Some(&Some(g)) = self.group_of.get(*id) {
                    out.insert((g, negative));
                }
                if seen.insert((*id, negative)) {
                    if let Some((_, body, _)) = self.model.defs.get(*id) {
                        self.polarities(body, negative, seen, out);
                    }
                }
            }
            TExpr::Binary(BinOp::Diff, a, b) => {
                self.polarities(a, negative, seen, out);
                self.polarities(b, !negative, seen, out);
            }
            TExpr::Binary(_, a, b) => {
                self.polarities(a, negative, seen, out);
                self.polarities(b, negative, seen, out);
            }
            TExpr::Unary(_, a) | TExpr::Domain(a) | TExpr::Range(a) | TExpr::DifferentValues(a) => {
                self.polarities(a, negative, seen, out)
            }
            TExpr::Base(_) | TExpr::Empty(_) => {}
        }
    }
}
