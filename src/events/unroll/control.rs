//! Control flow: branches, loops unrolled up to the bound, spin loops and waits.

use std::collections::BTreeSet;

use super::flow::{
    ends_with_exit_cas, entry_test_reads_first, exit_flags, registers_of, spin_reducible,
};
use super::{blank_event, loop_guard, Builder, Deps, ThreadState};
use crate::diagnostics::Span;
use crate::events::{
    BoundHit, ControlId, Event, EventId, EventKind, Guard, TermId, WaitOn, WaitPoint,
};
use crate::program::{BinaryOp, Expr, Instr, LocId, RegId, UnaryOp};

/// How many iterations of one loop whose condition is known while unrolling are unrolled
/// before the loop counts as running past its bound (a `while (1)` that keeps changing its
/// registers would otherwise never end).
const MAX_KNOWN_ITERATIONS: u32 = 1024;

/// The most literals a branch's guard starts from: past it, the outer guard is folded into
/// one control defined from it (`Control::within`), as a loop's iterations chain theirs.
const FOLD_GUARD_AT: usize = 8;

/// What an iteration of a loop may change: events, registers, guard, stops, locks held
/// and errors. Two equal marks around an iteration mean it changed nothing.
type IterationMark = (
    usize,
    Vec<TermId>,
    Guard,
    usize,
    Vec<(LocId, EventId, Span)>,
    usize,
);

impl Builder {
    fn iteration_mark(&self, state: &ThreadState) -> IterationMark {
        (
            self.events.len(),
            state.registers.clone(),
            state.guard.clone(),
            state.stops.len(),
            state.held.clone(),
            self.errors.len(),
        )
    }

    /// `if (cond) then else`, with register values merged at the join.
    pub(super) fn branch(
        &mut self,
        state: &mut ThreadState,
        cond: TermId,
        span: Span,
        then_branch: impl FnOnce(&mut Builder, &mut ThreadState),
        else_branch: impl FnOnce(&mut Builder, &mut ThreadState),
    ) {
        let join = state.join.take();
        // A constant condition selects its branch statically: no control variable, no
        // infeasible events.
        if let Some(v) = self.terms.constant_value(cond) {
            if v != 0 {
                self.balanced(state, span, "branch", then_branch);
            } else {
                self.balanced(state, span, "branch", else_branch);
            }
            return;
        }
        let outer_guard = state.guard.clone();
        // Deep nesting: the branches' guards start from one control that stands for the
        // outer guard, so that no guard has more than `FOLD_GUARD_AT` literals (written out,
        // the events of n nested branches would hold O(n^2) of them).
        if outer_guard.0.len() >= FOLD_GUARD_AT {
            let one = self.terms.constant(1);
            let folded = self.control(state, one, outer_guard.clone(), span);
            state.guard = Guard(vec![(folded, true)]);
        }
        let inner_guard = state.guard.clone();
        let control = self.control(state, cond, Guard::default(), span);
        let stops_before = state.stops.len();
        state.guard = inner_guard.with(control, true);
        let then_start = self.events.len();
        // Each side's register writes are undone at its end (`trail.rs`): the else side
        // starts from the registers before the branch, and the join merges what either
        // side wrote.
        let mark = state.open_side();
        self.balanced(state, span, "branch", then_branch);
        let mut then_side = state.close_side(mark).written;
        state.guard = inner_guard.with(control, false);
        let else_start = self.events.len();
        let mark = state.open_side();
        self.balanced(state, span, "branch", else_branch);
        let mut else_side = state.close_side(mark).written;
        let end = self.events.len();
        state.guard = outer_guard;
        // A register nothing reads after the join keeps its value before the branch.
        let written: BTreeSet<RegId> = then_side
            .keys()
            .chain(else_side.keys())
            .copied()
            .filter(|&reg| state.liveness.live_after(join, reg))
            .collect();
        // The registers are as before the branch; each written one takes the value of the
        // side that ran (values first, then dependencies, in register order).
        let mut sides = Vec::with_capacity(written.len());
        let mut before = Vec::with_capacity(written.len());
        for &reg in &written {
            let at_start = (state.registers[reg], state.deps[reg].clone());
            let then_end = then_side.remove(&reg).map(|(end, _)| end);
            let else_end = else_side.remove(&reg).map(|(end, _)| end);
            let (then_value, then_deps) = then_end.unwrap_or_else(|| at_start.clone());
            let (else_value, else_deps) = else_end.unwrap_or_else(|| at_start.clone());
            state.registers[reg] = self.terms.ite(cond, then_value, else_value);
            sides.push((reg, then_deps, else_deps));
            before.push((reg, at_start.0, at_start.1));
        }
        for (reg, then_deps, else_deps) in sides {
            state.deps[reg] = if then_deps != else_deps {
                self.merge_deps(
                    cond,
                    &then_deps,
                    then_start..else_start,
                    &else_deps,
                    else_start..end,
                )
            } else {
                else_deps
            };
        }
        state.record_before(before);
        self.unless_stopped(state, stops_before, span);
    }

