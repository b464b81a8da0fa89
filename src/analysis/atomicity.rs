//! Atomicity of `atomic { }` blocks (the Nemos/DefectFinder paper, Appendix D and
//! section 6).
//!
//! Three strengths, from the paper's definition to what a user of a data structure observes:
//! - `strict`: some SC execution places an event of another thread between the block's entry
//!   and exit (neither before the entry nor after the exit in some interleaving);
//! - `window` (the paper's "variable window"): the same, counting only an intruder that
//!   touches a location the block touches, with one of the two accesses a write;
//! - `serial`: some final state is reachable that no execution running every atomic block
//!   without interruption reaches (serializability of the blocks).
//!
//! "Between" is asked of the SC order itself ([`crate::encode::acyclic::Order::before`]):
//! any order satisfying the model's edges is an interleaving of the execution.

use std::collections::BTreeMap;

use serde::Serialize;

use super::races::{Statement, StatementPair};
use super::{AnalysisError, Candidates, FinalState, Session};
use crate::encode::cnf::{Bool, ClauseSink, Gates};
use crate::events::{EventId, EventKind, Events};
use crate::program::Observable;
use crate::witness::Execution;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
pub enum AtomicityMode {
    Strict,
    #[default]
    Window,
    Serial,
}

/// An atomic block interrupted by a statement of another thread.
#[derive(Clone, Debug, Serialize)]
pub struct Interruption {
    /// The `atomic { }` statement.
    pub block: Statement,
    pub intruder: Statement,
    /// The block's first operation, the intruding event and the block's last operation.
    pub events: (EventId, EventId, EventId),
    pub witness: Execution,
}

/// A final state reachable only when some atomic block is interrupted.
#[derive(Clone, Debug, Serialize)]
pub struct NonSerialState {
    pub state: FinalState,
    pub witness: Execution,
}

#[derive(Clone, Debug, Serialize)]
pub struct AtomicityResult {
    pub mode: AtomicityMode,
    pub blocks: usize,
    pub interruptions: Vec<Interruption>,
    pub non_serial_states: Vec<NonSerialState>,
    pub bound_hit: bool,
}

impl AtomicityResult {
    pub fn violated(&self) -> bool {
        !self.interruptions.is_empty() || !self.non_serial_states.is_empty()
    }
}

/// Events that can intrude into another thread's block: memory accesses (locks included)
/// and fences. Computations and controls are thread-local bookkeeping.
fn can_intrude(events: &Events, e: EventId) -> bool {
    let event = &events.events[e];
    event.thread.is_some() && (event.is_memory() || event.kind == EventKind::Fence)
}

/// One executed instance of an `atomic { }` block.
struct Block {
    /// The `AtomicEnter` event: names the block's statement.
    enter: EventId,
    /// The block's operations in program order: the events that can intrude elsewhere
    /// (memory accesses, lock operations, fences). The paper bounds a block by its first
    /// and last operation; computations and controls are thread-local and their place in an
    /// interleaving is unobservable.
    operations: Vec<EventId>,
}

fn blocks(events: &Events) -> Vec<Block> {
    let mut result = Vec::new();
    for enter in events
        .events
        .iter()
        .filter(|e| e.kind == EventKind::AtomicEnter)
    {
        let (Some(exit), Some(thread)) = (enter.atomic_match, enter.thread) else {
            continue;
        };
        let operations: Vec<EventId> = events.threads[thread]
            .iter()
            .copied()
            .filter(|&e| events.po(enter.id, e) && events.po(e, exit) && can_intrude(events, e))
            .collect();
        if !operations.is_empty() {
            result.push(Block {
                enter: enter.id,
                operations,
            });
        }
    }
    result
}

/// The block's operations that touch `k`'s location, with one of the two a write.
fn overlaps_window(events: &Events, block: &Block, k: EventId) -> Vec<EventId> {
    let ek = &events.events[k];
    block
        .operations
        .iter()
        .copied()
        .filter(|&e| {
            let inner = &events.events[e];
            inner.is_memory()
                && ek.location.is_some()
                && inner.location == ek.location
                && (inner.is_write() || ek.is_write())
        })
        .collect()
}

