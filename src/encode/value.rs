//! Exact 32-bit integer values over SAT literals.
//!
//! The semantics is [`crate::program::arith`]: two's complement, wrapping, SMT-LIB's rules
//! for division by zero and oversized shifts. A value is kept one of two ways:
//! - [`Value::OneHot`]: a short list of possible values, exactly one of whose literals holds.
//!   Litmus tests mostly compute with a handful of small values, so this is the common case
//!   and costs one literal per possible value.
//! - [`Value::Bits`]: 32 literals, least significant first, with circuits for arithmetic.
//!   The exact fallback when the static pass cannot bound a term (counters, loops).
//!
//! An operation on one-hot values stays one-hot while its result set stays under a cap, and
//! switches to bits otherwise.

use std::collections::BTreeMap;

use super::acyclic::less_than;
use super::cnf::{Bool, ClauseSink, Gates, Lit};
use crate::program::arith::{eval_binary, eval_unary};
use crate::program::{BinaryOp, UnaryOp};

const WIDTH: usize = 32;

#[derive(Clone, Debug)]
pub enum Value {
    /// Sorted by value, without duplicates; exactly one literal holds.
    OneHot(Vec<(i32, Bool)>),
    /// Least significant bit first.
    Bits(Vec<Bool>),
}

impl Value {
    pub fn constant(v: i32) -> Value {
        Value::OneHot(vec![(v, Bool::TRUE)])
    }

    /// A fresh value ranging over `values` (sorted, distinct).
    pub fn fresh_one_hot<S: ClauseSink>(sink: &mut S, values: &[i32]) -> Value {
        if values.len() == 1 {
            return Value::constant(values[0]);
        }
        let cases: Vec<(i32, Bool)> = values
            .iter()
            .map(|&v| (v, Bool::Lit(sink.new_lit())))
            .collect();
        let lits: Vec<Bool> = cases.iter().map(|c| c.1).collect();
        sink.exactly_one(&lits);
        Value::OneHot(cases)
    }

    pub fn fresh_bits<S: ClauseSink>(sink: &mut S) -> Value {
        Value::Bits((0..WIDTH).map(|_| Bool::Lit(sink.new_lit())).collect())
    }

    /// The possible values, when known.
    pub fn possible_values(&self) -> Option<Vec<i32>> {
        match self {
            Value::OneHot(cases) => Some(cases.iter().map(|c| c.0).collect()),
            Value::Bits(_) => None,
        }
    }

    /// The value in a model; `None` for a one-hot value none of whose literals holds.
    pub fn decode(&self, model: &dyn Fn(Lit) -> bool) -> Option<i32> {
        let truth = |b: Bool| match b {
            Bool::Const(c) => c,
            Bool::Lit(l) => model(l),
        };
        match self {
            Value::OneHot(cases) => cases.iter().find(|c| truth(c.1)).map(|c| c.0),
            Value::Bits(bits) => {
                let mut v: u32 = 0;
                for (i, &b) in bits.iter().enumerate() {
                    if truth(b) {
                        v |= 1 << i;
                    }
                }
                Some(v as i32)
            }
        }
    }

    fn to_bits(&self, sink: &mut impl ClauseSink) -> Vec<Bool> {
        match self {
            Value::Bits(bits) => bits.clone(),
            Value::OneHot(cases) => (0..WIDTH)
                .map(|i| {
                    let set: Vec<Bool> = cases
                        .iter()
                        .filter(|c| (c.0 as u32 >> i) & 1 == 1)
                        .map(|c| c.1)
                        .collect();
                    sink.or(&set)
                })
                .collect(),
        }
    }
}

/// A literal that holds iff the two values are equal.
pub fn equals<S: ClauseSink>(sink: &mut S, a: &Value, b: &Value) -> Bool {
    match (a, b) {
        (Value::OneHot(x), Value::OneHot(y)) => {
            let mut ways = Vec::new();
            for &(v, lx) in x {
                if let Ok(i) = y.binary_search_by_key(&v, |c| c.0) {
                    ways.push(sink.and2(lx, y[i].1));
                }
            }
            sink.or(&ways)
        }
        (Value::OneHot(x), bits @ Value::Bits(_)) | (bits @ Value::Bits(_), Value::OneHot(x)) => {
            let mut ways = Vec::new();
            for &(v, lx) in x {
                let eq = equals_const(sink, bits, v);
                ways.push(sink.and2(lx, eq));
            }
            sink.or(&ways)
        }
        (Value::Bits(x), Value::Bits(y)) => {
            let same: Vec<Bool> = x.iter().zip(y).map(|(&p, &q)| sink.iff(p, q)).collect();
            sink.and(&same)
        }
    }
}

