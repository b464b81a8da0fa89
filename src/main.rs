//! The `nemos` command: argument handling and glue. The work lives in the library.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use rayon::prelude::*;

use nemos::analysis::atomicity::AtomicityMode;
use nemos::analysis::{observation_of, AnalysisOptions, Observation, Session};
use nemos::diagnostics::{InputError, SourceFile};
use nemos::encode::acyclic::AcyclicStrategy;
use nemos::events::{self, Events, UnrollOptions};
use nemos::program::{self, Program};
use nemos::report::{self, CheckReport, Palette};
use nemos::solver::{Backend, EmitFormat, Recording, SolverOptions};
use nemos::syntax;

const EXIT_CODES: &str = "Exit codes: 0 ran and found no defect; 1 a defect (a race, an atomicity violation, a failed assertion); \
2 bad input or usage; 3 a limit was hit (executions cut by the unrolling bound, --timeout, --max-events). \
A batch exits with the worst status of its tests: bad input, then a defect, then a limit.";

#[derive(Parser)]
#[command(
    name = "nemos",
    version,
    about = "Decide litmus tests exactly under memory models, with SAT",
    after_help = EXIT_CODES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Colour the text output: auto (only on a terminal, and not when NO_COLOR is set;
    /// CLICOLOR_FORCE forces it), always, never. JSON and herd output are never coloured.
    #[arg(long, global = true, value_enum, default_value_t = ColorArg::Auto)]
    color: ColorArg,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ColorArg {
    Auto,
    Always,
    Never,
}

/// Whether each stream is coloured, decided once in `main`.
#[derive(Clone, Copy, Default)]
struct Colors {
    stdout: bool,
    stderr: bool,
}

static COLORS: std::sync::OnceLock<Colors> = std::sync::OnceLock::new();

fn colors() -> Colors {
    COLORS.get().copied().unwrap_or_default()
}

impl Colors {
    /// `--color` against the environment (NO_COLOR, CLICOLOR_FORCE, TERM) and whether each
    /// stream is a terminal, by anstream's rules.
    fn decide(arg: ColorArg) -> Colors {
        use anstream::{AutoStream, ColorChoice};
        match arg {
            ColorArg::Auto => ColorChoice::Auto,
            ColorArg::Always => ColorChoice::Always,
            ColorArg::Never => ColorChoice::Never,
        }
        .write_global();
        Colors {
            stdout: AutoStream::choice(&std::io::stdout()) != ColorChoice::Never,
            stderr: AutoStream::choice(&std::io::stderr()) != ColorChoice::Never,
        }
    }
}

/// The last `--color VALUE` or `--color=VALUE` before a `--`.
fn color_in_args(args: impl Iterator<Item = std::ffi::OsString>) -> Option<ColorArg> {
    let mut found = None;
    let mut args = args.skip(1);
    while let Some(arg) = args.next() {
        let value = match arg.to_str() {
            Some("--") => break,
            Some("--color") => args.next(),
            Some(other) => other.strip_prefix("--color=").map(Into::into),
            None => None,
        };
        if let Some(value) = value {
            found = ColorArg::from_str(&value.to_string_lossy(), false)
                .ok()
                .or(found);
        }
    }
    found
}

/// How a text report on stdout is styled: never in JSON or herd's layout.
fn palette(format: Format) -> Palette {
    Palette {
        color: format == Format::Text && colors().stdout,
    }
}

/// How messages on stderr are styled.
fn err_palette() -> Palette {
    Palette {
        color: colors().stderr,
    }
}

/// Diagnostics text for stderr: each line's leading `error:`, `warning:` or `note:` in colour.
fn paint_messages(text: &str) -> String {
    let palette = err_palette();
    if !palette.color {
        return text.to_string();
    }
    text.split_inclusive('\n')
        .map(|line| {
            for (prefix, paint) in [
                ("error:", Palette::bad as fn(Palette, &str) -> String),
                ("warning:", Palette::warn),
                ("note:", Palette::strong),
            ] {
                if let Some(rest) = line.strip_prefix(prefix) {
                    return format!("{}{rest}", paint(palette, prefix));
                }
            }
            line.to_string()
        })
        .collect()
}

/// `error: MESSAGE` on stderr.
fn eprint_error(message: &str) {
    eprint!("{}", paint_messages(&format!("error: {message}\n")));
}

#[derive(Subcommand)]
enum Command {
    /// Check the syntax of litmus files and print their name, threads and condition.
    #[command(after_help = EXIT_CODES)]
    Parse {
        /// Files or directories (searched for *.litmus).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        #[command(flatten)]
        batch: BatchArgs,
    },
    /// Print the events a test unrolls into (seed 004, Figure 4).
    #[command(after_help = EXIT_CODES)]
    Events {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        unroll: UnrollArgs,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        #[command(flatten)]
        batch: BatchArgs,
    },
    /// Decide each test's final condition and show a witness execution.
    #[command(after_help = EXIT_CODES)]
    Check {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        common: AnalysisArgs,
        /// Print the witness's order matrix (seed 004, Figure 5).
        #[arg(long)]
        matrix: bool,
        /// Also list every reachable final state.
        #[arg(long)]
        states: bool,
        /// Have the solver check its own proof of every unsatisfiable answer and say
        /// "certified" for a forbidden (or always-reached) outcome.
        #[arg(long)]
        certify: bool,
        #[command(flatten)]
        graphs: GraphArgs,
    },
    /// List every reachable final state over the registers and locations the condition and
    /// the `locations` clause name.
    #[command(after_help = EXIT_CODES)]
    Outcomes {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        common: AnalysisArgs,
    },
    /// Find every pair of statements that race in some execution (exit 1 when one does).
    #[command(after_help = EXIT_CODES)]
    Races {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        common: AnalysisArgs,
    },
    /// Check that `atomic { }` blocks are atomic (exit 1 on a violation).
    #[command(after_help = EXIT_CODES)]
    Atomicity {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        common: AnalysisArgs,
        /// strict: no event of another thread inside a block; window: none that touches a
        /// location the block touches (one of the two a write); serial: no final state that
        /// uninterrupted blocks cannot reach.
        #[arg(long, value_enum, default_value_t = ModeArg::Window)]
        mode: ModeArg,
    },
    /// For an outcome the model forbids (the test's condition unreachable): the smallest
    /// set of the model's named checks that forbid it, and the sets whose removal allows it.
    #[command(after_help = EXIT_CODES)]
    Explain {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        common: AnalysisArgs,
        #[command(flatten)]
        graphs: GraphArgs,
    },
    /// List the shipped memory models and their named checks, or print one model's file.
    Models {
        /// A shipped model name (`sc`) or a path to a `.cat` file.
        name: Option<String>,
    },
    /// Print a completion script for a shell (e.g. `nemos completions bash >
    /// ~/.local/share/bash-completion/completions/nemos`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ModeArg {
    Strict,
    Window,
    Serial,
}

/// Pictures of the execution shown; for a forbidden outcome, of the one reaching it with
/// the forbidding check skipped, its cycle highlighted.
#[derive(Args, Clone)]
struct GraphArgs {
    /// Write the execution as a Graphviz graph to FILE; for several tests, FILE is a
    /// directory that receives one `.dot` file per test.
    #[arg(long, value_name = "FILE")]
    dot: Option<PathBuf>,
    /// Render the same graph as SVG with Graphviz's `dot` (which must be on PATH) to FILE,
    /// or one `.svg` file per test in a directory.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
}

#[derive(Args, Clone, Copy)]
struct UnrollArgs {
    /// Loop iterations to unroll; executions needing more are reported, not analysed.
    #[arg(long, default_value_t = 2)]
    unroll: u32,
}

#[derive(Args, Clone, Copy)]
struct BatchArgs {
    /// Tests run in parallel on N threads (default: all cores).
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<usize>,
}

#[derive(Args, Clone)]
struct AnalysisArgs {
    /// The memory model: a shipped one (`nemos models` lists them) or a `.cat` file.
    #[arg(long, default_value = "sc")]
    model: String,
    /// Switch off a named check of the model (what-if); repeatable.
    #[arg(long = "skip", value_name = "CHECK")]
    skip: Vec<String>,
    #[command(flatten)]
    unroll: UnrollArgs,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Count allowed executions (distinct rf and co) as herd does.
    #[arg(long)]
    count: bool,
    /// How acyclicity is encoded.
    #[arg(long, default_value = "lazy", value_parser = parse_strategy)]
    acyclicity: AcyclicStrategy,
    /// The solver: varisat (embedded), or z3 or cvc5 run as a process (installed separately).
    #[arg(long, default_value = "varisat", value_parser = parse_backend)]
    solver: Backend,
    /// Write the instance of the query (check: the condition query) to FILE as `dimacs` or
    /// `smt2`, with comments naming the variables (`c 17 rf(e3,e7)`); one test only.
    #[arg(long, num_args = 2, value_names = ["FORMAT", "FILE"])]
    emit: Option<Vec<String>>,
    /// Give up on a test after SECONDS and report it as a limit hit (exit 3), not a verdict.
    /// The abandoned solve keeps its core busy until nemos exits.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    timeout: Option<Duration>,
    /// Do not analyse a test that unrolls into more than N events; report it as a limit hit.
    #[arg(long, value_name = "N")]
    max_events: Option<usize>,
    #[command(flatten)]
    batch: BatchArgs,
    /// Where `--dot` and `--svg` write the graphs.
    #[arg(skip)]
    graphs: GraphTargets,
}

#[derive(Clone, Default)]
struct GraphTargets {
    dot: Option<DotTarget>,
    svg: Option<DotTarget>,
}

impl GraphTargets {
    fn wanted(&self) -> bool {
        self.dot.is_some() || self.svg.is_some()
    }

    /// The targets of `args` for `paths`; `--svg` needs Graphviz, looked for once here.
    fn of(paths: &[PathBuf], args: GraphArgs) -> Result<GraphTargets, String> {
        if args.svg.is_some() {
            let found = std::process::Command::new("dot")
                .arg("-V")
                .stderr(std::process::Stdio::null())
                .status();
            if !found.is_ok_and(|s| s.success()) {
                return Err(
                    "--svg runs Graphviz's `dot`, which is not on PATH: install \
                     Graphviz, or write the graph with --dot and render it elsewhere"
                        .into(),
                );
            }
        }
        Ok(GraphTargets {
            dot: args.dot.map(|t| dot_target(paths, t)).transpose()?,
            svg: args.svg.map(|t| dot_target(paths, t)).transpose()?,
        })
    }
}

#[derive(Clone)]
enum DotTarget {
    File(PathBuf),
    Dir(PathBuf),
}

impl DotTarget {
    /// One test writes the file given; in a directory, each test's file is named after its
    /// path (`litmus/SB.litmus` to `litmus_SB.dot`) so that equal names in different
    /// directories do not collide.
    fn file_for(&self, test: &Path, extension: &str) -> PathBuf {
        match self {
            DotTarget::File(file) => file.clone(),
            DotTarget::Dir(dir) => {
                let parts: Vec<String> = test
                    .with_extension(extension)
                    .components()
                    .filter_map(|c| match c {
                        std::path::Component::Normal(part) => {
                            Some(part.to_string_lossy().into_owned())
                        }
                        _ => None,
                    })
                    .collect();
                dir.join(parts.join("_"))
            }
        }
    }
}

fn parse_timeout(s: &str) -> Result<Duration, String> {
    let seconds: f64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("`{s}` is not a duration"))
}

