//! The compiled operators of the model language against a direct evaluation.
//!
//! For several programs and expressions covering every operator (difference and
//! intersection with their masks, sequence, inverse, closures, identity, product,
//! domain/range, every base set and relation), the literals `encode::model` builds are read
//! in several solver models (distinct `rf`/`co` choices, without any model check, so that
//! non-SC executions are covered too) and compared pair by pair with the expression
//! evaluated by the product's evaluator of explicit executions (`witness::eval`), on the
//! same execution given as pairs and as the decoded witness. Every gate is meant to be
//! exact, so the literal of every pair must equal the relation's value, including under
//! negation.

use std::path::PathBuf;

use nemos::diagnostics::SourceFile;
use nemos::encode::cnf::{Bool, ClauseSink, Gates};
use nemos::encode::model::{encode_definition, Val};
use nemos::encode::Encoding;
use nemos::solver::{solve_under, SolveOutcome, Solver, VarisatSolver};
use nemos::witness::eval::Explicit;
use nemos::witness::Execution;

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
    // Differences by relations that surely hold their program-order or location pairs
    // (`Compiler::sure_pairs`): those pairs are dropped without asking either operand.
    "(loc \\ (po | rf)+) | ((M * M) \\ (po-loc | id)^-1)",
    "([W]; loc; [M]) \\ (po | rf | co)* \\ (int & (ext | po))",
    "((po | rf)+ ; fr) & id",
    "[F & SC]; po | po; [F]",
    "rfe | rfi",
    "(W * W) \\ co \\ co^-1 \\ id",
    "sb | mo | rb",
    "[domain(rf)] ; po ; [range(co) & W]",
    "[M \\ X] ; loc ; [_ \\ (R | W) | IW]",
    "[RLX | ACQ | REL | SC | NA | A | ACQ_REL] ; int",
    "coi | fri",
    "lko ; po | po ; lko^-1",
    "[~W] ; po ; [~ (R | F)] | (~po & loc)",
    // Definitions before `e` (a model of its own): functions, `let rec`, herd's library.
    "let f(r) = (rfe ; [M])? ; r\nlet e = f(po) | f(co)",
    "let g(a, b) = a ; [b] ; a\nlet e = g(po, W) | g(rf | co, R)",
    "let e = fencerel(F) | singlestep(co) | co0 | [LKR | LKW | UL | RMW] ; po",
    "let rec r = po | r ; rf\nlet e = r",
    "let rec r = rf | (r ; po ; r)\nlet e = r",
    "let rec s = IW | range([s] ; rf) | range([s] ; po)\nlet e = s",
    // Not monotone (the locks of `u` shrink as `m` grows), as the kernel's bell matches
    // rcu_read_lock/unlock pairs; `m` is inflationary.
    "let e = let rec ul = R \\ domain(m) and uw = W \\ range(m) and u = ul | uw \
     and upo = [u] ; po ; [u] and ltu = [ul] ; po ; [uw] \
     and m = m | (ltu \\ (upo ; upo)) in m",
    // herd's dependencies, some of them conditional (`DEPENDENCIES`).
    "addr | data | ctrl",
    "[R] ; (data | ctrl) ; [W] \\ (addr ; po)",
    "(data ; rfe)+ | ctrl ; [F]",
    // Thread creation and join (C programs, `C_PROGRAMS`), as pso.cat and coherence.cat
    // use them.
    "tc | tj",
    "[M] ; po ; [domain(tc | tj)]",
    "(po? ; (tc | tj) ; po?)+ & loc",
];

