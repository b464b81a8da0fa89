//! A model's relations on one execution, for pictures and explanations: the pairs of a
//! named relation (`sw`, `hb`), and the cycle (or pair) on which a failing check fails,
//! spelled out in relations a reader knows (`po`, `rf`, `co`, `fr`, `sw`, `hb`).
//!
//! Everything is computed by [`super::eval`] on the one execution; the cycle search runs
//! on a petgraph graph of the failing relation.

use std::collections::VecDeque;

use petgraph::graph::{DiGraph, NodeIndex};
use serde::Serialize;

use crate::cat::ast::{BinOp, CheckKind, UnOp};
use crate::cat::{Base, Model, TExpr};
use crate::events::EventId;

use super::eval::{Evaluator, Explicit};

/// Definitions kept whole when a failing relation is spelled out, because pictures draw
/// them as edges of their own: spelling `sw` out would lose the synchronisation it names.
const DRAWN_DEFINITIONS: [&str; 2] = ["sw", "hb"];

/// One step of a violation: `from` is related to `to` by `relation`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    pub from: EventId,
    pub to: EventId,
    /// A base relation (`po`, `rfe`, `fr`, ...), a drawn definition (`sw`, `hb`), or the
    /// definition a step could not be spelled out below (`sb` for an initial write).
    pub relation: String,
}

/// Why one check of the model fails on an execution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// The check's name.
    pub check: String,
    #[serde(skip)]
    pub kind: CheckKind,
    /// For `acyclic` and `irreflexive`, a cycle (the last step ends where the first
    /// starts); for `empty`, a path for the first pair of the relation. Empty when the
    /// check is negated (`~empty`): nothing to point at.
    pub steps: Vec<Step>,
}

impl Violation {
    /// A cycle (`acyclic`, `irreflexive`) rather than a single offending pair.
    pub fn is_cycle(&self) -> bool {
        self.kind != CheckKind::Empty
    }

    /// The relations of the steps in order, herd's way: `po;fr;po;fr`.
    pub fn relations(&self) -> String {
        self.steps
            .iter()
            .map(|s| s.relation.as_str())
            .collect::<Vec<_>>()
            .join(";")
    }
}

/// The pairs of the model's definition `name` on the execution, if the model has one.
pub fn named_pairs(
    explicit: &Explicit,
    model: &Model,
    name: &str,
) -> Result<Option<Vec<(EventId, EventId)>>, String> {
    let Some(id) = model.defs.iter().rposition(|(n, _, _)| n == name) else {
        return Ok(None);
    };
    let mut evaluator = explicit.evaluator(model);
    let value = evaluator.eval(&TExpr::Def(id))?;
    Ok(Some(explicit.pairs(&value)))
}

/// How the first failing check named `check` fails on the execution, or `None` when every
/// check of that name holds. `Err` only for an ill-formed model.
pub fn violation(
    explicit: &Explicit,
    model: &Model,
    check: &str,
) -> Result<Option<Violation>, String> {
    let mut evaluator = explicit.evaluator(model);
    for c in model
        .checks
        .iter()
        .filter(|c| !c.flag && c.name.as_deref() == Some(check))
    {
        if evaluator.holds(c)? {
            continue;
        }
        let mut speller = Speller {
            explicit,
            model,
            evaluator: explicit.evaluator(model),
        };
        let steps = if c.negated {
            Vec::new()
        } else {
            let value = evaluator.eval(&c.expr)?;
            match c.kind {
                CheckKind::Acyclic => {
                    let cycle = shortest_cycle(&explicit.pairs(&value));
                    let mut steps = Vec::new();
                    for (i, &a) in cycle.iter().enumerate() {
                        let b = cycle[(i + 1) % cycle.len()];
                        steps.extend(speller.steps(&c.expr, a, b, check)?);
                    }
                    steps
                }
                CheckKind::Irreflexive => {
                    match explicit.pairs(&value).into_iter().find(|(a, b)| a == b) {
                        Some((a, _)) => speller.steps(&c.expr, a, a, check)?,
                        None => Vec::new(),
                    }
                }
                CheckKind::Empty => match explicit.pairs(&value).first() {
                    Some(&(a, b)) => speller.steps(&c.expr, a, b, check)?,
                    None => Vec::new(),
                },
            }
        };
        return Ok(Some(Violation {
            check: check.to_string(),
            kind: c.kind,
            steps: merge_runs(rotate_to_lowest(steps, c.kind), c.kind, explicit, model)?,
        }));
    }
    Ok(None)
}

