#!/usr/bin/env bash
# The real-broker test (tests/broker): a single-node KRaft Apache Kafka 4.4.0 broker from the
# Maven Central jars, driven through kafka-wire (tests/broker/src/main.rs, built as
# kwire-broker-check in the tests/clients crate): ApiVersions, Metadata, CreateTopics, Produce
# (record batches we build), ListOffsets and Fetch, every response decoded strictly and
# re-encoded byte for byte, the fetched records compared with those produced; the connection
# layer's blocking and async drivers; the tokio_client and embedded_io_client examples producing
# to it; then every record of the broker's __cluster_metadata log segment decoded.
#
#   bash .ci/broker.sh
#
# Installs Java 17 and Maven with apt when missing. Prints PASS:/FAILED: lines and ends with
# `conformance: N passed, M failed`; exits non-zero on any failure or missing tool.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
finish() { # passed failed
  rm -f "${mvnlog:-}"
  echo "broker.sh: $(( $(date +%s) - start ))s"
  echo "conformance: $1 passed, $2 failed"
  [ "$2" -eq 0 ] && [ "$1" -gt 0 ]
  exit $?
}

echo "== broker: tools"
if ! command -v java >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null
fi
for tool in java mvn cargo; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "FAILED: $tool is missing and could not be installed: the real-broker test cannot run"
    finish 0 1
  fi
done
java -version 2>&1 | head -n 1

echo "== broker: Kafka 4.4.0 jars (Maven)"
# Maven's output goes to a log, shown when it fails.
mvnlog=$(mktemp)
mvn_cp() {
  mvn -B -q -Dstyle.color=never -f tests/broker/pom.xml dependency:build-classpath -Dmdep.outputFile=target/classpath.txt \
    >"$mvnlog" 2>&1 || { cat "$mvnlog"; return 1; }
}
if ! { mvn_cp || { echo "Maven failed; retrying once"; sleep 5; mvn_cp; }; } || ! grep -q 'kafka_2.13-4.4.0.jar' tests/broker/target/classpath.txt; then
  echo "FAILED: could not download the Kafka 4.4.0 broker jars with Maven"
  finish 0 1
fi

echo "== broker: the client side (cargo)"
if ! (cd tests/clients && cargo build -q --bin kwire-broker-check); then
  echo "FAILED: building kwire-broker-check"
  finish 0 1
fi

echo "== broker: the client examples (cargo): tokio_client, embedded_io_client"
clients=()
build_failed=0
if cargo build -q -p kafka-wire-ext --features tokio --example tokio_client; then
  clients+=(--client "$PWD/target/debug/examples/tokio_client")
else
  echo "FAILED: building the tokio_client example"
  build_failed=1
fi
if cargo build -q -p kafka-wire --features embedded-io,std --example embedded_io_client; then
  clients+=(--client "$PWD/target/debug/examples/embedded_io_client")
else
  echo "FAILED: building the embedded_io_client example"
  build_failed=1
fi

echo "== broker: run"
out=$(mktemp)
tests/clients/target/debug/kwire-broker-check --classpath tests/broker/target/classpath.txt "${clients[@]}" | tee "$out"
rc=${PIPESTATUS[0]}
passed=$(grep -c '^PASS:' "$out")
failed=$(grep -c '^FAILED:' "$out")
rm -f "$out"
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
  echo "FAILED: kwire-broker-check exited $rc"
  failed=1
fi
finish "$passed" "$((failed + build_failed))"
