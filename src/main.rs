//! The `askd` command: serves the protocol on stdin/stdout, or runs one of the tools of
//! [`askd::cli`].

/// The allocator of every askd process: a view is built from many small allocations, which
/// mimalloc serves faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    askd::cli::main()
}
