//! Counters (`events::counting`, `encode::counting`): the value ranges of counters and the
//! lemmas tying a locked counter's final value to the sum of its increments must lose no
//! answer (random counter programs against the reference under SC, and against the
//! encoding without the lemmas under RC11 and C11), and must keep applying to the counter
//! families of the benchmarks, so that they cannot stop firing unnoticed.

use crate::common::{self, States};
use crate::reference;

use crate::families;

use nemos::analysis::{AnalysisOptions, Session};
use nemos::diagnostics::SourceFile;
use nemos::program::{Observable, Program};
use proptest::prelude::*;
use proptest::test_runner::Config;

const UNROLL: u32 = 2;

/// One step of a thread of a random counter program.
#[derive(Clone, Debug)]
enum Step {
    /// `lock(l); r = *c; *c = r + k; unlock(l);`
    Locked(i32),
    /// `r = *c; *c = r + k;`
    Unlocked(i32),
    /// The locked increment under `if (*x == 1)`.
    Guarded(i32),
    /// `*x = 1;`
    SetX,
    /// `r = *c;` outside any lock.
    Peek,
    /// `*c = k;` (a reset: the counter is then no locked counter).
    Reset(i32),
    /// A counted loop of two locked increments.
    Loop(i32),
    /// A counted loop of two unlocked increments (the shape of `families::unlocked_counter`).
    UnlockedLoop(i32),
    /// `lock(l); g = *x; r = a[g]; a[g] = r + k; unlock(l);`: an increment of the cell of
    /// `a` a value read from memory selects, split by the unroller into one case per cell,
    /// each cell's write `(g == 0 ? r_0 : r_1) + k` under its case.
    IndexedLocked(i32),
    /// The same without the lock.
    IndexedUnlocked(i32),
}

fn step(unlocked: bool) -> impl Strategy<Value = Step> {
    let k = 1..=2i32;
    let mut options = vec![
        (4, k.clone().prop_map(Step::Locked).boxed()),
        (2, k.clone().prop_map(Step::Guarded).boxed()),
        (1, Just(Step::SetX).boxed()),
        (1, Just(Step::Peek).boxed()),
        (1, k.clone().prop_map(Step::Loop).boxed()),
        (2, k.clone().prop_map(Step::IndexedLocked).boxed()),
    ];
    if unlocked {
        options.push((3, k.clone().prop_map(Step::Unlocked).boxed()));
        options.push((2, k.clone().prop_map(Step::UnlockedLoop).boxed()));
        options.push((1, (0..=1i32).prop_map(Step::Reset).boxed()));
        options.push((2, k.clone().prop_map(Step::IndexedUnlocked).boxed()));
    }
    prop::strategy::Union::new_weighted(options)
}

/// Two or three threads of one to three steps, at most five steps in all.
fn program(unlocked: bool) -> impl Strategy<Value = Vec<Vec<Step>>> {
    prop::collection::vec(prop::collection::vec(step(unlocked), 1..=3), 2..=3)
        .prop_filter("small enough for brute force", |t| {
            t.iter().map(Vec::len).sum::<usize>() <= 5
        })
}

/// The program's text; with `total`, thread 0 ends with an unprotected read `p` of the
/// counter and the condition is `exists (0:p=total)`: when the other threads' increments
/// make up the total, only schedules that run thread 0 after them meet it, which the
/// thread order does not.
fn render(threads: &[Vec<Step>], total: Option<i32>) -> String {
    let mut text = String::from("C counter\n{ c = 0; l = 0; x = 0; int a[2] = {0, 0}; }\n\n");
    for (t, steps) in threads.iter().enumerate() {
        text.push_str(&format!("P{t} (int* c, int* l, int* x, int* a) {{\n"));
        for i in 0..steps.len() {
            text.push_str(&format!("  int r{i} = 0;\n  int g{i} = 0;\n"));
        }
        for (i, s) in steps.iter().enumerate() {
            let inc = |k: i32| format!("lock(l); r{i} = *c; *c = r{i} + {k}; unlock(l);");
            let line = match s {
                Step::Locked(k) => inc(*k),
                Step::Unlocked(k) => format!("r{i} = *c; *c = r{i} + {k};"),
                Step::Guarded(k) => format!("g{i} = *x; if (g{i} == 1) {{ {} }}", inc(*k)),
                Step::SetX => "*x = 1;".to_string(),
                Step::Peek => format!("r{i} = *c;"),
                Step::Reset(k) => format!("*c = {k};"),
                Step::Loop(k) => format!("for (int i{i} = 0; i{i} < 2; i{i}++) {{ {} }}", inc(*k)),
                Step::UnlockedLoop(k) => format!(
                    "for (int i{i} = 0; i{i} < 2; i{i}++) {{ r{i} = *c; *c = r{i} + {k}; }}"
                ),
                Step::IndexedLocked(k) => {
                    format!("lock(l); g{i} = *x; r{i} = a[g{i}]; a[g{i}] = r{i} + {k}; unlock(l);")
                }
                Step::IndexedUnlocked(k) => {
                    format!("g{i} = *x; r{i} = a[g{i}]; a[g{i}] = r{i} + {k};")
                }
            };
            text.push_str(&format!("  {line}\n"));
        }
        if t == 0 && total.is_some() {
            text.push_str("  int p = *c;\n");
        }
        text.push_str("}\n\n");
    }
    match total {
        Some(k) => text.push_str(&format!("exists (0:p={k})\n")),
        None => text.push_str("exists (c=2 /\\ 0:r0=0)\n"),
    }
    text
}

