//! Compiling a checked model (`crate::cat`) into clauses over the relation matrices.
//!
//! Every set is a vector of literals (one per event), every relation a sparse matrix whose
//! missing pairs are constant false, as in Kodkod: base relations start from the static
//! bounds of the encoding (`rf` candidates, writes of a location, program order), and each
//! operator builds only the pairs its operands make possible. Every operator is exact (its
//! literals are Tseitin-defined in both directions), so a result can be used under negation:
//! `\` is `a & !b`, a flag is `!empty r`. Base relations relate executed events only.
//!
//! Four savings keep compiled models as small as hand-written encodings:
//! - every relation is built only on the pairs some check can read (`plan`): static upper
//!   bounds of all definitions first (bit matrices, no literals), then the pairs each check
//!   reads pushed down through the operators into the definitions;
//! - intersections and differences evaluate their left operand first and only ask the right
//!   one for the pairs that survive (`rmw & (fre; coe)` never builds `fre; coe` outside
//!   `rmw`);
//! - a closure of a union containing `po` is split at program order (`closure_over_po`)
//!   rather than squared;
//! - `acyclic` orders only events that can lie on a cycle (a node without possible incoming
//!   or outgoing edges cannot), skips constant edges that other constant edges already
//!   imply through transitivity, and encodes program order inside `po | ...` as chains of
//!   consecutive events rather than one guarded edge per pair.
//!
//! Each named check holds under its own selector literal, so that the queries can switch it
//! off (`--skip`) or name it in an unsatisfiable core (`explain`) without re-encoding.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use super::acyclic::{AcyclicStrategy, Order};
use super::bits::{closure_needs, compose_needs, on_cycles, Bits};
use super::cnf::{Bool, ClauseSink, Gates};
use super::relation::Relation;
use super::Encoding;
use crate::cat::ast::{BinOp, CheckKind, UnOp};
use crate::cat::{Base, Model, TExpr, Type};
use crate::events::{Dependency, EventId, EventKind};
use crate::program::MemOrder;

/// The literals the queries need from a compiled model.
#[derive(Clone, Debug, Default)]
pub struct CompiledModel {
    /// Per named check (each name once), the literal that switches it on.
    pub selectors: Vec<(String, Bool)>,
    /// Per flag, the literal under which an execution raises it.
    pub flags: Vec<(String, Bool)>,
    /// The orders of the acyclicity checks: with lazy acyclicity, the queries cut the
    /// cycles a model leaves in them.
    pub orders: Vec<Order>,
    /// The model's relation `race`, when it defines one and flags it (the C11 models): the
    /// pairs of events whose race makes the behaviour undefined. The races query lists
    /// them instead of its own SC notion of a race.
    pub race: Option<Relation>,
    /// The model's `race` excludes every pair its happens-before orders, and that
    /// happens-before contains `po` and `lko` ([`race_excludes_lock_order`]).
    pub race_after_locks: bool,
}

impl CompiledModel {
    pub fn selector(&self, name: &str) -> Option<Bool> {
        self.selectors
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, b)| b)
    }
}

/// The value of a model expression: a literal per event, or a relation.
#[derive(Clone, Debug)]
pub enum Val {
    Set(Vec<Bool>),
    Rel(Relation),
}

/// The pairs of a relation that are asked for; the others are left out of its value.
type Mask = Bits;

/// A static upper bound: the events or pairs that may be in a value.
#[derive(Clone, Debug)]
enum Ub {
    Set(Vec<bool>),
    Rel(Bits),
}

/// Program-order chains an acyclicity check may encode unconditionally.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Chains {
    None,
    /// The relation contains `po`.
    Po,
    /// The relation contains `po-loc`.
    PoLoc,
}

struct Compiler<'e, 'a> {
    enc: &'e Encoding<'a>,
    model: &'e Model,
    strategy: AcyclicStrategy,
    /// Per definition: its value, and for a relation the pairs that value covers.
    defs: Vec<Option<(Rc<Val>, Option<Bits>)>>,
    bases: HashMap<Base, Rc<Val>>,
    orders: Vec<Order>,
    /// Per definition: its static upper bound.
    ubs: Vec<Option<Rc<Ub>>>,
    base_ubs: HashMap<Base, Rc<Ub>>,
    /// Per set definition: its static lower bound (see [`Compiler::lb`]).
    lbs: HashMap<usize, Rc<Vec<bool>>>,
    /// Per definition some use of which was found (`plan`): for a relation, the pairs its
    /// uses ask for.
    wanted: Vec<Option<Bits>>,
    /// `fb(a) & fb(b)`, the literal of every pairwise base relation, built once per pair.
    pairs: HashMap<(EventId, EventId), Bool>,
    /// Per definition of a `let rec`, its group in `Model::rec_groups`.
    groups: HashMap<usize, usize>,
}

