//! From source text to [`LitmusTest`].
//!
//! herd7 first cuts a litmus file into sections and only then parses each one; we do the same
//! for the header, whose test name (`a1+Racq+rel`, `imm-E3.8-alt`) and `key=value` lines are
//! not C tokens. The header is read by hand here; everything from the init block's `{` on is
//! lexed by [`super::lexer`] and parsed by the lalrpop grammar in `grammar/litmus.lalrpop`,
//! with spans kept as offsets into the whole file.

use lalrpop_util::ParseError;

use crate::diagnostics::{Diagnostic, InputError, SourceFile};
use crate::syntax::ast::*;
use crate::syntax::lexer::{self, Spanned, Tok};

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_qualifications, dead_code)]
    litmus,
    "/litmus.rs"
);

/// Parses a whole litmus file. A problem is reported as exactly one diagnostic: the first
/// one found, since anything after a syntax error would mostly be noise.
pub fn parse(file: &SourceFile) -> Result<LitmusTest, InputError> {
    parse_text(&file.text).map_err(|d| InputError::single(file, d))
}

fn parse_text(text: &str) -> Result<LitmusTest, Diagnostic> {
    let header = parse_header(text)?;
    let tokens = lexer::tokenize(text, header.body_start);
    let ok_tokens: Vec<Spanned<'_>> = tokens.iter().filter_map(|t| t.clone().ok()).collect();
    let body = litmus::BodyParser::new()
        .parse(tokens)
        .map_err(|e| syntax_error(e, text, &ok_tokens))?;
    let mut specs = body.specs.into_iter();
    let spec = specs.next();
    if let Some(second) = specs.next() {
        return Err(Diagnostic::new("a test has one `spec` block", second.span)
            .with_label("second `spec` block")
            .with_help("put every method's sequential version in the first one"));
    }
    let mut metadata = header.metadata;
    if let Some((regions, _)) = body.regions {
        metadata.push(("regions".to_string(), regions));
    }
    Ok(LitmusTest {
        arch: header.arch,
        name: header.name,
        doc: header.doc,
        metadata,
        init: body.init,
        structs: body.structs,
        functions: body.functions,
        threads: body.threads,
        spec,
        locations: body.locations,
        filter: body.filter,
        condition: body.condition,
    })
}

/// Parses a single expression: for tests and tools that build expressions from text.
pub fn parse_expr(text: &str) -> Result<Expr, Diagnostic> {
    let tokens = lexer::tokenize(text, 0);
    let ok_tokens: Vec<Spanned<'_>> = tokens.iter().filter_map(|t| t.clone().ok()).collect();
    litmus::ExprParser::new()
        .parse(tokens)
        .map_err(|e| syntax_error(e, text, &ok_tokens))
}

/// Parses a proposition over the final state, as written after `exists`.
pub fn parse_prop(text: &str) -> Result<Prop, Diagnostic> {
    let tokens = lexer::tokenize(text, 0);
    let ok_tokens: Vec<Spanned<'_>> = tokens.iter().filter_map(|t| t.clone().ok()).collect();
    litmus::PropParser::new()
        .parse(tokens)
        .map_err(|e| syntax_error(e, text, &ok_tokens))
}

// ------------------------------------------------------------------------------- header

struct Header {
    arch: String,
    name: Ident,
    doc: Option<String>,
    metadata: Vec<(String, String)>,
    body_start: usize,
}

const LAYOUT_HELP: &str = "a litmus test is laid out as: the header line `C name`, an optional \
                           \"doc string\" and `key=value` lines, the init block `{ x = 0; }`, \
                           the threads `P0(int *x) { ... }`, then the final condition";

/// Skips whitespace and comments from `pos`; fails on an unterminated comment.
fn skip_trivia(text: &str, mut pos: usize) -> Result<usize, Diagnostic> {
    loop {
        let rest = &text[pos..];
        let trimmed = rest.trim_start();
        pos += rest.len() - trimmed.len();
        let (len, unterminated) = if let Some(after) = trimmed.strip_prefix("(*") {
            (lexer::ocaml_comment_len(after).map(|n| n + 2), "(*")
        } else if let Some(after) = trimmed.strip_prefix("/*") {
            (lexer::c_comment_len(after).map(|n| n + 2), "/*")
        } else if trimmed.starts_with("//") {
            (Some(trimmed.find('\n').unwrap_or(trimmed.len())), "//")
        } else {
            return Ok(pos);
        };
        match len {
            Some(n) => pos += n,
            None => {
                return Err(lexer::LexErrorKind::UnterminatedComment
                    .diagnostic(text, Span::new(pos, pos + unterminated.len())))
            }
        }
    }
}

