//! POSIX mutexes at computed addresses: `pthread_mutex_lock(&locks[i])` with `i` a
//! register, `pthread_mutex_lock(&t->m)` with `t` a pointer value (a heap object, a struct
//! reached through a pointer).
//!
//! Such a lock is a choice among the cells its address may denote, as a memory access
//! through an index or a pointer is (`events::unroll`'s `at`): lowering writes it as a
//! marked access through the address ([`marked`]), so that the points-to analysis gives a
//! pointer its cells as it gives any access's; then [`expand`] turns it into the chain
//! `if (sel == key0) lock(c0) else if (sel == key1) lock(c1) ... else <invalid access>`,
//! whose locks are ordinary locks of fixed cells. The selector is the index (keys
//! `0..n`) or the pointer value (keys the cells' addresses); a selector that is none of
//! the keys is the access to a cell that does not exist, reported where it runs by an
//! access through the same value with no cell (the unroller's address check).
//!
//! The selector is first copied into the thread's register [`SELECTOR`] (no event), and
//! the chain's tests read it: that register names the chain's cases to the unroller, which
//! leaves out the cases whose key the selector's value set excludes, as it leaves out the
//! cells of an access (`events::unroll`'s `values`). Only a case's test is so made false,
//! never true: a selector outside its set (a model with values out of thin air) still
//! falls through to the invalid access at the chain's end.
//!
//! A lock taken inside a branch is one the unroller's static matching refuses, so every
//! cell such a lock reaches becomes a memory mutex (`program::mutex`): a lock is a
//! read-modify-write from 0 or a wait for good, an unlock a release write of 0, and each
//! unlock checks that its thread holds the mutex, as GenMC's mutexes are.

use std::collections::BTreeSet;

use super::{Address, BinaryOp, Expr, Instr, LocId, MemOrder, Program, Register, RmwOp};

/// The tag that marks the access standing for a lock (`true`) or an unlock at a computed
/// address; no source tag holds a `#`.
const LOCK_MARK: &str = "lock#computed";
const UNLOCK_MARK: &str = "unlock#computed";

/// The register a chain's selector is copied into, which its cases test (one per thread
/// that has such a lock; no source register holds a `#`).
pub const SELECTOR: &str = "lock#address";

/// The placeholder of a lock (or unlock) of the mutex at `address`, until [`expand`].
pub fn marked(address: Address, unlock: bool, span: crate::diagnostics::Span) -> Instr {
    let mark = if unlock { UNLOCK_MARK } else { LOCK_MARK };
    Instr::Rmw {
        dst: None,
        loc: address,
        op: RmwOp::Fetch(BinaryOp::Add),
        operand: Expr::Const(0),
        order: MemOrder::SeqCst,
        tags: vec![mark.to_string()],
        unless: None,
        failure_tags: Vec::new(),
        span,
    }
}

/// Replace every placeholder of [`marked`] by its chain of fixed locks; the cells it may
/// lock are returned (they are POSIX mutexes, and locks).
pub fn expand(program: &mut Program) -> BTreeSet<LocId> {
    let mut used = BTreeSet::new();
    let addresses: Vec<i32> = program.locations.iter().map(|l| l.address).collect();
    for thread in &mut program.threads {
        let mut scratch = None;
        let registers = &mut thread.registers;
        let mut scratch_register = || {
            *scratch.get_or_insert_with(|| {
                registers.push(Register {
                    name: SELECTOR.to_string(),
                    initial: 0,
                    temporary: true,
                });
                registers.len() - 1
            })
        };
        expand_block(
            &mut thread.body,
            &addresses,
            &mut used,
            &mut scratch_register,
        );
    }
    for &cell in &used {
        program.locations[cell].is_lock = true;
    }
    used
}

