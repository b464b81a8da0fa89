//! The answer to `spec`: linearizable, or an execution no history of which fits, with its
//! calls, their real-time order and why each history that respects it fails.

use std::fmt::Write as _;

use super::namer::Namer;
use super::witness::{executed_calls, witness_text, ExecutedCall};
use super::{bound_line, Palette, Report};
use crate::analysis::spec::{Failure, SpecMode, SpecResult, SpecViolation};
use crate::diagnostics::SourceFile;
use crate::events::Events;
use crate::program::Program;

pub struct SpecReport<'a> {
    pub file: &'a SourceFile,
    pub program: &'a Program,
    pub events: &'a Events,
    pub model: &'a str,
    pub result: &'a SpecResult,
}

/// `c2` for the call at index 1 of the violation's list.
fn label(i: usize) -> String {
    format!("c{}", i + 1)
}

/// `P1: read()`, with its arguments as the witness shows them.
fn call_text(call: Option<&ExecutedCall>, function: &str) -> String {
    match call {
        Some(c) => {
            let args: Vec<&str> = c.arguments.iter().map(|a| a.shown.as_str()).collect();
            format!("{}: {}({})", c.thread, c.function, args.join(", "))
        }
        None => format!("{function}(..)"),
    }
}

impl SpecReport<'_> {
    fn violation_text(&self, v: &SpecViolation, out: &mut String) {
        let namer = Namer::new(self.program, self.events);
        let executed = executed_calls(&namer, self.events, &v.witness);
        let find = |id| executed.iter().find(|c| c.id == id);
        let _ = writeln!(out, "  the method calls, in the order they begin:");
        for (i, call) in v.calls.iter().enumerate() {
            let text = call_text(find(call.call), &call.function);
            let returns = call
                .value
                .map(|x| format!(" returns {}", self.program.value_text(x)))
                .unwrap_or_default();
            let _ = writeln!(out, "    {:<4}{text}{returns}", label(i));
        }
        let linearizable = self.result.mode == SpecMode::Linearizable;
        let (order, none) = if linearizable {
            ("real time", "the calls of different threads overlap")
        } else {
            (
                "ordering points",
                "they order no calls of different threads",
            )
        };
        if v.ordered.is_empty() {
            let _ = writeln!(out, "  {order}: {none}");
        } else {
            let pairs: Vec<String> = v
                .ordered
                .iter()
                .map(|&(a, b)| format!("{} before {}", label(a), label(b)))
                .collect();
            let _ = writeln!(out, "  {order}: {}", pairs.join(", "));
        }
        let _ = writeln!(
            out,
            "  {} ({} respect program order and {order}; {} break {order}):",
            if self.result.mode == SpecMode::Strict {
                "histories that do not fit"
            } else {
                "no history fits"
            },
            v.candidates.len(),
            v.out_of_order
        );
        for m in &v.candidates {
            let order: Vec<String> = m.order.iter().map(|&i| label(i)).collect();
            let why = match &m.failure {
                Failure::Value { at, expected } => {
                    let wrong = m.order[*at];
                    let actual = v.calls[wrong]
                        .value
                        .map_or_else(String::new, |x| self.program.value_text(x));
                    format!(
                        "{} returns {actual}, the specification returns {}",
                        label(wrong),
                        self.program.value_text(*expected)
                    )
                }
                Failure::Unsynchronised {
                    rule,
                    before,
                    after,
                } => format!(
                    "{}'s beginning does not happen before {}'s end ({rule})",
                    label(*before),
                    label(*after)
                ),
            };
            let _ = writeln!(out, "    {}: {why}", order.join(" "));
        }
        let _ = writeln!(out, "  Witness:");
        for line in witness_text(self.program, self.events, &v.witness).lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
}

impl Report for SpecReport<'_> {
    fn text(&self, palette: Palette) -> String {
        let mut out = String::new();
        let r = self.result;
        let _ = write!(
            out,
            "Test {} ({}, model {}{}): ",
            self.program.name,
            self.file.name,
            self.model,
            match r.mode {
                SpecMode::Linearizable => "",
                SpecMode::Loose => ", mode loose",
                SpecMode::Strict => ", mode strict",
            }
        );
        // Linearizability's real time is the SC interleaving's: under a weaker model only
        // its SC executions are checked, which the headline says (loose and strict modes
        // check every execution of the model).
        let weak = self.model != "sc";
        let (good, bad) = match r.mode {
            SpecMode::Linearizable if weak => (
                "linearizable in every SC execution (only SC executions are checked for linearizability; --mode loose or strict checks all of the model's)",
                "not linearizable",
            ),
            SpecMode::Linearizable => ("linearizable in every execution", "not linearizable"),
            SpecMode::Loose => (
                "in every execution some history consistent with the ordering points fits",
                "no history consistent with the ordering points fits",
            ),
            SpecMode::Strict => (
                "in every execution every history consistent with the ordering points fits",
                "a history consistent with the ordering points does not fit",
            ),
        };
        match &r.violation {
            None => {
                let _ = writeln!(
                    out,
                    "{} ({} method calls, {} histories)",
                    palette.good(good),
                    r.calls,
                    r.histories
                );
            }
            Some(v) => {
                let _ = writeln!(
                    out,
                    "{} ({} method calls, {} histories)",
                    palette.bad(bad),
                    r.calls,
                    r.histories
                );
                self.violation_text(v, &mut out);
            }
        }
        if r.bound_hit {
            out.push_str(&bound_line(
                palette,
                self.events.unroll,
                "they are not covered",
            ));
        }
        out
    }

    fn json(&self) -> serde_json::Value {
        let namer = Namer::new(self.program, self.events);
        let r = self.result;
        let violation = r.violation.as_ref().map(|v| {
            let executed = executed_calls(&namer, self.events, &v.witness);
            serde_json::json!({
                "calls": v.calls.iter().map(|c| {
                    let shown = executed.iter().find(|e| e.id == c.call);
                    serde_json::json!({
                        "thread": self.program.thread_name(c.thread),
                        "function": c.function,
                        "arguments": shown.map(|s| s.arguments.clone()),
                        "value": c.value,
                    })
                }).collect::<Vec<_>>(),
                "ordered": v.ordered,
                "histories": v.candidates.iter().map(|m| match &m.failure {
                    Failure::Value { at, expected } => serde_json::json!({
                        "order": m.order,
                        "fails_at": at,
                        "expected": expected,
                        "unsynchronised": null,
                    }),
                    Failure::Unsynchronised { rule, before, after } => serde_json::json!({
                        "order": m.order,
                        "fails_at": null,
                        "expected": null,
                        "unsynchronised": { "rule": rule, "before": before, "after": after },
                    }),
                }).collect::<Vec<_>>(),
                "histories_out_of_order": v.out_of_order,
                "interleaving": namer.labels(&v.witness.interleaving),
            })
        });
        serde_json::json!({
            "test": self.program.name,
            "file": self.file.name,
            "model": self.model,
            "mode": r.mode,
            "correct": r.violation.is_none(),
            "calls": r.calls,
            "histories": r.histories,
            "bound_hit": r.bound_hit,
            "violation": violation,
        })
    }
}
