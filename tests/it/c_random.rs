//! Random C programs against the reference explorer, as random litmus programs are
//! (`differential.rs`): each random program is rendered twice, as a C file with `main`
//! (globals, `atomic_*_explicit` calls with memory orders, fences, plain accesses, `if`s,
//! threads started by `pthread_create` and joined, and `main`'s `assert` over what the
//! threads leave in globals) and as its litmus twin (the same threads as `P0`, `P1`, ...,
//! the assertion's negation as an `exists` condition over their registers). The C file
//! goes through the system preprocessor and the C front end (`cfront`), the twin through
//! the litmus front end, so a mistake of the C front end's lowering shows as a
//! disagreement:
//! - under SC, `main`'s assertion fails exactly when the reference explorer (every
//!   interleaving of the twin's IR, sharing nothing with the encoding) reaches the
//!   condition's state;
//! - under SC and RC11, the C program has as many executions (`check --count`, GenMC's
//!   count) as its twin (herd's), and under RC11 its assertion fails exactly when the
//!   twin's condition is reachable.
//!
//! Half of the conditions are a state the reference reaches, so both verdicts are tried.

use std::collections::BTreeSet;

use nemos::analysis::{AnalysisOptions, Session};
use nemos::diagnostics::SourceFile;
use nemos::program::Program;
use proptest::prelude::*;

use crate::common;

const ATOMICS: [&str; 2] = ["x", "y"];
const PLAIN: &str = "a";
const REGS: usize = 2;

