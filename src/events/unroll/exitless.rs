//! Loops with no exit (GenMC's saver rows `spin-fai1`, `spin-plain+se`, `spin-2cas`: `while
//! (1) { fetch_add(&x, 1); fetch_sub(&x, 1); }`). A `while` whose condition is a non-zero
//! constant naming no register (`break`, `return`, `goto` out, `exit` and `pthread_exit`
//! are lowered as flags the condition tests, so it names none of them) never ends: no
//! execution in which its thread reaches it is complete. Where the program has no error
//! site at all ([`no_error_site`]), the loop is a wait that blocks for good at its head:
//! the executions that reach it are blocked, which every answer leaves out as it leaves out
//! the ones the bound cuts, and the program's errors, none, are those of every prefix of an
//! execution that runs the loop. Why that is exact: docs/unrolling.md, "Loops with no exit".

use super::flow::registers_of;
use super::{Builder, ThreadState};
use crate::diagnostics::Span;
use crate::events::WaitOn;
use crate::program::{Expected, Expr, Instr, MemOrder, Program};

/// Whether no execution prefix of `program` can have an error, whatever its loops do: no
/// assertion or library check, no index or pointer access (an invalid access), no
/// non-atomic access (a data race), no heap cell or stack object (memory defects), no
/// mutex (its misuse), no `atomic { }` block and no specification. Shared memory is then
/// accessed only by atomics at fixed cells.
pub(super) fn no_error_site(program: &Program) -> bool {
    program.spec.is_none()
        && program
            .locations
            .iter()
            .all(|l| l.heap.is_none() && !l.is_lock && !l.herd_lock && !l.mutex_memory)
        && program.threads.iter().all(|t| quiet(&t.body))
}

/// Whether `instrs` hold no error site (see [`no_error_site`]).
fn quiet(instrs: &[Instr]) -> bool {
    instrs.iter().all(|instr| {
        let atomic_at_fixed = |order: &MemOrder| {
            *order != MemOrder::NonAtomic && instr.address().is_some_and(|a| a.fixed().is_some())
        };
        let here = match instr {
            Instr::Load { order, .. } | Instr::Store { order, .. } | Instr::Rmw { order, .. } => {
                atomic_at_fixed(order)
            }
            Instr::CompareExchange {
                success,
                failure,
                expected,
                ..
            } => {
                atomic_at_fixed(success)
                    && atomic_at_fixed(failure)
                    && matches!(expected, Expected::Register(_))
            }
            Instr::Fence { .. }
            | Instr::Assign { .. }
            | Instr::If { .. }
            | Instr::While { .. }
            | Instr::Assume { .. }
            | Instr::CallEnter { .. }
            | Instr::CallExit { .. } => true,
            Instr::Lock { .. }
            | Instr::Unlock { .. }
            | Instr::AtomicBlock { .. }
            | Instr::Assert { .. }
            | Instr::Check { .. }
            | Instr::CheckIndex { .. }
            | Instr::Alloc { .. }
            | Instr::Free { .. } => false,
        };
        here && instr.nested().iter().all(|block| quiet(block))
    })
}

/// Whether `while (cond)` has no exit: `cond` names no register and is a non-zero
/// constant.
fn never_exits(cond: &Expr) -> bool {
    let mut registers = Default::default();
    registers_of(cond, &mut registers);
    registers.is_empty() && constant(cond).is_some_and(|v| v != 0)
}

/// The value of an expression that names no register.
fn constant(expr: &Expr) -> Option<i32> {
    use crate::program::arith::{eval_binary, eval_unary};
    Some(match expr {
        Expr::Const(v) => *v,
        Expr::Reg(_) => return None,
        Expr::Unary(op, a) => eval_unary(*op, constant(a)?),
        Expr::Binary(op, a, b) => eval_binary(*op, constant(a)?, constant(b)?),
        Expr::Conditional(c, a, b) => {
            if constant(c)? != 0 {
                constant(a)?
            } else {
                constant(b)?
            }
        }
    })
}

impl Builder {
    /// `while (cond) ..` as a wait that blocks for good at the loop's head, when the loop
    /// has no exit and the program no error site (`exitless_loops`); false, with nothing
    /// emitted, otherwise.
    pub(super) fn exitless_loop(
        &mut self,
        state: &mut ThreadState,
        cond: &Expr,
        span: Span,
    ) -> bool {
        if !self.exitless_loops || !never_exits(cond) {
            return false;
        }
        let blocked = self.terms.constant(1);
        self.wait(
            state,
            Some(blocked),
            WaitOn::Forever { loop_span: span },
            span,
        );
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::BinaryOp;

    #[test]
    fn only_a_constant_condition_never_exits() {
        assert!(never_exits(&Expr::Const(1)));
        assert!(!never_exits(&Expr::Const(0)));
        let and = |a, b| Expr::Binary(BinaryOp::And, Box::new(a), Box::new(b));
        assert!(never_exits(&and(Expr::Const(2), Expr::Const(1))));
        // `while (!brk && 1)`: a `break` leaves it.
        assert!(!never_exits(&and(Expr::Reg(0), Expr::Const(1))));
    }
}
