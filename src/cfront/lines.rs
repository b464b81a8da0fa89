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

    /// The user's text a preprocessed span came from: the same token on the line it came
    /// from when it is found there (columns move under macro expansion), else the line.
    pub fn span(&self, start: usize, end: usize) -> Span {
        let index = match self
            .lines
            .binary_search_by(|(offset, _)| offset.cmp(&start))
        {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let Some(&(line_start, Some((user_start, user_len)))) = self.lines.get(index) else {
            return super::nowhere();
        };
        let user_line = self
            .joined
            .get(user_start..user_start + user_len)
            .unwrap_or("");
        let line_end = self.preprocessed[line_start..]
            .find('\n')
            .map_or(self.preprocessed.len(), |i| line_start + i);
        let token_end = end.min(line_end).max(start);
        let token = self.preprocessed.get(start..token_end).unwrap_or("").trim();
        let column = start - line_start;
        if !token.is_empty() {
            if user_line
                .get(column..)
                .is_some_and(|s| s.starts_with(token))
            {
                return Span::new(user_start + column, user_start + column + token.len());
            }
            if let Some(found) = user_line.find(token) {
                return Span::new(user_start + found, user_start + found + token.len());
            }
        }
        let leading = user_line.len() - user_line.trim_start().len();
        Span::new(user_start + leading, user_start + user_len)
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
