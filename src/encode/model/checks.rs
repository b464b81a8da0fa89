//! The checks (`acyclic`, `irreflexive`, `empty`) and the closures they read.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::closure::closure;
use super::eval::{sequence, union};
use super::{holds_base, Chains, Compiler, Mask, Val};
use crate::cat::ast::{BinOp, CheckKind, UnOp};
use crate::cat::{Base, TExpr};
use crate::encode::acyclic::Order;
use crate::encode::cnf::{Bool, ClauseSink, Gates};
use crate::encode::relation::Relation;
use crate::events::EventId;

impl Compiler<'_, '_> {
    /// Constrain: `selector -> (check holds)`.
    pub(super) fn require<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        kind: CheckKind,
        negated: bool,
        expr: &TExpr,
        selector: Bool,
    ) {
        // `r+` has a cycle iff `r` has one, and `irreflexive r+` says exactly that.
        let closure_of = match expr {
            TExpr::Unary(UnOp::Plus, inner) => Some(&**inner),
            _ => None,
        };
        match (kind, negated, closure_of) {
            (CheckKind::Acyclic, false, inner)
            | (CheckKind::Irreflexive, false, inner @ Some(_)) => {
                let e = inner.unwrap_or(expr);
                let (chains, rest, mask) = self.acyclic_plan(sink, e);
                let r = match rest {
                    Some(rest) => self.rel(sink, &rest, Some(&mask)),
                    None => super::eval::SharedRel::empty(),
                };
                self.acyclic(sink, &r, selector, chains);
            }
            (_, false, _) => {
                // Emptiness (of the relation, or of its diagonal): one short clause per
                // member rather than a gate over all of them.
                for member in self.members(sink, kind, expr) {
                    sink.clause(&[!selector, !member]);
                }
            }
            (_, true, _) => {
                let nonempty = self.test(sink, kind, true, expr);
                sink.clause(&[!selector, nonempty]);
            }
        }
    }

    /// A literal for "the test holds" (`negated`: for "the test fails"), for `empty` and
    /// `irreflexive`; flags use it directly.
    pub(super) fn test<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        kind: CheckKind,
        negated: bool,
        expr: &TExpr,
    ) -> Bool {
        let members = self.members(sink, kind, expr);
        let nonempty = sink.or(&members);
        if negated {
            nonempty
        } else {
            !nonempty
        }
    }

    /// What must be absent for the test to hold: the members of the set or relation for
    /// `empty`, the diagonal for `irreflexive`.
    fn members<S: ClauseSink>(&mut self, sink: &mut S, kind: CheckKind, expr: &TExpr) -> Vec<Bool> {
        let mask = self.members_mask(sink, kind, expr);
        match (kind, self.eval(sink, expr, mask.as_ref()).as_ref()) {
            (CheckKind::Empty, Val::Set(s)) => s.clone(),
            (CheckKind::Empty, Val::Rel(r)) => r.iter().map(|(_, _, l)| l).collect(),
            (_, Val::Rel(r)) => r
                .iter()
                .filter(|&(a, b, _)| a == b)
                .map(|(_, _, l)| l)
                .collect(),
            // The checker gives acyclic and irreflexive relations only.
            (_, Val::Set(_)) => Vec::new(),
        }
    }

    /// `e` is a union one of whose operands is the base relation `base`, so `e` contains it.
    pub(super) fn contains_base(&self, e: &TExpr, base: Base) -> bool {
        holds_base(self.model, e, base)
    }

    /// `e` without its union operands in `strip` (looked through definitions); `None` when
    /// nothing is left.
    pub(super) fn strip_union(&self, e: &TExpr, strip: &[Base]) -> Option<TExpr> {
        match e {
            TExpr::Base(b) if strip.contains(b) => None,
            TExpr::Def(id) if strip.iter().any(|&b| self.contains_base(e, b)) => {
                let (_, body, _) = self.model.defs.get(*id)?;
                self.strip_union(body, strip)
            }
            TExpr::Binary(BinOp::Union, a, b) => {
                match (self.strip_union(a, strip), self.strip_union(b, strip)) {
                    (Some(a), Some(b)) => {
                        Some(TExpr::Binary(BinOp::Union, Box::new(a), Box::new(b)))
                    }
                    (rest, None) | (None, rest) => rest,
                }
            }
            _ => Some(e.clone()),
        }
    }

    /// `selector -> r acyclic`, with the rank (or transitive) order of `acyclic.rs`.
    ///
    /// When `r` contains program order (`chains`), its program-order edges are replaced by
    /// unconditional constraints between consecutive events of each thread (of each
    /// location, for `po-loc`), as the hand-written SC encoding does. Sound because an
    /// acyclic `r` that contains `po` between executed events stays acyclic with `po`
    /// between all events: an event that does not execute has no other edge, and can be
    /// placed right after the last executed event before it in its thread (of its location).
    fn acyclic<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        r: &Relation,
        selector: Bool,
        chains: Chains,
    ) {
        let mut edges: Vec<(EventId, EventId, Bool)> = Vec::new();
        for (a, b, l) in r.iter() {
            if a == b {
                sink.clause(&[!selector, !l]);
            } else {
                edges.push((a, b, l));
            }
        }
        let events = self.enc.events;
        let same_chain = |a: EventId, b: EventId| match chains {
            Chains::None => false,
            Chains::Po => true,
            Chains::PoLoc => {
                let (x, y) = (&events.events[a], &events.events[b]);
                x.is_located() && y.is_located() && x.location == y.location
            }
        };
        // The chains' edges were not built (see `require`): for the nodes that may lie on a
        // cycle, consecutive members of each chain reach what the whole relation does.
        let mut candidate_edges = edges.clone();
        if chains != Chains::None {
            for thread in &events.threads {
                let members: Vec<EventId> = match chains {
                    Chains::PoLoc => thread
                        .iter()
                        .copied()
                        .filter(|&e| events.events[e].is_located())
                        .collect(),
                    _ => thread.clone(),
                };
                let mut last: HashMap<Option<usize>, EventId> = HashMap::new();
                for &b in &members {
                    let key = match chains {
                        Chains::PoLoc => events.events[b].location,
                        _ => None,
                    };
                    if let Some(a) = last.insert(key, b) {
                        candidate_edges.push((a, b, Bool::TRUE));
                    }
                }
            }
        }
        let nodes = cycle_candidates(&candidate_edges);
        edges.retain(|(a, b, _)| nodes.contains(a) && nodes.contains(b));
        edges.retain(|&(a, b, _)| !(events.po(a, b) && same_chain(a, b)));
        let mut chain_pairs = Vec::new();
        if chains != Chains::None {
            for thread in &events.threads {
                let members: Vec<EventId> = thread
                    .iter()
                    .copied()
                    .filter(|e| nodes.contains(e))
                    .collect();
                for (i, &a) in members.iter().enumerate() {
                    // The next member of the same chain.
                    if let Some(&b) = members[i + 1..].iter().find(|&&b| same_chain(a, b)) {
                        chain_pairs.push((a, b));
                    }
                }
            }
        }
        let redundant = implied_constant_edges(&edges);
        let mut ordered: Vec<EventId> = nodes.into_iter().collect();
        ordered.sort_unstable();
        if ordered.is_empty() {
            return;
        }
        let mut order = Order::new(sink, &ordered, self.strategy);
        for &(a, b) in &chain_pairs {
            let before = order.before(sink, a, b);
            sink.clause(&[!selector, before]);
        }
        for (a, b, l) in edges {
            if redundant.contains(&(a, b)) {
                continue;
            }
            let before = order.before(sink, a, b);
            sink.clause(&[!selector, !l, before]);
        }
        order.close_over_chains(sink, &chain_pairs, &|e| events.events[e].thread, selector);
        self.orders.push(order);
    }

    /// The closure `e` of `inner` on the pairs `wanted`.
    pub(super) fn closure_of<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        e: &TExpr,
        inner: &TExpr,
        wanted: &Mask,
    ) -> Relation {
        let needed = self.closure_mask(sink, e, inner, Some(wanted));
        if self.contains_base(inner, Base::Po) {
            return match self.closure_operand(inner) {
                Some(rest) => self.closure_over_po(sink, &rest, &needed, wanted),
                None => self.pairwise_rel(sink, Base::Po, Some(wanted)),
            };
        }
        let r = self.rel(sink, inner, Some(&needed));
        closure(sink, &r, Some(wanted))
    }

    /// For a closure of `inner` that contains `po`: `inner` without it (`None` when nothing
    /// is left, or when `inner` does not contain `po`, see `closure_of`).
    pub(super) fn closure_operand(&self, inner: &TExpr) -> Option<TExpr> {
        if self.contains_base(inner, Base::Po) {
            self.strip_union(inner, &[Base::Po])
        } else {
            None
        }
    }

    /// `(po | rest)+` on the pairs `wanted`, reading `rest` on the pairs `needed`.
    ///
    /// Squaring the whole relation costs a gate per path of two edges, and program order
    /// alone has `n^3 / 6` of them per thread. But program order between executed events
    /// is transitive, so a path is a program-order step or leaves its first thread at the
    /// source of a `rest` edge: `(po | B)+ = po | po?; B; (po?; B)*; po?`. The inner
    /// closure only relates sources of `B` (few: initial writes, releases, unlocks), and
    /// `po?` on either side costs one gate per pair. A pair ordered by program order is in
    /// the closure exactly when both events execute (every relation relates executed events
    /// only): no gate at all.
    fn closure_over_po<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        rest: &TExpr,
        needed: &Mask,
        wanted: &Mask,
    ) -> Relation {
        let enc = self.enc;
        let events = enc.events;
        let fb = &enc.feasible;
        let b = self.rel(sink, rest, Some(needed));
        let mut sources: Vec<EventId> = b.iter().map(|(s, _, _)| s).collect();
        sources.dedup();
        // One step from source to source: a `B` edge, then program order (or nothing).
        // The edge implies that its target executes, so `po(t, s)` adds only `fb(s)`.
        let mut ways: BTreeMap<(EventId, EventId), Vec<Bool>> = BTreeMap::new();
        for (s, t, l) in b.iter() {
            for &next in &sources {
                if next == t {
                    ways.entry((s, next)).or_default().push(l);
                } else if events.po(t, next) {
                    let v = sink.and2(l, fb[next]);
                    ways.entry((s, next)).or_default().push(v);
                }
            }
        }
        let mut step = Relation::new();
        for ((s, next), w) in ways {
            let v = sink.or(&w);
            step.set(s, next, v);
        }
        // From a source, through any number of steps, and one last `B` edge.
        let steps = closure(sink, &step, None);
        let further = sequence(sink, &steps, &b, None);
        let reach = union(sink, &b, &further);
        // `leave(a, t)`: a path from `a` to `t` that starts in `a`'s thread with
        // `po?` and ends with a `B` edge into `t`.
        let mut leave: HashMap<(EventId, EventId), Bool> = HashMap::new();
        let mut leave_of = |sink: &mut S, a: EventId, t: EventId| -> Bool {
            if let Some(&l) = leave.get(&(a, t)) {
                return l;
            }
            let later: Vec<Bool> = sources
                .iter()
                .filter(|&&s| events.po(a, s))
                .map(|&s| reach.get(s, t))
                .collect();
            let any = sink.or(&later);
            let from_later = sink.and2(fb[a], any);
            let l = sink.or2(reach.get(a, t), from_later);
            leave.insert((a, t), l);
            l
        };
        let mut out = Relation::new();
        for (a, c) in wanted.iter() {
            if events.po(a, c) {
                let l = self.pair(sink, a, c);
                out.set(a, c, l);
                continue;
            }
            let direct = leave_of(sink, a, c);
            let earlier: Vec<EventId> = match events.events[c].thread {
                Some(th) => events.threads[th]
                    .iter()
                    .copied()
                    .take_while(|&t| t != c)
                    .collect(),
                None => Vec::new(),
            };
            let through: Vec<Bool> = earlier.iter().map(|&t| leave_of(sink, a, t)).collect();
            let any = sink.or(&through);
            let via = sink.and2(fb[c], any);
            let l = sink.or2(direct, via);
            out.set(a, c, l);
        }
        out
    }
}

