//! Memory-order inference, as CDSSpec's InferParams asks it: which memory orders does a
//! program need for its property to hold?
//!
//! Every atomic access and fence of the program is a *site*; each site may take the orders
//! its kind allows (a load: relaxed, acquire, seq_cst; a store: relaxed, release, seq_cst;
//! a read-modify-write or a compare-exchange: also acq_rel; a fence: removed, acquire,
//! release, acq_rel, seq_cst). An *assignment* gives every site one order. The property
//! holds under an assignment when no execution the model allows (within the unrolling
//! bound) breaks it. The answer is every *minimal* passing assignment: one under which the
//! property holds and under which no site can be weakened, alone or with others, without
//! breaking it; and for each site of each, the execution that breaks the property when
//! that site alone is one step weaker.
//!
//! Two searches give the same answer where the model is monotone in the orders (a
//! stronger order never allows more executions: true of RC11 and C11, and
//! `tests/it/infer.rs` compares the two on every test of `litmus/` and the corpus it can):
//! - *incremental* (the default): one instance in which the solver chooses every site's
//!   order through selector literals; the assignments are searched as CEGAR would, MARCO's
//!   way: an unexplored assignment from a second solver, taken minimal among the unexplored
//!   ones (so that one that passes is a minimal passing one at once), a failing one grown
//!   while kept executions still break the property, whose up-set or down-set is then
//!   blocked. Each verdict is one solve under assumptions. The instance is built first
//!   without `seq_cst` (RC11's `psc` is then empty before solving), and with every order
//!   only once an assignment with `seq_cst` must be solved.
//! - *exhaustive*: every assignment is rewritten, unrolled and solved in a session of its
//!   own, so the answer does not rest on monotonicity (a user's `.cat` need not have it).
//!   The number of assignments is checked against a limit before any is solved.
//!
//! Either way, the answer's witnesses come from sessions of the rewritten programs, and the
//! incremental search's minimal assignments are checked there too: a model that is not
//! monotone is reported, not answered wrongly at those points.

mod patch;
mod search;
mod together;

use std::collections::HashMap;

use serde::Serialize;

pub use patch::{patched, PatchError};
use search::{covers, exhaustive, incremental, Direction, Oracle};
pub use together::{together, SharedMinimal, SharedReason, SharedSite, Together, TogetherError};

use super::spec::SpecMode;
use super::{AnalysisError, AnalysisOptions, Session};
use crate::diagnostics::Span;
use crate::encode::cnf::{Bool, Gates};
use crate::events::{self, EventId, Events, UnrollOptions};
use crate::load::LoadError;
use crate::program::{Address, Instr, MemOrder, Program, Quantifier};

use crate::witness::Execution;

/// How [`infer`] searches the assignments of orders.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Search {
    /// One instance, the solver choosing the orders; assumes the model monotone.
    #[default]
    Incremental,
    /// One instance per assignment; assumes nothing of the model.
    Exhaustive,
}

/// More assignments than this are refused before the exhaustive search starts.
pub const MAX_ASSIGNMENTS: usize = 4096;

/// What kind of access a site is, which decides the orders it may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    Load,
    Store,
    Rmw,
    CompareExchange,
    Fence,
}

impl Access {
    /// The orders the site may take, weakest first; `None` is a removed fence.
    fn choices(self) -> Vec<Choice> {
        use MemOrder::*;
        let orders: &[MemOrder] = match self {
            Access::Load => &[Relaxed, Acquire, SeqCst],
            Access::Store => &[Relaxed, Release, SeqCst],
            Access::Rmw | Access::CompareExchange => &[Relaxed, Acquire, Release, AcqRel, SeqCst],
            Access::Fence => &[Acquire, Release, AcqRel, SeqCst],
        };
        let removed = (self == Access::Fence).then_some(None);
        removed
            .into_iter()
            .chain(orders.iter().map(|&o| Some(o)))
            .collect()
    }

    pub fn name(self) -> &'static str {
        match self {
            Access::Load => "load",
            Access::Store => "store",
            Access::Rmw => "read-modify-write",
            Access::CompareExchange => "compare-exchange",
            Access::Fence => "fence",
        }
    }
}

/// A site's order; `None` for a fence left out.
pub type Choice = Option<MemOrder>;

