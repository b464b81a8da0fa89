//! Reading herd7's layout back: an expected-results file (herd's `.expected`, a herd log, or
//! the project's `litmus/*.expected`), and comparing an answer with it, as herd's `mcompare7`
//! does: the same final states, the same verdict.

use std::collections::{BTreeMap, BTreeSet};

use super::check::CheckReport;
use super::state_line;
use crate::analysis::query::{Answer, Finding};
use crate::diagnostics::Span;
use crate::diagnostics::{Diagnostic, InputError, SourceFile};
use crate::load::Test;

/// One test's block of a herd log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectedBlock {
    pub name: String,
    /// Each state as a set of `name=value` atoms, so that the order within a line and the
    /// spacing do not matter.
    pub states: BTreeSet<BTreeSet<String>>,
    /// `Ok`, `No` or `Undef`, with herd's `Loop ` prefix when it has one.
    pub verdict: String,
}

/// The blocks of a herd log, by test name.
pub type Expectations = BTreeMap<String, ExpectedBlock>;

/// The blocks of a herd log by test name; every line outside a block (herd's `Time`,
/// `Hash`, comments, other tools' lines) is skipped.
pub fn parse(file: &SourceFile) -> Result<Expectations, InputError> {
    let mut blocks = BTreeMap::new();
    let mut offset = 0;
    let mut lines = file.text.split_inclusive('\n').map(|line| {
        let start = offset;
        offset += line.len();
        (start, line.trim_end())
    });
    while let Some((start, line)) = lines.next() {
        let mut words = line.split_whitespace();
        let (Some("Test"), Some(name)) = (words.next(), words.next()) else {
            continue;
        };
        let located = |at: usize, message: String| {
            InputError::single(file, Diagnostic::new(message, Span::new(at, at + 1)))
        };
        let (at, states_line) = lines
            .next()
            .ok_or_else(|| located(start, format!("test {name}: no `States N` line")))?;
        let count: usize = states_line
            .strip_prefix("States ")
            .and_then(|n| n.trim().parse().ok())
            .ok_or_else(|| located(at, format!("test {name}: expected `States N`")))?;
        let mut states = BTreeSet::new();
        for _ in 0..count {
            let (_, state) = lines
                .next()
                .ok_or_else(|| located(at, format!("test {name}: fewer than {count} states")))?;
            states.insert(state_atoms(state));
        }
        let (at, verdict) = lines
            .next()
            .ok_or_else(|| located(start, format!("test {name}: no verdict line")))?;
        if !matches!(verdict.trim_start_matches("Loop "), "Ok" | "No" | "Undef") {
            return Err(located(
                at,
                format!("test {name}: expected herd's verdict (Ok, No, Undef), found `{verdict}`"),
            ));
        }
        blocks.insert(
            name.to_string(),
            ExpectedBlock {
                name: name.to_string(),
                states,
                verdict: verdict.to_string(),
            },
        );
    }
    Ok(blocks)
}

/// `0:r0=1; [x]=2;` as its atoms.
fn state_atoms(line: &str) -> BTreeSet<String> {
    line.split(';')
        .map(|atom| atom.split_whitespace().collect::<String>())
        .filter(|atom| !atom.is_empty())
        .collect()
}

/// How an answer differs from its expected block, one sentence each; empty when it does not.
/// The answer must have its states enumerated.
pub fn differences(report: &CheckReport, expected: &ExpectedBlock) -> Vec<String> {
    let mut found = Vec::new();
    let actual: BTreeSet<BTreeSet<String>> = report
        .states
        .unwrap_or_default()
        .iter()
        .map(|s| state_atoms(&state_line(report.program, &s.values)))
        .collect();
    let show = |states: &BTreeSet<BTreeSet<String>>| {
        states
            .iter()
            .map(|s| {
                s.iter()
                    .map(|a| format!("{a};"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect::<Vec<_>>()
            .join(" | ")
    };
    let missing: BTreeSet<_> = expected.states.difference(&actual).cloned().collect();
    let extra: BTreeSet<_> = actual.difference(&expected.states).cloned().collect();
    if !missing.is_empty() {
        found.push(format!("expected but not reachable: {}", show(&missing)));
    }
    if !extra.is_empty() {
        found.push(format!("reachable but not expected: {}", show(&extra)));
    }
    let verdict = report.herd_verdict();
    if verdict != expected.verdict {
        found.push(format!("verdict {verdict}, expected {}", expected.verdict));
    }
    found
}

/// What `--expect` found for one answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// The log has no block for the test.
    NoExpectation,
    Same,
    /// How the answer differs, one sentence each.
    Differs(Vec<String>),
}

/// Compare a `check` or `outcomes` answer with its block in `expected`; `None` for an answer
/// that has no states to compare (another query, or one cut by a limit).
pub fn compare(
    test: &Test,
    answer: &Answer,
    model: &str,
    expected: &Expectations,
) -> Option<Comparison> {
    let Finding::Check(found) = &answer.finding else {
        return None;
    };
    found.states.as_ref()?;
    let Some(block) = expected.get(&test.program.name) else {
        return Some(Comparison::NoExpectation);
    };
    let report = super::check_report(test, answer.query, found, model, Default::default());
    let found = differences(&report, block);
    Some(if found.is_empty() {
        Comparison::Same
    } else {
        Comparison::Differs(found)
    })
}
