//! Printing results for people (`text`), for herd's tools (`herd`) and for programs (`json`).
//!
//! The report sees programs, events and decoded executions, never solver literals.

pub mod dot;

use std::fmt::Write as _;

use anstyle::{AnsiColor, Style};
use prettytable::{format, Cell, Row, Table};
use serde::Serialize;

use crate::analysis::graph::Overlay;
use crate::analysis::{CheckResult, FinalState, Observation};
use crate::events::display::{EventRow, Namer};
use crate::events::{EventKind, Events};
use crate::program::Program;
use crate::syntax::ast::Quantifier;
use crate::witness::Execution;

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
        .map(|&(o, v)| format!("{}={};", program.observable_name(o), v))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The event table of seed 004's Figure 4.
pub fn events_table(program: &Program, events: &Events) -> String {
    let namer = Namer::new(program, events);
    let mut table = Table::new();
    table.set_format(*format::consts::FORMAT_CLEAN);
    table.set_titles(Row::new(
        [
            "id", "thread", "pos", "kind", "loc", "value", "reg", "guard", "order", "match",
        ]
        .iter()
        .map(|t| Cell::new(t))
        .collect(),
    ));
    for row in namer.rows() {
        table.add_row(Row::new(
            [
                row.id.to_string(),
                row.thread,
                row.position.to_string(),
                row.kind,
                row.location,
                row.value,
                row.register,
                row.guard,
                row.order,
                row.matches,
            ]
            .iter()
            .map(|c| Cell::new(c))
            .collect(),
        ));
    }
    let mut out = format!(
        "Events of {} (unrolled {} times)\n",
        program.name, events.unroll
    );
    out.push_str(&table.to_string());
    if !events.bound_hits.is_empty() {
        let _ = writeln!(
            out,
            "{} loop(s) may run past the unrolling bound; raise it with --unroll",
            events.bound_hits.len()
        );
    }
    out
}

#[derive(Serialize)]
pub struct EventsJson<'a> {
    pub test: &'a str,
    pub unroll: u32,
    pub events: Vec<EventRow>,
}

pub fn events_json<'a>(program: &'a Program, events: &Events) -> EventsJson<'a> {
    EventsJson {
        test: &program.name,
        unroll: events.unroll,
        events: Namer::new(program, events).rows(),
    }
}

/// A witness as lines: the interleaving with what each read returned and from where. An
/// execution of a weak model may have no interleaving at all (`po | rf | co | fr` cyclic):
/// it is then shown thread by thread, with the coherence order of each location.
pub fn witness_text(program: &Program, events: &Events, execution: &Execution) -> String {
    let namer = Namer::new(program, events);
    let mut out = String::new();
    if execution.cyclic {
        out.push_str(
            "  no SC interleaving exists for this execution (po | rf | co | fr is cyclic); its events by thread:\n",
        );
        for &e in &execution.interleaving {
            out.push_str(&event_line(&namer, events, execution, e));
        }
        for (loc, chain) in execution.co.iter().enumerate() {
            if chain.len() < 2 {
                continue;
            }
            let order: Vec<String> = chain.iter().map(|&w| namer.number(w).to_string()).collect();
            let _ = writeln!(
                out,
                "  coherence of {}: {}",
                program.locations[loc].name,
                order.join(" -> ")
            );
        }
        return out;
    }
    let numbers: Vec<String> = execution
        .interleaving
        .iter()
        .map(|&e| namer.number(e).to_string())
        .collect();
    let _ = writeln!(out, "  interleaving: {}", numbers.join(" "));
    for &e in &execution.interleaving {
        out.push_str(&event_line(&namer, events, execution, e));
    }
    out
}

