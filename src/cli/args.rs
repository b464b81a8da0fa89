//! The command line as clap parses it: what each command takes, and nothing derived from
//! it (that is [`super::hiargs`]).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use nemos::analysis::atomicity::AtomicityMode;
use nemos::analysis::spec::SpecMode;
use nemos::encode::acyclic::AcyclicStrategy;
use nemos::report;
use nemos::report::shard::Shard;
use nemos::solver::Backend;

pub const EXIT_CODES: &str = "Exit codes: 0 ran and found no defect; 1 a defect (a race, an atomicity violation, a failed assertion or invalid access, a deadlock, \
a failed ~exists or forall); 2 bad input or usage; 3 a limit was hit (executions cut by the unrolling bound, --timeout, \
--max-events); 4 a result differs from --expect. \
A batch exits with the worst status of its tests: bad input, then a difference, then a defect, then a limit.";

#[derive(Parser)]
#[command(
    name = "nemos",
    version,
    about = "Decide litmus tests exactly under memory models, with SAT",
    after_help = EXIT_CODES
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Colour the text output: auto (only on a terminal, and not when NO_COLOR is set;
    /// CLICOLOR_FORCE forces it), always, never. JSON and herd output are never coloured.
    #[arg(long, global = true, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

// Each command's arguments are built only when it runs (`defer`): building every
// command's was about a twelfth of a small test's instructions. (Not a doc comment: clap
// would read it as the program's `about`.)
#[derive(Subcommand)]
#[command(defer = true)]
pub enum Command {
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
    /// Print the events a test unrolls into (Figure 4 of the Nemos/DefectFinder paper).
    #[command(after_help = EXIT_CODES)]
    Events {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        unroll: UnrollArgs,
        /// Stop unrolling a test once it has more than N events and report a limit hit
        /// (exit 3), as the analyses do: listing events costs no more than N of them.
        #[arg(long, value_name = "N", default_value_t = nemos::load::DEFAULT_MAX_EVENTS)]
        max_events: usize,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        #[command(flatten)]
        batch: BatchArgs,
        #[command(flatten)]
        c: super::cfiles::CArgs,
    },
    /// Decide each test's final condition and show a witness execution.
    #[command(after_help = EXIT_CODES)]
    Check {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        common: AnalysisArgs,
        /// Print the witness's order matrix (Figure 5 of the Nemos/DefectFinder paper).
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
        #[command(flatten)]
        expect: ExpectArgs,
    },
    /// List every reachable final state over the registers and locations the condition and
    /// the `locations` clause name.
    #[command(after_help = EXIT_CODES)]
    Outcomes {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        common: AnalysisArgs,
        #[command(flatten)]
        expect: ExpectArgs,
    },
    /// Find every pair of statements that race in some execution (exit 1 when one does).
    #[command(after_help = EXIT_CODES)]
    Races {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        common: AnalysisArgs,
        /// Stop at the first racing pair found (others are not searched for), as a
        /// stateless model checker stopping at its first race does
        #[arg(long)]
        first: bool,
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
    /// Check the test's functions against its `spec { }` block: every SC execution is
    /// linearizable (exit 1 on one that is not).
    #[command(after_help = EXIT_CODES)]
    Spec {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        common: AnalysisArgs,
        /// linearizable: every SC execution has a history that respects real time and
        /// matches; loose / strict: CDSSpec's loosely / strictly exhaustive modes, some /
        /// every history consistent with the ordering points (`ordering_point(e)`) matches,
        /// in every execution of the model.
        #[arg(long, value_enum, default_value_t = SpecModeArg::Linearizable)]
        mode: SpecModeArg,
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
    /// The weakest memory orders under which each test is correct: every minimal
    /// assignment of orders to its atomic accesses and fences, why no site of it can be
    /// weaker, and how the written orders compare (exit 1 when they break the property).
    #[command(after_help = EXIT_CODES)]
    Infer {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        common: AnalysisArgs,
        /// Keep the orders of the accesses and fences on source line LINE as written;
        /// repeatable.
        #[arg(long, value_name = "LINE")]
        keep: Vec<usize>,
        /// What must hold, a comma-separated list of: condition (the outcome of `exists`/
        /// `~exists` never reached, `forall` always true), assertions, flags (the model's
        /// flags, a data race under C11), deadlocks (no thread blocked for good), spec (the
        /// `spec { }` block holds, in `--mode`) [default: all five].
        #[arg(long, value_delimiter = ',', value_enum)]
        property: Vec<PropertyPart>,
        /// incremental: one instance in which the solver chooses the orders (assumes a
        /// stronger order never allows more executions, as in the shipped C11 models);
        /// exhaustive: each assignment solved on its own (assumes nothing of the model).
        #[arg(long, value_enum, default_value = "incremental")]
        search: SearchArg,
        /// Write each test with the suggested orders (the minimal assignment nearest the
        /// written one) to DIR/NAME.litmus, where NAME is the test file's name.
        #[arg(long, value_name = "DIR")]
        write: Option<PathBuf>,
        /// How a test's `spec { }` block must hold (part `spec` of the property): loose /
        /// strict, CDSSpec's loosely / strictly exhaustive modes over the model's
        /// executions.
        #[arg(long, value_enum, default_value = "loose")]
        mode: InferSpecModeArg,
        /// Infer one assignment of orders for the functions the tests share (matched by
        /// name, identical text required), correct in every test; the threads' own
        /// accesses keep their orders.
        #[arg(long, conflicts_with_all = ["keep", "search"])]
        together: bool,
    },
    /// Where the bug is: for a failing check (the condition's outcome reached, a `forall`
    /// violated, an assertion failing), the minimal sets of orderings between conflicting
    /// accesses of different threads whose forbidding removes every bad execution, smallest
    /// first, each with the executions its orderings lead to and the fixes (a mutex, fences)
    /// checked on the rewritten program (exit 1 when a bad execution exists).
    #[command(after_help = EXIT_CODES)]
    Localize {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        common: AnalysisArgs,
        /// Search sets of at most N orderings.
        #[arg(long, value_name = "N", default_value_t = nemos::analysis::localize::DEFAULT_MAX_SIZE)]
        max_size: usize,
        /// Report at most N sets.
        #[arg(long, value_name = "N", default_value_t = nemos::analysis::localize::DEFAULT_MAX_SETS)]
        max_sets: usize,
        /// Do not look for fixes.
        #[arg(long)]
        no_repairs: bool,
        #[command(flatten)]
        graphs: GraphArgs,
        /// Write each distinct verified fix as a whole test, DIR/NAME.fixN.EXT (NAME.EXT
        /// the test file's name, N in the order the fixes are listed).
        #[arg(long, value_name = "DIR", conflicts_with = "no_repairs")]
        write: Option<PathBuf>,
    },
    /// List the shipped memory models and their named checks, or print one model's file.
    Models {
        /// A shipped model name (`sc`) or a path to a `.cat` file.
        name: Option<String>,
    },
    /// Merge the JSON documents of a batch's shards (`--shard K/N ... --format json`) into
    /// the unsharded batch's document (tests in path order, counts added; `wall_seconds` is
    /// the longest shard's); exits as the unsharded batch would have.
    #[command(after_help = EXIT_CODES)]
    Merge {
        /// The shards' documents, every shard of the split once, in any order.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print a completion script for a shell (e.g. `nemos completions bash >
    /// ~/.local/share/bash-completion/completions/nemos`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SearchArg {
    Incremental,
    Exhaustive,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PropertyPart {
    Condition,
    Assertions,
    Flags,
    Deadlocks,
    /// Every execution fits the test's `spec { }` block (in `--mode`).
    Spec,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InferSpecModeArg {
    Loose,
    Strict,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    Strict,
    Window,
    Serial,
}

// Pictures of the execution shown; for a forbidden outcome, of the one reaching it with
// the forbidding check skipped, its cycle highlighted. (Not a doc comment: under `defer`,
// clap would read it as the `about` of every command that flattens it.)
#[derive(Args, Clone)]
pub struct GraphArgs {
    /// Write the execution as a Graphviz graph to FILE; for several tests, FILE is a
    /// directory that receives one `.dot` file per test.
    #[arg(long, value_name = "FILE")]
    pub dot: Option<PathBuf>,
    /// Render the same graph as SVG with Graphviz's `dot` (which must be on PATH) to FILE,
    /// or one `.svg` file per test in a directory.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
}

#[derive(Args, Clone)]
pub struct ExpectArgs {
    /// Compare each test's final states and verdict with its block in FILE, a log in
    /// herd7's layout (herd's `.expected` files, `litmus/*.expected`), as herd's mcompare7
    /// does; exit 4 when some test differs.
    #[arg(long, value_name = "FILE")]
    pub expect: Option<PathBuf>,
}

#[derive(Args, Clone, Copy)]
pub struct UnrollArgs {
    /// Loop iterations to unroll; executions needing more are reported, not analysed
    /// [default: 2; for a C file's check, outcomes and races, doubled from 2 up to 64 while
    /// some execution needs more].
    #[arg(long, value_name = "N")]
    pub unroll: Option<u32>,
}

impl UnrollArgs {
    /// The bound a test is unrolled to first.
    pub fn bound(self) -> u32 {
        self.unroll.unwrap_or(DEFAULT_UNROLL)
    }
}

/// `--unroll`'s default: two iterations show a loop's second pass (where most of its
/// ordering questions are) at a small cost.
pub const DEFAULT_UNROLL: u32 = 2;

#[derive(Args, Clone, Copy)]
pub struct BatchArgs {
    /// Tests run in parallel on N threads (default: all cores; never more threads than
    /// cores or tests).
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = parse_jobs)]
    pub jobs: Option<usize>,
    /// Run only shard K of N of the batch: the tests at positions K, K+N, K+2N... (from 1)
    /// of its sorted list of files, so that N machines given the same arguments share it;
    /// with --format json, always a document, which `nemos merge` joins.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub shard: Option<Shard>,
}

fn parse_shard(s: &str) -> Result<Shard, String> {
    s.parse()
}

fn parse_jobs(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("a batch needs at least one thread: give -j 1 or more".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{s}` is not a number of threads")),
    }
}

#[derive(Args, Clone)]
pub struct AnalysisArgs {
    /// The memory model: a shipped one (`nemos models` lists them) or a `.cat` file
    /// [default: sc; rc11 for infer].
    #[arg(long = "model", value_name = "MODEL")]
    pub model_choice: Option<String>,
    /// herd's configuration file: its `model`, `bell`, `macros` and `variant` lines (files
    /// relative to it) instead of `--model`.
    #[arg(
        long = "conf",
        value_name = "FILE.cfg",
        conflicts_with = "model_choice"
    )]
    pub conf: Option<String>,
    /// herd's library folder (herd7's `-I`; `HERDLIB` when not given): a model's includes
    /// found neither beside it nor among the files of herd's library nemos knows are read
    /// there.
    #[arg(long = "herd-lib", value_name = "DIR")]
    pub herd_lib: Option<std::path::PathBuf>,
    /// Switch off a named check of the model (what-if); repeatable.
    #[arg(long = "skip", value_name = "CHECK")]
    pub skip: Vec<String>,
    #[command(flatten)]
    pub unroll: UnrollArgs,
    #[command(flatten)]
    pub c: super::cfiles::CArgs,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Count the allowed executions (distinct rf and co) that satisfy the condition and
    /// that do not, as herd does; its layout (`--format herd`) always counts.
    #[arg(long)]
    pub count: bool,
    /// How acyclicity is encoded.
    #[arg(long, default_value = "lazy", value_parser = parse_strategy)]
    pub acyclicity: AcyclicStrategy,
    /// The solver: varisat (embedded), cadical (embedded when built with `--features
    /// cadical`), or z3 or cvc5 run as a process (installed separately).
    #[arg(long, default_value = "varisat", value_parser = parse_backend)]
    pub solver: Backend,
    /// Write the instance of the query (check: the condition query) to FILE as `dimacs` or
    /// `smt2`, with comments naming the variables (`c 17 rf(e3,e7)`); one test only.
    #[arg(long, num_args = 2, value_names = ["FORMAT", "FILE"])]
    pub emit: Option<Vec<String>>,
    /// Give up on a test after SECONDS and report it as a limit hit (exit 3), not a verdict.
    /// The abandoned solve keeps its core busy until nemos exits.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    pub timeout: Option<Duration>,
    /// Do not analyse a test that unrolls into more than N events; report it as a limit hit.
    /// The unrolling stops there, so a program that would grow without bound (a huge
    /// array, a loop whose trip count is known but vast) costs no more than N events.
    #[arg(long, value_name = "N", default_value_t = nemos::load::DEFAULT_MAX_EVENTS)]
    pub max_events: usize,
    #[command(flatten)]
    pub batch: BatchArgs,
    /// A data race is no defect of a C program's `check` (GenMC's
    /// -disable-race-detection); `races` still finds them.
    #[arg(long)]
    pub ignore_races: bool,
    /// A thread blocked for good is no defect: such executions are left out of the counts,
    /// as GenMC leaves them without -check-liveness (an assertion that fails in one is
    /// still a defect, as GenMC reports it).
    #[arg(long)]
    pub no_liveness: bool,
    /// Check the model again rather than read it from the cache of checked models
    /// (`$XDG_CACHE_HOME/nemos`; `NEMOS_NO_CACHE=1` does the same).
    #[arg(long)]
    pub no_cache: bool,
}

fn parse_timeout(s: &str) -> Result<Duration, String> {
    let seconds: f64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("`{s}` is not a duration"))
}

fn parse_backend(s: &str) -> Result<Backend, String> {
    s.parse()
}

fn parse_strategy(s: &str) -> Result<AcyclicStrategy, String> {
    s.parse()
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Herd,
    Json,
}

impl Format {
    pub fn report(self) -> report::Format {
        match self {
            Format::Text => report::Format::Text,
            Format::Herd => report::Format::Herd,
            Format::Json => report::Format::Json,
        }
    }
}

impl ModeArg {
    pub fn mode(self) -> AtomicityMode {
        match self {
            ModeArg::Strict => AtomicityMode::Strict,
            ModeArg::Window => AtomicityMode::Window,
            ModeArg::Serial => AtomicityMode::Serial,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SpecModeArg {
    Linearizable,
    Loose,
    Strict,
}

impl SpecModeArg {
    pub fn mode(self) -> SpecMode {
        match self {
            SpecModeArg::Linearizable => SpecMode::Linearizable,
            SpecModeArg::Loose => SpecMode::Loose,
            SpecModeArg::Strict => SpecMode::Strict,
        }
    }
}
