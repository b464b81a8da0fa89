//! Function pointers as values: `p = &f;`, `s.q = f;`, `g = &f;`, and calls through them,
//! `(*p)(i)`, `s.q(i)`, `m->op(m)`, as GenMC's `no-inline` writes them.
//!
//! nemos inlines every call, so a call through a pointer is a choice among inlined bodies:
//! the functions the pointer can hold. A function's value is a code of its own
//! ([`FUNCTION_CODE`] plus its place among the functions whose address the program
//! takes: a nonzero integer no two functions share, so `p == &f` and `p != NULL` compare
//! as C compares them). The candidates of a call are the program's functions whose
//! address it takes anywhere (named other than as a callee or as the start routine of a
//! thread create) with as many parameters as the call has arguments (C11 6.5.2.2p9: a
//! call through a pointer of another type is undefined). The call is hoisted
//! (`effects.rs`):
//!
//! ```c
//! call#N = p;                                   // the pointer, read once
//! if (call#N == code(f1)) call#Nv = f1(args);
//! else if (call#N == code(f2)) call#Nv = f2(args);
//! else assert(0);                               // a pointer to no candidate
//! ```
//!
//! so only the body the pointer selects runs. A call through a pointer to no function of
//! the program (null, or a value not a function's) fails as an assertion at the call, where
//! GenMC reports its own error. Functions translated once per thread (`threads.rs`) are not
//! candidates: such a call is refused.

use std::cell::RefCell;
use std::collections::HashSet;

use lang_c::visit::{self, Visit};

use super::*;

/// The code of the first function whose address is taken; the others follow.
const FUNCTION_CODE: i64 = 0x4655_0000;

/// A function whose address the program takes: name, number of parameters, and whether it
/// returns `void`.
#[derive(Clone, Debug)]
pub(super) struct Target {
    name: String,
    params: usize,
    void: bool,
}

/// What the program does with function pointers.
#[derive(Default)]
pub(super) struct Pointers {
    /// The functions whose address it takes, in the order they are defined.
    targets: Vec<Target>,
    /// The names it assigns (`p = e`, `p op= e`) or takes the address of: a local function
    /// pointer so named is not an alias of its initialiser (`extras.rs`).
    assigned: HashSet<String>,
}

impl Pointers {
    /// Whether the program assigns `name` or takes its address somewhere.
    pub(super) fn is_assigned(&self, name: &str) -> bool {
        self.assigned.contains(name)
    }
}

/// The functions `unit` defines whose address it takes, and the names it assigns.
pub(super) fn address_taken(unit: &c::TranslationUnit) -> Pointers {
    let mut defined = Vec::new();
    for item in &unit.0 {
        if let c::ExternalDeclaration::FunctionDefinition(f) = &item.node {
            let Some(name) = declarator_name(&f.node.declarator.node) else {
                continue;
            };
            let mut params = 0;
            let mut pointer = false;
            for part in derived(&f.node.declarator.node) {
                match part {
                    c::DerivedDeclarator::Pointer(_) => pointer = true,
                    c::DerivedDeclarator::Function(fd) => {
                        params = fd
                            .node
                            .parameters
                            .iter()
                            .filter(|p| p.node.declarator.is_some())
                            .count();
                    }
                    _ => {}
                }
            }
            let void = !pointer
                && f.node.specifiers.iter().any(|s| {
                    matches!(&s.node, c::DeclarationSpecifier::TypeSpecifier(t)
                        if matches!(t.node, c::TypeSpecifier::Void))
                });
            defined.push(Target {
                name: name.node.name.clone(),
                params,
                void,
            });
        }
    }
    let names: HashSet<String> = defined.iter().map(|t| t.name.clone()).collect();
    let mut scan = Taken {
        functions: &names,
        taken: HashSet::new(),
        assigned: HashSet::new(),
        variables: HashSet::new(),
        pointer_types: HashSet::new(),
    };
    scan.visit_translation_unit(unit);
    for item in &unit.0 {
        if let c::ExternalDeclaration::FunctionDefinition(f) = &item.node {
            for part in derived(&f.node.declarator.node) {
                if let c::DerivedDeclarator::Function(fd) = part {
                    for p in &fd.node.parameters {
                        if let Some(d) = &p.node.declarator {
                            scan.visit_declarator(&d.node, &d.span);
                        }
                    }
                }
            }
        }
    }
    POINTER_VARIABLES.with(|names| *names.borrow_mut() = scan.variables.clone());
    Pointers {
        targets: defined
            .into_iter()
            .filter(|t| scan.taken.contains(&t.name))
            .collect(),
        assigned: scan.assigned,
    }
}

/// The functions named as values.
struct Taken<'a> {
    functions: &'a HashSet<String>,
    taken: HashSet<String>,
    assigned: HashSet<String>,
    /// The variables declared as function pointers (`int (*p)(int)`, `op_t p`).
    variables: HashSet<String>,
    /// The typedefs of function pointer types (`typedef void (*op_t)(void)`).
    pointer_types: HashSet<String>,
}

