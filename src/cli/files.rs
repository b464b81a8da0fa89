//! The test files that the command line names: files, directories searched for tests,
//! herd's `@FILE` indexes and standard input.

use std::path::{Path, PathBuf};

/// The tests a command-line argument names: `-` (standard input), `@FILE` (herd's index of
/// test files, one per line), a directory (its `*.litmus` and `*.c`, recursively; none is an
/// error) or a file.
pub fn collect_files(path: &Path) -> Result<Vec<PathBuf>, String> {
    if path.as_os_str() == STDIN {
        return Ok(vec![path.to_path_buf()]);
    }
    if let Some(index) = path.to_str().and_then(|p| p.strip_prefix('@')) {
        return index_files(Path::new(index));
    }
    if path.is_dir() {
        let mut files = Vec::new();
        let mut stack = vec![path.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let entries = std::fs::read_dir(&dir)
                .map_err(|e| format!("cannot read directory {}: {e}", dir.display()))?;
            for entry in entries.flatten() {
                let p = entry.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "litmus" || x == "c") {
                    files.push(p);
                }
            }
        }
        if files.is_empty() {
            // Silence and exit 0 would read as "all tests passed".
            return Err(format!(
                "no litmus test (*.litmus) or C program (*.c) found in {}",
                path.display()
            ));
        }
        files.sort();
        Ok(files)
    } else if path.exists() {
        Ok(vec![path.to_path_buf()])
    } else {
        Err(format!("{}: no such file or directory", path.display()))
    }
}

/// The argument that reads a test from standard input.
pub const STDIN: &str = "-";

/// The files an index names, as herd's `@FILE` reads them: one per line, blank lines and
/// `#` comments skipped, relative names taken from the index's directory.
fn index_files(index: &Path) -> Result<Vec<PathBuf>, String> {
    let text = std::fs::read_to_string(index)
        .map_err(|e| format!("cannot read the index {}: {e}", index.display()))?;
    let base = index.parent().unwrap_or(Path::new(""));
    let mut files = Vec::new();
    for line in text.lines() {
        let name = line.split('#').next().unwrap_or("").trim();
        if name.is_empty() {
            continue;
        }
        let named = Path::new(name);
        let file = if named.is_absolute() {
            named.to_path_buf()
        } else {
            base.join(named)
        };
        files.extend(collect_files(&file)?);
    }
    Ok(files)
}
