//! The C front end on the project's own small programs (`tests/c/`), whose answers are
//! known: derived by hand, and where a litmus test says the same, cross-checked against
//! it through the litmus front end (same verdict, same number of executions).

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn nemos() -> Command {
    let mut command = Command::cargo_bin("nemos").expect("the nemos binary is built");
    command.current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c"));
    command
}

/// `check --count --format json` on `file` under `model`: exit code and JSON result.
fn check(file: &str, model: &str) -> (i32, Value) {
    let output = nemos()
        .args([
            "check", "--count", "--format", "json", "--model", model, file,
        ])
        .output()
        .expect("nemos runs");
    let code = output.status.code().expect("an exit code");
    let json = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (code, json)
}

fn executions(result: &Value) -> u64 {
    result["positive"].as_u64().expect("a count") + result["negative"].as_u64().expect("a count")
}

/// A program, and per model (rc11, sc): whether an assertion can fail, and how many
/// executions it has.
struct Known {
    file: &'static str,
    rc11: (bool, u64),
    sc: (bool, u64),
    /// The same program as a litmus test whose condition is the assertion's failure.
    litmus: Option<&'static str>,
}

const KNOWN: &[Known] = &[
    Known {
        file: "mp_release_acquire.c",
        // The reader reads the flag as 0 or 1; having read 1 it reads the data as 1.
        rc11: (false, 2),
        sc: (false, 2),
        litmus: Some(
            "C MP\n{ data = 0; flag = 0; }\n\
             P0 (int *data, atomic_int *flag) { *data = 1; atomic_store_explicit(flag, 1, memory_order_release); }\n\
             P1 (int *data, atomic_int *flag) { int r0 = atomic_load_explicit(flag, memory_order_acquire); int r1 = 1; if (r0 == 1) { r1 = *data; } }\n\
             exists (1:r0=1 /\\ 1:r1=0)\n",
        ),
    },
    Known {
        file: "mp_relaxed.c",
        rc11: (true, 3),
        sc: (false, 2),
        litmus: Some(
            "C MP\n{ data = 0; flag = 0; }\n\
             P0 (atomic_int *data, atomic_int *flag) { atomic_store_explicit(data, 1, memory_order_relaxed); atomic_store_explicit(flag, 1, memory_order_relaxed); }\n\
             P1 (atomic_int *data, atomic_int *flag) { int r0 = atomic_load_explicit(flag, memory_order_relaxed); int r1 = 1; if (r0 == 1) { r1 = atomic_load_explicit(data, memory_order_relaxed); } }\n\
             exists (1:r0=1 /\\ 1:r1=0)\n",
        ),
    },
    Known {
        file: "sb_seq_cst.c",
        rc11: (false, 3),
        sc: (false, 3),
        litmus: Some(
            "C SB\n{ x = 0; y = 0; }\n\
             P0 (atomic_int *x, atomic_int *y) { atomic_store(x, 1); int r0 = atomic_load(y); }\n\
             P1 (atomic_int *x, atomic_int *y) { atomic_store(y, 1); int r0 = atomic_load(x); }\n\
             exists (0:r0=0 /\\ 1:r0=0)\n",
        ),
    },
    Known {
        file: "sb_relaxed.c",
        rc11: (true, 4),
        sc: (false, 3),
        litmus: Some(
            "C SB\n{ x = 0; y = 0; }\n\
             P0 (atomic_int *x, atomic_int *y) { atomic_store_explicit(x, 1, memory_order_relaxed); int r0 = atomic_load_explicit(y, memory_order_relaxed); }\n\
             P1 (atomic_int *x, atomic_int *y) { atomic_store_explicit(y, 1, memory_order_relaxed); int r0 = atomic_load_explicit(x, memory_order_relaxed); }\n\
             exists (0:r0=0 /\\ 1:r0=0)\n",
        ),
    },
    Known {
        file: "join_synchronises.c",
        rc11: (false, 1),
        sc: (false, 1),
        litmus: None,
    },
    Known {
        file: "create_synchronises.c",
        rc11: (false, 1),
        sc: (false, 1),
        litmus: None,
    },
    Known {
        file: "no_join.c",
        // main reads 0 or 1.
        rc11: (true, 2),
        sc: (true, 2),
        litmus: None,
    },
    Known {
        file: "thread_loop.c",
        // The three read-modify-writes in any order: 3! executions.
        rc11: (false, 6),
        sc: (false, 6),
        litmus: Some(
            "C ADD3\n{ sum = 0; }\n\
             P0 (atomic_int *sum) { atomic_fetch_add_explicit(sum, 0, memory_order_relaxed); }\n\
             P1 (atomic_int *sum) { atomic_fetch_add_explicit(sum, 1, memory_order_relaxed); }\n\
             P2 (atomic_int *sum) { atomic_fetch_add_explicit(sum, 2, memory_order_relaxed); }\n\
             exists (~sum=3)\n",
        ),
    },
    Known {
        file: "mutex_counter.c",
        // The two lock orders.
        rc11: (false, 2),
        sc: (false, 2),
        litmus: Some(
            "C LOCKED\n{ l = 0; counter = 0; }\n\
             P0 (int *l, int *counter) { lock(l); *counter = *counter + 1; unlock(l); }\n\
             P1 (int *l, int *counter) { lock(l); *counter = *counter + 1; unlock(l); }\n\
             exists (~counter=2)\n",
        ),
    },
    Known {
        file: "lost_update.c",
        // Both read 0 (two coherence orders of the stores), or one reads the other's 1.
        rc11: (true, 4),
        sc: (true, 4),
        litmus: Some(
            "C LOST\n{ counter = 0; }\n\
             P0 (atomic_int *counter) { int r0 = atomic_load(counter); atomic_store(counter, r0 + 1); }\n\
             P1 (atomic_int *counter) { int r0 = atomic_load(counter); atomic_store(counter, r0 + 1); }\n\
             exists (~counter=2)\n",
        ),
    },
    Known {
        file: "assume_flag.c",
        // Only the execution where the reader sees the flag is complete.
        rc11: (false, 1),
        sc: (false, 1),
        litmus: None,
    },
    Known {
        file: "array_arguments.c",
        rc11: (false, 1),
        sc: (false, 1),
        litmus: None,
    },
];

