//! herd's library, known natively: the files herd7 finds in its library folder that
//! generate coherence orders (`cross.cat`, `cos.cat` and its variants, `stdlib.cat`), the
//! `with x from ...` statements they and the kernel's `lock.cat` use, and herd's base
//! vocabulary for the models that generate their own coherence.
//!
//! herd enumerates candidate relations in the model (`with co from generate_cos(cobase)`:
//! every per-location total order of the writes that extends `cobase`); nemos enumerates
//! `rf` and `co` in the encoding. So a generated coherence order is nemos's `co` on the
//! writes the model's `W` holds at that point, and the order it must extend is a check;
//! `cross` over the single edges into each event of a set (the kernel's lock.cat, for the
//! reads of failed trylocks and of `spin_is_locked`) is those events' own reads-from, each
//! required to be one of its candidates.
//!
//! A model that generates its coherence order is herd's: its base sets and relations are
//! herd's, in which the lock events (`LKR`, `LKW`, `UL`, `LF`, `RL`, `RU`) are not memory
//! accesses (the model puts them where it wants them, as lock.cat does). In nemos's own
//! vocabulary, a lock is a read and a write of memory.

use std::sync::Arc;

use super::{Base, Bound, Check, Checker, TExpr, Type};
use crate::cat::ast::{self, BinOp, CheckKind, Expr, ExprKind, Statement, UnOp};
use crate::diagnostics::{Diagnostic, Span};

/// The files of herd's library that nemos knows natively, whatever folder the model is in:
/// its own text of each (nemos's dialect; `with co from generate_cos(...)` is native).
const LIBRARY: &[(&str, &str)] = &[
    ("cross.cat", include_str!("../../../models/herd/cross.cat")),
    (
        "stdlib.cat",
        include_str!("../../../models/herd/stdlib.cat"),
    ),
    ("cos.cat", include_str!("../../../models/herd/cos.cat")),
    ("cos-opt.cat", include_str!("../../../models/herd/cos.cat")),
    (
        "cos-ok-opt.cat",
        include_str!("../../../models/herd/cos.cat"),
    ),
    (
        "cos-no-opt.cat",
        include_str!("../../../models/herd/cos-no-opt.cat"),
    ),
];

/// nemos's text of a file of herd's library it knows natively.
pub(super) fn library_file(path: &str) -> Option<crate::diagnostics::SourceFile> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    LIBRARY
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, text)| crate::diagnostics::SourceFile::new(format!("nemos:herd/{n}"), *text))
}

/// The library files whose inclusion makes a model generate its own coherence order.
fn generates_co(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    name == "cross.cat" || name.starts_with("cos")
}

/// The marker `{e}` stands for while the body of a function mapped over a set is checked
/// (see [`Checker::family`]): never left in a model.
const ELEMENT: usize = usize::MAX;

/// A set of sets of single edges, one set per event of `targets`: the edges of `edges`
/// into that event. herd builds it with `map` (the kernel's lock.cat, for `cross`).
#[derive(Clone, Debug)]
pub(super) struct Family {
    targets: TExpr,
    edges: TExpr,
}

