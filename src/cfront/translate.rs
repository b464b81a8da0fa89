//! lang-c's AST -> the litmus AST.
//!
//! What C writes differently from the litmus dialect:
//! - A global `x` is a location: its value is `*x` there and `&x` is `x`; an array's name
//!   is its address in both.
//! - Threads. `main` is thread `P0`. Each `pthread_create(&h, attr, f, arg)` (or
//!   `thrd_create`) that a thread runs starts a thread `Pk` that calls `f(arg)` (what
//!   depends on the running thread, creates outside `main` included: `threads.rs`); a create
//!   inside a `for` whose trip count is a constant starts one thread per iteration (the
//!   loop is unrolled here, its variable a constant in each copy). `pthread_join(h, _)`
//!   waits for the thread `h` holds.
//! - Creation and join synchronise through a location of their own, which is how a model,
//!   shipped or the user's own `.cat`, sees them: the create is a release write of 1 to
//!   `spawn#k`, and thread `k` begins with an acquire read of `spawn#k` assumed to read 1;
//!   thread `k` ends with a release write of 1 to `exit#k` when some join waits for it, and
//!   the join is an acquire read of `exit#k` assumed to read 1. The assumed read has one
//!   write it may read from, so the pair adds no execution; an execution where it would
//!   read the initial 0 is not an execution of the program (the assumption blocks it) and
//!   is not counted. Under C11's models the pair is a synchronises-with edge (`sw`, hence
//!   `hb`); every model sees the pairs as the relations `tc` and `tj`
//!   (`events::thread_sync`), which the shipped models order.
//! - Integers are nemos's 32-bit integers whatever their C type; a cast keeps its operand's
//!   value (a cast to `_Bool` compares with 0). Pointers are addresses as in litmus tests.
//! - `printf` and its kin do nothing; `__VERIFIER_assume(c)` is `assume(c)`;
//!   `atomic_init(p, v)` is a relaxed store; `pthread_mutex_lock`/`unlock`/`destroy` are
//!   nemos's `lock`/`unlock` with GenMC's defects of their use (`program::mutex`).
//!
//! What is not supported yet is refused at the construct, named ("`switch` is not
//! supported yet").

use std::collections::{HashMap, HashSet};

use lang_c::ast as c;
use lang_c::span::Node;

use super::LineMap;
use crate::diagnostics::{Diagnostic, Span};

mod threads;
use crate::syntax::ast::{self, BinaryOp, ExprKind, StmtKind, UnaryOp};

mod arrays;
mod asm;
mod booleans;
mod bounded;
mod builtins;
mod byval;
mod effects;
mod expected;
mod extras;
mod fnptr;
mod statics;

use extras::{clang_failure_order, is_struct_object};
mod control;
mod copy;
mod exit;
mod goto;
mod heap;
mod helper_exit;
mod initlist;
mod known;
mod members;
mod memset;
mod offsetof;
mod scoping;
mod stack;
mod succeed;
mod switch;
mod sync;
mod typeofs;
mod unused;

type Errors = Vec<Diagnostic>;

/// A C type as far as the litmus AST needs it.
#[derive(Clone, Debug)]
struct TypeInfo {
    base: String,
    atomic: bool,
    pointer_depth: u8,
    /// `pthread_t`, `thrd_t`: handles nemos tracks while translating, not values.
    handle: bool,
    /// `_Atomic(T *)`: the pointer itself is atomic (`atomic` says whether what it points
    /// to is).
    pointer_atomic: bool,
    /// A function pointer named by its typedef (`typedef void (*op_t)(void); op_t g;`).
    function_pointer: bool,
    /// What the pointer points to is an atomic pointer (`_Atomic(T *) *p`, `T *_Atomic *p`).
    inner_atomic: bool,
}

impl TypeInfo {
    fn scalar(base: &str) -> TypeInfo {
        TypeInfo {
            base: base.to_string(),
            atomic: false,
            pointer_depth: 0,
            handle: false,
            pointer_atomic: false,
            function_pointer: false,
            inner_atomic: false,
        }
    }
}

/// How a global's name reads in the litmus AST.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Global {
    /// A scalar or struct object: its name is its address, its value `*name`.
    Object,
    /// An array: its name is its address in C too.
    Array,
}

/// Calls whose C form has nothing the litmus dialect needs: dropped.
const IGNORED_CALLS: &[&str] = &[
    "printf",
    "fprintf",
    "puts",
    // `pthread_mutex_init` is `mutex_init#posix` (RENAMED_CALLS).
    "thrd_yield",
];

/// Calls nemos knows by another name.
const RENAMED_CALLS: &[(&str, &str)] = &[
    ("__VERIFIER_assume", "assume"),
    ("pthread_mutex_lock", "lock#posix"),
    ("pthread_mutex_unlock", "unlock#posix"),
    ("pthread_mutex_destroy", "mutex_destroy#posix"),
    ("pthread_mutex_init", "mutex_init#posix"),
];

/// Calls refused by name until they are given a meaning.
const UNSUPPORTED_CALLS: &[&str] = &[
    "realloc",
    "pthread_mutex_trylock",
    "pthread_barrier_init",
    "pthread_barrier_wait",
    "pthread_barrier_destroy",
    "pthread_cond_wait",
    "pthread_cond_signal",
    "__VERIFIER_nondet_int",
    "__VERIFIER_nondet_uint",
    "__VERIFIER_nondet_bool",
    "__VERIFIER_hp_alloc",
    "__VERIFIER_hp_protect",
    "__VERIFIER_hp_free",
    "__VERIFIER_hp_retire",
    "__VERIFIER_final_CAS",
    "__VERIFIER_helping_CAS",
    "__VERIFIER_helped_CAS",
    "__VERIFIER_optional",
    "memset",
    "memcpy",
    "exit",
    "abort",
];

/// A thread `main` starts.
struct Spawn {
    function: ast::Ident,
    argument: ast::Expr,
    joined: bool,
    /// Whether a join reads the thread's value (kept in `ret#k`).
    result: bool,
    span: Span,
}

/// What is in force inside a function body.
#[derive(Default, Clone)]
struct Scope {
    locals: HashMap<String, TypeInfo>,
    /// Variables of loops unrolled here, each a constant in its copy of the body.
    constants: HashMap<String, i64>,
    /// Whether this is `main`.
    main: bool,
    /// Inside a loop or branch `main` runs a variable number of times: no thread may be
    /// joined there, nor started but in a branch outside loops (`looping`).
    conditional: u32,
    /// Inside a loop: no thread may be started there (each create site is one thread).
    looping: u32,
    /// Parameters that are arrays of arrays (`int m[4][4]`): their lengths (`arrays.rs`).
    dims: HashMap<String, Vec<u32>>,
    /// Local function pointers initialised with a function of the program (`extras.rs`).
    function_aliases: HashMap<String, String>,
    /// The thread running this code, when it is known: `main` (0) and the functions
    /// translated per thread (`threads.rs`).
    thread: Option<usize>,
    /// Whether this is the function thread `thread` starts with (`pthread_exit` returns).
    start: bool,
    /// The thread handles declared here (`pthread_t t;`), followed while translating.
    local_handles: HashSet<String>,
    /// The function's locals whose value is followed while known (`known.rs`).
    followed: HashSet<String>,
    /// Globals `main` wrote its constant to, the program's one write of them (`known.rs`).
    known_globals: HashMap<String, i64>,
    /// Inside a retry loop made of a backward `goto`'s statements: its label, whose
    /// `goto` is `continue` here (`control.rs`).
    retry_label: Option<String>,
    /// Inside the wrapper of a forward `goto`'s label: its names, each with the register
    /// its `goto` sets (`goto.rs`).
    forward_labels: HashMap<String, String>,
    /// The locals in scope that are stack objects (`stack.rs`).
    stack: HashSet<String>,
    /// Locals that hide a global or an enclosing block's local: their registers
    /// (`scoping.rs`).
    renamed: HashMap<String, String>,
}

struct Translator<'a> {
    map: &'a LineMap,
    threads: threads::ThreadState<'a>,
    errors: Errors,
    typedefs: HashMap<String, TypeInfo>,
    enum_constants: HashMap<String, i64>,
    globals: HashMap<String, (Global, TypeInfo)>,
    functions: HashSet<String>,
    init: Vec<ast::InitItem>,
    structs: Vec<ast::StructDef>,
    litmus_functions: Vec<ast::Function>,
    spawns: Vec<Spawn>,
    /// Which thread each handle (`t1`, `t[2]`) holds.
    handles: HashMap<String, usize>,
    /// The threads started inside a branch: they may not start at all, and which of them
    /// a handle holds depends on the branch taken, so no join names their handle.
    started_in_branch: HashSet<usize>,
    joins: usize,
    /// Whether a name is one of nemos's library calls (`lock`, `assume`, ...): a function
    /// of the program with such a name is renamed `NAME#c`, so that the program's own
    /// definition is the one called.
    reserved: &'a dyn Fn(&str) -> bool,
    /// Copies of loop bodies made by unrolling constant loops, nested ones included: past
    /// `MAX_UNROLLED_COPIES`, loops are left to the bounded unrolling of every loop.
    unrolled_copies: usize,
    /// GenMC's `-unroll=N`: constant loops of N or more iterations are left to the
    /// unroller's bound (`bounded.rs`).
    loop_bound: Option<usize>,
    /// Globals that are arrays of arrays: their lengths (`arrays.rs`).
    dims: HashMap<String, Vec<u32>>,
    /// The global barriers (`pthread_barrier_t`), by name (`sync.rs`).
    barriers: HashSet<String>,
    /// Barrier calls written so far, which number their registers.
    sync_calls: usize,
    /// The values of barrier calls written before the expression that makes them, by the
    /// call's offset.
    hoisted: HashMap<usize, ast::Expr>,
    /// Each struct's fields, by struct and field name: type and array length (`members.rs`).
    field_types: HashMap<(String, String), (TypeInfo, Option<u32>)>,
    /// The lengths of struct fields that are arrays of arrays, by struct and field name
    /// (`arrays.rs`).
    field_dims: HashMap<(String, String), Vec<u32>>,
    /// What the program writes where, and the globals nothing writes (`known.rs`).
    global_writes: known::GlobalWrites,
    frozen: HashMap<String, i64>,
    /// The names of the `static` locals made globals so far (`statics.rs`).
    static_locals: HashSet<String>,
    /// The stack objects of the function being translated (`stack.rs`).
    stack_frame: stack::Frame,
    /// The scope of the statement being translated, for `typeof(e)` in its type names
    /// (`typeofs.rs`).
    typeof_scope: Scope,
    /// The functions whose address the program takes, the candidates of a call through a
    /// pointer (`fnptr.rs`).
    pointed_functions: fnptr::Pointers,
}

/// How many loop bodies unrolling constant loops may copy in one program.
const MAX_UNROLLED_COPIES: usize = 4096;

