//! The program IR: a litmus test with every name resolved.
//!
//! Lowering from the AST ([`lower`]) decides what each identifier is (a shared location, a
//! register, a lock, a memory order), which library call each call is, which memory order
//! each access has, and hoists memory accesses out of expressions so that every expression
//! left in the IR is a pure computation over registers. All the semantic errors of the input
//! (unknown names, wrong arities, memory orders where none is allowed, unknown registers in
//! the condition) are found here and reported together.

pub mod arith;
pub mod checks;
pub mod computed_lock;
pub mod library;
mod lower;
pub mod mutex;
pub mod points_to;
pub mod size;
pub mod spawn_symmetry;
pub mod symmetry;

pub use crate::operators::{BinaryOp, Quantifier, UnaryOp};
pub use lower::{lower, lower_recursion, lower_with, DEFAULT_RECURSION_DEPTH};

use serde::Serialize;

use crate::diagnostics::Span;

/// Index into [`Program::locations`].
pub type LocId = usize;
/// Index into [`ThreadProgram::registers`] of the thread that owns it.
pub type RegId = usize;
/// Index into [`ThreadProgram::calls`] of the thread that owns it.
pub type CallSiteId = usize;

/// A lowered litmus test.
#[derive(Clone, Debug, Serialize)]
pub struct Program {
    pub name: String,
    /// The text the program was lowered from: later stages locate their diagnostics in it.
    #[serde(skip)]
    pub source: crate::diagnostics::SourceFile,
    /// Shared memory cells. An array `d[2]` is two cells, `d[0]` and `d[1]`.
    pub locations: Vec<Location>,
    pub threads: Vec<ThreadProgram>,
    pub condition: Option<FinalCondition>,
    pub filter: Option<StateProp>,
    /// What a final state reports, in herd's order: registers by thread then name, then
    /// memory locations by name. The union of the `locations` clause and the condition.
    pub observed: Vec<Observable>,
    /// The `spec { }` block, lowered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec: Option<Box<Spec>>,
}

/// The sequential specification of a test's functions (`spec { }`), lowered as a program of
/// its own: its locations are the object's state, and its thread `methods[i].thread` makes
/// one call of the sequential version of method `methods[i].name`, with the arguments in
/// the registers `arguments` and the value in `result`.
#[derive(Clone, Debug, Serialize)]
pub struct Spec {
    pub program: Program,
    pub methods: Vec<SpecMethod>,
    pub rules: Vec<SpecRule>,
}

