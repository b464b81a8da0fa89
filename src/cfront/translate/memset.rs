//! `memset(p, 0, size)` as a statement: one plain write of 0 to each cell it covers.
//!
//! nemos counts sizes in cells (one per scalar or pointer, `heap.rs`), so the size must be
//! written with `sizeof` (`sizeof(counters)`, `n * sizeof(int)`, `sizeof(struct s)`) for
//! nemos to know how many cells it covers; a size in bytes (`memset(p, 0, 16)`) is refused,
//! as is a value other than 0 (a byte pattern nemos's 32-bit cells do not hold exactly)
//! and a `memset` whose result is used.

use lang_c::ast as c;
use lang_c::span::Node;

use super::heap::as_int_pointer;
use super::{callee_name, expr, stmt, Scope, Translator};
use crate::diagnostics::Diagnostic;
use crate::syntax::ast::{self, ExprKind, StmtKind};

/// Most cells one `memset` writes.
const MAX_CELLS: i64 = 4096;

/// Whether an expression has a `sizeof` in it.
fn has_sizeof(e: &c::Expression) -> bool {
    match e {
        c::Expression::SizeOfTy(_) | c::Expression::SizeOfVal(_) => true,
        c::Expression::BinaryOperator(b) => {
            has_sizeof(&b.node.lhs.node) || has_sizeof(&b.node.rhs.node)
        }
        c::Expression::Cast(cast) => has_sizeof(&cast.node.expression.node),
        _ => false,
    }
}

impl Translator<'_> {
    /// `memset(p, 0, size)` as a statement, lowered here. Whether `e` is one.
    pub(super) fn memset_statement(
        &mut self,
        e: &Node<c::Expression>,
        scope: &Scope,
        out: &mut Vec<ast::Stmt>,
    ) -> bool {
        let c::Expression::Call(call_node) = &e.node else {
            return false;
        };
        if callee_name(call_node) != Some("memset") || self.functions.contains("memset") {
            return false;
        }
        let span = self.span(e.span);
        let [target, value, size] = call_node.node.arguments.as_slice() else {
            self.errors.push(Diagnostic::new(
                "`memset` with the wrong number of arguments",
                span,
            ));
            return true;
        };
        if self.try_constant(value, scope) != Some(0) {
            self.refuse("`memset` with a value other than 0", value.span);
            return true;
        }
        let cells = if has_sizeof(&size.node) {
            self.size_in_cells(size, scope)
        } else {
            None
        };
        let Some(cells) = cells.filter(|n| (0..=MAX_CELLS).contains(n)) else {
            self.refuse(
                "`memset` whose size is not a constant written with `sizeof`",
                size.span,
            );
            return true;
        };
        let Some(base) = self.expression(target, scope) else {
            return true;
        };
        // Cell by cell, whatever the object's type: through an `int *`.
        let base = as_int_pointer(base, span);
        for i in 0..cells {
            let lhs = expr(
                ExprKind::Index(
                    Box::new(base.clone()),
                    Box::new(expr(ExprKind::Int(i), span)),
                ),
                span,
            );
            out.push(stmt(
                StmtKind::Assign {
                    lhs,
                    rhs: expr(ExprKind::Int(0), span),
                },
                span,
            ));
        }
        true
    }

    /// A size written with `sizeof`, in cells: `sizeof(T)`, `sizeof x` for a global or a
    /// local (an array's every element), and constant arithmetic over them.
    fn size_in_cells(&self, e: &Node<c::Expression>, scope: &Scope) -> Option<i64> {
        match &e.node {
            c::Expression::SizeOfVal(v) => match &v.node.0.node {
                c::Expression::Identifier(id) => self.object_cells(&id.node.name, scope),
                _ => None,
            },
            c::Expression::BinaryOperator(b) => {
                let l = self.size_in_cells(&b.node.lhs, scope)?;
                let r = self.size_in_cells(&b.node.rhs, scope)?;
                match b.node.operator.node {
                    c::BinaryOperator::Multiply => l.checked_mul(r),
                    c::BinaryOperator::Plus => l.checked_add(r),
                    _ => None,
                }
            }
            c::Expression::Cast(cast) => self.size_in_cells(&cast.node.expression, scope),
            _ => self.try_constant(e, scope),
        }
    }

    /// The cells of the object a variable names.
    fn object_cells(&self, name: &str, scope: &Scope) -> Option<i64> {
        if let Some(info) = scope.locals.get(name) {
            if self.stack_frame.is_array(name) && scope.stack.contains(name) {
                return self.stack_frame.cells_of(name);
            }
            if info.pointer_depth > 0 {
                return Some(1);
            }
            return self.struct_cells(&info.base, 0);
        }
        let (_, info) = self.global_info(name)?;
        if info.pointer_depth > 0 {
            return Some(1);
        }
        let one = self.struct_cells(&info.base, 0)?;
        let len = self.init.iter().find_map(|item| match &item.target {
            ast::StateVar::Location {
                name: n,
                index: None,
                members,
            } if n.name == name && members.is_empty() => Some(item.array_len),
            _ => None,
        })?;
        one.checked_mul(i64::from(len.unwrap_or(1)))
    }
}