/// Consecutive steps of one relation joined into one where the relation holds between the
/// ends (`po;po` is `po`, and `hb;hb` is `hb` in the C11 models): the cycle then reads as
/// the check's own shape rather than as the path a closure happened to take.
fn merge_runs(
    steps: Vec<Step>,
    kind: CheckKind,
    explicit: &Explicit,
    model: &Model,
) -> Result<Vec<Step>, String> {
    let mut evaluator = explicit.evaluator(model);
    let mut joins = |first: &Step, second: &Step| -> Result<bool, String> {
        if first.relation != second.relation || first.to != second.from || first.from == second.to {
            return Ok(false);
        }
        let expr = match first.relation.as_str() {
            "po" => Some(TExpr::Base(Base::Po)),
            "co" => Some(TExpr::Base(Base::Co)),
            name => model
                .defs
                .iter()
                .rposition(|(n, _, _)| n == name)
                .map(TExpr::Def),
        };
        let Some(expr) = expr else {
            return Ok(false);
        };
        let value = evaluator.eval(&expr)?;
        Ok(explicit.related(&value, first.from, second.to))
    };
    let mut merged: Vec<Step> = Vec::new();
    for step in steps {
        match merged.last_mut() {
            Some(last) if joins(last, &step)? => last.to = step.to,
            _ => merged.push(step),
        }
    }
    // Around the cycle: its last step may continue into its first.
    if kind != CheckKind::Empty && merged.len() > 2 && joins(&merged[merged.len() - 1], &merged[0])?
    {
        if let Some(last) = merged.pop() {
            merged[0].from = last.from;
        }
    }
    Ok(merged)
}

/// A cycle read from any of its events; started at the lowest-numbered one so that the
/// same cycle always prints the same way.
fn rotate_to_lowest(mut steps: Vec<Step>, kind: CheckKind) -> Vec<Step> {
    if kind != CheckKind::Empty {
        if let Some(start) = (0..steps.len()).min_by_key(|&i| steps[i].from) {
            steps.rotate_left(start);
        }
    }
    steps
}

/// The shortest cycle of the relation (its events in order), found in the strongly
/// connected components petgraph computes: a cycle lies within one, and a breadth-first
/// search from each of its events back to itself finds the shortest through that event.
/// Ties go to the cycle with the lowest events, for stable output. Empty when acyclic.
fn shortest_cycle(pairs: &[(EventId, EventId)]) -> Vec<EventId> {
    let mut graph: DiGraph<EventId, ()> = DiGraph::new();
    let mut node_of = std::collections::BTreeMap::new();
    for &(a, b) in pairs {
        for e in [a, b] {
            node_of.entry(e).or_insert_with(|| graph.add_node(e));
        }
    }
    for &(a, b) in pairs {
        graph.add_edge(node_of[&a], node_of[&b], ());
    }
    let mut best: Option<Vec<EventId>> = None;
    for component in petgraph::algo::tarjan_scc(&graph) {
        let inside = |n: NodeIndex| component.contains(&n);
        for &start in &component {
            let Some(cycle) = cycle_through(&graph, start, &inside) else {
                continue;
            };
            let mut events: Vec<EventId> = cycle.iter().map(|&n| graph[n]).collect();
            let lowest = (0..events.len()).min_by_key(|&i| events[i]).unwrap_or(0);
            events.rotate_left(lowest);
            let better = best
                .as_ref()
                .is_none_or(|b| (events.len(), &events) < (b.len(), b));
            if better {
                best = Some(events);
            }
        }
    }
    best.unwrap_or_default()
}

/// The shortest cycle through `start` within the component, by breadth-first search.
fn cycle_through(
    graph: &DiGraph<EventId, ()>,
    start: NodeIndex,
    inside: &dyn Fn(NodeIndex) -> bool,
) -> Option<Vec<NodeIndex>> {
    let mut parent: std::collections::HashMap<NodeIndex, NodeIndex> = Default::default();
    let mut queue = VecDeque::from([start]);
    while let Some(n) = queue.pop_front() {
        let mut next: Vec<NodeIndex> = graph.neighbors(n).filter(|&m| inside(m)).collect();
        next.sort_by_key(|&m| graph[m]);
        for m in next {
            if m == start {
                let mut cycle = vec![n];
                let mut at = n;
                while at != start {
                    at = parent[&at];
                    cycle.push(at);
                }
                cycle.reverse();
                return Some(cycle);
            }
            if let std::collections::hash_map::Entry::Vacant(slot) = parent.entry(m) {
                slot.insert(n);
                queue.push_back(m);
            }
        }
    }
    None
}

/// Spells a pair of a relation out as steps of the relations it is built from.
struct Speller<'m, 'a> {
    explicit: &'m Explicit<'a>,
    model: &'m Model,
    evaluator: Evaluator<'m, 'a>,
}

impl Speller<'_, '_> {
    fn related(&mut self, e: &TExpr, a: EventId, b: EventId) -> Result<bool, String> {
        let value = self.evaluator.eval(e)?;
        Ok(self.explicit.related(&value, a, b))
    }

