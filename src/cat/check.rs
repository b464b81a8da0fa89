//! Name resolution and types: from the syntax tree to a [`Model`] the encoder can trust.
//!
//! Two types exist, sets of events and relations between events. Every operator has a
//! signature (`;` and the closures take relations, `[S]` and `S * T` take sets, `|`, `&`, `\`
//! take two of the same kind) and every check needs a relation, except `empty`, which takes
//! either. `0` is empty at any type. A mismatch is reported at the operand that has the wrong
//! type, with the fix when there is an obvious one.

use std::collections::HashMap;

use super::ast::{self, BinOp, CheckKind, Expr, ExprKind, ModelAst, Statement, UnOp};
use crate::diagnostics::Span;
use crate::diagnostics::{Diagnostic, InputError, SourceFile};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Set,
    Rel,
}

impl Type {
    fn word(self) -> &'static str {
        match self {
            Type::Set => "a set of events",
            Type::Rel => "a relation",
        }
    }
}

/// The relations and sets every model can use, computed from the events and the encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    // Sets.
    /// `_`: every event.
    All,
    R,
    W,
    F,
    /// Memory accesses.
    M,
    /// Initial writes.
    IW,
    /// The events of an atomic read-modify-write (herd's exclusive/locked accesses).
    X,
    Rlx,
    Acq,
    Rel,
    AcqRel,
    Sc,
    /// Non-atomic accesses.
    Na,
    /// Atomic accesses.
    A,
    // Relations.
    Po,
    Rf,
    Co,
    Fr,
    Loc,
    Int,
    Ext,
    Id,
    Rmw,
    PoLoc,
    Rfe,
    Rfi,
    Coe,
    Coi,
    Fre,
    Fri,
    /// The lock order: a critical section's unlock before a later lock of the same mutex
    /// in another thread.
    Lko,
}

/// Every name of the base vocabulary, aliases included.
pub const BASE_NAMES: &[(&str, Base)] = &[
    ("_", Base::All),
    ("R", Base::R),
    ("W", Base::W),
    ("F", Base::F),
    ("M", Base::M),
    ("IW", Base::IW),
    ("X", Base::X),
    ("RLX", Base::Rlx),
    ("ACQ", Base::Acq),
    ("REL", Base::Rel),
    ("ACQ_REL", Base::AcqRel),
    ("SC", Base::Sc),
    ("NA", Base::Na),
    ("A", Base::A),
    ("po", Base::Po),
    ("sb", Base::Po),
    ("rf", Base::Rf),
    ("co", Base::Co),
    ("mo", Base::Co),
    ("fr", Base::Fr),
    ("rb", Base::Fr),
    ("loc", Base::Loc),
    ("int", Base::Int),
    ("ext", Base::Ext),
    ("id", Base::Id),
    ("rmw", Base::Rmw),
    ("po-loc", Base::PoLoc),
    ("rfe", Base::Rfe),
    ("rfi", Base::Rfi),
    ("coe", Base::Coe),
    ("coi", Base::Coi),
    ("fre", Base::Fre),
    ("fri", Base::Fri),
    ("lko", Base::Lko),
];

impl Base {
    pub fn ty(self) -> Type {
        use Base::*;
        match self {
            All | R | W | F | M | IW | X | Rlx | Acq | Rel | AcqRel | Sc | Na | A => Type::Set,
            _ => Type::Rel,
        }
    }
}

/// A resolved, typed expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TExpr {
    Base(Base),
    /// The `let` definition with this index in [`Model::defs`].
    Def(usize),
    Empty(Type),
    Binary(BinOp, Box<TExpr>, Box<TExpr>),
    Unary(UnOp, Box<TExpr>),
    Domain(Box<TExpr>),
    Range(Box<TExpr>),
}

/// A check (or flag) of the model.
#[derive(Clone, Debug)]
pub struct Check {
    pub kind: CheckKind,
    pub negated: bool,
    pub flag: bool,
    /// The name after `as`; an unnamed check cannot be skipped.
    pub name: Option<String>,
    pub expr: TExpr,
    /// Where it is written, for messages.
    pub file: String,
    pub span: Span,
}

/// A checked model: its definitions (in order; a later one may use an earlier one) and
/// checks, includes inlined.
#[derive(Clone, Debug)]
pub struct Model {
    pub name: String,
    pub title: Option<String>,
    /// Name, expression, type (`None` for a definition as `0`, which fits either).
    pub defs: Vec<(String, TExpr, Option<Type>)>,
    pub checks: Vec<Check>,
}