fn lower(text: &str) -> Program {
    let file = SourceFile::new("counter.litmus".to_string(), text.to_string());
    nemos::load::lower(&file).unwrap_or_else(|e| panic!("{}\n{text}", e.short()))
}

/// Final states and the `check` verdict, with or without the counting lemmas, and how many
/// lemmas the session added.
fn answers(program: &Program, model: &str, counting: bool) -> (States, bool, bool, usize) {
    answers_with(program, model, counting, true)
}

/// [`answers`], and `check` with or without its sequential guess.
fn answers_with(
    program: &Program,
    model: &str,
    counting: bool,
    sequential_guess: bool,
) -> (States, bool, bool, usize) {
    let events = common::unrolled(program, UNROLL);
    let options = AnalysisOptions {
        counting,
        sequential_guess,
        ..common::under(model)
    };
    let mut session = Session::new(program, &events, &options).unwrap();
    let states = common::final_states(&mut session);
    let lemmas = session.counting_lemmas;
    let mut session = Session::new(program, &events, &options).unwrap();
    let check = session.check().unwrap();
    (
        states,
        check.positive.is_some(),
        check.negative.is_some(),
        lemmas,
    )
}

/// Under SC, with the counting lemmas: the reference's final states, and a state meeting
/// the condition (`holds`) and one not meeting it exactly when the reference has them.
fn sc_answers_are_the_references(
    program: &Program,
    reference: &reference::Reference,
    text: &str,
    holds: impl Fn(&Vec<(Observable, i32)>) -> bool,
) -> Result<(), TestCaseError> {
    let (states, positive, negative, _) = answers(program, "sc", true);
    prop_assert_eq!(&states, &reference.outcomes, "{}", text);
    prop_assert_eq!(positive, reference.outcomes.iter().any(&holds), "{}", text);
    prop_assert_eq!(
        negative,
        reference.outcomes.iter().any(|s| !holds(s)),
        "{}",
        text
    );
    Ok(())
}

/// Under `model`, the same final states and verdicts with the counting lemmas as without
/// them; the answers with them.
fn lemmas_change_no_answer(
    program: &Program,
    model: &str,
    text: &str,
) -> Result<(States, bool, bool, usize), TestCaseError> {
    let (with, without) = (
        answers(program, model, true),
        answers(program, model, false),
    );
    prop_assert_eq!(
        (&with.0, with.1, with.2),
        (&without.0, without.1, without.2),
        "{} under {}",
        text,
        model
    );
    Ok(with)
}

fn config(cases: u32) -> Config {
    common::proptest_config(cases, "tests/proptest-regressions/counting.txt")
}

