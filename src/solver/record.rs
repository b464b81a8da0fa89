//! A recorder in front of any backend: it keeps every variable, clause, literal name and
//! query, so that the instance a query saw can be written as DIMACS or SMT-LIB for other
//! solvers and for reading by hand.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, MutexGuard};

use super::smt_backend::{smt_clause, smt_lit};
use super::{SolveOutcome, Solver, SolverError};
use crate::encode::cnf::{ClauseSink, Lit};

/// The file formats of `--emit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmitFormat {
    Dimacs,
    Smt2,
}

impl std::str::FromStr for EmitFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<EmitFormat, String> {
        match s {
            "dimacs" | "cnf" => Ok(EmitFormat::Dimacs),
            "smt2" | "smtlib" => Ok(EmitFormat::Smt2),
            _ => Err(format!(
                "unknown format `{s}`: the formats are dimacs, smt2"
            )),
        }
    }
}

/// One solve as the analysis asked it.
#[derive(Clone, Debug)]
pub struct QueryRecord {
    /// Variables and clauses that existed when it was asked: later ones are not part of it.
    pub num_vars: u32,
    pub num_clauses: usize,
    /// `None` when it was answered without solving (a constant false assumption).
    pub assumptions: Option<Vec<Lit>>,
    /// The backend's answer (`None` if it failed).
    pub outcome: Option<SolveOutcome>,
}

/// Everything a solver was told.
#[derive(Clone, Debug, Default)]
pub struct Log {
    pub num_vars: u32,
    pub clauses: Vec<Vec<Lit>>,
    /// Per variable, what it means; a name starting with `not ` names the variable's negation.
    pub names: BTreeMap<u32, Vec<String>>,
    pub queries: Vec<QueryRecord>,
}

/// A log shared between the recorder inside a session and whoever writes it out.
#[derive(Clone, Debug, Default)]
pub struct Recording(Arc<Mutex<Log>>);

impl Recording {
    pub fn new() -> Recording {
        Recording::default()
    }

    pub fn log(&self) -> MutexGuard<'_, Log> {
        // A panic elsewhere while holding the lock leaves a log that is still well formed.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

pub struct Recorder {
    inner: Box<dyn Solver>,
    recording: Recording,
}

impl Recorder {
    pub fn new(inner: Box<dyn Solver>, recording: Recording) -> Recorder {
        Recorder { inner, recording }
    }
}

impl ClauseSink for Recorder {
    fn new_lit(&mut self) -> Lit {
        let lit = self.inner.new_lit();
        let mut log = self.recording.log();
        log.num_vars = log.num_vars.max(lit.var());
        lit
    }

    fn add_clause(&mut self, clause: &[Lit]) {
        self.inner.add_clause(clause);
        self.recording.log().clauses.push(clause.to_vec());
    }

    fn num_vars(&self) -> u32 {
        self.inner.num_vars()
    }

    fn name_lit(&mut self, lit: Lit, name: &dyn Fn() -> String) {
        let name = if lit.is_positive() {
            name()
        } else {
            format!("not {}", name())
        };
        let mut log = self.recording.log();
        let names = log.names.entry(lit.var()).or_default();
        if !names.contains(&name) {
            names.push(name);
        }
    }

    // No `acyclic_graph`: a recorded instance must hold every cycle cut as a clause, so a
    // recorded session cuts the cycles between solves whatever the backend.
}

impl Solver for Recorder {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn solve(&mut self, assumptions: &[Lit]) -> Result<SolveOutcome, SolverError> {
        let outcome = self.inner.solve(assumptions);
        let mut log = self.recording.log();
        let record = QueryRecord {
            num_vars: log.num_vars,
            num_clauses: log.clauses.len(),
            assumptions: Some(assumptions.to_vec()),
            outcome: outcome.as_ref().ok().copied(),
        };
        log.queries.push(record);
        outcome
    }

    fn value(&self, lit: Lit) -> bool {
        self.inner.value(lit)
    }

    fn failed_core(&self) -> Vec<Lit> {
        self.inner.failed_core()
    }

