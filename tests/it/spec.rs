//! `nemos spec` (linearizability under SC) against the brute-force reference, which runs
//! every interleaving, records each method call's arguments, value and real-time interval,
//! and searches the histories of every complete trace explicitly with a concrete run of the
//! sequential versions (`reference::linearize`): the two share only the program IR.
//!
//! The objects are small (a register, a counter, a two-slot queue), each in a correct
//! version (a lock, or a single access) and a broken one, under every client of two threads
//! making one or two calls from a small alphabet.

use crate::common;
use crate::reference;

use nemos::analysis::query::{ask, Finding, Query, QueryOptions};
use nemos::analysis::spec::SpecMode;

#[derive(Clone, Copy)]
pub(crate) struct Object {
    pub name: &'static str,
    /// The init block and the functions.
    pub text: &'static str,
    /// The `spec` block.
    pub spec: &'static str,
    /// The thread parameters.
    pub params: &'static str,
    /// Calls a client makes, as written in a thread.
    pub calls: &'static [&'static str],
}

/// The sequential versions, shared by the implementations below.
const REGISTER_SPEC: &str = r#"spec {
  int val = 0;
  void set(int *x, int v) { val = v; }
  int get(int *x) { return val; }
}
"#;

const COUNTER_SPEC: &str = r#"spec {
  int n = 0;
  int inc(int *c, int *l) { int old = n; n = n + 1; return old; }
  int get(int *c, int *l) { return n; }
}
"#;

const ADDER_SPEC: &str = r#"spec {
  int n = 0;
  void add(int *c, int *l) { n = n + 1; }
  int get(int *c, int *l) { return n; }
}
"#;

const QUEUE_SPEC: &str = r#"spec {
  int s[2]; int sh = 0; int st = 0;
  int enq(int *q, int *h, int *t, int *l, int v) {
    int ok = st - sh < 2;
    if (ok) { s[st % 2] = v; st = st + 1; }
    return ok;
  }
  int deq(int *q, int *h, int *t, int *l) {
    int v = -1;
    if (sh != st) { v = s[sh % 2]; sh = sh + 1; }
    return v;
  }
}
"#;

const REGISTER: &str = r#"{ x = 0; }
void set(int *x, int v) { *x = v; }
int get(int *x) { return *x; }
"#;

/// `set` passes through a value no call wrote.
const REGISTER_TORN: &str = r#"{ x = 0; }
void set(int *x, int v) { *x = v + 4; *x = v; }
int get(int *x) { return *x; }
"#;

const COUNTER_LOCKED: &str = r#"{ c = 0; }
int inc(int *c, int *l) { lock(l); int a = *c; *c = a + 1; unlock(l); return a; }
int get(int *c, int *l) { return *c; }
"#;

/// Lost updates: two increments can read the same value.
const COUNTER_RACY: &str = r#"{ c = 0; }
int inc(int *c, int *l) { int a = *c; *c = a + 1; return a; }
int get(int *c, int *l) { return *c; }
"#;

/// A lost update is visible only through a later `get`: whether a history fits depends on
/// which calls ended before it began (real time).
const ADDER_RACY: &str = r#"{ c = 0; }
void add(int *c, int *l) { int a = *c; *c = a + 1; }
int get(int *c, int *l) { return *c; }
"#;

const ADDER_ATOMIC: &str = r#"{ c = 0; }
void add(int *c, int *l) { atomic_fetch_add(c, 1); }
int get(int *c, int *l) { return atomic_load(c); }
"#;

/// Ordering points after every access that orders a call: CDSSpec's modes.
const REGISTER_POINTS: &str = r#"{ x = 0; }
void set(int *x, int v) { *x = v; ordering_point(1); }
int get(int *x) { int v = *x; ordering_point(1); return v; }
"#;

/// `get` has an ordering point only when it reads a non-zero value: a `get` of 0 is not
/// ordered with the `set`s (strictly exhaustive mode fails, loosely does not).
const REGISTER_SOME_POINTS: &str = r#"{ x = 0; }
void set(int *x, int v) { *x = v; ordering_point(1); }
int get(int *x) { int v = *x; ordering_point(v != 0); return v; }
"#;

/// CDSSpec's potential ordering point confirmed by a check in a branch (`@PotentialOP`,
/// `@OPCheck`): `get` is ordered only when it read a non-zero value.
const REGISTER_CHECKED: &str = r#"{ x = 0; }
void set(int *x, int v) { *x = v; ordering_point(1); }
int get(int *x) { int v = *x; potential_ordering_point(1); if (v != 0) { check_ordering_point(1, 1); } return v; }
"#;

