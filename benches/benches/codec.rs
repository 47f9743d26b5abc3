//! Criterion: every case and operation of `kafka_wire_bench::cases()`, kafka-wire and
//! kafka-protocol side by side on the same bytes, with the floors (memcpy, read every byte).
//!
//! Before anything is timed, each case is checked (same content in both implementations, both
//! re-encode it byte for byte), and the allocations of one call of each operation are counted
//! with the counting global allocator and printed next to the case.
//!
//! `cargo bench` in `benches/`; `cargo bench -- metadata` for one case.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

fn all(c: &mut Criterion) {
    for case in kafka_wire_bench::cases() {
        if let Err(e) = case.check() {
            panic!("{e}");
        }
        let mut ops = case.ops();
        let mut summary = Vec::new();
        for op in ops.iter_mut() {
            black_box((op.op)());
            let before = kafka_wire_bench::allocations();
            black_box((op.op)());
            summary.push(format!("{}={}", op.name, kafka_wire_bench::allocations() - before));
        }
        println!(
            "{} ({} bytes) allocations per operation: {}",
            case.name,
            case.bytes.len(),
            summary.join(" ")
        );
        let mut g = c.benchmark_group(case.name.clone());
        g.throughput(Throughput::Bytes(case.bytes.len() as u64));
        for op in ops.iter_mut() {
            g.bench_function(op.name, |b| b.iter(|| (op.op)()));
        }
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1))
        .sample_size(20);
    targets = all
}
criterion_main!(benches);
