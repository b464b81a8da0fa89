//! Initializer lists of aggregates, as C gives them meaning (C11 6.7.9), and local arrays.
//!
//! An object is laid out in nemos's cells (one per scalar or pointer, `heap.rs`): a struct
//! its fields in order, an array its elements. An initializer list gives some cells a
//! value, in C's order: positional items fill the members of the object they are braced
//! for one after the other, a scalar item for an aggregate member fills that member's
//! first scalars without braces (brace elision), a designator (`.f`, `[i]`, GNU's
//! `[a ... b]`, nested `.f.g` or `.a[2]`) names the member an item is for and positional
//! items go on after it, a later item for a cell overrides an earlier one, and a string
//! literal initialises a `char` array with its characters. Every cell the list does not
//! name is zero, as C says for an object with an initializer (6.7.9p21).
//!
//! A local array is a stack object (`stack.rs`): a block of `len` elements allocated at
//! its function's entry, `a` its address (`a#stack`), `a[i]` an element. A local with an
//! initializer list (an array or a struct) is written cell by cell where it is declared:
//! one plain write per cell, the list's value or 0, as clang writes it (stores, or a
//! `memset`/`memcpy` of the whole object). A global array's designated initializer is
//! read here too, its values constants.

use std::collections::BTreeMap;

use lang_c::ast as c;
use lang_c::span::Node;

use super::heap::as_int_pointer;
use super::stack::stack_register;
use super::{expr, name_expr, stmt, Scope, Translator, TypeInfo};
use crate::diagnostics::{Diagnostic, Span};
use crate::syntax::ast::{self, ExprKind, StmtKind};

/// Most cells an initialised local object may have (one write each).
const MAX_CELLS: i64 = 4096;

/// An object's layout in cells.
#[derive(Clone, Debug)]
pub(super) enum Layout {
    /// One cell; whether it is a `char` (which a string literal initialises) and whether
    /// it is a pointer (which a string literal may initialise as its address).
    Scalar {
        char: bool,
        pointer: bool,
    },
    Array(Box<Layout>, u32),
    Struct(Vec<(String, Layout)>),
}

impl Layout {
    pub(super) fn cells(&self) -> i64 {
        match self {
            Layout::Scalar { .. } => 1,
            Layout::Array(element, len) => element.cells().saturating_mul(i64::from(*len)),
            Layout::Struct(fields) => fields
                .iter()
                .fold(0i64, |sum, (_, f)| sum.saturating_add(f.cells()))
                .max(1),
        }
    }

    /// Member `k`'s layout and its offset in cells from the object's start.
    fn member(&self, k: usize) -> Option<(&Layout, i64)> {
        match self {
            Layout::Scalar { .. } => None,
            Layout::Array(element, len) => ((k as u64) < u64::from(*len))
                .then(|| (&**element, element.cells().saturating_mul(k as i64))),
            Layout::Struct(fields) => {
                let offset = fields
                    .iter()
                    .take(k)
                    .fold(0i64, |sum, (_, f)| sum.saturating_add(f.cells()));
                fields.get(k).map(|(_, f)| (f, offset))
            }
        }
    }

    fn is_char_array(&self) -> bool {
        matches!(self, Layout::Array(element, _) if matches!(**element, Layout::Scalar { char: true, .. }))
    }

    /// Whether the first scalar of the object (itself, for a scalar) is an integer, not a
    /// pointer.
    fn first_scalar_is_integer(&self) -> bool {
        match self {
            Layout::Scalar { pointer, .. } => !pointer,
            _ => self
                .member(0)
                .is_some_and(|(first, _)| first.first_scalar_is_integer()),
        }
    }
}

/// Whether expression `e` initialises an object of `layout` whole: a scalar's value, or a
/// `char` array's string (otherwise its braces are elided).
fn takes_whole(layout: &Layout, e: &Node<c::Expression>) -> bool {
    matches!(layout, Layout::Scalar { .. })
        || layout.is_char_array() && matches!(e.node, c::Expression::StringLiteral(_))
}

/// What a cell is initialised with.
#[derive(Clone, Copy)]
pub(super) enum CellInit<'a> {
    Expr(&'a Node<c::Expression>),
    Int(i64),
}

/// The cells an initializer names, by offset.
type Cells<'a> = BTreeMap<i64, CellInit<'a>>;

