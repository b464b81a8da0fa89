//! The command line as a user meets it: every command in each of its output formats
//! (snapshots of stdout, times masked), the exit codes 0 (no defect), 1 (a defect), 2 (bad
//! input or usage) and 3 (a limit), and colour (`--color`, `NO_COLOR`, `CLICOLOR_FORCE`;
//! never in JSON or herd's layout).
//!
//! `cargo insta review` (or `INSTA_UPDATE=always`) updates the snapshots after a deliberate
//! change of the output; review the diff.

use std::path::Path;

use assert_cmd::Command;

use crate::common;

/// `nemos` run from the crate root with the colour variables of the caller's environment
/// removed, so that only what a test sets counts.
fn nemos() -> Command {
    let mut command = Command::cargo_bin("nemos").expect("the nemos binary is built");
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR");
    command
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str]) -> Run {
    run_with(nemos().args(args))
}

fn run_with(command: &mut Command) -> Run {
    let output = command.output().expect("nemos runs");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(output.stderr).expect("utf-8 stderr"),
    }
}

/// The batch summary's wall time (last cell of the table's data row) and the JSON
/// summary's `wall_seconds` vary from run to run.
fn mask_times(stdout: &str) -> String {
    let mut out = String::new();
    let mut after_rule = false;
    for line in stdout.lines() {
        if after_rule && line.contains('|') {
            let mut cells: Vec<&str> = line.split('|').collect();
            if let Some(last) = cells.last_mut() {
                *last = " <wall>";
            }
            out.push_str(&cells.join("|"));
        } else if line.trim_start().starts_with("\"wall_seconds\":") {
            out.push_str("    \"wall_seconds\": \"<wall>\"");
        } else {
            out.push_str(line);
        }
        after_rule = line.starts_with("-------+");
        out.push('\n');
    }
    out
}

fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout)
        .unwrap_or_else(|e| panic!("not one JSON document ({e}):\n{stdout}"))
}

/// A directory batch: two good tests and one with a syntax error.
fn batch_with_a_bad_file() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in ["SB", "fig1-program2"] {
        std::fs::copy(
            root.join(format!("litmus/{name}.litmus")),
            dir.path().join(format!("{name}.litmus")),
        )
        .expect("copy");
    }
    std::fs::write(
        dir.path().join("bad.litmus"),
        "C bad\n{ x = 0; }\nP0(int* x) {\n  *x = ;\n}\nexists (x=1)\n",
    )
    .expect("write");
    dir
}

const ESC: char = '\u{1b}';

// ---- each command in each format -------------------------------------------------------

