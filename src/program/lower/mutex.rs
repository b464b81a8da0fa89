//! The C front end's POSIX mutex calls (`program::mutex`): `lock`/`unlock` as nemos's,
//! with the mutex noted as POSIX, and `pthread_mutex_destroy` as a plain write of -1.

use super::*;
use crate::program::mutex::{PosixMutexes, DESTROY, DESTROYED, INIT, LOCK, UNLOCK};
use crate::program::Address;

impl Lowerer {
    /// `lock#posix(&m)`, `unlock#posix(&m)` or `mutex_destroy#posix(&m)`; `None` (not
    /// lowered here) for any other call.
    pub(super) fn posix_mutex_call(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<Option<()>> {
        let what = match name.name.as_str() {
            LOCK => "a lock",
            UNLOCK => "an unlock",
            DESTROY => "a destroyed mutex",
            INIT => return Some(self.posix_mutex_init(name, args, span, scope, out)),
            _ => return None,
        };
        Some(self.posix_mutex(name, args, span, what, scope, out))
    }

    /// `mutex_init#posix(&m, attr)`: a write of 0 when `m` is at a computed address (the
    /// attributes, which nemos's mutexes do not have, are not read).
    fn posix_mutex_init(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<()> {
        let Some(mutex) = args.first() else {
            self.arity(name, args, 2, span);
            return None;
        };
        let loc = self.pointer_argument(mutex, scope, out)?;
        if !matches!(loc, Address::Fixed(_)) {
            out.push(Instr::Store {
                loc,
                value: Expr::Const(0),
                order: MemOrder::NonAtomic,
                tags: Vec::new(),
                span,
            });
        }
        Some(())
    }

    fn posix_mutex(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
        what: &str,
        scope: &mut ThreadScope,
        out: &mut Vec<Instr>,
    ) -> Option<()> {
        if !self.arity(name, args, 1, span) {
            return None;
        }
        let loc = self.pointer_argument(&args[0], scope, out)?;
        // A mutex at a computed address: a choice among its cells (`program::computed_lock`).
        if !matches!(loc, Address::Fixed(_)) && name.name != DESTROY {
            let unlock = name.name == UNLOCK;
            out.push(crate::program::computed_lock::marked(loc, unlock, span));
            return Some(());
        }
        let loc = self.fixed_address(loc, what, args[0].span)?;
        let PosixMutexes { used, destroyed } = &mut self.posix;
        match name.name.as_str() {
            DESTROY => {
                destroyed.insert(loc);
                out.push(Instr::Store {
                    loc: Address::Fixed(loc),
                    value: Expr::Const(DESTROYED),
                    order: MemOrder::NonAtomic,
                    tags: Vec::new(),
                    span,
                });
            }
            LOCK => {
                used.insert(loc);
                self.locations[loc].is_lock = true;
                out.push(Instr::Lock { loc, span });
            }
            _ => {
                used.insert(loc);
                self.locations[loc].is_lock = true;
                out.push(Instr::Unlock { loc, span });
            }
        }
        Some(())
    }
}
