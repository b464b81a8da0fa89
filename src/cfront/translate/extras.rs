//! Smaller pieces of C the GenMC suite writes:
//! - a `union` of one member, laid out as that member (a struct of one field);
//! - a global struct's initializer, positional or designated (`{ .n = 2, .count = 0 }`);
//! - a local function pointer initialised with a function of the program
//!   (`void (*fp)(int) = &load_store; fp(a);`): each call through it calls that function;
//! - a compare-exchange whose failure order is `memory_order_release` or
//!   `memory_order_acq_rel`, which C11 forbids: clang (GenMC's compiler) emits a relaxed
//!   failure order for both (`emitAtomicCmpXchgFailureSet`), and so does nemos.

use super::*;

/// Whether an initializer list initialises one struct object.
pub(super) fn is_struct_object(info: &TypeInfo, array_len: Option<u32>) -> bool {
    info.base.starts_with("struct ") && info.pointer_depth == 0 && array_len.is_none()
}

/// C11 7.17.7.4: the failure order may not be release nor acq_rel; clang weakens both to
/// relaxed, which GenMC then runs.
pub(super) fn clang_failure_order(name: &str, args: &mut [ast::Expr]) {
    if !matches!(
        name,
        "atomic_compare_exchange_strong_explicit" | "atomic_compare_exchange_weak_explicit"
    ) {
        return;
    }
    if let Some(ast::Expr {
        kind: ExprKind::Name(order),
        ..
    }) = args.get_mut(4)
    {
        if matches!(
            order.name.as_str(),
            "memory_order_release" | "memory_order_acq_rel"
        ) {
            order.name = "memory_order_relaxed".to_string();
        }
    }
}

