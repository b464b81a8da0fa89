//! Compare-exchange retry loops left by a flag (`src/events/unroll/retry_flag.rs`, GenMC's
//! spin-2cas-join2): `r = atomic_load(x); while (1) { if (c) { if (cas(x, &r, d1)) break; }
//! else { if (cas(x, &r, d2)) break; } }`, reduced to one iteration that leaves the loop.
//! On random programs over atomic locations, under SC, outcomes, races and deadlocks equal
//! the reference explorer's (which runs the loops without a bound), and under SC and RC11
//! the reduced program has the final states of the same program with the reduction
//! defeated (an assignment between the load and the loop), unrolled twice, among its
//! executions that the bound does not cut. Shapes where the reduction is not exact (an
//! exchange whose success goes on, a path that goes on without an exchange) stay unrolled.

use proptest::prelude::*;

use crate::common;

const LOCATIONS: [&str; 2] = ["x", "y"];
const REGISTERS: usize = 2;

/// What the branch of an iteration tests.
#[derive(Clone, Debug)]
enum Test {
    /// `r == k`: the value the last failed exchange (or the load) read.
    Register(i32),
    /// `atomic_load(m) == k`: a load of the iteration.
    Load(usize, i32),
}

#[derive(Clone, Debug)]
enum Stmt {
    Load(usize, usize),
    Store(usize, i32, &'static str),
    FetchAdd(usize, usize, i32),
    /// The loop above, on `LOCATIONS[loc]` with `REGISTERS[reg]`; desired values `d1`,
    /// `d2`; orders (load, success, failure).
    Retry {
        reg: usize,
        loc: usize,
        test: Test,
        desired: (i32, i32),
        orders: (&'static str, &'static str, &'static str),
    },
}

fn stmt() -> impl Strategy<Value = Stmt> {
    let reg = || 0..REGISTERS;
    let loc = || 0..LOCATIONS.len();
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
        // The failure order differs from the load's: not reduced, unrolled.
        (
            "memory_order_relaxed",
            "memory_order_seq_cst",
            "memory_order_acquire",
        ),
    ]);
    let test = prop_oneof![
        2 => (0..3i32).prop_map(Test::Register),
        1 => (loc(), 0..2i32).prop_map(|(m, k)| Test::Load(m, k)),
    ];
    prop_oneof![
        2 => (reg(), loc()).prop_map(|(r, l)| Stmt::Load(r, l)),
        2 => (loc(), 1..3i32, store_order()).prop_map(|(l, v, o)| Stmt::Store(l, v, o)),
        1 => (reg(), loc(), 1..3i32).prop_map(|(r, l, c)| Stmt::FetchAdd(r, l, c)),
        3 => (reg(), loc(), test, (1..4i32, 1..4i32), orders).prop_map(
            |(reg, loc, test, desired, orders)| Stmt::Retry { reg, loc, test, desired, orders }
        ),
    ]
}

