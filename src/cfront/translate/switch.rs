//! `switch` as a chain of `if`s, with C's fall-through, `default` and `break`.
//!
//! The body is cut at its `case` and `default` labels into segments (`case 1: case 2:`
//! opens one segment with both values). The controlling expression is evaluated once, into
//! a register `switch#N`; a second register `switch#N.on` says that a segment ran and did
//! not `break`, so the next one runs too (fall-through). Segment `k` is
//! `if (on || matches_k) { on = 1; statements; }`, where `matches_k` compares the value
//! with the segment's case values (GNU's `case a ... b` ranges too), and for `default` is
//! "no case of the `switch` matches", wherever `default` stands. A `break` at the top
//! level of a segment ends it (`on = 0`: nothing after it runs); a `break` deeper inside a
//! segment (in an `if`) leaves the whole `switch`, which is written as a loop that runs
//! once (`do { ... } while (0)`), and then a `continue` inside the `switch`, which C
//! gives to the enclosing loop, is refused. Statements before the first label never run
//! and are left out (a declaration there keeps its name in scope, without its
//! initializer, as in C). When the value is a constant here (a loop variable of a loop
//! unrolled here), only the segments that run are read, as for an `if` with a constant
//! condition, so they may start threads.
//!
//! Refused, located: a `case` or `default` label inside a nested statement of its
//! `switch`'s body (Duff's device, a label inside an `if`), a `goto` label in the body.

use super::*;

/// One segment of a `switch` body: its labels' values and the statements up to the next
/// label.
struct Segment<'a> {
    /// `(low, high)` for each case (`low == high` but for ranges).
    cases: Vec<(i64, i64)>,
    default: bool,
    statements: Vec<&'a Node<c::BlockItem>>,
    /// Whether a `break` at its top level ends it (the statements after it are dropped).
    breaks: bool,
}

/// Where a statement holds a `case` or `default` label of the enclosing `switch` (not of a
/// nested one), below its top level.
fn nested_label(s: &Node<c::Statement>) -> Option<lang_c::span::Span> {
    match &s.node {
        c::Statement::Labeled(l) => match l.node.label.node {
            c::Label::Identifier(_) => nested_label(&l.node.statement),
            _ => Some(s.span),
        },
        c::Statement::Compound(items) => items.iter().find_map(|item| match &item.node {
            c::BlockItem::Statement(s) => nested_label(s),
            _ => None,
        }),
        c::Statement::If(i) => nested_label(&i.node.then_statement)
            .or_else(|| i.node.else_statement.as_ref().and_then(|e| nested_label(e))),
        c::Statement::While(w) => nested_label(&w.node.statement),
        c::Statement::DoWhile(w) => nested_label(&w.node.statement),
        c::Statement::For(f) => nested_label(&f.node.statement),
        // A nested `switch` has labels of its own.
        _ => None,
    }
}

/// Whether a statement holds a `break` (`continue` with `continues`) that leaves the
/// statement itself, below its top level: one not inside a nested loop (nor, for `break`,
/// a nested `switch`).
fn deep_exit(s: &c::Statement, continues: bool, top: bool) -> bool {
    match s {
        c::Statement::Break => !continues && !top,
        c::Statement::Continue => continues,
        c::Statement::Compound(items) => items.iter().any(|item| match &item.node {
            c::BlockItem::Statement(s) => deep_exit(&s.node, continues, false),
            _ => false,
        }),
        c::Statement::If(i) => {
            deep_exit(&i.node.then_statement.node, continues, false)
                || i.node
                    .else_statement
                    .as_ref()
                    .is_some_and(|e| deep_exit(&e.node, continues, false))
        }
        c::Statement::Labeled(l) => deep_exit(&l.node.statement.node, continues, top),
        c::Statement::Switch(sw) if continues => deep_exit(&sw.node.statement.node, true, false),
        _ => false,
    }
}

/// Whether a `switch` body leaves a loop around the `switch` (`continue`, `return`,
/// `goto`): what keeps that loop from being unrolled here (`statement_mentions`).
pub(super) fn leaves_enclosing_loop(s: &c::Statement) -> bool {
    match s {
        c::Statement::Continue | c::Statement::Return(_) | c::Statement::Goto(_) => true,
        c::Statement::Compound(items) => items.iter().any(|item| match &item.node {
            c::BlockItem::Statement(s) => leaves_enclosing_loop(&s.node),
            _ => false,
        }),
        c::Statement::If(i) => {
            leaves_enclosing_loop(&i.node.then_statement.node)
                || i.node
                    .else_statement
                    .as_ref()
                    .is_some_and(|e| leaves_enclosing_loop(&e.node))
        }
        c::Statement::Labeled(l) => leaves_enclosing_loop(&l.node.statement.node),
        c::Statement::Switch(sw) => leaves_enclosing_loop(&sw.node.statement.node),
        // Inside a nested loop only `return` and `goto` leave it too.
        c::Statement::While(w) => returns(&w.node.statement.node),
        c::Statement::DoWhile(w) => returns(&w.node.statement.node),
        c::Statement::For(f) => returns(&f.node.statement.node),
        _ => false,
    }
}