impl Session<'_> {
    pub fn atomicity(&mut self, mode: AtomicityMode) -> Result<AtomicityResult, AnalysisError> {
        let events = self.encoding.events;
        let blocks = blocks(events);
        self.rmw_indivisible();
        let mut result = AtomicityResult {
            mode,
            blocks: blocks.len(),
            interruptions: Vec::new(),
            non_serial_states: Vec::new(),
            bound_hit: self.bound_reachable()?,
        };
        match mode {
            AtomicityMode::Strict | AtomicityMode::Window => {
                result.interruptions = self.interruptions(&blocks, mode)?;
            }
            AtomicityMode::Serial => {
                result.non_serial_states = self.non_serial_states(&blocks)?;
            }
        }
        Ok(result)
    }

    /// Under SC a read-modify-write is one indivisible step (one event in the paper), but
    /// nemos splits it into a read and a write, and `po | rf | co | fr` alone lets an
    /// unrelated event of another thread fall between the halves: `atomic { fetch_add(x) }`
    /// would then look interrupted by `y = 1`. Keep every other thread's operations out of
    /// that gap. This removes no execution: with RMW atomicity the execution graph with each
    /// RMW contracted to one node stays acyclic, so some interleaving runs each RMW at once.
    /// When the `atomic` check is skipped RMWs are not atomic, and neither is their gap.
    fn rmw_indivisible(&mut self) {
        let events = self.encoding.events;
        let Some(atomic) = self.check_in_force("atomic") else {
            return;
        };
        for read in events.reads() {
            let Some(write) = read.rmw else { continue };
            for k in (0..events.len()).filter(|&k| can_intrude(events, k)) {
                if events.events[k].thread == read.thread {
                    continue;
                }
                let k_first = self.order_before(k, read.id);
                let k_last = self.order_before(write, k);
                let write_executes = self.encoding.feasible[write];
                self.solver
                    .clause(&[!atomic, !write_executes, k_first, k_last]);
            }
        }
    }

    /// `k` lies between two executed operations of the block in the SC order, that is,
    /// between its first and last executed operation.
    fn inside(&mut self, block: &Block, k: EventId) -> Bool {
        let mut after_some = Vec::new();
        let mut before_some = Vec::new();
        for &op in &block.operations {
            let fb = self.encoding.feasible[op];
            let op_first = self.order_before(op, k);
            let k_first = self.order_before(k, op);
            after_some.push(self.solver.and2(fb, op_first));
            before_some.push(self.solver.and2(fb, k_first));
        }
        let after = self.solver.or(&after_some);
        let before = self.solver.or(&before_some);
        self.solver.and(&[self.encoding.feasible[k], after, before])
    }

    fn interruptions(
        &mut self,
        blocks: &[Block],
        mode: AtomicityMode,
    ) -> Result<Vec<Interruption>, AnalysisError> {
        let events = self.encoding.events;
        let mut by_statement: Candidates<StatementPair, (EventId, EventId, EventId)> =
            BTreeMap::new();
        for block in blocks {
            let thread = events.events[block.enter].thread;
            let (first, last) = (
                block.operations[0],
                block.operations[block.operations.len() - 1],
            );
            for k in (0..events.len()).filter(|&k| can_intrude(events, k)) {
                if events.events[k].thread == thread {
                    continue;
                }
                let mut violation = self.inside(block, k);
                if mode == AtomicityMode::Window {
                    let touched: Vec<Bool> = overlaps_window(events, block, k)
                        .into_iter()
                        .map(|e| self.encoding.feasible[e])
                        .collect();
                    let overlap = self.solver.or(&touched);
                    violation = self.solver.and2(violation, overlap);
                }
                if violation.is_false() {
                    continue;
                }
                let key = (Statement::of(events, block.enter), Statement::of(events, k));
                by_statement
                    .entry(key)
                    .or_default()
                    .push(((first, k, last), violation));
            }
        }
        let found = self.each_distinct(by_statement, true)?;
        Ok(found
            .into_iter()
            .map(|found| Interruption {
                block: found.key.0,
                intruder: found.key.1,
                events: found.instance,
                witness: found.witness,
            })
            .collect())
    }

    fn non_serial_states(
        &mut self,
        blocks: &[Block],
    ) -> Result<Vec<NonSerialState>, AnalysisError> {
        let program = self.encoding.program;
        let events = self.encoding.events;
        // The whole final state: every register the source names and every data location.
        let mut observed = Vec::new();
        for (t, thread) in program.threads.iter().enumerate() {
            for (r, reg) in thread.registers.iter().enumerate() {
                if !reg.temporary {
                    observed.push(Observable::Reg { thread: t, reg: r });
                }
            }
        }
        for (l, loc) in program.locations.iter().enumerate() {
            if !loc.is_lock {
                observed.push(Observable::Loc(l));
            }
        }
        self.observe(observed);
        let serial = Bool::Lit(self.solver.new_lit());
        for block in blocks {
            let thread = events.events[block.enter].thread;
            for k in (0..events.len()).filter(|&k| can_intrude(events, k)) {
                if events.events[k].thread == thread {
                    continue;
                }
                let inside = self.inside(block, k);
                self.solver.clause(&[!serial, !inside]);
            }
        }
        let all = self.outcomes_under(&[])?;
        let serial_states = self.outcomes_under(&[serial])?;
        let mut found = Vec::new();
        for state in all {
            if serial_states.iter().any(|s| s.values == state.values) {
                continue;
            }
            let mut pins = vec![self.within_bound];
            for ((_, value), &(_, v)) in self.observed.iter().zip(&state.values) {
                pins.push(crate::encode::value::equals_const(
                    &mut self.solver,
                    value,
                    v,
                ));
            }
            if let Some(mut witness) = self.find(&pins)? {
                if let Some(priority) = self.order_priority() {
                    witness.reinterleave(events, &priority);
                }
                found.push(NonSerialState { state, witness });
            }
        }
        Ok(found)
    }
}
