//! Running a command over a batch of test files: in parallel, each test buffered and
//! printed in path order, one bad file never stopping the others, deadlines per test.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use nemos::report;
use nemos::report::batch::{Entry, Summary, Tally};
use nemos::report::shard::Shard;

use super::args::Format;
use super::files::collect_files;
use super::output::{eprint_error, paint_messages, palette, Stdout};

/// Worst outcome of a run, mapped to the exit code at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    Clean = 0,
    LimitHit = 3,
    Defect = 1,
    BadInput = 2,
    /// A result differs from the one `--expect` gives.
    Differs = 4,
}

impl Status {
    /// Bad input outranks a difference from the expected results, which outranks a defect,
    /// which outranks a limit.
    fn rank(self) -> u8 {
        match self {
            Status::Clean => 0,
            Status::LimitHit => 1,
            Status::Defect => 2,
            Status::Differs => 3,
            Status::BadInput => 4,
        }
    }

    /// The word a batch's JSON entry says it with (`status`).
    pub fn name(self) -> &'static str {
        match self {
            Status::Clean => "clean",
            Status::Defect => "defect",
            Status::BadInput => "error",
            Status::LimitHit => "limit",
            Status::Differs => "differs",
        }
    }

    /// The status [`Status::name`] says `name` for.
    pub fn named(name: &str) -> Option<Status> {
        [
            Status::Clean,
            Status::Defect,
            Status::BadInput,
            Status::LimitHit,
            Status::Differs,
        ]
        .into_iter()
        .find(|s| s.name() == name)
    }

    pub fn worst(self, other: Status) -> Status {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }
}

// Each test writes into its own buffers, so that parallel tests never interleave.
macro_rules! owrite {
    ($t:expr, $($arg:tt)*) => {{
        let _ = write!($t.out, $($arg)*);
    }};
}
macro_rules! ewriteln {
    ($t:expr, $($arg:tt)*) => {{
        let _ = writeln!($t.err, $($arg)*);
    }};
}
pub(crate) use {ewriteln, owrite};

/// One test's buffered result, printed in path order once the batch is done.
pub struct TestRun {
    pub path: PathBuf,
    pub status: Status,
    pub out: String,
    pub err: String,
    pub json: Option<serde_json::Value>,
    /// A limit that stopped the analysis before any verdict (timeout, --max-events).
    pub limit: Option<String>,
    pub tally: Tally,
}

impl TestRun {
    pub(crate) fn new(path: &Path) -> TestRun {
        TestRun {
            path: path.to_path_buf(),
            status: Status::Clean,
            out: String::new(),
            err: String::new(),
            json: None,
            limit: None,
            tally: Tally::default(),
        }
    }

    fn status_name(&self) -> &'static str {
        self.status.name()
    }

    fn entry_json(&self) -> serde_json::Value {
        // Plain text whatever the terminal: no escape codes from a coloured diagnostic.
        let error = anstream::adapter::strip_str(&self.err).to_string();
        report::batch::entry_json(
            &self.path.display().to_string(),
            self.status_name(),
            self.json.as_ref(),
            self.limit.as_deref(),
            &error,
        )
    }

    fn entry(&self) -> Entry {
        Entry {
            tally: self.tally,
            failed: self.status == Status::BadInput,
            limited: self.limit.is_some(),
        }
    }
}

pub type Work = Arc<dyn Fn(&mut TestRun, &Path) -> Status + Send + Sync>;

/// Threads of their own: the parser and the encoder recurse, and the default stack of a
/// spawned thread (2 MiB) is smaller than the main thread's.
const STACK_SIZE: usize = 64 << 20;

#[derive(Clone, Copy)]
pub struct BatchOptions {
    pub format: Format,
    pub jobs: Option<usize>,
    /// Only this shard of the batch (`--shard K/N`).
    pub shard: Option<Shard>,
    pub timeout: Option<Duration>,
}

