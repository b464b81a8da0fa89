//! From programs to events: the finite, fully symbolic execution that encodings constrain.
//!
//! Each thread is unrolled into events in program order (the Nemos/DefectFinder paper,
//! section 3). A branch becomes a `Control` event that defines a control variable, and
//! every event under the branch carries that variable in its [`Guard`]. A loop's iterations
//! are chained by controls defined from the previous iteration's, so a guard holds a few
//! literals per nesting level, whatever the bound. Values are [`Term`]s over the values that
//! reads return, hash-consed in a [`Terms`] arena so that equal terms are encoded once.
//! The static pass in [`bounds`] then computes, for each read, the writes it may read from
//! and, for each term, the finite set of values it may take when that set is small.

pub mod bounds;
pub mod counting;
mod ctrl;
pub mod spec;
pub mod thread_sync;
mod unroll;

pub use ctrl::CtrlSpan;
pub use unroll::{unroll, unroll_keeping_retry_loops, TooManyEvents, UnrollError, UnrollOptions};

use rustc_hash::FxHashMap as HashMap;

use serde::Serialize;

use crate::diagnostics::Span;
use crate::program::arith::{eval_binary, eval_unary};
use crate::program::{BinaryOp, UnaryOp};
use crate::program::{LocId, MemOrder, RegId};

pub type EventId = usize;
pub type TermId = usize;
pub type ControlId = usize;
pub type CallId = usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum EventKind {
    /// The initial write of a location, by the `init` pseudo-thread.
    Init,
    Read,
    Write,
    Fence,
    /// A register computed from other registers.
    Computation,
    /// Defines a control variable from a branch condition.
    Control,
    /// Acquiring a lock: the read half of an atomic read-modify-write that reads 0 (the
    /// write half, a `Write` of 1, is linked through [`Event::rmw`]).
    Lock,
    /// Releasing a lock: a write of 0.
    Unlock,
    AtomicEnter,
    AtomicExit,
    /// `assert(e)`: the assertion fails in an execution where the event is feasible and its
    /// value is 0.
    Assert,
    /// `assume(e)`: an execution in which the event is feasible and its value is 0 does not
    /// exist.
    Assume,
    /// A point where the thread may wait forever (see [`WaitPoint`]): its value is non-zero
    /// when, in the execution, the thread is blocked there and runs nothing after it.
    Wait,
}

/// What a thread waits for at a [`EventKind::Wait`] event.
#[derive(Clone, Debug, Serialize)]
pub enum WaitOn {
    /// A reduced spin loop (or `await`): the loop ran its kept iteration and its condition,
    /// the Wait event's value, still holds. It waits forever when every read of that
    /// iteration (`reads`) read the coherence-last write of its location: no later write
    /// can come, so every further iteration reads the same values and fails the same way.
    /// An execution in which the condition holds on an older value does not exist (a later
    /// iteration would read a newer one: it is the execution where the kept iteration does).
    Spin {
        reads: Vec<EventId>,
        /// The `while` statement.
        loop_span: Span,
        /// Where the loop's first real test holds (the loop goes on): the guard of the
        /// events after it. GenMC's spin-assume blocks every execution that takes the loop's
        /// back edge, so `--count` counts only the executions where this guard is false
        /// (docs/unrolling.md, "Spin loops").
        went_on: Guard,
    },
    /// `lock(loc)`: the Wait event's value is a free choice (0 or 1) that may be 1 only when
    /// the mutex ends held (by another thread, or by this one: a self-deadlock). The
    /// acquisition `lock` and the rest of the thread run when it is 0.
    Mutex { loc: LocId, lock: EventId },
    /// A loop with no exit (`while (1)` whose body neither breaks nor returns) in a program
    /// with no error site: the thread blocks for good at its head, wherever it reaches it
    /// (the Wait event's value is 1). No execution that reaches it is complete
    /// (docs/unrolling.md, "Loops with no exit").
    Forever {
        /// The `while` statement.
        loop_span: Span,
    },
}

