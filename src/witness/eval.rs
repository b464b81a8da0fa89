//! The model language evaluated on one explicit execution.
//!
//! `encode::model` compiles a model into clauses over every execution at once; this module
//! computes the same sets and relations for one concrete execution, with dense bit
//! matrices over its executed events, so that a witness can be checked against the model's
//! definitions without trusting the encoding. The base relations follow the definitions
//! the encoding documents (`encode/model/eval.rs`), which are the ones to keep in step with.
//! Nothing here imports `encode`: the two implementations share only the model.

use std::cell::OnceCell;
use std::rc::Rc;

// FxHash: the bases are looked up at every leaf of every expression evaluated.
use rustc_hash::FxHashMap as HashMap;

use crate::cat::ast::{BinOp, CheckKind, UnOp};
use crate::cat::{Base, Check, Model, RecGroup, TExpr, Type};
use crate::events::{Dependency, EventId, EventKind, Events, TermId};
use crate::program::MemOrder;

use super::Execution;

/// A set of the executed events, one bit each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    fn new(m: usize) -> BitSet {
        BitSet {
            words: vec![0; m.div_ceil(64)],
        }
    }

    fn get(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 == 1
    }

    fn set(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }

    fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
}

/// A relation between the executed events: row `a` holds the bits of the `b` with `a r b`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitRel {
    m: usize,
    stride: usize,
    bits: Vec<u64>,
}

impl BitRel {
    fn new(m: usize) -> BitRel {
        let stride = m.div_ceil(64);
        BitRel {
            m,
            stride,
            bits: vec![0; m * stride],
        }
    }

    fn get(&self, a: usize, b: usize) -> bool {
        self.bits[a * self.stride + b / 64] >> (b % 64) & 1 == 1
    }

    fn set(&mut self, a: usize, b: usize) {
        self.bits[a * self.stride + b / 64] |= 1 << (b % 64);
    }

    fn row(&self, a: usize) -> &[u64] {
        &self.bits[a * self.stride..(a + 1) * self.stride]
    }

    fn or_row(&mut self, a: usize, row: &[u64]) {
        for (cell, &w) in self.bits[a * self.stride..(a + 1) * self.stride]
            .iter_mut()
            .zip(row)
        {
            *cell |= w;
        }
    }

    fn identity(m: usize) -> BitRel {
        let mut r = BitRel::new(m);
        for i in 0..m {
            r.set(i, i);
        }
        r
    }

    fn zip(&self, other: &BitRel, f: impl Fn(u64, u64) -> u64) -> BitRel {
        BitRel {
            m: self.m,
            stride: self.stride,
            bits: self
                .bits
                .iter()
                .zip(&other.bits)
                .map(|(&x, &y)| f(x, y))
                .collect(),
        }
    }

    /// The columns set in row `a`, by scanning words: most rows are sparse.
    fn successors(&self, a: usize) -> impl Iterator<Item = usize> + '_ {
        self.row(a).iter().enumerate().flat_map(|(i, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(i * 64 + bit)
            })
        })
    }

    fn seq(&self, other: &BitRel) -> BitRel {
        let mut out = BitRel::new(self.m);
        if self.stride == 1 {
            // At most 64 events (most executions): a row is one word, scanned in place.
            for (cell, &word) in out.bits.iter_mut().zip(&self.bits) {
                let mut rest = word;
                let mut acc = 0;
                while rest != 0 {
                    acc |= other.bits[rest.trailing_zeros() as usize];
                    rest &= rest - 1;
                }
                *cell = acc;
            }
            return out;
        }
        for a in 0..self.m {
            let row = &mut out.bits[a * self.stride..(a + 1) * self.stride];
            for k in self.successors(a) {
                for (cell, &w) in row.iter_mut().zip(other.row(k)) {
                    *cell |= w;
                }
            }
        }
        out
    }

    /// `r+` by Warshall: after round `k`, the paths through events `0..=k` are closed.
    fn closure(&self) -> BitRel {
        let mut c = self.clone();
        if self.stride == 1 {
            for k in 0..self.m {
                let through = c.bits[k];
                for row in c.bits.iter_mut() {
                    if *row >> k & 1 == 1 {
                        *row |= through;
                    }
                }
            }
            return c;
        }
        let mut through = vec![0; self.stride];
        for k in 0..self.m {
            through.copy_from_slice(c.row(k));
            for a in 0..self.m {
                if c.get(a, k) {
                    c.or_row(a, &through);
                }
            }
        }
        c
    }

    fn inverse(&self) -> BitRel {
        let mut out = BitRel::new(self.m);
        for a in 0..self.m {
            for b in self.successors(a) {
                out.set(b, a);
            }
        }
        out
    }

    fn is_empty(&self) -> bool {
        self.bits.iter().all(|&w| w == 0)
    }

    fn reflexive(&self) -> bool {
        (0..self.m).any(|i| self.get(i, i))
    }
}

