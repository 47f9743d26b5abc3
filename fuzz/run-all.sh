#!/usr/bin/env bash
# Runs every fuzz target on a copy of its committed seed corpus and writes per-target
# executions and coverage to OUT (a Markdown table).
#
#   fuzz/run-all.sh [SECONDS] [OUT]      each target for SECONDS (default 3; OUT defaults to
#                                        fuzz/last-run.md, relative to the caller)
#   FUZZ_RUNS=1000000 FUZZ_HEAVY_RUNS=200000 FUZZ_JOBS=2 fuzz/run-all.sh 0 OUT
#                                        a campaign: each target until it has executed
#                                        FUZZ_RUNS inputs (FUZZ_HEAVY_RUNS for the heavy targets
#                                        below), FUZZ_JOBS targets at a time
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`); without a nightly toolchain it runs with
# RUSTC_BOOTSTRAP=1. Exits non-zero if any target crashes or falls short of its execution
# count; crash inputs stay in fuzz/artifacts/<target>/ (turn each into a named file under
# fuzz/regressions/<target>/).
set -uo pipefail
secs=${1:-3}
# OUT is relative to where the script is called from.
out=$(realpath -m "${2:-$(dirname "$0")/last-run.md}")
runs=${FUZZ_RUNS:-}
heavy_runs=${FUZZ_HEAVY_RUNS:-$runs}
jobs=${FUZZ_JOBS:-1}
# The targets that do the most work per input: an arbitrary owned value of any message built,
# encoded, parsed and compared; every request through the dispatch; record batches with
# decompression.
heavy=" structured request_frames record_batches "
cd "$(dirname "$0")"
export RUSTC_BOOTSTRAP=1
# No debug info by default: it is 60% of each instrumented binary, and a hundred of them fill a
# small disk. Crash reports still name functions. FUZZ_RUSTFLAGS='' keeps cargo-fuzz's debug
# info for a run whose crashes you want located by line.
export RUSTFLAGS="${FUZZ_RUSTFLAGS--Cdebuginfo=0}"
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --version '^0.13' --locked || cargo install cargo-fuzz
fi
# FUZZ_SANITIZER=none builds without AddressSanitizer (cargo-fuzz's default is address): the
# code under test forbids unsafe code, the build takes less time and each input runs faster;
# libFuzzer still reports panics, timeouts and the RSS limit.
cargo fuzz build -O -s "${FUZZ_SANITIZER:-address}" >/tmp/kafka-wire-fuzz-build.log 2>&1 || { tail -40 /tmp/kafka-wire-fuzz-build.log; echo "FAILED: fuzz build"; exit 1; }
work=$(mktemp -d)

# Runs one target; writes its table row to $work/$t.row.
one() {
  local t=$1 limit want rc execs cov ft result start elapsed
  mkdir -p "artifacts/$t" "$work/$t"
  [ -d "corpus/$t" ] && cp -r "corpus/$t/." "$work/$t/"
  if [ -n "$runs" ]; then
    want=$runs
    [[ $heavy == *" $t "* ]] && want=$heavy_runs
    limit="-runs=$want"
  else
    want=0
    limit="-max_total_time=$secs"
  fi
  start=$(date +%s)
  # The built binary directly: `cargo fuzz run` would check (and maybe rebuild) every time.
  "target/x86_64-unknown-linux-gnu/release/$t" "$work/$t" $limit -rss_limit_mb=2048 \
      -timeout=10 -print_final_stats=1 -artifact_prefix="artifacts/$t/" >"$work/$t.log" 2>&1
  rc=$?
  elapsed=$(( $(date +%s) - start ))
  execs=$(grep -E '^stat::number_of_executed_units' "$work/$t.log" | awk '{print $2}' | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$work/$t.log" | tail -1 | awk '{print $2}')
  ft=$(grep -oE 'ft: [0-9]+' "$work/$t.log" | tail -1 | awk '{print $2}')
  execs=${execs:-0}
  if [ $rc -ne 0 ]; then
    result="CRASH (see fuzz/artifacts/$t)"
    grep -E 'panicked|ERROR|SUMMARY' "$work/$t.log" | head -5
  elif [ "$execs" -lt "$want" ]; then
    result="SHORT ($execs of $want executions)"
  else
    result=ok
  fi
  echo "| $t | $elapsed | $execs | ${cov:-?} | ${ft:-?} | $result |" > "$work/$t.row"
  rm -rf "${work:?}/$t"
}
export -f one
export runs heavy_runs heavy secs work

targets=$(cargo fuzz list)
printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'one {}'

total=0; bad=0; n=0
{
  echo "| target | seconds | executions | coverage (cov) | features (ft) | result |"
  echo "|---|---:|---:|---:|---:|---|"
  for t in $targets; do
    n=$((n + 1))
    row=$(cat "$work/$t.row" 2>/dev/null || echo "| $t | ? | 0 | ? | ? | NOT RUN |")
    echo "$row"
    e=$(echo "$row" | awk -F'|' '{gsub(/ /, "", $4); print $4}')
    total=$((total + ${e:-0}))
    [[ $row == *"| ok |" ]] || bad=$((bad + 1))
  done
} > "$out"
echo >> "$out"
echo "fuzz: $n targets run, $total executions, $bad failed" | tee -a "$out"
rm -rf "$work"
[ "$bad" -eq 0 ]
