//! Zero allocation, proved with a counting global allocator: parsing every message at every
//! version, iterating every array (by re-encoding the view), encoding, and failing on truncated
//! input, allocate nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use kafka_wire::catalog;
use kafka_wire_codegen::model::{self, Inputs};
use kafka_wire_codegen::sample::{sample, Options, Rng};

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);
thread_local!(static ARMED: Cell<bool> = const { Cell::new(false) });

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if ARMED.with(|a| a.get()) {
            ALLOCS.fetch_add(1, Ordering::SeqCst);
        }
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        if ARMED.with(|a| a.get()) {
            ALLOCS.fetch_add(1, Ordering::SeqCst);
        }
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn counted<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = ALLOCS.load(Ordering::SeqCst);
    ARMED.with(|a| a.set(true));
    let r = f();
    ARMED.with(|a| a.set(false));
    (r, ALLOCS.load(Ordering::SeqCst) - before)
}

#[test]
fn the_counter_counts() {
    let (_b, n) = counted(|| Box::new([0u8; 64]));
    assert_eq!(n, 1);
}

#[test]
fn parse_iterate_and_encode_allocate_nothing() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let inputs = Inputs::repository(&root).expect("schemas/inputs.txt");
    let msgs = model::load(&inputs).expect("schemas load");
    let mut cases = Vec::new();
    for m in &msgs {
        let e = catalog::ALL
            .iter()
            .find(|e| e.group == m.group && e.info.name == m.name)
            .expect("in catalog");
        for v in m.valid.iter() {
            for seed in 0..3 {
                let bytes = sample(m, v, &mut Rng::new(seed + 1000 * u64::from(v)), Options::default());
                cases.push((e, i16::from(v), bytes));
            }
        }
    }
    let mut out = vec![0u8; 1 << 16];
    let (ok, allocs) = counted(|| {
        let mut ok = 0usize;
        for (e, v, bytes) in &cases {
            if let Ok(n) = (e.transcode)(bytes, *v, &mut out, *v) {
                ok += usize::from(out[..n] == bytes[..]);
            }
            // Errors allocate nothing either: every truncation of a non-empty message fails.
            if !bytes.is_empty() {
                ok -= usize::from((e.transcode)(&bytes[..bytes.len() - 1], *v, &mut out, *v).is_ok());
            }
        }
        ok
    });
    assert_eq!(ok, cases.len(), "every case round-trips");
    assert_eq!(
        allocs,
        0,
        "allocations during parse/iterate/encode of {} messages",
        cases.len()
    );

    // The sequential visitor, through the catalog's visitor objects: every message, and every
    // truncation's error.
    struct Count(usize);
    impl<'a> kafka_wire::Visitor<'a> for Count {
        fn i32(&mut self, _: kafka_wire::FieldId, _: i32) {
            self.0 += 1;
        }
        fn str(&mut self, _: kafka_wire::FieldId, _: Option<&'a str>) {
            self.0 += 1;
        }
        fn begin_struct(&mut self, _: kafka_wire::FieldId) {
            self.0 += 1;
        }
    }
    let ((ok, events), allocs) = counted(|| {
        let (mut ok, mut count) = (0usize, Count(0));
        for (e, v, bytes) in &cases {
            ok += usize::from((e.visit)(bytes, *v, &mut count).is_ok());
            if !bytes.is_empty() {
                ok -= usize::from((e.visit)(&bytes[..bytes.len() - 1], *v, &mut count).is_ok());
            }
        }
        (ok, count.0)
    });
    assert_eq!(ok, cases.len(), "every case visits, and no truncation does");
    assert!(events > 10_000, "{events} events");
    assert_eq!(allocs, 0, "allocations while visiting {} messages", cases.len());
}
