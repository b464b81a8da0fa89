//! The answer to `infer --together`: one assignment of orders for the functions several
//! tests share.

use std::fmt::Write as _;

use super::infer::{orders_text, violation_text};
use super::{one_line, Palette, Report};
use crate::analysis::infer::{choice_name, Together};
use crate::program::Program;

pub struct TogetherReport<'a> {
    pub model: &'a str,
    /// The tests, in the order they were given.
    pub programs: Vec<&'a Program>,
    pub together: &'a Together,
}

impl TogetherReport<'_> {
    fn test_label(&self, t: usize) -> String {
        let p = self.programs[t];
        format!("{} ({})", p.name, p.source.name)
    }

    fn site_label(&self, k: usize) -> String {
        let shared = &self.together.shared[k];
        let program = self.programs[shared.test];
        let text = one_line(program.source.snippet(shared.site.span));
        format!(
            "{} (line {} of {}) {}: {}",
            shared.function,
            shared.site.line,
            program.source.name,
            shared.site.access.name(),
            text
        )
    }

    fn violation(&self, t: usize, v: &crate::analysis::infer::Violation) -> String {
        let text = violation_text(v);
        let text = text.trim_end_matches(" in");
        format!("test {}: {text}", self.test_label(t))
    }
}

impl Report for TogetherReport<'_> {
    fn text(&self, palette: Palette) -> String {
        let x = self.together;
        let mut out = String::new();
        let names: Vec<String> = (0..self.programs.len())
            .map(|t| self.test_label(t))
            .collect();
        let verdict = if x.written_failures.is_empty() {
            palette.good("the written orders are correct in every test")
        } else {
            palette.bad("the written orders break the property")
        };
        let _ = writeln!(
            out,
            "Tests {} together (model {}): {verdict}",
            names.join(", "),
            self.model
        );
        let _ = writeln!(
            out,
            "  {} shared sites (atomic accesses and fences of the functions the tests share, matched by function and place in its text), {} assignments of orders; the clients' own accesses keep their orders",
            x.shared.len(),
            x.assignments
        );
        for (k, shared) in x.shared.iter().enumerate() {
            let _ = writeln!(
                out,
                "    {}. {}  [{}]",
                k + 1,
                self.site_label(k),
                choice_name(shared.site.written)
            );
        }
        for (t, violation) in &x.written_failures {
            let _ = writeln!(out, "As written, {}", self.violation(*t, violation));
        }
        if x.minimal.is_empty() {
            let _ = writeln!(
                out,
                "{}",
                palette.bad("No assignment of orders to the shared sites makes every test correct")
            );
        }
        let written = x.written();
        for (n, m) in x.minimal.iter().enumerate() {
            let relation = match (x.nearest.contains(&n), x.written_failures.is_empty()) {
                (true, true) => " (the written orders weakened)",
                (true, false) => " (a smallest fix of the written orders)",
                _ => "",
            };
            let _ = writeln!(
                out,
                "{}",
                palette.strong(&format!(
                    "Minimal orders {} of {}{relation}: {}",
                    n + 1,
                    x.minimal.len(),
                    orders_text(&m.assignment)
                ))
            );
            for (k, (&chosen, &was)) in m.assignment.iter().zip(&written).enumerate() {
                if chosen != was {
                    let _ = writeln!(
                        out,
                        "  {}. {}: {} here {} {}",
                        k + 1,
                        self.site_label(k),
                        choice_name(was),
                        if x.written_failures.is_empty() {
                            "can be"
                        } else {
                            "must be"
                        },
                        choice_name(chosen)
                    );
                }
            }
            for reason in &m.reasons {
                let _ = writeln!(
                    out,
                    "  why site {} is not {}: {}",
                    reason.site + 1,
                    choice_name(reason.weaker),
                    self.violation(reason.test, &reason.violation)
                );
            }
        }
        if x.bound_hit {
            let _ = writeln!(
                out,
                "  (some execution of some test needs more loop iterations than were unrolled: the verdicts speak of the executions within the bound)"
            );
        }
        out
    }

    fn json(&self) -> serde_json::Value {
        let x = self.together;
        serde_json::json!({
            "command": "infer",
            "together": (0..self.programs.len()).map(|t| self.test_label(t)).collect::<Vec<_>>(),
            "model": self.model,
            "sites": x.shared.iter().enumerate().map(|(k, s)| serde_json::json!({
                "function": s.function,
                "line": s.site.line,
                "file": self.programs[s.test].source.name,
                "access": s.site.access.name(),
                "written": choice_name(s.site.written),
                "label": self.site_label(k),
            })).collect::<Vec<_>>(),
            "assignments": x.assignments,
            "written_correct": x.written_failures.is_empty(),
            "written_failures": x.written_failures.iter().map(|(t, v)| serde_json::json!({
                "test": self.test_label(*t),
                "violation": v,
            })).collect::<Vec<_>>(),
            "minimal": x.minimal.iter().map(|m| serde_json::json!({
                "orders": m.assignment.iter().map(|&c| choice_name(c)).collect::<Vec<_>>(),
                "reasons": m.reasons.iter().map(|r| serde_json::json!({
                    "site": r.site + 1,
                    "weaker": choice_name(r.weaker),
                    "test": self.test_label(r.test),
                    "violation": r.violation,
                })).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "bound_hit": x.bound_hit,
        })
    }
}
