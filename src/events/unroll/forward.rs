//! Store forwarding under a coherent model: a plain read that coherence forces to read the
//! thread's own latest write (or the value the location had when the thread was created)
//! gives its register that write's value term instead of the read's own value.
//!
//! The read stays an event, with its `rf` candidates, its races and its flags; only the
//! register it loads holds another term, equal to the read's value in every execution of
//! a model with coherence (`po-loc | rf | co | fr` acyclic) and without load buffering
//! through thread creation (`po | rf` acyclic): SC and RC11 as shipped, with no check
//! skipped ([`crate::events::UnrollOptions::forward_stores`]; docs/unrolling.md, "Store
//! forwarding"). Pointers read from memory then keep the value their thread stored
//! (GenMC's locked trees and lists built by `main` before it starts its threads), so the
//! accesses through them split into the cells they name, not every cell they may name.
//!
//! Only C programs whose every other thread begins by waiting for its create (the front
//! end's `spawn#k` read) are forwarded, and only non-atomic reads. A read of location `l`
//! by thread `T` is forwarded when
//! - `T` is `main` (P0) before it has created any thread: nothing else runs yet;
//! - or no other thread's instructions may write `l` (their accesses' cells, a static
//!   over-approximation), and, for `T` other than `main`, `main` writes `l` only before its
//!   first create and that create precedes every other one (its guard is a prefix of
//!   theirs): every write of `l` is then `T`'s own or happens before `T` starts.
//!
//! The value is the thread's own latest write, kept in a register of its own per location
//! (after the program's registers), merged at joins and loop exits like any register;
//! before any own write, the initial value (for `main`) or `main`'s value at its first
//! create. A location the thread writes otherwise (read-modify-writes, locks) is not
//! forwarded from then on.

use std::collections::{BTreeSet, HashMap};

use super::{Builder, Deps, ThreadState};
use crate::events::{Events, Guard, TermId};
use crate::program::{Address, Instr, LocId, MemOrder, Program, RegId};

/// What the whole unrolling knows for forwarding.
pub(super) struct Forwarding {
    /// Per location, the threads other than `main` whose instructions may write it.
    writers: Vec<BTreeSet<usize>>,
    /// Per location, `main` wrote it after its first create.
    late: Vec<bool>,
    /// `main`'s first create: its guard, and each location's value there (`None`: not
    /// known), for the locations `main` wrote before it.
    created: Option<(Guard, HashMap<LocId, Option<TermId>>)>,
    /// Every later create of `main` is under a guard that extends the first's.
    creates_ordered: bool,
    /// Per location, whether it is a `spawn#k` flag.
    spawn_flags: Vec<bool>,
}

/// What one thread knows for forwarding.
pub(super) struct ThreadForward {
    /// Per location the thread stored to, the register holding its latest value.
    slots: HashMap<LocId, RegId>,
    /// The first such register, and each one's value before the thread's first store.
    first_slot: RegId,
    base: Vec<TermId>,
    /// Locations written otherwise: no longer forwarded.
    poisoned: BTreeSet<LocId>,
    /// `main` has not created a thread yet.
    alone: bool,
}

/// Rounds of unrolling tried to find the locations each thread writes.
pub(super) const MAX_ROUNDS: usize = 4;

/// Whether `program` has the shape forwarding needs: `main` and threads that each begin by
/// waiting for their create (a litmus test's threads all start at once).
pub(super) fn applies(program: &Program) -> bool {
    program.threads.len() >= 2
        && program.threads.iter().skip(1).all(|t| {
            matches!(t.body.first(), Some(Instr::Load { loc: Address::Fixed(l), .. })
                if program.locations.get(*l).is_some_and(|l| is_spawn_flag(&l.name)))
        })
}

fn is_spawn_flag(name: &str) -> bool {
    name.starts_with("spawn#")
}

/// Per location, the threads other than `main` assumed to write it.
#[derive(Clone)]
pub(super) struct Writers(Vec<BTreeSet<usize>>);

impl Writers {
    /// No thread assumed to write anything: the first round finds out.
    pub(super) fn new(program: &Program) -> Writers {
        Writers(vec![BTreeSet::new(); program.locations.len()])
    }

    /// Adds every write of a thread other than `main` in `events` that the sets lacked;
    /// whether any was added (the unrolling assumed too little and is not exact).
    pub(super) fn grow(&mut self, events: &Events) -> bool {
        let mut grown = false;
        for e in events.events.iter().filter(|e| e.is_write()) {
            let (Some(thread), Some(loc)) = (e.thread, e.location) else {
                continue;
            };
            if thread > 0 {
                if let Some(set) = self.0.get_mut(loc) {
                    grown |= set.insert(thread);
                }
            }
        }
        grown
    }
}

impl Forwarding {
    pub(super) fn new(program: &Program, writers: Writers) -> Forwarding {
        Forwarding {
            late: vec![false; program.locations.len()],
            writers: writers.0,
            created: None,
            creates_ordered: true,
            spawn_flags: program
                .locations
                .iter()
                .map(|l| is_spawn_flag(&l.name))
                .collect(),
        }
    }
}

