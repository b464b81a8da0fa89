//! A reference explorer for sequential consistency, for differential testing only.
//!
//! It shares nothing with the product's unroller, encoding or solver: it interprets the
//! program IR directly, one thread step at a time, and enumerates every interleaving by
//! depth-first search. It is meant to be obviously correct, not fast: keep programs small.
//!
//! Semantics (SC, `../shared/guide/semantics.md` sections 2, 4, 5):
//! - a step is one shared-memory operation: a load, a store, a whole read-modify-write
//!   (atomic: nothing runs between its read and its write), a lock (enabled only while the
//!   lock holds 0; it then writes 1), an unlock (writes 0), a fence. Register computations,
//!   branches, asserts and block boundaries are thread-local and run eagerly after a step;
//!   their place in an interleaving is unobservable.
//! - a trace in which some thread can never finish (deadlock on a lock) has no final state
//!   and contributes nothing. A thread whose loop wants one more iteration than `unroll`
//!   stops there, and so does one that makes a recursive call nested deeper than `unroll`
//!   (`CallSite::recursion`); a complete trace in which some thread stopped so only sets `bound_hit`
//!   (the product reports such executions separately and analyses none of them).
//! - a register-indexed access (`a[r0]`) evaluates its index when it runs; an index outside
//!   the array is undefined behaviour: the trace records a failed assertion and the thread
//!   stops there, keeping its registers (its final state is still a final state), and its
//!   open atomic blocks end there for the window check. A failed `assert` is recorded too
//!   and the thread goes on. An `assume` whose condition is false drops the trace: it
//!   does not exist, and nothing it did so far is recorded.
//! - happens-before is program order plus unlock -> the next lock of the same lock in the
//!   trace, plus a release (an atomic write, an unlock) -> an atomic read of the value it
//!   wrote, transitively: vector clocks per thread, per lock and per location's last
//!   release. Two atomic accesses never race.
//! - a block instance is interrupted by a step of another thread that runs after the
//!   block's first operation and before one of its later operations.

use std::collections::BTreeSet;

use nemos::analysis::races::Statement;
use nemos::diagnostics::Span;
use nemos::program::arith::{eval_binary, eval_unary};
use nemos::program::{
    Address, CallArg, Expected, Expr, Instr, LocId, MemOrder, Observable, PointKind, Program,
    RmwOp, Spec, SpecMethod,
};

/// What every complete trace of a program shows, collected over all of them.
#[derive(Debug, Default)]
pub struct Reference {
    /// Final states over `program.observed`, in its order.
    pub outcomes: BTreeSet<Vec<(Observable, i32)>>,
    /// Racing statement pairs, each pair ordered (smaller first).
    pub races: BTreeSet<(Statement, Statement)>,
    /// (atomic block statement, intruding statement).
    pub interruptions: BTreeSet<(Statement, Statement)>,
    /// The interruptions whose intruder touches a location some operation of the block
    /// instance touches, one of the two writing (`--mode window`).
    pub window: BTreeSet<(Statement, Statement)>,
    /// Some trace needed more loop iterations than the bound.
    pub bound_hit: bool,
    /// Some complete or deadlocked trace (within the bound) failed an assertion: an
    /// `assert`, or the implicit bounds check of a register-indexed access.
    pub assertion_failure: bool,
    /// Some trace (within the bound) ends with unfinished threads none of which can move:
    /// each waits for a held lock or spins in a loop whose iterations change nothing.
    pub deadlock: bool,
    /// Some complete trace (within the bound) is not linearizable with respect to the
    /// program's `spec { }` block: no order of its completed method calls that keeps
    /// program order and real time (a call that ended before another began comes first)
    /// gives, run on the sequential versions, the values the calls returned.
    pub non_linearizable: bool,
    /// Some complete trace has no history consistent with its ordering points (CDSSpec's
    /// `opo` between the calls' `ordering_point` accesses) that matches (loosely
    /// exhaustive mode fails).
    pub loose_failure: bool,
    /// Some complete trace has a history consistent with its ordering points that does not
    /// match (strictly exhaustive mode fails).
    pub strict_failure: bool,
    /// Complete traces explored (for sizing tests).
    pub traces: u64,
    /// What `localize` needs of each complete trace (within the bound, no deadlock): the
    /// condition holds, an assertion failed, and the orderings between statements it shows
    /// (`(A, B)`: an access of `A` runs before a conflicting access of `B` of another
    /// thread: same location, one a write).
    pub ordered: BTreeSet<OrderedTrace>,
    /// The search stopped at its budget of states (`explore_within`): the sets above are
    /// then incomplete and must not be compared.
    pub gave_up: bool,
}

/// A complete trace as `localize` sees it: the condition holds, an assertion failed, it is
/// not linearizable against the `spec { }` block, and its orderings of statements.
pub type OrderedTrace = (bool, bool, bool, BTreeSet<(Statement, Statement)>);

