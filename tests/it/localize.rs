//! `localize` (issue 19): the critical orderings of a failing check, against the brute-force
//! reference explorer on random programs, and the fixes it reports, each checked again here
//! on the rewritten source.

use std::collections::BTreeSet;

use nemos::analysis::localize::repair::RepairKind;
use nemos::analysis::localize::{Localization, LocalizeSettings, Ordering};
use nemos::analysis::query::{ask, Finding, Query, QueryOptions};
use nemos::analysis::races::Statement;
use nemos::analysis::{AnalysisOptions, Session};
use nemos::diagnostics::SourceFile;
use nemos::events::{unroll, UnrollOptions};
use nemos::program::Program;
use nemos::Test;
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};

use crate::common;
use crate::differential::{generate, spin_loops};
use crate::reference;

const UNROLL: u32 = 2;
const MAX_SIZE: usize = 3;

type Fact = (Statement, Statement);

fn localize_file(name: &str, model: &str) -> (Test, Localization) {
    let path = common::manifest_dir().join(name);
    let text = std::fs::read_to_string(&path).expect("readable");
    let test = common::load(name, &text);
    let options = QueryOptions::new(common::under(model).model, model);
    let answer = ask(&test, Query::Localize, &options).expect("answers");
    let Finding::Localize(localization) = answer.finding else {
        panic!("not a localization");
    };
    (test, *localization)
}

fn facts(test: &Test, localization: &Localization) -> Vec<Vec<(String, String)>> {
    let source = &test.program.source;
    let text = |s: &Statement| source.snippet(s.span()).trim().to_string();
    localization
        .sets
        .iter()
        .map(|set| {
            set.orderings
                .iter()
                .map(|o| (text(&o.first), text(&o.second)))
                .collect()
        })
        .collect()
}

/// The outcome of the fixed program under `model`: the condition's outcome is reachable.
fn reachable(source: &str, model: &str) -> bool {
    let test = common::load("fixed.litmus", source);
    let options = common::under(model);
    let mut session = Session::new(&test.program, &test.events, &options).unwrap();
    session.check().unwrap().positive.is_some()
}

/// Every set has at least one fix, and each fix, checked afresh, makes the outcome
/// unreachable.
fn every_set_fixed(test: &Test, localization: &Localization, model: &str) {
    assert!(!localization.sets.is_empty());
    for set in &localization.sets {
        for repair in &set.repairs {
            assert!(
                !reachable(&repair.source, model),
                "{:?} does not fix {}:\n{}",
                repair.kind,
                test.program.name,
                repair.source
            );
        }
    }
    assert!(
        localization.sets.iter().any(|s| !s.repairs.is_empty()),
        "no fix for {}",
        test.program.name
    );
}

#[test]
fn pair_snapshot_is_localized_to_the_reads_against_the_writes_between_them() {
    let (test, localization) = localize_file("litmus/pair-snapshot.litmus", "sc");
    let sets = facts(&test, &localization);
    let pair = |a: &str, b: &str| vec![(a.to_string(), b.to_string())];
    // FGVT's critical races: the snapshot's first read before the first write of d[0], the
    // write of d[1] = 2 before the second read, and that read before d[1] = 1.
    assert!(
        sets.contains(&pair("int r0 = d[0];", "d[0] = 2;")),
        "{sets:?}"
    );
    assert!(
        sets.contains(&pair("d[1] = 2;", "int r1 = d[1];")),
        "{sets:?}"
    );
    assert!(
        sets.contains(&pair("int r1 = d[1];", "d[1] = 1;")),
        "{sets:?}"
    );
    assert!(localization.complete);
    every_set_fixed(&test, &localization, "sc");
    // The paper's fix: `read` made atomic, by one mutex around its block and the writes'.
    let atomic_read = localization
        .sets
        .iter()
        .flat_map(|s| &s.repairs)
        .find(|r| r.kind == RepairKind::LockBlocks)
        .expect("the read block under a mutex");
    assert!(atomic_read
        .lines
        .iter()
        .any(|(_, text)| text.contains("lock(m); atomic {")));
}

