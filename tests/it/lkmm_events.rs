//! The LKMM corpus (`../shared/corpus/lkmm/tests`, 5143 tests) through the front end and
//! the unroller: every test that makes no RCU or SRCU call (their meaning comes with the
//! kernel model's RCU relations) must load, pointers held in memory included, except the
//! constructs listed in `NOT_YET`, each with why. Skipped when the corpus is absent.

use std::collections::BTreeMap;
use std::path::Path;

use nemos::diagnostics::SourceFile;

use crate::common;

/// What nemos does not read yet, by the start of the message it gives, and why.
const NOT_YET: &[(&str, &str)] = &[
    (
        "unknown function `xchg",
        "the kernel's exchange macros need the LKMM's own RMW tags (issue 20)",
    ),
    (
        "unknown function `cmpxchg",
        "as xchg: returns the old value, LKMM tags",
    ),
    (
        "unknown function `atomic_",
        "the kernel's atomic_t RMW family (issue 20)",
    ),
    (
        "unknown function `smp_mb__",
        "fences defined relative to the next RMW or lock (issue 20)",
    ),
    (
        "a lock taken inside this branch is still held",
        "locks must balance within a block in nemos",
    ),
    (
        "the thread ends while holding this lock",
        "locks must balance within a block in nemos",
    ),
];

fn uses_rcu(text: &str) -> bool {
    text.contains("rcu_") || text.contains("srcu") || text.contains("synchronize_rcu")
}

#[test]
fn every_lkmm_test_without_rcu_loads() {
    let Some(corpus) = common::corpus() else {
        eprintln!("skipped: ../shared/corpus is absent");
        return;
    };
    let files = common::litmus_files(&corpus.join("lkmm/tests"));
    let mut loaded = 0;
    let mut with_pointers = 0;
    let mut unsupported: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut unexpected = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).expect("corpus file reads");
        let file = SourceFile::from_bytes(path.display().to_string(), bytes);
        if uses_rcu(&file.text) {
            continue;
        }
        match nemos::load(&file, &Default::default()) {
            Ok(test) => {
                loaded += 1;
                let holds_addresses = test
                    .program
                    .locations
                    .iter()
                    .any(|l| test.program.location_at(l.initial).is_some());
                with_pointers += usize::from(holds_addresses);
            }
            Err(error) => {
                let text = error.render(false);
                let message = first_message(&text);
                match NOT_YET.iter().find(|(start, _)| message.starts_with(start)) {
                    Some((start, _)) => unsupported.entry(start).or_default().push(name(path)),
                    None => unexpected.push(format!("{}: {message}", name(path))),
                }
            }
        }
    }
    assert!(
        unexpected.is_empty(),
        "{} LKMM tests without RCU are rejected for reasons not listed:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
    let refused: usize = unsupported.values().map(Vec::len).sum();
    eprintln!(
        "{loaded} LKMM tests without RCU load ({with_pointers} keep addresses in memory), {refused} use constructs listed as not yet read"
    );
    // The pointer tests of the corpus (`{ x1=y1; }`, `*(intptr_t *)r1`) are among them.
    assert!(
        loaded >= 2830 && with_pointers >= 38,
        "{loaded}, {with_pointers}"
    );
    assert!(refused <= 50, "{unsupported:#?}");
}

/// `× path:line:col: message` -> `message`.
fn first_message(rendered: &str) -> String {
    let line = rendered
        .lines()
        .find(|l| l.trim_start().starts_with('×'))
        .unwrap_or("");
    line.splitn(4, ':')
        .nth(3)
        .unwrap_or(line)
        .trim()
        .to_string()
}

fn name(path: &Path) -> String {
    path.file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned())
}
