//! Every litmus file of the shared C corpus must parse, except a few that are outside the
//! language on purpose; those must be rejected with a message naming the construct.

use crate::common;

use std::path::Path;

use nemos::diagnostics::SourceFile;
use nemos::syntax::parse;

/// Files we reject, with a fragment the error message must contain and why.
const EXPECTED_REJECTIONS: &[(&str, &str, &str)] = &[(
    "herd-c/C17.litmus",
    "kernel-style `{mb}` annotations are not supported",
    "`__atomic_add_unless{mb}(...)` is a Linux-kernel primitive, not C11",
)];

#[test]
fn corpus_parses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if !root.is_dir() {
        eprintln!("skipping: corpus not found at {}", root.display());
        return;
    }
    let files = common::c_corpus_files(&root);
    assert!(
        !files.is_empty(),
        "no .litmus files under {}",
        root.display()
    );

    let mut failures = Vec::new();
    let mut rejected_as_expected = 0;
    for path in &files {
        let relative = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{relative}: unreadable: {e}"));
                continue;
            }
        };
        let file = SourceFile::new(relative.clone(), text);
        let outcome = std::panic::catch_unwind(|| parse(&file));
        let expected = EXPECTED_REJECTIONS.iter().find(|(p, _, _)| *p == relative);
        match (outcome, expected) {
            (Err(_), _) => failures.push(format!("{relative}: parser panicked")),
            (Ok(Ok(_)), None) => {}
            (Ok(Ok(_)), Some((_, _, why))) => failures.push(format!(
                "{relative}: parsed, but expected a rejection ({why})"
            )),
            (Ok(Err(e)), None) => failures.push(format!("{relative}: rejected:\n{}", e.short())),
            (Ok(Err(e)), Some((_, fragment, _))) => {
                if e.short().contains(fragment) {
                    rejected_as_expected += 1;
                } else {
                    failures.push(format!(
                        "{relative}: rejected with an unexpected message:\n{}",
                        e.short()
                    ));
                }
            }
        }
    }
    eprintln!(
        "{} corpus files: {} parsed, {} rejected as expected",
        files.len(),
        files.len() - rejected_as_expected - failures.len(),
        rejected_as_expected
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
