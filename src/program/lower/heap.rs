//! `malloc`, `calloc`, `aligned_alloc` and `free`: each call lowered makes a block of its
//! own (a function is inlined at each call, so each call of it in each thread gets one), a
//! fresh object of locations whose cells exist from its [`Instr::Alloc`] on (see
//! `docs/heap.md`). A size or alignment GenMC rejects is its allocation error
//! ([`CheckKind::AllocationError`]) where the call runs.

use super::{constant_value, Lowerer, ThreadScope, MAX_INDEXED_CELLS};
use crate::diagnostics::{Diagnostic, Span};
use crate::program::checks::CheckKind;
use crate::program::{Expr, HeapCell, Instr, RegId};
use crate::syntax::ast;

/// The calls this file lowers.
pub(super) fn is_heap_call(name: &str) -> bool {
    matches!(name, "malloc" | "calloc" | "aligned_alloc" | "free")
}

/// Whether GenMC allocates a block for these constant arguments (sizes in nemos's cells):
/// a size of at least one, and for `aligned_alloc(align, size)` an alignment that is a
/// power of two and a size that is a multiple of it. C leaves `malloc(0)` to the
/// implementation; GenMC reports it, and so does nemos.
fn valid_allocation(name: &str, args: &[i64]) -> bool {
    match (name, args) {
        ("aligned_alloc", &[align, size]) => {
            align > 0 && align & (align - 1) == 0 && size > 0 && size % align == 0
        }
        _ => args.iter().all(|&n| n > 0),
    }
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
        let arity = if name.name == "malloc" { 1 } else { 2 };
        if !self.arity(name, args, arity, span) {
            return None;
        }
        let mut sizes = Vec::new();
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
            sizes.push(n);
        }
        if !valid_allocation(&name.name, &sizes) {
            out.push(Instr::Check {
                cond: Expr::Const(0),
                kind: CheckKind::AllocationError,
                span,
            });
            if let Some(dst) = dst {
                out.push(Instr::Assign {
                    dst,
                    value: Expr::Const(0),
                    span,
                });
            }
            return Some(());
        }
        let cells = match name.name.as_str() {
            "aligned_alloc" => sizes[1],
            _ => sizes.iter().fold(1i64, |cells, &n| cells.saturating_mul(n)),
        };
        let limit = i64::try_from(MAX_INDEXED_CELLS).unwrap_or(i64::MAX);
        if !(0..=limit).contains(&cells) {
            self.error(
                Diagnostic::new(
                    format!("a block of {cells} cells is not supported"),
                    span,
                )
                .with_help(format!(
                    "nemos allocates blocks of 1 to {MAX_INDEXED_CELLS} cells (`sizeof` counts cells: one per scalar or pointer)"
                )),
            );
            return None;
        }
        let block = self.heap_block(&name.name, cells as usize, zeroed);
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
