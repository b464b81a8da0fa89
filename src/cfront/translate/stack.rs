//! Locals that live in memory: stack objects, as GenMC's allocas.
//!
//! A local variable (or parameter) whose address the function takes (`&data` passed to a
//! function, to `pthread_create`, to an `atomic_*` call, or stored in a pointer), and every
//! local struct, is an object of its own rather than a register. It is written as the
//! litmus dialect writes a heap block: the function begins with `T *data#stack =
//! malloc(cells)`, `data` reads `*data#stack` and `&data` is `data#stack`, and the function
//! frees the block where it returns. That is what GenMC does with an `alloca`
//! (`Interpreter::visitAllocaInst` allocates an automatic block, `freeAllocas` frees the
//! frame's blocks when the function returns), so:
//! - one object per activation: lowering inlines a function at each call and gives each
//!   `malloc` it lowers a block of its own, in each thread;
//! - one object for every iteration of a loop that declares it: clang puts a function's
//!   allocas in its entry block, so the allocation is made once, at the function's entry,
//!   and each iteration's declaration only (re)initialises it;
//! - uninitialised unless the declaration initialises it: GenMC reports a read of an
//!   automatic block that reads its initial value as a read of uninitialised memory, as for
//!   the heap (`isUninitializedAccess`: any dynamic address), and so do the heap's flags;
//! - an access after the function returned (through a pointer that escaped) is an access
//!   to freed memory, and one not ordered after the allocation an access to non-allocated
//!   memory (docs/heap.md).
//!
//! Locals whose address is never taken stay registers. `pthread_exit` in the start routine
//! frees its stack objects as a `return` does (`threads.rs`).

use std::collections::HashSet;

use lang_c::ast as c;
use lang_c::span::Node;
use lang_c::visit::{self, Visit};

use super::{call, derived, expr, ident, int_type, name_expr, stmt, Scope, Translator, TypeInfo};
use crate::diagnostics::Span;
use crate::syntax::ast::{self, ExprKind, StmtKind, UnaryOp};

/// The stack objects of the function being translated.
#[derive(Default)]
pub(super) struct Frame {
    /// The locals (by C name) that are stack objects, found before the body is read.
    names: HashSet<String>,
    /// Their blocks in the order they are first declared: the type of the object, its
    /// cells (the largest of its declarations) and its first declaration.
    blocks: Vec<Block>,
    /// Parameters that are stack objects: stored into their block at the entry.
    params: Vec<(String, Span)>,
    /// The function's return type (for the value kept across the frees).
    pub(super) return_type: Option<TypeInfo>,
    /// The stack objects that are local arrays (`a` is their address: `initlist.rs`).
    arrays: HashSet<String>,
}

impl Frame {
    /// Whether local `name` is a stack object that is an array.
    pub(super) fn is_array(&self, name: &str) -> bool {
        self.arrays.contains(name)
    }

    /// The cells of stack object `name`'s block.
    pub(super) fn cells_of(&self, name: &str) -> Option<i64> {
        self.blocks
            .iter()
            .find(|(b, _, _, _)| b == name)
            .map(|(_, _, cells, _)| *cells)
    }

    /// The block of stack object `name`, of `cells` cells (the largest of its declarations).
    pub(super) fn add_block(&mut self, name: &str, info: &TypeInfo, cells: i64, span: Span) {
        match self.blocks.iter_mut().find(|(b, _, _, _)| b == name) {
            Some(block) => block.2 = block.2.max(cells),
            None => self
                .blocks
                .push((name.to_string(), info.clone(), cells, span)),
        }
    }
}

/// A stack object: its name, type, cells and where it is declared.
type Block = (String, TypeInfo, i64, Span);

/// The register holding the address of stack object `name`.
pub(super) fn stack_register(name: &str) -> String {
    format!("{name}#stack")
}

/// What a function body says about its locals: the names whose address it takes, and its
/// declarations.
#[derive(Default)]
struct Scan<'ast> {
    address_taken: HashSet<String>,
    declarations: Vec<(&'ast c::Declaration, &'ast c::Declarator, String)>,
}

/// The variable an operand of `&` denotes the storage of: `x`, `x.f`, `x.f.g`.
fn addressed_variable(e: &c::Expression) -> Option<&str> {
    match e {
        c::Expression::Identifier(id) => Some(&id.node.name),
        c::Expression::Member(m) if matches!(m.node.operator.node, c::MemberOperator::Direct) => {
            addressed_variable(&m.node.expression.node)
        }
        _ => None,
    }
}