fn rec_members(model: &Model) -> HashMap<usize, usize> {
    let mut groups = HashMap::new();
    for (g, group) in model.rec_groups.iter().enumerate() {
        for &m in &group.members {
            groups.insert(m, g);
        }
    }
    groups
}

/// Whether an event carries a tag: a compare-exchange's read carries its success tags
/// when its write runs and its failure tags otherwise.
enum Tagged {
    Never,
    Always,
    IfExchanged(EventId),
    IfFailed(EventId),
}

fn tagged(e: &crate::events::Event, tag: &str) -> Tagged {
    let has = |tags: &[String]| tags.iter().any(|t| t.eq_ignore_ascii_case(tag));
    match (e.rmw, e.failure_tags.is_empty()) {
        (Some(w), false) if e.is_read() => match (has(&e.tags), has(&e.failure_tags)) {
            (true, true) => Tagged::Always,
            (true, false) => Tagged::IfExchanged(w),
            (false, true) => Tagged::IfFailed(w),
            (false, false) => Tagged::Never,
        },
        _ if has(&e.tags) => Tagged::Always,
        _ => Tagged::Never,
    }
}

/// Add the model's checks to the encoding; each named check is guarded by a fresh selector.
pub fn encode_model<S: ClauseSink>(
    sink: &mut S,
    enc: &Encoding,
    model: &Model,
    strategy: AcyclicStrategy,
) -> CompiledModel {
    let race = model.defs.iter().rposition(|(n, _, _)| n == "race");
    // The checks read one-sided copies of the fixed points they use positively only; the
    // flags and `race` the exact ones, which keep their indices.
    let split = model.one_sided();
    let compiled_model = split.as_ref().unwrap_or(model);
    let mut compiler = Compiler::new(enc, compiled_model, strategy);
    compiler.plan(sink, race);
    let mut compiled = CompiledModel::default();
    for check in &compiled_model.checks {
        if check.flag {
            let raised = compiler.test(sink, check.kind, check.negated, &check.expr);
            let name = check.name.clone().unwrap_or_else(|| "flag".to_string());
            compiled.flags.push((name, raised));
            continue;
        }
        let selector = match &check.name {
            Some(name) => match compiled.selector(name) {
                Some(s) => s,
                None => {
                    let s = Bool::Lit(sink.new_lit());
                    compiled.selectors.push((name.clone(), s));
                    s
                }
            },
            None => Bool::TRUE,
        };
        compiler.require(sink, check.kind, check.negated, &check.expr, selector);
    }
    compiled.orders = std::mem::take(&mut compiler.orders);
    compiled.race_after_locks = race_excludes_lock_order(model);
    if let Some(id) = race {
        // Already built when a flag uses it: the definitions are cached.
        if let Val::Rel(r) = compiler.eval(sink, &TExpr::Def(id), None).as_ref() {
            compiled.race = Some(r.clone());
        }
    }
    compiled
}

/// Whether the model's last `race` is `X \ (hb | hb^-1)` (union operands in any order)
/// for a definition `hb = (.. | po .. | lko ..)+`: a closure of a union that holds program
/// order and the lock order among its operands (looked through definitions), as in
/// `rc11.cat` and `c11.cat`. Then two accesses of different threads inside critical
/// sections of one mutex never race: `lko` orders the sections, so `po; lko; po` orders
/// the accesses in `hb` one way or the other (Eraser's lockset argument).
pub fn race_excludes_lock_order(model: &Model) -> bool {
    let Some(race) = model.defs.iter().rposition(|(n, _, _)| n == "race") else {
        return false;
    };
    let TExpr::Binary(BinOp::Diff, _, ordered) = &model.defs[race].1 else {
        return false;
    };
    let mut operands = Vec::new();
    union_operands(ordered, &mut operands);
    operands.iter().any(|hb| {
        let inverse = TExpr::Unary(UnOp::Inverse, Box::new((*hb).clone()));
        let TExpr::Def(id) = hb else { return false };
        let Some((_, TExpr::Unary(UnOp::Plus, inner), _)) = model.defs.get(*id) else {
            return false;
        };
        operands.contains(&&inverse)
            && holds_base(model, inner, Base::Po)
            && holds_base(model, inner, Base::Lko)
    })
}

