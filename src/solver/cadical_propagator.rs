//! Acyclicity enforced during CaDiCaL's search, through its external propagator
//! (feature `cadical`): the lazy orders of `encode::acyclic` register their pair literals
//! as edges ([`ClauseSink::acyclic_edge`](crate::encode::cnf::ClauseSink::acyclic_edge)),
//! and a cycle of edges assigned true becomes a clause "not all these edges" as soon as
//! CaDiCaL's trail closes it, instead of after a complete model (the lazy cycle cutting of
//! `Session::solve`, which stays in place for the other backends and as a safety net).
//!
//! Every clause added is the negation of a cycle of edges, which no acyclic assignment
//! falsifies: the propagator removes only models that cycle cutting would remove too. And
//! every complete model is checked from scratch (`cb_check_found_model`, over the values
//! CaDiCaL hands it, not the graph followed incrementally), so no cyclic model is
//! returned even if a notification were missed.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use cadical_sys::ExternalPropagator;

/// An edge of one graph, by the graph's own node numbers.
#[derive(Clone, Copy, Debug)]
struct Edge {
    graph: usize,
    from: usize,
    to: usize,
}

/// One graph: its nodes numbered densely, and the edges currently present, which are kept
/// acyclic (an edge that would close a cycle is refused, its cycle's clause returned)
/// along with a topological order of the nodes, maintained as Pearce and Kelly do ("A
/// dynamic topological sort algorithm for directed acyclic graphs", 2006): an edge that
/// agrees with the order costs nothing, and one that does not searches only the nodes
/// between its ends.
#[derive(Clone, Debug, Default)]
struct Graph {
    index: HashMap<usize, usize>,
    /// The literal of each registered edge.
    literal: HashMap<(usize, usize), i32>,
    /// Per node, among the edges present: (successor, the literal true for this edge), and
    /// (predecessor, literal).
    successors: Vec<Vec<(usize, i32)>>,
    predecessors: Vec<Vec<(usize, i32)>>,
    /// Per node: its place in a topological order of the edges present.
    place: Vec<usize>,
    /// Search state, kept between searches: a node was reached by the search numbered
    /// `stamp` when `seen` holds it, from `parent` (breadth-first searches forward).
    seen: Vec<u32>,
    parent: Vec<(usize, i32)>,
    stamp: u32,
}

impl Graph {
    fn node(&mut self, id: usize) -> usize {
        let next = self.index.len();
        let node = *self.index.entry(id).or_insert(next);
        if node == next {
            self.successors.push(Vec::new());
            self.predecessors.push(Vec::new());
            self.place.push(next);
            self.seen.push(0);
            self.parent.push((0, 0));
        }
        node
    }

    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        self.stamp
    }

    /// The nodes reachable from `start` over present edges (forward, or backward over
    /// predecessors) whose places lie within `bound`, breadth first. Forward, it stops at
    /// `target` when it reaches it and returns the literals of that shortest path instead.
    fn search(
        &mut self,
        start: usize,
        forward: bool,
        bound: std::ops::RangeInclusive<usize>,
        target: usize,
    ) -> Result<Vec<usize>, Vec<i32>> {
        let stamp = self.next_stamp();
        self.seen[start] = stamp;
        let mut reached = vec![start];
        let mut k = 0;
        while let Some(&i) = reached.get(k) {
            k += 1;
            let degree = if forward {
                self.successors[i].len()
            } else {
                self.predecessors[i].len()
            };
            for e in 0..degree {
                let (j, lit) = if forward {
                    self.successors[i][e]
                } else {
                    self.predecessors[i][e]
                };
                if self.seen[j] == stamp || !bound.contains(&self.place[j]) {
                    continue;
                }
                self.seen[j] = stamp;
                self.parent[j] = (i, lit);
                if forward && j == target {
                    let mut path = Vec::new();
                    let mut at = target;
                    while at != start {
                        let (previous, lit) = self.parent[at];
                        path.push(lit);
                        at = previous;
                    }
                    return Err(path);
                }
                reached.push(j);
            }
        }
        Ok(reached)
    }

    /// Add the edge `from -> to` of `lit`, unless it closes a cycle: then the clause
    /// forbidding the shortest such cycle, and the edge stays out.
    fn add(&mut self, from: usize, to: usize, lit: i32) -> Option<Vec<i32>> {
        let (lower, upper) = (self.place[to], self.place[from]);
        if from == to {
            return Some(vec![-lit]);
        }
        if lower > upper {
            // Already in order.
            self.insert(from, to, lit);
            return None;
        }
        // Every path `to ~> from` runs through places between the two.
        let ahead = match self.search(to, true, lower..=upper, from) {
            Ok(ahead) => ahead,
            Err(path) => {
                let mut clause: Vec<i32> = path.into_iter().map(|l| -l).collect();
                clause.push(-lit);
                return Some(clause);
            }
        };
        let Ok(behind) = self.search(from, false, lower..=upper, usize::MAX) else {
            return None;
        };
        // Reorder the nodes involved: those reaching `from` first, then those `to`
        // reaches, each group in its old order, over the same places.
        let mut places: Vec<usize> = behind
            .iter()
            .chain(&ahead)
            .map(|&n| self.place[n])
            .collect();
        places.sort_unstable();
        let mut behind = behind;
        let mut ahead = ahead;
        behind.sort_unstable_by_key(|&n| self.place[n]);
        ahead.sort_unstable_by_key(|&n| self.place[n]);
        for (node, place) in behind.into_iter().chain(ahead).zip(places) {
            self.place[node] = place;
        }
        self.insert(from, to, lit);
        None
    }

    fn insert(&mut self, from: usize, to: usize, lit: i32) {
        self.successors[from].push((to, lit));
        self.predecessors[to].push((from, lit));
    }

    fn remove(&mut self, from: usize, to: usize, lit: i32) {
        for (list, other) in [
            (&mut self.successors[from], to),
            (&mut self.predecessors[to], from),
        ] {
            if let Some(k) = list.iter().rposition(|&e| e == (other, lit)) {
                list.remove(k);
            }
        }
    }

    /// After the edge `from -> to` of `lit` was added: the edges that transitivity forces
    /// through it (`t -> from -> to` forces `t -> to`, `from -> to -> w` forces
    /// `from -> w`), each with its reason clause, the forced literal first.
    fn transitive(&self, from: usize, to: usize, lit: i32, mut force: impl FnMut([i32; 3])) {
        for &(w, next) in &self.successors[to] {
            if let Some(&implied) = self.literal.get(&(from, w)) {
                force([implied, -lit, -next]);
            }
        }
        for &(t, previous) in &self.predecessors[from] {
            if let Some(&implied) = self.literal.get(&(t, to)) {
                force([implied, -previous, -lit]);
            }
        }
    }

    /// The same nodes, without edges.
    fn without_edges(&self) -> Graph {
        let n = self.successors.len();
        Graph {
            index: HashMap::new(),
            literal: HashMap::new(),
            successors: vec![Vec::new(); n],
            predecessors: vec![Vec::new(); n],
            place: (0..n).collect(),
            seen: vec![0; n],
            parent: vec![(0, 0); n],
            stamp: 0,
        }
    }
}