impl<'ast> Visit<'ast> for Scan<'ast> {
    fn visit_unary_operator_expression(
        &mut self,
        u: &'ast c::UnaryOperatorExpression,
        span: &'ast lang_c::span::Span,
    ) {
        if matches!(u.operator.node, c::UnaryOperator::Address) {
            if let Some(name) = addressed_variable(&u.operand.node) {
                self.address_taken.insert(name.to_string());
            }
        }
        visit::visit_unary_operator_expression(self, u, span);
    }

    fn visit_call_expression(
        &mut self,
        call_node: &'ast c::CallExpression,
        span: &'ast lang_c::span::Span,
    ) {
        // The expected value of a compare-exchange may be a register (`&r`): the litmus
        // dialect writes the value it reads back into it.
        let compare_exchange = matches!(&call_node.callee.node,
            c::Expression::Identifier(id) if id.node.name.starts_with("atomic_compare_exchange_")
                || id.node.name == "__atomic_compare_exchange_n");
        if !compare_exchange {
            visit::visit_call_expression(self, call_node, span);
            return;
        }
        for (k, arg) in call_node.arguments.iter().enumerate() {
            let register = matches!(&arg.node, c::Expression::UnaryOperator(u)
                if matches!(u.node.operator.node, c::UnaryOperator::Address)
                    && matches!(u.node.operand.node, c::Expression::Identifier(_)));
            if k == 1 && register {
                continue;
            }
            self.visit_expression(&arg.node, &arg.span);
        }
    }

    fn visit_declaration(&mut self, d: &'ast c::Declaration, span: &'ast lang_c::span::Span) {
        for init_declarator in &d.declarators {
            let declarator = &init_declarator.node.declarator.node;
            if let Some(name) = super::declarator_name(declarator) {
                self.declarations
                    .push((d, declarator, name.node.name.clone()));
            }
        }
        visit::visit_declaration(self, d, span);
    }
}

