//! The races issue's family (`families::locked_counter`): `T` threads each doing `M`
//! lock-protected increments, thread 0 then reading the counter unprotected. `races`
//! finds the `T - 1` racing statement pairs (one solve each) and proves there are no more.
//!
//! `cargo bench --bench races -- --warm-up-time 1 --measurement-time 3`

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

use nemos::analysis::{AnalysisOptions, Session};

#[path = "common/families.rs"]
mod families;

fn races(c: &mut Criterion) {
    let mut group = c.benchmark_group("races");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for (threads, increments) in [(2, 5), (2, 10), (3, 5), (4, 3), (4, 5), (4, 10), (4, 25)] {
        let (program, events) = families::load(
            &families::locked_counter(threads, increments),
            increments as u32,
        );
        let id = BenchmarkId::from_parameter(format!("{threads}x{increments}"));
        group.bench_function(id, |b| {
            b.iter(|| {
                let mut session =
                    Session::new(&program, &events, &AnalysisOptions::default()).expect("encodes");
                let result = session.races().expect("solves");
                assert_eq!(result.races.len(), threads - 1);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, races);
criterion_main!(benches);
