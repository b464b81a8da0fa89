//! The C11 models (`rc11.cat`, `c11.cat`) on the classic shapes, their difference, the
//! failure order of a compare-exchange, and herd's `Undef` for data races.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use nemos::analysis::{AnalysisOptions, Observation, Session};
use nemos::diagnostics::SourceFile;

const MODELS: [&str; 2] = ["rc11", "c11"];

fn options(model: &str, skip: &[&str]) -> AnalysisOptions {
    AnalysisOptions {
        model: Arc::new(nemos::cat::load_shipped(model).unwrap().unwrap()),
        skip: skip.iter().map(|s| s.to_string()).collect(),
        ..AnalysisOptions::default()
    }
}

/// Whether `exists` is reachable, and whether the flag `undefined` is raised.
fn run(text: &str, model: &str, skip: &[&str]) -> (bool, bool) {
    let file = SourceFile::new("test.litmus", text);
    let nemos::Test { program, events } =
        nemos::load(&file, &Default::default()).unwrap_or_else(|e| panic!("{}", e.short()));
    let mut session = Session::new(&program, &events, &options(model, skip)).unwrap();
    let result = session.check().unwrap();
    (
        result.observation != Observation::Never,
        result.flags.iter().any(|f| f == "undefined"),
    )
}

fn reachable(text: &str, model: &str) -> bool {
    run(text, model, &[]).0
}

/// Message passing with the given orders for the flag's store and load (data relaxed).
fn mp(store: &str, load: &str) -> String {
    format!(
        "C MP\n{{}}\n\
         P0 (atomic_int* x, atomic_int* y) {{\n\
           atomic_store_explicit(x, 1, memory_order_relaxed);\n\
           atomic_store_explicit(y, 1, memory_order_{store});\n}}\n\
         P1 (atomic_int* x, atomic_int* y) {{\n\
           int r0 = atomic_load_explicit(y, memory_order_{load});\n\
           int r1 = atomic_load_explicit(x, memory_order_relaxed);\n}}\n\
         exists (1:r0=1 /\\ 1:r1=0)\n"
    )
}

fn sb(store: &str, load: &str) -> String {
    format!(
        "C SB\n{{}}\n\
         P0 (atomic_int* x, atomic_int* y) {{\n\
           atomic_store_explicit(x, 1, memory_order_{store});\n\
           int r0 = atomic_load_explicit(y, memory_order_{load});\n}}\n\
         P1 (atomic_int* x, atomic_int* y) {{\n\
           atomic_store_explicit(y, 1, memory_order_{store});\n\
           int r0 = atomic_load_explicit(x, memory_order_{load});\n}}\n\
         exists (0:r0=0 /\\ 1:r0=0)\n"
    )
}

#[test]
fn message_passing_needs_release_and_acquire() {
    for model in MODELS {
        assert!(!reachable(&mp("release", "acquire"), model), "{model}");
        assert!(!reachable(&mp("seq_cst", "seq_cst"), model), "{model}");
        // consume is acquire.
        assert!(!reachable(&mp("release", "consume"), model), "{model}");
        assert!(reachable(&mp("relaxed", "relaxed"), model), "{model}");
        assert!(reachable(&mp("release", "relaxed"), model), "{model}");
        assert!(reachable(&mp("relaxed", "acquire"), model), "{model}");
    }
}

#[test]
fn message_passing_through_fences() {
    let text = "C MP+fences\n{}\n\
        P0 (atomic_int* x, atomic_int* y) {\n\
          atomic_store_explicit(x, 1, memory_order_relaxed);\n\
          atomic_thread_fence(memory_order_release);\n\
          atomic_store_explicit(y, 1, memory_order_relaxed);\n}\n\
        P1 (atomic_int* x, atomic_int* y) {\n\
          int r0 = atomic_load_explicit(y, memory_order_relaxed);\n\
          atomic_thread_fence(memory_order_acquire);\n\
          int r1 = atomic_load_explicit(x, memory_order_relaxed);\n}\n\
        exists (1:r0=1 /\\ 1:r1=0)\n";
    for model in MODELS {
        assert!(!reachable(text, model), "{model}");
    }
}

