//! Functions defined in the test. Each call is inlined where it is made: the arguments are
//! evaluated in the caller, left to right, the body is lowered again with registers of its
//! own (`pop#2.v`: the `v` of the second inlining of `pop` in this thread), and
//! `Instr::CallEnter`/`Instr::CallExit` mark where the call's instructions begin and end.
//! A pointer parameter given an address lowering knows (a location or an array, plus an
//! offset: a constant, or a register frozen when the call begins) is bound to it, and its
//! accesses are fixed or indexed ones; given a pointer known only when the program runs
//! (a register, a loaded pointer), it is a register like an `int` parameter, and its
//! accesses go through `Address::Pointer`. A recursive call is inlined to a depth, and
//! deeper calls are cut as loops are at the bound (`recursion.rs`).

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::{control, recursion, to_i32, type_is_atomic, Lowerer, ThreadScope, MAX_INDEXED_CELLS};
use crate::diagnostics::{Diagnostic, SourceFile, Span};
use crate::program::library;
use crate::program::{
    Address, BinaryOp, CallArg, CallSite, Expr, Instr, LocId, PointerOffset, RegId,
};
use crate::syntax::ast::{self, ExprKind, StmtPart};

/// A function definition, as lowering needs it at each call.
pub(super) struct FunctionDef {
    pub ast: ast::Function,
    /// Its end can be reached without a `return`: its value is undefined then, an error
    /// where the value is used.
    pub falls_off: bool,
    /// The line it is defined on, for messages.
    pub line: usize,
}

/// What a pointer parameter denotes in the body of one inlined call.
#[derive(Clone, Debug)]
pub(super) struct Binding {
    /// The location or array, by name.
    base: String,
    offset: PointerOffset,
}

/// The function whose inlined body is being lowered.
#[derive(Clone, Debug)]
pub(super) struct Frame {
    pub function: String,
    /// Prefix of the names of its registers: `pop#2.`.
    pub prefix: String,
    pub pointers: HashMap<String, Binding>,
    /// Where `return e;` puts `e`; `None` in a `void` function.
    pub ret: Option<RegId>,
}

/// What a pointer expression denotes: a location or array and a cell offset into it.
enum Offset {
    Const(i64),
    Expr(Expr),
}

impl Lowerer {
    /// Records the function definitions, reporting duplicates, names that are taken and
    /// recursion.
    pub(super) fn declare_functions(&mut self, test: &ast::LitmusTest, file: &SourceFile) {
        for thread in &test.threads {
            for param in &thread.params {
                self.global_names.insert(param.name.name.clone());
            }
        }
        self.global_names.extend(self.loc_by_name.keys().cloned());
        let mut first: HashMap<&str, Span> = HashMap::new();
        for function in &test.functions {
            let name = &function.name;
            if let Some(span) = first.get(name.name.as_str()) {
                let (line, _) = file.line_col(span.start);
                self.error(
                    Diagnostic::new(
                        format!("function `{}` is defined twice", name.name),
                        name.span,
                    )
                    .with_label("second definition")
                    .with_help(format!("the first definition is on line {line}")),
                );
                continue;
            }
            first.insert(&name.name, name.span);
            if library::lookup(&name.name).is_some() {
                self.error(
                    Diagnostic::new(
                        format!("`{}` is the name of a library call", name.name),
                        name.span,
                    )
                    .with_label("cannot be redefined")
                    .with_help(
                        "nemos gives library calls their meaning itself; rename the function",
                    ),
                );
                self.refused.insert(name.name.clone());
                continue;
            }
            if is_thread_name(&name.name) {
                self.error(
                    Diagnostic::new(
                        format!("`{}` is the name of a thread", name.name),
                        name.span,
                    )
                    .with_label("not a function name")
                    .with_help("threads are named `P0`, `P1`, ...; rename the function"),
                );
                self.refused.insert(name.name.clone());
                continue;
            }
            self.check_signature(function);
            self.functions.insert(
                name.name.clone(),
                Rc::new(FunctionDef {
                    ast: function.clone(),
                    falls_off: (function.return_type.base != "void"
                        || function.return_type.pointer_depth > 0)
                        && control::completes(&function.body),
                    line: file.line_col(function.span.start).0,
                }),
            );
        }
        self.report_recursion(test);
    }

    fn check_signature(&mut self, function: &ast::Function) {
        let mut seen = HashSet::new();
        for param in &function.params {
            if !seen.insert(param.name.name.as_str()) {
                self.error(Diagnostic::new(
                    format!("parameter `{}` is declared twice", param.name.name),
                    param.name.span,
                ));
            }
        }
    }

