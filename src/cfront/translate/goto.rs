//! Forward `goto`: a jump to a label later in an enclosing block, the structured exit C
//! code writes (`if (empty) goto unlock; ... unlock: mutex_unlock(&m);`, GenMC's `qrcu`,
//! `fine-set`, `coarse-set`).
//!
//! For a label at item `j` of a block whose first `goto` sits (at any depth) in item `s <
//! j`, the items `s..j` become the body of a loop that runs once (`do { ... } while (0)`)
//! and ends right before the label, and a register `goto#L` (0 before the loop) says that
//! a `goto L` was taken. The `goto` sets it to 1 and `break`s; after every loop between
//! the `goto` and the wrapper that holds such a `goto`, `if (goto#L) break;` leaves that
//! loop too, so the jump skips exactly the statements C skips and nothing else. Labels of
//! one block whose ranges overlap are nested by starting the later label's range no later
//! than the earlier's (a range may start earlier than its first `goto`: the loop runs
//! once whatever it holds). A label itself is the statement it labels.
//!
//! Refused, at the construct: a `break` or `continue` between a `goto` and its label that
//! leaves a loop or `switch` around both (it would leave the wrapper instead), and a
//! declaration in that range whose name the block names after the label (its scope would
//! end at the wrapper). A `goto` whose label is not later in an enclosing block (into a
//! block, or backward but for the retry loop of `control.rs`) stays refused.

use lang_c::visit::Visit;

use super::*;

/// A label of a block that `goto`s earlier in the block jump to.
pub(super) struct ForwardLabel {
    /// The label's names (`a: b: s` has two).
    names: Vec<String>,
    /// The first item of the wrapper.
    start: usize,
    /// The labelled item.
    at: usize,
}

/// The forward labels of a block, by position, their ranges nested.
pub(super) fn forward_plan(items: &[Node<c::BlockItem>]) -> Vec<ForwardLabel> {
    let mut plan: Vec<ForwardLabel> = Vec::new();
    for (j, item) in items.iter().enumerate() {
        let c::BlockItem::Statement(s) = &item.node else {
            continue;
        };
        let mut names = Vec::new();
        let mut start = None;
        let mut labelled = &s.node;
        while let c::Statement::Labeled(l) = labelled {
            if let c::Label::Identifier(name) = &l.node.label.node {
                let first = items[..j].iter().position(|item| match &item.node {
                    c::BlockItem::Statement(s) => holds_goto(&s.node, &name.node.name),
                    _ => false,
                });
                if let Some(first) = first {
                    names.push(name.node.name.clone());
                    start = Some(start.map_or(first, |s: usize| s.min(first)));
                }
            }
            labelled = &l.node.statement.node;
        }
        if let Some(mut start) = start {
            // Nested with every earlier label's range.
            if let Some(before) = plan.last() {
                start = start.min(before.start);
            }
            plan.push(ForwardLabel {
                names,
                start,
                at: j,
            });
        }
    }
    plan
}

/// Whether `s` holds a `goto label` at any depth.
fn holds_goto(s: &c::Statement, label: &str) -> bool {
    match s {
        c::Statement::Goto(l) => l.node.name == label,
        c::Statement::Compound(items) => items.iter().any(|item| match &item.node {
            c::BlockItem::Statement(s) => holds_goto(&s.node, label),
            _ => false,
        }),
        c::Statement::If(i) => {
            holds_goto(&i.node.then_statement.node, label)
                || i.node
                    .else_statement
                    .as_ref()
                    .is_some_and(|e| holds_goto(&e.node, label))
        }
        c::Statement::While(w) => holds_goto(&w.node.statement.node, label),
        c::Statement::DoWhile(w) => holds_goto(&w.node.statement.node, label),
        c::Statement::For(f) => holds_goto(&f.node.statement.node, label),
        c::Statement::Switch(sw) => holds_goto(&sw.node.statement.node, label),
        c::Statement::Labeled(l) => holds_goto(&l.node.statement.node, label),
        c::Statement::Expression(_)
        | c::Statement::Return(_)
        | c::Statement::Asm(_)
        | c::Statement::Break
        | c::Statement::Continue => false,
    }
}

/// A `break` or `continue` in `s` that leaves no loop or `switch` inside `s`: where it is.
fn escaping_exit(
    s: &Node<c::Statement>,
    in_loop: bool,
    in_switch: bool,
) -> Option<lang_c::span::Span> {
    match &s.node {
        c::Statement::Break => (!in_loop && !in_switch).then_some(s.span),
        c::Statement::Continue => (!in_loop).then_some(s.span),
        c::Statement::Compound(items) => items.iter().find_map(|item| match &item.node {
            c::BlockItem::Statement(s) => escaping_exit(s, in_loop, in_switch),
            _ => None,
        }),
        c::Statement::If(i) => {
            escaping_exit(&i.node.then_statement, in_loop, in_switch).or_else(|| {
                i.node
                    .else_statement
                    .as_ref()
                    .and_then(|e| escaping_exit(e, in_loop, in_switch))
            })
        }
        c::Statement::While(w) => escaping_exit(&w.node.statement, true, in_switch),
        c::Statement::DoWhile(w) => escaping_exit(&w.node.statement, true, in_switch),
        c::Statement::For(f) => escaping_exit(&f.node.statement, true, in_switch),
        c::Statement::Switch(sw) => escaping_exit(&sw.node.statement, in_loop, true),
        c::Statement::Labeled(l) => escaping_exit(&l.node.statement, in_loop, in_switch),
        c::Statement::Expression(_)
        | c::Statement::Return(_)
        | c::Statement::Asm(_)
        | c::Statement::Goto(_) => None,
    }
}

