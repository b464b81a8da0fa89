//! Which cells an access through a pointer value may touch.
//!
//! The unroller splits `*p` into one guarded access per cell `p` may point to (as it does a
//! register-indexed `a[i]`), so it needs, before any event exists, the cells a pointer can
//! hold. This is a flow-insensitive, Andersen-style points-to analysis over the IR: each
//! register of each thread and each location gets the set of cells whose address it may
//! hold, grown to a fixpoint over every instruction of every thread, whatever their order.
//! Addresses come from constants (`&x`, a location's name, the init block) and flow through
//! assignments, loads, stores and read-modify-writes; adding an integer to an address moves
//! within its object (a constant moves by that many cells, anything else may reach any cell
//! of the object); other operations on addresses (masking, multiplying) may give any cell.
//!
//! It over-approximates what any execution can hold where every value is computed from
//! constants (the models that forbid values out of thin air, `events::bounds`), so no cell
//! a pointer reaches is missing. Under a model that allows them, a pointer value that
//! justifies itself and happens to be the address of a cell the program never names for it
//! is reported as an invalid access rather than followed. A value no set holds (`NULL`, one
//! past an array, an integer that never was an address) is an invalid access, which the
//! unroller reports.

use std::collections::{BTreeSet, HashMap};

use fixedbitset::FixedBitSet;

use crate::diagnostics::{Diagnostic, Span};

use super::{object_block, Address, BinaryOp, Expected, Expr, Instr, LocId, Program, RmwOp};

/// Fill in the cells of every [`Address::Pointer`] of `program`. An access through a value
/// that is never an address (an `int`, only ever `NULL`) is refused at its source when
/// `refuse_non_addresses` (a litmus test: it could only ever fail, so it is a slip); in a
/// C program it is GenMC's access to non-allocated memory (`*(int *) 0xdeadbeef`), the
/// defect the unroller's address check reports where the access runs. One past an object's end is an address
/// (C's one-past-the-end pointer): an access through it alone is an invalid access where
/// it runs, as any value outside the cells is.
pub fn resolve(program: &mut Program, refuse_non_addresses: bool) -> Vec<Diagnostic> {
    if !has_pointer_access(program) {
        return Vec::new();
    }
    let analysis = Analysis::run(program);
    let mut errors = Vec::new();
    for (t, thread) in program.threads.iter_mut().enumerate() {
        for_each_access(&mut thread.body, &mut |address, span| {
            if let Address::Pointer { value, cells } = address {
                let targets = analysis.eval(t, value);
                *cells = analysis.cells_of(&targets);
                // One past an object is an address, just no cell's: the access is invalid
                // wherever it runs, which the unroller's address check reports.
                if targets.is_empty() && refuse_non_addresses {
                    errors.push(
                        Diagnostic::new(
                            "this access goes through a value that is never an address",
                            span,
                        )
                        .with_label("dereferences an integer or NULL")
                        .with_help(
                            "a pointer gets an address from `&x`, a location's name or the init block (`{ p = x; }`), then through assignments, loads and stores",
                        ),
                    );
                }
            }
        });
    }
    // A function's body is inlined at each call: its errors once.
    let mut seen = std::collections::HashSet::new();
    errors.retain(|d| seen.insert(d.span));
    errors
}

fn has_pointer_access(program: &Program) -> bool {
    let mut found = false;
    for thread in &program.threads {
        visit(&thread.body, &mut |instr| {
            if let Some(Address::Pointer { .. }) = instr.address() {
                found = true;
            }
        });
    }
    found
}

/// What a value may be, as an address.
#[derive(Clone, Debug, Default)]
struct Targets {
    /// The cells, as a bit set over the locations: the fixpoint joins whole sets at every
    /// load and store through a pointer, once per cell it may reach.
    cells: FixedBitSet,
    /// Addresses one past an object's last cell (`a + 2` of `int a[2]`): no cell's, but
    /// addresses all the same, which arithmetic may bring back into the object.
    past: BTreeSet<i64>,
    /// May be the address of any cell.
    any: bool,
}

impl Targets {
    fn is_empty(&self) -> bool {
        !self.any && self.cells.is_clear() && self.past.is_empty()
    }

    /// Adds `other`; whether anything changed.
    fn join(&mut self, other: &Targets) -> bool {
        let mut changed = other.any && !self.any;
        self.any |= other.any;
        if !self.cells.is_superset(&other.cells) {
            self.cells.union_with(&other.cells);
            changed = true;
        }
        let past = self.past.len();
        self.past.extend(other.past.iter().copied());
        changed || past != self.past.len()
    }

    fn anything() -> Targets {
        Targets {
            cells: FixedBitSet::new(),
            past: BTreeSet::new(),
            any: true,
        }
    }
}

