//! `pthread_exit(v)` at the end of a function the start routine calls (GenMC's
//! `stack-freed2`: `void exit_thread(int *loc) { p = loc; pthread_exit(NULL); }`). Such a
//! helper never returns: every call of it ends the calling thread once the helper's own
//! statements ran. The helper is written with a `return` where it calls `pthread_exit`
//! (its stack objects freed there), and each call of it, as a statement of the start
//! routine (or of `main`), is followed by the thread's end: the start routine's stack
//! objects freed and its `return v`, as its own `pthread_exit(v)` is written
//! (`threads.rs`). `v` must be a constant (`NULL`), since it is the helper's expression
//! and the caller's frame writes it. A helper that calls `pthread_exit` elsewhere than as
//! its last statement, has a `return`, returns a value, or is called from another helper,
//! stays refused.

use lang_c::visit::{self, Visit};

use super::*;

/// A `void` function whose body's last statement is `pthread_exit(v);` or `thrd_exit(v);`:
/// that call.
fn final_exit(f: &Node<c::FunctionDefinition>) -> Option<&Node<c::Expression>> {
    let void = f.node.specifiers.iter().any(|s| {
        matches!(&s.node, c::DeclarationSpecifier::TypeSpecifier(t)
            if matches!(t.node, c::TypeSpecifier::Void))
    });
    let returns_pointer = derived(&f.node.declarator.node)
        .iter()
        .any(|d| matches!(d, c::DerivedDeclarator::Pointer(_)));
    if !void || returns_pointer {
        return None;
    }
    let c::Statement::Compound(items) = &f.node.statement.node else {
        return None;
    };
    let c::BlockItem::Statement(last) = &items.last()?.node else {
        return None;
    };
    let c::Statement::Expression(Some(e)) = &last.node else {
        return None;
    };
    let c::Expression::Call(call_node) = &e.node else {
        return None;
    };
    // A `return` elsewhere would let the helper come back: not a helper that never returns.
    let mut returns = Returns(false);
    returns.visit_statement(&f.node.statement.node, &f.node.statement.span);
    (!returns.0 && matches!(callee_name(call_node), Some("pthread_exit" | "thrd_exit")))
        .then_some(e)
}

/// Whether a body has a `return` statement.
struct Returns(bool);

impl<'ast> Visit<'ast> for Returns {
    fn visit_statement(&mut self, s: &'ast c::Statement, span: &'ast lang_c::span::Span) {
        if matches!(s, c::Statement::Return(_)) {
            self.0 = true;
        }
        visit::visit_statement(self, s, span);
    }
}

impl Translator<'_> {
    /// Whether `e` is the final `pthread_exit` of a helper that never returns.
    pub(super) fn is_helper_final_exit(&self, e: &Node<c::Expression>) -> bool {
        self.threads
            .definitions
            .values()
            .any(|f| final_exit(f).is_some_and(|x| x.span == e.span))
    }

    /// After a call statement of a program function: when the callee never returns (it
    /// ends with `pthread_exit(v)`), the calling thread ends here. `true` when it was such
    /// a call (written or refused).
    pub(super) fn end_after_helper_exit(
        &mut self,
        call_node: &Node<c::CallExpression>,
        scope: &Scope,
        out: &mut Vec<ast::Stmt>,
    ) -> bool {
        let Some(name) = callee_name(call_node) else {
            return false;
        };
        let Some(definition) = self.threads.definitions.get(name).copied() else {
            return false;
        };
        let Some(exit) = final_exit(definition) else {
            return false;
        };
        let span = self.span(call_node.span);
        if scope.main {
            self.free_frame(None, span, out);
            out.push(stmt(StmtKind::Return(None), span));
            return true;
        }
        if !scope.start {
            self.refuse(
                &format!("a call of `{name}`, which ends its thread, outside the function the thread starts with (or `main`)"),
                call_node.span,
            );
            return true;
        }
        let c::Expression::Call(exit_call) = &exit.node else {
            return false;
        };
        let value = match exit_call.node.arguments.as_slice() {
            [v] => self.try_constant(v, &Scope::default()),
            _ => None,
        };
        let Some(value) = value else {
            self.refuse(
                &format!("`pthread_exit` of a value that is not a constant in `{name}`"),
                exit.span,
            );
            return true;
        };
        let value = self.free_frame(Some(expr(ExprKind::Int(value), span)), span, out);
        out.push(stmt(StmtKind::Return(value), span));
        true
    }
}
