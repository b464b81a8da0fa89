//! Memory-order inference (`nemos infer`): the textbook answers under RC11; under SC,
//! where orders change nothing, agreement with the reference explorer on every project test;
//! and the incremental search against the exhaustive one on the C11 tests.

use crate::common;
use crate::reference;

use nemos::analysis::infer::{
    infer, patched, sites, Access, Choice, Inference, PatchError, Property, Search, Violation,
};
use nemos::program::MemOrder::{self, *};
use nemos::program::Quantifier;

const UNROLL: u32 = 2;

/// Both searches' answer, once they are seen to agree on it.
fn inferred(text: &str, model: &str, keep: &[usize]) -> Inference {
    let test = common::load("infer", text);
    let run = |search| {
        infer(
            &test.program,
            UNROLL,
            &common::under(model),
            Property::default(),
            keep,
            search,
        )
        .unwrap_or_else(|e| panic!("{e}"))
    };
    let exhaustive = run(Search::Exhaustive);
    let incremental = run(Search::Incremental);
    assert_eq!(minimal(&incremental), minimal(&exhaustive));
    assert_eq!(incremental.nearest, exhaustive.nearest);
    assert_eq!(incremental.assignments, exhaustive.checked);
    assert!(incremental.checked <= exhaustive.checked);
    exhaustive
}

