//! AST -> program IR: resolve names, recognise library calls, hoist memory accesses.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use super::{
    BinaryOp, CallSite, Expr, FinalCondition, Instr, Location, MemOrder, PointKind, Program, RegId,
    Register, ThreadProgram,
};
use crate::diagnostics::Span;
use crate::diagnostics::{Diagnostic, InputError, SourceFile};
use crate::program::library;
use crate::syntax::ast::{self, ExprKind, StmtKind};

mod address;
mod calls;
mod condition;
mod control;
mod functions;
mod heap;
mod init;
mod macros;
mod mutex;
mod recursion;
mod spec;
mod structs;

use condition::sort_observed;

/// Lower a parsed test into the program IR, reporting every semantic error found.
pub fn lower(test: &ast::LitmusTest, file: &SourceFile) -> Result<Program, InputError> {
    lower_with(test, file, None)
}

/// [`lower`], the calls named by `macros` (a model's `.def` file) expanded with them
/// before the library's.
pub fn lower_with(
    test: &ast::LitmusTest,
    file: &SourceFile,
    macros: Option<std::sync::Arc<crate::syntax::def::Macros>>,
) -> Result<Program, InputError> {
    lower_recursion(test, file, macros, DEFAULT_RECURSION_DEPTH)
}

/// The depth [`lower`] and [`lower_with`] inline recursive calls to: the unroller's default
/// bound.
pub const DEFAULT_RECURSION_DEPTH: u32 = 2;

/// [`lower_with`], recursive calls inlined to `depth` (at most: see `recursion.rs`); the
/// unroller cuts the deeper ones its bound does not reach.
pub fn lower_recursion(
    test: &ast::LitmusTest,
    file: &SourceFile,
    macros: Option<std::sync::Arc<crate::syntax::def::Macros>>,
    depth: u32,
) -> Result<Program, InputError> {
    let mut lowerer = Lowerer {
        macros,
        ..Lowerer::default()
    };
    lowerer.recursion.limit = depth;
    let original = test;
    let (flat, struct_cells) = structs::flatten(test, file, &mut lowerer);
    let test = &flat;
    lowerer.declare_init(test);
    lowerer.declare_functions(test, file);
    let mut threads = Vec::new();
    let mut seen_threads: HashMap<u32, Span> = HashMap::new();
    for thread in &test.threads {
        if let Some(first) = seen_threads.insert(thread.index, thread.name.span) {
            let (line, _) = file.line_col(first.start);
            lowerer.error(
                Diagnostic::new(
                    format!("thread {} is defined twice", thread.name.name),
                    thread.name.span,
                )
                .with_label("second definition")
                .with_help(format!("the first definition is on line {line}")),
            );
            continue;
        }
        if let Some(t) = lowerer.lower_thread(thread) {
            threads.push(t);
        }
    }
    lowerer.check_uncalled_functions(test);
    if test.threads.is_empty() {
        lowerer.error(
            Diagnostic::new("the test has no threads", test.name.span)
                .with_help("add at least one thread, e.g. `P0 (int* x) { *x = 1; }`"),
        );
    }
    let condition = test.condition.as_ref().and_then(|c| {
        let prop = lowerer.lower_prop(&c.prop, &threads)?;
        Some(FinalCondition {
            quantifier: c.quantifier,
            prop,
            text: file.snippet(c.span).to_string(),
        })
    });
    let filter = test
        .filter
        .as_ref()
        .and_then(|p| lowerer.lower_prop(p, &threads));
    let mut observed = Vec::new();
    for var in &test.locations {
        observed.extend(lowerer.listed_observables(var, &mut threads));
    }
    if let Some(c) = &condition {
        c.prop.observables(&mut observed);
    }
    if !lowerer.errors.is_empty() {
        // A function's body is lowered at each call: its errors once.
        let mut seen = HashSet::new();
        lowerer
            .errors
            .retain(|d| seen.insert((d.span, d.message.clone())));
        return Err(InputError::new(file, lowerer.errors));
    }
    let mut locations = lowerer.locations;
    name_struct_cells(&mut locations, &struct_cells);
    sort_observed(&mut observed, &threads, &locations);
    let mut program = Program {
        name: test.name.name.clone(),
        source: file.clone(),
        locations,
        threads,
        condition,
        filter,
        observed,
        spec: None,
    };
    let errors =
        super::points_to::resolve(&mut program, !crate::diagnostics::is_c_file(&file.name));
    if !errors.is_empty() {
        return Err(InputError::new(file, errors));
    }
    // Locks at computed addresses, once points-to has given pointers their cells.
    let computed = super::computed_lock::expand(&mut program);
    lowerer.posix.used.extend(computed);
    super::mutex::settle(&mut program, &lowerer.posix);
    if let Some(block) = &original.spec {
        program.spec = Some(Box::new(spec::lower_spec(original, block, file)?));
    }
    Ok(program)
}