#[derive(Clone, Debug)]
enum Stmt {
    Store(usize, i32, &'static str),
    Load(usize, usize, &'static str),
    FetchAdd(usize, usize, &'static str),
    Exchange(usize, usize, i32, &'static str),
    Fence(&'static str),
    PlainStore(i32),
    PlainLoad(usize),
    If(usize, i32, Vec<Stmt>),
}

#[derive(Clone, Debug)]
pub(crate) struct Random {
    threads: Vec<Vec<Stmt>>,
    /// `(thread, register, value)`: the twin's `exists` condition, a conjunction.
    pub(crate) condition: Vec<(usize, usize, i32)>,
    /// Whether the condition is replaced by one of the states the reference reaches.
    reachable: bool,
    /// Which reachable state, modulo their number.
    pick: usize,
}

fn order(orders: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
    proptest::sample::select(orders)
}

const LOAD_ORDERS: &[&str] = &[
    "memory_order_relaxed",
    "memory_order_acquire",
    "memory_order_seq_cst",
];
const STORE_ORDERS: &[&str] = &[
    "memory_order_relaxed",
    "memory_order_release",
    "memory_order_seq_cst",
];
const RMW_ORDERS: &[&str] = &[
    "memory_order_relaxed",
    "memory_order_acquire",
    "memory_order_release",
    "memory_order_acq_rel",
    "memory_order_seq_cst",
];
const FENCE_ORDERS: &[&str] = &[
    "memory_order_acquire",
    "memory_order_release",
    "memory_order_acq_rel",
    "memory_order_seq_cst",
];

fn simple() -> impl Strategy<Value = Stmt> {
    let loc = 0..ATOMICS.len();
    let reg = 0..REGS;
    prop_oneof![
        3 => (loc.clone(), 1..3i32, order(STORE_ORDERS)).prop_map(|(l, v, o)| Stmt::Store(l, v, o)),
        3 => (reg.clone(), loc.clone(), order(LOAD_ORDERS)).prop_map(|(r, l, o)| Stmt::Load(r, l, o)),
        1 => (reg.clone(), loc.clone(), order(RMW_ORDERS)).prop_map(|(r, l, o)| Stmt::FetchAdd(r, l, o)),
        1 => (reg.clone(), loc, 1..3i32, order(RMW_ORDERS)).prop_map(|(r, l, v, o)| Stmt::Exchange(r, l, v, o)),
        2 => order(FENCE_ORDERS).prop_map(Stmt::Fence),
        1 => (1..3i32).prop_map(Stmt::PlainStore),
        1 => reg.prop_map(Stmt::PlainLoad),
    ]
}

fn stmt() -> impl Strategy<Value = Stmt> {
    prop_oneof![
        5 => simple(),
        1 => (0..REGS, 0..3i32, proptest::collection::vec(simple(), 1..3))
            .prop_map(|(r, v, body)| Stmt::If(r, v, body)),
    ]
}

pub(crate) fn random() -> impl Strategy<Value = Random> {
    (2..4usize)
        .prop_flat_map(|n| {
            (
                proptest::collection::vec(proptest::collection::vec(stmt(), 1..4), n),
                proptest::collection::vec((0..n, 0..REGS, 0..3i32), 1..3),
                any::<bool>(),
                any::<usize>(),
            )
        })
        .prop_map(|(threads, condition, reachable, pick)| Random {
            threads,
            condition,
            reachable,
            pick,
        })
}

/// One statement in C (`c`: `&x` names a global) or in the litmus dialect (`*x` through the
/// thread's parameter).
fn render_stmt(s: &Stmt, c: bool, indent: usize, out: &mut String) {
    let pad = "\t".repeat(indent);
    let at = |l: usize| {
        if c {
            format!("&{}", ATOMICS[l])
        } else {
            ATOMICS[l].to_string()
        }
    };
    let plain = if c {
        PLAIN.to_string()
    } else {
        format!("*{PLAIN}")
    };
    let line = match s {
        Stmt::Store(l, v, o) => format!("atomic_store_explicit({}, {v}, {o});", at(*l)),
        Stmt::Load(r, l, o) => format!("r{r} = atomic_load_explicit({}, {o});", at(*l)),
        Stmt::FetchAdd(r, l, o) => {
            format!("r{r} = atomic_fetch_add_explicit({}, 1, {o});", at(*l))
        }
        Stmt::Exchange(r, l, v, o) => {
            format!("r{r} = atomic_exchange_explicit({}, {v}, {o});", at(*l))
        }
        Stmt::Fence(o) => format!("atomic_thread_fence({o});"),
        Stmt::PlainStore(v) => format!("{plain} = {v};"),
        Stmt::PlainLoad(r) => format!("r{r} = {plain};"),
        Stmt::If(r, v, body) if c && *v == 1 => {
            // The same test as a `switch` with a `default` (C's front end writes it back as
            // an `if` chain): compared with the litmus twin's `if` like every statement.
            out.push_str(&format!(
                "{pad}switch (r{r}) {{\n{pad}default:\n{pad}\tbreak;\n{pad}case {v}:\n"
            ));
            for s in body {
                render_stmt(s, c, indent + 1, out);
            }
            out.push_str(&format!("{pad}}}\n"));
            return;
        }
        Stmt::If(r, v, body) => {
            out.push_str(&format!("{pad}if (r{r} == {v}) {{\n"));
            for s in body {
                render_stmt(s, c, indent + 1, out);
            }
            out.push_str(&format!("{pad}}}\n"));
            return;
        }
    };
    out.push_str(&format!("{pad}{line}\n"));
}

fn registers(out: &mut String) {
    for r in 0..REGS {
        out.push_str(&format!("\tint r{r} = 0;\n"));
    }
}

/// The C program: thread `k` is `t{k}`, leaving its registers in `out{k}_{r}`; `main`
/// starts and joins them all and asserts that the condition does not hold.
fn render_c(test: &Random, condition: &[(usize, usize, i32)]) -> String {
    let mut out = String::from(
        "#include <assert.h>\n#include <pthread.h>\n#include <stdatomic.h>\n\natomic_int x, y;\nint a;\n",
    );
    for k in 0..test.threads.len() {
        for r in 0..REGS {
            out.push_str(&format!("int out{k}_{r};\n"));
        }
    }
    for (k, body) in test.threads.iter().enumerate() {
        out.push_str(&format!("\nvoid *t{k}(void *arg)\n{{\n"));
        registers(&mut out);
        for s in body {
            render_stmt(s, true, 1, &mut out);
        }
        for r in 0..REGS {
            out.push_str(&format!("\tout{k}_{r} = r{r};\n"));
        }
        out.push_str("\treturn NULL;\n}\n");
    }
    // `main` stores the plain global's initial value again before its creates, so that the
    // threads' reads of it may be forwarded from `main`'s store (same executions, same
    // count: the store is before every other access in `hb`, as the initial write is).
    out.push_str("\nint main()\n{\n\tpthread_t h[4];\n\ta = 0;\n");
    for k in 0..test.threads.len() {
        out.push_str(&format!("\tpthread_create(&h[{k}], NULL, t{k}, NULL);\n"));
    }
    for k in 0..test.threads.len() {
        out.push_str(&format!("\tpthread_join(h[{k}], NULL);\n"));
    }
    let conjuncts: Vec<String> = condition
        .iter()
        .map(|(k, r, v)| format!("out{k}_{r} == {v}"))
        .collect();
    out.push_str(&format!("\tassert(!({}));\n", conjuncts.join(" && ")));
    out.push_str("\treturn 0;\n}\n");
    out
}

/// The litmus twin, with `exists` of the condition.
pub(crate) fn render_litmus(test: &Random, condition: &[(usize, usize, i32)]) -> String {
    let mut out = String::from("C random\n{ x = 0; y = 0; a = 0; }\n");
    for (k, body) in test.threads.iter().enumerate() {
        out.push_str(&format!(
            "\nP{k} (atomic_int *x, atomic_int *y, int *a) {{\n"
        ));
        registers(&mut out);
        for s in body {
            render_stmt(s, false, 1, &mut out);
        }
        out.push_str("}\n");
    }
    let conjuncts: Vec<String> = condition
        .iter()
        .map(|(k, r, v)| format!("{k}:r{r} = {v}"))
        .collect();
    out.push_str(&format!("\nexists ({})\n", conjuncts.join(" /\\ ")));
    out
}

fn lower_litmus(text: &str) -> Program {
    let file = SourceFile::new("random.litmus", text);
    nemos::load::lower(&file).unwrap_or_else(|e| panic!("{}\n{text}", e.short()))
}

fn load_c(text: &str, forward_stores: bool) -> nemos::Test {
    let file = SourceFile::new("random.c", text);
    let options = nemos::LoadOptions {
        preprocessor: Some(crate::c_programs::reference_preprocessor(&[])),
        forward_stores,
        ..nemos::LoadOptions::default()
    };
    nemos::load(&file, &options).unwrap_or_else(|e| panic!("{e:?}\n{text}"))
}

/// Whether an assertion can fail under `options`.
fn fails(program: &Program, events: &nemos::events::Events, options: &AnalysisOptions) -> bool {
    let mut session = Session::new(program, events, options).expect("a session");
    session.assertion_failure().expect("solved").is_some()
}

/// The executions that satisfy the condition and those that do not, as herd counts them.
fn counts(
    program: &Program,
    events: &nemos::events::Events,
    options: &AnalysisOptions,
) -> (u64, u64) {
    let mut session = Session::new(program, events, options).expect("a session");
    session.count_executions().expect("counted")
}

fn compare(test: &Random) -> Result<(), String> {
    // The reference's final states over every register the condition may name.
    let all: Vec<(usize, usize, i32)> = (0..test.threads.len())
        .flat_map(|k| (0..REGS).map(move |r| (k, r, 0)))
        .collect();
    let probe = lower_litmus(&render_litmus(test, &all));
    let spins = crate::differential::spin_loops(&probe);
    let states: BTreeSet<Vec<(String, i32)>> =
        crate::reference::explore_with_spins(&probe, 2, &spins)
            .outcomes
            .iter()
            .map(|state| {
                state
                    .iter()
                    .map(|&(o, v)| (probe.observable_name(o), v))
                    .collect()
            })
            .collect();
    let condition: Vec<(usize, usize, i32)> = if test.reachable && !states.is_empty() {
        let state = states
            .iter()
            .nth(test.pick % states.len())
            .expect("a state");
        let keep: BTreeSet<(usize, usize)> =
            test.condition.iter().map(|&(k, r, _)| (k, r)).collect();
        keep.iter()
            .map(|&(k, r)| {
                let name = format!("{k}:r{r}");
                let value = state
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map_or(0, |(_, v)| *v);
                (k, r, value)
            })
            .collect()
    } else {
        test.condition.clone()
    };
    let satisfies = |state: &Vec<(String, i32)>| {
        condition.iter().all(|(k, r, v)| {
            let name = format!("{k}:r{r}");
            state.iter().any(|(n, x)| *n == name && x == v)
        })
    };
    let reference_reaches = states.iter().any(satisfies);

    let litmus_text = render_litmus(test, &condition);
    let c_text = render_c(test, &condition);
    let litmus = lower_litmus(&litmus_text);
    let litmus_events = common::unrolled(&litmus, 2);
    let mut problems = Vec::new();
    // Unrolled with and without store forwarding (`events/unroll/forward.rs`), which holds
    // under SC and RC11 as shipped: each must agree with the twin and the reference.
    for (forward, model) in [(false, "sc"), (false, "rc11"), (true, "sc"), (true, "rc11")] {
        let c = load_c(&c_text, forward);
        let model_named = model;
        let model = if forward {
            format!("{model} (forwarded)")
        } else {
            model.to_string()
        };
        let options = common::under(model_named);
        let (positive, negative) = counts(&litmus, &litmus_events, &options);
        let (litmus_reaches, litmus_count) = (positive > 0, positive + negative);
        let c_fails = fails(&c.program, &c.events, &options);
        let (c_positive, c_negative) = counts(&c.program, &c.events, &options);
        let c_count = c_positive + c_negative;
        if c_fails != litmus_reaches {
            problems.push(format!(
                "{model}: the C program's assertion fails: {c_fails}; the twin's condition reachable: {litmus_reaches}"
            ));
        }
        if model_named == "sc" && c_fails != reference_reaches {
            problems.push(format!(
                "sc: the C program's assertion fails: {c_fails}; the reference reaches the condition: {reference_reaches}"
            ));
        }
        if c_count != litmus_count {
            problems.push(format!(
                "{model}: the C program has {c_count} executions, its twin {litmus_count}"
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}\n--- C:\n{c_text}--- litmus twin:\n{litmus_text}",
            problems.join("\n")
        ))
    }
}

proptest! {
    #![proptest_config(common::proptest_config(48, "tests/proptest-regressions/c_random.txt"))]

    #[test]
    fn random_c_programs_match_their_litmus_twins_and_the_reference(test in random()) {
        if let Err(e) = compare(&test) {
            return Err(TestCaseError::fail(e));
        }
    }
}

/// A fixed program of the generator's kind whose answers are known, so that the
/// comparison above is seen to decide something: message passing with a relaxed flag,
/// whose condition (flag seen, data not) is reachable under RC11 only.
#[test]
fn the_comparison_tells_models_apart() {
    let test = Random {
        threads: vec![
            vec![
                Stmt::Store(0, 1, "memory_order_relaxed"),
                Stmt::Store(1, 1, "memory_order_relaxed"),
            ],
            vec![
                Stmt::Load(0, 1, "memory_order_relaxed"),
                Stmt::Load(1, 0, "memory_order_relaxed"),
            ],
        ],
        condition: vec![(1, 0, 1), (1, 1, 0)],
        reachable: false,
        pick: 0,
    };
    let condition = test.condition.clone();
    let c = load_c(&render_c(&test, &condition), false);
    for (model, fails_there, executions) in [("sc", false, 3), ("rc11", true, 4)] {
        let options = common::under(model);
        let (positive, negative) = counts(&c.program, &c.events, &options);
        assert_eq!(
            (fails(&c.program, &c.events, &options), positive + negative),
            (fails_there, executions),
            "{model}"
        );
    }
    compare(&test).expect("the C program and its twin agree");
    // The same with a release fence before the flag and an acquire fence after it: the
    // fences synchronise, and the condition is unreachable under RC11 too (3 executions).
    let mut fenced = test.clone();
    fenced.threads[0].insert(1, Stmt::Fence("memory_order_release"));
    fenced.threads[1].insert(1, Stmt::Fence("memory_order_acquire"));
    let c = load_c(&render_c(&fenced, &condition), false);
    for model in ["sc", "rc11"] {
        let options = common::under(model);
        let (positive, negative) = counts(&c.program, &c.events, &options);
        assert_eq!(
            (fails(&c.program, &c.events, &options), positive + negative),
            (false, 3),
            "fenced, {model}"
        );
    }
    compare(&fenced).expect("the fenced C program and its twin agree");
}

/// A random thread started two or three times in a loop with `(void *)(long)i` (which it
/// does not read), beside another random thread started once when there are two copies; `main` joins them all and
/// asserts over the globals. The copies form a class (`program::spawn_symmetry`), and one
/// execution per renaming of them keeps every final state of `x`, `y` and `a` (against the
/// reference explorer under SC, and against the encoding without the constraints under
/// RC11) and the assertion's verdict.
fn render_copies(test: &Random, copies: usize) -> String {
    let mut out = String::from(
        "#include <assert.h>\n#include <pthread.h>\n#include <stdatomic.h>\n\natomic_int x, y;\nint a;\n",
    );
    let others = &test.threads[1..test.threads.len().min(4 - copies)];
    for (k, body) in std::iter::once(&test.threads[0]).chain(others).enumerate() {
        out.push_str(&format!("\nvoid *t{k}(void *arg)\n{{\n"));
        registers(&mut out);
        for s in body {
            render_stmt(s, true, 1, &mut out);
        }
        out.push_str("\treturn NULL;\n}\n");
    }
    out.push_str("\nint main()\n{\n\tpthread_t h[3], g[4];\n");
    out.push_str(&format!(
        "\tfor (int i = 0; i < {copies}; i++)\n\t\tpthread_create(&h[i], NULL, t0, (void *)(long)i);\n"
    ));
    for k in 1..=others.len() {
        out.push_str(&format!("\tpthread_create(&g[{k}], NULL, t{k}, NULL);\n"));
    }
    out.push_str(&format!(
        "\tfor (int i = 0; i < {copies}; i++)\n\t\tpthread_join(h[i], NULL);\n"
    ));
    for k in 1..=others.len() {
        out.push_str(&format!("\tpthread_join(g[{k}], NULL);\n"));
    }
    let (v0, v1) = (test.condition[0].2, test.pick as i32 % 3);
    out.push_str(&format!(
        "\tassert(!(x == {v0} && y == {v1}));\n\treturn 0;\n}}\n"
    ));
    out
}

/// The statements of a thread, those inside `if`s included.
fn steps(body: &[Stmt]) -> usize {
    body.iter()
        .map(|s| match s {
            Stmt::If(_, _, inner) => 1 + steps(inner),
            _ => 1,
        })
        .sum()
}

proptest! {
    #![proptest_config(common::proptest_config(32, "tests/proptest-regressions/c_random_symmetry.txt"))]

    #[test]
    fn started_copies_keep_every_outcome_with_symmetry(test in random(), more in any::<bool>()) {
        let copies = if more { 3 } else { 2 };
        prop_assume!(steps(&test.threads[0]) <= 5 - copies);
        let text = render_copies(&test, copies);
        let mut c = load_c(&text, false);
        let classes = nemos::program::spawn_symmetry::interchangeable_spawned_threads(&c.program);
        prop_assert!(
            // A thread started once next to them may be the same program, and joins them.
            classes.iter().any(|class| (1..=copies).all(|t| class.contains(&t))),
            "{classes:?}\n{text}"
        );
        c.program.observed = ["x", "y", "a"]
            .iter()
            .filter_map(|name| c.program.locations.iter().position(|l| l.name == *name))
            .map(nemos::program::Observable::Loc)
            .collect();
        let spins = crate::differential::spin_loops(&c.program);
        let r = crate::reference::explore_within(&c.program, 2, &spins, 200_000);
        prop_assume!(!r.gave_up);
        let run = |model: &str, symmetry: bool| {
            let options = AnalysisOptions { symmetry, ..common::under(model) };
            let mut session = Session::new(&c.program, &c.events, &options).expect("a session");
            let states = common::final_states(&mut session);
            let fails = session.assertion_failure().expect("solved").is_some();
            (states, fails)
        };
        let (states, fails) = run("sc", true);
        prop_assert_eq!(&states, &r.outcomes, "{}", text);
        prop_assert_eq!(fails, r.assertion_failure, "{}", text);
        prop_assert_eq!(run("rc11", true), run("rc11", false), "{}", text);
    }
}
