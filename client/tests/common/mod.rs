//! A counting allocator for the client's tests: the harness runs every call into the client
//! through [`client`], which counts what the client allocated on the test's thread (tests run
//! in parallel; each counts its own).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
    static CALLS: Cell<usize> = const { Cell::new(0) };
}

struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if ARMED.try_with(Cell::get).unwrap_or(false) {
            let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        }
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs a call into the client, counting its allocations.
pub fn client<R>(f: impl FnOnce() -> R) -> R {
    ARMED.with(|a| a.set(true));
    let r = f();
    ARMED.with(|a| a.set(false));
    CALLS.with(|c| c.set(c.get() + 1));
    r
}

/// The allocations and the calls counted so far on this thread.
pub fn client_allocations() -> (usize, usize) {
    (ALLOCS.with(Cell::get), CALLS.with(Cell::get))
}