/// `a` is at most as strong as `b` in C11's order of memory orders (consume counts as
/// acquire; acquire and release are incomparable; a removed fence is weakest).
pub fn at_most(a: Choice, b: Choice) -> bool {
    use MemOrder::*;
    let (Some(a), Some(b)) = (a, b) else {
        return a.is_none();
    };
    let strength = |o: MemOrder| match o {
        NonAtomic | Relaxed => (false, false, 0),
        Consume | Acquire => (true, false, 1),
        Release => (false, true, 1),
        AcqRel => (true, true, 2),
        SeqCst => (true, true, 3),
    };
    let (a_acq, a_rel, a_rank) = strength(a);
    let (b_acq, b_rel, b_rank) = strength(b);
    a_rank <= b_rank && (!a_acq || b_acq) && (!a_rel || b_rel)
}

/// How a choice is written in reports and in patched programs.
pub fn choice_name(choice: Choice) -> &'static str {
    match choice {
        None => "removed",
        Some(MemOrder::NonAtomic) => "non-atomic",
        Some(MemOrder::Relaxed) => "relaxed",
        Some(MemOrder::Consume) => "consume",
        Some(MemOrder::Acquire) => "acquire",
        Some(MemOrder::Release) => "release",
        Some(MemOrder::AcqRel) => "acq_rel",
        Some(MemOrder::SeqCst) => "seq_cst",
    }
}

/// One atomic access or fence of the source whose order varies. A site is a place in the
/// source: every event it unrolls into, in every thread that runs it, has its order.
#[derive(Clone, Debug, Serialize)]
pub struct Site {
    /// Index into [`Program::threads`]: the first thread that runs it.
    pub thread: usize,
    pub access: Access,
    #[serde(skip)]
    pub span: Span,
    /// 1-based source line.
    pub line: usize,
    /// The order the program gives it.
    pub written: Choice,
    /// The orders the search tries, weakest first (only `written` when pinned).
    #[serde(skip)]
    pub choices: Vec<Choice>,
    pub pinned: bool,
}

/// The atomic accesses and fences of `program`, in thread and program order. An access
/// to a location the front end made rather than the program named (its name is no C
/// identifier: the C front end's `spawn#1`, through which a thread's creation
/// synchronises) is pinned to its order: it is not the program's to weaken.
pub fn sites(program: &Program) -> Vec<Site> {
    let mut sites = Vec::new();
    for (thread, t) in program.threads.iter().enumerate() {
        visit_sites(&t.body, &mut |access, span, written, instr| {
            if sites.iter().any(|s: &Site| s.span == span) {
                return;
            }
            let (line, _) = program.source.line_col(span.start);
            let made = matches!(instr.address(), Some(Address::Fixed(id))
                if program.locations[*id].name.contains('#'));
            sites.push(Site {
                thread,
                access,
                span,
                line,
                written,
                choices: if made {
                    vec![written]
                } else {
                    access.choices()
                },
                pinned: made,
            })
        });
    }
    sites
}

/// Calls `f` on every site of `body` in program order (loop conditions before loop bodies).
fn visit_sites(body: &[Instr], f: &mut impl FnMut(Access, Span, Choice, &Instr)) {
    for instr in body {
        match instr {
            Instr::Load { order, span, .. } if *order != MemOrder::NonAtomic => {
                f(Access::Load, *span, Some(*order), instr)
            }
            Instr::Store { order, span, .. } if *order != MemOrder::NonAtomic => {
                f(Access::Store, *span, Some(*order), instr)
            }
            Instr::Rmw { order, span, .. } => f(Access::Rmw, *span, Some(*order), instr),
            Instr::CompareExchange { success, span, .. } => {
                f(Access::CompareExchange, *span, Some(*success), instr)
            }
            Instr::Fence { order, span, .. } => f(Access::Fence, *span, Some(*order), instr),
            _ => {}
        }
        for block in instr.nested() {
            visit_sites(block, f);
        }
    }
}

/// `program` with the sites' orders replaced by `assignment` (one choice per site).
pub fn with_orders(program: &Program, sites: &[Site], assignment: &[Choice]) -> Program {
    // A pinned site keeps the order of each access it covers: one span may cover a store
    // and a load of a location the front end made (a thread's creation and its start).
    let chosen: HashMap<Span, Choice> = sites
        .iter()
        .zip(assignment)
        .filter(|(site, _)| !site.pinned)
        .map(|(site, &choice)| (site.span, choice))
        .collect();
    let mut program = program.clone();
    for thread in &mut program.threads {
        thread.body = rewrite(&thread.body, &chosen);
    }
    program
}