/// One executed event: its label, and what it read (from where) or computed.
fn event_line(
    namer: &Namer,
    events: &Events,
    execution: &Execution,
    e: crate::events::EventId,
) -> String {
    let event = &events.events[e];
    let mut line = format!("  {:>4}  {}", namer.number(e), namer.label(event));
    if event.is_read() {
        if let Some(&(w, _)) = execution.rf.iter().find(|&&(_, r)| r == e) {
            let value = execution.values[e].map_or("?".to_string(), |v| v.to_string());
            let source = &events.events[w];
            let from = if source.kind == EventKind::Init {
                "init".to_string()
            } else {
                format!("{} ({})", namer.number(w), namer.thread_name(source))
            };
            let _ = write!(line, "    reads {value} from {from}");
        }
    } else if matches!(event.kind, EventKind::Write | EventKind::Computation) {
        if let Some(v) = execution.values[e] {
            if event
                .value
                .and_then(|t| events.terms.constant_value(t))
                .is_none()
            {
                let _ = write!(line, "    (= {v})");
            }
        }
    } else if event.kind == EventKind::Control {
        if let Some(v) = execution.values[e] {
            let _ = write!(line, "    ({})", if v != 0 { "taken" } else { "not taken" });
        }
    }
    let mut out = line.trim_end().to_string();
    out.push('\n');
    out
}

/// The paper's Figure 5: `1` where the row event must precede the column event, `0` where it
/// cannot, `X` where this execution allows either.
pub fn matrix_text(program: &Program, events: &Events, execution: &Execution) -> String {
    let namer = Namer::new(program, events);
    let shown: Vec<usize> = (0..events.len())
        .filter(|&e| execution.feasible[e])
        .collect();
    let precedence = execution.precedence(events);
    let width = shown
        .iter()
        .map(|&e| namer.number(e).to_string().len())
        .max()
        .unwrap_or(1)
        + 1;
    let mut out = String::new();
    let _ = write!(out, "{:>width$}", "");
    for &e in &shown {
        let _ = write!(out, "{:>width$}", namer.number(e));
    }
    out.push('\n');
    for &a in &shown {
        let _ = write!(out, "{:>width$}", namer.number(a));
        for &b in &shown {
            let cell = match precedence[a][b] {
                Some(true) => "1",
                Some(false) => "0",
                None => "X",
            };
            let _ = write!(out, "{cell:>width$}");
        }
        out.push('\n');
    }
    out
}

fn quantifier_word(q: Quantifier) -> &'static str {
    match q {
        Quantifier::Exists => "Allowed",
        Quantifier::NotExists => "Forbidden",
        Quantifier::Forall => "Required",
    }
}

fn observation_word(o: Observation) -> &'static str {
    match o {
        Observation::Always => "Always",
        Observation::Sometimes => "Sometimes",
        Observation::Never => "Never",
    }
}

/// What a person reads first: the verdict in words.
pub fn verdict_sentence(result: &CheckResult) -> String {
    verdict_sentence_in(result, Palette::PLAIN)
}

/// The verdict in words, its first word green when the test's expectation holds (herd's
/// `Ok`) and red when it does not (herd's `No`).
pub fn verdict_sentence_in(result: &CheckResult, palette: Palette) -> String {
    let reach = match result.observation {
        Observation::Always => "every execution satisfies the condition",
        Observation::Sometimes => "some executions satisfy the condition and some do not",
        Observation::Never => "no execution satisfies the condition",
    };
    let verdict = match (result.quantifier, result.ok) {
        (Quantifier::Exists, true) => "Allowed",
        (Quantifier::Exists, false) => "Forbidden",
        (Quantifier::NotExists, true) => "Ok (never reached, as required)",
        (Quantifier::NotExists, false) => "No (reachable, but the test forbids it)",
        (Quantifier::Forall, true) => "Ok (always holds, as required)",
        (Quantifier::Forall, false) => "No (fails in some execution)",
    };
    let verdict = if result.ok {
        palette.good(verdict)
    } else {
        palette.bad(verdict)
    };
    format!("{verdict}: {reach}")
}

pub struct CheckReport<'a> {
    pub file: &'a str,
    pub model: &'a str,
    pub program: &'a Program,
    pub events: &'a Events,
    pub result: &'a CheckResult,
    /// Present when the states were enumerated.
    pub states: Option<&'a [FinalState]>,
    /// Present with `--count`.
    pub counts: Option<(u64, u64)>,
    pub matrix: bool,
}

