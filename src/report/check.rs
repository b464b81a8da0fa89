//! The answer to `check` and `outcomes`: the verdict in words, a witness, the final states;
//! and herd's layout of the same.

use std::fmt::Write as _;

use serde::Serialize;

use super::dot;
use super::namer::Namer;
use super::witness::{matrix_text, witness_text};
use super::{bound_line, one_line, state_line, Palette, Report};
use crate::analysis::check_races::CheckRace;
use crate::analysis::graph::Overlay;
use crate::analysis::query::{Defects, LeftAtBound};
use crate::analysis::{CheckResult, FinalState, Observation};
use crate::events::{EventId, Events};
use crate::program::Quantifier;
use crate::program::{Program, StateProp};
use crate::witness::Execution;

pub(crate) fn quantifier_word(q: Quantifier) -> &'static str {
    match q {
        Quantifier::Exists => "Allowed",
        Quantifier::NotExists => "Forbidden",
        Quantifier::Forall => "Required",
    }
}

pub(crate) fn observation_word(o: Observation) -> &'static str {
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

/// The verdict in words: herd's `Ok` (green) when the test's expectation holds, `No` (red)
/// when it does not, and `Unknown` (yellow) when executions cut by the unrolling bound could
/// still change it. It claims nothing about those executions.
pub fn verdict_sentence_in(result: &CheckResult, palette: Palette) -> String {
    let nothing_completes =
        result.bound_hit && result.positive.is_none() && result.negative.is_none();
    let reach = match (result.observation, result.bound_hit) {
        _ if nothing_completes => "no execution completes within the unrolling bound",
        (Observation::Always, false) => "every execution satisfies the condition",
        (Observation::Always, true) => {
            "every execution within the unrolling bound satisfies the condition"
        }
        (Observation::Sometimes, false) => "some executions satisfy the condition and some do not",
        (Observation::Sometimes, true) => {
            "some executions within the unrolling bound satisfy the condition and some do not"
        }
        (Observation::Never, false) => "no execution satisfies the condition",
        (Observation::Never, true) => {
            "no execution within the unrolling bound satisfies the condition"
        }
    };
    if !result.conclusive() {
        let verdict = match result.quantifier {
            Quantifier::Forall => "Unknown (holds within the unrolling bound only)",
            Quantifier::Exists | Quantifier::NotExists => {
                "Unknown (not reached within the unrolling bound)"
            }
        };
        return format!("{}: {reach}", palette.warn(verdict));
    }
    let verdict = match (result.quantifier, result.ok) {
        (Quantifier::Exists, true) => "Ok (reachable)",
        (Quantifier::Exists, false) => "No (never reached)",
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
    /// The enumeration stopped before the last state (values out of thin air).
    pub states_cut: bool,
    /// Present with `--count`.
    pub counts: Option<(u64, u64)>,
    pub matrix: bool,
    pub layout: Layout,
    /// Which findings beside the condition and the assertions are defects.
    pub defects: Defects,
    /// What `--block-at-bound` left out, when it left something out.
    pub left_at_bound: Option<LeftAtBound>,
    /// Under a model that raises no race flag: the racing pair `races`' definition found.
    pub race: Option<&'a CheckRace>,
    /// The execution drawn by the DOT layout ([`Report::dot`]), with the model's relations
    /// over it.
    pub picture: Option<(&'a Execution, &'a Overlay)>,
}

/// Which text a check answer gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// The verdict and a witness (`nemos check`).
    Check,
    /// The same, and which unsatisfiable answers were certified (`check --certify`).
    Certified,
    /// The reachable final states (`nemos outcomes`).
    Outcomes,
}

