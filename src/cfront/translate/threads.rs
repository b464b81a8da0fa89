//! Threads beyond `main`'s straight line: thread-local variables, thread operations in the
//! functions threads run, `pthread_exit`, `pthread_self`, handles as values.
//!
//! Threads are static in nemos: each creation site instance is one litmus thread. A function
//! whose meaning depends on the thread running it (it names a thread-local variable, starts,
//! joins or ends a thread, asks for its own handle, or calls such a function) is translated
//! once per thread that runs it, as `f#Pk` for thread `k`, with that thread's copies of the
//! thread-local variables (`tid#Pk`, initialised as the declaration says). A function that
//! starts threads or calls `pthread_exit` must run at most once per thread (as its start
//! routine, or from one call outside loops and branches), so that each create is one thread.
//!
//! A thread handle is the thread's number (`main` is 0), which is what a handle stored in
//! memory holds; `pthread_join` on a handle read from memory waits for whichever thread the
//! value names (a join of a value that names no thread the program starts, or the joining
//! thread itself, is GenMC's invalid join: here a failing assertion at the join).

use std::collections::{HashMap, HashSet};

use lang_c::ast as c;
use lang_c::span::Node;
use lang_c::visit::Visit;

use super::{
    acquire_flag, callee_name, declarator_name, exit_flag, expr, ident, if_stmt, int_type,
    name_expr, stmt, Global, Scope, Translator, TypeInfo,
};
use crate::diagnostics::{Diagnostic, Span};
use crate::syntax::ast::{self, BinaryOp, ExprKind, StmtKind, UnaryOp};

/// Calls that make a function depend on the thread running it.
const THREAD_CALLS: &[&str] = &[
    "pthread_create",
    "thrd_create",
    "pthread_join",
    "thrd_join",
    "pthread_exit",
    "thrd_exit",
    "pthread_self",
    "thrd_current",
];

/// What the front end knows of threads beyond `main`'s own statements.
#[derive(Default)]
pub(super) struct ThreadState<'a> {
    /// Every function the program defines, by name.
    pub(super) definitions: HashMap<String, &'a Node<c::FunctionDefinition>>,
    /// Thread-local variables: their kind, type and the initial item of one copy.
    thread_locals: HashMap<String, ((Global, TypeInfo), ast::InitItem)>,
    /// Functions translated once per thread that runs them.
    per_thread: HashSet<String>,
    /// Functions that start threads or end their thread (possibly through a call).
    once: HashSet<String>,
    /// The copies made: (function, thread).
    instances: HashSet<(String, usize)>,
    /// Joins of a handle read from memory: (site, joining thread, function name).
    dynamic_joins: Vec<(Span, usize, String)>,
}

/// The identifiers a function body names (variables, callees, members alike).
#[derive(Default)]
struct Names(HashSet<String>);

impl<'ast> Visit<'ast> for Names {
    fn visit_identifier(&mut self, identifier: &'ast c::Identifier, _: &'ast lang_c::span::Span) {
        self.0.insert(identifier.name.clone());
    }
}

/// Whether a global declaration is `__thread`/`_Thread_local`.
pub(super) fn is_thread_local(d: &c::Declaration) -> bool {
    d.specifiers.iter().any(|s| {
        matches!(&s.node, c::DeclarationSpecifier::StorageClass(class)
            if matches!(class.node, c::StorageClassSpecifier::ThreadLocal))
    })
}

/// The name a thread's copy of a thread-local variable or function has.
fn per_thread_name(name: &str, k: usize) -> String {
    format!("{name}#P{k}")
}