/// The IR with loops unrolled into nested branches and compare-exchanges split into their
/// memory steps, so that the interpreter is a plain walk over a tree.
#[derive(Debug)]
enum Step<'a> {
    /// A load, store, read-modify-write, fence, lock or unlock: one shared step.
    Shared(&'a Instr),
    /// The read of a compare-exchange's expected value from memory (herd's form).
    CasExpected {
        loc: LocId,
        span: Span,
    },
    /// The compare-exchange itself: one atomic step.
    Cas(&'a Instr),
    /// After a failed compare-exchange with a location as expected value: write the value
    /// read back to that location (a separate, plain store).
    CasWriteBack {
        loc: LocId,
        span: Span,
    },
    /// Assign or assert: local.
    Local(&'a Instr),
    If {
        cond: &'a Expr,
        then_branch: Vec<Step<'a>>,
        else_branch: Vec<Step<'a>>,
    },
    Atomic {
        span: Span,
        body: Vec<Step<'a>>,
    },
    /// A loop wants one more iteration than the bound allows.
    BoundHit,
    /// A loop the product reduces as a spin loop, run concretely without a bound: the
    /// prelude, then the test; while it holds, the body and the prelude again.
    Spin {
        prelude: Vec<Step<'a>>,
        cond: &'a Expr,
        body: Vec<Step<'a>>,
    },
}

fn expand<'a>(instrs: &'a [Instr], unroll: u32, spins: &[Span]) -> Vec<Step<'a>> {
    let mut out = Vec::new();
    for instr in instrs {
        match instr {
            Instr::Load { .. }
            | Instr::Store { .. }
            | Instr::Rmw { .. }
            | Instr::Fence { .. }
            | Instr::Lock { .. }
            | Instr::Unlock { .. } => out.push(Step::Shared(instr)),
            Instr::Assign { .. }
            | Instr::CheckIndex { .. }
            | Instr::Assert { .. }
            | Instr::Check { .. }
            | Instr::Assume { .. }
            | Instr::CallEnter { .. }
            | Instr::CallExit { .. } => out.push(Step::Local(instr)),
            // The explorer does not model allocation (no generated program allocates):
            // the cells exist from the start, `free` changes nothing.
            Instr::Alloc { .. } | Instr::Free { .. } => {}
            Instr::CompareExchange { expected, span, .. } => {
                if let Expected::Location(e) = expected {
                    out.push(Step::CasExpected {
                        loc: *e,
                        span: *span,
                    });
                }
                out.push(Step::Cas(instr));
                if let Expected::Location(e) = expected {
                    out.push(Step::CasWriteBack {
                        loc: *e,
                        span: *span,
                    });
                }
            }
            Instr::If {
                cond,
                then_branch,
                else_branch,
                ..
            } => out.push(Step::If {
                cond,
                then_branch: expand(then_branch, unroll, spins),
                else_branch: expand(else_branch, unroll, spins),
            }),
            Instr::While {
                cond_prelude,
                cond,
                body,
                span,
            } if spins.contains(span) => out.push(Step::Spin {
                prelude: expand(cond_prelude, unroll, spins),
                cond,
                body: expand(body, unroll, spins),
            }),
            Instr::While {
                cond_prelude,
                cond,
                body,
                ..
            } => out.extend(expand_loop(cond_prelude, cond, body, unroll, unroll, spins)),
            Instr::AtomicBlock { body, span } => out.push(Step::Atomic {
                span: *span,
                body: expand(body, unroll, spins),
            }),
        }
    }
    out
}

/// `while (c) b` with `remaining` iterations left: `p; if (c) { b; <loop, remaining-1> }`,
/// and with none left, `p; if (c) HIT`.
fn expand_loop<'a>(
    prelude: &'a [Instr],
    cond: &'a Expr,
    body: &'a [Instr],
    remaining: u32,
    unroll: u32,
    spins: &[Span],
) -> Vec<Step<'a>> {
    let mut out = expand(prelude, unroll, spins);
    let then_branch = if remaining == 0 {
        vec![Step::BoundHit]
    } else {
        let mut t = expand(body, unroll, spins);
        t.extend(expand_loop(
            prelude,
            cond,
            body,
            remaining - 1,
            unroll,
            spins,
        ));
        t
    };
    out.push(Step::If {
        cond,
        then_branch,
        else_branch: Vec::new(),
    });
    out
}

/// The cell an access touches with these register values; `None` when the index is outside
/// the array.
fn cell(program: &Program, address: &Address, regs: &[i32]) -> Option<LocId> {
    match address {
        Address::Fixed(loc) => Some(*loc),
        Address::Indexed { cells, index } => usize::try_from(eval(index, regs))
            .ok()
            .and_then(|i| cells.get(i).copied()),
        // The location at that address, whatever the points-to analysis said: the
        // explorer does not trust it.
        Address::Pointer { value, .. } => {
            let value = eval(value, regs);
            program.locations.iter().position(|l| l.address == value)
        }
    }
}

fn eval(expr: &Expr, regs: &[i32]) -> i32 {
    match expr {
        Expr::Const(v) => *v,
        Expr::Reg(r) => regs[*r],
        Expr::Unary(op, a) => eval_unary(*op, eval(a, regs)),
        Expr::Binary(op, a, b) => eval_binary(*op, eval(a, regs), eval(b, regs)),
        Expr::Conditional(c, a, b) => {
            if eval(c, regs) != 0 {
                eval(a, regs)
            } else {
                eval(b, regs)
            }
        }
    }
}

#[derive(Clone, Debug)]
struct Frame<'a> {
    steps: &'a [Step<'a>],
    pc: usize,
    /// This frame is the body of an atomic block: leaving it closes the innermost block.
    atomic: bool,
    /// This frame is a spin loop's prelude: at its end the loop's test runs, with the
    /// registers, memory and other threads' changes at the previous test that went on.
    spin: Option<SpinFrame<'a>>,
}

#[derive(Clone, Debug)]
struct SpinFrame<'a> {
    cond: &'a Expr,
    body: &'a [Step<'a>],
    last: Option<SpinState>,
}

