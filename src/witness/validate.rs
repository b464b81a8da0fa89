//! Re-validation of a decoded witness on the concrete execution, before anyone sees it.
//!
//! The SAT encoding is large and easy to get subtly wrong; a wrong encoding produces a wrong
//! verdict with a plausible witness. Every witness is therefore re-checked here against the
//! definitions themselves, evaluated on explicit relations and values, sharing nothing with
//! the encoding but the literals that say which events ran, `rf` and `co`:
//! - `rf`: each executed read reads from exactly one executed write of its location, and a
//!   lock acquisition reads 0;
//! - values: where the encoding has a value for an executed event, the model's value is the
//!   one the execution computes (a read's is the value of the write it reads from);
//! - `co`: per location a strict total order of the executed writes, the initial write first;
//! - control flow: the executed events are exactly those whose guards hold when the control
//!   conditions are evaluated on the values the reads return;
//! - the model: every check of the model in force holds and every flag is what the solver
//!   said ([`validate_model`], evaluated by `eval.rs`), and `po | rf | co | fr` is acyclic
//!   when a query asked for SC interleavings;
//! - the reported final state, failed assertions and bound hit are what the execution
//!   computes.

use std::collections::HashSet;

use petgraph::algo::is_cyclic_directed;
use petgraph::graph::DiGraph;

use super::eval::Explicit;
use super::Execution;
use crate::cat::{Check, Model};
use crate::encode::cnf::{Bool, Lit};
use crate::encode::model::CompiledModel;
use crate::encode::Encoding;
use crate::events::{EventId, EventKind, Guard, WaitOn};
use crate::program::Observable;

/// Which of the model's checks the witness must satisfy (a skipped check is not required).
#[derive(Clone, Copy, Debug)]
pub struct ModelChecks {
    /// `po | rf | co | fr` is acyclic. (Every other check of the model, RMW atomicity
    /// included, is evaluated from the model itself by [`validate_model`].)
    pub sc: bool,
}

/// `Err(what)` names the first property the witness violates.
pub fn validate(
    enc: &Encoding,
    truth: &dyn Fn(Bool) -> bool,
    execution: &Execution,
    checks: ModelChecks,
) -> Result<(), String> {
    let events = enc.events;
    let n = events.len();
    if execution.feasible.len() != n || execution.values.len() != n {
        return Err("its shape (one entry per event)".into());
    }
    let source = check_rf(enc, execution)?;
    check_co(enc, truth, execution)?;
    let values_known = check_values(enc, truth, execution, checks)?;
    let read_value = |e: EventId| execution.values[e].unwrap_or(0);
    let control_values = control_values(enc, &read_value);
    let control_holds = |c: usize| control_values[c];
    let guard_holds = |g: &Guard| {
        g.0.iter()
            .all(|&(c, polarity)| control_holds(c) == polarity)
    };
    // Without the SC check values may be defined only through a cycle: nothing to evaluate.
    if values_known {
        check_control_flow(enc, truth, execution, &control_holds, &guard_holds)?;
    }
    check_locks(enc, execution)?;
    if checks.sc {
        check_sc(enc, execution, &source)?;
    }
    if values_known {
        computed_results(enc, execution, &read_value, &guard_holds, &control_holds)?;
    }
    Ok(())
}

