//! The part of GenMC 0.11's own test suite that `../shared/corpus/genmc` does not hold, read
//! from a checkout of GenMC's repository (`git clone https://github.com/MPI-SWS/genmc
//! --branch v0.11.0`) named by `NEMOS_GENMC_TESTS` (its `tests` folder), with the rows and
//! verdicts of `genmc_corpus` and the expectations GenMC's own scripts check
//! (`scripts/runcorrect.sh`, `scripts/runwrong.sh`, `scripts/driver.sh`):
//! - `correct/<folder>/<test>/variants/*.c`, under rc11 and sc: no error, and as many
//!   complete executions as the first line of `expected.<model>.mo.in` (no such line: the
//!   count is not compared, as GenMC's script does); GenMC's options and, after `|`, the
//!   preprocessor's flags are the first line of `args.<model>.mo.in`;
//! - `wrong/<folder>/<test>/variants/*.c`, under rc11 only (GenMC's driver runs them under
//!   rc11 and IMM, never SC): the error of GenMC's recorded trace
//!   (`<variant>.rc11.<coherence>.trace`), with GenMC's options from
//!   `genmc.rc11.<coherence>.in`, the preprocessor's from `args.rc11.<coherence>.in` and
//!   `-unroll=N` from `unroll.in` (coherence `mo` for `liveness` and `helper`, `wb`
//!   otherwise, as the driver has it).
//!
//! Rows GenMC runs with an option nemos does not have, and C++ rows, are skipped and counted;
//! rows with an option that changes only GenMC's count ([`VERDICT_ONLY_OPTIONS`]) are run
//! with their verdict compared and their count not.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::genmc_corpus::{run_rows, tally, Outcome, Row, Tally};

/// The folders read, each with why: those GenMC's own driver runs (`scripts/driver.sh`,
/// besides the ones `../shared` holds), and `correct/lapor`, whose rc11 rows run with
/// `-lapor` (verdict compared, count not: [`VERDICT_ONLY_OPTIONS`]).
const FOLDERS: &[&str] = &[
    "correct/infr",
    "correct/ipr",
    "correct/lapor",
    "correct/liveness",
    "correct/saver",
    "correct/sr",
    "wrong/infr",
    "wrong/helper",
];

/// The folders left out, with the reason (printed, so the choice shows in the output).
const LEFT_OUT: &[(&str, &str)] = &[
    (
        "correct/relinche",
        "no C variants: library specifications for GenMC's relinche mode",
    ),
    (
        "wrong/fs",
        "file-system calls (open, write, fsync) checked by GenMC's persistency mode; not in GenMC's driver",
    ),
    (
        "wrong/lkmm",
        "configured for GenMC's -lkmm model only (no rc11 or sc files)",
    ),
    (
        "wrong/saver",
        "errors in GenMC's own helped/helping-CAS annotations; not in GenMC's driver",
    ),
];

/// GenMC options that change nothing nemos would answer: reductions GenMC applies to its
/// exploration, which nemos does not make (the counts are compared as GenMC states them).
const IGNORED_OPTIONS: &[&str] = &["-disable-ipr", "-disable-sr", "-disable-estimation"];

/// GenMC options that change which executions GenMC explores and counts, not its verdict:
/// the row's verdict is compared, its count is not. `-lapor` (lock-aware partial-order
/// reduction, GenMC's manual: it explores one execution for critical sections that commute,
/// "1 execution for all values of N" in the manual's example) counts executions up to the
/// order of critical sections, which nemos's `--count` (distinct `rf` and `co`) does not;
/// GenMC 0.11 itself refuses the option ("LAPOR is temporarily disabled", its
/// `Config.cpp`), so the rows' counts are those of an older GenMC.
const VERDICT_ONLY_OPTIONS: &[&str] = &["-lapor"];

/// GenMC options the harness maps (see `genmc_corpus`).
fn mapped(option: &str) -> bool {
    option.starts_with("-unroll=")
        || option == "-check-liveness"
        || option == "-disable-race-detection"
        || VERDICT_ONLY_OPTIONS.contains(&option)
}

