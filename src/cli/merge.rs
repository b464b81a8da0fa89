//! `nemos merge`: the shards' JSON documents read from their files, merged by the library
//! (`nemos::report::shard::merge`), printed, and the exit code the unsharded batch would
//! have had.

use std::path::PathBuf;

use nemos::report::shard::{merge, Part};

use super::batch::Status;
use super::output::{eprint_error, Stdout};

pub fn merge_command(files: &[PathBuf]) -> Status {
    let mut documents = Vec::new();
    for file in files {
        let name = file.display().to_string();
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) => {
                eprint_error(&format!("cannot read {name}: {e}"));
                return Status::BadInput;
            }
        };
        match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(document) => documents.push((name, document)),
            Err(e) => {
                eprint_error(&format!(
                    "{name}:{}:{}: not a JSON document: {e}",
                    e.line(),
                    e.column()
                ));
                return Status::BadInput;
            }
        }
    }
    let parts: Vec<Part<'_>> = documents
        .iter()
        .map(|(name, document)| Part { name, document })
        .collect();
    let merged = match merge(&parts) {
        Ok(merged) => merged,
        Err(e) => {
            eprint_error(&e.to_string());
            return Status::BadInput;
        }
    };
    let mut status = Status::Clean;
    for test in merged["tests"].as_array().into_iter().flatten() {
        let word = test["status"].as_str().unwrap_or("");
        match Status::named(word) {
            Some(found) => status = status.worst(found),
            None => {
                eprint_error(&format!(
                    "test {}: status `{word}` is none of nemos's (clean, defect, limit, error, differs)",
                    test["path"].as_str().unwrap_or("?")
                ));
                return Status::BadInput;
            }
        }
    }
    match serde_json::to_string_pretty(&merged) {
        Ok(text) => Stdout::new().write(&format!("{text}\n")),
        Err(e) => {
            eprint_error(&format!("cannot serialise the result: {e}"));
            return Status::BadInput;
        }
    }
    status
}