/// Gives the cells of struct objects their names (`pool[3]` is `pool[1].next`) and their
/// fields' atomicity, once every name has been resolved.
fn name_struct_cells(locations: &mut [Location], cells: &structs::StructCells) {
    for location in locations {
        let Some((object, rest)) = location.name.split_once('[') else {
            continue;
        };
        let Some(names) = cells.objects.get(object) else {
            continue;
        };
        let index = rest.trim_end_matches(']').parse::<usize>().ok();
        if let Some(cell) = index.and_then(|i| names.get(i)) {
            location.name = cell.name.clone();
            location.declared_atomic |= cell.atomic;
            location.starts = cell.starts.clone();
        }
    }
}

#[derive(Default)]
struct Lowerer {
    locations: Vec<Location>,
    loc_by_name: HashMap<String, usize>,
    /// The objects (locations and arrays) laid out so far, numbered: see [`address_of_cell`].
    objects: HashMap<String, i64>,
    /// Declared array lengths, by array name.
    arrays: HashMap<String, u32>,
    /// Initial register values from the init block, by thread index.
    register_inits: BTreeMap<u32, Vec<(ast::Ident, i32)>>,
    /// The functions of the test, by name.
    functions: HashMap<String, Rc<functions::FunctionDef>>,
    /// Functions on a cycle of calls.
    recursive: HashSet<String>,
    /// The recursive calls open while a thread is lowered, and the depth they go to.
    recursion: recursion::Recursion,
    /// Functions inlined somewhere.
    called: HashSet<String>,
    /// Definitions refused for their name (reported once: calls of them say nothing more).
    refused: HashSet<String>,
    /// The names a function's body may use for locations: those of the init block and the
    /// threads' parameters.
    global_names: HashSet<String>,
    errors: Vec<Diagnostic>,
    /// The macros of the model's `.def` file, which come before the library's calls.
    macros: Option<std::sync::Arc<crate::syntax::def::Macros>>,
    /// Blocks `malloc`, `calloc` and stack frames made so far (they are numbered).
    heap_blocks: usize,
    /// The C front end's POSIX mutexes (`program::mutex`).
    posix: super::mutex::PosixMutexes,
}

/// How many cells an array parameter gets when the init block does not declare it.
const DEFAULT_ARRAY_CELLS: u32 = 1;

/// The largest array a register-indexed access may reach into. The unroller turns such an
/// access into a chain of branches, one per cell the index can denote (`unroll::values`
/// prunes the others), with guards folded past a depth (`FOLD_GUARD_AT`); the cap was 256
/// when guards grew with the chain (20000 cells took 10 GB). GenMC's `twalock` indexes an
/// array of 4096 cells and its free lists reach 5280: `twalock` under sc takes 6 s and
/// 97 MB at a load average of 20 (28 November 2026).
const MAX_INDEXED_CELLS: usize = 8192;

impl Lowerer {
    fn error(&mut self, diagnostic: Diagnostic) {
        self.errors.push(diagnostic);
    }

