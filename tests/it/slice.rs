//! The races query's slice (`analysis::slice`): a plain location whose values feed only
//! its own writes is left out of the encoding under SC, and the races stay those of the
//! whole encoding and of the reference explorer. (Random programs are compared in
//! `differential.rs`, with and without the slice.)

use std::collections::BTreeSet;
use std::sync::Arc;

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
fn only_sc_as_shipped_is_sliced() {
    let test = common::load("counter.litmus", &unlocked_counter(2, 2));
    let under = |model: &str, skip: &[&str]| AnalysisOptions {
        skip: skip.iter().map(|s| s.to_string()).collect(),
        slice_races: true,
        ..common::under(model)
    };
    assert_eq!(races(&test, &under("sc", &[])).sliced, ["c"]);
    assert!(races(&test, &under("sc", &["atomic"])).sliced.is_empty());
    assert!(races(&test, &under("tso", &[])).sliced.is_empty());
    let rc11 = AnalysisOptions {
        slice_races: true,
        model: Arc::new(nemos::cat::load_shipped("rc11").unwrap().unwrap()),
        ..AnalysisOptions::default()
    };
    let mut session = Session::new(&test.program, &test.events, &rc11).unwrap();
    let result = session
        .model_races_with(Default::default())
        .unwrap()
        .unwrap();
    assert!(result.sliced.is_empty());
}