fn rewrite(body: &[Instr], chosen: &HashMap<Span, Choice>) -> Vec<Instr> {
    let mut out = Vec::with_capacity(body.len());
    for instr in body {
        let mut instr = instr.clone();
        let choice = |span: &Span| chosen.get(span).copied();
        match &mut instr {
            Instr::Load { order, span, .. } | Instr::Store { order, span, .. }
                if *order != MemOrder::NonAtomic =>
            {
                *order = choice(span).flatten().unwrap_or(*order);
            }
            Instr::Rmw { order, span, .. } => *order = choice(span).flatten().unwrap_or(*order),
            Instr::CompareExchange {
                success,
                failure,
                span,
                ..
            } => {
                *success = choice(span).flatten().unwrap_or(*success);
                *failure = failure_order(*success);
            }
            Instr::Fence { order, span, .. } => match choice(span) {
                Some(Some(chosen)) => *order = chosen,
                Some(None) => continue,
                None => {}
            },
            Instr::If {
                then_branch,
                else_branch,
                ..
            } => {
                *then_branch = rewrite(then_branch, chosen);
                *else_branch = rewrite(else_branch, chosen);
            }
            Instr::While {
                cond_prelude, body, ..
            } => {
                *cond_prelude = rewrite(cond_prelude, chosen);
                *body = rewrite(body, chosen);
            }
            Instr::AtomicBlock { body, .. } => *body = rewrite(body, chosen),
            _ => {}
        }
        out.push(instr);
    }
    out
}

/// The strongest order C11 allows on the failure of a compare-exchange with this success
/// order (no release part, never stronger than the success).
fn failure_order(success: MemOrder) -> MemOrder {
    match success {
        MemOrder::AcqRel => MemOrder::Acquire,
        MemOrder::Release => MemOrder::Relaxed,
        other => other,
    }
}

/// Which parts of the property must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Property {
    /// The final condition: an `exists` or `~exists` outcome is never reached, a `forall`
    /// always holds.
    pub condition: bool,
    /// No assertion fails and no access is invalid (an address check is an assertion).
    pub assertions: bool,
    /// No flag of the model is raised (the C11 models flag data races as `undefined`).
    pub flags: bool,
    /// No thread is blocked for good: `check` counts a deadlock as a defect, so orders
    /// under which one is reachable are not enough.
    pub deadlocks: bool,
    /// Every execution fits the test's `spec { }` block in this mode (CDSSpec's loosely or
    /// strictly exhaustive correctness over the model's executions), when it has one.
    /// Linearizability is not offered: it is decided over SC executions only, which no
    /// memory order changes.
    pub spec: Option<SpecMode>,
}

impl Default for Property {
    fn default() -> Self {
        Property {
            condition: true,
            assertions: true,
            flags: true,
            deadlocks: true,
            spec: Some(SpecMode::Loose),
        }
    }
}

/// What breaks the property in an execution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "snake_case")]
pub enum Violation {
    /// The condition's outcome is reached (`exists`, `~exists`) or missed (`forall`).
    Condition,
    Assertion,
    /// The model raises this flag.
    Flag(String),
    /// Some thread is blocked for good.
    Deadlock,
    /// No history of the method calls consistent with the ordering points fits the
    /// specification (loose mode), or some consistent history does not (strict mode).
    Spec,
}

/// An execution breaking the property under one assignment, with the program and events it
/// is an execution of (each assignment unrolls into its own events).
#[derive(Clone, Debug)]
pub struct Failure {
    pub assignment: Vec<Choice>,
    pub violation: Violation,
    pub program: Program,
    pub events: Events,
    pub execution: Execution,
    /// For a flag the model's `race` raises: the two racing accesses (as `races` marks
    /// them).
    pub racing: Vec<EventId>,
}

/// The accesses the model's `race` relates in the session's last model, when `violation`
/// is a flag: the first pair.
fn racing_pair(session: &Session, violation: &Violation) -> Vec<EventId> {
    let (Violation::Flag(_), Some(race)) = (violation, &session.compiled.race) else {
        return Vec::new();
    };
    race.iter()
        .find(|&(a, b, lit)| a != b && session.solver.value_of(lit))
        .map(|(a, b, _)| vec![a.min(b), a.max(b)])
        .unwrap_or_default()
}

