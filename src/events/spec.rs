//! The histories a specification check needs, as terms over the execution's values.
//!
//! A history orders the method calls of the threads (the calls of a function the `spec`
//! block describes, made by a thread itself, not from inside another call) in some order
//! that keeps each thread's program order. Running the sequential version of each method
//! in that order, from the specification's initial state, gives every call the value the
//! sequential object returns at that place; the history *matches* when each completed call
//! returned that value. The runs are symbolic, on terms over the values the execution's
//! reads return (the calls' arguments and results are such terms), so one SAT instance
//! covers every execution; histories sharing a prefix share its terms (hash-consing).
//! Which histories respect the execution's real-time order is for the encoding to say.

use serde::Serialize;

use super::{CallArgValue, CallId, Events, TermId, Terms};
use crate::program::{Address, BinaryOp, Expr, Instr, Program, Spec, SpecMethod};

/// More histories than this are refused: each costs clauses for every execution.
pub const MAX_HISTORIES: usize = 40320;

#[derive(Clone, Debug, Serialize)]
pub struct SpecRuns {
    /// The method calls, by thread in program order.
    pub calls: Vec<CallId>,
    pub histories: Vec<History>,
    /// The pairs of calls that the specification's synchronisation rules concern.
    pub sync: Vec<SyncPair>,
    /// More histories than [`MAX_HISTORIES`]: none was built, and a specification check is
    /// refused as a limit (the other queries of the test are not concerned).
    pub too_many: Option<TooManyHistories>,
}

#[derive(Clone, Debug, Serialize)]
pub struct History {
    /// The method calls in the history's order, as indices into [`SpecRuns::calls`].
    pub order: Vec<usize>,
    /// For each call of `order`, the value the sequential object returns there (`None`
    /// for a `void` method).
    pub expected: Vec<Option<TermId>>,
    /// Non-zero exactly when every completed call returned its expected value.
    pub matches: TermId,
}

/// Two calls of different threads that a synchronisation rule relates when the first
/// comes before the second in a history: the first's beginning must then happen before the
/// second's end.
#[derive(Clone, Debug, Serialize)]
pub struct SyncPair {
    /// Index into `Spec::rules`.
    pub rule: usize,
    /// Indices into [`SpecRuns::calls`].
    pub before: usize,
    pub after: usize,
    /// Non-zero exactly when both calls complete and the rule's condition holds on their
    /// arguments and values.
    pub when: TermId,
}

/// Too many histories to encode.
#[derive(Clone, Debug, Serialize)]
pub struct TooManyHistories {
    pub calls: usize,
    /// `u128::MAX` when the count itself overflows.
    pub histories: u128,
}

impl std::fmt::Display for TooManyHistories {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = if self.histories == u128::MAX {
            "too many".to_string()
        } else {
            self.histories.to_string()
        };
        write!(
            f,
            "{} method calls have {count} histories, more than the {MAX_HISTORIES} a specification check encodes",
            self.calls
        )
    }
}

/// The method calls of `events` and every history of them, or `None` when the program has
/// no specification.
pub fn histories(program: &Program, events: &mut Events) -> Option<SpecRuns> {
    let spec = program.spec.as_deref()?;
    let mut calls: Vec<CallId> = (0..events.calls.len())
        .filter(|&c| {
            let call = &events.calls[c];
            call.parent.is_none() && spec.method(&call.function).is_some()
        })
        .collect();
    calls.sort_by_key(|&c| events.calls[c].thread);
    // Per thread, its calls as indices into `calls`, in program order.
    let mut per_thread: Vec<Vec<usize>> = vec![Vec::new(); events.threads.len()];
    for (i, &c) in calls.iter().enumerate() {
        per_thread[events.calls[c].thread].push(i);
    }
    let count = interleavings(&per_thread);
    if count > MAX_HISTORIES as u128 {
        let too_many = TooManyHistories {
            calls: calls.len(),
            histories: count,
        };
        return Some(SpecRuns {
            calls,
            histories: Vec::new(),
            sync: Vec::new(),
            too_many: Some(too_many),
        });
    }
    let initial: Vec<TermId> = spec
        .program
        .locations
        .iter()
        .map(|l| events.terms.constant(l.initial))
        .collect();
    let mut search = Search {
        spec,
        events,
        calls: &calls,
        per_thread: &per_thread,
        next: vec![0; per_thread.len()],
        order: Vec::new(),
        expected: Vec::new(),
        histories: Vec::new(),
    };
    let one = search.events.terms.constant(1);
    search.extend(initial.clone(), one);
    let histories = search.histories;
    let sync = sync_pairs(spec, events, &calls, &initial);
    Some(SpecRuns {
        calls,
        histories,
        sync,
        too_many: None,
    })
}

