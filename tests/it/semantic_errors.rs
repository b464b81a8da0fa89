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
    "C t\n{ int y[60000]; }\nP0 (int* y) {\n  int r0 = 1;\n  int r1 = y[r0];\n}\nexists (0:r1=0)\n"
);

semantic_error!(
    break_outside_a_loop,
    "C t\n{ x = 0; }\nP0 (int* x) {\n  int r0 = *x;\n  if (r0 == 1) break;\n}\nexists (0:r0=1)\n"
);

semantic_error!(
    thread_returns_a_value,
    "C t\n{ x = 0; }\nP0 (int* x) {\n  int r0 = *x;\n  return r0;\n}\nexists (0:r0=1)\n"
);

// ------------------------------------------------------------------ functions

semantic_error!(
    call_of_an_undefined_function,
    "C t\n{}\nint pop(int *p) { return *p; }\nP0 (int* x) {\n  int r0 = popp(x);\n}\nexists (0:r0=1)\n"
);

semantic_error!(
    call_with_the_wrong_number_of_arguments,
    "C t\n{}\nvoid push(int *p, int v) { *p = v; }\nP0 (int* x) {\n  push(x);\n}\nexists (x=1)\n"
);

semantic_error!(
    function_defined_twice,
    "C t\n{}\nint f(void) { return 1; }\nint f(void) { return 2; }\nP0 (int* x) {\n  *x = f();\n}\nexists (x=1)\n"
);

semantic_error!(
    function_named_like_a_library_call,
    "C t\n{}\nint atomic_load(int *p) { return *p; }\nP0 (int* x) {\n  int r0 = atomic_load(x);\n}\nexists (0:r0=1)\n"
);

semantic_error!(
    function_named_like_a_thread,
    "C t\n{}\nvoid P1(int *p) { *p = 1; }\nP0 (int* x) {\n  P1(x);\n}\nexists (x=1)\n"
);

semantic_error!(
    value_of_a_void_function_used,
    "C t\n{}\nvoid put(int *p) { *p = 1; }\nP0 (int* x) {\n  int r0 = put(x) + 1;\n}\nexists (0:r0=1)\n"
);

semantic_error!(
    value_of_a_function_that_can_end_without_return,
    "C t\n{}\nint get(int *p) {\n  int v = *p;\n  if (v) return v;\n}\nP0 (int* x) {\n  get(x);\n  int r0 = get(x);\n}\nexists (0:r0=1)\n"
);

semantic_error!(
    address_of_a_register,
    "C t\n{}\nP0 (int* x) {\n  int r0 = 0;\n  int r1 = atomic_load(&r0);\n}\nexists (0:r1=1)\n"
);

semantic_error!(
    return_with_a_value_in_a_void_function,
    "C t\n{}\nvoid put(int *p) { *p = 1; return 2; }\nP0 (int* x) {\n  put(x);\n}\nexists (x=1)\n"
);

semantic_error!(
    error_in_a_function_no_thread_calls,
    "C t\n{}\nint unused(int *p) { return *p + r9; }\nP0 (int* x) {\n  *x = 1;\n}\nexists (x=1)\n"
);

semantic_error!(
    array_cell_outside_through_a_pointer_parameter,
    "C t\n{ int a[2] = {0, 0}; }\nint third(int *p) { return p[1]; }\nP0 (int* a) {\n  int r0 = third(&a[1]);\n}\nexists (0:r0=1)\n"
);

semantic_error!(
    error_in_a_function_called_twice_is_reported_once,
    "C t\n{}\nint get(int *p) { return *p + r9; }\nP0 (int* x) {\n  int r0 = get(x) + get(x);\n}\nexists (0:r0=1)\n"
);

semantic_error!(
    dereference_of_an_integer,
    "C t\n{}\nP0 (int* x) {\n  int r0 = 5;\n  *r0 = 1;\n}\nexists (x=1)\n"
);

semantic_error!(
    dereference_of_a_null_only_pointer_in_a_function,
    "C t\n{}\nvoid put(int *p) { *p = 1; }\nP0 (int* x) {\n  int *q = 0;\n  put(q);\n  put(q);\n}\nexists (x=1)\n"
);

semantic_error!(
    address_of_an_unknown_location_in_the_condition,
    "C t\n{ p = x; }\nP0 (int** p) {\n  int *q = *p;\n}\nexists (0:q=w)\n"
);

const NODE: &str = "{ struct node { int val; struct node *next; }; struct node pool[2]; }\n";

semantic_error!(
    struct_field_unknown,
    &format!("C t\n{NODE}P0 (struct node *pool) {{\n  struct node *p = pool;\n  int r0 = p->nxt;\n}}\nexists (0:r0=1)\n")
);

semantic_error!(
    struct_arrow_through_an_undeclared_register,
    &format!("C t\n{NODE}P0 (struct node *pool) {{\n  r1 = pool;\n  int r0 = r1->val;\n}}\nexists (0:r0=1)\n")
);

semantic_error!(
    struct_value_in_a_register,
    &format!(
        "C t\n{NODE}P0 (struct node *pool) {{\n  struct node n;\n}}\nexists (pool[0].val=1)\n"
    )
);

semantic_error!(
    struct_used_whole_as_a_value,
    &format!("C t\n{NODE}P0 (struct node *pool) {{\n  int r0 = pool[1];\n}}\nexists (0:r0=1)\n")
);

