//! Loops with stores whose iterations that write nothing are dropped (GenMC's SAVer on
//! `spin-plain+se`; `events/unroll/spin_store.rs`, docs/unrolling.md, "Iterations that
//! write nothing"): after two such iterations in a row that go on the thread waits. On
//! small programs the product's outcomes, races, bound hits and deadlocks under SC equal
//! the reference explorer's, which runs such loops without a bound and calls a loop stuck
//! when its state repeats at its test.

use nemos::diagnostics::SourceFile;
use nemos::encode::acyclic::AcyclicStrategy;

use crate::differential::{compare_unrolled, spin_loops};

/// Enough iterations for every store these loops can make, and two quiet ones after.
const UNROLL: u32 = 8;

fn programs() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            // GenMC's spin-plain+se with an exit: x is set to 42 whenever it is seen
            // otherwise, until d is set.
            "store-unless-set",
            "C store-unless-set\n{ x = 0; d = 0; }\n\
             P0(atomic_int *x, atomic_int *d) { int r; \
             while (atomic_load(d) == 0) { r = atomic_load(x); if (r != 42) { atomic_store(x, 42); } } }\n\
             P1(atomic_int *x, atomic_int *d) { atomic_store(x, 1); atomic_store(x, 2); atomic_store(d, 1); }\n\
             exists (x = 2 /\\ 0:r = 42)\n",
        ),
        (
            // The quiet iterations read z, which P1 writes plainly: a race that only an
            // iteration writing nothing may show, and a final state that depends on
            // which write of x the loop saw last.
            "quiet-iteration-races",
            "C quiet-iteration-races\n{ x = 0; d = 0; z = 0; }\n\
             P0(atomic_int *x, atomic_int *d, int *z) { int r; int a; \
             while (atomic_load(d) == 0) { r = atomic_load(x); if (r == 1) { atomic_store(x, 0); a = 0; } else { a = *z; } } }\n\
             P1(atomic_int *x, atomic_int *d, int *z) { atomic_store(x, 1); *z = 1; atomic_store(d, 1); }\n\
             exists (x = 0 /\\ 0:a = 0)\n",
        ),
        (
            // No exit: the loop stores until x holds 42 for good, then spins for ever
            // (a deadlock in every execution).
            "store-for-ever",
            "C store-for-ever\n{ x = 0; }\n\
             P0(atomic_int *x) { int r; \
             while (1) { r = atomic_load(x); if (r != 42) { atomic_store(x, 42); } } }\n\
             P1(atomic_int *x) { atomic_store(x, 1); }\n\
             exists (x = 42)\n",
        ),
    ]
}

#[test]
fn loops_with_stores_match_the_reference() {
    let mut failures = Vec::new();
    for (name, text) in programs() {
        if let Err(e) = compare_unrolled(name, text, AcyclicStrategy::Ranks, UNROLL) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn loops_with_stores_wait_after_quiet_iterations() {
    // Each loop above has waits (its quiet iterations), so the reference runs it unbounded.
    for (name, text) in programs() {
        let file = SourceFile::new(name.to_string(), text.to_string());
        let program = nemos::load::lower(&file).unwrap_or_else(|e| panic!("{}", e.short()));
        assert!(!spin_loops(&program).is_empty(), "{name}: the loop waits");
    }
}
