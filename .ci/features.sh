#!/usr/bin/env bash
# kafka-wire's feature sets (docs/FEATURES.md), warnings denied:
# - every combination of the runtime features (alloc, std, arbitrary, defmt), with no API;
# - core/tests/features.rs with no API, with each group alone, and with `all` plus `alloc`.
# Builds into target/features, so that its flags do not disturb the other stages' builds.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target/features}
export RUSTFLAGS="-D warnings"
runtime=(alloc std arbitrary defmt)
n=${#runtime[@]}
for ((mask = 0; mask < (1 << n); mask++)); do
  set_=()
  for ((i = 0; i < n; i++)); do
    if (((mask >> i) & 1)); then set_+=("${runtime[$i]}"); fi
  done
  list=$(IFS=,; echo "${set_[*]:-}")
  echo "-- check: no API, runtime features [${list}]"
  cargo check -q -p kafka-wire --no-default-features ${list:+--features "$list"}
done
for g in "" producer transactions sasl consumer admin broker controller metadata-log "all,alloc"; do
  echo "-- test features: [${g}]"
  out=$(cargo test -q -p kafka-wire --no-default-features ${g:+--features "$g"} --test features 2>&1) || {
    echo "$out"
    exit 1
  }
  echo "$out" | grep -E "^test result"
done
echo "features: every combination built, every group tested"
