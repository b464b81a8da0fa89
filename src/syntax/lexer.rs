//! Tokens of the litmus body (init block, threads, final condition).
//!
//! The header (`C name`, doc string, `key=value` lines) is split off by hand in
//! [`super::parser`] because test names such as `a1+Racq+rel` and metadata values are not
//! made of C tokens; everything from the init block on goes through this lexer.
//!
//! Comments: `/* ... */` and `// ...` anywhere. herd's OCaml-style `(* ... *)` comments
//! (which nest) are accepted outside thread bodies: in the init block, between threads and
//! around the final condition. Inside a thread body `(*` is a parenthesis followed by a
//! dereference, because herd7's C lexer reads code that way and tests such as
//! `if (*b) { ... }` (herd's c11popl15 `arfna`) depend on it. So a `(*` comment written
//! inside a thread body is not a comment; use `/* ... */` there.

use logos::{FilterResult, Logos};

use crate::diagnostics::Diagnostic;
use crate::syntax::ast::Span;

/// Why the lexer stopped. Kept small so logos can carry it; turned into a [`Diagnostic`]
/// by [`LexErrorKind::diagnostic`] once the text of the offending slice is known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LexErrorKind {
    #[default]
    BadCharacter,
    UnterminatedComment,
    UnterminatedString,
    IntegerTooLarge,
    KernelAnnotation,
}

impl LexErrorKind {
    /// Builds the user-facing diagnostic for an error whose slice is `text[span]`.
    pub fn diagnostic(self, text: &str, span: Span) -> Diagnostic {
        let slice = text.get(span.start..span.end).unwrap_or("");
        match self {
            LexErrorKind::BadCharacter => {
                let shown = slice.chars().next().map_or_else(String::new, |c| {
                    if c.is_control() || c.is_whitespace() {
                        format!("{c:?}")
                    } else {
                        format!("`{c}`")
                    }
                });
                Diagnostic::new(format!("unexpected character {shown}"), span)
                    .with_label("not part of the litmus language")
            }
            LexErrorKind::UnterminatedComment => {
                let help = if slice.starts_with("(*") {
                    "close the comment with `*)`; `(* ... *)` comments nest, so every `(*` \
                     inside needs its own `*)`"
                } else {
                    "close the comment with `*/`"
                };
                Diagnostic::new("unterminated comment", span)
                    .with_label("this comment is never closed")
                    .with_help(help)
            }
            LexErrorKind::UnterminatedString => Diagnostic::new("unterminated string", span)
                .with_label("this string is never closed")
                .with_help("close the string with `\"`"),
            LexErrorKind::IntegerTooLarge => {
                Diagnostic::new(format!("integer literal `{slice}` is too large"), span)
                    .with_label("does not fit in a signed 64-bit integer")
                    .with_help(format!(
                        "values must lie between {} and {}",
                        i64::MIN,
                        i64::MAX
                    ))
            }
            LexErrorKind::KernelAnnotation => {
                let (annotation, span) = match slice.find('{') {
                    Some(brace) => {
                        let end = slice.find('}').map_or(slice.len(), |e| e + 1);
                        (
                            &slice[brace..end],
                            Span::new(span.start + brace, span.start + end),
                        )
                    }
                    None => (slice, span),
                };
                Diagnostic::new(
                    format!("kernel-style `{annotation}` annotations are not supported"),
                    span,
                )
                .with_label("Linux-kernel memory-model annotation")
                .with_help(
                    "nemos reads C11 litmus tests: use the C11 atomic operations, e.g. \
                     `atomic_fetch_add_explicit(x, 1, memory_order_seq_cst)`",
                )
            }
        }
    }
}

