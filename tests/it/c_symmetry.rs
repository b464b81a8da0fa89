//! Symmetry between threads a C program starts alike (`program::spawn_symmetry`): which
//! threads form a class, and that keeping one execution per renaming of a class changes
//! no verdict (assertion, bound, deadlock) under SC and RC11, nor any execution count.

use assert_cmd::Command;
use nemos::analysis::{AnalysisOptions, Session};
use nemos::diagnostics::SourceFile;
use nemos::program::spawn_symmetry::interchangeable_spawned_threads;
use nemos::program::symmetry::interchangeable_threads;

use crate::common;

/// `scripts/scaling.py`'s `locked_counter_c(n)`: `n` threads started in a loop with
/// `(void *)(long)i`, each incrementing `c` under a mutex; `main` asserts `c == n`.
/// `body` replaces the increment; `racy` makes thread 0 read `c` without the lock.
fn counter(n: usize, body: &str, racy: bool) -> String {
    let tail = if racy {
        "\tif (i == 0)\n\t\ts = c;\n"
    } else {
        ""
    };
    format!(
        "#include <pthread.h>\n#include <assert.h>\n#define N {n}\npthread_mutex_t l;\nint c, s;\n\
         void *thread(void *arg)\n{{\n\tint i = (int)(long)arg;\n\t{body}\n{tail}\treturn NULL;\n}}\n\
         int main()\n{{\n\tpthread_t t[N];\n\tpthread_mutex_init(&l, NULL);\n\
         \tfor (int i = 0; i < N; i++)\n\t\tpthread_create(&t[i], NULL, thread, (void *)(long)i);\n\
         \tfor (int i = 0; i < N; i++)\n\t\tpthread_join(t[i], NULL);\n\tassert(c == N);\n\treturn 0;\n}}\n"
    )
}

const LOCKED: &str = "pthread_mutex_lock(&l); c = c + 1; pthread_mutex_unlock(&l);";
const UNLOCKED: &str = "c = c + 1;";

pub(crate) fn load_c(text: &str) -> nemos::Test {
    let file = SourceFile::new("symmetric.c", text);
    let options = nemos::LoadOptions {
        preprocessor: Some(crate::c_programs::reference_preprocessor(&[])),
        ..nemos::LoadOptions::default()
    };
    nemos::load(&file, &options).unwrap_or_else(|e| panic!("{e:?}\n{text}"))
}

/// Whether an assertion fails, whether the bound is reached, whether a thread blocks.
pub(crate) fn verdicts(test: &nemos::Test, model: &str, symmetry: bool) -> (bool, bool, bool) {
    let options = AnalysisOptions {
        symmetry,
        ..common::under(model)
    };
    let mut session = Session::new(&test.program, &test.events, &options).expect("a session");
    (
        session.assertion_failure().expect("solved").is_some(),
        session.bound_reachable().expect("solved"),
        session.deadlock().expect("solved").is_some(),
    )
}

/// The started threads of the locked counter are one class, which the litmus detector
/// (flags and arguments compared as written) does not find.
#[test]
fn the_c_locked_counter_threads_are_one_class() {
    for n in [2, 3, 4, 8] {
        let test = load_c(&counter(n, LOCKED, false));
        let started: Vec<usize> = (1..=n).collect();
        assert_eq!(
            interchangeable_spawned_threads(&test.program),
            vec![started],
            "n = {n}"
        );
        assert!(interchangeable_threads(&test.program).is_empty(), "n = {n}");
    }
}

/// An argument the thread reads (`if (i == 0)`) tells the threads apart: no class.
#[test]
fn an_argument_that_is_read_distinguishes_the_threads() {
    let test = load_c(&counter(3, LOCKED, true));
    assert!(interchangeable_spawned_threads(&test.program).is_empty());
}

/// Creates that are not adjacent (a store between them) give no class: a renaming would
/// move the store relative to the starts.
#[test]
fn creates_apart_give_no_class() {
    let text = "#include <pthread.h>\n#include <assert.h>\nint c, d;\n\
        void *thread(void *arg)\n{\n\tc = 1;\n\treturn NULL;\n}\n\
        int main()\n{\n\tpthread_t a, b;\n\tpthread_create(&a, NULL, thread, NULL);\n\td = 1;\n\
        \tpthread_create(&b, NULL, thread, NULL);\n\tpthread_join(a, NULL);\n\tpthread_join(b, NULL);\n\
        \treturn 0;\n}\n";
    let test = load_c(text);
    assert!(interchangeable_spawned_threads(&test.program).is_empty());
    // Adjacent, they are a class.
    let adjacent = text.replace(
        "\td = 1;\n\tpthread_create(&b, NULL, thread, NULL);\n",
        "\tpthread_create(&b, NULL, thread, NULL);\n\td = 1;\n",
    );
    let test = load_c(&adjacent);
    assert_eq!(
        interchangeable_spawned_threads(&test.program),
        vec![vec![1, 2]]
    );
}

/// Verdicts with and without the constraints, on 2 to 4 started threads, correct (locked)
/// and not (lost updates), under SC and RC11.
#[test]
fn verdicts_are_the_same_with_and_without_symmetry() {
    for n in 2..=4 {
        for (body, fails) in [(LOCKED, false), (UNLOCKED, true)] {
            let test = load_c(&counter(n, body, false));
            assert_eq!(interchangeable_spawned_threads(&test.program).len(), 1);
            for model in ["sc", "rc11"] {
                let with = verdicts(&test, model, true);
                assert_eq!(with, verdicts(&test, model, false), "n = {n}, {model}");
                assert_eq!(with.0, fails, "n = {n}, {model}, {body}");
            }
        }
    }
}

/// `check --count` counts every execution (symmetry is off there): n! lock orders.
#[test]
fn counts_see_every_execution_of_the_class() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (n, executions) in [(2, 2), (3, 6), (4, 24)] {
        let path = dir.path().join(format!("counter{n}.c"));
        std::fs::write(&path, counter(n, LOCKED, false)).expect("written");
        let output = Command::cargo_bin("nemos")
            .expect("the binary")
            .args(["check", "--count", "--format", "json"])
            .arg(&path)
            .output()
            .expect("runs");
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
        let counted = json["positive"].as_u64().zip(json["negative"].as_u64());
        assert_eq!(
            counted.map(|(p, n)| p + n),
            Some(executions),
            "n = {n}: {json}"
        );
        let test = load_c(&counter(n, LOCKED, false));
        let mut session =
            Session::new(&test.program, &test.events, &common::under("sc")).expect("a session");
        let (positive, negative) = session.count_executions().expect("counted");
        assert_eq!(positive + negative, executions, "n = {n}");
    }
}
