//! From events to a SAT instance: relation matrices over literals, values, the model's axioms.
//!
//! [`Encoding::new`] builds what every model shares: feasibility of each event from its
//! guard (`fb`), the values of terms, the reads-from relation `rf` (each feasible read reads
//! exactly one feasible write of its location with the same value), the coherence order `co`
//! (a strict total order of each location's feasible writes, initial write first), the
//! derived from-read relation `fr = rf^-1 ; co`, the final state and the final condition.
//! The model's own checks are added on top by [`model`], compiled from a `.cat` file; [`sc`]
//! is the hand-written SC encoding it is measured against.

pub mod acyclic;
pub mod bits;
pub mod cnf;
pub mod counting;
pub mod model;
pub mod relation;
pub mod sc;
pub mod symmetry;
pub mod value;

use std::collections::{BTreeMap, HashMap};

use self::acyclic::{AcyclicStrategy, Order};
use self::cnf::{name_bool, Bool, ClauseSink, Gates};
use self::relation::Relation;
use self::value::Value;
use crate::events::{EventId, EventKind, Events, Guard, Term, TermId, WaitOn};
use crate::program::{LocId, MemOrder, Observable, Program, StateProp};

/// One memory order the solver may give an access or fence (see [`Encoding::choose_order`]).
#[derive(Clone, Copy, Debug)]
pub struct OrderOption {
    pub selector: Bool,
    /// `None`: the event is left out (a removed fence).
    pub order: Option<MemOrder>,
    /// A compare-exchange read's order when the exchange fails.
    pub failure: Option<MemOrder>,
}

/// Largest number of values a computed term keeps as one-hot literals before it switches to
/// bit-vectors.
pub const ONE_HOT_CAP: usize = crate::events::bounds::VALUE_SET_CAP;

/// The shared part of every model's encoding, with the literals the queries need.
pub struct Encoding<'a> {
    pub program: &'a Program,
    pub events: &'a Events,
    /// Per event: it executes.
    pub feasible: Vec<Bool>,
    /// Per control variable: its condition holds.
    pub controls: Vec<Bool>,
    pub rf: Relation,
    pub co: Relation,
    /// Per location with two or more writes: the order its `co` is read from.
    pub co_orders: Vec<Order>,
    /// Per location: it is a mutex, touched only by `lock`/`unlock` (and its initial write).
    /// Mutexes are not encoded as memory (see [`Encoding::encode_locks`]).
    pub mutexes: Vec<bool>,
    /// Per location: its memory (`rf`, `co`, `fr`) is left out, because the query this
    /// encoding answers cannot observe it (`analysis::slice`); the witness decoder chooses
    /// its reads along the interleaving of the rest.
    pub sliced: Vec<bool>,
    /// Reads may return values out of thin air (the model allows `po | rf` cycles): their
    /// values range over `Bounds::thin_air_values`.
    pub thin_air: bool,
    /// The lock order: `(u, k)` when the critical section ending with unlock `u` precedes
    /// the one starting with lock `k`, for critical sections of one mutex in different
    /// threads (within a thread, program order orders them).
    pub lko: Relation,
    /// Per pair of critical sections of one mutex in different threads, their locks and
    /// the literal that chose their order ("the first one's section first"): the
    /// executions' choices, as `rf` and `co` are for memory.
    pub lock_choices: Vec<(EventId, EventId, Bool)>,
    pub fr: Relation,
    /// Per event: the value it reads, writes or computes, once something needed it.
    pub values: Vec<Option<Value>>,
    /// Some loop would run once more than the unrolling allows.
    pub bound_hit: Bool,
    /// Per assertion event: the assertion fails.
    pub assertion_failures: Vec<(EventId, Bool)>,
    /// Per event: the memory orders the solver may give it, each under its selector (see
    /// [`Encoding::choose_order`]); empty for an event with its own order, as written.
    pub order_options: Vec<Vec<OrderOption>>,
    /// Per wait point of [`Events::waits`], in its order: the thread is blocked there for
    /// good.
    pub blocked: Vec<Bool>,
    /// Some thread is blocked for good: a deadlock.
    pub deadlock: Bool,
    /// Per condition of a dependency (`events::Dependency::when`) that is not a constant:
    /// it holds.
    pub dependency_conditions: HashMap<TermId, Bool>,
    /// Per event, once counter writes get their range clauses
    /// ([`Encoding::bound_counter_writes`]): they are added (a chain of values leading back
    /// to a write builds its value twice).
    counter_writes_bounded: Option<Vec<bool>>,
    counters_left_unbounded: Vec<LocId>,
    /// How many values past a counter's range a feasible write was denied: tests check
    /// that [`Encoding::bound_counter_writes`] fires where it should.
    pub counter_write_bounds: usize,
    term_cache: HashMap<TermId, Value>,
    guard_cache: HashMap<Guard, Bool>,
    final_cache: HashMap<Observable, Value>,
}