proptest! {
    #![proptest_config(config(160))]

    /// Locked increments (some under a branch, some in a loop), reads outside the lock
    /// and a flag: the lemma applies; with `unlocked`, unprotected increments and resets
    /// too, where only the value range does. With `total`, the condition is thread 0's
    /// final unprotected read equal to it, which often only a serial schedule other than
    /// the thread order meets (`check`'s sequential guess).
    #[test]
    fn counting_keeps_every_outcome(
        threads in any::<bool>().prop_flat_map(program),
        total in prop::option::of(2..=4i32),
    ) {
        let text = render(&threads, total);
        let program = lower(&text);
        let r = reference::explore_within(&program, UNROLL, &[], 300_000);
        prop_assume!(!r.gave_up);
        let holds = |s: &Vec<(Observable, i32)>| {
            s.iter().all(|&(o, v)| match o {
                Observable::Loc(_) => v == 2,
                Observable::Reg { .. } => v == total.unwrap_or(0),
            })
        };
        sc_answers_are_the_references(&program, &r, &text, holds)?;
        for model in ["rc11", "c11"] {
            let with = lemmas_change_no_answer(&program, model, &text)?;
            // `check` without its sequential guess: the same verdict.
            let unguessed = answers_with(&program, model, true, false);
            prop_assert_eq!((with.1, with.2), (unguessed.1, unguessed.2), "{} under {}", text, model);
        }
    }
}

/// The locked counter family (`families::locked_counter`) under a model whose checks
/// order critical sections: one lemma, tying `c`'s final value; none under TSO, whose
/// checks the premise does not recognise, nor with `--skip` of the check it rests on
/// (the lemma is added under that check's selector, and is then never assumed: the
/// answer must still be right).
#[test]
fn the_lemma_fires_on_the_locked_counter() {
    let (program, events) = families::load(&families::locked_counter(4, 3), 3);
    for model in ["sc", "rc11", "c11"] {
        let mut session = Session::new(&program, &events, &common::under(model)).unwrap();
        let result = session.check().unwrap();
        assert!(result.ok && result.negative.is_none(), "{model}");
        assert_eq!(session.counting_lemmas, 1, "{model}");
        // The lemma covers the range: the writes are left as they were.
        assert_eq!(session.encoding.counter_write_bounds, 0, "{model}");
    }
    let (small, small_events) = families::load(&families::locked_counter(2, 2), 2);
    let mut session = Session::new(&small, &small_events, &common::under("tso")).unwrap();
    assert!(session.check().unwrap().negative.is_none());
    assert_eq!(session.counting_lemmas, 0);
    assert!(session.encoding.counter_write_bounds > 0);
    let counter = &events.bounds.counters[0];
    assert_eq!(counter.range, (0, 12));
    let skipping = AnalysisOptions {
        skip: vec!["sc".to_string()],
        ..common::under("sc")
    };
    let mut session = Session::new(&program, &events, &skipping).unwrap();
    let result = session.check().unwrap();
    assert_eq!(session.counting_lemmas, 1);
    // Without `sc`'s acyclicity, lost updates end below 12.
    assert!(result.negative.is_some());
}

/// `check` looks for its witnesses first among the schedules that run the threads one
/// after the other, in an order of the threads the solver chooses
/// (`Session::sequential_guess`). On the locked counter (3 threads of 3 increments; thread
/// 0 ends with an unprotected read `s`), under SC and RC11: the witness of `exists (c=9)`
/// runs the critical sections thread by thread, so `c`'s coherence order is each thread's
/// increments in program order, one thread after the other; `exists (0:s=9)` needs thread
/// 0 to run last, which the thread order does not, and the guess finds it all the same
/// (every witness `check` finds comes from the guess), with `c`'s writes grouped likewise
/// (and thread 0's last, under SC). The search without the guess gives the same verdicts.
#[test]
fn the_locked_counter_is_witnessed_by_a_serial_schedule() {
    let text = families::locked_counter(3, 3);
    for condition in ["exists (c=9)", "exists (0:s=9)"] {
        let text = text.replace("exists (c=9)", condition);
        let (program, events) = families::load(&text, 3);
        let c = events.bounds.counters[0].location;
        for model in ["sc", "rc11"] {
            let mut session = Session::new(&program, &events, &common::under(model)).unwrap();
            let result = session.check().unwrap();
            let witness = result.positive.expect("the condition is reached");
            // The verdict's witnesses came from the guess (`c=9` has no negative one;
            // RC11's `race` flag may add one more).
            let guessed = if condition.contains("s=") { 2 } else { 1 };
            match model {
                "sc" => assert_eq!(session.schedule_guesses, guessed, "{condition}"),
                _ => assert!(
                    session.schedule_guesses >= guessed,
                    "{condition} under {model}"
                ),
            }
            let places: Vec<(usize, usize)> = witness.co[c]
                .iter()
                .filter_map(|&w| Some((events.events[w].thread?, events.events[w].position)))
                .collect();
            assert_eq!(places.len(), 9, "{model}");
            let threads: Vec<usize> = places.iter().map(|p| p.0).collect();
            let mut runs = threads.clone();
            runs.dedup();
            assert_eq!(runs.len(), 3, "{condition} under {model}: {places:?}");
            assert!(
                places
                    .windows(2)
                    .all(|p| p[0].0 != p[1].0 || p[0].1 < p[1].1),
                "{condition} under {model}: {places:?}"
            );
            // Under SC the read sees the coherence-last write; under RC11 the schedule
            // fixes only the model's orders, and the plain read may see a write after it.
            if condition.contains("s=") && model == "sc" {
                assert_eq!(threads.last(), Some(&0), "{places:?}");
            }
            let unguessed = AnalysisOptions {
                sequential_guess: false,
                ..common::under(model)
            };
            let mut session = Session::new(&program, &events, &unguessed).unwrap();
            let without = session.check().unwrap();
            assert_eq!(
                (without.ok, without.observation),
                (result.ok, result.observation),
                "{condition} under {model}"
            );
            assert_eq!(session.schedule_guesses, 0);
        }
    }
}

