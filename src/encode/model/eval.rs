//! Building a relation or set expression's literals, operator by operator, from the
//! base relations up.

use std::collections::BTreeMap;
use std::rc::Rc;

use super::{tagged, Compiler, Mask, Tagged, Ub, Val};
use crate::cat::ast::{BinOp, UnOp};
use crate::cat::{Base, TExpr, Type};
use crate::encode::bits::Bits;
use crate::encode::cnf::{Bool, ClauseSink, Gates};
use crate::encode::relation::Relation;
use crate::events::{Dependency, EventId, EventKind};
use crate::program::MemOrder;

impl Compiler<'_, '_> {
    pub(super) fn rel<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        e: &TExpr,
        mask: Option<&Mask>,
    ) -> SharedRel {
        SharedRel(self.eval(sink, e, mask))
    }

    fn set<S: ClauseSink>(&mut self, sink: &mut S, e: &TExpr) -> SharedSet {
        SharedSet(self.eval(sink, e, None))
    }

    /// The value of `e`; with a mask, only the pairs in it (relations only).
    pub(super) fn eval<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        e: &TExpr,
        mask: Option<&Mask>,
    ) -> Rc<Val> {
        let n = self.enc.events.len();
        let value = match e {
            TExpr::Base(b) if self.pairwise(*b).is_some() => {
                Val::Rel(self.pairwise_rel(sink, *b, mask))
            }
            TExpr::Base(b) => return restrict(self.base(sink, *b), mask),
            TExpr::Def(id) => return self.definition(sink, e, *id, mask),
            TExpr::Empty(Type::Set) => Val::Set(vec![Bool::FALSE; n]),
            TExpr::Empty(Type::Rel) => Val::Rel(Relation::new()),
            TExpr::DifferentValues(r) => self.different_values(sink, r, mask),
            TExpr::Domain(r) | TExpr::Range(r) => self.ends(sink, r, matches!(e, TExpr::Domain(_))),
            TExpr::Unary(op, inner) => match op {
                UnOp::Identity => self.identity(sink, inner, mask),
                UnOp::Inverse => self.inverse(sink, inner, mask),
                UnOp::Plus | UnOp::Star | UnOp::Opt => {
                    return self.closure_value(sink, e, *op, inner, mask)
                }
            },
            TExpr::Binary(op, a, b) => match op {
                BinOp::Union => self.union_value(sink, a, b, mask),
                BinOp::Inter | BinOp::Diff => self.inter_or_diff(sink, *op, a, b, mask),
                // No pair asked for: neither operand is read (`compose_masks` would ask
                // them for none).
                BinOp::Seq if mask.is_some_and(Bits::is_empty) => Val::Rel(Relation::new()),
                BinOp::Seq => {
                    let (na, nb) = self.compose_masks(sink, a, b, mask);
                    let x = self.rel(sink, a, Some(&na));
                    let y = self.rel(sink, b, Some(&nb));
                    Val::Rel(sequence(sink, &x, &y, mask))
                }
                BinOp::Product => self.product(sink, a, b, mask),
            },
        };
        Rc::new(value)
    }

    /// A definition's value on the pairs asked for, evaluated once on every pair its uses
    /// were planned to read (see `plan`), or its `let rec` group's fixed point.
    fn definition<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        e: &TExpr,
        id: usize,
        mask: Option<&Mask>,
    ) -> Rc<Val> {
        if let (Some(m), Ub::Rel(ub)) = (mask, self.ub(sink, e).as_ref()) {
            if !m.meets(ub) {
                // None of the pairs asked for can hold: nothing to build (a flag
                // over plain accesses when every access is marked does not
                // iterate the fixed points under it).
                return Rc::new(Val::Rel(Relation::new()));
            }
        }
        if let Some(&g) = self.groups.get(&id) {
            if self.defs[id].is_none() {
                self.fixpoint(sink, g);
            }
            let v = self.defs[id]
                .clone()
                .map(|(v, _)| v)
                .unwrap_or_else(|| Rc::new(Val::Rel(Relation::new())));
            return restrict(v, mask);
        }
        let Some((_, body, _)) = self.model.defs.get(id) else {
            return Rc::new(Val::Rel(Relation::new()));
        };
        let ub = self.ub(sink, e);
        let Ub::Rel(ub) = ub.as_ref() else {
            if let Some((v, _)) = self.defs.get(id).cloned().flatten() {
                return v;
            }
            let v = self.eval(sink, body, None);
            self.defs[id] = Some((v.clone(), None));
            return v;
        };
        let asked = match mask {
            Some(m) => m.intersection(ub),
            None => ub.clone(),
        };
        let mut cover = asked.clone();
        if let Some((v, covered)) = self.defs.get(id).cloned().flatten() {
            match covered {
                Some(c) if asked.is_subset(&c) => return restrict(v, mask),
                Some(c) => cover.union_with(&c),
                None => {}
            }
        }
        // Every use was planned, so the first evaluation normally covers them all;
        // an unplanned one costs a second evaluation, not a wrong answer.
        if let Some(w) = &self.wanted[id] {
            cover.union_with(w);
        }
        let v = self.eval(sink, body, Some(&cover));
        self.defs[id] = Some((v.clone(), Some(cover)));
        restrict(v, mask)
    }

    /// The pairs of `r` whose events have different values.
    fn different_values<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        r: &TExpr,
        mask: Option<&Mask>,
    ) -> Val {
        let rel = self.rel(sink, r, mask);
        let values = &self.enc.values;
        let mut out = Relation::new();
        for (a, b, l) in rel.iter() {
            // The query fills in every memory event's value before compiling a
            // model that compares values (`Model::uses_values`); an event without
            // one (a fence) has no value to differ.
            if let (Some(Some(x)), Some(Some(y))) = (values.get(a), values.get(b)) {
                let same = crate::encode::value::equals(sink, x, y);
                let v = sink.and2(l, !same);
                out.set(a, b, v);
            }
        }
        Val::Rel(out)
    }

    /// The domain of `r` (`sources`) or its range.
    fn ends<S: ClauseSink>(&mut self, sink: &mut S, r: &TExpr, sources: bool) -> Val {
        let n = self.enc.events.len();
        let rel = self.rel(sink, r, None);
        let mut members: Vec<Vec<Bool>> = vec![Vec::new(); n];
        for (a, b, l) in rel.iter() {
            let e = if sources { a } else { b };
            members[e].push(l);
        }
        Val::Set(members.iter().map(|m| sink.or(m)).collect())
    }

    /// `[s]`
    fn identity<S: ClauseSink>(&mut self, sink: &mut S, inner: &TExpr, mask: Option<&Mask>) -> Val {
        let s = self.set(sink, inner);
        let mut r = Relation::new();
        for (e, &b) in s.iter().enumerate() {
            if allowed(mask, e, e) {
                r.set(e, e, b);
            }
        }
        Val::Rel(r)
    }

    /// `r^-1`
    fn inverse<S: ClauseSink>(&mut self, sink: &mut S, inner: &TExpr, mask: Option<&Mask>) -> Val {
        let flipped: Option<Mask> = mask.map(Bits::transpose);
        let r = self.rel(sink, inner, flipped.as_ref());
        let mut out = Relation::new();
        for (a, b, l) in r.iter() {
            out.set(b, a, l);
        }
        Val::Rel(out)
    }

    /// `r+`, `r*` and `r?` (`e`), on the pairs asked for or else on all it may hold.
    fn closure_value<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        e: &TExpr,
        op: UnOp,
        inner: &TExpr,
        mask: Option<&Mask>,
    ) -> Rc<Val> {
        let all;
        let wanted = match mask {
            Some(m) => m,
            None => {
                all = self.ub_rel(sink, e);
                &all
            }
        };
        let mut result = if op == UnOp::Opt {
            Relation::clone(&self.rel(sink, inner, Some(wanted)))
        } else {
            self.closure_of(sink, e, inner, wanted)
        };
        if op != UnOp::Plus {
            let id = self.pairwise_rel(sink, Base::Id, Some(wanted));
            result = union(sink, &result, &id);
        }
        restrict(Rc::new(Val::Rel(result)), mask)
    }

    /// `a | b`
    fn union_value<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        a: &TExpr,
        b: &TExpr,
        mask: Option<&Mask>,
    ) -> Val {
        match (
            self.eval(sink, a, mask).as_ref(),
            self.eval(sink, b, mask).as_ref(),
        ) {
            (Val::Set(x), Val::Set(y)) => {
                Val::Set(x.iter().zip(y).map(|(&p, &q)| sink.or2(p, q)).collect())
            }
            (Val::Rel(x), Val::Rel(y)) => Val::Rel(union(sink, x, y)),
            _ => Val::Rel(Relation::new()),
        }
    }

    /// `a & b` or `a \ b` (`op`).
    fn inter_or_diff<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        op: BinOp,
        a: &TExpr,
        b: &TExpr,
        mask: Option<&Mask>,
    ) -> Val {
        let n = self.enc.events.len();
        // The cheaper operand first (a name rather than a compound expression),
        // and the other only where the first may hold.
        let swap = op == BinOp::Inter && !is_name(a) && is_name(b);
        let (first, second) = if swap { (b, a) } else { (a, b) };
        let first_mask = match (op, mask) {
            // As planned (`want`): an intersection reads both operands on the
            // pairs both may hold.
            (BinOp::Inter, Some(m)) => {
                let both = self.ub_rel(sink, a).intersection(&self.ub_rel(sink, b));
                Some(m.intersection(&both))
            }
            _ => mask.cloned(),
        };
        // What `b` surely holds is not in `a \ b`: neither operand is asked for it.
        let sure = match op {
            BinOp::Diff => self.sure_pairs(sink, b),
            _ => None,
        };
        let first_mask = match (first_mask, &sure) {
            (Some(mut m), Some(s)) => {
                m.remove_all(s);
                Some(m)
            }
            (m, _) => m,
        };
        let x = self.eval(sink, first, first_mask.as_ref());
        let y = match x.as_ref() {
            Val::Rel(x) => {
                let mut keys = Bits::new(n);
                for (p, q, _) in x.iter() {
                    if !sure.as_ref().is_some_and(|s| s.get(p, q)) {
                        keys.set(p, q);
                    }
                }
                self.eval(sink, second, Some(&keys))
            }
            Val::Set(_) => self.eval(sink, second, None),
        };
        let negate = op == BinOp::Diff;
        match (x.as_ref(), y.as_ref()) {
            (Val::Set(x), Val::Set(y)) => Val::Set(
                x.iter()
                    .zip(y)
                    .map(|(&p, &q)| sink.and2(p, if negate { !q } else { q }))
                    .collect(),
            ),
            (Val::Rel(x), Val::Rel(y)) => {
                let mut out = Relation::new();
                for (p, q, l) in x.iter() {
                    if sure.as_ref().is_some_and(|s| s.get(p, q)) {
                        continue;
                    }
                    let other = y.get(p, q);
                    let v = sink.and2(l, if negate { !other } else { other });
                    out.set(p, q, v);
                }
                Val::Rel(out)
            }
            _ => Val::Rel(Relation::new()),
        }
    }

    /// `a * b`
    fn product<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        a: &TExpr,
        b: &TExpr,
        mask: Option<&Mask>,
    ) -> Val {
        let x = self.set(sink, a);
        let y = self.set(sink, b);
        let mut out = Relation::new();
        for (p, &lp) in x.iter().enumerate().filter(|(_, l)| !l.is_false()) {
            for (q, &lq) in y.iter().enumerate().filter(|(_, l)| !l.is_false()) {
                if allowed(mask, p, q) {
                    let v = sink.and2(lp, lq);
                    out.set(p, q, v);
                }
            }
        }
        Val::Rel(out)
    }

    /// A base relation or set, built once.
    pub(super) fn base<S: ClauseSink>(&mut self, sink: &mut S, b: Base) -> Rc<Val> {
        if let Some(v) = self.bases.get(&b) {
            return v.clone();
        }
        let v = Rc::new(self.build_base(sink, b));
        self.bases.insert(b, v.clone());
        v
    }

    fn build_base<S: ClauseSink>(&mut self, sink: &mut S, b: Base) -> Val {
        let enc = self.enc;
        let events = enc.events;
        let fb = &enc.feasible;
        let set = |pred: &dyn Fn(&crate::events::Event) -> bool| {
            Val::Set(
                events
                    .events
                    .iter()
                    .map(|e| if pred(e) { fb[e.id] } else { Bool::FALSE })
                    .collect(),
            )
        };
        let external = |a: EventId, b: EventId| events.events[a].thread != events.events[b].thread;
        let filtered = |r: &Relation, keep: &dyn Fn(EventId, EventId) -> bool| {
            let mut out = Relation::new();
            for (a, b, l) in r.iter().filter(|&(a, b, _)| keep(a, b)) {
                out.set(a, b, l);
            }
            Val::Rel(out)
        };
        match b {
            Base::All => set(&|_| true),
            Base::R => set(&|e| e.is_read()),
            Base::W => set(&|e| e.is_write()),
            Base::F => set(&|e| e.is_barrier()),
            Base::M => set(&|e| e.is_memory()),
            Base::IW => set(&|e| e.kind == EventKind::Init),
            Base::X => set(&|e| e.is_memory() && e.rmw.is_some()),
            Base::Lkr => set(&|e| e.kind == EventKind::Lock),
            Base::Lkw => set(&|e| events.lock_write_half(e.id)),
            Base::Ul => set(&|e| e.kind == EventKind::Unlock),
            Base::Rlx => self.by_order(sink, |o| o == MemOrder::Relaxed),
            // consume is acquire, as in every compiler (and C11Tester's fragment).
            Base::Acq => {
                self.by_order(sink, |o| matches!(o, MemOrder::Acquire | MemOrder::Consume))
            }
            Base::Rel => self.by_order(sink, |o| o == MemOrder::Release),
            Base::AcqRel => self.by_order(sink, |o| o == MemOrder::AcqRel),
            Base::Sc => self.by_order(sink, |o| o == MemOrder::SeqCst),
            Base::Na => set(&|e| e.is_memory() && e.order == MemOrder::NonAtomic),
            Base::A => set(&|e| e.is_memory() && e.order != MemOrder::NonAtomic),
            Base::Po
            | Base::PoLoc
            | Base::Id
            | Base::Loc
            | Base::Int
            | Base::Ext
            | Base::Tc
            | Base::Tj => Val::Rel(self.pairwise_rel(sink, b, None)),
            Base::Rf => Val::Rel(enc.rf.clone()),
            Base::Co => Val::Rel(enc.co.clone()),
            Base::Fr => Val::Rel(enc.fr.clone()),
            Base::Lko => Val::Rel(enc.lko.clone()),
            Base::Rfe => filtered(&enc.rf, &external),
            Base::Rfi => filtered(&enc.rf, &|a, b| !external(a, b)),
            Base::Coe => filtered(&enc.co, &external),
            Base::Coi => filtered(&enc.co, &|a, b| !external(a, b)),
            Base::Fre => filtered(&enc.fr, &external),
            Base::Fri => filtered(&enc.fr, &|a, b| !external(a, b)),
            Base::Rmw => {
                let mut out = Relation::new();
                for e in events.events.iter().filter(|e| e.is_read()) {
                    if let Some(w) = e.rmw {
                        let v = sink.and2(fb[e.id], fb[w]);
                        out.set(e.id, w, v);
                    }
                }
                Val::Rel(out)
            }
            Base::Tag(i) => {
                let tag = self
                    .model
                    .tags
                    .get(usize::from(i))
                    .map_or("", String::as_str);
                let members = events
                    .events
                    .iter()
                    .map(|e| match tagged(e, tag) {
                        Tagged::Never => Bool::FALSE,
                        Tagged::Always => fb[e.id],
                        Tagged::IfExchanged(w) => sink.and2(fb[e.id], fb[w]),
                        Tagged::IfFailed(w) => sink.and2(fb[e.id], !fb[w]),
                    })
                    .collect();
                Val::Set(members)
            }
            Base::Addr => self.dependency(sink, &events.dependencies.addr),
            Base::Data => self.dependency(sink, &events.dependencies.data),
            Base::Ctrl => self.dependency(sink, &events.ctrl_pairs()),
        }
    }

    /// A dependency relation: a pair holds when both events run and its condition does.
    fn dependency<S: ClauseSink>(&mut self, sink: &mut S, list: &[Dependency]) -> Val {
        let enc = self.enc;
        let fb = &enc.feasible;
        let mut out = Relation::new();
        for d in list {
            let when = match enc.events.terms.constant_value(d.when) {
                Some(0) => Bool::FALSE,
                Some(_) => Bool::TRUE,
                None => enc.dependency_conditions[&d.when],
            };
            let holds = sink.and(&[fb[d.from], fb[d.to], when]);
            let before = out.get(d.from, d.to);
            let holds = sink.or(&[before, holds]);
            out.set(d.from, d.to, holds);
        }
        Val::Rel(out)
    }

    /// The accesses and fences whose memory order satisfies `pred`. A compare-exchange read
    /// has its success order when the exchange happens (its write executes) and its failure
    /// order otherwise, when it is a read only.
    fn by_order<S: ClauseSink>(&self, sink: &mut S, pred: impl Fn(MemOrder) -> bool) -> Val {
        let events = self.enc.events;
        let fb = &self.enc.feasible;
        let members = events
            .events
            .iter()
            .map(|e| {
                if !(e.is_memory() || e.kind == EventKind::Fence) {
                    return Bool::FALSE;
                }
                let exchanged = e.rmw.map(|write| fb[write]);
                let options = &self.enc.order_options[e.id];
                if options.is_empty() {
                    let member = in_order(&pred, e.order, e.failure_order, exchanged);
                    return sink.and2(fb[e.id], member);
                }
                let chosen: Vec<Bool> = options
                    .iter()
                    .filter_map(|o| {
                        let order = o.order?;
                        let member = in_order(&pred, order, o.failure, exchanged);
                        Some(sink.and2(o.selector, member))
                    })
                    .collect();
                let member = sink.or(&chosen);
                sink.and2(fb[e.id], member)
            })
            .collect();
        Val::Set(members)
    }
}

