//! The whole pipeline on inputs that parse: lower, unroll, encode, solve, enumerate the
//! final states. No panic on any input; programs over the event cap are skipped so that
//! one input stays within libFuzzer's time limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nemos::analysis::{AnalysisOptions, Session};
use nemos::diagnostics::SourceFile;
use nemos::events::{unroll, UnrollOptions};
use nemos::report::CheckReport;

const MAX_EVENTS: usize = 32;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let file = SourceFile::new("fuzz.litmus".to_string(), text.to_string());
    let Ok(test) = nemos::syntax::parse(&file) else {
        return;
    };
    let program = match nemos::program::lower(&test, &file) {
        Ok(p) => p,
        Err(error) => {
            let _ = error.render(false);
            return;
        }
    };
    let Ok(events) = unroll(&program, UnrollOptions { unroll: 1 }) else {
        return;
    };
    if events.len() > MAX_EVENTS || program.observed.len() > 8 {
        return;
    }
    let Ok(mut session) = Session::new(&program, &events, &AnalysisOptions::default()) else {
        return;
    };
    let _ = nemos::report::events_table(&program, &events);
    let Ok(result) = session.check() else {
        return;
    };
    let states = session.outcomes().ok();
    let report = CheckReport {
        file: &file.name,
        model: "sc",
        program: &program,
        events: &events,
        result: &result,
        states: states.as_deref(),
        counts: None,
        matrix: true,
    };
    let _ = report.text();
    let _ = report.herd();
});