/// A condition no serial schedule meets is found by the search after the guess fails:
/// on 2 threads of 2 locked increments, thread 1's last read `r` is 1 or 3 when the
/// threads run one after the other, and 2 only when their sections interleave. Under SC
/// (no flags), the guess finds the negation's witness and not the condition's: a guess
/// that tied nothing would find both, one that contradicted program order neither.
#[test]
fn an_interleaved_schedule_is_left_to_the_search() {
    let text = families::locked_counter(2, 2).replace("exists (c=4)", "exists (1:r=2)");
    let (program, events) = families::load(&text, 2);
    let mut session = Session::new(&program, &events, &common::under("sc")).unwrap();
    let result = session.check().unwrap();
    assert!(result.ok, "1:r=2 is reachable");
    assert!(result.negative.is_some());
    assert_eq!(session.schedule_guesses, 1);
    let witness = result.positive.expect("1:r=2 is reached");
    let c = events.bounds.counters[0].location;
    let mut threads: Vec<usize> = (witness.co[c].iter())
        .filter_map(|&w| events.events[w].thread)
        .collect();
    threads.dedup();
    assert!(threads.len() > 2, "interleaved: {threads:?}");
}

/// The unlocked counter family: no lemma (no lock), but the counter's reads take values
/// in `0..=T*K`, one-hot, instead of 32-bit vectors, and each write `a + 1` is denied the
/// one value its term has past the range (`T*K + 1`), without which the last query of
/// `outcomes` (no final value left but 0, 1 and 13) ran for seconds; the identical threads
/// form one class of interchangeable threads (the condition names only `c`).
#[test]
fn unlocked_counters_get_a_value_range() {
    let (program, events) = families::load(&families::unlocked_counter(4, 3), 3);
    let counters = &events.bounds.counters;
    assert_eq!(counters.len(), 1);
    assert_eq!(counters[0].range, (0, 12));
    for read in events.reads() {
        let t = read.value.expect("a read has a value");
        let values = events.bounds.values[t].as_ref().expect("bounded");
        assert!(values.iter().all(|v| (0..=12).contains(v)), "{values:?}");
    }
    assert_eq!(
        nemos::program::symmetry::interchangeable_threads(&program),
        vec![vec![0, 1, 2, 3]]
    );
    let mut session = Session::new(&program, &events, &common::under("sc")).unwrap();
    let states = session.outcomes().unwrap();
    let finals: Vec<i32> = states.iter().map(|s| s.values[0].1).collect();
    assert_eq!(finals, (2..=12).collect::<Vec<_>>());
    assert_eq!(session.counting_lemmas, 0);
    assert_eq!(session.encoding.counter_write_bounds, 12);
    let without = AnalysisOptions {
        counting: false,
        ..common::under("sc")
    };
    let (program, events) = families::load(&families::unlocked_counter(3, 2), 2);
    let mut session = Session::new(&program, &events, &without).unwrap();
    let finals: Vec<i32> = (session.outcomes().unwrap().iter())
        .map(|s| s.values[0].1)
        .collect();
    assert_eq!(finals, (2..=6).collect::<Vec<_>>());
    assert_eq!(session.encoding.counter_write_bounds, 0);
}

