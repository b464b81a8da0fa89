//! What a batch of tests prints around and under their reports: each test's entry in a
//! JSON document, and the summary table.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Palette;
pub use crate::analysis::query::Tally;

/// One test of a batch, as the summary counts it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Entry {
    pub tally: Tally,
    /// The test could not be processed (bad input, an internal error).
    pub failed: bool,
    /// A limit stopped it before any verdict (a timeout, `--max-events`).
    pub limited: bool,
}

/// A test's entry in a batch's JSON document; `result` is its report's JSON, `error` its
/// messages as plain text.
pub fn entry_json(
    path: &str,
    status: &str,
    result: Option<&serde_json::Value>,
    limit: Option<&str>,
    error: &str,
) -> serde_json::Value {
    serde_json::json!({
        "path": path,
        "status": status,
        "result": result,
        "limit": limit,
        "error": (!error.is_empty()).then_some(error),
    })
}

/// A batch's JSON document: each test's entry ([`entry_json`]) and the summary.
pub fn document(tests: Vec<serde_json::Value>, summary: &Summary) -> serde_json::Value {
    serde_json::json!({
        "tests": tests,
        "summary": summary,
    })
}

/// The counts of a batch, under its results.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Summary {
    pub tests: usize,
    /// Tests whose condition some execution satisfies.
    pub reachable: usize,
    /// Tests whose condition no execution satisfies.
    pub unreachable: usize,
    pub racy: usize,
    pub violated: usize,
    pub assertion_failures: usize,
    pub errors: usize,
    pub limits: usize,
    pub wall_seconds: f64,
}

impl Summary {
    /// The counts over the tests of a batch, each given by what it found.
    pub fn of(entries: &[Entry], wall: Duration) -> Summary {
        let count = |f: &dyn Fn(&Entry) -> bool| entries.iter().filter(|e| f(e)).count();
        Summary {
            tests: entries.len(),
            reachable: count(&|e| e.tally.reachable == Some(true)),
            unreachable: count(&|e| e.tally.reachable == Some(false)),
            racy: count(&|e| e.tally.races > 0),
            violated: count(&|e| e.tally.violated),
            assertion_failures: count(&|e| e.tally.assertion_failed),
            errors: count(&|e| e.failed),
            limits: count(&|e| e.limited || e.tally.bound_hit),
            wall_seconds: (wall.as_secs_f64() * 1000.0).round() / 1000.0,
        }
    }

    /// The summary table; with colour, its title bold and each count of a defect, an error
    /// or a limit that is not zero in red (yellow for limits).
    pub fn table(&self, palette: Palette) -> String {
        use prettytable::{format, Table};
        let mut table = Table::new();
        table.set_format(*format::consts::FORMAT_NO_BORDER_LINE_SEPARATOR);
        table.set_titles(prettytable::row![
            "tests",
            "reachable",
            "unreachable",
            "racy",
            "violated",
            "assert failed",
            "errors",
            "limits",
            "wall"
        ]);
        table.add_row(prettytable::row![
            self.tests,
            self.reachable,
            self.unreachable,
            self.racy,
            self.violated,
            self.assertion_failures,
            self.errors,
            self.limits,
            format!("{:.2} s", self.wall_seconds)
        ]);
        let text = table.to_string();
        if !palette.color {
            return text;
        }
        // Styled after layout: prettytable would count escape codes as width.
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        if let Some(title) = lines.first_mut() {
            *title = palette.strong(title);
        }
        if let Some(row) = lines.get_mut(2) {
            let cells: Vec<String> = row
                .split('|')
                .enumerate()
                .map(|(i, cell)| {
                    let value = cell.trim();
                    let paint: Option<fn(Palette, &str) -> String> = match i {
                        3..=6 => Some(Palette::bad),
                        7 => Some(Palette::warn),
                        _ => None,
                    };
                    match paint {
                        Some(paint) if !value.is_empty() && value != "0" => {
                            cell.replacen(value, &paint(palette, value), 1)
                        }
                        _ => cell.to_string(),
                    }
                })
                .collect();
            *row = cells.join("|");
        }
        lines.iter().map(|l| format!("{l}\n")).collect()
    }
}
