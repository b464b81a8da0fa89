//! Acyclicity of a relation given by candidate edges: the expensive part of every model.
//!
//! Three strategies, measured against each other (see `benches/` and the README):
//! - [`AcyclicStrategy::Lazy`] (default): one literal per pair of nodes that some constraint
//!   mentions, read as "a before b" (its negation is "b before a"), and every edge literal
//!   implies its pair literal. Transitivity is not stated up front: after each satisfying
//!   assignment the true pair literals are checked for a cycle, each cycle found is
//!   forbidden by a clause, and the solver runs again (incremental cycle cutting). The
//!   edges imply binary clauses the solver propagates directly, and the clauses a run adds
//!   are the few transitivity facts it needed.
//! - [`AcyclicStrategy::Ranks`]: every node gets a rank, a small unsigned binary number, and
//!   every edge literal implies that its source's rank is below its target's. Acyclic iff
//!   such ranks exist. Cost: `O(edges * log nodes)` clauses, but comparators propagate
//!   poorly: total orders with many candidates (locks) are slow to find.
//! - [`AcyclicStrategy::Transitive`]: a strict partial order matrix containing the edges,
//!   closed under transitivity (the paper's `order` matrix). Cost: `O(nodes^3)` clauses.
//!
//! Either way [`Order::before`] answers "can `a` come before `b` in a linear extension" as a
//! literal, which the atomicity checks use to place an event inside a block.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use super::cnf::{Bool, ClauseSink, Gates, Lit};
use crate::events::EventId;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AcyclicStrategy {
    #[default]
    Lazy,
    Ranks,
    Transitive,
}

impl std::str::FromStr for AcyclicStrategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "lazy" => Ok(AcyclicStrategy::Lazy),
            "ranks" => Ok(AcyclicStrategy::Ranks),
            "transitive" => Ok(AcyclicStrategy::Transitive),
            other => Err(format!(
                "unknown acyclicity strategy `{other}` (expected `lazy`, `ranks` or `transitive`)"
            )),
        }
    }
}

/// A strict order over some nodes that contains the constrained edges.
#[derive(Clone, Debug)]
pub struct Order {
    kind: OrderKind,
    /// Comparator literals already built, by pair.
    cache: HashMap<(EventId, EventId), Bool>,
}

#[derive(Clone, Debug)]
enum OrderKind {
    Lazy {
        nodes: Vec<EventId>,
        /// For `a < b` (by id): the literal "a before b".
        pairs: HashMap<(EventId, EventId), Lit>,
        /// The sink's number for this order when it keeps the pair literals acyclic
        /// itself, during search ([`ClauseSink::acyclic_graph`]).
        graph: Option<u32>,
    },
    Ranks(HashMap<EventId, Vec<Bool>>),
    Matrix(HashMap<(EventId, EventId), Bool>),
}

impl Order {
    /// An order over `nodes`, with no edge constrained yet.
    pub fn new<S: ClauseSink>(sink: &mut S, nodes: &[EventId], strategy: AcyclicStrategy) -> Order {
        let kind = match strategy {
            AcyclicStrategy::Lazy => {
                let mut nodes = nodes.to_vec();
                nodes.sort_unstable();
                nodes.dedup();
                OrderKind::Lazy {
                    nodes,
                    pairs: HashMap::new(),
                    graph: sink.acyclic_graph(),
                }
            }
            AcyclicStrategy::Ranks => {
                let width = bits_for(nodes.len());
                let ranks = nodes
                    .iter()
                    .map(|&n| (n, (0..width).map(|_| Bool::Lit(sink.new_lit())).collect()))
                    .collect();
                OrderKind::Ranks(ranks)
            }
            AcyclicStrategy::Transitive => {
                let mut matrix = HashMap::new();
                for &a in nodes {
                    for &b in nodes {
                        if a != b {
                            matrix.insert((a, b), Bool::Lit(sink.new_lit()));
                        }
                    }
                }
                for &a in nodes {
                    for &b in nodes {
                        if a == b {
                            continue;
                        }
                        // Antisymmetry (implied by transitivity plus irreflexivity, but
                        // stating it helps the solver).
                        sink.implies(matrix[&(a, b)], !matrix[&(b, a)]);
                        for &c in nodes {
                            if c == a || c == b {
                                continue;
                            }
                            let ab = matrix[&(a, b)];
                            let bc = matrix[&(b, c)];
                            let ac = matrix[&(a, c)];
                            sink.clause(&[!ab, !bc, ac]);
                        }
                    }
                }
                OrderKind::Matrix(matrix)
            }
        };
        Order {
            kind,
            cache: HashMap::new(),
        }
    }

