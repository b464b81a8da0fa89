//! The two searches of the assignments of orders (see the parent module's documentation).

use std::collections::HashMap;

use super::{at_most, below, failure_order, Checker, Choice, InferError, Site, MAX_ASSIGNMENTS};
use crate::analysis::{AnalysisError, Session, SolveOutcome};
use crate::diagnostics::Span;
use crate::encode::cnf::{Bool, ClauseSink, Gates};
use crate::encode::OrderOption;
use crate::events::EventKind;
use crate::program::MemOrder;
use crate::solver::{Solver, VarisatSolver};

/// What a search finds: the minimal passing assignments, in the order of [`nth`] (weakest
/// first, the first site varying slowest), whatever order the search met them in.
pub(super) struct Found {
    pub(super) minimal: Vec<Vec<Choice>>,
    pub(super) checked: usize,
    pub(super) passing: Option<usize>,
    pub(super) bound_hit: bool,
}

/// Every assignment in a session of its own.
pub(super) fn exhaustive(checker: &Checker, count: usize) -> Result<Found, InferError> {
    if count > MAX_ASSIGNMENTS {
        return Err(InferError::TooMany {
            count,
            sites: checker.sites.len(),
            limit: MAX_ASSIGNMENTS,
        });
    }
    let assignments: Vec<Vec<Choice>> = (0..count).map(|i| nth(checker.sites, i)).collect();
    let mut passing = Vec::new();
    let mut bound_hit = false;
    for assignment in &assignments {
        let (passes, cut) = checker.passes(assignment)?;
        bound_hit |= cut;
        if passes {
            passing.push(assignment);
        }
    }
    let minimal = passing
        .iter()
        .filter(|a| !passing.iter().any(|b| b != *a && below(b, a)))
        .map(|a| (*a).clone())
        .collect();
    Ok(Found {
        minimal,
        checked: count,
        passing: Some(passing.len()),
        bound_hit,
    })
}

/// The search in one instance (see the module's documentation).
pub(super) fn incremental(checker: &Checker) -> Result<Found, InferError> {
    let sites = checker.sites;
    let (program, events) = checker.load(&sites.iter().map(|s| s.written).collect::<Vec<_>>())?;
    let site_of: HashMap<Span, usize> =
        sites.iter().enumerate().map(|(i, s)| (s.span, i)).collect();
    let mut selectors: Vec<Vec<Bool>> = Vec::new();
    let mut session = Session::prepared(&program, &events, checker.options, |solver, encoding| {
        for site in sites {
            let lits: Vec<Bool> = site
                .choices
                .iter()
                .map(|_| Bool::Lit(solver.new_lit()))
                .collect();
            solver.exactly_one(&lits);
            selectors.push(lits);
        }
        for event in &events.events {
            let ordered = event.is_memory() || event.kind == EventKind::Fence;
            if !ordered || event.order == MemOrder::NonAtomic {
                continue;
            }
            let Some(&site) = site_of.get(&event.span) else {
                continue;
            };
            let options = sites[site]
                .choices
                .iter()
                .zip(&selectors[site])
                .map(|(&order, &selector)| OrderOption {
                    selector,
                    order,
                    failure: event.failure_order.and(order.map(failure_order)),
                })
                .collect();
            encoding.choose_order(solver, event.id, options);
        }
    })?;
    let broken = checker.violated(&mut session);
    let mut base = vec![broken];
    base.extend_from_slice(&session.enabled);
    let mut oracle = Oracle {
        sites,
        session,
        selectors,
        base,
        verdicts: HashMap::new(),
        solves: 0,
        minimal: Vec::new(),
        failing: Vec::new(),
    };
    let mut seeds = Seeds::new(sites);
    while let Some(seed) = seeds.next(sites)? {
        if oracle.passes(&seed)? {
            let least = oracle.shrink(seed)?;
            seeds.block(sites, &least, true);
            oracle.minimal.push(least);
        } else {
            let most = oracle.grow(seed)?;
            seeds.block(sites, &most, false);
            oracle.failing.push(most);
        }
    }
    let bound_hit = oracle.bound_reachable()?;
    let position = |a: &Vec<Choice>| -> Vec<usize> {
        a.iter()
            .zip(sites)
            .map(|(&c, site)| choice_index(site, c))
            .collect()
    };
    let mut minimal = oracle.minimal;
    minimal.sort_by_key(position);
    Ok(Found {
        minimal,
        checked: oracle.solves,
        passing: None,
        bound_hit,
    })
}

/// The incremental search's verdicts: one solve of the one instance per assignment, under
/// its sites' selectors.
struct Oracle<'a> {
    sites: &'a [Site],
    session: Session<'a>,
    /// Per site, per choice: the literal choosing it.
    selectors: Vec<Vec<Bool>>,
    /// Within the bound, the property broken, the model's checks in force.
    base: Vec<Bool>,
    verdicts: HashMap<Vec<Choice>, bool>,
    solves: usize,
    /// Minimal passing and maximal failing assignments found so far.
    minimal: Vec<Vec<Choice>>,
    failing: Vec<Vec<Choice>>,
}