fn expand_block(
    instrs: &mut Vec<Instr>,
    addresses: &[i32],
    used: &mut BTreeSet<LocId>,
    scratch: &mut dyn FnMut() -> usize,
) {
    for mut instr in std::mem::take(instrs) {
        if let Instr::Rmw {
            loc, tags, span, ..
        } = &instr
        {
            let unlock = match tags.as_slice() {
                [t] if t == LOCK_MARK => Some(false),
                [t] if t == UNLOCK_MARK => Some(true),
                _ => None,
            };
            if let Some(unlock) = unlock {
                instrs.extend(chain(loc, unlock, *span, addresses, used, scratch()));
                continue;
            }
        }
        match &mut instr {
            Instr::If {
                then_branch,
                else_branch,
                ..
            } => {
                expand_block(then_branch, addresses, used, scratch);
                expand_block(else_branch, addresses, used, scratch);
            }
            Instr::While {
                cond_prelude, body, ..
            } => {
                expand_block(cond_prelude, addresses, used, scratch);
                expand_block(body, addresses, used, scratch);
            }
            Instr::AtomicBlock { body, .. } => expand_block(body, addresses, used, scratch),
            _ => {}
        }
        instrs.push(instr);
    }
}

/// The chain of branches of one lock or unlock at `address`, after the copy of its
/// selector into `scratch` (the [`SELECTOR`] register) that its tests read, and the reset
/// of that register after it.
fn chain(
    address: &Address,
    unlock: bool,
    span: crate::diagnostics::Span,
    addresses: &[i32],
    used: &mut BTreeSet<LocId>,
    scratch: usize,
) -> [Instr; 3] {
    let (selector, cases, value): (Expr, Vec<(LocId, i32)>, Expr) = match address {
        Address::Fixed(loc) => (
            Expr::Const(0),
            vec![(*loc, 0)],
            Expr::Const(addresses[*loc]),
        ),
        Address::Indexed { cells, index } => {
            let first = cells.first().map_or(0, |&c| addresses[c]);
            let cases = cells
                .iter()
                .enumerate()
                .map(|(k, &c)| (c, i32::try_from(k).unwrap_or(i32::MAX)))
                .collect();
            let value = Expr::Binary(
                BinaryOp::Add,
                Box::new(Expr::Const(first)),
                Box::new(index.clone()),
            );
            (index.clone(), cases, value)
        }
        Address::Pointer { value, cells } => {
            let cases = cells.iter().map(|&c| (c, addresses[c])).collect();
            (value.clone(), cases, value.clone())
        }
    };
    // No cell: the access check of a load through the same value fails where it runs.
    let mut rest = vec![Instr::Load {
        dst: scratch,
        loc: Address::Pointer {
            value,
            cells: Vec::new(),
        },
        order: MemOrder::NonAtomic,
        tags: Vec::new(),
        span,
    }];
    for &(cell, key) in cases.iter().rev() {
        used.insert(cell);
        let op = if unlock {
            Instr::Unlock { loc: cell, span }
        } else {
            Instr::Lock { loc: cell, span }
        };
        rest = vec![Instr::If {
            cond: Expr::Binary(
                BinaryOp::Eq,
                Box::new(Expr::Reg(scratch)),
                Box::new(Expr::Const(key)),
            ),
            then_branch: vec![op],
            else_branch: rest,
            span,
        }];
    }
    let copy = Instr::Assign {
        dst: scratch,
        value: selector,
        span,
    };
    let chain = rest.pop().unwrap_or(Instr::Assume {
        cond: Expr::Const(1),
        span,
    });
    // Back to its initial 0 after the chain, so that a witness's final registers leave it
    // out (a thread that stops at the invalid access keeps it, the address it had).
    let reset = Instr::Assign {
        dst: scratch,
        value: Expr::Const(0),
        span,
    };
    [copy, chain, reset]
}

/// The length of the chain of cases that begins with `instr` (0 when it is none), where
/// `selector` is the thread's [`SELECTOR`] register.
pub fn chain_length(instr: &Instr, selector: usize) -> usize {
    let mut length = 0;
    let mut at = instr;
    while let Instr::If {
        cond, else_branch, ..
    } = at
    {
        if !tests_selector(cond, selector) {
            break;
        }
        length += 1;
        match else_branch.as_slice() {
            [next] => at = next,
            _ => break,
        }
    }
    length
}

/// Whether `cond` is a chain case's test of the [`SELECTOR`] register `selector`.
pub fn tests_selector(cond: &Expr, selector: usize) -> bool {
    matches!(cond, Expr::Binary(BinaryOp::Eq, a, b)
        if **a == Expr::Reg(selector) && matches!(**b, Expr::Const(_)))
}