/// Per location: it is a mutex, every access to it a lock acquisition (with its write half)
/// or a release.
pub fn mutex_locations(program: &Program, events: &Events) -> Vec<bool> {
    // herd's spin locks are memory, as lock.cat defines them.
    let mut mutex: Vec<bool> = program
        .locations
        .iter()
        .map(|l| l.is_lock && !l.herd_lock && !l.mutex_memory)
        .collect();
    for e in &events.events {
        let Some(loc) = e.location else { continue };
        let lock_part = match e.kind {
            EventKind::Init | EventKind::Lock | EventKind::Unlock => true,
            EventKind::Write => e
                .rmw
                .is_some_and(|r| events.events[r].kind == EventKind::Lock),
            _ => false,
        };
        if !lock_part {
            mutex[loc] = false;
        }
    }
    mutex
}

/// How [`Encoding::with_options`] shapes the shared encoding.
#[derive(Clone, Debug, Default)]
pub struct EncodingOptions {
    /// How `co`'s total orders are built.
    pub strategy: AcyclicStrategy,
    /// `fr` by clauses rather than gates (see `encode_fr`).
    pub direct_fr: bool,
    /// Per location (missing ones `false`): its memory (`rf`, `co`, `fr`) is left out, its
    /// reads' values unconstrained. Only for a query that nothing about those locations can
    /// change (`analysis::slice` says which).
    pub sliced: Vec<bool>,
    /// Reads' values may come out of thin air ([`Encoding::thin_air`]).
    pub thin_air: bool,
    /// With `events.block_at_bound`, leave the block to the caller: `bound_hit` is not
    /// asserted false (`analysis::left_out` asks about those executions first).
    pub defer_block: bool,
}

impl<'a> Encoding<'a> {
    pub fn new<S: ClauseSink>(sink: &mut S, program: &'a Program, events: &'a Events) -> Self {
        Self::with_options(sink, program, events, EncodingOptions::default())
    }

    /// The shared encoding, shaped by `options`.
    pub fn with_options<S: ClauseSink>(
        sink: &mut S,
        program: &'a Program,
        events: &'a Events,
        options: EncodingOptions,
    ) -> Self {
        let EncodingOptions {
            strategy,
            direct_fr,
            mut sliced,
            thin_air,
            defer_block,
        } = options;
        sliced.resize(events.init.len(), false);
        let n = events.len();
        let mut enc = Encoding {
            program,
            events,
            feasible: Vec::with_capacity(n),
            controls: Vec::with_capacity(events.controls.len()),
            rf: Relation::new(),
            co: Relation::new(),
            co_orders: Vec::new(),
            mutexes: mutex_locations(program, events),
            sliced,
            thin_air,
            lko: Relation::new(),
            lock_choices: Vec::new(),
            fr: Relation::new(),
            values: vec![None; n],
            bound_hit: Bool::FALSE,
            assertion_failures: Vec::new(),
            order_options: vec![Vec::new(); n],
            blocked: Vec::new(),
            deadlock: Bool::FALSE,
            dependency_conditions: HashMap::new(),
            counter_writes_bounded: None,
            counters_left_unbounded: Vec::new(),
            counter_write_bounds: 0,
            term_cache: HashMap::new(),
            guard_cache: HashMap::new(),
            final_cache: HashMap::new(),
        };
        // Control variables first as plain literals: feasibility and `rf` need them, while
        // their definitions need read values, which need `rf`.
        for _ in 0..events.controls.len() {
            let lit = Bool::Lit(sink.new_lit());
            enc.controls.push(lit);
        }
        for e in 0..n {
            let fb = enc.guard(sink, &events.events[e].guard.clone());
            enc.feasible.push(fb);
        }
        enc.encode_rf(sink);
        enc.encode_co(sink, strategy);
        enc.encode_fr(sink, direct_fr);
        for c in 0..events.controls.len() {
            let value = enc.term(sink, events.controls[c].term);
            let nonzero = value::is_nonzero(sink, &value);
            let within = enc.guard(sink, &events.controls[c].within);
            let holds = sink.and2(within, nonzero);
            let defined = sink.iff(enc.controls[c], holds);
            sink.assert_true(defined);
        }
        enc.encode_locks(sink);
        enc.encode_waits(sink);
        let hits: Vec<Bool> = events
            .bound_hits
            .iter()
            .map(|hit| {
                let g = enc.guard(sink, &hit.guard);
                sink.and2(g, enc.controls[hit.control])
            })
            .collect();
        enc.bound_hit = sink.or(&hits);
        if events.block_at_bound && !defer_block {
            // The executions that need more iterations are not executions of the bounded
            // program: nothing is reported as cut.
            sink.assert_true(!enc.bound_hit);
        }
        for e in events.events.iter().filter(|e| e.kind == EventKind::Assert) {
            let holds = match e.value {
                Some(t) => {
                    let v = enc.term(sink, t);
                    value::is_nonzero(sink, &v)
                }
                None => Bool::TRUE,
            };
            let fails = sink.and2(enc.feasible[e.id], !holds);
            enc.assertion_failures.push((e.id, fails));
        }
        // `assume(e)`: the executions that reach it with `e` false do not exist.
        let released = enc.flag_waits_released(sink, &hits);
        for e in events.events.iter().filter(|e| e.kind == EventKind::Assume) {
            if let Some(t) = e.value {
                let v = enc.term(sink, t);
                let mut holds = value::is_nonzero(sink, &v);
                if let Some(&released) = released.get(&e.id) {
                    holds = sink.or2(holds, released);
                }
                sink.implies(enc.feasible[e.id], holds);
            }
        }
        let deps = &events.dependencies;
        let whens = deps.addr.iter().chain(&deps.data).map(|d| d.when);
        for when in whens.chain(deps.ctrl.iter().map(|s| s.when)) {
            if events.terms.constant_value(when).is_none()
                && !enc.dependency_conditions.contains_key(&when)
            {
                let v = enc.term(sink, when);
                let holds = value::is_nonzero(sink, &v);
                enc.dependency_conditions.insert(when, holds);
            }
        }
        enc.name_literals(sink);
        enc
    }

