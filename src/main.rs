//! The `nemos` command. Arguments, batches and printing are in `cli`; every decision about
//! a query is in the library.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