/// The end of the run of non-whitespace characters starting at `pos`.
fn word_end(text: &str, pos: usize) -> usize {
    text[pos..]
        .find(char::is_whitespace)
        .map_or(text.len(), |n| pos + n)
}

fn line_end(text: &str, pos: usize) -> usize {
    text[pos..].find('\n').map_or(text.len(), |n| pos + n)
}

fn parse_header(text: &str) -> Result<Header, Diagnostic> {
    let start = skip_trivia(text, 0)?;
    if start == text.len() {
        return Err(
            Diagnostic::new("empty litmus file", Span::new(start, start))
                .with_label("nothing here")
                .with_help(LAYOUT_HELP),
        );
    }
    let arch_end = word_end(text, start);
    let arch = &text[start..arch_end];
    let arch_span = Span::new(start, arch_end);
    if !arch.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(Diagnostic::new(
            "expected the header line `C name` at the start of the file",
            arch_span,
        )
        .with_label("not a litmus header")
        .with_help(LAYOUT_HELP));
    }
    if arch != "C" {
        return Err(
            Diagnostic::new(format!("unsupported architecture `{arch}`"), arch_span)
                .with_label("expected `C`")
                .with_help("nemos reads C litmus tests, whose first line is `C name`"),
        );
    }
    let name_start = arch_end
        + (text[arch_end..].len() - text[arch_end..].trim_start_matches([' ', '\t']).len());
    let name_end = word_end(text, name_start);
    if name_start == name_end {
        return Err(Diagnostic::new("missing test name after `C`", arch_span)
            .with_label("expected a name after this")
            .with_help("the first line of a litmus test is `C name`, e.g. `C MP+rel+acq`"));
    }
    let name = Ident {
        name: text[name_start..name_end].to_string(),
        span: Span::new(name_start, name_end),
    };

    let mut doc = None;
    let mut metadata = Vec::new();
    let mut pos = name_end;
    loop {
        pos = skip_trivia(text, pos)?;
        let rest = &text[pos..];
        if rest.starts_with('{') {
            break;
        }
        if rest.is_empty() {
            return Err(Diagnostic::new(
                "expected the init block `{ ... }`, found the end of the file",
                Span::new(pos, pos),
            )
            .with_label("the file ends here")
            .with_help(LAYOUT_HELP));
        }
        if let Some(after) = rest.strip_prefix('"') {
            let Some(close) = after.find('"') else {
                return Err(lexer::LexErrorKind::UnterminatedString
                    .diagnostic(text, Span::new(pos, pos + 1)));
            };
            doc = Some(after[..close].to_string());
            pos += close + 2;
            continue;
        }
        let end = line_end(text, pos);
        let line = &text[pos..end];
        // A second header line (`C rwsem` under `C JanStancek-rwsem` in the kernel's
        // litmus tests): the first one names the test.
        if is_header_line(line, arch) {
            pos = end;
            continue;
        }
        let key_ok = |key: &str| {
            !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        };
        match line.split_once('=') {
            Some((key, value)) if key_ok(key.trim()) => {
                metadata.push((key.trim().to_string(), value.trim().to_string()));
                pos = end;
            }
            _ => {
                let word_len = line
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(line.len())
                    .max(line.chars().next().map_or(0, char::len_utf8));
                let word = Span::new(pos, pos + word_len);
                return Err(Diagnostic::new(
                    format!(
                        "expected the init block `{{ ... }}`, found `{}`",
                        &text[word.start..word.end]
                    ),
                    word,
                )
                .with_label("expected `{` or a `key=value` line")
                .with_help(LAYOUT_HELP));
            }
        }
    }
    Ok(Header {
        arch: arch.to_string(),
        name,
        doc,
        metadata,
        body_start: pos,
    })
}

/// `line` is a header line of the architecture `arch`: `C name` and nothing else.
fn is_header_line(line: &str, arch: &str) -> bool {
    let mut words = line.split_whitespace();
    words.next() == Some(arch)
        && words.next().is_some_and(|name| !name.contains(['=', '{']))
        && words.next().is_none()
}

// ------------------------------------------------------------------------------- grammar helpers