impl AnalysisArgs {
    /// The export requested by `--emit`.
    fn emit(&self) -> Result<Option<(EmitFormat, PathBuf)>, String> {
        match self.emit.as_deref() {
            None => Ok(None),
            Some([format, file]) => Ok(Some((format.parse()?, PathBuf::from(file)))),
            Some(_) => Err("--emit takes a format (dimacs or smt2) and a file".into()),
        }
    }

    /// What every analysis command checks before reading any file: the solver can run and
    /// the export is well formed and has a single test to write.
    fn validate(&self, paths: &[PathBuf]) -> Result<(), String> {
        self.solver.available().map_err(|e| e.to_string())?;
        if self.emit()?.is_some() {
            let mut files = 0;
            for path in paths {
                files += collect_files(path)?.len();
            }
            if files != 1 {
                return Err(format!(
                    "--emit writes the instance of one test, but {files} test files were given"
                ));
            }
        }
        Ok(())
    }
}

fn parse_backend(s: &str) -> Result<Backend, String> {
    s.parse()
}

fn parse_strategy(s: &str) -> Result<AcyclicStrategy, String> {
    s.parse()
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Herd,
    Json,
}

/// Worst outcome of a run, mapped to the exit code at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Status {
    Clean = 0,
    LimitHit = 3,
    Defect = 1,
    BadInput = 2,
}

