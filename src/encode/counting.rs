//! Counting lemmas: the final value of a lock-protected counter as a sum of guarded
//! constants, so that SAT need not count increments through every order of the critical
//! sections (4 threads x 10 locked increments, `exists (c=40)`: proving that no execution
//! ends elsewhere took over 200 s).
//!
//! A *locked counter* is a counter ([`crate::events::counting`]) whose only root is the
//! initial write and each of whose increments `w = r + k` lies, with its read `r`, inside
//! one critical section of a mutex `m` (the same for all: between a `lock(m)` that runs
//! whenever `w` does and its matching `unlock`), with no write of the location between
//! `r` and `w` in the thread. Reads may lie anywhere.
//!
//! Lemma: the final value is `init + sum of k over the increments that execute`. It holds
//! in every execution satisfying a check that puts `po` and `lko` into an order with the
//! communication relations (see [`lock_premise`]): (1) the critical sections of `m` that
//! execute are totally ordered by `lko`, consistently with `po` (the check makes `po | lko`
//! acyclic, and one choice literal orders each pair); (2) so for increments `w1` in an
//! earlier section than `w2`, `w1 hb w2` and coherence gives `co(w1, w2)`; in one section
//! `po` orders them, and the initial write is `co`-first: `co` is the order (section,
//! position); (3) an increment's read `r` reads the `co`-latest write `hb`-before it,
//! which is `w`'s `co`-predecessor `p` (the writes `hb`-before `r` are those before `w`,
//! as no write falls between `r` and `w`): reading a write `co`-before `p` would put
//! `fr(r, p)` against `p hb r`, reading one `co`-after `w`'s predecessor (`w` itself or
//! later) would put `r hb w'` against `rf(w', r)`. So `value(w) = value(p) + k` along `co`,
//! and the `co`-last write holds the sum. A section whose release never runs comes last
//! (`Encoding::encode_locks`), which changes nothing above. The lemma holds under the
//! check's selector, so `--skip` and `explain` stay exact.

use super::cnf::{Bool, ClauseSink, Gates};
use super::model::CompiledModel;
use super::value::{self, Value};
use super::{Encoding, ONE_HOT_CAP};
use crate::cat::ast::{BinOp, CheckKind, UnOp};
use crate::cat::{Base, Model, TExpr};
use crate::events::counting::CounterWrite;
use crate::events::{EventId, EventKind, Events};
use crate::program::{BinaryOp, LocId};

/// A counter all of whose increments lie in critical sections of one mutex.
#[derive(Clone, Debug)]
pub struct LockedCounter {
    pub location: LocId,
    pub mutex: LocId,
    pub init: i32,
    /// Each increment, its constant and its critical section's lock and unlock.
    pub increments: Vec<Increment>,
}

/// One increment of a locked counter.
#[derive(Clone, Copy, Debug)]
pub struct Increment {
    pub write: EventId,
    pub k: i32,
    pub lock: EventId,
    pub unlock: Option<EventId>,
}

/// The critical section of a mutex around `read` and `write` of one thread, entered
/// whenever `write` runs: its lock.
fn enclosing_lock(
    events: &Events,
    mutexes: &[bool],
    read: EventId,
    write: EventId,
) -> Option<EventId> {
    let (r, w) = (&events.events[read], &events.events[write]);
    let thread = w.thread?;
    events.threads[thread]
        .iter()
        .map(|&id| &events.events[id])
        .filter(|k| k.kind == EventKind::Lock && k.position < r.position)
        .filter(|k| k.location.is_some_and(|m| mutexes[m]))
        .find(|k| {
            let released_after = k
                .lock_match
                .is_none_or(|u| events.events[u].position > w.position);
            released_after && events.guard_implies(&w.guard, &k.guard)
        })
        .map(|k| k.id)
}

