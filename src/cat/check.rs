//! Name resolution and types: from the syntax tree to a [`Model`] the encoder can trust.
//!
//! Two types exist, sets of events and relations between events. Every operator has a
//! signature (`;` and the closures take relations, `[S]` and `S * T` take sets, `|`, `&`, `\`
//! take two of the same kind) and every check needs a relation, except `empty`, which takes
//! either. `0` is empty at any type. A mismatch is reported at the operand that has the wrong
//! type, with the fix when there is an obvious one.

use std::collections::HashMap;
use std::rc::Rc;

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
    /// herd's lock events: the read half of a lock (`LKR`), its write half (`LKW`), an
    /// unlock (`UL`).
    Lkr,
    Lkw,
    Ul,
    /// herd's syntactic dependencies (see `events::Dependencies`).
    Addr,
    Data,
    Ctrl,
    /// The events carrying the tag [`Model::tags`]`[i]` (from a `.def` macro).
    Tag(u16),
}

/// The tags nemos gives the events of a `spin_trylock` (both events of a success, the
/// read of a failure) and of a `spin_is_locked` (`program::lower::macros`), from which
/// the sets `LKR`, `LKW`, `LF`, `RL` and `RU` of herd's lock.cat are built when the
/// events carry tags. A space keeps them apart from every tag a `.def` file can write.
pub const TRYLOCK_TAG: &str = "spin trylock";
pub const TRYLOCK_FAILED_TAG: &str = "spin trylock failed";
pub const ISLOCKED_TAG: &str = "spin is_locked";

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
    ("LKR", Base::Lkr),
    ("LKW", Base::Lkw),
    ("UL", Base::Ul),
    ("addr", Base::Addr),
    ("data", Base::Data),
    ("ctrl", Base::Ctrl),
    // herd's set of the events of read-modify-write instructions.
    ("RMW", Base::X),
];

impl Base {
    pub fn ty(self) -> Type {
        use Base::*;
        match self {
            All | R | W | F | M | IW | X | Rlx | Acq | Rel | AcqRel | Sc | Na | A | Lkr | Lkw
            | Ul | Tag(_) => Type::Set,
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
    /// herd's `different-values(r)`: the pairs of `r` whose events' values differ.
    DifferentValues(Box<TExpr>),
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
    /// The groups of `let rec .. and ..`: their value is the least fixed point, computed
    /// by iteration from the empty set or relation (see `encode::model`).
    pub rec_groups: Vec<RecGroup>,
    /// What the model names that nemos does not compute yet and reads as empty (tags nemos
    /// cannot derive from its events): the CLI says so when it loads the model.
    pub placeholders: Vec<String>,
    /// The tags the model's sets name when the events carry herd's tags
    /// ([`Options::tags_from_events`]), lower-case: `Base::Tag(i)` is the `i`-th.
    pub tags: Vec<String>,
}

/// The definitions of one `let rec`, and the definitions made while checking their
/// bodies (local `let .. in`), which depend on the iteration and are recomputed with it.
#[derive(Clone, Debug)]
pub struct RecGroup {
    pub members: Vec<usize>,
    pub inner: std::ops::Range<usize>,
    /// Only the model's checks read the group, and only where a larger value makes them
    /// fail more ([`Model::one_sided`] makes such copies): the encoding may then require
    /// each member to contain its body instead of computing the least fixed point.
    pub one_sided: bool,
}

/// The pairs [`Model::forbids_thin_air`] asks a relation to contain.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pairs {
    /// `[R]; po; [W]`.
    ReadToLaterWrite,
    /// `rfe`.
    ExternalRf,
}

impl Pairs {
    fn source(self) -> Base {
        match self {
            Pairs::ReadToLaterWrite => Base::R,
            Pairs::ExternalRf => Base::W,
        }
    }

    fn target(self) -> Base {
        match self {
            Pairs::ReadToLaterWrite => Base::W,
            Pairs::ExternalRf => Base::R,
        }
    }
}

impl Model {
    /// Some `acyclic` check's relation is a union with `fr` among its operands, looked
    /// through (non-recursive) definitions: `acyclic po | rf | co | fr` in `sc.cat`.
    pub fn acyclic_over_fr(&self) -> bool {
        fn holds_fr(model: &Model, e: &TExpr) -> bool {
            match e {
                TExpr::Base(b) => *b == Base::Fr,
                TExpr::Def(id) if model.rec_group(*id).is_some() => false,
                TExpr::Def(id) => model.defs.get(*id).is_some_and(|d| holds_fr(model, &d.1)),
                TExpr::Binary(BinOp::Union, a, b) => holds_fr(model, a) || holds_fr(model, b),
                _ => false,
            }
        }
        self.checks
            .iter()
            .any(|c| c.kind == CheckKind::Acyclic && !c.flag && holds_fr(self, &c.expr))
    }

