//! The litmus parser on arbitrary bytes: any input gives a test or diagnostics, never a
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nemos::diagnostics::SourceFile;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let file = SourceFile::new("fuzz.litmus".to_string(), text);
    if let Err(error) = nemos::syntax::parse(&file) {
        // Rendering walks the spans: it must cope with whatever the parser reported.
        let _ = error.render(false);
    }
});
