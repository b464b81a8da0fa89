//! Compare-exchange retry loops that reuse the value a failed exchange read
//! (`r = atomic_load(x); while (!atomic_compare_exchange_strong(x, &r, v)) ...`), reduced
//! to their first test (docs/unrolling.md, "Compare-exchange retry loops"): on random
//! programs over atomic locations, under SC, outcomes, races and deadlocks equal the
//! reference explorer's (which runs the loops without a bound), and under SC and RC11 the
//! reduced program has the final states of the same program with the reduction defeated
//! (an assignment between the load and the loop), unrolled twice, among its executions
//! that the bound does not cut.

use std::collections::BTreeSet;

use nemos::encode::acyclic::AcyclicStrategy;
use proptest::prelude::*;

use crate::common;

const LOCATIONS: [&str; 2] = ["x", "y"];
const REGISTERS: usize = 3;

#[derive(Clone, Debug)]
enum Body {
    /// `;`
    Empty,
    /// `{ if (atomic_load(m) == k) r = atomic_load(x); }`: a reload on one path.
    ReloadIf(usize, i32),
    /// `{ r = atomic_load(x); }`
    Reload,
}

#[derive(Clone, Debug)]
enum Stmt {
    Load(usize, usize, &'static str),
    Store(usize, i32, &'static str),
    FetchAdd(usize, usize, i32),
    /// `r = atomic_load_explicit(x, o); while (!cas_explicit(x, &r, d, s, f)) body`, `d`
    /// a constant or `r + c` (`plus`); orders (o, s, f).
    Retry {
        reg: usize,
        loc: usize,
        value: i32,
        plus: bool,
        orders: (&'static str, &'static str, &'static str),
        body: Body,
    },
}

fn stmt() -> impl Strategy<Value = Stmt> {
    let reg = || 0..REGISTERS;
    let loc = || 0..LOCATIONS.len();
    let order = || {
        prop::sample::select(vec![
            "memory_order_relaxed",
            "memory_order_acquire",
            "memory_order_seq_cst",
        ])
    };
    let store_order = || {
        prop::sample::select(vec![
            "memory_order_relaxed",
            "memory_order_release",
            "memory_order_seq_cst",
        ])
    };
    let orders = prop::sample::select(vec![
        (
            "memory_order_seq_cst",
            "memory_order_seq_cst",
            "memory_order_seq_cst",
        ),
        (
            "memory_order_relaxed",
            "memory_order_acq_rel",
            "memory_order_relaxed",
        ),
        (
            "memory_order_acquire",
            "memory_order_acquire",
            "memory_order_acquire",
        ),
        (
            "memory_order_relaxed",
            "memory_order_release",
            "memory_order_relaxed",
        ),
        // The failure order differs from the load's: not reduced, unrolled.
        (
            "memory_order_relaxed",
            "memory_order_seq_cst",
            "memory_order_acquire",
        ),
    ]);
    let body = prop_oneof![
        3 => Just(Body::Empty),
        2 => (loc(), 0..2i32).prop_map(|(m, k)| Body::ReloadIf(m, k)),
        1 => Just(Body::Reload),
    ];
    prop_oneof![
        2 => (reg(), loc(), order()).prop_map(|(r, l, o)| Stmt::Load(r, l, o)),
        2 => (loc(), 1..3i32, store_order()).prop_map(|(l, v, o)| Stmt::Store(l, v, o)),
        1 => (reg(), loc(), 1..3i32).prop_map(|(r, l, c)| Stmt::FetchAdd(r, l, c)),
        3 => (reg(), loc(), 1..4i32, any::<bool>(), orders, body).prop_map(
            |(reg, loc, value, plus, orders, body)| Stmt::Retry { reg, loc, value, plus, orders, body }
        ),
    ]
}

fn threads() -> impl Strategy<Value = Vec<Vec<Stmt>>> {
    prop::collection::vec(prop::collection::vec(stmt(), 1..4), 2..4).prop_filter(
        "small enough for brute force, with a retry loop",
        |threads| {
            let steps: usize = threads.iter().map(Vec::len).sum();
            steps <= 7
                && threads
                    .iter()
                    .flatten()
                    .any(|s| matches!(s, Stmt::Retry { .. }))
        },
    )
}

/// The program as a litmus test; `defeat` puts `r = r;` between each retry loop's load and
/// the loop, so that the loop is unrolled like any other.
fn render(threads: &[Vec<Stmt>], defeat: bool) -> String {
    let mut out = String::from("C retry\n{ x = 0; y = 0; }\n");
    for (i, body) in threads.iter().enumerate() {
        out.push_str(&format!("P{i} (atomic_int* x, atomic_int* y) {{\n"));
        for r in 0..REGISTERS {
            out.push_str(&format!("  int r{r} = 0;\n"));
        }
        for s in body {
            match s {
                Stmt::Load(r, l, o) => out.push_str(&format!(
                    "  r{r} = atomic_load_explicit({}, {o});\n",
                    LOCATIONS[*l]
                )),
                Stmt::Store(l, v, o) => out.push_str(&format!(
                    "  atomic_store_explicit({}, {v}, {o});\n",
                    LOCATIONS[*l]
                )),
                Stmt::FetchAdd(r, l, c) => out.push_str(&format!(
                    "  r{r} = atomic_fetch_add({}, {c});\n",
                    LOCATIONS[*l]
                )),
                Stmt::Retry {
                    reg,
                    loc,
                    value,
                    plus,
                    orders: (o, s, f),
                    body,
                } => {
                    let x = LOCATIONS[*loc];
                    out.push_str(&format!("  r{reg} = atomic_load_explicit({x}, {o});\n"));
                    if defeat {
                        out.push_str(&format!("  r{reg} = r{reg};\n"));
                    }
                    let desired = if *plus {
                        format!("r{reg} + {value}")
                    } else {
                        value.to_string()
                    };
                    out.push_str(&format!(
                        "  while (!atomic_compare_exchange_strong_explicit({x}, &r{reg}, {desired}, {s}, {f}))"
                    ));
                    match body {
                        Body::Empty => out.push_str(" ;\n"),
                        Body::Reload => out.push_str(&format!(
                            " {{ r{reg} = atomic_load_explicit({x}, {o}); }}\n"
                        )),
                        Body::ReloadIf(m, k) => out.push_str(&format!(
                            " {{ if (atomic_load({}) == {k}) r{reg} = atomic_load_explicit({x}, {o}); }}\n",
                            LOCATIONS[*m]
                        )),
                    }
                }
            }
        }
        out.push_str("}\n");
    }
    let mut observed: Vec<String> = (0..threads.len())
        .flat_map(|i| (0..REGISTERS).map(move |r| format!("{i}:r{r}")))
        .collect();
    observed.extend(LOCATIONS.iter().map(|l| l.to_string()));
    out.push_str(&format!(
        "locations [{};]\nexists (x=0)\n",
        observed.join("; ")
    ));
    out
}

pub(crate) type States = BTreeSet<Vec<(nemos::program::Observable, i32)>>;

/// Final states of test `name` under `model` at `--unroll 2`, and whether some execution
/// is cut.
pub(crate) fn states_named(name: &str, text: &str, model: &str) -> (States, bool) {
    let test = common::load_unrolled(name, text, 2);
    let options = common::under(model);
    let mut session = nemos::analysis::Session::new(&test.program, &test.events, &options)
        .unwrap_or_else(|e| panic!("{e}"));
    let states = common::final_states(&mut session);
    let cut = session.bound_reachable().unwrap();
    (states, cut)
}

/// The retry loops the unroller reduced in test `name` at `--unroll 2`.
pub(crate) fn retry_loops_named(name: &str, text: &str) -> usize {
    common::load_unrolled(name, text, 2)
        .events
        .retry_loops
        .len()
}

/// The reduced program `text` (test `name`) agrees with the reference explorer, and under
/// sc and rc11 with `defeated`, the same program with its retry loops kept unrolled: the
/// same final states where no execution is cut (every reduced loop exits at once; a loop
/// that is not reduced may be cut), and never a state the unrolled loops do not have.
pub(crate) fn reduced_matches_unrolled(
    name: &str,
    text: &str,
    defeated: &str,
) -> Result<(), TestCaseError> {
    if let Err(e) = crate::differential::compare_with(name, text, AcyclicStrategy::Ranks) {
        return Err(TestCaseError::fail(e));
    }
    prop_assert_eq!(retry_loops_named(name, defeated), 0);
    for model in ["sc", "rc11"] {
        let (reduced, cut) = states_named(name, text, model);
        let (unrolled, _) = states_named(name, defeated, model);
        prop_assert!(
            cut || reduced == unrolled,
            "{} under {}: reduced {:?}, unrolled {:?}",
            text,
            model,
            reduced,
            unrolled
        );
        prop_assert!(
            reduced.is_subset(&unrolled) || cut,
            "{} under {}",
            text,
            model
        );
    }
    Ok(())
}

/// Over 100 programs of `strategy` (deterministic), the retry loops of test `name` the
/// unroller reduces: most programs have one, and not every loop is (`retries` counts a
/// program's loops, `render` writes it with its loops free to be reduced).
pub(crate) fn assert_most_retry_loops_reduced<S: Strategy>(
    name: &str,
    strategy: S,
    retries: impl Fn(&S::Value) -> usize,
    render: impl Fn(&S::Value) -> String,
) {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut with, mut reduced, mut loops) = (0, 0, 0);
    for _ in 0..100 {
        let program = strategy.new_tree(&mut runner).unwrap().current();
        let r = retry_loops_named(name, &render(&program));
        with += usize::from(r > 0);
        reduced += r;
        loops += retries(&program);
    }
    assert!(
        with >= 60,
        "{with} of 100 programs have a reduced retry loop"
    );
    assert!(
        reduced < loops,
        "{reduced} of {loops} loops reduced: some must not be"
    );
}

fn retry_loops(text: &str) -> usize {
    retry_loops_named("retry", text)
}

proptest! {
    #![proptest_config(common::proptest_config(96, "tests/proptest-regressions/cas_retry.txt"))]

    #[test]
    fn reduced_retry_loops_match_the_reference_and_the_unrolled_loops(threads in threads()) {
        reduced_matches_unrolled("retry", &render(&threads, false), &render(&threads, true))?;
    }
}

/// The random programs do reduce loops: most of them, not all (the failure order that
/// differs from the load's keeps a loop unrolled).
#[test]
fn random_programs_reduce_most_retry_loops() {
    assert_most_retry_loops_reduced(
        "retry",
        threads(),
        |t| {
            t.iter()
                .flatten()
                .filter(|s| matches!(s, Stmt::Retry { .. }))
                .count()
        },
        |t| render(t, false),
    );
}

/// Issue 38, item 12: a reader spinning on a failing compare-exchange that reuses the
/// value it read is decided without `await`, at any `--unroll`, with the right verdict
/// (it hit the bound at every `--unroll` before, exit 3).
#[test]
fn a_retry_loop_on_a_failing_exchange_is_decided_at_any_bound() {
    let path = common::manifest_dir().join("litmus/cas-retry.litmus");
    let text = std::fs::read_to_string(&path).expect("litmus/cas-retry.litmus");
    for unroll in [1, 2, 7] {
        let test = common::load_unrolled("cas-retry", &text, unroll);
        assert_eq!(test.events.retry_loops.len(), 1, "unroll {unroll}");
        for model in ["sc", "rc11"] {
            let options = common::under(model);
            let mut session =
                nemos::analysis::Session::new(&test.program, &test.events, &options).unwrap();
            let result = session.check().unwrap();
            assert!(
                !result.bound_hit,
                "{model}, unroll {unroll}: cut by the bound"
            );
            assert!(
                result.positive.is_none(),
                "{model}, unroll {unroll}: 0:r0=1 /\\ 0:r1=0 reached"
            );
            assert!(result.negative.is_some(), "{model}, unroll {unroll}");
            assert!(
                result.deadlock.is_none(),
                "{model}, unroll {unroll}: a deadlock"
            );
        }
    }
    // With a relaxed exchange nothing makes y=1 visible under RC11: reachable there only.
    let relaxed = text.replace("memory_order_acquire", "memory_order_relaxed");
    let test = common::load_unrolled("cas-retry", &relaxed, 1);
    for (model, reached) in [("sc", false), ("rc11", true)] {
        let options = common::under(model);
        let mut session =
            nemos::analysis::Session::new(&test.program, &test.events, &options).unwrap();
        let result = session.check().unwrap();
        assert!(!result.bound_hit, "{model}");
        assert_eq!(result.positive.is_some(), reached, "{model}");
    }
}

/// The program on which the reference explorer reported a deadlock: P0's two retry loops,
/// P1's store of 2 and P2's retry loop that reloads. Every loop ends once the others stop
/// writing, so no execution waits for good; the loops reduced and the same loops unrolled
/// (an `r0 = r0;` body keeps them from the reduction) agree, and so does the reference
/// since a spin loop's state there counts the values other threads changed (a loop whose
/// registers and memory repeat after an ABA by others is not stuck).
#[test]
fn retry_loops_never_deadlock() {
    let reduced = r#"C retry
{ x = 0; y = 0; }
P0 (atomic_int* x, atomic_int* y) {
  int r0 = 0;
  r0 = atomic_load_explicit(y, memory_order_seq_cst);
  while (!atomic_compare_exchange_strong_explicit(y, &r0, 1, memory_order_seq_cst, memory_order_seq_cst)) ;
  r0 = atomic_load_explicit(y, memory_order_seq_cst);
  while (!atomic_compare_exchange_strong_explicit(y, &r0, 1, memory_order_seq_cst, memory_order_seq_cst)) ;
}
P1 (atomic_int* x, atomic_int* y) {
  atomic_store_explicit(y, 2, memory_order_relaxed);
}
P2 (atomic_int* x, atomic_int* y) {
  int r0 = 0;
  r0 = atomic_load_explicit(y, memory_order_seq_cst);
  while (!atomic_compare_exchange_strong_explicit(y, &r0, 1, memory_order_seq_cst, memory_order_seq_cst)) { r0 = atomic_load_explicit(y, memory_order_seq_cst); }
}
exists (y=1)
"#;
    // Two of the three loops are reduced; the unrolled variant below keeps P0's unrolled.
    assert_eq!(retry_loops(reduced), 2);
    let unrolled = reduced.replace(
        "memory_order_seq_cst)) ;",
        "memory_order_seq_cst)) { r0 = r0; }",
    );
    for (text, unroll) in [(reduced, 2), (unrolled.as_str(), 2), (unrolled.as_str(), 4)] {
        for model in ["sc", "rc11"] {
            let test = common::load_unrolled("retry", text, unroll);
            let options = common::under(model);
            let mut session = nemos::analysis::Session::new(&test.program, &test.events, &options)
                .unwrap_or_else(|e| panic!("{e}"));
            let result = session.check().unwrap();
            assert!(
                result.deadlock.is_none(),
                "{model}, unroll {unroll}: a deadlock in\n{text}"
            );
        }
    }
    crate::differential::compare_with("retry", reduced, AcyclicStrategy::Ranks)
        .unwrap_or_else(|e| panic!("{e}"));
}