/// Translate a parsed C program; `name` names the test.
pub fn translate<'a>(
    unit: &'a c::TranslationUnit,
    map: &'a LineMap,
    name: &str,
    reserved: &'a dyn Fn(&str) -> bool,
    loop_bound: Option<usize>,
) -> Result<ast::LitmusTest, Errors> {
    let mut t = Translator {
        map,
        threads: threads::ThreadState::default(),
        errors: Vec::new(),
        typedefs: HashMap::new(),
        enum_constants: HashMap::new(),
        globals: HashMap::new(),
        functions: HashSet::new(),
        init: Vec::new(),
        structs: Vec::new(),
        litmus_functions: Vec::new(),
        spawns: Vec::new(),
        handles: HashMap::new(),
        started_in_branch: HashSet::new(),
        joins: 0,
        reserved,
        unrolled_copies: 0,
        loop_bound,
        dims: HashMap::new(),
        barriers: HashSet::new(),
        sync_calls: 0,
        hoisted: HashMap::new(),
        field_types: HashMap::new(),
        field_dims: HashMap::new(),
        global_writes: known::GlobalWrites::of(unit),
        frozen: HashMap::new(),
        static_locals: HashSet::new(),
        stack_frame: stack::Frame::default(),
        typeof_scope: Scope::default(),
        pointed_functions: fnptr::Pointers::default(),
    };
    // Every function the program defines, before any body is read: a call may come
    // before the definition (after a prototype).
    for item in &unit.0 {
        if let c::ExternalDeclaration::FunctionDefinition(f) = &item.node {
            if let Some(name) = declarator_name(&f.node.declarator.node) {
                t.functions.insert(name.node.name.clone());
            }
        }
    }
    t.analyse_threads(unit);
    t.pointed_functions = fnptr::address_taken(unit);
    let unused = unused::unused_functions(unit);
    let mut main = None;
    for item in &unit.0 {
        match &item.node {
            c::ExternalDeclaration::Declaration(d) => t.global_declaration(d),
            c::ExternalDeclaration::StaticAssert(s) => t.refuse("`_Static_assert`", s.span),
            c::ExternalDeclaration::FunctionDefinition(f) => {
                if let Some(name) = declarator_name(&f.node.declarator.node) {
                    if name.node.name == "main" {
                        main = Some(f);
                        continue;
                    }
                    if unused.contains(&name.node.name) {
                        // Never called: not translated (`unused.rs`).
                        continue;
                    }
                    if t.is_per_thread(&name.node.name) {
                        // Translated for each thread that runs it, when it is started.
                        continue;
                    }
                }
                t.function(f, Scope::default(), None);
            }
        }
    }
    let Some(main) = main else {
        t.errors.push(
            Diagnostic::new("the C program has no `main`", super::nowhere())
                .with_help("nemos runs `main` as the first thread, which starts the others"),
        );
        return Err(t.errors);
    };
    let mut scope = Scope {
        main: true,
        thread: Some(0),
        ..Scope::default()
    };
    let span = t.span(main.span);
    let enclosing = t.enter_frame(&main.node.statement, &[], None, &mut scope);
    let body = t.body(&main.node.statement, scope);
    let body = t.leave_frame(enclosing, body, span);
    let main_name = declarator_name(&main.node.declarator.node)
        .map_or_else(|| ident("main", span), |n| t.ident(n));
    let mut threads = vec![ast::Thread {
        index: 0,
        name: main_name,
        params: Vec::new(),
        body,
        span,
    }];
    t.finish_threads();
    for (k, spawn) in t.spawns.iter().enumerate() {
        // `void *f()` declares no parameter (C's unspecified list): it is called without.
        let takes_argument = t
            .litmus_functions
            .iter()
            .find(|f| f.name.name == spawn.function.name)
            .is_none_or(|f| !f.params.is_empty());
        threads.push(spawned_thread(k + 1, spawn, takes_argument));
    }
    for (k, spawn) in t.spawns.iter().enumerate() {
        for flag in [spawn_flag(k + 1), exit_flag(k + 1)] {
            t.init.push(flag_location(&flag, span));
        }
        if spawn.result {
            t.init.push(ast::InitItem {
                ty: Some(int_type(span)),
                ..flag_location(&threads::result_location(k + 1), span)
            });
        }
    }
    if !t.errors.is_empty() {
        return Err(t.errors);
    }
    Ok(ast::LitmusTest {
        arch: "C".to_string(),
        name: ident(name, span),
        doc: None,
        metadata: Vec::new(),
        init: t.init,
        structs: t.structs,
        functions: t.litmus_functions,
        threads,
        spec: None,
        locations: Vec::new(),
        filter: None,
        condition: None,
    })
}

fn spawn_flag(k: usize) -> String {
    format!("spawn#{k}")
}

fn exit_flag(k: usize) -> String {
    format!("exit#{k}")
}

fn ident(name: &str, span: Span) -> ast::Ident {
    ast::Ident {
        name: name.to_string(),
        span,
    }
}

fn expr(kind: ExprKind, span: Span) -> ast::Expr {
    ast::Expr { kind, span }
}

fn stmt(kind: StmtKind, span: Span) -> ast::Stmt {
    ast::Stmt { kind, span }
}

/// `if (cond) { then_branch } else { else_branch }`.
fn if_stmt(
    cond: ast::Expr,
    then_branch: Vec<ast::Stmt>,
    else_branch: Option<Vec<ast::Stmt>>,
    span: Span,
) -> ast::Stmt {
    stmt(
        StmtKind::If {
            cond,
            then_branch,
            else_branch,
        },
        span,
    )
}

fn name_expr(name: &str, span: Span) -> ast::Expr {
    expr(ExprKind::Name(ident(name, span)), span)
}

fn int_type(span: Span) -> ast::Type {
    ast::Type {
        base: "int".to_string(),
        atomic: false,
        volatile: false,
        constant: false,
        pointer_depth: 0,
        span,
    }
}

fn call(name: &str, args: Vec<ast::Expr>, span: Span) -> ast::Expr {
    expr(ExprKind::Call(ident(name, span), args), span)
}

fn flag_location(name: &str, span: Span) -> ast::InitItem {
    ast::InitItem {
        ty: Some(ast::Type {
            base: "atomic_int".to_string(),
            atomic: true,
            ..int_type(span)
        }),
        target: ast::StateVar::Location {
            name: ident(name, span),
            index: None,
            members: Vec::new(),
        },
        value: Some(ast::InitValue::Int(0)),
        array_len: None,
        span,
    }
}

/// `atomic_store_explicit(flag, 1, memory_order_release);`
fn release_flag(flag: &str, span: Span) -> ast::Stmt {
    let args = vec![
        name_expr(flag, span),
        expr(ExprKind::Int(1), span),
        name_expr("memory_order_release", span),
    ];
    stmt(
        StmtKind::Expr(call("atomic_store_explicit", args, span)),
        span,
    )
}

/// `int seen = atomic_load_explicit(flag, memory_order_acquire); assume(seen == 1);`
fn acquire_flag(flag: &str, register: &str, span: Span) -> [ast::Stmt; 2] {
    let load = call(
        "atomic_load_explicit",
        vec![
            name_expr(flag, span),
            name_expr("memory_order_acquire", span),
        ],
        span,
    );
    let seen = expr(
        ExprKind::Binary(
            BinaryOp::Eq,
            Box::new(name_expr(register, span)),
            Box::new(expr(ExprKind::Int(1), span)),
        ),
        span,
    );
    [
        stmt(
            StmtKind::Decl {
                ty: int_type(span),
                name: ident(register, span),
                init: Some(load),
            },
            span,
        ),
        stmt(StmtKind::Expr(call("assume", vec![seen], span)), span),
    ]
}

/// Thread `k`: wait for its creation, call its function, announce its end when joined.
fn spawned_thread(k: usize, spawn: &Spawn, takes_argument: bool) -> ast::Thread {
    let span = spawn.span;
    let mut body: Vec<ast::Stmt> =
        acquire_flag(&spawn_flag(k), &format!("{}.seen", spawn_flag(k)), span).into();
    let arguments = if takes_argument {
        vec![spawn.argument.clone()]
    } else {
        Vec::new()
    };
    let run = expr(ExprKind::Call(spawn.function.clone(), arguments), span);
    if spawn.result {
        // What the thread returns, for the join that reads it.
        let register = format!("{}.value", threads::result_location(k));
        body.push(stmt(
            StmtKind::Decl {
                ty: int_type(span),
                name: ident(&register, span),
                init: Some(run),
            },
            span,
        ));
        let location = name_expr(&threads::result_location(k), span);
        body.push(stmt(
            StmtKind::Assign {
                lhs: expr(ExprKind::Unary(UnaryOp::Deref, Box::new(location)), span),
                rhs: name_expr(&register, span),
            },
            span,
        ));
    } else {
        body.push(stmt(StmtKind::Expr(run), span));
    }
    if spawn.joined {
        body.push(release_flag(&exit_flag(k), span));
    }
    ast::Thread {
        index: k as u32,
        name: ident(&format!("P{k}"), span),
        params: Vec::new(),
        body,
        span,
    }
}

fn declarator_name(d: &c::Declarator) -> Option<&Node<c::Identifier>> {
    match &d.kind.node {
        c::DeclaratorKind::Identifier(id) => Some(id),
        c::DeclaratorKind::Declarator(inner) => declarator_name(&inner.node),
        c::DeclaratorKind::Abstract => None,
    }
}

/// The derived parts of a declarator, innermost last as C reads them (`int *a[2]`: an
/// array of pointers).
fn derived(d: &c::Declarator) -> Vec<&c::DerivedDeclarator> {
    let mut parts: Vec<&c::DerivedDeclarator> = d.derived.iter().map(|n| &n.node).collect();
    if let c::DeclaratorKind::Declarator(inner) = &d.kind.node {
        parts.extend(derived(&inner.node));
    }
    parts
}

