//! Runs one operation of one case a given number of times, for `valgrind --tool=callgrind`.
//!
//! `ir list` prints the cases with their sizes; `ir CASE OP ITERS` checks the case, builds its
//! operations, runs OP once to warm up, then ITERS times inside `measured` (the function
//! callgrind's `--toggle-collect` counts), and prints the allocations per operation.

use std::hint::black_box;

#[inline(never)]
#[no_mangle]
pub fn kw_bench_measured(op: &mut dyn FnMut() -> u64, iters: u64) -> u64 {
    let mut acc = 0u64;
    for _ in 0..iters {
        acc = acc.wrapping_add(op());
    }
    black_box(acc)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let cases = kafka_wire_bench::cases();
    if args.len() < 2 || args[1] == "list" {
        for c in &cases {
            let ops: Vec<&str> = c.ops().iter().map(|o| o.name).collect();
            println!("{} {} {}", c.name, c.bytes.len(), ops.join(","));
        }
        return;
    }
    if args[1] == "check" {
        let mut bad = 0;
        for c in &cases {
            match c.check() {
                Ok(()) => println!(
                    "ok {} ({} bytes): same content in kafka-wire and kafka-protocol, each re-encodes it byte for byte (and krabka-protocol's two flavours, when built with it)",
                    c.name,
                    c.bytes.len()
                ),
                Err(e) => {
                    println!("FAILED {e}");
                    bad += 1;
                }
            }
        }
        std::process::exit(if bad == 0 { 0 } else { 1 });
    }
    let (name, opname) = (&args[1], &args[2]);
    let iters: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let case = cases
        .iter()
        .find(|c| &c.name == name)
        .unwrap_or_else(|| panic!("no case {name}"));
    if let Err(e) = case.check() {
        eprintln!("CHECK FAILED: {e}");
        std::process::exit(2);
    }
    let mut ops = case.ops();
    let op = ops
        .iter_mut()
        .find(|o| o.name == opname.as_str())
        .unwrap_or_else(|| panic!("no op {opname}"));
    black_box((op.op)());
    let before = kafka_wire_bench::allocations();
    kw_bench_measured(&mut op.op, iters);
    let allocs = kafka_wire_bench::allocations() - before;
    println!(
        "case={name} op={opname} bytes={} iters={iters} allocs_per_op={}",
        case.bytes.len(),
        allocs as f64 / iters as f64
    );
}