/// Issue 40: a condition only an interleaved schedule meets. On the locked counter (4
/// threads of 10 increments), P0's last read `r` inside its section is 9 plus the other
/// threads' increments before that section: `exists (0:r=20)` (11 of the 30 before it)
/// was not decided in 300 s. The read lemmas (`encode::counting::add_read_lemmas`) make
/// each of the 40 reads inside a section a count over the lock order, and the order
/// lemmas state that order eagerly; the reachable values (9 to 39) and the unreachable
/// ones (8, 40, 41) are all decided, under SC and RC11. Whether an execution reaches
/// the condition is checked by the witness validator on every witness found.
#[test]
fn a_read_among_locked_sections_is_counted_off_the_lock_order() {
    let text = families::locked_counter(4, 10);
    let cases = [
        ("0:r=20", true, "sc"),
        ("0:r=10", true, "sc"),
        ("0:r=30", true, "sc"),
        ("0:r=8", false, "sc"),
        ("0:r=40", false, "sc"),
        ("0:r=41", false, "sc"),
        ("0:r=20", true, "rc11"),
        ("0:r=40", false, "rc11"),
    ];
    for (condition, reachable, model) in cases {
        let text = text.replace("exists (c=40)", &format!("exists ({condition})"));
        let (program, events) = families::load(&text, 10);
        let mut session = Session::new(&program, &events, &common::under(model)).unwrap();
        let result = session.check().unwrap();
        assert_eq!(
            result.positive.is_some(),
            reachable,
            "{condition} under {model}"
        );
        assert!(result.negative.is_some(), "{condition} under {model}");
        assert_eq!(session.read_lemmas, 40, "{condition} under {model}");
        assert!(session.order_lemmas > 0, "{condition} under {model}");
    }
    // A condition on the final value alone ties no read; TSO's checks are not a premise.
    let (program, events) = families::load(&families::locked_counter(4, 3), 3);
    let mut session = Session::new(&program, &events, &common::under("sc")).unwrap();
    session.check().unwrap();
    assert_eq!(session.read_lemmas, 0);
    let text = families::locked_counter(2, 2).replace("exists (c=4)", "exists (1:r=2)");
    let (program, events) = families::load(&text, 2);
    let mut session = Session::new(&program, &events, &common::under("tso")).unwrap();
    assert!(session.check().unwrap().positive.is_some());
    assert_eq!(session.read_lemmas, 0);
}

proptest! {
    #![proptest_config(config(120))]

    /// The read lemmas and order lemmas lose no answer: random locked counter programs
    /// (increments under a branch or in a loop, unprotected reads, a flag) with a
    /// condition on thread 1's first register (a read inside a section when its first
    /// step is a locked increment), against the reference under SC and against the
    /// encoding without any counting lemma under RC11 and C11.
    #[test]
    fn read_lemmas_keep_every_verdict(
        threads in program(false),
        k in 0..=4i32,
    ) {
        let text = render(&threads, None)
            .replace("exists (c=2 /\\ 0:r0=0)", &format!("exists (1:r0={k})"));
        let program = lower(&text);
        let r = reference::explore_within(&program, UNROLL, &[], 300_000);
        prop_assume!(!r.gave_up);
        let holds = |s: &Vec<(Observable, i32)>| s.iter().all(|&(_, v)| v == k);
        sc_answers_are_the_references(&program, &r, &text, holds)?;
        for model in ["rc11", "c11"] {
            lemmas_change_no_answer(&program, model, &text)?;
        }
    }
}

/// An increment through a computed index (`a[g] = a[g] + 1`) is a counter of each cell it
/// may reach: each cell's write, `(g == 0 ? r_0 : r_1) + 1` under the case `g == k`, adds 1
/// to the value its case read. So the proptest above exercises the shape.
#[test]
fn an_increment_through_a_computed_index_is_a_counter_of_each_cell() {
    let text = render(
        &[
            vec![Step::IndexedUnlocked(1), Step::SetX],
            vec![Step::IndexedUnlocked(2)],
        ],
        None,
    );
    let program = lower(&text);
    let events = common::unrolled(&program, UNROLL);
    let mut counted: Vec<(String, (i32, i32))> = events
        .bounds
        .counters
        .iter()
        .map(|c| (program.locations[c.location].name.clone(), c.range))
        .collect();
    counted.sort();
    assert_eq!(
        counted,
        [("a[0]".to_string(), (0, 3)), ("a[1]".to_string(), (0, 3))],
        "{text}"
    );
}

