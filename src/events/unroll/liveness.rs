//! Which registers a branch's join must merge: those something may read afterwards.
//!
//! At the join of `if (c) A else B` each register either side wrote takes the value
//! `c ? a : b`. A register nothing reads after the join does not need that term (nor its
//! merged dependencies): n nested `if (READ_ONCE(*x) == i)` each load a temporary inside
//! every enclosing branch, and merging all of them at every join made O(n^2) terms, which
//! the value bounds then evaluated one by one (5000 nested `if`s: gigabytes).
//!
//! A register `r` written inside an `if` I is left unmerged (it keeps, after the join, its
//! value before the branch) only when that cannot be seen:
//! - `r` is a temporary of lowering (no condition, final state or report names it), and no
//!   call site or ordering-point annotation reads it behind the instructions' backs;
//! - no loop encloses I (a later iteration could read, inside I, the value the join left);
//! - every instruction that reads `r` lies inside I (its condition or its branches).
//!
//! Then no read of `r` follows I in program order: one after I is outside I, and without
//! a loop nothing runs I's instructions again. The check is a count: the reads of `r`
//! numbered in preorder (an instruction before the ones nested in it, so I's subtree is a
//! range of numbers), I's own reads those within its range.

use std::collections::{BTreeSet, HashMap};

use super::flow::registers_of;
use crate::program::{
    Address, CallArg, Expected, Expr, Instr, PointerOffset, RegId, ThreadProgram,
};

/// An `if` of the thread: its preorder range and whether a loop encloses it.
#[derive(Clone, Copy)]
struct Site {
    start: u32,
    end: u32,
    in_loop: bool,
}

/// The thread's register reads, numbered, and its `if`s.
pub(super) struct Liveness {
    /// Per `if` instruction, by its address in the program (which outlives the unrolling).
    sites: HashMap<usize, Site>,
    /// Per register, the preorder numbers of the instructions that read it, increasing.
    reads: Vec<Vec<u32>>,
    /// Per register: its value may be seen at any time (not a temporary, or read by a call
    /// site or an ordering-point annotation).
    always: Vec<bool>,
    /// Per loop, by the address of its condition: its preorder range (the condition's
    /// read is at its start) and whether a loop encloses it.
    loops: HashMap<usize, Site>,
    /// Per register: read by a call site or an ordering-point annotation.
    behind: Vec<bool>,
}

/// Where the join of a branch may leave registers unmerged.
#[derive(Clone, Copy)]
pub(super) struct Join(Site);

impl Liveness {
    pub(super) fn new(thread: &ThreadProgram) -> Liveness {
        let n = thread.registers.len();
        let mut behind = vec![false; n];
        let mut mark = |r: RegId| {
            if let Some(a) = behind.get_mut(r) {
                *a = true;
            }
        };
        for site in &thread.calls {
            for arg in &site.args {
                match arg {
                    CallArg::Value { reg, .. } => mark(*reg),
                    CallArg::Pointer { offset, .. } => {
                        if let PointerOffset::Reg(r) = offset {
                            mark(*r);
                        }
                    }
                }
            }
            if let Some(r) = site.ret {
                mark(r);
            }
        }
        for &(r, _) in &thread.ordering_points {
            mark(r);
        }
        let always = thread
            .registers
            .iter()
            .zip(&behind)
            .map(|(r, &b)| !r.temporary || b)
            .collect();
        let mut liveness = Liveness {
            sites: HashMap::new(),
            reads: vec![Vec::new(); n],
            always,
            loops: HashMap::new(),
            behind,
        };
        let mut counter = 0;
        liveness.walk(&thread.body, false, &mut counter);
        liveness
    }

