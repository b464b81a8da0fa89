//! An execution as a Graphviz graph, drawn as herd7 draws its: the memory events of each
//! thread in a box in program order, and the `po`, `rf`, `co` and `fr` edges labelled and
//! coloured by relation; under a model that defines them, its `sw` and `hb` in herd's C11
//! colours; and, for a forbidden outcome, the cycle on which the forbidding check fails,
//! drawn in heavy lines.
//!
//! `hb` is drawn as its transitive reduction over the events shown, without the pairs
//! `po` or `sw` already draw: all of `hb` is quadratic in the events and buries the picture,
//! and the reduction keeps exactly the edges from which every `hb` pair follows. Under the
//! C11 models, where `hb = (sb | sw | lko)+`, that leaves the lock order (an unlock before
//! the next lock); a pair of `hb` that matters to a verdict (the `hb` of `hb; eco` in RC11's
//! coherence) is drawn whole, as a step of the cycle.
//!
//! The execution is kept as a petgraph graph; the DOT text comes from the small emitter
//! below rather than petgraph's, whose output format is documented as unstable: snapshots
//! and users' scripts rely on this one staying put.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use petgraph::graph::{DiGraph, NodeIndex};

use super::namer::Namer;
use crate::analysis::graph::Overlay;
use crate::events::{EventId, EventKind, Events};
use crate::program::Program;
use crate::witness::relations::Violation;
use crate::witness::Execution;

/// The relations drawn between events, in the order their edges are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Relation {
    /// Program order between consecutive memory events of a thread.
    Po,
    /// Reads-from: a write to the read that takes its value.
    Rf,
    /// Coherence: a write to the next write of its location.
    Co,
    /// From-read: a read to every write coherence-after the one it read.
    Fr,
    /// The model's synchronises-with.
    Sw,
    /// The model's happens-before (reduced, see the module's comment).
    Hb,
    /// Any other relation a violated check's cycle goes through.
    Other,
}

impl Relation {
    pub fn name(self) -> &'static str {
        match self {
            Relation::Po => "po",
            Relation::Rf => "rf",
            Relation::Co => "co",
            Relation::Fr => "fr",
            Relation::Sw => "sw",
            Relation::Hb => "hb",
            Relation::Other => "other",
        }
    }

    /// The relation a step of a violation is drawn as: `rfe` is an `rf` edge.
    fn of_step(name: &str) -> Relation {
        match name {
            "po" | "po-loc" => Relation::Po,
            "rf" | "rfe" | "rfi" => Relation::Rf,
            "co" | "coe" | "coi" => Relation::Co,
            "fr" | "fre" | "fri" => Relation::Fr,
            "sw" => Relation::Sw,
            "hb" => Relation::Hb,
            _ => Relation::Other,
        }
    }

    /// herd7's colours: po black, rf red, co blue, fr orange; its C11 configuration's sw
    /// violet-red and hb indigo.
    fn colour(self) -> &'static str {
        match self {
            Relation::Po => "black",
            Relation::Rf => "red",
            Relation::Co => "blue",
            Relation::Fr => "#ffa040",
            Relation::Sw => "violetred1",
            Relation::Hb => "indigo",
            Relation::Other => "darkgreen",
        }
    }
}

/// One drawn edge.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    pub relation: Relation,
    /// What the edge says: the relation's name, or a violation step's (`rfe`, `sb`).
    pub label: String,
    /// A step of the violated check's cycle.
    pub on_cycle: bool,
}

impl Edge {
    fn plain(relation: Relation) -> Edge {
        Edge {
            relation,
            label: relation.name().to_string(),
            on_cycle: false,
        }
    }
}

