//! The model language: memory models as data, in the style of herd7's cat.
//!
//! A model file is parsed (lalrpop, `grammar/cat.lalrpop`) into the syntax tree of [`ast`],
//! then checked (`check/`): includes are inlined, every name is resolved to a base
//! relation or set of [`Base`] or to an earlier `let`, and every expression gets its type (a
//! set of events or a relation between events). The result, a [`Model`], is what
//! `encode::model` compiles into clauses. This stage sees only text: reading included files
//! is left to a resolver the caller passes in, so that the CLI stays the only place doing
//! I/O.
//!
//! The shipped models (`models/*.cat`) are compiled into the binary.

pub mod ast;
mod check;
mod lexer;
pub mod memory;
mod polarity;

pub use check::{Base, Check, Model, Options, RecGroup, TExpr, Type};
pub use check::{ISLOCKED_TAG, TRYLOCK_FAILED_TAG, TRYLOCK_TAG};

use lalrpop_util::ParseError;

use crate::diagnostics::Span;
use crate::diagnostics::{Diagnostic, InputError, SourceFile};

lalrpop_util::lalrpop_mod!(
    #[allow(
        clippy::all,
        clippy::pedantic,
        unused_qualifications,
        dead_code,
        unused_imports
    )]
    grammar,
    "/cat.rs"
);

/// The models shipped with nemos: name, file name, text.
pub const SHIPPED: &[(&str, &str, &str)] = &[
    ("sc", "sc.cat", include_str!("../../models/sc.cat")),
    ("tso", "tso.cat", include_str!("../../models/tso.cat")),
    ("pso", "pso.cat", include_str!("../../models/pso.cat")),
    (
        "coherence",
        "coherence.cat",
        include_str!("../../models/coherence.cat"),
    ),
    ("rc11", "rc11.cat", include_str!("../../models/rc11.cat")),
    ("c11", "c11.cat", include_str!("../../models/c11.cat")),
];

/// The text of a shipped model by its name (`sc`) or file name (`sc.cat`).
pub fn shipped(name: &str) -> Option<SourceFile> {
    SHIPPED
        .iter()
        .find(|(n, f, _)| *n == name || *f == name)
        .map(|(_, f, text)| SourceFile::new(format!("models/{f}"), *text))
}

/// A shipped model, parsed and checked. Includes resolve among the shipped files.
pub fn load_shipped(name: &str) -> Option<Result<Model, InputError>> {
    let file = shipped(name)?;
    let short = SHIPPED
        .iter()
        .find(|(n, f, _)| *n == name || *f == name)
        .map_or(name, |s| s.0);
    Some(load(&file, short, &mut |path: &str| {
        shipped(path).ok_or_else(|| format!("no shipped model file `{path}`"))
    }))
}

/// The SC model, which every shipped configuration can rely on.
pub fn sc() -> Model {
    match load_shipped("sc") {
        Some(Ok(model)) => model,
        // The shipped file is tested to parse; failing here is a build defect, not input.
        _ => panic!("models/sc.cat is shipped and must compile"),
    }
}

/// Parse and check a model file. `resolve` returns the text of an included file (by the
/// path written in the `include`), or a message saying why it cannot.
pub fn load(
    file: &SourceFile,
    name: &str,
    resolve: &mut dyn FnMut(&str) -> Result<SourceFile, String>,
) -> Result<Model, InputError> {
    check::check(file, name, resolve, &Options::default())
}

/// [`load`], with herd's bell file read first and the variants switched on.
pub fn load_with(
    file: &SourceFile,
    name: &str,
    resolve: &mut dyn FnMut(&str) -> Result<SourceFile, String>,
    options: &Options,
) -> Result<Model, InputError> {
    check::check(file, name, resolve, options)
}

/// Parse one file into its syntax tree.
pub fn parse(file: &SourceFile) -> Result<ast::ModelAst, InputError> {
    parse_text(&file.text).map_err(|d| InputError::single(file, d))
}

fn parse_text(text: &str) -> Result<ast::ModelAst, Diagnostic> {
    if let Some(start) = unterminated_comment(text) {
        return Err(Diagnostic::new(
            "unterminated comment",
            Span::new(start, (start + 2).min(text.len())),
        )
        .with_label("this `(*` is never closed")
        .with_help("close the comment with `*)`"));
    }
    model_parser()
        .parse(lexer::tokens(text))
        .map_err(|e| syntax_error(e, text))
}

/// The parser of cat files, built once per process.
fn model_parser() -> &'static grammar::ModelParser {
    static PARSER: std::sync::OnceLock<grammar::ModelParser> = std::sync::OnceLock::new();
    PARSER.get_or_init(grammar::ModelParser::new)
}

