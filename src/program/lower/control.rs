//! Loops and early exits. `break`, `continue` and `return` become flags (temporary
//! registers): an exit sets its flag, and the statements an exit may skip run under "no flag
//! set". The IR keeps structured `if`/`while` only, so nothing after lowering knows about
//! exits, and an exit that is taken leaves no event behind it (a loop's condition is not
//! even read again).

use super::{constant_value, truth, Lowerer, ThreadScope};
use crate::diagnostics::{Diagnostic, Span};
use crate::program::{BinaryOp, Expr, Instr, RegId};
use crate::syntax::ast::{self, StmtKind};

/// The flags of the exits in force at a statement.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Exits {
    /// Set by `break` in the innermost loop, when the loop has one.
    broke: Option<RegId>,
    /// Set by `continue` in the innermost loop; cleared at each iteration.
    continued: Option<RegId>,
    /// Set by `return`, for the whole thread, when it has one.
    returned: Option<RegId>,
    in_loop: bool,
}

impl Exits {
    /// The thread's exits before any loop: a `return` flag when the body has a `return`.
    pub(super) fn of_thread(body: &[ast::Stmt], scope: &mut ThreadScope) -> Exits {
        Exits {
            returned: exit_kinds(body).returns.then(|| scope.temporary()),
            ..Exits::default()
        }
    }

    /// An inlined function body's exits: a `return` flag unless its only `return` is its
    /// last statement (which skips nothing). Loops of the caller are not the callee's.
    pub(super) fn of_function(body: &[ast::Stmt], scope: &mut ThreadScope) -> Exits {
        let before_last = match body.split_last() {
            Some((last, rest)) if matches!(last.kind, StmtKind::Return(_)) => rest,
            _ => body,
        };
        Exits {
            returned: exit_kinds(before_last).returns.then(|| scope.temporary()),
            ..Exits::default()
        }
    }

    pub(super) fn return_flag(self) -> Option<RegId> {
        self.returned
    }
}

/// Whether the end of `stmts` can be reached: not when every path ends in `return` (or
/// `break`/`continue`, which leave the list too), or in a loop that never exits (`while
/// (1)` without `break`). Syntactic, as C compilers' warnings are.
pub(super) fn completes(stmts: &[ast::Stmt]) -> bool {
    stmts.iter().all(stmt_completes)
}

fn stmt_completes(stmt: &ast::Stmt) -> bool {
    let forever =
        |cond: Option<&ast::Expr>| cond.is_none_or(|c| constant_value(c).is_some_and(|v| v != 0));
    match &stmt.kind {
        StmtKind::Return(_) | StmtKind::Break | StmtKind::Continue => false,
        StmtKind::If {
            then_branch,
            else_branch: Some(else_branch),
            ..
        } => completes(then_branch) || completes(else_branch),
        StmtKind::Block(body) | StmtKind::Atomic(body) => completes(body),
        StmtKind::While { cond, body, .. } | StmtKind::DoWhile { body, cond } => {
            !forever(Some(cond)) || exit_kinds(body).breaks
        }
        StmtKind::For { cond, body, .. } => !forever(cond.as_ref()) || exit_kinds(body).breaks,
        _ => true,
    }
}

/// Which exits a statement list may take: `break`/`continue` of the loop around it (not
/// those of loops inside it), `return` anywhere.
#[derive(Clone, Copy, Debug, Default)]
struct ExitKinds {
    breaks: bool,
    continues: bool,
    returns: bool,
}

impl ExitKinds {
    fn any(self) -> bool {
        self.breaks || self.continues || self.returns
    }

    fn merge(&mut self, other: ExitKinds) {
        self.breaks |= other.breaks;
        self.continues |= other.continues;
        self.returns |= other.returns;
    }
}