impl Checker<'_> {
    /// Whether the model (its statements and the files it includes, looked through the
    /// resolver) generates its coherence order with herd's library.
    pub(super) fn scan_generates_co(&mut self, statements: &[Statement], depth: usize) -> bool {
        if depth > 16 {
            return false;
        }
        for s in statements {
            let found = match s {
                Statement::Include { path, .. } if generates_co(path) => true,
                Statement::Include { path, .. } if library_file(path).is_none() => {
                    let file = match self.read.get(path) {
                        Some(file) => Ok(file.clone()),
                        None => (self.resolve)(path),
                    };
                    match file {
                        Ok(file) => {
                            self.read.insert(path.clone(), file.clone());
                            match crate::cat::parse(&file) {
                                Ok(ast) => self.scan_generates_co(&ast.statements, depth + 1),
                                Err(_) => false,
                            }
                        }
                        Err(_) => false,
                    }
                }
                Statement::IfVariant {
                    then, otherwise, ..
                } => {
                    self.scan_generates_co(then, depth + 1)
                        || self.scan_generates_co(otherwise, depth + 1)
                }
                _ => false,
            };
            if found {
                return true;
            }
        }
        false
    }

    /// A name of herd's base vocabulary as herd's models read it, where it differs from
    /// nemos's: in a model that generates its coherence order, lock events are not memory
    /// accesses; `FW` (the final writes) and `sm` (same instruction) everywhere.
    pub(super) fn herd_name(&mut self, n: &str) -> Option<(TExpr, Type)> {
        let base = |b: Base| Box::new(TExpr::Base(b));
        let minus = |a: Box<TExpr>, b: TExpr| TExpr::Binary(BinOp::Diff, a, Box::new(b));
        let identity = |s: TExpr| Box::new(TExpr::Unary(UnOp::Identity, Box::new(s)));
        if self.herd_view {
            // Built at the first name looked up (it registers the lock tags), kept after.
            if self.lock_accesses.is_none() {
                self.lock_accesses = Some(self.build_lock_accesses());
            }
            if !matches!(
                n,
                "R" | "W" | "M" | "RMW" | "X" | "rmw" | "rf" | "rfe" | "rfi"
            ) {
                return self.herd_other_name(n);
            }
            let (reads, writes) = self.lock_accesses();
            let r = minus(base(Base::R), reads.clone());
            let w = minus(base(Base::W), writes.clone());
            let locks = TExpr::Binary(BinOp::Union, Box::new(reads), Box::new(writes));
            let rf = || TExpr::Binary(BinOp::Seq, base(Base::Rf), identity(r.clone()));
            let split = |ext: Base| TExpr::Binary(BinOp::Inter, Box::new(rf()), base(ext));
            let found = match n {
                "R" => Some((r.clone(), Type::Set)),
                "W" => Some((w.clone(), Type::Set)),
                "M" => Some((minus(base(Base::M), locks.clone()), Type::Set)),
                "RMW" | "X" => Some((minus(base(Base::X), locks.clone()), Type::Set)),
                "rmw" => Some((
                    TExpr::Binary(
                        BinOp::Seq,
                        identity(minus(base(Base::X), locks)),
                        base(Base::Rmw),
                    ),
                    Type::Rel,
                )),
                "rf" => Some((rf(), Type::Rel)),
                "rfe" => Some((split(Base::Ext), Type::Rel)),
                "rfi" => Some((split(Base::Int), Type::Rel)),
                _ => None,
            };
            if found.is_some() {
                return found;
            }
        }
        self.herd_other_name(n)
    }

    /// herd's names that do not depend on its view of the base vocabulary.
    fn herd_other_name(&mut self, n: &str) -> Option<(TExpr, Type)> {
        let base = |b: Base| Box::new(TExpr::Base(b));
        let minus = |a: Box<TExpr>, b: TExpr| TExpr::Binary(BinOp::Diff, a, Box::new(b));
        let identity = |s: TExpr| Box::new(TExpr::Unary(UnOp::Identity, Box::new(s)));
        match n {
            // herd's final writes: each location's last write (nemos's co-last), but for
            // the initial one; herd keeps them for the locations its condition observes.
            "FW" => {
                let (_, writes) = self.lock_accesses();
                let w = if self.herd_view {
                    minus(base(Base::W), writes)
                } else {
                    TExpr::Base(Base::W)
                };
                let later = TExpr::Binary(
                    BinOp::Seq,
                    identity(w.clone()),
                    Box::new(TExpr::Binary(
                        BinOp::Seq,
                        base(Base::Co),
                        identity(w.clone()),
                    )),
                );
                let last = minus(Box::new(w), TExpr::Domain(Box::new(later)));
                Some((minus(Box::new(last), TExpr::Base(Base::IW)), Type::Set))
            }
            // herd's events of one instruction: nemos's events are each their own (a
            // read-modify-write's two events are linked by `rmw`, as herd's ARM ones are).
            "sm" => Some((TExpr::Base(Base::Id), Type::Rel)),
            _ => None,
        }
    }

    /// herd's `tag2set('t)`: the events carrying tag `t`; C11's memory orders (herd's
    /// c11.bell) are the events of that order, which nemos knows from the calls.
    pub(super) fn tag2set(&mut self, tag: &str) -> TExpr {
        let order = match tag {
            "acq" => Base::Acq,
            "rel" => Base::Rel,
            "sc" => Base::Sc,
            "rlx" => Base::Rlx,
            "acq_rel" => Base::AcqRel,
            "na" => Base::Na,
            // Consume is acquire in nemos (`ACQ` holds it).
            "con" => return TExpr::Empty(Type::Set),
            _ => return self.tag_set(tag).0,
        };
        TExpr::Base(order)
    }

    /// The reads and the writes of herd's lock events.
    fn lock_accesses(&mut self) -> (TExpr, TExpr) {
        if let Some(both) = &self.lock_accesses {
            return both.clone();
        }
        let both = self.build_lock_accesses();
        self.lock_accesses = Some(both.clone());
        both
    }

    fn build_lock_accesses(&mut self) -> (TExpr, TExpr) {
        let union = |a: TExpr, b: TExpr| TExpr::Binary(BinOp::Union, Box::new(a), Box::new(b));
        if !self.tags_from_events {
            return (
                TExpr::Base(Base::Lkr),
                union(TExpr::Base(Base::Lkw), TExpr::Base(Base::Ul)),
            );
        }
        let mut set = |n: &str| self.lock_set(n).unwrap_or(TExpr::Empty(Type::Set));
        let reads = union(union(set("LKR"), set("LF")), union(set("RL"), set("RU")));
        let writes = union(set("LKW"), TExpr::Base(Base::Ul));
        (reads, writes)
    }

    /// `with name from expr`: the definition it makes, and the checks that keep nemos's
    /// choice among herd's candidates.
    pub(super) fn with_from(
        &mut self,
        file: &str,
        name: &ast::Name,
        expr: &Expr,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let unsupported = || {
            Diagnostic::new("nemos does not honour this `with ... from`", expr.span)
                .with_label(format!("chooses `{}` among candidates", name.text))
                .with_help(
                    "nemos enumerates `rf` and `co` itself; it reads `with co from \
                 generate_cos(r)` (herd's cos.cat) as its coherence order extending `r`, and \
                 `with x from cross(map f S)` (the kernel's lock.cat) where `f e` is the \
                 single edges of a relation into `e`, as the reads-from of the events of `S`",
                )
        };
        let ExprKind::Apply(f, args) = &expr.kind else {
            return Err(unsupported());
        };
        let [arg] = args.as_slice() else {
            return Err(unsupported());
        };
        if self.scope.contains_key(&f.text) {
            return Err(unsupported());
        }
        let (value, check) = match f.text.as_str() {
            "generate_cos" => {
                let (base, ty) = self.infer(arg)?;
                if ty == Some(Type::Set) {
                    return Err(super::infer::not_a_relation(arg, "`generate_cos`"));
                }
                let (w, _) = self.name("W", f.span)?;
                let writes = TExpr::Binary(BinOp::Product, Box::new(w.clone()), Box::new(w));
                let co = TExpr::Binary(
                    BinOp::Inter,
                    Box::new(TExpr::Base(Base::Co)),
                    Box::new(writes.clone()),
                );
                let base = super::infer::fix(base, ty, Type::Rel);
                let observed = TExpr::Binary(BinOp::Inter, Box::new(base), Box::new(writes));
                (co, (observed, Some("ConsCo")))
            }
            "cross" => {
                let family = match self.family(arg)? {
                    Some(family) => family,
                    None => return Err(unsupported()),
                };
                let rf = TExpr::Binary(
                    BinOp::Inter,
                    Box::new(TExpr::Base(Base::Rf)),
                    Box::new(family.edges),
                );
                let chosen = TExpr::Binary(
                    BinOp::Seq,
                    Box::new(rf),
                    Box::new(TExpr::Unary(
                        UnOp::Identity,
                        Box::new(family.targets.clone()),
                    )),
                );
                (chosen, (family.targets, None))
            }
            _ => return Err(unsupported()),
        };
        let id = self.model.defs.len();
        self.model
            .defs
            .push((name.text.clone(), Arc::new(value), Some(Type::Rel)));
        let (must_be_empty, check_name) = check;
        // What the choice must satisfy: co extends the observed order (herd generates
        // only such orders); each event of the family reads from one of its candidates.
        let must_be_empty = match check_name {
            Some(_) => TExpr::Binary(
                BinOp::Diff,
                Box::new(must_be_empty),
                Box::new(TExpr::Def(id)),
            ),
            None => TExpr::Binary(
                BinOp::Diff,
                Box::new(must_be_empty),
                Box::new(TExpr::Range(Box::new(TExpr::Def(id)))),
            ),
        };
        self.model.checks.push(Check {
            kind: CheckKind::Empty,
            negated: false,
            flag: false,
            name: check_name.map(str::to_string),
            expr: must_be_empty,
            file: file.to_string(),
            span,
        });
        self.scope.insert(
            name.text.clone(),
            Bound::Value(TExpr::Def(id), Some(Type::Rel)),
        );
        Ok(())
    }

    /// The set of sets of single edges `e` builds, if it is one: a name bound to one,
    /// `let .. in` around one, or `map f S` where `f e` is `map g r`, `g` turns a pair into
    /// a relation (`p ++ 0`) and `r`'s edges all end in `e` (written `{e}`: on the right of
    /// a product, under unions, intersections and the left of differences).
    pub(super) fn family(&mut self, e: &Expr) -> Result<Option<Family>, Diagnostic> {
        match &e.kind {
            ExprKind::Name(n) => Ok(match self.scope.get(n) {
                Some(Bound::Family(f)) => Some(f.clone()),
                _ => None,
            }),
            ExprKind::LetIn {
                recursive: false,
                bindings,
                body,
            } if bindings.iter().all(|b| b.params.is_some()) => {
                let saved = self.scope.clone();
                let result = match self.bindings(false, bindings) {
                    Ok(new) => {
                        self.scope.extend(new);
                        self.family(body)
                    }
                    Err(mut ds) => Err(ds.remove(0)),
                };
                self.scope = saved;
                result
            }
            ExprKind::Apply(map, args) if map.text == "map" && !self.scope.contains_key("map") => {
                let [f, set] = args.as_slice() else {
                    return Ok(None);
                };
                let Some(function) = self.function(f) else {
                    return Ok(None);
                };
                let [param] = function.params.as_slice() else {
                    return Ok(None);
                };
                // `map f S` over a relation of single edges is the inner map: not a family.
                let ExprKind::Apply(inner, inner_args) = &function.body.kind else {
                    return Ok(None);
                };
                let [g, r] = inner_args.as_slice() else {
                    return Ok(None);
                };
                if inner.text != "map" || !self.pair_to_relation(g) {
                    return Ok(None);
                }
                let (targets, ty) = self.infer(set)?;
                if ty == Some(Type::Rel) {
                    return Err(Diagnostic::new(
                        "`map` over a family needs a set of events",
                        set.span,
                    )
                    .with_label("a relation"));
                }
                let targets = super::infer::fix(targets, ty, Type::Set);
                let mut scope = function.scope.clone();
                scope.insert(param.clone(), Bound::Element);
                let saved = std::mem::replace(&mut self.scope, scope);
                let defs = self.model.defs.len();
                let edges = self.infer(r);
                self.scope = saved;
                let (edges, ty) = edges?;
                let leaked = self.model.defs[defs..]
                    .iter()
                    .any(|d| mentions_element(&d.1));
                if ty == Some(Type::Set) || leaked {
                    return Err(not_pointwise(r.span));
                }
                match pointwise(&super::infer::fix(edges, ty, Type::Rel), &targets) {
                    Some(edges) => Ok(Some(Family { targets, edges })),
                    None => Err(not_pointwise(r.span)),
                }
            }
            _ => Ok(None),
        }
    }

    /// The function a name is bound to.
    fn function(&self, e: &Expr) -> Option<std::rc::Rc<super::Function>> {
        match (&e.kind, e) {
            (ExprKind::Name(n), _) => match self.scope.get(n) {
                Some(Bound::Fun(f)) => Some(f.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// `g` turns a pair into a relation of that one pair: `let g p = p ++ 0`.
    fn pair_to_relation(&self, g: &Expr) -> bool {
        let Some(function) = self.function(g) else {
            return false;
        };
        let [p] = function.params.as_slice() else {
            return false;
        };
        match &function.body.kind {
            ExprKind::Add(a, b) => {
                matches!(&a.kind, ExprKind::Name(n) if n == p) && matches!(b.kind, ExprKind::Empty)
            }
            _ => false,
        }
    }

    /// `{e}` for the event a mapped function is applied to.
    pub(super) fn element(&self, items: &[Expr]) -> Option<TExpr> {
        match items {
            [Expr {
                kind: ExprKind::Name(n),
                ..
            }] if matches!(self.scope.get(n), Some(Bound::Element)) => Some(TExpr::Def(ELEMENT)),
            _ => None,
        }
    }
}

fn not_pointwise(span: Span) -> Diagnostic {
    Diagnostic::new(
        "nemos reads `map` over a set only for single edges into each event",
        span,
    )
    .with_label("the edges of this relation must all end in the event mapped")
    .with_help(
        "write the relation with `{e}` on the right of a product (`(LKW * {e}) & loc`), \
         under unions, intersections and the left of differences",
    )
}

fn mentions_element(e: &TExpr) -> bool {
    match e {
        TExpr::Def(ELEMENT) => true,
        TExpr::Binary(_, a, b) => mentions_element(a) || mentions_element(b),
        TExpr::Unary(_, a) | TExpr::Domain(a) | TExpr::Range(a) | TExpr::DifferentValues(a) => {
            mentions_element(a)
        }
        _ => false,
    }
}

/// `r` (with `{e}` as the marker) when each of its values holds only edges into `e`, the
/// union of them all: `r` with the set for `{e}`. `None` when it is not so built.
fn pointwise(r: &TExpr, targets: &TExpr) -> Option<TExpr> {
    if !mentions_element(r) {
        return None;
    }
    let free = |e: &TExpr| !mentions_element(e);
    let both = |op: BinOp, a: TExpr, b: TExpr| Some(TExpr::Binary(op, Box::new(a), Box::new(b)));
    match r {
        TExpr::Binary(BinOp::Product, a, b) if free(a) && matches!(**b, TExpr::Def(ELEMENT)) => {
            both(BinOp::Product, (**a).clone(), targets.clone())
        }
        TExpr::Binary(BinOp::Union, a, b) => {
            both(BinOp::Union, pointwise(a, targets)?, pointwise(b, targets)?)
        }
        TExpr::Binary(BinOp::Inter, a, b) => {
            let side = |x: &TExpr| {
                if free(x) {
                    Some(x.clone())
                } else {
                    pointwise(x, targets)
                }
            };
            if free(a) && free(b) {
                return None;
            }
            both(BinOp::Inter, side(a)?, side(b)?)
        }
        TExpr::Binary(BinOp::Diff, a, b) => {
            let right = if free(b) {
                (**b).clone()
            } else {
                pointwise(b, targets)?
            };
            both(BinOp::Diff, pointwise(a, targets)?, right)
        }
        TExpr::Binary(BinOp::Seq, a, b) if free(a) => {
            both(BinOp::Seq, (**a).clone(), pointwise(b, targets)?)
        }
        _ => None,
    }
}