/// Why a site of a minimal assignment cannot be weaker.
#[derive(Clone, Debug)]
pub struct Reason {
    pub site: usize,
    /// The one-step weaker order tried, and what broke.
    pub weaker: Choice,
    pub failure: Failure,
}

/// A minimal passing assignment.
#[derive(Clone, Debug)]
pub struct Minimal {
    pub assignment: Vec<Choice>,
    /// One per site that is not at its weakest choice.
    pub reasons: Vec<Reason>,
}

/// The answer of [`infer`].
#[derive(Clone, Debug)]
pub struct Inference {
    pub sites: Vec<Site>,
    pub property: Property,
    pub search: Search,
    /// How many assignments there are (saturating).
    pub assignments: usize,
    /// Assignments whose verdict a solve decided.
    pub checked: usize,
    /// How many assignments pass (known to the exhaustive search only).
    pub passing: Option<usize>,
    /// Every minimal passing assignment, in the order the search met them.
    pub minimal: Vec<Minimal>,
    /// The program's own orders break the property: what breaks, if so.
    pub written_failure: Option<Failure>,
    /// The minimal assignments to compare the written one with: those at most as strong
    /// where it passes (what can be weakened), those at least as strong where it fails
    /// (the smallest strengthenings that fix it).
    pub nearest: Vec<usize>,
    /// Some execution of some assignment needs more loop iterations than were unrolled:
    /// the verdicts speak of the executions within the bound.
    pub bound_hit: bool,
}

impl Inference {
    /// The minimal assignment to adopt: the first nearest the written orders (the written
    /// ones weakened, or a smallest fix of them), else the first.
    pub fn suggested(&self) -> Option<&Minimal> {
        let first_nearest = self.nearest.first().and_then(|&n| self.minimal.get(n));
        first_nearest.or(self.minimal.first())
    }

    /// The written assignment.
    pub fn written(&self) -> Vec<Choice> {
        self.sites.iter().map(|s| s.written).collect()
    }
}

/// Why an inference could not run.
#[derive(Debug, thiserror::Error)]
pub enum InferError {
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    #[error(
        "{count} assignments of memory orders to {sites} sites exceed the limit of {limit}; pin some sites with --keep LINE"
    )]
    TooMany {
        count: usize,
        sites: usize,
        limit: usize,
    },
    #[error("the unrolled program does not load: {0}")]
    Unroll(String),
    #[error("infer checks a specification in loose or strict mode: linearizability is decided over SC executions only, which no memory order changes")]
    Linearizable,
}

/// Search the assignments of orders to the sites of `program` (pinning those on the given
/// source lines to their written order) for the minimal ones under which `property` holds.
pub fn infer(
    program: &Program,
    unroll: u32,
    options: &AnalysisOptions,
    property: Property,
    keep_lines: &[usize],
    search: Search,
) -> Result<Inference, InferError> {
    if property.spec == Some(SpecMode::Linearizable) {
        return Err(InferError::Linearizable);
    }
    // Without sites there is one assignment, the program as written: the answer still
    // says whether it is correct.
    let mut sites = sites(program);
    for site in &mut sites {
        if keep_lines.contains(&site.line) {
            site.pinned = true;
            site.choices = vec![site.written];
        } else if !site.choices.contains(&site.written) {
            // A consume load, say: tried as written too, so the written program is covered.
            site.choices.insert(0, site.written);
        }
    }
    let assignments = sites
        .iter()
        .fold(1usize, |n, s| n.saturating_mul(s.choices.len()));
    let checker = Checker {
        program,
        sites: &sites,
        unroll,
        options,
        property,
    };
    let written: Vec<Choice> = sites.iter().map(|s| s.written).collect();
    let (found, minimal, written_failure) = match search {
        Search::Exhaustive => {
            let found = exhaustive(&checker, assignments)?;
            let mut failure = |a: &[Choice]| checker.failure(a);
            let minimal = explained(&sites, &found.minimal, &mut failure)?;
            let written_failure = failure(&written)?;
            (found, minimal, written_failure)
        }
        Search::Incremental => {
            // Every verdict, and every witness shown, comes from the one instance; each
            // witness is checked under the orders it is shown with (`Session::find`).
            let (program, events) = checker.load(&written)?;
            let mut oracle = Oracle::new(&checker, &program, &events)?;
            let found = incremental(&mut oracle)?;
            let mut failure = |a: &[Choice]| oracle.failure(a);
            let minimal = explained(&sites, &found.minimal, &mut failure)?;
            let written_failure = failure(&written)?;
            (found, minimal, written_failure)
        }
    };
    let nearest = minimal
        .iter()
        .enumerate()
        .filter(|(_, m)| match written_failure {
            None => below(&m.assignment, &written),
            Some(_) => below(&written, &m.assignment),
        })
        .map(|(i, _)| i)
        .collect();
    Ok(Inference {
        sites,
        property,
        search,
        assignments,
        checked: found.checked,
        passing: found.passing,
        minimal,
        written_failure,
        nearest,
        bound_hit: found.bound_hit,
    })
}