/// The offset of a `(*` with no `*)` after it (outside strings and line comments).
fn unterminated_comment(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i + 1 < bytes.len() {
        match bytes[i] {
            b'"' => match text[i + 1..].find('"') {
                Some(end) => i += end + 2,
                None => return None,
            },
            b'#' => i = text[i..].find('\n').map_or(text.len(), |end| i + end),
            b'/' if bytes[i + 1] == b'/' => {
                i = text[i..].find('\n').map_or(text.len(), |end| i + end);
            }
            b'(' if bytes[i + 1] == b'*' => match text[i + 2..].find("*)") {
                Some(end) => i += end + 4,
                None => return Some(i),
            },
            _ => i += 1,
        }
    }
    None
}

fn describe_expected(expected: &[String]) -> String {
    let words: Vec<String> = expected
        .iter()
        .map(|e| match e.as_str() {
            // The lexer's names and tags (`lexer::Kind`).
            "NAME" | "TAG" => "a name".to_string(),
            "STRING" => "a string".to_string(),
            _ => format!("`{}`", e.trim_matches('"')),
        })
        .collect();
    let mut unique: Vec<String> = Vec::new();
    for w in words {
        if !unique.contains(&w) {
            unique.push(w);
        }
    }
    match unique.len() {
        0 => String::new(),
        1 => format!("expected {}", unique[0]),
        _ => format!("expected one of {}", unique.join(", ")),
    }
}

/// What nemos says about a construct of herd's cat that its subset does not compile, by
/// the keyword or character that starts it: the construct's name (with the verb that
/// agrees with it) and what to do instead.
fn herd_construct(start: &str) -> Option<(&'static str, &'static str)> {
    Some(match start {
        "procedure" => (
            "`procedure` is",
            "write the procedure's checks out where it is called",
        ),
        "call" => (
            "`call` (of a procedure) is",
            "write the procedure's checks out here",
        ),
        "with" | "from" => (
            "`with ... from` is",
            "it chooses a relation among candidates, as herd's cos.cat does to generate co; \
             nemos enumerates co and rf itself: delete the line",
        ),
        "try" => (
            "`try ... with` is",
            "write the expression alone: nemos reports a name it does not know",
        ),
        "if" | "then" | "else" => (
            "`if ... then ... else` is",
            "keep the branch of the variant you want",
        ),
        "match" | "||" | "->" => (
            "`match` is",
            "nemos's cat has no tags or sets of sets to match on",
        ),
        "fun" => (
            "`fun` (a function) is",
            "write the function's body out where it is applied",
        ),
        "in" => (
            "`let ... in` (a local definition) is",
            "make it a `let` of its own before this statement",
        ),
        "forall" | "do" => (
            "`forall ... do ... end` is",
            "write the loop's checks out, one per element",
        ),
        "enum" | "instructions" | "default" | "compat" => (
            "a bell file's declaration (`enum`, `instructions`, `default`) is",
            "nemos's base sets and relations are fixed: `nemos models` shows models using them",
        ),
        "debug" => ("`debug` is", "delete the line"),
        "when" => (
            "`let rec ... when` is",
            "write the fixpoint with `+` or `*`",
        ),
        "yield" | "subset" => (
            "this keyword is",
            "rewrite it with `let` definitions and checks",
        ),
        "++" => (
            "`++` (adding an element to a set) is",
            "nemos's cat has no sets of relations",
        ),
        "{" | "}" => ("explicit sets `{...}` are", "nemos's cat has no set values"),
        "'" => ("tags (`'name`) are", "nemos's cat has no tags"),
        _ => return None,
    })
}

fn unsupported(start: &str, span: Span) -> Option<Diagnostic> {
    let (construct, help) = herd_construct(start)?;
    Some(
        Diagnostic::new(
            format!("{construct} not supported by nemos's cat subset"),
            span,
        )
        .with_label("herd's cat, beyond nemos's subset")
        .with_help(help),
    )
}

/// The `let` at `l`, met inside an expression, read as a statement of its own: if it
/// stops at an `in` (or at the `let` of a nested `let ... in`), it is herd's `let ... in`
/// rather than the next statement after an unfinished expression; if it defines a
/// function, that is what to report.
fn local_definition(text: &str, l: usize) -> Option<Diagnostic> {
    let rest = &text[l..];
    let Err(ParseError::UnrecognizedToken {
        token: (tl, _, tr),
        expected,
    }) = model_parser().parse(lexer::tokens(rest))
    else {
        return None;
    };
    if matches!(rest.get(tl..tr), Some("in" | "let")) {
        return unsupported("in", Span::new(l, l + "let".len()));
    }
    function_definition(text, l + tl, &expected)
}

