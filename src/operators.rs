//! The operators and quantifiers of C litmus tests: one vocabulary for every front end that
//! reads programs (the litmus syntax, a C parser) and for the program IR they lower into,
//! whose meaning is given by [`crate::program::arith`].
//!
//! The unary operators here are the ones that compute a value. A front end's dereference
//! and address-of are not among them: lowering turns them into memory accesses and
//! addresses, so the IR never holds one.

use serde::{Deserialize, Serialize};

/// A unary operator on values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum UnaryOp {
    /// `-e`
    Neg,
    /// `!e`
    Not,
    /// `~e`
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl BinaryOp {
    /// Whether the operator's value is always 0 or 1 (comparisons and logic).
    pub fn gives_0_or_1(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq
                | BinaryOp::Ne
                | BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge
                | BinaryOp::And
                | BinaryOp::Or
        )
    }
}

/// The final condition's quantifier: `exists`, `~exists`, `forall`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Quantifier {
    Exists,
    NotExists,
    Forall,
}
