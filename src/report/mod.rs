//! Printing results for people (`text`), for herd's tools (`herd`) and for programs (`json`).
//!
//! Every report has one shape, [`Report`]: text for a palette, a JSON value, herd's layout
//! where herd has one, and a Graphviz picture where the answer has an execution to draw.
//! The report sees programs, events and decoded executions, never solver literals; a format
//! a report cannot print is refused before any work ([`Printed::formats`]), not replaced by
//! another.

pub mod atomicity;
pub mod batch;
pub mod check;
pub mod dot;
pub mod events;
pub mod explain;
pub mod herd_log;
pub mod infer;
pub mod localize;
pub mod namer;
pub mod races;
pub mod shard;
pub mod spec;
pub mod together;
pub mod witness;

use anstyle::{AnsiColor, Style};

use crate::analysis::explain::Explanation;
use crate::analysis::query::{Answer, CheckAnswer, Finding, Query};
use crate::load::Test;
use crate::program::Program;

/// The output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    /// herd7's layout, which its comparison tools read.
    Herd,
    Json,
    /// A Graphviz graph of the answer's execution (`--dot`, `--svg`).
    Dot,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Herd => "herd",
            Format::Json => "json",
            Format::Dot => "dot",
        }
    }
}

/// One report, in every format it has.
pub trait Report {
    /// For people, its verdicts styled by `palette`.
    fn text(&self, palette: Palette) -> String;
    /// For programs.
    fn json(&self) -> serde_json::Value;
    /// herd7's layout, for the reports herd has a counterpart of.
    fn herd(&self) -> Option<String> {
        None
    }
    /// The execution the answer shows as a Graphviz graph, drawn as herd7 draws its; `None`
    /// when there is no execution to draw.
    fn dot(&self) -> Option<String> {
        None
    }
}

/// A report printed in one format.
#[derive(Clone, Debug, PartialEq)]
pub enum Rendered {
    Text(String),
    Json(serde_json::Value),
}

/// `report` in `format`; `None` when the report has no such format (refused up front by
/// [`Printed::formats`], so only a caller that skipped that check sees it).
pub fn render(report: &dyn Report, format: Format, palette: Palette) -> Option<Rendered> {
    match format {
        Format::Text => Some(Rendered::Text(report.text(palette))),
        Format::Herd => report.herd().map(Rendered::Text),
        Format::Json => Some(Rendered::Json(report.json())),
        Format::Dot => report.dot().map(Rendered::Text),
    }
}

/// What a command prints, for checking its format before any work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Printed {
    /// The syntax of a file (`nemos parse`).
    Parse,
    /// The events a test unrolls into (`nemos events`).
    Events,
    /// The answer to a query.
    Answer(Query),
}

impl Printed {
    /// The formats this report has.
    pub fn formats(self) -> &'static [Format] {
        match self {
            Printed::Answer(Query::Check { .. } | Query::Outcomes) => {
                &[Format::Text, Format::Herd, Format::Json]
            }
            // herd7 has no counterpart of the others: it flags races only as a check's
            // flag, and has no syntax or events report.
            _ => &[Format::Text, Format::Json],
        }
    }
}

/// How a test's answer is shown: the options of `check` that shape its text.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shown {
    /// The witness's order matrix.
    pub matrix: bool,
}

/// The report of `answer` to a question about `test`; `model` names the model as the user
/// gave it. `None` for an answer cut by a limit before any verdict: the batch says which.
pub fn answer_report<'a>(
    test: &'a Test,
    answer: &'a Answer,
    model: &'a str,
    shown: Shown,
) -> Option<Box<dyn Report + 'a>> {
    let program = &test.program;
    let events = &test.events;
    Some(match &answer.finding {
        Finding::Limit(_) => return None,
        Finding::Check(found) => Box::new(check::CheckReport {
            picture: answer.picture.drawn(),
            ..check_report(test, answer.query, found, model, shown)
        }),
        Finding::Races(result) => Box::new(races::RacesReport {
            file: &program.source,
            model,
            program,
            events,
            result,
        }),
        Finding::Atomicity(result) => Box::new(atomicity::AtomicityReport {
            file: &program.source,
            program,
            events,
            result,
        }),
        Finding::Explain(explanation) => Box::new(explain::ExplainReport {
            picture: answer.picture.drawn(),
            ..explain_report(test, explanation, model)
        }),
        Finding::Infer(inference) => Box::new(infer::InferReport {
            model,
            program,
            inference,
            unroll: events.unroll,
        }),
        Finding::Spec(result) => Box::new(spec::SpecReport {
            file: &program.source,
            program,
            events,
            model,
            result,
        }),
        Finding::Localize(localization) => Box::new(localize::LocalizeReport {
            picture: answer.picture.drawn(),
            ..localize_report(test, localization, model)
        }),
    })
}

