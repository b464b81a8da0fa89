//! The parsed litmus test, close to the source text.
//!
//! The parser builds this tree permissively: every name is kept as written and every node
//! carries the byte span it came from. Whether a call names a known atomic, whether an
//! identifier is a register or a location, whether a memory order is allowed where it is
//! written: all of that is decided when the tree is lowered into the program IR, which
//! reports every such error with the span kept here.

use serde::Serialize;

use crate::operators;

pub use crate::diagnostics::Span;
pub use crate::operators::{BinaryOp, Quantifier};

/// A name as written, with where it was written.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// One litmus test file.
#[derive(Clone, Debug, Serialize)]
pub struct LitmusTest {
    /// The architecture word of the header (`C`).
    pub arch: String,
    pub name: Ident,
    /// The optional quoted doc string after the header.
    pub doc: Option<String>,
    /// `key=value` lines between the header and the init block.
    pub metadata: Vec<(String, String)>,
    pub init: Vec<InitItem>,
    /// `struct node { int val; struct node *next; };`, in the init block or before the
    /// threads.
    pub structs: Vec<StructDef>,
    /// Function definitions between the init block and the threads.
    pub functions: Vec<Function>,
    pub threads: Vec<Thread>,
    /// `spec { ... }`: the sequential specification of the functions the threads call.
    pub spec: Option<SpecBlock>,
    /// The `locations [...]` clause: extra state to report in outcomes.
    pub locations: Vec<StateVar>,
    pub filter: Option<Prop>,
    pub condition: Option<Condition>,
}

/// A C type as written: a base name with qualifiers. Kept loose on purpose: litmus tests use
/// many spellings (`atomic_int`, `_Atomic int`, `volatile __int128`, `atomic_t`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Type {
    /// The base type words joined by one space, qualifiers removed, e.g. `int`, `atomic_int`,
    /// `unsigned long`, `__int128_t`.
    pub base: String,
    pub atomic: bool,
    pub volatile: bool,
    pub constant: bool,
    /// Number of `*` after the base type.
    pub pointer_depth: u8,
    pub span: Span,
}

/// `struct node { int val; struct node *next; int slots[2]; };`
#[derive(Clone, Debug, Serialize)]
pub struct StructDef {
    pub name: Ident,
    pub fields: Vec<FieldDecl>,
    pub span: Span,
}

/// One field of a struct: `struct node *next;`, `int slots[2];`.
#[derive(Clone, Debug, Serialize)]
pub struct FieldDecl {
    pub ty: Type,
    pub name: Ident,
    pub array_len: Option<u32>,
    pub span: Span,
}

/// One step into an object after its name: `.next` or `[1]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Member {
    Field(Ident),
    Index(u32, Span),
}

/// An address written as a constant: `x`, `&x`, `&a[1]`, `a + 1`, `&pool[1].next`, `NULL`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AddressOf {
    pub name: Ident,
    /// The steps after the name (`[1]`, `.next`).
    pub members: Vec<Member>,
    /// The `+ k` after it, in cells of the object (elements of the pointer's type once
    /// structs are laid out).
    pub offset: i64,
    pub span: Span,
}

impl AddressOf {
    pub fn of_name(name: Ident) -> AddressOf {
        AddressOf {
            span: name.span,
            name,
            members: Vec::new(),
            offset: 0,
        }
    }
}

/// One entry of the init block.
#[derive(Clone, Debug, Serialize)]
pub struct InitItem {
    pub ty: Option<Type>,
    pub target: StateVar,
    /// `None` when only declared (`int x;`): the location starts at 0.
    pub value: Option<InitValue>,
    /// For array declarations `int d[2] = {1, 1};`: the declared length.
    pub array_len: Option<u32>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum InitValue {
    Int(i64),
    /// `{1, 1}` for arrays.
    List(Vec<i64>),
    /// `ATOMIC_INIT(v)`.
    AtomicInit(i64),
    /// The address of a location, as in `0:r0 = x;` (a register holding a pointer).
    Address(AddressOf),
}

/// Something a final state talks about: a thread's register or a memory location.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum StateVar {
    /// `0:r0`
    Register { thread: u32, name: Ident },
    /// `x`, `[x]`, `d[1]` or `[d[1]]`; `pool[1].next` or `n.val` with `members`.
    Location {
        name: Ident,
        index: Option<u32>,
        members: Vec<Member>,
    },
}

impl StateVar {
    pub fn span(&self) -> Span {
        match self {
            StateVar::Register { name, .. } | StateVar::Location { name, .. } => name.span,
        }
    }
}

