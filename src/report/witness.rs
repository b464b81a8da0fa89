//! An execution as lines a person reads: the interleaving with what each read returned and
//! from where, and the paper's order matrix.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::namer::Namer;
use crate::events::{CallArgValue, CallId, EventId, EventKind, Events, WaitOn};
use crate::program::Program;
use crate::witness::Execution;

/// A witness as lines: the interleaving with what each read returned and from where. An
/// execution of a weak model may have no interleaving at all (`po | rf | co | fr` cyclic):
/// it is then shown thread by thread, with the coherence order of each location.
pub fn witness_text(program: &Program, events: &Events, execution: &Execution) -> String {
    witness_lines(program, events, execution, None)
}

/// The witness up to the last of `marked`, with the `marked` events flagged `<==`: where a
/// race or an interruption happens, and what led to it.
pub fn witness_prefix(
    program: &Program,
    events: &Events,
    execution: &Execution,
    marked: &[EventId],
) -> String {
    witness_lines(program, events, execution, Some(marked))
}

fn witness_lines(
    program: &Program,
    events: &Events,
    execution: &Execution,
    marked: Option<&[EventId]>,
) -> String {
    let namer = Namer::new(program, events);
    let mut out = String::new();
    let shown = match marked {
        Some(marked) => {
            let last = execution
                .interleaving
                .iter()
                .rposition(|e| marked.contains(e))
                .unwrap_or(execution.interleaving.len().saturating_sub(1));
            &execution.interleaving[..(last + 1).min(execution.interleaving.len())]
        }
        None => &execution.interleaving[..],
    };
    let calls = executed_calls(&namer, events, execution);
    let mut starts: HashMap<usize, Vec<String>> = HashMap::new();
    let mut ends: HashMap<usize, Vec<String>> = HashMap::new();
    let source = &program.source;
    // Outer calls open before and close after the calls they make.
    for call in &calls {
        let c = &events.calls[call.id];
        let (line, _) = source.line_col(c.span.start);
        let text = source.snippet(c.span);
        let statement = text.lines().next().unwrap_or("").trim();
        let head = format!(
            "        {}: {}({})",
            call.thread,
            call.function,
            call.arguments
                .iter()
                .map(|a| a.shown.clone())
                .collect::<Vec<_>>()
                .join(", ")
        );
        starts
            .entry(call.first)
            .or_default()
            .push(format!("{head:<44}  // line {line}: {statement}\n"));
        if call.returned {
            let value = call
                .value
                .map_or(String::new(), |v| format!(" {}", program.value_text(v)));
            ends.entry(call.last).or_default().insert(
                0,
                format!(
                    "        {}: {} returns{value}\n",
                    call.thread, call.function
                ),
            );
        }
    }
    // How an access reached its cell (the case split over the cells a pointer or an index
    // may reach, and a check that held) is bookkeeping; the access's own line says where it
    // went, and a failed check is shown.
    let bookkeeping = |e: EventId| {
        let marked = marked.is_some_and(|m| m.contains(&e));
        let check_held = (events.access_checks.contains_key(&e)
            || events.library_checks.contains_key(&e))
            && execution.values[e] != Some(0);
        !marked && (events.address_controls.contains(&e) || check_held)
    };
    let line = |e: EventId| {
        let (head, source) = event_line(&namer, events, execution, e);
        let flag = if marked.is_some_and(|m| m.contains(&e)) {
            " <=="
        } else {
            ""
        };
        match source {
            Some(source) => format!("{:<44}  {source}\n", format!("{head}{flag}")),
            None => format!("{head}{flag}\n"),
        }
    };
    if execution.cyclic {
        out.push_str(
            "  no SC interleaving exists for this execution (po | rf | co | fr is cyclic); its events by thread:\n",
        );
        for (i, &e) in shown.iter().enumerate() {
            out.extend(starts.get(&i).into_iter().flatten().map(String::as_str));
            if !bookkeeping(e) {
                out.push_str(&line(e));
            }
            out.extend(ends.get(&i).into_iter().flatten().map(String::as_str));
        }
        if marked.is_some() {
            return out;
        }
        for (loc, chain) in execution.co.iter().enumerate() {
            if chain.len() < 2 {
                continue;
            }
            let order: Vec<String> = chain.iter().map(|&w| namer.number(w).to_string()).collect();
            let _ = writeln!(
                out,
                "  coherence of {}: {}",
                program.locations[loc].name,
                order.join(" -> ")
            );
        }
        return out;
    }
    let numbers: Vec<String> = execution
        .interleaving
        .iter()
        .filter(|&&e| !bookkeeping(e))
        .map(|&e| namer.number(e).to_string())
        .collect();
    let _ = writeln!(out, "  interleaving: {}", numbers.join(" "));
    for (i, &e) in shown.iter().enumerate() {
        out.extend(starts.get(&i).into_iter().flatten().map(String::as_str));
        if !bookkeeping(e) {
            out.push_str(&line(e));
        }
        out.extend(ends.get(&i).into_iter().flatten().map(String::as_str));
    }
    out
}

