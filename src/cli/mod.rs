//! The `nemos` command: arguments in, reports out. Every decision about a query lives in
//! the library (`nemos::analysis::query`); what is here reads files, runs batches and
//! prints.

mod args;
mod batch;
mod cfiles;
mod graphs;
mod models;
mod output;

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{CommandFactory, FromArgMatches};

use nemos::analysis::infer::{patched, Inference, Property, Search};
use nemos::analysis::localize::LocalizeSettings;
use nemos::analysis::query::{ask, Finding, InferSettings, Query, QueryOptions, Severity};
use nemos::analysis::races::RaceSearch;
use nemos::diagnostics::{InputError, SourceFile};
use nemos::report::herd_log::{self, Comparison};
use nemos::report::{self, Printed, Rendered, Report, Shown};
use nemos::syntax::def::Macros;
use nemos::{LoadError, LoadOptions, Test};

use args::{
    AnalysisArgs, Cli, ColorArg, Command, ExpectArgs, Format, GraphArgs, PropertyPart, SearchArg,
    UnrollArgs,
};
use batch::{ewriteln, owrite, run_batch, BatchOptions, Status, TestRun, Work};
use cfiles::CArgs;
use graphs::GraphTargets;
use output::{color_in_args, colors, eprint_error, palette, Colors, Stdout, COLORS};

pub fn main() -> ExitCode {
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

/// What a command prints, for the format check before any work.
fn printed(command: &Command) -> Option<(Printed, Format)> {
    Some(match command {
        Command::Parse { format, .. } => (Printed::Parse, *format),
        Command::Events { format, .. } => (Printed::Events, *format),
        Command::Check { common, .. }
        | Command::Outcomes { common, .. }
        | Command::Races { common, .. }
        | Command::Atomicity { common, .. }
        | Command::Spec { common, .. }
        | Command::Explain { common, .. }
        | Command::Localize { common, .. }
        | Command::Infer { common, .. } => (Printed::Answer(query_of(command)?), common.format),
        Command::Models { .. } | Command::Completions { .. } => return None,
    })
}

/// The query of an analysis command.
fn query_of(command: &Command) -> Option<Query> {
    Some(match command {
        Command::Check {
            states,
            certify,
            common,
            expect,
            ..
        } => {
            let printed = Printed::Answer(Query::Check {
                states: false,
                certify: false,
            });
            Query::Check {
                states: *states
                    || printed.needs_states(common.format.report())
                    || expect.expect.is_some(),
                certify: *certify,
            }
        }
        Command::Outcomes { .. } => Query::Outcomes,
        Command::Races { .. } => Query::Races,
        Command::Atomicity { mode, .. } => Query::Atomicity(mode.mode()),
        Command::Explain { .. } => Query::Explain,
        Command::Infer { .. } => Query::Infer,
        Command::Spec { mode, .. } => Query::Spec(mode.mode()),
        Command::Localize { .. } => Query::Localize,
        Command::Parse { .. }
        | Command::Events { .. }
        | Command::Models { .. }
        | Command::Completions { .. } => return None,
    })
}

/// The model each analysis command runs under: `--model`, or the command's default (orders
/// change nothing under SC, so `infer` starts from RC11).
fn resolve_model(command: &mut Command) {
    let (common, default) = match command {
        Command::Infer { common, .. } => (common, "rc11"),
        Command::Check { common, .. }
        | Command::Outcomes { common, .. }
        | Command::Races { common, .. }
        | Command::Atomicity { common, .. }
        | Command::Spec { common, .. }
        | Command::Explain { common, .. }
        | Command::Localize { common, .. } => (common, "sc"),
        Command::Parse { .. }
        | Command::Events { .. }
        | Command::Models { .. }
        | Command::Completions { .. } => return,
    };
    common.model = common
        .conf
        .clone()
        .or_else(|| common.model_choice.clone())
        .unwrap_or_else(|| default.to_string());
}

fn run(mut command: Command) -> Status {
    resolve_model(&mut command);
    if let Some((printed, format)) = printed(&command) {
        let formats = printed.formats();
        if !formats.contains(&format.report()) {
            let names: Vec<&str> = formats.iter().map(|f| f.name()).collect();
            eprint_error(&format!(
                "this command cannot print --format {}; it prints {}",
                format.report().name(),
                names.join(" or ")
            ));
            return Status::BadInput;
        }
    }
    let query = query_of(&command);
    match command {
        Command::Parse {
            paths,
            format,
            batch,
        } => untimed(&paths, format, batch.jobs, move |t, path| {
            parse_one(t, path, format)
        }),
        Command::Events {
            paths,
            unroll,
            format,
            batch,
            c,
        } => untimed(&paths, format, batch.jobs, move |t, path| {
            events_one(t, path, unroll, &c, format)
        }),
        Command::Check {
            paths,
            mut common,
            matrix,
            graphs,
            expect,
            ..
        } => {
            if let Err(status) = read_expectations(&mut common, expect) {
                return status;
            }
            analyse_drawing(&paths, common, graphs, query, Shown { matrix })
        }
        Command::Outcomes {
            paths,
            mut common,
            expect,
        } => {
            if let Err(status) = read_expectations(&mut common, expect) {
                return status;
            }
            analyse(&paths, common, query, Shown::default())
        }
        Command::Explain {
            paths,
            common,
            graphs,
        } => analyse_drawing(&paths, common, graphs, query, Shown::default()),
        Command::Localize {
            paths,
            mut common,
            max_size,
            max_sets,
            no_repairs,
            graphs,
        } => {
            common.localize = LocalizeSettings {
                max_size,
                max_sets,
                repairs: !no_repairs,
            };
            analyse_drawing(&paths, common, graphs, query, Shown::default())
        }
        Command::Races {
            paths,
            mut common,
            first,
        } => {
            if first {
                common.race_search = RaceSearch::First;
            }
            analyse(&paths, common, query, Shown::default())
        }
        Command::Atomicity { paths, common, .. } | Command::Spec { paths, common, .. } => {
            analyse(&paths, common, query, Shown::default())
        }
        Command::Infer {
            paths,
            mut common,
            keep,
            property,
            search,
            write,
        } => {
            if common.emit.is_some() {
                eprint_error(
                    "infer solves one instance per assignment of orders: --emit cannot write one",
                );
                return Status::BadInput;
            }
            common.infer = InferSettings {
                property: if property.is_empty() {
                    Property::default()
                } else {
                    Property {
                        condition: property.contains(&PropertyPart::Condition),
                        assertions: property.contains(&PropertyPart::Assertions),
                        flags: property.contains(&PropertyPart::Flags),
                    }
                },
                keep_lines: keep,
                search: match search {
                    SearchArg::Incremental => Search::Incremental,
                    SearchArg::Exhaustive => Search::Exhaustive,
                },
            };
            common.write_orders = write;
            analyse(&paths, common, query, Shown::default())
        }
        Command::Models { name } => models::models_command(name.as_deref()),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "nemos", &mut script);
            Stdout::new().write(&String::from_utf8_lossy(&script));
            Status::Clean
        }
    }
}

