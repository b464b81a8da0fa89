//! What unrolling needs to know about a thread's code before it runs it: which locks may
//! stay held, and which spin loops reduce to one test and a wait.

use std::collections::BTreeSet;

use crate::program::{Address, BinaryOp, Expected, Expr, Instr, LocId, Program, RegId, RmwOp};

/// Per location: some critical section of it contains a statement that may stop its thread
/// for good (a `lock`, a loop, which may wait or hit the bound, a register-indexed access,
/// which may be out of bounds), so that the mutex may end held and a `lock` of it may wait
/// forever. Sections are balanced within a block (see `Builder::balanced`).
pub(super) fn may_stay_held(program: &Program) -> Vec<bool> {
    fn walk(instrs: &[Instr], open: &mut Vec<LocId>, out: &mut [bool]) {
        let stops = |open: &[LocId], out: &mut [bool]| {
            for &l in open {
                out[l] = true;
            }
        };
        for instr in instrs {
            match instr {
                Instr::Lock { loc, .. } => {
                    stops(open, out);
                    open.push(*loc);
                }
                Instr::Unlock { loc, .. } => {
                    if let Some(i) = open.iter().rposition(|l| l == loc) {
                        open.remove(i);
                    }
                }
                Instr::While {
                    cond_prelude, body, ..
                } => {
                    stops(open, out);
                    walk(cond_prelude, &mut open.clone(), out);
                    walk(body, &mut open.clone(), out);
                }
                Instr::If {
                    then_branch,
                    else_branch,
                    ..
                } => {
                    walk(then_branch, &mut open.clone(), out);
                    walk(else_branch, &mut open.clone(), out);
                }
                Instr::AtomicBlock { body, .. } => walk(body, &mut open.clone(), out),
                Instr::Load { loc, .. }
                | Instr::Store { loc, .. }
                | Instr::Rmw { loc, .. }
                | Instr::CompareExchange { loc, .. } => {
                    if loc.fixed().is_none() {
                        stops(open, out);
                    }
                }
                Instr::CheckIndex { .. } => stops(open, out),
                Instr::Fence { .. }
                | Instr::Assign { .. }
                | Instr::Assert { .. }
                | Instr::Check { .. }
                | Instr::Assume { .. }
                | Instr::CallEnter { .. }
                | Instr::CallExit { .. }
                | Instr::Alloc { .. }
                | Instr::Free { .. } => {}
            }
        }
    }
    let mut out = vec![false; program.locations.len()];
    for thread in &program.threads {
        walk(&thread.body, &mut Vec::new(), &mut out);
    }
    out
}

/// Per location: every unlock of it in the program is one of a lock its thread holds, so
/// that no unlock of another thread falls inside a critical section a spin loop's failed
/// iteration holds (`Builder::spin_mutexes`). With every unlock valid, the writes of a
/// mutex that is memory alternate in `co` between a lock and the unlock of its own
/// section: each lock reads the write just before it, which must be 0 (an unlock), and
/// an unlock's thread holds the mutex since its last lock. The matching is
/// `program::mutex`'s (a branch starts with what is held before it, and what is held after
/// it is what both sides hold; a loop's body starts with nothing), but a loop each path of
/// whose iterations closes every section it opens (`spin_paths::sections_balanced_by_paths`:
/// `lock; if (c) { unlock; break; } unlock;`) unlocks only what it locked.
pub(super) fn unlocks_matched(program: &Program) -> Vec<bool> {
    fn walk(instrs: &[Instr], held: &mut Vec<LocId>, unmatched: &mut [bool]) {
        for instr in instrs {
            match instr {
                Instr::Lock { loc, .. } => held.push(*loc),
                Instr::Unlock { loc, .. } => match held.iter().rposition(|l| l == loc) {
                    Some(i) => {
                        held.remove(i);
                    }
                    None => unmatched[*loc] = true,
                },
                Instr::If {
                    then_branch,
                    else_branch,
                    ..
                } => {
                    let mut then_held = held.clone();
                    let mut else_held = held.clone();
                    walk(then_branch, &mut then_held, unmatched);
                    walk(else_branch, &mut else_held, unmatched);
                    then_held.retain(|l| else_held.contains(l));
                    *held = then_held;
                }
                Instr::While {
                    cond_prelude,
                    cond,
                    body,
                    ..
                } if !super::spin_paths::sections_balanced_by_paths(cond_prelude, cond, body) => {
                    walk(cond_prelude, &mut Vec::new(), unmatched);
                    walk(body, &mut Vec::new(), unmatched);
                }
                Instr::AtomicBlock { body, .. } => walk(body, &mut held.clone(), unmatched),
                _ => {}
            }
        }
    }
    let mut unmatched = vec![false; program.locations.len()];
    for thread in &program.threads {
        walk(&thread.body, &mut Vec::new(), &mut unmatched);
    }
    unmatched.into_iter().map(|u| !u).collect()
}

