#!/usr/bin/env bash
# Rebuilds schemas/derived/releases.tsv: for each Apache Kafka release from 3.0.0 to 4.4.x whose
# kafka-clients jar Maven Central serves, the API version ranges its nodes advertise in their
# ApiVersions answers (KRaft broker, KRaft controller, and ZooKeeper-mode broker for 3.x),
# computed by that release's own classes (schemas/tools/AdvertisedApis.java). Needs Java 17+ and
# Maven.
#
#   schemas/tools/releases.sh                       every release from 3.0.0 to 4.4.x that is served
#   schemas/tools/releases.sh 4.4.0 ...             add or refresh these releases
#   schemas/tools/releases.sh --check 3.9.1 4.4.0   recompute these releases and compare them with
#                                                   the committed rows (exit 1 on a difference)
#
# Without releases, the releases are those Maven Central's metadata for kafka-clients lists from
# 3.0.0 to 4.4.x (read with curl); the jars come with one Maven run.
# The KRaft broker rows of 3.0.x to 3.2.x are those releases' real brokers' answers
# (core/tests/data/api-versions/RELEASE-broker-v3.bin), whose brokers compose their answers in
# their Scala core; every other row is computed, and was checked against real brokers' answers
# (core/tests/data/api-versions/README.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
table=$here/../derived/releases.tsv
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
[ $check = 0 ] || [ $# -gt 0 ] || { echo "usage: releases.sh --check RELEASE..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The releases: those named, or every 3.0.0-4.4.x release of kafka-clients that Maven Central's
# metadata lists.
releases=()
if [ $# -gt 0 ]; then
  for r in "$@"; do
    [[ $r =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "not a release number: $r" >&2; exit 2; }
    releases+=("$r")
  done
else
  meta=https://repo.maven.apache.org/maven2/org/apache/kafka/kafka-clients/maven-metadata.xml
  mapfile -t releases < <(curl -fsS "$meta" | grep -oE '<version>(3\.[0-9]|4\.[0-4])\.[0-9]+</version>' |
    sed 's/<[^>]*>//g' | sort -uV)
  [ ${#releases[@]} -gt 0 ] || { echo "releases: could not read $meta" >&2; exit 1; }
fi

# Every release's kafka-clients jar (and slf4j-api, which it needs) in one Maven run:
# $tmp/RELEASE/.
{
  echo '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
  echo '<groupId>kwire.releases</groupId><artifactId>releases</artifactId><version>0</version><packaging>pom</packaging>'
  echo '<build><plugins><plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-dependency-plugin</artifactId>'
  echo '<version>3.7.1</version><executions><execution><id>jars</id><phase>validate</phase><goals><goal>copy</goal></goals>'
  echo '<configuration><artifactItems>'
  for r in "${releases[@]}"; do
    for a in "org.apache.kafka kafka-clients $r" "org.slf4j slf4j-api 1.7.36"; do
      read -r g n v <<<"$a"
      echo "<artifactItem><groupId>$g</groupId><artifactId>$n</artifactId><version>$v</version><outputDirectory>$tmp/$r</outputDirectory></artifactItem>"
    done
  done
  echo '</artifactItems></configuration></execution></executions></plugin></plugins></build></project>'
} >"$tmp/pom.xml"
mvn -q -B -f "$tmp/pom.xml" validate >"$tmp/mvn.log" 2>&1 \
  || { cat "$tmp/mvn.log" >&2; echo "releases: could not download the kafka-clients jars" >&2; exit 1; }
echo "releases: ${releases[*]}"
java -cp "$tmp" "$here/AdvertisedApis.java" "$tmp" "$here/../../core/tests/data/api-versions" "${releases[@]}" >"$tmp/rows.tsv" 2>"$tmp/java.log" \
  || { cat "$tmp/java.log" >&2; exit 1; }

if [ $check = 1 ]; then
  pattern=$(printf '%s\t|' "${releases[@]}" | sed 's/\./\\./g; s/|$//')
  if diff <(grep -E "^($pattern)" "$table") "$tmp/rows.tsv"; then
    echo "releases: the rows of ${releases[*]} in $table match Kafka's classes"
    exit 0
  fi
  echo "releases: $table differs from what Kafka's classes advertise" >&2
  exit 1
fi

# Merge: the new releases' rows replace theirs; the other releases' rows are kept.
{
  cat <<'HEAD'
# What each Apache Kafka release's nodes advertise in their ApiVersions answers, computed by the
# release's own classes (ApiVersionsResponse, ApiKeys in its kafka-clients jar) by
# schemas/tools/AdvertisedApis.java; rebuilt with schemas/tools/releases.sh. node: zk-broker (a
# ZooKeeper-mode broker, 3.x), broker (a KRaft broker's client listener), controller (a KRaft
# controller's listener). min-max: the range advertised by default; unstable_max: the highest
# version with unstable.api.versions.enable=true; when: always, telemetry (only with a client
# telemetry reporter configured) or unstable (only with unstable.api.versions.enable=true).
release	node	api_key	name	min	max	unstable_max	when
HEAD
  {
    if [ -f "$table" ]; then
      grep -v '^#' "$table" | grep -v '^release	' | while IFS= read -r line; do
        r=${line%%	*}
        [[ " ${releases[*]} " == *" $r "* ]] || printf '%s\n' "$line"
      done
    fi
    cat "$tmp/rows.tsv"
  } | sort -t '	' -k1,1V -s
} >"$tmp/releases.tsv"
cp "$tmp/releases.tsv" "$table"
echo "releases: wrote $table ($(cut -f1 "$table" | grep -c '^[0-9]') rows, ${#releases[@]} releases computed)"