/// The locked counters of the test (`mutexes` as [`Encoding::mutexes`]).
pub fn locked_counters(events: &Events, mutexes: &[bool]) -> Vec<LockedCounter> {
    let mut result = Vec::new();
    'counters: for counter in &events.bounds.counters {
        let loc = counter.location;
        let mut mutex = None;
        let mut init = None;
        let mut increments = Vec::new();
        for &(w, shape) in &counter.writes {
            match shape {
                CounterWrite::Root(v) if events.events[w].kind == EventKind::Init => {
                    init = Some(v);
                }
                CounterWrite::Root(_) => continue 'counters,
                CounterWrite::Increment { read, k } => {
                    let Some(lock) = enclosing_lock(events, mutexes, read, w) else {
                        continue 'counters;
                    };
                    let m = events.events[lock].location;
                    if mutex.is_some() && mutex != m {
                        continue 'counters;
                    }
                    mutex = m;
                    let (rp, wp) = (events.events[read].position, events.events[w].position);
                    let thread = events.events[w].thread.unwrap_or(0);
                    let between = events.threads[thread].iter().any(|&x| {
                        let e = &events.events[x];
                        e.is_write()
                            && e.location == Some(loc)
                            && rp < e.position
                            && e.position < wp
                    });
                    if between {
                        continue 'counters;
                    }
                    increments.push(Increment {
                        write: w,
                        k,
                        lock,
                        unlock: events.events[lock].lock_match,
                    });
                }
            }
        }
        if let (Some(mutex), Some(init)) = (mutex, init) {
            result.push(LockedCounter {
                location: loc,
                mutex,
                init,
                increments,
            });
        }
    }
    result
}

/// The literal under which the model's checks make `po | lko` and the communication
/// relations agree as the lemma needs: the selector of a check (`TRUE` for an unnamed
/// one), or `None` when the model has no such check (the lemma is then never added).
/// Recognised: `acyclic` of a union holding `po`, `lko`, `rf`, `co` and `fr` (sc.cat), and
/// `irreflexive hb; eco?` with `hb` a closure `(.. | lko)+` of a union holding `po` and
/// `lko`, and `eco` a union holding `rf`, and `co` and `fr` alone or followed by an
/// optional relation (rc11.cat, c11.cat).
pub fn lock_premise(model: &Model, compiled: &CompiledModel) -> Option<Bool> {
    let check = model.checks.iter().find(|c| {
        !c.flag
            && !c.negated
            && match c.kind {
                CheckKind::Acyclic => {
                    let ops = union_operands(model, &c.expr);
                    [Base::Po, Base::Lko, Base::Rf, Base::Co, Base::Fr]
                        .iter()
                        .all(|b| ops.iter().any(|o| is_base(o, *b)))
                }
                CheckKind::Irreflexive => coherence_shape(model, &c.expr),
                CheckKind::Empty => false,
            }
    })?;
    match &check.name {
        None => Some(Bool::TRUE),
        Some(name) => compiled.selector(name),
    }
}

/// `e` looked through non-recursive definitions.
fn resolve<'m>(model: &'m Model, mut e: &'m TExpr) -> &'m TExpr {
    for _ in 0..=model.defs.len() {
        match e {
            TExpr::Def(id) if model.rec_group(*id).is_none() => match model.defs.get(*id) {
                Some(d) => e = &d.1,
                None => return e,
            },
            _ => return e,
        }
    }
    e
}

/// The operands of a union, through definitions.
fn union_operands<'m>(model: &'m Model, e: &'m TExpr) -> Vec<&'m TExpr> {
    match resolve(model, e) {
        TExpr::Binary(BinOp::Union, a, b) => {
            let mut ops = union_operands(model, a);
            ops.extend(union_operands(model, b));
            ops
        }
        other => vec![other],
    }
}

fn is_base(e: &TExpr, base: Base) -> bool {
    matches!(e, TExpr::Base(b) if *b == base)
}

/// Some operand of the union `e` contains `base`: `base` itself, a union holding it (`sb =
/// po | ..`), or `base; x?`.
fn union_covers(model: &Model, e: &TExpr, base: Base) -> bool {
    union_operands(model, e).iter().any(|o| match o {
        TExpr::Base(b) => *b == base,
        TExpr::Binary(BinOp::Seq, a, b) => {
            is_base(resolve(model, a), base)
                && matches!(resolve(model, b), TExpr::Unary(UnOp::Opt, _))
        }
        _ => false,
    })
}