/// What a spin loop's next iteration depends on: the thread's registers, memory, and how
/// many times other threads changed a value in memory. Memory alone can repeat after
/// other threads wrote a value and then the old one back (ABA) during the iteration, and a
/// compare-exchange retry loop that failed on the middle value would succeed if run again;
/// only an iteration that no other thread disturbed repeats itself for good.
type SpinState = (Vec<i32>, Vec<i32>, u64);

/// One executing instance of an `atomic { }` block.
#[derive(Clone, Debug)]
struct OpenBlock {
    statement: Statement,
    /// The block has executed an operation.
    started: bool,
    /// Steps of other threads that ran after the block's first operation, with the
    /// locations they touched; each becomes an interruption when the block runs another
    /// operation.
    pending: Vec<(Statement, Touched)>,
    /// Interruptions so far, for the window check when the block ends.
    confirmed: Vec<(Statement, Touched)>,
    /// Every location the block's operations touched so far.
    touched: Touched,
}

/// Locations a step touched, each with whether it wrote there.
type Touched = Vec<(LocId, bool)>;

fn overlaps(a: &Touched, b: &Touched) -> bool {
    a.iter()
        .any(|&(l, w)| b.iter().any(|&(m, v)| l == m && (w || v)))
}

#[derive(Clone, Debug)]
struct ThreadState<'a> {
    regs: Vec<i32>,
    frames: Vec<Frame<'a>>,
    blocks: Vec<OpenBlock>,
    clock: Vec<u32>,
    /// The expected value a compare-exchange read from memory.
    cas_expected: i32,
    /// After a failed compare-exchange with a location as expected value: the value to
    /// write back.
    cas_write_back: Option<i32>,
    /// A loop of this thread needed more iterations than the bound: the thread stopped.
    hit: bool,
    /// An assertion of this thread failed (an out-of-bounds index also stops it).
    failed: bool,
    /// An `assume` of this thread was false: the trace does not exist.
    vanished: bool,
    /// Calls of functions the `spec` block describes, made by the thread itself.
    methods: Vec<MethodCall>,
    /// How many calls are open (the thread's own, and those they make).
    depth: usize,
    /// The thread's last memory access (location, coherence place, read), `None` after a
    /// compare-exchange that failed (its write, the access an ordering point after it
    /// names, did not happen).
    last_access: Option<(LocId, u32, bool)>,
    /// Of the state's `changes`, those this thread's steps made.
    own_changes: u64,
}

/// An ordering point's access: its location, the place in the location's coherence order of
/// the write it is or reads from, and whether it is a read.
type PointPlace = (LocId, u32, bool);

/// A method call of a trace: its arguments, its value when it returned, and the steps
/// (of the whole trace) of its first and last memory access.
#[derive(Clone, Debug)]
struct MethodCall {
    function: String,
    args: Vec<i32>,
    value: Option<i32>,
    done: bool,
    first: Option<u64>,
    last: Option<u64>,
    /// Its active ordering points: (location, place in the location's coherence order of
    /// the write it is or reads from, it is a read).
    points: Vec<PointPlace>,
    /// Its potential ordering points so far: label, and the access (`None` after a failed
    /// compare-exchange).
    potentials: Vec<(i32, Option<PointPlace>)>,
    thread: usize,
    /// Its thread's own clock component when it began: the thread's steps from then on
    /// have greater epochs.
    begin_epoch: u32,
    /// Its thread's clock when it returned.
    end_clock: Vec<u32>,
}

impl MethodCall {
    /// Its beginning happens before the end of `later`.
    fn synchronises_with(&self, later: &MethodCall) -> bool {
        later.end_clock[self.thread] > self.begin_epoch
    }
}

/// One data access of a trace so far, for race detection.
#[derive(Clone, Debug)]
struct Access {
    thread: usize,
    statement: Statement,
    loc: LocId,
    write: bool,
    atomic: bool,
    /// The thread's own clock component at the access.
    epoch: u32,
}

#[derive(Clone, Debug)]
struct State<'a> {
    memory: Vec<i32>,
    threads: Vec<ThreadState<'a>>,
    lock_clocks: Vec<Vec<u32>>,
    /// Per location, the clock of its last write when that write releases (an atomic write
    /// or an unlock): an atomic read of it synchronises with it. `None` after a plain write
    /// and initially.
    release_clocks: Vec<Option<Vec<u32>>>,
    accesses: Vec<Access>,
    races: BTreeSet<(Statement, Statement)>,
    interruptions: BTreeSet<(Statement, Statement)>,
    window: BTreeSet<(Statement, Statement)>,
    /// Shared steps run so far.
    steps: u64,
    /// Per location, the writes so far (the initial one is place 0).
    writes: Vec<u32>,
    /// Shared steps so far that changed a value in memory.
    changes: u64,
}

/// What running a thread's local steps found.
enum Next<'a> {
    /// The thread's next step is this shared step.
    Step(&'a Step<'a>),
    Done,
    BoundHit,
    /// Spinning: the last iteration changed nothing, and nothing changed memory since.
    Stuck,
}

struct Explorer<'p> {
    program: &'p Program,
    /// The bound: a recursive call deeper than it stops its thread, as a loop's
    /// iteration past it does.
    unroll: u32,
    result: Reference,
    /// States the search may still visit.
    budget: u64,
}

/// Explore every SC trace of `program`, loops unrolled `unroll` times.
pub fn explore(program: &Program, unroll: u32) -> Reference {
    explore_with_spins(program, unroll, &[])
}

