#!/usr/bin/env bash
# Starts a KRaft Apache Kafka cluster of N nodes (each a broker and a controller, heaps of
# 320 MiB) from the Maven Central jars in the background, and waits until every node serves.
#
#   bash tests/broker/cluster.sh WORKDIR CLASSPATH_FILE [N]
#
# CLASSPATH_FILE as for start.sh. Writes WORKDIR/nodeK/{server.properties,logs,broker.log,
# broker.pid,port} for node K (1..N) and WORKDIR/bootstrap (every node's 127.0.0.1:PORT, comma
# separated). Stop a node by killing its broker.pid. Exits non-zero, with the log's tail, when a
# node does not start in 120 s.
set -uo pipefail
work=$1
cp=$(cat "$2")
n=${3:-3}
mkdir -p "$work"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
declare -a ports cports
used=" "
for k in $(seq 1 "$n"); do
  for which in port cport; do
    p=$(free_port)
    while [[ "$used" == *" $p "* ]]; do p=$(free_port); done
    used+="$p "
    if [ "$which" = port ]; then ports[$k]=$p; else cports[$k]=$p; fi
  done
done
voters=$(for k in $(seq 1 "$n"); do printf '%s@127.0.0.1:%s,' "$k" "${cports[$k]}"; done)
voters=${voters%,}
cluster_id=$(python3 -c '
import base64, uuid
while True:
    s = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
    if not s.startswith("-"):
        print(s)
        break
')
rf=$(( n < 3 ? n : 3 ))
for k in $(seq 1 "$n"); do
  d="$work/node$k"
  mkdir -p "$d"
  cat >"$d/server.properties" <<PROPS
process.roles=broker,controller
node.id=$k
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:${ports[$k]},CONTROLLER://127.0.0.1:${cports[$k]}
advertised.listeners=PLAINTEXT://127.0.0.1:${ports[$k]}
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$d/logs
num.partitions=1
offsets.topic.replication.factor=$rf
transaction.state.log.replication.factor=$rf
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
PROPS
  if ! java -Xmx256m -cp "$cp" kafka.tools.StorageTool format -t "$cluster_id" -c "$d/server.properties" >"$d/format.log" 2>&1; then
    tail -n 20 "$d/format.log"; echo "formatting node $k's storage failed"; exit 1
  fi
  echo "${ports[$k]}" >"$d/port"
done
for k in $(seq 1 "$n"); do
  d="$work/node$k"
  java -Xmx320m -Xms64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$cp" kafka.Kafka "$d/server.properties" >"$d/broker.log" 2>&1 &
  echo $! >"$d/broker.pid"
done
(for k in $(seq 1 "$n"); do printf '127.0.0.1:%s,' "${ports[$k]}"; done) | sed 's/,$//' >"$work/bootstrap"
for _ in $(seq 1 240); do
  up=0
  for k in $(seq 1 "$n"); do
    d="$work/node$k"
    grep -q 'Kafka Server started' "$d/broker.log" && up=$((up + 1))
  done
  [ "$up" = "$n" ] && exit 0
  for k in $(seq 1 "$n"); do
    kill -0 "$(cat "$work/node$k/broker.pid")" 2>/dev/null || { tail -n 30 "$work/node$k/broker.log"; echo "node $k died"; break 2; }
  done
  sleep 0.5
done
for k in $(seq 1 "$n"); do tail -n 10 "$work/node$k/broker.log"; kill "$(cat "$work/node$k/broker.pid")" 2>/dev/null; done
echo "the cluster did not start"
exit 1