/// What the grammar produces: the file after the header.
pub(crate) struct Body {
    pub init: Vec<InitItem>,
    pub structs: Vec<StructDef>,
    pub functions: Vec<Function>,
    pub threads: Vec<Thread>,
    pub specs: Vec<SpecBlock>,
    pub regions: Option<(String, Span)>,
    pub locations: Vec<StateVar>,
    pub filter: Option<Prop>,
    pub condition: Option<Condition>,
}

/// An entry of the init block: a location or register, or a struct definition.
pub(crate) enum InitEntry {
    Item(InitItem),
    Struct(StructDef),
}

/// What comes between the init block and the threads.
pub(crate) enum TopItem {
    Struct(StructDef),
    Function(Function),
    Spec(SpecBlock),
}

impl Body {
    pub(crate) fn new(
        init: Vec<InitEntry>,
        items: Vec<TopItem>,
        threads: Vec<Thread>,
        regions: Option<(String, Span)>,
        locations: Vec<StateVar>,
        filter: Option<Prop>,
        condition: Option<Condition>,
    ) -> Body {
        let mut body = Body {
            init: Vec::new(),
            structs: Vec::new(),
            functions: Vec::new(),
            threads,
            specs: Vec::new(),
            regions,
            locations,
            filter,
            condition,
        };
        for entry in init {
            match entry {
                InitEntry::Item(item) => body.init.push(item),
                InitEntry::Struct(def) => body.structs.push(def),
            }
        }
        for item in items {
            match item {
                TopItem::Struct(def) => body.structs.push(def),
                TopItem::Function(function) => body.functions.push(function),
                TopItem::Spec(spec) => body.specs.push(spec),
            }
        }
        body
    }
}

/// `x`, `d[1]`, `pool[1].next`: the first index (an array's length in a declaration) kept
/// apart from the steps after it.
pub(crate) fn location_var(name: Ident, mut members: Vec<Member>) -> StateVar {
    let index = match members.first() {
        Some(Member::Index(i, _)) => Some(*i),
        _ => None,
    };
    if index.is_some() {
        members.remove(0);
    }
    StateVar::Location {
        name,
        index,
        members,
    }
}

pub(crate) fn address_of(
    name: Ident,
    members: Vec<Member>,
    plus: Option<i64>,
    span: Span,
) -> AddressOf {
    AddressOf {
        name,
        members,
        offset: plus.unwrap_or(0),
        span,
    }
}

type GrammarResult<T, Tk> = Result<T, ParseError<usize, Tk, Diagnostic>>;

fn user_error<T, Tk>(diagnostic: Diagnostic) -> GrammarResult<T, Tk> {
    Err(ParseError::User { error: diagnostic })
}

pub(crate) fn sp(l: usize, r: usize) -> Span {
    Span::new(l, r)
}

/// The statements an `if`/`while`/`for` runs: a braced block is unwrapped, a lone `;` is
/// no statement at all.
pub(crate) fn body_of(stmt: Stmt) -> Vec<Stmt> {
    match stmt.kind {
        StmtKind::Block(stmts) => stmts,
        StmtKind::Empty => Vec::new(),
        _ => vec![stmt],
    }
}

/// The thread number in `0:r0`.
pub(crate) fn thread_index<Tk>(n: i64, span: Span) -> GrammarResult<u32, Tk> {
    match u32::try_from(n) {
        Ok(i) => Ok(i),
        Err(_) => user_error(
            Diagnostic::new(format!("`{n}` is not a thread number"), span)
                .with_label("expected a thread number such as `0`"),
        ),
    }
}

/// `P3` -> 3; anything else is not a thread name.
pub(crate) fn thread_index_of<Tk>(name: &Ident) -> GrammarResult<u32, Tk> {
    let digits = name.name.strip_prefix('P').unwrap_or("");
    if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
        if let Ok(i) = digits.parse::<u32>() {
            return Ok(i);
        }
    }
    user_error(
        Diagnostic::new(format!("bad thread name `{}`", name.name), name.span)
            .with_label("expected `P` followed by a number")
            .with_help("threads are named `P0`, `P1`, `P2`, ... as in `P0(atomic_int *x) { ... }`"),
    )
}

