//! The `spec { }` block: the sequential object the test's functions are checked against.
//!
//! It is lowered as a test of its own, reusing all of lowering: the block's declarations are
//! the init block (the object's state) and each of its functions gets a thread that makes one
//! call, with the arguments in registers `spec#arg0, spec#arg1, ...` and the value in
//! `spec#result`. The checker (`events::spec`) runs those threads one call at a time on a
//! symbolic state. Inside the block the state is C's globals: `size = size + 1` reads and
//! writes `size`, which the threads of a litmus test would spell `*size`; lowering rewrites
//! the names into dereferences first.

use std::collections::{HashMap, HashSet};

use super::super::{Instr, Program, Spec, SpecMethod, SpecRule};
use crate::diagnostics::{Diagnostic, InputError, SourceFile, Span};
use crate::syntax::ast::{self, ExprKind, StmtKind, StmtPart, StmtPartMut, UnaryOp};

pub(super) const ARG_PREFIX: &str = "spec#arg";
const RESULT: &str = "spec#result";
const RULE_PREFIX: &str = "spec#rule";

pub(super) fn lower_spec(
    test: &ast::LitmusTest,
    block: &ast::SpecBlock,
    file: &SourceFile,
) -> Result<Spec, InputError> {
    let mut errors = Vec::new();
    let scalars: HashSet<String> = block
        .state
        .iter()
        .filter(|item| item.array_len.is_none())
        .filter_map(|item| match &item.target {
            ast::StateVar::Location {
                name,
                index: None,
                members,
            } if members.is_empty() => Some(name.name.clone()),
            _ => None,
        })
        .collect();
    for item in &block.state {
        if let ast::StateVar::Register { name, .. } = &item.target {
            errors.push(
                Diagnostic::new("a specification's state has no registers", name.span)
                    .with_help("declare the object's state as in C: `int size = 0;`"),
            );
        }
    }
    let tested: HashMap<&str, &ast::Function> = test
        .functions
        .iter()
        .map(|f| (f.name.name.as_str(), f))
        .collect();
    let mut functions = block.functions.clone();
    for function in &mut functions {
        check_method(function, &tested, &mut errors);
        check_no_shadowing(function, &scalars, &mut errors);
        let mut rewrite = |e: &mut ast::Expr| globals_by_value(e, &scalars);
        for stmt in &mut function.body {
            each_expr_mut(stmt, &mut rewrite);
        }
    }
    if !block
        .functions
        .iter()
        .any(|f| tested.contains_key(f.name.name.as_str()))
    {
        errors.push(
            Diagnostic::new(
                "the specification names no function of the test",
                Span::new(block.span.start, block.span.start + 4),
            )
            .with_help("give each method's sequential version the name of the test's function"),
        );
    }
    // A thread's call of a function of the test that the specification does not define
    // would be checked against nothing: a located error (a helper called only from the
    // methods may stay out).
    let specified: HashSet<&str> = block
        .functions
        .iter()
        .map(|f| f.name.name.as_str())
        .collect();
    let mut unspecified: HashSet<String> = HashSet::new();
    for thread in &test.threads {
        for stmt in &thread.body {
            each_call(stmt, &mut |name| {
                if tested.contains_key(name.name.as_str())
                    && !specified.contains(name.name.as_str())
                    && unspecified.insert(name.name.clone())
                {
                    errors.push(
                        Diagnostic::new(
                            format!(
                                "`{}` is called by a thread but is not a method of the specification",
                                name.name
                            ),
                            name.span,
                        )
                        .with_help(format!(
                            "write its sequential version in the `spec` block (`{}`), or call only the specified methods from the threads",
                            name.name
                        )),
                    );
                }
            });
        }
    }
    let methods_by_name: HashMap<&str, &ast::Function> = block
        .functions
        .iter()
        .filter(|f| tested.contains_key(f.name.name.as_str()))
        .map(|f| (f.name.name.as_str(), f))
        .collect();
    let method_count = functions.len();
    for (k, rule) in block.rules.iter().enumerate() {
        if let Some(condition) = rule_condition(k, rule, &methods_by_name, &mut errors) {
            functions.push(condition);
        }
    }
    if !errors.is_empty() {
        return Err(InputError::new(file, errors));
    }
    let arities: Vec<usize> = functions.iter().map(|f| f.params.len()).collect();
    let threads = functions
        .iter()
        .enumerate()
        .map(|(i, f)| caller_thread(i, f))
        .collect();
    let synthetic = ast::LitmusTest {
        arch: test.arch.clone(),
        name: test.name.clone(),
        doc: None,
        metadata: Vec::new(),
        init: block.state.clone(),
        structs: test.structs.clone(),
        functions,
        threads,
        spec: None,
        locations: Vec::new(),
        filter: None,
        condition: None,
    };
    let program = super::lower(&synthetic, file)?;
    let mut errors = Vec::new();
    let mut methods = Vec::new();
    for (thread_index, (function, thread)) in
        block.functions.iter().zip(&program.threads).enumerate()
    {
        unsupported_in_spec(&thread.body, &mut errors);
        if !tested.contains_key(function.name.name.as_str()) {
            continue;
        }
        methods.push(SpecMethod {
            name: function.name.name.clone(),
            thread: thread_index,
            arguments: (0..function.params.len())
                .filter_map(|i| register(&program, thread_index, &format!("{ARG_PREFIX}{i}")))
                .collect(),
            result: register(&program, thread_index, RESULT),
            span: function.name.span,
        });
    }
    if !errors.is_empty() {
        return Err(InputError::new(file, errors));
    }
    let rules = block
        .rules
        .iter()
        .enumerate()
        .map(|(k, rule)| {
            let thread = method_count + k;
            let arity = arities[thread];
            SpecRule {
                before: rule.before.function.name.clone(),
                after: rule.after.function.name.clone(),
                text: file
                    .text
                    .get(rule.span.start..rule.span.end)
                    .unwrap_or_default()
                    .trim_end_matches(';')
                    .to_string(),
                condition: SpecMethod {
                    name: format!("{RULE_PREFIX}{}", k + 1),
                    thread,
                    arguments: (0..arity)
                        .filter_map(|i| register(&program, thread, &format!("{ARG_PREFIX}{i}")))
                        .collect(),
                    result: register(&program, thread, RESULT),
                    span: rule.span,
                },
                binds_before_value: rule.before.result.is_some(),
                binds_after_value: rule.after.result.is_some(),
                span: rule.span,
            }
        })
        .collect();
    Ok(Spec {
        program,
        methods,
        rules,
    })
}

