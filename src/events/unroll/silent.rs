//! Silent loops: a loop of register assignments and branches only, whose condition and
//! branches are constants as it runs (`for (int i = 0; i < 100000; i++) ;`, GenMC's
//! `cache-reuse`). It emits no memory event, so running it changes nothing but registers:
//! it is run to its end here, without events (its assignments' `Computation` events, one
//! per iteration, would pass `--max-events` long before a long count ends), and its
//! registers take the values it leaves. That is its only execution, so nothing is lost or
//! invented; the bound does not apply, as to any loop whose condition is known while
//! unrolling (`control.rs`).

use std::collections::BTreeSet;

use super::flow::registers_of;
use super::{Builder, ThreadState};
use crate::program::{Expr, Instr, RegId};

/// The most iterations a silent loop is run for: past it (or at a fixpoint of a constant
/// condition that holds, `while (1) {}`) the loop is unrolled as any other. Each iteration
/// interns its registers' new constants, so this bounds the memory a loop that never ends
/// costs before it is found out (about 350 bytes an iteration) as well as its time; 2^17
/// covers GenMC's `cache-reuse` (100000 iterations).
const MAX_SILENT_ITERATIONS: u32 = 1 << 17;

/// Whether every instruction of `instrs` is an assignment or a branch of them, with the
/// registers their expressions read added to `read`.
fn only_assignments(instrs: &[Instr], read: &mut BTreeSet<RegId>) -> bool {
    instrs.iter().all(|i| match i {
        Instr::Assign { value, .. } => {
            registers_of(value, read);
            true
        }
        Instr::If {
            cond,
            then_branch,
            else_branch,
            ..
        } => {
            registers_of(cond, read);
            only_assignments(then_branch, read) && only_assignments(else_branch, read)
        }
        _ => false,
    })
}

impl Builder {
    /// Runs `while (cond) body` (with `cond_prelude` before each test) as a silent loop;
    /// false, with `state` unchanged, when it is not one.
    pub(super) fn silent_loop(
        &mut self,
        state: &mut ThreadState,
        cond_prelude: &[Instr],
        cond: &Expr,
        body: &[Instr],
    ) -> bool {
        let mut read = BTreeSet::new();
        registers_of(cond, &mut read);
        if !only_assignments(cond_prelude, &mut read) || !only_assignments(body, &mut read) {
            return false;
        }
        // A register that depends on a read would pass that dependency on (`data`, `ctrl`):
        // such a loop is unrolled, which keeps it.
        if read.iter().any(|&r| !state.deps[r].is_empty()) {
            return false;
        }
        let entry = state.registers.clone();
        let mut written = Vec::new();
        let ran = self.run_silent(state, cond_prelude, cond, body, &mut written);
        let exit = std::mem::replace(&mut state.registers, entry);
        if !ran {
            return false;
        }
        written.sort_unstable();
        written.dedup();
        for reg in written {
            // Computed from registers that depend on no read, so it depends on none.
            state.set_register(reg, exit[reg], Default::default());
        }
        true
    }

    /// The loop run on `state.registers` in place; false where it is not silent.
    fn run_silent(
        &mut self,
        state: &mut ThreadState,
        cond_prelude: &[Instr],
        cond: &Expr,
        body: &[Instr],
        written: &mut Vec<RegId>,
    ) -> bool {
        if !self.run_assignments(state, cond_prelude, written) {
            return false;
        }
        for _ in 0..MAX_SILENT_ITERATIONS {
            let c = self.term(cond, state);
            match self.terms.constant_value(c) {
                Some(0) => return true,
                Some(_) => {}
                None => return false,
            }
            let before = state.registers.clone();
            if !self.run_assignments(state, body, written)
                || !self.run_assignments(state, cond_prelude, written)
            {
                return false;
            }
            if state.registers == before {
                // The same test again, for ever: the bounded unrolling reports it.
                return false;
            }
        }
        false
    }

    /// Assignments and branches whose every value is a constant, run on `state.registers`.
    fn run_assignments(
        &mut self,
        state: &mut ThreadState,
        instrs: &[Instr],
        written: &mut Vec<RegId>,
    ) -> bool {
        for instr in instrs {
            match instr {
                Instr::Assign { dst, value, .. } => {
                    if state.ordering_point_registers.iter().any(|(r, _)| r == dst) {
                        return false;
                    }
                    let value = self.term(value, state);
                    if self.terms.constant_value(value).is_none() {
                        return false;
                    }
                    state.registers[*dst] = value;
                    written.push(*dst);
                }
                Instr::If {
                    cond,
                    then_branch,
                    else_branch,
                    ..
                } => {
                    let c = self.term(cond, state);
                    let side = match self.terms.constant_value(c) {
                        Some(0) => else_branch,
                        Some(_) => then_branch,
                        None => return false,
                    };
                    if !self.run_assignments(state, side, written) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
        true
    }
}
