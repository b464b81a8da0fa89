//! `infer --together` (issue 38, item 13): one assignment of orders for the functions
//! several client tests share, correct in every test, as CDSSpec's InferParams runs over
//! its test cases; tests whose code of a method differs are refused, located.

use assert_cmd::Command;

use crate::common;
use nemos::analysis::infer::{
    infer, patched, together, Choice, Inference, Property, Search, Violation,
};
use nemos::program::MemOrder::*;

const UNROLL: u32 = 2;

/// The object: an SPSC ring of two atomic slots and a one-slot mailbox, every access
/// relaxed, with its specification (the mailbox's `publish -> take` rule included).
const OBJECT: &str = "{ head = 0; tail = 0; atomic_int buf[2] = {0, 0}; box = 0; }\n\
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
void publish(atomic_int *box, int v) {\n\
  atomic_store_explicit(box, v, memory_order_relaxed);\n\
  ordering_point(1);\n\
}\n\
int take(atomic_int *box) {\n\
  int v = atomic_load_explicit(box, memory_order_relaxed);\n\
  ordering_point(1);\n\
  return v;\n\
}\n\
spec {\n\
  int items[2];\n\
  int first = 0;\n\
  int count = 0;\n\
  int slot = 0;\n\
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
  void publish(atomic_int *box, int v) { slot = v; }\n\
  int take(atomic_int *box) { return slot; }\n\
  happens_before publish(_, v) -> r = take(_) if (r == v);\n\
}\n";

const QUEUE_CLIENT: &str = "P0 (atomic_int *head, atomic_int *tail, atomic_int *buf) {\n\
  int a = enqueue(head, tail, buf, 1);\n\
}\n\
P1 (atomic_int *head, atomic_int *tail, atomic_int *buf) {\n\
  int r = dequeue(head, tail, buf);\n\
}\n";

const MAILBOX_CLIENT: &str = "P0 (atomic_int *box) { publish(box, 1); }\n\
P1 (atomic_int *box) { int r0 = take(box); }\n";

fn test(name: &str, client: &str) -> String {
    format!("C {name}\n{OBJECT}{client}")
}

fn alone(text: &str) -> Inference {
    let t = common::load("alone", text);
    infer(
        &t.program,
        UNROLL,
        &common::under("rc11"),
        Property::default(),
        &[],
        Search::Incremental,
    )
    .unwrap()
}

/// Each client alone needs release/acquire on its own pair of accesses and leaves the
/// other relaxed; together, the one assignment has both pairs, and each test with it
/// written in is correct (infer alone finds nothing to fix).
#[test]
fn one_assignment_keeps_every_client_correct() {
    let queue = test("queue-client", QUEUE_CLIENT);
    let mailbox = test("mailbox-client", MAILBOX_CLIENT);
    // Alone: each test's sites are the accesses of the functions it calls.
    let q = alone(&queue);
    let m = alone(&mailbox);
    assert_eq!(q.sites.len(), 8);
    assert_eq!(m.sites.len(), 2);
    assert_eq!(q.minimal.len(), 1);
    assert_eq!(m.minimal.len(), 1);
    assert_eq!(m.minimal[0].assignment, vec![Some(Release), Some(Acquire)]);
    let tests = [common::load("q", &queue), common::load("m", &mailbox)];
    let programs: Vec<_> = tests.iter().map(|t| (&t.program, UNROLL)).collect();
    let joint = together(&programs, &common::under("rc11"), Property::default()).unwrap();
    // The shared sites: the queue's eight, then the mailbox's two.
    assert_eq!(joint.shared.len(), 10);
    assert_eq!(joint.written_failures.len(), 2);
    assert!(joint
        .written_failures
        .iter()
        .all(|(_, v)| *v == Violation::Spec));
    assert_eq!(joint.minimal.len(), 1);
    let expected: Vec<Choice> = q.minimal[0]
        .assignment
        .iter()
        .chain(&m.minimal[0].assignment)
        .copied()
        .collect();
    assert_eq!(joint.minimal[0].assignment, expected);
    // Each site that is not relaxed has its reason, in the test that needs it.
    let reasons: Vec<(usize, usize)> = joint.minimal[0]
        .reasons
        .iter()
        .map(|r| (r.site, r.test))
        .collect();
    assert_eq!(reasons, vec![(3, 0), (5, 0), (8, 1), (9, 1)]);
    let mut written = Vec::new();
    for (t, loaded) in tests.iter().enumerate() {
        let (sites, assignment) = joint.to_write(t, &joint.minimal[0].assignment);
        let text = patched(&loaded.program, &sites, &assignment).unwrap();
        let again = alone(&text);
        assert!(again.written_failure.is_none(), "test {t}:\n{text}");
        written.push(text);
    }
    // Both copies of the object are written alike, the functions a test does not run too.
    let object = |text: &str| text[text.find('{').unwrap()..text.find("P0").unwrap()].to_string();
    assert_eq!(object(&written[0]), object(&written[1]));
    assert_eq!(written[0].matches("memory_order_release").count(), 2);
}

/// The command line: `--together` over the two files, `--write` writes both, and each
/// written file passes `infer` and `spec` alone; a method whose text differs is refused
/// at its definition (exit 2).
#[test]
fn together_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let q = dir.path().join("queue.litmus");
    let m = dir.path().join("mailbox.litmus");
    std::fs::write(&q, test("queue-client", QUEUE_CLIENT)).unwrap();
    std::fs::write(&m, test("mailbox-client", MAILBOX_CLIENT)).unwrap();
    let nemos = || Command::cargo_bin("nemos").unwrap();
    let out = dir.path().join("out");
    let run = nemos()
        .args(["infer", "--together", "--write"])
        .arg(&out)
        .arg(&q)
        .arg(&m)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("10 shared sites"), "{stdout}");
    assert!(
        stdout.contains(
            "Minimal orders 1 of 1 (a smallest fix of the written orders): relaxed, relaxed, relaxed, release, relaxed, acquire, relaxed, relaxed, release, acquire"
        ),
        "{stdout}"
    );
    for file in ["queue.litmus", "mailbox.litmus"] {
        let written = out.join(file);
        nemos().arg("infer").arg(&written).assert().code(0);
        nemos()
            .args(["spec", "--model", "rc11", "--mode", "loose"])
            .arg(&written)
            .assert()
            .code(0);
    }
    // The written files together: correct as written.
    nemos()
        .args(["infer", "--together"])
        .arg(out.join("queue.litmus"))
        .arg(out.join("mailbox.litmus"))
        .assert()
        .code(0);
    // `take` with another order in the second test.
    let other = test("mailbox-client", MAILBOX_CLIENT).replace(
        "int v = atomic_load_explicit(box, memory_order_relaxed);",
        "int v = atomic_load_explicit(box, memory_order_acquire);",
    );
    std::fs::write(&m, other).unwrap();
    let refused = nemos()
        .args(["infer", "--together"])
        .arg(&q)
        .arg(&m)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("function `take` differs"), "{stderr}");
    assert!(stderr.contains("mailbox.litmus:26:5"), "{stderr}");
}
