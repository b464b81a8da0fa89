//! Compiling a checked model (`crate::cat`) into clauses over the relation matrices.
//!
//! Every set is a vector of literals (one per event), every relation a sparse matrix whose
//! missing pairs are constant false, as in Kodkod: base relations start from the static
//! bounds of the encoding (`rf` candidates, writes of a location, program order), and each
//! operator builds only the pairs its operands make possible. Every operator is exact (its
//! literals are Tseitin-defined in both directions), so a result can be used under negation:
//! `\` is `a & !b`, a flag is `!empty r`. Base relations relate executed events only.
//!
//! Four savings keep compiled models as small as hand-written encodings:
//! - every relation is built only on the pairs some check can read (`plan`): static upper
//!   bounds of all definitions first (bit matrices, no literals), then the pairs each check
//!   reads pushed down through the operators into the definitions;
//! - intersections and differences evaluate their left operand first and only ask the right
//!   one for the pairs that survive (`rmw & (fre; coe)` never builds `fre; coe` outside
//!   `rmw`), and a difference drops the pairs its right operand surely holds
//!   (`plan::sure_pairs`: `A \ hb` asks nothing of `hb` on program order);
//! - a closure of a union containing `po` is split at program order (`closure_over_po`)
//!   rather than squared;
//! - `acyclic` orders only events that can lie on a cycle (a node without possible incoming
//!   or outgoing edges cannot), skips constant edges that other constant edges already
//!   imply through transitivity, and encodes program order inside `po | ...` as chains of
//!   consecutive events rather than one guarded edge per pair.
//!
//! Each named check holds under its own selector literal, so that the queries can switch it
//! off (`--skip`) or name it in an unsatisfiable core (`explain`) without re-encoding.

mod checks;
mod closure;
mod eval;
mod fixpoint;
mod plan;

// FxHash for the compiler's tables (keys are small integers, bases and pairs of events):
// SipHash was about a twentieth of a small LKMM test's instructions.
use rustc_hash::FxHashMap as HashMap;
use std::rc::Rc;

use super::acyclic::{AcyclicStrategy, Order};
use super::bits::Bits;
use super::cnf::{Bool, ClauseSink};
use super::relation::Relation;
use super::Encoding;
use crate::cat::ast::{BinOp, UnOp};
use crate::cat::{Base, Model, TExpr};
use crate::events::EventId;

/// The literals the queries need from a compiled model.
#[derive(Clone, Debug, Default)]
pub struct CompiledModel {
    /// Per named check (each name once), the literal that switches it on.
    pub selectors: Vec<(String, Bool)>,
    /// Per flag, the literal under which an execution raises it.
    pub flags: Vec<(String, Bool)>,
    /// The orders of the acyclicity checks: with lazy acyclicity, the queries cut the
    /// cycles a model leaves in them.
    pub orders: Vec<Order>,
    /// The model's relation `race`, when it defines one and flags it (the C11 models): the
    /// pairs of events whose race makes the behaviour undefined. The races query lists
    /// them instead of its own SC notion of a race.
    pub race: Option<Relation>,
    /// The model's `race` excludes every pair its happens-before orders, and that
    /// happens-before contains `po` and `lko` ([`race_excludes_lock_order`]).
    pub race_after_locks: bool,
}

impl CompiledModel {
    pub fn selector(&self, name: &str) -> Option<Bool> {
        self.selectors
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, b)| b)
    }
}

/// The value of a model expression: a literal per event, or a relation.
#[derive(Clone, Debug)]
pub enum Val {
    Set(Vec<Bool>),
    Rel(Relation),
}

/// The pairs of a relation that are asked for; the others are left out of its value.
type Mask = Bits;

/// A static upper bound: the events or pairs that may be in a value.
#[derive(Clone, Debug)]
enum Ub {
    Set(Vec<bool>),
    Rel(Bits),
}

/// Program-order chains an acyclicity check may encode unconditionally.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Chains {
    None,
    /// The relation contains `po`.
    Po,
    /// The relation contains `po-loc`.
    PoLoc,
}

