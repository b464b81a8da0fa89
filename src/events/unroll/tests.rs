use super::*;
use crate::diagnostics::SourceFile;
use crate::events::Term;

fn build(body: &str) -> (Program, Events) {
    let text = format!(
        "C t\n{{ x = 0; int y[3] = {{10, 11, 12}}; l = 0; }}\nP0 (int* x, int* y, int* l) {{\n{body}\n}}\nexists (x=0)\n"
    );
    let file = SourceFile::new("t.litmus", text);
    let test = crate::load(&file, &Default::default()).unwrap_or_else(|e| panic!("{}", e.short()));
    (test.program, test.events)
}

fn loc(program: &Program, name: &str) -> LocId {
    program
        .locations
        .iter()
        .position(|l| l.name == name)
        .unwrap_or_else(|| panic!("no location {name}"))
}

fn thread_events(events: &Events) -> Vec<&Event> {
    events.threads[0]
        .iter()
        .map(|&e| &events.events[e])
        .collect()
}

/// Whether `guard` holds when the reads return `value`.
fn holds(events: &Events, guard: &Guard, value: &impl Fn(EventId) -> i32) -> bool {
    guard
        .0
        .iter()
        .all(|&(c, polarity)| (events.terms.eval(events.controls[c].term, value) != 0) == polarity)
}

#[test]
fn constant_indices_cost_nothing() {
    let (program, events) = build("  int r0 = y[1];\n  *(y + 2) = 1;\n  int r1 = 1;\n  y[r1] = 2;");
    let kinds: Vec<EventKind> = thread_events(&events).iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            EventKind::Read,
            EventKind::Write,
            EventKind::Computation,
            EventKind::Write
        ]
    );
    let locations: Vec<Option<LocId>> = thread_events(&events).iter().map(|e| e.location).collect();
    let y = |i| Some(loc(&program, &format!("y[{i}]")));
    assert_eq!(locations, [y(1), y(2), None, y(1)]);
    assert!(events.controls.is_empty());
}

#[test]
fn a_register_index_becomes_one_guarded_event_per_cell() {
    let (program, events) = build("  int r0 = *x;\n  int r1 = y[r0];\n  y[r0] = 5;");
    let thread = thread_events(&events);
    let reads: Vec<&&Event> = thread
        .iter()
        .filter(|e| e.kind == EventKind::Read && e.location != Some(loc(&program, "x")))
        .collect();
    let writes: Vec<&&Event> = thread
        .iter()
        .filter(|e| e.kind == EventKind::Write)
        .collect();
    let cells: Vec<LocId> = (0..3).map(|i| loc(&program, &format!("y[{i}]"))).collect();
    assert_eq!(
        reads.iter().map(|e| e.location).collect::<Vec<_>>(),
        cells.iter().map(|&c| Some(c)).collect::<Vec<_>>()
    );
    assert_eq!(
        writes.iter().map(|e| e.location).collect::<Vec<_>>(),
        cells.iter().map(|&c| Some(c)).collect::<Vec<_>>()
    );
    // Two bounds checks, each an assertion.
    assert_eq!(
        thread
            .iter()
            .filter(|e| e.kind == EventKind::Assert)
            .count(),
        2
    );
    let x_read = thread[0].id;
    let r1 = program.threads[0]
        .registers
        .iter()
        .position(|r| r.name == "r1")
        .unwrap();
    for index in 0..3 {
        // x read returns `index`, each y cell read returns 100 + its cell.
        let value = |e: EventId| {
            if e == x_read {
                index
            } else {
                let cell = events.events[e].location.unwrap();
                100 + cells.iter().position(|&c| c == cell).unwrap() as i32
            }
        };
        let executed: Vec<LocId> = reads
            .iter()
            .filter(|e| holds(&events, &e.guard, &value))
            .map(|e| e.location.unwrap())
            .collect();
        assert_eq!(executed, [cells[index as usize]]);
        let written: Vec<LocId> = writes
            .iter()
            .filter(|e| holds(&events, &e.guard, &value))
            .map(|e| e.location.unwrap())
            .collect();
        assert_eq!(written, [cells[index as usize]]);
        let final_r1 = events.terms.eval(events.final_registers[0][r1], &value);
        assert_eq!(final_r1, 100 + index);
    }
}