/// What finds an execution breaking the property under an assignment.
type FindFailure<'f> = dyn FnMut(&[Choice]) -> Result<Option<Failure>, InferError> + 'f;

/// Each minimal assignment with its reasons: per site that is not at its weakest, the
/// execution that breaks the property when that site alone is one step weaker.
fn explained(
    sites: &[Site],
    found: &[Vec<Choice>],
    failure: &mut FindFailure,
) -> Result<Vec<Minimal>, InferError> {
    let mut minimal = Vec::new();
    for assignment in found {
        let mut reasons = Vec::new();
        for (i, site) in sites.iter().enumerate() {
            let Some(weaker) = one_step_weaker(&site.choices, assignment[i]) else {
                continue;
            };
            let mut tried = assignment.clone();
            tried[i] = weaker;
            // Minimality makes every weaker assignment fail; the failure is found again to
            // show it.
            let failure = failure(&tried)?.ok_or_else(|| {
                AnalysisError::Evaluation(format!(
                    "a minimal assignment of memory orders has a passing weakening at site {}",
                    i + 1
                ))
            })?;
            reasons.push(Reason {
                site: i,
                weaker,
                failure,
            });
        }
        minimal.push(Minimal {
            assignment: assignment.clone(),
            reasons,
        });
    }
    Ok(minimal)
}

/// Every site of `a` is at most as strong as in `b`.
fn below(a: &[Choice], b: &[Choice]) -> bool {
    a.iter().zip(b).all(|(&x, &y)| at_most(x, y))
}

/// A choice strictly weaker than `choice` with none strictly between (the first such in
/// the site's list).
fn one_step_weaker(choices: &[Choice], choice: Choice) -> Option<Choice> {
    covers(choices, choice, Direction::Down).first().copied()
}

struct Checker<'a> {
    program: &'a Program,
    sites: &'a [Site],
    unroll: u32,
    options: &'a AnalysisOptions,
    property: Property,
}