semantic_error!(
    struct_that_contains_itself,
    "C t\n{ struct loop { int x; struct loop inner; }; struct loop l; }\nP0 (int *x) {\n  *x = 1;\n}\nexists (x=1)\n"
);

semantic_error!(
    struct_field_unknown_in_the_condition,
    &format!(
        "C t\n{NODE}P0 (struct node *pool) {{\n  pool[0].val = 1;\n}}\nexists (pool[0].value=1)\n"
    )
);

semantic_error!(
    struct_dot_on_a_pointer_register,
    &format!("C t\n{NODE}P0 (struct node *pool) {{\n  struct node *p = pool;\n  int r0 = p.val;\n}}\nexists (0:r0=1)\n")
);

semantic_error!(
    struct_field_of_a_plain_location_in_the_init_block,
    "C t\n{ x = 0; y.f = 1; }\nP0 (int *x) {\n  *x = 1;\n}\nexists (x=1)\n"
);

semantic_error!(
    array_cell_indexed_twice_in_the_condition,
    "C t\n{ int d[2]; }\nP0 (int *d) {\n  d[1] = 1;\n}\nexists (d[1][0]=1)\n"
);

const SPEC_HEAD: &str =
    "C t\n{ x = 0; }\nvoid set(int *x, int v) { *x = v; }\nint get(int *x) { return *x; }\n";

semantic_error!(
    spec_method_with_other_parameters,
    &format!("{SPEC_HEAD}spec {{ int val = 0; void set(int v) {{ val = v; }} }}\nP0 (int *x) {{ set(x, 1); }}\n")
);

semantic_error!(
    spec_method_without_its_value,
    &format!("{SPEC_HEAD}spec {{ int val = 0; void get(int *x) {{ val = 0; }} }}\nP0 (int *x) {{ int r = get(x); }}\n")
);

semantic_error!(
    spec_with_a_loop,
    &format!("{SPEC_HEAD}spec {{ int val = 0; void set(int *x, int v) {{ while (val < v) val = val + 1; }} }}\nP0 (int *x) {{ set(x, 1); }}\n")
);

semantic_error!(
    spec_naming_no_function_of_the_test,
    &format!("{SPEC_HEAD}spec {{ int val = 0; void put(int *x, int v) {{ val = v; }} }}\nP0 (int *x) {{ set(x, 1); }}\n")
);

semantic_error!(
    spec_local_shadowing_its_state,
    &format!("{SPEC_HEAD}spec {{ int val = 0; int get(int *x) {{ int val = 1; return val; }} }}\nP0 (int *x) {{ int r = get(x); }}\n")
);

semantic_error!(
    two_spec_blocks,
    &format!("{SPEC_HEAD}spec {{ int val = 0; int get(int *x) {{ return val; }} }}\nspec {{ int w = 0; }}\nP0 (int *x) {{ int r = get(x); }}\n")
);

semantic_error!(
    spec_with_a_read_modify_write,
    &format!("{SPEC_HEAD}spec {{ int val = 0; void set(int *x, int v) {{ atomic_fetch_add(&val, v); }} }}\nP0 (int *x) {{ set(x, 1); }}\n")
);

// Issue 38, item 4: `spec` passed silently ("linearizable in every execution") when a
// thread called a function the spec does not define.
semantic_error!(
    spec_missing_a_method_a_thread_calls,
    &format!("{SPEC_HEAD}spec {{ int val = 0; int get(int *x) {{ return val; }} }}\nP0 (int *x) {{ set(x, 1); }}\nP1 (int *x) {{ int r = get(x); }}\n")
);

const SPEC_METHODS: &str =
    "spec { int val = 0; void set(int *x, int v) { val = v; } int get(int *x) { return val; }";

semantic_error!(
    sync_rule_naming_no_method,
    &format!("{SPEC_HEAD}{SPEC_METHODS} happens_before put(_, v) -> r = get(_) if (r == v); }}\nP0 (int *x) {{ set(x, 1); }}\n")
);

semantic_error!(
    sync_rule_with_too_few_names,
    &format!("{SPEC_HEAD}{SPEC_METHODS} happens_before set(v) -> r = get(_) if (r == v); }}\nP0 (int *x) {{ set(x, 1); }}\n")
);

semantic_error!(
    sync_rule_binding_a_void_value,
    &format!("{SPEC_HEAD}{SPEC_METHODS} happens_before w = set(_, v) -> get(_); }}\nP0 (int *x) {{ set(x, 1); }}\n")
);

semantic_error!(
    sync_rule_binding_a_name_twice,
    &format!("{SPEC_HEAD}{SPEC_METHODS} happens_before set(_, v) -> v = get(_); }}\nP0 (int *x) {{ set(x, 1); }}\n")
);

semantic_error!(
    sync_rule_condition_reading_the_state,
    &format!("{SPEC_HEAD}{SPEC_METHODS} happens_before set(_, v) -> r = get(_) if (r == val); }}\nP0 (int *x) {{ set(x, 1); }}\n")
);

semantic_error!(
    ordering_point_label_not_constant,
    "C t\n{ x = 0; }\nint get(int *x) { int v = *x; potential_ordering_point(v); return v; }\nP0 (int *x) { int r = get(x); }\n"
);
