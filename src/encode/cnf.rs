//! Literals, clauses and the gates the encodings build from them.
//!
//! Encodings never talk to a solver: they write clauses into a [`ClauseSink`]. The solver
//! module implements the sink for each backend; a plain [`Cnf`] collects clauses for export
//! and tests.

use std::ops::Not;

/// A propositional literal in DIMACS numbering: variable `v >= 1` positive is `v`, negated is
/// `-v`. Kept as our own type so that no solver crate leaks into the encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lit(i32);

impl Lit {
    /// The positive literal of variable `var` (1-based).
    pub fn positive(var: u32) -> Lit {
        assert!(var >= 1 && var < i32::MAX as u32, "variable out of range");
        Lit(var as i32)
    }

    pub fn from_dimacs(value: i32) -> Lit {
        assert!(value != 0, "0 is not a DIMACS literal");
        Lit(value)
    }

    pub fn to_dimacs(self) -> i32 {
        self.0
    }

    /// The variable, 1-based.
    pub fn var(self) -> u32 {
        self.0.unsigned_abs()
    }

    pub fn is_positive(self) -> bool {
        self.0 > 0
    }
}

impl Not for Lit {
    type Output = Lit;
    fn not(self) -> Lit {
        Lit(-self.0)
    }
}

/// A boolean that may be known at encoding time. Static bounds make many relation entries
/// constant; keeping constants out of the solver keeps the instance small.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bool {
    Const(bool),
    Lit(Lit),
}

impl Bool {
    pub const TRUE: Bool = Bool::Const(true);
    pub const FALSE: Bool = Bool::Const(false);

    pub fn is_false(self) -> bool {
        self == Bool::FALSE
    }

    pub fn is_true(self) -> bool {
        self == Bool::TRUE
    }
}

impl From<Lit> for Bool {
    fn from(lit: Lit) -> Bool {
        Bool::Lit(lit)
    }
}

impl From<bool> for Bool {
    fn from(value: bool) -> Bool {
        Bool::Const(value)
    }
}

impl Not for Bool {
    type Output = Bool;
    fn not(self) -> Bool {
        match self {
            Bool::Const(b) => Bool::Const(!b),
            Bool::Lit(l) => Bool::Lit(!l),
        }
    }
}

/// Where encodings put their variables and clauses.
pub trait ClauseSink {
    /// A fresh variable, returned as its positive literal.
    fn new_lit(&mut self) -> Lit;
    fn add_clause(&mut self, clause: &[Lit]);
    /// Number of variables created so far.
    fn num_vars(&self) -> u32;
    /// Say what a literal means (`rf(e3,e7)`), for exported instances. The name is built
    /// only by sinks that keep it, so that solving pays nothing for it.
    fn name_lit(&mut self, _lit: Lit, _name: &dyn Fn() -> String) {}
    /// A new graph whose acyclicity the sink enforces itself during search (CaDiCaL's
    /// external propagator, `solver::cadical_backend`): its number, or `None` when the sink
    /// does not, and the caller must cut the cycles of the models it finds.
    fn acyclic_graph(&mut self) -> Option<u32> {
        None
    }
    /// In `graph` (from [`ClauseSink::acyclic_graph`]), the edge `from -> to`, present when
    /// `lit` is true: no model has a cycle of present edges. `lit` must be fresh (in no
    /// clause solved yet), so that no simplification has removed its variable.
    fn acyclic_edge(&mut self, _graph: u32, _lit: Lit, _from: usize, _to: usize) {}
}

/// Name a [`Bool`] when it is a literal; constants need no name.
pub fn name_bool<S: ClauseSink + ?Sized>(sink: &mut S, b: Bool, name: &dyn Fn() -> String) {
    if let Bool::Lit(l) = b {
        sink.name_lit(l, name);
    }
}

