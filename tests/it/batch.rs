//! Batches: parallel runs print in path order, a bad file is named and never stops the
//! others, the summary counts, JSON is one document, and limits are reported as limits.

use std::path::Path;
use std::time::{Duration, Instant};

use assert_cmd::Command;

use crate::common;

fn nemos() -> Command {
    let mut command = Command::cargo_bin("nemos").expect("the nemos binary is built");
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

/// Two good tests in a nested directory and one with a syntax error on line 4, column 8.
fn batch_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let nested = dir.path().join("nested");
    std::fs::create_dir(&nested).expect("a nested directory");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        root.join("litmus/SB.litmus"),
        dir.path().join("a-SB.litmus"),
    )
    .expect("copy");
    std::fs::copy(root.join("litmus/MP.litmus"), nested.join("MP.litmus")).expect("copy");
    std::fs::write(
        dir.path().join("b-bad.litmus"),
        "C bad\n{ x = 0; }\nP0(int* x) {\n  *x = ;\n}\nexists (x=1)\n",
    )
    .expect("write");
    dir
}

#[test]
fn a_bad_file_is_named_and_the_good_ones_are_reported_in_path_order() {
    let dir = batch_dir();
    let output = nemos()
        .args(["check", "-j", "2"])
        .arg(dir.path())
        .output()
        .expect("nemos runs");
    assert_eq!(output.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let sb = stdout.find("Test SB ").expect("SB is reported");
    let mp = stdout.find("Test MP ").expect("MP is reported");
    assert!(
        sb < mp,
        "a-SB.litmus sorts before nested/MP.litmus:\n{stdout}"
    );
    assert!(stderr.contains("b-bad.litmus:4:8"), "{stderr}");
    let summary = stdout.lines().skip_while(|l| !l.contains("tests")).nth(2);
    let cells: Vec<&str> = summary
        .expect("a summary table after the tests")
        .split('|')
        .map(str::trim)
        .collect();
    // tests, allowed, forbidden, racy, violated, assert failed, errors, limits
    assert_eq!(
        cells[..8],
        ["3", "0", "2", "0", "0", "0", "1", "0"],
        "{stdout}"
    );
}

#[test]
fn json_batch_is_one_document_with_a_summary() {
    let dir = batch_dir();
    let output = nemos()
        .args(["check", "--format", "json"])
        .arg(dir.path())
        .output()
        .expect("nemos runs");
    assert_eq!(output.status.code(), Some(2));
    let json: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("stdout is one JSON document");
    let tests = json["tests"].as_array().expect("a tests array");
    let statuses: Vec<&str> = tests
        .iter()
        .map(|t| t["status"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(statuses, ["clean", "error", "clean"]);
    assert!(tests[1]["error"]
        .as_str()
        .unwrap_or("")
        .contains("b-bad.litmus:4:8"));
    assert_eq!(tests[0]["result"]["observation"], "Never");
    assert_eq!(json["summary"]["tests"], 3);
    assert_eq!(json["summary"]["unreachable"], 2);
    assert_eq!(json["summary"]["errors"], 1);
}

#[test]
fn one_test_prints_no_summary() {
    let output = nemos()
        .args(["check", "litmus/SB.litmus"])
        .output()
        .expect("nemos runs");
    assert_eq!(output.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&output.stdout).contains("forbidden |"));
}

#[test]
fn max_events_is_a_limit_not_a_verdict() {
    let output = nemos()
        .args(["check", "--max-events", "3", "litmus/SB.litmus"])
        .output()
        .expect("nemos runs");
    assert_eq!(output.status.code(), Some(3));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("events exceed --max-events 3"), "{stdout}");
    assert!(!stdout.contains("Forbidden"), "{stdout}");
}

#[test]
fn a_test_past_its_timeout_is_abandoned() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("slow.litmus");
    std::fs::write(&file, common::slow_program()).expect("write");
    let start = Instant::now();
    let output = nemos()
        .args(["check", "--unroll", "10", "--timeout", "1"])
        .arg(&file)
        .output()
        .expect("nemos runs");
    assert!(
        start.elapsed() < Duration::from_secs(8),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(output.status.code(), Some(3));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("timeout after 1 s"), "{stdout}");
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    // The reading end is closed before nemos has written anything (`nemos ... | head -1`
    // that has already exited), so every write meets a broken pipe.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_nemos"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["check", "litmus/SB.litmus", "litmus/MP.litmus"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("nemos starts");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("nemos runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
}

#[test]
fn bash_completions_know_the_commands() {
    let output = nemos()
        .args(["completions", "bash"])
        .output()
        .expect("nemos runs");
    assert_eq!(output.status.code(), Some(0));
    let script = String::from_utf8_lossy(&output.stdout);
    assert!(script.contains("check"), "{script}");
    for shell in ["zsh", "fish"] {
        nemos().args(["completions", shell]).assert().success();
    }
}

#[test]
fn a_batch_shows_no_progress_when_stderr_is_not_a_terminal() {
    let output = nemos()
        .args(["check", "litmus/SB.litmus", "litmus/MP.litmus"])
        .output()
        .expect("nemos runs");
    assert_eq!(output.status.code(), Some(0));
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
