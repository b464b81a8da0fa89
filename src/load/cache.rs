//! A checked model kept between runs: the bytes of a cache entry, and whether an entry
//! still holds.
//!
//! Checking a model (parsing its files, inlining its includes and functions, typing it,
//! reading its macro file) costs the same in every process; for the kernel's model it was a
//! third of a small test's instructions. A caller that keeps files between runs (the
//! binary, `cli/cache.rs`) may keep the [`LoadedModel`] instead. An entry is never trusted:
//! it holds, besides the model, what made it (the name it was loaded by, the caller's
//! [`CacheKey`]: the working directory, herd's library, the build) and every read the load
//! made with what it answered (the whole file, or the kind of error). It is used only when
//! its checksum holds, its key is the caller's, and the same reads, made again, answer the
//! same: a load is a function of what its reads answered, so it would give the same model.
//! Anything else (another build, an edited or removed include, a new file where a missing
//! one was looked for, a corrupt or truncated entry) reads as no entry.
//!
//! This module does no I/O: the entry's bytes come from the caller, the reads go through
//! the caller's [`ReadFile`].

use std::hash::{Hash, Hasher};
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::model::{load_model_with, LoadedModel, ModelError, ReadFile};

/// What names an entry besides the files it read: the caller fills it in.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CacheKey {
    /// The model as named (`sc`, `x.cat`, `linux-kernel.cfg`).
    pub spec: String,
    /// herd's library folder, when one is named.
    pub herd_lib: Option<PathBuf>,
    /// The directory relative paths are read from.
    pub cwd: PathBuf,
    /// The program that wrote the entry: another build may read a model otherwise, or lay
    /// it out otherwise.
    pub build: String,
}

impl CacheKey {
    /// A name for the entry's file, from the key alone (the files are checked on reading).
    pub fn file_name(&self) -> String {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        self.hash(&mut hasher);
        format!("model-{:016x}.bin", hasher.finish())
    }
}

/// What one read answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReadAnswer {
    /// As one byte string (`serde_bytes`): a `Vec<u8>` of serde's own is read back one
    /// element at a time, which was a quarter of reading the kernel model's entry.
    Bytes(#[serde(with = "serde_bytes")] Vec<u8>),
    /// The read failed with this kind of error (`NotFound` where there is no file).
    Failed(String),
}

impl ReadAnswer {
    fn of(answer: &io::Result<Vec<u8>>) -> ReadAnswer {
        match answer {
            Ok(bytes) => ReadAnswer::Bytes(bytes.clone()),
            Err(e) => ReadAnswer::Failed(format!("{:?}", e.kind())),
        }
    }
}

/// The reads of one load, in order.
pub type Reads = Vec<(PathBuf, ReadAnswer)>;

/// [`load_model_with`], and the reads it made with what they answered.
pub fn load_model_recording(
    spec: &str,
    read: ReadFile,
    herd_lib: Option<&Path>,
) -> (Result<LoadedModel, ModelError>, Reads) {
    let mut reads = Vec::new();
    let loaded = load_model_with(
        spec,
        &mut |path: &Path| {
            let answer = read(path);
            reads.push((path.to_path_buf(), ReadAnswer::of(&answer)));
            answer
        },
        herd_lib,
    );
    (loaded, reads)
}

/// The first bytes of every entry, with the layout's version: an entry of another layout
/// is not read.
const MAGIC: &[u8] = b"nemos model cache 3\n";

#[derive(Serialize)]
struct EntryRef<'a> {
    key: &'a CacheKey,
    reads: &'a [(PathBuf, ReadAnswer)],
    loaded: &'a LoadedModel,
}

#[derive(Deserialize)]
struct Entry {
    key: CacheKey,
    reads: Reads,
    loaded: LoadedModel,
}

/// FxHash of the payload: a word at a time, each step a bijection of the state for a given
/// word, so an entry that differs from the one written in a single word (or in its length)
/// never passes. SipHash, a keyed hash for tables open to attack, cost a sixth of reading
/// the kernel model's entry.
fn checksum(payload: &[u8]) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    payload.hash(&mut hasher);
    hasher.finish()
}

