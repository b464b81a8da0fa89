//! Exchange spin loops (`while (!done) { r = atomic_exchange(x, 1); if (r == 0) done = 1; }`,
//! a test-and-set lock): a failed exchange writes back the value it read, so the loop is
//! reduced as a spin loop (docs/unrolling.md, "Spin loops"). On small programs whose
//! exchanges only ever write the value they fail on, the product's outcomes, races,
//! bound hits and deadlocks under SC equal the reference explorer's, which runs the loops
//! without a bound and calls a loop stuck when its state repeats at its test.

use nemos::diagnostics::SourceFile;
use nemos::encode::acyclic::AcyclicStrategy;

use crate::differential::{compare_with, spin_loops};

/// A test-and-set acquisition of `x` into `r`, with the flag `f` (`break` as the C front
/// end lowers it).
fn tas(r: &str, f: &str) -> String {
    format!(
        "int {f} = 0; while ({f} == 0) {{ {r} = atomic_exchange(x, 1); if ({r} == 0) {f} = 1; }}"
    )
}

fn programs() -> Vec<(&'static str, String)> {
    vec![
        (
            // Mutual exclusion: both sections run, in either order; the counter ends at 2.
            "xchg-lock",
            format!(
                "C xchg-lock\n{{ x = 0; y = 0; }}\n\
                 P0(atomic_int *x, int *y) {{ int r0; {} int a = *y; *y = a + 1; atomic_store(x, 0); }}\n\
                 P1(atomic_int *x, int *y) {{ int r1; {} int b = *y; *y = b + 1; atomic_store(x, 0); }}\n\
                 exists (y = 1)\n",
                tas("r0", "f0"),
                tas("r1", "f1")
            ),
        ),
        (
            // A lock never released: the second thread spins for good (a deadlock).
            "xchg-held",
            format!(
                "C xchg-held\n{{ x = 0; y = 0; }}\n\
                 P0(atomic_int *x, int *y) {{ int r0; {} *y = 1; }}\n\
                 P1(atomic_int *x, int *y) {{ int r1; {} *y = 2; }}\n\
                 exists (y = 2)\n",
                tas("r0", "f0"),
                tas("r1", "f1")
            ),
        ),
        (
            // Held at the start and released once, after a write the winner then reads.
            "xchg-handoff",
            format!(
                "C xchg-handoff\n{{ x = 1; y = 0; }}\n\
                 P0(atomic_int *x, int *y) {{ *y = 1; atomic_store(x, 0); }}\n\
                 P1(atomic_int *x, int *y) {{ int r1; {} int a = *y; }}\n\
                 P2(atomic_int *x, int *y) {{ int r2; {} int b = *y; }}\n\
                 exists (1:a = 0 \\/ 2:b = 0)\n",
                tas("r1", "f1"),
                tas("r2", "f2")
            ),
        ),
    ]
}

#[test]
fn exchange_spin_loops_match_the_reference() {
    let mut failures = Vec::new();
    for (name, text) in programs() {
        if let Err(e) = compare_with(name, &text, AcyclicStrategy::Ranks) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn exchange_spin_loops_are_reduced() {
    // Each acquisition above is a reduced spin loop (a wait), not an unrolled loop.
    for (name, text) in programs() {
        let file = SourceFile::new(name.to_string(), text.clone());
        let program = nemos::load::lower(&file).unwrap_or_else(|e| panic!("{}", e.short()));
        let spins = spin_loops(&program);
        let loops = text.matches("while").count();
        assert_eq!(spins.len(), loops, "{name}: every exchange loop is reduced");
    }
}

#[test]
fn an_exchange_in_a_retry_loop_keeps_it_unrolled() {
    // A compare-exchange retry loop drops its failed iterations' events, which must not
    // write: an exchange in its body (of another location) keeps the loop unrolled, and
    // the answers are the reference's.
    let text = "C retry-xchg\n{ x = 0; y = 0; }\n\
                P0(atomic_int *x, atomic_int *y) { int r = atomic_load(x); \
                while (!atomic_compare_exchange_strong(x, &r, r + 1)) { int s = atomic_exchange(y, 1); } }\n\
                P1(atomic_int *x, atomic_int *y) { atomic_store(x, 5); int t = atomic_load(y); }\n\
                exists (1:t = 1)\n";
    let file = SourceFile::new("retry-xchg".to_string(), text.to_string());
    let program = nemos::load::lower(&file).unwrap_or_else(|e| panic!("{}", e.short()));
    assert!(spin_loops(&program).is_empty(), "the loop is not reduced");
    compare_with("retry-xchg", text, AcyclicStrategy::Ranks).unwrap_or_else(|e| panic!("{e}"));
}