    /// Let the solver choose `event`'s memory order among `options` (exactly one selector
    /// must hold: the caller's constraint). The model's order sets (`ACQ`, `REL`, ...) then
    /// contain the event under the selectors of the options in them, so one instance answers
    /// for every choice. An option without an order leaves the event out: it does not
    /// execute under that selector, as if it had been deleted from the program.
    pub fn choose_order<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        event: EventId,
        options: Vec<OrderOption>,
    ) {
        let removed: Vec<Bool> = options
            .iter()
            .filter(|o| o.order.is_none())
            .map(|o| o.selector)
            .collect();
        let any_removed = sink.or(&removed);
        self.feasible[event] = sink.and2(self.feasible[event], !any_removed);
        self.order_options[event] = options;
    }

    /// The option the solver chose for `event` under `truth`, when its order is chosen
    /// ([`Encoding::choose_order`]).
    pub fn chosen_order(
        &self,
        event: EventId,
        truth: &dyn Fn(Bool) -> bool,
    ) -> Option<OrderOption> {
        self.order_options[event]
            .iter()
            .find(|o| truth(o.selector))
            .copied()
    }

    /// Name the literals of feasibility, controls and relation pairs, with the 1-based event
    /// numbers of the event table, so that an exported instance can be read by hand.
    fn name_literals<S: ClauseSink>(&self, sink: &mut S) {
        for (e, &fb) in self.feasible.iter().enumerate() {
            name_bool(sink, fb, &|| format!("fb(e{})", e + 1));
        }
        for (c, &ctl) in self.controls.iter().enumerate() {
            name_bool(sink, ctl, &|| format!("ctl(c{})", c + 1));
        }
        for (relation, name) in [(&self.rf, "rf"), (&self.co, "co"), (&self.fr, "fr")] {
            for (a, b, lit) in relation.iter() {
                name_bool(sink, lit, &|| format!("{name}(e{},e{})", a + 1, b + 1));
            }
        }
        name_bool(sink, self.bound_hit, &|| "bound_hit".to_string());
        name_bool(sink, self.deadlock, &|| "deadlock".to_string());
        for &(e, fails) in &self.assertion_failures {
            name_bool(sink, fails, &|| format!("assert_fails(e{})", e + 1));
        }
    }

    /// The value a read returns, created on first use with its `rf` constraints: a read
    /// feasible read equals the write it reads from. Values nothing asks for (no branch, lock,
    /// assertion or condition depends on them) are never encoded: the cone of influence.
    fn read_value<S: ClauseSink>(&mut self, sink: &mut S, read: EventId, t: TermId) -> Value {
        let value = match self.events.value_set(t, self.thin_air) {
            Some(set) => Value::fresh_one_hot(sink, set),
            None => Value::fresh_bits(sink),
        };
        // Cached before the candidates are visited: value chains may lead back here.
        self.term_cache.insert(t, value.clone());
        for &w in &self.events.bounds.rf_candidates[read] {
            let rf = self.rf.get(w, read);
            if rf.is_false() {
                continue;
            }
            let written = self.event_value(sink, w);
            let same = value::equals(sink, &written, &value);
            sink.implies(rf, same);
        }
        value
    }

    /// The value an event reads, writes or computes.
    pub fn event_value<S: ClauseSink>(&mut self, sink: &mut S, e: EventId) -> Value {
        if let Some(v) = &self.values[e] {
            return v.clone();
        }
        let value = match self.events.events[e].value {
            Some(t) => self.term(sink, t),
            None => Value::constant(0),
        };
        self.bound_counter_write(sink, e, &value);
        self.values[e] = Some(value.clone());
        value
    }

    /// The value of event `e` as encoded so far, if something needed it.
    pub fn encoded_value(&self, e: EventId) -> Option<&Value> {
        self.values[e].as_ref().or_else(|| {
            self.events.events[e]
                .value
                .and_then(|t| self.term_cache.get(&t))
        })
    }

    /// From now on, and for the values already built, state that a feasible write of a
    /// counter holds a value of the counter's range (`events::counting`): its term `r + k`
    /// takes values up to `k` past the range's top, which only a write that does not run
    /// can have. Redundant (every execution satisfies it), but without it, ruling out a
    /// final value past the range (the last query of `outcomes` on an unlocked counter)
    /// meant refuting, order by order, every execution whose reads climb to the top.
    /// The counters at `except` are left alone: the session's locked-counter lemmas already
    /// tie their final value to a sum within the range (`encode::counting`), and clauses
    /// the solver does not need change its luck on their `exists` queries.
    pub fn bound_counter_writes<S: ClauseSink>(&mut self, sink: &mut S, except: &[LocId]) {
        self.counter_writes_bounded = Some(vec![false; self.values.len()]);
        self.counters_left_unbounded = except.to_vec();
        for e in 0..self.values.len() {
            if let Some(value) = self.values[e].clone() {
                self.bound_counter_write(sink, e, &value);
            }
        }
    }

    /// [`Encoding::bound_counter_writes`] for one event and its value.
    fn bound_counter_write<S: ClauseSink>(&mut self, sink: &mut S, e: EventId, value: &Value) {
        match self.counter_writes_bounded.as_mut() {
            Some(done) if !done[e] => done[e] = true,
            _ => return,
        }
        let event = &self.events.events[e];
        let Some(loc) = event.location.filter(|_| event.kind == EventKind::Write) else {
            return;
        };
        if self.sliced[loc] || self.counters_left_unbounded.contains(&loc) {
            return;
        }
        let Some(counter) = self
            .events
            .bounds
            .counters
            .iter()
            .find(|c| c.location == loc)
        else {
            return;
        };
        let Some(possible) = value.possible_values() else {
            return;
        };
        let (low, high) = counter.range;
        for v in possible {
            if !(low..=high).contains(&v) {
                let is_v = value::equals_const(sink, value, v);
                sink.clause(&[!self.feasible[e], !is_v]);
                self.counter_write_bounds += 1;
            }
        }
    }

    /// The value of a term, built once.
    pub fn term<S: ClauseSink>(&mut self, sink: &mut S, t: TermId) -> Value {
        if let Some(v) = self.term_cache.get(&t) {
            return v.clone();
        }
        let value = match *self.events.terms.get(t) {
            Term::Const(v) => Value::constant(v),
            // A lock acquisition reads the free mutex: 0.
            Term::Read(e)
                if self.events.events[e]
                    .location
                    .is_some_and(|l| self.mutexes[l]) =>
            {
                Value::constant(0)
            }
            Term::Read(e) => return self.read_value(sink, e, t),
            Term::Unary(op, a) => {
                let a = self.term(sink, a);
                value::apply_unary(sink, op, &a)
            }
            Term::Binary(op, a, b) => {
                let a = self.term(sink, a);
                let b = self.term(sink, b);
                value::apply_binary(sink, op, &a, &b, ONE_HOT_CAP)
            }
            Term::Ite(c, a, b) => {
                let c = self.term(sink, c);
                let cond = value::is_nonzero(sink, &c);
                let a = self.term(sink, a);
                let b = self.term(sink, b);
                value::ite(sink, cond, &a, &b, ONE_HOT_CAP)
            }
        };
        self.term_cache.insert(t, value.clone());
        value
    }

    /// The literal of a guard: the conjunction of its control literals.
    pub fn guard<S: ClauseSink>(&mut self, sink: &mut S, guard: &Guard) -> Bool {
        if let Some(&b) = self.guard_cache.get(guard) {
            return b;
        }
        let parts: Vec<Bool> = guard
            .0
            .iter()
            .map(|&(c, p)| {
                if p {
                    self.controls[c]
                } else {
                    !self.controls[c]
                }
            })
            .collect();
        let b = sink.and(&parts);
        self.guard_cache.insert(guard.clone(), b);
        b
    }

    /// `loc` is encoded as memory (`rf`, `co`, `fr`): not a mutex, not sliced away.
    fn is_memory(&self, loc: LocId) -> bool {
        !self.mutexes[loc] && !self.sliced[loc]
    }

    fn encode_rf<S: ClauseSink>(&mut self, sink: &mut S) {
        for read in self.events.reads() {
            if read.location.is_some_and(|l| !self.is_memory(l)) {
                continue;
            }
            let r = read.id;
            let candidates = &self.events.bounds.rf_candidates[r];
            let mut choices = Vec::with_capacity(candidates.len());
            for &w in candidates {
                let both = sink.and2(self.feasible[r], self.feasible[w]);
                let lit = if candidates.len() == 1 {
                    both
                } else {
                    let choice = Bool::Lit(sink.new_lit());
                    sink.implies(choice, both);
                    choice
                };
                self.rf.set(w, r, lit);
                choices.push(lit);
            }
            // A feasible read reads from exactly one write.
            let mut clause = vec![!self.feasible[r]];
            clause.extend(choices.iter().copied());
            sink.clause(&clause);
            sink.at_most_one(&choices);
        }
    }

    /// `co` from a per-location order: a strict total order of the feasible writes by
    /// construction, so models need not state its transitivity.
    fn encode_co<S: ClauseSink>(&mut self, sink: &mut S, strategy: AcyclicStrategy) {
        let events = self.events;
        for (loc, &init) in events.init.iter().enumerate() {
            // A cell nothing accesses has no initial write, and no other write.
            let Some(init) = init else {
                continue;
            };
            if !self.is_memory(loc) {
                continue;
            }
            let writes: Vec<EventId> = events
                .writes()
                .filter(|w| w.location == Some(loc) && w.kind != EventKind::Init)
                .map(|w| w.id)
                .collect();
            for &w in &writes {
                self.co.set(init, w, self.feasible[w]);
            }
            if writes.len() < 2 {
                continue;
            }
            let mut order = Order::new(sink, &writes, strategy);
            for i in 0..writes.len() {
                for j in 0..writes.len() {
                    if i == j {
                        continue;
                    }
                    let (a, b) = (writes[i], writes[j]);
                    let both = sink.and2(self.feasible[a], self.feasible[b]);
                    if both.is_false() {
                        continue;
                    }
                    if events.po(b, a) {
                        continue;
                    }
                    if events.po(a, b) {
                        // Coherence with program order holds in every model nemos ships.
                        order.constrain(sink, a, b, both);
                        self.co.set(a, b, both);
                        continue;
                    }
                    let lt = order.before(sink, a, b);
                    let co = sink.and2(both, lt);
                    self.co.set(a, b, co);
                }
            }
            // Distinct ranks for feasible writes: one of the two directions holds.
            for i in 0..writes.len() {
                for j in i + 1..writes.len() {
                    let (a, b) = (writes[i], writes[j]);
                    let both = sink.and2(self.feasible[a], self.feasible[b]);
                    let ab = self.co.get(a, b);
                    let ba = self.co.get(b, a);
                    sink.clause(&[!both, ab, ba]);
                }
            }
            self.co_orders.push(order);
        }
    }

    /// `fr = rf^-1; co`, exactly. Where a read has two ways or more to be `fr`-before a
    /// write: with `direct`, one literal per pair and, per candidate write `w` of the read,
    /// the two clauses `rf(w, r) & co(w, w2) -> fr(r, w2)` and `rf(w, r) & fr(r, w2) ->
    /// co(w, w2)` (a feasible read reads exactly one write); otherwise gates (`rf & co` per
    /// triple, then their disjunction), a literal and about four clauses per triple more.
    /// Either way cubic: 4 threads x 25 locked increments of one counter have a million
    /// triples.
    fn encode_fr<S: ClauseSink>(&mut self, sink: &mut S, direct: bool) {
        let events = self.events;
        for read in events.reads() {
            if read.location.is_some_and(|l| !self.is_memory(l)) {
                continue;
            }
            let r = read.id;
            for other in events.writes().filter(|w| w.location == read.location) {
                let w2 = other.id;
                let ways: Vec<EventId> = events.bounds.rf_candidates[r]
                    .iter()
                    .copied()
                    .filter(|&w| {
                        w != w2 && !self.co.get(w, w2).is_false() && !self.rf.get(w, r).is_false()
                    })
                    .collect();
                let fr = match ways[..] {
                    [] => Bool::FALSE,
                    // One way: the gate, folded when constant.
                    [w] => sink.and2(self.rf.get(w, r), self.co.get(w, w2)),
                    _ if direct => self.direct_fr(sink, r, w2),
                    _ => {
                        let gates: Vec<Bool> = ways
                            .iter()
                            .map(|&w| sink.and2(self.rf.get(w, r), self.co.get(w, w2)))
                            .collect();
                        sink.or(&gates)
                    }
                };
                self.fr.set(r, w2, fr);
            }
        }
    }

    /// The literal `fr(r, w2)`, defined by clauses per candidate write (see `encode_fr`).
    fn direct_fr<S: ClauseSink>(&mut self, sink: &mut S, r: EventId, w2: EventId) -> Bool {
        let fr = Bool::Lit(sink.new_lit());
        sink.implies(fr, self.feasible[r]);
        for &w in &self.events.bounds.rf_candidates[r] {
            let rf = self.rf.get(w, r);
            if w == w2 {
                sink.clause(&[!rf, !fr]);
                continue;
            }
            let co = self.co.get(w, w2);
            sink.clause(&[!rf, !co, fr]);
            sink.clause(&[!rf, co, !fr]);
        }
        fr
    }

    /// For each assumption that a create's or join's flag was written (the C front end's
    /// `spawn#k`/`exit#k` read, then assumed 1: `events::thread_sync`), the condition under
    /// which the assumption does not block the execution though the flag is 0; the thread
    /// then stops at it (`events::unroll`), and nothing after it runs.
    /// - A created thread whose create did not run (its creator ended first: at the
    ///   unrolling bound with `--end-threads-at-bound`, or cut there) is a thread that
    ///   never starts, as in C: no write of its flag ran.
    /// - A join waits for ever for a thread that ends without writing its flag, which
    ///   blocks the execution, but not when that thread was cut at the unrolling bound (a
    ///   hit of it, and no write of the flag ran): that execution is one cut at the bound,
    ///   reported as such, and the joiner stops there.
    fn flag_waits_released<S: ClauseSink>(
        &mut self,
        sink: &mut S,
        hits: &[Bool],
    ) -> HashMap<EventId, Bool> {
        let events = self.events;
        let sync = &events.thread_sync;
        let mut writes_of_read: BTreeMap<EventId, Vec<EventId>> = BTreeMap::new();
        for &(w, r) in sync.create.iter().chain(&sync.join) {
            writes_of_read.entry(r).or_default().push(w);
        }
        let mut out = HashMap::new();
        let assume_after = |r: EventId| {
            let read = &events.events[r];
            events
                .events
                .get(r + 1)
                .filter(|a| a.kind == EventKind::Assume && a.thread == read.thread)
                .map(|a| a.id)
        };
        let none_written = |sink: &mut S, r: EventId, feasible: &[Bool]| {
            let written: Vec<Bool> = writes_of_read
                .get(&r)
                .into_iter()
                .flatten()
                .map(|&w| feasible[w])
                .collect();
            !sink.or(&written)
        };
        for &r in &sync.starts {
            if let Some(assume) = assume_after(r) {
                let missing = none_written(sink, r, &self.feasible);
                out.insert(assume, missing);
            }
        }
        if hits.is_empty() {
            return out;
        }
        // A thread's hits, once, whatever the number of flags it writes.
        let mut hits_of_thread: BTreeMap<usize, Vec<Bool>> = BTreeMap::new();
        for (hit, &lit) in events.bound_hits.iter().zip(hits) {
            hits_of_thread.entry(hit.thread).or_default().push(lit);
        }
        let hit_of_thread: BTreeMap<usize, Bool> = hits_of_thread
            .into_iter()
            .map(|(thread, lits)| (thread, sink.or(&lits)))
            .collect();
        for &(_, r) in &sync.join {
            let Some(assume) = assume_after(r) else {
                continue;
            };
            if out.contains_key(&assume) {
                continue;
            }
            let cut: Vec<Bool> = writes_of_read[&r]
                .iter()
                .filter_map(|&w| events.events[w].thread)
                .filter_map(|writer| hit_of_thread.get(&writer).copied())
                .collect();
            let some_cut = sink.or(&cut);
            let missing = none_written(sink, r, &self.feasible);
            out.insert(assume, sink.and2(some_cut, missing));
        }
        out
    }

    /// Locks. A mutex is not memory: its critical sections (a `lock` and its matching
    /// `unlock`) are ordered by one choice literal per pair in different threads, and the
    /// lock order `lko` relates the first one's unlock to the second one's lock. Models put
    /// `lko` into their orders (SC: `acyclic po | com | lko`), which makes critical sections
    /// of one mutex disjoint. This is the paper's lock semantics; it replaces encoding a lock
    /// as a read-modify-write that reads 0, whose `rf` choices pose a pigeonhole problem
    /// (which of the releases does each acquisition read?) that SAT solvers find hard.
    /// A mutex initially held (non-zero) can never be acquired. A location used both as a
    /// lock and as data keeps the memory encoding: its acquisitions read 0.
    fn encode_locks<S: ClauseSink>(&mut self, sink: &mut S) {
        let events = self.events;
        for (loc, &init) in events.init.iter().enumerate() {
            // A cell nothing accesses: no acquisition to constrain.
            let Some(init) = init else {
                continue;
            };
            let acquisitions: Vec<(EventId, EventId)> = events
                .events
                .iter()
                .filter(|e| e.kind == EventKind::Lock && e.location == Some(loc))
                .filter_map(|e| e.lock_match.map(|u| (e.id, u)))
                .collect();
            if !self.mutexes[loc] {
                // Every acquisition, matched or not (herd's spin locks are matched by
                // lock.cat in each execution, not by the unroller).
                let all = events
                    .events
                    .iter()
                    .filter(|e| e.kind == EventKind::Lock && e.location == Some(loc));
                // A destroyed POSIX mutex may also be read as destroyed: a failed check
                // follows (`program::mutex`).
                let destroyed = self.program.locations[loc].mutex_destroyed;
                for k in all.map(|e| e.id) {
                    let read = self.event_value(sink, k);
                    let mut free = value::equals_const(sink, &read, 0);
                    if destroyed {
                        let gone =
                            value::equals_const(sink, &read, crate::program::mutex::DESTROYED);
                        free = sink.or2(free, gone);
                    }
                    sink.implies(self.feasible[k], free);
                }
                continue;
            }
            let initially_free = events.events[init]
                .value
                .and_then(|t| events.terms.constant_value(t))
                .is_none_or(|v| v == 0);
            if !initially_free {
                for &(k, _) in &acquisitions {
                    sink.assert_true(!self.feasible[k]);
                }
                continue;
            }
            for (i, &(ki, ui)) in acquisitions.iter().enumerate() {
                for &(kj, uj) in &acquisitions[i + 1..] {
                    if events.events[ki].thread == events.events[kj].thread {
                        // A thread holding the mutex cannot take it again: it waits there.
                        let nested = |k: EventId, u: EventId, other: EventId| {
                            let p = events.events[other].position;
                            events.events[k].position < p && p < events.events[u].position
                        };
                        if nested(ki, ui, kj) || nested(kj, uj, ki) {
                            sink.clause(&[!self.feasible[ki], !self.feasible[kj]]);
                        }
                        continue;
                    }
                    let both = sink.and2(self.feasible[ki], self.feasible[kj]);
                    if both.is_false() {
                        continue;
                    }
                    let i_first = Bool::Lit(sink.new_lit());
                    let forward = sink.and2(both, i_first);
                    let backward = sink.and2(both, !i_first);
                    // A section whose release never runs (the unrolling cut its thread
                    // short) holds the mutex for good: it comes last.
                    sink.implies(forward, self.feasible[ui]);
                    sink.implies(backward, self.feasible[uj]);
                    self.lko.set(ui, kj, forward);
                    self.lko.set(uj, ki, backward);
                    self.lock_choices.push((ki, kj, i_first));
                }
            }
        }
    }

    /// Where threads may block for good (`events::WaitOn`). A spin loop's thread is blocked
    /// when its kept iteration runs and the loop's condition still holds; it may only be
    /// when each read of that iteration reads the coherence-last write of its location
    /// (otherwise a later write would let a later iteration see a newer value: that
    /// execution is the one in which the kept iteration reads it). A thread at `lock(m)`
    /// may choose to block (the wait's value) only when the mutex ends held: a critical
    /// section of it whose release never runs (a mutex), or a non-zero final value (a lock
    /// that is also data).
    fn encode_waits<S: ClauseSink>(&mut self, sink: &mut S) {
        let events = self.events;
        let mut all = Vec::with_capacity(events.waits.len());
        for wait in &events.waits {
            let e = wait.event;
            let value = self.event_value(sink, e);
            let waits = value::is_nonzero(sink, &value);
            let blocked = sink.and2(self.feasible[e], waits);
            match &wait.on {
                WaitOn::Spin { reads, .. } => {
                    for &r in reads {
                        let loc = events.events[r].location;
                        // An exchange's read is followed by its own write, which writes back
                        // what it read when the loop spins: that write may follow. So may a
                        // lock's acquisition and the unlock of its section (the iteration's
                        // own writes after the lock, `flow::spin_reducible`), which leave
                        // the mutex free, as the lock read it.
                        let own = |x: &crate::events::Event| {
                            Some(x.id) == events.events[r].rmw
                                || (events.events[r].kind == EventKind::Lock
                                    && x.thread == events.events[r].thread
                                    && x.position > events.events[r].position)
                        };
                        for &w in &events.bounds.rf_candidates[r] {
                            let rf = self.rf.get(w, r);
                            if rf.is_false() {
                                continue;
                            }
                            for later in events.writes().filter(|x| x.location == loc && !own(x)) {
                                let co = self.co.get(w, later.id);
                                if !co.is_false() {
                                    sink.clause(&[!blocked, !rf, !co]);
                                }
                            }
                        }
                    }
                }
                WaitOn::Mutex { loc, lock } => {
                    sink.implies(waits, self.feasible[e]);
                    let held = if self.mutexes[*loc] {
                        let sections: Vec<Bool> = events
                            .events
                            .iter()
                            .filter(|k| k.kind == EventKind::Lock && k.location == Some(*loc))
                            .filter(|k| k.id != *lock)
                            .filter_map(|k| k.lock_match.map(|u| (k.id, u)))
                            .map(|(k, u)| sink.and2(self.feasible[k], !self.feasible[u]))
                            .collect();
                        sink.or(&sections)
                    } else {
                        let last = self.final_location(sink, *loc);
                        value::is_nonzero(sink, &last)
                    };
                    sink.implies(blocked, held);
                }
                // No write can let the loop out: reached is blocked.
                WaitOn::Forever { .. } => {}
            }
            self.blocked.push(blocked);
            all.push(blocked);
        }
        self.deadlock = sink.or(&all);
    }

    /// The final value of an observable.
    pub fn final_value<S: ClauseSink>(&mut self, sink: &mut S, var: Observable) -> Value {
        if let Some(v) = self.final_cache.get(&var) {
            return v.clone();
        }
        let value = match var {
            Observable::Reg { thread, reg } => {
                let t = self.events.final_registers[thread][reg];
                self.term(sink, t)
            }
            Observable::Loc(loc) => self.final_location(sink, loc),
        };
        self.final_cache.insert(var, value.clone());
        value
    }

    /// The value of `loc`'s initial write; its declared initial value when the write is
    /// left out (nothing accesses the cell).
    fn initial_value<S: ClauseSink>(&mut self, sink: &mut S, loc: LocId) -> Value {
        match self.events.init[loc] {
            Some(init) => self.event_value(sink, init),
            None => Value::constant(self.program.locations[loc].initial),
        }
    }

    /// The value of the `co`-last feasible write of `loc`. A mutex ends as it began, unless
    /// a critical section never releases it (its thread was cut short or stopped): then it
    /// ends held, with its acquisition's 1.
    fn final_location<S: ClauseSink>(&mut self, sink: &mut S, loc: LocId) -> Value {
        if self.mutexes[loc] {
            let initial = self.initial_value(sink, loc);
            let held: Vec<Bool> = self
                .events
                .events
                .iter()
                .filter(|e| e.kind == EventKind::Lock && e.location == Some(loc))
                .filter_map(|e| e.lock_match.map(|u| (e.id, u)))
                .map(|(k, u)| sink.and2(self.feasible[k], !self.feasible[u]))
                .collect();
            let held = sink.or(&held);
            return value::ite(sink, held, &Value::constant(1), &initial, ONE_HOT_CAP);
        }
        let writes: Vec<EventId> = self
            .events
            .writes()
            .filter(|w| w.location == Some(loc))
            .map(|w| w.id)
            .collect();
        let mut result = self.initial_value(sink, loc);
        for &w in &writes {
            if self.events.events[w].kind == EventKind::Init {
                continue;
            }
            let mut later = Vec::new();
            for &w2 in &writes {
                if w2 != w {
                    later.push(!self.co.get(w, w2));
                }
            }
            later.push(self.feasible[w]);
            let last = sink.and(&later);
            let v = self.event_value(sink, w);
            result = value::ite(sink, last, &v, &result, ONE_HOT_CAP);
        }
        result
    }

    /// The literal of a proposition over the final state.
    pub fn prop<S: ClauseSink>(&mut self, sink: &mut S, prop: &StateProp) -> Bool {
        match prop {
            StateProp::Const(b) => Bool::Const(*b),
            StateProp::Atom {
                var,
                value,
                negated,
            } => {
                let v = self.final_value(sink, *var);
                let eq = value::equals_const(sink, &v, *value);
                if *negated {
                    !eq
                } else {
                    eq
                }
            }
            StateProp::Equal { a, b, negated } => {
                let a = self.final_value(sink, *a);
                let b = self.final_value(sink, *b);
                let eq = value::equals(sink, &a, &b);
                if *negated {
                    !eq
                } else {
                    eq
                }
            }
            StateProp::Not(p) => {
                let p = self.prop(sink, p);
                !p
            }
            StateProp::And(a, b) => {
                let a = self.prop(sink, a);
                let b = self.prop(sink, b);
                sink.and2(a, b)
            }
            StateProp::Or(a, b) => {
                let a = self.prop(sink, a);
                let b = self.prop(sink, b);
                sink.or2(a, b)
            }
            StateProp::Implies(a, b) => {
                let a = self.prop(sink, a);
                let b = self.prop(sink, b);
                sink.or2(!a, b)
            }
        }
    }
}
