//! `infer` against a `spec { }` block (issue 38, item 13): the specification is part of the
//! property, so the orders infer calls enough are those under which `spec` (CDSSpec's loose
//! or strict mode, over the model's executions) and `check` find nothing.

use crate::common;

use assert_cmd::Command;
use nemos::analysis::infer::{infer, patched, Choice, Inference, Property, Search, Violation};
use nemos::analysis::spec::SpecMode;
use nemos::program::MemOrder::{self, *};

const UNROLL: u32 = 2;

/// A ring of two atomic slots, every access relaxed: the dequeue may see the enqueue's
/// `tail` and still read the slot's initial 0, a value never enqueued. No condition, no
/// plain access: only the specification says this is wrong.
pub const SPSC_SLOTS: &str = "C spsc-slots\n\
{ head = 0; tail = 0; atomic_int buf[2] = {0, 0}; }\n\
int enqueue(atomic_int *head, atomic_int *tail, atomic_int *buf, int v) {\n\
  int t = atomic_load_explicit(tail, memory_order_relaxed);\n\
  if (t - atomic_load_explicit(head, memory_order_relaxed) == 2)\n\
    return 0;\n\
  atomic_store_explicit(&buf[t % 2], v, memory_order_relaxed);\n\
  atomic_store_explicit(tail, t + 1, memory_order_relaxed);\n\
  ordering_point(1);\n\
  return 1;\n\
}\n\
int dequeue(atomic_int *head, atomic_int *tail, atomic_int *buf) {\n\
  int h = atomic_load_explicit(head, memory_order_relaxed);\n\
  int t = atomic_load_explicit(tail, memory_order_relaxed);\n\
  ordering_point(t != h);\n\
  if (t == h)\n\
    return -1;\n\
  int v = atomic_load_explicit(&buf[h % 2], memory_order_relaxed);\n\
  atomic_store_explicit(head, h + 1, memory_order_relaxed);\n\
  return v;\n\
}\n\
spec {\n\
  int items[2];\n\
  int first = 0;\n\
  int count = 0;\n\
  int enqueue(atomic_int *head, atomic_int *tail, atomic_int *buf, int v) {\n\
    if (count == 2) return 0;\n\
    items[(first + count) % 2] = v;\n\
    count = count + 1;\n\
    return 1;\n\
  }\n\
  int dequeue(atomic_int *head, atomic_int *tail, atomic_int *buf) {\n\
    if (count == 0) return -1;\n\
    int v = items[first];\n\
    first = (first + 1) % 2;\n\
    count = count - 1;\n\
    return v;\n\
  }\n\
}\n\
P0 (atomic_int *head, atomic_int *tail, atomic_int *buf) {\n\
  int a = enqueue(head, tail, buf, 1);\n\
}\n\
P1 (atomic_int *head, atomic_int *tail, atomic_int *buf) {\n\
  int r = dequeue(head, tail, buf);\n\
}\n";