/// The incremental search's answer under rc11, nothing kept.
fn incremental_under_rc11(program: &nemos::program::Program) -> Inference {
    infer(
        program,
        UNROLL,
        &common::under("rc11"),
        Property::default(),
        &[],
        Search::Incremental,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn orders(orders: &[MemOrder]) -> Vec<Choice> {
    orders.iter().map(|&o| Some(o)).collect()
}

fn minimal(inference: &Inference) -> Vec<Vec<Choice>> {
    inference
        .minimal
        .iter()
        .map(|m| m.assignment.clone())
        .collect()
}

const MP_RELAXED: &str = "C MP\n{ x = 0; y = 0; }\n\
P0 (atomic_int* x, atomic_int* y) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n  atomic_store_explicit(y, 1, memory_order_relaxed);\n}\n\
P1 (atomic_int* x, atomic_int* y) {\n  int r0 = atomic_load_explicit(y, memory_order_relaxed);\n  int r1 = atomic_load_explicit(x, memory_order_relaxed);\n}\n\
exists (1:r0=1 /\\ 1:r1=0)\n";

/// Message passing needs exactly a release store of the flag and an acquire load of it.
#[test]
fn message_passing_needs_release_and_acquire_on_the_flag() {
    let answer = inferred(MP_RELAXED, "rc11", &[]);
    assert_eq!(answer.checked, 81);
    assert_eq!(
        minimal(&answer),
        vec![orders(&[Relaxed, Release, Acquire, Relaxed])]
    );
    // The relaxed program fails, and the minimal assignment is its smallest fix.
    let failure = answer.written_failure.as_ref().expect("relaxed MP fails");
    assert_eq!(failure.violation, Violation::Condition);
    assert_eq!(answer.nearest, vec![0]);
    // Each of the two strengthened sites is needed: weakened alone, the outcome is back.
    let reasons = &answer.minimal[0].reasons;
    let sites: Vec<usize> = reasons.iter().map(|r| r.site).collect();
    assert_eq!(sites, vec![1, 2]);
    assert_eq!(reasons[0].weaker, Some(Relaxed));
    assert!(reasons
        .iter()
        .all(|r| r.failure.violation == Violation::Condition));
}

/// With plain data, the race on it is the failure (RC11's `undefined` flag), and the same
/// synchronisation fixes it; pinning the flag's load keeps it relaxed and leaves no fix.
#[test]
fn a_data_race_is_a_failure_and_pinning_can_leave_no_fix() {
    let text = "C MP-data\n{ x = 0; y = 0; }\n\
P0 (int* x, atomic_int* y) {\n  *x = 1;\n  atomic_store_explicit(y, 1, memory_order_relaxed);\n}\n\
P1 (int* x, atomic_int* y) {\n  int r0 = atomic_load_explicit(y, memory_order_relaxed);\n  if (r0 == 1) {\n    int r1 = *x;\n  }\n}\n\
exists (1:r0=2)\n";
    let answer = inferred(text, "rc11", &[]);
    assert_eq!(answer.checked, 9);
    assert_eq!(minimal(&answer), vec![orders(&[Release, Acquire])]);
    assert_eq!(
        answer.written_failure.as_ref().map(|f| f.violation.clone()),
        Some(Violation::Flag("undefined".into()))
    );
    let pinned = inferred(text, "rc11", &[8]);
    assert_eq!(pinned.checked, 3);
    assert!(pinned.minimal.is_empty());
    assert!(pinned.nearest.is_empty());
}

/// Store buffering needs seq_cst on all four accesses (no fences to use instead).
#[test]
fn store_buffering_needs_seq_cst_everywhere() {
    let text = MP_RELAXED
        .replace("C MP", "C SB")
        .replace(
            "int r0 = atomic_load_explicit(y, memory_order_relaxed);\n  int r1 = atomic_load_explicit(x, memory_order_relaxed);",
            "atomic_store_explicit(y, 2, memory_order_relaxed);\n  int r1 = atomic_load_explicit(x, memory_order_relaxed);",
        )
        .replace(
            "atomic_store_explicit(y, 1, memory_order_relaxed);\n}",
            "int r0 = atomic_load_explicit(y, memory_order_relaxed);\n}",
        )
        .replace("exists (1:r0=1 /\\ 1:r1=0)", "exists (0:r0=0 /\\ 1:r1=0)");
    let answer = inferred(&text, "rc11", &[]);
    assert_eq!(
        minimal(&answer),
        vec![orders(&[SeqCst, SeqCst, SeqCst, SeqCst])],
        "{text}"
    );
}

/// Load buffering is forbidden by RC11 whatever the orders: all relaxed is the answer, and
/// the written program (already relaxed) has nothing to weaken.
#[test]
fn load_buffering_needs_nothing_under_rc11() {
    let text = "C LB\n{ x = 0; y = 0; }\n\
P0 (atomic_int* x, atomic_int* y) {\n  int r0 = atomic_load_explicit(x, memory_order_relaxed);\n  atomic_store_explicit(y, 1, memory_order_relaxed);\n}\n\
P1 (atomic_int* x, atomic_int* y) {\n  int r1 = atomic_load_explicit(y, memory_order_relaxed);\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n}\n\
exists (0:r0=1 /\\ 1:r1=1)\n";
    let answer = inferred(text, "rc11", &[]);
    assert_eq!(answer.passing, Some(81));
    assert_eq!(minimal(&answer), vec![orders(&[Relaxed; 4])]);
    assert!(answer.written_failure.is_none());
    assert_eq!(answer.nearest, vec![0]);
    assert!(answer.minimal[0].reasons.is_empty());
}

/// Under SC the orders change nothing: the answer is the all-weakest assignment exactly when
/// the reference explorer finds no execution breaking the property, and nothing otherwise.
#[test]
fn under_sc_the_answer_follows_the_reference_explorer() {
    let mut compared = 0;
    for path in common::project_litmus() {
        let text = std::fs::read_to_string(&path).expect("read a project test");
        let file = nemos::diagnostics::SourceFile::new(path.display().to_string(), text);
        let Ok(program) = nemos::load::lower(&file) else {
            continue;
        };
        let found = sites(&program);
        let assignments: usize = found.iter().map(|s| s.choices.len()).product();
        if found.is_empty() || assignments > 256 {
            continue;
        }
        let answer = infer(
            &program,
            UNROLL,
            &common::under("sc"),
            Property::default(),
            &[],
            Search::Exhaustive,
        )
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let reference = reference::explore(&program, UNROLL);
        let breaks_condition = program.condition.as_ref().is_some_and(|c| {
            reference.outcomes.iter().any(|state| {
                let holds = c.prop.eval(&|o| {
                    state
                        .iter()
                        .find(|(obs, _)| *obs == o)
                        .map(|&(_, v)| v)
                        .expect("the reference reports every observed value")
                });
                match c.quantifier {
                    Quantifier::Exists | Quantifier::NotExists => holds,
                    Quantifier::Forall => !holds,
                }
            })
        });
        let holds = !breaks_condition && !reference.assertion_failure;
        let weakest: Vec<Choice> = found.iter().map(|s| s.choices[0]).collect();
        let expected = if holds { vec![weakest] } else { vec![] };
        assert_eq!(minimal(&answer), expected, "{}", path.display());
        assert_eq!(answer.passing, Some(if holds { assignments } else { 0 }));
        compared += 1;
    }
    assert!(compared >= 5, "only {compared} project tests have sites");
}

/// The incremental search (one instance, selector literals, blocking) assumes the model
/// monotone in the orders; the exhaustive one assumes nothing. Under RC11 and C11 they must
/// give the same minimal assignments on every C11 test of the project and the corpus small
/// enough for the exhaustive search to be quick.
#[test]
fn incremental_and_exhaustive_searches_agree_on_the_c11_tests() {
    const MAX: usize = 128;
    let mut paths = common::project_litmus();
    let with_corpus = common::corpus().is_some();
    if let Some(corpus) = common::corpus() {
        for dir in ["dat3m-c11", "herd-c11popl15"] {
            paths.extend(common::litmus_files(&corpus.join(dir)));
        }
    } else {
        eprintln!("note: ../shared/corpus is absent; comparing on litmus/ only");
    }
    let mut compared = 0;
    let mut saved = 0;
    let mut rewritten = 0;
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("read a test");
        let file = nemos::diagnostics::SourceFile::new(path.display().to_string(), text);
        let Ok(program) = nemos::load::lower(&file) else {
            continue;
        };
        let found = sites(&program);
        let assignments: usize = found.iter().map(|s| s.choices.len()).product();
        if found.is_empty() || assignments > MAX {
            continue;
        }
        for model in ["rc11", "c11"] {
            let run = |search| {
                infer(
                    &program,
                    UNROLL,
                    &common::under(model),
                    Property::default(),
                    &[],
                    search,
                )
                .unwrap_or_else(|e| panic!("{} under {model}: {e}", path.display()))
            };
            let exhaustive = run(Search::Exhaustive);
            let incremental = run(Search::Incremental);
            assert_eq!(
                minimal(&incremental),
                minimal(&exhaustive),
                "{} under {model}",
                path.display()
            );
            assert_eq!(
                incremental.written_failure.is_some(),
                exhaustive.written_failure.is_some()
            );
            assert_eq!(incremental.bound_hit, exhaustive.bound_hit);
            saved += exhaustive.checked - incremental.checked.min(exhaustive.checked);
            compared += 1;
            if model == "rc11" {
                rewritten += check_written_back(&program, &incremental, &path);
            }
        }
    }
    // litmus/ alone gave 12 comparisons (6 written back), with the corpus 276 (44).
    let enough = if with_corpus { 200 } else { 10 };
    assert!(compared >= enough, "only {compared} comparisons");
    assert!(
        saved > 0,
        "the incremental search never solved fewer assignments"
    );
    let enough = if with_corpus { 30 } else { 4 };
    assert!(rewritten >= enough, "only {rewritten} tests written back");
}

/// `--write`: the test with the suggested orders written in reads back with exactly those
/// orders, and is correct as written. Returns 1 when the test was written back.
fn check_written_back(
    program: &nemos::program::Program,
    answer: &Inference,
    path: &std::path::Path,
) -> usize {
    let Some(suggested) = answer.suggested() else {
        return 0;
    };
    let text = match patched(program, &answer.sites, &suggested.assignment) {
        Ok(text) => text,
        // The Linux macros have no order argument; nothing else may refuse.
        Err(PatchError::NotC11 { text, .. }) => {
            assert!(!text.starts_with("atomic_"), "{}: {text}", path.display());
            return 0;
        }
    };
    let file = nemos::diagnostics::SourceFile::new(path.display().to_string(), text.clone());
    let program = nemos::load::lower(&file)
        .unwrap_or_else(|e| panic!("{} written back:\n{text}\n{e:?}", path.display()));
    // A removed fence is no site any more; every other site reads back as chosen.
    let expected: Vec<Choice> = suggested
        .assignment
        .iter()
        .copied()
        .filter(|c| c.is_some())
        .collect();
    let read_back: Vec<Choice> = sites(&program).iter().map(|s| s.written).collect();
    assert_eq!(read_back, expected, "{}:\n{text}", path.display());
    let again = infer(
        &program,
        UNROLL,
        &common::under("rc11"),
        Property::default(),
        &[],
        Search::Incremental,
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        again.written_failure.is_none(),
        "{} written back is not correct:\n{text}",
        path.display()
    );
    1
}

/// The MCS lock of issue 38, with struct nodes reached through pointers; correct under RC11
/// as written.
const MCS_STRUCT: &str = "C mcs-struct\n\
{ struct qnode { atomic_int locked; struct qnode *next; }; struct qnode nodes[2]; struct qnode *tail = NULL; x = 0; }\n\
void mcs_lock(struct qnode **tail, struct qnode *me) {\n\
  atomic_store_explicit(&me->next, NULL, memory_order_relaxed);\n\
  atomic_store_explicit(&me->locked, 1, memory_order_relaxed);\n\
  struct qnode *pred = atomic_exchange_explicit(tail, me, memory_order_acq_rel);\n\
  if (pred != NULL) {\n\
    atomic_store_explicit(&pred->next, me, memory_order_release);\n\
    while (atomic_load_explicit(&me->locked, memory_order_acquire) == 1) ;\n\
  }\n\
}\n\
void mcs_unlock(struct qnode **tail, struct qnode *me) {\n\
  struct qnode *succ = atomic_load_explicit(&me->next, memory_order_acquire);\n\
  if (succ == NULL) {\n\
    struct qnode *e = me;\n\
    if (atomic_compare_exchange_strong_explicit(tail, &e, NULL, memory_order_release, memory_order_relaxed))\n\
      return;\n\
    do {\n\
      succ = atomic_load_explicit(&me->next, memory_order_acquire);\n\
    } while (succ == NULL);\n\
  }\n\
  atomic_store_explicit(&succ->locked, 0, memory_order_release);\n\
}\n\
P0 (struct qnode **tail, struct qnode *nodes, int *x) {\n\
  mcs_lock(tail, &nodes[0]);\n  int r0 = *x;\n  *x = r0 + 1;\n  mcs_unlock(tail, &nodes[0]);\n}\n\
P1 (struct qnode **tail, struct qnode *nodes, int *x) {\n\
  mcs_lock(tail, &nodes[1]);\n  int r1 = *x;\n  *x = r1 + 1;\n  mcs_unlock(tail, &nodes[1]);\n}\n\
forall (x = 2 /\\ tail = NULL)\n";

/// What `check` counts as a defect under RC11 in `program`, as words (empty: none).
fn check_defects(program: &nemos::program::Program) -> Vec<&'static str> {
    let events = common::unrolled(program, UNROLL);
    let options = common::under("rc11");
    let mut session = nemos::analysis::Session::new(program, &events, &options).unwrap();
    let result = session.check().unwrap();
    let mut defects = Vec::new();
    if !result.ok {
        defects.push("condition");
    }
    if result.assertion_failure.is_some() {
        defects.push("assertion or invalid access");
    }
    if result.deadlock.is_some() {
        defects.push("deadlock");
    }
    if !result.flags.is_empty() {
        defects.push("flag (a data race)");
    }
    defects
}

