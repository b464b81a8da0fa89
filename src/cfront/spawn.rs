//! GenMC's own thread calls (`<genmc.h>`), rewritten into POSIX ones before translation, and
//! creates and joins whose value is kept:
//!
//! - `h = __VERIFIER_spawn(f, arg);` and `__VERIFIER_thread_t h = __VERIFIER_spawn(f, arg);`
//!   become `pthread_create(&h, 0, f, arg);` (a spawn returns the new thread's handle, which
//!   `pthread_create` stores through its first argument); a spawn whose value is dropped gets
//!   a handle of its own, named `__VERIFIER_spawn#N`, which no program can name;
//! - `__VERIFIER_spawn_symmetric(f, arg, t)` is `__VERIFIER_spawn(f, arg)`: its third argument
//!   is only GenMC's hint that the new thread is symmetric to `t` (for GenMC's own symmetry
//!   reduction), which changes no verdict; nemos finds interchangeable threads itself
//!   (`program::spawn_symmetry`);
//! - `__VERIFIER_join(t);` and `__VERIFIER_join_symmetric(t);` become `pthread_join(t, 0);`;
//! - a create or join whose value is kept, `int r = pthread_create(...);` or `r =
//!   thrd_join(...);` (POSIX's and C11's), runs as its own statement, then `r` is 0: threads
//!   are always started and joined in nemos, so the value is success (`thrd_success` is 0).
//!
//! Only these statement forms are rewritten; a call elsewhere (its value used otherwise) is
//! left as it is, which the translator refuses as a call of a function it does not know.

use lang_c::ast as c;
use lang_c::span::{Node, Span};

/// Rewrite GenMC's thread calls in every function of the unit.
pub fn rewrite(unit: &mut c::TranslationUnit) {
    let mut fresh = 0;
    for item in &mut unit.0 {
        if let c::ExternalDeclaration::FunctionDefinition(f) = &mut item.node {
            statement(&mut f.node.statement, &mut fresh);
        }
    }
}

/// The name of a call's callee, if it is a plain identifier.
fn callee(call: &c::CallExpression) -> Option<&str> {
    match &call.callee.node {
        c::Expression::Identifier(id) => Some(id.node.name.as_str()),
        _ => None,
    }
}

/// `__VERIFIER_spawn(f, arg)` or `__VERIFIER_spawn_symmetric(f, arg, t)`: `(f, arg)`.
fn spawn(e: &Node<c::Expression>) -> Option<(&Node<c::Expression>, &Node<c::Expression>, Span)> {
    let c::Expression::Call(call) = &e.node else {
        return None;
    };
    match (callee(&call.node)?, call.node.arguments.as_slice()) {
        ("__VERIFIER_spawn", [f, arg]) | ("__VERIFIER_spawn_symmetric", [f, arg, _]) => {
            Some((f, arg, call.span))
        }
        _ => None,
    }
}

fn identifier(name: &str, span: Span) -> Node<c::Expression> {
    Node::new(
        c::Expression::Identifier(Box::new(Node::new(
            c::Identifier {
                name: name.to_string(),
            },
            span,
        ))),
        span,
    )
}

fn zero(span: Span) -> Node<c::Expression> {
    c_integer("0", span)
}

/// The C constant `number` (decimal, an `int`), as lang-c parses one: what a rewrite of
/// the parsed program writes where C would have the literal.
pub(super) fn c_integer(number: &str, span: Span) -> Node<c::Expression> {
    Node::new(
        c::Expression::Constant(Box::new(Node::new(
            c::Constant::Integer(c::Integer {
                base: c::IntegerBase::Decimal,
                number: number.into(),
                suffix: c::IntegerSuffix {
                    size: c::IntegerSize::Int,
                    unsigned: false,
                    imaginary: false,
                },
            }),
            span,
        ))),
        span,
    )
}

fn address_of(e: Node<c::Expression>) -> Node<c::Expression> {
    let span = e.span;
    Node::new(
        c::Expression::UnaryOperator(Box::new(Node::new(
            c::UnaryOperatorExpression {
                operator: Node::new(c::UnaryOperator::Address, span),
                operand: Box::new(e),
            },
            span,
        ))),
        span,
    )
}

fn call(name: &str, arguments: Vec<Node<c::Expression>>, span: Span) -> Node<c::Expression> {
    Node::new(
        c::Expression::Call(Box::new(Node::new(
            c::CallExpression {
                callee: Box::new(identifier(name, span)),
                arguments,
            },
            span,
        ))),
        span,
    )
}

/// `pthread_create(&handle, 0, f, arg)`.
fn create(
    handle: Node<c::Expression>,
    f: &Node<c::Expression>,
    arg: &Node<c::Expression>,
    span: Span,
) -> Node<c::Expression> {
    call(
        "pthread_create",
        vec![address_of(handle), zero(span), f.clone(), arg.clone()],
        span,
    )
}

/// `pthread_create`/`thrd_create`/`pthread_join`/`thrd_join` (a call of POSIX's or C11's),
/// whose value is 0 (success) in nemos.
fn succeeding(e: &Node<c::Expression>) -> bool {
    matches!(&e.node, c::Expression::Call(call) if matches!(
        callee(&call.node),
        Some("pthread_create" | "thrd_create" | "pthread_join" | "thrd_join")
    ))
}

