//! Control flow C writes that the litmus dialect has no word for:
//! - `if (pthread_mutex_lock(&m)) exit(-1);`: the mutex calls succeed in nemos (their
//!   value is 0, as GenMC's are), so the call is a statement and only the `else` branch
//!   can run (as `if (pthread_create(...)) abort();` already is);
//! - a backward `goto` to a label of the same block, the retry loop the Linux kernel
//!   writes (`repeat: r = READ_ONCE(s->sequence); if (r & 1) goto repeat; return r;`): the
//!   statements from the label to the last `goto` are the body of a loop that ends with
//!   `break`, each `goto` a `continue`. Only when that is exactly what C does: no
//!   declaration among those statements (they would leave the loop's scope), no `break` or
//!   `continue` there that belongs to an enclosing loop, and no `goto` inside a nested
//!   loop or `switch` (where `continue` would mean that loop). A forward `goto` is
//!   `goto.rs`'s; any other `goto` is refused.

use super::*;

/// Library calls nemos models as always succeeding (value 0), as GenMC does.
const SUCCEEDING_CALLS: &[&str] = &[
    "pthread_mutex_lock",
    "pthread_mutex_unlock",
    "pthread_mutex_init",
    "pthread_mutex_destroy",
];

/// Whether a statement may become part of a loop's body: `Ok(true)` when it holds a `goto
/// label`, `Err` when it holds something that would change meaning inside a loop.
fn loop_safe(s: &c::Statement, label: &str, in_loop: bool) -> Result<bool, ()> {
    match s {
        c::Statement::Goto(l) => {
            if l.node.name != label {
                Ok(false)
            } else if in_loop {
                Err(())
            } else {
                Ok(true)
            }
        }
        c::Statement::Break | c::Statement::Continue => {
            if in_loop {
                Ok(false)
            } else {
                Err(())
            }
        }
        c::Statement::Compound(items) => {
            let mut found = false;
            for item in items {
                if let c::BlockItem::Statement(s) = &item.node {
                    found |= loop_safe(&s.node, label, in_loop)?;
                }
            }
            Ok(found)
        }
        c::Statement::If(i) => {
            let mut found = loop_safe(&i.node.then_statement.node, label, in_loop)?;
            if let Some(e) = &i.node.else_statement {
                found |= loop_safe(&e.node, label, in_loop)?;
            }
            Ok(found)
        }
        c::Statement::While(w) => loop_safe(&w.node.statement.node, label, true),
        c::Statement::DoWhile(w) => loop_safe(&w.node.statement.node, label, true),
        c::Statement::For(f) => loop_safe(&f.node.statement.node, label, true),
        c::Statement::Switch(_) => Err(()),
        c::Statement::Labeled(l) => loop_safe(&l.node.statement.node, label, in_loop),
        c::Statement::Expression(_) | c::Statement::Return(_) | c::Statement::Asm(_) => Ok(false),
    }
}

impl Translator<'_> {
    /// `if (pthread_mutex_lock(&m)) ...`: the call, when the condition is one of the
    /// calls that succeed (and not a function of the program's own of that name).
    pub(super) fn succeeding_call<'e>(
        &self,
        cond: &'e Node<c::Expression>,
    ) -> Option<&'e Node<c::Expression>> {
        let c::Expression::Call(call_node) = &cond.node else {
            return None;
        };
        let name = callee_name(call_node)?;
        (SUCCEEDING_CALLS.contains(&name) && !self.functions.contains(name)).then_some(cond)
    }

    /// The label item `items[at]` opens a retry loop: its label and the index of the
    /// last item of the loop (the last one holding a `goto` to it).
    pub(super) fn retry_loop(
        &self,
        items: &[Node<c::BlockItem>],
        at: usize,
    ) -> Option<(String, usize)> {
        let c::BlockItem::Statement(s) = &items.get(at)?.node else {
            return None;
        };
        let c::Statement::Labeled(l) = &s.node else {
            return None;
        };
        let c::Label::Identifier(label) = &l.node.label.node else {
            return None;
        };
        let label = label.node.name.as_str();
        let mut end = None;
        for (k, item) in items.iter().enumerate().skip(at) {
            let c::BlockItem::Statement(s) = &item.node else {
                // A declaration may not move into the loop; past the last `goto` it
                // stays after it.
                continue;
            };
            if loop_safe(&s.node, label, false).ok()? {
                end = Some(k);
            }
        }
        let end = end?;
        let declares = items[at..=end]
            .iter()
            .any(|item| !matches!(item.node, c::BlockItem::Statement(_)));
        (!declares).then(|| (label.to_string(), end))
    }

    /// The items `at..=end` of a block as a retry loop (`retry_loop`).
    pub(super) fn retry_loop_body(
        &mut self,
        items: &[Node<c::BlockItem>],
        label: String,
        scope: &mut Scope,
        span: Span,
    ) -> ast::Stmt {
        // The followed locals (`known.rs`) are not known in a loop, nor after it.
        let followed = scope.followed.clone();
        scope.constants.retain(|name, _| !followed.contains(name));
        let mut inner = scope.clone();
        inner.conditional += 1;
        inner.looping += 1;
        inner.retry_label = Some(label);
        let mut body = Vec::new();
        for item in items {
            if let c::BlockItem::Statement(s) = &item.node {
                let s = match &s.node {
                    c::Statement::Labeled(l)
                        if matches!(l.node.label.node, c::Label::Identifier(_)) =>
                    {
                        &*l.node.statement
                    }
                    _ => s,
                };
                self.statement(s, &mut inner, &mut body);
            }
        }
        body.push(stmt(StmtKind::Break, span));
        stmt(
            StmtKind::While {
                prelude: Vec::new(),
                cond: expr(ExprKind::Int(1), span),
                body,
            },
            span,
        )
    }
}
