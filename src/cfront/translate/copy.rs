//! A whole struct copied: `a = b;` and `struct s t = b;`, cell by cell.
//!
//! C copies a struct's whole representation (C11 6.5.16.1: the value of the right operand
//! replaces the object's). nemos lays a struct out in cells (`heap.rs`), so the copy is one
//! plain read of each of the source's cells, then one plain write of each to the target,
//! through `int *`s, as clang's `memcpy` of the struct reads and writes it (an atomic field
//! is copied plainly too, as `memcpy` copies it). The source must be an object (a variable,
//! a member, an element, `*p`); a struct returned by a call is refused.

use lang_c::ast as c;
use lang_c::span::Node;

use super::heap::as_int_pointer;
use super::{address_of, expr, ident, int_type, name_expr, stmt, Scope, Translator};
use crate::diagnostics::Span;
use crate::syntax::ast::{self, ExprKind, StmtKind};

/// Most cells one copy reads and writes.
const MAX_CELLS: i64 = 4096;

pub(super) fn cell(base: &ast::Expr, k: i64, span: Span) -> ast::Expr {
    expr(
        ExprKind::Index(
            Box::new(base.clone()),
            Box::new(expr(ExprKind::Int(k), span)),
        ),
        span,
    )
}

/// Whether a C expression denotes an object (what a copy may read).
fn is_object(e: &c::Expression) -> bool {
    match e {
        c::Expression::Identifier(_) | c::Expression::Member(_) => true,
        c::Expression::UnaryOperator(u) => {
            matches!(u.node.operator.node, c::UnaryOperator::Indirection)
        }
        c::Expression::BinaryOperator(b) => {
            matches!(b.node.operator.node, c::BinaryOperator::Index)
        }
        _ => false,
    }
}

impl Translator<'_> {
    /// The cells of the struct a C expression is, when its type is a struct (not a pointer).
    pub(super) fn struct_value_cells(&self, e: &Node<c::Expression>, scope: &Scope) -> Option<i64> {
        let info = self.type_of_expression(e, scope)?;
        if info.pointer_depth > 0 || !info.base.starts_with("struct ") {
            return None;
        }
        let name = info.base.trim_start_matches("struct ");
        self.structs
            .iter()
            .any(|s| s.name.name == name)
            .then_some(())?;
        self.struct_cells(&info.base, 0)
    }

    /// `a = b;` with `a` a struct: copied here. Whether `e` is one.
    pub(super) fn struct_assignment(
        &mut self,
        e: &Node<c::Expression>,
        scope: &Scope,
        out: &mut Vec<ast::Stmt>,
    ) -> bool {
        let c::Expression::BinaryOperator(b) = &e.node else {
            return false;
        };
        if !matches!(b.node.operator.node, c::BinaryOperator::Assign) {
            return false;
        }
        let Some(cells) = self.struct_value_cells(&b.node.lhs, scope) else {
            return false;
        };
        let span = self.span(e.span);
        let Some((target, _)) = self.place(&b.node.lhs, scope) else {
            return true;
        };
        self.copy_struct(
            address_of(target, span),
            &b.node.rhs,
            cells,
            scope,
            out,
            span,
        );
        true
    }

    /// Copy the struct `source` denotes, of `cells` cells, to the object at `target`.
    pub(super) fn copy_struct(
        &mut self,
        target: ast::Expr,
        source: &Node<c::Expression>,
        cells: i64,
        scope: &Scope,
        out: &mut Vec<ast::Stmt>,
        span: Span,
    ) {
        if cells > MAX_CELLS {
            self.refuse(
                &format!("a copy of a struct of {cells} cells (at most {MAX_CELLS})"),
                source.span,
            );
            return;
        }
        if !is_object(&source.node) || self.struct_value_cells(source, scope) != Some(cells) {
            self.refuse(
                "a struct copied from something other than an object of its type",
                source.span,
            );
            return;
        }
        let Some((place, _)) = self.place(source, scope) else {
            return;
        };
        let from = as_int_pointer(address_of(place, span), span);
        let to = as_int_pointer(target, span);
        // All reads first: the registers are named by the copy's place in the source.
        let registers: Vec<String> = (0..cells)
            .map(|k| format!("copy#{}_{k}", source.span.start))
            .collect();
        out.extend(copy_through(&from, &to, &registers, span));
    }
}

/// The copy of the cells of `from` into those of `to` (both `int *`), one register per
/// cell: every read first, then every write, so that an overlapping copy reads the old
/// values.
pub(super) fn copy_through(
    from: &ast::Expr,
    to: &ast::Expr,
    registers: &[String],
    span: Span,
) -> Vec<ast::Stmt> {
    let reads = registers.iter().enumerate().map(|(k, register)| {
        stmt(
            StmtKind::Decl {
                ty: int_type(span),
                name: ident(register, span),
                init: Some(cell(from, k as i64, span)),
            },
            span,
        )
    });
    let writes = registers.iter().enumerate().map(|(k, register)| {
        stmt(
            StmtKind::Assign {
                lhs: cell(to, k as i64, span),
                rhs: name_expr(register, span),
            },
            span,
        )
    });
    reads.chain(writes).collect()
}