/// The nodes that may lie on a cycle: repeatedly drop nodes without a possible incoming or
/// outgoing edge among the remaining ones. A node is dropped once, and each edge counted
/// down once at either end (rounds over every edge took one per link of a long chain).
fn cycle_candidates(edges: &[(EventId, EventId, Bool)]) -> HashSet<EventId> {
    let mut ins: HashMap<EventId, usize> = HashMap::new();
    let mut outs: HashMap<EventId, usize> = HashMap::new();
    let mut succ: HashMap<EventId, Vec<EventId>> = HashMap::new();
    let mut pred: HashMap<EventId, Vec<EventId>> = HashMap::new();
    for &(a, b, _) in edges {
        *outs.entry(a).or_insert(0) += 1;
        *ins.entry(b).or_insert(0) += 1;
        outs.entry(b).or_insert(0);
        ins.entry(a).or_insert(0);
        succ.entry(a).or_default().push(b);
        pred.entry(b).or_default().push(a);
    }
    let mut nodes: HashSet<EventId> = ins.keys().copied().collect();
    let mut drop: Vec<EventId> = nodes
        .iter()
        .filter(|n| ins[*n] == 0 || outs[*n] == 0)
        .copied()
        .collect();
    while let Some(n) = drop.pop() {
        if !nodes.remove(&n) {
            continue;
        }
        for b in succ.get(&n).into_iter().flatten() {
            if let Some(d) = ins.get_mut(b) {
                *d -= 1;
                if *d == 0 && nodes.contains(b) {
                    drop.push(*b);
                }
            }
        }
        for a in pred.get(&n).into_iter().flatten() {
            if let Some(d) = outs.get_mut(a) {
                *d -= 1;
                if *d == 0 && nodes.contains(a) {
                    drop.push(*a);
                }
            }
        }
    }
    nodes
}