/// The same, with the loops at `spins` (the product's reduced spin loops) run without a
/// bound: an iteration that ends where it started (registers and memory) is not run again
/// until memory changes, so the search ends.
pub fn explore_with_spins(program: &Program, unroll: u32, spins: &[Span]) -> Reference {
    explore_within(program, unroll, spins, u64::MAX)
}

/// `explore_with_spins` visiting at most `budget` states; a random test whose program is
/// too large for brute force is then discarded (`Reference::gave_up`), not waited for.
pub fn explore_within(program: &Program, unroll: u32, spins: &[Span], budget: u64) -> Reference {
    let bodies: Vec<Vec<Step>> = program
        .threads
        .iter()
        .map(|t| expand(&t.body, unroll, spins))
        .collect();
    let n = program.threads.len();
    let threads = program
        .threads
        .iter()
        .zip(&bodies)
        .map(|(t, body)| ThreadState {
            regs: t.registers.iter().map(|r| r.initial).collect(),
            frames: vec![Frame {
                steps: body,
                pc: 0,
                atomic: false,
                spin: None,
            }],
            blocks: Vec::new(),
            clock: vec![0; n],
            cas_expected: 0,
            cas_write_back: None,
            hit: false,
            failed: false,
            vanished: false,
            methods: Vec::new(),
            depth: 0,
            last_access: None,
            own_changes: 0,
        })
        .collect();
    let state = State {
        memory: program.locations.iter().map(|l| l.initial).collect(),
        threads,
        lock_clocks: vec![vec![0; n]; program.locations.len()],
        release_clocks: vec![None; program.locations.len()],
        accesses: Vec::new(),
        races: BTreeSet::new(),
        interruptions: BTreeSet::new(),
        window: BTreeSet::new(),
        steps: 0,
        writes: vec![0; program.locations.len()],
        changes: 0,
    };
    let mut explorer = Explorer {
        program,
        unroll,
        result: Reference::default(),
        budget,
    };
    explorer.dfs(state);
    explorer.result
}