/// The value of an expression on one execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dense {
    Set(BitSet),
    Rel(BitRel),
}

/// The relation a value is, read in place: an operator's operand is often a definition's
/// or a base's value, which the evaluator shares rather than copies.
fn as_rel(v: &Dense) -> Result<&BitRel, String> {
    match v {
        Dense::Rel(r) => Ok(r),
        Dense::Set(_) => Err("a set where a relation belongs".into()),
    }
}

fn as_set(v: &Dense) -> Result<&BitSet, String> {
    match v {
        Dense::Set(s) => Ok(s),
        Dense::Rel(_) => Err("a relation where a set belongs".into()),
    }
}

/// One execution's events and its `rf`, `co` and lock order, ready for evaluation.
pub struct Explicit<'a> {
    events: &'a Events,
    /// The executed events in event order: the matrices' rows.
    executed: Vec<EventId>,
    /// Per event, its row when it executed.
    index: Vec<Option<usize>>,
    rf: BitRel,
    co: BitRel,
    lko: BitRel,
    /// Per event, its value, when known (for `different-values`).
    values: Vec<Option<i32>>,
    /// Per event, the memory order (and a compare-exchange's failure order) it has in
    /// place of its own, where a solver chose it (`infer`); empty: every event's own.
    orders: Vec<Option<ChosenOrder>>,
    /// Per executed event, the order the order sets read (`by_order`), once needed.
    effective_orders: OnceCell<Vec<Option<MemOrder>>>,
}

/// An access's order, and a compare-exchange's failure order, in place of the event's own.
pub type ChosenOrder = (MemOrder, Option<MemOrder>);

