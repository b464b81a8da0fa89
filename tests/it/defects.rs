//! `nemos races` and `nemos atomicity` on the paper's programs (the Nemos paper, Figures 1 and 2),
//! the fault-localization paper's PairSnapShot and the cases that separate the three atomicity strengths.
//! Each test states the answer the paper (or a hand analysis in the litmus file's doc
//! string) gives, and checks it through the command line's JSON output and exit code.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn run(args: &[&str]) -> (i32, Value) {
    let output = Command::new(env!("CARGO_BIN_EXE_nemos"))
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")))
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("run the nemos binary");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let json = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("nemos {args:?} printed no JSON ({e}):\n{stdout}"));
    (output.status.code().unwrap_or(-1), json)
}

/// The racing statement pairs, as `(first, second)` texts.
fn races(file: &str) -> (i32, Vec<(String, String)>) {
    let (code, json) = run(&["races", file]);
    let pairs = json["races"]
        .as_array()
        .expect("races array")
        .iter()
        .map(|r| {
            (
                r["first"].as_str().unwrap_or_default().to_string(),
                r["second"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    (code, pairs)
}

/// `(exit code, interrupted block/intruder pairs, non-serial final states)`.
fn atomicity(file: &str, mode: &str) -> (i32, Vec<(String, String)>, Vec<String>) {
    let (code, json) = run(&["atomicity", "--mode", mode, file]);
    let interruptions = json["interruptions"]
        .as_array()
        .expect("interruptions array")
        .iter()
        .map(|v| {
            (
                v["block"].as_str().unwrap_or_default().to_string(),
                v["intruder"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let states = json["non_serial_states"]
        .as_array()
        .expect("non_serial_states array")
        .iter()
        .map(|s| s["state"].as_str().unwrap_or_default().to_string())
        .collect();
    (code, interruptions, states)
}

fn pair(a: &str, b: &str) -> (String, String) {
    (a.to_string(), b.to_string())
}

#[test]
fn figure1_program1_is_race_free() {
    // Each thread writes only under a branch that no SC execution takes together with
    // the other thread's read (section 7.3 of the paper).
    assert_eq!(races("litmus/fig1-program1.litmus"), (0, vec![]));
}

#[test]
fn figure1_program2_races_on_both_locations() {
    let (code, pairs) = races("litmus/fig1-program2.litmus");
    assert_eq!(code, 1);
    assert_eq!(
        pairs,
        vec![
            pair("P0, line 6: int r1 = *x;", "P1, line 15: *x = 1;"),
            pair("P0, line 8: *y = 1;", "P1, line 13: int r2 = *y;"),
        ]
    );
}

#[test]
fn figure2_bank_account_is_race_free() {
    assert_eq!(races("litmus/fig2-bank.litmus"), (0, vec![]));
}

#[test]
fn unlocked_counter_races_and_locked_counter_does_not() {
    let (code, pairs) = races("litmus/counter-racy.litmus");
    assert_eq!(code, 1);
    // Read/write both ways and write/write: three pairs, each once.
    assert_eq!(pairs.len(), 3, "{pairs:?}");
    assert_eq!(races("litmus/counter-locked.litmus"), (0, vec![]));
}

#[test]
fn figure2_violates_atomicity_in_every_mode() {
    for mode in ["strict", "window"] {
        let (code, interruptions, _) = atomicity("litmus/fig2-bank.litmus", mode);
        assert_eq!(code, 1, "mode {mode}");
        // Each block is interrupted by the other thread's accesses to balance.
        for intruder in [
            "P0, line 8: int r1 = *balance;",
            "P0, line 12: *balance = r2;",
            "P1, line 20: int r3 = *balance;",
            "P1, line 24: *balance = r4;",
        ] {
            assert!(
                interruptions.iter().any(|(_, i)| i == intruder),
                "mode {mode}: {intruder} missing from {interruptions:?}"
            );
        }
        let unique: std::collections::BTreeSet<_> = interruptions.iter().collect();
        assert_eq!(unique.len(), interruptions.len(), "each pair once");
    }
    // Serial: the lost updates, balance 0 and 2, are unreachable when the blocks run whole.
    let (code, interruptions, states) = atomicity("litmus/fig2-bank.litmus", "serial");
    assert_eq!(code, 1);
    assert!(interruptions.is_empty());
    let balances: Vec<&str> = states
        .iter()
        .map(|s| s.rsplit("[balance]=").next().unwrap_or(""))
        .collect();
    assert_eq!(balances, vec!["0;", "2;"], "{states:?}");
}

#[test]
fn figure2_with_one_lock_per_transaction_is_atomic_in_every_mode() {
    for mode in ["strict", "window", "serial"] {
        assert_eq!(
            atomicity("litmus/fig2-bank-locked.litmus", mode),
            (0, vec![], vec![]),
            "mode {mode}"
        );
    }
}

#[test]
fn pair_snapshot_returns_a_pair_that_never_existed() {
    let (code, _, states) = atomicity("litmus/pair-snapshot.litmus", "serial");
    assert_eq!(code, 1);
    assert_eq!(
        states,
        vec!["1:r0=1; 1:r1=2; [d[0]]=1; [d[1]]=1;".to_string()],
        "only <1,2> needs an interrupted read"
    );
}

#[test]
fn strict_reports_an_unrelated_intruder_that_window_ignores() {
    let (code, interruptions, _) = atomicity("litmus/atomic-strict-only.litmus", "strict");
    assert_eq!(code, 1);
    assert_eq!(
        interruptions,
        vec![pair("P0, line 6: atomic {", "P1, line 13: *y = 1;")]
    );
    assert_eq!(
        atomicity("litmus/atomic-strict-only.litmus", "window"),
        (0, vec![], vec![])
    );
}

#[test]
fn window_reports_an_unobservable_interleaving_that_serial_accepts() {
    let (code, interruptions, _) = atomicity("litmus/atomic-window-only.litmus", "window");
    assert_eq!(code, 1);
    assert_eq!(
        interruptions,
        vec![pair("P0, line 6: atomic {", "P1, line 13: *x = 2;")]
    );
    assert_eq!(
        atomicity("litmus/atomic-window-only.litmus", "serial"),
        (0, vec![], vec![])
    );
}

#[test]
fn a_program_without_blocks_has_nothing_to_violate() {
    let (code, json) = run(&["atomicity", "litmus/SB.litmus"]);
    assert_eq!(code, 0);
    assert_eq!(json["blocks"], 0);
}

#[test]
fn locks_synchronise_under_the_c11_models() {
    // A mutex's lock order joins happens-before in rc11 and c11, so the locked counter has
    // no data race there either, and the unlocked one has the same three.
    for model in ["rc11", "c11"] {
        let (code, json) = run(&["races", "--model", model, "litmus/counter-locked.litmus"]);
        assert_eq!(
            (code, json["races"].as_array().map(Vec::len)),
            (0, Some(0)),
            "{model}"
        );
        let (code, json) = run(&["races", "--model", model, "litmus/counter-racy.litmus"]);
        assert_eq!(
            (code, json["races"].as_array().map(Vec::len)),
            (1, Some(3)),
            "{model}"
        );
    }
}

#[test]
fn a_lock_protects_only_where_it_is_held() {
    // The lockset argument (two accesses under one mutex are ordered) must not reach an
    // access on the branch that skips the lock.
    let (code, pairs) = races("litmus/race-cond-lock.litmus");
    assert_eq!(code, 1);
    assert_eq!(
        pairs,
        vec![
            pair("P0, line 6: int r = *x;", "P1, line 17: *x = 1;"),
            pair("P0, line 12: *c = 2;", "P1, line 19: *c = 3;"),
        ]
    );
    // Two different mutexes order nothing.
    let (code, pairs) = races("litmus/race-two-locks.litmus");
    assert_eq!(code, 1);
    assert_eq!(pairs.len(), 3, "{pairs:?}");
}

#[test]
fn a_lock_also_stored_into_as_data_protects_nothing() {
    // A store of 0 by another thread releases the lock: the two sections can overlap, so
    // the lockset argument does not apply to a lock location used as data.
    let (code, pairs) = races("litmus/race-lock-as-data.litmus");
    assert_eq!(code, 1);
    assert_eq!(
        pairs,
        vec![
            pair("P0, line 7: *x = 1;", "P1, line 14: int r1 = *x;"),
            pair("P0, line 8: *x = 2;", "P1, line 14: int r1 = *x;"),
        ]
    );
}

#[test]
fn atomics_synchronise_under_sc() {
    // Under SC every atomic access is sequentially consistent: an atomic read synchronises
    // with the atomic write it reads from, so message passing through an atomic flag and a
    // compare-exchange spin lock protect their plain data (DRF-SC). Without the check of
    // the flag, the plain accesses race.
    for test in [
        "litmus/race-free-mp-atomics.litmus",
        "litmus/race-free-cas-lock.litmus",
    ] {
        let (code, pairs) = races(test);
        assert_eq!((code, pairs.len()), (0, 0), "{test}: {pairs:?}");
    }
    let unchecked = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/race-free-mp-atomics.litmus"),
    )
    .expect("read the test")
    .replace("if (r0 == 1) {", "{");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("mp-unchecked.litmus");
    std::fs::write(&path, unchecked).expect("write the test");
    let (code, pairs) = races(&path.display().to_string());
    assert_eq!((code, pairs.len()), (1, 1), "{pairs:?}");
    let (_, json) = run(&["races", "litmus/race-free-mp-atomics.litmus"]);
    assert!(
        json["race_definition"]
            .as_str()
            .is_some_and(|d| d.starts_with("SC's")),
        "{json}"
    );
}
