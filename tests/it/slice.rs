//! The races query's slice (`analysis::slice`): a plain location whose values feed only
//! its own writes is left out of the encoding under SC, and the races stay those of the
//! whole encoding and of the reference explorer. (Random programs are compared in
//! `differential.rs`, with and without the slice.)

use std::collections::BTreeSet;

use nemos::analysis::query::{ask, Finding, Query, QueryOptions};
use nemos::analysis::races::{RaceResult, Statement};
use nemos::analysis::{AnalysisOptions, Session};

use crate::common;
use crate::reference;

use crate::families::{locked_counter, unlocked_counter};

fn races(test: &nemos::Test, options: &AnalysisOptions) -> RaceResult {
    let mut session = Session::new(&test.program, &test.events, options).unwrap();
    session.races().unwrap()
}

fn pairs(result: &RaceResult) -> BTreeSet<(Statement, Statement)> {
    result.races.iter().map(|r| (r.first, r.second)).collect()
}

fn sliced() -> AnalysisOptions {
    AnalysisOptions {
        slice_races: true,
        ..AnalysisOptions::default()
    }
}

/// The locations `races` leaves out, checking that its races are the whole encoding's and,
/// for programs the reference can afford, the reference's.
fn sliced_locations(text: &str, unroll: u32, against_reference: bool) -> Vec<String> {
    let test = common::load_unrolled("slice.litmus", text, unroll);
    let with = races(&test, &sliced());
    let without = races(&test, &AnalysisOptions::default());
    assert!(without.sliced.is_empty());
    assert_eq!(pairs(&with), pairs(&without), "{text}");
    assert_eq!(with.bound_hit, without.bound_hit, "{text}");
    assert_eq!(
        with.deadlock.is_some(),
        without.deadlock.is_some(),
        "{text}"
    );
    if against_reference {
        let explored = reference::explore(&test.program, unroll);
        assert_eq!(pairs(&with), explored.races, "{text}");
    }
    // Every witness was validated when it was found: each read of a left-out location
    // reads from a write the decoder chose along the interleaving.
    for race in &with.races {
        for e in 0..test.events.len() {
            if race.witness.feasible[e] && test.events.events[e].is_read() {
                assert!(race.witness.rf.iter().any(|&(_, r)| r == e));
            }
        }
    }
    with.sliced
}

#[test]
fn the_counters_leave_their_counter_out() {
    assert_eq!(sliced_locations(&locked_counter(2, 2), 2, true), ["c"]);
    assert_eq!(sliced_locations(&unlocked_counter(2, 2), 2, true), ["c"]);
    assert_eq!(sliced_locations(&locked_counter(3, 4), 4, false), ["c"]);
    assert_eq!(sliced_locations(&unlocked_counter(4, 5), 5, false), ["c"]);
}

/// Two threads incrementing `c` while `P1` does something with a value it read from `c`.
fn with_use(init: &str, p1: &str, tail: &str) -> String {
    format!(
        "C uses\n{{ c = 0; y = 0; {init} }}\n\nP0 (int* c, int* y) {{\n  int a = *c;\n  *c = a + 1;\n  *y = 1;\n}}\n\nP1 (int* c, int* y) {{\n  int b = *c;\n  *c = b + 1;\n{p1}}}\n\n{tail}\n"
    )
}

#[test]
fn a_value_that_reaches_something_keeps_its_location() {
    let exists = "exists (c=2)";
    // Nothing uses `b` but `c`'s own write, and the condition is not the race query's.
    assert_eq!(
        sliced_locations(&with_use("", "", exists), 2, true),
        ["c", "y"]
    );
    // A branch on it decides whether `y` is written.
    let branch = with_use("", "  if (b == 1) { *y = 2; }\n", exists);
    assert_eq!(sliced_locations(&branch, 2, true), ["y"]);
    // Written to another location (which, never read, is left out itself).
    let copied = with_use("", "  *y = b;\n", exists);
    assert_eq!(sliced_locations(&copied, 2, true), ["y"]);
    // Asserted, assumed, awaited.
    let asserted = with_use("", "  assert(b < 5);\n", exists);
    assert_eq!(sliced_locations(&asserted, 2, true), ["y"]);
    let assumed = with_use("", "  assume(b == 0);\n", exists);
    assert_eq!(sliced_locations(&assumed, 2, true), ["y"]);
    let awaited = with_use("", "  await(*c == 2);\n", exists);
    assert_eq!(sliced_locations(&awaited, 2, false), ["y"]);
    // An index: the access to `a[b]` is split on its value.
    let indexed = with_use("int a[2] = {0, 0};", "  a[b] = 1;\n", exists);
    let left_out = sliced_locations(&indexed, 2, false);
    assert!(!left_out.contains(&"c".to_string()), "{left_out:?}");
    // A filter on the final state names `c`, or a register that holds its value.
    let filtered = with_use("", "", "filter (c=2)\nexists (y=1)");
    assert_eq!(sliced_locations(&filtered, 2, false), ["y"]);
    let filtered = with_use("", "", "filter (1:b=1)\nexists (y=1)");
    assert_eq!(sliced_locations(&filtered, 2, false), ["y"]);
    // An atomic access to `c`: its reads-from synchronises.
    let atomic = with_use("", "  int d = atomic_load(c);\n", exists);
    assert_eq!(sliced_locations(&atomic, 2, true), ["y"]);
}