/// The torn write's ordering point is cleared (`@OPClear`): only the last write orders `set`.
const REGISTER_CLEARED: &str = r#"{ x = 0; }
void set(int *x, int v) { *x = v + 4; ordering_point(1); clear_ordering_points(1); *x = v; ordering_point(1); }
int get(int *x) { int v = *x; ordering_point(1); return v; }
"#;

/// Two potential points of one label, one only in a branch: the check takes the latest that
/// ran (the increment when the load saw 0, the load otherwise).
const ADDER_CHECKED: &str = r#"{ c = 0; }
void add(int *c, int *l) {
  int a = atomic_load(c); potential_ordering_point(2);
  if (a < 1) { atomic_fetch_add(c, 1); potential_ordering_point(2); } else { atomic_fetch_add(c, 1); }
  check_ordering_point(2, 1);
}
int get(int *c, int *l) { int v = atomic_load(c); ordering_point(1); return v; }
"#;

const COUNTER_RACY_POINTS: &str = r#"{ c = 0; }
int inc(int *c, int *l) { int a = *c; *c = a + 1; ordering_point(1); return a; }
int get(int *c, int *l) { int v = *c; ordering_point(1); return v; }
"#;

const ADDER_POINTS: &str = r#"{ c = 0; }
void add(int *c, int *l) { atomic_fetch_add(c, 1); ordering_point(1); }
int get(int *c, int *l) { int v = atomic_load(c); ordering_point(v > 0); return v; }
"#;

const QUEUE_LOCKED: &str = r#"{ int q[2]; h = 0; t = 0; }
int enq(int *q, int *h, int *t, int *l, int v) {
  lock(l);
  int tt = *t;
  int ok = tt - *h < 2;
  if (ok) { q[tt % 2] = v; *t = tt + 1; }
  unlock(l);
  return ok;
}
int deq(int *q, int *h, int *t, int *l) {
  lock(l);
  int hh = *h;
  int v = -1;
  if (hh != *t) { v = q[hh % 2]; *h = hh + 1; }
  unlock(l);
  return v;
}
"#;

/// The tail is published before the slot is written, and nothing excludes two enqueuers.
const QUEUE_RACY: &str = r#"{ int q[2]; h = 0; t = 0; }
int enq(int *q, int *h, int *t, int *l, int v) {
  int tt = *t;
  int ok = tt - *h < 2;
  if (ok) { *t = tt + 1; q[tt % 2] = v; }
  return ok;
}
int deq(int *q, int *h, int *t, int *l) {
  lock(l);
  int hh = *h;
  int v = -1;
  if (hh != *t) { v = q[hh % 2]; *h = hh + 1; }
  unlock(l);
  return v;
}
"#;

/// The objects, with whether they are linearizable and whether they have ordering points.
pub(crate) fn objects() -> Vec<(Object, bool, bool)> {
    const REGISTER_CALLS: &[&str] = &["set(x, 1);", "set(x, 2);", "r = get(x);"];
    const COUNTER_CALLS: &[&str] = &["r = inc(c, l);", "r = get(c, l);"];
    const ADDER_CALLS: &[&str] = &["add(c, l);", "r = get(c, l);"];
    const QUEUE_CALLS: &[&str] = &[
        "r = enq(q, h, t, l, 1);",
        "r = enq(q, h, t, l, 2);",
        "r = deq(q, h, t, l);",
    ];
    let (register, counter, queue) = (REGISTER_CALLS, COUNTER_CALLS, QUEUE_CALLS);
    // Each alphabet belongs to one kind of object, with its sequential version.
    let object = |name, text, params, calls: &'static [&'static str]| Object {
        name,
        text,
        spec: if calls == register {
            REGISTER_SPEC
        } else if calls == counter {
            COUNTER_SPEC
        } else if calls == ADDER_CALLS {
            ADDER_SPEC
        } else {
            QUEUE_SPEC
        },
        params,
        calls,
    };
    vec![
        (
            object("register", REGISTER, "int *x", register),
            true,
            false,
        ),
        (
            object("register-torn", REGISTER_TORN, "int *x", register),
            false,
            false,
        ),
        (
            object("register-points", REGISTER_POINTS, "int *x", register),
            true,
            true,
        ),
        (
            object(
                "register-some-points",
                REGISTER_SOME_POINTS,
                "int *x",
                register,
            ),
            true,
            true,
        ),
        (
            object("register-checked", REGISTER_CHECKED, "int *x", register),
            true,
            true,
        ),
        (
            object("register-cleared", REGISTER_CLEARED, "int *x", register),
            false,
            true,
        ),
        (
            object(
                "adder-checked",
                ADDER_CHECKED,
                "int *c, int *l",
                ADDER_CALLS,
            ),
            true,
            true,
        ),
        (
            object("counter", COUNTER_LOCKED, "int *c, int *l", counter),
            true,
            false,
        ),
        (
            object("counter-racy", COUNTER_RACY, "int *c, int *l", counter),
            false,
            false,
        ),
        (
            object(
                "counter-racy-points",
                COUNTER_RACY_POINTS,
                "int *c, int *l",
                counter,
            ),
            false,
            true,
        ),
        (
            object("adder", ADDER_ATOMIC, "int *c, int *l", ADDER_CALLS),
            true,
            false,
        ),
        (
            object("adder-racy", ADDER_RACY, "int *c, int *l", ADDER_CALLS),
            false,
            false,
        ),
        (
            object("adder-points", ADDER_POINTS, "int *c, int *l", ADDER_CALLS),
            true,
            true,
        ),
        (
            object(
                "queue",
                QUEUE_LOCKED,
                "int *q, int *h, int *t, int *l",
                queue,
            ),
            true,
            false,
        ),
        (
            object(
                "queue-racy",
                QUEUE_RACY,
                "int *q, int *h, int *t, int *l",
                queue,
            ),
            false,
            false,
        ),
    ]
}

