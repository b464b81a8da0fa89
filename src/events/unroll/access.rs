//! Accesses through an index or a pointer: one guarded case per cell, under the implicit
//! check that the address is valid.

use super::{blank_event, Builder, ThreadState};
use crate::diagnostics::Span;
use crate::events::{AccessCheck, Event, EventKind, TermId};
use crate::program::{Address, BinaryOp, LocId, UnaryOp};

impl Builder {
    /// Run `access` on the cell `address` denotes.
    ///
    /// A fixed address costs nothing. A register-indexed one `y[i]` over cells
    /// `y[0..n]` becomes, after a bounds check, the case split
    /// `if (i == 0) access(y[0]) else if (i == 1) access(y[1]) ... else access(y[n-1])`
    /// through [`Builder::branch`]: each cell's events are ordinary events on a fixed
    /// location whose guard adds "index term == k", so bounds, encoding and witnesses need
    /// nothing new, and registers the access assigns are merged with `Ite` at the join.
    /// Every cell of the array is a case: the static value sets of `bounds` are computed
    /// from the events, after unrolling, so they cannot prune cases here; the solver
    /// discards the infeasible ones through their guards.
    ///
    /// An index outside the array is undefined behaviour in C. It is neither dropped nor
    /// given a made-up cell: the bounds check is an implicit `assert(0 <= i && i < n)` at
    /// the access (as a bounded model checker's bounds check), so an execution that
    /// indexes out of bounds is reported as an assertion failure, with its witness, and
    /// exits with the defect code; and the thread stops there (the rest of it, the access
    /// included, is guarded by "in bounds", as a loop's continuation is guarded by "exited
    /// within the bound"), since nothing after undefined behaviour has a meaning and no
    /// value is invented for the read. Such an execution keeps its final state (its
    /// stopped thread's registers as they were), as executions with a failing `assert` do.
    pub(super) fn at(
        &mut self,
        state: &mut ThreadState,
        address: &Address,
        span: Span,
        access: &dyn Fn(&mut Builder, &mut ThreadState, LocId),
    ) {
        let (cells, index, keys, in_bounds, within) = match address {
            Address::Fixed(loc) => return access(self, state, *loc),
            Address::Indexed { cells, index } => {
                let index = self.term(index, state);
                let in_bounds = self.index_within(index, cells.len());
                let keys = (0..cells.len())
                    .map(|k| i32::try_from(k).unwrap_or(i32::MAX))
                    .collect();
                (cells, index, keys, Some(in_bounds), Some(cells.len()))
            }
            Address::Pointer { value, cells } => {
                // Valid when the value is the address of one of the cells it may point to
                // (the term is made below, over the cells kept).
                let value = self.term(value, state);
                let keys: Vec<i32> = cells.iter().map(|&c| self.addresses[c]).collect();
                (cells, value, keys, None, None)
            }
        };
        let mut cases: Vec<(LocId, i32)> = cells.iter().copied().zip(keys).collect();
        // Only the cells the selector can denote (see `values`): valid when it is one of them.
        let mut in_bounds = in_bounds;
        if let Some(possible) = self.term_values(index) {
            let before = cases.len();
            cases.retain(|(_, key)| possible.contains(key));
            if cases.len() < before {
                in_bounds = None;
            }
        }
        let in_bounds = match in_bounds {
            Some(in_bounds) => in_bounds,
            None => {
                let mut valid = self.terms.constant(0);
                for &(_, key) in &cases {
                    let key = self.terms.constant(key);
                    let is_key = self.terms.binary(BinaryOp::Eq, index, key);
                    valid = self.terms.binary(BinaryOp::Or, valid, is_key);
                }
                valid
            }
        };
        self.check_access(state, in_bounds, index, within, span);
        self.cell_case(state, index, &cases, 0, span, access);
    }

    /// The implicit assertion that an access's address is valid (`in_bounds`, over the
    /// index or address `selector`; `within` the number of cells an index must stay
    /// below): an execution where it fails reports it and stops the thread there, and the
    /// rest of the thread is guarded by it.
    pub(super) fn check_access(
        &mut self,
        state: &mut ThreadState,
        in_bounds: TermId,
        selector: TermId,
        within: Option<usize>,
        span: Span,
    ) {
        if self.terms.constant_value(in_bounds) == Some(1) {
            return;
        }
        let check = self.emit(
            state,
            Event {
                kind: EventKind::Assert,
                value: Some(in_bounds),
                ..blank_event(None, 0, span)
            },
        );
        self.access_checks.insert(
            check,
            AccessCheck {
                selector,
                cells: within,
            },
        );
        let out_of_bounds = self.terms.unary(UnaryOp::Not, in_bounds);
        let control = self.stop_when(state, out_of_bounds, in_bounds, span);
        self.address_controls.insert(self.controls[control].event);
    }

    /// `0 <= index < limit`, as a term.
    pub(super) fn index_within(&mut self, index: TermId, limit: usize) -> TermId {
        let zero = self.terms.constant(0);
        let len = self
            .terms
            .constant(i32::try_from(limit).unwrap_or(i32::MAX));
        let non_negative = self.terms.binary(BinaryOp::Ge, index, zero);
        let below = self.terms.binary(BinaryOp::Lt, index, len);
        self.terms.binary(BinaryOp::And, non_negative, below)
    }

    /// The case split of [`Builder::at`] from cell `k` on.
    fn cell_case(
        &mut self,
        state: &mut ThreadState,
        selector: TermId,
        cases: &[(LocId, i32)],
        k: usize,
        span: Span,
        access: &dyn Fn(&mut Builder, &mut ThreadState, LocId),
    ) {
        let Some(&(cell, key)) = cases.get(k) else {
            return;
        };
        if self.cut {
            return;
        }
        if k + 1 == cases.len() {
            // In bounds and no earlier cell: this one.
            return access(self, state, cell);
        }
        let k_term = self.terms.constant(key);
        let is_k = self.terms.binary(BinaryOp::Eq, selector, k_term);
        // The branch's own control comes before any its cases add.
        let split = self
            .terms
            .constant_value(is_k)
            .is_none()
            .then_some(self.controls.len());
        self.branch(
            state,
            is_k,
            span,
            |b, s| access(b, s, cell),
            |b, s| b.cell_case(s, selector, cases, k + 1, span, access),
        );
        if let Some(control) = split.and_then(|c| self.controls.get(c)) {
            self.address_controls.insert(control.event);
        }
    }
}
