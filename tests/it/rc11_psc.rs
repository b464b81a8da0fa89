//! `models/rc11.cat`'s `sc` check against the paper's text of it.
//!
//! The shipped model checks `acyclic psc-acc | psc-f`, psc-base without its pairs from one
//! seq_cst fence to another (psc-f holds them), so that `scb` is not built for a program
//! whose only seq_cst events are fences. The paper's check is `acyclic psc-base | psc-f`;
//! here the shipped text with that line put back is compiled as a second model, and both
//! must count the same executions (satisfying the condition and not) on random programs
//! with seq_cst, acquire/release and relaxed accesses, RMWs and fences of every order
//! (`c_random`'s generator), and on the litmus tests of `litmus/`.

use std::path::PathBuf;
use std::sync::Arc;

use nemos::analysis::{AnalysisOptions, Session};
use nemos::diagnostics::SourceFile;
use proptest::prelude::*;

use crate::c_random::{random, render_litmus, Random};
use crate::common;

const SHIPPED_CHECK: &str = "acyclic psc-acc | psc-f as sc";
const PAPER_CHECK: &str = "acyclic psc-base | psc-f as sc";

/// The shipped rc11 model and the same text with the paper's `sc` check.
fn models() -> (AnalysisOptions, AnalysisOptions) {
    let shipped = nemos::cat::shipped("rc11").expect("rc11 is shipped");
    assert!(
        shipped.text.contains(SHIPPED_CHECK),
        "models/rc11.cat no longer has `{SHIPPED_CHECK}`"
    );
    let paper = SourceFile::new(
        "rc11-paper.cat",
        shipped.text.replace(SHIPPED_CHECK, PAPER_CHECK),
    );
    let paper = nemos::cat::load(&paper, "rc11-paper", &mut |p: &str| Err(p.to_string()))
        .expect("the paper's rc11 compiles");
    let paper = AnalysisOptions {
        model: Arc::new(paper),
        ..AnalysisOptions::default()
    };
    (common::under("rc11"), paper)
}

fn counts(text: &str, name: &str, options: &AnalysisOptions) -> (u64, u64) {
    let file = SourceFile::new(name, text);
    let test = nemos::load(&file, &nemos::LoadOptions::default())
        .unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let mut session = Session::new(&test.program, &test.events, options).expect("a session");
    session.count_executions().expect("counted")
}

fn compare(test: &Random) -> Result<(), String> {
    let text = render_litmus(test, &test.condition);
    let (shipped, paper) = models();
    let (a, b) = (
        counts(&text, "random.litmus", &shipped),
        counts(&text, "random.litmus", &paper),
    );
    if a == b {
        Ok(())
    } else {
        Err(format!("shipped {a:?}, paper {b:?}\n{text}"))
    }
}

proptest! {
    #![proptest_config(common::proptest_config(64, "tests/proptest-regressions/rc11_psc.txt"))]

    #[test]
    fn the_shipped_sc_check_counts_as_the_papers(test in random()) {
        if let Err(e) = compare(&test) {
            return Err(TestCaseError::fail(e));
        }
    }
}

/// Every litmus test of `litmus/`.
#[test]
fn the_litmus_folder_counts_the_same_under_both_checks() {
    let (shipped, paper) = models();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("litmus");
    let mut compared = 0;
    for entry in std::fs::read_dir(&dir).expect("litmus/") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|e| e != "litmus") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable");
        let name = path.display().to_string();
        let a = counts(&text, &name, &shipped);
        let b = counts(&text, &name, &paper);
        assert_eq!(a, b, "{name}: shipped {a:?}, paper {b:?}");
        compared += 1;
    }
    assert!(compared >= 40, "only {compared} litmus tests compared");
}

