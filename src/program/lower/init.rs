//! The init block: locations, arrays and their initial values, registers' initial values.

use super::{type_is_atomic, Lowerer};
use crate::diagnostics::Diagnostic;
use crate::syntax::ast;

/// The cells an array of `len` is laid out with: at most an object's block of addresses
/// (past it, its cells would take the next object's addresses); a longer one is refused.
fn laid_out_cells(len: u32) -> u32 {
    len.min(crate::program::OBJECT_STRIDE as u32)
}

impl Lowerer {
    /// The address a bare name stands for in the init block and the condition (`p = x;`,
    /// `0:r1=y`): the location `x`, the first cell of array `x`, 0 for `NULL`. A name the test has
    /// not declared is a location of its own, as herd7 has it (`{ x1 = y1; }` declares
    /// both).
    fn named_address(&mut self, id: &ast::Ident) -> Option<i32> {
        if id.name == "NULL" {
            return Some(0);
        }
        let cell = if self.arrays.contains_key(&id.name) {
            format!("{}[0]", id.name)
        } else {
            id.name.clone()
        };
        let loc = self.location(&cell);
        Some(self.locations[loc].address)
    }

    /// Steps after a location's name (and its one index) that lowering cannot take:
    /// struct paths are flattened by now, so any left name a location that is not a struct
    /// or index a cell. Reported; false when there are some.
    pub(super) fn no_steps_left(&mut self, name: &ast::Ident, steps: &[ast::Member]) -> bool {
        let Some(step) = steps.first() else {
            return true;
        };
        let diagnostic = match step {
            ast::Member::Field(field) => {
                Diagnostic::new(format!("`{}` is not a struct", name.name), field.span)
            }
            ast::Member::Index(_, span) => {
                Diagnostic::new(format!("`{}` is indexed twice", name.name), *span)
                    .with_label("its cells are integers")
            }
        };
        self.error(diagnostic);
        false
    }

    /// A constant address: `x`, `&a[1]`, `a + 1`.
    pub(super) fn constant_address(&mut self, address: &ast::AddressOf) -> Option<i32> {
        let (index, rest) = match address.members.split_first() {
            Some((ast::Member::Index(i, _), rest)) => (i64::from(*i), rest),
            _ => (0, &address.members[..]),
        };
        if !self.no_steps_left(&address.name, rest) {
            return None;
        }
        let moved = index + address.offset;
        if address.name.name == "NULL" && moved != 0 {
            self.error(Diagnostic::new(
                "an address computed from NULL",
                address.span,
            ));
            return None;
        }
        let base = self.named_address(&address.name)?;
        self.int_value(i64::from(base) + moved, address.span).into()
    }

    /// The address of a location the test already has (the condition names no new ones).
    pub(super) fn existing_address(&mut self, address: &ast::AddressOf) -> Option<i32> {
        let id = &address.name;
        if id.name == "NULL"
            || self.loc_by_name.contains_key(&id.name)
            || self.arrays.contains_key(&id.name)
        {
            return self.constant_address(address);
        }
        self.error(
            Diagnostic::new(format!("unknown location `{}`", id.name), id.span)
                .with_label("compared with an address")
                .with_help("a register compared with `x` holds the address of location `x`"),
        );
        None
    }

    pub(super) fn declare_init(&mut self, test: &ast::LitmusTest) {
        // Arrays first: `{ int *p = &a[1]; int a[2]; }` must lay `a` out as an array.
        for item in &test.init {
            if let (Some(len), ast::StateVar::Location { name, .. }) =
                (item.array_len, &item.target)
            {
                if len > laid_out_cells(len) {
                    self.error(
                        Diagnostic::new(format!("array `{}` of {len} cells", name.name), item.span)
                            .with_help(format!(
                                "nemos lays out arrays of up to {} cells",
                                crate::program::OBJECT_STRIDE
                            )),
                    );
                }
                self.arrays.insert(name.name.clone(), laid_out_cells(len));
            }
        }
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
                    Some(ast::InitValue::Address(address)) => {
                        if let Some(v) = self.constant_address(address) {
                            self.register_inits
                                .entry(*thread)
                                .or_default()
                                .push((name.clone(), v));
                        }
                    }
                    Some(ast::InitValue::List(_)) => self.error(Diagnostic::new(
                        "a register cannot be initialised with a list",
                        item.span,
                    )),
                },
                ast::StateVar::Location {
                    name,
                    index,
                    members,
                } => {
                    if !self.no_steps_left(name, members) {
                        continue;
                    }
                    let values: Vec<i64> = match &item.value {
                        None => vec![],
                        Some(ast::InitValue::Int(v)) | Some(ast::InitValue::AtomicInit(v)) => {
                            vec![*v]
                        }
                        Some(ast::InitValue::List(vs)) => vs.clone(),
                        Some(ast::InitValue::Address(address)) => {
                            // Laid out when first named, like every object.
                            self.constant_address(address)
                                .map(i64::from)
                                .into_iter()
                                .collect()
                        }
                    };
                    if let Some(len) = item.array_len.map(laid_out_cells) {
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