    /// Steps from `a` to `b` (a pair of `e`), in the base relations and drawn definitions
    /// `e` is made of; `context` names the nearest definition, for the parts that are not
    /// relations between events of their own (a product, an inverse of a path).
    fn steps(
        &mut self,
        e: &TExpr,
        a: EventId,
        b: EventId,
        context: &str,
    ) -> Result<Vec<Step>, String> {
        let step = |relation: &str| {
            vec![Step {
                from: a,
                to: b,
                relation: relation.to_string(),
            }]
        };
        Ok(match e {
            TExpr::Base(Base::Id) => Vec::new(),
            TExpr::Base(base) => step(base_name(*base).unwrap_or(context)),
            TExpr::Def(id) => {
                let model = self.model;
                let Some((name, body, _)) = model.defs.get(*id) else {
                    return Err(format!("definition {id} does not exist"));
                };
                // A recursive definition is one step: its body names itself.
                if DRAWN_DEFINITIONS.contains(&name.as_str()) || model.rec_group(*id).is_some() {
                    step(name)
                } else {
                    self.steps(body, a, b, name)?
                }
            }
            TExpr::Binary(BinOp::Union, x, y) => {
                if self.related(x, a, b)? {
                    self.steps(x, a, b, context)?
                } else {
                    self.steps(y, a, b, context)?
                }
            }
            // The pair is in the first operand; the second only restricts it.
            TExpr::Binary(BinOp::Inter | BinOp::Diff, x, _) | TExpr::DifferentValues(x) => {
                self.steps(x, a, b, context)?
            }
            TExpr::Binary(BinOp::Seq, x, y) => {
                let (first, second) = (self.evaluator.eval(x)?, self.evaluator.eval(y)?);
                let explicit = self.explicit;
                let found =
                    explicit.executed().iter().copied().find(|&c| {
                        explicit.related(&first, a, c) && explicit.related(&second, c, b)
                    });
                let Some(c) = found else {
                    return Err("a sequence pair without a middle event".into());
                };
                let mut steps = self.steps(x, a, c, context)?;
                steps.extend(self.steps(y, c, b, context)?);
                steps
            }
            TExpr::Binary(BinOp::Product, _, _) => step(context),
            TExpr::Unary(UnOp::Identity, _) => Vec::new(),
            TExpr::Unary(UnOp::Inverse, x) => {
                let inner = self.steps(x, b, a, context)?;
                match inner.as_slice() {
                    [one] => step(&format!("{}^-1", one.relation)),
                    _ => step(context),
                }
            }
            TExpr::Unary(UnOp::Opt | UnOp::Star, _) if a == b => Vec::new(),
            TExpr::Unary(UnOp::Opt, x) => self.steps(x, a, b, context)?,
            TExpr::Unary(UnOp::Plus | UnOp::Star, x) => {
                let path = self.path(x, a, b)?;
                let mut steps = Vec::new();
                for pair in path.windows(2) {
                    steps.extend(self.steps(x, pair[0], pair[1], context)?);
                }
                steps
            }
            TExpr::Empty(_) | TExpr::Domain(_) | TExpr::Range(_) => {
                return Err("a pair of a set or of the empty relation".into())
            }
        })
    }

    /// The shortest path from `a` to `b` of at least one step of `e`, by breadth-first
    /// search over the executed events.
    fn path(&mut self, e: &TExpr, a: EventId, b: EventId) -> Result<Vec<EventId>, String> {
        let value = self.evaluator.eval(e)?;
        let pairs = self.explicit.pairs(&value);
        let mut parent: std::collections::HashMap<EventId, EventId> = Default::default();
        let mut queue = VecDeque::from([a]);
        while let Some(n) = queue.pop_front() {
            for &(_, m) in pairs.iter().filter(|(x, _)| *x == n) {
                if m == b {
                    let mut path = vec![b, n];
                    let mut at = n;
                    while at != a {
                        at = parent[&at];
                        path.push(at);
                    }
                    path.reverse();
                    return Ok(path);
                }
                if m != a && !parent.contains_key(&m) {
                    parent.insert(m, n);
                    queue.push_back(m);
                }
            }
        }
        Err("a closure pair without a path".into())
    }
}

/// herd's name of a base relation; `None` for a set.
fn base_name(base: Base) -> Option<&'static str> {
    Some(match base {
        Base::Po => "po",
        Base::PoLoc => "po-loc",
        Base::Rf => "rf",
        Base::Rfe => "rfe",
        Base::Rfi => "rfi",
        Base::Co => "co",
        Base::Coe => "coe",
        Base::Coi => "coi",
        Base::Fr => "fr",
        Base::Fre => "fre",
        Base::Fri => "fri",
        Base::Lko => "lko",
        Base::Tc => "tc",
        Base::Tj => "tj",
        Base::Rmw => "rmw",
        Base::Loc => "loc",
        Base::Int => "int",
        Base::Ext => "ext",
        Base::Id => "id",
        Base::Addr => "addr",
        Base::Data => "data",
        Base::Ctrl => "ctrl",
        Base::All
        | Base::R
        | Base::W
        | Base::F
        | Base::M
        | Base::IW
        | Base::X
        | Base::Rlx
        | Base::Acq
        | Base::Rel
        | Base::AcqRel
        | Base::Sc
        | Base::Na
        | Base::A
        | Base::Lkr
        | Base::Lkw
        | Base::Ul
        | Base::Tag(_) => return None,
    })
}