impl<'p> Explorer<'p> {
    fn dfs<'a>(&mut self, mut state: State<'a>) {
        if self.budget == 0 {
            self.result.gave_up = true;
            return;
        }
        self.budget -= 1;
        let n = state.threads.len();
        let mut next = Vec::with_capacity(n);
        let mut stuck = false;
        for t in 0..n {
            match self.settle(&mut state, t) {
                Next::Stuck => {
                    stuck = true;
                    next.push(None);
                }
                Next::BoundHit => {
                    let th = &mut state.threads[t];
                    th.hit = true;
                    th.frames.clear();
                    th.blocks.clear();
                    next.push(None);
                }
                Next::Done => next.push(None),
                Next::Step(step) => next.push(Some(step)),
            }
        }
        if state.threads.iter().any(|t| t.vanished) {
            return;
        }
        if next.iter().all(Option::is_none) && !stuck {
            self.complete(state);
            return;
        }
        let mut moved = false;
        for (t, step) in next.iter().enumerate() {
            let Some(step) = step else { continue };
            if !self.enabled(&state, step) {
                continue;
            }
            moved = true;
            let mut child = state.clone();
            self.run(&mut child, t, step);
            self.dfs(child);
        }
        if !moved {
            self.deadlocked(&state);
        }
    }

    /// No thread can move and some has not finished: a deadlock, not a final state (or a
    /// bound hit, when a thread stopped at the bound holds what the others wait for).
    fn deadlocked(&mut self, state: &State) {
        let program = self.program;
        let value_of = |o: Observable| match o {
            Observable::Reg { thread, reg } => state.threads[thread].regs[reg],
            Observable::Loc(l) => state.memory[l],
        };
        if program.filter.as_ref().is_some_and(|f| !f.eval(&value_of)) {
            return;
        }
        if state.threads.iter().any(|t| t.hit) {
            self.result.bound_hit = true;
        } else {
            self.result.deadlock = true;
            // An assertion that failed on the way is a failure of a reachable state, as
            // GenMC reports it on a blocked execution.
            self.result.assertion_failure |= state.threads.iter().any(|t| t.failed);
        }
    }

    /// Run thread `t`'s local steps up to its next shared step.
    fn settle<'a>(&self, state: &mut State<'a>, t: usize) -> Next<'a> {
        let thread_index = t;
        let th = &mut state.threads[t];
        loop {
            let Some(frame) = th.frames.last_mut() else {
                return Next::Done;
            };
            let steps: &'a [Step<'a>] = frame.steps;
            let Some(step) = steps.get(frame.pc) else {
                if let Some(spin) = &mut frame.spin {
                    if eval(spin.cond, &th.regs) != 0 {
                        let by_others = state.changes - th.own_changes;
                        let now = (th.regs.clone(), state.memory.clone(), by_others);
                        if spin.last.as_ref() == Some(&now) {
                            return Next::Stuck;
                        }
                        spin.last = Some(now);
                        frame.pc = 0;
                        let body = spin.body;
                        th.frames.push(Frame {
                            steps: body,
                            pc: 0,
                            atomic: false,
                            spin: None,
                        });
                        continue;
                    }
                }
                let frame = th.frames.pop();
                if frame.is_some_and(|f| f.atomic) {
                    // The block instance is over: all it touched is known.
                    if let Some(block) = th.blocks.pop() {
                        for (intruder, touched) in &block.confirmed {
                            if overlaps(touched, &block.touched) {
                                state.window.insert((block.statement, *intruder));
                            }
                        }
                    }
                }
                continue;
            };
            match step {
                Step::Shared(instr) | Step::Cas(instr) => {
                    let in_bounds = instr
                        .address()
                        .is_none_or(|a| cell(self.program, a, &th.regs).is_some());
                    if !in_bounds {
                        stop_undefined(th, &mut state.window);
                        return Next::Done;
                    }
                    return Next::Step(step);
                }
                Step::CasExpected { .. } => return Next::Step(step),
                Step::CasWriteBack { .. } => {
                    if th.cas_write_back.is_some() {
                        return Next::Step(step);
                    }
                    frame.pc += 1;
                }
                Step::BoundHit => return Next::BoundHit,
                Step::Local(instr) => {
                    frame.pc += 1;
                    match instr {
                        Instr::Assign { dst, value, .. } => {
                            th.regs[*dst] = eval(value, &th.regs);
                            let annotation = self.program.threads[thread_index]
                                .ordering_points
                                .iter()
                                .find(|(r, _)| r == dst)
                                .map(|&(_, kind)| kind);
                            let holds = th.regs[*dst] != 0;
                            let access = th.last_access;
                            if let (Some(kind), Some(m)) =
                                (annotation, th.methods.last_mut().filter(|m| !m.done))
                            {
                                match kind {
                                    PointKind::Define if holds => m.points.extend(access),
                                    PointKind::Potential(label) => {
                                        m.potentials.push((label, access))
                                    }
                                    PointKind::Check(label) if holds => {
                                        let latest =
                                            m.potentials.iter().rev().find(|p| p.0 == label);
                                        if let Some(&(_, Some(point))) = latest {
                                            m.points.push(point);
                                        }
                                    }
                                    PointKind::Clear if holds => m.points.clear(),
                                    _ => {}
                                }
                            }
                        }
                        // A library's check fails as an assertion does.
                        Instr::Assert { cond, .. } | Instr::Check { cond, .. } => {
                            th.failed |= eval(cond, &th.regs) == 0
                        }
                        Instr::CheckIndex { index, limit, .. } => {
                            let index = eval(index, &th.regs);
                            if index < 0 || index >= *limit as i32 {
                                stop_undefined(th, &mut state.window);
                                return Next::Done;
                            }
                        }
                        // The trace does not exist: it leaves nothing behind.
                        Instr::Assume { cond, .. } if eval(cond, &th.regs) == 0 => {
                            th.vanished = true;
                            th.frames.clear();
                            return Next::Done;
                        }
                        Instr::CallEnter { call, .. }
                            if self.program.threads[thread_index].calls[*call].recursion
                                > self.unroll =>
                        {
                            return Next::BoundHit;
                        }
                        Instr::CallEnter { bind, call, .. } => {
                            // All at once: every value is computed before any is assigned.
                            let values: Vec<i32> =
                                bind.iter().map(|(_, e)| eval(e, &th.regs)).collect();
                            for ((dst, _), v) in bind.iter().zip(values) {
                                th.regs[*dst] = v;
                            }
                            th.depth += 1;
                            let site = &self.program.threads[thread_index].calls[*call];
                            let specified = self
                                .program
                                .spec
                                .as_ref()
                                .is_some_and(|s| s.method(&site.function).is_some());
                            if th.depth == 1 && specified {
                                // A pointer reaches the sequential version as 0.
                                let args = site
                                    .args
                                    .iter()
                                    .map(|a| match a {
                                        CallArg::Value { reg, .. } => th.regs[*reg],
                                        CallArg::Pointer { .. } => 0,
                                    })
                                    .collect();
                                th.methods.push(MethodCall {
                                    function: site.function.clone(),
                                    args,
                                    value: None,
                                    done: false,
                                    first: None,
                                    last: None,
                                    points: Vec::new(),
                                    potentials: Vec::new(),
                                    thread: thread_index,
                                    begin_epoch: th.clock[thread_index],
                                    end_clock: Vec::new(),
                                });
                            }
                        }
                        Instr::CallExit { call, .. } => {
                            th.depth -= 1;
                            if th.depth == 0 {
                                let site = &self.program.threads[thread_index].calls[*call];
                                if let Some(m) = th.methods.last_mut().filter(|m| !m.done) {
                                    m.value = site.ret.map(|r| th.regs[r]);
                                    m.done = true;
                                    m.end_clock = th.clock.clone();
                                }
                            }
                        }
                        _ => {}
                    }
                }
                Step::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    frame.pc += 1;
                    let taken = if eval(cond, &th.regs) != 0 {
                        then_branch
                    } else {
                        else_branch
                    };
                    th.frames.push(Frame {
                        steps: taken,
                        pc: 0,
                        atomic: false,
                        spin: None,
                    });
                }
                Step::Atomic { span, body } => {
                    frame.pc += 1;
                    th.blocks.push(OpenBlock {
                        statement: statement(thread_index, *span),
                        started: false,
                        pending: Vec::new(),
                        confirmed: Vec::new(),
                        touched: Vec::new(),
                    });
                    th.frames.push(Frame {
                        steps: body,
                        pc: 0,
                        atomic: true,
                        spin: None,
                    });
                }
                Step::Spin {
                    prelude,
                    cond,
                    body,
                } => {
                    frame.pc += 1;
                    th.frames.push(Frame {
                        steps: prelude,
                        pc: 0,
                        atomic: false,
                        spin: Some(SpinFrame {
                            cond,
                            body,
                            last: None,
                        }),
                    });
                }
            }
        }
    }

    fn enabled(&self, state: &State, step: &Step) -> bool {
        match step {
            Step::Shared(Instr::Lock { loc, .. }) => state.memory[*loc] == 0,
            _ => true,
        }
    }

    /// Execute thread `t`'s shared step `step` (enabled) and record what it shows.
    fn run<'a>(&self, state: &mut State<'a>, t: usize, step: &'a Step<'a>) {
        let program = self.program;
        {
            state.steps += 1;
            let now = state.steps;
            let th = &mut state.threads[t];
            th.clock[t] += 1;
            if let Some(frame) = th.frames.last_mut() {
                frame.pc += 1;
            }
            // A fence is no memory access: it does not place a call in real time.
            let fence = matches!(step, Step::Shared(Instr::Fence { .. }));
            if let Some(m) = th.methods.last_mut().filter(|m| !m.done && !fence) {
                m.first.get_or_insert(now);
                m.last = Some(now);
            }
        }
        // (location, writes, order) of each data access the step makes.
        let mut accesses: Vec<(LocId, bool, MemOrder)> = Vec::new();
        let span;
        let memory_before = state.memory.clone();
        {
            let memory = &mut state.memory;
            let th = &mut state.threads[t];
            match step {
                Step::Shared(instr) => match instr {
                    Instr::Load {
                        dst,
                        loc,
                        order,
                        span: s,
                        ..
                    } => {
                        let loc = &resolve(program, loc, &th.regs);
                        th.regs[*dst] = memory[*loc];
                        accesses.push((*loc, false, *order));
                        span = *s;
                    }
                    Instr::Store {
                        loc,
                        value,
                        order,
                        span: s,
                        ..
                    } => {
                        let loc = &resolve(program, loc, &th.regs);
                        memory[*loc] = eval(value, &th.regs);
                        accesses.push((*loc, true, *order));
                        span = *s;
                    }
                    Instr::Rmw {
                        dst,
                        loc,
                        op,
                        operand,
                        order,
                        unless,
                        span: s,
                        ..
                    } => {
                        let loc = &resolve(program, loc, &th.regs);
                        let operand = eval(operand, &th.regs);
                        let old = memory[*loc];
                        // `atomic_add_unless` that finds its value: the read alone.
                        let writes = unless.as_ref().is_none_or(|u| eval(u, &th.regs) != old);
                        if writes {
                            memory[*loc] = match op {
                                RmwOp::Exchange => operand,
                                RmwOp::Fetch(op) => eval_binary(*op, old, operand),
                                RmwOp::Extreme { min, unsigned } => {
                                    let old_less = if *unsigned {
                                        (old as u32) < (operand as u32)
                                    } else {
                                        old < operand
                                    };
                                    if old_less != *min {
                                        operand
                                    } else {
                                        old
                                    }
                                }
                            };
                        }
                        if let Some(dst) = dst {
                            th.regs[*dst] = old;
                        }
                        accesses.push((*loc, false, *order));
                        if writes {
                            accesses.push((*loc, true, *order));
                        }
                        span = *s;
                    }
                    Instr::Fence { span: s, .. } => span = *s,
                    Instr::Lock { loc, span: s } => {
                        memory[*loc] = 1;
                        let lock_clock = &state.lock_clocks[*loc];
                        for (mine, theirs) in th.clock.iter_mut().zip(lock_clock) {
                            *mine = (*mine).max(*theirs);
                        }
                        span = *s;
                    }
                    Instr::Unlock { loc, span: s } => {
                        memory[*loc] = 0;
                        state.lock_clocks[*loc] = th.clock.clone();
                        span = *s;
                    }
                    _ => unreachable!("not a shared step: {instr:?}"),
                },
                Step::CasExpected { loc, span: s } => {
                    th.cas_expected = memory[*loc];
                    accesses.push((*loc, false, MemOrder::NonAtomic));
                    span = *s;
                }
                Step::Cas(Instr::CompareExchange {
                    dst,
                    loc,
                    expected,
                    desired,
                    success,
                    span: s,
                    ..
                }) => {
                    let expected_value = match expected {
                        Expected::Location(_) => th.cas_expected,
                        Expected::Register(r) => th.regs[*r],
                    };
                    let desired = eval(desired, &th.regs);
                    let loc = &resolve(program, loc, &th.regs);
                    let old = memory[*loc];
                    let succeeded = old == expected_value;
                    // The product labels the read with the success order whatever happens.
                    accesses.push((*loc, false, *success));
                    if succeeded {
                        memory[*loc] = desired;
                        accesses.push((*loc, true, *success));
                    } else {
                        match expected {
                            Expected::Location(_) => th.cas_write_back = Some(old),
                            Expected::Register(r) => th.regs[*r] = old,
                        }
                    }
                    if let Some(dst) = dst {
                        th.regs[*dst] = succeeded as i32;
                    }
                    span = *s;
                }
                Step::CasWriteBack { loc, span: s } => {
                    memory[*loc] = th.cas_write_back.take().unwrap_or(0);
                    accesses.push((*loc, true, MemOrder::NonAtomic));
                    span = *s;
                }
                _ => unreachable!("not a shared step: {step:?}"),
            }
        }
        {
            let th = &mut state.threads[t];
            if state.memory != memory_before {
                state.changes += 1;
                th.own_changes += 1;
            }
            for &(loc, write, _) in &accesses {
                if write {
                    state.writes[loc] += 1;
                }
                th.last_access = Some((loc, state.writes[loc], !write));
            }
            if matches!(step, Step::Cas(_)) && !accesses.iter().any(|a| a.1) {
                th.last_access = None;
            }
        }
        // Under SC every atomic access synchronises: an atomic read joins the clock of the
        // release it reads from (the location's last write), in the order of the step's
        // accesses (an RMW reads, then writes).
        {
            let th = &mut state.threads[t];
            for &(loc, write, order) in &accesses {
                let atomic = order != MemOrder::NonAtomic;
                if !write && atomic {
                    if let Some(release) = &state.release_clocks[loc] {
                        for (mine, theirs) in th.clock.iter_mut().zip(release) {
                            *mine = (*mine).max(*theirs);
                        }
                    }
                } else if write {
                    state.release_clocks[loc] = atomic.then(|| th.clock.clone());
                }
            }
            match step {
                Step::Shared(Instr::Lock { loc, .. }) => state.release_clocks[*loc] = None,
                Step::Shared(Instr::Unlock { loc, .. }) => {
                    state.release_clocks[*loc] = Some(th.clock.clone());
                }
                _ => {}
            }
        }
        let me = statement(t, span);
        let mut touched: Touched = accesses.iter().map(|&(l, w, _)| (l, w)).collect();
        match step {
            Step::Shared(Instr::Lock { loc, .. }) => touched.extend([(*loc, false), (*loc, true)]),
            Step::Shared(Instr::Unlock { loc, .. }) => touched.push((*loc, true)),
            _ => {}
        }
        // Races with every earlier conflicting access not hb-before this one.
        let clock = state.threads[t].clock.clone();
        for (loc, write, order) in accesses {
            if program.locations[loc].is_lock {
                continue;
            }
            let atomic = order != MemOrder::NonAtomic;
            for a in &state.accesses {
                let conflicting = a.loc == loc && a.thread != t && (a.write || write);
                let ordered = a.epoch <= clock[a.thread];
                if conflicting && !(a.atomic && atomic) && !ordered {
                    let key = if a.statement <= me {
                        (a.statement, me)
                    } else {
                        (me, a.statement)
                    };
                    state.races.insert(key);
                }
            }
            state.accesses.push(Access {
                thread: t,
                statement: me,
                loc,
                write,
                atomic,
                epoch: clock[t],
            });
        }
        // Atomicity: this step is an operation of every block open in its thread, and
        // intrudes into every started block of the other threads.
        for (u, th) in state.threads.iter_mut().enumerate() {
            for block in &mut th.blocks {
                if u == t {
                    block.started = true;
                    block.touched.extend(touched.iter().copied());
                    for (intruder, its) in std::mem::take(&mut block.pending) {
                        state.interruptions.insert((block.statement, intruder));
                        block.confirmed.push((intruder, its));
                    }
                } else if block.started {
                    block.pending.push((me, touched.clone()));
                }
            }
        }
    }

    fn complete(&mut self, state: State) {
        let program = self.program;
        let value_of = |o: Observable| match o {
            Observable::Reg { thread, reg } => state.threads[thread].regs[reg],
            Observable::Loc(l) => state.memory[l],
        };
        if let Some(filter) = &program.filter {
            if !filter.eval(&value_of) {
                return;
            }
        }
        if state.threads.iter().any(|t| t.hit) {
            self.result.bound_hit = true;
            return;
        }
        self.result.traces += 1;
        let failed = state.threads.iter().any(|t| t.failed);
        self.result.assertion_failure |= failed;
        let satisfies = program
            .condition
            .as_ref()
            .is_none_or(|c| c.prop.eval(&value_of));
        let mut orderings = BTreeSet::new();
        for (i, a) in state.accesses.iter().enumerate() {
            for b in &state.accesses[i + 1..] {
                if a.loc == b.loc && a.thread != b.thread && (a.write || b.write) {
                    orderings.insert((a.statement, b.statement));
                }
            }
        }
        let values = program.observed.iter().map(|&o| (o, value_of(o))).collect();
        self.result.outcomes.insert(values);
        self.result.races.extend(state.races.iter().copied());
        self.result
            .interruptions
            .extend(state.interruptions.iter().copied());
        self.result.window.extend(state.window.iter().copied());
        let mut non_linearizable = false;
        if let Some(spec) = &program.spec {
            let calls: Vec<Vec<MethodCall>> = state
                .threads
                .iter()
                .map(|t| t.methods.iter().filter(|m| m.done).cloned().collect())
                .collect();
            let memory: Vec<i32> = spec.program.locations.iter().map(|l| l.initial).collect();
            let mut next = vec![0; calls.len()];
            let by_time = |a: &MethodCall, b: &MethodCall| match (a.last, b.first) {
                (Some(end), Some(begin)) => end < begin,
                _ => false,
            };
            if !linearize(
                spec,
                &calls,
                &mut next,
                memory.clone(),
                &by_time,
                false,
                false,
            ) {
                self.result.non_linearizable = true;
                non_linearizable = true;
            }
            let by_points = |a: &MethodCall, b: &MethodCall| {
                a.points.iter().any(|x| {
                    b.points
                        .iter()
                        .any(|y| x.0 == y.0 && (x.1, x.2) < (y.1, y.2))
                })
            };
            if !linearize(
                spec,
                &calls,
                &mut next,
                memory.clone(),
                &by_points,
                false,
                false,
            ) {
                self.result.loose_failure = true;
            }
            if linearize(spec, &calls, &mut next, memory, &by_points, true, false) {
                self.result.strict_failure = true;
            }
        }
        self.result
            .ordered
            .insert((satisfies, failed, non_linearizable, orderings));
    }
}

