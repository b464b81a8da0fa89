//! A struct passed by value: `int fun(struct foo f)` called as `fun(w)`, as GenMC's
//! `memcpy4` writes it.
//!
//! C passes the callee a copy of the argument (C11 6.5.2.2p4: the parameter is assigned the
//! argument's value), an object of the callee's own: writes to it are not seen by the
//! caller. clang passes such a struct through memory (`byval`): the callee's parameter is
//! a fresh stack object filled from the caller's. So the litmus function takes the
//! argument's address in a parameter `f#byval`, the parameter `f` is a stack object of
//! the callee (`stack.rs`: allocated at its entry, freed where it returns), and the entry
//! copies the argument into it cell by cell, each cell read plainly and then written
//! plainly, as `copy.rs` copies a struct assignment. The caller passes the address of the
//! object it names (a variable, a member, an element, `*p`); a struct value that is not an
//! object (a call's) is refused.

use super::heap::as_int_pointer;
use super::*;

/// Whether a parameter of type `info` is a struct passed by value.
pub(super) fn is_struct_value(info: &TypeInfo) -> bool {
    info.pointer_depth == 0 && info.base.starts_with("struct ")
}

/// The litmus parameter holding the address of by-value struct parameter `name`.
pub(super) fn address_parameter(name: &str) -> String {
    format!("{name}#byval")
}

/// The copy of the caller's struct (at `name#byval`) into the callee's stack object
/// `name#stack`, of `cells` cells: every read, then every write.
pub(super) fn copy_in(name: &str, cells: i64, span: Span) -> Vec<ast::Stmt> {
    let from = as_int_pointer(name_expr(&address_parameter(name), span), span);
    let to = as_int_pointer(name_expr(&stack::stack_register(name), span), span);
    let registers: Vec<String> = (0..cells).map(|k| format!("{name}#byval_{k}")).collect();
    super::copy::copy_through(&from, &to, &registers, span)
}

impl Translator<'_> {
    /// An argument of a call of the program's own function: a struct value is passed by its
    /// address (module doc), anything else as its value.
    pub(super) fn argument(&mut self, a: &Node<c::Expression>, scope: &Scope) -> Option<ast::Expr> {
        if self.struct_value_cells(a, scope).is_none() {
            return self.expression(a, scope);
        }
        let objects = matches!(
            &a.node,
            c::Expression::Identifier(_) | c::Expression::Member(_)
        ) || matches!(&a.node, c::Expression::UnaryOperator(u)
            if matches!(u.node.operator.node, c::UnaryOperator::Indirection))
            || matches!(&a.node, c::Expression::BinaryOperator(b)
            if matches!(b.node.operator.node, c::BinaryOperator::Index));
        if !objects {
            self.refuse(
                "a struct passed by value that is not an object (a variable, member or element)",
                a.span,
            );
            return None;
        }
        let span = self.span(a.span);
        let (place, _) = self.place(a, scope)?;
        Some(address_of(place, span))
    }
}
