//! The answer to `races`: each racing pair of statements with the execution in which
//! neither happens before the other.

use std::fmt::Write as _;

use super::namer::Namer;
use super::witness::witness_prefix;
use super::{bound_line, statement_text, Palette, Report};
use crate::analysis::races::RaceResult;
use crate::diagnostics::SourceFile;
use crate::events::Events;
use crate::program::Program;

pub struct RacesReport<'a> {
    pub file: &'a SourceFile,
    pub model: &'a str,
    pub program: &'a Program,
    pub events: &'a Events,
    pub result: &'a RaceResult,
}

impl Report for RacesReport<'_> {
    /// The text report, its verdict styled by `palette`.
    fn text(&self, palette: Palette) -> String {
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
        let _ = writeln!(out, "  race definition: {}", self.result.definition);
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
        if !self.result.complete {
            let _ = writeln!(out, "  first race found; others not searched (--first)");
        }
        if let Some(execution) = &self.result.deadlock {
            let _ = writeln!(
                out,
                "{} some execution blocks threads for good (its races are not listed):",
                palette.bad("Deadlock:")
            );
            out.push_str(&super::witness::deadlock_text(
                self.program,
                self.events,
                execution,
            ));
        }
        if self.result.bound_hit {
            out.push_str(&bound_line(
                palette,
                self.events.unroll,
                "races beyond the bound are not covered",
            ));
        }
        out
    }

    fn json(&self) -> serde_json::Value {
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
            "race_definition": self.result.definition,
            "race_free": self.result.races.is_empty(),
            "complete": self.result.complete,
            "bound_hit": self.result.bound_hit,
            "sliced_locations": self.result.sliced,
            "deadlock": self.result.deadlock.as_ref().map(|e| {
                super::witness::deadlock_json(self.program, self.events, e)
            }),
            "races": races,
        })
    }
}
