//! Human-readable names for events, terms and guards, shared by every report.
//!
//! Event numbers shown to users are 1-based, as in the paper's figures.

use std::collections::HashMap;

use serde::Serialize;

use crate::events::{
    CallArgValue, CallId, ControlId, Event, EventId, EventKind, Events, Guard, Term, TermId, WaitOn,
};
use crate::program::{BinaryOp, UnaryOp};
use crate::program::{MemOrder, Program};

/// How many nodes of a term a report writes out before it writes `…` for the rest.
const TERM_NODES: usize = 200;

/// One row of the event table (the Nemos/DefectFinder paper, Figure 4).
#[derive(Clone, Debug, Serialize)]
pub struct EventRow {
    pub id: usize,
    pub thread: String,
    pub position: usize,
    pub kind: String,
    pub location: String,
    pub value: String,
    pub register: String,
    pub guard: String,
    pub order: String,
    /// The matching lock, atomic-block entry or RMW half.
    pub matches: String,
    /// The innermost call of a function of the test the event belongs to (`pop#2`).
    pub call: String,
}

/// One call of a function of the test in the event table: what it receives and returns, as
/// terms.
#[derive(Clone, Debug, Serialize)]
pub struct CallRow {
    /// `pop#2`: the second call of `pop` in its thread.
    pub call: String,
    pub thread: String,
    pub function: String,
    pub number: usize,
    /// The call it is made from.
    pub parent: Option<String>,
    /// `name = term` per parameter; a pointer parameter's term is an address (`top`,
    /// `&a[1]`).
    pub arguments: Vec<String>,
    /// The value it returns; `None` for a `void` function.
    pub returns: Option<String>,
    pub line: usize,
}

/// Names terms and events for one program.
pub struct Namer<'a> {
    pub program: &'a Program,
    pub events: &'a Events,
    /// Reads into a register that no other read assigns are shown by the register's name.
    unique_register_reads: HashMap<EventId, String>,
}