/// One access of a classic shape: a write of a value or a read into the next register.
#[derive(Clone, Copy)]
enum Access {
    W(&'static str, i32),
    R(&'static str),
}

/// The shapes whose non-SC outcome psc forbids, each thread's accesses in order, and
/// that outcome.
const SHAPES: &[(&str, &[&[Access]], &str)] = {
    use Access::{R, W};
    &[
        (
            "SB",
            &[&[W("x", 1), R("y")], &[W("y", 1), R("x")]],
            "0:r0 = 0 /\\ 1:r0 = 0",
        ),
        (
            "R",
            &[&[W("x", 1), W("y", 1)], &[W("y", 2), R("x")]],
            "y = 2 /\\ 1:r0 = 0",
        ),
        (
            "2+2W",
            &[&[W("x", 1), W("y", 2)], &[W("y", 1), W("x", 2)]],
            "x = 1 /\\ y = 1",
        ),
        (
            "IRIW",
            &[
                &[W("x", 1)],
                &[W("y", 1)],
                &[R("x"), R("y")],
                &[R("y"), R("x")],
            ],
            "2:r0 = 1 /\\ 2:r1 = 0 /\\ 3:r0 = 1 /\\ 3:r1 = 0",
        ),
        (
            "RWC",
            &[&[W("x", 1)], &[R("x"), R("y")], &[W("y", 1), R("x")]],
            "1:r0 = 1 /\\ 1:r1 = 0 /\\ 2:r0 = 0",
        ),
    ]
};

/// The shape with each thread's accesses seq_cst (`fenced[k]` false) or relaxed with a
/// seq_cst fence between them (true).
fn render_shape(name: &str, threads: &[&[Access]], exists: &str, fenced: &[bool]) -> String {
    let mut out = format!("C {name}\n{{ x = 0; y = 0; }}\n");
    for (k, body) in threads.iter().enumerate() {
        let order = if fenced[k] {
            "memory_order_relaxed"
        } else {
            "memory_order_seq_cst"
        };
        out.push_str(&format!("P{k} (atomic_int *x, atomic_int *y) {{\n"));
        let mut reg = 0;
        for (i, access) in body.iter().enumerate() {
            if i > 0 && fenced[k] {
                out.push_str("  atomic_thread_fence(memory_order_seq_cst);\n");
            }
            match access {
                Access::W(loc, v) => {
                    out.push_str(&format!("  atomic_store_explicit({loc}, {v}, {order});\n"))
                }
                Access::R(loc) => {
                    out.push_str(&format!(
                        "  int r{reg} = atomic_load_explicit({loc}, {order});\n"
                    ));
                    reg += 1;
                }
            }
        }
        out.push_str("}\n");
    }
    out.push_str(&format!("exists ({exists})\n"));
    out
}

/// Each classic shape with every thread of two accesses either seq_cst or fenced (a
/// thread of one access is seq_cst): the shipped check counts as the paper's on each.
/// SB's non-SC outcome is forbidden in its four forms; psc-f alone (the shipped check
/// without psc-acc) allows it where a seq_cst access is part of the cycle, so the
/// comparison sees the part of psc-base the shipped check keeps.
#[test]
fn the_classic_shapes_with_seq_cst_accesses_and_fences_count_the_same() {
    let (shipped, paper) = models();
    let text = nemos::cat::shipped("rc11").expect("rc11 is shipped").text;
    let fences_only = SourceFile::new(
        "rc11-fences.cat",
        text.replace(SHIPPED_CHECK, "acyclic psc-f as sc"),
    );
    let fences_only = AnalysisOptions {
        model: Arc::new(
            nemos::cat::load(&fences_only, "rc11-fences", &mut |p: &str| {
                Err(p.to_string())
            })
            .expect("compiles"),
        ),
        ..AnalysisOptions::default()
    };
    let (mut compared, mut told_apart) = (0, 0);
    for &(name, threads, exists) in SHAPES {
        for mask in 0..(1u32 << threads.len()) {
            let fenced: Vec<bool> = (0..threads.len())
                .map(|k| mask >> k & 1 == 1 && threads[k].len() > 1)
                .collect();
            if (0..threads.len()).any(|k| mask >> k & 1 == 1 && !fenced[k]) {
                continue;
            }
            let text = render_shape(name, threads, exists, &fenced);
            let a = counts(&text, "shape.litmus", &shipped);
            let b = counts(&text, "shape.litmus", &paper);
            assert_eq!(a, b, "shipped {a:?}, paper {b:?}\n{text}");
            let weak = counts(&text, "shape.litmus", &fences_only);
            if name == "SB" {
                assert_eq!(a.0, 0, "SB's non-SC outcome is forbidden\n{text}");
            }
            if weak.0 > 0 {
                assert_eq!(a.0, 0, "psc-f alone allows what psc forbids\n{text}");
                told_apart += 1;
            }
            compared += 1;
        }
    }
    // SB, R, 2+2W: 4 forms each; IRIW: 4 (its readers); RWC: 4 (its second and third).
    // Measured: all but the five whose every thread of two accesses is fenced (15).
    assert_eq!(compared, 20);
    assert!(told_apart >= 15, "{told_apart} of {compared} told apart");
    eprintln!("{told_apart} of {compared} forms told apart from psc-f alone");
}

/// Variables and clauses of `tests/c/NAME` under `model` (the shared encoding and the
/// compiled model, no solving).
fn size(name: &str, model: &nemos::cat::Model) -> (u32, usize) {
    use nemos::encode::acyclic::AcyclicStrategy;
    use nemos::encode::cnf::Cnf;
    use nemos::encode::model::encode_model;
    use nemos::encode::Encoding;
    let path = common::manifest_dir().join("tests/c").join(name);
    let text = std::fs::read_to_string(&path).expect("a test program");
    let file = SourceFile::new(path.display().to_string(), text);
    let options = nemos::LoadOptions {
        preprocessor: Some(crate::c_programs::reference_preprocessor(&[])),
        ..nemos::LoadOptions::default()
    };
    let test = nemos::load(&file, &options).expect("loads");
    let mut cnf = Cnf::default();
    let enc = Encoding::new(&mut cnf, &test.program, &test.events);
    encode_model(&mut cnf, &enc, model, AcyclicStrategy::Lazy);
    (cnf.num_vars, cnf.clauses.len())
}

/// The point of the shipped check: a deque whose seq_cst events are fences (and one
/// exchange) does not build `scb` over every pair.
#[test]
fn the_shipped_sc_check_keeps_a_fenced_deque_small() {
    let (shipped, paper) = models();
    let a = size("deque_sc_fences.c", &shipped.model);
    let b = size("deque_sc_fences.c", &paper.model);
    eprintln!("deque_sc_fences.c under rc11: shipped {a:?}, paper {b:?}");
    assert!(a.1 * 2 < b.1, "shipped {a:?}, paper {b:?}");
}