struct Analysis {
    addresses: Vec<i32>,
    /// The first cell at each address (`cell_at`).
    cell_of_address: HashMap<i32, LocId>,
    registers: Vec<Vec<Targets>>,
    memory: Vec<Targets>,
}

impl Analysis {
    fn run(program: &Program) -> Analysis {
        let addresses: Vec<i32> = program.locations.iter().map(|l| l.address).collect();
        let mut cell_of_address = HashMap::new();
        for (cell, &address) in addresses.iter().enumerate() {
            cell_of_address.entry(address).or_insert(cell);
        }
        let mut analysis = Analysis {
            registers: Vec::new(),
            memory: Vec::new(),
            addresses,
            cell_of_address,
        };
        analysis.memory = program
            .locations
            .iter()
            .map(|l| analysis.constant(l.initial))
            .collect();
        analysis.registers = program
            .threads
            .iter()
            .map(|t| {
                t.registers
                    .iter()
                    .map(|r| analysis.constant(r.initial))
                    .collect()
            })
            .collect();
        loop {
            let mut changed = false;
            for (t, thread) in program.threads.iter().enumerate() {
                visit(&thread.body, &mut |instr| {
                    changed |= analysis.step(t, instr)
                });
            }
            if !changed {
                return analysis;
            }
        }
    }

    fn cell_at(&self, value: i64) -> Option<LocId> {
        let value = i32::try_from(value).ok()?;
        self.cell_of_address.get(&value).copied()
    }

    fn constant(&self, value: i32) -> Targets {
        let mut targets = Targets::default();
        targets.cells.extend(self.cell_at(i64::from(value)));
        targets
    }

    /// The cells an address may denote.
    fn cells_of(&self, targets: &Targets) -> Vec<LocId> {
        if targets.any {
            return (0..self.addresses.len()).collect();
        }
        targets.cells.ones().collect()
    }

    /// Every cell of the objects of `targets` (those sharing an address block).
    fn whole_objects(&self, targets: &Targets) -> Targets {
        if targets.any {
            return Targets::anything();
        }
        let blocks: BTreeSet<i64> = targets
            .cells
            .ones()
            .map(|c| i64::from(object_block(self.addresses[c])))
            .chain(
                targets
                    .past
                    .iter()
                    .map(|&a| i32::try_from(a).map_or(i64::MIN, |a| i64::from(object_block(a)))),
            )
            .collect();
        Targets {
            cells: (0..self.addresses.len())
                .filter(|&c| blocks.contains(&i64::from(object_block(self.addresses[c]))))
                .collect(),
            past: BTreeSet::new(),
            any: false,
        }
    }

    /// `targets` moved by `by` cells. An address that lands on no cell is kept when it is
    /// one past its object's last cell (C's one-past-the-end pointer, which arithmetic may
    /// bring back); any other lands nowhere (and the set stays finite).
    fn shifted(&self, targets: &Targets, by: i64) -> Targets {
        if targets.any {
            return Targets::anything();
        }
        let mut out = Targets::default();
        let from_cells = targets
            .cells
            .ones()
            .map(|c| i64::from(self.addresses[c]) + by);
        let from_past = targets.past.iter().map(|&a| a + by);
        for address in from_cells.chain(from_past) {
            match self.cell_at(address) {
                Some(cell) => {
                    out.cells.grow_and_insert(cell);
                }
                None if self.one_past_an_object(address) => {
                    out.past.insert(address);
                }
                None => {}
            }
        }
        out
    }

    /// `address` is one past the last cell of an object.
    fn one_past_an_object(&self, address: i64) -> bool {
        let Ok(below) = i32::try_from(address - 1) else {
            return false;
        };
        self.cell_of_address.contains_key(&below)
            && i32::try_from(address).is_ok_and(|a| object_block(a) == object_block(below))
    }

    fn eval(&self, thread: usize, e: &Expr) -> Targets {
        match e {
            Expr::Const(v) => self.constant(*v),
            Expr::Reg(r) => self.registers[thread][*r].clone(),
            Expr::Conditional(_, a, b) => {
                let mut t = self.eval(thread, a);
                t.join(&self.eval(thread, b));
                t
            }
            Expr::Unary(_, a) => self.opaque(&[self.eval(thread, a)]),
            Expr::Binary(op, a, b) => {
                let (ta, tb) = (self.eval(thread, a), self.eval(thread, b));
                self.binary(*op, (ta, constant(a)), (tb, constant(b)))
            }
        }
    }

