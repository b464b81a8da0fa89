//! A recursive call deeper than the bound (`CallSite::recursion`, which lowering gives each
//! inlined call, `program/lower/recursion.rs`) is cut as a loop's iteration past the bound
//! is: an execution that makes it is a `BoundHit` (reported as cut, or left out with
//! `--block-at-bound`), and the rest of the thread runs only where it is not made. The
//! call's body is not unrolled.

use super::{Builder, ThreadState};
use crate::events::{BoundHit, Guard};
use crate::program::Instr;

impl Builder {
    /// When `instrs[i]` begins a recursive call past the bound: cuts it, and returns the
    /// index of its `CallExit` in `instrs`, where the unrolling goes on.
    pub(super) fn recursion_cut(
        &mut self,
        instrs: &[Instr],
        i: usize,
        state: &mut ThreadState,
    ) -> Option<usize> {
        let Instr::CallEnter { call, span, .. } = &instrs[i] else {
            return None;
        };
        let depth = state.sites.get(*call)?.recursion;
        if depth <= self.unroll {
            return None;
        }
        let exit = instrs[i..]
            .iter()
            .position(|instr| matches!(instr, Instr::CallExit { call: c, .. } if c == call))?;
        if !self.guard_dead(&state.guard) {
            let one = self.terms.constant(1);
            let control = self.control(state, one, Guard::default(), *span);
            self.bound_hits.push(BoundHit {
                thread: state.index,
                guard: state.guard.clone(),
                control,
                span: *span,
            });
            state.guard = state.guard.with(control, false);
        }
        Some(i + exit)
    }
}