impl Status {
    /// Bad input outranks a defect, which outranks a limit.
    fn rank(self) -> u8 {
        match self {
            Status::Clean => 0,
            Status::LimitHit => 1,
            Status::Defect => 2,
            Status::BadInput => 3,
        }
    }

    fn worst(self, other: Status) -> Status {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }
}

fn main() -> ExitCode {
    // clap prints help and usage errors itself, before `--color` is parsed: it is looked
    // up first so that those follow it too (clap's own `auto` already follows NO_COLOR).
    let mut command = Cli::command();
    match color_in_args(std::env::args_os()) {
        Some(ColorArg::Always) => command = command.color(clap::ColorChoice::Always),
        Some(ColorArg::Never) => command = command.color(clap::ColorChoice::Never),
        Some(ColorArg::Auto) | None => {}
    }
    let cli = match Cli::from_arg_matches(&command.get_matches()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let _ = COLORS.set(Colors::decide(cli.color));
    let status = run(cli.command);
    ExitCode::from(status as u8)
}

// Each test writes into its own buffers, so that parallel tests never interleave.
macro_rules! owrite {
    ($t:expr, $($arg:tt)*) => {{
        let _ = write!($t.out, $($arg)*);
    }};
}
macro_rules! owriteln {
    ($t:expr, $($arg:tt)*) => {{
        let _ = writeln!($t.out, $($arg)*);
    }};
}
macro_rules! ewriteln {
    ($t:expr, $($arg:tt)*) => {{
        let _ = writeln!($t.err, $($arg)*);
    }};
}

/// Standard output through one lock; a closed pipe (`nemos ... | head`) ends the output
/// quietly instead of panicking as `print!` does.
struct Stdout {
    lock: std::io::StdoutLock<'static>,
    closed: bool,
}

impl Stdout {
    fn new() -> Stdout {
        Stdout {
            lock: std::io::stdout().lock(),
            closed: false,
        }
    }

    fn write(&mut self, text: &str) {
        if self.closed {
            return;
        }
        if let Err(e) = self.lock.write_all(text.as_bytes()) {
            self.fail(e);
        }
    }

    fn fail(&mut self, e: std::io::Error) {
        self.closed = true;
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprint_error(&format!("cannot write the output: {e}"));
        }
    }
}

impl Drop for Stdout {
    fn drop(&mut self) {
        if !self.closed {
            if let Err(e) = self.lock.flush() {
                self.fail(e);
            }
        }
    }
}

/// What one test found, counted in the batch summary.
#[derive(Clone, Copy, Default)]
struct Tally {
    /// The condition's outcome is reachable (`Some(true)`) or not (`Some(false)`).
    allowed: Option<bool>,
    races: usize,
    violated: bool,
    assertion_failed: bool,
    bound_hit: bool,
}

/// One test's buffered result, printed in path order once the batch is done.
struct TestRun {
    path: PathBuf,
    status: Status,
    out: String,
    err: String,
    json: Option<serde_json::Value>,
    /// A limit that stopped the analysis before any verdict (timeout, --max-events).
    limit: Option<String>,
    tally: Tally,
}

impl TestRun {
    fn new(path: &Path) -> TestRun {
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
        match self.status {
            Status::Clean => "clean",
            Status::Defect => "defect",
            Status::BadInput => "error",
            Status::LimitHit => "limit",
        }
    }

    fn entry_json(&self) -> serde_json::Value {
        // Plain text whatever the terminal: no escape codes from a coloured diagnostic.
        let error = anstream::adapter::strip_str(&self.err).to_string();
        serde_json::json!({
            "path": self.path.display().to_string(),
            "status": self.status_name(),
            "result": self.json,
            "limit": self.limit,
            "error": (!error.is_empty()).then_some(error),
        })
    }
}

type Work = Arc<dyn Fn(&mut TestRun, &Path) -> Status + Send + Sync>;

/// Threads of their own: the parser and the encoder recurse, and the default stack of a
/// spawned thread (2 MiB) is smaller than the main thread's.
const STACK_SIZE: usize = 64 << 20;

#[derive(Clone, Copy)]
struct BatchOptions {
    format: Format,
    jobs: Option<usize>,
    timeout: Option<Duration>,
}

