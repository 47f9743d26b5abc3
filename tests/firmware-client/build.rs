//! Puts the memory layout on the linker's search path as memory.x and passes cortex-m-rt's
//! linker script, so that no .cargo/config.toml is needed.
use std::{env, fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    fs::copy("memory.x.in", out.join("memory.x")).expect("copy the memory layout");
    println!("cargo:rustc-link-search={}", out.display());
    if env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("none") {
        println!("cargo:rustc-link-arg-bins=-Tlink.x");
    }
    println!("cargo:rerun-if-changed=memory.x.in");
    println!("cargo:rerun-if-changed=build.rs");
}