/// A place where a thread may block forever.
#[derive(Clone, Debug, Serialize)]
pub struct WaitPoint {
    pub event: EventId,
    pub thread: usize,
    pub on: WaitOn,
}

/// A conjunction of control literals: the event executes iff every control variable in it
/// has the given truth value.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Guard(pub Vec<(ControlId, bool)>);

impl Guard {
    pub fn is_true(&self) -> bool {
        self.0.is_empty()
    }

    pub fn with(&self, control: ControlId, polarity: bool) -> Guard {
        let mut literals = self.0.clone();
        literals.push((control, polarity));
        Guard(literals)
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Event {
    pub id: EventId,
    /// Position of the thread in [`crate::program::Program::threads`]; `None` for `init`.
    pub thread: Option<usize>,
    /// Index in the thread's program order.
    pub position: usize,
    pub kind: EventKind,
    pub location: Option<LocId>,
    /// Writes: the value written. Reads and locks: the value read. Controls, asserts and
    /// computations: the value computed.
    pub value: Option<TermId>,
    /// The register a read or computation assigns.
    pub register: Option<RegId>,
    pub guard: Guard,
    pub order: MemOrder,
    /// The order a compare-exchange's read has when the exchange fails.
    pub failure_order: Option<MemOrder>,
    /// herd's tags (from a `.def` macro; see [`crate::program::Tags`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: crate::program::Tags,
    /// The tags of a compare-exchange's read when the exchange fails.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failure_tags: crate::program::Tags,
    /// The other half of an atomic read-modify-write.
    pub rmw: Option<EventId>,
    /// For an `Unlock`, its `Lock`; for a `Lock`, its `Unlock`.
    pub lock_match: Option<EventId>,
    /// For an `AtomicExit`, its `AtomicEnter`; for an `AtomicEnter`, its `AtomicExit`.
    pub atomic_match: Option<EventId>,
    /// The control variable a `Control` event defines.
    pub control: Option<ControlId>,
    /// The innermost call of a function of the test the event belongs to.
    pub call: Option<CallId>,
    /// The source statement.
    pub span: Span,
}

impl Event {
    /// Reads memory (plain reads, read halves of RMWs, lock acquisitions).
    pub fn is_read(&self) -> bool {
        matches!(self.kind, EventKind::Read | EventKind::Lock)
    }

    /// Writes memory (init, plain writes, write halves of RMWs, unlocks).
    pub fn is_write(&self) -> bool {
        matches!(
            self.kind,
            EventKind::Init | EventKind::Write | EventKind::Unlock
        )
    }

    pub fn is_memory(&self) -> bool {
        self.is_read() || self.is_write()
    }

    /// A fence proper, herd's `F` (a fence on a location, herd's SRCU action, is not one).
    pub fn is_barrier(&self) -> bool {
        self.kind == EventKind::Fence && self.location.is_none()
    }

    /// Takes part in herd's `loc`: a memory access, or a fence on a location (herd's SRCU
    /// action, `synchronize_srcu(s)`).
    pub fn is_located(&self) -> bool {
        self.is_memory() || (self.kind == EventKind::Fence && self.location.is_some())
    }
}

/// A control variable: true iff `within` holds and its term is non-zero.
///
/// `within` is empty for a branch's condition. It links a loop's iteration to the previous
/// one ("iteration k is reached" is "iteration k-1 is reached" and condition k), so that a
/// guard names the latest link instead of every condition so far (see `unroll`).
#[derive(Clone, Debug, Serialize)]
pub struct Control {
    pub term: TermId,
    pub within: Guard,
    /// The event that defines it.
    pub event: EventId,
}

/// An execution that would run a loop once more than the unrolling allows: it happens iff
/// `guard` holds and control `control` is true.
#[derive(Clone, Debug, Serialize)]
pub struct BoundHit {
    pub thread: usize,
    pub guard: Guard,
    pub control: ControlId,
    pub span: Span,
}

/// One call of a function of the test, as unrolled: a call site inside a loop gives one
/// `Call` per iteration. Its events are those whose `call` is it or one of the calls it
/// makes (`parent`).
#[derive(Clone, Debug, Serialize)]
pub struct Call {
    pub thread: usize,
    /// The call site in the thread's program (`ThreadProgram::calls`).
    pub site: crate::program::CallSiteId,
    pub function: String,
    /// This is the `number`-th call of `function` in the thread (from 1, in the order of
    /// the unrolling).
    pub number: usize,
    /// The call it is made from.
    pub parent: Option<CallId>,
    pub args: Vec<CallArgValue>,
    /// 1 exactly when the call is made.
    pub entered: TermId,
    /// 1 exactly when the call reaches its end (it may stop before: an out-of-bounds
    /// index, a loop past the unrolling bound).
    pub returned: TermId,
    /// The value it returns; `None` for a `void` function.
    pub value: Option<TermId>,
    /// Where it begins and ends among its thread's events: the thread's events from id
    /// `begin` on come after its beginning (its own first), those before id `end` before
    /// its end.
    pub begin: EventId,
    pub end: EventId,
    pub span: Span,
}

/// An argument of a call, as the call received it.
#[derive(Clone, Debug, Serialize)]
pub enum CallArgValue {
    Value {
        param: String,
        value: TermId,
    },
    /// The address `&base[offset]` (`base` itself when the offset is 0).
    Pointer {
        param: String,
        base: String,
        offset: TermId,
    },
}

/// `ordering_point(e)` after a memory access: the access orders its method call (CDSSpec's
/// ordering point) in an execution where the `marker` (the assignment of `e`) and the
/// access execute and `when` is non-zero.
#[derive(Clone, Debug, Serialize)]
pub struct OrderingPoint {
    pub access: EventId,
    pub marker: EventId,
    pub when: TermId,
}

/// An implicit assertion that an access's address is valid (see `unroll::Builder::at`).
#[derive(Clone, Debug, Serialize)]
pub struct AccessCheck {
    /// The index (`a[i]`) or the address (`*p`) the access computes.
    pub selector: TermId,
    /// `Some(n)` for an index into `n` cells, `None` for an address.
    pub cells: Option<usize>,
}

/// The symbolic execution of a program.
#[derive(Clone, Debug, Serialize)]
pub struct Events {
    pub events: Vec<Event>,
    pub terms: Terms,
    pub controls: Vec<Control>,
    /// Per program thread, its events in program order.
    pub threads: Vec<Vec<EventId>>,
    /// Per location, its initial write; `None` for a cell no event accesses and no final
    /// state observes, whose initial write is left out (`unroll/untouched.rs`).
    pub init: Vec<Option<EventId>>,
    /// Per program thread and register, the register's value at the end of the thread.
    pub final_registers: Vec<Vec<TermId>>,
    pub bound_hits: Vec<BoundHit>,
    /// The executions of `bound_hits` are left out rather than reported (GenMC's
    /// `-unroll=N`): set by the caller after unrolling (`LoadOptions::block_at_bound`).
    pub block_at_bound: bool,
    /// Where threads may block forever: reduced spin loops and contended locks.
    pub waits: Vec<WaitPoint>,
    /// The compare-exchange retry loops reduced to their first test and the assumption
    /// that its exchange succeeds (docs/unrolling.md): thread and loop.
    pub retry_loops: Vec<(usize, crate::diagnostics::Span)>,
    /// The calls of functions of the test, in the order they were unrolled.
    pub calls: Vec<Call>,
    /// The `Assert` events the unroller added to check an access's address, by event.
    pub access_checks: std::collections::BTreeMap<EventId, AccessCheck>,
    /// The `Assert` events a front end added to check the use of a library it models
    /// (`program::checks`), by event, with what their failure means.
    pub library_checks: std::collections::BTreeMap<EventId, crate::program::checks::CheckKind>,
    /// The `Assert` events the unroller added to check that `free` is given a block's
    /// address (or `NULL`): GenMC's "Attempt to free non-allocated memory" when one fails.
    pub free_checks: std::collections::BTreeSet<EventId>,
    /// The `Control` events the unroller added to split an access over the cells it may
    /// reach and to stop the thread at an invalid one: a witness's text need not show them
    /// (the access itself says which cell it reached, or that it was invalid).
    pub address_controls: std::collections::BTreeSet<EventId>,
    /// The ordering points of method calls (`ordering_point(e)`), in unrolling order.
    pub ordering_points: Vec<OrderingPoint>,
    /// herd's syntactic dependencies `addr`, `data` and `ctrl`, through registers.
    pub dependencies: Dependencies,
    pub unroll: u32,
    /// The histories of the method calls, when the program has a specification.
    pub spec: Option<spec::SpecRuns>,
    pub bounds: bounds::Bounds,
    /// The create and join edges `tc` and `tj` (C programs' threads).
    pub thread_sync: thread_sync::ThreadSync,
}

/// A dependency of event `to` on the read `from`: it holds in an execution in which both
/// run and `when` is non-zero. `when` is the constant 1 unless the register that carries
/// the dependency was assigned in branches that did not all depend on the read (`if (c)
/// r2 = r1; else r2 = 0;`): registers merge at a join, and so do their dependencies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Dependency {
    pub from: EventId,
    pub to: EventId,
    pub when: TermId,
}

/// herd's dependencies, syntactic as herd computes them for C: through register
/// assignments, whatever the values (`r1 - r1` depends on `r1`'s read), never through
/// memory.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Dependencies {
    /// From a read to an access whose address (an index, a pointer) uses its value.
    pub addr: Vec<Dependency>,
    /// From a read to a write whose value uses it.
    pub data: Vec<Dependency>,
    /// From a read to every access and fence inside the branches of an `if` (or the
    /// iterations of a loop) whose condition uses it; not to the events after the join,
    /// as in herd's C semantics. As spans (`ctrl.rs`); [`Events::ctrl_pairs`] lists the
    /// pairs.
    pub ctrl: Vec<CtrlSpan>,
}

