//! The integer semantics of programs: 32-bit two's complement, wrapping.
//!
//! Where C leaves behaviour undefined (overflow, division by zero, oversized shifts) nemos
//! follows SMT-LIB's bit-vector operators (`bvadd`, `bvsdiv`, `bvsrem`, `bvshl`, `bvashr`),
//! so that every backend, the static value analysis and the reference interpreter agree
//! exactly. Comparisons and logical operators give 0 or 1, as in C.

use crate::program::{BinaryOp, UnaryOp};

pub fn eval_binary(op: BinaryOp, a: i32, b: i32) -> i32 {
    match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        // bvsdiv: x / 0 is -1 for x >= 0 and 1 for x < 0.
        BinaryOp::Div => match b {
            0 if a >= 0 => -1,
            0 => 1,
            _ => a.wrapping_div(b),
        },
        // bvsrem: x % 0 is x; the remainder has the sign of the dividend.
        BinaryOp::Rem => match b {
            0 => a,
            _ => a.wrapping_rem(b),
        },
        BinaryOp::Eq => (a == b) as i32,
        BinaryOp::Ne => (a != b) as i32,
        BinaryOp::Lt => (a < b) as i32,
        BinaryOp::Le => (a <= b) as i32,
        BinaryOp::Gt => (a > b) as i32,
        BinaryOp::Ge => (a >= b) as i32,
        BinaryOp::And => (a != 0 && b != 0) as i32,
        BinaryOp::Or => (a != 0 || b != 0) as i32,
        BinaryOp::BitAnd => a & b,
        BinaryOp::BitOr => a | b,
        BinaryOp::BitXor => a ^ b,
        // bvshl: the amount is read as unsigned; 32 or more shifts everything out.
        BinaryOp::Shl => {
            let amount = b as u32;
            if amount >= 32 {
                0
            } else {
                ((a as u32) << amount) as i32
            }
        }
        // bvashr: 32 or more fills with the sign bit.
        BinaryOp::Shr => {
            let amount = b as u32;
            if amount >= 32 {
                if a < 0 {
                    -1
                } else {
                    0
                }
            } else {
                a >> amount
            }
        }
    }
}

pub fn eval_unary(op: UnaryOp, a: i32) -> i32 {
    match op {
        UnaryOp::Neg => a.wrapping_neg(),
        UnaryOp::Not => (a == 0) as i32,
        UnaryOp::BitNot => !a,
        // Memory accesses and addresses never reach pure expressions: lowering hoists them.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smtlib_corner_cases() {
        assert_eq!(eval_binary(BinaryOp::Div, 7, 0), -1);
        assert_eq!(eval_binary(BinaryOp::Div, -7, 0), 1);
        assert_eq!(eval_binary(BinaryOp::Rem, -7, 0), -7);
        assert_eq!(eval_binary(BinaryOp::Div, i32::MIN, -1), i32::MIN);
        assert_eq!(eval_binary(BinaryOp::Rem, i32::MIN, -1), 0);
        assert_eq!(eval_binary(BinaryOp::Rem, -7, 2), -1);
        assert_eq!(eval_binary(BinaryOp::Div, -7, 2), -3);
        assert_eq!(eval_binary(BinaryOp::Add, i32::MAX, 1), i32::MIN);
        assert_eq!(eval_binary(BinaryOp::Shl, 1, 32), 0);
        assert_eq!(eval_binary(BinaryOp::Shl, 1, -1), 0);
        assert_eq!(eval_binary(BinaryOp::Shr, -8, 40), -1);
        assert_eq!(eval_binary(BinaryOp::Shr, -8, 1), -4);
        assert_eq!(eval_unary(UnaryOp::Neg, i32::MIN), i32::MIN);
    }
}
