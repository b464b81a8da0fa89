//! The answer to `explain`: the checks of the model that forbid an outcome, what each one
//! alone allows, and the smallest sets whose removal allows it.

use std::fmt::Write as _;

use super::dot;
use super::namer::Namer;
use super::witness::witness_text;
use super::{one_line, state_line, Palette, Report};
use crate::analysis::explain::{Explanation, MAX_CORRECTION_SIZE};
use crate::analysis::graph::Overlay;
use crate::events::Events;
use crate::program::Program;
use crate::witness::Execution;

pub struct ExplainReport<'a> {
    pub file: &'a str,
    pub model: &'a str,
    pub program: &'a Program,
    pub events: &'a Events,
    pub explanation: &'a Explanation,
    /// The execution drawn by the DOT layout ([`Report::dot`]), with the model's relations
    /// over it.
    pub picture: Option<(&'a Execution, &'a Overlay)>,
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

    /// `execution` as a Graphviz graph: the witness of an allowed outcome, or the execution
    /// reaching it with the overlay's violated check skipped.
    fn draw(&self, execution: &Execution, overlay: &Overlay) -> String {
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
}

impl Report for ExplainReport<'_> {
    fn dot(&self) -> Option<String> {
        self.picture
            .map(|(execution, overlay)| self.draw(execution, overlay))
    }

    /// The text report, its verdict styled by `palette`.
    fn text(&self, palette: Palette) -> String {
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
                format!(" (search stopped at {MAX_CORRECTION_SIZE} checks)")
            } else {
                String::new()
            }
        );
        out
    }

    fn json(&self) -> serde_json::Value {
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
