//! herd's macro files (`.def`): how a model names the calls a C litmus test may make.
//!
//! herd reads, beside a model, a file of macros that expand the calls of a test into its
//! primitives: `READ_ONCE(X) __load{once}(X)` (an expression: the call has a value), or
//! `smp_store_release(X,V) { __store{release}(*X,V); }` (a block of statements). A
//! primitive is `__name`, an optional tag in braces and its arguments; an argument is a
//! parameter (`X`, `*X`), an integer or an operator (`+`, `&~`); a body may call another
//! macro of the file (`atomic_read(X) READ_ONCE(*X)`) and compare an expression with an
//! integer (`__atomic_op_return{mb}(X,-,V) == 0`). One macro per line; `//` comments.
//!
//! This module reads the file into [`Macros`]; lowering expands a call with them. A line
//! nemos cannot read is an error at its line and column.

use crate::diagnostics::{Diagnostic, InputError, SourceFile, Span};
use crate::syntax::ast::BinaryOp;

/// The macros of one `.def` file, in its order.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Macros {
    /// The file, for the messages of an expansion that goes wrong.
    pub file: SourceFile,
    pub macros: Vec<Macro>,
}

impl Macros {
    /// The macro of this name.
    pub fn get(&self, name: &str) -> Option<&Macro> {
        self.macros.iter().find(|m| m.name == name)
    }

    /// The names of the macros, in the file's order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.macros.iter().map(|m| m.name.as_str())
    }
}

/// `NAME(P1,..,Pn) BODY`.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Macro {
    pub name: String,
    pub params: Vec<String>,
    pub body: Body,
    pub span: Span,
}

/// What a macro expands into.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Body {
    /// An expression: the call has its value.
    Value(MacroExpr),
    /// `{ e1; e2; }`: statements, the call has no value.
    Block(Vec<MacroExpr>),
}

/// A primitive or a macro applied to arguments, possibly compared with an integer.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct MacroExpr {
    pub head: Head,
    pub args: Vec<MacroArg>,
    /// `== 0`, `< 0`: the value is the comparison's.
    pub compare: Option<(BinaryOp, i32)>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Head {
    /// `__load{once}`: the primitive's name without the underscores, and its tag as
    /// written.
    Primitive { name: String, tag: Option<String> },
    /// Another macro of the file.
    Macro(String),
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum MacroArg {
    /// The parameter at this position, under `derefs` stars (`*X`).
    Param {
        index: usize,
        derefs: usize,
    },
    Const(i32),
    /// An operator of an atomic operation: `+`, `-`, `&`, `|`, `^`, `&~`.
    Op(String),
    /// A constant of C11 named in the body: `memory_order_seq_cst` (herd's c11.def).
    Name(String),
}

/// Read a `.def` file.
pub fn parse(file: &SourceFile) -> Result<Macros, InputError> {
    let mut macros: Vec<Macro> = Vec::new();
    let mut diagnostics = Vec::new();
    let mut offset = 0;
    for line in file.text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        if code.trim().is_empty() {
            continue;
        }
        let mut reader = Reader {
            text: code,
            base: start,
            pos: 0,
        };
        match reader.definition() {
            Ok(m) => {
                if macros.iter().any(|other| other.name == m.name) {
                    diagnostics.push(
                        Diagnostic::new(format!("`{}` is defined twice", m.name), m.span)
                            .with_label("second definition"),
                    );
                } else {
                    macros.push(m);
                }
            }
            Err(d) => diagnostics.push(d),
        }
    }
    for m in &macros {
        let bodies = match &m.body {
            Body::Value(e) => std::slice::from_ref(e),
            Body::Block(es) => es.as_slice(),
        };
        for e in bodies {
            if let Head::Macro(name) = &e.head {
                // C11's `atomic_*_explicit` functions are nemos's library calls, which
                // lowering resolves (herd's c11.def defines `atomic_load` with them).
                let c11 = name.starts_with("atomic_") && name.ends_with("_explicit");
                if !c11 && !macros.iter().any(|other| &other.name == name) {
                    diagnostics.push(
                        Diagnostic::new(format!("unknown macro `{name}`"), e.span).with_help(
                            "a body calls a primitive (`__load{once}(X)`) or a macro of this file",
                        ),
                    );
                }
            }
        }
    }
    if diagnostics.is_empty() {
        add_unless_fallback(&mut macros);
        Ok(Macros {
            file: file.clone(),
            macros,
        })
    } else {
        Err(InputError::new(file, diagnostics))
    }
}

