//! Fixes for a critical set, each checked on the rewritten program.
//!
//! Candidates are edits of the source text (everything else kept byte for byte):
//! - a fresh mutex (`m`, or the first free `mN`), declared in the init block and locked
//!   around, in each thread of the set, the `atomic { }` block holding its critical
//!   statements (FGVT's fix: make the operation atomic for real), or, failing that or as a
//!   second candidate, the statements from its first to its last access to the set's
//!   locations (in the innermost statement list holding both), and as a third, from its
//!   first to its last shared access;
//! - `atomic_thread_fence(memory_order_seq_cst);` before and after each critical statement,
//!   then dropped one by one while the program stays fixed (deletion, as `explain` shrinks
//!   a core): what is left is a set of fences none of which can go.
//!
//! - for the whole program, the memory orders `infer` suggests (its minimal assignment
//!   nearest the written one), written in as `infer --write` writes them.
//!
//! A candidate is a fix when the rewritten program loads and, under the same model and
//! unrolling, no execution is bad any more and no thread can block for good. Only fixes
//! are reported.

use serde::Serialize;

use super::{CriticalSet, Target};
use crate::analysis::infer::{infer, patched, InferError, Property, Search};
use crate::analysis::races::{is_data_access, Statement};
use crate::analysis::spec::SpecMode;
use crate::analysis::{AnalysisError, AnalysisOptions, Session};
use crate::diagnostics::{SourceFile, Span};
use crate::events::{EventId, Events};
use crate::load::{load, LoadOptions};
use crate::program::Program;
use crate::syntax::ast::{Stmt, StmtKind};

const FENCE: &str = "atomic_thread_fence(memory_order_seq_cst);";

/// What a fix adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RepairKind {
    /// A fresh mutex around each thread's `atomic { }` block.
    LockBlocks,
    /// A fresh mutex around each thread's accesses to the set's locations.
    LockAccesses,
    /// A fresh mutex around each thread's shared accesses, from the first to the last.
    LockThreads,
    /// Sequentially consistent fences.
    Fences,
    /// The memory orders `infer` suggests (program-wide: it fixes every set at once).
    Orders,
}

/// One verified fix.
#[derive(Clone, Debug, Serialize)]
pub struct Repair {
    pub kind: RepairKind,
    /// The lines of the rewritten source that changed, with their numbers (the rewriting
    /// adds no line).
    pub lines: Vec<(usize, String)>,
    /// The whole rewritten source.
    pub source: String,
}

/// One insertion into the source text.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Insert {
    at: usize,
    text: String,
}