/// Whether an access with this order is in the set `pred` describes. A compare-exchange
/// read has its success order when the exchange happens (`exchanged`: its write executes)
/// and its failure order otherwise, when it is a read only.
fn in_order(
    pred: &impl Fn(MemOrder) -> bool,
    order: MemOrder,
    failure: Option<MemOrder>,
    exchanged: Option<Bool>,
) -> Bool {
    match (failure, exchanged) {
        (Some(failure), Some(exchanged)) if pred(order) != pred(failure) => {
            if pred(order) {
                exchanged
            } else {
                !exchanged
            }
        }
        _ => Bool::from(pred(order)),
    }
}

/// A relation's value as evaluated, read in place: most operators only read their operands,
/// and copying a sparse relation for each was a tenth of a small test's allocations.
pub(super) struct SharedRel(Rc<Val>);

impl SharedRel {
    pub(super) fn empty() -> SharedRel {
        SharedRel(Rc::new(Val::Rel(Relation::new())))
    }
}

impl std::ops::Deref for SharedRel {
    type Target = Relation;

    fn deref(&self) -> &Relation {
        static EMPTY: Relation = Relation::EMPTY;
        match self.0.as_ref() {
            Val::Rel(r) => r,
            Val::Set(_) => &EMPTY,
        }
    }
}

