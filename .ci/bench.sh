#!/usr/bin/env bash
# Benchmark guard for CI: builds the standalone bench crate (benches/, its own workspace and
# lock file) and counts instructions under callgrind for the two target messages
# (MetadataResponse v13, AlterPartitionRequest v3), both crates side by side. Fails when the
# two implementations decode an input differently, or when an operation whose target is met
# (benches/targets.txt: case, operation, most instructions per operation allowed, a few
# percent above the recorded count) gets slower. Instruction counts repeat exactly, so one run
# of each operation is enough; the machine's noise does not matter.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
start=$(date +%s)
bash benches/callgrind.sh \
  --cases "metadata_response_v13 alter_partition_request_v3" \
  --assert benches/targets.txt \
  --out "${BENCH_TABLE:-/tmp/kafka-wire-bench-table.md}"
echo "bench: done in $(( $(date +%s) - start )) s"