    /// A literal that, when true, places `a` strictly before `b`. Nodes outside the order
    /// (such as initial writes, which precede everything) answer by that convention.
    pub fn before<S: ClauseSink>(&mut self, sink: &mut S, a: EventId, b: EventId) -> Bool {
        if a == b {
            return Bool::FALSE;
        }
        if let Some(&known) = self.cache.get(&(a, b)) {
            return known;
        }
        let result = match &mut self.kind {
            OrderKind::Lazy {
                nodes,
                pairs,
                graph,
            } => {
                match (
                    nodes.binary_search(&a).is_ok(),
                    nodes.binary_search(&b).is_ok(),
                ) {
                    (true, true) => {
                        let key = (a.min(b), a.max(b));
                        let lit = *pairs.entry(key).or_insert_with(|| {
                            let lit = sink.new_lit();
                            if let Some(graph) = *graph {
                                sink.acyclic_edge(graph, lit, key.0, key.1);
                                sink.acyclic_edge(graph, !lit, key.1, key.0);
                            }
                            lit
                        });
                        if a < b {
                            Bool::Lit(lit)
                        } else {
                            !Bool::Lit(lit)
                        }
                    }
                    (false, true) => Bool::TRUE,
                    _ => Bool::FALSE,
                }
            }
            OrderKind::Ranks(ranks) => match (ranks.get(&a), ranks.get(&b)) {
                (Some(ra), Some(rb)) => less_than(sink, ra, rb),
                (None, Some(_)) => Bool::TRUE,
                _ => Bool::FALSE,
            },
            OrderKind::Matrix(matrix) => match matrix.get(&(a, b)) {
                Some(&lit) => lit,
                None if matrix.keys().any(|&(x, _)| x == b) => Bool::TRUE,
                None => Bool::FALSE,
            },
        };
        self.cache.insert((a, b), result);
        result
    }

    /// Require `edge -> a before b`.
    pub fn constrain<S: ClauseSink>(&mut self, sink: &mut S, a: EventId, b: EventId, edge: Bool) {
        if edge.is_false() {
            return;
        }
        let before = self.before(sink, a, b);
        sink.implies(edge, before);
    }

