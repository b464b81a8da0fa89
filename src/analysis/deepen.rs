//! Unrolling a C program as far as its executions need, as GenMC explores a program without
//! a bound: a loop that always ends (a reader that walks an array to its last zero, a
//! reader that gives up after 40 tries) is decided without the user guessing `--unroll`.
//!
//! The answer at a bound is exact as soon as no execution is cut by it: every execution of
//! the program then runs each loop fewer times than the bound, so it is an execution of the
//! unrolled program too (and the converse always holds). So the bound doubles while some
//! execution is cut, and stops there; a loop that may run forever (a counter that grows
//! while it waits) keeps executions cut at every bound, and the answer at the last bound
//! tried is given, cut, as a bound's answer always is.

use super::query::{ask, Answer, Finding, Query, QueryOptions, Severity};
use super::AnalysisError;
use crate::cfront;
use crate::events::{self, UnrollOptions};
use crate::load::{LoadOptions, Test};

/// The largest bound the doubling tries: loops that need more (GenMC's suite has one that
/// gives up after 40 tries) are rare, and each doubling costs a larger solve.
pub const MAX_UNROLL_AS_NEEDED: u32 = crate::load::MAX_UNROLL_AS_NEEDED;

/// Whether `query` on `test`, loaded with `load`, is answered with the bound raised as far
/// as the executions need: a C file whose bound the caller left to nemos
/// ([`LoadOptions::unroll_as_needed`]), asked one of GenMC's questions (its verdict, its
/// final states, its races). The other queries reload their own variants of the program at
/// the bound they were given.
pub fn unrolls_as_needed(test: &Test, query: Query, load: &LoadOptions) -> bool {
    load.unroll_as_needed
        && !load.block_at_bound
        && cfront::is_c_file(&test.file().name)
        && matches!(query, Query::Check { .. } | Query::Outcomes | Query::Races)
}

/// Ask `query` of `test`, doubling the unrolling bound while the answer has executions cut
/// by it and no defect (a defect found within a bound is one of the program's, whatever the
/// bound: GenMC, too, stops at the first), up to [`MAX_UNROLL_AS_NEEDED`] and never past
/// `load.max_events`: the test at the bound answered and its answer.
pub fn ask_unrolled_as_needed(
    mut test: Test,
    query: Query,
    options: &QueryOptions,
    load: &LoadOptions,
) -> Result<(Test, Answer), AnalysisError> {
    let mut answer = ask(&test, query, options)?;
    if !unrolls_as_needed(&test, query, load) {
        return Ok((test, answer));
    }
    while cut_by_bound(&answer) && test.events.unroll < MAX_UNROLL_AS_NEEDED {
        let unroll = (test.events.unroll.max(1) * 2).min(MAX_UNROLL_AS_NEEDED);
        let deeper = events::unroll(
            &test.program,
            UnrollOptions {
                unroll,
                max_events: load.max_events,
                end_threads_at_bound: load.end_threads_at_bound,
                forward_stores: load.forward_stores,
            },
        );
        // Past the event limit (or any refusal the larger bound brings) the answer at the
        // last bound stands, with its executions cut.
        let Ok(mut events) = deeper else { break };
        events.block_at_bound = load.block_at_bound;
        let deeper = Test {
            program: test.program.clone(),
            events,
        };
        let deeper_answer = ask(&deeper, query, options)?;
        if matches!(deeper_answer.finding, Finding::Limit(_)) {
            break;
        }
        test = deeper;
        answer = deeper_answer;
    }
    Ok((test, answer))
}

/// Whether the answer is cut by the unrolling bound and by nothing else: no defect found,
/// and no other limit (an enumeration of final states stopped at its cap is not one a
/// larger bound lifts).
fn cut_by_bound(answer: &Answer) -> bool {
    let bound_hit = match &answer.finding {
        Finding::Check(found) => found.result.bound_hit && !found.states_cut,
        Finding::Races(result) => result.bound_hit,
        _ => false,
    };
    bound_hit && answer.severity() == Severity::LimitHit
}
