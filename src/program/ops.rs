//! The operators and quantifiers of the program IR: what remains of the syntax's after
//! lowering (dereference and address-of become memory accesses and addresses), with their
//! meaning in `arith`.

use serde::Serialize;

use crate::syntax::ast;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum UnaryOp {
    /// `-e`
    Neg,
    /// `!e`
    Not,
    /// `~e`
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
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

/// The final condition's quantifier: `exists`, `~exists`, `forall`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Quantifier {
    Exists,
    NotExists,
    Forall,
}

impl UnaryOp {
    /// The IR operator of a syntactic one; `None` for `*` and `&`, which lowering turns
    /// into memory accesses and addresses.
    pub fn of(op: ast::UnaryOp) -> Option<UnaryOp> {
        match op {
            ast::UnaryOp::Neg => Some(UnaryOp::Neg),
            ast::UnaryOp::Not => Some(UnaryOp::Not),
            ast::UnaryOp::BitNot => Some(UnaryOp::BitNot),
            ast::UnaryOp::Deref | ast::UnaryOp::AddrOf => None,
        }
    }
}

impl From<ast::BinaryOp> for BinaryOp {
    fn from(op: ast::BinaryOp) -> BinaryOp {
        match op {
            ast::BinaryOp::Add => BinaryOp::Add,
            ast::BinaryOp::Sub => BinaryOp::Sub,
            ast::BinaryOp::Mul => BinaryOp::Mul,
            ast::BinaryOp::Div => BinaryOp::Div,
            ast::BinaryOp::Rem => BinaryOp::Rem,
            ast::BinaryOp::Eq => BinaryOp::Eq,
            ast::BinaryOp::Ne => BinaryOp::Ne,
            ast::BinaryOp::Lt => BinaryOp::Lt,
            ast::BinaryOp::Le => BinaryOp::Le,
            ast::BinaryOp::Gt => BinaryOp::Gt,
            ast::BinaryOp::Ge => BinaryOp::Ge,
            ast::BinaryOp::And => BinaryOp::And,
            ast::BinaryOp::Or => BinaryOp::Or,
            ast::BinaryOp::BitAnd => BinaryOp::BitAnd,
            ast::BinaryOp::BitOr => BinaryOp::BitOr,
            ast::BinaryOp::BitXor => BinaryOp::BitXor,
            ast::BinaryOp::Shl => BinaryOp::Shl,
            ast::BinaryOp::Shr => BinaryOp::Shr,
        }
    }
}

impl From<ast::Quantifier> for Quantifier {
    fn from(q: ast::Quantifier) -> Quantifier {
        match q {
            ast::Quantifier::Exists => Quantifier::Exists,
            ast::Quantifier::NotExists => Quantifier::NotExists,
            ast::Quantifier::Forall => Quantifier::Forall,
        }
    }
}