#[test]
fn the_racy_counter_and_the_bank_are_fixed_by_a_mutex() {
    for name in ["litmus/counter-racy.litmus", "litmus/fig2-bank.litmus"] {
        let (test, localization) = localize_file(name, "sc");
        every_set_fixed(&test, &localization, "sc");
        // Each read before the other thread's write is critical on its own.
        assert!(
            localization
                .sets
                .iter()
                .filter(|s| s.orderings.len() == 1)
                .count()
                >= 2
        );
    }
}

#[test]
fn sb_and_mp_under_rc11_are_fixed_by_fences() {
    for name in ["litmus/SB.litmus", "litmus/MP.litmus"] {
        let (test, localization) = localize_file(name, "rc11");
        every_set_fixed(&test, &localization, "rc11");
        let fences = localization
            .sets
            .iter()
            .flat_map(|s| &s.repairs)
            .filter(|r| r.kind == RepairKind::Fences)
            .count();
        assert!(fences > 0, "no fence fix for {name}");
        // Under SC neither outcome is reached: nothing to localize.
        let (_, under_sc) = localize_file(name, "sc");
        assert!(under_sc.bad.is_none() && under_sc.sets.is_empty());
    }
}

#[test]
fn a_weakened_example_is_fixed_by_the_orders_infer_suggests() {
    let (test, localization) = localize_file("examples/spsc-queue-weak.litmus", "rc11");
    assert!(localization.bad.is_some());
    let orders = localization
        .repairs
        .iter()
        .find(|r| r.kind == RepairKind::Orders)
        .expect("infer's orders");
    // The consumer's load of `tail` made acquire again, and the assertion holds then.
    assert!(orders
        .lines
        .iter()
        .any(|(line, text)| *line == 14 && text.contains("memory_order_acquire")));
    let fixed = common::load("fixed.litmus", &orders.source);
    let options = common::under("rc11");
    let mut session = Session::new(&fixed.program, &fixed.events, &options).unwrap();
    assert!(
        session.assertion_failure().unwrap().is_none(),
        "{}",
        test.program.name
    );
}

#[test]
fn figure_1_program_2_has_critical_orderings_but_no_lock_or_fence_fixes_it() {
    // P1 then P0, one after the other, reaches the outcome: only an order between the
    // threads removes it, which no mutex or fence imposes.
    let (test, localization) = localize_file("litmus/fig1-program2.litmus", "sc");
    let sets = facts(&test, &localization);
    assert_eq!(sets.len(), 2, "{sets:?}");
    assert!(localization.sets.iter().all(|s| s.repairs.is_empty()));
}

/// The sets the reference finds: every set of at most `MAX_SIZE` orderings (of those some
/// bad trace shows) that every bad trace shows one of, that some trace avoids entirely, and
/// no proper subset of which every bad trace meets.
fn reference_sets(traces: &[(bool, BTreeSet<Fact>)]) -> BTreeSet<BTreeSet<Fact>> {
    let universe: Vec<Fact> = traces
        .iter()
        .filter(|t| t.0)
        .flat_map(|t| t.1.iter().copied())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let hits_all_bad =
        |s: &BTreeSet<Fact>| traces.iter().filter(|t| t.0).all(|t| !t.1.is_disjoint(s));
    let mut critical: Vec<BTreeSet<Fact>> = Vec::new();
    let mut found = BTreeSet::new();
    for size in 1..=MAX_SIZE {
        for subset in subsets(universe.len(), size) {
            let s: BTreeSet<Fact> = subset.iter().map(|&i| universe[i]).collect();
            if critical.iter().any(|c| c.is_subset(&s)) || !hits_all_bad(&s) {
                continue;
            }
            critical.push(s.clone());
            if traces.iter().any(|t| t.1.is_disjoint(&s)) {
                found.insert(s);
            }
        }
    }
    found
}

fn subsets(n: usize, size: usize) -> Vec<Vec<usize>> {
    if size == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for first in 0..n {
        for rest in subsets(n, size - 1) {
            if rest.first().is_none_or(|&r| r > first) {
                let mut s = vec![first];
                s.extend(rest);
                out.push(s);
            }
        }
    }
    out
}

