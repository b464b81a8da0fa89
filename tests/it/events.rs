//! Unrolling: guards from nested and else branches, loops at several bounds, RMWs, fences,
//! locks and atomic blocks.

use std::sync::Arc;

use nemos::analysis::query::{ask, Finding, Query, QueryOptions, Severity};
use nemos::diagnostics::SourceFile;
use nemos::events::{EventKind, Events, TooManyEvents};
use nemos::program::{MemOrder, Program};
use nemos::{LoadError, LoadOptions};

fn build(text: &str, k: u32) -> (Program, Events) {
    let test = crate::common::load_unrolled("t.litmus", text, k);
    (test.program, test.events)
}

fn kinds(events: &Events, thread: usize) -> Vec<EventKind> {
    events.threads[thread]
        .iter()
        .map(|&e| events.events[e].kind)
        .collect()
}

#[test]
fn nested_and_else_branches_get_conjunctive_guards() {
    let (_, events) = build(
        "C t\n{}\nP0 (int* x, int* y) {\n  int r0 = *x;\n  if (r0 == 1) {\n    int r1 = *y;\n    if (r1 == 2) { *x = 3; } else { *x = 4; }\n  } else {\n    *y = 5;\n  }\n  *y = 6;\n}\nexists (x=3)\n",
        2,
    );
    let writes: Vec<_> = events
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Write)
        .collect();
    assert_eq!(writes.len(), 4);
    let guard = |i: usize| writes[i].guard.0.clone();
    // *x = 3 under c1 & c2, *x = 4 under c1 & !c2, *y = 5 under !c1, *y = 6 unguarded.
    assert_eq!(guard(0), vec![(0, true), (1, true)]);
    assert_eq!(guard(1), vec![(0, true), (1, false)]);
    assert_eq!(guard(2), vec![(0, false)]);
    assert!(guard(3).is_empty());
    assert_eq!(events.controls.len(), 2);
}

#[test]
fn loop_events_grow_linearly_with_the_bound() {
    let text = "C t\n{}\nP0 (int* x, int* f) {\n  int r0 = *f;\n  while (r0 == 0) {\n    *x = 1;\n    r0 = *f;\n  }\n}\nP1 (int* f) {\n  *f = 1;\n}\nexists (x=1)\n";
    let counts: Vec<usize> = (1..=5).map(|k| build(text, k).1.threads[0].len()).collect();
    let steps: Vec<usize> = counts.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(steps.iter().all(|&s| s == steps[0]), "{counts:?}");
    assert!(
        steps[0] >= 3,
        "each iteration adds a control, a write and a read: {counts:?}"
    );
    // A spin loop can always need one more iteration: the bound is recorded.
    assert_eq!(build(text, 2).1.bound_hits.len(), 1);
}

#[test]
fn counted_loops_unroll_exactly_without_bound_hits() {
    let (_, events) = build(
        "C t\n{}\nP0 (int* x) {\n  for (int i = 0; i < 3; i++) {\n    *x = i;\n  }\n}\nforall (x=2)\n",
        3,
    );
    let writes = events
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Write)
        .count();
    assert_eq!(writes, 3);
    assert!(events.bound_hits.is_empty());
}