/// The operands of nested unions.
fn union_operands<'t>(e: &'t TExpr, out: &mut Vec<&'t TExpr>) {
    match e {
        TExpr::Binary(BinOp::Union, a, b) => {
            union_operands(a, out);
            union_operands(b, out);
        }
        _ => out.push(e),
    }
}

/// `e` is a union one of whose operands is `base`, looked through (non-recursive)
/// definitions.
fn holds_base(model: &Model, e: &TExpr, base: Base) -> bool {
    match e {
        TExpr::Base(b) => *b == base,
        TExpr::Def(id) if model.rec_group(*id).is_some() => false,
        TExpr::Def(id) => model
            .defs
            .get(*id)
            .is_some_and(|(_, body, _)| holds_base(model, body, base)),
        TExpr::Binary(BinOp::Union, a, b) => {
            holds_base(model, a, base) || holds_base(model, b, base)
        }
        _ => false,
    }
}

/// The literals of the model's last `let` definition called `name`, without its checks: for
/// tests that compare the compiled operators with a direct evaluation.
pub fn encode_definition<S: ClauseSink>(
    sink: &mut S,
    enc: &Encoding,
    model: &Model,
    name: &str,
) -> Option<Val> {
    let id = model.defs.iter().rposition(|(n, _, _)| n == name)?;
    let mut compiler = Compiler::new(enc, model, AcyclicStrategy::default());
    compiler.plan(sink, Some(id));
    let value = compiler.eval(sink, &TExpr::Def(id), None);
    Some(value.as_ref().clone())
}

