//! The front doors: a litmus text in, a test ready for questions out ([`load`]); a model's
//! name in, a compiled model out ([`model::load_model`]).
//!
//! Parsing, lowering and unrolling are three stages, but a caller asks one thing of them
//! (can this text be analysed, and what are its events?), so they are chained here once,
//! with one error type: every problem of the input, located in the text, or the limit on
//! its size that stopped the unrolling.

pub mod cache;
pub mod model;

use std::fmt;
use std::sync::Arc;

use crate::cfront::{self, Preprocessed};
use crate::diagnostics::{InputError, SourceFile};
use crate::events::{self, Events, TooManyEvents, UnrollError, UnrollOptions};
use crate::program::{self, Program};
use crate::syntax;
use crate::syntax::def::Macros;

/// The command line's default for [`LoadOptions::max_events`]: far above any program whose
/// encoding a solver finishes (the encoding grows with the square of the events of a
/// location), far below what would exhaust memory while unrolling.
pub const DEFAULT_MAX_EVENTS: usize = 20_000;

/// How a text becomes events.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Loop iterations unrolled; executions needing more are reported as cut by the bound.
    pub unroll: u32,
    /// Refuse a test that unrolls into more events than this. The count is kept while
    /// unrolling, which stops as soon as it passes the limit: a test too large to analyse
    /// costs no more than the limit to refuse.
    pub max_events: Option<usize>,
    /// The macros of the model's `.def` file (herd's `-macros`): a call they name expands
    /// into herd's primitives, tagged, before the library's calls are looked at.
    pub macros: Option<Arc<Macros>>,
    /// How a C file (`*.c`) is preprocessed: the caller's, since it is I/O (the system
    /// preprocessor, the files the program includes). Without one a C file is refused.
    pub preprocessor: Option<Preprocessor>,
    /// Leave out the executions that need more loop iterations than `unroll` instead of
    /// reporting them as cut (GenMC's `-unroll=N` is this with `end_threads_at_bound`).
    pub block_at_bound: bool,
    /// GenMC 0.11's `-unroll=N`: a thread that would test a loop's condition after N
    /// iterations ends there instead (see [`events::UnrollOptions::end_threads_at_bound`]).
    pub end_threads_at_bound: bool,
    /// The caller left the bound to nemos: a C file's check, outcomes and races raise it
    /// from `unroll` as far as the executions need ([`crate::analysis::deepen`]), as GenMC
    /// needs no bound for loops that end.
    pub unroll_as_needed: bool,
    /// Store forwarding while unrolling ([`events::UnrollOptions::forward_stores`]): only
    /// for a model with coherence, as [`crate::analysis::query::forwards_stores`] decides.
    pub forward_stores: bool,
}

/// Runs the C preprocessor on a C file: its output, or the preprocessor's own message.
#[derive(Clone)]
pub struct Preprocessor(pub Arc<PreprocessFn>);

/// What a [`Preprocessor`] runs.
pub type PreprocessFn = dyn Fn(&SourceFile) -> Result<Preprocessed, String> + Send + Sync;

impl fmt::Debug for Preprocessor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Preprocessor")
    }
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            unroll: UnrollOptions::default().unroll,
            max_events: None,
            macros: None,
            preprocessor: None,
            block_at_bound: false,
            end_threads_at_bound: false,
            unroll_as_needed: false,
            forward_stores: false,
        }
    }
}

/// Why a text did not become a test.
#[derive(Clone, Debug)]
pub enum LoadError {
    /// The input is wrong: every problem found, located in the text.
    Input(InputError),
    /// The test has more events than [`LoadOptions::max_events`]: a limit, not a verdict
    /// on the input.
    TooManyEvents(TooManyEvents),
    /// The init block declares more cells than [`LoadOptions::max_events`] allows (each is
    /// an initial write): refused before lowering lays them out.
    TooManyCells(program::size::TooManyCells),
    /// The C preprocessor refused the file: its own message.
    Preprocessor(String),
}