/// Run `work` on every litmus file under `paths`, in parallel, and print the results in
/// path order; one bad file never stops the others.
pub fn run_batch(paths: &[PathBuf], options: BatchOptions, work: Work) -> Status {
    let start = Instant::now();
    let mut items: Vec<(PathBuf, Option<String>)> = Vec::new();
    for path in paths {
        match collect_files(path) {
            Ok(files) => items.extend(files.into_iter().map(|f| (f, None))),
            Err(message) => items.push((path.clone(), Some(message))),
        }
    }
    items.sort();
    items.dedup();
    if let Some(shard) = options.shard {
        items = shard.select(items);
    }
    // Only for a person watching: a pipe or a file (tests, CI) gets no progress lines.
    let progress = (items.len() > 1 && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(items.len() as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} tests, {elapsed} elapsed, {eta} left",
        ) {
            bar.set_style(style);
        }
        bar
    });
    let threads = workers(options.jobs, items.len());
    let runs: Vec<TestRun> = if threads == 1 {
        on_one_thread(items, work, options.timeout, progress.clone())
    } else {
        let one = |item: &Item| run_item(item, &work, options.timeout, progress.as_ref());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(STACK_SIZE)
            .build();
        match pool {
            Ok(pool) => pool.install(|| items.par_iter().map(one).collect()),
            Err(_) => items.iter().map(one).collect(),
        }
    };
    if let Some(bar) = &progress {
        bar.finish_and_clear();
    }
    let wall = start.elapsed();
    print_batch(&runs, options, wall)
}

/// A file of the batch, or the message of a path that could not be read as one.
type Item = (PathBuf, Option<String>);

fn run_item(
    (path, problem): &Item,
    work: &Work,
    timeout: Option<Duration>,
    progress: Option<&indicatif::ProgressBar>,
) -> TestRun {
    let t = match problem {
        Some(message) => {
            let mut t = TestRun::new(path);
            ewriteln!(t, "error: {message}");
            t.status = Status::BadInput;
            t
        }
        None => run_test(path, work, timeout),
    };
    if let Some(bar) = progress {
        bar.inc(1);
    }
    t
}

/// A batch with one worker (one test, or `-j 1`): one thread with the large stack, without
/// rayon's pool (its registry and deques). The thread is left parked once it has sent its
/// runs, not ended, until the process exits: a thread that ends hands its allocator's pages
/// back, and mimalloc returns them to the system when the process exits, a `madvise` each
/// (splitting a transparent huge page); on the ptr tier's LKMM test `strace -c` counts 63
/// `madvise` calls when the thread ends, 36 when it is parked (README.md, "herd's library
/// and the kernel's own files").
fn on_one_thread(
    items: Vec<Item>,
    work: Work,
    timeout: Option<Duration>,
    progress: Option<indicatif::ProgressBar>,
) -> Vec<TestRun> {
    let (send, receive) = mpsc::channel();
    // For this thread, should the worker not start.
    let spare = (items.clone(), Arc::clone(&work), progress.clone());
    let spawned = std::thread::Builder::new()
        .stack_size(STACK_SIZE)
        .spawn(move || {
            let runs: Vec<TestRun> = items
                .iter()
                .map(|item| run_item(item, &work, timeout, progress.as_ref()))
                .collect();
            if send.send(runs).is_ok() {
                loop {
                    std::thread::park();
                }
            }
        });
    match spawned {
        Ok(worker) => match receive.recv() {
            Ok(runs) => runs,
            // The worker ended without sending: it panicked outside a test's own
            // `catch_unwind`; the panic goes on here, as from rayon's pool.
            Err(_) => match worker.join() {
                Err(panic) => std::panic::resume_unwind(panic),
                Ok(()) => Vec::new(),
            },
        },
        Err(_) => {
            let (items, work, progress) = spare;
            items
                .iter()
                .map(|item| run_item(item, &work, timeout, progress.as_ref()))
                .collect()
        }
    }
}

