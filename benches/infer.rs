//! `infer` against `check` on one example, both under RC11 and asked as the command line
//! asks them (`query::ask`, from loading the file to the answer): issue 38 asks infer to
//! stay within five times check's time.
//!
//! `cargo bench --bench infer -- --warm-up-time 1 --measurement-time 5`

use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};

use nemos::analysis::query::{ask, Query, QueryOptions};
use nemos::diagnostics::SourceFile;
use nemos::load::LoadOptions;

const EXAMPLES: [&str; 4] = ["treiber-stack", "linux-rwlock", "peterson", "mcs-lock"];

fn infer_against_check(c: &mut Criterion) {
    let model = match nemos::cat::load_shipped("rc11") {
        Some(Ok(model)) => Arc::new(model),
        _ => panic!("models/rc11.cat is shipped and must compile"),
    };
    let options = QueryOptions::new(model, "rc11");
    let mut group = c.benchmark_group("infer_vs_check");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    for name in EXAMPLES {
        let path = format!("{}/examples/{name}.litmus", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).expect("the example is in the repository");
        let source = SourceFile::new(&path, text);
        let run = |query: Query| {
            let test = nemos::load(&source, &LoadOptions::default()).expect("the example loads");
            ask(&test, query, &options).expect("the example is answered")
        };
        group.bench_function(format!("{name}/check"), |b| {
            b.iter(|| {
                run(Query::Check {
                    states: false,
                    certify: false,
                })
            })
        });
        group.bench_function(format!("{name}/infer"), |b| b.iter(|| run(Query::Infer)));
    }
    group.finish();
}

criterion_group!(benches, infer_against_check);
criterion_main!(benches);