/// Registers along a straight run of instructions: read before being written on some path
/// (`exposed`), written on every path (`surely`), written on some path (`written`).
#[derive(Clone, Default)]
pub(super) struct Flow {
    pub(super) exposed: BTreeSet<RegId>,
    pub(super) surely: BTreeSet<RegId>,
    pub(super) written: BTreeSet<RegId>,
    /// Registers an address of a load depends on (`a[i]`, `*q`): none may vary from one
    /// iteration to the next, so every iteration reads the same cell, and a race of a
    /// dropped iteration's read is one of the entry test's or the kept iteration's. (An
    /// address check that fails stops the thread: that iteration is the last, and kept.)
    pub(super) addressing: BTreeSet<RegId>,
    /// Registers whose value may differ between iterations: what a load or a
    /// compare-exchange gives, and what is computed from them or under a branch on them.
    /// (An iteration reads no register it writes before writing it, so the others are
    /// computed from registers the loop leaves alone and are the same every time.)
    pub(super) varying: BTreeSet<RegId>,
    /// Inside a branch whose condition varies.
    under_varying_branch: bool,
    /// Exchanges are followed (a spin loop's, whose unrolling checks that a failed one
    /// writes back what it read); other runs (a retry loop's) refuse them. So are a spin
    /// loop's critical sections: a lock and its unlock in the same iteration, and the
    /// checks of a mutex that is memory (`program::mutex`) when the path's known values
    /// make them hold (`spin_paths.rs`).
    exchanges: bool,
    /// The mutexes locked and not yet unlocked on this run, innermost last.
    held: Vec<LocId>,
    /// The mutexes the run locks: the caller checks that each is one whose critical
    /// section a failed iteration may hold ([`spin_reducible`]).
    locked: BTreeSet<LocId>,
    /// The run has an unlock of a mutex it did not lock, a branch whose sides leave
    /// different mutexes held, or a check its known values do not make hold: the joined
    /// run cannot tell that an iteration's critical sections are balanced and its checks
    /// pass; each path must (`spin_paths.rs`).
    unproven: bool,
}

impl Flow {
    /// A run that follows exchanges, as a spin loop's does.
    pub(super) fn exchanging() -> Flow {
        Flow {
            exchanges: true,
            ..Flow::default()
        }
    }

    /// Every critical section this run opens it closes, and every check it passes, as far
    /// as it knows: the iteration it followed leaves each mutex as it found it.
    pub(super) fn balanced(&self) -> bool {
        !self.unproven && self.held.is_empty()
    }

    /// Every mutex the run locks is one of `mutexes` (per location).
    pub(super) fn locks_only(&self, mutexes: &[bool]) -> bool {
        self.locked
            .iter()
            .all(|&l| mutexes.get(l).copied().unwrap_or(false))
    }

    pub(super) fn uses(&mut self, expr: &Expr) {
        let mut read = BTreeSet::new();
        registers_of(expr, &mut read);
        self.exposed
            .extend(read.into_iter().filter(|r| !self.surely.contains(r)));
    }

    /// `expr` reads a register that varies between iterations.
    fn varies(&self, expr: &Expr) -> bool {
        let mut read = BTreeSet::new();
        registers_of(expr, &mut read);
        !read.is_disjoint(&self.varying)
    }

    fn defines(&mut self, r: RegId) {
        self.surely.insert(r);
        self.written.insert(r);
        if self.under_varying_branch {
            self.varying.insert(r);
        }
    }

    /// `r` is given the value of `value`.
    fn assigns(&mut self, r: RegId, value: &Expr) {
        if self.varies(value) {
            self.varying.insert(r);
        }
        self.defines(r);
    }

    /// `r` is given a value read from memory.
    fn loads(&mut self, r: RegId) {
        self.varying.insert(r);
        self.defines(r);
    }

