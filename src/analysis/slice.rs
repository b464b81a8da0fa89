//! The races query's cone-of-influence slice: locations whose memory it need not encode.
//!
//! Under SC, `races` decides, per pair of conflicting accesses, whether some execution runs
//! both with neither `hb`-before the other, `hb = (po | lko | [W \ NA]; rf; [R \ NA])+`
//! (`races.rs`). A location `L` qualifies when
//! - every access to it is a plain (non-atomic) read or write, no half of a read-modify-write,
//!   no lock, fence or spin-lock event names it: `rf` on `L` never enters `hb`;
//! - no value read from `L` reaches anything the encoding constrains: a branch or loop
//!   condition (so no guard, address case split or bounds check), an assertion, `assume`,
//!   a wait, a dependency's condition, a write to another location, or a register the
//!   filter reads; values of `L` may flow only into writes of `L` and into registers nobody
//!   observes (the races query reads no final state), and the filter does not name `L`;
//! - no reduced spin loop reads it (a blocked loop constrains which write it reads).
//!
//! The same holds under RC11 (its own `race`, `hb = (sb | sw | lko)+`) for programs with no
//! fence or atomic block, and with locks only where every read left is a mutex's
//! ([`races_slice`]): `sw` never involves such a location, and its completion runs along
//! an order of `po | rf` (the mutexes' `rf` being the lock order) instead of an
//! interleaving.
//!
//! Such a location's `rf`, `co` and `fr` are left out of the encoding
//! ([`crate::encode::Encoding::sliced`]); why no race, bound hit or deadlock is lost or
//! invented is argued in docs/races-slice.md. In short:
//! every execution of the full encoding restricted to the rest is one of the sliced
//! encoding (its constraints are a subset, over the same literals), and every solution of
//! the sliced encoding extends to a full execution by running its events in an order of
//! `po | rf | co | fr | lko` over the rest and letting each read of `L` read the latest
//! write of `L` before it (`witness::Execution::decode` does exactly that for the witness).

use std::sync::OnceLock;

use crate::cat::Model;
use crate::events::{EventKind, Events, Term, WaitOn};
use crate::program::{MemOrder, Observable, Program};

/// The model is SC as shipped (`models/sc.cat`, wherever it was read from): the slice's
/// argument is made for its checks, `acyclic po | com | lko` and RMW atomicity.
pub fn is_sc(model: &Model) -> bool {
    // A model with a `let rec` is neither (see `same_model`): spare loading the shipped
    // one to compare with (half a million instructions on each LKMM test).
    if !model.rec_groups.is_empty() {
        return false;
    }
    static SC: OnceLock<Model> = OnceLock::new();
    same_model(model, SC.get_or_init(crate::cat::sc))
}

/// The model is RC11 as shipped (`models/rc11.cat`): the slice's argument for it
/// (docs/races-slice.md) needs a program without fences and atomic blocks ([`races_slice`]).
pub fn is_rc11(model: &Model) -> bool {
    if !model.rec_groups.is_empty() {
        return false;
    }
    static RC11: OnceLock<Option<Model>> = OnceLock::new();
    RC11.get_or_init(|| crate::cat::load_shipped("rc11").and_then(Result::ok))
        .as_ref()
        .is_some_and(|rc11| same_model(model, rc11))
}

/// The same definitions and checks (names, flags, expressions) as `shipped`.
fn same_model(model: &Model, shipped: &Model) -> bool {
    model.defs == shipped.defs
        && model.rec_groups.is_empty()
        && model.checks.len() == shipped.checks.len()
        && model.checks.iter().zip(&shipped.checks).all(|(a, b)| {
            (a.kind, a.negated, a.flag, &a.name, &a.expr)
                == (b.kind, b.negated, b.flag, &b.name, &b.expr)
        })
}

/// Per location: left out of a session under `model` that answers races and nothing else.
/// Under SC, every location [`unobservable_locations`] finds. Under RC11 as shipped, the
/// same in a program with no fence (an SC fence's `psc` edges reach `eco`) and no atomic
/// block; with a lock or unlock, only when every read outside a mutex is left out: the
/// completion runs along `po | rf`, which must then hold RC11's `hb`, lock order included,
/// and a kept location's `rf` could run against the lock order. Nothing is left out under
/// any other model.
pub fn races_slice(model: &Model, program: &Program, events: &Events) -> Vec<bool> {
    if is_sc(model) {
        return unobservable_locations(program, events);
    }
    match rc11_slice(model, program, events) {
        Some(sliced)
            if !has_any(events, &[EventKind::Lock, EventKind::Unlock])
                || every_read_left_out(program, events, &sliced) =>
        {
            sliced
        }
        _ => vec![false; events.init.len()],
    }
}

/// Under RC11 as shipped, the races of a program whose every read (apart from lock
/// acquisitions) is of a location the slice leaves out are SC's: no atomic read is left, so
/// `sw` is empty and RC11's `hb` is `(sb | lko)+`, SC's race `hb`; no kept value reaches a
/// branch, so both models allow the same events with any order of the critical sections;
/// and both call a race a conflicting pair, one access plain, that `hb` orders neither way
/// (docs/races-slice.md). The races query then runs SC's encoding, which
/// builds no `hb` closure.
pub fn rc11_races_are_sc(model: &Model, program: &Program, events: &Events) -> bool {
    // SC's own races are asked often: spare them loading RC11's model to compare with.
    !is_sc(model)
        && rc11_slice(model, program, events)
            .is_some_and(|sliced| every_read_left_out(program, events, &sliced))
}

