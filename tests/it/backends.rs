//! Every solver backend answers alike, and exported instances mean what nemos solved.
//!
//! - On the whole corpus (`../shared/corpus`) under `sc` and `rc11`, cadical (when built
//!   in, `--features cadical`), z3 and cvc5 give the same verdict and the same set of final
//!   states as the embedded varisat; on `litmus/`, the same races and atomicity violations.
//! - The DIMACS that `--emit` writes, solved by an external SAT solver (cadical or
//!   minisat), and the SMT-LIB it writes, solved by z3, give the answer nemos got.
//!
//! Tests needing a solver that is not installed (or, for cadical, not built in) say "skipping"
//! and pass; CI installs them (`.ci/run`).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use nemos::analysis::{AnalysisOptions, Observation, Session};
use nemos::diagnostics::SourceFile;
use nemos::encode::cnf::{Bool, Gates};
use nemos::events::Events;
use nemos::program::Program;
use nemos::report::state_line;
use nemos::solver::{
    solve_under, Backend, EmitFormat, Recording, SolveOutcome, Solver, SolverOptions,
    PROPAGATOR_VAR,
};

use crate::common;
use common::{c_corpus_files, corpus, litmus_files, manifest_dir};

/// Parse, lower and unroll; `None` for the files nemos rejects with a message.
fn load(path: &Path) -> Option<(Program, Events)> {
    let file = SourceFile::new(
        path.display().to_string(),
        std::fs::read_to_string(path).unwrap(),
    );
    let test = nemos::load(&file, &Default::default()).ok()?;
    Some((test.program, test.events))
}

fn options(backend: Backend, record: Option<Recording>) -> AnalysisOptions {
    AnalysisOptions {
        solver: SolverOptions { backend, record },
        ..AnalysisOptions::default()
    }
}

/// What a user sees of `check` and `outcomes`.
#[derive(Debug, PartialEq, Eq)]
struct Answer {
    observation: Observation,
    ok: bool,
    bound_hit: bool,
    assertion_fails: bool,
    /// The model's flags some allowed execution raises (rc11: `undefined`, herd's Undef).
    flags: Vec<String>,
    states: BTreeSet<String>,
}

fn answer(program: &Program, events: &Events, backend: Backend, model: &str) -> Answer {
    let options = AnalysisOptions {
        model: common::under(model).model,
        ..options(backend, None)
    };
    let mut session = Session::new(program, events, &options).unwrap();
    let result = session.check().unwrap();
    let states = session.outcomes().unwrap();
    Answer {
        observation: result.observation,
        ok: result.ok,
        bound_hit: result.bound_hit,
        assertion_fails: result.assertion_failure.is_some(),
        flags: result.flags.clone(),
        states: states
            .iter()
            .map(|s| state_line(program, &s.values))
            .collect(),
    }
}

/// The backends other than varisat that can run here, each announced when skipped.
fn other_backends() -> Vec<Backend> {
    [Backend::Cadical, Backend::Z3, Backend::Cvc5]
        .into_iter()
        .filter(|b| match b.available() {
            Ok(()) => true,
            Err(e) => {
                eprintln!("skipping {}: {e}", b.name());
                false
            }
        })
        .collect()
}

#[test]
fn every_backend_agrees_on_the_corpus_under_sc() {
    every_backend_agrees_on_the_corpus("sc");
}

#[test]
fn every_backend_agrees_on_the_corpus_under_rc11() {
    every_backend_agrees_on_the_corpus("rc11");
}