impl Events {
    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// `e` is the write half of a lock (herd's `LKW`).
    pub fn lock_write_half(&self, e: EventId) -> bool {
        self.events
            .iter()
            .any(|k| k.kind == EventKind::Lock && k.rmw == Some(e))
    }

    /// Same thread and `a` before `b` in program order.
    pub fn po(&self, a: EventId, b: EventId) -> bool {
        let (ea, eb) = (&self.events[a], &self.events[b]);
        ea.thread.is_some() && ea.thread == eb.thread && ea.position < eb.position
    }

    pub fn reads(&self) -> impl Iterator<Item = &Event> {
        self.events.iter().filter(|e| e.is_read())
    }

    pub fn writes(&self) -> impl Iterator<Item = &Event> {
        self.events.iter().filter(|e| e.is_write())
    }

    /// The guard of an event as control literals, including nothing for `init`.
    pub fn guard(&self, e: EventId) -> &Guard {
        &self.events[e].guard
    }

    /// Whenever `guard` holds, so does `implied`: each literal of `implied` is one of
    /// `guard`'s or in the `within` of one of its true controls (a loop iteration reached
    /// means the previous one was). Sufficient, not necessary: a static pass may miss an
    /// implication, never invent one.
    pub fn guard_implies(&self, guard: &Guard, implied: &Guard) -> bool {
        implied.0.iter().all(|&l| self.literal_implied(guard, l))
    }