#[test]
fn store_buffering_needs_seq_cst() {
    for model in MODELS {
        assert!(!reachable(&sb("seq_cst", "seq_cst"), model), "{model}");
        assert!(reachable(&sb("release", "acquire"), model), "{model}");
        assert!(reachable(&sb("relaxed", "relaxed"), model), "{model}");
    }
    // Relaxed accesses with seq_cst fences between them.
    let fenced = "C SB+fences\n{}\n\
        P0 (atomic_int* x, atomic_int* y) {\n\
          atomic_store_explicit(x, 1, memory_order_relaxed);\n\
          atomic_thread_fence(memory_order_seq_cst);\n\
          int r0 = atomic_load_explicit(y, memory_order_relaxed);\n}\n\
        P1 (atomic_int* x, atomic_int* y) {\n\
          atomic_store_explicit(y, 1, memory_order_relaxed);\n\
          atomic_thread_fence(memory_order_seq_cst);\n\
          int r0 = atomic_load_explicit(x, memory_order_relaxed);\n}\n\
        exists (0:r0=0 /\\ 1:r0=0)\n";
    for model in MODELS {
        assert!(!reachable(fenced, model), "{model}");
    }
}

fn iriw(order: &str) -> String {
    format!(
        "C IRIW\n{{}}\n\
         P0 (atomic_int* x) {{ atomic_store_explicit(x, 1, memory_order_{order}); }}\n\
         P1 (atomic_int* y) {{ atomic_store_explicit(y, 1, memory_order_{order}); }}\n\
         P2 (atomic_int* x, atomic_int* y) {{\n\
           int r0 = atomic_load_explicit(x, memory_order_{order});\n\
           int r1 = atomic_load_explicit(y, memory_order_{order});\n}}\n\
         P3 (atomic_int* x, atomic_int* y) {{\n\
           int r0 = atomic_load_explicit(y, memory_order_{order});\n\
           int r1 = atomic_load_explicit(x, memory_order_{order});\n}}\n\
         exists (2:r0=1 /\\ 2:r1=0 /\\ 3:r0=1 /\\ 3:r1=0)\n"
    )
}

#[test]
fn iriw_is_forbidden_with_seq_cst_only() {
    for model in MODELS {
        assert!(!reachable(&iriw("seq_cst"), model), "{model}");
        assert!(
            reachable(
                &iriw("acquire")
                    .replace(
                        "store_explicit(x, 1, memory_order_acquire)",
                        "store_explicit(x, 1, memory_order_release)"
                    )
                    .replace(
                        "store_explicit(y, 1, memory_order_acquire)",
                        "store_explicit(y, 1, memory_order_release)"
                    ),
                model
            ),
            "{model}"
        );
    }
}

const LB: &str = "C LB\n{}\n\
    P0 (atomic_int* x, atomic_int* y) {\n\
      int r0 = atomic_load_explicit(x, memory_order_relaxed);\n\
      atomic_store_explicit(y, 1, memory_order_relaxed);\n}\n\
    P1 (atomic_int* x, atomic_int* y) {\n\
      int r0 = atomic_load_explicit(y, memory_order_relaxed);\n\
      atomic_store_explicit(x, 1, memory_order_relaxed);\n}\n\
    exists (0:r0=1 /\\ 1:r0=1)\n";

#[test]
fn load_buffering_is_forbidden_only_by_no_thin_air() {
    for model in MODELS {
        assert!(!reachable(LB, model), "{model}");
        assert!(run(LB, model, &["no-thin-air"]).0, "{model}");
    }
}

