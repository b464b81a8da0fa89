//! Values the translation knows before the program runs, so that a loop counted by them is
//! unrolled here (and may start threads), as GenMC's suite writes its `main`s:
//!
//! ```c
//! int readers = 0, writers = 0, rdwr = 2;     // never written: constants
//! static int num_threads;
//! int main() {
//!     int i = 0;                              // followed: written only by top-level `for`s
//!     num_threads = readers + writers + rdwr; // the one write of a global, in `main`
//!     for (int j = 0; j < rdwr; j++, i++)     // unrolled, `i` a constant in each copy
//!         pthread_create(&threads[i], NULL, f, &param[i]);
//!     for (i = 0; i < num_threads; i++)
//!         pthread_join(threads[i], NULL);
//! }
//! ```
//!
//! Three kinds of knowledge, each sound whatever the memory model, as long as it keeps
//! coherence (a thread's read of a location sees its own latest write or a later one):
//! - a *frozen global*: a scalar global that nothing writes (no assignment, `++`/`--`, or
//!   `&g` anywhere in the program): every read of it reads its initial value;
//! - a global written once in the whole program, by a plain statement `g = e;` of `main`
//!   with `e` a constant: `main` reads that value from the statement on (in the rest of
//!   its block), since no other write of `g` exists;
//! - a *followed local*: a local declared in a function's outermost block whose every
//!   other write is in the initializer or step of a `for` of that same block, or one of
//!   its top-level statements `i = e;`, `i++;`, `i += k;`. Such a loop
//!   runs once, in program order; when it is unrolled here the local's value after it is
//!   known, and when it is not the local is no longer followed. Reads then are constants,
//!   and the register keeps the value too (the unrolled loop assigns it).

use std::collections::{HashMap, HashSet};

use lang_c::span::Span as CSpan;
use lang_c::visit::{self, Visit};

use super::*;

/// Write sites of plain names: `x = e`, `x op= e`, `x++`, `--x`, `&x`.
#[derive(Default)]
struct Writes {
    count: HashMap<String, usize>,
    declared: HashMap<String, usize>,
    /// Whether a name a function declares (a parameter, a local from its declaration to
    /// the end of its block) hides the global of that name: the scan for globals' writes.
    scoped: bool,
    /// The names declared by the enclosing functions, blocks and `for`s.
    frames: Vec<HashSet<String>>,
}

impl Writes {
    fn write(&mut self, name: &str) {
        if self.scoped && self.frames.iter().any(|f| f.contains(name)) {
            return;
        }
        *self.count.entry(name.to_string()).or_default() += 1;
    }

    fn framed(&mut self, frame: HashSet<String>, visit: impl FnOnce(&mut Self)) {
        self.frames.push(frame);
        visit(self);
        self.frames.pop();
    }
}

impl<'ast> Visit<'ast> for Writes {
    fn visit_binary_operator_expression(
        &mut self,
        b: &'ast c::BinaryOperatorExpression,
        span: &'ast CSpan,
    ) {
        if is_assignment(&b.operator.node) {
            if let c::Expression::Identifier(id) = &b.lhs.node {
                self.write(&id.node.name);
            }
        }
        visit::visit_binary_operator_expression(self, b, span);
    }

    fn visit_unary_operator_expression(
        &mut self,
        u: &'ast c::UnaryOperatorExpression,
        span: &'ast CSpan,
    ) {
        if matches!(
            u.operator.node,
            c::UnaryOperator::PostIncrement
                | c::UnaryOperator::PostDecrement
                | c::UnaryOperator::PreIncrement
                | c::UnaryOperator::PreDecrement
                | c::UnaryOperator::Address
        ) {
            if let c::Expression::Identifier(id) = &u.operand.node {
                self.write(&id.node.name);
            }
        }
        visit::visit_unary_operator_expression(self, u, span);
    }

    fn visit_declarator(&mut self, d: &'ast c::Declarator, span: &'ast CSpan) {
        if let c::DeclaratorKind::Identifier(id) = &d.kind.node {
            *self.declared.entry(id.node.name.clone()).or_default() += 1;
        }
        visit::visit_declarator(self, d, span);
    }

