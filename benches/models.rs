//! The compiled `models/sc.cat` against the hand-written SC encoding (`encode::sc`), on the
//! scaling family of the SC issue: thread `i` of `N` does `x = i+1; y = i+1; r = y; s = x;`.
//! "allowed": every thread reads its own `y`; "forbidden": the same plus `0:s=0`.
//!
//! For each N and condition, both encodings are built into a fresh solver and solved once
//! under the condition (the part of a query that depends on the model), repeated and
//! interleaved; the medians and their ratio are printed, with the instance sizes.
//!
//!     cargo bench --bench models            (N = 6 and 8, 21 runs each)
//!     cargo bench --bench models -- 4 10 5  (N = 4 and 10, 5 runs each)

use std::time::{Duration, Instant};

#[path = "common/families.rs"]
mod families;

use nemos::cat::Model;
use nemos::diagnostics::SourceFile;
use nemos::encode::acyclic::AcyclicStrategy;
use nemos::encode::cnf::{Bool, ClauseSink, Cnf};
use nemos::encode::model::encode_model;
use nemos::encode::{sc, Encoding};
use nemos::events::Events;
use nemos::program::Program;
use nemos::solver::{solve_under, SolveOutcome, VarisatSolver};

/// Encode under one of the two SC encodings into `sink`; the assumptions to solve under.
fn encode<S: ClauseSink>(
    sink: &mut S,
    program: &Program,
    events: &Events,
    compiled: Option<&Model>,
) -> Vec<Bool> {
    let mut enc = Encoding::new(sink, program, events);
    let mut assumptions = vec![!enc.bound_hit];
    match compiled {
        Some(model) => {
            let m = encode_model(sink, &enc, model, AcyclicStrategy::Ranks);
            assumptions.extend(m.selectors.iter().map(|s| s.1));
        }
        None => {
            sc::encode(sink, &enc, AcyclicStrategy::Ranks, &mut |_, _| Bool::TRUE);
        }
    }
    let prop = program
        .condition
        .as_ref()
        .map(|c| c.prop.clone())
        .expect("generated test has a condition");
    let c = enc.prop(sink, &prop);
    assumptions.push(c);
    assumptions
}

/// Encoding time, encoding plus solving time, verdict.
fn run_once(
    program: &Program,
    events: &Events,
    compiled: Option<&Model>,
) -> (Duration, Duration, bool) {
    let start = Instant::now();
    let mut solver = VarisatSolver::new();
    let assumptions = encode(&mut solver, program, events, compiled);
    let encoded = start.elapsed();
    let sat = solve_under(&mut solver, &assumptions).expect("solver runs") == SolveOutcome::Sat;
    (encoded, start.elapsed(), sat)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn minimum(v: &[Duration]) -> Duration {
    v.iter().copied().min().unwrap_or_default()
}

/// Instance sizes of both encodings summed over the `.litmus` files under `dir`.
fn sizes_over(dir: &std::path::Path) {
    let model = nemos::cat::sc();
    let mut stack = vec![dir.to_path_buf()];
    let (mut hand, mut cat, mut files) = ((0u64, 0u64), (0u64, 0u64), 0);
    let mut worst: Vec<(f64, String)> = Vec::new();
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().is_none_or(|e| e != "litmus") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&p) else {
                continue;
            };
            let file = SourceFile::new(p.display().to_string(), text);
            let Ok(nemos::Test { program, events }) = nemos::load(&file, &Default::default())
            else {
                continue;
            };
            if program.condition.is_none() {
                continue;
            }
            let mut h = Cnf::default();
            encode(&mut h, &program, &events, None);
            let mut c = Cnf::default();
            encode(&mut c, &program, &events, Some(&model));
            hand.0 += u64::from(h.num_vars);
            hand.1 += h.clauses.len() as u64;
            cat.0 += u64::from(c.num_vars);
            cat.1 += c.clauses.len() as u64;
            files += 1;
            worst.push((
                c.clauses.len() as f64 / h.clauses.len().max(1) as f64,
                p.display().to_string(),
            ));
        }
    }
    worst.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!(
        "{files} tests: hand-written {} vars {} clauses; compiled sc.cat {} vars {} clauses",
        hand.0, hand.1, cat.0, cat.1
    );
    for (ratio, name) in worst.iter().take(5) {
        println!("  clause ratio {ratio:.2} {name}");
    }
}

fn main() {
    if let Some(dir) = std::env::args()
        .nth(1)
        .filter(|a| std::path::Path::new(a).is_dir())
    {
        sizes_over(std::path::Path::new(&dir));
        return;
    }
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (sizes, runs) = match args.as_slice() {
        [] => (vec![6, 8], 21),
        [n] => (vec![*n], 21),
        more => {
            let (runs, sizes) = more.split_last().expect("non-empty");
            (sizes.to_vec(), *runs)
        }
    };
    let model = nemos::cat::sc();
    println!(
        "compiled models/sc.cat vs hand-written encode::sc (encode + one solve, median of {runs})"
    );
    println!(
        "{:>3} {:>10} {:>10} {:>10} {:>6} | {:>10} {:>10} {:>6} | {:>8} {:>8} {:>5} | {:>12} {:>12}",
        "N",
        "condition",
        "hand",
        "compiled",
        "ratio",
        "hand enc",
        "cat enc",
        "ratio",
        "min hand",
        "min cat",
        "ratio",
        "hand v/c",
        "cat v/c"
    );
    for &n in &sizes {
        for forbidden in [false, true] {
            let (program, events) = families::load(&families::scaling(n, forbidden), 2);
            let mut cnf_hand = Cnf::default();
            encode(&mut cnf_hand, &program, &events, None);
            let mut cnf_cat = Cnf::default();
            encode(&mut cnf_cat, &program, &events, Some(&model));
            let (mut hand, mut cat) = (Vec::new(), Vec::new());
            let (mut hand_enc, mut cat_enc) = (Vec::new(), Vec::new());
            for _ in 0..runs {
                let (e, t, sat_hand) = run_once(&program, &events, None);
                hand.push(t);
                hand_enc.push(e);
                let (e, t, sat_cat) = run_once(&program, &events, Some(&model));
                cat.push(t);
                cat_enc.push(e);
                assert_eq!(sat_hand, sat_cat, "the encodings disagree at N = {n}");
                assert_eq!(sat_cat, !forbidden, "wrong verdict at N = {n}");
            }
            let (hm, cm) = (minimum(&hand), minimum(&cat));
            let (h, c) = (median(hand), median(cat));
            let (he, ce) = (median(hand_enc), median(cat_enc));
            println!(
                "{:>3} {:>10} {:>8.2}ms {:>8.2}ms {:>6.2} | {:>8.2}ms {:>8.2}ms {:>6.2} | {:>6.2}ms {:>6.2}ms {:>5.2} | {:>12} {:>12}",
                n,
                if forbidden { "forbidden" } else { "allowed" },
                h.as_secs_f64() * 1e3,
                c.as_secs_f64() * 1e3,
                c.as_secs_f64() / h.as_secs_f64(),
                he.as_secs_f64() * 1e3,
                ce.as_secs_f64() * 1e3,
                ce.as_secs_f64() / he.as_secs_f64(),
                hm.as_secs_f64() * 1e3,
                cm.as_secs_f64() * 1e3,
                cm.as_secs_f64() / hm.as_secs_f64(),
                format!("{}/{}", cnf_hand.num_vars, cnf_hand.clauses.len()),
                format!("{}/{}", cnf_cat.num_vars, cnf_cat.clauses.len()),
            );
        }
    }
}
