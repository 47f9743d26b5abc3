//! A `#![no_std]`, `#![no_main]` binary for the host that links kafka-wire with its default
//! features off, and so proves that nothing in its dependency graph links `std` or `alloc`:
//!
//! - a crate that links `std` brings std's `#[panic_handler]`: error E0152, "found duplicate lang
//!   item `panic_impl`", against the one below;
//! - a crate that links `alloc` needs a global allocator: "no global memory allocator found but
//!   one is required", since there is none here.
//!
//! Both are compile-time errors, so this needs no bare-metal target. `.ci/bare-metal.sh` builds
//! it, then shows that the check can fail: with the feature `with-std-dependency` (or
//! `with-alloc-dependency`) one more crate that uses std (or alloc) joins the graph, and the build
//! must fail with the error above. The bare-metal builds (`-Z build-std=core`) prove the same a
//! second way: there, `std` and `alloc` do not exist at all.

#![no_std]
#![no_main]

use core::hint::black_box;

use kafka_wire::frame::{parse_request_frame, Mode};

// The negative tests' extra crate, named so that it is surely linked.
#[cfg(any(feature = "with-std-dependency", feature = "with-alloc-dependency"))]
use once_cell as _;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

/// The host's prebuilt libcore is compiled with panic=unwind and refers to this symbol; with
/// panic=abort it is never called. (Bare-metal targets do not need it.)
#[no_mangle]
pub extern "C" fn rust_eh_personality() {}

/// The entry point (linked with -nostartfiles): uses the parser so that it is really linked.
#[no_mangle]
pub extern "C" fn _start() -> ! {
    let frame: &[u8] = black_box(&[0, 0, 0, 8, 0, 18, 0, 3, 0, 0, 0, 1]);
    let r = parse_request_frame(frame, Mode::Strict).map(|f| f.api_key);
    black_box(&r);
    loop {}
}
