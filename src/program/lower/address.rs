//! Addresses: which cell `*x`, `a[1]`, `y + r0` or `&y[r0]` denotes, and the cells an
//! access through a register-dependent index can reach.

use super::{constant_value, Lowerer, ThreadScope, DEFAULT_ARRAY_CELLS, MAX_INDEXED_CELLS};
use crate::diagnostics::{Diagnostic, Span};
use crate::program::{Address, BinaryOp, Expr, Instr};
use crate::syntax::ast::{self, ExprKind};

/// In a function's body, the pointer parameter `e` is (through casts).
fn bound_name<'e>(e: &'e ast::Expr, scope: &ThreadScope) -> Option<&'e ast::Ident> {
    match &e.kind {
        ExprKind::Cast(_, inner) => bound_name(inner, scope),
        ExprKind::Name(id) if scope.binding(&id.name).is_some() => Some(id),
        _ => None,
    }
}

/// An access through a pointer value; the points-to pass fills in its cells.
fn pointer(value: Expr) -> Address {
    Address::Pointer {
        value,
        cells: Vec::new(),
    }
}

impl Lowerer {
    pub(super) fn is_location_name(&self, name: &str, scope: &ThreadScope) -> bool {
        // In a function's body: its pointer parameters and the test's locations, which
        // every thread may name; not the calling thread's parameter list.
        if let Some(frame) = &scope.frame {
            return frame.pointers.contains_key(name)
                || self.global_names.contains(name)
                || self.arrays.contains_key(name);
        }
        scope.params.iter().any(|p| p == name)
            || self.loc_by_name.contains_key(name)
            || self.arrays.contains_key(name)
    }