impl<'a> Explicit<'a> {
    /// From explicit pairs; pairs involving an event that did not run are dropped, as every
    /// base relation relates executed events only. `rf` and `co` are memory's: a mutex's
    /// history is only in `lko`, as in the encoding.
    pub fn new(
        events: &'a Events,
        feasible: &[bool],
        rf: &[(EventId, EventId)],
        co: &[(EventId, EventId)],
        lko: &[(EventId, EventId)],
    ) -> Explicit<'a> {
        let executed: Vec<EventId> = (0..events.len())
            .filter(|&e| feasible.get(e).copied().unwrap_or(false))
            .collect();
        let mut index = vec![None; events.len()];
        for (i, &e) in executed.iter().enumerate() {
            index[e] = Some(i);
        }
        let m = executed.len();
        let matrix = |pairs: &[(EventId, EventId)]| {
            let mut r = BitRel::new(m);
            for &(a, b) in pairs {
                if let (Some(Some(i)), Some(Some(j))) = (index.get(a), index.get(b)) {
                    r.set(*i, *j);
                }
            }
            r
        };
        let (rf, co, lko) = (matrix(rf), matrix(co), matrix(lko));
        Explicit {
            events,
            executed,
            index,
            rf,
            co,
            lko,
            values: Vec::new(),
            orders: Vec::new(),
            effective_orders: OnceCell::new(),
        }
    }

    /// The same execution with the events' memory orders replaced where `orders` gives
    /// one (indexed by event).
    pub fn with_orders(mut self, orders: Vec<Option<ChosenOrder>>) -> Explicit<'a> {
        self.orders = orders;
        self.effective_orders = OnceCell::new();
        self
    }

    /// From a decoded execution. `mutexes` says which locations are mutexes: their
    /// coherence list is the lock order of their critical sections (each lock's write half,
    /// then its unlock), from which `lko` is read back.
    pub fn of_execution(
        events: &'a Events,
        mutexes: &[bool],
        execution: &Execution,
    ) -> Explicit<'a> {
        let is_mutex = |e: EventId| {
            events.events[e]
                .location
                .is_some_and(|l| mutexes.get(l).copied().unwrap_or(false))
        };
        let rf: Vec<(EventId, EventId)> = execution
            .rf
            .iter()
            .copied()
            .filter(|&(_, r)| !is_mutex(r))
            .collect();
        let mut co = Vec::new();
        let mut lko = Vec::new();
        for (loc, chain) in execution.co.iter().enumerate() {
            if !mutexes.get(loc).copied().unwrap_or(false) {
                for (i, &a) in chain.iter().enumerate() {
                    co.extend(chain[i + 1..].iter().map(|&b| (a, b)));
                }
                continue;
            }
            // An unlock `u` precedes lock `k` of another thread when `u` comes before k's
            // write half in the mutex's list.
            for (i, &u) in chain.iter().enumerate() {
                if events.events[u].kind != EventKind::Unlock {
                    continue;
                }
                for &half in &chain[i + 1..] {
                    let lock = events
                        .events
                        .iter()
                        .find(|k| k.kind == EventKind::Lock && k.rmw == Some(half));
                    if let Some(k) = lock {
                        if k.thread != events.events[u].thread {
                            lko.push((u, k.id));
                        }
                    }
                }
            }
        }
        let mut explicit = Explicit::new(events, &execution.feasible, &rf, &co, &lko);
        explicit.values = execution.values.clone();
        explicit
    }

    fn m(&self) -> usize {
        self.executed.len()
    }

    /// An evaluator of `model`'s expressions, caching its definitions.
    pub fn evaluator<'m>(&'m self, model: &'m Model) -> Evaluator<'m, 'a> {
        Evaluator {
            x: self,
            model,
            defs: vec![None; model.defs.len()],
            bases: HashMap::default(),
            dependent: None,
            checks: Vec::new(),
        }
    }

    /// An evaluator of `model`'s expressions that starts from what an evaluator of the
    /// same model on the same execution of the same events computed under other memory
    /// orders ([`Evaluator::into_reuse`]): the definitions, bases and checks that read no
    /// order are not computed again. A `reuse` of another set of executed events (a fence
    /// left out) or of another model's size is dropped.
    pub fn evaluator_reusing<'m>(
        &'m self,
        model: &'m Model,
        reuse: Option<Reuse>,
    ) -> Evaluator<'m, 'a> {
        let fits = |r: &Reuse| {
            r.defs.len() == model.defs.len()
                && r.checks.len() == model.checks.len()
                && r.dependent.len() == model.defs.len()
        };
        match reuse.filter(fits) {
            Some(r) if r.executed == self.executed => Evaluator {
                x: self,
                model,
                defs: r.defs,
                bases: r.bases,
                dependent: Some(r.dependent),
                checks: r.checks,
            },
            other => Evaluator {
                x: self,
                model,
                defs: vec![None; model.defs.len()],
                bases: HashMap::default(),
                dependent: Some(
                    other.map_or_else(|| Rc::new(order_dependent(model)), |r| r.dependent),
                ),
                checks: vec![None; model.checks.len()],
            },
        }
    }

    /// `e` is in the set.
    pub fn contains(&self, value: &Dense, e: EventId) -> bool {
        match (value, self.index.get(e).copied().flatten()) {
            (Dense::Set(s), Some(i)) => s.get(i),
            _ => false,
        }
    }

    /// `(a, b)` is in the relation.
    pub fn related(&self, value: &Dense, a: EventId, b: EventId) -> bool {
        let row = |e: EventId| self.index.get(e).copied().flatten();
        match (value, row(a), row(b)) {
            (Dense::Rel(r), Some(i), Some(j)) => r.get(i, j),
            _ => false,
        }
    }

    /// The executed events, in event order.
    pub fn executed(&self) -> &[EventId] {
        &self.executed
    }

    /// The pairs of a relation, in event order; none for a set.
    pub fn pairs(&self, value: &Dense) -> Vec<(EventId, EventId)> {
        let Dense::Rel(r) = value else {
            return Vec::new();
        };
        (0..self.m())
            .flat_map(|i| r.successors(i).map(move |j| (i, j)))
            .map(|(i, j)| (self.executed[i], self.executed[j]))
            .collect()
    }

    fn set(&self, pred: impl Fn(EventId) -> bool) -> Dense {
        let mut s = BitSet::new(self.m());
        for (i, &e) in self.executed.iter().enumerate() {
            if pred(e) {
                s.set(i);
            }
        }
        Dense::Set(s)
    }

    fn rel(&self, pred: impl Fn(EventId, EventId) -> bool) -> BitRel {
        let mut r = BitRel::new(self.m());
        for (i, &a) in self.executed.iter().enumerate() {
            for (j, &b) in self.executed.iter().enumerate() {
                if pred(a, b) {
                    r.set(i, j);
                }
            }
        }
        r
    }

    /// `r` restricted to the pairs `keep` accepts.
    fn filter(&self, r: &BitRel, keep: impl Fn(EventId, EventId) -> bool) -> BitRel {
        let mut out = BitRel::new(self.m());
        for (i, &a) in self.executed.iter().enumerate() {
            for (j, &b) in self.executed.iter().enumerate() {
                if r.get(i, j) && keep(a, b) {
                    out.set(i, j);
                }
            }
        }
        out
    }

    /// The accesses and fences whose memory order satisfies `pred`; a compare-exchange
    /// read whose write half did not run failed, and has its failure order.
    fn by_order(&self, pred: impl Fn(MemOrder) -> bool) -> Dense {
        let orders = self.effective_orders.get_or_init(|| self.orders_of_rows());
        let mut s = BitSet::new(self.m());
        for (i, order) in orders.iter().enumerate() {
            if order.is_some_and(&pred) {
                s.set(i);
            }
        }
        Dense::Set(s)
    }

    /// Per executed event: the memory order it has, when it is an access or a fence (the
    /// five order sets read it, once per evaluation each).
    fn orders_of_rows(&self) -> Vec<Option<MemOrder>> {
        let ev = &self.events.events;
        self.executed
            .iter()
            .map(|&e| {
                let event = &ev[e];
                if !(event.is_memory() || event.kind == EventKind::Fence) {
                    return None;
                }
                let (own, failure) = match self.orders.get(e).copied().flatten() {
                    Some(chosen) => chosen,
                    None => (event.order, event.failure_order),
                };
                Some(match (failure, event.rmw) {
                    (Some(failure), Some(write))
                        if self.index.get(write).is_none_or(Option::is_none) =>
                    {
                        failure
                    }
                    _ => own,
                })
            })
            .collect()
    }

    /// The events carrying `tag`: a compare-exchange's read its failure tags when its write
    /// did not run.
    fn by_tag(&self, tag: &str) -> Dense {
        let ev = &self.events.events;
        let ran = |e: EventId| self.index.get(e).is_some_and(Option::is_some);
        self.set(|e| {
            let event = &ev[e];
            let tags = match event.rmw {
                Some(w) if event.is_read() && !event.failure_tags.is_empty() && !ran(w) => {
                    &event.failure_tags
                }
                _ => &event.tags,
            };
            tags.iter().any(|t| t.eq_ignore_ascii_case(tag))
        })
    }

    fn base(&self, b: Base, tags: &[String]) -> Dense {
        let events = self.events;
        let ev = &events.events;
        let same_loc = |a: EventId, b: EventId| {
            ev[a].is_located() && ev[b].is_located() && ev[a].location == ev[b].location
        };
        let ext = |a: EventId, b: EventId| ev[a].thread != ev[b].thread;
        let fr = || self.rf.inverse().seq(&self.co);
        match b {
            Base::All => self.set(|_| true),
            Base::R => self.set(|e| ev[e].is_read()),
            Base::W => self.set(|e| ev[e].is_write()),
            Base::F => self.set(|e| ev[e].is_barrier()),
            Base::M => self.set(|e| ev[e].is_memory()),
            Base::IW => self.set(|e| ev[e].kind == EventKind::Init),
            Base::X => self.set(|e| ev[e].is_memory() && ev[e].rmw.is_some()),
            Base::Lkr => self.set(|e| ev[e].kind == EventKind::Lock),
            Base::Lkw => self.set(|e| events.lock_write_half(e)),
            Base::Ul => self.set(|e| ev[e].kind == EventKind::Unlock),
            Base::Rlx => self.by_order(|o| o == MemOrder::Relaxed),
            Base::Acq => self.by_order(|o| matches!(o, MemOrder::Acquire | MemOrder::Consume)),
            Base::Rel => self.by_order(|o| o == MemOrder::Release),
            Base::AcqRel => self.by_order(|o| o == MemOrder::AcqRel),
            Base::Sc => self.by_order(|o| o == MemOrder::SeqCst),
            Base::Na => self.set(|e| ev[e].is_memory() && ev[e].order == MemOrder::NonAtomic),
            Base::A => self.set(|e| ev[e].is_memory() && ev[e].order != MemOrder::NonAtomic),
            Base::Po => Dense::Rel(self.rel(|a, b| events.po(a, b))),
            Base::PoLoc => Dense::Rel(self.rel(|a, b| events.po(a, b) && same_loc(a, b))),
            Base::Rf => Dense::Rel(self.rf.clone()),
            Base::Co => Dense::Rel(self.co.clone()),
            Base::Fr => Dense::Rel(fr()),
            Base::Lko => Dense::Rel(self.lko.clone()),
            Base::Tc => Dense::Rel(self.rel(|a, b| events.thread_sync.create.contains(&(a, b)))),
            Base::Tj => Dense::Rel(self.rel(|a, b| events.thread_sync.join.contains(&(a, b)))),
            Base::Rfe => Dense::Rel(self.filter(&self.rf, ext)),
            Base::Rfi => Dense::Rel(self.filter(&self.rf, |a, b| !ext(a, b))),
            Base::Coe => Dense::Rel(self.filter(&self.co, ext)),
            Base::Coi => Dense::Rel(self.filter(&self.co, |a, b| !ext(a, b))),
            Base::Fre => Dense::Rel(self.filter(&fr(), ext)),
            Base::Fri => Dense::Rel(self.filter(&fr(), |a, b| !ext(a, b))),
            Base::Id => Dense::Rel(BitRel::identity(self.m())),
            Base::Loc => Dense::Rel(self.rel(same_loc)),
            Base::Int => Dense::Rel(self.rel(|a, b| !ext(a, b))),
            Base::Ext => Dense::Rel(self.rel(ext)),
            Base::Rmw => Dense::Rel(self.rel(|a, b| ev[a].is_read() && ev[a].rmw == Some(b))),
            Base::Tag(i) => self.by_tag(tags.get(usize::from(i)).map_or("", String::as_str)),
            Base::Addr => Dense::Rel(self.dependency(&events.dependencies.addr)),
            Base::Data => Dense::Rel(self.dependency(&events.dependencies.data)),
            Base::Ctrl => Dense::Rel(self.dependency(&events.ctrl_pairs())),
        }
    }

    /// The dependencies between executed events whose condition holds on the values read
    /// (a read that did not run counts as 0: a condition names one only on a side of a
    /// join the execution did not take). An execution given without its values
    /// (`Explicit::new`) needs [`Explicit::with_values`] for conditions that are not
    /// constants.
    fn dependency(&self, list: &[Dependency]) -> BitRel {
        let terms = &self.events.terms;
        let value = |e: EventId| self.values.get(e).copied().flatten().unwrap_or(0);
        let holds = |t: TermId| terms.eval(t, &value) != 0;
        let mut out = BitRel::new(self.m());
        for d in list {
            let row = |e: EventId| self.index.get(e).copied().flatten();
            if let (Some(i), Some(j)) = (row(d.from), row(d.to)) {
                if holds(d.when) {
                    out.set(i, j);
                }
            }
        }
        out
    }

    /// The same execution with the values of its events (per event, when known), which
    /// the conditions of dependencies are evaluated on.
    pub fn with_values(mut self, values: Vec<Option<i32>>) -> Self {
        self.values = values;
        self
    }
}

