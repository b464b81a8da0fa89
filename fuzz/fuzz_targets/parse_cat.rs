//! The model language on arbitrary bytes: parsing and type checking give a model or
//! diagnostics, never a panic. An `include` resolves to a shipped model when one has that
//! name and is refused otherwise, so the checker's include path is exercised too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nemos::diagnostics::SourceFile;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let file = SourceFile::new("fuzz.cat".to_string(), text);
    let mut resolve =
        |path: &str| nemos::cat::shipped(path).ok_or_else(|| format!("no model `{path}` here"));
    if let Err(error) = nemos::cat::load(&file, "fuzz", &mut resolve) {
        let _ = error.render(false);
    }
});