/// Every sequence of one or two calls from the alphabet.
pub(crate) fn sequences(calls: &[&str]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = calls.iter().map(|c| vec![c.to_string()]).collect();
    for a in calls {
        for b in calls {
            out.push(vec![a.to_string(), b.replace("r = ", "s = ")]);
        }
    }
    out
}

pub(crate) fn client(object: &Object, threads: &[Vec<String>]) -> String {
    let mut text = format!("C {}\n{}{}", object.name, object.text, object.spec);
    for (i, calls) in threads.iter().enumerate() {
        let body: Vec<String> = calls
            .iter()
            .map(|c| {
                if c.starts_with("r = ") || c.starts_with("s = ") {
                    format!("int {c}")
                } else {
                    c.clone()
                }
            })
            .collect();
        text.push_str(&format!(
            "P{i} ({}) {{ {} }}\n",
            object.params,
            body.join(" ")
        ));
    }
    text
}

/// nemos's verdict: correct in `mode`.
fn product(test: &nemos::Test, text: &str, mode: SpecMode) -> bool {
    let options = QueryOptions::new(common::under("sc").model, "sc");
    let answer = ask(test, Query::Spec(mode), &options).unwrap_or_else(|e| panic!("{e}\n{text}"));
    match answer.finding {
        Finding::Spec(result) => {
            assert!(!result.bound_hit, "{text}");
            result.violation.is_none()
        }
        _ => unreachable!("a spec query answers with a spec finding"),
    }
}

#[test]
fn spec_modes_match_the_reference_on_small_objects() {
    let mut verdicts = [0usize; 2];
    // Loose and strict verdicts: (loose holds, strict holds) counts.
    let mut point_verdicts = [[0usize; 2]; 2];
    for (object, correct, points) in objects() {
        let clients = sequences(object.calls);
        for (i, first) in clients.iter().enumerate() {
            // Swapping the two threads gives the same client.
            for second in &clients[i..] {
                let text = client(&object, &[first.clone(), second.clone()]);
                let test = common::load("client", &text);
                let reference = reference::explore(&test.program, 2);
                let expected = !reference.non_linearizable;
                let got = product(&test, &text, SpecMode::Linearizable);
                if points {
                    let loose = product(&test, &text, SpecMode::Loose);
                    let strict = product(&test, &text, SpecMode::Strict);
                    assert_eq!(loose, !reference.loose_failure, "loose mode:\n{text}");
                    assert_eq!(strict, !reference.strict_failure, "strict mode:\n{text}");
                    point_verdicts[0][loose as usize] += 1;
                    point_verdicts[1][strict as usize] += 1;
                }
                assert_eq!(got, expected, "nemos and the reference disagree:\n{text}");
                if correct {
                    assert!(got, "the correct {} is linearizable:\n{text}", object.name);
                }
                verdicts[got as usize] += 1;
            }
        }
    }
    // Both verdicts occur: the comparison is not vacuous.
    assert!(verdicts[0] >= 100 && verdicts[1] >= 200, "{verdicts:?}");
    assert!(
        point_verdicts.iter().flatten().all(|&n| n >= 5),
        "loose and strict each pass and fail: {point_verdicts:?}"
    );
}

