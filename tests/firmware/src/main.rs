//! kafka-wire on bare metal.
//!
//! Run by `.ci/bare-metal.sh` under QEMU on an emulated Cortex-M3 (lm3s6965evb), Cortex-M4F
//! (mps2-an386) and Cortex-M0 (BBC micro:bit). With the default features it builds four messages
//! on the stack, encodes them into a static buffer, parses them back and checks every field,
//! transcodes AlterPartitionRequest v3 to v2, parses hostile frames and checks their typed errors,
//! then prints a summary (with the peak stack use, measured by stack painting) and exits through
//! semihosting: status 0 when every check passed, 1 otherwise (a panic exits 1 too).
//!
//! Other builds of the same source (see Cargo.toml's features): `defmt` logs the same lines with
//! defmt; `alloc` links `alloc` with a heap and also encodes into a `Vec<u8>`; `probe` and
//! `parse-path` are built only to be measured (code size per message, panic call sites).
//!
//! No `unsafe` here except one block in the `alloc` build (the heap's memory, see `heap`).
//! The stack is painted by cortex-m-rt's `paint-stack` reset code and read by `cortex-m-stack`.

#![no_std]
#![no_main]
#![deny(unsafe_code)]
// The measuring builds (probe, parse-path) leave parts of the modules unused.
#![cfg_attr(any(feature = "probe", feature = "parse-path"), allow(dead_code, unused_macros))]

#[cfg(feature = "alloc")]
extern crate alloc;

use core::cell::RefCell;

// Links cortex-m's single-core critical-section implementation.
use cortex_m as _;
use cortex_m_rt::entry;
use cortex_m_semihosting::debug;
use critical_section::Mutex;

#[cfg(feature = "defmt")]
use defmt_semihosting as _;

#[macro_use]
mod report;
#[cfg(feature = "apr")]
mod apr;
#[cfg(feature = "brr")]
mod brr;
#[cfg(feature = "dmr")]
mod dmr;
#[cfg(feature = "hostile")]
mod hostile;
#[cfg(feature = "pcr")]
mod pcr;
#[cfg(feature = "producer")]
mod producer;

use report::Checks;

/// Bytes of one encoding region of [`BUF`].
pub const REGION: usize = 512;

/// The static buffer the messages are encoded into: one region per message and a scratch
/// region for re-encodings and transcoding. In `.bss`; borrowed once, inside a critical section.
static BUF: Mutex<RefCell<[[u8; REGION]; 5]>> = Mutex::new(RefCell::new([[0; REGION]; 5]));

#[entry]
fn main() -> ! {
    #[cfg(feature = "alloc")]
    heap::init();

    let mut c = Checks::new();
    critical_section::with(|cs| {
        // `try_borrow_mut`: the size probes count what the codec links, and a panic site here
        // would link the panic handler's formatting into every probe.
        match BUF.borrow(cs).try_borrow_mut() {
            Ok(mut buf) => {
                #[allow(unused_variables)]
                let [apr_buf, brr_buf, pcr_buf, dmr_buf, scratch] = &mut *buf;
                run(&mut c, apr_buf, brr_buf, pcr_buf, dmr_buf, scratch);
            }
            Err(_) => {
                c.check(false, "the encoding buffer is free");
            }
        }
    });

    // Peak stack use since reset: the painted words that were never overwritten are free.
    let stack_size = cortex_m_stack::stack_size();
    let peak = stack_size - cortex_m_stack::stack_painted();
    say!("stack peak: {} bytes of {}", peak, stack_size);
    let ok = c.finish();
    debug::exit(if ok { debug::EXIT_SUCCESS } else { debug::EXIT_FAILURE });
    #[allow(clippy::empty_loop)]
    loop {}
}

/// The version a size probe encodes and parses at: hidden from the compiler, so that every
/// version's code is kept, or with `probe-fixed` a constant, to see what one version costs.
#[cfg(feature = "probe")]
#[inline(always)]
fn probe_version(v: i16) -> i16 {
    if cfg!(feature = "probe-fixed") {
        v
    } else {
        core::hint::black_box(v)
    }
}

/// The checks, in order. Every part is behind its feature so that the size variants can leave
/// parts out; `probe` and `parse-path` replace them with what those builds measure.
#[allow(unused_variables)]
fn run(
    c: &mut Checks,
    apr_buf: &mut [u8],
    brr_buf: &mut [u8],
    pcr_buf: &mut [u8],
    dmr_buf: &mut [u8],
    scratch: &mut [u8],
) {
    say!("kafka-wire firmware: start");
    #[cfg(not(any(feature = "probe", feature = "parse-path")))]
    {
        #[cfg(feature = "apr")]
        apr::run(c, apr_buf, scratch);
        #[cfg(feature = "brr")]
        brr::run(c, brr_buf);
        #[cfg(feature = "pcr")]
        pcr::run(c, pcr_buf);
        #[cfg(feature = "dmr")]
        dmr::run(c, dmr_buf);
        #[cfg(feature = "producer")]
        producer::run(c, scratch);
    }
    #[cfg(feature = "probe")]
    {
        #[cfg(feature = "apr")]
        apr::probe(apr_buf);
        #[cfg(feature = "brr")]
        brr::probe(brr_buf);
        #[cfg(feature = "pcr")]
        pcr::probe(pcr_buf);
        #[cfg(feature = "dmr")]
        dmr::probe(dmr_buf);
    }
    #[cfg(feature = "parse-path")]
    {
        #[cfg(feature = "apr")]
        apr::parse_path(c, apr_buf);
        #[cfg(feature = "brr")]
        brr::parse_path(c, brr_buf);
        #[cfg(feature = "pcr")]
        pcr::parse_path(c, pcr_buf);
        #[cfg(feature = "dmr")]
        dmr::parse_path(c, dmr_buf);
    }
    #[cfg(feature = "hostile")]
    hostile::run(c);
}

#[cfg(feature = "alloc")]
mod heap {
    use embedded_alloc::LlffHeap;

    #[global_allocator]
    static HEAP: LlffHeap = LlffHeap::empty();

    /// Bytes of RAM given to the heap.
    pub const SIZE: usize = 2048;

    pub fn init() {
        // SAFETY: called once, first thing in `main`, before anything allocates; the macro
        // hands HEAP a `static mut` array of SIZE bytes that nothing else can name. This is the
        // firmware's only `unsafe`: a heap needs memory that it alone owns, and `init` cannot
        // check that.
        #[allow(unsafe_code)]
        unsafe {
            embedded_alloc::init!(HEAP, SIZE);
        }
    }
}

#[cfg(not(feature = "parse-path"))]
#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    #[cfg(not(feature = "defmt"))]
    cortex_m_semihosting::hprintln!("FAILED: panic: {}", info);
    // The message's text and the location, without `core::fmt`: defmt formats on the host, so
    // the handler links no `core::fmt` (the producer logging through defmt links none at all).
    #[cfg(feature = "defmt")]
    {
        defmt::println!(
            "FAILED: panic: {=str}",
            info.message().as_str().unwrap_or("(formatted message)")
        );
        if let Some(at) = info.location() {
            defmt::println!("  at {=str}:{=u32}", at.file(), at.line());
        }
    }
    debug::exit(debug::EXIT_FAILURE);
    #[allow(clippy::empty_loop)]
    loop {}
}

/// The parse-path build counts the call sites that can reach the panic handler, so the handler
/// itself formats nothing.
#[cfg(feature = "parse-path")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    debug::exit(debug::EXIT_FAILURE);
    #[allow(clippy::empty_loop)]
    loop {}
}