/// Every pair of calls of different threads that a rule names, with the condition under
/// which the rule applies to them.
fn sync_pairs(
    spec: &Spec,
    events: &mut Events,
    calls: &[CallId],
    initial: &[TermId],
) -> Vec<SyncPair> {
    let mut pairs = Vec::new();
    for (r, rule) in spec.rules.iter().enumerate() {
        for (i, &a) in calls.iter().enumerate() {
            for (j, &b) in calls.iter().enumerate() {
                let (first, second) = (&events.calls[a], &events.calls[b]);
                if first.thread == second.thread
                    || first.function != rule.before
                    || second.function != rule.after
                {
                    continue;
                }
                let terms = &mut events.terms;
                let mut args = arguments(&first.args, terms);
                if rule.binds_before_value {
                    args.extend(first.value);
                }
                args.extend(arguments(&second.args, terms));
                if rule.binds_after_value {
                    args.extend(second.value);
                }
                let (_, value) = run(&spec.program, &rule.condition, initial, &args, terms);
                let zero = terms.constant(0);
                let holds = match value {
                    Some(v) => terms.binary(BinaryOp::Ne, v, zero),
                    None => zero,
                };
                let both = terms.ite(second.returned, holds, zero);
                let when = terms.ite(first.returned, both, zero);
                pairs.push(SyncPair {
                    rule: r,
                    before: i,
                    after: j,
                    when,
                });
            }
        }
    }
    pairs
}

/// A call's arguments as the sequential version receives them: a pointer as 0, since the
/// object's state is the specification's own.
fn arguments(args: &[CallArgValue], terms: &mut Terms) -> Vec<TermId> {
    args.iter()
        .map(|a| match a {
            CallArgValue::Value { value, .. } => *value,
            CallArgValue::Pointer { .. } => terms.constant(0),
        })
        .collect()
}

/// The number of ways to interleave the threads' sequences.
fn interleavings(per_thread: &[Vec<usize>]) -> u128 {
    if per_thread.iter().map(Vec::len).sum::<usize>() > 30 {
        return u128::MAX;
    }
    let mut total: u128 = 0;
    let mut count: u128 = 1;
    for calls in per_thread {
        for _ in calls {
            total += 1;
            // count * total / k, with k the calls of this thread so far: a binomial step.
            count = count.saturating_mul(total);
        }
        for k in 1..=calls.len() as u128 {
            count /= k;
        }
    }
    count
}

struct Search<'a> {
    spec: &'a Spec,
    events: &'a mut Events,
    calls: &'a [CallId],
    per_thread: &'a [Vec<usize>],
    next: Vec<usize>,
    order: Vec<usize>,
    expected: Vec<Option<TermId>>,
    histories: Vec<History>,
}

impl Search<'_> {
    fn extend(&mut self, state: Vec<TermId>, matches: TermId) {
        let mut complete = true;
        for thread in 0..self.per_thread.len() {
            let Some(&call) = self.per_thread[thread].get(self.next[thread]) else {
                continue;
            };
            complete = false;
            let (after, expected, ok) = self.step(call, &state);
            let terms = &mut self.events.terms;
            let zero = terms.constant(0);
            let both = terms.ite(matches, ok, zero);
            self.next[thread] += 1;
            self.order.push(call);
            self.expected.push(expected);
            self.extend(after, both);
            self.expected.pop();
            self.order.pop();
            self.next[thread] -= 1;
        }
        if complete {
            self.histories.push(History {
                order: self.order.clone(),
                expected: self.expected.clone(),
                matches,
            });
        }
    }

    /// The call run on `state` when it completes (the state unchanged otherwise), its
    /// expected value and whether it returned that value (1 when it did not complete).
    fn step(&mut self, call: usize, state: &[TermId]) -> (Vec<TermId>, Option<TermId>, TermId) {
        let record = &self.events.calls[self.calls[call]];
        let returned = record.returned;
        let actual = record.value;
        let method = match self.spec.method(&record.function) {
            Some(m) => m,
            None => unreachable!("method calls are calls of specified functions"),
        };
        let terms = &mut self.events.terms;
        let args = arguments(&record.args, terms);
        let (after, expected) = run(&self.spec.program, method, state, &args, terms);
        let merged = after
            .iter()
            .zip(state)
            .map(|(&a, &b)| terms.ite(returned, a, b))
            .collect();
        let one = terms.constant(1);
        let ok = match (expected, actual) {
            (Some(e), Some(v)) => {
                let equal = terms.binary(BinaryOp::Eq, e, v);
                terms.ite(returned, equal, one)
            }
            _ => one,
        };
        (merged, expected, ok)
    }
}

/// One call of `method` on `state` with `args`: the state after it and its value.
pub fn run(
    program: &Program,
    method: &SpecMethod,
    state: &[TermId],
    args: &[TermId],
    terms: &mut Terms,
) -> (Vec<TermId>, Option<TermId>) {
    let thread = &program.threads[method.thread];
    let zero = terms.constant(0);
    let mut machine = Machine {
        program,
        registers: vec![zero; thread.registers.len()],
        memory: state.to_vec(),
    };
    for (&reg, &value) in method.arguments.iter().zip(args) {
        machine.registers[reg] = value;
    }
    machine.block(&thread.body, terms);
    let result = method.result.map(|r| machine.registers[r]);
    (machine.memory, result)
}