pub(crate) fn check_report<'a>(
    test: &'a Test,
    query: Query,
    found: &'a CheckAnswer,
    model: &'a str,
    shown: Shown,
) -> check::CheckReport<'a> {
    check::CheckReport {
        file: &test.program.source.name,
        model,
        program: &test.program,
        events: &test.events,
        result: &found.result,
        states: found.states.as_deref(),
        states_cut: found.states_cut,
        counts: found.counts,
        matrix: shown.matrix,
        defects: found.defects,
        left_at_bound: found.left_at_bound,
        race: found.race.as_deref(),
        picture: None,
        layout: match query {
            Query::Outcomes => check::Layout::Outcomes,
            Query::Check { certify: true, .. } => check::Layout::Certified,
            _ => check::Layout::Check,
        },
    }
}

fn localize_report<'a>(
    test: &'a Test,
    localization: &'a crate::analysis::localize::Localization,
    model: &'a str,
) -> localize::LocalizeReport<'a> {
    localize::LocalizeReport {
        file: &test.program.source,
        model,
        program: &test.program,
        events: &test.events,
        localization,
        picture: None,
    }
}

fn explain_report<'a>(
    test: &'a Test,
    explanation: &'a Explanation,
    model: &'a str,
) -> explain::ExplainReport<'a> {
    explain::ExplainReport {
        file: &test.program.source.name,
        model,
        program: &test.program,
        events: &test.events,
        explanation,
        picture: None,
    }
}

/// How the text reports mark verdicts: plain, or with ANSI styles for a terminal. The CLI
/// decides which (`--color`); the library never looks at the terminal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Palette {
    pub color: bool,
}

impl Palette {
    pub const PLAIN: Palette = Palette { color: false };
    pub const ANSI: Palette = Palette { color: true };

    /// `text` between the style's escape codes, or `text` alone without colour.
    pub fn paint(self, style: Style, text: &str) -> String {
        if self.color {
            format!("{style}{text}{style:#}")
        } else {
            text.to_string()
        }
    }

    /// What the test asked for holds, no defect: bold green.
    pub fn good(self, text: &str) -> String {
        self.paint(AnsiColor::Green.on_default().bold(), text)
    }

    /// The test's expectation fails, or a defect: bold red.
    pub fn bad(self, text: &str) -> String {
        self.paint(AnsiColor::Red.on_default().bold(), text)
    }

    /// Something left out of the answer (a bound, a flag): yellow.
    pub fn warn(self, text: &str) -> String {
        self.paint(AnsiColor::Yellow.on_default(), text)
    }

    /// A heading: bold.
    pub fn strong(self, text: &str) -> String {
        self.paint(Style::new().bold(), text)
    }
}

/// herd's layout of a state: `0:r0=1; [x]=0;`.
pub fn state_line(program: &Program, values: &[(crate::program::Observable, i32)]) -> String {
    values
        .iter()
        .map(|&(o, v)| format!("{}={};", program.observable_name(o), program.value_text(v)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Source text on one line, as herd prints a condition however the file breaks it.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `P0, line 5: *x = 1;`
pub fn statement_text(
    file: &crate::diagnostics::SourceFile,
    program: &Program,
    statement: &crate::analysis::races::Statement,
) -> String {
    let (line, _) = file.line_col(statement.span.0);
    let text = file.snippet(statement.span());
    let first_line = text.lines().next().unwrap_or("").trim();
    let thread = if statement.thread < program.threads.len() {
        program.thread_name(statement.thread)
    } else {
        "init".to_string()
    };
    format!("{thread}, line {line}: {first_line}")
}

/// [`bound_warning`] as an indented line of a report.
pub fn bound_line(palette: Palette, unroll: u32, consequence: &str) -> String {
    format!("  {}\n", bound_warning(palette, unroll, consequence))
}

/// The warning that executions were cut by the unrolling bound, in yellow.
pub fn bound_warning(palette: Palette, unroll: u32, consequence: &str) -> String {
    palette.warn(&format!(
        "warning: some executions need more than {unroll} loop iterations; {consequence} (raise --unroll)"
    ))
}