thread_local! {
    /// The function pointer variables of the unit being translated: a call `p(i)` through
    /// one is hoisted as `(*p)(i)` is, which `effects::has_effects` asks without the
    /// translator at hand (set by [`address_taken`], on the translating thread).
    static POINTER_VARIABLES: RefCell<HashSet<String>> = RefCell::new(HashSet::new());
}

/// Whether declarator `d` declares a function pointer: `(*p)(...)`.
pub(super) fn declares_function_pointer(d: &c::Declarator) -> bool {
    let c::DeclaratorKind::Declarator(inner) = &d.kind.node else {
        return false;
    };
    d.derived
        .iter()
        .any(|p| matches!(p.node, c::DerivedDeclarator::Function(_)))
        && inner
            .node
            .derived
            .iter()
            .any(|p| matches!(p.node, c::DerivedDeclarator::Pointer(_)))
}

const CREATES: &[&str] = &[
    "pthread_create",
    "thrd_create",
    "__VERIFIER_spawn",
    "__VERIFIER_spawn_symmetric",
];

impl<'ast> Visit<'ast> for Taken<'_> {
    fn visit_identifier(&mut self, identifier: &'ast c::Identifier, _: &'ast lang_c::span::Span) {
        if self.functions.contains(&identifier.name) {
            self.taken.insert(identifier.name.clone());
        }
    }

    fn visit_binary_operator_expression(
        &mut self,
        b: &'ast c::BinaryOperatorExpression,
        span: &'ast lang_c::span::Span,
    ) {
        use c::BinaryOperator as B;
        let assigns = matches!(
            b.operator.node,
            B::Assign
                | B::AssignPlus
                | B::AssignMinus
                | B::AssignMultiply
                | B::AssignDivide
                | B::AssignModulo
                | B::AssignShiftLeft
                | B::AssignShiftRight
                | B::AssignBitwiseAnd
                | B::AssignBitwiseXor
                | B::AssignBitwiseOr
        );
        if let (true, c::Expression::Identifier(id)) = (assigns, &b.lhs.node) {
            self.assigned.insert(id.node.name.clone());
        }
        visit::visit_binary_operator_expression(self, b, span);
    }

    fn visit_unary_operator_expression(
        &mut self,
        u: &'ast c::UnaryOperatorExpression,
        span: &'ast lang_c::span::Span,
    ) {
        if let (c::UnaryOperator::Address, c::Expression::Identifier(id)) =
            (&u.operator.node, &u.operand.node)
        {
            self.assigned.insert(id.node.name.clone());
        }
        visit::visit_unary_operator_expression(self, u, span);
    }

    fn visit_function_definition(
        &mut self,
        f: &'ast c::FunctionDefinition,
        _: &'ast lang_c::span::Span,
    ) {
        // Not the function's own name.
        self.visit_statement(&f.statement.node, &f.statement.span);
    }

    fn visit_declaration(&mut self, d: &'ast c::Declaration, span: &'ast lang_c::span::Span) {
        let typedef = d.specifiers.iter().any(|s| {
            matches!(&s.node, c::DeclarationSpecifier::StorageClass(class)
                if matches!(class.node, c::StorageClassSpecifier::Typedef))
        });
        let pointer_type = d.specifiers.iter().any(|s| {
            matches!(&s.node, c::DeclarationSpecifier::TypeSpecifier(t)
                if matches!(&t.node, c::TypeSpecifier::TypedefName(id)
                    if self.pointer_types.contains(&id.node.name)))
        });
        for init_declarator in &d.declarators {
            let declarator = &init_declarator.node.declarator.node;
            let Some(name) = declarator_name(declarator) else {
                continue;
            };
            if typedef && declares_function_pointer(declarator) {
                self.pointer_types.insert(name.node.name.clone());
            } else if !typedef && pointer_type && derived(declarator).is_empty() {
                self.variables.insert(name.node.name.clone());
            }
        }
        visit::visit_declaration(self, d, span);
    }

    fn visit_declarator(&mut self, d: &'ast c::Declarator, span: &'ast lang_c::span::Span) {
        // A prototype names a function without taking its address: nothing in it is read.
        let _ = span;
        if declares_function_pointer(d) {
            if let Some(name) = declarator_name(d) {
                self.variables.insert(name.node.name.clone());
            }
        }
    }

    fn visit_call_expression(
        &mut self,
        call_node: &'ast c::CallExpression,
        span: &'ast lang_c::span::Span,
    ) {
        let callee = match &call_node.callee.node {
            c::Expression::Identifier(id) => Some(id.node.name.as_str()),
            _ => None,
        };
        if callee.is_none() {
            self.visit_expression(&call_node.callee.node, &call_node.callee.span);
        }
        let create = callee.is_some_and(|name| CREATES.contains(&name));
        for (k, arg) in call_node.arguments.iter().enumerate() {
            let routine = if callee.is_some_and(|n| n.starts_with("__VERIFIER_spawn")) {
                0
            } else {
                2
            };
            if create && k == routine {
                continue;
            }
            self.visit_expression(&arg.node, &arg.span);
        }
        let _ = span;
    }

    fn visit_init_declarator(&mut self, d: &'ast c::InitDeclarator, _: &'ast lang_c::span::Span) {
        self.visit_declarator(&d.declarator.node, &d.declarator.span);
        if let Some(init) = &d.initializer {
            visit::visit_initializer(self, &init.node, &init.span);
        }
    }
}

