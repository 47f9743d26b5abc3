#!/usr/bin/env bash
# kafka-wire's message features (docs/FEATURES.md), warnings denied: core/tests/features.rs
# with no API, with each group alone, and with `all` plus `alloc`. (Every combination of the
# runtime features is checked with cargo-hack in .ci/bare-metal.sh.)
# Then: the release build of `all,alloc` compiles no message's code into the codec's .rlibs
# (generated code is compiled where it is used; `outline` in core/src/codec.rs), apart from the
# messages that are always compiled (headers and control records).
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
cargo build -q --release -p kafka-wire --features all,alloc
# The messages are in kafka-wire-msgs-a and -b; kafka-wire's own .rlib holds the dispatch.
rlibs=()
for c in kafka_wire kafka_wire_rt kafka_wire_msgs_a kafka_wire_msgs_b; do
  rlibs+=("$CARGO_TARGET_DIR/release/lib$c.rlib")
done
always='request_header|response_header|control_record_type_schema|end_txn_marker|leader_change_message|snapshot_header_record|snapshot_footer_record|voters_record|k_raft_version_record'
compiled=$(for r in "${rlibs[@]}"; do nm -C "$r" 2>/dev/null || true; done | grep -E ' [TtWw] ' \
  | grep -oE '(generated|kafka_wire_msgs_[ab])::(messages|metadata|coordinator|raft|storage|streams|testing)::[a-z0-9_]+' \
  | grep -vE "::($always)\$" | sort -u || true)
if [ -n "$compiled" ]; then
  echo "the codec's .rlibs hold code of these messages (they should be compiled where used):"
  echo "$compiled"
  exit 1
fi
functions=$(for r in "${rlibs[@]}"; do nm "$r" 2>/dev/null || true; done | grep -cE ' [TtWw] ')
echo "-- the release .rlibs ($functions functions) hold no message code but the always-compiled ones"
echo "features: every group tested"
