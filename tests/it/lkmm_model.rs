//! The Linux-kernel memory model's own files, read from the shared corpus (they are
//! GPL-2.0+: never copied into nemos), loaded as a user loads them: `--model
//! DIR/linux-kernel.cat`, with the bell file beside it. Skipped when the corpus is absent.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use nemos::diagnostics::SourceFile;

use crate::common;

fn model_dir(which: &str) -> Option<PathBuf> {
    let dir = common::manifest_dir()
        .join("../shared/corpus/lkmm/model")
        .join(which);
    if dir.join("linux-kernel.cat").exists() {
        Some(dir)
    } else {
        eprintln!("skipped: no LKMM model at {}", dir.display());
        None
    }
}

fn check(model: &std::path::Path, test: &str) -> (i32, String, String) {
    let output = Command::cargo_bin("nemos")
        .expect("the nemos binary is built")
        .current_dir(common::manifest_dir())
        .args(["check", "--model"])
        .arg(model)
        .arg(test)
        .output()
        .expect("nemos runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Dat3M's copy (bell and macro file beside the model, lock.cat all comments): the model
/// loads and decides a test.
#[test]
fn the_dat3m_copy_of_the_kernel_model_loads_and_decides() {
    let Some(dir) = model_dir("dat3m") else {
        return;
    };
    let (code, stdout, stderr) = check(&dir.join("linux-kernel.cat"), "litmus/MP.litmus");
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("Ok (reachable)"), "{stdout}");
    // The dependencies are computed, and the tags are the events' own, from the macro
    // file beside the model: nothing is read as empty.
    assert!(!stderr.contains("note: nemos reads as empty"), "{stderr}");
    // The same through the library: the bell first, then the model and its include.
    let model = common::lkmm_model(&dir);
    for check in [
        "coherence",
        "atomic",
        "happens-before",
        "propagation",
        "rcu",
    ] {
        assert!(model.check_names().contains(&check.to_string()), "{check}");
    }
    for flag in ["data-race", "unmatched-rcu-lock", "srcu-bad-value-match"] {
        assert!(model.flag_names().contains(&flag.to_string()), "{flag}");
    }
    // The bell's `rcu-rscs` and the model's `rcu-order` are `let rec`s.
    assert_eq!(model.rec_groups.len(), 2);
}

/// The kernel's own copy, unchanged: `--model DIR/linux-kernel.cat` (bell, `.def` and the
/// `.cfg`'s variant beside it) and herd's way, `--conf linux-kernel.cfg`, both load it with
/// what lock.cat includes from herd's library (`cross.cat`, `cos-opt.cat`) known natively,
/// and decide MP as the CSV does, with no placeholder and no flag but the data race.
#[test]
fn the_kernel_copy_loads_as_it_is_and_decides() {
    let Some(dir) = model_dir("kernel") else {
        return;
    };
    let mp = "litmus/MP.litmus";
    for args in [
        vec![
            "--model".to_string(),
            dir.join("linux-kernel.cat").display().to_string(),
        ],
        vec![
            "--conf".to_string(),
            dir.join("linux-kernel.cfg").display().to_string(),
        ],
    ] {
        let output = Command::cargo_bin("nemos")
            .expect("the nemos binary is built")
            .current_dir(common::manifest_dir())
            .arg("check")
            .args(&args)
            .arg(mp)
            .output()
            .expect("nemos runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {stdout}{stderr}");
        assert!(stdout.contains("Ok (reachable)"), "{stdout}");
        assert!(stdout.contains("flag data-race"), "{stdout}");
        // The `variant lkmmv2` of the configuration is on: lock.cat's guard is not raised.
        assert!(!stdout.contains("lkmmv1"), "{args:?}: {stdout}");
        assert!(!stderr.contains("note: nemos reads as empty"), "{stderr}");
    }
    // Through the library: lock.cat's checks and flags are the model's, with the order
    // herd's cos-opt.cat makes co extend (ConsCo).
    let model = common::lkmm_model(&dir);
    for check in [
        "lock-nest",
        "unmatched-locks",
        "ConsCo",
        "coherence",
        "happens-before",
    ] {
        assert!(
            model.check_names().contains(&check.to_string()),
            "{check} in {:?}",
            model.check_names()
        );
    }
    for flag in [
        "unpaired-LKW",
        "lock-final",
        "unmatched-unlock",
        "data-race",
    ] {
        assert!(model.flag_names().contains(&flag.to_string()), "{flag}");
    }
}

/// A `with ... from` nemos cannot honour is a located error naming what it reads instead,
/// and an include of herd's library nemos does not know tells where herd keeps it.
#[test]
fn what_nemos_cannot_honour_in_herds_cat_is_located() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write(
        "gen.cat",
        "\"m\"\nwith x from generate_orders(R, po)\nacyclic po | x\n",
    );
    write("map.cat", "\"m\"\nlet f e = (W * {e}) ; po\nlet g p = p ++ 0\nlet h e = map g (f e)\nwith x from cross(map h R)\n");
    write("lib.cat", "\"m\"\ninclude \"armfences.cat\"\n");
    for (model, expected) in [
        (
            "gen.cat",
            "gen.cat:2:13: nemos does not honour this `with ... from`",
        ),
        (
            "map.cat",
            "nemos reads `map` over a set only for single edges into each event",
        ),
        ("lib.cat", "--herd-lib DIR"),
    ] {
        let (code, _, stderr) = check(&dir.path().join(model), "litmus/MP.litmus");
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(expected), "{expected} not in {stderr}");
    }
}

