//! Link flags for the host binary: no C start files (the binary has its own `_start`), and libc
//! only for `memcpy`/`memset`, which core's code calls and which, on a hosted target, libc rather
//! than compiler_builtins provides. Neither brings in Rust's `std` or an allocator.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-nostartfiles");
        println!("cargo:rustc-link-arg-bins=-lc");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
