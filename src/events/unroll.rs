//! Unrolling each thread into guarded events.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use std::collections::BTreeSet;

use super::{
    bounds, AccessCheck, BoundHit, Call, CallArgValue, CallId, Control, ControlId, Dependencies,
    Dependency, Event, EventId, EventKind, Events, Guard, OrderingPoint, TermId, Terms, WaitOn,
    WaitPoint,
};
use crate::diagnostics::Span;
use crate::diagnostics::{Diagnostic, InputError};
use crate::program::{
    Address, CallArg, CallSite, CallSiteId, Expected, Expr, Instr, LocId, MemOrder, PointKind,
    PointerOffset, Program, RegId, RmwOp, ThreadProgram,
};
use crate::program::{BinaryOp, UnaryOp};

#[derive(Clone, Copy, Debug)]
pub struct UnrollOptions {
    /// How many iterations of each loop to unroll.
    pub unroll: u32,
    /// Stop unrolling as soon as the program has more events than this.
    pub max_events: Option<usize>,
}

impl Default for UnrollOptions {
    fn default() -> Self {
        UnrollOptions {
            unroll: 2,
            max_events: None,
        }
    }
}

/// The program has more events than [`UnrollOptions::max_events`] allows. The unrolling
/// stopped when the count passed the limit, so the total is not known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooManyEvents {
    pub max: usize,
}

impl fmt::Display for TooManyEvents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "more than {} events exceed --max-events {}",
            self.max, self.max
        )
    }
}

/// Why a program did not become events.
#[derive(Clone, Debug)]
pub enum UnrollError {
    /// Structural problems of the input that only show on the control-flow structure:
    /// unbalanced locks and atomic blocks.
    Input(InputError),
    /// A limit, not a problem of the input.
    TooManyEvents(TooManyEvents),
}

/// Unroll every thread of `program`, or stop as soon as it has more events than
/// `options.max_events`: the limit bounds the work, not only the analysis after it.
pub fn unroll(program: &Program, options: UnrollOptions) -> Result<Events, UnrollError> {
    let mut builder = Builder {
        events: Vec::new(),
        terms: Terms::default(),
        controls: Vec::new(),
        bound_hits: Vec::new(),
        calls: Vec::new(),
        errors: Vec::new(),
        unroll: options.unroll,
        max_events: options.max_events,
        cut: false,
        control_terms: HashMap::new(),
        waits: Vec::new(),
        may_stay_held: may_stay_held(program),
        herd_locks: program.locations.iter().map(|l| l.herd_lock).collect(),
        addresses: program.locations.iter().map(|l| l.address).collect(),
        access_checks: BTreeMap::new(),
        address_controls: Default::default(),
        ordering_points: Vec::new(),
        dependencies: Dependencies::default(),
    };
    let mut init = Vec::new();
    for (loc, location) in program.locations.iter().enumerate() {
        if builder.cut {
            break;
        }
        let value = builder.terms.constant(location.initial);
        let id = builder.push(Event {
            kind: EventKind::Init,
            location: Some(loc),
            value: Some(value),
            order: if location.declared_atomic {
                MemOrder::Relaxed
            } else {
                MemOrder::NonAtomic
            },
            ..blank_event(None, 0, Span::default())
        });
        init.push(id);
    }
    let mut threads = Vec::new();
    let mut final_registers = Vec::new();
    for (index, thread) in program.threads.iter().enumerate() {
        if builder.cut {
            break;
        }
        let (events, registers) = builder.thread(index, thread);
        threads.push(events);
        final_registers.push(registers);
    }
    // Problems found before a cut are certain: the input is wrong whatever its size.
    if !builder.errors.is_empty() {
        return Err(UnrollError::Input(InputError::new(
            &program.source,
            builder.errors,
        )));
    }
    if let (true, Some(max)) = (builder.cut, builder.max_events) {
        return Err(UnrollError::TooManyEvents(TooManyEvents { max }));
    }
    let mut events = Events {
        events: builder.events,
        terms: builder.terms,
        controls: builder.controls,
        threads,
        init,
        final_registers,
        bound_hits: builder.bound_hits,
        block_at_bound: false,
        waits: builder.waits,
        calls: builder.calls,
        access_checks: builder.access_checks,
        address_controls: builder.address_controls,
        ordering_points: builder.ordering_points,
        dependencies: builder.dependencies,
        unroll: options.unroll,
        spec: None,
        bounds: bounds::Bounds::default(),
    };
    events.spec = super::spec::histories(program, &mut events);
    events.bounds = bounds::compute(&events);
    Ok(events)
}

/// The guard of a loop's iterations: the loop's own, then the latest links of its chains.
fn loop_guard(entry: &Guard, went_on: Option<ControlId>, reached: Option<ControlId>) -> Guard {
    let mut guard = entry.clone();
    guard.0.extend(went_on.map(|c| (c, true)));
    guard.0.extend(reached.map(|c| (c, true)));
    guard
}

fn blank_event(thread: Option<usize>, position: usize, span: Span) -> Event {
    Event {
        id: 0,
        thread,
        position,
        kind: EventKind::Computation,
        location: None,
        value: None,
        register: None,
        guard: Guard::default(),
        order: MemOrder::NonAtomic,
        failure_order: None,
        tags: Vec::new(),
        failure_tags: Vec::new(),
        rmw: None,
        lock_match: None,
        atomic_match: None,
        control: None,
        call: None,
        span,
    }
}

struct Builder {
    events: Vec<Event>,
    terms: Terms,
    controls: Vec<Control>,
    bound_hits: Vec<BoundHit>,
    calls: Vec<Call>,
    errors: Vec<Diagnostic>,
    unroll: u32,
    max_events: Option<usize>,
    /// The events passed `max_events`: every recursion returns at once.
    cut: bool,
    /// Per control, once asked for: a term that is 1 exactly when it is true.
    control_terms: HashMap<ControlId, TermId>,
    waits: Vec<WaitPoint>,
    /// Per location: some critical section of it may never release it (see
    /// [`may_stay_held`]), so that a `lock` of it may wait forever.
    may_stay_held: Vec<bool>,
    /// Per location: a spin lock of herd's `lock.cat` ([`crate::program::Location::herd_lock`]).
    herd_locks: Vec<bool>,
    /// Per location, its address: the keys of an access through a pointer.
    addresses: Vec<i32>,
    access_checks: BTreeMap<EventId, AccessCheck>,
    address_controls: std::collections::BTreeSet<EventId>,
    ordering_points: Vec<OrderingPoint>,
    dependencies: Dependencies,
}

/// The reads a value depends on syntactically, each with the condition (a term, non-zero
/// when it holds) under which it does: the constant 1 but after a join whose branches
/// differ (see [`Dependency`]).
type Deps = BTreeMap<EventId, TermId>;

/// Which of herd's dependencies.
#[derive(Clone, Copy)]
enum DepKind {
    Addr,
    Data,
    Ctrl,
}

/// The state of one thread while unrolling it.
struct ThreadState {
    index: usize,
    events: Vec<EventId>,
    /// The current symbolic value of each register.
    registers: Vec<TermId>,
    /// Per register, the reads its value depends on (syntactically).
    deps: Vec<Deps>,
    /// The reads the conditions of the enclosing branches and loop iterations depend on:
    /// every access and fence emitted here depends on them by `ctrl`.
    ctrl: Deps,
    guard: Guard,
    /// Locks held, innermost last: (location, lock event, source of the lock).
    held: Vec<(LocId, EventId, Span)>,
    /// Where the thread may stop (an out-of-bounds index): the condition under which it
    /// stops there, and its registers at that point, which are its final ones then.
    stops: Vec<(TermId, Vec<TermId>)>,
    /// Per register: lowering introduced it for one expression (see `spin_reducible`).
    temporaries: Vec<bool>,
    /// The thread's call sites, and the calls being unrolled, innermost last.
    sites: Vec<CallSite>,
    open_calls: Vec<CallId>,
    /// Per function, its calls unrolled so far in this thread.
    call_counts: HashMap<String, usize>,
    /// The registers of the thread's ordering-point annotations.
    ordering_point_registers: Vec<(RegId, PointKind)>,
    /// The potential ordering points of the current method call (the thread's own call):
    /// label, access, and the term that holds when the annotation ran.
    potentials: Vec<(i32, EventId, TermId)>,
    /// The ordering points recorded before the current method call began.
    call_points_start: usize,
}

impl Builder {
    fn push(&mut self, mut event: Event) -> EventId {
        let id = self.events.len();
        event.id = id;
        self.events.push(event);
        if self.max_events.is_some_and(|max| self.events.len() > max) {
            self.cut = true;
        }
        id
    }

