//! The register checks of a spin loop path by path (GenMC's jump threading before its
//! spin-assume: spin-cas6, spin-dowhile1).
//!
//! `Flow::follow` joins the two sides of every branch, so it cannot see that two branches
//! test the same thing. Lowering guards what follows a `break` with the flag it sets
//! (`if (brk == 0) r = 1;` after `if (x == 42) brk = 1;`), and the condition of a `do` loop
//! or one with a `break` reads the flag before the rest (`brk == 0 && (first || t != 0)`):
//! the joined run sees `r` or `t` written on some paths only and read after, and refuses
//! the loop, though no path of an iteration reads them before writing them. Here each path
//! of an iteration (`body; prelude; cond`) is followed on its own, with the registers known
//! on it: the condition's flags, 0 at the start of every iteration (`flow::pinned_zero`),
//! and constants assigned on the way. A branch whose condition those values decide takes
//! that side only, and an expression is read as those values leave it (`0 && e` reads
//! nothing of `e`). The checks of `flow::spin_reducible` then hold over the paths: no path
//! reads a register it writes before writing it (but the flags), and a register the loop
//! writes is written on every path (or may be left anything: a temporary, a flag, one
//! nothing reads after the loop). What varies and what addresses loads is the joined run's,
//! which only over-approximates the paths'.

use std::collections::{BTreeMap, BTreeSet};

use super::flow::{negated_register, pinned_zero, Flow};
use crate::program::arith::{eval_binary, eval_unary};
use crate::program::{BinaryOp, Expr, Instr, RegId};

/// Paths followed at most; a loop with more is left to the joined check.
const MAX_PATHS: usize = 256;

/// One path so far: its run and the registers it knows.
#[derive(Clone)]
struct Path {
    flow: Flow,
    known: BTreeMap<RegId, i32>,
}

/// `expr` with the known registers put in and what they decide folded.
pub(super) fn fold(expr: &Expr, known: &BTreeMap<RegId, i32>) -> Expr {
    match expr {
        Expr::Const(c) => Expr::Const(*c),
        Expr::Reg(r) => match known.get(r) {
            Some(v) => Expr::Const(*v),
            None => Expr::Reg(*r),
        },
        Expr::Unary(op, a) => match fold(a, known) {
            Expr::Const(v) => Expr::Const(eval_unary(*op, v)),
            a => Expr::Unary(*op, Box::new(a)),
        },
        Expr::Binary(op, a, b) => {
            let (a, b) = (fold(a, known), fold(b, known));
            match (op, &a, &b) {
                (_, Expr::Const(x), Expr::Const(y)) => Expr::Const(eval_binary(*op, *x, *y)),
                (BinaryOp::And, Expr::Const(0), _) | (BinaryOp::And, _, Expr::Const(0)) => {
                    Expr::Const(0)
                }
                (BinaryOp::Or, Expr::Const(x), _) | (BinaryOp::Or, _, Expr::Const(x))
                    if *x != 0 =>
                {
                    Expr::Const(1)
                }
                _ => Expr::Binary(*op, Box::new(a), Box::new(b)),
            }
        }
        Expr::Conditional(c, a, b) => match fold(c, known) {
            Expr::Const(0) => fold(b, known),
            Expr::Const(_) => fold(a, known),
            c => Expr::Conditional(
                Box::new(c),
                Box::new(fold(a, known)),
                Box::new(fold(b, known)),
            ),
        },
    }
}

/// The registers `instr` may write (not those of the instructions nested in it).
pub(super) fn writes(instr: &Instr, out: &mut BTreeSet<RegId>) {
    match instr {
        Instr::Assign { dst, .. } | Instr::Load { dst, .. } => {
            out.insert(*dst);
        }
        Instr::Rmw { dst, .. } => out.extend(*dst),
        Instr::CompareExchange { dst, expected, .. } => {
            out.extend(*dst);
            if let crate::program::Expected::Register(e) = expected {
                out.insert(*e);
            }
        }
        Instr::CallEnter { bind, .. } => out.extend(bind.iter().map(|(r, _)| *r)),
        _ => {}
    }
}