    fn visit_init_declarator(&mut self, i: &'ast c::InitDeclarator, span: &'ast CSpan) {
        if let (Some(frame), Some(name)) =
            (self.frames.last_mut(), declarator_name(&i.declarator.node))
        {
            frame.insert(name.node.name.clone());
        }
        visit::visit_init_declarator(self, i, span);
    }

    fn visit_statement(&mut self, s: &'ast c::Statement, span: &'ast CSpan) {
        if matches!(s, c::Statement::Compound(_)) {
            self.framed(HashSet::new(), |w| visit::visit_statement(w, s, span));
        } else {
            visit::visit_statement(self, s, span);
        }
    }

    fn visit_for_statement(&mut self, f: &'ast c::ForStatement, span: &'ast CSpan) {
        self.framed(HashSet::new(), |w| visit::visit_for_statement(w, f, span));
    }

    fn visit_function_definition(&mut self, f: &'ast c::FunctionDefinition, span: &'ast CSpan) {
        let mut params = HashSet::new();
        let lists: Vec<_> = derived(&f.declarator.node)
            .into_iter()
            .filter_map(|part| match part {
                c::DerivedDeclarator::Function(fd) => Some(fd),
                _ => None,
            })
            .collect();
        // One parameter list (not a function returning a function pointer, whose
        // declarator holds two): its names hide the globals in the body.
        if let [fd] = lists.as_slice() {
            for p in &fd.node.parameters {
                if let Some(name) = p
                    .node
                    .declarator
                    .as_ref()
                    .and_then(|d| declarator_name(&d.node))
                {
                    params.insert(name.node.name.clone());
                }
            }
        }
        self.framed(params, |w| visit::visit_function_definition(w, f, span));
    }
}

fn is_assignment(op: &c::BinaryOperator) -> bool {
    use c::BinaryOperator as B;
    matches!(
        op,
        B::Assign
            | B::AssignMultiply
            | B::AssignDivide
            | B::AssignModulo
            | B::AssignPlus
            | B::AssignMinus
            | B::AssignShiftLeft
            | B::AssignShiftRight
            | B::AssignBitwiseAnd
            | B::AssignBitwiseXor
            | B::AssignBitwiseOr
    )
}

fn statement_writes(s: &Node<c::Statement>) -> Writes {
    let mut w = Writes::default();
    w.visit_statement(&s.node, &s.span);
    w
}

fn expression_writes(e: &Node<c::Expression>) -> Writes {
    let mut w = Writes::default();
    w.visit_expression(&e.node, &e.span);
    w
}

/// What the whole program writes, for the globals' knowledge.
#[derive(Default)]
pub(super) struct GlobalWrites {
    /// Write sites per name, in the whole program.
    everywhere: HashMap<String, usize>,
    /// Write sites per name in `main`'s body.
    in_main: HashMap<String, usize>,
}

impl GlobalWrites {
    pub(super) fn of(unit: &c::TranslationUnit) -> GlobalWrites {
        let mut all = Writes {
            scoped: true,
            ..Writes::default()
        };
        all.visit_translation_unit(unit);
        let mut in_main = HashMap::new();
        for item in &unit.0 {
            if let c::ExternalDeclaration::FunctionDefinition(f) = &item.node {
                if declarator_name(&f.node.declarator.node).is_some_and(|n| n.node.name == "main") {
                    let mut w = Writes {
                        scoped: true,
                        ..Writes::default()
                    };
                    w.visit_function_definition(&f.node, &f.span);
                    in_main = w.count;
                }
            }
        }
        GlobalWrites {
            everywhere: all.count,
            in_main,
        }
    }

    /// Whether nothing in the program writes `name` or takes its address.
    pub(super) fn never_written(&self, name: &str) -> bool {
        !self.everywhere.contains_key(name)
    }

    /// Whether the one write of `name` in the program is in `main`.
    pub(super) fn written_once_in_main(&self, name: &str) -> bool {
        self.everywhere.get(name) == Some(&1) && self.in_main.get(name) == Some(&1)
    }
}