/// A statement's expression rewritten: `r = create(...)` as `create(...)` then `r = 0`.
fn stored_result(e: &Node<c::Expression>) -> Option<Vec<Node<c::Expression>>> {
    let c::Expression::BinaryOperator(b) = &e.node else {
        return None;
    };
    if !matches!(b.node.operator.node, c::BinaryOperator::Assign) || !succeeding(&b.node.rhs) {
        return None;
    }
    let mut assign = e.clone();
    if let c::Expression::BinaryOperator(b) = &mut assign.node {
        let at = b.node.rhs.span;
        *b.node.rhs = zero(at);
    }
    Some(vec![(*b.node.rhs).clone(), assign])
}

/// An expression statement's expression rewritten, if it is one of GenMC's thread calls.
fn expression_statement(e: &Node<c::Expression>, fresh: &mut usize) -> Option<Node<c::Expression>> {
    if let Some((f, arg, span)) = spawn(e) {
        *fresh += 1;
        let handle = identifier(&format!("__VERIFIER_spawn#{fresh}"), span);
        return Some(create(handle, f, arg, span));
    }
    match &e.node {
        c::Expression::BinaryOperator(b)
            if matches!(b.node.operator.node, c::BinaryOperator::Assign) =>
        {
            let (f, arg, span) = spawn(&b.node.rhs)?;
            Some(create((*b.node.lhs).clone(), f, arg, span))
        }
        c::Expression::Call(call_node) => match (
            callee(&call_node.node)?,
            call_node.node.arguments.as_slice(),
        ) {
            ("__VERIFIER_join" | "__VERIFIER_join_symmetric", [t]) => Some(call(
                "pthread_join",
                vec![t.clone(), zero(call_node.span)],
                call_node.span,
            )),
            _ => None,
        },
        _ => None,
    }
}

fn statement(s: &mut Node<c::Statement>, fresh: &mut usize) {
    match &mut s.node {
        c::Statement::Labeled(l) => statement(&mut l.node.statement, fresh),
        c::Statement::Compound(items) => block(items, fresh),
        c::Statement::Expression(Some(e)) => {
            if let Some(rewritten) = expression_statement(e, fresh) {
                **e = rewritten;
            }
        }
        c::Statement::If(i) => {
            statement(&mut i.node.then_statement, fresh);
            if let Some(e) = &mut i.node.else_statement {
                statement(e, fresh);
            }
        }
        c::Statement::Switch(w) => statement(&mut w.node.statement, fresh),
        c::Statement::While(w) => statement(&mut w.node.statement, fresh),
        c::Statement::DoWhile(d) => statement(&mut d.node.statement, fresh),
        c::Statement::For(f) => statement(&mut f.node.statement, fresh),
        _ => {}
    }
}

/// A block's items; a declaration one of whose declarators a spawn initialises is split
/// into one declaration per declarator, that one without its initialiser and followed by
/// the create.
fn block(items: &mut Vec<Node<c::BlockItem>>, fresh: &mut usize) {
    let mut out = Vec::with_capacity(items.len());
    for mut item in std::mem::take(items) {
        match &mut item.node {
            c::BlockItem::Statement(Node {
                node: c::Statement::Expression(Some(e)),
                span,
            }) if stored_result(e).is_some() => {
                for part in stored_result(e).unwrap_or_default() {
                    let at = *span;
                    out.push(Node::new(
                        c::BlockItem::Statement(Node::new(
                            c::Statement::Expression(Some(Box::new(part))),
                            at,
                        )),
                        at,
                    ));
                }
            }
            c::BlockItem::Statement(s) => {
                statement(s, fresh);
                out.push(item);
            }
            c::BlockItem::Declaration(d) if d.node.declarators.iter().any(spawned) => {
                let span = item.span;
                for mut declarator in std::mem::take(&mut d.node.declarators) {
                    let mut created = None;
                    let mut value = false;
                    if let (Some(i), Some(name)) = (
                        &declarator.node.initializer,
                        name(&declarator.node.declarator.node),
                    ) {
                        if let c::Initializer::Expression(e) = &i.node {
                            if let Some((f, arg, at)) = spawn(e) {
                                let handle = identifier(&name.node.name, name.span);
                                created = Some(create(handle, f, arg, at));
                            } else if succeeding(e) {
                                created = Some((**e).clone());
                                value = true;
                            }
                        }
                    }
                    if let Some(call) = &created {
                        declarator.node.initializer = if !value {
                            None
                        } else {
                            let at = call.span;
                            Some(Node::new(
                                c::Initializer::Expression(Box::new(zero(at))),
                                at,
                            ))
                        };
                    }
                    let single = c::Declaration {
                        specifiers: d.node.specifiers.clone(),
                        declarators: vec![declarator],
                    };
                    out.push(Node::new(
                        c::BlockItem::Declaration(Node::new(single, d.span)),
                        span,
                    ));
                    if let Some(created) = created {
                        let at = created.span;
                        out.push(Node::new(
                            c::BlockItem::Statement(Node::new(
                                c::Statement::Expression(Some(Box::new(created))),
                                at,
                            )),
                            at,
                        ));
                    }
                }
            }
            _ => out.push(item),
        }
    }
    *items = out;
}

/// Whether a declarator's initialiser is a spawn or a create or join whose value is kept.
fn spawned(d: &Node<c::InitDeclarator>) -> bool {
    matches!(&d.node.initializer, Some(i) if matches!(&i.node, c::Initializer::Expression(e) if spawn(e).is_some() || succeeding(e)))
}

/// The name a declarator declares.
fn name(d: &c::Declarator) -> Option<&Node<c::Identifier>> {
    match &d.kind.node {
        c::DeclaratorKind::Identifier(id) => Some(id),
        c::DeclaratorKind::Declarator(inner) => name(&inner.node),
        c::DeclaratorKind::Abstract => None,
    }
}