fn every_backend_agrees_on_the_corpus(model: &str) {
    let Some(dir) = corpus() else {
        eprintln!("skipping: ../shared/corpus not found");
        return;
    };
    let backends = other_backends();
    if backends.is_empty() {
        return;
    }
    let mut compared = 0;
    let mut failures = Vec::new();
    let mut seconds = vec![0.0f64; backends.len() + 1];
    for path in c_corpus_files(&dir) {
        let Some((program, events)) = load(&path) else {
            continue;
        };
        let start = std::time::Instant::now();
        let reference = answer(&program, &events, Backend::Varisat, model);
        seconds[0] += start.elapsed().as_secs_f64();
        for (i, &backend) in backends.iter().enumerate() {
            let start = std::time::Instant::now();
            let other = answer(&program, &events, backend, model);
            seconds[i + 1] += start.elapsed().as_secs_f64();
            if other != reference {
                failures.push(format!(
                    "{} under {model}: {} says {other:?}, varisat {reference:?}",
                    path.display(),
                    backend.name()
                ));
            }
        }
        compared += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared >= 190, "only {compared} corpus tests compared");
    let mut timing = format!("varisat {:.1} s", seconds[0]);
    for (i, b) in backends.iter().enumerate() {
        timing.push_str(&format!(", {} {:.1} s", b.name(), seconds[i + 1]));
    }
    eprintln!("{compared} corpus tests under {model}: same verdicts and final states ({timing})");
}

/// The first external SAT solver installed, by its command.
fn external_sat_solver() -> Option<&'static str> {
    ["cadical", "minisat"].into_iter().find(|cmd| {
        Command::new(cmd)
            .arg("--help")
            .output()
            .is_ok_and(|o| o.status.code().is_some())
    })
}

