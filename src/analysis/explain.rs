//! Which checks of the model forbid an outcome (the Nemos/DefectFinder paper, section 7.3,
//! "what if").
//!
//! Every named check holds under a selector literal. The outcome (the test's condition, or
//! its negation for `forall`) is asked for with every enabled selector assumed; when that is
//! unsatisfiable, the solver's failed assumptions are a set of checks that together forbid
//! it, shrunk to a minimal one by deletion (drop a check, keep the drop if still
//! unsatisfiable). The minimal correction sets, the smallest sets of checks whose removal
//! allows the outcome, are found by trying subsets by increasing size, skipping supersets
//! of sets already found: models have a handful of checks.

use serde::Serialize;

use super::{AnalysisError, Session};
use crate::encode::cnf::{Bool, Lit};
use crate::program::Quantifier;
use crate::solver::{SolveOutcome, Solver};
use crate::witness::relations::Violation;
use crate::witness::Execution;

/// Subsets are tried up to this many checks; beyond it the search stops and says so.
pub const MAX_CORRECTION_SIZE: usize = 4;

#[derive(Clone, Debug, Serialize)]
pub struct Explanation {
    /// The outcome asked about is the condition itself (`exists`, `~exists`) or its negation
    /// (`forall`).
    pub negated_condition: bool,
    /// An execution reaching the outcome under every enabled check, if one exists.
    pub allowed: Option<Execution>,
    /// A minimal set of checks that together forbid the outcome; empty when the program
    /// itself never reaches it, whatever the model.
    pub core: Vec<String>,
    /// For each check of the core: what happens with only that check switched off.
    pub without_one: Vec<WithoutOne>,
    /// The smallest sets of checks whose removal allows the outcome, by increasing size.
    pub corrections: Vec<Vec<String>>,
    /// The correction search stopped at `MAX_CORRECTION_SIZE` checks.
    pub corrections_truncated: bool,
}

/// The outcome with one check of the core switched off.
#[derive(Clone, Debug, Serialize)]
pub struct WithoutOne {
    pub check: String,
    /// An execution reaching the outcome, if there is one (another check may forbid it on
    /// its own).
    pub witness: Option<Execution>,
    /// Where the check fails on that execution: the cycle it forbids.
    pub violation: Option<Violation>,
}

/// The first half of an explanation: the witness if the outcome is allowed, else the
/// minimal core and what skipping each of its checks alone allows.
pub struct Forbidding {
    pub negated_condition: bool,
    pub allowed: Option<Execution>,
    pub core: Vec<(String, Bool)>,
    pub without_one: Vec<(String, Option<Execution>)>,
    /// The assumptions every query of the explanation makes, and the checks in force.
    base: [Bool; 2],
    checks: Vec<(String, Bool)>,
}

impl Session<'_> {
    pub fn explain(&mut self) -> Result<Explanation, AnalysisError> {
        let forbidding = self.forbidding()?;
        let mut without_one = Vec::new();
        for (check, witness) in forbidding.without_one {
            let violation = match &witness {
                Some(execution) => self.violation(execution, &check)?,
                None => None,
            };
            without_one.push(WithoutOne {
                check,
                witness,
                violation,
            });
        }
        let mut explanation = Explanation {
            negated_condition: forbidding.negated_condition,
            allowed: forbidding.allowed,
            core: forbidding.core.iter().map(|c| c.0.clone()).collect(),
            without_one,
            corrections: Vec::new(),
            corrections_truncated: false,
        };
        let (base, checks) = (forbidding.base, forbidding.checks);
        if explanation.core.is_empty() {
            return Ok(explanation);
        }
        // Minimal correction sets by increasing size.
        let n = checks.len();
        for size in 1..=n {
            if size > MAX_CORRECTION_SIZE {
                explanation.corrections_truncated = true;
                break;
            }
            for subset in subsets(n, size) {
                let names: Vec<String> = subset.iter().map(|&k| checks[k].0.clone()).collect();
                if explanation
                    .corrections
                    .iter()
                    .any(|c| c.iter().all(|x| names.contains(x)))
                {
                    continue;
                }
                let rest: Vec<Bool> = (0..n)
                    .filter(|k| !subset.contains(k))
                    .map(|k| checks[k].1)
                    .collect();
                if !self.unsat_under(&base, &rest)? {
                    explanation.corrections.push(names);
                }
            }
        }
        Ok(explanation)
    }

    /// The witness of the outcome, or the minimal set of checks forbidding it (failed
    /// assumptions shrunk by deletion) with a witness per check skipped alone.
    pub fn forbidding(&mut self) -> Result<Forbidding, AnalysisError> {
        let program = self.encoding.program;
        let forall = program
            .condition
            .as_ref()
            .is_some_and(|c| c.quantifier == Quantifier::Forall);
        let condition = self.condition();
        let target = if forall { !condition } else { condition };
        let base = [self.within_bound, target];
        let checks: Vec<(String, Bool)> = self
            .compiled
            .selectors
            .iter()
            .filter(|(_, lit)| self.enabled.contains(lit))
            .cloned()
            .collect();
        let all: Vec<Bool> = checks.iter().map(|c| c.1).collect();
        let mut forbidding = Forbidding {
            negated_condition: forall,
            allowed: None,
            core: Vec::new(),
            without_one: Vec::new(),
            base,
            checks: checks.clone(),
        };
        if let Some(witness) = self.find_under_checks(&base, &all)? {
            forbidding.allowed = Some(witness);
            return Ok(forbidding);
        }
        // The failed assumptions, restricted to selectors.
        let failed: Vec<Lit> = self.solver.failed_core();
        let mut core: Vec<(String, Bool)> = checks
            .iter()
            .filter(|(_, b)| matches!(b, Bool::Lit(l) if failed.contains(l)))
            .cloned()
            .collect();
        // Deletion: a check stays only if the others alone do not forbid the outcome.
        let mut i = 0;
        while i < core.len() {
            let others: Vec<Bool> = core
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, c)| c.1)
                .collect();
            if self.unsat_under(&base, &others)? {
                core.remove(i);
            } else {
                i += 1;
            }
        }
        for (name, lit) in &core {
            let rest: Vec<Bool> = all.iter().copied().filter(|l| l != lit).collect();
            let witness = self.find_under_checks(&base, &rest)?;
            forbidding.without_one.push((name.clone(), witness));
        }
        forbidding.core = core;
        Ok(forbidding)
    }

    fn unsat_under(&mut self, base: &[Bool], checks: &[Bool]) -> Result<bool, AnalysisError> {
        let mut all = base.to_vec();
        all.extend_from_slice(checks);
        Ok(self.solve(&all)? == SolveOutcome::Unsat)
    }
}

/// The `size`-element subsets of `0..n`, in lexicographic order.
fn subsets(n: usize, size: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current = Vec::new();
    fn go(
        start: usize,
        n: usize,
        size: usize,
        current: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if current.len() == size {
            out.push(current.clone());
            return;
        }
        for k in start..n {
            current.push(k);
            go(k + 1, n, size, current, out);
            current.pop();
        }
    }
    go(0, n, size, &mut current, &mut out);
    out
}
