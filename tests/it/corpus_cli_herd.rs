//! The whole corpus as one batch through the command line, as a user would run it:
//! `nemos check ../shared/corpus/{dat3m-c11,herd-c,herd-c11popl15} --model rc11 --format herd
//! --count` (the C corpus; `lkmm/` has tests of its own). herd's layout is
//! parsed block by block, each block is matched to its file (the batch prints in path
//! order; files nemos rejects print no block and are named on stderr), and for every test
//! herd7-expected.json gives a result for under rc11 the `Observation` verdict, the
//! `States` set, the Positive/Negative counts and the `Undef` verdict must be herd's.
//! (`tests/it/corpus_rc11.rs` checks the same through the library.)

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::common;
use common::{c_corpus_files, corpus, manifest_dir, normalise, C_CORPUS_DIRS};

/// One test's block of herd's output.
#[derive(Debug)]
struct Block {
    name: String,
    states: BTreeSet<BTreeSet<String>>,
    /// `Ok`, `No` or `Undef` (after `Loop ` when the unrolling bound was hit).
    verdict: String,
    observation: String,
    counts: (u64, u64),
}

/// Split herd's output into blocks and read each strictly: `Test NAME KIND`, `States N`
/// and N state lines, the verdict, `Witnesses`, `Positive: P Negative: N`, `Flag` lines,
/// `Condition ...`, `Observation NAME WORD P N`.
fn parse_blocks(stdout: &str) -> Result<Vec<Block>, String> {
    let mut blocks = Vec::new();
    let mut lines = stdout.lines().peekable();
    while let Some(first) = lines.next() {
        let mut words = first.split_whitespace();
        let (Some("Test"), Some(name), Some(kind), None) =
            (words.next(), words.next(), words.next(), words.next())
        else {
            return Err(format!("expected `Test NAME KIND`, found {first:?}"));
        };
        let mut next = |what: &str| {
            lines
                .next()
                .ok_or_else(|| format!("{name}: output ends before {what}"))
        };
        let count: usize = next("States")?
            .strip_prefix("States ")
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("{name}: no `States N` line"))?;
        let mut states = BTreeSet::new();
        for _ in 0..count {
            states.insert(normalise(next("a state line")?));
        }
        if states.len() != count {
            return Err(format!("{name}: {count} states announced, some repeated"));
        }
        let verdict = next("the verdict")?.to_string();
        if next("Witnesses")? != "Witnesses" {
            return Err(format!("{name}: no `Witnesses` line"));
        }
        let counts_line = next("the counts")?;
        let witnesses = parse_counts(counts_line)
            .ok_or_else(|| format!("{name}: bad counts line {counts_line:?}"))?;
        // herd's positive witnesses meet the test's expectation: for `~exists`
        // (`Forbidden`), the executions that do not satisfy the condition.
        let counts = if kind == "Forbidden" {
            (witnesses.1, witnesses.0)
        } else {
            witnesses
        };
        let mut line = next("Condition")?;
        while line.starts_with("Flag ") {
            line = next("Condition")?;
        }
        if !line.starts_with("Condition ") {
            return Err(format!("{name}: expected `Condition`, found {line:?}"));
        }
        let observation_line = next("Observation")?;
        let observation: Vec<&str> = observation_line.split_whitespace().collect();
        match observation[..] {
            ["Observation", n, word, p, q]
                if n == name && p == counts.0.to_string() && q == counts.1.to_string() =>
            {
                blocks.push(Block {
                    name: name.to_string(),
                    states,
                    verdict,
                    observation: word.to_string(),
                    counts,
                });
            }
            _ => return Err(format!("{name}: bad Observation line {observation_line:?}")),
        }
        // herd's comments between blocks.
        while lines.peek().is_some_and(|l| l.starts_with("(*")) {
            lines.next();
        }
        // mcompare7 reads a block only up to an empty line.
        if lines.next() != Some("") {
            return Err(format!("{name}: no empty line after the block"));
        }
    }
    Ok(blocks)
}

fn parse_counts(line: &str) -> Option<(u64, u64)> {
    let rest = line.strip_prefix("Positive: ")?;
    let (p, n) = rest.split_once(" Negative: ")?;
    Some((p.parse().ok()?, n.parse().ok()?))
}

/// The test name a file declares (`C NAME` on its first line).
fn declared_name(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("read a corpus file");
    text.split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_string()
}

/// The batch's output, run once for the tests of this file.
struct Batch {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn batch(dir: &Path) -> &'static Batch {
    static BATCH: OnceLock<Batch> = OnceLock::new();
    BATCH.get_or_init(|| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_nemos"))
            .current_dir(manifest_dir())
            .arg("check")
            .args(C_CORPUS_DIRS.map(|sub| format!("../shared/corpus/{sub}")))
            .args(["--model", "rc11", "--format", "herd", "--count"])
            .output()
            .expect("nemos runs");
        assert!(dir.is_dir());
        Batch {
            code: output.status.code(),
            stdout: String::from_utf8(output.stdout).expect("utf-8 stdout"),
            stderr: String::from_utf8(output.stderr).expect("utf-8 stderr"),
        }
    })
}

/// The corpus paths (relative to the corpus, as herd7-expected.json spells them) that the
/// batch named as unreadable on stderr.
fn rejected(stderr: &str, dir: &Path) -> BTreeSet<String> {
    let prefix = "error: ";
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .filter_map(|l| {
            l.split_once("could not be processed: ")
                .map(|(_, list)| list)
        })
        .flat_map(|list| list.split(", "))
        .map(|p| {
            let p = manifest_dir().join(p);
            relative(&p.canonicalize().unwrap_or(p), dir)
        })
        .collect()
}