#[test]
fn rmw_kinds_link_read_and_write_halves() {
    let (_, events) = build(
        "C t\n{}\nP0 (atomic_int* x, atomic_int* e) {\n  int a = atomic_fetch_add_explicit(x, 2, memory_order_acq_rel);\n  int b = atomic_exchange(x, 7);\n  int c = atomic_compare_exchange_strong_explicit(x, e, 9, memory_order_release, memory_order_relaxed);\n  atomic_thread_fence(memory_order_seq_cst);\n}\nexists (0:a=0)\n",
        2,
    );
    let t = &events.threads[0];
    let ev = |i: usize| &events.events[t[i]];
    assert_eq!(ev(0).kind, EventKind::Read);
    assert_eq!(ev(1).kind, EventKind::Write);
    assert_eq!(ev(0).rmw, Some(t[1]));
    assert_eq!(ev(1).rmw, Some(t[0]));
    assert_eq!(ev(0).order, MemOrder::AcqRel);
    assert_eq!(ev(2).rmw, Some(t[3]));
    // Compare-exchange: read the expected location, read x, branch on equality; the write
    // to x (success) is the RMW partner; a failure writes back to the expected location.
    let cas_read = events
        .events
        .iter()
        .find(|e| e.failure_order.is_some())
        .unwrap();
    assert_eq!(cas_read.order, MemOrder::Release);
    assert_eq!(cas_read.failure_order, Some(MemOrder::Relaxed));
    let partner = &events.events[cas_read.rmw.unwrap()];
    assert_eq!(partner.guard.0.last().map(|g| g.1), Some(true));
    let writeback = events
        .events
        .iter()
        .find(|e| e.kind == EventKind::Write && e.guard.0.last().map(|g| g.1) == Some(false))
        .unwrap();
    assert_ne!(writeback.location, cas_read.location);
    assert!(kinds(&events, 0).contains(&EventKind::Fence));
}

#[test]
fn locks_and_atomic_blocks_are_paired() {
    let (_, events) = build(
        "C t\n{}\nP0 (int* l, int* x) {\n  atomic {\n    lock(l);\n    *x = 1;\n    unlock(l);\n  }\n}\nexists (x=1)\n",
        2,
    );
    assert_eq!(
        kinds(&events, 0),
        vec![
            EventKind::AtomicEnter,
            EventKind::Lock,
            EventKind::Write,
            EventKind::Write,
            EventKind::Unlock,
            EventKind::AtomicExit
        ]
    );
    let t = &events.threads[0];
    assert_eq!(events.events[t[1]].lock_match, Some(t[4]));
    assert_eq!(events.events[t[4]].lock_match, Some(t[1]));
    assert_eq!(events.events[t[1]].rmw, Some(t[2]));
    assert_eq!(events.events[t[5]].atomic_match, Some(t[0]));
}

#[test]
fn static_bounds_keep_reads_to_possible_writes_and_values() {
    let (_, events) = build(
        "C t\n{ x = 0; }\nP0 (int* x) {\n  *x = 1;\n  int r0 = *x;\n}\nP1 (int* x) {\n  *x = 2;\n}\nexists (0:r0=0)\n",
        2,
    );
    let read = events
        .events
        .iter()
        .find(|e| e.kind == EventKind::Read)
        .unwrap();
    // The initial write is shadowed by P0's own earlier write; P1's write remains.
    let candidates = &events.bounds.rf_candidates[read.id];
    assert_eq!(candidates.len(), 2);
    assert!(!candidates.contains(&events.init[0].unwrap()));
    let values = events.bounds.values[read.value.unwrap()].clone();
    assert_eq!(values, Some(vec![1, 2]));
}

#[test]
fn max_events_stops_the_unrolling_when_the_count_passes_it() {
    let file = SourceFile::new("spin.litmus", crate::common::SPIN);
    let load = |unroll, max| {
        nemos::load(
            &file,
            &LoadOptions {
                unroll,
                max_events: Some(max),
                ..Default::default()
            },
        )
    };
    // Unrolled whole, this loop would not fit in memory.
    match load(u32::MAX, 50) {
        Err(LoadError::TooManyEvents(limit)) => assert_eq!(limit.max, 50),
        other => panic!(
            "expected the limit, got {:?}",
            other.map(|t| t.events.len())
        ),
    }
    let events = load(3, 1000).expect("a small unrolling loads").events.len();
    assert!(load(3, events).is_ok());
    assert!(matches!(
        load(3, events - 1),
        Err(LoadError::TooManyEvents(TooManyEvents { max, .. })) if max == events - 1
    ));
}

#[test]
fn ask_still_refuses_a_loaded_test_over_max_events() {
    let test = crate::common::load(
        "SB.litmus",
        &std::fs::read_to_string("litmus/SB.litmus").unwrap(),
    );
    let options = QueryOptions {
        max_events: Some(3),
        ..QueryOptions::new(Arc::new(nemos::cat::sc()), "sc")
    };
    let answer = ask(&test, Query::Outcomes, &options).unwrap();
    let Finding::Limit(limit) = &answer.finding else {
        panic!("expected a limit, got {:?}", answer.finding);
    };
    assert_eq!(limit, "6 events exceed --max-events 3");
    assert_eq!(answer.severity(), Severity::LimitHit);
}

