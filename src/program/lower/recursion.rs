//! Recursive functions, inlined to a depth as loops are unrolled to a bound. Each call of
//! a function already being inlined (the same function further out on the chain of calls
//! being lowered) is a recursive call; its depth is how many calls of that function are
//! open around it (1 for the first recursive call). Lowering inlines recursive calls up to
//! a depth limit and marks each call site with its depth ([`CallSite::recursion`]); the
//! unroller cuts a call deeper than `--unroll` as it cuts a loop's iteration past the
//! bound, so that the bound names both. A call past the depth lowering went to is marked
//! [`CUT_ALWAYS`] with no body: every unrolling cuts it.
//!
//! The limit is what the unrolling may ask for ([`Lowerer::recursion_limit`]), lowered
//! further only while the inlined calls stay few: a function that calls its cycle from `k`
//! places inlines `k^d` bodies at depth `d` (`k^(c d)` when each of a cycle of `c`
//! functions does, bounded with `c` the number of recursive functions), so past
//! [`MAX_RECURSIVE_BODIES`] the depth stops growing, and deeper calls are cut whatever the
//! bound.
//!
//! [`CallSite::recursion`]: crate::program::CallSite::recursion

use std::collections::{HashMap, HashSet};

use crate::diagnostics::Span;

/// The depth of a call that every unrolling cuts: lowering did not inline its body.
pub const CUT_ALWAYS: u32 = u32::MAX;

/// How many bodies the inlining of one recursive call may make, at most, before the depth
/// limit stops growing (`k^d` for `k` recursive call sites in a body, depth `d`).
pub const MAX_RECURSIVE_BODIES: u64 = 256;

/// The recursive calls being inlined in the thread being lowered.
#[derive(Debug, Default)]
pub(super) struct Recursion {
    /// The depth to which recursive calls are inlined.
    pub limit: u32,
    /// The functions whose bodies are being lowered, outermost first.
    open: Vec<String>,
}

impl Recursion {
    /// How many calls of `function` are open around a call of it: its recursion depth.
    pub fn depth_of(&self, function: &str) -> u32 {
        let open = self.open.iter().filter(|f| *f == function).count();
        u32::try_from(open).unwrap_or(CUT_ALWAYS)
    }

    pub fn enter(&mut self, function: &str) {
        self.open.push(function.to_string());
    }

    pub fn leave(&mut self) {
        self.open.pop();
    }
}

/// The depth recursive calls are inlined to: `wanted`, or less when the functions on a
/// cycle call it from several places (`graph`: each function's calls of the test's
/// functions; `recursive`: the functions on a cycle), so that no recursion inlines more
/// than [`MAX_RECURSIVE_BODIES`] bodies.
pub(super) fn depth_limit(
    graph: &HashMap<&str, Vec<(&str, Span)>>,
    recursive: &HashSet<String>,
    wanted: u32,
) -> u32 {
    // The most calls of functions on a cycle a function on that cycle makes: each may
    // recurse.
    let branching = recursive
        .iter()
        .filter_map(|f| graph.get(f.as_str()))
        .map(|calls| {
            calls
                .iter()
                .filter(|(callee, _)| recursive.contains(*callee))
                .count() as u64
        })
        .max()
        .unwrap_or(0);
    if branching <= 1 {
        return wanted;
    }
    // Depth counts the calls of one function, so one step of it may pass every function
    // of a cycle (f -> g -> f), each multiplying the bodies: bound the cycle's length by
    // the number of recursive functions.
    let cycle = u32::try_from(recursive.len()).unwrap_or(u32::MAX);
    let per_depth = branching.saturating_pow(cycle);
    let mut depth = 0;
    let mut bodies = 1u64;
    while depth < wanted {
        bodies = bodies.saturating_mul(per_depth);
        if bodies > MAX_RECURSIVE_BODIES {
            break;
        }
        depth += 1;
    }
    depth.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph<'a>(edges: &[(&'a str, &[&'a str])]) -> HashMap<&'a str, Vec<(&'a str, Span)>> {
        edges
            .iter()
            .map(|(f, callees)| (*f, callees.iter().map(|c| (*c, Span::default())).collect()))
            .collect()
    }

    #[test]
    fn a_single_recursive_call_is_inlined_as_deep_as_wanted() {
        let g = graph(&[("f", &["f", "g"]), ("g", &[])]);
        let rec: HashSet<String> = ["f".to_string()].into();
        assert_eq!(depth_limit(&g, &rec, 64), 64);
    }

    #[test]
    fn a_cycle_of_functions_that_each_call_twice_counts_every_call_on_it() {
        // f calls g twice and g calls f twice: one more depth of f is 4 more bodies.
        let g = graph(&[("f", &["g", "g"]), ("g", &["f", "f"])]);
        let rec: HashSet<String> = ["f".to_string(), "g".to_string()].into();
        let depth = depth_limit(&g, &rec, 64);
        assert_eq!(depth, 4);
        assert!(4u64.pow(depth) <= MAX_RECURSIVE_BODIES);
    }

    #[test]
    fn two_recursive_calls_stop_the_depth_at_the_body_budget() {
        let g = graph(&[("insert", &["insert", "insert"])]);
        let rec: HashSet<String> = ["insert".to_string()].into();
        // 2^8 = 256 bodies at depth 8, 512 at depth 9.
        assert_eq!(depth_limit(&g, &rec, 64), 8);
        assert_eq!(depth_limit(&g, &rec, 3), 3);
    }

    #[test]
    fn depth_counts_the_open_calls_of_the_same_function() {
        let mut r = Recursion::default();
        assert_eq!(r.depth_of("f"), 0);
        r.enter("f");
        r.enter("g");
        r.enter("f");
        assert_eq!(r.depth_of("f"), 2);
        assert_eq!(r.depth_of("g"), 1);
        r.leave();
        assert_eq!(r.depth_of("f"), 1);
    }
}