impl Translator<'_> {
    fn span(&self, span: lang_c::span::Span) -> Span {
        self.map.span(span.start, span.end)
    }

    fn ident(&self, id: &Node<c::Identifier>) -> ast::Ident {
        ident(&id.node.name, self.span(id.span))
    }

    fn refuse(&mut self, what: &str, span: lang_c::span::Span) {
        let at = self.span(span);
        self.errors
            .push(Diagnostic::new(format!("{what} is not supported yet"), at));
    }

    // ---- types ----

    fn type_of(
        &mut self,
        specifiers: &[&c::TypeSpecifier],
        qualifiers: &[&c::TypeQualifier],
    ) -> TypeInfo {
        let mut words = Vec::new();
        let mut info = TypeInfo::scalar("int");
        let mut named = None;
        for s in specifiers {
            if let Some(word) = scalar_word(s) {
                words.push(word);
                continue;
            }
            match s {
                c::TypeSpecifier::Atomic(inner) => {
                    let mut inner_info = self.type_name(&inner.node);
                    if inner_info.pointer_depth > 0 {
                        inner_info.pointer_atomic = true;
                    } else {
                        inner_info.atomic = true;
                    }
                    named = Some(inner_info);
                }
                c::TypeSpecifier::Struct(st) => {
                    let name = self.struct_type(st);
                    named = Some(TypeInfo::scalar(&format!("struct {name}")));
                }
                c::TypeSpecifier::Enum(e) => {
                    self.enum_type(&e.node);
                    words.push("int");
                }
                c::TypeSpecifier::TypedefName(id) => match self.typedefs.get(&id.node.name) {
                    Some(t) => named = Some(t.clone()),
                    None => {
                        let at = self.span(id.span);
                        self.errors.push(Diagnostic::new(
                            format!("unknown type `{}`", id.node.name),
                            at,
                        ));
                    }
                },
                c::TypeSpecifier::Float | c::TypeSpecifier::Double => {
                    words.push("double");
                }
                // `typeof`: the type nemos follows (`typeofs.rs`), else `int` as before.
                c::TypeSpecifier::TypeOf(t) => {
                    match self.typeof_info(&t.node, &self.typeof_scope) {
                        Some(info) => named = Some(info),
                        None => words.push("int"),
                    }
                }
                _ => words.push("int"),
            }
        }
        if let Some(n) = named {
            info = n;
        } else if !words.is_empty() {
            info.base = words.join(" ");
        }
        for q in qualifiers {
            if matches!(q, c::TypeQualifier::Atomic) {
                // `T _Atomic p` with `typedef int *T`: the pointer is the atomic object.
                if info.pointer_depth > 0 {
                    info.pointer_atomic = true;
                } else {
                    info.atomic = true;
                }
            }
        }
        info
    }

    fn specifiers_type(&mut self, specifiers: &[Node<c::DeclarationSpecifier>]) -> TypeInfo {
        let mut types = Vec::new();
        let mut qualifiers = Vec::new();
        for s in specifiers {
            match &s.node {
                c::DeclarationSpecifier::TypeSpecifier(t) => types.push(&t.node),
                c::DeclarationSpecifier::TypeQualifier(q) => qualifiers.push(&q.node),
                _ => {}
            }
        }
        let info = self.type_of(&types, &qualifiers);
        self.refuse_floats(&info, specifiers.first().map(|s| s.span));
        info
    }

    fn refuse_floats(&mut self, info: &TypeInfo, span: Option<lang_c::span::Span>) {
        if info.base == "double" {
            if let Some(span) = span {
                self.refuse("floating-point arithmetic", span);
            }
        }
    }

    fn type_name(&mut self, name: &c::TypeName) -> TypeInfo {
        let mut types = Vec::new();
        let mut qualifiers = Vec::new();
        for s in &name.specifiers {
            match &s.node {
                c::SpecifierQualifier::TypeSpecifier(t) => types.push(&t.node),
                c::SpecifierQualifier::TypeQualifier(q) => qualifiers.push(&q.node),
                c::SpecifierQualifier::Extension(_) => {}
            }
        }
        let mut info = self.type_of(&types, &qualifiers);
        if let Some(d) = &name.declarator {
            for part in derived(&d.node) {
                if matches!(part, c::DerivedDeclarator::Pointer(_)) {
                    info.pointer_depth += 1;
                }
            }
        }
        info
    }

    fn litmus_type(info: &TypeInfo, span: Span) -> ast::Type {
        ast::Type {
            base: info.base.clone(),
            atomic: info.atomic,
            volatile: false,
            constant: false,
            pointer_depth: info.pointer_depth,
            span,
        }
    }

    fn struct_type(&mut self, st: &Node<c::StructType>) -> String {
        let span = self.span(st.span);
        if matches!(st.node.kind.node, c::StructKind::Union) {
            self.union_type(st);
        }
        let name = st.node.identifier.as_ref().map_or_else(
            || format!("anonymous#{}", self.structs.len()),
            |i| i.node.name.clone(),
        );
        let Some(declarations) = &st.node.declarations else {
            return name;
        };
        let mut fields = Vec::new();
        for d in declarations {
            let c::StructDeclaration::Field(field) = &d.node else {
                self.refuse("`_Static_assert`", d.span);
                continue;
            };
            let mut types = Vec::new();
            let mut qualifiers = Vec::new();
            for s in &field.node.specifiers {
                match &s.node {
                    c::SpecifierQualifier::TypeSpecifier(t) => types.push(&t.node),
                    c::SpecifierQualifier::TypeQualifier(q) => qualifiers.push(&q.node),
                    c::SpecifierQualifier::Extension(_) => {}
                }
            }
            let base = self.type_of(&types, &qualifiers);
            for declarator in &field.node.declarators {
                if declarator.node.bit_width.is_some() {
                    self.refuse("a bit-field", declarator.span);
                    continue;
                }
                let Some(d) = &declarator.node.declarator else {
                    continue;
                };
                let Some(field_name) = declarator_name(&d.node) else {
                    continue;
                };
                let (info, array_len) = self.declared(&base, &d.node, d.span);
                self.record_field_dims(&name, &field_name.node.name, &d.node);
                self.field_declared(&name, &field_name.node.name, &info, array_len);
                fields.push(ast::FieldDecl {
                    ty: Self::litmus_type(&info, self.span(d.span)),
                    name: self.ident(field_name),
                    array_len,
                    span: self.span(declarator.span),
                });
            }
        }
        if declarations.is_empty() {
            // GNU C's empty struct (`struct lock_class_key {};`): it holds nothing, so it
            // is no struct of the litmus AST (which has none without fields).
            return name;
        }
        self.structs.push(ast::StructDef {
            name: ident(&name, span),
            fields,
            span,
        });
        name
    }

    fn enum_type(&mut self, e: &c::EnumType) {
        let mut next = 0;
        for enumerator in &e.enumerators {
            if let Some(value) = &enumerator.node.expression {
                if let Some(v) = self.constant(value, &Scope::default()) {
                    next = v;
                }
            }
            let name = &enumerator.node.identifier.node.name;
            // The memory orders stay names: the library reads them as orders.
            if !name.starts_with("memory_order_") {
                self.enum_constants.insert(name.clone(), next);
            }
            next += 1;
        }
    }

    /// The type a declarator gives its name over `base`, and its array length.
    fn declared(
        &mut self,
        base: &TypeInfo,
        d: &c::Declarator,
        span: lang_c::span::Span,
    ) -> (TypeInfo, Option<u32>) {
        let mut info = base.clone();
        let mut array_len = None;
        // The pointer level that is an atomic object: the base's (`_Atomic(int *)`), or the
        // one an `_Atomic` qualifier of the declarator names (`int *_Atomic p`).
        let mut atomic_pointer_level = info.pointer_atomic.then_some(info.pointer_depth);
        info.pointer_atomic = false;
        for part in derived(d) {
            match part {
                c::DerivedDeclarator::Pointer(qualifiers) => {
                    info.function_pointer = false;
                    info.pointer_depth += 1;
                    if qualifiers.iter().any(|q| {
                        matches!(&q.node, c::PointerQualifier::TypeQualifier(t) if matches!(t.node, c::TypeQualifier::Atomic))
                    }) {
                        atomic_pointer_level = Some(info.pointer_depth);
                    }
                }
                c::DerivedDeclarator::Array(array) => {
                    let outer = array_len;
                    array_len = match &array.node.size {
                        c::ArraySize::VariableExpression(e) | c::ArraySize::StaticExpression(e) => {
                            match self.constant(e, &Scope::default()) {
                                Some(n) if (1..=i64::from(u16::MAX)).contains(&n) => Some(n as u32),
                                _ => {
                                    self.refuse(
                                        "an array whose length is not a positive constant",
                                        e.span,
                                    );
                                    None
                                }
                            }
                        }
                        _ => {
                            self.refuse("an array of unknown length", span);
                            None
                        }
                    };
                    array_len = self.nested_length(outer, array_len, span);
                }
                c::DerivedDeclarator::Function(_) | c::DerivedDeclarator::KRFunction(_) => {}
                c::DerivedDeclarator::Block(_) => self.refuse("a block pointer", span),
            }
        }
        match atomic_pointer_level {
            // `int *_Atomic p`: the pointer itself is atomic, not what it points to.
            Some(level) if level == info.pointer_depth => info.pointer_atomic = true,
            // `_Atomic(int *) *p`: `*p` is the atomic object.
            Some(level) if level + 1 == info.pointer_depth => info.inner_atomic = true,
            Some(_) => self.refuse("a pointer to a pointer to an atomic pointer", span),
            None => {}
        }
        (info, array_len)
    }

    // ---- global declarations ----

    fn global_declaration(&mut self, d: &Node<c::Declaration>) {
        let mut typedef = false;
        for s in &d.node.specifiers {
            if let c::DeclarationSpecifier::StorageClass(class) = &s.node {
                if matches!(class.node, c::StorageClassSpecifier::Typedef) {
                    typedef = true;
                }
            }
        }
        let base = self.specifiers_type(&d.node.specifiers);
        let barrier = !typedef && sync::is_barrier_type(&d.node.specifiers);
        for init_declarator in &d.node.declarators {
            let declarator = &init_declarator.node.declarator;
            let Some(name) = declarator_name(&declarator.node) else {
                continue;
            };
            let is_function = derived(&declarator.node).iter().any(|p| {
                matches!(
                    p,
                    c::DerivedDeclarator::Function(_) | c::DerivedDeclarator::KRFunction(_)
                )
            });
            let (info, array_len) = self.declared(&base, &declarator.node, declarator.span);
            if typedef {
                let mut info = info;
                info.handle = matches!(name.node.name.as_str(), "pthread_t" | "thrd_t");
                info.function_pointer = fnptr::declares_function_pointer(&declarator.node);
                if array_len.is_some() {
                    self.refuse("a typedef of an array", declarator.span);
                }
                self.typedefs.insert(name.node.name.clone(), info);
                continue;
            }
            if is_function && !fnptr::declares_function_pointer(&declarator.node) {
                // A prototype: the definition, if any, is what counts.
                continue;
            }
            if info.handle && info.pointer_depth == 0 && !info.atomic {
                // Followed while translating; an atomic one is memory (`pid = t1`).
                continue;
            }
            if self.static_locals.contains(&name.node.name) {
                // Declared after a function's `static` local of that name, which is a
                // global under it already (`statics.rs`).
                self.refuse_static_clash(name);
                continue;
            }
            self.global(name, &info, array_len, init_declarator);
            if threads::is_thread_local(&d.node) {
                self.thread_local_declared(&name.node.name);
            }
            if barrier && info.pointer_depth == 0 {
                let span = self.span(init_declarator.span);
                self.barrier_global(&name.node.name, array_len, span);
            }
        }
    }

    fn global(
        &mut self,
        name: &Node<c::Identifier>,
        info: &TypeInfo,
        array_len: Option<u32>,
        d: &Node<c::InitDeclarator>,
    ) {
        let span = self.span(d.span);
        let scope = Scope::default();
        let mut members = Vec::new();
        let value = match &d.node.initializer {
            None => None,
            Some(init) => match &init.node {
                c::Initializer::List(items) if is_struct_object(info, array_len) => {
                    members = self.struct_initializer(name, info, items);
                    None
                }
                c::Initializer::Expression(e) => self.init_value(e, &scope),
                c::Initializer::List(items)
                    if items.iter().any(|i| !i.node.designation.is_empty())
                        && derived(&d.node.declarator.node)
                            .iter()
                            .filter(|p| matches!(p, c::DerivedDeclarator::Array(_)))
                            .count()
                            == 1
                        && array_len.is_some() =>
                {
                    let len = array_len.unwrap_or(1);
                    self.designated_global_array(info, len, init)
                        .map(ast::InitValue::List)
                }
                c::Initializer::List(items) => {
                    let mut values = Vec::new();
                    for item in items {
                        if !item.node.designation.is_empty() {
                            self.refuse("a designated initializer", item.span);
                            continue;
                        }
                        match &item.node.initializer.node {
                            c::Initializer::Expression(e) => {
                                if let Some(v) = self.constant(e, &scope) {
                                    values.push(v);
                                }
                            }
                            c::Initializer::List(row) => {
                                let declarator = &d.node.declarator.node;
                                if !self.initializer_row(declarator, row, &mut values) {
                                    self.refuse("a nested initializer list", item.span)
                                }
                            }
                        }
                    }
                    if info.base.starts_with("struct ") && array_len.is_none() {
                        self.refuse("a struct initializer", init.span);
                        None
                    } else if array_len.is_none() && values.len() == 1 {
                        Some(ast::InitValue::Int(values[0]))
                    } else {
                        if let Some(len) = array_len {
                            values.resize(len as usize, 0);
                        }
                        Some(ast::InitValue::List(values))
                    }
                }
            },
        };
        let value = match value {
            Some(v) if booleans::is_bool(info) => Some(booleans::bool_init(v)),
            other => other,
        };
        let kind = if array_len.is_some() {
            Global::Array
        } else {
            self.note_global(&name.node.name, info, value.as_ref());
            Global::Object
        };
        self.globals
            .insert(name.node.name.clone(), (kind, info.clone()));
        self.record_dims(&name.node.name, &d.node.declarator.node, None);
        self.init.push(ast::InitItem {
            ty: Some(Self::litmus_type(info, span)),
            target: ast::StateVar::Location {
                name: self.ident(name),
                index: None,
                members: Vec::new(),
            },
            value,
            array_len,
            span,
        });
        self.init.extend(members);
    }

    fn init_value(&mut self, e: &Node<c::Expression>, scope: &Scope) -> Option<ast::InitValue> {
        if let Some(code) = self.function_value(e, scope) {
            return Some(ast::InitValue::Int(code));
        }
        if let c::Expression::UnaryOperator(u) = &e.node {
            if matches!(u.node.operator.node, c::UnaryOperator::Address) {
                // The place, not its value: an atomic global's name reads as a load.
                let (target, _) = self.place(&u.node.operand, scope)?;
                let span = self.span(e.span);
                return match target.kind {
                    ExprKind::Unary(UnaryOp::Deref, inner) => match inner.kind {
                        ExprKind::Name(name) => {
                            Some(ast::InitValue::Address(ast::AddressOf::of_name(name)))
                        }
                        _ => {
                            self.errors.push(Diagnostic::new(
                                "an initial address must be a global's",
                                span,
                            ));
                            None
                        }
                    },
                    _ => {
                        self.errors.push(Diagnostic::new(
                            "an initial address must be a global's",
                            span,
                        ));
                        None
                    }
                };
            }
        }
        self.constant(e, scope).map(ast::InitValue::Int)
    }

    /// The value of a constant expression (an initializer, an array length, a loop bound).
    fn constant(&mut self, e: &Node<c::Expression>, scope: &Scope) -> Option<i64> {
        match self.try_constant(e, scope) {
            Some(v) => Some(v),
            None => {
                let at = self.span(e.span);
                self.errors.push(Diagnostic::new(
                    "expected a constant integer expression",
                    at,
                ));
                None
            }
        }
    }

    fn try_constant(&self, e: &Node<c::Expression>, scope: &Scope) -> Option<i64> {
        match &e.node {
            c::Expression::Constant(k) => integer(&k.node),
            c::Expression::Identifier(id) => scope
                .constants
                .get(&id.node.name)
                .or_else(|| self.enum_constants.get(&id.node.name))
                .copied()
                .or_else(|| self.known_global(&id.node.name, scope))
                // A function's name (`ops[] = { inc, dec }`): its code (`fnptr.rs`).
                .or_else(|| self.function_value(e, scope)),
            c::Expression::Cast(cast) => self.try_constant(&cast.node.expression, scope),
            c::Expression::UnaryOperator(u)
                if matches!(u.node.operator.node, c::UnaryOperator::Address) =>
            {
                self.null_member_offset(&u.node.operand)
                    .or_else(|| self.function_value(e, scope))
            }
            c::Expression::UnaryOperator(u) => {
                let v = self.try_constant(&u.node.operand, scope)?;
                match u.node.operator.node {
                    c::UnaryOperator::Minus => v.checked_neg(),
                    c::UnaryOperator::Plus => Some(v),
                    c::UnaryOperator::Complement => Some(!v),
                    c::UnaryOperator::Negate => Some(i64::from(v == 0)),
                    _ => None,
                }
            }
            c::Expression::BinaryOperator(b) => {
                let l = self.try_constant(&b.node.lhs, scope)?;
                let r = self.try_constant(&b.node.rhs, scope)?;
                use c::BinaryOperator as B;
                match b.node.operator.node {
                    B::Plus => l.checked_add(r),
                    B::Minus => l.checked_sub(r),
                    B::Multiply => l.checked_mul(r),
                    B::Divide => l.checked_div(r),
                    B::Modulo => l.checked_rem(r),
                    B::ShiftLeft => u32::try_from(r).ok().and_then(|r| l.checked_shl(r)),
                    B::ShiftRight => u32::try_from(r).ok().and_then(|r| l.checked_shr(r)),
                    B::BitwiseAnd => Some(l & r),
                    B::BitwiseOr => Some(l | r),
                    B::BitwiseXor => Some(l ^ r),
                    B::Less => Some(i64::from(l < r)),
                    B::Greater => Some(i64::from(l > r)),
                    B::LessOrEqual => Some(i64::from(l <= r)),
                    B::GreaterOrEqual => Some(i64::from(l >= r)),
                    B::Equals => Some(i64::from(l == r)),
                    B::NotEquals => Some(i64::from(l != r)),
                    B::LogicalAnd => Some(i64::from(l != 0 && r != 0)),
                    B::LogicalOr => Some(i64::from(l != 0 || r != 0)),
                    _ => None,
                }
            }
            c::Expression::SizeOfTy(t) => self.sizeof_type(&t.node.0.node),
            c::Expression::OffsetOf(o) => self.offset_of(&o.node),
            c::Expression::Conditional(k) => {
                let condition = self.try_constant(&k.node.condition, scope)?;
                if condition != 0 {
                    self.try_constant(&k.node.then_expression, scope)
                } else {
                    self.try_constant(&k.node.else_expression, scope)
                }
            }
            _ => None,
        }
    }

    // ---- functions ----

    /// A function of the program; `scope` says which thread runs it when it is translated
    /// per thread, with `renamed` its name there.
    fn function(
        &mut self,
        f: &Node<c::FunctionDefinition>,
        mut scope: Scope,
        renamed: Option<ast::Ident>,
    ) {
        let declarator = &f.node.declarator;
        let Some(name) = declarator_name(&declarator.node) else {
            return;
        };
        let span = self.span(f.span);
        let return_base = self.specifiers_type(&f.node.specifiers);
        let mut return_type = return_base.clone();
        let mut params = Vec::new();
        let mut param_names = Vec::new();
        for part in derived(&declarator.node) {
            match part {
                c::DerivedDeclarator::Pointer(_) => return_type.pointer_depth += 1,
                c::DerivedDeclarator::Function(fd) => {
                    for p in &fd.node.parameters {
                        let base = self.specifiers_type(&p.node.specifiers);
                        let Some(d) = &p.node.declarator else {
                            continue;
                        };
                        let Some(param_name) = declarator_name(&d.node) else {
                            continue;
                        };
                        let (info, array_len) = self.declared(&base, &d.node, d.span);
                        let mut info = info;
                        if array_len.is_some() {
                            // An array parameter is a pointer.
                            info.pointer_depth += 1;
                        }
                        // A struct by value: its address is passed (`byval.rs`).
                        let by_value = array_len.is_none() && byval::is_struct_value(&info);
                        scope
                            .locals
                            .insert(param_name.node.name.clone(), info.clone());
                        param_names.push((param_name.node.name.clone(), self.span(d.span)));
                        self.record_dims(&param_name.node.name, &d.node, Some(&mut scope));
                        params.push(if by_value {
                            let mut address = info.clone();
                            address.pointer_depth += 1;
                            let at = self.span(param_name.span);
                            ast::Param {
                                ty: Self::litmus_type(&address, self.span(d.span)),
                                name: ident(&byval::address_parameter(&param_name.node.name), at),
                            }
                        } else {
                            ast::Param {
                                ty: Self::litmus_type(&info, self.span(d.span)),
                                name: self.ident(param_name),
                            }
                        });
                    }
                }
                c::DerivedDeclarator::KRFunction(ids) if !ids.is_empty() => {
                    self.refuse("a K&R-style parameter list", declarator.span);
                }
                _ => {}
            }
        }
        let enclosing = self.enter_frame(
            &f.node.statement,
            &param_names,
            Some(return_type.clone()),
            &mut scope,
        );
        let body = self.body(&f.node.statement, scope);
        let mut body = self.leave_frame(enclosing, body, span);
        body.splice(0..0, booleans::bool_parameters(&params));
        let name = renamed.unwrap_or_else(|| self.function_ident(name));
        self.litmus_functions.push(ast::Function {
            return_type: Self::litmus_type(&return_type, span),
            name,
            params,
            body,
            span,
        });
    }

    fn body(&mut self, statement: &Node<c::Statement>, mut scope: Scope) -> Vec<ast::Stmt> {
        let mut out = Vec::new();
        scope.followed = known::followed_locals(statement);
        self.statement(statement, &mut scope, &mut out);
        match out.pop() {
            Some(ast::Stmt {
                kind: StmtKind::Block(body),
                ..
            }) if out.is_empty() => body,
            Some(last) => {
                out.push(last);
                out
            }
            None => out,
        }
    }

    // ---- statements ----

    fn block(&mut self, items: &[Node<c::BlockItem>], scope: &Scope) -> Vec<ast::Stmt> {
        let mut inner = scope.clone();
        let mut out = Vec::new();
        let straight = known::straight_locals(items);
        inner.followed.extend(straight.iter().cloned());
        let plan = goto::forward_plan(items);
        let mut at = 0;
        while let Some(item) = items.get(at) {
            if let Some(next) = self.forward_goto(items, at, &plan, &mut inner, &mut out) {
                at = next;
                continue;
            }
            if let Some((label, end)) = self.retry_loop(items, at) {
                let span = self.span(item.span);
                let looped = self.retry_loop_body(&items[at..=end], label, &mut inner, span);
                out.push(looped);
                at = end + 1;
                continue;
            }
            at += 1;
            match &item.node {
                c::BlockItem::Declaration(d) => self.local_declaration(d, &mut inner, &mut out),
                c::BlockItem::StaticAssert(s) => self.refuse("`_Static_assert`", s.span),
                c::BlockItem::Statement(s) => {
                    let noted = self.straight_value(s, &straight, &inner);
                    if let Some((name, _)) = &noted {
                        // The write itself is to the register.
                        inner.constants.remove(name);
                    }
                    self.statement(s, &mut inner, &mut out);
                    self.note_straight(noted, &mut inner);
                }
            }
        }
        out
    }

    fn local_declaration(
        &mut self,
        d: &Node<c::Declaration>,
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
    ) {
        for s in &d.node.specifiers {
            if let c::DeclarationSpecifier::StorageClass(class) = &s.node {
                match class.node {
                    c::StorageClassSpecifier::Static => {
                        self.static_local(d, scope);
                        return;
                    }
                    c::StorageClassSpecifier::Typedef => {
                        self.refuse("a local `typedef`", s.span);
                        return;
                    }
                    c::StorageClassSpecifier::ThreadLocal => {
                        self.refuse(
                            "a thread-local variable (`__thread`, `_Thread_local`)",
                            s.span,
                        );
                        return;
                    }
                    _ => {}
                }
            }
        }
        let base = self.specifiers_type(&d.node.specifiers);
        for init_declarator in &d.node.declarators {
            let declarator = &init_declarator.node.declarator;
            let Some(name) = declarator_name(&declarator.node) else {
                continue;
            };
            let (info, array_len) = self.declared(&base, &declarator.node, declarator.span);
            if info.handle && info.pointer_depth == 0 {
                // `pthread_t t[N];`: handles are followed while translating.
                scope.local_handles.insert(name.node.name.clone());
                continue;
            }
            let typedef_pointer = info.function_pointer && array_len.is_none();
            if self.function_pointer(name, init_declarator, typedef_pointer, scope) {
                continue;
            }
            if array_len.is_none()
                && self.stack_declaration(name, &info, init_declarator, scope, out)
            {
                continue;
            }
            if let Some(len) = array_len {
                self.local_array(name, &info, len, init_declarator, scope, out);
                continue;
            }
            if info.base.starts_with("struct ") && info.pointer_depth == 0 {
                self.refuse("a local struct variable", declarator.span);
                continue;
            }
            let span = self.span(init_declarator.span);
            let init = match &init_declarator.node.initializer {
                None => None,
                Some(init) => match &init.node {
                    c::Initializer::Expression(e) => self.value(e, scope, out),
                    c::Initializer::List(_) => {
                        self.refuse("an initializer list for a local variable", init.span);
                        None
                    }
                },
            };
            let init = init.map(|v| booleans::stored_as(&info, v));
            let register = self.scoped_local(name, scope);
            scope.locals.insert(name.node.name.clone(), info.clone());
            scope.constants.remove(&name.node.name);
            self.note_local(
                &name.node.name,
                init_declarator.node.initializer.as_ref(),
                scope,
            );
            out.push(stmt(
                StmtKind::Decl {
                    ty: Self::litmus_type(&info, self.span(declarator.span)),
                    name: ident(&register, self.span(name.span)),
                    init,
                },
                span,
            ));
        }
    }

    fn nested(&mut self, s: &Node<c::Statement>, scope: &Scope) -> Vec<ast::Stmt> {
        let mut inner = scope.clone();
        let mut out = Vec::new();
        self.statement(s, &mut inner, &mut out);
        out
    }

    fn statement(&mut self, s: &Node<c::Statement>, scope: &mut Scope, out: &mut Vec<ast::Stmt>) {
        let span = self.span(s.span);
        self.typeof_scope.clone_from(scope);
        match &s.node {
            c::Statement::Compound(items) => {
                let body = self.block(items, scope);
                out.push(stmt(StmtKind::Block(body), span));
            }
            c::Statement::Expression(None) => {}
            c::Statement::Expression(Some(e)) => {
                self.expression_statement(e, scope, out);
                self.note_main_write(e, scope);
            }
            c::Statement::If(i) => self.if_statement(i, span, scope, out),
            c::Statement::While(w) => {
                let mut inner = scope.clone();
                inner.conditional += 1;
                inner.looping += 1;
                let mut prelude = Vec::new();
                let cond = self.value(&w.node.expression, &inner, &mut prelude);
                let body = self.nested(&w.node.statement, &inner);
                if let Some(cond) = cond {
                    self.push_while(prelude, cond, body, span, out);
                }
            }
            c::Statement::DoWhile(w) => {
                let mut inner = scope.clone();
                inner.conditional += 1;
                inner.looping += 1;
                let body = self.nested(&w.node.statement, &inner);
                let mut prelude = Vec::new();
                let cond = self.value(&w.node.expression, &inner, &mut prelude);
                if let Some(cond) = cond {
                    let at = w.node.expression.span;
                    self.push_do_while(prelude, cond, body, span, at, out);
                }
            }
            c::Statement::For(f) => self.for_statement(f, span, scope, out),
            c::Statement::Continue => out.push(stmt(StmtKind::Continue, span)),
            c::Statement::Break => out.push(stmt(StmtKind::Break, span)),
            c::Statement::Return(value) => {
                if scope.main {
                    // `main`'s value is not observed: its end is the thread's end.
                    self.free_frame(None, span, out);
                    out.push(stmt(StmtKind::Return(None), span));
                } else {
                    let value = value.as_ref().and_then(|v| self.value(v, scope, out));
                    let value = value.map(|v| self.returned_value(v));
                    let value = self.free_frame(value, span, out);
                    out.push(stmt(StmtKind::Return(value), span));
                }
            }
            c::Statement::Labeled(l) => match &l.node.label.node {
                // A label is the statement it labels: each `goto` to it is translated
                // (or refused) where it is (`control.rs`, `goto.rs`).
                c::Label::Identifier(_) => self.statement(&l.node.statement, scope, out),
                _ => self.refuse("`switch`", s.span),
            },
            c::Statement::Switch(sw) => self.switch_statement(sw, span, scope, out),
            c::Statement::Goto(l) if scope.retry_label.as_ref() == Some(&l.node.name) => {
                out.push(stmt(StmtKind::Continue, span))
            }
            c::Statement::Goto(l) if scope.forward_labels.contains_key(&l.node.name) => {
                let register = &scope.forward_labels[&l.node.name];
                self.forward_jump(register, span, out)
            }
            c::Statement::Goto(_) => self.refuse("`goto`", s.span),
            c::Statement::Asm(a) if asm::is_compiler_fence(&a.node) => {}
            c::Statement::Asm(_) => self.refuse("inline assembly", s.span),
        }
    }

    fn if_statement(
        &mut self,
        i: &Node<c::IfStatement>,
        span: Span,
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
    ) {
        // `if (pthread_create(...)) abort();`: the call succeeds in nemos, so only the
        // else branch can run.
        let succeeds = self.succeeding_call(&i.node.condition);
        if let Some(call) = succeeds {
            // `if (pthread_mutex_lock(&m)) exit(-1);` (`control.rs`).
            self.expression_statement(call, scope, out);
            if let Some(otherwise) = &i.node.else_statement {
                let body = self.nested(otherwise, scope);
                out.push(stmt(StmtKind::Block(body), span));
            }
            return;
        }
        if let Some(holds) = succeed::thread_condition(&i.node.condition) {
            self.thread_operation(&i.node.condition, scope, out);
            let taken = if holds {
                Some(&i.node.then_statement)
            } else {
                i.node.else_statement.as_ref()
            };
            if let Some(taken) = taken {
                let body = self.nested(taken, scope);
                out.push(stmt(StmtKind::Block(body), span));
            }
            return;
        }
        if thread_call(&i.node.condition).is_some() {
            self.thread_operation(&i.node.condition, scope, out);
            if let Some(otherwise) = &i.node.else_statement {
                let body = self.nested(otherwise, scope);
                out.push(stmt(StmtKind::Block(body), span));
            }
            return;
        }
        // A condition that is a constant here (`if (i == 0)` in a loop unrolled here):
        // only its branch is read, so that it may start threads.
        if let Some(value) = self.try_constant(&i.node.condition, scope) {
            let taken = if value != 0 {
                Some(&i.node.then_statement)
            } else {
                i.node.else_statement.as_ref()
            };
            if let Some(taken) = taken {
                let body = self.nested(taken, scope);
                out.push(stmt(StmtKind::Block(body), span));
            }
            return;
        }
        let mut inner = scope.clone();
        inner.conditional += 1;
        let cond = self.value(&i.node.condition, scope, out);
        let then_branch = self.nested(&i.node.then_statement, &inner);
        let else_branch = i
            .node
            .else_statement
            .as_ref()
            .map(|e| self.nested(e, &inner));
        if let Some(cond) = cond {
            out.push(if_stmt(cond, then_branch, else_branch, span));
        }
    }

    fn for_statement(
        &mut self,
        f: &Node<c::ForStatement>,
        span: Span,
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
    ) {
        let trip = self
            .constant_trip(f, scope)
            .filter(|(_, values, _)| self.unrolled_copies + values.len() <= MAX_UNROLLED_COPIES)
            .filter(|(_, values, _)| !self.left_to_bound(f, values.len()))
            .and_then(|(variable, values, after)| {
                let companions = self.companion_steps(f, &variable, scope)?;
                Some((variable, values, after, companions))
            });
        if let Some((variable, values, after, companions)) = trip {
            self.unrolled_copies += values.len();
            // Unrolled here: each copy of the body has the variable as a constant, so that
            // `pthread_create(&t[i], ..., (void *)(long)i)` starts a thread per iteration.
            let declared_outside =
                matches!(f.node.initializer.node, c::ForInitializer::Expression(_));
            let mut copies = Vec::new();
            for (k, value) in values.iter().enumerate() {
                let mut inner = scope.clone();
                inner.constants.insert(variable.clone(), *value);
                inner.locals.remove(&variable);
                for (name, start, by) in &companions {
                    inner.constants.insert(name.clone(), start + k as i64 * by);
                }
                let body = self.nested(&f.node.statement, &inner);
                copies.push(stmt(StmtKind::Block(body), span));
            }
            if declared_outside {
                // The variable keeps the value the loop leaves in it.
                copies.push(stmt(
                    StmtKind::Assign {
                        lhs: name_expr(scoping::local_register(scope, &variable), span),
                        rhs: expr(ExprKind::Int(after), span),
                    },
                    span,
                ));
                if scope.followed.contains(&variable) {
                    scope.constants.insert(variable.clone(), after);
                }
            }
            for (name, start, by) in &companions {
                let end = start + values.len() as i64 * by;
                copies.push(stmt(
                    StmtKind::Assign {
                        lhs: name_expr(scoping::local_register(scope, name), span),
                        rhs: expr(ExprKind::Int(end), span),
                    },
                    span,
                ));
                scope.constants.insert(name.clone(), end);
            }
            out.push(stmt(StmtKind::Block(copies), span));
            return;
        }
        self.forget_loop_writes(f, scope);
        let mut inner = scope.clone();
        let mut init_out = Vec::new();
        match &f.node.initializer.node {
            c::ForInitializer::Empty => {}
            c::ForInitializer::Expression(e) => {
                self.expression_statement(e, &mut inner, &mut init_out)
            }
            c::ForInitializer::Declaration(d) => {
                self.local_declaration(d, &mut inner, &mut init_out)
            }
            c::ForInitializer::StaticAssert(s) => self.refuse("`_Static_assert`", s.span),
        }
        inner.conditional += 1;
        inner.looping += 1;
        let mut prelude = Vec::new();
        let cond = f
            .node
            .condition
            .as_ref()
            .and_then(|c| self.value(c, &inner, &mut prelude));
        let step = f.node.step.as_ref().and_then(|e| {
            let mut step_out = Vec::new();
            self.expression_statement(e, &mut inner.clone(), &mut step_out);
            match step_out.len() {
                0 => None,
                1 => step_out.pop().map(Box::new),
                _ => Some(Box::new(stmt(StmtKind::Block(step_out), self.span(e.span)))),
            }
        });
        let body = self.nested(&f.node.statement, &inner);
        let step = Self::for_prelude(prelude, &mut init_out, step, span);
        let init = match init_out.len() {
            0 => None,
            1 => init_out.pop().map(Box::new),
            _ => {
                // Several declarations: they go before the loop, in a block of their own.
                let loop_stmt = stmt(
                    StmtKind::For {
                        init: None,
                        cond,
                        step,
                        body,
                    },
                    span,
                );
                init_out.push(loop_stmt);
                out.push(stmt(StmtKind::Block(init_out), span));
                return;
            }
        };
        out.push(stmt(
            StmtKind::For {
                init,
                cond,
                step,
                body,
            },
            span,
        ));
    }

    /// `for (i = a; i < b; i++)` (or `<=`, `!=`, `>`, `>=`, `--`, `+= k`, `-= k`) with `a`
    /// and `b` constants and a body that neither assigns `i` nor leaves the loop early by
    /// `break`, `continue` or `goto` (a `return` may: it leaves the function): the
    /// variable, its values (at most 64 of them) and the value that ends the loop.
    fn constant_trip(
        &self,
        f: &Node<c::ForStatement>,
        scope: &Scope,
    ) -> Option<(String, Vec<i64>, i64)> {
        let (variable, start) = match &f.node.initializer.node {
            c::ForInitializer::Declaration(d) => {
                let [declarator] = d.node.declarators.as_slice() else {
                    return None;
                };
                let name = declarator_name(&declarator.node.declarator.node)?;
                let c::Initializer::Expression(e) = &declarator.node.initializer.as_ref()?.node
                else {
                    return None;
                };
                (name.node.name.clone(), self.try_constant(e, scope)?)
            }
            c::ForInitializer::Expression(e) => {
                let c::Expression::BinaryOperator(b) = &e.node else {
                    return None;
                };
                if !matches!(b.node.operator.node, c::BinaryOperator::Assign) {
                    return None;
                }
                let c::Expression::Identifier(id) = &b.node.lhs.node else {
                    return None;
                };
                if !scope.locals.contains_key(&id.node.name) {
                    return None;
                }
                (id.node.name.clone(), self.try_constant(&b.node.rhs, scope)?)
            }
            _ => return None,
        };
        if statement_mentions(&f.node.statement.node, &variable, true) {
            return None;
        }
        let condition = f.node.condition.as_ref()?;
        let mut values = Vec::new();
        let mut value = start;
        let mut inner = scope.clone();
        loop {
            inner.constants.insert(variable.clone(), value);
            if self.try_constant(condition, &inner)? == 0 {
                break;
            }
            values.push(value);
            if values.len() > 64 {
                return None;
            }
            value = match f.node.step.as_ref().map(|s| &s.node) {
                Some(c::Expression::Comma(_)) => {
                    value.checked_add(Self::own_step(f, &variable)?)?
                }
                _ => self.try_step(f, value)?,
            };
        }
        Some((variable, values, value))
    }

    /// The loop variable's next value after `value`, when the step is a constant one.
    fn try_step(&self, f: &Node<c::ForStatement>, value: i64) -> Option<i64> {
        let step = f.node.step.as_ref()?;
        match &step.node {
            c::Expression::UnaryOperator(u) => match u.node.operator.node {
                c::UnaryOperator::PostIncrement | c::UnaryOperator::PreIncrement => {
                    value.checked_add(1)
                }
                c::UnaryOperator::PostDecrement | c::UnaryOperator::PreDecrement => {
                    value.checked_sub(1)
                }
                _ => None,
            },
            c::Expression::BinaryOperator(b) => {
                let by = self.try_constant(&b.node.rhs, &Scope::default())?;
                match b.node.operator.node {
                    c::BinaryOperator::AssignPlus => value.checked_add(by),
                    c::BinaryOperator::AssignMinus => value.checked_sub(by),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn expression_statement(
        &mut self,
        e: &Node<c::Expression>,
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
    ) {
        let span = self.span(e.span);
        if self.struct_assignment(e, scope, out) {
            return;
        }
        match &e.node {
            c::Expression::Call(call_node) => {
                let callee = callee_name(call_node);
                if self.exit_statement(e, scope, out)
                    || self.exit_call(e, scope, out)
                    || self.asm_call(e)
                {
                    return;
                }
                if self.barrier_statement(e, scope, out) {
                    return;
                }
                if self.memset_statement(e, scope, out) {
                    return;
                }
                if thread_call(e).is_some() {
                    self.thread_operation(e, scope, out);
                    return;
                }
                if let Some(name) = callee {
                    if IGNORED_CALLS.contains(&name) {
                        return;
                    }
                }
                if let Some(value) = self.value(e, scope, out) {
                    out.push(stmt(StmtKind::Expr(value), span));
                    self.end_after_helper_exit(call_node, scope, out);
                }
            }
            c::Expression::BinaryOperator(b) => {
                let op = match b.node.operator.node {
                    c::BinaryOperator::Assign => None,
                    c::BinaryOperator::AssignPlus => Some(BinaryOp::Add),
                    c::BinaryOperator::AssignMinus => Some(BinaryOp::Sub),
                    c::BinaryOperator::AssignMultiply => Some(BinaryOp::Mul),
                    c::BinaryOperator::AssignDivide => Some(BinaryOp::Div),
                    c::BinaryOperator::AssignModulo => Some(BinaryOp::Rem),
                    c::BinaryOperator::AssignShiftLeft => Some(BinaryOp::Shl),
                    c::BinaryOperator::AssignShiftRight => Some(BinaryOp::Shr),
                    c::BinaryOperator::AssignBitwiseAnd => Some(BinaryOp::BitAnd),
                    c::BinaryOperator::AssignBitwiseOr => Some(BinaryOp::BitOr),
                    c::BinaryOperator::AssignBitwiseXor => Some(BinaryOp::BitXor),
                    _ => {
                        if let Some(value) = self.value(e, scope, out) {
                            out.push(stmt(StmtKind::Expr(value), span));
                        }
                        return;
                    }
                };
                if effects::has_effects(&b.node.lhs.node) {
                    // `a[i++] = v;`: the target's own effects, in C's order (`effects.rs`).
                    let _ = self.value(e, scope, out);
                    return;
                }
                if let c::Expression::Identifier(id) = &b.node.lhs.node {
                    if scope.constants.contains_key(&id.node.name) {
                        self.refuse(
                            "assigning the variable of a loop nemos unrolls",
                            b.node.lhs.span,
                        );
                        return;
                    }
                }
                let Some((lhs, atomic)) = self.place(&b.node.lhs, scope) else {
                    return;
                };
                let Some(rhs) = self.value(&b.node.rhs, scope, out) else {
                    return;
                };
                let rhs = match op {
                    None => self.stored_value(&b.node.lhs, scope, rhs),
                    Some(_) => rhs,
                };
                if atomic {
                    // C's plain assignment to an atomic object: a seq_cst store, or a
                    // read-modify-write for the compound forms.
                    let function = match op {
                        None => "atomic_store",
                        Some(BinaryOp::Add) => "atomic_fetch_add",
                        Some(BinaryOp::Sub) => "atomic_fetch_sub",
                        Some(BinaryOp::BitAnd) => "atomic_fetch_and",
                        Some(BinaryOp::BitOr) => "atomic_fetch_or",
                        Some(BinaryOp::BitXor) => "atomic_fetch_xor",
                        Some(_) => {
                            self.refuse("this compound assignment to an atomic object", e.span);
                            return;
                        }
                    };
                    let address = address_of(lhs, span);
                    out.push(stmt(
                        StmtKind::Expr(call(function, vec![address, rhs], span)),
                        span,
                    ));
                    return;
                }
                let rhs = match op {
                    None => rhs,
                    Some(op) => self.stored_value(
                        &b.node.lhs,
                        scope,
                        expr(
                            ExprKind::Binary(op, Box::new(lhs.clone()), Box::new(rhs)),
                            span,
                        ),
                    ),
                };
                out.push(stmt(StmtKind::Assign { lhs, rhs }, span));
            }
            c::Expression::UnaryOperator(u) => {
                let op = match u.node.operator.node {
                    c::UnaryOperator::PostIncrement | c::UnaryOperator::PreIncrement => {
                        BinaryOp::Add
                    }
                    c::UnaryOperator::PostDecrement | c::UnaryOperator::PreDecrement => {
                        BinaryOp::Sub
                    }
                    _ => {
                        if let Some(value) = self.value(e, scope, out) {
                            out.push(stmt(StmtKind::Expr(value), span));
                        }
                        return;
                    }
                };
                let Some((lhs, atomic)) = self.place(&u.node.operand, scope) else {
                    return;
                };
                if atomic {
                    let function = if op == BinaryOp::Add {
                        "atomic_fetch_add"
                    } else {
                        "atomic_fetch_sub"
                    };
                    let args = vec![address_of(lhs, span), expr(ExprKind::Int(1), span)];
                    out.push(stmt(StmtKind::Expr(call(function, args, span)), span));
                    return;
                }
                let rhs = expr(
                    ExprKind::Binary(
                        op,
                        Box::new(lhs.clone()),
                        Box::new(expr(ExprKind::Int(1), span)),
                    ),
                    span,
                );
                let rhs = self.stored_value(&u.node.operand, scope, rhs);
                out.push(stmt(StmtKind::Assign { lhs, rhs }, span));
            }
            c::Expression::Comma(parts) => {
                for part in parts.iter() {
                    self.expression_statement(part, scope, out);
                }
            }
            c::Expression::Cast(cast) => {
                self.expression_statement(&cast.node.expression, scope, out)
            }
            _ => {
                if let Some(value) = self.value(e, scope, out) {
                    out.push(stmt(StmtKind::Expr(value), span));
                }
            }
        }
    }

    // ---- threads ----

    /// `pthread_create`/`thrd_create` or `pthread_join`/`thrd_join`, possibly compared
    /// with 0 (`if (pthread_create(...) != 0)`), as `main` runs it.
    fn thread_operation(
        &mut self,
        e: &Node<c::Expression>,
        scope: &Scope,
        out: &mut Vec<ast::Stmt>,
    ) {
        let Some(call_node) = thread_call(e) else {
            return;
        };
        let name = callee_name(call_node).unwrap_or_default();
        let span = self.span(call_node.span);
        let Some(thread) = scope.thread else {
            self.refuse(&format!("`{name}` outside a thread"), call_node.span);
            return;
        };
        let creates = name.ends_with("_create");
        if scope.looping > 0 || (scope.conditional > 0 && !creates) {
            self.errors.push(
                Diagnostic::new(
                    format!("`{name}` in a loop or branch nemos cannot unroll here"),
                    span,
                )
                .with_help("threads are static in nemos: a thread is started outside loops (in a branch, it starts when the branch runs) and joined outside loops and branches, or inside `for` loops with constant bounds"),
            );
            return;
        }
        let args = &call_node.node.arguments;
        if creates {
            let (handle, function, argument) = match (name, args.as_slice()) {
                ("pthread_create", [handle, _, function, argument])
                | ("thrd_create", [handle, function, argument]) => (handle, function, argument),
                _ => {
                    self.errors.push(Diagnostic::new(
                        format!("`{name}` with the wrong number of arguments"),
                        span,
                    ));
                    return;
                }
            };
            let Some(key) = self.handle_key(handle, scope) else {
                return;
            };
            let c_argument = argument;
            let Some(argument) = self.value(argument, scope, out) else {
                return;
            };
            let k = self.spawns.len() + 1;
            let argument = self.pass_argument(argument, c_argument, scope, k, span, out);
            out.push(release_flag(&spawn_flag(k), span));
            self.handles.insert(key, k);
            if scope.conditional > 0 {
                self.started_in_branch.insert(k);
            }
            self.spawns.push(Spawn {
                function: ident("", span),
                argument,
                joined: false,
                result: false,
                span,
            });
            // After the thread is numbered: its start routine may start others.
            let Some(function) = self.start_routine(function, k) else {
                return;
            };
            self.spawns[k - 1].function = function;
        } else {
            let (handle, result) = match (name, args.as_slice()) {
                ("pthread_join" | "thrd_join", [handle, result]) => (handle, result),
                _ => {
                    self.errors.push(Diagnostic::new(
                        format!("`{name}` with the wrong number of arguments"),
                        span,
                    ));
                    return;
                }
            };
            let result = if self.try_constant(result, scope) == Some(0) {
                None
            } else {
                match self.join_result(result, scope) {
                    Some(place) => Some(place),
                    None => return,
                }
            };
            if !self.static_handle(handle, scope) {
                if result.is_some() {
                    self.refuse(
                        &format!(
                            "the value a thread returns to `{name}` on a handle read from memory"
                        ),
                        call_node.span,
                    );
                    return;
                }
                self.dynamic_join(handle, scope, span, out);
                return;
            }
            let Some(key) = self.handle_key(handle, scope) else {
                return;
            };
            let Some(&k) = self.handles.get(&key) else {
                self.errors.push(Diagnostic::new(
                    format!("`{key}` holds no thread started before this join"),
                    self.span(handle.span),
                ));
                return;
            };
            if self.started_in_branch.contains(&k) {
                self.refuse(
                    &format!("a join of `{key}`, whose thread is started in a branch"),
                    handle.span,
                );
                return;
            }
            if k == thread {
                self.errors.push(Diagnostic::new(
                    format!("thread P{k} joins itself"),
                    self.span(handle.span),
                ));
                return;
            }
            self.spawns[k - 1].joined = true;
            self.joins += 1;
            let register = format!("join#{}.seen", self.joins);
            out.extend(acquire_flag(&exit_flag(k), &register, span));
            if let Some(place) = result {
                self.spawns[k - 1].result = true;
                let location = name_expr(&threads::result_location(k), span);
                out.push(stmt(
                    StmtKind::Assign {
                        lhs: place,
                        rhs: expr(ExprKind::Unary(UnaryOp::Deref, Box::new(location)), span),
                    },
                    span,
                ));
            }
        }
    }

    /// `t1`, `&t1`, `t[i]`, `&t[i]` or `t + i` with `i` a constant: the handle's name.
    fn handle_key(&mut self, e: &Node<c::Expression>, scope: &Scope) -> Option<String> {
        match &e.node {
            c::Expression::Identifier(id) => Some(self.handle_name(&id.node.name, scope)),
            c::Expression::UnaryOperator(u)
                if matches!(u.node.operator.node, c::UnaryOperator::Address) =>
            {
                self.handle_key(&u.node.operand, scope)
            }
            c::Expression::Cast(cast) => self.handle_key(&cast.node.expression, scope),
            c::Expression::BinaryOperator(b)
                if matches!(
                    b.node.operator.node,
                    c::BinaryOperator::Index | c::BinaryOperator::Plus
                ) =>
            {
                let base = self.handle_key(&b.node.lhs, scope)?;
                match self.try_constant(&b.node.rhs, scope) {
                    Some(i) => Some(format!("{base}[{i}]")),
                    None => {
                        self.refuse(
                            "a thread handle indexed by a variable outside a constant loop",
                            b.node.rhs.span,
                        );
                        None
                    }
                }
            }
            _ => {
                self.refuse("this form of thread handle", e.span);
                None
            }
        }
    }

    /// The name a function of the program has in the litmus AST.
    fn function_ident(&self, id: &Node<c::Identifier>) -> ast::Ident {
        let mut ident = self.ident(id);
        if (self.reserved)(&ident.name) {
            ident.name.push_str("#c");
        }
        ident
    }

    /// The function thread `k` starts with.
    fn start_routine(&mut self, e: &Node<c::Expression>, k: usize) -> Option<ast::Ident> {
        match &e.node {
            c::Expression::Identifier(id) if self.is_per_thread(&id.node.name) => {
                self.per_thread_function(id, k, true, false)
            }
            c::Expression::Identifier(id) if self.functions.contains(&id.node.name) => {
                Some(self.function_ident(id))
            }
            c::Expression::Cast(cast) => self.start_routine(&cast.node.expression, k),
            c::Expression::UnaryOperator(u)
                if matches!(u.node.operator.node, c::UnaryOperator::Address) =>
            {
                self.start_routine(&u.node.operand, k)
            }
            _ => {
                self.errors.push(
                    Diagnostic::new(
                        "a thread must start a function defined in the program",
                        self.span(e.span),
                    )
                    .with_help("name the function: `pthread_create(&t, NULL, worker, arg)`"),
                );
                None
            }
        }
    }

    // ---- expressions ----

    /// An expression whose value is used; its side effects (assignments, `++`) are hoisted
    /// into statements in `out` (`effects.rs`).
    fn value(
        &mut self,
        e: &Node<c::Expression>,
        scope: &Scope,
        out: &mut Vec<ast::Stmt>,
    ) -> Option<ast::Expr> {
        self.hoist_barrier_calls(e, scope, out);
        self.value_with_effects(e, scope, out)
    }

    fn expression(&mut self, e: &Node<c::Expression>, scope: &Scope) -> Option<ast::Expr> {
        let span = self.span(e.span);
        if let Some(code) = self.function_value(e, scope) {
            // A function as a value (`fnptr.rs`).
            return Some(expr(ExprKind::Int(code), span));
        }
        match &e.node {
            c::Expression::Identifier(_) => {
                let (place, atomic) = self.place(e, scope)?;
                Some(self.read(place, atomic, span))
            }
            c::Expression::Constant(k) => match integer(&k.node) {
                Some(v) => Some(expr(ExprKind::Int(v), span)),
                None => {
                    self.refuse("this constant (floating-point or out of range)", e.span);
                    None
                }
            },
            c::Expression::StringLiteral(_) => {
                self.refuse("a string literal", e.span);
                None
            }
            c::Expression::Member(_) => {
                let (place, atomic) = self.place(e, scope)?;
                Some(self.read(place, atomic, span))
            }
            c::Expression::Call(call_node) => self.call(call_node, scope, span),
            c::Expression::UnaryOperator(u) => {
                let operand = &u.node.operand;
                match u.node.operator.node {
                    c::UnaryOperator::Address => {
                        if let Some(offset) = self.null_member_offset(operand) {
                            // `&((T *)0)->f`: `offsetof` as C libraries spell it.
                            return Some(expr(ExprKind::Int(offset), span));
                        }
                        let (place, _) = self.place(operand, scope)?;
                        Some(address_of(place, span))
                    }
                    c::UnaryOperator::Indirection => {
                        let (place, atomic) = self.place(e, scope)?;
                        Some(self.read(place, atomic, span))
                    }
                    c::UnaryOperator::Plus => self.expression(operand, scope),
                    c::UnaryOperator::Minus => self.unary(UnaryOp::Neg, operand, scope, span),
                    c::UnaryOperator::Complement => {
                        self.unary(UnaryOp::BitNot, operand, scope, span)
                    }
                    c::UnaryOperator::Negate => self.unary(UnaryOp::Not, operand, scope, span),
                    _ => {
                        self.refuse("`++` or `--` inside an expression", e.span);
                        None
                    }
                }
            }
            c::Expression::Cast(cast) => {
                let target = self.type_name(&cast.node.type_name.node);
                let inner = self.expression(&cast.node.expression, scope)?;
                if let Some(ty) = self.kept_cast(&cast.node, span) {
                    // `container_of`'s casts (`offsetof.rs`).
                    return Some(expr(ExprKind::Cast(ty, Box::new(inner)), span));
                }
                if target.base == "_Bool" && target.pointer_depth == 0 {
                    return Some(expr(
                        ExprKind::Binary(
                            BinaryOp::Ne,
                            Box::new(inner),
                            Box::new(expr(ExprKind::Int(0), span)),
                        ),
                        span,
                    ));
                }
                Some(inner)
            }
            c::Expression::BinaryOperator(b) => {
                use c::BinaryOperator as B;
                let op = match b.node.operator.node {
                    B::Index => {
                        if let Some(element) = self.multi_index(e, scope) {
                            // A row of an array of arrays is its address.
                            let (place, atomic, row) = element?;
                            if row {
                                return Some(address_of(place, span));
                            }
                            return Some(self.read(place, atomic, span));
                        }
                        let (place, atomic) = self.place(e, scope)?;
                        return Some(self.read(place, atomic, span));
                    }
                    B::Multiply => BinaryOp::Mul,
                    B::Divide => BinaryOp::Div,
                    B::Modulo => BinaryOp::Rem,
                    B::Plus => BinaryOp::Add,
                    B::Minus => BinaryOp::Sub,
                    B::ShiftLeft => BinaryOp::Shl,
                    B::ShiftRight => BinaryOp::Shr,
                    B::Less => BinaryOp::Lt,
                    B::Greater => BinaryOp::Gt,
                    B::LessOrEqual => BinaryOp::Le,
                    B::GreaterOrEqual => BinaryOp::Ge,
                    B::Equals => BinaryOp::Eq,
                    B::NotEquals => BinaryOp::Ne,
                    B::BitwiseAnd => BinaryOp::BitAnd,
                    B::BitwiseXor => BinaryOp::BitXor,
                    B::BitwiseOr => BinaryOp::BitOr,
                    B::LogicalAnd => BinaryOp::And,
                    B::LogicalOr => BinaryOp::Or,
                    _ => {
                        self.refuse("an assignment inside an expression", e.span);
                        return None;
                    }
                };
                // A string literal is a pointer that is not null: an operand of `&&` or
                // `||` that is true (`assert(ok && "message")`).
                let operand = |t: &mut Self, side: &Node<c::Expression>| match &side.node {
                    c::Expression::StringLiteral(_)
                        if matches!(op, BinaryOp::And | BinaryOp::Or) =>
                    {
                        Some(expr(ExprKind::Int(1), t.span(side.span)))
                    }
                    _ => t.expression(side, scope),
                };
                let lhs = operand(self, &b.node.lhs);
                let rhs = operand(self, &b.node.rhs);
                Some(expr(
                    ExprKind::Binary(op, Box::new(lhs?), Box::new(rhs?)),
                    span,
                ))
            }
            c::Expression::Conditional(k) => {
                let condition = self.expression(&k.node.condition, scope);
                let then = self.expression(&k.node.then_expression, scope);
                let otherwise = self.expression(&k.node.else_expression, scope);
                Some(expr(
                    ExprKind::Conditional(
                        Box::new(condition?),
                        Box::new(then?),
                        Box::new(otherwise?),
                    ),
                    span,
                ))
            }
            c::Expression::SizeOfTy(t) => match self.sizeof_type(&t.node.0.node) {
                Some(cells) => Some(expr(ExprKind::Int(cells), span)),
                None => {
                    self.refuse("`sizeof` of an array type", e.span);
                    None
                }
            },
            c::Expression::SizeOfVal(_)
            | c::Expression::Comma(_)
            | c::Expression::Statement(_)
            | c::Expression::CompoundLiteral(_)
            | c::Expression::GenericSelection(_)
            | c::Expression::AlignOf(_)
            | c::Expression::VaArg(_) => {
                self.refuse(unsupported_expression(&e.node), e.span);
                None
            }
            c::Expression::OffsetOf(o) => match self.offset_of(&o.node) {
                Some(cells) => Some(expr(ExprKind::Int(cells), span)),
                None => {
                    self.refuse(
                        "`offsetof` of a member that is not a field of a struct",
                        e.span,
                    );
                    None
                }
            },
        }
    }

    /// What an lvalue denotes in the litmus AST (`*x` for a global `x`, `r` for a local,
    /// `*p`, `a[i]`, `p->f`), and whether it is an atomic object, which C reads and writes
    /// with seq_cst atomics when the program names it plainly (`x = 1` on an `atomic_int`).
    fn place(&mut self, e: &Node<c::Expression>, scope: &Scope) -> Option<(ast::Expr, bool)> {
        let span = self.span(e.span);
        match &e.node {
            c::Expression::Identifier(id) => {
                let name = &id.node.name;
                if let Some(v) = scope.constants.get(name) {
                    return Some((expr(ExprKind::Int(*v), span), false));
                }
                if let Some(info) = scope
                    .locals
                    .get(name)
                    .filter(|_| scope.stack.contains(name))
                {
                    if self.stack_frame.is_array(name) {
                        // A local array: `a` is its address (`initlist.rs`).
                        let address = name_expr(&stack::stack_register(name), span);
                        return Some((address, false));
                    }
                    let atomic = (info.atomic && info.pointer_depth == 0) || info.pointer_atomic;
                    return Some((stack::stack_place(name, span), atomic));
                }
                if scope.locals.contains_key(name) {
                    let register = scoping::local_register(scope, name);
                    return Some((name_expr(register, span), false));
                }
                if let Some(v) = self.enum_constants.get(name) {
                    return Some((expr(ExprKind::Int(*v), span), false));
                }
                if scope.local_handles.contains(name) {
                    return Some((self.handle_value(e, scope)?, false));
                }
                let name = &self
                    .global_name(name, scope)
                    .unwrap_or_else(|| name.clone());
                Some(match self.globals.get(name) {
                    Some((Global::Object, info)) => (
                        expr(
                            ExprKind::Unary(UnaryOp::Deref, Box::new(name_expr(name, span))),
                            span,
                        ),
                        (info.atomic && info.pointer_depth == 0) || info.pointer_atomic,
                    ),
                    Some((Global::Array, _)) => (name_expr(name, span), false),
                    // Memory orders, and what lowering reports as unknown.
                    None => (name_expr(name, span), false),
                })
            }
            c::Expression::UnaryOperator(u)
                if matches!(u.node.operator.node, c::UnaryOperator::Indirection) =>
            {
                let atomic = self.points_to_atomic(&u.node.operand, scope);
                let pointer = self.expression(&u.node.operand, scope)?;
                Some((
                    expr(ExprKind::Unary(UnaryOp::Deref, Box::new(pointer)), span),
                    atomic,
                ))
            }
            c::Expression::BinaryOperator(b)
                if matches!(b.node.operator.node, c::BinaryOperator::Index) =>
            {
                if let Some(element) = self.multi_index(e, scope) {
                    return element.map(|(place, atomic, _)| (place, atomic));
                }
                let atomic = self.points_to_atomic(&b.node.lhs, scope);
                let base = self.expression(&b.node.lhs, scope)?;
                let index = self.expression(&b.node.rhs, scope)?;
                Some((
                    expr(ExprKind::Index(Box::new(base), Box::new(index)), span),
                    atomic,
                ))
            }
            c::Expression::Member(m) => self.member_place(m, scope, span),
            _ => Some((self.expression(e, scope)?, false)),
        }
    }

    /// Whether a pointer (or array) expression points to atomic objects, as far as the
    /// declared types say.
    fn points_to_atomic(&self, e: &Node<c::Expression>, scope: &Scope) -> bool {
        match &e.node {
            c::Expression::Identifier(id) => {
                let name = &id.node.name;
                let points_to_atomic = |info: &TypeInfo| {
                    (info.atomic && info.pointer_depth == 1)
                        || (info.inner_atomic && info.pointer_depth == 2)
                };
                if let Some(info) = scope.locals.get(name) {
                    return points_to_atomic(info);
                }
                match self.global_info(name) {
                    Some((Global::Array, info)) => info.atomic && info.pointer_depth == 0,
                    Some((Global::Object, info)) => points_to_atomic(info),
                    None => false,
                }
            }
            c::Expression::BinaryOperator(b)
                if matches!(
                    b.node.operator.node,
                    c::BinaryOperator::Plus | c::BinaryOperator::Minus
                ) =>
            {
                self.points_to_atomic(&b.node.lhs, scope)
            }
            c::Expression::Cast(cast) => self.points_to_atomic(&cast.node.expression, scope),
            c::Expression::Member(m) => self.member_points_to_atomic(m, scope),
            c::Expression::UnaryOperator(u)
                if matches!(u.node.operator.node, c::UnaryOperator::Address) =>
            {
                match &u.node.operand.node {
                    c::Expression::Identifier(id) => {
                        !scope.locals.contains_key(&id.node.name)
                            && self
                                .global_info(&id.node.name)
                                .is_some_and(|(_, info)| info.atomic && info.pointer_depth == 0)
                    }
                    c::Expression::BinaryOperator(b)
                        if matches!(b.node.operator.node, c::BinaryOperator::Index) =>
                    {
                        self.points_to_atomic(&b.node.lhs, scope)
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// The value of a place: an atomic object is read with `atomic_load` (seq_cst).
    fn read(&self, place: ast::Expr, atomic: bool, span: Span) -> ast::Expr {
        if atomic {
            call("atomic_load", vec![address_of(place, span)], span)
        } else {
            place
        }
    }

    fn unary(
        &mut self,
        op: UnaryOp,
        operand: &Node<c::Expression>,
        scope: &Scope,
        span: Span,
    ) -> Option<ast::Expr> {
        let inner = self.expression(operand, scope)?;
        Some(expr(ExprKind::Unary(op, Box::new(inner)), span))
    }

    fn call(
        &mut self,
        call_node: &Node<c::CallExpression>,
        scope: &Scope,
        span: Span,
    ) -> Option<ast::Expr> {
        if let Some(target) = self.alias_target(call_node, scope) {
            return self.alias_call(&target, call_node, scope, span);
        }
        let Some(name) = callee_name(call_node) else {
            self.refuse(
                "a call through a function pointer",
                call_node.node.callee.span,
            );
            return None;
        };
        if self.functions.contains(name) {
            // The program's own function, whatever library call has its name.
            let mut args = Vec::new();
            for a in &call_node.node.arguments {
                args.push(self.argument(a, scope));
            }
            let args: Option<Vec<ast::Expr>> = args.into_iter().collect();
            let callee = match &call_node.node.callee.node {
                c::Expression::Identifier(id) if self.is_per_thread(name) => {
                    let Some(k) = scope.thread else {
                        self.refuse(&format!("a call of `{name}` here"), call_node.span);
                        return None;
                    };
                    self.per_thread_function(id, k, false, scope.conditional > 0)?
                }
                c::Expression::Identifier(id) => self.function_ident(id),
                _ => ident(name, span),
            };
            return Some(expr(ExprKind::Call(callee, args?), span));
        }
        if matches!(name, "pthread_self" | "thrd_current") {
            return self.self_handle(name, scope, span);
        }
        if matches!(
            name,
            "pthread_create"
                | "pthread_join"
                | "thrd_create"
                | "thrd_join"
                | "pthread_exit"
                | "thrd_exit"
        ) {
            self.refuse(&format!("`{name}` inside an expression"), call_node.span);
            return None;
        }
        if let Some(value) = self.hoisted_value(call_node) {
            return Some(value);
        }
        if UNSUPPORTED_CALLS.contains(&name) {
            self.refuse(&format!("`{name}`"), call_node.node.callee.span);
            return None;
        }
        let callee = call_node.node.callee.span;
        if matches!(name, "malloc" | "calloc" | "aligned_alloc") {
            let mut args = Vec::new();
            for a in &call_node.node.arguments {
                let size = self.allocation_size(name, a, scope)?;
                args.push(expr(ExprKind::Int(size), self.span(a.span)));
            }
            return Some(expr(
                ExprKind::Call(ident(name, self.span(callee)), args),
                span,
            ));
        }
        let mut args = Vec::new();
        for a in &call_node.node.arguments {
            args.push(self.expression(a, scope));
        }
        let args: Option<Vec<ast::Expr>> = args.into_iter().collect();
        let mut args: Vec<ast::Expr> = args?.into_iter().map(heap::pointer_value).collect();
        if let Some(value) = self.gcc_builtin(name, &args, span, callee) {
            return value;
        }
        clang_failure_order(name, &mut args);
        self.bool_call_arguments(name, call_node, scope, &mut args);
        let (name, callee_span) = match name {
            "atomic_init" => {
                args.push(name_expr("memory_order_relaxed", span));
                ("atomic_store_explicit", callee)
            }
            other => (
                RENAMED_CALLS
                    .iter()
                    .find(|(c_name, _)| *c_name == other)
                    .map_or(other, |(_, litmus)| litmus),
                callee,
            ),
        };
        Some(expr(
            ExprKind::Call(ident(name, self.span(callee_span)), args),
            span,
        ))
    }
}

/// `&place`: the address of a global object is its name.
fn address_of(place: ast::Expr, span: Span) -> ast::Expr {
    match place.kind {
        ExprKind::Unary(UnaryOp::Deref, target) => *target,
        kind => expr(
            ExprKind::Unary(UnaryOp::AddrOf, Box::new(expr(kind, place.span))),
            span,
        ),
    }
}

/// The word a scalar type specifier adds to a type's name (`unsigned long`).
pub(super) fn scalar_word(specifier: &c::TypeSpecifier) -> Option<&'static str> {
    Some(match specifier {
        c::TypeSpecifier::Void => "void",
        c::TypeSpecifier::Char => "char",
        c::TypeSpecifier::Short => "short",
        c::TypeSpecifier::Int => "int",
        c::TypeSpecifier::Long => "long",
        c::TypeSpecifier::Signed => "signed",
        c::TypeSpecifier::Unsigned => "unsigned",
        c::TypeSpecifier::Bool => "_Bool",
        _ => return None,
    })
}

fn callee_name(call_node: &Node<c::CallExpression>) -> Option<&str> {
    match &call_node.node.callee.node {
        c::Expression::Identifier(id) => Some(id.node.name.as_str()),
        _ => None,
    }
}

/// The create or join call an expression is (possibly compared with 0, or negated).
fn thread_call(e: &Node<c::Expression>) -> Option<&Node<c::CallExpression>> {
    match &e.node {
        c::Expression::Call(call_node) => match callee_name(call_node) {
            Some("pthread_create" | "pthread_join" | "thrd_create" | "thrd_join") => {
                Some(call_node)
            }
            _ => None,
        },
        c::Expression::BinaryOperator(b)
            if matches!(
                b.node.operator.node,
                c::BinaryOperator::NotEquals | c::BinaryOperator::Equals
            ) =>
        {
            thread_call(&b.node.lhs)
        }
        c::Expression::UnaryOperator(u)
            if matches!(u.node.operator.node, c::UnaryOperator::Negate) =>
        {
            thread_call(&u.node.operand)
        }
        _ => None,
    }
}

/// An integer or character constant's value.
fn integer(k: &c::Constant) -> Option<i64> {
    match k {
        c::Constant::Integer(i) => {
            let digits: &str = &i.number;
            let radix = match i.base {
                c::IntegerBase::Decimal => 10,
                c::IntegerBase::Octal => 8,
                c::IntegerBase::Hexadecimal => 16,
                c::IntegerBase::Binary => 2,
            };
            i64::from_str_radix(digits, radix).ok()
        }
        c::Constant::Character(text) => {
            let inner = text.strip_prefix('\'')?.strip_suffix('\'')?;
            let mut chars = inner.chars();
            match (chars.next()?, chars.next()) {
                ('\\', Some('0')) => Some(0),
                ('\\', Some('n')) => Some(10),
                (ch, None) => Some(i64::from(u32::from(ch))),
                _ => None,
            }
        }
        c::Constant::Float(_) => None,
    }
}

/// Whether a statement assigns `variable` (or, with `or_exits`, leaves its loop early by
/// `break`, `continue` or `goto`): what keeps a `for` from being unrolled here. A `return`
/// does not: it leaves the function, whether the loop is unrolled or not, and lowering
/// guards what follows it in the copies with the function's return flag, as it does in a
/// loop (GenMC's `check_array` in saver/spin-lock: `for (i = 0; i < MAX; i++) if (a[i] ==
/// DEF) return 0;`, whose iterations the unroller would otherwise count against the bound).
fn statement_mentions(s: &c::Statement, variable: &str, or_exits: bool) -> bool {
    match s {
        c::Statement::Break | c::Statement::Continue | c::Statement::Goto(_) => or_exits,
        c::Statement::Return(_) => false,
        c::Statement::Compound(items) => items.iter().any(|item| match &item.node {
            c::BlockItem::Statement(s) => statement_mentions(&s.node, variable, or_exits),
            c::BlockItem::Declaration(d) => d.node.declarators.iter().any(|i| {
                declarator_name(&i.node.declarator.node).is_some_and(|n| n.node.name == variable)
                    || i.node
                        .initializer
                        .as_ref()
                        .is_some_and(|init| match &init.node {
                            c::Initializer::Expression(e) => assigns(&e.node, variable),
                            c::Initializer::List(_) => false,
                        })
            }),
            c::BlockItem::StaticAssert(_) => false,
        }),
        c::Statement::Expression(Some(e)) => assigns(&e.node, variable),
        // A create or join that always succeeds runs one branch only (`succeed.rs`).
        c::Statement::If(i) if succeed::thread_condition(&i.node.condition).is_some() => {
            let taken = if succeed::thread_condition(&i.node.condition) == Some(true) {
                Some(&i.node.then_statement)
            } else {
                i.node.else_statement.as_ref()
            };
            assigns(&i.node.condition.node, variable)
                || taken.is_some_and(|t| statement_mentions(&t.node, variable, or_exits))
        }
        c::Statement::If(i) => {
            assigns(&i.node.condition.node, variable)
                || statement_mentions(&i.node.then_statement.node, variable, or_exits)
                || i.node
                    .else_statement
                    .as_ref()
                    .is_some_and(|e| statement_mentions(&e.node, variable, or_exits))
        }
        // An inner loop's own `break` leaves only that loop.
        c::Statement::While(w) => {
            assigns(&w.node.expression.node, variable)
                || statement_mentions(&w.node.statement.node, variable, false)
        }
        c::Statement::DoWhile(w) => {
            assigns(&w.node.expression.node, variable)
                || statement_mentions(&w.node.statement.node, variable, false)
        }
        c::Statement::For(f) => {
            statement_mentions(&f.node.statement.node, variable, false)
                || f.node
                    .step
                    .as_ref()
                    .is_some_and(|e| assigns(&e.node, variable))
        }
        c::Statement::Labeled(l) => statement_mentions(&l.node.statement.node, variable, or_exits),
        c::Statement::Switch(s) => {
            statement_mentions(&s.node.statement.node, variable, false)
                || (or_exits && switch::leaves_enclosing_loop(&s.node.statement.node))
        }
        c::Statement::Expression(None) | c::Statement::Asm(_) => false,
    }
}

/// Whether an expression assigns `variable` or takes its address.
fn assigns(e: &c::Expression, variable: &str) -> bool {
    let is_variable = |e: &Node<c::Expression>| matches!(&e.node, c::Expression::Identifier(id) if id.node.name == variable);
    match e {
        c::Expression::BinaryOperator(b) => {
            let assignment = !matches!(
                b.node.operator.node,
                c::BinaryOperator::Index
                    | c::BinaryOperator::Multiply
                    | c::BinaryOperator::Divide
                    | c::BinaryOperator::Modulo
                    | c::BinaryOperator::Plus
                    | c::BinaryOperator::Minus
                    | c::BinaryOperator::ShiftLeft
                    | c::BinaryOperator::ShiftRight
                    | c::BinaryOperator::Less
                    | c::BinaryOperator::Greater
                    | c::BinaryOperator::LessOrEqual
                    | c::BinaryOperator::GreaterOrEqual
                    | c::BinaryOperator::Equals
                    | c::BinaryOperator::NotEquals
                    | c::BinaryOperator::BitwiseAnd
                    | c::BinaryOperator::BitwiseXor
                    | c::BinaryOperator::BitwiseOr
                    | c::BinaryOperator::LogicalAnd
                    | c::BinaryOperator::LogicalOr
            );
            (assignment && is_variable(&b.node.lhs))
                || assigns(&b.node.lhs.node, variable)
                || assigns(&b.node.rhs.node, variable)
        }
        c::Expression::UnaryOperator(u) => {
            let writes = matches!(
                u.node.operator.node,
                c::UnaryOperator::PostIncrement
                    | c::UnaryOperator::PostDecrement
                    | c::UnaryOperator::PreIncrement
                    | c::UnaryOperator::PreDecrement
                    | c::UnaryOperator::Address
            );
            (writes && is_variable(&u.node.operand)) || assigns(&u.node.operand.node, variable)
        }
        c::Expression::Call(call_node) => {
            assigns(&call_node.node.callee.node, variable)
                || call_node
                    .node
                    .arguments
                    .iter()
                    .any(|a| assigns(&a.node, variable))
        }
        c::Expression::Cast(cast) => assigns(&cast.node.expression.node, variable),
        c::Expression::Conditional(k) => {
            assigns(&k.node.condition.node, variable)
                || assigns(&k.node.then_expression.node, variable)
                || assigns(&k.node.else_expression.node, variable)
        }
        c::Expression::Comma(parts) => parts.iter().any(|p| assigns(&p.node, variable)),
        c::Expression::Member(m) => assigns(&m.node.expression.node, variable),
        _ => false,
    }
}

/// The name of a C expression the front end does not read, for its refusal.
fn unsupported_expression(e: &c::Expression) -> &'static str {
    match e {
        c::Expression::SizeOfTy(_) | c::Expression::SizeOfVal(_) => "`sizeof`",
        c::Expression::Comma(_) => "the comma operator",
        c::Expression::Statement(_) => "a statement expression",
        c::Expression::CompoundLiteral(_) => "a compound literal",
        c::Expression::GenericSelection(_) => "`_Generic`",
        c::Expression::AlignOf(_) => "`_Alignof`",
        c::Expression::OffsetOf(_) => "`offsetof`",
        c::Expression::VaArg(_) => "`va_arg`",
        _ => "this expression",
    }
}