    /// Some `acyclic` check in force (`in_force` says which) forbids every cycle of
    /// `po | rf`, so that no value comes out of thin air: its relation contains, looked
    /// through (non-recursive) definitions, both the program order from a read to a later
    /// write and the external reads-from. That is enough: a cycle of `po | rf` along which
    /// values flow (each read's value computed into a later write of its thread, read by
    /// the next) has an external `rf` edge, and between two such edges a chain of program
    /// order and internal `rf` from a read to a write, which is one `[R]; po; [W]` pair.
    /// SC, TSO, C11 and RC11 say so (`po | com`, `ppo | rfe`, `hb | rf`, `sb | rf`); a model
    /// that does not, or whose check is skipped, gets values that may justify themselves
    /// (`events::bounds`).
    pub fn forbids_thin_air(&self, in_force: impl Fn(&Check) -> bool) -> bool {
        self.checks.iter().any(|c| {
            c.kind == CheckKind::Acyclic
                && !c.flag
                && !c.negated
                && in_force(c)
                && self.covers(&c.expr, Pairs::ReadToLaterWrite)
                && self.covers(&c.expr, Pairs::ExternalRf)
        })
    }

    /// The relation `e` contains every pair of `pairs`.
    fn covers(&self, e: &TExpr, pairs: Pairs) -> bool {
        match e {
            TExpr::Base(Base::Po) => pairs == Pairs::ReadToLaterWrite,
            TExpr::Base(Base::Rf | Base::Rfe) => pairs == Pairs::ExternalRf,
            TExpr::Def(id) => self.definition(*id).is_some_and(|d| self.covers(d, pairs)),
            TExpr::Binary(BinOp::Union, a, b) => self.covers(a, pairs) || self.covers(b, pairs),
            TExpr::Binary(BinOp::Inter, a, b) => self.covers(a, pairs) && self.covers(b, pairs),
            TExpr::Binary(BinOp::Diff, a, b) => self.covers(a, pairs) && self.misses(b, pairs),
            TExpr::Binary(BinOp::Seq, a, b) => match (&**a, &**b) {
                (TExpr::Unary(UnOp::Identity, s), r) => {
                    self.contains_all(s, pairs.source()) && self.covers(r, pairs)
                }
                (r, TExpr::Unary(UnOp::Identity, s)) => {
                    self.covers(r, pairs) && self.contains_all(s, pairs.target())
                }
                _ => false,
            },
            TExpr::Unary(UnOp::Plus | UnOp::Star | UnOp::Opt, a) => self.covers(a, pairs),
            _ => false,
        }
    }

    /// The relation `e` contains no pair of `pairs`.
    fn misses(&self, e: &TExpr, pairs: Pairs) -> bool {
        match e {
            TExpr::Empty(_) => true,
            TExpr::Def(id) => self.definition(*id).is_some_and(|d| self.misses(d, pairs)),
            TExpr::Binary(BinOp::Union, a, b) => self.misses(a, pairs) && self.misses(b, pairs),
            TExpr::Binary(BinOp::Inter, a, b) => self.misses(a, pairs) || self.misses(b, pairs),
            TExpr::Binary(BinOp::Diff, a, _) => self.misses(a, pairs),
            TExpr::Binary(BinOp::Product, a, b) => {
                self.excludes(a, pairs.source()) || self.excludes(b, pairs.target())
            }
            TExpr::Binary(BinOp::Seq, ..) => {
                self.end_excludes(e, pairs.source(), true)
                    || self.end_excludes(e, pairs.target(), false)
            }
            _ => false,
        }
    }

    /// The sequence `e` starts (`first`) or ends with a filter `[S]` that holds no event
    /// of `kind`.
    fn end_excludes(&self, e: &TExpr, kind: Base, first: bool) -> bool {
        match e {
            TExpr::Unary(UnOp::Identity, s) => self.excludes(s, kind),
            TExpr::Binary(BinOp::Seq, a, b) => {
                self.end_excludes(if first { a } else { b }, kind, first)
            }
            _ => false,
        }
    }