impl CheckReport<'_> {
    fn condition_text(&self) -> String {
        self.program
            .condition
            .as_ref()
            .map_or("exists (true)".to_string(), |c| one_line(&c.text))
    }

    /// The witness the report shows, and its title.
    pub fn witness(&self) -> Option<(&'static str, &Execution)> {
        self.result
            .shown_witness()
            .map(|(role, execution)| (role.title(), execution))
    }

    /// `execution` as a Graphviz graph: the report's witness, or, when the overlay has a
    /// violation, the execution reaching the forbidden outcome with that check skipped.
    fn draw(&self, execution: &Execution, overlay: &Overlay) -> String {
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

    /// The defects `check` found besides the condition, in words (a flag is no defect of a
    /// litmus test's `check`: it is reported, and the exit code does not count it; a data
    /// race is one of a C program's).
    fn defects(&self) -> Vec<String> {
        let mut defects = Vec::new();
        let memory = self.defects.memory_in(self.result, self.events);
        if let Some(failure) = &self.result.assertion_failure {
            // A library's misuse (`program::checks`) is named as such, a memory defect by
            // its kind (below); the other failed assertions as before.
            let (library, others): (Vec<EventId>, Vec<EventId>) = failure
                .failed_assertions
                .iter()
                .partition(|e| self.events.library_checks.contains_key(e));
            let others: Vec<EventId> = others
                .into_iter()
                .filter(|&e| self.defects.is_own_assertion(e, self.events))
                .collect();
            for e in &library {
                let word = self.events.library_checks[e].defect().to_string();
                if !defects.contains(&word) {
                    defects.push(word);
                }
            }
            if !others.is_empty() {
                let accesses = others
                    .iter()
                    .all(|e| self.events.access_checks.contains_key(e));
                defects.push(if accesses {
                    "an invalid access".to_string()
                } else {
                    "an assertion fails".to_string()
                });
            }
        }
        if self.defects.deadlock && self.result.deadlock.is_some() {
            defects.push("a deadlock".to_string());
        }
        if self.defects.race_in(self.result) {
            defects.push("a data race".to_string());
        }
        defects.extend(memory.iter().map(|k| memory_words(k).to_string()));
        defects
    }

    /// A test without a condition has no outcome to report: its headline is its defects
    /// (the implicit `exists (true)` holds in every execution and says nothing).
    fn conditionless_headline(&self, palette: Palette, out: &mut String) -> bool {
        let _ = writeln!(
            out,
            "Test {} ({}, model {}): no condition",
            self.program.name, self.file, self.model
        );
        let defects = self.defects();
        if defects.is_empty() {
            let _ = writeln!(
                out,
                "  {}: no assertion fails, no access is invalid{}",
                palette.good("no defect"),
                if self.defects.deadlock {
                    ", no thread blocks for good"
                } else {
                    ""
                }
            );
        } else {
            let _ = writeln!(out, "  {}: {}", palette.bad("defect"), defects.join(", "));
        }
        !defects.is_empty()
    }

    fn check_text(&self, palette: Palette) -> String {
        let mut out = String::new();
        if self.program.condition.is_none() && self.states.is_none() {
            let defect = self.conditionless_headline(palette, &mut out);
            out.push_str(&self.counts_line());
            // The defect's own witness follows; with none, an execution as an example.
            if !defect || self.matrix {
                self.witness_block(palette, &mut out);
            }
            out.push_str(&self.defects_text(palette));
            return out;
        }
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
            "  observation: {}{}",
            observation_word(self.result.observation),
            if self.result.bound_hit {
                " (within the unrolling bound)"
            } else {
                ""
            }
        );
        out.push_str(&self.counts_line());
        self.witness_block(palette, &mut out);
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
            out.push_str(&self.states_cut_text(palette));
        }
        out.push_str(&self.defects_text(palette));
        out
    }

    /// The witness the report shows, with its final state (and its order matrix when
    /// asked for).
    fn witness_block(&self, palette: Palette, out: &mut String) {
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
    }

    /// The flags, failed assertions and deadlocks, with their witnesses, and the bound's
    /// warning.
    fn defects_text(&self, palette: Palette) -> String {
        let mut out = String::new();
        for flag in &self.result.flags {
            let _ = writeln!(
                out,
                "  {}: raised by some execution the model allows",
                palette.warn(&format!("flag {flag}"))
            );
        }
        if let (true, Some(found)) = (self.defects.race_in(self.result), self.race) {
            out.push_str(&self.race_text(found, palette));
        } else if self.defects.race_in(self.result) {
            let _ = writeln!(
                out,
                "{} some execution the model allows has a data race (its flag `{}`); `nemos \
                 races` lists the racing pairs, --ignore-races leaves races out",
                palette.bad("Data race:"),
                Defects::RACE_FLAG
            );
        }
        for kind in self.defects.memory_in(self.result, self.events) {
            let _ = writeln!(
                out,
                "{} some execution the model allows has {} (flag `{kind}`)",
                palette.bad("Memory:"),
                memory_words(kind)
            );
            let witness = self.result.memory_witnesses.iter().find(|(n, _)| n == kind);
            if let Some((_, execution)) = witness {
                out.push_str(&witness_text(self.program, self.events, execution));
            }
        }
        out.push_str(&self.assertion_failure_text(palette));
        out.push_str(&self.deadlock_text(palette));
        if self.result.bound_hit {
            out.push_str(&bound_line(
                palette,
                self.events.unroll,
                "they are not included",
            ));
        }
        if let Some(left) = self.left_at_bound {
            let how_many = match left.count {
                Some(1) => "1 execution needs".to_string(),
                Some(n) => format!("{n} executions need"),
                None => "some executions need".to_string(),
            };
            let _ = writeln!(
                out,
                "  {}",
                palette.warn(&format!(
                    "left out: {how_many} more than {} loop iterations (--block-at-bound); \
                     the answer is about the others",
                    self.events.unroll
                ))
            );
        }
        out
    }

    /// herd's verdict line: `Ok`, `No`, or `Undef` for a test whose allowed executions have
    /// undefined behaviour, after `Loop ` when the unrolling bound cut some execution.
    pub fn herd_verdict(&self) -> String {
        let undefined = self.result.flags.iter().any(|f| f == "undefined");
        let verdict = if undefined {
            "Undef"
        } else if self.result.ok {
            "Ok"
        } else {
            "No"
        };
        if self.result.bound_hit {
            format!("Loop {verdict}")
        } else {
            verdict.to_string()
        }
    }

    fn herd_text(&self) -> String {
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
        let _ = writeln!(out, "{}", self.herd_verdict());
        let _ = writeln!(out, "Witnesses");
        let (p, n) = match self.counts {
            Some((p, n)) => (p.to_string(), n.to_string()),
            None => ("?".to_string(), "?".to_string()),
        };
        // herd counts the executions that meet the test's expectation as positive: for
        // `~exists`, those that do not satisfy the condition. `Observation` keeps the
        // counts of the condition itself.
        let (witnesses_p, witnesses_n) = match self.result.quantifier {
            Quantifier::NotExists => (&n, &p),
            Quantifier::Exists | Quantifier::Forall => (&p, &n),
        };
        let _ = writeln!(out, "Positive: {witnesses_p} Negative: {witnesses_n}");
        if self.result.assertion_failure.is_some() {
            let _ = writeln!(out, "Flag assertion-failure");
        }
        if self.result.deadlock.is_some() {
            let _ = writeln!(out, "Flag deadlock");
        }
        for flag in &self.result.flags {
            let _ = writeln!(out, "Flag {}", herd_flag_name(flag));
        }
        let _ = writeln!(
            out,
            "Condition {}",
            herd_condition(self.program, self.result.quantifier)
        );
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
        // herd ends every test's block with an empty line; its comparison tools rely on it.
        out.push('\n');
        out
    }

    pub fn json_document(&self) -> CheckJson {
        let witness = self
            .witness()
            .map(|(kind, e)| WitnessJson::of(self.program, self.events, kind, e));
        CheckJson {
            test: self.program.name.clone(),
            file: self.file.to_string(),
            model: self.model.to_string(),
            condition: self.condition_text(),
            kind: quantifier_word(self.result.quantifier).to_string(),
            verdict: match (self.result.conclusive(), self.result.ok) {
                (false, _) => "Unknown",
                (true, true) => "Ok",
                (true, false) => "No",
            }
            .to_string(),
            limit: if self.result.bound_hit {
                Some(format!(
                    "some executions need more than {} loop iterations (--unroll)",
                    self.events.unroll
                ))
            } else {
                self.states_cut.then(|| {
                    format!(
                        "stopped after {} final states: values out of thin air",
                        crate::analysis::THIN_AIR_STATES
                    )
                })
            },
            observation: observation_word(self.result.observation).to_string(),
            states: self.states.map(|s| {
                s.iter()
                    .map(|s| state_line(self.program, &s.values))
                    .collect()
            }),
            states_cut: self.states_cut,
            positive: self.counts.map(|c| c.0),
            negative: self.counts.map(|c| c.1),
            bound_hit: self.result.bound_hit,
            left_at_bound: self.left_at_bound,
            assertion_fails: self.defects.assertion_in(self.result, self.events),
            defects: self.defects(),
            deadlock: self
                .result
                .deadlock
                .as_ref()
                .map(|e| super::witness::deadlock_json(self.program, self.events, e)),
            flags: self.result.flags.clone(),
            memory_defects: self
                .defects
                .memory_in(self.result, self.events)
                .into_iter()
                .map(str::to_string)
                .collect(),
            race: self
                .race
                .filter(|_| self.defects.race_in(self.result))
                .map(|found| self.race_json(found)),
            witness,
        }
    }

    /// The racing pair found under a model that raises no race flag, and its execution.
    fn race_text(&self, found: &CheckRace, palette: Palette) -> String {
        let race = &found.race;
        let file = &self.program.source;
        let mut out = format!(
            "{} some execution the model allows has a data race on {} (race definition: \
             {}); `nemos races` lists every racing pair, --ignore-races leaves races out\n",
            palette.bad("Data race:"),
            race.location,
            found.definition
        );
        for statement in [&race.first, &race.second] {
            let _ = writeln!(
                out,
                "  {}",
                super::statement_text(file, self.program, statement)
            );
        }
        let _ = writeln!(out, "  neither happens before the other in:");
        let marked = [race.events.0, race.events.1];
        let witness =
            super::witness::witness_prefix(self.program, self.events, &race.witness, &marked);
        for line in witness.lines() {
            let _ = writeln!(out, "  {line}");
        }
        out
    }

    /// The racing pair in JSON, as `races` lists one.
    fn race_json(&self, found: &CheckRace) -> serde_json::Value {
        let race = &found.race;
        let file = &self.program.source;
        let namer = Namer::new(self.program, self.events);
        serde_json::json!({
            "definition": found.definition,
            "location": race.location,
            "first": super::statement_text(file, self.program, &race.first),
            "second": super::statement_text(file, self.program, &race.second),
            "events": [namer.number(race.events.0), namer.number(race.events.1)],
            "interleaving": namer.labels(&race.witness.interleaving),
        })
    }

    /// An execution in which threads are blocked for good: who waits for what, and the
    /// execution.
    fn deadlock_text(&self, palette: Palette) -> String {
        let Some(execution) = &self.result.deadlock else {
            return String::new();
        };
        if !self.defects.deadlock {
            return format!(
                "  {}\n",
                palette.warn(
                    "executions in which a thread blocks for good are left out (--no-liveness)"
                )
            );
        }
        let mut out = format!(
            "{} some execution blocks threads for good (not included above):\n",
            palette.bad("Deadlock:")
        );
        out.push_str(&super::witness::deadlock_text(
            self.program,
            self.events,
            execution,
        ));
        out
    }

    /// The assertions that fail in some execution, where they are, and that execution.
    fn assertion_failure_text(&self, palette: Palette) -> String {
        let Some(failure) = &self.result.assertion_failure else {
            return String::new();
        };
        let source = &self.program.source;
        let places: Vec<String> = failure
            .failed_assertions
            .iter()
            .map(|&e| {
                let event = &self.events.events[e];
                let (line, _) = source.line_col(event.span.start);
                let text = source.snippet(event.span);
                let thread = event
                    .thread
                    .map_or("init".to_string(), |t| self.program.thread_name(t));
                format!(
                    "{thread}, line {line}: {}",
                    text.lines().next().unwrap_or("").trim()
                )
            })
            .collect();
        let all_accesses = failure
            .failed_assertions
            .iter()
            .all(|e| self.events.access_checks.contains_key(e));
        let library: Vec<_> = failure
            .failed_assertions
            .iter()
            .filter_map(|e| self.events.library_checks.get(e))
            .collect();
        let heading = if let Some(kind) = library.first().filter(|k| {
            library.len() == failure.failed_assertions.len() && library.iter().all(|l| l == *k)
        }) {
            kind.heading()
        } else if all_accesses {
            "Invalid access:"
        } else {
            "Assertion fails:"
        };
        let mut out = format!("{} {}\n", palette.bad(heading), places.join("; "));
        out.push_str(&witness_text(self.program, self.events, failure));
        out
    }

    /// `--count`'s answer: executions, not final states.
    fn counts_line(&self) -> String {
        match self.counts {
            Some((p, n)) => format!(
                "  executions: {p} satisfy the condition, {n} do not (distinct rf and co)\n"
            ),
            None => String::new(),
        }
    }

    /// Why the list of states is not the whole set, when it is not.
    fn states_cut_text(&self, palette: Palette) -> String {
        if !self.states_cut {
            return String::new();
        }
        format!(
            "  {}\n",
            palette.warn(&format!(
                "stopped after {} states: the model allows values out of thin air (a cycle of po | rf may justify any value), so more exist",
                crate::analysis::THIN_AIR_STATES
            ))
        )
    }

    /// The reachable final states, each marked where the condition holds.
    fn outcomes_text(&self, palette: Palette) -> String {
        let states = self.states.unwrap_or_default();
        let mut out = format!(
            "Test {} ({}, model {}): {} reachable final state{}{}\n",
            self.program.name,
            self.file,
            self.model,
            states.len(),
            if states.len() == 1 { "" } else { "s" },
            if self.states_cut { ", and more" } else { "" }
        );
        for s in states {
            let mark = if s.satisfies {
                "  <- condition holds"
            } else {
                ""
            };
            out.push_str(&format!(
                "  {}{}\n",
                state_line(self.program, &s.values),
                mark
            ));
        }
        out.push_str(&self.states_cut_text(palette));
        out.push_str(&self.counts_line());
        out.push_str(&self.assertion_failure_text(palette));
        out.push_str(&self.deadlock_text(palette));
        for flag in &self.result.flags {
            out.push_str(&format!(
                "  {}: raised by some execution the model allows\n",
                palette.warn(&format!("flag {flag}"))
            ));
        }
        if self.result.bound_hit {
            out.push_str(&bound_line(
                palette,
                self.events.unroll,
                "they are not included",
            ));
        }
        out
    }
}