    /// Lazy only: program order made transitive against the pairs already in the order.
    /// `links` are consecutive members of chains (one thread's events, ordered under
    /// `enabled`); call this after every edge is constrained. For a node `x` of another
    /// thread, take the members of a chain that `x` has a pair literal with, in chain order:
    /// for each two next to each other, `m1 -> m2`, `x before m1` implies `x before m2`, and
    /// so `m2 before x` implies `m1 before x`.
    ///
    /// Every linear order with the chains in it satisfies these clauses; stating them up
    /// front turns a cycle through two threads into a conflict of unit propagation, and
    /// leaves cycle cutting the cycles through three threads or more. No literal is added,
    /// and at most one clause per pair (binary once `enabled` holds). On `T` threads of `M`
    /// locked increments most cuts were two-thread cycles: the first witness of `races`
    /// takes 12 rounds instead of 74 at 4 x 10, and 23 rounds (1.7 s) instead of 272
    /// (40 s) at 4 x 25.
    pub fn close_over_chains<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        links: &[(EventId, EventId)],
        thread_of: &dyn Fn(EventId) -> Option<usize>,
        enabled: Bool,
    ) {
        let OrderKind::Lazy { pairs, .. } = &self.kind else {
            return;
        };
        let mut partners: HashMap<EventId, Vec<EventId>> = HashMap::new();
        for &(a, b) in pairs.keys() {
            partners.entry(a).or_default().push(b);
            partners.entry(b).or_default().push(a);
        }
        let next: HashMap<EventId, EventId> = links.iter().copied().collect();
        let linked_to: HashSet<EventId> = links.iter().map(|&(_, d)| d).collect();
        let mut clauses = Vec::new();
        for &(start, _) in links.iter().filter(|(c, _)| !linked_to.contains(c)) {
            let mut chain = vec![start];
            while let Some(&following) = chain.last().and_then(|last| next.get(last)) {
                chain.push(following);
            }
            let chain_thread = thread_of(start);
            let mut members_of: BTreeMap<EventId, Vec<EventId>> = BTreeMap::new();
            for &member in &chain {
                for &x in partners.get(&member).into_iter().flatten() {
                    if thread_of(x) != chain_thread {
                        members_of.entry(x).or_default().push(member);
                    }
                }
            }
            for (x, members) in members_of {
                for pair in members.windows(2) {
                    clauses.push((x, pair[0], pair[1]));
                }
            }
        }
        for (x, m1, m2) in clauses {
            let x_before_m1 = self.before(sink, x, m1);
            let x_before_m2 = self.before(sink, x, m2);
            sink.clause(&[!enabled, !x_before_m1, x_before_m2]);
        }
    }

    /// Lazy only: the pair literals built so far, each as `(a, b, "a before b")` with
    /// `a < b` by id, sorted. Tied to a serial order of the threads, they fix the order to
    /// one linear extension (`Session::check`'s sequential guess).
    pub fn pair_literals(&self) -> Vec<(EventId, EventId, Lit)> {
        let OrderKind::Lazy { pairs, .. } = &self.kind else {
            return Vec::new();
        };
        let mut all: Vec<(EventId, EventId, Lit)> =
            pairs.iter().map(|(&(a, b), &lit)| (a, b, lit)).collect();
        // The map's order is not stable across runs; the solver's answer should be.
        all.sort_unstable_by_key(|&(a, b, _)| (a, b));
        all
    }

    /// Each node's place in the order a model gives it (0 first), when the strategy keeps one
    /// (the transitive matrix does not).
    pub fn positions(&self, value: &dyn Fn(Bool) -> bool) -> Option<HashMap<EventId, u64>> {
        match &self.kind {
            OrderKind::Ranks(ranks) => Some(
                ranks
                    .iter()
                    .map(|(&node, bits)| {
                        let rank = bits
                            .iter()
                            .enumerate()
                            .filter(|(_, &b)| value(b))
                            .fold(0u64, |acc, (i, _)| acc | (1 << i));
                        (node, rank)
                    })
                    .collect(),
            ),
            OrderKind::Lazy { nodes, pairs, .. } => {
                let graph = PairGraph::new(nodes, pairs, value);
                let order = graph.topological_order()?;
                Some(
                    order
                        .into_iter()
                        .enumerate()
                        .map(|(place, i)| (nodes[i], place as u64))
                        .collect(),
                )
            }
            OrderKind::Matrix(_) => None,
        }
    }

    /// For the lazy strategy: clauses forbidding cycles among the pair literals true in a
    /// model (empty when they form a strict order, and always for the other strategies,
    /// which state transitivity up front).
    pub fn cycle_cuts(&self, value: &dyn Fn(Bool) -> bool) -> Vec<Vec<Bool>> {
        let OrderKind::Lazy { nodes, pairs, .. } = &self.kind else {
            return Vec::new();
        };
        let graph = PairGraph::new(nodes, pairs, value);
        graph.short_cycles(MAX_CUTS_PER_ROUND)
    }
}

/// Cycles forbidden per round of cycle cutting. Each round is a solver call, and a large
/// order (4 threads of 25 locked increments: 400 events) can show hundreds of independent
/// cycles at once: the first witness of `races` there takes 23 rounds (1.7 s) with this
/// limit, 185 rounds (13.4 s) with a limit of 64. Small tests never reach the limit.
const MAX_CUTS_PER_ROUND: usize = 1024;

/// The directed graph of the pair literals true in a model.
struct PairGraph {
    /// Per node index: (successor index, the literal that is true for this edge).
    successors: Vec<Vec<(usize, Bool)>>,
}

impl PairGraph {
    fn new(
        nodes: &[EventId],
        pairs: &HashMap<(EventId, EventId), Lit>,
        value: &dyn Fn(Bool) -> bool,
    ) -> PairGraph {
        let index = |e: EventId| nodes.binary_search(&e).ok();
        let mut successors = vec![Vec::new(); nodes.len()];
        for (&(a, b), &lit) in pairs {
            let (Some(ia), Some(ib)) = (index(a), index(b)) else {
                continue;
            };
            let forward = Bool::Lit(lit);
            if value(forward) {
                successors[ia].push((ib, forward));
            } else {
                successors[ib].push((ia, !forward));
            }
        }
        for list in &mut successors {
            list.sort_by_key(|&(j, _)| j);
        }
        PairGraph { successors }
    }

