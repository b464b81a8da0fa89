//! Reading litmus files: the C litmus format of herd7 plus locks, atomic blocks and asserts.

pub mod ast;
