//! The compiled operators of the model language against a direct evaluation.
//!
//! For several programs and expressions covering every operator (difference and
//! intersection with their masks, sequence, inverse, closures, identity, product,
//! domain/range, every base set and relation), the literals `encode::model` builds are read
//! in several solver models (distinct `rf`/`co` choices, without any model check, so that
//! non-SC executions are covered too) and compared pair by pair with the expression
//! evaluated on the decoded execution by dense boolean matrices. Every gate is meant to be
//! exact, so the literal of every pair must equal the relation's value, including under
//! negation.

use std::path::PathBuf;

use nemos::cat::ast::{BinOp, UnOp};
use nemos::cat::{Base, Model, TExpr};
use nemos::diagnostics::SourceFile;
use nemos::encode::cnf::{Bool, ClauseSink, Gates};
use nemos::encode::model::{encode_definition, Val};
use nemos::encode::Encoding;
use nemos::events::{unroll, EventKind, Events, UnrollOptions};
use nemos::program::MemOrder;
use nemos::solver::{solve_under, SolveOutcome, Solver, VarisatSolver};

const EXPRESSIONS: &[&str] = &[
    "po \\ (W * R)",
    "(rf | co | fr)+",
    "(po | rf)*",
    "rf?",
    "rf^-1 ; co",
    "[R]; po; [W] & loc",
    "ext \\ loc",
    "int & (M * M)",
    "fre; coe",
    "rmw & (fre; coe)",
    "po-loc \\ po",
    "[X] ; po",
    "id \\ [M]",
    "(fr \\ fri) | 0",
    "co \\ (co; co)",
    "((po | rf)+ ; fr) & id",
    "[F & SC]; po | po; [F]",
    "rfe | rfi",
    "(W * W) \\ co \\ co^-1 \\ id",
    "sb | mo | rb",
    "[domain(rf)] ; po ; [range(co) & W]",
    "[M \\ X] ; loc ; [_ \\ (R | W) | IW]",
    "[RLX | ACQ | REL | SC | NA | A | ACQ_REL] ; int",
    "coi | fri",
];

const PROGRAMS: &[&str] = &[
    "SB",
    "MP",
    "fetch-add",
    "cas",
    "counter-locked",
    "fig1-program2",
    "loop-bounded",
    "2+2W",
];

type Matrix = Vec<Vec<bool>>;

enum Dense {
    Set(Vec<bool>),
    Rel(Matrix),
}

struct Exec<'a> {
    events: &'a Events,
    feasible: Vec<bool>,
    rf: Matrix,
    co: Matrix,
}

