//! The solver backends on the SC scaling family: thread `i` of `N` does
//! `x = i+1; y = i+1; r = y; s = x;` on shared `x`, `y`.
//!
//! - allowed: every thread reads its own `y` (a witness exists);
//! - forbidden: the same and `0:s=0` (a proof of absence);
//! - outcomes: every reachable final state (N = 4: an enumeration of 125 solves);
//! - the races family (`families::locked_counter`): every racing statement pair.
//!
//! The larger sizes (scaling N = 10, 12; races 4 x 10) and the symmetric lock takers
//! (`families::lock_takers`, `check` of `forall (c=N)`) run on the embedded solvers only:
//! varisat, and CaDiCaL when nemos is built with `--features cadical`.
//!
//! Each iteration is what `nemos check` does for one test after parsing: encode into a new
//! solver, ask the two condition queries, the bound and the assertions, and shut the solver
//! down (for z3 and cvc5: start and stop a process). External solvers that are not
//! installed are skipped with a message.
//!
//! `cargo bench --bench backends -- --warm-up-time 1 --measurement-time 3`

use std::time::Duration;

#[path = "common/families.rs"]
mod families;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

use nemos::analysis::{AnalysisOptions, Observation, Session};
use nemos::solver::{Backend, SolverOptions};

fn options(backend: Backend) -> AnalysisOptions {
    AnalysisOptions {
        solver: SolverOptions {
            backend,
            record: None,
        },
        ..AnalysisOptions::default()
    }
}

fn backends() -> Vec<Backend> {
    Backend::ALL
        .into_iter()
        .filter(|b| match b.available() {
            Ok(()) => true,
            Err(e) => {
                eprintln!("skipping {}: {e}", b.name());
                false
            }
        })
        .collect()
}

/// The solvers in process: varisat, and CaDiCaL when built in.
fn embedded() -> Vec<Backend> {
    backends()
        .into_iter()
        .filter(|b| matches!(b, Backend::Varisat | Backend::Cadical))
        .collect()
}

/// Every backend on the small sizes, the embedded ones on the large.
fn sized<T: Copy>(small: &[T], large: &[T]) -> Vec<(T, Vec<Backend>)> {
    let all = backends();
    let embedded = embedded();
    let small = small.iter().map(|&s| (s, all.clone()));
    small
        .chain(large.iter().map(|&s| (s, embedded.clone())))
        .collect()
}

fn check(c: &mut Criterion) {
    for (query, forbidden, expected) in [
        ("allowed", false, Observation::Sometimes),
        ("forbidden", true, Observation::Never),
    ] {
        let mut group = c.benchmark_group(format!("sc_scaling_check_{query}"));
        for (n, backends) in sized(&[4usize, 6, 8], &[10, 12]) {
            let (program, events) = families::load(&families::scaling(n, forbidden), 2);
            for &backend in &backends {
                let opts = options(backend);
                group.bench_with_input(BenchmarkId::new(backend.name(), n), &n, |b, _| {
                    b.iter(|| {
                        let mut session = Session::new(&program, &events, &opts).unwrap();
                        let result = session.check().unwrap();
                        assert_eq!(result.observation, expected);
                        result.observation
                    })
                });
            }
        }
        group.finish();
    }
}

fn outcomes(c: &mut Criterion) {
    let mut group = c.benchmark_group("sc_scaling_outcomes");
    let (program, events) = families::load(&families::scaling(4, false), 2);
    for backend in backends() {
        let opts = options(backend);
        group.bench_function(BenchmarkId::new(backend.name(), 4), |b| {
            b.iter(|| {
                let mut session = Session::new(&program, &events, &opts).unwrap();
                let states = session.outcomes().unwrap();
                assert_eq!(states.len(), 125);
                states.len()
            })
        });
    }
    group.finish();
}

/// The races issue's family: every racing statement pair of `T` threads doing `M` locked
/// increments, one solve per race plus the proof that there are no more.
fn races(c: &mut Criterion) {
    let mut group = c.benchmark_group("locked_counter_races");
    for ((threads, increments), backends) in sized(&[(2, 5), (4, 3)], &[(4, 10)]) {
        let (program, events) = families::load(
            &families::locked_counter(threads, increments),
            increments as u32,
        );
        for backend in backends {
            let opts = options(backend);
            let id = BenchmarkId::new(backend.name(), format!("{threads}x{increments}"));
            group.bench_function(id, |b| {
                b.iter(|| {
                    let mut session = Session::new(&program, &events, &opts).unwrap();
                    let result = session.races().unwrap();
                    assert_eq!(result.races.len(), threads - 1);
                    result.races.len()
                })
            });
        }
    }
    group.finish();
}

/// The symmetric lock takers: `check` of `forall (c=N)`, a proof over every order of the N
/// critical sections.
fn lock_takers(c: &mut Criterion) {
    let mut group = c.benchmark_group("lock_takers_check");
    for n in [8usize, 12] {
        let (program, events) = families::load(&families::lock_takers(n), 1);
        for backend in embedded() {
            let opts = options(backend);
            group.bench_function(BenchmarkId::new(backend.name(), n), |b| {
                b.iter(|| {
                    let mut session = Session::new(&program, &events, &opts).unwrap();
                    let result = session.check().unwrap();
                    assert_eq!(result.observation, Observation::Always);
                    result.observation
                })
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = check, outcomes, races, lock_takers
}
criterion_main!(benches);