impl CheckReport<'_> {
    fn condition_text(&self) -> String {
        self.program
            .condition
            .as_ref()
            .map_or("exists (true)".to_string(), |c| one_line(&c.text))
    }

    /// The witness worth showing: the one that meets the condition for `exists`, and a
    /// counterexample to the test's expectation otherwise.
    pub fn witness(&self) -> Option<(&'static str, &Execution)> {
        let r = self.result;
        match r.quantifier {
            Quantifier::Exists => r.positive.as_ref().map(|e| ("Witness", e)),
            Quantifier::NotExists => r.positive.as_ref().map(|e| ("Counterexample", e)),
            Quantifier::Forall => match &r.negative {
                Some(e) => Some(("Counterexample", e)),
                None => r.positive.as_ref().map(|e| ("Example", e)),
            },
        }
    }

    /// `execution` as a Graphviz graph: the report's witness, or, when the overlay has a
    /// violation, the execution reaching the forbidden outcome with that check skipped.
    pub fn dot(&self, execution: &Execution, overlay: &Overlay) -> String {
        let what = match (&overlay.violation, self.witness()) {
            (Some(v), _) => format!(
                "the outcome of {} is {}; drawn with --skip {}",
                self.condition_text(),
                dot::violation_caption(v),
                v.check
            ),
            (None, Some((title, _))) => format!("{title} for {}", self.condition_text()),
            (None, None) => format!("Execution for {}", self.condition_text()),
        };
        let caption = format!("{} (model {}): {what}", self.program.name, self.model);
        dot::execution_dot(self.program, self.events, execution, overlay, &caption)
    }

    pub fn text(&self) -> String {
        self.text_in(Palette::PLAIN)
    }

    /// The text report, its verdicts styled by `palette`.
    pub fn text_in(&self, palette: Palette) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Test {} ({}, model {}): {}",
            self.program.name,
            self.file,
            self.model,
            self.condition_text()
        );
        let _ = writeln!(out, "  {}", verdict_sentence_in(self.result, palette));
        let _ = writeln!(
            out,
            "  observation: {}",
            observation_word(self.result.observation)
        );
        if let Some((title, execution)) = self.witness() {
            let _ = writeln!(out, "{}:", palette.strong(title));
            out.push_str(&witness_text(self.program, self.events, execution));
            let _ = writeln!(
                out,
                "  final state: {}",
                state_line(self.program, &execution.final_state)
            );
            if self.matrix && execution.cyclic {
                out.push_str("No order matrix: the execution has no SC interleaving.\n");
            } else if self.matrix {
                out.push_str("Order matrix (1: row before column, 0: not, X: either):\n");
                out.push_str(&matrix_text(self.program, self.events, execution));
            }
        }
        if let Some(states) = self.states {
            let _ = writeln!(out, "States ({}):", states.len());
            for s in states {
                let mark = if s.satisfies {
                    "  <- condition holds"
                } else {
                    ""
                };
                let _ = writeln!(out, "  {}{}", state_line(self.program, &s.values), mark);
            }
        }
        for flag in &self.result.flags {
            let _ = writeln!(
                out,
                "  {}: raised by some execution the model allows",
                palette.warn(&format!("flag {flag}"))
            );
        }
        if let Some(failure) = &self.result.assertion_failure {
            let namer = Namer::new(self.program, self.events);
            let names = namer.labels(&failure.failed_assertions);
            let _ = writeln!(
                out,
                "{} {}",
                palette.bad("Assertion fails:"),
                names.join(", ")
            );
            out.push_str(&witness_text(self.program, self.events, failure));
        }
        if self.result.bound_hit {
            let _ = writeln!(
                out,
                "  {}",
                bound_warning(palette, self.events.unroll, "they are not included")
            );
        }
        out
    }

    pub fn herd(&self) -> String {
        let name = &self.program.name;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Test {} {}",
            name,
            quantifier_word(self.result.quantifier)
        );
        if let Some(states) = self.states {
            let _ = writeln!(out, "States {}", states.len());
            for s in states {
                let _ = writeln!(out, "{}", state_line(self.program, &s.values));
            }
        }
        // herd's verdict for a test whose allowed executions have undefined behaviour.
        let undefined = self.result.flags.iter().any(|f| f == "undefined");
        let verdict = if undefined {
            "Undef"
        } else if self.result.ok {
            "Ok"
        } else {
            "No"
        };
        if self.result.bound_hit {
            let _ = writeln!(out, "Loop {verdict}");
        } else {
            let _ = writeln!(out, "{verdict}");
        }
        let _ = writeln!(out, "Witnesses");
        let (p, n) = match self.counts {
            Some((p, n)) => (p.to_string(), n.to_string()),
            None => ("?".to_string(), "?".to_string()),
        };
        let _ = writeln!(out, "Positive: {p} Negative: {n}");
        if self.result.assertion_failure.is_some() {
            let _ = writeln!(out, "Flag assertion-failure");
        }
        for flag in &self.result.flags {
            let _ = writeln!(out, "Flag {flag}");
        }
        let _ = writeln!(out, "Condition {}", self.condition_text());
        let _ = writeln!(
            out,
            "Observation {} {} {} {}",
            name,
            observation_word(self.result.observation),
            p,
            n
        );
        if self.counts.is_none() {
            let _ = writeln!(
                out,
                "(* execution counts not computed: pass --count for herd's Positive/Negative *)"
            );
        }
        out
    }

    pub fn json(&self) -> CheckJson {
        let namer = Namer::new(self.program, self.events);
        let witness = self.witness().map(|(kind, e)| WitnessJson {
            kind: kind.to_lowercase(),
            interleaving: namer.labels(&e.interleaving),
            event_ids: e.interleaving.iter().map(|&id| namer.number(id)).collect(),
            reads_from: e
                .rf
                .iter()
                .map(|&(w, r)| (namer.number(w), namer.number(r)))
                .collect(),
            final_state: state_line(self.program, &e.final_state),
            sc_interleaving: !e.cyclic,
        });
        CheckJson {
            test: self.program.name.clone(),
            file: self.file.to_string(),
            model: self.model.to_string(),
            condition: self.condition_text(),
            kind: quantifier_word(self.result.quantifier).to_string(),
            verdict: if self.result.ok { "Ok" } else { "No" }.to_string(),
            observation: observation_word(self.result.observation).to_string(),
            states: self.states.map(|s| {
                s.iter()
                    .map(|s| state_line(self.program, &s.values))
                    .collect()
            }),
            positive: self.counts.map(|c| c.0),
            negative: self.counts.map(|c| c.1),
            bound_hit: self.result.bound_hit,
            assertion_fails: self.result.assertion_failure.is_some(),
            flags: self.result.flags.clone(),
            witness,
        }
    }
}