fn run(command: Command) -> Status {
    let analysis = match &command {
        Command::Check { paths, common, .. }
        | Command::Outcomes { paths, common }
        | Command::Races { paths, common }
        | Command::Atomicity { paths, common, .. }
        | Command::Explain { paths, common, .. } => Some((paths, common)),
        Command::Parse { .. }
        | Command::Events { .. }
        | Command::Models { .. }
        | Command::Completions { .. } => None,
    };
    if let Some((paths, common)) = analysis {
        if let Err(message) = common.validate(paths) {
            eprint_error(&message);
            return Status::BadInput;
        }
        // Loaded before the batch starts, so that a bad model is reported once.
        if let Err(status) = load_model(&common.model) {
            return status;
        }
    }
    // Parsing and unrolling are quick and bounded by the input: no --timeout for them.
    let untimed = |paths: &[PathBuf], format: Format, jobs: Option<usize>, work: Work| {
        let options = BatchOptions {
            format,
            jobs,
            timeout: None,
        };
        run_batch(paths, options, work)
    };
    let analyse = |paths: &[PathBuf], common: AnalysisArgs, query: Query| {
        let options = BatchOptions {
            format: common.format,
            jobs: common.batch.jobs,
            timeout: common.timeout,
        };
        let work: Work = Arc::new(move |t, path| analyse_one(t, path, &common, query));
        run_batch(paths, options, work)
    };
    // `check` and `explain` draw graphs: their targets are resolved before the batch.
    let analyse_drawing =
        |paths: &[PathBuf], mut common: AnalysisArgs, graphs: GraphArgs, query: Query| {
            match GraphTargets::of(paths, graphs) {
                Ok(targets) => common.graphs = targets,
                Err(message) => {
                    eprint_error(&message);
                    return Status::BadInput;
                }
            }
            analyse(paths, common, query)
        };
    match command {
        Command::Parse {
            paths,
            format,
            batch,
        } => untimed(
            &paths,
            format,
            batch.jobs,
            Arc::new(move |t, path| parse_one(t, path, format)),
        ),
        Command::Events {
            paths,
            unroll,
            format,
            batch,
        } => untimed(
            &paths,
            format,
            batch.jobs,
            Arc::new(move |t, path| events_one(t, path, unroll, format)),
        ),
        Command::Check {
            paths,
            common,
            matrix,
            states,
            certify,
            graphs,
        } => {
            let query = Query::Check {
                matrix,
                states,
                certify,
            };
            analyse_drawing(&paths, common, graphs, query)
        }
        Command::Outcomes { paths, common } => analyse(&paths, common, Query::Outcomes),
        Command::Races { paths, common } => analyse(&paths, common, Query::Races),
        Command::Atomicity {
            paths,
            common,
            mode,
        } => {
            let mode = match mode {
                ModeArg::Strict => AtomicityMode::Strict,
                ModeArg::Window => AtomicityMode::Window,
                ModeArg::Serial => AtomicityMode::Serial,
            };
            analyse(&paths, common, Query::Atomicity(mode))
        }
        Command::Explain {
            paths,
            common,
            graphs,
        } => analyse_drawing(&paths, common, graphs, Query::Explain),
        Command::Models { name } => models_command(name.as_deref()),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "nemos", &mut script);
            Stdout::new().write(&String::from_utf8_lossy(&script));
            Status::Clean
        }
    }
}

/// A directory for a batch (created if need be) or an existing directory, else one file.
fn dot_target(paths: &[PathBuf], target: PathBuf) -> Result<DotTarget, String> {
    let mut tests = 0;
    for path in paths {
        tests += collect_files(path).map_or(1, |files| files.len());
    }
    if tests > 1 {
        std::fs::create_dir_all(&target)
            .map_err(|e| format!("cannot create the directory {}: {e}", target.display()))?;
        Ok(DotTarget::Dir(target))
    } else if target.is_dir() {
        Ok(DotTarget::Dir(target))
    } else {
        Ok(DotTarget::File(target))
    }
}