/// The condition of synchronisation rule `k` as a function of the names its patterns bind
/// (see [`SpecRule::condition`]), or `None` after reporting what is wrong with the rule.
fn rule_condition(
    k: usize,
    rule: &ast::SyncRule,
    methods: &HashMap<&str, &ast::Function>,
    errors: &mut Vec<Diagnostic>,
) -> Option<ast::Function> {
    let before = errors.len();
    let mut params: Vec<ast::Ident> = Vec::new();
    for pattern in [&rule.before, &rule.after] {
        let Some(method) = methods.get(pattern.function.name.as_str()) else {
            errors.push(
                Diagnostic::new(
                    format!(
                        "`{}` is not a method of the specification",
                        pattern.function.name
                    ),
                    pattern.function.span,
                )
                .with_help(
                    "a rule relates calls of functions that the test and the `spec` block both define",
                ),
            );
            // Its names are still bound: the condition is checked as written.
            params.extend(pattern.params.iter().chain(&pattern.result).cloned());
            continue;
        };
        if method.params.len() != pattern.params.len() {
            errors.push(
                Diagnostic::new(
                    format!(
                        "`{}` takes {} parameters, the pattern names {}",
                        pattern.function.name,
                        method.params.len(),
                        pattern.params.len()
                    ),
                    pattern.span,
                )
                .with_help("name every argument; `_` names one the rule does not use"),
            );
        }
        params.extend(pattern.params.iter().cloned());
        if let Some(result) = &pattern.result {
            if is_void(method) {
                errors.push(
                    Diagnostic::new(
                        format!("`{}` returns no value", pattern.function.name),
                        result.span,
                    )
                    .with_help("bind a value only of a method that returns one"),
                );
            }
            params.push(result.clone());
        }
    }
    let mut bound: HashSet<&str> = HashSet::new();
    for name in &params {
        if name.name != "_" && !bound.insert(name.name.as_str()) {
            errors.push(
                Diagnostic::new(format!("`{}` is bound twice", name.name), name.span)
                    .with_help("give each argument and value of the rule its own name"),
            );
        }
    }
    if let Some(condition) = &rule.condition {
        check_condition(condition, &bound, errors);
    }
    if errors.len() > before {
        return None;
    }
    let span = rule.span;
    let int = int_type(span);
    let value = rule.condition.clone().unwrap_or(ast::Expr {
        kind: ExprKind::Int(1),
        span,
    });
    Some(ast::Function {
        return_type: int.clone(),
        name: ast::Ident {
            name: format!("{RULE_PREFIX}{}", k + 1),
            span,
        },
        params: params
            .into_iter()
            .enumerate()
            .map(|(i, name)| ast::Param {
                ty: int.clone(),
                name: if name.name == "_" {
                    ast::Ident {
                        name: format!("spec#unused{i}"),
                        span: name.span,
                    }
                } else {
                    name
                },
            })
            .collect(),
        body: vec![ast::Stmt {
            kind: StmtKind::Return(Some(value)),
            span,
        }],
        span,
    })
}

