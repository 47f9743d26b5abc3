//! Puts the memory layout (memory-256k.x, or memory-mps2.x for `full-dispatch`) on the linker's
//! search path as memory.x, and passes the cortex-m-rt (and, with the `defmt`
//! feature, defmt) linker scripts, so that no .cargo/config.toml is needed and the crate builds
//! the same from any directory.
use std::{env, fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    // `full-dispatch` needs more flash than the M0/M3 boards have: it links for mps2-an386.
    // (No file in this directory may be called memory.x: the linker looks in the current
    // directory, which is this one, before the search path.)
    let memory = if env::var_os("CARGO_FEATURE_FULL_DISPATCH").is_some() {
        "memory-mps2.x"
    } else {
        "memory-256k.x"
    };
    fs::copy(memory, out.join("memory.x")).expect("copy the memory layout");
    println!("cargo:rustc-link-search={}", out.display());
    let bare_metal = env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("none");
    if bare_metal {
        println!("cargo:rustc-link-arg-bins=-Tlink.x");
        if env::var_os("CARGO_FEATURE_DEFMT").is_some() {
            println!("cargo:rustc-link-arg-bins=-Tdefmt.x");
        }
    }
    println!("cargo:rerun-if-changed=memory-256k.x");
    println!("cargo:rerun-if-changed=memory-mps2.x");
    println!("cargo:rerun-if-changed=build.rs");
}
