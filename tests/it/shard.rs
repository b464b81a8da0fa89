//! A batch in shards (`--shard K/N`): two shards run here, their JSON documents merged by
//! `nemos merge` equal the unsharded run's (timing aside), and their herd logs, one after
//! the other, hold the unsharded log's blocks, as nemos's `--expect` and herd's mcompare7
//! read them.

use std::path::Path;
use std::process::Output;

use assert_cmd::Command;
use nemos::diagnostics::SourceFile;
use nemos::report::herd_log;

fn nemos() -> Command {
    let mut command = Command::cargo_bin("nemos").expect("the nemos binary is built");
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

fn run(args: &[&str]) -> Output {
    nemos().args(args).output().expect("nemos runs")
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).expect("a JSON document")
}

fn paths(document: &serde_json::Value) -> Vec<String> {
    document["tests"]
        .as_array()
        .expect("a tests array")
        .iter()
        .map(|t| t["path"].as_str().expect("a path").to_string())
        .collect()
}

#[test]
fn two_shards_merge_into_the_unsharded_document() {
    let whole = run(&["check", "--format", "json", "litmus"]);
    let first = run(&["check", "--format", "json", "--shard", "1/2", "litmus"]);
    let second = run(&["check", "--format", "json", "--shard", "2/2", "litmus"]);
    let (mut whole_doc, first_doc, second_doc) = (json(&whole), json(&first), json(&second));
    let all = paths(&whole_doc);
    assert!(all.len() > 40, "the project's litmus tests: {}", all.len());
    // Positions 1, 3, 5... of the sorted list, then 2, 4, 6...
    let odd: Vec<String> = all.iter().step_by(2).cloned().collect();
    let even: Vec<String> = all.iter().skip(1).step_by(2).cloned().collect();
    assert_eq!(paths(&first_doc), odd);
    assert_eq!(paths(&second_doc), even);
    assert_eq!(
        first_doc["shard"],
        serde_json::json!({"index": 1, "count": 2})
    );

    let dir = tempfile::tempdir().expect("a temporary directory");
    let (one, two) = (dir.path().join("1.json"), dir.path().join("2.json"));
    std::fs::write(&one, &first.stdout).expect("write");
    std::fs::write(&two, &second.stdout).expect("write");
    // Given in any order.
    let merged = nemos()
        .arg("merge")
        .args([&two, &one])
        .output()
        .expect("nemos runs");
    assert!(
        merged.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    assert_eq!(
        merged.status.code(),
        whole.status.code(),
        "merge exits as the unsharded batch did"
    );
    assert_eq!(
        whole.status.code(),
        Some(1),
        "the project's tests hold defects"
    );
    let mut merged_doc = json(&merged);
    for doc in [&mut whole_doc, &mut merged_doc] {
        let wall = doc["summary"]
            .as_object_mut()
            .and_then(|s| s.remove("wall_seconds"));
        assert!(wall.is_some_and(|w| w.is_f64()), "a wall time");
    }
    assert_eq!(merged_doc, whole_doc);
    assert_eq!(merged_doc["summary"]["tests"], all.len());

    // One shard alone is refused: the merge would leave the other's tests out.
    let alone = nemos().arg("merge").arg(&one).output().expect("nemos runs");
    assert_eq!(alone.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&alone.stderr);
    assert!(stderr.contains("shard(s) 2/2 missing"), "{stderr}");
    assert!(alone.stdout.is_empty());
}

#[test]
fn a_shard_without_tests_is_an_empty_document_and_bad_merge_input_is_located() {
    let output = run(&[
        "check",
        "--format",
        "json",
        "--shard",
        "2/3",
        "litmus/SB.litmus",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let doc = json(&output);
    assert_eq!(doc["tests"], serde_json::json!([]));
    assert_eq!(doc["summary"]["tests"], 0);

    let dir = tempfile::tempdir().expect("a temporary directory");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\n  \"tests\": [,\n}").expect("write");
    let output = nemos().arg("merge").arg(&bad).output().expect("nemos runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad.json:2:13"), "{stderr}");

    let output = run(&["check", "--shard", "3/2", "litmus/SB.litmus"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("1 <= K <= N"), "{stderr}");
}

#[test]
fn shards_herd_logs_concatenated_hold_the_unsharded_log() {
    let args = |shard: Option<&str>| {
        let mut args = vec!["outcomes", "--format", "herd"];
        if let Some(shard) = shard {
            args.extend(["--shard", shard]);
        }
        args.push("litmus");
        run(&args)
    };
    let whole = args(None);
    let mut joined = Vec::new();
    for shard in ["1/3", "2/3", "3/3"] {
        joined.extend(args(Some(shard)).stdout);
    }
    let read = |bytes: &[u8], name: &str| {
        herd_log::parse(&SourceFile::from_bytes(name, bytes.to_vec())).expect("a herd log")
    };
    let whole_blocks = read(&whole.stdout, "whole.log");
    let joined_blocks = read(&joined, "joined.log");
    assert!(whole_blocks.len() > 40, "{}", whole_blocks.len());
    assert_eq!(joined_blocks, whole_blocks);

    // herd's own comparison tool, when it is built (../shared/tools/build-herd.sh), on the
    // classic shapes: mcompare7 7.58 cannot lex nemos's array cells (`[a[0]]=1;`) and
    // pointer values (`&a[1]`) in a state line.
    let mcompare = Path::new("/tmp/herd/mcompare7");
    if !mcompare.exists() {
        eprintln!("skipped: no {}", mcompare.display());
        return;
    }
    let classic: Vec<String> = ["2+2W", "CoRR", "IRIW", "LB", "MP", "R", "S", "SB", "WRC"]
        .iter()
        .map(|name| format!("litmus/{name}.litmus"))
        .collect();
    let args = |shard: Option<&str>| {
        let mut args = vec!["outcomes", "--format", "herd"];
        if let Some(shard) = shard {
            args.extend(["--shard", shard]);
        }
        args.extend(classic.iter().map(String::as_str));
        run(&args)
    };
    let whole = args(None);
    let mut joined = Vec::new();
    for shard in ["1/2", "2/2"] {
        joined.extend(args(Some(shard)).stdout);
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (a, b) = (dir.path().join("whole.log"), dir.path().join("joined.log"));
    std::fs::write(&a, &whole.stdout).expect("write");
    std::fs::write(&b, &joined).expect("write");
    let output = std::process::Command::new(mcompare)
        .arg(&a)
        .arg(&b)
        .output()
        .expect("mcompare7 runs");
    let table = String::from_utf8_lossy(&output.stdout);
    // One row per test, its first line `NAME|Kind| [state] ==` when both logs agree.
    let rows: Vec<&str> = table
        .lines()
        .filter(|l| {
            l.split('|')
                .next()
                .is_some_and(|name| !name.trim().is_empty())
        })
        .filter(|l| l.contains('[') || l.contains("=="))
        .collect();
    assert_eq!(rows.len(), classic.len(), "{table}");
    assert!(rows.iter().all(|r| r.contains("==")), "{table}");
    assert!(!table.contains("Warning"), "{table}");
}