/// The verified fixes of `set` for `program` (unrolled as `events`).
pub fn repairs(
    program: &Program,
    events: &Events,
    options: &AnalysisOptions,
    target: Target,
    set: &CriticalSet,
) -> Result<Vec<Repair>, AnalysisError> {
    let Ok(ast) = crate::syntax::parse(&program.source) else {
        return Ok(Vec::new());
    };
    let checker = Checker::new(program, events, options, target);
    let mut threads: Vec<usize> = set
        .orderings
        .iter()
        .flat_map(|o| [o.first.thread, o.second.thread])
        .collect();
    threads.sort_unstable();
    threads.dedup();
    let thread_body = |t: usize| {
        ast.threads
            .get(t)
            .map(|th| th.body.as_slice())
            .unwrap_or(&[])
    };
    // The statement list a thread's accesses are wrapped in, with their spans there: the
    // body of the one function they all sit in (every call of it gets the fix), else the
    // thread's body, an access in a call standing for its outermost call site.
    let placed = |t: usize, accesses: &[EventId]| -> (&[Stmt], Vec<(usize, usize)>) {
        let spans: Vec<(usize, usize)> = accesses
            .iter()
            .map(|&e| (events.events[e].span.start, events.events[e].span.end))
            .collect();
        let function = ast.functions.iter().find(|f| {
            !spans.is_empty()
                && spans
                    .iter()
                    .all(|&(lo, hi)| f.span.start <= lo && hi <= f.span.end)
        });
        match function {
            Some(f) => (f.body.as_slice(), spans),
            None => (
                thread_body(t),
                accesses
                    .iter()
                    .map(|&e| {
                        let span = call_site(events, e);
                        (span.start, span.end)
                    })
                    .collect(),
            ),
        }
    };
    // The accesses of thread `t` that the set's orderings name.
    let critical = |t: usize| -> Vec<EventId> {
        let statements: Vec<Statement> = set
            .orderings
            .iter()
            .flat_map(|o| [o.first, o.second])
            .filter(|s| s.thread == t)
            .collect();
        events
            .events
            .iter()
            .filter(|e| {
                e.thread == Some(t)
                    && is_data_access(program, events, e.id)
                    && statements.contains(&Statement::of(events, e.id))
            })
            .map(|e| e.id)
            .collect()
    };
    let mut found = Vec::new();
    // Locks.
    let mutex = fresh_name(program);
    let declare = ast.init.first().map(|item| Insert {
        at: item.span.start,
        text: format!("{mutex} = 0; "),
    });
    if let Some(declare) = declare {
        let mut candidates: Vec<(RepairKind, Vec<Span>)> = Vec::new();
        let blocks: Vec<Option<Span>> = threads
            .iter()
            .map(|&t| {
                let (body, spans) = placed(t, &critical(t));
                let first = spans.first()?;
                let block = outermost_atomic(body, first.0)?;
                spans
                    .iter()
                    .all(|s| block.start <= s.0 && s.1 <= block.end)
                    .then_some(block)
            })
            .collect();
        // From each thread's first to its last access to the set's locations (`all`: to
        // any location).
        let run_of_accesses = |all: bool| -> Vec<Option<Span>> {
            threads
                .iter()
                .map(|&t| {
                    let accesses: Vec<EventId> = events
                        .events
                        .iter()
                        .filter(|e| {
                            e.thread == Some(t)
                                && is_data_access(program, events, e.id)
                                && e.location.is_some_and(|l| {
                                    all || set.locations.contains(&program.locations[l].name)
                                })
                        })
                        .map(|e| e.id)
                        .collect();
                    let (body, spans) = placed(t, &accesses);
                    let lo = spans.iter().map(|s| s.0).min()?;
                    let hi = spans.iter().map(|s| s.1).max()?;
                    innermost_run(body, lo, hi)
                })
                .collect()
        };
        let accesses = run_of_accesses(false);
        if blocks.iter().any(Option::is_some) {
            let regions = blocks
                .iter()
                .zip(&accesses)
                .map(|(b, a)| b.or(*a))
                .collect::<Option<Vec<Span>>>();
            if let Some(regions) = regions {
                candidates.push((RepairKind::LockBlocks, regions));
            }
        }
        if let Some(regions) = accesses.iter().copied().collect::<Option<Vec<Span>>>() {
            candidates.push((RepairKind::LockAccesses, regions));
        }
        if let Some(regions) = run_of_accesses(true)
            .into_iter()
            .collect::<Option<Vec<Span>>>()
        {
            candidates.push((RepairKind::LockThreads, regions));
        }
        for (kind, regions) in candidates {
            let mut inserts = vec![declare.clone()];
            for region in regions {
                inserts.push(Insert {
                    at: region.start,
                    text: format!("lock({mutex}); "),
                });
                inserts.push(Insert {
                    at: region.end,
                    text: format!(" unlock({mutex});"),
                });
            }
            if let Some(repair) = checker.fix(kind, &inserts)? {
                if !found.iter().any(|r: &Repair| r.source == repair.source) {
                    found.push(repair);
                }
            }
        }
    }
    // Fences, shrunk by deletion.
    let mut fences: Vec<Insert> = Vec::new();
    for &t in &threads {
        let (body, spans) = placed(t, &critical(t));
        for (lo, hi) in spans {
            if let Some(run) = innermost_run(body, lo, hi) {
                for insert in [
                    Insert {
                        at: run.start,
                        text: format!("{FENCE} "),
                    },
                    Insert {
                        at: run.end,
                        text: format!(" {FENCE}"),
                    },
                ] {
                    if !fences.contains(&insert) {
                        fences.push(insert);
                    }
                }
            }
        }
    }
    if !fences.is_empty() && checker.fix(RepairKind::Fences, &fences)?.is_some() {
        let mut i = 0;
        while i < fences.len() {
            let mut fewer = fences.clone();
            fewer.remove(i);
            if !fewer.is_empty() && checker.fix(RepairKind::Fences, &fewer)?.is_some() {
                fences = fewer;
            } else {
                i += 1;
            }
        }
        if let Some(repair) = checker.fix(RepairKind::Fences, &fences)? {
            found.push(repair);
        }
    }
    Ok(found)
}

