//! GCC's atomic builtins (GCC's manual, "Built-in Functions for Memory Model Aware Atomic
//! Operations" and "Legacy `__sync` Built-in Functions"), which clang, GenMC's compiler,
//! also takes, as the C11 atomics they are:
//! - `__atomic_load_n`, `__atomic_store_n`, `__atomic_exchange_n`,
//!   `__atomic_compare_exchange_n(p, e, d, weak, s, f)` (weak a constant: the `_weak` or
//!   `_strong` call), `__atomic_fetch_OP` (OP one of add, sub, and, or, xor),
//!   `__atomic_thread_fence` and `__atomic_signal_fence` are the `_explicit` calls with the
//!   same memory order: GCC's `__ATOMIC_RELAXED` .. `__ATOMIC_SEQ_CST`, which the
//!   preprocessor gives as 0 .. 5, C11's `memory_order` in its order;
//! - `__atomic_OP_fetch(p, v, o)` returns the new value: `atomic_fetch_OP_explicit(p, v, o)
//!   OP v`, when `v` is a constant or a register (read once either way);
//! - the `__sync` builtins are full barriers: `__sync_fetch_and_OP` and `__sync_OP_and_fetch`
//!   are seq_cst read-modify-writes (as clang emits them, `atomicrmw ... seq_cst`),
//!   `__sync_synchronize()` a seq_cst fence, `__sync_lock_test_and_set(p, v)` an acquire
//!   exchange and `__sync_lock_release(p)` a release store of 0 (the manual's barriers for
//!   the two).
//!
//! clang's `__sync_fetch_and_max`, `_min`, `_umax` and `_umin` are library calls of their
//! own (`program::library`, read-modify-writes of `RmwOp::Extreme`). Anything else of
//! theirs (`nand`, `__sync_*_compare_and_swap`, the generic `__atomic_load` through
//! pointers, `__sync_max_and_fetch`) stays an unknown function.

use super::*;

/// C11's memory orders, by GCC's `__ATOMIC_*` values.
const ORDERS: [&str; 6] = [
    "memory_order_relaxed",
    "memory_order_consume",
    "memory_order_acquire",
    "memory_order_release",
    "memory_order_acq_rel",
    "memory_order_seq_cst",
];

/// The read-modify-write operations both families name, with the operator of their
/// `OP_fetch` form.
const OPS: [(&str, BinaryOp); 5] = [
    ("add", BinaryOp::Add),
    ("sub", BinaryOp::Sub),
    ("and", BinaryOp::BitAnd),
    ("or", BinaryOp::BitOr),
    ("xor", BinaryOp::BitXor),
];

/// What a builtin is: the C11 call, and for the `OP_fetch` forms the operator that gives
/// the new value from the old one.
struct Mapped {
    call: String,
    /// The memory order to append (`__sync`), when the builtin takes none.
    order: Option<&'static str>,
    /// Which arguments to keep, in order.
    keep: Vec<usize>,
    /// The memory-order arguments among the kept ones (their positions in `keep`).
    orders: Vec<usize>,
    new_value: Option<BinaryOp>,
}