fn relative(path: &Path, dir: &Path) -> String {
    path.strip_prefix(dir)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Compare the batch's herd output with herd7's verdicts; the number of tests compared and
/// the disagreements.
fn compare(
    dir: &Path,
    stdout: &str,
    rejected: &BTreeSet<String>,
    expected: &serde_json::Value,
) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let blocks = match parse_blocks(stdout) {
        Ok(blocks) => blocks,
        Err(e) => return (0, vec![format!("herd output does not parse: {e}")]),
    };
    let files: Vec<PathBuf> = c_corpus_files(dir)
        .into_iter()
        .filter(|f| !rejected.contains(&relative(f, dir)))
        .collect();
    if files.len() != blocks.len() {
        failures.push(format!(
            "{} blocks printed for {} files that are not rejected",
            blocks.len(),
            files.len()
        ));
        return (0, failures);
    }
    let by_path: BTreeMap<String, &Block> = files
        .iter()
        .zip(&blocks)
        .map(|(f, b)| (relative(f, dir), b))
        .collect();
    for (file, block) in files.iter().zip(&blocks) {
        let name = declared_name(file);
        if block.name != name {
            failures.push(format!(
                "{}: block of test {} where {name} was expected (path order broken?)",
                relative(file, dir),
                block.name
            ));
        }
    }
    let mut checked = 0;
    for (path, verdicts) in expected.as_object().expect("an object of tests") {
        let herd = &verdicts["rc11"];
        if !herd["error"].is_null() {
            continue;
        }
        let Some(block) = by_path.get(path) else {
            failures.push(format!("{path}: herd runs it, nemos printed no block"));
            continue;
        };
        let observation = herd["observation"].as_str().unwrap_or_default();
        if block.observation != observation {
            failures.push(format!(
                "{path}: Observation {}, herd {observation}",
                block.observation
            ));
        }
        let states: BTreeSet<BTreeSet<String>> = herd["states"]
            .as_array()
            .expect("states")
            .iter()
            .map(|s| normalise(s.as_str().unwrap_or_default()))
            .collect();
        if block.states != states {
            failures.push(format!(
                "{path}: States {:?}, herd {states:?}",
                block.states
            ));
        }
        let counts = (
            herd["positive"].as_u64().unwrap_or(u64::MAX),
            herd["negative"].as_u64().unwrap_or(u64::MAX),
        );
        if block.counts != counts {
            failures.push(format!(
                "{path}: counts {:?}, herd {counts:?}",
                block.counts
            ));
        }
        let undef = herd["undef"].as_bool().unwrap_or(false);
        if (block.verdict == "Undef") != undef {
            failures.push(format!(
                "{path}: verdict {}, herd undef {undef}",
                block.verdict
            ));
        }
        checked += 1;
    }
    (checked, failures)
}

fn expected(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("herd7-expected.json")).expect("read");
    serde_json::from_str(&text).expect("herd7-expected.json parses")
}

/// The corpus directory, the batch's output, herd7's results, and the files nemos rejected.
fn corpus_run() -> Option<(PathBuf, &'static Batch, serde_json::Value, BTreeSet<String>)> {
    let dir = corpus()?.canonicalize().expect("the corpus directory");
    let run = batch(&dir);
    let expected = expected(&dir);
    let rejected = rejected(&run.stderr, &dir);
    Some((dir, run, expected, rejected))
}

#[test]
fn the_corpus_batch_prints_herds_verdicts_and_states_under_rc11() {
    let Some((dir, run, expected, rejected)) = corpus_run() else {
        eprintln!("skipping: ../shared/corpus not found");
        return;
    };
    // Exit 2: the files nemos rejects, each one that herd7 cannot run either.
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    for path in &rejected {
        assert!(
            !expected[path]["rc11"]["error"].is_null(),
            "{path} is rejected, but herd7 runs it:\n{}",
            run.stderr
        );
    }
    let (checked, failures) = compare(&dir, &run.stdout, &rejected, &expected);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 190, "only {checked} tests compared");
    eprintln!("{checked} corpus tests: herd's Observation, States, counts and Undef");
}

/// The comparison sees one changed state, a changed verdict, and a shifted block order.
#[test]
fn the_comparison_catches_a_difference() {
    let Some((dir, run, expected, rejected)) = corpus_run() else {
        eprintln!("skipping: ../shared/corpus not found");
        return;
    };

    // The first state of the first block, one value changed.
    let mut lines: Vec<String> = run.stdout.lines().map(str::to_string).collect();
    let state = lines
        .iter()
        .position(|l| l.ends_with(';'))
        .expect("a state line");
    lines[state] = lines[state].replacen("=", "=7", 1);
    let changed = lines.join("\n") + "\n";
    let (_, failures) = compare(&dir, &changed, &rejected, &expected);
    assert!(
        failures.len() == 1 && failures[0].contains("States"),
        "{failures:#?}"
    );

    let changed = run.stdout.replacen(" Sometimes ", " Never ", 1);
    let (_, failures) = compare(&dir, &changed, &rejected, &expected);
    assert!(
        failures.len() == 1 && failures[0].contains("Observation"),
        "{failures:#?}"
    );

    // A file taken for rejected: every later block would be matched to the wrong file.
    let mut more = rejected.clone();
    more.insert("dat3m-c11/auto/a1+Racq+rel.litmus".to_string());
    let (_, failures) = compare(&dir, &run.stdout, &more, &expected);
    assert!(!failures.is_empty());
}
