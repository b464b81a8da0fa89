//! `sizeof` and the allocation calls: sizes are counted in nemos's cells, one per scalar
//! or pointer whatever its C width (nemos's integers are 32-bit), so that `malloc(n *
//! sizeof(T))` allocates `n` objects of `T` as the struct layout lays them out.

use lang_c::ast as c;
use lang_c::span::Node;
use lang_c::visit::Visit;

use super::{derived, Scope, Translator};
use crate::diagnostics::Span;
use crate::syntax::ast::{self, ExprKind, UnaryOp};

impl Translator<'_> {
    /// `sizeof(T)` in cells; `None` for a type nemos cannot size (an array declarator).
    pub(super) fn sizeof_type(&self, name: &c::TypeName) -> Option<i64> {
        if let Some(d) = &name.declarator {
            let parts = derived(&d.node);
            if parts
                .iter()
                .any(|p| matches!(p, c::DerivedDeclarator::Pointer(_)))
            {
                return Some(1);
            }
            if !parts.is_empty() {
                return None;
            }
        }
        let mut cells = Some(1);
        for s in &name.specifiers {
            if let c::SpecifierQualifier::TypeSpecifier(t) = &s.node {
                match &t.node {
                    c::TypeSpecifier::Struct(st) => {
                        let id = st.node.identifier.as_ref()?;
                        cells = self.struct_cells(&format!("struct {}", id.node.name), 0);
                    }
                    c::TypeSpecifier::TypedefName(id) => {
                        let info = self.typedefs.get(&id.node.name)?;
                        if info.pointer_depth > 0 {
                            return Some(1);
                        }
                        cells = self.struct_cells(&info.base, 0);
                    }
                    c::TypeSpecifier::Atomic(inner) => cells = self.sizeof_type(&inner.node),
                    _ => {}
                }
            }
        }
        cells
    }

    /// The cells of an object of type `base` (a struct's fields laid out in order, or one
    /// cell); `None` past a nesting no real struct reaches (a recursive definition).
    pub(super) fn struct_cells(&self, base: &str, depth: u32) -> Option<i64> {
        let name = base.strip_prefix("struct ").unwrap_or(base);
        let Some(def) = self.structs.iter().find(|s| s.name.name == name) else {
            return Some(1);
        };
        if depth > 16 {
            return None;
        }
        let mut total: i64 = 0;
        for field in &def.fields {
            let one = if field.ty.pointer_depth > 0 {
                1
            } else {
                self.struct_cells(&field.ty.base, depth + 1)?
            };
            total = total.checked_add(one.checked_mul(i64::from(field.array_len.unwrap_or(1)))?)?;
        }
        Some(total.max(1))
    }

    /// The sizes `malloc` and `calloc` are given, as constants: nemos allocates blocks of
    /// a size known before running.
    pub(super) fn allocation_size(
        &mut self,
        function: &str,
        arg: &Node<c::Expression>,
        scope: &Scope,
    ) -> Option<i64> {
        if function == "aligned_alloc" && mentions_sizeof(arg) {
            // GenMC checks the size against the alignment in bytes, where nemos's `sizeof`
            // counts cells: the check could not be made exactly.
            self.refuse(
                "`aligned_alloc` with a size or alignment computed by `sizeof` or `_Alignof`",
                arg.span,
            );
            return None;
        }
        let size = self.try_constant(arg, scope);
        if size.is_none() {
            self.refuse("an allocation whose size is not a constant", arg.span);
        }
        size
    }
}

/// Whether `expression` holds a `sizeof` or an `_Alignof`.
fn mentions_sizeof(expression: &Node<c::Expression>) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_sizeofty(&mut self, _: &'ast c::SizeOfTy, _: &'ast lang_c::span::Span) {
            self.0 = true;
        }
        fn visit_sizeofval(&mut self, _: &'ast c::SizeOfVal, _: &'ast lang_c::span::Span) {
            self.0 = true;
        }
        fn visit_alignof(&mut self, _: &'ast c::AlignOf, _: &'ast lang_c::span::Span) {
            self.0 = true;
        }
    }
    let mut finder = Finder(false);
    finder.visit_expression(&expression.node, &expression.span);
    finder.0
}

/// A library call's argument as C means it: the litmus dialect reads `*x` there as the
/// location `x` (the Linux macros' lvalues, `WRITE_ONCE(*x, 1)`), where C's `p` for a
/// global pointer `p` (`*p` in the litmus AST) is the address `p` holds. A cast keeps it a
/// value.
pub(super) fn pointer_value(arg: ast::Expr) -> ast::Expr {
    match &arg.kind {
        ExprKind::Unary(UnaryOp::Deref, _) => {
            let span = arg.span;
            as_int_pointer(arg, span)
        }
        _ => arg,
    }
}

/// `(int *) address`: an object's cells one by one, whatever its type (nemos's cells are
/// all alike).
pub(super) fn as_int_pointer(address: ast::Expr, span: Span) -> ast::Expr {
    let ty = ast::Type {
        base: "int".to_string(),
        atomic: false,
        volatile: false,
        constant: false,
        pointer_depth: 1,
        span,
    };
    ast::Expr {
        kind: ExprKind::Cast(ty, Box::new(address)),
        span,
    }
}
