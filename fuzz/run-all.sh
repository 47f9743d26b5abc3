#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each on a copy of its committed seed corpus, and writes
# per-target executions and coverage to OUT (a Markdown table).
#
#   fuzz/run-all.sh [SECONDS] [OUT]      (defaults: 3 seconds, fuzz/last-run.md; OUT relative to the caller)
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`); without a nightly toolchain it runs with
# RUSTC_BOOTSTRAP=1. Exits non-zero if any target crashes; crash inputs stay in
# fuzz/artifacts/<target>/ (turn each into a named file under fuzz/regressions/<target>/).
set -uo pipefail
secs=${1:-3}
# OUT is relative to where the script is called from.
out=$(realpath -m "${2:-$(dirname "$0")/last-run.md}")
cd "$(dirname "$0")"
export RUSTC_BOOTSTRAP=1
# No debug info by default: it is 60% of each instrumented binary (58 MB -> 23 MB for
# api_produce), and 126 of them filled the CI machine's disk. Crash reports still name functions.
# FUZZ_RUSTFLAGS='' keeps cargo-fuzz's debug info for a run whose crashes you want located by line.
export RUSTFLAGS="${FUZZ_RUSTFLAGS--Cdebuginfo=0}"
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --version '^0.13' --locked || cargo install cargo-fuzz
fi
cargo fuzz build -O >/tmp/kafka-wire-fuzz-build.log 2>&1 || { tail -40 /tmp/kafka-wire-fuzz-build.log; echo "FAILED: fuzz build"; exit 1; }
work=$(mktemp -d)
total=0; crashes=0; n=0
{
  echo "| target | seconds | executions | coverage (cov) | features (ft) | result |"
  echo "|---|---:|---:|---:|---:|---|"
} > "$out"
for t in $(cargo fuzz list); do
  n=$((n + 1))
  mkdir -p "artifacts/$t"
  mkdir -p "$work/$t"
  [ -d "corpus/$t" ] && cp -r "corpus/$t/." "$work/$t/"
  log="$work/$t.log"
  # Run the built binary directly: `cargo fuzz run` would check (and maybe rebuild) every time.
  "target/x86_64-unknown-linux-gnu/release/$t" "$work/$t" -max_total_time="$secs" -rss_limit_mb=2048 \
      -timeout=10 -print_final_stats=1 -artifact_prefix="artifacts/$t/" >"$log" 2>&1
  rc=$?
  execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}')
  ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | awk '{print $2}')
  execs=${execs:-0}
  total=$((total + execs))
  if [ $rc -ne 0 ]; then
    crashes=$((crashes + 1)); result="CRASH (see fuzz/artifacts/$t)"
    grep -E 'panicked|ERROR|SUMMARY' "$log" | head -5
  else
    result=ok
  fi
  echo "| $t | $secs | $execs | ${cov:-?} | ${ft:-?} | $result |" >> "$out"
done
echo >> "$out"
echo "fuzz: $n targets run, $total executions, $crashes crashes" | tee -a "$out"
rm -rf "$work"
[ "$crashes" -eq 0 ]