/// `let f(x) = ...` and `let f x = ...` stop the parser at the parameter: say so at the
/// function's name.
fn function_definition(text: &str, l: usize, expected: &[String]) -> Option<Diagnostic> {
    if expected.len() != 1 || expected[0] != "\"=\"" {
        return None;
    }
    let before = text[..l].trim_end();
    let name_start = before
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '\'')))
        .map_or(0, |i| i + 1);
    let name = &before[name_start..];
    Some(
        Diagnostic::new(
            "function definitions are not supported by nemos's cat subset",
            Span::new(name_start, before.len()),
        )
        .with_label(format!("`{name}` takes parameters"))
        .with_help(
            "write the function's body out where it is applied; \
             `domain(r)` and `range(r)` are the built-in functions",
        ),
    )
}

fn syntax_error(
    error: ParseError<usize, lexer::Tok<'_>, lexer::LexError>,
    text: &str,
) -> Diagnostic {
    match error {
        ParseError::InvalidToken { location }
        | ParseError::User {
            error: lexer::LexError(location),
        } => {
            let c = text[location..].chars().next().unwrap_or(' ');
            let span = Span::new(location, location + c.len_utf8());
            if let Some(d) = unsupported(&c.to_string(), span) {
                return d;
            }
            Diagnostic::new(
                format!("unexpected character `{c}`"),
                Span::new(location, location + c.len_utf8()),
            )
            .with_label("not part of the model language")
        }
        ParseError::UnrecognizedEof { location, expected } => {
            Diagnostic::new("unexpected end of file", Span::new(location, location))
                .with_label(describe_expected(&expected))
        }
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let span = Span::new(l, r);
            let word = text.get(l..r).unwrap_or("");
            if let Some(d) = unsupported(word, span) {
                return d;
            }
            if word == "let" {
                if let Some(d) = local_definition(text, l) {
                    return d;
                }
            }
            if let Some(d) = function_definition(text, l, &expected) {
                return d;
            }
            Diagnostic::new(format!("unexpected `{tok}`"), span)
                .with_label(describe_expected(&expected))
        }
        ParseError::ExtraToken { token: (l, tok, r) } => {
            let span = Span::new(l, r);
            unsupported(text.get(l..r).unwrap_or(""), span)
                .unwrap_or_else(|| Diagnostic::new(format!("unexpected `{tok}`"), span))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_model_compiles() {
        for (name, _, _) in SHIPPED {
            let model = load_shipped(name).expect("listed").unwrap_or_else(|e| {
                panic!("{name}: {}", e.short());
            });
            assert!(!model.checks.is_empty(), "{name} has checks");
        }
    }

    #[test]
    fn precedence_follows_herd() {
        let parse_expr = |s: &str| {
            grammar::ExprParser::new()
                .parse(lexer::tokens(s))
                .map_err(|e| format!("{e}"))
        };
        // `|` is loosest, then `;`, then `\`, then `&`.
        let e = parse_expr("a | b ; c \\ d & e").unwrap();
        let ast::ExprKind::Binary(ast::BinOp::Union, _, rhs) = e.kind else {
            panic!("union at the top")
        };
        let ast::ExprKind::Binary(ast::BinOp::Seq, _, rhs) = rhs.kind else {
            panic!("sequence next")
        };
        let ast::ExprKind::Binary(ast::BinOp::Diff, _, rhs) = rhs.kind else {
            panic!("difference next")
        };
        assert!(matches!(
            rhs.kind,
            ast::ExprKind::Binary(ast::BinOp::Inter, _, _)
        ));
        // Postfix `*` versus the product.
        let e = parse_expr("W * R").unwrap();
        assert!(matches!(
            e.kind,
            ast::ExprKind::Binary(ast::BinOp::Product, _, _)
        ));
        let e = parse_expr("po* ; rf").unwrap();
        let ast::ExprKind::Binary(ast::BinOp::Seq, lhs, _) = e.kind else {
            panic!("sequence")
        };
        assert!(matches!(lhs.kind, ast::ExprKind::Unary(ast::UnOp::Star, _)));
        let e = parse_expr("rf^-1 ; co+").unwrap();
        assert!(matches!(
            e.kind,
            ast::ExprKind::Binary(ast::BinOp::Seq, _, _)
        ));
    }

    #[test]
    fn comments_titles_and_statements() {
        let file = SourceFile::new(
            "t.cat",
            "\"T\" (* a (* comment *)\nlet a = po | rf and b = [W]; po\nacyclic a as x\nflag ~empty b as undefined\nshow a\n",
        );
        let ast = parse(&file).unwrap();
        assert_eq!(ast.title.as_deref(), Some("T"));
        assert_eq!(ast.statements.len(), 4);
    }

    #[test]
    fn unterminated_comment_is_located() {
        let file = SourceFile::new("t.cat", "let a = po\n(* open\n");
        let e = parse(&file).unwrap_err();
        assert!(e.short().starts_with("t.cat:2:1: unterminated comment"));
    }
}