    /// After a branch or a loop in which the thread may have stopped (an out-of-bounds
    /// index, the stops from `stops_before` on): the rest of the thread runs only if it did
    /// not, whichever way it went.
    fn unless_stopped(&mut self, state: &mut ThreadState, stops_before: usize, span: Span) {
        if state.stops.len() == stops_before {
            return;
        }
        let mut stopped = self.terms.constant(0);
        for i in stops_before..state.stops.len() {
            stopped = self.terms.binary(BinaryOp::Or, stopped, state.stops[i].0);
        }
        let goes_on = self.terms.unary(UnaryOp::Not, stopped);
        if self.terms.constant_value(goes_on) != Some(1) {
            let control = self.control(state, goes_on, Guard::default(), span);
            state.guard = state.guard.with(control, true);
        }
    }

    /// `while (cond) body`, one iteration after the other, up to the bound.
    ///
    /// Iteration k runs when the loop was reached, the conditions of iterations 1..k held
    /// and nothing in iterations 1..k-1 stopped the thread on the way (an out-of-bounds
    /// index, an inner loop past its bound): the guard of the nested branches
    /// `if (c1) { body; if (c2) { body; ... } }`. Written out, that guard holds k literals,
    /// and the events of k iterations O(k^2) of them, which the encoding then pays for
    /// clause by clause. Two chains of controls carry it instead, each link defined from the
    /// previous one (`Control::within`):
    /// - `reached`: iteration k was reached, `reached(k-1) && c_k`;
    /// - `went_on`: `went_on(k-1)` and the literals iteration k-1 added to the guard;
    ///
    /// so an iteration's events are guarded by the loop's guard and the two latest links: a
    /// constant number of literals per loop nesting level. A constant condition adds no link.
    /// The condition of iteration k+1 (k the bound) is the bound hit, recorded as the link
    /// `reached(k+1)`; the rest of the thread is guarded by its negation (the loop exited
    /// within the bound) and by "no iteration stopped the thread" when one could.
    pub(super) fn unroll_loop(
        &mut self,
        state: &mut ThreadState,
        cond_prelude: &[Instr],
        cond: &Expr,
        body: &[Instr],
        span: Span,
    ) {
        // A silent loop runs its own trip count as a counted loop does (below): only where
        // the bound does not apply to it, a condition on a variable of the program's and no
        // GenMC `-unroll` (`--end-threads-at-bound`), which bounds every loop.
        let mut cond_registers = BTreeSet::new();
        registers_of(cond, &mut cond_registers);
        let counts_iterations =
            !self.end_threads_at_bound && cond_registers.iter().any(|&r| !state.temporaries[r]);
        if counts_iterations && self.silent_loop(state, cond_prelude, cond, body) {
            return;
        }
        if self.exitless_loop(state, cond, span) {
            return;
        }
        if self.spin_loop(state, cond_prelude, cond, body) {
            return self.spin(state, cond_prelude, cond, body, span);
        }
        if let Some((prelude, body)) = self.spin_without_unread(state, cond_prelude, cond, body) {
            return self.spin(state, &prelude, cond, &body, span);
        }
        self.block(cond_prelude, state);
        let entry = state.guard.clone();
        let stops_before = state.stops.len();
        let mut reached: Option<ControlId> = None;
        let mut went_on: Option<ControlId> = None;
        // Where the loop may exit: condition k, and the registers when it is false (their
        // values, their dependencies, and the first event after that point).
        let mut exits: Vec<(TermId, Vec<TermId>, Vec<Deps>, EventId)> = Vec::new();
        let outer_ctrl = state.ctrl_deps().clone();
        let mut hit = None;
        let mut remaining = self.unroll;
        // Iterations whose condition is known while unrolling (`for (i = 0; i < N; i++)` on
        // a register) do not count against the bound: the loop runs its own trip count.
        // A condition with no variable of the program's (`for (;;)`, `while (1)`, whose only
        // registers are the flags `break` and `return` set) is no count: such a loop ends by
        // an exit, and stays bounded by --unroll.
        // GenMC's -unroll=N (`--end-threads-at-bound`) bounds every loop, a counted one
        // too (its `LoopUnrollPass` counts the header's visits whatever the condition):
        // `counts_iterations` above.
        // A bound the user raised past the default cap raises the cap too: the loop then
        // runs until its count ends or `--max-events` stops the unrolling.
        let mut known_left = MAX_KNOWN_ITERATIONS.max(self.unroll);
        let link = |c: Option<ControlId>| Guard(c.map(|c| (c, true)).into_iter().collect());
        let flags = if self.end_threads_at_bound {
            exit_flags(cond, &[body, cond_prelude])
        } else {
            BTreeSet::new()
        };
        loop {
            if self.cut {
                self.cut_in_loop.get_or_insert((state.index, span));
                return;
            }
            // Back at the test after the bound's iterations, a thread ended at the bound
            // stops before the test: the hit is reaching it.
            let ends_here = self.end_threads_at_bound && remaining == 0;
            let c = if ends_here {
                // Reached unless a `break` or `return` of the last iteration left the loop.
                let mut reached_test = self.terms.constant(1);
                for &flag in &flags {
                    let zero = self.terms.constant(0);
                    let clear = self.terms.binary(BinaryOp::Eq, state.registers[flag], zero);
                    reached_test = self.terms.binary(BinaryOp::And, reached_test, clear);
                }
                reached_test
            } else {
                let value = self.term(cond, state);
                let zero = self.terms.constant(0);
                self.terms.binary(BinaryOp::Ne, value, zero)
            };
            if self.terms.constant_value(c) == Some(0) {
                break;
            }
            let chained = loop_guard(&entry, went_on, reached);
            debug_assert!(state.guard.0.starts_with(&chained.0));
            if state.guard.0.len() > chained.0.len() {
                let mut within = link(went_on);
                within
                    .0
                    .extend_from_slice(&state.guard.0[chained.0.len()..]);
                let one = self.terms.constant(1);
                went_on = Some(self.control(state, one, within, span));
                state.guard = loop_guard(&entry, went_on, reached);
            }
            let constant = self.terms.constant_value(c).is_some();
            // An iteration under a guard that holds in no execution (the thread stopped
            // for sure in an earlier one) runs in none, and nor do the later ones.
            if self.guard_dead(&state.guard) {
                break;
            }
            let bounded_out = if ends_here {
                true
            } else if constant && counts_iterations {
                known_left = known_left.saturating_sub(1);
                known_left == 0
            } else {
                remaining == 0
            };
            if bounded_out {
                let control = self.control(state, c, link(reached), span);
                // A thread ended at the bound is an execution of the bounded program, not
                // one cut or left out: it stops here, as at a failed address check, so the
                // joins of the branches and loops around this one keep the rest from running.
                if ends_here {
                    let at_test = self.guard_term(&state.guard);
                    let stopped = self.and(at_test, c);
                    state.stops.push((stopped, state.registers.clone()));
                } else {
                    self.bound_hits.push(BoundHit {
                        thread: state.index,
                        guard: state.guard.clone(),
                        control,
                        span,
                    });
                }
                hit = Some(control);
                break;
            }
            if !(constant && counts_iterations) {
                remaining -= 1;
            }
            // The iterations to come are inside this one's branch.
            let cond_deps = self.expr_deps(cond, state);
            for (read, when) in cond_deps {
                let joined = match state.ctrl_get(read) {
                    Some(before) => self.or(before, when),
                    None => when,
                };
                state.ctrl_set(read, Some(joined));
            }
            if !constant {
                let control = self.control(state, c, link(reached), span);
                exits.push((
                    c,
                    state.registers.clone(),
                    state.deps.clone(),
                    self.events.len(),
                ));
                reached = Some(control);
                state.guard = loop_guard(&entry, went_on, reached);
            }
            let before = self.iteration_mark(state);
            self.balanced(state, span, "branch", |b, s| b.block(body, s));
            if !(self.end_threads_at_bound && remaining == 0) {
                self.block(cond_prelude, state);
            }
            let after = self.iteration_mark(state);
            // An iteration that changed nothing under a constant condition repeats forever
            // (`while (1) {}`): every later one is the same, so go to the bound at once.
            if constant && before == after {
                known_left = 1;
                remaining = 0;
            }
        }
        let end = self.events.len();
        for (c, mut at_exit, mut deps_at_exit, went_on_from) in exits.into_iter().rev() {
            // Forwarding's registers made after this exit held their first value there.
            state.pad_forwarded(&mut at_exit, &mut deps_at_exit);
            // Through `set_register`, so that a branch around the loop can undo it.
            let values: Vec<TermId> = at_exit
                .into_iter()
                .enumerate()
                .map(|(reg, value)| self.terms.ite(c, state.registers[reg], value))
                .collect();
            for (reg, (value, exit_deps)) in values.into_iter().zip(deps_at_exit).enumerate() {
                let deps = (exit_deps != state.deps[reg]).then(|| {
                    let later = state.deps[reg].clone();
                    self.merge_deps(c, &later, went_on_from..end, &exit_deps, 0..0)
                });
                if value != state.registers[reg] || deps.is_some() {
                    let deps = deps.unwrap_or_else(|| state.deps[reg].clone());
                    state.set_register(reg, value, deps);
                }
            }
        }
        state.ctrl_replace(outer_ctrl);
        state.guard = entry;
        self.unless_stopped(state, stops_before, span);
        if let Some(hit) = hit {
            state.guard = state.guard.with(hit, false);
        }
    }