/// `happens_before push(s, v) -> r = pop(s) if (r == v);`, CDSSpec's synchronisation rule:
/// when a call of `before` precedes a call of `after` in a history and `condition` holds,
/// the first call's beginning happens before the second's end.
#[derive(Clone, Debug, Serialize)]
pub struct SpecRule {
    pub before: String,
    pub after: String,
    /// Its source text, for reports.
    pub text: String,
    /// The condition as a function of the specification program (`spec#rule1`), whose
    /// arguments are, in order, the `before` call's arguments, its value when the rule
    /// binds it, the `after` call's arguments and its value when the rule binds it. A rule
    /// without a condition returns 1.
    pub condition: SpecMethod,
    pub binds_before_value: bool,
    pub binds_after_value: bool,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct SpecMethod {
    pub name: String,
    pub thread: usize,
    pub arguments: Vec<RegId>,
    pub result: Option<RegId>,
    /// The sequential version's name in the `spec` block.
    pub span: Span,
}

impl Spec {
    pub fn method(&self, name: &str) -> Option<&SpecMethod> {
        self.methods.iter().find(|m| m.name == name)
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Location {
    /// `x`, or `d[1]` for an array cell.
    pub name: String,
    pub initial: i32,
    /// Declared with an atomic type somewhere (init block or a parameter).
    pub declared_atomic: bool,
    /// Used by `lock`/`unlock`.
    pub is_lock: bool,
    /// Locked by the `__lock`/`__unlock` primitives of a model's `.def` file: a spin lock
    /// as herd's `lock.cat` defines it, memory (a lock reads 0 and writes 1 as one
    /// read-modify-write, an unlock writes 0), not a mutex (see `events::unroll`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub herd_lock: bool,
    /// A C program's POSIX mutex (`pthread_mutex_lock`/`unlock`) that is memory, as GenMC
    /// has it, because its use cannot be matched per thread before running it (an unlock
    /// the thread may not hold, a lock held past its branch or thread) or it is destroyed
    /// (see [`mutex`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub mutex_memory: bool,
    /// `pthread_mutex_destroy` writes -1 to it: a lock that reads that is a defect.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub mutex_destroyed: bool,
    /// The cell's address, the value of `&x` (see [`ADDRESS_BASE`]).
    pub address: i32,
    /// The struct this cell begins, if it is a struct's first field (`pool[1]` for
    /// `pool[1].val`): a pointer to it is a pointer to that struct, and prints so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub starts: Option<String>,
    /// A cell of a block `malloc`, `calloc` or a stack frame allocates (see [`HeapCell`]);
    /// `None` for the program's own locations, which exist from the start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heap: Option<HeapCell>,
}

/// A cell of a dynamically allocated block: it exists from its block's
/// [`Instr::Alloc`] to its [`Instr::Free`] (GenMC's memory defects: see `docs/heap.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HeapCell {
    /// The block's first cell: the address `malloc` returns and `free` takes.
    pub block: LocId,
    /// Reading the cell before any write is no defect: `calloc` zero-fills. `malloc`'s
    /// cells and a local's are uninitialised until written.
    pub zeroed: bool,
}

/// Where addresses begin. A location's address is a value like any other (`int *p = &x;`,
/// stored, loaded, compared); nemos gives each object (a location, an array) a block of
/// [`OBJECT_STRIDE`] addresses from `ADDRESS_BASE` on, cells at consecutive addresses, so
/// that pointer arithmetic within an array moves between its cells and one step past an
/// object's end is no cell (an invalid access, reported). The base is far from the small
/// integers litmus tests compute with, and 0 stays `NULL`.
pub const ADDRESS_BASE: i32 = 0x1000_0000;
/// Addresses per object: the largest array nemos lays out.
pub const OBJECT_STRIDE: i32 = 0x1_0000;

/// Which object's block of addresses `address` lies in: equal for the cells of one array.
pub fn object_block(address: i32) -> i32 {
    address.div_euclid(OBJECT_STRIDE)
}

#[derive(Clone, Debug, Serialize)]
pub struct ThreadProgram {
    /// `n` of `Pn`.
    pub index: u32,
    pub registers: Vec<Register>,
    pub body: Vec<Instr>,
    /// The function calls inlined into `body`, in the order lowering met them; the body of
    /// call `i` lies between `Instr::CallEnter { call: i }` and `Instr::CallExit { call: i }`.
    pub calls: Vec<CallSite>,
    /// The registers the ordering-point annotations assign their condition to, and which
    /// annotation each is (see [`PointKind`]).
    pub ordering_points: Vec<(RegId, PointKind)>,
    pub span: Span,
}

/// CDSSpec's ordering-point annotations, each lowered to an assignment of its condition to
/// a register of its own; the unroller gives them their meaning within the method call
/// (the thread's own call of a function) they stand in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum PointKind {
    /// `ordering_point(e)`: the memory access before it is an ordering point when `e`
    /// holds (`@OPDefine`).
    Define,
    /// `potential_ordering_point(L)`: the memory access before it may become an ordering
    /// point, by a later check of label `L` (`@PotentialOP`).
    Potential(i32),
    /// `check_ordering_point(L, e)`: when `e` holds, the latest potential ordering point of
    /// label `L` in the call becomes one (`@OPCheck`).
    Check(i32),
    /// `clear_ordering_points(e)`: when `e` holds, the call's ordering points so far are
    /// dropped (`@OPClear`), as when a retry loop starts again.
    Clear,
}

/// One inlined call of a function defined in the test: `r0 = pop(top) + 1;`.
#[derive(Clone, Debug, Serialize)]
pub struct CallSite {
    pub function: String,
    /// Which inlining of `function` this is in the thread, from 1: its registers are named
    /// `function#number.name`.
    pub number: usize,
    pub args: Vec<CallArg>,
    /// The register the call's value is returned in; `None` for a `void` function.
    pub ret: Option<RegId>,
    /// The call expression.
    pub span: Span,
    /// 0 for a call that is not recursive; for a recursive one, how many calls of
    /// `function` are open around it: the unroller cuts it past its bound, as a loop's
    /// iteration (`u32::MAX`: lowering did not inline its body, every bound cuts it).
    #[serde(skip_serializing_if = "is_zero")]
    pub recursion: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A parameter of an inlined call and what the call bound it to.
#[derive(Clone, Debug, Serialize)]
pub enum CallArg {
    /// `int n`: a fresh register, assigned the argument's value when the call begins.
    Value { param: String, reg: RegId },
    /// `int *p`: an address known after lowering, `base` (a location or an array) plus
    /// `offset` cells; the offset is a register when the argument indexes an array with one
    /// (`&a[r1]`), frozen when the call begins.
    Pointer {
        param: String,
        base: String,
        offset: PointerOffset,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum PointerOffset {
    Const(u32),
    Reg(RegId),
}

#[derive(Clone, Debug, Serialize)]
pub struct Register {
    pub name: String,
    pub initial: i32,
    /// Introduced by lowering to hold a value the source computes inside an expression.
    pub temporary: bool,
}

/// C11 memory orders, plus `NonAtomic` for plain accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
pub enum MemOrder {
    NonAtomic,
    Relaxed,
    Consume,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl MemOrder {
    pub fn from_name(name: &str) -> Option<MemOrder> {
        Some(match name {
            "memory_order_relaxed" => MemOrder::Relaxed,
            "memory_order_consume" => MemOrder::Consume,
            "memory_order_acquire" => MemOrder::Acquire,
            "memory_order_release" => MemOrder::Release,
            "memory_order_acq_rel" => MemOrder::AcqRel,
            "memory_order_seq_cst" => MemOrder::SeqCst,
            _ => return None,
        })
    }

    /// herd's short names, used in event tables.
    pub fn short(self) -> &'static str {
        match self {
            MemOrder::NonAtomic => "na",
            MemOrder::Relaxed => "rlx",
            MemOrder::Consume => "con",
            MemOrder::Acquire => "acq",
            MemOrder::Release => "rel",
            MemOrder::AcqRel => "acq_rel",
            MemOrder::SeqCst => "sc",
        }
    }
}

/// The operation an atomic read-modify-write applies to the old value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RmwOp {
    /// The new value is the operand.
    Exchange,
    /// The new value is `old op operand`.
    Fetch(BinaryOp),
    /// The new value is the larger of `old` and the operand (`min`: the smaller), compared
    /// as signed 32-bit values or, `unsigned`, as unsigned ones: clang's
    /// `__sync_fetch_and_max`, `_min`, `_umax`, `_umin` (LLVM's `atomicrmw max` ..
    /// `umin`).
    Extreme { min: bool, unsigned: bool },
}

/// Where a compare-exchange keeps its expected value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Expected {
    /// `atomic_compare_exchange_strong(x, e, v)` with `e` a shared location (herd's form).
    Location(LocId),
    /// `atomic_compare_exchange_strong(x, &r, v)` with `r` a register.
    Register(RegId),
}

/// Where a memory access goes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Address {
    /// A cell known statically: `x`, `&y[1]`, `y + 1`. The common case, and free.
    Fixed(LocId),
    /// `y[i]`, `y + i`, `&y[i]` with an index that depends on registers: one of `cells`
    /// (the array's cells in index order; a plain location is an array of one cell),
    /// chosen by `index`, a pure expression evaluated when the access runs. An index
    /// outside `0..cells.len()` is undefined behaviour in C (C11 6.5.6p8); the unroller
    /// turns it into a failed assertion (see `events::unroll`).
    Indexed { cells: Vec<LocId>, index: Expr },
    /// `*p` with `p` a pointer value computed when the access runs (a register, a value
    /// loaded from memory, pointer arithmetic): the cell whose address `value` is. `cells`
    /// are the cells the points-to analysis says it may be (see [`points_to`]); any other
    /// value (`NULL`, one past an array, an integer) is an invalid access, which the
    /// unroller turns into a failed assertion, as it does an index out of bounds.
    Pointer { value: Expr, cells: Vec<LocId> },
}

impl Address {
    /// Every cell the access may touch.
    pub fn cells(&self) -> &[LocId] {
        match self {
            Address::Fixed(loc) => std::slice::from_ref(loc),
            Address::Indexed { cells, .. } | Address::Pointer { cells, .. } => cells,
        }
    }

