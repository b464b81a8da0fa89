//! Side effects inside expressions: assignments, `++`/`--`, the comma operator and GNU
//! statement expressions (`({ ...; v; })`) where a value is used, as in
//! `while ((v = atomic_load(&x)) == 0)` or `lan = k = 0`.
//!
//! The litmus AST keeps side effects in statements, so each one is hoisted: it becomes
//! statements that run before the expression that uses its value, and its value a
//! temporary register (`expr#N`). C's sequencing is kept:
//! - `&&`, `||` and `?:` evaluate their right operand or branch only when C does: an `if`
//!   around its statements;
//! - the comma operator runs its left operand first;
//! - the operands of other operators are unsequenced in C: their effects run left to right,
//!   before the operator, and an object one of them writes that the expression also reads
//!   or writes elsewhere (`i++ + i`, `(x = 1) + (x = 2)`) is refused, located, since C
//!   leaves its value undefined (names are compared; writes through pointers are not);
//! - in a loop condition the hoisted statements run before every test: before the loop and
//!   again after each iteration (the loop's step, where `continue` goes too).
//!
//! The value of an assignment is the value assigned, converted to the object's type
//! (nemos's integers are 32-bit whatever the type, so only `_Bool` objects differ:
//! `booleans.rs`).

use super::*;

/// The effects of one unsequenced region of an expression: what each writes (the object's
/// name, when it has one) and the names its own operands read.
#[derive(Default)]
struct Region {
    effects: Vec<Effect>,
}

struct Effect {
    written: Option<String>,
    reads: Vec<String>,
    span: lang_c::span::Span,
}

/// Whether evaluating an expression has side effects nemos hoists.
pub(super) fn has_effects(e: &c::Expression) -> bool {
    match e {
        c::Expression::BinaryOperator(b) => {
            assignment_op(&b.node.operator.node).is_some()
                || has_effects(&b.node.lhs.node)
                || has_effects(&b.node.rhs.node)
        }
        c::Expression::UnaryOperator(u) => {
            increment(&u.node.operator.node).is_some() || has_effects(&u.node.operand.node)
        }
        c::Expression::Comma(_) | c::Expression::Statement(_) => true,
        c::Expression::Cast(cast) => has_effects(&cast.node.expression.node),
        c::Expression::Member(m) => has_effects(&m.node.expression.node),
        c::Expression::Call(call_node) => {
            expected::expected_in_memory(&call_node.node)
                || fnptr::indirect_callee(&call_node.node).is_some()
                || has_effects(&call_node.node.callee.node)
                || call_node
                    .node
                    .arguments
                    .iter()
                    .any(|a| has_effects(&a.node))
        }
        c::Expression::Conditional(k) => {
            has_effects(&k.node.condition.node)
                || has_effects(&k.node.then_expression.node)
                || has_effects(&k.node.else_expression.node)
        }
        _ => false,
    }
}

/// `=` is `Some(None)`, `+=` is `Some(Some(+))`; other operators `None`.
fn assignment_op(op: &c::BinaryOperator) -> Option<Option<c::BinaryOperator>> {
    use c::BinaryOperator as B;
    Some(match op {
        B::Assign => None,
        B::AssignMultiply => Some(B::Multiply),
        B::AssignDivide => Some(B::Divide),
        B::AssignModulo => Some(B::Modulo),
        B::AssignPlus => Some(B::Plus),
        B::AssignMinus => Some(B::Minus),
        B::AssignShiftLeft => Some(B::ShiftLeft),
        B::AssignShiftRight => Some(B::ShiftRight),
        B::AssignBitwiseAnd => Some(B::BitwiseAnd),
        B::AssignBitwiseXor => Some(B::BitwiseXor),
        B::AssignBitwiseOr => Some(B::BitwiseOr),
        _ => return None,
    })
}

