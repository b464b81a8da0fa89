//! Counters, where the solver used to count increments order by order: `check` of the
//! locked counter (`families::locked_counter`, its `exists (c=T*M)`, and `exists (0:s=T*M)`
//! for thread 0's final unprotected read, and `exists (0:r=20)` for its last locked read,
//! which only interleaved sections meet) and `outcomes` of the
//! unlocked one (`families::unlocked_counter`), under SC, with the counting lemmas
//! (`encode::counting`) and without them (the value ranges of `events::counting` are part
//! of the unrolled test either way).
//!
//! `cargo bench --bench counting -- --warm-up-time 1 --measurement-time 3`

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

use nemos::analysis::{AnalysisOptions, Session};

#[path = "common/families.rs"]
mod families;

fn locked(c: &mut Criterion) {
    let mut group = c.benchmark_group("locked_counter_check");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    // Without the lemmas, 4 x 3 already takes tens of seconds. 4 x 10 is the issue's
    // `exists (c=40)`: its witness comes from `check`'s sequential guess (over 60 s
    // without it).
    let cases = [
        (2, 5, false),
        (2, 5, true),
        (4, 3, true),
        (4, 5, true),
        (4, 7, true),
        (4, 10, true),
    ];
    for (threads, increments, counting) in cases {
        let text = families::locked_counter(threads, increments);
        let (program, events) = families::load(&text, increments as u32);
        let options = AnalysisOptions {
            counting,
            ..AnalysisOptions::default()
        };
        let label = if counting { "lemmas" } else { "no lemmas" };
        let id = BenchmarkId::new(label, format!("{threads}x{increments}"));
        group.bench_function(id, |b| {
            b.iter(|| {
                let mut session = Session::new(&program, &events, &options).expect("encodes");
                let result = session.check().expect("solves");
                assert!(result.ok && result.negative.is_none());
            })
        });
    }
    // `exists (0:s=T*M)`: thread 0's unprotected final read sees every increment, which
    // only schedules running thread 0 last give; the guess finds one (over 60 s when it
    // was fixed to the thread order).
    for (threads, increments) in [(4, 5), (4, 10)] {
        let total = threads * increments;
        let text = families::locked_counter(threads, increments).replace(
            &format!("exists (c={total})"),
            &format!("exists (0:s={total})"),
        );
        let (program, events) = families::load(&text, increments as u32);
        let options = AnalysisOptions::default();
        let id = BenchmarkId::new("last read", format!("{threads}x{increments}"));
        group.bench_function(id, |b| {
            b.iter(|| {
                let mut session = Session::new(&program, &events, &options).expect("encodes");
                let result = session.check().expect("solves");
                assert!(result.ok && result.negative.is_some());
            })
        });
    }
    // Issue 40: `exists (0:r=20)`, thread 0's last locked read after exactly 11 of the
    // other threads' 30 sections, which no serial schedule meets (over 300 s before the
    // read and order lemmas of `encode::counting`); and `exists (0:r=40)`, which nothing
    // meets.
    for (condition, reachable) in [("0:r=20", true), ("0:r=40", false)] {
        let text = families::locked_counter(4, 10)
            .replace("exists (c=40)", &format!("exists ({condition})"));
        let (program, events) = families::load(&text, 10);
        let options = AnalysisOptions::default();
        let id = BenchmarkId::new("interleaved read", condition);
        group.bench_function(id, |b| {
            b.iter(|| {
                let mut session = Session::new(&program, &events, &options).expect("encodes");
                let result = session.check().expect("solves");
                assert_eq!(result.positive.is_some(), reachable);
            })
        });
    }
    group.finish();
}

fn unlocked(c: &mut Criterion) {
    let mut group = c.benchmark_group("unlocked_counter_outcomes");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    // 4 x 3 (the target) took 13 s in its last query before counter writes were
    // bounded to the range (`Encoding::bound_counter_writes`).
    for (threads, increments) in [(2, 3), (3, 3), (4, 2), (4, 3)] {
        let text = families::unlocked_counter(threads, increments);
        let (program, events) = families::load(&text, increments as u32);
        let options = AnalysisOptions::default();
        let id = BenchmarkId::from_parameter(format!("{threads}x{increments}"));
        group.bench_function(id, |b| {
            b.iter(|| {
                let mut session = Session::new(&program, &events, &options).expect("encodes");
                let states = session.outcomes().expect("solves");
                assert_eq!(states.len(), threads * increments - 1);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, locked, unlocked);
criterion_main!(benches);