/// `P0 (atomic_int* x, int* y) { ... }`
#[derive(Clone, Debug, Serialize)]
pub struct Thread {
    /// `P0` -> 0. The parser rejects thread names that are not `P` followed by a number.
    pub index: u32,
    pub name: Ident,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// `int pop(int *top) { ... }`: a function the threads (and other functions) call. Its
/// `static`/`inline` qualifiers are read and dropped: every call is inlined anyway.
#[derive(Clone, Debug, Serialize)]
pub struct Function {
    pub return_type: Type,
    pub name: Ident,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// `spec { int size = 0; void push(int *s, int v) { ... } }`: the sequential object the
/// functions of the test are checked against. `state` is its memory, declared as in the
/// init block; each function of the same name as one of the test's is that method's
/// sequential version, run on `state` one call at a time.
#[derive(Clone, Debug, Serialize)]
pub struct SpecBlock {
    pub state: Vec<InitItem>,
    pub functions: Vec<Function>,
    pub rules: Vec<SyncRule>,
    pub span: Span,
}

/// A function or a synchronisation rule of a `spec { }` block.
pub enum SpecItem {
    Function(Function),
    Rule(SyncRule),
}

/// `happens_before enqueue(q, v) -> r = dequeue(q) if (r == v);`: when a call matching
/// `before` comes before a call matching `after` in the history and the condition holds
/// on what the patterns bind, the first call's beginning happens before the second's end
/// (CDSSpec's `@Happens_before: Enqueue -> Dequeue`).
#[derive(Clone, Debug, Serialize)]
pub struct SyncRule {
    pub before: CallPattern,
    pub after: CallPattern,
    pub condition: Option<Expr>,
    pub span: Span,
}

/// `r = dequeue(q)`: a call of `function`, its arguments bound to `params` and its value
/// to `result`.
#[derive(Clone, Debug, Serialize)]
pub struct CallPattern {
    pub result: Option<Ident>,
    pub function: Ident,
    pub params: Vec<Ident>,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct Param {
    pub ty: Type,
    pub name: Ident,
}

#[derive(Clone, Debug, Serialize)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

/// What a statement holds directly: an expression, or a nested statement.
pub enum StmtPart<'a> {
    Expr(&'a Expr),
    Stmt(&'a Stmt),
}

/// [`StmtPart`], to rewrite.
pub enum StmtPartMut<'a> {
    Expr(&'a mut Expr),
    Stmt(&'a mut Stmt),
}

/// The parts of a statement in the order the walkers visit them: a condition before the
/// branches or body it guards (a `do`'s too), a `for`'s init, condition, step and body.
macro_rules! stmt_parts {
    ($stmt:expr, $expr:path, $nested:path, $iter:ident) => {{
        let mut parts = Vec::new();
        match $stmt {
            StmtKind::Decl { init, .. } => parts.extend(init.$iter().map($expr)),
            StmtKind::Assign { lhs, rhs } => parts.extend([$expr(lhs), $expr(rhs)]),
            StmtKind::Expr(e) => parts.push($expr(e)),
            StmtKind::Return(e) => parts.extend(e.$iter().map($expr)),
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                parts.push($expr(cond));
                parts.extend(then_branch.$iter().map($nested));
                parts.extend(else_branch.$iter().flatten().map($nested));
            }
            StmtKind::While {
                prelude,
                cond,
                body,
            } => {
                parts.extend(prelude.$iter().map($nested));
                parts.push($expr(cond));
                parts.extend(body.$iter().map($nested));
            }
            StmtKind::DoWhile { body, cond } => {
                parts.push($expr(cond));
                parts.extend(body.$iter().map($nested));
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                parts.extend(init.$iter().map(|s| $nested(s)));
                parts.extend(cond.$iter().map($expr));
                parts.extend(step.$iter().map(|s| $nested(s)));
                parts.extend(body.$iter().map($nested));
            }
            StmtKind::Block(body) | StmtKind::Atomic(body) => {
                parts.extend(body.$iter().map($nested))
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Empty => {}
        }
        parts
    }};
}

impl Stmt {
    /// The expressions and statements directly inside this one, in the order of
    /// `stmt_parts!`.
    pub fn parts(&self) -> Vec<StmtPart<'_>> {
        stmt_parts!(&self.kind, StmtPart::Expr, StmtPart::Stmt, iter)
    }

    /// [`Stmt::parts`], to rewrite.
    pub fn parts_mut(&mut self) -> Vec<StmtPartMut<'_>> {
        stmt_parts!(
            &mut self.kind,
            StmtPartMut::Expr,
            StmtPartMut::Stmt,
            iter_mut
        )
    }
}

#[derive(Clone, Debug, Serialize)]
pub enum StmtKind {
    /// `int r0 = e;` or `int r0;`
    Decl {
        ty: Type,
        name: Ident,
        init: Option<Expr>,
    },
    /// `lhs = rhs;` where `lhs` is a register name, `*e` or `a[i]`.
    Assign { lhs: Expr, rhs: Expr },
    /// An expression evaluated for its effect, usually a call: `atomic_store(x, 1);`,
    /// `lock(l);`, `assert(r0 == 1);`, `atomic_thread_fence(memory_order_seq_cst);`.
    Expr(Expr),
    If {
        cond: Expr,
        then_branch: Vec<Stmt>,
        else_branch: Option<Vec<Stmt>>,
    },
    While {
        /// Never parsed: statements run before each test of `cond`, as its memory
        /// accesses are (the C front end's side effects hoisted out of a condition).
        prelude: Vec<Stmt>,
        cond: Expr,
        body: Vec<Stmt>,
    },
    /// `for (init; cond; step) body`; any part may be missing.
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Option<Box<Stmt>>,
        body: Vec<Stmt>,
    },
    /// `do body while (cond);`
    DoWhile { body: Vec<Stmt>, cond: Expr },
    /// `break;`: leave the innermost loop.
    Break,
    /// `continue;`: go on with the innermost loop's next test.
    Continue,
    /// `return;` ends the thread (a value is an error in a thread); in a function,
    /// `return e;` gives the call its value.
    Return(Option<Expr>),
    /// A nested `{ ... }`.
    Block(Vec<Stmt>),
    /// `atomic { ... }`: a block whose atomicity is to be checked.
    Atomic(Vec<Stmt>),
    /// `;`
    Empty,
}

#[derive(Clone, Debug, Serialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

impl Expr {
    /// The expressions directly inside this one, left to right.
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Int(_) | ExprKind::Name(_) => Vec::new(),
            ExprKind::Unary(_, a)
            | ExprKind::Cast(_, a)
            | ExprKind::Member(a, _, _)
            | ExprKind::FieldIndex(a, _) => vec![a],
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => vec![a, b],
            ExprKind::Conditional(c, a, b) => vec![c, a, b],
            ExprKind::Call(_, args) => args.iter().collect(),
        }
    }

