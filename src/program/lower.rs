//! AST -> program IR: resolve names, recognise library calls, hoist memory accesses.

use std::collections::{BTreeMap, HashMap};

use super::{
    Address, BinaryOp, Expected, Expr, FinalCondition, Instr, Location, MemOrder, Observable,
    Program, RegId, Register, RmwOp, StateProp, ThreadProgram, UnaryOp,
};
use crate::diagnostics::Span;
use crate::diagnostics::{Diagnostic, InputError, SourceFile};
use crate::syntax::ast::{self, ExprKind, StmtKind};

/// Lower a parsed test into the program IR, reporting every semantic error found.
pub fn lower(test: &ast::LitmusTest, file: &SourceFile) -> Result<Program, InputError> {
    let mut lowerer = Lowerer::default();
    lowerer.declare_init(test);
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
    if test.threads.is_empty() {
        lowerer.error(
            Diagnostic::new("the test has no threads", test.name.span)
                .with_help("add at least one thread, e.g. `P0 (int* x) { *x = 1; }`"),
        );
    }
    let condition = test.condition.as_ref().and_then(|c| {
        let prop = lowerer.lower_prop(&c.prop, &threads)?;
        Some(FinalCondition {
            quantifier: c.quantifier.into(),
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
        if let Some(o) = lowerer.resolve_state_var(var, &threads) {
            observed.push(o);
        }
    }
    if let Some(c) = &condition {
        c.prop.observables(&mut observed);
    }
    if !lowerer.errors.is_empty() {
        return Err(InputError::new(file, lowerer.errors));
    }
    let locations = lowerer.locations;
    sort_observed(&mut observed, &threads, &locations);
    Ok(Program {
        name: test.name.name.clone(),
        source: file.clone(),
        locations,
        threads,
        condition,
        filter,
        observed,
    })
}

/// herd's order: registers by thread then name, then locations by name.
fn sort_observed(observed: &mut Vec<Observable>, threads: &[ThreadProgram], locs: &[Location]) {
    observed.sort_by(|a, b| {
        let key = |o: &Observable| match *o {
            Observable::Reg { thread, reg } => (
                0,
                threads[thread].index,
                threads[thread].registers[reg].name.clone(),
            ),
            Observable::Loc(l) => (1, 0, locs[l].name.clone()),
        };
        key(a).cmp(&key(b))
    });
    observed.dedup();
}

#[derive(Default)]
struct Lowerer {
    locations: Vec<Location>,
    loc_by_name: HashMap<String, usize>,
    /// Declared array lengths, by array name.
    arrays: HashMap<String, u32>,
    /// Initial register values from the init block, by thread index.
    register_inits: BTreeMap<u32, Vec<(ast::Ident, i32)>>,
    errors: Vec<Diagnostic>,
}

/// How many cells an array parameter gets when the init block does not declare it.
const DEFAULT_ARRAY_CELLS: u32 = 1;

/// The largest array a register-indexed access may reach into. The unroller turns such an
/// access into a chain of branches, one per cell, whose guards grow with the chain: memory
/// is quadratic in the cells (20000 cells took 10 GB), and litmus arrays are small.
const MAX_INDEXED_CELLS: usize = 256;

impl Lowerer {
    fn error(&mut self, diagnostic: Diagnostic) {
        self.errors.push(diagnostic);
    }

    fn location(&mut self, name: &str) -> usize {
        if let Some(&id) = self.loc_by_name.get(name) {
            return id;
        }
        let id = self.locations.len();
        self.locations.push(Location {
            name: name.to_string(),
            initial: 0,
            declared_atomic: false,
            is_lock: false,
        });
        self.loc_by_name.insert(name.to_string(), id);
        id
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

    fn declare_init(&mut self, test: &ast::LitmusTest) {
        for item in &test.init {
            let atomic = item.ty.as_ref().is_some_and(type_is_atomic);
            match &item.target {
                ast::StateVar::Register { thread, name } => match &item.value {
                    Some(ast::InitValue::Int(v)) | Some(ast::InitValue::AtomicInit(v)) => {
                        let v = self.int_value(*v, item.span);
                        self.register_inits
                            .entry(*thread)
                            .or_default()
                            .push((name.clone(), v));
                    }
                    None => self
                        .register_inits
                        .entry(*thread)
                        .or_default()
                        .push((name.clone(), 0)),
                    Some(ast::InitValue::Address(_)) => self.error(
                        Diagnostic::new("registers holding addresses are not supported", item.span)
                            .with_help("pass the location to the thread as a parameter instead"),
                    ),
                    Some(ast::InitValue::List(_)) => self.error(Diagnostic::new(
                        "a register cannot be initialised with a list",
                        item.span,
                    )),
                },
                ast::StateVar::Location { name, index } => {
                    let values: Vec<i64> = match &item.value {
                        None => vec![],
                        Some(ast::InitValue::Int(v)) | Some(ast::InitValue::AtomicInit(v)) => {
                            vec![*v]
                        }
                        Some(ast::InitValue::List(vs)) => vs.clone(),
                        Some(ast::InitValue::Address(_)) => {
                            self.error(
                                Diagnostic::new(
                                    "locations holding addresses are not supported",
                                    item.span,
                                )
                                .with_help("nemos models locations holding integers"),
                            );
                            vec![]
                        }
                    };
                    if let Some(len) = item.array_len {
                        if values.len() > len as usize {
                            self.error(Diagnostic::new(
                                format!(
                                    "array `{}` has {} cells but {} initial values",
                                    name.name,
                                    len,
                                    values.len()
                                ),
                                item.span,
                            ));
                        }
                        self.arrays.insert(name.name.clone(), len);
                        for i in 0..len {
                            let cell = self.location(&format!("{}[{}]", name.name, i));
                            let v = values.get(i as usize).copied().unwrap_or(0);
                            self.locations[cell].initial = self.int_value(v, item.span);
                            self.locations[cell].declared_atomic |= atomic;
                        }
                    } else {
                        if values.len() > 1 {
                            self.error(Diagnostic::new(
                                format!("`{}` is not an array", name.name),
                                item.span,
                            ));
                        }
                        let cell_name = match index {
                            Some(i) => format!("{}[{}]", name.name, i),
                            None => name.name.clone(),
                        };
                        let cell = self.location(&cell_name);
                        let v = values.first().copied().unwrap_or(0);
                        self.locations[cell].initial = self.int_value(v, item.span);
                        self.locations[cell].declared_atomic |= atomic;
                    }
                }
            }
        }
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
        let body = self.lower_block(&thread.body, &mut scope);
        Some(ThreadProgram {
            index: thread.index,
            registers: scope.registers,
            body,
            span: thread.span,
        })
    }

    fn lower_block(&mut self, stmts: &[ast::Stmt], scope: &mut ThreadScope) -> Vec<Instr> {
        let mut out = Vec::new();
        for stmt in stmts {
            self.lower_stmt(stmt, scope, &mut out);
        }
        out
    }

    fn lower_stmt(&mut self, stmt: &ast::Stmt, scope: &mut ThreadScope, out: &mut Vec<Instr>) {
        let span = stmt.span;
        match &stmt.kind {
            StmtKind::Decl { ty, name, init } => {
                if ty.pointer_depth > 0 {
                    self.error(
                        Diagnostic::new("registers holding pointers are not supported", ty.span)
                            .with_help("pass the location to the thread as a parameter"),
                    );
                    return;
                }
                if scope.params.contains(&name.name) {
                    self.error(Diagnostic::new(
                        format!("`{}` is already a parameter of this thread", name.name),
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
            StmtKind::While { cond, body } => {
                let mut cond_prelude = Vec::new();
                let Some(cond) = self.lower_expr(cond, scope, &mut cond_prelude) else {
                    return;
                };
                let body = self.lower_block(body, scope);
                out.push(Instr::While {
                    cond_prelude,
                    cond,
                    body,
                    span,
                });
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
                let mut cond_prelude = Vec::new();
                let cond = match cond {
                    Some(c) => match self.lower_expr(c, scope, &mut cond_prelude) {
                        Some(c) => c,
                        None => return,
                    },
                    None => Expr::Const(1),
                };
                let mut body = self.lower_block(body, scope);
                if let Some(step) = step {
                    self.lower_stmt(step, scope, &mut body);
                }
                out.push(Instr::While {
                    cond_prelude,
                    cond,
                    body,
                    span,
                });
            }
            StmtKind::Block(stmts) => {
                for s in stmts {
                    self.lower_stmt(s, scope, out);
                }
            }
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
                } else {
                    self.unknown_identifier(id);
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
            ExprKind::Call(name, args) if returns_memory_value(&name.name) => {
                self.lower_call(name, args, rhs.span, Some(reg), scope, out);
            }
            ExprKind::Unary(ast::UnaryOp::Deref, _) | ExprKind::Index(_, _) => {
                if let Some(loc) = self.lvalue_location(rhs, scope, out) {
                    out.push(Instr::Load {
                        dst: reg,
                        loc,
                        order: MemOrder::NonAtomic,
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

    fn is_location_name(&self, name: &str, scope: &ThreadScope) -> bool {
        scope.params.iter().any(|p| p == name)
            || self.loc_by_name.contains_key(name)
            || self.arrays.contains_key(name)
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

    /// The cell written or read by `*p`, `p[i]` or `*(p + i)`. A register-dependent
    /// index is lowered into `out` (hoisting its own memory accesses).
    fn lvalue_location(
        &mut self,
        e: &ast::Expr,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<Address> {
        match &e.kind {
            ExprKind::Unary(ast::UnaryOp::Deref, inner) => self.address(inner, scope, out),
            ExprKind::Index(base, index) => self.indexed_address(base, index, scope, out),
            _ => {
                self.error(Diagnostic::new(
                    "expected a memory access such as `*x` or `a[1]`",
                    e.span,
                ));
                None
            }
        }
    }

    /// `base[index]` (or `base + index`): a fixed cell when the index is a constant, as
    /// every address was before register-indexed accesses, else an [`Address::Indexed`].
    fn indexed_address(
        &mut self,
        base: &ast::Expr,
        index: &ast::Expr,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<Address> {
        if constant_value(index).is_some() {
            let offset = self.constant_index(index)?;
            return self.address_offset(base, offset, scope).map(Address::Fixed);
        }
        let cells = self.array_cells(base, scope)?;
        let index = self.lower_expr(index, scope, out)?;
        Some(Address::Indexed { cells, index })
    }

    /// The cells of the array a pointer expression names, for a register-dependent index:
    /// every declared cell of an array, the one cell of a plain location.
    fn array_cells(&mut self, base: &ast::Expr, scope: &ThreadScope) -> Option<Vec<usize>> {
        if let ExprKind::Cast(_, inner) = &base.kind {
            return self.array_cells(inner, scope);
        }
        if let ExprKind::Name(id) = &base.kind {
            if let Some(&len) = self.arrays.get(&id.name) {
                if len as usize > MAX_INDEXED_CELLS {
                    self.error(
                        Diagnostic::new(
                            format!(
                                "a register-indexed access into `{}`, an array of {len} cells",
                                id.name
                            ),
                            base.span,
                        )
                        .with_help(format!(
                            "nemos splits such an access into one guarded access per cell, \
                             and supports arrays of up to {MAX_INDEXED_CELLS} cells there"
                        )),
                    );
                    return None;
                }
                return Some(
                    (0..len)
                        .map(|i| self.location(&format!("{}[{}]", id.name, i)))
                        .collect(),
                );
            }
        }
        // A plain location (or an error, reported once by `address_offset`).
        self.address_offset(base, 0, scope).map(|loc| vec![loc])
    }

    fn constant_index(&mut self, index: &ast::Expr) -> Option<u32> {
        match constant_value(index) {
            Some(v) if (0..=u32::MAX as i64).contains(&v) => Some(v as u32),
            Some(v) => {
                self.error(Diagnostic::new(
                    format!("array index {v} is out of range"),
                    index.span,
                ));
                None
            }
            None => {
                self.error(Diagnostic::new("array index is not a constant", index.span));
                None
            }
        }
    }

    /// The location a pointer expression denotes.
    fn address(
        &mut self,
        e: &ast::Expr,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<Address> {
        match &e.kind {
            ExprKind::Binary(ast::BinaryOp::Add, base, index) => {
                // `i + y` is `y + i` in C.
                if self.names_location(index, scope) && !self.names_location(base, scope) {
                    return self.indexed_address(index, base, scope, out);
                }
                self.indexed_address(base, index, scope, out)
            }
            ExprKind::Cast(_, inner) => self.address(inner, scope, out),
            ExprKind::Unary(ast::UnaryOp::AddrOf, inner) => match &inner.kind {
                ExprKind::Name(_) => self.address_offset(inner, 0, scope).map(Address::Fixed),
                ExprKind::Index(base, index) => self.indexed_address(base, index, scope, out),
                _ => {
                    self.error(Diagnostic::new(
                        "cannot take the address of this expression",
                        e.span,
                    ));
                    None
                }
            },
            _ => self.address_offset(e, 0, scope).map(Address::Fixed),
        }
    }

    /// `e` is (a cast of) the name of a shared location or array, not a register.
    fn names_location(&self, e: &ast::Expr, scope: &ThreadScope) -> bool {
        match &e.kind {
            ExprKind::Cast(_, inner) => self.names_location(inner, scope),
            ExprKind::Name(id) => {
                scope.lookup(&id.name).is_none() && self.is_location_name(&id.name, scope)
            }
            _ => false,
        }
    }

    /// An address that must be known statically (locks, a compare-exchange's expected
    /// location).
    fn fixed_address(&mut self, address: Address, what: &str, span: Span) -> Option<usize> {
        match address {
            Address::Fixed(loc) => Some(loc),
            Address::Indexed { .. } => {
                self.error(
                    Diagnostic::new(format!("{what} cannot be indexed by a register"), span)
                        .with_label("this address depends on a register")
                        .with_help("index this array with a constant, e.g. `&a[0]`"),
                );
                None
            }
        }
    }

    fn address_offset(
        &mut self,
        base: &ast::Expr,
        offset: u32,
        scope: &ThreadScope,
    ) -> Option<usize> {
        let ExprKind::Name(id) = &base.kind else {
            if let ExprKind::Cast(_, inner) = &base.kind {
                return self.address_offset(inner, offset, scope);
            }
            self.error(
                Diagnostic::new("expected a pointer to a shared location", base.span)
                    .with_help("use a thread parameter such as `x` (for `int* x`)"),
            );
            return None;
        };
        if scope.lookup(&id.name).is_some() {
            self.error(
                Diagnostic::new(
                    format!(
                        "`{}` is a register, not a pointer to a shared location",
                        id.name
                    ),
                    id.span,
                )
                .with_help("registers holding addresses are not supported"),
            );
            return None;
        }
        if let Some(&len) = self.arrays.get(&id.name) {
            if offset >= len {
                self.error(Diagnostic::new(
                    format!(
                        "index {offset} is outside array `{}` of {len} cells",
                        id.name
                    ),
                    base.span,
                ));
                return None;
            }
            return Some(self.location(&format!("{}[{}]", id.name, offset)));
        }
        if !self.is_location_name(&id.name, scope) {
            self.unknown_identifier(id);
            return None;
        }
        if offset != 0 {
            if offset < DEFAULT_ARRAY_CELLS {
                return Some(self.location(&id.name));
            }
            self.error(
                Diagnostic::new(format!("`{}` is not an array", id.name), base.span).with_help(
                    format!(
                        "declare it in the init block, e.g. `int {}[2] = {{0, 0}};`",
                        id.name
                    ),
                ),
            );
            return None;
        }
        Some(self.location(&id.name))
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
                    self.error(
                        Diagnostic::new(
                            format!("`{}` is a pointer to a shared location", id.name),
                            id.span,
                        )
                        .with_label("used as a value")
                        .with_help(format!("to read the location, write `*{}`", id.name)),
                    );
                    None
                } else {
                    self.unknown_identifier(id);
                    None
                }
            }
            ExprKind::Unary(ast::UnaryOp::Deref, _) | ExprKind::Index(_, _) => {
                let loc = self.lvalue_location(e, scope, out)?;
                let dst = scope.temporary();
                out.push(Instr::Load {
                    dst,
                    loc,
                    order: MemOrder::NonAtomic,
                    span: e.span,
                });
                Some(Expr::Reg(dst))
            }
            ExprKind::Unary(ast::UnaryOp::AddrOf, _) => {
                self.error(
                    Diagnostic::new("addresses are not values in nemos", e.span)
                        .with_help("only integers are stored and compared"),
                );
                None
            }
            ExprKind::Unary(op, inner) => {
                let inner = self.lower_expr(inner, scope, out)?;
                // `*` and `&` are memory accesses and addresses, lowered by the arms above.
                UnaryOp::of(*op).map(|op| Expr::Unary(op, Box::new(inner)))
            }
            ExprKind::Binary(op @ (ast::BinaryOp::And | ast::BinaryOp::Or), a, b) => {
                let a = self.lower_expr(a, scope, out)?;
                let mut b_prelude = Vec::new();
                let b = self.lower_expr(b, scope, &mut b_prelude)?;
                if b_prelude.is_empty() {
                    return Some(Expr::Binary((*op).into(), Box::new(a), Box::new(b)));
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
                Some(Expr::Binary((*op).into(), Box::new(a), Box::new(b)))
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
            ExprKind::Call(name, args) => {
                if !returns_memory_value(&name.name) {
                    if known_call(&name.name) {
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

    fn unknown_function(&mut self, name: &ast::Ident) {
        let help = if name.name.starts_with("__atomic") || name.name.starts_with("atomic_") {
            "supported atomics: atomic_load, atomic_store, atomic_exchange, atomic_fetch_add/sub/and/or/xor, atomic_compare_exchange_strong/weak (each also _explicit), atomic_thread_fence"
        } else {
            "supported calls: the C11 atomics, READ_ONCE, WRITE_ONCE, smp_mb, smp_rmb, smp_wmb, smp_load_acquire, smp_store_release, lock/unlock (also mtx_ and spin_), assert"
        };
        self.error(
            Diagnostic::new(format!("unknown function `{}`", name.name), name.span).with_help(help),
        );
    }

    fn arity(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        expected: usize,
        span: Span,
    ) -> bool {
        if args.len() == expected {
            return true;
        }
        self.error(
            Diagnostic::new(
                format!(
                    "`{}` takes {} argument{} but {} {} given",
                    name.name,
                    expected,
                    if expected == 1 { "" } else { "s" },
                    args.len(),
                    if args.len() == 1 { "was" } else { "were" }
                ),
                span,
            )
            .with_label("wrong number of arguments"),
        );
        false
    }

    fn memory_order(
        &mut self,
        arg: &ast::Expr,
        allowed: &[MemOrder],
        what: &str,
    ) -> Option<MemOrder> {
        let name = match &arg.kind {
            ExprKind::Name(id) => id,
            _ => {
                self.error(
                    Diagnostic::new("expected a memory order", arg.span)
                        .with_help("e.g. `memory_order_relaxed` or `memory_order_seq_cst`"),
                );
                return None;
            }
        };
        let Some(order) = MemOrder::from_name(&name.name) else {
            self.error(
                Diagnostic::new(format!("`{}` is not a memory order", name.name), name.span)
                    .with_help("memory orders: memory_order_relaxed, _consume, _acquire, _release, _acq_rel, _seq_cst"),
            );
            return None;
        };
        if !allowed.contains(&order) {
            let allowed_names: Vec<String> = allowed
                .iter()
                .map(|o| format!("memory_order_{}", long_name(*o)))
                .collect();
            self.error(
                Diagnostic::new(
                    format!("memory order `{}` is not allowed for {}", name.name, what),
                    name.span,
                )
                .with_help(format!(
                    "{} takes one of: {}",
                    what,
                    allowed_names.join(", ")
                )),
            );
            return None;
        }
        Some(order)
    }

    /// The location a call's pointer argument denotes (`x`, `&x`, `y + 1`, or `*x` for the
    /// Linux macros that take an lvalue).
    fn pointer_argument(
        &mut self,
        arg: &ast::Expr,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<Address> {
        match &arg.kind {
            ExprKind::Unary(ast::UnaryOp::Deref, inner) => self.address(inner, scope, out),
            _ => self.address(arg, scope, out),
        }
    }

    /// Lower a library call; `dst` receives its value. Returns `None` after an error.
    fn lower_call(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
        dst: Option<RegId>,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<()> {
        use MemOrder::*;
        const LOAD_ORDERS: &[MemOrder] = &[Relaxed, Consume, Acquire, SeqCst];
        const STORE_ORDERS: &[MemOrder] = &[Relaxed, Release, SeqCst];
        const ALL_ORDERS: &[MemOrder] = &[Relaxed, Consume, Acquire, Release, AcqRel, SeqCst];
        let n = name.name.as_str();
        let (base, explicit) = match n.strip_suffix("_explicit") {
            Some(b) => (b, true),
            None => (n, false),
        };
        match base {
            "atomic_load" | "READ_ONCE" | "smp_load_acquire"
                if !(explicit && base != "atomic_load") =>
            {
                let expected = if explicit { 2 } else { 1 };
                if !self.arity(name, args, expected, span) {
                    return None;
                }
                let loc = self.pointer_argument(&args[0], scope, out);
                let order = match base {
                    "READ_ONCE" => Some(Relaxed),
                    "smp_load_acquire" => Some(Acquire),
                    _ if explicit => self.memory_order(&args[1], LOAD_ORDERS, "a load"),
                    _ => Some(SeqCst),
                };
                let (loc, order) = (loc?, order?);
                let dst = dst.unwrap_or_else(|| scope.temporary());
                self.mark_atomic(&loc);
                out.push(Instr::Load {
                    dst,
                    loc,
                    order,
                    span,
                });
            }
            "atomic_store" | "WRITE_ONCE" | "smp_store_release"
                if !(explicit && base != "atomic_store") =>
            {
                let expected = if explicit { 3 } else { 2 };
                if !self.arity(name, args, expected, span) {
                    return None;
                }
                let loc = self.pointer_argument(&args[0], scope, out);
                let value = self.lower_expr(&args[1], scope, out);
                let order = match base {
                    "WRITE_ONCE" => Some(Relaxed),
                    "smp_store_release" => Some(Release),
                    _ if explicit => self.memory_order(&args[2], STORE_ORDERS, "a store"),
                    _ => Some(SeqCst),
                };
                let (loc, value, order) = (loc?, value?, order?);
                self.mark_atomic(&loc);
                out.push(Instr::Store {
                    loc,
                    value,
                    order,
                    span,
                });
            }
            "atomic_exchange" | "atomic_fetch_add" | "atomic_fetch_sub" | "atomic_fetch_and"
            | "atomic_fetch_or" | "atomic_fetch_xor" => {
                let expected = if explicit { 3 } else { 2 };
                if !self.arity(name, args, expected, span) {
                    return None;
                }
                let op = match base {
                    "atomic_exchange" => RmwOp::Exchange,
                    "atomic_fetch_add" => RmwOp::Fetch(BinaryOp::Add),
                    "atomic_fetch_sub" => RmwOp::Fetch(BinaryOp::Sub),
                    "atomic_fetch_and" => RmwOp::Fetch(BinaryOp::BitAnd),
                    "atomic_fetch_or" => RmwOp::Fetch(BinaryOp::BitOr),
                    _ => RmwOp::Fetch(BinaryOp::BitXor),
                };
                let loc = self.pointer_argument(&args[0], scope, out);
                let operand = self.lower_expr(&args[1], scope, out);
                let order = if explicit {
                    self.memory_order(&args[2], ALL_ORDERS, "a read-modify-write")
                } else {
                    Some(SeqCst)
                };
                let (loc, operand, order) = (loc?, operand?, order?);
                self.mark_atomic(&loc);
                out.push(Instr::Rmw {
                    dst,
                    loc,
                    op,
                    operand,
                    order,
                    span,
                });
            }
            "atomic_compare_exchange_strong" | "atomic_compare_exchange_weak" => {
                let expected_args = if explicit { 5 } else { 3 };
                if !self.arity(name, args, expected_args, span) {
                    return None;
                }
                let loc = self.pointer_argument(&args[0], scope, out);
                let expected = self.expected_argument(&args[1], scope, out);
                let desired = self.lower_expr(&args[2], scope, out);
                let (success, failure) = if explicit {
                    (
                        self.memory_order(&args[3], ALL_ORDERS, "a compare-exchange"),
                        self.memory_order(
                            &args[4],
                            LOAD_ORDERS,
                            "the failure of a compare-exchange",
                        ),
                    )
                } else {
                    (Some(SeqCst), Some(SeqCst))
                };
                let (loc, expected, desired, success, failure) =
                    (loc?, expected?, desired?, success?, failure?);
                self.mark_atomic(&loc);
                out.push(Instr::CompareExchange {
                    dst,
                    loc,
                    expected,
                    desired,
                    success,
                    failure,
                    weak: base.ends_with("weak"),
                    span,
                });
            }
            "atomic_thread_fence" | "atomic_signal_fence" if !explicit => {
                if !self.arity(name, args, 1, span) {
                    return None;
                }
                let order = self.memory_order(&args[0], ALL_ORDERS, "a fence")?;
                out.push(Instr::Fence { order, span });
            }
            "smp_mb" | "smp_rmb" | "smp_wmb" if !explicit => {
                if !self.arity(name, args, 0, span) {
                    return None;
                }
                let order = match base {
                    "smp_mb" => SeqCst,
                    "smp_rmb" => Acquire,
                    _ => Release,
                };
                out.push(Instr::Fence { order, span });
            }
            "lock" | "mtx_lock" | "spin_lock" | "unlock" | "mtx_unlock" | "spin_unlock"
                if !explicit =>
            {
                if !self.arity(name, args, 1, span) {
                    return None;
                }
                let loc = self.pointer_argument(&args[0], scope, out)?;
                let loc = self.fixed_address(loc, "a lock", args[0].span)?;
                self.locations[loc].is_lock = true;
                if base.ends_with("unlock") {
                    out.push(Instr::Unlock { loc, span });
                } else {
                    out.push(Instr::Lock { loc, span });
                }
            }
            "assert" if !explicit => {
                if !self.arity(name, args, 1, span) {
                    return None;
                }
                let cond = self.lower_expr(&args[0], scope, out)?;
                out.push(Instr::Assert { cond, span });
            }
            _ => {
                self.unknown_function(name);
                return None;
            }
        }
        Some(())
    }

    fn expected_argument(
        &mut self,
        arg: &ast::Expr,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<Expected> {
        if let ExprKind::Unary(ast::UnaryOp::AddrOf, inner) = &arg.kind {
            if let ExprKind::Name(id) = &inner.kind {
                if let Some(reg) = scope.lookup(&id.name) {
                    return Some(Expected::Register(reg));
                }
            }
        }
        let address = self.address(arg, scope, out)?;
        let loc = self.fixed_address(address, "the expected location", arg.span)?;
        Some(Expected::Location(loc))
    }

    fn mark_atomic(&mut self, address: &Address) {
        for &loc in address.cells() {
            self.locations[loc].declared_atomic = true;
        }
    }

    fn resolve_state_var(
        &mut self,
        var: &ast::StateVar,
        threads: &[ThreadProgram],
    ) -> Option<Observable> {
        match var {
            ast::StateVar::Register { thread, name } => {
                let Some(t) = threads.iter().position(|t| t.index == *thread) else {
                    self.error(Diagnostic::new(
                        format!("there is no thread P{thread}"),
                        name.span,
                    ));
                    return None;
                };
                match threads[t]
                    .registers
                    .iter()
                    .position(|r| r.name == name.name && !r.temporary)
                {
                    Some(reg) => Some(Observable::Reg { thread: t, reg }),
                    None => {
                        self.error(
                            Diagnostic::new(
                                format!("thread P{} has no register `{}`", thread, name.name),
                                name.span,
                            )
                            .with_help("the condition may only name registers the thread declares"),
                        );
                        None
                    }
                }
            }
            ast::StateVar::Location { name, index } => {
                let cell = match index {
                    Some(i) => format!("{}[{}]", name.name, i),
                    None if self.arrays.contains_key(&name.name) => format!("{}[0]", name.name),
                    None => name.name.clone(),
                };
                match self.loc_by_name.get(&cell) {
                    Some(&l) => Some(Observable::Loc(l)),
                    None => {
                        self.error(
                            Diagnostic::new(format!("unknown location `{cell}`"), name.span)
                                .with_help(
                                    "name a location of the init block or a thread parameter",
                                ),
                        );
                        None
                    }
                }
            }
        }
    }

    fn lower_prop(&mut self, prop: &ast::Prop, threads: &[ThreadProgram]) -> Option<StateProp> {
        Some(match prop {
            ast::Prop::True(_) => StateProp::Const(true),
            ast::Prop::False(_) => StateProp::Const(false),
            ast::Prop::Atom {
                var,
                negated,
                value,
                span,
            } => {
                let var = self.resolve_state_var(var, threads);
                let value = match value {
                    ast::AtomValue::Int(v) => Some(self.int_value(*v, *span)),
                    ast::AtomValue::Address(id) => {
                        self.error(
                            Diagnostic::new("conditions on addresses are not supported", id.span)
                                .with_help("compare registers and locations with integers"),
                        );
                        None
                    }
                };
                StateProp::Atom {
                    var: var?,
                    value: value?,
                    negated: *negated,
                }
            }
            ast::Prop::Not(p, _) => StateProp::Not(Box::new(self.lower_prop(p, threads)?)),
            ast::Prop::And(a, b) => {
                let a = self.lower_prop(a, threads);
                let b = self.lower_prop(b, threads);
                StateProp::And(Box::new(a?), Box::new(b?))
            }
            ast::Prop::Or(a, b) => {
                let a = self.lower_prop(a, threads);
                let b = self.lower_prop(b, threads);
                StateProp::Or(Box::new(a?), Box::new(b?))
            }
            ast::Prop::Implies(a, b) => {
                let a = self.lower_prop(a, threads);
                let b = self.lower_prop(b, threads);
                StateProp::Implies(Box::new(a?), Box::new(b?))
            }
        })
    }
}

#[derive(Default)]
struct ThreadScope {
    registers: Vec<Register>,
    by_name: HashMap<String, RegId>,
    params: Vec<String>,
}

impl ThreadScope {
    /// Declaring a name twice (as C allows in nested blocks) reuses the register: herd's final
    /// states name registers, not scopes.
    fn declare(&mut self, name: &str, initial: i32, temporary: bool) -> RegId {
        if let Some(&id) = self.by_name.get(name) {
            return id;
        }
        let id = self.registers.len();
        self.registers.push(Register {
            name: name.to_string(),
            initial,
            temporary,
        });
        self.by_name.insert(name.to_string(), id);
        id
    }

    fn lookup(&self, name: &str) -> Option<RegId> {
        self.by_name.get(name).copied()
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

fn long_name(order: MemOrder) -> &'static str {
    match order {
        MemOrder::NonAtomic => "na",
        MemOrder::Relaxed => "relaxed",
        MemOrder::Consume => "consume",
        MemOrder::Acquire => "acquire",
        MemOrder::Release => "release",
        MemOrder::AcqRel => "acq_rel",
        MemOrder::SeqCst => "seq_cst",
    }
}

/// Calls whose result is a value read from memory.
fn returns_memory_value(name: &str) -> bool {
    matches!(
        name,
        "atomic_load"
            | "atomic_load_explicit"
            | "READ_ONCE"
            | "smp_load_acquire"
            | "atomic_exchange"
            | "atomic_exchange_explicit"
            | "atomic_fetch_add"
            | "atomic_fetch_add_explicit"
            | "atomic_fetch_sub"
            | "atomic_fetch_sub_explicit"
            | "atomic_fetch_and"
            | "atomic_fetch_and_explicit"
            | "atomic_fetch_or"
            | "atomic_fetch_or_explicit"
            | "atomic_fetch_xor"
            | "atomic_fetch_xor_explicit"
            | "atomic_compare_exchange_strong"
            | "atomic_compare_exchange_strong_explicit"
            | "atomic_compare_exchange_weak"
            | "atomic_compare_exchange_weak_explicit"
    )
}

fn known_call(name: &str) -> bool {
    matches!(
        name,
        "atomic_store"
            | "atomic_store_explicit"
            | "WRITE_ONCE"
            | "smp_store_release"
            | "atomic_thread_fence"
            | "atomic_signal_fence"
            | "smp_mb"
            | "smp_rmb"
            | "smp_wmb"
            | "lock"
            | "unlock"
            | "mtx_lock"
            | "mtx_unlock"
            | "spin_lock"
            | "spin_unlock"
            | "assert"
    )
}