    fn location(&mut self, name: &str) -> usize {
        if let Some(&id) = self.loc_by_name.get(name) {
            return id;
        }
        let id = self.locations.len();
        let address = self.address_of_cell(name);
        self.locations.push(Location {
            name: name.to_string(),
            initial: 0,
            declared_atomic: false,
            is_lock: false,
            herd_lock: false,
            mutex_memory: false,
            mutex_destroyed: false,
            address,
            starts: None,
            heap: None,
        });
        self.loc_by_name.insert(name.to_string(), id);
        id
    }

    /// The address of cell `name` (`x`, `a[2]`): its object's block (numbered in the order
    /// objects are first named) plus its index.
    fn address_of_cell(&mut self, name: &str) -> i32 {
        let (object, index) = match name.split_once('[') {
            Some((object, rest)) => (
                object,
                rest.trim_end_matches(']').parse::<i32>().unwrap_or(0),
            ),
            None => (name, 0),
        };
        let next = self.objects.len() as i64;
        let number = *self.objects.entry(object.to_string()).or_insert(next);
        let address = i64::from(super::ADDRESS_BASE)
            + number * i64::from(super::OBJECT_STRIDE)
            + i64::from(index);
        // Past 28000 objects the blocks would leave 32 bits; no litmus test comes near.
        i32::try_from(address).unwrap_or(i32::MAX)
    }

    fn int_value(&mut self, value: i64, span: Span) -> i32 {
        to_i32(value).unwrap_or_else(|| {
            self.error(
                Diagnostic::new(format!("{value} does not fit in 32 bits"), span)
                    .with_help("nemos computes with 32-bit two's complement integers"),
            );
            0
        })
    }

    fn lower_thread(&mut self, thread: &ast::Thread) -> Option<ThreadProgram> {
        let mut scope = ThreadScope::default();
        for param in &thread.params {
            if param.ty.pointer_depth == 0 {
                self.error(
                    Diagnostic::new(
                        format!("parameter `{}` is not a pointer", param.name.name),
                        param.name.span,
                    )
                    .with_help("thread parameters name shared locations: write `int* x`"),
                );
                continue;
            }
            let name = &param.name.name;
            if !self.arrays.contains_key(name) {
                let loc = self.location(name);
                self.locations[loc].declared_atomic |= type_is_atomic(&param.ty);
            } else {
                let len = self.arrays[name];
                for i in 0..len {
                    let loc = self.location(&format!("{name}[{i}]"));
                    self.locations[loc].declared_atomic |= type_is_atomic(&param.ty);
                }
            }
            scope.params.push(name.clone());
        }
        if let Some(inits) = self.register_inits.get(&thread.index).cloned() {
            for (name, value) in inits {
                scope.declare(&name.name, value, false);
            }
        }
        // A thread with errors is still returned, so that the condition can name its
        // registers without a second, derived error; `lower` fails as a whole anyway.
        scope.exits = control::Exits::of_thread(&thread.body, &mut scope);
        let body = self.lower_block(&thread.body, &mut scope);
        Some(ThreadProgram {
            index: thread.index,
            registers: scope.registers,
            body,
            calls: scope.calls,
            ordering_points: scope.ordering_points,
            span: thread.span,
        })
    }

    fn lower_block(&mut self, stmts: &[ast::Stmt], scope: &mut ThreadScope) -> Vec<Instr> {
        let mut out = Vec::new();
        self.lower_stmts(stmts, scope, &mut out);
        out
    }

