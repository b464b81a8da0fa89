//! The SC issue's scaling family (`families::scaling`) through the whole query, under each
//! acyclicity strategy: `check` (both condition queries, the bound and the assertions) for
//! the allowed and the forbidden condition, and `outcomes` (every final state).
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

criterion_group!(benches, check, outcomes);
criterion_main!(benches);