/// One step of a thread of a random program that only decrements its counter.
#[derive(Clone, Debug)]
enum Down {
    /// `r = *c; *c = r - k;`
    Sub(i32),
    /// `r = *c; *c = r + -k;`
    AddNegative(i32),
    /// `r = *c;`
    Peek,
    /// `*c = k;`
    Reset(i32),
}

fn decrementing(threads: &[Vec<Down>]) -> String {
    let mut text = String::from("C down\n{ c = 3; }\n\n");
    for (t, steps) in threads.iter().enumerate() {
        text.push_str(&format!("P{t} (int* c) {{\n"));
        for (i, s) in steps.iter().enumerate() {
            let line = match s {
                Down::Sub(k) => format!("int r{i} = *c; *c = r{i} - {k};"),
                Down::AddNegative(k) => format!("int r{i} = *c; *c = r{i} + -{k};"),
                Down::Peek => format!("int r{i} = *c;"),
                Down::Reset(k) => format!("int r{i} = 0; *c = {k};"),
            };
            text.push_str(&format!("  {line}\n"));
        }
        text.push_str("}\n\n");
    }
    text.push_str("exists (c=0 /\\ 0:r0=3)\n");
    text
}

proptest! {
    #![proptest_config(config(96))]

    /// A location only decremented (`events::counting::decreasing_ranges`): its reads'
    /// value sets are clamped to its range, and no final state is lost (the reference
    /// under SC, both value fixpoints through the coherence model, which allows thin air,
    /// against SC's states as a subset).
    #[test]
    fn decrements_keep_every_outcome(
        threads in prop::collection::vec(
            prop::collection::vec(
                prop_oneof![
                    3 => (1..=2i32).prop_map(Down::Sub),
                    2 => (1..=2i32).prop_map(Down::AddNegative),
                    1 => Just(Down::Peek),
                    1 => (0..=4i32).prop_map(Down::Reset),
                ],
                1..=3,
            ),
            2..=3,
        ).prop_filter("small enough for brute force", |t| {
            t.iter().map(Vec::len).sum::<usize>() <= 5
        })
    ) {
        let text = decrementing(&threads);
        let program = lower(&text);
        let r = reference::explore_within(&program, UNROLL, &[], 300_000);
        prop_assume!(!r.gave_up);
        let (states, ..) = answers(&program, "sc", true);
        prop_assert_eq!(&states, &r.outcomes, "{}", text);
        let events = common::unrolled(&program, UNROLL);
        let mut session = Session::new(&program, &events, &common::under("coherence")).unwrap();
        let coherent = common::final_states(&mut session);
        prop_assert!(r.outcomes.is_subset(&coherent), "{}", text);
    }
}

/// Two decrements of a counter from 2, each of which may read the other's (the kernel's
/// `C-AlanStern-Atomic1`): the reads' values are 0 to 2 under both fixpoints, one-hot,
/// where the least fixpoint had grown a value a round past the cap of 64 and both had
/// been 32-bit vectors. The decrements are not atomic (both may read 2), but the counter
/// never goes below 0: under SC `c=1` is reached, `c=-1` is not.
#[test]
fn decrements_get_a_value_range() {
    let text = "C dec\n{ c = 2; }\n\nP0 (int* c) {\n  int r0 = *c; *c = r0 - 1;\n}\n\n\
                P1 (int* c) {\n  int r0 = *c; *c = r0 - 1;\n}\n\nexists (c=-1)\n";
    let program = lower(text);
    let events = common::unrolled(&program, UNROLL);
    assert!(events.bounds.counters.is_empty());
    assert_eq!(events.bounds.decreasing.len(), 1);
    assert_eq!(events.bounds.decreasing[0].1, (0, 2));
    for read in events.reads() {
        let t = read.value.expect("a read has a value");
        for thin_air in [false, true] {
            let values = events.value_set(t, thin_air).expect("bounded");
            assert_eq!(values, [0, 1, 2], "thin air {thin_air}");
        }
    }
    let mut session = Session::new(&program, &events, &common::under("sc")).unwrap();
    let result = session.check().unwrap();
    assert!(result.positive.is_none() && result.negative.is_some());
    let lost = lower(&text.replace("exists (c=-1)", "exists (c=1 /\\ 0:r0=2 /\\ 1:r0=2)"));
    let lost_events = common::unrolled(&lost, UNROLL);
    let mut session = Session::new(&lost, &lost_events, &common::under("sc")).unwrap();
    assert!(session.check().unwrap().positive.is_some());
}