/// herd's name for a flag the model raises: its `*undef*` for the undefined behaviour that
/// the C11 models flag as `undefined`.
pub(crate) fn herd_flag_name(flag: &str) -> &str {
    if flag == "undefined" {
        "*undef*"
    } else {
        flag
    }
}

/// The final condition as herd prints it: `exists ([x]=1 /\ 0:r0=0)`, locations in brackets,
/// parentheses only where an operator sits under a different one.
pub fn herd_condition(program: &Program, quantifier: Quantifier) -> String {
    let prop = program
        .condition
        .as_ref()
        .map_or(String::from("true"), |c| herd_prop(program, &c.prop, None));
    let word = match quantifier {
        Quantifier::Exists => "exists",
        Quantifier::NotExists => "~exists",
        Quantifier::Forall => "forall",
    };
    format!("{word} ({prop})")
}

/// `above` is the operator the proposition sits under, if any.
fn herd_prop(program: &Program, prop: &StateProp, above: Option<&str>) -> String {
    let operator = |op: &str, a: &StateProp, b: &StateProp| {
        let text = format!(
            "{}{op}{}",
            herd_prop(program, a, Some(op)),
            herd_prop(program, b, Some(op))
        );
        match above {
            Some(outer) if outer != op => format!("({text})"),
            _ => text,
        }
    };
    match prop {
        StateProp::Const(true) => "true".to_string(),
        StateProp::Const(false) => "false".to_string(),
        StateProp::Atom {
            var,
            value,
            negated: false,
        } => format!(
            "{}={}",
            program.observable_name(*var),
            program.value_text(*value)
        ),
        StateProp::Atom {
            var,
            value,
            negated: true,
        } => format!(
            "not ({}={})",
            program.observable_name(*var),
            program.value_text(*value)
        ),
        StateProp::Equal { a, b, negated } => {
            let equal = format!(
                "{}={}",
                program.observable_name(*a),
                program.observable_name(*b)
            );
            if *negated {
                format!("not ({equal})")
            } else {
                equal
            }
        }
        StateProp::Not(p) => format!("not ({})", herd_prop(program, p, None)),
        StateProp::And(a, b) => operator(" /\\ ", a, b),
        StateProp::Or(a, b) => operator(" \\/ ", a, b),
        StateProp::Implies(a, b) => operator(" => ", a, b),
    }
}