/// rf: exactly one executed source of the read's location per executed read. Returns each
/// read's source.
fn check_rf(enc: &Encoding, execution: &Execution) -> Result<Vec<Option<EventId>>, String> {
    let events = enc.events;
    let executed = |e: EventId| execution.feasible[e];
    let mut source: Vec<Option<EventId>> = vec![None; events.len()];
    for &(w, r) in &execution.rf {
        let (ew, er) = (&events.events[w], &events.events[r]);
        if !ew.is_write() || !er.is_read() {
            return Err(format!(
                "rf: event {} -> {} is not write -> read",
                w + 1,
                r + 1
            ));
        }
        if ew.location != er.location {
            return Err(format!(
                "rf: {} and {} access different locations",
                w + 1,
                r + 1
            ));
        }
        if !executed(w) || !executed(r) {
            return Err(format!(
                "rf: {} -> {} involves an event that did not run",
                w + 1,
                r + 1
            ));
        }
        if source[r].replace(w).is_some() {
            return Err(format!("rf: read {} reads from two writes", r + 1));
        }
    }
    for e in events.reads() {
        if executed(e.id) && source[e.id].is_none() {
            return Err(format!("rf: read {} reads from no write", e.id + 1));
        }
    }
    Ok(source)
}

/// co: per location, the executed writes exactly once each, the initial write first, and
/// the model's co literals a strict total order that agrees with the list.
fn check_co(
    enc: &Encoding,
    truth: &dyn Fn(Bool) -> bool,
    execution: &Execution,
) -> Result<(), String> {
    let events = enc.events;
    let executed = |e: EventId| execution.feasible[e];
    if execution.co.len() != events.init.len() {
        return Err("co: one order per location".into());
    }
    for (loc, chain) in execution.co.iter().enumerate() {
        let expected: HashSet<EventId> = events
            .writes()
            .filter(|w| w.location == Some(loc) && executed(w.id))
            .map(|w| w.id)
            .collect();
        let listed: HashSet<EventId> = chain.iter().copied().collect();
        if listed.len() != chain.len() || listed != expected {
            return Err(format!(
                "co: the order of location {loc} lists other writes than ran"
            ));
        }
        if chain.first().copied() != events.init[loc] {
            return Err(format!(
                "co: the initial write of location {loc} is not first"
            ));
        }
        for (i, &a) in chain.iter().enumerate() {
            for (j, &b) in chain.iter().enumerate() {
                if i == j {
                    continue;
                }
                // The initial write precedes everything by convention, not by a literal.
                let holds = if Some(a) == events.init[loc] {
                    true
                } else if Some(b) == events.init[loc] {
                    false
                } else if enc.sliced[loc] {
                    // No literals: the decoder chose the order along the interleaving.
                    i < j
                } else if enc.mutexes[loc] {
                    // A mutex has no co literals: its order is the lock order, which
                    // relates a release to a later acquisition (whose write half `b` is).
                    match events.events[b].rmw {
                        Some(k)
                            if events.events[a].kind == EventKind::Unlock
                                && events.events[a].thread != events.events[b].thread =>
                        {
                            truth(enc.lko.get(a, k))
                        }
                        _ => i < j,
                    }
                } else {
                    truth(enc.co.get(a, b))
                };
                if holds != (i < j) {
                    return Err(format!(
                        "co: the model's coherence order of location {loc} is not a strict total order ({} and {})",
                        a + 1,
                        b + 1
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Values: computed along rf by the decoder; every executed memory access must have one
/// (a cycle through data is impossible when the SC check holds). A control may lack one:
/// a loop's exit condition mentions reads of iterations that did not run, under an `&&`
/// whose value does not depend on them. Returns whether every executed access has one;
/// only then are they checked.
fn check_values(
    enc: &Encoding,
    truth: &dyn Fn(Bool) -> bool,
    execution: &Execution,
    checks: ModelChecks,
) -> Result<bool, String> {
    let events = enc.events;
    let executed = |e: EventId| execution.feasible[e];
    let value = |e: EventId| execution.values[e];
    let mut values_known = true;
    for e in 0..events.len() {
        if executed(e) && events.events[e].is_memory() && value(e).is_none() {
            if checks.sc {
                return Err(format!(
                    "values: event {} has no value (cyclic data flow)",
                    e + 1
                ));
            }
            values_known = false;
        }
    }
    if values_known {
        check_model_values(enc, truth, execution)?;
        check_values_along_rf(enc, execution)?;
    }
    Ok(values_known)
}

/// The values the model itself gives (where the encoding needed one) are the values the
/// execution computes: a read's is its write's, a write's or computation's its term's.
fn check_model_values(
    enc: &Encoding,
    truth: &dyn Fn(Bool) -> bool,
    execution: &Execution,
) -> Result<(), String> {
    let executed = |e: EventId| execution.feasible[e];
    let value = |e: EventId| execution.values[e];
    let model = |l: Lit| truth(Bool::Lit(l));
    for (e, encoded) in enc.values.iter().enumerate() {
        let (Some(encoded), Some(computed)) = (encoded, value(e)) else {
            continue;
        };
        if !executed(e) {
            continue;
        }
        let modelled = encoded.decode(&model);
        if modelled != Some(computed) {
            return Err(format!(
                "values: the model gives event {} the value {modelled:?} but the execution computes {computed}",
                e + 1
            ));
        }
    }
    Ok(())
}

/// Each read returns its write's value and each write writes its term's value on the
/// values read: a value out of thin air, which the decoder takes from the solver, must
/// come back around its cycle.
fn check_values_along_rf(enc: &Encoding, execution: &Execution) -> Result<(), String> {
    let events = enc.events;
    let executed = |e: EventId| execution.feasible[e];
    let value = |e: EventId| execution.values[e];
    let read_value = |e: EventId| value(e).unwrap_or(0);
    for &(w, r) in &execution.rf {
        if let (Some(written), Some(read)) = (value(w), value(r)) {
            if written != read {
                return Err(format!(
                    "values: read {} returns {read} but reads from write {}, which writes {written}",
                    r + 1,
                    w + 1
                ));
            }
        }
    }
    for e in events.writes().filter(|e| executed(e.id)) {
        let (Some(term), Some(written)) = (e.value, value(e.id)) else {
            continue;
        };
        let computed = events.terms.eval(term, &read_value);
        if computed != written {
            return Err(format!(
                "values: write {} writes {written} but its value computes to {computed}",
                e.id + 1
            ));
        }
    }
    Ok(())
}

/// Per control, whether it holds on the values read. A control is defined from earlier
/// ones (its `within`): evaluated in order, once.
fn control_values(enc: &Encoding, read_value: &impl Fn(EventId) -> i32) -> Vec<bool> {
    let events = enc.events;
    let mut control_values: Vec<bool> = Vec::with_capacity(events.controls.len());
    for control in &events.controls {
        let within = control
            .within
            .0
            .iter()
            .all(|&(d, polarity)| control_values[d] == polarity);
        control_values.push(within && events.terms.eval(control.term, read_value) != 0);
    }
    control_values
}

/// The model's control literals agree with the conditions evaluated on the values read,
/// wherever the branch itself ran; and the guards, evaluated on the values read, select
/// the executed events.
fn check_control_flow(
    enc: &Encoding,
    truth: &dyn Fn(Bool) -> bool,
    execution: &Execution,
    control_holds: &impl Fn(usize) -> bool,
    guard_holds: &impl Fn(&Guard) -> bool,
) -> Result<(), String> {
    let events = enc.events;
    let executed = |e: EventId| execution.feasible[e];
    for (c, control) in events.controls.iter().enumerate() {
        if executed(control.event) && truth(enc.controls[c]) != control_holds(c) {
            return Err(format!(
                "control flow: the model takes the branch of event {} the other way",
                control.event + 1
            ));
        }
    }
    for e in &events.events {
        // A fence the solver chose to leave out (`infer`) does not run.
        let removed = enc
            .chosen_order(e.id, truth)
            .is_some_and(|o| o.order.is_none());
        let should_run = guard_holds(&e.guard) && !removed;
        if should_run != executed(e.id) {
            return Err(format!(
                "control flow: event {} {} but its guard evaluates to {}",
                e.id + 1,
                if executed(e.id) { "ran" } else { "did not run" },
                should_run
            ));
        }
    }
    Ok(())
}

/// Every executed lock acquisition reads a free lock (or a destroyed POSIX mutex, whose
/// check then fails: `program::mutex`).
fn check_locks(enc: &Encoding, execution: &Execution) -> Result<(), String> {
    let executed = |e: EventId| execution.feasible[e];
    let value = |e: EventId| execution.values[e];
    for e in enc
        .events
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Lock)
    {
        let destroyed = e
            .location
            .is_some_and(|l| enc.program.locations[l].mutex_destroyed);
        let free = |v: i32| v == 0 || (destroyed && v == crate::program::mutex::DESTROYED);
        if executed(e.id) && value(e.id).is_some_and(|v| !free(v)) {
            return Err(format!("locks: acquisition {} reads a held lock", e.id + 1));
        }
    }
    Ok(())
}

/// The SC check on explicit relations: `po | rf | co | fr` is acyclic, `fr` from each
/// read's `source`.
fn check_sc(
    enc: &Encoding,
    execution: &Execution,
    source: &[Option<EventId>],
) -> Result<(), String> {
    let events = enc.events;
    let n = events.len();
    let executed = |e: EventId| execution.feasible[e];
    let mut graph = DiGraph::<EventId, ()>::with_capacity(n, 0);
    let nodes: Vec<_> = (0..n).map(|e| graph.add_node(e)).collect();
    for thread in &events.threads {
        let run: Vec<EventId> = thread.iter().copied().filter(|&e| executed(e)).collect();
        for pair in run.windows(2) {
            graph.add_edge(nodes[pair[0]], nodes[pair[1]], ());
        }
    }
    for &(w, r) in &execution.rf {
        graph.add_edge(nodes[w], nodes[r], ());
    }
    for chain in &execution.co {
        for pair in chain.windows(2) {
            graph.add_edge(nodes[pair[0]], nodes[pair[1]], ());
        }
    }
    for (r, w) in source
        .iter()
        .enumerate()
        .filter_map(|(r, w)| Some((r, (*w)?)))
    {
        let Some(loc) = events.events[r].location else {
            continue;
        };
        let chain = &execution.co[loc];
        if let Some(pos) = chain.iter().position(|&x| x == w) {
            for &later in &chain[pos + 1..] {
                if later != r {
                    graph.add_edge(nodes[r], nodes[later], ());
                }
            }
        }
    }
    if is_cyclic_directed(&graph) {
        return Err("the SC check: po | rf | co | fr has a cycle".into());
    }
    Ok(())
}

/// The model's checks in force in this solve (the unnamed ones, and the named ones whose
/// selectors are among `selectors`) hold on the execution, evaluated on explicit relations
/// by [`super::eval`], and each flag is raised exactly when the solver's flag literal says
/// so. `Err` names the first check that fails or the first flag that disagrees. Call it
/// after [`validate`]: the relations are only meaningful once `rf` and `co` are.
pub fn validate_model(
    enc: &Encoding,
    truth: &dyn Fn(Bool) -> bool,
    execution: &Execution,
    model: &Model,
    compiled: &CompiledModel,
    selectors: &[Bool],
) -> Result<(), String> {
    let chosen = (0..enc.events.len())
        .map(|e| {
            enc.chosen_order(e, truth)
                .and_then(|o| o.order.map(|order| (order, o.failure)))
        })
        .collect();
    let explicit = Explicit::of_execution(enc.events, &enc.mutexes, execution).with_orders(chosen);
    let mut evaluator = explicit.evaluator(model);
    let in_force = |check: &Check| match &check.name {
        None => true,
        Some(name) => compiled
            .selector(name)
            .is_some_and(|s| selectors.contains(&s)),
    };
    let describe = |check: &Check| match &check.name {
        Some(name) => format!("`{name}`"),
        None => format!("`{} ...`", check.kind.keyword()),
    };
    for check in model.checks.iter().filter(|c| !c.flag && in_force(c)) {
        let holds = evaluator
            .holds(check)
            .map_err(|why| format!("the model's check {}: {why}", describe(check)))?;
        if !holds {
            return Err(format!(
                "the model's check {} of {} (evaluated on the execution)",
                describe(check),
                model.name
            ));
        }
    }
    let flags = model.checks.iter().filter(|c| c.flag);
    for (check, (name, literal)) in flags.zip(&compiled.flags) {
        let raised = evaluator
            .holds(check)
            .map_err(|why| format!("the model's flag `{name}`: {why}"))?;
        if raised != truth(*literal) {
            return Err(format!(
                "the model's flag `{name}`: the solver {} it, the execution {}",
                if truth(*literal) {
                    "raises"
                } else {
                    "does not raise"
                },
                if raised { "raises it" } else { "does not" }
            ));
        }
    }
    Ok(())
}

/// The final state, failed assertions and bound hit the execution computes are the ones
/// reported.
fn computed_results(
    enc: &Encoding,
    execution: &Execution,
    read_value: &impl Fn(EventId) -> i32,
    guard_holds: &impl Fn(&Guard) -> bool,
    control_holds: &impl Fn(usize) -> bool,
) -> Result<(), String> {
    let events = enc.events;
    let executed = |e: EventId| execution.feasible[e];
    let value = |e: EventId| execution.values[e];
    for &(o, reported) in &execution.final_state {
        let computed = match o {
            Observable::Reg { thread, reg } => {
                match events.final_registers.get(thread).and_then(|r| r.get(reg)) {
                    Some(&t) => events.terms.eval(t, read_value),
                    None => return Err("the final state: an unknown register".into()),
                }
            }
            Observable::Loc(l) => match execution.co.get(l).map(|c| c.last()) {
                Some(Some(&w)) => value(w).unwrap_or(0),
                // A cell nothing accesses keeps its initial value (its write left out).
                Some(None) if events.init[l].is_none() => enc.program.locations[l].initial,
                _ => return Err("the final state: an unknown location".into()),
            },
        };
        if computed != reported {
            return Err(format!(
                "the final state: {} is reported as {reported} but the execution computes {computed}",
                enc.program.observable_name(o)
            ));
        }
    }
    let failed: HashSet<EventId> = events
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Assert && executed(e.id) && value(e.id) == Some(0))
        .map(|e| e.id)
        .collect();
    let reported: HashSet<EventId> = execution.failed_assertions.iter().copied().collect();
    if failed != reported {
        return Err("the failed assertions".into());
    }
    // A thread created by a create that did not run never starts; a join of a thread cut
    // at the unrolling bound before its end waits there, in an execution that is cut.
    let hit_in = |thread: Option<usize>| {
        events
            .bound_hits
            .iter()
            .any(|h| Some(h.thread) == thread && guard_holds(&h.guard) && control_holds(h.control))
    };
    let sync = &events.thread_sync;
    let wait_released = |assume: EventId| {
        let Some(read) = assume.checked_sub(1) else {
            return false;
        };
        if events.events[read].thread != events.events[assume].thread {
            return false;
        }
        let mut writes = sync.create.iter().chain(&sync.join).filter(|p| p.1 == read);
        if sync.starts.contains(&read) {
            writes.all(|&(w, _)| !executed(w))
        } else {
            let writes: Vec<EventId> = writes.map(|p| p.0).collect();
            !writes.is_empty()
                && writes.iter().all(|&w| !executed(w))
                && writes.iter().any(|&w| hit_in(events.events[w].thread))
        }
    };
    if let Some(e) = events.events.iter().find(|e| {
        e.kind == EventKind::Assume
            && executed(e.id)
            && value(e.id) == Some(0)
            && !wait_released(e.id)
    }) {
        return Err(format!(
            "assume: event {} runs with its condition false",
            e.id + 1
        ));
    }
    let mut blocked = Vec::new();
    for (i, wait) in events.waits.iter().enumerate() {
        if !executed(wait.event) || value(wait.event).is_none_or(|v| v == 0) {
            continue;
        }
        blocked.push(i);
        let co_last = |w: EventId| {
            let loc = events.events[w].location;
            loc.and_then(|l| execution.co.get(l))
                .and_then(|chain| chain.last())
                == Some(&w)
        };
        // A lock `r` of a spin loop's iteration read `w`, and every write after `w` is one
        // of the iteration's own after the lock: its acquisition and its unlock.
        let own_after = |r: EventId, w: EventId| {
            let lock = &events.events[r];
            lock.kind == EventKind::Lock
                && lock
                    .location
                    .and_then(|l| execution.co.get(l))
                    .and_then(|chain| chain.iter().position(|&x| x == w).map(|i| &chain[i + 1..]))
                    .is_some_and(|after| {
                        after.iter().all(|&x| {
                            events.events[x].thread == lock.thread
                                && events.events[x].position > lock.position
                        })
                    })
        };
        let why = match &wait.on {
            // An exchange's own write may follow the write it read, and so may a lock's
            // acquisition and its section's unlock (`encode_waits`).
            WaitOn::Spin { reads, .. } => reads
                .iter()
                .filter(|&&r| executed(r))
                .find(|&&r| {
                    !execution.rf.iter().any(|&(w, r2)| {
                        r2 == r
                            && (co_last(w)
                                || events.events[r].rmw.is_some_and(co_last)
                                || own_after(r, w))
                    })
                })
                .map(|r| format!("read {} of a blocked spin loop reads an older write", r + 1)),
            WaitOn::Mutex { loc, lock } => {
                let held = if enc.mutexes[*loc] {
                    events.events.iter().any(|k| {
                        k.kind == EventKind::Lock
                            && k.location == Some(*loc)
                            && k.id != *lock
                            && executed(k.id)
                            && k.lock_match.is_some_and(|u| !executed(u))
                    })
                } else {
                    execution.co[*loc]
                        .last()
                        .and_then(|&w| value(w))
                        .is_some_and(|v| v != 0)
                };
                (!held).then(|| format!("wait {} blocks on a lock that ends free", wait.event + 1))
            }
            WaitOn::Forever { .. } => None,
        };
        if let Some(why) = why {
            return Err(format!("deadlock: {why}"));
        }
    }
    if blocked != execution.blocked {
        return Err("deadlock: the blocked threads".into());
    }
    let hit = events
        .bound_hits
        .iter()
        .any(|h| guard_holds(&h.guard) && control_holds(h.control));
    if hit != execution.bound_hit {
        return Err("the unrolling bound: the execution's bound hit".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{AnalysisOptions, Session};
    use crate::diagnostics::SourceFile;
    use crate::events::Events;
    use crate::solver::Solver;

    fn session_for(text: &str, f: impl FnOnce(&mut Session, &Events)) {
        session_under("sc", text, f);
    }

    fn session_under(model: &str, text: &str, f: impl FnOnce(&mut Session, &Events)) {
        let file = SourceFile::new("t.litmus".to_string(), text.to_string());
        let crate::Test { program, events } = crate::load(&file, &Default::default()).unwrap();
        let options = AnalysisOptions {
            model: std::sync::Arc::new(crate::cat::load_shipped(model).unwrap().unwrap()),
            ..AnalysisOptions::default()
        };
        let mut session = Session::new(&program, &events, &options).unwrap();
        f(&mut session, &events);
    }

    /// The model's checks in force on `w`, as `find_under_checks` runs them.
    fn model_verdict(session: &Session, w: &Execution) -> Result<(), String> {
        let truth = |b: Bool| session.solver.value_of(b);
        validate_model(
            &session.encoding,
            &truth,
            w,
            &session.model,
            &session.compiled,
            &session.enabled,
        )
    }

    /// One thread writes x twice, then reads it back.
    const OWN: &str =
        "C OWN\n{ x = 0; }\nP0 (int* x) { *x = 1; *x = 2; int r0 = *x; }\nexists (0:r0=2)\n";

    #[test]
    fn the_model_accepts_real_witnesses() {
        for model in ["sc", "rc11"] {
            for text in [SB, OWN] {
                session_under(model, text, |session, _| {
                    let w = session.check().unwrap().positive.unwrap();
                    assert_eq!(model_verdict(session, &w), Ok(()), "{model}");
                });
            }
        }
    }

    #[test]
    fn the_model_rejects_a_flipped_rf_edge() {
        for (model, check) in [("sc", "`sc`"), ("rc11", "`coherence`")] {
            session_under(model, OWN, |session, events| {
                let mut w = session.check().unwrap().positive.unwrap();
                let (first, read) = (events.threads[0][0], events.threads[0][2]);
                // Reading the overwritten write: `fr` runs against program order.
                w.rf.retain(|&(_, r)| r != read);
                w.rf.push((first, read));
                let error = model_verdict(session, &w).unwrap_err();
                assert!(error.contains(check), "{model}: {error}");
            });
        }
    }

    #[test]
    fn the_model_rejects_a_reversed_co_pair() {
        for (model, check) in [("sc", "`sc`"), ("rc11", "`coherence`")] {
            session_under(model, OWN, |session, _| {
                let mut w = session.check().unwrap().positive.unwrap();
                let chain = &mut w.co[0];
                assert_eq!(chain.len(), 3);
                chain.swap(1, 2);
                let error = model_verdict(session, &w).unwrap_err();
                assert!(error.contains(check), "{model}: {error}");
                // The encoding's literals disagree too: the general validation says so.
                let truth = |b: Bool| session.solver.value_of(b);
                assert!(validate(&session.encoding, &truth, &w, checks()).is_err());
            });
        }
    }

    #[test]
    fn the_model_rejects_the_sb_cycle_under_sc_only() {
        // Both reads read the initial writes: SC's cycle, allowed by rc11 for these
        // non-atomic accesses (which race, so rc11 raises its flag).
        let sb = "C SB0\n{ x = 0; y = 0; }\nP0 (int* x, int* y) { *x = 1; int r0 = *y; }\nP1 (int* x, int* y) { *y = 1; int r0 = *x; }\nexists (0:r0=1 /\\ 1:r0=1)\n";
        for model in ["sc", "rc11"] {
            session_under(model, sb, |session, events| {
                let mut w = session.check().unwrap().positive.unwrap();
                let (p0_read, p1_read) = (events.threads[0][1], events.threads[1][1]);
                w.rf.retain(|&(_, r)| r != p0_read && r != p1_read);
                w.rf.push((events.init[1].unwrap(), p0_read));
                w.rf.push((events.init[0].unwrap(), p1_read));
                let verdict = model_verdict(session, &w);
                if model == "sc" {
                    let error = verdict.unwrap_err();
                    assert!(error.contains("`sc`"), "{error}");
                } else {
                    assert_eq!(verdict, Ok(()));
                }
            });
        }
    }

    #[test]
    fn the_model_rejects_a_flag_the_solver_got_wrong() {
        session_under("rc11", SB, |session, _| {
            let w = witness(session);
            let &(_, raised) = &session.compiled.flags[0];
            // The racy SB raises `undefined`; a solver that said otherwise is caught.
            assert!(session.solver.value_of(raised));
            let lying = |b: Bool| session.solver.value_of(b) != (b == raised);
            let error = validate_model(
                &session.encoding,
                &lying,
                &w,
                &session.model,
                &session.compiled,
                &session.enabled,
            )
            .unwrap_err();
            assert!(error.contains("`undefined`"), "{error}");
        });
    }

    #[test]
    fn a_skipped_check_is_not_required() {
        session_under("sc", OWN, |session, events| {
            let mut w = session.check().unwrap().positive.unwrap();
            let (first, read) = (events.threads[0][0], events.threads[0][2]);
            w.rf.retain(|&(_, r)| r != read);
            w.rf.push((first, read));
            let truth = |b: Bool| session.solver.value_of(b);
            let verdict = validate_model(
                &session.encoding,
                &truth,
                &w,
                &session.model,
                &session.compiled,
                &[],
            );
            assert_eq!(verdict, Ok(()));
        });
    }

    const SB: &str = "C SB\n{ x = 0; y = 0; }\nP0 (int* x, int* y) { *x = 1; int r0 = *y; }\nP1 (int* x, int* y) { *y = 1; int r0 = *x; }\nexists (0:r0=0 /\\ 1:r0=1)\n";

    fn witness(session: &mut Session) -> Execution {
        let result = session.check().unwrap();
        result.positive.expect("SB reaches 0:r0=0 /\\ 1:r0=1")
    }

    fn checks() -> ModelChecks {
        ModelChecks { sc: true }
    }

    #[test]
    fn accepts_real_witnesses() {
        session_for(SB, |session, _| {
            let w = witness(session);
            let truth = |b: Bool| session.solver.value_of(b);
            assert_eq!(validate(&session.encoding, &truth, &w, checks()), Ok(()));
        });
    }

    #[test]
    fn rejects_a_wrong_final_state() {
        session_for(SB, |session, _| {
            let mut w = witness(session);
            w.final_state[0].1 += 1;
            let truth = |b: Bool| session.solver.value_of(b);
            let error = validate(&session.encoding, &truth, &w, checks()).unwrap_err();
            assert!(error.contains("final state"), "{error}");
        });
    }

    #[test]
    fn rejects_a_value_the_model_does_not_give() {
        session_for(SB, |session, events| {
            let mut w = witness(session);
            let p0_write = events.threads[0][0];
            w.values[p0_write] = Some(7);
            let truth = |b: Bool| session.solver.value_of(b);
            let error = validate(&session.encoding, &truth, &w, checks()).unwrap_err();
            assert!(error.contains("values"), "{error}");
        });
    }

    #[test]
    fn rejects_a_cycle() {
        session_for(SB, |session, events| {
            let mut w = witness(session);
            // Make P1's read of x read the initial write although P0's write is co-after it
            // and P0 read y = 0 before P1's write: the SB cycle SC forbids.
            let p0_read = events.threads[0][1];
            let p1_read = events.threads[1][1];
            let init_y = events.init[1].unwrap();
            let init_x = events.init[0].unwrap();
            w.rf.retain(|&(_, r)| r != p0_read && r != p1_read);
            w.rf.push((init_y, p0_read));
            w.rf.push((init_x, p1_read));
            w.values[p1_read] = Some(0);
            w.final_state.iter_mut().for_each(|s| s.1 = 0);
            let truth = |b: Bool| session.solver.value_of(b);
            let error = validate(&session.encoding, &truth, &w, checks()).unwrap_err();
            assert!(error.contains("cycle"), "{error}");
        });
    }

    #[test]
    fn rejects_an_event_that_ran_against_its_guard() {
        let text = "C G\n{ x = 0; }\nP0 (int* x) { int r0 = *x; if (r0 == 1) { *x = 2; } }\nP1 (int* x) { *x = 1; }\nexists (0:r0=0)\n";
        session_for(text, |session, events| {
            let mut w = witness(session);
            let guarded = events.threads[0][2];
            assert!(!w.feasible[guarded]);
            w.feasible[guarded] = true;
            let truth = |b: Bool| session.solver.value_of(b);
            assert!(validate(&session.encoding, &truth, &w, checks()).is_err());
        });
    }
}
