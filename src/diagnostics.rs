//! Errors about the user's input, located in the source text and rendered with miette.
//!
//! Every stage that reads user input (the litmus parser, the lowering into the program IR,
//! the unrolling, the model-language parser) reports problems as [`Diagnostic`]s against a
//! [`SourceFile`]. The CLI renders them; nothing here prints.

use std::fmt;
use std::sync::{Arc, OnceLock};

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceSpan};
use serde::{Deserialize, Serialize};

/// A half-open byte range `[start, end)` into the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// A source text with the name it is reported under (usually its path).
///
/// A C program is several files (the one named and the files it includes): their texts
/// are kept one after the other, each an entry of `parts`, so that a span still indexes
/// one text and every location is reported in its own file and line.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SourceFile {
    pub name: String,
    pub text: Arc<str>,
    /// The files after the first, each with the offset of its text in `text`; empty for
    /// a single file.
    pub parts: Arc<[FilePart]>,
    /// Where each line of `text` starts, built on the first [`SourceFile::line_col`]: a
    /// report names the line of every event it lists, and counting the newlines before
    /// each was 2% of `infer`'s instructions on `peterson`.
    #[serde(skip)]
    line_starts: OnceLock<Arc<[usize]>>,
}

/// One file of a [`SourceFile`] made of several, from `start` in its text on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilePart {
    pub name: String,
    pub start: usize,
}

/// Whether a file is read as C rather than as a litmus test.
pub fn is_c_file(name: &str) -> bool {
    name.ends_with(".c")
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> SourceFile {
        SourceFile {
            name: name.into(),
            text: text.into(),
            parts: Arc::new([]),
            line_starts: OnceLock::new(),
        }
    }

    /// Several files read as one: the first is `name`, the others follow, each text
    /// starting on a line of its own.
    pub fn joined(name: impl Into<String>, first: &str, others: &[(String, String)]) -> Self {
        let mut text = first.to_string();
        let mut parts = Vec::new();
        for (name, other) in others {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            parts.push(FilePart {
                name: name.clone(),
                start: text.len(),
            });
            text.push_str(other);
        }
        SourceFile {
            name: name.into(),
            text: text.into(),
            parts: parts.into(),
            line_starts: OnceLock::new(),
        }
    }

    /// The name of the file holding `offset`, and where that file's text starts.
    pub fn file_at(&self, offset: usize) -> (&str, usize) {
        match self.parts.iter().rev().find(|part| part.start <= offset) {
            Some(part) => (&part.name, part.start),
            None => (&self.name, 0),
        }
    }

    /// The text of the file holding `offset`, and where it starts.
    fn part_text(&self, offset: usize) -> (&str, usize) {
        let (_, start) = self.file_at(offset);
        let end = self
            .parts
            .iter()
            .map(|part| part.start)
            .find(|&next| next > start)
            .unwrap_or(self.text.len());
        (&self.text[start..end], start)
    }

    /// A file's bytes as herd7 reads them: a leading UTF-8 byte-order mark is dropped, and
    /// bytes that are not UTF-8 (an editor's Latin-1 `é` in a comment, common in the
    /// corpora) are read as Latin-1, one character per byte, rather than refused. Spans
    /// then index the decoded text, which is the text diagnostics show.
    pub fn from_bytes(name: impl Into<String>, bytes: Vec<u8>) -> SourceFile {
        SourceFile::new(name, decode(bytes))
    }

    /// 1-based line and column (in characters) of a byte offset, in the file holding it.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(&self.text, offset.min(self.text.len()));
        let (_, start) = self.file_at(offset);
        let starts = self.line_starts.get_or_init(|| {
            let after_newlines = self.text.match_indices('\n').map(|(i, _)| i + 1);
            std::iter::once(0).chain(after_newlines).collect()
        });
        // The lines starting at or before a byte offset (the first starts at 0).
        let lines_upto = |o: usize| starts.partition_point(|&s| s <= o);
        let line = lines_upto(offset) - lines_upto(start) + 1;
        let line_start = starts[lines_upto(offset) - 1].max(start);
        let column = self.text[line_start..offset].chars().count() + 1;
        (line, column)
    }

    /// The text of a span, for messages that quote the source.
    pub fn snippet(&self, span: Span) -> &str {
        let start = floor_char_boundary(&self.text, span.start.min(self.text.len()));
        let end = floor_char_boundary(&self.text, span.end.min(self.text.len()).max(start));
        &self.text[start..end]
    }
}

/// The text of a file's bytes: see [`SourceFile::from_bytes`].
pub fn decode(mut bytes: Vec<u8>) -> String {
    const BOM: &[u8] = b"\xef\xbb\xbf";
    if bytes.starts_with(BOM) {
        bytes.drain(..BOM.len());
    }
    match String::from_utf8(bytes) {
        Ok(text) => text,
        // Latin-1 is the first 256 code points of Unicode: each byte is the char it numbers.
        Err(e) => e.into_bytes().into_iter().map(char::from).collect(),
    }
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// One problem in the input: what is wrong, where, and how to fix it when we can say.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub message: String,
    pub span: Span,
    /// The short text under the marked source.
    pub label: String,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn new(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            span,
            label: "here".to_string(),
            help: None,
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }
}