impl Exec<'_> {
    fn n(&self) -> usize {
        self.events.len()
    }

    fn rel(&self, f: impl Fn(usize, usize) -> bool) -> Matrix {
        let n = self.n();
        (0..n)
            .map(|a| {
                (0..n)
                    .map(|b| self.feasible[a] && self.feasible[b] && f(a, b))
                    .collect()
            })
            .collect()
    }

    fn set(&self, f: impl Fn(usize) -> bool) -> Vec<bool> {
        (0..self.n()).map(|e| self.feasible[e] && f(e)).collect()
    }

    fn base(&self, b: Base) -> Dense {
        let ev = &self.events.events;
        let po = |a: usize, b: usize| self.events.po(a, b);
        let same_loc = |a: usize, b: usize| {
            ev[a].is_memory() && ev[b].is_memory() && ev[a].location == ev[b].location
        };
        let ext = |a: usize, b: usize| ev[a].thread != ev[b].thread;
        let ordered = |e: usize| ev[e].is_memory() || ev[e].kind == EventKind::Fence;
        let fr = self.rel(|r, w2| (0..self.n()).any(|w| self.rf[w][r] && self.co[w][w2]));
        match b {
            Base::All => Dense::Set(self.set(|_| true)),
            Base::R => Dense::Set(self.set(|e| ev[e].is_read())),
            Base::W => Dense::Set(self.set(|e| ev[e].is_write())),
            Base::F => Dense::Set(self.set(|e| ev[e].kind == EventKind::Fence)),
            Base::M => Dense::Set(self.set(|e| ev[e].is_memory())),
            Base::IW => Dense::Set(self.set(|e| ev[e].kind == EventKind::Init)),
            Base::X => Dense::Set(self.set(|e| ev[e].is_memory() && ev[e].rmw.is_some())),
            Base::Rlx => Dense::Set(self.set(|e| ordered(e) && ev[e].order == MemOrder::Relaxed)),
            Base::Acq => Dense::Set(self.set(|e| {
                ordered(e) && matches!(ev[e].order, MemOrder::Acquire | MemOrder::Consume)
            })),
            Base::Rel => Dense::Set(self.set(|e| ordered(e) && ev[e].order == MemOrder::Release)),
            Base::AcqRel => Dense::Set(self.set(|e| ordered(e) && ev[e].order == MemOrder::AcqRel)),
            Base::Sc => Dense::Set(self.set(|e| ordered(e) && ev[e].order == MemOrder::SeqCst)),
            Base::Na => {
                Dense::Set(self.set(|e| ev[e].is_memory() && ev[e].order == MemOrder::NonAtomic))
            }
            Base::A => {
                Dense::Set(self.set(|e| ev[e].is_memory() && ev[e].order != MemOrder::NonAtomic))
            }
            Base::Po => Dense::Rel(self.rel(po)),
            Base::PoLoc => Dense::Rel(self.rel(|a, b| po(a, b) && same_loc(a, b))),
            Base::Rf => Dense::Rel(self.rf.clone()),
            Base::Co => Dense::Rel(self.co.clone()),
            Base::Fr => Dense::Rel(fr),
            Base::Rfe => Dense::Rel(self.rel(|a, b| self.rf[a][b] && ext(a, b))),
            Base::Rfi => Dense::Rel(self.rel(|a, b| self.rf[a][b] && !ext(a, b))),
            Base::Coe => Dense::Rel(self.rel(|a, b| self.co[a][b] && ext(a, b))),
            Base::Coi => Dense::Rel(self.rel(|a, b| self.co[a][b] && !ext(a, b))),
            Base::Fre => Dense::Rel(self.rel(|a, b| fr[a][b] && ext(a, b))),
            Base::Fri => Dense::Rel(self.rel(|a, b| fr[a][b] && !ext(a, b))),
            Base::Loc => Dense::Rel(self.rel(same_loc)),
            Base::Int => Dense::Rel(self.rel(|a, b| !ext(a, b))),
            Base::Ext => Dense::Rel(self.rel(ext)),
            Base::Id => Dense::Rel(self.rel(|a, b| a == b)),
            Base::Rmw => Dense::Rel(self.rel(|a, b| ev[a].is_read() && ev[a].rmw == Some(b))),
            // The decoded coherence of a mutex lists each critical section's writes in lock
            // order: an unlock precedes a later lock's write half.
            Base::Lko => Dense::Rel(self.rel(|u, k| {
                ev[u].kind == EventKind::Unlock
                    && ev[k].kind == EventKind::Lock
                    && ext(u, k)
                    && ev[u].location == ev[k].location
                    && ev[k].rmw.is_some_and(|w| self.co[u][w])
            })),
        }
    }

    fn eval(&self, model: &Model, e: &TExpr) -> Dense {
        let n = self.n();
        let rel = |d: Dense| match d {
            Dense::Rel(m) => m,
            Dense::Set(_) => panic!("relation expected"),
        };
        let set = |d: Dense| match d {
            Dense::Set(s) => s,
            Dense::Rel(_) => panic!("set expected"),
        };
        let identity = || self.rel(|a, b| a == b);
        let closure = |m: &Matrix| {
            // Warshall: after round k, paths through events 0..=k are closed.
            let mut c = m.clone();
            for k in 0..n {
                let through = c[k].clone();
                for row in c.iter_mut() {
                    if row[k] {
                        for (cell, &t) in row.iter_mut().zip(&through) {
                            *cell |= t;
                        }
                    }
                }
            }
            c
        };
        match e {
            TExpr::Base(b) => self.base(*b),
            TExpr::Def(id) => self.eval(model, &model.defs[*id].1),
            TExpr::Empty(nemos::cat::Type::Set) => Dense::Set(vec![false; n]),
            TExpr::Empty(nemos::cat::Type::Rel) => Dense::Rel(vec![vec![false; n]; n]),
            TExpr::Domain(r) => {
                let m = rel(self.eval(model, r));
                Dense::Set((0..n).map(|a| m[a].iter().any(|&x| x)).collect())
            }
            TExpr::Range(r) => {
                let m = rel(self.eval(model, r));
                Dense::Set((0..n).map(|b| (0..n).any(|a| m[a][b])).collect())
            }
            TExpr::Unary(op, a) => match op {
                UnOp::Identity => {
                    let s = set(self.eval(model, a));
                    Dense::Rel(
                        (0..n)
                            .map(|i| (0..n).map(|j| i == j && s[i]).collect())
                            .collect(),
                    )
                }
                UnOp::Inverse => {
                    let m = rel(self.eval(model, a));
                    Dense::Rel((0..n).map(|i| (0..n).map(|j| m[j][i]).collect()).collect())
                }
                UnOp::Plus => Dense::Rel(closure(&rel(self.eval(model, a)))),
                UnOp::Star | UnOp::Opt => {
                    let m = rel(self.eval(model, a));
                    let base = if *op == UnOp::Star { closure(&m) } else { m };
                    let id = identity();
                    Dense::Rel(
                        (0..n)
                            .map(|i| (0..n).map(|j| base[i][j] || id[i][j]).collect())
                            .collect(),
                    )
                }
            },
            TExpr::Binary(op, a, b) => {
                let (x, y) = (self.eval(model, a), self.eval(model, b));
                match (op, x, y) {
                    (BinOp::Product, Dense::Set(s), Dense::Set(t)) => Dense::Rel(
                        (0..n)
                            .map(|i| (0..n).map(|j| s[i] && t[j]).collect())
                            .collect(),
                    ),
                    (BinOp::Seq, Dense::Rel(p), Dense::Rel(q)) => Dense::Rel(
                        (0..n)
                            .map(|i| (0..n).map(|j| (0..n).any(|k| p[i][k] && q[k][j])).collect())
                            .collect(),
                    ),
                    (op, Dense::Set(s), Dense::Set(t)) => {
                        Dense::Set((0..n).map(|i| combine(*op, s[i], t[i])).collect())
                    }
                    (op, Dense::Rel(p), Dense::Rel(q)) => Dense::Rel(
                        (0..n)
                            .map(|i| (0..n).map(|j| combine(*op, p[i][j], q[i][j])).collect())
                            .collect(),
                    ),
                    _ => panic!("ill-typed"),
                }
            }
        }
    }
}