    /// Finds the functions on a cycle of the call graph, whose calls are inlined to a
    /// depth (`recursion.rs`), and that depth.
    fn report_recursion(&mut self, test: &ast::LitmusTest) {
        let mut graph: HashMap<&str, Vec<(&str, Span)>> = HashMap::new();
        for function in &test.functions {
            let mut callees = Vec::new();
            calls_in_stmts(&function.body, &mut callees);
            callees.retain(|(name, _)| self.functions.contains_key(*name));
            graph.entry(&function.name.name).or_insert(callees);
        }
        let mut names: Vec<&str> = graph.keys().copied().collect();
        names.sort_by_key(|n| self.functions.get(*n).map(|f| f.ast.span.start));
        let mut done: HashSet<&str> = HashSet::new();
        let mut cycles: Vec<(Vec<&str>, Span)> = Vec::new();
        for &start in &names {
            let mut path = vec![start];
            find_cycles(&graph, &mut path, &mut done, &mut cycles);
            done.insert(start);
        }
        for (cycle, _) in cycles {
            for name in &cycle {
                self.recursive.insert((*name).to_string());
            }
        }
        self.recursion.limit =
            recursion::depth_limit(&graph, &self.recursive, self.recursion.limit);
    }

    /// Lowers the functions no thread called, so that their errors are reported too; what
    /// they would add to the program is thrown away.
    pub(super) fn check_uncalled_functions(&mut self, test: &ast::LitmusTest) {
        for function in &test.functions {
            let name = &function.name.name;
            if self.called.contains(name) || !self.functions.contains_key(name) {
                continue;
            }
            let saved = (
                self.locations.clone(),
                self.loc_by_name.clone(),
                self.arrays.clone(),
            );
            let mut scope = ThreadScope::default();
            let mut args = Vec::new();
            for param in &function.params {
                let id = &param.name;
                if param.ty.pointer_depth > 0 {
                    // An array as large as any: the body may index it as it likes.
                    self.arrays
                        .insert(id.name.clone(), MAX_INDEXED_CELLS as u32);
                    args.push(ast::Expr {
                        kind: ExprKind::Name(id.clone()),
                        span: id.span,
                    });
                } else {
                    scope.declare(&id.name, 0, false);
                    args.push(ast::Expr {
                        kind: ExprKind::Name(id.clone()),
                        span: id.span,
                    });
                }
            }
            let mut out = Vec::new();
            self.inline_call(&function.name, &args, function.span, &mut scope, &mut out);
            self.locations = saved.0;
            self.loc_by_name = saved.1;
            self.arrays = saved.2;
        }
    }

    pub(super) fn is_function(&self, name: &str) -> bool {
        self.functions.contains_key(name)
    }

