//! herd's spin locks (`__lock`, `__unlock`, `__trylock`, `__islocked` in a `.def` file) as
//! lock.cat defines them: memory events, a lock a read of 0 (Acquire) and a write of 1
//! linked as an RMW, an unlock a write of 0 (Release). Each small program is checked under
//! a hand-written macro file and model (no model files needed), and, when the corpus is
//! there, under Dat3M's copy of the Linux-kernel model, with the verdicts herd gives.

use assert_cmd::Command;

use crate::common;

/// The kernel's lock macros, in herd's language, with tags of our own choosing.
const DEF: &str = "\
READ_ONCE(X) __load{once}(X)
WRITE_ONCE(X,V) { __store{once}(X,V); }
spin_lock(X) { __lock(X); }
spin_unlock(X) { __unlock(X); }
spin_trylock(X) __trylock(X)
spin_is_locked(X) __islocked(X)
";

/// Coherence, atomicity, and order only from Acquire and Release (which a lock's read
/// and an unlock carry): critical sections of one lock exclude each other through the
/// lock's `rf` and `co`, nothing else orders anything.
const CAT: &str = "\
\"locks\"
enum Accesses = 'once || 'acquire || 'release
acyclic po-loc | rf | co | fr as coherence
empty rmw & (fre ; coe) as atomic
let ppo = ([Acquire] ; po) | (po ; [Release])
acyclic ppo | rfe | co | fr as order
";

