//! Memory models named on the command line: a shipped one, or a `.cat` file with its
//! includes beside it.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use nemos::cat::Model;
use nemos::diagnostics::SourceFile;
use nemos::syntax::def::Macros;

use super::batch::Status;
use super::output::{colors, eprint_error, Stdout};

/// A model as the command line loaded it: the model, and the macros of the `.def` file
/// beside it when there is one (herd's `-macros`), with which the tests are read.
#[derive(Clone)]
pub struct Loaded {
    pub model: Arc<Model>,
    pub macros: Option<Arc<Macros>>,
}

/// A shipped model by name, or a model file by path (its includes relative to it, then
/// among the shipped files). Loaded once per run, so that a bad model file is reported
/// once, not once per litmus file.
pub fn load_model(spec: &str) -> Result<Loaded, Status> {
    type Cache = std::collections::HashMap<String, Result<Loaded, Status>>;
    static MODELS: std::sync::OnceLock<std::sync::Mutex<Cache>> = std::sync::OnceLock::new();
    let cache = MODELS.get_or_init(Default::default);
    if let Some(known) = cache.lock().ok().and_then(|c| c.get(spec).cloned()) {
        return known;
    }
    let loaded = load_model_uncached(spec);
    if let Ok(mut c) = cache.lock() {
        c.insert(spec.to_string(), loaded.clone());
    }
    loaded
}

fn load_model_uncached(spec: &str) -> Result<Loaded, Status> {
    if spec.ends_with(".cfg") {
        return load_conf(Path::new(spec));
    }
    let is_path = spec.ends_with(".cat") || spec.contains('/') || spec.contains('\\');
    if !is_path || nemos::cat::shipped(spec).is_some() && !Path::new(spec).exists() {
        return match nemos::cat::load_shipped(spec) {
            Some(Ok(model)) => Ok(Loaded {
                model: Arc::new(model),
                macros: None,
            }),
            Some(Err(e)) => {
                eprint!("{}", e.render(colors().stderr));
                Err(Status::BadInput)
            }
            None => {
                let names: Vec<&str> = nemos::cat::SHIPPED.iter().map(|m| m.0).collect();
                eprint_error(&format!(
                    "unknown model `{spec}`; shipped models: {} (or give a path to a .cat file)",
                    names.join(", ")
                ));
                Err(Status::BadInput)
            }
        };
    }
    let path = Path::new(spec);
    let bell = match bell_beside(path) {
        Ok(bell) => bell,
        Err(message) => {
            eprint_error(&message);
            return Err(Status::BadInput);
        }
    };
    let macros = macros_beside(path)?;
    load_model_file(path, bell, macros, Vec::new())
}

/// herd's configuration file (`herd7 -conf linux-kernel.cfg`): its `model`, `bell`,
/// `macros` and `variant` lines, files relative to it; herd's other settings (drawing,
/// output) mean nothing to nemos and are passed over.
fn load_conf(path: &Path) -> Result<Loaded, Status> {
    let bytes = std::fs::read(path).map_err(|e| {
        eprint_error(&format!(
            "cannot read configuration {}: {e}",
            path.display()
        ));
        Status::BadInput
    })?;
    let text = nemos::diagnostics::decode(bytes);
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let (mut model, mut bell, mut macros, mut variants) = (None, None, None, Vec::new());
    for line in text.lines().map(str::trim) {
        let (key, value) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let value = value.trim();
        match key {
            "model" => model = Some(dir.join(value)),
            "bell" => bell = Some(dir.join(value)),
            "macros" => macros = Some(dir.join(value)),
            "variant" => variants.extend(value.split(',').map(|v| v.trim().to_string())),
            _ => {}
        }
    }
    let Some(model) = model else {
        eprint_error(&format!(
            "{} has no `model` line (nemos reads herd's `model`, `bell`, `macros` and \
             `variant` lines)",
            path.display()
        ));
        return Err(Status::BadInput);
    };
    let bell = match bell.as_deref().map(read_bell) {
        Some(Ok(bell)) => Some(bell),
        Some(Err(message)) => {
            eprint_error(&message);
            return Err(Status::BadInput);
        }
        None => None,
    };
    let macros = match macros {
        Some(m) => Some(read_macros(&m)?),
        None => None,
    };
    load_model_file(&model, bell, macros, variants)
}

