//! The project's own litmus tests: every `litmus/NAME.litmus` is run with
//! `nemos check litmus/NAME.litmus --format herd` and its stdout must equal
//! `litmus/NAME.expected`, which was written only after the states and verdict were checked
//! by hand against sequential consistency (the reasoning is each test's doc string).
//!
//! `UPDATE_EXPECT=1 cargo test --release --test it litmus_expected` rewrites the expectation files
//! instead of comparing; review the diff before committing it. The files stay plain herd logs,
//! not insta snapshots: `--expect` and herd's own tools (mcompare7) read them as they are, and
//! each is also checked through `--expect` here.
//!
//! The second part pins the Nemos paper's Figures 4 and 5 for `fig1-program2.litmus`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common;

/// Tests whose exit code is not 0, with the code and why.
const EXIT_CODES: &[(&str, i32, &str)] = &[
    (
        "array-index-oob",
        1,
        "an index falls outside its array in some execution",
    ),
    ("assert-fails", 1, "an assertion fails in some execution"),
    (
        "null-deref",
        1,
        "a write goes through a pointer that is still NULL in some execution",
    ),
    (
        "pointer-functions",
        1,
        "the third put reads the pointer past the array's end in some execution",
    ),
    (
        "spin-indexed",
        1,
        "P1's spin loop reads one past b once P2 has swung p",
    ),
    (
        "pointer-walk",
        1,
        "a pointer stepped past its one-cell object is written through in some execution",
    ),
    (
        "deadlock-abba",
        1,
        "the two threads take the two mutexes in opposite orders",
    ),
    (
        "loop-unbounded",
        3,
        "the counting loop needs more than --unroll 2 iterations in some executions",
    ),
];

/// Litmus files that have no `.expected` file on purpose, with the reason.
/// (Empty: every test in `litmus/` is pinned.)
const WITHOUT_EXPECTATION: &[(&str, &str)] = &[];

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn nemos(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nemos"))
        .current_dir(manifest_dir())
        .args(args)
        .output()
        .expect("run the nemos binary")
}

/// The lines that differ, `-` expected and `+` actual, with some context.
fn diff(expected: &str, actual: &str) -> String {
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(3)
        .to_string()
}