impl Checker<'_> {
    fn load(&self, assignment: &[Choice]) -> Result<(Program, Events), InferError> {
        let program = with_orders(self.program, self.sites, assignment);
        // The solver may choose a load's and an exchange's orders apart: retry loops stay
        // unrolled (`events::unroll_keeping_retry_loops`).
        let events = events::unroll_keeping_retry_loops(
            &program,
            UnrollOptions {
                unroll: self.unroll,
                max_events: None,
                end_threads_at_bound: false,
                forward_stores: false,
            },
        )
        .map_err(|e| InferError::Unroll(LoadError::from(e).short()))?;
        Ok((program, events))
    }

    /// Whether the property holds under `assignment`, and whether the bound cut some
    /// execution.
    fn passes(&self, assignment: &[Choice]) -> Result<(bool, bool), InferError> {
        let (program, events) = self.load(assignment)?;
        let mut session = Session::new(&program, &events, self.options)?;
        let broken = self.violation(&mut session)?.is_some();
        let cut = session.bound_reachable()?;
        Ok((!broken, cut))
    }

    fn failure(&self, assignment: &[Choice]) -> Result<Option<Failure>, InferError> {
        let (program, events) = self.load(assignment)?;
        let found = {
            let mut session = Session::new(&program, &events, self.options)?;
            self.violation(&mut session)?.map(|(violation, execution)| {
                let racing = racing_pair(&session, &violation);
                (violation, execution, racing)
            })
        };
        Ok(found.map(|(violation, execution, racing)| Failure {
            assignment: assignment.to_vec(),
            violation,
            program,
            events,
            execution,
            racing,
        }))
    }

    /// What breaks the property, each with its literal, in the order they are looked for.
    /// Each literal carries its own scope: a deadlock is an execution within the bound in
    /// which a thread is blocked; the other parts speak of the executions within the bound
    /// in which none is (as `check`'s answers do).
    fn violations(&self, session: &mut Session) -> Result<Vec<(Violation, Bool)>, AnalysisError> {
        let within = session.within_bound;
        let mut parts = Vec::new();
        if self.property.condition {
            if let Some(condition) = &session.encoding.program.condition {
                let quantifier = condition.quantifier;
                let holds = session.condition();
                let breaking = match quantifier {
                    Quantifier::Exists | Quantifier::NotExists => holds,
                    Quantifier::Forall => !holds,
                };
                let breaking = session.solver.and2(within, breaking);
                parts.push((Violation::Condition, breaking));
            }
        }
        if self.property.assertions {
            let failures: Vec<Bool> = session
                .encoding
                .assertion_failures
                .iter()
                .map(|f| f.1)
                .collect();
            let any = session.solver.or(&failures);
            let any = session.solver.and2(within, any);
            parts.push((Violation::Assertion, any));
        }
        if self.property.flags {
            for (name, flag) in session.compiled.flags.clone() {
                let flag = session.solver.and2(within, flag);
                parts.push((Violation::Flag(name), flag));
            }
        }
        if self.property.deadlocks && !session.encoding.events.waits.is_empty() {
            let blocked = session
                .solver
                .and2(!session.encoding.bound_hit, session.encoding.deadlock);
            parts.push((Violation::Deadlock, blocked));
        }
        if let Some(mode) = self.property.spec {
            if let Some(spec) = session.encode_spec(mode)? {
                let broken = session.solver.and2(within, spec.violation);
                parts.push((Violation::Spec, broken));
            }
        }
        Ok(parts)
    }

    fn violation(
        &self,
        session: &mut Session,
    ) -> Result<Option<(Violation, Execution)>, AnalysisError> {
        for (violation, broken) in self.violations(session)? {
            if broken.is_false() {
                continue;
            }
            if let Some(execution) = session.find(&[broken])? {
                return Ok(Some((violation, execution)));
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use MemOrder::*;

    #[test]
    fn the_order_of_orders_is_c11s() {
        assert!(at_most(Some(Relaxed), Some(Acquire)));
        assert!(at_most(Some(Acquire), Some(AcqRel)));
        assert!(at_most(Some(Release), Some(SeqCst)));
        assert!(!at_most(Some(Acquire), Some(Release)));
        assert!(!at_most(Some(Release), Some(Acquire)));
        assert!(!at_most(Some(SeqCst), Some(AcqRel)));
        assert!(at_most(None, Some(Acquire)));
        assert!(!at_most(Some(Relaxed), None));
    }

    #[test]
    fn one_step_weaker_is_a_lower_cover() {
        let rmw = Access::Rmw.choices();
        assert_eq!(one_step_weaker(&rmw, Some(SeqCst)), Some(Some(AcqRel)));
        assert_eq!(one_step_weaker(&rmw, Some(AcqRel)), Some(Some(Acquire)));
        assert_eq!(one_step_weaker(&rmw, Some(Release)), Some(Some(Relaxed)));
        assert_eq!(one_step_weaker(&rmw, Some(Relaxed)), None);
        let fence = Access::Fence.choices();
        assert_eq!(one_step_weaker(&fence, Some(Acquire)), Some(None));
    }

    #[test]
    fn covers_go_one_step_either_way() {
        let rmw = Access::Rmw.choices();
        assert_eq!(
            covers(&rmw, Some(Relaxed), Direction::Up),
            vec![Some(Acquire), Some(Release)]
        );
        assert_eq!(
            covers(&rmw, Some(AcqRel), Direction::Down),
            vec![Some(Acquire), Some(Release)]
        );
        assert_eq!(covers(&rmw, Some(SeqCst), Direction::Up), vec![]);
        let fence = Access::Fence.choices();
        assert_eq!(
            covers(&fence, None, Direction::Up),
            vec![Some(Acquire), Some(Release)]
        );
    }
}
