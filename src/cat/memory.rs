//! GenMC's memory defects as flags of the model (see `docs/heap.md`).
//!
//! A program that allocates memory (`malloc`, `calloc`, a local whose address is taken)
//! has events the unroller tags: each cell of a block gets an event tagged [`ALLOC_TAG`]
//! where the block begins to exist and one tagged [`FREE_TAG`] where it is freed (fences on
//! the cell, neither reads nor writes, so that `loc` relates them to the cell's accesses);
//! the initial write of a cell nothing has written yet carries [`UNINIT_TAG`]. The defects
//! are then relations over an execution, as GenMC defines them with its happens-before:
//!
//! - `access-non-allocated`: an access whose block's allocation does not happen before
//!   it (`([alloc]; loc; [M \ IW]) \ hb`);
//! - `double-free`: two frees of one block (`([free]; loc; [free]) \ id`);
//! - `access-freed`: an access, or the allocation, that does not happen before a free of
//!   its block (`([(M \ IW) | alloc]; loc; [free]) \ hb`);
//! - `read-uninitialized`: a read of a cell from its initial write (`[uninit]; rf`).
//!
//! They are flags, so that the encoding and the witness checker (`witness::eval`) both
//! read them from the model as they read `undefined`, and each has its witness.

use super::ast::{BinOp, CheckKind, UnOp};
use std::sync::Arc;

use super::{Base, Check, Model, TExpr, Type};
use crate::diagnostics::Span;

/// The tag of the events where a block's cells begin to exist. The space keeps it apart
/// from every tag a `.def` file can write.
pub const ALLOC_TAG: &str = "nemos alloc";
/// The tag of the events where a block's cells are freed.
pub const FREE_TAG: &str = "nemos free";
/// The tag of the initial write of a cell `malloc` or a stack frame leaves uninitialised.
pub const UNINIT_TAG: &str = "nemos uninit";

/// The flag of an access no allocation happens before.
pub const NON_ALLOCATED: &str = "access-non-allocated";
/// The flag of two frees of one block.
pub const DOUBLE_FREE: &str = "double-free";
/// The flag of an access that does not happen before its block's free.
pub const FREED: &str = "access-freed";
/// The flag of a read of uninitialised memory.
pub const UNINITIALIZED: &str = "read-uninitialized";

/// The name of happens-before as the memory flags define it for a model without `hb`.
const HB_NAME: &str = "nemos hb";

/// Every memory flag, in the order GenMC checks an event for them.
pub const FLAGS: &[&str] = &[NON_ALLOCATED, DOUBLE_FREE, FREED, UNINITIALIZED];

/// How a report names an event carrying `tags`: `alloc` or `free` for the events of an
/// allocation and a free, `None` for any other.
pub fn heap_event_word(tags: &[String]) -> Option<&'static str> {
    tags.iter().find_map(|t| match t.as_str() {
        ALLOC_TAG => Some("alloc"),
        FREE_TAG => Some("free"),
        _ => None,
    })
}

fn base(b: Base) -> TExpr {
    TExpr::Base(b)
}

fn bin(op: BinOp, a: TExpr, b: TExpr) -> TExpr {
    TExpr::Binary(op, Box::new(a), Box::new(b))
}

fn filter(set: TExpr) -> TExpr {
    TExpr::Unary(UnOp::Identity, Box::new(set))
}

