//! The README shows real output: every ```console block in README.md holds commands
//! (`$ nemos ARGS`, optionally followed by `# exit N`) each followed by its standard
//! output. Each command is run from the crate root and must print exactly that, exit with
//! that code (0 when none is given), where a line `...` stands for any number of lines, and
//! trailing spaces and a summary's wall time are not compared.

use std::path::Path;

struct Example {
    /// 1-based line of the command in README.md.
    line: usize,
    args: Vec<String>,
    code: i32,
    expected: Vec<String>,
}

fn examples(readme: &str) -> Result<Vec<Example>, String> {
    let mut examples: Vec<Example> = Vec::new();
    let mut in_console = false;
    for (i, line) in readme.lines().enumerate() {
        let trimmed = line.trim_end();
        if !in_console {
            in_console = trimmed == "```console";
            continue;
        }
        if trimmed == "```" {
            in_console = false;
            continue;
        }
        if let Some(command) = trimmed.strip_prefix("$ ") {
            let (command, code) = match command.split_once('#') {
                Some((command, comment)) => {
                    let code = comment
                        .trim()
                        .strip_prefix("exit ")
                        .and_then(|c| c.parse().ok())
                        .ok_or_else(|| format!("line {}: comment is not `# exit N`", i + 1))?;
                    (command, code)
                }
                None => (command, 0),
            };
            if command.contains(['|', '>', '<', '\'', '"', '&', ';']) {
                return Err(format!(
                    "line {}: a console block runs plain nemos commands only",
                    i + 1
                ));
            }
            let mut words = command.split_whitespace().map(str::to_string);
            if words.next().as_deref() != Some("nemos") {
                return Err(format!("line {}: not a nemos command", i + 1));
            }
            examples.push(Example {
                line: i + 1,
                args: words.collect(),
                code,
                expected: Vec::new(),
            });
        } else {
            match examples.last_mut() {
                Some(example) => example.expected.push(trimmed.to_string()),
                None => return Err(format!("line {}: output before any command", i + 1)),
            }
        }
    }
    Ok(examples)
}

/// A batch summary's wall time (`0.56 s`) and JSON's `"wall_seconds": 0.012` vary.
fn normalise(line: &str) -> String {
    let line = line.trim_end();
    if let Some((before, _)) = line.split_once("\"wall_seconds\":") {
        return format!("{before}\"wall_seconds\": <wall>");
    }
    if line.contains('|') && line.ends_with(" s") {
        if let Some((before, _)) = line.rsplit_once('|') {
            return format!("{before}| <wall>");
        }
    }
    line.to_string()
}

/// `expected` matches `actual` line by line, `...` matching any run of lines.
fn matches(expected: &[String], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first.trim() == "..." => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(line, more)| normalise(first) == normalise(line) && matches(rest, more)),
    }
}

#[test]
fn every_console_block_of_the_readme_is_real_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("read README.md");
    let examples = examples(&readme).unwrap_or_else(|e| panic!("README.md: {e}"));
    assert!(
        examples.len() >= 15,
        "only {} commands found",
        examples.len()
    );
    let mut failures = Vec::new();
    for example in &examples {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_nemos"))
            .current_dir(root)
            .env_remove("CLICOLOR_FORCE")
            .args(&example.args)
            .output()
            .expect("nemos runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let actual: Vec<String> = stdout.lines().map(str::to_string).collect();
        let command = format!("nemos {}", example.args.join(" "));
        if output.status.code() != Some(example.code) {
            failures.push(format!(
                "README.md:{}: `{command}` exits with {:?}, the README says {}",
                example.line,
                output.status.code(),
                example.code
            ));
        }
        if !matches(&example.expected, &actual) {
            failures.push(format!(
                "README.md:{}: `{command}` prints\n{stdout}\nwhere the README shows\n{}",
                example.line,
                example.expected.join("\n")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_matcher_needs_every_line_and_skips_only_at_ellipses() {
    let lines = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
    assert!(matches(&lines("a\n...\nd"), &lines("a\nb\nc\nd")));
    assert!(matches(&lines("a\n..."), &lines("a")));
    assert!(!matches(&lines("a\nb"), &lines("a\nc")));
    assert!(!matches(&lines("a"), &lines("a\nb")));
    assert!(matches(
        &lines(" 2     | 0      | 0.00 s"),
        &lines(" 2     | 0      | 1.25 s  ")
    ));
}