/// The executed memory events (fences included) of `execution` and the relations between
/// them, with the overlay's. Computations, controls and the like are a thread's
/// bookkeeping and are left out, as herd leaves out register operations, unless a
/// violation's cycle goes through one.
pub fn execution_graph(
    events: &Events,
    execution: &Execution,
    overlay: &Overlay,
) -> DiGraph<EventId, Edge> {
    let on_cycle: BTreeSet<EventId> = overlay
        .violation
        .iter()
        .flat_map(|v| v.steps.iter().flat_map(|s| [s.from, s.to]))
        .collect();
    let shown = |e: EventId| {
        let Some(event) = events.events.get(e) else {
            return false;
        };
        execution.feasible.get(e).copied().unwrap_or(false)
            && (event.is_memory() || event.kind == EventKind::Fence || on_cycle.contains(&e))
    };
    let mut graph = DiGraph::new();
    let mut node: Vec<Option<NodeIndex>> = vec![None; events.events.len()];
    for e in (0..events.events.len()).filter(|&e| shown(e)) {
        node[e] = Some(graph.add_node(e));
    }
    let add = |graph: &mut DiGraph<EventId, Edge>, a: EventId, b: EventId, edge: Edge| {
        if let (Some(Some(x)), Some(Some(y))) = (node.get(a), node.get(b)) {
            graph.add_edge(*x, *y, edge);
        }
    };
    for thread in &events.threads {
        let executed: Vec<EventId> = thread.iter().copied().filter(|&e| shown(e)).collect();
        for pair in executed.windows(2) {
            add(&mut graph, pair[0], pair[1], Edge::plain(Relation::Po));
        }
    }
    let mut rf = execution.rf.clone();
    rf.sort_unstable();
    for &(w, r) in &rf {
        add(&mut graph, w, r, Edge::plain(Relation::Rf));
    }
    for chain in &execution.co {
        for pair in chain.windows(2) {
            add(&mut graph, pair[0], pair[1], Edge::plain(Relation::Co));
        }
    }
    let mut fr: Vec<(EventId, EventId)> = Vec::new();
    for &(w, r) in &rf {
        if let Some(chain) = execution.co.iter().find(|c| c.contains(&w)) {
            let later = chain.iter().skip_while(|&&x| x != w).skip(1);
            fr.extend(later.filter(|&&x| x != r).map(|&x| (r, x)));
        }
    }
    fr.sort_unstable();
    fr.dedup();
    for (r, w) in fr {
        add(&mut graph, r, w, Edge::plain(Relation::Fr));
    }
    let sw: BTreeSet<(EventId, EventId)> = overlay
        .sw
        .iter()
        .copied()
        .filter(|&(a, b)| shown(a) && shown(b))
        .collect();
    for &(a, b) in &sw {
        add(&mut graph, a, b, Edge::plain(Relation::Sw));
    }
    let is_init = |e: EventId| events.events[e].kind == EventKind::Init;
    let hb: BTreeSet<(EventId, EventId)> = overlay
        .hb
        .iter()
        .copied()
        .filter(|&(a, b)| shown(a) && shown(b) && !is_init(a) && !is_init(b))
        .collect();
    let middles: BTreeSet<EventId> = hb.iter().map(|&(a, _)| a).collect();
    for &(a, b) in &hb {
        let implied = middles
            .iter()
            .any(|&c| hb.contains(&(a, c)) && hb.contains(&(c, b)));
        if !implied && !events.po(a, b) && !sw.contains(&(a, b)) {
            add(&mut graph, a, b, Edge::plain(Relation::Hb));
        }
    }
    if let Some(violation) = &overlay.violation {
        for step in &violation.steps {
            let relation = Relation::of_step(&step.relation);
            let drawn = drawn_path(&graph, step.from, step.to, relation);
            if drawn.is_empty() {
                let edge = Edge {
                    relation,
                    label: step.relation.clone(),
                    on_cycle: true,
                };
                add(&mut graph, step.from, step.to, edge);
            }
            for i in drawn {
                graph[i].on_cycle = true;
                if drawn_path_is_one_edge(&graph, i, step.from, step.to) {
                    graph[i].label.clone_from(&step.relation);
                }
            }
        }
    }
    graph
}

/// The drawn edges of `relation` that make the step from `a` to `b`: the edge itself, or,
/// for a `po` or `co` step over events in between, the edges through them (a cycle takes
/// the shortest way, both being transitive; the picture draws them step by step).
fn drawn_path(
    graph: &DiGraph<EventId, Edge>,
    a: EventId,
    b: EventId,
    relation: Relation,
) -> Vec<petgraph::graph::EdgeIndex> {
    let out_edge = |from: EventId, to: Option<EventId>| {
        graph.edge_indices().find(|&i| {
            graph.edge_endpoints(i).is_some_and(|(x, y)| {
                graph[x] == from
                    && to.is_none_or(|to| graph[y] == to)
                    && graph[i].relation == relation
            })
        })
    };
    if let Some(i) = out_edge(a, Some(b)) {
        return vec![i];
    }
    if !matches!(relation, Relation::Po | Relation::Co) {
        return Vec::new();
    }
    let mut path = Vec::new();
    let mut at = a;
    while at != b {
        // Each event has at most one successor drawn in program order, and each write at
        // most one in coherence. A user's model may name its own relation `po` or `co`,
        // whose edges need not form such a chain: give up rather than walk in circles.
        if path.len() >= graph.edge_count() {
            return Vec::new();
        }
        let Some(i) = out_edge(at, None) else {
            return Vec::new();
        };
        path.push(i);
        at = graph.edge_endpoints(i).map_or(b, |(_, y)| graph[y]);
    }
    path
}

