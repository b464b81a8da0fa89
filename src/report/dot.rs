//! An execution as a Graphviz graph, drawn as herd7 draws its: the memory events of each
//! thread in a box in program order, and the `po`, `rf`, `co` and `fr` edges labelled and
//! coloured by relation.
//!
//! The execution is kept as a petgraph graph; the DOT text comes from the small emitter
//! below rather than petgraph's, whose output format is documented as unstable: snapshots
//! and users' scripts rely on this one staying put.

use std::fmt::Write as _;

use petgraph::graph::{DiGraph, NodeIndex};

use crate::events::display::Namer;
use crate::events::{EventId, EventKind, Events};
use crate::program::Program;
use crate::witness::Execution;

/// The relations drawn between events.
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
}

impl Relation {
    pub fn name(self) -> &'static str {
        match self {
            Relation::Po => "po",
            Relation::Rf => "rf",
            Relation::Co => "co",
            Relation::Fr => "fr",
        }
    }

    /// herd7's colours: po black, rf red, co blue, fr orange.
    fn colour(self) -> &'static str {
        match self {
            Relation::Po => "black",
            Relation::Rf => "red",
            Relation::Co => "blue",
            Relation::Fr => "#ffa040",
        }
    }
}

/// The executed memory events (fences included) of `execution` and the relations between
/// them. Computations, controls and the like are a thread's bookkeeping and are left out,
/// as herd leaves out register operations.
pub fn execution_graph(events: &Events, execution: &Execution) -> DiGraph<EventId, Relation> {
    let shown = |e: EventId| {
        let event = &events.events[e];
        execution.feasible.get(e).copied().unwrap_or(false)
            && (event.is_memory() || event.kind == EventKind::Fence)
    };
    let mut graph = DiGraph::new();
    let mut node: Vec<Option<NodeIndex>> = vec![None; events.events.len()];
    for e in (0..events.events.len()).filter(|&e| shown(e)) {
        node[e] = Some(graph.add_node(e));
    }
    let add = |graph: &mut DiGraph<EventId, Relation>, a: EventId, b: EventId, r| {
        if let (Some(Some(x)), Some(Some(y))) = (node.get(a), node.get(b)) {
            graph.add_edge(*x, *y, r);
        }
    };
    for thread in &events.threads {
        let executed: Vec<EventId> = thread.iter().copied().filter(|&e| shown(e)).collect();
        for pair in executed.windows(2) {
            add(&mut graph, pair[0], pair[1], Relation::Po);
        }
    }
    let mut rf = execution.rf.clone();
    rf.sort_unstable();
    for &(w, r) in &rf {
        add(&mut graph, w, r, Relation::Rf);
    }
    for chain in &execution.co {
        for pair in chain.windows(2) {
            add(&mut graph, pair[0], pair[1], Relation::Co);
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
        add(&mut graph, r, w, Relation::Fr);
    }
    graph
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
    title: &str,
) -> String {
    let namer = Namer::new(program, events);
    let graph = execution_graph(events, execution);
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
    let mut edges: Vec<(Relation, EventId, EventId)> = graph
        .edge_indices()
        .filter_map(|i| {
            let (a, b) = graph.edge_endpoints(i)?;
            Some((graph[i], graph[a], graph[b]))
        })
        .collect();
    edges.sort_unstable();
    for (relation, a, b) in edges {
        let _ = writeln!(
            out,
            "  e{} -> e{} [label={}, color={}, fontcolor={}];",
            namer.number(a),
            namer.number(b),
            quoted(relation.name()),
            quoted(relation.colour()),
            quoted(relation.colour())
        );
    }
    out.push_str("}\n");
    out
}