struct Compiler<'e, 'a> {
    enc: &'e Encoding<'a>,
    model: &'e Model,
    strategy: AcyclicStrategy,
    /// Per definition: its value, and for a relation the pairs that value covers.
    defs: Vec<Option<(Rc<Val>, Option<Bits>)>>,
    bases: HashMap<Base, Rc<Val>>,
    orders: Vec<Order>,
    /// Per definition: its static upper bound.
    ubs: Vec<Option<Rc<Ub>>>,
    base_ubs: HashMap<Base, Rc<Ub>>,
    /// The static upper bounds of the model's own subexpressions, by address: `plan`
    /// asks for the bound of each operand again at every level above it (`plan::NodeUbs`).
    node_ubs: plan::NodeUbs,
    /// Per set definition: its static lower bound (see [`Compiler::lb`]).
    lbs: HashMap<usize, Rc<Vec<bool>>>,
    /// Per relation definition: the pairs it surely holds (see [`Compiler::sure_pairs`]).
    sure: HashMap<usize, Option<Rc<Bits>>>,
    /// Per definition some use of which was found (`plan`): for a relation, the pairs its
    /// uses ask for.
    wanted: Vec<Option<Bits>>,
    /// `fb(a) & fb(b)`, the literal of every pairwise base relation, built once per pair.
    pairs: HashMap<(EventId, EventId), Bool>,
    /// Per definition of a `let rec`, its group in `Model::rec_groups`.
    groups: HashMap<usize, usize>,
}

fn rec_members(model: &Model) -> HashMap<usize, usize> {
    let mut groups = HashMap::default();
    for (g, group) in model.rec_groups.iter().enumerate() {
        for &m in &group.members {
            groups.insert(m, g);
        }
    }
    groups
}

/// Whether an event carries a tag: a compare-exchange's read carries its success tags
/// when its write runs and its failure tags otherwise.
enum Tagged {
    Never,
    Always,
    IfExchanged(EventId),
    IfFailed(EventId),
}

fn tagged(e: &crate::events::Event, tag: &str) -> Tagged {
    let has = |tags: &[String]| tags.iter().any(|t| t.eq_ignore_ascii_case(tag));
    match (e.rmw, e.failure_tags.is_empty()) {
        (Some(w), false) if e.is_read() => match (has(&e.tags), has(&e.failure_tags)) {
            (true, true) => Tagged::Always,
            (true, false) => Tagged::IfExchanged(w),
            (false, true) => Tagged::IfFailed(w),
            (false, false) => Tagged::Never,
        },
        _ if has(&e.tags) => Tagged::Always,
        _ => Tagged::Never,
    }
}

/// Add the model's checks to the encoding; each named check is guarded by a fresh selector.
pub fn encode_model<S: ClauseSink>(
    sink: &mut S,
    enc: &Encoding,
    model: &Model,
    strategy: AcyclicStrategy,
) -> CompiledModel {
    let race = model.defs.iter().rposition(|(n, _, _)| n == "race");
    // The checks read one-sided copies of the fixed points they use positively only; the
    // flags and `race` the exact ones, which keep their indices.
    let split = model.one_sided();
    let compiled_model = split.as_ref().unwrap_or(model);
    let mut compiler = Compiler::new(enc, compiled_model, strategy);
    compiler.plan(sink, race);
    let mut compiled = CompiledModel::default();
    for check in &compiled_model.checks {
        if check.flag {
            let raised = compiler.test(sink, check.kind, check.negated, &check.expr);
            let name = check.name.clone().unwrap_or_else(|| "flag".to_string());
            compiled.flags.push((name, raised));
            continue;
        }
        let selector = match &check.name {
            Some(name) => match compiled.selector(name) {
                Some(s) => s,
                None => {
                    let s = Bool::Lit(sink.new_lit());
                    compiled.selectors.push((name.clone(), s));
                    s
                }
            },
            None => Bool::TRUE,
        };
        compiler.require(sink, check.kind, check.negated, &check.expr, selector);
    }
    compiled.orders = std::mem::take(&mut compiler.orders);
    compiled.race_after_locks = race_excludes_lock_order(model);
    if let Some(id) = race {
        // Already built when a flag uses it: the definitions are cached.
        if let Val::Rel(r) = compiler.eval(sink, &TExpr::Def(id), None).as_ref() {
            compiled.race = Some(r.clone());
        }
    }
    compiled
}

