//! C programs on the command line: the preprocessor's options, and the preprocessor itself,
//! which is the C front end's one I/O step (the library's `cfront` only reads its output).

use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};

use clap::Args;

use nemos::cfront::{Preprocessed, HEADERS, PREDEFINED};
use nemos::diagnostics::{decode, SourceFile};
use nemos::load::Preprocessor;

// How C files (`*.c`) are preprocessed, as a C compiler takes it. (Not a doc comment: under
// `defer`, clap would read it as the `about` of every command that flattens it.)
#[derive(Args, Clone, Debug, Default)]
pub struct CArgs {
    /// C files: define a macro, `-D NAME` or `-D NAME=VALUE`; repeatable.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// C files: undefine a macro; repeatable.
    #[arg(short = 'U', value_name = "NAME")]
    pub undefine: Vec<String>,
    /// C files: search DIR for `#include "..."` files; repeatable. nemos's own headers
    /// (`<pthread.h>`, `<stdatomic.h>`, ...) stand for the system's.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Leave out the executions that need more loop iterations than --unroll allows
    /// instead of reporting them as cut (exit 3); the verdict is over the executions within
    /// the bound. GenMC's -unroll=N is this with --end-threads-at-bound.
    #[arg(long)]
    pub block_at_bound: bool,
    /// A thread that would test a loop's condition after --unroll iterations ends there
    /// (GenMC 0.11's -unroll=N kills the thread): the rest of it does not run, a join of it
    /// waits forever, and the execution counts as complete rather than cut.
    #[arg(long)]
    pub end_threads_at_bound: bool,
}

/// The name the preprocessor's line markers give the file it reads from standard input.
const STDIN_NAME: &str = "<stdin>";

impl CArgs {
    /// How a test is loaded with these options: C files through the preprocessor.
    pub fn load_options(&self) -> nemos::LoadOptions {
        nemos::LoadOptions {
            preprocessor: Some(self.preprocessor()),
            block_at_bound: self.block_at_bound,
            end_threads_at_bound: self.end_threads_at_bound,
            ..nemos::LoadOptions::default()
        }
    }

    /// The system preprocessor (`cc -E`) with these options and nemos's headers only.
    pub fn preprocessor(&self) -> Preprocessor {
        let args = self.clone();
        Preprocessor(Arc::new(move |file: &SourceFile| args.run(file)))
    }

    fn run(&self, file: &SourceFile) -> Result<Preprocessed, String> {
        let headers = headers_dir()?;
        let mut command = Command::new("cc");
        command.args(["-E", "-nostdinc", "-isystem"]).arg(headers);
        for macro_definition in PREDEFINED {
            command.arg(format!("-D{macro_definition}"));
        }
        for definition in &self.define {
            command.arg(format!("-D{definition}"));
        }
        for name in &self.undefine {
            command.arg(format!("-U{name}"));
        }
        for dir in &self.include {
            command.arg("-I").arg(dir);
        }
        // The text is piped, so that what nemos read is what is preprocessed; quoted
        // includes are still found beside the file.
        if let Some(dir) = Path::new(&file.name).parent() {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            command.arg("-iquote").arg(dir);
        }
        command.args(["-x", "c", "-"]);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot run the C preprocessor `cc -E`: {e}"))?;
        let text = file.text.as_bytes().to_vec();
        let mut stdin = child.stdin.take();
        let writer = std::thread::spawn(move || {
            if let Some(stdin) = stdin.as_mut() {
                // A preprocessor that stops early closes its input: its message says why.
                let _ = stdin.write_all(&text);
            }
        });
        let output = child
            .wait_with_output()
            .map_err(|e| format!("the C preprocessor failed: {e}"))?;
        let _ = writer.join();
        if !output.status.success() {
            let message = String::from_utf8_lossy(&output.stderr).replace(STDIN_NAME, &file.name);
            return Err(message.trim_end().to_string());
        }
        let text = decode(output.stdout);
        let others = user_files(&text, headers)
            .into_iter()
            .filter_map(|name| {
                let bytes = std::fs::read(&name).ok()?;
                Some((name, decode(bytes)))
            })
            .collect();
        Ok(Preprocessed {
            text,
            main_name: STDIN_NAME.to_string(),
            others,
        })
    }
}

/// The user's files the line markers name, besides the piped one, in order of appearance.
fn user_files(preprocessed: &str, headers: &Path) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut names = Vec::new();
    for line in preprocessed.lines() {
        let Some(rest) = line.strip_prefix("# ") else {
            continue;
        };
        let Some((_, quoted)) = rest.split_once(' ') else {
            continue;
        };
        let Some(name) = quoted.strip_prefix('"').and_then(|q| q.split('"').next()) else {
            continue;
        };
        if name.starts_with('<') || Path::new(name).starts_with(headers) {
            continue;
        }
        if seen.insert(name.to_string()) {
            names.push(name.to_string());
        }
    }
    names
}

/// nemos's headers, written once into a directory of the system's temporary directory
/// named by their contents (so that two versions of nemos never share one), each file
/// written under another name and renamed into place, so that runs in parallel never
/// see half a file.
fn headers_dir() -> Result<&'static Path, String> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        HEADERS.hash(&mut hasher);
        let dir = std::env::temp_dir().join(format!(
            "nemos-{}-headers-{:016x}",
            env!("CARGO_PKG_VERSION"),
            hasher.finish()
        ));
        let fail = |e: std::io::Error| {
            format!("cannot write nemos's C headers into {}: {e}", dir.display())
        };
        std::fs::create_dir_all(&dir).map_err(fail)?;
        for (name, text) in HEADERS {
            let path = dir.join(name);
            if std::fs::read_to_string(&path).is_ok_and(|on_disk| on_disk == *text) {
                continue;
            }
            let partial = dir.join(format!("{name}.{}", std::process::id()));
            std::fs::write(&partial, text).map_err(fail)?;
            std::fs::rename(&partial, &path).map_err(fail)?;
        }
        Ok(dir)
    })
    .as_deref()
    .map_err(Clone::clone)
}
