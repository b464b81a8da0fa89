//! What the corpus tests share: where the corpus is, how its files are found, how herd's
//! state lines compare, and the shipped models as analysis options.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nemos::analysis::AnalysisOptions;

pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/corpus` beside the checkout, when it is there (the tests skip politely
/// otherwise).
pub fn corpus() -> Option<PathBuf> {
    let dir = manifest_dir().join("../shared/corpus");
    dir.join("herd7-expected.json").exists().then_some(dir)
}

/// Whether a `check` result (JSON) says the condition is reachable as the LKMM corpus's
/// CSV files do: herd's Sometimes/Always for `exists`, Always for `forall`.
pub fn lkmm_reachable(result: &serde_json::Value) -> bool {
    let observation = result["observation"].as_str().unwrap_or_default();
    let forall = result["condition"]
        .as_str()
        .unwrap_or_default()
        .starts_with("forall");
    if forall {
        observation == "Always"
    } else {
        observation != "Never"
    }
}

/// The folders of the corpus that hold C11 litmus tests with herd7's verdicts in
/// `herd7-expected.json`; `lkmm/` beside them is the Linux-kernel corpus, with its own
/// verdicts and tests.
pub const C_CORPUS_DIRS: [&str; 3] = ["dat3m-c11", "herd-c", "herd-c11popl15"];

/// Every `*.litmus` of the C corpus folders below the corpus directory `dir`, sorted.
pub fn c_corpus_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = C_CORPUS_DIRS
        .iter()
        .flat_map(|sub| litmus_files(&dir.join(sub)))
        .collect();
    files.sort();
    files
}

/// The project's own litmus tests, `litmus/*.litmus`, sorted.
pub fn project_litmus() -> Vec<PathBuf> {
    litmus_files(&manifest_dir().join("litmus"))
}

/// Every `*.litmus` below `dir`, sorted.
pub fn litmus_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(d).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "litmus") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// A herd state line as a set of `var=value` items, so that item order does not matter.
pub fn normalise(state: &str) -> BTreeSet<String> {
    state
        .split(';')
        .map(|item| item.replace(' ', ""))
        .filter(|item| !item.is_empty())
        .collect()
}

/// The default options under a shipped model.
pub fn under(model: &str) -> AnalysisOptions {
    let Some(Ok(model)) = nemos::cat::load_shipped(model) else {
        panic!("models/{model}.cat is shipped and must compile");
    };
    AnalysisOptions {
        model: Arc::new(model),
        ..AnalysisOptions::default()
    }
}

/// A spin loop: P0 waits for P1's write. Every execution is short, but each unrolled
/// iteration adds events, so `--unroll` alone decides its size.
/// A loop that waits for `x` and counts its iterations: the count is a register each
/// iteration reads and writes, so the loop is not a spin loop (`events::unroll`) and keeps
/// the bounded unrolling.
pub const SPIN: &str = "C spin\n{ x=0; }\nP0(int *x){ int n = 0; while (READ_ONCE(*x) == 0) { n = n + 1; } }\nP1(int *x){ WRITE_ONCE(*x, 1); }\nexists (x=1)\n";

/// A test no solver decides within seconds, for the timeout tests: four threads each
/// incrementing a counter ten times under a lock, P0 first setting it to 0 outside the
/// lock, and `check` (run with `--unroll 10`) of `exists (0:r=20)`: P0's last critical
/// section must come after exactly 11 of the other threads' 30 increments (or fewer, when
/// P0's reset lands after some). `check`'s sequential guess (threads one after the other,
/// in any order) cannot meet it, and the reset makes `c` no locked counter, so the
/// lemmas that count a read's value off the lock order (`encode::counting`, which decide
/// the same condition without the reset in a fraction of a second) do not apply: finding
/// such an execution among the orders of the sections and their values takes the solver
/// over 30 s (one run, 27 November 2026).
pub fn slow_program() -> String {
    let thread = |n: usize| {
        let reset = if n == 0 { "  *c = 0;\n" } else { "" };
        format!(
            "P{n} (int* c, int* l) {{\n{reset}  for (int i = 0; i < 10; i++) {{\n    lock(l);\n    \
             int r = *c;\n    *c = r + 1;\n    unlock(l);\n  }}\n}}\n\n"
        )
    };
    let threads: String = (0..4).map(thread).collect();
    format!("C counter-4x10\n{{ c = 0; l = 0; }}\n\n{threads}exists (0:r=20)\n")
}

/// `text` through the front door (parse, lower, unroll `unroll` times); a test that does
/// not load fails with the located message.
pub fn load_unrolled(name: &str, text: &str, unroll: u32) -> nemos::Test {
    let file = nemos::diagnostics::SourceFile::new(name, text);
    let options = nemos::LoadOptions {
        unroll,
        ..Default::default()
    };
    nemos::load(&file, &options).unwrap_or_else(|e| panic!("{}", e.short()))
}

/// [`load_unrolled`] with the default bound.
pub fn load(name: &str, text: &str) -> nemos::Test {
    load_unrolled(name, text, nemos::LoadOptions::default().unroll)
}

/// The kernel model in `dir` through the library's model door, as `--model
/// DIR/linux-kernel.cat` reads it: the bell and the macros beside it, the tags the events'
/// own.
pub fn lkmm_model(dir: &Path) -> nemos::cat::Model {
    let spec = dir.join("linux-kernel.cat");
    let loaded = nemos::load_model(&spec.display().to_string(), &mut |p| std::fs::read(p))
        .unwrap_or_else(|e| panic!("{e}"));
    std::sync::Arc::unwrap_or_clone(loaded.model)
}

/// proptest's configuration for `cases` cases, failures kept in
/// `tests/proptest-regressions/{file}.txt`.
pub fn proptest_config(cases: u32, file: &'static str) -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases,
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::Direct(file),
        )),
        ..proptest::test_runner::Config::default()
    }
}

/// One of the LKMM corpus's verdict files, `path -> value == 1`: in `LKMM-expected.csv`, 1
/// when the condition is reachable (herd's Sometimes or Always for `exists`); in
/// `LKMM-DR-expected.csv`, 1 when no allowed execution raises `data-race`.
pub fn lkmm_csv(path: &Path) -> std::collections::BTreeMap<String, bool> {
    let text = std::fs::read_to_string(path).expect("the CSV reads");
    text.lines()
        .filter(|l| !l.starts_with("//") && !l.trim().is_empty())
        .filter_map(|l| l.trim().rsplit_once(','))
        .map(|(path, v)| (path.to_string(), v == "1"))
        .collect()
}

/// Fails with the tests in `differ` that `known` (test, reason) does not explain.
pub fn assert_explained(differ: &[String], known: &[(&str, &str)]) {
    let unexplained: Vec<&String> = differ
        .iter()
        .filter(|d| !known.iter().any(|(k, _)| k == d))
        .collect();
    assert!(unexplained.is_empty(), "{unexplained:#?}");
}

/// Final states: per reachable state, the observed registers and locations and their values.
pub type States = BTreeSet<Vec<(nemos::program::Observable, i32)>>;

/// The events of `program` unrolled `unroll` times.
pub fn unrolled(program: &nemos::program::Program, unroll: u32) -> nemos::events::Events {
    let options = nemos::events::UnrollOptions {
        unroll,
        ..Default::default()
    };
    nemos::events::unroll(program, options).expect("unrolls")
}

/// Every final state the session reaches.
pub fn final_states(session: &mut nemos::analysis::Session) -> States {
    session
        .outcomes()
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|s| s.values)
        .collect()
}