/// Some order of the calls not yet placed (`next[t]` is thread `t`'s first) keeps program
/// order and `before` (a call of another thread for which `before(d, c)` holds comes
/// before `c`) and, run on the sequential versions from `memory`, gives each call its value.
/// With `failing`: some such complete order does not give some call its value (`mismatched`:
/// the calls placed so far already include one).
fn linearize(
    spec: &Spec,
    calls: &[Vec<MethodCall>],
    next: &mut [usize],
    memory: Vec<i32>,
    before: &dyn Fn(&MethodCall, &MethodCall) -> bool,
    failing: bool,
    mismatched: bool,
) -> bool {
    if (0..calls.len()).all(|t| next[t] == calls[t].len()) {
        return mismatched == failing;
    }
    for t in 0..calls.len() {
        let Some(call) = calls[t].get(next[t]) else {
            continue;
        };
        // A call of another thread, not placed yet, that ended before this one began must
        // come first.
        let overtakes = (0..calls.len())
            .filter(|&u| u != t)
            .any(|u| calls[u][next[u]..].iter().any(|d| before(d, call)));
        if overtakes {
            continue;
        }
        let Some(method) = spec.method(&call.function) else {
            continue;
        };
        let mut after = memory.clone();
        let value = run_sequential(&spec.program, method, &call.args, &mut after);
        // A call placed before this one that a synchronisation rule relates to it must
        // synchronise with it.
        let unsynchronised = (0..calls.len()).filter(|&u| u != t).any(|u| {
            calls[u][..next[u]].iter().any(|earlier| {
                !earlier.synchronises_with(call) && rule_applies(spec, earlier, call, &memory)
            })
        });
        let wrong =
            (value.is_some() && call.value.is_some() && value != call.value) || unsynchronised;
        if wrong && !failing {
            continue;
        }
        next[t] += 1;
        let fits = linearize(
            spec,
            calls,
            next,
            after,
            before,
            failing,
            mismatched || wrong,
        );
        next[t] -= 1;
        if fits {
            return true;
        }
    }
    false
}