    /// Follow `instrs`; `false` when one of them has an effect a failed iteration must not
    /// have. `exit_cas`: the register whose compare-exchange may end the run (its success
    /// exits the loop), when the run is a loop's condition.
    pub(super) fn follow(&mut self, instrs: &[Instr], exit_cas: Option<RegId>) -> bool {
        for (i, instr) in instrs.iter().enumerate() {
            match instr {
                Instr::Load { dst, loc, .. } => {
                    let index = match loc {
                        Address::Fixed(_) => None,
                        Address::Indexed { index, .. } => Some(index),
                        Address::Pointer { value, .. } => Some(value),
                    };
                    if let Some(index) = index {
                        self.uses(index);
                        registers_of(index, &mut self.addressing);
                    }
                    self.loads(*dst);
                }
                Instr::Assign { dst, value, .. } => {
                    self.uses(value);
                    self.assigns(*dst, value);
                }
                Instr::If {
                    cond,
                    then_branch,
                    else_branch,
                    ..
                } => {
                    self.uses(cond);
                    let mut then_flow = self.clone();
                    then_flow.under_varying_branch |= self.varies(cond);
                    let mut else_flow = then_flow.clone();
                    if !then_flow.follow(then_branch, None) || !else_flow.follow(else_branch, None)
                    {
                        return false;
                    }
                    self.exposed = &then_flow.exposed | &else_flow.exposed;
                    self.written = &then_flow.written | &else_flow.written;
                    self.surely = &then_flow.surely & &else_flow.surely;
                    self.addressing = &then_flow.addressing | &else_flow.addressing;
                    self.varying = &then_flow.varying | &else_flow.varying;
                    self.locked = &then_flow.locked | &else_flow.locked;
                    self.unproven = then_flow.unproven
                        || else_flow.unproven
                        || then_flow.held != else_flow.held;
                    self.held = then_flow.held;
                }
                // Fails in every iteration that goes on (its success exits the loop): a read,
                // and the expected register written, in those iterations.
                Instr::CompareExchange {
                    dst: Some(dst),
                    loc,
                    expected: Expected::Register(e),
                    desired,
                    ..
                } if loc.fixed().is_some() && exit_cas == Some(*dst) && i + 1 == instrs.len() => {
                    self.uses(&Expr::Reg(*e));
                    self.uses(desired);
                    self.written.insert(*e);
                    self.varying.insert(*e);
                    self.loads(*dst);
                }
                // Any other compare-exchange at a fixed address with a register as expected
                // value (`r = 17; cas(&y, &r, 42);` in a body): in an iteration that goes on
                // its success must write back the value it read, as an exchange's must
                // (`Builder::changing_exchange`); its failure writes the expected register,
                // which then holds what it read, and whose success leaves it as it was.
                Instr::CompareExchange {
                    dst,
                    loc,
                    expected: Expected::Register(e),
                    desired,
                    ..
                } if self.exchanges && loc.fixed().is_some() => {
                    self.uses(&Expr::Reg(*e));
                    self.uses(desired);
                    self.written.insert(*e);
                    self.varying.insert(*e);
                    if let Some(dst) = dst {
                        self.loads(*dst);
                    }
                }
                // An exchange at a fixed address (`while (1) if (!xchg(&l, 1)) return;`): in
                // an iteration that goes on it must write back the value it read, so that it
                // changes no value; the unrolling checks that (`Builder::spin_test`: an
                // exchange that writes another value in a failed iteration is a bound hit).
                Instr::Rmw {
                    dst,
                    loc,
                    op: RmwOp::Exchange,
                    operand,
                    unless: None,
                    ..
                } if self.exchanges && loc.fixed().is_some() => {
                    self.uses(operand);
                    if let Some(dst) = dst {
                        self.loads(*dst);
                    }
                }
                // A fence adds ordering only: a failed iteration's fence, like its reads, can
                // be dropped from an execution without making it inconsistent.
                Instr::Fence { .. } => {}
                // A critical section of a spin loop's iteration (`lock(l); r = x;
                // unlock(l);`): the lock reads 0 and writes 1, the unlock writes 0, so an
                // iteration that closes every section it opens leaves the mutex as it found
                // it, and a failed one is dropped with its sections (docs/unrolling.md,
                // "Spin loops").
                Instr::Lock { loc, .. } if self.exchanges => {
                    self.unproven |= self.held.contains(loc);
                    self.held.push(*loc);
                    self.locked.insert(*loc);
                }
                Instr::Unlock { loc, .. } if self.exchanges => {
                    match self.held.iter().rposition(|l| l == loc) {
                        Some(i) => {
                            self.held.remove(i);
                        }
                        None => self.unproven = true,
                    }
                }
                // A check (an unlock's of what the thread holds) that cannot fail here.
                Instr::Check { cond, .. } if self.exchanges => {
                    self.uses(cond);
                    self.unproven |= !matches!(cond, Expr::Const(c) if *c != 0);
                }
                // A call binds its registers at once, every value computed first; its body
                // follows at this level, and its end does nothing.
                Instr::CallEnter { bind, .. } => {
                    for (_, value) in bind {
                        self.uses(value);
                    }
                    // All at once: each value is computed before any is bound.
                    let varying: Vec<bool> = bind.iter().map(|(_, v)| self.varies(v)).collect();
                    for ((dst, _), varies) in bind.iter().zip(varying) {
                        if varies {
                            self.varying.insert(*dst);
                        }
                        self.defines(*dst);
                    }
                }
                Instr::CallExit { .. } => {}
                _ => return false,
            }
        }
        true
    }
}