impl Model {
    /// The names of the checks that can be skipped, each once, in the order written.
    pub fn check_names(&self) -> Vec<String> {
        self.names(false)
    }

    /// The names of the flags, each once.
    pub fn flag_names(&self) -> Vec<String> {
        self.names(true)
    }

    fn names(&self, flags: bool) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for c in self.checks.iter().filter(|c| c.flag == flags) {
            if let Some(n) = &c.name {
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
        }
        names
    }
}

const MAX_INCLUDE_DEPTH: usize = 16;

struct Checker<'r> {
    resolve: &'r mut dyn FnMut(&str) -> Result<SourceFile, String>,
    scope: HashMap<String, (usize, Option<Type>)>,
    model: Model,
    including: Vec<String>,
}

pub fn check(
    file: &SourceFile,
    name: &str,
    resolve: &mut dyn FnMut(&str) -> Result<SourceFile, String>,
) -> Result<Model, InputError> {
    let mut checker = Checker {
        resolve,
        scope: HashMap::new(),
        model: Model {
            name: name.to_string(),
            title: None,
            defs: Vec::new(),
            checks: Vec::new(),
        },
        including: vec![file.name.clone()],
    };
    let ast = super::parse(file)?;
    checker.model.title = ast.title.clone();
    checker.file(file, &ast)?;
    Ok(checker.model)
}

impl Checker<'_> {
    fn file(&mut self, file: &SourceFile, ast: &ModelAst) -> Result<(), InputError> {
        let mut diagnostics = Vec::new();
        for statement in &ast.statements {
            match statement {
                Statement::Let {
                    recursive,
                    bindings,
                    span,
                } => {
                    if *recursive {
                        diagnostics.push(
                            Diagnostic::new("`let rec` is not supported by nemos's cat subset", *span)
                                .with_label("a recursive definition")
                                .with_help(
                                    "none of the shipped models needs one; write the fixpoint with the closures `+` or `*`",
                                ),
                        );
                        continue;
                    }
                    // `let a = .. and b = ..` binds simultaneously: each sees the scope
                    // before the statement.
                    let mut new = Vec::new();
                    for b in bindings {
                        match self.expr(&b.expr) {
                            Ok((e, ty)) => {
                                let id = self.model.defs.len();
                                self.model.defs.push((b.name.text.clone(), e, ty));
                                new.push((b.name.text.clone(), (id, ty)));
                            }
                            Err(d) => diagnostics.push(d),
                        }
                    }
                    self.scope.extend(new);
                }
                Statement::Check(c) => match self.check_statement(file, c) {
                    Ok(check) => self.model.checks.push(check),
                    Err(d) => diagnostics.push(d),
                },
                Statement::Include { path, span } => {
                    if let Err(e) = self.include(path, *span) {
                        match e {
                            Included::Here(d) => diagnostics.push(d),
                            Included::There(e) => return Err(e),
                        }
                    }
                }
                Statement::Show { .. } => {}
            }
        }
        if diagnostics.is_empty() {
            Ok(())
        } else {
            Err(InputError::new(file, diagnostics))
        }
    }

    fn include(&mut self, path: &str, span: Span) -> Result<(), Included> {
        if self.including.len() >= MAX_INCLUDE_DEPTH || self.including.iter().any(|p| p == path) {
            return Err(Included::Here(
                Diagnostic::new(format!("`{path}` includes itself"), span)
                    .with_label("include cycle"),
            ));
        }
        let file = (self.resolve)(path).map_err(|message| {
            let mut d = Diagnostic::new(format!("cannot include `{path}`: {message}"), span)
                .with_label("included here");
            if let Some(help) = herd_library(path) {
                d = d.with_help(help);
            }
            Included::Here(d)
        })?;
        let ast = super::parse(&file).map_err(Included::There)?;
        self.including.push(path.to_string());
        let result = self.file(&file, &ast);
        self.including.pop();
        result.map_err(Included::There)
    }

    fn check_statement(
        &mut self,
        file: &SourceFile,
        c: &ast::CheckAst,
    ) -> Result<Check, Diagnostic> {
        let (expr, ty) = self.expr(&c.expr)?;
        let expr = fix(expr, ty, Type::Rel);
        if c.kind != CheckKind::Empty && ty == Some(Type::Set) {
            return Err(not_a_relation(&c.expr, &format!("`{}`", c.kind.keyword())));
        }
        if c.negated && c.kind == CheckKind::Acyclic {
            return Err(Diagnostic::new("`~acyclic` is not supported", c.span)
                .with_label("a negated acyclicity test")
                .with_help("negate `empty` or `irreflexive` instead: `~irreflexive r+` says that `r` has a cycle"));
        }
        if c.flag && c.kind == CheckKind::Acyclic {
            return Err(Diagnostic::new("a flag cannot test acyclicity", c.span)
                .with_label("flag")
                .with_help("flag with `empty` or `irreflexive`, for example `flag ~empty race as undefined`"));
        }
        Ok(Check {
            kind: c.kind,
            negated: c.negated,
            flag: c.flag,
            name: c.name.as_ref().map(|n| n.text.clone()),
            expr,
            file: file.name.clone(),
            span: c.span,
        })
    }

    fn expr(&mut self, e: &Expr) -> Result<(TExpr, Option<Type>), Diagnostic> {
        let (t, ty) = self.infer(e)?;
        Ok((t, ty))
    }
}

