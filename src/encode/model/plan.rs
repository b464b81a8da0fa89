//! Demand: the static upper bounds of every definition and the pairs each check reads,
//! pushed down through the operators.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

use super::fixpoint::same_ub;
use super::{Chains, Compiler, Mask, Ub, Val};
use crate::cat::ast::{BinOp, CheckKind, UnOp};
use crate::cat::{Base, Model, TExpr, Type};
use crate::encode::bits::{closure_needs, compose_needs, on_cycles, Bits};
use crate::encode::cnf::{Bool, ClauseSink, Gates};
use crate::encode::relation::Relation;
use crate::events::EventId;

/// A relation's bound, or `empty` for a set's (as [`Compiler::ub_rel`] reads it).
fn rel_or<'a>(u: &'a Ub, empty: &'a Bits) -> &'a Bits {
    match u {
        Ub::Rel(r) => r,
        Ub::Set(_) => empty,
    }
}

/// Demand: which pairs of each relation the checks can look at.
///
/// Before any literal is built, every definition gets a static upper bound (`ub`, the pairs
/// it may hold), and the pairs the model's checks, flags and `extra` (wholly) can read are
/// pushed down from them through the operators and into the definitions (`want`): an
/// `acyclic` check reads the pairs of its relation that can lie on a cycle, `irreflexive` the
/// diagonal, a composition `a ; b` the pairs of `a` and `b` that meet in a wanted pair, a
/// closure the pairs on a path between the ends of a wanted pair. Each value is then built
/// on its wanted pairs only, exactly: the literals of those pairs are the same as in the
/// whole relation, and nothing reads the others. Under rc11 this is what keeps `scb` out of
/// an instance without seq_cst events, and `hb` to the pairs `eco`, `race` and `psc` read.
impl<'e> Compiler<'e, '_> {
    pub(super) fn plan<S: ClauseSink>(&mut self, sink: &mut S, extra: Option<usize>) {
        let model = self.model;
        for check in &model.checks {
            let closure_of = match &check.expr {
                TExpr::Unary(UnOp::Plus, inner) => Some(&**inner),
                _ => None,
            };
            match (check.kind, check.negated, check.flag, closure_of) {
                (CheckKind::Acyclic, false, false, inner)
                | (CheckKind::Irreflexive, false, false, inner @ Some(_)) => {
                    let e = inner.unwrap_or(&check.expr);
                    let (_, rest, mask) = self.acyclic_plan(sink, e);
                    if let Some(rest) = rest {
                        self.want(sink, &rest, Some(&mask));
                    }
                }
                _ => {
                    let mask = self.members_mask(sink, check.kind, &check.expr);
                    self.want(sink, &check.expr, mask.as_ref());
                }
            }
        }
        if let Some(id) = extra {
            self.want(sink, &TExpr::Def(id), None);
        }
        // A definition is used only by later ones and by the checks, so in reverse order
        // each one's wanted pairs are complete when it is reached.
        for id in (0..model.defs.len()).rev() {
            let Some(wanted) = self.wanted[id].clone() else {
                continue;
            };
            let Some((_, body, _)) = model.defs.get(id) else {
                continue;
            };
            match self.ub(sink, body).as_ref() {
                Ub::Rel(_) => self.want(sink, body, Some(&wanted)),
                Ub::Set(_) => self.want(sink, body, None),
            }
        }
    }

    /// For an acyclicity check of `e`: its program-order chains, what is left of `e`
    /// without them, and the pairs of that that may lie on a cycle of `e`.
    pub(super) fn acyclic_plan<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        e: &TExpr,
    ) -> (Chains, Option<TExpr>, Mask) {
        let chains = if self.contains_base(e, Base::Po) {
            Chains::Po
        } else if self.contains_base(e, Base::PoLoc) {
            Chains::PoLoc
        } else {
            Chains::None
        };
        // The chains replace the program-order edges: they are not built at all
        // (program order alone has a quadratic number of pairs).
        let strip: &[Base] = match chains {
            Chains::None => &[],
            Chains::Po => &[Base::Po, Base::PoLoc],
            Chains::PoLoc => &[Base::PoLoc],
        };
        let rest = self.strip_union(e, strip);
        let mask = on_cycles(&self.ub_rel(sink, e));
        (chains, rest, mask)
    }

    /// The pairs `members` reads: all of them for `empty`, the diagonal for `irreflexive`.
    pub(super) fn members_mask<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        kind: CheckKind,
        expr: &TExpr,
    ) -> Option<Mask> {
        match (kind, self.ub(sink, expr).as_ref()) {
            (CheckKind::Empty, _) | (_, Ub::Set(_)) => None,
            (_, Ub::Rel(r)) => Some(r.diagonal()),
        }
    }

    /// Record that the pairs `mask` of `e` are read (`None`: all of them).
    fn want<S: ClauseSink>(&mut self, sink: &mut S, e: &TExpr, mask: Option<&Mask>) {
        // No pair asked for: nothing below is read through here (a definition's wanted
        // pairs would only grow by none, and `eval` builds nothing for an empty mask).
        if mask.is_some_and(Bits::is_empty) {
            return;
        }
        match e {
            TExpr::Base(_) | TExpr::Empty(_) => {}
            TExpr::Def(id) => {
                let id = *id;
                let n = self.enc.events.len();
                let add = match self.ub(sink, e).as_ref() {
                    Ub::Rel(ub) => match mask {
                        Some(m) => m.intersection(ub),
                        None => ub.clone(),
                    },
                    Ub::Set(_) => Bits::new(n),
                };
                match &mut self.wanted[id] {
                    Some(w) => w.union_with(&add),
                    slot @ None => *slot = Some(add),
                }
            }
            TExpr::Domain(r) | TExpr::Range(r) => self.want(sink, r, None),
            TExpr::DifferentValues(r) => self.want(sink, r, mask),
            TExpr::Unary(op, inner) => match op {
                UnOp::Identity => self.want(sink, inner, None),
                UnOp::Inverse => {
                    let flipped = mask.map(Bits::transpose);
                    self.want(sink, inner, flipped.as_ref());
                }
                UnOp::Opt => self.want(sink, inner, mask),
                UnOp::Plus | UnOp::Star => {
                    let needed = self.closure_mask(sink, e, inner, mask);
                    // As `closure_of` evaluates it: without its program order, which
                    // costs nothing there, so that `sb` is not asked for the pairs of
                    // every path of `hb`.
                    match self.closure_operand(inner) {
                        Some(rest) => self.want(sink, &rest, Some(&needed)),
                        None => self.want(sink, inner, Some(&needed)),
                    }
                }
            },
            TExpr::Binary(op, a, b) => match op {
                BinOp::Union => {
                    self.want(sink, a, mask);
                    self.want(sink, b, mask);
                }
                BinOp::Inter | BinOp::Diff => {
                    let ua = self.ub(sink, a);
                    let Ub::Rel(ua) = ua.as_ref() else {
                        self.want(sink, a, None);
                        self.want(sink, b, None);
                        return;
                    };
                    let mut first = match mask {
                        Some(m) => m.intersection(ua),
                        None => ua.clone(),
                    };
                    if *op == BinOp::Diff {
                        self.without_sure(sink, &mut first, b);
                    }
                    if first.is_empty() {
                        // Neither operand is read.
                        return;
                    }
                    let empty = Bits::new(self.enc.events.len());
                    if *op == BinOp::Inter {
                        first.intersect_with(rel_or(&self.ub(sink, b), &empty));
                    }
                    self.want(sink, a, Some(&first));
                    if *op == BinOp::Diff {
                        first.intersect_with(rel_or(&self.ub(sink, b), &empty));
                    }
                    self.want(sink, b, Some(&first));
                }
                BinOp::Seq => {
                    let (na, nb) = self.compose_masks(sink, a, b, mask);
                    self.want(sink, a, Some(&na));
                    self.want(sink, b, Some(&nb));
                }
                BinOp::Product => {
                    self.want(sink, a, None);
                    self.want(sink, b, None);
                }
            },
        }
    }

    /// What `a ; b` reads of `a` and of `b` for its pairs `mask`.
    pub(super) fn compose_masks<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        a: &TExpr,
        b: &TExpr,
        mask: Option<&Mask>,
    ) -> (Mask, Mask) {
        // The bounds are read where they are kept, not copied.
        let (ua, ub) = (self.ub(sink, a), self.ub(sink, b));
        let empty = Bits::new(self.enc.events.len());
        let (ua, ub) = (rel_or(&ua, &empty), rel_or(&ub, &empty));
        let all;
        let wanted = match mask {
            Some(m) => m,
            None => {
                all = ua.compose(ub);
                &all
            }
        };
        compose_needs(ua, ub, wanted)
    }

    /// What the closure `e` of `inner` reads of `inner` for its pairs `mask`.
    pub(super) fn closure_mask<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        e: &TExpr,
        inner: &TExpr,
        mask: Option<&Mask>,
    ) -> Mask {
        let ui = self.ub(sink, inner);
        let empty = Bits::new(self.enc.events.len());
        let ui = rel_or(&ui, &empty);
        match mask {
            Some(m) => closure_needs(ui, m),
            None => {
                let all = self.ub(sink, e);
                closure_needs(ui, rel_or(&all, &empty))
            }
        }
    }

    /// The static upper bounds of a `let rec` group: its members' bounds grown from empty
    /// by the bounds of their bodies until they stop growing. Every operator's bound is
    /// monotone in its operands' bounds (a difference's is its first operand's), so each
    /// round's bound holds herd's iterate of that round, and the union of the rounds holds
    /// the fixed point, whether or not the group itself is monotone.
    fn group_ub<S: ClauseSink>(&mut self, sink: &mut S, g: usize) {
        let model = self.model;
        let Some(group) = model.rec_groups.get(g) else {
            return;
        };
        let n = self.enc.events.len();
        // The bounds of the group's bodies change from round to round: none is kept.
        self.node_ubs.frozen += 1;
        for &m in &group.members {
            let empty = match model.defs.get(m).and_then(|d| d.2) {
                Some(Type::Set) => Ub::Set(vec![false; n]),
                _ => Ub::Rel(Bits::new(n)),
            };
            self.ubs[m] = Some(Rc::new(empty));
        }
        loop {
            for i in group.inner.clone() {
                if let Some(u) = self.ubs.get_mut(i) {
                    *u = None;
                }
            }
            let mut grown = false;
            for &m in &group.members {
                let Some((_, body, _)) = model.defs.get(m) else {
                    continue;
                };
                let next = self.ub(sink, body);
                let Some(current) = self.ubs[m].clone() else {
                    continue;
                };
                let joined = match (current.as_ref(), next.as_ref()) {
                    (Ub::Set(a), Ub::Set(b)) => {
                        Ub::Set(a.iter().zip(b).map(|(&x, &y)| x || y).collect())
                    }
                    (Ub::Rel(a), Ub::Rel(b)) => Ub::Rel(a.union(b)),
                    (_, other) => other.clone(),
                };
                if !same_ub(&joined, &current) {
                    grown = true;
                    self.ubs[m] = Some(Rc::new(joined));
                }
            }
            if !grown {
                break;
            }
        }
        self.node_ubs.frozen -= 1;
    }

    pub(super) fn ub_rel<S: ClauseSink>(&mut self, sink: &mut S, e: &TExpr) -> Bits {
        match self.ub(sink, e).as_ref() {
            Ub::Rel(r) => r.clone(),
            Ub::Set(_) => Bits::new(self.enc.events.len()),
        }
    }

    fn ub_set<S: ClauseSink>(&mut self, sink: &mut S, e: &TExpr) -> Vec<bool> {
        match self.ub(sink, e).as_ref() {
            Ub::Set(s) => s.clone(),
            Ub::Rel(_) => vec![false; self.enc.events.len()],
        }
    }

    /// The static upper bound of `e`: what its value may hold in some execution. Kept for
    /// the model's own compound subexpressions ([`NodeUbs`]).
    pub(super) fn ub<S: ClauseSink>(&mut self, sink: &mut S, e: &TExpr) -> Rc<Ub> {
        if let Some(u) = self.node_ubs.get(e) {
            return u;
        }
        let u = self.compute_ub(sink, e);
        self.node_ubs.keep(e, &u);
        u
    }

    fn compute_ub<S: ClauseSink>(&mut self, sink: &mut S, e: &TExpr) -> Rc<Ub> {
        let n = self.enc.events.len();
        let enc = self.enc;
        let executable = || -> Vec<bool> { enc.feasible.iter().map(|b| !b.is_false()).collect() };
        let value = match e {
            TExpr::Base(b) => return self.base_ub(sink, *b),
            TExpr::Def(id) => {
                let id = *id;
                if let Some(u) = self.ubs.get(id).cloned().flatten() {
                    return u;
                }
                if let Some(&g) = self.groups.get(&id) {
                    self.group_ub(sink, g);
                    return self.ubs[id]
                        .clone()
                        .unwrap_or_else(|| Rc::new(Ub::Rel(Bits::new(n))));
                }
                let Some((_, body, _)) = self.model.defs.get(id) else {
                    return Rc::new(Ub::Rel(Bits::new(n)));
                };
                let u = self.ub(sink, body);
                self.ubs[id] = Some(u.clone());
                return u;
            }
            TExpr::Empty(Type::Set) => Ub::Set(vec![false; n]),
            TExpr::Empty(Type::Rel) => Ub::Rel(Bits::new(n)),
            TExpr::DifferentValues(r) => Ub::Rel(self.ub_rel(sink, r)),
            TExpr::Domain(r) => Ub::Set(self.ub_rel(sink, r).domain()),
            TExpr::Range(r) => Ub::Set(self.ub_rel(sink, r).range()),
            TExpr::Unary(op, inner) => match op {
                UnOp::Identity => Ub::Rel(Bits::identity(&self.ub_set(sink, inner))),
                UnOp::Inverse => Ub::Rel(self.ub_rel(sink, inner).transpose()),
                UnOp::Opt => Ub::Rel(
                    self.ub_rel(sink, inner)
                        .union(&Bits::identity(&executable())),
                ),
                UnOp::Plus => Ub::Rel(self.ub_rel(sink, inner).closure()),
                UnOp::Star => Ub::Rel(
                    self.ub_rel(sink, inner)
                        .closure()
                        .union(&Bits::identity(&executable())),
                ),
            },
            TExpr::Binary(op, a, b) => {
                let x = self.ub(sink, a);
                // A difference of relations is bounded by its first operand's bound, kept
                // as it is.
                if *op == BinOp::Diff {
                    if let Ub::Rel(r) = x.as_ref() {
                        let mut r = r.clone();
                        let before = r.clone();
                        self.without_sure(sink, &mut r, b);
                        return if r == before { x } else { Rc::new(Ub::Rel(r)) };
                    }
                }
                // An empty first operand bounds `;`, `&` and `\` by the empty value, and `*`
                // by the empty relation, whatever the second one is: its bound is not
                // computed.
                if *op != BinOp::Union {
                    match x.as_ref() {
                        Ub::Rel(r) if r.is_empty() => return x,
                        Ub::Set(s) if !s.iter().any(|&m| m) => {
                            return match op {
                                BinOp::Product => Rc::new(Ub::Rel(Bits::new(n))),
                                _ => x,
                            };
                        }
                        _ => {}
                    }
                }
                let y = self.ub(sink, b);
                match (op, x.as_ref(), y.as_ref()) {
                    (BinOp::Union, Ub::Set(x), Ub::Set(y)) => {
                        Ub::Set(x.iter().zip(y).map(|(&p, &q)| p || q).collect())
                    }
                    (BinOp::Inter, Ub::Set(x), Ub::Set(y)) => {
                        Ub::Set(x.iter().zip(y).map(|(&p, &q)| p && q).collect())
                    }
                    (BinOp::Union, Ub::Rel(x), Ub::Rel(y)) => Ub::Rel(x.union(y)),
                    (BinOp::Inter, Ub::Rel(x), Ub::Rel(y)) => Ub::Rel(x.intersection(y)),
                    // What `b` surely holds cannot be in `a \ b`.
                    (BinOp::Diff, Ub::Set(x), Ub::Set(_)) => {
                        let sure = self.lb(sink, b);
                        Ub::Set(x.iter().zip(sure.iter()).map(|(&p, &q)| p && !q).collect())
                    }
                    (BinOp::Diff, x, _) => x.clone(),
                    (BinOp::Seq, Ub::Rel(x), Ub::Rel(y)) => Ub::Rel(x.compose(y)),
                    (BinOp::Product, Ub::Set(x), Ub::Set(y)) => Ub::Rel(Bits::product(x, y)),
                    // The checker gives no other combination.
                    _ => Ub::Rel(Bits::new(n)),
                }
            }
        };
        Rc::new(value)
    }

    /// The static lower bound of a set: the events that are in it whenever they execute
    /// (its literal is the event's `fb`). Sets hold executed events only, so `a \ b` holds
    /// none of them: `Plain = M \ Marked` is statically empty when every access is
    /// marked, and with it everything the kernel model's race flags build on plain
    /// accesses. Relations, and sets of a `let rec`, get none.
    fn lb<S: ClauseSink>(&mut self, sink: &mut S, e: &TExpr) -> Rc<Vec<bool>> {
        let n = self.enc.events.len();
        let value = match e {
            TExpr::Base(b) if self.pairwise(*b).is_none() => match self.base(sink, *b).as_ref() {
                Val::Set(s) => s
                    .iter()
                    .zip(&self.enc.feasible)
                    .map(|(&l, &fb)| l == fb && !fb.is_false())
                    .collect(),
                Val::Rel(_) => vec![false; n],
            },
            TExpr::Def(id) if !self.groups.contains_key(id) => {
                if let Some(l) = self.lbs.get(id) {
                    return l.clone();
                }
                let Some((_, body, _)) = self.model.defs.get(*id) else {
                    return Rc::new(vec![false; n]);
                };
                let l = self.lb(sink, body);
                self.lbs.insert(*id, l.clone());
                return l;
            }
            TExpr::Binary(op @ (BinOp::Union | BinOp::Inter | BinOp::Diff), a, b) => {
                let x = self.lb(sink, a);
                let y = match op {
                    BinOp::Diff => Rc::new(self.ub_set(sink, b)),
                    _ => self.lb(sink, b),
                };
                x.iter()
                    .zip(y.iter())
                    .map(|(&p, &q)| match op {
                        BinOp::Union => p || q,
                        BinOp::Inter => p && q,
                        _ => p && !q,
                    })
                    .collect()
            }
            _ => vec![false; n],
        };
        Rc::new(value)
    }

    /// The pairs a relation surely holds: each of them is in its value whenever both of its
    /// events execute (`None` when none is known). Every relation relates executed events
    /// only, so such a pair is never in `a \ e`, and neither operand is asked for it: GenMC's
    /// memory flags (`cat::memory`) take happens-before, which holds program order, from
    /// the pairs of a block's allocation and its accesses, most of which are its own
    /// thread's, after the allocation (a stack object's). Pairwise base relations are
    /// `fb(a) & fb(b)` on their pairs; a union holds what either operand surely holds, an
    /// intersection what both do, a closure what its operand does.
    pub(super) fn sure_pairs<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        e: &TExpr,
    ) -> Option<Rc<Bits>> {
        match e {
            TExpr::Base(b) if self.pairwise(*b).is_some() => {
                match self.base_ub(sink, *b).as_ref() {
                    Ub::Rel(r) => Some(Rc::new(r.clone())),
                    Ub::Set(_) => None,
                }
            }
            TExpr::Def(id) if !self.groups.contains_key(id) => {
                if let Some(known) = self.sure.get(id) {
                    return known.clone();
                }
                let model = self.model;
                let sure = match model.defs.get(*id) {
                    Some((_, body, _)) => self.sure_pairs(sink, body),
                    None => None,
                };
                self.sure.insert(*id, sure.clone());
                sure
            }
            TExpr::Unary(UnOp::Plus | UnOp::Star | UnOp::Opt, inner) => {
                self.sure_pairs(sink, inner)
            }
            TExpr::Unary(UnOp::Inverse, inner) => {
                Some(Rc::new(self.sure_pairs(sink, inner)?.transpose()))
            }
            TExpr::Binary(BinOp::Union, a, b) => {
                match (self.sure_pairs(sink, a), self.sure_pairs(sink, b)) {
                    (Some(x), Some(y)) => Some(Rc::new(x.union(&y))),
                    (x, y) => x.or(y),
                }
            }
            TExpr::Binary(BinOp::Inter, a, b) => {
                let x = self.sure_pairs(sink, a)?;
                let y = self.sure_pairs(sink, b)?;
                Some(Rc::new(x.intersection(&y)))
            }
            _ => None,
        }
    }

    /// `pairs` without those `e` surely holds ([`Compiler::sure_pairs`]).
    pub(super) fn without_sure<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        pairs: &mut Bits,
        e: &TExpr,
    ) {
        if let Some(sure) = self.sure_pairs(sink, e) {
            pairs.remove_all(&sure);
        }
    }

    fn base_ub<S: ClauseSink>(&mut self, sink: &mut S, b: Base) -> Rc<Ub> {
        if let Some(u) = self.base_ubs.get(&b) {
            return u.clone();
        }
        let n = self.enc.events.len();
        let u = if let Some(pred) = self.pairwise(b) {
            let enc = self.enc;
            let fb = &enc.feasible;
            let feasible: Vec<EventId> = (0..n).filter(|&x| !fb[x].is_false()).collect();
            let mut out = Bits::new(n);
            match partners(enc.events, b, &feasible) {
                // Only the events that share the key the relation implies are asked.
                Some((key, groups)) => {
                    for &x in &feasible {
                        let Some(k) = key(x) else { continue };
                        for &y in groups.get(&k).map_or(&[][..], Vec::as_slice) {
                            if pred(x, y) {
                                out.set(x, y);
                            }
                        }
                    }
                }
                None => {
                    for &x in &feasible {
                        for &y in &feasible {
                            if pred(x, y) {
                                out.set(x, y);
                            }
                        }
                    }
                }
            }
            Ub::Rel(out)
        } else {
            match self.base(sink, b).as_ref() {
                Val::Set(s) => Ub::Set(s.iter().map(|l| !l.is_false()).collect()),
                Val::Rel(r) => {
                    let mut out = Bits::new(n);
                    for (x, y, _) in r.iter() {
                        out.set(x, y);
                    }
                    Ub::Rel(out)
                }
            }
        };
        let u = Rc::new(u);
        self.base_ubs.insert(b, u.clone());
        u
    }

    /// For the base relations that hold between two executed events exactly when a static
    /// property of the pair does (`fb(a) & fb(b)`), that property. They are built only on
    /// the pairs asked for: program order and `loc` alone have a quadratic number of pairs.
    pub(super) fn pairwise(&self, b: Base) -> Option<Box<dyn Fn(EventId, EventId) -> bool + 'e>> {
        let events = self.enc.events;
        let same_location = move |a: EventId, b: EventId| {
            let (x, y) = (&events.events[a], &events.events[b]);
            x.is_located() && y.is_located() && x.location == y.location
        };
        let external =
            move |a: EventId, b: EventId| events.events[a].thread != events.events[b].thread;
        Some(match b {
            Base::Po => Box::new(move |a, b| events.po(a, b)),
            Base::PoLoc => Box::new(move |a, b| events.po(a, b) && same_location(a, b)),
            Base::Id => Box::new(|a, b| a == b),
            Base::Loc => Box::new(same_location),
            // The initial writes form a pseudo-thread of their own.
            Base::Int => Box::new(move |a, b| !external(a, b)),
            Base::Ext => Box::new(external),
            Base::Tc => Box::new(move |a, b| events.thread_sync.create.contains(&(a, b))),
            Base::Tj => Box::new(move |a, b| events.thread_sync.join.contains(&(a, b))),
            _ => return None,
        })
    }

    /// `fb(a) & fb(b)`, once per pair.
    pub(super) fn pair<S: ClauseSink>(&mut self, sink: &mut S, a: EventId, b: EventId) -> Bool {
        if let Some(&l) = self.pairs.get(&(a, b)) {
            return l;
        }
        let l = sink.and2(self.enc.feasible[a], self.enc.feasible[b]);
        self.pairs.insert((a, b), l);
        l
    }

    /// A pairwise base relation on the pairs `mask` (all of them for `None`).
    pub(super) fn pairwise_rel<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        b: Base,
        mask: Option<&Mask>,
    ) -> Relation {
        let mut out = Relation::new();
        let Some(pred) = self.pairwise(b) else {
            return out;
        };
        let all;
        let pairs = match mask {
            Some(m) => m,
            None => match self.base_ub(sink, b).as_ref() {
                Ub::Rel(u) => {
                    all = u.clone();
                    &all
                }
                Ub::Set(_) => return out,
            },
        };
        let enc = self.enc;
        let fb = &enc.feasible;
        for (x, y) in pairs.iter() {
            if pred(x, y) && !fb[x].is_false() && !fb[y].is_false() {
                let l = self.pair(sink, x, y);
                out.set(x, y, l);
            }
        }
        out
    }
}

