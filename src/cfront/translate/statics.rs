//! A `static` local variable (`static bool entered = false;` inside a function, as GenMC's
//! `no-inline` writes it): an object of static storage duration (C11 6.2.4p3), one for the
//! whole program whatever the calls, threads and inlined copies, initialised before the
//! program runs; only its name is the block's. So it is a global of the litmus test, under
//! its own name, which the block's scope then names. Refused when another global, or the
//! `static` local of another function, has that name, whether declared before or after it
//! (nemos names objects by their C name).

use super::*;

impl Translator<'_> {
    /// The declaration `d` of `static` locals: globals (module doc), named in `scope`.
    pub(super) fn static_local(&mut self, d: &Node<c::Declaration>, scope: &mut Scope) {
        if super::threads::is_thread_local(&d.node) {
            self.refuse(
                "a thread-local variable (`__thread`, `_Thread_local`)",
                d.span,
            );
            return;
        }
        let mut fresh = false;
        for init_declarator in &d.node.declarators {
            let Some(name) = declarator_name(&init_declarator.node.declarator.node) else {
                continue;
            };
            let span = self.span(init_declarator.span);
            // The same declaration read again (a function translated once per thread).
            let again = self.init.iter().any(|item| item.span == span);
            if !again && self.globals.contains_key(&name.node.name) {
                self.refuse_static_clash(name);
                return;
            }
            fresh |= !again;
            scope.locals.remove(&name.node.name);
            scope.constants.remove(&name.node.name);
            scope.stack.remove(&name.node.name);
        }
        if fresh {
            self.global_declaration(d);
            for init_declarator in &d.node.declarators {
                if let Some(name) = declarator_name(&init_declarator.node.declarator.node) {
                    self.static_locals.insert(name.node.name.clone());
                }
            }
        }
        // Its writes are in the block that declares it, which the scan for globals' writes
        // reads as a local's (`known.rs`): never taken for a global nothing writes.
        for init_declarator in &d.node.declarators {
            if let Some(name) = declarator_name(&init_declarator.node.declarator.node) {
                self.frozen.remove(&name.node.name);
            }
        }
    }

    /// A `static` local and another global share `name`, in either order of declaration
    /// (module doc).
    pub(super) fn refuse_static_clash(&mut self, name: &Node<c::Identifier>) {
        self.refuse(
            &format!(
                "a `static` local variable named as another global (`{}`)",
                name.node.name
            ),
            name.span,
        );
    }
}
