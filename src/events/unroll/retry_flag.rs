//! Compare-exchange retry loops left by a flag (GenMC's spin-2cas-join2): `r = x; for (;;)
//! { if (r == 42) { if (cas(&x, &r, 42)) break; } else { if (cas(&x, &r, 17)) break; } }`.
//! As in `retry.rs`, a failed exchange writes the value it read into `r` and the loop
//! retries with it, but here the exchanges may be several, under branches, and the loop is
//! left by the `break` flag its success sets rather than by its condition. Such a loop is
//! reduced to one iteration and the assumption that it left the loop; docs/unrolling.md,
//! "Compare-exchange retry loops", says why no outcome, assertion failure, race, deadlock
//! or count changes, and what this shape adds to the argument.
//!
//! The checks, on every path of an iteration (`body; prelude; cond`, followed with the
//! condition's flags 0 at its start, and each compare-exchange taken both ways: success
//! sets its result register to 1, failure to 0 and writes `r`):
//! - the loop follows an atomic load `r = x` at a fixed location (with only constant
//!   assignments to other temporaries, the flags lowering sets before a loop, between);
//! - its entry test holds for sure (`for (;;)`: no prelude, the condition constant when
//!   the flags are 0), so that every execution runs at least one iteration;
//! - an iteration holds only assignments, branches, fences, loads at fixed locations and
//!   compare-exchanges of `x` at a fixed address whose expected value is `r` and whose
//!   failure reads as the load does (same order, same tags); it writes `r` only by those
//!   failures and by reloads `r = x` with the load's order and tags;
//! - a path on which an exchange succeeds leaves the loop (its condition folds to 0), so an
//!   iteration that goes on writes nothing; a path that may go on has an exchange (failed),
//!   so that a thread whose reads of `x` settle on one write leaves the loop;
//! - no path reads a register some path writes before writing it, but `r` and the flags,
//!   and the loop writes no register but `r`, the flags and temporaries (which nothing reads
//!   after it);
//! - no access writes a location the loop loads non-atomically, and none is a heap cell
//!   (`retry::plain_written`).

use std::collections::{BTreeMap, BTreeSet};

use super::flow::{pinned_zero, registers_of};
use super::spin_paths::fold;
use crate::program::{Address, Expected, Expr, Instr, LocId, MemOrder, RegId, Tags};

/// Paths followed at most; a loop with more keeps the bounded unrolling.
const MAX_PATHS: usize = 256;

/// The load `r = x` that feeds the loop.
struct Feed<'a> {
    reg: RegId,
    loc: LocId,
    order: MemOrder,
    tags: &'a Tags,
}

/// One path of an iteration so far.
#[derive(Clone, Default)]
struct Path {
    known: BTreeMap<RegId, i32>,
    written: BTreeSet<RegId>,
    /// Registers read before this path wrote them.
    exposed: BTreeSet<RegId>,
    /// Exchanges that failed on this path.
    failed: usize,
    /// An exchange succeeded on this path.
    succeeded: bool,
}

impl Path {
    /// `expr` as the known registers leave it; what it still reads is read.
    fn read(&mut self, expr: &Expr) -> Expr {
        let folded = fold(expr, &self.known);
        let mut regs = BTreeSet::new();
        registers_of(&folded, &mut regs);
        for r in regs {
            if !self.written.contains(&r) {
                self.exposed.insert(r);
            }
        }
        folded
    }

    fn write(&mut self, r: RegId, value: Option<i32>) {
        self.written.insert(r);
        match value {
            Some(v) => self.known.insert(r, v),
            None => self.known.remove(&r),
        };
    }
}

impl Feed<'_> {
    /// Every path of `paths` through `instrs`, or `None` when an instruction is refused or
    /// there are too many paths.
    fn follow(
        &self,
        paths: Vec<Path>,
        instrs: &[Instr],
        loaded: &mut BTreeSet<LocId>,
    ) -> Option<Vec<Path>> {
        let mut paths = paths;
        for instr in instrs {
            let mut next = Vec::new();
            for mut path in paths {
                match instr {
                    Instr::If {
                        cond,
                        then_branch,
                        else_branch,
                        ..
                    } => {
                        let sides: &[&[Instr]] = match path.read(cond) {
                            Expr::Const(0) => &[else_branch],
                            Expr::Const(_) => &[then_branch],
                            _ => &[then_branch, else_branch],
                        };
                        for side in sides {
                            next.extend(self.follow(vec![path.clone()], side, loaded)?);
                        }
                    }
                    Instr::Assign { dst, value, .. } if *dst != self.reg => {
                        let value = match path.read(value) {
                            Expr::Const(c) => Some(c),
                            _ => None,
                        };
                        path.write(*dst, value);
                        next.push(path);
                    }
                    Instr::Load {
                        dst,
                        loc: Address::Fixed(l),
                        order,
                        tags,
                        ..
                    } => {
                        if *dst == self.reg
                            && (*l != self.loc || *order != self.order || tags != self.tags)
                        {
                            return None;
                        }
                        loaded.insert(*l);
                        path.write(*dst, None);
                        next.push(path);
                    }
                    Instr::CompareExchange {
                        dst: Some(d),
                        loc: Address::Fixed(l),
                        expected: Expected::Register(e),
                        desired,
                        failure,
                        tags,
                        failure_tags,
                        ..
                    } => {
                        // A failed exchange's read is tagged with its failure tags when it
                        // has some, with its tags otherwise (`encode::model`'s `tagged`).
                        let read_tags = if failure_tags.is_empty() {
                            tags
                        } else {
                            failure_tags
                        };
                        if *l != self.loc
                            || *e != self.reg
                            || *d == self.reg
                            || *failure != self.order
                            || read_tags != self.tags
                        {
                            return None;
                        }
                        path.read(&Expr::Reg(*e));
                        path.read(desired);
                        let mut failed = path.clone();
                        failed.write(*d, Some(0));
                        failed.write(*e, None);
                        failed.failed += 1;
                        path.write(*d, Some(1));
                        path.succeeded = true;
                        next.push(path);
                        next.push(failed);
                    }
                    Instr::Fence { loc: None, .. } => next.push(path),
                    _ => return None,
                }
                if next.len() > MAX_PATHS {
                    return None;
                }
            }
            paths = next;
        }
        Some(paths)
    }
}