fn compare_with_reference(text: &str) -> Result<(), String> {
    let file = SourceFile::new("random", text.to_string());
    let program: Program = nemos::load::lower(&file).map_err(|e| e.short())?;
    if !spin_loops(&program).is_empty() {
        // The product drops a spin loop's failed iterations, and their orderings with them.
        return Ok(());
    }
    let r = reference::explore_within(&program, UNROLL, &[], 200_000);
    if r.gave_up {
        return Ok(());
    }
    let events = unroll(
        &program,
        UnrollOptions {
            unroll: UNROLL,
            ..Default::default()
        },
    )
    .map_err(|e| format!("{e:?}"))?;
    let mut session =
        Session::new(&program, &events, &AnalysisOptions::default()).map_err(|e| e.to_string())?;
    let settings = LocalizeSettings {
        max_size: MAX_SIZE,
        max_sets: usize::MAX,
        repairs: false,
    };
    let localization = session.localize(settings).map_err(|e| e.to_string())?;
    // The product's choice of bad: failing assertions when some trace fails one, else the
    // condition, else (a test without one) the traces the spec does not linearize.
    let assertion = r.ordered.iter().any(|t| t.1);
    let spec_only = program.condition.is_none() && program.spec.is_some();
    let traces: Vec<(bool, BTreeSet<Fact>)> = r
        .ordered
        .iter()
        .map(|(satisfies, failed, non_linearizable, facts)| {
            let bad = if assertion {
                *failed
            } else if spec_only {
                *non_linearizable
            } else {
                *satisfies
            };
            (bad, facts.clone())
        })
        .collect();
    let any_bad = traces.iter().any(|t| t.0);
    if any_bad != localization.bad.is_some() {
        return Err(format!(
            "bad reachable: reference {any_bad}, product {}\n{text}",
            localization.bad.is_some()
        ));
    }
    let expected = reference_sets(&traces);
    let product: BTreeSet<BTreeSet<Fact>> = localization
        .sets
        .iter()
        .map(|s| {
            s.orderings
                .iter()
                .map(|&Ordering { first, second }| (first, second))
                .collect()
        })
        .collect();
    if product != expected || !localization.complete {
        let show = |sets: &BTreeSet<BTreeSet<Fact>>| {
            sets.iter()
                .map(|s| {
                    s.iter()
                        .map(|(a, b)| {
                            format!(
                                "P{}:{} < P{}:{}",
                                a.thread,
                                file.snippet(a.span()).trim(),
                                b.thread,
                                file.snippet(b.span()).trim()
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .collect::<Vec<_>>()
                .join("\n  ")
        };
        return Err(format!(
            "critical sets differ\nreference:\n  {}\nproduct:\n  {}\n{text}",
            show(&expected),
            show(&product)
        ));
    }
    Ok(())
}

/// Random programs of `differential`'s language, dense in conflicts: two locations, loads,
/// stores, fetch-adds, branches on a register and lock sections, 2 or 3 threads, at most
/// nine shared steps.
fn dense_litmus() -> impl Strategy<Value = generate::Litmus> {
    use generate::{Expr, Stmt};
    let value = prop_oneof![
        (0..3i32).prop_map(Expr::Const),
        (0..2usize).prop_map(|r| Expr::Binary(
            "+",
            Box::new(Expr::Reg(r)),
            Box::new(Expr::Const(1))
        )),
    ];
    let access = prop_oneof![
        (0..2usize, value).prop_map(|(l, e)| Stmt::Store(l, e)),
        (0..2usize, 0..2usize).prop_map(|(r, l)| Stmt::Load(r, l)),
        (0..2usize, 0..2usize).prop_map(|(r, l)| Stmt::FetchAdd(r, l, 1)),
    ];
    let stmt = prop_oneof![
        6 => access.clone(),
        1 => prop::collection::vec(access.clone(), 1..3).prop_map(Stmt::Locked),
        1 => (0..2usize, prop::collection::vec(access.clone(), 1..2), prop::collection::vec(access, 0..2))
            .prop_map(|(r, t, e)| Stmt::If(r, "==", Expr::Const(0), t, e)),
    ];
    (
        prop::collection::vec(0..2i32, generate::LOCATIONS.len()),
        prop::collection::vec(prop::collection::vec(stmt, 1..4), 2..4),
    )
        .prop_filter("too many steps for brute force", |(_, threads)| {
            threads.iter().map(|t| generate::steps(t)).sum::<usize>() <= 9
        })
        .prop_map(|(init, threads)| generate::Litmus { init, threads })
}

/// `text` asking for one of its reachable final states (picked by `pick`) instead of its
/// condition, so that the outcome is bad in some executions and, often, not in all.
fn with_reachable_outcome(text: &str, pick: prop::sample::Index) -> String {
    let file = SourceFile::new("random", text.to_string());
    let Ok(program) = nemos::load::lower(&file) else {
        return text.to_string();
    };
    let r = reference::explore_within(&program, UNROLL, &spin_loops(&program), 200_000);
    if r.outcomes.is_empty() || r.gave_up {
        return text.to_string();
    }
    let outcome = pick.get(&r.outcomes.iter().collect::<Vec<_>>()).to_owned();
    let condition = outcome
        .iter()
        .map(|&(o, v)| format!("{}={v}", program.observable_name(o)))
        .collect::<Vec<_>>()
        .join(" /\\ ");
    match text.rfind("exists") {
        Some(at) => format!("{}exists ({condition})\n", &text[..at]),
        None => text.to_string(),
    }
}

#[test]
fn the_litmus_suite_matches_the_reference() {
    for name in [
        "counter-racy",
        "fig2-bank",
        "pair-snapshot",
        "fig1-program2",
        "MP",
        "SB",
    ] {
        let path = common::manifest_dir().join(format!("litmus/{name}.litmus"));
        let text = std::fs::read_to_string(&path).expect("readable");
        if let Err(e) = compare_with_reference(&text) {
            panic!("{name}: {e}");
        }
    }
}

proptest! {
    #![proptest_config(Config {
        cases: 256,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/proptest-regressions/localize.txt",
        ))),
        ..Config::default()
    })]

    /// Every reported set removes every bad trace of the reference, some trace survives
    /// it, no proper subset removes them all, and no such set of at most three orderings
    /// is missing.
    #[test]
    fn random_programs_match_the_reference(
        test in dense_litmus(),
        pick in any::<prop::sample::Index>(),
    ) {
        let text = with_reachable_outcome(&generate::render(&test), pick);
        if let Err(e) = compare_with_reference(&text) {
            return Err(TestCaseError::fail(e));
        }
    }
}