/// Whether the model's last `race` is `X \ (hb | hb^-1)` (union operands in any order)
/// for a definition `hb = (.. | po .. | lko ..)+`: a closure of a union that holds program
/// order and the lock order among its operands (looked through definitions), as in
/// `rc11.cat` and `c11.cat`. Then two accesses of different threads inside critical
/// sections of one mutex never race: `lko` orders the sections, so `po; lko; po` orders
/// the accesses in `hb` one way or the other (Eraser's lockset argument).
pub fn race_excludes_lock_order(model: &Model) -> bool {
    let Some(race) = model.defs.iter().rposition(|(n, _, _)| n == "race") else {
        return false;
    };
    let TExpr::Binary(BinOp::Diff, _, ordered) = &*model.defs[race].1 else {
        return false;
    };
    let mut operands = Vec::new();
    union_operands(ordered, &mut operands);
    operands.iter().any(|hb| {
        let inverse = TExpr::Unary(UnOp::Inverse, Box::new((*hb).clone()));
        let TExpr::Def(id) = hb else { return false };
        let Some((_, body, _)) = model.defs.get(*id) else {
            return false;
        };
        let TExpr::Unary(UnOp::Plus, inner) = &**body else {
            return false;
        };
        operands.contains(&&inverse)
            && holds_base(model, inner, Base::Po)
            && holds_base(model, inner, Base::Lko)
    })
}

/// The operands of nested unions.
fn union_operands<'t>(e: &'t TExpr, out: &mut Vec<&'t TExpr>) {
    match e {
        TExpr::Binary(BinOp::Union, a, b) => {
            union_operands(a, out);
            union_operands(b, out);
        }
        _ => out.push(e),
    }
}

/// `e` is a union one of whose operands is `base`, looked through (non-recursive)
/// definitions.
fn holds_base(model: &Model, e: &TExpr, base: Base) -> bool {
    match e {
        TExpr::Base(b) => *b == base,
        TExpr::Def(id) if model.rec_group(*id).is_some() => false,
        TExpr::Def(id) => model
            .defs
            .get(*id)
            .is_some_and(|(_, body, _)| holds_base(model, body, base)),
        TExpr::Binary(BinOp::Union, a, b) => {
            holds_base(model, a, base) || holds_base(model, b, base)
        }
        _ => false,
    }
}

/// The literals of the model's last `let` definition called `name`, without its checks: for
/// tests that compare the compiled operators with a direct evaluation.
pub fn encode_definition<S: ClauseSink>(
    sink: &mut S,
    enc: &Encoding,
    model: &Model,
    name: &str,
) -> Option<Val> {
    let id = model.defs.iter().rposition(|(n, _, _)| n == name)?;
    let mut compiler = Compiler::new(enc, model, AcyclicStrategy::default());
    compiler.plan(sink, Some(id));
    let value = compiler.eval(sink, &TExpr::Def(id), None);
    Some(value.as_ref().clone())
}

impl<'e, 'a> Compiler<'e, 'a> {
    fn new(enc: &'e Encoding<'a>, model: &'e Model, strategy: AcyclicStrategy) -> Self {
        Compiler {
            enc,
            model,
            strategy,
            defs: vec![None; model.defs.len()],
            bases: HashMap::default(),
            orders: Vec::new(),
            ubs: vec![None; model.defs.len()],
            base_ubs: HashMap::default(),
            node_ubs: plan::NodeUbs::new(model),
            lbs: HashMap::default(),
            sure: HashMap::default(),
            wanted: vec![None; model.defs.len()],
            pairs: HashMap::default(),
            groups: rec_members(model),
        }
    }
}