    fn lower_stmt(&mut self, stmt: &ast::Stmt, scope: &mut ThreadScope, out: &mut Vec<Instr>) {
        let span = stmt.span;
        match &stmt.kind {
            StmtKind::Decl { ty: _, name, init } => {
                if scope.params.contains(&name.name) {
                    self.error(Diagnostic::new(
                        format!("`{}` is already a parameter of this thread", name.name),
                        name.span,
                    ));
                    return;
                }
                if scope.binding(&name.name).is_some() {
                    self.error(Diagnostic::new(
                        format!("`{}` is already a parameter of this function", name.name),
                        name.span,
                    ));
                    return;
                }
                let reg = scope.declare(&name.name, 0, false);
                if let Some(init) = init {
                    self.assign_register(reg, init, span, scope, out);
                }
            }
            StmtKind::Assign { lhs, rhs } => self.lower_assign(lhs, rhs, span, scope, out),
            StmtKind::Expr(e) => {
                if let ExprKind::Call(name, args) = &e.kind {
                    if self.is_function(&name.name) {
                        self.inline_call(name, args, e.span, scope, out);
                        return;
                    }
                    self.lower_call(name, args, e.span, None, scope, out);
                } else {
                    let _ = self.lower_expr(e, scope, out);
                }
            }
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let Some(cond) = self.lower_expr(cond, scope, out) else {
                    return;
                };
                let then_branch = self.lower_block(then_branch, scope);
                let else_branch = else_branch
                    .as_ref()
                    .map(|b| self.lower_block(b, scope))
                    .unwrap_or_default();
                out.push(Instr::If {
                    cond,
                    then_branch,
                    else_branch,
                    span,
                });
            }
            StmtKind::While {
                prelude,
                cond,
                body,
            } => self.lower_loop((prelude, Some(cond)), body, None, false, span, scope, out),
            StmtKind::DoWhile { body, cond } => {
                self.lower_loop((&[], Some(cond)), body, None, true, span, scope, out)
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                if let Some(init) = init {
                    self.lower_stmt(init, scope, out);
                }
                self.lower_loop(
                    (&[], cond.as_ref()),
                    body,
                    step.as_deref(),
                    false,
                    span,
                    scope,
                    out,
                );
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Return(_) => {
                self.lower_exit(stmt, scope, out)
            }
            StmtKind::Block(stmts) => self.lower_stmts(stmts, scope, out),
            StmtKind::Atomic(stmts) => {
                let body = self.lower_block(stmts, scope);
                out.push(Instr::AtomicBlock { body, span });
            }
            StmtKind::Empty => {}
        }
    }

    fn lower_assign(
        &mut self,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) {
        match &lhs.kind {
            ExprKind::Name(id) => {
                if let Some(reg) = scope.lookup(&id.name) {
                    self.assign_register(reg, rhs, span, scope, out);
                } else if self.is_location_name(&id.name, scope) {
                    self.error(
                        Diagnostic::new(
                            format!("`{}` is a pointer to a shared location", id.name),
                            id.span,
                        )
                        .with_label("cannot assign to the pointer itself")
                        .with_help(format!(
                            "to write the location, write `*{} = ...;`",
                            id.name
                        )),
                    );
                } else if MemOrder::from_name(&id.name).is_some() {
                    self.unknown_identifier(id);
                } else {
                    // As in herd7: a register assigned before any declaration is declared
                    // there (the LKMM tests rely on it), starting at 0 like every register.
                    let reg = scope.declare(&id.name, 0, false);
                    self.assign_register(reg, rhs, span, scope, out);
                }
            }
            ExprKind::Unary(ast::UnaryOp::Deref, _) | ExprKind::Index(_, _) => {
                let Some(loc) = self.lvalue_location(lhs, scope, out) else {
                    return;
                };
                let Some(value) = self.lower_expr(rhs, scope, out) else {
                    return;
                };
                out.push(Instr::Store {
                    loc,
                    value,
                    order: MemOrder::NonAtomic,
                    tags: Vec::new(),
                    span,
                });
            }
            _ => self.error(
                Diagnostic::new("cannot assign to this expression", lhs.span)
                    .with_help("assign to a register (`r0 = ...`) or a location (`*x = ...`)"),
            ),
        }
    }