/// `spec` with a rule added before its closing brace.
fn with_rule(spec: &str, rule: &str) -> String {
    let end = spec.rfind('}').unwrap_or(spec.len());
    format!("{}  {rule}\n}}\n", &spec[..end])
}

const REGISTER_ATOMIC: &str = r#"{ x = 0; }
void set(int *x, int v) { atomic_store(x, v); ordering_point(1); }
int get(int *x) { int v = atomic_load(x); ordering_point(1); return v; }
"#;

const COUNTER_LOCKED_GET: &str = r#"{ c = 0; }
int inc(int *c, int *l) { lock(l); int a = *c; *c = a + 1; unlock(l); return a; }
int get(int *c, int *l) { lock(l); int v = *c; unlock(l); return v; }
"#;

/// Synchronisation rules (CDSSpec's `A -> B`) against the reference, which checks each
/// history's rule pairs with vector clocks (program order, locks, atomic writes read by
/// atomic reads) while it searches the histories.
#[test]
fn synchronisation_rules_match_the_reference() {
    const READ_OF_WRITE: &str = "happens_before set(_, v) -> r = get(_) if (r == v);";
    const INC_THEN_GET: &str = "happens_before inc(_, _) -> get(_, _);";
    const POSITIVE_GET: &str = "happens_before add(_, _) -> r = get(_, _) if (r > 0);";
    const DEQ_OF_ENQ: &str =
        "happens_before enq(_, _, _, _, v) -> r = deq(_, _, _, _) if (r == v);";
    let register: &[&str] = &["set(x, 1);", "set(x, 2);", "r = get(x);"];
    let counter: &[&str] = &["r = inc(c, l);", "r = get(c, l);"];
    let adder: &[&str] = &["add(c, l);", "r = get(c, l);"];
    let queue: &[&str] = &[
        "r = enq(q, h, t, l, 1);",
        "r = enq(q, h, t, l, 2);",
        "r = deq(q, h, t, l);",
    ];
    // An object with its rule added to its specification, the rule, and whether the object
    // has ordering points.
    let case = |name, text, spec: &str, rule: &'static str, params, calls| {
        let spec: &'static str = with_rule(spec, rule).leak();
        let object = Object {
            name,
            text,
            spec,
            params,
            calls,
        };
        (object, rule)
    };
    let cases: Vec<((Object, &str), bool)> = vec![
        (
            case(
                "register",
                REGISTER,
                REGISTER_SPEC,
                READ_OF_WRITE,
                "int *x",
                register,
            ),
            false,
        ),
        (
            case(
                "register-points",
                REGISTER_POINTS,
                REGISTER_SPEC,
                READ_OF_WRITE,
                "int *x",
                register,
            ),
            true,
        ),
        (
            case(
                "register-atomic",
                REGISTER_ATOMIC,
                REGISTER_SPEC,
                READ_OF_WRITE,
                "int *x",
                register,
            ),
            true,
        ),
        (
            case(
                "counter",
                COUNTER_LOCKED,
                COUNTER_SPEC,
                INC_THEN_GET,
                "int *c, int *l",
                counter,
            ),
            false,
        ),
        (
            case(
                "counter-get-locked",
                COUNTER_LOCKED_GET,
                COUNTER_SPEC,
                INC_THEN_GET,
                "int *c, int *l",
                counter,
            ),
            false,
        ),
        (
            case(
                "adder",
                ADDER_ATOMIC,
                ADDER_SPEC,
                POSITIVE_GET,
                "int *c, int *l",
                adder,
            ),
            false,
        ),
        (
            case(
                "adder-points",
                ADDER_POINTS,
                ADDER_SPEC,
                POSITIVE_GET,
                "int *c, int *l",
                adder,
            ),
            true,
        ),
        (
            case(
                "queue",
                QUEUE_LOCKED,
                QUEUE_SPEC,
                DEQ_OF_ENQ,
                "int *q, int *h, int *t, int *l",
                queue,
            ),
            false,
        ),
        (
            case(
                "queue-racy",
                QUEUE_RACY,
                QUEUE_SPEC,
                DEQ_OF_ENQ,
                "int *q, int *h, int *t, int *l",
                queue,
            ),
            false,
        ),
    ];
    let mut verdicts = [0usize; 2];
    let mut point_verdicts = [[0usize; 2]; 2];
    let mut held_without_rule_only = 0;
    for ((object, rule), points) in cases {
        let clients = sequences(object.calls);
        for (i, first) in clients.iter().enumerate() {
            for second in &clients[i..] {
                let text = client(&object, &[first.clone(), second.clone()]);
                let test = common::load("client", &text);
                let reference = reference::explore(&test.program, 2);
                let got = product(&test, &text, SpecMode::Linearizable);
                assert_eq!(got, !reference.non_linearizable, "linearizable:\n{text}");
                verdicts[got as usize] += 1;
                if points {
                    let loose = product(&test, &text, SpecMode::Loose);
                    let strict = product(&test, &text, SpecMode::Strict);
                    assert_eq!(loose, !reference.loose_failure, "loose mode:\n{text}");
                    assert_eq!(strict, !reference.strict_failure, "strict mode:\n{text}");
                    point_verdicts[0][loose as usize] += 1;
                    point_verdicts[1][strict as usize] += 1;
                }
                // The same client without the rule: the rule is what fails it.
                if !got {
                    let plain = Object {
                        spec: object.spec.replace(rule, "").leak(),
                        ..object
                    };
                    let text = client(&plain, &[first.clone(), second.clone()]);
                    let test = common::load("client", &text);
                    held_without_rule_only +=
                        product(&test, &text, SpecMode::Linearizable) as usize;
                }
            }
        }
    }
    assert!(verdicts[0] >= 30 && verdicts[1] >= 30, "{verdicts:?}");
    assert!(
        point_verdicts.iter().flatten().all(|&n| n >= 5),
        "loose and strict each pass and fail: {point_verdicts:?}"
    );
    // Some clients fail only because of their rule: the rules are checked, not vacuous.
    assert!(held_without_rule_only >= 20, "{held_without_rule_only}");
}

