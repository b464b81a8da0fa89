//! The final condition, the filter and the `locations` list: names of registers and
//! locations resolved against the lowered threads.

use super::Lowerer;
use crate::diagnostics::Diagnostic;
use crate::program::{Location, Observable, Register, StateProp, ThreadProgram};
use crate::syntax::ast;

/// herd's order: registers by thread then name, then locations by name.
pub(super) fn sort_observed(
    observed: &mut Vec<Observable>,
    threads: &[ThreadProgram],
    locs: &[Location],
) {
    observed.sort_by(|a, b| {
        let key = |o: &Observable| match *o {
            Observable::Reg { thread, reg } => (
                0,
                threads[thread].index,
                threads[thread].registers[reg].name.clone(),
            ),
            Observable::Loc(l) => (1, 0, locs[l].name.clone()),
        };
        key(a).cmp(&key(b))
    });
    observed.dedup();
}

impl Lowerer {
    /// What a `locations` entry names: an array named whole is every one of its cells. A
    /// register its thread never declares is listed with the value every register starts
    /// with, 0 (herd's registers start at 0 too; what herd prints here was not checked):
    /// the list only says what to print (a condition or filter that names such a register
    /// is an error, where a typo would change the verdict).
    pub(super) fn listed_observables(
        &mut self,
        var: &ast::StateVar,
        threads: &mut [ThreadProgram],
    ) -> Vec<Observable> {
        if let ast::StateVar::Register { thread, name } = var {
            if let Some(t) = threads.iter().position(|t| t.index == *thread) {
                let declared = threads[t]
                    .registers
                    .iter()
                    .any(|r| r.name == name.name && !r.temporary);
                if !declared {
                    threads[t].registers.push(Register {
                        name: name.name.clone(),
                        initial: 0,
                        temporary: false,
                    });
                }
            }
        }
        if let ast::StateVar::Location {
            name, index: None, ..
        } = var
        {
            if let Some(&len) = self.arrays.get(&name.name) {
                return (0..len)
                    .filter_map(|i| self.loc_by_name.get(&format!("{}[{}]", name.name, i)))
                    .map(|&cell| Observable::Loc(cell))
                    .collect();
            }
        }
        self.resolve_state_var(var, threads).into_iter().collect()
    }

    pub(super) fn resolve_state_var(
        &mut self,
        var: &ast::StateVar,
        threads: &[ThreadProgram],
    ) -> Option<Observable> {
        match var {
            ast::StateVar::Register { thread, name } => {
                let Some(t) = threads.iter().position(|t| t.index == *thread) else {
                    self.error(Diagnostic::new(
                        format!("there is no thread P{thread}"),
                        name.span,
                    ));
                    return None;
                };
                match threads[t]
                    .registers
                    .iter()
                    .position(|r| r.name == name.name && !r.temporary)
                {
                    Some(reg) => Some(Observable::Reg { thread: t, reg }),
                    None => {
                        self.error(
                            Diagnostic::new(
                                format!("thread P{} has no register `{}`", thread, name.name),
                                name.span,
                            )
                            .with_help("the condition may only name registers the thread declares"),
                        );
                        None
                    }
                }
            }
            ast::StateVar::Location {
                name,
                index,
                members,
            } => {
                if !self.no_steps_left(name, members) {
                    return None;
                }
                let cell = match index {
                    Some(i) => format!("{}[{}]", name.name, i),
                    None if self.arrays.contains_key(&name.name) => format!("{}[0]", name.name),
                    None => name.name.clone(),
                };
                match self.loc_by_name.get(&cell) {
                    Some(&l) => Some(Observable::Loc(l)),
                    None => {
                        self.error(
                            Diagnostic::new(format!("unknown location `{cell}`"), name.span)
                                .with_help(
                                    "name a location of the init block or a thread parameter",
                                ),
                        );
                        None
                    }
                }
            }
        }
    }

    pub(super) fn lower_prop(
        &mut self,
        prop: &ast::Prop,
        threads: &[ThreadProgram],
    ) -> Option<StateProp> {
        Some(match prop {
            ast::Prop::True(_) => StateProp::Const(true),
            ast::Prop::False(_) => StateProp::Const(false),
            ast::Prop::Atom {
                var,
                negated,
                value,
                span,
            } => {
                let var = self.resolve_state_var(var, threads);
                let value = match value {
                    ast::AtomValue::Int(v) => Some(self.int_value(*v, *span)),
                    ast::AtomValue::Address(address) => self.existing_address(address),
                    ast::AtomValue::Var(other) => {
                        let other = self.resolve_state_var(other, threads);
                        return Some(StateProp::Equal {
                            a: var?,
                            b: other?,
                            negated: *negated,
                        });
                    }
                };
                StateProp::Atom {
                    var: var?,
                    value: value?,
                    negated: *negated,
                }
            }
            ast::Prop::Not(p, _) => StateProp::Not(Box::new(self.lower_prop(p, threads)?)),
            ast::Prop::And(a, b) => {
                let a = self.lower_prop(a, threads);
                let b = self.lower_prop(b, threads);
                StateProp::And(Box::new(a?), Box::new(b?))
            }
            ast::Prop::Or(a, b) => {
                let a = self.lower_prop(a, threads);
                let b = self.lower_prop(b, threads);
                StateProp::Or(Box::new(a?), Box::new(b?))
            }
            ast::Prop::Implies(a, b) => {
                let a = self.lower_prop(a, threads);
                let b = self.lower_prop(b, threads);
                StateProp::Implies(Box::new(a?), Box::new(b?))
            }
        })
    }
}
