//! Values out of thin air: reads' value sets follow the model (`events::bounds`,
//! `Model::forbids_thin_air`). Where the model makes `po | rf` acyclic the sets are a least
//! fixpoint; elsewhere (the coherence model, a skipped `no-thin-air`, the Linux-kernel
//! model) a value may justify itself around a cycle and the sets are a greatest fixpoint.

use crate::common::{self, States};
use crate::differential::generate;

use std::sync::Arc;

use nemos::analysis::query::{ask, Finding, Query, QueryOptions};
use nemos::analysis::{AnalysisOptions, Observation, Session, THIN_AIR_STATES};
use nemos::diagnostics::SourceFile;
use nemos::program::Program;
use proptest::prelude::*;

fn shipped(name: &str) -> nemos::cat::Model {
    match nemos::cat::load_shipped(name) {
        Some(Ok(model)) => model,
        _ => panic!("models/{name}.cat is shipped and must compile"),
    }
}

/// Whether the model forbids thin air with the named checks of `skip` switched off.
fn forbids(model: &str, skip: &[&str]) -> bool {
    shipped(model).forbids_thin_air(|c| c.name.as_deref().is_none_or(|n| !skip.contains(&n)))
}

#[test]
fn the_models_that_order_po_and_rf_forbid_thin_air() {
    for (model, check) in [
        ("sc", "sc"),
        ("tso", "tso"),
        ("pso", "pso"),
        ("rc11", "no-thin-air"),
        ("c11", "no-thin-air"),
    ] {
        assert!(forbids(model, &[]), "{model}");
        assert!(!forbids(model, &[check]), "{model} without {check}");
    }
    // SC per location alone allows load buffering, thin air included.
    assert!(!forbids("coherence", &[]));
    // A check that orders reads before later writes but not `rf`, or the other way round.
    for text in [
        "acyclic po-loc | rf as partial",
        "acyclic ([W]; po; [W]) | rfe as partial",
        "acyclic (po \\ (R * W)) | rf as partial",
    ] {
        let file = SourceFile::new("partial.cat", text);
        let model = nemos::cat::load(&file, "partial", &mut |p: &str| Err(p.to_string()))
            .unwrap_or_else(|e| panic!("{}", e.short()));
        assert!(!model.forbids_thin_air(|_| true), "{text}");
    }
}

/// Load buffering through data: each thread copies what it read into the other's location.
const LB_DATA: &str = "C LB+datas\n{}\n\
    P0 (atomic_int* x, atomic_int* y) {\n\
      int r0 = atomic_load_explicit(x, memory_order_relaxed);\n\
      atomic_store_explicit(y, r0, memory_order_relaxed);\n}\n\
    P1 (atomic_int* x, atomic_int* y) {\n\
      int r0 = atomic_load_explicit(y, memory_order_relaxed);\n\
      atomic_store_explicit(x, r0, memory_order_relaxed);\n}\n\
    exists (0:r0=42 /\\ 1:r0=42)\n";

/// The kernel's crypto-control-data in C11: the written value is 0 or 1 whatever was read,
/// but 1 only when 1 was read.
const LB_CONTROL: &str = "C LB+control\n{}\n\
    P0 (atomic_int* x, atomic_int* y) {\n\
      int r1 = 1;\n\
      if (atomic_load_explicit(x, memory_order_relaxed) == 0) r1 = 0;\n\
      atomic_store_explicit(y, r1, memory_order_relaxed);\n}\n\
    P1 (atomic_int* x, atomic_int* y) {\n\
      int r2 = atomic_load_explicit(y, memory_order_relaxed);\n\
      atomic_store_explicit(x, r2, memory_order_relaxed);\n}\n\
    exists (0:r1=1)\n";

fn options(model: &str, skip: &[&str]) -> AnalysisOptions {
    AnalysisOptions {
        model: Arc::new(shipped(model)),
        skip: skip.iter().map(|s| s.to_string()).collect(),
        ..AnalysisOptions::default()
    }
}

fn reachable(text: &str, model: &str, skip: &[&str]) -> bool {
    let test = common::load("thin-air.litmus", text);
    let mut session = Session::new(&test.program, &test.events, &options(model, skip)).unwrap();
    session.check().unwrap().observation != Observation::Never
}