    /// [`Expr::children`], to rewrite.
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match &mut self.kind {
            ExprKind::Int(_) | ExprKind::Name(_) => Vec::new(),
            ExprKind::Unary(_, a)
            | ExprKind::Cast(_, a)
            | ExprKind::Member(a, _, _)
            | ExprKind::FieldIndex(a, _) => vec![a],
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => vec![a, b],
            ExprKind::Conditional(c, a, b) => vec![c, a, b],
            ExprKind::Call(_, args) => args.iter_mut().collect(),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub enum ExprKind {
    Int(i64),
    /// A register, a parameter, a location or a constant such as `memory_order_relaxed`.
    Name(Ident),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`
    Conditional(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `(int) e`
    Cast(Type, Box<Expr>),
    /// `f(a, b)`
    Call(Ident, Vec<Expr>),
    /// `a[i]`
    Index(Box<Expr>, Box<Expr>),
    /// `n.next` (false) or `p->next` (true).
    Member(Box<Expr>, Ident, bool),
    /// Never parsed: an index into an array field of a struct, which the struct layout
    /// turns into an offset within the whole object; the index must lie in `0..limit`
    /// (the field's length, one more where only the address is taken), which lowering
    /// checks when the access runs, as it checks an index into an array object.
    FieldIndex(Box<Expr>, u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum UnaryOp {
    /// `-e`
    Neg,
    /// `!e`
    Not,
    /// `~e`
    BitNot,
    /// `*e`
    Deref,
    /// `&e`
    AddrOf,
}

impl UnaryOp {
    /// The operator on values this one is; `None` for `*` and `&`, which lowering turns into
    /// memory accesses and addresses.
    pub fn on_values(self) -> Option<operators::UnaryOp> {
        match self {
            UnaryOp::Neg => Some(operators::UnaryOp::Neg),
            UnaryOp::Not => Some(operators::UnaryOp::Not),
            UnaryOp::BitNot => Some(operators::UnaryOp::BitNot),
            UnaryOp::Deref | UnaryOp::AddrOf => None,
        }
    }
}

/// The final condition: `exists (p)`, `~exists (p)` or `forall (p)`.
#[derive(Clone, Debug, Serialize)]
pub struct Condition {
    pub quantifier: Quantifier,
    pub prop: Prop,
    pub span: Span,
}

/// A proposition over the final state.
#[derive(Clone, Debug, Serialize)]
pub enum Prop {
    True(Span),
    False(Span),
    /// `0:r0=1`, `x!=2`, `[y]=0`.
    Atom {
        var: StateVar,
        negated: bool,
        value: AtomValue,
        span: Span,
    },
    Not(Box<Prop>, Span),
    And(Box<Prop>, Box<Prop>),
    Or(Box<Prop>, Box<Prop>),
    /// `p => q`
    Implies(Box<Prop>, Box<Prop>),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum AtomValue {
    Int(i64),
    /// A location's address, as in `0:r0=x` for a register holding a pointer.
    Address(AddressOf),
    /// Another register: `0:r1=1:r2` holds when both end with the same value.
    Var(StateVar),
}