/// Issue 38, item 2: a test whose only check is its `spec { }` block localizes the
/// executions the spec finds not linearizable (FGVT's question), as the reference does, on
/// every two-thread client of one or two calls of the spec tests' small objects; a test
/// with no check at all is refused.
#[test]
fn spec_violations_match_the_reference_on_small_objects() {
    let mut compared = 0;
    let mut localized = 0;
    for (object, _, _) in crate::spec::objects() {
        let clients = crate::spec::sequences(object.calls);
        for (i, first) in clients.iter().enumerate() {
            for second in &clients[i..] {
                let text = crate::spec::client(&object, &[first.clone(), second.clone()]);
                let file = SourceFile::new("client", text.clone());
                let program = nemos::load::lower(&file).unwrap();
                assert!(program.condition.is_none() && program.spec.is_some());
                if !spin_loops(&program).is_empty() {
                    continue;
                }
                if let Err(e) = compare_with_reference(&text) {
                    panic!("{e}");
                }
                compared += 1;
                let test = common::load("client", &text);
                let mut session =
                    Session::new(&test.program, &test.events, &AnalysisOptions::default()).unwrap();
                localized += session
                    .localize(LocalizeSettings::default())
                    .unwrap()
                    .bad
                    .is_some() as usize;
            }
        }
    }
    // Both answers occur: the comparison is not vacuous.
    assert!(
        compared >= 50 && localized >= 10,
        "{compared} compared, {localized} localized"
    );
}

