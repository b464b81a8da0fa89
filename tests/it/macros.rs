//! herd's `.def` macro files: a model's macros expand a test's calls into tagged
//! primitives. On a hand-written macro file and model (not the kernel's, which are GPL and
//! read from the corpus by `lkmm_model`).

use std::sync::Arc;

use assert_cmd::Command;
use nemos::diagnostics::SourceFile;
use nemos::events::{Event, EventKind, Events};

use crate::common;

/// herd's shapes, with tags of our own choosing.
const DEF: &str = "\
// A small macro file in herd's language.
READ_ONCE(X) __load{once}(X)
WRITE_ONCE(X,V) { __store{once}(X,V); }
smp_mb() { __fence{mb}; }
xchg(X,V) __xchg{mb}(X,V)
cmpxchg(X,V,W) __cmpxchg{mb}(X,V,W)
atomic_inc(X) { __atomic_op(X,+,1); }
atomic_add_return(V,X) __atomic_op_return{mb}(X,+,V)
atomic_dec_and_test(X) __atomic_op_return{mb}(X,-,1) == 0
atomic_read(X) READ_ONCE(*X)
";

/// A model that orders the events tagged `mb` with everything (as a full fence), over
/// SC-per-location and TSO-like program order.
const CAT: &str = "\
\"tags\"
enum Tags = 'once || 'mb || 'noreturn
let mb-order = [MB] ; po | po ; [MB]
let ppo = ([R] ; po) | ([W] ; po ; [W])
acyclic po-loc | rf | co | fr as coherence
acyclic ppo | mb-order | rfe | co | fr as order
";

fn macros() -> Arc<nemos::syntax::def::Macros> {
    let file = SourceFile::new("t.def", DEF);
    Arc::new(nemos::syntax::def::parse(&file).unwrap_or_else(|e| panic!("{}", e.short())))
}

fn events(body: &str) -> Events {
    let text =
        format!("C t\n{{ x = 0; y = 0; }}\nP0 (int* x, int* y) {{\n{body}\n}}\nexists (x=0)\n");
    let file = SourceFile::new("t.litmus", text);
    let options = nemos::LoadOptions {
        macros: Some(macros()),
        ..Default::default()
    };
    nemos::load(&file, &options)
        .unwrap_or_else(|e| panic!("{}", e.short()))
        .events
}

fn thread(events: &Events) -> Vec<&Event> {
    events.threads[0]
        .iter()
        .map(|&e| &events.events[e])
        .filter(|e| e.is_memory() || e.kind == EventKind::Fence)
        .collect()
}

#[test]
fn an_exchange_is_a_read_and_a_write_tagged_by_its_macro_and_linked_by_rmw() {
    let ev = events("  int r0 = xchg(x, 2);\n  smp_mb();\n  int r1 = atomic_read(y);");
    let t = thread(&ev);
    assert_eq!(t.len(), 4);
    assert_eq!((t[0].kind, t[1].kind), (EventKind::Read, EventKind::Write));
    assert_eq!(t[0].rmw, Some(t[1].id));
    assert_eq!(
        (&t[0].tags[..], &t[1].tags[..]),
        (&["mb".to_string()][..], &["mb".to_string()][..])
    );
    assert_eq!(
        (t[2].kind, &t[2].tags[..]),
        (EventKind::Fence, &["mb".to_string()][..])
    );
    // `atomic_read(X)` is `READ_ONCE(*X)`: a macro of the file calling another.
    assert_eq!(
        (t[3].kind, &t[3].tags[..]),
        (EventKind::Read, &["once".to_string()][..])
    );
}

#[test]
fn a_compare_exchange_read_has_the_failure_tag_and_non_returning_atomics_are_noreturn() {
    let ev = events("  int r0 = cmpxchg(x, 0, 1);\n  atomic_inc(y);");
    let t = thread(&ev);
    let read = t.iter().find(|e| e.kind == EventKind::Read).unwrap();
    assert_eq!(read.tags, ["mb"]);
    assert_eq!(read.failure_tags, ["once"]);
    let inc: Vec<&&Event> = t
        .iter()
        .filter(|e| e.location == t.last().unwrap().location)
        .collect();
    assert_eq!(inc.len(), 2);
    assert!(inc.iter().all(|e| e.tags == ["noreturn"]), "{inc:?}");
}