    /// `a` and `b` cannot hold together: one implies the negation of a literal of the
    /// other. Sufficient, not necessary, as [`Events::guard_implies`].
    pub fn guards_exclusive(&self, a: &Guard, b: &Guard) -> bool {
        let refutes =
            |x: &Guard, y: &Guard| y.0.iter().any(|&(c, p)| self.literal_implied(x, (c, !p)));
        refutes(a, b) || refutes(b, a)
    }

    fn literal_implied(&self, guard: &Guard, literal: (ControlId, bool)) -> bool {
        guard
            .0
            .iter()
            .any(|&(d, q)| (d, q) == literal || (q && self.controls[d].within.0.contains(&literal)))
    }
}

/// A symbolic value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Term {
    Const(i32),
    /// The value returned by a read event.
    Read(EventId),
    Unary(UnaryOp, TermId),
    Binary(BinaryOp, TermId, TermId),
    /// `c != 0 ? a : b`
    Ite(TermId, TermId, TermId),
}

/// Hash-consed terms with constant folding.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Terms {
    nodes: Vec<Term>,
    #[serde(skip)]
    index: HashMap<Term, TermId>,
}

impl Terms {
    pub fn get(&self, id: TermId) -> &Term {
        &self.nodes[id]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn constant_value(&self, id: TermId) -> Option<i32> {
        match self.nodes[id] {
            Term::Const(v) => Some(v),
            _ => None,
        }
    }

    fn intern(&mut self, term: Term) -> TermId {
        if let Some(&id) = self.index.get(&term) {
            return id;
        }
        let id = self.nodes.len();
        self.nodes.push(term.clone());
        self.index.insert(term, id);
        id
    }

    pub fn constant(&mut self, v: i32) -> TermId {
        self.intern(Term::Const(v))
    }

    pub fn read(&mut self, event: EventId) -> TermId {
        self.intern(Term::Read(event))
    }

    /// Renumber the events reads name, by a map that keeps their order (terms keep their
    /// ids).
    pub(crate) fn renumber_reads(&mut self, map: impl Fn(EventId) -> EventId) {
        for node in &mut self.nodes {
            if let Term::Read(e) = node {
                *e = map(*e);
            }
        }
        self.index = self
            .nodes
            .iter()
            .enumerate()
            .map(|(id, t)| (t.clone(), id))
            .collect();
    }

    pub fn unary(&mut self, op: UnaryOp, a: TermId) -> TermId {
        match self.constant_value(a) {
            Some(v) => self.constant(eval_unary(op, v)),
            None => self.intern(Term::Unary(op, a)),
        }
    }

    pub fn binary(&mut self, op: BinaryOp, a: TermId, b: TermId) -> TermId {
        match (self.constant_value(a), self.constant_value(b)) {
            (Some(x), Some(y)) => self.constant(eval_binary(op, x, y)),
            _ => self.intern(Term::Binary(op, a, b)),
        }
    }

    pub fn ite(&mut self, c: TermId, a: TermId, b: TermId) -> TermId {
        if a == b {
            return a;
        }
        match self.constant_value(c) {
            Some(0) => b,
            Some(_) => a,
            None => self.intern(Term::Ite(c, a, b)),
        }
    }

    /// Evaluate with the values of reads given. Terms are a DAG (a loop's exits merge
    /// registers with `Ite`s that share their arms): each node is evaluated once, so the
    /// cost is the number of nodes reached, not of paths through them (exponential in the
    /// iterations of a loop whose exits nest).
    pub fn eval(&self, id: TermId, read_value: &impl Fn(EventId) -> i32) -> i32 {
        self.eval_memo(id, read_value, &mut HashMap::default())
    }

    fn eval_memo(
        &self,
        id: TermId,
        read_value: &impl Fn(EventId) -> i32,
        memo: &mut HashMap<TermId, i32>,
    ) -> i32 {
        if let Some(&known) = memo.get(&id) {
            return known;
        }
        // Leaves cost less than a memo entry: only the inner nodes are kept.
        let value = match self.nodes[id] {
            Term::Const(v) => return v,
            Term::Read(e) => return read_value(e),
            Term::Unary(op, a) => eval_unary(op, self.eval_memo(a, read_value, memo)),
            Term::Binary(op, a, b) => {
                let a = self.eval_memo(a, read_value, memo);
                eval_binary(op, a, self.eval_memo(b, read_value, memo))
            }
            Term::Ite(c, a, b) => {
                if self.eval_memo(c, read_value, memo) != 0 {
                    self.eval_memo(a, read_value, memo)
                } else {
                    self.eval_memo(b, read_value, memo)
                }
            }
        };
        memo.insert(id, value);
        value
    }
}