fn run(test: &nemos::Test, property: Property, keep: &[usize], search: Search) -> Inference {
    infer(
        &test.program,
        UNROLL,
        &common::under("rc11"),
        property,
        keep,
        search,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn minimal(inference: &Inference) -> Vec<Vec<Choice>> {
    inference
        .minimal
        .iter()
        .map(|m| m.assignment.clone())
        .collect()
}

fn orders(orders: &[MemOrder]) -> Vec<Choice> {
    orders.iter().map(|&o| Some(o)).collect()
}

/// Whether `spec` (its own session, no selectors) finds a violation of `program`'s
/// specification in `mode` under RC11.
fn spec_fails(program: &nemos::program::Program, mode: SpecMode) -> bool {
    let events = common::unrolled(program, UNROLL);
    let options = common::under("rc11");
    let mut session = nemos::analysis::Session::new(program, &events, &options).unwrap();
    session.spec(mode).unwrap().violation.is_some()
}

fn reloaded(name: &str, text: &str) -> nemos::program::Program {
    let file = nemos::diagnostics::SourceFile::new(name, text.to_string());
    nemos::load::lower(&file).unwrap_or_else(|e| panic!("{name}:\n{text}\n{e:?}"))
}

/// The relaxed SPSC ring: infer finds the one fix, `tail` published with release and read
/// with acquire, and keeps the six other accesses relaxed. Before the specification was
/// part of the property, infer called the all-relaxed ring correct (nothing else breaks).
#[test]
fn infer_against_a_spec_finds_the_publication_and_keeps_the_rest_relaxed() {
    let test = common::load("spsc-slots", SPSC_SLOTS);
    let answer = run(&test, Property::default(), &[], Search::Incremental);
    let failure = answer.written_failure.as_ref().expect("relaxed breaks it");
    assert_eq!(failure.violation, Violation::Spec);
    let expected = orders(&[
        Relaxed, Relaxed, Relaxed, Release, Relaxed, Acquire, Relaxed, Relaxed,
    ]);
    assert_eq!(minimal(&answer), vec![expected.clone()]);
    assert_eq!(answer.suggested().unwrap().assignment, expected);
    // Every reason of the minimal orders is the specification.
    for reason in &answer.minimal[0].reasons {
        assert_eq!(reason.failure.violation, Violation::Spec);
    }
    // Without the specification the relaxed ring passes: the old answer.
    let blind = run(
        &test,
        Property {
            spec: None,
            ..Property::default()
        },
        &[],
        Search::Incremental,
    );
    assert!(blind.written_failure.is_none());
    assert_eq!(minimal(&blind), vec![orders(&[Relaxed; 8])]);
    // The exhaustive search agrees (two head accesses pinned: 729 assignments).
    let keep = [7, 22];
    let pinned = run(&test, Property::default(), &keep, Search::Incremental);
    let exhaustive = run(&test, Property::default(), &keep, Search::Exhaustive);
    assert_eq!(minimal(&pinned), minimal(&exhaustive));
    assert_eq!(exhaustive.passing.map(|p| p > 0), Some(true));
}

/// What infer calls enough passes `spec` in its own session and `check` (no defect), and
/// each one-step weakening of it fails `spec`: infer's verdicts are `spec`'s.
#[test]
fn orders_infer_calls_enough_pass_spec_and_check() {
    for (name, text) in [
        ("spsc-slots", SPSC_SLOTS.to_string()),
        (
            "mailbox-relaxed",
            std::fs::read_to_string(common::manifest_dir().join("specs/mailbox-relaxed.litmus"))
                .unwrap(),
        ),
        (
            "spsc-queue-weak",
            std::fs::read_to_string(common::manifest_dir().join("specs/spsc-queue-weak.litmus"))
                .unwrap(),
        ),
    ] {
        let test = common::load(name, &text);
        assert!(spec_fails(&test.program, SpecMode::Loose), "{name}");
        let answer = run(&test, Property::default(), &[], Search::Incremental);
        assert!(answer.written_failure.is_some(), "{name}");
        assert!(!answer.minimal.is_empty(), "{name}");
        for m in &answer.minimal {
            let written = patched(&test.program, &answer.sites, &m.assignment).unwrap();
            let program = reloaded(name, &written);
            assert!(!spec_fails(&program, SpecMode::Loose), "{name}:\n{written}");
            let events = common::unrolled(&program, UNROLL);
            let mut session =
                nemos::analysis::Session::new(&program, &events, &common::under("rc11")).unwrap();
            let check = session.check().unwrap();
            assert!(check.assertion_failure.is_none() && check.deadlock.is_none());
            assert!(
                check.flags.is_empty(),
                "{name}: {:?}\n{written}",
                check.flags
            );
            for reason in &m.reasons {
                let mut weaker = m.assignment.clone();
                weaker[reason.site] = reason.weaker;
                let text = patched(&test.program, &answer.sites, &weaker).unwrap();
                let program = reloaded(name, &text);
                let spec = spec_fails(&program, SpecMode::Loose);
                let events = common::unrolled(&program, UNROLL);
                let mut session =
                    nemos::analysis::Session::new(&program, &events, &common::under("rc11"))
                        .unwrap();
                let raced = !session.check().unwrap().flags.is_empty();
                if reason.failure.violation == Violation::Spec {
                    assert!(spec, "{name}, site {}:\n{text}", reason.site + 1);
                }
                assert!(spec || raced, "{name}, site {}:\n{text}", reason.site + 1);
            }
        }
    }
}

/// The mailbox's synchronisation rule `publish -> take` is what needs release/acquire:
/// the values fit with both relaxed.
#[test]
fn a_synchronisation_rule_asks_for_release_and_acquire() {
    let text = std::fs::read_to_string(common::manifest_dir().join("specs/mailbox-relaxed.litmus"))
        .unwrap();
    let test = common::load("mailbox-relaxed", &text);
    let answer = run(&test, Property::default(), &[], Search::Incremental);
    assert_eq!(minimal(&answer), vec![orders(&[Release, Acquire])]);
    let exhaustive = run(&test, Property::default(), &[], Search::Exhaustive);
    assert_eq!(minimal(&exhaustive), vec![orders(&[Release, Acquire])]);
    assert_eq!(exhaustive.passing, Some(4));
}

/// Strict mode: the SPSC queue's empty dequeue has no ordering point, so some consistent
/// history puts it after an enqueue whatever the orders: no assignment passes.
#[test]
fn in_strict_mode_no_orders_fix_a_missing_ordering_point() {
    let text =
        std::fs::read_to_string(common::manifest_dir().join("specs/spsc-queue.litmus")).unwrap();
    let test = common::load("spsc-queue", &text);
    let strict = run(
        &test,
        Property {
            spec: Some(SpecMode::Strict),
            ..Property::default()
        },
        &[],
        Search::Incremental,
    );
    assert!(strict.minimal.is_empty());
    assert_eq!(
        strict.written_failure.map(|f| f.violation),
        Some(Violation::Spec)
    );
    let loose = run(&test, Property::default(), &[], Search::Incremental);
    assert!(loose.written_failure.is_none());
}

/// The command line: `--write` writes the fix, and `nemos spec` and `nemos check` pass it;
/// `--property` without `spec` leaves the specification out.
#[test]
fn the_written_fix_passes_spec_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("spsc-slots.litmus");
    std::fs::write(&source, SPSC_SLOTS).unwrap();
    let out = dir.path().join("out");
    let nemos = || Command::cargo_bin("nemos").unwrap();
    nemos()
        .arg("infer")
        .arg("--write")
        .arg(&out)
        .arg(&source)
        .assert()
        .code(1);
    let written = out.join("spsc-slots.litmus");
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(text.contains("atomic_store_explicit(tail, t + 1, memory_order_release)"));
    assert!(text.contains("int t = atomic_load_explicit(tail, memory_order_acquire)"));
    assert_eq!(text.matches("memory_order_relaxed").count(), 6);
    for args in [
        &["spec", "--model", "rc11", "--mode", "loose"][..],
        &["check", "--model", "rc11"],
        &["infer"],
    ] {
        nemos().args(args).arg(&written).assert().code(0);
    }
    nemos()
        .args(["spec", "--model", "rc11", "--mode", "loose"])
        .arg(&source)
        .assert()
        .code(1);
    nemos()
        .args(["infer", "--property", "assertions,flags,deadlocks"])
        .arg(&source)
        .assert()
        .code(0);
    nemos()
        .args(["infer", "--property", "spec", "--mode", "strict"])
        .arg(&source)
        .assert()
        .code(1);
}
