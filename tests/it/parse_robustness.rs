//! The parser must answer every input with a tree or one diagnostic, never a panic: feed it
//! truncated and mangled versions of the corpus files and of a sample test.

use crate::common;

use std::path::Path;

use nemos::diagnostics::SourceFile;
use nemos::syntax::parse;

const SAMPLE: &str = "C s+é\n\"doc\"\nK=v\n{ int x = 0; 0:r0 = x; int d[2] = {1, -1}; }\n\
P0 (atomic_int* x, volatile int *y) {\n  int r0 = atomic_load_explicit(x, memory_order_relaxed);\n\
  if (*y) { *y = r0 ? 1 : 2; } else while (r0) r0--;\n  atomic { *y = 0x10; }\n}\n\
locations [x; 0:r0;]\nfilter (x=1)\n~exists (0:r0=1 /\\ [x]=2 \\/ ~d[1]!=0 => true) (* é *)\n";

fn check(name: &str, text: &str) {
    let file = SourceFile::new(name, text);
    let outcome = std::panic::catch_unwind(|| parse(&file).map_err(|e| e.diagnostics.len()));
    match outcome {
        Ok(Ok(_)) => {}
        Ok(Err(count)) => assert_eq!(count, 1, "{name}: one diagnostic per error"),
        Err(_) => panic!("parser panicked on {name}:\n{text}"),
    }
}

fn mangle(name: &str, text: &str, stride: usize) {
    let boundaries: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .collect();
    for (n, &cut) in boundaries.iter().enumerate() {
        if n % stride != 0 {
            continue;
        }
        check(name, &text[..cut]);
        if let Some(&next) = boundaries.get(n + 1) {
            let without = format!("{}{}", &text[..cut], &text[next..]);
            check(name, &without);
        }
    }
}

#[test]
fn sample_survives_truncation_and_deletion() {
    mangle("sample", SAMPLE, 1);
    check("sample", SAMPLE);
    assert!(parse(&SourceFile::new("sample", SAMPLE)).is_ok());
}

#[test]
fn corpus_survives_truncation_and_deletion() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if !root.is_dir() {
        eprintln!("skipping: corpus not found at {}", root.display());
        return;
    }
    let files = common::c_corpus_files(&root);
    // Every file, every eighth cut: enough variety, still quick in debug builds.
    for path in &files {
        if let Ok(text) = std::fs::read_to_string(path) {
            mangle(&path.to_string_lossy(), &text, 8);
        }
    }
}
