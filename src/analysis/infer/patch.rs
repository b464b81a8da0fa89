//! The program's source with inferred orders written in (`nemos infer --write`).
//!
//! Edits are made on the text of each site's call, read with the library table: an
//! `_explicit` call gets its order arguments replaced; a call whose order is implied
//! (`atomic_load(x)`, seq_cst) becomes its `_explicit` form with the order appended; a
//! removed fence becomes a comment. Everything else in the file is kept byte for byte.

use super::{choice_name, failure_order, Choice, Site};
use crate::program::library::{self, Family, OrderSource};
use crate::program::{MemOrder, Program};

/// Why the orders cannot be written into the source.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    #[error(
        "line {line}: `{text}` takes no memory-order argument; only C11 atomics can be rewritten"
    )]
    NotC11 { line: usize, text: String },
}

/// The source of `program` with the orders of `assignment` (one per site) written in.
pub fn patched(
    program: &Program,
    sites: &[Site],
    assignment: &[Choice],
) -> Result<String, PatchError> {
    let source: &str = &program.source.text;
    let mut edits: Vec<Edit> = Vec::new();
    for (site, &choice) in sites.iter().zip(assignment) {
        if choice == site.written {
            continue;
        }
        let start = site.span.start;
        let text = &source[start..site.span.end];
        let not_c11 = || PatchError::NotC11 {
            line: site.line,
            text: text.to_string(),
        };
        let call = CallText::parse(text).ok_or_else(not_c11)?;
        let entry = library::lookup(call.name(text))
            .filter(|e| e.family == Family::C11)
            .ok_or_else(not_c11)?;
        let Some(order) = choice else {
            edits.push(Edit {
                at: start,
                end: site.span.end,
                text: format!("/* removed by nemos infer: {text} */"),
            });
            continue;
        };
        let failure = entry.failure_order.map(|_| failure_order(order));
        match entry.order {
            Some(OrderSource::Argument(position, _)) => {
                let mut replace = |position: usize, order: MemOrder| {
                    if let Some(&(a, b)) = call.args.get(position) {
                        edits.push(Edit {
                            at: start + a,
                            end: start + b,
                            text: order_name(order),
                        });
                    }
                };
                replace(position, order);
                if let (Some(OrderSource::Argument(position, _)), Some(failure)) =
                    (entry.failure_order, failure)
                {
                    replace(position, failure);
                }
            }
            Some(OrderSource::Fixed(_)) => {
                let explicit = format!("{}_explicit", call.name(text));
                if library::lookup(&explicit).is_none() {
                    return Err(not_c11());
                }
                edits.push(Edit {
                    at: start + call.name_end,
                    end: start + call.name_end,
                    text: "_explicit".to_string(),
                });
                let mut appended = format!(", {}", order_name(order));
                if let Some(failure) = failure {
                    appended.push_str(&format!(", {}", order_name(failure)));
                }
                edits.push(Edit {
                    at: start + call.close,
                    end: start + call.close,
                    text: appended,
                });
            }
            None => return Err(not_c11()),
        }
    }
    // Nested calls (`atomic_store(y, atomic_load(x))`) give edits inside one another's
    // span but never overlapping: they are applied from the end of the file backwards.
    edits.sort_by_key(|e| std::cmp::Reverse((e.at, e.end)));
    let mut out = source.to_string();
    for edit in edits {
        out.replace_range(edit.at..edit.end, &edit.text);
    }
    Ok(out)
}

fn order_name(order: MemOrder) -> String {
    format!("memory_order_{}", choice_name(Some(order)))
}

/// Replace the bytes `at..end` of the source with `text`.
struct Edit {
    at: usize,
    end: usize,
    text: String,
}

/// Where a call's name ends, its arguments lie (trimmed) and its closing parenthesis is,
/// as byte offsets into the call's text.
struct CallText {
    name_end: usize,
    args: Vec<(usize, usize)>,
    close: usize,
}

impl CallText {
    fn parse(text: &str) -> Option<CallText> {
        let name_end = text
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(text.len());
        let open = name_end + text[name_end..].find('(')?;
        if !text[name_end..open].trim().is_empty() || name_end == 0 {
            return None;
        }
        let mut args = Vec::new();
        let mut depth = 0usize;
        let mut arg_start = open + 1;
        let trimmed = |a: usize, b: usize| {
            let inner = &text[a..b];
            let lead = inner.len() - inner.trim_start().len();
            (a + lead, a + lead + inner.trim().len())
        };
        for (i, c) in text.char_indices().skip_while(|&(i, _)| i <= open) {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' if depth == 0 => {
                    let arg = trimmed(arg_start, i);
                    if arg.0 < arg.1 {
                        args.push(arg);
                    }
                    return Some(CallText {
                        name_end,
                        args,
                        close: i,
                    });
                }
                ')' | ']' | '}' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => {
                    args.push(trimmed(arg_start, i));
                    arg_start = i + 1;
                }
                _ => {}
            }
        }
        None
    }

    fn name<'t>(&self, text: &'t str) -> &'t str {
        &text[..self.name_end]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_split_at_top_level_commas() {
        let text = "atomic_store_explicit(y, atomic_load_explicit(x, mo), memory_order_release)";
        let call = CallText::parse(text).expect("a call");
        assert_eq!(call.name(text), "atomic_store_explicit");
        let args: Vec<&str> = call.args.iter().map(|&(a, b)| &text[a..b]).collect();
        assert_eq!(
            args,
            vec!["y", "atomic_load_explicit(x, mo)", "memory_order_release"]
        );
        assert_eq!(call.close, text.len() - 1);
        assert!(CallText::parse("x = 1").is_none());
        let empty = CallText::parse("smp_mb()").expect("a call");
        assert!(empty.args.is_empty());
    }
}