/// A call of a function of the test that an execution makes, with what it received and
/// returned in that execution.
#[derive(Clone, Debug, Serialize)]
pub struct ExecutedCall {
    #[serde(skip)]
    pub id: CallId,
    pub thread: String,
    pub function: String,
    /// The `number`-th call of `function` in the thread, as unrolled.
    pub number: usize,
    pub arguments: Vec<ArgumentJson>,
    /// The call reached its end (it may not: an out-of-bounds index stops the thread).
    pub returned: bool,
    /// Its value when it returned one.
    pub value: Option<i32>,
    /// Its executed events (and those of the calls it makes), as event numbers, in the
    /// order of the witness.
    pub events: Vec<usize>,
    /// Positions of its first and last events in the witness's order.
    #[serde(skip)]
    pub first: usize,
    #[serde(skip)]
    pub last: usize,
}

/// An argument as the call received it: a value, or an address (`top`, `&a[1]`).
#[derive(Clone, Debug, Serialize)]
pub struct ArgumentJson {
    pub parameter: String,
    pub value: Option<i32>,
    pub address: Option<String>,
    #[serde(skip)]
    pub shown: String,
}

/// The arguments of a call as its source writes them: `f(a, &b[0], g(1, 2))` gives `a`,
/// `&b[0]` and `g(1, 2)`; empty when the text is not a call.
pub fn written_arguments(call: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (call.find('('), call.rfind(')')) else {
        return Vec::new();
    };
    if close <= open {
        return Vec::new();
    }
    let mut arguments = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for ch in call[open + 1..close].chars() {
        match ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                arguments.push(current.trim().to_string());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(ch);
    }
    if !current.trim().is_empty() || !arguments.is_empty() {
        arguments.push(current.trim().to_string());
    }
    arguments
}

/// The calls an execution makes that have executed events, outer calls before the calls
/// they make, in the order they begin.
pub fn executed_calls(namer: &Namer, events: &Events, execution: &Execution) -> Vec<ExecutedCall> {
    if events.calls.is_empty() {
        return Vec::new();
    }
    let mut positions: Vec<Vec<usize>> = vec![Vec::new(); events.calls.len()];
    for (i, &e) in execution.interleaving.iter().enumerate() {
        let mut call = events.events[e].call;
        while let Some(c) = call {
            positions[c].push(i);
            call = events.calls[c].parent;
        }
    }
    let mut calls: Vec<ExecutedCall> = events
        .calls
        .iter()
        .enumerate()
        .filter(|&(c, call)| {
            !positions[c].is_empty() && execution.term_value(events, call.entered) != 0
        })
        .map(|(c, call)| {
            let written = written_arguments(namer.program().source.snippet(call.span));
            let arguments = call
                .args
                .iter()
                .enumerate()
                .map(|(i, arg)| match arg {
                    CallArgValue::Value { param, value } => {
                        let value = execution.term_value(events, *value);
                        ArgumentJson {
                            parameter: param.clone(),
                            value: Some(value),
                            address: None,
                            shown: namer.program().value_text(value),
                        }
                    }
                    CallArgValue::Pointer {
                        param,
                        base,
                        offset,
                    } => {
                        let offset = execution.term_value(events, *offset);
                        let address = namer.program().argument_text(
                            base,
                            offset,
                            written.get(i).map(String::as_str),
                        );
                        ArgumentJson {
                            parameter: param.clone(),
                            value: None,
                            address: Some(address.clone()),
                            shown: address,
                        }
                    }
                })
                .collect();
            let returned = execution.term_value(events, call.returned) != 0;
            ExecutedCall {
                id: c,
                thread: namer.program().thread_name(call.thread),
                function: call.function.clone(),
                number: call.number,
                arguments,
                returned,
                value: call
                    .value
                    .filter(|_| returned)
                    .map(|v| execution.term_value(events, v)),
                events: positions[c]
                    .iter()
                    .map(|&i| namer.number(execution.interleaving[i]))
                    .collect(),
                first: positions[c][0],
                last: positions[c][positions[c].len() - 1],
            }
        })
        .collect();
    calls.sort_by_key(|c| (c.first, c.id));
    calls
}