/// The memory orders `infer` suggests for the whole program, written in (`infer --write`),
/// when the program has atomic accesses or fences and they fix it.
pub fn stronger_orders(
    program: &Program,
    events: &Events,
    options: &AnalysisOptions,
    target: Target,
) -> Result<Option<Repair>, AnalysisError> {
    // infer's property has no specification: its orders would be chosen blind to it.
    if target == Target::Spec {
        return Ok(None);
    }
    let checker = Checker::new(program, events, options, target);
    let property = Property {
        condition: target != Target::Assertion,
        assertions: true,
        // A suggestion with no data race under C11 (a race makes everything undefined).
        flags: true,
        // Nor one that trades the failure for a deadlock.
        deadlocks: true,
        // Localizing a specification is refused above; a condition or assertion is what
        // is localized here.
        spec: None,
    };
    let inference = match infer(
        program,
        events.unroll,
        &checker.options,
        property,
        &[],
        Search::Incremental,
    ) {
        Ok(inference) => inference,
        Err(InferError::Analysis(e)) => return Err(e),
        Err(_) => return Ok(None),
    };
    let Some(suggested) = inference.suggested() else {
        return Ok(None);
    };
    if inference.sites.is_empty() || suggested.assignment == inference.written() {
        return Ok(None);
    }
    match patched(program, &inference.sites, &suggested.assignment) {
        Ok(source) => checker.fix_text(RepairKind::Orders, source),
        Err(_) => Ok(None),
    }
}

struct Checker<'a> {
    program: &'a Program,
    unroll: u32,
    options: AnalysisOptions,
    target: Target,
}

impl<'a> Checker<'a> {
    fn new(
        program: &'a Program,
        events: &Events,
        options: &AnalysisOptions,
        target: Target,
    ) -> Checker<'a> {
        Checker {
            program,
            unroll: events.unroll,
            options: AnalysisOptions {
                solver: crate::solver::SolverOptions {
                    backend: options.solver.backend,
                    record: None,
                },
                symmetry: false,
                ..options.clone()
            },
            target,
        }
    }

    /// The program with `inserts` made, when it is a fix.
    fn fix(&self, kind: RepairKind, inserts: &[Insert]) -> Result<Option<Repair>, AnalysisError> {
        let original: &str = &self.program.source.text;
        let mut sorted = inserts.to_vec();
        sorted.sort();
        // Threads that call one function share its insertions.
        sorted.dedup();
        let mut source = String::with_capacity(original.len() + 64 * sorted.len());
        let mut at = 0;
        for insert in &sorted {
            if insert.at < at || insert.at > original.len() {
                return Ok(None);
            }
            source.push_str(&original[at..insert.at]);
            source.push_str(&insert.text);
            at = insert.at;
        }
        source.push_str(&original[at..]);
        self.fix_text(kind, source)
    }

    /// `source`, a rewriting of the program that keeps its lines, when it is a fix: the
    /// lines that changed, with their numbers.
    fn fix_text(&self, kind: RepairKind, source: String) -> Result<Option<Repair>, AnalysisError> {
        if !self.holds(&source)? {
            return Ok(None);
        }
        let lines = source
            .lines()
            .zip(self.program.source.text.lines())
            .enumerate()
            .filter(|(_, (new, old))| new != old)
            .map(|(i, (new, _))| (i + 1, new.trim_end().to_string()))
            .collect();
        Ok(Some(Repair {
            kind,
            lines,
            source,
        }))
    }

    /// The rewritten program loads, reaches no bad execution and blocks no thread.
    fn holds(&self, source: &str) -> Result<bool, AnalysisError> {
        let file = SourceFile::new(self.program.source.name.clone(), source.to_string());
        // A rewritten kernel test would need the model's `.def` macros, which are not
        // at hand here: it does not load, and no fix is claimed for it.
        let options = LoadOptions {
            unroll: self.unroll,
            ..LoadOptions::default()
        };
        let Ok(test) = load(&file, &options) else {
            return Ok(false);
        };
        let mut session = Session::new(&test.program, &test.events, &self.options)?;
        if session.deadlock()?.is_some() {
            return Ok(false);
        }
        let bad = match self.target {
            Target::Assertion => session.assertion_failure()?.is_some(),
            Target::Spec => session.spec(SpecMode::Linearizable)?.violation.is_some(),
            Target::Condition | Target::Violation => {
                let condition = session.condition();
                let bad = if self.target == Target::Violation {
                    !condition
                } else {
                    condition
                };
                session.find(&[session.within_bound, bad])?.is_some()
            }
        };
        Ok(!bad)
    }
}

