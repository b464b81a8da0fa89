//! The C front end: a C program with `main`, as its authors write it, in; the litmus AST
//! out, which the litmus front end's lowering takes on from there.
//!
//! The system preprocessor runs first, outside this module (it is the front end's one I/O
//! step: the caller runs it, with nemos's own headers of [`HEADERS`], and hands over its
//! output and the texts of the user's files it read, as [`Preprocessed`]). `lang-c` parses
//! the preprocessed text; `translate.rs` turns its AST into a [`ast::LitmusTest`] whose
//! every span points into the user's own files (the preprocessor's `# LINE "FILE"` markers
//! map each preprocessed line back), which [`SourceFile::joined`] keeps as one text.
//!
//! Why the litmus AST and not the IR: the litmus front end already lowers functions with
//! pointer parameters, structs, C11 atomic calls, fences, locks, `assert`, `assume` and
//! loops, with every check located; a C program is mostly that same language with C's
//! globals and threads. What is C's own (globals named without `*`, `pthread_create` and
//! `pthread_join`, constant-bounded loops unrolled) is rewritten here, and the rest is
//! checked once, by the lowering every litmus test goes through.
//!
//! Imports only `diagnostics` and `syntax::ast`: it sits beside the litmus parser.

mod lines;
mod spawn;
mod translate;

use crate::diagnostics::{Diagnostic, InputError, SourceFile, Span};
use crate::syntax::ast;

pub use lines::LineMap;

/// nemos's own headers, written where the preprocessor finds them (`-isystem`), so that no
/// answer depends on the host's C library: file name and text.
pub const HEADERS: &[(&str, &str)] = &[
    ("assert.h", include_str!("include/assert.h")),
    ("genmc.h", include_str!("include/genmc.h")),
    ("inttypes.h", include_str!("include/inttypes.h")),
    ("limits.h", include_str!("include/limits.h")),
    ("pthread.h", include_str!("include/pthread.h")),
    ("stdatomic.h", include_str!("include/stdatomic.h")),
    ("stdbool.h", include_str!("include/stdbool.h")),
    ("stddef.h", include_str!("include/stddef.h")),
    ("stdint.h", include_str!("include/stdint.h")),
    ("stdio.h", include_str!("include/stdio.h")),
    ("stdlib.h", include_str!("include/stdlib.h")),
    ("string.h", include_str!("include/string.h")),
    ("threads.h", include_str!("include/threads.h")),
    ("unistd.h", include_str!("include/unistd.h")),
];

/// Macros the preprocessor is given on top of the user's: GNU's `__thread` read as C11's
/// `_Thread_local`, which the parser knows, and GCC's branch hint `__builtin_expect(e, v)`
/// as `e`, its value.
pub const PREDEFINED: &[&str] = &["__thread=_Thread_local", "__builtin_expect(e,v)=(e)"];

/// What the preprocessor made of a C file.
#[derive(Clone, Debug)]
pub struct Preprocessed {
    /// Its output, line markers kept.
    pub text: String,
    /// How the markers name the file that was preprocessed (`<stdin>` when it was piped).
    pub main_name: String,
    /// The other files of the user's that the markers name (the included `.c` and `.h`
    /// files, not nemos's headers), as named there, with their texts.
    pub others: Vec<(String, String)>,
}

pub use crate::diagnostics::is_c_file;

/// Parse the preprocessed program and rewrite it as a litmus test. The returned file is
/// `source` followed by the included files, which every span of the test points into.
///
/// `reserved` says whether a name is a call of nemos's library, which a function of the
/// program may not be named in the litmus dialect: such a function is renamed `NAME#c`.
/// `loop_bound`: GenMC's `-unroll=N` (`--end-threads-at-bound`), which bounds constant
/// loops too (`translate/bounded.rs`).
pub fn translate(
    source: &SourceFile,
    preprocessed: &Preprocessed,
    reserved: &dyn Fn(&str) -> bool,
    loop_bound: Option<usize>,
) -> Result<(ast::LitmusTest, SourceFile), InputError> {
    let file = SourceFile::joined(&source.name, &source.text, &preprocessed.others);
    let map = LineMap::new(&preprocessed.text, &preprocessed.main_name, &file);
    let config = lang_c::driver::Config::with_gcc();
    let mut parsed = match lang_c::driver::parse_preprocessed(&config, preprocessed.text.clone()) {
        Ok(parsed) => parsed,
        Err(e) => {
            let mut expected: Vec<&str> = e.expected.iter().copied().collect();
            expected.sort_unstable();
            let at = map.span(e.offset, e.offset + 1);
            let mut diagnostic = Diagnostic::new("C syntax error", at);
            if !expected.is_empty() {
                diagnostic = diagnostic.with_label(format!(
                    "expected {}",
                    expected
                        .iter()
                        .take(6)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            return Err(InputError::single(&file, diagnostic));
        }
    };
    spawn::rewrite(&mut parsed.unit);
    let name = std::path::Path::new(&source.name)
        .file_stem()
        .map_or_else(|| source.name.clone(), |s| s.to_string_lossy().to_string());
    match translate::translate(&parsed.unit, &map, &name, reserved, loop_bound) {
        Ok(test) => Ok((test, file)),
        Err(mut diagnostics) => {
            let mut seen = std::collections::HashSet::new();
            diagnostics.retain(|d| seen.insert((d.span, d.message.clone())));
            Err(InputError::new(&file, diagnostics))
        }
    }
}

/// A span of the whole first file, for what has no better place.
fn nowhere() -> Span {
    Span::new(0, 0)
}