/// Evaluates one model's expressions on one execution; each definition once.
pub struct Evaluator<'m, 'a> {
    x: &'m Explicit<'a>,
    model: &'m Model,
    /// Shared, not copied, by every expression that reads them.
    defs: Vec<Option<Rc<Dense>>>,
    bases: HashMap<Base, Rc<Dense>>,
    /// Per definition: it reads the memory orders ([`order_dependent`]); known when the
    /// evaluator is to be reused under other orders.
    dependent: Option<Rc<Vec<bool>>>,
    /// Per check of the model, when `dependent` is known: the verdict of a check that
    /// reads no order, once evaluated.
    checks: Vec<Option<bool>>,
}

/// What an [`Evaluator`] computed that no memory order changes (the definitions, bases and
/// checks that read none), kept to evaluate the same execution under other orders
/// ([`Explicit::evaluator_reusing`]): `infer` judges one execution under many assignments
/// of orders, and most of a model (`po`, `rf`, `co`, their compositions) reads none.
pub struct Reuse {
    executed: Vec<EventId>,
    dependent: Rc<Vec<bool>>,
    defs: Vec<Option<Rc<Dense>>>,
    bases: HashMap<Base, Rc<Dense>>,
    checks: Vec<Option<bool>>,
}

/// The bases that read the events' memory orders.
fn reads_order(b: Base) -> bool {
    matches!(
        b,
        Base::Rlx | Base::Acq | Base::Rel | Base::AcqRel | Base::Sc
    )
}