impl Oracle<'_> {
    /// Whether the property holds under `a`: known when `a` is above a minimal passing
    /// assignment or below a maximal failing one (monotonicity), solved otherwise.
    fn passes(&mut self, a: &[Choice]) -> Result<bool, AnalysisError> {
        if self.minimal.iter().any(|m| below(m, a)) {
            return Ok(true);
        }
        if self.failing.iter().any(|f| below(a, f)) {
            return Ok(false);
        }
        if let Some(&known) = self.verdicts.get(a) {
            return Ok(known);
        }
        let mut assumptions = self.base.clone();
        for (i, choice) in a.iter().enumerate() {
            let k = choice_index(&self.sites[i], *choice);
            assumptions.push(self.selectors[i][k]);
        }
        self.solves += 1;
        let passes = self.session.solve(&assumptions)? == SolveOutcome::Unsat;
        self.verdicts.insert(a.to_vec(), passes);
        Ok(passes)
    }

    /// From a passing `a`, step down while some one-step weakening passes: the result is
    /// a minimal passing assignment (every weaker one lies below a failing cover).
    fn shrink(&mut self, mut a: Vec<Choice>) -> Result<Vec<Choice>, AnalysisError> {
        while let Some(b) = self.step(&a, Direction::Down, true)? {
            a = b;
        }
        Ok(a)
    }

    /// From a failing `a`, step up while some one-step strengthening fails.
    fn grow(&mut self, mut a: Vec<Choice>) -> Result<Vec<Choice>, AnalysisError> {
        while let Some(b) = self.step(&a, Direction::Up, false)? {
            a = b;
        }
        Ok(a)
    }

    /// A neighbour of `a` one step away in `direction` whose verdict is `passing`.
    fn step(
        &mut self,
        a: &[Choice],
        direction: Direction,
        passing: bool,
    ) -> Result<Option<Vec<Choice>>, AnalysisError> {
        for i in 0..a.len() {
            for next in covers(&self.sites[i].choices, a[i], direction) {
                let mut b = a.to_vec();
                b[i] = next;
                if self.passes(&b)? == passing {
                    return Ok(Some(b));
                }
            }
        }
        Ok(None)
    }

    fn bound_reachable(&mut self) -> Result<bool, AnalysisError> {
        if self.session.encoding.events.bound_hits.is_empty() {
            return Ok(false);
        }
        let mut assumptions = vec![self.session.encoding.bound_hit];
        assumptions.extend_from_slice(&self.session.enabled);
        Ok(self.session.solve(&assumptions)? == SolveOutcome::Sat)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Direction {
    Down,
    Up,
}

/// The choices one step below (or above) `choice`: strictly weaker (stronger), with no
/// choice of the site strictly between.
pub(super) fn covers(choices: &[Choice], choice: Choice, direction: Direction) -> Vec<Choice> {
    let beyond = |c: Choice, d: Choice| match direction {
        Direction::Down => c != d && at_most(c, d),
        Direction::Up => c != d && at_most(d, c),
    };
    let candidates: Vec<Choice> = choices
        .iter()
        .copied()
        .filter(|&c| beyond(c, choice))
        .collect();
    candidates
        .iter()
        .copied()
        .filter(|&c| !candidates.iter().any(|&d| beyond(c, d)))
        .collect()
}

fn choice_index(site: &Site, choice: Choice) -> usize {
    site.choices.iter().position(|&c| c == choice).unwrap_or(0)
}

/// The assignments not yet explored, as the models of a second solver over one literal per
/// site and choice: each minimal passing assignment blocks what lies above it, each maximal
/// failing one what lies below it.
struct Seeds {
    solver: VarisatSolver,
    /// Per site, per choice.
    lits: Vec<Vec<Bool>>,
    /// Set when a blocking clause is empty: nothing is left.
    exhausted: bool,
}

impl Seeds {
    fn new(sites: &[Site]) -> Seeds {
        let mut solver = VarisatSolver::new();
        let lits = sites
            .iter()
            .map(|site| {
                let lits: Vec<Bool> = site
                    .choices
                    .iter()
                    .map(|_| Bool::Lit(solver.new_lit()))
                    .collect();
                solver.exactly_one(&lits);
                lits
            })
            .collect();
        Seeds {
            solver,
            lits,
            exhausted: false,
        }
    }

    fn next(&mut self, sites: &[Site]) -> Result<Option<Vec<Choice>>, AnalysisError> {
        if self.exhausted || self.solver.solve(&[])? == SolveOutcome::Unsat {
            return Ok(None);
        }
        let solver = &self.solver;
        Ok(Some(
            sites
                .iter()
                .zip(&self.lits)
                .map(|(site, lits)| {
                    let k = lits.iter().position(|&l| solver.value_of(l)).unwrap_or(0);
                    site.choices[k]
                })
                .collect(),
        ))
    }

    /// No later seed lies in the up-set (`above`) or down-set of `a`: some site is given a
    /// choice outside it.
    fn block(&mut self, sites: &[Site], a: &[Choice], above: bool) {
        let mut clause = Vec::new();
        for (i, site) in sites.iter().enumerate() {
            for (k, &c) in site.choices.iter().enumerate() {
                let inside = if above {
                    at_most(a[i], c)
                } else {
                    at_most(c, a[i])
                };
                if !inside {
                    clause.push(self.lits[i][k]);
                }
            }
        }
        if clause.is_empty() {
            self.exhausted = true;
        } else {
            self.solver.clause(&clause);
        }
    }
}

/// The `i`-th assignment in mixed radix over the sites' choices (the first site varies
/// slowest), so that the search meets weaker assignments first.
fn nth(sites: &[Site], mut i: usize) -> Vec<Choice> {
    let mut assignment = vec![None; sites.len()];
    for (slot, site) in sites.iter().enumerate().rev() {
        let n = site.choices.len();
        assignment[slot] = site.choices[i % n];
        i /= n;
    }
    assignment
}
