//! Conformance with herd7 under SC: on every corpus test herd7 runs, the reachable final
//! states, the observation and herd's execution counts must be exactly herd's.

use std::collections::BTreeSet;

use nemos::analysis::{observation_of, AnalysisOptions, Observation, Session};
use nemos::diagnostics::SourceFile;
use nemos::report::state_line;

use crate::common;
use common::{corpus, normalise};

fn observation_name(o: Observation) -> &'static str {
    match o {
        Observation::Always => "Always",
        Observation::Sometimes => "Sometimes",
        Observation::Never => "Never",
    }
}

#[test]
fn sc_states_observations_and_counts_match_herd() {
    let Some(dir) = corpus() else {
        eprintln!("skipping: ../shared/corpus not found");
        return;
    };
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("herd7-expected.json")).unwrap())
            .unwrap();
    let mut checked = 0;
    let mut failures = Vec::new();
    for (path, verdicts) in expected.as_object().unwrap() {
        let sc = &verdicts["sc"];
        if !sc["error"].is_null() {
            continue;
        }
        let text = std::fs::read_to_string(dir.join(path)).unwrap();
        let file = SourceFile::new(path.clone(), text);
        let nemos::Test { program, events } =
            nemos::load(&file, &Default::default()).unwrap_or_else(|e| panic!("{}", e.short()));
        let mut session = Session::new(&program, &events, &AnalysisOptions::default()).unwrap();
        let result = session.check().unwrap();
        let states = session.outcomes().unwrap();
        let counts = session.count_executions().unwrap();
        let mine: BTreeSet<BTreeSet<String>> = states
            .iter()
            .map(|s| normalise(&state_line(&program, &s.values)))
            .collect();
        let theirs: BTreeSet<BTreeSet<String>> = sc["states"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| normalise(s.as_str().unwrap()))
            .collect();
        let herd_observation = sc["observation"].as_str().unwrap();
        let herd_counts = (
            sc["positive"].as_u64().unwrap(),
            sc["negative"].as_u64().unwrap(),
        );
        if mine != theirs {
            failures.push(format!("{path}: states {mine:?}, herd {theirs:?}"));
        }
        for (what, observation) in [
            ("check", result.observation),
            ("outcomes", observation_of(&states)),
        ] {
            if observation_name(observation) != herd_observation {
                failures.push(format!(
                    "{path}: {what} observation {observation:?}, herd {herd_observation}"
                ));
            }
        }
        if counts != herd_counts {
            failures.push(format!("{path}: counts {counts:?}, herd {herd_counts:?}"));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 190, "only {checked} corpus tests checked");
    eprintln!("{checked} corpus tests agree with herd7 under sc");
}

/// Every corpus file that parses and lowers also unrolls and solves, including the ones
/// herd7 cannot run; the rest are rejected with a located message, never a panic.
#[test]
fn every_corpus_file_runs_or_is_rejected_cleanly() {
    let Some(dir) = corpus() else {
        eprintln!("skipping: ../shared/corpus not found");
        return;
    };
    let files = common::c_corpus_files(&dir);
    let mut rejected = Vec::new();
    for path in &files {
        let file = SourceFile::new(
            path.display().to_string(),
            std::fs::read_to_string(path).unwrap(),
        );
        match nemos::load(&file, &Default::default()) {
            Ok(nemos::Test { program, events }) => {
                let mut session =
                    Session::new(&program, &events, &AnalysisOptions::default()).unwrap();
                session.check().unwrap();
            }
            Err(e) => rejected.push(e.short()),
        }
    }
    // C17 uses a Linux-kernel `{mb}` annotation. (imm-E3.5, which indexes an array with a
    // register and which herd7 rejects, runs.)
    assert_eq!(rejected.len(), 1, "{rejected:#?}");
    assert!(rejected
        .iter()
        .any(|r| r.contains("C17") && r.contains("{mb}")));
}