/// The largest guard, and the largest control definition, over a test's events.
fn largest_guards(events: &Events) -> (usize, usize) {
    let guard = events.events.iter().map(|e| e.guard.0.len()).max();
    let within = events.controls.iter().map(|c| c.within.0.len()).max();
    (guard.unwrap_or(0), within.unwrap_or(0))
}

#[test]
fn loop_guards_stay_bounded_whatever_the_unrolling() {
    // Each iteration is guarded by the latest link of a chain, not by every condition so far.
    let spin = build(crate::common::SPIN, 200).1;
    assert_eq!(spin.threads[0].len(), 1 + 3 * 201 - 1);
    assert_eq!(largest_guards(&spin), (1, 1));
    // Nested loops, and iterations that may stop the thread (an inner loop past its bound,
    // an index out of bounds) add a few literals per nesting level, whatever the bound.
    let nested = "C nested\n{ x=0; y=0; int a[2]; }\nP0(int *x, int *y, int *a) {\n  int r0 = 0;\n  while (READ_ONCE(*x) == 0) {\n    while (READ_ONCE(*y) == 0) {}\n    r0 = READ_ONCE(*y);\n    a[r0] = 1;\n  }\n}\nP1(int *x, int *y) { WRITE_ONCE(*y, 1); WRITE_ONCE(*x, 1); }\nexists (x=1)\n";
    let sizes: Vec<(usize, usize)> = [3, 10, 30]
        .into_iter()
        .map(|k| largest_guards(&build(nested, k).1))
        .collect();
    assert_eq!(sizes, [(5, 3); 3]);
}

#[test]
fn loops_stop_unrolling_where_their_condition_becomes_constant() {
    // A counted loop ends where its condition folds to false, whatever the bound.
    let counted = "C t\n{}\nP0 (int* x) {\n  for (int i = 0; i < 2; i++) {\n    for (int j = 0; j < 3; j++) {\n      *x = i + j;\n    }\n  }\n}\nexists (x=3)\n";
    let small = build(counted, 3).1;
    let huge = build(counted, u32::MAX).1;
    assert_eq!(small.len(), huge.len());
    let writes = kinds(&huge, 0)
        .into_iter()
        .filter(|&k| k == EventKind::Write)
        .count();
    assert_eq!(writes, 6);
    assert!(!kinds(&huge, 0).contains(&EventKind::Control));
    assert!(huge.bound_hits.is_empty());
    // `while (1) {}` (which used to recurse once per iteration and overflow the stack) is a
    // spin loop that never exits: one wait, which always blocks, and no bound.
    let spin = build(
        "C t\n{}\nP0 (int* x) {\n  while (1) {}\n  *x = 1;\n}\nexists (x=1)\n",
        u32::MAX,
    )
    .1;
    assert!(spin.bound_hits.is_empty());
    assert_eq!(
        kinds(&spin, 0),
        vec![EventKind::Wait, EventKind::Control, EventKind::Write]
    );
}

/// `depth` branches nested in P0, level `i` on `READ_ONCE(*x) == i % 2`, its else branch
/// setting `r0 = 100 + i`; P1 writes `x = 1` once.
fn alternating_nest(depth: usize) -> String {
    let mut text = String::from("C nest\n{ x=0; }\nP0(int *x) {\n  int r0 = 0;\n");
    for i in 0..depth {
        text.push_str(&format!("  if (READ_ONCE(*x) == {}) {{\n", i % 2));
    }
    text.push_str("  r0 = 99;\n");
    for i in (0..depth).rev() {
        text.push_str(&format!("  }} else {{ r0 = {}; }}\n", 100 + i));
    }
    text.push_str("}\nP1(int *x) { WRITE_ONCE(*x, 1); }\nexists (0:r0=99)\n");
    text
}