/// All problems found in one input file.
#[derive(Clone, Debug)]
pub struct InputError {
    pub file: SourceFile,
    pub diagnostics: Vec<Diagnostic>,
}

impl InputError {
    pub fn new(file: &SourceFile, diagnostics: Vec<Diagnostic>) -> InputError {
        InputError {
            file: file.clone(),
            diagnostics,
        }
    }

    pub fn single(file: &SourceFile, diagnostic: Diagnostic) -> InputError {
        InputError::new(file, vec![diagnostic])
    }

    /// `file:line:column: message` for each diagnostic, one per line: the form editors and
    /// scripts read.
    pub fn short(&self) -> String {
        self.diagnostics
            .iter()
            .map(|d| {
                let (line, column) = self.file.line_col(d.span.start);
                let (name, _) = self.file.file_at(d.span.start);
                format!("{}:{}:{}: {}", name, line, column, d.message)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The diagnostics drawn with the marked source lines, for people.
    pub fn render(&self, color: bool) -> String {
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let handler = GraphicalReportHandler::new_themed(theme).with_context_lines(1);
        let mut out = String::new();
        for diagnostic in &self.diagnostics {
            let (line, column) = self.file.line_col(diagnostic.span.start);
            let (name, _) = self.file.file_at(diagnostic.span.start);
            // The excerpt is drawn from the file holding the span, with the span moved
            // into that file's text.
            let (text, start) = self.file.part_text(diagnostic.span.start);
            let mut local = diagnostic.clone();
            local.span = Span::new(
                diagnostic.span.start - start,
                diagnostic.span.end.saturating_sub(start).min(text.len()),
            );
            let report = Rendered {
                heading: format!("{}:{}:{}: {}", name, line, column, diagnostic.message),
                diagnostic: &local,
                source: NamedSource::new(name, text.to_string()),
            };
            if handler.render_report(&mut out, &report).is_err() {
                out.push_str(&report.heading);
            }
            out.push('\n');
        }
        out
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.short())
    }
}

impl std::error::Error for InputError {}

struct Rendered<'a> {
    heading: String,
    diagnostic: &'a Diagnostic,
    source: NamedSource<String>,
}

impl fmt::Debug for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.heading)
    }
}

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.heading)
    }
}

impl std::error::Error for Rendered<'_> {}

impl miette::Diagnostic for Rendered<'_> {
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = self.diagnostic.span;
        let length = span.end.saturating_sub(span.start);
        let label = LabeledSpan::new_with_span(
            Some(self.diagnostic.label.clone()),
            SourceSpan::new(span.start.into(), length),
        );
        Some(Box::new(std::iter::once(label)))
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.diagnostic
            .help
            .as_ref()
            .map(|h| Box::new(h.clone()) as Box<dyn fmt::Display>)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_skips_a_bom_and_reads_latin1() {
        assert_eq!(decode(b"\xef\xbb\xbfC t\n".to_vec()), "C t\n");
        assert_eq!(decode(b"caf\xc3\xa9".to_vec()), "caf\u{e9}");
        assert_eq!(decode(b"caf\xe9 \xff".to_vec()), "caf\u{e9} \u{ff}");
        // A BOM is dropped before a Latin-1 fallback, never decoded as `ï»¿`.
        assert_eq!(decode(b"\xef\xbb\xbfcaf\xe9".to_vec()), "caf\u{e9}");
        let file = SourceFile::from_bytes("t", b"(* \xe9 *) x".to_vec());
        assert_eq!(file.line_col(file.text.find('x').unwrap_or(0)), (1, 9));
    }

    /// The line index answers as counting the newlines before the offset did, in every
    /// file of a joined text, on multi-byte characters, past the end and inside a
    /// character.
    #[test]
    fn line_col_counts_lines_in_the_file_holding_the_offset() {
        let others = [
            ("b.h".to_string(), "int \u{e9};\n\n  x".to_string()),
            ("c.h".to_string(), "\ny\n".to_string()),
        ];
        let file = SourceFile::joined("a.c", "a\n\u{e9}t\nend", &others);
        let counted = |offset: usize| {
            let offset = floor_char_boundary(&file.text, offset.min(file.text.len()));
            let (_, start) = file.file_at(offset);
            let before = &file.text[start..offset];
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            let line = before.matches('\n').count() + 1;
            (line, before[line_start..].chars().count() + 1)
        };
        for offset in 0..file.text.len() + 3 {
            assert_eq!(file.line_col(offset), counted(offset), "offset {offset}");
        }
        let y = file.text.find('y').unwrap_or(0);
        assert_eq!(file.line_col(y), (2, 1));
        assert_eq!(file.file_at(y).0, "c.h");
    }
}
