//! POSIX barriers and the checks of mutexes, written in the litmus AST.
//!
//! A barrier `pthread_barrier_t b` is two atomic locations: `b` itself holds its count
//! (0 before `pthread_barrier_init`, -1 after `pthread_barrier_destroy`), and `b#arrivals`
//! counts the arrivals of every round so far (an array of barriers gets an array of each).
//! - `pthread_barrier_init(&b, attr, n)`: `n` must not be 0, and the count is exchanged
//!   (relaxed) for `n`: the old value must be 0, else the barrier was initialised before
//!   (GenMC's "Invalid barrier_init() operation", for both).
//! - `pthread_barrier_wait(&b)`: the count is read (relaxed): 0 is a wait on an
//!   uninitialised barrier, -1 on a destroyed one (each a defect, and the wait does
//!   nothing more). Otherwise the thread arrives, `old = fetch_add(b#arrivals, 1,
//!   acq_rel)`: arrival `old` belongs to round `old / n`, which opens once the arrivals
//!   reach `(old / n + 1) * n`, and the thread spins on an acquire load of `b#arrivals`
//!   until they do. The last arrival of a round gets `PTHREAD_BARRIER_SERIAL_THREAD` (-1),
//!   the others 0. The arrivals form one chain of read-modify-writes, so the acquire load
//!   that opens the round reads a write at or after every arrival of the round, which
//!   release it: everything before a wait happens before what follows each wait of its
//!   round, under C11's models (`sw`, hence `hb`) and as `rf` through the chain under
//!   every model. A round that never fills leaves its threads spinning for good: a
//!   deadlock (left out with `--no-liveness`).
//! - `pthread_barrier_destroy(&b)`: a relaxed store of -1 to the count.
//!
//! The arrivals' order and which later arrival a spinning thread reads are the barrier's
//! machinery, not choices of the program: `check --count` leaves `#arrivals` locations out
//! (`program::checks::is_barrier_arrivals`), as GenMC's barrier-aware exploration counts
//! one execution for them.

use lang_c::ast as c;
use lang_c::span::Node;

use super::{call, expr, ident, if_stmt, int_type, name_expr, stmt, Scope, Translator};
use crate::diagnostics::Span;
use crate::program::checks::{CheckKind, BARRIER_ARRIVALS};
use crate::syntax::ast::{self, BinaryOp, ExprKind, StmtKind, UnaryOp};

/// The barrier calls nemos models.
const BARRIER_CALLS: &[&str] = &[
    "pthread_barrier_init",
    "pthread_barrier_wait",
    "pthread_barrier_destroy",
];

/// The count of a destroyed barrier.
const DESTROYED: i64 = -1;

/// `PTHREAD_BARRIER_SERIAL_THREAD`, as nemos's `<pthread.h>` defines it.
const SERIAL_THREAD: i64 = -1;

/// Whether a declaration's type is `pthread_barrier_t` (or an array of it).
pub(super) fn is_barrier_type(specifiers: &[Node<c::DeclarationSpecifier>]) -> bool {
    specifiers.iter().any(|s| {
        matches!(&s.node, c::DeclarationSpecifier::TypeSpecifier(t)
            if matches!(&t.node, c::TypeSpecifier::TypedefName(id) if id.node.name == "pthread_barrier_t"))
    })
}

/// A barrier call, if `e` is one (a call whose value is cast away included).
fn barrier_call(e: &Node<c::Expression>) -> Option<&Node<c::CallExpression>> {
    match &e.node {
        c::Expression::Call(call_node) => match &call_node.node.callee.node {
            c::Expression::Identifier(id) if BARRIER_CALLS.contains(&id.node.name.as_str()) => {
                Some(call_node)
            }
            _ => None,
        },
        c::Expression::Cast(cast) => barrier_call(&cast.node.expression),
        _ => None,
    }
}

fn int(v: i64, span: Span) -> ast::Expr {
    expr(ExprKind::Int(v), span)
}

fn binary(op: BinaryOp, l: ast::Expr, r: ast::Expr, span: Span) -> ast::Expr {
    expr(ExprKind::Binary(op, Box::new(l), Box::new(r)), span)
}

fn declare(name: &str, init: ast::Expr, span: Span) -> ast::Stmt {
    stmt(
        StmtKind::Decl {
            ty: int_type(span),
            name: ident(name, span),
            init: Some(init),
        },
        span,
    )
}

fn check(kind: CheckKind, cond: ast::Expr, span: Span) -> ast::Stmt {
    stmt(
        StmtKind::Expr(call(kind.call_name(), vec![cond], span)),
        span,
    )
}

