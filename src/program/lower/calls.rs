//! Library calls, as the table of [`crate::program::library`] describes them.

use super::{Lowerer, ThreadScope};
use crate::diagnostics::{Diagnostic, Span};
use crate::program::checks::CheckKind;
use crate::program::library::{self, Family, OrderSource, Primitive};
use crate::program::{Address, Expected, Expr, Instr, MemOrder, PointKind, RegId, UnaryOp};
use crate::syntax::ast::{self, ExprKind};

impl Lowerer {
    pub(super) fn unknown_function(&mut self, name: &ast::Ident) {
        if self.refused.contains(&name.name) {
            return;
        }
        let listed = |families: &[Family]| -> String {
            families
                .iter()
                .flat_map(|&family| library::names(family))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut help = if name.name.starts_with("__atomic") || name.name.starts_with("atomic_") {
            format!("supported atomics: {}", listed(&[Family::C11]))
        } else {
            format!(
                "supported calls: the C11 atomics (atomic_load, atomic_store, ...), {}",
                listed(&[Family::Linux, Family::Locks, Family::Assertions])
            )
        };
        let closest = library::LIBRARY
            .iter()
            .map(|call| call.name)
            .chain(self.functions.keys().map(String::as_str))
            .map(|known| (strsim::damerau_levenshtein(&name.name, known), known))
            .min();
        if let Some((distance, closest)) = closest {
            if distance <= 2 {
                help = format!("did you mean `{closest}`? {help}");
            }
        }
        if let Some(macros) = &self.macros {
            let names: Vec<&str> = macros.names().take(12).collect();
            help = format!(
                "{help}; the macros of {}: {}, ...",
                macros.file.name,
                names.join(", ")
            );
        }
        if !self.functions.is_empty() {
            let mut defined: Vec<&str> = self.functions.keys().map(String::as_str).collect();
            defined.sort_unstable();
            help = format!("{help}; functions of this test: {}", defined.join(", "));
        }
        self.error(
            Diagnostic::new(format!("unknown function `{}`", name.name), name.span).with_help(help),
        );
    }

    pub(super) fn arity(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        expected: usize,
        span: Span,
    ) -> bool {
        if args.len() == expected {
            return true;
        }
        self.error(
            Diagnostic::new(
                format!(
                    "`{}` takes {} argument{} but {} {} given",
                    name.name,
                    expected,
                    if expected == 1 { "" } else { "s" },
                    args.len(),
                    if args.len() == 1 { "was" } else { "were" }
                ),
                span,
            )
            .with_label("wrong number of arguments"),
        );
        false
    }

    pub(super) fn memory_order(
        &mut self,
        arg: &ast::Expr,
        allowed: &[MemOrder],
        what: &str,
    ) -> Option<MemOrder> {
        let name = match &arg.kind {
            ExprKind::Name(id) => id,
            _ => {
                self.error(
                    Diagnostic::new("expected a memory order", arg.span)
                        .with_help("e.g. `memory_order_relaxed` or `memory_order_seq_cst`"),
                );
                return None;
            }
        };
        let Some(order) = MemOrder::from_name(&name.name) else {
            self.error(
                Diagnostic::new(format!("`{}` is not a memory order", name.name), name.span)
                    .with_help("memory orders: memory_order_relaxed, _consume, _acquire, _release, _acq_rel, _seq_cst"),
            );
            return None;
        };
        if !allowed.contains(&order) {
            let allowed_names: Vec<String> = allowed
                .iter()
                .map(|o| format!("memory_order_{}", long_name(*o)))
                .collect();
            self.error(
                Diagnostic::new(
                    format!("memory order `{}` is not allowed for {}", name.name, what),
                    name.span,
                )
                .with_help(format!(
                    "{} takes one of: {}",
                    what,
                    allowed_names.join(", ")
                )),
            );
            return None;
        }
        Some(order)
    }

    /// The location a call's pointer argument denotes (`x`, `&x`, `y + 1`, or `*x` for the
    /// Linux macros that take an lvalue).
    pub(super) fn pointer_argument(
        &mut self,
        arg: &ast::Expr,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<Address> {
        match &arg.kind {
            ExprKind::Unary(ast::UnaryOp::Deref, inner) => self.address(inner, scope, out),
            _ => self.address(arg, scope, out),
        }
    }

    /// The location a library call's first argument denotes: C11's calls take a pointer
    /// (`atomic_store(*pp, 1)` stores where `*pp` points, as herd reads it), the Linux
    /// and lock calls an lvalue as well (`pointer_argument`).
    fn call_location(
        &mut self,
        call: &library::LibraryCall,
        arg: &ast::Expr,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<Address> {
        if call.family == Family::C11 {
            self.address(arg, scope, out)
        } else {
            self.pointer_argument(arg, scope, out)
        }
    }

    /// The memory order a call's access gets, from the call itself or from its argument.
    pub(super) fn call_order(
        &mut self,
        source: Option<OrderSource>,
        args: &[ast::Expr],
        what: &str,
    ) -> Option<MemOrder> {
        match source? {
            OrderSource::Fixed(order) => Some(order),
            OrderSource::Argument(position, allowed) => {
                self.memory_order(&args[position], allowed, what)
            }
        }
    }

    /// Lower a library call; `dst` receives its value. Returns `None` after an error.
    pub(super) fn lower_call(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
        dst: Option<RegId>,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<()> {
        if self.is_macro(&name.name) {
            return self.expand_macro(name, args, span, dst, scope, out);
        }
        if let Some(kind) = CheckKind::from_call(&name.name) {
            // A front end's check of a library it models (`program::checks`).
            if !self.arity(name, args, 1, span) {
                return None;
            }
            let cond = self.lower_expr(&args[0], scope, out)?;
            out.push(Instr::Check { cond, kind, span });
            return Some(());
        }
        if let Some(lowered) = self.posix_mutex_call(name, args, span, scope, out) {
            return lowered;
        }
        if super::heap::is_heap_call(&name.name) {
            return self.heap_call(name, args, span, dst, scope, out);
        }
        let Some(call) = self.library_call(&name.name) else {
            self.unknown_function(name);
            return None;
        };
        if !self.arity(name, args, call.arity(), span) {
            return None;
        }
        let what = call.primitive.description();
        // Every argument is lowered before giving up, so that one call reports all its errors.
        match call.primitive {
            Primitive::Load => {
                let loc = self.call_location(call, &args[0], scope, out);
                let order = self.call_order(call.order, args, what);
                let (loc, order) = (loc?, order?);
                let dst = dst.unwrap_or_else(|| scope.temporary());
                self.mark_atomic(&loc);
                out.push(Instr::Load {
                    dst,
                    loc,
                    order,
                    tags: Vec::new(),
                    span,
                });
            }
            Primitive::Store => {
                let loc = self.call_location(call, &args[0], scope, out);
                let value = self.lower_expr(&args[1], scope, out);
                let order = self.call_order(call.order, args, what);
                let (loc, value, order) = (loc?, value?, order?);
                self.mark_atomic(&loc);
                out.push(Instr::Store {
                    loc,
                    value,
                    order,
                    tags: Vec::new(),
                    span,
                });
            }
            Primitive::Rmw(op) => {
                let loc = self.call_location(call, &args[0], scope, out);
                let operand = self.lower_expr(&args[1], scope, out);
                let order = self.call_order(call.order, args, what);
                let (loc, operand, order) = (loc?, operand?, order?);
                self.mark_atomic(&loc);
                out.push(Instr::Rmw {
                    dst,
                    loc,
                    op,
                    operand,
                    order,
                    tags: Vec::new(),
                    unless: None,
                    failure_tags: Vec::new(),
                    span,
                });
            }
            Primitive::CompareExchange { weak } => {
                let loc = self.call_location(call, &args[0], scope, out);
                let expected = self.expected_argument(&args[1], scope, out);
                let desired = self.lower_expr(&args[2], scope, out);
                let success = self.call_order(call.order, args, what);
                let failure = self.call_order(
                    call.failure_order,
                    args,
                    "the failure of a compare-exchange",
                );
                let (loc, expected, desired, success, failure) =
                    (loc?, expected?, desired?, success?, failure?);
                self.mark_atomic(&loc);
                out.push(Instr::CompareExchange {
                    dst,
                    loc,
                    expected,
                    desired,
                    success,
                    failure,
                    weak,
                    tags: Vec::new(),
                    failure_tags: Vec::new(),
                    span,
                });
            }
            Primitive::Fence => {
                let order = self.call_order(call.order, args, what)?;
                out.push(Instr::Fence {
                    order,
                    tags: Vec::new(),
                    loc: None,
                    span,
                });
            }
            Primitive::Lock | Primitive::Unlock => {
                let loc = self.pointer_argument(&args[0], scope, out)?;
                let loc = self.fixed_address(loc, "a lock", args[0].span)?;
                self.locations[loc].is_lock = true;
                if call.primitive == Primitive::Lock {
                    out.push(Instr::Lock { loc, span });
                } else {
                    out.push(Instr::Unlock { loc, span });
                }
            }
            Primitive::Assert => {
                let cond = self.lower_expr(&args[0], scope, out)?;
                out.push(Instr::Assert { cond, span });
            }
            Primitive::Assume => {
                let cond = self.lower_expr(&args[0], scope, out)?;
                out.push(Instr::Assume { cond, span });
            }
            Primitive::OrderingPoint => {
                // A register of its own, assigned the condition where the call stands:
                // the unroller marks the access before it (`ThreadProgram::ordering_points`).
                let value = self.lower_expr(&args[0], scope, out)?;
                let dst = scope.ordering_point(PointKind::Define);
                out.push(Instr::Assign { dst, value, span });
            }
            Primitive::PotentialOrderingPoint
            | Primitive::CheckOrderingPoint
            | Primitive::ClearOrderingPoints => {
                let kind = match call.primitive {
                    Primitive::PotentialOrderingPoint => {
                        PointKind::Potential(self.point_label(&args[0], scope, out)?)
                    }
                    Primitive::CheckOrderingPoint => {
                        PointKind::Check(self.point_label(&args[0], scope, out)?)
                    }
                    _ => PointKind::Clear,
                };
                let value = match kind {
                    PointKind::Potential(_) => Expr::Const(1),
                    PointKind::Check(_) => self.lower_expr(&args[1], scope, out)?,
                    _ => self.lower_expr(&args[0], scope, out)?,
                };
                let dst = scope.ordering_point(kind);
                out.push(Instr::Assign { dst, value, span });
            }
            Primitive::Await => {
                // `while (!cond) ;`: the condition's accesses are read again at each test.
                let mut cond_prelude = Vec::new();
                let cond = self.lower_expr(&args[0], scope, &mut cond_prelude)?;
                out.push(Instr::While {
                    cond_prelude,
                    cond: Expr::Unary(UnaryOp::Not, Box::new(cond)),
                    body: Vec::new(),
                    span,
                });
            }
        }
        Some(())
    }

    /// The label of a potential ordering point or of its check: a constant.
    fn point_label(
        &mut self,
        arg: &ast::Expr,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<i32> {
        match self.lower_expr(arg, scope, out)? {
            Expr::Const(label) => Some(label),
            _ => {
                self.error(
                    Diagnostic::new("an ordering point's label is not a constant", arg.span)
                        .with_help("label a potential ordering point and its check with the same number, e.g. `potential_ordering_point(1)`"),
                );
                None
            }
        }
    }

    pub(super) fn expected_argument(
        &mut self,
        arg: &ast::Expr,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<Expected> {
        if let ExprKind::Unary(ast::UnaryOp::AddrOf, inner) = &arg.kind {
            if let ExprKind::Name(id) = &inner.kind {
                if let Some(reg) = scope.lookup(&id.name) {
                    return Some(Expected::Register(reg));
                }
            }
        }
        let address = self.address(arg, scope, out)?;
        let loc = self.fixed_address(address, "the expected location", arg.span)?;
        Some(Expected::Location(loc))
    }

    pub(super) fn mark_atomic(&mut self, address: &Address) {
        for &loc in address.cells() {
            self.locations[loc].declared_atomic = true;
        }
    }
}

fn long_name(order: MemOrder) -> &'static str {
    match order {
        MemOrder::NonAtomic => "na",
        MemOrder::Relaxed => "relaxed",
        MemOrder::Consume => "consume",
        MemOrder::Acquire => "acquire",
        MemOrder::Release => "release",
        MemOrder::AcqRel => "acq_rel",
        MemOrder::SeqCst => "seq_cst",
    }
}
