//! What an analysis command means, derived from what clap parsed ([`super::args`]): the
//! query, the model loaded, the library's options for the query and for loading the tests,
//! and where the outputs go. It is built once, before the batch, so that the problems of
//! the arguments themselves (a format the command cannot print, an unreadable `--expect`,
//! a bad model, an export of several tests) are reported before any test is read.
//! (ripgrep's split: `args` holds what was parsed, `HiArgs` what it means.)

use std::path::PathBuf;
use std::sync::Arc;

use nemos::analysis::infer::{Property, Search};
use nemos::analysis::localize::LocalizeSettings;
use nemos::analysis::query::{InferSettings, Query, QueryOptions};
use nemos::analysis::races::RaceSearch;
use nemos::analysis::spec::SpecMode;
use nemos::diagnostics::SourceFile;
use nemos::report::herd_log::{self, Expectations};
use nemos::report::{Printed, Shown};
use nemos::solver::EmitFormat;
use nemos::LoadOptions;

use super::args::{
    AnalysisArgs, Command, ExpectArgs, Format, InferSpecModeArg, PropertyPart, SearchArg,
};
use super::batch::{BatchOptions, Status};
use super::files::collect_files;
use super::graphs::GraphTargets;
use super::models;
use super::output::{self, check_format, colors, eprint_error};

/// An analysis command, ready to run on each test of its batch.
pub struct HiArgs {
    pub paths: Vec<PathBuf>,
    pub query: Query,
    /// How the library answers the query; its model is loaded.
    pub options: QueryOptions,
    /// How each test is read: the unrolling bound, `--max-events`, the model's macros.
    pub load: LoadOptions,
    pub format: Format,
    pub batch: BatchOptions,
    pub shown: Shown,
    /// Where `--dot` and `--svg` write the pictures.
    pub graphs: GraphTargets,
    /// Where `--emit` writes the query's instance.
    pub emit_to: Option<PathBuf>,
    /// Where `infer --write` writes the tests with the inferred orders.
    pub write_orders: Option<PathBuf>,
    /// Where `localize --write` writes the verified fixes.
    pub write_fixes: Option<PathBuf>,
    /// `infer --together`: the tests are inferred as one.
    pub together: bool,
    /// The expected results of `--expect`.
    pub expected: Option<Arc<Expectations>>,
}

/// What an analysis command adds to the arguments every analysis takes.
#[derive(Default)]
struct Extras {
    shown: Shown,
    graphs: Option<super::args::GraphArgs>,
    expect: Option<ExpectArgs>,
    infer: InferSettings,
    write_orders: Option<PathBuf>,
    write_fixes: Option<PathBuf>,
    together: bool,
    localize: LocalizeSettings,
    race_search: RaceSearch,
}

impl HiArgs {
    /// The meaning of an analysis `command`, or the status to exit with once its problem
    /// is printed.
    pub fn new(command: Command) -> Result<HiArgs, Status> {
        let (paths, common, query, extras) = split(command)?;
        let model = common
            .conf
            .clone()
            .or_else(|| common.model_choice.clone())
            .unwrap_or_else(|| query.default_model().to_string());
        check_format(Printed::Answer(query), common.format).map_err(|()| Status::BadInput)?;
        let expected = match extras.expect {
            Some(expect) => read_expectations(expect)?,
            None => None,
        };
        if let (Some(_), Some(refusal)) = (&common.emit, query.emit_refusal()) {
            eprint_error(refusal);
            return Err(Status::BadInput);
        }
        let graphs = match extras.graphs {
            Some(graphs) => GraphTargets::of(&paths, graphs).map_err(|message| {
                eprint_error(&message);
                Status::BadInput
            })?,
            None => GraphTargets::default(),
        };
        let emit = validate(&common, &paths).map_err(|message| {
            eprint_error(&message);
            Status::BadInput
        })?;
        // Loaded before the batch starts, so that a bad model is reported once.
        let herd_lib = common
            .herd_lib
            .clone()
            .or_else(|| std::env::var_os("HERDLIB").map(PathBuf::from));
        let loaded = models::load_model_with(&model, herd_lib.as_deref(), !common.no_cache)?;
        let options = QueryOptions {
            skip: common.skip.clone(),
            strategy: common.acyclicity,
            backend: common.solver,
            count: common.count,
            herd_layout: common.format == Format::Herd,
            compared_with_log: expected.is_some(),
            picture: graphs.wanted(),
            emit: emit.as_ref().map(|(format, _)| *format),
            infer: extras.infer,
            localize: extras.localize,
            race_search: extras.race_search,
            ignore_races: common.ignore_races,
            no_liveness: common.no_liveness,
            ..QueryOptions::new(loaded.model, model)
        };
        let forward_stores = nemos::analysis::query::forwards_stores(query, &options);
        Ok(HiArgs {
            paths,
            query,
            options,
            load: LoadOptions {
                unroll: common.unroll.bound(),
                unroll_as_needed: common.unroll.unroll.is_none(),
                max_events: Some(common.max_events),
                macros: loaded.macros,
                forward_stores,
                ..common.c.load_options()
            },
            format: common.format,
            batch: BatchOptions {
                format: common.format,
                jobs: common.batch.jobs,
                shard: common.batch.shard,
                timeout: common.timeout,
            },
            shown: extras.shown,
            graphs,
            emit_to: emit.map(|(_, file)| file),
            write_orders: extras.write_orders,
            write_fixes: extras.write_fixes,
            together: extras.together,
            expected,
        })
    }
}