/// Nested branches fold their outer guard into one control past a few literals, so guards
/// stay bounded whatever the nesting (written out, n nested levels held O(n^2) literals:
/// 5000 levels took 6.9 GB).
#[test]
fn nested_branch_guards_stay_bounded_whatever_the_depth() {
    let sizes: Vec<(usize, usize)> = [20, 200]
        .into_iter()
        .map(|depth| largest_guards(&build(&alternating_nest(depth), 2).1))
        .collect();
    assert_eq!(sizes, [(8, 8); 2]);
}

/// The folded guards mean what the written-out ones did: under SC the reads of `x` see 0
/// then 1, so the run leaves level 0, 1 or 2 (r0 = 100, 101, 102) and never gets deeper.
#[test]
fn folded_nested_guards_keep_the_final_states() {
    let test = crate::common::load("nest.litmus", &alternating_nest(12));
    let options = QueryOptions::new(Arc::new(nemos::cat::sc()), "sc");
    let query = Query::Check {
        states: true,
        certify: false,
    };
    let answer = ask(&test, query, &options).unwrap();
    let Finding::Check(found) = &answer.finding else {
        panic!("a check answers with a check");
    };
    let mut r0: Vec<i32> = found
        .states
        .as_ref()
        .expect("the states were asked for")
        .iter()
        .flat_map(|s| s.values.iter().map(|&(_, v)| v))
        .collect();
    r0.sort_unstable();
    assert_eq!(r0, [100, 101, 102]);
    assert!(!found.result.ok);
}

/// An array's cells are counted at its declaration: one past `--max-events` refuses the test
/// before lowering lays out a cell (the refusal is `TooManyCells`, which only the count of
/// the declarations gives; the unrolling's own limit is `TooManyEvents`). Before, `int
/// a[100000000];` took 8.9 GB and a minute, and `--max-events` counted only while unrolling.
#[test]
fn a_vast_array_is_refused_at_its_declaration() {
    let load = |text: &str, max| {
        nemos::load(
            &SourceFile::new("big.litmus", text),
            &LoadOptions {
                max_events: Some(max),
                ..Default::default()
            },
        )
    };
    let big = "C big\n{ int a[100000000]; }\nP0(int *a) { a[5] = 1; }\nexists (a[5]=1)\n";
    match load(big, 20_000) {
        Err(LoadError::TooManyCells(limit)) => {
            assert_eq!(
                (limit.object.as_str(), limit.object_cells),
                ("a", 100_000_000)
            );
            assert_eq!(
                limit.to_string(),
                "array `a` has 100000000 cells, more than --max-events 20000 allows (each \
                 cell's initial value is an event)"
            );
        }
        other => panic!("expected the cells' limit, got {:?}", other.err()),
    }
    // At the limit the cells pass and the unrolling counts the rest: 10 initial writes and
    // the write of P0.
    let small = "C small\n{ int a[10]; }\nP0(int *a) { a[5] = 1; }\nexists (a[5]=1)\n";
    assert!(matches!(load(small, 9), Err(LoadError::TooManyCells(_))));
    assert!(matches!(load(small, 10), Err(LoadError::TooManyEvents(_))));
    // Within it, the 9 initial writes of the cells P0 never accesses are then left out
    // (`events/unroll/untouched.rs`): a[5]'s and P0's write remain.
    assert_eq!(load(small, 11).map(|t| t.events.len()).ok(), Some(2));
}

/// An object has a block of `OBJECT_STRIDE` addresses: a longer array would run into the next
/// object's, so it is refused at its declaration (before, its cells silently shared
/// addresses with the next object's).
#[test]
fn an_array_longer_than_an_object_block_is_refused() {
    let text =
        "C long\n{ int a[70000]; y = 0; }\nP0(int *a, int *y) { a[5] = 1; }\nexists (a[5]=1)\n";
    let Err(LoadError::Input(e)) =
        nemos::load(&SourceFile::new("long.litmus", text), &Default::default())
    else {
        panic!("expected a refusal");
    };
    assert_eq!(e.short(), "long.litmus:2:3: array `a` of 70000 cells");
}
