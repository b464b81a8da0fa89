//! The scaling families the benchmarks share, as litmus text, and loading them.

#![allow(dead_code)] // each benchmark uses the families it needs

use nemos::diagnostics::SourceFile;
use nemos::events::Events;
use nemos::program::Program;

/// The SC issue's family: thread `i` of `n` does `x = i+1; y = i+1; r = y; s = x;` on
/// shared `x`, `y`. The condition: every thread reads its own `y` (allowed), and with
/// `forbidden` also `0:s=0` (a proof of absence: thread 0 wrote `x` before reading it).
pub fn scaling(n: usize, forbidden: bool) -> String {
    let mut text = format!("C scaling{n}\n{{ x = 0; y = 0; }}\n\n");
    for i in 0..n {
        let v = i + 1;
        text.push_str(&format!(
            "P{i} (int* x, int* y) {{\n  *x = {v};\n  *y = {v};\n  int r = *y;\n  int s = *x;\n}}\n\n"
        ));
    }
    let mut atoms: Vec<String> = (0..n).map(|i| format!("{i}:r={}", i + 1)).collect();
    if forbidden {
        atoms.push("0:s=0".into());
    }
    text.push_str(&format!("exists ({})\n", atoms.join(" /\\ ")));
    text
}

/// The races issue's family: `threads` threads each do `increments` lock-protected
/// increments of a shared counter in a counted loop, and thread 0 then reads the counter
/// without the lock: one racing statement pair per other thread. Unroll `increments` times.
pub fn locked_counter(threads: usize, increments: usize) -> String {
    let mut text = format!("C counter{threads}x{increments}\n{{ c = 0; l = 0; }}\n\n");
    for t in 0..threads {
        let unprotected = if t == 0 { "  int s = *c;\n" } else { "" };
        text.push_str(&format!(
            "P{t} (int* c, int* l) {{\n  for (int i = 0; i < {increments}; i++) {{\n    lock(l);\n    int r = *c;\n    *c = r + 1;\n    unlock(l);\n  }}\n{unprotected}}}\n\n"
        ));
    }
    text.push_str(&format!("exists (c={})\n", threads * increments));
    text
}

/// Issue 40's racy read among locked sections: the locked counter, with thread 0 reading
/// the counter unprotected after each of its critical sections (in the loop) instead of
/// once after it: one racing statement pair per other thread, `increments` racy reads.
pub fn locked_counter_racy_reads(threads: usize, increments: usize) -> String {
    let mut text = format!("C racyreads{threads}x{increments}\n{{ c = 0; l = 0; }}\n\n");
    for t in 0..threads {
        let unprotected = if t == 0 { "    int s = *c;\n" } else { "" };
        text.push_str(&format!(
            "P{t} (int* c, int* l) {{\n  for (int i = 0; i < {increments}; i++) {{\n    lock(l);\n    int r = *c;\n    *c = r + 1;\n    unlock(l);\n{unprotected}  }}\n}}\n\n"
        ));
    }
    text.push_str(&format!("exists (c={})\n", threads * increments));
    text
}

/// The performance issue's unlocked counter: `threads` threads each do `increments`
/// unprotected increments (`a = c; c = a + 1`) in a counted loop: every pair of the
/// threads' statements on `c` races. Unroll `increments` times.
pub fn unlocked_counter(threads: usize, increments: usize) -> String {
    let mut text = format!("C ucounter{threads}x{increments}\n{{ c = 0; }}\n\n");
    for t in 0..threads {
        text.push_str(&format!(
            "P{t} (int* c) {{\n  for (int i = 0; i < {increments}; i++) {{\n    int a = *c;\n    *c = a + 1;\n  }}\n}}\n\n"
        ));
    }
    text.push_str(&format!("exists (c={})\n", threads * increments));
    text
}

/// The symmetry issue's family: `threads` identical threads each take a lock around one
/// increment of a shared counter; `forall (c=threads)` holds, and proving it means ruling
/// out every order of the critical sections.
pub fn lock_takers(threads: usize) -> String {
    let mut text = format!("C lock_takers{threads}\n{{ c = 0; }}\n\n");
    for t in 0..threads {
        text.push_str(&format!(
            "P{t} (int* c, spinlock_t* l) {{\n  int a;\n  spin_lock(l);\n  a = *c;\n  *c = a + 1;\n  spin_unlock(l);\n}}\n\n"
        ));
    }
    text.push_str(&format!("forall (c={threads})\n"));
    text
}

/// Parse, lower and unroll generated text through the front door.
pub fn load(text: &str, unroll_bound: u32) -> (Program, Events) {
    let file = SourceFile::new("generated.litmus", text);
    let options = nemos::LoadOptions {
        unroll: unroll_bound,
        ..Default::default()
    };
    let test = nemos::load(&file, &options).expect("generated test loads");
    (test.program, test.events)
}