#[test]
fn out_of_bounds_fails_the_check_and_stops_the_thread() {
    let (program, events) = build(
        "  int r0 = *x;\n  if (r0 != 7) {\n    y[r0 - 1] = 5;\n  }\n  int r2 = 9;\n  *x = 3;",
    );
    let thread = thread_events(&events);
    let check = thread
        .iter()
        .find(|e| e.kind == EventKind::Assert)
        .expect("a bounds check");
    let last_write = thread
        .iter()
        .rev()
        .find(|e| e.kind == EventKind::Write)
        .unwrap();
    assert_eq!(last_write.location, Some(loc(&program, "x")));
    let x_read = thread[0].id;
    let r2 = program.threads[0]
        .registers
        .iter()
        .position(|r| r.name == "r2")
        .unwrap();
    for (x, in_bounds) in [(1, true), (3, true), (0, false), (4, false), (7, true)] {
        let value = |e: EventId| if e == x_read { x } else { 0 };
        if x != 7 {
            assert!(holds(&events, &check.guard, &value));
            let ok = events.terms.eval(check.value.unwrap(), &value) != 0;
            assert_eq!(ok, in_bounds, "x = {x}");
        }
        // The thread goes on after the branch only if it did not stop in it.
        assert_eq!(
            holds(&events, &last_write.guard, &value),
            in_bounds,
            "x = {x}"
        );
        let final_r2 = events.terms.eval(events.final_registers[0][r2], &value);
        assert_eq!(final_r2, if in_bounds { 9 } else { 0 }, "x = {x}");
    }
}

#[test]
fn every_address_form_indexes_the_same_cells() {
    for access in [
        "int r1 = y[r0];",
        "int r1 = *(y + r0);",
        "int r1 = *(r0 + y);",
        "int r1 = atomic_load_explicit(y + r0, memory_order_relaxed);",
        "int r1 = atomic_load_explicit(&y[r0], memory_order_relaxed);",
        "int r1 = READ_ONCE(*(y + r0));",
    ] {
        let (program, events) = build(&format!("  int r0 = *x;\n  {access}"));
        let cells: Vec<LocId> = thread_events(&events)
            .iter()
            .filter(|e| e.kind == EventKind::Read)
            .skip(1)
            .filter_map(|e| e.location)
            .collect();
        let y: Vec<LocId> = (0..3).map(|i| loc(&program, &format!("y[{i}]"))).collect();
        assert_eq!(cells, y, "{access}");
    }
}

#[test]
fn an_index_register_read_from_memory_is_a_read_term() {
    let (_, events) = build("  int r1 = y[*x];");
    let thread = thread_events(&events);
    let check = thread.iter().find(|e| e.kind == EventKind::Assert).unwrap();
    // The index is the value of the read of x, hoisted before the access.
    let mentions_read = |t: TermId| -> bool {
        fn walk(terms: &Terms, t: TermId, read: EventId) -> bool {
            match *terms.get(t) {
                Term::Read(e) => e == read,
                Term::Const(_) => false,
                Term::Unary(_, a) => walk(terms, a, read),
                Term::Binary(_, a, b) => walk(terms, a, read) || walk(terms, b, read),
                Term::Ite(c, a, b) => {
                    walk(terms, c, read) || walk(terms, a, read) || walk(terms, b, read)
                }
            }
        }
        walk(&events.terms, t, thread[0].id)
    };
    assert_eq!(thread[0].kind, EventKind::Read);
    assert!(mentions_read(check.value.unwrap()));
}