/// `e` reads the memory orders: through a base that does, or a definition `dependent`
/// marks (an unknown one counts).
fn expr_reads_orders(e: &TExpr, dependent: &[bool]) -> bool {
    match e {
        TExpr::Base(b) => reads_order(*b),
        TExpr::Def(id) => dependent.get(*id).copied().unwrap_or(true),
        TExpr::Empty(_) => false,
        TExpr::Binary(_, a, b) => {
            expr_reads_orders(a, dependent) || expr_reads_orders(b, dependent)
        }
        TExpr::Unary(_, a) | TExpr::Domain(a) | TExpr::Range(a) | TExpr::DifferentValues(a) => {
            expr_reads_orders(a, dependent)
        }
    }
}

/// Per definition of `model`: it reads the memory orders, directly or through another
/// definition. Every definition of a `let rec` group (members and inner ones) counts as
/// reading them: their values are recomputed with the iteration.
fn order_dependent(model: &Model) -> Vec<bool> {
    let mut dependent = vec![false; model.defs.len()];
    for group in &model.rec_groups {
        for &d in &group.members {
            if let Some(slot) = dependent.get_mut(d) {
                *slot = true;
            }
        }
        for d in group.inner.clone() {
            if let Some(slot) = dependent.get_mut(d) {
                *slot = true;
            }
        }
    }
    loop {
        let mut changed = false;
        for (i, (_, body, _)) in model.defs.iter().enumerate() {
            if !dependent[i] && expr_reads_orders(body, &dependent) {
                dependent[i] = true;
                changed = true;
            }
        }
        if !changed {
            return dependent;
        }
    }
}