/// What to say about an include of one of herd's library files, which nemos does not ship.
fn herd_library(path: &str) -> Option<&'static str> {
    match path {
        "cos.cat" | "cos-opt.cat" | "cos-no-opt.cat" | "cross.cat" => Some(
            "this is a file of herd's library: it generates the coherence orders (with \
             `with co from ...`), which nemos enumerates itself; delete the include \
             (`co`, `fr` and their `e`/`i` parts are nemos's base relations)",
        ),
        "stdlib.cat" => Some(
            "this is herd's standard library, which nemos does not ship; delete the include \
             (`po-loc`, `rfe`, `rfi` and the like are nemos's base relations)",
        ),
        _ => None,
    }
}

enum Included {
    Here(Diagnostic),
    There(InputError),
}

fn not_a_relation(e: &Expr, what: &str) -> Diagnostic {
    let shown = match &e.kind {
        ExprKind::Name(n) => format!("`{n}` is a set of events"),
        _ => "this is a set of events".to_string(),
    };
    Diagnostic::new(format!("{what} needs a relation, but {shown}"), e.span)
        .with_label("a set, not a relation")
        .with_help(match &e.kind {
            ExprKind::Name(n) => format!("`[{n}]` is the identity relation on the set"),
            _ => "`[S]` is the identity relation on a set `S`".to_string(),
        })
}

fn not_a_set(e: &Expr, what: &str) -> Diagnostic {
    let shown = match &e.kind {
        ExprKind::Name(n) => format!("`{n}` is a relation"),
        _ => "this is a relation".to_string(),
    };
    Diagnostic::new(format!("{what} needs a set of events, but {shown}"), e.span)
        .with_label("a relation, not a set")
        .with_help("`domain(r)` and `range(r)` are the sets a relation relates")
}