/// A model file with its bell, macros and variants.
fn load_model_file(
    path: &Path,
    bell: Option<SourceFile>,
    macros: Option<Arc<Macros>>,
    variants: Vec<String>,
) -> Result<Loaded, Status> {
    let bytes = std::fs::read(path).map_err(|e| {
        eprint_error(&format!("cannot read model {}: {e}", path.display()));
        Status::BadInput
    })?;
    let file = SourceFile::from_bytes(path.display().to_string(), bytes);
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = path.file_stem().map_or(path.display().to_string(), |s| {
        s.to_string_lossy().into_owned()
    });
    let mut resolve = |include: &str| -> Result<SourceFile, String> {
        let candidate = dir.join(include);
        match std::fs::read(&candidate) {
            Ok(bytes) => Ok(SourceFile::from_bytes(
                candidate.display().to_string(),
                bytes,
            )),
            Err(e) => {
                nemos::cat::shipped(include).ok_or_else(|| format!("{}: {e}", candidate.display()))
            }
        }
    };
    let options = nemos::cat::Options {
        bell,
        variants,
        tags_from_events: macros.is_some(),
    };
    nemos::cat::load_with(&file, &name, &mut resolve, &options)
        .map(|model| {
            // Loaded once per run (`load_model` caches it), so said once.
            if !model.placeholders.is_empty() {
                eprintln!(
                    "note: nemos reads as empty what it does not compute yet in {}: {}",
                    path.display(),
                    model.placeholders.join(", ")
                );
            }
            Loaded {
                model: Arc::new(model),
                macros: macros.clone(),
            }
        })
        .map_err(|e| {
            eprint!("{}", e.render(colors().stderr));
            Status::BadInput
        })
}

/// herd's macro file beside a model (`linux-kernel.def` for `linux-kernel.cat`), read:
/// the tests' calls expand with its macros, and their events carry its tags.
fn macros_beside(model: &Path) -> Result<Option<Arc<Macros>>, Status> {
    let path = model.with_extension("def");
    if !path.exists() {
        return Ok(None);
    }
    read_macros(&path).map(Some)
}

/// A macro file, every line it cannot read reported at its line and column.
fn read_macros(path: &Path) -> Result<Arc<Macros>, Status> {
    let bytes = std::fs::read(path).map_err(|e| {
        eprint_error(&format!("cannot read macros {}: {e}", path.display()));
        Status::BadInput
    })?;
    let file = SourceFile::from_bytes(path.display().to_string(), bytes);
    match nemos::syntax::def::parse(&file) {
        Ok(macros) => Ok(Arc::new(macros)),
        Err(e) => {
            eprint!("{}", e.render(colors().stderr));
            Err(Status::BadInput)
        }
    }
}

/// herd's bell file beside a model (`linux-kernel.bell` for `linux-kernel.cat`), which
/// herd reads before the model: its `enum`s and definitions are the model's vocabulary.
fn bell_beside(model: &Path) -> Result<Option<SourceFile>, String> {
    let path = model.with_extension("bell");
    if !path.exists() {
        return Ok(None);
    }
    read_bell(&path).map(Some)
}

/// A bell file, or the file a symbolic link saved as a file names.
fn read_bell(path: &Path) -> Result<SourceFile, String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read bell {}: {e}", path.display()))?;
    let file = SourceFile::from_bytes(path.display().to_string(), bytes);
    // A symbolic link checked out as a file (git without symlinks, herdtools7's
    // catalogue) holds only its target's path.
    let text = file.text.trim();
    if text.ends_with(".bell") && !text.contains(char::is_whitespace) {
        let target = path.parent().unwrap_or(Path::new("")).join(text);
        return match std::fs::read(&target) {
            Ok(bytes) => Ok(SourceFile::from_bytes(target.display().to_string(), bytes)),
            Err(e) => Err(format!(
                "{} holds only the path `{text}` (a symbolic link saved as a file), and {} \
                 cannot be read: {e}",
                path.display(),
                target.display()
            )),
        };
    }
    Ok(file)
}

pub fn models_command(name: Option<&str>) -> Status {
    match name {
        Some(spec) => {
            if let Some(file) = nemos::cat::shipped(spec) {
                Stdout::new().write(&file.text);
                return Status::Clean;
            }
            match std::fs::read(spec) {
                Ok(bytes) => {
                    Stdout::new().write(&nemos::diagnostics::decode(bytes));
                    Status::Clean
                }
                Err(_) => {
                    eprint_error(&format!(
                        "unknown model `{spec}`; `nemos models` lists them"
                    ));
                    Status::BadInput
                }
            }
        }
        None => {
            let mut out = String::new();
            for (name, file, _) in nemos::cat::SHIPPED {
                let model = match load_model(name) {
                    Ok(m) => m.model,
                    Err(s) => return s,
                };
                let mut line = format!(
                    "{name:<10} {:<12} checks: {}",
                    model.title.as_deref().unwrap_or(file),
                    model.check_names().join(", ")
                );
                let flags = model.flag_names();
                if !flags.is_empty() {
                    line.push_str(&format!("; flags: {}", flags.join(", ")));
                }
                let _ = writeln!(out, "{line}");
            }
            Stdout::new().write(&out);
            Status::Clean
        }
    }
}
