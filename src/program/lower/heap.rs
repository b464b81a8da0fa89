//! `malloc`, `calloc` and `free`: each call lowered makes a block of its own (a function
//! is inlined at each call, so each call of it in each thread gets one), a fresh object of
//! locations whose cells exist from its [`Instr::Alloc`] on (see `docs/heap.md`).

use super::{constant_value, Lowerer, ThreadScope, MAX_INDEXED_CELLS};
use crate::diagnostics::{Diagnostic, Span};
use crate::program::{Expr, HeapCell, Instr, RegId};
use crate::syntax::ast;

/// The calls this file lowers.
pub(super) fn is_heap_call(name: &str) -> bool {
    matches!(name, "malloc" | "calloc" | "free")
}

impl Lowerer {
    /// Lower `malloc(n)`, `calloc(k, n)` (sizes in cells, `sizeof` being a type's cells) or
    /// `free(p)`; `None` after an error.
    pub(super) fn heap_call(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
        dst: Option<RegId>,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<()> {
        if name.name == "free" {
            if !self.arity(name, args, 1, span) {
                return None;
            }
            let ptr = self.lower_expr(&args[0], scope, out)?;
            out.push(Instr::Free { ptr, span });
            return Some(());
        }
        let zeroed = name.name == "calloc";
        if !self.arity(name, args, if zeroed { 2 } else { 1 }, span) {
            return None;
        }
        let mut cells: i64 = 1;
        for arg in args {
            let Some(n) = constant_value(arg) else {
                self.error(
                    Diagnostic::new(
                        format!("the size given to `{}` is not a constant", name.name),
                        arg.span,
                    )
                    .with_help("nemos allocates blocks of a size known before running: `malloc(sizeof(T))`, `calloc(4, sizeof(int))`"),
                );
                return None;
            };
            cells = cells.saturating_mul(n);
        }
        let limit = i64::try_from(MAX_INDEXED_CELLS).unwrap_or(i64::MAX);
        if !(0..=limit).contains(&cells) {
            self.error(
                Diagnostic::new(
                    format!("a block of {cells} cells is not supported"),
                    span,
                )
                .with_help(format!(
                    "nemos allocates blocks of 0 to {MAX_INDEXED_CELLS} cells (`sizeof` counts cells: one per scalar or pointer)"
                )),
            );
            return None;
        }
        let block = self.heap_block(&name.name, cells.max(1) as usize, zeroed);
        let address = self.locations[block[0]].address;
        out.push(Instr::Alloc { cells: block, span });
        if let Some(dst) = dst {
            out.push(Instr::Assign {
                dst,
                value: Expr::Const(address),
                span,
            });
        }
        Some(())
    }

    /// A fresh block of `cells` locations named `what#k[i]`.
    pub(super) fn heap_block(&mut self, what: &str, cells: usize, zeroed: bool) -> Vec<usize> {
        self.heap_blocks += 1;
        let object = format!("{what}#{}", self.heap_blocks);
        let mut block = Vec::new();
        for i in 0..cells {
            let loc = self.location(&format!("{object}[{i}]"));
            block.push(loc);
        }
        for &loc in &block {
            self.locations[loc].heap = Some(HeapCell {
                block: block[0],
                zeroed,
            });
        }
        block
    }
}