impl Translator<'_> {
    /// A union of more than one member is refused; one member is a struct's only field.
    pub(super) fn union_type(&mut self, st: &Node<c::StructType>) {
        let members: usize = st.node.declarations.as_ref().map_or(0, |declarations| {
            declarations
                .iter()
                .map(|d| match &d.node {
                    c::StructDeclaration::Field(f) => f.node.declarators.len().max(1),
                    c::StructDeclaration::StaticAssert(_) => 0,
                })
                .sum()
        });
        if members > 1 {
            let what = format!(
                "a `union` of more than one member ({})",
                self.union_members(st)
            );
            self.refuse(&what, st.span);
        }
    }

    /// A union's members with their widths, for its refusal: `` `val` (4 bytes), an
    /// anonymous struct ``. Its members share one memory, which nemos, with a cell per
    /// scalar whatever its width, cannot lay out when the widths differ.
    fn union_members(&self, st: &Node<c::StructType>) -> String {
        let mut parts = Vec::new();
        for d in st.node.declarations.iter().flatten() {
            let c::StructDeclaration::Field(f) = &d.node else {
                continue;
            };
            let mut width = None;
            let mut aggregate = false;
            for s in &f.node.specifiers {
                let c::SpecifierQualifier::TypeSpecifier(t) = &s.node else {
                    continue;
                };
                match &t.node {
                    c::TypeSpecifier::Struct(_) => aggregate = true,
                    c::TypeSpecifier::TypedefName(id) => match self.typedefs.get(&id.node.name) {
                        Some(info) if info.pointer_depth > 0 => width = Some(8),
                        Some(info) if info.base.starts_with("struct ") => aggregate = true,
                        Some(info) => width = Some(scalar_width(&info.base)),
                        None => {}
                    },
                    c::TypeSpecifier::Char | c::TypeSpecifier::Bool => width = Some(1),
                    c::TypeSpecifier::Short => width = Some(2),
                    c::TypeSpecifier::Long => width = Some(8),
                    c::TypeSpecifier::Int
                    | c::TypeSpecifier::Signed
                    | c::TypeSpecifier::Unsigned => width = width.or(Some(4)),
                    _ => {}
                }
            }
            if f.node.declarators.is_empty() {
                parts.push("an anonymous struct".to_string());
            }
            for declarator in &f.node.declarators {
                let Some(name) = declarator
                    .node
                    .declarator
                    .as_ref()
                    .and_then(|d| declarator_name(&d.node))
                else {
                    continue;
                };
                let parts_of = declarator
                    .node
                    .declarator
                    .as_ref()
                    .map(|d| derived(&d.node))
                    .unwrap_or_default();
                let pointer = parts_of
                    .iter()
                    .any(|p| matches!(p, c::DerivedDeclarator::Pointer(_)));
                let array = parts_of
                    .iter()
                    .any(|p| matches!(p, c::DerivedDeclarator::Array(_)));
                let described = match (pointer, array, aggregate, width) {
                    (true, false, _, _) => "a pointer".to_string(),
                    (_, true, _, _) => "an array".to_string(),
                    (false, false, true, _) => "a struct".to_string(),
                    (false, false, false, Some(1)) => "1 byte".to_string(),
                    (false, false, false, Some(w)) => format!("{w} bytes"),
                    (false, false, false, None) => "a scalar".to_string(),
                };
                parts.push(format!("`{}`: {described}", name.node.name));
            }
        }
        parts.join(", ")
    }

    /// `struct s g = { 1, .f = 2 };`: one init item per field given.
    pub(super) fn struct_initializer(
        &mut self,
        name: &Node<c::Identifier>,
        info: &TypeInfo,
        items: &[Node<c::InitializerListItem>],
    ) -> Vec<ast::InitItem> {
        let struct_name = info.base.trim_start_matches("struct ");
        let Some(fields) = self
            .structs
            .iter()
            .find(|s| s.name.name == struct_name)
            .map(|s| s.fields.clone())
        else {
            if let Some(first) = items.first() {
                self.refuse(
                    "an initializer of a struct nemos has no definition of",
                    first.span,
                );
            }
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut next = 0;
        for item in items {
            let position = match item.node.designation.as_slice() {
                [] => next,
                [designator] => match &designator.node {
                    c::Designator::Member(field) => {
                        match fields.iter().position(|f| f.name.name == field.node.name) {
                            Some(k) => k,
                            None => {
                                let at = self.span(field.span);
                                self.errors.push(Diagnostic::new(
                                    format!(
                                        "`struct {struct_name}` has no field `{}`",
                                        field.node.name
                                    ),
                                    at,
                                ));
                                continue;
                            }
                        }
                    }
                    _ => {
                        self.refuse("this designated initializer", item.span);
                        continue;
                    }
                },
                _ => {
                    self.refuse("a designated initializer of a nested member", item.span);
                    continue;
                }
            };
            next = position + 1;
            let Some(field) = fields.get(position) else {
                self.refuse(
                    "an initializer with more values than the struct has fields",
                    item.span,
                );
                continue;
            };
            if field.array_len.is_some() {
                self.refuse("an initializer of an array field", item.span);
                continue;
            }
            let value = match &item.node.initializer.node {
                c::Initializer::Expression(e) => self.init_value(e, &Scope::default()),
                // All zeros (`{ .sequence = 0 }`): what a global holds anyway.
                c::Initializer::List(inner) if self.all_zero(inner) => continue,
                c::Initializer::List(_) => {
                    self.refuse("a nested initializer list", item.span);
                    None
                }
            };
            let Some(value) = value else {
                continue;
            };
            let value = if field.ty.base == "_Bool" && field.ty.pointer_depth == 0 {
                booleans::bool_init(value)
            } else {
                value
            };
            let span = self.span(item.span);
            out.push(ast::InitItem {
                ty: None,
                target: ast::StateVar::Location {
                    name: self.ident(name),
                    index: None,
                    members: vec![ast::Member::Field(ident(&field.name.name, span))],
                },
                value: Some(value),
                array_len: None,
                span,
            });
        }
        out
    }

    /// `void (*fp)(int) = &f;`: calls through `fp` call `f`. True when the declaration is a
    /// function pointer (then handled here, refused when it is not so initialised);
    /// `typedef_pointer` when its type is a function pointer's typedef (`op_t fp = &f;`).
    pub(super) fn function_pointer(
        &mut self,
        name: &Node<c::Identifier>,
        d: &Node<c::InitDeclarator>,
        typedef_pointer: bool,
        scope: &mut Scope,
    ) -> bool {
        let parts = derived(&d.node.declarator.node);
        let is_function = typedef_pointer
            || parts.iter().any(|p| {
                matches!(
                    p,
                    c::DerivedDeclarator::Function(_) | c::DerivedDeclarator::KRFunction(_)
                )
            });
        if !is_function {
            return false;
        }
        let target = d
            .node
            .initializer
            .as_ref()
            .and_then(|init| match &init.node {
                c::Initializer::Expression(e) => self.function_named(e),
                c::Initializer::List(_) => None,
            });
        match target {
            // Assigned later, or its address taken: a pointer as any other (`fnptr.rs`).
            Some(_) if self.pointed_functions.is_assigned(&name.node.name) => return false,
            Some(target) => {
                scope
                    .function_aliases
                    .insert(name.node.name.clone(), target);
            }
            // Initialised with another pointer's value: a value as any other (`fnptr.rs`).
            None => return false,
        }
        true
    }

    /// `f`, `&f` or `(T) f` with `f` a function of the program.
    fn function_named(&self, e: &Node<c::Expression>) -> Option<String> {
        match &e.node {
            c::Expression::Identifier(id) if self.functions.contains(&id.node.name) => {
                Some(id.node.name.clone())
            }
            c::Expression::UnaryOperator(u)
                if matches!(u.node.operator.node, c::UnaryOperator::Address) =>
            {
                self.function_named(&u.node.operand)
            }
            c::Expression::Cast(cast) => self.function_named(&cast.node.expression),
            _ => None,
        }
    }

    /// The function a call through a local function pointer calls (`fp(a)`, `(*fp)(a)`).
    pub(super) fn alias_target(
        &self,
        call_node: &Node<c::CallExpression>,
        scope: &Scope,
    ) -> Option<String> {
        let mut callee = &*call_node.node.callee;
        if let c::Expression::UnaryOperator(u) = &callee.node {
            if matches!(u.node.operator.node, c::UnaryOperator::Indirection) {
                callee = &u.node.operand;
            }
        }
        match &callee.node {
            c::Expression::Identifier(id) => scope.function_aliases.get(&id.node.name).cloned(),
            _ => None,
        }
    }

    pub(super) fn alias_call(
        &mut self,
        target: &str,
        call_node: &Node<c::CallExpression>,
        scope: &Scope,
        span: Span,
    ) -> Option<ast::Expr> {
        let mut args = Vec::new();
        for a in &call_node.node.arguments {
            args.push(self.expression(a, scope));
        }
        let args: Option<Vec<ast::Expr>> = args.into_iter().collect();
        let mut callee = ident(target, self.span(call_node.node.callee.span));
        if (self.reserved)(&callee.name) {
            callee.name.push_str("#c");
        }
        Some(expr(ExprKind::Call(callee, args?), span))
    }
}

/// The width in bytes of a scalar of C type `base` (LP64).
fn scalar_width(base: &str) -> u32 {
    if base.contains("char") || base.contains("_Bool") {
        1
    } else if base.contains("short") {
        2
    } else if base.contains("long") {
        8
    } else {
        4
    }
}