    /// The cell written or read by `*p`, `p[i]` or `*(p + i)`. A register-dependent
    /// index is lowered into `out` (hoisting its own memory accesses).
    pub(super) fn lvalue_location(
        &mut self,
        e: &ast::Expr,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<Address> {
        match &e.kind {
            ExprKind::Unary(ast::UnaryOp::Deref, inner) => self.address(inner, scope, out),
            ExprKind::Index(base, index) => self.indexed_address(base, index, scope, out),
            _ => {
                self.error(Diagnostic::new(
                    "expected a memory access such as `*x` or `a[1]`",
                    e.span,
                ));
                None
            }
        }
    }

    /// `base[index]` (or `base + index`): a fixed cell when the index is a constant, as
    /// every address was before register-indexed accesses, else an [`Address::Indexed`].
    pub(super) fn indexed_address(
        &mut self,
        base: &ast::Expr,
        index: &ast::Expr,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<Address> {
        if let Some(id) = bound_name(base, scope) {
            return self.bound_address(id, Some(index), base.span, scope, out);
        }
        if !self.names_location(base, scope) {
            // `p[i]` with `p` a pointer value: the cell at address `p + i`.
            let base = self.lower_expr(base, scope, out)?;
            let index = self.lower_expr(index, scope, out)?;
            return Some(pointer(Expr::Binary(
                BinaryOp::Add,
                Box::new(base),
                Box::new(index),
            )));
        }
        if constant_value(index).is_some() {
            let offset = self.constant_index(index)?;
            return self.address_offset(base, offset, scope).map(Address::Fixed);
        }
        let cells = self.array_cells(base, scope)?;
        let index = self.lower_expr(index, scope, out)?;
        Some(Address::Indexed { cells, index })
    }

    /// The cells of the array a pointer expression names, for a register-dependent index:
    /// every declared cell of an array, the one cell of a plain location.
    pub(super) fn array_cells(
        &mut self,
        base: &ast::Expr,
        scope: &ThreadScope,
    ) -> Option<Vec<usize>> {
        if let ExprKind::Cast(_, inner) = &base.kind {
            return self.array_cells(inner, scope);
        }
        if let ExprKind::Name(id) = &base.kind {
            if let Some(&len) = self.arrays.get(&id.name) {
                if len as usize > MAX_INDEXED_CELLS {
                    self.error(
                        Diagnostic::new(
                            format!(
                                "a register-indexed access into `{}`, an array of {len} cells",
                                id.name
                            ),
                            base.span,
                        )
                        .with_help(format!(
                            "nemos splits such an access into one guarded access per cell, \
                             and supports arrays of up to {MAX_INDEXED_CELLS} cells there"
                        )),
                    );
                    return None;
                }
                return Some(
                    (0..len)
                        .map(|i| self.location(&format!("{}[{}]", id.name, i)))
                        .collect(),
                );
            }
        }
        // A plain location (or an error, reported once by `address_offset`).
        self.address_offset(base, 0, scope).map(|loc| vec![loc])
    }

    pub(super) fn constant_index(&mut self, index: &ast::Expr) -> Option<u32> {
        match constant_value(index) {
            Some(v) if (0..=u32::MAX as i64).contains(&v) => Some(v as u32),
            Some(v) => {
                self.error(Diagnostic::new(
                    format!("array index {v} is out of range"),
                    index.span,
                ));
                None
            }
            None => {
                self.error(Diagnostic::new("array index is not a constant", index.span));
                None
            }
        }
    }

    /// The location a pointer expression denotes.
    pub(super) fn address(
        &mut self,
        e: &ast::Expr,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<Address> {
        if let Some(id) = bound_name(e, scope) {
            return self.bound_address(id, None, e.span, scope, out);
        }
        match &e.kind {
            ExprKind::Binary(ast::BinaryOp::Add, base, index)
                if self.denotes_object(base, scope) || self.denotes_object(index, scope) =>
            {
                // `i + y` is `y + i` in C.
                if self.denotes_object(index, scope) && !self.denotes_object(base, scope) {
                    return self.indexed_address(index, base, scope, out);
                }
                self.indexed_address(base, index, scope, out)
            }
            ExprKind::Cast(_, inner) => self.address(inner, scope, out),
            ExprKind::Unary(ast::UnaryOp::AddrOf, inner) => match &inner.kind {
                ExprKind::Name(id) if scope.lookup(&id.name).is_some() => {
                    self.register_address(id);
                    None
                }
                ExprKind::Name(id) if scope.binding(&id.name).is_some() => {
                    self.error(
                        Diagnostic::new(
                            format!("`&{}` is the address of a pointer parameter", id.name),
                            e.span,
                        )
                        .with_help(format!(
                            "pointers to pointers are not supported; write `{}` for the address it holds",
                            id.name
                        )),
                    );
                    None
                }
                ExprKind::Name(_) => self.address_offset(inner, 0, scope).map(Address::Fixed),
                ExprKind::Index(base, index) => self.indexed_address(base, index, scope, out),
                _ => {
                    self.error(Diagnostic::new(
                        "cannot take the address of this expression",
                        e.span,
                    ));
                    None
                }
            },
            ExprKind::Name(id) if scope.lookup(&id.name).is_none() => {
                self.address_offset(e, 0, scope).map(Address::Fixed)
            }
            // A pointer value: a register, a pointer loaded from memory (`*(*pp)`), pointer
            // arithmetic on either.
            _ => self.lower_expr(e, scope, out).map(pointer),
        }
    }

    /// The value of an address: the cell's address, or the address computed at run time.
    pub(super) fn address_value(&self, address: Address) -> Expr {
        match address {
            Address::Fixed(loc) => Expr::Const(self.locations[loc].address),
            Address::Indexed { cells, index } => {
                let first = cells.first().map_or(0, |&c| self.locations[c].address);
                match index {
                    Expr::Const(k) => Expr::Const(first.wrapping_add(k)),
                    index => {
                        Expr::Binary(BinaryOp::Add, Box::new(Expr::Const(first)), Box::new(index))
                    }
                }
            }
            Address::Pointer { value, .. } => value,
        }
    }

    /// `e` names a location, an array or a pointer parameter bound to one: an address known
    /// before the program runs.
    fn denotes_object(&self, e: &ast::Expr, scope: &ThreadScope) -> bool {
        self.names_location(e, scope) || bound_name(e, scope).is_some()
    }

    /// `e` is (a cast of) the name of a shared location or array, not a register.
    pub(super) fn names_location(&self, e: &ast::Expr, scope: &ThreadScope) -> bool {
        match &e.kind {
            ExprKind::Cast(_, inner) => self.names_location(inner, scope),
            ExprKind::Name(id) => {
                scope.lookup(&id.name).is_none() && self.is_location_name(&id.name, scope)
            }
            _ => false,
        }
    }

    /// An address that must be known statically (locks, a compare-exchange's expected
    /// location).
    pub(super) fn fixed_address(
        &mut self,
        address: Address,
        what: &str,
        span: Span,
    ) -> Option<usize> {
        match address {
            Address::Fixed(loc) => Some(loc),
            Address::Indexed { .. } => {
                self.error(
                    Diagnostic::new(format!("{what} cannot be indexed by a register"), span)
                        .with_label("this address depends on a register")
                        .with_help("index this array with a constant, e.g. `&a[0]`"),
                );
                None
            }
            Address::Pointer { .. } => {
                self.error(
                    Diagnostic::new(format!("{what} must be a location named in the test"), span)
                        .with_label("this address is a value computed when the program runs")
                        .with_help("name the location, e.g. `&l` for a parameter `l`"),
                );
                None
            }
        }
    }

    pub(super) fn address_offset(
        &mut self,
        base: &ast::Expr,
        offset: u32,
        scope: &ThreadScope,
    ) -> Option<usize> {
        let ExprKind::Name(id) = &base.kind else {
            if let ExprKind::Cast(_, inner) = &base.kind {
                return self.address_offset(inner, offset, scope);
            }
            self.error(
                Diagnostic::new("expected a pointer to a shared location", base.span)
                    .with_help("use a thread parameter such as `x` (for `int* x`)"),
            );
            return None;
        };
        if scope.lookup(&id.name).is_some() {
            self.error(
                Diagnostic::new(
                    format!(
                        "`{}` is a register, not a pointer to a shared location",
                        id.name
                    ),
                    id.span,
                )
                .with_help("registers holding addresses are not supported"),
            );
            return None;
        }
        if let Some(&len) = self.arrays.get(&id.name) {
            if offset >= len {
                self.error(Diagnostic::new(
                    format!(
                        "index {offset} is outside array `{}` of {len} cells",
                        id.name
                    ),
                    base.span,
                ));
                return None;
            }
            return Some(self.location(&format!("{}[{}]", id.name, offset)));
        }
        if !self.is_location_name(&id.name, scope) {
            self.unknown_identifier(id);
            return None;
        }
        if offset != 0 {
            if offset < DEFAULT_ARRAY_CELLS {
                return Some(self.location(&id.name));
            }
            self.error(
                Diagnostic::new(format!("`{}` is not an array", id.name), base.span).with_help(
                    format!(
                        "declare it in the init block, e.g. `int {}[2] = {{0, 0}};`",
                        id.name
                    ),
                ),
            );
            return None;
        }
        Some(self.location(&id.name))
    }
}