#[test]
fn parse_text_and_json() {
    let text = run(&["parse", "litmus/SB.litmus"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    insta::assert_snapshot!("parse_text", text.stdout);
    let out = run(&["parse", "--format", "json", "litmus/SB.litmus"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc = json(&out.stdout);
    assert_eq!(doc["name"]["name"], "SB", "{doc:#}");
    assert_eq!(doc["threads"].as_array().map(Vec::len), Some(2), "{doc:#}");
}

#[test]
fn events_text_and_json() {
    let text = run(&["events", "litmus/SB.litmus"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    insta::assert_snapshot!("events_text", text.stdout);
    let out = run(&["events", "--format", "json", "litmus/SB.litmus"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!("events_json", out.stdout);
}

/// Listing events is bounded as the analyses are: a test past `--max-events` is a limit hit
/// (exit 3), and the unrolling stops there instead of growing with the program.
#[test]
fn events_stop_at_max_events() {
    let out = run(&["events", "--max-events", "3", "litmus/SB.litmus"]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("more than 3 events exceed --max-events 3; no verdict"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("P0"), "no event table: {}", out.stdout);
    let out = run(&["events", "--max-events", "100", "litmus/SB.litmus"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn check_in_each_format() {
    for (format, name) in [
        ("text", "check_text"),
        ("herd", "check_herd"),
        ("json", "check_json"),
    ] {
        let out = run(&["check", "--format", format, "litmus/fig1-program2.litmus"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        insta::assert_snapshot!(name, out.stdout);
    }
}

#[test]
fn outcomes_in_each_format() {
    for (format, name) in [
        ("text", "outcomes_text"),
        ("herd", "outcomes_herd"),
        ("json", "outcomes_json"),
    ] {
        let out = run(&[
            "outcomes",
            "--count",
            "--format",
            format,
            "litmus/SB.litmus",
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        insta::assert_snapshot!(name, out.stdout);
    }
}

#[test]
fn races_in_each_format_exit_1() {
    for (format, name) in [("text", "races_text"), ("json", "races_json")] {
        let out = run(&["races", "--format", format, "litmus/fig1-program2.litmus"]);
        assert_eq!(out.code, 1, "a race is a defect: {}", out.stderr);
        insta::assert_snapshot!(name, out.stdout);
    }
    let clean = run(&["races", "litmus/fig1-program1.litmus"]);
    assert_eq!(clean.code, 0, "{}", clean.stdout);
    assert!(clean.stdout.contains("race-free"), "{}", clean.stdout);
}

#[test]
fn races_first_stops_at_one_and_says_so() {
    let text = run(&["races", "--first", "litmus/fig1-program2.litmus"]);
    assert_eq!(text.code, 1, "{}", text.stdout);
    assert!(text.stdout.contains(": 1 data race\n"), "{}", text.stdout);
    assert!(
        text.stdout
            .contains("first race found; others not searched (--first)"),
        "{}",
        text.stdout
    );
    let out = run(&[
        "races",
        "--first",
        "--format",
        "json",
        "litmus/fig1-program2.litmus",
    ]);
    let value = json(&out.stdout);
    assert_eq!(value["complete"], false);
    assert_eq!(value["races"].as_array().map(Vec::len), Some(1));
    let all = json(&run(&["races", "--format", "json", "litmus/fig1-program2.litmus"]).stdout);
    assert_eq!(all["complete"], true);
    let listed = all["races"].as_array().expect("races");
    assert!(listed.contains(&value["races"][0]), "{value}");
}

#[test]
fn atomicity_text_and_json_exit_1() {
    let text = run(&[
        "atomicity",
        "--mode",
        "serial",
        "litmus/pair-snapshot.litmus",
    ]);
    assert_eq!(text.code, 1, "a violation is a defect: {}", text.stderr);
    insta::assert_snapshot!("atomicity_text", text.stdout);
    let out = run(&[
        "atomicity",
        "--mode",
        "serial",
        "--format",
        "json",
        "litmus/pair-snapshot.litmus",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    insta::assert_snapshot!("atomicity_json", out.stdout);
    let clean = run(&["atomicity", "litmus/fig2-bank-locked.litmus"]);
    assert_eq!(clean.code, 0, "{}", clean.stdout);
}

#[test]
fn spec_text_and_json_exit_1() {
    let text = run(&["spec", "specs/pair-snapshot.litmus"]);
    assert_eq!(
        text.code, 1,
        "a non-linearizable execution is a defect: {}",
        text.stderr
    );
    insta::assert_snapshot!("spec_text", text.stdout);
    let out = run(&["spec", "--format", "json", "specs/pair-snapshot.litmus"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    insta::assert_snapshot!("spec_json", out.stdout);
    let clean = run(&["spec", "specs/pair-snapshot-locked.litmus"]);
    assert_eq!(clean.code, 0, "{}", clean.stdout);
    assert!(clean.stdout.contains("linearizable in every execution"));
    // Issue 38, item 5: under a weak model the headline says which executions were
    // checked (linearizability's real time is SC's), not "every execution".
    let weak = run(&[
        "spec",
        "--model",
        "rc11",
        "specs/pair-snapshot-locked.litmus",
    ]);
    assert_eq!(weak.code, 0, "{}", weak.stdout);
    let headline = weak.stdout.lines().next().unwrap_or_default();
    assert!(
        headline.contains("linearizable in every SC execution (only SC executions are checked"),
        "{headline}"
    );
    // A test without a `spec` block is bad input for this command.
    let none = run(&["spec", "litmus/SB.litmus"]);
    assert_eq!(none.code, 2, "{}", none.stdout);
    assert!(
        none.stderr.contains("has no `spec { }` block"),
        "{}",
        none.stderr
    );
}

#[test]
fn explain_text_and_json() {
    let text = run(&["explain", "litmus/SB.litmus"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    insta::assert_snapshot!("explain_text", text.stdout);
    let out = run(&["explain", "--format", "json", "litmus/SB.litmus"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!("explain_json", out.stdout);
}

#[test]
fn localize_text_json_and_dot() {
    let text = run(&["localize", "litmus/counter-racy.litmus"]);
    assert_eq!(text.code, 1, "{}", text.stderr);
    insta::assert_snapshot!("localize_text", text.stdout);
    let out = run(&["localize", "--format", "json", "litmus/counter-racy.litmus"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    insta::assert_snapshot!("localize_json", out.stdout);
    // Nothing to localize: the outcome is never reached under SC.
    let clean = run(&["localize", "litmus/SB.litmus"]);
    assert_eq!(clean.code, 0, "{}", clean.stderr);
    assert!(clean
        .stdout
        .contains("is never reached: nothing to localize"));
    let dir = tempfile::tempdir().unwrap();
    let dot = dir.path().join("counter.dot");
    let drawn = run(&[
        "localize",
        "--no-repairs",
        "--dot",
        dot.to_str().unwrap(),
        "litmus/counter-racy.litmus",
    ]);
    assert_eq!(drawn.code, 1, "{}", drawn.stderr);
    assert!(!drawn.stdout.contains("verified fixes"));
    let graph = std::fs::read_to_string(&dot).unwrap();
    // The first set's ordering, P0's read before P1's write, in heavy lines.
    assert!(
        graph.contains("e2 -> e5 [label=\"critical\", color=\"darkgreen\", fontcolor=\"darkgreen\", penwidth=3];"),
        "{graph}"
    );
    let bad = run(&["localize", "--format", "herd", "litmus/counter-racy.litmus"]);
    assert_eq!(bad.code, 2);
}

#[test]
fn models_lists_the_shipped_models() {
    let out = run(&["models"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!("models", out.stdout);
    let sc = run(&["models", "sc"]);
    assert_eq!(sc.code, 0);
    assert!(sc.stdout.contains("acyclic"), "{}", sc.stdout);
}

#[test]
fn a_batch_in_text_and_json_with_times_masked() {
    let out = run(&[
        "check",
        "-j",
        "1",
        "litmus/SB.litmus",
        "litmus/fig1-program2.litmus",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!("batch_text", mask_times(&out.stdout));
    let out = run(&[
        "races",
        "--format",
        "json",
        "litmus/fig1-program1.litmus",
        "litmus/fig1-program2.litmus",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    insta::assert_snapshot!("batch_json", mask_times(&out.stdout));
}

// ---- exit codes --------------------------------------------------------------------------

#[test]
fn exit_1_on_a_failed_assertion() {
    let out = run(&["check", "litmus/assert-fails.litmus"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("Assertion fails"), "{}", out.stdout);
}

/// A malformed file in a directory: exit 2, named on stderr, and every other test's
/// result still printed, whatever the command.
#[test]
fn exit_2_on_a_bad_file_in_a_directory_and_the_others_still_print() {
    let dir = batch_with_a_bad_file();
    let races = run_with(nemos().args(["races", "-j", "2"]).arg(dir.path()));
    assert_eq!(
        races.code, 2,
        "bad input outranks the race:\n{}",
        races.stdout
    );
    assert!(races.stdout.contains("Test SB "), "{}", races.stdout);
    assert!(
        races.stdout.contains("Test fig1-program2 ") && races.stdout.contains("2 data races"),
        "{}",
        races.stdout
    );
    assert!(races.stderr.contains("bad.litmus:4:8"), "{}", races.stderr);
    assert!(
        races.stderr.contains("1 input(s) could not be processed"),
        "{}",
        races.stderr
    );

    let herd = run_with(
        nemos()
            .args(["outcomes", "--format", "herd"])
            .arg(dir.path()),
    );
    assert_eq!(herd.code, 2);
    assert_eq!(
        herd.stdout.matches("\nObservation ").count(),
        2,
        "{}",
        herd.stdout
    );

    let json_out = run_with(
        nemos()
            .args(["atomicity", "--format", "json"])
            .arg(dir.path()),
    );
    assert_eq!(json_out.code, 2);
    let doc = json(&json_out.stdout);
    let statuses: Vec<&str> = doc["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| t["status"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(statuses, ["clean", "error", "clean"], "{doc:#}");
}

#[test]
fn exit_2_on_usage_errors() {
    for args in [
        &["frobnicate"][..],
        &["check"],
        &["check", "--no-such-flag", "litmus/SB.litmus"],
        &["check", "--format", "xml", "litmus/SB.litmus"],
        &["--color", "sometimes", "check", "litmus/SB.litmus"],
    ] {
        let out = run(args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{args:?}: {}", out.stdout);
        assert!(out.stderr.contains("error:"), "{args:?}: {}", out.stderr);
    }
    for args in [
        &["check", "no/such/file.litmus"][..],
        &["check", "--model", "nosuchmodel", "litmus/SB.litmus"],
    ] {
        let out = run(args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains("error:"), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn exit_3_on_limits() {
    let events = run(&["outcomes", "--max-events", "3", "litmus/SB.litmus"]);
    assert_eq!(events.code, 3, "{}", events.stdout);
    assert!(
        events
            .stdout
            .contains("litmus/SB.litmus: more than 3 events exceed --max-events 3; no verdict"),
        "{}",
        events.stdout
    );
    let json_out = run(&[
        "races",
        "--max-events",
        "3",
        "--format",
        "json",
        "litmus/SB.litmus",
    ]);
    assert_eq!(json_out.code, 3);
    let doc = json(&json_out.stdout);
    assert_eq!(doc["status"], "limit", "{doc:#}");
    assert_eq!(
        doc["limit"], "more than 3 events exceed --max-events 3",
        "{doc:#}"
    );

    let dir = tempfile::tempdir().expect("a temporary directory");
    let slow = dir.path().join("slow.litmus");
    std::fs::write(&slow, common::slow_program()).expect("write");
    let timeout = run_with(
        nemos()
            .args([
                "check",
                "--unroll",
                "10",
                "--timeout",
                "0.5",
                "--format",
                "json",
            ])
            .arg(&slow),
    );
    assert_eq!(timeout.code, 3, "{}", timeout.stdout);
    let doc = json(&timeout.stdout);
    assert_eq!(doc["status"], "limit", "{doc:#}");
    assert_eq!(doc["limit"], "timeout after 0.5 s", "{doc:#}");

    let bound = run(&["check", "litmus/loop-unbounded.litmus"]);
    assert_eq!(bound.code, 3, "{}", bound.stdout);
    assert!(bound.stdout.contains("raise --unroll"), "{}", bound.stdout);
}

/// A counting loop unrolled ten thousand times has 30005 events; `--max-events` refuses it
/// while unrolling, so the message cannot know the total; it names the loop to bound.
#[test]
fn max_events_refuses_a_test_while_unrolling_it() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let spin = dir.path().join("spin.litmus");
    std::fs::write(&spin, common::SPIN).expect("write");
    let path = spin.display().to_string();
    for unroll in ["10000", "4000000000"] {
        let out = run(&[
            "check",
            "--max-events",
            "1000",
            "--unroll",
            unroll,
            path.as_str(),
        ]);
        assert_eq!(out.code, 3, "{}{}", out.stdout, out.stderr);
        assert_eq!(
            out.stdout,
            format!(
                "{path}: more than 1000 events exceed --max-events 1000, passed while unrolling \
                 the loop at {path}:3:24 (thread P0): bound that loop (--unroll) or raise \
                 --max-events; no verdict\n"
            )
        );
        assert_eq!(out.stderr, "");
    }
    // At the limit the test runs: unrolled 100 times it has 305 events.
    let within = run(&["check", "--max-events", "305", "--unroll", "100", &path]);
    assert_eq!(within.code, 3, "{}", within.stdout);
    assert!(
        within.stdout.contains("raise --unroll"),
        "{}",
        within.stdout
    );
    let over = run(&["check", "--max-events", "304", "--unroll", "100", &path]);
    assert_eq!(
        over.stdout,
        format!("{path}: more than 304 events exceed --max-events 304; no verdict\n")
    );
}

#[test]
fn exit_codes_are_documented_in_help() {
    for args in [
        &["--help"][..],
        &["check", "--help"],
        &["races", "--help"],
        &["parse", "--help"],
    ] {
        let out = run(args);
        assert_eq!(out.code, 0);
        for code in [
            "0 ran and found no defect",
            "1 a defect",
            "2 bad input or usage",
            "3 a limit was hit",
        ] {
            assert!(
                out.stdout.contains(code),
                "{args:?} lacks {code:?}:\n{}",
                out.stdout
            );
        }
    }
}

// ---- colour --------------------------------------------------------------------------------

#[test]
fn text_is_plain_when_piped_and_coloured_with_color_always() {
    let plain = run(&["check", "litmus/SB.litmus", "litmus/fig1-program2.litmus"]);
    assert!(!plain.stdout.contains(ESC), "{}", plain.stdout);
    let coloured = run(&[
        "--color",
        "always",
        "check",
        "litmus/SB.litmus",
        "litmus/fig1-program2.litmus",
    ]);
    assert_eq!(coloured.code, 0);
    // herd's `No` is red, its `Ok` green.
    assert!(
        coloured
            .stdout
            .contains("\u{1b}[1m\u{1b}[31mNo (never reached)\u{1b}[0m"),
        "{:?}",
        coloured.stdout
    );
    assert!(
        coloured
            .stdout
            .contains("\u{1b}[1m\u{1b}[32mOk (reachable)\u{1b}[0m"),
        "{:?}",
        coloured.stdout
    );
    // The global flag also goes after the command; the text is the same once styles are
    // removed.
    let after = run(&["check", "--color", "always", "litmus/SB.litmus"]);
    assert!(after.stdout.contains(ESC));
    let stripped = strip(&after.stdout);
    let never = run(&["check", "--color", "never", "litmus/SB.litmus"]);
    assert_eq!(stripped, never.stdout);

    let races = run(&["races", "--color", "always", "litmus/fig1-program2.litmus"]);
    assert!(
        races
            .stdout
            .contains("\u{1b}[1m\u{1b}[31m2 data races\u{1b}[0m"),
        "{:?}",
        races.stdout
    );
}

/// Escape sequences `ESC [ ... letter` removed.
fn strip(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == ESC {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn no_color_and_clicolor_force_are_honoured() {
    let forced = run_with(
        nemos()
            .env("CLICOLOR_FORCE", "1")
            .args(["check", "litmus/SB.litmus"]),
    );
    assert!(forced.stdout.contains(ESC), "{:?}", forced.stdout);
    let no_color = run_with(
        nemos()
            .env("NO_COLOR", "1")
            .env("CLICOLOR_FORCE", "1")
            .args(["check", "litmus/SB.litmus"]),
    );
    assert!(!no_color.stdout.contains(ESC), "{:?}", no_color.stdout);
    // An explicit flag wins over the environment.
    let always = run_with(nemos().env("NO_COLOR", "1").args([
        "--color",
        "always",
        "check",
        "litmus/SB.litmus",
    ]));
    assert!(always.stdout.contains(ESC), "{:?}", always.stdout);
}

#[test]
fn json_and_herd_are_never_coloured() {
    let dir = batch_with_a_bad_file();
    for command in ["check", "outcomes", "races", "atomicity", "explain"] {
        for format in ["json", "herd"] {
            let out = run_with(
                nemos()
                    .args(["--color", "always", command, "--format", format])
                    .arg(dir.path()),
            );
            assert_eq!(out.code, 2, "{command} {format}: {}", out.stderr);
            assert!(
                !out.stdout.contains(ESC),
                "{command} --format {format}: {:?}",
                out.stdout
            );
        }
    }
    // The batch's `error` texts come from diagnostics that are coloured on stderr: in the
    // JSON document they are plain.
    let out = run_with(
        nemos()
            .args(["--color", "always", "check", "--format", "json"])
            .arg(dir.path()),
    );
    assert!(
        out.stderr.contains(ESC),
        "stderr is coloured: {:?}",
        out.stderr
    );
    let doc = json(&out.stdout);
    let error = doc["tests"][1]["error"].as_str().expect("an error text");
    assert!(error.contains("bad.litmus:4:8: unexpected `;`"), "{error}");
    assert!(!error.contains(ESC), "{error:?}");
}

#[test]
fn errors_and_the_summary_are_coloured() {
    let dir = batch_with_a_bad_file();
    let out = run_with(nemos().args(["--color", "always", "races"]).arg(dir.path()));
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("\u{1b}[1m\u{1b}[31merror:\u{1b}[0m 1 input(s)"),
        "{:?}",
        out.stderr
    );
    // The racy count (SB and fig1-program2) and the error count of the summary are red.
    let row = out
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("-------+"))
        .nth(1)
        .expect("a summary row");
    let red = |count: &str| format!("{ESC}[1m{ESC}[31m{count}{ESC}[0m");
    assert!(
        row.contains(&red("2")) && row.contains(&red("1")),
        "{row:?}"
    );
    let plain = run_with(nemos().args(["--color", "never", "races"]).arg(dir.path()));
    assert!(!plain.stdout.contains(ESC) && !plain.stderr.contains(ESC));
}

#[test]
fn usage_errors_follow_color_too() {
    let always = run(&["--color", "always", "check", "--no-such-flag"]);
    assert_eq!(always.code, 2);
    assert!(always.stderr.contains(ESC), "{:?}", always.stderr);
    let equals = run(&["check", "--color=always", "--no-such-flag"]);
    assert!(equals.stderr.contains(ESC), "{:?}", equals.stderr);
    let never = run_with(nemos().env("CLICOLOR_FORCE", "1").args([
        "--color",
        "never",
        "check",
        "--no-such-flag",
    ]));
    assert_eq!(never.code, 2);
    assert!(!never.stderr.contains(ESC), "{:?}", never.stderr);
}

/// One test that fails to parse still gives a JSON reader a document: its batch entry, the
/// error in plain text.
#[test]
fn one_bad_test_in_json_prints_its_entry() {
    let dir = batch_with_a_bad_file();
    let bad = dir.path().join("bad.litmus");
    for command in ["parse", "events", "check", "races"] {
        let out = run_with(
            nemos()
                .args(["--color", "always", command, "--format", "json"])
                .arg(&bad),
        );
        assert_eq!(out.code, 2, "{command}");
        let doc = json(&out.stdout);
        assert_eq!(doc["status"], "error", "{command}: {doc:#}");
        assert!(doc["result"].is_null(), "{command}: {doc:#}");
        let error = doc["error"].as_str().expect("an error text");
        assert!(error.contains("bad.litmus:4:8"), "{command}: {error}");
        assert!(!error.contains(ESC), "{command}: {error:?}");
        assert!(
            out.stderr.contains("bad.litmus:4:8"),
            "{command}: {}",
            out.stderr
        );
    }
}

/// A format a command has no layout for is refused before any file is read: it used to
/// print text instead.
#[test]
fn a_format_a_command_cannot_print_is_refused() {
    for command in ["parse", "events", "races", "atomicity", "explain", "spec"] {
        let r = run(&[command, "--format", "herd", "litmus/SB.litmus"]);
        assert_eq!(r.code, 2, "{command}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{command}: {}", r.stdout);
        assert!(
            r.stderr
                .contains("cannot print --format herd; it prints text or json"),
            "{command}: {}",
            r.stderr
        );
    }
}

/// `explain --emit` writes the instance of its first solve, as the other queries do.
#[test]
fn explain_writes_its_instance() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let target = dir.path().join("explain.cnf");
    let target_text = target.display().to_string();
    let r = run(&[
        "explain",
        "litmus/SB.litmus",
        "--emit",
        "dimacs",
        &target_text,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(&target).expect("explain wrote the instance");
    assert!(text.contains("query: explain, the first solve"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("p cnf ")), "{text}");
}

/// A test file in a temporary directory.
fn write_test(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write the test");
    path.display().to_string()
}

/// A `~exists` or `forall` that some execution breaks is a defect (exit 1), in every format;
/// an `exists` that no execution reaches is an answer (exit 0).
#[test]
fn a_failed_requirement_exits_1() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let body = "{ x = 0; y = 0; }\nP0 (int* x, int* y) { *x = 1; int r0 = *y; }\n\
                P1 (int* x, int* y) { *y = 1; int r0 = *x; }\n";
    let not_exists = write_test(
        &dir,
        "sb-ne.litmus",
        &format!("C sb-ne\n{body}~exists (0:r0=1 /\\ 1:r0=1)\n"),
    );
    let forall = write_test(
        &dir,
        "sb-fa.litmus",
        &format!("C sb-fa\n{body}forall (0:r0=0 \\/ 1:r0=0)\n"),
    );
    for format in ["text", "herd", "json"] {
        let r = run(&["check", "--format", format, &not_exists]);
        assert_eq!(r.code, 1, "~exists, {format}: {}", r.stdout);
        let r = run(&["check", "--format", format, &forall]);
        assert_eq!(r.code, 1, "forall, {format}: {}", r.stdout);
    }
    let r = run(&["check", &not_exists]);
    assert!(
        r.stdout.contains("No (reachable, but the test forbids it)"),
        "{}",
        r.stdout
    );
    assert_eq!(run(&["check", "litmus/SB.litmus"]).code, 0);
}

/// herd's layout as its tools read it: an empty line after each block, `Positive` counting
/// the executions that meet the expectation (for `~exists`, those outside the condition),
/// locations in brackets on the `Condition` line, counts without `--count`.
#[test]
fn herd_layout_as_mcompare_reads_it() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = write_test(
        &dir,
        "ne.litmus",
        "C ne\n{ x = 0; }\nP0 (int* x) { *x = 1; }\nP1 (int* x) { int r0 = *x; }\n\
         ~exists (x=2 /\\ 1:r0=1)\n",
    );
    let r = run(&["check", "--format", "herd", &path, "litmus/SB.litmus"]);
    let blocks: Vec<&str> = r.stdout.split_terminator("\n\n").collect();
    assert_eq!(blocks.len(), 2, "{:?}", r.stdout);
    assert!(r.stdout.ends_with("\n\n"), "{:?}", r.stdout);
    let ne = blocks[0];
    assert!(ne.contains("\nPositive: 2 Negative: 0\n"), "{ne}");
    assert!(ne.contains("\nObservation ne Never 0 2"), "{ne}");
    assert!(
        ne.contains("\nCondition ~exists ([x]=2 /\\ 1:r0=1)\n"),
        "{ne}"
    );
    assert!(
        blocks[1].contains("\nPositive: 0 Negative: 3\n"),
        "{}",
        blocks[1]
    );
}

/// `--expect` compares with a log in herd's layout: the same states and verdict exit 0, a
/// difference exits 4 and says what differs.
#[test]
fn expect_compares_with_herds_layout() {
    let same = run(&[
        "check",
        "--expect",
        "litmus/SB.expected",
        "litmus/SB.litmus",
    ]);
    assert_eq!(same.code, 0, "{}", same.stderr);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let expected =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/SB.expected"))
            .expect("read SB.expected");
    let changed = write_test(
        &dir,
        "SB.expected",
        &expected
            .replace("\nNo\n", "\nOk\n")
            .replace("0:r0=1; 1:r0=1;", "0:r0=2; 1:r0=1;"),
    );
    let differs = run(&["outcomes", "--expect", &changed, "litmus/SB.litmus"]);
    assert_eq!(differs.code, 4, "{}", differs.stderr);
    assert!(
        differs.stderr.contains("verdict No, expected Ok"),
        "{}",
        differs.stderr
    );
    assert!(
        differs
            .stderr
            .contains("expected but not reachable: 0:r0=2; 1:r0=1;")
            && differs
                .stderr
                .contains("reachable but not expected: 0:r0=1; 1:r0=1;"),
        "{}",
        differs.stderr
    );
    let junk = write_test(&dir, "junk.expected", "nothing here\n");
    assert_eq!(
        run(&["check", "--expect", &junk, "litmus/SB.litmus"]).code,
        2
    );
}

/// When the unrolling bound cuts executions, no verdict claims more than was explored.
#[test]
fn a_cut_answer_says_unknown() {
    for unroll in ["0", "2"] {
        let r = run(&["check", "--unroll", unroll, "litmus/loop-unbounded.litmus"]);
        assert_eq!(r.code, 3, "{}", r.stdout);
        assert!(
            r.stdout
                .contains("Unknown (holds within the unrolling bound only)"),
            "{}",
            r.stdout
        );
        assert!(!r.stdout.contains("Ok ("), "{}", r.stdout);
    }
    let json = json(&run(&["check", "--format", "json", "litmus/loop-unbounded.litmus"]).stdout);
    assert_eq!(json["verdict"], "Unknown");
    assert!(
        json["limit"]
            .as_str()
            .is_some_and(|l| l.contains("--unroll")),
        "{json}"
    );
}

/// `--count` shows its counts in text too.
#[test]
fn count_shows_in_text() {
    let r = run(&["check", "--count", "litmus/SB.litmus"]);
    assert!(
        r.stdout
            .contains("executions: 0 satisfy the condition, 3 do not"),
        "{}",
        r.stdout
    );
}

/// `-` reads a test from standard input; `@FILE` reads herd's index of test files (one per
/// line, `#` comments, names relative to the index).
#[test]
fn stdin_and_index_lists() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/SB.litmus"))
            .expect("read SB.litmus");
    let from_stdin = run_with(nemos().args(["check", "-"]).write_stdin(text));
    assert_eq!(from_stdin.code, 0, "{}", from_stdin.stderr);
    assert!(
        from_stdin.stdout.starts_with("Test SB (<stdin>, model sc)"),
        "{}",
        from_stdin.stdout
    );

    let dir = tempfile::tempdir().expect("a temporary directory");
    let index = write_test(
        &dir,
        "index.txt",
        &format!(
            "# two tests\n{}/litmus/SB.litmus\n\n{}/litmus/MP.litmus  # message passing\n",
            env!("CARGO_MANIFEST_DIR"),
            env!("CARGO_MANIFEST_DIR")
        ),
    );
    let listed = run(&["check", &format!("@{index}")]);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    assert!(
        listed.stdout.contains("Test SB (") && listed.stdout.contains("Test MP ("),
        "{}",
        listed.stdout
    );
    let missing = run(&["check", "@/nonexistent/index"]);
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("cannot read the index"),
        "{}",
        missing.stderr
    );
}

/// `locations [a]` names the whole array: every cell is in the final states, not only the
/// first one.
#[test]
fn locations_of_an_array_show_every_cell() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = write_test(
        &dir,
        "arr.litmus",
        "C arr\n{ int a[3]; }\nP0 (int* a) { a[1] = 1; }\nlocations [a]\nexists (a[1]=1)\n",
    );
    let r = run(&["outcomes", "--format", "herd", &path]);
    assert!(
        r.stdout.contains("\n[a[0]]=0; [a[1]]=1; [a[2]]=0;\n"),
        "{}",
        r.stdout
    );
}

/// herd7 reads test files whatever their encoding: a UTF-8 byte-order mark is skipped, and
/// a file that is not UTF-8 (an `é` saved as Latin-1) is read as Latin-1, from a file or
/// standard input; a diagnostic then counts the Latin-1 byte as one column.
#[test]
fn latin1_and_a_byte_order_mark_are_read() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let body: &[u8] = b"{ x=0; }\nP0(int *x){ *x=1; }\nexists (x=1)\n";
    let latin1 = [b"C lat\n(* caf\xe9 *)\n".as_slice(), body].concat();
    let bom = [b"\xef\xbb\xbfC bom\n".as_slice(), body].concat();
    for (name, bytes) in [("lat", &latin1), ("bom", &bom)] {
        let path = dir.path().join(format!("{name}.litmus"));
        std::fs::write(&path, bytes).expect("write the test");
        let from_file = run(&["check", &path.display().to_string()]);
        assert_eq!(from_file.code, 0, "{name}: {}", from_file.stderr);
        let heading = format!("Test {name} ({}, model sc): exists (x=1)\n", path.display());
        assert!(
            from_file.stdout.starts_with(&heading),
            "{name}: {}",
            from_file.stdout
        );
        let from_stdin = run_with(nemos().args(["check", "-"]).write_stdin(bytes.clone()));
        assert_eq!(from_stdin.code, 0, "{name}: {}", from_stdin.stderr);
        assert!(
            from_stdin
                .stdout
                .starts_with(&format!("Test {name} (<stdin>, model sc): exists (x=1)\n")),
            "{name}: {}",
            from_stdin.stdout
        );
    }
    let bad = dir.path().join("bad.litmus");
    std::fs::write(
        &bad,
        b"C bad\n{ x=0; }\nP0(int *x){ /* caf\xe9 */ *z=2; }\nexists (x=1)\n",
    )
    .expect("write the test");
    let r = run(&["check", "--color", "never", &bad.display().to_string()]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains(&format!("{}:3:25: unknown identifier `z`", bad.display())),
        "{}",
        r.stderr
    );
}

/// A directory without any `*.litmus` is an error (exit 2), not a silent success; the
/// other arguments of the batch still run.
#[test]
fn a_directory_without_tests_is_an_error() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("notes.txt"), "not a test").expect("write a file");
    let shown = dir.path().display().to_string();
    let alone = run(&["check", &shown]);
    assert_eq!(alone.code, 2);
    assert_eq!(alone.stdout, "");
    assert_eq!(
        alone.stderr,
        format!("error: no litmus test (*.litmus) or C program (*.c) found in {shown}\n")
    );
    let with_another = run(&["check", &shown, "litmus/SB.litmus"]);
    assert_eq!(with_another.code, 2);
    assert!(
        with_another
            .stdout
            .starts_with("Test SB (litmus/SB.litmus, model sc)"),
        "{}",
        with_another.stdout
    );
    assert!(
        with_another.stderr.starts_with(&format!(
            "error: no litmus test (*.litmus) or C program (*.c) found in {shown}\n"
        )),
        "{}",
        with_another.stderr
    );
}

/// `-j N` asks for at most N threads: a huge N is capped (at the cores and the tests) and
/// gives the same output as `-j 1`; `-j 0` is refused with a message.
#[test]
fn jobs_are_capped_and_zero_is_refused() {
    let one = run(&["check", "-j", "1", "litmus/"]);
    let many = run(&["check", "-j", "100000", "litmus/"]);
    assert_eq!(many.code, one.code, "{}", many.stderr);
    assert_eq!(mask_times(&many.stdout), mask_times(&one.stdout));
    assert_eq!(many.stderr, one.stderr);
    assert!(one.stdout.matches("\nTest ").count() > 30, "{}", one.stdout);
    let zero = run(&["check", "-j", "0", "litmus/SB.litmus"]);
    assert_eq!(zero.code, 2);
    assert!(
        zero.stderr
            .contains("invalid value '0' for '--jobs <N>': a batch needs at least one thread"),
        "{}",
        zero.stderr
    );
}

/// `infer --write DIR` writes the test with the suggested orders, refuses to overwrite the
/// test itself, and refuses Linux macros, which have no order argument to rewrite.
#[test]
fn infer_writes_the_suggested_orders_beside_never_over_the_test() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out_dir = dir.path().join("out");
    let out_path = out_dir.display().to_string();
    let written = run(&["infer", "--write", &out_path, "litmus/MP-seq_cst.litmus"]);
    assert_eq!(written.code, 0, "{}{}", written.stdout, written.stderr);
    let target = out_dir.join("MP-seq_cst.litmus");
    assert_eq!(written.stderr, format!("wrote {}\n", target.display()));
    let text = std::fs::read_to_string(&target).expect("the written test");
    assert!(text.contains("atomic_store_explicit(flag, 1, memory_order_release);"));
    assert!(text.contains("int r0 = atomic_load_explicit(flag, memory_order_acquire);"));
    assert!(text.contains("atomic_store_explicit(x, 1, memory_order_relaxed);"));

    let original = std::fs::read_to_string("litmus/MP-seq_cst.litmus").expect("read");
    let copy = dir.path().join("MP-seq_cst.litmus");
    std::fs::write(&copy, &original).expect("write");
    let here = dir.path().display().to_string();
    let over = run(&["infer", "--write", &here, &copy.display().to_string()]);
    assert_eq!(over.code, 2, "{}", over.stderr);
    assert!(
        over.stderr.contains("would overwrite the test itself"),
        "{}",
        over.stderr
    );
    assert_eq!(std::fs::read_to_string(&copy).expect("read"), original);

    let linux = dir.path().join("linux.litmus");
    std::fs::write(
        &linux,
        "C MP-linux\n{ x=0; y=0; }\n\
         P0(int *x, int *y) { WRITE_ONCE(*x, 1); WRITE_ONCE(*y, 1); }\n\
         P1(int *x, int *y) { int r0 = READ_ONCE(*y); int r1 = READ_ONCE(*x); }\n\
         exists (1:r0=1 /\\ 1:r1=0)\n",
    )
    .expect("write");
    let refused = run(&["infer", "--write", &out_path, &linux.display().to_string()]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("takes no memory-order argument"),
        "{}",
        refused.stderr
    );
}

/// A deadlock is a defect with a witness: the AB-BA lock order under `check`, `outcomes` and
/// `races` exits 1 and names each blocked thread and what it waits for; a spin loop that
/// can never exit is one too.
#[test]
fn deadlocks_are_reported_with_the_blocked_threads() {
    let check = run(&["check", "litmus/deadlock-abba.litmus"]);
    assert_eq!(check.code, 1, "{}", check.stderr);
    insta::assert_snapshot!("deadlock_check_text", check.stdout);
    for command in ["outcomes", "races"] {
        let out = run(&[command, "--model", "rc11", "litmus/deadlock-abba.litmus"]);
        assert_eq!(out.code, 1, "{command}: {}", out.stdout);
        assert!(
            out.stdout
                .contains("P0 waits for mutex b at line 6, held by P1 since line 12"),
            "{command}: {}",
            out.stdout
        );
    }
    let json = run(&["check", "--format", "json", "litmus/deadlock-abba.litmus"]);
    insta::assert_snapshot!("deadlock_check_json", json.stdout);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let stuck = dir.path().join("stuck.litmus");
    std::fs::write(
        &stuck,
        "C stuck\n{ flag = 0; }\nP0 (atomic_int* flag) {\n  await(atomic_load(flag) == 1);\n}\nP1 (atomic_int* flag) {\n  atomic_store(flag, 2);\n}\nexists (flag = 2)\n",
    )
    .expect("write");
    for unroll in ["1", "50"] {
        let out = run(&["check", "--unroll", unroll, &stuck.display().to_string()]);
        assert_eq!(out.code, 1, "{}", out.stdout);
        assert!(
            out.stdout.contains("P0 waits in the loop at line 4 (`await(atomic_load(flag) == 1)`) for good: flag stays 2"),
            "{}",
            out.stdout
        );
        assert!(!out.stdout.contains("unroll"), "{}", out.stdout);
    }
}

/// A `locations` list may name a register its thread never declares, as herd's tests do
/// (`C-srcu-nest-6`): it is listed with the value every register starts with; a condition
/// that names one is still an error.
#[test]
fn a_listed_register_the_thread_lacks_is_printed_as_zero() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let test = dir.path().join("listed.litmus");
    let text = "C listed\n{ x = 0; }\nP0 (int *x) {\n  int r0 = *x;\n}\n\
                P1 (int *x) {\n  *x = 1;\n}\nlocations [0:r9;]\nexists (0:r0 = 1)\n";
    std::fs::write(&test, text).expect("write");
    let out = run_with(nemos().arg("outcomes").arg(&test));
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(out.stdout.contains("0:r0=1; 0:r9=0;"), "{}", out.stdout);
    std::fs::write(
        &test,
        text.replace("exists (0:r0 = 1)", "exists (0:r9 = 1)"),
    )
    .expect("write");
    let refused = run_with(nemos().arg("check").arg(&test));
    assert_eq!(refused.code, 2, "{}", refused.stdout);
}

/// Issue 38, item 11: a test with assertions and no condition led with a green "exists
/// (true) Ok (reachable)" and a witness before "Assertion fails". Its headline is now its
/// defect; without one it says so, exit 0.
#[test]
fn a_test_without_a_condition_leads_with_its_defect() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let failing = dir.path().join("assert-only.litmus");
    std::fs::write(
        &failing,
        "C assert-only\n{ x = 0; }\nP0 (int *x) {\n  *x = 1;\n}\nP1 (int *x) {\n  int r = *x;\n  assert(r == 1);\n}\n",
    )
    .unwrap();
    let out = run(&["check", failing.to_str().unwrap()]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines[0].ends_with("model sc): no condition"),
        "{}",
        out.stdout
    );
    assert_eq!(lines[1], "  defect: an assertion fails", "{}", out.stdout);
    assert!(
        lines[2].starts_with("Assertion fails: P1, line 8"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("exists (true)"), "{}", out.stdout);
    let clean = dir.path().join("clean.litmus");
    std::fs::write(
        &clean,
        "C clean\n{ x = 0; }\nP0 (int *x) {\n  *x = 1;\n}\nP1 (int *x) {\n  int r = *x;\n  assert(r == 0 || r == 1);\n}\n",
    )
    .unwrap();
    let out = run(&["check", clean.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stdout
            .lines()
            .nth(1)
            .unwrap_or_default()
            .starts_with("  no defect:"),
        "{}",
        out.stdout
    );
}

/// A loop whose trip count is known runs up to 1024 iterations with no `--unroll`; a bound
/// the user raises past that raises the cap too (issue 38 item 6: `--unroll 1000000` on a
/// counted loop of a million increments is stopped by `--max-events` while unrolling, not
/// cut at 1024 iterations with advice to raise `--unroll` that could not help).
#[test]
fn a_raised_unroll_bound_runs_a_counted_loop_past_the_default_cap() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let counted = |n: u32, body: &str| {
        let path = dir.path().join(format!("counted{n}.litmus"));
        let text = format!(
            "C counted\n{{ x = 0; }}\nP0 (atomic_int* x) {{\n  int i;\n  int r = 0;\n  \
             for (i = 0; i < {n}; i++) {{\n    {body}\n  }}\n  atomic_store(x, r);\n}}\n\
             exists (x = {n})\n"
        );
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    };
    // A loop of register arithmetic only runs to its end at any bound (`silent.rs`); one
    // with an event per iteration stops at the cap.
    let silent = counted(1100, "r = r + 1;");
    let ran = run(&["check", &silent]);
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    let long = counted(
        1100,
        "r = r + 1; atomic_thread_fence(memory_order_seq_cst);",
    );
    let cut = run(&["check", &long]);
    assert_eq!(cut.code, 3, "{}", cut.stdout);
    let decided = run(&["check", "--unroll", "1200", &long]);
    assert_eq!(decided.code, 0, "{}", decided.stdout);
    assert!(decided.stdout.contains("Ok"), "{}", decided.stdout);
    let million = counted(1_000_000, "atomic_fetch_add(x, 1);");
    let stopped = run(&["check", "--unroll", "1000000", &million]);
    assert_eq!(stopped.code, 3, "{}", stopped.stdout);
    assert!(
        stopped.stdout.contains("exceed --max-events"),
        "{}",
        stopped.stdout
    );
}
