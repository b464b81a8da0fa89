//! Loops with no exit (`while (1)`, no `break` or `return`) in programs with no error site
//! (only atomic accesses at fixed cells, no assertion): the product blocks the thread for
//! good at the loop's head (docs/unrolling.md, "Loops with no exit"). The reference
//! explorer knows nothing of it: it unrolls the loop to the bound, so every trace that
//! reaches the loop hits the bound and has no final state. On random programs under SC the
//! product's final states are the reference's, the product hits no bound, and it finds a
//! thread blocked for good exactly when the reference hits the bound.

use nemos::analysis::{AnalysisOptions, Session};
use nemos::diagnostics::SourceFile;
use nemos::events::WaitOn;
use proptest::prelude::*;

use crate::common;

const UNROLL: u32 = 2;

/// A thread: its accesses, then maybe a loop with no exit (the value its guard tests, and
/// the loop's body).
type Thread = (Vec<String>, Option<(i32, Vec<String>)>);

/// One atomic access of `x` or `y` (`r` the register a load or fetch-add reads into).
fn access(r: usize) -> impl Strategy<Value = String> {
    let loc = prop_oneof![Just("x"), Just("y")];
    (loc, 0..4usize, 1..3i32).prop_map(move |(loc, kind, v)| match kind {
        0 => format!("atomic_store({loc}, {v});"),
        1 => format!("r{r} = atomic_load({loc});"),
        2 => format!("r{r} = atomic_fetch_add({loc}, {v});"),
        _ => format!("atomic_compare_exchange_strong({loc}, &r{r}, {v});"),
    })
}

/// A thread: accesses, then maybe a loop with no exit entered when its register holds
/// `k`, whose body is accesses (an empty body is `while (1) {}`).
fn thread() -> impl Strategy<Value = Thread> {
    (
        prop::collection::vec(access(0), 1..3),
        prop::option::of((0..3i32, prop::collection::vec(access(1), 0..3))),
    )
}

fn render(threads: &[Thread]) -> String {
    let mut text = "C exitless\n{ x = 0; y = 0; }\n".to_string();
    for (i, (before, forever)) in threads.iter().enumerate() {
        text += &format!("P{i}(atomic_int *x, atomic_int *y) {{ int r0 = 0; int r1 = 0; ");
        text += &before.join(" ");
        if let Some((k, body)) = forever {
            text += &format!(" if (r0 == {k}) {{ while (1) {{ {} }} }}", body.join(" "));
        }
        text += " }\n";
    }
    text += "exists (x = 1)\n";
    text
}

fn check(text: &str) -> Result<(), TestCaseError> {
    let file = SourceFile::new("exitless".to_string(), text.to_string());
    let program = nemos::load::lower(&file).unwrap_or_else(|e| panic!("{}\n{text}", e.short()));
    let events = common::unrolled(&program, UNROLL);
    let forever = events
        .waits
        .iter()
        .filter(|w| matches!(w.on, WaitOn::Forever { .. }))
        .count();
    // A loop under a branch that is false while unrolling (`r0 == 1` before any load) is
    // not unrolled at all; every other one is reduced (and a loop left unrolled would hit
    // the bound, which the product must not).
    prop_assert!(forever <= text.matches("while (1)").count(), "{}", text);
    let options = AnalysisOptions::default();
    let mut session = Session::new(&program, &events, &options).unwrap();
    let outcomes = common::final_states(&mut session);
    let bound_hit = session.bound_reachable().unwrap();
    let deadlock = session.deadlock().unwrap().is_some();
    let reference = crate::reference::explore(&program, UNROLL);
    prop_assert_eq!(&outcomes, &reference.outcomes, "final states:\n{}", text);
    prop_assert!(!bound_hit, "the product hits no bound:\n{}", text);
    prop_assert!(!reference.deadlock, "nothing else blocks:\n{}", text);
    prop_assert_eq!(deadlock, reference.bound_hit, "blocked for good:\n{}", text);
    Ok(())
}

proptest! {
    #![proptest_config(common::proptest_config(64, "tests/proptest-regressions/exitless.txt"))]

    #[test]
    fn loops_with_no_exit_match_the_reference(
        threads in prop::collection::vec(thread(), 2..4)
    ) {
        check(&render(&threads))?;
    }
}

/// The gate: an assertion anywhere keeps a loop with no exit unrolled (its stores may make
/// it fail), and the product then hits the bound as the reference does.
#[test]
fn an_assertion_keeps_the_loop_unrolled() {
    let text = "C exitless-assert\n{ x = 0; }\n\
                P0(atomic_int *x) { while (1) { atomic_store(x, 1); } }\n\
                P1(atomic_int *x) { int r = atomic_load(x); assert(r == 0); }\n\
                exists (x = 1)\n";
    let file = SourceFile::new("exitless-assert".to_string(), text.to_string());
    let program = nemos::load::lower(&file).unwrap_or_else(|e| panic!("{}", e.short()));
    let events = common::unrolled(&program, UNROLL);
    assert!(events.waits.is_empty(), "the loop is not reduced");
    assert!(!events.bound_hits.is_empty(), "the loop meets the bound");
    assert!(crate::reference::explore(&program, UNROLL).bound_hit);
}

/// A loop with no exit that some execution reaches is reduced, and blocks for good there
/// where the reference hits the bound.
#[test]
fn a_reached_loop_with_no_exit_blocks() {
    let text = "C exitless-reached\n{ x = 0; y = 0; }\n\
                P0(atomic_int *x, atomic_int *y) { int r0 = 0; r0 = atomic_load(x); \
                if (r0 == 1) { while (1) { int r1 = atomic_fetch_add(y, 1); atomic_store(x, 2); } } }\n\
                P1(atomic_int *x, atomic_int *y) { atomic_store(x, 1); }\n\
                exists (x = 1)\n";
    check(text).unwrap_or_else(|e| panic!("{e}"));
    let file = SourceFile::new("exitless-reached".to_string(), text.to_string());
    let program = nemos::load::lower(&file).unwrap_or_else(|e| panic!("{}", e.short()));
    let events = common::unrolled(&program, UNROLL);
    assert_eq!(events.waits.len(), 1, "the loop is a wait");
    assert!(crate::reference::explore(&program, UNROLL).bound_hit);
}
