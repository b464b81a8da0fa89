//! `check --dot`: the witness as a Graphviz graph, byte for byte stable.

use assert_cmd::Command;

use crate::common;

fn nemos() -> Command {
    let mut command = Command::cargo_bin("nemos").expect("the nemos binary is built");
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

#[test]
fn sb_under_tso_is_drawn_with_po_rf_co_fr() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("SB.dot");
    nemos()
        .args(["check", "--model", "tso", "--dot"])
        .arg(&file)
        .arg("litmus/SB.litmus")
        .assert()
        .success();
    let graph = std::fs::read_to_string(&file).expect("the graph is written");
    insta::assert_snapshot!(graph);
}

#[test]
fn a_batch_writes_one_graph_per_test_with_a_witness() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("graphs");
    nemos()
        .args(["check", "--dot"])
        .arg(&out)
        .args(["litmus/SB-some.litmus", "litmus/MP-ok.litmus"])
        .assert()
        .success();
    for name in ["litmus_SB-some.dot", "litmus_MP-ok.dot"] {
        let graph = std::fs::read_to_string(out.join(name)).expect("one graph per test");
        assert!(graph.starts_with("digraph "), "{graph}");
        assert!(graph.contains("[label=\"rf\", color=\"red\""), "{graph}");
    }
}

/// Message passing with a release store and an acquire load of the flag: under RC11 the
/// store synchronises with the load.
fn mp_release_acquire(dir: &std::path::Path, condition: &str) -> std::path::PathBuf {
    let text = format!(
        "C MP-relacq\n{{ }}\n\n\
         P0 (atomic_int* x, atomic_int* y) {{\n\
         \x20 atomic_store_explicit(x, 1, memory_order_relaxed);\n\
         \x20 atomic_store_explicit(y, 1, memory_order_release);\n}}\n\n\
         P1 (atomic_int* x, atomic_int* y) {{\n\
         \x20 int r0 = atomic_load_explicit(y, memory_order_acquire);\n\
         \x20 int r1 = atomic_load_explicit(x, memory_order_relaxed);\n}}\n\n\
         exists ({condition})\n"
    );
    let file = dir.join("MP-relacq.litmus");
    std::fs::write(&file, text).expect("the test is written");
    file
}

/// `nemos ARGS --dot FILE TEST` and the graph it writes.
fn graph_of(args: &[&str], test: &std::path::Path) -> String {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("graph.dot");
    nemos()
        .args(args)
        .arg("--dot")
        .arg(&file)
        .arg(test)
        .assert()
        .success();
    std::fs::read_to_string(&file).expect("the graph is written")
}

#[test]
fn a_forbidden_outcome_is_drawn_with_the_cycle_that_forbids_it() {
    let graph = graph_of(&["check"], std::path::Path::new("litmus/SB.litmus"));
    assert!(
        graph.contains("forbidden by sc: cycle po;fr;po;fr"),
        "{graph}"
    );
    insta::assert_snapshot!(graph);
}

#[test]
fn explain_draws_the_same_cycle() {
    let graph = graph_of(&["explain"], std::path::Path::new("litmus/SB.litmus"));
    assert!(
        graph.contains("forbidden by sc: cycle po;fr;po;fr"),
        "{graph}"
    );
    assert_eq!(graph.matches("penwidth=3").count(), 4, "{graph}");
}

#[test]
fn explain_prints_the_cycle() {
    let output = nemos()
        .args(["explain", "litmus/SB.litmus"])
        .output()
        .expect("nemos runs");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("sc fails on the cycle 3 -po-> 4 -fr-> 5 -po-> 6 -fr-> 3"),
        "{text}"
    );
}

#[test]
fn release_acquire_under_rc11_draws_sw_and_the_hb_of_the_coherence_cycle() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let test = mp_release_acquire(dir.path(), "1:r0=1 /\\ 1:r1=0");
    let graph = graph_of(&["check", "--model", "rc11"], &test);
    assert!(
        graph.contains("[label=\"sw\", color=\"violetred1\""),
        "{graph}"
    );
    assert!(
        graph.contains("forbidden by coherence: cycle hb;fr"),
        "{graph}"
    );
    insta::assert_snapshot!(graph);
}

