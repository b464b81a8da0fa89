//! The front door for memory models: a name or a path in, a compiled model out.
//!
//! A model is named as herd7's users name one: a shipped model (`sc`), a `.cat` file with
//! its includes beside it (and herd's conventions: the bell `NAME.bell` and the macro file
//! `NAME.def` beside `NAME.cat`), or herd's configuration file (`linux-kernel.cfg`, its
//! `model`, `bell`, `macros` and `variant` lines). The conventions are decided here, once,
//! for every front end; the files themselves come through a reader the caller hands in, so
//! the library still does no I/O.

use std::fmt;
use std::io;
use std::path::Path;
use std::sync::Arc;

use crate::cat::{self, Model};
use crate::diagnostics::{InputError, SourceFile};
use crate::syntax::def::{self, Macros};

/// Reads the file at a path: the only way the model door touches files. A file that does
/// not exist answers [`io::ErrorKind::NotFound`]: the door then falls back to the shipped
/// files, or goes without the optional bell and macro files.
pub type ReadFile<'a> = &'a mut dyn FnMut(&Path) -> io::Result<Vec<u8>>;

/// A model as its name loaded it: the model, and the macros of the `.def` file beside it
/// when there is one (herd's `-macros`), with which the tests are read.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct LoadedModel {
    pub model: Arc<Model>,
    pub macros: Option<Arc<Macros>>,
    /// The file the model was read from, for notes about it (`models/sc.cat` when
    /// shipped).
    pub file: String,
}

impl LoadedModel {
    /// What the model's definitions read as empty because nemos does not compute them yet,
    /// said to the user once per model (see [`Model::placeholders`]).
    pub fn placeholder_note(&self) -> Option<String> {
        (!self.model.placeholders.is_empty()).then(|| {
            format!(
                "nemos reads as empty what it does not compute yet in {}: {}",
                self.file,
                self.model.placeholders.join(", ")
            )
        })
    }
}

/// Why a model did not load.
#[derive(Clone, Debug)]
pub enum ModelError {
    /// A model, bell or macro file is wrong: every problem found, located in it.
    Input(InputError),
    /// No such model, a file that cannot be read, a configuration without a model: nothing
    /// to locate in a file.
    Unlocated(String),
}

