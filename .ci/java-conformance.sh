#!/usr/bin/env bash
# Differential conformance against Kafka's own generated message classes (Kafka 4.4.0, and 3.9.1
# for the versions only it has): tests/java (Maven: the jars and a JSON-lines harness over them)
# and tests/conformance (a standalone Rust crate that drives it). See tests/conformance/RESULTS.md.
#
#   bash .ci/java-conformance.sh                          # CI: 10 values per case
#   CONFORMANCE_VALUES=100 bash .ci/java-conformance.sh   # the full count
#
# Exits non-zero when a disagreement appears whose kind is not in
# tests/conformance/known-differences.txt. Ends with `conformance: N passed, M failed` (cases).
set -euo pipefail
cd "$(dirname "$0")/.."
VALUES="${CONFORMANCE_VALUES:-10}"
REPORT="${CONFORMANCE_REPORT:-tests/conformance/target/report.md}"
start=$(date +%s)

echo "== java-conformance: tools"
if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null
fi
java -version 2>&1 | head -n 1 || true
mvn -v 2>/dev/null | head -n 1 || true

echo "== java-conformance: Kafka jars and the Java harness (Maven)"
mvn_build() {
  mvn -B -q -Dstyle.color=never -f tests/java/pom.xml package dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
}
# One retry: a fresh machine downloads every jar from Maven Central.
mvn_build || { echo "Maven failed; retrying once"; sleep 5; mvn_build; }
for r in 4.4.0 3.9.1; do
  test -s "tests/java/kafka-$r/target/classpath.txt" || { echo "FAILED: no classpath for Kafka $r"; exit 1; }
done

echo "== java-conformance: the Rust harness"
cargo build -q --manifest-path tests/conformance/Cargo.toml

echo "== java-conformance: $VALUES values per case"
set +e
tests/conformance/target/debug/kafka-wire-conformance --values "$VALUES" --report "$REPORT"
rc=$?
set -e
echo "java-conformance: $(( $(date +%s) - start ))s in all; report: $REPORT"
exit $rc