/// A rule's condition is arithmetic on the names the rule binds: no state, no calls.
fn check_condition(e: &ast::Expr, bound: &HashSet<&str>, errors: &mut Vec<Diagnostic>) {
    match &e.kind {
        ExprKind::Name(name) if !bound.contains(name.name.as_str()) => errors.push(
            Diagnostic::new(
                format!(
                    "the rule's condition names `{}`, which it does not bind",
                    name.name
                ),
                name.span,
            )
            .with_help("a condition compares the arguments and values its two patterns name"),
        ),
        ExprKind::Call(name, _) => errors.push(
            Diagnostic::new("a call in a rule's condition", name.span)
                .with_help("a condition compares the arguments and values its two patterns name"),
        ),
        ExprKind::Unary(UnaryOp::Deref | UnaryOp::AddrOf, _)
        | ExprKind::Index(..)
        | ExprKind::Member(..) => errors.push(
            Diagnostic::new("memory in a rule's condition", e.span)
                .with_help("a condition compares the arguments and values its two patterns name"),
        ),
        _ => e
            .children()
            .into_iter()
            .for_each(|child| check_condition(child, bound, errors)),
    }
}

fn register(program: &Program, thread: usize, name: &str) -> Option<usize> {
    program.threads[thread]
        .registers
        .iter()
        .position(|r| r.name == name)
}

/// `int`, located at `span`: the type of the synthetic code written for a specification.
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

/// `void f(..)`: a function without a value.
fn is_void(function: &ast::Function) -> bool {
    function.return_type.base == "void" && function.return_type.pointer_depth == 0
}

/// A method's sequential version has the test function's parameters and kind of result.
fn check_method(
    function: &ast::Function,
    tested: &HashMap<&str, &ast::Function>,
    errors: &mut Vec<Diagnostic>,
) {
    let Some(original) = tested.get(function.name.name.as_str()) else {
        return;
    };
    if original.params.len() != function.params.len() {
        errors.push(
            Diagnostic::new(
                format!(
                    "`{}` takes {} parameters in the test and {} in the specification",
                    function.name.name,
                    original.params.len(),
                    function.params.len()
                ),
                function.name.span,
            )
            .with_help("a call's arguments are passed to the sequential version in order"),
        );
    }
    if is_void(original) != is_void(function) {
        errors.push(
            Diagnostic::new(
                format!(
                    "`{}` returns a value in {} only",
                    function.name.name,
                    if is_void(original) {
                        "the specification"
                    } else {
                        "the test"
                    }
                ),
                function.return_type.span,
            )
            .with_help("the sequential version returns what the method returns"),
        );
    }
}

/// A parameter or local named like a state variable would make `size` mean two things.
fn check_no_shadowing(
    function: &ast::Function,
    scalars: &HashSet<String>,
    errors: &mut Vec<Diagnostic>,
) {
    let mut names: Vec<&ast::Ident> = function.params.iter().map(|p| &p.name).collect();
    fn decls<'a>(stmts: &'a [ast::Stmt], out: &mut Vec<&'a ast::Ident>) {
        for stmt in stmts {
            if let StmtKind::Decl { name, .. } = &stmt.kind {
                out.push(name);
            }
            for part in stmt.parts() {
                if let StmtPart::Stmt(nested) = part {
                    decls(std::slice::from_ref(nested), out);
                }
            }
        }
    }
    decls(&function.body, &mut names);
    for name in names {
        if scalars.contains(&name.name) {
            errors.push(
                Diagnostic::new(
                    format!("`{}` is the specification's state", name.name),
                    name.span,
                )
                .with_label("declared again here")
                .with_help("give the parameter or local another name"),
            );
        }
    }
}

