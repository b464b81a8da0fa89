//! The races issue's family (`families::locked_counter`): `T` threads each doing `M`
//! lock-protected increments, thread 0 then reading the counter unprotected. `races`
//! finds the `T - 1` racing statement pairs (one solve each) and proves there are no more.
//!
//! The unlocked counter (`families::unlocked_counter`): every racing pair, and only the
//! first (`races --first`), under SC and RC11; the locked counter under RC11.
//!
//! The racy reads (`families::locked_counter_racy_reads`): thread 0 reads the counter
//! unprotected in each iteration, under SC and RC11.
//!
//! Every row asks as the command line does (`query::ask`): the races slice, and under RC11
//! the races of programs whose reads feed nothing decided as SC's (`slice::rc11_races_are_sc`).
//!
//! `cargo bench --bench races -- --warm-up-time 1 --measurement-time 3`

use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

use nemos::analysis::query::{ask, Finding, Query, QueryOptions};
use nemos::analysis::races::{RaceResult, RaceSearch};
use nemos::cat::Model;
use nemos::Test;

#[path = "common/families.rs"]
mod families;

fn rc11() -> Model {
    match nemos::cat::load_shipped("rc11") {
        Some(Ok(model)) => model,
        _ => panic!("models/rc11.cat is shipped and must compile"),
    }
}

/// The whole `races` query on `test`, as `nemos races` asks it.
fn races_of(test: &Test, options: &QueryOptions) -> RaceResult {
    match ask(test, Query::Races, options).expect("solves").finding {
        Finding::Races(result) => result,
        _ => panic!("races answers races"),
    }
}

fn load(text: &str, increments: usize) -> Test {
    let (program, events) = families::load(text, increments as u32);
    Test { program, events }
}

fn races(c: &mut Criterion) {
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
    locked(c, "races", nemos::cat::sc(), "sc", &rows);
}

/// The locked counter's rows of `group`: `threads - 1` racing pairs each.
fn locked(c: &mut Criterion, group: &str, model: Model, label: &str, rows: &[(usize, usize)]) {
    let options = QueryOptions::new(Arc::new(model), label);
    let mut group = c.benchmark_group(group);
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for &(threads, increments) in rows {
        let test = load(&families::locked_counter(threads, increments), increments);
        let id = BenchmarkId::from_parameter(format!("{threads}x{increments}"));
        group.bench_function(id, |b| {
            b.iter(|| assert_eq!(races_of(&test, &options).races.len(), threads - 1))
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
        let test = load(&families::unlocked_counter(threads, increments), increments);
        for (model, label) in [(nemos::cat::sc(), "sc"), (rc11(), "rc11")] {
            for (search, name) in [(RaceSearch::All, "all"), (RaceSearch::First, "first")] {
                let options = QueryOptions {
                    race_search: search,
                    ..QueryOptions::new(Arc::new(model.clone()), label)
                };
                let id =
                    BenchmarkId::from_parameter(format!("{threads}x{increments}/{label}/{name}"));
                group.bench_function(id, |b| {
                    b.iter(|| assert!(!races_of(&test, &options).races.is_empty()))
                });
            }
        }
    }
    group.finish();
}

/// The locked counter under RC11: its reads feed nothing, so its races are SC's and decided
/// with SC's encoding; the rows match `races`' to compare the two models.
fn locked_rc11(c: &mut Criterion) {
    locked(
        c,
        "races_locked_rc11",
        rc11(),
        "rc11",
        &[(2, 5), (4, 10), (4, 25), (4, 50)],
    );
}

/// Issue 40's racy read in each of thread 0's iterations
/// (`families::locked_counter_racy_reads`), under SC and RC11 (decided as SC's): `hb`
/// read off the lock order (`analysis/lock_order.rs`).
fn racy_reads(c: &mut Criterion) {
    let mut group = c.benchmark_group("races_racy_reads");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for (threads, increments) in [(4, 10), (4, 25), (4, 50)] {
        let test = load(
            &families::locked_counter_racy_reads(threads, increments),
            increments,
        );
        for (model, label) in [(nemos::cat::sc(), "sc"), (rc11(), "rc11")] {
            let options = QueryOptions::new(Arc::new(model), label);
            let id = BenchmarkId::from_parameter(format!("{threads}x{increments}/{label}"));
            group.bench_function(id, |b| {
                b.iter(|| assert_eq!(races_of(&test, &options).races.len(), threads - 1))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, races, unlocked, locked_rc11, racy_reads);
criterion_main!(benches);