/// The locations RC11's races may leave out in a program without fences and atomic blocks
/// (`None` for any other model or program).
fn rc11_slice(model: &Model, program: &Program, events: &Events) -> Option<Vec<bool>> {
    let synchronising = [
        EventKind::Fence,
        EventKind::AtomicEnter,
        EventKind::AtomicExit,
    ];
    (is_rc11(model) && !has_any(events, &synchronising))
        .then(|| unobservable_locations(program, events))
}

fn has_any(events: &Events, kinds: &[EventKind]) -> bool {
    events.events.iter().any(|e| kinds.contains(&e.kind))
}

/// Every read is a lock acquisition or reads a location in `sliced`.
fn every_read_left_out(program: &Program, events: &Events, sliced: &[bool]) -> bool {
    let mutexes = crate::encode::mutex_locations(program, events);
    events
        .events
        .iter()
        .filter(|e| e.is_read())
        .filter_map(|e| e.location)
        .all(|l| sliced[l] || mutexes[l])
}

/// Per location: its memory can be left out of a session that answers SC's races and
/// nothing else (see the module's documentation for the conditions).
pub fn unobservable_locations(program: &Program, events: &Events) -> Vec<bool> {
    let locations = events.init.len();
    let mut candidate: Vec<bool> = (0..locations)
        .map(|l| {
            program
                .locations
                .get(l)
                .is_some_and(|loc| !loc.is_lock && !loc.herd_lock)
        })
        .collect();
    for e in &events.events {
        let Some(l) = e.location else { continue };
        let plain = match e.kind {
            EventKind::Init => true,
            EventKind::Read | EventKind::Write => {
                e.order == MemOrder::NonAtomic && e.rmw.is_none() && e.failure_order.is_none()
            }
            _ => false,
        };
        if !plain {
            candidate[l] = false;
        }
    }
    for wait in &events.waits {
        if let WaitOn::Spin { reads, .. } = &wait.on {
            for l in reads.iter().filter_map(|&r| events.events[r].location) {
                candidate[l] = false;
            }
        }
    }
    let mut filtered = Vec::new();
    if let Some(filter) = &program.filter {
        filter.observables(&mut filtered);
    }
    for o in &filtered {
        if let Observable::Loc(l) = *o {
            candidate[l] = false;
        }
    }
    let taint = Taint::new(events, &candidate);
    if taint.tracked.is_empty() {
        return candidate;
    }
    // Where values are constrained: every term below disqualifies the candidates whose
    // reads it mentions (a write's value all but its own location's).
    let mut sinks: Vec<(usize, Option<usize>)> = Vec::new();
    for e in &events.events {
        let Some(t) = e.value else { continue };
        match e.kind {
            // A read's value is the read itself; a computation's feeds only later terms.
            EventKind::Read | EventKind::Lock | EventKind::Computation => {}
            EventKind::Init | EventKind::Write => sinks.push((t, e.location)),
            _ => sinks.push((t, None)),
        }
    }
    sinks.extend(events.controls.iter().map(|c| (c.term, None)));
    let deps = &events.dependencies;
    sinks.extend(
        deps.addr
            .iter()
            .chain(&deps.data)
            .map(|d| (d.when, None))
            .chain(deps.ctrl.iter().map(|s| (s.when, None))),
    );
    sinks.extend(events.access_checks.values().map(|c| (c.selector, None)));
    for o in &filtered {
        if let Observable::Reg { thread, reg } = *o {
            if let Some(&t) = events.final_registers.get(thread).and_then(|r| r.get(reg)) {
                sinks.push((t, None));
            }
        }
    }
    for (t, own) in sinks {
        for l in taint.locations(t) {
            if Some(l) != own {
                candidate[l] = false;
            }
        }
    }
    candidate
}

/// Per term, the candidate locations whose reads it mentions, as bits.
struct Taint {
    /// The candidate locations, by bit.
    tracked: Vec<usize>,
    words: usize,
    bits: Vec<u64>,
}

impl Taint {
    fn new(events: &Events, candidate: &[bool]) -> Taint {
        let tracked: Vec<usize> = (0..candidate.len()).filter(|&l| candidate[l]).collect();
        let mut bit = vec![None; candidate.len()];
        for (i, &l) in tracked.iter().enumerate() {
            bit[l] = Some(i);
        }
        let words = tracked.len().div_ceil(64);
        let terms = events.terms.len();
        let mut bits = vec![0u64; terms * words];
        if words == 0 {
            return Taint {
                tracked,
                words,
                bits,
            };
        }
        // Hash-consing builds a term after its operands: one pass in order suffices.
        for t in 0..terms {
            let operands: Vec<usize> = match *events.terms.get(t) {
                Term::Const(_) => Vec::new(),
                Term::Read(e) => {
                    let event = &events.events[e];
                    if let (EventKind::Read, Some(i)) =
                        (event.kind, event.location.and_then(|l| bit[l]))
                    {
                        bits[t * words + i / 64] |= 1 << (i % 64);
                    }
                    Vec::new()
                }
                Term::Unary(_, a) => vec![a],
                Term::Binary(_, a, b) => vec![a, b],
                Term::Ite(c, a, b) => vec![c, a, b],
            };
            for a in operands {
                debug_assert!(a < t, "a term's operands are built before it");
                for w in 0..words {
                    bits[t * words + w] |= bits[a * words + w];
                }
            }
        }
        Taint {
            tracked,
            words,
            bits,
        }
    }

    /// The candidate locations whose reads term `t` mentions.
    fn locations(&self, t: usize) -> impl Iterator<Item = usize> + '_ {
        self.tracked.iter().enumerate().filter_map(move |(i, &l)| {
            let word = self.bits[t * self.words + i / 64];
            (word >> (i % 64) & 1 == 1).then_some(l)
        })
    }
}