    fn thread(&mut self, index: usize, thread: &ThreadProgram) -> (Vec<EventId>, Vec<TermId>) {
        let registers: Vec<TermId> = thread
            .registers
            .iter()
            .map(|r| self.terms.constant(r.initial))
            .collect();
        let mut state = ThreadState {
            index,
            events: Vec::new(),
            deps: vec![Deps::new(); registers.len()],
            ctrl: Deps::new(),
            registers,
            guard: Guard::default(),
            held: Vec::new(),
            stops: Vec::new(),
            temporaries: thread.registers.iter().map(|r| r.temporary).collect(),
            sites: thread.calls.clone(),
            open_calls: Vec::new(),
            call_counts: HashMap::new(),
            ordering_point_registers: thread.ordering_points.clone(),
            potentials: Vec::new(),
            call_points_start: self.ordering_points.len(),
        };
        self.block(&thread.body, &mut state);
        // A thread that stopped keeps the registers it had there: later assignments are
        // guarded events, but register values are terms, which know no guards.
        for (stopped, registers) in std::mem::take(&mut state.stops).into_iter().rev() {
            for (reg, at_stop) in registers.into_iter().enumerate() {
                state.registers[reg] = self.terms.ite(stopped, at_stop, state.registers[reg]);
            }
        }
        for &(_, _, span) in &state.held {
            self.errors.push(
                Diagnostic::new("the thread ends while holding this lock", span)
                    .with_label("lock taken here is never released")
                    .with_help("release every lock with `unlock` before the thread ends"),
            );
        }
        (state.events, state.registers)
    }

    fn emit(&mut self, state: &mut ThreadState, event: Event) -> EventId {
        let id = self.push(Event {
            thread: Some(state.index),
            position: state.events.len(),
            guard: state.guard.clone(),
            call: state.open_calls.last().copied(),
            ..event
        });
        state.events.push(id);
        let kind = self.events[id].kind;
        if self.events[id].is_memory() || kind == EventKind::Fence {
            let ctrl = state.ctrl.clone();
            self.depend(DepKind::Ctrl, &ctrl, id);
        }
        id
    }

    /// The reads `expr` depends on: those of the registers it names.
    fn expr_deps(&mut self, expr: &Expr, state: &ThreadState) -> Deps {
        let mut registers = BTreeSet::new();
        registers_of(expr, &mut registers);
        let mut deps = Deps::new();
        for r in registers {
            self.add_deps(&mut deps, &state.deps[r]);
        }
        deps
    }

    /// `into |= more`, a read's conditions joined by "or".
    fn add_deps(&mut self, into: &mut Deps, more: &Deps) {
        for (&read, &when) in more {
            let joined = match into.get(&read) {
                Some(&before) => self.or(before, when),
                None => when,
            };
            into.insert(read, joined);
        }
    }

    /// The dependencies of a value merged at a join: `then` where `cond` holds, `other`
    /// elsewhere. A read emitted on one side only (in `then_events` or `other_events`)
    /// does not run on the other, so its condition need not say which side ran.
    fn merge_deps(
        &mut self,
        cond: TermId,
        then: &Deps,
        then_events: std::ops::Range<EventId>,
        other: &Deps,
        other_events: std::ops::Range<EventId>,
    ) -> Deps {
        let zero = self.terms.constant(0);
        let mut merged = Deps::new();
        for &read in then.keys().chain(other.keys()) {
            let (a, b) = (then.get(&read).copied(), other.get(&read).copied());
            let when = match (a, b) {
                (Some(a), None) if then_events.contains(&read) => a,
                (None, Some(b)) if other_events.contains(&read) => b,
                (a, b) => self.terms.ite(cond, a.unwrap_or(zero), b.unwrap_or(zero)),
            };
            if self.terms.constant_value(when) != Some(0) {
                merged.insert(read, when);
            }
        }
        merged
    }

    /// `to` depends on each read of `deps`.
    fn depend(&mut self, kind: DepKind, deps: &Deps, to: EventId) {
        let list = match kind {
            DepKind::Addr => &mut self.dependencies.addr,
            DepKind::Data => &mut self.dependencies.data,
            DepKind::Ctrl => &mut self.dependencies.ctrl,
        };
        list.extend(
            deps.iter()
                .filter(|&(&from, _)| from != to)
                .map(|(&from, &when)| Dependency { from, to, when }),
        );
    }

    /// The value of read `read` depends on it.
    fn read_deps(&mut self, read: EventId) -> Deps {
        let one = self.terms.constant(1);
        Deps::from([(read, one)])
    }

    /// The reads the address of an access depends on: its index's or its pointer's.
    fn address_deps(&mut self, address: &Address, state: &ThreadState) -> Deps {
        match address {
            Address::Fixed(_) => Deps::new(),
            Address::Indexed { index, .. } => self.expr_deps(index, state),
            Address::Pointer { value, .. } => self.expr_deps(value, state),
        }
    }

    /// The reads the enclosing conditions depend on, and those of `cond` besides.
    fn enter_condition(&mut self, state: &mut ThreadState, cond: &Expr) -> Deps {
        let outer = state.ctrl.clone();
        let deps = self.expr_deps(cond, state);
        let mut inner = std::mem::take(&mut state.ctrl);
        self.add_deps(&mut inner, &deps);
        state.ctrl = inner;
        outer
    }

    fn term(&mut self, expr: &Expr, state: &ThreadState) -> TermId {
        match expr {
            Expr::Const(v) => self.terms.constant(*v),
            Expr::Reg(r) => state.registers[*r],
            Expr::Unary(op, a) => {
                let a = self.term(a, state);
                self.terms.unary(*op, a)
            }
            Expr::Binary(op, a, b) => {
                let a = self.term(a, state);
                let b = self.term(b, state);
                self.terms.binary(*op, a, b)
            }
            Expr::Conditional(c, a, b) => {
                let c = self.term(c, state);
                let a = self.term(a, state);
                let b = self.term(b, state);
                self.terms.ite(c, a, b)
            }
        }
    }

    fn block(&mut self, instrs: &[Instr], state: &mut ThreadState) {
        for instr in instrs {
            if self.cut {
                return;
            }
            self.instr(instr, state);
        }
    }

    fn read(
        &mut self,
        state: &mut ThreadState,
        loc: LocId,
        order: MemOrder,
        span: Span,
    ) -> EventId {
        let id = self.emit(
            state,
            Event {
                kind: EventKind::Read,
                location: Some(loc),
                order,
                ..blank_event(None, 0, span)
            },
        );
        let value = self.terms.read(id);
        self.events[id].value = Some(value);
        id
    }

    fn write(
        &mut self,
        state: &mut ThreadState,
        loc: LocId,
        value: TermId,
        order: MemOrder,
        span: Span,
    ) -> EventId {
        self.emit(
            state,
            Event {
                kind: EventKind::Write,
                location: Some(loc),
                value: Some(value),
                order,
                ..blank_event(None, 0, span)
            },
        )
    }

    fn link_rmw(&mut self, read: EventId, write: EventId) {
        self.events[read].rmw = Some(write);
        self.events[write].rmw = Some(read);
    }

    /// A `Control` event defining a fresh control variable, true iff `within` holds and
    /// `term != 0`.
    fn control(
        &mut self,
        state: &mut ThreadState,
        term: TermId,
        within: Guard,
        span: Span,
    ) -> ControlId {
        let control = self.controls.len();
        let event = self.emit(
            state,
            Event {
                kind: EventKind::Control,
                value: Some(term),
                control: Some(control),
                ..blank_event(None, 0, span)
            },
        );
        self.controls.push(Control {
            term,
            within,
            event,
        });
        control
    }

