//! The `nemos` command. Arguments, batches and printing are in `cli`; every decision about
//! a query is in the library.

mod cli;

// mimalloc in place of the C library's allocator: a small test's process spent a third of
// its instructions in glibc's malloc and free (callgrind, README.md "herd's library and the
// kernel's own files").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::main()
}