#[derive(Serialize)]
pub struct WitnessJson {
    pub kind: String,
    pub interleaving: Vec<String>,
    pub event_ids: Vec<usize>,
    pub reads_from: Vec<(usize, usize)>,
    pub final_state: String,
    /// `interleaving` is an SC interleaving; false when the execution has none (weak
    /// models), and `interleaving` then lists its events by thread.
    pub sc_interleaving: bool,
}

#[derive(Serialize)]
pub struct CheckJson {
    pub test: String,
    pub file: String,
    pub model: String,
    pub condition: String,
    /// `Allowed` (exists), `Forbidden` (~exists) or `Required` (forall), as herd names them.
    pub kind: String,
    /// herd's `Ok` or `No`.
    pub verdict: String,
    pub observation: String,
    pub states: Option<Vec<String>>,
    pub positive: Option<u64>,
    pub negative: Option<u64>,
    pub bound_hit: bool,
    pub assertion_fails: bool,
    pub flags: Vec<String>,
    pub witness: Option<WitnessJson>,
}

/// Source text on one line, as herd prints a condition however the file breaks it.
fn one_line(text: &str) -> String {
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

/// The interleaving up to the last of `marked`, with `marked` events flagged.
fn witness_prefix(
    program: &Program,
    events: &Events,
    execution: &Execution,
    marked: &[crate::events::EventId],
) -> String {
    let full = witness_text(program, events, execution);
    let last = execution
        .interleaving
        .iter()
        .rposition(|e| marked.contains(e))
        .unwrap_or(execution.interleaving.len().saturating_sub(1));
    let mut out = String::new();
    for (i, line) in full.lines().enumerate() {
        // Line 0 is the interleaving summary; event lines follow in order.
        if i == 0 {
            let _ = writeln!(out, "{line}");
            continue;
        }
        if i - 1 > last {
            break;
        }
        let e = execution.interleaving[i - 1];
        let flag = if marked.contains(&e) { " <==" } else { "" };
        let _ = writeln!(out, "{line}{flag}");
    }
    out
}

pub struct RacesReport<'a> {
    pub file: &'a crate::diagnostics::SourceFile,
    pub model: &'a str,
    pub program: &'a Program,
    pub events: &'a Events,
    pub result: &'a crate::analysis::races::RaceResult,
}

