//! Functions of the test as a user meets them: call boundaries in witnesses (text and
//! JSON) and in the event table. Their meaning is compared with hand-inlined programs and
//! the reference explorer in `differential.rs`; their errors are in `semantic_errors.rs`.

use std::process::Command;

/// A stack of one cell guarded by a compare-exchange: `push` and `pop` are functions, and
/// `pop`'s value is used in an expression.
const STACK: &str = "C stack-calls
{ top = 0; int val[2] = {0, 0}; }

void push(atomic_int *top, int *val, int v) {
  val[1] = v;
  atomic_store(top, 1);
}

int pop(atomic_int *top, int *val) {
  int old = 1;
  if (atomic_compare_exchange_strong(top, &old, 0))
    return val[old];
  return -1;
}

P0 (atomic_int *top, int *val) {
  push(top, val, 7);
}

P1 (atomic_int *top, int *val) {
  int r0 = pop(top, val) + 1;
}

exists (1:r0=8)
";

/// `nemos ARGS FILE` on `text` written to a temporary file: its stdout and exit code.
fn nemos_on(text: &str, args: &[&str]) -> (String, i32) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("test.litmus");
    std::fs::write(&path, text).expect("write the test");
    let output = Command::new(env!("CARGO_BIN_EXE_nemos"))
        .args(args)
        .arg(&path)
        .output()
        .expect("nemos runs");
    let stdout = String::from_utf8(output.stdout).expect("utf-8");
    (
        stdout.replace(&path.display().to_string(), "test.litmus"),
        output.status.code().unwrap_or(-1),
    )
}

#[test]
fn witnesses_show_where_calls_begin_and_return() {
    let (text, code) = nemos_on(STACK, &["check"]);
    assert_eq!(code, 0, "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn json_witnesses_list_the_calls_with_their_arguments_and_values() {
    let (text, _) = nemos_on(STACK, &["check", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let calls = &json["witness"]["calls"];
    let summary: Vec<String> = calls
        .as_array()
        .expect("an array of calls")
        .iter()
        .map(|c| {
            let args: Vec<String> = c["arguments"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| {
                    let shown = if a["address"].is_null() {
                        a["value"].to_string()
                    } else {
                        a["address"].as_str().unwrap().to_string()
                    };
                    format!("{}={shown}", a["parameter"].as_str().unwrap())
                })
                .collect();
            format!(
                "{} {}#{}({}) returned={} value={} events={}",
                c["thread"].as_str().unwrap(),
                c["function"].as_str().unwrap(),
                c["number"],
                args.join(", "),
                c["returned"],
                c["value"],
                c["events"]
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            "P0 push#1(top=top, val=val, v=7) returned=true value=null events=[4,5]",
            "P1 pop#1(top=top, val=val) returned=true value=7 events=[6,7,8,9,10,11,12,13,15,16,17,18]",
        ],
        "{}",
        serde_json::to_string_pretty(calls).unwrap()
    );
}

#[test]
fn the_event_table_names_each_events_call() {
    let (text, code) = nemos_on(STACK, &["events"]);
    assert_eq!(code, 0, "{text}");
    insta::assert_snapshot!(text);
}

/// A call in a loop is one call per iteration, numbered in the thread; a call stopped by
/// an out-of-bounds index does not return.
#[test]
fn calls_in_loops_are_numbered_and_a_stopped_call_does_not_return() {
    let text = "C loop-calls
{ x = 0; int a[2] = {0, 0}; }

int get(int *a, int i) { return a[i]; }

P0 (int *x, int *a) {
  int i = 0;
  int s = 0;
  while (i < 3) {
    s = s + get(a, i);
    i = i + 1;
  }
}

exists (0:s=0)
";
    let (events, code) = nemos_on(text, &["events", "--unroll", "3"]);
    assert_eq!(code, 0, "{events}");
    let calls: Vec<&str> = events
        .lines()
        .skip_while(|l| *l != "Calls:")
        .skip(1)
        .collect();
    assert_eq!(
        calls,
        // (`x` is never accessed: its initial write is left out, the reads are v5, v8, v13.)
        [
            "  P0 get#1: get(a = a, i = 0) returns v5, line 10",
            "  P0 get#2: get(a = a, i = 1) returns v8, line 10",
            "  P0 get#3: get(a = a, i = 2) returns v13, line 10",
        ],
        "{events}"
    );
    let (check, code) = nemos_on(text, &["check", "--unroll", "3"]);
    assert_eq!(code, 1, "the third call indexes a[2]: {check}");
    let failure = check
        .split("Invalid access")
        .nth(1)
        .expect("an invalid access");
    assert!(failure.contains("P0: get(a, 2)"), "{failure}");
    assert_eq!(failure.matches("get returns").count(), 2, "{failure}");
}

/// Issue 38, item 7: a name ending in `_t` is a function or a variable where the file
/// names one with it (`int foo_t(...)` was a syntax error), and a call's header shows a
/// first cell passed as `&nodes[0]` as written (it printed `nodes`), while an array passed
/// by its name keeps its name.
#[test]
fn names_ending_in_t_and_first_cells_are_shown_as_written() {
    let text = "C names\n\
{ struct node { int v; int w; }; struct node nodes[2]; int a[2] = {0, 0}; }\n\
int get_t(struct node *n, int *cells) {\n  int count_t = n->v + cells[0];\n  return count_t;\n}\n\
P0 (struct node *nodes, int *a) {\n  int r = get_t(&nodes[0], a);\n}\n\
P1 (struct node *nodes, int *a) {\n  nodes[0].v = 1;\n}\n\
exists (0:r = 1)\n";
    let (out, code) = nemos_on(text, &["check"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("P0: get_t(&nodes[0], a)"), "{out}");
}