pub fn equals_const<S: ClauseSink>(sink: &mut S, a: &Value, v: i32) -> Bool {
    match a {
        Value::OneHot(cases) => cases
            .binary_search_by_key(&v, |c| c.0)
            .map(|i| cases[i].1)
            .unwrap_or(Bool::FALSE),
        Value::Bits(bits) => {
            let parts: Vec<Bool> = bits
                .iter()
                .enumerate()
                .map(|(i, &b)| if (v as u32 >> i) & 1 == 1 { b } else { !b })
                .collect();
            sink.and(&parts)
        }
    }
}

/// The C truth of a value: non-zero.
pub fn is_nonzero<S: ClauseSink>(sink: &mut S, a: &Value) -> Bool {
    match a {
        Value::OneHot(cases) => {
            let nonzero: Vec<Bool> = cases.iter().filter(|c| c.0 != 0).map(|c| c.1).collect();
            sink.or(&nonzero)
        }
        Value::Bits(bits) => sink.or(bits),
    }
}

fn from_truth(b: Bool) -> Value {
    match b {
        Bool::Const(c) => Value::constant(c as i32),
        lit => Value::OneHot(vec![(0, !lit), (1, lit)]),
    }
}

/// Group `(value, condition)` pairs into a one-hot value, or `None` past `cap` values.
fn one_hot_from_pairs<S: ClauseSink>(
    sink: &mut S,
    pairs: Vec<(i32, Bool)>,
    cap: usize,
) -> Option<Value> {
    let mut by_value: BTreeMap<i32, Vec<Bool>> = BTreeMap::new();
    for (v, b) in pairs {
        if !b.is_false() {
            by_value.entry(v).or_default().push(b);
        }
    }
    if by_value.len() > cap {
        return None;
    }
    Some(Value::OneHot(
        by_value
            .into_iter()
            .map(|(v, conds)| (v, sink.or(&conds)))
            .collect(),
    ))
}

pub fn apply_unary<S: ClauseSink>(sink: &mut S, op: UnaryOp, a: &Value) -> Value {
    match a {
        Value::OneHot(cases) => {
            let pairs = cases.iter().map(|&(v, b)| (eval_unary(op, v), b)).collect();
            one_hot_from_pairs(sink, pairs, usize::MAX).unwrap_or_else(|| Value::constant(0))
        }
        Value::Bits(bits) => match op {
            UnaryOp::Neg => Value::Bits(negate(sink, bits)),
            UnaryOp::Not => {
                let nonzero = sink.or(bits);
                from_truth(!nonzero)
            }
            UnaryOp::BitNot => Value::Bits(bits.iter().map(|&b| !b).collect()),
        },
    }
}

pub fn apply_binary<S: ClauseSink>(
    sink: &mut S,
    op: BinaryOp,
    a: &Value,
    b: &Value,
    cap: usize,
) -> Value {
    if let (Value::OneHot(x), Value::OneHot(y)) = (a, b) {
        if x.len() * y.len() <= cap * cap {
            let mut pairs = Vec::with_capacity(x.len() * y.len());
            for &(u, lu) in x {
                for &(v, lv) in y {
                    let both = sink.and2(lu, lv);
                    pairs.push((eval_binary(op, u, v), both));
                }
            }
            if let Some(value) = one_hot_from_pairs(sink, pairs, cap) {
                return value;
            }
        }
    }
    match op {
        BinaryOp::Eq => from_truth(equals(sink, a, b)),
        BinaryOp::Ne => {
            let eq = equals(sink, a, b);
            from_truth(!eq)
        }
        BinaryOp::And | BinaryOp::Or => {
            let p = is_nonzero(sink, a);
            let q = is_nonzero(sink, b);
            from_truth(if op == BinaryOp::And {
                sink.and2(p, q)
            } else {
                sink.or2(p, q)
            })
        }
        _ => {
            let x = a.to_bits(sink);
            let y = b.to_bits(sink);
            bits_binary(sink, op, &x, &y)
        }
    }
}