/// Run `work` on every litmus file under `paths`, in parallel, and print the results in
/// path order; one bad file never stops the others.
fn run_batch(paths: &[PathBuf], options: BatchOptions, work: Work) -> Status {
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
    let one = |(path, problem): &(PathBuf, Option<String>)| {
        let t = match problem {
            Some(message) => {
                let mut t = TestRun::new(path);
                ewriteln!(t, "error: {message}");
                t.status = Status::BadInput;
                t
            }
            None => run_test(path, &work, options.timeout),
        };
        if let Some(bar) = &progress {
            bar.inc(1);
        }
        t
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs.unwrap_or(0))
        .stack_size(STACK_SIZE)
        .build();
    let runs: Vec<TestRun> = match pool {
        Ok(pool) => pool.install(|| items.par_iter().map(one).collect()),
        Err(_) => items.iter().map(one).collect(),
    };
    if let Some(bar) = &progress {
        bar.finish_and_clear();
    }
    let wall = start.elapsed();
    print_batch(&runs, options.format, wall)
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

#[derive(serde::Serialize)]
struct Summary {
    tests: usize,
    allowed: usize,
    forbidden: usize,
    racy: usize,
    violated: usize,
    assertion_failures: usize,
    errors: usize,
    limits: usize,
    wall_seconds: f64,
}

impl Summary {
    fn of(runs: &[TestRun], wall: Duration) -> Summary {
        let count = |f: &dyn Fn(&TestRun) -> bool| runs.iter().filter(|t| f(t)).count();
        Summary {
            tests: runs.len(),
            allowed: count(&|t| t.tally.allowed == Some(true)),
            forbidden: count(&|t| t.tally.allowed == Some(false)),
            racy: count(&|t| t.tally.races > 0),
            violated: count(&|t| t.tally.violated),
            assertion_failures: count(&|t| t.tally.assertion_failed),
            errors: count(&|t| t.status == Status::BadInput),
            limits: count(&|t| t.limit.is_some() || t.tally.bound_hit),
            wall_seconds: (wall.as_secs_f64() * 1000.0).round() / 1000.0,
        }
    }

    /// The summary table; with colour, its title bold and each count of a defect, an error
    /// or a limit that is not zero in red (yellow for limits).
    fn table(&self, palette: Palette) -> String {
        use prettytable::{format, Table};
        let mut table = Table::new();
        table.set_format(*format::consts::FORMAT_NO_BORDER_LINE_SEPARATOR);
        table.set_titles(prettytable::row![
            "tests",
            "allowed",
            "forbidden",
            "racy",
            "violated",
            "assert failed",
            "errors",
            "limits",
            "wall"
        ]);
        table.add_row(prettytable::row![
            self.tests,
            self.allowed,
            self.forbidden,
            self.racy,
            self.violated,
            self.assertion_failures,
            self.errors,
            self.limits,
            format!("{:.2} s", self.wall_seconds)
        ]);
        let text = table.to_string();
        if !palette.color {
            return text;
        }
        // Styled after layout: prettytable would count escape codes as width.
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        if let Some(title) = lines.first_mut() {
            *title = palette.strong(title);
        }
        if let Some(row) = lines.get_mut(2) {
            let cells: Vec<String> = row
                .split('|')
                .enumerate()
                .map(|(i, cell)| {
                    let value = cell.trim();
                    let paint: Option<fn(Palette, &str) -> String> = match i {
                        3..=6 => Some(Palette::bad),
                        7 => Some(Palette::warn),
                        _ => None,
                    };
                    match paint {
                        Some(paint) if !value.is_empty() && value != "0" => {
                            cell.replacen(value, &paint(palette, value), 1)
                        }
                        _ => cell.to_string(),
                    }
                })
                .collect();
            *row = cells.join("|");
        }
        lines.iter().map(|l| format!("{l}\n")).collect()
    }
}

fn print_batch(runs: &[TestRun], format: Format, wall: Duration) -> Status {
    let status = runs
        .iter()
        .fold(Status::Clean, |status, t| status.worst(t.status));
    let mut stdout = Stdout::new();
    if format == Format::Json && runs.len() > 1 {
        let document = serde_json::json!({
            "tests": runs.iter().map(TestRun::entry_json).collect::<Vec<_>>(),
            "summary": Summary::of(runs, wall),
        });
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
            stdout.write(&Summary::of(runs, wall).table(palette(format)));
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

/// A shipped model by name, or a model file by path (its includes relative to it, then
/// among the shipped files). Loaded once per run, so that a bad model file is reported
/// once, not once per litmus file.
fn load_model(spec: &str) -> Result<Arc<nemos::cat::Model>, Status> {
    type Loaded = std::collections::HashMap<String, Result<Arc<nemos::cat::Model>, Status>>;
    static MODELS: std::sync::OnceLock<std::sync::Mutex<Loaded>> = std::sync::OnceLock::new();
    let cache = MODELS.get_or_init(Default::default);
    if let Some(known) = cache.lock().ok().and_then(|c| c.get(spec).cloned()) {
        return known;
    }
    let loaded = load_model_uncached(spec);
    if let Ok(mut c) = cache.lock() {
        c.insert(spec.to_string(), loaded.clone());
    }
    loaded
}

fn load_model_uncached(spec: &str) -> Result<Arc<nemos::cat::Model>, Status> {
    let is_path = spec.ends_with(".cat") || spec.contains('/') || spec.contains('\\');
    if !is_path || nemos::cat::shipped(spec).is_some() && !Path::new(spec).exists() {
        return match nemos::cat::load_shipped(spec) {
            Some(Ok(model)) => Ok(Arc::new(model)),
            Some(Err(e)) => {
                eprint!("{}", e.render(colors().stderr));
                Err(Status::BadInput)
            }
            None => {
                let names: Vec<&str> = nemos::cat::SHIPPED.iter().map(|m| m.0).collect();
                eprint_error(&format!(
                    "unknown model `{spec}`; shipped models: {} (or give a path to a .cat file)",
                    names.join(", ")
                ));
                Err(Status::BadInput)
            }
        };
    }
    let path = Path::new(spec);
    let text = std::fs::read_to_string(path).map_err(|e| {
        eprint_error(&format!("cannot read model {}: {e}", path.display()));
        Status::BadInput
    })?;
    let file = SourceFile::new(path.display().to_string(), text);
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = path
        .file_stem()
        .map_or(spec.to_string(), |s| s.to_string_lossy().into_owned());
    let mut resolve = |include: &str| -> Result<SourceFile, String> {
        let candidate = dir.join(include);
        match std::fs::read_to_string(&candidate) {
            Ok(text) => Ok(SourceFile::new(candidate.display().to_string(), text)),
            Err(e) => {
                nemos::cat::shipped(include).ok_or_else(|| format!("{}: {e}", candidate.display()))
            }
        }
    };
    nemos::cat::load(&file, &name, &mut resolve)
        .map(Arc::new)
        .map_err(|e| {
            eprint!("{}", e.render(colors().stderr));
            Status::BadInput
        })
}

fn models_command(name: Option<&str>) -> Status {
    match name {
        Some(spec) => {
            if let Some(file) = nemos::cat::shipped(spec) {
                Stdout::new().write(&file.text);
                return Status::Clean;
            }
            match std::fs::read_to_string(spec) {
                Ok(text) => {
                    Stdout::new().write(&text);
                    Status::Clean
                }
                Err(_) => {
                    eprint_error(&format!(
                        "unknown model `{spec}`; `nemos models` lists them"
                    ));
                    Status::BadInput
                }
            }
        }
        None => {
            let mut out = String::new();
            for (name, file, _) in nemos::cat::SHIPPED {
                let model = match load_model(name) {
                    Ok(m) => m,
                    Err(s) => return s,
                };
                let mut line = format!(
                    "{name:<10} {:<12} checks: {}",
                    model.title.as_deref().unwrap_or(file),
                    model.check_names().join(", ")
                );
                let flags = model.flag_names();
                if !flags.is_empty() {
                    line.push_str(&format!("; flags: {}", flags.join(", ")));
                }
                let _ = writeln!(out, "{line}");
            }
            Stdout::new().write(&out);
            Status::Clean
        }
    }
}

fn collect_files(path: &Path) -> Result<Vec<PathBuf>, String> {
    if path.is_dir() {
        let mut files = Vec::new();
        let mut stack = vec![path.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let entries = std::fs::read_dir(&dir)
                .map_err(|e| format!("cannot read directory {}: {e}", dir.display()))?;
            for entry in entries.flatten() {
                let p = entry.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "litmus") {
                    files.push(p);
                }
            }
        }
        files.sort();
        Ok(files)
    } else if path.exists() {
        Ok(vec![path.to_path_buf()])
    } else {
        Err(format!("{}: no such file or directory", path.display()))
    }
}

fn report_input_error(t: &mut TestRun, error: &InputError) {
    t.err.push_str(&error.render(colors().stderr));
}

/// Read, parse and lower one file.
fn load(t: &mut TestRun, path: &Path) -> Result<(SourceFile, Program), Status> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        ewriteln!(t, "error: cannot read {}: {e}", path.display());
        Status::BadInput
    })?;
    let file = SourceFile::new(path.display().to_string(), text);
    let test = syntax::parse(&file).map_err(|e| {
        report_input_error(t, &e);
        Status::BadInput
    })?;
    let program = program::lower(&test, &file).map_err(|e| {
        report_input_error(t, &e);
        Status::BadInput
    })?;
    Ok((file, program))
}

