//! Each instruction's events, one function per kind of instruction.

use super::{blank_event, Builder, DepKind, ThreadState};
use crate::diagnostics::{Diagnostic, Span};
use crate::events::{Event, EventKind, TermId, WaitOn};
use crate::program::{
    Address, BinaryOp, Expected, Expr, Instr, LocId, MemOrder, RegId, RmwOp, Tags, UnaryOp,
};

impl Builder {
    /// One instruction's events, by kind: memory accesses, a register's assignment, control
    /// flow, locks, atomic blocks, calls and checks.
    pub(super) fn instr(&mut self, instr: &Instr, state: &mut ThreadState) {
        match instr {
            Instr::Load {
                dst,
                loc,
                order,
                tags,
                span,
            } => self.load(state, *dst, loc, *order, tags, *span),
            Instr::Store {
                loc,
                value,
                order,
                tags,
                span,
            } => self.store(state, loc, value, *order, tags, *span),
            Instr::Rmw {
                dst,
                loc,
                op,
                operand,
                order,
                tags,
                unless,
                failure_tags,
                span,
            } => self.rmw(
                state,
                *dst,
                loc,
                *op,
                operand,
                unless.as_ref(),
                *order,
                (tags, failure_tags),
                *span,
            ),
            Instr::CompareExchange {
                dst,
                loc,
                expected,
                desired,
                success,
                failure,
                weak: _,
                tags,
                failure_tags,
                span,
            } => self.compare_exchange(
                state,
                *dst,
                loc,
                *expected,
                desired,
                (*success, *failure),
                (tags, failure_tags),
                *span,
            ),
            Instr::Fence {
                order,
                tags,
                loc,
                span,
            } => self.fence(state, *order, tags, *loc, *span),
            Instr::Assign { dst, value, span } => self.assign(state, *dst, value, *span),
            Instr::If {
                cond,
                then_branch,
                else_branch,
                span,
            } => {
                state.join = state.liveness.join(instr);
                self.if_else(state, cond, then_branch, else_branch, *span)
            }
            Instr::While {
                cond_prelude,
                cond,
                body,
                span,
            } => self.unroll_loop(state, cond_prelude, cond, body, *span),
            Instr::Lock { loc, span } if self.herd_locks[*loc] => {
                self.herd_lock(state, *loc, *span)
            }
            Instr::Unlock { loc, span } if self.herd_locks[*loc] => {
                self.herd_unlock(state, *loc, *span)
            }
            Instr::Lock { loc, span } if self.memory_mutexes[*loc] => {
                self.memory_lock(state, *loc, *span)
            }
            Instr::Unlock { loc, span } if self.memory_mutexes[*loc] => {
                self.memory_unlock(state, *loc, *span)
            }
            Instr::Lock { loc, span } => self.mutex_lock(state, *loc, *span),
            Instr::Unlock { loc, span } => self.mutex_unlock(state, *loc, *span),
            Instr::AtomicBlock { body, span } => self.atomic_block(state, body, *span),
            Instr::CallEnter { call, bind, span } => self.enter_call(state, *call, bind, *span),
            Instr::CallExit { call, .. } => self.exit_call(state, *call),
            Instr::CheckIndex { index, limit, span } => {
                self.check_index(state, index, *limit, *span)
            }
            Instr::Assert { cond, span } => {
                self.check(state, EventKind::Assert, cond, *span);
            }
            Instr::Check { cond, kind, span } => {
                self.check(state, EventKind::Assert, cond, *span);
                if let Some(&event) = state.events.last() {
                    self.library_checks.insert(event, *kind);
                }
            }
            Instr::Assume { cond, span } => {
                let after_flag = self.follows_thread_flag_read(state);
                let holds = self.check(state, EventKind::Assume, cond, *span);
                if after_flag {
                    // The assumption may fail without blocking the execution: a create
                    // that did not run, a joined thread cut at the unrolling bound
                    // (`encode`'s `flag_waits_released`). The thread stops here then.
                    let fails = self.terms.unary(UnaryOp::Not, holds);
                    self.stop_when(state, fails, holds, *span);
                }
            }
            Instr::Alloc { cells, span } => self.alloc(state, cells, *span),
            Instr::Free { ptr, span } => self.free(state, ptr, *span),
        }
    }