/// Issue 38, item 1: infer called orders enough under which the MCS lock deadlocks (the
/// exchange acquire only and the link relaxed: a thread's own NULL store to its `next` can
/// land after its successor's link in coherence). Every order infer calls enough passes
/// `check`, and the weakening that deadlocks is reported as a deadlock.
#[test]
fn orders_infer_calls_enough_never_deadlock() {
    let test = common::load("mcs", MCS_STRUCT);
    let answer = incremental_under_rc11(&test.program);
    assert!(answer.written_failure.is_none());
    assert!(!answer.minimal.is_empty());
    for minimal in &answer.minimal {
        let text = patched(&test.program, &answer.sites, &minimal.assignment).unwrap();
        let file = nemos::diagnostics::SourceFile::new("mcs-inferred", text.clone());
        let program = nemos::load::lower(&file).unwrap();
        assert_eq!(check_defects(&program), Vec::<&str>::new(), "\n{text}");
    }
    // The orders infer proposed before: exchange acquire, the link and both reads of
    // `next` relaxed.
    let weakened = MCS_STRUCT
        .replace(
            "atomic_exchange_explicit(tail, me, memory_order_acq_rel)",
            "atomic_exchange_explicit(tail, me, memory_order_acquire)",
        )
        .replace(
            "atomic_store_explicit(&pred->next, me, memory_order_release)",
            "atomic_store_explicit(&pred->next, me, memory_order_relaxed)",
        )
        .replace(
            "atomic_load_explicit(&me->next, memory_order_acquire)",
            "atomic_load_explicit(&me->next, memory_order_relaxed)",
        );
    let weak = common::load("mcs-weak", &weakened);
    assert_eq!(check_defects(&weak.program), vec!["deadlock"]);
    let again = infer(
        &weak.program,
        UNROLL,
        &common::under("rc11"),
        Property::default(),
        &[],
        Search::Incremental,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let failure = again.written_failure.expect("the weakened lock deadlocks");
    assert_eq!(failure.violation, Violation::Deadlock);
}

/// An invalid access is part of infer's property as it is a defect of `check`: a pointer
/// published with a relaxed flag can be read as NULL and dereferenced.
#[test]
fn an_invalid_access_breaks_the_property() {
    let text = "C mp-pointer\n{ x = 0; int *p = NULL; flag = 0; }\n\
P0 (int **p, atomic_int *flag, int *x) {\n  *p = x;\n  atomic_store_explicit(flag, 1, memory_order_release);\n}\n\
P1 (int **p, atomic_int *flag) {\n  int r = atomic_load_explicit(flag, memory_order_acquire);\n  if (r == 1) {\n    int *q = *p;\n    *q = 1;\n  }\n}\n";
    let answer = inferred(text, "rc11", &[]);
    assert_eq!(minimal(&answer), vec![orders(&[Release, Acquire])]);
    let test = common::load("mp-pointer", text);
    for reason in &answer.minimal[0].reasons {
        let failure = &reason.failure;
        assert_eq!(failure.violation, Violation::Assertion);
        assert!(failure
            .execution
            .failed_assertions
            .iter()
            .all(|e| failure.events.access_checks.contains_key(e)));
    }
    assert!(answer.written_failure.is_none(), "{}", test.program.name);
}

/// Dekker's entry with a plain counter in the critical section: under RC11 every flag
/// access must be seq_cst, and each weakening lets the two increments race.
const DEKKER: &str = "C dekker\n{ f0 = 0; f1 = 0; x = 0; }\n\
P0 (atomic_int* f0, atomic_int* f1, int* x) {\n  atomic_store_explicit(f0, 1, memory_order_seq_cst);\n  int r0 = atomic_load_explicit(f1, memory_order_seq_cst);\n  if (r0 == 0) { *x = 1; }\n}\n\
P1 (atomic_int* f0, atomic_int* f1, int* x) {\n  atomic_store_explicit(f1, 1, memory_order_seq_cst);\n  int r1 = atomic_load_explicit(f0, memory_order_seq_cst);\n  if (r1 == 0) { *x = 2; }\n}\n\
exists (x = 3)\n";

/// Issue 38, item 9: infer's witness for a race marks the racing pair as `races` does
/// (`<==` on both accesses), and one execution breaking the property one way is printed
/// once, however many sites' reasons it is (Dekker's printed it once per site).
#[test]
fn infer_marks_the_race_and_shows_one_execution_once() {
    let test = common::load("dekker", DEKKER);
    let answer = incremental_under_rc11(&test.program);
    assert_eq!(minimal(&answer), vec![orders(&[SeqCst; 4])]);
    let reasons = &answer.minimal[0].reasons;
    assert_eq!(reasons.len(), 4);
    for reason in reasons {
        assert!(matches!(reason.failure.violation, Violation::Flag(_)));
        let events = &reason.failure.events.events;
        let [a, b] = reason.failure.racing[..] else {
            panic!("no racing pair: {:?}", reason.failure.racing)
        };
        assert_eq!(events[a].location, events[b].location);
        assert_ne!(events[a].thread, events[b].thread);
        assert!(events[a].is_write() || events[b].is_write());
    }
    let report = nemos::report::infer::InferReport {
        model: "rc11",
        program: &test.program,
        inference: &answer,
        unroll: UNROLL,
    };
    let text = nemos::report::Report::text(&report, nemos::report::Palette::PLAIN);
    let marked = text
        .lines()
        .filter(|l| l.contains("<==") && !l.contains("marked <=="))
        .count();
    assert_eq!(
        marked, 2,
        "one witness, its two racing accesses marked:\n{text}"
    );
    assert_eq!(text.matches("on the same accesses").count(), 3, "{text}");
}

/// Issue 38, item 9: a kept execution that breaks the property under a weakening is shown
/// without solving again. Every reason of Peterson's lock (16 minimal assignments) is
/// checked here on its own: the assignment is the minimal one with that site one step
/// weaker, the execution is allowed by every check of RC11 under those orders (its fences
/// run or left out as they say), and it either ends with `x` not 2 or raises RC11's
/// `undefined` flag there, on the two accesses it marks as racing (which execution a
/// reason shows depends on which the search found first).
#[test]
fn reasons_shown_without_a_solve_are_allowed_and_break_the_condition() {
    let path = common::manifest_dir().join("examples/peterson.litmus");
    let text = std::fs::read_to_string(path).expect("the example is in the repository");
    let test = common::load("peterson", &text);
    let answer = incremental_under_rc11(&test.program);
    assert_eq!(answer.minimal.len(), 16);
    let model = nemos::cat::load_shipped("rc11").unwrap().unwrap();
    let x = test
        .program
        .locations
        .iter()
        .position(|l| l.name == "x")
        .expect("peterson has x");
    let fences: Vec<usize> = sites(&test.program)
        .iter()
        .enumerate()
        .filter(|(_, s)| s.access == Access::Fence)
        .map(|(i, _)| i)
        .collect();
    let all_sites = sites(&test.program);
    let mut shown = 0;
    for m in &answer.minimal {
        for reason in &m.reasons {
            let failure = &reason.failure;
            let mut tried = m.assignment.clone();
            tried[reason.site] = reason.weaker;
            assert_eq!(failure.assignment, tried);
            let mutexes = nemos::encode::mutex_locations(&failure.program, &failure.events);
            let explicit = nemos::witness::eval::Explicit::of_execution(
                &failure.events,
                &mutexes,
                &failure.execution,
            );
            let mut evaluator = explicit.evaluator(&model);
            for check in model.checks.iter().filter(|c| !c.flag) {
                assert_eq!(evaluator.holds(check), Ok(true), "{:?}", check.name);
            }
            match &failure.violation {
                Violation::Condition => {
                    let final_x = failure
                        .execution
                        .final_state
                        .iter()
                        .find(|(o, _)| *o == nemos::program::Observable::Loc(x))
                        .map(|(_, v)| *v);
                    assert!(matches!(final_x, Some(v) if v != 2), "{final_x:?}");
                }
                Violation::Flag(name) if name == "undefined" => {
                    let raised = model
                        .checks
                        .iter()
                        .filter(|c| c.flag)
                        .any(|c| evaluator.holds(c) == Ok(true));
                    assert!(raised, "the flag is not raised under the reason's orders");
                    assert_eq!(failure.racing.len(), 2, "{:?}", failure.racing);
                }
                other => panic!("unexpected reason {other:?}"),
            }
            for &site in &fences {
                let removed = tried[site].is_none();
                for (e, event) in failure.events.events.iter().enumerate() {
                    if removed && event.span == all_sites[site].span {
                        assert!(!failure.execution.feasible[e], "a removed fence runs");
                    }
                }
            }
            shown += 1;
        }
    }
    assert!(shown >= 100, "{shown} reasons");
}

/// What infer's kept executions rely on (`witness::eval`'s `Reuse`): an evaluator started
/// from one computed on the same execution under other memory orders gives every check,
/// flag and definition of RC11 the value a fresh evaluator gives. Checked on every reason
/// of Peterson's lock (executions with and without fences), from all-relaxed and from
/// all-`seq_cst` orders; a definition reading the orders kept from the first would differ
/// (`psc` is empty under all-relaxed).
#[test]
fn an_evaluation_reused_under_other_orders_agrees_with_a_fresh_one() {
    use nemos::cat::TExpr;
    use nemos::events::EventKind;
    let path = common::manifest_dir().join("examples/peterson.litmus");
    let text = std::fs::read_to_string(path).expect("the example is in the repository");
    let test = common::load("peterson", &text);
    let answer = incremental_under_rc11(&test.program);
    let model = nemos::cat::load_shipped("rc11").unwrap().unwrap();
    let mut compared = 0;
    let mut differed = 0;
    for reason in answer.minimal.iter().flat_map(|m| &m.reasons) {
        let failure = &reason.failure;
        let events = &failure.events;
        let mutexes = nemos::encode::mutex_locations(&failure.program, events);
        for other in [Relaxed, SeqCst] {
            let orders: Vec<_> = events
                .events
                .iter()
                .map(|e| {
                    let ordered = e.kind == EventKind::Fence
                        || (e.is_memory() && e.order != NonAtomic && e.kind != EventKind::Init);
                    ordered.then_some((other, e.failure_order.map(|_| other)))
                })
                .collect();
            let first =
                nemos::witness::eval::Explicit::of_execution(events, &mutexes, &failure.execution)
                    .with_orders(orders);
            let mut earlier = first.evaluator_reusing(&model, None);
            let earlier_verdicts: Vec<_> = model.checks.iter().map(|c| earlier.holds(c)).collect();
            let reuse = earlier.into_reuse();
            let explicit =
                nemos::witness::eval::Explicit::of_execution(events, &mutexes, &failure.execution);
            let mut fresh = explicit.evaluator(&model);
            let mut reused = explicit.evaluator_reusing(&model, Some(reuse));
            for (check, earlier) in model.checks.iter().zip(&earlier_verdicts) {
                let verdict = fresh.holds(check);
                assert_eq!(reused.holds(check), verdict, "{:?}", check.name);
                differed += usize::from(*earlier != verdict);
            }
            for id in 0..model.defs.len() {
                let def = TExpr::Def(id);
                assert_eq!(reused.eval(&def), fresh.eval(&def), "{}", model.defs[id].0);
            }
            compared += 1;
        }
    }
    assert!(compared >= 200, "{compared} evaluations compared");
    assert!(differed > 0, "no verdict depended on the orders");
}
