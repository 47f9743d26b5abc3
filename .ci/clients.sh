#!/usr/bin/env bash
# Real clients against the kafka-wire stub server (tests/clients): captures afresh the request
# frames that librdkafka (confluent-kafka), kafka-python, kafkajs and Kafka's Java client (4.1.1
# and 4.4.0) send while administering, producing and consuming (tests/clients/capture.sh, pinned
# versions), then decodes every fresh frame with alloc-ext/tests/client_frames.rs (strict unless
# the manifest says lenient, and re-encoded byte for byte). The committed vectors
# (tests/clients/frames) are checked by `cargo test --workspace`. Then a real client against
# the tokio server codec: `kcat -L` (librdkafka) lists the metadata of the tokio_server_stub
# example, which must name the stub as its broker and the topic asked for.
#
#   bash .ci/clients.sh
#
# Installs what is missing (python3 and venv, node and npm, Java 17, Maven and kcat, with apt; the
# pinned clients with pip, npm and mvn). Prints PASS:/FAILED: lines and ends with
# `conformance: N passed, M failed`; exits non-zero on any failure or missing tool.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
finish() { # passed failed
  echo "clients.sh: $(( $(date +%s) - start ))s"
  echo "conformance: $1 passed, $2 failed"
  [ "$2" -eq 0 ] && [ "$1" -gt 0 ]
  exit $?
}

echo "== clients: tools"
need=()
command -v python3 >/dev/null 2>&1 && python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3 python3-venv python3-pip)
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
command -v java >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || need+=(maven)
command -v kcat >/dev/null 2>&1 || need+=(kcat)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing with apt: ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
for tool in python3 node npm java mvn cargo; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "FAILED: $tool is missing and could not be installed: the client capture cannot run"
    finish 0 1
  fi
done
echo "python $(python3 --version 2>&1 | cut -d' ' -f2), node $(node --version), $(java -version 2>&1 | head -n 1)"

frames=$(mktemp -d /tmp/kwire-client-frames.XXXXXX)
log=$(mktemp)
echo "== clients: capture (tests/clients/capture.sh $frames)"
bash tests/clients/capture.sh "$frames" 2>&1 | tee "$log"

echo "== clients: decode the fresh frames (alloc-ext/tests/client_frames.rs)"
KWIRE_CLIENT_FRAMES="$frames" cargo test -q -p kafka-wire-ext --test client_frames -- --nocapture --exact \
  every_captured_client_frame_decodes_and_reencodes >"$log.test" 2>&1
rc=$?
# The per-frame lines and the summary; cargo's own `test result:` line is left out so that CI
# counts these frames once, here.
grep -E '^(PASS|FAILED|KNOWN FAILURE):|^client frames:|panicked|error' "$log.test" | tee -a "$log"
if [ "$rc" -ne 0 ] && ! grep -q '^FAILED:' "$log.test"; then
  echo "FAILED: the client_frames test exited $rc:"; tail -n 30 "$log.test"
  echo "FAILED: client_frames" >> "$log"
fi
echo "== clients: kcat -L against the tokio server stub (alloc-ext/examples/tokio_server_stub.rs)"
# The stub prints `listening on HOST:PORT` first and, with --once, exits when kcat's first
# connection closes.
stub_check() {
  command -v kcat >/dev/null 2>&1 || { echo "FAILED: kcat is missing and could not be installed"; return; }
  cargo build -q -p kafka-wire-ext --features tokio --example tokio_server_stub \
    || { echo "FAILED: building the tokio_server_stub example"; return; }
  local stublog addr="" stub out topic=kwire-stub-topic
  stublog=$(mktemp)
  "${CARGO_TARGET_DIR:-target}/debug/examples/tokio_server_stub" --once >"$stublog" 2>&1 &
  stub=$!
  for _ in $(seq 100); do
    addr=$(sed -n '1s/^listening on //p' "$stublog")
    [ -n "$addr" ] && break
    sleep 0.1
  done
  if [ -z "$addr" ]; then
    echo "FAILED: tokio_server_stub printed no address:"; cat "$stublog"
    kill "$stub" 2>/dev/null; rm -f "$stublog"; return
  fi
  out=$(timeout 60 kcat -L -b "$addr" -t "$topic" 2>&1)
  echo "$out"
  for _ in $(seq 100); do kill -0 "$stub" 2>/dev/null || break; sleep 0.1; done
  kill "$stub" 2>/dev/null && echo "(the stub had not exited after kcat; stopped)"
  wait "$stub" 2>/dev/null
  sed 's/^/stub: /' "$stublog"
  if grep -q "^  broker 1 at $addr (controller)\$" <<<"$out" \
    && grep -q "^  topic \"$topic\" with 1 partitions:\$" <<<"$out"; then
    echo "PASS: kcat -L against tokio_server_stub: broker 1 at $addr, topic $topic with 1 partition"
  else
    echo "FAILED: kcat -L against tokio_server_stub did not name broker 1 at $addr and topic $topic"
  fi
  rm -f "$stublog"
}
stub_check 2>&1 | tee -a "$log"

passed=$(grep -c '^PASS:' "$log")
failed=$(grep -c '^FAILED:' "$log")
rm -rf "$frames" "$log" "$log.test"
finish "$passed" "$failed"