impl LoadError {
    /// One line per problem, without source excerpts (see [`InputError::short`]).
    pub fn short(&self) -> String {
        match self {
            LoadError::Input(e) => e.short(),
            LoadError::TooManyEvents(limit) => limit.to_string(),
            LoadError::TooManyCells(limit) => limit.to_string(),
            LoadError::Preprocessor(message) => message.clone(),
        }
    }

    /// The problems with their source excerpts (see [`InputError::render`]).
    pub fn render(&self, color: bool) -> String {
        match self {
            LoadError::Input(e) => e.render(color),
            LoadError::TooManyEvents(limit) => limit.to_string(),
            LoadError::TooManyCells(limit) => limit.to_string(),
            LoadError::Preprocessor(message) => message.clone(),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.short())
    }
}

impl std::error::Error for LoadError {}

impl From<InputError> for LoadError {
    fn from(e: InputError) -> Self {
        LoadError::Input(e)
    }
}

impl From<UnrollError> for LoadError {
    fn from(e: UnrollError) -> Self {
        match e {
            UnrollError::Input(e) => LoadError::Input(e),
            UnrollError::TooManyEvents(limit) => LoadError::TooManyEvents(limit),
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

/// Parse, lower and unroll `source`: a litmus test, or a C program (`*.c`, through
/// [`LoadOptions::preprocessor`] and the C front end).
pub fn load(source: &SourceFile, options: &LoadOptions) -> Result<Test, LoadError> {
    let program = if cfront::is_c_file(&source.name) {
        let Some(preprocessor) = &options.preprocessor else {
            return Err(LoadError::Preprocessor(format!(
                "{}: a C file needs the C preprocessor, which this caller does not run",
                source.name
            )));
        };
        let preprocessed = (preprocessor.0)(source).map_err(LoadError::Preprocessor)?;
        let reserved = |name: &str| program::library::lookup(name).is_some();
        let loop_bound = options
            .end_threads_at_bound
            .then_some(options.unroll as usize);
        let (ast, file) = cfront::translate(source, &preprocessed, &reserved, loop_bound)?;
        check_cells(&ast, options)?;
        program::lower_recursion(
            &ast,
            &file,
            options.macros.clone(),
            recursion_depth(options),
        )?
    } else {
        let ast = syntax::parse(source)?;
        check_cells(&ast, options)?;
        program::lower_recursion(
            &ast,
            source,
            options.macros.clone(),
            recursion_depth(options),
        )?
    };
    let mut events = events::unroll(
        &program,
        UnrollOptions {
            unroll: options.unroll,
            max_events: options.max_events,
            end_threads_at_bound: options.end_threads_at_bound,
            forward_stores: options.forward_stores,
        },
    )?;
    events.block_at_bound = options.block_at_bound;
    Ok(Test { program, events })
}

/// The largest bound [`LoadOptions::unroll_as_needed`] raises the unrolling to
/// ([`crate::analysis::deepen`]).
pub const MAX_UNROLL_AS_NEEDED: u32 = 64;

/// The depth recursive calls are inlined to: as deep as any bound the test may be unrolled
/// to, so that the unroller cuts them at its bound as it cuts loops.
fn recursion_depth(options: &LoadOptions) -> u32 {
    if options.unroll_as_needed {
        options.unroll.max(MAX_UNROLL_AS_NEEDED)
    } else {
        options.unroll
    }
}

/// Refuse a test whose init block declares more cells than `options.max_events` before
/// lowering makes a location of each (see [`program::size`]).
fn check_cells(ast: &syntax::ast::LitmusTest, options: &LoadOptions) -> Result<(), LoadError> {
    match options.max_events {
        Some(max) => program::size::check_declared_cells(ast, max).map_err(LoadError::TooManyCells),
        None => Ok(()),
    }
}

/// Parse and lower `source`, without unrolling: the program IR alone.
pub fn lower(source: &SourceFile) -> Result<Program, InputError> {
    let ast = syntax::parse(source)?;
    program::lower(&ast, source)
}
