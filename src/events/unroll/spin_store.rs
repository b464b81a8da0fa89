//! Loops with stores whose iterations that write nothing are dropped (GenMC's SAVer on
//! `spin-plain+se`: `while (1) { if (x == 42) continue; else x = 42; }`). Such a loop is
//! no spin loop (`flow::spin_reducible`): an iteration may store. It is unrolled up to the
//! bound as any loop, and an iteration that wrote nothing and goes on is treated as a
//! spin loop's failed iteration: after two of them in a row the thread waits
//! (`WaitOn::Spin`, blocked for good only where their reads read the coherence-last
//! writes), and `--count` leaves out every execution in which one goes on, as GenMC's
//! spin-assume blocks it. docs/unrolling.md, "Iterations that write nothing", says why
//! nothing is lost.

use std::collections::BTreeSet;

use super::flow::{exit_flags, negated_register, pinned_zero, Flow};
use super::{blank_event, Builder, ThreadState};
use crate::diagnostics::Span;
use crate::events::{Event, EventKind, Guard, TermId, WaitOn, WaitPoint};
use crate::program::{BinaryOp, Expr, Instr, RegId, UnaryOp};

/// Whether `instrs` hold a store, at any depth.
fn stores(instrs: &[Instr]) -> bool {
    instrs
        .iter()
        .any(|i| matches!(i, Instr::Store { .. }) || i.nested().into_iter().any(stores))
}

/// Whether `while (cond) body` (the condition's accesses in `prelude`) is such a loop: it
/// stores, and its iteration `body; prelude; cond` passes the register checks of a spin
/// loop ([`super::flow::spin_reducible`]) with stores at fixed addresses allowed and no
/// read-modify-write but the exit compare-exchange: it reads no register it writes
/// before writing it (the condition's pinned flags aside) and writes each register it
/// writes on every path (temporaries and pinned flags aside), so that an iteration that
/// writes nothing can be deleted from an execution: the next one computes the same values,
/// and the last leaves every register as the original does.
pub(super) fn store_loop_reducible(
    temporaries: &[bool],
    prelude: &[Instr],
    cond: &Expr,
    body: &[Instr],
) -> bool {
    if !stores(prelude) && !stores(body) {
        return false;
    }
    let mut flow = Flow::default();
    flow.stores = true;
    if !flow.follow(body, None) || !flow.follow(prelude, negated_register(cond)) {
        return false;
    }
    flow.uses(cond);
    let flags = pinned_zero(cond);
    (&flow.exposed - &flags).is_disjoint(&flow.written)
        && flow
            .written
            .iter()
            .all(|r| flow.surely.contains(r) || temporaries[*r] || flags.contains(r))
}

/// The unrolling's record of the last two iterations of such a loop.
pub(super) struct QuietIterations {
    /// The flags `break` and `return` set ([`exit_flags`]): an iteration that sets one
    /// leaves the loop without coming back to its test.
    flags: BTreeSet<RegId>,
    /// The first event of the iteration being unrolled, and the guard it begins under.
    first: usize,
    guard: Guard,
    /// Whether the iteration before the last wrote nothing, and whether the last did.
    before: Option<TermId>,
    last: Option<TermId>,
    /// The reads of the last iteration (its body and the next test's prelude).
    reads: Vec<usize>,
}

impl QuietIterations {
    pub(super) fn new(cond: &Expr, body: &[Instr], prelude: &[Instr]) -> QuietIterations {
        QuietIterations {
            flags: exit_flags(cond, &[body, prelude]),
            first: 0,
            guard: Guard::default(),
            before: None,
            last: None,
            reads: Vec::new(),
        }
    }
}

impl Builder {
    /// An iteration of such a loop begins.
    pub(super) fn quiet_begin(&mut self, state: &ThreadState, quiet: &mut QuietIterations) {
        quiet.first = self.events.len();
        quiet.guard = state.guard.clone();
    }

    /// An iteration of such a loop (with the next test's prelude) ends: whether it wrote
    /// nothing, as a term.
    pub(super) fn quiet_end(&mut self, quiet: &mut QuietIterations) {
        let mut wrote_nothing = self.terms.constant(1);
        let mut reads = Vec::new();
        for e in quiet.first..self.events.len() {
            let event = &self.events[e];
            if event.is_read() {
                reads.push(e);
            }
            if !event.is_write() {
                continue;
            }
            // Whether it runs, given that the iteration does (the terms are read at the
            // next test, which only an iteration that ran reaches): a store every path of
            // the iteration makes gives the constant 0, and the loop no wait.
            let guard = match event.guard.0.strip_prefix(quiet.guard.0.as_slice()) {
                Some(within) => Guard(within.to_vec()),
                None => event.guard.clone(),
            };
            let runs = self.guard_term(&guard);
            let not = self.terms.unary(UnaryOp::Not, runs);
            wrote_nothing = self.and(wrote_nothing, not);
        }
        quiet.before = quiet.last.replace(wrote_nothing);
        quiet.reads = reads;
    }

    /// The loop's test after an iteration, whose condition is `c`. An iteration that wrote
    /// nothing and came back to the test (it set no exit flag) is one GenMC's SAVer blocks
    /// at the loop's head, before the test: `--count` leaves out the executions that have
    /// one (deleting it, with the test before it, gives one that does not). Where the
    /// iteration before it also wrote nothing, and `c` holds, the thread waits.
    pub(super) fn quiet_test(
        &mut self,
        state: &mut ThreadState,
        quiet: &QuietIterations,
        c: TermId,
        span: Span,
    ) {
        let Some(last) = quiet.last else {
            return;
        };
        let mut came_back = last;
        for &flag in &quiet.flags {
            let zero = self.terms.constant(0);
            let clear = self.terms.binary(BinaryOp::Eq, state.registers[flag], zero);
            came_back = self.and(came_back, clear);
        }
        if self.terms.constant_value(came_back) == Some(0) {
            return;
        }
        let went_on = self.and(last, c);
        let control = self.control(state, came_back, state.guard.clone(), span);
        let on = WaitOn::Spin {
            reads: quiet.reads.clone(),
            loop_span: span,
            went_on: state.guard.with(control, true),
        };
        let blocked = match quiet.before {
            Some(before) => self.and(before, went_on),
            None => self.terms.constant(0),
        };
        if self.terms.constant_value(blocked) != Some(0) {
            self.wait(state, Some(blocked), on, span);
            return;
        }
        // Never blocks, but still an iteration that went on, which `--count` leaves out:
        // a wait whose value is 0.
        let zero = self.terms.constant(0);
        let id = self.emit(
            state,
            Event {
                kind: EventKind::Wait,
                value: Some(zero),
                ..blank_event(None, 0, span)
            },
        );
        self.waits.push(WaitPoint {
            event: id,
            thread: state.index,
            on,
        });
    }
}