/// The atomic load `r = x` at a fixed location that feeds a loop placed after `before`,
/// seen through constant assignments to temporaries other than `r` (the flags lowering
/// sets before the loop).
fn feed<'a>(before: &'a [Instr], temporaries: &[bool]) -> Option<Feed<'a>> {
    let at = before.iter().rposition(|i| {
        !matches!(
            i,
            Instr::Assign {
                value: Expr::Const(_),
                ..
            }
        )
    })?;
    let Instr::Load {
        dst,
        loc: Address::Fixed(x),
        order,
        tags,
        ..
    } = &before[at]
    else {
        return None;
    };
    let flags_only = before[at + 1..].iter().all(|i| {
        matches!(i, Instr::Assign { dst: d, .. }
            if d != dst && temporaries.get(*d).copied().unwrap_or(false))
    });
    (flags_only && *order != MemOrder::NonAtomic).then_some(Feed {
        reg: *dst,
        loc: *x,
        order: *order,
        tags,
    })
}

/// Whether `while (cond) body` (its condition's accesses in `prelude`), after `before` in
/// its block, is a compare-exchange retry loop left by a flag (module doc).
pub(super) fn flag_retry_reducible(
    temporaries: &[bool],
    plain: &[bool],
    before: &[Instr],
    prelude: &[Instr],
    cond: &Expr,
    body: &[Instr],
) -> bool {
    let Some(feed) = feed(before, temporaries) else {
        return false;
    };
    let flags = pinned_zero(cond);
    if flags.contains(&feed.reg) || !prelude.is_empty() {
        return false;
    }
    let start = Path {
        known: flags.iter().map(|&r| (r, 0)).collect(),
        ..Path::default()
    };
    // The entry test holds for sure.
    if !matches!(fold(cond, &start.known), Expr::Const(c) if c != 0) {
        return false;
    }
    let mut loaded = BTreeSet::from([feed.loc]);
    let Some(mut paths) = feed.follow(vec![start], body, &mut loaded) else {
        return false;
    };
    let mut exposed = BTreeSet::new();
    let mut written = BTreeSet::new();
    for path in &mut paths {
        let leaves = matches!(path.read(cond), Expr::Const(0));
        // A path that may go on: no exchange succeeded on it, and one failed.
        if !leaves && (path.succeeded || path.failed == 0) {
            return false;
        }
        exposed.extend(path.exposed.iter().copied());
        written.extend(path.written.iter().copied());
    }
    let carried = |r: &RegId| *r == feed.reg || flags.contains(r);
    exposed.iter().all(|r| carried(r) || !written.contains(r))
        && written
            .iter()
            .all(|r| carried(r) || temporaries.get(*r).copied().unwrap_or(false))
        && loaded
            .iter()
            .all(|&l| !plain.get(l).copied().unwrap_or(true))
}

impl super::Builder {
    /// A compare-exchange retry loop left by a flag ([`flag_retry_reducible`]): one
    /// iteration, then the assumption that it left the loop. `false` (nothing emitted) for
    /// any other loop.
    pub(super) fn flag_retry(
        &mut self,
        state: &mut super::ThreadState,
        before: &[Instr],
        prelude: &[Instr],
        cond: &Expr,
        body: &[Instr],
        span: crate::diagnostics::Span,
    ) -> bool {
        // A loop a spin-loop reduction takes keeps it (`control.rs`).
        if !self.reduce_retry_loops
            || self.spin_loop(state, prelude, cond, body)
            || self
                .spin_without_unread(state, prelude, cond, body)
                .is_some()
            || !flag_retry_reducible(
                &state.temporaries,
                &self.plain_written,
                before,
                prelude,
                cond,
                body,
            )
        {
            return false;
        }
        // The flags the condition pins hold 0 on entry, as the check assumed.
        let entry_clear = pinned_zero(cond).iter().all(|&f| {
            state
                .registers
                .get(f)
                .and_then(|&t| self.terms.constant_value(t))
                == Some(0)
        });
        if !entry_clear {
            return false;
        }
        self.block(body, state);
        if self.cut {
            return true;
        }
        let leaves = Expr::Unary(crate::program::UnaryOp::Not, Box::new(cond.clone()));
        self.check(state, crate::events::EventKind::Assume, &leaves, span);
        self.retry_loops.push((state.index, span));
        true
    }
}