/// The model with its macro file beside it, as `--model DIR/NAME.cat` finds them.
fn model_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("tags.cat"), CAT).unwrap();
    std::fs::write(dir.path().join("tags.def"), DEF).unwrap();
    dir
}

fn check(dir: &tempfile::TempDir, test: &str) -> String {
    let path = dir.path().join("t.litmus");
    std::fs::write(&path, test).unwrap();
    let output = Command::cargo_bin("nemos")
        .expect("the nemos binary is built")
        .current_dir(common::manifest_dir())
        .args(["check", "--model"])
        .arg(dir.path().join("tags.cat"))
        .arg(&path)
        .output()
        .expect("nemos runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    text
}

fn sb(first: &str, second: &str) -> String {
    format!(
        "C sb\n{{ x = 0; y = 0; z = 0; }}\n\
         P0 (int* x, int* y, int* z) {{\n  {first}\n  int r0 = READ_ONCE(*y);\n}}\n\
         P1 (int* x, int* y, int* z) {{\n  {second}\n  int r0 = READ_ONCE(*x);\n}}\n\
         exists (0:r0=0 /\\ 1:r0=0)\n"
    )
}

/// The tags decide: store buffering is allowed with `once` stores, forbidden when an `mb`
/// fence or an exchange (whose events are tagged `mb`) comes first, and allowed again when
/// the exchange is a compare-exchange that fails (its one read is tagged `once`).
#[test]
fn the_model_reads_the_tags_of_the_macro_file_beside_it() {
    let dir = model_dir();
    let verdict = |first: &str, second: &str| {
        let out = check(&dir, &sb(first, second));
        out.lines()
            .find_map(|l| l.trim().strip_prefix("observation: "))
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(
        verdict("WRITE_ONCE(*x, 1);", "WRITE_ONCE(*y, 1);"),
        "Sometimes"
    );
    assert_eq!(
        verdict(
            "WRITE_ONCE(*x, 1); smp_mb();",
            "WRITE_ONCE(*y, 1); smp_mb();"
        ),
        "Never"
    );
    assert_eq!(verdict("xchg(x, 1);", "xchg(y, 1);"), "Never");
    // Expected 5, never there: both fail, and a failure's read is `once`.
    let (w0, w1) = ("WRITE_ONCE(*x, 1);", "WRITE_ONCE(*y, 1);");
    let failing = |w: &str| format!("{w} cmpxchg(z, 5, 1);");
    assert_eq!(verdict(&failing(w0), &failing(w1)), "Sometimes");
    let succeeding = |w: &str| format!("{w} cmpxchg(z, 0, 1);");
    assert_eq!(verdict(&succeeding(w0), &succeeding(w1)), "Never");
}

#[test]
fn a_value_macro_computes_what_herd_computes() {
    let dir = model_dir();
    let test = "C v\n{ x = 3; }\n\
                P0 (int* x) {\n  int r0 = atomic_add_return(2, x);\n  int r1 = atomic_dec_and_test(x);\n  int r2 = cmpxchg(x, 4, 9);\n}\n\
                exists (0:r0=5 /\\ 0:r1=0 /\\ 0:r2=4 /\\ x=9)\n";
    let out = check(&dir, test);
    assert!(out.contains("observation: Always"), "{out}");
}

#[test]
fn a_call_the_macros_do_not_name_is_refused_with_their_names() {
    let file = SourceFile::new(
        "t.litmus",
        "C t\n{ x = 0; }\nP0 (int* x) {\n  smp_wmb();\n}\nexists (x=0)\n",
    );
    let options = nemos::LoadOptions {
        macros: Some(macros()),
        ..Default::default()
    };
    let error = nemos::load(&file, &options).expect_err("smp_wmb is not in t.def");
    let text = error.render(false);
    assert!(text.contains("unknown function `smp_wmb`"), "{text}");
    assert!(text.contains("the macros of t.def: READ_ONCE"), "{text}");
}

/// herd's configuration file names the model, its bell, its macros and its variants (files
/// relative to it); its other lines (drawing settings) are passed over.
#[test]
fn a_configuration_file_names_the_model_and_its_macros() {
    let dir = model_dir();
    // Under another name, so that only the configuration finds it.
    std::fs::rename(dir.path().join("tags.def"), dir.path().join("kernel.def")).unwrap();
    let conf = dir.path().join("tags.cfg");
    std::fs::write(
        &conf,
        "macros kernel.def\nmodel tags.cat\ngraph columns\nshowevents noregs\n",
    )
    .unwrap();
    let test = dir.path().join("t.litmus");
    std::fs::write(&test, sb("xchg(x, 1);", "xchg(y, 1);")).unwrap();
    let run = |conf: &std::path::Path| {
        Command::cargo_bin("nemos")
            .expect("the nemos binary is built")
            .args(["check", "--conf"])
            .arg(conf)
            .arg(&test)
            .output()
            .expect("nemos runs")
    };
    let output = run(&conf);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("observation: Never"), "{text}");
    // Without its `model` line, the configuration is refused, and says why.
    std::fs::write(&conf, "macros kernel.def\n").unwrap();
    let output = run(&conf);
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("has no `model` line"), "{error}");
}

