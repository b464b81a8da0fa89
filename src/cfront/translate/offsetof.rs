//! `offsetof(T, f)`: the cell at which field `f` starts in nemos's layout of `T` (fields in
//! order, one cell per scalar or pointer, a struct field its own cells, an array field its
//! elements', as `heap.rs` sizes them), so that `container_of`'s `(T *)((char *)p -
//! offsetof(T, f))` steps back from a field to its struct in the same unit as pointer
//! arithmetic. Both spellings: GCC's `__builtin_offsetof(T, f.g[2])` (nemos's `<stddef.h>`)
//! and the classic `((size_t) &((T *)0)->f)` (the Linux `list.h` GenMC's tests copy).

use super::*;

impl Translator<'_> {
    /// The struct a type name names (`struct s`, or a typedef of one), as `struct_cells`
    /// takes it.
    fn named_struct(&self, name: &c::TypeName) -> Option<String> {
        name.specifiers.iter().find_map(|s| match &s.node {
            c::SpecifierQualifier::TypeSpecifier(t) => match &t.node {
                c::TypeSpecifier::Struct(st) => st
                    .node
                    .identifier
                    .as_ref()
                    .map(|id| format!("struct {}", id.node.name)),
                c::TypeSpecifier::TypedefName(id) => self
                    .typedefs
                    .get(&id.node.name)
                    .filter(|info| info.pointer_depth == 0)
                    .map(|info| info.base.clone()),
                c::TypeSpecifier::TypeOf(t) => self
                    .typeof_info(&t.node, &self.typeof_scope)
                    .filter(|info| info.pointer_depth == 0)
                    .map(|info| info.base),
                _ => None,
            },
            _ => None,
        })
    }

    /// Field `field` of struct `base`: its offset in cells, its type and array length.
    fn field_offset(&self, base: &str, field: &str) -> Option<(i64, ast::Type, Option<u32>)> {
        let name = base.strip_prefix("struct ").unwrap_or(base);
        let def = self.structs.iter().find(|s| s.name.name == name)?;
        let mut offset: i64 = 0;
        for f in &def.fields {
            if f.name.name == field {
                return Some((offset, f.ty.clone(), f.array_len));
            }
            offset = offset.checked_add(
                self.field_cells(&f.ty)?
                    .checked_mul(i64::from(f.array_len.unwrap_or(1)))?,
            )?;
        }
        None
    }

    /// The cells of one element of a field of type `ty`.
    fn field_cells(&self, ty: &ast::Type) -> Option<i64> {
        if ty.pointer_depth > 0 {
            Some(1)
        } else {
            self.struct_cells(&ty.base, 0)
        }
    }

    /// `__builtin_offsetof(T, f.g[i])` in cells; `None` when a part is not a field of a
    /// struct nemos lays out, or an index is not a constant.
    pub(super) fn offset_of(&self, o: &c::OffsetOfExpression) -> Option<i64> {
        let mut base = self.named_struct(&o.type_name.node)?;
        let (mut offset, mut ty, mut len) =
            self.field_offset(&base, &o.designator.node.base.node.name)?;
        for member in &o.designator.node.members {
            match &member.node {
                c::OffsetMember::Member(id) if len.is_none() && ty.pointer_depth == 0 => {
                    base = ty.base.clone();
                    let (at, t, l) = self.field_offset(&base, &id.node.name)?;
                    offset = offset.checked_add(at)?;
                    (ty, len) = (t, l);
                }
                c::OffsetMember::Index(i) if len.is_some() => {
                    let i = self.try_constant(i, &Scope::default())?;
                    offset = offset.checked_add(i.checked_mul(self.field_cells(&ty)?)?)?;
                    len = None;
                }
                _ => return None,
            }
        }
        Some(offset)
    }

    /// `&((T *)0)->f.g`, the operand of `&` written so: the offset of `f.g` in `T`.
    pub(super) fn null_member_offset(&self, operand: &Node<c::Expression>) -> Option<i64> {
        let mut fields = Vec::new();
        let mut at = operand;
        let root = loop {
            match &at.node {
                c::Expression::Member(m) => {
                    fields.push(&m.node.identifier.node.name);
                    if matches!(m.node.operator.node, c::MemberOperator::Indirect) {
                        break &m.node.expression;
                    }
                    at = &m.node.expression;
                }
                _ => return None,
            }
        };
        let c::Expression::Cast(cast) = &root.node else {
            return None;
        };
        let pointer = cast
            .node
            .type_name
            .node
            .declarator
            .as_ref()
            .is_some_and(|d| {
                matches!(
                    derived(&d.node).as_slice(),
                    [c::DerivedDeclarator::Pointer(_)]
                )
            });
        if !pointer || self.try_constant(&cast.node.expression, &Scope::default()) != Some(0) {
            return None;
        }
        let mut base = self.named_struct(&cast.node.type_name.node)?;
        let mut offset: i64 = 0;
        for (k, field) in fields.iter().rev().enumerate() {
            let (at, ty, len) = self.field_offset(&base, field)?;
            offset = offset.checked_add(at)?;
            if k + 1 < fields.len() && (len.is_some() || ty.pointer_depth > 0) {
                return None;
            }
            base = ty.base;
        }
        Some(offset)
    }
}

/// Whether a type is a pointer to a character type (`char *`), whose arithmetic counts
/// single cells.
fn char_pointer(target: &TypeInfo) -> bool {
    target.pointer_depth == 1
        && matches!(
            target.base.as_str(),
            "char" | "signed char" | "unsigned char" | "uint8_t" | "int8_t"
        )
}

impl Translator<'_> {
    /// The type a cast keeps in the litmus AST, where casts otherwise keep their operand's
    /// value and type: `(char *)p` steps one cell at a time (so `(char *)p - offsetof(T,
    /// f)` steps back `offsetof`'s cells, not as many `*p`s), and `(T *)((char *)p - k)`
    /// is a `T *` again.
    pub(super) fn kept_cast(&mut self, cast: &c::CastExpression, span: Span) -> Option<ast::Type> {
        let target = self.type_name(&cast.type_name.node);
        if char_pointer(&target) {
            let mut cell = TypeInfo::scalar("int");
            cell.pointer_depth = 1;
            return Some(Self::litmus_type(&cell, span));
        }
        let c::Expression::BinaryOperator(b) = &cast.expression.node else {
            return None;
        };
        let c::Expression::Cast(inner) = &b.node.lhs.node else {
            return None;
        };
        let arithmetic = matches!(
            b.node.operator.node,
            c::BinaryOperator::Plus | c::BinaryOperator::Minus
        );
        let from_chars = char_pointer(&self.type_name(&inner.node.type_name.node));
        (arithmetic
            && from_chars
            && target.pointer_depth == 1
            && target.base.starts_with("struct "))
        .then(|| Self::litmus_type(&target, span))
    }
}
