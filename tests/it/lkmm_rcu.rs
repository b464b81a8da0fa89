//! The Linux-kernel memory model, part 2: `let rec` as herd iterates it, SRCU's primitive,
//! and the RCU and SRCU tests of the corpus under Dat3M's copy of the model (read from the
//! shared corpus, never copied: the model files are GPL-2.0+). The tests that do not need
//! the corpus write small models of their own.

use std::path::PathBuf;

use assert_cmd::Command;

use crate::common;

/// `nemos check` with these arguments, from the manifest directory: exit code and stdout.
fn nemos_check(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let output = Command::cargo_bin("nemos")
        .expect("the nemos binary is built")
        .current_dir(common::manifest_dir())
        .arg("check")
        .args(args)
        .output()
        .expect("nemos runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A directory holding `files` (name, text).
fn scratch(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("the file is written");
    }
    dir
}

/// The kernel bell's way of matching `rcu_read_lock` with `rcu_read_unlock`, in words of
/// its own over reads (openings) and writes (closings): a group that is not monotone
/// (`m` removes what it matched from the open ends) and whose members read each other in
/// the order written.
const MATCHING: &str = r#""matching in order"
let rec open-r = R \ domain(m)
and open-w = W \ range(m)
and open = open-r | open-w
and open-po = [open] ; po ; [open]
and first = [open-r] ; po ; [open-w]
and m = m | (first \ (open-po ; open-po))
flag ~empty m as matched
flag ~empty m & (po ; [W] ; po) as spans-two
"#;

/// Two sections one after the other in one thread: read, write, read, write.
const TWO_SECTIONS: &str = "C two-sections\n{ x = 0; y = 0; }\n\
P0 (int* x, int* y) {\n  int r1 = *x;\n  *y = 1;\n  int r2 = *x;\n  *y = 2;\n}\n\
exists (0:r1=0)\n";

/// herd evaluates the members of a `let rec` one after the other, each seeing the values
/// the members before it got in the same round (`fix_step` in herd's interpreter). Here
/// that matches each read with the write right after it; evaluating all members from the
/// previous round's values instead (as nemos did) also matched the first read with the
/// last write, a section spanning two, and made the kernel's RCU tests with two read-side
/// critical sections in one thread (`auto/C-RW-G+RW-R3I`) forbid what herd allows. Both
/// the encoding (the flag literals) and the witness evaluator (which checks them on the
/// witness) iterate that way.
#[test]
fn let_rec_members_see_the_values_of_this_round() {
    let dir = scratch(&[("m.cat", MATCHING), ("t.litmus", TWO_SECTIONS)]);
    let (code, stdout, stderr) = nemos_check(&[
        "--model".as_ref(),
        dir.path().join("m.cat").as_os_str(),
        dir.path().join("t.litmus").as_os_str(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("flag matched: raised"), "{stdout}");
    assert!(!stdout.contains("spans-two"), "{stdout}");
}

/// A least fixed point used on both sides: `o` (monotone, with a self-composition as
/// `rcu-order` has) in a check under a difference, where a larger value allows more, and
/// under a difference in a flag, where a larger value raises it less. An encoding that
/// only requires `o` to contain its body would let the solver grow `o` and allow MP's
/// executions in which a write is not read; one that only bounds it from above would
/// forbid the one the least fixed point allows. Under the least fixed point, each write
/// of MP must be read (`rf` is all `o` holds here), so one state is reached, and the
/// flag is raised in it.
const BOTH_SIDES: &str = r#""a fixed point on both sides"
let rec o = rf | (o ; po ; o)
empty (W \ IW) \ domain(o) as read
flag ~empty ((W * W) & po) \ o as unordered
"#;

#[test]
fn a_least_fixed_point_is_exact_under_checks_and_flags() {
    let dir = scratch(&[("m.cat", BOTH_SIDES)]);
    let mp = common::manifest_dir().join("litmus/MP.litmus");
    let (code, stdout, stderr) = nemos_check(&[
        "--model".as_ref(),
        dir.path().join("m.cat").as_os_str(),
        "--format".as_ref(),
        "herd".as_ref(),
        mp.as_os_str(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("States 1\n"), "{stdout}");
    assert!(stdout.contains("1:r0=1; 1:r1=1;"), "{stdout}");
    assert!(stdout.contains("Flag unordered"), "{stdout}");
}

/// herd's SRCU primitive, `__srcu{sync-srcu}(X)`: an event on the location `X` points to,
/// neither a read nor a write, related by `loc` to the accesses of that location
/// (`srcu_read_lock`'s read of it); and `struct srcu_struct *s`, a struct the test does
/// not define, is a pointer to one opaque cell.
#[test]
fn synchronize_srcu_is_an_event_on_its_structure() {
    let def = "srcu_read_lock(X) __load{srcu-lock}(*X)\n\
               srcu_read_unlock(X,Y) { __store{srcu-unlock}(*X,Y); }\n\
               synchronize_srcu(X) { __srcu{sync-srcu}(X); }\n";
    let cat = r#""srcu events"
enum SRCU = 'srcu-lock || 'srcu-unlock || 'sync-srcu
flag ~empty [Sync-srcu] ; loc ; [Srcu-lock] as same-structure
flag ~empty ([Sync-srcu] ; loc ; [Srcu-lock]) & ext as across-threads
flag ~empty Sync-srcu & (R | W | F) as memory
flag ~empty [Srcu-lock] ; data ; [Srcu-unlock] as cookie
"#;
    let test = "C srcu\n{}\n\
P0 (int *x, struct srcu_struct *s) {\n  int r1 = srcu_read_lock(s);\n  int r2 = *x;\n  srcu_read_unlock(s, r1);\n}\n\
P1 (int *x, struct srcu_struct *s, struct srcu_struct *t) {\n  *x = 1;\n  synchronize_srcu(s);\n  synchronize_srcu(t);\n}\n\
exists (0:r2=1)\n";
    let dir = scratch(&[("m.cat", cat), ("m.def", def), ("t.litmus", test)]);
    let (code, stdout, stderr) = nemos_check(&[
        "--model".as_ref(),
        dir.path().join("m.cat").as_os_str(),
        dir.path().join("t.litmus").as_os_str(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    for raised in ["same-structure", "across-threads", "cookie"] {
        assert!(
            stdout.contains(&format!("flag {raised}: raised")),
            "{stdout}"
        );
    }
    assert!(!stdout.contains("flag memory"), "{stdout}");
    // A field of an opaque struct is an error, located.
    let bad =
        "C srcu-field\n{}\nP0 (struct srcu_struct *s) {\n  int r1 = s->idx;\n}\nexists (0:r1=0)\n";
    let dir = scratch(&[("m.cat", cat), ("m.def", def), ("t.litmus", bad)]);
    let (code, _, stderr) = nemos_check(&[
        "--model".as_ref(),
        dir.path().join("m.cat").as_os_str(),
        dir.path().join("t.litmus").as_os_str(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("unknown struct `srcu_struct`"), "{stderr}");
}

fn dat3m_model() -> Option<PathBuf> {
    copy_of_the_model("dat3m")
}

/// The kernel model's `linux-kernel.cat` in the corpus's copy `which` (`dat3m`, `kernel`).
fn copy_of_the_model(which: &str) -> Option<PathBuf> {
    let path = common::manifest_dir()
        .join("../shared/corpus/lkmm/model")
        .join(which)
        .join("linux-kernel.cat");
    if path.exists() {
        Some(path)
    } else {
        eprintln!("skipped: no LKMM model at {}", path.display());
        None
    }
}

/// The RCU and SRCU tests of the corpus on which nemos and Dat3M differ, and why: none
/// (`C-srcu-nest-6`, whose `locations [0:r1]` names a register P0 does not have, lists it
/// with the value registers start with, 0; Dat3M's verdict does not depend on it).
const RCU_DIFFERENCES: &[(&str, &str)] = &[];

/// Every test of `LKMM-expected.csv` that uses RCU or SRCU (its text names `rcu`: 2121
/// tests, RCU chains of up to 12 threads among them) agrees with Dat3M's verdict under
/// Dat3M's copy of the model, and with `LKMM-DR-expected.csv` on the `data-race` flag
/// (0: some allowed execution raises it), but the differences listed with their reason;
/// none hits a limit.
#[test]
fn the_rcu_tests_agree_with_dat3m_under_the_kernel_model() {
    rcu_tests_agree(dat3m_model());
}

/// The same under the kernel's own copy of the model, unchanged (its lock.cat generating
/// `co` with herd's library, which nemos knows natively).
#[test]
fn the_rcu_tests_agree_with_dat3m_under_the_kernels_own_files() {
    rcu_tests_agree(copy_of_the_model("kernel"));
}

fn rcu_tests_agree(model: Option<PathBuf>) {
    let (Some(model), Some(corpus)) = (model, common::corpus()) else {
        return;
    };
    let corpus = corpus.join("lkmm");
    let expected = common::lkmm_csv(&corpus.join("LKMM-expected.csv"));
    let races = common::lkmm_csv(&corpus.join("LKMM-DR-expected.csv"));
    let tests: Vec<&String> = expected
        .keys()
        .filter(|p| {
            std::fs::read_to_string(corpus.join("tests").join(p)).is_ok_and(|t| t.contains("rcu"))
        })
        .collect();
    let output = Command::cargo_bin("nemos")
        .expect("the nemos binary is built")
        .args(["check", "--format", "json", "--timeout", "60", "--model"])
        .arg(&model)
        .args(tests.iter().map(|p| corpus.join("tests").join(p)))
        .output()
        .expect("nemos runs");
    let doc: serde_json::Value = serde_json::from_slice(&output.stdout).expect("a JSON document");
    let results = doc["tests"].as_array().expect("a list of tests");
    assert_eq!(results.len(), tests.len());
    let (mut agree, mut race_agree, mut race_checked) = (0, 0, 0);
    let mut differ = Vec::new();
    for t in results {
        let path = t["path"].as_str().unwrap_or_default();
        let key = path.split_once("/tests/").map_or(path, |(_, k)| k);
        assert!(t["limit"].is_null(), "{key}: {t}");
        if !t["error"].is_null() {
            differ.push(key.to_string());
            continue;
        }
        let result = &t["result"];
        let reachable = common::lkmm_reachable(result);
        if expected.get(key) == Some(&reachable) {
            agree += 1;
        } else {
            differ.push(key.to_string());
        }
        if let Some(&no_race) = races.get(key) {
            race_checked += 1;
            let flags = result["flags"].as_array().cloned().unwrap_or_default();
            let raised = flags.iter().any(|f| f == "data-race");
            if raised != no_race {
                race_agree += 1;
            } else {
                differ.push(format!("{key} (data-race)"));
            }
        }
    }
    eprintln!(
        "{agree} of {} RCU tests agree with Dat3M; the data-race flag of {race_agree} of \
         {race_checked}",
        tests.len()
    );
    common::assert_explained(&differ, RCU_DIFFERENCES);
    assert_eq!(tests.len(), 2121);
    assert_eq!(agree, 2121 - RCU_DIFFERENCES.len());
    assert_eq!((race_agree, race_checked), (2032, 2032));
}

/// A monotone fixed point the model's only check reads positively (`o` in an `acyclic`),
/// and a flag reads under a difference: the check uses the one-sided copy (`body(o) ⊆ o`),
/// the flag the exact least fixed point.
const ONE_SIDED: &str = r#""one-sided"
let rec o = rf | co | (o ; po ; o)
acyclic o | fr | po-loc as order
flag ~empty ((W * W) & po) \ o as unordered
"#;

/// The same model with `o` also read under a difference in the check (`0 \ o`, which adds
/// nothing): no group is read positively only, and the check uses the exact fixed point.
const EXACT: &str = r#""exact"
let rec o = rf | co | (o ; po ; o)
acyclic o | fr | po-loc | (0 \ o) as order
flag ~empty ((W * W) & po) \ o as unordered
"#;

fn small_model(text: &str) -> nemos::cat::Model {
    let file = nemos::diagnostics::SourceFile::new("m.cat", text);
    nemos::cat::load(&file, "m", &mut |p: &str| Err(format!("no file {p}")))
        .unwrap_or_else(|e| panic!("{}", e.short()))
}

/// What `check` answers, with the final states.
type Answers = (
    nemos::analysis::Observation,
    Vec<String>,
    Vec<nemos::analysis::FinalState>,
);

fn answers(test: &nemos::Test, model: &nemos::cat::Model) -> Answers {
    let options = nemos::analysis::AnalysisOptions {
        model: std::sync::Arc::new(model.clone()),
        ..Default::default()
    };
    let mut session = nemos::analysis::Session::new(&test.program, &test.events, &options)
        .expect("the session is built");
    let result = session.check().expect("check answers");
    let states = session.outcomes().expect("outcomes answers");
    (result.observation, result.flags, states)
}

/// The one-sided encoding of a fixed point the checks read positively only decides as the
/// exact least fixed point does: the same observation, flags and final states on the
/// litmus tests of the project (`check` also re-evaluates each witness's checks and flags
/// with the true least fixed point).
#[test]
fn a_one_sided_fixed_point_decides_as_the_exact_one() {
    let (one_sided, exact) = (small_model(ONE_SIDED), small_model(EXACT));
    assert!(one_sided.one_sided().is_some());
    assert!(exact.one_sided().is_none());
    let (mut compared, mut flagged, mut forbidden) = (0, 0, 0);
    for path in common::project_litmus() {
        let text = std::fs::read_to_string(&path).expect("the test reads");
        let file = nemos::diagnostics::SourceFile::new(path.display().to_string(), text);
        // The larger tests reach thousands of states under this model, which forbids
        // little: up to 24 events keeps the comparison to seconds.
        let Ok(test) = nemos::load(&file, &Default::default()) else {
            continue;
        };
        if test.events.events.len() > 24 {
            continue;
        }
        let mine = answers(&test, &one_sided);
        let theirs = answers(&test, &exact);
        assert_eq!(mine, theirs, "{}", path.display());
        compared += 1;
        flagged += usize::from(!mine.1.is_empty());
        forbidden += usize::from(mine.0 == nemos::analysis::Observation::Never);
    }
    // Both sides are exercised: the check forbids, the flag is raised.
    assert!(
        compared > 30 && flagged > 0 && forbidden > 0,
        "{compared} {flagged} {forbidden}"
    );
}

/// The kernel model read through the library, as `--model` reads it: the bell first, the
/// macros of the `.def` file beside the model for the tests.
fn kernel_model() -> Option<(nemos::cat::Model, nemos::LoadOptions)> {
    let model = dat3m_model()?;
    let dir = model.parent()?.to_path_buf();
    let read = |name: &str| {
        let path = dir.join(name);
        nemos::diagnostics::SourceFile::from_bytes(
            path.display().to_string(),
            std::fs::read(&path).expect("the model file reads"),
        )
    };
    let model = common::lkmm_model(&dir);
    let macros = nemos::syntax::def::parse(&read("linux-kernel.def"))
        .unwrap_or_else(|e| panic!("{}", e.short()));
    let load = nemos::LoadOptions {
        macros: Some(std::sync::Arc::new(macros)),
        ..Default::default()
    };
    Some((model, load))
}

/// Under the kernel model the checks (`rcu`, `plain-coherence`) read `rcu-order` one-sided
/// and the `data-race` flag reads it exactly. Against the model whose `rcu` check also
/// reads it under a difference (`| (0 \ rcu-order)`, so that every use is exact): the
/// same observation and flags on the RCU tests of `manual/` (plain accesses and the
/// `data-race` flag among them) and those of `auto/` with up to three threads.
#[test]
fn the_kernel_models_one_sided_rcu_order_decides_as_the_exact_one() {
    use nemos::cat::ast::BinOp;
    use nemos::cat::{TExpr, Type};
    let (Some((model, load)), Some(corpus)) = (kernel_model(), common::corpus()) else {
        return;
    };
    let Some(order) = model.defs.iter().position(|d| d.0 == "rcu-order") else {
        panic!("the kernel model defines rcu-order");
    };
    let mut exact = model.clone();
    for check in exact.checks.iter_mut() {
        if check.name.as_deref() == Some("rcu") {
            let nothing = TExpr::Binary(
                BinOp::Diff,
                Box::new(TExpr::Empty(Type::Rel)),
                Box::new(TExpr::Def(order)),
            );
            check.expr = TExpr::Binary(
                BinOp::Union,
                Box::new(check.expr.clone()),
                Box::new(nothing),
            );
        }
    }
    assert!(model.one_sided().is_some());
    assert!(exact.one_sided().is_none());
    let options = |m: &nemos::cat::Model| nemos::analysis::AnalysisOptions {
        model: std::sync::Arc::new(m.clone()),
        ..Default::default()
    };
    let (one_sided, exact) = (options(&model), options(&exact));
    let tests = corpus.join("lkmm/tests");
    let (mut compared, mut raced, mut forbidden) = (0, 0, 0);
    for path in common::litmus_files(&tests) {
        let bytes = std::fs::read(&path).expect("the test reads");
        let file = nemos::diagnostics::SourceFile::from_bytes(path.display().to_string(), bytes);
        let threads = file.text.lines().filter(|l| l.starts_with('P')).count();
        let manual = path.starts_with(tests.join("manual"));
        if !file.text.contains("rcu") || !(manual || threads <= 3) {
            continue;
        }
        let Ok(test) = nemos::load(&file, &load) else {
            continue;
        };
        let decide = |options: &nemos::analysis::AnalysisOptions| {
            let mut session = nemos::analysis::Session::new(&test.program, &test.events, options)
                .expect("the session is built");
            let result = session.check().expect("check answers");
            (result.observation, result.flags)
        };
        let mine = decide(&one_sided);
        assert_eq!(mine, decide(&exact), "{}", path.display());
        compared += 1;
        raced += usize::from(mine.1.iter().any(|f| f == "data-race"));
        forbidden += usize::from(mine.0 == nemos::analysis::Observation::Never);
    }
    eprintln!("{compared} RCU tests, {raced} raising data-race, {forbidden} never reached");
    assert!(
        compared > 250 && raced > 0 && forbidden > 0,
        "{compared} {raced} {forbidden}"
    );
}
