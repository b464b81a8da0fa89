//! Dynamic memory: the events where a block's cells begin and cease to exist (see
//! `crate::cat::memory` for the defects they define, and `docs/heap.md`).

use super::{blank_event, Builder, ThreadState};
use crate::cat::memory::{ALLOC_TAG, FREE_TAG};
use crate::diagnostics::{Diagnostic, Span};
use crate::events::{Event, EventKind};
use crate::program::{BinaryOp, Expr, LocId, MemOrder};

impl Builder {
    /// `malloc`'s block `cells` begins: an event tagged [`ALLOC_TAG`] on each cell. A
    /// block is one dynamic allocation: a call site run again (a loop's next iteration)
    /// would need a fresh block, which lowering did not make.
    pub(super) fn alloc(&mut self, state: &mut ThreadState, cells: &[LocId], span: Span) {
        let Some(&first) = cells.first() else {
            return;
        };
        if !self.allocated.insert(first) {
            if self.reallocated.insert(first) {
                self.errors.push(
                    Diagnostic::new(
                        "this allocation runs more than once in a loop (within the unrolling bound)",
                        span,
                    )
                    .with_label("one block per call")
                    .with_help(
                        "nemos gives each allocation of the program (each call, each inlined function call, each thread) one block; allocating in a loop that --unroll unrolls is not supported yet",
                    ),
                );
            }
            return;
        }
        for &cell in cells {
            self.heap_event(state, cell, ALLOC_TAG, span);
        }
    }

    /// `free(ptr)`: the block whose first cell `ptr` is the address of ends, an event
    /// tagged [`FREE_TAG`] on each of its cells. `NULL` frees nothing; any other value is
    /// a free of memory never allocated, an implicit assertion that fails.
    pub(super) fn free(&mut self, state: &mut ThreadState, ptr: &Expr, span: Span) {
        let value = self.term(ptr, state);
        let blocks = self.heap_blocks.clone();
        let zero = self.terms.constant(0);
        let mut valid = self.terms.binary(BinaryOp::Eq, value, zero);
        for block in &blocks {
            let key = self.terms.constant(self.addresses[block[0]]);
            let is_block = self.terms.binary(BinaryOp::Eq, value, key);
            valid = self.terms.binary(BinaryOp::Or, valid, is_block);
        }
        if self.terms.constant_value(valid) != Some(1) {
            let check = self.emit(
                state,
                Event {
                    kind: EventKind::Assert,
                    value: Some(valid),
                    ..blank_event(None, 0, span)
                },
            );
            self.free_checks.insert(check);
        }
        self.free_case(state, value, &blocks, span);
    }

    /// The case split of [`Builder::free`] from the first of `blocks` on.
    fn free_case(
        &mut self,
        state: &mut ThreadState,
        value: crate::events::TermId,
        blocks: &[Vec<LocId>],
        span: Span,
    ) {
        let Some((block, rest)) = blocks.split_first() else {
            return;
        };
        if self.cut {
            return;
        }
        let key = self.terms.constant(self.addresses[block[0]]);
        let is_block = self.terms.binary(BinaryOp::Eq, value, key);
        let split = self
            .terms
            .constant_value(is_block)
            .is_none()
            .then_some(self.controls.len());
        self.branch(
            state,
            is_block,
            span,
            |b, s| {
                for &cell in block {
                    b.heap_event(s, cell, FREE_TAG, span);
                }
            },
            |b, s| b.free_case(s, value, rest, span),
        );
        if let Some(control) = split.and_then(|c| self.controls.get(c)) {
            self.address_controls.insert(control.event);
        }
    }

    fn heap_event(&mut self, state: &mut ThreadState, cell: LocId, tag: &str, span: Span) {
        self.emit(
            state,
            Event {
                kind: EventKind::Fence,
                order: MemOrder::NonAtomic,
                tags: vec![tag.to_string()],
                location: Some(cell),
                ..blank_event(None, 0, span)
            },
        );
    }
}
