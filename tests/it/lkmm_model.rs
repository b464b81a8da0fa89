//! The Linux-kernel memory model's own files, read from the shared corpus (they are
//! GPL-2.0+: never copied into nemos), loaded as a user loads them: `--model
//! DIR/linux-kernel.cat`, with the bell file beside it. Skipped when the corpus is absent.

use std::path::PathBuf;

use assert_cmd::Command;
use nemos::diagnostics::SourceFile;

use crate::common;

fn model_dir(which: &str) -> Option<PathBuf> {
    let dir = common::manifest_dir()
        .join("../shared/corpus/lkmm/model")
        .join(which);
    if dir.join("linux-kernel.cat").exists() {
        Some(dir)
    } else {
        eprintln!("skipped: no LKMM model at {}", dir.display());
        None
    }
}

fn check(model: &std::path::Path, test: &str) -> (i32, String, String) {
    let output = Command::cargo_bin("nemos")
        .expect("the nemos binary is built")
        .current_dir(common::manifest_dir())
        .args(["check", "--model"])
        .arg(model)
        .arg(test)
        .output()
        .expect("nemos runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Dat3M's copy (bell beside the model, lock.cat all comments): the model loads and
/// decides a test; what nemos reads as empty is said on stderr.
#[test]
fn the_dat3m_copy_of_the_kernel_model_loads_and_decides() {
    let Some(dir) = model_dir("dat3m") else {
        return;
    };
    let (code, stdout, stderr) = check(&dir.join("linux-kernel.cat"), "litmus/MP.litmus");
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("Ok (reachable)"), "{stdout}");
    assert!(
        stderr.contains("note: nemos reads as empty") && stderr.contains("`addr`"),
        "{stderr}"
    );
    // The same through the library: the bell first, then the model and its include.
    let read = |name: &str| {
        let path = dir.join(name);
        SourceFile::from_bytes(path.display().to_string(), std::fs::read(&path).unwrap())
    };
    let options = nemos::cat::Options {
        bell: Some(read("linux-kernel.bell")),
        variants: Vec::new(),
    };
    let model = nemos::cat::load_with(
        &read("linux-kernel.cat"),
        "linux-kernel",
        &mut |p: &str| Ok(read(p)),
        &options,
    )
    .unwrap_or_else(|e| panic!("{}", e.short()));
    for check in [
        "coherence",
        "atomic",
        "happens-before",
        "propagation",
        "rcu",
    ] {
        assert!(model.check_names().contains(&check.to_string()), "{check}");
    }
    for flag in ["data-race", "unmatched-rcu-lock", "srcu-bad-value-match"] {
        assert!(model.flag_names().contains(&flag.to_string()), "{flag}");
    }
    // The bell's `rcu-rscs` and the model's `rcu-order` are `let rec`s.
    assert_eq!(model.rec_groups.len(), 2);
}

/// The kernel's copy, as herdtools7's catalogue keeps it: every file parses (lock.cat's
/// `with ... from`, `map`, `{e}`, `++`, curried functions, `try ... with` included), but
/// its bell is a symbolic link saved as a file whose target the corpus does not have, and
/// the command line says so; without the bell, the model stops at the names the bell
/// defines and at lock.cat's constructs nemos does not compile, each located.
#[test]
fn the_kernel_copy_parses_and_its_missing_bell_is_named() {
    let Some(dir) = model_dir("kernel") else {
        return;
    };
    for name in ["linux-kernel.cat", "lock.cat"] {
        let path = dir.join(name);
        let file =
            SourceFile::from_bytes(path.display().to_string(), std::fs::read(&path).unwrap());
        if let Err(e) = nemos::cat::parse(&file) {
            panic!("{}", e.short());
        }
    }
    let (code, _, stderr) = check(&dir.join("linux-kernel.cat"), "litmus/MP.litmus");
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("holds only the path `../bells/linux-kernel.bell`"),
        "{stderr}"
    );
    let read = |name: &str| -> Result<SourceFile, String> {
        let path = dir.join(name);
        std::fs::read(&path)
            .map(|bytes| SourceFile::from_bytes(name, bytes))
            .map_err(|e| e.to_string())
    };
    let Err(error) = nemos::cat::load(
        &read("linux-kernel.cat").unwrap(),
        "linux-kernel",
        &mut |p: &str| read(p),
    ) else {
        panic!("the kernel's model needs its bell");
    };
    let short = error.short();
    let messages: Vec<&str> = short.lines().collect();
    for expected in [
        "lock.cat:40:44: unknown relation or set `Srcu-lock`",
        "lock.cat:107:5: `map` is not supported by nemos's cat subset",
        "lock.cat:110:1: `with ... from` is not supported by nemos's cat subset",
    ] {
        assert!(
            messages.contains(&expected),
            "{expected} not in {messages:#?}"
        );
    }
}
