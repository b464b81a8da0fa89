//! Acyclicity of a relation given by candidate edges: the expensive part of every model.
//!
//! Two strategies, measured against each other (see `benches/` and the README):
//! - [`AcyclicStrategy::Ranks`]: every node gets a rank, a small unsigned binary number, and
//!   every edge literal implies that its source's rank is below its target's. Acyclic iff
//!   such ranks exist. Cost: `O(edges * log nodes)` clauses.
//! - [`AcyclicStrategy::Transitive`]: a strict partial order matrix containing the edges,
//!   closed under transitivity (the paper's `order` matrix). Cost: `O(nodes^3)` clauses.
//!
//! Either way [`Order::before`] answers "can `a` come before `b` in a linear extension" as a
//! literal, which the atomicity checks use to place an event inside a block.

use std::collections::HashMap;

use super::cnf::{Bool, ClauseSink, Gates};
use crate::events::EventId;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AcyclicStrategy {
    #[default]
    Ranks,
    Transitive,
}

impl std::str::FromStr for AcyclicStrategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "ranks" => Ok(AcyclicStrategy::Ranks),
            "transitive" => Ok(AcyclicStrategy::Transitive),
            other => Err(format!(
                "unknown acyclicity strategy `{other}` (expected `ranks` or `transitive`)"
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
    Ranks(HashMap<EventId, Vec<Bool>>),
    Matrix(HashMap<(EventId, EventId), Bool>),
}

impl Order {
    /// An order over `nodes`, with no edge constrained yet.
    pub fn new<S: ClauseSink>(sink: &mut S, nodes: &[EventId], strategy: AcyclicStrategy) -> Order {
        let kind = match strategy {
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
        let result = match &self.kind {
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

    /// The rank of a node in a model, for the rank strategy.
    pub fn rank_bits(&self, node: EventId) -> Option<&[Bool]> {
        match &self.kind {
            OrderKind::Ranks(ranks) => ranks.get(&node).map(|v| v.as_slice()),
            OrderKind::Matrix(_) => None,
        }
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
