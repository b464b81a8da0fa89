//! Code no execution runs: a guard that holds in no execution, known while unrolling.
//!
//! A control whose term is the constant 0 (the validity check of an access whose selector
//! can denote no cell, under the value sets of `values.rs`: a read through a pointer
//! assumed null) is false in every execution, and so is every control defined within it.
//! A loop whose condition is known while unrolling runs its own trip count (up to 1024
//! iterations, `control.rs`); under such a guard it would unroll every one of them for
//! nothing. [`Builder::guard_dead`] lets it stop there: events under a guard that never
//! holds are in no execution, so leaving them out loses none.

use super::Builder;
use crate::events::{ControlId, Guard};

impl Builder {
    /// Whether control `control` (just made) is false in every execution: its term is the
    /// constant 0, or it is defined within a guard that holds in none.
    pub(super) fn note_control(&mut self, control: ControlId) {
        let c = &self.controls[control];
        let dead = self.terms.constant_value(c.term) == Some(0) || self.guard_dead(&c.within);
        if self.dead_controls.len() <= control {
            self.dead_controls.resize(control + 1, false);
        }
        self.dead_controls[control] = dead;
    }

    /// Whether `guard` holds in no execution, as far as the constants show: one of its
    /// literals asks a control that is always false to hold.
    pub(super) fn guard_dead(&self, guard: &Guard) -> bool {
        guard.0.iter().any(|&(control, polarity)| {
            polarity && self.dead_controls.get(control).copied().unwrap_or(false)
        })
    }
}
