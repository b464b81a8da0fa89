//! A compare-exchange whose expected value is an object in memory that is not a location
//! the test names: `atomic_compare_exchange_weak(&list, &node->next, node)`, as GenMC's
//! `sll-test` writes it (the expected value is a field of a node the thread was given).
//!
//! C11 7.17.7.4: the call compares the object with `*expected` and, when they differ,
//! writes the value it read into `*expected`; `expected` points to a plain (non-atomic)
//! object, so both are plain accesses of the calling thread, which is how clang compiles
//! the call (a load of `*expected`, the `cmpxchg`, and a store of the old value into
//! `*expected` on the failure branch). The litmus dialect's compare-exchange takes its
//! expected value in a register (or a fixed location), so the call is hoisted here as
//! clang writes it:
//!
//! ```c
//! cas#N = *expected;                       // plain read
//! ok#N = atomic_compare_exchange_X(obj, &cas#N, desired, ...);
//! if (!ok#N) *expected = cas#N;            // plain write, on failure only
//! ```
//!
//! and the call's value is `ok#N`. In a loop condition the three statements run before
//! every test, as every hoisted effect does (`effects.rs`).

use super::effects::{c_name, c_node};
use super::*;

/// The compare-exchange calls whose second argument points to the expected value.
const COMPARE_EXCHANGES: &[&str] = &[
    "atomic_compare_exchange_strong",
    "atomic_compare_exchange_strong_explicit",
    "atomic_compare_exchange_weak",
    "atomic_compare_exchange_weak_explicit",
    "__atomic_compare_exchange_n",
];

/// Whether `call` is a compare-exchange whose expected value is not a plain variable
/// (`&r`, a register or a global, which the litmus dialect takes as it is): one this
/// module hoists.
pub(super) fn expected_in_memory(call: &c::CallExpression) -> bool {
    let c::Expression::Identifier(id) = &call.callee.node else {
        return false;
    };
    if !COMPARE_EXCHANGES.contains(&id.node.name.as_str()) {
        return false;
    }
    let Some(expected) = call.arguments.get(1) else {
        return false;
    };
    !matches!(&expected.node, c::Expression::UnaryOperator(u)
        if matches!(u.node.operator.node, c::UnaryOperator::Address)
            && matches!(u.node.operand.node, c::Expression::Identifier(_)))
}

fn c_unary(
    op: c::UnaryOperator,
    operand: Node<c::Expression>,
    span: lang_c::span::Span,
) -> Node<c::Expression> {
    c_node(
        c::Expression::UnaryOperator(Box::new(c_node(
            c::UnaryOperatorExpression {
                operator: c_node(op, span),
                operand: Box::new(operand),
            },
            span,
        ))),
        span,
    )
}

impl Translator<'_> {
    /// The compare-exchange `call` (its arguments' effects already hoisted: `args`), its
    /// expected value read from memory into a register first and written back on failure
    /// (module doc). Returns the register holding the call's value.
    pub(super) fn compare_exchange_through_memory(
        &mut self,
        call: &Node<c::CallExpression>,
        args: Vec<Node<c::Expression>>,
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
    ) -> Option<Node<c::Expression>> {
        let at = call.span;
        let span = self.span(at);
        let pointer = args.get(1)?.clone();
        let ty = self
            .type_of_expression(
                &c_unary(c::UnaryOperator::Indirection, pointer.clone(), at),
                scope,
            )
            .unwrap_or_else(|| TypeInfo::scalar("int"));
        // C evaluates `expected` once: the pointer is held in a register, and both the read
        // and the write-back on failure go through it (`&g->next` with `g` shared may
        // otherwise name two objects).
        let holder = format!("cas#{}p", at.start);
        let mut pointer_ty = ty.clone();
        pointer_ty.pointer_depth += 1;
        let pointer_value = self.expression(&pointer, scope)?;
        out.push(stmt(
            StmtKind::Decl {
                ty: Self::litmus_type(&pointer_ty, span),
                name: ident(&holder, span),
                init: Some(pointer_value),
            },
            span,
        ));
        scope.locals.insert(holder.clone(), pointer_ty);
        let object = c_unary(c::UnaryOperator::Indirection, c_name(&holder, at), at);
        let (place, atomic) = self.place(&object, scope)?;
        if atomic {
            self.refuse(
                "a compare-exchange whose expected value is an atomic object",
                args[1].span,
            );
            return None;
        }
        let old = format!("cas#{}", at.start);
        let ok = format!("cas#{}ok", at.start);
        out.push(stmt(
            StmtKind::Decl {
                ty: Self::litmus_type(&ty, span),
                name: ident(&old, span),
                init: Some(place.clone()),
            },
            span,
        ));
        scope.locals.insert(old.clone(), ty);
        let mut node = call.clone();
        node.node.arguments = args;
        node.node.arguments[1] = c_unary(c::UnaryOperator::Address, c_name(&old, at), at);
        let value = self.expression(&c_node(c::Expression::Call(Box::new(node)), at), scope)?;
        out.push(stmt(
            StmtKind::Decl {
                ty: int_type(span),
                name: ident(&ok, span),
                init: Some(value),
            },
            span,
        ));
        scope.locals.insert(ok.clone(), TypeInfo::scalar("int"));
        out.push(if_stmt(
            expr(
                ExprKind::Unary(UnaryOp::Not, Box::new(name_expr(&ok, span))),
                span,
            ),
            vec![stmt(
                StmtKind::Assign {
                    lhs: place,
                    rhs: name_expr(&old, span),
                },
                span,
            )],
            None,
            span,
        ));
        Some(c_name(&ok, at))
    }
}