/// `f(void)`: the only parameter list that is a lone type.
pub(crate) fn void_params<Tk>(ty: Type) -> GrammarResult<Vec<Param>, Tk> {
    if ty.base == "void" && ty.pointer_depth == 0 {
        Ok(Vec::new())
    } else {
        user_error(
            Diagnostic::new("a parameter needs a name", ty.span)
                .with_label("type without a name")
                .with_help("write the parameter as `int n` or `int *p`, or `(void)` for none"),
        )
    }
}

pub(crate) fn atomic_init<Tk>(f: Ident, value: i64) -> GrammarResult<i64, Tk> {
    if f.name == "ATOMIC_INIT" {
        Ok(value)
    } else {
        user_error(
            Diagnostic::new(
                format!("`{}(...)` cannot give an initial value", f.name),
                f.span,
            )
            .with_label("expected `ATOMIC_INIT`")
            .with_help("initial values are integers, `{1, 2}` for arrays, `ATOMIC_INIT(v)` or the name of a location"),
        )
    }
}

pub(crate) fn state_index<Tk>(i: i64, span: Span) -> GrammarResult<u32, Tk> {
    match u32::try_from(i) {
        Ok(i) => Ok(i),
        Err(_) => user_error(
            Diagnostic::new(format!("array index `{i}` is out of range"), span)
                .with_label("expected a small non-negative index"),
        ),
    }
}

/// `-1` is folded into the literal so the tree holds the number as written rather than a
/// negation the later stages would have to undo.
pub(crate) fn fold_neg(op: UnaryOp, e: Expr, span: Span) -> Expr {
    match (op, &e.kind) {
        (UnaryOp::Neg, ExprKind::Int(n)) => Expr {
            kind: ExprKind::Int(n.wrapping_neg()),
            span,
        },
        _ => Expr {
            kind: ExprKind::Unary(op, Box::new(e)),
            span,
        },
    }
}

/// Builds a [`Type`] from its words: qualifiers (0 = const, 1 = volatile, 2 = _Atomic) set
/// flags, the other words make up the base.
pub(crate) fn mk_type<Tk>(
    leading: Vec<u8>,
    first: &str,
    rest: Vec<(Option<&str>, Option<u8>)>,
    stars: usize,
    span: Span,
) -> GrammarResult<Type, Tk> {
    let mut ty = Type {
        base: first.to_string(),
        atomic: false,
        volatile: false,
        constant: false,
        pointer_depth: 0,
        span,
    };
    let qualify = |q: u8, ty: &mut Type| match q {
        0 => ty.constant = true,
        1 => ty.volatile = true,
        _ => ty.atomic = true,
    };
    for q in leading {
        qualify(q, &mut ty);
    }
    for item in rest {
        match item {
            (Some(word), _) => {
                ty.base.push(' ');
                ty.base.push_str(word);
            }
            (None, Some(q)) => qualify(q, &mut ty),
            (None, None) => {}
        }
    }
    match u8::try_from(stars) {
        Ok(depth) => {
            ty.pointer_depth = depth;
            Ok(ty)
        }
        Err(_) => user_error(
            Diagnostic::new("too many `*` in this type", span).with_label("pointer type"),
        ),
    }
}

/// `not (p)`: `not` is the only word that may stand before a parenthesis in a condition.
pub(crate) fn not_word<Tk>(word: Ident, prop: Prop, span: Span) -> GrammarResult<Prop, Tk> {
    if word.name == "not" {
        Ok(Prop::Not(Box::new(prop), span))
    } else {
        user_error(
            Diagnostic::new(format!("`{}` before a parenthesis", word.name), word.span)
                .with_label("expected `not`, `~` or a comparison")
                .with_help("negate with `~(...)` or `not (...)`"),
        )
    }
}

/// `struct node *` with its qualifiers: the base is `struct node`.
pub(crate) fn struct_type<Tk>(
    leading: Vec<u8>,
    name: Ident,
    rest: Vec<u8>,
    stars: usize,
    span: Span,
) -> GrammarResult<Type, Tk> {
    let rest = rest.into_iter().map(|q| (None, Some(q))).collect();
    mk_type(leading, &format!("struct {}", name.name), rest, stars, span)
}

pub(crate) fn init_item(
    ty: Option<Type>,
    target: StateVar,
    value: Option<InitValue>,
    span: Span,
) -> InitItem {
    match (ty, target) {
        (
            Some(ty),
            StateVar::Location {
                name,
                index: Some(len),
                members,
            },
        ) if members.is_empty() => InitItem {
            ty: Some(ty),
            target: StateVar::Location {
                name,
                index: None,
                members,
            },
            value,
            array_len: Some(len),
            span,
        },
        (ty, target) => InitItem {
            ty,
            target,
            value,
            array_len: None,
            span,
        },
    }
}