impl RacesReport<'_> {
    pub fn text(&self) -> String {
        self.text_in(Palette::PLAIN)
    }

    /// The text report, its verdict styled by `palette`.
    pub fn text_in(&self, palette: Palette) -> String {
        let mut out = String::new();
        let races = &self.result.races;
        let verdict = if races.is_empty() {
            palette.good("race-free in every execution")
        } else {
            palette.bad(&format!(
                "{} data race{}",
                races.len(),
                if races.len() == 1 { "" } else { "s" }
            ))
        };
        let _ = writeln!(
            out,
            "Test {} ({}, model {}): {verdict}",
            self.program.name, self.file.name, self.model
        );
        for (i, race) in races.iter().enumerate() {
            let _ = writeln!(
                out,
                "{}",
                palette.strong(&format!("Race {} on {}:", i + 1, race.location))
            );
            let _ = writeln!(
                out,
                "  {}",
                statement_text(self.file, self.program, &race.first)
            );
            let _ = writeln!(
                out,
                "  {}",
                statement_text(self.file, self.program, &race.second)
            );
            let _ = writeln!(out, "  neither happens before the other in:");
            let marked = [race.events.0, race.events.1];
            for line in witness_prefix(self.program, self.events, &race.witness, &marked).lines() {
                let _ = writeln!(out, "  {line}");
            }
        }
        if self.result.bound_hit {
            let _ = writeln!(
                out,
                "  {}",
                bound_warning(
                    palette,
                    self.events.unroll,
                    "races beyond the bound are not covered"
                )
            );
        }
        out
    }

    pub fn herd(&self) -> String {
        let mut out = format!("Test {}\n", self.program.name);
        for _ in &self.result.races {
            out.push_str("Flag data-race\n");
        }
        let _ = writeln!(out, "Races {}", self.result.races.len());
        out
    }

    pub fn json(&self) -> serde_json::Value {
        let namer = Namer::new(self.program, self.events);
        let races: Vec<serde_json::Value> = self
            .result
            .races
            .iter()
            .map(|r| {
                serde_json::json!({
                    "location": r.location,
                    "first": statement_text(self.file, self.program, &r.first),
                    "second": statement_text(self.file, self.program, &r.second),
                    "events": [namer.number(r.events.0), namer.number(r.events.1)],
                    "interleaving": namer.labels(&r.witness.interleaving),
                })
            })
            .collect();
        serde_json::json!({
            "test": self.program.name,
            "file": self.file.name,
            "model": self.model,
            "race_free": self.result.races.is_empty(),
            "bound_hit": self.result.bound_hit,
            "races": races,
        })
    }
}

pub struct AtomicityReport<'a> {
    pub file: &'a crate::diagnostics::SourceFile,
    pub program: &'a Program,
    pub events: &'a Events,
    pub result: &'a crate::analysis::atomicity::AtomicityResult,
}

