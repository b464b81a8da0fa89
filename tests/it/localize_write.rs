//! `localize --write DIR` (issue 38, item 13): every verified fix written as a whole test,
//! and each written file passes the check the fix was verified with.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::common;

fn nemos() -> Command {
    let mut command = Command::cargo_bin("nemos").expect("the nemos binary is built");
    command.current_dir(common::manifest_dir());
    command
}

/// `localize --write` on `source` (exit 1: it fails), the files written, in order.
fn written(source: &Path, model: &str, dir: &Path) -> Vec<PathBuf> {
    let output = nemos()
        .args(["localize", "--model", model, "--write"])
        .arg(dir)
        .arg(source)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let stem = source.file_stem().unwrap().to_string_lossy().to_string();
    let mut files = Vec::new();
    for n in 1.. {
        let file = dir.join(format!("{stem}.fix{n}.litmus"));
        if !file.exists() {
            break;
        }
        assert!(
            stderr.contains(&format!("wrote {}", file.display())),
            "{stderr}"
        );
        files.push(file);
    }
    assert_eq!(
        stderr.matches("wrote ").count(),
        files.len(),
        "every file named is written: {stderr}"
    );
    files
}

/// Message passing under RC11 and PairSnapShot under SC: in each written fix the
/// condition's outcome is never reached and `check` finds no defect; the fixes differ from
/// one another and from the test.
#[test]
fn every_written_fix_checks_clean() {
    let dir = tempfile::tempdir().unwrap();
    for (file, model, at_least) in [
        ("litmus/MP.litmus", "rc11", 2),
        ("litmus/pair-snapshot.litmus", "sc", 2),
    ] {
        let source = common::manifest_dir().join(file);
        let out = dir.path().join(model);
        let files = written(&source, model, &out);
        assert!(files.len() >= at_least, "{file}: {files:?}");
        let original = std::fs::read_to_string(&source).unwrap();
        let mut texts = Vec::new();
        for fix in &files {
            let text = std::fs::read_to_string(fix).unwrap();
            assert_ne!(text, original);
            assert!(!texts.contains(&text), "{} written twice", fix.display());
            texts.push(text);
            let checked = check(fix, model);
            assert_eq!(checked["observation"], "Never", "{}", fix.display());
            assert_eq!(checked["defects"], serde_json::json!([]));
            assert_eq!(checked["deadlock"], serde_json::Value::Null);
        }
        // The test itself reaches the outcome.
        assert_eq!(check(&source, model)["observation"], "Sometimes");
    }
}

/// `check --format json` of `file` under `model`.
fn check(file: &Path, model: &str) -> serde_json::Value {
    let output = nemos()
        .args(["check", "--format", "json", "--model", model])
        .arg(file)
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout).unwrap()
}

/// A test whose only check is its specification: each written fix is linearizable, as
/// `spec` decides.
#[test]
fn written_fixes_of_a_specification_pass_spec() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        std::fs::read_to_string(common::manifest_dir().join("specs/pair-snapshot.litmus")).unwrap();
    let spec_only: String = text
        .lines()
        .filter(|l| !l.starts_with("exists"))
        .map(|l| format!("{l}\n"))
        .collect();
    let source = dir.path().join("snapshot.litmus");
    std::fs::write(&source, spec_only).unwrap();
    nemos().arg("spec").arg(&source).assert().code(1);
    let files = written(&source, "sc", &dir.path().join("out"));
    assert!(!files.is_empty());
    for fix in &files {
        nemos().arg("spec").arg(fix).assert().code(0);
    }
}

/// With `--no-repairs` there is nothing to write: the two options are refused together.
#[test]
fn write_needs_the_fixes() {
    nemos()
        .args([
            "localize",
            "--no-repairs",
            "--write",
            "/tmp",
            "litmus/MP.litmus",
        ])
        .assert()
        .code(2);
}