/// What the propagator knows: the graphs, which literal makes which edges present, and the
/// part of CaDiCaL's trail over the edge literals.
#[derive(Debug, Default)]
pub(super) struct Acyclicity {
    graphs: Vec<Graph>,
    /// By literal code (see [`code`]): the edges present when the literal is true.
    edges: Vec<Vec<Edge>>,
    /// By CaDiCaL variable: assigned on the trail as the propagator follows it.
    assigned: Vec<bool>,
    trail: Vec<i32>,
    /// The length of `trail` when each decision level above 0 began.
    levels: Vec<usize>,
    /// Clauses waiting to be handed to CaDiCaL, and the one being handed (with the
    /// number of its literals given so far).
    pending: VecDeque<Vec<i32>>,
    handing: Option<(Vec<i32>, usize)>,
    /// Whether to propagate transitivity, not only refuse cycles.
    transitivity: bool,
    /// Literals transitivity forces, each with its reason clause (the literal first),
    /// not yet handed to CaDiCaL; emptied on backtracking.
    forced: Vec<[i32; 3]>,
    /// By literal: the reason of the literal's last propagation, and the number of
    /// its literals handed so far when CaDiCaL asks for it.
    reasons: HashMap<i32, [i32; 3]>,
    explaining: Option<(i32, usize)>,
    /// Clauses added and literals propagated, for the tests.
    pub(super) cuts: usize,
    pub(super) propagated: usize,
}

/// A literal's index in tables by literal: `2 * variable`, plus 1 when negative.
fn code(lit: i32) -> usize {
    2 * lit.unsigned_abs() as usize + usize::from(lit < 0)
}

impl Acyclicity {
    pub(super) fn new(transitivity: bool) -> Acyclicity {
        Acyclicity {
            transitivity,
            ..Acyclicity::default()
        }
    }

    pub(super) fn new_graph(&mut self) -> u32 {
        self.graphs.push(Graph::default());
        self.graphs.len() as u32 - 1
    }

    /// `lit` (a CaDiCaL literal) makes the edge `from -> to` of `graph` present. Returns
    /// whether its variable is new to the propagator (and must be observed).
    pub(super) fn add_edge(&mut self, graph: u32, lit: i32, from: usize, to: usize) -> bool {
        let graph = graph as usize;
        let from = self.graphs[graph].node(from);
        let to = self.graphs[graph].node(to);
        self.graphs[graph].literal.insert((from, to), lit);
        let var = lit.unsigned_abs() as usize;
        if self.assigned.len() <= var {
            self.assigned.resize(var + 1, false);
            self.edges.resize(2 * var + 2, Vec::new());
        }
        let new = self.edges[2 * var].is_empty() && self.edges[2 * var + 1].is_empty();
        self.edges[code(lit)].push(Edge { graph, from, to });
        new
    }

