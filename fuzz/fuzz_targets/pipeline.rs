//! The whole pipeline on inputs that parse: lower, unroll, encode, solve, enumerate the
//! final states. No panic on any input; programs over the event cap are skipped so that
//! one input stays within libFuzzer's time limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nemos::analysis::query::{ask, Query, QueryOptions};
use nemos::diagnostics::SourceFile;
use nemos::report::{answer_report, events::EventsReport, Palette, Report, Shown};

const MAX_EVENTS: usize = 32;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let file = SourceFile::new("fuzz.litmus".to_string(), text.to_string());
    let options = nemos::LoadOptions {
        unroll: 1,
        max_events: Some(MAX_EVENTS),
        ..Default::default()
    };
    let test = match nemos::load(&file, &options) {
        Ok(test) => test,
        Err(error) => {
            let _ = error.render(false);
            return;
        }
    };
    if test.events.len() > MAX_EVENTS || test.program.observed.len() > 8 {
        return;
    }
    let events = EventsReport {
        program: &test.program,
        events: &test.events,
    };
    let _ = events.text(Palette::PLAIN);
    let options = QueryOptions::new(std::sync::Arc::new(nemos::cat::sc()), "sc");
    let query = Query::Check {
        states: true,
        certify: false,
    };
    let Ok(answer) = ask(&test, query, &options) else {
        return;
    };
    if let Some(report) = answer_report(&test, &answer, "sc", Shown { matrix: true }) {
        let _ = report.text(Palette::PLAIN);
        let _ = report.herd();
    }
});
