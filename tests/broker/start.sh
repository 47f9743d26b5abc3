#!/usr/bin/env bash
# Starts a single-node KRaft Apache Kafka broker from the Maven Central jars in the background
# (the same configuration as tests/broker/src/main.rs) and waits until it serves.
#
#   bash tests/broker/start.sh WORKDIR CLASSPATH_FILE
#   bash tests/broker/start.sh --restart WORKDIR CLASSPATH_FILE
#                   starts the broker of WORKDIR again (after it was stopped), on its ports,
#                   with its logs
#   bash tests/broker/start.sh --sasl WORKDIR CLASSPATH_FILE
#                   adds a SASL_PLAINTEXT listener (WORKDIR/sasl-port) with PLAIN,
#                   SCRAM-SHA-256 and SCRAM-SHA-512, user "alice", password "alice-secret"
#
# CLASSPATH_FILE is what `mvn -f tests/broker/pom.xml dependency:build-classpath` writes
# (.ci/broker.sh does). Writes WORKDIR/server.properties, WORKDIR/logs, WORKDIR/broker.log,
# WORKDIR/broker.pid (kill it to stop the broker), WORKDIR/port (its PLAINTEXT port on
# 127.0.0.1) and WORKDIR/controller-port (its CONTROLLER listener's port). Exits non-zero, with the log's tail, when the broker does not start in 60 s.
set -uo pipefail
restart=0
sasl=0
[ "${1:-}" = --restart ] && { restart=1; shift; }
[ "${1:-}" = --sasl ] && { sasl=1; shift; }
work=$1
cp=$(cat "$2")
mkdir -p "$work"
if [ "$restart" = 1 ]; then
  port=$(cat "$work/port"); cport=$(cat "$work/controller-port")
  mv "$work/broker.log" "$work/broker.log.1"
else
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port); cport=$(free_port)
while [ "$cport" = "$port" ]; do cport=$(free_port); done
listeners="PLAINTEXT://127.0.0.1:$port"
scram=()
if [ "$sasl" = 1 ]; then
  sport=$(free_port)
  while [ "$sport" = "$port" ] || [ "$sport" = "$cport" ]; do sport=$(free_port); done
  listeners="$listeners,SASL_PLAINTEXT://127.0.0.1:$sport"
  echo "$sport" >"$work/sasl-port"
  scram=(--add-scram 'SCRAM-SHA-256=[name=alice,password=alice-secret]'
         --add-scram 'SCRAM-SHA-512=[name=alice,password=alice-secret]')
fi
cat >"$work/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=$listeners,CONTROLLER://127.0.0.1:$cport
advertised.listeners=$listeners
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$work/logs
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
PROPS
if [ "$sasl" = 1 ]; then
  cat >>"$work/server.properties" <<'PROPS'
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";
listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
PROPS
fi
# A random cluster id in Kafka's text form. Like Kafka's own Uuid.randomUuid, never one that
# starts with "-", which the storage tool would read as an option.
cluster_id=$(python3 -c '
import base64, uuid
while True:
    s = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
    if not s.startswith("-"):
        print(s)
        break
')
if ! java -Xmx256m -cp "$cp" kafka.tools.StorageTool format -t "$cluster_id" -c "$work/server.properties" "${scram[@]}" >"$work/format.log" 2>&1; then
  tail -n 20 "$work/format.log"; echo "formatting the broker's storage failed"; exit 1
fi
fi
java -Xmx512m -Xms128m -XX:+UseSerialGC -cp "$cp" kafka.Kafka "$work/server.properties" >"$work/broker.log" 2>&1 &
echo $! >"$work/broker.pid"
echo "$port" >"$work/port"
echo "$cport" >"$work/controller-port"
for _ in $(seq 1 120); do
  if grep -q 'Kafka Server started' "$work/broker.log" &&
     python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; then
    exit 0
  fi
  kill -0 "$(cat "$work/broker.pid")" 2>/dev/null || break
  sleep 0.5
done
tail -n 30 "$work/broker.log"; echo "the broker did not start"
kill "$(cat "$work/broker.pid")" 2>/dev/null
exit 1
