//! `infer --together`: the tests loaded one by one, inferred as one
//! (`query::ask_together`), one report, and with `--write` each test with the shared
//! orders written in.

use std::path::{Path, PathBuf};

use nemos::analysis::infer::{patched, TogetherError};
use nemos::analysis::query::ask_together;
use nemos::report::together::TogetherReport;
use nemos::report::{self, Rendered};

use super::batch::{Status, TestRun};
use super::files::collect_files;
use super::hiargs::HiArgs;
use super::output::{colors, eprint_error, palette, Stdout};

pub(super) fn run(hi: &HiArgs) -> Status {
    let mut paths: Vec<PathBuf> = Vec::new();
    for path in &hi.paths {
        match collect_files(path) {
            Ok(found) => paths.extend(found),
            Err(message) => {
                eprint_error(&message);
                return Status::BadInput;
            }
        }
    }
    let mut tests = Vec::new();
    for path in &paths {
        let mut t = TestRun::new(path);
        let loaded = super::load(&mut t, path, &hi.load);
        eprint!("{}", t.err);
        match loaded {
            Ok(test) => tests.push(test),
            Err(status) => return status,
        }
    }
    let refs: Vec<&nemos::Test> = tests.iter().collect();
    let together = match ask_together(&refs, &hi.options) {
        Ok(together) => together,
        Err(TogetherError::Input(_, e)) => {
            eprint!(
                "{}",
                super::output::paint_messages(&e.render(colors().stderr))
            );
            return Status::BadInput;
        }
        Err(e) => {
            eprint_error(&format!("{}: {e}", paths[0].display()));
            return Status::BadInput;
        }
    };
    let report = TogetherReport {
        model: &hi.options.model_label,
        programs: tests.iter().map(|t| &t.program).collect(),
        together: &together,
    };
    match report::render(&report, hi.format.report(), palette(hi.format)) {
        Some(Rendered::Text(text)) => Stdout::new().write(&text),
        Some(Rendered::Json(value)) => Stdout::new().write(&format!("{value:#}\n")),
        None => {
            eprint_error(&format!(
                "infer --together has no {} layout",
                hi.format.report().name()
            ));
            return Status::BadInput;
        }
    }
    if let Some(dir) = &hi.write_orders {
        if let Err(status) = write_all(&paths, &tests, &together, dir) {
            return status;
        }
    }
    if together.written_failures.is_empty() {
        Status::Clean
    } else {
        Status::Defect
    }
}

/// Each test with the suggested shared orders written in, as DIR/NAME.
fn write_all(
    paths: &[PathBuf],
    tests: &[nemos::Test],
    together: &nemos::analysis::infer::Together,
    dir: &Path,
) -> Result<(), Status> {
    let Some(suggested) = together.suggested() else {
        eprintln!("note: nothing written: no orders make every test correct");
        return Ok(());
    };
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprint_error(&format!("cannot write {}: {e}", dir.display()));
        return Err(Status::BadInput);
    }
    for (t, (path, test)) in paths.iter().zip(tests).enumerate() {
        let (sites, assignment) = together.to_write(t, &suggested.assignment);
        let text = patched(&test.program, &sites, &assignment).map_err(|e| {
            eprint_error(&format!("{}: cannot write the orders: {e}", path.display()));
            Status::BadInput
        })?;
        let target = super::written_path(path, dir).map_err(|message| {
            eprint_error(&message);
            Status::BadInput
        })?;
        if let Err(e) = std::fs::write(&target, text) {
            eprint_error(&format!("cannot write {}: {e}", target.display()));
            return Err(Status::BadInput);
        }
        eprintln!("wrote {}", target.display());
    }
    Ok(())
}