/// Rows whose count differs from GenMC's, with the verdict the same, and why (measured
/// 2026-11-27, the mutex rows explained 2026-11-28 with GenMC 0.11's own counts; each under
/// rc11 and sc alike).
const KNOWN_COUNT_DIFFERENCES: &[(&str, &str, &str)] = &[
    ("correct/sr/ainc/variants/ainc0.c", "rc11", "nemos counts 2, GenMC 1: the order of the two thread_n fetch_adds (2), which GenMC's symmetry reduction of the threads started with __VERIFIER_spawn_symmetric counts once (genmc -disable-sr: 2); nemos counts distinct rf and co"),
    ("correct/sr/ainc/variants/ainc0.c", "sc", "nemos counts 2, GenMC 1: the order of the two thread_n fetch_adds (2), which GenMC's symmetry reduction of the threads started with __VERIFIER_spawn_symmetric counts once (genmc -disable-sr: 2); nemos counts distinct rf and co"),
    ("correct/sr/conf-loop-small/variants/conf-loop0.c", "rc11", "nemos counts 744, GenMC 124: the three thread_n threads started with __VERIFIER_spawn/__VERIFIER_spawn_symmetric are counted once per symmetric order by GenMC's symmetry reduction (744 / 3! = 124; genmc -disable-sr: 744 under rc11 and sc, measured 2026-11-28); nemos counts distinct rf and co"),
    ("correct/sr/conf-loop-small/variants/conf-loop0.c", "sc", "nemos counts 744, GenMC 124: the three thread_n threads started with __VERIFIER_spawn/__VERIFIER_spawn_symmetric are counted once per symmetric order by GenMC's symmetry reduction (744 / 3! = 124; genmc -disable-sr: 744 under rc11 and sc, measured 2026-11-28); nemos counts distinct rf and co"),
    ("correct/saver/help-cas/variants/help-cas0.c", "rc11", "GenMC's __VERIFIER_helped_CAS/__VERIFIER_helping_CAS annotations let it skip the helping CAS's executions; nemos reads both as plain CASes"),
    ("correct/saver/help-cas/variants/help-cas0.c", "sc", "GenMC's __VERIFIER_helped_CAS/__VERIFIER_helping_CAS annotations let it skip the helping CAS's executions; nemos reads both as plain CASes"),
    ("correct/ipr/lock-inplace2/variants/lock-inplace20.c", "rc11", "nemos counts 2, GenMC 3: GenMC counts each order of a mutex's critical sections as an execution (a lock reads from the unlock before it), nemos counts distinct rf and co only (its mutexes are lko, not memory): the two section orders with thread 1's fetch_add first are one execution to nemos"),
    ("correct/ipr/lock-inplace2/variants/lock-inplace20.c", "sc", "nemos counts 2, GenMC 3: GenMC counts each order of a mutex's critical sections as an execution (a lock reads from the unlock before it), nemos counts distinct rf and co only (its mutexes are lko, not memory): the two section orders with thread 1's fetch_add first are one execution to nemos"),
    ("correct/ipr/lock-nested/variants/lock-nested.c", "rc11", "nemos counts 4, GenMC 6: the orders of y's three critical sections (6) times the order of the two thread_race fetch_adds (2) make GenMC's 12 (genmc -disable-sr: 12), halved by its symmetry reduction of the two thread_race threads; nemos counts distinct rf and co (the fetch_add order, 2, times na's co, 2), not lock orders"),
    ("correct/ipr/lock-nested/variants/lock-nested.c", "sc", "nemos counts 4, GenMC 6: the orders of y's three critical sections (6) times the order of the two thread_race fetch_adds (2) make GenMC's 12 (genmc -disable-sr: 12), halved by its symmetry reduction of the two thread_race threads; nemos counts distinct rf and co (the fetch_add order, 2, times na's co, 2), not lock orders"),
];

/// Rows whose verdict is compared and whose count is not asked, and why: a count that
/// differs from GenMC's for a reason listed above and that `--count` does not finish within
/// the row's limit (every execution is one more solve), while the verdict takes a second.
const VERDICT_ONLY_ROWS: &[(&str, &str, &str)] = &[
    (
        "correct/sr/conf-loop/variants/conf-loop0.c",
        "rc11",
        CONF_LOOP,
    ),
    (
        "correct/sr/conf-loop/variants/conf-loop0.c",
        "sc",
        CONF_LOOP,
    ),
];