/// A set's members as evaluated, read in place. A relation where a set was expected has no
/// member that may hold (all false, as `Val::Set` would spell it).
struct SharedSet(Rc<Val>);

impl std::ops::Deref for SharedSet {
    type Target = [Bool];

    fn deref(&self) -> &[Bool] {
        match self.0.as_ref() {
            Val::Set(s) => s,
            Val::Rel(_) => &[],
        }
    }
}

fn is_name(e: &TExpr) -> bool {
    matches!(e, TExpr::Base(_) | TExpr::Def(_))
}

fn allowed(mask: Option<&Mask>, a: EventId, b: EventId) -> bool {
    mask.is_none_or(|m| m.get(a, b))
}

fn restrict(v: Rc<Val>, mask: Option<&Mask>) -> Rc<Val> {
    let (Some(mask), Val::Rel(r)) = (mask, v.as_ref()) else {
        return v;
    };
    let mut out = Relation::new();
    for (a, b, l) in r.iter().filter(|&(a, b, _)| mask.get(a, b)) {
        out.set(a, b, l);
    }
    Rc::new(Val::Rel(out))
}

pub(super) fn union<S: ClauseSink>(sink: &mut S, x: &Relation, y: &Relation) -> Relation {
    let mut out = x.clone();
    for (a, b, l) in y.iter() {
        let v = sink.or2(x.get(a, b), l);
        out.set(a, b, v);
    }
    out
}

/// `x ; y`, the sparse join; with a mask, only the pairs in it.
pub(super) fn sequence<S: ClauseSink>(
    sink: &mut S,
    x: &Relation,
    y: &Relation,
    mask: Option<&Mask>,
) -> Relation {
    let mut ways: BTreeMap<(EventId, EventId), Vec<Bool>> = BTreeMap::new();
    for (a, b, l1) in x.iter() {
        for (c, l2) in y.successors(b) {
            if allowed(mask, a, c) {
                let both = sink.and2(l1, l2);
                if !both.is_false() {
                    ways.entry((a, c)).or_default().push(both);
                }
            }
        }
    }
    let mut out = Relation::new();
    for ((a, c), w) in ways {
        let v = sink.or(&w);
        out.set(a, c, v);
    }
    out
}
