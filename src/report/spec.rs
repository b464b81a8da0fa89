//! The answer to `spec`: linearizable, or an execution no history of which fits, with its
//! calls, their real-time order and why each history that respects it fails.

use std::fmt::Write as _;

use super::namer::Namer;
use super::witness::{executed_calls, witness_text, ExecutedCall};
use super::{bound_warning, Palette, Report};
use crate::analysis::spec::{SpecResult, SpecViolation};
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
        if v.real_time.is_empty() {
            let _ = writeln!(out, "  real time: the calls of different threads overlap");
        } else {
            let pairs: Vec<String> = v
                .real_time
                .iter()
                .map(|&(a, b)| format!("{} before {}", label(a), label(b)))
                .collect();
            let _ = writeln!(out, "  real time: {}", pairs.join(", "));
        }
        let _ = writeln!(
            out,
            "  no history fits ({} respect program order and real time; {} break real time):",
            v.candidates.len(),
            v.out_of_real_time
        );
        for m in &v.candidates {
            let order: Vec<String> = m.order.iter().map(|&i| label(i)).collect();
            let wrong = m.order[m.at];
            let call = &v.calls[wrong];
            let actual = call
                .value
                .map_or_else(String::new, |x| self.program.value_text(x));
            let _ = writeln!(
                out,
                "    {}: {} returns {actual}, the specification returns {}",
                order.join(" "),
                label(wrong),
                self.program.value_text(m.expected)
            );
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
            "Test {} ({}, model {}): ",
            self.program.name, self.file.name, self.model
        );
        match &r.violation {
            None => {
                let _ = writeln!(
                    out,
                    "{} ({} method calls, {} histories)",
                    palette.good("linearizable in every execution"),
                    r.calls,
                    r.histories
                );
            }
            Some(v) => {
                let _ = writeln!(
                    out,
                    "{} ({} method calls, {} histories)",
                    palette.bad("not linearizable"),
                    r.calls,
                    r.histories
                );
                self.violation_text(v, &mut out);
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
                "real_time": v.real_time,
                "histories": v.candidates.iter().map(|m| serde_json::json!({
                    "order": m.order,
                    "fails_at": m.at,
                    "expected": m.expected,
                })).collect::<Vec<_>>(),
                "histories_breaking_real_time": v.out_of_real_time,
                "interleaving": namer.labels(&v.witness.interleaving),
            })
        });
        serde_json::json!({
            "test": self.program.name,
            "file": self.file.name,
            "model": self.model,
            "linearizable": r.violation.is_none(),
            "calls": r.calls,
            "histories": r.histories,
            "bound_hit": r.bound_hit,
            "violation": violation,
        })
    }
}