    fn assign(&mut self, lit: i32) {
        let var = lit.unsigned_abs() as usize;
        if var >= self.assigned.len() || self.assigned[var] {
            return;
        }
        self.assigned[var] = true;
        self.trail.push(lit);
        for k in 0..self.edges[code(lit)].len() {
            let Edge { graph, from, to } = self.edges[code(lit)][k];
            if let Some(cut) = self.graphs[graph].add(from, to, lit) {
                self.pending.push_back(cut);
            }
            if self.transitivity {
                let (assigned, forced) = (&self.assigned, &mut self.forced);
                self.graphs[graph].transitive(from, to, lit, |reason| {
                    if !assigned[reason[0].unsigned_abs() as usize] {
                        forced.push(reason);
                    }
                });
            }
        }
    }

    fn is_assigned(&self, lit: i32) -> bool {
        self.assigned
            .get(lit.unsigned_abs() as usize)
            .copied()
            .unwrap_or(true)
    }

    fn backtrack(&mut self, level: usize) {
        let Some(&length) = self.levels.get(level) else {
            return;
        };
        self.levels.truncate(level);
        self.forced.clear();
        while self.trail.len() > length {
            let Some(lit) = self.trail.pop() else {
                break;
            };
            self.assigned[lit.unsigned_abs() as usize] = false;
            for edge in self.edges[code(lit)].iter().rev() {
                self.graphs[edge.graph].remove(edge.from, edge.to, lit);
            }
        }
    }

    /// The clauses forbidding the cycles of a complete assignment, built from nothing but
    /// `model`.
    fn cycles_of(&self, model: &[i32]) -> Vec<Vec<i32>> {
        let mut graphs: Vec<Graph> = self.graphs.iter().map(Graph::without_edges).collect();
        let mut cuts = Vec::new();
        for &lit in model {
            for edge in self.edges.get(code(lit)).into_iter().flatten() {
                cuts.extend(graphs[edge.graph].add(edge.from, edge.to, lit));
            }
        }
        cuts
    }
}

/// The propagator CaDiCaL owns; the solver keeps a second handle on the same state to
/// register edges between solves.
pub(super) struct Propagator(pub(super) Rc<RefCell<Acyclicity>>);

impl ExternalPropagator for Propagator {
    fn notify_assignment(&mut self, lits: &[i32]) {
        let mut state = self.0.borrow_mut();
        for &lit in lits {
            state.assign(lit);
        }
    }

    fn notify_new_decision_level(&mut self) {
        let mut state = self.0.borrow_mut();
        let length = state.trail.len();
        state.levels.push(length);
    }

    fn notify_backtrack(&mut self, new_level: usize) {
        self.0.borrow_mut().backtrack(new_level);
    }

    fn cb_check_found_model(&mut self, model: &[i32]) -> bool {
        let mut state = self.0.borrow_mut();
        let cuts = state.cycles_of(model);
        let acyclic = cuts.is_empty();
        state.pending.extend(cuts);
        acyclic
    }

    fn cb_propagate(&mut self) -> i32 {
        let mut state = self.0.borrow_mut();
        // Only literals unassigned when CaDiCaL asks (it notifies every assignment first),
        // so that the reason's other literals were all assigned before the forced one.
        while let Some(reason) = state.forced.pop() {
            let lit = reason[0];
            if !state.is_assigned(lit) {
                state.reasons.insert(lit, reason);
                state.propagated += 1;
                return lit;
            }
        }
        0
    }

    fn cb_add_reason_clause_lit(&mut self, propagated: i32) -> i32 {
        let mut state = self.0.borrow_mut();
        let given = match state.explaining {
            Some((lit, given)) if lit == propagated => given,
            _ => 0,
        };
        match state.reasons.get(&propagated).and_then(|r| r.get(given)) {
            Some(&lit) => {
                state.explaining = Some((propagated, given + 1));
                lit
            }
            None => {
                state.explaining = None;
                0
            }
        }
    }

    fn cb_has_external_clause(&mut self, is_forgettable: &mut bool) -> bool {
        let mut state = self.0.borrow_mut();
        if state.handing.is_none() {
            state.handing = state.pending.pop_front().map(|clause| (clause, 0));
        }
        // As cycle cutting's clauses: kept for good.
        *is_forgettable = false;
        state.handing.is_some()
    }

    fn cb_add_external_clause_lit(&mut self) -> i32 {
        let mut state = self.0.borrow_mut();
        let Some((clause, given)) = state.handing.as_mut() else {
            return 0;
        };
        match clause.get(*given) {
            Some(&lit) => {
                *given += 1;
                lit
            }
            None => {
                state.handing = None;
                state.cuts += 1;
                0
            }
        }
    }
}