#[test]
fn small_c_programs_have_their_known_answers() {
    let mut failures = Vec::new();
    for known in KNOWN {
        for (model, (fails, count)) in [("rc11", known.rc11), ("sc", known.sc)] {
            let (code, result) = check(known.file, model);
            let expected_code = if fails { 1 } else { 0 };
            if code != expected_code || result.is_null() || executions(&result) != count {
                failures.push(format!(
                    "{} under {model}: exit {code} (expected {expected_code}), {} executions (expected {count})",
                    known.file,
                    if result.is_null() { "no".to_string() } else { executions(&result).to_string() }
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn small_c_programs_agree_with_their_litmus_forms() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut compared = 0;
    for known in KNOWN {
        let Some(litmus) = known.litmus else {
            continue;
        };
        let path = dir.path().join(known.file.replace(".c", ".litmus"));
        std::fs::write(&path, litmus).expect("the litmus form is written");
        for model in ["rc11", "sc"] {
            let (c_code, c_result) = check(known.file, model);
            let (_, litmus_result) = check(path.to_str().expect("a UTF-8 path"), model);
            let reachable = litmus_result["observation"] != "Never";
            assert_eq!(
                c_code == 1,
                reachable,
                "{} under {model}: the C assertion fails exactly when the litmus condition is reachable",
                known.file
            );
            assert_eq!(
                executions(&c_result),
                executions(&litmus_result),
                "{} under {model}: as many executions as its litmus form",
                known.file
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 14);
}

#[test]
fn what_is_not_supported_is_refused_at_the_construct() {
    let output = nemos()
        .args(["check", "switch_refused.c"])
        .output()
        .expect("nemos runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("switch_refused.c:8:2: `switch` is not supported yet"),
        "{stderr}"
    );
}

#[test]
fn a_diagnostic_points_into_the_included_file() {
    let output = nemos()
        .args(["check", "include_error/main.c"])
        .output()
        .expect("nemos runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("include_error/helper.h:4:2: `goto` is not supported yet"),
        "{stderr}"
    );
    assert!(
        stderr.contains("4 │ \tgoto done;") || stderr.contains("goto done;"),
        "{stderr}"
    );
}

#[test]
fn a_preprocessor_error_is_the_preprocessors_own_message() {
    let output = nemos()
        .args(["check", "missing_header.c"])
        .output()
        .expect("nemos runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("missing_header.c:2:10"), "{stderr}");
    assert!(stderr.contains("string.h"), "{stderr}");
}

#[test]
fn macros_come_from_the_command_line() {
    // `-D N=2` starts two threads instead of three: the sum is then 1, and the
    // assertion that it is 3 fails.
    let output = nemos()
        .args(["check", "--model", "sc", "-D", "N=2", "thread_loop.c"])
        .output()
        .expect("nemos runs");
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn infer_keeps_the_synchronisation_of_thread_creation() {
    // The create's release write is nemos's, not the program's: infer lists it as kept
    // and weakens only the program's own orders (here none: release/acquire are needed).
    let output = nemos()
        .args(["infer", "mp_release_acquire.c"])
        .output()
        .expect("nemos runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("pthread_create(&t1, NULL, writer, NULL)  [release (kept)]"),
        "{stdout}"
    );
    assert!(!stdout.contains("can be relaxed"), "{stdout}");
    assert!(
        stdout.contains("(the written orders weakened): release, release, release, acquire"),
        "{stdout}"
    );
}

#[test]
fn block_at_bound_leaves_out_the_executions_past_the_bound() {
    let code = |args: &[&str]| {
        let output = nemos().args(args).output().expect("nemos runs");
        output.status.code()
    };
    // Without it, the executions needing a third iteration are reported as cut.
    assert_eq!(code(&["check", "--unroll", "2", "bounded_loop.c"]), Some(3));
    // With it, they are left out: the loop runs 0, 1 or 2 times, the assertion holds.
    let (exit, result) = {
        let output = nemos()
            .args([
                "check",
                "--unroll",
                "2",
                "--block-at-bound",
                "--count",
                "--format",
                "json",
            ])
            .arg("bounded_loop.c")
            .output()
            .expect("nemos runs");
        let json: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
        (output.status.code(), json)
    };
    assert_eq!(exit, Some(0));
    assert_eq!(result["bound_hit"], false);
    assert_eq!(executions(&result), 3);
    // A bound of 3 lets the loop run three times: the assertion fails.
    assert_eq!(
        code(&[
            "check",
            "--unroll",
            "3",
            "--block-at-bound",
            "bounded_loop.c"
        ]),
        Some(1)
    );
}

#[test]
fn a_function_named_like_a_library_call_is_the_programs_own() {
    // `lock`/`unlock` of the program (a spin lock on an exchange), not nemos's mutex:
    // the count of executions is the program's (a lock of nemos's gives 2, see
    // mutex_counter.c), and no update is lost.
    for model in ["rc11", "sc"] {
        let (code, result) = check("own_lock.c", model);
        assert_eq!(code, 0, "own_lock.c under {model}: {result}");
        assert_ne!(executions(&result), 2, "own_lock.c under {model}");
        let output = nemos()
            .args(["races", "--model", model, "own_lock.c"])
            .output()
            .expect("nemos runs");
        assert_eq!(
            output.status.code(),
            Some(0),
            "own_lock.c races under {model}"
        );
    }
}

/// `check` on `file` with `args`: exit code and text.
fn check_text(file: &str, args: &[&str]) -> (i32, String) {
    let output = nemos()
        .arg("check")
        .args(args)
        .arg(file)
        .output()
        .expect("nemos runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    (output.status.code().expect("an exit code"), text)
}

/// Under the C11 models a data race is a defect of a C program's `check`, as GenMC reports
/// a "Non-atomic race"; `--ignore-races` leaves it out (GenMC's `-disable-race-detection`)
/// and SC has no race to report. A litmus test keeps herd's reading: the flag beside the
/// verdict, no defect.
#[test]
fn a_data_race_is_a_defect_of_a_c_programs_check() {
    let (code, text) = check_text("plain_race.c", &["--model", "rc11"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("defect: a data race"), "{text}");
    assert!(text.contains("Data race: some execution"), "{text}");
    let (code, text) = check_text("plain_race.c", &["--model", "rc11", "--ignore-races"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("flag undefined: raised"), "{text}");
    let (code, text) = check_text("plain_race.c", &["--model", "sc"]);
    assert_eq!(code, 0, "{text}");
    let litmus =
        "C race\n{ x = 0; }\nP0 (int* x) { *x = 1; }\nP1 (int* x) { *x = 2; }\nexists (x=1)\n";
    let output = nemos()
        .args(["check", "--model", "rc11", "-"])
        .write_stdin(litmus)
        .output()
        .expect("nemos runs");
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(text.contains("flag undefined: raised"), "{text}");
    assert!(!text.contains("Data race:"), "{text}");
}

/// A thread that waits for ever is a defect (GenMC's liveness violation with
/// `-check-liveness`); `--no-liveness` leaves such executions out, as GenMC does without it.
#[test]
fn a_thread_waiting_for_ever_is_a_defect_unless_no_liveness() {
    let (code, text) = check_text("waits_for_ever.c", &["--model", "rc11"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("defect: a deadlock"), "{text}");
    let (code, text) = check_text("waits_for_ever.c", &["--model", "rc11", "--no-liveness"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("left out (--no-liveness)"), "{text}");
    assert!(!text.contains("no thread blocks for good"), "{text}");
}

/// The heap programs of `tests/c/heap_*.c` (`docs/heap.md`): per model, the memory defects
/// `check` names (GenMC's, by nemos's flag names) and the number of executions, derived by
/// hand in each file's comment. The reference explorer does not model allocation, so these
/// exact counts and kinds are the check.
#[test]
fn heap_programs_have_their_known_defects_and_counts() {
    let known: &[(&str, &str, &[&str], u64)] = &[
        ("heap_publish.c", "rc11", &[], 1),
        ("heap_publish.c", "sc", &[], 1),
        ("heap_calloc.c", "rc11", &[], 1),
        ("heap_use_after_free.c", "rc11", &["access-freed"], 1),
        ("heap_use_after_free.c", "sc", &["access-freed"], 1),
        ("heap_uninit.c", "rc11", &["read-uninitialized"], 1),
        ("heap_double_free.c", "sc", &["double-free"], 1),
        ("heap_free_global.c", "rc11", &["free-non-allocated"], 1),
        ("heap_null.c", "rc11", &["access-non-allocated"], 2),
        (
            "heap_relaxed_publish.c",
            "rc11",
            &["access-non-allocated"],
            2,
        ),
        ("heap_relaxed_publish.c", "sc", &[], 2),
    ];
    for &(file, model, defects, count) in known {
        let (code, result) = check(file, model);
        let found: Vec<&str> = result["memory_defects"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        assert_eq!(found, defects, "{file} under {model}: {result}");
        assert_eq!(code, i32::from(!defects.is_empty()), "{file} under {model}");
        assert_eq!(executions(&result), count, "{file} under {model}");
        assert_eq!(result["assertion_fails"], false, "{file} under {model}");
    }
}

#[test]
fn a_memory_defect_is_named_in_the_text() {
    let (code, text) = check_text("heap_use_after_free.c", &["--model", "rc11"]);
    assert_eq!(code, 1);
    assert!(
        text.contains("an access to freed memory (flag `access-freed`)"),
        "{text}"
    );
    let (code, text) = check_text("heap_free_global.c", &["--model", "sc"]);
    assert_eq!(code, 1);
    assert!(text.contains("a free of non-allocated memory"), "{text}");
}

/// One block per allocation site and thread: an allocation the unrolling would run twice
/// is refused where it is written, never given an aliased block.
#[test]
fn an_allocation_in_an_unrolled_loop_is_refused() {
    let output = nemos()
        .args(["check", "heap_loop.c"])
        .output()
        .expect("nemos runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("heap_loop.c:10:12: this allocation runs more than once in a loop"),
        "{stderr}"
    );
}