impl AtomicityReport<'_> {
    fn mode(&self) -> &'static str {
        use crate::analysis::atomicity::AtomicityMode;
        match self.result.mode {
            AtomicityMode::Strict => "strict",
            AtomicityMode::Window => "window",
            AtomicityMode::Serial => "serial",
        }
    }

    pub fn text(&self) -> String {
        self.text_in(Palette::PLAIN)
    }

    /// The text report, its verdict styled by `palette`.
    pub fn text_in(&self, palette: Palette) -> String {
        let mut out = String::new();
        let r = self.result;
        let _ = write!(
            out,
            "Test {} ({}, mode {}): ",
            self.program.name,
            self.file.name,
            self.mode()
        );
        if r.blocks == 0 {
            let _ = writeln!(out, "no atomic blocks");
        } else if !r.violated() {
            let _ = writeln!(
                out,
                "{}",
                palette.good("atomic blocks hold in every execution")
            );
        } else {
            let _ = writeln!(out, "{}", palette.bad("atomicity violated"));
        }
        // Intruders of one block shown by one witness are listed together, with the
        // witness once: a reader sees each distinct interleaving a single time.
        let mut groups: Vec<Vec<&crate::analysis::atomicity::Interruption>> = Vec::new();
        for v in &r.interruptions {
            match groups.last_mut() {
                Some(group)
                    if group[0].block == v.block
                        && group[0].witness.interleaving == v.witness.interleaving =>
                {
                    group.push(v)
                }
                _ => groups.push(vec![v]),
            }
        }
        for (i, group) in groups.iter().enumerate() {
            let _ = writeln!(
                out,
                "{} the block at {}",
                palette.strong(&format!("Violation {}:", i + 1)),
                statement_text(self.file, self.program, &group[0].block)
            );
            let mut marked = Vec::new();
            for (j, v) in group.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "  {} {}",
                    if j == 0 {
                        "is interrupted by"
                    } else {
                        "               and"
                    },
                    statement_text(self.file, self.program, &v.intruder)
                );
                marked.extend([v.events.0, v.events.1, v.events.2]);
            }
            for line in
                witness_prefix(self.program, self.events, &group[0].witness, &marked).lines()
            {
                let _ = writeln!(out, "  {line}");
            }
        }
        for (i, s) in r.non_serial_states.iter().enumerate() {
            let _ = writeln!(
                out,
                "{} final state {} is reachable, but not when every atomic block runs uninterrupted:",
                palette.strong(&format!("Violation {}:", i + 1)),
                state_line(self.program, &s.state.values)
            );
            for line in witness_text(self.program, self.events, &s.witness).lines() {
                let _ = writeln!(out, "  {line}");
            }
        }
        if r.bound_hit {
            let _ = writeln!(
                out,
                "  {}",
                bound_warning(palette, self.events.unroll, "they are not covered")
            );
        }
        out
    }

    pub fn json(&self) -> serde_json::Value {
        let namer = Namer::new(self.program, self.events);
        let labels = |w: &Execution| namer.labels(&w.interleaving);
        serde_json::json!({
            "test": self.program.name,
            "file": self.file.name,
            "mode": self.mode(),
            "blocks": self.result.blocks,
            "atomic": !self.result.violated(),
            "bound_hit": self.result.bound_hit,
            "interruptions": self.result.interruptions.iter().map(|v| serde_json::json!({
                "block": statement_text(self.file, self.program, &v.block),
                "intruder": statement_text(self.file, self.program, &v.intruder),
                "interleaving": labels(&v.witness),
            })).collect::<Vec<_>>(),
            "non_serial_states": self.result.non_serial_states.iter().map(|s| serde_json::json!({
                "state": state_line(self.program, &s.state.values),
                "interleaving": labels(&s.witness),
            })).collect::<Vec<_>>(),
        })
    }
}

pub struct ExplainReport<'a> {
    pub file: &'a str,
    pub model: &'a str,
    pub program: &'a Program,
    pub events: &'a Events,
    pub explanation: &'a crate::analysis::explain::Explanation,
}

