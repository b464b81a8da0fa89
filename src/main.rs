//! The `nemos` command: argument handling and glue. The work lives in the library.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand, ValueEnum};

use nemos::analysis::atomicity::AtomicityMode;
use nemos::analysis::{observation_of, AnalysisOptions, Session};
use nemos::diagnostics::{InputError, SourceFile};
use nemos::encode::acyclic::AcyclicStrategy;
use nemos::events::{self, Events, UnrollOptions};
use nemos::program::{self, Program};
use nemos::report::{self, CheckReport};
use nemos::solver::{Backend, EmitFormat, Recording, SolverOptions};
use nemos::syntax;

const EXIT_CODES: &str = "Exit codes: 0 ran and found no defect; 1 a defect (a race, an atomicity violation, a failed assertion); \
2 bad input or usage; 3 a limit was hit (executions cut by the unrolling bound).";

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
}

#[derive(Subcommand)]
enum Command {
    /// Check the syntax of litmus files and print their name, threads and condition.
    Parse {
        /// Files or directories (searched for *.litmus).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Print the events a test unrolls into (seed 004, Figure 4).
    Events {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        unroll: UnrollArgs,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
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
    },
    /// List the shipped memory models and their named checks, or print one model's file.
    Models {
        /// A shipped model name (`sc`) or a path to a `.cat` file.
        name: Option<String>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ModeArg {
    Strict,
    Window,
    Serial,
}

#[derive(Args, Clone, Copy)]
struct UnrollArgs {
    /// Loop iterations to unroll; executions needing more are reported, not analysed.
    #[arg(long, default_value_t = 2)]
    unroll: u32,
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
    let cli = Cli::parse();
    let status = run(cli.command);
    ExitCode::from(status as u8)
}

fn run(command: Command) -> Status {
    let analysis = match &command {
        Command::Check { paths, common, .. }
        | Command::Outcomes { paths, common }
        | Command::Races { paths, common }
        | Command::Atomicity { paths, common, .. }
        | Command::Explain { paths, common } => Some((paths, common)),
        Command::Parse { .. } | Command::Events { .. } | Command::Models { .. } => None,
    };
    if let Some((paths, common)) = analysis {
        if let Err(message) = common.validate(paths) {
            eprintln!("error: {message}");
            return Status::BadInput;
        }
    }
    match command {
        Command::Parse { paths, format } => for_each_file(&paths, |path| parse_one(path, format)),
        Command::Events {
            paths,
            unroll,
            format,
        } => for_each_file(&paths, |path| events_one(path, unroll, format)),
        Command::Check {
            paths,
            common,
            matrix,
            states,
            certify,
        } => for_each_file(&paths, |path| {
            let query = Query::Check {
                matrix,
                states,
                certify,
            };
            analyse_one(path, &common, query)
        }),
        Command::Outcomes { paths, common } => {
            for_each_file(&paths, |path| analyse_one(path, &common, Query::Outcomes))
        }
        Command::Races { paths, common } => {
            for_each_file(&paths, |path| analyse_one(path, &common, Query::Races))
        }
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
            for_each_file(&paths, |path| {
                analyse_one(path, &common, Query::Atomicity(mode))
            })
        }
        Command::Explain { paths, common } => {
            for_each_file(&paths, |path| analyse_one(path, &common, Query::Explain))
        }
        Command::Models { name } => models_command(name.as_deref()),
    }
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
                report_input_error(&e);
                Err(Status::BadInput)
            }
            None => {
                let names: Vec<&str> = nemos::cat::SHIPPED.iter().map(|m| m.0).collect();
                eprintln!(
                    "error: unknown model `{spec}`; shipped models: {} (or give a path to a .cat file)",
                    names.join(", ")
                );
                Err(Status::BadInput)
            }
        };
    }
    let path = Path::new(spec);
    let text = std::fs::read_to_string(path).map_err(|e| {
        eprintln!("error: cannot read model {}: {e}", path.display());
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
            report_input_error(&e);
            Status::BadInput
        })
}

