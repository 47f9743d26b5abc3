#!/usr/bin/env bash
# Rebuilds a release folder of schemas/kafka/ from Apache Kafka's jars on Maven Central.
#
#   schemas/fetch.sh 4.4.0            main schemas of Kafka 4.4.0 -> schemas/kafka/4.4.0/
#   schemas/fetch.sh --test 4.3.1     generator test schemas (kafka-clients' `test` jar)
#                                     -> schemas/kafka/4.3.1/clients-test/
#   schemas/fetch.sh --check 4.4.0    rebuild into a temporary folder and compare, byte for
#                                     byte, with what is committed (exit 1 on a difference)
#
# The schemas are resources inside the jars; they are copied unchanged, with the LICENSE and
# NOTICE at the jar root. Needs Maven (mvn) and unzip. Moving to a new Kafka release: fetch it,
# point schemas/inputs.txt at it, and regenerate (`cargo run -p kafka-wire-codegen`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
test_jar=0 check=0
while [ $# -gt 1 ]; do
  case "$1" in
    --test) test_jar=1 ;;
    --check) check=1 ;;
    *) echo "usage: $0 [--test] [--check] RELEASE" >&2; exit 2 ;;
  esac
  shift
done
[ $# -eq 1 ] || { echo "usage: $0 [--test] [--check] RELEASE" >&2; exit 2; }
release=$1
[[ $release =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "not a release number: $release" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
jars=$tmp/jars out=$tmp/out
mkdir -p "$jars" "$out"

# module  jar-folder-of-the-schemas  our-folder
if [ $test_jar = 1 ]; then
  modules=("kafka-clients:test common/message clients-test")
else
  modules=(
    "kafka-clients common/message clients"
    "kafka-metadata common/metadata metadata"
    "kafka-raft common/message raft"
    "kafka-group-coordinator common/message group-coordinator"
    "kafka-share-coordinator common/message share-coordinator"
    "kafka-transaction-coordinator common/message transaction-coordinator"
    "kafka-storage message storage"
    "kafka-streams common/message streams"
  )
fi

for m in "${modules[@]}"; do
  read -r artifact inner folder <<<"$m"
  name=${artifact%%:*} classifier=
  [[ $artifact == *:* ]] && classifier=${artifact#*:}
  coords=org.apache.kafka:$name:$release:jar${classifier:+:$classifier}
  if ! mvn -q -B dependency:copy -Dartifact="$coords" -DoutputDirectory="$jars/$name" >"$tmp/mvn.log" 2>&1; then
    # Some modules are younger than some releases (kafka-share-coordinator before 4.1): Maven
    # Central answers that it has no such artifact. Anything else is an error.
    if grep -qE "Could not find artifact|Failure to find|Unable to find artifact" "$tmp/mvn.log" && [ "$name" != kafka-clients ]; then
      echo "fetch: $coords is not published; no $folder/ for $release"
      continue
    fi
    cat "$tmp/mvn.log" >&2
    echo "fetch: could not download $coords" >&2
    exit 1
  fi
  jar=$(ls "$jars/$name"/*.jar)
  mkdir -p "$tmp/x/$name"
  unzip -q -o "$jar" "$inner/*.json" LICENSE NOTICE -d "$tmp/x/$name"
  mkdir -p "$out/$folder"
  cp "$tmp/x/$name/$inner"/*.json "$out/$folder/"
  # Every jar of a release carries the same LICENSE and NOTICE; keep the first, check the rest.
  for f in LICENSE NOTICE; do
    if [ -f "$out/$f" ]; then
      cmp -s "$out/$f" "$tmp/x/$name/$f" || { echo "fetch: $name's $f differs from the first jar's" >&2; exit 1; }
    else
      cp "$tmp/x/$name/$f" "$out/$f"
    fi
  done
  echo "fetch: $coords: $(ls "$out/$folder" | wc -l) schemas -> $folder/"
done

dest=$here/kafka/$release
if [ $check = 1 ]; then
  # A release folder may hold a main fetch and a test fetch: compare what this fetch made.
  fail=0
  for p in "$out"/*; do
    diff -r "$p" "$dest/$(basename "$p")" || fail=1
  done
  if [ $fail = 0 ]; then
    echo "fetch: schemas/kafka/$release matches Kafka $release's jars"
    exit 0
  fi
  echo "fetch: schemas/kafka/$release differs from Kafka $release's jars" >&2
  exit 1
fi
mkdir -p "$dest"
for p in "$out"/*; do
  rm -rf "${dest:?}/$(basename "$p")"
  cp -r "$p" "$dest/"
done
echo "fetch: wrote schemas/kafka/$release"
