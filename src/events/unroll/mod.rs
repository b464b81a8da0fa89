//! Unrolling each thread into guarded events.

mod access;
mod calls;
mod control;
mod ctrl;
mod dead;
mod exitless;
mod flow;
mod forward;
mod heap;
mod instr;
mod liveness;
mod locks;
mod mutex;
mod recursion;
mod retry;
mod retry_flag;
mod silent;
mod spin_dead;
mod spin_paths;
#[cfg(test)]
mod tests;
mod trail;
mod untouched;
mod values;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

use self::flow::{may_stay_held, registers_of};
use super::{
    bounds, AccessCheck, BoundHit, Call, CallId, Control, ControlId, Dependencies, Dependency,
    Event, EventId, EventKind, Events, Guard, OrderingPoint, TermId, Terms, WaitPoint,
};
use crate::diagnostics::{Diagnostic, InputError, Span};
use crate::program::{
    Address, BinaryOp, CallSite, Expr, Instr, LocId, MemOrder, PointKind, Program, RegId,
    ThreadProgram, UnaryOp,
};

#[derive(Clone, Copy, Debug)]
pub struct UnrollOptions {
    /// How many iterations of each loop to unroll.
    pub unroll: u32,
    /// Stop unrolling as soon as the program has more events than this.
    pub max_events: Option<usize>,
    /// GenMC 0.11's `-unroll=N`: a thread that comes back to a loop's test after N
    /// iterations ends there (GenMC's `__VERIFIER_kill_thread`, before that test's reads):
    /// the rest of the thread does not run, a join of it waits forever, and the execution is
    /// not cut by the bound (docs/unrolling.md, "Threads ended at the bound").
    pub end_threads_at_bound: bool,
    /// Store forwarding (`forward.rs`): a plain read that coherence forces to read its
    /// thread's own latest write loads that write's value term. Exact only under a model
    /// with coherence and no load buffering through thread creation (SC and RC11 as
    /// shipped, no check skipped): the caller says so.
    pub forward_stores: bool,
}

impl Default for UnrollOptions {
    fn default() -> Self {
        UnrollOptions {
            unroll: 2,
            max_events: None,
            end_threads_at_bound: false,
            forward_stores: false,
        }
    }
}

/// The program has more events than [`UnrollOptions::max_events`] allows. The unrolling
/// stopped when the count passed the limit, so the total is not known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooManyEvents {
    pub max: usize,
    /// What to bound: the innermost loop being unrolled when the count passed the limit
    /// (`FILE:LINE:COLUMN`, and its thread), when it was inside a loop.
    pub at: Option<String>,
}

impl fmt::Display for TooManyEvents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "more than {} events exceed --max-events {}",
            self.max, self.max
        )?;
        if let Some(at) = &self.at {
            write!(
                f,
                ", passed while unrolling the loop at {at}: bound that loop (--unroll) or raise \
                 --max-events"
            )?;
        }
        Ok(())
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
    unroll_with(program, options, true)
}

/// [`unroll`] with every compare-exchange retry loop unrolled like any loop: for `infer`,
/// whose solver chooses each access's memory order, while the reduction of a retry loop
/// holds only when its load and its exchange's failure read alike (`retry.rs`).
pub fn unroll_keeping_retry_loops(
    program: &Program,
    options: UnrollOptions,
) -> Result<Events, UnrollError> {
    unroll_with(program, options, false)
}

fn unroll_with(
    program: &Program,
    options: UnrollOptions,
    reduce_retry_loops: bool,
) -> Result<Events, UnrollError> {
    // Large case splits: only the cells a selector can denote (see `values`).
    if values::worth_pruning(program) {
        if let Some(events) = values::fixpoint(program, |assumed| {
            unroll_once(program, options, reduce_retry_loops, Some(assumed))
        })? {
            return Ok(events);
        }
    }
    unroll_once(program, options, reduce_retry_loops, None)
}