fn combine(op: BinOp, a: bool, b: bool) -> bool {
    match op {
        BinOp::Union => a || b,
        BinOp::Inter => a && b,
        BinOp::Diff => a && !b,
        _ => panic!("not a pointwise operator"),
    }
}

#[test]
fn compiled_operators_agree_with_direct_evaluation() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("litmus");
    let mut compared = 0;
    for name in PROGRAMS {
        let text = std::fs::read_to_string(dir.join(format!("{name}.litmus"))).unwrap();
        let file = SourceFile::new(*name, text);
        let test = nemos::syntax::parse(&file).unwrap();
        let program = nemos::program::lower(&test, &file).unwrap();
        let events = unroll(&program, UnrollOptions::default()).unwrap();
        for expr in EXPRESSIONS {
            let source = SourceFile::new("e.cat", format!("let e = {expr}\n"));
            let model = nemos::cat::load(&source, "e", &mut |_| Err("none".into()))
                .unwrap_or_else(|e| panic!("{}", e.short()));
            let mut solver = VarisatSolver::new();
            let enc = Encoding::new(&mut solver, &program, &events);
            let value = encode_definition(&mut solver, &enc, &model, "e").unwrap();
            let choices: Vec<Bool> = enc
                .rf
                .iter()
                .chain(enc.co.iter())
                .map(|(_, _, l)| l)
                .filter(|l| !matches!(l, Bool::Const(_)))
                .collect();
            let blocking = Bool::Lit(solver.new_lit());
            for _ in 0..6 {
                if solve_under(&mut solver, &[blocking]).unwrap() == SolveOutcome::Unsat {
                    break;
                }
                let truth = |b: Bool| solver.value_of(b);
                let n = events.len();
                let exec = Exec {
                    events: &events,
                    feasible: enc.feasible.iter().map(|&b| truth(b)).collect(),
                    rf: (0..n)
                        .map(|a| (0..n).map(|b| truth(enc.rf.get(a, b))).collect())
                        .collect(),
                    co: (0..n)
                        .map(|a| (0..n).map(|b| truth(enc.co.get(a, b))).collect())
                        .collect(),
                };
                let expected = exec.eval(&model, &model.defs[0].1);
                match (&value, expected) {
                    (Val::Rel(r), Dense::Rel(m)) => {
                        for (a, row) in m.iter().enumerate() {
                            for (b, &cell) in row.iter().enumerate() {
                                assert_eq!(
                                    truth(r.get(a, b)),
                                    cell,
                                    "{name}: `{expr}` at ({}, {})",
                                    a + 1,
                                    b + 1
                                );
                            }
                        }
                    }
                    (Val::Set(s), Dense::Set(t)) => {
                        for e in 0..n {
                            assert_eq!(truth(s[e]), t[e], "{name}: `{expr}` at {}", e + 1);
                        }
                    }
                    _ => panic!("{expr}: types differ"),
                }
                compared += 1;
                let mut block = vec![!blocking];
                for &l in &choices {
                    block.push(if truth(l) { !l } else { l });
                }
                solver.clause(&block);
            }
        }
    }
    assert!(compared > 300, "only {compared} executions compared");
}