/// `x += e` is read as `x = x + e`.
pub(crate) fn compound(op: BinaryOp, lhs: Expr, rhs: Expr) -> StmtKind {
    let span = lhs.span.to(rhs.span);
    let value = Expr {
        kind: ExprKind::Binary(op, Box::new(lhs.clone()), Box::new(rhs)),
        span,
    };
    StmtKind::Assign { lhs, rhs: value }
}

/// `x++` is read as `x = x + 1`.
pub(crate) fn step(op: BinaryOp, lhs: Expr, op_span: Span) -> StmtKind {
    let one = Expr {
        kind: ExprKind::Int(1),
        span: op_span,
    };
    compound(op, lhs, one)
}

// ------------------------------------------------------------------------------- syntax errors

/// A terminal of the grammar in words, for "expected ..." lists.
fn terminal_in_words(terminal: &str) -> String {
    match terminal {
        "Ident" => "identifier".to_string(),
        "Int" => "integer".to_string(),
        "TypeWord" => "type name".to_string(),
        "Str" => "string".to_string(),
        t => {
            let inner = t
                .strip_prefix('"')
                .and_then(|t| t.strip_suffix('"'))
                .unwrap_or(t);
            let unescaped = inner.replace("\\\\", "\\").replace("\\\"", "\"");
            format!("`{unescaped}`")
        }
    }
}