const CONF_LOOP: &str = "GenMC counts 5520 with its symmetry reduction of the three \
    thread_n threads started with __VERIFIER_spawn/__VERIFIER_spawn_symmetric, as for \
    conf-loop-small (KNOWN_COUNT_DIFFERENCES); genmc -disable-sr counts 128160 under rc11 and \
    sc (measured 2026-11-28, 18 s each), the executions nemos's --count (distinct rf and co) \
    would enumerate, past the 30 s limit";

/// Rows whose verdict differs from GenMC's, and why: front-end defects, reported, to be
/// taken off when fixed.
const KNOWN_DISAGREEMENTS: &[(&str, &str, &str)] = &[];

/// The first line of a file, or `None` when there is no such file.
fn first_line(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(text.lines().next().unwrap_or_default().trim().to_string())
}

/// GenMC's error in a recorded trace (`Error detected: Non-Atomic race!`), in the words
/// of `expected.csv`.
fn trace_error(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().find_map(|l| {
        l.strip_prefix("Error detected: ")
            .or_else(|| l.strip_prefix("ERROR: "))
    })?;
    let error = line.trim().trim_end_matches('!').to_string();
    Some(if error.eq_ignore_ascii_case("Non-Atomic race") {
        "Non-atomic race".to_string()
    } else {
        error
    })
}

/// Rows GenMC 0.11 itself does not compile with the flags its suite gives them, with the
/// compiler's error: GenMC has no verdict to compare. Measured on 28 November 2026 with
/// `/tmp/genmc/genmc -disable-estimation -<model> [-unroll=3 -- -I<dir>] <variant>` run
/// from the folder above `tests` (exit 5, "N errors generated"). `correct/lapor` has no
/// `args.sc.mo.in` (nor `expected.sc.mo.in`), so its sc rows run without the `-DN` its
/// `args.rc11.mo.in` gives; the six below size arrays or loops by `N` and do not compile
/// without it (the other `-D` tests of the folder have defaults and do).
const GENMC_DOES_NOT_COMPILE: &[(&str, &str, &str)] = &[
    ("correct/lapor/binc-locks", "sc", UNDECLARED_N),
    ("correct/lapor/casrot-locks", "sc", UNDECLARED_N),
    ("correct/lapor/casw-locks", "sc", UNDECLARED_N),
    ("correct/lapor/complex-lock", "sc", UNDECLARED_N),
    ("correct/lapor/filesystem", "sc", UNDECLARED_N),
    ("correct/lapor/wcas-locks", "sc", UNDECLARED_N),
    ("correct/lapor/gcd", "rc11", GCD_ASSUME),
    ("correct/lapor/gcd", "sc", GCD_ASSUME),
    ("correct/lapor/qrcu", "rc11", QRCU_BOOL),
    ("correct/lapor/qrcu", "sc", QRCU_BOOL),
];

const UNDECLARED_N: &str = "GenMC 0.11 does not compile it: \"use of undeclared identifier 'N'\" \
    (no sc flags in GenMC's suite; the -DN is in args.rc11.mo.in only)";

const GCD_ASSUME: &str = "GenMC 0.11 does not compile it: gcd.c's `void __VERIFIER_assume(int)` \
    against genmc_internal.h's `(bool)`, \"conflicting types for '__VERIFIER_assume'\" \
    (measured 2026-11-28, exit 5, with and without -unroll=3)";

const QRCU_BOOL: &str = "GenMC 0.11 does not compile it: fake.h's `typedef _Bool bool` after \
    <stdbool.h>'s macro, \"cannot combine with previous 'bool' declaration specifier\"";

