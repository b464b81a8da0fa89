//! The answer to `infer`: the minimal memory orders, why each cannot be weaker, and how
//! they compare with the orders the program gives.

use std::fmt::Write as _;

use super::check::WitnessJson;
use super::witness::{witness_prefix, witness_text};
use super::{bound_line, one_line, Palette, Report};
use crate::analysis::infer::{choice_name, Choice, Failure, Inference, Search, Site, Violation};
use crate::analysis::spec::SpecMode;
use crate::program::Program;

pub struct InferReport<'a> {
    pub model: &'a str,
    pub program: &'a Program,
    pub inference: &'a Inference,
    pub unroll: u32,
}

impl InferReport<'_> {
    fn property_text(&self) -> String {
        let p = self.inference.property;
        let mut parts = Vec::new();
        if p.condition {
            if let Some(c) = &self.program.condition {
                parts.push(match c.quantifier {
                    crate::program::Quantifier::Forall => format!("`{}` always holds", c.text),
                    _ => format!("the outcome of `{}` is never reached", c.text),
                });
            }
        }
        if p.assertions {
            parts.push("no assertion fails, no access is invalid".to_string());
        }
        if p.flags {
            parts.push("the model raises no flag (a data race under C11)".to_string());
        }
        if p.deadlocks {
            parts.push("no thread is blocked for good".to_string());
        }
        if let (Some(mode), Some(_)) = (p.spec, &self.program.spec) {
            parts.push(match mode {
                SpecMode::Strict => "every history of the method calls consistent with the ordering points fits the specification (strict mode)".to_string(),
                _ => "some history of the method calls consistent with the ordering points fits the specification (loose mode)".to_string(),
            });
        }
        if parts.is_empty() {
            "nothing".to_string()
        } else {
            parts.join(", ")
        }
    }

    fn site_label(&self, site: &Site) -> String {
        let thread = &self.program.threads[site.thread];
        let text = one_line(self.program.source.snippet(site.span));
        format!(
            "line {} P{} {}: {}",
            site.line,
            thread.index,
            site.access.name(),
            text
        )
    }

    /// The failure's witness, or, when an earlier one showed the same execution breaking
    /// the property the same way, a line naming it (`shown`: what was printed so far, with
    /// its label).
    fn failure_lines(
        &self,
        failure: &Failure,
        label: String,
        shown: &mut Vec<(String, String)>,
        indent: &str,
        out: &mut String,
    ) {
        let invalid_access = failure.violation == Violation::Assertion
            && !failure.execution.failed_assertions.is_empty()
            && failure
                .execution
                .failed_assertions
                .iter()
                .all(|e| failure.events.access_checks.contains_key(e));
        let violation = if invalid_access {
            "an access is invalid in".to_string()
        } else {
            violation_text(&failure.violation)
        };
        let text = if failure.racing.is_empty() {
            witness_text(&failure.program, &failure.events, &failure.execution)
        } else {
            witness_prefix(
                &failure.program,
                &failure.events,
                &failure.execution,
                &failure.racing,
            )
        };
        // A race is named by its two accesses: the same pair racing again is not shown
        // again, whatever else its execution does.
        let key = match failure.racing.as_slice() {
            [a, b] => format!("{violation}\nrace {a} {b}"),
            _ => format!("{violation}\n{text}"),
        };
        if let Some((_, earlier)) = shown.iter().find(|(k, _)| *k == key) {
            match failure.racing.as_slice() {
                [a, b] => {
                    let _ = writeln!(
                        out,
                        "{indent}{} on the same accesses (events {} and {}) as in the execution shown {earlier}",
                        violation.trim_end_matches(" in"),
                        a + 1,
                        b + 1
                    );
                }
                _ => {
                    let _ = writeln!(out, "{indent}{violation} the execution shown {earlier}");
                }
            }
            return;
        }
        let racing = if failure.racing.is_empty() {
            ""
        } else {
            " (the racing accesses marked <==)"
        };
        let _ = writeln!(out, "{indent}{violation}{racing}:");
        for line in text.lines() {
            let _ = writeln!(out, "{indent}  {line}");
        }
        shown.push((key, label));
    }
}

pub(super) fn violation_text(violation: &Violation) -> String {
    match violation {
        Violation::Condition => "the condition's outcome is reached in".to_string(),
        Violation::Assertion => "an assertion fails in".to_string(),
        Violation::Flag(name) => format!("the model raises `{name}` in"),
        Violation::Deadlock => "a thread is blocked for good in".to_string(),
        Violation::Spec => {
            "the specification is not met (`nemos spec` shows the histories) in".to_string()
        }
    }
}

/// The sites and what the search did, in one line.
fn search_text(inf: &Inference) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let sites = plural(inf.sites.len(), "site");
    match (inf.search, inf.passing) {
        (Search::Exhaustive, Some(passing)) => format!(
            "{sites} (atomic accesses and fences), {} of orders checked one by one, {passing} correct",
            plural(inf.assignments, "assignment")
        ),
        _ => format!(
            "{sites} (atomic accesses and fences), {} of orders, {} in one instance",
            plural(inf.assignments, "assignment"),
            plural(inf.checked, "solve")
        ),
    }
}

