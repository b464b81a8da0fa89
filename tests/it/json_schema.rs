//! Every JSON document the CLI prints matches `docs/output.schema.json`: each command over
//! every project test (one batch document and one document per test), and the entries of a
//! test stopped by bad input or by a limit.

use std::path::Path;
use std::process::Command;

use crate::common;

fn validator() -> jsonschema::Validator {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text =
        std::fs::read_to_string(root.join("docs/output.schema.json")).expect("read the schema");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema")
}

/// The schema with `$defs/NAME` as its root, to say why a document fails.
fn named(name: &str) -> serde_json::Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text =
        std::fs::read_to_string(root.join("docs/output.schema.json")).expect("read the schema");
    let mut schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
    schema["$ref"] = serde_json::Value::String(format!("#/$defs/{name}"));
    if let Some(map) = schema.as_object_mut() {
        map.remove("anyOf");
    }
    schema
}

/// The JSON `nemos ARGS --format json` prints; several tests print one document each when
/// given one at a time, one batch document otherwise.
fn json_of(args: &[&str]) -> Vec<serde_json::Value> {
    let output = Command::new(env!("CARGO_BIN_EXE_nemos"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("nemos runs");
    let stdout = String::from_utf8(output.stdout).expect("utf-8");
    serde_json::Deserializer::from_str(&stdout)
        .into_iter::<serde_json::Value>()
        .map(|d| d.unwrap_or_else(|e| panic!("nemos {args:?}: not JSON: {e}\n{stdout}")))
        .collect()
}

fn assert_valid(validator: &jsonschema::Validator, what: &str, document: &serde_json::Value) {
    // The deepest failure says what is wrong; `anyOf` failures repeat the whole document.
    let errors: Vec<String> = validator
        .iter_errors(document)
        .map(|e| e.to_string().chars().take(300).collect())
        .collect();
    if errors.is_empty() {
        return;
    }
    let text = format!("{document:#}");
    let mut detail = String::new();
    for (name, schema) in [
        "check",
        "races",
        "atomicity",
        "explain",
        "infer",
        "spec",
        "localize",
        "events",
        "batch",
        "entry",
    ]
    .map(|name| (name, named(name)))
    {
        if let Ok(v) = jsonschema::validator_for(&schema) {
            let found: Vec<String> = v
                .iter_errors(document)
                .take(3)
                .map(|e| e.to_string().chars().take(300).collect())
                .collect();
            detail.push_str(&format!("as {name}: {}\n", found.join("; ")));
        }
    }
    panic!(
        "{what}: does not match docs/output.schema.json:\n{}\n{detail}{}",
        errors.join("\n"),
        text.chars().take(3000).collect::<String>()
    );
}

#[test]
fn every_json_document_matches_the_schema() {
    let validator = validator();
    let commands: [&[&str]; 10] = [
        &["check", "--states", "--count"],
        &["check", "--model", "rc11"],
        &["outcomes"],
        &["races"],
        &["atomicity"],
        &["explain"],
        &["infer"],
        &["localize"],
        &["events"],
        &["parse"],
    ];
    let tests = common::project_litmus();
    assert!(tests.len() > 20, "only {} project tests", tests.len());
    let mut checked = 0;
    for command in commands {
        let mut batch = command.to_vec();
        batch.push("litmus");
        let documents = json_of(&batch);
        assert_eq!(documents.len(), 1, "nemos {batch:?}: one batch document");
        assert_valid(&validator, &format!("nemos {batch:?}"), &documents[0]);
        for test in &tests {
            let path = test.display().to_string();
            let mut one = command.to_vec();
            one.push(&path);
            for document in json_of(&one) {
                assert_valid(&validator, &format!("nemos {one:?}"), &document);
                checked += 1;
            }
        }
    }
    assert!(checked >= 10 * tests.len(), "{checked} documents checked");
}

#[test]
fn a_shards_document_and_the_merged_one_match_the_schema() {
    let validator = validator();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut files = Vec::new();
    for shard in ["1/2", "2/2"] {
        let documents = json_of(&["check", "--shard", shard, "litmus"]);
        assert_eq!(documents.len(), 1, "shard {shard}: one batch document");
        assert_valid(&validator, &format!("shard {shard}"), &documents[0]);
        assert!(documents[0]["shard"].is_object());
        let file = dir.path().join(format!("{}.json", files.len()));
        std::fs::write(&file, documents[0].to_string()).expect("write");
        files.push(file);
    }
    let output = Command::new(env!("CARGO_BIN_EXE_nemos"))
        .arg("merge")
        .args(&files)
        .output()
        .expect("nemos runs");
    let merged: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_valid(&validator, "nemos merge", &merged);
    assert!(merged.get("shard").is_none());
}

#[test]
fn spec_documents_match_the_schema() {
    let validator = validator();
    let batch = json_of(&["spec", "specs"]);
    assert_eq!(batch.len(), 1, "nemos spec specs: one batch document");
    assert_valid(&validator, "nemos spec specs", &batch[0]);
    let specs = common::litmus_files(&common::manifest_dir().join("specs"));
    assert!(specs.len() >= 5, "{} specs", specs.len());
    for test in &specs {
        if test.to_string_lossy().contains("tagged") {
            continue; // its retry loops need --unroll 4: seconds, and nothing new here
        }
        let path = test.display().to_string();
        for document in json_of(&["spec", &path]) {
            assert_valid(&validator, &format!("nemos spec {path}"), &document);
        }
    }
    // A history that fails a synchronisation rule.
    let args = [
        "spec",
        "--model",
        "rc11",
        "--mode",
        "loose",
        "specs/mailbox-relaxed.litmus",
    ];
    let document = &json_of(&args)[0];
    assert_valid(&validator, &args.join(" "), document);
    let failure = &document["violation"]["histories"][0]["unsynchronised"];
    assert_eq!(failure["before"], 0, "{document}");
    assert_eq!(failure["after"], 1, "{document}");
}

#[test]
fn error_and_limit_entries_match_the_schema() {
    let validator = validator();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let bad = dir.path().join("bad.litmus");
    std::fs::write(&bad, "C bad\n{ }\nP0 () { r0 = ; }\n").expect("write the test");
    let bad = bad.display().to_string();
    for args in [
        vec!["check", bad.as_str()],
        vec!["check", "--max-events", "3", "litmus/SB.litmus"],
        vec![
            "check",
            "--max-events",
            "3",
            "litmus/SB.litmus",
            bad.as_str(),
        ],
    ] {
        let documents = json_of(&args);
        assert_eq!(documents.len(), 1, "nemos {args:?}");
        assert_valid(&validator, &format!("nemos {args:?}"), &documents[0]);
    }
}
