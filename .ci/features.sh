#!/usr/bin/env bash
# kafka-wire's message features (docs/FEATURES.md), warnings denied: core/tests/features.rs
# with no API, with each group alone, and with `all` plus `alloc`. (Every combination of the
# runtime features is checked with cargo-hack in .ci/bare-metal.sh.)
# Builds into target/features, so that its flags do not disturb the other stages' builds.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target/features}
export RUSTFLAGS="-D warnings"
for g in "" producer transactions sasl consumer admin broker controller metadata-log "all,alloc"; do
  echo "-- test features: [${g}]"
  out=$(cargo test -q -p kafka-wire --no-default-features ${g:+--features "$g"} --test features 2>&1) || {
    echo "$out"
    exit 1
  }
  echo "$out" | grep -E "^test result"
done
echo "features: every group tested"