/// Some synchronisation rule relates `earlier` (placed first) to `later`: its patterns name
/// their functions and its condition holds on their arguments and values.
fn rule_applies(spec: &Spec, earlier: &MethodCall, later: &MethodCall, memory: &[i32]) -> bool {
    spec.rules.iter().any(|rule| {
        if rule.before != earlier.function || rule.after != later.function {
            return false;
        }
        let mut args = earlier.args.clone();
        if rule.binds_before_value {
            args.extend(earlier.value);
        }
        args.extend(&later.args);
        if rule.binds_after_value {
            args.extend(later.value);
        }
        let mut scratch = memory.to_vec();
        run_sequential(&spec.program, &rule.condition, &args, &mut scratch) != Some(0)
    })
}

/// One call of a sequential version, concretely, on `memory`; its value.
fn run_sequential(
    program: &Program,
    method: &SpecMethod,
    args: &[i32],
    memory: &mut [i32],
) -> Option<i32> {
    let thread = &program.threads[method.thread];
    let mut regs: Vec<i32> = thread.registers.iter().map(|r| r.initial).collect();
    for (&reg, &v) in method.arguments.iter().zip(args) {
        regs[reg] = v;
    }
    fn block(program: &Program, body: &[Instr], regs: &mut [i32], memory: &mut [i32]) {
        for instr in body {
            match instr {
                Instr::Assign { dst, value, .. } => regs[*dst] = eval(value, regs),
                // An address that denotes no cell reads 0 and writes nothing.
                Instr::Load { dst, loc, .. } => {
                    regs[*dst] = cell(program, loc, regs).map_or(0, |c| memory[c])
                }
                Instr::Store { loc, value, .. } => {
                    if let Some(c) = cell(program, loc, regs) {
                        memory[c] = eval(value, regs);
                    }
                }
                Instr::If {
                    cond,
                    then_branch,
                    else_branch,
                    ..
                } => {
                    let taken = if eval(cond, regs) != 0 {
                        then_branch
                    } else {
                        else_branch
                    };
                    block(program, taken, regs, memory);
                }
                Instr::CallEnter { bind, .. } => {
                    let values: Vec<i32> = bind.iter().map(|(_, e)| eval(e, regs)).collect();
                    for ((dst, _), v) in bind.iter().zip(values) {
                        regs[*dst] = v;
                    }
                }
                Instr::AtomicBlock { body, .. } => block(program, body, regs, memory),
                _ => {}
            }
        }
    }
    block(program, &thread.body, &mut regs, memory);
    method.result.map(|r| regs[r])
}

/// Undefined behaviour (an index out of bounds): the thread stops here, as after a failed
/// assertion. Its open blocks end with what they touched so far.
fn stop_undefined(th: &mut ThreadState<'_>, window: &mut BTreeSet<(Statement, Statement)>) {
    th.failed = true;
    th.frames.clear();
    for block in std::mem::take(&mut th.blocks) {
        for (intruder, touched) in &block.confirmed {
            if overlaps(touched, &block.touched) {
                window.insert((block.statement, *intruder));
            }
        }
    }
}

/// The cell of an access `settle` let run: its index is in bounds.
fn resolve(program: &Program, address: &Address, regs: &[i32]) -> LocId {
    cell(program, address, regs)
        .unwrap_or_else(|| unreachable!("settle stops out-of-bounds accesses"))
}

fn statement(thread: usize, span: Span) -> Statement {
    Statement {
        thread,
        span: (span.start, span.end),
    }
}
