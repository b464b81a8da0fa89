//! The init block: locations, arrays and their initial values, registers' initial values.

use super::{type_is_atomic, Lowerer};
use crate::diagnostics::Diagnostic;
use crate::syntax::ast;

impl Lowerer {
    pub(super) fn declare_init(&mut self, test: &ast::LitmusTest) {
        for item in &test.init {
            let atomic = item.ty.as_ref().is_some_and(type_is_atomic);
            match &item.target {
                ast::StateVar::Register { thread, name } => match &item.value {
                    Some(ast::InitValue::Int(v)) | Some(ast::InitValue::AtomicInit(v)) => {
                        let v = self.int_value(*v, item.span);
                        self.register_inits
                            .entry(*thread)
                            .or_default()
                            .push((name.clone(), v));
                    }
                    None => self
                        .register_inits
                        .entry(*thread)
                        .or_default()
                        .push((name.clone(), 0)),
                    Some(ast::InitValue::Address(_)) => self.error(
                        Diagnostic::new("registers holding addresses are not supported", item.span)
                            .with_help("pass the location to the thread as a parameter instead"),
                    ),
                    Some(ast::InitValue::List(_)) => self.error(Diagnostic::new(
                        "a register cannot be initialised with a list",
                        item.span,
                    )),
                },
                ast::StateVar::Location { name, index } => {
                    let values: Vec<i64> = match &item.value {
                        None => vec![],
                        Some(ast::InitValue::Int(v)) | Some(ast::InitValue::AtomicInit(v)) => {
                            vec![*v]
                        }
                        Some(ast::InitValue::List(vs)) => vs.clone(),
                        Some(ast::InitValue::Address(_)) => {
                            self.error(
                                Diagnostic::new(
                                    "locations holding addresses are not supported",
                                    item.span,
                                )
                                .with_help("nemos models locations holding integers"),
                            );
                            vec![]
                        }
                    };
                    if let Some(len) = item.array_len {
                        if values.len() > len as usize {
                            self.error(Diagnostic::new(
                                format!(
                                    "array `{}` has {} cells but {} initial values",
                                    name.name,
                                    len,
                                    values.len()
                                ),
                                item.span,
                            ));
                        }
                        self.arrays.insert(name.name.clone(), len);
                        for i in 0..len {
                            let cell = self.location(&format!("{}[{}]", name.name, i));
                            let v = values.get(i as usize).copied().unwrap_or(0);
                            self.locations[cell].initial = self.int_value(v, item.span);
                            self.locations[cell].declared_atomic |= atomic;
                        }
                    } else {
                        if values.len() > 1 {
                            self.error(Diagnostic::new(
                                format!("`{}` is not an array", name.name),
                                item.span,
                            ));
                        }
                        let cell_name = match index {
                            Some(i) => format!("{}[{}]", name.name, i),
                            None => name.name.clone(),
                        };
                        let cell = self.location(&cell_name);
                        let v = values.first().copied().unwrap_or(0);
                        self.locations[cell].initial = self.int_value(v, item.span);
                        self.locations[cell].declared_atomic |= atomic;
                    }
                }
            }
        }
    }
}