/// Follow `instrs` on every path of `paths`; `false` when an instruction is refused or
/// there are too many paths.
fn follow(paths: Vec<Path>, instrs: &[Instr], out: &mut Vec<Path>) -> bool {
    let mut paths = paths;
    for instr in instrs {
        let mut next = Vec::new();
        for mut path in paths {
            if let Instr::If {
                cond,
                then_branch,
                else_branch,
                ..
            } = instr
            {
                let cond = fold(cond, &path.known);
                path.flow.uses(&cond);
                let sides: &[&[Instr]] = match cond {
                    Expr::Const(0) => &[else_branch],
                    Expr::Const(_) => &[then_branch],
                    _ => &[then_branch, else_branch],
                };
                for side in sides {
                    if !follow(vec![path.clone()], side, &mut next) {
                        return false;
                    }
                }
            } else {
                if !instr.nested().iter().all(|b| b.is_empty()) {
                    return false;
                }
                let folded = match instr {
                    Instr::Assign { dst, value, span } => Instr::Assign {
                        dst: *dst,
                        value: fold(value, &path.known),
                        span: *span,
                    },
                    // An unlock's check of the register of what the thread holds, which the
                    // path's lock set (`program::mutex`): it holds on this path.
                    Instr::Check { cond, kind, span } => Instr::Check {
                        cond: fold(cond, &path.known),
                        kind: *kind,
                        span: *span,
                    },
                    other => other.clone(),
                };
                if !path.flow.follow(std::slice::from_ref(&folded), None) {
                    return false;
                }
                let mut written = BTreeSet::new();
                writes(&folded, &mut written);
                for r in written {
                    path.known.remove(&r);
                }
                if let Instr::Assign {
                    dst,
                    value: Expr::Const(c),
                    ..
                } = folded
                {
                    path.known.insert(dst, c);
                }
                next.push(path);
            }
            if next.len() > MAX_PATHS {
                return false;
            }
        }
        paths = next;
    }
    out.extend(paths);
    true
}

/// Whether every path of an iteration of `while (cond) body` (the condition's accesses in
/// `prelude`) unlocks only what it locked and unlocks all of it, every check of an unlock
/// holding on the path (`Flow::balanced`); `false` when a path cannot be followed (an
/// instruction a spin loop may not hold, an inner loop, too many paths).
pub(super) fn sections_balanced_by_paths(prelude: &[Instr], cond: &Expr, body: &[Instr]) -> bool {
    let start = Path {
        flow: Flow::exchanging(),
        known: pinned_zero(cond).iter().map(|&r| (r, 0)).collect(),
    };
    let mut after_body = Vec::new();
    let mut paths = Vec::new();
    follow(vec![start], body, &mut after_body)
        && follow(after_body, prelude, &mut paths)
        && paths.iter().all(|p| p.flow.balanced())
}

/// `flow::spin_reducible` with the register checks made path by path (module doc);
/// `loose`: the registers the loop may leave with any value.
pub(super) fn spin_reducible_by_paths(
    loose: &[bool],
    mutexes: &[bool],
    prelude: &[Instr],
    cond: &Expr,
    body: &[Instr],
) -> bool {
    let mut joined = Flow::exchanging();
    if !joined.follow(body, None) || !joined.follow(prelude, negated_register(cond)) {
        return false;
    }
    joined.uses(cond);
    if !joined.locks_only(mutexes) {
        return false;
    }
    let flags = pinned_zero(cond);
    let start = Path {
        flow: Flow::exchanging(),
        known: flags.iter().map(|&r| (r, 0)).collect(),
    };
    let mut after_body = Vec::new();
    if !follow(vec![start], body, &mut after_body) {
        return false;
    }
    let mut paths = Vec::new();
    if !follow(after_body, prelude, &mut paths) {
        return false;
    }
    let mut exposed = BTreeSet::new();
    let mut written = BTreeSet::new();
    let mut surely: Option<BTreeSet<RegId>> = None;
    for path in &mut paths {
        // The critical sections are the path's own: each closes what it opens.
        if !path.flow.balanced() {
            return false;
        }
        let cond = fold(cond, &path.known);
        path.flow.uses(&cond);
        exposed.extend(path.flow.exposed.iter().copied());
        written.extend(path.flow.written.iter().copied());
        surely = Some(match surely {
            None => path.flow.surely.clone(),
            Some(s) => &s & &path.flow.surely,
        });
    }
    let surely = surely.unwrap_or_default();
    (&exposed - &flags).is_disjoint(&written)
        && joined.addressing.is_disjoint(&joined.varying)
        && written.iter().all(|r| {
            surely.contains(r) || loose.get(*r).copied().unwrap_or(false) || flags.contains(r)
        })
}