/// The identifiers a piece of C names.
#[derive(Default)]
struct Names<'ast>(HashSet<&'ast str>);

impl<'ast> Visit<'ast> for Names<'ast> {
    fn visit_identifier(&mut self, identifier: &'ast c::Identifier, _: &'ast lang_c::span::Span) {
        self.0.insert(identifier.name.as_str());
    }
}

/// The register that says a `goto` to the label was taken.
fn flag(label: &ForwardLabel, items: &[Node<c::BlockItem>], at: &Translator<'_>) -> String {
    let offset = at.span(items[label.at].span).start;
    format!("goto#{}#{offset}", label.names[0])
}

/// Whether `body` sets `register` anywhere.
fn sets(body: &[ast::Stmt], register: &str) -> bool {
    body.iter().any(|s| match &s.kind {
        StmtKind::Assign { lhs, .. } => {
            matches!(&lhs.kind, ExprKind::Name(n) if n.name == register)
        }
        _ => s.parts().into_iter().any(|part| match part {
            ast::StmtPart::Stmt(s) => sets(std::slice::from_ref(s), register),
            ast::StmtPart::Expr(_) => false,
        }),
    })
}

/// After each loop in `body` (at any depth) that sets `register`: `if (register) break;`.
fn propagate(body: &mut Vec<ast::Stmt>, register: &str) {
    let mut k = 0;
    while k < body.len() {
        let span = body[k].span;
        let is_loop = matches!(
            body[k].kind,
            StmtKind::While { .. } | StmtKind::DoWhile { .. } | StmtKind::For { .. }
        );
        match &mut body[k].kind {
            StmtKind::While { body: inner, .. }
            | StmtKind::DoWhile { body: inner, .. }
            | StmtKind::For { body: inner, .. }
            | StmtKind::Block(inner)
            | StmtKind::Atomic(inner) => propagate(inner, register),
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                propagate(then_branch, register);
                if let Some(e) = else_branch {
                    propagate(e, register);
                }
            }
            _ => {}
        }
        if is_loop && sets(std::slice::from_ref(&body[k]), register) {
            let leave = if_stmt(
                name_expr(register, span),
                vec![stmt(StmtKind::Break, span)],
                None,
                span,
            );
            body.insert(k + 1, leave);
            k += 1;
        }
        k += 1;
    }
}

impl Translator<'_> {
    /// When a forward label's range starts at `items[at]`: the range as a wrapper loop,
    /// written to `out`, and the index of the label's item, where the block goes on.
    pub(super) fn forward_goto(
        &mut self,
        items: &[Node<c::BlockItem>],
        at: usize,
        plan: &[ForwardLabel],
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
    ) -> Option<usize> {
        // The outermost range starting here: ranges are nested, the last one outermost.
        let label = plan.iter().rev().find(|l| l.start == at)?;
        let range = &items[label.start..label.at];
        let mut refused = false;
        for item in range {
            if let c::BlockItem::Statement(s) = &item.node {
                if let Some(exit) = escaping_exit(s, false, false) {
                    self.refuse(
                        "a `break` or `continue` between a `goto` and its label that leaves \
                         a loop or `switch` around both",
                        exit,
                    );
                    refused = true;
                }
            }
        }
        let mut after = Names::default();
        for item in &items[label.at..] {
            after.visit_block_item(&item.node, &item.span);
        }
        for item in range {
            let c::BlockItem::Declaration(d) = &item.node else {
                continue;
            };
            for i in &d.node.declarators {
                if let Some(name) = declarator_name(&i.node.declarator.node) {
                    if after.0.contains(name.node.name.as_str()) {
                        self.refuse(
                            &format!(
                                "a declaration between a `goto` and its label named after the \
                                 label (`{}`)",
                                name.node.name
                            ),
                            name.span,
                        );
                        refused = true;
                    }
                }
            }
        }
        if refused {
            return Some(label.at);
        }
        let span = self.span(items[label.start].span);
        let register = flag(label, items, self);
        // A followed local (`known.rs`) written in the range may or may not have been
        // written when the label is reached.
        let followed = scope.followed.clone();
        scope.constants.retain(|name, _| !followed.contains(name));
        let mut inner = scope.clone();
        inner.conditional += 1;
        // A retry loop's `continue` would restart the wrapper instead.
        inner.retry_label = None;
        for name in &label.names {
            inner.forward_labels.insert(name.clone(), register.clone());
        }
        let mut body = self.block(range, &inner);
        propagate(&mut body, &register);
        out.push(stmt(
            StmtKind::Decl {
                ty: int_type(span),
                name: ident(&register, span),
                init: Some(expr(ExprKind::Int(0), span)),
            },
            span,
        ));
        out.push(stmt(
            StmtKind::DoWhile {
                body,
                cond: expr(ExprKind::Int(0), span),
            },
            span,
        ));
        Some(label.at)
    }

    /// `goto L` inside the wrapper of `L`: the flag set, and `break`.
    pub(super) fn forward_jump(&self, register: &str, span: Span, out: &mut Vec<ast::Stmt>) {
        out.push(stmt(
            StmtKind::Assign {
                lhs: name_expr(register, span),
                rhs: expr(ExprKind::Int(1), span),
            },
            span,
        ));
        out.push(stmt(StmtKind::Break, span));
    }
}
