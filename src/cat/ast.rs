//! The syntax tree of a model file, every node with its byte span.

use crate::diagnostics::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelAst {
    /// herd's optional first line: the model's name as a string.
    pub title: Option<String>,
    pub statements: Vec<Statement>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Statement {
    Let {
        recursive: bool,
        bindings: Vec<Binding>,
        span: Span,
    },
    Check(CheckAst),
    Include {
        path: String,
        span: Span,
    },
    /// herd's `show`: only affects herd's pictures, accepted and ignored.
    Show {
        span: Span,
    },
    /// A bell file's `enum Name = 'a || 'b`: each tag names the set of events carrying it.
    Enum {
        name: Name,
        tags: Vec<Name>,
        span: Span,
    },
    /// A bell file's `instructions R[...]`: which tags an instruction may carry. Only herd's
    /// check of a test's annotations uses it: accepted and ignored.
    Instructions {
        span: Span,
    },
    /// `with x from e`: one candidate of the set of relations `e` at a time.
    WithFrom {
        name: Name,
        expr: Expr,
        span: Span,
    },
    /// `if "variant" then .. else .. end`, statements kept when the variant is on (or off).
    IfVariant {
        variant: String,
        then: Vec<Statement>,
        otherwise: Vec<Statement>,
        span: Span,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub name: Name,
    /// `let f(x) = ..`, `let f(x, y) = ..`, `let f x = ..`: a function and its parameters.
    pub params: Option<Vec<Name>>,
    pub expr: Expr,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    pub text: String,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum CheckKind {
    Acyclic,
    Irreflexive,
    Empty,
}

impl CheckKind {
    pub fn keyword(self) -> &'static str {
        match self {
            CheckKind::Acyclic => "acyclic",
            CheckKind::Irreflexive => "irreflexive",
            CheckKind::Empty => "empty",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckAst {
    pub kind: CheckKind,
    /// `~acyclic`, `~empty`: the test must fail.
    pub negated: bool,
    pub expr: Expr,
    pub name: Option<Name>,
    /// A `flag`: not a constraint on executions but a property reported when some allowed
    /// execution has it.
    pub flag: bool,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum BinOp {
    Union,
    Inter,
    Diff,
    Seq,
    Product,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Union => "|",
            BinOp::Inter => "&",
            BinOp::Diff => "\\",
            BinOp::Seq => ";",
            BinOp::Product => "*",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum UnOp {
    /// `r+`
    Plus,
    /// `r*`
    Star,
    /// `r?`
    Opt,
    /// `r^-1`
    Inverse,
    /// `[S]`
    Identity,
}

impl UnOp {
    pub fn describe(self) -> &'static str {
        match self {
            UnOp::Plus => "the closure `+`",
            UnOp::Star => "the closure `*`",
            UnOp::Opt => "the option `?`",
            UnOp::Inverse => "the inverse `^-1`",
            UnOp::Identity => "the identity `[...]`",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    Name(String),
    /// `0`: the empty set or relation.
    Empty,
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Unary(UnOp, Box<Expr>),
    /// herd's `~e`: every event not in the set `e`, or every pair not in the relation `e`.
    Complement(Box<Expr>),
    /// A function applied to its argument: `domain(r)`, `A-cumul(r)`, `f(a, b)` (one
    /// argument, a tuple), `map f s` (curried: one argument after the other).
    Apply(Name, Vec<Expr>),
    /// `(a, b)`: the argument of a function of several parameters.
    Tuple(Vec<Expr>),
    /// `let x = e in body` (and `let rec .. in`).
    LetIn {
        recursive: bool,
        bindings: Vec<Binding>,
        body: Box<Expr>,
    },
    /// `if "variant" then a else b`.
    IfVariant {
        variant: String,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
    /// `try e with fallback`: `e`, or `fallback` when `e` names something undefined.
    Try(Box<Expr>, Box<Expr>),
    /// A tag value `'once`.
    Tag(String),
    /// An explicit set `{a, b}` (of events or of tags).
    Explicit(Vec<Expr>),
    /// `s ++ e`: the set `s` with one more element.
    Add(Box<Expr>, Box<Expr>),
}

impl Expr {
    pub fn binary(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
        Expr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            span,
        }
    }

    pub fn unary(op: UnOp, a: Expr, span: Span) -> Expr {
        Expr {
            kind: ExprKind::Unary(op, Box::new(a)),
            span,
        }
    }
}