/// One executed event: what it did, in words and values (not the unroller's names), and the
/// source line it comes from (`// line 5: *x = 1;`) when it has one.
fn event_line(
    namer: &Namer,
    events: &Events,
    execution: &Execution,
    e: EventId,
) -> (String, Option<String>) {
    let event = &events.events[e];
    let value = execution.values[e].map_or("?".to_string(), |v| namer.program().value_text(v));
    let location = namer.location_name(event);
    let what = match event.kind {
        EventKind::Init => {
            let head = format!("  {:>4}  init: {location} = {value}", namer.number(e));
            return (head, None);
        }
        EventKind::Read | EventKind::Lock => {
            let from = match execution.rf.iter().find(|&&(_, r)| r == e) {
                Some(&(w, _)) if events.events[w].kind == EventKind::Init => "init".to_string(),
                Some(&(w, _)) => format!(
                    "{} ({})",
                    namer.number(w),
                    namer.thread_name(&events.events[w])
                ),
                None => "?".to_string(),
            };
            let verb = if event.kind == EventKind::Lock {
                "lock"
            } else {
                "read"
            };
            format!("{verb} {location} = {value}, from {from}")
        }
        EventKind::Write => format!("write {location} = {value}"),
        EventKind::Unlock => format!("unlock {location}"),
        EventKind::Fence => match crate::cat::memory::heap_event_word(&event.tags) {
            Some(word) => format!("{word} {location}"),
            None => format!("fence {}", event.order.short()),
        },
        EventKind::Computation => match event.register {
            Some(r) => format!("{} = {value}", namer.register_name(event, r)),
            None => format!("computes {value}"),
        },
        EventKind::Control => match execution.values[e] {
            Some(0) => "branch not taken".to_string(),
            Some(_) => "branch taken".to_string(),
            None => "branch".to_string(),
        },
        EventKind::Assert => match (execution.values[e], events.access_checks.get(&e)) {
            (Some(0), Some(check)) => invalid_access(namer.program(), events, execution, check),
            (_, Some(_)) => "address checked".to_string(),
            (Some(0), None) => match events.library_checks.get(&e) {
                Some(kind) => kind.defect().to_string(),
                None => "assertion fails".to_string(),
            },
            _ => "assertion holds".to_string(),
        },
        EventKind::Assume => "assumption holds".to_string(),
        EventKind::Wait => match (execution.values[e], namer.wait_on(e)) {
            (Some(0), Some(WaitOn::Mutex { .. })) => "the lock is free at last".to_string(),
            (Some(0), _) => "the loop exits".to_string(),
            _ => "blocked here for good".to_string(),
        },
        EventKind::AtomicEnter => "atomic block begins".to_string(),
        EventKind::AtomicExit => "atomic block ends".to_string(),
    };
    let source = &namer.program().source;
    let (line, _) = source.line_col(event.span.start);
    let text = source.snippet(event.span);
    let statement = text.lines().next().unwrap_or("").trim();
    let head = format!(
        "  {:>4}  {}: {what}",
        namer.number(e),
        namer.thread_name(event)
    );
    let source = (!statement.is_empty()).then(|| format!("// line {line}: {statement}"));
    (head, source)
}

/// What an access whose address check failed computed: `invalid access: index 7, outside
/// the 2 cells` or `invalid access: address NULL`.
pub fn invalid_access(
    program: &Program,
    events: &Events,
    execution: &Execution,
    check: &crate::events::AccessCheck,
) -> String {
    let selector = execution.term_value(events, check.selector);
    match check.cells {
        Some(cells) => format!("invalid access: index {selector}, outside the {cells} cells"),
        None if selector == 0 => "invalid access: address NULL".to_string(),
        None => match program.location_at(selector) {
            Some(loc) => format!(
                "invalid access: address of {}, which this pointer never holds",
                program.locations[loc].name
            ),
            None => {
                let text = program.value_text(selector);
                match program.past_end(selector) {
                    Some(_) => format!("invalid access: address {text}, past its object's end"),
                    None => format!("invalid access: address {text}, no location's"),
                }
            }
        },
    }
}

