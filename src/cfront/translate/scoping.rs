//! Block scope for locals. A local whose name is already visible where it is declared (a
//! global, or a local or parameter of an enclosing block) hides it until its block ends,
//! as C scopes names: `unsigned a, b;` global, then `int b = atomic_load(&x[i]);` inside
//! a thread's `if`. The litmus lowering keeps one register per name and function, and
//! reads a global `b` as `*b`, so the hiding local gets a register name of its own,
//! `b#N` (`N` the offset of its declaration), which the statements of its block use; the
//! name means the hidden object again after the block.

use super::*;

impl Translator<'_> {
    /// The register name of a local `name` declared now in `scope`, recorded there.
    pub(super) fn scoped_local(&mut self, name: &Node<c::Identifier>, scope: &mut Scope) -> String {
        let c_name = &name.node.name;
        scope.renamed.remove(c_name);
        let hides = self.globals.contains_key(c_name)
            || scope.locals.contains_key(c_name)
            || scope.local_handles.contains(c_name);
        if !hides {
            return c_name.clone();
        }
        let register = format!("{c_name}#{}", self.span(name.span).start);
        scope.renamed.insert(c_name.clone(), register.clone());
        register
    }
}

/// The register a local's C name denotes in `scope`.
pub(super) fn local_register<'s>(scope: &'s Scope, name: &'s str) -> &'s str {
    scope.renamed.get(name).map_or(name, String::as_str)
}
