//! POSIX mutexes of a C program, as GenMC has them: memory, with two defects of their use.
//!
//! A mutex is encoded as ordered critical sections (`lko`, `encode`) when the unroller can
//! match each `unlock` with the `lock` before it in its thread, statically. A C program may
//! use a mutex in ways that matching refuses and that GenMC reports as defects only when an
//! execution reaches them:
//!
//! - an unlock of a mutex the thread does not hold (GenMC's "Invalid unlock() operation"),
//!   on some path;
//! - a lock of a destroyed mutex (`pthread_mutex_destroy` writes -1; a lock that reads it is
//!   GenMC's "Attempt to read from uninitialized memory");
//! - a lock held past the end of its branch or of its thread, which is no defect.
//!
//! Such a mutex becomes memory ([`crate::program::Location::mutex_memory`]): a lock is a
//! read-modify-write that reads 0 (or waits for good), an unlock a release write of 0, a
//! destroy a plain write of -1; what the thread holds is a register of its own per mutex
//! (`held#m`, 1 after its lock, 0 after its unlock), and each unlock checks it
//! ([`CheckKind::InvalidUnlock`]); the unroller checks that a lock of a destroyed mutex did
//! not read -1 ([`CheckKind::DestroyedMutex`]). Mutexes a program uses as the matching
//! expects are left as they are, and cost nothing new.
//!
//! The C front end reaches these through calls no litmus test can write (they hold a `#`):
//! a litmus test's `lock`/`unlock` keep their matching, and its errors.

use std::collections::BTreeSet;

use super::checks::CheckKind;
use super::{BinaryOp, Expr, Instr, LocId, Program, Register};

/// `pthread_mutex_lock(&m)`, as the C front end writes it.
pub const LOCK: &str = "lock#posix";
/// `pthread_mutex_unlock(&m)`.
pub const UNLOCK: &str = "unlock#posix";
/// `pthread_mutex_destroy(&m)`.
pub const DESTROY: &str = "mutex_destroy#posix";
/// `pthread_mutex_init(&m, attr)`: nothing for a mutex the test names (its cell starts at
/// 0), a write of 0 for one at a computed address (a heap object's starts uninitialised).
pub const INIT: &str = "mutex_init#posix";
/// The value `pthread_mutex_destroy` writes (GenMC's).
pub const DESTROYED: i32 = -1;

/// The POSIX mutexes of a lowered program: those `LOCK`/`UNLOCK` name, and those `DESTROY`
/// names.
#[derive(Clone, Debug, Default)]
pub struct PosixMutexes {
    pub used: BTreeSet<LocId>,
    pub destroyed: BTreeSet<LocId>,
}

/// Decide which POSIX mutexes are memory, and give their threads the register of what
/// they hold and the check of each unlock.
pub fn settle(program: &mut Program, posix: &PosixMutexes) {
    if posix.used.is_empty() && posix.destroyed.is_empty() {
        return;
    }
    let mut memory: BTreeSet<LocId> = posix.destroyed.clone();
    for thread in &program.threads {
        let mut held = Vec::new();
        unmatched(&thread.body, &mut held, &mut memory);
        memory.extend(held);
    }
    memory.retain(|l| posix.used.contains(l) || posix.destroyed.contains(l));
    if memory.is_empty() {
        return;
    }
    for &loc in &memory {
        program.locations[loc].mutex_memory = true;
        program.locations[loc].mutex_destroyed = posix.destroyed.contains(&loc);
    }
    for thread in &mut program.threads {
        let mut registers = std::collections::BTreeMap::new();
        let body = std::mem::take(&mut thread.body);
        thread.body = track(body, &memory, &mut |loc| {
            *registers.entry(loc).or_insert_with(|| {
                let id = thread.registers.len();
                thread.registers.push(Register {
                    name: format!("held#{}", program.locations[loc].name),
                    initial: 0,
                    temporary: true,
                });
                id
            })
        });
    }
}

/// Walk `instrs` as the unroller matches locks (a branch, a loop's body and an atomic
/// block release exactly the locks they take; an unlock releases the thread's innermost
/// lock of its mutex), adding to `out` every mutex whose use that matching refuses.
fn unmatched(instrs: &[Instr], held: &mut Vec<LocId>, out: &mut BTreeSet<LocId>) {
    // A block starts with nothing held of its own: an unlock of a lock taken outside it is
    // unmatched there, and a lock it still holds at its end outlives it; the matching
    // refuses both.
    let balanced = |body: &[Instr], out: &mut BTreeSet<LocId>| {
        let mut inner = Vec::new();
        unmatched(body, &mut inner, out);
        out.extend(inner);
    };
    for instr in instrs {
        match instr {
            Instr::Lock { loc, .. } => held.push(*loc),
            Instr::Unlock { loc, .. } => match held.iter().rposition(|l| l == loc) {
                Some(i) => {
                    held.remove(i);
                }
                None => {
                    out.insert(*loc);
                }
            },
            Instr::If {
                then_branch,
                else_branch,
                ..
            } => {
                balanced(then_branch, out);
                balanced(else_branch, out);
            }
            Instr::While {
                cond_prelude, body, ..
            } => {
                balanced(cond_prelude, out);
                balanced(body, out);
            }
            Instr::AtomicBlock { body, .. } => balanced(body, out),
            _ => {}
        }
    }
}

/// `instrs` with the register of what the thread holds kept for each mutex of `memory`:
/// set after a lock, checked before an unlock and cleared after it.
fn track(
    instrs: Vec<Instr>,
    memory: &BTreeSet<LocId>,
    register: &mut dyn FnMut(LocId) -> usize,
) -> Vec<Instr> {
    let mut out = Vec::with_capacity(instrs.len());
    for instr in instrs {
        match instr {
            Instr::Lock { loc, span } if memory.contains(&loc) => {
                let dst = register(loc);
                out.push(Instr::Lock { loc, span });
                out.push(Instr::Assign {
                    dst,
                    value: Expr::Const(1),
                    span,
                });
            }
            Instr::Unlock { loc, span } if memory.contains(&loc) => {
                let dst = register(loc);
                out.push(Instr::Check {
                    cond: Expr::Binary(
                        BinaryOp::Ne,
                        Box::new(Expr::Reg(dst)),
                        Box::new(Expr::Const(0)),
                    ),
                    kind: CheckKind::InvalidUnlock,
                    span,
                });
                out.push(Instr::Unlock { loc, span });
                out.push(Instr::Assign {
                    dst,
                    value: Expr::Const(0),
                    span,
                });
            }
            Instr::If {
                cond,
                then_branch,
                else_branch,
                span,
            } => out.push(Instr::If {
                cond,
                then_branch: track(then_branch, memory, register),
                else_branch: track(else_branch, memory, register),
                span,
            }),
            Instr::While {
                cond_prelude,
                cond,
                body,
                span,
            } => out.push(Instr::While {
                cond_prelude: track(cond_prelude, memory, register),
                cond,
                body: track(body, memory, register),
                span,
            }),
            Instr::AtomicBlock { body, span } => out.push(Instr::AtomicBlock {
                body: track(body, memory, register),
                span,
            }),
            other => out.push(other),
        }
    }
    out
}