    fn answered_unsat_without_solving(&mut self) {
        let mut log = self.recording.log();
        let record = QueryRecord {
            num_vars: log.num_vars,
            num_clauses: log.clauses.len(),
            assumptions: None,
            outcome: Some(SolveOutcome::Unsat),
        };
        log.queries.push(record);
    }
}

impl Log {
    /// The instance query `query` saw, with its assumptions (as unit clauses in DIMACS, as
    /// `check-sat-assuming` in SMT-LIB), every named variable explained in comments and
    /// `header` on top. Without a query: all clauses, no assumptions.
    pub fn emit(&self, format: EmitFormat, query: Option<usize>, header: &str) -> String {
        let record = query.and_then(|q| self.queries.get(q));
        let (num_vars, num_clauses) = record.map_or((self.num_vars, self.clauses.len()), |r| {
            (r.num_vars, r.num_clauses)
        });
        let clauses = &self.clauses[..num_clauses.min(self.clauses.len())];
        let c = match format {
            EmitFormat::Dimacs => "c",
            EmitFormat::Smt2 => ";",
        };
        let mut out = String::new();
        for line in header.lines() {
            let _ = writeln!(out, "{c} {line}");
        }
        match record {
            None => {
                let _ = writeln!(out, "{c} no solve was asked: every clause, no assumptions");
            }
            Some(r) => {
                let answer = match r.outcome {
                    Some(SolveOutcome::Sat) => "SAT",
                    Some(SolveOutcome::Unsat) => "UNSAT",
                    None => "an error",
                };
                let _ = writeln!(out, "{c} nemos's solver answered {answer}");
                match &r.assumptions {
                    None => {
                        let _ = writeln!(
                            out,
                            "{c} answered without solving: an assumption is constant false \
                             (written as the empty clause)"
                        );
                    }
                    Some(a) if a.is_empty() => {
                        let _ = writeln!(out, "{c} no assumptions");
                    }
                    Some(a) => {
                        let how = match format {
                            EmitFormat::Dimacs => "added at the end as unit clauses",
                            EmitFormat::Smt2 => "in check-sat-assuming",
                        };
                        let _ = write!(out, "{c} assumptions ({how}):");
                        for l in a {
                            let _ = write!(out, " {}", l.to_dimacs());
                            if let Some(names) = self.names.get(&l.var()) {
                                let _ = write!(out, " [{}]", names.join(" = "));
                            }
                        }
                        out.push('\n');
                    }
                }
            }
        }
        let named: Vec<(&u32, &Vec<String>)> =
            self.names.range(1..=num_vars.max(1)).collect::<Vec<_>>();
        let _ = writeln!(
            out,
            "{c} {} of {num_vars} variables are named; the others are auxiliary",
            named.len()
        );
        let units: Vec<Vec<Lit>> = match record.map(|r| &r.assumptions) {
            Some(None) => vec![Vec::new()],
            Some(Some(a)) if format == EmitFormat::Dimacs => a.iter().map(|&l| vec![l]).collect(),
            _ => Vec::new(),
        };
        match format {
            EmitFormat::Dimacs => {
                for (v, names) in &named {
                    let _ = writeln!(out, "c {v} {}", names.join(" = "));
                }
                let _ = writeln!(out, "p cnf {num_vars} {}", clauses.len() + units.len());
                for clause in clauses.iter().chain(&units) {
                    for l in clause {
                        let _ = write!(out, "{} ", l.to_dimacs());
                    }
                    out.push_str("0\n");
                }
            }
            EmitFormat::Smt2 => {
                out.push_str("(set-logic QF_UF)\n");
                for v in 1..=num_vars {
                    let _ = write!(out, "(declare-const b{v} Bool)");
                    if let Some(names) = self.names.get(&v) {
                        let _ = write!(out, " ; {}", names.join(" = "));
                    }
                    out.push('\n');
                }
                for clause in clauses.iter().chain(&units) {
                    smt_clause(&mut out, clause);
                }
                match record.and_then(|r| r.assumptions.as_ref()) {
                    Some(a) if !a.is_empty() => {
                        out.push_str("(check-sat-assuming (");
                        for (i, &l) in a.iter().enumerate() {
                            if i > 0 {
                                out.push(' ');
                            }
                            smt_lit(&mut out, l);
                        }
                        out.push_str("))\n");
                    }
                    _ => out.push_str("(check-sat)\n"),
                }
                out.push_str("(exit)\n");
            }
        }
        out
    }
}
