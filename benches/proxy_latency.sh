#!/usr/bin/env bash
# Latency that `kwire proxy` adds: p50 and p99 per request, one request in flight, for
# ApiVersions v3, Metadata v12 and Produce v11 (one 100-byte record, acks=1), sent by
# benches/src/bin/proxy_latency.rs (kafka-wire) to a real single-node Kafka 4.4.0 broker
# (tests/broker/start.sh): directly, through `kwire proxy --quiet`, and through `kwire proxy`
# logging every frame as JSON to a file. Release builds. A benchmark, not a test: it fails only
# when something does not run.
#
#   bash benches/proxy_latency.sh [REQUESTS]     # default 5000 per kind, after 500 of warm-up
#
# Needs java, mvn (the broker jars, as .ci/broker.sh fetches them), python3 and cargo.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5000}
work=$(mktemp -d /tmp/kwire-proxy-bench.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
  done
  rm -rf "$work"
}
trap cleanup EXIT
cp_file=tests/broker/target/classpath.txt
if ! grep -qs 'kafka_2.13-4.4.0.jar' "$cp_file"; then
  mvn -B -q -Dstyle.color=never -f tests/broker/pom.xml dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
fi
cargo build -q --release -p kwire
(cd benches && cargo build -q --release --bin proxy_latency)
client=benches/target/release/proxy_latency
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

bash tests/broker/start.sh "$work/broker" "$cp_file"
pids+=("$(cat "$work/broker/broker.pid")")
broker=127.0.0.1:$(cat "$work/broker/port")

# start_proxy NAME ARGS...: starts kwire proxy in front of the broker, bootstrap port in $work/NAME.port.
start_proxy() {
  local name=$1; shift
  target/release/kwire proxy --listen "127.0.0.1:$(free_port)" --upstream "$broker" --port-file "$work/$name.port" "$@" \
    >/dev/null 2>"$work/$name.err" &
  pids+=($!)
  for _ in $(seq 1 50); do [ -s "$work/$name.port" ] && break; sleep 0.1; done
}
start_proxy quiet --quiet
start_proxy logging --log "$work/frames.jsonl"
quiet=127.0.0.1:$(cat "$work/quiet.port")
logging=127.0.0.1:$(cat "$work/logging.port")

# Warm-up (not shown): the broker's JIT, the page cache and the proxies' buffers.
for b in "$broker" "$quiet" "$logging"; do "$client" --bootstrap "$b" --label warm-up --requests "$n" >/dev/null; done

echo "| connection | request | requests | p50 µs | p99 µs | mean µs |"
echo "|---|---|---:|---:|---:|---:|"
# The three set-ups alternate, three times, so that the machine's load drifts over all of them alike.
for round in 1 2 3; do
  "$client" --bootstrap "$broker" --label "direct (round $round)" --requests "$n"
  "$client" --bootstrap "$quiet" --label "kwire proxy --quiet (round $round)" --requests "$n"
  "$client" --bootstrap "$logging" --label "kwire proxy, JSON log to a file (round $round)" --requests "$n"
done
echo
echo "frames logged: $(wc -l < "$work/frames.jsonl"); $(nproc) CPUs; $(rustc --version)"
