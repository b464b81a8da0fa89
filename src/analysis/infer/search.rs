//! The two searches of the assignments of orders (see the parent module's documentation).

use std::cell::RefCell;
use std::collections::HashMap;

use super::{
    at_most, below, failure_order, racing_pair, with_orders, Checker, Choice, Failure, InferError,
    Site, Violation, MAX_ASSIGNMENTS,
};
use crate::analysis::{AnalysisError, Session, SolveOutcome};
use crate::cat::{Check, TExpr};
use crate::diagnostics::Span;
use crate::encode::cnf::{Bool, ClauseSink, Gates};
use crate::encode::OrderOption;
use crate::events::{EventId, EventKind, Events};
use crate::program::{MemOrder, Program};
use crate::solver::{solve_under, Solver, VarisatSolver};
use crate::witness::eval::{Evaluator, Explicit, Reuse};
use crate::witness::validate::{validate, ModelChecks};
use crate::witness::Execution;

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

/// The search in one instance (see the module's documentation), on the oracle's session.
pub(super) fn incremental(oracle: &mut Oracle) -> Result<Found, InferError> {
    let sites = oracle.sites;
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
    let mut minimal = std::mem::take(&mut oracle.minimal);
    minimal.sort_by_key(position);
    Ok(Found {
        minimal,
        checked: oracle.solves,
        passing: None,
        bound_hit,
    })
}

/// At most this many executions that broke the property are kept to try on later
/// assignments before solving.
const KEPT_COUNTEREXAMPLES: usize = 32;

/// An execution that broke the property under some assignment, kept to decide others.
struct Counterexample {
    execution: Execution,
    /// Per event: its guard held (whether a fence left out would have run).
    guard_held: Vec<bool>,
    /// A part of the property that no order changes broke: the condition, an assertion,
    /// a deadlock (only the model's flags depend on the orders).
    fixed: bool,
    /// Those parts, in the order of the property's parts (`Checker::violations`).
    fixed_parts: Vec<Violation>,
    /// It passed the encoding's rules when found (`witness::validate`: reads, coherence,
    /// values; nothing of them depends on the orders), and no location was left out of
    /// the encoding: it may be shown under another assignment without solving again once
    /// the model's checks hold there.
    valid: bool,
    /// The literals of its `rf`, `co` and executed accesses, with their values: assumed
    /// to find it again under another assignment, in the instance that found it.
    hints: Vec<Bool>,
    /// The instance that found it (an index into `Oracle::instances`).
    found_in: usize,
    /// What judging it under assignments told so far.
    judged: JudgedUnder,
    /// What evaluating the model on it computed that no order changes, per set of
    /// executed events (fences left out or not), the last few: the model is evaluated on
    /// it again under other orders.
    reuse: RefCell<Vec<Reuse>>,
}

/// At most this many sets of executed events keep their evaluation per kept execution.
const MAX_REUSED: usize = 4;

/// What [`Oracle::breaks`] found of one kept execution, to decide later assignments
/// without evaluating the model on it again. Only the sites some event of which runs in
/// the execution decide its verdict (the others' orders are on no executed event), and a
/// stronger order never allows more (monotonicity, as the search assumes): it breaks the
/// property under every assignment at most as strong there as one it broke it under, and
/// under none at least as strong as one under which it did not.
struct JudgedUnder {
    /// Per site: some event of it runs in the execution (a fence: when it is not left out).
    relevant: Vec<bool>,
    broken: Vec<Vec<Choice>>,
    held: Vec<Vec<Choice>>,
}

impl JudgedUnder {
    /// `a` is at most as strong as `b` on the relevant sites.
    fn below(&self, a: &[Choice], b: &[Choice]) -> bool {
        self.relevant
            .iter()
            .zip(a.iter().zip(b))
            .all(|(&r, (&x, &y))| !r || at_most(x, y))
    }

    /// The verdict under `a` that follows from those found before.
    fn known(&self, a: &[Choice]) -> Option<bool> {
        if self.broken.iter().any(|b| self.below(a, b)) {
            return Some(true);
        }
        if self.held.iter().any(|b| self.below(b, a)) {
            return Some(false);
        }
        None
    }