/// `++x` is `(+, true)`, `x--` is `(-, false)`.
fn increment(op: &c::UnaryOperator) -> Option<(c::BinaryOperator, bool)> {
    match op {
        c::UnaryOperator::PreIncrement => Some((c::BinaryOperator::Plus, true)),
        c::UnaryOperator::PostIncrement => Some((c::BinaryOperator::Plus, false)),
        c::UnaryOperator::PreDecrement => Some((c::BinaryOperator::Minus, true)),
        c::UnaryOperator::PostDecrement => Some((c::BinaryOperator::Minus, false)),
        _ => None,
    }
}

pub(super) fn c_node<T>(node: T, span: lang_c::span::Span) -> Node<T> {
    Node { node, span }
}

pub(super) fn c_name(name: &str, span: lang_c::span::Span) -> Node<c::Expression> {
    c_node(
        c::Expression::Identifier(Box::new(c_node(
            c::Identifier {
                name: name.to_string(),
            },
            span,
        ))),
        span,
    )
}

fn c_binary(
    op: c::BinaryOperator,
    lhs: Node<c::Expression>,
    rhs: Node<c::Expression>,
    span: lang_c::span::Span,
) -> Node<c::Expression> {
    c_node(
        c::Expression::BinaryOperator(Box::new(c_node(
            c::BinaryOperatorExpression {
                operator: c_node(op, span),
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            span,
        ))),
        span,
    )
}

fn c_one(span: lang_c::span::Span) -> Node<c::Expression> {
    crate::cfront::spawn::c_integer("1", span)
}

/// The names an expression mentions (identifiers, not member names).
fn mentioned(e: &c::Expression, names: &mut Vec<String>) {
    match e {
        c::Expression::Identifier(id) => names.push(id.node.name.clone()),
        c::Expression::BinaryOperator(b) => {
            mentioned(&b.node.lhs.node, names);
            mentioned(&b.node.rhs.node, names);
        }
        c::Expression::UnaryOperator(u) => mentioned(&u.node.operand.node, names),
        c::Expression::Cast(cast) => mentioned(&cast.node.expression.node, names),
        c::Expression::Member(m) => mentioned(&m.node.expression.node, names),
        c::Expression::Call(call_node) => {
            mentioned(&call_node.node.callee.node, names);
            for a in &call_node.node.arguments {
                mentioned(&a.node, names);
            }
        }
        c::Expression::Conditional(k) => {
            mentioned(&k.node.condition.node, names);
            mentioned(&k.node.then_expression.node, names);
            mentioned(&k.node.else_expression.node, names);
        }
        c::Expression::Comma(parts) => {
            for p in parts.iter() {
                mentioned(&p.node, names);
            }
        }
        _ => {}
    }
}

/// The object an lvalue names, when it has a name: `x`, `a[i]`, `s.f`.
fn written_name(e: &c::Expression) -> Option<String> {
    match e {
        c::Expression::Identifier(id) => Some(id.node.name.clone()),
        c::Expression::BinaryOperator(b)
            if matches!(b.node.operator.node, c::BinaryOperator::Index) =>
        {
            written_name(&b.node.lhs.node)
        }
        c::Expression::Member(m) if matches!(m.node.operator.node, c::MemberOperator::Direct) => {
            written_name(&m.node.expression.node)
        }
        _ => None,
    }
}

/// Whether statements hold a `continue` of their own loop (not of a loop inside them).
fn continues(stmts: &[ast::Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Continue => true,
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } => continues(then_branch) || else_branch.as_deref().is_some_and(continues),
        StmtKind::Block(body) | StmtKind::Atomic(body) => continues(body),
        _ => false,
    })
}

/// The temporaries a loop condition's hoisted statements declare, declared once before the
/// loop (with no value: the statements assign them, [`reassigned`]).
fn declarations(prelude: &[ast::Stmt]) -> Vec<ast::Stmt> {
    prelude
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Decl { ty, name, .. } => Some(stmt(
                StmtKind::Decl {
                    ty: ty.clone(),
                    name: name.clone(),
                    init: None,
                },
                s.span,
            )),
            _ => None,
        })
        .collect()
}