/// FGVT's PairSnapShot with its spec as its only check: the critical orderings are the
/// paper's (the read of d[0] before the first write of it; the write of d[1] = 2 before
/// the read of d[1]; that read before d[1] = 1; the retry's read of d[0] after its last
/// write), not those of an implicit `exists (true)`; every verified fix is linearizable.
#[test]
fn a_spec_is_localized_when_it_is_the_only_check() {
    let path = common::manifest_dir().join("specs/pair-snapshot.litmus");
    let text = std::fs::read_to_string(&path).expect("readable");
    let at = text.rfind("exists").expect("the spec test has a condition");
    let spec_only = text[..at].to_string();
    let test = common::load("pair-snapshot-spec", &spec_only);
    let options = QueryOptions::new(common::under("sc").model, "sc");
    let answer = ask(&test, Query::Localize, &options).expect("answers");
    let Finding::Localize(localization) = answer.finding else {
        panic!("not a localization");
    };
    assert_eq!(localization.target, nemos::analysis::localize::Target::Spec);
    assert!(localization.bad.is_some());
    let sets = facts(&test, &localization);
    let pair = |a: &str, b: &str| vec![(a.to_string(), b.to_string())];
    for expected in [
        pair("int x = d[0];", "d[i] = v;"),
        pair("d[i] = v;", "int y = d[1];"),
        pair("int y = d[1];", "d[i] = v;"),
    ] {
        assert!(sets.contains(&expected), "{expected:?} in {sets:?}");
    }
    assert!(compare_with_reference(&spec_only).is_ok());
    for repair in localization.sets.iter().flat_map(|s| &s.repairs) {
        let fixed = common::load("fixed.litmus", &repair.source);
        let mut session =
            Session::new(&fixed.program, &fixed.events, &AnalysisOptions::default()).unwrap();
        let result = session
            .spec(nemos::analysis::spec::SpecMode::Linearizable)
            .unwrap();
        assert!(result.violation.is_none(), "{}", repair.source);
    }
    // No condition, no assertion, no spec: nothing to localize, a usage error.
    let nothing = common::load(
        "nothing",
        "C nothing\n{ x = 0; }\nP0 (int *x) { *x = 1; }\nP1 (int *x) { int r = *x; }\n",
    );
    let error = ask(&nothing, Query::Localize, &options).expect_err("nothing to localize");
    assert!(
        error
            .to_string()
            .contains("nothing for localize to localize"),
        "{error}"
    );
}

/// A ticket lock whose ticket is taken by a plain read and write, written with functions:
/// two threads can take one ticket (x ends at 1, or the second waits for good).
const TICKET_LOCK_FUNCTIONS: &str = "C ticket-lock-functions\n\
{ next = 0; serving = 0; x = 0; }\n\
int take(int *next, int *serving) {\n  int t = *next;\n  *next = t + 1;\n  while (*serving != t) ;\n  return t;\n}\n\
void release(int *serving, int t) {\n  *serving = t + 1;\n}\n\
P0 (int *next, int *serving, int *x) {\n  int t0 = take(next, serving);\n  int r0 = *x;\n  *x = r0 + 1;\n  release(serving, t0);\n}\n\
P1 (int *next, int *serving, int *x) {\n  int t1 = take(next, serving);\n  int r1 = *x;\n  *x = r1 + 1;\n  release(serving, t1);\n}\n\
forall (x = 2)\n";

