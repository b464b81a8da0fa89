//! Spin loops whose iterations hold a compare-exchange that fails in every iteration that
//! goes on (GenMC's failed CASes that lead back to the loop's head), and loops that end
//! on a flag the condition requires to be 0 however the body writes it
//! (`while (!success) { ... success = cas(..); }`): both reduced as spin loops
//! (docs/unrolling.md, "Spin loops"). On small programs whose exchanges never succeed in
//! an iteration that goes on, the product's outcomes, races, bound hits and deadlocks
//! under SC equal the reference explorer's, which runs the loops without a bound and calls
//! a loop stuck when its state repeats at its test.

use nemos::diagnostics::SourceFile;
use nemos::encode::acyclic::AcyclicStrategy;

use crate::differential::{compare_with, spin_loops};

fn programs() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            // The body's exchange of y expects 17, which y never holds: it always fails.
            // Two loops in a row, as GenMC's spin-samecas; the plain z publishes nothing.
            "cas-in-body",
            "C cas-in-body\n{ x = 0; y = 0; z = 0; }\n\
             P0(atomic_int *x, atomic_int *y, int *z) { int e; int ok; \
             while (atomic_load(x) != 0) { e = 17; ok = atomic_compare_exchange_strong(y, &e, 42); } \
             while (atomic_load(x) != 0) { e = 17; ok = atomic_compare_exchange_strong(y, &e, 42); } \
             int a = *z; }\n\
             P1(atomic_int *x, int *z) { atomic_store(x, 1); *z = 1; atomic_store(x, 0); }\n\
             exists (0:a = 0 /\\ 0:e = 17)\n",
        ),
        (
            // A success flag written under a branch: the exchange runs only when y is 0,
            // and its success (x from 1 to 2) ends the loop.
            "cas-success-flag",
            "C cas-success-flag\n{ x = 0; y = 0; }\n\
             P0(atomic_int *x, atomic_int *y) { int s = 0; int e; int b; \
             while (s == 0) { e = 1; b = atomic_load(y); if (b == 0) { s = atomic_compare_exchange_strong(x, &e, 2); } } }\n\
             P1(atomic_int *x, atomic_int *y) { atomic_store(y, 1); atomic_store(x, 1); atomic_store(y, 0); }\n\
             exists (0:b = 0 /\\ x = 2)\n",
        ),
        (
            // The exchange expects 1, but x ends at 3 or is taken by P2 first: P0 may spin
            // for good (a deadlock), and the flag is set on one branch only.
            "cas-success-stuck",
            "C cas-success-stuck\n{ x = 0; }\n\
             P0(atomic_int *x) { int s = 0; int e; int p; \
             while (s == 0) { e = 1; p = 0; if (atomic_load(x) == 0) { s = atomic_compare_exchange_strong(x, &p, 5); } else { s = atomic_compare_exchange_strong(x, &e, 2); } } }\n\
             P1(atomic_int *x) { atomic_store(x, 1); atomic_store(x, 3); }\n\
             exists (x = 2)\n",
        ),
    ]
}

#[test]
fn spin_loops_with_failing_exchanges_match_the_reference() {
    let mut failures = Vec::new();
    for (name, text) in programs() {
        if let Err(e) = compare_with(name, text, AcyclicStrategy::Ranks) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn spin_loops_with_failing_exchanges_are_reduced() {
    // Each loop above is a reduced spin loop (a wait), not an unrolled loop.
    for (name, text) in programs() {
        let file = SourceFile::new(name.to_string(), text.to_string());
        let program = nemos::load::lower(&file).unwrap_or_else(|e| panic!("{}", e.short()));
        let spins = spin_loops(&program);
        let loops = text.matches("while").count();
        assert_eq!(spins.len(), loops, "{name}: every loop is reduced");
    }
}