#[test]
fn litmus_outputs_match_expectations() {
    let update = std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1");
    let files = common::project_litmus();
    assert!(files.len() >= 20, "only {} litmus files found", files.len());
    let mut failures = Vec::new();
    for path in &files {
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        let rel = format!("litmus/{stem}.litmus");
        let out = nemos(&["check", &rel, "--format", "herd"]);
        let stdout = String::from_utf8(out.stdout).expect("utf-8 stdout");

        let want_code = EXIT_CODES
            .iter()
            .find(|(name, _, _)| *name == stem)
            .map_or(0, |(_, code, _)| *code);
        if out.status.code() != Some(want_code) {
            failures.push(format!(
                "{rel}: exit code {:?}, expected {want_code}\nstderr:\n{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }

        if WITHOUT_EXPECTATION.iter().any(|(name, _)| *name == stem) {
            continue;
        }
        let expected_path = path.with_extension("expected");
        if update {
            std::fs::write(&expected_path, &stdout).expect("write expectation");
            continue;
        }
        match std::fs::read_to_string(&expected_path) {
            Err(_) => failures.push(format!(
                "{rel}: no {} (write it after checking the output by hand, or list the test in WITHOUT_EXPECTATION with a reason)",
                display(&expected_path)
            )),
            Ok(expected) if expected != stdout => failures.push(format!(
                "{rel}: output differs from {} (UPDATE_EXPECT=1 rewrites it)\n--- expected\n+++ actual\n{}",
                display(&expected_path),
                diff(&expected, &stdout)
            )),
            Ok(_) => {
                // The file also works as `--expect` reads it, as a project's CI would use it.
                let expect_path = format!("litmus/{stem}.expected");
                let checked = nemos(&["check", "--expect", &expect_path, &rel]);
                // An expected defect is no failure; a limit hit stays one.
                let want_code = if want_code == 3 { 3 } else { 0 };
                if checked.status.code() != Some(want_code) {
                    failures.push(format!(
                        "{rel}: `--expect {expect_path}` exits {:?}, expected {want_code}\n{}",
                        checked.status.code(),
                        String::from_utf8_lossy(&checked.stderr)
                    ));
                }
            }
        }
    }
    // An expectation without its litmus file is stale.
    for entry in std::fs::read_dir(manifest_dir().join("litmus"))
        .unwrap()
        .flatten()
    {
        let p = entry.path();
        if p.extension().is_some_and(|e| e == "expected") && !p.with_extension("litmus").exists() {
            failures.push(format!("{}: no matching .litmus file", display(&p)));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

fn display(p: &Path) -> String {
    p.strip_prefix(manifest_dir())
        .unwrap_or(p)
        .display()
        .to_string()
}

/// The Nemos paper, Figures 4 and 5: the SC witness of program 2 with r1 = 1, r2 = 0.
#[test]
fn paper_figure5_matrix_and_interleaving() {
    let out = nemos(&["check", "litmus/fig1-program2.litmus", "--matrix"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("interleaving: 1 2 6 7 8 3 4 5"),
        "no paper interleaving in:\n{text}"
    );
    // Figure 5, row by row (0: not before, 1: before, X: either).
    let figure5 = [
        " 1 0 X 1 1 1 1 1 1",
        " 2 X 0 1 1 1 1 1 1",
        " 3 0 0 0 1 1 0 0 0",
        " 4 0 0 0 0 1 0 0 0",
        " 5 0 0 0 0 0 0 0 0",
        " 6 0 0 1 1 1 0 1 1",
        " 7 0 0 1 1 1 0 0 1",
        " 8 0 0 1 1 1 0 0 0",
    ];
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|l| {
            l.split_whitespace()
                .eq("1 2 3 4 5 6 7 8".split_whitespace())
        })
        .unwrap_or_else(|| panic!("no matrix header in:\n{text}"));
    let rows: Vec<Vec<&str>> = lines[header + 1..header + 9]
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    for (row, want) in rows.iter().zip(figure5) {
        let want: Vec<&str> = want.split_whitespace().collect();
        assert_eq!(row, &want, "matrix row differs from Figure 5 in:\n{text}");
    }
}

/// The Nemos paper, Figure 4: the eight events of program 2.
#[test]
fn paper_figure4_events() {
    let out = nemos(&["events", "litmus/fig1-program2.litmus"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    // (id, thread, kind, location or control, value, guard)
    let figure4: [(&str, &str, &str, &str, &str, &str); 8] = [
        ("1", "init", "init", "x", "0", ""),
        ("2", "init", "init", "y", "0", ""),
        ("3", "P0", "rd", "x", "r1", ""),
        ("4", "P0", "ctr", "", "c1 = [r1 > 0]", ""),
        ("5", "P0", "wr", "y", "1", "c1"),
        ("6", "P1", "rd", "y", "r2", ""),
        ("7", "P1", "ctr", "", "c2 = [r2 >= 0]", ""),
        ("8", "P1", "wr", "x", "1", "c2"),
    ];
    let events: Vec<&str> = text
        .lines()
        .filter(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|w| w.parse::<u32>().is_ok())
        })
        .collect();
    assert_eq!(events.len(), 8, "expected 8 events in:\n{text}");
    for (line, (id, thread, kind, loc, value, guard)) in events.iter().zip(figure4) {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            (words[0], words[1], words[3]),
            (id, thread, kind),
            "event row: {line}"
        );
        if !loc.is_empty() {
            assert_eq!(words[4], loc, "location of event {id}: {line}");
        }
        assert!(
            line.contains(value),
            "event {id} should show {value:?}: {line}"
        );
        if guard.is_empty() {
            if kind != "ctr" {
                assert!(
                    !words.contains(&"c1") && !words.contains(&"c2"),
                    "event {id} should be unguarded: {line}"
                );
            }
        } else {
            assert!(
                words.contains(&guard),
                "event {id} should be guarded by {guard}: {line}"
            );
        }
    }
}
