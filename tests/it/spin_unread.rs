//! Spin loops whose registers nothing reads after them (`src/events/unroll/spin_dead.rs`):
//! an assignment to a register nothing reads in the loop or after it is left out (GenMC's
//! spin-load, `while (r != 17) { q = r + 1; r = x; }`), and a register nothing reads after
//! the loop may be written on some paths of an iteration only (GenMC's spin-cas-onebranch),
//! and the registers are checked path by path (`spin_paths.rs`: spin-cas6, spin-dowhile1).
//! On small programs, the product's outcomes, races, bound hits and deadlocks under SC
//! equal the reference explorer's, which runs the loops without a bound and calls a loop
//! stuck when its state repeats at its test; and registers the condition names keep the
//! loop unrolled.

use nemos::diagnostics::SourceFile;
use nemos::encode::acyclic::AcyclicStrategy;

use crate::differential::{compare_with, spin_loops};

/// Programs whose loops are reduced only by this rule.
fn reduced() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            // spin-load's shape: `q` is read before the loop (by the exchange) and written
            // in it from the `r` of the iteration before, and read nowhere after it.
            "dead-assign",
            "C dead-assign\n{ x = 0; }\n\
             P0(atomic_int *x) { int r = atomic_load(x); int q = r; \
             atomic_compare_exchange_strong(x, &q, 5); \
             while (r != 2) { q = r + 1; r = atomic_load(x); } int a = atomic_load(x); }\n\
             P1(atomic_int *x) { atomic_store(x, 1); atomic_store(x, 2); }\n\
             exists (0:a = 2)\n",
        ),
        (
            // spin-cas-onebranch's shape: `e` and `t` are written on one branch only, and
            // nothing reads them after the loop; the exchange succeeds when x is 17.
            "one-branch",
            "C one-branch\n{ x = 0; y = 0; }\n\
             P0(atomic_int *x, atomic_int *y) { int s = 0; int b; int e; int t; \
             while (s == 0) { b = atomic_load(y); if (b == 1) { } else { e = 17; \
             t = atomic_compare_exchange_strong(x, &e, 42); s = t + 0; } } int a = atomic_load(y); }\n\
             P1(atomic_int *x, atomic_int *y) { atomic_store(y, 1); atomic_store(x, 17); \
             atomic_store(x, 3); atomic_store(y, 0); }\n\
             exists (0:a = 0 /\\ x = 42)\n",
        ),
        (
            // spin-cas6's shape, checked path by path: the reset `e = 1` and the next
            // exchange run only when the flag `break` sets is clear.
            "break-guarded",
            "C break-guarded\n{ x = 0; }\n\
             P0(atomic_int *x) { int e = 1; int b; \
             while (!atomic_compare_exchange_strong(x, &e, 42)) { b = atomic_load(x); \
             if (b == 2) break; e = 1; } int a = atomic_load(x); }\n\
             P1(atomic_int *x) { atomic_store(x, 1); atomic_store(x, 2); }\n\
             exists (0:a = 2)\n",
        ),
        (
            // spin-dowhile1's shape: the condition reads its load only when the flag is
            // clear.
            "do-break",
            "C do-break\n{ x = 0; }\n\
             P0(atomic_int *x) { int b; \
             do { b = atomic_load_explicit(x, memory_order_acquire); if (b == 2) break; } \
             while (atomic_load_explicit(x, memory_order_relaxed) != 0); int a = atomic_load(x); }\n\
             P1(atomic_int *x) { atomic_store_explicit(x, 1, memory_order_relaxed); \
             atomic_store_explicit(x, 2, memory_order_relaxed); }\n\
             exists (0:a = 1)\n",
        ),
    ]
}

/// The same loops with the register the rule leaves aside named by the condition (or read
/// after the loop): unrolled as before.
fn kept() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "dead-assign-named",
            "C dead-assign-named\n{ x = 0; }\n\
             P0(atomic_int *x) { int r = atomic_load(x); int q = r; \
             while (r != 2) { q = r + 1; r = atomic_load(x); } }\n\
             P1(atomic_int *x) { atomic_store(x, 1); atomic_store(x, 2); }\n\
             exists (0:q = 2)\n",
        ),
        (
            "one-branch-read-after",
            "C one-branch-read-after\n{ x = 0; y = 0; }\n\
             P0(atomic_int *x, atomic_int *y) { int s = 0; int b; int e = 0; int t; \
             while (s == 0) { b = atomic_load(y); if (b == 1) { } else { e = 17; \
             t = atomic_compare_exchange_strong(x, &e, 42); s = t + 0; } } int a = e; }\n\
             P1(atomic_int *x, atomic_int *y) { atomic_store(y, 1); atomic_store(x, 17); \
             atomic_store(y, 0); }\n\
             exists (0:a = 17)\n",
        ),
    ]
}

#[test]
fn spin_loops_with_unread_registers_match_the_reference() {
    let mut failures = Vec::new();
    for (name, text) in reduced().into_iter().chain(kept()) {
        if let Err(e) = compare_with(name, text, AcyclicStrategy::Ranks) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn spin_loops_with_unread_registers_are_reduced_and_others_kept() {
    for (programs, expected) in [(reduced(), 1), (kept(), 0)] {
        for (name, text) in programs {
            let file = SourceFile::new(name.to_string(), text.to_string());
            let program = nemos::load::lower(&file).unwrap_or_else(|e| panic!("{}", e.short()));
            assert_eq!(spin_loops(&program).len(), expected, "{name}");
        }
    }
}
