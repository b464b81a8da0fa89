//! The size of the SAT instances of the C11 models on the data-structure examples, so that
//! the compiler of `src/encode/model/` cannot silently go back to building relations
//! nothing reads. Sizes are deterministic (no solving, no timing): the shared encoding and
//! the compiled model, into a plain clause list, with the lazy acyclicity of every query.
//!
//! Before the relations were built on the pairs the checks read (and `hb`'s closure split
//! at program order), `treiber-stack` under `rc11` took 815352 variables and 3162105
//! clauses (2.6 s, 500 MB for one `check`); `mcs-lock` 3.6 million variables and
//! 14.3 million clauses (27 s, 2.2 GB).

use nemos::encode::acyclic::AcyclicStrategy;
use nemos::encode::cnf::Cnf;
use nemos::encode::model::encode_model;
use nemos::encode::Encoding;

use crate::common;

/// Variables and clauses of `examples/NAME.litmus` under the shipped `model`.
fn size(name: &str, model: &str) -> (u32, usize) {
    let path = common::manifest_dir().join(format!("examples/{name}.litmus"));
    let text = std::fs::read_to_string(&path).expect("example file");
    let test = common::load(&format!("{name}.litmus"), &text);
    let Some(Ok(model)) = nemos::cat::load_shipped(model) else {
        panic!("models/{model}.cat is shipped and must compile");
    };
    let mut cnf = Cnf::default();
    let enc = Encoding::new(&mut cnf, &test.program, &test.events);
    encode_model(&mut cnf, &enc, &model, AcyclicStrategy::Lazy);
    (cnf.num_vars, cnf.clauses.len())
}

/// The bounds are about twice the sizes measured when they were set (the figures in the
/// comments), so that a small change of the encoding passes and a return of the cubic
/// closures (two orders of magnitude) does not.
#[test]
fn c11_instances_of_the_examples_stay_small() {
    let cases = [
        // (example, model, variables at most, clauses at most): measured 2026-11-25
        ("treiber-stack", "rc11", 4_000, 12_000), // 1885, 5902
        ("treiber-stack", "c11", 10_000, 26_000), // 5081, 12716
        ("mcs-lock", "rc11", 18_000, 64_000),     // 9103, 32041
        ("ms-queue", "rc11", 5_000, 17_000),      // 2562, 8442
        ("chase-lev-deque", "rc11", 120_000, 450_000), // 58522, 221538
    ];
    let mut over = Vec::new();
    for (name, model, max_vars, max_clauses) in cases {
        let (vars, clauses) = size(name, model);
        eprintln!("{name} under {model}: {vars} variables, {clauses} clauses");
        if vars > max_vars || clauses > max_clauses {
            over.push(format!(
                "{name} under {model}: {vars} variables, {clauses} clauses \
                 (at most {max_vars}, {max_clauses})"
            ));
        }
    }
    assert!(over.is_empty(), "instances grew:\n{}", over.join("\n"));
}