/// Partners keyed by what a pairwise base relation implies its two events share: the
/// thread for program order and `int` (the initial writes, with no thread, are a
/// pseudo-thread of their own), the location for `loc`, the event itself for `id`; with
/// the feasible events grouped by that key. `None` for the others (`ext`, `tc`, `tj`),
/// whose pairs are looked for among all events. Only a shortcut: `pred` still decides each
/// pair, and it holds on none outside the key's group (`Events::po` asks for one thread,
/// `loc` for one location).
#[allow(clippy::type_complexity)]
fn partners<'e>(
    events: &'e crate::events::Events,
    b: Base,
    feasible: &[EventId],
) -> Option<(
    Box<dyn Fn(EventId) -> Option<(u8, usize)> + 'e>,
    rustc_hash::FxHashMap<(u8, usize), Vec<EventId>>,
)> {
    let key: Box<dyn Fn(EventId) -> Option<(u8, usize)> + 'e> = match b {
        Base::Po | Base::PoLoc => Box::new(move |e| events.events[e].thread.map(|t| (0, t))),
        Base::Int => Box::new(move |e| Some(events.events[e].thread.map_or((1, 0), |t| (0, t)))),
        Base::Loc => Box::new(move |e| {
            let x = &events.events[e];
            x.is_located()
                .then(|| x.location.map_or((4, 0), |l| (2, l)))
        }),
        Base::Id => Box::new(|e| Some((3, e))),
        _ => return None,
    };
    let mut groups: rustc_hash::FxHashMap<(u8, usize), Vec<EventId>> = Default::default();
    for &e in feasible {
        if let Some(k) = key(e) {
            groups.entry(k).or_default().push(e);
        }
    }
    Some((key, groups))
}