#[test]
fn release_acquire_under_rc11_allowed_outcome_draws_sw() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let test = mp_release_acquire(dir.path(), "1:r0=1 /\\ 1:r1=1");
    let graph = graph_of(&["check", "--model", "rc11"], &test);
    assert!(graph.contains("e4 -> e5 [label=\"sw\""), "{graph}");
    assert!(
        !graph.contains("penwidth"),
        "no cycle on an allowed outcome: {graph}"
    );
}

#[test]
fn an_allowed_outcome_under_sc_is_drawn_without_a_cycle() {
    let graph = graph_of(&["check"], std::path::Path::new("litmus/MP-ok.litmus"));
    assert!(!graph.contains("penwidth"), "{graph}");
    insta::assert_snapshot!(graph);
}

fn graphviz_installed() -> bool {
    std::process::Command::new("dot")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn svg_is_rendered_by_graphviz_when_installed() {
    if !graphviz_installed() {
        eprintln!("skipped: Graphviz's `dot` is not installed");
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("svgs");
    nemos()
        .args(["check", "--svg"])
        .arg(&out)
        .args(["litmus/SB.litmus", "litmus/MP-ok.litmus"])
        .assert()
        .success();
    for name in ["litmus_SB.svg", "litmus_MP-ok.svg"] {
        let svg = std::fs::read_to_string(out.join(name)).expect("one picture per test");
        assert!(svg.contains("<svg"), "{svg}");
    }
}

#[test]
fn svg_without_graphviz_is_a_usage_error() {
    let empty = tempfile::tempdir().expect("a temporary directory");
    let svg = empty.path().join("SB.svg");
    let output = nemos()
        .env("PATH", empty.path())
        .args(["check", "--svg"])
        .arg(&svg)
        .arg("litmus/SB.litmus")
        .output()
        .expect("nemos runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("Graphviz"), "{stderr}");
    assert!(!svg.exists());
}

/// Every outcome some check forbids, in every shipped model, on the tests of `litmus/`:
/// the execution reaching it with that check skipped fails it on a cycle whose steps
/// chain, or on a pair for an `empty` check; runs of `po` are one step.
#[test]
fn every_skipped_check_fails_on_a_chained_cycle() {
    use nemos::analysis::{AnalysisOptions, Session};
    let files = common::project_litmus();
    let mut cycles = 0;
    for model in ["sc", "tso", "pso", "rc11", "c11"] {
        let options = AnalysisOptions {
            model: std::sync::Arc::new(nemos::cat::load_shipped(model).unwrap().unwrap()),
            ..AnalysisOptions::default()
        };
        for path in &files {
            let file = nemos::diagnostics::SourceFile::new(
                path.display().to_string(),
                std::fs::read_to_string(path).unwrap(),
            );
            let nemos::Test { program, events } = nemos::load(&file, &Default::default()).unwrap();
            let mut session = Session::new(&program, &events, &options).unwrap();
            let explanation = session.explain().unwrap();
            for skipped in &explanation.without_one {
                if skipped.witness.is_none() {
                    continue;
                }
                let what = format!("{} under {model} without {}", path.display(), skipped.check);
                let v = skipped.violation.as_ref().expect(&what);
                assert!(!v.steps.is_empty(), "{what}");
                for pair in v.steps.windows(2) {
                    assert_eq!(pair[0].to, pair[1].from, "{what}: {v:?}");
                    // po is transitive: two steps in a row are one.
                    let both_po = pair[0].relation == "po" && pair[1].relation == "po";
                    assert!(!both_po, "{what}: {v:?}");
                }
                if v.is_cycle() {
                    assert_eq!(v.steps.last().unwrap().to, v.steps[0].from, "{what}: {v:?}");
                    cycles += 1;
                }
            }
        }
    }
    assert!(cycles > 10, "only {cycles} cycles");
}