impl Reuse {
    /// The executed events it was computed on (an evaluator of another set of events
    /// cannot reuse it).
    pub fn executed(&self) -> &[EventId] {
        &self.executed
    }
}

impl Evaluator<'_, '_> {
    /// What this evaluator computed that no memory order changes, to evaluate the same
    /// execution under other orders ([`Explicit::evaluator_reusing`]).
    pub fn into_reuse(self) -> Reuse {
        let dependent = self
            .dependent
            .unwrap_or_else(|| Rc::new(order_dependent(self.model)));
        let defs = self
            .defs
            .into_iter()
            .zip(dependent.iter())
            .map(|(v, &d)| if d { None } else { v })
            .collect();
        let mut bases = self.bases;
        bases.retain(|b, _| !reads_order(*b));
        let checks = if self.checks.len() == self.model.checks.len() {
            self.checks
        } else {
            vec![None; self.model.checks.len()]
        };
        Reuse {
            executed: self.x.executed.clone(),
            dependent,
            defs,
            bases,
            checks,
        }
    }

    /// The value of `e`. `Err` only for an ill-formed model (an unknown definition, a type
    /// mismatch), which the model checker rules out.
    pub fn eval(&mut self, e: &TExpr) -> Result<Dense, String> {
        self.value(e).map(Rc::unwrap_or_clone)
    }

    /// The value of `e`, shared with the cache when `e` is a definition or a base.
    fn value(&mut self, e: &TExpr) -> Result<Rc<Dense>, String> {
        Ok(match e {
            TExpr::Base(b) => {
                let x = self.x;
                let tags = &self.model.tags;
                self.bases
                    .entry(*b)
                    .or_insert_with(|| Rc::new(x.base(*b, tags)))
                    .clone()
            }
            TExpr::Def(id) => {
                if let Some(Some(v)) = self.defs.get(*id) {
                    return Ok(v.clone());
                }
                let model = self.model;
                if let Some(group) = model.rec_group(*id) {
                    self.fixpoint(group)?;
                    return match self.defs.get(*id) {
                        Some(Some(v)) => Ok(v.clone()),
                        _ => Err(format!("definition {id} has no fixed point")),
                    };
                }
                let Some((name, body, _)) = model.defs.get(*id) else {
                    return Err(format!("definition {id} does not exist"));
                };
                let v = self
                    .value(body)
                    .map_err(|why| format!("in `{name}`: {why}"))?;
                self.defs[*id] = Some(v.clone());
                v
            }
            _ => Rc::new(self.compound(e)?),
        })
    }