pub(super) fn registers_of(expr: &Expr, out: &mut BTreeSet<RegId>) {
    match expr {
        Expr::Const(_) => {}
        Expr::Reg(r) => {
            out.insert(*r);
        }
        Expr::Unary(_, a) => registers_of(a, out),
        Expr::Binary(_, a, b) => {
            registers_of(a, out);
            registers_of(b, out);
        }
        Expr::Conditional(c, a, b) => {
            registers_of(c, out);
            registers_of(a, out);
            registers_of(b, out);
        }
    }
}

/// The register `r` when `cond` is `!r` or `r == 0`: the loop goes on while the
/// compare-exchange that wrote `r` fails.
pub(super) fn negated_register(cond: &Expr) -> Option<RegId> {
    use crate::program::UnaryOp as U;
    match cond {
        Expr::Unary(U::Not, a) => match **a {
            Expr::Reg(r) => Some(r),
            _ => None,
        },
        Expr::Binary(BinaryOp::Eq, a, b) => match (&**a, &**b) {
            (Expr::Reg(r), Expr::Const(0)) | (Expr::Const(0), Expr::Reg(r)) => Some(*r),
            _ => None,
        },
        _ => None,
    }
}

/// The registers `cond` requires to be 0 (a conjunct `r == 0` or `!r`): at every test of
/// the loop that holds, each of them is 0, so every iteration of a loop that goes on
/// starts and ends with them 0, however the iteration writes them (a `success = cas(..)`
/// under a branch, a flag `break` sets).
pub(super) fn pinned_zero(cond: &Expr) -> BTreeSet<RegId> {
    fn zero_conjuncts(cond: &Expr, out: &mut BTreeSet<RegId>) {
        match cond {
            Expr::Binary(BinaryOp::And, a, b) => {
                zero_conjuncts(a, out);
                zero_conjuncts(b, out);
            }
            Expr::Binary(BinaryOp::Ne, a, b) if matches!(**b, Expr::Const(0)) => {
                zero_conjuncts(a, out)
            }
            _ => {
                if let Some(r) = negated_register(cond) {
                    out.insert(r);
                }
            }
        }
    }
    let mut out = BTreeSet::new();
    zero_conjuncts(cond, &mut out);
    out
}

/// The flags `break` and `return` set inside a loop (`while (1) { if (c) return; }` is
/// lowered as `while (!ret && 1) { if (c) ret = 1; }`): registers the condition requires
/// to be 0 (a conjunct `r == 0` or `!r`) that the loop writes only by assigning a non-zero
/// constant. An iteration that writes one ends the loop, so every iteration that goes on
/// leaves it as it was: at each test it holds its value at the loop's entry, and an
/// iteration that reads it before writing it depends on no earlier iteration through it;
/// after the loop it holds what the exiting iteration left.
pub(super) fn exit_flags(cond: &Expr, runs: &[&[Instr]]) -> BTreeSet<RegId> {
    /// Registers written otherwise than by a non-zero constant.
    fn other_writes(instrs: &[Instr], out: &mut BTreeSet<RegId>) {
        for instr in instrs {
            match instr {
                Instr::Assign {
                    value: Expr::Const(c),
                    ..
                } if *c != 0 => {}
                Instr::Assign { dst, .. } | Instr::Load { dst, .. } => {
                    out.insert(*dst);
                }
                Instr::Rmw { dst, .. } => out.extend(*dst),
                Instr::CompareExchange { dst, expected, .. } => {
                    out.extend(*dst);
                    if let Expected::Register(e) = expected {
                        out.insert(*e);
                    }
                }
                Instr::CallEnter { bind, .. } => out.extend(bind.iter().map(|(r, _)| *r)),
                _ => {}
            }
            for nested in instr.nested() {
                other_writes(nested, out);
            }
        }
    }
    let flags = pinned_zero(cond);
    let mut other = BTreeSet::new();
    for run in runs {
        other_writes(run, &mut other);
    }
    &flags - &other
}

