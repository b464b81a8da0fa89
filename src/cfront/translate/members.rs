//! Struct members (`s.f`, `p->f`) as places, and whether a member is an atomic object.
//!
//! C reads and writes an atomic object that the program names plainly with seq_cst
//! atomics (C11 5.1.2.4, 7.17.1): `node.next = v` on a field declared `_Atomic(T *) next`
//! or `atomic_int next` is `atomic_store(&node.next, v)`, as it is for a global
//! `atomic_int x` (GenMC, which runs clang's code, sees a seq_cst access). Whether the field
//! is atomic is read from the declaration of the struct the base expression has, when its
//! type is known here (a global, a local, a parameter, a member, an element, `*p`); when it
//! is not (a cast, a call), from the fields of that name: atomic when every struct that
//! declares a field of that name declares it atomic.

use super::*;

impl Translator<'_> {
    /// Remember a struct's field and its type, for [`Translator::member_place`].
    pub(super) fn field_declared(
        &mut self,
        struct_name: &str,
        field: &str,
        info: &TypeInfo,
        array_len: Option<u32>,
    ) {
        self.field_types.insert(
            (struct_name.to_string(), field.to_string()),
            (info.clone(), array_len),
        );
    }

    /// `s.f` or `p->f` as a place of the litmus AST, and whether it is an atomic object.
    pub(super) fn member_place(
        &mut self,
        m: &Node<c::MemberExpression>,
        scope: &Scope,
        span: Span,
    ) -> Option<(ast::Expr, bool)> {
        let arrow = matches!(m.node.operator.node, c::MemberOperator::Indirect);
        let atomic = self
            .field_type(m, scope)
            .is_some_and(|(info, len)| len.is_none() && is_atomic_object(&info));
        let base = self.expression(&m.node.expression, scope)?;
        // `g.f` on a global struct `g`: `g` is its address in the litmus AST.
        let (base, arrow) = match (base.kind, arrow) {
            (ExprKind::Unary(UnaryOp::Deref, inner), false) => (*inner, true),
            (kind, arrow) => (expr(kind, base.span), arrow),
        };
        Some((
            expr(
                ExprKind::Member(Box::new(base), self.ident(&m.node.identifier), arrow),
                span,
            ),
            atomic,
        ))
    }

    /// Whether a member used as a pointer or array (`s.a[i]`, `*p->q`) points to atomic
    /// objects.
    pub(super) fn member_points_to_atomic(
        &self,
        m: &Node<c::MemberExpression>,
        scope: &Scope,
    ) -> bool {
        self.field_type(m, scope)
            .is_some_and(|(info, len)| match len {
                Some(_) => info.atomic && info.pointer_depth == 0,
                None => info.atomic && info.pointer_depth == 1,
            })
    }

    /// The declared type of the field a member expression names, and its array length.
    fn field_type(
        &self,
        m: &Node<c::MemberExpression>,
        scope: &Scope,
    ) -> Option<(TypeInfo, Option<u32>)> {
        let field = &m.node.identifier.node.name;
        let arrow = matches!(m.node.operator.node, c::MemberOperator::Indirect);
        let known = self
            .type_of_expression(&m.node.expression, scope)
            .filter(|base| base.pointer_depth == u8::from(arrow))
            .and_then(|base| {
                base.base
                    .strip_prefix("struct ")
                    .map(|name| (name.to_string(), field.clone()))
            })
            .and_then(|key| self.field_types.get(&key).cloned());
        if known.is_some() {
            return known;
        }
        // The base's type is not known here: the field's, if every struct agrees.
        let mut candidates = self
            .field_types
            .iter()
            .filter(|((_, f), _)| f == field)
            .map(|(_, t)| t);
        let first = candidates.next()?.clone();
        let same = |(info, len): &(TypeInfo, Option<u32>)| {
            is_atomic_object(info) == is_atomic_object(&first.0)
                && len.is_some() == first.1.is_some()
                && info.atomic == first.0.atomic
                && info.pointer_depth == first.0.pointer_depth
        };
        candidates.all(same).then_some(first)
    }

    /// The type of an expression as far as declarations say, an array decayed to a
    /// pointer to its element; `None` where nemos does not follow it.
    pub(super) fn type_of_expression(
        &self,
        e: &Node<c::Expression>,
        scope: &Scope,
    ) -> Option<TypeInfo> {
        match &e.node {
            c::Expression::Identifier(id) => {
                let name = &id.node.name;
                if scope.constants.contains_key(name) {
                    return None;
                }
                if let Some(info) = scope.locals.get(name) {
                    return Some(info.clone());
                }
                match self.global_info(name) {
                    Some((Global::Array, info)) => Some(pointer_to(info)),
                    Some((Global::Object, info)) => Some(info.clone()),
                    None => None,
                }
            }
            c::Expression::Member(m) => {
                let (info, len) = self.field_type(m, scope)?;
                Some(match len {
                    Some(_) => pointer_to(&info),
                    None => info,
                })
            }
            c::Expression::BinaryOperator(b)
                if matches!(b.node.operator.node, c::BinaryOperator::Index) =>
            {
                element_of(self.type_of_expression(&b.node.lhs, scope)?)
            }
            c::Expression::BinaryOperator(b)
                if matches!(
                    b.node.operator.node,
                    c::BinaryOperator::Plus | c::BinaryOperator::Minus
                ) =>
            {
                self.type_of_expression(&b.node.lhs, scope)
                    .filter(|info| info.pointer_depth > 0)
            }
            c::Expression::UnaryOperator(u) => match u.node.operator.node {
                c::UnaryOperator::Indirection => {
                    element_of(self.type_of_expression(&u.node.operand, scope)?)
                }
                c::UnaryOperator::Address => Some(pointer_to(
                    &self.type_of_expression(&u.node.operand, scope)?,
                )),
                _ => None,
            },
            c::Expression::Cast(cast) => self.plain_type_name(&cast.node.type_name.node, scope),
            c::Expression::Statement(s) => match &s.node {
                c::Statement::Compound(items) => {
                    self.statement_expression_type(items.last(), scope)
                }
                _ => None,
            },
            _ => None,
        }
    }
}

/// Whether an object of this type is atomic: `atomic_int`, `_Atomic(T *)`.
fn is_atomic_object(info: &TypeInfo) -> bool {
    (info.atomic && info.pointer_depth == 0) || info.pointer_atomic
}

fn pointer_to(info: &TypeInfo) -> TypeInfo {
    let mut info = info.clone();
    info.pointer_depth = info.pointer_depth.saturating_add(1);
    info
}

fn element_of(mut info: TypeInfo) -> Option<TypeInfo> {
    if info.pointer_depth == 0 {
        return None;
    }
    info.pointer_depth -= 1;
    // `_Atomic(T *) p`: what `*p` is, is not atomic by that.
    info.pointer_atomic = false;
    Some(info)
}