/// Constant-true edges `a -> b` with a constant-true path `a -> c -> b`: any strict order
/// containing the other two contains this one. Only sound when the constant edges are
/// acyclic (the transitive reduction of a DAG keeps its closure), so nothing is dropped
/// otherwise.
fn implied_constant_edges(edges: &[(EventId, EventId, Bool)]) -> HashSet<(EventId, EventId)> {
    let mut succ: HashMap<EventId, HashSet<EventId>> = HashMap::new();
    for &(a, b, l) in edges {
        if l.is_true() {
            succ.entry(a).or_default().insert(b);
        }
    }
    if has_cycle(&succ) {
        return HashSet::new();
    }
    let mut implied = HashSet::new();
    for (&a, targets) in &succ {
        for &b in targets {
            if targets
                .iter()
                .any(|&c| c != b && succ.get(&c).is_some_and(|s| s.contains(&b)))
            {
                implied.insert((a, b));
            }
        }
    }
    implied
}

fn has_cycle(succ: &HashMap<EventId, HashSet<EventId>>) -> bool {
    let mut indegree: HashMap<EventId, usize> = HashMap::new();
    for (&a, targets) in succ {
        indegree.entry(a).or_insert(0);
        for &b in targets {
            *indegree.entry(b).or_insert(0) += 1;
        }
    }
    let mut ready: Vec<EventId> = indegree
        .iter()
        .filter(|(_, &d)| d == 0)
        .map(|(&n, _)| n)
        .collect();
    let mut seen = 0;
    while let Some(n) = ready.pop() {
        seen += 1;
        for &b in succ.get(&n).into_iter().flatten() {
            if let Some(d) = indegree.get_mut(&b) {
                *d -= 1;
                if *d == 0 {
                    ready.push(b);
                }
            }
        }
    }
    seen < indegree.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, round by round over every edge.
    fn by_rounds(edges: &[(EventId, EventId, Bool)]) -> HashSet<EventId> {
        let mut nodes: HashSet<EventId> = edges.iter().flat_map(|&(a, b, _)| [a, b]).collect();
        loop {
            let live = |n: &EventId, nodes: &HashSet<EventId>| {
                let inside = |&&(a, b, _): &&(EventId, EventId, Bool)| {
                    nodes.contains(&a) && nodes.contains(&b)
                };
                edges.iter().filter(inside).any(|e| e.1 == *n)
                    && edges.iter().filter(inside).any(|e| e.0 == *n)
            };
            let keep: HashSet<EventId> =
                nodes.iter().filter(|n| live(n, &nodes)).copied().collect();
            if keep.len() == nodes.len() {
                return nodes;
            }
            nodes = keep;
        }
    }

    #[test]
    fn cycle_candidates_are_what_dropping_by_rounds_leaves() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m) as usize
        };
        for _ in 0..200 {
            let n = 1 + next(12) as u64;
            let edges: Vec<_> = (0..next(30))
                .map(|_| (next(n), next(n), Bool::TRUE))
                .collect();
            assert_eq!(cycle_candidates(&edges), by_rounds(&edges), "{edges:?}");
        }
        // A chain into a cycle: only the cycle stays.
        let chain: Vec<_> = (0..50)
            .map(|i| (i, i + 1, Bool::TRUE))
            .chain([(50, 48, Bool::TRUE)])
            .collect();
        let expected: HashSet<EventId> = [48, 49, 50].into();
        assert_eq!(cycle_candidates(&chain), expected);
    }
}
