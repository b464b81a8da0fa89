//! Structs, flattened before the rest of lowering runs.
//!
//! A struct object (`struct node n;`, `struct node pool[4];`) becomes an array of cells, its
//! fields at fixed offsets in declaration order, nested structs and array fields laid out
//! inline: `pool` above is an array of 8 cells and `pool[1].next` is its cell 3. Member
//! accesses become indexing (`p->next` is `p[1]`, `pool[i].next` is `pool[i * 2 + 1]`),
//! pointer arithmetic on a struct pointer is scaled by the struct's size (`p + 1` steps
//! over one whole node), and `&pool[1]` is `pool + 2`. What comes out is the AST of a
//! program without structs, which the rest of lowering already knows: pointers, arrays,
//! register-indexed accesses. The cells keep their struct names (`pool[1].next`) for every
//! report.
//!
//! This needs the static type of an expression wherever a struct pointer may flow: registers
//! and parameters carry their declared types, locations the type of the init block or of a
//! thread's parameter, calls their function's return type (a library load, the type its
//! address points to). A `->` on a value whose type is not known (an undeclared register)
//! is an error that asks for a declaration, never a guess.

use std::collections::HashMap;

use super::Lowerer;
use crate::diagnostics::{Diagnostic, SourceFile, Span};
use crate::syntax::ast::{self, ExprKind, Member, StmtKind};

/// The type of a value, as far as structs care: everything that is not a struct or a
/// pointer (integers, and values whose type is not declared) is a `Scalar`.
#[derive(Clone, Debug, PartialEq, Eq)]
enum CType {
    Scalar,
    Struct(String),
    Pointer(Box<CType>),
}

impl CType {
    fn of(ty: &ast::Type) -> CType {
        let mut t = match ty.base.strip_prefix("struct ") {
            Some(name) => CType::Struct(name.to_string()),
            None => CType::Scalar,
        };
        for _ in 0..ty.pointer_depth {
            t = CType::Pointer(Box::new(t));
        }
        t
    }

    fn pointee(&self) -> CType {
        match self {
            CType::Pointer(t) => (**t).clone(),
            _ => CType::Scalar,
        }
    }

    fn pointer_to(self) -> CType {
        CType::Pointer(Box::new(self))
    }
}

#[derive(Clone, Debug)]
struct Field {
    name: String,
    offset: u32,
    ty: CType,
    /// `int slots[2];`
    len: Option<u32>,
    atomic: bool,
}

#[derive(Clone, Debug)]
struct Layout {
    size: u32,
    fields: Vec<Field>,
}

/// The largest struct object nemos lays out, in cells (an object's block of addresses).
const MAX_OBJECT_CELLS: u64 = super::super::OBJECT_STRIDE as u64;

/// A struct (or an array inside one) reached by member accesses and indexing, not yet a
/// cell: `base` is the address of the object it lies in (a location's name or a pointer
/// value) and `offset` the cells from there.
#[derive(Clone, Debug)]
struct Place {
    base: ast::Expr,
    offset: ast::Expr,
    shape: Shape,
}

#[derive(Clone, Debug)]
enum Shape {
    Struct(String),
    Array(CType, u32),
}

enum Typed {
    Value(ast::Expr, CType),
    Place(Place),
}

/// What the rest of lowering needs to know of the structs: the report names of each
/// struct object's cells, and which of them are atomic fields.
#[derive(Default)]
pub(super) struct StructCells {
    pub(super) objects: HashMap<String, Vec<Cell>>,
}

pub(super) struct Cell {
    pub(super) name: String,
    pub(super) atomic: bool,
    /// The struct element it begins (`pool[1]`), see `Location::starts`.
    pub(super) starts: Option<String>,
}

struct Flattener<'l> {
    lowerer: &'l mut Lowerer,
    file: &'l SourceFile,
    layouts: HashMap<String, Layout>,
    definitions: HashMap<String, ast::StructDef>,
    /// Locations by name: the type of one element (the struct of `struct node pool[4]`,
    /// `int *` of `int *top`).
    objects: HashMap<String, CType>,
    functions: HashMap<String, CType>,
    /// Registers and parameters in scope, innermost last.
    scopes: Vec<HashMap<String, CType>>,
}

