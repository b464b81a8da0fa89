//! Reading litmus files: the C litmus format of herd7 plus locks, atomic blocks and asserts.

pub mod ast;
pub mod def;
mod display;
pub mod lexer;
pub mod parser;

pub use parser::parse;

#[cfg(test)]
mod grammar_tests;