fn mapped(name: &str, args: &[ast::Expr]) -> Option<Result<Mapped, &'static str>> {
    let plain = |call: &str, keep: Vec<usize>, orders: Vec<usize>| Mapped {
        call: call.to_string(),
        order: None,
        keep,
        orders,
        new_value: None,
    };
    let m = match name {
        "__atomic_load_n" => plain("atomic_load_explicit", vec![0, 1], vec![1]),
        "__atomic_store_n" => plain("atomic_store_explicit", vec![0, 1, 2], vec![2]),
        "__atomic_exchange_n" => plain("atomic_exchange_explicit", vec![0, 1, 2], vec![2]),
        "__atomic_thread_fence" => plain("atomic_thread_fence", vec![0], vec![0]),
        "__atomic_signal_fence" => plain("atomic_signal_fence", vec![0], vec![0]),
        "__atomic_compare_exchange_n" => {
            let weak = match args.get(3).map(|a| &a.kind) {
                Some(ExprKind::Int(0)) => false,
                Some(ExprKind::Int(_)) => true,
                _ => {
                    return Some(Err(
                        "`__atomic_compare_exchange_n` whose `weak` is not a constant",
                    ))
                }
            };
            let call = if weak {
                "atomic_compare_exchange_weak_explicit"
            } else {
                "atomic_compare_exchange_strong_explicit"
            };
            plain(call, vec![0, 1, 2, 4, 5], vec![3, 4])
        }
        "__sync_synchronize" => Mapped {
            order: Some("memory_order_seq_cst"),
            ..plain("atomic_thread_fence", vec![], vec![])
        },
        "__sync_lock_test_and_set" => Mapped {
            order: Some("memory_order_acquire"),
            ..plain("atomic_exchange_explicit", vec![0, 1], vec![])
        },
        "__sync_lock_release" => Mapped {
            order: Some("memory_order_release"),
            ..plain("atomic_store_explicit", vec![0], vec![])
        },
        _ => {
            let (op, new_value, sync) = if let Some(op) = name.strip_prefix("__atomic_fetch_") {
                (op, false, false)
            } else if let Some(op) = name.strip_prefix("__sync_fetch_and_") {
                (op, false, true)
            } else if let Some(op) = name
                .strip_prefix("__atomic_")
                .and_then(|n| n.strip_suffix("_fetch"))
            {
                (op, true, false)
            } else if let Some(op) = name
                .strip_prefix("__sync_")
                .and_then(|n| n.strip_suffix("_and_fetch"))
            {
                (op, true, true)
            } else {
                return None;
            };
            let (op, operator) = OPS.iter().find(|(o, _)| *o == op)?;
            Mapped {
                call: format!("atomic_fetch_{op}_explicit"),
                order: sync.then_some("memory_order_seq_cst"),
                keep: if sync { vec![0, 1] } else { vec![0, 1, 2] },
                orders: if sync { vec![] } else { vec![2] },
                new_value: new_value.then_some(*operator),
            }
        }
    };
    Some(Ok(m))
}

impl Translator<'_> {
    /// A GCC atomic builtin as its C11 call (module comment); `None` when `name` is none of
    /// them, `Some(None)` when it is refused here.
    pub(super) fn gcc_builtin(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        callee: lang_c::span::Span,
    ) -> Option<Option<ast::Expr>> {
        let m = match mapped(name, args)? {
            Ok(m) => m,
            Err(what) => {
                self.refuse(what, callee);
                return Some(None);
            }
        };
        // `__sync_lock_release(p)` stores 0.
        let mut kept: Vec<ast::Expr> = Vec::new();
        for &k in &m.keep {
            let Some(arg) = args.get(k) else {
                self.refuse(&format!("`{name}` with {} arguments", args.len()), callee);
                return Some(None);
            };
            kept.push(arg.clone());
        }
        if name == "__sync_lock_release" {
            kept.push(expr(ExprKind::Int(0), span));
        }
        for &k in &m.orders {
            let order = match &kept[k].kind {
                ExprKind::Int(v) => usize::try_from(*v).ok().and_then(|v| ORDERS.get(v)),
                ExprKind::Name(n) if ORDERS.contains(&n.name.as_str()) => continue,
                _ => None,
            };
            let Some(order) = order else {
                self.refuse(
                    &format!("`{name}` with a memory order that is not a constant"),
                    callee,
                );
                return Some(None);
            };
            kept[k] = name_expr(order, kept[k].span);
        }
        if let Some(order) = m.order {
            kept.push(name_expr(order, span));
        }
        // C11's forbidden failure orders, as clang weakens them (`extras.rs`).
        clang_failure_order(&m.call, &mut kept);
        let operand = kept.get(1).cloned();
        let value = expr(ExprKind::Call(ident(&m.call, span), kept), span);
        let Some(op) = m.new_value else {
            return Some(Some(value));
        };
        // The new value, from the old one and the operand, which must read nothing.
        match operand {
            Some(operand) if matches!(operand.kind, ExprKind::Int(_) | ExprKind::Name(_)) => {
                Some(Some(expr(
                    ExprKind::Binary(op, Box::new(value), Box::new(operand)),
                    span,
                )))
            }
            _ => {
                self.refuse(
                    &format!("`{name}` whose operand is not a constant or a local"),
                    callee,
                );
                Some(None)
            }
        }
    }
}