fn unroll(
    t: &mut TestRun,
    file: &SourceFile,
    program: &Program,
    args: UnrollArgs,
) -> Result<Events, Status> {
    events::unroll(
        program,
        UnrollOptions {
            unroll: args.unroll,
        },
    )
    .map_err(|diagnostics| {
        report_input_error(t, &InputError::new(file, diagnostics));
        Status::BadInput
    })
}

fn print_json(t: &mut TestRun, value: &impl serde::Serialize) {
    match serde_json::to_value(value) {
        Ok(value) => t.json = Some(value),
        Err(e) => ewriteln!(t, "error: cannot serialise the result: {e}"),
    }
}

fn parse_one(t: &mut TestRun, path: &Path, format: Format) -> Status {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            ewriteln!(t, "error: cannot read {}: {e}", path.display());
            return Status::BadInput;
        }
    };
    let file = SourceFile::new(path.display().to_string(), text);
    match syntax::parse(&file) {
        Ok(test) => {
            if format == Format::Json {
                print_json(t, &test);
            } else {
                let threads: Vec<String> =
                    test.threads.iter().map(|t| t.name.name.clone()).collect();
                let condition = test
                    .condition
                    .as_ref()
                    .map_or(String::new(), |c| file.snippet(c.span).to_string());
                owriteln!(
                    t,
                    "{}: test {} with {} thread(s) ({}); condition {}",
                    path.display(),
                    test.name.name,
                    threads.len(),
                    threads.join(", "),
                    condition
                );
            }
            Status::Clean
        }
        Err(e) => {
            report_input_error(t, &e);
            Status::BadInput
        }
    }
}

fn events_one(t: &mut TestRun, path: &Path, args: UnrollArgs, format: Format) -> Status {
    let (file, program) = match load(t, path) {
        Ok(x) => x,
        Err(s) => return s,
    };
    let events = match unroll(t, &file, &program, args) {
        Ok(e) => e,
        Err(s) => return s,
    };
    match format {
        Format::Json => print_json(t, &report::events_json(&program, &events)),
        _ => owrite!(t, "{}", report::events_table(&program, &events)),
    }
    Status::Clean
}

#[derive(Clone, Copy)]
enum Query {
    Check {
        matrix: bool,
        states: bool,
        certify: bool,
    },
    Outcomes,
    Races,
    Atomicity(AtomicityMode),
    Explain,
}

