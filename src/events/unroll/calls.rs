//! Inlined calls: their entry and exit, and the ordering points of method calls.

use super::{Builder, Deps, ThreadState};
use crate::diagnostics::{Diagnostic, Span};
use crate::events::{Call, CallArgValue, EventId, OrderingPoint, TermId};
use crate::program::{
    BinaryOp, CallArg, CallSiteId, Expr, PointKind, PointerOffset, RegId, UnaryOp,
};

impl Builder {
    /// What an ordering-point annotation (see [`PointKind`]) records: `access` is the
    /// memory event emitted last before it, `marker` its assignment and `value` its
    /// condition.
    pub(super) fn ordering_point(
        &mut self,
        state: &mut ThreadState,
        kind: PointKind,
        access: Option<EventId>,
        marker: EventId,
        value: TermId,
        span: Span,
    ) {
        let missing = || {
            Diagnostic::new("no memory access comes before this ordering point", span).with_help(
                "call `ordering_point(1)` right after the access that orders the method call",
            )
        };
        match kind {
            PointKind::Define => match access {
                Some(access) => self.ordering_points.push(OrderingPoint {
                    access,
                    marker,
                    when: value,
                }),
                None => self.errors.push(missing()),
            },
            PointKind::Potential(label) => match access {
                Some(access) => {
                    let ran = self.guard_term(&state.guard.clone());
                    state.potentials.push((label, access, ran));
                }
                None => self.errors.push(missing()),
            },
            // The latest potential point of the label that ran: each candidate when it ran
            // and no later one did.
            PointKind::Check(label) => {
                let candidates: Vec<(EventId, TermId)> = state
                    .potentials
                    .iter()
                    .filter(|p| p.0 == label)
                    .map(|p| (p.1, p.2))
                    .collect();
                for (k, &(access, ran)) in candidates.iter().enumerate() {
                    let mut when = self.terms.binary(BinaryOp::And, value, ran);
                    for &(_, later) in &candidates[k + 1..] {
                        let not_later = self.terms.unary(UnaryOp::Not, later);
                        when = self.terms.binary(BinaryOp::And, when, not_later);
                    }
                    self.ordering_points.push(OrderingPoint {
                        access,
                        marker,
                        when,
                    });
                }
            }
            PointKind::Clear if state.open_calls.is_empty() => {}
            PointKind::Clear => {
                let ran = self.guard_term(&state.guard.clone());
                let cleared = self.terms.binary(BinaryOp::And, ran, value);
                let kept = self.terms.unary(UnaryOp::Not, cleared);
                for point in &mut self.ordering_points[state.call_points_start..] {
                    point.when = self.terms.binary(BinaryOp::And, point.when, kept);
                }
            }
        }
    }

    /// The beginning of an inlined call: its registers get their values (no events: the
    /// arguments' computations were the caller's), and a [`Call`] records what it received.
    pub(super) fn enter_call(
        &mut self,
        state: &mut ThreadState,
        site: CallSiteId,
        bind: &[(RegId, Expr)],
        span: Span,
    ) {
        let values: Vec<TermId> = bind.iter().map(|(_, e)| self.term(e, state)).collect();
        let deps: Vec<Deps> = bind.iter().map(|(_, e)| self.expr_deps(e, state)).collect();
        for ((&(reg, _), value), deps) in bind.iter().zip(values).zip(deps) {
            state.set_register(reg, value, deps);
        }
        let Some(call_site) = state.sites.get(site) else {
            return;
        };
        let function = call_site.function.clone();
        let args = call_site
            .args
            .iter()
            .map(|arg| match arg {
                CallArg::Value { param, reg } => CallArgValue::Value {
                    param: param.clone(),
                    value: state.registers[*reg],
                },
                CallArg::Pointer {
                    param,
                    base,
                    offset,
                } => CallArgValue::Pointer {
                    param: param.clone(),
                    base: base.clone(),
                    offset: match offset {
                        PointerOffset::Const(k) => {
                            self.terms.constant(i32::try_from(*k).unwrap_or(i32::MAX))
                        }
                        PointerOffset::Reg(r) => state.registers[*r],
                    },
                },
            })
            .collect();
        let number = {
            let n = state.call_counts.entry(function.clone()).or_insert(0);
            *n += 1;
            *n
        };
        let entered = self.guard_term(&state.guard.clone());
        if state.open_calls.is_empty() {
            // A method call begins: its ordering points are its own.
            state.potentials.clear();
            state.call_points_start = self.ordering_points.len();
        }
        let id = self.calls.len();
        self.calls.push(Call {
            thread: state.index,
            site,
            function,
            number,
            parent: state.open_calls.last().copied(),
            args,
            entered,
            returned: entered,
            value: None,
            begin: self.events.len(),
            end: self.events.len(),
            span,
        });
        state.open_calls.push(id);
    }

    /// The end of an inlined call: its value and whether it got there.
    pub(super) fn exit_call(&mut self, state: &mut ThreadState, site: CallSiteId) {
        let Some(id) = state.open_calls.pop() else {
            return;
        };
        let returned = self.guard_term(&state.guard.clone());
        let ret = state.sites.get(site).and_then(|s| s.ret);
        let call = &mut self.calls[id];
        call.returned = returned;
        call.value = ret.map(|r| state.registers[r]);
        call.end = self.events.len();
    }
}
