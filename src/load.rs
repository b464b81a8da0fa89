//! The front door: a litmus text in, a test ready for questions out.
//!
//! Parsing, lowering and unrolling are three stages, but a caller asks one thing of them
//! (can this text be analysed, and what are its events?), so they are chained here once,
//! with one error type: every problem of the input, located in the text.

use crate::diagnostics::{InputError, SourceFile};
use crate::events::{self, Events, UnrollOptions};
use crate::program::{self, Program};
use crate::syntax;

/// How a text becomes events.
#[derive(Clone, Copy, Debug)]
pub struct LoadOptions {
    /// Loop iterations unrolled; executions needing more are reported as cut by the bound.
    pub unroll: u32,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            unroll: UnrollOptions::default().unroll,
        }
    }
}

/// A litmus test through the front end: its program (which keeps its source text) and
/// the guarded events it unrolls into.
#[derive(Clone, Debug)]
pub struct Test {
    pub program: Program,
    pub events: Events,
}

impl Test {
    pub fn file(&self) -> &SourceFile {
        &self.program.source
    }
}

/// Parse, lower and unroll `source`.
pub fn load(source: &SourceFile, options: &LoadOptions) -> Result<Test, InputError> {
    let program = lower(source)?;
    let events = events::unroll(
        &program,
        UnrollOptions {
            unroll: options.unroll,
        },
    )?;
    Ok(Test { program, events })
}

/// Parse and lower `source`, without unrolling: the program IR alone.
pub fn lower(source: &SourceFile) -> Result<Program, InputError> {
    let ast = syntax::parse(source)?;
    program::lower(&ast, source)
}
