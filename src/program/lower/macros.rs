//! Calls of the macros of a model's `.def` file (see [`crate::syntax::def`]): each
//! expands into herd's primitives, whose events carry the macro's tag.
//!
//! The primitives, as herd's C semantics gives them:
//! - `__load{t}(X)`, `__store{t}(X,V)`, `__fence{t}`: one access or fence tagged `t`;
//! - `__xchg{t}(X,V)`: a read and a write, both tagged `t`, linked by `rmw`; the value is
//!   the old one;
//! - `__cmpxchg{t}(X,V,W)`: the value is the old one; when it equals `V`, a read and a write
//!   tagged `t` linked by `rmw`, otherwise one read tagged `once`;
//! - `__atomic_op(X,op,V)`: `X = X op V` without a value, both events tagged `noreturn`
//!   (or the tag written);
//! - `__atomic_op_return{t}(X,op,V)`, `__atomic_fetch_op{t}(X,op,V)`: the same tagged `t`,
//!   valued the new and the old value;
//! - `__atomic_add_unless{t}(X,V,W)`: unless the old value is `W`, a read and a write of
//!   `old + V` tagged `t` linked by `rmw`, otherwise one read tagged `once`; the value is 1
//!   when it added, 0 otherwise;
//! - `__srcu{t}(X)`: an event tagged `t` on the location `X` points to, neither a read nor
//!   a write (herd's SRCU action: `synchronize_srcu`);
//! - `__lock(X)`, `__unlock(X)`: herd's spin locks as `lock.cat` defines them, memory
//!   events (see [`crate::program::Location::herd_lock`]).
//!
//! Memory orders are given from the tags as the C11 translation of the kernel's model does
//! (`once` relaxed, `acquire`, `release`, `mb` seq_cst, `rmb`/`wmb` acquire/release
//! fences), for what reads orders (races, `infer`); the kernel's model reads the tags.

use std::sync::Arc;

use super::{Lowerer, ThreadScope};
use crate::cat::{ISLOCKED_TAG, TRYLOCK_FAILED_TAG, TRYLOCK_TAG};
use crate::diagnostics::{Diagnostic, Span};
use crate::program::{BinaryOp, Expected, Expr, Instr, MemOrder, RegId, RmwOp, Tags, UnaryOp};
use crate::syntax::ast::{self, ExprKind};
use crate::syntax::def::{Body, Head, MacroArg, MacroExpr, Macros};

/// How deep macros may call macros (`atomic_read` -> `READ_ONCE`): a cycle in the file.
const MAX_DEPTH: usize = 16;

/// An argument of a primitive once the call's arguments are substituted.
enum Arg {
    Expr(ast::Expr),
    Op(String),
}

/// The failure tag of a compare-exchange: its read is a plain marked read.
const FAILURE_TAG: &str = "once";

impl Lowerer {
    /// Whether `name` is a macro of the `.def` file.
    pub(super) fn is_macro(&self, name: &str) -> bool {
        self.macros.as_ref().is_some_and(|m| m.get(name).is_some())
    }

    /// Whether `name` is a macro with a value (not a block).
    pub(super) fn macro_has_value(&self, name: &str) -> bool {
        let found = self.macros.as_ref().and_then(|m| m.get(name));
        found.is_some_and(|m| matches!(m.body, Body::Value(_)))
    }