impl Report for CheckReport<'_> {
    fn dot(&self) -> Option<String> {
        self.picture
            .map(|(execution, overlay)| self.draw(execution, overlay))
    }

    fn text(&self, palette: Palette) -> String {
        match self.layout {
            Layout::Check => self.check_text(palette),
            Layout::Certified => self.check_text(palette) + &certified_text(self.result),
            Layout::Outcomes => self.outcomes_text(palette),
        }
    }

    fn json(&self) -> serde_json::Value {
        serde_json::to_value(self.json_document()).unwrap_or(serde_json::Value::Null)
    }

    fn herd(&self) -> Option<String> {
        Some(self.herd_text())
    }
}

/// What `--certify` established: each side of the condition that no execution reaches was
/// answered unsatisfiable by a solver that checked its own proof.
fn certified_text(result: &CheckResult) -> String {
    let mut out = String::new();
    if result.positive.is_none() {
        out.push_str("  certified: no execution satisfies the condition (solver proof checked)\n");
    }
    if result.negative.is_none() {
        out.push_str("  certified: no execution falsifies the condition (solver proof checked)\n");
    }
    out
}

#[derive(Serialize)]
pub struct WitnessJson {
    pub kind: String,
    pub interleaving: Vec<String>,
    pub event_ids: Vec<usize>,
    pub reads_from: Vec<(usize, usize)>,
    /// Each observed register (`0:r0`) and location (`[x]`) with its final value.
    pub final_state: std::collections::BTreeMap<String, i32>,
    /// Each location's writes (event numbers, the initial write first) in coherence order:
    /// under a weak model, what the interleaving cannot show.
    pub coherence: std::collections::BTreeMap<String, Vec<usize>>,
    /// `interleaving` is an SC interleaving; false when the execution has none (weak
    /// models), and `interleaving` then lists its events by thread.
    pub sc_interleaving: bool,
    /// The calls of functions of the test this execution makes.
    pub calls: Vec<super::witness::ExecutedCall>,
}

