//! Arrays of arrays (`unsigned free_lists[4][2]`, a parameter `int m[7][7]`), laid out as C
//! lays them out: one array of all the elements, row after row, so that `a[i][j]` is
//! `a[i * 2 + j]` and a row `a[i]` is the address `&a[i * 2]`. The litmus AST knows arrays
//! of one dimension: the lengths are kept here, by name (a struct field's by struct and
//! field name, `s.f[i][j]` and `p->f[i][j]`), and each index is flattened. A struct's
//! initializer lays such a field out in rows (`initlist.rs`), as C does.

use super::*;

/// Most elements an array of arrays may have.
const MAX_ELEMENTS: u32 = u16::MAX as u32;

impl Translator<'_> {
    /// The length of `outer` arrays of `inner` elements.
    pub(super) fn nested_length(
        &mut self,
        outer: Option<u32>,
        inner: Option<u32>,
        span: lang_c::span::Span,
    ) -> Option<u32> {
        match (outer, inner) {
            (Some(outer), Some(inner)) => match outer.checked_mul(inner) {
                Some(n) if n <= MAX_ELEMENTS => Some(n),
                _ => {
                    self.refuse(
                        &format!("an array of arrays of more than {MAX_ELEMENTS} elements"),
                        span,
                    );
                    None
                }
            },
            (None, _) => inner,
            (Some(_), None) => None,
        }
    }

    /// The lengths of a declarator's arrays, outermost first (`int a[4][2]`: 4, 2).
    pub(super) fn lengths(&self, d: &c::Declarator) -> Vec<u32> {
        derived(d)
            .iter()
            .filter_map(|part| match part {
                c::DerivedDeclarator::Array(array) => match &array.node.size {
                    c::ArraySize::VariableExpression(e) | c::ArraySize::StaticExpression(e) => self
                        .try_constant(e, &Scope::default())
                        .and_then(|n| u32::try_from(n).ok()),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    /// Keep the lengths of an array of arrays named `name`: a global's, or a parameter's
    /// in `scope`.
    pub(super) fn record_dims(&mut self, name: &str, d: &c::Declarator, scope: Option<&mut Scope>) {
        let lengths = self.lengths(d);
        match scope {
            Some(scope) => {
                scope.dims.remove(name);
                if lengths.len() > 1 {
                    scope.dims.insert(name.to_string(), lengths);
                }
            }
            None => {
                if lengths.len() > 1 {
                    self.dims.insert(name.to_string(), lengths);
                }
            }
        }
    }

    /// One row of an array of arrays' initializer, written as a nested list (`int m[2][3] =
    /// { {1, 2, 3}, {4} }`): its values appended to `values`, padded with zeros to the
    /// row's length, as C pads a subaggregate. False (nothing appended) when the array is
    /// not an array of arrays, the row does not start at a row's first element, or it has
    /// more values than the row holds or a designator.
    pub(super) fn initializer_row(
        &mut self,
        d: &c::Declarator,
        items: &[Node<c::InitializerListItem>],
        values: &mut Vec<i64>,
    ) -> bool {
        let lengths = self.lengths(d);
        if lengths.len() < 2 {
            return false;
        }
        let mut row = Vec::new();
        if !self.fill_row(items, &lengths[1..], &mut row) {
            return false;
        }
        let len: usize = lengths[1..].iter().map(|&n| n as usize).product();
        if !values.len().is_multiple_of(len) || row.len() > len {
            return false;
        }
        row.resize(len, 0);
        values.extend(row);
        true
    }

    /// The values of a list initialising an array of `lengths`, nested lists as rows.
    fn fill_row(
        &mut self,
        items: &[Node<c::InitializerListItem>],
        lengths: &[u32],
        values: &mut Vec<i64>,
    ) -> bool {
        let row: usize = lengths.iter().skip(1).map(|&n| n as usize).product();
        for item in items {
            if !item.node.designation.is_empty() {
                return false;
            }
            match &item.node.initializer.node {
                c::Initializer::Expression(e) => match self.try_constant(e, &Scope::default()) {
                    Some(v) => values.push(v),
                    None => return false,
                },
                c::Initializer::List(inner) => {
                    if lengths.len() < 2 || !values.len().is_multiple_of(row) {
                        return false;
                    }
                    let start = values.len();
                    if !self.fill_row(inner, &lengths[1..], values) || values.len() > start + row {
                        return false;
                    }
                    values.resize(start + row, 0);
                }
            }
        }
        true
    }

    /// Keep the lengths of a struct field that is an array of arrays.
    pub(super) fn record_field_dims(&mut self, struct_name: &str, field: &str, d: &c::Declarator) {
        let lengths = self.lengths(d);
        let key = (struct_name.to_string(), field.to_string());
        if lengths.len() > 1 {
            self.field_dims.insert(key, lengths);
        } else {
            self.field_dims.remove(&key);
        }
    }

    /// The lengths of the array of arrays a member expression names, when it is one.
    fn member_dims(&self, m: &Node<c::MemberExpression>, scope: &Scope) -> Option<Vec<u32>> {
        let field = &m.node.identifier.node.name;
        let arrow = matches!(m.node.operator.node, c::MemberOperator::Indirect);
        let known = self
            .type_of_expression(&m.node.expression, scope)
            .filter(|base| base.pointer_depth == u8::from(arrow))
            .and_then(|base| base.base.strip_prefix("struct ").map(str::to_string));
        match known {
            Some(name) => self.field_dims.get(&(name, field.clone())).cloned(),
            // The base's type is not known here: the field's, when every struct that
            // declares a field of that name declares it with the same lengths.
            None => {
                let mut all = self
                    .field_types
                    .keys()
                    .filter(|(_, f)| f == field)
                    .map(|key| self.field_dims.get(key));
                let first = all.next()??.clone();
                all.all(|d| d == Some(&first)).then_some(first)
            }
        }
    }

    /// `a[i][j]` (or a row `a[i]`) on an array of arrays `a`: the element's place, whether
    /// it is atomic, and whether it is a row rather than an element. `None` when `e` is not
    /// an index into an array of arrays; `Some(None)` when it is but cannot be read.
    pub(super) fn multi_index(
        &mut self,
        e: &Node<c::Expression>,
        scope: &Scope,
    ) -> Option<Option<(ast::Expr, bool, bool)>> {
        let mut indices = Vec::new();
        let mut root = e;
        while let c::Expression::BinaryOperator(b) = &root.node {
            if !matches!(b.node.operator.node, c::BinaryOperator::Index) {
                break;
            }
            indices.push(&*b.node.rhs);
            root = &b.node.lhs;
        }
        indices.reverse();
        let (name, lengths) = match &root.node {
            c::Expression::Identifier(id) => {
                let name = &id.node.name;
                let known = if scope.locals.contains_key(name) {
                    scope.dims.get(name)
                } else {
                    self.dims.get(name)
                };
                (Some(name), known?.clone())
            }
            c::Expression::Member(m) => (None, self.member_dims(m, scope)?),
            _ => return None,
        };
        if indices.len() > lengths.len() {
            return None;
        }
        let span = self.span(e.span);
        let mut flat: Option<ast::Expr> = None;
        for (k, index) in indices.iter().enumerate() {
            let stride: u32 = lengths[k + 1..].iter().product();
            let index = self.expression(index, scope);
            let Some(index) = index else {
                return Some(None);
            };
            let term = if stride == 1 {
                index
            } else {
                expr(
                    ExprKind::Binary(
                        BinaryOp::Mul,
                        Box::new(index),
                        Box::new(expr(ExprKind::Int(i64::from(stride)), span)),
                    ),
                    span,
                )
            };
            flat = Some(match flat {
                None => term,
                Some(sum) => expr(
                    ExprKind::Binary(BinaryOp::Add, Box::new(sum), Box::new(term)),
                    span,
                ),
            });
        }
        let flat = flat?;
        let atomic = match (name, &root.node) {
            (None, c::Expression::Member(m)) => self.member_points_to_atomic(m, scope),
            (None, _) => false,
            (Some(name), _) => match self.globals.get(name) {
                Some((Global::Array, info)) if !scope.locals.contains_key(name) => {
                    info.atomic && info.pointer_depth == 0
                }
                _ => scope
                    .locals
                    .get(name)
                    .is_some_and(|info| info.atomic && info.pointer_depth == 1),
            },
        };
        let Some(base) = self.expression(root, scope) else {
            return Some(None);
        };
        let row = indices.len() < lengths.len();
        Some(Some((
            expr(ExprKind::Index(Box::new(base), Box::new(flat)), span),
            atomic,
            row,
        )))
    }
}