    /// Whether the spin-loop reduction takes this loop ([`spin_reducible`] with the thread's
    /// temporaries and the mutexes a spin iteration may take): the retry-loop reductions
    /// leave such a loop to it.
    pub(super) fn spin_loop(
        &self,
        state: &ThreadState,
        prelude: &[Instr],
        cond: &Expr,
        body: &[Instr],
    ) -> bool {
        spin_reducible(&state.temporaries, &self.spin_mutexes, prelude, cond, body)
    }

    /// A spin loop whose failed iterations have no effect (see [`spin_reducible`]): the
    /// entry test, then at most one iteration, after which the loop either exits or waits
    /// forever (`WaitOn::Spin`). Dropping the failed iterations between loses nothing:
    /// they write nothing and leave no register value that anything reads.
    fn spin(
        &mut self,
        state: &mut ThreadState,
        cond_prelude: &[Instr],
        cond: &Expr,
        body: &[Instr],
        span: Span,
    ) {
        let since = self.events.len();
        self.block(cond_prelude, state);
        let iterations = if entry_test_reads_first(cond_prelude, body) {
            1
        } else {
            2
        };
        self.spin_test(
            state,
            cond_prelude,
            cond,
            body,
            span,
            iterations,
            None,
            since,
            true,
        );
    }

