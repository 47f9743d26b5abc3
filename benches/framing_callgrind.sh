#!/usr/bin/env bash
# Instructions per operation of kafka-wire's framing layers under callgrind: request and
# response frames, record batches, legacy message sets, `__cluster_metadata` record framing, and
# a response frame cut, paired and parsed through `kafka_wire::conn` beside its bare parse
# (`benches/callgrind.sh --conn` checks those against their target).
#
#   benches/framing_callgrind.sh [OP ...]
#
# Builds the `framing_ir` driver (release) and runs each operation (all by default) under
# `valgrind --tool=callgrind`, counting only the measured loop (after one untimed call).
# Prints "op bytes Ir/op" lines.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/target}"
(cd "$here" && cargo build -q --release --locked --bin framing_ir)
bin="$CARGO_TARGET_DIR/release/framing_ir"
ops=("$@")
[ ${#ops[@]} -gt 0 ] || mapfile -t ops < <("$bin" list | awk '{print $1}')
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
iters=20
for op in "${ops[@]}"; do
  bytes="$("$bin" list | awk -v o="$op" '$1 == o {print $2}')"
  valgrind --tool=callgrind --toggle-collect=kw_bench_measured --callgrind-out-file="$work/cg" \
    "$bin" "$op" "$iters" >/dev/null 2>&1
  total="$(awk '/^(summary|totals):/ {print $2; exit}' "$work/cg")"
  printf '%s %s %s\n' "$op" "$bytes" "$((total / iters))"
done