/// The callee of a call through a pointer (`*p` read as `p`), when the call is one: any
/// callee that is not a plain name.
pub(super) fn indirect_callee(call: &c::CallExpression) -> Option<&Node<c::Expression>> {
    let mut callee = &*call.callee;
    if let c::Expression::UnaryOperator(u) = &callee.node {
        if matches!(u.node.operator.node, c::UnaryOperator::Indirection) {
            callee = &u.node.operand;
        }
    }
    match &callee.node {
        c::Expression::Identifier(_) if !std::ptr::eq(callee, &*call.callee) => Some(callee),
        c::Expression::Identifier(id) => POINTER_VARIABLES
            .with(|names| names.borrow().contains(&id.node.name))
            .then_some(callee),
        _ => Some(callee),
    }
}

impl Translator<'_> {
    /// The code of function `name` as a value, when its address is taken.
    pub(super) fn function_code(&self, name: &str) -> Option<i64> {
        let k = self
            .pointed_functions
            .targets
            .iter()
            .position(|t| t.name == name)?;
        Some(FUNCTION_CODE + k as i64)
    }

    /// `f` or `&f` with `f` a function whose address the program takes: its code.
    pub(super) fn function_value(&self, e: &Node<c::Expression>, scope: &Scope) -> Option<i64> {
        let e = match &e.node {
            c::Expression::UnaryOperator(u)
                if matches!(u.node.operator.node, c::UnaryOperator::Address) =>
            {
                &u.node.operand
            }
            _ => e,
        };
        match &e.node {
            c::Expression::Identifier(id)
                if !scope.locals.contains_key(&id.node.name)
                    && !self.globals.contains_key(&id.node.name) =>
            {
                self.function_code(&id.node.name)
            }
            _ => None,
        }
    }

    /// A call through a pointer (module doc), its arguments' effects hoisted (`args`).
    /// Returns the register holding the call's value.
    pub(super) fn indirect_call(
        &mut self,
        call: &Node<c::CallExpression>,
        args: Vec<Node<c::Expression>>,
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
    ) -> Option<Node<c::Expression>> {
        let at = call.span;
        let span = self.span(at);
        let callee = indirect_callee(&call.node)?;
        let candidates: Vec<Target> = self
            .pointed_functions
            .targets
            .iter()
            .filter(|t| t.params == args.len())
            .cloned()
            .collect();
        if candidates.is_empty() {
            self.refuse(
                "a call through a function pointer that no function of the program whose address is taken can be",
                call.node.callee.span,
            );
            return None;
        }
        if let Some(t) = candidates.iter().find(|t| self.is_per_thread(&t.name)) {
            let what = format!(
                "a call through a function pointer that can be `{}`, which depends on the thread running it",
                t.name
            );
            self.refuse(&what, call.node.callee.span);
            return None;
        }
        let pointer = self.expression(callee, scope)?;
        let mut values = Vec::new();
        for a in &args {
            values.push(self.argument(a, scope)?);
        }
        let register = format!("call#{}", at.start);
        let result = format!("call#{}v", at.start);
        out.push(stmt(
            StmtKind::Decl {
                ty: int_type(span),
                name: ident(&register, span),
                init: Some(pointer),
            },
            span,
        ));
        out.push(stmt(
            StmtKind::Decl {
                ty: int_type(span),
                name: ident(&result, span),
                init: None,
            },
            span,
        ));
        scope
            .locals
            .insert(register.clone(), TypeInfo::scalar("int"));
        scope.locals.insert(result.clone(), TypeInfo::scalar("int"));
        // The chain, built from its end: no candidate is an invalid call.
        let mut chain = vec![stmt(
            StmtKind::Expr(call_expr(
                "assert",
                vec![expr(ExprKind::Int(0), span)],
                span,
            )),
            span,
        )];
        for target in candidates.iter().rev() {
            let code = self.function_code(&target.name)?;
            let mut callee_ident = ident(&target.name, self.span(call.node.callee.span));
            if (self.reserved)(&callee_ident.name) {
                callee_ident.name.push_str("#c");
            }
            let invoked = expr(ExprKind::Call(callee_ident, values.clone()), span);
            let body = if target.void {
                stmt(StmtKind::Expr(invoked), span)
            } else {
                stmt(
                    StmtKind::Assign {
                        lhs: name_expr(&result, span),
                        rhs: invoked,
                    },
                    span,
                )
            };
            let test = expr(
                ExprKind::Binary(
                    BinaryOp::Eq,
                    Box::new(name_expr(&register, span)),
                    Box::new(expr(ExprKind::Int(code), span)),
                ),
                span,
            );
            chain = vec![if_stmt(test, vec![body], Some(chain), span)];
        }
        out.extend(chain);
        Some(super::effects::c_name(&result, at))
    }
}

fn call_expr(name: &str, args: Vec<ast::Expr>, span: Span) -> ast::Expr {
    expr(ExprKind::Call(ident(name, span), args), span)
}