    /// An exchange or a compare-exchange of a reduced spin loop (events from `since` on)
    /// that writes a value other than the one it read, in an iteration that goes on
    /// (`going_on`), changes memory: the iterations after it are not those of a failed
    /// iteration, which the reduction drops, so such an execution is cut, as by the bound
    /// (a `BoundHit`), and the rest of the thread is guarded by its negation. One that
    /// writes back what it read leaves every value as it was (docs/unrolling.md, "Spin
    /// loops"). `exit_cas`: the last compare-exchange of the range is the loop's exit, whose
    /// success ends the loop, so that it is not looked at.
    fn changing_exchange(
        &mut self,
        state: &mut ThreadState,
        since: usize,
        going_on: TermId,
        span: Span,
        exit_cas: bool,
    ) {
        let exit_read = exit_cas
            .then(|| {
                (since..self.events.len())
                    .rev()
                    .find(|&e| self.events[e].failure_order.is_some())
            })
            .flatten();
        let mut changes = Vec::new();
        for e in since..self.events.len() {
            let event = &self.events[e];
            let (Some(read), Some(written)) = (event.rmw, event.value) else {
                continue;
            };
            // A compare-exchange's failure writes nothing; its success is a write. A lock's
            // acquisition writes 1 and the unlock of its section, in the same iteration
            // (`flow::spin_reducible`), 0 again.
            if !event.is_write()
                || Some(read) == exit_read
                || self.events[read].kind == EventKind::Lock
            {
                continue;
            }
            let guard = event.guard.clone();
            let old = self.terms.read(read);
            let differs = self.terms.binary(BinaryOp::Ne, old, written);
            let runs = self.guard_term(&guard);
            changes.push(self.and(runs, differs));
        }
        let Some(mut any) = changes.pop() else {
            return;
        };
        for c in changes {
            any = self.terms.binary(BinaryOp::Or, any, c);
        }
        let hit = self.and(going_on, any);
        if self.terms.constant_value(hit) == Some(0) {
            return;
        }
        let control = self.control(state, hit, Guard::default(), span);
        self.bound_hits.push(BoundHit {
            thread: state.index,
            guard: state.guard.clone(),
            control,
            span,
        });
        state.guard = state.guard.with(control, false);
    }