/// The locals of a function's outermost block whose every write after the declaration is
/// in the initializer or step of a `for` of that block, or a top-level statement of it
/// (`straight_write`), and which are declared once.
pub(super) fn followed_locals(body: &Node<c::Statement>) -> HashSet<String> {
    let c::Statement::Compound(items) = &body.node else {
        return HashSet::new();
    };
    let all = statement_writes(body);
    let mut candidates = HashSet::new();
    let mut in_loop_heads: HashMap<String, usize> = HashMap::new();
    for item in items {
        match &item.node {
            c::BlockItem::Declaration(d) => {
                for i in &d.node.declarators {
                    if derived(&i.node.declarator.node).is_empty() {
                        if let Some(name) = declarator_name(&i.node.declarator.node) {
                            candidates.insert(name.node.name.clone());
                        }
                    }
                }
            }
            c::BlockItem::Statement(s) => {
                // A top-level `i = e;`, `i++;` or `i += k;` runs in order too (`i = 1;`
                // between the loops that create and join, GenMC's `fine-set`).
                if let Some((name, _)) = straight_write(s) {
                    *in_loop_heads.entry(name.to_string()).or_default() += 1;
                }
                if let c::Statement::For(f) = &s.node {
                    if let c::ForInitializer::Expression(e) = &f.node.initializer.node {
                        for (name, n) in expression_writes(e).count {
                            *in_loop_heads.entry(name).or_default() += n;
                        }
                    }
                    if let Some(step) = &f.node.step {
                        for (name, n) in expression_writes(step).count {
                            *in_loop_heads.entry(name).or_default() += n;
                        }
                    }
                }
            }
            c::BlockItem::StaticAssert(_) => {}
        }
    }
    candidates
        .into_iter()
        .filter(|name| {
            all.declared.get(name) == Some(&1)
                && all.count.get(name).copied().unwrap_or(0)
                    == in_loop_heads.get(name).copied().unwrap_or(0)
        })
        .collect()
}

/// The names a `for`'s initializer and step write.
pub(super) fn loop_head_writes(f: &Node<c::ForStatement>) -> Vec<String> {
    let mut names = Vec::new();
    if let c::ForInitializer::Expression(e) = &f.node.initializer.node {
        names.extend(expression_writes(e).count.into_keys());
    }
    if let Some(step) = &f.node.step {
        names.extend(expression_writes(step).count.into_keys());
    }
    names
}

/// A step `v++`, `v--`, `v += k` or `v -= k` with `k` a constant: `v` and the change.
pub(super) fn simple_step(e: &Node<c::Expression>) -> Option<(&str, i64)> {
    match &e.node {
        c::Expression::UnaryOperator(u) => {
            let c::Expression::Identifier(id) = &u.node.operand.node else {
                return None;
            };
            let by = match u.node.operator.node {
                c::UnaryOperator::PostIncrement | c::UnaryOperator::PreIncrement => 1,
                c::UnaryOperator::PostDecrement | c::UnaryOperator::PreDecrement => -1,
                _ => return None,
            };
            Some((id.node.name.as_str(), by))
        }
        c::Expression::BinaryOperator(b) => {
            let c::Expression::Identifier(id) = &b.node.lhs.node else {
                return None;
            };
            let c::Expression::Constant(k) = &b.node.rhs.node else {
                return None;
            };
            let k = integer(&k.node)?;
            let by = match b.node.operator.node {
                c::BinaryOperator::AssignPlus => k,
                c::BinaryOperator::AssignMinus => k.checked_neg()?,
                _ => return None,
            };
            Some((id.node.name.as_str(), by))
        }
        _ => None,
    }
}

/// The parts of a step: `a, b` is two.
pub(super) fn step_parts(e: &Node<c::Expression>) -> Vec<&Node<c::Expression>> {
    match &e.node {
        c::Expression::Comma(parts) => parts.iter().collect(),
        _ => vec![e],
    }
}