    fn instr(&mut self, instr: &Instr, state: &mut ThreadState) {
        match instr {
            Instr::Load {
                dst,
                loc,
                order,
                tags,
                span,
            } => {
                let addr = self.address_deps(loc, state);
                self.at(state, loc, *span, &|b, s, loc| {
                    let id = b.read(s, loc, *order, *span);
                    b.events[id].tags.clone_from(tags);
                    b.events[id].register = Some(*dst);
                    s.registers[*dst] = b.terms.read(id);
                    b.depend(DepKind::Addr, &addr, id);
                    s.deps[*dst] = b.read_deps(id);
                })
            }
            Instr::Store {
                loc,
                value,
                order,
                tags,
                span,
            } => {
                let data = self.expr_deps(value, state);
                let value = self.term(value, state);
                let addr = self.address_deps(loc, state);
                self.at(state, loc, *span, &|b, s, loc| {
                    let id = b.write(s, loc, value, *order, *span);
                    b.events[id].tags.clone_from(tags);
                    b.depend(DepKind::Addr, &addr, id);
                    b.depend(DepKind::Data, &data, id);
                });
            }
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
            } => {
                let data = self.expr_deps(operand, state);
                let operand = self.term(operand, state);
                let unless = unless.as_ref().map(|u| self.term(u, state));
                let addr = self.address_deps(loc, state);
                self.at(state, loc, *span, &|b, s, loc| {
                    let read = b.read(s, loc, *order, *span);
                    b.events[read].tags.clone_from(tags);
                    b.depend(DepKind::Addr, &addr, read);
                    b.events[read].register = *dst;
                    let old = b.terms.read(read);
                    let new = match op {
                        RmwOp::Exchange => operand,
                        RmwOp::Fetch(op) => b.terms.binary(*op, old, operand),
                    };
                    let write_half = |b: &mut Builder, s: &mut ThreadState| {
                        let write = b.write(s, loc, new, *order, *span);
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
                            b.branch(s, adds, *span, write_half, |_, _| {});
                        }
                    }
                    if let Some(dst) = dst {
                        s.registers[*dst] = old;
                        s.deps[*dst] = b.read_deps(read);
                    }
                });
            }
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
            } => {
                self.emit(
                    state,
                    Event {
                        kind: EventKind::Fence,
                        order: *order,
                        tags: tags.clone(),
                        location: *loc,
                        ..blank_event(None, 0, *span)
                    },
                );
            }
            Instr::Assign { dst, value, span } => {
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
                        register: Some(*dst),
                        value: Some(value),
                        ..blank_event(None, 0, *span)
                    },
                );
                state.registers[*dst] = value;
                let annotation = state
                    .ordering_point_registers
                    .iter()
                    .find(|(r, _)| r == dst)
                    .map(|&(_, kind)| kind);
                if let Some(kind) = annotation {
                    self.ordering_point(state, kind, previous_access, marker, value, *span);
                }
                state.deps[*dst] = value_deps;
            }
            Instr::If {
                cond,
                then_branch,
                else_branch,
                span,
            } => {
                let outer = self.enter_condition(state, cond);
                let cond = self.term(cond, state);
                self.branch(
                    state,
                    cond,
                    *span,
                    |b, s| b.block(then_branch, s),
                    |b, s| b.block(else_branch, s),
                );
                state.ctrl = outer;
            }
            Instr::While {
                cond_prelude,
                cond,
                body,
                span,
            } => self.unroll_loop(state, cond_prelude, cond, body, *span),
            Instr::Lock { loc, span } if self.herd_locks[*loc] => {
                // herd's spin_lock: a read (LKR, Acquire) and a write of 1 (LKW) linked as
                // one read-modify-write. It always runs; the encoding requires it to read 0,
                // so an execution in which it cannot (the lock is held for good, or by this
                // thread: lock.cat's `unmatched-locks` and `lock-nest`) does not exist.
                // Nothing pairs it with an unlock: lock.cat matches them in each execution.
                self.acquire(state, *loc, *span, vec!["acquire".to_string()]);
            }
            Instr::Unlock { loc, span } if self.herd_locks[*loc] => {
                // herd's spin_unlock: a write of 0 with Release ordering (UL).
                self.release(state, *loc, *span, None, vec!["release".to_string()]);
            }
            Instr::Lock { loc, span } => {
                // Only where the mutex may be held for good: elsewhere a lock never blocks
                // forever, and costs no wait.
                let contended = self.may_stay_held[*loc] || state.held.iter().any(|h| h.0 == *loc);
                let wait = contended.then(|| {
                    let on = WaitOn::Mutex {
                        loc: *loc,
                        lock: usize::MAX,
                    };
                    self.wait(state, None, on, *span)
                });
                let read = self.acquire(state, *loc, *span, Vec::new());
                if let Some(WaitOn::Mutex { lock, .. }) =
                    wait.flatten().map(|w| &mut self.waits[w].on)
                {
                    *lock = read;
                }
                state.held.push((*loc, read, *span));
            }
            Instr::Unlock { loc, span } => {
                let Some(position) = state.held.iter().rposition(|&(l, _, _)| l == *loc) else {
                    self.errors.push(
                        Diagnostic::new("unlock of a lock this thread does not hold", *span)
                            .with_label("no matching lock before this unlock")
                            .with_help(
                                "every `unlock(l)` must follow a `lock(l)` in the same block",
                            ),
                    );
                    return;
                };
                let (_, lock, _) = state.held.remove(position);
                let unlock = self.release(state, *loc, *span, Some(lock), Vec::new());
                self.events[lock].lock_match = Some(unlock);
            }
            Instr::AtomicBlock { body, span } => {
                let enter = self.emit(
                    state,
                    Event {
                        kind: EventKind::AtomicEnter,
                        ..blank_event(None, 0, *span)
                    },
                );
                self.balanced(state, *span, "atomic block", |b, s| b.block(body, s));
                let exit = self.emit(
                    state,
                    Event {
                        kind: EventKind::AtomicExit,
                        atomic_match: Some(enter),
                        ..blank_event(None, 0, *span)
                    },
                );
                self.events[enter].atomic_match = Some(exit);
            }
            Instr::CallEnter { call, bind, span } => self.enter_call(state, *call, bind, *span),
            Instr::CallExit { call, .. } => self.exit_call(state, *call),
            Instr::CheckIndex { index, limit, span } => {
                let index = self.term(index, state);
                let limit = *limit as usize;
                let in_bounds = self.index_within(index, limit);
                self.check_access(state, in_bounds, index, Some(limit), *span);
            }
            Instr::Assert { cond, span } | Instr::Assume { cond, span } => {
                let value = self.term(cond, state);
                let kind = match instr {
                    Instr::Assert { .. } => EventKind::Assert,
                    _ => EventKind::Assume,
                };
                self.emit(
                    state,
                    Event {
                        kind,
                        value: Some(value),
                        ..blank_event(None, 0, *span)
                    },
                );
            }
        }
    }

    /// What an ordering-point annotation (see [`PointKind`]) records: `access` is the
    /// memory event emitted last before it, `marker` its assignment and `value` its
    /// condition.
    fn ordering_point(
        &mut self,
        state: &mut ThreadState,
        kind: PointKind,
        access: Option<EventId>,
        marker: EventId,
        value: TermId,
        span: Span,
    ) {
        let missing = || {
            Diagnostic::new("no memory access comes before this ordering point", span).with_help(
                "call `ordering_point(1)` right after the access that orders the method call",
            )
        };
        match kind {
            PointKind::Define => match access {
                Some(access) => self.ordering_points.push(OrderingPoint {
                    access,
                    marker,
                    when: value,
                }),
                None => self.errors.push(missing()),
            },
            PointKind::Potential(label) => match access {
                Some(access) => {
                    let ran = self.guard_term(&state.guard.clone());
                    state.potentials.push((label, access, ran));
                }
                None => self.errors.push(missing()),
            },
            // The latest potential point of the label that ran: each candidate when it ran
            // and no later one did.
            PointKind::Check(label) => {
                let candidates: Vec<(EventId, TermId)> = state
                    .potentials
                    .iter()
                    .filter(|p| p.0 == label)
                    .map(|p| (p.1, p.2))
                    .collect();
                for (k, &(access, ran)) in candidates.iter().enumerate() {
                    let mut when = self.terms.binary(BinaryOp::And, value, ran);
                    for &(_, later) in &candidates[k + 1..] {
                        let not_later = self.terms.unary(UnaryOp::Not, later);
                        when = self.terms.binary(BinaryOp::And, when, not_later);
                    }
                    self.ordering_points.push(OrderingPoint {
                        access,
                        marker,
                        when,
                    });
                }
            }
            PointKind::Clear if state.open_calls.is_empty() => {}
            PointKind::Clear => {
                let ran = self.guard_term(&state.guard.clone());
                let cleared = self.terms.binary(BinaryOp::And, ran, value);
                let kept = self.terms.unary(UnaryOp::Not, cleared);
                for point in &mut self.ordering_points[state.call_points_start..] {
                    point.when = self.terms.binary(BinaryOp::And, point.when, kept);
                }
            }
        }
    }

    /// The beginning of an inlined call: its registers get their values (no events: the
    /// arguments' computations were the caller's), and a [`Call`] records what it received.
    fn enter_call(
        &mut self,
        state: &mut ThreadState,
        site: CallSiteId,
        bind: &[(RegId, Expr)],
        span: Span,
    ) {
        let values: Vec<TermId> = bind.iter().map(|(_, e)| self.term(e, state)).collect();
        let deps: Vec<Deps> = bind.iter().map(|(_, e)| self.expr_deps(e, state)).collect();
        for ((&(reg, _), value), deps) in bind.iter().zip(values).zip(deps) {
            state.registers[reg] = value;
            state.deps[reg] = deps;
        }
        let Some(call_site) = state.sites.get(site) else {
            return;
        };
        let function = call_site.function.clone();
        let args = call_site
            .args
            .iter()
            .map(|arg| match arg {
                CallArg::Value { param, reg } => CallArgValue::Value {
                    param: param.clone(),
                    value: state.registers[*reg],
                },
                CallArg::Pointer {
                    param,
                    base,
                    offset,
                } => CallArgValue::Pointer {
                    param: param.clone(),
                    base: base.clone(),
                    offset: match offset {
                        PointerOffset::Const(k) => {
                            self.terms.constant(i32::try_from(*k).unwrap_or(i32::MAX))
                        }
                        PointerOffset::Reg(r) => state.registers[*r],
                    },
                },
            })
            .collect();
        let number = {
            let n = state.call_counts.entry(function.clone()).or_insert(0);
            *n += 1;
            *n
        };
        let entered = self.guard_term(&state.guard.clone());
        if state.open_calls.is_empty() {
            // A method call begins: its ordering points are its own.
            state.potentials.clear();
            state.call_points_start = self.ordering_points.len();
        }
        let id = self.calls.len();
        self.calls.push(Call {
            thread: state.index,
            site,
            function,
            number,
            parent: state.open_calls.last().copied(),
            args,
            entered,
            returned: entered,
            value: None,
            begin: self.events.len(),
            end: self.events.len(),
            span,
        });
        state.open_calls.push(id);
    }

    /// The end of an inlined call: its value and whether it got there.
    fn exit_call(&mut self, state: &mut ThreadState, site: CallSiteId) {
        let Some(id) = state.open_calls.pop() else {
            return;
        };
        let returned = self.guard_term(&state.guard.clone());
        let ret = state.sites.get(site).and_then(|s| s.ret);
        let call = &mut self.calls[id];
        call.returned = returned;
        call.value = ret.map(|r| state.registers[r]);
        call.end = self.events.len();
    }

    /// A lock's acquisition: its read (the `Lock` event, returned), which reads the lock,
    /// and its write half, a write of 1, linked as one read-modify-write.
    fn acquire(
        &mut self,
        state: &mut ThreadState,
        loc: LocId,
        span: Span,
        tags: crate::program::Tags,
    ) -> EventId {
        let read = self.emit(
            state,
            Event {
                kind: EventKind::Lock,
                location: Some(loc),
                order: MemOrder::Acquire,
                tags,
                ..blank_event(None, 0, span)
            },
        );
        let value = self.terms.read(read);
        self.events[read].value = Some(value);
        let one = self.terms.constant(1);
        let write = self.write(state, loc, one, MemOrder::Relaxed, span);
        self.link_rmw(read, write);
        read
    }

    /// A lock's release: a write of 0 (the `Unlock` event, returned).
    fn release(
        &mut self,
        state: &mut ThreadState,
        loc: LocId,
        span: Span,
        lock_match: Option<EventId>,
        tags: crate::program::Tags,
    ) -> EventId {
        let zero = self.terms.constant(0);
        self.emit(
            state,
            Event {
                kind: EventKind::Unlock,
                location: Some(loc),
                value: Some(zero),
                order: MemOrder::Release,
                lock_match,
                tags,
                ..blank_event(None, 0, span)
            },
        )
    }

    /// Run `body` and require that it releases exactly the locks it takes.
    fn balanced(
        &mut self,
        state: &mut ThreadState,
        span: Span,
        what: &str,
        body: impl FnOnce(&mut Builder, &mut ThreadState),
    ) {
        let held_before: Vec<EventId> = state.held.iter().map(|h| h.1).collect();
        body(self, state);
        let held_after: Vec<EventId> = state.held.iter().map(|h| h.1).collect();
        if held_after == held_before {
            return;
        }
        let taken_inside = state.held.iter().find(|h| !held_before.contains(&h.1));
        let diagnostic = match taken_inside {
            Some(&(_, _, lock_span)) => Diagnostic::new(
                format!("a lock taken inside this {what} is still held at its end"),
                lock_span,
            )
            .with_label("taken here")
            .with_help(format!("release it inside the same {what}")),
            None => Diagnostic::new(
                format!("this {what} releases a lock taken outside it"),
                span,
            )
            .with_help(format!("take and release each lock inside the same {what}")),
        };
        // Continue with the locks as the block left them: the matching unlock (or the end
        // of the thread) then raises no second, derived error.
        self.errors.push(diagnostic);
    }

    /// `if (cond) then else`, with register values merged at the join.
    fn branch(
        &mut self,
        state: &mut ThreadState,
        cond: TermId,
        span: Span,
        then_branch: impl FnOnce(&mut Builder, &mut ThreadState),
        else_branch: impl FnOnce(&mut Builder, &mut ThreadState),
    ) {
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
        let control = self.control(state, cond, Guard::default(), span);
        let outer_guard = state.guard.clone();
        let before = state.registers.clone();
        let deps_before = state.deps.clone();
        let stops_before = state.stops.len();
        state.guard = outer_guard.with(control, true);
        let then_start = self.events.len();
        self.balanced(state, span, "branch", then_branch);
        let after_then = std::mem::replace(&mut state.registers, before);
        let deps_then = std::mem::replace(&mut state.deps, deps_before);
        state.guard = outer_guard.with(control, false);
        let else_start = self.events.len();
        self.balanced(state, span, "branch", else_branch);
        let end = self.events.len();
        state.guard = outer_guard;
        for (reg, then_value) in after_then.into_iter().enumerate() {
            let else_value = state.registers[reg];
            state.registers[reg] = self.terms.ite(cond, then_value, else_value);
        }
        for (reg, then_deps) in deps_then.into_iter().enumerate() {
            if then_deps != state.deps[reg] {
                let else_deps = std::mem::take(&mut state.deps[reg]);
                state.deps[reg] = self.merge_deps(
                    cond,
                    &then_deps,
                    then_start..else_start,
                    &else_deps,
                    else_start..end,
                );
            }
        }
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
    fn unroll_loop(
        &mut self,
        state: &mut ThreadState,
        cond_prelude: &[Instr],
        cond: &Expr,
        body: &[Instr],
        span: Span,
    ) {
        if spin_reducible(&state.temporaries, cond_prelude, cond, body) {
            return self.spin(state, cond_prelude, cond, body, span);
        }
        self.block(cond_prelude, state);
        let entry = state.guard.clone();
        let stops_before = state.stops.len();
        let mut reached: Option<ControlId> = None;
        let mut went_on: Option<ControlId> = None;
        // Where the loop may exit: condition k, and the registers when it is false (their
        // values, their dependencies, and the first event after that point).
        let mut exits: Vec<(TermId, Vec<TermId>, Vec<Deps>, EventId)> = Vec::new();
        let outer_ctrl = state.ctrl.clone();
        let mut hit = None;
        let mut remaining = self.unroll;
        let link = |c: Option<ControlId>| Guard(c.map(|c| (c, true)).into_iter().collect());
        loop {
            if self.cut {
                return;
            }
            let value = self.term(cond, state);
            let zero = self.terms.constant(0);
            let c = self.terms.binary(BinaryOp::Ne, value, zero);
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
            if remaining == 0 {
                let control = self.control(state, c, link(reached), span);
                self.bound_hits.push(BoundHit {
                    thread: state.index,
                    guard: state.guard.clone(),
                    control,
                    span,
                });
                hit = Some(control);
                break;
            }
            remaining -= 1;
            // The iterations to come are inside this one's branch.
            let cond_deps = self.expr_deps(cond, state);
            let mut ctrl = std::mem::take(&mut state.ctrl);
            self.add_deps(&mut ctrl, &cond_deps);
            state.ctrl = ctrl;
            let constant = self.terms.constant_value(c).is_some();
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
            let before = (
                self.events.len(),
                state.registers.clone(),
                state.guard.clone(),
                state.stops.len(),
                state.held.clone(),
                self.errors.len(),
            );
            self.balanced(state, span, "branch", |b, s| b.block(body, s));
            self.block(cond_prelude, state);
            let after = (
                self.events.len(),
                state.registers.clone(),
                state.guard.clone(),
                state.stops.len(),
                state.held.clone(),
                self.errors.len(),
            );
            // An iteration that changed nothing under a constant condition repeats forever
            // (`while (1) {}`): every later one is the same, so go to the bound at once.
            if constant && before == after {
                remaining = 0;
            }
        }
        let end = self.events.len();
        for (c, at_exit, deps_at_exit, went_on_from) in exits.into_iter().rev() {
            for (reg, value) in at_exit.into_iter().enumerate() {
                state.registers[reg] = self.terms.ite(c, state.registers[reg], value);
            }
            for (reg, exit_deps) in deps_at_exit.into_iter().enumerate() {
                if exit_deps != state.deps[reg] {
                    let later = std::mem::take(&mut state.deps[reg]);
                    state.deps[reg] =
                        self.merge_deps(c, &later, went_on_from..end, &exit_deps, 0..0);
                }
            }
        }
        state.ctrl = outer_ctrl;
        state.guard = entry;
        self.unless_stopped(state, stops_before, span);
        if let Some(hit) = hit {
            state.guard = state.guard.with(hit, false);
        }
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
        self.block(cond_prelude, state);
        let iterations = if entry_test_reads_first(cond_prelude, body) {
            1
        } else {
            2
        };
        self.spin_test(state, cond_prelude, cond, body, span, iterations);
    }

    /// A test of a reduced spin loop and, when it holds, `iterations` more iterations, the
    /// last followed by the wait.
    fn spin_test(
        &mut self,
        state: &mut ThreadState,
        cond_prelude: &[Instr],
        cond: &Expr,
        body: &[Instr],
        span: Span,
        iterations: u32,
    ) {
        let outer = self.enter_condition(state, cond);
        let value = self.term(cond, state);
        let zero = self.terms.constant(0);
        let entered = self.terms.binary(BinaryOp::Ne, value, zero);
        self.branch(
            state,
            entered,
            span,
            |b, s| {
                let first = b.events.len();
                b.block(body, s);
                b.block(cond_prelude, s);
                if b.cut {
                    return;
                }
                if iterations > 1 {
                    return b.spin_test(s, cond_prelude, cond, body, span, iterations - 1);
                }
                let reads = b.events[first..]
                    .iter()
                    .filter(|e| e.is_read())
                    .map(|e| e.id)
                    .collect();
                let value = b.term(cond, s);
                let zero = b.terms.constant(0);
                let spinning = b.terms.binary(BinaryOp::Ne, value, zero);
                let on = WaitOn::Spin {
                    reads,
                    loop_span: span,
                };
                b.wait(s, Some(spinning), on, span);
            },
            |_, _| {},
        );
        state.ctrl = outer;
    }

    /// A point where the thread may block forever: a `Wait` event whose value (`blocked`,
    /// 0 or 1, or a free choice when `None`) says whether it does; the rest of the thread
    /// runs only when it does not, and keeps its registers as they are here when it does.
    /// Returns the wait's index in [`Events::waits`], `None` when it can never block.
    fn wait(
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
        let reached = self.guard_term(&state.guard);
        let zero = self.terms.constant(0);
        let blocks = self.terms.binary(BinaryOp::Ne, blocked, zero);
        let stopped = self.and(reached, blocks);
        state.stops.push((stopped, state.registers.clone()));
        let goes_on = self.terms.unary(UnaryOp::Not, blocks);
        let control = self.control(state, goes_on, Guard::default(), span);
        state.guard = state.guard.with(control, true);
        Some(self.waits.len() - 1)
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
        (tags, failure_tags): (&crate::program::Tags, &crate::program::Tags),
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
                        s.registers[r] = old;
                        s.deps[r] = b.read_deps(read);
                    }
                },
            );
            if let Some(dst) = dst {
                s.registers[dst] = succeeded;
                let mut deps = b.read_deps(read);
                b.add_deps(&mut deps, &expected_deps);
                s.deps[dst] = deps;
            }
        });
    }

    /// Run `access` on the cell `address` denotes.
    ///
    /// A fixed address costs nothing. A register-indexed one `y[i]` over cells
    /// `y[0..n]` becomes, after a bounds check, the case split
    /// `if (i == 0) access(y[0]) else if (i == 1) access(y[1]) ... else access(y[n-1])`
    /// through [`Builder::branch`]: each cell's events are ordinary events on a fixed
    /// location whose guard adds "index term == k", so bounds, encoding and witnesses need
    /// nothing new, and registers the access assigns are merged with `Ite` at the join.
    /// Every cell of the array is a case: the static value sets of `bounds` are computed
    /// from the events, after unrolling, so they cannot prune cases here; the solver
    /// discards the infeasible ones through their guards.
    ///
    /// An index outside the array is undefined behaviour in C. It is neither dropped nor
    /// given a made-up cell: the bounds check is an implicit `assert(0 <= i && i < n)` at
    /// the access (as a bounded model checker's bounds check), so an execution that
    /// indexes out of bounds is reported as an assertion failure, with its witness, and
    /// exits with the defect code; and the thread stops there (the rest of it, the access
    /// included, is guarded by "in bounds", as a loop's continuation is guarded by "exited
    /// within the bound"), since nothing after undefined behaviour has a meaning and no
    /// value is invented for the read. Such an execution keeps its final state (its
    /// stopped thread's registers as they were), as executions with a failing `assert` do.
    fn at(
        &mut self,
        state: &mut ThreadState,
        address: &Address,
        span: Span,
        access: &dyn Fn(&mut Builder, &mut ThreadState, LocId),
    ) {
        let (cells, index, keys, in_bounds, within) = match address {
            Address::Fixed(loc) => return access(self, state, *loc),
            Address::Indexed { cells, index } => {
                let index = self.term(index, state);
                let in_bounds = self.index_within(index, cells.len());
                let keys = (0..cells.len())
                    .map(|k| i32::try_from(k).unwrap_or(i32::MAX))
                    .collect();
                (cells, index, keys, in_bounds, Some(cells.len()))
            }
            Address::Pointer { value, cells } => {
                // Valid when the value is the address of one of the cells it may point to.
                let value = self.term(value, state);
                let keys: Vec<i32> = cells.iter().map(|&c| self.addresses[c]).collect();
                let mut valid = self.terms.constant(0);
                for &key in &keys {
                    let key = self.terms.constant(key);
                    let is_key = self.terms.binary(BinaryOp::Eq, value, key);
                    valid = self.terms.binary(BinaryOp::Or, valid, is_key);
                }
                (cells, value, keys, valid, None)
            }
        };
        self.check_access(state, in_bounds, index, within, span);
        let cases: Vec<(LocId, i32)> = cells.iter().copied().zip(keys).collect();
        self.cell_case(state, index, &cases, 0, span, access);
    }

    /// The implicit assertion that an access's address is valid (`in_bounds`, over the
    /// index or address `selector`; `within` the number of cells an index must stay
    /// below): an execution where it fails reports it and stops the thread there, and the
    /// rest of the thread is guarded by it.
    fn check_access(
        &mut self,
        state: &mut ThreadState,
        in_bounds: TermId,
        selector: TermId,
        within: Option<usize>,
        span: Span,
    ) {
        if self.terms.constant_value(in_bounds) == Some(1) {
            return;
        }
        let check = self.emit(
            state,
            Event {
                kind: EventKind::Assert,
                value: Some(in_bounds),
                ..blank_event(None, 0, span)
            },
        );
        self.access_checks.insert(
            check,
            AccessCheck {
                selector,
                cells: within,
            },
        );
        let reached = self.guard_term(&state.guard);
        let out_of_bounds = self.terms.unary(UnaryOp::Not, in_bounds);
        let stopped = self.terms.binary(BinaryOp::And, reached, out_of_bounds);
        state.stops.push((stopped, state.registers.clone()));
        let control = self.control(state, in_bounds, Guard::default(), span);
        self.address_controls.insert(self.controls[control].event);
        state.guard = state.guard.with(control, true);
    }

    /// `0 <= index < limit`, as a term.
    fn index_within(&mut self, index: TermId, limit: usize) -> TermId {
        let zero = self.terms.constant(0);
        let len = self
            .terms
            .constant(i32::try_from(limit).unwrap_or(i32::MAX));
        let non_negative = self.terms.binary(BinaryOp::Ge, index, zero);
        let below = self.terms.binary(BinaryOp::Lt, index, len);
        self.terms.binary(BinaryOp::And, non_negative, below)
    }

    /// A term that is 1 exactly when `guard` holds.
    fn guard_term(&mut self, guard: &Guard) -> TermId {
        let mut result = self.terms.constant(1);
        for &(control, polarity) in &guard.0 {
            let holds = self.control_term(control);
            let literal = if polarity {
                holds
            } else {
                self.terms.unary(UnaryOp::Not, holds)
            };
            result = self.and(result, literal);
        }
        result
    }

    /// A term that is 1 exactly when `control` is true. A control is defined from earlier
    /// ones (`within`), in chains as long as a loop's bound: the missing links are filled
    /// oldest first, without recursion.
    fn control_term(&mut self, control: ControlId) -> TermId {
        let mut pending = vec![control];
        while let Some(&c) = pending.last() {
            if self.control_terms.contains_key(&c) {
                pending.pop();
                continue;
            }
            let missing: Vec<ControlId> = self.controls[c]
                .within
                .0
                .iter()
                .map(|&(d, _)| d)
                .filter(|d| !self.control_terms.contains_key(d))
                .collect();
            if !missing.is_empty() {
                pending.extend(missing);
                continue;
            }
            let zero = self.terms.constant(0);
            let nonzero = self.terms.binary(BinaryOp::Ne, self.controls[c].term, zero);
            let within = self.controls[c].within.clone();
            let within = self.guard_term(&within);
            let holds = self.and(within, nonzero);
            self.control_terms.insert(c, holds);
            pending.pop();
        }
        self.control_terms[&control]
    }

    /// `a || b` for terms that are 0 or 1, with the constants folded.
    fn or(&mut self, a: TermId, b: TermId) -> TermId {
        match (self.terms.constant_value(a), self.terms.constant_value(b)) {
            (Some(0), _) => b,
            (_, Some(0)) => a,
            (Some(_), _) | (_, Some(_)) => self.terms.constant(1),
            _ if a == b => a,
            _ => self.terms.binary(BinaryOp::Or, a, b),
        }
    }

    /// `a && b` for terms that are 0 or 1, with the constants folded.
    fn and(&mut self, a: TermId, b: TermId) -> TermId {
        match (self.terms.constant_value(a), self.terms.constant_value(b)) {
            (Some(0), _) | (_, Some(0)) => self.terms.constant(0),
            (Some(_), _) => b,
            (_, Some(_)) => a,
            _ => self.terms.binary(BinaryOp::And, a, b),
        }
    }

    /// The case split of [`Builder::at`] from cell `k` on.
    fn cell_case(
        &mut self,
        state: &mut ThreadState,
        selector: TermId,
        cases: &[(LocId, i32)],
        k: usize,
        span: Span,
        access: &dyn Fn(&mut Builder, &mut ThreadState, LocId),
    ) {
        let Some(&(cell, key)) = cases.get(k) else {
            return;
        };
        if self.cut {
            return;
        }
        if k + 1 == cases.len() {
            // In bounds and no earlier cell: this one.
            return access(self, state, cell);
        }
        let k_term = self.terms.constant(key);
        let is_k = self.terms.binary(BinaryOp::Eq, selector, k_term);
        // The branch's own control comes before any its cases add.
        let split = self
            .terms
            .constant_value(is_k)
            .is_none()
            .then_some(self.controls.len());
        self.branch(
            state,
            is_k,
            span,
            |b, s| access(b, s, cell),
            |b, s| b.cell_case(s, selector, cases, k + 1, span, access),
        );
        if let Some(control) = split.and_then(|c| self.controls.get(c)) {
            self.address_controls.insert(control.event);
        }
    }
}