#[test]
fn only_sc_and_rc11_as_shipped_are_sliced() {
    let test = common::load("counter.litmus", &unlocked_counter(2, 2));
    let under = |model: &str, skip: &[&str]| AnalysisOptions {
        skip: skip.iter().map(|s| s.to_string()).collect(),
        slice_races: true,
        ..common::under(model)
    };
    assert_eq!(races(&test, &under("sc", &[])).sliced, ["c"]);
    assert!(races(&test, &under("sc", &["atomic"])).sliced.is_empty());
    assert!(races(&test, &under("tso", &[])).sliced.is_empty());
    assert_eq!(rc11_races(&test, &under("rc11", &[])).sliced, ["c"]);
    assert!(rc11_races(&test, &under("rc11", &["sc"])).sliced.is_empty());
    assert!(rc11_races(&test, &under("c11", &[])).sliced.is_empty());
    // With locks, RC11's `hb` holds `lko`: sliced only when no read is kept (below).
    let locked = common::load_unrolled("counter.litmus", &locked_counter(2, 2), 2);
    assert_eq!(rc11_races(&locked, &under("rc11", &[])).sliced, ["c"]);
}

/// Under RC11, a lock and a read that stays in the encoding (a relaxed flag, which may
/// read against the lock order): the completion along `po | rf` would not hold `hb`, so
/// nothing is left out, and the races are the whole encoding's.
#[test]
fn rc11_keeps_everything_when_a_lock_meets_a_kept_read() {
    let text = "C locked-flag\n{ c = 0; f = 0; }\n\n\
                P0 (int* c, atomic_int* f, int* l) {\n  lock(l);\n  int a = *c;\n  *c = a + 1;\n  \
                unlock(l);\n  atomic_store_explicit(f, 1, memory_order_relaxed);\n}\n\n\
                P1 (int* c, atomic_int* f, int* l) {\n  \
                int r = atomic_load_explicit(f, memory_order_relaxed);\n  lock(l);\n  \
                int b = *c;\n  *c = b + 1;\n  unlock(l);\n  int s = *c;\n}\n\n\
                exists (1:r=1)\n";
    let test = common::load("locked-flag.litmus", text);
    let rc11 = |slice: bool| AnalysisOptions {
        slice_races: slice,
        ..common::under("rc11")
    };
    let with = rc11_races(&test, &rc11(true));
    assert!(with.sliced.is_empty(), "{:?}", with.sliced);
    assert_eq!(pairs(&with), pairs(&rc11_races(&test, &rc11(false))));
    assert!(!nemos::analysis::slice::rc11_races_are_sc(
        &common::under("rc11").model,
        &test.program,
        &test.events
    ));
}

fn races_asked(test: &nemos::Test, model: &str) -> RaceResult {
    let options = QueryOptions::new(common::under(model).model, model);
    match ask(test, Query::Races, &options).unwrap().finding {
        Finding::Races(result) => result,
        other => panic!("races answered {other:?}"),
    }
}

/// Under RC11, the counters' races are decided as SC's (`slice::rc11_races_are_sc`: every
/// read feeds nothing), and they are RC11's own over the whole encoding. Where a read feeds
/// a branch, RC11's weak executions reach more: in store buffering with each thread writing
/// `z` when it read 0, both writes run in one RC11 execution and race, never under SC.
#[test]
fn rc11_races_of_reads_that_feed_nothing_are_scs() {
    for (text, unroll) in [
        (locked_counter(2, 3), 3),
        (locked_counter(3, 2), 2),
        (unlocked_counter(3, 2), 2),
    ] {
        let test = common::load_unrolled("counter.litmus", &text, unroll);
        let decided = races_asked(&test, "rc11");
        assert!(
            decided.definition.contains("are SC's"),
            "{}",
            decided.definition
        );
        assert_eq!(decided.sliced, ["c"]);
        let whole = rc11_races(&test, &common::under("rc11"));
        assert!(!whole.races.is_empty());
        assert_eq!(pairs(&decided), pairs(&whole), "{text}");
    }
    let sb = "C sb-branches\n{ x = 0; y = 0; z = 0; }\n\n\
              P0 (int* x, int* y, int* z) {\n  *x = 1;\n  int r = *y;\n  \
              if (r == 0) { *z = 1; }\n}\n\n\
              P1 (int* x, int* y, int* z) {\n  *y = 1;\n  int s = *x;\n  \
              if (s == 0) { *z = 2; }\n}\n\nexists (0:r=0 /\\ 1:s=0)\n";
    let test = common::load("sb.litmus", sb);
    let rc11 = common::under("rc11").model;
    assert!(!nemos::analysis::slice::rc11_races_are_sc(
        &rc11,
        &test.program,
        &test.events
    ));
    let on_z = |result: &RaceResult| result.races.iter().filter(|r| r.location == "z").count();
    assert_eq!(on_z(&races_asked(&test, "rc11")), 1);
    assert_eq!(on_z(&races_asked(&test, "sc")), 0);
}

