//! The data structures of `examples/`: every `examples/NAME.litmus` has a row in the table of
//! `examples/README.md`, and the verdicts that row states (`check` and `races`, under `sc` and
//! `rc11`) are the ones the binary gives; every row names a file that exists. A `-weak` file
//! must fail under `rc11` and print its witness (the counterexample's or the failed
//! assertion's events, the racing pair's interleaving). The README and the examples cannot
//! drift apart: change a verdict and this test names the file, the command and the cell.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

/// One command of a row: its column in the table and its arguments.
const COLUMNS: [(&str, &str); 4] = [
    ("sc check", "check --model sc"),
    ("sc races", "races --model sc"),
    ("rc11 check", "check --model rc11"),
    ("rc11 races", "races --model rc11"),
];

/// A verdict cell's word and the exit code it stands for.
fn exit_code_of(cell: &str) -> Option<i32> {
    match cell {
        "holds" | "race-free" => Some(0),
        "fails" | "races" => Some(1),
        _ => None,
    }
}

/// The table rows of `examples/README.md`: example name to its four verdict cells, in the
/// order of `COLUMNS`. A row is one whose first cell is `[NAME](NAME.litmus)`.
fn table(readme: &str) -> Result<BTreeMap<String, Vec<String>>, String> {
    let mut rows = BTreeMap::new();
    for (i, line) in readme.lines().enumerate() {
        let cells: Vec<&str> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        let Some(name) = cells
            .first()
            .and_then(|c| c.strip_prefix('['))
            .and_then(|c| c.split_once("]("))
            .filter(|(name, link)| *link == format!("{name}.litmus)"))
            .map(|(name, _)| name.to_string())
        else {
            continue;
        };
        // example | what it checks | four verdicts | time
        if cells.len() < 2 + COLUMNS.len() {
            return Err(format!(
                "line {}: too few cells in the row of {name}",
                i + 1
            ));
        }
        let verdicts: Vec<String> = cells[2..2 + COLUMNS.len()]
            .iter()
            .map(|c| c.to_string())
            .collect();
        if rows.insert(name.clone(), verdicts).is_some() {
            return Err(format!("line {}: a second row for {name}", i + 1));
        }
    }
    Ok(rows)
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn nemos(args: &str, file: &Path) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_nemos"))
        .current_dir(common::manifest_dir())
        .args(args.split(' '))
        .arg(file)
        .env("NO_COLOR", "1")
        .output()
        .expect("run the nemos binary");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(output.stderr).expect("utf-8 stderr"),
    }
}

/// A witness's event lines: `   12  P1: read x = 0, from init ...`.
fn event_lines(text: &str) -> usize {
    text.lines()
        .filter(|line| {
            let mut words = line.split_whitespace();
            words.next().is_some_and(|n| n.parse::<u32>().is_ok())
                && words
                    .next()
                    .is_some_and(|t| t.starts_with('P') && t.ends_with(':'))
        })
        .count()
}

/// What is wrong with one command's run against its table cell, if anything.
fn judge(name: &str, column: &str, cell: &str, run: &Run) -> Option<String> {
    let Some(want) = exit_code_of(cell) else {
        return Some(format!(
            "{name}, {column}: unknown verdict `{cell}` in the table"
        ));
    };
    if run.code != Some(want) {
        return Some(format!(
            "{name}, {column}: exit code {:?}, the table says `{cell}` (exit {want})\nstdout:\n{}\nstderr:\n{}",
            run.code, run.stdout, run.stderr
        ));
    }
    if want == 1 {
        let marker = if column.ends_with("races") {
            "Race 1 on "
        } else if run.stdout.contains("Assertion fails:") {
            "Assertion fails:"
        } else {
            "Counterexample:"
        };
        let witness = run.stdout.split_once(marker).map(|(_, rest)| rest);
        if witness.is_none_or(|w| event_lines(w) == 0) {
            return Some(format!(
                "{name}, {column}: fails without a witness (no events after `{marker}`)\n{}",
                run.stdout
            ));
        }
    }
    None
}

fn example_files() -> Vec<PathBuf> {
    common::litmus_files(&common::manifest_dir().join("examples"))
}

/// Runs every cell of the table and returns what disagrees, and checks that the table and the
/// files match one to one.
fn check_table() -> Vec<String> {
    let readme = std::fs::read_to_string(common::manifest_dir().join("examples/README.md"))
        .expect("examples/README.md");
    let rows = table(&readme).unwrap_or_else(|e| panic!("examples/README.md: {e}"));
    let files = example_files();
    assert!(files.len() >= 22, "only {} example files", files.len());

    let mut failures = Vec::new();
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_stem().unwrap().to_str().unwrap().to_string())
        .collect();
    for name in rows.keys() {
        if !names.contains(name) {
            failures.push(format!(
                "the table has a row for {name}, but examples/{name}.litmus does not exist"
            ));
        }
    }
    let mut jobs = Vec::new();
    for (file, name) in files.iter().zip(&names) {
        let Some(cells) = rows.get(name) else {
            failures.push(format!(
                "examples/{name}.litmus has no row in examples/README.md"
            ));
            continue;
        };
        if name.ends_with("-weak") && cells[2] != "fails" {
            failures.push(format!(
                "{name}: a weakened example must fail under rc11, the table says `{}`",
                cells[2]
            ));
        }
        for ((column, args), cell) in COLUMNS.iter().zip(cells) {
            jobs.push((name.as_str(), file.as_path(), *column, *args, cell.as_str()));
        }
    }

    // The rc11 runs take most of the time: share them out over the available cores.
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let found: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&(name, file, column, args, cell)) = jobs.get(i) else {
                            break;
                        };
                        out.extend(judge(name, column, cell, &nemos(args, file)));
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    failures.extend(found);
    failures
}

#[test]
fn examples_give_the_verdicts_of_their_readme_table() {
    let failures = check_table();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_table_parser_reads_rows_and_rejects_unknown_verdicts() {
    let rows = table(
        "| example | what | a | b | c | d | t |\n|---|---|---|---|---|---|---|\n\
         | [x](x.litmus) | y | holds | race-free | fails | races | 1 s |\n",
    )
    .unwrap();
    assert_eq!(rows["x"], ["holds", "race-free", "fails", "races"]);
    assert_eq!(exit_code_of("maybe"), None);
    assert!(table("| [x](x.litmus) | y | holds |\n").is_err());
}