/// The kernel's `.def` defines `atomic_add_unless(X,V,W)` through herd's primitive
/// `__atomic_add_unless{MB}(X,V,W)`; Dat3M's copy does not define it (Dat3M reads the
/// macro natively). A file without it gets that definition, tagged as the file tags
/// `atomic_add_return` (a fully ordered read-modify-write, spelled `mb` or `MB`).
fn add_unless_fallback(macros: &mut Vec<Macro>) {
    if macros.iter().any(|m| m.name == "atomic_add_unless") {
        return;
    }
    let Some(model) = macros.iter().find(|m| m.name == "atomic_add_return") else {
        return;
    };
    let Body::Value(MacroExpr {
        head: Head::Primitive { name, tag },
        span,
        ..
    }) = &model.body
    else {
        return;
    };
    if name != "atomic_op_return" {
        return;
    }
    let param = |index| MacroArg::Param { index, derefs: 0 };
    let fallback = Macro {
        name: "atomic_add_unless".to_string(),
        params: ["X", "V", "W"].map(String::from).to_vec(),
        body: Body::Value(MacroExpr {
            head: Head::Primitive {
                name: "atomic_add_unless".to_string(),
                tag: tag.clone(),
            },
            args: vec![param(0), param(1), param(2)],
            compare: None,
            span: *span,
        }),
        span: model.span,
    };
    macros.push(fallback);
}

/// One line of the file.
struct Reader<'a> {
    text: &'a str,
    /// The line's offset in the file.
    base: usize,
    pos: usize,
}