    fn record(&mut self, a: &[Choice], breaks: bool) {
        let list = if breaks {
            &mut self.broken
        } else {
            &mut self.held
        };
        if list.len() < MAX_JUDGED {
            list.push(a.to_vec());
        }
    }
}

/// At most this many assignments are remembered per kept execution and verdict.
const MAX_JUDGED: usize = 64;

/// One SAT instance of the written program, the solver choosing each site's order among
/// the choices the instance offers.
struct Instance<'a> {
    session: Session<'a>,
    /// Per site, per choice: the literal choosing it, `None` where it is not offered.
    selectors: Vec<Vec<Option<Bool>>>,
    /// The parts of the property, each with its literal "broken" (`Checker::violations`).
    parts: Vec<(Violation, Bool)>,
    /// Within the bound, the property broken, the model's checks in force.
    base: Vec<Bool>,
}

/// Whether the first instance offers `choice` at `site`: every choice but `seq_cst`,
/// unless the site has no other. With no site able to be `seq_cst`, the model's
/// sequential-consistency relations (RC11's `psc`) are empty before solving, which makes
/// the instance many times smaller and faster (`mcs-lock`: 8 times); the full instance is
/// built only when some assignment with `seq_cst` must be solved.
fn offered_first(site: &Site, choice: Choice) -> bool {
    choice != Some(MemOrder::SeqCst) || site.choices.iter().all(|&c| c == choice)
}

impl<'a> Instance<'a> {
    /// The written program `program` (with its `events`) encoded with each site's order
    /// chosen by the solver among the choices `offered` allows.
    fn new(
        checker: &'a Checker<'a>,
        program: &'a Program,
        events: &'a Events,
        site_of: &[Option<usize>],
        offered: impl Fn(&Site, Choice) -> bool,
    ) -> Result<Instance<'a>, AnalysisError> {
        let sites = checker.sites;
        let mut selectors: Vec<Vec<Option<Bool>>> = Vec::new();
        let mut session =
            Session::prepared(program, events, checker.options, |solver, encoding| {
                for site in sites {
                    let lits: Vec<Option<Bool>> = site
                        .choices
                        .iter()
                        .map(|&c| offered(site, c).then(|| Bool::Lit(solver.new_lit())))
                        .collect();
                    let present: Vec<Bool> = lits.iter().flatten().copied().collect();
                    solver.exactly_one(&present);
                    selectors.push(lits);
                }
                for (e, site) in site_of.iter().enumerate() {
                    let Some(site) = *site else { continue };
                    let event = &events.events[e];
                    let options = sites[site]
                        .choices
                        .iter()
                        .zip(&selectors[site])
                        .filter_map(|(&order, &selector)| {
                            Some(OrderOption {
                                selector: selector?,
                                order,
                                failure: event.failure_order.and(order.map(failure_order)),
                            })
                        })
                        .collect();
                    encoding.choose_order(solver, e, options);
                }
            })?;
        let parts = checker.violations(&mut session)?;
        let any: Vec<Bool> = parts.iter().map(|p| p.1).collect();
        let broken = session.solver.or(&any);
        let mut base = vec![broken];
        base.extend_from_slice(&session.enabled);
        Ok(Instance {
            session,
            selectors,
            parts,
            base,
        })
    }

    /// The selector literals of assignment `a`, when the instance offers it.
    fn choosing(&self, sites: &[Site], a: &[Choice]) -> Option<Vec<Bool>> {
        a.iter()
            .enumerate()
            .map(|(i, choice)| self.selectors[i][choice_index(&sites[i], *choice)])
            .collect()
    }
}

/// The incremental search's verdicts: the written program encoded once with every site's
/// order chosen by selector literals (at most twice: first without `seq_cst`, see
/// [`offered_first`]), each verdict one solve under assumptions, or none when an execution
/// already found breaks the property under the assignment asked about (evaluated on the
/// model, `witness::eval`).
pub(super) struct Oracle<'a> {
    checker: &'a Checker<'a>,
    sites: &'a [Site],
    program: &'a Program,
    events: &'a Events,
    /// The instance without `seq_cst`, then, once an assignment needs it, the full one.
    instances: Vec<Instance<'a>>,
    /// Per event: the site whose order it has.
    site_of: Vec<Option<usize>>,
    verdicts: HashMap<Vec<Choice>, bool>,
    /// Per passing assignment solved: the weaker one its failed core shows passing too.
    jumps: HashMap<Vec<Choice>, Vec<Choice>>,
    counterexamples: Vec<Counterexample>,
    solves: usize,
    /// Minimal passing and maximal failing assignments found so far.
    minimal: Vec<Vec<Choice>>,
    failing: Vec<Vec<Choice>>,
}