#[derive(Logos, Clone, Debug, PartialEq, Eq)]
#[logos(error = LexErrorKind)]
#[logos(extras = bool)]
#[logos(skip r"[ \t\r\n\f\v]+")]
pub enum Tok<'a> {
    /// Only ever skipped or reported unterminated: see [`ocaml_comment`].
    #[token("/*", c_comment)]
    #[regex(r"//[^\n]*", logos::skip, allow_greedy = true)]
    Comment,

    // Names. The lexer yields `Ident` for every word; [`classify`] then turns keywords and
    // type names into their own tokens so the grammar stays LALR(1) without a symbol table.
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident(&'a str),
    /// `(*` inside a thread body: split into `(` and `*` by [`tokenize`]. Elsewhere `(*`
    /// opens a comment and is never produced.
    #[token("(*", ocaml_comment)]
    ParenStar,
    /// `name{mb}(`: herd's Linux-kernel annotations, rejected with a dedicated message.
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*\{[A-Za-z_]+\}[ \t]*\(", kernel_annotation)]
    KernelAnnotation,
    TypeWord(&'a str),
    If,
    Else,
    While,
    Do,
    Break,
    Continue,
    Return,
    For,
    Exists,
    Forall,
    Locations,
    Filter,
    True,
    False,
    Const,
    Volatile,
    Atomic,
    /// `static` and `inline` before a function definition.
    Static,
    Inline,
    /// `struct`, in a type (`struct node *p`) and a definition (`struct node { ... };`).
    Struct,
    Spec,
    /// `happens_before`, which starts a synchronisation rule in a `spec { }` block.
    HappensBefore,
    /// `atomic {`: `atomic` is only a keyword right before a block.
    #[regex(r"atomic[ \t\r\n]*\{")]
    AtomicBlock,
    /// `regions:` (herd's memory-region annotation), only a keyword before a colon.
    #[regex(r"regions[ \t]*:")]
    Regions,

    #[regex(r"[0-9]+", |lex| decimal(lex.slice()))]
    #[regex(r"0[xX][0-9a-fA-F]+", |lex| hexadecimal(lex.slice()))]
    Int(i64),
    #[regex(r#""[^"]*""#)]
    Str(&'a str),
    #[token("\"", unterminated_string)]
    UnterminatedStr,

    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(";")]
    Semi,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token("?")]
    Question,
    #[token("=")]
    Assign,
    #[token("+=")]
    PlusAssign,
    #[token("-=")]
    MinusAssign,
    #[token("++")]
    PlusPlus,
    #[token("--")]
    MinusMinus,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("&")]
    Amp,
    #[token("&&")]
    AmpAmp,
    #[token("|")]
    Pipe,
    #[token("||")]
    PipePipe,
    #[token("^")]
    Caret,
    #[token("!")]
    Bang,
    #[token("~")]
    Tilde,
    #[token("/\\")]
    Conj,
    #[token("\\/")]
    Disj,
    #[token("=>")]
    Implies,
    /// `p->next`
    #[token("->")]
    Arrow,
    /// `pool[1].next`
    #[token(".")]
    Dot,
}

fn kernel_annotation<'a>(_: &mut logos::Lexer<'a, Tok<'a>>) -> Result<(), LexErrorKind> {
    Err(LexErrorKind::KernelAnnotation)
}

fn unterminated_string<'a>(_: &mut logos::Lexer<'a, Tok<'a>>) -> Result<(), LexErrorKind> {
    Err(LexErrorKind::UnterminatedString)
}

fn decimal(s: &str) -> Result<i64, LexErrorKind> {
    s.parse().map_err(|_| LexErrorKind::IntegerTooLarge)
}

fn hexadecimal(s: &str) -> Result<i64, LexErrorKind> {
    i64::from_str_radix(&s[2..], 16).map_err(|_| LexErrorKind::IntegerTooLarge)
}