/// The bytes of the entry for `loaded`, which `key` named and `reads` made; `None` if it
/// cannot be written down.
pub fn cache_entry(
    key: &CacheKey,
    reads: &[(PathBuf, ReadAnswer)],
    loaded: &LoadedModel,
) -> Option<Vec<u8>> {
    let payload = postcard::to_allocvec(&EntryRef { key, reads, loaded }).ok()?;
    let mut bytes = Vec::with_capacity(MAGIC.len() + 8 + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&checksum(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    Some(bytes)
}

/// The model an entry holds, if it holds for `key` and every read it records answers the
/// same through `read` now; `None` otherwise (the caller then loads the model).
pub fn cached_model(bytes: &[u8], key: &CacheKey, read: ReadFile) -> Option<LoadedModel> {
    let rest = bytes.strip_prefix(MAGIC)?;
    if rest.len() < 8 {
        return None;
    }
    let (sum, payload) = rest.split_at(8);
    if sum != checksum(payload).to_le_bytes() {
        return None;
    }
    let entry: Entry = postcard::from_bytes(payload).ok()?;
    if entry.key != *key {
        return None;
    }
    let same = entry
        .reads
        .iter()
        .all(|(path, answer)| ReadAnswer::of(&read(path)) == *answer);
    same.then_some(entry.loaded)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    const MODEL: &str = "\"Mine\"\ninclude \"base.cat\"\nacyclic po | com as mine\n";
    const BASE: &str = "let com = rf | co | fr\n";

    fn key() -> CacheKey {
        CacheKey {
            spec: "m/mine.cat".into(),
            herd_lib: None,
            cwd: PathBuf::from("/w"),
            build: "b1".into(),
        }
    }

    fn reader<'a>(
        files: &'a HashMap<&'static str, &'static str>,
    ) -> impl FnMut(&Path) -> io::Result<Vec<u8>> + 'a {
        |path: &Path| {
            path.to_str()
                .and_then(|p| files.get(p))
                .map(|text| text.as_bytes().to_vec())
                .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
        }
    }

    fn entry(files: &HashMap<&'static str, &'static str>) -> Vec<u8> {
        let (loaded, reads) = load_model_recording("m/mine.cat", &mut reader(files), None);
        let loaded = loaded.expect("the model loads");
        cache_entry(&key(), &reads, &loaded).expect("an entry")
    }

    #[test]
    fn an_entry_gives_back_the_model_while_its_files_and_key_are_the_same() {
        let files = HashMap::from([("m/mine.cat", MODEL), ("m/base.cat", BASE)]);
        let bytes = entry(&files);
        let cached = cached_model(&bytes, &key(), &mut reader(&files)).expect("a hit");
        assert_eq!(cached.model.check_names(), vec!["mine".to_string()]);
        assert_eq!(cached.file, "m/mine.cat");
        let fresh = load_model_with("m/mine.cat", &mut reader(&files), None).expect("loads");
        assert_eq!(cached.model.defs, fresh.model.defs);
        assert_eq!(
            cached
                .model
                .checks
                .iter()
                .map(|c| &c.expr)
                .collect::<Vec<_>>(),
            fresh
                .model
                .checks
                .iter()
                .map(|c| &c.expr)
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn an_edited_include_a_new_file_another_key_or_a_corrupt_entry_is_no_entry() {
        let files = HashMap::from([("m/mine.cat", MODEL), ("m/base.cat", BASE)]);
        let bytes = entry(&files);
        // An include edited.
        let edited = HashMap::from([("m/mine.cat", MODEL), ("m/base.cat", "let com = rf\n")]);
        assert!(cached_model(&bytes, &key(), &mut reader(&edited)).is_none());
        // A bell file where none was: the load would read it.
        let bell = HashMap::from([
            ("m/mine.cat", MODEL),
            ("m/base.cat", BASE),
            ("m/mine.bell", "let x = 0\n"),
        ]);
        assert!(cached_model(&bytes, &key(), &mut reader(&bell)).is_none());
        // Another build.
        let other = CacheKey {
            build: "b2".into(),
            ..key()
        };
        assert!(cached_model(&bytes, &other, &mut reader(&files)).is_none());
        // Every byte flipped in turn, and the entry cut short: never a model.
        for i in 0..bytes.len() {
            let mut corrupt = bytes.clone();
            corrupt[i] ^= 0x10;
            assert!(cached_model(&corrupt, &key(), &mut reader(&files)).is_none());
        }
        for len in 0..bytes.len() {
            assert!(cached_model(&bytes[..len], &key(), &mut reader(&files)).is_none());
        }
    }
}