fn one_of(items: &[String]) -> String {
    match items {
        [] => "nothing".to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

/// Says what the parser wanted, in words. lalrpop lists every terminal that could come next;
/// where that list is long it is replaced by the construct those terminals start.
fn describe_expected(expected: &[String]) -> String {
    let has = |t: &str| expected.iter().any(|e| e.trim_matches('"') == t);
    let cond = "the final condition (`exists`, `~exists` or `forall`)";
    if has("if") {
        return if has("}") {
            "a statement or `}`".to_string()
        } else {
            "a statement".to_string()
        };
    }
    if has("exists") {
        return if has("Ident") {
            format!("another thread or {cond}")
        } else {
            cond.to_string()
        };
    }
    if has("true") && has("~") && has("[") {
        return "a proposition such as `0:r0=1 /\\ x=2`".to_string();
    }
    if has(";") && has("+") {
        return "`;` or an operator".to_string();
    }
    if has("Int") && has("Ident") && has("(") && has("-") {
        return "an expression".to_string();
    }
    let words: Vec<String> = expected.iter().map(|t| terminal_in_words(t)).collect();
    if words.len() <= 6 {
        one_of(&words)
    } else {
        format!(
            "{}, or one of {} other tokens",
            words[..5].join(", "),
            words.len() - 5
        )
    }
}

fn token_in_words(tok: &Tok<'_>, slice: &str) -> String {
    match tok {
        Tok::Ident(_) => format!("identifier `{slice}`"),
        Tok::Int(_) => format!("integer `{slice}`"),
        Tok::TypeWord(_) => format!("type `{slice}`"),
        Tok::Str(_) => "a string".to_string(),
        _ => format!("`{slice}`"),
    }
}

/// A `;` forgotten at the end of a line shows up as an odd token somewhere on the next
/// line; point at the end of the unfinished statement instead. Only when a statement could
/// not start here, or an empty statement `;` would count as "expected".
fn missing_semicolon(
    expected: &[String],
    error_start: usize,
    text: &str,
    tokens: &[Spanned<'_>],
    found: &str,
) -> Option<Diagnostic> {
    let wants = |t: &str| expected.iter().any(|e| e.trim_matches('"') == t);
    if !wants(";") || wants("if") {
        return None;
    }
    let line_start = text[..error_start].rfind('\n').map_or(0, |i| i + 1);
    let (l, tok, r) = tokens.iter().rev().find(|(_, _, r)| *r <= line_start)?;
    let previous = tokens.iter().rev().find(|(_, _, r)| *r <= error_start)?;
    let ends_statement = matches!(tok, Tok::Ident(_) | Tok::Int(_) | Tok::RBracket);
    let right_after = previous.2 == *r;
    if right_after || ends_statement {
        let help = if right_after {
            format!("the next line starts with {found}")
        } else {
            format!("without a `;` the statement runs on into the next line, up to {found}")
        };
        Some(
            Diagnostic::new("missing `;`", Span::new(*l, *r))
                .with_label("expected `;` after this")
                .with_help(help),
        )
    } else {
        None
    }
}

/// herd's `(* ... *)` written inside a thread body, where `(*` is code (`if (*b)`): the
/// parser trips somewhere inside what was meant as a comment. When the error lies within
/// the `(* ... *)` that starts at a `(` `*` of the token list, say so at the `(*`.
fn herd_comment_in_code(
    error_start: usize,
    text: &str,
    tokens: &[Spanned<'_>],
) -> Option<Diagnostic> {
    let opening = tokens.windows(2).find_map(|pair| match pair {
        [(l, Tok::LParen, lr), (sl, Tok::Star, _)]
            if lr == sl && *sl == l + 1 && *l < error_start =>
        {
            let length = lexer::ocaml_comment_len(text.get(l + 2..)?)? + 2;
            (error_start < l + length).then_some(*l)
        }
        _ => None,
    })?;
    Some(
        Diagnostic::new(
            "`(* ... *)` comments are herd's and are allowed outside thread bodies only; \
             use `/* ... */` or `//` inside C code",
            Span::new(opening, opening + 2),
        )
        .with_label("read as `(` and `*` inside a thread body")
        .with_help("in C code `(*` is a parenthesis and a dereference, as in `if (*b)`"),
    )
}

fn syntax_error(
    error: ParseError<usize, Tok<'_>, Diagnostic>,
    text: &str,
    tokens: &[Spanned<'_>],
) -> Diagnostic {
    let error_start = match &error {
        ParseError::User { error } => error.span.start,
        ParseError::InvalidToken { location } | ParseError::UnrecognizedEof { location, .. } => {
            *location
        }
        ParseError::UnrecognizedToken { token, .. } | ParseError::ExtraToken { token } => token.0,
    };
    if let Some(d) = herd_comment_in_code(error_start, text, tokens) {
        return d;
    }
    match error {
        ParseError::User { error } => error,
        ParseError::InvalidToken { location } => {
            Diagnostic::new("invalid token", Span::new(location, location + 1))
        }
        ParseError::UnrecognizedEof { location, expected } => {
            let what = describe_expected(&expected);
            let span = tokens
                .last()
                .map_or(Span::new(location, location), |(l, _, r)| Span::new(*l, *r));
            let mut d = Diagnostic::new(format!("unexpected end of file, expected {what}"), span)
                .with_label("the file ends after this");
            if expected.iter().any(|e| e == "\"}\"") {
                d = d.with_help("a `{` is never closed");
            }
            d
        }
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let span = Span::new(l, r);
            let slice = text.get(l..r).unwrap_or("");
            let found = token_in_words(&tok, slice);
            let wants = |t: &str| expected.iter().any(|e| e.trim_matches('"') == t);
            if let Some(d) = missing_semicolon(&expected, l, text, tokens, &found) {
                return d;
            }
            let mut d = Diagnostic::new(
                format!(
                    "unexpected {found}, expected {}",
                    describe_expected(&expected)
                ),
                span,
            )
            .with_label(format!("unexpected {found}"));
            if wants("}")
                && matches!(
                    tok,
                    Tok::Exists | Tok::Forall | Tok::Locations | Tok::Filter
                )
            {
                d = d.with_help("is a `}` missing before this?");
            } else if matches!(tok, Tok::RBrace) && wants("exists") {
                d = d.with_help("this `}` has no matching `{`");
            } else if wants("!=") && wants("=") && !wants("+") {
                d = d.with_help(
                    "a condition atom compares a register or a location with a value, \
                     e.g. `0:r0=1`, `x!=2` or `[y]=0`",
                );
            } else if expected.len() == 1 && wants("(") {
                d = d.with_help(
                    "after the threads comes the final condition, which starts with \
                     `exists`, `~exists` or `forall`, e.g. `exists (0:r0=1 /\\ x=2)`",
                );
            }
            d
        }
        ParseError::ExtraToken { token: (l, tok, r) } => {
            let slice = text.get(l..r).unwrap_or("");
            Diagnostic::new(
                format!(
                    "unexpected {} after the final condition",
                    token_in_words(&tok, slice)
                ),
                Span::new(l, r),
            )
            .with_label("nothing may follow the final condition")
        }
    }
}