    /// `reg = rhs`, reading memory straight into `reg` when `rhs` is a single access.
    fn assign_register(
        &mut self,
        reg: RegId,
        rhs: &ast::Expr,
        span: Span,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) {
        match &rhs.kind {
            ExprKind::Call(name, args) if self.returns_memory_value(name) => {
                self.lower_call(name, args, rhs.span, Some(reg), scope, out);
            }
            ExprKind::Unary(ast::UnaryOp::Deref, _) | ExprKind::Index(_, _) => {
                if let Some(loc) = self.lvalue_location(rhs, scope, out) {
                    out.push(Instr::Load {
                        dst: reg,
                        loc,
                        order: MemOrder::NonAtomic,
                        tags: Vec::new(),
                        span,
                    });
                }
            }
            _ => {
                if let Some(value) = self.lower_expr(rhs, scope, out) {
                    out.push(Instr::Assign {
                        dst: reg,
                        value,
                        span,
                    });
                }
            }
        }
    }

    fn unknown_identifier(&mut self, id: &ast::Ident) {
        let help = if MemOrder::from_name(&id.name).is_some() {
            "a memory order is only allowed as the order argument of an atomic operation"
                .to_string()
        } else {
            format!("declare it first, e.g. `int {} = 0;`", id.name)
        };
        let message = if MemOrder::from_name(&id.name).is_some() {
            format!("memory order `{}` is not allowed here", id.name)
        } else {
            format!("unknown identifier `{}`", id.name)
        };
        self.error(Diagnostic::new(message, id.span).with_help(help));
    }