fn models_command(name: Option<&str>) -> Status {
    match name {
        Some(spec) => {
            if let Some(file) = nemos::cat::shipped(spec) {
                print!("{}", file.text);
                return Status::Clean;
            }
            match std::fs::read_to_string(spec) {
                Ok(text) => {
                    print!("{text}");
                    Status::Clean
                }
                Err(_) => {
                    eprintln!("error: unknown model `{spec}`; `nemos models` lists them");
                    Status::BadInput
                }
            }
        }
        None => {
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
                println!("{line}");
            }
            Status::Clean
        }
    }
}

/// Run `work` on every litmus file under `paths`; one bad file never stops the others.
fn for_each_file(paths: &[PathBuf], mut work: impl FnMut(&Path) -> Status) -> Status {
    let mut status = Status::Clean;
    let mut failed = Vec::new();
    for path in paths {
        match collect_files(path) {
            Ok(files) => {
                for file in files {
                    let s = work(&file);
                    if s == Status::BadInput {
                        failed.push(file.display().to_string());
                    }
                    status = status.worst(s);
                }
            }
            Err(message) => {
                eprintln!("error: {message}");
                failed.push(path.display().to_string());
                status = status.worst(Status::BadInput);
            }
        }
    }
    if !failed.is_empty() && failed.len() + usize::from(status == Status::Clean) > 1 {
        eprintln!(
            "error: {} input(s) could not be processed: {}",
            failed.len(),
            failed.join(", ")
        );
    }
    status
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

fn report_input_error(error: &InputError) {
    eprint!("{}", error.render(std::io::stderr().is_terminal()));
}

/// Read, parse and lower one file.
fn load(path: &Path) -> Result<(SourceFile, Program), Status> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        eprintln!("error: cannot read {}: {e}", path.display());
        Status::BadInput
    })?;
    let file = SourceFile::new(path.display().to_string(), text);
    let test = syntax::parse(&file).map_err(|e| {
        report_input_error(&e);
        Status::BadInput
    })?;
    let program = program::lower(&test, &file).map_err(|e| {
        report_input_error(&e);
        Status::BadInput
    })?;
    Ok((file, program))
}

fn unroll(file: &SourceFile, program: &Program, args: UnrollArgs) -> Result<Events, Status> {
    events::unroll(
        program,
        UnrollOptions {
            unroll: args.unroll,
        },
    )
    .map_err(|diagnostics| {
        report_input_error(&InputError::new(file, diagnostics));
        Status::BadInput
    })
}

fn print_json(value: &impl serde::Serialize) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => println!("{text}"),
        Err(e) => eprintln!("error: cannot serialise the result: {e}"),
    }
}