pub(super) fn orders_text(assignment: &[Choice]) -> String {
    assignment
        .iter()
        .map(|&c| choice_name(c))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Report for InferReport<'_> {
    fn text(&self, palette: Palette) -> String {
        let inf = self.inference;
        let mut out = String::new();
        let verdict = match (&inf.written_failure, inf.minimal.is_empty()) {
            (None, _) => palette.good("the written orders are correct"),
            (Some(_), false) => palette.bad("the written orders break the property"),
            (Some(_), true) => palette.bad("no orders make the program correct"),
        };
        let _ = writeln!(
            out,
            "Test {} ({}, model {}): {verdict}",
            self.program.name, self.program.source.name, self.model
        );
        let _ = writeln!(out, "  property: {}", self.property_text());
        let _ = writeln!(out, "  {}", search_text(inf));
        for (i, site) in inf.sites.iter().enumerate() {
            let pinned = if site.pinned { " (kept)" } else { "" };
            let _ = writeln!(
                out,
                "    {}. {}  [{}{pinned}]",
                i + 1,
                self.site_label(site),
                choice_name(site.written)
            );
        }
        let mut shown = Vec::new();
        if let Some(failure) = &inf.written_failure {
            let _ = writeln!(out, "As written,");
            let label = "for the written orders".to_string();
            self.failure_lines(failure, label, &mut shown, "  ", &mut out);
        }
        let written = inf.written();
        for (n, minimal) in inf.minimal.iter().enumerate() {
            let nearest = if inf.nearest.contains(&n) {
                if inf.written_failure.is_some() {
                    " (a smallest fix of the written orders)"
                } else {
                    " (the written orders weakened)"
                }
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "{}",
                palette.strong(&format!(
                    "Minimal orders {} of {}{nearest}: {}",
                    n + 1,
                    inf.minimal.len(),
                    orders_text(&minimal.assignment)
                ))
            );
            for (i, site) in inf.sites.iter().enumerate() {
                let chosen = minimal.assignment[i];
                if chosen == written[i] {
                    continue;
                }
                let change = if crate::analysis::infer::at_most(chosen, written[i]) {
                    "can be"
                } else {
                    "must be"
                };
                let _ = writeln!(
                    out,
                    "  {}. {}: {} here {change} {}",
                    i + 1,
                    self.site_label(site),
                    choice_name(written[i]),
                    choice_name(chosen)
                );
            }
            for reason in &minimal.reasons {
                let site = &inf.sites[reason.site];
                let _ = writeln!(
                    out,
                    "  why site {} (line {}) is not {}: with it {} (the listing shows the source as written),",
                    reason.site + 1,
                    site.line,
                    choice_name(reason.weaker),
                    choice_name(reason.weaker)
                );
                let label = format!("for site {} of minimal orders {}", reason.site + 1, n + 1);
                self.failure_lines(&reason.failure, label, &mut shown, "    ", &mut out);
            }
        }
        if inf.bound_hit {
            out.push_str(&bound_line(
                palette,
                self.unroll,
                "the verdicts speak of the executions within the bound",
            ));
        }
        out
    }

    fn json(&self) -> serde_json::Value {
        let inf = self.inference;
        let failure_json = |f: &Failure| {
            serde_json::json!({
                "violation": f.violation,
                "orders": f.assignment.iter().map(|&c| choice_name(c)).collect::<Vec<_>>(),
                "witness": WitnessJson::of(&f.program, &f.events, "counterexample", &f.execution),
                "racing_events": f.racing.iter().map(|e| e + 1).collect::<Vec<_>>(),
            })
        };
        let sites: Vec<serde_json::Value> = inf
            .sites
            .iter()
            .map(|s| {
                serde_json::json!({
                    "line": s.line,
                    "thread": format!("P{}", self.program.threads[s.thread].index),
                    "access": s.access,
                    "text": one_line(self.program.source.snippet(s.span)),
                    "written": choice_name(s.written),
                    "kept": s.pinned,
                })
            })
            .collect();
        let minimal: Vec<serde_json::Value> = inf
            .minimal
            .iter()
            .enumerate()
            .map(|(n, m)| {
                serde_json::json!({
                    "orders": m.assignment.iter().map(|&c| choice_name(c)).collect::<Vec<_>>(),
                    "nearest": inf.nearest.contains(&n),
                    "reasons": m.reasons.iter().map(|r| serde_json::json!({
                        "site": r.site + 1,
                        "weaker": choice_name(r.weaker),
                        "failure": failure_json(&r.failure),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        serde_json::json!({
            "test": self.program.name,
            "file": self.program.source.name,
            "model": self.model,
            "property": self.property_text(),
            "written_correct": inf.written_failure.is_none(),
            "written_failure": inf.written_failure.as_ref().map(failure_json),
            "sites": sites,
            "search": inf.search,
            "assignments": inf.assignments,
            "checked": inf.checked,
            "passing": inf.passing,
            "minimal": minimal,
            "bound_hit": inf.bound_hit,
        })
    }
}