/// Per location: some critical section of it contains a statement that may stop its thread
/// for good (a `lock`, a loop, which may wait or hit the bound, a register-indexed access,
/// which may be out of bounds), so that the mutex may end held and a `lock` of it may wait
/// forever. Sections are balanced within a block (see `Builder::balanced`).
fn may_stay_held(program: &Program) -> Vec<bool> {
    fn walk(instrs: &[Instr], open: &mut Vec<LocId>, out: &mut [bool]) {
        let stops = |open: &[LocId], out: &mut [bool]| {
            for &l in open {
                out[l] = true;
            }
        };
        for instr in instrs {
            match instr {
                Instr::Lock { loc, .. } => {
                    stops(open, out);
                    open.push(*loc);
                }
                Instr::Unlock { loc, .. } => {
                    if let Some(i) = open.iter().rposition(|l| l == loc) {
                        open.remove(i);
                    }
                }
                Instr::While {
                    cond_prelude, body, ..
                } => {
                    stops(open, out);
                    walk(cond_prelude, &mut open.clone(), out);
                    walk(body, &mut open.clone(), out);
                }
                Instr::If {
                    then_branch,
                    else_branch,
                    ..
                } => {
                    walk(then_branch, &mut open.clone(), out);
                    walk(else_branch, &mut open.clone(), out);
                }
                Instr::AtomicBlock { body, .. } => walk(body, &mut open.clone(), out),
                Instr::Load { loc, .. }
                | Instr::Store { loc, .. }
                | Instr::Rmw { loc, .. }
                | Instr::CompareExchange { loc, .. } => {
                    if loc.fixed().is_none() {
                        stops(open, out);
                    }
                }
                Instr::CheckIndex { .. } => stops(open, out),
                Instr::Fence { .. }
                | Instr::Assign { .. }
                | Instr::Assert { .. }
                | Instr::Assume { .. }
                | Instr::CallEnter { .. }
                | Instr::CallExit { .. } => {}
            }
        }
    }
    let mut out = vec![false; program.locations.len()];
    for thread in &program.threads {
        walk(&thread.body, &mut Vec::new(), &mut out);
    }
    out
}