fn bits_binary<S: ClauseSink>(sink: &mut S, op: BinaryOp, x: &[Bool], y: &[Bool]) -> Value {
    match op {
        BinaryOp::Add => Value::Bits(add(sink, x, y, Bool::FALSE)),
        BinaryOp::Sub => {
            let not_y: Vec<Bool> = y.iter().map(|&b| !b).collect();
            Value::Bits(add(sink, x, &not_y, Bool::TRUE))
        }
        BinaryOp::Mul => Value::Bits(multiply(sink, x, y)),
        BinaryOp::Div => Value::Bits(signed_divide(sink, x, y).0),
        BinaryOp::Rem => Value::Bits(signed_divide(sink, x, y).1),
        BinaryOp::Lt => from_truth(signed_less(sink, x, y)),
        BinaryOp::Gt => from_truth(signed_less(sink, y, x)),
        BinaryOp::Le => {
            let gt = signed_less(sink, y, x);
            from_truth(!gt)
        }
        BinaryOp::Ge => {
            let lt = signed_less(sink, x, y);
            from_truth(!lt)
        }
        BinaryOp::BitAnd => Value::Bits(x.iter().zip(y).map(|(&p, &q)| sink.and2(p, q)).collect()),
        BinaryOp::BitOr => Value::Bits(x.iter().zip(y).map(|(&p, &q)| sink.or2(p, q)).collect()),
        BinaryOp::BitXor => Value::Bits(x.iter().zip(y).map(|(&p, &q)| sink.xor(p, q)).collect()),
        BinaryOp::Shl => Value::Bits(shift(sink, x, y, ShiftKind::Left)),
        BinaryOp::Shr => Value::Bits(shift(sink, x, y, ShiftKind::Arithmetic)),
        // Handled on values before reaching bits.
        BinaryOp::Eq | BinaryOp::Ne | BinaryOp::And | BinaryOp::Or => {
            unreachable!("comparison operators are handled by apply_binary")
        }
    }
}

pub fn ite<S: ClauseSink>(sink: &mut S, cond: Bool, a: &Value, b: &Value, cap: usize) -> Value {
    match cond {
        Bool::Const(true) => return a.clone(),
        Bool::Const(false) => return b.clone(),
        Bool::Lit(_) => {}
    }
    if let (Value::OneHot(x), Value::OneHot(y)) = (a, b) {
        let mut pairs = Vec::with_capacity(x.len() + y.len());
        for &(v, l) in x {
            pairs.push((v, sink.and2(cond, l)));
        }
        for &(v, l) in y {
            pairs.push((v, sink.and2(!cond, l)));
        }
        if let Some(value) = one_hot_from_pairs(sink, pairs, cap) {
            return value;
        }
    }
    let x = a.to_bits(sink);
    let y = b.to_bits(sink);
    Value::Bits(
        x.iter()
            .zip(&y)
            .map(|(&p, &q)| sink.ite(cond, p, q))
            .collect(),
    )
}

fn add<S: ClauseSink>(sink: &mut S, x: &[Bool], y: &[Bool], carry_in: Bool) -> Vec<Bool> {
    let mut carry = carry_in;
    let mut out = Vec::with_capacity(x.len());
    for (&p, &q) in x.iter().zip(y) {
        let half = sink.xor(p, q);
        out.push(sink.xor(half, carry));
        let both = sink.and2(p, q);
        let propagated = sink.and2(half, carry);
        carry = sink.or2(both, propagated);
    }
    out
}

fn negate<S: ClauseSink>(sink: &mut S, x: &[Bool]) -> Vec<Bool> {
    let inverted: Vec<Bool> = x.iter().map(|&b| !b).collect();
    let zero = vec![Bool::FALSE; x.len()];
    add(sink, &inverted, &zero, Bool::TRUE)
}

fn multiply<S: ClauseSink>(sink: &mut S, x: &[Bool], y: &[Bool]) -> Vec<Bool> {
    let n = x.len();
    let mut acc = vec![Bool::FALSE; n];
    for (i, &yi) in y.iter().enumerate() {
        if yi.is_false() {
            continue;
        }
        let mut partial = vec![Bool::FALSE; n];
        for j in 0..n - i {
            partial[i + j] = sink.and2(x[j], yi);
        }
        acc = add(sink, &acc, &partial, Bool::FALSE);
    }
    acc
}

fn signed_less<S: ClauseSink>(sink: &mut S, x: &[Bool], y: &[Bool]) -> Bool {
    // Flipping the sign bits turns signed order into unsigned order.
    let mut fx = x.to_vec();
    let mut fy = y.to_vec();
    let top = x.len() - 1;
    fx[top] = !x[top];
    fy[top] = !y[top];
    less_than(sink, &fx, &fy)
}