#[test]
fn corr_is_forbidden_under_every_model() {
    let text = "C CoRR\n{}\n\
        P0 (atomic_int* x) { atomic_store_explicit(x, 1, memory_order_relaxed); }\n\
        P1 (atomic_int* x) {\n\
          int r0 = atomic_load_explicit(x, memory_order_relaxed);\n\
          int r1 = atomic_load_explicit(x, memory_order_relaxed);\n}\n\
        exists (1:r0=1 /\\ 1:r1=0)\n";
    for model in MODELS {
        assert!(!reachable(text, model), "{model}");
        assert!(!run(text, model, &["no-thin-air", "sc"]).0, "{model}");
    }
}

/// The shipped litmus test that tells the models apart: C++20 release sequences (c11)
/// against the paper's (rc11).
#[test]
fn release_sequences_tell_c11_from_rc11() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("litmus/c11-rseq.litmus");
    let text = std::fs::read_to_string(path).unwrap();
    assert!(!reachable(&text, "rc11"));
    assert!(reachable(&text, "c11"));
}

/// A failed compare-exchange is a read with the failure order: with a relaxed failure
/// order it does not synchronise, with an acquire one it does.
#[test]
fn failed_compare_exchange_reads_with_the_failure_order() {
    let text = |failure: &str| {
        format!(
            "C MP+cas\n{{}}\n\
             P0 (atomic_int* x, atomic_int* y) {{\n\
               atomic_store_explicit(x, 1, memory_order_relaxed);\n\
               atomic_store_explicit(y, 1, memory_order_release);\n}}\n\
             P1 (atomic_int* x, atomic_int* y) {{\n\
               int e = 2;\n\
               int r0 = atomic_compare_exchange_strong_explicit(y, &e, 3, memory_order_acquire, memory_order_{failure});\n\
               int r1 = atomic_load_explicit(x, memory_order_relaxed);\n}}\n\
             exists (1:r0=0 /\\ 1:e=1 /\\ 1:r1=0)\n"
        )
    };
    for model in MODELS {
        assert!(reachable(&text("relaxed"), model), "{model}");
        assert!(!reachable(&text("acquire"), model), "{model}");
    }
}

/// Racing non-atomic accesses raise `undefined`, synchronised ones do not.
#[test]
fn data_races_are_undefined() {
    let racy = "C MP+na\n{}\n\
        P0 (int* x, atomic_int* y) {\n\
          *x = 1;\n\
          atomic_store_explicit(y, 1, memory_order_relaxed);\n}\n\
        P1 (int* x, atomic_int* y) {\n\
          int r0 = atomic_load_explicit(y, memory_order_relaxed);\n\
          if (r0 == 1) { int r1 = *x; }\n}\n\
        exists (1:r0=1)\n";
    let synchronised = racy.replace("memory_order_relaxed", "memory_order_seq_cst");
    for model in MODELS {
        assert!(run(racy, model, &[]).1, "{model}");
        assert!(!run(&synchronised, model, &[]).1, "{model}");
    }
}

/// herd's layout: `Undef` and `Flag undefined` when some allowed execution races. The
/// corpus test rseq_weak races only with C++20 release sequences.
#[test]
fn herd_format_reports_undef() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let test = "../shared/corpus/herd-c11popl15/rseq_weak.litmus";
    if !root.join(test).exists() {
        eprintln!("skipping: ../shared/corpus not found");
        return;
    }
    for (model, undef) in [("rc11", false), ("c11", true)] {
        let out = Command::new(env!("CARGO_BIN_EXE_nemos"))
            .current_dir(&root)
            .args(["check", "--model", model, "--format", "herd", test])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(text.contains("\nUndef\n"), undef, "{model}: {text}");
        assert_eq!(text.contains("Flag *undef*"), undef, "{model}: {text}");
        for command in ["outcomes", "check"] {
            let out = Command::new(env!("CARGO_BIN_EXE_nemos"))
                .current_dir(&root)
                .args([command, "--model", model, "--format", "herd", test])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert_eq!(
                text.contains("\nUndef\n"),
                undef,
                "{command} {model}: {text}"
            );
        }
        // The races query lists the model's races: exit 1 exactly when there is one.
        let out = Command::new(env!("CARGO_BIN_EXE_nemos"))
            .current_dir(&root)
            .args(["races", "--model", model, test])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(i32::from(undef)), "{model}: {text}");
        assert_eq!(text.contains("Race 1 on y"), undef, "{model}: {text}");
    }
}