/// `size` of the state, read or written by name, is `*size` in the test's language.
fn globals_by_value(e: &mut ast::Expr, scalars: &HashSet<String>) {
    match &e.kind {
        ExprKind::Name(name) if scalars.contains(&name.name) => {
            let inner = e.clone();
            e.kind = ExprKind::Unary(UnaryOp::Deref, Box::new(inner));
        }
        // `&size` stays the address.
        ExprKind::Unary(UnaryOp::AddrOf, inner) if matches!(&inner.kind, ExprKind::Name(_)) => {}
        _ => e
            .children_mut()
            .into_iter()
            .for_each(|child| globals_by_value(child, scalars)),
    }
}

/// Every expression a statement holds, nested statements included.
/// Calls `f` on the name of every call in `stmt`, nested statements and expressions
/// included.
fn each_call(stmt: &ast::Stmt, f: &mut impl FnMut(&ast::Ident)) {
    fn in_expr(e: &ast::Expr, f: &mut impl FnMut(&ast::Ident)) {
        if let ExprKind::Call(name, _) = &e.kind {
            f(name);
        }
        for child in e.children() {
            in_expr(child, f);
        }
    }
    for part in stmt.parts() {
        match part {
            StmtPart::Expr(e) => in_expr(e, f),
            StmtPart::Stmt(s) => each_call(s, f),
        }
    }
}

fn each_expr_mut(stmt: &mut ast::Stmt, f: &mut impl FnMut(&mut ast::Expr)) {
    for part in stmt.parts_mut() {
        match part {
            StmtPartMut::Expr(e) => f(e),
            StmtPartMut::Stmt(s) => each_expr_mut(s, f),
        }
    }
}

/// `P<i>() { int spec#arg0; ...; int spec#result = f(spec#arg0, ...); }`, located at the
/// function, so that an error in it points there.
fn caller_thread(index: usize, function: &ast::Function) -> ast::Thread {
    let span = function.name.span;
    let ident = |name: String| ast::Ident { name, span };
    let int = int_type(span);
    let expr = |kind| ast::Expr { kind, span };
    let mut body: Vec<ast::Stmt> = (0..function.params.len())
        .map(|i| ast::Stmt {
            kind: StmtKind::Decl {
                ty: int.clone(),
                name: ident(format!("{ARG_PREFIX}{i}")),
                // No value: the checker gives the arguments theirs before the call.
                init: None,
            },
            span,
        })
        .collect();
    let call = expr(ExprKind::Call(
        function.name.clone(),
        (0..function.params.len())
            .map(|i| expr(ExprKind::Name(ident(format!("{ARG_PREFIX}{i}")))))
            .collect(),
    ));
    let returns = !is_void(function);
    body.push(ast::Stmt {
        kind: if returns {
            StmtKind::Decl {
                ty: int,
                name: ident(RESULT.to_string()),
                init: Some(call),
            }
        } else {
            StmtKind::Expr(call)
        },
        span,
    });
    ast::Thread {
        index: index as u32,
        name: ident(format!("P{index}")),
        params: Vec::new(),
        body,
        span: function.span,
    }
}

/// The sequential run is a computation on values: no loops (it would need a bound of its
/// own), no assertions or assumptions, no atomic read-modify-writes (plain C says it).
fn unsupported_in_spec(body: &[Instr], errors: &mut Vec<Diagnostic>) {
    for instr in body {
        let refused = match instr {
            Instr::While { span, .. } => Some(("a loop", span)),
            Instr::Assert { span, .. } | Instr::Check { span, .. } => Some(("`assert`", span)),
            Instr::Assume { span, .. } => Some(("`assume`", span)),
            Instr::CheckIndex { span, .. } => Some(("a register index into an array field", span)),
            Instr::Rmw { span, .. } | Instr::CompareExchange { span, .. } => {
                Some(("a read-modify-write", span))
            }
            _ => None,
        };
        if let Some((what, span)) = refused {
            errors.push(
                Diagnostic::new(format!("{what} in a specification"), *span)
                    .with_help("a method's sequential version is straight-line code with `if`s"),
            );
            continue;
        }
        for block in instr.nested() {
            unsupported_in_spec(block, errors);
        }
    }
}