impl Checker<'_> {
    /// The typed expression and its type; `None` for `0`, which fits either.
    fn infer(&mut self, e: &Expr) -> Result<(TExpr, Option<Type>), Diagnostic> {
        match &e.kind {
            ExprKind::Empty => Ok((TExpr::Empty(Type::Rel), None)),
            ExprKind::Name(n) => {
                if let Some(&(id, ty)) = self.scope.get(n) {
                    return Ok((TExpr::Def(id), ty));
                }
                if let Some(&(_, base)) = BASE_NAMES.iter().find(|(name, _)| name == n) {
                    return Ok((TExpr::Base(base), Some(base.ty())));
                }
                Err(unknown_name(n, e.span, self.scope.keys()))
            }
            ExprKind::Complement(arg) => {
                // Written out as a difference, so that nothing after this stage knows it.
                let (a, ty) = self.infer(arg)?;
                let all = |t: Type| match t {
                    Type::Set => TExpr::Base(Base::All),
                    Type::Rel => TExpr::Binary(
                        BinOp::Product,
                        Box::new(TExpr::Base(Base::All)),
                        Box::new(TExpr::Base(Base::All)),
                    ),
                };
                let t = ty.unwrap_or(Type::Rel);
                Ok((
                    TExpr::Binary(BinOp::Diff, Box::new(all(t)), Box::new(fix(a, ty, t))),
                    Some(t),
                ))
            }
            ExprKind::Apply(f, arg) => {
                let (a, ty) = self.infer(arg)?;
                if ty == Some(Type::Set) {
                    return Err(not_a_relation(arg, &format!("`{}`", f.text)));
                }
                match f.text.as_str() {
                    "domain" => Ok((TExpr::Domain(Box::new(a)), Some(Type::Set))),
                    "range" => Ok((TExpr::Range(Box::new(a)), Some(Type::Set))),
                    other => Err(
                        Diagnostic::new(format!("unknown function `{other}`"), f.span)
                            .with_label("not a built-in function")
                            .with_help("the functions are `domain(r)` and `range(r)`"),
                    ),
                }
            }
            ExprKind::Unary(op, arg) => {
                let (a, ty) = self.infer(arg)?;
                let (want, result) = match op {
                    UnOp::Identity => (Type::Set, Type::Rel),
                    _ => (Type::Rel, Type::Rel),
                };
                if ty.is_some_and(|t| t != want) {
                    return Err(match want {
                        Type::Rel => not_a_relation(arg, op.describe()),
                        Type::Set => not_a_set(arg, op.describe()),
                    });
                }
                let a = match (ty, &a) {
                    (None, _) => TExpr::Empty(want),
                    _ => a,
                };
                Ok((TExpr::Unary(*op, Box::new(a)), Some(result)))
            }
            ExprKind::Binary(op, l, r) => {
                let (a, ta) = self.infer(l)?;
                let (b, tb) = self.infer(r)?;
                let what = format!("`{}`", op.symbol());
                match op {
                    BinOp::Seq => {
                        if ta == Some(Type::Set) {
                            return Err(not_a_relation(l, &what));
                        }
                        if tb == Some(Type::Set) {
                            return Err(not_a_relation(r, &what));
                        }
                        Ok((
                            TExpr::Binary(*op, Box::new(fix(a, ta, Type::Rel)), Box::new(fix(b, tb, Type::Rel))),
                            Some(Type::Rel),
                        ))
                    }
                    BinOp::Product => {
                        if ta == Some(Type::Rel) {
                            return Err(not_a_set(l, &format!("the product {what}")));
                        }
                        if tb == Some(Type::Rel) {
                            return Err(not_a_set(r, &format!("the product {what}")));
                        }
                        Ok((
                            TExpr::Binary(*op, Box::new(fix(a, ta, Type::Set)), Box::new(fix(b, tb, Type::Set))),
                            Some(Type::Rel),
                        ))
                    }
                    BinOp::Union | BinOp::Inter | BinOp::Diff => match (ta, tb) {
                        (Some(x), Some(y)) if x != y => Err(Diagnostic::new(
                            format!(
                                "{what} needs two operands of the same type, but the left one is {} and the right one is {}",
                                x.word(),
                                y.word()
                            ),
                            e.span,
                        )
                        .with_label("mixed sets and relations")
                        .with_help("`[S]` turns a set into a relation; `domain(r)`/`range(r)` turn a relation into a set")),
                        _ => {
                            let ty = ta.or(tb);
                            let t = ty.unwrap_or(Type::Rel);
                            Ok((
                                TExpr::Binary(*op, Box::new(fix(a, ta, t)), Box::new(fix(b, tb, t))),
                                ty,
                            ))
                        }
                    },
                }
            }
        }
    }
}

/// Give `0` the type its context needs.
fn fix(e: TExpr, ty: Option<Type>, want: Type) -> TExpr {
    match ty {
        None => TExpr::Empty(want),
        Some(_) => e,
    }
}

fn unknown_name<'a>(
    name: &str,
    span: Span,
    defined: impl Iterator<Item = &'a String>,
) -> Diagnostic {
    let mut known: Vec<&str> = BASE_NAMES.iter().map(|(n, _)| *n).collect();
    let mut defs: Vec<&str> = defined.map(|s| s.as_str()).collect();
    defs.sort_unstable();
    known.extend(defs);
    let distance = |k: &str| edit_distance(k, name);
    let best = known
        .iter()
        .map(|k| distance(k))
        .min()
        .unwrap_or(usize::MAX);
    let close: Vec<&str> = known
        .iter()
        .copied()
        .filter(|k| best <= 2 && best < name.len() && distance(k) == best)
        .take(3)
        .collect();
    let help = if close.is_empty() {
        format!(
            "the base relations and sets are {}",
            BASE_NAMES
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(" ")
        )
    } else {
        format!(
            "did you mean {}?",
            close
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(" or ")
        )
    };
    Diagnostic::new(format!("unknown relation or set `{name}`"), span)
        .with_label("not defined before this point")
        .with_help(help)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}