/// The statement of the thread's own body that runs event `e`: the site of its outermost
/// call when it runs in a function, else its own.
fn call_site(events: &Events, e: EventId) -> Span {
    let mut call = events.events[e].call;
    let mut span = events.events[e].span;
    while let Some(c) = call {
        span = events.calls[c].span;
        call = events.calls[c].parent;
    }
    span
}

/// `m`, or `m1`, `m2`, ...: a name no location of the program has.
fn fresh_name(program: &Program) -> String {
    let taken = |name: &str| {
        program.locations.iter().any(|l| l.name == name)
            || program
                .threads
                .iter()
                .any(|t| t.registers.iter().any(|r| r.name == name))
    };
    std::iter::once("m".to_string())
        .chain((1..).map(|i| format!("m{i}")))
        .find(|n| !taken(n))
        .unwrap_or_else(|| "m".to_string())
}

fn contains(span: Span, at: usize) -> bool {
    span.start <= at && at < span.end
}

/// The statement lists nested directly in `stmt`.
fn bodies(stmt: &Stmt) -> Vec<&[Stmt]> {
    match &stmt.kind {
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } => {
            let mut b = vec![then_branch.as_slice()];
            if let Some(e) = else_branch {
                b.push(e.as_slice());
            }
            b
        }
        StmtKind::While { body, .. }
        | StmtKind::For { body, .. }
        | StmtKind::DoWhile { body, .. }
        | StmtKind::Block(body)
        | StmtKind::Atomic(body) => vec![body.as_slice()],
        _ => Vec::new(),
    }
}

/// The statements of the innermost list of `body` that together cover `lo..hi`: from the
/// one holding `lo` to the one holding the last byte before `hi`.
fn innermost_run(body: &[Stmt], lo: usize, hi: usize) -> Option<Span> {
    let last = hi.checked_sub(1)?.max(lo);
    let i = body.iter().position(|s| contains(s.span, lo))?;
    let j = body.iter().position(|s| contains(s.span, last))?;
    if i == j {
        for inner in bodies(&body[i]) {
            if let Some(run) = innermost_run(inner, lo, hi) {
                return Some(run);
            }
        }
    }
    Some(Span::new(body[i].span.start, body[j].span.end))
}

/// The outermost `atomic { }` statement of `body` holding `at`.
fn outermost_atomic(body: &[Stmt], at: usize) -> Option<Span> {
    let stmt = body.iter().find(|s| contains(s.span, at))?;
    if matches!(stmt.kind, StmtKind::Atomic(_)) {
        return Some(stmt.span);
    }
    bodies(stmt)
        .into_iter()
        .find_map(|inner| outermost_atomic(inner, at))
}