/// The hoisted statements of a loop condition as they run again after an iteration: the
/// temporaries they declare are assigned instead (declared once, before the loop).
fn reassigned(prelude: &[ast::Stmt]) -> Vec<ast::Stmt> {
    prelude
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Decl {
                name,
                init: Some(init),
                ..
            } => stmt(
                StmtKind::Assign {
                    lhs: name_expr(&name.name, name.span),
                    rhs: init.clone(),
                },
                s.span,
            ),
            StmtKind::Decl { init: None, .. } => stmt(StmtKind::Empty, s.span),
            _ => s.clone(),
        })
        .collect()
}

impl Translator<'_> {
    /// An expression whose value is used, its side effects hoisted into `out`.
    pub(super) fn value_with_effects(
        &mut self,
        e: &Node<c::Expression>,
        scope: &Scope,
        out: &mut Vec<ast::Stmt>,
    ) -> Option<ast::Expr> {
        if !has_effects(&e.node) {
            return self.expression(e, scope);
        }
        let mut inner = scope.clone();
        let mut region = Region::default();
        let rest = self.hoist(e, &mut inner, out, &mut region)?;
        self.check_sequenced(&rest, &region)?;
        self.expression(&rest, &inner)
    }

    /// Refuse an object written by one effect of a region and read or written by another
    /// part of it.
    fn check_sequenced(&mut self, rest: &Node<c::Expression>, region: &Region) -> Option<()> {
        let mut rest_names = Vec::new();
        mentioned(&rest.node, &mut rest_names);
        for (i, effect) in region.effects.iter().enumerate() {
            let Some(name) = &effect.written else {
                continue;
            };
            let clash = rest_names.contains(name)
                || region.effects.iter().enumerate().any(|(j, other)| {
                    j != i && (other.written.as_ref() == Some(name) || other.reads.contains(name))
                });
            if clash {
                let at = self.span(effect.span);
                self.errors.push(
                    Diagnostic::new(
                        format!(
                            "`{name}` is written here and read or written elsewhere in the same expression, unsequenced"
                        ),
                        at,
                    )
                    .with_help("C leaves the result undefined: split the expression into statements"),
                );
                return None;
            }
        }
        Some(())
    }

    /// A fresh temporary register holding `value`, declared in `out`.
    fn temporary(
        &mut self,
        value: ast::Expr,
        at: lang_c::span::Span,
        tag: &str,
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
    ) -> Node<c::Expression> {
        let name = format!("expr#{}{tag}", at.start);
        let span = value.span;
        scope.locals.insert(name.clone(), TypeInfo::scalar("int"));
        out.push(stmt(
            StmtKind::Decl {
                ty: int_type(span),
                name: ident(&name, span),
                init: Some(value),
            },
            span,
        ));
        c_name(&name, at)
    }

    /// `e` with its side effects done in `out`: the expression left to evaluate.
    fn hoist(
        &mut self,
        e: &Node<c::Expression>,
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
        region: &mut Region,
    ) -> Option<Node<c::Expression>> {
        if !has_effects(&e.node) {
            return Some(e.clone());
        }
        let at = e.span;
        match &e.node {
            c::Expression::BinaryOperator(b) => {
                if let Some(op) = assignment_op(&b.node.operator.node) {
                    return self.assignment(b, op, at, scope, out, region);
                }
                match b.node.operator.node {
                    c::BinaryOperator::LogicalAnd | c::BinaryOperator::LogicalOr => {
                        self.short_circuit(b, at, scope, out, region)
                    }
                    _ => {
                        let lhs = self.hoist(&b.node.lhs, scope, out, region)?;
                        let rhs = self.hoist(&b.node.rhs, scope, out, region)?;
                        Some(c_binary(b.node.operator.node.clone(), lhs, rhs, at))
                    }
                }
            }
            c::Expression::UnaryOperator(u) => {
                if let Some((op, pre)) = increment(&u.node.operator.node) {
                    return self.increment(&u.node.operand, op, pre, at, scope, out, region);
                }
                let operand = self.hoist(&u.node.operand, scope, out, region)?;
                let mut node = (**u).clone();
                node.node.operand = Box::new(operand);
                Some(c_node(c::Expression::UnaryOperator(Box::new(node)), at))
            }
            c::Expression::Cast(cast) => {
                let inner = self.hoist(&cast.node.expression, scope, out, region)?;
                let mut node = (**cast).clone();
                node.node.expression = Box::new(inner);
                Some(c_node(c::Expression::Cast(Box::new(node)), at))
            }
            c::Expression::Member(m) => {
                let inner = self.hoist(&m.node.expression, scope, out, region)?;
                let mut node = (**m).clone();
                node.node.expression = Box::new(inner);
                Some(c_node(c::Expression::Member(Box::new(node)), at))
            }
            c::Expression::Call(call_node) => {
                let mut node = (**call_node).clone();
                let mut args = Vec::new();
                for a in &call_node.node.arguments {
                    args.push(self.hoist(a, scope, out, region)?);
                }
                if fnptr::indirect_callee(&call_node.node).is_some()
                    && self.alias_target(call_node, scope).is_none()
                {
                    return self.indirect_call(call_node, args, scope, out);
                }
                if expected::expected_in_memory(&call_node.node) {
                    return self.compare_exchange_through_memory(call_node, args, scope, out);
                }
                node.node.arguments = args;
                Some(c_node(c::Expression::Call(Box::new(node)), at))
            }
            c::Expression::Conditional(k) => self.conditional(k, at, scope, out, region),
            c::Expression::Comma(parts) => {
                let (last, first) = parts.split_last()?;
                for part in first {
                    self.expression_statement(part, scope, out);
                }
                self.hoist(last, scope, out, region)
            }
            c::Expression::Statement(s) => self.statement_expression(s, at, scope, out),
            _ => {
                self.refuse("this expression with a side effect", at);
                None
            }
        }
    }

    /// `l = r` or `l op= r` whose value is used.
    fn assignment(
        &mut self,
        b: &Node<c::BinaryOperatorExpression>,
        op: Option<c::BinaryOperator>,
        at: lang_c::span::Span,
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
        region: &mut Region,
    ) -> Option<Node<c::Expression>> {
        if let c::Expression::Identifier(id) = &b.node.lhs.node {
            if scope.constants.contains_key(&id.node.name) {
                self.refuse(
                    "assigning the variable of a loop nemos unrolls",
                    b.node.lhs.span,
                );
                return None;
            }
        }
        let rhs = self.hoist(&b.node.rhs, scope, out, region)?;
        let mut reads = Vec::new();
        mentioned(&rhs.node, &mut reads);
        let rhs_value = self.expression(&rhs, scope)?;
        let rhs_value = match op {
            None => self.stored_value(&b.node.lhs, scope, rhs_value),
            Some(_) => rhs_value,
        };
        let assigned = self.temporary(rhs_value, at, "", scope, out);
        let assigned_value = self.expression(&assigned, scope)?;
        let lhs = self.hoist(&b.node.lhs, scope, out, region)?;
        let (place, atomic) = self.place(&lhs, scope)?;
        region.effects.push(Effect {
            written: written_name(&lhs.node),
            reads,
            span: at,
        });
        let span = self.span(at);
        match (op, atomic) {
            (None, false) => {
                out.push(stmt(
                    StmtKind::Assign {
                        lhs: place,
                        rhs: assigned_value,
                    },
                    span,
                ));
                Some(assigned)
            }
            (None, true) => {
                let store = call(
                    "atomic_store",
                    vec![address_of(place, span), assigned_value],
                    span,
                );
                out.push(stmt(StmtKind::Expr(store), span));
                Some(assigned)
            }
            (Some(op), false) => {
                let new = c_binary(op, lhs.clone(), assigned, at);
                let new_value = self.expression(&new, scope)?;
                let new_value = self.stored_value(&b.node.lhs, scope, new_value);
                let result = self.temporary(new_value, at, "n", scope, out);
                let result_value = self.expression(&result, scope)?;
                out.push(stmt(
                    StmtKind::Assign {
                        lhs: place,
                        rhs: result_value,
                    },
                    span,
                ));
                Some(result)
            }
            (Some(op), true) => {
                let function = match op {
                    c::BinaryOperator::Plus => "atomic_fetch_add",
                    c::BinaryOperator::Minus => "atomic_fetch_sub",
                    c::BinaryOperator::BitwiseAnd => "atomic_fetch_and",
                    c::BinaryOperator::BitwiseOr => "atomic_fetch_or",
                    c::BinaryOperator::BitwiseXor => "atomic_fetch_xor",
                    _ => {
                        self.refuse("this compound assignment to an atomic object", at);
                        return None;
                    }
                };
                let rmw = call(
                    function,
                    vec![address_of(place, span), assigned_value],
                    span,
                );
                let old = self.temporary(rmw, at, "o", scope, out);
                Some(c_binary(op, old, assigned, at))
            }
        }
    }

    /// `++l`, `l++`, `--l`, `l--` whose value is used.
    #[allow(clippy::too_many_arguments)]
    fn increment(
        &mut self,
        operand: &Node<c::Expression>,
        op: c::BinaryOperator,
        pre: bool,
        at: lang_c::span::Span,
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
        region: &mut Region,
    ) -> Option<Node<c::Expression>> {
        if let c::Expression::Identifier(id) = &operand.node {
            if scope.constants.contains_key(&id.node.name) {
                self.refuse(
                    "assigning the variable of a loop nemos unrolls",
                    operand.span,
                );
                return None;
            }
        }
        let operand = self.hoist(operand, scope, out, region)?;
        let (place, atomic) = self.place(&operand, scope)?;
        region.effects.push(Effect {
            written: written_name(&operand.node),
            reads: Vec::new(),
            span: at,
        });
        let span = self.span(at);
        if atomic {
            let function = if matches!(op, c::BinaryOperator::Plus) {
                "atomic_fetch_add"
            } else {
                "atomic_fetch_sub"
            };
            let args = vec![address_of(place, span), expr(ExprKind::Int(1), span)];
            let old = self.temporary(call(function, args, span), at, "o", scope, out);
            return Some(if pre {
                c_binary(op, old, c_one(at), at)
            } else {
                old
            });
        }
        // The old value, read once. A register keeps its type in `r = r + 1` (`p++` on a
        // pointer to a struct moves by the struct); memory is not read again.
        let old_value = self.read(place.clone(), false, span);
        let old = self.temporary(old_value, at, "o", scope, out);
        let bop = if matches!(op, c::BinaryOperator::Plus) {
            BinaryOp::Add
        } else {
            BinaryOp::Sub
        };
        let register = matches!(place.kind, ExprKind::Name(_));
        let base = if register {
            place.clone()
        } else {
            self.expression(&old, scope)?
        };
        let one = expr(ExprKind::Int(1), span);
        out.push(stmt(
            StmtKind::Assign {
                lhs: place.clone(),
                rhs: expr(ExprKind::Binary(bop, Box::new(base), Box::new(one)), span),
            },
            span,
        ));
        if !pre {
            return Some(old);
        }
        if register {
            return Some(self.temporary(place, at, "n", scope, out));
        }
        Some(c_binary(op, old, c_one(at), at))
    }
}

