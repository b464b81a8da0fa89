//! The C forms of the data structures of `examples/` (`examples/c/NAME.c`, each a program
//! with `main` as a C11 user writes it): one C file per litmus file and back, each listed
//! in `examples/README.md`, and each with its litmus twin's verdict. `check` on the C
//! file and on the litmus file exit alike under `sc` and under `rc11` (the C program's
//! assertions state the litmus file's condition); a correct program has no defect, and a
//! `-weak` one's defect is found under `rc11`: its assertion fails, and it has a data race
//! exactly when `races --model rc11` finds one in the litmus twin.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common;

const MODELS: [&str; 2] = ["sc", "rc11"];

/// `nemos ARGS FILE` from the checkout: exit code and the JSON printed (`Null` if none).
fn nemos(args: &[&str], file: &Path) -> (i32, Value) {
    let output = Command::new(env!("CARGO_BIN_EXE_nemos"))
        .current_dir(common::manifest_dir())
        .args(args)
        .arg(file)
        .env("NO_COLOR", "1")
        .output()
        .expect("nemos runs");
    let json = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (output.status.code().unwrap_or(-1), json)
}

/// The file names in `dir` ending in `.EXT`, without it.
fn names(dir: &Path, ext: &str) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .expect("the directory is there")
        .filter_map(|entry| {
            let path = entry.expect("an entry").path();
            let name = path
                .file_name()?
                .to_str()?
                .strip_suffix(&format!(".{ext}"))?;
            Some(name.to_string())
        })
        .collect()
}

fn defects(json: &Value) -> Vec<String> {
    json["defects"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|d| d.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// What one example's C file and litmus twin say, as a list of disagreements.
fn compare(examples: &Path, name: &str) -> Vec<String> {
    let litmus: PathBuf = examples.join(format!("{name}.litmus"));
    let c: PathBuf = examples.join("c").join(format!("{name}.c"));
    let weak = name.ends_with("-weak");
    let mut problems = Vec::new();
    for model in MODELS {
        let check = ["check", "--format", "json", "--model", model];
        let (litmus_code, _) = nemos(&check, &litmus);
        let (c_code, json) = nemos(&check, &c);
        let found = defects(&json);
        if c_code != litmus_code {
            problems.push(format!(
                "{name} under {model}: the C file exits {c_code}, its litmus twin {litmus_code} (C defects {found:?})"
            ));
            continue;
        }
        let expected = i32::from(weak && model == "rc11");
        if c_code != expected {
            problems.push(format!(
                "{name} under {model}: exit {c_code}, expected {expected} (defects {found:?})"
            ));
            continue;
        }
        if c_code == 0 && !found.is_empty() {
            problems.push(format!(
                "{name} under {model}: exit 0 with defects {found:?}"
            ));
        }
        if c_code == 1 {
            if !found.iter().any(|d| d == "an assertion fails") || json["assertion_fails"] != true {
                problems.push(format!(
                    "{name} under {model}: no failed assertion among {found:?}"
                ));
            }
            let (races_code, _) = nemos(&["races", "--format", "json", "--model", model], &litmus);
            let race = found.iter().any(|d| d == "a data race");
            if race != (races_code == 1) {
                problems.push(format!(
                    "{name} under {model}: the C file's data race {race}, the litmus twin's races exit {races_code}"
                ));
            }
        }
    }
    problems
}

#[test]
fn c_examples_have_the_verdicts_of_their_litmus_twins() {
    let examples = common::manifest_dir().join("examples");
    let litmus = names(&examples, "litmus");
    let c = names(&examples.join("c"), "c");
    assert_eq!(litmus.len(), 22, "eleven structures, correct and weak");
    assert_eq!(
        c, litmus,
        "examples/c/ has one C file per litmus file of examples/"
    );
    let readme = std::fs::read_to_string(examples.join("README.md")).expect("the README");
    for name in &c {
        assert!(
            readme.contains(&format!("(c/{name}.c)")),
            "examples/README.md does not list c/{name}.c"
        );
    }
    // Two workers: the machine CI runs on has two cores.
    let names: Vec<&String> = c.iter().collect();
    let problems: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = names
            .chunks(names.len().div_ceil(2))
            .map(|chunk| {
                let examples = &examples;
                scope.spawn(move || {
                    chunk
                        .iter()
                        .flat_map(|name| compare(examples, name))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a worker"))
            .collect()
    });
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
