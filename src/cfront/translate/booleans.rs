//! Stores into `_Bool` objects: C converts the value stored to 0 or 1 (C11 6.3.1.2: 0 when
//! the value compares equal to 0, 1 otherwise), where nemos's integers would keep it as it
//! is (`b = 10; assert(b == 1);` holds in C).
//!
//! The conversion is written where the front end knows the type of the object stored
//! into: an assignment or compound assignment whose left side has a `_Bool` type as far as
//! declarations say (`type_of_expression`: globals, locals, parameters, members, elements,
//! `*p`), a global's initializer (scalar, array cells, struct members), a local's, an
//! atomic store, exchange, compare-exchange desired value or `atomic_init` on a pointer to
//! `atomic_bool`, a `bool` function's returned value, a `bool` parameter (converted when
//! the function starts: the caller passes the value as it is), and the values the front
//! end follows as known (`known.rs`). A cast `(bool)e` is converted where casts are read.

use super::*;

/// Whether a type is `_Bool`'s (`bool`, `atomic_bool`, `_Atomic(bool)`), not a pointer.
pub(super) fn is_bool(info: &TypeInfo) -> bool {
    info.base == "_Bool" && info.pointer_depth == 0
}

/// A constant converted to `_Bool`.
pub(super) fn bool_constant(v: i64) -> i64 {
    i64::from(v != 0)
}

/// A value converted to `_Bool`: `v != 0`, unless it is 0 or 1 already (a comparison,
/// `&&`, `||`, `!`, a constant).
pub(super) fn to_bool(value: ast::Expr) -> ast::Expr {
    let span = value.span;
    match value.kind {
        ExprKind::Int(v) => expr(ExprKind::Int(bool_constant(v)), span),
        ExprKind::Binary(op, _, _) if op.gives_0_or_1() => value,
        ExprKind::Unary(UnaryOp::Not, _) => value,
        kind => expr(
            ExprKind::Binary(
                BinaryOp::Ne,
                Box::new(expr(kind, span)),
                Box::new(expr(ExprKind::Int(0), span)),
            ),
            span,
        ),
    }
}

/// A value stored into an object of type `info`: converted when that is `_Bool`.
pub(super) fn stored_as(info: &TypeInfo, value: ast::Expr) -> ast::Expr {
    if is_bool(info) {
        to_bool(value)
    } else {
        value
    }
}

/// An initial value of a `_Bool` object (or of each cell of an array of them).
pub(super) fn bool_init(value: ast::InitValue) -> ast::InitValue {
    match value {
        ast::InitValue::Int(v) => ast::InitValue::Int(bool_constant(v)),
        ast::InitValue::List(values) => {
            ast::InitValue::List(values.into_iter().map(bool_constant).collect())
        }
        other => other,
    }
}

/// The atomic calls that store their argument `k` into the object their first argument
/// points to.
fn stored_argument(name: &str) -> Option<usize> {
    match name {
        "atomic_store"
        | "atomic_store_explicit"
        | "atomic_exchange"
        | "atomic_exchange_explicit"
        | "atomic_init" => Some(1),
        "atomic_compare_exchange_strong"
        | "atomic_compare_exchange_strong_explicit"
        | "atomic_compare_exchange_weak"
        | "atomic_compare_exchange_weak_explicit" => Some(2),
        _ => None,
    }
}

impl Translator<'_> {
    /// Whether an lvalue is a `_Bool` object, as far as declarations say.
    pub(super) fn lvalue_is_bool(&self, e: &Node<c::Expression>, scope: &Scope) -> bool {
        self.type_of_expression(e, scope)
            .is_some_and(|info| is_bool(&info))
    }

    /// The value stored into `lvalue`: converted when it is a `_Bool` object.
    pub(super) fn stored_value(
        &self,
        lvalue: &Node<c::Expression>,
        scope: &Scope,
        value: ast::Expr,
    ) -> ast::Expr {
        if self.lvalue_is_bool(lvalue, scope) {
            to_bool(value)
        } else {
            value
        }
    }

    /// A known value stored into the local or global `name`: converted when it is a
    /// `_Bool` object.
    pub(super) fn stored_constant(&self, name: &str, scope: &Scope, v: i64) -> i64 {
        let info = match scope.locals.get(name) {
            Some(info) => Some(info),
            None => self
                .globals
                .get(name)
                .filter(|(kind, _)| *kind == Global::Object)
                .map(|(_, info)| info),
        };
        if info.is_some_and(is_bool) {
            bool_constant(v)
        } else {
            v
        }
    }

    /// The arguments of an atomic call that stores into an `atomic_bool` object: the value
    /// stored converted (`atomic_store(&flag, 2)` stores 1).
    pub(super) fn bool_call_arguments(
        &self,
        name: &str,
        call_node: &Node<c::CallExpression>,
        scope: &Scope,
        args: &mut [ast::Expr],
    ) {
        let Some(k) = stored_argument(name) else {
            return;
        };
        let Some(target) = call_node.node.arguments.first() else {
            return;
        };
        let points_to_bool = self
            .type_of_expression(target, scope)
            .is_some_and(|info| info.pointer_depth == 1 && info.base == "_Bool");
        if !points_to_bool {
            return;
        }
        if let Some(arg) = args.get_mut(k) {
            let value = std::mem::replace(arg, expr(ExprKind::Int(0), arg.span));
            *arg = to_bool(value);
        }
    }

    /// The value a function returns: converted when it returns `_Bool`.
    pub(super) fn returned_value(&self, value: ast::Expr) -> ast::Expr {
        if self.stack_frame.return_type.as_ref().is_some_and(is_bool) {
            to_bool(value)
        } else {
            value
        }
    }
}

/// The statements that convert a function's `_Bool` parameters when it starts (`b = b !=
/// 0`): a caller passes the value as it is.
pub(super) fn bool_parameters(params: &[ast::Param]) -> Vec<ast::Stmt> {
    params
        .iter()
        .filter(|p| p.ty.base == "_Bool" && p.ty.pointer_depth == 0)
        .map(|p| {
            let span = p.name.span;
            let register = expr(ExprKind::Name(p.name.clone()), span);
            stmt(
                StmtKind::Assign {
                    lhs: register.clone(),
                    rhs: to_bool(register),
                },
                span,
            )
        })
        .collect()
}
