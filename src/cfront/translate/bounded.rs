//! GenMC 0.11's `-unroll=N` bounds every loop of the program, one whose trip count is a
//! constant too: its `LoopUnrollPass` gives each loop a counter set to N on entry and
//! decremented on the back edge, and ends the thread (`__VERIFIER_kill_thread`) when it
//! comes back to the loop's header after N iterations, whatever the condition would say.
//! So a constant loop of `t` iterations runs whole when `t < N` and ends its thread at its
//! header after N iterations when `t >= N` (`for (i = 0; i < 2; i++)` at `-unroll=2` never
//! runs what follows it; measured with GenMC 0.11: `tests/c/bound_counted_loop.c`). When
//! the caller asks for that bound (nemos's `--end-threads-at-bound`), such a loop is not
//! unrolled here but left to the unroller, which bounds it as it bounds any other
//! (`events/unroll/control.rs`). A loop that starts threads or calls a function of the
//! program stays unrolled here: a create site in a loop is only read that way.

use lang_c::visit::{self, Visit};

use super::*;

/// Calls in a statement: any call of a function the program defines, or a thread create.
struct Calls<'a> {
    functions: &'a HashSet<String>,
    found: bool,
}

impl<'ast> Visit<'ast> for Calls<'_> {
    fn visit_call_expression(
        &mut self,
        call: &'ast c::CallExpression,
        span: &'ast lang_c::span::Span,
    ) {
        if let c::Expression::Identifier(id) = &call.callee.node {
            let name = id.node.name.as_str();
            if self.functions.contains(name)
                || name.contains("create")
                || name.starts_with("__VERIFIER_spawn")
            {
                self.found = true;
            }
        }
        visit::visit_call_expression(self, call, span);
    }
}

impl Translator<'_> {
    /// Whether a constant loop of `trip` iterations is left to the unroller's bound
    /// (module doc): the caller bounds every loop at N, the loop has `trip >= N`
    /// iterations, and its body starts no thread and calls no function of the program.
    pub(super) fn left_to_bound(&self, f: &Node<c::ForStatement>, trip: usize) -> bool {
        let Some(bound) = self.loop_bound else {
            return false;
        };
        if trip < bound {
            return false;
        }
        let mut calls = Calls {
            functions: &self.functions,
            found: false,
        };
        calls.visit_statement(&f.node.statement.node, &f.node.statement.span);
        !calls.found
    }
}