/// Whether the entry test of a reduced spin loop runs every read of an iteration that
/// goes on: its condition's reads, unconditionally, and none in the body. Then the entry
/// test holds the first instance of each of them, and the first instance of a read races
/// with whatever a later one does (ARCHITECTURE.md, `events`), so one iteration is kept;
/// otherwise (reads in the body, a `do` loop, whose first test skips its condition, or a
/// read under a branch) two are: the first instance of any read lies in some iteration
/// that goes on, and keeping it with the last one is again an execution of the loop.
pub(super) fn entry_test_reads_first(cond_prelude: &[Instr], body: &[Instr]) -> bool {
    fn reads(instrs: &[Instr]) -> bool {
        instrs
            .iter()
            .any(|instr| instr.address().is_some() || instr.nested().into_iter().any(reads))
    }
    !reads(body)
        && cond_prelude
            .iter()
            .all(|instr| instr.nested().into_iter().all(|b| !reads(b)))
}

/// A loop `while (cond) body` (the condition's accesses in `prelude`) whose failed
/// iterations have no effect, so that they can be dropped (GenMC's spin-assume). Its
/// iteration, `body; prelude; cond`, must:
/// - only read memory: loads (at a fixed address, or at an index or through a pointer
///   computed from nothing the iteration reads from memory, directly or through a branch,
///   so that every iteration reads the same cell and its address check has the same
///   outcome in all of them, the entry test's included), register assignments,
///   branches, fences, and a compare-exchange at a fixed address with a register as
///   expected value whose success ends the loop
///   (`while (!atomic_compare_exchange_strong(&l, &e, 1)) e = 0;`), last in the prelude;
///   an exchange at a fixed address, which in an iteration that goes on must write back
///   the value it read (checked as the loop is unrolled; an execution where it does not is
///   cut, as by the bound); any other compare-exchange at a fixed address with a register
///   as expected value (`r = 17; cas(&y, &r, 42);`), whose success must likewise write back
///   what it read in an iteration that goes on (GenMC's failed CASes that lead back to the
///   loop's head); a lock and an unlock of a mutex of `mutexes` (memory, never
///   destroyed: `Builder::spin_mutexes`) when the iteration closes every critical section
///   it opens and every check of an unlock holds, on every path (`Flow::balanced`; the
///   iteration then leaves the mutex as it found it); no store, other read-modify-write,
///   assertion, assumption or inner loop;
/// - read no register it writes before writing it (so an iteration does not depend on the
///   one before: `e = 0` before the exchange reads `e` is fine, a bare
///   `while (!cas(&l, &e, 1));`, which retries with the value it saw, is not), but for
///   the registers the condition requires to be 0 ([`pinned_zero`]: the flags `break` and
///   `return` set, `while (!success) { ... success = cas(..); }`), which are 0 at the start
///   of every iteration;
/// - write on every path each register it writes, unless lowering made it for one
///   expression (a temporary nothing reads later) or the condition requires it to be 0:
///   after the loop every register holds what the exiting iteration gave it, whatever
///   iterations came before (a register the condition pins starts that iteration at 0 in
///   the reduced loop as in the original).
pub(super) fn spin_reducible(
    temporaries: &[bool],
    mutexes: &[bool],
    prelude: &[Instr],
    cond: &Expr,
    body: &[Instr],
) -> bool {
    let mut flow = Flow::exchanging();
    if !flow.follow(body, None) || !flow.follow(prelude, negated_register(cond)) {
        return false;
    }
    flow.uses(cond);
    let flags = pinned_zero(cond);
    flow.balanced()
        && flow.locks_only(mutexes)
        && (&flow.exposed - &flags).is_disjoint(&flow.written)
        && flow.addressing.is_disjoint(&flow.varying)
        && flow
            .written
            .iter()
            .all(|r| flow.surely.contains(r) || temporaries[*r] || flags.contains(r))
}

/// Whether the loop's prelude ends with the compare-exchange whose success ends the loop
/// (`while (!cas(&l, &e, 1))`): its success in an iteration is never one that goes on.
pub(super) fn ends_with_exit_cas(prelude: &[Instr], cond: &Expr) -> bool {
    matches!(
        (prelude.last(), negated_register(cond)),
        (Some(Instr::CompareExchange { dst: Some(d), .. }), Some(c)) if *d == c
    )
}