/// A boxed solver is a sink, so that the generic encodings take `Box<dyn Solver>` as is.
impl<S: ClauseSink + ?Sized> ClauseSink for Box<S> {
    fn new_lit(&mut self) -> Lit {
        (**self).new_lit()
    }

    fn add_clause(&mut self, clause: &[Lit]) {
        (**self).add_clause(clause)
    }

    fn num_vars(&self) -> u32 {
        (**self).num_vars()
    }

    fn name_lit(&mut self, lit: Lit, name: &dyn Fn() -> String) {
        (**self).name_lit(lit, name)
    }

    fn acyclic_graph(&mut self) -> Option<u32> {
        (**self).acyclic_graph()
    }

    fn acyclic_edge(&mut self, graph: u32, lit: Lit, from: usize, to: usize) {
        (**self).acyclic_edge(graph, lit, from, to)
    }
}

/// A clause set in memory: for export, tests and replaying into a solver.
#[derive(Clone, Debug, Default)]
pub struct Cnf {
    pub num_vars: u32,
    pub clauses: Vec<Vec<Lit>>,
}

impl ClauseSink for Cnf {
    fn new_lit(&mut self) -> Lit {
        self.num_vars += 1;
        Lit::positive(self.num_vars)
    }

    fn add_clause(&mut self, clause: &[Lit]) {
        self.clauses.push(clause.to_vec());
    }

    fn num_vars(&self) -> u32 {
        self.num_vars
    }
}

/// Gate constructors with constant folding, over any sink.
///
/// Each gate returns a [`Bool`] equivalent to its definition (Tseitin encoding with both
/// directions), so the result can be used positively and negatively.
pub trait Gates: ClauseSink {
    /// Add a clause over `Bool`s: constants true satisfy it, constants false drop out.
    fn clause(&mut self, parts: &[Bool]) {
        let mut lits: Lits = Lits::with_capacity(parts.len());
        for part in parts {
            match *part {
                Bool::Const(true) => return,
                Bool::Const(false) => {}
                Bool::Lit(l) => lits.push(l),
            }
        }
        self.add_clause(&lits);
    }

    /// Require `b` to hold.
    fn assert_true(&mut self, b: Bool) {
        self.clause(&[b]);
    }

    /// `a -> b`
    fn implies(&mut self, a: Bool, b: Bool) {
        self.clause(&[!a, b]);
    }

    fn and(&mut self, parts: &[Bool]) -> Bool {
        and_of(self, parts, false)
    }

    fn or(&mut self, parts: &[Bool]) -> Bool {
        !and_of(self, parts, true)
    }

    fn and2(&mut self, a: Bool, b: Bool) -> Bool {
        self.and(&[a, b])
    }

    fn or2(&mut self, a: Bool, b: Bool) -> Bool {
        self.or(&[a, b])
    }

    fn xor(&mut self, a: Bool, b: Bool) -> Bool {
        match (a, b) {
            (Bool::Const(x), Bool::Const(y)) => Bool::Const(x != y),
            (Bool::Const(x), other) | (other, Bool::Const(x)) => {
                if x {
                    !other
                } else {
                    other
                }
            }
            (Bool::Lit(x), Bool::Lit(y)) => {
                if x == y {
                    return Bool::FALSE;
                }
                if x == !y {
                    return Bool::TRUE;
                }
                let out = self.new_lit();
                self.add_clause(&[!out, x, y]);
                self.add_clause(&[!out, !x, !y]);
                self.add_clause(&[out, !x, y]);
                self.add_clause(&[out, x, !y]);
                Bool::Lit(out)
            }
        }
    }

    fn iff(&mut self, a: Bool, b: Bool) -> Bool {
        let x = self.xor(a, b);
        !x
    }

    /// `if c then a else b`
    fn ite(&mut self, c: Bool, a: Bool, b: Bool) -> Bool {
        match c {
            Bool::Const(true) => a,
            Bool::Const(false) => b,
            Bool::Lit(_) => {
                if a == b {
                    return a;
                }
                let when_true = self.and2(c, a);
                let when_false = self.and2(!c, b);
                self.or2(when_true, when_false)
            }
        }
    }