impl ModelError {
    /// The problems, with source excerpts for located ones.
    pub fn render(&self, color: bool) -> String {
        match self {
            ModelError::Input(e) => e.render(color),
            ModelError::Unlocated(message) => message.clone(),
        }
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::Input(e) => f.write_str(&e.short()),
            ModelError::Unlocated(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for ModelError {}

impl From<InputError> for ModelError {
    fn from(e: InputError) -> Self {
        ModelError::Input(e)
    }
}

/// The model `spec` names: a shipped model by name, herd's configuration file (`.cfg`), or a
/// model file by path (its includes relative to it, then among the shipped files).
pub fn load_model(spec: &str, read: ReadFile) -> Result<LoadedModel, ModelError> {
    load_model_with(spec, read, None)
}

/// [`load_model`], with herd's library folder (`herd7 -I`, the `HERDLIB` of herd's
/// users): an include found neither beside the model nor among the files of herd's library
/// nemos knows natively is read there.
pub fn load_model_with(
    spec: &str,
    read: ReadFile,
    herd_lib: Option<&Path>,
) -> Result<LoadedModel, ModelError> {
    if spec.ends_with(".cfg") {
        return load_conf(Path::new(spec), read, herd_lib);
    }
    let is_path = spec.ends_with(".cat") || spec.contains('/') || spec.contains('\\');
    if !is_path {
        return load_shipped(spec);
    }
    let path = Path::new(spec);
    // herd reads the bell before the model; so do nemos's messages.
    let bell = optional(read, &path.with_extension("bell"), "bell")?
        .map(|bell| resolve_bell(bell, &path.with_extension("bell"), read))
        .transpose()?;
    let macros = optional(read, &path.with_extension("def"), "macros")?
        .map(|file| parse_macros(&file))
        .transpose()?;
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let model = match read(path) {
        Ok(bytes) => SourceFile::from_bytes(path.display().to_string(), bytes),
        // A shipped file's name (`sc.cat`) where no such file is.
        Err(e) if e.kind() == io::ErrorKind::NotFound && cat::shipped(spec).is_some() => {
            return load_shipped(spec)
        }
        // A shipped file's name in a folder without it (herd's library has no c11.cat,
        // but its c11.def): the shipped model, with the files beside the path.
        Err(e)
            if e.kind() == io::ErrorKind::NotFound
                && file_name.as_deref().and_then(cat::shipped).is_some() =>
        {
            match file_name.as_deref().and_then(cat::shipped) {
                Some(file) => file,
                None => return load_shipped(spec),
            }
        }
        Err(e) => {
            return Err(ModelError::Unlocated(format!(
                "cannot read model {}: {e}",
                path.display()
            )))
        }
    };
    // The variants of herd's configuration file of the same name beside the model
    // (`linux-kernel.cfg`'s `variant lkmmv2`), as `--conf` would switch them on.
    let variants = optional(read, &path.with_extension("cfg"), "configuration")?
        .map(|conf| conf_lines(&conf.text).3)
        .unwrap_or_default();
    load_model_file(model, path, bell, macros, variants, read, herd_lib)
}

fn load_shipped(spec: &str) -> Result<LoadedModel, ModelError> {
    match cat::load_shipped(spec) {
        Some(Ok(model)) => Ok(LoadedModel {
            file: format!("models/{}.cat", model.name),
            model: Arc::new(model),
            macros: None,
        }),
        Some(Err(e)) => Err(ModelError::Input(e)),
        None => {
            let names: Vec<&str> = cat::SHIPPED.iter().map(|m| m.0).collect();
            Err(ModelError::Unlocated(format!(
                "unknown model `{spec}`; shipped models: {} (or give a path to a .cat file)",
                names.join(", ")
            )))
        }
    }
}

/// herd's configuration file (`herd7 -conf linux-kernel.cfg`): its `model`, `bell`,
/// `macros` and `variant` lines, files relative to it; herd's other settings (drawing,
/// output) mean nothing to nemos and are passed over.
fn load_conf(
    path: &Path,
    read: ReadFile,
    herd_lib: Option<&Path>,
) -> Result<LoadedModel, ModelError> {
    let bytes = read(path).map_err(|e| {
        ModelError::Unlocated(format!("cannot read configuration {}: {e}", path.display()))
    })?;
    let text = crate::diagnostics::decode(bytes);
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let (model, bell, macros, variants) = conf_lines(&text);
    let join = |file: Option<String>| file.map(|f| dir.join(f));
    let (model, bell, macros) = (join(model), join(bell), join(macros));
    let Some(model) = model else {
        return Err(ModelError::Unlocated(format!(
            "{} has no `model` line (nemos reads herd's `model`, `bell`, `macros` and \
             `variant` lines)",
            path.display()
        )));
    };
    let bell = bell
        .map(|bell| {
            let file = required(read, &bell, "bell")?;
            resolve_bell(file, &bell, read)
        })
        .transpose()?;
    let macros = macros
        .map(|m| parse_macros(&required(read, &m, "macros")?))
        .transpose()?;
    let text = read(&model).map_err(|e| {
        ModelError::Unlocated(format!("cannot read model {}: {e}", model.display()))
    })?;
    let file = SourceFile::from_bytes(model.display().to_string(), text);
    load_model_file(file, &model, bell, macros, variants, read, herd_lib)
}

/// The `model`, `bell` and `macros` lines of herd's configuration file, and its variants.
type ConfLines = (Option<String>, Option<String>, Option<String>, Vec<String>);

fn conf_lines(text: &str) -> ConfLines {
    let (mut model, mut bell, mut macros, mut variants) = (None, None, None, Vec::new());
    for line in text.lines().map(str::trim) {
        let (key, value) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let value = value.trim().to_string();
        match key {
            "model" => model = Some(value),
            "bell" => bell = Some(value),
            "macros" => macros = Some(value),
            "variant" => variants.extend(value.split(',').map(|v| v.trim().to_string())),
            _ => {}
        }
    }
    (model, bell, macros, variants)
}

/// A model file with its bell, macros and variants; its includes are read beside it, then
/// in herd's library folder when one is named, then among the shipped files.
fn load_model_file(
    file: SourceFile,
    path: &Path,
    bell: Option<SourceFile>,
    macros: Option<Arc<Macros>>,
    variants: Vec<String>,
    read: ReadFile,
    herd_lib: Option<&Path>,
) -> Result<LoadedModel, ModelError> {
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = path.file_stem().map_or(path.display().to_string(), |s| {
        s.to_string_lossy().into_owned()
    });
    let mut resolve = |include: &str| -> Result<SourceFile, String> {
        let candidate = dir.join(include);
        let first = match read(&candidate) {
            Ok(bytes) => {
                return Ok(SourceFile::from_bytes(
                    candidate.display().to_string(),
                    bytes,
                ))
            }
            Err(e) => format!("{}: {e}", candidate.display()),
        };
        if let Some(lib) = herd_lib {
            let candidate = lib.join(include);
            if let Ok(bytes) = read(&candidate) {
                return Ok(SourceFile::from_bytes(
                    candidate.display().to_string(),
                    bytes,
                ));
            }
        }
        cat::shipped(include).ok_or(first)
    };
    let options = cat::Options {
        bell,
        variants,
        tags_from_events: macros.is_some(),
    };
    let model = cat::load_with(&file, &name, &mut resolve, &options)?;
    Ok(LoadedModel {
        model: Arc::new(model),
        macros,
        file: path.display().to_string(),
    })
}

/// The file at `path`, or `None` where there is none; `what` says which file it is.
fn optional(read: ReadFile, path: &Path, what: &str) -> Result<Option<SourceFile>, ModelError> {
    match read(path) {
        Ok(bytes) => Ok(Some(SourceFile::from_bytes(
            path.display().to_string(),
            bytes,
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ModelError::Unlocated(format!(
            "cannot read {what} {}: {e}",
            path.display()
        ))),
    }
}

/// The file at `path`, which a configuration names: `what` says which of its files it is.
fn required(read: ReadFile, path: &Path, what: &str) -> Result<SourceFile, ModelError> {
    read(path)
        .map(|bytes| SourceFile::from_bytes(path.display().to_string(), bytes))
        .map_err(|e| ModelError::Unlocated(format!("cannot read {what} {}: {e}", path.display())))
}

/// A macro file, every line it cannot read reported at its line and column.
fn parse_macros(file: &SourceFile) -> Result<Arc<Macros>, ModelError> {
    Ok(Arc::new(def::parse(file)?))
}

/// A bell file, or the file that a symbolic link saved as a file names: git without
/// symlinks, and herdtools7's catalogue, check a link out as a file holding only its
/// target's path.
fn resolve_bell(file: SourceFile, path: &Path, read: ReadFile) -> Result<SourceFile, ModelError> {
    let text = file.text.trim();
    if !text.ends_with(".bell") || text.contains(char::is_whitespace) {
        return Ok(file);
    }
    let target = path.parent().unwrap_or(Path::new("")).join(text);
    match read(&target) {
        Ok(bytes) => Ok(SourceFile::from_bytes(target.display().to_string(), bytes)),
        Err(e) => Err(ModelError::Unlocated(format!(
            "{} holds only the path `{text}` (a symbolic link saved as a file), and {} \
             cannot be read: {e}",
            path.display(),
            target.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use std::path::PathBuf;

    use super::*;

    /// A file system of a few files, with the reads it was asked for.
    struct Files {
        files: HashMap<PathBuf, &'static str>,
        asked: Vec<PathBuf>,
    }

    impl Files {
        fn new(files: &[(&str, &'static str)]) -> Files {
            Files {
                files: files.iter().map(|(p, t)| (PathBuf::from(p), *t)).collect(),
                asked: Vec::new(),
            }
        }

        fn read(&mut self, path: &Path) -> io::Result<Vec<u8>> {
            self.asked.push(path.to_path_buf());
            self.files
                .get(path)
                .map(|text| text.as_bytes().to_vec())
                .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
        }

        fn load(&mut self, spec: &str) -> Result<LoadedModel, ModelError> {
            load_model(spec, &mut |path| self.read(path))
        }
    }

    const MODEL: &str = "\"Mine\"\ninclude \"base.cat\"\nacyclic po | com as mine\n";
    const BASE: &str = "let com = rf | co | fr\n";

    #[test]
    fn a_model_file_reads_its_includes_beside_it_through_the_reader_alone() {
        let mut fs = Files::new(&[("m/mine.cat", MODEL), ("m/base.cat", BASE)]);
        let loaded = fs.load("m/mine.cat").expect("the model loads");
        assert_eq!(loaded.model.check_names(), vec!["mine".to_string()]);
        assert!(loaded.macros.is_none());
        assert_eq!(loaded.file, "m/mine.cat");
        // The bell and the macros beside the model were looked for, and nothing else.
        let asked: Vec<&str> = fs.asked.iter().filter_map(|p| p.to_str()).collect();
        assert_eq!(
            asked,
            [
                "m/mine.bell",
                "m/mine.def",
                "m/mine.cat",
                "m/mine.cfg",
                "m/base.cat"
            ]
        );
    }

    #[test]
    fn an_include_missing_beside_the_model_comes_from_the_shipped_files() {
        let mut fs = Files::new(&[("m/mine.cat", "include \"sc.cat\"\n")]);
        let loaded = fs.load("m/mine.cat").expect("sc.cat is shipped");
        assert!(loaded.model.check_names().contains(&"sc".to_string()));
    }

    #[test]
    fn a_shipped_name_reads_no_file_and_a_shipped_file_name_only_where_no_such_file_is() {
        let mut fs = Files::new(&[]);
        assert_eq!(fs.load("rc11").expect("shipped").file, "models/rc11.cat");
        assert!(fs.asked.is_empty());
        assert_eq!(fs.load("sc.cat").expect("shipped").model.name, "sc");
        assert_eq!(fs.load("sc.cat").expect("shipped").file, "models/sc.cat");
        let mut fs = Files::new(&[("sc.cat", MODEL), ("base.cat", BASE)]);
        assert_eq!(fs.load("sc.cat").expect("the user's file").file, "sc.cat");
    }

    #[test]
    fn a_macro_file_beside_the_model_comes_with_it() {
        let mut fs = Files::new(&[
            ("k/mine.cat", MODEL),
            ("k/base.cat", BASE),
            ("k/mine.def", "WRITE_ONCE(X,V) { __store{once}(X,V); }\n"),
        ]);
        let loaded = fs.load("k/mine.cat").expect("the model loads");
        let macros = loaded.macros.expect("the macros beside the model");
        assert!(macros.get("WRITE_ONCE").is_some());
    }

    #[test]
    fn a_configuration_names_the_model_its_bell_and_variants_relative_to_it() {
        let mut fs = Files::new(&[
            (
                "conf/herd.cfg",
                "# herd's settings\nmodel mine.cat\nbell mine.bell\nvariant a,b\ngraph columns\n",
            ),
            ("conf/mine.cat", MODEL),
            ("conf/base.cat", BASE),
            ("conf/mine.bell", "\"bell\"\nenum Kinds = 'a || 'b\n"),
        ]);
        let loaded = fs.load("conf/herd.cfg").expect("the configuration loads");
        assert_eq!(loaded.file, "conf/mine.cat");
        assert!(fs.asked.contains(&PathBuf::from("conf/mine.bell")));
    }

    #[test]
    fn what_cannot_be_read_or_named_is_said_without_a_location() {
        let mut fs = Files::new(&[("none.cfg", "bell x.bell\n")]);
        let unknown = fs.load("nonesuch").unwrap_err().to_string();
        assert!(unknown.contains("unknown model `nonesuch`; shipped models: sc"));
        let missing = fs.load("m/missing.cat").unwrap_err().to_string();
        assert!(
            missing.starts_with("cannot read model m/missing.cat"),
            "{missing}"
        );
        let no_model = fs.load("none.cfg").unwrap_err().to_string();
        assert!(no_model.contains("has no `model` line"), "{no_model}");
    }

    #[test]
    fn a_bell_saved_as_a_symlinks_text_is_followed() {
        let mut fs = Files::new(&[
            ("k/mine.cat", MODEL),
            ("k/base.cat", BASE),
            ("k/mine.bell", "../bells/mine.bell\n"),
            ("k/../bells/mine.bell", "\"bell\"\nenum Kinds = 'a || 'b\n"),
        ]);
        fs.load("k/mine.cat").expect("the linked bell is read");
        assert!(fs.asked.contains(&PathBuf::from("k/../bells/mine.bell")));
        let mut fs = Files::new(&[("k/mine.cat", MODEL), ("k/mine.bell", "../gone.bell")]);
        let error = fs.load("k/mine.cat").unwrap_err().to_string();
        assert!(
            error.contains("holds only the path `../gone.bell`"),
            "{error}"
        );
    }
}