    /// The value of an expression that is neither a base nor a definition.
    fn compound(&mut self, e: &TExpr) -> Result<Dense, String> {
        let m = self.x.m();
        Ok(match e {
            TExpr::Base(_) | TExpr::Def(_) => Rc::unwrap_or_clone(self.value(e)?),
            TExpr::Empty(Type::Set) => Dense::Set(BitSet::new(m)),
            TExpr::Empty(Type::Rel) => Dense::Rel(BitRel::new(m)),
            TExpr::DifferentValues(r) => {
                let r = self.value(r)?;
                let r = as_rel(&r)?;
                let x = self.x;
                let value = |i: usize| {
                    x.executed
                        .get(i)
                        .and_then(|&e| x.values.get(e).copied().flatten())
                };
                let mut out = BitRel::new(m);
                for i in 0..m {
                    for j in r.successors(i) {
                        if let (Some(a), Some(b)) = (value(i), value(j)) {
                            if a != b {
                                out.set(i, j);
                            }
                        }
                    }
                }
                Dense::Rel(out)
            }
            TExpr::Domain(r) => {
                let r = self.value(r)?;
                let r = as_rel(&r)?;
                let mut s = BitSet::new(m);
                for a in (0..m).filter(|&a| r.row(a).iter().any(|&w| w != 0)) {
                    s.set(a);
                }
                Dense::Set(s)
            }
            TExpr::Range(r) => {
                let r = self.value(r)?;
                let r = as_rel(&r)?;
                let mut s = BitSet::new(m);
                for a in 0..m {
                    for (cell, &w) in s.words.iter_mut().zip(r.row(a)) {
                        *cell |= w;
                    }
                }
                Dense::Set(s)
            }
            TExpr::Unary(op, a) => {
                let a = self.value(a)?;
                match op {
                    UnOp::Identity => {
                        let s = as_set(&a)?;
                        let mut r = BitRel::new(m);
                        for i in (0..m).filter(|&i| s.get(i)) {
                            r.set(i, i);
                        }
                        Dense::Rel(r)
                    }
                    UnOp::Inverse => Dense::Rel(as_rel(&a)?.inverse()),
                    UnOp::Plus => Dense::Rel(as_rel(&a)?.closure()),
                    UnOp::Star => Dense::Rel(
                        as_rel(&a)?
                            .closure()
                            .zip(&BitRel::identity(m), |x, y| x | y),
                    ),
                    UnOp::Opt => Dense::Rel(as_rel(&a)?.zip(&BitRel::identity(m), |x, y| x | y)),
                }
            }
            TExpr::Binary(op, a, b) => {
                let x = self.value(a)?;
                // An empty left operand empties `;`, `&`, `\` and `*` whatever the right
                // one is: it is not evaluated (under the kernel's model, most of what the
                // race flags and the RCU checks build on plain accesses and grace periods
                // when a test has none).
                if *op != BinOp::Union {
                    match &*x {
                        Dense::Set(s) if s.is_empty() => {
                            return Ok(match op {
                                BinOp::Product => Dense::Rel(BitRel::new(m)),
                                _ => Dense::Set(BitSet::new(m)),
                            })
                        }
                        Dense::Rel(r) if r.is_empty() => return Ok(Dense::Rel(BitRel::new(m))),
                        _ => {}
                    }
                }
                let y = self.value(b)?;
                let pointwise = |op: BinOp| -> Option<fn(u64, u64) -> u64> {
                    match op {
                        BinOp::Union => Some(|x, y| x | y),
                        BinOp::Inter => Some(|x, y| x & y),
                        BinOp::Diff => Some(|x, y| x & !y),
                        BinOp::Seq | BinOp::Product => None,
                    }
                };
                match (op, &*x, &*y) {
                    (BinOp::Product, Dense::Set(s), Dense::Set(t)) => {
                        let mut r = BitRel::new(m);
                        for i in (0..m).filter(|&i| s.get(i)) {
                            r.or_row(i, &t.words);
                        }
                        Dense::Rel(r)
                    }
                    (BinOp::Seq, Dense::Rel(p), Dense::Rel(q)) => Dense::Rel(p.seq(q)),
                    (&op, Dense::Set(s), Dense::Set(t)) => match pointwise(op) {
                        Some(f) => Dense::Set(BitSet {
                            words: s
                                .words
                                .iter()
                                .zip(&t.words)
                                .map(|(&x, &y)| f(x, y))
                                .collect(),
                        }),
                        None => return Err(format!("`{}` between sets", op.symbol())),
                    },
                    (&op, Dense::Rel(p), Dense::Rel(q)) => match pointwise(op) {
                        Some(f) => Dense::Rel(p.zip(q, f)),
                        None => return Err(format!("`{}` between relations", op.symbol())),
                    },
                    (op, _, _) => {
                        return Err(format!("`{}` between a set and a relation", op.symbol()))
                    }
                }
            }
        })
    }

