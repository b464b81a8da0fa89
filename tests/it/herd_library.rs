//! herd's own model files and library (issue 37): `cos.cat` and `cross.cat` known
//! natively, herd's `sc.cat`, `rc11.cat` and `x86tso.cat` read from herd's library folder
//! (`HERDLIB`, else `/tmp/herd/libdir` as `../shared/tools/build-herd.sh` leaves it; the
//! tests that need it are skipped without it), and herd's dialect in litmus files.

use std::collections::BTreeSet;
use std::path::PathBuf;

use assert_cmd::Command;
use nemos::analysis::{AnalysisOptions, Session};
use nemos::diagnostics::SourceFile;
use nemos::report::state_line;

use crate::common;

fn herd_lib() -> Option<PathBuf> {
    let dir = std::env::var_os("HERDLIB")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/herd/libdir"));
    if dir.join("rc11.cat").exists() {
        Some(dir)
    } else {
        eprintln!("skipped: no herd library at {}", dir.display());
        None
    }
}

fn load(spec: &str) -> AnalysisOptions {
    let loaded = nemos::load_model(spec, &mut |p| std::fs::read(p))
        .unwrap_or_else(|e| panic!("{spec}: {e}"));
    AnalysisOptions {
        model: loaded.model,
        ..AnalysisOptions::default()
    }
}

/// Final states (as herd prints them), observation and whether some flag is raised (herd's
/// rc11.cat names its `undefined_unless` flag `Dr`).
fn verdict(
    file: &SourceFile,
    options: &AnalysisOptions,
) -> (BTreeSet<BTreeSet<String>>, String, bool) {
    let nemos::Test { program, events } =
        nemos::load(file, &Default::default()).unwrap_or_else(|e| panic!("{}", e.short()));
    let mut session = Session::new(&program, &events, options).unwrap();
    let result = session.check().unwrap();
    let states = session.outcomes().unwrap();
    (
        states
            .iter()
            .map(|s| common::normalise(&state_line(&program, &s.values)))
            .collect(),
        format!("{:?}", result.observation),
        !result.flags.is_empty(),
    )
}

/// A model of the user's that includes herd's `cos.cat` (not on disk: nemos knows it) and
/// states SC over the coherence order it generates decides every test of `litmus/` as the
/// shipped `sc` does.
#[test]
fn a_model_including_herds_cos_cat_decides_as_sc() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let model = dir.path().join("mine.cat");
    std::fs::write(
        &model,
        "\"mine\"\ninclude \"cos.cat\"\nempty rmw & (fre ; coe) as atom\nacyclic po | rf | co | fr as sc\n",
    )
    .unwrap();
    let mine = load(&model.display().to_string());
    assert!(mine.model.check_names().contains(&"ConsCo".to_string()));
    let sc = common::under("sc");
    let mut compared = 0;
    for path in common::litmus_files(&common::manifest_dir().join("litmus")) {
        let text = std::fs::read_to_string(&path).unwrap();
        if text.contains("spin_lock") || text.contains("lock(") {
            continue;
        }
        let file = SourceFile::new(path.display().to_string(), text);
        if nemos::load(&file, &Default::default()).is_err() {
            continue;
        }
        assert_eq!(
            verdict(&file, &mine),
            verdict(&file, &sc),
            "{}",
            path.display()
        );
        compared += 1;
    }
    assert!(compared >= 20, "{compared}");
}

