//! The `nemos` command: arguments in, reports out. Every decision about a query lives in
//! the library (`nemos::analysis::query`); what is here reads files, runs batches and
//! prints.

mod args;
mod batch;
mod cache;
mod cfiles;
mod files;
mod graphs;
mod hiargs;
mod merge;
mod models;
mod output;
mod together;

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{CommandFactory, FromArgMatches};

use nemos::analysis::deepen::ask_unrolled_as_needed;
use nemos::analysis::infer::{patched, Inference};
use nemos::analysis::localize::Localization;
use nemos::analysis::query::{Finding, Severity};
use nemos::diagnostics::{InputError, SourceFile};
use nemos::report::herd_log::{self, Comparison};
use nemos::report::{self, Palette, Printed, Rendered, Report};
use nemos::{LoadError, LoadOptions, Test};

use args::{Cli, ColorArg, Command, Format, UnrollArgs};
use batch::{ewriteln, owrite, run_batch, BatchOptions, Status, TestRun, Work};
use cfiles::CArgs;
use hiargs::HiArgs;
use output::{check_format, color_in_args, colors, palette, Colors, Stdout, COLORS};

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

fn run(command: Command) -> Status {
    match command {
        Command::Parse {
            paths,
            format,
            batch,
        } => {
            if check_format(Printed::Parse, format).is_err() {
                return Status::BadInput;
            }
            untimed(&paths, format, batch, move |t, path| {
                parse_one(t, path, format)
            })
        }
        Command::Events {
            paths,
            unroll,
            max_events,
            format,
            batch,
            c,
        } => {
            if check_format(Printed::Events, format).is_err() {
                return Status::BadInput;
            }
            untimed(&paths, format, batch, move |t, path| {
                events_one(t, path, unroll, max_events, &c, format)
            })
        }
        Command::Merge { files } => merge::merge_command(&files),
        Command::Models { name } => models::models_command(name.as_deref()),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "nemos", &mut script);
            Stdout::new().write(&String::from_utf8_lossy(&script));
            Status::Clean
        }
        analysis @ (Command::Check { .. }
        | Command::Outcomes { .. }
        | Command::Races { .. }
        | Command::Atomicity { .. }
        | Command::Spec { .. }
        | Command::Explain { .. }
        | Command::Infer { .. }
        | Command::Localize { .. }) => match HiArgs::new(analysis) {
            Ok(hi) => analyse(hi),
            Err(status) => status,
        },
    }
}

/// Parsing and unrolling are quick and bounded by the input: no `--timeout` for them.
fn untimed(
    paths: &[PathBuf],
    format: Format,
    batch: args::BatchArgs,
    work: impl Fn(&mut TestRun, &Path) -> Status + Send + Sync + 'static,
) -> Status {
    let options = BatchOptions {
        format,
        jobs: batch.jobs,
        shard: batch.shard,
        timeout: None,
    };
    run_batch(paths, options, Arc::new(work))
}

fn analyse(hi: HiArgs) -> Status {
    if hi.together {
        return together::run(&hi);
    }
    let paths = hi.paths.clone();
    let options = hi.batch;
    let work: Work = Arc::new(move |t, path| analyse_one(t, path, &hi));
    run_batch(&paths, options, work)
}

fn report_input_error(t: &mut TestRun, error: &InputError) {
    t.err.push_str(&error.render(colors().stderr));
}

