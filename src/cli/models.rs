//! Memory models named on the command line, loaded once per run through the library's
//! door ([`nemos::load_model`]) from the file system, and `nemos models`.

use std::fmt::Write as _;

use nemos::LoadedModel;

use super::batch::Status;
use super::output::{colors, eprint_error, Stdout};

/// The model `spec` names, loaded once per run: a bad model file is reported once, not once
/// per test, and so is the note on what it reads as empty.
pub fn load_model(spec: &str) -> Result<LoadedModel, Status> {
    load_model_with(spec, None, true)
}

/// [`load_model`], with herd's library folder (`--herd-lib`, `HERDLIB`), through the cache
/// of checked models when `use_cache` (`cli/cache.rs`).
pub fn load_model_with(
    spec: &str,
    herd_lib: Option<&std::path::Path>,
    use_cache: bool,
) -> Result<LoadedModel, Status> {
    type Key = (String, Option<std::path::PathBuf>);
    type Cache = std::collections::HashMap<Key, Result<LoadedModel, Status>>;
    static MODELS: std::sync::OnceLock<std::sync::Mutex<Cache>> = std::sync::OnceLock::new();
    let cache = MODELS.get_or_init(Default::default);
    let key = (spec.to_string(), herd_lib.map(std::path::Path::to_path_buf));
    if let Some(known) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return known;
    }
    let loaded = super::cache::load_model(spec, herd_lib, use_cache);
    let loaded = match loaded {
        Ok(loaded) => {
            if let Some(note) = loaded.placeholder_note() {
                eprintln!("note: {note}");
            }
            Ok(loaded)
        }
        Err(nemos::ModelError::Input(e)) => {
            eprint!("{}", e.render(colors().stderr));
            Err(Status::BadInput)
        }
        Err(nemos::ModelError::Unlocated(message)) => {
            eprint_error(&message);
            Err(Status::BadInput)
        }
    };
    if let Ok(mut c) = cache.lock() {
        c.insert(key, loaded.clone());
    }
    loaded
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
