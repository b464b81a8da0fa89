//! `exit(n)` as GenMC 0.11 runs it (`Interpreter::exitCalled` in its `Execution.cpp`): the
//! calling thread's stack is unwound (its allocas freed), the `atexit` handlers run, and
//! the thread stops there with no end event; the other threads go on, and the execution
//! is complete when they end (a join of the exited thread would wait for ever). In `main`
//! that is `main`'s end as a `return` is (no thread joins `main`; its status is not
//! observed), which is what nemos writes. Elsewhere (a thread some join may wait for, a
//! function called from several places) it is refused, named.

use super::*;

impl Translator<'_> {
    /// `exit(n);` as a statement: `true` when the statement was one (written or refused).
    pub(super) fn exit_call(
        &mut self,
        e: &Node<c::Expression>,
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
    ) -> bool {
        let c::Expression::Call(call_node) = &e.node else {
            return false;
        };
        let Some(name @ ("exit" | "_Exit")) = callee_name(call_node) else {
            return false;
        };
        if self.functions.contains(name) {
            return false;
        }
        let span = self.span(e.span);
        let [status] = call_node.node.arguments.as_slice() else {
            self.errors.push(Diagnostic::new(
                format!("`{name}` with the wrong number of arguments"),
                span,
            ));
            return true;
        };
        if !scope.main {
            self.refuse(&format!("`{name}` outside `main`"), call_node.span);
            return true;
        }
        // The status is evaluated (its effects happen) and not observed.
        if effects::has_effects(&status.node) {
            let _ = self.value(status, scope, out);
        }
        self.free_frame(None, span, out);
        out.push(stmt(StmtKind::Return(None), span));
        true
    }
}