    /// The set `e` contains every event of `kind`.
    fn contains_all(&self, e: &TExpr, kind: Base) -> bool {
        match e {
            TExpr::Base(b) => *b == kind || matches!(b, Base::All | Base::M),
            TExpr::Def(id) => self
                .definition(*id)
                .is_some_and(|d| self.contains_all(d, kind)),
            TExpr::Binary(BinOp::Union, a, b) => {
                self.contains_all(a, kind) || self.contains_all(b, kind)
            }
            TExpr::Binary(BinOp::Inter, a, b) => {
                self.contains_all(a, kind) && self.contains_all(b, kind)
            }
            TExpr::Binary(BinOp::Diff, a, b) => {
                self.contains_all(a, kind) && self.excludes(b, kind)
            }
            _ => false,
        }
    }

    /// The set `e` holds no event of `kind` (reads and writes are apart; fences are
    /// neither; initial writes are writes).
    fn excludes(&self, e: &TExpr, kind: Base) -> bool {
        match e {
            TExpr::Empty(_) => true,
            TExpr::Base(b) => match kind {
                Base::R => matches!(b, Base::W | Base::IW | Base::F),
                Base::W => matches!(b, Base::R | Base::F),
                _ => false,
            },
            TExpr::Def(id) => self.definition(*id).is_some_and(|d| self.excludes(d, kind)),
            TExpr::Binary(BinOp::Union, a, b) => self.excludes(a, kind) && self.excludes(b, kind),
            TExpr::Binary(BinOp::Inter, a, b) => self.excludes(a, kind) || self.excludes(b, kind),
            TExpr::Binary(BinOp::Diff, a, _) => self.excludes(a, kind),
            _ => false,
        }
    }

    /// The body of a non-recursive definition (a recursive one's value is not its body).
    fn definition(&self, id: usize) -> Option<&TExpr> {
        if self.rec_group(id).is_some() {
            return None;
        }
        self.defs.get(id).map(|d| &d.1)
    }

    /// Some expression compares the values of events (`different-values`): the encoding
    /// must build every memory event's value before compiling the model.
    pub fn uses_values(&self) -> bool {
        fn walk(e: &TExpr) -> bool {
            match e {
                TExpr::DifferentValues(_) => true,
                TExpr::Binary(_, a, b) => walk(a) || walk(b),
                TExpr::Unary(_, a) | TExpr::Domain(a) | TExpr::Range(a) => walk(a),
                TExpr::Base(_) | TExpr::Def(_) | TExpr::Empty(_) => false,
            }
        }
        self.defs.iter().any(|d| walk(&d.1)) || self.checks.iter().any(|c| walk(&c.expr))
    }

    /// The `let rec` group definition `id` belongs to.
    pub fn rec_group(&self, id: usize) -> Option<&RecGroup> {
        self.rec_groups.iter().find(|g| g.members.contains(&id))
    }

    /// Whether a group's bodies are monotone in its members: no member is read, directly
    /// or through a definition made inside the bodies, under the right operand of a
    /// difference (the only operator that is not monotone; `~S` is written as one). herd's
    /// iteration from the empty values then only grows.
    pub fn rec_group_monotone(&self, group: &RecGroup) -> bool {
        fn walk(model: &Model, group: &RecGroup, e: &TExpr, negative: bool, depth: usize) -> bool {
            match e {
                TExpr::Def(id) if group.members.contains(id) => !negative,
                TExpr::Def(id) if group.inner.contains(id) && depth < model.defs.len() => {
                    match model.defs.get(*id) {
                        Some((_, body, _)) => walk(model, group, body, negative, depth + 1),
                        None => true,
                    }
                }
                TExpr::Binary(BinOp::Diff, a, b) => {
                    walk(model, group, a, negative, depth)
                        && walk(model, group, b, !negative, depth)
                }
                TExpr::Binary(_, a, b) => {
                    walk(model, group, a, negative, depth) && walk(model, group, b, negative, depth)
                }
                TExpr::Unary(_, a)
                | TExpr::Domain(a)
                | TExpr::Range(a)
                | TExpr::DifferentValues(a) => walk(model, group, a, negative, depth),
                TExpr::Base(_) | TExpr::Def(_) | TExpr::Empty(_) => true,
            }
        }
        group.members.iter().all(|&m| match self.defs.get(m) {
            Some((_, body, _)) => walk(self, group, body, false, 0),
            None => true,
        })
    }

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
/// How deep function applications may nest (a function's body applying another): herd's
/// files need a few; more means a runaway definition.
const MAX_APPLICATION_DEPTH: usize = 64;

/// What the caller knows beyond the model file: herd's bell file, which herd reads before
/// the model (its `enum`s and definitions are in scope in the model), and the variants
/// switched on (`if "variant"`).
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub bell: Option<SourceFile>,
    pub variants: Vec<String>,
    /// The tests' events carry herd's tags, from the macros of the model's `.def` file: a
    /// tag's set is the events carrying it. Otherwise it is derived from C11 memory orders
    /// where it can be (`'once` the relaxed accesses, ...) and empty elsewhere.
    pub tags_from_events: bool,
}

/// What a name stands for.
#[derive(Clone, Debug)]
enum Bound {
    /// A value: a definition (`Def`), or the argument a parameter is bound to.
    Value(TExpr, Option<Type>),
    Fun(Rc<Function>),
}

/// A function of the model (`let A-cumul(r) = ...`), inlined at each application: its body
/// is checked again in the scope of its definition, its parameters bound to the arguments.
#[derive(Debug)]
struct Function {
    params: Vec<String>,
    body: Expr,
    scope: HashMap<String, Bound>,
    file: String,
}

struct Checker<'r> {
    resolve: &'r mut dyn FnMut(&str) -> Result<SourceFile, String>,
    scope: HashMap<String, Bound>,
    model: Model,
    including: Vec<String>,
    variants: Vec<String>,
    /// The tags the bell's `enum`s declare, as written.
    tags: Vec<String>,
    tags_from_events: bool,
    /// The file whose statements are being checked.
    file: String,
    depth: usize,
}