/// Registers along a straight run of instructions: read before being written on some path
/// (`exposed`), written on every path (`surely`), written on some path (`written`).
#[derive(Clone, Default)]
struct Flow {
    exposed: BTreeSet<RegId>,
    surely: BTreeSet<RegId>,
    written: BTreeSet<RegId>,
    /// Registers an address of a load depends on (`a[i]`, `*q`): none may vary from one
    /// iteration to the next, so every iteration reads the same cell, and a race of a
    /// dropped iteration's read is one of the entry test's or the kept iteration's. (An
    /// address check that fails stops the thread: that iteration is the last, and kept.)
    addressing: BTreeSet<RegId>,
    /// Registers whose value may differ between iterations: what a load or a
    /// compare-exchange gives, and what is computed from them or under a branch on them.
    /// (An iteration reads no register it writes before writing it, so the others are
    /// computed from registers the loop leaves alone and are the same every time.)
    varying: BTreeSet<RegId>,
    /// Inside a branch whose condition varies.
    under_varying_branch: bool,
}

impl Flow {
    fn uses(&mut self, expr: &Expr) {
        let mut read = BTreeSet::new();
        registers_of(expr, &mut read);
        self.exposed
            .extend(read.into_iter().filter(|r| !self.surely.contains(r)));
    }

