#!/usr/bin/env bash
# kafka-wire-client against a real single-node KRaft Apache Kafka 4.4.0 broker
# (tests/broker/start.sh), through `kwire produce` and `kwire consume`: for acks all (idempotent),
# 1 and 0, records produced by our client are read back by Kafka's own Java consumer and compared
# (keys, values, headers, partition by Kafka's Java partitioner, order per partition); records
# Kafka's Java producer writes with each codec, and in committed and aborted transactions, are
# read by our consumer and compared with what Kafka's Java consumer reads; then 100,000 records
# with acks=all while the broker is killed and started again, read back exactly once, in order;
# produce and consume over SASL PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512;
# and on a 3-node cluster (tests/broker/cluster.sh), 50,000 records with acks=all while the node
# leading a partition is killed, read back exactly once, in order, by Kafka's consumer and ours
# (tests/client/check.py).
#
#   bash .ci/client.sh
#
# Needs the broker's class path file (tests/broker/target/classpath.txt, written by
# .ci/broker.sh) and builds kwire when target/debug/kwire is missing. Prints PASS:/FAILED: lines
# and ends with `conformance: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
cp_file=tests/broker/target/classpath.txt
[ -f "$cp_file" ] || { echo "FAILED: $cp_file is missing (run .ci/broker.sh first)"; echo "conformance: 0 passed, 1 failed"; exit 1; }
[ -x target/debug/kwire ] || cargo build -q -p kwire || { echo "FAILED: building kwire"; echo "conformance: 0 passed, 1 failed"; exit 1; }
work=$(mktemp -d)
stop() { kill "$(cat "$work/broker.pid" 2>/dev/null)" 2>/dev/null; sleep 1; rm -rf "$work"; }
if ! bash tests/broker/start.sh --sasl "$work" "$cp_file"; then
  echo "FAILED: the broker did not start"; echo "conformance: 0 passed, 1 failed"; rm -rf "$work"; exit 1
fi
python3 tests/client/check.py target/debug/kwire "$cp_file" "127.0.0.1:$(cat "$work/port")" 5000 "$work"
rc=$?
stop
# A leader change: a 3-node cluster, one of whose partition leaders is killed during a produce.
cluster=$(mktemp -d)
if bash tests/broker/cluster.sh "$cluster" "$cp_file" 3; then
  python3 tests/client/check.py target/debug/kwire "$cp_file" --cluster "$cluster" 50000 || rc=1
else
  echo "FAILED: the 3-node cluster did not start"; echo "conformance: 0 passed, 1 failed"; rc=1
fi
for pid in "$cluster"/node*/broker.pid; do kill "$(cat "$pid")" 2>/dev/null; done
sleep 1; rm -rf "$cluster"
echo "client.sh: $(( $(date +%s) - start ))s"
exit $rc