/// A string literal's bytes (its parts concatenated), without the terminating NUL; `None`
/// for an escape nemos does not read.
fn string_bytes(parts: &[String]) -> Option<Vec<i64>> {
    let mut out = Vec::new();
    for part in parts {
        let inner = part.strip_prefix('"')?.strip_suffix('"')?;
        let mut chars = inner.chars().peekable();
        while let Some(ch) = chars.next() {
            if ch != '\\' {
                if !ch.is_ascii() {
                    return None;
                }
                out.push(i64::from(u32::from(ch)));
                continue;
            }
            let value = match chars.next()? {
                'n' => 10,
                't' => 9,
                'r' => 13,
                'a' => 7,
                'b' => 8,
                'f' => 12,
                'v' => 11,
                '\\' => 92,
                '\'' => 39,
                '"' => 34,
                '?' => 63,
                d @ '0'..='7' => {
                    let mut v = i64::from(d.to_digit(8)?);
                    for _ in 0..2 {
                        match chars.peek().and_then(|c| c.to_digit(8)) {
                            Some(k) => {
                                v = v * 8 + i64::from(k);
                                chars.next();
                            }
                            None => break,
                        }
                    }
                    v
                }
                _ => return None,
            };
            out.push(value);
        }
    }
    Some(out)
}