/// herd's `sc.cat` and `rc11.cat`, read from herd's own library folder with no other
/// option (their includes, `fences.cat` and `cos.cat` among them, beside them), give
/// herd7's final states, observations and (rc11) undefined-behaviour flags on every test
/// of the corpus herd7 runs.
#[test]
fn herds_sc_and_rc11_from_its_library_agree_with_herd_on_the_corpus() {
    let (Some(lib), Some(dir)) = (herd_lib(), common::corpus()) else {
        return;
    };
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("herd7-expected.json")).unwrap())
            .unwrap();
    for name in ["sc", "rc11"] {
        let options = load(&lib.join(format!("{name}.cat")).display().to_string());
        let mut checked = 0;
        let mut failures = Vec::new();
        for (path, verdicts) in expected.as_object().unwrap() {
            let herd = &verdicts[name];
            if !herd["error"].is_null() {
                continue;
            }
            let text = std::fs::read_to_string(dir.join(path)).unwrap();
            let (states, observation, undef) =
                verdict(&SourceFile::new(path.clone(), text), &options);
            let theirs: BTreeSet<BTreeSet<String>> = herd["states"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| common::normalise(s.as_str().unwrap()))
                .collect();
            if states != theirs {
                failures.push(format!("{path}: states {states:?}, herd {theirs:?}"));
            }
            if observation != herd["observation"].as_str().unwrap() {
                failures.push(format!(
                    "{path}: {observation}, herd {}",
                    herd["observation"]
                ));
            }
            if name == "rc11" && undef != herd["undef"].as_bool().unwrap() {
                failures.push(format!("{path}: undef {undef}"));
            }
            checked += 1;
        }
        assert!(failures.is_empty(), "{name}: {}", failures.join("\n"));
        assert!(checked >= 190, "{name}: only {checked}");
        eprintln!("{checked} corpus tests agree with herd7 under herd's own {name}.cat");
    }
}

/// herd's `x86tso.cat` loads from its folder, and herd's `c11.def` beside a `c11.cat`
/// path that folder lacks gives `atomic_load(X)` its meaning, as
/// `atomic_load_explicit(X,memory_order_seq_cst)`: MP with seq_cst calls is Never (herd7
/// 7.58 under rc11.cat with `-macros c11.def`: Never, 0 3).
#[test]
fn herds_x86tso_and_c11_def_load() {
    let Some(lib) = herd_lib() else {
        return;
    };
    load(&lib.join("x86tso.cat").display().to_string());
    let test = "C c11def\n{ x = 0; y = 0; }\n\
        P0(atomic_int *x, atomic_int *y) { atomic_store(x, 1); atomic_store(y, 1); }\n\
        P1(atomic_int *x, atomic_int *y) { int r0 = atomic_load(y); int r1 = atomic_load(x); }\n\
        exists (1:r0=1 /\\ 1:r1=0)\n";
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("t.litmus"), test).unwrap();
    let output = Command::cargo_bin("nemos")
        .expect("the nemos binary is built")
        .args(["check", "--model"])
        .arg(lib.join("c11.cat"))
        .arg(dir.path().join("t.litmus"))
        .output()
        .expect("nemos runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("observation: Never"), "{stdout}");
}

/// herd's dialect: a `;` after the final condition, and a variable named `continue` (herd's
/// C has no such statement). herd7 7.58 under sc.cat: semi Always 1 0, semi-forall
/// Sometimes 2 1, cont Sometimes 1 1.
#[test]
fn herds_dialect_parses_and_agrees_with_herd() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, text, observation) in [
        (
            "semi",
            "C semi\n{ x = 0; }\nP0(int *x) { int r0; *x = 6; r0 = *x; }\nforall (0:r0 = 6);\n",
            "Always",
        ),
        (
            "semi-forall",
            "C semi-forall\n{}\nP0(int *x) { int r0; *x = 1; r0 = *x; }\n\
             P1(int *x) { *x = 2; }\nforall 0:r0=1;\n",
            "Sometimes",
        ),
        (
            "cont",
            "C cont\n{ continue = 1; }\nP0(int *continue, int *y) { int r0; \
             r0 = *continue; *y = r0; }\nP1(int *y) { int continue; continue = *y; }\n\
             exists (0:r0=1 /\\ y=1 /\\ 1:continue=1)\n",
            "Sometimes",
        ),
    ] {
        let path = dir.path().join(format!("{name}.litmus"));
        std::fs::write(&path, text).unwrap();
        let output = Command::cargo_bin("nemos")
            .expect("the nemos binary is built")
            .arg("check")
            .arg(&path)
            .output()
            .expect("nemos runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stdout.contains(&format!("observation: {observation}")),
            "{name}: {stdout}{stderr}"
        );
    }
}
