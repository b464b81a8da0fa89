//! Expressions: their names resolved, their types inferred and checked, and functions
//! inlined at each application.

use super::{
    Base, Bound, Checker, Function, TExpr, Type, BASE_NAMES, ISLOCKED_TAG, TRYLOCK_FAILED_TAG,
    TRYLOCK_TAG,
};
use crate::cat::ast::{self, BinOp, Expr, ExprKind, UnOp};
use crate::diagnostics::{Diagnostic, Span};

/// How deep function applications may nest (a function's body applying another): herd's
/// files need a few; more means a runaway definition.
const MAX_APPLICATION_DEPTH: usize = 64;

pub(super) fn not_a_relation(e: &Expr, what: &str) -> Diagnostic {
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
    pub(super) fn infer(&mut self, e: &Expr) -> Result<(TExpr, Option<Type>), Diagnostic> {
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
            ExprKind::Explicit(items) if self.element(items).is_some() => Ok((
                self.element(items).unwrap_or(TExpr::Empty(Type::Set)),
                Some(Type::Set),
            )),
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
    pub(super) fn name(
        &mut self,
        n: &str,
        span: Span,
    ) -> Result<(TExpr, Option<Type>), Diagnostic> {
        match self.scope.get(n) {
            Some(Bound::Value(e, ty)) => return Ok((e.clone(), *ty)),
            Some(Bound::Fun(_)) => {
                return Err(Diagnostic::new(format!("`{n}` is a function"), span)
                    .with_label("not applied")
                    .with_help(format!("apply it to an argument: `{n}(r)`")))
            }
            Some(Bound::Family(_)) => {
                return Err(Diagnostic::new(
                    format!("`{n}` is a set of relations, which nemos reads only in `with ... from cross({n})`"),
                    span,
                )
                .with_label("a set of sets of edges"))
            }
            Some(Bound::Element) => {
                return Err(Diagnostic::new(
                    format!("`{n}` is an event, which nemos reads only as `{{{n}}}`"),
                    span,
                )
                .with_label("one event of the set mapped"))
            }
            None => {}
        }
        if let Some((e, ty)) = self.herd_name(n) {
            return Ok((e, Some(ty)));
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
    pub(super) fn lock_set(&mut self, n: &str) -> Option<TExpr> {
        let base = |b: Base| Box::new(TExpr::Base(b));
        // The tags are registered (`tag_set`) at the first call, as before any name.
        if self.lock_tags.is_none() {
            let mut tag = |t: &str| self.tag_set(t).0;
            self.lock_tags = Some([tag(TRYLOCK_TAG), tag(TRYLOCK_FAILED_TAG), tag(ISLOCKED_TAG)]);
        }
        if !matches!(n, "LKR" | "LKW" | "LF" | "RL" | "RU") {
            return None;
        }
        let [trylock, failed, islocked] = self.lock_tags.clone()?.map(Box::new);
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
                "nemos's values are sets of events and relations, not sets of them; it reads \
                 `map` only in `with x from cross(map f S)` where `f e` is the single edges of \
                 a relation into `e` (the kernel's lock.cat)",
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
        if let ("tag2set", ExprKind::Tag(tag)) = (f.text.as_str(), &arg.kind) {
            return Ok((self.tag2set(tag), Some(Type::Set)));
        }
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
            if let ExprKind::Name(n) = &arg.kind {
                if matches!(self.scope.get(n), Some(Bound::Element)) {
                    scope.insert(param.clone(), Bound::Element);
                    continue;
                }
            }
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
pub(super) fn fix(e: TExpr, ty: Option<Type>, want: Type) -> TExpr {
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