    fn load(
        &mut self,
        state: &mut ThreadState,
        dst: RegId,
        loc: &Address,
        order: MemOrder,
        tags: &Tags,
        span: Span,
    ) {
        let addr = self.address_deps(loc, state);
        self.at(state, loc, span, &|b, s, loc| {
            let id = b.read(s, loc, order, span);
            b.events[id].tags.clone_from(tags);
            b.events[id].register = Some(dst);
            let value = b
                .forwarded(s, loc, order)
                .unwrap_or_else(|| b.terms.read(id));
            b.depend(DepKind::Addr, &addr, id);
            let deps = b.read_deps(id);
            s.set_register(dst, value, deps);
        })
    }

    fn store(
        &mut self,
        state: &mut ThreadState,
        loc: &Address,
        value: &Expr,
        order: MemOrder,
        tags: &Tags,
        span: Span,
    ) {
        let data = self.expr_deps(value, state);
        let value = self.term(value, state);
        let addr = self.address_deps(loc, state);
        self.at(state, loc, span, &|b, s, loc| {
            b.storing = true;
            let id = b.write(s, loc, value, order, span);
            b.storing = false;
            b.events[id].tags.clone_from(tags);
            b.depend(DepKind::Addr, &addr, id);
            b.depend(DepKind::Data, &data, id);
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn rmw(
        &mut self,
        state: &mut ThreadState,
        dst: Option<RegId>,
        loc: &Address,
        op: RmwOp,
        operand: &Expr,
        unless: Option<&Expr>,
        order: MemOrder,
        (tags, failure_tags): (&Tags, &Tags),
        span: Span,
    ) {
        let data = self.expr_deps(operand, state);
        let operand = self.term(operand, state);
        let unless = unless.map(|u| self.term(u, state));
        let addr = self.address_deps(loc, state);
        self.at(state, loc, span, &|b, s, loc| {
            let read = b.read(s, loc, order, span);
            b.events[read].tags.clone_from(tags);
            b.depend(DepKind::Addr, &addr, read);
            b.events[read].register = dst;
            let old = b.terms.read(read);
            let new = match op {
                RmwOp::Exchange => operand,
                RmwOp::Fetch(op) => b.terms.binary(op, old, operand),
                RmwOp::Extreme { min, unsigned } => {
                    // Unsigned order is signed order with the sign bits flipped.
                    let (x, y) = if unsigned {
                        let sign = b.terms.constant(i32::MIN);
                        (
                            b.terms.binary(BinaryOp::BitXor, old, sign),
                            b.terms.binary(BinaryOp::BitXor, operand, sign),
                        )
                    } else {
                        (old, operand)
                    };
                    let old_less = b.terms.binary(BinaryOp::Lt, x, y);
                    if min {
                        b.terms.ite(old_less, old, operand)
                    } else {
                        b.terms.ite(old_less, operand, old)
                    }
                }
            };
            let write_half = |b: &mut Builder, s: &mut ThreadState| {
                let write = b.write(s, loc, new, order, span);
                b.events[write].tags.clone_from(tags);
                b.link_rmw(read, write);
                b.depend(DepKind::Addr, &addr, write);
                b.depend(DepKind::Data, &data, write);
            };
            match unless {
                None => write_half(b, s),
                Some(unless) => {
                    // A failure is the read alone, unordered, as the kernel's
                    // failed compare-exchange (`__cmpxchg`'s failure is relaxed).
                    b.events[read].failure_order = Some(MemOrder::Relaxed);
                    b.events[read].failure_tags.clone_from(failure_tags);
                    let adds = b.terms.binary(BinaryOp::Ne, old, unless);
                    b.branch(s, adds, span, write_half, |_, _| {});
                }
            }
            if let Some(dst) = dst {
                let deps = b.read_deps(read);
                s.set_register(dst, old, deps);
            }
        });
    }

    fn fence(
        &mut self,
        state: &mut ThreadState,
        order: MemOrder,
        tags: &Tags,
        location: Option<LocId>,
        span: Span,
    ) {
        self.emit(
            state,
            Event {
                kind: EventKind::Fence,
                order,
                tags: tags.clone(),
                location,
                ..blank_event(None, 0, span)
            },
        );
    }

    fn assign(&mut self, state: &mut ThreadState, dst: RegId, value: &Expr, span: Span) {
        let value_deps = self.expr_deps(value, state);
        let value = self.term(value, state);
        let previous_access = state
            .events
            .iter()
            .rev()
            .copied()
            .find(|&e| self.events[e].is_memory());
        let marker = self.emit(
            state,
            Event {
                kind: EventKind::Computation,
                register: Some(dst),
                value: Some(value),
                ..blank_event(None, 0, span)
            },
        );
        state.set_register(dst, value, value_deps);
        let annotation = state
            .ordering_point_registers
            .iter()
            .find(|(r, _)| *r == dst)
            .map(|&(_, kind)| kind);
        if let Some(kind) = annotation {
            self.ordering_point(state, kind, previous_access, marker, value, span);
        }
    }

    fn if_else(
        &mut self,
        state: &mut ThreadState,
        cond: &Expr,
        then_branch: &[Instr],
        else_branch: &[Instr],
        span: Span,
    ) {
        let changed = self.enter_condition(state, cond);
        let term = self.term(cond, state);
        let cond = self.chain_case(state, cond, term);
        self.branch(
            state,
            cond,
            span,
            |b, s| b.block(then_branch, s),
            |b, s| b.block(else_branch, s),
        );
        Builder::leave_condition(state, changed);
    }

    /// herd's spin_lock: a read (LKR, Acquire) and a write of 1 (LKW) linked as one
    /// read-modify-write. It always runs; the encoding requires it to read 0, so an
    /// execution in which it cannot (the lock is held for good, or by this thread:
    /// lock.cat's `unmatched-locks` and `lock-nest`) does not exist. Nothing pairs it with
    /// an unlock: lock.cat matches them in each execution.
    fn herd_lock(&mut self, state: &mut ThreadState, loc: LocId, span: Span) {
        self.acquire(state, loc, span, vec!["acquire".to_string()]);
    }

    /// herd's spin_unlock: a write of 0 with Release ordering (UL).
    fn herd_unlock(&mut self, state: &mut ThreadState, loc: LocId, span: Span) {
        self.release(state, loc, span, None, vec!["release".to_string()]);
    }

    fn mutex_lock(&mut self, state: &mut ThreadState, loc: LocId, span: Span) {
        // Only where the mutex may be held for good: elsewhere a lock never blocks
        // forever, and costs no wait.
        let contended = self.may_stay_held[loc] || state.held.iter().any(|h| h.0 == loc);
        let wait = contended.then(|| {
            let on = WaitOn::Mutex {
                loc,
                lock: usize::MAX,
            };
            self.wait(state, None, on, span)
        });
        let read = self.acquire(state, loc, span, Vec::new());
        if let Some(WaitOn::Mutex { lock, .. }) = wait.flatten().map(|w| &mut self.waits[w].on) {
            *lock = read;
        }
        state.held.push((loc, read, span));
    }

    fn mutex_unlock(&mut self, state: &mut ThreadState, loc: LocId, span: Span) {
        let Some(position) = state.held.iter().rposition(|&(l, _, _)| l == loc) else {
            self.errors.push(
                Diagnostic::new("unlock of a lock this thread does not hold", span)
                    .with_label("no matching lock before this unlock")
                    .with_help("every `unlock(l)` must follow a `lock(l)` in the same block"),
            );
            return;
        };
        let (_, lock, _) = state.held.remove(position);
        let unlock = self.release(state, loc, span, Some(lock), Vec::new());
        self.events[lock].lock_match = Some(unlock);
    }

    fn atomic_block(&mut self, state: &mut ThreadState, body: &[Instr], span: Span) {
        let enter = self.emit(
            state,
            Event {
                kind: EventKind::AtomicEnter,
                ..blank_event(None, 0, span)
            },
        );
        self.balanced(state, span, "atomic block", |b, s| b.block(body, s));
        let exit = self.emit(
            state,
            Event {
                kind: EventKind::AtomicExit,
                atomic_match: Some(enter),
                ..blank_event(None, 0, span)
            },
        );
        self.events[enter].atomic_match = Some(exit);
    }

    fn check_index(&mut self, state: &mut ThreadState, index: &Expr, limit: u32, span: Span) {
        let index = self.term(index, state);
        let limit = limit as usize;
        let in_bounds = self.index_within(index, limit);
        self.check_access(state, in_bounds, index, Some(limit), span);
    }

    /// An `assert` or an `assume` (`kind`) of `cond`; the condition's term.
    pub(super) fn check(
        &mut self,
        state: &mut ThreadState,
        kind: EventKind,
        cond: &Expr,
        span: Span,
    ) -> TermId {
        let value = self.term(cond, state);
        self.emit(
            state,
            Event {
                kind,
                value: Some(value),
                ..blank_event(None, 0, span)
            },
        );
        value
    }

    /// Whether the thread's last event reads a create or join flag: the assumption that
    /// follows is the wait for it.
    fn follows_thread_flag_read(&self, state: &ThreadState) -> bool {
        state.events.last().is_some_and(|&e| {
            let event = &self.events[e];
            event.is_read()
                && event
                    .location
                    .is_some_and(|l| self.thread_flags.get(l).copied().unwrap_or(false))
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn compare_exchange(
        &mut self,
        state: &mut ThreadState,
        dst: Option<usize>,
        loc: &Address,
        expected: Expected,
        desired: &Expr,
        (success, failure): (MemOrder, MemOrder),
        (tags, failure_tags): (&Tags, &Tags),
        span: Span,
    ) {
        let (expected_value, expected_deps) = match expected {
            Expected::Location(e) => {
                let read = self.read(state, e, MemOrder::NonAtomic, span);
                (self.terms.read(read), self.read_deps(read))
            }
            Expected::Register(r) => (state.registers[r], state.deps[r].clone()),
        };
        let data = self.expr_deps(desired, state);
        let desired = self.term(desired, state);
        let addr = self.address_deps(loc, state);
        self.at(state, loc, span, &|b, s, loc| {
            let read = b.read(s, loc, success, span);
            b.events[read].failure_order = Some(failure);
            b.events[read].tags.clone_from(tags);
            b.events[read].failure_tags.clone_from(failure_tags);
            b.depend(DepKind::Addr, &addr, read);
            let old = b.terms.read(read);
            let succeeded = b.terms.binary(BinaryOp::Eq, old, expected_value);
            b.branch(
                s,
                succeeded,
                span,
                |b, s| {
                    let write = b.write(s, loc, desired, success, span);
                    b.events[write].tags.clone_from(tags);
                    b.link_rmw(read, write);
                    b.depend(DepKind::Addr, &addr, write);
                    b.depend(DepKind::Data, &data, write);
                },
                |b, s| match expected {
                    Expected::Location(e) => {
                        let write = b.write(s, e, old, MemOrder::NonAtomic, span);
                        let old_deps = b.read_deps(read);
                        b.depend(DepKind::Data, &old_deps, write);
                    }
                    Expected::Register(r) => {
                        let deps = b.read_deps(read);
                        s.set_register(r, old, deps);
                    }
                },
            );
            if let Some(dst) = dst {
                let mut deps = b.read_deps(read);
                b.add_deps(&mut deps, &expected_deps);
                s.set_register(dst, succeeded, deps);
            }
        });
    }
}
