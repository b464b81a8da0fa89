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
use crate::program::{BinaryOp, LocId, RegId};

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

/// The most one-hot cases the read lemmas of one counter may build, counted as reads x
/// increments x values of the range: 4 threads of 20 locked increments (80 x 80 x 81) are
/// within it, 4 x 50 (200 x 200 x 201) is not (its `check` of `exists (c=200)` took twice
/// the time and memory with them, and the lemmas serve conditions on the reads only).
pub const READ_LEMMA_BUDGET: usize = 1 << 20;

/// The critical section of `mutex` that `read` lies in, entered whenever `read` runs and
/// released after it: its lock and unlock. `None` when there is none, or its release is
/// not matched.
fn section_of(events: &Events, mutex: LocId, read: EventId) -> Option<(EventId, EventId)> {
    let r = &events.events[read];
    let thread = r.thread?;
    events.threads[thread]
        .iter()
        .map(|&id| &events.events[id])
        .filter(|k| k.kind == EventKind::Lock && k.location == Some(mutex))
        .filter(|k| k.position < r.position && events.guard_implies(&r.guard, &k.guard))
        .find_map(|k| {
            let u = k.lock_match?;
            (events.events[u].position > r.position).then_some((k.id, u))
        })
}

/// Add, under `premise`, the read lemmas of the locked counter `counter`: each read of the
/// counter inside a critical section `S` of its mutex returns `init + sum of k` over the
/// increments that run and precede it: those of its own thread before it in program order,
/// and those of other threads whose critical section `lko` puts before `S`. Returns how
/// many reads were tied (none when some increment's section has no matched release).
///
/// Why it holds (under the same premise as [`add_lemmas`], whose steps (1) to (3) it
/// reuses): the writes of the counter `hb`-before the read are the initial write, the
/// increments in sections before `S` and its own thread's increments before it, since
/// every section runs whole in `lko`'s order (a section after `S` is `hb`-after the read);
/// they are a prefix of `co`, the order (section, position), whose last write holds the
/// prefix's sum; and the read returns the `co`-latest write `hb`-before it (an older one is
/// `fr` against `hb`, a newer one `rf` against `hb`). So a read's value is a count over the
/// lock order's literals (a cardinality constraint the solver propagates), instead of a
/// value passed on through `rf` and `co` that only cycle cuts correct: `exists (0:r=20)`
/// on four threads of ten locked increments is "exactly 20 increments precede P0's last
/// section". They are added only when some read inside a section assigns one of the
/// `observed` registers (thread, register): a condition on other values gains nothing (on
/// an unprotected read `0:s`, the chains doubled `check`'s time). Each read's sum is a chain of one-hot values over the increments (gates in
/// the number of increments times the counter's range): the lemmas are left out, and 0
/// returned, when the reads' chains together would exceed [`READ_LEMMA_BUDGET`].
pub fn add_read_lemmas<S: ClauseSink>(
    sink: &mut S,
    encoding: &mut Encoding,
    counter: &LockedCounter,
    premise: Bool,
    observed: &[(usize, RegId)],
) -> usize {
    let events = encoding.events;
    let Some(sections) = counter
        .increments
        .iter()
        .map(|i| i.unlock)
        .collect::<Option<Vec<EventId>>>()
    else {
        return 0;
    };
    let reads: Vec<(EventId, EventId)> = events
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Read && e.location == Some(counter.location))
        .filter_map(|e| section_of(events, counter.mutex, e.id).map(|(lock, _)| (e.id, lock)))
        .collect();
    let observes = |&(r, _): &(EventId, EventId)| {
        let e = &events.events[r];
        matches!((e.thread, e.register), (Some(t), Some(reg)) if observed.contains(&(t, reg)))
    };
    if !reads.iter().any(observes) {
        return 0;
    }
    let range = counter
        .increments
        .iter()
        .map(|i| i.k.unsigned_abs() as usize)
        .sum::<usize>()
        + 1;
    let size = reads
        .len()
        .saturating_mul(counter.increments.len())
        .saturating_mul(range);
    if size > READ_LEMMA_BUDGET {
        return 0;
    }
    for &(read, lock) in &reads {
        let (thread, position) = (events.events[read].thread, events.events[read].position);
        let mut sum = Value::constant(counter.init);
        for (inc, &unlock) in counter.increments.iter().zip(&sections) {
            let w = &events.events[inc.write];
            let before = if w.thread == thread {
                if w.position > position {
                    continue;
                }
                encoding.feasible[inc.write]
            } else {
                let lko = encoding.lko.get(unlock, lock);
                sink.and2(encoding.feasible[inc.write], lko)
            };
            if before.is_false() {
                continue;
            }
            let more = value::apply_binary(
                sink,
                BinaryOp::Add,
                &sum,
                &Value::constant(inc.k),
                ONE_HOT_CAP,
            );
            sum = value::ite(sink, before, &more, &sum, ONE_HOT_CAP);
        }
        let v = encoding.event_value(sink, read);
        let equal = value::equals(sink, &v, &sum);
        sink.clause(&[!premise, !encoding.feasible[read], equal]);
    }
    reads.len()
}