fn analyse_one(t: &mut TestRun, path: &Path, args: &AnalysisArgs, query: Query) -> Status {
    let model = match load_model(&args.model) {
        Ok(m) => m,
        Err(s) => return s,
    };
    let (file, program) = match load(t, path) {
        Ok(x) => x,
        Err(s) => return s,
    };
    let events = match unroll(t, &file, &program, args.unroll) {
        Ok(e) => e,
        Err(s) => return s,
    };
    if let Some(max) = args.max_events {
        let count = events.events.len();
        if count > max {
            t.limit = Some(format!("{count} events exceed --max-events {max}"));
            return Status::LimitHit;
        }
    }
    let emit = match args.emit() {
        Ok(e) => e,
        Err(message) => {
            ewriteln!(t, "error: {message}");
            return Status::BadInput;
        }
    };
    let recording = emit.as_ref().map(|_| Recording::new());
    let options = AnalysisOptions {
        // An exported query must be the whole question: lazy acyclicity adds its
        // transitivity clauses only between solves, so the file gets ranks instead.
        strategy: match (&emit, args.acyclicity) {
            (Some(_), AcyclicStrategy::Lazy) => AcyclicStrategy::Ranks,
            (_, strategy) => strategy,
        },
        skip: args.skip.clone(),
        model,
        certify: matches!(query, Query::Check { certify: true, .. }),
        solver: SolverOptions {
            backend: args.solver,
            record: recording.clone(),
        },
    };
    let export = |t: &mut TestRun, status: Status, first_query: usize| match (&emit, &recording) {
        (Some((format, target)), Some(recording)) => {
            let header = emit_header(&file, &program, args, query);
            let text = recording.log().emit(*format, Some(first_query), &header);
            match std::fs::write(target, text) {
                Ok(()) => status,
                Err(e) => {
                    ewriteln!(t, "error: cannot write {}: {e}", target.display());
                    Status::BadInput
                }
            }
        }
        _ => status,
    };
    if let Query::Races | Query::Atomicity(_) = query {
        let status = defects_one(t, &file, &program, &events, &options, args, query);
        return if status == Status::BadInput {
            status
        } else {
            export(t, status, 0)
        };
    }
    if let Query::Explain = query {
        return explain_one(t, path, &file, &program, &events, &options, args);
    }
    let mut first_query_of_outcomes = 0;
    let outcome = (|| {
        let mut session = Session::new(&program, &events, &options)?;
        let result = session.check()?;
        if let Some(recording) = &recording {
            first_query_of_outcomes = recording.log().queries.len();
        }
        let want_states = match query {
            Query::Check { states, .. } => states || args.format == Format::Herd,
            Query::Outcomes | Query::Races | Query::Atomicity(_) | Query::Explain => true,
        };
        let states = if want_states {
            Some(session.outcomes()?)
        } else {
            None
        };
        let counts = if args.count {
            Some(session.count_executions()?)
        } else {
            None
        };
        Ok::<_, nemos::analysis::AnalysisError>((result, states, counts, session))
    })();
    let (mut result, states, counts, mut session) = match outcome {
        Ok(x) => x,
        Err(e) => {
            ewriteln!(t, "error: {}: {e}", path.display());
            return Status::BadInput;
        }
    };
    if let Some(states) = &states {
        // The enumeration is the more direct source of the observation; the two agree.
        debug_assert_eq!(observation_of(states), result.observation);
        result.observation = observation_of(states);
    }
    let report = CheckReport {
        file: &file.name,
        model: &args.model,
        program: &program,
        events: &events,
        result: &result,
        states: states.as_deref(),
        counts,
        matrix: matches!(query, Query::Check { matrix: true, .. }),
    };
    match (args.format, query) {
        (Format::Json, _) => print_json(t, &report.json()),
        (Format::Herd, _) => owrite!(t, "{}", report.herd()),
        (Format::Text, Query::Check { certify, .. }) => {
            owrite!(t, "{}", report.text_in(palette(args.format)));
            if certify {
                owrite!(t, "{}", certified_text(&result));
            }
        }
        (Format::Text, _) => owrite!(t, "{}", outcomes_text(&report, palette(args.format))),
    }
    if let (Query::Check { .. }, true) = (query, args.graphs.wanted()) {
        let picture = session.check_picture(report.witness().map(|w| w.1));
        let graph = picture.map(|p| p.map(|(execution, overlay)| report.dot(&execution, &overlay)));
        if let Err(status) = write_graphs(t, path, &args.graphs, graph) {
            return status;
        }
    }
    t.tally.allowed = Some(result.observation != Observation::Never);
    t.tally.assertion_failed = result.assertion_failure.is_some();
    t.tally.bound_hit = result.bound_hit;
    let status = if result.assertion_failure.is_some() {
        Status::Defect
    } else if result.bound_hit {
        Status::LimitHit
    } else {
        Status::Clean
    };
    match query {
        Query::Outcomes => export(t, status, first_query_of_outcomes),
        _ => export(t, status, 0),
    }
}

fn explain_one(
    t: &mut TestRun,
    path: &Path,
    file: &SourceFile,
    program: &Program,
    events: &Events,
    options: &AnalysisOptions,
    args: &AnalysisArgs,
) -> Status {
    let explained = Session::new(program, events, options)
        .and_then(|mut s| s.explain().map(|explanation| (explanation, s)));
    match explained {
        Ok((explanation, session)) => {
            let report = report::ExplainReport {
                file: &file.name,
                model: &args.model,
                program,
                events,
                explanation: &explanation,
            };
            match args.format {
                Format::Json => print_json(t, &report.json()),
                _ => owrite!(t, "{}", report.text_in(palette(args.format))),
            }
            if args.graphs.wanted() {
                let picture = session.explanation_picture(&explanation);
                let graph = picture.map(|p| p.map(|(e, overlay)| report.dot(&e, &overlay)));
                if let Err(status) = write_graphs(t, path, &args.graphs, graph) {
                    return status;
                }
            }
            Status::Clean
        }
        Err(e) => {
            ewriteln!(t, "error: {}: {e}", path.display());
            Status::BadInput
        }
    }
}

/// Write one test's graph where `--dot` and `--svg` ask; `graph` is `None` when there is
/// no execution to draw.
fn write_graphs(
    t: &mut TestRun,
    path: &Path,
    targets: &GraphTargets,
    graph: Result<Option<String>, nemos::analysis::AnalysisError>,
) -> Result<(), Status> {
    let graph = match graph {
        Ok(Some(graph)) => graph,
        Ok(None) => {
            ewriteln!(t, "note: {}: no execution to draw", path.display());
            return Ok(());
        }
        Err(e) => {
            ewriteln!(t, "error: {}: {e}", path.display());
            return Err(Status::BadInput);
        }
    };
    let mut fail = |message: String| {
        ewriteln!(t, "error: {message}");
        Err(Status::BadInput)
    };
    if let Some(target) = &targets.dot {
        let file = target.file_for(path, "dot");
        if let Err(e) = std::fs::write(&file, &graph) {
            return fail(format!("cannot write {}: {e}", file.display()));
        }
    }
    if let Some(target) = &targets.svg {
        let file = target.file_for(path, "svg");
        if let Err(message) = render_svg(&graph, &file) {
            return fail(message);
        }
    }
    Ok(())
}

