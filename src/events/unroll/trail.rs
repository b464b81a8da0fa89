//! The registers a branch changes, kept as a trail of the values they overwrite.
//!
//! A branch runs its two sides from the same registers and merges them at the join. Copying
//! every register (and its dependencies) before each branch made n nested branches over a
//! thread of n registers cost O(n^2) (5000 nested `if`s on reads: gigabytes): each open
//! branch kept its copy until its join. Instead, while a branch is open every register
//! write records the value and dependencies it overwrites (`ThreadState::set_register`), so
//! a side is undone by replaying its part of the trail backwards, and the join merges only
//! the registers either side wrote. The trail holds one entry per register write inside
//! open branches: linear in the program.

use std::collections::BTreeMap;

use super::{Deps, ThreadState};
use crate::events::TermId;
use crate::program::RegId;

/// A register's value and dependencies before a write.
pub(super) type Overwritten = (RegId, TermId, Deps);

/// A register's value and its dependencies.
pub(super) type Value = (TermId, Deps);

/// What one side of a branch wrote: per register, its value at the end of the side and the
/// one it had before the branch.
pub(super) struct Side {
    pub(super) written: BTreeMap<RegId, (Value, Value)>,
}

impl ThreadState {
    /// `reg` takes `value`, with `deps`; inside a branch, what it overwrites is kept.
    pub(super) fn set_register(&mut self, reg: RegId, value: TermId, deps: Deps) {
        let old_value = std::mem::replace(&mut self.registers[reg], value);
        let old_deps = std::mem::replace(&mut self.deps[reg], deps);
        if self.open_branches > 0 {
            self.trail.push((reg, old_value, old_deps));
        }
    }

    /// A side of a branch begins: where its part of the trail starts.
    pub(super) fn open_side(&mut self) -> usize {
        self.open_branches += 1;
        self.trail.len()
    }

    /// The side begun at `mark` ends: its writes undone (the registers are as before the
    /// branch again), and what it wrote returned.
    pub(super) fn close_side(&mut self, mark: usize) -> Side {
        self.open_branches -= 1;
        let mut written = BTreeMap::new();
        // Backwards, so the entry left for a register is its first write's: the value it
        // had before the branch.
        while self.trail.len() > mark {
            let Some((reg, old_value, old_deps)) = self.trail.pop() else {
                break;
            };
            let now_value = std::mem::replace(&mut self.registers[reg], old_value);
            let now_deps = std::mem::replace(&mut self.deps[reg], old_deps.clone());
            let end = written
                .remove(&reg)
                .map(|(end, _)| end)
                .unwrap_or((now_value, now_deps));
            written.insert(reg, (end, (old_value, old_deps)));
        }
        Side { written }
    }

    /// After the join: the registers the branch wrote keep, for an enclosing branch, the
    /// values they had before it.
    pub(super) fn record_before(&mut self, before: Vec<(RegId, TermId, Deps)>) {
        if self.open_branches > 0 {
            self.trail.extend(before);
        }
    }
}