/// Add, under `premise`, the lock order of the locked counter's mutex as a total order of
/// its critical sections, stated eagerly, and the counter's `co` read off it: (a) a
/// section `lko`-before (after) a section of another thread is before (after) every
/// section that thread runs earlier (later) in program order; (b) no three sections of
/// three threads form an `lko` cycle; (c) for increments `x`, `y` of different threads
/// that run, `lko` from `x`'s section to `y`'s gives `co(x, y)`. Returns the clauses
/// added.
///
/// Why they hold: under the premise `po | lko` is acyclic, and `lko` has one choice per
/// pair of sections of different threads that run (`Encoding::encode_locks`), so the
/// sections that run are a tournament without cycles: a total order extending `po`, which
/// (a) and (b) state for the pairs and triples a cycle of `po | lko` between two or three
/// threads would use; (c) is step (2) of [`add_lemmas`]. The lazy acyclicity would find
/// each of these by cutting cycles; with them, a choice of the sections' order propagates
/// to every other choice it forces, and, with [`add_read_lemmas`], to the values read.
pub fn add_order_lemmas<S: ClauseSink>(
    sink: &mut S,
    encoding: &Encoding,
    counter: &LockedCounter,
    premise: Bool,
) -> usize {
    let events = encoding.events;
    // Each thread's matched sections of the mutex, in program order.
    let mut threads: Vec<Vec<(EventId, EventId)>> = vec![Vec::new(); events.threads.len()];
    for (t, ids) in events.threads.iter().enumerate() {
        for &id in ids {
            let e = &events.events[id];
            if e.kind == EventKind::Lock && e.location == Some(counter.mutex) {
                if let Some(u) = e.lock_match {
                    threads[t].push((id, u));
                }
            }
        }
    }
    let before = |a: (EventId, EventId), b: (EventId, EventId)| encoding.lko.get(a.1, b.0);
    let mut clauses = 0;
    let mut add = |sink: &mut S, clause: &[Bool]| {
        if clause.iter().all(|b| !b.is_true()) {
            sink.clause(clause);
            clauses += 1;
        }
    };
    for (t, own) in threads.iter().enumerate() {
        for (j, &b) in own.iter().enumerate() {
            for &a in &own[..j] {
                for (_, others) in threads.iter().enumerate().filter(|&(o, _)| o != t) {
                    for &c in others {
                        // (a): `b` before `c` and `a` runs: `a` before `c`; `c` before `a`
                        // and `b` runs: `c` before `b`.
                        let (bc, ca) = (before(b, c), before(c, a));
                        if !bc.is_false() {
                            let clause = [!premise, !bc, !encoding.feasible[a.0], before(a, c)];
                            add(sink, &clause);
                        }
                        if !ca.is_false() {
                            let clause = [!premise, !ca, !encoding.feasible[b.0], before(c, b)];
                            add(sink, &clause);
                        }
                    }
                }
            }
        }
    }
    // (b): one clause per cyclic orientation of each triple of sections of three threads.
    let n = threads.len();
    for t1 in 0..n {
        for t2 in t1 + 1..n {
            for t3 in t2 + 1..n {
                for &a in &threads[t1] {
                    for &b in &threads[t2] {
                        for &c in &threads[t3] {
                            for (x, y, z) in [(a, b, c), (a, c, b)] {
                                let cycle = [before(x, y), before(y, z), before(z, x)];
                                if cycle.iter().any(|l| l.is_false()) {
                                    continue;
                                }
                                let clause = [!premise, !cycle[0], !cycle[1], !cycle[2]];
                                add(sink, &clause);
                            }
                        }
                    }
                }
            }
        }
    }
    // (c).
    for x in &counter.increments {
        for y in &counter.increments {
            let (ex, ey) = (&events.events[x.write], &events.events[y.write]);
            let Some(u) = x.unlock else { continue };
            if ex.thread == ey.thread {
                continue;
            }
            let lko = encoding.lko.get(u, y.lock);
            let co = encoding.co.get(x.write, y.write);
            if lko.is_false() || co.is_true() {
                continue;
            }
            let clause = [
                !premise,
                !lko,
                !encoding.feasible[x.write],
                !encoding.feasible[y.write],
                co,
            ];
            add(sink, &clause);
        }
    }
    clauses
}