    /// Lower a value expression, hoisting its memory accesses into `out`.
    fn lower_expr(
        &mut self,
        e: &ast::Expr,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<Expr> {
        match &e.kind {
            ExprKind::Int(v) => Some(Expr::Const(self.int_value(*v, e.span))),
            ExprKind::Name(id) => {
                if let Some(reg) = scope.lookup(&id.name) {
                    Some(Expr::Reg(reg))
                } else if self.is_location_name(&id.name, scope) {
                    // A location's name is its address, as a pointer parameter's value.
                    let address = self.address(e, scope, out)?;
                    Some(self.address_value(address))
                } else if id.name == "NULL" {
                    Some(Expr::Const(0))
                } else {
                    self.unknown_identifier(id);
                    None
                }
            }
            ExprKind::FieldIndex(index, limit) => {
                let index = self.lower_expr(index, scope, out)?;
                out.push(Instr::CheckIndex {
                    index: index.clone(),
                    limit: *limit,
                    span: e.span,
                });
                Some(index)
            }
            // `structs::flatten` turned every member access into indexing.
            ExprKind::Member(..) => {
                self.error(Diagnostic::new(
                    "a struct member access nemos could not lay out",
                    e.span,
                ));
                None
            }
            ExprKind::Unary(ast::UnaryOp::Deref, _) | ExprKind::Index(_, _) => {
                let loc = self.lvalue_location(e, scope, out)?;
                let dst = scope.temporary();
                out.push(Instr::Load {
                    dst,
                    loc,
                    order: MemOrder::NonAtomic,
                    tags: Vec::new(),
                    span: e.span,
                });
                Some(Expr::Reg(dst))
            }
            ExprKind::Unary(ast::UnaryOp::AddrOf, inner) if matches!(&inner.kind, ExprKind::Name(id) if scope.lookup(&id.name).is_some()) =>
            {
                if let ExprKind::Name(id) = &inner.kind {
                    self.register_address(id);
                }
                None
            }
            ExprKind::Unary(ast::UnaryOp::AddrOf, _) => {
                let address = self.address(e, scope, out)?;
                Some(self.address_value(address))
            }
            ExprKind::Unary(op, inner) => {
                let inner = self.lower_expr(inner, scope, out)?;
                // `*` and `&` are memory accesses and addresses, lowered by the arms above.
                op.on_values().map(|op| Expr::Unary(op, Box::new(inner)))
            }
            ExprKind::Binary(op @ (ast::BinaryOp::And | ast::BinaryOp::Or), a, b) => {
                let a = self.lower_expr(a, scope, out)?;
                let mut b_prelude = Vec::new();
                let b = self.lower_expr(b, scope, &mut b_prelude)?;
                if b_prelude.is_empty() {
                    return Some(Expr::Binary(*op, Box::new(a), Box::new(b)));
                }
                // The right operand reads memory: C evaluates it only when needed.
                let t = scope.temporary();
                out.push(Instr::Assign {
                    dst: t,
                    value: truth(a),
                    span: e.span,
                });
                b_prelude.push(Instr::Assign {
                    dst: t,
                    value: truth(b),
                    span: e.span,
                });
                let (then_branch, else_branch) = if *op == ast::BinaryOp::And {
                    (b_prelude, vec![])
                } else {
                    (vec![], b_prelude)
                };
                out.push(Instr::If {
                    cond: Expr::Reg(t),
                    then_branch,
                    else_branch,
                    span: e.span,
                });
                Some(Expr::Reg(t))
            }
            ExprKind::Binary(op, a, b) => {
                let a = self.lower_expr(a, scope, out)?;
                let b = self.lower_expr(b, scope, out)?;
                Some(Expr::Binary(*op, Box::new(a), Box::new(b)))
            }
            ExprKind::Conditional(c, a, b) => {
                let c = self.lower_expr(c, scope, out)?;
                let mut a_prelude = Vec::new();
                let a = self.lower_expr(a, scope, &mut a_prelude)?;
                let mut b_prelude = Vec::new();
                let b = self.lower_expr(b, scope, &mut b_prelude)?;
                if a_prelude.is_empty() && b_prelude.is_empty() {
                    return Some(Expr::Conditional(Box::new(c), Box::new(a), Box::new(b)));
                }
                let t = scope.temporary();
                a_prelude.push(Instr::Assign {
                    dst: t,
                    value: a,
                    span: e.span,
                });
                b_prelude.push(Instr::Assign {
                    dst: t,
                    value: b,
                    span: e.span,
                });
                out.push(Instr::If {
                    cond: c,
                    then_branch: a_prelude,
                    else_branch: b_prelude,
                    span: e.span,
                });
                Some(Expr::Reg(t))
            }
            // Casts between integer types are the identity on 32-bit values.
            ExprKind::Cast(_, inner) => self.lower_expr(inner, scope, out),
            ExprKind::Call(name, args) if self.is_function(&name.name) => {
                self.call_value(name, args, e.span, scope, out)
            }
            ExprKind::Call(name, args) => {
                if !self.returns_memory_value(name) {
                    if self.library_call(&name.name).is_some() || self.is_macro(&name.name) {
                        self.error(Diagnostic::new(
                            format!("`{}` does not return a value", name.name),
                            name.span,
                        ));
                    } else {
                        self.unknown_function(name);
                    }
                    return None;
                }
                let dst = scope.temporary();
                self.lower_call(name, args, e.span, Some(dst), scope, out)?;
                Some(Expr::Reg(dst))
            }
        }
    }
}

#[derive(Default)]
struct ThreadScope {
    registers: Vec<Register>,
    by_name: HashMap<String, RegId>,
    params: Vec<String>,
    /// The flags of the early exits in force.
    exits: control::Exits,
    /// The function whose inlined body is being lowered, if any.
    frame: Option<functions::Frame>,
    /// Per function, how many times it was inlined into this thread so far.
    inlined: HashMap<String, usize>,
    calls: Vec<CallSite>,
    ordering_points: Vec<(RegId, PointKind)>,
}

/// The caller's names, put aside while a callee's body is lowered.
struct SavedFrame {
    by_name: HashMap<String, RegId>,
    params: Vec<String>,
    exits: control::Exits,
    frame: Option<functions::Frame>,
}

impl ThreadScope {
    /// Declaring a name twice (as C allows in nested blocks) reuses the register: herd's final
    /// states name registers, not scopes.
    fn declare(&mut self, name: &str, initial: i32, temporary: bool) -> RegId {
        if let Some(&id) = self.by_name.get(name) {
            return id;
        }
        let id = self.registers.len();
        let full_name = match &self.frame {
            Some(frame) => format!("{}{name}", frame.prefix),
            None => name.to_string(),
        };
        self.registers.push(Register {
            name: full_name,
            initial,
            temporary,
        });
        self.by_name.insert(name.to_string(), id);
        id
    }