impl<'a> Oracle<'a> {
    /// The written program `program` (with its `events`) encoded once, the solver choosing
    /// each site's order.
    pub(super) fn new(
        checker: &'a Checker<'a>,
        program: &'a Program,
        events: &'a Events,
    ) -> Result<Oracle<'a>, InferError> {
        let sites = checker.sites;
        let site_index: HashMap<Span, usize> =
            sites.iter().enumerate().map(|(i, s)| (s.span, i)).collect();
        let mut site_of = vec![None; events.len()];
        for event in &events.events {
            let ordered = event.is_memory() || event.kind == EventKind::Fence;
            if !ordered || event.order == MemOrder::NonAtomic {
                continue;
            }
            if let Some(&site) = site_index.get(&event.span) {
                site_of[event.id] = Some(site);
            }
        }
        let first = Instance::new(checker, program, events, &site_of, offered_first)?;
        Ok(Oracle {
            checker,
            sites,
            program,
            events,
            instances: vec![first],
            site_of,
            verdicts: HashMap::new(),
            jumps: HashMap::new(),
            counterexamples: Vec::new(),
            solves: 0,
            minimal: Vec::new(),
            failing: Vec::new(),
        })
    }

    /// The instance that offers `a`, with its selector literals: the first when it does,
    /// else the full one, built on first use.
    fn instance(&mut self, a: &[Choice]) -> Result<(usize, Vec<Bool>), AnalysisError> {
        if let Some(chosen) = self.instances[0].choosing(self.sites, a) {
            return Ok((0, chosen));
        }
        if self.instances.len() == 1 {
            let (checker, program, events) = (self.checker, self.program, self.events);
            let full = Instance::new(checker, program, events, &self.site_of, |_, _| true)?;
            self.instances.push(full);
        }
        let chosen = self.instances[1].choosing(self.sites, a);
        Ok((1, chosen.unwrap_or_default()))
    }

    /// Whether the property holds under `a`: known when `a` is above a minimal passing
    /// assignment or below a maximal failing one (monotonicity), or when a kept execution
    /// breaks it under `a`; solved otherwise.
    pub(super) fn passes(&mut self, a: &[Choice]) -> Result<bool, AnalysisError> {
        if let Some(known) = known_verdict(&self.minimal, &self.failing, &self.verdicts, a) {
            return Ok(known);
        }
        if let Some(k) = self.breaking(a) {
            let kept = self.counterexamples.remove(k);
            self.counterexamples.insert(0, kept);
            self.verdicts.insert(a.to_vec(), false);
            return Ok(false);
        }
        let (k, chosen) = self.instance(a)?;
        let instance = &mut self.instances[k];
        let mut assumptions = instance.base.clone();
        assumptions.extend_from_slice(&chosen);
        self.solves += 1;
        let passes = instance.session.solve(&assumptions)? == SolveOutcome::Unsat;
        if passes {
            // The failed core names the sites that mattered: the others may take their
            // weakest order and the property still holds.
            let core = instance.session.solver.failed_core();
            let weakened: Vec<Choice> = a
                .iter()
                .enumerate()
                .map(|(i, &c)| {
                    let in_core = matches!(chosen[i], Bool::Lit(l) if core.contains(&l));
                    let weakest = weakest(&self.sites[i].choices);
                    match weakest {
                        Some(w) if !in_core => w,
                        _ => c,
                    }
                })
                .collect();
            if weakened != a {
                self.verdicts.insert(weakened.clone(), true);
                self.jumps.insert(a.to_vec(), weakened);
            }
        } else {
            let kept = self.counterexample(k);
            self.counterexamples.insert(0, kept);
            self.counterexamples.truncate(KEPT_COUNTEREXAMPLES);
        }
        self.verdicts.insert(a.to_vec(), passes);
        Ok(passes)
    }

    /// The execution of instance `k`'s last model, kept as a counterexample.
    fn counterexample(&self, k: usize) -> Counterexample {
        let session = &self.instances[k].session;
        let solver = &session.solver;
        let enc = &session.encoding;
        let truth = |b: Bool| solver.value_of(b);
        // Decoded as `Session::find` decodes a witness, final state included.
        let execution = Execution::decode(enc, &|l| solver.value(l), &session.observed);
        let guard_held: Vec<bool> = enc
            .events
            .events
            .iter()
            .map(|e| e.guard.0.iter().all(|&(c, p)| truth(enc.controls[c]) == p))
            .collect();
        // A specification's synchronisation rules read the model's `hb`, which the orders
        // change; without rules its verdict reads only values, `rf` and `co`.
        let rules = enc.events.spec.as_ref().is_some_and(|s| !s.sync.is_empty());
        let fixed_parts: Vec<Violation> = self.instances[k]
            .parts
            .iter()
            .filter(|(v, lit)| {
                let fixed_part = match v {
                    Violation::Flag(_) => false,
                    Violation::Spec => !rules,
                    _ => true,
                };
                fixed_part && truth(*lit)
            })
            .map(|(v, _)| v.clone())
            .collect();
        let interleaved = ModelChecks {
            sc: session.order.is_some(),
        };
        let valid =
            !enc.sliced.contains(&true) && validate(enc, &truth, &execution, interleaved).is_ok();
        let polar = |b: Bool| if truth(b) { b } else { !b };
        let mut hints: Vec<Bool> = Vec::new();
        for (_, _, lit) in enc.rf.iter().chain(enc.co.iter()) {
            if !lit.is_false() && lit != Bool::TRUE {
                hints.push(polar(lit));
            }
        }
        for (e, &fb) in enc.feasible.iter().enumerate() {
            let fence = enc.events.events[e].kind == EventKind::Fence;
            if !fence && !fb.is_false() && fb != Bool::TRUE {
                hints.push(polar(fb));
            }
        }
        let mut relevant = vec![false; self.sites.len()];
        for (e, site) in self.site_of.iter().enumerate() {
            let Some(site) = *site else { continue };
            let runs = match enc.events.events[e].kind {
                EventKind::Fence => guard_held[e],
                _ => execution.feasible[e],
            };
            relevant[site] |= runs;
        }
        Counterexample {
            execution,
            guard_held,
            fixed: !fixed_parts.is_empty(),
            fixed_parts,
            valid,
            hints,
            found_in: k,
            judged: JudgedUnder {
                relevant,
                broken: Vec::new(),
                held: Vec::new(),
            },
            reuse: RefCell::new(Vec::new()),
        }
    }

    /// A kept execution that breaks the property under `a`, if any: its index.
    fn breaking(&mut self, a: &[Choice]) -> Option<usize> {
        (0..self.counterexamples.len()).find(|&k| self.breaks(k, a))
    }

    /// The kept execution `k`, its fences run or left out as `a` says, is allowed by the
    /// model under `a`'s orders and breaks the property there.
    fn breaks(&mut self, k: usize, a: &[Choice]) -> bool {
        if let Some(known) = self.counterexamples[k].judged.known(a) {
            return known;
        }
        let breaks = self.judge(&self.counterexamples[k], a, false).is_some();
        self.counterexamples[k].judged.record(a, breaks);
        breaks
    }

    /// The kept execution as the witness under `a`, without a solve, when the first part of
    /// the property it breaks there is known (as `failure` shows it: the first part in the
    /// order of the property's parts, a race with its first racing pair in the order of the
    /// model's `race`); `None` when it does not break it, or was not valid when found, or
    /// when which part comes first rests on what the solver would choose.
    fn replayed(
        &self,
        cx: &Counterexample,
        a: &[Choice],
    ) -> Option<(Violation, Execution, Vec<EventId>)> {
        if !cx.valid {
            return None;
        }
        let judged = self.judge(cx, a, true)?;
        let mut execution = judged.execution;
        // The first instance's: the parts and flags are the same list in every instance.
        let first = &self.instances[0];
        execution.interleave(&first.session.encoding);
        let place = |v: &Violation| first.parts.iter().position(|(p, _)| p == v);
        let first_flag = first
            .parts
            .iter()
            .position(|(p, _)| matches!(p, Violation::Flag(_)));
        match (cx.fixed_parts.first(), judged.flag) {
            (Some(first), None) => Some((first.clone(), execution, Vec::new())),
            (Some(first), Some(_)) if place(first) < first_flag => {
                Some((first.clone(), execution, Vec::new()))
            }
            // Broken by a flag alone when found, so within the bound and blocking no thread
            // (what the flags' parts ask), which no order changes either.
            (None, Some((flag, racing))) => {
                let name = first.session.compiled.flags.get(flag)?.0.clone();
                Some((Violation::Flag(name), execution, racing))
            }
            _ => None,
        }
    }

    /// When the kept execution, its fences run or left out as `a` says, is allowed by the
    /// model under `a`'s orders and breaks the property there: that execution, and whether
    /// the model raises a flag on it. The flags are evaluated when the fixed parts do not
    /// settle the verdict, or when `flags` asks.
    fn judge(&self, cx: &Counterexample, a: &[Choice], flags: bool) -> Option<Judged> {
        // The model's checks are evaluated on the execution under `a`'s orders: any
        // instance's compiled model names them (the same checks and flags; `race`'s pairs
        // only say which racing pair comes first).
        let session = &self.instances[0].session;
        let events = session.encoding.events;
        let mut execution = cx.execution.clone();
        let mut orders = vec![None; events.len()];
        for (e, site) in self.site_of.iter().enumerate() {
            let Some(site) = *site else { continue };
            let event = &events.events[e];
            match a[site] {
                None => execution.feasible[e] = false,
                Some(order) => {
                    if event.kind == EventKind::Fence {
                        execution.feasible[e] = cx.guard_held[e];
                    }
                    let failure = event.failure_order.map(|_| failure_order(order));
                    orders[e] = Some((order, failure));
                }
            }
        }
        let explicit = Explicit::of_execution(events, &session.encoding.mutexes, &execution)
            .with_orders(orders);
        let model = &session.model;
        let mut reused = cx.reuse.borrow_mut();
        let kept = reused
            .iter()
            .position(|r| r.executed() == explicit.executed())
            .map(|i| reused.remove(i));
        let mut evaluator = explicit.evaluator_reusing(model, kept);
        let judged = self.judged(cx, &explicit, &mut evaluator, execution, flags);
        reused.insert(0, evaluator.into_reuse());
        reused.truncate(MAX_REUSED);
        judged
    }

    /// [`Oracle::judge`] on the model's evaluator of `execution` under the orders asked.
    fn judged(
        &self,
        cx: &Counterexample,
        explicit: &Explicit,
        evaluator: &mut Evaluator,
        execution: Execution,
        flags: bool,
    ) -> Option<Judged> {
        let session = &self.instances[0].session;
        let model = &session.model;
        let in_force = |check: &Check| match &check.name {
            None => true,
            Some(name) => session
                .compiled
                .selector(name)
                .is_some_and(|s| session.enabled.contains(&s)),
        };
        for check in model.checks.iter().filter(|c| !c.flag && in_force(c)) {
            if evaluator.holds(check) != Ok(true) {
                return None;
            }
        }
        if !self.checker.property.flags || (cx.fixed && !flags) {
            return cx.fixed.then_some(Judged {
                execution,
                flag: None,
            });
        }
        let flag_checks: Vec<&Check> = model.checks.iter().filter(|c| c.flag).collect();
        let raised = flag_checks
            .iter()
            .position(|check| evaluator.holds(check) == Ok(true));
        let Some(raised) = raised else {
            return cx.fixed.then_some(Judged {
                execution,
                flag: None,
            });
        };
        // The flag's name is the compiled one's at the same place: only when they pair up.
        let mut racing = Vec::new();
        if flags && flag_checks.len() == session.compiled.flags.len() {
            // The first pair of the compiled `race` that races here (`racing_pair`).
            let race = model.defs.iter().rposition(|(n, _, _)| n == "race");
            if let (Some(id), Some(pairs)) = (race, &session.compiled.race) {
                let value = evaluator.eval(&TExpr::Def(id)).ok()?;
                racing = pairs
                    .iter()
                    .find(|&(x, y, _)| x != y && explicit.related(&value, x, y))
                    .map(|(x, y, _)| vec![x.min(y), x.max(y)])
                    .unwrap_or_default();
            }
        } else if flags {
            return None;
        }
        Some(Judged {
            execution,
            flag: Some((raised, racing)),
        })
    }

    /// From a passing `a`, step down while some one-step weakening passes: the result is
    /// a minimal passing assignment (every weaker one lies below a failing cover).
    fn shrink(&mut self, mut a: Vec<Choice>) -> Result<Vec<Choice>, AnalysisError> {
        loop {
            if let Some(weaker) = self.jumps.get(&a) {
                a = weaker.clone();
                continue;
            }
            match self.step(&a, Direction::Down, true)? {
                Some(b) => a = b,
                None => return Ok(a),
            }
        }
    }

    /// From a failing `a`, step up while some one-step strengthening is known to fail
    /// without a solve (below a failing assignment found before, or broken by a kept
    /// execution). The result fails, and so does everything below it; it need not be a
    /// maximal failing assignment: the seeds then offer the least assignment above it not
    /// yet decided, and its solve either passes (a minimal passing assignment) or finds a
    /// new execution.
    fn grow(&mut self, mut a: Vec<Choice>) -> Result<Vec<Choice>, AnalysisError> {
        'up: loop {
            for i in 0..a.len() {
                for next in covers(&self.sites[i].choices, a[i], Direction::Up) {
                    let mut b = a.clone();
                    b[i] = next;
                    if self.fails_without_solving(&b) {
                        a = b;
                        continue 'up;
                    }
                }
            }
            return Ok(a);
        }
    }

    /// `a` is known to fail: below a failing assignment decided before, or a kept
    /// execution breaks the property under it.
    fn fails_without_solving(&mut self, a: &[Choice]) -> bool {
        if let Some(known) = known_verdict(&self.minimal, &self.failing, &self.verdicts, a) {
            return !known;
        }
        match self.breaking(a) {
            Some(k) => {
                let kept = self.counterexamples.remove(k);
                self.counterexamples.insert(0, kept);
                self.verdicts.insert(a.to_vec(), false);
                true
            }
            None => false,
        }
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

    pub(super) fn bound_reachable(&mut self) -> Result<bool, AnalysisError> {
        // Under any assignment; the first instance's are enough, since an assignment's
        // executions are those of any weaker one (`seq_cst` made `acq_rel`) too.
        let session = &mut self.instances[0].session;
        if session.encoding.events.bound_hits.is_empty() {
            return Ok(false);
        }
        let mut assumptions = vec![session.encoding.bound_hit];
        assumptions.extend_from_slice(&session.enabled);
        Ok(session.solve(&assumptions)? == SolveOutcome::Sat)
    }

    /// An execution breaking the property under `a`, found in the one instance and
    /// checked (`Session::find`) under `a`'s orders; the first part of the property broken
    /// is the one shown. A kept execution that breaks it guides the solver there first.
    pub(super) fn failure(&mut self, a: &[Choice]) -> Result<Option<Failure>, InferError> {
        let kept = self.breaking(a);
        let mut found = None;
        let mut racing = None;
        if let Some(k) = kept {
            // A kept execution valid when found and breaking the property under `a` is
            // the witness without a solve, when it is known which part comes first. The
            // hinted solve below would find it again (`rf`, `co` and the accesses that run
            // fixed by its hints) and show that part.
            if let Some((violation, execution, pair)) = self.replayed(&self.counterexamples[k], a) {
                found = Some((violation, execution));
                racing = Some(pair);
            }
        }
        // A solve is left: in the instance that offers `a`.
        let (instance, chosen) = match found {
            Some(_) => (0, Vec::new()),
            None => self.instance(a)?,
        };
        let parts = self.instances[instance].parts.clone();
        let hint = kept
            .filter(|&k| found.is_none() && self.counterexamples[k].found_in == instance)
            .map(|k| self.counterexamples[k].hints.clone());
        let Instance { session, base, .. } = &mut self.instances[instance];
        if let Some(hint) = hint {
            // The kept execution, found again: the part shown is the first it breaks.
            let mut all = vec![base[0]];
            all.extend_from_slice(&chosen);
            all.extend_from_slice(&hint);
            if let Some(execution) = session.find(&all)? {
                let solver = &session.solver;
                let part = parts.iter().find(|(_, lit)| solver.value_of(*lit));
                found = part.map(|(violation, _)| (violation.clone(), execution));
            }
        }
        for (violation, broken) in parts {
            if found.is_some() {
                break;
            }
            if broken.is_false() {
                continue;
            }
            let mut all = vec![broken];
            all.extend_from_slice(&chosen);
            if let Some(execution) = session.find(&all)? {
                found = Some((violation, execution));
            }
        }
        let Some((violation, execution)) = found else {
            return Ok(None);
        };
        let racing = racing.unwrap_or_else(|| racing_pair(session, &violation));
        let program = with_orders(self.checker.program, self.sites, a);
        let mut events = self.events.clone();
        for (e, site) in self.site_of.iter().enumerate() {
            let Some(site) = *site else { continue };
            if let Some(order) = a[site] {
                let event = &mut events.events[e];
                event.order = order;
                event.failure_order = event.failure_order.map(|_| failure_order(order));
            }
        }
        Ok(Some(Failure {
            assignment: a.to_vec(),
            violation,
            program,
            events,
            execution,
            racing,
        }))
    }
}