fn exit_kinds(stmts: &[ast::Stmt]) -> ExitKinds {
    let mut kinds = ExitKinds::default();
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Break => kinds.breaks = true,
            StmtKind::Continue => kinds.continues = true,
            StmtKind::Return(_) => kinds.returns = true,
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                kinds.merge(exit_kinds(then_branch));
                kinds.merge(exit_kinds(else_branch.as_deref().unwrap_or_default()));
            }
            StmtKind::Block(body) | StmtKind::Atomic(body) => kinds.merge(exit_kinds(body)),
            StmtKind::While { body, .. }
            | StmtKind::DoWhile { body, .. }
            | StmtKind::For { body, .. } => kinds.returns |= exit_kinds(body).returns,
            StmtKind::Decl { .. }
            | StmtKind::Assign { .. }
            | StmtKind::Expr(_)
            | StmtKind::Empty => {}
        }
    }
    kinds
}

/// `flag == 0` for every flag given, as one condition (`1` when there is none).
fn all_clear(flags: &[Option<RegId>]) -> Option<Expr> {
    flags
        .iter()
        .flatten()
        .map(|&f| {
            Expr::Binary(
                BinaryOp::Eq,
                Box::new(Expr::Reg(f)),
                Box::new(Expr::Const(0)),
            )
        })
        .reduce(|a, b| Expr::Binary(BinaryOp::And, Box::new(a), Box::new(b)))
}

/// `instrs` run only when `cond` holds (all of them when there is no condition).
fn guarded(cond: Option<Expr>, instrs: Vec<Instr>, span: Span) -> Vec<Instr> {
    match cond {
        Some(cond) if !instrs.is_empty() => vec![Instr::If {
            cond,
            then_branch: instrs,
            else_branch: Vec::new(),
            span,
        }],
        _ => instrs,
    }
}

impl Lowerer {
    /// Lowers a statement list; once a statement may exit, the rest runs under "no exit
    /// taken".
    pub(super) fn lower_stmts(
        &mut self,
        stmts: &[ast::Stmt],
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) {
        for (i, stmt) in stmts.iter().enumerate() {
            self.lower_stmt(stmt, scope, out);
            let rest = &stmts[i + 1..];
            if rest.is_empty() || !exit_kinds(std::slice::from_ref(stmt)).any() {
                continue;
            }
            let mut later = Vec::new();
            self.lower_stmts(rest, scope, &mut later);
            let exits = scope.exits;
            let running = all_clear(&[exits.broke, exits.continued, exits.returned]);
            out.extend(guarded(running, later, rest[0].span));
            return;
        }
    }

    /// `break;`, `continue;` or `return;`: set the flag.
    pub(super) fn lower_exit(
        &mut self,
        stmt: &ast::Stmt,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) {
        let exits = scope.exits;
        let (flag, word) = match &stmt.kind {
            StmtKind::Break => (exits.broke, "break"),
            StmtKind::Continue => (exits.continued, "continue"),
            StmtKind::Return(value) if scope.frame.is_some() => {
                if !self.function_return(value.as_ref(), stmt.span, scope, out) {
                    return;
                }
                // Without a flag, this is the function's last statement: nothing to skip.
                if let Some(dst) = exits.returned {
                    out.push(Instr::Assign {
                        dst,
                        value: Expr::Const(1),
                        span: stmt.span,
                    });
                }
                return;
            }
            StmtKind::Return(value) => {
                if let Some(value) = value {
                    self.error(
                        Diagnostic::new("a thread returns no value", value.span)
                            .with_help("write `return;` to end the thread here"),
                    );
                    return;
                }
                (exits.returned, "return")
            }
            _ => return,
        };
        match flag {
            Some(dst) => out.push(Instr::Assign {
                dst,
                value: Expr::Const(1),
                span: stmt.span,
            }),
            None if !exits.in_loop => self.error(
                Diagnostic::new(format!("`{word}` outside a loop"), stmt.span)
                    .with_label("no loop to leave here")
                    .with_help("`break` and `continue` belong inside `while`, `do` or `for`; `return;` ends the thread"),
            ),
            // Every exit found in a loop got its flag before the body was lowered.
            None => {}
        }
    }