/// The text of `path` (standard input for `-`), or a message on the test's error stream.
fn read(t: &mut TestRun, path: &Path) -> Result<SourceFile, Status> {
    if path.as_os_str() == files::STDIN {
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
/// more than `options.max_events` events; its calls expand with the model's macros first.
fn load(t: &mut TestRun, path: &Path, options: &LoadOptions) -> Result<Test, Status> {
    let file = read(t, path)?;
    nemos::load(&file, options).map_err(|e| match e {
        LoadError::Input(e) => {
            report_input_error(t, &e);
            Status::BadInput
        }
        LoadError::TooManyEvents(limit) => {
            t.limit = Some(limit.to_string());
            Status::LimitHit
        }
        LoadError::TooManyCells(limit) => {
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
    let target = written_path(path, dir).map_err(|message| {
        ewriteln!(t, "error: {message}");
        Status::BadInput
    })?;
    let written = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&target, text));
    if let Err(e) = written {
        ewriteln!(t, "error: cannot write {}: {e}", target.display());
        return Err(Status::BadInput);
    }
    ewriteln!(t, "wrote {}", target.display());
    Ok(())
}

/// Where `--write DIR` puts the rewritten test at `path`: DIR with the test's file name.
/// Refused, with the message, when that is the test itself.
pub(super) fn written_path(path: &Path, dir: &Path) -> Result<PathBuf, String> {
    let name = path.file_name().map_or_else(
        || std::ffi::OsString::from("stdin.litmus"),
        |n| n.to_os_string(),
    );
    let target = dir.join(name);
    if let (Ok(a), Ok(b)) = (target.canonicalize(), path.canonicalize()) {
        if a == b {
            return Err(format!(
                "{}: --write {} would overwrite the test itself; write elsewhere",
                path.display(),
                dir.display()
            ));
        }
    }
    Ok(target)
}

/// `localize --write`: each distinct verified fix as DIR/NAME.fixN.EXT.
fn write_fixes(
    t: &mut TestRun,
    path: &Path,
    localization: &Localization,
    dir: &Path,
) -> Result<(), Status> {
    let files = localization.fix_files();
    if files.is_empty() {
        ewriteln!(
            t,
            "note: {}: nothing written: no verified fix",
            path.display()
        );
        return Ok(());
    }
    let stem = path
        .file_stem()
        .map_or_else(|| "stdin".into(), |s| s.to_string_lossy());
    let ext = path
        .extension()
        .map_or_else(|| "litmus".into(), |s| s.to_string_lossy());
    if let Err(e) = std::fs::create_dir_all(dir) {
        ewriteln!(t, "error: cannot write {}: {e}", dir.display());
        return Err(Status::BadInput);
    }
    for file in files {
        let target = dir.join(file.file_name(&stem, &ext));
        if let Err(e) = std::fs::write(&target, &file.repair.source) {
            ewriteln!(t, "error: cannot write {}: {e}", target.display());
            return Err(Status::BadInput);
        }
        ewriteln!(t, "wrote {} ({})", target.display(), file.describe());
    }
    Ok(())
}

fn events_one(
    t: &mut TestRun,
    path: &Path,
    unroll: UnrollArgs,
    max_events: usize,
    c: &CArgs,
    format: Format,
) -> Status {
    let options = LoadOptions {
        unroll: unroll.bound(),
        max_events: Some(max_events),
        ..c.load_options()
    };
    let test = match load(t, path, &options) {
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

fn analyse_one(t: &mut TestRun, path: &Path, hi: &HiArgs) -> Status {
    let test = match load(t, path, &hi.load) {
        Ok(test) => test,
        Err(status) => return status,
    };
    let (test, answer) = match ask_unrolled_as_needed(test, hi.query, &hi.options, &hi.load) {
        Ok(answered) => answered,
        Err(e) => {
            ewriteln!(t, "error: {}: {e}", path.display());
            return Status::BadInput;
        }
    };
    if test.events.unroll > hi.load.unroll {
        let reach = if !answer.tally().bound_hit {
            "as far as its executions need"
        } else if answer.severity() == Severity::Defect {
            "where a defect was found (some executions need more)"
        } else {
            "the most tried without --unroll; some executions need more"
        };
        ewriteln!(
            t,
            "note: {}: loops unrolled {} times, {reach}",
            path.display(),
            test.events.unroll
        );
    }
    if let Finding::Limit(limit) = &answer.finding {
        t.limit = Some(limit.clone());
        return Status::LimitHit;
    }
    let model = &hi.options.model_label;
    if let Some(report) = report::answer_report(&test, &answer, model, hi.shown) {
        print(t, report.as_ref(), hi.format);
        if hi.graphs.wanted() {
            let graph = match report::render(report.as_ref(), report::Format::Dot, Palette::PLAIN) {
                Some(Rendered::Text(graph)) => Some(graph),
                _ => None,
            };
            if let Err(status) = graphs::write_graphs(t, path, &hi.graphs, graph) {
                return status;
            }
        }
    }
    t.tally = answer.tally();
    if let (Some(dir), Finding::Infer(inference)) = (&hi.write_orders, &answer.finding) {
        if let Err(status) = write_orders(t, path, &test, inference, dir) {
            return status;
        }
    }
    if let (Some(dir), Finding::Localize(localization)) = (&hi.write_fixes, &answer.finding) {
        if let Err(status) = write_fixes(t, path, localization, dir) {
            return status;
        }
    }
    if let (Some(target), Some(instance)) = (&hi.emit_to, &answer.instance) {
        if let Err(e) = std::fs::write(target, instance) {
            ewriteln!(t, "error: cannot write {}: {e}", target.display());
            return Status::BadInput;
        }
    }
    let matches = hi.expected.as_ref().and_then(|expected| {
        match herd_log::compare(&test, &answer, model, expected)? {
            Comparison::Same => Some(true),
            Comparison::Differs(found) => {
                for difference in found {
                    ewriteln!(t, "differs: {}: {difference}", path.display());
                }
                Some(false)
            }
            Comparison::NoExpectation => {
                ewriteln!(
                    t,
                    "note: {}: no expected result for test {}",
                    path.display(),
                    test.program.name
                );
                None
            }
        }
    });
    match answer.severity_against(matches) {
        Severity::Clean => Status::Clean,
        Severity::Defect => Status::Defect,
        Severity::LimitHit => Status::LimitHit,
        Severity::Differs => Status::Differs,
    }
}
