#!/usr/bin/env bash
# Captures the ApiVersions answers of a real Apache Kafka broker of release RELEASE, from the
# Maven Central jars (org.apache.kafka:kafka_2.13:RELEASE), into OUTDIR (by default
# core/tests/data/api-versions/).
#
#   bash tests/broker/capture-api-versions.sh RELEASE [OUTDIR]
#
# Starts the single-node KRaft node of tests/broker/start.sh (process.roles=broker,controller,
# default settings otherwise: no metrics reporter, unstable API versions not enabled), sends
# ApiVersions v3 and v0 (tests/broker/api_versions.py) to its client listener (PLAINTEXT) and
# ApiVersions v3 to its controller listener (CONTROLLER), and writes the raw response frames:
#
#   RELEASE-broker-v3.bin  RELEASE-broker-v0.bin  RELEASE-broker-v5.bin  RELEASE-controller-v3.bin
#
# (a broker older than 4.x does not support v5 and answers it in version 0's shape with
# UNSUPPORTED_VERSION)
#
# For a 3.x release it then starts a ZooKeeper server (the zookeeper jar the broker depends on)
# and a ZooKeeper-mode broker (zookeeper.connect, one listener, defaults otherwise) and writes
# RELEASE-zk-broker-v3.bin and RELEASE-zk-broker-v0.bin (skipped with KWIRE_CAPTURE_ZK=0). Stops
# every process it started. Needs Java 17, Maven and python3.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
release=${1:?usage: capture-api-versions.sh RELEASE [OUTDIR]}
out=${2:-$here/../../core/tests/data/api-versions}
[[ $release =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "not a release number: $release" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do while kill -0 "$p" 2>/dev/null; do sleep 0.2; done; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "capture: Kafka $release jars (Maven)"
mvn -B -q -f "$here/pom.xml" -Dkafka.version="$release" dependency:build-classpath \
  -Dmdep.outputFile="$work/classpath.txt" >"$work/mvn.log" 2>&1 || { cat "$work/mvn.log"; exit 1; }
grep -q "kafka_2.13-$release.jar" "$work/classpath.txt" || { echo "capture: no kafka_2.13-$release.jar" >&2; exit 1; }

echo "capture: a KRaft broker and controller ($release)"
bash "$here/start.sh" "$work/kraft" "$work/classpath.txt"
pids+=("$(cat "$work/kraft/broker.pid")")
port=$(cat "$work/kraft/port") cport=$(cat "$work/kraft/controller-port")
python3 "$here/api_versions.py" "127.0.0.1:$port" 3 "$out/$release-broker-v3.bin"
python3 "$here/api_versions.py" "127.0.0.1:$port" 0 "$out/$release-broker-v0.bin"
python3 "$here/api_versions.py" "127.0.0.1:$port" 5 "$out/$release-broker-v5.bin"
python3 "$here/api_versions.py" "127.0.0.1:$cport" 3 "$out/$release-controller-v3.bin"
kill "${pids[0]}"; while kill -0 "${pids[0]}" 2>/dev/null; do sleep 0.2; done

if [[ $release == 3.* ]] && [ "${KWIRE_CAPTURE_ZK:-1}" != 0 ]; then
  echo "capture: ZooKeeper and a ZooKeeper-mode broker ($release)"
  free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
  zport=$(free_port); port=$(free_port)
  mkdir -p "$work/zk/data" "$work/zkb/logs"
  cp=$(cat "$work/classpath.txt")
  java -Xmx128m -cp "$cp" org.apache.zookeeper.server.ZooKeeperServerMain "$zport" "$work/zk/data" \
    >"$work/zk/zk.log" 2>&1 &
  pids+=($!)
  cat >"$work/zkb/server.properties" <<PROPS
broker.id=1
zookeeper.connect=127.0.0.1:$zport
listeners=PLAINTEXT://127.0.0.1:$port
log.dirs=$work/zkb/logs
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
PROPS
  java -Xmx512m -Xms128m -XX:+UseSerialGC -cp "$cp" kafka.Kafka "$work/zkb/server.properties" >"$work/zkb/broker.log" 2>&1 &
  pids+=($!)
  up=0
  for _ in $(seq 1 120); do
    if grep -qE 'KafkaServer id=[0-9]+\] started' "$work/zkb/broker.log" &&
       python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; then
      up=1; break
    fi
    sleep 0.5
  done
  [ $up = 1 ] || { tail -n 30 "$work/zkb/broker.log"; echo "capture: the ZooKeeper-mode broker did not start" >&2; exit 1; }
  python3 "$here/api_versions.py" "127.0.0.1:$port" 3 "$out/$release-zk-broker-v3.bin"
  python3 "$here/api_versions.py" "127.0.0.1:$port" 0 "$out/$release-zk-broker-v0.bin"
fi
echo "capture: done"