/// A kept execution allowed under an assignment and breaking the property there
/// (`Oracle::judge`).
struct Judged {
    /// Its fences run or left out as the assignment says.
    execution: Execution,
    /// The first of the model's flags raised on it, when they were evaluated, with the
    /// first racing pair (empty when the model has no `race`).
    flag: Option<(usize, Vec<EventId>)>,
}

/// The choice at most as strong as every other of the site's, if there is one.
fn weakest(choices: &[Choice]) -> Option<Choice> {
    choices
        .iter()
        .copied()
        .find(|&c| choices.iter().all(|&d| at_most(c, d)))
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Direction {
    Down,
    Up,
}

/// The verdict under `a` that is already known: passing when `a` is above a minimal
/// passing assignment, failing when below a maximal failing one (monotonicity), or the
/// verdict of an earlier solve.
pub(super) fn known_verdict(
    minimal: &[Vec<Choice>],
    failing: &[Vec<Choice>],
    verdicts: &HashMap<Vec<Choice>, bool>,
    a: &[Choice],
) -> Option<bool> {
    if minimal.iter().any(|m| below(m, a)) {
        return Some(true);
    }
    if failing.iter().any(|f| below(a, f)) {
        return Some(false);
    }
    verdicts.get(a).copied()
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
pub(super) struct Seeds {
    solver: VarisatSolver,
    /// Per site, per choice.
    lits: Vec<Vec<Bool>>,
    /// Set when a blocking clause is empty: nothing is left.
    exhausted: bool,
}

impl Seeds {
    pub(super) fn new(sites: &[Site]) -> Seeds {
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

    /// An assignment not yet explored with none strictly below it unexplored: whatever
    /// lies below it is known to fail (it is below a failing assignment blocked before; it
    /// cannot be above a passing one, or the seed would be too), so when it passes it is
    /// a minimal passing assignment with no walk down, and when it fails it is as weak as
    /// a failing seed can be.
    pub(super) fn next(&mut self, sites: &[Site]) -> Result<Option<Vec<Choice>>, AnalysisError> {
        if self.exhausted || self.solver.solve(&[])? == SolveOutcome::Unsat {
            return Ok(None);
        }
        let mut seed = self.model(sites);
        // Lower one site below its choice, every other site at most at its own, while the
        // seed solver finds an unexplored assignment there (each solve is over a few
        // literals per site).
        'down: loop {
            for i in 0..sites.len() {
                for lower in covers(&sites[i].choices, seed[i], Direction::Down) {
                    let mut bound = seed.clone();
                    bound[i] = lower;
                    let mut assumptions = Vec::new();
                    for (j, site) in sites.iter().enumerate() {
                        for (k, &c) in site.choices.iter().enumerate() {
                            if !at_most(c, bound[j]) {
                                assumptions.push(!self.lits[j][k]);
                            }
                        }
                    }
                    if solve_under(&mut self.solver, &assumptions)? == SolveOutcome::Sat {
                        seed = self.model(sites);
                        continue 'down;
                    }
                }
            }
            return Ok(Some(seed));
        }
    }

    /// The assignment of the seed solver's last model.
    fn model(&self, sites: &[Site]) -> Vec<Choice> {
        let solver = &self.solver;
        sites
            .iter()
            .zip(&self.lits)
            .map(|(site, lits)| {
                let k = lits.iter().position(|&l| solver.value_of(l)).unwrap_or(0);
                site.choices[k]
            })
            .collect()
    }

    /// No later seed lies in the up-set (`above`) or down-set of `a`: some site is given a
    /// choice outside it.
    pub(super) fn block(&mut self, sites: &[Site], a: &[Choice], above: bool) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::MemOrder::*;

    fn site(access: super::super::Access) -> Site {
        Site {
            thread: 0,
            access,
            span: Span::default(),
            line: 1,
            written: None,
            choices: access.choices(),
            pinned: false,
        }
    }

    /// A kept execution's verdicts decide, by monotonicity, the assignments below one it
    /// broke the property under and above one it did not, looking only at the sites that
    /// run in it; anything else is left to evaluate.
    #[test]
    fn judged_verdicts_follow_monotonicity_on_the_sites_that_run() {
        let mut judged = JudgedUnder {
            relevant: vec![true, true, false],
            broken: Vec::new(),
            held: Vec::new(),
        };
        judged.record(&[Some(Acquire), Some(Relaxed), Some(SeqCst)], true);
        judged.record(&[Some(Relaxed), Some(Release), None], false);
        // Weaker on the sites that run (the third site's order does not matter): broken.
        assert_eq!(
            judged.known(&[Some(Relaxed), Some(Relaxed), Some(Relaxed)]),
            Some(true)
        );
        assert_eq!(
            judged.known(&[Some(Acquire), Some(Relaxed), None]),
            Some(true)
        );
        // Stronger than where it held: not broken.
        assert_eq!(
            judged.known(&[Some(SeqCst), Some(Release), Some(Relaxed)]),
            Some(false)
        );
        // Incomparable with both: unknown (acquire is not below release).
        assert_eq!(judged.known(&[Some(SeqCst), Some(Relaxed), None]), None);
        assert_eq!(judged.known(&[Some(Relaxed), Some(Acquire), None]), None);
    }

    /// The seeds are minimal among the unexplored assignments: with a monotone verdict
    /// (passing exactly above one of some targets), a seed that passes is blocked as it is,
    /// with no walk down, and a failing one only as itself; the passing seeds are then
    /// exactly the minimal targets, found with one verdict each.
    #[test]
    fn passing_seeds_are_the_minimal_passing_assignments() {
        use super::super::Access;
        let sites = vec![site(Access::Load), site(Access::Rmw), site(Access::Fence)];
        let targets: Vec<Vec<Choice>> = vec![
            vec![Some(Acquire), Some(Release), None],
            vec![Some(Relaxed), Some(Acquire), Some(Release)],
            vec![Some(Relaxed), Some(AcqRel), Some(Release)],
            vec![Some(SeqCst), Some(Relaxed), Some(SeqCst)],
        ];
        let passes = |a: &[Choice]| targets.iter().any(|t| below(t, a));
        let minimal: Vec<&Vec<Choice>> = targets
            .iter()
            .filter(|t| !targets.iter().any(|u| u != *t && below(u, t)))
            .collect();
        let mut seeds = Seeds::new(&sites);
        let mut found = Vec::new();
        let mut verdicts = 0;
        while let Some(seed) = seeds.next(&sites).unwrap() {
            verdicts += 1;
            if passes(&seed) {
                for (i, s) in sites.iter().enumerate() {
                    for lower in covers(&s.choices, seed[i], Direction::Down) {
                        let mut b = seed.clone();
                        b[i] = lower;
                        assert!(!passes(&b), "{seed:?} passes and is not minimal");
                    }
                }
                seeds.block(&sites, &seed, true);
                found.push(seed);
            } else {
                seeds.block(&sites, &seed, false);
            }
            assert!(verdicts <= 135, "more seeds than assignments");
        }
        found.sort_by_key(|a| format!("{a:?}"));
        let mut expected: Vec<Vec<Choice>> = minimal.into_iter().cloned().collect();
        expected.sort_by_key(|a| format!("{a:?}"));
        assert_eq!(found, expected);
    }
}