impl ThreadForward {
    pub(super) fn new(first_slot: RegId, main: bool) -> ThreadForward {
        ThreadForward {
            slots: HashMap::new(),
            first_slot,
            base: Vec::new(),
            poisoned: BTreeSet::new(),
            alone: main,
        }
    }

    /// The value of register `reg` before the thread's first store, for a loop exit taken
    /// before its slot existed; `None` for a program register.
    pub(super) fn base_of(&self, reg: RegId) -> Option<TermId> {
        reg.checked_sub(self.first_slot)
            .and_then(|k| self.base.get(k).copied())
    }
}

impl ThreadState {
    /// Registers saved before some of forwarding's registers existed (at a loop's exit),
    /// completed with those registers' values before the thread's first store.
    pub(super) fn pad_forwarded(&self, registers: &mut Vec<TermId>, deps: &mut Vec<Deps>) {
        let Some(own) = self.forward.as_ref() else {
            return;
        };
        while registers.len() < self.registers.len() {
            let Some(base) = own.base_of(registers.len()) else {
                break;
            };
            registers.push(base);
            deps.push(Deps::new());
        }
    }
}

impl Builder {
    /// The value location `loc`'s latest value in `state`'s thread, when coherence forces a
    /// non-atomic read of it to read that (see the module's comment).
    pub(super) fn forwarded(
        &mut self,
        state: &ThreadState,
        loc: LocId,
        order: MemOrder,
    ) -> Option<TermId> {
        let forwarding = self.forwarding.as_ref()?;
        let own = state.forward.as_ref()?;
        if order != MemOrder::NonAtomic || own.poisoned.contains(&loc) {
            return None;
        }
        let others = forwarding.writers.get(loc)?;
        let sole = others.iter().all(|&t| t == state.index);
        let allowed = if state.index == 0 {
            own.alone || sole
        } else {
            sole && !forwarding.late.get(loc).copied().unwrap_or(true)
        };
        if !allowed {
            return None;
        }
        match own.slots.get(&loc) {
            Some(&slot) => Some(state.registers[slot]),
            None => self.base_value(state.index, loc),
        }
    }

    /// The value of `loc` when thread `thread` begins: its initial value for `main`,
    /// `main`'s at its first create for the others (`None` when not known).
    fn base_value(&mut self, thread: usize, loc: LocId) -> Option<TermId> {
        let initial = *self.initials.get(loc)?;
        if thread == 0 {
            return Some(self.terms.constant(initial));
        }
        let forwarding = self.forwarding.as_ref()?;
        let (_, values) = forwarding.created.as_ref()?;
        if !forwarding.creates_ordered {
            return None;
        }
        match values.get(&loc) {
            Some(known) => *known,
            None => Some(self.terms.constant(initial)),
        }
    }

    /// A write event of `state`'s thread on `loc`: with `value` when it is a plain store
    /// (its value is the location's from now on), without when it is not forwarded
    /// (read-modify-writes, locks). A create of `main` ends its time alone.
    pub(super) fn note_write(
        &mut self,
        state: &mut ThreadState,
        loc: LocId,
        value: Option<TermId>,
    ) {
        if self.forwarding.is_none() || state.forward.is_none() {
            return;
        }
        let main = state.index == 0;
        let spawn = self
            .forwarding
            .as_ref()
            .is_some_and(|f| f.spawn_flags.get(loc).copied().unwrap_or(false));
        if main {
            let alone = state.forward.as_ref().is_some_and(|f| f.alone);
            if let Some(forwarding) = self.forwarding.as_mut() {
                if alone && spawn {
                    let own = state.forward.as_ref().expect("checked above");
                    let mut values: HashMap<LocId, Option<TermId>> = own
                        .slots
                        .iter()
                        .map(|(&l, &slot)| (l, Some(state.registers[slot])))
                        .collect();
                    values.extend(own.poisoned.iter().map(|&l| (l, None)));
                    forwarding.created = Some((state.guard.clone(), values));
                } else if spawn {
                    let ordered = forwarding
                        .created
                        .as_ref()
                        .is_some_and(|(first, _)| state.guard.0.starts_with(&first.0));
                    forwarding.creates_ordered &= ordered;
                }
                if !alone {
                    if let Some(late) = forwarding.late.get_mut(loc) {
                        *late = true;
                    }
                }
            }
            if spawn {
                if let Some(own) = state.forward.as_mut() {
                    own.alone = false;
                }
            }
        }
        let Some(value) = value else {
            if let Some(own) = state.forward.as_mut() {
                own.poisoned.insert(loc);
            }
            return;
        };
        let slot = match state.forward.as_ref().and_then(|f| f.slots.get(&loc)) {
            Some(&slot) => slot,
            None => {
                let Some(base) = self.base_value(state.index, loc) else {
                    if let Some(own) = state.forward.as_mut() {
                        own.poisoned.insert(loc);
                    }
                    return;
                };
                let slot = state.registers.len();
                state.registers.push(base);
                state.deps.push(Deps::new());
                if let Some(own) = state.forward.as_mut() {
                    own.slots.insert(loc, slot);
                    own.base.push(base);
                }
                slot
            }
        };
        state.set_register(slot, value, Deps::new());
    }
}
