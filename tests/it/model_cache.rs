//! The cache of checked models (`src/cli/cache.rs`): the binary keeps a model it checked,
//! gives the same answers from the entry, and never trusts an entry its files no longer
//! match. Each test has a cache folder of its own (`NEMOS_CACHE_DIR`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// `nemos check --format json --model MODEL litmus/SB.litmus` with the cache in `cache`;
/// the verdict's observation.
fn observation(model: &Path, cache: &Path, extra: &[&str], env: &[(&str, &str)]) -> String {
    let sb = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("litmus/SB.litmus");
    let output = Command::new(env!("CARGO_BIN_EXE_nemos"))
        .args(["check", "--format", "json", "--model"])
        .arg(model)
        .args(extra)
        .arg(sb)
        .env("NEMOS_CACHE_DIR", cache)
        .env_remove("NEMOS_NO_CACHE")
        .envs(env.iter().copied())
        .output()
        .expect("nemos runs");
    let json: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    json["observation"]
        .as_str()
        .unwrap_or("no answer")
        .to_string()
}

fn entries(cache: &Path) -> Vec<String> {
    std::fs::read_dir(cache)
        .map(|dir| {
            dir.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// A model that forbids store buffering (SC), its relation in an include.
fn model_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(
        dir.path().join("mine.cat"),
        "\"Mine\"\ninclude \"com.cat\"\nacyclic po | com as mine\n",
    )
    .expect("written");
    std::fs::write(dir.path().join("com.cat"), "let com = rf | co | fr\n").expect("written");
    dir
}

#[test]
fn a_cached_model_answers_as_the_model_and_an_edited_include_is_read_again() {
    let models = model_dir();
    let cache = tempfile::tempdir().expect("a temporary directory");
    let model = models.path().join("mine.cat");
    assert_eq!(observation(&model, cache.path(), &[], &[]), "Never");
    let kept = entries(cache.path());
    assert_eq!(kept.len(), 1, "one entry: {kept:?}");
    assert!(kept[0].starts_with("model-"), "{kept:?}");
    // From the entry: the same answer.
    assert_eq!(observation(&model, cache.path(), &[], &[]), "Never");
    // The include now leaves `fr` out: store buffering is allowed, whatever the entry says.
    std::fs::write(models.path().join("com.cat"), "let com = rf | co\n").expect("written");
    assert_eq!(observation(&model, cache.path(), &[], &[]), "Sometimes");
    // The entry was replaced, not added to.
    assert_eq!(entries(cache.path()).len(), 1);
    assert_eq!(observation(&model, cache.path(), &[], &[]), "Sometimes");
}

#[test]
fn a_corrupt_entry_is_read_again_and_replaced() {
    let models = model_dir();
    let cache = tempfile::tempdir().expect("a temporary directory");
    let model = models.path().join("mine.cat");
    assert_eq!(observation(&model, cache.path(), &[], &[]), "Never");
    let entry = cache.path().join(&entries(cache.path())[0]);
    let mut bytes = std::fs::read(&entry).expect("the entry");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&entry, &bytes).expect("written");
    assert_eq!(observation(&model, cache.path(), &[], &[]), "Never");
    assert_ne!(std::fs::read(&entry).expect("the entry"), bytes);
}

#[test]
fn no_cache_and_nemos_no_cache_write_nothing() {
    let models = model_dir();
    let model = models.path().join("mine.cat");
    let cache = tempfile::tempdir().expect("a temporary directory");
    assert_eq!(
        observation(&model, cache.path(), &["--no-cache"], &[]),
        "Never"
    );
    assert_eq!(
        observation(&model, cache.path(), &[], &[("NEMOS_NO_CACHE", "1")]),
        "Never"
    );
    assert!(entries(cache.path()).is_empty());
}