    /// Require at most one of `parts` to hold (pairwise for few, sequential counter for many).
    fn at_most_one(&mut self, parts: &[Bool]) {
        let lits: Vec<Lit> = parts
            .iter()
            .filter_map(|p| match *p {
                Bool::Lit(l) => Some(l),
                Bool::Const(_) => None,
            })
            .collect();
        let trues = parts.iter().filter(|p| p.is_true()).count();
        if trues > 1 {
            self.add_clause(&[]);
            return;
        }
        if trues == 1 {
            for &l in &lits {
                self.add_clause(&[!l]);
            }
            return;
        }
        if lits.len() <= 6 {
            for i in 0..lits.len() {
                for j in i + 1..lits.len() {
                    self.add_clause(&[!lits[i], !lits[j]]);
                }
            }
            return;
        }
        // Sinz's sequential counter: s_i means "some of lits[..=i] holds".
        let mut prev = lits[0];
        for &l in &lits[1..] {
            let s = self.new_lit();
            self.add_clause(&[!prev, s]);
            self.add_clause(&[!l, s]);
            self.add_clause(&[!prev, !l]);
            prev = s;
        }
    }

    fn exactly_one(&mut self, parts: &[Bool]) {
        self.clause(parts);
        self.at_most_one(parts);
    }
}

impl<S: ClauseSink + ?Sized> Gates for S {}

/// A gate's or a clause's literals: most have a handful, and building one is the encoder's
/// most frequent allocation (a fifth of a small LKMM test's instructions went to the
/// allocator), so they live on the stack up to 8.
type Lits = smallvec::SmallVec<[Lit; 8]>;

/// The conjunction of `parts`, each negated first when `negate` is set (so that `or` is the
/// negation of the conjunction of the negated parts without building that list).
fn and_of<S: Gates + ?Sized>(sink: &mut S, parts: &[Bool], negate: bool) -> Bool {
    let sign = |b: Bool| if negate { !b } else { b };
    if let [a, b] = parts {
        return and_pair(sink, sign(*a), sign(*b));
    }
    let mut lits: Lits = Lits::with_capacity(parts.len());
    for part in parts {
        match sign(*part) {
            Bool::Const(false) => return Bool::FALSE,
            Bool::Const(true) => {}
            Bool::Lit(l) => {
                if lits.contains(&!l) {
                    return Bool::FALSE;
                }
                if !lits.contains(&l) {
                    lits.push(l)
                }
            }
        }
    }
    match lits.len() {
        0 => Bool::TRUE,
        1 => Bool::Lit(lits[0]),
        _ => {
            let out = sink.new_lit();
            for &l in &lits {
                sink.add_clause(&[!out, l]);
            }
            let mut long: Lits = lits.iter().map(|&l| !l).collect();
            long.push(out);
            sink.add_clause(&long);
            Bool::Lit(out)
        }
    }
}

/// `and_of` on two parts, most gates' size (nine in ten of a small LKMM test's): the same
/// clauses in the same order, without the general case's lists.
fn and_pair<S: Gates + ?Sized>(sink: &mut S, a: Bool, b: Bool) -> Bool {
    match (a, b) {
        (Bool::Const(false), _) | (_, Bool::Const(false)) => Bool::FALSE,
        (Bool::Const(true), other) | (other, Bool::Const(true)) => other,
        (Bool::Lit(x), Bool::Lit(y)) if x == !y => Bool::FALSE,
        (Bool::Lit(x), Bool::Lit(y)) if x == y => Bool::Lit(x),
        (Bool::Lit(x), Bool::Lit(y)) => {
            let out = sink.new_lit();
            sink.add_clause(&[!out, x]);
            sink.add_clause(&[!out, y]);
            sink.add_clause(&[!x, !y, out]);
            Bool::Lit(out)
        }
    }
}
