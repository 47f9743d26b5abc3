#!/usr/bin/env bash
# Writes core/rt/tests/vectors/primitives.tsv, the wire vectors that the runtime's unit tests
# (core/rt/src/*.rs) check against: Kafka 4.4.0's own classes write and read every value
# (tests/java/harness/src/main/java/kwire/conformance/Primitives.java).
#
#   bash tests/java/vectors.sh           # regenerate the file
#   bash tests/java/vectors.sh --check   # fail if the committed file differs from Kafka's output
#
# Builds the Maven harness as .ci/java-conformance.sh does (a no-op when it is built already).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=core/rt/tests/vectors/primitives.tsv

check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

mvn -B -q -Dstyle.color=never -f tests/java/pom.xml package dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt
cp_file=tests/java/kafka-4.4.0/target/classpath.txt
jar=tests/java/harness/target/kwire-conformance-harness.jar
test -s "$cp_file" || { echo "vectors: no classpath for Kafka 4.4.0 ($cp_file)" >&2; exit 1; }
test -s "$jar" || { echo "vectors: no harness jar ($jar)" >&2; exit 1; }

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
java -cp "$jar:$(cat "$cp_file")" kwire.conformance.Primitives >"$tmp"
test -s "$tmp" || { echo "vectors: Primitives wrote nothing" >&2; exit 1; }

if [ "$check" = 1 ]; then
  if ! diff -u "$OUT" "$tmp"; then
    echo "vectors: $OUT differs from what Kafka writes; run bash tests/java/vectors.sh" >&2
    exit 1
  fi
  echo "vectors: $OUT matches Kafka ($(grep -vc '^#' "$OUT") vectors)"
else
  mkdir -p "$(dirname "$OUT")"
  mv "$tmp" "$OUT"
  trap - EXIT
  echo "vectors: wrote $OUT ($(grep -vc '^#' "$OUT") vectors)"
fi