impl<'a> Translator<'a> {
    /// Which functions depend on the thread running them, before any body is translated.
    pub(super) fn analyse_threads(&mut self, unit: &'a c::TranslationUnit) {
        let mut thread_locals = HashSet::new();
        let mut names: HashMap<String, HashSet<String>> = HashMap::new();
        for item in &unit.0 {
            match &item.node {
                c::ExternalDeclaration::Declaration(d) if is_thread_local(&d.node) => {
                    for i in &d.node.declarators {
                        if let Some(name) = declarator_name(&i.node.declarator.node) {
                            thread_locals.insert(name.node.name.clone());
                        }
                    }
                }
                c::ExternalDeclaration::FunctionDefinition(f) => {
                    if let Some(name) = declarator_name(&f.node.declarator.node) {
                        let mut visitor = Names::default();
                        visitor.visit_statement(&f.node.statement.node, &f.node.statement.span);
                        names.insert(name.node.name.clone(), visitor.0);
                        self.threads.definitions.insert(name.node.name.clone(), f);
                    }
                }
                _ => {}
            }
        }
        let mentions = |body: &HashSet<String>, set: &HashSet<String>, calls: &[&str]| {
            calls.iter().any(|c| body.contains(*c)) || body.iter().any(|n| set.contains(n))
        };
        // Least fixed points over the call graph.
        let mut per_thread: HashSet<String> = HashSet::new();
        let mut once: HashSet<String> = HashSet::new();
        loop {
            let mut changed = false;
            for (f, body) in &names {
                if f == "main" {
                    continue;
                }
                if !per_thread.contains(f)
                    && (mentions(body, &per_thread, THREAD_CALLS)
                        || body.iter().any(|n| thread_locals.contains(n)))
                {
                    per_thread.insert(f.clone());
                    changed = true;
                }
                let starts = ["pthread_create", "thrd_create", "pthread_exit", "thrd_exit"];
                if !once.contains(f) && mentions(body, &once, &starts) {
                    once.insert(f.clone());
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        self.threads.per_thread = per_thread;
        self.threads.once = once;
    }

    /// Whether a function is translated per thread (not with the others, in source order).
    pub(super) fn is_per_thread(&self, name: &str) -> bool {
        self.threads.per_thread.contains(name)
    }

    /// A thread-local global: remembered as one copy's item, made per thread when named.
    pub(super) fn thread_local_declared(&mut self, name: &str) {
        if let Some(global) = self.globals.remove(name) {
            if let Some(item) = self.init.pop() {
                self.threads
                    .thread_locals
                    .insert(name.to_string(), (global, item));
            }
        }
    }

    /// The name a global has in this scope: a thread-local variable's is the running
    /// thread's copy (made now if it is the first mention).
    pub(super) fn global_name(&mut self, name: &str, scope: &Scope) -> Option<String> {
        let (global, item) = self.threads.thread_locals.get(name)?.clone();
        let k = scope.thread?;
        let copy = per_thread_name(name, k);
        if !self.globals.contains_key(&copy) {
            let mut item = item;
            if let ast::StateVar::Location { name, .. } = &mut item.target {
                name.name = copy.clone();
            }
            self.init.push(item);
            self.globals.insert(copy.clone(), global);
        }
        Some(copy)
    }

    /// A global's kind and type, a thread-local's included.
    pub(super) fn global_info(&self, name: &str) -> Option<&(Global, TypeInfo)> {
        self.globals.get(name).or_else(|| {
            self.threads
                .thread_locals
                .get(name)
                .map(|(global, _)| global)
        })
    }

    /// The copy of function `id` that thread `k` runs, translated when first needed.
    /// `start`: as thread `k`'s start routine; `conditional`: called inside a loop or a
    /// branch.
    pub(super) fn per_thread_function(
        &mut self,
        id: &Node<c::Identifier>,
        k: usize,
        start: bool,
        conditional: bool,
    ) -> Option<ast::Ident> {
        let name = id.node.name.clone();
        let mut callee = self.function_ident(id);
        callee.name = per_thread_name(&callee.name, k);
        let once = self.threads.once.contains(&name);
        if once && conditional {
            self.errors.push(
                Diagnostic::new(
                    format!("a call of `{name}`, which starts or ends threads, in a loop or branch nemos cannot unroll here"),
                    self.span(id.span),
                )
                .with_help("threads are static in nemos: each create must run at most once per thread"),
            );
            return None;
        }
        if !self.threads.instances.insert((name.clone(), k)) {
            if once {
                self.errors.push(
                    Diagnostic::new(
                        format!("`{name}`, which starts or ends threads, runs more than once in thread P{k}"),
                        self.span(id.span),
                    )
                    .with_help("threads are static in nemos: each create must run at most once per thread"),
                );
                return None;
            }
            return Some(callee);
        }
        let definition = *self.threads.definitions.get(&name)?;
        let scope = Scope {
            thread: Some(k),
            start,
            ..Scope::default()
        };
        self.function(definition, scope, Some(callee.clone()));
        Some(callee)
    }

    /// The argument thread `k` starts with, as the thread reads it: the expression itself
    /// when it names no variable of the creating function, else the value the create
    /// left in `arg#k` (a plain write before the create's release, read after the
    /// thread's acquire: it has one write to read, so it adds no execution).
    pub(super) fn pass_argument(
        &mut self,
        argument: ast::Expr,
        c_argument: &Node<c::Expression>,
        scope: &Scope,
        k: usize,
        span: Span,
        out: &mut Vec<ast::Stmt>,
    ) -> ast::Expr {
        let mut names = Names::default();
        names.visit_expression(&c_argument.node, &c_argument.span);
        let local = names
            .0
            .iter()
            .any(|n| scope.locals.contains_key(n) && !scope.constants.contains_key(n));
        if !local {
            return argument;
        }
        let location = format!("arg#{k}");
        self.init.push(ast::InitItem {
            ty: Some(int_type(span)),
            target: ast::StateVar::Location {
                name: ident(&location, span),
                index: None,
                members: Vec::new(),
            },
            value: Some(ast::InitValue::Int(0)),
            array_len: None,
            span,
        });
        let place = expr(
            ExprKind::Unary(UnaryOp::Deref, Box::new(name_expr(&location, span))),
            span,
        );
        out.push(stmt(
            StmtKind::Assign {
                lhs: place.clone(),
                rhs: argument,
            },
            span,
        ));
        place
    }

    /// `pthread_exit(v)` or `thrd_exit(v)` as a statement: the thread ends there, `v` its
    /// value. Whether `e` is one.
    pub(super) fn exit_statement(
        &mut self,
        e: &Node<c::Expression>,
        scope: &Scope,
        out: &mut Vec<ast::Stmt>,
    ) -> bool {
        let c::Expression::Call(call_node) = &e.node else {
            return false;
        };
        let Some(name @ ("pthread_exit" | "thrd_exit")) = callee_name(call_node) else {
            return false;
        };
        if self.functions.contains(name) {
            return false;
        }
        let span = self.span(e.span);
        let [value] = call_node.node.arguments.as_slice() else {
            self.errors.push(Diagnostic::new(
                format!("`{name}` with the wrong number of arguments"),
                span,
            ));
            return true;
        };
        if scope.main {
            // `main`'s end is its thread's end; its value is not observed.
            out.push(stmt(StmtKind::Return(None), span));
            return true;
        }
        if !scope.start && self.is_helper_final_exit(e) {
            // A helper that never returns (`helper_exit.rs`): its callers end the thread.
            let _ = self.free_frame(None, span, out);
            out.push(stmt(StmtKind::Return(None), span));
            return true;
        }
        if !scope.start {
            self.refuse(
                &format!("`{name}` outside the function a thread starts with (or `main`), other than as the last statement of a `void` function"),
                call_node.span,
            );
            return true;
        }
        // The start routine's `return v`: the thread's end, `v` what a join gives; its
        // stack objects are freed there, as at a `return` (GenMC frees them at the exit).
        if let Some(value) = self.value(value, scope, out) {
            let value = self.free_frame(Some(value), span, out);
            out.push(stmt(StmtKind::Return(value), span));
        }
        true
    }

    /// `pthread_self()`/`thrd_current()`: the running thread's number.
    pub(super) fn self_handle(
        &mut self,
        name: &str,
        scope: &Scope,
        span: Span,
    ) -> Option<ast::Expr> {
        match scope.thread {
            Some(k) => Some(expr(ExprKind::Int(k as i64), span)),
            None => {
                self.errors
                    .push(Diagnostic::new(format!("`{name}` outside a thread"), span));
                None
            }
        }
    }

    /// Whether a handle expression is one nemos follows while translating (`t`, `&t[i]`,
    /// `tid + i`), rather than a value to read (a handle kept in memory).
    pub(super) fn static_handle(&self, e: &Node<c::Expression>, scope: &Scope) -> bool {
        match &e.node {
            c::Expression::Identifier(id) => {
                let name = &id.node.name;
                scope.local_handles.contains(name)
                    || !(scope.locals.contains_key(name)
                        || self.globals.contains_key(name)
                        || self.threads.thread_locals.contains_key(name))
            }
            c::Expression::UnaryOperator(u)
                if matches!(u.node.operator.node, c::UnaryOperator::Address) =>
            {
                self.static_handle(&u.node.operand, scope)
            }
            c::Expression::UnaryOperator(u)
                if matches!(u.node.operator.node, c::UnaryOperator::Indirection) =>
            {
                false
            }
            c::Expression::Cast(cast) => self.static_handle(&cast.node.expression, scope),
            c::Expression::BinaryOperator(b)
                if matches!(
                    b.node.operator.node,
                    c::BinaryOperator::Index | c::BinaryOperator::Plus
                ) =>
            {
                self.static_handle(&b.node.lhs, scope)
            }
            c::Expression::Member(_) | c::Expression::Call(_) => false,
            _ => true,
        }
    }

    /// The key of a handle named in this scope: a local handle's is its thread's own.
    pub(super) fn handle_name(&self, name: &str, scope: &Scope) -> String {
        match scope.thread {
            Some(k) if k > 0 && scope.local_handles.contains(name) => format!("P{k}:{name}"),
            _ => name.to_string(),
        }
    }

    /// A handle's value where the program uses it as a value (`pid = t1`): its thread's
    /// number.
    pub(super) fn handle_value(
        &mut self,
        e: &Node<c::Expression>,
        scope: &Scope,
    ) -> Option<ast::Expr> {
        let key = self.handle_key(e, scope)?;
        match self.handles.get(&key) {
            Some(&k) => Some(expr(ExprKind::Int(k as i64), self.span(e.span))),
            None => {
                self.errors.push(Diagnostic::new(
                    format!("`{key}` holds no thread started before this use"),
                    self.span(e.span),
                ));
                None
            }
        }
    }

    /// `pthread_join(h, _)` where `h` is read from memory: `join#N(h)`, a function made at
    /// the end, when every thread is known, that waits for the thread `h` names.
    pub(super) fn dynamic_join(
        &mut self,
        handle: &Node<c::Expression>,
        scope: &Scope,
        span: Span,
        out: &mut Vec<ast::Stmt>,
    ) {
        let Some(value) = self.value(handle, scope, out) else {
            return;
        };
        let name = format!("join#{}", self.threads.dynamic_joins.len() + 1);
        self.threads
            .dynamic_joins
            .push((span, scope.thread.unwrap_or(0), name.clone()));
        out.push(stmt(
            StmtKind::Expr(expr(ExprKind::Call(ident(&name, span), vec![value]), span)),
            span,
        ));
    }

    /// The functions of the dynamic joins, now that every thread is known; every thread
    /// one of them may wait for announces its end.
    pub(super) fn finish_threads(&mut self) {
        let joins = std::mem::take(&mut self.threads.dynamic_joins);
        if joins.is_empty() {
            return;
        }
        for spawn in &mut self.spawns {
            spawn.joined = true;
        }
        for (span, joiner, name) in joins {
            let id = name_expr("id", span);
            // The last resort: no thread of the program has this handle.
            let invalid = expr(ExprKind::Int(0), span);
            let mut chain = vec![stmt(
                StmtKind::Expr(expr(
                    ExprKind::Call(ident("assert", span), vec![invalid]),
                    span,
                )),
                span,
            )];
            for k in (1..=self.spawns.len()).rev() {
                if k == joiner {
                    continue;
                }
                let test = expr(
                    ExprKind::Binary(
                        BinaryOp::Eq,
                        Box::new(id.clone()),
                        Box::new(expr(ExprKind::Int(k as i64), span)),
                    ),
                    span,
                );
                let wait: Vec<ast::Stmt> =
                    acquire_flag(&exit_flag(k), &format!("{name}.seen{k}"), span).into();
                chain = vec![if_stmt(test, wait, Some(chain), span)];
            }
            self.litmus_functions.push(ast::Function {
                return_type: ast::Type {
                    base: "void".to_string(),
                    ..int_type(span)
                },
                name: ident(&name, span),
                params: vec![ast::Param {
                    ty: int_type(span),
                    name: ident("id", span),
                }],
                body: chain,
                span,
            });
        }
    }

    /// Where `pthread_join(h, &r)` puts the thread's value: `r` (a local) or `*p`.
    pub(super) fn join_result(
        &mut self,
        result: &Node<c::Expression>,
        scope: &Scope,
    ) -> Option<ast::Expr> {
        let span = self.span(result.span);
        if let c::Expression::UnaryOperator(u) = &result.node {
            if matches!(u.node.operator.node, c::UnaryOperator::Address) {
                return self.place(&u.node.operand, scope).map(|(place, _)| place);
            }
        }
        let pointer = self.expression(result, scope)?;
        Some(expr(
            ExprKind::Unary(UnaryOp::Deref, Box::new(pointer)),
            span,
        ))
    }
}

/// The location thread `k`'s value is kept in for a join that reads it.
pub(super) fn result_location(k: usize) -> String {
    format!("ret#{k}")
}
