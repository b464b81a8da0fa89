//! The races issue's family (`families::locked_counter`): `T` threads each doing `M`
//! lock-protected increments, thread 0 then reading the counter unprotected. `races`
//! finds the `T - 1` racing statement pairs (one solve each) and proves there are no more.
//!
//! The unlocked counter (`families::unlocked_counter`): every racing pair, and only the
//! first (`races --first`), under SC and RC11; the locked counter under RC11.
//!
//! `cargo bench --bench races -- --warm-up-time 1 --measurement-time 3`

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

use std::sync::Arc;

use nemos::analysis::races::RaceSearch;
use nemos::analysis::{AnalysisOptions, Session};

#[path = "common/families.rs"]
mod families;

fn races(c: &mut Criterion) {
    // As the command line asks: locations the query cannot observe left out
    // (`analysis::slice`; the counter, here).
    let options = AnalysisOptions {
        slice_races: true,
        ..AnalysisOptions::default()
    };
    let rows = [
        (2, 5),
        (2, 10),
        (3, 5),
        (4, 3),
        (4, 5),
        (4, 10),
        (4, 25),
        (4, 50),
    ];
    locked(c, "races", &options, &rows);
}

/// The locked counter's rows of `group`: `threads - 1` racing pairs each, found by the
/// model's own `race` when it defines one.
fn locked(c: &mut Criterion, group: &str, options: &AnalysisOptions, rows: &[(usize, usize)]) {
    let mut group = c.benchmark_group(group);
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for &(threads, increments) in rows {
        let (program, events) = families::load(
            &families::locked_counter(threads, increments),
            increments as u32,
        );
        let id = BenchmarkId::from_parameter(format!("{threads}x{increments}"));
        group.bench_function(id, |b| {
            b.iter(|| {
                let mut session = Session::new(&program, &events, options).expect("encodes");
                let result = match session.model_races() {
                    Some(result) => result,
                    None => session.races(),
                }
                .expect("solves");
                assert_eq!(result.races.len(), threads - 1);
            })
        });
    }
    group.finish();
}

/// The unlocked counter (`families::unlocked_counter`): every racing pair, and `--first`
/// (stop at the first racing pair), under SC and RC11.
fn unlocked(c: &mut Criterion) {
    let mut group = c.benchmark_group("races_unlocked");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for (threads, increments) in [(4, 10), (4, 25)] {
        let (program, events) = families::load(
            &families::unlocked_counter(threads, increments),
            increments as u32,
        );
        let rc11 = match nemos::cat::load_shipped("rc11") {
            Some(Ok(model)) => model,
            _ => panic!("models/rc11.cat is shipped and must compile"),
        };
        for (model, label) in [(nemos::cat::sc(), "sc"), (rc11, "rc11")] {
            let options = AnalysisOptions {
                model: Arc::new(model),
                slice_races: true,
                ..AnalysisOptions::default()
            };
            for (search, name) in [(RaceSearch::All, "all"), (RaceSearch::First, "first")] {
                let id =
                    BenchmarkId::from_parameter(format!("{threads}x{increments}/{label}/{name}"));
                group.bench_function(id, |b| {
                    b.iter(|| {
                        let mut session =
                            Session::new(&program, &events, &options).expect("encodes");
                        let result = match session.model_races_with(search) {
                            Some(result) => result,
                            None => session.races_with(search),
                        }
                        .expect("solves");
                        assert!(!result.races.is_empty());
                    })
                });
            }
        }
    }
    group.finish();
}

/// The locked counter under RC11 (`families::locked_counter`): its locks keep the whole
/// encoding (the races slice needs a lock-free program under RC11); candidates inside
/// critical sections of one mutex are pruned, so only the unprotected read races.
fn locked_rc11(c: &mut Criterion) {
    let rc11 = match nemos::cat::load_shipped("rc11") {
        Some(Ok(model)) => model,
        _ => panic!("models/rc11.cat is shipped and must compile"),
    };
    let options = AnalysisOptions {
        model: Arc::new(rc11),
        slice_races: true,
        ..AnalysisOptions::default()
    };
    locked(c, "races_locked_rc11", &options, &[(2, 5)]);
}

criterion_group!(benches, races, unlocked, locked_rc11);
criterion_main!(benches);