/// Length of a nested `(* ... *)` comment body, given the text after the opening `(*`.
pub(crate) fn ocaml_comment_len(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    let mut depth = 1usize;
    let mut i = 0;
    while i + 1 < bytes.len() {
        match (bytes[i], bytes[i + 1]) {
            (b'(', b'*') => {
                depth += 1;
                i += 2;
            }
            (b'*', b')') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// Length of a `/* ... */` comment body, given the text after the opening `/*`.
pub(crate) fn c_comment_len(rest: &str) -> Option<usize> {
    rest.find("*/").map(|i| i + 2)
}

/// `lex.extras` says whether the lexer is inside a thread body, where `(*` is code.
fn ocaml_comment<'a>(lex: &mut logos::Lexer<'a, Tok<'a>>) -> FilterResult<(), LexErrorKind> {
    if lex.extras {
        return FilterResult::Emit(());
    }
    match ocaml_comment_len(lex.remainder()) {
        Some(n) => {
            lex.bump(n);
            FilterResult::Skip
        }
        None => FilterResult::Error(LexErrorKind::UnterminatedComment),
    }
}

fn c_comment<'a>(lex: &mut logos::Lexer<'a, Tok<'a>>) -> FilterResult<(), LexErrorKind> {
    match c_comment_len(lex.remainder()) {
        Some(n) => {
            lex.bump(n);
            FilterResult::Skip
        }
        None => FilterResult::Error(LexErrorKind::UnterminatedComment),
    }
}

/// Words that start a type. Besides the C keywords, herd's tests use typedef names
/// (`atomic_t`, `spinlock_t`, `int128_t`, `mtx_t`, ...): any word ending in `_t` counts,
/// as do the `atomic_int`-style names of `<stdatomic.h>`.
pub fn is_type_word(word: &str) -> bool {
    is_known_type_word(word) || is_typedef_like(word)
}

/// A word taken for a type by its `_t` ending alone, which a declaration may make a name.
fn is_typedef_like(word: &str) -> bool {
    word.len() > 2 && word.ends_with("_t") && !is_known_type_word(word)
}

fn is_known_type_word(word: &str) -> bool {
    const C_TYPES: &[&str] = &[
        "int", "char", "short", "long", "unsigned", "signed", "void", "bool", "_Bool", "float",
        "double", "__int128",
    ];
    const ATOMIC_TYPES: &[&str] = &[
        "atomic_int",
        "atomic_uint",
        "atomic_long",
        "atomic_ulong",
        "atomic_llong",
        "atomic_ullong",
        "atomic_bool",
        "atomic_char",
        "atomic_schar",
        "atomic_uchar",
        "atomic_short",
        "atomic_ushort",
    ];
    C_TYPES.contains(&word) || ATOMIC_TYPES.contains(&word)
}

/// Words ending in `_t` that the file uses as names, made identifiers everywhere: C's
/// typedef names are known from their `typedef`, which litmus tests do not write, so a
/// `_t` word is a type unless the file names something with it. It does where the word
/// is followed by `(` (a function defined or called: no type is) or follows a type and its
/// stars (`int foo_t`, `struct node *next_t`: a declared name).
fn names_ending_in_t(tokens: &mut [Result<Spanned<'_>, Diagnostic>]) {
    let toks: Vec<Option<&Tok<'_>>> = tokens
        .iter()
        .map(|t| t.as_ref().ok().map(|t| &t.1))
        .collect();
    let mut names: Vec<&str> = Vec::new();
    for (i, tok) in toks.iter().enumerate() {
        let Some(Tok::TypeWord(word)) = tok else {
            continue;
        };
        if !is_typedef_like(word) || names.contains(word) {
            continue;
        }
        let called = matches!(toks.get(i + 1), Some(Some(Tok::LParen)));
        let mut before = i;
        while before > 0 && matches!(toks[before - 1], Some(Tok::Star)) {
            before -= 1;
        }
        let declared = before > 0
            && match toks[before - 1] {
                Some(Tok::TypeWord(_)) => true,
                // `struct node next_t`: a struct's name, after `struct`.
                Some(Tok::Ident(_)) => before >= 2 && matches!(toks[before - 2], Some(Tok::Struct)),
                _ => false,
            };
        if called || declared {
            names.push(word);
        }
    }
    if names.is_empty() {
        return;
    }
    for (_, tok, _) in tokens.iter_mut().flatten() {
        if let Tok::TypeWord(word) = *tok {
            if names.contains(&word) {
                *tok = Tok::Ident(word);
            }
        }
    }
}

/// Turns keyword and type-name identifiers into their own tokens.
fn classify(tok: Tok<'_>) -> Tok<'_> {
    let Tok::Ident(word) = tok else {
        return tok;
    };
    match word {
        "if" => Tok::If,
        "else" => Tok::Else,
        "while" => Tok::While,
        "do" => Tok::Do,
        "for" => Tok::For,
        "break" => Tok::Break,
        "continue" => Tok::Continue,
        "return" => Tok::Return,
        "exists" => Tok::Exists,
        "forall" => Tok::Forall,
        "locations" => Tok::Locations,
        "filter" => Tok::Filter,
        "true" => Tok::True,
        "false" => Tok::False,
        "const" => Tok::Const,
        "volatile" => Tok::Volatile,
        "_Atomic" => Tok::Atomic,
        "static" => Tok::Static,
        "struct" => Tok::Struct,
        "spec" => Tok::Spec,
        "happens_before" => Tok::HappensBefore,
        "inline" | "__inline" | "__inline__" => Tok::Inline,
        w if is_type_word(w) => Tok::TypeWord(w),
        w => Tok::Ident(w),
    }
}

/// A token with its byte range in the whole file, in the triple form lalrpop expects.
pub type Spanned<'a> = (usize, Tok<'a>, usize);

/// Lexes `text[start..]`, reporting offsets into the whole of `text`. Stops after the first
/// error, which ends the token list: the parser then reports whichever comes first, that
/// error or a syntax error before it.
pub fn tokenize(text: &str, start: usize) -> Vec<Result<Spanned<'_>, Diagnostic>> {
    let mut out = Vec::new();
    let mut lexer = Tok::lexer(&text[start..]);
    // Thread bodies are the top-level braces that follow a `)`; the init block follows
    // nothing and the `{1, 2}` of an array initialiser is nested.
    let mut depth = 0usize;
    let mut previous_was_rparen = false;
    // The `spec { }` block holds functions: code, like a thread body.
    let mut previous_was_spec = false;
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        let span = Span::new(start + range.start, start + range.end);
        let tok = match result {
            Ok(tok) => classify(tok),
            Err(kind) => {
                out.push(Err(kind.diagnostic(text, span)));
                break;
            }
        };
        match tok {
            Tok::LBrace | Tok::AtomicBlock => {
                if depth == 0 && (previous_was_rparen || previous_was_spec) {
                    lexer.extras = true;
                }
                depth += 1;
            }
            Tok::RBrace => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    lexer.extras = false;
                }
            }
            _ => {}
        }
        previous_was_rparen = tok == Tok::RParen;
        previous_was_spec = tok == Tok::Spec;
        if tok == Tok::ParenStar {
            out.push(Ok((span.start, Tok::LParen, span.start + 1)));
            out.push(Ok((span.start + 1, Tok::Star, span.end)));
        } else {
            out.push(Ok((span.start, tok, span.end)));
        }
    }
    names_ending_in_t(&mut out);
    continue_as_name(&mut out);
    out
}

