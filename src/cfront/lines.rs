//! From the preprocessor's output back to the user's files, through its line markers.

use std::collections::HashMap;

use crate::diagnostics::{SourceFile, Span};

/// Where each preprocessed line came from, and where that line is in the joined text of
/// the user's files.
pub struct LineMap {
    /// For each preprocessed line: its offset in the preprocessed text, and the offset in
    /// the joined text of the user's line it came from with that line's length (`None`
    /// for a line of nemos's headers or of the preprocessor's own).
    lines: Vec<(usize, Option<(usize, usize)>)>,
    preprocessed: String,
    joined: std::sync::Arc<str>,
}

/// `# 12 "file.c" 2`: the next line is line 12 of `file.c`.
fn marker(line: &str) -> Option<(usize, &str)> {
    let rest = line.strip_prefix("# ")?;
    let (number, rest) = rest.split_once(' ')?;
    let number = number.parse().ok()?;
    let rest = rest.strip_prefix('"')?;
    let end = rest.rfind('"')?;
    Some((number, &rest[..end]))
}

impl LineMap {
    pub fn new(preprocessed: &str, main_name: &str, file: &SourceFile) -> LineMap {
        // Line starts of each user file in the joined text, by the name markers give it.
        let mut files: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
        let mut bounds: Vec<(&str, usize)> = vec![(main_name, 0)];
        bounds.extend(file.parts.iter().map(|p| (p.name.as_str(), p.start)));
        for (i, &(name, start)) in bounds.iter().enumerate() {
            let end = bounds.get(i + 1).map_or(file.text.len(), |b| b.1);
            let text = &file.text[start..end];
            let mut starts = Vec::new();
            let mut offset = start;
            for line in text.split('\n') {
                starts.push((offset, line.len()));
                offset += line.len() + 1;
            }
            files.insert(name, starts);
        }
        let mut lines = Vec::new();
        let mut current: Option<(&str, usize)> = None;
        let mut offset = 0;
        for line in preprocessed.split('\n') {
            if let Some((number, name)) = marker(line) {
                lines.push((offset, None));
                current = Some((name, number));
            } else {
                let place = current.and_then(|(name, number)| {
                    files.get(name)?.get(number.checked_sub(1)?).copied()
                });
                lines.push((offset, place));
                if let Some((_, number)) = &mut current {
                    *number += 1;
                }
            }
            offset += line.len() + 1;
        }
        LineMap {
            lines,
            preprocessed: preprocessed.to_string(),
            joined: file.text.clone(),
        }
    }

    /// The user's text a preprocessed span came from: the same tokens on the lines they
    /// came from when they are found there (columns move under macro expansion), else the
    /// first line.
    pub fn span(&self, start: usize, end: usize) -> Span {
        let Some((first, user_start, user_len)) = self.user_line(start) else {
            return super::nowhere();
        };
        let user_line = self
            .joined
            .get(user_start..user_start + user_len)
            .unwrap_or("");
        let line_end = self.line_end(first);
        let token = self
            .preprocessed
            .get(start..end.min(line_end).max(start))
            .unwrap_or("")
            .trim();
        let column = start - self.lines[first].0;
        let found = if token.is_empty() {
            None
        } else if user_line
            .get(column..)
            .is_some_and(|s| s.starts_with(token))
        {
            Some(column)
        } else {
            user_line.find(token)
        };
        let Some(found) = found else {
            let leading = user_line.len() - user_line.trim_start().len();
            return Span::new(user_start + leading, user_start + user_len);
        };
        let mut span = Span::new(user_start + found, user_start + found + token.len());
        if end > line_end {
            // The span goes on past this preprocessed line: end it where its last token
            // is in the user's text.
            if let Some(last) = self.end_of(end) {
                if last > span.end {
                    span.end = last;
                }
            }
            // `if (f(a, NULL))`: the user's line closes a parenthesis the span did not open.
            while let Some(text) = self.joined.get(span.start..span.end) {
                let unbalanced = text.matches(')').count() > text.matches('(').count();
                if !(unbalanced && text.ends_with(')')) {
                    break;
                }
                span.end -= 1;
            }
        }
        span
    }

    /// The preprocessed line holding `offset`, and the user's line it came from.
    fn user_line(&self, offset: usize) -> Option<(usize, usize, usize)> {
        let index = match self.lines.binary_search_by(|(o, _)| o.cmp(&offset)) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let (_, place) = self.lines.get(index)?;
        let (user_start, user_len) = (*place)?;
        Some((index, user_start, user_len))
    }

    fn line_end(&self, index: usize) -> usize {
        let start = self.lines[index].0;
        self.preprocessed[start..]
            .find('\n')
            .map_or(self.preprocessed.len(), |i| start + i)
    }

    /// Where, in the user's text, the preprocessed text ending at `end` ends.
    fn end_of(&self, end: usize) -> Option<usize> {
        let (_, user_start, user_len) = self.user_line(end.checked_sub(1)?)?;
        let user_line = self.joined.get(user_start..user_start + user_len)?;
        // The tokens around a macro's expansion are not all in the user's text: the
        // span ends where the user's line does, before its `;`.
        let kept = user_line.trim_end().trim_end_matches(';').trim_end();
        Some(user_start + kept.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_point_into_the_file_a_marker_names() {
        let main = "#include \"lib.c\"\nint main() { return f(); }\n";
        let lib = "int f()\n{ return 1; }\n";
        let file = SourceFile::joined("main.c", main, &[("./lib.c".to_string(), lib.to_string())]);
        let preprocessed = "# 1 \"<stdin>\"\n# 1 \"./lib.c\" 1\nint f()\n{ return 1; }\n\
                            # 2 \"<stdin>\" 2\nint main() { return f(); }\n";
        let map = LineMap::new(preprocessed, "<stdin>", &file);
        let at = preprocessed.find("return 1").unwrap();
        let span = map.span(at, at + 6);
        assert_eq!(file.snippet(span), "return");
        assert_eq!(file.line_col(span.start), (2, 3));
        assert_eq!(file.file_at(span.start).0, "./lib.c");
        let at = preprocessed.find("f();").unwrap();
        let span = map.span(at, at + 1);
        assert_eq!(file.line_col(span.start), (2, 21));
        assert_eq!(file.file_at(span.start).0, "main.c");
    }
}