impl Translator<'_> {
    /// The layout of an object of type `info` (an array of `array_len` of them when given);
    /// `None` past a nesting no real struct reaches.
    pub(super) fn layout(
        &self,
        info: &TypeInfo,
        array_len: Option<u32>,
        depth: u32,
    ) -> Option<Layout> {
        self.layout_of(&info.base, info.pointer_depth, array_len, depth)
    }

    fn layout_of(
        &self,
        base: &str,
        pointer_depth: u8,
        array_len: Option<u32>,
        depth: u32,
    ) -> Option<Layout> {
        if depth > 16 {
            return None;
        }
        let one = if pointer_depth > 0 {
            Layout::Scalar {
                char: false,
                pointer: true,
            }
        } else {
            let name = base.strip_prefix("struct ").unwrap_or(base);
            match self.structs.iter().find(|s| s.name.name == name) {
                Some(def) => {
                    let mut fields = Vec::new();
                    for f in &def.fields {
                        let dims = self
                            .field_dims
                            .get(&(name.to_string(), f.name.name.clone()));
                        let layout = match dims {
                            // An array of arrays: arrays of rows, as C lays it out.
                            Some(dims) => dims.iter().rev().try_fold(
                                self.layout_of(&f.ty.base, f.ty.pointer_depth, None, depth + 1)?,
                                |inner, &n| Some(Layout::Array(Box::new(inner), n)),
                            )?,
                            None => self.layout_of(
                                &f.ty.base,
                                f.ty.pointer_depth,
                                f.array_len,
                                depth + 1,
                            )?,
                        };
                        fields.push((f.name.name.clone(), layout));
                    }
                    Layout::Struct(fields)
                }
                None => Layout::Scalar {
                    char: base.contains("char"),
                    pointer: false,
                },
            }
        };
        Some(match array_len {
            Some(len) => Layout::Array(Box::new(one), len),
            None => one,
        })
    }

    /// The cells `init` gives an object of layout `layout`; `None` when it was refused.
    pub(super) fn initializer_cells<'a>(
        &mut self,
        layout: &Layout,
        init: &'a Node<c::Initializer>,
        scope: &Scope,
    ) -> Option<Cells<'a>> {
        let mut cells = Cells::new();
        let before = self.errors.len();
        self.fill_object(layout, 0, init, scope, &mut cells);
        (self.errors.len() == before).then_some(cells)
    }

    fn fill_object<'a>(
        &mut self,
        layout: &Layout,
        offset: i64,
        init: &'a Node<c::Initializer>,
        scope: &Scope,
        cells: &mut Cells<'a>,
    ) {
        match &init.node {
            c::Initializer::Expression(e) => self.fill_expression(layout, offset, e, cells),
            c::Initializer::List(items) => {
                if let Layout::Scalar { .. } = layout {
                    // `int x = { 5 };`, `= {}`: the one value, or 0.
                    match items.as_slice() {
                        [] => {
                            cells.insert(offset, CellInit::Int(0));
                        }
                        [item] if item.node.designation.is_empty() => {
                            self.fill_object(layout, offset, &item.node.initializer, scope, cells)
                        }
                        _ => self.refuse(
                            "an initializer list of several values for a scalar",
                            init.span,
                        ),
                    }
                    return;
                }
                let mut at = 0;
                self.fill_list(layout, offset, items, &mut at, true, scope, cells);
            }
        }
    }

    /// An expression initialising an object: a scalar's value, or a `char` array's string.
    fn fill_expression<'a>(
        &mut self,
        layout: &Layout,
        offset: i64,
        e: &'a Node<c::Expression>,
        cells: &mut Cells<'a>,
    ) {
        match (layout, &e.node) {
            (Layout::Scalar { .. }, _) => {
                cells.insert(offset, CellInit::Expr(e));
            }
            (Layout::Array(_, len), c::Expression::StringLiteral(parts))
                if layout.is_char_array() =>
            {
                let Some(bytes) = string_bytes(&parts.node) else {
                    self.refuse("this escape sequence in a string literal", e.span);
                    return;
                };
                // The terminating NUL when there is room for it (6.7.9p14).
                if bytes.len() > *len as usize {
                    let at = self.span(e.span);
                    self.errors.push(Diagnostic::new(
                        format!(
                            "a string of {} characters for an array of {len}",
                            bytes.len()
                        ),
                        at,
                    ));
                    return;
                }
                for (k, b) in bytes.iter().enumerate() {
                    cells.insert(offset + k as i64, CellInit::Int(*b));
                }
                for k in bytes.len()..*len as usize {
                    cells.insert(offset + k as i64, CellInit::Int(0));
                }
            }
            (_, c::Expression::StringLiteral(_)) => self.string_for_aggregate(layout, e.span),
            _ => self.refuse(
                "an aggregate initialised by an expression (a whole struct or array as a value)",
                e.span,
            ),
        }
    }

    /// The items of a list from `*at` on for the members of `layout` (from its first):
    /// braced, the whole list is for it; not (brace elision), it takes the items it has
    /// members for, up to a designated one, which belongs to the enclosing list.
    #[allow(clippy::too_many_arguments)]
    fn fill_list<'a>(
        &mut self,
        layout: &Layout,
        offset: i64,
        items: &'a [Node<c::InitializerListItem>],
        at: &mut usize,
        braced: bool,
        scope: &Scope,
        cells: &mut Cells<'a>,
    ) {
        let mut cursor = 0;
        // After a designator of several steps (`.a.b = 1`), C goes on inside `.a`; nemos
        // refuses a positional item there rather than guess.
        let mut nested = false;
        while let Some(item) = items.get(*at) {
            if !item.node.designation.is_empty() {
                if !braced {
                    return;
                }
                *at += 1;
                let Some(next) = self.fill_designated(
                    layout,
                    offset,
                    &item.node.designation,
                    &item.node.initializer,
                    scope,
                    cells,
                ) else {
                    return;
                };
                cursor = next;
                nested = item.node.designation.len() > 1;
                continue;
            }
            if nested {
                self.refuse(
                    "a positional initializer after a designator of several members",
                    item.span,
                );
                return;
            }
            let Some((member, member_offset)) = layout.member(cursor) else {
                if braced {
                    self.refuse(
                        "an initializer with more values than the object has members",
                        item.span,
                    );
                }
                return;
            };
            let member = member.clone();
            match &item.node.initializer.node {
                c::Initializer::Expression(e) if !takes_whole(&member, e) => {
                    // Brace elision: the items fill the member's own members.
                    let start = *at;
                    self.fill_list(
                        &member,
                        offset + member_offset,
                        items,
                        at,
                        false,
                        scope,
                        cells,
                    );
                    if *at == start {
                        return;
                    }
                }
                _ => {
                    *at += 1;
                    self.fill_object(
                        &member,
                        offset + member_offset,
                        &item.node.initializer,
                        scope,
                        cells,
                    );
                }
            }
            cursor += 1;
        }
    }

    /// An item with designators: the members they name get the initializer. The position
    /// after the first designator's member (where positional items go on), or `None` when
    /// refused.
    fn fill_designated<'a>(
        &mut self,
        layout: &Layout,
        offset: i64,
        designators: &[Node<c::Designator>],
        init: &'a Node<c::Initializer>,
        scope: &Scope,
        cells: &mut Cells<'a>,
    ) -> Option<usize> {
        let (first, rest) = designators.split_first()?;
        let targets: Vec<usize> = match (&first.node, layout) {
            (c::Designator::Member(field), Layout::Struct(fields)) => {
                match fields.iter().position(|(f, _)| *f == field.node.name) {
                    Some(k) => vec![k],
                    None => {
                        let at = self.span(field.span);
                        self.errors.push(Diagnostic::new(
                            format!(
                                "no field `{}` in this initializer's struct",
                                field.node.name
                            ),
                            at,
                        ));
                        return None;
                    }
                }
            }
            (c::Designator::Index(e), Layout::Array(_, len)) => {
                let k = self.designated_index(e, *len, scope)?;
                vec![k]
            }
            (c::Designator::Range(r), Layout::Array(_, len)) => {
                let from = self.designated_index(&r.node.from, *len, scope)?;
                let to = self.designated_index(&r.node.to, *len, scope)?;
                (from..=to).collect()
            }
            _ => {
                let at = self.span(first.span);
                self.errors.push(Diagnostic::new(
                    "this designator does not name a member of the object it initialises",
                    at,
                ));
                return None;
            }
        };
        for &k in &targets {
            let (member, member_offset) = layout.member(k)?;
            let member = member.clone();
            let at = offset + member_offset;
            if rest.is_empty() {
                match &init.node {
                    c::Initializer::Expression(e)
                        if matches!(e.node, c::Expression::StringLiteral(_))
                            && !member.is_char_array() =>
                    {
                        self.string_for_aggregate(&member, e.span);
                        return None;
                    }
                    c::Initializer::Expression(e) if !takes_whole(&member, e) => {
                        self.refuse(
                            "a designated aggregate member initialised without braces",
                            init.span,
                        );
                        return None;
                    }
                    _ => self.fill_object(&member, at, init, scope, cells),
                }
            } else {
                self.fill_designated(&member, at, rest, init, scope, cells)?;
            }
        }
        targets.last().map(|k| k + 1)
    }

    /// A string literal for an aggregate that is not a `char` array (`.a = "2222"` for an
    /// `int a[4]`). C lets a string initialise an array of a character type only (C11
    /// 6.7.9p14); for another aggregate, brace elision makes it the initializer of the first
    /// scalar (6.7.9p20), and a pointer initialising an integer without a cast breaks the
    /// constraint of simple assignment (6.7.9p11, 6.5.16.1p1): that is not C (clang accepts
    /// it, a warning `-Wint-conversion`, an error by default since clang 15). A first scalar
    /// that is a pointer would be C; nemos has no address for a string literal yet.
    fn string_for_aggregate(&mut self, layout: &Layout, span: lang_c::span::Span) {
        if !layout.first_scalar_is_integer() {
            self.refuse(
                "a string literal initialising an object that is not a `char` array",
                span,
            );
            return;
        }
        let at = self.span(span);
        self.errors.push(Diagnostic::new(
            "a string literal for an aggregate that is not a character array initialises \
             its first element, an integer, with a pointer: not C (C11 6.7.9p11, 6.5.16.1p1)",
            at,
        ));
    }

    /// A designator's index, a constant within the array.
    fn designated_index(
        &mut self,
        e: &Node<c::Expression>,
        len: u32,
        scope: &Scope,
    ) -> Option<usize> {
        let k = self.constant(e, scope)?;
        if !(0..i64::from(len)).contains(&k) {
            let at = self.span(e.span);
            self.errors.push(Diagnostic::new(
                format!("index {k} is outside the array of {len}"),
                at,
            ));
            return None;
        }
        Some(k as usize)
    }

    /// Each cell of an object of `total` cells, in order: the initializer's value or 0,
    /// its side effects hoisted into `out`.
    fn cell_values(
        &mut self,
        cells: &Cells<'_>,
        total: i64,
        scope: &Scope,
        out: &mut Vec<ast::Stmt>,
        span: Span,
    ) -> Vec<ast::Expr> {
        let mut values = Vec::new();
        for k in 0..total {
            let value = match cells.get(&k) {
                Some(CellInit::Expr(e)) => self.value(e, scope, out),
                Some(CellInit::Int(v)) => Some(expr(ExprKind::Int(*v), span)),
                None => Some(expr(ExprKind::Int(0), span)),
            };
            values.push(value.unwrap_or_else(|| expr(ExprKind::Int(0), span)));
        }
        values
    }

    /// The writes that initialise stack object `name`, of layout `layout`, with `init`.
    pub(super) fn initialise_stack_object(
        &mut self,
        name: &str,
        layout: &Layout,
        init: &Node<c::Initializer>,
        scope: &Scope,
        out: &mut Vec<ast::Stmt>,
    ) {
        let span = self.span(init.span);
        let total = layout.cells();
        if total > MAX_CELLS {
            self.refuse(
                &format!("an initialised local object of {total} cells (at most {MAX_CELLS})"),
                init.span,
            );
            return;
        }
        let Some(cells) = self.initializer_cells(layout, init, scope) else {
            return;
        };
        let values = self.cell_values(&cells, total, scope, out, span);
        // Cell by cell, whatever the object's type: through an `int *`.
        let base = as_int_pointer(name_expr(&stack_register(name), span), span);
        for (k, value) in values.into_iter().enumerate() {
            let lhs = expr(
                ExprKind::Index(
                    Box::new(base.clone()),
                    Box::new(expr(ExprKind::Int(k as i64), span)),
                ),
                span,
            );
            out.push(stmt(StmtKind::Assign { lhs, rhs: value }, span));
        }
    }

    /// A global array of scalars whose initializer list has designators
    /// (`int a[4] = { [0 ... 3] = -42 };`): its values, constants, the rest 0.
    pub(super) fn designated_global_array(
        &mut self,
        info: &TypeInfo,
        len: u32,
        init: &Node<c::Initializer>,
    ) -> Option<Vec<i64>> {
        let layout = self.layout(info, Some(len), 0)?;
        if layout.cells() != i64::from(len) {
            self.refuse(
                "a designated initializer of a global array of structs",
                init.span,
            );
            return None;
        }
        let scope = Scope::default();
        let cells = self.initializer_cells(&layout, init, &scope)?;
        let mut values = vec![0; len as usize];
        for (k, cell) in cells {
            values[k as usize] = match cell {
                CellInit::Int(v) => v,
                CellInit::Expr(e) => self.constant(e, &scope)?,
            };
        }
        Some(values)
    }
}

