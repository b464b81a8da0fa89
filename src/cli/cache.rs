//! The per-user cache of checked models: where it is, and its files (what an entry holds and
//! when it is used is `nemos::load::cache`'s).
//!
//! The entries are in `$NEMOS_CACHE_DIR` when set, else `$XDG_CACHE_HOME/nemos`, else
//! `~/.cache/nemos`, one file per model name, working directory and herd library
//! (`model-<hash>.bin`); removing the folder clears it. `--no-cache`, or `NEMOS_NO_CACHE`
//! set to anything but the empty string, turns it off. Nothing about the cache is ever an
//! error: a folder that cannot be made, an entry that cannot be read or written, is no
//! cache. An entry is written to a file of its own and renamed into place, so processes
//! that run at once each see a whole entry or none.

use std::path::{Path, PathBuf};

use nemos::load::cache::{cache_entry, cached_model, load_model_recording, CacheKey};
use nemos::{LoadedModel, ModelError};

/// The model `spec` names, from the cache when an entry holds, else loaded (and kept when
/// it loads).
pub fn load_model(
    spec: &str,
    herd_lib: Option<&Path>,
    use_cache: bool,
) -> Result<LoadedModel, ModelError> {
    let read = &mut |path: &Path| std::fs::read(path);
    let place = use_cache.then(|| place(spec, herd_lib)).flatten();
    let Some((dir, key)) = place else {
        return nemos::load_model_with(spec, read, herd_lib);
    };
    let file = dir.join(key.file_name());
    if let Some(loaded) = std::fs::read(&file)
        .ok()
        .and_then(|bytes| cached_model(&bytes, &key, read))
    {
        return Ok(loaded);
    }
    let (loaded, reads) = load_model_recording(spec, read, herd_lib);
    if let Ok(model) = &loaded {
        if let Some(bytes) = cache_entry(&key, &reads, model) {
            write_atomically(&dir, &file, &bytes);
        }
    }
    loaded
}

/// The cache's folder and the entry's key, or `None` when the cache is off or nemos cannot
/// tell which build it is.
fn place(spec: &str, herd_lib: Option<&Path>) -> Option<(PathBuf, CacheKey)> {
    if std::env::var_os("NEMOS_NO_CACHE").is_some_and(|v| !v.is_empty()) {
        return None;
    }
    let dir = folder()?;
    let key = CacheKey {
        spec: spec.to_string(),
        herd_lib: herd_lib.map(Path::to_path_buf),
        cwd: std::env::current_dir().ok()?,
        build: build()?,
    };
    Some((dir, key))
}

/// `$NEMOS_CACHE_DIR`, `$XDG_CACHE_HOME/nemos` or `~/.cache/nemos` (absolute paths only,
/// as the XDG specification asks).
fn folder() -> Option<PathBuf> {
    let absolute = |var: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    absolute("NEMOS_CACHE_DIR")
        .or_else(|| absolute("XDG_CACHE_HOME").map(|d| d.join("nemos")))
        .or_else(|| absolute("HOME").map(|d| d.join(".cache").join("nemos")))
}

/// The running binary, told apart from every other build: its version, path, size and
/// modification time (a rebuild changes the last two).
fn build() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(&exe).ok()?;
    let modified = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(format!(
        "{} {} {} {}",
        env!("CARGO_PKG_VERSION"),
        exe.display(),
        meta.len(),
        modified.as_nanos()
    ))
}

/// `bytes` as `file`, through a file of this process's own renamed into place; a failure
/// leaves no entry (and at most a stray temporary file, never a partial entry).
fn write_atomically(dir: &Path, file: &Path, bytes: &[u8]) {
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let temporary = dir.join(format!(".tmp-{}-{nanos}", std::process::id()));
    if std::fs::write(&temporary, bytes).is_ok() && std::fs::rename(&temporary, file).is_ok() {
        return;
    }
    let _ = std::fs::remove_file(&temporary);
}
