//! The answer to `localize`: the critical orderings of a failing check, each set with its
//! bad execution, what each combination of its orderings reaches, and the verified fixes.

use std::fmt::Write as _;

use super::namer::Namer;
use super::witness::witness_prefix;
use super::{bound_line, one_line, state_line, statement_text, Palette, Report};
use crate::analysis::graph::Overlay;
use crate::analysis::localize::repair::{Repair, RepairKind};
use crate::analysis::localize::{CriticalSet, Flip, Localization, Target};
use crate::diagnostics::SourceFile;
use crate::events::{EventId, Events};
use crate::program::Program;
use crate::witness::Execution;

pub struct LocalizeReport<'a> {
    pub file: &'a SourceFile,
    pub model: &'a str,
    pub program: &'a Program,
    pub events: &'a Events,
    pub localization: &'a Localization,
    /// The execution drawn by the DOT layout ([`Report::dot`]), with the model's relations
    /// over it.
    pub picture: Option<(&'a Execution, &'a Overlay)>,
}

impl LocalizeReport<'_> {
    /// What is bad: `outcome exists (c=1)`, `a violation of forall (...)`.
    fn bad(&self) -> String {
        let condition = self
            .program
            .condition
            .as_ref()
            .map_or("true".to_string(), |c| one_line(&c.text));
        match self.localization.target {
            Target::Condition => format!("outcome {condition}"),
            Target::Violation => format!("a violation of {condition}"),
            Target::Assertion => "a failing assertion".to_string(),
            Target::Spec => {
                "an execution (under SC) that the spec block does not linearize".to_string()
            }
        }
    }

    /// Each ordering's two statements; one inside a function names the call whose access
    /// orders it in the set's bad execution (the ordering itself is about every call).
    fn ordering_lines(&self, set: &CriticalSet) -> Vec<(String, String)> {
        set.orderings
            .iter()
            .zip(&set.marked)
            .map(|(o, marked)| {
                let named = |statement, event: Option<EventId>| {
                    let text = statement_text(self.file, self.program, statement);
                    match event.and_then(|e| self.call_text(e)) {
                        Some(call) => format!("{text}  [{call}]"),
                        None => text,
                    }
                };
                (
                    named(&o.first, marked.map(|m| m.0)),
                    named(&o.second, marked.map(|m| m.1)),
                )
            })
            .collect()
    }

    /// The call an event runs in, innermost first, each with its site: `in write, P0's
    /// call 2 of it at line 23: write(d, 1, 2)`.
    fn call_text(&self, e: EventId) -> Option<String> {
        let source = &self.program.source;
        let mut call = self.events.events[e].call;
        let mut parts = Vec::new();
        while let Some(c) = call {
            let c = &self.events.calls[c];
            let (line, _) = source.line_col(c.span.start);
            parts.push(format!(
                "in {}, {}'s call {} of it at line {line}: {}",
                c.function,
                self.program.thread_name(c.thread),
                c.number,
                one_line(source.snippet(c.span))
            ));
            call = c.parent;
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    fn interleaving(&self, execution: &Execution) -> String {
        if execution.cyclic {
            return "no SC interleaving".to_string();
        }
        let namer = Namer::new(self.program, self.events);
        let numbers: Vec<String> = execution
            .interleaving
            .iter()
            .map(|&e| namer.number(e).to_string())
            .collect();
        format!("interleaving {}", numbers.join(" "))
    }

    /// `1 holds, 2 forbidden`
    fn combination(flip: &Flip) -> String {
        flip.holds
            .iter()
            .enumerate()
            .map(|(i, &h)| format!("{} {}", i + 1, if h { "holds" } else { "forbidden" }))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn repair_title(&self, kind: RepairKind) -> &'static str {
        match kind {
            RepairKind::LockBlocks => "a fresh mutex around each thread's atomic block",
            RepairKind::LockAccesses => {
                "a fresh mutex around each thread's accesses to the set's locations"
            }
            RepairKind::LockThreads => "a fresh mutex around each thread's shared accesses",
            RepairKind::Fences => "sequentially consistent fences",
            RepairKind::Orders => "stronger memory orders (nemos infer's suggestion)",
        }
    }

    fn repairs_text(&self, out: &mut String, repairs: &[Repair]) {
        for repair in repairs {
            let _ = writeln!(out, "    {}:", self.repair_title(repair.kind));
            for (line, text) in &repair.lines {
                let _ = writeln!(out, "      line {line}: {}", text.trim());
            }
        }
    }

    /// The source lines of the statements the critical sets order.
    fn critical_lines(&self) -> std::collections::BTreeSet<usize> {
        let source = &self.program.source;
        self.localization
            .sets
            .iter()
            .flat_map(|set| &set.orderings)
            .flat_map(|o| [o.first, o.second])
            .flat_map(|statement| {
                let (start, end) = statement.span;
                let first = source.line_col(start).0;
                let last = source.line_col(end.saturating_sub(1).max(start)).0;
                first..=last
            })
            .collect()
    }

    fn repairs_json(&self, repairs: &[Repair]) -> Vec<serde_json::Value> {
        repairs
            .iter()
            .map(|r| {
                serde_json::json!({
                    "kind": self.repair_title(r.kind),
                    "lines": r.lines.iter().map(|(n, t)| serde_json::json!({
                        "line": n,
                        "text": t,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect()
    }

    /// The first set's execution as a Graphviz graph, its critical orderings in heavy lines.
    fn draw(&self, execution: &Execution, overlay: &Overlay) -> String {
        let caption = format!(
            "{} (model {}): {} with critical set 1 in heavy lines",
            self.program.name,
            self.model,
            self.bad()
        );
        super::dot::execution_dot(self.program, self.events, execution, overlay, &caption)
    }
}

impl Report for LocalizeReport<'_> {
    fn dot(&self) -> Option<String> {
        self.picture
            .map(|(execution, overlay)| self.draw(execution, overlay))
    }

    fn text(&self, palette: Palette) -> String {
        let x = self.localization;
        let mut out = String::new();
        let head = format!(
            "Test {} ({}, model {}): {}",
            self.program.name,
            self.file.name,
            self.model,
            self.bad()
        );
        let Some(bad) = &x.bad else {
            let _ = writeln!(
                out,
                "{head} {}",
                palette.good("is never reached: nothing to localize")
            );
            return out;
        };
        let _ = writeln!(out, "{head} {}", palette.bad("is reached"));
        let count = x.sets.len();
        let scope = if x.complete {
            format!("every set of at most {} searched", x.max_size)
        } else {
            "the search stopped at the limit of sets; more exist".to_string()
        };
        let _ = writeln!(
            out,
            "  {count} minimal critical set{} of orderings between threads ({scope}; {} orderings in all)",
            if count == 1 { "" } else { "s" },
            x.orderings
        );
        if x.sets.is_empty() {
            if x.unavoidable {
                let _ = writeln!(
                    out,
                    "  no set of orderings removes it: this bad execution orders no conflicting accesses of different threads:"
                );
            } else {
                let _ = writeln!(
                    out,
                    "  none of at most {} orderings removes it; a bad execution:",
                    x.max_size
                );
            }
            out.push_str(&super::witness::witness_text(
                self.program,
                self.events,
                bad,
            ));
        }
        for (i, set) in x.sets.iter().enumerate() {
            let _ = writeln!(
                out,
                "{}",
                palette.strong(&format!(
                    "Set {}: forbidding {} removes every bad execution",
                    i + 1,
                    if set.orderings.len() == 1 {
                        "this ordering"
                    } else {
                        "these orderings together"
                    }
                ))
            );
            for (k, ((first, second), location)) in self
                .ordering_lines(set)
                .into_iter()
                .zip(&set.locations)
                .enumerate()
            {
                let _ = writeln!(out, "  {}. {first}", k + 1);
                let _ = writeln!(out, "     before {second}   (on {location})");
            }
            for (k, l) in set.both_orders() {
                let _ = writeln!(
                    out,
                    "  orderings {} and {} are the two orders of one pair of statements: this set means \"do not run both\", not a critical race between them",
                    k + 1,
                    l + 1
                );
            }
            let marked: Vec<usize> = set
                .marked
                .iter()
                .flatten()
                .flat_map(|&(a, b)| [a, b])
                .collect();
            let _ = writeln!(out, "  a bad execution:");
            for line in witness_prefix(self.program, self.events, &set.witness, &marked).lines() {
                let _ = writeln!(out, "  {line}");
            }
            let _ = writeln!(
                out,
                "    final state: {}",
                state_line(self.program, &set.witness.final_state)
            );
            if !set.flips.is_empty() {
                let _ = writeln!(out, "  the executions by these orderings:");
                for flip in &set.flips {
                    let (label, shown) = match (&flip.bad, &flip.good) {
                        (Some(b), _) => (palette.bad("bad "), self.interleaving(b)),
                        (None, Some(g)) => (palette.good("good"), self.interleaving(g)),
                        (None, None) => ("none".to_string(), "no execution".to_string()),
                    };
                    let _ = writeln!(out, "    {:<36} {label}  {shown}", Self::combination(flip));
                }
            }
            if !x.repairs_searched {
            } else if set.repairs.is_empty() {
                let _ = writeln!(out, "  verified fixes: none of the candidates");
            } else {
                let _ = writeln!(out, "  verified fixes:");
                self.repairs_text(&mut out, &set.repairs);
            }
        }
        if !x.repairs.is_empty() {
            let _ = writeln!(
                out,
                "{}",
                palette.strong("Verified fixes of the whole program:")
            );
            self.repairs_text(&mut out, &x.repairs);
            let _ = writeln!(
                out,
                "  (verified on this test only: these orders are the whole program's, which \
                 every other client of the same code gets too)"
            );
            let critical = self.critical_lines();
            for (n, repair) in x.repairs.iter().enumerate() {
                let outside: Vec<String> = repair
                    .lines
                    .iter()
                    .map(|(line, _)| *line)
                    .filter(|line| !critical.contains(line))
                    .map(|line| line.to_string())
                    .collect();
                if !outside.is_empty() {
                    let _ = writeln!(
                        out,
                        "  (fix {}, {}: also changes {} {}, outside every critical set)",
                        n + 1,
                        self.repair_title(repair.kind),
                        if outside.len() == 1 { "line" } else { "lines" },
                        outside.join(", ")
                    );
                }
            }
        }
        if x.bound_hit {
            out.push_str(&bound_line(
                palette,
                self.events.unroll,
                "executions beyond the bound are not covered",
            ));
        }
        out
    }

    fn json(&self) -> serde_json::Value {
        let namer = Namer::new(self.program, self.events);
        let x = self.localization;
        let labels = |w: &Execution| namer.labels(&w.interleaving);
        let sets: Vec<serde_json::Value> = x
            .sets
            .iter()
            .map(|set| {
                let orderings: Vec<serde_json::Value> = self
                    .ordering_lines(set)
                    .into_iter()
                    .zip(&set.locations)
                    .zip(&set.marked)
                    .map(|(((first, second), location), marked)| {
                        serde_json::json!({
                            "first": first,
                            "second": second,
                            "location": location,
                            "events": marked.map(|(a, b)| [namer.number(a), namer.number(b)]),
                        })
                    })
                    .collect();
                serde_json::json!({
                    "orderings": orderings,
                    "do_not_run_both": set.both_orders().iter().map(|&(k, l)| [k + 1, l + 1]).collect::<Vec<_>>(),
                    "witness": labels(&set.witness),
                    "witness_is_sc_interleaving": !set.witness.cyclic,
                    "final_state": state_line(self.program, &set.witness.final_state),
                    "flips": set.flips.iter().map(|f| serde_json::json!({
                        "holds": f.holds,
                        "label": match (&f.bad, &f.good) {
                            (Some(_), _) => "bad",
                            (None, Some(_)) => "good",
                            (None, None) => "none",
                        },
                        "witness": f.bad.as_ref().or(f.good.as_ref()).map(labels),
                    })).collect::<Vec<_>>(),
                    "repairs": self.repairs_json(&set.repairs),
                })
            })
            .collect();
        serde_json::json!({
            "test": self.program.name,
            "file": self.file.name,
            "model": self.model,
            "bad": self.bad(),
            "reached": x.bad.is_some(),
            "orderings": x.orderings,
            "complete": x.complete,
            "max_size": x.max_size,
            "unavoidable": x.unavoidable,
            "bound_hit": x.bound_hit,
            "sets": sets,
            "repairs": self.repairs_json(&x.repairs),
        })
    }
}