impl Translator<'_> {
    /// Whether the declaration's type is a struct (not a pointer to one), and whether it is
    /// a thread handle, from the specifiers alone (no struct is defined by asking).
    fn declared_kind(&self, d: &c::Declaration, scope: &Scope) -> (bool, bool) {
        let mut is_struct = false;
        let mut handle = false;
        for s in &d.specifiers {
            if let c::DeclarationSpecifier::TypeSpecifier(t) = &s.node {
                match &t.node {
                    c::TypeSpecifier::Struct(st) => {
                        is_struct = matches!(st.node.kind.node, c::StructKind::Struct)
                    }
                    c::TypeSpecifier::TypedefName(id) => {
                        if let Some(info) = self.typedefs.get(&id.node.name) {
                            handle = info.handle;
                            is_struct = info.base.starts_with("struct ") && info.pointer_depth == 0;
                        }
                    }
                    // `typeof(x) t = x;` (a `SWAP` macro) of a struct the parameters name.
                    c::TypeSpecifier::TypeOf(inner) => {
                        if let Some(info) = self.typeof_info(&inner.node, scope) {
                            is_struct = info.base.starts_with("struct ") && info.pointer_depth == 0;
                        }
                    }
                    _ => {}
                }
            }
        }
        (is_struct, handle)
    }

    /// Start the frame of a function whose body is `body` and whose parameters are in
    /// `scope` (`params`, by name): which locals are stack objects. Returns the enclosing
    /// function's frame, for [`Translator::leave_frame`].
    pub(super) fn enter_frame(
        &mut self,
        body: &Node<c::Statement>,
        params: &[(String, Span)],
        return_type: Option<TypeInfo>,
        scope: &mut Scope,
    ) -> Frame {
        let mut scan = Scan::default();
        scan.visit_statement(&body.node, &body.span);
        let mut frame = Frame {
            return_type,
            ..Frame::default()
        };
        for (d, declarator, name) in &scan.declarations {
            let parts = derived(declarator);
            let pointer = parts
                .iter()
                .any(|p| matches!(p, c::DerivedDeclarator::Pointer(_)));
            let plain = !parts.iter().any(|p| {
                matches!(
                    p,
                    c::DerivedDeclarator::Array(_)
                        | c::DerivedDeclarator::Function(_)
                        | c::DerivedDeclarator::KRFunction(_)
                        | c::DerivedDeclarator::Block(_)
                )
            });
            let (is_struct, handle) = self.declared_kind(d, scope);
            let storage = d.specifiers.iter().any(|s| {
                matches!(&s.node, c::DeclarationSpecifier::StorageClass(class)
                    if !matches!(class.node, c::StorageClassSpecifier::Auto | c::StorageClassSpecifier::Register))
            });
            if handle || storage {
                continue;
            }
            // A local array is a stack object (`initlist.rs`).
            let arrays = parts
                .iter()
                .filter(|p| matches!(p, c::DerivedDeclarator::Array(_)))
                .count();
            let direct = matches!(declarator.kind.node, c::DeclaratorKind::Identifier(_));
            let function = parts.iter().any(|p| {
                matches!(
                    p,
                    c::DerivedDeclarator::Function(_) | c::DerivedDeclarator::KRFunction(_)
                )
            });
            if arrays >= 1 && direct && !function {
                frame.names.insert(name.clone());
                frame.arrays.insert(name.clone());
                continue;
            }
            if !plain {
                continue;
            }
            if (is_struct && !pointer) || scan.address_taken.contains(name) {
                frame.names.insert(name.clone());
            }
        }
        for (name, span) in params {
            let info = scope.locals.get(name).cloned();
            // A struct passed by value is a stack object filled from the caller's (`byval.rs`).
            let by_value = info.as_ref().is_some_and(super::byval::is_struct_value);
            if scan.address_taken.contains(name) || by_value {
                let info = info.unwrap_or_else(|| TypeInfo::scalar("int"));
                let cells = if by_value {
                    self.struct_cells(&info.base, 0).unwrap_or(1)
                } else {
                    1
                };
                frame.names.insert(name.clone());
                frame.blocks.push((name.clone(), info, cells, *span));
                frame.params.push((name.clone(), *span));
                scope.stack.insert(name.clone());
            }
        }
        std::mem::replace(&mut self.stack_frame, frame)
    }

    /// End the function's frame: its blocks are allocated at its entry (parameters stored
    /// into theirs) and freed where it ends without a `return`.
    pub(super) fn leave_frame(
        &mut self,
        enclosing: Frame,
        body: Vec<ast::Stmt>,
        span: Span,
    ) -> Vec<ast::Stmt> {
        let frame = std::mem::replace(&mut self.stack_frame, enclosing);
        if frame.names.is_empty() {
            return body;
        }
        let mut blocks = frame.blocks.clone();
        // A stack object whose declaration was not read (in a branch left out as
        // constant): still allocated and freed, so that every `free` has its block.
        let mut missing: Vec<&String> = frame
            .names
            .iter()
            .filter(|n| !blocks.iter().any(|(b, _, _, _)| b == *n))
            .collect();
        missing.sort();
        for name in missing {
            blocks.push((name.clone(), TypeInfo::scalar("int"), 1, span));
        }
        let mut out = Vec::new();
        for (name, info, cells, at) in &blocks {
            let span = *at;
            let mut pointer = info.clone();
            pointer.pointer_depth += 1;
            out.push(stmt(
                StmtKind::Decl {
                    ty: Self::litmus_type(&pointer, span),
                    name: ident(&stack_register(name), span),
                    init: Some(call(
                        "malloc",
                        vec![expr(ExprKind::Int(*cells), span)],
                        span,
                    )),
                },
                span,
            ));
        }
        for (name, at) in &frame.params {
            if let Some((_, info, cells, _)) = blocks.iter().find(|(b, ..)| b == name) {
                if super::byval::is_struct_value(info) {
                    out.extend(super::byval::copy_in(name, *cells, *at));
                    continue;
                }
            }
            out.push(stmt(
                StmtKind::Assign {
                    lhs: stack_place(name, *at),
                    rhs: name_expr(name, *at),
                },
                *at,
            ));
        }
        let ends_with_return = matches!(
            body.last(),
            Some(ast::Stmt {
                kind: StmtKind::Return(_),
                ..
            })
        );
        out.extend(body);
        if !ends_with_return {
            out.extend(frees(&blocks, span));
        }
        out
    }

    /// Before a `return` of the function: free its stack objects, after the value is
    /// computed (it may read one). Returns the value to return.
    pub(super) fn free_frame(
        &mut self,
        value: Option<ast::Expr>,
        span: Span,
        out: &mut Vec<ast::Stmt>,
    ) -> Option<ast::Expr> {
        if self.stack_frame.names.is_empty() {
            return value;
        }
        let value = value.map(|v| {
            let register = "return#stack";
            let ty = self
                .stack_frame
                .return_type
                .clone()
                .map_or_else(|| int_type(span), |t| Self::litmus_type(&t, span));
            out.push(stmt(
                StmtKind::Decl {
                    ty,
                    name: ident(register, span),
                    init: Some(v),
                },
                span,
            ));
            name_expr(register, span)
        });
        let mut names: Vec<Block> = self
            .stack_frame
            .names
            .iter()
            .map(|n| (n.clone(), TypeInfo::scalar("int"), 1, span))
            .collect();
        names.sort_by(|a, b| a.0.cmp(&b.0));
        out.extend(frees(&names, span));
        value
    }

    /// A local declaration of a stack object, when `name` is one: its block sized, its
    /// initialiser stored. Whether it was.
    pub(super) fn stack_declaration(
        &mut self,
        name: &Node<c::Identifier>,
        info: &TypeInfo,
        init_declarator: &Node<c::InitDeclarator>,
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
    ) -> bool {
        let variable = &name.node.name;
        if !self.stack_frame.names.contains(variable) {
            scope.stack.remove(variable);
            return false;
        }
        if scope.stack.contains(variable) && scope.locals.contains_key(variable) {
            self.refuse(
                &format!("a local that hides another `{variable}` whose address is taken"),
                name.span,
            );
            return true;
        }
        let is_struct = info.base.starts_with("struct ") && info.pointer_depth == 0;
        let cells = if is_struct {
            match self.struct_cells(&info.base, 0) {
                Some(n) => n,
                None => {
                    self.refuse("a local of a recursive struct type", name.span);
                    return true;
                }
            }
        } else {
            1
        };
        match self
            .stack_frame
            .blocks
            .iter_mut()
            .find(|(b, _, _, _)| b == variable)
        {
            Some(block) => block.2 = block.2.max(cells),
            None => self.stack_frame.blocks.push((
                variable.clone(),
                info.clone(),
                cells,
                self.span(init_declarator.span),
            )),
        }
        scope.locals.insert(variable.clone(), info.clone());
        scope.constants.remove(variable);
        scope.stack.insert(variable.clone());
        let span = self.span(init_declarator.span);
        let Some(init) = &init_declarator.node.initializer else {
            return true;
        };
        let value = match &init.node {
            c::Initializer::Expression(e) if !is_struct => self.value(e, scope, out),
            c::Initializer::Expression(source) => {
                // A copy of another struct (`copy.rs`).
                let cells = self.struct_cells(&info.base, 0).unwrap_or(1);
                let at = self.span(init.span);
                let target = name_expr(&stack_register(variable), at);
                self.copy_struct(target, source, cells, scope, out, at);
                None
            }
            c::Initializer::List(_) if is_struct => {
                self.stack_struct_list(variable, info, init, scope, out);
                None
            }
            c::Initializer::List(_) => {
                self.refuse("an initializer list for a local variable", init.span);
                None
            }
        };
        let Some(value) = value else {
            return true;
        };
        let value = super::booleans::stored_as(info, value);
        let place = stack_place(variable, self.span(name.span));
        if info.atomic && info.pointer_depth == 0 || info.pointer_atomic {
            // The initialisation of an atomic object, as `atomic_init`.
            out.push(stmt(
                StmtKind::Expr(call(
                    "atomic_store_explicit",
                    vec![
                        name_expr(&stack_register(variable), span),
                        value,
                        name_expr("memory_order_relaxed", span),
                    ],
                    span,
                )),
                span,
            ));
        } else {
            out.push(stmt(
                StmtKind::Assign {
                    lhs: place,
                    rhs: value,
                },
                span,
            ));
        }
        true
    }
}

/// `*name#stack`: the stack object `name`.
pub(super) fn stack_place(name: &str, span: Span) -> ast::Expr {
    expr(
        ExprKind::Unary(
            UnaryOp::Deref,
            Box::new(name_expr(&stack_register(name), span)),
        ),
        span,
    )
}

fn frees(blocks: &[Block], span: Span) -> Vec<ast::Stmt> {
    blocks
        .iter()
        .map(|(name, _, _, _)| {
            stmt(
                StmtKind::Expr(call(
                    "free",
                    vec![name_expr(&stack_register(name), span)],
                    span,
                )),
                span,
            )
        })
        .collect()
}