/// A thread of the kernel's macros over `x`, `y`, `z`, `w` and `a[2]`, and its
/// dependencies as `(from, to)` names (`R x`, `W a[1]`, `F`).
fn dependencies(body: &str) -> (Events, [Vec<(String, String)>; 3]) {
    let text = format!(
        "C t\n{{ x = 0; y = 0; z = 0; w = 0; int a[2] = {{0, 0}}; }}\n\
         P0 (int* x, int* y, int* z, int* w, int* a) {{\n{body}\n}}\nexists (x=0)\n"
    );
    let file = SourceFile::new("t.litmus", text);
    let test = crate::load(&file, &Default::default()).unwrap_or_else(|e| panic!("{}", e.short()));
    let name = |e: EventId| {
        let event = &test.events.events[e];
        let kind = match event.kind {
            EventKind::Read => "R",
            EventKind::Write => "W",
            EventKind::Fence => "F",
            _ => "?",
        };
        match event.location {
            Some(l) => format!("{kind} {}", test.program.locations[l].name),
            None => kind.to_string(),
        }
    };
    let named = |list: &[Dependency]| {
        list.iter()
            .map(|d| (name(d.from), name(d.to)))
            .collect::<Vec<_>>()
    };
    let deps = &test.events.dependencies;
    let named = [
        named(&deps.addr),
        named(&deps.data),
        named(&test.events.ctrl_pairs()),
    ];
    (test.events, named)
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn data_flows_through_registers_syntactically() {
    let (events, [addr, data, ctrl]) = dependencies(
        "  int r1 = READ_ONCE(*x);\n  int r2 = r1 - r1;\n  int r3 = r2 + 1;\n\
         WRITE_ONCE(*y, r3);\n  WRITE_ONCE(*z, 1);\n  WRITE_ONCE(*w, READ_ONCE(*y));",
    );
    // `r1 - r1` is not folded away: the dependency is on the syntax, not the value.
    assert_eq!(data, pairs(&[("R x", "W y"), ("R y", "W w")]));
    assert!(addr.is_empty() && ctrl.is_empty(), "{addr:?} {ctrl:?}");
    let one = events
        .terms
        .constant_value(events.dependencies.data[0].when);
    assert_eq!(one, Some(1));
}

#[test]
fn ctrl_reaches_the_branches_of_nested_ifs_and_stops_at_the_join() {
    let (_, [addr, data, ctrl]) = dependencies(
        "  int r1 = READ_ONCE(*x);\n  int r2 = READ_ONCE(*y);\n\
         if (r1) {\n    if (r2 == 1) { WRITE_ONCE(*z, 1); } else { smp_mb(); }\n  }\n\
         WRITE_ONCE(*w, 1);",
    );
    assert_eq!(
        ctrl,
        pairs(&[("R x", "W z"), ("R y", "W z"), ("R x", "F"), ("R y", "F")])
    );
    assert!(addr.is_empty() && data.is_empty(), "{addr:?} {data:?}");
}

#[test]
fn ctrl_reaches_every_iteration_of_a_loop_after_its_test() {
    let (_, [_, _, ctrl]) = dependencies(
        "  int r1 = 0;\n  while (READ_ONCE(*x) == 0 && r1 < 1) {\n    WRITE_ONCE(*y, 1);\n\
         r1 = r1 + 1;\n  }\n  WRITE_ONCE(*w, 1);",
    );
    assert!(!ctrl.is_empty());
    assert!(
        ctrl.iter().all(|(r, w)| r == "R x" && w != "W w"),
        "{ctrl:?}"
    );
    assert!(ctrl.iter().any(|(_, w)| w == "R x"), "{ctrl:?}");
}

#[test]
fn addr_through_an_index_reaches_every_cell_the_access_may_touch() {
    let (_, [addr, data, ctrl]) = dependencies(
        "  int r1 = READ_ONCE(*x);\n  int r2 = READ_ONCE(*(a + (r1 & 1)));\n\
         WRITE_ONCE(*(a + r1 - r1), 2);",
    );
    assert_eq!(
        addr,
        pairs(&[
            ("R x", "R a[0]"),
            ("R x", "R a[1]"),
            ("R x", "W a[0]"),
            ("R x", "W a[1]")
        ])
    );
    assert!(data.is_empty() && ctrl.is_empty(), "{data:?} {ctrl:?}");
}

#[test]
fn a_register_assigned_in_one_branch_depends_on_the_read_when_that_branch_ran() {
    let (events, [_, data, _]) = dependencies(
        "  int r1 = READ_ONCE(*x);\n  int r2 = READ_ONCE(*y);\n  int r3 = 0;\n\
         if (r2) { r3 = r1; }\n  WRITE_ONCE(*z, r3);",
    );
    assert_eq!(data, pairs(&[("R x", "W z")]));
    let d = events.dependencies.data[0];
    let read_y = events.events[events.threads[0][1]].id;
    for (y, holds) in [(0, 0), (1, 1), (5, 1)] {
        let value = |e: EventId| if e == read_y { y } else { 7 };
        assert_eq!(
            events.terms.eval(d.when, &value) != 0,
            holds == 1,
            "y = {y}"
        );
    }
}

/// `depth` nested `if (READ_ONCE(*x) == i) {` in one thread, `r0 = 1;` innermost (the
/// shape of issue 38's 5000 nested `if`s).
fn nested_ifs(depth: usize) -> (Program, Events) {
    let mut body = String::from("  int r0 = 0;\n");
    for i in 0..depth {
        body.push_str(&format!("  if (READ_ONCE(*x) == {i}) {{\n"));
    }
    body.push_str("  r0 = 1;\n");
    body.push_str(&"  }\n".repeat(depth));
    build(&body)
}

#[test]
fn nested_ifs_merge_only_the_registers_read_after_their_joins() {
    // Each level loads a temporary for its condition, which nothing reads after any join:
    // merging every one at every enclosing join made depth^2 / 2 terms (5000 at depth 100).
    let terms = |depth| nested_ifs(depth).1.terms.len();
    let (small, large) = (terms(100), terms(200));
    assert!(
        large - small <= small + 20,
        "terms: {small} at 100, {large} at 200"
    );
    // r0, read by the condition, is still merged at every join: it ends 1 exactly when
    // every read returned its level.
    let (program, events) = nested_ifs(3);
    let r0 = program.threads[0]
        .registers
        .iter()
        .position(|r| r.name == "r0")
        .unwrap();
    let reads: Vec<EventId> = events.threads[0]
        .iter()
        .copied()
        .filter(|&e| events.events[e].kind == EventKind::Read)
        .collect();
    assert_eq!(reads.len(), 3);
    for (values, expected) in [([0, 1, 2], 1), ([0, 1, 3], 0), ([1, 1, 2], 0)] {
        let value = |e: EventId| reads.iter().position(|&r| r == e).map_or(0, |i| values[i]);
        let end = events.terms.eval(events.final_registers[0][r0], &value);
        assert_eq!(end, expected, "reads {values:?}");
    }
}

#[test]
fn ctrl_of_nested_ifs_is_one_span_per_read_for_the_pairs_herd_has() {
    let depth = 200;
    let (_, events) = nested_ifs(depth);
    // Read k controls the reads of levels k+1.. : depth (depth - 1) / 2 pairs, which the
    // relation still has, written as at most one span per read.
    assert!(
        events.dependencies.ctrl.len() <= depth,
        "{} spans",
        events.dependencies.ctrl.len()
    );
    let pairs = events.ctrl_pairs();
    assert_eq!(pairs.len(), depth * (depth - 1) / 2);
    let thread = &events.threads[0];
    let position = |e: EventId| thread.iter().position(|&t| t == e).unwrap();
    assert!(pairs.iter().all(|d| position(d.from) < position(d.to)));
}