/// `model` with the four memory flags added. Happens-before is the model's own `hb` when
/// it defines one (RC11, C11), else `(po | rf | lko)+`, GenMC's under SC.
pub fn with_memory_flags(model: &Model) -> Model {
    let mut model = model.clone();
    let mut tag = |name: &str| {
        let index = match model.tags.iter().position(|t| t == name) {
            Some(i) => i,
            None => {
                model.tags.push(name.to_string());
                model.tags.len() - 1
            }
        };
        base(Base::Tag(u16::try_from(index).unwrap_or(u16::MAX)))
    };
    let (alloc, free, uninit) = (tag(ALLOC_TAG), tag(FREE_TAG), tag(UNINIT_TAG));
    let hb = match model.defs.iter().rposition(|(n, _, _)| n == "hb") {
        Some(id) => TExpr::Def(id),
        // A definition of its own, so that the two flags that read it share one closure
        // (the encoding caches definitions, not expressions): under SC each copy was half
        // of the variables of a program that frees memory. The space keeps the name apart
        // from every name a cat file can define.
        None => {
            let closure = TExpr::Unary(
                UnOp::Plus,
                Box::new(bin(
                    BinOp::Union,
                    base(Base::Po),
                    bin(BinOp::Union, base(Base::Rf), base(Base::Lko)),
                )),
            );
            model
                .defs
                .push((HB_NAME.to_string(), Arc::new(closure), Some(Type::Rel)));
            TExpr::Def(model.defs.len() - 1)
        }
    };
    let accesses = bin(BinOp::Diff, base(Base::M), base(Base::IW));
    let seq = |a: TExpr, b: TExpr, c: TExpr| bin(BinOp::Seq, bin(BinOp::Seq, a, b), c);
    let non_allocated = bin(
        BinOp::Diff,
        seq(
            filter(alloc.clone()),
            base(Base::Loc),
            filter(accesses.clone()),
        ),
        hb.clone(),
    );
    let double_free = bin(
        BinOp::Diff,
        seq(filter(free.clone()), base(Base::Loc), filter(free.clone())),
        base(Base::Id),
    );
    let freed = bin(
        BinOp::Diff,
        seq(
            filter(bin(BinOp::Union, accesses, alloc)),
            base(Base::Loc),
            filter(free),
        ),
        hb,
    );
    let uninitialized = bin(BinOp::Seq, filter(uninit), base(Base::Rf));
    for (name, expr) in [
        (NON_ALLOCATED, non_allocated),
        (DOUBLE_FREE, double_free),
        (FREED, freed),
        (UNINITIALIZED, uninitialized),
    ] {
        model.checks.push(Check {
            kind: CheckKind::Empty,
            negated: true,
            flag: true,
            name: Some(name.to_string()),
            expr,
            file: "(nemos's memory defects)".to_string(),
            span: Span::default(),
        });
    }
    model
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(name: &str) -> Model {
        match super::super::load_shipped(name) {
            Some(Ok(model)) => model,
            _ => panic!("{name} is shipped and loads"),
        }
    }

    /// The definitions `e` reads directly.
    fn defs_read(e: &TExpr, out: &mut Vec<usize>) {
        match e {
            TExpr::Def(id) => out.push(*id),
            TExpr::Unary(_, a) => defs_read(a, out),
            TExpr::Binary(_, a, b) => {
                defs_read(a, out);
                defs_read(b, out);
            }
            _ => {}
        }
    }

    fn flag_reads(model: &Model, name: &str) -> Vec<usize> {
        let check = model
            .checks
            .iter()
            .find(|c| c.flag && c.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("the flag {name}"));
        let mut read = Vec::new();
        defs_read(&check.expr, &mut read);
        read
    }

    /// Under a model without `hb` (SC), the two flags that read happens-before read one
    /// definition of it, which the encoding builds once; under RC11 they read the model's.
    #[test]
    fn the_flags_share_one_happens_before() {
        let sc = with_memory_flags(&model("sc"));
        let non_allocated = flag_reads(&sc, NON_ALLOCATED);
        assert_eq!(non_allocated.len(), 1);
        assert_eq!(flag_reads(&sc, FREED), non_allocated);
        let (name, body, _) = &sc.defs[non_allocated[0]];
        assert_eq!(name, HB_NAME);
        assert!(matches!(**body, TExpr::Unary(UnOp::Plus, _)));
        let rc11 = with_memory_flags(&model("rc11"));
        let hb = flag_reads(&rc11, FREED);
        assert_eq!(flag_reads(&rc11, NON_ALLOCATED), hb);
        assert_eq!(rc11.defs[hb[0]].0, "hb");
        assert_eq!(rc11.defs.len(), model("rc11").defs.len());
    }
}