    /// `return;` or `return e;` in a function's body: `e` goes to the call's value register.
    /// False after an error.
    fn function_return(
        &mut self,
        value: Option<&ast::Expr>,
        span: Span,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> bool {
        let Some(frame) = scope.frame.as_ref() else {
            return false;
        };
        let (function, ret) = (frame.function.clone(), frame.ret);
        match (value, ret) {
            (Some(value), Some(ret)) => {
                let before = self.errors.len();
                self.assign_register(ret, value, span, scope, out);
                self.errors.len() == before
            }
            (None, None) => true,
            (Some(value), None) => {
                self.error(
                    Diagnostic::new(format!("`{function}` returns no value"), value.span)
                        .with_label("a `void` function's `return` takes no value")
                        .with_help("write `return;`, or declare the function `int`"),
                );
                false
            }
            (None, Some(_)) => {
                self.error(
                    Diagnostic::new(format!("`{function}` must return a value"), span)
                        .with_label("`return` without a value")
                        .with_help("write `return e;`, or declare the function `void`"),
                );
                false
            }
        }
    }

    /// A loop: `while (cond) body`, or `for` with its `step` after the body, or `do body
    /// while (cond)`. The condition is only read again when no exit was taken; a `while`'s
    /// prelude (statements hoisted out of its condition) runs before each test, with the
    /// condition's own memory accesses.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn lower_loop(
        &mut self,
        (prelude, cond): (&[ast::Stmt], Option<&ast::Expr>),
        body: &[ast::Stmt],
        step: Option<&ast::Stmt>,
        do_while: bool,
        span: Span,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) {
        let mut cond_prelude = Vec::new();
        self.lower_stmts(prelude, scope, &mut cond_prelude);
        let cond = match cond {
            Some(c) => match self.lower_expr(c, scope, &mut cond_prelude) {
                Some(c) => c,
                None => return,
            },
            None => Expr::Const(1),
        };
        let kinds = exit_kinds(body);
        let outer = scope.exits;
        let broke = kinds.breaks.then(|| scope.temporary());
        let continued = kinds.continues.then(|| scope.temporary());
        // A `do` loop's first test is skipped: `first || cond`, `first` cleared in the body.
        let first = do_while.then(|| scope.temporary());
        let returned = if kinds.returns { outer.returned } else { None };
        for flag in [broke, first].into_iter().flatten() {
            out.push(Instr::Assign {
                dst: flag,
                value: Expr::Const(i32::from(Some(flag) == first)),
                span,
            });
        }
        scope.exits = Exits {
            broke,
            continued,
            returned: outer.returned,
            in_loop: true,
        };
        let mut instrs = Vec::new();
        for flag in [continued, first].into_iter().flatten() {
            instrs.push(Instr::Assign {
                dst: flag,
                value: Expr::Const(0),
                span,
            });
        }
        self.lower_stmts(body, scope, &mut instrs);
        if let Some(step) = step {
            let mut stepped = Vec::new();
            self.lower_stmt(step, scope, &mut stepped);
            instrs.extend(guarded(all_clear(&[broke, returned]), stepped, step.span));
        }
        scope.exits = outer;
        let running = all_clear(&[broke, returned]);
        let tested = all_clear(&[broke, returned, first]);
        let cond_prelude = guarded(tested, cond_prelude, span);
        let cond = match first {
            Some(first) => Expr::Binary(
                BinaryOp::Or,
                Box::new(Expr::Reg(first)),
                Box::new(truth(cond)),
            ),
            None => cond,
        };
        let cond = match running {
            Some(running) => Expr::Binary(BinaryOp::And, Box::new(running), Box::new(truth(cond))),
            None => cond,
        };
        out.push(Instr::While {
            cond_prelude,
            cond,
            body: instrs,
            span,
        });
    }
}