/// The macros of the core tier of the corpus: `READ_ONCE`/`WRITE_ONCE`, acquire and
/// release, the three fences, and branches and dependencies between them.
const CORE_MACROS: &[&str] = &[
    "READ_ONCE",
    "WRITE_ONCE",
    "smp_load_acquire",
    "smp_store_release",
    "smp_mb",
    "smp_rmb",
    "smp_wmb",
];

/// The kernel's read-modify-write macros (the RMW tier), which the `.def` file beside the
/// model defines.
fn is_rmw_macro(name: &str) -> bool {
    ["xchg", "cmpxchg", "atomic_", "smp_mb__"]
        .iter()
        .any(|prefix| name.starts_with(prefix))
}

/// The names called in a test's threads (after the init block), keywords aside.
fn calls(text: &str) -> Vec<String> {
    let body = text.split_once('{').map_or(text, |(_, rest)| rest);
    let mut out = Vec::new();
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_alphabetic() || bytes[i] == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &body[start..i];
            let next = body[i..].trim_start();
            let thread = word.len() > 1
                && word.starts_with('P')
                && word[1..].bytes().all(|b| b.is_ascii_digit());
            let keyword = ["if", "while", "exists", "forall", "int", "intptr_t"].contains(&word);
            if next.starts_with('(') && !thread && !keyword {
                out.push(word.to_string());
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The tests of `LKMM-expected.csv` without RCU whose calls all pass `tier`.
fn tier_tests(corpus: &Path, tier: impl Fn(&str) -> bool) -> Vec<String> {
    let expected = common::lkmm_csv(&corpus.join("LKMM-expected.csv"));
    let mut tests = Vec::new();
    for path in expected.keys() {
        let file = corpus.join("tests").join(path);
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        if !text.contains("rcu") && calls(&text).iter().all(|c| tier(c)) {
            tests.push(path.clone());
        }
    }
    tests
}

/// Check `tests` in one batch under the model in `dir`: the number agreeing with
/// `LKMM-expected.csv`, and with `LKMM-DR-expected.csv` on the `data-race` flag where it
/// lists the test, and the others (errors included). No test may hit a limit.
fn agreement(dir: &Path, corpus: &Path, tests: &[String]) -> (usize, Vec<String>) {
    let expected = common::lkmm_csv(&corpus.join("LKMM-expected.csv"));
    let race_free = common::lkmm_csv(&corpus.join("LKMM-DR-expected.csv"));
    let paths = tests.iter().map(|p| corpus.join("tests").join(p));
    let results = check_batch(dir, &[], paths);
    assert_eq!(results.len(), tests.len());
    let mut differ = Vec::new();
    let mut agree = 0;
    for t in results {
        let path = t["path"].as_str().unwrap_or_default();
        let key = path.split_once("/tests/").map_or(path, |(_, k)| k);
        assert!(t["limit"].is_null(), "{key}: {t}");
        if !t["error"].is_null() {
            differ.push(key.to_string());
            continue;
        }
        let reachable = common::lkmm_reachable(&t["result"]);
        let raced = t["result"]["flags"]
            .as_array()
            .is_some_and(|f| f.iter().any(|f| f == "data-race"));
        let flag_agrees = race_free.get(key).is_none_or(|&free| free != raced);
        if expected.get(key) == Some(&reachable) && flag_agrees {
            agree += 1;
        } else {
            differ.push(key.to_string());
        }
    }
    (agree, differ)
}

/// One `nemos check --format json` batch of `paths` under the model in `dir`, with `extra`
/// options: each test's entry.
fn check_batch(
    dir: &Path,
    extra: &[&str],
    paths: impl IntoIterator<Item = impl AsRef<std::ffi::OsStr>>,
) -> Vec<serde_json::Value> {
    let output = Command::cargo_bin("nemos")
        .expect("the nemos binary is built")
        .args(["check", "--format", "json"])
        .args(extra)
        .arg("--model")
        .arg(dir.join("linux-kernel.cat"))
        .args(paths)
        .output()
        .expect("nemos runs");
    let doc: serde_json::Value = serde_json::from_slice(&output.stdout).expect("a JSON document");
    doc["tests"].as_array().expect("a list of tests").clone()
}

/// The tests of [`tier_tests`] whose calls pass `wider` but not all of them `narrower`.
fn tier_difference(
    corpus: &Path,
    wider: impl Fn(&str) -> bool,
    narrower: impl Fn(&str) -> bool,
) -> Vec<String> {
    let inner: std::collections::BTreeSet<String> =
        tier_tests(corpus, narrower).into_iter().collect();
    tier_tests(corpus, wider)
        .into_iter()
        .filter(|t| !inner.contains(t))
        .collect()
}

fn is_core_or_rmw(name: &str) -> bool {
    CORE_MACROS.contains(&name) || is_rmw_macro(name)
}

/// The kernel's spin-lock macros (the lock tier).
const LOCK_MACROS: &[&str] = &["spin_lock", "spin_unlock", "spin_trylock", "spin_is_locked"];

/// A call of the lock tier: core, RMW or a spin-lock macro.
fn is_lock_tier(name: &str) -> bool {
    is_core_or_rmw(name) || LOCK_MACROS.contains(&name)
}

/// Every core- and RMW-tier test of the corpus (its macros among [`CORE_MACROS`] and the
/// RMW macros, no RCU) that has a verdict agrees with Dat3M's under the Dat3M copy of the
/// model, read with its macro file; none hits a limit. Dependencies (`addr`, `data`, `ctrl`) decide most of the core tier's
/// verdicts (LB, MP and S shapes with dependencies), the tags of the `.def` file the RMW
/// tier's.
#[test]
fn the_core_and_rmw_tiers_agree_with_dat3m_under_the_kernel_model() {
    let (Some(dir), Some(corpus)) = (model_dir("dat3m"), common::corpus()) else {
        return;
    };
    let corpus = corpus.join("lkmm");
    let core = tier_tests(&corpus, is_core_or_rmw);
    let (agree, differ) = agreement(&dir, &corpus, &core);
    eprintln!(
        "{agree} of {} core- and RMW-tier LKMM tests agree with Dat3M",
        core.len()
    );
    // Out of thin air included: `manual/plain/C-OOTA` and `manual/kernel/crypto-control-data`
    // reach their outcomes through values that justify themselves, which the model allows.
    assert!(differ.is_empty(), "{differ:#?}");
    // The tiers' size is the corpus's: a change of the selection shows here.
    assert_eq!(core.len(), 2522);
    assert_eq!(agree, 2522);
}

/// The lock tier: the tests whose calls are core, RMW and the spin-lock macros, with at
/// least one of those, no RCU. With herd's locks as memory (a lock a read of 0 and a write
/// of 1 linked as an RMW, the read Acquire; an unlock a write of 0, Release), every one
/// agrees with Dat3M under Dat3M's copy of the model, whose lock.cat is all comments:
/// the `po-unlock-lock-po` ordering and the critical sections' exclusion come from `rf`
/// and `co` of the lock's location, through the model's own coherence and atomicity.
#[test]
fn the_lock_tier_agrees_with_dat3m_under_the_kernel_model() {
    let (Some(dir), Some(corpus)) = (model_dir("dat3m"), common::corpus()) else {
        return;
    };
    let corpus = corpus.join("lkmm");
    let tests = tier_difference(&corpus, is_lock_tier, is_core_or_rmw);
    let (agree, differ) = agreement(&dir, &corpus, &tests);
    eprintln!(
        "{agree} of {} lock-tier LKMM tests agree with Dat3M",
        tests.len()
    );
    assert!(differ.is_empty(), "{differ:#?}");
    assert_eq!(tests.len(), 317);
    assert_eq!(agree, 317);
}

/// The macro files of both copies read; with Dat3M's, the tests without RCU that nemos
/// refused for the kernel's RMW macros (43), `smp_mb__after_unlock_lock` (2) and locks
/// left held at a branch's or a thread's end (4) load, the one with two header lines and
/// the one calling `atomic_add_unless`, which that file lacks (nemos gives it the kernel's
/// definition).
#[test]
fn the_macro_files_read_and_the_rmw_tests_load_with_them() {
    let (Some(dat3m), Some(kernel), Some(corpus)) =
        (model_dir("dat3m"), model_dir("kernel"), common::corpus())
    else {
        return;
    };
    let read = |dir: &Path| {
        let path = dir.join("linux-kernel.def");
        let file =
            SourceFile::from_bytes(path.display().to_string(), std::fs::read(&path).unwrap());
        nemos::syntax::def::parse(&file).unwrap_or_else(|e| panic!("{}", e.short()))
    };
    let kernel = read(&kernel);
    assert!(kernel.get("atomic_add_unless").is_some() && kernel.get("atomic_andnot").is_some());
    let options = nemos::LoadOptions {
        macros: Some(std::sync::Arc::new(read(&dat3m))),
        ..Default::default()
    };
    let mut loaded = 0;
    let mut refused = Vec::new();
    for path in common::litmus_files(&corpus.join("lkmm/tests")) {
        let bytes = std::fs::read(&path).unwrap();
        let file = SourceFile::from_bytes(path.display().to_string(), bytes);
        if file.text.contains("rcu_") || file.text.contains("srcu") {
            continue;
        }
        let rmw = calls(&file.text).iter().any(|c| is_rmw_macro(c));
        match nemos::load(&file, &options) {
            Ok(_) => loaded += usize::from(rmw),
            Err(e) => refused.push(e.short()),
        }
    }
    // Locks held at a branch's or a thread's end load: herd's spin locks are matched in
    // each execution, as lock.cat matches them, not by the program's blocks.
    assert!(refused.is_empty(), "{refused:#?}");
    eprintln!(
        "{loaded} tests with RMW macros load; {} refused",
        refused.len()
    );
    assert!(loaded >= 44, "{loaded}");
}

/// The tests of `LKMM-expected.csv` outside the tiers above (no RCU, calls beyond the
/// tiers' macros: `filter` clauses, `ATOMIC_INIT` in the init block, `kfree`, two header
/// lines, `atomic_add_unless`, which Dat3M's `.def` does not define and nemos defines as
/// the kernel's does) agree with Dat3M.
#[test]
fn the_tests_outside_the_tiers_agree_with_dat3m() {
    let (Some(dir), Some(corpus)) = (model_dir("dat3m"), common::corpus()) else {
        return;
    };
    let corpus = corpus.join("lkmm");
    let rest = tier_difference(&corpus, |_| true, is_lock_tier);
    let (agree, differ) = agreement(&dir, &corpus, &rest);
    eprintln!(
        "{agree} of {} other LKMM tests agree with Dat3M",
        rest.len()
    );
    assert!(differ.is_empty(), "{differ:#?}");
    assert_eq!(rest.len(), 18);
}

/// The kernel's own copy of the model, unchanged (`lock.cat` generating `co` with herd's
/// library, the `rf` of failed trylocks and `spin_is_locked` with `cross`): every test of
/// the core, RMW and lock tiers and outside them agrees with the CSV and its data-race flag.
#[test]
fn the_kernel_copy_agrees_on_the_core_rmw_lock_and_other_tiers() {
    let (Some(dir), Some(corpus)) = (model_dir("kernel"), common::corpus()) else {
        return;
    };
    let corpus = corpus.join("lkmm");
    let tests = tier_tests(&corpus, |_| true);
    let (agree, differ) = agreement(&dir, &corpus, &tests);
    eprintln!(
        "{agree} of {} LKMM tests without RCU agree under the kernel's own model",
        tests.len()
    );
    assert!(differ.is_empty(), "{differ:#?}");
    assert_eq!(agree, 2522 + 317 + 18);
}

/// The tests missing from `LKMM-expected.csv` (herd did not finish them) whose comment has
/// a `Result:` line: nemos's observation is that line's, each within the timeout.
#[test]
fn the_tests_missing_from_the_csv_agree_with_their_result_lines() {
    let (Some(dir), Some(corpus)) = (model_dir("dat3m"), common::corpus()) else {
        return;
    };
    let corpus = corpus.join("lkmm");
    let expected = common::lkmm_csv(&corpus.join("LKMM-expected.csv"));
    let tests = corpus.join("tests");
    let mut wanted = std::collections::BTreeMap::new();
    for path in common::litmus_files(&tests) {
        let key = path
            .strip_prefix(&tests)
            .unwrap_or(&path)
            .display()
            .to_string();
        if expected.contains_key(&key) {
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).to_string();
        let result = text
            .split("Result:")
            .nth(1)
            .and_then(|r| r.split_whitespace().next());
        if let Some(word @ ("Never" | "Sometimes" | "Always")) = result {
            wanted.insert(path.display().to_string(), word.to_string());
        }
    }
    let results = check_batch(&dir, &["--timeout", "60"], wanted.keys());
    let differ: Vec<String> = results
        .iter()
        .filter(|t| {
            let path = t["path"].as_str().unwrap_or_default();
            t["result"]["observation"].as_str() != wanted.get(path).map(String::as_str)
        })
        .map(|t| t["path"].to_string())
        .collect();
    assert!(differ.is_empty(), "{differ:#?}");
    assert_eq!(results.len(), 157);
}