fn order(name: &str, span: Span) -> ast::Expr {
    name_expr(name, span)
}

impl Translator<'_> {
    /// A global `pthread_barrier_t` (or an array of them): its arrivals' location beside it.
    pub(super) fn barrier_global(&mut self, name: &str, array_len: Option<u32>, span: Span) {
        self.barriers.insert(name.to_string());
        let arrivals = format!("{name}{BARRIER_ARRIVALS}");
        self.init.push(ast::InitItem {
            ty: Some(ast::Type {
                base: "atomic_int".to_string(),
                atomic: true,
                ..int_type(span)
            }),
            target: ast::StateVar::Location {
                name: ident(&arrivals, span),
                index: None,
                members: Vec::new(),
            },
            value: array_len.map_or(Some(ast::InitValue::Int(0)), |len| {
                Some(ast::InitValue::List(vec![0; len as usize]))
            }),
            array_len,
            span,
        });
    }

    /// A barrier call as a statement: written into `out`. False when `e` is none.
    pub(super) fn barrier_statement(
        &mut self,
        e: &Node<c::Expression>,
        scope: &Scope,
        out: &mut Vec<ast::Stmt>,
    ) -> bool {
        let Some(call_node) = barrier_call(e) else {
            return false;
        };
        self.barrier_operation(call_node, scope, out);
        true
    }

    /// Write the barrier calls `e` makes into `out` before it, each replaced by its value
    /// (see [`Translator::hoisted_value`]).
    pub(super) fn hoist_barrier_calls(
        &mut self,
        e: &Node<c::Expression>,
        scope: &Scope,
        out: &mut Vec<ast::Stmt>,
    ) {
        if let Some(call_node) = barrier_call(e) {
            if let Some(value) = self.barrier_operation(call_node, scope, out) {
                self.hoisted.insert(call_node.span.start, value);
            }
            return;
        }
        match &e.node {
            c::Expression::BinaryOperator(b) => {
                self.hoist_barrier_calls(&b.node.lhs, scope, out);
                self.hoist_barrier_calls(&b.node.rhs, scope, out);
            }
            c::Expression::UnaryOperator(u) => {
                self.hoist_barrier_calls(&u.node.operand, scope, out)
            }
            c::Expression::Cast(cast) => {
                self.hoist_barrier_calls(&cast.node.expression, scope, out)
            }
            _ => {}
        }
    }

    /// The value a barrier call hoisted before its expression returned.
    pub(super) fn hoisted_value(&self, call_node: &Node<c::CallExpression>) -> Option<ast::Expr> {
        self.hoisted.get(&call_node.span.start).cloned()
    }

    /// One barrier call, written into `out`; its value.
    fn barrier_operation(
        &mut self,
        call_node: &Node<c::CallExpression>,
        scope: &Scope,
        out: &mut Vec<ast::Stmt>,
    ) -> Option<ast::Expr> {
        let span = self.span(call_node.span);
        let c::Expression::Identifier(callee) = &call_node.node.callee.node else {
            return None;
        };
        let name = callee.node.name.as_str();
        let args = &call_node.node.arguments;
        let arity = match name {
            "pthread_barrier_init" => 3,
            _ => 1,
        };
        if args.len() != arity {
            self.errors.push(crate::diagnostics::Diagnostic::new(
                format!("`{name}` with the wrong number of arguments"),
                span,
            ));
            return None;
        }
        let (count, arrivals) = self.barrier_places(&args[0], scope)?;
        self.sync_calls += 1;
        let k = self.sync_calls;
        let register = |what: &str| format!("barrier#{k}.{what}");
        match name {
            "pthread_barrier_init" => {
                let n = self.expression(&args[2], scope)?;
                out.push(check(
                    CheckKind::InvalidBarrierInit,
                    binary(BinaryOp::Ne, n.clone(), int(0, span), span),
                    span,
                ));
                let old = register("old");
                out.push(declare(
                    &old,
                    call(
                        "atomic_exchange_explicit",
                        vec![count, n, order("memory_order_relaxed", span)],
                        span,
                    ),
                    span,
                ));
                out.push(check(
                    CheckKind::InvalidBarrierInit,
                    binary(BinaryOp::Eq, name_expr(&old, span), int(0, span), span),
                    span,
                ));
                Some(int(0, span))
            }
            "pthread_barrier_destroy" => {
                out.push(stmt(
                    StmtKind::Expr(call(
                        "atomic_store_explicit",
                        vec![
                            count,
                            int(DESTROYED, span),
                            order("memory_order_relaxed", span),
                        ],
                        span,
                    )),
                    span,
                ));
                Some(int(0, span))
            }
            _ => {
                let (n, old, round, result) = (
                    register("count"),
                    register("old"),
                    register("round"),
                    register("result"),
                );
                let reg = |name: &str| name_expr(name, span);
                out.push(declare(
                    &n,
                    call(
                        "atomic_load_explicit",
                        vec![count, order("memory_order_relaxed", span)],
                        span,
                    ),
                    span,
                ));
                out.push(check(
                    CheckKind::UninitialisedBarrier,
                    binary(BinaryOp::Ne, reg(&n), int(0, span), span),
                    span,
                ));
                out.push(check(
                    CheckKind::DestroyedBarrier,
                    binary(BinaryOp::Ne, reg(&n), int(DESTROYED, span), span),
                    span,
                ));
                out.push(declare(&result, int(0, span), span));
                let arrive = declare(
                    &old,
                    call(
                        "atomic_fetch_add_explicit",
                        vec![
                            arrivals.clone(),
                            int(1, span),
                            order("memory_order_acq_rel", span),
                        ],
                        span,
                    ),
                    span,
                );
                // (old / n + 1) * n: the arrivals that open this thread's round.
                let opens = binary(
                    BinaryOp::Mul,
                    binary(
                        BinaryOp::Add,
                        binary(BinaryOp::Div, reg(&old), reg(&n), span),
                        int(1, span),
                        span,
                    ),
                    reg(&n),
                    span,
                );
                let spin = stmt(
                    StmtKind::While {
                        prelude: Vec::new(),
                        cond: binary(
                            BinaryOp::Lt,
                            call(
                                "atomic_load_explicit",
                                vec![arrivals, order("memory_order_acquire", span)],
                                span,
                            ),
                            reg(&round),
                            span,
                        ),
                        body: Vec::new(),
                    },
                    span,
                );
                let serial = stmt(
                    StmtKind::If {
                        cond: binary(
                            BinaryOp::Eq,
                            binary(BinaryOp::Add, reg(&old), int(1, span), span),
                            reg(&round),
                            span,
                        ),
                        then_branch: vec![stmt(
                            StmtKind::Assign {
                                lhs: reg(&result),
                                rhs: int(SERIAL_THREAD, span),
                            },
                            span,
                        )],
                        else_branch: None,
                    },
                    span,
                );
                out.push(if_stmt(
                    binary(BinaryOp::Gt, reg(&n), int(0, span), span),
                    vec![arrive, declare(&round, opens, span), spin, serial],
                    None,
                    span,
                ));
                Some(reg(&result))
            }
        }
    }

    /// `&b` or `&b[i]` for a global barrier `b`: the addresses of its count and of its
    /// arrivals.
    fn barrier_places(
        &mut self,
        arg: &Node<c::Expression>,
        scope: &Scope,
    ) -> Option<(ast::Expr, ast::Expr)> {
        let span = self.span(arg.span);
        let target = match &arg.node {
            c::Expression::UnaryOperator(u)
                if matches!(u.node.operator.node, c::UnaryOperator::Address) =>
            {
                &u.node.operand
            }
            _ => arg,
        };
        let global = |t: &Self, e: &Node<c::Expression>| match &e.node {
            c::Expression::Identifier(id) if !scope.locals.contains_key(&id.node.name) => t
                .barriers
                .contains(&id.node.name)
                .then(|| id.node.name.clone()),
            _ => None,
        };
        match &target.node {
            c::Expression::Identifier(_) if !std::ptr::eq(target, arg) => {
                if let Some(name) = global(self, target) {
                    let arrivals = format!("{name}{BARRIER_ARRIVALS}");
                    return Some((name_expr(&name, span), name_expr(&arrivals, span)));
                }
            }
            c::Expression::BinaryOperator(b)
                if matches!(b.node.operator.node, c::BinaryOperator::Index) =>
            {
                if let Some(name) = global(self, &b.node.lhs) {
                    let index = self.expression(&b.node.rhs, scope)?;
                    let cell = |array: &str| {
                        expr(
                            ExprKind::Unary(
                                UnaryOp::AddrOf,
                                Box::new(expr(
                                    ExprKind::Index(
                                        Box::new(name_expr(array, span)),
                                        Box::new(index.clone()),
                                    ),
                                    span,
                                )),
                            ),
                            span,
                        )
                    };
                    let arrivals = format!("{name}{BARRIER_ARRIVALS}");
                    return Some((cell(&name), cell(&arrivals)));
                }
            }
            _ => {}
        }
        self.refuse(
            "a barrier that is not a global `pthread_barrier_t` named at the call (`&b`, `&b[i]`)",
            arg.span,
        );
        None
    }
}