/// One blocked thread of a deadlock, in words: who waits, where, for what.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Blocked {
    pub thread: String,
    pub line: usize,
    /// `waits for mutex b at line 5, held by P1 since line 11`.
    pub waits: String,
}

/// The threads blocked for good in `execution`, each with what it waits for.
pub fn blocked_threads(program: &Program, events: &Events, execution: &Execution) -> Vec<Blocked> {
    let namer = Namer::new(program, events);
    let source = &program.source;
    let line = |e: EventId| source.line_col(events.events[e].span.start).0;
    execution
        .blocked
        .iter()
        .map(|&i| {
            let wait = &events.waits[i];
            let thread = program.thread_name(wait.thread);
            let at = line(wait.event);
            let waits = match &wait.on {
                WaitOn::Spin {
                    reads, loop_span, ..
                } => {
                    let text = source.snippet(*loop_span);
                    let text = text.lines().next().unwrap_or("").trim();
                    let mut stays: Vec<String> = Vec::new();
                    for &r in reads.iter().filter(|&&r| execution.feasible[r]) {
                        let value = execution.values[r]
                            .map_or("?".to_string(), |v| namer.program().value_text(v));
                        let item =
                            format!("{} stays {value}", namer.location_name(&events.events[r]));
                        if !stays.contains(&item) {
                            stays.push(item);
                        }
                    }
                    format!(
                        "waits in the loop at line {at} (`{text}`) for good: {}",
                        stays.join(", ")
                    )
                }
                WaitOn::Mutex { loc, lock } => {
                    let name = &program.locations[*loc].name;
                    let holder = events.events.iter().find(|k| {
                        k.kind == EventKind::Lock
                            && k.location == Some(*loc)
                            && k.id != *lock
                            && execution.feasible[k.id]
                            && k.lock_match.is_some_and(|u| !execution.feasible[u])
                    });
                    match holder {
                        Some(k) => format!(
                            "waits for mutex {name} at line {at}, held by {} since line {}",
                            namer.thread_name(k),
                            line(k.id)
                        ),
                        None => format!("waits for lock {name} at line {at}, which stays taken"),
                    }
                }
                WaitOn::Forever { loop_span } => {
                    let text = source.snippet(*loop_span);
                    let text = text.lines().next().unwrap_or("").trim();
                    format!("loops for good at line {at} (`{text}`): the loop has no exit")
                }
            };
            Blocked {
                thread,
                line: at,
                waits,
            }
        })
        .collect()
}

/// A deadlock: the blocked threads, then the execution.
pub fn deadlock_text(program: &Program, events: &Events, execution: &Execution) -> String {
    let mut out = String::new();
    for b in blocked_threads(program, events, execution) {
        let _ = writeln!(out, "  {} {}", b.thread, b.waits);
    }
    out.push_str(&witness_text(program, events, execution));
    out
}

/// A deadlock as JSON: the blocked threads and the interleaving that leads there.
pub fn deadlock_json(
    program: &Program,
    events: &Events,
    execution: &Execution,
) -> serde_json::Value {
    let namer = Namer::new(program, events);
    serde_json::json!({
        "blocked": blocked_threads(program, events, execution),
        "interleaving": namer.labels(&execution.interleaving),
    })
}

/// The paper's Figure 5: `1` where the row event must precede the column event, `0` where it
/// cannot, `X` where this execution allows either.
pub fn matrix_text(program: &Program, events: &Events, execution: &Execution) -> String {
    let namer = Namer::new(program, events);
    let shown: Vec<usize> = (0..events.len())
        .filter(|&e| execution.feasible[e])
        .collect();
    let precedence = execution.precedence(events);
    let width = shown
        .iter()
        .map(|&e| namer.number(e).to_string().len())
        .max()
        .unwrap_or(1)
        + 1;
    let mut out = String::new();
    let _ = write!(out, "{:>width$}", "");
    for &e in &shown {
        let _ = write!(out, "{:>width$}", namer.number(e));
    }
    out.push('\n');
    for &a in &shown {
        let _ = write!(out, "{:>width$}", namer.number(a));
        for &b in &shown {
            let cell = match precedence[a][b] {
                Some(true) => "1",
                Some(false) => "0",
                None => "X",
            };
            let _ = write!(out, "{cell:>width$}");
        }
        out.push('\n');
    }
    out
}