    /// The cell, when it is known statically.
    pub fn fixed(&self) -> Option<LocId> {
        match self {
            Address::Fixed(loc) => Some(*loc),
            Address::Indexed { .. } | Address::Pointer { .. } => None,
        }
    }
}

/// herd's annotations of an access or a fence (`once`, `mb`, `noreturn`), from the macro
/// of a `.def` file that made it (`__load{once}`); empty for the C11 library's calls,
/// whose meaning is their memory order.
pub type Tags = Vec<String>;

/// One statement of a thread. Expressions are pure: memory accesses inside source
/// expressions have been hoisted into `Load`s of temporary registers before them.
#[derive(Clone, Debug, Serialize)]
pub enum Instr {
    Load {
        dst: RegId,
        loc: Address,
        order: MemOrder,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tags: Tags,
        span: Span,
    },
    Store {
        loc: Address,
        value: Expr,
        order: MemOrder,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tags: Tags,
        span: Span,
    },
    /// Exchange and fetch-op: `dst` receives the old value. Both events carry `tags`.
    Rmw {
        dst: Option<RegId>,
        loc: Address,
        op: RmwOp,
        operand: Expr,
        order: MemOrder,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tags: Tags,
        /// The kernel's `atomic_add_unless`: the write runs only when the old value differs
        /// from this one; otherwise the read runs alone, tagged `failure_tags` (as a failed
        /// compare-exchange).
        #[serde(skip_serializing_if = "Option::is_none")]
        unless: Option<Expr>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        failure_tags: Tags,
        span: Span,
    },
    /// `dst` receives 1 on success and 0 on failure. On failure the value read is written to
    /// the expected location (or register), as C specifies.
    CompareExchange {
        dst: Option<RegId>,
        loc: Address,
        expected: Expected,
        desired: Expr,
        success: MemOrder,
        failure: MemOrder,
        /// `_weak` may fail spuriously.
        weak: bool,
        /// The tags of the read and write of a success, and of the read of a failure.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tags: Tags,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        failure_tags: Tags,
        span: Span,
    },
    Fence {
        order: MemOrder,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tags: Tags,
        /// The location of herd's `__srcu{sync-srcu}(X)`, a fence-like event on `X` that
        /// `loc` relates to the accesses of `X`; `None` for a fence.
        #[serde(skip_serializing_if = "Option::is_none")]
        loc: Option<LocId>,
        span: Span,
    },
    Assign {
        dst: RegId,
        value: Expr,
        span: Span,
    },
    If {
        cond: Expr,
        then_branch: Vec<Instr>,
        else_branch: Vec<Instr>,
        span: Span,
    },
    /// `while (cond) body`; `cond_prelude` recomputes the condition's memory accesses before
    /// each test of `cond`.
    While {
        cond_prelude: Vec<Instr>,
        cond: Expr,
        body: Vec<Instr>,
        span: Span,
    },
    Lock {
        loc: LocId,
        span: Span,
    },
    Unlock {
        loc: LocId,
        span: Span,
    },
    AtomicBlock {
        body: Vec<Instr>,
        span: Span,
    },
    Assert {
        cond: Expr,
        span: Span,
    },
    /// An assertion a front end adds for a library it models, with what its failure means.
    Check {
        cond: Expr,
        kind: checks::CheckKind,
        span: Span,
    },
    /// `assume(cond)`: an execution in which `cond` is 0 when this runs does not exist.
    Assume {
        cond: Expr,
        span: Span,
    },
    /// The index of an access into an array field of a struct (`n->slots[i]`) lies in
    /// `0..limit`. The access itself addresses the whole object (the struct layout made it
    /// an offset), whose own bounds the access checks; outside the field is undefined
    /// behaviour in C all the same, an invalid access as an index out of an array is.
    CheckIndex {
        index: Expr,
        limit: u32,
        span: Span,
    },
    /// The beginning of an inlined call (an index into [`ThreadProgram::calls`]): the
    /// instructions up to the matching `CallExit`, at the same nesting level, are its body.
    /// The arguments have been evaluated in the caller (their memory accesses hoisted before
    /// this); `bind` gives the call's registers their values as it begins (parameters,
    /// frozen pointer offsets, the return value and the `return` flag reset), all at once
    /// and without events.
    CallEnter {
        call: CallSiteId,
        bind: Vec<(RegId, Expr)>,
        span: Span,
    },
    /// The end of an inlined call: its value is in the call's `ret` register.
    CallExit {
        call: CallSiteId,
        span: Span,
    },
    /// `malloc`, `calloc` or a local whose address is taken: the block of cells `cells`
    /// (locations whose [`Location::heap`] names the block) begins to exist here.
    Alloc {
        cells: Vec<LocId>,
        span: Span,
    },
    /// `free(ptr)`, or a stack block at its function's end (`ptr` its first cell's
    /// address): the block `ptr` begins ends here. `NULL` frees nothing; any other value
    /// that begins no block is GenMC's "Attempt to free non-allocated memory".
    Free {
        ptr: Expr,
        span: Span,
    },
}

impl Instr {
    /// Where a load, store, read-modify-write or compare-exchange goes.
    pub fn address(&self) -> Option<&Address> {
        match self {
            Instr::Load { loc, .. }
            | Instr::Store { loc, .. }
            | Instr::Rmw { loc, .. }
            | Instr::CompareExchange { loc, .. } => Some(loc),
            _ => None,
        }
    }