fn select<S: ClauseSink>(sink: &mut S, c: Bool, a: &[Bool], b: &[Bool]) -> Vec<Bool> {
    a.iter().zip(b).map(|(&p, &q)| sink.ite(c, p, q)).collect()
}

/// Unsigned restoring division; `y = 0` gives quotient all ones and remainder `x`, as
/// `bvudiv`/`bvurem` do.
fn unsigned_divide<S: ClauseSink>(sink: &mut S, x: &[Bool], y: &[Bool]) -> (Vec<Bool>, Vec<Bool>) {
    let n = x.len();
    // The partial remainder needs one extra bit: it is below 2y after the shift.
    let mut wide_y = y.to_vec();
    wide_y.push(Bool::FALSE);
    let not_y: Vec<Bool> = wide_y.iter().map(|&b| !b).collect();
    let mut remainder = vec![Bool::FALSE; n + 1];
    let mut quotient = vec![Bool::FALSE; n];
    for i in (0..n).rev() {
        // remainder = remainder << 1 | x_i
        let mut shifted = Vec::with_capacity(n + 1);
        shifted.push(x[i]);
        shifted.extend_from_slice(&remainder[..n]);
        let below = less_than(sink, &shifted, &wide_y);
        let difference = add(sink, &shifted, &not_y, Bool::TRUE);
        quotient[i] = !below;
        remainder = select(sink, below, &shifted, &difference);
    }
    remainder.truncate(n);
    (quotient, remainder)
}

