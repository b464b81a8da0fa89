//! Compare-exchange retry loops that reuse the value a failed exchange read (GenMC's
//! spin-assume on a loop whose header value comes from a load or a failed CAS of the same
//! location): `r = x; while (!cas(&x, &r, v)) body;`, where the body may reload `r` from
//! `x`. Such a loop is reduced to its first test and the assumption that the exchange
//! succeeded there; docs/unrolling.md, "Compare-exchange retry loops", says why no outcome,
//! assertion failure, race, deadlock or count changes.

use std::collections::BTreeSet;

use super::flow::{negated_register, Flow};
use crate::program::{Address, Expected, Instr, LocId, MemOrder, Program, RegId, Tags};

/// Per location: some access may write it non-atomically (a plain store, a plain
/// read-modify-write, the write-back of a compare-exchange whose expected value is a
/// location), or it is a cell of an allocated block (whose `free` is an access of its
/// own). A retry loop reading such a location is not reduced: a read of a dropped
/// iteration could race with that write while no kept read does.
pub(super) fn plain_written(program: &Program) -> Vec<bool> {
    fn mark(address: &Address, out: &mut [bool]) {
        for &l in address.cells() {
            out[l] = true;
        }
    }
    fn walk(instrs: &[Instr], out: &mut [bool]) {
        for instr in instrs {
            match instr {
                Instr::Store { loc, order, .. } | Instr::Rmw { loc, order, .. }
                    if *order == MemOrder::NonAtomic =>
                {
                    mark(loc, out)
                }
                Instr::CompareExchange {
                    loc,
                    expected,
                    success,
                    ..
                } => {
                    if *success == MemOrder::NonAtomic {
                        mark(loc, out);
                    }
                    if let Expected::Location(e) = expected {
                        out[*e] = true;
                    }
                }
                _ => {}
            }
            for nested in instr.nested() {
                walk(nested, out);
            }
        }
    }
    let mut out: Vec<bool> = program.locations.iter().map(|l| l.heap.is_some()).collect();
    for thread in &program.threads {
        walk(&thread.body, &mut out);
    }
    out
}

/// The load `r = x` that feeds a retry loop and the loop's reads must agree on: location,
/// memory order and tags (a failed exchange's read carries its failure order and tags).
struct Feed<'a> {
    reg: RegId,
    loc: LocId,
    order: MemOrder,
    tags: &'a Tags,
}

impl Feed<'_> {
    /// Every write of `r` in `instrs` is a reload `r = x` with the feed's order and tags.
    fn only_reloads(&self, instrs: &[Instr]) -> bool {
        instrs.iter().all(|instr| {
            let ok = match instr {
                Instr::Load {
                    dst,
                    loc,
                    order,
                    tags,
                    ..
                } if *dst == self.reg => {
                    loc.fixed() == Some(self.loc) && *order == self.order && tags == self.tags
                }
                Instr::Assign { dst, .. } => *dst != self.reg,
                Instr::Rmw { dst, .. } => *dst != Some(self.reg),
                Instr::CompareExchange { dst, expected, .. } => {
                    *dst != Some(self.reg) && *expected != Expected::Register(self.reg)
                }
                Instr::CallEnter { bind, .. } => bind.iter().all(|(d, _)| *d != self.reg),
                _ => true,
            };
            ok && instr.nested().into_iter().all(|b| self.only_reloads(b))
        })
    }
}

/// Some instruction of `instrs` may write `r`.
fn writes_register(instrs: &[Instr], r: RegId) -> bool {
    let mut flow = Flow::default();
    // A run that does not follow (a store, say) is refused elsewhere; count it as writing.
    !flow.follow(instrs, None) || flow.written.contains(&r)
}

/// The locations the loads of `instrs` may read.
fn loaded(instrs: &[Instr], out: &mut BTreeSet<LocId>) {
    for instr in instrs {
        if let Instr::Load { loc, .. } = instr {
            out.extend(loc.cells().iter().copied());
        }
        for nested in instr.nested() {
            loaded(nested, out);
        }
    }
}

