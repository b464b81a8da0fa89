//! GNU `typeof(...)` / `__typeof__(...)` and the types of casts and statement
//! expressions, as Linux's `list.h` (which GenMC's set and hash-table tests copy) needs them:
//! `container_of` is `({ const typeof(((T *)0)->f) *__mptr = (p); (T *)((char *)__mptr -
//! offsetof(T, f)); })`, whose value has the type of its last expression statement (GCC's
//! rule for statement expressions), and `list_for_each_entry` names `typeof(*pos)`.
//!
//! `typeof` sits in a type name, which the translator reads without the scope of the
//! statement it is in: `statement` leaves that scope in `typeof_scope` for it.

use super::*;

impl Translator<'_> {
    /// The type `typeof(e)` or `typeof(T)` names; `None` where nemos does not follow the
    /// expression's type.
    pub(super) fn typeof_info(&self, t: &c::TypeOf, scope: &Scope) -> Option<TypeInfo> {
        match t {
            c::TypeOf::Expression(e) => self.type_of_expression(e, scope),
            c::TypeOf::Type(name) => self.plain_type_name(&name.node, scope),
        }
    }

    /// The type a type name names, for the struct, typedef, `typeof` and plain scalar
    /// spellings, without declaring anything (`type_name` also declares the structs a type
    /// name defines, and reports errors).
    pub(super) fn plain_type_name(&self, name: &c::TypeName, scope: &Scope) -> Option<TypeInfo> {
        let mut words = Vec::new();
        let mut named = None;
        for s in &name.specifiers {
            let c::SpecifierQualifier::TypeSpecifier(t) = &s.node else {
                continue;
            };
            match &t.node {
                c::TypeSpecifier::Struct(st) => {
                    let id = st.node.identifier.as_ref()?;
                    named = Some(TypeInfo::scalar(&format!("struct {}", id.node.name)));
                }
                c::TypeSpecifier::TypedefName(id) => {
                    named = Some(self.typedefs.get(&id.node.name)?.clone());
                }
                c::TypeSpecifier::TypeOf(inner) => {
                    named = Some(self.typeof_info(&inner.node, scope)?);
                }
                other => words.push(super::scalar_word(other)?),
            }
        }
        let mut info = match named {
            Some(info) => info,
            None if !words.is_empty() => TypeInfo::scalar(&words.join(" ")),
            None => return None,
        };
        if let Some(d) = &name.declarator {
            for part in derived(&d.node) {
                match part {
                    c::DerivedDeclarator::Pointer(_) => {
                        info.pointer_depth = info.pointer_depth.checked_add(1)?;
                    }
                    _ => return None,
                }
            }
        }
        Some(info)
    }

    /// The type of a statement expression's value: its last expression statement's, where
    /// nemos follows it and it is a pointer (`container_of`'s `T *`); `None` otherwise,
    /// the value then an `int` as before.
    pub(super) fn statement_expression_type(
        &self,
        last: Option<&Node<c::BlockItem>>,
        scope: &Scope,
    ) -> Option<TypeInfo> {
        match &last?.node {
            c::BlockItem::Statement(Node {
                node: c::Statement::Expression(Some(e)),
                ..
            }) => self
                .type_of_expression(e, scope)
                .filter(|info| info.pointer_depth > 0 && !info.handle),
            _ => None,
        }
    }
}