/// The static upper bounds of the model's own compound subexpressions (operators), by
/// address. `want` asks for the bound of an operand at every level above it, which without
/// this recomputes each subtree once per ancestor. Only the model's nodes are kept: they
/// live as long as the compiler borrows the model, so no other expression (such as a
/// temporary `strip_union` builds) can have the same address; a temporary's bound is
/// computed each time.
pub(super) struct NodeUbs {
    /// Per node of the model: its bound, once computed.
    ubs: HashMap<usize, Option<Rc<Ub>>, BuildHasherDefault<AddressHasher>>,
    /// Inside the iteration of a `let rec` group's bounds, whose values change from round
    /// to round: nothing is read or kept.
    pub(super) frozen: usize,
}

impl NodeUbs {
    pub(super) fn new(model: &Model) -> NodeUbs {
        fn walk(
            e: &TExpr,
            ubs: &mut HashMap<usize, Option<Rc<Ub>>, BuildHasherDefault<AddressHasher>>,
        ) {
            match e {
                TExpr::Base(_) | TExpr::Def(_) | TExpr::Empty(_) => return,
                TExpr::Binary(_, a, b) => {
                    walk(a, ubs);
                    walk(b, ubs);
                }
                TExpr::Unary(_, a)
                | TExpr::Domain(a)
                | TExpr::Range(a)
                | TExpr::DifferentValues(a) => walk(a, ubs),
            }
            ubs.insert(address(e), None);
        }
        // Sized for every node first: growing the table as it filled cost about as much
        // as the inserts.
        fn count(e: &TExpr) -> usize {
            match e {
                TExpr::Base(_) | TExpr::Def(_) | TExpr::Empty(_) => 0,
                TExpr::Binary(_, a, b) => 1 + count(a) + count(b),
                TExpr::Unary(_, a)
                | TExpr::Domain(a)
                | TExpr::Range(a)
                | TExpr::DifferentValues(a) => 1 + count(a),
            }
        }
        let exprs = || {
            let bodies = model.defs.iter().map(|(_, body, _)| &**body);
            bodies.chain(model.checks.iter().map(|check| &check.expr))
        };
        let mut ubs = HashMap::with_capacity_and_hasher(
            exprs().map(count).sum(),
            BuildHasherDefault::default(),
        );
        for (_, body, _) in &model.defs {
            walk(body, &mut ubs);
        }
        for check in &model.checks {
            walk(&check.expr, &mut ubs);
        }
        NodeUbs { ubs, frozen: 0 }
    }

    fn get(&self, e: &TExpr) -> Option<Rc<Ub>> {
        if self.frozen > 0 {
            return None;
        }
        self.ubs.get(&address(e)).cloned().flatten()
    }

    fn keep(&mut self, e: &TExpr, u: &Rc<Ub>) {
        if self.frozen > 0 {
            return;
        }
        if let Some(slot) = self.ubs.get_mut(&address(e)) {
            *slot = Some(u.clone());
        }
    }
}

fn address(e: &TExpr) -> usize {
    std::ptr::from_ref(e) as usize
}

/// A hash of an address: the multiplicative hash of the address without its alignment
/// bits (the default SipHash costs more than the lookups it serves).
#[derive(Default)]
pub(super) struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        let h = ((n as u64) >> 3).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 29);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