    /// A call whose value is used: the register holding it.
    pub(super) fn call_value(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<Expr> {
        let def = self.functions.get(&name.name).cloned()?;
        if def.ast.return_type.base == "void" && def.ast.return_type.pointer_depth == 0 {
            self.error(
                Diagnostic::new(format!("`{}` returns no value", name.name), span)
                    .with_label("its value is used here")
                    .with_help(format!(
                        "`{}` is declared `void`; call it as a statement",
                        name.name
                    )),
            );
            return None;
        }
        if def.falls_off {
            let line = def.line;
            self.error(
                Diagnostic::new(
                    format!(
                        "`{}` can end without `return`, and its value is used here",
                        name.name
                    ),
                    span,
                )
                .with_label("the value may be undefined")
                .with_help(format!(
                    "C leaves the value undefined when the end of `{}` (line {line}) is reached; end every path with `return`",
                    name.name
                )),
            );
            return None;
        }
        let ret = self.inline_call(name, args, span, scope, out)?;
        ret.map(Expr::Reg)
    }

    /// Inlines a call of a function of the test into `out`: the arguments' evaluation,
    /// `CallEnter`, the body, `CallExit`. Returns the register of its value (`None` for a
    /// `void` function), or `None` after an error.
    pub(super) fn inline_call(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<Option<RegId>> {
        let def = self.functions.get(&name.name).cloned()?;
        self.called.insert(name.name.clone());
        let function = &def.ast;
        if !self.arity(name, args, function.params.len(), span) {
            return None;
        }
        // Arguments, left to right, in the caller (C leaves the order unspecified).
        let mut values: Vec<Option<Expr>> = Vec::new();
        let mut pointers: Vec<Option<(String, Offset)>> = Vec::new();
        for (param, arg) in function.params.iter().zip(args) {
            if param.ty.pointer_depth == 0 || !self.is_static_pointer(arg, scope) {
                // A value, or a pointer known only when the program runs (a register, a
                // pointer loaded from memory): a register of the call holds it.
                values.push(self.lower_expr(arg, scope, out));
                pointers.push(None);
            } else {
                let pointer = self.pointer_value(arg, param, function, scope, out);
                if pointer.is_none() {
                    values.push(None);
                    pointers.push(None);
                    continue;
                }
                values.push(Some(Expr::Const(0)));
                pointers.push(pointer);
            }
        }
        if values.iter().any(Option::is_none) {
            return None;
        }
        // A recursive call past the depth lowering goes to is cut whatever the bound: its
        // body is not inlined (`recursion.rs`).
        let depth = self.recursion.depth_of(&name.name);
        let recursion = if depth > self.recursion.limit {
            recursion::CUT_ALWAYS
        } else {
            depth
        };
        let number = {
            let n = scope.inlined.entry(name.name.clone()).or_insert(0);
            *n += 1;
            *n
        };
        let prefix = format!("{}#{}.", name.name, number);
        let outer = scope.enter_frame();
        let mut bind = Vec::new();
        let mut call_args = Vec::new();
        let mut bindings = HashMap::new();
        for ((param, value), pointer) in function.params.iter().zip(values).zip(pointers) {
            match pointer {
                None => {
                    let reg = scope.fresh(&format!("{prefix}{}", param.name.name));
                    scope.by_name.insert(param.name.name.clone(), reg);
                    bind.push((reg, value.unwrap_or(Expr::Const(0))));
                    call_args.push(CallArg::Value {
                        param: param.name.name.clone(),
                        reg,
                    });
                }
                Some((base, offset)) => {
                    let offset = match offset {
                        Offset::Const(k) => PointerOffset::Const(k as u32),
                        Offset::Expr(e) => {
                            let reg = scope.fresh(&format!("{prefix}&{}", param.name.name));
                            bind.push((reg, e));
                            PointerOffset::Reg(reg)
                        }
                    };
                    if type_is_atomic(&param.ty) {
                        for loc in self.object_cells(&base) {
                            self.locations[loc].declared_atomic = true;
                        }
                    }
                    call_args.push(CallArg::Pointer {
                        param: param.name.name.clone(),
                        base: base.clone(),
                        offset: offset.clone(),
                    });
                    bindings.insert(param.name.name.clone(), Binding { base, offset });
                }
            }
        }
        let ret = (function.return_type.base != "void" || function.return_type.pointer_depth > 0)
            .then(|| scope.fresh(&format!("{prefix}return")));
        bind.extend(ret.map(|r| (r, Expr::Const(0))));
        scope.exits = control::Exits::of_function(&function.body, scope);
        bind.extend(scope.exits.return_flag().map(|r| (r, Expr::Const(0))));
        scope.frame = Some(Frame {
            function: name.name.clone(),
            prefix,
            pointers: bindings,
            ret,
        });
        let call = scope.calls.len();
        scope.calls.push(CallSite {
            function: name.name.clone(),
            number,
            args: call_args,
            ret,
            span,
            recursion,
        });
        out.push(Instr::CallEnter { call, bind, span });
        if recursion != recursion::CUT_ALWAYS {
            self.recursion.enter(&name.name);
            self.lower_stmts(&function.body, scope, out);
            self.recursion.leave();
        }
        out.push(Instr::CallExit { call, span });
        scope.leave_frame(outer);
        Some(ret)
    }

    /// The address a pointer argument denotes, as a location or array and an offset.
    fn pointer_value(
        &mut self,
        arg: &ast::Expr,
        param: &ast::Param,
        function: &ast::Function,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<(String, Offset)> {
        let not_an_address = |this: &mut Lowerer, what: String, span: Span| {
            this.error(
                Diagnostic::new(
                    format!(
                        "parameter `{}` of `{}` needs an address, and {what}",
                        param.name.name, function.name.name
                    ),
                    span,
                )
                .with_label("not an address")
                .with_help(
                    "pass a location (`x`, `&x`), an array cell (`&a[i]`, `a + i`), a pointer parameter or a register holding a pointer",
                ),
            );
            None
        };
        match &arg.kind {
            ExprKind::Cast(_, inner) => self.pointer_value(inner, param, function, scope, out),
            ExprKind::Name(id) => {
                if let Some(binding) = scope.binding(&id.name) {
                    let offset = match binding.offset {
                        PointerOffset::Const(k) => Offset::Const(i64::from(k)),
                        PointerOffset::Reg(r) => Offset::Expr(Expr::Reg(r)),
                    };
                    return Some((binding.base, offset));
                }
                if scope.lookup(&id.name).is_some() {
                    return not_an_address(self, format!("`{}` is a register", id.name), arg.span);
                }
                if !self.is_location_name(&id.name, scope) {
                    self.unknown_identifier(id);
                    return None;
                }
                self.object_cells(&id.name);
                Some((id.name.clone(), Offset::Const(0)))
            }
            ExprKind::Unary(ast::UnaryOp::AddrOf, inner) => match &inner.kind {
                ExprKind::Name(id) if scope.lookup(&id.name).is_some() => {
                    self.register_address(id);
                    None
                }
                ExprKind::Name(id) if scope.binding(&id.name).is_some() => not_an_address(
                    self,
                    format!("`&{}` is the address of a pointer", id.name),
                    arg.span,
                ),
                ExprKind::Name(_) => self.pointer_value(inner, param, function, scope, out),
                ExprKind::Index(base, index) => {
                    self.offset_pointer(base, index, arg.span, param, function, scope, out)
                }
                _ => not_an_address(self, "this expression has no address".to_string(), arg.span),
            },
            ExprKind::Binary(ast::BinaryOp::Add, a, b) => {
                if self.names_location(b, scope) && !self.names_location(a, scope) {
                    self.offset_pointer(b, a, arg.span, param, function, scope, out)
                } else {
                    self.offset_pointer(a, b, arg.span, param, function, scope, out)
                }
            }
            _ => not_an_address(self, "this argument is not one".to_string(), arg.span),
        }
    }

    /// `e` denotes an address known before the program runs (a location, an array cell, a
    /// pointer parameter bound to one), which the call binds without a register. A
    /// register's address and unknown names count as such, for their errors.
    fn is_static_pointer(&self, e: &ast::Expr, scope: &ThreadScope) -> bool {
        match &e.kind {
            ExprKind::Cast(_, inner) => self.is_static_pointer(inner, scope),
            ExprKind::Name(id) => scope.lookup(&id.name).is_none(),
            ExprKind::Unary(ast::UnaryOp::AddrOf, inner) => match &inner.kind {
                ExprKind::Name(_) => true,
                ExprKind::Index(base, _) => self.is_static_pointer(base, scope),
                _ => false,
            },
            ExprKind::Binary(ast::BinaryOp::Add, a, b) => {
                self.is_static_pointer(a, scope) || self.is_static_pointer(b, scope)
            }
            _ => false,
        }
    }

    /// `&base[index]` or `base + index` as a pointer argument.
    #[allow(clippy::too_many_arguments)]
    fn offset_pointer(
        &mut self,
        base: &ast::Expr,
        index: &ast::Expr,
        span: Span,
        param: &ast::Param,
        function: &ast::Function,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<(String, Offset)> {
        let (name, offset) = self.pointer_value(base, param, function, scope, out)?;
        let len = self.object_cells(&name).len() as i64;
        let offset = match (offset, super::constant_value(index)) {
            (Offset::Const(k), Some(i)) => {
                let at = k + i;
                if !(0..len).contains(&at) {
                    self.error(
                        Diagnostic::new(
                            format!("cell {at} is outside `{name}`, which has {len}"),
                            span,
                        )
                        .with_label("no such cell"),
                    );
                    return None;
                }
                Offset::Const(at)
            }
            (offset, _) => {
                let index = self.lower_expr(index, scope, out)?;
                Offset::Expr(add(offset_expr(offset), index))
            }
        };
        Some((name, offset))
    }

    /// `&r0` with `r0` a register.
    pub(super) fn register_address(&mut self, id: &ast::Ident) {
        self.error(
            Diagnostic::new(
                format!("cannot take the address of register `{}`", id.name),
                id.span,
            )
            .with_label("a register has no address")
            .with_help(
                "registers are private to their thread; share a value through a location of the init block, e.g. `{ int v = 0; }`",
            ),
        );
    }

    /// The cells of a location or an array, by name.
    fn object_cells(&mut self, name: &str) -> Vec<LocId> {
        match self.arrays.get(name) {
            Some(&len) => (0..len)
                .map(|i| self.location(&format!("{name}[{i}]")))
                .collect(),
            None => vec![self.location(name)],
        }
    }

    /// The address `binding + index` (cells), for an access through a pointer parameter:
    /// fixed when the offset and the index are constants, indexed otherwise.
    pub(super) fn bound_address(
        &mut self,
        id: &ast::Ident,
        index: Option<&ast::Expr>,
        span: Span,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<Address> {
        let binding = scope.binding(&id.name)?;
        let cells = self.object_cells(&binding.base);
        let constant = match index {
            None => Some(0),
            Some(index) => super::constant_value(index),
        };
        match (&binding.offset, constant) {
            (PointerOffset::Const(k), Some(i)) => {
                let at = i64::from(*k) + i;
                match usize::try_from(at).ok().and_then(|at| cells.get(at)) {
                    Some(&loc) => Some(Address::Fixed(loc)),
                    None => {
                        self.error(
                            Diagnostic::new(
                                format!(
                                    "cell {at} is outside `{}`, which has {} (`{}` points to its cell {k})",
                                    binding.base,
                                    cells.len(),
                                    id.name
                                ),
                                span,
                            )
                            .with_label("no such cell"),
                        );
                        None
                    }
                }
            }
            (offset, _) => {
                if cells.len() > MAX_INDEXED_CELLS {
                    self.error(Diagnostic::new(
                        format!(
                            "a register-indexed access into `{}`, an array of {} cells",
                            binding.base,
                            cells.len()
                        ),
                        span,
                    ));
                    return None;
                }
                let offset = match offset {
                    PointerOffset::Const(k) => Expr::Const(to_i32(i64::from(*k)).unwrap_or(0)),
                    PointerOffset::Reg(r) => Expr::Reg(*r),
                };
                let index = match index {
                    Some(index) => add(offset, self.lower_expr(index, scope, out)?),
                    None => offset,
                };
                Some(Address::Indexed { cells, index })
            }
        }
    }
}

fn offset_expr(offset: Offset) -> Expr {
    match offset {
        Offset::Const(k) => Expr::Const(to_i32(k).unwrap_or(0)),
        Offset::Expr(e) => e,
    }
}

/// `a + b`, without the `0 +`.
fn add(a: Expr, b: Expr) -> Expr {
    match (a, b) {
        (Expr::Const(0), b) => b,
        (a, Expr::Const(0)) => a,
        (a, b) => Expr::Binary(BinaryOp::Add, Box::new(a), Box::new(b)),
    }
}

fn is_thread_name(name: &str) -> bool {
    name.strip_prefix('P')
        .is_some_and(|digits| !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()))
}

/// Depth-first search from the last function of `path`; each cycle found is recorded once
/// (functions in `done` were searched from already).
fn find_cycles<'a>(
    graph: &HashMap<&'a str, Vec<(&'a str, Span)>>,
    path: &mut Vec<&'a str>,
    done: &mut HashSet<&'a str>,
    cycles: &mut Vec<(Vec<&'a str>, Span)>,
) {
    let Some(&current) = path.last() else {
        return;
    };
    for &(callee, span) in graph.get(current).map(Vec::as_slice).unwrap_or_default() {
        if done.contains(callee) {
            continue;
        }
        if callee == path[0] {
            if !cycles.iter().any(|(c, _)| same_cycle(c, path)) {
                cycles.push((path.clone(), span));
            }
        } else if !path.contains(&callee) {
            path.push(callee);
            find_cycles(graph, path, done, cycles);
            path.pop();
        }
    }
}

fn same_cycle(a: &[&str], b: &[&str]) -> bool {
    a.len() == b.len() && (0..a.len()).any(|r| a.iter().cycle().skip(r).take(a.len()).eq(b.iter()))
}

fn calls_in_stmts<'a>(stmts: &'a [ast::Stmt], out: &mut Vec<(&'a str, Span)>) {
    for stmt in stmts {
        for part in stmt.parts() {
            match part {
                StmtPart::Expr(e) => calls_in_expr(e, out),
                StmtPart::Stmt(s) => calls_in_stmts(std::slice::from_ref(s), out),
            }
        }
    }
}

fn calls_in_expr<'a>(e: &'a ast::Expr, out: &mut Vec<(&'a str, Span)>) {
    if let ExprKind::Call(name, _) = &e.kind {
        out.push((&name.name, e.span));
    }
    for child in e.children() {
        calls_in_expr(child, out);
    }
}
