//! What `--block-at-bound` left out, told by the answer's own session.
//!
//! The block says that the executions which meet the unrolling bound are not executions of
//! the bounded program. `check` and `outcomes` must still say whether there were such
//! executions (and how many, under `--count`): GenMC's blocked executions. A session in
//! which the block is a clause cannot say (there those executions do not exist), and a
//! second session without it repeats the whole encoding and, worse, the proof that no
//! execution meets the bound, from nothing.
//!
//! Instead the answer's session is built with the block deferred (`defer_block` of
//! `EncodingOptions`: `!bound_hit` is not asserted). Every solve of `check` assumes
//! `within_bound`, which holds `!bound_hit`, so its verdict, witnesses, assertions, flags
//! and deadlocks are those of the blocked program; and `check`'s own question "does some
//! execution meet the bound" ([`Session::bound_reachable`], which the block would answer
//! at once) is then exactly the question of what was left out, answered with every clause
//! the solver learned on the way. [`Session::left_out`] reads it off the result, counts
//! those executions when asked, and closes the block: from there on the session is the
//! blocked one (final states, counts, pictures).

use super::query::LeftAtBound;
use super::{AnalysisError, AnalysisOptions, CheckResult, Session};
use crate::encode::cnf::Gates;
use crate::events::Events;
use crate::program::Program;

impl<'a> Session<'a> {
    /// A session for `check` or `outcomes` of `events` whose `--block-at-bound` is not in
    /// force until [`Session::left_out`] (the same as [`Session::new`] without the block).
    pub fn with_block_deferred(
        program: &'a Program,
        events: &'a Events,
        options: &AnalysisOptions,
    ) -> Result<Session<'a>, AnalysisError> {
        Session::build(program, events, options, true, |_, _| {})
    }

    /// After [`Session::check`] of a session [`Session::with_block_deferred`]: the
    /// executions the block leaves out, if any meets the bound (`result.bound_hit`, then
    /// set false, as the block makes it), with their number when `counted`
    /// ([`Session::count_cut_executions`]); and the block, in force from now on.
    pub fn left_out(
        &mut self,
        result: &mut CheckResult,
        counted: bool,
    ) -> Result<Option<LeftAtBound>, AnalysisError> {
        if !self.block_deferred {
            return Ok(None);
        }
        let left = if result.bound_hit {
            let count = match counted {
                true => Some(self.count_cut_executions()?),
                false => None,
            };
            Some(LeftAtBound { count })
        } else {
            None
        };
        result.bound_hit = false;
        self.close_block();
        Ok(left)
    }

    /// Put the deferred block in force: no execution meets the bound from now on.
    fn close_block(&mut self) {
        if std::mem::take(&mut self.block_deferred) {
            let hit = self.encoding.bound_hit;
            self.solver.assert_true(!hit);
        }
    }
}