    /// Kahn's algorithm; `None` when there is a cycle. Ties go to the lowest index, so the
    /// order is stable across runs.
    fn topological_order(&self) -> Option<Vec<usize>> {
        let n = self.successors.len();
        let mut indegree = vec![0usize; n];
        for list in &self.successors {
            for &(j, _) in list {
                indegree[j] += 1;
            }
        }
        let mut ready: std::collections::BTreeSet<usize> =
            (0..n).filter(|&i| indegree[i] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(i) = ready.pop_first() {
            order.push(i);
            for &(j, _) in &self.successors[i] {
                indegree[j] -= 1;
                if indegree[j] == 0 {
                    ready.insert(j);
                }
            }
        }
        (order.len() == n).then_some(order)
    }

    /// Up to `limit` short cycles, each as the clause "not all of its edges": for nodes left
    /// over by Kahn's algorithm (on or behind a cycle), the shortest cycle through them by
    /// breadth-first search.
    fn short_cycles(&self, limit: usize) -> Vec<Vec<Bool>> {
        let n = self.successors.len();
        let mut indegree = vec![0usize; n];
        for list in &self.successors {
            for &(j, _) in list {
                indegree[j] += 1;
            }
        }
        let mut queue: VecDeque<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
        let mut removed = vec![false; n];
        while let Some(i) = queue.pop_front() {
            removed[i] = true;
            for &(j, _) in &self.successors[i] {
                indegree[j] -= 1;
                if indegree[j] == 0 {
                    queue.push_back(j);
                }
            }
        }
        let mut cuts: Vec<Vec<Bool>> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for start in (0..n).filter(|&i| !removed[i]) {
            if cuts.len() >= limit {
                break;
            }
            if let Some(cycle) = self.shortest_cycle_through(start, &removed) {
                let mut key: Vec<Lit> = cycle
                    .iter()
                    .filter_map(|b| match b {
                        Bool::Lit(l) => Some(*l),
                        Bool::Const(_) => None,
                    })
                    .collect();
                key.sort();
                if seen.insert(key) {
                    cuts.push(cycle.into_iter().map(|edge| !edge).collect());
                }
            }
        }
        cuts
    }

    /// The edge literals of a shortest cycle through `start`, within the nodes not removed.
    fn shortest_cycle_through(&self, start: usize, removed: &[bool]) -> Option<Vec<Bool>> {
        let n = self.successors.len();
        let mut parent: Vec<Option<(usize, Bool)>> = vec![None; n];
        let mut queue = VecDeque::new();
        let mut visited = vec![false; n];
        visited[start] = true;
        queue.push_back(start);
        while let Some(i) = queue.pop_front() {
            for &(j, edge) in &self.successors[i] {
                if removed[j] {
                    continue;
                }
                if j == start {
                    let mut cycle = vec![edge];
                    let mut at = i;
                    while at != start {
                        let (previous, e) = parent[at]?;
                        cycle.push(e);
                        at = previous;
                    }
                    return Some(cycle);
                }
                if !visited[j] {
                    visited[j] = true;
                    parent[j] = Some((i, edge));
                    queue.push_back(j);
                }
            }
        }
        None
    }
}

fn bits_for(n: usize) -> usize {
    let mut width = 1;
    while (1usize << width) < n.max(2) {
        width += 1;
    }
    width
}

/// `a < b` for unsigned numbers given most significant bit last.
pub fn less_than<S: ClauseSink>(sink: &mut S, a: &[Bool], b: &[Bool]) -> Bool {
    // From the least significant bit up: lt_i = (!a_i & b_i) | (a_i == b_i & lt_{i-1}).
    let mut lt = Bool::FALSE;
    for (&ai, &bi) in a.iter().zip(b) {
        let strictly = sink.and2(!ai, bi);
        let equal = sink.iff(ai, bi);
        let carried = sink.and2(equal, lt);
        lt = sink.or2(strictly, carried);
    }
    lt
}
