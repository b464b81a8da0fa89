//! `check --certify`: unsatisfiable answers come from a solver that checked its own proof.

use std::path::PathBuf;

use assert_cmd::Command;

use crate::common;
use nemos::analysis::{AnalysisOptions, Session};
use nemos::diagnostics::SourceFile;

fn litmus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("litmus")
        .join(name)
}

#[test]
fn a_forbidden_outcome_is_certified() {
    let output = Command::cargo_bin("nemos")
        .unwrap()
        .args(["check", "--certify"])
        .arg(litmus("SB.litmus"))
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains("No (never reached)")
            && stdout.contains("certified: no execution satisfies the condition"),
        "{stdout}"
    );
}

#[test]
fn a_reachable_outcome_claims_no_certificate() {
    let output = Command::cargo_bin("nemos")
        .unwrap()
        .args(["check", "--certify"])
        .arg(litmus("SB-some.litmus"))
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(!stdout.contains("certified"), "{stdout}");
}

/// The self-checking solver gives the same answers as the plain one on the whole suite.
#[test]
fn certified_answers_agree_with_plain_ones() {
    for path in common::project_litmus() {
        let file = SourceFile::new(
            path.display().to_string(),
            std::fs::read_to_string(&path).unwrap(),
        );
        let nemos::Test { program, events } = nemos::load(&file, &Default::default()).unwrap();
        let plain = Session::new(&program, &events, &AnalysisOptions::default())
            .unwrap()
            .check()
            .unwrap();
        let options = AnalysisOptions {
            certify: true,
            ..AnalysisOptions::default()
        };
        let certified = Session::new(&program, &events, &options)
            .unwrap()
            .check()
            .unwrap();
        assert_eq!(
            plain.observation,
            certified.observation,
            "{}",
            path.display()
        );
        assert_eq!(plain.bound_hit, certified.bound_hit, "{}", path.display());
    }
}
