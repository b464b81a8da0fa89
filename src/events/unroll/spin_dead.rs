//! Spin loops whose registers nothing reads after them.
//!
//! A register nothing reads after a loop (nor reports: the test's condition, filter and
//! `locations`, a call site, an ordering-point annotation) may hold any value when the loop
//! ends. Two reductions follow:
//! - it need not be written on every path of an iteration, as `flow::spin_reducible` asks
//!   of the registers the loop leaves for later: which iteration wrote it last no
//!   execution can tell (GenMC's spin-cas-onebranch, whose `int r = 17` and exchange are
//!   on one branch only);
//! - when nothing reads it in the loop either, the loop's assignments to it compute a value
//!   no execution sees, and are left out: the loop without them has the same executions,
//!   and may be a spin loop where the original is not (GenMC's spin-load, `while (r != 17)
//!   { q = r + 1; r = x; }`, whose `q = r + 1` reads the `r` of the iteration before).

use std::collections::BTreeSet;

use super::flow::spin_reducible;
use super::spin_paths::spin_reducible_by_paths;
use super::{Builder, ThreadState};
use crate::program::{Expr, Instr, Program, RegId};

/// Per thread, the registers the test's condition, filter or `locations` name; every
/// register the source names when the program has an `atomic { }` block, since
/// `atomicity`'s serial mode compares whole final states.
pub(super) fn named_registers(program: &Program) -> Vec<BTreeSet<RegId>> {
    if program.threads.iter().any(|t| has_atomic_block(&t.body)) {
        return program
            .threads
            .iter()
            .map(|t| {
                let named = t.registers.iter().enumerate().filter(|(_, r)| !r.temporary);
                named.map(|(r, _)| r).collect()
            })
            .collect();
    }
    let mut out = vec![BTreeSet::new(); program.threads.len()];
    for o in program.named_observables() {
        if let crate::program::Observable::Reg { thread, reg } = o {
            if let Some(set) = out.get_mut(thread) {
                set.insert(reg);
            }
        }
    }
    out
}

fn has_atomic_block(instrs: &[Instr]) -> bool {
    instrs.iter().any(|instr| {
        matches!(instr, Instr::AtomicBlock { .. })
            || instr.nested().into_iter().any(has_atomic_block)
    })
}

/// The registers assignments of `instrs` write (in branches too).
fn assigned(instrs: &[Instr], out: &mut BTreeSet<RegId>) {
    for instr in instrs {
        if let Instr::Assign { dst, .. } = instr {
            out.insert(*dst);
        }
        for nested in instr.nested() {
            assigned(nested, out);
        }
    }
}

/// `instrs` without the assignments to `dead`, at the top level and in branches (an
/// assignment nested otherwise is kept).
fn without(instrs: &[Instr], dead: &BTreeSet<RegId>) -> Vec<Instr> {
    instrs
        .iter()
        .filter(|instr| !matches!(instr, Instr::Assign { dst, .. } if dead.contains(dst)))
        .map(|instr| match instr {
            Instr::If {
                cond,
                then_branch,
                else_branch,
                span,
            } => Instr::If {
                cond: cond.clone(),
                then_branch: without(then_branch, dead),
                else_branch: without(else_branch, dead),
                span: *span,
            },
            other => other.clone(),
        })
        .collect()
}

/// The registers `instrs` may write (in nested blocks too).
fn written(instrs: &[Instr], out: &mut BTreeSet<RegId>) {
    for instr in instrs {
        super::spin_paths::writes(instr, out);
        for nested in instr.nested() {
            written(nested, out);
        }
    }
}

impl Builder {
    /// A loop `while (cond) body` (accesses of the condition in `prelude`) that is a spin
    /// loop once the registers nothing reads after it are left aside, or its registers
    /// checked path by path (`spin_paths.rs`), and that `flow::spin_reducible` refused: its
    /// prelude and body without the assignments to registers nothing reads in it or after
    /// it. A register nothing reads after the loop need not be written on every
    /// path of an iteration (`flow::spin_reducible`): whichever iteration left its value,
    /// no execution sees it (GenMC's spin-cas-onebranch, whose `int r = 17` is written on
    /// one branch only).
    pub(super) fn spin_without_unread(
        &self,
        state: &ThreadState,
        prelude: &[Instr],
        cond: &Expr,
        body: &[Instr],
    ) -> Option<(Vec<Instr>, Vec<Instr>)> {
        let named = self.named_registers.get(state.index);
        let unread = |r: RegId, inside: bool| {
            !named.is_some_and(|n| n.contains(&r))
                && state.liveness.unread_after_loop(cond, r, inside)
        };
        let mut assigns = BTreeSet::new();
        assigned(prelude, &mut assigns);
        assigned(body, &mut assigns);
        let dead: BTreeSet<RegId> = assigns.into_iter().filter(|&r| unread(r, true)).collect();
        let mut writes = BTreeSet::new();
        written(prelude, &mut writes);
        written(body, &mut writes);
        let mut loose = state.temporaries.clone();
        for r in writes {
            if let Some(l) = loose.get_mut(r) {
                *l = *l || unread(r, false);
            }
        }
        let prelude = without(prelude, &dead);
        let body = without(body, &dead);
        (spin_reducible(&loose, &self.spin_mutexes, &prelude, cond, &body)
            || spin_reducible_by_paths(&loose, &self.spin_mutexes, &prelude, cond, &body))
        .then_some((prelude, body))
    }
}

impl Builder {
    /// `went_on` (the guard under which a reduced loop's entry test held) narrowed to the
    /// iteration's body leaving every exit flag clear (`flow::exit_flags`: the flags
    /// `break` and `return` set): GenMC's spin-assume blocks an execution at a loop's back
    /// edge, which an iteration that breaks out of the loop never takes, so such an
    /// execution is counted (GenMC's spin-cas6, 2 executions, both breaking after a failed
    /// exchange). Counting only reads it (`Session::count_executions`).
    pub(super) fn not_exited(
        &mut self,
        state: &mut ThreadState,
        went_on: crate::events::Guard,
        cond: &Expr,
        body: &[Instr],
        prelude: &[Instr],
        span: crate::diagnostics::Span,
    ) -> crate::events::Guard {
        let flags = super::flow::exit_flags(cond, &[body, prelude]);
        if flags.is_empty() {
            return went_on;
        }
        let mut clear = self.terms.constant(1);
        for &flag in &flags {
            let Some(&value) = state.registers.get(flag) else {
                continue;
            };
            let zero = self.terms.constant(0);
            let is_zero = self.terms.binary(crate::program::BinaryOp::Eq, value, zero);
            clear = self
                .terms
                .binary(crate::program::BinaryOp::And, clear, is_zero);
        }
        let control = self.control(state, clear, went_on.clone(), span);
        went_on.with(control, true)
    }
}