    /// The least fixed point of a `let rec` group: herd's iteration from the empty values
    /// until a round changes nothing, on the explicit execution. A round evaluates the
    /// members in the order written, each seeing the values the members before it got in
    /// that round (herd's `fix_step`). A group whose iteration has not settled after every
    /// round the encoding could need has none: an error.
    fn fixpoint(&mut self, group: &RecGroup) -> Result<(), String> {
        let m = self.x.m();
        let model = self.model;
        for &d in &group.members {
            self.defs[d] = Some(Rc::new(match model.defs.get(d).and_then(|d| d.2) {
                Some(Type::Set) => Dense::Set(BitSet::new(m)),
                _ => Dense::Rel(BitRel::new(m)),
            }));
        }
        let k = group.members.len();
        let limit = (k * m * m + 1) * (k + 1);
        for _ in 0..=limit {
            let mut stable = true;
            for &d in &group.members {
                for i in group.inner.clone() {
                    if let Some(v) = self.defs.get_mut(i) {
                        *v = None;
                    }
                }
                let Some((_, body, _)) = model.defs.get(d) else {
                    return Err(format!("definition {d} does not exist"));
                };
                let next = self.value(body)?;
                stable &= self.defs[d].as_ref() == Some(&next);
                self.defs[d] = Some(next);
            }
            if stable {
                return Ok(());
            }
        }
        for &d in &group.members {
            self.defs[d] = None;
        }
        let names: Vec<&str> = group
            .members
            .iter()
            .filter_map(|&d| model.defs.get(d).map(|d| d.0.as_str()))
            .collect();
        Err(format!(
            "`let rec {}` does not converge",
            names.join(" and ")
        ))
    }

    /// The check's test holds on the execution (negation included): for a flag, that it
    /// is raised.
    pub fn holds(&mut self, check: &Check) -> Result<bool, String> {
        // A check that reads no order keeps its verdict for an evaluator reused under
        // other orders.
        let kept = match &self.dependent {
            Some(dependent) if !expr_reads_orders(&check.expr, dependent) => self
                .model
                .checks
                .iter()
                .position(|c| std::ptr::eq(c, check))
                .filter(|&i| i < self.checks.len()),
            _ => None,
        };
        if let Some(verdict) = kept.and_then(|i| self.checks[i]) {
            return Ok(verdict);
        }
        let verdict = self.verdict(check)?;
        if let Some(i) = kept {
            self.checks[i] = Some(verdict);
        }
        Ok(verdict)
    }

    fn verdict(&mut self, check: &Check) -> Result<bool, String> {
        let value = self.value(&check.expr)?;
        let test = match (check.kind, &*value) {
            (CheckKind::Empty, Dense::Set(s)) => s.is_empty(),
            (CheckKind::Empty, Dense::Rel(r)) => r.is_empty(),
            (CheckKind::Irreflexive, Dense::Rel(r)) => !r.reflexive(),
            (CheckKind::Acyclic, Dense::Rel(r)) => !r.closure().reflexive(),
            (kind, Dense::Set(_)) => {
                return Err(format!("`{}` of a set", kind.keyword()));
            }
        };
        Ok(test != check.negated)
    }
}
