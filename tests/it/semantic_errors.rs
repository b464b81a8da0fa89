//! The messages of inputs that parse but do not make sense: names, arities, memory orders,
//! the condition, unsupported constructs, and the lock/atomic-block structure.

use nemos::diagnostics::SourceFile;

/// The rendered error of the front door: of the first stage (parse, lower, unroll) that
/// fails.
fn error_of(name: &str, text: &str) -> String {
    let file = SourceFile::new(format!("{name}.litmus"), text);
    match nemos::load(&file, &Default::default()) {
        Ok(_) => panic!("{name}: expected an error"),
        Err(error) => error.render(false),
    }
}

macro_rules! semantic_error {
    ($name:ident, $text:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(error_of(stringify!($name), $text));
        }
    };
}

semantic_error!(
    unknown_identifier,
    "C t\n{}\nP0 (int* x) {\n  int r0 = r9 + 1;\n}\nexists (0:r0=1)\n"
);

semantic_error!(
    wrong_number_of_arguments,
    "C t\n{}\nP0 (atomic_int* x) {\n  atomic_store_explicit(x, 1);\n}\nexists (x=1)\n"
);

semantic_error!(
    load_with_release_order,
    "C t\n{}\nP0 (atomic_int* x) {\n  int r0 = atomic_load_explicit(x, memory_order_release);\n}\nexists (0:r0=1)\n"
);

semantic_error!(
    memory_order_used_as_value,
    "C t\n{}\nP0 (int* x) {\n  *x = memory_order_relaxed;\n}\nexists (x=1)\n"
);

semantic_error!(
    unknown_register_in_condition,
    "C t\n{}\nP0 (int* x) {\n  int r0 = *x;\n}\nexists (0:r1=1)\n"
);

semantic_error!(
    unknown_thread_in_condition,
    "C t\n{}\nP0 (int* x) {\n  int r0 = *x;\n}\nexists (3:r0=1)\n"
);

semantic_error!(
    unknown_function,
    "C t\n{}\nP0 (int* x) {\n  atomic_frobnicate(x);\n}\nexists (x=1)\n"
);

semantic_error!(
    misspelt_function_gets_a_suggestion,
    "C t\n{}\nP0 (int* x) {\n  int r0 = READ_ONC(*x);\n}\nexists (0:r0=1)\n"
);

semantic_error!(
    compare_exchange_expected_with_a_register_index,
    "C t\n{ int d[2] = {0, 0}; }\nP0 (atomic_int* x, int* d) {\n  int i = 1;\n  int r0 = atomic_compare_exchange_strong(x, &d[i], 1);\n}\nexists (0:r0=1)\n"
);

semantic_error!(
    pointer_used_as_value,
    "C t\n{}\nP0 (int* x) {\n  int r0 = x + 1;\n}\nexists (0:r0=1)\n"
);

semantic_error!(
    unlock_without_lock,
    "C t\n{}\nP0 (int* l, int* x) {\n  *x = 1;\n  unlock(l);\n}\nexists (x=1)\n"
);

semantic_error!(
    thread_ends_holding_lock,
    "C t\n{}\nP0 (int* l, int* x) {\n  lock(l);\n  *x = 1;\n}\nexists (x=1)\n"
);

semantic_error!(
    atomic_block_releases_outer_lock,
    "C t\n{}\nP0 (int* l, int* x) {\n  lock(l);\n  atomic {\n    *x = 1;\n    unlock(l);\n  }\n}\nexists (x=1)\n"
);

semantic_error!(
    lock_taken_in_atomic_block_released_after,
    "C t\n{}\nP0 (int* l, int* x) {\n  atomic {\n    lock(l);\n    *x = 1;\n  }\n  unlock(l);\n}\nexists (x=1)\n"
);

semantic_error!(
    lock_held_in_one_branch,
    "C t\n{}\nP0 (int* l, int* x) {\n  int r0 = *x;\n  if (r0) {\n    lock(l);\n  }\n  unlock(l);\n}\nexists (x=1)\n"
);

semantic_error!(
    duplicate_thread,
    "C t\n{}\nP0 (int* x) {\n  *x = 1;\n}\nP0 (int* x) {\n  *x = 2;\n}\nexists (x=1)\n"
);

semantic_error!(
    lock_with_a_register_index,
    "C t\n{ int l[2] = {0, 0}; }\nP0 (int* l) {\n  int r0 = 1;\n  lock(&l[r0]);\n  unlock(&l[r0]);\n}\nexists (0:r0=1)\n"
);

semantic_error!(
    constant_index_out_of_bounds,
    "C t\n{ int y[2] = {0, 0}; }\nP0 (int* y) {\n  y[2] = 1;\n}\nexists (y[0]=1)\n"
);

semantic_error!(
    register_index_into_a_huge_array,
    "C t\n{ int y[100000]; }\nP0 (int* y) {\n  int r0 = 1;\n  int r1 = y[r0];\n}\nexists (0:r1=0)\n"
);

semantic_error!(
    break_outside_a_loop,
    "C t\n{ x = 0; }\nP0 (int* x) {\n  int r0 = *x;\n  if (r0 == 1) break;\n}\nexists (0:r0=1)\n"
);

semantic_error!(
    thread_returns_a_value,
    "C t\n{ x = 0; }\nP0 (int* x) {\n  int r0 = *x;\n  return r0;\n}\nexists (0:r0=1)\n"
);