/// A sequential, symbolic machine: registers and memory hold terms.
#[derive(Clone)]
struct Machine<'a> {
    program: &'a Program,
    registers: Vec<TermId>,
    memory: Vec<TermId>,
}

impl Machine<'_> {
    fn block(&mut self, body: &[Instr], terms: &mut Terms) {
        for instr in body {
            self.instr(instr, terms);
        }
    }

    fn instr(&mut self, instr: &Instr, terms: &mut Terms) {
        match instr {
            Instr::Assign { dst, value, .. } => self.registers[*dst] = self.expr(value, terms),
            Instr::Load { dst, loc, .. } => self.registers[*dst] = self.load(loc, terms),
            Instr::Store { loc, value, .. } => {
                let value = self.expr(value, terms);
                self.store(loc, value, terms);
            }
            Instr::If {
                cond,
                then_branch,
                else_branch,
                ..
            } => {
                let c = self.expr(cond, terms);
                let mut other = self.clone();
                self.block(then_branch, terms);
                other.block(else_branch, terms);
                let merge = |a: &mut Vec<TermId>, b: &[TermId], terms: &mut Terms| {
                    for (x, &y) in a.iter_mut().zip(b) {
                        *x = terms.ite(c, *x, y);
                    }
                };
                merge(&mut self.registers, &other.registers, terms);
                merge(&mut self.memory, &other.memory, terms);
            }
            Instr::CallEnter { bind, .. } => {
                let values: Vec<TermId> = bind.iter().map(|(_, e)| self.expr(e, terms)).collect();
                for ((reg, _), value) in bind.iter().zip(values) {
                    self.registers[*reg] = value;
                }
            }
            Instr::AtomicBlock { body, .. } => self.block(body, terms),
            // Sequentially these do nothing; lowering refuses the rest (loops, asserts,
            // read-modify-writes) in a specification.
            Instr::Fence { .. }
            | Instr::CheckIndex { .. }
            | Instr::Lock { .. }
            | Instr::Unlock { .. }
            | Instr::CallExit { .. }
            | Instr::Alloc { .. }
            | Instr::Free { .. }
            | Instr::While { .. }
            | Instr::Assert { .. }
            | Instr::Check { .. }
            | Instr::Assume { .. }
            | Instr::Rmw { .. }
            | Instr::CompareExchange { .. } => {}
        }
    }

    fn expr(&self, e: &Expr, terms: &mut Terms) -> TermId {
        match e {
            Expr::Const(v) => terms.constant(*v),
            Expr::Reg(r) => self.registers[*r],
            Expr::Unary(op, a) => {
                let a = self.expr(a, terms);
                terms.unary(*op, a)
            }
            Expr::Binary(op, a, b) => {
                let a = self.expr(a, terms);
                let b = self.expr(b, terms);
                terms.binary(*op, a, b)
            }
            Expr::Conditional(c, a, b) => {
                let c = self.expr(c, terms);
                let a = self.expr(a, terms);
                let b = self.expr(b, terms);
                terms.ite(c, a, b)
            }
        }
    }

    /// For each cell the address may denote, the term that holds when it does.
    fn cases(&self, address: &Address, terms: &mut Terms) -> Vec<(usize, TermId)> {
        match address {
            Address::Fixed(loc) => vec![(*loc, terms.constant(1))],
            Address::Indexed { cells, index } => {
                let index = self.expr(index, terms);
                cells
                    .iter()
                    .enumerate()
                    .map(|(k, &loc)| {
                        let k = terms.constant(k as i32);
                        (loc, terms.binary(BinaryOp::Eq, index, k))
                    })
                    .collect()
            }
            Address::Pointer { value, cells } => {
                let value = self.expr(value, terms);
                cells
                    .iter()
                    .map(|&loc| {
                        let address = terms.constant(self.program.locations[loc].address);
                        (loc, terms.binary(BinaryOp::Eq, value, address))
                    })
                    .collect()
            }
        }
    }

    /// An address that denotes no cell reads 0 (the specification's own mistake; the
    /// sequential version is trusted).
    fn load(&self, address: &Address, terms: &mut Terms) -> TermId {
        let mut value = terms.constant(0);
        for (loc, when) in self.cases(address, terms) {
            value = terms.ite(when, self.memory[loc], value);
        }
        value
    }

    /// ... and writes nothing.
    fn store(&mut self, address: &Address, value: TermId, terms: &mut Terms) {
        for (loc, when) in self.cases(address, terms) {
            self.memory[loc] = terms.ite(when, value, self.memory[loc]);
        }
    }
}