/// Parsing and unrolling are quick and bounded by the input: no `--timeout` for them.
fn untimed(
    paths: &[PathBuf],
    format: Format,
    jobs: Option<usize>,
    work: impl Fn(&mut TestRun, &Path) -> Status + Send + Sync + 'static,
) -> Status {
    let options = BatchOptions {
        format,
        jobs,
        timeout: None,
    };
    run_batch(paths, options, Arc::new(work))
}

fn analyse(paths: &[PathBuf], common: AnalysisArgs, query: Option<Query>, shown: Shown) -> Status {
    let Some(query) = query else {
        return Status::BadInput;
    };
    if let Err(message) = common.validate(paths) {
        eprint_error(&message);
        return Status::BadInput;
    }
    // Loaded before the batch starts, so that a bad model is reported once.
    if let Err(status) = models::load_model(&common.model) {
        return status;
    }
    let options = BatchOptions {
        format: common.format,
        jobs: common.batch.jobs,
        timeout: common.timeout,
    };
    let work: Work = Arc::new(move |t, path| analyse_one(t, path, &common, query, shown));
    run_batch(paths, options, work)
}

/// The file of `--expect`, read once before the batch.
fn read_expectations(common: &mut AnalysisArgs, expect: ExpectArgs) -> Result<(), Status> {
    let Some(path) = expect.expect else {
        return Ok(());
    };
    let bytes = std::fs::read(&path).map_err(|e| {
        eprint_error(&format!("cannot read {}: {e}", path.display()));
        Status::BadInput
    })?;
    let file = SourceFile::from_bytes(path.display().to_string(), bytes);
    let expected = herd_log::parse(&file).map_err(|e| {
        eprint!("{}", output::paint_messages(&e.render(colors().stderr)));
        Status::BadInput
    })?;
    if expected.is_empty() {
        eprint_error(&format!(
            "{}: no test block (`Test NAME KIND`, `States N`, ...) in herd's layout",
            path.display()
        ));
        return Err(Status::BadInput);
    }
    common.expected = Some(Arc::new(expected));
    Ok(())
}

