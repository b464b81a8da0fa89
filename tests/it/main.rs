//! The integration tests, one binary: each module was a test binary of its own, and each
//! linked the whole crate; one binary links it once.

mod common;
/// The program families of the benchmarks, shared with the tests that check what fires on them.
#[path = "../../benches/common/families.rs"]
mod families;
mod reference;

mod backends;
mod batch;
mod c11;
mod c_examples;
mod c_programs;
mod c_random;
mod c_symmetry;
mod cas_retry;
mod cas_retry_flag;
mod certify;
mod cli;
mod corpus_cli_herd;
mod corpus_rc11;
mod corpus_sc;
mod counting;
mod defects;
mod differential;
mod dot;
mod events;
mod examples;
mod exitless;
mod functions;
mod genmc_corpus;
mod genmc_other;
mod herd_format;
mod herd_library;
mod infer;
mod infer_spec;
mod infer_together;
mod instance_size;
mod json_schema;
mod litmus_expected;
mod lkmm_events;
mod lkmm_model;
mod lkmm_rcu;
mod localize;
mod localize_write;
mod macros;
mod model_cache;
mod model_errors;
mod model_semantics;
mod models;
mod parse_corpus;
mod parse_errors;
mod parse_robustness;
mod rc11_psc;
mod readme;
mod semantic_errors;
mod shard;
mod slice;
mod spec;
mod spin_effects;
mod spin_locks;
mod spin_unread;
mod thin_air;
mod xchg_spin;