/// `bvsdiv` and `bvsrem`.
fn signed_divide<S: ClauseSink>(sink: &mut S, x: &[Bool], y: &[Bool]) -> (Vec<Bool>, Vec<Bool>) {
    let top = x.len() - 1;
    let (sx, sy) = (x[top], y[top]);
    let neg_x = negate(sink, x);
    let neg_y = negate(sink, y);
    let abs_x = select(sink, sx, &neg_x, x);
    let abs_y = select(sink, sy, &neg_y, y);
    let (q, r) = unsigned_divide(sink, &abs_x, &abs_y);
    let neg_q = negate(sink, &q);
    let neg_r = negate(sink, &r);
    let signs_differ = sink.xor(sx, sy);
    (
        select(sink, signs_differ, &neg_q, &q),
        select(sink, sx, &neg_r, &r),
    )
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ShiftKind {
    Left,
    Arithmetic,
}

/// Barrel shifter; an amount of 32 or more (read unsigned) shifts everything out.
fn shift<S: ClauseSink>(sink: &mut S, x: &[Bool], amount: &[Bool], kind: ShiftKind) -> Vec<Bool> {
    let n = x.len();
    let fill = match kind {
        ShiftKind::Left => Bool::FALSE,
        ShiftKind::Arithmetic => x[n - 1],
    };
    let mut current = x.to_vec();
    let stages = n.trailing_zeros() as usize;
    for (stage, &bit) in amount.iter().enumerate().take(stages) {
        let distance = 1usize << stage;
        let shifted: Vec<Bool> = (0..n)
            .map(|i| match kind {
                ShiftKind::Left => {
                    if i >= distance {
                        current[i - distance]
                    } else {
                        Bool::FALSE
                    }
                }
                ShiftKind::Arithmetic => {
                    if i + distance < n {
                        current[i + distance]
                    } else {
                        fill
                    }
                }
            })
            .collect();
        current = select(sink, bit, &shifted, &current);
    }
    let too_far = sink.or(&amount[stages..]);
    let all_fill = vec![fill; n];
    select(sink, too_far, &all_fill, &current)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::{SolveOutcome, Solver, VarisatSolver};

    const OPS: [BinaryOp; 18] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Rem,
        BinaryOp::Eq,
        BinaryOp::Ne,
        BinaryOp::Lt,
        BinaryOp::Le,
        BinaryOp::Gt,
        BinaryOp::Ge,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::BitAnd,
        BinaryOp::BitOr,
        BinaryOp::BitXor,
        BinaryOp::Shl,
        BinaryOp::Shr,
    ];

    const CORNERS: [i32; 12] = [
        0,
        1,
        -1,
        2,
        7,
        -7,
        31,
        32,
        40,
        i32::MIN,
        i32::MAX,
        0x1234_5678,
    ];

    /// A bits value pinned to `v` by unit clauses, so the circuit does the work.
    fn pinned_bits(s: &mut VarisatSolver, v: i32) -> Value {
        let value = Value::fresh_bits(s);
        let eq = equals_const(s, &value, v);
        s.assert_true(eq);
        value
    }

    fn solve_value(s: &mut VarisatSolver, value: &Value) -> i32 {
        assert_eq!(s.solve(&[]).unwrap(), SolveOutcome::Sat);
        value.decode(&|l| s.value(l)).expect("decodes")
    }

    #[test]
    fn bit_circuits_match_reference_semantics() {
        for op in OPS {
            for &a in &CORNERS {
                for &b in &CORNERS {
                    let mut s = VarisatSolver::new();
                    let x = pinned_bits(&mut s, a);
                    let y = pinned_bits(&mut s, b);
                    let r = apply_binary(&mut s, op, &x, &y, 8);
                    assert_eq!(
                        solve_value(&mut s, &r),
                        eval_binary(op, a, b),
                        "{op:?} {a} {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn unary_circuits_match_reference_semantics() {
        for op in [UnaryOp::Neg, UnaryOp::Not, UnaryOp::BitNot] {
            for &a in &CORNERS {
                let mut s = VarisatSolver::new();
                let x = pinned_bits(&mut s, a);
                let r = apply_unary(&mut s, op, &x);
                assert_eq!(solve_value(&mut s, &r), eval_unary(op, a), "{op:?} {a}");
            }
        }
    }

    #[test]
    fn one_hot_stays_one_hot_under_the_cap_and_switches_over_it() {
        let mut s = VarisatSolver::new();
        let x = Value::fresh_one_hot(&mut s, &[0, 1, 2]);
        let y = Value::fresh_one_hot(&mut s, &[10, 20]);
        let sum = apply_binary(&mut s, BinaryOp::Add, &x, &y, 8);
        assert_eq!(sum.possible_values(), Some(vec![10, 11, 12, 20, 21, 22]));
        let product = apply_binary(&mut s, BinaryOp::Mul, &x, &y, 3);
        assert!(product.possible_values().is_none());
        // Whatever x and y take, both representations agree with the reference.
        let ex = equals_const(&mut s, &x, 2);
        let ey = equals_const(&mut s, &y, 20);
        s.assert_true(ex);
        s.assert_true(ey);
        assert_eq!(solve_value(&mut s, &sum), 22);
        assert_eq!(solve_value(&mut s, &product), 40);
    }

    #[test]
    fn mixed_one_hot_and_bits_agree() {
        for &a in &CORNERS {
            for &b in &[3, -5, 0] {
                let mut s = VarisatSolver::new();
                let x = Value::fresh_one_hot(
                    &mut s,
                    &[a.min(a.wrapping_add(1)), a.max(a.wrapping_add(1))],
                );
                let pin = equals_const(&mut s, &x, a);
                s.assert_true(pin);
                let y = pinned_bits(&mut s, b);
                for op in OPS {
                    let r = apply_binary(&mut s, op, &x, &y, 8);
                    assert_eq!(
                        solve_value(&mut s, &r),
                        eval_binary(op, a, b),
                        "{op:?} {a} {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn equality_is_exact_both_ways() {
        let mut s = VarisatSolver::new();
        let x = Value::fresh_one_hot(&mut s, &[1, 2, 3]);
        let y = Value::fresh_bits(&mut s);
        let eq = equals(&mut s, &x, &y);
        let Bool::Lit(eq) = eq else {
            panic!("not constant")
        };
        // Equal and x = 2 forces y = 2.
        let x2 = equals_const(&mut s, &x, 2);
        let Bool::Lit(x2) = x2 else {
            panic!("not constant")
        };
        assert_eq!(s.solve(&[eq, x2]).unwrap(), SolveOutcome::Sat);
        assert_eq!(y.decode(&|l| s.value(l)), Some(2));
        // Unequal with y pinned to x's only possible value is impossible.
        let y3 = equals_const(&mut s, &y, 3);
        let x3 = equals_const(&mut s, &x, 3);
        let (Bool::Lit(y3), Bool::Lit(x3)) = (y3, x3) else {
            panic!("not constant")
        };
        assert_eq!(s.solve(&[!eq, y3, x3]).unwrap(), SolveOutcome::Unsat);
    }
}