/// Why a row is not run, if it is not.
fn skipped(
    variant: &Path,
    test: &str,
    model: &str,
    genmc_args: &str,
    cflags: &str,
) -> Option<String> {
    if variant.extension().is_some_and(|e| e == "cpp") || cflags.contains("-std=c++") {
        return Some("C++".to_string());
    }
    if let Some((_, _, why)) = GENMC_DOES_NOT_COMPILE
        .iter()
        .find(|(t, m, _)| (*t, *m) == (test, model))
    {
        return Some(why.to_string());
    }
    genmc_args
        .split_whitespace()
        .find(|o| !mapped(o) && !IGNORED_OPTIONS.contains(o))
        .map(|o| {
            let name = o.split('=').next().unwrap_or(o);
            format!("GenMC option nemos does not have: {name}")
        })
}

/// The variants of one test folder, sorted.
fn variants(test: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(test.join("variants")) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c" || e == "cpp"))
        .collect();
    found.sort();
    found
}

/// The rows of one folder (`correct/infr`), and the rows skipped with why.
fn folder_rows(tests: &Path, folder: &str) -> (Vec<Row>, Vec<(String, String)>) {
    let mut rows = Vec::new();
    let mut skips = Vec::new();
    let Ok(entries) = std::fs::read_dir(tests.join(folder)) else {
        return (rows, skips);
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let wrong = folder.starts_with("wrong/");
    let models: &[&str] = if wrong { &["rc11"] } else { &["rc11", "sc"] };
    for dir in &dirs {
        for model in models {
            let (genmc_args, cflags, raw_cflags, expected, error) = if wrong {
                let coherence = if folder.ends_with("/liveness") || folder.ends_with("/helper") {
                    "mo"
                } else {
                    "wb"
                };
                let mut genmc_args =
                    std::fs::read_to_string(dir.join(format!("genmc.{model}.{coherence}.in")))
                        .unwrap_or_default()
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ");
                if let Some(n) = first_line(&dir.join("unroll.in")) {
                    genmc_args = format!("{genmc_args} -unroll={n}").trim().to_string();
                }
                let cflags = first_line(&dir.join(format!("args.{model}.{coherence}.in")))
                    .unwrap_or_default();
                (genmc_args, cflags.clone(), cflags, None, Some(coherence))
            } else {
                let args = first_line(&dir.join(format!("args.{model}.mo.in"))).unwrap_or_default();
                let (genmc_args, cflags) = args.split_once('|').unwrap_or((&args, ""));
                let expected = first_line(&dir.join(format!("expected.{model}.mo.in")))
                    .and_then(|l| l.parse::<u64>().ok());
                // The preprocessor's -D, -U and -I; warning flags (-Wno-error=...) dropped.
                let raw_cflags = cflags.trim().to_string();
                let cflags = cflags
                    .split_whitespace()
                    .filter(|f| ["-D", "-U", "-I"].iter().any(|p| f.starts_with(p)))
                    .collect::<Vec<_>>()
                    .join(" ");
                (
                    genmc_args.trim().to_string(),
                    cflags,
                    raw_cflags,
                    expected,
                    None,
                )
            };
            for variant in variants(dir) {
                let relative = variant
                    .strip_prefix(tests)
                    .expect("a variant lies under the tests folder")
                    .to_string_lossy()
                    .to_string();
                let test = dir
                    .strip_prefix(tests)
                    .map(|t| t.to_string_lossy().trim_end_matches('/').to_string())
                    .unwrap_or_default();
                if let Some(why) = skipped(&variant, &test, model, &genmc_args, &raw_cflags) {
                    skips.push((why, format!("{relative} {model}")));
                    continue;
                }
                let error = match error {
                    Some(coherence) => {
                        let stem = variant.with_extension("");
                        let trace =
                            PathBuf::from(format!("{}.{model}.{coherence}.trace", stem.display()));
                        trace_error(&trace).unwrap_or_else(|| "an error".to_string())
                    }
                    None => String::new(),
                };
                let count_asked = !VERDICT_ONLY_ROWS
                    .iter()
                    .any(|(v, m, _)| (*v, *m) == (relative.as_str(), *model));
                rows.push(Row {
                    variant: relative,
                    model: model.to_string(),
                    genmc_args: genmc_args.clone(),
                    cflags: cflags.clone(),
                    verdict: if wrong { "error" } else { "ok" }.to_string(),
                    executions: expected,
                    error,
                    compare_count: expected.is_some()
                        && !genmc_args
                            .split_whitespace()
                            .any(|o| VERDICT_ONLY_OPTIONS.contains(&o))
                        && count_asked,
                });
            }
        }
    }
    (rows, skips)
}

#[test]
fn genmc_suite_beyond_the_shared_corpus() {
    let Some(tests) = std::env::var_os("NEMOS_GENMC_TESTS").map(PathBuf::from) else {
        println!("skipping: NEMOS_GENMC_TESTS (GenMC's tests folder) is not set");
        return;
    };
    if !tests.join("correct").is_dir() {
        println!("skipping: no GenMC tests folder at {}", tests.display());
        return;
    }
    let tests = tests.canonicalize().expect("the tests folder has a path");
    let parent = tests.parent().expect("the tests folder has a parent");
    for (folder, why) in LEFT_OUT {
        println!("left out: {folder}: {why}");
    }
    let mut rows = Vec::new();
    let mut skips: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for folder in FOLDERS {
        let (found, skipped) = folder_rows(&tests, folder);
        rows.extend(found);
        for (why, row) in skipped {
            skips.entry(why).or_default().push(row);
        }
    }
    assert!(!rows.is_empty(), "the folders hold C variants");
    for (test, model, why) in GENMC_DOES_NOT_COMPILE {
        assert!(
            skips.get(*why).is_some_and(|rows| rows
                .iter()
                .any(|r| r.starts_with(&format!("{test}/")) && r.ends_with(&format!(" {model}")))),
            "{test} {model} is listed as not compiled by GenMC but no such row was found"
        );
    }
    for (v, m, _) in VERDICT_ONLY_ROWS {
        assert!(
            rows.iter()
                .any(|r| (r.variant.as_str(), r.model.as_str()) == (*v, *m)),
            "{v} {m} is listed as verdict only but no such row was found"
        );
    }
    let outcomes = run_rows(parent, &rows);
    let Tally {
        total,
        disagreements,
        count_differences,
    } = tally(&rows, &outcomes);
    println!("skipped (rows):");
    for (why, rows) in &skips {
        println!("  {:>4}  {why}: {}", rows.len(), rows.join(", "));
    }

    let known = |list: &[(&str, &str, &str)], v: &str, m: &str| {
        list.iter().any(|(kv, km, _)| (*kv, *km) == (v, m))
    };
    let unexpected: Vec<_> = disagreements
        .iter()
        .filter(|(v, m, _)| !known(KNOWN_DISAGREEMENTS, v, m))
        .collect();
    assert!(
        unexpected.is_empty(),
        "verdicts differ from GenMC's: {unexpected:?}"
    );
    let unexpected: Vec<_> = count_differences
        .iter()
        .filter(|(v, m, _, _)| !known(KNOWN_COUNT_DIFFERENCES, v, m))
        .collect();
    assert!(
        unexpected.is_empty(),
        "counts differ from GenMC's: {unexpected:?}"
    );
    for (v, m, _) in KNOWN_DISAGREEMENTS {
        assert!(
            disagreements
                .iter()
                .any(|(dv, dm, _)| (dv.as_str(), dm.as_str()) == (*v, *m)),
            "{v} {m} now agrees with GenMC: take it off KNOWN_DISAGREEMENTS"
        );
    }
    // A row that was not decided this time (a time limit reached on a loaded machine) says
    // nothing about its count: only a decided row with GenMC's count makes an entry stale.
    let decided: Vec<(&str, &str)> = rows
        .iter()
        .zip(&outcomes)
        .filter(|(_, outcome)| matches!(outcome, Outcome::Decided(..)))
        .map(|(row, _)| (row.variant.as_str(), row.model.as_str()))
        .collect();
    for (v, m, _) in KNOWN_COUNT_DIFFERENCES {
        assert!(
            !decided.contains(&(*v, *m))
                || count_differences
                    .iter()
                    .any(|(dv, dm, _, _)| (dv.as_str(), dm.as_str()) == (*v, *m)),
            "{v} {m} now has GenMC's count: take it off KNOWN_COUNT_DIFFERENCES"
        );
    }
    assert!(total.decided > 0, "some rows are decided");
}