impl<'e, 'a> Compiler<'e, 'a> {
    fn new(enc: &'e Encoding<'a>, model: &'e Model, strategy: AcyclicStrategy) -> Self {
        Compiler {
            enc,
            model,
            strategy,
            defs: vec![None; model.defs.len()],
            bases: HashMap::new(),
            orders: Vec::new(),
            ubs: vec![None; model.defs.len()],
            base_ubs: HashMap::new(),
            lbs: HashMap::new(),
            wanted: vec![None; model.defs.len()],
            pairs: HashMap::new(),
            groups: rec_members(model),
        }
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
    fn plan<S: ClauseSink>(&mut self, sink: &mut S, extra: Option<usize>) {
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
    fn acyclic_plan<S: ClauseSink>(
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
    fn members_mask<S: ClauseSink>(
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
                    if *op == BinOp::Inter {
                        first.intersect_with(&self.ub_rel(sink, b));
                    }
                    self.want(sink, a, Some(&first));
                    if *op == BinOp::Diff {
                        first.intersect_with(&self.ub_rel(sink, b));
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
    fn compose_masks<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        a: &TExpr,
        b: &TExpr,
        mask: Option<&Mask>,
    ) -> (Mask, Mask) {
        let ua = self.ub_rel(sink, a);
        let ub = self.ub_rel(sink, b);
        let all;
        let wanted = match mask {
            Some(m) => m,
            None => {
                all = ua.compose(&ub);
                &all
            }
        };
        compose_needs(&ua, &ub, wanted)
    }

    /// What the closure `e` of `inner` reads of `inner` for its pairs `mask`.
    fn closure_mask<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        e: &TExpr,
        inner: &TExpr,
        mask: Option<&Mask>,
    ) -> Mask {
        let ui = self.ub_rel(sink, inner);
        match mask {
            Some(m) => closure_needs(&ui, m),
            None => {
                let all = self.ub_rel(sink, e);
                closure_needs(&ui, &all)
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
    }

    fn ub_rel<S: ClauseSink>(&mut self, sink: &mut S, e: &TExpr) -> Bits {
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

    /// The static upper bound of `e`: what its value may hold in some execution.
    fn ub<S: ClauseSink>(&mut self, sink: &mut S, e: &TExpr) -> Rc<Ub> {
        let n = self.enc.events.len();
        let executable: Vec<bool> = self.enc.feasible.iter().map(|b| !b.is_false()).collect();
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
                UnOp::Opt => Ub::Rel(self.ub_rel(sink, inner).union(&Bits::identity(&executable))),
                UnOp::Plus => Ub::Rel(self.ub_rel(sink, inner).closure()),
                UnOp::Star => Ub::Rel(
                    self.ub_rel(sink, inner)
                        .closure()
                        .union(&Bits::identity(&executable)),
                ),
            },
            TExpr::Binary(op, a, b) => {
                let (x, y) = (self.ub(sink, a), self.ub(sink, b));
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

    fn base_ub<S: ClauseSink>(&mut self, sink: &mut S, b: Base) -> Rc<Ub> {
        if let Some(u) = self.base_ubs.get(&b) {
            return u.clone();
        }
        let n = self.enc.events.len();
        let u = if let Some(pred) = self.pairwise(b) {
            let enc = self.enc;
            let fb = &enc.feasible;
            let mut out = Bits::new(n);
            for x in (0..n).filter(|&x| !fb[x].is_false()) {
                for y in (0..n).filter(|&y| !fb[y].is_false()) {
                    if pred(x, y) {
                        out.set(x, y);
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
    fn pairwise(&self, b: Base) -> Option<Box<dyn Fn(EventId, EventId) -> bool + 'e>> {
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
            _ => return None,
        })
    }

    /// `fb(a) & fb(b)`, once per pair.
    fn pair<S: ClauseSink>(&mut self, sink: &mut S, a: EventId, b: EventId) -> Bool {
        if let Some(&l) = self.pairs.get(&(a, b)) {
            return l;
        }
        let l = sink.and2(self.enc.feasible[a], self.enc.feasible[b]);
        self.pairs.insert((a, b), l);
        l
    }

    /// A pairwise base relation on the pairs `mask` (all of them for `None`).
    fn pairwise_rel<S: ClauseSink>(
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

impl Compiler<'_, '_> {
    /// Constrain: `selector -> (check holds)`.
    fn require<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        kind: CheckKind,
        negated: bool,
        expr: &TExpr,
        selector: Bool,
    ) {
        // `r+` has a cycle iff `r` has one, and `irreflexive r+` says exactly that.
        let closure_of = match expr {
            TExpr::Unary(UnOp::Plus, inner) => Some(&**inner),
            _ => None,
        };
        match (kind, negated, closure_of) {
            (CheckKind::Acyclic, false, inner)
            | (CheckKind::Irreflexive, false, inner @ Some(_)) => {
                let e = inner.unwrap_or(expr);
                let (chains, rest, mask) = self.acyclic_plan(sink, e);
                let r = match rest {
                    Some(rest) => self.rel(sink, &rest, Some(&mask)),
                    None => Relation::new(),
                };
                self.acyclic(sink, &r, selector, chains);
            }
            (_, false, _) => {
                // Emptiness (of the relation, or of its diagonal): one short clause per
                // member rather than a gate over all of them.
                for member in self.members(sink, kind, expr) {
                    sink.clause(&[!selector, !member]);
                }
            }
            (_, true, _) => {
                let nonempty = self.test(sink, kind, true, expr);
                sink.clause(&[!selector, nonempty]);
            }
        }
    }

    /// A literal for "the test holds" (`negated`: for "the test fails"), for `empty` and
    /// `irreflexive`; flags use it directly.
    fn test<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        kind: CheckKind,
        negated: bool,
        expr: &TExpr,
    ) -> Bool {
        let members = self.members(sink, kind, expr);
        let nonempty = sink.or(&members);
        if negated {
            nonempty
        } else {
            !nonempty
        }
    }

    /// What must be absent for the test to hold: the members of the set or relation for
    /// `empty`, the diagonal for `irreflexive`.
    fn members<S: ClauseSink>(&mut self, sink: &mut S, kind: CheckKind, expr: &TExpr) -> Vec<Bool> {
        let mask = self.members_mask(sink, kind, expr);
        match (kind, self.eval(sink, expr, mask.as_ref()).as_ref()) {
            (CheckKind::Empty, Val::Set(s)) => s.clone(),
            (CheckKind::Empty, Val::Rel(r)) => r.iter().map(|(_, _, l)| l).collect(),
            (_, Val::Rel(r)) => r
                .iter()
                .filter(|&(a, b, _)| a == b)
                .map(|(_, _, l)| l)
                .collect(),
            // The checker gives acyclic and irreflexive relations only.
            (_, Val::Set(_)) => Vec::new(),
        }
    }

    /// `e` is a union one of whose operands is the base relation `base`, so `e` contains it.
    fn contains_base(&self, e: &TExpr, base: Base) -> bool {
        holds_base(self.model, e, base)
    }

    /// `e` without its union operands in `strip` (looked through definitions); `None` when
    /// nothing is left.
    fn strip_union(&self, e: &TExpr, strip: &[Base]) -> Option<TExpr> {
        match e {
            TExpr::Base(b) if strip.contains(b) => None,
            TExpr::Def(id) if strip.iter().any(|&b| self.contains_base(e, b)) => {
                let (_, body, _) = self.model.defs.get(*id)?;
                self.strip_union(body, strip)
            }
            TExpr::Binary(BinOp::Union, a, b) => {
                match (self.strip_union(a, strip), self.strip_union(b, strip)) {
                    (Some(a), Some(b)) => {
                        Some(TExpr::Binary(BinOp::Union, Box::new(a), Box::new(b)))
                    }
                    (rest, None) | (None, rest) => rest,
                }
            }
            _ => Some(e.clone()),
        }
    }

    /// `selector -> r acyclic`, with the rank (or transitive) order of `acyclic.rs`.
    ///
    /// When `r` contains program order (`chains`), its program-order edges are replaced by
    /// unconditional constraints between consecutive events of each thread (of each
    /// location, for `po-loc`), as the hand-written SC encoding does. Sound because an
    /// acyclic `r` that contains `po` between executed events stays acyclic with `po`
    /// between all events: an event that does not execute has no other edge, and can be
    /// placed right after the last executed event before it in its thread (of its location).
    fn acyclic<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        r: &Relation,
        selector: Bool,
        chains: Chains,
    ) {
        let mut edges: Vec<(EventId, EventId, Bool)> = Vec::new();
        for (a, b, l) in r.iter() {
            if a == b {
                sink.clause(&[!selector, !l]);
            } else {
                edges.push((a, b, l));
            }
        }
        let events = self.enc.events;
        let same_chain = |a: EventId, b: EventId| match chains {
            Chains::None => false,
            Chains::Po => true,
            Chains::PoLoc => {
                let (x, y) = (&events.events[a], &events.events[b]);
                x.is_located() && y.is_located() && x.location == y.location
            }
        };
        // The chains' edges were not built (see `require`): for the nodes that may lie on a
        // cycle, consecutive members of each chain reach what the whole relation does.
        let mut candidate_edges = edges.clone();
        if chains != Chains::None {
            for thread in &events.threads {
                let members: Vec<EventId> = match chains {
                    Chains::PoLoc => thread
                        .iter()
                        .copied()
                        .filter(|&e| events.events[e].is_located())
                        .collect(),
                    _ => thread.clone(),
                };
                let mut last: HashMap<Option<usize>, EventId> = HashMap::new();
                for &b in &members {
                    let key = match chains {
                        Chains::PoLoc => events.events[b].location,
                        _ => None,
                    };
                    if let Some(a) = last.insert(key, b) {
                        candidate_edges.push((a, b, Bool::TRUE));
                    }
                }
            }
        }
        let nodes = cycle_candidates(&candidate_edges);
        edges.retain(|(a, b, _)| nodes.contains(a) && nodes.contains(b));
        edges.retain(|&(a, b, _)| !(events.po(a, b) && same_chain(a, b)));
        let mut chain_pairs = Vec::new();
        if chains != Chains::None {
            for thread in &events.threads {
                let members: Vec<EventId> = thread
                    .iter()
                    .copied()
                    .filter(|e| nodes.contains(e))
                    .collect();
                for (i, &a) in members.iter().enumerate() {
                    // The next member of the same chain.
                    if let Some(&b) = members[i + 1..].iter().find(|&&b| same_chain(a, b)) {
                        chain_pairs.push((a, b));
                    }
                }
            }
        }
        let redundant = implied_constant_edges(&edges);
        let mut ordered: Vec<EventId> = nodes.into_iter().collect();
        ordered.sort_unstable();
        if ordered.is_empty() {
            return;
        }
        let mut order = Order::new(sink, &ordered, self.strategy);
        for &(a, b) in &chain_pairs {
            let before = order.before(sink, a, b);
            sink.clause(&[!selector, before]);
        }
        for (a, b, l) in edges {
            if redundant.contains(&(a, b)) {
                continue;
            }
            let before = order.before(sink, a, b);
            sink.clause(&[!selector, !l, before]);
        }
        order.close_over_chains(sink, &chain_pairs, &|e| events.events[e].thread, selector);
        self.orders.push(order);
    }

    /// The closure `e` of `inner` on the pairs `wanted`.
    fn closure_of<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        e: &TExpr,
        inner: &TExpr,
        wanted: &Mask,
    ) -> Relation {
        let needed = self.closure_mask(sink, e, inner, Some(wanted));
        if self.contains_base(inner, Base::Po) {
            return match self.closure_operand(inner) {
                Some(rest) => self.closure_over_po(sink, &rest, &needed, wanted),
                None => self.pairwise_rel(sink, Base::Po, Some(wanted)),
            };
        }
        let r = self.rel(sink, inner, Some(&needed));
        let c = closure(sink, &r);
        let mut out = Relation::new();
        for (a, b, l) in c.iter().filter(|&(a, b, _)| wanted.get(a, b)) {
            out.set(a, b, l);
        }
        out
    }

    /// For a closure of `inner` that contains `po`: `inner` without it (`None` when nothing
    /// is left, or when `inner` does not contain `po`, see `closure_of`).
    fn closure_operand(&self, inner: &TExpr) -> Option<TExpr> {
        if self.contains_base(inner, Base::Po) {
            self.strip_union(inner, &[Base::Po])
        } else {
            None
        }
    }

    /// `(po | rest)+` on the pairs `wanted`, reading `rest` on the pairs `needed`.
    ///
    /// Squaring the whole relation costs a gate per path of two edges, and program order
    /// alone has `n^3 / 6` of them per thread. But program order between executed events
    /// is transitive, so a path is a program-order step or leaves its first thread at the
    /// source of a `rest` edge: `(po | B)+ = po | po?; B; (po?; B)*; po?`. The inner
    /// closure only relates sources of `B` (few: initial writes, releases, unlocks), and
    /// `po?` on either side costs one gate per pair. A pair ordered by program order is in
    /// the closure exactly when both events execute (every relation relates executed events
    /// only): no gate at all.
    fn closure_over_po<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        rest: &TExpr,
        needed: &Mask,
        wanted: &Mask,
    ) -> Relation {
        let enc = self.enc;
        let events = enc.events;
        let fb = &enc.feasible;
        let b = self.rel(sink, rest, Some(needed));
        let mut sources: Vec<EventId> = b.iter().map(|(s, _, _)| s).collect();
        sources.dedup();
        // One step from source to source: a `B` edge, then program order (or nothing).
        // The edge implies that its target executes, so `po(t, s)` adds only `fb(s)`.
        let mut ways: BTreeMap<(EventId, EventId), Vec<Bool>> = BTreeMap::new();
        for (s, t, l) in b.iter() {
            for &next in &sources {
                if next == t {
                    ways.entry((s, next)).or_default().push(l);
                } else if events.po(t, next) {
                    let v = sink.and2(l, fb[next]);
                    ways.entry((s, next)).or_default().push(v);
                }
            }
        }
        let mut step = Relation::new();
        for ((s, next), w) in ways {
            let v = sink.or(&w);
            step.set(s, next, v);
        }
        // From a source, through any number of steps, and one last `B` edge.
        let steps = closure(sink, &step);
        let further = sequence(sink, &steps, &b, None);
        let reach = union(sink, &b, &further);
        // `leave(a, t)`: a path from `a` to `t` that starts in `a`'s thread with
        // `po?` and ends with a `B` edge into `t`.
        let mut leave: HashMap<(EventId, EventId), Bool> = HashMap::new();
        let mut leave_of = |sink: &mut S, a: EventId, t: EventId| -> Bool {
            if let Some(&l) = leave.get(&(a, t)) {
                return l;
            }
            let later: Vec<Bool> = sources
                .iter()
                .filter(|&&s| events.po(a, s))
                .map(|&s| reach.get(s, t))
                .collect();
            let any = sink.or(&later);
            let from_later = sink.and2(fb[a], any);
            let l = sink.or2(reach.get(a, t), from_later);
            leave.insert((a, t), l);
            l
        };
        let mut out = Relation::new();
        for (a, c) in wanted.iter() {
            if events.po(a, c) {
                let l = self.pair(sink, a, c);
                out.set(a, c, l);
                continue;
            }
            let direct = leave_of(sink, a, c);
            let earlier: Vec<EventId> = match events.events[c].thread {
                Some(th) => events.threads[th]
                    .iter()
                    .copied()
                    .take_while(|&t| t != c)
                    .collect(),
                None => Vec::new(),
            };
            let through: Vec<Bool> = earlier.iter().map(|&t| leave_of(sink, a, t)).collect();
            let any = sink.or(&through);
            let via = sink.and2(fb[c], any);
            let l = sink.or2(direct, via);
            out.set(a, c, l);
        }
        out
    }

    fn rel<S: ClauseSink>(&mut self, sink: &mut S, e: &TExpr, mask: Option<&Mask>) -> Relation {
        match self.eval(sink, e, mask).as_ref() {
            Val::Rel(r) => r.clone(),
            Val::Set(_) => Relation::new(),
        }
    }

    fn set<S: ClauseSink>(&mut self, sink: &mut S, e: &TExpr) -> Vec<Bool> {
        match self.eval(sink, e, None).as_ref() {
            Val::Set(s) => s.clone(),
            Val::Rel(_) => vec![Bool::FALSE; self.enc.events.len()],
        }
    }

    /// The value of `e`; with a mask, only the pairs in it (relations only).
    fn eval<S: ClauseSink>(&mut self, sink: &mut S, e: &TExpr, mask: Option<&Mask>) -> Rc<Val> {
        let n = self.enc.events.len();
        let value = match e {
            TExpr::Base(b) if self.pairwise(*b).is_some() => {
                Val::Rel(self.pairwise_rel(sink, *b, mask))
            }
            TExpr::Base(b) => return restrict(self.base(sink, *b), mask),
            TExpr::Def(id) => {
                let id = *id;
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
                return restrict(v, mask);
            }
            TExpr::Empty(Type::Set) => Val::Set(vec![Bool::FALSE; n]),
            TExpr::Empty(Type::Rel) => Val::Rel(Relation::new()),
            TExpr::DifferentValues(r) => {
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
            TExpr::Domain(r) | TExpr::Range(r) => {
                let rel = self.rel(sink, r, None);
                let mut members: Vec<Vec<Bool>> = vec![Vec::new(); n];
                for (a, b, l) in rel.iter() {
                    let e = if matches!(e, TExpr::Domain(_)) { a } else { b };
                    members[e].push(l);
                }
                Val::Set(members.iter().map(|m| sink.or(m)).collect())
            }
            TExpr::Unary(op, inner) => match op {
                UnOp::Identity => {
                    let s = self.set(sink, inner);
                    let mut r = Relation::new();
                    for (e, &b) in s.iter().enumerate() {
                        if allowed(mask, e, e) {
                            r.set(e, e, b);
                        }
                    }
                    Val::Rel(r)
                }
                UnOp::Inverse => {
                    let flipped: Option<Mask> = mask.map(Bits::transpose);
                    let r = self.rel(sink, inner, flipped.as_ref());
                    let mut out = Relation::new();
                    for (a, b, l) in r.iter() {
                        out.set(b, a, l);
                    }
                    Val::Rel(out)
                }
                UnOp::Plus | UnOp::Star | UnOp::Opt => {
                    let all;
                    let wanted = match mask {
                        Some(m) => m,
                        None => {
                            all = self.ub_rel(sink, e);
                            &all
                        }
                    };
                    let mut result = if *op == UnOp::Opt {
                        self.rel(sink, inner, Some(wanted))
                    } else {
                        self.closure_of(sink, e, inner, wanted)
                    };
                    if *op != UnOp::Plus {
                        let id = self.pairwise_rel(sink, Base::Id, Some(wanted));
                        result = union(sink, &result, &id);
                    }
                    return restrict(Rc::new(Val::Rel(result)), mask);
                }
            },
            TExpr::Binary(op, a, b) => match op {
                BinOp::Union => match (
                    self.eval(sink, a, mask).as_ref(),
                    self.eval(sink, b, mask).as_ref(),
                ) {
                    (Val::Set(x), Val::Set(y)) => {
                        Val::Set(x.iter().zip(y).map(|(&p, &q)| sink.or2(p, q)).collect())
                    }
                    (Val::Rel(x), Val::Rel(y)) => Val::Rel(union(sink, x, y)),
                    _ => Val::Rel(Relation::new()),
                },
                BinOp::Inter | BinOp::Diff => {
                    // The cheaper operand first (a name rather than a compound expression),
                    // and the other only where the first may hold.
                    let swap = *op == BinOp::Inter && !is_name(a) && is_name(b);
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
                    let x = self.eval(sink, first, first_mask.as_ref());
                    let y = match x.as_ref() {
                        Val::Rel(x) => {
                            let mut keys = Bits::new(n);
                            for (p, q, _) in x.iter() {
                                keys.set(p, q);
                            }
                            self.eval(sink, second, Some(&keys))
                        }
                        Val::Set(_) => self.eval(sink, second, None),
                    };
                    let negate = *op == BinOp::Diff;
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
                                let other = y.get(p, q);
                                let v = sink.and2(l, if negate { !other } else { other });
                                out.set(p, q, v);
                            }
                            Val::Rel(out)
                        }
                        _ => Val::Rel(Relation::new()),
                    }
                }
                BinOp::Seq => {
                    let (na, nb) = self.compose_masks(sink, a, b, mask);
                    let x = self.rel(sink, a, Some(&na));
                    let y = self.rel(sink, b, Some(&nb));
                    Val::Rel(sequence(sink, &x, &y, mask))
                }
                BinOp::Product => {
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
            },
        };
        Rc::new(value)
    }

    /// A base relation or set, built once.
    fn base<S: ClauseSink>(&mut self, sink: &mut S, b: Base) -> Rc<Val> {
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
            Base::Po | Base::PoLoc | Base::Id | Base::Loc | Base::Int | Base::Ext => {
                Val::Rel(self.pairwise_rel(sink, b, None))
            }
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
            Base::Ctrl => self.dependency(sink, &events.dependencies.ctrl),
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
}

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
    fn fixpoint<S: ClauseSink>(&mut self, sink: &mut S, g: usize) {
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

fn same_ub(a: &Ub, b: &Ub) -> bool {
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

fn union<S: ClauseSink>(sink: &mut S, x: &Relation, y: &Relation) -> Relation {
    let mut out = x.clone();
    for (a, b, l) in y.iter() {
        let v = sink.or2(x.get(a, b), l);
        out.set(a, b, v);
    }
    out
}

/// `x ; y`, the sparse join; with a mask, only the pairs in it.
fn sequence<S: ClauseSink>(
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

/// `r+`, exactly: squaring `c := c | c;c` doubles the path length covered, so
/// `ceil(log2(nodes))` rounds reach every simple path and every cycle.
fn closure<S: ClauseSink>(sink: &mut S, r: &Relation) -> Relation {
    let mut nodes = HashSet::new();
    for (a, b, _) in r.iter() {
        nodes.insert(a);
        nodes.insert(b);
    }
    let mut c = r.clone();
    let mut covered = 1usize;
    while covered < nodes.len() {
        let step = sequence(sink, &c, &c, None);
        c = union(sink, &c, &step);
        covered *= 2;
    }
    c
}

/// The nodes that may lie on a cycle: repeatedly drop nodes without a possible incoming or
/// outgoing edge among the remaining ones.
fn cycle_candidates(edges: &[(EventId, EventId, Bool)]) -> HashSet<EventId> {
    let mut nodes: HashSet<EventId> = HashSet::new();
    for &(a, b, _) in edges {
        nodes.insert(a);
        nodes.insert(b);
    }
    loop {
        let mut has_in: HashSet<EventId> = HashSet::new();
        let mut has_out: HashSet<EventId> = HashSet::new();
        for &(a, b, _) in edges {
            if nodes.contains(&a) && nodes.contains(&b) {
                has_out.insert(a);
                has_in.insert(b);
            }
        }
        let before = nodes.len();
        nodes.retain(|n| has_in.contains(n) && has_out.contains(n));
        if nodes.len() == before {
            return nodes;
        }
    }
}

/// Constant-true edges `a -> b` with a constant-true path `a -> c -> b`: any strict order
/// containing the other two contains this one. Only sound when the constant edges are
/// acyclic (the transitive reduction of a DAG keeps its closure), so nothing is dropped
/// otherwise.
fn implied_constant_edges(edges: &[(EventId, EventId, Bool)]) -> HashSet<(EventId, EventId)> {
    let mut succ: HashMap<EventId, HashSet<EventId>> = HashMap::new();
    for &(a, b, l) in edges {
        if l.is_true() {
            succ.entry(a).or_default().insert(b);
        }
    }
    if has_cycle(&succ) {
        return HashSet::new();
    }
    let mut implied = HashSet::new();
    for (&a, targets) in &succ {
        for &b in targets {
            if targets
                .iter()
                .any(|&c| c != b && succ.get(&c).is_some_and(|s| s.contains(&b)))
            {
                implied.insert((a, b));
            }
        }
    }
    implied
}

fn has_cycle(succ: &HashMap<EventId, HashSet<EventId>>) -> bool {
    let mut indegree: HashMap<EventId, usize> = HashMap::new();
    for (&a, targets) in succ {
        indegree.entry(a).or_insert(0);
        for &b in targets {
            *indegree.entry(b).or_insert(0) += 1;
        }
    }
    let mut ready: Vec<EventId> = indegree
        .iter()
        .filter(|(_, &d)| d == 0)
        .map(|(&n, _)| n)
        .collect();
    let mut seen = 0;
    while let Some(n) = ready.pop() {
        seen += 1;
        for &b in succ.get(&n).into_iter().flatten() {
            if let Some(d) = indegree.get_mut(&b) {
                *d -= 1;
                if *d == 0 {
                    ready.push(b);
                }
            }
        }
    }
    seen < indegree.len()
}