impl WitnessJson {
    /// `execution` of `program` as JSON, in the role `kind` (`Witness`, `Counterexample`).
    pub fn of(program: &Program, events: &Events, kind: &str, e: &Execution) -> WitnessJson {
        let namer = Namer::new(program, events);
        WitnessJson {
            kind: kind.to_lowercase(),
            interleaving: namer.labels(&e.interleaving),
            event_ids: e.interleaving.iter().map(|&id| namer.number(id)).collect(),
            reads_from: e
                .rf
                .iter()
                .map(|&(w, r)| (namer.number(w), namer.number(r)))
                .collect(),
            final_state: e
                .final_state
                .iter()
                .map(|&(o, v)| (program.observable_name(o), v))
                .collect(),
            coherence: e
                .co
                .iter()
                .enumerate()
                .filter(|(_, chain)| !chain.is_empty())
                .map(|(loc, chain)| {
                    let order = chain.iter().map(|&w| namer.number(w)).collect();
                    (program.locations[loc].name.clone(), order)
                })
                .collect(),
            sc_interleaving: !e.cyclic,
            calls: super::witness::executed_calls(&namer, events, e),
        }
    }
}

#[derive(Serialize)]
pub struct CheckJson {
    pub test: String,
    pub file: String,
    pub model: String,
    pub condition: String,
    /// `Allowed` (exists), `Forbidden` (~exists) or `Required` (forall), as herd names them.
    pub kind: String,
    /// herd's `Ok` or `No`; `Unknown` when executions cut by the unrolling bound could
    /// change it.
    pub verdict: String,
    /// What cut the answer short: the unrolling bound.
    pub limit: Option<String>,
    pub observation: String,
    pub states: Option<Vec<String>>,
    /// The states listed are the first [`crate::analysis::THIN_AIR_STATES`] of more.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub states_cut: bool,
    pub positive: Option<u64>,
    pub negative: Option<u64>,
    pub bound_hit: bool,
    /// With `--block-at-bound`: the executions left out for needing more loop iterations
    /// (`count` with `--count`); absent when none was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_at_bound: Option<LeftAtBound>,
    pub assertion_fails: bool,
    /// The defects found, in the words of the text report ("an assertion fails", "an
    /// invalid unlock", "a deadlock", "a data race", ...).
    pub defects: Vec<String>,
    /// Some execution blocks threads for good: who waits for what, and how it got there.
    pub deadlock: Option<serde_json::Value>,
    pub flags: Vec<String>,
    /// GenMC's memory defects some execution has, by the names of `cat::memory` (and
    /// `free-non-allocated`); absent when there is none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub memory_defects: Vec<String>,
    /// Under a model that raises no race flag (sc, tso, ...): the racing pair found, as
    /// `races` lists it; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub race: Option<serde_json::Value>,
    pub witness: Option<WitnessJson>,
}

/// A memory defect in words.
fn memory_words(kind: &str) -> &'static str {
    use crate::cat::memory::{DOUBLE_FREE, FREED, NON_ALLOCATED, UNINITIALIZED};
    match kind {
        NON_ALLOCATED => "an access to non-allocated memory",
        DOUBLE_FREE => "a double free",
        FREED => "an access to freed memory",
        UNINITIALIZED => "a read of uninitialised memory",
        _ => "a free of non-allocated memory",
    }
}
