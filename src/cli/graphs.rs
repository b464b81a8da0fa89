//! Where `--dot` and `--svg` write the pictures of a batch, and writing them.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::args::GraphArgs;
use super::batch::{ewriteln, Status, TestRun};
use super::files::collect_files;

#[derive(Clone, Default)]
pub struct GraphTargets {
    dot: Option<DotTarget>,
    svg: Option<DotTarget>,
}

impl GraphTargets {
    pub fn wanted(&self) -> bool {
        self.dot.is_some() || self.svg.is_some()
    }

    /// The targets of `args` for `paths`; `--svg` needs Graphviz, looked for once here.
    pub fn of(paths: &[PathBuf], args: GraphArgs) -> Result<GraphTargets, String> {
        if args.svg.is_some() {
            let found = std::process::Command::new("dot")
                .arg("-V")
                .stderr(std::process::Stdio::null())
                .status();
            if !found.is_ok_and(|s| s.success()) {
                return Err(
                    "--svg runs Graphviz's `dot`, which is not on PATH: install \
                     Graphviz, or write the graph with --dot and render it elsewhere"
                        .into(),
                );
            }
        }
        Ok(GraphTargets {
            dot: args.dot.map(|t| dot_target(paths, t)).transpose()?,
            svg: args.svg.map(|t| dot_target(paths, t)).transpose()?,
        })
    }
}

#[derive(Clone)]
enum DotTarget {
    File(PathBuf),
    Dir(PathBuf),
}

impl DotTarget {
    /// One test writes the file given; in a directory, each test's file is named after its
    /// path (`litmus/SB.litmus` to `litmus_SB.dot`) so that equal names in different
    /// directories do not collide.
    fn file_for(&self, test: &Path, extension: &str) -> PathBuf {
        match self {
            DotTarget::File(file) => file.clone(),
            DotTarget::Dir(dir) => {
                let parts: Vec<String> = test
                    .with_extension(extension)
                    .components()
                    .filter_map(|c| match c {
                        std::path::Component::Normal(part) => {
                            Some(part.to_string_lossy().into_owned())
                        }
                        _ => None,
                    })
                    .collect();
                dir.join(parts.join("_"))
            }
        }
    }
}

/// A directory for a batch (created if need be) or an existing directory, else one file.
fn dot_target(paths: &[PathBuf], target: PathBuf) -> Result<DotTarget, String> {
    let mut tests = 0;
    for path in paths {
        tests += collect_files(path).map_or(1, |files| files.len());
    }
    if tests > 1 {
        std::fs::create_dir_all(&target)
            .map_err(|e| format!("cannot create the directory {}: {e}", target.display()))?;
        Ok(DotTarget::Dir(target))
    } else if target.is_dir() {
        Ok(DotTarget::Dir(target))
    } else {
        Ok(DotTarget::File(target))
    }
}

/// Write one test's graph where `--dot` and `--svg` ask; `graph` is `None` when there is
/// no execution to draw.
pub fn write_graphs(
    t: &mut TestRun,
    path: &Path,
    targets: &GraphTargets,
    graph: Option<String>,
) -> Result<(), Status> {
    let Some(graph) = graph else {
        ewriteln!(t, "note: {}: no execution to draw", path.display());
        return Ok(());
    };
    let mut fail = |message: String| {
        ewriteln!(t, "error: {message}");
        Err(Status::BadInput)
    };
    if let Some(target) = &targets.dot {
        let file = target.file_for(path, "dot");
        if let Err(e) = std::fs::write(&file, &graph) {
            return fail(format!("cannot write {}: {e}", file.display()));
        }
    }
    if let Some(target) = &targets.svg {
        let file = target.file_for(path, "svg");
        if let Err(message) = render_svg(&graph, &file) {
            return fail(message);
        }
    }
    Ok(())
}

/// Render DOT text to an SVG file with Graphviz's `dot -Tsvg`.
fn render_svg(graph: &str, file: &Path) -> Result<(), String> {
    use std::process::{Command, Stdio};
    let mut dot = Command::new("dot")
        .args(["-Tsvg", "-o"])
        .arg(file)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run Graphviz's `dot`: {e}"))?;
    if let Some(mut input) = dot.stdin.take() {
        input
            .write_all(graph.as_bytes())
            .map_err(|e| format!("cannot send the graph to `dot`: {e}"))?;
    }
    let done = dot
        .wait_with_output()
        .map_err(|e| format!("`dot` did not finish: {e}"))?;
    if done.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`dot` could not render {}: {}",
            file.display(),
            String::from_utf8_lossy(&done.stderr).trim()
        ))
    }
}
