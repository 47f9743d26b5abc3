#!/usr/bin/env bash
# Rebuilds schemas/derived/RELEASE/errors.tsv, Kafka's error codes (code, name, exception class,
# retriable), from org.apache.kafka.common.protocol.Errors in that release's kafka-clients jar
# (Maven Central). Needs Java 17+ and Maven.
#
#   schemas/tools/errors.sh 4.4.0
#   schemas/tools/errors.sh --check 4.4.0    compare with the committed table instead
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
release=${1:?usage: errors.sh [--check] RELEASE}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for a in org.apache.kafka:kafka-clients:$release org.slf4j:slf4j-api:1.7.36; do
  mvn -q -B dependency:copy -Dartifact="$a:jar" -DoutputDirectory="$tmp" >"$tmp/mvn.log" 2>&1 \
    || { cat "$tmp/mvn.log" >&2; echo "errors: could not download $a" >&2; exit 1; }
done
{
  echo "# Kafka $release's error codes, read from org.apache.kafka.common.protocol.Errors in"
  echo "# kafka-clients-$release.jar by schemas/tools/ErrorTable.java (schemas/tools/errors.sh)."
  java -cp "$tmp/*" "$here/ErrorTable.java"
} >"$tmp/errors.tsv"
dest=$here/../derived/$release/errors.tsv
if [ $check = 1 ]; then
  diff "$tmp/errors.tsv" "$dest" && echo "errors: $dest matches Kafka $release"
  exit
fi
mkdir -p "$(dirname "$dest")"
cp "$tmp/errors.tsv" "$dest"
echo "errors: wrote $dest ($(grep -vc '^#' "$dest") lines)"
