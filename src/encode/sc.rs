//! Sequential consistency written by hand (the Nemos/DefectFinder paper, Appendix A).
//!
//! The axiomatic form of Shasha and Snir: an execution is SC iff `po | rf | co | fr` is
//! acyclic, and read-modify-writes are atomic (no write of the location falls between the
//! write an RMW reads from and the RMW's own write: `rmw & (fr ; co)` is empty). A witness
//! interleaving is any linear extension of `po | rf | co | fr`.
//!
//! The models the queries use are compiled from `models/*.cat` (`encode::model`); this
//! hand-written encoding stays as the yardstick the compiled `sc.cat` is measured against
//! (`benches/models.rs`, `tests/it/models.rs`). [`interleaving_order`] is the SC order the
//! atomicity queries ask where events fall in.

use super::acyclic::{AcyclicStrategy, Order};
use super::cnf::{Bool, ClauseSink, Gates};
use super::Encoding;
use crate::events::{EventId, EventKind};

/// The named checks of SC, each guarded by a selector literal so that it can be switched off
/// (the what-if analysis) or named in an unsat core.
#[derive(Clone, Debug)]
pub struct ScChecks {
    /// The order all events take; use it to ask where events fall.
    pub order: Order,
    /// The selectors of the `sc` and `atomic` checks: constant false when skipped.
    pub sc: Bool,
    pub atomic: Bool,
}

pub const CHECK_SC: &str = "sc";
pub const CHECK_ATOMIC: &str = "atomic";

/// Add SC's axioms. `enabled(name)` gives the literal under which a check holds: constant
/// true for an always-on check, a selector literal for a switchable one, constant false for a
/// skipped one.
pub fn encode<S: ClauseSink>(
    sink: &mut S,
    enc: &Encoding,
    strategy: AcyclicStrategy,
    enabled: &mut dyn FnMut(&mut S, &str) -> Bool,
) -> ScChecks {
    let mut order = Order::new(sink, &thread_events(enc), strategy);
    let sc = enabled(sink, CHECK_SC);
    if !sc.is_false() {
        constrain_sc_edges(sink, enc, &mut order, sc);
    }
    let atomic = enabled(sink, CHECK_ATOMIC);
    if !atomic.is_false() {
        rmw_atomicity(sink, enc, atomic);
    }
    ScChecks { order, sc, atomic }
}

/// `rmw & (fr ; co)` is empty: if the read half of an RMW is `fr`-before some other write,
/// the write half is `co`-before it too.
pub fn rmw_atomicity<S: ClauseSink>(sink: &mut S, enc: &Encoding, enabled: Bool) {
    for read in enc.events.reads() {
        let Some(write) = read.rmw else { continue };
        for (w2, fr) in enc.fr.successors(read.id) {
            if w2 == write {
                continue;
            }
            let co = enc.co.get(write, w2);
            sink.clause(&[!enabled, !fr, !enc.feasible[write], co]);
        }
    }
}

/// `enabled -> ` the order extends `po | rf | co | fr` over non-initial events.
fn constrain_sc_edges<S: ClauseSink>(
    sink: &mut S,
    enc: &Encoding,
    order: &mut Order,
    enabled: Bool,
) {
    let events = enc.events;
    // Program order: consecutive events of each thread suffice.
    let mut links = Vec::new();
    for thread in &events.threads {
        for pair in thread.windows(2) {
            order.constrain(sink, pair[0], pair[1], enabled);
            links.push((pair[0], pair[1]));
        }
    }
    for relation in [&enc.rf, &enc.co, &enc.fr, &enc.lko] {
        for (a, b, lit) in relation.iter() {
            if events.events[a].kind == EventKind::Init {
                continue;
            }
            let edge = sink.and2(enabled, lit);
            order.constrain(sink, a, b, edge);
        }
    }
    order.close_over_chains(sink, &links, &|e| events.events[e].thread, enabled);
}

/// An order over the non-initial events that extends `po | rf | co | fr`, as hard
/// constraints: only executions with an SC interleaving remain, and the order is one.
pub fn interleaving_order<S: ClauseSink>(
    sink: &mut S,
    enc: &Encoding,
    strategy: AcyclicStrategy,
) -> Order {
    let mut order = Order::new(sink, &thread_events(enc), strategy);
    constrain_sc_edges(sink, enc, &mut order, Bool::TRUE);
    order
}

/// The events an SC order places: all but the initial writes, which precede everything.
fn thread_events(enc: &Encoding) -> Vec<EventId> {
    enc.events
        .events
        .iter()
        .filter(|e| e.kind != EventKind::Init)
        .map(|e| e.id)
        .collect()
}