    /// `expr` reads a register that varies between iterations.
    fn varies(&self, expr: &Expr) -> bool {
        let mut read = BTreeSet::new();
        registers_of(expr, &mut read);
        !read.is_disjoint(&self.varying)
    }

    fn defines(&mut self, r: RegId) {
        self.surely.insert(r);
        self.written.insert(r);
        if self.under_varying_branch {
            self.varying.insert(r);
        }
    }

    /// `r` is given the value of `value`.
    fn assigns(&mut self, r: RegId, value: &Expr) {
        if self.varies(value) {
            self.varying.insert(r);
        }
        self.defines(r);
    }

    /// `r` is given a value read from memory.
    fn loads(&mut self, r: RegId) {
        self.varying.insert(r);
        self.defines(r);
    }

    /// Follow `instrs`; `false` when one of them has an effect a failed iteration must not
    /// have. `exit_cas`: the register whose compare-exchange may end the run (its success
    /// exits the loop), when the run is a loop's condition.
    fn follow(&mut self, instrs: &[Instr], exit_cas: Option<RegId>) -> bool {
        for (i, instr) in instrs.iter().enumerate() {
            match instr {
                Instr::Load { dst, loc, .. } => {
                    let index = match loc {
                        Address::Fixed(_) => None,
                        Address::Indexed { index, .. } => Some(index),
                        Address::Pointer { value, .. } => Some(value),
                    };
                    if let Some(index) = index {
                        self.uses(index);
                        registers_of(index, &mut self.addressing);
                    }
                    self.loads(*dst);
                }
                Instr::Assign { dst, value, .. } => {
                    self.uses(value);
                    self.assigns(*dst, value);
                }
                Instr::If {
                    cond,
                    then_branch,
                    else_branch,
                    ..
                } => {
                    self.uses(cond);
                    let mut then_flow = self.clone();
                    then_flow.under_varying_branch |= self.varies(cond);
                    let mut else_flow = then_flow.clone();
                    if !then_flow.follow(then_branch, None) || !else_flow.follow(else_branch, None)
                    {
                        return false;
                    }
                    self.exposed = &then_flow.exposed | &else_flow.exposed;
                    self.written = &then_flow.written | &else_flow.written;
                    self.surely = &then_flow.surely & &else_flow.surely;
                    self.addressing = &then_flow.addressing | &else_flow.addressing;
                    self.varying = &then_flow.varying | &else_flow.varying;
                }
                // Fails in every iteration that goes on (its success exits the loop): a read,
                // and the expected register written, in those iterations.
                Instr::CompareExchange {
                    dst: Some(dst),
                    loc,
                    expected: Expected::Register(e),
                    desired,
                    ..
                } if loc.fixed().is_some() && exit_cas == Some(*dst) && i + 1 == instrs.len() => {
                    self.uses(&Expr::Reg(*e));
                    self.uses(desired);
                    self.written.insert(*e);
                    self.varying.insert(*e);
                    self.loads(*dst);
                }
                // A fence adds ordering only: a failed iteration's fence, like its reads, can
                // be dropped from an execution without making it inconsistent.
                Instr::Fence { .. } => {}
                // A call binds its registers at once, every value computed first; its body
                // follows at this level, and its end does nothing.
                Instr::CallEnter { bind, .. } => {
                    for (_, value) in bind {
                        self.uses(value);
                    }
                    // All at once: each value is computed before any is bound.
                    let varying: Vec<bool> = bind.iter().map(|(_, v)| self.varies(v)).collect();
                    for ((dst, _), varies) in bind.iter().zip(varying) {
                        if varies {
                            self.varying.insert(*dst);
                        }
                        self.defines(*dst);
                    }
                }
                Instr::CallExit { .. } => {}
                _ => return false,
            }
        }
        true
    }
}