impl Translator<'_> {
    /// `a && b` or `a || b` with a side effect: `b` runs only when C evaluates it.
    fn short_circuit(
        &mut self,
        b: &Node<c::BinaryOperatorExpression>,
        at: lang_c::span::Span,
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
        region: &mut Region,
    ) -> Option<Node<c::Expression>> {
        let span = self.span(at);
        let and = matches!(b.node.operator.node, c::BinaryOperator::LogicalAnd);
        let lhs = self.hoist(&b.node.lhs, scope, out, region)?;
        let lhs_value = self.expression(&lhs, scope)?;
        let truth = |e: ast::Expr| {
            let span = e.span;
            expr(
                ExprKind::Binary(
                    BinaryOp::Ne,
                    Box::new(e),
                    Box::new(expr(ExprKind::Int(0), span)),
                ),
                span,
            )
        };
        let result = self.temporary(truth(lhs_value), at, "s", scope, out);
        let result_value = self.expression(&result, scope)?;
        // The right operand is a region of its own: it is sequenced after the left.
        let mut branch = Vec::new();
        let rhs_value = self.value_with_effects(&b.node.rhs, scope, &mut branch)?;
        branch.push(stmt(
            StmtKind::Assign {
                lhs: result_value.clone(),
                rhs: truth(rhs_value),
            },
            span,
        ));
        let cond = if and {
            result_value
        } else {
            expr(ExprKind::Unary(UnaryOp::Not, Box::new(result_value)), span)
        };
        out.push(if_stmt(cond, branch, None, span));
        Some(result)
    }

    /// `c ? a : b` with a side effect in a branch: only the branch C takes runs.
    fn conditional(
        &mut self,
        k: &Node<c::ConditionalExpression>,
        at: lang_c::span::Span,
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
        region: &mut Region,
    ) -> Option<Node<c::Expression>> {
        let condition = self.hoist(&k.node.condition, scope, out, region)?;
        if !has_effects(&k.node.then_expression.node) && !has_effects(&k.node.else_expression.node)
        {
            let mut node = k.clone();
            node.node.condition = Box::new(condition);
            return Some(c_node(c::Expression::Conditional(Box::new(node)), at));
        }
        let span = self.span(at);
        let cond = self.expression(&condition, scope)?;
        let name = format!("expr#{}c", at.start);
        scope.locals.insert(name.clone(), TypeInfo::scalar("int"));
        out.push(stmt(
            StmtKind::Decl {
                ty: int_type(span),
                name: ident(&name, span),
                init: None,
            },
            span,
        ));
        let mut branches = Vec::new();
        for branch in [&k.node.then_expression, &k.node.else_expression] {
            let mut body = Vec::new();
            let value = self.value_with_effects(branch, scope, &mut body)?;
            body.push(stmt(
                StmtKind::Assign {
                    lhs: name_expr(&name, span),
                    rhs: value,
                },
                span,
            ));
            branches.push(body);
        }
        let else_branch = branches.pop();
        let then_branch = branches.pop().unwrap_or_default();
        out.push(if_stmt(cond, then_branch, else_branch, span));
        Some(c_name(&name, at))
    }

    /// GNU's `({ s1; ...; e; })`: the statements run in a block of their own; the value is
    /// the last expression's (none when the last item is not an expression).
    fn statement_expression(
        &mut self,
        s: &Node<c::Statement>,
        at: lang_c::span::Span,
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
    ) -> Option<Node<c::Expression>> {
        let span = self.span(at);
        let c::Statement::Compound(items) = &s.node else {
            self.refuse("a statement expression", at);
            return None;
        };
        let name = format!("expr#{}g", at.start);
        let decl_at = out.len();
        out.push(stmt(
            StmtKind::Decl {
                ty: int_type(span),
                name: ident(&name, span),
                init: None,
            },
            span,
        ));
        let mut inner = scope.clone();
        let mut body = Vec::new();
        let (last, first) = match items.split_last() {
            Some((last, first)) => (Some(last), first),
            None => (None, &items[..]),
        };
        for item in first {
            match &item.node {
                c::BlockItem::Declaration(d) => self.local_declaration(d, &mut inner, &mut body),
                c::BlockItem::StaticAssert(s) => self.refuse("`_Static_assert`", s.span),
                c::BlockItem::Statement(s) => self.statement(s, &mut inner, &mut body),
            }
        }
        match last.map(|l| &l.node) {
            Some(c::BlockItem::Statement(Node {
                node: c::Statement::Expression(Some(e)),
                ..
            })) => {
                let value = self.value_with_effects(e, &inner, &mut body)?;
                body.push(stmt(
                    StmtKind::Assign {
                        lhs: name_expr(&name, span),
                        rhs: value,
                    },
                    span,
                ));
            }
            Some(c::BlockItem::Declaration(d)) => self.local_declaration(d, &mut inner, &mut body),
            Some(c::BlockItem::Statement(s)) => self.statement(s, &mut inner, &mut body),
            Some(c::BlockItem::StaticAssert(s)) => self.refuse("`_Static_assert`", s.span),
            None => {}
        }
        // The value has the type of the last expression statement (`typeofs.rs`).
        let ty = self
            .statement_expression_type(last, &inner)
            .unwrap_or_else(|| TypeInfo::scalar("int"));
        if let Some(StmtKind::Decl { ty: declared, .. }) = out.get_mut(decl_at).map(|s| &mut s.kind)
        {
            *declared = Self::litmus_type(&ty, span);
        }
        out.push(stmt(StmtKind::Block(body), span));
        scope.locals.insert(name.clone(), ty);
        Some(c_name(&name, at))
    }

    // ---- loops whose condition has a side effect ----

    /// `while (c) body` whose condition hoisted `prelude`: the prelude is the loop's own,
    /// run before each test as the condition's memory accesses are (before the loop, after
    /// each iteration and after a `continue`), its temporaries declared before the loop.
    /// A thread ended at the bound (`--end-threads-at-bound`) stops before it, as GenMC's
    /// `-unroll=N` stops a thread at the loop's header, before the condition's code.
    pub(super) fn push_while(
        &mut self,
        prelude: Vec<ast::Stmt>,
        cond: ast::Expr,
        body: Vec<ast::Stmt>,
        span: Span,
        out: &mut Vec<ast::Stmt>,
    ) {
        if prelude.is_empty() {
            out.push(stmt(
                StmtKind::While {
                    prelude,
                    cond,
                    body,
                },
                span,
            ));
            return;
        }
        let mut block = declarations(&prelude);
        block.push(stmt(
            StmtKind::While {
                prelude: reassigned(&prelude),
                cond,
                body,
            },
            span,
        ));
        out.push(stmt(StmtKind::Block(block), span));
    }

    /// `do body while (c)` whose condition hoisted `prelude`: the prelude ends each
    /// iteration, its temporaries declared before the loop. A `continue` would skip it.
    pub(super) fn push_do_while(
        &mut self,
        prelude: Vec<ast::Stmt>,
        cond: ast::Expr,
        mut body: Vec<ast::Stmt>,
        span: Span,
        at: lang_c::span::Span,
        out: &mut Vec<ast::Stmt>,
    ) {
        if prelude.is_empty() {
            out.push(stmt(StmtKind::DoWhile { body, cond }, span));
            return;
        }
        if continues(&body) {
            self.refuse(
                "`continue` in a `do` loop whose condition has a side effect",
                at,
            );
            return;
        }
        let mut block = declarations(&prelude);
        body.extend(reassigned(&prelude));
        block.push(stmt(StmtKind::DoWhile { body, cond }, span));
        out.push(stmt(StmtKind::Block(block), span));
    }

    /// A `for` condition's hoisted statements: they run after the initialisation and again
    /// after the step.
    pub(super) fn for_prelude(
        prelude: Vec<ast::Stmt>,
        init_out: &mut Vec<ast::Stmt>,
        step: Option<Box<ast::Stmt>>,
        span: Span,
    ) -> Option<Box<ast::Stmt>> {
        if prelude.is_empty() {
            return step;
        }
        let mut again: Vec<ast::Stmt> = step.map(|s| vec![*s]).unwrap_or_default();
        again.extend(reassigned(&prelude));
        init_out.extend(prelude);
        Some(Box::new(stmt(StmtKind::Block(again), span)))
    }
}
