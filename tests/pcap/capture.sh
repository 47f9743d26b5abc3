#!/usr/bin/env bash
# Remakes the test capture tests/pcap/clients.pcapng: tcpdump on the loopback interface records
# real clients talking to a real single-node KRaft Apache Kafka 4.4.0 broker.
#
#   bash tests/pcap/capture.sh                 # writes tests/pcap/clients.pcapng
#   bash tests/pcap/capture.sh /tmp/x.pcapng   # somewhere else
#
# The broker is started from the Maven Central jars as tests/broker does (tests/broker/pom.xml:
# combined broker and controller, storage formatted with a random cluster id), listening on
# 127.0.0.1:9092 (controller on 9093; both must be free). While `tcpdump -i lo 'tcp port 9092'`
# runs, three clients talk to it in turn (tests/pcap/clients.py, tests/pcap/JavaClient.java):
# librdkafka through confluent-kafka (create a topic, create it again for an error, produce,
# consume in a group, commit), kafka-python (produce, fetch, metadata of a missing topic) and
# Kafka's Java client 4.4.0 (describe the cluster, list topics, produce, fetch). tcpdump writes
# pcap; editcap turns it into pcapng.
#
# Needs root (tcpdump), java 17 and mvn, python3 with venv; installs tcpdump and tshark (for
# editcap) with apt when missing, and the pinned Python clients (tests/clients/python/
# requirements.txt) into tests/clients/.venv, or uses KWIRE_VENV if set.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="$(realpath -m "${1:-$here/clients.pcapng}")"
port=9092
cport=9093

need=()
command -v tcpdump >/dev/null 2>&1 || need+=(tcpdump)
command -v editcap >/dev/null 2>&1 || need+=(tshark)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
for p in $port $cport; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "capture: port $p is in use" >&2; exit 1; fi
done

venv="${KWIRE_VENV:-$repo/tests/clients/.venv}"
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
"$venv/bin/pip" install -q --disable-pip-version-check -r "$repo/tests/clients/python/requirements.txt"

mvn -B -q -Dstyle.color=never -f "$repo/tests/broker/pom.xml" dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt >/dev/null
cp="$(cat "$repo/tests/broker/target/classpath.txt")"

work="$(mktemp -d /tmp/kwire-pcap-capture.XXXXXX)"
broker_pid=""; dump_pid=""
cleanup() {
  [ -n "$dump_pid" ] && kill "$dump_pid" 2>/dev/null || true
  [ -n "$broker_pid" ] && kill "$broker_pid" 2>/dev/null && wait "$broker_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

cat > "$work/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$work/logs
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
PROPS
# Never an id that starts with "-", which the storage tool would read as an option.
cluster_id="$(python3 -c '
import base64, uuid
while True:
    s = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
    if not s.startswith("-"):
        print(s)
        break
')"
java -Xmx256m -cp "$cp" kafka.tools.StorageTool format -t "$cluster_id" -c "$work/server.properties" >"$work/format.log" 2>&1
java -Xmx512m -Xms128m -XX:+UseSerialGC -cp "$cp" kafka.Kafka "$work/server.properties" >"$work/broker.log" 2>&1 &
broker_pid=$!
for _ in $(seq 1 120); do
  grep -q 'Kafka Server started' "$work/broker.log" && break
  kill -0 "$broker_pid" 2>/dev/null || { tail -n 30 "$work/broker.log"; exit 1; }
  sleep 1
done
grep -q 'Kafka Server started' "$work/broker.log" || { echo "capture: the broker did not start" >&2; tail -n 30 "$work/broker.log"; exit 1; }
echo "capture: broker ready on 127.0.0.1:$port"

tcpdump -i lo -U -w "$work/raw.pcap" "tcp port $port" 2>"$work/tcpdump.log" &
dump_pid=$!
for _ in $(seq 1 50); do grep -q 'listening on' "$work/tcpdump.log" && break; sleep 0.1; done

"$venv/bin/python" "$here/clients.py" librdkafka "127.0.0.1:$port"
"$venv/bin/python" "$here/clients.py" kafka-python "127.0.0.1:$port"
if ! java -Xmx256m -cp "$cp" "$here/JavaClient.java" "127.0.0.1:$port" >"$work/java.log" 2>&1; then
  tail -n 40 "$work/java.log"; exit 1
fi
grep -E '^(cluster id|topics|java read back):' "$work/java.log"

sleep 1
kill -INT "$dump_pid"; wait "$dump_pid" 2>/dev/null || true; dump_pid=""
cat "$work/tcpdump.log" >&2
editcap -F pcapng "$work/raw.pcap" "$out"
echo "capture: $(stat -c %s "$out") bytes in $out"
