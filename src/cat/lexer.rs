//! The tokens of cat files, for the lalrpop grammar (`grammar/cat.lalrpop`, its `extern`
//! block). logos compiles the lexer into the binary; lalrpop's own regex lexer built its
//! automaton lazily in every process, which cost more than the parse itself on the
//! kernel's model files.
//!
//! The tokens are the same as lalrpop's lexer gave: the longest match wins, and a word that
//! is exactly a keyword of the grammar (or of herd's constructs nemos refuses) is that
//! keyword.

use std::fmt;

use logos::Logos;

/// What a token is; its text says which keyword or punctuation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A name: letters, digits, `_`, `.` and `-`, and an optional final `'`.
    Name,
    /// A keyword (a name the grammar spells out).
    Keyword,
    /// A tag, `'name`, with its quote.
    Tag,
    /// A string, with its quotes.
    Str,
    Punct,
}

/// A token and its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tok<'a>(pub Kind, pub &'a str);

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.1)
    }
}

/// A character no token starts with, at this offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LexError(pub usize);

impl fmt::Display for LexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid token at offset {}", self.0)
    }
}

#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(skip r"\s+")]
enum Lexeme {
    /// herd's comments; an unterminated one is caught before lexing, with its position.
    #[regex(r"\(\*[^*]*\*+([^*)][^*]*\*+)*\)", logos::skip, allow_greedy = true)]
    #[regex(r"//[^\n]*", logos::skip, allow_greedy = true)]
    #[regex(r"#[^\n]*", logos::skip, allow_greedy = true)]
    Comment,
    #[regex(r"[A-Za-z_][A-Za-z0-9_.\-]*'?")]
    Word,
    #[regex(r"'[A-Za-z_][A-Za-z0-9_.\-]*")]
    Tag,
    #[regex(r#""[^"]*""#, allow_greedy = true)]
    Str,
    #[token("&")]
    #[token("(")]
    #[token(")")]
    #[token("*")]
    #[token("+")]
    #[token("++")]
    #[token(",")]
    #[token("->")]
    #[token("0")]
    #[token(";")]
    #[token("=")]
    #[token("?")]
    #[token("[")]
    #[token("\\")]
    #[token("]")]
    #[token("]*")]
    #[token("^-1")]
    #[token("{")]
    #[token("|")]
    #[token("||")]
    #[token("}")]
    #[token("~")]
    Punct,
}

/// The words the grammar spells out, and herd's keywords of constructs nemos does not
/// compile: never names, so that the parser stops at the keyword itself and the error
/// names the construct (`herd_construct` in `cat/mod.rs`).
fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "acyclic"
            | "and"
            | "as"
            | "begin"
            | "else"
            | "empty"
            | "end"
            | "enum"
            | "flag"
            | "from"
            | "if"
            | "in"
            | "include"
            | "instructions"
            | "irreflexive"
            | "let"
            | "rec"
            | "show"
            | "then"
            | "try"
            | "undefined_unless"
            | "unshow"
            | "with"
            | "procedure"
            | "call"
            | "forall"
            | "do"
            | "match"
            | "fun"
            | "when"
            | "debug"
            | "default"
            | "yield"
            | "compat"
            | "subset"
    )
}

/// The tokens of `text`, with their offsets, for the parser.
pub fn tokens(text: &str) -> impl Iterator<Item = Result<(usize, Tok<'_>, usize), LexError>> {
    Lexeme::lexer(text).spanned().map(move |(lexeme, span)| {
        let slice = text.get(span.clone()).unwrap_or("");
        let kind = match lexeme {
            Ok(Lexeme::Word) if is_keyword(slice) => Kind::Keyword,
            Ok(Lexeme::Word) => Kind::Name,
            Ok(Lexeme::Tag) => Kind::Tag,
            Ok(Lexeme::Str) => Kind::Str,
            Ok(Lexeme::Punct) => Kind::Punct,
            // Comments are skipped, never produced.
            Ok(Lexeme::Comment) | Err(()) => return Err(LexError(span.start)),
        };
        Ok((span.start, Tok(kind, slice), span.end))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(Kind, &str)> {
        tokens(text)
            .map(|t| {
                t.map(|(_, Tok(k, s), _)| (k, s))
                    .unwrap_or((Kind::Punct, "!"))
            })
            .collect()
    }

    #[test]
    fn the_longest_match_wins_and_whole_keywords_only_are_keywords() {
        assert_eq!(
            kinds("let po-loc' = include_x (* c *) x86-TSO ]* ] ^-1 'mb \"f.cat\" 0 || |"),
            vec![
                (Kind::Keyword, "let"),
                (Kind::Name, "po-loc'"),
                (Kind::Punct, "="),
                (Kind::Name, "include_x"),
                (Kind::Name, "x86-TSO"),
                (Kind::Punct, "]*"),
                (Kind::Punct, "]"),
                (Kind::Punct, "^-1"),
                (Kind::Tag, "'mb"),
                (Kind::Str, "\"f.cat\""),
                (Kind::Punct, "0"),
                (Kind::Punct, "||"),
                (Kind::Punct, "|"),
            ]
        );
    }

    #[test]
    fn comments_are_skipped_and_a_stray_character_is_an_error_at_its_offset() {
        assert_eq!(
            kinds("a // b\n# c\n(* d ** e *) f"),
            vec![(Kind::Name, "a"), (Kind::Name, "f")]
        );
        let errors: Vec<_> = tokens("a $").filter_map(Result::err).collect();
        assert_eq!(errors, vec![LexError(2)]);
    }
}