fn drawn_path_is_one_edge(
    graph: &DiGraph<EventId, Edge>,
    i: petgraph::graph::EdgeIndex,
    a: EventId,
    b: EventId,
) -> bool {
    graph
        .edge_endpoints(i)
        .is_some_and(|(x, y)| graph[x] == a && graph[y] == b)
}

/// How a violation reads in a caption: `forbidden by sc: cycle po;fr;po;fr`.
pub fn violation_caption(violation: &Violation) -> String {
    let mut caption = format!("forbidden by {}", violation.check);
    if !violation.steps.is_empty() {
        let shape = if violation.is_cycle() { "cycle " } else { "" };
        let _ = write!(caption, ": {shape}{}", violation.relations());
    }
    caption
}

/// A violation's steps by event number: `3 -po-> 4 -fr-> 5 -po-> 6 -fr-> 3`.
pub fn violation_path(namer: &Namer, violation: &Violation) -> String {
    let mut path = String::new();
    for (i, step) in violation.steps.iter().enumerate() {
        if i == 0 {
            let _ = write!(path, "{}", namer.number(step.from));
        }
        let _ = write!(path, " -{}-> {}", step.relation, namer.number(step.to));
    }
    path
}

/// Quote a string for DOT.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The DOT text of `execution`: a cluster per thread (the initial writes in their own),
/// events by their number and label as in `nemos events`, edges in a fixed order.
pub fn execution_dot(
    program: &Program,
    events: &Events,
    execution: &Execution,
    overlay: &Overlay,
    title: &str,
) -> String {
    let namer = Namer::new(program, events);
    let graph = execution_graph(events, execution, overlay);
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quoted(&program.name));
    let _ = writeln!(out, "  label={};", quoted(title));
    out.push_str("  labelloc=t;\n  node [shape=none, fontsize=12];\n  edge [fontsize=10];\n");
    let by_event: std::collections::BTreeMap<EventId, NodeIndex> =
        graph.node_indices().map(|n| (graph[n], n)).collect();
    let node_line = |out: &mut String, e: EventId| {
        let label = format!(
            "{}: {}",
            namer.number(e),
            namer.label(&events.events[e]).split_once(": ").map_or_else(
                || namer.label(&events.events[e]),
                |(_, body)| body.to_string()
            )
        );
        let value = execution.values.get(e).copied().flatten();
        let label = match (events.events[e].is_read(), value) {
            (true, Some(v)) => format!("{label} ({v})"),
            _ => label,
        };
        let _ = writeln!(out, "    e{} [label={}];", namer.number(e), quoted(&label));
    };
    let inits: Vec<EventId> = events
        .init
        .iter()
        .flatten()
        .copied()
        .filter(|e| by_event.contains_key(e))
        .collect();
    if !inits.is_empty() {
        out.push_str("  subgraph cluster_init {\n    label=\"init\";\n    style=dashed;\n");
        for &e in &inits {
            node_line(&mut out, e);
        }
        out.push_str("  }\n");
    }
    for (t, thread) in events.threads.iter().enumerate() {
        let _ = writeln!(
            out,
            "  subgraph cluster_{t} {{\n    label={};",
            quoted(&program.thread_name(t))
        );
        for &e in thread.iter().filter(|e| by_event.contains_key(e)) {
            node_line(&mut out, e);
        }
        out.push_str("  }\n");
    }
    let mut edges: Vec<(Relation, EventId, EventId, &Edge)> = graph
        .edge_indices()
        .filter_map(|i| {
            let (a, b) = graph.edge_endpoints(i)?;
            Some((graph[i].relation, graph[a], graph[b], &graph[i]))
        })
        .collect();
    edges.sort_unstable();
    for (relation, a, b, edge) in edges {
        let _ = writeln!(
            out,
            "  e{} -> e{} [label={}, color={}, fontcolor={}{}];",
            namer.number(a),
            namer.number(b),
            quoted(&edge.label),
            quoted(relation.colour()),
            quoted(relation.colour()),
            if edge.on_cycle { ", penwidth=3" } else { "" }
        );
    }
    out.push_str("}\n");
    out
}