impl Reader<'_> {
    fn span(&self, start: usize) -> Span {
        Span::new(self.base + start, self.base + self.pos.max(start + 1))
    }

    fn here(&self) -> Span {
        let len = self.text[self.pos..]
            .chars()
            .next()
            .map_or(1, char::len_utf8);
        Span::new(self.base + self.pos, self.base + self.pos + len)
    }

    fn skip_space(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_space();
        self.text[self.pos..].chars().next()
    }

    fn eat(&mut self, s: &str) -> bool {
        self.skip_space();
        if self.text[self.pos..].starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, s: &str, what: &str) -> Result<(), Diagnostic> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("expected `{s}` {what}")))
        }
    }

    fn unexpected(&mut self, message: &str) -> Diagnostic {
        self.skip_space();
        let found = match self.text[self.pos..].chars().next() {
            None => "the end of the line".to_string(),
            Some(c) => format!("`{c}`"),
        };
        Diagnostic::new(message.to_string(), self.here()).with_label(format!("found {found}"))
    }

    fn ident(&mut self) -> Option<String> {
        self.skip_space();
        let rest = &self.text[self.pos..];
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if len == 0 || rest.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        self.pos += len;
        Some(rest[..len].to_string())
    }

    /// `NAME(P1,..) BODY` and nothing after.
    fn definition(&mut self) -> Result<Macro, Diagnostic> {
        self.skip_space();
        let start = self.pos;
        let name = self
            .ident()
            .ok_or_else(|| self.unexpected("expected the name of a macro"))?;
        self.expect("(", "after the macro's name")?;
        let mut params = Vec::new();
        if !self.eat(")") {
            loop {
                let p = self
                    .ident()
                    .ok_or_else(|| self.unexpected("expected a parameter"))?;
                params.push(p);
                if self.eat(")") {
                    break;
                }
                self.expect(",", "or `)` between parameters")?;
            }
        }
        let span = self.span(start);
        let body = if self.eat("{") {
            let mut statements = Vec::new();
            while !self.eat("}") {
                statements.push(self.expr(&params)?);
                self.expect(";", "after a statement")?;
            }
            Body::Block(statements)
        } else {
            Body::Value(self.expr(&params)?)
        };
        if self.peek().is_some() {
            return Err(self.unexpected("expected the end of the macro"));
        }
        Ok(Macro {
            name,
            params,
            body,
            span,
        })
    }

    /// `__prim{tag}(args)` or `macro(args)`, then an optional comparison.
    fn expr(&mut self, params: &[String]) -> Result<MacroExpr, Diagnostic> {
        self.skip_space();
        let start = self.pos;
        let name = self.ident().ok_or_else(|| {
            self.unexpected("expected a primitive (`__load{once}(X)`) or a macro")
        })?;
        let head = match name.strip_prefix("__") {
            Some(primitive) => {
                let tag = if self.eat("{") {
                    self.skip_space();
                    let from = self.pos;
                    let rest = &self.text[self.pos..];
                    let len = rest
                        .find('}')
                        .ok_or_else(|| self.unexpected("expected `}` after the tag"))?;
                    let tag = rest[..len].trim().to_string();
                    if tag.is_empty() || tag.contains(|c: char| c.is_whitespace() || c == ',') {
                        self.pos = from;
                        return Err(self.unexpected("expected one tag, as `{once}`"));
                    }
                    self.pos += len + 1;
                    Some(tag)
                } else {
                    None
                };
                Head::Primitive {
                    name: primitive.to_string(),
                    tag,
                }
            }
            None => Head::Macro(name),
        };
        let mut args = Vec::new();
        if self.eat("(") && !self.eat(")") {
            loop {
                args.push(self.arg(params)?);
                if self.eat(")") {
                    break;
                }
                self.expect(",", "or `)` between arguments")?;
            }
        }
        let compare = [
            ("==", BinaryOp::Eq),
            ("!=", BinaryOp::Ne),
            ("<=", BinaryOp::Le),
            (">=", BinaryOp::Ge),
            ("<", BinaryOp::Lt),
            (">", BinaryOp::Gt),
        ]
        .into_iter()
        .find(|(text, _)| self.eat(text));
        let compare = match compare {
            Some((_, op)) => Some((op, self.integer()?)),
            None => None,
        };
        Ok(MacroExpr {
            head,
            args,
            compare,
            span: self.span(start),
        })
    }

    fn integer(&mut self) -> Result<i32, Diagnostic> {
        self.skip_space();
        let rest = &self.text[self.pos..];
        let sign = usize::from(rest.starts_with('-'));
        let digits = rest[sign..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len() - sign);
        match rest[..sign + digits].parse::<i32>() {
            Ok(v) if digits > 0 => {
                self.pos += sign + digits;
                Ok(v)
            }
            _ => Err(self.unexpected("expected an integer")),
        }
    }

    fn arg(&mut self, params: &[String]) -> Result<MacroArg, Diagnostic> {
        for op in ["&~", "+", "-", "&", "|", "^"] {
            self.skip_space();
            let rest = &self.text[self.pos..];
            let next = rest[op.len().min(rest.len())..].trim_start();
            // An operator stands alone between commas; `-1` is an integer.
            if rest.starts_with(op) && (next.starts_with(',') || next.starts_with(')')) {
                self.pos += op.len();
                return Ok(MacroArg::Op(op.to_string()));
            }
        }
        if matches!(self.peek(), Some(c) if c.is_ascii_digit() || c == '-') {
            return self.integer().map(MacroArg::Const);
        }
        let mut derefs = 0;
        while self.eat("*") {
            derefs += 1;
        }
        let start = self.pos;
        let name = self
            .ident()
            .ok_or_else(|| self.unexpected("expected a parameter, an integer or an operator"))?;
        match params.iter().position(|p| *p == name) {
            Some(index) => Ok(MacroArg::Param { index, derefs }),
            None if derefs == 0 && name.starts_with("memory_order_") => Ok(MacroArg::Name(name)),
            None => Err(Diagnostic::new(
                format!("`{name}` is not a parameter of this macro"),
                self.span(start),
            )
            .with_label("unknown name")
            .with_help(format!("parameters: {}", params.join(", ")))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Macros, String> {
        parse(&SourceFile::new("t.def", text.to_string())).map_err(|e| e.short())
    }

    #[test]
    fn expressions_blocks_aliases_and_comparisons() {
        let m = read(
            "// a comment\n\
             READ_ONCE(X) __load{once}(X)\n\
             smp_store_release(X,V) { __store{release}(*X,V); }\n\
             smp_mb() { __fence{mb}; }\n\
             atomic_read(X) READ_ONCE(*X)\n\
             atomic_add(V,X) { __atomic_op(X,+,V); }\n\
             atomic_andnot(V,X) { __atomic_op{NORETURN}(X,&~,V); }\n\
             atomic_dec_and_test(X)  __atomic_op_return{mb}(X,-,1) == 0\n",
        )
        .unwrap();
        assert_eq!(
            m.names().collect::<Vec<_>>(),
            [
                "READ_ONCE",
                "smp_store_release",
                "smp_mb",
                "atomic_read",
                "atomic_add",
                "atomic_andnot",
                "atomic_dec_and_test"
            ]
        );
        let Body::Block(store) = &m.get("smp_store_release").unwrap().body else {
            panic!("a block")
        };
        assert_eq!(
            store[0].head,
            Head::Primitive {
                name: "store".into(),
                tag: Some("release".into())
            }
        );
        assert_eq!(
            store[0].args,
            [
                MacroArg::Param {
                    index: 0,
                    derefs: 1
                },
                MacroArg::Param {
                    index: 1,
                    derefs: 0
                }
            ]
        );
        let Body::Value(alias) = &m.get("atomic_read").unwrap().body else {
            panic!("a value")
        };
        assert_eq!(alias.head, Head::Macro("READ_ONCE".into()));
        let Body::Block(op) = &m.get("atomic_andnot").unwrap().body else {
            panic!("a block")
        };
        assert_eq!(op[0].args[1], MacroArg::Op("&~".into()));
        let Body::Value(test) = &m.get("atomic_dec_and_test").unwrap().body else {
            panic!("a value")
        };
        assert_eq!(test.compare, Some((BinaryOp::Eq, 0)));
        assert_eq!(test.args[2], MacroArg::Const(1));
    }

    #[test]
    fn a_line_nemos_cannot_read_is_an_error_at_its_line_and_column() {
        for (text, expected) in [
            (
                "READ_ONCE(X) __load{once}(X)\nWRITE_ONCE(X,V) { __store{once}(X,W); }\n",
                "t.def:2:35: `W` is not a parameter of this macro",
            ),
            (
                "smp_mb() { __fence{mb} }\n",
                "t.def:1:24: expected `;` after a statement",
            ),
            (
                "xchg(X,V) __xchg{mb}(X,V) extra\n",
                "t.def:1:27: expected the end of the macro",
            ),
            ("f(X) g(X)\n", "t.def:1:6: unknown macro `g`"),
            (
                "f(X) __load{once}(X)\nf(Y) __load{once}(Y)\n",
                "t.def:2:1: `f` is defined twice",
            ),
            (
                "f(X) __load{a b}(X)\n",
                "t.def:1:13: expected one tag, as `{once}`",
            ),
        ] {
            let error = read(text).unwrap_err();
            assert!(error.starts_with(expected), "{text}: {error}");
        }
    }
}