/// The test with its structs flattened into arrays, and the names of their cells.
pub(super) fn flatten(
    test: &ast::LitmusTest,
    file: &SourceFile,
    lowerer: &mut Lowerer,
) -> (ast::LitmusTest, StructCells) {
    let mut f = Flattener {
        lowerer,
        file,
        layouts: HashMap::new(),
        definitions: HashMap::new(),
        objects: HashMap::new(),
        functions: HashMap::new(),
        scopes: Vec::new(),
    };
    f.define(&test.structs);
    let mut out = test.clone();
    let mut cells = StructCells::default();
    for item in &mut out.init {
        f.flatten_init_item(item, &mut cells);
    }
    for thread in &test.threads {
        for param in &thread.params {
            let name = &param.name.name;
            if !f.objects.contains_key(name) {
                f.objects
                    .insert(name.clone(), CType::of(&param.ty).pointee());
            }
        }
    }
    for function in &test.functions {
        f.functions
            .insert(function.name.name.clone(), CType::of(&function.return_type));
    }
    for function in &mut out.functions {
        f.scopes.push(
            function
                .params
                .iter()
                .map(|p| (p.name.name.clone(), CType::of(&p.ty)))
                .collect(),
        );
        f.block(&mut function.body);
        f.scopes.clear();
    }
    for thread in &mut out.threads {
        for param in &thread.params {
            f.check_value_type(&param.ty, param.name.span);
        }
        f.scopes.push(HashMap::new());
        f.block(&mut thread.body);
        f.scopes.clear();
    }
    for var in &mut out.locations {
        f.flatten_state_var(var);
    }
    if let Some(filter) = &mut out.filter {
        f.flatten_prop(filter);
    }
    if let Some(condition) = &mut out.condition {
        f.flatten_prop(&mut condition.prop);
    }
    (out, cells)
}

