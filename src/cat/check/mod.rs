//! Name resolution and types: from the syntax tree to a [`Model`] the encoder can trust.
//!
//! Two types exist, sets of events and relations between events. Every operator has a
//! signature (`;` and the closures take relations, `[S]` and `S * T` take sets, `|`, `&`, `\`
//! take two of the same kind) and every check needs a relation, except `empty`, which takes
//! either. `0` is empty at any type. A mismatch is reported at the operand that has the wrong
//! type, with the fix when there is an obvious one.

mod herd;
mod infer;
mod statements;

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::ast::{BinOp, CheckKind, Expr, UnOp};
use crate::diagnostics::Span;
use crate::diagnostics::{InputError, SourceFile};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
    /// Thread creation: a create to the first event of the thread it starts (GenMC's
    /// `tc`; `events::thread_sync`).
    Tc,
    /// Thread join: a joined thread's last event to the join (GenMC's `tj`).
    Tj,
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
    ("tc", Base::Tc),
    ("tj", Base::Tj),
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, Serialize, Deserialize)]
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
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Model {
    pub name: String,
    pub title: Option<String>,
    /// Name, expression, type (`None` for a definition as `0`, which fits either). The
    /// expressions are shared: the copy [`Model::one_sided`] makes for every test keeps
    /// them, instead of copying each tree (a third of a small test's cost of that copy).
    pub defs: Vec<(String, Arc<TExpr>, Option<Type>)>,
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
#[derive(Clone, Debug, Serialize, Deserialize)]
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
        self.defs.get(id).map(|d| &*d.1)
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
    /// A set of sets of single edges that `map` builds (`herd::Family`), for `cross`.
    Family(herd::Family),
    /// The event a function mapped over a set is applied to, used as `{e}`.
    Element,
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
    /// The model generates its coherence order with herd's library: its base vocabulary
    /// is herd's (`herd::herd_name`).
    herd_view: bool,
    /// The files read while scanning for herd's library, for their inclusion.
    read: HashMap<String, SourceFile>,
    /// The file whose statements are being checked.
    file: String,
    depth: usize,
    /// The sets of the trylock, failed-trylock and `spin_is_locked` tags, and herd's lock
    /// reads and writes, built once (`infer::lock_set`, `herd::lock_accesses`): names are
    /// looked up thousands of times while the kernel's model is checked.
    lock_tags: Option<[TExpr; 3]>,
    lock_accesses: Option<(TExpr, TExpr)>,
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
        herd_view: false,
        read: HashMap::new(),
        file: file.name.clone(),
        depth: 0,
        lock_tags: None,
        lock_accesses: None,
    };
    let ast = super::parse(file)?;
    checker.herd_view = checker.scan_generates_co(&ast.statements, 0);
    if let Some(bell) = &options.bell {
        let ast = super::parse(bell)?;
        checker.including.push(bell.name.clone());
        checker.file(bell, &ast)?;
        checker.including.pop();
    }
    checker.model.title = ast.title.clone();
    checker.file(file, &ast)?;
    Ok(checker.model)
}
