//! What the front end made of a file: its syntax (`nemos parse`) and the events it unrolls
//! into (`nemos events`).

use std::fmt::Write as _;

use prettytable::{format, Cell, Row, Table};
use serde::Serialize;

use super::namer::{CallRow, EventRow, Namer};
use super::{Palette, Report};
use crate::diagnostics::SourceFile;
use crate::events::Events;
use crate::program::Program;
use crate::syntax::ast;

/// A value or guard column wider than this is cut: a value computed through a few
/// register-indexed accesses can print as thousands of characters, which no table holds.
const MAX_CELL_CHARS: usize = 80;

/// `text`, cut at [`MAX_CELL_CHARS`] (and `shortened` set) when longer.
fn shorten(text: String, shortened: &mut bool) -> String {
    match text.char_indices().nth(MAX_CELL_CHARS) {
        Some((cut, _)) => {
            *shortened = true;
            format!("{}…", &text[..cut])
        }
        None => text,
    }
}

/// The event table of the Nemos/DefectFinder paper's Figure 4.
pub fn events_table(program: &Program, events: &Events) -> String {
    let namer = Namer::new(program, events);
    // The `call` column only for tests with functions: other tables stay as they were.
    let with_calls = !events.calls.is_empty();
    let mut table = Table::new();
    table.set_format(*format::consts::FORMAT_CLEAN);
    let mut titles = vec![
        "id", "thread", "pos", "kind", "loc", "value", "reg", "guard", "order", "match",
    ];
    if with_calls {
        titles.push("call");
    }
    table.set_titles(Row::new(titles.iter().map(|t| Cell::new(t)).collect()));
    let mut shortened = false;
    for row in namer.rows() {
        let mut cells = vec![
            row.id.to_string(),
            row.thread,
            row.position.to_string(),
            row.kind,
            row.location,
            shorten(row.value, &mut shortened),
            row.register,
            shorten(row.guard, &mut shortened),
            row.order,
            row.matches,
        ];
        if with_calls {
            cells.push(row.call);
        }
        table.add_row(Row::new(cells.iter().map(|c| Cell::new(c)).collect()));
    }
    let mut out = format!(
        "Events of {} (unrolled {} times)\n",
        program.name, events.unroll
    );
    out.push_str(&table.to_string());
    for wait in &events.waits {
        let (loop_span, what) = match &wait.on {
            crate::events::WaitOn::Spin { loop_span, .. } => (
                loop_span,
                "spin loop at line {line} ({thread}): reduced to one iteration, then exit or wait for good",
            ),
            crate::events::WaitOn::Forever { loop_span } => (
                loop_span,
                "loop with no exit at line {line} ({thread}): the thread waits for good there",
            ),
            crate::events::WaitOn::Mutex { .. } => continue,
        };
        let (line, _) = program.source.line_col(loop_span.start);
        let what = what
            .replace("{line}", &line.to_string())
            .replace("{thread}", &program.thread_name(wait.thread));
        let _ = writeln!(out, "{what} (event {})", namer.number(wait.event));
    }
    for (thread, loop_span) in &events.retry_loops {
        let (line, _) = program.source.line_col(loop_span.start);
        let _ = writeln!(
            out,
            "compare-exchange retry loop at line {line} ({}): reduced to its first test, whose exchange succeeds",
            program.thread_name(*thread)
        );
    }
    if with_calls {
        out.push_str("Calls:\n");
        for call in namer.call_rows() {
            let _ = write!(
                out,
                "  {} {}: {}({})",
                call.thread,
                call.call,
                call.function,
                call.arguments.join(", ")
            );
            if let Some(value) = call.returns {
                let _ = write!(out, " returns {}", shorten(value, &mut shortened));
            }
            if let Some(parent) = &call.parent {
                let _ = write!(out, ", called by {parent}");
            }
            let _ = writeln!(out, ", line {}", call.line);
        }
    }
    if !events.bound_hits.is_empty() {
        let _ = writeln!(
            out,
            "{} loop(s) may run past the unrolling bound; raise it with --unroll",
            events.bound_hits.len()
        );
    }
    if shortened {
        let _ = writeln!(
            out,
            "(terms longer than {MAX_CELL_CHARS} characters are cut at `…`; `--format json` has them whole)"
        );
    }
    out
}

#[derive(Serialize)]
pub struct EventsJson<'a> {
    pub test: &'a str,
    pub unroll: u32,
    pub events: Vec<EventRow>,
    /// The calls of functions of the test, in the order they were unrolled.
    pub calls: Vec<CallRow>,
}

pub fn events_json<'a>(program: &'a Program, events: &Events) -> EventsJson<'a> {
    let namer = Namer::new(program, events);
    EventsJson {
        test: &program.name,
        unroll: events.unroll,
        events: namer.rows(),
        calls: namer.call_rows(),
    }
}

/// The events of a test.
pub struct EventsReport<'a> {
    pub program: &'a Program,
    pub events: &'a Events,
}

impl Report for EventsReport<'_> {
    fn text(&self, _palette: Palette) -> String {
        events_table(self.program, self.events)
    }

    fn json(&self) -> serde_json::Value {
        serde_json::to_value(events_json(self.program, self.events))
            .unwrap_or(serde_json::Value::Null)
    }
}

/// A file's syntax: its name, threads and condition.
pub struct ParseReport<'a> {
    pub file: &'a SourceFile,
    pub test: &'a ast::LitmusTest,
}

impl Report for ParseReport<'_> {
    fn text(&self, _palette: Palette) -> String {
        let threads: Vec<String> = self
            .test
            .threads
            .iter()
            .map(|t| t.name.name.clone())
            .collect();
        let condition = self
            .test
            .condition
            .as_ref()
            .map_or(String::new(), |c| self.file.snippet(c.span).to_string());
        format!(
            "{}: test {} with {} thread(s) ({}); condition {}\n",
            self.file.name,
            self.test.name.name,
            threads.len(),
            threads.join(", "),
            condition
        )
    }

    fn json(&self) -> serde_json::Value {
        serde_json::to_value(self.test).unwrap_or(serde_json::Value::Null)
    }
}