/// One unrolling; with `assumed`, each location's values, which prune case splits. With
/// store forwarding, as many as it takes to know which locations each thread writes
/// (`forward.rs`), or, past [`forward::MAX_ROUNDS`], one without forwarding.
fn unroll_once(
    program: &Program,
    options: UnrollOptions,
    reduce_retry_loops: bool,
    assumed: Option<Vec<values::ValueSet>>,
) -> Result<Events, UnrollError> {
    if options.forward_stores && forward::applies(program) {
        let mut writers = forward::Writers::new(program);
        for _ in 0..forward::MAX_ROUNDS {
            let forwarding = forward::Forwarding::new(program, writers.clone());
            let events = unroll_forwarding(
                program,
                options,
                reduce_retry_loops,
                assumed.clone(),
                Some(forwarding),
            )?;
            if !writers.grow(&events) {
                return Ok(events);
            }
        }
    }
    unroll_forwarding(program, options, reduce_retry_loops, assumed, None)
}

/// [`unroll_once`] with the given forwarding, if any.
fn unroll_forwarding(
    program: &Program,
    options: UnrollOptions,
    reduce_retry_loops: bool,
    assumed: Option<Vec<values::ValueSet>>,
    forwarding: Option<forward::Forwarding>,
) -> Result<Events, UnrollError> {
    let mut builder = Builder {
        forwarding,
        storing: false,
        initials: program.locations.iter().map(|l| l.initial).collect(),
        reduce_retry_loops,
        assumed,
        value_memo: values::ValueMemo::new(),
        events: Vec::new(),
        terms: Terms::default(),
        controls: Vec::new(),
        dead_controls: Vec::new(),
        bound_hits: Vec::new(),
        calls: Vec::new(),
        errors: Vec::new(),
        unroll: options.unroll,
        max_events: options.max_events,
        end_threads_at_bound: options.end_threads_at_bound,
        exitless_loops: !options.end_threads_at_bound && exitless::no_error_site(program),
        cut: false,
        cut_in_loop: None,
        control_terms: HashMap::new(),
        waits: Vec::new(),
        may_stay_held: may_stay_held(program),
        plain_written: retry::plain_written(program),
        named_registers: spin_dead::named_registers(program),
        retry_loops: Vec::new(),
        herd_locks: program.locations.iter().map(|l| l.herd_lock).collect(),
        thread_flags: program
            .locations
            .iter()
            .map(|l| super::thread_sync::is_flag(&l.name))
            .collect(),
        memory_mutexes: program.locations.iter().map(|l| l.mutex_memory).collect(),
        destroyed_mutexes: program
            .locations
            .iter()
            .map(|l| l.mutex_destroyed)
            .collect(),
        spin_mutexes: program
            .locations
            .iter()
            .zip(flow::unlocks_matched(program))
            .map(|(l, matched)| l.mutex_memory && !l.mutex_destroyed && matched)
            .collect(),
        addresses: program.locations.iter().map(|l| l.address).collect(),
        access_checks: BTreeMap::new(),
        library_checks: BTreeMap::new(),
        address_controls: Default::default(),
        ordering_points: Vec::new(),
        dependencies: Dependencies::default(),
        heap_blocks: program.heap_blocks(),
        allocated: BTreeSet::new(),
        reallocated: BTreeSet::new(),
        free_checks: BTreeSet::new(),
    };
    let mut init = Vec::new();
    for (loc, location) in program.locations.iter().enumerate() {
        if builder.cut {
            break;
        }
        let value = builder.terms.constant(location.initial);
        let uninitialised = location.heap.is_some_and(|h| !h.zeroed);
        let id = builder.push(Event {
            kind: EventKind::Init,
            location: Some(loc),
            value: Some(value),
            tags: if uninitialised {
                vec![crate::cat::memory::UNINIT_TAG.to_string()]
            } else {
                Vec::new()
            },
            order: if location.declared_atomic {
                MemOrder::Relaxed
            } else {
                MemOrder::NonAtomic
            },
            ..blank_event(None, 0, Span::default())
        });
        init.push(Some(id));
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
        let at = builder.cut_in_loop.map(|(thread, span)| {
            let source = &program.source;
            let (file, _) = source.file_at(span.start);
            let (line, column) = source.line_col(span.start);
            format!("{file}:{line}:{column} (thread P{thread})")
        });
        return Err(UnrollError::TooManyEvents(TooManyEvents { max, at }));
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
        retry_loops: builder.retry_loops,
        calls: builder.calls,
        access_checks: builder.access_checks,
        library_checks: builder.library_checks,
        free_checks: builder.free_checks,
        address_controls: builder.address_controls,
        ordering_points: builder.ordering_points,
        dependencies: builder.dependencies,
        unroll: options.unroll,
        spec: None,
        bounds: bounds::Bounds::default(),
        thread_sync: Default::default(),
    };
    untouched::drop_untouched_inits(program, &mut events);
    events.thread_sync = super::thread_sync::compute(program, &events.events);
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
    /// Store forwarding (`forward.rs`), when the caller allows it and the program's shape
    /// does; `storing` is set while a plain store emits its write.
    forwarding: Option<forward::Forwarding>,
    storing: bool,
    /// Per location, its initial value.
    initials: Vec<i32>,
    events: Vec<Event>,
    terms: Terms,
    controls: Vec<Control>,
    /// Per control, whether it is false in every execution (`dead.rs`).
    dead_controls: Vec<bool>,
    bound_hits: Vec<BoundHit>,
    calls: Vec<Call>,
    errors: Vec<Diagnostic>,
    unroll: u32,
    max_events: Option<usize>,
    /// See [`UnrollOptions::end_threads_at_bound`].
    end_threads_at_bound: bool,
    /// Loops with no exit block for good at their head (`exitless.rs`): the program has no
    /// error site, and no GenMC `-unroll` ends a thread at its bound.
    exitless_loops: bool,
    /// The events passed `max_events`: every recursion returns at once.
    cut: bool,
    /// The innermost loop (thread, span) whose unrolling saw the cut first.
    cut_in_loop: Option<(usize, Span)>,
    /// Per control, once asked for: a term that is 1 exactly when it is true.
    control_terms: HashMap<ControlId, TermId>,
    waits: Vec<WaitPoint>,
    /// Per location: some critical section of it may never release it (see
    /// [`may_stay_held`]), so that a `lock` of it may wait forever.
    may_stay_held: Vec<bool>,
    /// Per location: written non-atomically somewhere, or a heap cell (see
    /// [`retry::plain_written`]): a retry loop reading it is not reduced.
    plain_written: Vec<bool>,
    /// Per thread, the registers the test's condition, filter or `locations` name
    /// ([`spin_dead::named_registers`]).
    named_registers: Vec<std::collections::BTreeSet<crate::program::RegId>>,
    /// The compare-exchange retry loops reduced to their first test: thread and loop.
    retry_loops: Vec<(usize, Span)>,
    /// Whether such loops are reduced ([`unroll_keeping_retry_loops`]).
    reduce_retry_loops: bool,
    /// Per location: a spin lock of herd's `lock.cat` ([`crate::program::Location::herd_lock`]).
    herd_locks: Vec<bool>,
    /// Per location: one of the C front end's create or join flags ([`thread_sync`]).
    thread_flags: Vec<bool>,
    /// Per location: a POSIX mutex that is memory, and one `pthread_mutex_destroy` writes
    /// (`program::mutex`).
    memory_mutexes: Vec<bool>,
    destroyed_mutexes: Vec<bool>,
    /// Per location: a mutex whose critical sections a failed iteration of a spin loop may
    /// hold (`flow::spin_reducible`): memory, so that a section dropped with its iteration
    /// is a lock's read-modify-write and an unlock's write taken out of `co`; never
    /// destroyed, so that its lock reads 0; and every unlock of it of a lock its thread
    /// holds (`flow::unlocks_matched`), so that no other write comes inside the section.
    spin_mutexes: Vec<bool>,
    /// Per location, its address: the keys of an access through a pointer.
    addresses: Vec<i32>,
    access_checks: BTreeMap<EventId, AccessCheck>,
    library_checks: BTreeMap<EventId, crate::program::checks::CheckKind>,
    address_controls: std::collections::BTreeSet<EventId>,
    ordering_points: Vec<OrderingPoint>,
    dependencies: Dependencies,
    /// The program's dynamically allocated blocks, each its cells in order.
    heap_blocks: Vec<Vec<LocId>>,
    /// The blocks (by first cell) allocated so far, and those allocated twice (reported).
    allocated: BTreeSet<LocId>,
    reallocated: BTreeSet<LocId>,
    free_checks: BTreeSet<EventId>,
    /// Per location, the values its reads are assumed to return, when case splits are
    /// pruned by them (see [`values`]).
    assumed: Option<Vec<values::ValueSet>>,
    value_memo: values::ValueMemo,
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
    /// every access and fence emitted here depends on them by `ctrl` (see `ctrl.rs`).
    ctrl: ctrl::CtrlScope,
    /// What register writes inside open branches overwrote (see `trail.rs`).
    trail: Vec<trail::Overwritten>,
    /// The sides of branches being unrolled.
    open_branches: usize,
    /// Which registers a join may leave unmerged (see `liveness.rs`).
    liveness: liveness::Liveness,
    /// The join of the `if` about to be unrolled, taken by `Builder::branch`.
    join: Option<liveness::Join>,
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
    /// The register the cases of a lock chain test (`program::computed_lock::SELECTOR`).
    selector: Option<RegId>,
    /// Store forwarding's registers and state (`forward.rs`), when forwarding.
    forward: Option<forward::ThreadForward>,
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
            ctrl: ctrl::CtrlScope::default(),
            trail: Vec::new(),
            open_branches: 0,
            liveness: liveness::Liveness::new(thread),
            join: None,
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
            selector: values::selector_register(thread),
            forward: self
                .forwarding
                .as_ref()
                .map(|_| forward::ThreadForward::new(thread.registers.len(), index == 0)),
        };
        self.block(&thread.body, &mut state);
        // Forwarding's registers are the unroller's own: not the thread's final registers.
        state.registers.truncate(thread.registers.len());
        state.deps.truncate(thread.registers.len());
        for (_, at_stop) in state.stops.iter_mut() {
            at_stop.truncate(thread.registers.len());
        }
        let spans = state.ctrl_finish();
        self.dependencies.ctrl.extend(spans);
        // A thread that stopped keeps the registers it had there: later assignments are
        // guarded events, but register values are terms, which know no guards.
        for (stopped, registers) in std::mem::take(&mut state.stops).into_iter().rev() {
            for (reg, at_stop) in registers.into_iter().enumerate() {
                state.registers[reg] = self.terms.ite(stopped, at_stop, state.registers[reg]);
            }
        }
        // An unrolling stopped by the event limit never reached the releases: no error.
        for &(_, _, span) in state.held.iter().filter(|_| !self.cut) {
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
        if self.forwarding.is_some() && self.events[id].is_write() {
            if let Some(loc) = self.events[id].location {
                let stored = self.storing.then_some(self.events[id].value).flatten();
                self.note_write(state, loc, stored);
            }
        }
        let kind = self.events[id].kind;
        if self.events[id].is_memory() || kind == EventKind::Fence {
            state.ctrl_target();
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

    /// The reads the enclosing conditions depend on, and those of `cond` besides: what
    /// `cond` changed in them is returned, for [`Builder::leave_condition`] (a copy of the
    /// whole per nesting level made n nested branches cost O(n^2)).
    fn enter_condition(
        &mut self,
        state: &mut ThreadState,
        cond: &Expr,
    ) -> Vec<(EventId, Option<TermId>)> {
        let deps = self.expr_deps(cond, state);
        let mut changed = Vec::with_capacity(deps.len());
        for (read, when) in deps {
            let before = state.ctrl_get(read);
            let joined = match before {
                Some(before) => self.or(before, when),
                None => when,
            };
            changed.push((read, before));
            state.ctrl_set(read, Some(joined));
        }
        changed
    }

    /// The reads the enclosing conditions depend on, as before [`Builder::enter_condition`].
    fn leave_condition(state: &mut ThreadState, changed: Vec<(EventId, Option<TermId>)>) {
        for (read, before) in changed.into_iter().rev() {
            state.ctrl_set(read, before);
        }
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
        let mut skip_to = 0;
        for (i, instr) in instrs.iter().enumerate() {
            if self.cut {
                return;
            }
            if i < skip_to {
                continue;
            }
            // A recursive call past the bound (`recursion.rs`): cut, its body skipped.
            if let Some(exit) = self.recursion_cut(instrs, i, state) {
                skip_to = exit + 1;
                continue;
            }
            // A loop right after the load that feeds it may be a compare-exchange retry
            // loop (`retry.rs`), which needs that load.
            if let Instr::While {
                cond_prelude,
                cond,
                body,
                span,
            } = instr
            {
                let previous = i.checked_sub(1).map(|p| &instrs[p]);
                if self.cas_retry(state, previous, cond_prelude, cond, body, *span)
                    || self.flag_retry(state, &instrs[..i], cond_prelude, cond, body, *span)
                {
                    continue;
                }
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
        self.note_control(control);
        control
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
}
