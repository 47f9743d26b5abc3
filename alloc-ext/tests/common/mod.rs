//! A counting global allocator for the tests that pin allocations: counts and bytes, per thread
//! (tests run in parallel, and only the measured thread's work is counted).

#![allow(dead_code)] // each test binary uses part of it

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

pub struct Counting;

thread_local!(static ARMED: Cell<bool> = const { Cell::new(false) });
thread_local!(static ALLOCS: Cell<usize> = const { Cell::new(0) });
thread_local!(static BYTES: Cell<usize> = const { Cell::new(0) });

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if ARMED.try_with(|a| a.get()).unwrap_or(false) {
            let _ = ALLOCS.try_with(|n| n.set(n.get() + 1));
            let _ = BYTES.try_with(|n| n.set(n.get() + l.size()));
        }
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// What `f` allocated on this thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Used {
    /// Allocations.
    pub allocs: usize,
    /// Bytes asked for.
    pub bytes: usize,
}

/// Runs `f`, counting the allocations it makes on this thread.
pub fn counted<R>(f: impl FnOnce() -> R) -> (R, Used) {
    let (a0, b0) = (ALLOCS.with(Cell::get), BYTES.with(Cell::get));
    ARMED.with(|a| a.set(true));
    let r = f();
    ARMED.with(|a| a.set(false));
    (
        r,
        Used {
            allocs: ALLOCS.with(Cell::get) - a0,
            bytes: BYTES.with(Cell::get) - b0,
        },
    )
}