    /// The address of a memory access, to rewrite, with the access's source.
    pub fn address_mut(&mut self) -> Option<(&mut Address, Span)> {
        match self {
            Instr::Load { loc, span, .. }
            | Instr::Store { loc, span, .. }
            | Instr::Rmw { loc, span, .. }
            | Instr::CompareExchange { loc, span, .. } => Some((loc, *span)),
            _ => None,
        }
    }

    /// The blocks nested in this instruction, in program order (a loop's condition before
    /// its body); empty ones for the others.
    pub fn nested(&self) -> [&[Instr]; 2] {
        match self {
            Instr::If {
                then_branch,
                else_branch,
                ..
            } => [then_branch, else_branch],
            Instr::While {
                cond_prelude, body, ..
            } => [cond_prelude, body],
            Instr::AtomicBlock { body, .. } => [body, &[]],
            _ => [&[], &[]],
        }
    }

    /// [`Instr::nested`], to rewrite.
    pub fn nested_mut(&mut self) -> [&mut [Instr]; 2] {
        match self {
            Instr::If {
                then_branch,
                else_branch,
                ..
            } => [then_branch, else_branch],
            Instr::While {
                cond_prelude, body, ..
            } => [cond_prelude, body],
            Instr::AtomicBlock { body, .. } => [body, &mut []],
            _ => [&mut [], &mut []],
        }
    }
}

/// A pure expression over a thread's registers, with 32-bit wrapping integer semantics.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Expr {
    Const(i32),
    Reg(RegId),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`
    Conditional(Box<Expr>, Box<Expr>, Box<Expr>),
}

/// Something a final state reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Observable {
    /// Thread position in [`Program::threads`] and register.
    Reg {
        thread: usize,
        reg: RegId,
    },
    Loc(LocId),
}

/// A proposition over the final state.
#[derive(Clone, Debug, Serialize)]
pub enum StateProp {
    Const(bool),
    /// `var = value` (or `!=` when `negated`).
    Atom {
        var: Observable,
        value: i32,
        negated: bool,
    },
    /// `a = b` over two observables (`0:r1=1:r2`), or `!=` when `negated`.
    Equal {
        a: Observable,
        b: Observable,
        negated: bool,
    },
    Not(Box<StateProp>),
    And(Box<StateProp>, Box<StateProp>),
    Or(Box<StateProp>, Box<StateProp>),
    Implies(Box<StateProp>, Box<StateProp>),
}

impl StateProp {
    /// Evaluate on a concrete final state.
    pub fn eval(&self, value_of: &impl Fn(Observable) -> i32) -> bool {
        match self {
            StateProp::Const(b) => *b,
            StateProp::Atom {
                var,
                value,
                negated,
            } => (value_of(*var) == *value) != *negated,
            StateProp::Equal { a, b, negated } => (value_of(*a) == value_of(*b)) != *negated,
            StateProp::Not(p) => !p.eval(value_of),
            StateProp::And(a, b) => a.eval(value_of) && b.eval(value_of),
            StateProp::Or(a, b) => a.eval(value_of) || b.eval(value_of),
            StateProp::Implies(a, b) => !a.eval(value_of) || b.eval(value_of),
        }
    }

    /// Every observable the proposition mentions, in order of appearance.
    pub fn observables(&self, out: &mut Vec<Observable>) {
        match self {
            StateProp::Const(_) => {}
            StateProp::Atom { var, .. } => out.push(*var),
            StateProp::Equal { a, b, .. } => out.extend([*a, *b]),
            StateProp::Not(p) => p.observables(out),
            StateProp::And(a, b) | StateProp::Or(a, b) | StateProp::Implies(a, b) => {
                a.observables(out);
                b.observables(out);
            }
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct FinalCondition {
    pub quantifier: Quantifier,
    pub prop: StateProp,
    /// The condition as the user wrote it, for reports.
    pub text: String,
}

impl Program {
    /// Everything a final state reports or a test asks about: the `locations` clause, the
    /// condition and the filter (with repeats).
    pub fn named_observables(&self) -> Vec<Observable> {
        let mut named = self.observed.clone();
        if let Some(condition) = &self.condition {
            condition.prop.observables(&mut named);
        }
        if let Some(filter) = &self.filter {
            filter.observables(&mut named);
        }
        named
    }

    /// herd's name for an observable: `0:r0` or `[x]`.
    pub fn observable_name(&self, var: Observable) -> String {
        match var {
            Observable::Reg { thread, reg } => {
                let t = &self.threads[thread];
                format!("{}:{}", t.index, t.registers[reg].name)
            }
            Observable::Loc(loc) => format!("[{}]", self.locations[loc].name),
        }
    }

    /// The blocks dynamic allocation makes, each as its cells in order.
    pub fn heap_blocks(&self) -> Vec<Vec<LocId>> {
        let mut blocks: Vec<Vec<LocId>> = Vec::new();
        for (loc, location) in self.locations.iter().enumerate() {
            let Some(cell) = location.heap else { continue };
            if cell.block == loc {
                blocks.push(vec![loc]);
            } else if let Some(block) = blocks.iter_mut().find(|b| b[0] == cell.block) {
                block.push(loc);
            }
        }
        blocks
    }

    /// The location whose address `value` is.
    pub fn location_at(&self, value: i32) -> Option<LocId> {
        if value < ADDRESS_BASE {
            return None;
        }
        self.locations.iter().position(|l| l.address == value)
    }

    /// A value as a person reads it: the name of the location it is the address of (`x`,
    /// or `&a[1]` for a cell of an array, as herd writes addresses), an address past an
    /// object's last cell from that cell (`x + 1`), else the integer.
    pub fn value_text(&self, value: i32) -> String {
        let name = |loc: LocId| {
            let location = &self.locations[loc];
            let name = location.starts.as_ref().unwrap_or(&location.name);
            if name.contains(['[', '.']) {
                format!("&{name}")
            } else {
                name.clone()
            }
        };
        if let Some(loc) = self.location_at(value) {
            return name(loc);
        }
        match self.past_end(value) {
            Some((loc, by)) => format!("{} + {by}", name(loc)),
            None => value.to_string(),
        }
    }

    /// For an address in an object's block but past its cells (`a + 2` of `int a[2]`):
    /// the object's last cell below it, and how far past that cell it is.
    pub fn past_end(&self, value: i32) -> Option<(LocId, i64)> {
        if value < ADDRESS_BASE || self.location_at(value).is_some() {
            return None;
        }
        let below = (0..self.locations.len())
            .filter(|&l| {
                let a = self.locations[l].address;
                object_block(a) == object_block(value) && a < value
            })
            .max_by_key(|&l| self.locations[l].address)?;
        Some((
            below,
            i64::from(value) - i64::from(self.locations[below].address),
        ))
    }

    /// A pointer argument bound to object `base` (a location, an array, a struct) plus
    /// `offset` cells: `top`, `&a[2]`, `&pool[1]`.
    pub fn pointer_text(&self, base: &str, offset: i32) -> String {
        let first = self
            .locations
            .iter()
            .filter(|l| {
                l.name == base
                    || l.name
                        .strip_prefix(base)
                        .is_some_and(|rest| rest.starts_with(['[', '.']))
            })
            .map(|l| l.address)
            .min();
        match first {
            _ if offset == 0 => base.to_string(),
            Some(address) => self.value_text(address.wrapping_add(offset)),
            None => format!("&{base}[{offset}]"),
        }
    }

    /// [`Program::pointer_text`] for an argument written as `written`: the first cell of
    /// an array or struct is shown as `&nodes[0]` when the call wrote it so, rather than
    /// by the object's name (`nodes`), which points there too.
    pub fn argument_text(&self, base: &str, offset: i32, written: Option<&str>) -> String {
        let by_name = written.is_none_or(|w| w.trim() == base);
        if offset != 0 || by_name || self.locations.iter().any(|l| l.name == base) {
            return self.pointer_text(base, offset);
        }
        let first = self
            .locations
            .iter()
            .filter(|l| {
                l.name
                    .strip_prefix(base)
                    .is_some_and(|rest| rest.starts_with(['[', '.']))
            })
            .map(|l| l.address)
            .min();
        match first {
            Some(address) => self.value_text(address),
            None => self.pointer_text(base, offset),
        }
    }

    pub fn thread_name(&self, thread: usize) -> String {
        format!("P{}", self.threads[thread].index)
    }
}
