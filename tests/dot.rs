//! `check --dot`: the witness as a Graphviz graph, byte for byte stable.

use assert_cmd::Command;

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