fn parse_one(path: &Path, format: Format) -> Status {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", path.display());
            return Status::BadInput;
        }
    };
    let file = SourceFile::new(path.display().to_string(), text);
    match syntax::parse(&file) {
        Ok(test) => {
            if format == Format::Json {
                print_json(&test);
            } else {
                let threads: Vec<String> =
                    test.threads.iter().map(|t| t.name.name.clone()).collect();
                let condition = test
                    .condition
                    .as_ref()
                    .map_or(String::new(), |c| file.snippet(c.span).to_string());
                println!(
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
            report_input_error(&e);
            Status::BadInput
        }
    }
}

fn events_one(path: &Path, args: UnrollArgs, format: Format) -> Status {
    let (file, program) = match load(path) {
        Ok(x) => x,
        Err(s) => return s,
    };
    let events = match unroll(&file, &program, args) {
        Ok(e) => e,
        Err(s) => return s,
    };
    match format {
        Format::Json => print_json(&report::events_json(&program, &events)),
        _ => print!("{}", report::events_table(&program, &events)),
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

fn analyse_one(path: &Path, args: &AnalysisArgs, query: Query) -> Status {
    let model = match load_model(&args.model) {
        Ok(m) => m,
        Err(s) => return s,
    };
    let (file, program) = match load(path) {
        Ok(x) => x,
        Err(s) => return s,
    };
    let events = match unroll(&file, &program, args.unroll) {
        Ok(e) => e,
        Err(s) => return s,
    };
    let emit = match args.emit() {
        Ok(e) => e,
        Err(message) => {
            eprintln!("error: {message}");
            return Status::BadInput;
        }
    };
    let recording = emit.as_ref().map(|_| Recording::new());
    let options = AnalysisOptions {
        strategy: args.acyclicity,
        skip: args.skip.clone(),
        model,
        certify: matches!(query, Query::Check { certify: true, .. }),
        solver: SolverOptions {
            backend: args.solver,
            record: recording.clone(),
        },
    };
    let export = |status: Status, first_query: usize| match (&emit, &recording) {
        (Some((format, target)), Some(recording)) => {
            let header = emit_header(&file, &program, args, query);
            let text = recording.log().emit(*format, Some(first_query), &header);
            match std::fs::write(target, text) {
                Ok(()) => status,
                Err(e) => {
                    eprintln!("error: cannot write {}: {e}", target.display());
                    Status::BadInput
                }
            }
        }
        _ => status,
    };
    if let Query::Races | Query::Atomicity(_) = query {
        let status = defects_one(path, &file, &program, &events, &options, args, query);
        return if status == Status::BadInput {
            status
        } else {
            export(status, 0)
        };
    }
    if let Query::Explain = query {
        return explain_one(path, &file, &program, &events, &options, args);
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
        Ok::<_, nemos::analysis::AnalysisError>((result, states, counts))
    })();
    let (mut result, states, counts) = match outcome {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
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
        (Format::Json, _) => print_json(&report.json()),
        (Format::Herd, _) => print!("{}", report.herd()),
        (Format::Text, Query::Check { certify, .. }) => {
            print!("{}", report.text());
            if certify {
                print!("{}", certified_text(&result));
            }
        }
        (Format::Text, _) => print!("{}", outcomes_text(&report)),
    }
    let status = if result.assertion_failure.is_some() {
        Status::Defect
    } else if result.bound_hit {
        Status::LimitHit
    } else {
        Status::Clean
    };
    match query {
        Query::Outcomes => export(status, first_query_of_outcomes),
        _ => export(status, 0),
    }
}

fn explain_one(
    path: &Path,
    file: &SourceFile,
    program: &Program,
    events: &Events,
    options: &AnalysisOptions,
    args: &AnalysisArgs,
) -> Status {
    let explained = Session::new(program, events, options).and_then(|mut s| s.explain());
    match explained {
        Ok(explanation) => {
            let report = report::ExplainReport {
                file: &file.name,
                model: &args.model,
                program,
                events,
                explanation: &explanation,
            };
            match args.format {
                Format::Json => print_json(&report.json()),
                _ => print!("{}", report.text()),
            }
            Status::Clean
        }
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            Status::BadInput
        }
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
    path: &Path,
    file: &SourceFile,
    program: &Program,
    events: &Events,
    options: &AnalysisOptions,
    args: &AnalysisArgs,
    query: Query,
) -> Status {
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
                    Format::Json => print_json(&report.json()),
                    _ => print!("{}", report.text()),
                }
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
                    Format::Json => print_json(&report.json()),
                    Format::Herd => print!("{}", report.herd()),
                    Format::Text => print!("{}", report.text()),
                }
                Ok((!result.races.is_empty(), result.bound_hit))
            }
        }
    })();
    match found {
        Ok((true, _)) => Status::Defect,
        Ok((false, true)) => Status::LimitHit,
        Ok((false, false)) => Status::Clean,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
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

fn outcomes_text(report: &CheckReport) -> String {
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
            "  flag {flag}: raised by some execution the model allows\n"
        ));
    }
    if report.result.bound_hit {
        out.push_str(&format!(
            "  warning: some executions need more than {} loop iterations; they are not included (raise --unroll)\n",
            report.events.unroll
        ));
    }
    out
}