#[test]
fn a_value_justifies_itself_only_where_the_model_allows_it() {
    for text in [LB_DATA, LB_CONTROL] {
        for model in ["sc", "tso", "rc11", "c11"] {
            assert!(!reachable(text, model, &[]), "{model}\n{text}");
        }
        assert!(reachable(text, "rc11", &["no-thin-air"]), "{text}");
        assert!(reachable(text, "c11", &["no-thin-air"]), "{text}");
        assert!(reachable(text, "coherence", &[]), "{text}");
    }
}

/// `explain` drops checks: the values must be those of the model without them, or the
/// outcome would look unreachable whatever the model.
#[test]
fn explain_names_no_thin_air() {
    let test = common::load("thin-air.litmus", LB_DATA);
    let query_options = QueryOptions::new(Arc::new(shipped("rc11")), "rc11");
    let answer = ask(&test, Query::Explain, &query_options).unwrap();
    let Finding::Explain(explanation) = answer.finding else {
        panic!("an explanation");
    };
    assert_eq!(explanation.core, ["no-thin-air"]);
    let witness = explanation.without_one[0]
        .witness
        .as_ref()
        .expect("a witness");
    let reads: Vec<i32> = test
        .events
        .reads()
        .filter(|r| witness.feasible[r.id])
        .map(|r| witness.values[r.id].expect("a value"))
        .collect();
    assert_eq!(reads, [42, 42]);
}

/// Every 32-bit value justifies itself in LB+datas without `no-thin-air`: the enumeration
/// of final states stops and says so, after the ordinary ones.
#[test]
fn an_unbounded_enumeration_stops_and_says_so() {
    let test = common::load("thin-air.litmus", LB_DATA);
    let query_options = QueryOptions::new(Arc::new(shipped("coherence")), "coherence");
    let answer = ask(&test, Query::Outcomes, &query_options).unwrap();
    let Finding::Check(found) = &answer.finding else {
        panic!("final states");
    };
    assert!(found.states_cut);
    assert_eq!(found.states.as_ref().map(Vec::len), Some(THIN_AIR_STATES));
    assert_eq!(
        answer.severity(),
        nemos::analysis::query::Severity::LimitHit
    );
    // Under rc11 the only final state is the ordinary one.
    let query_options = QueryOptions::new(Arc::new(shipped("rc11")), "rc11");
    let answer = ask(&test, Query::Outcomes, &query_options).unwrap();
    let Finding::Check(found) = &answer.finding else {
        panic!("final states");
    };
    assert!(!found.states_cut);
    assert_eq!(found.states.as_ref().map(Vec::len), Some(1));
}

/// Final states with the value sets of the model (`what_if: false`) or those of a model
/// without its named checks, which may allow thin air (`what_if: true`).
fn states(program: &Program, model: &str, what_if: bool) -> (States, bool) {
    let events = common::unrolled(program, 2);
    let options = AnalysisOptions {
        what_if,
        ..options(model, &[])
    };
    let mut session = Session::new(program, &events, &options).unwrap();
    let states = common::final_states(&mut session);
    (states, session.outcomes_cut)
}

proptest! {
    #![proptest_config(common::proptest_config(48, file!()))]

    /// Under models that forbid thin air the least fixpoint loses no final state: the
    /// greatest one gives the same states. The coherence model, which allows thin air,
    /// keeps every state SC reaches.
    #[test]
    fn value_sets_lose_no_state(test in generate::litmus(true, 8)) {
        let text = generate::render(&test);
        let program = common::load("random.litmus", &text).program;
        for model in ["sc", "tso", "rc11"] {
            let (grounded, _) = states(&program, model, false);
            let (thin_air, cut) = states(&program, model, true);
            prop_assert!(!cut, "{model}\n{text}");
            prop_assert_eq!(&grounded, &thin_air, "{}\n{}", model, text);
        }
        let (sc, _) = states(&program, "sc", false);
        let (coherent, cut) = states(&program, "coherence", false);
        if !cut {
            prop_assert!(sc.is_subset(&coherent), "{}", text);
        }
    }
}