    /// Expand a call of a macro; `dst` receives its value. `None` after an error.
    pub(super) fn expand_macro(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
        dst: Option<RegId>,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<()> {
        let macros = self.macros.clone()?;
        self.expand(&macros, name, args, span, dst, scope, out, 0)
    }

    #[allow(clippy::too_many_arguments)]
    fn expand(
        &mut self,
        macros: &Arc<Macros>,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
        dst: Option<RegId>,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
        depth: usize,
    ) -> Option<()> {
        let m = macros.get(&name.name)?;
        if depth > MAX_DEPTH {
            self.error(
                Diagnostic::new(
                    format!(
                        "the macros of {} call each other without end",
                        macros.file.name
                    ),
                    span,
                )
                .with_label(format!("expanding `{}`", name.name)),
            );
            return None;
        }
        if !self.arity(name, args, m.params.len(), span) {
            return None;
        }
        match &m.body {
            Body::Value(e) => self.macro_expr(macros, e, args, span, dst, scope, out, depth),
            Body::Block(statements) => {
                for e in statements {
                    self.macro_expr(macros, e, args, span, None, scope, out, depth)?;
                }
                Some(())
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn macro_expr(
        &mut self,
        macros: &Arc<Macros>,
        e: &MacroExpr,
        call_args: &[ast::Expr],
        span: Span,
        dst: Option<RegId>,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
        depth: usize,
    ) -> Option<()> {
        let args: Vec<Arg> = e
            .args
            .iter()
            .map(|a| substitute(a, call_args, span))
            .collect::<Option<_>>()?;
        // A comparison takes the value into a temporary first.
        let target = match (e.compare, dst) {
            (Some(_), _) => Some(scope.temporary()),
            (None, dst) => dst,
        };
        match &e.head {
            Head::Macro(inner) => {
                let mut exprs = Vec::new();
                for a in args {
                    match a {
                        Arg::Expr(x) => exprs.push(x),
                        Arg::Op(op) => {
                            self.error(self.bad_expansion(
                                span,
                                &format!("passes the operator `{op}` to the macro `{inner}`"),
                            ));
                            return None;
                        }
                    }
                }
                let inner = ast::Ident {
                    name: inner.clone(),
                    span,
                };
                if self.is_macro(&inner.name) {
                    self.expand(macros, &inner, &exprs, span, target, scope, out, depth + 1)?;
                } else {
                    // A call of nemos's library (herd's c11.def: `atomic_load(X)` is
                    // `atomic_load_explicit(X,memory_order_seq_cst)`).
                    self.lower_call(&inner, &exprs, span, target, scope, out)?;
                }
            }
            Head::Primitive { name, tag } => {
                let tags: Tags = tag.iter().map(|t| t.to_ascii_lowercase()).collect();
                self.primitive(name, tags, &args, span, target, scope, out)?;
            }
        }
        if let (Some((op, k)), Some(t), Some(dst)) = (e.compare, target, dst) {
            out.push(Instr::Assign {
                dst,
                value: Expr::Binary(op, Box::new(Expr::Reg(t)), Box::new(Expr::Const(k))),
                span,
            });
        }
        Some(())
    }

    fn bad_expansion(&self, span: Span, what: &str) -> Diagnostic {
        let file = self
            .macros
            .as_ref()
            .map_or(String::new(), |m| m.file.name.clone());
        Diagnostic::new(format!("this call's macro in {file} {what}"), span)
            .with_label("expanded here")
    }

    #[allow(clippy::too_many_arguments)]
    fn primitive(
        &mut self,
        name: &str,
        tags: Tags,
        args: &[Arg],
        span: Span,
        dst: Option<RegId>,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<()> {
        let arity = match name {
            "load" | "lock" | "unlock" | "trylock" | "islocked" => 1,
            "store" | "xchg" => 2,
            "fence" => 0,
            "srcu" => 1,
            "cmpxchg" | "atomic_op" | "atomic_op_return" | "atomic_fetch_op"
            | "atomic_add_unless" => 3,
            _ => {
                self.error(
                    self.bad_expansion(span, &format!("uses `__{name}`, which nemos does not support"))
                        .with_help("nemos expands __load, __store, __fence, __srcu, __xchg, __cmpxchg, __atomic_op, __atomic_op_return, __atomic_fetch_op, __atomic_add_unless, __lock, __unlock, __trylock and __islocked"),
                );
                return None;
            }
        };
        if args.len() != arity {
            self.error(self.bad_expansion(
                span,
                &format!("gives `__{name}` {} arguments, not {arity}", args.len()),
            ));
            return None;
        }
        let order = tags.first().map_or(MemOrder::Relaxed, |t| order_of(t));
        let expr = |i: usize| match &args[i] {
            Arg::Expr(e) => Some(e),
            Arg::Op(_) => None,
        };
        if name == "fence" {
            out.push(Instr::Fence {
                order,
                tags,
                loc: None,
                span,
            });
            return Some(());
        }
        let Some(location) = expr(0).cloned() else {
            self.error(self.bad_expansion(span, &format!("gives `__{name}` no location")));
            return None;
        };
        match name {
            "srcu" => {
                // `__srcu{t}(X)`: an event on the location `X` points to (herd's SRCU
                // action), neither a read nor a write.
                let span_x = location.span;
                let cell = ast::Expr {
                    kind: ExprKind::Unary(ast::UnaryOp::Deref, Box::new(location)),
                    span: span_x,
                };
                let loc = self.pointer_argument(&cell, scope, out)?;
                let loc = self.fixed_address(loc, "an SRCU structure", span_x)?;
                out.push(Instr::Fence {
                    order: MemOrder::Relaxed,
                    tags,
                    loc: Some(loc),
                    span,
                });
            }
            "load" => {
                let loc = self.pointer_argument(&location, scope, out)?;
                self.mark_atomic(&loc);
                let dst = dst.unwrap_or_else(|| scope.temporary());
                out.push(Instr::Load {
                    dst,
                    loc,
                    order,
                    tags,
                    span,
                });
            }
            "store" | "xchg" => {
                let loc = self.pointer_argument(&location, scope, out);
                let value = self.value_arg(expr(1), span, scope, out);
                let (loc, value) = (loc?, value?);
                self.mark_atomic(&loc);
                if name == "store" {
                    out.push(Instr::Store {
                        loc,
                        value,
                        order,
                        tags,
                        span,
                    });
                } else {
                    out.push(Instr::Rmw {
                        dst,
                        loc,
                        op: RmwOp::Exchange,
                        operand: value,
                        order,
                        tags,
                        unless: None,
                        failure_tags: Vec::new(),
                        span,
                    });
                }
            }
            "cmpxchg" => {
                let loc = self.pointer_argument(&location, scope, out);
                let expected = self.value_arg(expr(1), span, scope, out);
                let desired = self.value_arg(expr(2), span, scope, out);
                let (loc, expected, desired) = (loc?, expected?, desired?);
                self.mark_atomic(&loc);
                // The expected value in a register, which a failure overwrites with the
                // value read: either way it ends holding the old value, the macro's.
                let old = scope.temporary();
                out.push(Instr::Assign {
                    dst: old,
                    value: expected,
                    span,
                });
                out.push(Instr::CompareExchange {
                    dst: None,
                    loc,
                    expected: Expected::Register(old),
                    desired,
                    success: order,
                    failure: MemOrder::Relaxed,
                    weak: false,
                    tags,
                    failure_tags: vec![FAILURE_TAG.to_string()],
                    span,
                });
                if let Some(dst) = dst {
                    out.push(Instr::Assign {
                        dst,
                        value: Expr::Reg(old),
                        span,
                    });
                }
            }
            "atomic_op" | "atomic_op_return" | "atomic_fetch_op" => {
                let loc = self.pointer_argument(&location, scope, out);
                let operand = self.value_arg(expr(2), span, scope, out);
                let (loc, operand) = (loc?, operand?);
                let Arg::Op(op) = &args[1] else {
                    self.error(self.bad_expansion(span, &format!("gives `__{name}` no operator")));
                    return None;
                };
                let (op, operand) = atomic_operator(op, operand);
                self.mark_atomic(&loc);
                let (tags, order) = if name == "atomic_op" && tags.is_empty() {
                    (vec!["noreturn".to_string()], MemOrder::Relaxed)
                } else {
                    (tags, order)
                };
                let old = match name {
                    "atomic_op" => None,
                    "atomic_fetch_op" => dst,
                    _ => Some(scope.temporary()),
                };
                out.push(Instr::Rmw {
                    dst: old,
                    loc,
                    op: RmwOp::Fetch(op),
                    operand: operand.clone(),
                    order,
                    tags,
                    unless: None,
                    failure_tags: Vec::new(),
                    span,
                });
                if let (Some(old), Some(dst), "atomic_op_return") = (old, dst, name) {
                    let new = Expr::Binary(op, Box::new(Expr::Reg(old)), Box::new(operand));
                    out.push(Instr::Assign {
                        dst,
                        value: new,
                        span,
                    });
                }
            }
            "atomic_add_unless" => {
                // herd's `__atomic_add_unless{t}(X,V,W)`: unless `*X` holds `W`, add `V`
                // (a read and a write tagged `t` linked by `rmw`); otherwise one read, as a
                // failed compare-exchange. The value is 1 when it added, 0 otherwise.
                let loc = self.pointer_argument(&location, scope, out);
                let operand = self.value_arg(expr(1), span, scope, out);
                let unless = self.value_arg(expr(2), span, scope, out);
                let (loc, operand, unless) = (loc?, operand?, unless?);
                self.mark_atomic(&loc);
                let old = scope.temporary();
                out.push(Instr::Rmw {
                    dst: Some(old),
                    loc,
                    op: RmwOp::Fetch(BinaryOp::Add),
                    operand,
                    order,
                    tags,
                    unless: Some(unless.clone()),
                    failure_tags: vec![FAILURE_TAG.to_string()],
                    span,
                });
                if let Some(dst) = dst {
                    let added =
                        Expr::Binary(BinaryOp::Ne, Box::new(Expr::Reg(old)), Box::new(unless));
                    out.push(Instr::Assign {
                        dst,
                        value: added,
                        span,
                    });
                }
            }
            "trylock" => {
                // A compare-exchange of 0 for 1: on success a read with Acquire ordering
                // and a write (LKR, LKW), on failure one read (LF); its value is 1 on
                // success, 0 on failure.
                let loc = self.spin_lock(&location, span, scope, out)?;
                let old = scope.temporary();
                out.push(Instr::Assign {
                    dst: old,
                    value: Expr::Const(0),
                    span,
                });
                out.push(Instr::CompareExchange {
                    dst: None,
                    loc: crate::program::Address::Fixed(loc),
                    expected: Expected::Register(old),
                    desired: Expr::Const(1),
                    success: MemOrder::Acquire,
                    failure: MemOrder::Relaxed,
                    weak: false,
                    tags: vec!["acquire".to_string(), TRYLOCK_TAG.to_string()],
                    failure_tags: vec![TRYLOCK_FAILED_TAG.to_string()],
                    span,
                });
                compare_with_zero(dst, BinaryOp::Eq, old, span, out);
            }
            "islocked" => {
                // A read (RL when it reads a held lock, RU otherwise); its value is 1 when
                // the lock is held.
                let loc = self.spin_lock(&location, span, scope, out)?;
                let read = scope.temporary();
                out.push(Instr::Load {
                    dst: read,
                    loc: crate::program::Address::Fixed(loc),
                    order: MemOrder::Relaxed,
                    tags: vec![ISLOCKED_TAG.to_string()],
                    span,
                });
                compare_with_zero(dst, BinaryOp::Ne, read, span, out);
            }
            _ => {
                // `lock` and `unlock`.
                let loc = self.spin_lock(&location, span, scope, out)?;
                if name == "lock" {
                    out.push(Instr::Lock { loc, span });
                } else {
                    out.push(Instr::Unlock { loc, span });
                }
            }
        }
        Some(())
    }

    /// The location of a spin lock primitive, which herd's lock semantics then govern.
    fn spin_lock(
        &mut self,
        location: &ast::Expr,
        span: Span,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<usize> {
        let loc = self.pointer_argument(location, scope, out)?;
        let loc = self.fixed_address(loc, "a lock", span)?;
        self.locations[loc].is_lock = true;
        self.locations[loc].herd_lock = true;
        Some(loc)
    }

    fn value_arg(
        &mut self,
        arg: Option<&ast::Expr>,
        span: Span,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<Expr> {
        match arg {
            Some(e) => self.lower_expr(e, scope, out),
            None => {
                self.error(self.bad_expansion(span, "gives an operator where a value goes"));
                None
            }
        }
    }
}

/// `dst = reg OP 0`, when the call's value is used.
fn compare_with_zero(
    dst: Option<RegId>,
    op: BinaryOp,
    reg: RegId,
    span: Span,
    out: &mut Vec<Instr>,
) {
    if let Some(dst) = dst {
        let zero = Box::new(Expr::Const(0));
        out.push(Instr::Assign {
            dst,
            value: Expr::Binary(op, Box::new(Expr::Reg(reg)), zero),
            span,
        });
    }
}

/// A parameter of the macro replaced by the call's argument (under the stars written:
/// `*X`), an integer by itself.
fn substitute(arg: &MacroArg, call_args: &[ast::Expr], span: Span) -> Option<Arg> {
    Some(match arg {
        MacroArg::Param { index, derefs } => {
            let mut e = call_args.get(*index)?.clone();
            for _ in 0..*derefs {
                let span = e.span;
                e = ast::Expr {
                    kind: ExprKind::Unary(ast::UnaryOp::Deref, Box::new(e)),
                    span,
                };
            }
            Arg::Expr(e)
        }
        MacroArg::Const(k) => Arg::Expr(ast::Expr {
            kind: ExprKind::Int(i64::from(*k)),
            span,
        }),
        MacroArg::Op(op) => Arg::Op(op.clone()),
        MacroArg::Name(name) => Arg::Expr(ast::Expr {
            kind: ExprKind::Name(ast::Ident {
                name: name.clone(),
                span,
            }),
            span,
        }),
    })
}

/// The operation of an atomic: `&~` is `&` with the operand complemented.
fn atomic_operator(op: &str, operand: Expr) -> (BinaryOp, Expr) {
    match op {
        "-" => (BinaryOp::Sub, operand),
        "&" => (BinaryOp::BitAnd, operand),
        "|" => (BinaryOp::BitOr, operand),
        "^" => (BinaryOp::BitXor, operand),
        "&~" => (
            BinaryOp::BitAnd,
            Expr::Unary(UnaryOp::BitNot, Box::new(operand)),
        ),
        _ => (BinaryOp::Add, operand),
    }
}

/// The C11 order that stands for a tag (see the module's documentation).
fn order_of(tag: &str) -> MemOrder {
    match tag {
        "acquire" | "rmb" => MemOrder::Acquire,
        "release" | "wmb" => MemOrder::Release,
        "mb" => MemOrder::SeqCst,
        _ => MemOrder::Relaxed,
    }
}