/// `check` and `explain` draw graphs: their targets are resolved before the batch.
fn analyse_drawing(
    paths: &[PathBuf],
    mut common: AnalysisArgs,
    graphs: GraphArgs,
    query: Option<Query>,
    shown: Shown,
) -> Status {
    match GraphTargets::of(paths, graphs) {
        Ok(targets) => common.graphs = targets,
        Err(message) => {
            eprint_error(&message);
            return Status::BadInput;
        }
    }
    analyse(paths, common, query, shown)
}

fn report_input_error(t: &mut TestRun, error: &InputError) {
    t.err.push_str(&error.render(colors().stderr));
}

/// The text of `path` (standard input for `-`), or a message on the test's error stream.
fn read(t: &mut TestRun, path: &Path) -> Result<SourceFile, Status> {
    if path.as_os_str() == batch::STDIN {
        let mut bytes = Vec::new();
        return match std::io::stdin().read_to_end(&mut bytes) {
            Ok(_) => Ok(SourceFile::from_bytes("<stdin>", bytes)),
            Err(e) => {
                ewriteln!(t, "error: cannot read standard input: {e}");
                Err(Status::BadInput)
            }
        };
    }
    match std::fs::read(path) {
        Ok(bytes) => Ok(SourceFile::from_bytes(path.display().to_string(), bytes)),
        Err(e) => {
            ewriteln!(t, "error: cannot read {}: {e}", path.display());
            Err(Status::BadInput)
        }
    }
}

/// Read `path` and take it through the front end, refusing it (as a limit hit) once it has
/// more than `max_events` events; its calls expand with the model's `macros` first.
fn load(
    t: &mut TestRun,
    path: &Path,
    unroll: UnrollArgs,
    c: &CArgs,
    max_events: Option<usize>,
    macros: Option<Arc<Macros>>,
) -> Result<Test, Status> {
    let file = read(t, path)?;
    let options = LoadOptions {
        unroll: unroll.unroll,
        max_events,
        macros,
        preprocessor: Some(c.preprocessor()),
        block_at_bound: c.block_at_bound,
    };
    nemos::load(&file, &options).map_err(|e| match e {
        LoadError::Input(e) => {
            report_input_error(t, &e);
            Status::BadInput
        }
        LoadError::TooManyEvents(limit) => {
            t.limit = Some(limit.to_string());
            Status::LimitHit
        }
        LoadError::Preprocessor(message) => {
            ewriteln!(t, "{message}");
            Status::BadInput
        }
    })
}

/// Print `report` into the test's buffers in `format` (checked before the batch began).
fn print(t: &mut TestRun, report: &dyn Report, format: Format) {
    match report::render(report, format.report(), palette(format)) {
        Some(Rendered::Text(text)) => owrite!(t, "{text}"),
        Some(Rendered::Json(value)) => t.json = Some(value),
        None => ewriteln!(
            t,
            "error: no {} layout for this report",
            format.report().name()
        ),
    }
}

fn parse_one(t: &mut TestRun, path: &Path, format: Format) -> Status {
    let file = match read(t, path) {
        Ok(file) => file,
        Err(status) => return status,
    };
    match nemos::syntax::parse(&file) {
        Ok(test) => {
            print(
                t,
                &report::events::ParseReport {
                    file: &file,
                    test: &test,
                },
                format,
            );
            Status::Clean
        }
        Err(e) => {
            report_input_error(t, &e);
            Status::BadInput
        }
    }
}

