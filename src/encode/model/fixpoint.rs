//! Recursive definitions (`let rec`): least fixed points, symbolically.

use std::collections::HashSet;
use std::rc::Rc;

use super::{Compiler, Ub, Val};
use crate::cat::{TExpr, Type};
use crate::encode::cnf::{Bool, ClauseSink, Gates};
use crate::encode::relation::Relation;
use crate::events::EventId;

impl Compiler<'_, '_> {
    /// The least fixed point of a `let rec` group, by herd's iteration from the empty
    /// values, symbolically: round `k` holds, in every execution, the `k`-th iterate herd
    /// computes. A round evaluates the members in the order they are written, each seeing
    /// the values the members before it got in this round (herd's `fix_step`: the kernel
    /// bell's `matched` depends on it, since `unmatched-po` must see this round's
    /// `unmatched`). Iteration stops when a round gives literally the same literals as the
    /// one before (then every execution has reached its fixed point), or after
    /// `(P + 1) * (n + 1)` rounds, `P` the pairs (elements) any round has made possible and
    /// `n` the group's size; a monotone group (no member under a difference's right
    /// operand) stops after `P + 1`. Why that is exact is in ARCHITECTURE.md
    /// (`src/encode/`, "let rec"). The witness evaluator computes the true fixed point on
    /// each witness and checks it.
    pub(super) fn fixpoint<S: ClauseSink>(&mut self, sink: &mut S, g: usize) {
        let model = self.model;
        let Some(group) = model.rec_groups.get(g) else {
            return;
        };
        let n = self.enc.events.len();
        let empty = |ty: Option<Type>| match ty {
            Some(Type::Set) => Val::Set(vec![Bool::FALSE; n]),
            _ => Val::Rel(Relation::new()),
        };
        for &m in &group.members {
            let v = Rc::new(empty(model.defs.get(m).and_then(|d| d.2)));
            self.defs[m] = Some((v, None));
        }
        if group.one_sided {
            self.pre_fixpoint(sink, g);
            return;
        }
        let monotone = model.rec_group_monotone(group);
        let mut support: HashSet<(usize, EventId, EventId)> = HashSet::new();
        let mut round = 0usize;
        loop {
            let mut stable = true;
            for (i, &m) in group.members.iter().enumerate() {
                // Definitions made inside the bodies may read members changed since.
                for inner in group.inner.clone() {
                    if let Some(d) = self.defs.get_mut(inner) {
                        *d = None;
                    }
                }
                let body = match model.defs.get(m) {
                    Some((_, body, _)) => body,
                    None => &TExpr::Empty(Type::Rel),
                };
                // The members' own caches hold the current values: evaluate the body,
                // not the name.
                let next = self.eval(sink, body, None);
                match next.as_ref() {
                    Val::Set(s) => support.extend(
                        s.iter()
                            .enumerate()
                            .filter(|(_, l)| !l.is_false())
                            .map(|(e, _)| (i, e, e)),
                    ),
                    Val::Rel(r) => support.extend(
                        r.iter()
                            .filter(|(_, _, l)| !l.is_false())
                            .map(|(a, b, _)| (i, a, b)),
                    ),
                }
                if let Some(Some((current, _))) = self.defs.get(m) {
                    stable &= same_val(current, &next);
                }
                self.defs[m] = Some((next, None));
            }
            round += 1;
            let bound = if monotone {
                support.len() + 1
            } else {
                (support.len() + 1) * (group.members.len() + 1)
            };
            if stable || round >= bound {
                break;
            }
        }
    }

    /// A one-sided group ([`crate::cat::RecGroup::one_sided`]): each member a fresh
    /// literal per pair (element) of its static bound, required to contain its body
    /// evaluated once on them (`body(V) ⊆ V`). Its least fixed point is the least such
    /// value, and the checks that read it fail more as it grows, so they hold for some
    /// such value exactly when they hold for the least fixed point (ARCHITECTURE.md,
    /// `src/encode/`, "one-sided").
    fn pre_fixpoint<S: ClauseSink>(&mut self, sink: &mut S, g: usize) {
        let model = self.model;
        let Some(group) = model.rec_groups.get(g) else {
            return;
        };
        for &m in &group.members {
            let value = match self.ub(sink, &TExpr::Def(m)).as_ref() {
                Ub::Set(s) => Val::Set(
                    s.iter()
                        .map(|&p| {
                            if p {
                                Bool::Lit(sink.new_lit())
                            } else {
                                Bool::FALSE
                            }
                        })
                        .collect(),
                ),
                Ub::Rel(bits) => {
                    let mut r = Relation::new();
                    for (a, b) in bits.iter() {
                        r.set(a, b, Bool::Lit(sink.new_lit()));
                    }
                    Val::Rel(r)
                }
            };
            self.defs[m] = Some((Rc::new(value), None));
        }
        for &m in &group.members {
            let (Some((_, body, _)), Some(Some((var, _)))) = (model.defs.get(m), self.defs.get(m))
            else {
                continue;
            };
            let var = var.clone();
            let value = self.eval(sink, body, None);
            match (value.as_ref(), var.as_ref()) {
                (Val::Set(x), Val::Set(v)) => {
                    for (&l, &w) in x.iter().zip(v) {
                        sink.implies(l, w);
                    }
                }
                (Val::Rel(x), Val::Rel(v)) => {
                    for (a, b, l) in x.iter() {
                        sink.implies(l, v.get(a, b));
                    }
                }
                // The checker types a member and its body alike.
                _ => {}
            }
        }
    }
}

pub(super) fn same_ub(a: &Ub, b: &Ub) -> bool {
    match (a, b) {
        (Ub::Set(x), Ub::Set(y)) => x == y,
        (Ub::Rel(x), Ub::Rel(y)) => x.is_subset(y) && y.is_subset(x),
        _ => false,
    }
}

/// The same literals (so the same value in every execution).
fn same_val(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Set(x), Val::Set(y)) => x == y,
        (Val::Rel(x), Val::Rel(y)) => {
            x.iter().all(|(p, q, l)| y.get(p, q) == l) && y.iter().all(|(p, q, l)| x.get(p, q) == l)
        }
        _ => false,
    }
}