impl<'a> Namer<'a> {
    pub fn new(program: &'a Program, events: &'a Events) -> Namer<'a> {
        let mut by_register: HashMap<(usize, usize), Vec<EventId>> = HashMap::new();
        for e in events.reads() {
            if let (Some(t), Some(r)) = (e.thread, e.register) {
                if !program.threads[t].registers[r].temporary {
                    by_register.entry((t, r)).or_default().push(e.id);
                }
            }
        }
        let unique_register_reads = by_register
            .into_iter()
            .filter(|(_, reads)| reads.len() == 1)
            .map(|((t, r), reads)| (reads[0], program.threads[t].registers[r].name.clone()))
            .collect();
        Namer {
            program,
            events,
            unique_register_reads,
        }
    }

    /// 1-based number shown to users.
    pub fn program(&self) -> &Program {
        self.program
    }

    pub fn number(&self, e: EventId) -> usize {
        e + 1
    }

    pub fn thread_name(&self, e: &Event) -> String {
        match e.thread {
            Some(t) => self.program.thread_name(t),
            None => "init".to_string(),
        }
    }

    pub fn location_name(&self, e: &Event) -> String {
        e.location
            .map(|l| self.program.locations[l].name.clone())
            .unwrap_or_default()
    }

    pub fn control_name(&self, c: ControlId) -> String {
        format!("c{}", c + 1)
    }

    /// `c3 = [r0 == 1]`; a loop's link to its previous iteration shows first,
    /// `c4 = c3 & [r0 == 1]`, and a link that only gathers literals shows them alone.
    fn control_definition(&self, c: ControlId, term: &str) -> String {
        let name = self.control_name(c);
        let Some(control) = self.events.controls.get(c) else {
            return format!("{name} = [{term}]");
        };
        let within = self.guard(&control.within);
        match (
            within.is_empty(),
            self.events.terms.constant_value(control.term),
        ) {
            (true, _) => format!("{name} = [{term}]"),
            (false, Some(v)) if v != 0 => format!("{name} = {within}"),
            (false, _) => format!("{name} = {within} & [{term}]"),
        }
    }

    pub fn guard(&self, guard: &Guard) -> String {
        guard
            .0
            .iter()
            .map(|&(c, p)| {
                if p {
                    self.control_name(c)
                } else {
                    format!("!{}", self.control_name(c))
                }
            })
            .collect::<Vec<_>>()
            .join(" & ")
    }

    /// The value a read returns, by the register it lands in when that is unambiguous.
    pub fn read_value(&self, e: EventId) -> String {
        match self.unique_register_reads.get(&e) {
            Some(name) => name.clone(),
            None => format!("v{}", self.number(e)),
        }
    }

    /// `t` written out as an expression, its first `TERM_NODES` nodes in full and `…` for
    /// the rest. A term is a DAG: a loop's value built on the last iteration's, unrolled,
    /// shares its subterms, and written out as a tree it grows exponentially (a queue of
    /// GenMC's suite gave a JSON report that took more than 29 s to write).
    pub fn term(&self, t: TermId) -> String {
        let mut nodes_left = TERM_NODES;
        let mut out = String::new();
        self.write_term(&mut out, t, 0, &mut nodes_left);
        out
    }

    /// Appends `t` to `out` (in parentheses when it binds less tightly than `outer`),
    /// into one string rather than one per node.
    fn write_term(&self, out: &mut String, t: TermId, outer: u8, nodes_left: &mut usize) {
        use std::fmt::Write;
        if *nodes_left == 0 {
            out.push('…');
            return;
        }
        *nodes_left -= 1;
        match *self.events.terms.get(t) {
            Term::Const(v) => {
                let _ = write!(out, "{v}");
            }
            Term::Read(e) => match self.unique_register_reads.get(&e) {
                Some(name) => out.push_str(name),
                None => {
                    let _ = write!(out, "v{}", self.number(e));
                }
            },
            Term::Unary(op, a) => {
                out.push_str(match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Not => "!",
                    UnaryOp::BitNot => "~",
                });
                self.write_term(out, a, 12, nodes_left);
            }
            Term::Binary(op, a, b) => {
                let (symbol, prec) = binary_symbol(op);
                let wrap = prec < outer;
                if wrap {
                    out.push('(');
                }
                self.write_term(out, a, prec, nodes_left);
                out.push(' ');
                out.push_str(symbol);
                out.push(' ');
                self.write_term(out, b, prec + 1, nodes_left);
                if wrap {
                    out.push(')');
                }
            }
            Term::Ite(c, a, b) => {
                let wrap = outer > 0;
                if wrap {
                    out.push('(');
                }
                self.write_term(out, c, 1, nodes_left);
                out.push_str(" ? ");
                self.write_term(out, a, 1, nodes_left);
                out.push_str(" : ");
                self.write_term(out, b, 1, nodes_left);
                if wrap {
                    out.push(')');
                }
            }
        }
    }

    pub fn kind(&self, e: &Event) -> &'static str {
        match e.kind {
            EventKind::Init => "init",
            EventKind::Read if e.rmw.is_some() => "rmw-rd",
            EventKind::Read => "rd",
            EventKind::Write if e.rmw.is_some() => "rmw-wr",
            EventKind::Write => "wr",
            EventKind::Fence => "fence",
            EventKind::Computation => "comp",
            EventKind::Control => "ctr",
            EventKind::Lock => "lock",
            EventKind::Unlock => "unlock",
            EventKind::AtomicEnter => "atomic-enter",
            EventKind::AtomicExit => "atomic-exit",
            EventKind::Assert => "assert",
            EventKind::Assume => "assume",
            EventKind::Wait => "wait",
        }
    }

    /// The labels of events given by id, in order: an interleaving, a list of events.
    pub fn labels(&self, ids: &[EventId]) -> Vec<String> {
        ids.iter()
            .map(|&e| self.label(&self.events.events[e]))
            .collect()
    }

    /// A short label for an event in interleavings: `P1: r2 = y`, `P0: x = 1`.
    pub fn label(&self, e: &Event) -> String {
        let thread = self.thread_name(e);
        let value = e.value.map(|t| self.term(t)).unwrap_or_default();
        let body = match e.kind {
            EventKind::Init => format!("{} = {}", self.location_name(e), value),
            EventKind::Read => format!("{} = {}", self.read_value(e.id), self.location_name(e)),
            EventKind::Write => format!("{} = {}", self.location_name(e), value),
            EventKind::Unlock => format!("unlock({})", self.location_name(e)),
            EventKind::Lock => format!("lock({})", self.location_name(e)),
            EventKind::Fence => match crate::cat::memory::heap_event_word(&e.tags) {
                Some(word) => format!("{word}({})", self.location_name(e)),
                None => format!("fence({})", e.order.short()),
            },
            EventKind::Computation => {
                let reg = e
                    .register
                    .map(|r| self.register_name(e, r))
                    .unwrap_or_default();
                format!("{reg} = {value}")
            }
            EventKind::Control => self.control_definition(e.control.unwrap_or(0), &value),
            EventKind::AtomicEnter => "atomic {".to_string(),
            EventKind::AtomicExit => "} atomic".to_string(),
            EventKind::Assert => format!("assert({value})"),
            EventKind::Assume => format!("assume({value})"),
            EventKind::Wait => match self.wait_on(e.id) {
                Some(WaitOn::Mutex { loc, .. }) => {
                    format!("waits for lock({})", self.program.locations[*loc].name)
                }
                _ => format!("waits while {value}"),
            },
        };
        format!("{thread}: {body}")
    }

    /// What the `Wait` event `e` waits for.
    pub fn wait_on(&self, e: EventId) -> Option<&'a WaitOn> {
        let events: &'a Events = self.events;
        events.waits.iter().find(|w| w.event == e).map(|w| &w.on)
    }

    pub fn register_name(&self, e: &Event, r: usize) -> String {
        match e.thread {
            Some(t) => self.program.threads[t].registers[r].name.clone(),
            None => String::new(),
        }
    }

    pub fn row(&self, e: &Event) -> EventRow {
        let matches = [
            e.rmw.map(|m| format!("rmw {}", self.number(m))),
            e.lock_match
                .filter(|_| e.kind == EventKind::Unlock)
                .map(|m| format!("lock {}", self.number(m))),
            e.atomic_match
                .filter(|_| e.kind == EventKind::AtomicExit)
                .map(|m| format!("enter {}", self.number(m))),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ");
        let value = match (e.kind, e.value) {
            (EventKind::Control, Some(t)) => {
                self.control_definition(e.control.unwrap_or(0), &self.term(t))
            }
            (EventKind::Read | EventKind::Lock, _) => self.read_value(e.id),
            (_, Some(t)) => self.term(t),
            (_, None) => String::new(),
        };
        EventRow {
            id: self.number(e.id),
            thread: self.thread_name(e),
            position: e.position,
            kind: self.kind(e).to_string(),
            location: self.location_name(e),
            value,
            register: e
                .register
                .map(|r| self.register_name(e, r))
                .unwrap_or_default(),
            guard: self.guard(&e.guard),
            order: match (e.order, e.failure_order) {
                (MemOrder::NonAtomic, _) if !e.is_memory() && e.kind != EventKind::Fence => {
                    String::new()
                }
                (o, Some(f)) => format!("{}/{}", o.short(), f.short()),
                (o, None) => o.short().to_string(),
            },
            matches,
            call: e.call.map(|c| self.call_label(c)).unwrap_or_default(),
        }
    }

    /// `pop#2`: the second call of `pop` in its thread.
    pub fn call_label(&self, c: CallId) -> String {
        let call = &self.events.calls[c];
        format!("{}#{}", call.function, call.number)
    }

    /// A pointer argument: `top` (offset 0), `&a[2]`.
    pub fn address(base: &str, offset: &str) -> String {
        if offset == "0" {
            base.to_string()
        } else {
            format!("&{base}[{offset}]")
        }
    }

    pub fn call_rows(&self) -> Vec<CallRow> {
        let source = &self.program.source;
        self.events
            .calls
            .iter()
            .enumerate()
            .map(|(c, call)| CallRow {
                call: self.call_label(c),
                thread: self.program.thread_name(call.thread),
                function: call.function.clone(),
                number: call.number,
                parent: call.parent.map(|p| self.call_label(p)),
                arguments: call
                    .args
                    .iter()
                    .enumerate()
                    .map(|(i, arg)| match arg {
                        CallArgValue::Value { param, value } => {
                            format!("{param} = {}", self.term(*value))
                        }
                        CallArgValue::Pointer {
                            param,
                            base,
                            offset,
                        } => {
                            let offset = self.term(*offset);
                            let written = super::witness::written_arguments(
                                self.program.source.snippet(call.span),
                            );
                            let address = match offset.parse::<i32>() {
                                Ok(k) => self.program.argument_text(
                                    base,
                                    k,
                                    written.get(i).map(String::as_str),
                                ),
                                Err(_) => Namer::address(base, &offset),
                            };
                            format!("{param} = {address}")
                        }
                    })
                    .collect(),
                returns: call.value.map(|v| self.term(v)),
                line: source.line_col(call.span.start).0,
            })
            .collect()
    }

    pub fn rows(&self) -> Vec<EventRow> {
        self.events.events.iter().map(|e| self.row(e)).collect()
    }
}

fn binary_symbol(op: BinaryOp) -> (&'static str, u8) {
    match op {
        BinaryOp::Or => ("||", 2),
        BinaryOp::And => ("&&", 3),
        BinaryOp::BitOr => ("|", 4),
        BinaryOp::BitXor => ("^", 5),
        BinaryOp::BitAnd => ("&", 6),
        BinaryOp::Eq => ("==", 7),
        BinaryOp::Ne => ("!=", 7),
        BinaryOp::Lt => ("<", 8),
        BinaryOp::Le => ("<=", 8),
        BinaryOp::Gt => (">", 8),
        BinaryOp::Ge => (">=", 8),
        BinaryOp::Shl => ("<<", 9),
        BinaryOp::Shr => (">>", 9),
        BinaryOp::Add => ("+", 10),
        BinaryOp::Sub => ("-", 10),
        BinaryOp::Mul => ("*", 11),
        BinaryOp::Div => ("/", 11),
        BinaryOp::Rem => ("%", 11),
    }
}