/// The model's own races (`model_races`), which RC11 defines.
fn rc11_races(test: &nemos::Test, options: &AnalysisOptions) -> RaceResult {
    let mut session = Session::new(&test.program, &test.events, options).unwrap();
    session
        .model_races_with(Default::default())
        .expect("the model defines race")
        .unwrap()
}

/// Under RC11 a release/acquire flag orders the plain accesses of `x` around it; `x` and
/// `y`, whose values feed only their own writes and unobserved registers, are left out, and
/// the races (of `x` after the relaxed flag, of `y` always) are those of the whole
/// encoding. A fence keeps the whole
/// encoding (an SC fence's `psc` reaches every location's coherence).
#[test]
fn rc11_slices_what_feeds_nothing_and_keeps_the_races() {
    let program = |store: &str, load: &str, fence: &str| {
        format!(
            "C mp\n{{ x = 0; y = 0; f = 0; }}\n\n\
             P0 (int* x, int* y, atomic_int* f) {{\n  *x = 1;\n  int a = *y;\n  *y = a + 1;\n  \
             atomic_store_explicit(f, 1, {store});\n}}\n\n\
             P1 (int* x, int* y, atomic_int* f) {{\n  int r = atomic_load_explicit(f, {load});\n  \
             {fence}if (r == 1) {{ int s = *x; }}\n  int b = *y;\n  *y = b + 2;\n}}\n\n\
             exists (1:r=1)\n"
        )
    };
    let rc11 = |slice: bool| AnalysisOptions {
        slice_races: slice,
        ..common::under("rc11")
    };
    let mut counts = Vec::new();
    for (store, load) in [
        ("memory_order_release", "memory_order_acquire"),
        ("memory_order_relaxed", "memory_order_acquire"),
        ("memory_order_seq_cst", "memory_order_seq_cst"),
    ] {
        let text = program(store, load, "");
        let test = common::load("mp.litmus", &text);
        let with = rc11_races(&test, &rc11(true));
        let without = rc11_races(&test, &rc11(false));
        assert_eq!(with.sliced, ["x", "y"], "{text}");
        assert_eq!(pairs(&with), pairs(&without), "{text}");
        assert_eq!(with.bound_hit, without.bound_hit, "{text}");
        counts.push(with.races.len());
        let fenced = program(
            store,
            load,
            "atomic_thread_fence(memory_order_seq_cst);\n  ",
        );
        let test = common::load("mp.litmus", &fenced);
        assert!(rc11_races(&test, &rc11(true)).sliced.is_empty(), "{fenced}");
    }
    // y's pairs race every time; x's only when the flag is relaxed.
    assert_eq!(counts[0], counts[2]);
    assert!(counts[1] > counts[0], "{counts:?}");
}

/// The races with the `hb` reach literals built per source release and per target
/// acquisition (`races` picks whichever needs fewer): the same pairs, and the reference's
/// where it can afford the program.
fn races_both_ways(text: &str, unroll: u32, against_reference: bool) -> usize {
    let test = common::load_unrolled("reach.litmus", text, unroll);
    let directed = |backward: bool| {
        let mut session = Session::new(&test.program, &test.events, &sliced()).unwrap();
        let result = session
            .races_with_reach(Default::default(), Some(backward))
            .unwrap();
        pairs(&result)
    };
    let forward = directed(false);
    assert_eq!(forward, directed(true), "{text}");
    assert_eq!(forward, pairs(&races(&test, &sliced())), "{text}");
    if against_reference {
        assert_eq!(
            forward,
            reference::explore(&test.program, unroll).races,
            "{text}"
        );
    }
    forward.len()
}

#[test]
fn hb_reach_built_either_way_finds_the_same_races() {
    assert_eq!(races_both_ways(&locked_counter(2, 2), 2, true), 1);
    assert_eq!(races_both_ways(&locked_counter(4, 5), 5, false), 3);
    // `x` is ordered only through a chain of release/acquire flags across three threads,
    // which holds when both flags were seen; `y` is written by two threads with no order.
    let chain = "C chain\n{ x = 0; y = 0; f = 0; g = 0; }\n\n\
        P0 (int* x, int* y, atomic_int* f) {\n  *x = 1;\n  *y = 1;\n  atomic_store(f, 1);\n}\n\n\
        P1 (atomic_int* f, atomic_int* g) {\n  int r = atomic_load(f);\n  if (r == 1) { atomic_store(g, 1); }\n}\n\n\
        P2 (int* x, int* y, atomic_int* g) {\n  int s = atomic_load(g);\n  if (s == 1) { int t = *x; } else { *y = 2; }\n}\n\n\
        exists (2:s=1)\n";
    assert_eq!(races_both_ways(chain, 2, true), 1);
}