    /// A register no name of the source refers to.
    fn fresh(&mut self, name: &str) -> RegId {
        self.registers.push(Register {
            name: name.to_string(),
            initial: 0,
            temporary: false,
        });
        self.registers.len() - 1
    }

    /// What pointer parameter `name` of the function being lowered denotes.
    fn binding(&self, name: &str) -> Option<functions::Binding> {
        self.frame.as_ref()?.pointers.get(name).cloned()
    }

    /// Starts a callee's scope: no names but its own.
    fn enter_frame(&mut self) -> SavedFrame {
        SavedFrame {
            by_name: std::mem::take(&mut self.by_name),
            params: std::mem::take(&mut self.params),
            exits: std::mem::take(&mut self.exits),
            frame: self.frame.take(),
        }
    }

    fn leave_frame(&mut self, saved: SavedFrame) {
        self.by_name = saved.by_name;
        self.params = saved.params;
        self.exits = saved.exits;
        self.frame = saved.frame;
    }

    fn lookup(&self, name: &str) -> Option<RegId> {
        self.by_name.get(name).copied()
    }

    /// The register of an ordering-point annotation.
    fn ordering_point(&mut self, kind: PointKind) -> RegId {
        let id = self.registers.len();
        self.registers.push(Register {
            name: format!("op#{}", self.ordering_points.len() + 1),
            initial: 0,
            temporary: true,
        });
        self.ordering_points.push((id, kind));
        id
    }

    fn temporary(&mut self) -> RegId {
        let name = format!(
            "tmp{}",
            self.registers.iter().filter(|r| r.temporary).count()
        );
        let id = self.registers.len();
        self.registers.push(Register {
            name,
            initial: 0,
            temporary: true,
        });
        id
    }
}

fn type_is_atomic(ty: &ast::Type) -> bool {
    ty.atomic || ty.base.starts_with("atomic") || ty.base == "atomic_t"
}

fn to_i32(v: i64) -> Option<i32> {
    if (i32::MIN as i64..=u32::MAX as i64).contains(&v) {
        Some(v as u32 as i32)
    } else {
        None
    }
}

fn truth(e: Expr) -> Expr {
    Expr::Binary(BinaryOp::Ne, Box::new(e), Box::new(Expr::Const(0)))
}

fn constant_value(e: &ast::Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(v) => Some(*v),
        ExprKind::Unary(ast::UnaryOp::Neg, inner) => constant_value(inner).map(|v| -v),
        ExprKind::Cast(_, inner) => constant_value(inner),
        _ => None,
    }
}

/// Whether a call is an expression whose value is read from memory (a load, a
/// read-modify-write, a compare-exchange).
impl Lowerer {
    /// Whether a call is an expression with a value: a macro of the `.def` file with one,
    /// or a library call that reads memory.
    fn returns_memory_value(&self, name: &ast::Ident) -> bool {
        if self.is_macro(&name.name) {
            return self.macro_has_value(&name.name);
        }
        if matches!(name.name.as_str(), "malloc" | "calloc" | "aligned_alloc") {
            return true;
        }
        self.library_call(&name.name)
            .is_some_and(|call| call.primitive.returns_value())
    }

    /// The library call of this name; with a model's macros, the kernel's macros are
    /// theirs, not the library's C11 mapping.
    fn library_call(&self, name: &str) -> Option<&'static library::LibraryCall> {
        library::lookup(name)
            .filter(|call| self.macros.is_none() || call.family != library::Family::Linux)
    }
}