fn registers_of(expr: &Expr, out: &mut BTreeSet<RegId>) {
    match expr {
        Expr::Const(_) => {}
        Expr::Reg(r) => {
            out.insert(*r);
        }
        Expr::Unary(_, a) => registers_of(a, out),
        Expr::Binary(_, a, b) => {
            registers_of(a, out);
            registers_of(b, out);
        }
        Expr::Conditional(c, a, b) => {
            registers_of(c, out);
            registers_of(a, out);
            registers_of(b, out);
        }
    }
}

/// The register `r` when `cond` is `!r` or `r == 0`: the loop goes on while the
/// compare-exchange that wrote `r` fails.
fn negated_register(cond: &Expr) -> Option<RegId> {
    use crate::program::UnaryOp as U;
    match cond {
        Expr::Unary(U::Not, a) => match **a {
            Expr::Reg(r) => Some(r),
            _ => None,
        },
        Expr::Binary(BinaryOp::Eq, a, b) => match (&**a, &**b) {
            (Expr::Reg(r), Expr::Const(0)) | (Expr::Const(0), Expr::Reg(r)) => Some(*r),
            _ => None,
        },
        _ => None,
    }
}

/// Whether the entry test of a reduced spin loop runs every read of an iteration that
/// goes on: its condition's reads, unconditionally, and none in the body. Then the entry
/// test holds the first instance of each of them, and the first instance of a read races
/// with whatever a later one does (ARCHITECTURE.md, `events`), so one iteration is kept;
/// otherwise (reads in the body, a `do` loop, whose first test skips its condition, or a
/// read under a branch) two are: the first instance of any read lies in some iteration
/// that goes on, and keeping it with the last one is again an execution of the loop.
fn entry_test_reads_first(cond_prelude: &[Instr], body: &[Instr]) -> bool {
    fn reads(instrs: &[Instr]) -> bool {
        instrs
            .iter()
            .any(|instr| instr.address().is_some() || instr.nested().into_iter().any(reads))
    }
    !reads(body)
        && cond_prelude
            .iter()
            .all(|instr| instr.nested().into_iter().all(|b| !reads(b)))
}

