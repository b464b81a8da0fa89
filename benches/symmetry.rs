//! Identical threads taking a lock (`families::lock_takers`): `check` of `forall (c=N)`,
//! with one execution per renaming of the interchangeable threads (symmetry breaking, what
//! `check` does) and without (every order of the critical sections), under SC and RC11.
//!
//! `cargo bench --bench symmetry -- --warm-up-time 1 --measurement-time 3`

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

use nemos::analysis::{AnalysisOptions, Session};

#[path = "common/families.rs"]
mod families;

fn lock_takers(c: &mut Criterion) {
    let mut group = c.benchmark_group("lock_takers");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    let rc11 = match nemos::cat::load_shipped("rc11") {
        Some(Ok(model)) => std::sync::Arc::new(model),
        _ => panic!("models/rc11.cat is shipped and must compile"),
    };
    // Without symmetry breaking, N = 6 already takes seconds under RC11.
    let cases = [
        ("sc", 4, false),
        ("sc", 6, false),
        ("rc11", 4, false),
        ("sc", 4, true),
        ("sc", 6, true),
        ("sc", 8, true),
        ("sc", 12, true),
        ("rc11", 4, true),
        ("rc11", 6, true),
        ("rc11", 8, true),
        ("rc11", 12, true),
    ];
    for (model, threads, symmetry) in cases {
        let (program, events) = families::load(&families::lock_takers(threads), 1);
        let options = AnalysisOptions {
            symmetry,
            model: if model == "rc11" {
                rc11.clone()
            } else {
                AnalysisOptions::default().model
            },
            ..AnalysisOptions::default()
        };
        let label = if symmetry { "symmetry" } else { "every order" };
        let id = BenchmarkId::new(format!("{model}, {label}"), threads);
        group.bench_function(id, |b| {
            b.iter(|| {
                let mut session = Session::new(&program, &events, &options).expect("encodes");
                let result = session.check().expect("solves");
                assert!(result.ok);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, lock_takers);
criterion_main!(benches);
