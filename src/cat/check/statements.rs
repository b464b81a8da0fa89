//! The statements of a model file: definitions, checks, includes, and herd's tag sets.

use std::rc::Rc;
use std::sync::Arc;

use super::infer::{fix, not_a_relation};
use super::{Base, Bound, Check, Checker, Function, RecGroup, TExpr, Type};
use crate::cat::ast::{self, BinOp, CheckKind, ModelAst, Statement};
use crate::diagnostics::{Diagnostic, InputError, SourceFile, Span};

const MAX_INCLUDE_DEPTH: usize = 16;

impl Checker<'_> {
    pub(super) fn file(&mut self, file: &SourceFile, ast: &ModelAst) -> Result<(), InputError> {
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
                Statement::WithFrom { name, expr, span } => {
                    if let Err(d) = self.with_from(&file.name, name, expr, *span) {
                        diagnostics.push(d);
                    }
                }
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
    pub(super) fn tag_set(&mut self, tag: &str) -> (TExpr, bool) {
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
    pub(super) fn bindings(
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
            match self.family(&b.expr) {
                Ok(Some(family)) => {
                    new.push((b.name.text.clone(), Bound::Family(family)));
                    continue;
                }
                Ok(None) => {}
                Err(d) => {
                    diagnostics.push(d);
                    continue;
                }
            }
            match self.infer(&b.expr) {
                Ok((e, ty)) => {
                    let id = self.model.defs.len();
                    self.model.defs.push((b.name.text.clone(), Arc::new(e), ty));
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
                Arc::new(TExpr::Empty(Type::Rel)),
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
                    self.model.defs[id].1 = Arc::new(body);
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
        let file = match super::herd::library_file(path) {
            Some(file) => Ok(file),
            None => match self.read.get(path) {
                Some(file) => Ok(file.clone()),
                None => (self.resolve)(path),
            },
        };
        let file = file.map_err(|message| {
            let mut d = Diagnostic::new(format!("cannot include `{path}`: {message}"), span)
                .with_label("included here");
            if let Some(help) = herd_library(path) {
                d = d.with_help(help);
            }
            Included::Here(d)
        })?;
        let ast = crate::cat::parse(&file).map_err(Included::There)?;
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
/// and whether nemos knows it, for a model that comes without a macro file
/// (`cat::Options::tags_from_events` off; with a `.def` file, `tag_set` reads the events' own
/// tags). Such events carry C11 memory orders, not herd's tags: the kernel's macros are
/// mapped to C11 orders in `program::library` (`READ_ONCE` relaxed, `smp_load_acquire`
/// acquire, `smp_mb` a seq_cst fence, `smp_rmb` an acquire fence, `smp_wmb` a release
/// fence), and this reads the tags back from them. Tags with no counterpart (`'noreturn`,
/// `'barrier`, RCU, SRCU, the `smp_mb__*` fences) are the empty set, listed in
/// `Model::placeholders`.
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

/// What to say about an include nemos cannot find.
fn herd_library(path: &str) -> Option<&'static str> {
    path.ends_with(".cat").then_some(
        "herd finds the files of its library in its own folder: name it with `--herd-lib DIR` \
         (or `HERDLIB=DIR`, as herd reads it); nemos knows cross.cat, stdlib.cat and the cos \
         files natively",
    )
}

enum Included {
    Here(Diagnostic),
    There(InputError),
}