/// `infer --write`: the test with its suggested orders, as DIR/NAME.litmus.
fn write_orders(
    t: &mut TestRun,
    path: &Path,
    test: &nemos::Test,
    inference: &Inference,
    dir: &Path,
) -> Result<(), Status> {
    let Some(suggested) = inference.suggested() else {
        ewriteln!(
            t,
            "note: {}: nothing written: no orders make the program correct",
            path.display()
        );
        return Ok(());
    };
    let text = patched(&test.program, &inference.sites, &suggested.assignment).map_err(|e| {
        ewriteln!(t, "error: {}: cannot write the orders: {e}", path.display());
        Status::BadInput
    })?;
    let name = path.file_name().map_or_else(
        || std::ffi::OsString::from("stdin.litmus"),
        |n| n.to_os_string(),
    );
    let target = dir.join(name);
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same(&target, path) {
        ewriteln!(
            t,
            "error: {}: --write {} would overwrite the test itself; write elsewhere",
            path.display(),
            dir.display()
        );
        return Err(Status::BadInput);
    }
    let written = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&target, text));
    if let Err(e) = written {
        ewriteln!(t, "error: cannot write {}: {e}", target.display());
        return Err(Status::BadInput);
    }
    ewriteln!(t, "wrote {}", target.display());
    Ok(())
}

fn events_one(
    t: &mut TestRun,
    path: &Path,
    unroll: UnrollArgs,
    c: &CArgs,
    format: Format,
) -> Status {
    let test = match load(t, path, unroll, c, None, None) {
        Ok(test) => test,
        Err(status) => return status,
    };
    let report = report::events::EventsReport {
        program: &test.program,
        events: &test.events,
    };
    print(t, &report, format);
    Status::Clean
}

fn analyse_one(
    t: &mut TestRun,
    path: &Path,
    args: &AnalysisArgs,
    query: Query,
    shown: Shown,
) -> Status {
    let (model, macros) = match models::load_model(&args.model) {
        Ok(loaded) => (loaded.model, loaded.macros),
        Err(status) => return status,
    };
    let test = match load(t, path, args.unroll, &args.c, args.max_events, macros) {
        Ok(test) => test,
        Err(status) => return status,
    };
    let emit = match args.emit() {
        Ok(emit) => emit,
        Err(message) => {
            ewriteln!(t, "error: {message}");
            return Status::BadInput;
        }
    };
    let options = QueryOptions {
        skip: args.skip.clone(),
        strategy: args.acyclicity,
        backend: args.solver,
        count: args.count || Printed::Answer(query).needs_counts(args.format.report()),
        picture: args.graphs.wanted(),
        emit: emit.as_ref().map(|(format, _)| *format),
        infer: args.infer.clone(),
        localize: args.localize,
        race_search: args.race_search,
        ..QueryOptions::new(model, args.model.clone())
    };
    let answer = match ask(&test, query, &options) {
        Ok(answer) => answer,
        Err(e) => {
            ewriteln!(t, "error: {}: {e}", path.display());
            return Status::BadInput;
        }
    };
    if let Finding::Limit(limit) = &answer.finding {
        t.limit = Some(limit.clone());
        return Status::LimitHit;
    }
    if let Some(report) = report::answer_report(&test, &answer, &args.model, shown) {
        print(t, report.as_ref(), args.format);
    }
    if args.graphs.wanted() {
        let graph = report::answer_dot(&test, &answer, &args.model);
        if let Err(status) = graphs::write_graphs(t, path, &args.graphs, graph) {
            return status;
        }
    }
    t.tally = report::batch::Tally::of(&answer);
    if let (Some(dir), Finding::Infer(inference)) = (&args.write_orders, &answer.finding) {
        if let Err(status) = write_orders(t, path, &test, inference, dir) {
            return status;
        }
    }
    if let (Some((_, target)), Some(instance)) = (&emit, &answer.instance) {
        if let Err(e) = std::fs::write(target, instance) {
            ewriteln!(t, "error: cannot write {}: {e}", target.display());
            return Status::BadInput;
        }
    }
    if let Some(expected) = &args.expected {
        match herd_log::compare(&test, &answer, &args.model, expected) {
            // The expectation already says whether a defect is wanted; a limit hit is no
            // result to compare, whatever the log says.
            Some(Comparison::Same) if answer.severity() != Severity::LimitHit => {
                return Status::Clean
            }
            Some(Comparison::Differs(found)) => {
                for difference in found {
                    ewriteln!(t, "differs: {}: {difference}", path.display());
                }
                return Status::Differs;
            }
            Some(Comparison::Same) => {}
            Some(Comparison::NoExpectation) => ewriteln!(
                t,
                "note: {}: no expected result for test {}",
                path.display(),
                test.program.name
            ),
            None => {}
        }
    }
    match answer.severity() {
        Severity::Clean => Status::Clean,
        Severity::Defect => Status::Defect,
        Severity::LimitHit => Status::LimitHit,
    }
}