impl Translator<'_> {
    /// A local array `T a[N]` (initialised or not): a stack object of `N` elements, `a` its
    /// address. Refused when it is not one (an array of arrays, a `static` one).
    pub(super) fn local_array(
        &mut self,
        name: &Node<c::Identifier>,
        info: &TypeInfo,
        len: u32,
        init_declarator: &Node<c::InitDeclarator>,
        scope: &mut Scope,
        out: &mut Vec<ast::Stmt>,
    ) {
        let variable = &name.node.name;
        if !self.stack_frame.is_array(variable) {
            self.refuse(
                "this local array declarator (a pointer to an array, an array of function pointers)",
                init_declarator.node.declarator.span,
            );
            return;
        }
        if scope.stack.contains(variable) && scope.locals.contains_key(variable) {
            self.refuse(
                &format!("a local that hides another `{variable}` whose address is taken"),
                name.span,
            );
            return;
        }
        let Some(mut layout) = self.layout(info, None, 0) else {
            self.refuse("a local of a recursive struct type", name.span);
            return;
        };
        // An array of arrays: rows laid out one after the other (`arrays.rs`), its
        // lengths kept for the indices.
        let declarator = &init_declarator.node.declarator.node;
        let lengths = self.lengths(declarator);
        let flat = lengths.iter().try_fold(1u32, |n, &k| n.checked_mul(k));
        if lengths.len() > 1 && flat == Some(len) {
            for n in lengths.iter().rev() {
                layout = Layout::Array(Box::new(layout), *n);
            }
            self.record_dims(variable, declarator, Some(scope));
        } else {
            layout = Layout::Array(Box::new(layout), len);
            scope.dims.remove(variable);
        }
        let span = self.span(init_declarator.span);
        self.stack_frame
            .add_block(variable, info, layout.cells(), span);
        let mut decayed = info.clone();
        decayed.pointer_depth += 1;
        scope.locals.insert(variable.clone(), decayed);
        scope.constants.remove(variable);
        scope.stack.insert(variable.clone());
        if let Some(init) = &init_declarator.node.initializer {
            self.initialise_stack_object(variable, &layout, init, scope, out);
        }
    }

    /// A local struct stack object initialised by a list (`struct foo q = { .x = 42 };`).
    pub(super) fn stack_struct_list(
        &mut self,
        variable: &str,
        info: &TypeInfo,
        init: &Node<c::Initializer>,
        scope: &Scope,
        out: &mut Vec<ast::Stmt>,
    ) {
        match self.layout(info, None, 0) {
            Some(layout) => self.initialise_stack_object(variable, &layout, init, scope, out),
            None => self.refuse("a local of a recursive struct type", init.span),
        }
    }
}
