//! Functions the program defines and never uses. C headers (and preprocessed files such as
//! GenMC's `cks`, which carry a library's whole header) define many `static inline`
//! functions a program never calls; clang emits no code for an unused one, and GenMC never
//! runs it. nemos does not translate them either, so a construct it refuses (a `double`,
//! inline assembly) inside a function nothing calls does not refuse the program.
//!
//! A function is used when `main` names it, or a function used names it, or a global
//! declaration names it (a function pointer's initialiser): any identifier counts, a call,
//! a start routine given to `pthread_create` or a pointer taken, so no function that can
//! run is left out.

use std::collections::{HashMap, HashSet};

use lang_c::ast as c;
use lang_c::visit::Visit;

use super::declarator_name;

/// Every identifier a piece of the program names.
#[derive(Default)]
struct Names(HashSet<String>);

impl<'ast> Visit<'ast> for Names {
    fn visit_identifier(&mut self, identifier: &'ast c::Identifier, _: &'ast lang_c::span::Span) {
        self.0.insert(identifier.name.clone());
    }
}

/// The functions `unit` defines that nothing reachable from `main` or a global declaration
/// names.
pub(super) fn unused_functions(unit: &c::TranslationUnit) -> HashSet<String> {
    let mut bodies: HashMap<String, HashSet<String>> = HashMap::new();
    let mut roots = Names::default();
    for item in &unit.0 {
        match &item.node {
            c::ExternalDeclaration::FunctionDefinition(f) => {
                let Some(name) = declarator_name(&f.node.declarator.node) else {
                    continue;
                };
                let mut names = Names::default();
                names.visit_function_definition(&f.node, &f.span);
                if name.node.name == "main" {
                    roots.0.extend(names.0);
                    roots.0.insert("main".to_string());
                } else {
                    bodies.insert(name.node.name.clone(), names.0);
                }
            }
            c::ExternalDeclaration::Declaration(d) => roots.visit_declaration(&d.node, &d.span),
            c::ExternalDeclaration::StaticAssert(_) => {}
        }
    }
    let mut used: HashSet<String> = HashSet::new();
    let mut pending: Vec<String> = roots.0.into_iter().collect();
    while let Some(name) = pending.pop() {
        if let Some(body) = bodies.get(&name) {
            if used.insert(name) {
                pending.extend(body.iter().filter(|n| !used.contains(*n)).cloned());
            }
        }
    }
    bodies.into_keys().filter(|f| !used.contains(f)).collect()
}