/// Each query `check` asked of each of the project's litmus tests, written out and solved
/// again by `solve_file` (which returns `Some(true)` for SAT).
fn each_emitted_query(format: EmitFormat, solve_file: impl Fn(&Path) -> Option<bool>) -> usize {
    // One directory per format: the SMT-LIB and DIMACS tests run at once in this process.
    let dir = std::env::temp_dir().join(format!("nemos-emit-{}-{format:?}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut checked = 0;
    for path in litmus_files(&manifest_dir().join("litmus")) {
        let (program, events) = load(&path).unwrap();
        let recording = Recording::new();
        let opts = options(Backend::Varisat, Some(recording.clone()));
        let mut session = Session::new(&program, &events, &opts).unwrap();
        session.check().unwrap();
        let log = recording.log().clone();
        assert!(!log.queries.is_empty(), "{}: no query", path.display());
        for (q, record) in log.queries.iter().enumerate() {
            let text = log.emit(format, Some(q), "test instance");
            let file = dir.join(format!("{}-{q}", program.name));
            std::fs::write(&file, text).unwrap();
            let external = solve_file(&file)
                .unwrap_or_else(|| panic!("{}: no answer for query {q}", path.display()));
            let embedded = record.outcome == Some(SolveOutcome::Sat);
            assert_eq!(
                external,
                embedded,
                "{} query {q}: external {external}, nemos {embedded}",
                path.display()
            );
            checked += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    checked
}

#[test]
fn exported_dimacs_agrees_with_an_external_sat_solver() {
    let Some(solver) = external_sat_solver() else {
        eprintln!("skipping: neither cadical nor minisat is installed");
        return;
    };
    let checked = each_emitted_query(EmitFormat::Dimacs, |file| {
        let status = Command::new(solver).arg(file).output().ok()?.status;
        // The SAT competition's exit codes, which both solvers use.
        match status.code() {
            Some(10) => Some(true),
            Some(20) => Some(false),
            _ => None,
        }
    });
    assert!(checked >= 20, "only {checked} queries checked");
    eprintln!("{checked} exported DIMACS queries agree with {solver}");
}

#[test]
fn exported_smt2_agrees_with_z3() {
    if Backend::Z3.available().is_err() {
        eprintln!("skipping: z3 not installed");
        return;
    }
    let checked = each_emitted_query(EmitFormat::Smt2, |file| {
        let out = Command::new("z3").arg(file).output().ok()?;
        match String::from_utf8_lossy(&out.stdout).trim() {
            "sat" => Some(true),
            "unsat" => Some(false),
            _ => None,
        }
    });
    assert!(checked >= 20, "only {checked} queries checked");
}

#[test]
fn exported_instance_names_relation_literals() {
    let (program, events) = load(&manifest_dir().join("litmus/MP.litmus")).unwrap();
    let recording = Recording::new();
    let opts = options(Backend::Varisat, Some(recording.clone()));
    let mut session = Session::new(&program, &events, &opts).unwrap();
    session.check().unwrap();
    let dimacs = recording
        .log()
        .emit(EmitFormat::Dimacs, Some(0), "MP, condition query");
    assert!(dimacs.starts_with("c MP, condition query\n"), "{dimacs}");
    assert!(dimacs.contains("\nc assumptions (added at the end as unit clauses):"));
    let named = |prefix: &str| {
        dimacs
            .lines()
            .any(|l| l.starts_with("c ") && l.split_whitespace().any(|w| w.starts_with(prefix)))
    };
    assert!(named("rf(e"), "{dimacs}");
    let header = dimacs.lines().find(|l| l.starts_with("p cnf ")).unwrap();
    let clauses: usize = header.split_whitespace().nth(3).unwrap().parse().unwrap();
    let body = dimacs
        .lines()
        .filter(|l| !l.starts_with(['c', 'p']))
        .count();
    assert_eq!(body, clauses);
}

/// A solver left out of the build is a usage error that says how to build it in.
#[test]
fn a_solver_not_built_in_says_how_to_build_it() {
    if cfg!(feature = "cadical") {
        eprintln!("skipping: cadical is built in");
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_nemos"))
        .current_dir(manifest_dir())
        .args(["check", "litmus/SB.litmus", "--solver", "cadical"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--features cadical"), "{stderr}");
}

/// A missing solver is a usage error that names the package, never a panic.
#[test]
fn a_missing_solver_names_its_package() {
    for backend in ["z3", "cvc5"] {
        let out = Command::new(env!("CARGO_BIN_EXE_nemos"))
            .current_dir(manifest_dir())
            .env("PATH", "/nonexistent")
            .args(["check", "litmus/SB.litmus", "--solver", backend])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("apt-get install {backend}")),
            "{stderr}"
        );
    }
}

#[test]
fn cli_emits_and_solves_with_each_installed_backend() {
    let dir = std::env::temp_dir().join(format!("nemos-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut backends = vec![Backend::Varisat];
    backends.extend(other_backends());
    for backend in backends {
        for format in ["dimacs", "smt2"] {
            let target = dir.join(format!("{}.{format}", backend.name()));
            let out = Command::new(env!("CARGO_BIN_EXE_nemos"))
                .current_dir(manifest_dir())
                .args(["check", "litmus/SB.litmus", "--solver", backend.name()])
                .args(["--emit", format])
                .arg(&target)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{out:?}");
            assert!(String::from_utf8_lossy(&out.stdout).contains("observation: Never"));
            let text = std::fs::read_to_string(&target).unwrap();
            assert!(text.contains(&format!("solver {}", backend.name())));
            assert!(text.contains("answered UNSAT"), "{text}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a user sees of `races` and `atomicity`: the defects found, not the witnesses (each
/// solver may pick a different execution showing the same defect).
#[derive(Debug, PartialEq, Eq)]
struct Defects {
    races: BTreeSet<String>,
    interruptions: Vec<BTreeSet<String>>,
    non_serial_states: BTreeSet<String>,
    bound_hit: bool,
}

fn defects(program: &Program, events: &Events, backend: Backend) -> Defects {
    use nemos::analysis::atomicity::AtomicityMode;
    let mut session = Session::new(program, events, &options(backend, None)).unwrap();
    let races = session.races().unwrap();
    let mut interruptions = Vec::new();
    let mut non_serial_states = BTreeSet::new();
    let mut bound_hit = races.bound_hit;
    for mode in [
        AtomicityMode::Strict,
        AtomicityMode::Window,
        AtomicityMode::Serial,
    ] {
        let mut session = Session::new(program, events, &options(backend, None)).unwrap();
        let result = session.atomicity(mode).unwrap();
        bound_hit |= result.bound_hit;
        interruptions.push(
            result
                .interruptions
                .iter()
                .map(|i| format!("{:?} {:?}", i.block, i.intruder))
                .collect(),
        );
        non_serial_states.extend(
            result
                .non_serial_states
                .iter()
                .map(|s| state_line(program, &s.state.values)),
        );
    }
    Defects {
        races: races
            .races
            .iter()
            // The pair of statements, not the location: through a pointer one pair may race
            // on several cells, and each backend's witness names one of them.
            .map(|r| format!("{:?} {:?}", r.first, r.second))
            .collect(),
        interruptions,
        non_serial_states,
        bound_hit,
    }
}

#[test]
fn every_backend_finds_the_same_races_and_atomicity_violations() {
    let backends = other_backends();
    let mut compared = 0;
    for path in litmus_files(&manifest_dir().join("litmus")) {
        let (program, events) = load(&path).unwrap();
        let reference = defects(&program, &events, Backend::Varisat);
        for &backend in &backends {
            let other = defects(&program, &events, backend);
            assert_eq!(
                other,
                reference,
                "{} with {}",
                path.display(),
                backend.name()
            );
        }
        compared += 1;
    }
    assert!(compared >= 20, "only {compared} tests compared");
}

/// Over `litmus/` and the C corpus under `model`: how many models straight from the solver
/// (before `Session::solve`'s cycle cutting; up to 8 per test, each blocked by its `rf` and
/// `co`) have a cycle in some lazy order, out of how many.
fn raw_models_with_cycles(backend: Backend, model: &str) -> (usize, usize) {
    let mut files = litmus_files(&manifest_dir().join("litmus"));
    files.extend(corpus().map(|dir| c_corpus_files(&dir)).unwrap_or_default());
    let (mut cyclic, mut models) = (0, 0);
    for path in files {
        let Some((program, events)) = load(&path) else {
            continue;
        };
        let options = AnalysisOptions {
            model: common::under(model).model,
            ..options(backend, None)
        };
        let mut session = Session::new(&program, &events, &options).unwrap();
        let choices: Vec<Bool> = [&session.encoding.rf, &session.encoding.co]
            .into_iter()
            .flat_map(|relation| relation.iter().map(|(_, _, l)| l))
            .filter(|l| !matches!(l, Bool::Const(_)))
            .collect();
        let enabled = session.enabled.clone();
        for _ in 0..8 {
            if solve_under(&mut session.solver, &enabled).unwrap() == SolveOutcome::Unsat {
                break;
            }
            models += 1;
            let solver = &session.solver;
            let value = |b: Bool| solver.value_of(b);
            let mut orders = session
                .compiled
                .orders
                .iter()
                .chain(&session.encoding.co_orders);
            if orders.any(|order| !order.cycle_cuts(&value).is_empty()) {
                cyclic += 1;
            }
            let block: Vec<Bool> = choices
                .iter()
                .map(|&l| if solver.value_of(l) { !l } else { l })
                .collect();
            session.solver.clause(&block);
        }
    }
    (cyclic, models)
}

/// CaDiCaL's acyclicity propagator (`solver::cadical_propagator`) keeps every lazy order
/// acyclic during the search: no model it returns needs a cycle cut, while varisat's need
/// some (without them the test would show nothing).
#[test]
fn cadical_models_need_no_cycle_cut() {
    if !cfg!(feature = "cadical") {
        eprintln!("skipping: cadical is not built in");
        return;
    }
    if std::env::var_os(PROPAGATOR_VAR).is_some_and(|v| v == "off") {
        eprintln!("skipping: the propagator is switched off");
        return;
    }
    for model in ["sc", "rc11"] {
        let (cyclic, models) = raw_models_with_cycles(Backend::Cadical, model);
        assert!(models > 100, "{model}: only {models} models");
        assert_eq!(
            cyclic, 0,
            "{model}: {cyclic} of {models} cadical models cyclic"
        );
        let (cyclic, models) = raw_models_with_cycles(Backend::Varisat, model);
        assert!(
            cyclic > 0,
            "{model}: none of {models} varisat models cyclic"
        );
    }
}