/// Issue 38, item 3: accesses inside functions get fixes (before, every set of this lock
/// had "none of the candidates" while the inline version had the mutex fix): the ticket's
/// read and write locked inside `take`, which every call then runs; each fix checked
/// afresh, deadlocks included. And the report names the call of an ordering's access.
#[test]
fn accesses_in_functions_are_fixed_and_named_by_their_call() {
    let test = common::load("ticket-lock-functions", TICKET_LOCK_FUNCTIONS);
    let options = QueryOptions::new(common::under("sc").model, "sc");
    let answer = ask(&test, Query::Localize, &options).expect("answers");
    let Finding::Localize(localization) = answer.finding else {
        panic!("not a localization");
    };
    assert!(localization.bad.is_some());
    let mut fixes = 0;
    for repair in localization.sets.iter().flat_map(|s| &s.repairs) {
        let fixed = common::load("fixed.litmus", &repair.source);
        let mut session =
            Session::new(&fixed.program, &fixed.events, &AnalysisOptions::default()).unwrap();
        let result = session.check().unwrap();
        assert!(
            result.ok && result.deadlock.is_none(),
            "{:?}:\n{}",
            repair.kind,
            repair.source
        );
        fixes += 1;
    }
    assert!(
        fixes > 0,
        "no fix for the ticket lock written with functions"
    );
    let in_take = localization.sets.iter().flat_map(|s| &s.repairs).any(|r| {
        r.lines
            .iter()
            .any(|(_, line)| line.trim() == "lock(m); int t = *next;")
    });
    assert!(in_take, "the ticket's read and write locked inside take()");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pair-snapshot-spec.litmus");
    let text = std::fs::read_to_string(common::manifest_dir().join("specs/pair-snapshot.litmus"))
        .expect("readable");
    let at = text.rfind("exists").expect("a condition");
    std::fs::write(&path, &text[..at]).unwrap();
    let output = assert_cmd::Command::cargo_bin("nemos")
        .unwrap()
        .args(["localize", "--no-repairs"])
        .arg(&path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    // Four calls of write on one line: the call is named by its number and its arguments.
    assert!(
        stdout.contains("d[i] = v;  [in write, P0's call 2 of it at line 23: write(d, 1, 2)]"),
        "{stdout}"
    );
}

/// Either thread writes x only when it read 0 from the flag the other raises afterwards:
/// the outcome needs both writes to run.
const RUN_BOTH: &str = "C run-both\n{ g = 0; h = 0; x = 0; }\n\
P0 (int* g, int* h, int* x) {\n  int r0 = *g;\n  if (r0 == 0) { *x = 1; }\n  *h = 1;\n}\n\
P1 (int* g, int* h, int* x) {\n  int r1 = *h;\n  if (r1 == 0) { *x = 2; }\n  *g = 1;\n}\n\
exists (0:r0=0 /\\ 1:r1=0)\n";

/// Issue 38, item 10: a set forbidding both `A before B` and `B before A` means "do not
/// run both"; the answer says so for that set (and only for it), in text and JSON.
#[test]
fn a_set_with_both_orders_of_a_pair_is_labelled_do_not_run_both() {
    let test = common::load("run-both", RUN_BOTH);
    let options = QueryOptions::new(common::under("sc").model, "sc");
    let answer = ask(&test, Query::Localize, &options).expect("answers");
    let Finding::Localize(localization) = &answer.finding else {
        panic!("not a localization");
    };
    let labelled: Vec<usize> = (0..localization.sets.len())
        .filter(|&i| !localization.sets[i].both_orders().is_empty())
        .collect();
    assert_eq!(localization.sets.len(), 3);
    assert_eq!(labelled.len(), 1, "{:?}", localization.sets);
    let set = &localization.sets[labelled[0]];
    assert_eq!(set.orderings.len(), 2);
    assert_eq!(set.both_orders(), vec![(0, 1)]);
    assert_eq!(set.orderings[0].first, set.orderings[1].second);
    let report = nemos::report::localize::LocalizeReport {
        file: &test.program.source,
        model: "sc",
        program: &test.program,
        events: &test.events,
        localization,
        picture: None,
    };
    let text = nemos::report::Report::text(&report, nemos::report::Palette::PLAIN);
    assert_eq!(text.matches("\"do not run both\"").count(), 1, "{text}");
    let json = nemos::report::Report::json(&report);
    let flagged: Vec<&serde_json::Value> = json["sets"]
        .as_array()
        .expect("sets")
        .iter()
        .filter(|s| !s["do_not_run_both"].as_array().expect("a list").is_empty())
        .collect();
    assert_eq!(flagged.len(), 1);
}

/// Issue 38, item 10: a whole-program fix (infer's orders) is verified on one client only,
/// and it may change code no critical set names: on the Chase-Lev deque without its fence,
/// it removes the thief's fence (line 26) and relaxes its compare-exchange (line 14), and
/// the answer says both.
#[test]
fn a_whole_program_fix_says_it_is_verified_on_this_test_and_what_it_changes_elsewhere() {
    let output = assert_cmd::Command::cargo_bin("nemos")
        .unwrap()
        .args(["localize", "--model", "rc11"])
        .arg(common::manifest_dir().join("examples/chase-lev-deque-weak.litmus"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("Verified fixes of the whole program:"),
        "{stdout}"
    );
    assert!(stdout.contains("(verified on this test only"), "{stdout}");
    let outside = stdout
        .lines()
        .find(|l| l.contains("outside every critical set"))
        .unwrap_or_else(|| panic!("no line names the changes outside the sets: {stdout}"));
    for line in ["14", "26"] {
        assert!(
            outside.contains(line),
            "line {line} is outside every set: {outside}"
        );
    }
}
