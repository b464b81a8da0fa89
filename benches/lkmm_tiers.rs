//! One test of each tier of the LKMM corpus (core, rmw, lock, ptr, rcu, srcu, plain) under
//! the kernel's own model files, read unchanged from `../shared/corpus/lkmm/model/kernel`
//! (`--conf linux-kernel.cfg`): the whole `check` query after loading, each test the median
//! of its tier in the side-by-side run of `scripts/herd-side-by-side.py`. Skipped when the
//! corpus is absent (the model files are GPL-2.0+: read from a path, never embedded).
//!
//! `cargo bench --bench lkmm_tiers -- --warm-up-time 1 --measurement-time 3`

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

use nemos::analysis::{AnalysisOptions, Session};
use nemos::diagnostics::SourceFile;

/// Tier, test (relative to the corpus's `tests/`), whether `LKMM-expected.csv` says its
/// condition is reachable.
const TESTS: &[(&str, &str, bool)] = &[
    (
        "core",
        "luc/RelAcq/C-MP+poreleaserelease+poonceacquire.litmus",
        true,
    ),
    ("rmw", "manual/atomic/C-AlanStern-Atomic1.litmus", false),
    (
        "lock",
        "manual/locked/WW+WW+WW+WR+po+po+po+rfi-po+onces+locked.litmus",
        false,
    ),
    ("ptr", "auto/C-LB-Lrw+R-Od+R-Od.litmus", false),
    (
        "rcu",
        "auto/C-WW-G+WW-G+WW-G+WW-G+WW-B+WW-R+WW-R.litmus",
        false,
    ),
    ("srcu", "manual/srcu/C-SRCU-63.litmus", true),
    ("plain", "auto/C-LB-Lwr+R-A+R-Oc+R-Oc.litmus", true),
];

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/lkmm")
}

fn tiers(c: &mut Criterion) {
    let corpus = corpus();
    let conf = corpus.join("model/kernel/linux-kernel.cfg");
    if !conf.exists() {
        eprintln!("skipped: no kernel model at {}", conf.display());
        return;
    }
    let loaded = nemos::load_model(&conf.display().to_string(), &mut |p| std::fs::read(p))
        .expect("the kernel's files load");
    let options = AnalysisOptions {
        model: loaded.model.clone(),
        ..AnalysisOptions::default()
    };
    let load = nemos::LoadOptions {
        macros: loaded.macros.clone(),
        ..Default::default()
    };
    let mut group = c.benchmark_group("lkmm-kernel-model");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for (tier, path, reachable) in TESTS {
        let full = corpus.join("tests").join(path);
        let file = SourceFile::from_bytes(
            full.display().to_string(),
            std::fs::read(&full).expect("the test is in the corpus"),
        );
        let test = nemos::load(&file, &load).expect("the test loads");
        group.bench_function(BenchmarkId::new(*tier, path), |b| {
            b.iter(|| {
                let mut session =
                    Session::new(&test.program, &test.events, &options).expect("encodes");
                let result = session.check().expect("solves");
                assert_eq!(result.positive.is_some(), *reachable, "{path}");
            })
        });
    }
    group.finish();
}

criterion_group!(benches, tiers);
criterion_main!(benches);