impl Flattener<'_> {
    fn error(&mut self, diagnostic: Diagnostic) {
        self.lowerer.error(diagnostic);
    }

    // ------------------------------------------------------------------ layouts

    fn define(&mut self, defs: &[ast::StructDef]) {
        for def in defs {
            if let Some(first) = self.definitions.get(&def.name.name) {
                let first = first.name.span;
                self.error(
                    Diagnostic::new(
                        format!("struct `{}` is defined twice", def.name.name),
                        def.name.span,
                    )
                    .with_label("second definition")
                    .with_help(format!(
                        "the first definition is on line {}",
                        self.file.line_col(first.start).0
                    )),
                );
                continue;
            }
            self.definitions.insert(def.name.name.clone(), def.clone());
        }
        let mut names: Vec<String> = self.definitions.keys().cloned().collect();
        names.sort();
        for name in names {
            self.layout(&name, &mut Vec::new(), None);
        }
    }

    /// Lays out struct `name` (and the structs it holds by value), once. `open` holds the
    /// structs being laid out: meeting one again is a struct that contains itself.
    /// `by`: the field that holds it by value, where a cycle is reported.
    fn layout(&mut self, name: &str, open: &mut Vec<String>, by: Option<Span>) -> Option<u32> {
        if let Some(layout) = self.layouts.get(name) {
            return Some(layout.size);
        }
        let def = self.definitions.get(name)?.clone();
        if open.iter().any(|o| o == name) {
            self.error(
                Diagnostic::new(
                    format!("struct `{name}` contains itself"),
                    by.unwrap_or(def.name.span),
                )
                .with_label("held by value here")
                .with_help("a struct can hold a pointer to its own kind (`struct node *next;`), not itself"),
            );
            return None;
        }
        open.push(name.to_string());
        let mut fields: Vec<Field> = Vec::new();
        let mut size: u64 = 0;
        let mut ok = true;
        for field in &def.fields {
            if fields.iter().any(|f| f.name == field.name.name) {
                self.error(Diagnostic::new(
                    format!("struct `{name}` has two fields named `{}`", field.name.name),
                    field.name.span,
                ));
                ok = false;
                continue;
            }
            let ty = CType::of(&field.ty);
            let one = match &ty {
                CType::Struct(inner) => {
                    if !self.definitions.contains_key(inner) {
                        self.unknown_struct(inner, field.ty.span);
                        ok = false;
                        continue;
                    }
                    match self.layout(inner, open, Some(field.span)) {
                        Some(s) => u64::from(s),
                        None => {
                            ok = false;
                            continue;
                        }
                    }
                }
                _ => 1,
            };
            fields.push(Field {
                name: field.name.name.clone(),
                offset: size as u32,
                ty,
                len: field.array_len,
                atomic: super::type_is_atomic(&field.ty),
            });
            size += one * u64::from(field.array_len.unwrap_or(1));
            if size > MAX_OBJECT_CELLS {
                self.error(Diagnostic::new(
                    format!("struct `{name}` is larger than {MAX_OBJECT_CELLS} cells"),
                    def.span,
                ));
                ok = false;
                break;
            }
        }
        open.pop();
        if fields.is_empty() && ok {
            self.error(Diagnostic::new(
                format!("struct `{name}` has no fields"),
                def.span,
            ));
            ok = false;
        }
        if !ok {
            return None;
        }
        let size = size as u32;
        self.layouts
            .insert(name.to_string(), Layout { size, fields });
        Some(size)
    }

    fn unknown_struct(&mut self, name: &str, span: Span) {
        let mut known: Vec<&String> = self.definitions.keys().collect();
        known.sort();
        let help = if known.is_empty() {
            format!("define it, e.g. `struct {name} {{ int val; struct {name} *next; }};` in the init block")
        } else {
            format!(
                "the test defines {}",
                known
                    .iter()
                    .map(|k| format!("`struct {k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        self.error(Diagnostic::new(format!("unknown struct `{name}`"), span).with_help(help));
    }

    /// Cells of one value of type `ty`: a struct's size, else one.
    fn size_of(&self, ty: &CType) -> u32 {
        match ty {
            CType::Struct(name) => self.layouts.get(name).map_or(1, |l| l.size),
            _ => 1,
        }
    }

    /// A struct type that is written must be defined; a struct value where nemos keeps only
    /// integers (a register, a parameter) is refused. A pointer to a struct the test does
    /// not define is a pointer to one opaque cell, as herd reads the kernel's
    /// `struct srcu_struct *s` (only its address is used; a field of it is an error).
    fn check_value_type(&mut self, ty: &ast::Type, span: Span) -> bool {
        let t = CType::of(ty);
        let mut inner = &t;
        while let CType::Pointer(p) = inner {
            inner = p;
        }
        if let CType::Struct(name) = inner {
            let opaque = ty.pointer_depth > 0 && !self.definitions.contains_key(name);
            if opaque {
                return true;
            }
            if !self.layouts.contains_key(name) {
                if !self.definitions.contains_key(name) {
                    self.unknown_struct(name, ty.span);
                }
                return false;
            }
        }
        if let CType::Struct(name) = &t {
            self.error(
                Diagnostic::new(format!("a `struct {name}` value here"), span)
                    .with_label("registers and parameters hold integers and pointers")
                    .with_help(format!(
                        "keep structs in memory (the init block) and use a pointer: `struct {name} *`"
                    )),
            );
            return false;
        }
        true
    }

    /// The report names of the cells of one value of `ty`, `prefix` naming the value.
    fn cell_names(&self, prefix: &str, ty: &CType, atomic: bool, out: &mut Vec<Cell>) {
        let CType::Struct(name) = ty else {
            out.push(Cell {
                name: prefix.to_string(),
                atomic,
                starts: None,
            });
            return;
        };
        let Some(layout) = self.layouts.get(name) else {
            return;
        };
        for field in &layout.fields {
            let path = format!("{prefix}.{}", field.name);
            match field.len {
                Some(len) => {
                    for i in 0..len {
                        self.cell_names(&format!("{path}[{i}]"), &field.ty, field.atomic, out);
                    }
                }
                None => self.cell_names(&path, &field.ty, field.atomic, out),
            }
        }
    }

    // ------------------------------------------------------------------ the init block

    fn flatten_init_item(&mut self, item: &mut ast::InitItem, cells: &mut StructCells) {
        if let ast::StateVar::Location { name, .. } = &item.target {
            let name = name.name.clone();
            if let Some(ty) = &item.ty {
                let elem = CType::of(ty);
                if let CType::Struct(s) = &elem {
                    if !self.layouts.contains_key(s) {
                        if !self.definitions.contains_key(s) {
                            self.unknown_struct(s, ty.span);
                        }
                        return;
                    }
                    let size = self.size_of(&elem);
                    let count = item.array_len;
                    let total = u64::from(count.unwrap_or(1)) * u64::from(size);
                    if total > MAX_OBJECT_CELLS {
                        self.error(Diagnostic::new(
                            format!("`{name}` is larger than {MAX_OBJECT_CELLS} cells"),
                            item.span,
                        ));
                        return;
                    }
                    let mut names = Vec::new();
                    let elements: Vec<String> = match count {
                        Some(n) => (0..n).map(|i| format!("{name}[{i}]")).collect(),
                        None => vec![name.clone()],
                    };
                    for element in elements {
                        let first = names.len();
                        self.cell_names(&element, &elem, false, &mut names);
                        if let Some(cell) = names.get_mut(first) {
                            cell.starts = Some(element);
                        }
                    }
                    cells.objects.insert(name.clone(), names);
                    item.array_len = Some(total as u32);
                    item.ty = Some(ast::Type {
                        base: "int".to_string(),
                        ..ty.clone()
                    });
                    // Its initial values, if any, are a list of cells in layout order.
                    self.objects.insert(name, elem);
                    return;
                }
                self.objects.entry(name).or_insert(elem);
            }
        }
        self.flatten_state_var(&mut item.target);
        if let Some(ast::InitValue::Address(address)) = &mut item.value {
            self.flatten_address(address);
        }
    }

    /// `pool[1].next` as the cell it is, `pool[3]`.
    fn flatten_state_var(&mut self, var: &mut ast::StateVar) {
        let ast::StateVar::Location {
            name,
            index,
            members,
        } = var
        else {
            return;
        };
        let Some(elem) = self.objects.get(&name.name).cloned() else {
            return;
        };
        if !matches!(elem, CType::Struct(_)) {
            return;
        }
        let mut path: Vec<Member> = index.iter().map(|&i| Member::Index(i, name.span)).collect();
        path.append(members);
        let Some((cell, _)) = self.cell_of_path(name, &elem, &path, true) else {
            return;
        };
        *index = Some(cell);
    }

    /// `&pool[1].next` as `&pool[3]`; `pool + 1` as `pool + 2`.
    fn flatten_address(&mut self, address: &mut ast::AddressOf) {
        let Some(elem) = self.objects.get(&address.name.name).cloned() else {
            return;
        };
        if !matches!(elem, CType::Struct(_)) {
            return;
        }
        if address.members.is_empty() {
            address.offset *= i64::from(self.size_of(&elem));
            return;
        }
        let path = std::mem::take(&mut address.members);
        // A path that ends on a whole struct is its first cell, as `&pool[1]` is, and `+ k`
        // steps over whole structs from there.
        if let Some((cell, step)) = self.cell_of_path(&address.name, &elem, &path, false) {
            address.members = vec![Member::Index(cell, address.span)];
            address.offset *= i64::from(step);
        }
    }

    /// The cell a constant path reaches in an object whose elements have type `elem`, and
    /// the cells of what it reaches (a struct's size, an array field's whole length): one
    /// step of pointer arithmetic from it. `to_cell`: the path must end on a cell (a state
    /// variable), not on a struct.
    fn cell_of_path(
        &mut self,
        name: &ast::Ident,
        elem: &CType,
        path: &[Member],
        to_cell: bool,
    ) -> Option<(u32, u32)> {
        let mut offset: u64 = 0;
        let mut ty = elem.clone();
        // The object itself may be indexed once (an array of structs); a field that is an
        // array may be indexed once after its name.
        let mut array_len: Option<u32> = None;
        let mut steps = path.iter().peekable();
        if let Some(Member::Index(i, _)) = steps.peek() {
            offset += u64::from(*i) * u64::from(self.size_of(&ty));
            steps.next();
        }
        let mut written = name.name.clone();
        for step in steps {
            match step {
                Member::Index(i, span) => {
                    let Some(len) = array_len.take() else {
                        self.error(Diagnostic::new(
                            format!("`{written}` is not an array"),
                            *span,
                        ));
                        return None;
                    };
                    if *i >= len {
                        self.error(Diagnostic::new(
                            format!("index {i} is outside `{written}` of {len} elements"),
                            *span,
                        ));
                        return None;
                    }
                    offset += u64::from(*i) * u64::from(self.size_of(&ty));
                    written.push_str(&format!("[{i}]"));
                }
                Member::Field(field) => {
                    if array_len.is_some() {
                        self.error(Diagnostic::new(
                            format!("`{written}` is an array: index it before `.{}`", field.name),
                            field.span,
                        ));
                        return None;
                    }
                    let f = self.field(&ty, field, &written)?;
                    offset += u64::from(f.offset);
                    ty = f.ty;
                    array_len = f.len;
                    written.push('.');
                    written.push_str(&field.name);
                }
            }
        }
        if to_cell && (matches!(ty, CType::Struct(_)) || array_len.is_some()) {
            self.error(
                Diagnostic::new(format!("`{written}` is not one cell"), name.span)
                    .with_label("a struct or an array")
                    .with_help("name one of its fields, e.g. `pool[0].val`"),
            );
            return None;
        }
        let step = self.size_of(&ty) * array_len.unwrap_or(1);
        Some((u32::try_from(offset).ok()?, step))
    }

    /// Field `field` of a value of type `ty`, which must be a struct.
    fn field(&mut self, ty: &CType, field: &ast::Ident, written: &str) -> Option<Field> {
        let CType::Struct(name) = ty else {
            self.error(
                Diagnostic::new(format!("`{written}` is not a struct"), field.span)
                    .with_label(format!("no field `{}` here", field.name)),
            );
            return None;
        };
        if !self.definitions.contains_key(name) {
            // An opaque struct (see `check_value_type`).
            self.unknown_struct(name, field.span);
            return None;
        }
        let layout = self.layouts.get(name)?;
        if let Some(f) = layout.fields.iter().find(|f| f.name == field.name) {
            return Some(f.clone());
        }
        let names: Vec<String> = layout
            .fields
            .iter()
            .map(|f| format!("`{}`", f.name))
            .collect();
        self.error(
            Diagnostic::new(
                format!("struct `{name}` has no field `{}`", field.name),
                field.span,
            )
            .with_help(format!("its fields are {}", names.join(", "))),
        );
        None
    }

    fn flatten_prop(&mut self, prop: &mut ast::Prop) {
        match prop {
            ast::Prop::Atom { var, value, .. } => {
                self.flatten_state_var(var);
                if let ast::AtomValue::Address(address) = value {
                    self.flatten_address(address);
                }
            }
            ast::Prop::Not(p, _) => self.flatten_prop(p),
            ast::Prop::And(a, b) | ast::Prop::Or(a, b) | ast::Prop::Implies(a, b) => {
                self.flatten_prop(a);
                self.flatten_prop(b);
            }
            ast::Prop::True(_) | ast::Prop::False(_) => {}
        }
    }

    // ------------------------------------------------------------------ code

    fn block(&mut self, stmts: &mut [ast::Stmt]) {
        self.scopes.push(HashMap::new());
        for stmt in stmts {
            self.stmt(stmt);
        }
        self.scopes.pop();
    }

    fn stmt(&mut self, stmt: &mut ast::Stmt) {
        match &mut stmt.kind {
            StmtKind::Decl { ty, name, init } => {
                if let Some(init) = init {
                    self.value_in_place(init);
                }
                let t = if self.check_value_type(ty, name.span) {
                    CType::of(ty)
                } else {
                    CType::Scalar
                };
                if let Some(scope) = self.scopes.last_mut() {
                    scope.insert(name.name.clone(), t);
                }
            }
            StmtKind::Assign { lhs, rhs } => {
                self.value_in_place(lhs);
                self.value_in_place(rhs);
            }
            StmtKind::Expr(e) => self.value_in_place(e),
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                self.value_in_place(cond);
                self.block(then_branch);
                if let Some(b) = else_branch {
                    self.block(b);
                }
            }
            StmtKind::While {
                prelude,
                cond,
                body,
            } => {
                self.block(prelude);
                self.value_in_place(cond);
                self.block(body);
            }
            StmtKind::DoWhile { body, cond } => {
                self.value_in_place(cond);
                self.block(body);
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.scopes.push(HashMap::new());
                if let Some(init) = init {
                    self.stmt(init);
                }
                if let Some(cond) = cond {
                    self.value_in_place(cond);
                }
                if let Some(step) = step {
                    self.stmt(step);
                }
                self.block(body);
                self.scopes.pop();
            }
            StmtKind::Return(Some(e)) => self.value_in_place(e),
            StmtKind::Block(stmts) | StmtKind::Atomic(stmts) => self.block(stmts),
            StmtKind::Return(None) | StmtKind::Break | StmtKind::Continue | StmtKind::Empty => {}
        }
    }

    fn value_in_place(&mut self, e: &mut ast::Expr) {
        let (flat, _) = self.value(e);
        *e = flat;
    }

    fn lookup(&self, name: &str) -> Option<&CType> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    /// `e` flattened, as a value: a struct that is not one cell is an error here.
    fn value(&mut self, e: &ast::Expr) -> (ast::Expr, CType) {
        match self.typed(e) {
            Typed::Value(v, t) => (v, t),
            Typed::Place(place) => match place.shape {
                // An array decays to the address of its first element.
                Shape::Array(elem, _) => (
                    address_of_place(place.base, place.offset, e.span),
                    elem.pointer_to(),
                ),
                Shape::Struct(name) => {
                    self.error(
                        Diagnostic::new(format!("a whole `struct {name}` used as a value"), e.span)
                            .with_label("nemos reads and writes structs one field at a time")
                            .with_help(
                                "name a field (`pool[1].val`) or take its address (`&pool[1]`)",
                            ),
                    );
                    (int(0, e.span), CType::Scalar)
                }
            },
        }
    }

    fn typed(&mut self, e: &ast::Expr) -> Typed {
        let span = e.span;
        let value = |kind: ExprKind, t: CType| Typed::Value(ast::Expr { kind, span }, t);
        match &e.kind {
            ExprKind::Int(_) | ExprKind::FieldIndex(..) => Typed::Value(e.clone(), CType::Scalar),
            ExprKind::Name(id) => {
                let t = if let Some(t) = self.lookup(&id.name) {
                    t.clone()
                } else if let Some(elem) = self.objects.get(&id.name) {
                    // A location's name is its address (herd's `int *x`).
                    elem.clone().pointer_to()
                } else {
                    CType::Scalar
                };
                Typed::Value(e.clone(), t)
            }
            ExprKind::Unary(ast::UnaryOp::Deref, inner) => {
                let (p, t) = self.value(inner);
                match t.pointee() {
                    CType::Struct(s) => Typed::Place(Place {
                        base: p,
                        offset: int(0, span),
                        shape: Shape::Struct(s),
                    }),
                    pointee => value(ExprKind::Unary(ast::UnaryOp::Deref, Box::new(p)), pointee),
                }
            }
            ExprKind::Unary(ast::UnaryOp::AddrOf, inner) => {
                if let ExprKind::Name(id) = &inner.kind {
                    // `&x` of a location is its address, as `x` is; of a register, an
                    // error lowering reports.
                    let t = match self.objects.get(&id.name) {
                        Some(elem) if self.lookup(&id.name).is_none() => elem.clone().pointer_to(),
                        _ => CType::Scalar,
                    };
                    return Typed::Value(e.clone(), t);
                }
                // `&n->slots[2]` of two slots is one past the field: an address C allows.
                let operand = match &inner.kind {
                    ExprKind::Index(base, index) => self.indexed(base, index, inner.span, true),
                    _ => self.typed(inner),
                };
                match operand {
                    Typed::Place(place) => {
                        let t = match &place.shape {
                            Shape::Struct(s) => CType::Struct(s.clone()),
                            Shape::Array(elem, _) => elem.clone(),
                        };
                        Typed::Value(
                            address_of_place(place.base, place.offset, span),
                            t.pointer_to(),
                        )
                    }
                    Typed::Value(v, t) => value(
                        ExprKind::Unary(ast::UnaryOp::AddrOf, Box::new(v)),
                        t.pointer_to(),
                    ),
                }
            }
            ExprKind::Unary(op, inner) => {
                let (v, _) = self.value(inner);
                value(ExprKind::Unary(*op, Box::new(v)), CType::Scalar)
            }
            ExprKind::Index(base, index) => self.indexed(base, index, span, false),
            ExprKind::Member(base, field, arrow) => self.member(base, field, *arrow, span),
            ExprKind::Binary(op, a, b) => {
                let (a, ta) = self.value(a);
                let (b, tb) = self.value(b);
                let sa = match &ta {
                    CType::Pointer(p) => self.size_of(p),
                    _ => 1,
                };
                let sb = match &tb {
                    CType::Pointer(p) => self.size_of(p),
                    _ => 1,
                };
                match op {
                    // Two pointers into one array of structs: elements apart, as in C.
                    ast::BinaryOp::Sub if sa > 1 && matches!(tb, CType::Pointer(_)) => {
                        let cells = ast::Expr {
                            kind: ExprKind::Binary(*op, Box::new(a), Box::new(b)),
                            span,
                        };
                        value(
                            ExprKind::Binary(
                                ast::BinaryOp::Div,
                                Box::new(cells),
                                Box::new(int(i64::from(sa), span)),
                            ),
                            CType::Scalar,
                        )
                    }
                    ast::BinaryOp::Add | ast::BinaryOp::Sub if sa > 1 => value(
                        ExprKind::Binary(*op, Box::new(a), Box::new(scale(b, sa))),
                        ta,
                    ),
                    ast::BinaryOp::Add if sb > 1 => value(
                        ExprKind::Binary(*op, Box::new(scale(a, sb)), Box::new(b)),
                        tb,
                    ),
                    ast::BinaryOp::Add | ast::BinaryOp::Sub => {
                        let t = if matches!(ta, CType::Pointer(_)) {
                            ta
                        } else {
                            tb
                        };
                        value(ExprKind::Binary(*op, Box::new(a), Box::new(b)), t)
                    }
                    _ => value(
                        ExprKind::Binary(*op, Box::new(a), Box::new(b)),
                        CType::Scalar,
                    ),
                }
            }
            ExprKind::Conditional(c, a, b) => {
                let (c, _) = self.value(c);
                let (a, ta) = self.value(a);
                let (b, _) = self.value(b);
                value(
                    ExprKind::Conditional(Box::new(c), Box::new(a), Box::new(b)),
                    ta,
                )
            }
            ExprKind::Cast(ty, inner) => {
                let (v, _) = self.value(inner);
                self.check_value_type(ty, ty.span);
                value(ExprKind::Cast(ty.clone(), Box::new(v)), CType::of(ty))
            }
            ExprKind::Call(f, args) => {
                let mut flat = Vec::new();
                let mut first = None;
                for arg in args {
                    let (v, t) = self.value(arg);
                    first.get_or_insert(t);
                    flat.push(v);
                }
                // A function's declared type; a library call's value is what its first
                // argument points to (a load, an exchange), which is all structs need.
                let t = match self.functions.get(&f.name) {
                    Some(t) => t.clone(),
                    None => first.map(|t| t.pointee()).unwrap_or(CType::Scalar),
                };
                value(ExprKind::Call(f.clone(), flat), t)
            }
        }
    }

    /// `base[index]`; `one_past` when only its address is taken (`&a[i]`), where an index
    /// one past an array field is an address, not an access.
    fn indexed(
        &mut self,
        base: &ast::Expr,
        index: &ast::Expr,
        span: Span,
        one_past: bool,
    ) -> Typed {
        let value = |kind: ExprKind, t: CType| Typed::Value(ast::Expr { kind, span }, t);
        let (i, _) = self.value(index);
        match self.typed(base) {
            Typed::Place(Place {
                base: b,
                offset,
                shape: Shape::Array(elem, len),
            }) => {
                // The offset is within the whole object, whose bounds the access
                // checks; the field's own are checked here (a constant index) or
                // when the access runs.
                let limit = len.saturating_add(u32::from(one_past));
                let i = match constant(&i) {
                    Some(k) if k < 0 || k >= i64::from(limit) => {
                        self.error(Diagnostic::new(
                            format!(
                                "index outside `{}`, an array of {len}",
                                self.file.snippet(base.span)
                            ),
                            index.span,
                        ));
                        i
                    }
                    Some(_) => i,
                    None => ast::Expr {
                        span,
                        kind: ExprKind::FieldIndex(Box::new(i), limit),
                    },
                };
                let size = self.size_of(&elem);
                let offset = add(offset, scale(i, size), span);
                self.element(b, offset, elem, span)
            }
            Typed::Place(Place {
                shape: Shape::Struct(s),
                ..
            }) => {
                self.error(Diagnostic::new(
                    format!("a `struct {s}` indexed like an array"),
                    base.span,
                ));
                invalid(span)
            }
            Typed::Value(b, t) => {
                let elem = t.pointee();
                if matches!(elem, CType::Struct(_)) {
                    let size = self.size_of(&elem);
                    self.element(b, scale(i, size), elem, span)
                } else {
                    value(ExprKind::Index(Box::new(b), Box::new(i)), elem)
                }
            }
        }
    }

    /// Element `offset` of `base` whose type is `elem`: a place when it is a struct, a cell
    /// otherwise.
    fn element(&mut self, base: ast::Expr, offset: ast::Expr, elem: CType, span: Span) -> Typed {
        match elem {
            CType::Struct(s) => Typed::Place(Place {
                base,
                offset,
                shape: Shape::Struct(s),
            }),
            elem => Typed::Value(cell(base, offset, span), elem),
        }
    }

    fn member(&mut self, base: &ast::Expr, field: &ast::Ident, arrow: bool, span: Span) -> Typed {
        let written = self.file.snippet(base.span).to_string();
        let typed = self.typed(base);
        let pointee = match &typed {
            Typed::Value(_, CType::Pointer(t)) => match &**t {
                CType::Struct(s) => Some(s.clone()),
                _ => None,
            },
            _ => None,
        };
        let place = match (typed, pointee, arrow) {
            // `p->val`, and `n.val` of a struct location `n`, whose name is its address here.
            (Typed::Value(p, _), Some(s), arrow) if arrow || self.is_location(base) => Place {
                base: p,
                offset: int(0, span),
                shape: Shape::Struct(s),
            },
            (Typed::Place(place), _, false) if matches!(place.shape, Shape::Struct(_)) => place,
            (Typed::Place(_), _, true) => {
                self.error(
                    Diagnostic::new(format!("`->` on `{written}`, which is a struct"), span)
                        .with_help(format!("write `{written}.{}`", field.name)),
                );
                return invalid(span);
            }
            (Typed::Value(..), Some(_), false) => {
                self.error(
                    Diagnostic::new(format!("`.` on `{written}`, which is a pointer"), span)
                        .with_help(format!("write `{written}->{}`", field.name)),
                );
                return invalid(span);
            }
            _ => {
                let op = if arrow { "->" } else { "." };
                self.error(
                    Diagnostic::new(
                        format!("`{written}{op}{}`: `{written}` is not known to be a struct", field.name),
                        base.span,
                    )
                    .with_label("its type is not a struct or a pointer to one")
                    .with_help("declare the register that holds it with its type, e.g. `struct node *p = ...;`"),
                );
                return invalid(span);
            }
        };
        let Shape::Struct(s) = &place.shape else {
            return invalid(span);
        };
        let Some(f) = self.field(&CType::Struct(s.clone()), field, &written) else {
            return invalid(span);
        };
        let offset = add(place.offset, int(i64::from(f.offset), span), span);
        match f.len {
            Some(len) => Typed::Place(Place {
                base: place.base,
                offset,
                shape: Shape::Array(f.ty, len),
            }),
            None => self.element(place.base, offset, f.ty, span),
        }
    }

    fn is_location(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            ExprKind::Name(id) => {
                self.lookup(&id.name).is_none() && self.objects.contains_key(&id.name)
            }
            ExprKind::Cast(_, inner) => self.is_location(inner),
            _ => false,
        }
    }
}

/// What an expression that was reported as an error stands for, so that flattening goes on.
fn invalid(span: Span) -> Typed {
    Typed::Value(int(0, span), CType::Scalar)
}

fn int(v: i64, span: Span) -> ast::Expr {
    ast::Expr {
        kind: ExprKind::Int(v),
        span,
    }
}

fn constant(e: &ast::Expr) -> Option<i64> {
    match e.kind {
        ExprKind::Int(v) => Some(v),
        _ => None,
    }
}

fn add(a: ast::Expr, b: ast::Expr, span: Span) -> ast::Expr {
    match (constant(&a), constant(&b)) {
        (Some(x), Some(y)) => int(x.wrapping_add(y), span),
        (_, Some(0)) => a,
        (Some(0), _) => b,
        _ => ast::Expr {
            kind: ExprKind::Binary(ast::BinaryOp::Add, Box::new(a), Box::new(b)),
            span,
        },
    }
}

/// `i * size`, for an index in elements of `size` cells.
fn scale(i: ast::Expr, size: u32) -> ast::Expr {
    let span = i.span;
    match constant(&i) {
        _ if size == 1 => i,
        Some(v) => int(v.wrapping_mul(i64::from(size)), span),
        None => ast::Expr {
            kind: ExprKind::Binary(
                ast::BinaryOp::Mul,
                Box::new(i),
                Box::new(int(i64::from(size), span)),
            ),
            span,
        },
    }
}

/// The cell `offset` cells from `base`: `base[offset]`.
fn cell(base: ast::Expr, offset: ast::Expr, span: Span) -> ast::Expr {
    ast::Expr {
        kind: ExprKind::Index(Box::new(base), Box::new(offset)),
        span,
    }
}

/// The address `offset` cells from `base`: `base + offset`.
fn address_of_place(base: ast::Expr, offset: ast::Expr, span: Span) -> ast::Expr {
    add(base, offset, span)
}
