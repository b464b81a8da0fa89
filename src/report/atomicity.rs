//! The answer to `atomicity`: each interrupted block with the interrupting statements, and
//! each final state that uninterrupted blocks cannot reach.

use std::fmt::Write as _;

use super::namer::Namer;
use super::witness::{witness_prefix, witness_text};
use super::{bound_line, state_line, statement_text, Palette, Report};
use crate::analysis::atomicity::{AtomicityMode, AtomicityResult, Interruption};
use crate::diagnostics::SourceFile;
use crate::events::Events;
use crate::program::Program;
use crate::witness::Execution;

pub struct AtomicityReport<'a> {
    pub file: &'a SourceFile,
    pub program: &'a Program,
    pub events: &'a Events,
    pub result: &'a AtomicityResult,
}

impl AtomicityReport<'_> {
    fn mode(&self) -> &'static str {
        match self.result.mode {
            AtomicityMode::Strict => "strict",
            AtomicityMode::Window => "window",
            AtomicityMode::Serial => "serial",
        }
    }
}

impl Report for AtomicityReport<'_> {
    /// The text report, its verdict styled by `palette`.
    fn text(&self, palette: Palette) -> String {
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
        let mut groups: Vec<Vec<&Interruption>> = Vec::new();
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