impl Translator<'_> {
    /// A frozen global's value, when `name` names one (and no local hides it).
    pub(super) fn known_global(&self, name: &str, scope: &Scope) -> Option<i64> {
        if scope.locals.contains_key(name) {
            return None;
        }
        self.frozen
            .get(name)
            .or_else(|| scope.known_globals.get(name))
            .copied()
    }

    /// A scalar global just declared: frozen when nothing writes it.
    pub(super) fn note_global(
        &mut self,
        name: &str,
        info: &TypeInfo,
        value: Option<&ast::InitValue>,
    ) {
        let scalar = !info.atomic
            && !info.pointer_atomic
            && !info.handle
            && info.pointer_depth == 0
            && !info.base.starts_with("struct ")
            && !info.base.starts_with("union ");
        let known = match value {
            None => Some(0),
            Some(ast::InitValue::Int(v)) => Some(*v),
            Some(_) => None,
        };
        match known {
            Some(v)
                if scalar
                    && self.global_writes.never_written(name)
                    && !self.frozen.contains_key(name)
                    && !self.globals.contains_key(name) =>
            {
                self.frozen.insert(name.to_string(), v);
            }
            // Declared twice (`int x; int x = 1;`): not followed.
            _ => {
                self.frozen.remove(name);
            }
        }
    }

    /// After `g = e;` in `main`: when that is the program's one write of `g` and `e` is a
    /// constant, `main` knows `g` from here on.
    pub(super) fn note_main_write(&self, e: &Node<c::Expression>, scope: &mut Scope) {
        if !scope.main {
            return;
        }
        let c::Expression::BinaryOperator(b) = &e.node else {
            return;
        };
        if !matches!(b.node.operator.node, c::BinaryOperator::Assign) {
            return;
        }
        let c::Expression::Identifier(id) = &b.node.lhs.node else {
            return;
        };
        let name = &id.node.name;
        if scope.locals.contains_key(name) || !self.global_writes.written_once_in_main(name) {
            return;
        }
        let Some((Global::Object, info)) = self.globals.get(name) else {
            return;
        };
        if info.atomic || info.pointer_atomic || info.pointer_depth != 0 || info.handle {
            return;
        }
        if let Some(v) = self.try_constant(&b.node.rhs, scope) {
            let v = self.stored_constant(name, scope, v);
            scope.known_globals.insert(name.clone(), v);
        }
    }

    /// A local declared with a constant initializer: followed from here when it is one of
    /// the function's followed locals.
    pub(super) fn note_local(
        &self,
        name: &str,
        init: Option<&Node<c::Initializer>>,
        scope: &mut Scope,
    ) {
        if !scope.followed.contains(name) {
            return;
        }
        if let Some(Node {
            node: c::Initializer::Expression(e),
            ..
        }) = init
        {
            if let Some(v) = self.try_constant(e, scope) {
                let v = self.stored_constant(name, scope, v);
                scope.constants.insert(name.to_string(), v);
            }
        }
    }

    /// A `for` nemos does not unroll here: the followed locals its head writes are no
    /// longer known (before the loop is translated, whose head writes them).
    pub(super) fn forget_loop_writes(&self, f: &Node<c::ForStatement>, scope: &mut Scope) {
        for name in loop_head_writes(f) {
            if scope.followed.contains(&name) {
                scope.constants.remove(&name);
            }
        }
    }

    /// The other followed locals a `for`'s step moves (`j++, i++` moves `i` beside `j`),
    /// each with its value before the loop and its change per iteration; `None` when the
    /// step has a part that is not such a move, or the body writes one of them.
    pub(super) fn companion_steps(
        &self,
        f: &Node<c::ForStatement>,
        variable: &str,
        scope: &Scope,
    ) -> Option<Vec<(String, i64, i64)>> {
        let Some(step) = &f.node.step else {
            return Some(Vec::new());
        };
        let mut companions = Vec::new();
        for part in step_parts(step) {
            let (name, by) = simple_step(part)?;
            if name == variable {
                continue;
            }
            if !scope.followed.contains(name)
                || statement_mentions(&f.node.statement.node, name, false)
                || companions.iter().any(|(n, _, _)| n == name)
            {
                return None;
            }
            let start = *scope.constants.get(name)?;
            // A loop unrolled here has at most 65 iterations: no value overflows.
            start.checked_add(by.checked_mul(65)?)?;
            start.checked_sub(by.checked_mul(65)?)?;
            companions.push((name.to_string(), start, by));
        }
        Some(companions)
    }

    /// The loop variable's own step among the parts of a comma step.
    pub(super) fn own_step(f: &Node<c::ForStatement>, variable: &str) -> Option<i64> {
        let step = f.node.step.as_ref()?;
        let mut found = None;
        for part in step_parts(step) {
            let (name, by) = simple_step(part)?;
            if name == variable {
                if found.is_some() {
                    return None;
                }
                found = Some(by);
            }
        }
        found
    }

    /// Whether an initializer list holds only constant zeros, nested lists included.
    pub(super) fn all_zero(&self, items: &[Node<c::InitializerListItem>]) -> bool {
        items.iter().all(|item| match &item.node.initializer.node {
            c::Initializer::Expression(e) => self.try_constant(e, &Scope::default()) == Some(0),
            c::Initializer::List(inner) => self.all_zero(inner),
        })
    }
}