/// C programs of `tests/c` whose threads are created and joined, one join conditional (a
/// handle read from memory).
const C_PROGRAMS: &[&str] = &[
    "thread_order_chain.c",
    "join_in_branch_orders_only_when_run.c",
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

/// Dependencies of every kind, through registers merged at joins (a dependency that holds
/// on one side of a branch only), a loop and an index.
const DEPENDENCIES: &str = "C deps
{ x = 0; y = 0; int a[2] = {0, 0}; }
P0 (int* x, int* y) {
  int r1 = READ_ONCE(*x);
  int r2 = 0;
  if (r1 == 1) { r2 = r1; } else { WRITE_ONCE(*(a + (r1 & 1)), 1); }
  WRITE_ONCE(*y, r2 + 1);
  int r3 = 0;
  while (READ_ONCE(*x) == 2 && r3 < 1) { r3 = r3 + 1; smp_mb(); }
}
P1 (int* x, int* y) {
  int r1 = READ_ONCE(*y);
  if (r1 != 1) { WRITE_ONCE(*x, r1 + 1); }
  WRITE_ONCE(*x, 2);
}
exists (0:r1=1)
";

#[test]
fn compiled_operators_agree_with_direct_evaluation() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("litmus");
    let mut compared = 0;
    let mut sources: Vec<(&str, String)> = PROGRAMS
        .iter()
        .map(|name| {
            let path = dir.join(format!("{name}.litmus"));
            (*name, std::fs::read_to_string(path).unwrap())
        })
        .collect();
    sources.push(("deps", DEPENDENCIES.to_string()));
    let c_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c");
    for name in C_PROGRAMS {
        sources.push((name, std::fs::read_to_string(c_dir.join(name)).unwrap()));
    }
    let options = nemos::LoadOptions {
        preprocessor: Some(crate::c_programs::reference_preprocessor(&[])),
        ..Default::default()
    };
    for (name, text) in sources {
        let file = SourceFile::new(name, text);
        let nemos::Test { program, events } = nemos::load(&file, &options).unwrap();
        for expr in EXPRESSIONS {
            let text = if expr.starts_with("let ") {
                format!("{expr}\n")
            } else {
                format!("let e = {expr}\n")
            };
            let source = SourceFile::new("e.cat", text);
            let model = nemos::cat::load(&source, "e", &mut |_| Err("none".into()))
                .unwrap_or_else(|e| panic!("{}", e.short()));
            let mut solver = VarisatSolver::new();
            let enc = Encoding::new(&mut solver, &program, &events);
            let value = encode_definition(&mut solver, &enc, &model, "e").unwrap();
            let e = nemos::cat::TExpr::Def(
                model
                    .defs
                    .iter()
                    .rposition(|d| d.0 == "e")
                    .expect("e is defined"),
            );
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
                let pairs = |r: &nemos::encode::relation::Relation| -> Vec<(usize, usize)> {
                    r.iter()
                        .filter(|&(_, _, l)| truth(l))
                        .map(|(a, b, _)| (a, b))
                        .collect()
                };
                let feasible: Vec<bool> = enc.feasible.iter().map(|&b| truth(b)).collect();
                let decoded = Execution::decode(&enc, &|l| solver.value(l), &[]);
                let exec = Explicit::new(
                    &events,
                    &feasible,
                    &pairs(&enc.rf),
                    &pairs(&enc.co),
                    &pairs(&enc.lko),
                )
                .with_values(decoded.values.clone());
                let expected = exec
                    .evaluator(&model)
                    .eval(&e)
                    .unwrap_or_else(|e| panic!("{expr}: {e}"));
                // The product path builds the same relations from the decoded execution,
                // where a mutex's lock order is read back from its coherence list.
                let from_witness = Explicit::of_execution(&events, &enc.mutexes, &decoded);
                assert_eq!(
                    from_witness.evaluator(&model).eval(&e),
                    Ok(expected.clone()),
                    "{name}: `{expr}` on the decoded execution"
                );
                let n = events.len();
                match &value {
                    Val::Rel(r) => {
                        for a in 0..n {
                            for b in 0..n {
                                assert_eq!(
                                    truth(r.get(a, b)),
                                    exec.related(&expected, a, b),
                                    "{name}: `{expr}` at ({}, {})",
                                    a + 1,
                                    b + 1
                                );
                            }
                        }
                    }
                    Val::Set(s) => {
                        for (e, &member) in s.iter().enumerate() {
                            assert_eq!(
                                truth(member),
                                exec.contains(&expected, e),
                                "{name}: `{expr}` at {}",
                                e + 1
                            );
                        }
                    }
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