/// `hb; eco?` as rc11.cat writes coherence (see [`lock_premise`]).
fn coherence_shape(model: &Model, e: &TExpr) -> bool {
    let TExpr::Binary(BinOp::Seq, hb, eco) = resolve(model, e) else {
        return false;
    };
    let TExpr::Unary(UnOp::Plus, hb) = resolve(model, hb) else {
        return false;
    };
    let TExpr::Unary(UnOp::Opt, eco) = resolve(model, eco) else {
        return false;
    };
    union_covers(model, hb, Base::Po)
        && union_covers(model, hb, Base::Lko)
        && [Base::Rf, Base::Co, Base::Fr]
            .iter()
            .all(|&b| union_covers(model, eco, b))
}

/// Add, under `premise`, the lemmas of the locked counter `counter`, whose final value
/// `last` the caller has built: `final(c) = init + sum of k over the increments that
/// execute`, and, for increments `a`, `b` of different threads, `co(a, b) -> value(a) <
/// value(b)` (values grow strictly along `co`, every `k >= 1`, without wrapping: the
/// counter's range), which gives the solver the ranks of the writes in `co` from their
/// values rather than from cycles cut one by one.
pub fn add_lemmas<S: ClauseSink>(
    sink: &mut S,
    encoding: &mut Encoding,
    counter: &LockedCounter,
    last: &Value,
    premise: Bool,
) {
    let mut sum = Value::constant(counter.init);
    for &Increment { write: w, k, .. } in &counter.increments {
        let more = value::apply_binary(sink, BinaryOp::Add, &sum, &Value::constant(k), ONE_HOT_CAP);
        sum = value::ite(sink, encoding.feasible[w], &more, &sum, ONE_HOT_CAP);
    }
    let equal = value::equals(sink, last, &sum);
    sink.implies(premise, equal);
    let events = encoding.events;
    let incs = &counter.increments;
    // Sections in `co`'s order: `co(a, b) -> lko(a's unlock, b's lock)`.
    for a in incs {
        for b in incs {
            let co = encoding.co.get(a.write, b.write);
            let other_thread = events.events[a.write].thread != events.events[b.write].thread;
            if let (Some(u), true, false) = (a.unlock, other_thread, co.is_false()) {
                sink.clause(&[!premise, !co, encoding.lko.get(u, b.lock)]);
            }
        }
    }
    let mut ladders = Vec::with_capacity(incs.len());
    for inc in incs {
        let v = encoding.event_value(sink, inc.write);
        let Some(ladder) = ladder(sink, &v) else {
            return;
        };
        ladders.push((inc.write, v, ladder));
    }
    for (a, va, _) in &ladders {
        for (b, _, lb) in &ladders {
            if events.events[*a].thread == events.events[*b].thread {
                continue;
            }
            let co = encoding.co.get(*a, *b);
            if co.is_false() {
                continue;
            }
            let Value::OneHot(cases) = va else { continue };
            for &(i, x) in cases {
                // `b`'s value is at most `i`: at the last rung at or below `i`.
                let at_most = match lb.partition_point(|&(v, _)| v <= i) {
                    0 => continue,
                    n => lb[n - 1].1,
                };
                sink.clause(&[!premise, !co, !x, !at_most]);
            }
        }
    }
}

/// For a one-hot value, its order encoding: per possible value `v`, a literal "the value
/// is at most `v`"; `None` for bits.
fn ladder<S: ClauseSink>(sink: &mut S, v: &Value) -> Option<Vec<(i32, Bool)>> {
    let Value::OneHot(cases) = v else {
        return None;
    };
    let mut below = Bool::FALSE;
    Some(
        cases
            .iter()
            .map(|&(value, lit)| {
                below = sink.or2(below, lit);
                (value, below)
            })
            .collect(),
    )
}
