//! The SC issue's scaling family (`families::scaling`) through the whole query, under each
//! acyclicity strategy: `check` (both condition queries, the bound and the assertions) for
//! the allowed and the forbidden condition, and `outcomes` (every final state). `nested_ifs`:
//! loading and checking n nested `if (READ_ONCE(*x) == i)` in one thread (issue 38's memory
//! row), whose cost should grow about linearly with n.
//!
//! `cargo bench --bench sc -- --warm-up-time 1 --measurement-time 3`

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

use nemos::analysis::{AnalysisOptions, Session};
use nemos::encode::acyclic::AcyclicStrategy;

#[path = "common/families.rs"]
mod families;

const STRATEGIES: [(&str, AcyclicStrategy); 3] = [
    ("lazy", AcyclicStrategy::Lazy),
    ("ranks", AcyclicStrategy::Ranks),
    ("transitive", AcyclicStrategy::Transitive),
];

fn options(strategy: AcyclicStrategy) -> AnalysisOptions {
    AnalysisOptions {
        strategy,
        ..AnalysisOptions::default()
    }
}

fn check(c: &mut Criterion) {
    let mut group = c.benchmark_group("check");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for n in [4, 8, 12] {
        for (condition, forbidden) in [("allowed", false), ("forbidden", true)] {
            let (program, events) = families::load(&families::scaling(n, forbidden), 2);
            for (name, strategy) in STRATEGIES {
                if strategy == AcyclicStrategy::Transitive && n > 8 {
                    continue; // n^3 clauses: minutes, not milliseconds
                }
                let id = BenchmarkId::new(format!("{condition}/{name}"), n);
                group.bench_with_input(id, &n, |b, _| {
                    b.iter(|| {
                        let mut session =
                            Session::new(&program, &events, &options(strategy)).expect("encodes");
                        let result = session.check().expect("solves");
                        assert_eq!(result.positive.is_some(), !forbidden);
                    })
                });
            }
        }
    }
    group.finish();
}

fn outcomes(c: &mut Criterion) {
    let mut group = c.benchmark_group("outcomes");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    let (program, events) = families::load(&families::scaling(4, false), 2);
    for (name, strategy) in STRATEGIES {
        group.bench_function(BenchmarkId::new(name, 4), |b| {
            b.iter(|| {
                let mut session =
                    Session::new(&program, &events, &options(strategy)).expect("encodes");
                assert_eq!(session.outcomes().expect("solves").len(), 125);
            })
        });
    }
    group.finish();
}

fn nested_ifs(c: &mut Criterion) {
    let mut group = c.benchmark_group("nested_ifs");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for n in [250, 500, 1000] {
        let mut text = String::from("C nest\n{ x=0; }\nP0(int *x) {\n int r0=0;\n");
        for i in 0..n {
            text.push_str(&format!(" if (READ_ONCE(*x)=={i}) {{\n"));
        }
        text.push_str(" r0=1;\n");
        text.push_str(&" }\n".repeat(n));
        text.push_str("}\nexists (0:r0=1)\n");
        group.bench_with_input(BenchmarkId::new("check", n), &n, |b, _| {
            b.iter(|| {
                let (program, events) = families::load(&text, 2);
                let options = AnalysisOptions::default();
                let mut session = Session::new(&program, &events, &options).expect("encodes");
                let result = session.check().expect("solves");
                assert!(result.positive.is_none());
            })
        });
    }
    group.finish();
}

criterion_group!(benches, check, outcomes, nested_ifs);
criterion_main!(benches);