    /// A test of a reduced spin loop and, when it holds, `iterations` more iterations, the
    /// last followed by the wait. `went_on`: the guard under which an earlier test of this
    /// loop held, when one could fail (a `do` loop's first test cannot). `since`: the first
    /// event of the iteration (or entry test) this test ends. `entry`: this is the loop's
    /// entry test.
    #[allow(clippy::too_many_arguments)]
    fn spin_test(
        &mut self,
        state: &mut ThreadState,
        cond_prelude: &[Instr],
        cond: &Expr,
        body: &[Instr],
        span: Span,
        iterations: u32,
        went_on: Option<Guard>,
        since: usize,
        entry: bool,
    ) {
        let changed = self.enter_condition(state, cond);
        let value = self.term(cond, state);
        let zero = self.terms.constant(0);
        let entered = self.terms.binary(BinaryOp::Ne, value, zero);
        let exit_cas = ends_with_exit_cas(cond_prelude, cond);
        self.changing_exchange(state, since, entered, span, exit_cas);
        let can_fail = self.terms.constant_value(entered).is_none();
        self.branch(
            state,
            entered,
            span,
            |b, s| {
                let fresh = went_on.is_none() && can_fail;
                let went_on = went_on.or_else(|| can_fail.then(|| s.guard.clone()));
                let first = b.events.len();
                b.block(body, s);
                // The entry test of a `while` loop is GenMC's loop header: the iteration
                // after it takes the back edge only if its body did not `break` or
                // `return` (a `do` loop's first real test is its back edge already).
                let went_on = match went_on {
                    Some(g) if fresh && entry => {
                        Some(b.not_exited(s, g, cond, body, cond_prelude, span))
                    }
                    other => other,
                };
                b.block(cond_prelude, s);
                if b.cut {
                    return;
                }
                if iterations > 1 {
                    return b.spin_test(
                        s,
                        cond_prelude,
                        cond,
                        body,
                        span,
                        iterations - 1,
                        went_on,
                        first,
                        false,
                    );
                }
                let reads = b.events[first..]
                    .iter()
                    .filter(|e| e.is_read())
                    .map(|e| e.id)
                    .collect();
                let value = b.term(cond, s);
                let zero = b.terms.constant(0);
                let spinning = b.terms.binary(BinaryOp::Ne, value, zero);
                b.changing_exchange(s, first, spinning, span, exit_cas);
                let on = WaitOn::Spin {
                    reads,
                    loop_span: span,
                    went_on: went_on.unwrap_or_else(|| s.guard.clone()),
                };
                b.wait(s, Some(spinning), on, span);
            },
            |_, _| {},
        );
        Builder::leave_condition(state, changed);
    }

    /// A point where the thread may block forever: a `Wait` event whose value (`blocked`,
    /// 0 or 1, or a free choice when `None`) says whether it does; the rest of the thread
    /// runs only when it does not, and keeps its registers as they are here when it does.
    /// Returns the wait's index in [`Events::waits`](crate::events::Events::waits), `None`
    /// when it can never block.
    pub(super) fn wait(
        &mut self,
        state: &mut ThreadState,
        blocked: Option<TermId>,
        on: WaitOn,
        span: Span,
    ) -> Option<usize> {
        if blocked.is_some_and(|b| self.terms.constant_value(b) == Some(0)) {
            return None;
        }
        let id = self.emit(
            state,
            Event {
                kind: EventKind::Wait,
                ..blank_event(None, 0, span)
            },
        );
        let blocked = blocked.unwrap_or_else(|| self.terms.read(id));
        self.events[id].value = Some(blocked);
        self.waits.push(WaitPoint {
            event: id,
            thread: state.index,
            on,
        });
        let zero = self.terms.constant(0);
        let blocks = self.terms.binary(BinaryOp::Ne, blocked, zero);
        let goes_on = self.terms.unary(UnaryOp::Not, blocks);
        self.stop_when(state, blocks, goes_on, span);
        Some(self.waits.len() - 1)
    }

    /// The thread stops here when `stops` holds (it is reached and `stops` is non-zero), with
    /// its registers as they are here; the rest of it runs under `goes_on`, the negation
    /// of `stops`.
    pub(super) fn stop_when(
        &mut self,
        state: &mut ThreadState,
        stops: TermId,
        goes_on: TermId,
        span: Span,
    ) -> ControlId {
        let reached = self.guard_term(&state.guard);
        let stopped = self.and(reached, stops);
        state.stops.push((stopped, state.registers.clone()));
        let control = self.control(state, goes_on, Guard::default(), span);
        state.guard = state.guard.with(control, true);
        control
    }
}