/// A loop `while (cond) body` (the condition's accesses in `prelude`) whose failed
/// iterations have no effect, so that they can be dropped (GenMC's spin-assume). Its
/// iteration, `body; prelude; cond`, must:
/// - only read memory: loads (at a fixed address, or at an index or through a pointer
///   computed from nothing the iteration reads from memory, directly or through a branch,
///   so that every iteration reads the same cell and its address check has the same
///   outcome in all of them, the entry test's included), register assignments,
///   branches, fences, and a compare-exchange at a fixed address with a register as
///   expected value whose success ends the loop
///   (`while (!atomic_compare_exchange_strong(&l, &e, 1)) e = 0;`), last in the prelude;
///   no store, read-modify-write, lock, assertion, assumption or inner loop;
/// - read no register it writes before writing it (so an iteration does not depend on the
///   one before: `e = 0` before the exchange reads `e` is fine, a bare
///   `while (!cas(&l, &e, 1));`, which retries with the value it saw, is not);
/// - write on every path each register it writes, unless lowering made it for one
///   expression (a temporary nothing reads later): after the loop every register holds what
///   the exiting iteration gave it, whatever iterations came before.
fn spin_reducible(temporaries: &[bool], prelude: &[Instr], cond: &Expr, body: &[Instr]) -> bool {
    let mut flow = Flow::default();
    if !flow.follow(body, None) || !flow.follow(prelude, negated_register(cond)) {
        return false;
    }
    flow.uses(cond);
    flow.exposed.is_disjoint(&flow.written)
        && flow.addressing.is_disjoint(&flow.varying)
        && flow
            .written
            .iter()
            .all(|r| flow.surely.contains(r) || temporaries[*r])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::SourceFile;
    use crate::events::Term;

    fn build(body: &str) -> (Program, Events) {
        let text = format!(
            "C t\n{{ x = 0; int y[3] = {{10, 11, 12}}; l = 0; }}\nP0 (int* x, int* y, int* l) {{\n{body}\n}}\nexists (x=0)\n"
        );
        let file = SourceFile::new("t.litmus", text);
        let test =
            crate::load(&file, &Default::default()).unwrap_or_else(|e| panic!("{}", e.short()));
        (test.program, test.events)
    }

    fn loc(program: &Program, name: &str) -> LocId {
        program
            .locations
            .iter()
            .position(|l| l.name == name)
            .unwrap_or_else(|| panic!("no location {name}"))
    }

    fn thread_events(events: &Events) -> Vec<&Event> {
        events.threads[0]
            .iter()
            .map(|&e| &events.events[e])
            .collect()
    }

    /// Whether `guard` holds when the reads return `value`.
    fn holds(events: &Events, guard: &Guard, value: &impl Fn(EventId) -> i32) -> bool {
        guard.0.iter().all(|&(c, polarity)| {
            (events.terms.eval(events.controls[c].term, value) != 0) == polarity
        })
    }

    #[test]
    fn constant_indices_cost_nothing() {
        let (program, events) =
            build("  int r0 = y[1];\n  *(y + 2) = 1;\n  int r1 = 1;\n  y[r1] = 2;");
        let kinds: Vec<EventKind> = thread_events(&events).iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [
                EventKind::Read,
                EventKind::Write,
                EventKind::Computation,
                EventKind::Write
            ]
        );
        let locations: Vec<Option<LocId>> =
            thread_events(&events).iter().map(|e| e.location).collect();
        let y = |i| Some(loc(&program, &format!("y[{i}]")));
        assert_eq!(locations, [y(1), y(2), None, y(1)]);
        assert!(events.controls.is_empty());
    }

    #[test]
    fn a_register_index_becomes_one_guarded_event_per_cell() {
        let (program, events) = build("  int r0 = *x;\n  int r1 = y[r0];\n  y[r0] = 5;");
        let thread = thread_events(&events);
        let reads: Vec<&&Event> = thread
            .iter()
            .filter(|e| e.kind == EventKind::Read && e.location != Some(loc(&program, "x")))
            .collect();
        let writes: Vec<&&Event> = thread
            .iter()
            .filter(|e| e.kind == EventKind::Write)
            .collect();
        let cells: Vec<LocId> = (0..3).map(|i| loc(&program, &format!("y[{i}]"))).collect();
        assert_eq!(
            reads.iter().map(|e| e.location).collect::<Vec<_>>(),
            cells.iter().map(|&c| Some(c)).collect::<Vec<_>>()
        );
        assert_eq!(
            writes.iter().map(|e| e.location).collect::<Vec<_>>(),
            cells.iter().map(|&c| Some(c)).collect::<Vec<_>>()
        );
        // Two bounds checks, each an assertion.
        assert_eq!(
            thread
                .iter()
                .filter(|e| e.kind == EventKind::Assert)
                .count(),
            2
        );
        let x_read = thread[0].id;
        let r1 = program.threads[0]
            .registers
            .iter()
            .position(|r| r.name == "r1")
            .unwrap();
        for index in 0..3 {
            // x read returns `index`, each y cell read returns 100 + its cell.
            let value = |e: EventId| {
                if e == x_read {
                    index
                } else {
                    let cell = events.events[e].location.unwrap();
                    100 + cells.iter().position(|&c| c == cell).unwrap() as i32
                }
            };
            let executed: Vec<LocId> = reads
                .iter()
                .filter(|e| holds(&events, &e.guard, &value))
                .map(|e| e.location.unwrap())
                .collect();
            assert_eq!(executed, [cells[index as usize]]);
            let written: Vec<LocId> = writes
                .iter()
                .filter(|e| holds(&events, &e.guard, &value))
                .map(|e| e.location.unwrap())
                .collect();
            assert_eq!(written, [cells[index as usize]]);
            let final_r1 = events.terms.eval(events.final_registers[0][r1], &value);
            assert_eq!(final_r1, 100 + index);
        }
    }

    #[test]
    fn out_of_bounds_fails_the_check_and_stops_the_thread() {
        let (program, events) = build(
            "  int r0 = *x;\n  if (r0 != 7) {\n    y[r0 - 1] = 5;\n  }\n  int r2 = 9;\n  *x = 3;",
        );
        let thread = thread_events(&events);
        let check = thread
            .iter()
            .find(|e| e.kind == EventKind::Assert)
            .expect("a bounds check");
        let last_write = thread
            .iter()
            .rev()
            .find(|e| e.kind == EventKind::Write)
            .unwrap();
        assert_eq!(last_write.location, Some(loc(&program, "x")));
        let x_read = thread[0].id;
        let r2 = program.threads[0]
            .registers
            .iter()
            .position(|r| r.name == "r2")
            .unwrap();
        for (x, in_bounds) in [(1, true), (3, true), (0, false), (4, false), (7, true)] {
            let value = |e: EventId| if e == x_read { x } else { 0 };
            if x != 7 {
                assert!(holds(&events, &check.guard, &value));
                let ok = events.terms.eval(check.value.unwrap(), &value) != 0;
                assert_eq!(ok, in_bounds, "x = {x}");
            }
            // The thread goes on after the branch only if it did not stop in it.
            assert_eq!(
                holds(&events, &last_write.guard, &value),
                in_bounds,
                "x = {x}"
            );
            let final_r2 = events.terms.eval(events.final_registers[0][r2], &value);
            assert_eq!(final_r2, if in_bounds { 9 } else { 0 }, "x = {x}");
        }
    }

    #[test]
    fn every_address_form_indexes_the_same_cells() {
        for access in [
            "int r1 = y[r0];",
            "int r1 = *(y + r0);",
            "int r1 = *(r0 + y);",
            "int r1 = atomic_load_explicit(y + r0, memory_order_relaxed);",
            "int r1 = atomic_load_explicit(&y[r0], memory_order_relaxed);",
            "int r1 = READ_ONCE(*(y + r0));",
        ] {
            let (program, events) = build(&format!("  int r0 = *x;\n  {access}"));
            let cells: Vec<LocId> = thread_events(&events)
                .iter()
                .filter(|e| e.kind == EventKind::Read)
                .skip(1)
                .filter_map(|e| e.location)
                .collect();
            let y: Vec<LocId> = (0..3).map(|i| loc(&program, &format!("y[{i}]"))).collect();
            assert_eq!(cells, y, "{access}");
        }
    }

    #[test]
    fn an_index_register_read_from_memory_is_a_read_term() {
        let (_, events) = build("  int r1 = y[*x];");
        let thread = thread_events(&events);
        let check = thread.iter().find(|e| e.kind == EventKind::Assert).unwrap();
        // The index is the value of the read of x, hoisted before the access.
        let mentions_read = |t: TermId| -> bool {
            fn walk(terms: &Terms, t: TermId, read: EventId) -> bool {
                match *terms.get(t) {
                    Term::Read(e) => e == read,
                    Term::Const(_) => false,
                    Term::Unary(_, a) => walk(terms, a, read),
                    Term::Binary(_, a, b) => walk(terms, a, read) || walk(terms, b, read),
                    Term::Ite(c, a, b) => {
                        walk(terms, c, read) || walk(terms, a, read) || walk(terms, b, read)
                    }
                }
            }
            walk(&events.terms, t, thread[0].id)
        };
        assert_eq!(thread[0].kind, EventKind::Read);
        assert!(mentions_read(check.value.unwrap()));
    }

    /// A thread of the kernel's macros over `x`, `y`, `z`, `w` and `a[2]`, and its
    /// dependencies as `(from, to)` names (`R x`, `W a[1]`, `F`).
    fn dependencies(body: &str) -> (Events, [Vec<(String, String)>; 3]) {
        let text = format!(
            "C t\n{{ x = 0; y = 0; z = 0; w = 0; int a[2] = {{0, 0}}; }}\n\
             P0 (int* x, int* y, int* z, int* w, int* a) {{\n{body}\n}}\nexists (x=0)\n"
        );
        let file = SourceFile::new("t.litmus", text);
        let test =
            crate::load(&file, &Default::default()).unwrap_or_else(|e| panic!("{}", e.short()));
        let name = |e: EventId| {
            let event = &test.events.events[e];
            let kind = match event.kind {
                EventKind::Read => "R",
                EventKind::Write => "W",
                EventKind::Fence => "F",
                _ => "?",
            };
            match event.location {
                Some(l) => format!("{kind} {}", test.program.locations[l].name),
                None => kind.to_string(),
            }
        };
        let named = |list: &[Dependency]| {
            list.iter()
                .map(|d| (name(d.from), name(d.to)))
                .collect::<Vec<_>>()
        };
        let deps = &test.events.dependencies;
        let named = [named(&deps.addr), named(&deps.data), named(&deps.ctrl)];
        (test.events, named)
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn data_flows_through_registers_syntactically() {
        let (events, [addr, data, ctrl]) = dependencies(
            "  int r1 = READ_ONCE(*x);\n  int r2 = r1 - r1;\n  int r3 = r2 + 1;\n\
             WRITE_ONCE(*y, r3);\n  WRITE_ONCE(*z, 1);\n  WRITE_ONCE(*w, READ_ONCE(*y));",
        );
        // `r1 - r1` is not folded away: the dependency is on the syntax, not the value.
        assert_eq!(data, pairs(&[("R x", "W y"), ("R y", "W w")]));
        assert!(addr.is_empty() && ctrl.is_empty(), "{addr:?} {ctrl:?}");
        let one = events
            .terms
            .constant_value(events.dependencies.data[0].when);
        assert_eq!(one, Some(1));
    }

    #[test]
    fn ctrl_reaches_the_branches_of_nested_ifs_and_stops_at_the_join() {
        let (_, [addr, data, ctrl]) = dependencies(
            "  int r1 = READ_ONCE(*x);\n  int r2 = READ_ONCE(*y);\n\
             if (r1) {\n    if (r2 == 1) { WRITE_ONCE(*z, 1); } else { smp_mb(); }\n  }\n\
             WRITE_ONCE(*w, 1);",
        );
        assert_eq!(
            ctrl,
            pairs(&[("R x", "W z"), ("R y", "W z"), ("R x", "F"), ("R y", "F")])
        );
        assert!(addr.is_empty() && data.is_empty(), "{addr:?} {data:?}");
    }

    #[test]
    fn ctrl_reaches_every_iteration_of_a_loop_after_its_test() {
        let (_, [_, _, ctrl]) = dependencies(
            "  int r1 = 0;\n  while (READ_ONCE(*x) == 0 && r1 < 1) {\n    WRITE_ONCE(*y, 1);\n\
             r1 = r1 + 1;\n  }\n  WRITE_ONCE(*w, 1);",
        );
        assert!(!ctrl.is_empty());
        assert!(
            ctrl.iter().all(|(r, w)| r == "R x" && w != "W w"),
            "{ctrl:?}"
        );
        assert!(ctrl.iter().any(|(_, w)| w == "R x"), "{ctrl:?}");
    }

    #[test]
    fn addr_through_an_index_reaches_every_cell_the_access_may_touch() {
        let (_, [addr, data, ctrl]) = dependencies(
            "  int r1 = READ_ONCE(*x);\n  int r2 = READ_ONCE(*(a + (r1 & 1)));\n\
             WRITE_ONCE(*(a + r1 - r1), 2);",
        );
        assert_eq!(
            addr,
            pairs(&[
                ("R x", "R a[0]"),
                ("R x", "R a[1]"),
                ("R x", "W a[0]"),
                ("R x", "W a[1]")
            ])
        );
        assert!(data.is_empty() && ctrl.is_empty(), "{data:?} {ctrl:?}");
    }

    #[test]
    fn a_register_assigned_in_one_branch_depends_on_the_read_when_that_branch_ran() {
        let (events, [_, data, _]) = dependencies(
            "  int r1 = READ_ONCE(*x);\n  int r2 = READ_ONCE(*y);\n  int r3 = 0;\n\
             if (r2) { r3 = r1; }\n  WRITE_ONCE(*z, r3);",
        );
        assert_eq!(data, pairs(&[("R x", "W z")]));
        let d = events.dependencies.data[0];
        let read_y = events.events[events.threads[0][1]].id;
        for (y, holds) in [(0, 0), (1, 1), (5, 1)] {
            let value = |e: EventId| if e == read_y { y } else { 7 };
            assert_eq!(
                events.terms.eval(d.when, &value) != 0,
                holds == 1,
                "y = {y}"
            );
        }
    }
}