/// The locals a block declares (once, as scalars) whose every write is one of the block's
/// own top-level statements `x = e;`, `x++;`, `x += k;` (no write in a nested statement,
/// a loop's head, an expression of another statement, nor `&x`). Their value is followed
/// from statement to statement as it is known (`int i = 0; pthread_create(&t[i], ...);
/// i++;`): the block's statements run in order, and only they move the register.
pub(super) fn straight_locals(items: &[Node<c::BlockItem>]) -> HashSet<String> {
    let mut all = Writes::default();
    let mut top: HashMap<String, usize> = HashMap::new();
    let mut candidates = HashSet::new();
    for item in items {
        match &item.node {
            c::BlockItem::Declaration(d) => {
                all.visit_declaration(&d.node, &d.span);
                for i in &d.node.declarators {
                    if derived(&i.node.declarator.node).is_empty() {
                        if let Some(name) = declarator_name(&i.node.declarator.node) {
                            candidates.insert(name.node.name.clone());
                        }
                    }
                }
            }
            c::BlockItem::Statement(s) => {
                all.visit_statement(&s.node, &s.span);
                if let Some((name, _)) = straight_write(s) {
                    *top.entry(name.to_string()).or_default() += 1;
                }
            }
            c::BlockItem::StaticAssert(_) => {}
        }
    }
    candidates
        .into_iter()
        .filter(|name| {
            all.declared.get(name) == Some(&1)
                && all.count.get(name).copied().unwrap_or(0) == top.get(name).copied().unwrap_or(0)
        })
        .collect()
}

/// How a top-level statement writes a straight local.
enum StraightWrite<'a> {
    Step(i64),
    Assign(&'a Node<c::Expression>),
}

/// The local a statement `x = e;`, `x++;` or `x += k;` writes, and how.
fn straight_write(s: &Node<c::Statement>) -> Option<(&str, StraightWrite<'_>)> {
    let c::Statement::Expression(Some(e)) = &s.node else {
        return None;
    };
    if let Some((name, by)) = simple_step(e) {
        return Some((name, StraightWrite::Step(by)));
    }
    let c::Expression::BinaryOperator(b) = &e.node else {
        return None;
    };
    let c::Expression::Identifier(id) = &b.node.lhs.node else {
        return None;
    };
    matches!(b.node.operator.node, c::BinaryOperator::Assign)
        .then(|| (id.node.name.as_str(), StraightWrite::Assign(&b.node.rhs)))
}

impl Translator<'_> {
    /// Before a block's top-level statement is translated: the value it leaves in the
    /// straight local it writes (`None` inside when the value is not known), to note once
    /// the statement is translated (its own reads see the value before it).
    pub(super) fn straight_value(
        &self,
        s: &Node<c::Statement>,
        straight: &HashSet<String>,
        scope: &Scope,
    ) -> Option<(String, Option<i64>)> {
        let (name, write) = straight_write(s)?;
        if !straight.contains(name) && !scope.followed.contains(name) {
            return None;
        }
        let value = match write {
            StraightWrite::Step(by) => scope
                .constants
                .get(name)
                .and_then(|v| v.checked_add(by))
                .filter(|v| i32::try_from(*v).is_ok()),
            StraightWrite::Assign(e) => self.try_constant(e, scope),
        };
        let value = value.map(|v| self.stored_constant(name, scope, v));
        Some((name.to_string(), value))
    }

    /// After the statement: the straight local holds its new value, or is not known.
    pub(super) fn note_straight(&self, noted: Option<(String, Option<i64>)>, scope: &mut Scope) {
        match noted {
            Some((name, Some(v))) => {
                scope.constants.insert(name, v);
            }
            Some((name, None)) => {
                scope.constants.remove(&name);
            }
            None => {}
        }
    }
}
