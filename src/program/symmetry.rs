//! Threads that are the same program: interchangeable in every execution.
//!
//! Two threads are interchangeable when their bodies are the same instructions over the
//! same locations (spans aside) and their registers start alike. Renaming one into the
//! other maps every execution to an execution with the same final memory, the same
//! assertion verdicts and the same flags, so a question that does not name their
//! registers may look at one execution of each class of renamings (see
//! `encode::symmetry`). A thread whose registers the condition, the filter or the
//! `locations` list name is distinguished, and in no class.

use std::collections::BTreeSet;

use super::{Observable, Program};

/// The classes of interchangeable threads (positions in [`Program::threads`]), each of two
/// threads or more, in increasing order.
pub fn interchangeable_threads(program: &Program) -> Vec<Vec<usize>> {
    let distinguished = distinguished_threads(program);
    let mut classes: Vec<(serde_json::Value, Vec<usize>)> = Vec::new();
    for (position, thread) in program.threads.iter().enumerate() {
        if distinguished.contains(&position) {
            continue;
        }
        let Ok(mut code) = serde_json::to_value((&thread.body, initial_values(program, position)))
        else {
            continue;
        };
        forget_spans(&mut code);
        match classes.iter_mut().find(|(c, _)| *c == code) {
            Some((_, members)) => members.push(position),
            None => classes.push((code, vec![position])),
        }
    }
    classes
        .into_iter()
        .map(|(_, members)| members)
        .filter(|members| members.len() > 1)
        .collect()
}

/// Threads whose registers the condition, the filter or the `locations` list name.
pub(super) fn distinguished_threads(program: &Program) -> BTreeSet<usize> {
    program
        .named_observables()
        .iter()
        .filter_map(|o| match o {
            Observable::Reg { thread, .. } => Some(*thread),
            Observable::Loc(_) => None,
        })
        .collect()
}

fn initial_values(program: &Program, thread: usize) -> Vec<i32> {
    program.threads[thread]
        .registers
        .iter()
        .map(|r| r.initial)
        .collect()
}

/// Where the source text of an instruction lies says nothing of what it does.
pub(super) fn forget_spans(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(fields) => {
            fields.remove("span");
            fields.values_mut().for_each(forget_spans);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(forget_spans),
        _ => {}
    }
}