fn returns(s: &c::Statement) -> bool {
    match s {
        c::Statement::Return(_) | c::Statement::Goto(_) => true,
        c::Statement::Compound(items) => items.iter().any(|item| match &item.node {
            c::BlockItem::Statement(s) => returns(&s.node),
            _ => false,
        }),
        c::Statement::If(i) => {
            returns(&i.node.then_statement.node)
                || i.node
                    .else_statement
                    .as_ref()
                    .is_some_and(|e| returns(&e.node))
        }
        c::Statement::Labeled(l) => returns(&l.node.statement.node),
        c::Statement::Switch(sw) => returns(&sw.node.statement.node),
        c::Statement::While(w) => returns(&w.node.statement.node),
        c::Statement::DoWhile(w) => returns(&w.node.statement.node),
        c::Statement::For(f) => returns(&f.node.statement.node),
        _ => false,
    }
}

fn int(v: i64, span: Span) -> ast::Expr {
    expr(ExprKind::Int(v), span)
}

fn binary(op: BinaryOp, l: ast::Expr, r: ast::Expr, span: Span) -> ast::Expr {
    expr(ExprKind::Binary(op, Box::new(l), Box::new(r)), span)
}

fn assign(register: &str, value: i64, span: Span) -> ast::Stmt {
    stmt(
        StmtKind::Assign {
            lhs: name_expr(register, span),
            rhs: int(value, span),
        },
        span,
    )
}

/// `value` in `low..=high`, as an expression over the register holding the value.
fn case_matches(register: &str, (low, high): (i64, i64), span: Span) -> ast::Expr {
    let value = || name_expr(register, span);
    if low == high {
        return binary(BinaryOp::Eq, value(), int(low, span), span);
    }
    binary(
        BinaryOp::And,
        binary(BinaryOp::Ge, value(), int(low, span), span),
        binary(BinaryOp::Le, value(), int(high, span), span),
        span,
    )
}

fn any(parts: Vec<ast::Expr>, span: Span) -> ast::Expr {
    parts
        .into_iter()
        .reduce(|a, b| binary(BinaryOp::Or, a, b, span))
        .unwrap_or_else(|| int(0, span))
}