/// `atomic_add_unless(X,V,W)`, which this file does not define: the definition of the
/// kernel's `.def` (`__atomic_add_unless`), tagged as `atomic_add_return`. It adds unless it
/// finds `W` (a read and a write linked by `rmw`), else reads alone, relaxed; the final
/// states are the reference explorer's.
#[test]
fn atomic_add_unless_adds_unless_it_finds_its_value() {
    let ev = events("  int r0 = atomic_add_unless(x, 5, 10);");
    let t = thread(&ev);
    assert_eq!((t[0].kind, t[1].kind), (EventKind::Read, EventKind::Write));
    assert_eq!(t[0].rmw, Some(t[1].id));
    assert_eq!(t[0].tags, ["mb"]);
    assert_eq!(t[0].failure_tags, ["once"]);
    // A failure orders nothing, like a failed `__cmpxchg`.
    assert_eq!(t[0].failure_order, Some(nemos::program::MemOrder::Relaxed));
    let text = "C add-unless\n{ x = 0; }\n\
        P0 (atomic_t *x) { int r0 = atomic_add_unless(x, 10, 10); }\n\
        P1 (atomic_t *x) { int r1 = atomic_add_unless(x, 5, 10); int r2 = atomic_add_unless(x, 5, 10); }\n\
        forall (0:r0=0 /\\ 1:r1=1 /\\ 1:r2=1 /\\ x=10) \\/ (0:r0=1 /\\ 1:r1=0 /\\ 1:r2=0 /\\ x=10) \\/ \
        (0:r0=1 /\\ 1:r1=1 /\\ 1:r2=1 /\\ x=20)\n";
    let file = SourceFile::new("add-unless.litmus", text);
    let options = nemos::LoadOptions {
        macros: Some(macros()),
        ..Default::default()
    };
    let test = nemos::load(&file, &options).unwrap_or_else(|e| panic!("{}", e.short()));
    let mut session = nemos::analysis::Session::new(
        &test.program,
        &test.events,
        &nemos::analysis::AnalysisOptions::default(),
    )
    .unwrap();
    let outcomes = common::final_states(&mut session);
    assert_eq!(outcomes.len(), 3);
    assert_eq!(
        outcomes,
        crate::reference::explore(&test.program, 2).outcomes
    );
    let result = session.check().unwrap();
    assert_eq!(result.observation, nemos::analysis::Observation::Always);
}