    fn walk(&mut self, instrs: &[Instr], in_loop: bool, counter: &mut u32) {
        for instr in instrs {
            let start = *counter;
            *counter += 1;
            let mut read = BTreeSet::new();
            reads_of(instr, &mut read);
            for r in read {
                if let Some(list) = self.reads.get_mut(r) {
                    list.push(start);
                }
            }
            let inner_in_loop = in_loop || matches!(instr, Instr::While { .. });
            for block in instr.nested() {
                self.walk(block, inner_in_loop, counter);
            }
            if let Instr::If { .. } = instr {
                let site = Site {
                    start,
                    end: *counter,
                    in_loop,
                };
                self.sites.insert(instr as *const Instr as usize, site);
            }
            if let Instr::While { cond, .. } = instr {
                let site = Site {
                    start,
                    end: *counter,
                    in_loop,
                };
                self.loops.insert(cond as *const Expr as usize, site);
            }
        }
    }

    /// Whether nothing reads `reg` after the loop whose condition is `cond` (`inside`: nor
    /// in the loop): every read of it precedes the loop (or lies in it), no loop encloses
    /// the loop, and no call site or ordering-point annotation reads it (the test's
    /// condition, filter and `locations` are the caller's to check). The loop may then
    /// leave any value in it.
    pub(super) fn unread_after_loop(&self, cond: &Expr, reg: RegId, inside: bool) -> bool {
        let Some(site) = self.loops.get(&(cond as *const Expr as usize)) else {
            return false;
        };
        let Some(reads) = self.reads.get(reg) else {
            return false;
        };
        let limit = if inside { site.start } else { site.end };
        !site.in_loop
            && !self.behind.get(reg).copied().unwrap_or(true)
            && reads.iter().all(|&p| p < limit)
    }

    /// The join of `instr`, an `if` of this thread's program, when it may leave registers
    /// unmerged; `None` (merge every register written) otherwise.
    pub(super) fn join(&self, instr: &Instr) -> Option<Join> {
        let site = *self.sites.get(&(instr as *const Instr as usize))?;
        (!site.in_loop).then_some(Join(site))
    }

    /// Whether `reg`, written inside the `if` of `join`, may be read after its join.
    pub(super) fn live_after(&self, join: Option<Join>, reg: RegId) -> bool {
        let Some(Join(site)) = join else {
            return true;
        };
        if self.always.get(reg).copied().unwrap_or(true) {
            return true;
        }
        let Some(reads) = self.reads.get(reg) else {
            return true;
        };
        let first = reads.partition_point(|&p| p < site.start);
        let past = reads.partition_point(|&p| p < site.end);
        past - first != reads.len()
    }
}

/// The registers `instr` itself reads (not the instructions nested in it).
fn reads_of(instr: &Instr, out: &mut BTreeSet<RegId>) {
    let address = |a: &Address, out: &mut BTreeSet<RegId>| match a {
        Address::Fixed(_) => {}
        Address::Indexed { index, .. } => registers_of(index, out),
        Address::Pointer { value, .. } => registers_of(value, out),
    };
    let exprs: Vec<&Expr> = match instr {
        Instr::Load { loc, .. } => {
            address(loc, out);
            vec![]
        }
        Instr::Store { loc, value, .. } => {
            address(loc, out);
            vec![value]
        }
        Instr::Rmw {
            loc,
            operand,
            unless,
            ..
        } => {
            address(loc, out);
            std::iter::once(operand).chain(unless.as_ref()).collect()
        }
        Instr::CompareExchange {
            loc,
            expected,
            desired,
            ..
        } => {
            address(loc, out);
            if let Expected::Register(r) = expected {
                out.insert(*r);
            }
            vec![desired]
        }
        Instr::Assign { value, .. } => vec![value],
        Instr::If { cond, .. } | Instr::While { cond, .. } => vec![cond],
        Instr::Assert { cond, .. } | Instr::Check { cond, .. } | Instr::Assume { cond, .. } => {
            vec![cond]
        }
        Instr::CheckIndex { index, .. } => vec![index],
        Instr::CallEnter { bind, .. } => bind.iter().map(|(_, e)| e).collect(),
        Instr::Free { ptr, .. } => vec![ptr],
        Instr::Fence { .. }
        | Instr::Lock { .. }
        | Instr::Unlock { .. }
        | Instr::AtomicBlock { .. }
        | Instr::CallExit { .. }
        | Instr::Alloc { .. } => vec![],
    };
    for e in exprs {
        registers_of(e, out);
    }
}