    /// `a op b`, each operand with its targets and its value when constant.
    fn binary(
        &self,
        op: BinaryOp,
        (ta, ka): (Targets, Option<i32>),
        (tb, kb): (Targets, Option<i32>),
    ) -> Targets {
        match op {
            BinaryOp::Add | BinaryOp::Sub => {
                // `p + i`, `i + p`, `p - i`; `p - q` is an integer, `i - p` nothing C has.
                let cases = if op == BinaryOp::Add {
                    vec![(&ta, &tb, kb, 1), (&tb, &ta, ka, 1)]
                } else {
                    vec![(&ta, &tb, kb, -1)]
                };
                let mut t = Targets::default();
                for (targets, other, other_value, sign) in cases {
                    if targets.is_empty() || (op == BinaryOp::Sub && !other.is_empty()) {
                        continue;
                    }
                    t.join(&match other_value {
                        Some(k) => self.shifted(targets, sign * i64::from(k)),
                        None => self.whole_objects(targets),
                    });
                }
                t
            }
            // Comparisons and logic give 0 or 1, never an address.
            _ if op.gives_0_or_1() => Targets::default(),
            _ => self.opaque(&[ta, tb]),
        }
    }

    /// Any operation nemos does not follow: an address in, any address out.
    fn opaque(&self, operands: &[Targets]) -> Targets {
        if operands.iter().all(Targets::is_empty) {
            Targets::default()
        } else {
            Targets::anything()
        }
    }

    fn cells(&self, thread: usize, address: &Address) -> Vec<LocId> {
        match address {
            Address::Fixed(loc) => vec![*loc],
            Address::Indexed { cells, .. } => cells.clone(),
            Address::Pointer { value, .. } => self.cells_of(&self.eval(thread, value)),
        }
    }

    fn read(&self, thread: usize, address: &Address) -> Targets {
        let mut t = Targets::default();
        for c in self.cells(thread, address) {
            t.join(&self.memory[c]);
        }
        t
    }

    fn write(&mut self, thread: usize, address: &Address, value: &Targets) -> bool {
        let mut changed = false;
        for c in self.cells(thread, address) {
            changed |= self.memory[c].join(value);
        }
        changed
    }

    fn set(&mut self, thread: usize, reg: usize, value: &Targets) -> bool {
        self.registers[thread][reg].join(value)
    }

    /// One instruction's effect on the sets; whether any grew.
    fn step(&mut self, t: usize, instr: &Instr) -> bool {
        match instr {
            Instr::Load { dst, loc, .. } => {
                let value = self.read(t, loc);
                self.set(t, *dst, &value)
            }
            Instr::Store { loc, value, .. } => {
                let value = self.eval(t, value);
                self.write(t, loc, &value)
            }
            Instr::Rmw {
                dst,
                loc,
                op,
                operand,
                ..
            } => {
                let old = self.read(t, loc);
                let operand_targets = self.eval(t, operand);
                let new = match op {
                    RmwOp::Exchange => operand_targets,
                    // One of the two values.
                    RmwOp::Extreme { .. } => {
                        let mut either = old.clone();
                        either.join(&operand_targets);
                        either
                    }
                    RmwOp::Fetch(op) => self.binary(
                        *op,
                        (old.clone(), None),
                        (operand_targets, constant(operand)),
                    ),
                };
                let mut changed = self.write(t, loc, &new);
                if let Some(dst) = dst {
                    changed |= self.set(t, *dst, &old);
                }
                changed
            }
            Instr::CompareExchange {
                loc,
                expected,
                desired,
                ..
            } => {
                let old = self.read(t, loc);
                let desired = self.eval(t, desired);
                let mut changed = self.write(t, loc, &desired);
                changed |= match expected {
                    Expected::Register(r) => self.set(t, *r, &old),
                    Expected::Location(e) => self.memory[*e].join(&old),
                };
                changed
            }
            Instr::Assign { dst, value, .. } => {
                let value = self.eval(t, value);
                self.set(t, *dst, &value)
            }
            Instr::CallEnter { bind, .. } => {
                let mut changed = false;
                for (reg, value) in bind {
                    let value = self.eval(t, value);
                    changed |= self.set(t, *reg, &value);
                }
                changed
            }
            _ => false,
        }
    }
}

fn constant(e: &Expr) -> Option<i32> {
    match e {
        Expr::Const(v) => Some(*v),
        _ => None,
    }
}

/// Every instruction, nested ones included, in order.
fn visit(instrs: &[Instr], f: &mut dyn FnMut(&Instr)) {
    for instr in instrs {
        f(instr);
        for block in instr.nested() {
            visit(block, f);
        }
    }
}

/// Every memory access's address, nested ones included, in order.
fn for_each_access(instrs: &mut [Instr], f: &mut dyn FnMut(&mut Address, Span)) {
    for instr in instrs {
        if let Some((address, span)) = instr.address_mut() {
            f(address, span);
        }
        for block in instr.nested_mut() {
            for_each_access(block, f);
        }
    }
}