/// herd's C has no `continue` statement, and tests name variables so (`continue = 1;`,
/// `r0 = *continue;`): the word is the statement only where a statement starts (after `;`,
/// `{`, `}`, `)` or `else`) and a `;` follows it, a name elsewhere.
fn continue_as_name(tokens: &mut [Result<Spanned<'_>, Diagnostic>]) {
    for i in 0..tokens.len() {
        let next_is_semi = matches!(tokens.get(i + 1), Some(Ok((_, Tok::Semi, _))));
        let starts = i > 0
            && matches!(
                tokens.get(i - 1),
                Some(Ok((
                    _,
                    Tok::Semi | Tok::LBrace | Tok::RBrace | Tok::RParen | Tok::Else,
                    _
                )))
            );
        if let Some(Ok((_, tok @ Tok::Continue, _))) = tokens.get_mut(i) {
            if !(next_is_semi && starts) {
                *tok = Tok::Ident("continue");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok<'_>> {
        tokenize(s, 0)
            .into_iter()
            .map(|r| match r {
                Ok((_, t, _)) => t,
                Err(d) => panic!("lex error: {}", d.message),
            })
            .collect()
    }

    #[test]
    fn a_word_ending_in_t_is_a_name_where_the_file_names_something_with_it() {
        // Issue 38, item 7: `int foo_t(...)` was a syntax error.
        assert_eq!(
            toks("int foo_t(int x) foo_t(1) int count_t; count_t; spinlock_t *l"),
            vec![
                Tok::TypeWord("int"),
                Tok::Ident("foo_t"),
                Tok::LParen,
                Tok::TypeWord("int"),
                Tok::Ident("x"),
                Tok::RParen,
                Tok::Ident("foo_t"),
                Tok::LParen,
                Tok::Int(1),
                Tok::RParen,
                Tok::TypeWord("int"),
                Tok::Ident("count_t"),
                Tok::Semi,
                Tok::Ident("count_t"),
                Tok::Semi,
                Tok::TypeWord("spinlock_t"),
                Tok::Star,
                Tok::Ident("l"),
            ]
        );
    }

    #[test]
    fn comments_are_skipped_and_nest() {
        assert_eq!(
            toks("a (* b (* c *) d *) /* e */ f // g\n h"),
            vec![Tok::Ident("a"), Tok::Ident("f"), Tok::Ident("h")]
        );
    }

    #[test]
    fn paren_star_is_a_comment_outside_code() {
        assert_eq!(toks("(*x)*) y"), vec![Tok::Ident("y")]);
        assert_eq!(
            toks("P0() { (*x) } (* c *)"),
            vec![
                Tok::Ident("P0"),
                Tok::LParen,
                Tok::RParen,
                Tok::LBrace,
                Tok::LParen,
                Tok::Star,
                Tok::Ident("x"),
                Tok::RParen,
                Tok::RBrace,
            ]
        );
        assert_eq!(
            toks("( *x)"),
            vec![Tok::LParen, Tok::Star, Tok::Ident("x"), Tok::RParen]
        );
    }

    #[test]
    fn keywords_types_and_numbers() {
        assert_eq!(
            toks("if atomic_int atomic_load spinlock_t 0x10 42 atomic { regions :"),
            vec![
                Tok::If,
                Tok::TypeWord("atomic_int"),
                Tok::Ident("atomic_load"),
                Tok::TypeWord("spinlock_t"),
                Tok::Int(16),
                Tok::Int(42),
                Tok::AtomicBlock,
                Tok::Regions,
            ]
        );
    }

    #[test]
    fn offsets_are_absolute() {
        let text = "C x\n{ y }";
        let spans: Vec<_> = tokenize(text, 4)
            .into_iter()
            .filter_map(Result::ok)
            .map(|(l, _, r)| (l, r))
            .collect();
        assert_eq!(spans, vec![(4, 5), (6, 7), (8, 9)]);
    }

    #[test]
    fn errors() {
        let kind = |s: &str| match tokenize(s, 0).pop() {
            Some(Err(d)) => d.message,
            other => panic!("expected an error, got {other:?}"),
        };
        assert_eq!(kind("a (* b"), "unterminated comment");
        assert_eq!(kind("a /* b"), "unterminated comment");
        assert_eq!(kind("\"abc"), "unterminated string");
        assert_eq!(kind("a $"), "unexpected character `$`");
        assert_eq!(
            kind("99999999999999999999"),
            "integer literal `99999999999999999999` is too large"
        );
        assert_eq!(
            kind("f{mb}(x)"),
            "kernel-style `{mb}` annotations are not supported"
        );
    }
}