impl ExplainReport<'_> {
    fn outcome(&self) -> String {
        let text = self
            .program
            .condition
            .as_ref()
            .map_or("true".to_string(), |c| one_line(&c.text));
        if self.explanation.negated_condition {
            format!("a violation of {text}")
        } else {
            text
        }
    }

    pub fn text(&self) -> String {
        self.text_in(Palette::PLAIN)
    }

    /// The text report, its verdict styled by `palette`.
    pub fn text_in(&self, palette: Palette) -> String {
        let x = self.explanation;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Test {} ({}, model {}): outcome {}",
            self.program.name,
            self.file,
            self.model,
            self.outcome()
        );
        if let Some(witness) = &x.allowed {
            let _ = writeln!(
                out,
                "  {} the model's checks do not forbid it",
                palette.good("allowed:")
            );
            let _ = writeln!(out, "{}", palette.strong("Witness:"));
            out.push_str(&witness_text(self.program, self.events, witness));
            let _ = writeln!(
                out,
                "  final state: {}",
                state_line(self.program, &witness.final_state)
            );
            return out;
        }
        if x.core.is_empty() {
            let _ = writeln!(
                out,
                "  forbidden by the program itself: no execution reaches it even with every check skipped"
            );
            return out;
        }
        let _ = writeln!(
            out,
            "  {} {}",
            palette.bad("forbidden by:"),
            x.core.join(", ")
        );
        if x.core.len() > 1 {
            let _ = writeln!(
                out,
                "  (together; no proper subset of these checks forbids it)"
            );
        }
        let namer = Namer::new(self.program, self.events);
        for skipped in &x.without_one {
            let name = &skipped.check;
            match &skipped.witness {
                Some(w) => {
                    let _ = writeln!(out, "With --skip {name} the outcome is reachable:");
                    out.push_str(&witness_text(self.program, self.events, w));
                    let _ = writeln!(
                        out,
                        "  final state: {}",
                        state_line(self.program, &w.final_state)
                    );
                    if let Some(v) = skipped.violation.as_ref().filter(|v| !v.steps.is_empty()) {
                        let shape = if v.is_cycle() { "the cycle" } else { "" };
                        let _ = writeln!(
                            out,
                            "  {name} fails on {shape}{}{}",
                            if shape.is_empty() { "" } else { " " },
                            dot::violation_path(&namer, v)
                        );
                    }
                }
                None => {
                    let _ = writeln!(
                        out,
                        "With --skip {name} alone it is still forbidden (other checks also forbid it)"
                    );
                }
            }
        }
        let sets: Vec<String> = x
            .corrections
            .iter()
            .map(|c| format!("{{{}}}", c.join(", ")))
            .collect();
        let _ = writeln!(
            out,
            "  smallest sets of checks whose removal allows it: {}{}",
            if sets.is_empty() {
                "none".to_string()
            } else {
                sets.join(" ")
            },
            if x.corrections_truncated {
                " (search stopped at 4 checks)"
            } else {
                ""
            }
        );
        out
    }

    /// `execution` as a Graphviz graph: the witness of an allowed outcome, or the execution
    /// reaching it with the overlay's violated check skipped.
    pub fn dot(&self, execution: &Execution, overlay: &Overlay) -> String {
        let what = match &overlay.violation {
            Some(v) => format!(
                "outcome {} is {}; drawn with --skip {}",
                self.outcome(),
                dot::violation_caption(v),
                v.check
            ),
            None => format!("Witness for outcome {}", self.outcome()),
        };
        let caption = format!("{} (model {}): {what}", self.program.name, self.model);
        dot::execution_dot(self.program, self.events, execution, overlay, &caption)
    }

    pub fn json(&self) -> serde_json::Value {
        let namer = Namer::new(self.program, self.events);
        let labels = |w: &Execution| namer.labels(&w.interleaving);
        let x = self.explanation;
        serde_json::json!({
            "test": self.program.name,
            "file": self.file,
            "model": self.model,
            "outcome": self.outcome(),
            "allowed": x.allowed.is_some(),
            "witness": x.allowed.as_ref().map(labels),
            // Without an SC interleaving a witness lists its events by thread.
            "witness_is_sc_interleaving": x.allowed.as_ref().map(|w| !w.cyclic),
            "forbidden_by": x.core,
            "without_one": x.without_one.iter().map(|skipped| {
                let w = &skipped.witness;
                serde_json::json!({
                    "skip": skipped.check,
                    "reachable": w.is_some(),
                    "witness": w.as_ref().map(labels),
                    "witness_is_sc_interleaving": w.as_ref().map(|w| !w.cyclic),
                    "violation": skipped.violation.as_ref().map(|v| serde_json::json!({
                        "relations": v.relations(),
                        "cycle": v.is_cycle(),
                        "steps": v.steps.iter().map(|s| serde_json::json!({
                            "from": namer.number(s.from),
                            "relation": s.relation,
                            "to": namer.number(s.to),
                        })).collect::<Vec<_>>(),
                    })),
                })
            }).collect::<Vec<_>>(),
            "corrections": x.corrections,
            "corrections_truncated": x.corrections_truncated,
        })
    }
}

/// The warning that executions were cut by the unrolling bound, in yellow.
pub fn bound_warning(palette: Palette, unroll: u32, consequence: &str) -> String {
    palette.warn(&format!(
        "warning: some executions need more than {unroll} loop iterations; {consequence} (raise --unroll)"
    ))
}