/// Under the C11 models two accesses inside critical sections of one mutex are not race
/// candidates (their `hb` holds `lko`): the races found on a locked counter with an
/// unprotected read are still the SC races (which `differential.rs` checks against the
/// reference), and a model whose `race` ignores the lock order keeps every candidate.
#[test]
fn locked_accesses_are_not_race_candidates_when_hb_holds_the_lock_order() {
    use nemos::analysis::races::Statement;
    use nemos::encode::model::race_excludes_lock_order;
    let mut text = String::from("C counter\n{ c = 0; l = 0; }\n\n");
    for t in 0..3 {
        let unprotected = if t == 0 { "  int s = *c;\n" } else { "" };
        text.push_str(&format!(
            "P{t} (int* c, int* l) {{\n  for (int i = 0; i < 2; i++) {{\n    lock(l);\n    int r = *c;\n    *c = r + 1;\n    unlock(l);\n  }}\n{unprotected}}}\n\n"
        ));
    }
    text.push_str("exists (c=6)\n");
    let test = crate::common::load_unrolled("counter", &text, 2);
    let pairs = |result: nemos::analysis::races::RaceResult| -> Vec<(Statement, Statement)> {
        result.races.iter().map(|r| (r.first, r.second)).collect()
    };
    let mut sc = Session::new(&test.program, &test.events, &AnalysisOptions::default()).unwrap();
    let expected = pairs(sc.races().unwrap());
    assert_eq!(expected.len(), 2);
    for model in MODELS {
        assert!(race_excludes_lock_order(
            &nemos::cat::load_shipped(model).unwrap().unwrap()
        ));
        let mut session = Session::new(&test.program, &test.events, &options(model, &[])).unwrap();
        assert_eq!(
            pairs(session.model_races().unwrap().unwrap()),
            expected,
            "{model}"
        );
    }
    assert!(!race_excludes_lock_order(&nemos::cat::sc()));
    // Without `lko` in `hb`, the critical sections race with each other.
    let file = SourceFile::new(
        "nolock.cat",
        "\"no lock order\"\nlet hb = po+\nlet conflict = (W * M | M * W) & loc & ext\n\
         let race = (conflict & (NA * M | M * NA)) \\ (hb | hb^-1)\nflag ~empty race as undefined\n",
    );
    let model = nemos::cat::load(&file, "nolock", &mut |p: &str| Err(p.to_string())).unwrap();
    assert!(!race_excludes_lock_order(&model));
    let options = AnalysisOptions {
        model: Arc::new(model),
        ..AnalysisOptions::default()
    };
    let mut session = Session::new(&test.program, &test.events, &options).unwrap();
    assert!(pairs(session.model_races().unwrap().unwrap()).len() > expected.len());
}

#[test]
fn a_c11_call_takes_its_argument_as_a_pointer() {
    // `atomic_store(*p, 1)`: the store goes where the pointer held in `p` points (`x`), as
    // herd reads C11's calls; nemos stripped the `*` as it does for READ_ONCE's lvalue and
    // stored to `p` itself, so `x = 1` was never reached.
    let test = "C pointer_argument\n{ atomic_int x = 0; atomic_int *p = x; }\n\
                P0 (atomic_int **p, atomic_int *x) {\n\
                  atomic_store(*p, 1);\n\
                  int r0 = atomic_load_explicit(*p, memory_order_relaxed);\n}\n\
                exists (x = 1 /\\ 0:r0 = 1)\n";
    for model in MODELS {
        assert!(reachable(test, model), "{model}");
    }
    let unreached = test.replace("x = 1 /\\ 0:r0 = 1", "p = 1");
    for model in MODELS {
        assert!(!reachable(&unreached, model), "{model}");
    }
}