/// Render DOT text to an SVG file with Graphviz's `dot -Tsvg`.
fn render_svg(graph: &str, file: &Path) -> Result<(), String> {
    use std::process::{Command, Stdio};
    let mut dot = Command::new("dot")
        .args(["-Tsvg", "-o"])
        .arg(file)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run Graphviz's `dot`: {e}"))?;
    if let Some(mut input) = dot.stdin.take() {
        input
            .write_all(graph.as_bytes())
            .map_err(|e| format!("cannot send the graph to `dot`: {e}"))?;
    }
    let done = dot
        .wait_with_output()
        .map_err(|e| format!("`dot` did not finish: {e}"))?;
    if done.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`dot` could not render {}: {}",
            file.display(),
            String::from_utf8_lossy(&done.stderr).trim()
        ))
    }
}

/// The comment on top of an exported instance: which test, and which question it asks.
fn emit_header(file: &SourceFile, program: &Program, args: &AnalysisArgs, query: Query) -> String {
    let question = match query {
        Query::Check { .. } => {
            "check, the condition query: some execution the model allows, within the \
             unrolling bound, satisfies the final condition (check's first solve; the second \
             asks the negation)"
        }
        Query::Outcomes => {
            "outcomes, the first solve of the enumeration: some execution the model allows \
             exists within the unrolling bound (each later solve adds a clause blocking the \
             final states found)"
        }
        Query::Races => "races, the first solve: some candidate race occurs",
        Query::Atomicity(_) => "atomicity, the first solve: some candidate violation occurs",
        Query::Explain => "explain, the first solve: the condition under every check in force",
    };
    format!(
        "nemos {}: test {} ({}), model {}, unroll {}, solver {}\n\
         query: {question}\n\
         variables: fb(eN) event N executes, rf(eW,eR) R reads from W, co(eA,eB) coherence \
         order, fr(eR,eW) from-read, ctl(cN) control N holds; event numbers as in `nemos \
         events`",
        env!("CARGO_PKG_VERSION"),
        program.name,
        file.name,
        args.model,
        args.unroll.unroll,
        args.solver.name(),
    )
}

/// Races and atomicity: the queries whose findings are defects (exit code 1).
fn defects_one(
    t: &mut TestRun,
    file: &SourceFile,
    program: &Program,
    events: &Events,
    options: &AnalysisOptions,
    args: &AnalysisArgs,
    query: Query,
) -> Status {
    let path = t.path.clone();
    let found = (|| {
        let mut session = Session::new(program, events, options)?;
        match query {
            Query::Atomicity(mode) => {
                let result = session.atomicity(mode)?;
                let report = report::AtomicityReport {
                    file,
                    program,
                    events,
                    result: &result,
                };
                match args.format {
                    Format::Json => print_json(t, &report.json()),
                    _ => owrite!(t, "{}", report.text_in(palette(args.format))),
                }
                t.tally.violated = result.violated();
                t.tally.bound_hit = result.bound_hit;
                Ok::<_, nemos::analysis::AnalysisError>((result.violated(), result.bound_hit))
            }
            _ => {
                let result = match session.model_races() {
                    Some(result) => result?,
                    None => session.races()?,
                };
                let report = report::RacesReport {
                    file,
                    model: &args.model,
                    program,
                    events,
                    result: &result,
                };
                match args.format {
                    Format::Json => print_json(t, &report.json()),
                    Format::Herd => owrite!(t, "{}", report.herd()),
                    Format::Text => owrite!(t, "{}", report.text_in(palette(args.format))),
                }
                t.tally.races = result.races.len();
                t.tally.bound_hit = result.bound_hit;
                Ok((!result.races.is_empty(), result.bound_hit))
            }
        }
    })();
    match found {
        Ok((true, _)) => Status::Defect,
        Ok((false, true)) => Status::LimitHit,
        Ok((false, false)) => Status::Clean,
        Err(e) => {
            ewriteln!(t, "error: {}: {e}", path.display());
            Status::BadInput
        }
    }
}

/// What `--certify` established: each side of the condition that no execution reaches was
/// answered unsatisfiable by a solver that checked its own proof.
fn certified_text(result: &nemos::analysis::CheckResult) -> String {
    let mut out = String::new();
    if result.positive.is_none() {
        out.push_str("  certified: no execution satisfies the condition (solver proof checked)\n");
    }
    if result.negative.is_none() {
        out.push_str("  certified: no execution falsifies the condition (solver proof checked)\n");
    }
    out
}

fn outcomes_text(report: &CheckReport, palette: Palette) -> String {
    let states = report.states.unwrap_or_default();
    let mut out = format!(
        "Test {} ({}, model {}): {} reachable final state{}\n",
        report.program.name,
        report.file,
        report.model,
        states.len(),
        if states.len() == 1 { "" } else { "s" }
    );
    for s in states {
        let mark = if s.satisfies {
            "  <- condition holds"
        } else {
            ""
        };
        out.push_str(&format!(
            "  {}{}\n",
            report::state_line(report.program, &s.values),
            mark
        ));
    }
    for flag in &report.result.flags {
        out.push_str(&format!(
            "  {}: raised by some execution the model allows\n",
            palette.warn(&format!("flag {flag}"))
        ));
    }
    if report.result.bound_hit {
        out.push_str(&format!(
            "  {}\n",
            report::bound_warning(palette, report.events.unroll, "they are not included")
        ));
    }
    out
}