/// Threads for a batch: as many as asked (all cores by default), but never more than the
/// cores or the tests, so that `-j 100000` does not start (and give 64 MiB of stack to)
/// a hundred thousand threads. One test asks nothing of the system (the number of cores
/// is read from the cgroup's files).
fn workers(jobs: Option<usize>, tests: usize) -> usize {
    if tests <= 1 || jobs == Some(1) {
        return 1;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    jobs.unwrap_or(cores).min(cores).min(tests).max(1)
}

/// One test, on a thread of its own when it has a deadline: a SAT solve cannot be
/// interrupted, so a test past its deadline is abandoned, and its thread keeps running
/// (and its core busy) until the process exits.
fn run_test(path: &Path, work: &Work, timeout: Option<Duration>) -> TestRun {
    let guarded = |work: &Work, path: &Path| {
        let mut t = TestRun::new(path);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&mut t, path)));
        t.status = match result {
            Ok(status) => status,
            Err(_) => {
                ewriteln!(
                    t,
                    "error: {}: internal error: nemos panicked on this test; please report it with the test file",
                    path.display()
                );
                Status::BadInput
            }
        };
        t
    };
    let Some(limit) = timeout else {
        return guarded(work, path);
    };
    let (send, receive) = mpsc::channel();
    let owned_work = Arc::clone(work);
    let owned_path = path.to_path_buf();
    let spawned = std::thread::Builder::new()
        .stack_size(STACK_SIZE)
        .spawn(move || {
            let _ = send.send(guarded(&owned_work, &owned_path));
        });
    let mut t = TestRun::new(path);
    match spawned {
        Err(e) => {
            ewriteln!(t, "error: {}: cannot start a thread: {e}", path.display());
            t.status = Status::BadInput;
        }
        Ok(_detached) => match receive.recv_timeout(limit) {
            Ok(done) => return done,
            Err(_) => {
                t.limit = Some(format!("timeout after {} s", limit.as_secs_f64()));
                t.status = Status::LimitHit;
            }
        },
    }
    t
}

fn print_batch(runs: &[TestRun], options: BatchOptions, wall: Duration) -> Status {
    let format = options.format;
    let status = runs
        .iter()
        .fold(Status::Clean, |status, t| status.worst(t.status));
    let entries: Vec<Entry> = runs.iter().map(TestRun::entry).collect();
    let summary = Summary::of(&entries, wall);
    let mut stdout = Stdout::new();
    // A shard's JSON is always a document, for `nemos merge`, even of one test or none.
    if format == Format::Json && (runs.len() > 1 || options.shard.is_some()) {
        let tests = runs.iter().map(TestRun::entry_json).collect();
        let document = match options.shard {
            Some(shard) => shard.document(tests, &summary),
            None => report::batch::document(tests, &summary),
        };
        match serde_json::to_string_pretty(&document) {
            Ok(text) => stdout.write(&format!("{text}\n")),
            Err(e) => eprint_error(&format!("cannot serialise the result: {e}")),
        }
        for t in runs {
            eprint!("{}", paint_messages(&t.err));
        }
    } else {
        for t in runs {
            let mut out = t.out.clone();
            if let Some(limit) = &t.limit {
                if format == Format::Json {
                    out = format!("{:#}\n", t.entry_json());
                } else {
                    let line = format!("{}: {limit}; no verdict", t.path.display());
                    let _ = writeln!(out, "{}", palette(format).warn(&line));
                }
            } else if let Some(json) = &t.json {
                out = format!("{json:#}\n");
            } else if format == Format::Json && t.status == Status::BadInput {
                // A reader of JSON gets a document for a test that failed too: its batch
                // entry, the error as plain text (also on stderr).
                out = format!("{:#}\n", t.entry_json());
            }
            stdout.write(&out);
            if !t.err.is_empty() {
                // Keep the two streams in step for a reader of the terminal.
                if let Err(e) = stdout.lock.flush() {
                    stdout.fail(e);
                }
                eprint!("{}", paint_messages(&t.err));
            }
        }
        if runs.len() > 1 && format == Format::Text {
            stdout.write(&summary.table(palette(format)));
        }
    }
    drop(stdout);
    let failed: Vec<String> = runs
        .iter()
        .filter(|t| t.status == Status::BadInput)
        .map(|t| t.path.display().to_string())
        .collect();
    if !failed.is_empty() && runs.len() > 1 {
        eprint_error(&format!(
            "{} input(s) could not be processed: {}",
            failed.len(),
            failed.join(", ")
        ));
    }
    status
}