pub fn check(
    file: &SourceFile,
    name: &str,
    resolve: &mut dyn FnMut(&str) -> Result<SourceFile, String>,
    options: &Options,
) -> Result<Model, InputError> {
    let mut checker = Checker {
        resolve,
        scope: HashMap::new(),
        model: Model {
            name: name.to_string(),
            title: None,
            defs: Vec::new(),
            checks: Vec::new(),
            rec_groups: Vec::new(),
            placeholders: Vec::new(),
            tags: Vec::new(),
        },
        including: vec![file.name.clone()],
        variants: options.variants.clone(),
        tags: Vec::new(),
        tags_from_events: options.tags_from_events,
        file: file.name.clone(),
        depth: 0,
    };
    if let Some(bell) = &options.bell {
        let ast = super::parse(bell)?;
        checker.including.push(bell.name.clone());
        checker.file(bell, &ast)?;
        checker.including.pop();
    }
    let ast = super::parse(file)?;
    checker.model.title = ast.title.clone();
    checker.file(file, &ast)?;
    Ok(checker.model)
}

impl Checker<'_> {
    fn file(&mut self, file: &SourceFile, ast: &ModelAst) -> Result<(), InputError> {
        let outer = std::mem::replace(&mut self.file, file.name.clone());
        let mut diagnostics = Vec::new();
        let result = self.statements(file, &ast.statements, &mut diagnostics);
        self.file = outer;
        result?;
        if diagnostics.is_empty() {
            Ok(())
        } else {
            Err(InputError::new(file, diagnostics))
        }
    }

    fn statements(
        &mut self,
        file: &SourceFile,
        statements: &[Statement],
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Result<(), InputError> {
        for statement in statements {
            match statement {
                Statement::Let {
                    recursive,
                    bindings,
                    ..
                } => match self.bindings(*recursive, bindings) {
                    Ok(new) => self.scope.extend(new),
                    Err(ds) => diagnostics.extend(ds),
                },
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
                Statement::Show { .. } | Statement::Instructions { .. } => {}
                Statement::Enum { tags, .. } => {
                    for tag in tags {
                        let (set, known) = self.tag_set(&tag.text);
                        if !known {
                            self.placeholder(format!("the tag '{}", tag.text));
                        }
                        self.tags.push(tag.text.clone());
                        self.scope
                            .insert(capitalize(&tag.text), Bound::Value(set, Some(Type::Set)));
                    }
                }
                Statement::WithFrom { name, span } => diagnostics.push(
                    Diagnostic::new(
                        "`with ... from` is not supported by nemos's cat subset",
                        *span,
                    )
                    .with_label(format!("chooses `{}` among candidates", name.text))
                    .with_help(
                        "herd enumerates candidate relations this way (`co` in cos.cat, the \
                         `rf` of failed trylocks and spin_is_locked in the kernel's lock.cat); \
                         nemos enumerates `rf` and `co` itself and has no such events",
                    ),
                ),
                Statement::IfVariant {
                    variant,
                    then,
                    otherwise,
                    ..
                } => {
                    let branch = if self.variants.contains(variant) {
                        then
                    } else {
                        otherwise
                    };
                    self.statements(file, branch, diagnostics)?;
                }
            }
        }
        Ok(())
    }

    /// The events carrying `tag`, and whether nemos knows them.
    fn tag_set(&mut self, tag: &str) -> (TExpr, bool) {
        if !self.tags_from_events {
            return c11_tag_set(tag);
        }
        let tag = tag.to_ascii_lowercase();
        let index = match self.model.tags.iter().position(|t| *t == tag) {
            Some(i) => i,
            None => {
                self.model.tags.push(tag);
                self.model.tags.len() - 1
            }
        };
        let index = u16::try_from(index).unwrap_or(u16::MAX);
        (TExpr::Base(Base::Tag(index)), true)
    }

    fn placeholder(&mut self, what: String) {
        if !self.model.placeholders.contains(&what) {
            self.model.placeholders.push(what);
        }
    }

    /// The names a `let` (or `let rec`) binds. `let a = .. and b = ..` binds
    /// simultaneously: each sees the scope before the statement.
    fn bindings(
        &mut self,
        recursive: bool,
        bindings: &[ast::Binding],
    ) -> Result<Vec<(String, Bound)>, Vec<Diagnostic>> {
        if recursive {
            return self.rec_bindings(bindings);
        }
        let mut new = Vec::new();
        let mut diagnostics = Vec::new();
        for b in bindings {
            if let Some(params) = &b.params {
                let function = Function {
                    params: params.iter().map(|p| p.text.clone()).collect(),
                    body: b.expr.clone(),
                    scope: self.scope.clone(),
                    file: self.file.clone(),
                };
                new.push((b.name.text.clone(), Bound::Fun(Rc::new(function))));
                continue;
            }
            match self.infer(&b.expr) {
                Ok((e, ty)) => {
                    let id = self.model.defs.len();
                    self.model.defs.push((b.name.text.clone(), e, ty));
                    new.push((b.name.text.clone(), Bound::Value(TExpr::Def(id), ty)));
                }
                Err(d) => diagnostics.push(d),
            }
        }
        if diagnostics.is_empty() {
            Ok(new)
        } else {
            Err(diagnostics)
        }
    }

    /// `let rec a = .. and b = ..`: every body sees every name of the group. The names'
    /// types are guessed (relations first) and corrected from what the bodies turn out to
    /// be, until the guess is consistent.
    fn rec_bindings(
        &mut self,
        bindings: &[ast::Binding],
    ) -> Result<Vec<(String, Bound)>, Vec<Diagnostic>> {
        if let Some(b) = bindings.iter().find(|b| b.params.is_some()) {
            return Err(vec![Diagnostic::new(
                "recursive functions are not supported by nemos's cat subset",
                b.name.span,
            )
            .with_label("a function in a `let rec`")
            .with_help("only sets and relations can be defined recursively")]);
        }
        let first = self.model.defs.len();
        for b in bindings {
            self.model.defs.push((
                b.name.text.clone(),
                TExpr::Empty(Type::Rel),
                Some(Type::Rel),
            ));
        }
        let members: Vec<usize> = (first..first + bindings.len()).collect();
        let saved = self.scope.clone();
        let mut types = vec![Type::Rel; bindings.len()];
        let mut errors = Vec::new();
        for _ in 0..2 * bindings.len() + 2 {
            self.scope = saved.clone();
            for (b, (&id, &ty)) in bindings.iter().zip(members.iter().zip(&types)) {
                self.scope
                    .insert(b.name.text.clone(), Bound::Value(TExpr::Def(id), Some(ty)));
            }
            errors = Vec::new();
            let mut next = types.clone();
            let mut bodies = Vec::new();
            for (i, b) in bindings.iter().enumerate() {
                match self.infer(&b.expr) {
                    Ok((e, ty)) => {
                        let t = ty.unwrap_or(types[i]);
                        next[i] = t;
                        bodies.push(fix(e, ty, t));
                    }
                    Err(d) => errors.push((i, d)),
                }
            }
            // A body may fail because another member's guess is wrong: that guess is
            // corrected by its own body. Only when nothing changes are the failing bodies'
            // own guesses flipped.
            if !errors.is_empty() && next == types {
                for &(i, _) in &errors {
                    next[i] = match types[i] {
                        Type::Rel => Type::Set,
                        Type::Set => Type::Rel,
                    };
                }
            }
            if errors.is_empty() && next == types {
                self.scope = saved;
                for ((&id, body), &ty) in members.iter().zip(bodies).zip(&types) {
                    self.model.defs[id].1 = body;
                    self.model.defs[id].2 = Some(ty);
                }
                let inner = first + bindings.len()..self.model.defs.len();
                self.model.rec_groups.push(RecGroup {
                    members: members.clone(),
                    inner,
                    one_sided: false,
                });
                return Ok(bindings
                    .iter()
                    .zip(members.iter().zip(&types))
                    .map(|(b, (&id, &ty))| {
                        (b.name.text.clone(), Bound::Value(TExpr::Def(id), Some(ty)))
                    })
                    .collect());
            }
            types = next;
        }
        self.scope = saved;
        Err(errors.into_iter().map(|(_, d)| d).collect())
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
        let (expr, ty) = self.infer(&c.expr)?;
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
}

/// herd names the set of the events carrying tag `'t` by the tag with its first letter
/// capitalised (`'after-atomic` is `After-atomic`).
fn capitalize(tag: &str) -> String {
    let mut chars = tag.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The events carrying a tag of the Linux kernel's bell, from what nemos's events know,
/// and whether nemos knows it. PROVISIONAL: nemos's events carry C11 memory orders, not
/// herd's tags; the kernel's macros are mapped to C11 orders in `program::library`
/// (`READ_ONCE` relaxed, `smp_load_acquire` acquire, `smp_mb` a seq_cst fence, `smp_rmb`
/// an acquire fence, `smp_wmb` a release fence), and this reads the tags back from them.
/// Tags with no counterpart (`'noreturn`, `'barrier`, RCU, SRCU, the `smp_mb__*` fences)
/// are the empty set until events carry the tags of the `.def` file.
fn c11_tag_set(tag: &str) -> (TExpr, bool) {
    let set = |b: Base| Box::new(TExpr::Base(b));
    let and = |a: Base, b: Base| TExpr::Binary(BinOp::Inter, set(a), set(b));
    let e = match tag.to_ascii_lowercase().as_str() {
        "once" => and(Base::M, Base::Rlx),
        "acquire" => and(Base::M, Base::Acq),
        "release" => and(Base::M, Base::Rel),
        "mb" => TExpr::Base(Base::Sc),
        "rmb" => and(Base::F, Base::Acq),
        "wmb" => and(Base::F, Base::Rel),
        _ => return (TExpr::Empty(Type::Set), false),
    };
    (e, true)
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
            ExprKind::Name(n) => self.name(n, e.span),
            ExprKind::Complement(arg) => {
                // Written out as a difference, so that nothing after this stage knows it.
                let (a, ty) = self.infer(arg)?;
                let t = ty.unwrap_or(Type::Rel);
                Ok((
                    TExpr::Binary(
                        BinOp::Diff,
                        Box::new(everything(t)),
                        Box::new(fix(a, ty, t)),
                    ),
                    Some(t),
                ))
            }
            ExprKind::Apply(f, args) => self.apply(f, args, e.span),
            ExprKind::Tuple(_) => Err(Diagnostic::new(
                "a tuple is only the argument of a function of several parameters",
                e.span,
            )
            .with_label("a tuple")),
            ExprKind::LetIn {
                recursive,
                bindings,
                body,
            } => {
                let saved = self.scope.clone();
                let result = match self.bindings(*recursive, bindings) {
                    Ok(new) => {
                        self.scope.extend(new);
                        self.infer(body)
                    }
                    Err(mut ds) => Err(ds.remove(0)),
                };
                self.scope = saved;
                result
            }
            ExprKind::IfVariant {
                variant,
                then,
                otherwise,
            } => {
                if self.variants.contains(variant) {
                    self.infer(then)
                } else {
                    self.infer(otherwise)
                }
            }
            // herd's `try e with f`: `f` when `e` cannot be evaluated (names something
            // undefined, as the kernel's lock.cat does for sets older herds lack).
            ExprKind::Try(a, b) => match self.infer(a) {
                Ok(v) => Ok(v),
                Err(_) => self.infer(b),
            },
            ExprKind::Explicit(items) if items.is_empty() => Ok((TExpr::Empty(Type::Rel), None)),
            ExprKind::Tag(_) | ExprKind::Explicit(_) | ExprKind::Add(..) => Err(Diagnostic::new(
                format!(
                    "{} not supported by nemos's cat subset",
                    match &e.kind {
                        ExprKind::Tag(_) => "tag values (`'name`) are",
                        ExprKind::Explicit(_) => "explicit sets `{...}` are",
                        _ => "`++` (adding an element to a set) is",
                    }
                ),
                e.span,
            )
            .with_label("herd's cat, beyond nemos's subset")
            .with_help(
                "nemos's values are sets of events and relations; tags are sets through the \
                 names an `enum` defines (`'mb` is `Mb`)",
            )),
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

    /// A name: a definition or parameter in scope, then the base vocabulary, then herd's
    /// standard library.
    fn name(&mut self, n: &str, span: Span) -> Result<(TExpr, Option<Type>), Diagnostic> {
        match self.scope.get(n) {
            Some(Bound::Value(e, ty)) => return Ok((e.clone(), *ty)),
            Some(Bound::Fun(_)) => {
                return Err(Diagnostic::new(format!("`{n}` is a function"), span)
                    .with_label("not applied")
                    .with_help(format!("apply it to an argument: `{n}(r)`")))
            }
            None => {}
        }
        if self.tags_from_events {
            if let Some(set) = self.lock_set(n) {
                return Ok((set, Some(Type::Set)));
            }
        }
        if let Some(&(_, base)) = BASE_NAMES.iter().find(|(name, _)| *name == n) {
            return Ok((TExpr::Base(base), Some(base.ty())));
        }
        let set = |b: Base| Box::new(TExpr::Base(b));
        match n {
            // herd's polymorphic empty value.
            "emptyset" => return Ok((TExpr::Empty(Type::Rel), None)),
            // The failed trylocks and the `spin_is_locked` reads: nemos has neither.
            "LF" | "RL" | "RU" => return Ok((TExpr::Empty(Type::Set), Some(Type::Set))),
            // herd's initial coherence: each location's initial write first.
            "co0" => {
                let later = TExpr::Binary(BinOp::Diff, set(Base::W), set(Base::IW));
                let pairs = TExpr::Binary(BinOp::Product, set(Base::IW), Box::new(later));
                return Ok((
                    TExpr::Binary(BinOp::Inter, set(Base::Loc), Box::new(pairs)),
                    Some(Type::Rel),
                ));
            }
            _ => {}
        }
        // The kernel's `.def` writes the annotations in capitals (`__load{ONCE}`), and the
        // models name their sets so (`ONCE`, `MB`) whatever case the bell's tags have.
        if let Some(tag) = self.tags.iter().find(|t| t.to_ascii_uppercase() == n) {
            let (set, _) = self.tag_set(&tag.clone());
            return Ok((set, Some(Type::Set)));
        }
        Err(unknown_name(n, span, self.scope.keys()))
    }

    /// herd's lock events (lock.cat) when the events carry the tags of a `.def` file:
    /// `spin_lock`'s halves and the halves of a successful `spin_trylock` (`LKR`, `LKW`),
    /// a failed trylock's read (`LF`), a `spin_is_locked` that reads a held lock, from a
    /// lock's write half (`RL`), or a free one (`RU`).
    fn lock_set(&mut self, n: &str) -> Option<TExpr> {
        let base = |b: Base| Box::new(TExpr::Base(b));
        let mut tag = |t: &str| Box::new(self.tag_set(t).0);
        let (trylock, failed, islocked) =
            (tag(TRYLOCK_TAG), tag(TRYLOCK_FAILED_TAG), tag(ISLOCKED_TAG));
        let half = |b: Base, lock: Base| {
            let tried = TExpr::Binary(BinOp::Inter, base(b), trylock.clone());
            TExpr::Binary(BinOp::Union, base(lock), Box::new(tried))
        };
        let read_locked = || {
            let to = TExpr::Unary(UnOp::Identity, islocked.clone());
            let from = TExpr::Unary(UnOp::Identity, Box::new(half(Base::W, Base::Lkw)));
            let rf = TExpr::Binary(BinOp::Seq, base(Base::Rf), Box::new(to));
            TExpr::Range(Box::new(TExpr::Binary(
                BinOp::Seq,
                Box::new(from),
                Box::new(rf),
            )))
        };
        Some(match n {
            "LKR" => half(Base::R, Base::Lkr),
            "LKW" => half(Base::W, Base::Lkw),
            "LF" => *failed,
            "RL" => read_locked(),
            "RU" => TExpr::Binary(BinOp::Diff, islocked.clone(), Box::new(read_locked())),
            _ => return None,
        })
    }

    fn apply(
        &mut self,
        f: &ast::Name,
        args: &[Expr],
        span: Span,
    ) -> Result<(TExpr, Option<Type>), Diagnostic> {
        if let Some(Bound::Fun(function)) = self.scope.get(&f.text) {
            let function = function.clone();
            return self.inline(f, &function, args, span);
        }
        if matches!(
            f.text.as_str(),
            "map" | "cross" | "fold" | "classes" | "partition"
        ) {
            return Err(Diagnostic::new(
                format!("`{}` is not supported by nemos's cat subset", f.text),
                f.span,
            )
            .with_label("herd's library function on sets of relations")
            .with_help(
                "nemos's values are sets of events and relations, not sets of them; \
                 herd's lock.cat builds candidate `rf` relations this way for events nemos \
                 does not have (failed trylocks, spin_is_locked)",
            ));
        }
        let [arg] = args else {
            return Err(Diagnostic::new(
                format!("`{}` applied to {} arguments", f.text, args.len()),
                span,
            )
            .with_label("one argument expected")
            .with_help(
                "nemos applies functions to one argument (a tuple for several parameters)",
            ));
        };
        let set = |b: Base| Box::new(TExpr::Base(b));
        match f.text.as_str() {
            "domain" | "range" | "singlestep" | "different-values" => {
                let (a, ty) = self.infer(arg)?;
                if ty == Some(Type::Set) {
                    return Err(not_a_relation(arg, &format!("`{}`", f.text)));
                }
                let a = Box::new(fix(a, ty, Type::Rel));
                Ok(match f.text.as_str() {
                    "domain" => (TExpr::Domain(a), Some(Type::Set)),
                    "range" => (TExpr::Range(a), Some(Type::Set)),
                    // herd's stdlib: the pairs of `r` with no step of `r` in between.
                    "singlestep" => {
                        let two = TExpr::Binary(BinOp::Seq, a.clone(), a.clone());
                        (
                            TExpr::Binary(BinOp::Diff, a, Box::new(two)),
                            Some(Type::Rel),
                        )
                    }
                    _ => (TExpr::DifferentValues(a), Some(Type::Rel)),
                })
            }
            // herd's stdlib: `po` through an event of the set.
            "fencerel" => {
                let (s, ty) = self.infer(arg)?;
                if ty == Some(Type::Rel) {
                    return Err(not_a_set(arg, "`fencerel`"));
                }
                let through = TExpr::Binary(
                    BinOp::Seq,
                    set(Base::Po),
                    Box::new(TExpr::Unary(
                        UnOp::Identity,
                        Box::new(fix(s, ty, Type::Set)),
                    )),
                );
                Ok((
                    TExpr::Binary(BinOp::Seq, Box::new(through), set(Base::Po)),
                    Some(Type::Rel),
                ))
            }
            other => Err(
                Diagnostic::new(format!("unknown function `{other}`"), f.span)
                    .with_label("not a function defined before this point")
                    .with_help(
                        "the built-in functions are `domain(r)`, `range(r)`, `fencerel(S)`, \
                     `singlestep(r)` and `different-values(r)`",
                    ),
            ),
        }
    }

    /// `f(args)` for a function of the model: the body, checked in the scope of the
    /// definition with the parameters bound to the arguments (checked here).
    fn inline(
        &mut self,
        f: &ast::Name,
        function: &Function,
        args: &[Expr],
        span: Span,
    ) -> Result<(TExpr, Option<Type>), Diagnostic> {
        let arguments: Vec<&Expr> = match (function.params.len(), args) {
            (1, [arg]) => vec![arg],
            (n, [arg]) => match &arg.kind {
                ExprKind::Tuple(items) if items.len() == n => items.iter().collect(),
                _ => {
                    return Err(Diagnostic::new(
                        format!("`{}` takes {n} parameters", f.text),
                        arg.span,
                    )
                    .with_label(format!("give a tuple of {n}")))
                }
            },
            _ => {
                return Err(Diagnostic::new(
                    format!("`{}` applied to {} arguments", f.text, args.len()),
                    span,
                )
                .with_label("one argument expected")
                .with_help("applying the result of a function is beyond nemos's cat subset"))
            }
        };
        if self.depth >= MAX_APPLICATION_DEPTH {
            return Err(Diagnostic::new(
                format!("applications of functions nest deeper than {MAX_APPLICATION_DEPTH}"),
                span,
            )
            .with_label("here"));
        }
        let mut scope = function.scope.clone();
        for (param, arg) in function.params.iter().zip(arguments) {
            let (e, ty) = self.infer(arg)?;
            scope.insert(param.clone(), Bound::Value(e, ty));
        }
        let saved = std::mem::replace(&mut self.scope, scope);
        self.depth += 1;
        let result = self.infer(&function.body);
        self.depth -= 1;
        self.scope = saved;
        result.map_err(|d| {
            if function.file == self.file {
                d
            } else {
                // The body is in another file: say so where it is applied.
                Diagnostic::new(
                    format!("in `{}` ({}): {}", f.text, function.file, d.message),
                    span,
                )
                .with_label("applied here")
            }
        })
    }
}

fn everything(t: Type) -> TExpr {
    match t {
        Type::Set => TExpr::Base(Base::All),
        Type::Rel => TExpr::Binary(
            BinOp::Product,
            Box::new(TExpr::Base(Base::All)),
            Box::new(TExpr::Base(Base::All)),
        ),
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