/// The verdict (herd's observation) and the reachable final states of `test` under the
/// model `model` (with its `.def` beside it).
fn outcome(model: &std::path::Path, test: &str) -> (String, Vec<String>) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("t.litmus");
    std::fs::write(&path, test).unwrap();
    let output = Command::cargo_bin("nemos")
        .expect("the nemos binary is built")
        .current_dir(common::manifest_dir())
        .args(["check", "--states", "--model"])
        .arg(model)
        .arg(&path)
        .output()
        .expect("nemos runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{text}{stderr}"
    );
    assert!(!stderr.contains("internal error"), "{stderr}");
    let observation = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("observation: "))
        .unwrap_or_default()
        .to_string();
    let states = text
        .split_once("States (")
        .map(|(_, rest)| {
            rest.lines()
                .skip(1)
                .take_while(|l| l.starts_with("  "))
                .map(|l| {
                    l.trim()
                        .trim_end_matches("<- condition holds")
                        .trim()
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default();
    (observation, states)
}

/// Store buffering inside critical sections of one lock (forbidden), of two locks
/// (allowed: nothing orders them).
fn sb(second_lock: &str) -> String {
    format!(
        "C sb\n{{}}\n\
         P0(spinlock_t *l, spinlock_t *m, int *x, int *y) {{\n  spin_lock(l);\n  \
         WRITE_ONCE(*x, 1);\n  int r0 = READ_ONCE(*y);\n  spin_unlock(l);\n}}\n\
         P1(spinlock_t *l, spinlock_t *m, int *x, int *y) {{\n  spin_lock({second_lock});\n  \
         WRITE_ONCE(*y, 1);\n  int r0 = READ_ONCE(*x);\n  spin_unlock({second_lock});\n}}\n\
         exists (0:r0=0 /\\ 1:r0=0)\n"
    )
}

/// A thread locking twice without unlocking: lock.cat's `lock-nest`, no execution.
const NEST: &str = "C nest\n{}\nP0(spinlock_t *l, int *x) {\n  spin_lock(l);\n  \
    spin_lock(l);\n  WRITE_ONCE(*x, 1);\n  spin_unlock(l);\n}\nexists (x=1)\n";

/// One lock never released: every other critical section comes before it.
const UNMATCHED: &str = "C unmatched\n{}\n\
    P0(spinlock_t *l, int *x) {\n  spin_lock(l);\n  WRITE_ONCE(*x, 1);\n}\n\
    P1(spinlock_t *l, int *x) {\n  spin_lock(l);\n  int r0 = READ_ONCE(*x);\n  \
    spin_unlock(l);\n}\nexists (1:r0=1)\n";

/// Two locks never released: at most one per location (lock.cat's `unmatched-locks`).
const TWO_UNMATCHED: &str = "C two-unmatched\n{}\n\
    P0(spinlock_t *l, int *x) {\n  spin_lock(l);\n  WRITE_ONCE(*x, 1);\n}\n\
    P1(spinlock_t *l, int *y) {\n  spin_lock(l);\n  WRITE_ONCE(*y, 1);\n}\n\
    exists (x=1)\n";

/// A trylock succeeds (and reads in its critical section) or fails.
const TRYLOCK: &str = "C trylock\n{}\n\
    P0(spinlock_t *l, int *x) {\n  spin_lock(l);\n  WRITE_ONCE(*x, 1);\n  spin_unlock(l);\n}\n\
    P1(spinlock_t *l, int *x) {\n  int r1 = 0;\n  int r0 = spin_trylock(l);\n  \
    if (r0) {\n    r1 = READ_ONCE(*x);\n    spin_unlock(l);\n  }\n}\nexists (1:r0=1 /\\ 1:r1=0)\n";

/// A trylock of a lock its thread holds fails; spin_is_locked sees the thread's own lock.
const OWN: &str = "C own\n{}\n\
    P0(spinlock_t *l) {\n  spin_lock(l);\n  int r0 = spin_trylock(l);\n  \
    int r1 = spin_is_locked(l);\n  spin_unlock(l);\n  int r2 = spin_is_locked(l);\n}\n\
    exists (0:r0=1 \\/ 0:r1=0 \\/ 0:r2=1)\n";

/// Each program with herd's verdict and final states.
fn cases() -> Vec<(&'static str, String, &'static str, Vec<&'static str>)> {
    vec![
        (
            "sb one lock",
            sb("l"),
            "Never",
            vec!["0:r0=0; 1:r0=1;", "0:r0=1; 1:r0=0;"],
        ),
        (
            "sb two locks",
            sb("m"),
            "Sometimes",
            vec![
                "0:r0=0; 1:r0=0;",
                "0:r0=0; 1:r0=1;",
                "0:r0=1; 1:r0=0;",
                "0:r0=1; 1:r0=1;",
            ],
        ),
        ("lock-nest", NEST.to_string(), "Never", vec![]),
        ("unmatched", UNMATCHED.to_string(), "Never", vec!["1:r0=0;"]),
        ("two unmatched", TWO_UNMATCHED.to_string(), "Never", vec![]),
        (
            "trylock",
            TRYLOCK.to_string(),
            "Sometimes",
            vec!["1:r0=0; 1:r1=0;", "1:r0=1; 1:r1=0;", "1:r0=1; 1:r1=1;"],
        ),
        (
            "own",
            OWN.to_string(),
            "Never",
            vec!["0:r0=0; 0:r1=1; 0:r2=0;"],
        ),
    ]
}

fn check_all(model: &std::path::Path) {
    for (name, test, observation, states) in cases() {
        let (seen, reached) = outcome(model, &test);
        assert_eq!(seen, observation, "{name}");
        assert_eq!(reached, states, "{name}");
    }
}

#[test]
fn spin_locks_behave_as_lock_cat_says_under_a_small_model() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("locks.cat"), CAT).unwrap();
    std::fs::write(dir.path().join("locks.def"), DEF).unwrap();
    check_all(&dir.path().join("locks.cat"));
}

#[test]
fn spin_locks_behave_as_lock_cat_says_under_the_kernel_model() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let model = corpus.join("lkmm/model/dat3m/linux-kernel.cat");
    if !model.exists() {
        eprintln!("skipped: no LKMM model at {}", model.display());
        return;
    }
    check_all(&model);
}

/// Without a `.def` file, `spin_lock` is nemos's own mutex: an unreleased lock is still an
/// error of the program, not an execution that does not exist.
#[test]
fn without_a_macro_file_spin_locks_are_nemos_mutexes() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("t.litmus");
    std::fs::write(&path, UNMATCHED).unwrap();
    let output = Command::cargo_bin("nemos")
        .expect("the nemos binary is built")
        .args(["check", "--model", "sc"])
        .arg(&path)
        .output()
        .expect("nemos runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the thread ends while holding this lock"),
        "{stderr}"
    );
}