impl Translator<'_> {
    /// The segments of a `switch` body, or `None` after a refusal.
    fn segments<'a>(
        &mut self,
        items: &'a [Node<c::BlockItem>],
        scope: &Scope,
    ) -> Option<(Vec<&'a Node<c::BlockItem>>, Vec<Segment<'a>>)> {
        let mut before = Vec::new();
        let mut segments: Vec<Segment<'a>> = Vec::new();
        let mut refused = false;
        for item in items {
            let c::BlockItem::Statement(s) = &item.node else {
                match segments.last_mut() {
                    Some(segment) if !segment.breaks => segment.statements.push(item),
                    Some(_) => {}
                    None => before.push(item),
                }
                continue;
            };
            // `case 1: case 2: s`: one segment, both values.
            let mut labels = Vec::new();
            let mut inner = s;
            while let c::Statement::Labeled(l) = &inner.node {
                if matches!(l.node.label.node, c::Label::Identifier(_)) {
                    self.refuse("a `goto` label inside a `switch`", inner.span);
                    return None;
                }
                labels.push(&l.node.label);
                inner = &l.node.statement;
            }
            if let Some(at) = nested_label(inner) {
                self.refuse(
                    "a `case` or `default` label inside a nested statement of its `switch`",
                    at,
                );
                refused = true;
                continue;
            }
            if !labels.is_empty() {
                let mut segment = Segment {
                    cases: Vec::new(),
                    default: false,
                    statements: Vec::new(),
                    breaks: false,
                };
                for label in labels {
                    match &label.node {
                        c::Label::Case(e) => {
                            let v = self.constant(e, scope)?;
                            segment.cases.push((v, v));
                        }
                        c::Label::CaseRange(r) => {
                            let low = self.constant(&r.node.low, scope)?;
                            let high = self.constant(&r.node.high, scope)?;
                            segment.cases.push((low, high));
                        }
                        c::Label::Default => segment.default = true,
                        c::Label::Identifier(_) => {}
                    }
                }
                segments.push(segment);
            }
            let Some(segment) = segments.last_mut() else {
                // Before the first label: never runs.
                continue;
            };
            if segment.breaks {
                continue;
            }
            if matches!(inner.node, c::Statement::Break) {
                segment.breaks = true;
            } else {
                segment.statements.push(item);
            }
        }
        (!refused).then_some((before, segments))
    }

    /// `switch (e) body`.
    pub(super) fn switch_statement(
        &mut self,
        sw: &Node<c::SwitchStatement>,
        span: Span,
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
    ) {
        let body = &sw.node.statement;
        let single;
        let items: &[Node<c::BlockItem>] = match &body.node {
            c::Statement::Compound(items) => items,
            _ => {
                single = [Node {
                    node: c::BlockItem::Statement((**body).clone()),
                    span: body.span,
                }];
                &single
            }
        };
        let Some((before, segments)) = self.segments(items, scope) else {
            return;
        };
        // A `break` below a segment's top level leaves the whole `switch`: a loop that
        // runs once is what `break` leaves in the litmus AST.
        let looped = segments.iter().any(|segment| {
            segment.statements.iter().any(|item| match &item.node {
                c::BlockItem::Statement(s) => deep_exit(&s.node, false, true),
                _ => false,
            })
        });
        if looped {
            if let Some(at) = items.iter().find_map(|item| match &item.node {
                c::BlockItem::Statement(s) if deep_exit(&s.node, true, true) => Some(s.span),
                _ => None,
            }) {
                self.refuse(
                    "a `continue` inside a `switch` that a nested `break` leaves",
                    at,
                );
                return;
            }
        }
        let mut inner = scope.clone();
        let mut body_out = Vec::new();
        // Declarations before the first label: in scope, their initializers never run.
        for item in before {
            if let c::BlockItem::Declaration(d) = &item.node {
                if d.node
                    .declarators
                    .iter()
                    .any(|i| i.node.initializer.is_some())
                {
                    self.refuse(
                        "an initialised declaration before a `switch`'s first label",
                        item.span,
                    );
                    return;
                }
                self.local_declaration(d, &mut inner, &mut body_out);
            }
        }
        let all_cases: Vec<(i64, i64)> = segments
            .iter()
            .flat_map(|s| s.cases.iter().copied())
            .collect();
        if !looped {
            if let Some(value) = self.try_constant(&sw.node.expression, scope) {
                // Only the segments that run, as for an `if` with a constant condition.
                let inside = |&(low, high): &(i64, i64)| (low..=high).contains(&value);
                let start = segments
                    .iter()
                    .position(|s| s.cases.iter().any(inside))
                    .or_else(|| segments.iter().position(|s| s.default));
                if let Some(start) = start {
                    for segment in &segments[start..] {
                        self.block_items(&segment.statements, &mut inner, &mut body_out);
                        if segment.breaks {
                            break;
                        }
                    }
                }
                out.push(stmt(StmtKind::Block(body_out), span));
                return;
            }
        }
        inner.conditional += 1;
        let mut prelude = Vec::new();
        let Some(value) = self.value(&sw.node.expression, &inner, &mut prelude) else {
            return;
        };
        let register = format!("switch#{}", span.start);
        let on = format!("{register}.on");
        out.extend(prelude);
        out.push(stmt(
            StmtKind::Decl {
                ty: int_type(span),
                name: ident(&register, span),
                init: Some(value),
            },
            span,
        ));
        out.push(stmt(
            StmtKind::Decl {
                ty: int_type(span),
                name: ident(&on, span),
                init: Some(int(0, span)),
            },
            span,
        ));
        inner
            .locals
            .insert(register.clone(), TypeInfo::scalar("int"));
        inner.locals.insert(on.clone(), TypeInfo::scalar("int"));
        for segment in &segments {
            let mut matches: Vec<ast::Expr> = segment
                .cases
                .iter()
                .map(|&case| case_matches(&register, case, span))
                .collect();
            if segment.default {
                let none = all_cases.iter().fold(int(1, span), |acc, &case| {
                    let differs = expr(
                        ExprKind::Unary(
                            UnaryOp::Not,
                            Box::new(case_matches(&register, case, span)),
                        ),
                        span,
                    );
                    binary(BinaryOp::And, acc, differs, span)
                });
                matches.push(none);
            }
            let cond = binary(BinaryOp::Or, name_expr(&on, span), any(matches, span), span);
            let mut then_branch = vec![assign(&on, 1, span)];
            self.block_items(&segment.statements, &mut inner, &mut then_branch);
            if segment.breaks {
                then_branch.push(assign(&on, 0, span));
            }
            body_out.push(if_stmt(cond, then_branch, None, span));
        }
        if looped {
            out.push(stmt(
                StmtKind::DoWhile {
                    body: body_out,
                    cond: int(0, span),
                },
                span,
            ));
        } else {
            out.push(stmt(StmtKind::Block(body_out), span));
        }
    }

    /// The items of one segment, in the `switch` body's scope; a label's statement is
    /// read without its labels.
    fn block_items(
        &mut self,
        items: &[&Node<c::BlockItem>],
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
    ) {
        for item in items {
            match &item.node {
                c::BlockItem::Declaration(d) => self.local_declaration(d, scope, out),
                c::BlockItem::StaticAssert(s) => self.refuse("`_Static_assert`", s.span),
                c::BlockItem::Statement(s) => {
                    let mut s = s;
                    while let c::Statement::Labeled(l) = &s.node {
                        s = &l.node.statement;
                    }
                    self.statement(s, scope, out);
                }
            }
        }
    }
}