fn threads() -> impl Strategy<Value = Vec<Vec<Stmt>>> {
    prop::collection::vec(prop::collection::vec(stmt(), 1..4), 2..4).prop_filter(
        "small enough for brute force, with a retry loop",
        |threads| {
            let steps: usize = threads.iter().map(Vec::len).sum();
            steps <= 6
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
    let mut out = String::from("C retry-flag\n{ x = 0; y = 0; }\n");
    for (i, body) in threads.iter().enumerate() {
        out.push_str(&format!("P{i} (atomic_int* x, atomic_int* y) {{\n"));
        for r in 0..REGISTERS {
            out.push_str(&format!("  int r{r} = 0;\n"));
        }
        for s in body {
            match s {
                Stmt::Load(r, l) => {
                    out.push_str(&format!("  r{r} = atomic_load({});\n", LOCATIONS[*l]))
                }
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
                    test,
                    desired: (d1, d2),
                    orders: (o, s, f),
                } => {
                    let x = LOCATIONS[*loc];
                    out.push_str(&format!("  r{reg} = atomic_load_explicit({x}, {o});\n"));
                    if defeat {
                        out.push_str(&format!("  r{reg} = r{reg};\n"));
                    }
                    let cond = match test {
                        Test::Register(k) => format!("r{reg} == {k}"),
                        Test::Load(m, k) => format!("atomic_load({}) == {k}", LOCATIONS[*m]),
                    };
                    let cas = |d: i32| {
                        format!(
                            "if (atomic_compare_exchange_strong_explicit({x}, &r{reg}, {d}, {s}, {f})) break;"
                        )
                    };
                    out.push_str(&format!(
                        "  while (1) {{ if ({cond}) {{ {} }} else {{ {} }} }}\n",
                        cas(*d1),
                        cas(*d2)
                    ));
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

fn retry_loops(text: &str) -> usize {
    crate::cas_retry::retry_loops_named("retry-flag", text)
}

proptest! {
    #![proptest_config(common::proptest_config(64, "tests/proptest-regressions/cas_retry_flag.txt"))]

    #[test]
    fn reduced_flag_retry_loops_match_the_reference_and_the_unrolled_loops(threads in threads()) {
        crate::cas_retry::reduced_matches_unrolled(
            "retry-flag",
            &render(&threads, false),
            &render(&threads, true),
        )?;
    }
}

/// The random programs do reduce loops: most of them, not all (the failure order that
/// differs from the load's keeps a loop unrolled).
#[test]
fn random_programs_reduce_most_flag_retry_loops() {
    crate::cas_retry::assert_most_retry_loops_reduced(
        "retry-flag",
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

/// Shapes the reduction must leave unrolled: an exchange whose success goes on (GenMC's
/// spin-2cas-se, where an iteration that succeeds writes and the loop goes on), a path that
/// goes on with no exchange (the thread could spin there for good), a loop whose entry test
/// reads memory, and a register other than the expected value carried across iterations.
#[test]
fn shapes_where_the_reduction_is_not_exact_stay_unrolled() {
    let program = |thread: &str| {
        format!(
            "C retry-flag\n{{ x = 0; y = 0; }}\n\
             P0 (atomic_int* x, atomic_int* y) {{ int r = 0; int q = 0; {thread} }}\n\
             P1 (atomic_int* x, atomic_int* y) {{ atomic_store(x, 2); }}\n\
             exists (x=0)\n"
        )
    };
    let reduced = program(
        "r = atomic_load(x); while (1) { if (r == 2) { if (atomic_compare_exchange_strong(x, &r, 3)) break; } \
         else { if (atomic_compare_exchange_strong(x, &r, 4)) break; } }",
    );
    assert_eq!(retry_loops(&reduced), 1, "{reduced}");
    for thread in [
        // The else branch's success goes on.
        "r = atomic_load(x); while (1) { if (r == 2) { if (atomic_compare_exchange_strong(x, &r, 3)) break; } \
         else { atomic_compare_exchange_strong(x, &r, 4); } }",
        // The then branch goes on with no exchange.
        "r = atomic_load(x); while (1) { if (r == 2) { } \
         else { if (atomic_compare_exchange_strong(x, &r, 4)) break; } }",
        // The entry test reads y.
        "r = atomic_load(x); while (atomic_load(y) == 0) { \
         if (atomic_compare_exchange_strong(x, &r, 4)) break; }",
        // `q` carries a count across iterations.
        "r = atomic_load(x); while (1) { q = q + 1; \
         if (atomic_compare_exchange_strong(x, &r, 4)) break; }",
        // An exchange of another location.
        "r = atomic_load(x); while (1) { \
         if (atomic_compare_exchange_strong(y, &r, 4)) break; }",
    ] {
        let text = program(thread);
        assert_eq!(retry_loops(&text), 0, "{text}");
    }
}