/// A row of `specs/README.md`.
struct SpecRow {
    name: String,
    model: String,
    mode: String,
    unroll: String,
    holds: bool,
}

fn spec_table() -> Vec<SpecRow> {
    let readme = std::fs::read_to_string(common::manifest_dir().join("specs/README.md"))
        .expect("specs/README.md");
    readme
        .lines()
        .filter(|l| l.starts_with("| ["))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let name = cells[1]
                .trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or_default()
                .to_string();
            let holds = match cells[6] {
                "holds" => true,
                "fails" => false,
                other => panic!("specs/README.md: unknown verdict `{other}` in\n{line}"),
            };
            SpecRow {
                name,
                model: cells[3].to_string(),
                mode: cells[4].to_string(),
                unroll: cells[5].to_string(),
                holds,
            }
        })
        .collect()
}

#[test]
fn specs_give_the_verdicts_of_their_readme_table() {
    let rows = spec_table();
    let files: std::collections::BTreeSet<String> =
        common::litmus_files(&common::manifest_dir().join("specs"))
            .iter()
            .filter_map(|p| Some(p.file_stem()?.to_str()?.to_string()))
            .collect();
    let named: std::collections::BTreeSet<String> = rows.iter().map(|r| r.name.clone()).collect();
    assert_eq!(
        files, named,
        "specs/*.litmus and the rows of specs/README.md"
    );
    for row in rows {
        let file = format!("specs/{}.litmus", row.name);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_nemos"))
            .current_dir(common::manifest_dir())
            .args(["spec", "--model", &row.model, "--mode", &row.mode])
            .args(["--unroll", &row.unroll, &file])
            .output()
            .expect("nemos runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let want = if row.holds { 0 } else { 1 };
        let what = format!("{file} --model {} --mode {}", row.model, row.mode);
        assert_eq!(out.status.code(), Some(want), "{what}:\n{stdout}");
        assert!(!stdout.contains("warning"), "{what}:\n{stdout}");
    }
}

/// Too many histories is a limit of `spec` (exit 3) before any is built, not an error of
/// the test: its other questions are still answered.
#[test]
fn too_many_histories_is_a_limit_of_spec_only() {
    let mut text = String::from(
        "C many-calls\n{ x = 0; }\nvoid set(int *x, int v) { *x = v; }\n\
         spec { int val = 0; void set(int *x, int v) { val = v; } }\n",
    );
    for t in 0..4 {
        text.push_str(&format!(
            "P{t} (int *x) {{ set(x, 1); set(x, 2); set(x, 3); }}\n"
        ));
    }
    text.push_str("exists (x = 3)\n");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("many-calls.litmus");
    std::fs::write(&path, &text).expect("write the test");
    let run = |command: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_nemos"))
            .args([command, path.to_str().expect("a UTF-8 path")])
            .output()
            .expect("nemos runs")
    };
    let spec = run("spec");
    assert_eq!(spec.status.code(), Some(3));
    let stdout = String::from_utf8_lossy(&spec.stdout);
    assert!(
        stdout.contains("12 method calls have 369600 histories, more than the 40320"),
        "{stdout}"
    );
    assert_eq!(run("check").status.code(), Some(0));
}