/// A command's files, its common arguments, its query and its own arguments.
fn split(command: Command) -> Result<(Vec<PathBuf>, AnalysisArgs, Query, Extras), Status> {
    Ok(match command {
        Command::Check {
            paths,
            common,
            matrix,
            states,
            certify,
            graphs,
            expect,
        } => (
            paths,
            common,
            Query::Check { states, certify },
            Extras {
                shown: Shown { matrix },
                graphs: Some(graphs),
                expect: Some(expect),
                ..Extras::default()
            },
        ),
        Command::Outcomes {
            paths,
            common,
            expect,
        } => (
            paths,
            common,
            Query::Outcomes,
            Extras {
                expect: Some(expect),
                ..Extras::default()
            },
        ),
        Command::Races {
            paths,
            common,
            first,
        } => (
            paths,
            common,
            Query::Races,
            Extras {
                race_search: if first {
                    RaceSearch::First
                } else {
                    RaceSearch::All
                },
                ..Extras::default()
            },
        ),
        Command::Atomicity {
            paths,
            common,
            mode,
        } => (
            paths,
            common,
            Query::Atomicity(mode.mode()),
            Extras::default(),
        ),
        Command::Spec {
            paths,
            common,
            mode,
        } => (paths, common, Query::Spec(mode.mode()), Extras::default()),
        Command::Explain {
            paths,
            common,
            graphs,
        } => (
            paths,
            common,
            Query::Explain,
            Extras {
                graphs: Some(graphs),
                ..Extras::default()
            },
        ),
        Command::Localize {
            paths,
            common,
            max_size,
            max_sets,
            no_repairs,
            graphs,
            write,
        } => (
            paths,
            common,
            Query::Localize,
            Extras {
                localize: LocalizeSettings {
                    max_size,
                    max_sets,
                    repairs: !no_repairs,
                },
                graphs: Some(graphs),
                write_fixes: write,
                ..Extras::default()
            },
        ),
        Command::Infer {
            paths,
            common,
            keep,
            property,
            search,
            write,
            mode,
            together,
        } => {
            let spec_mode = match mode {
                InferSpecModeArg::Loose => SpecMode::Loose,
                InferSpecModeArg::Strict => SpecMode::Strict,
            };
            (
                paths,
                common,
                Query::Infer,
                Extras {
                    infer: InferSettings {
                        property: if property.is_empty() {
                            Property {
                                spec: Some(spec_mode),
                                ..Property::default()
                            }
                        } else {
                            Property {
                                condition: property.contains(&PropertyPart::Condition),
                                assertions: property.contains(&PropertyPart::Assertions),
                                flags: property.contains(&PropertyPart::Flags),
                                deadlocks: property.contains(&PropertyPart::Deadlocks),
                                spec: property.contains(&PropertyPart::Spec).then_some(spec_mode),
                            }
                        },
                        keep_lines: keep,
                        search: match search {
                            SearchArg::Incremental => Search::Incremental,
                            SearchArg::Exhaustive => Search::Exhaustive,
                        },
                    },
                    write_orders: write,
                    together,
                    ..Extras::default()
                },
            )
        }
        Command::Parse { .. }
        | Command::Events { .. }
        | Command::Models { .. }
        | Command::Merge { .. }
        | Command::Completions { .. } => {
            // `cli::run` answers these itself.
            eprint_error("internal error: this command asks no query");
            return Err(Status::BadInput);
        }
    })
}

/// The file of `--expect`, read once before the batch.
fn read_expectations(expect: ExpectArgs) -> Result<Option<Arc<Expectations>>, Status> {
    let Some(path) = expect.expect else {
        return Ok(None);
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
    Ok(Some(Arc::new(expected)))
}

/// What every analysis command checks before reading any file: the solver can run, and the
/// export is well formed and has a single test to write. The export, when asked for.
fn validate(
    common: &AnalysisArgs,
    paths: &[PathBuf],
) -> Result<Option<(EmitFormat, PathBuf)>, String> {
    common.solver.available().map_err(|e| e.to_string())?;
    let emit = match common.emit.as_deref() {
        None => return Ok(None),
        Some([format, file]) => (format.parse()?, PathBuf::from(file)),
        Some(_) => return Err("--emit takes a format (dimacs or smt2) and a file".into()),
    };
    let mut files = 0;
    for path in paths {
        files += collect_files(path)?.len();
    }
    if files != 1 {
        return Err(format!(
            "--emit writes the instance of one test, but {files} test files were given"
        ));
    }
    Ok(Some(emit))
}