/// Whether `while (cond) body` (its condition's accesses in `prelude`), right after
/// `previous`, is a compare-exchange retry loop that reduces to its first test:
/// - `previous` is an atomic load `r = x` at a fixed location;
/// - the condition is `!c`, `c` the result of a compare-exchange of `x` last in the prelude
///   whose expected value is `r` and whose failure reads as that load does (same order,
///   same tags);
/// - an iteration, `body; prelude; cond`, otherwise passes the spin loops' checks (only
///   reads, register assignments, branches and fences; addresses that do not vary), but
///   may read `r` before writing it; it writes `r` only by the exchange's failure and by
///   reloads `r = x` in the body with the load's order and tags;
/// - the body writes no register but `r` and temporaries, and the prelude reads none the
///   body writes but `r` (the exchange that exits computes from `r` and what the loop
///   leaves alone); the prelude writes each register it writes on every path, or a
///   temporary;
/// - nothing writes `x` or a location the loop loads non-atomically (`plain`), and none is
///   a heap cell.
pub(super) fn cas_retry_reducible(
    temporaries: &[bool],
    plain: &[bool],
    previous: Option<&Instr>,
    prelude: &[Instr],
    cond: &crate::program::Expr,
    body: &[Instr],
) -> bool {
    let Some(Instr::Load {
        dst,
        loc: Address::Fixed(x),
        order,
        tags,
        ..
    }) = previous
    else {
        return false;
    };
    let feed = Feed {
        reg: *dst,
        loc: *x,
        order: *order,
        tags,
    };
    if feed.order == MemOrder::NonAtomic {
        return false;
    }
    let Some(c) = negated_register(cond) else {
        return false;
    };
    let Some(Instr::CompareExchange {
        dst: Some(d),
        loc,
        expected: Expected::Register(e),
        failure,
        tags: success_tags,
        failure_tags,
        ..
    }) = prelude.last()
    else {
        return false;
    };
    // A failed exchange's read is tagged with its failure tags when it has some, with its
    // tags otherwise (`encode::model`'s `tagged`).
    let read_tags = if failure_tags.is_empty() {
        success_tags
    } else {
        failure_tags
    };
    if *d != c
        || loc.fixed() != Some(feed.loc)
        || *e != feed.reg
        || *failure != feed.order
        || read_tags != feed.tags
        || *d == feed.reg
    {
        return false;
    }
    let mut flow = Flow::default();
    if !flow.follow(body, None) {
        return false;
    }
    let body_written = flow.written.clone();
    if !flow.follow(prelude, Some(c)) {
        return false;
    }
    flow.uses(cond);
    let mut prelude_flow = Flow::default();
    if !prelude_flow.follow(prelude, Some(c)) {
        return false;
    }
    let mut read = BTreeSet::new();
    loaded(body, &mut read);
    loaded(prelude, &mut read);
    read.insert(feed.loc);
    let others = |set: &BTreeSet<RegId>| set.iter().all(|&r| r == feed.reg);
    others(&(&flow.exposed & &flow.written))
        && flow.addressing.is_disjoint(&flow.varying)
        && feed.only_reloads(body)
        && !writes_register(&prelude[..prelude.len() - 1], feed.reg)
        && body_written
            .iter()
            .all(|&r| r == feed.reg || temporaries[r])
        && others(&(&prelude_flow.exposed & &body_written))
        && prelude_flow
            .written
            .iter()
            .all(|&r| r == feed.reg || prelude_flow.surely.contains(&r) || temporaries[r])
        && read.iter().all(|&l| !plain[l])
}

impl super::Builder {
    /// A compare-exchange retry loop right after the load that feeds it
    /// ([`cas_retry_reducible`]): its first test, then the assumption that the exchange
    /// succeeded there. `false` (nothing emitted) for any other loop.
    pub(super) fn cas_retry(
        &mut self,
        state: &mut super::ThreadState,
        previous: Option<&Instr>,
        prelude: &[Instr],
        cond: &crate::program::Expr,
        body: &[Instr],
        span: crate::diagnostics::Span,
    ) -> bool {
        // A loop the spin-loop reduction takes keeps it (`control.rs`).
        if !self.reduce_retry_loops
            || self.spin_loop(state, prelude, cond, body)
            || !cas_retry_reducible(
                &state.temporaries,
                &self.plain_written,
                previous,
                prelude,
                cond,
                body,
            )
        {
            return false;
        }
        self.block(prelude, state);
        if self.cut {
            return true;
        }
        let exits =
            crate::program::Expr::Unary(crate::program::UnaryOp::Not, Box::new(cond.clone()));
        self.check(state, crate::events::EventKind::Assume, &exits, span);
        self.retry_loops.push((state.index, span));
        true
    }
}
