#!/usr/bin/env bash
# Real clients through `kwire proxy` to a real single-node KRaft Apache Kafka 4.4.0 broker:
# librdkafka (confluent-kafka) and Kafka's Java client 4.4.0 run their scripts from tests/clients
# (create topics, produce with each compression codec, consume back in a group with both group
# protocols, commit, list groups, delete a topic) against the proxy's bootstrap port. Each client
# gets its own proxy, logging every frame as JSON (--log); then the log is checked:
#   - the client script passed: the records read back equal those produced;
#   - every frame decoded strictly (the log has no "error" and no lenient "note");
#   - every request got its response, paired by correlation id;
#   - no fault was logged beyond requests in flight when a client closed;
#   - then both again with TLS from the client to the proxy (--tls-cert) and SASL/SCRAM-SHA-512
#     to the broker's SASL_PLAINTEXT listener, passed through;
#   - broker addresses were rewritten: no Metadata, DescribeCluster or FindCoordinator response
#     reached the client with the broker's own port, and the client then connected through the
#     proxy's listener for the broker (the JSON's connection label ends "via <listener>");
#   - the fault suite's checks that need only an answering broker, against this one
#     (tests/proxy/faults.py --real-broker: descriptors run out, 1,000 slow clients, 1,000
#     hostile size prefixes, a stalled log).
#
#   bash .ci/proxy.sh
#
# Reuses what the earlier CI stages left: the broker jars' classpath (.ci/broker.sh,
# tests/broker/target/classpath.txt), the clients' virtualenv and Java client build
# (.ci/clients.sh, tests/clients/.venv and tests/clients/java/target/kafka-4.4.0), and builds
# them when missing. Prints PASS:/FAILED: lines and ends with `conformance: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
start=$(date +%s)
work=$(mktemp -d /tmp/kwire-proxy-ci.XXXXXX)
passed=0
failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAILED: $*"; failed=$((failed + 1)); }
pids=()
finish() {
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
  done
  rm -rf "$work"
  echo "proxy.sh: $(( $(date +%s) - start ))s"
  echo "conformance: $passed passed, $failed failed"
  [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
  exit $?
}

echo "== proxy: tools"
for tool in java mvn python3 cargo; do
  command -v "$tool" >/dev/null 2>&1 || { fail "$tool is missing: the proxy test cannot run"; finish; }
done
cp_file=tests/broker/target/classpath.txt
if ! grep -qs 'kafka_2.13-4.4.0.jar' "$cp_file"; then
  mvn -B -q -Dstyle.color=never -f tests/broker/pom.xml dependency:build-classpath -Dmdep.outputFile=target/classpath.txt \
    >"$work/mvn.log" 2>&1 || { cat "$work/mvn.log"; fail "Maven: the broker jars"; finish; }
fi
py=tests/clients/.venv/bin/python
if ! "$py" -c 'import confluent_kafka' 2>/dev/null; then
  { [ -x "$py" ] || python3 -m venv tests/clients/.venv; } &&
    tests/clients/.venv/bin/pip install -q --disable-pip-version-check -r tests/clients/python/requirements.txt ||
    { fail "installing confluent-kafka"; finish; }
fi
jdir=tests/clients/java/target/kafka-4.4.0
if [ ! -s "$jdir/kwire-java-client.jar" ] || [ ! -s "$jdir/classpath.txt" ]; then
  mvn -B -q -Dstyle.color=never -f tests/clients/java/pom.xml -Dkafka.version=4.4.0 package dependency:build-classpath \
    -Dmdep.outputFile="target/kafka-4.4.0/classpath.txt" >"$work/mvn.log" 2>&1 || { cat "$work/mvn.log"; fail "Maven: the Java client"; finish; }
fi
cargo build -q -p kwire || { fail "building kwire"; finish; }
kwire=$root/target/debug/kwire

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

echo "== proxy: a Kafka 4.4.0 broker (tests/broker/start.sh)"
bash tests/broker/start.sh --sasl "$work/broker" "$cp_file"
rc=$?
[ -s "$work/broker/broker.pid" ] && pids+=("$(cat "$work/broker/broker.pid")")
if [ "$rc" -ne 0 ]; then fail "the broker did not start"; finish; fi
port=$(cat "$work/broker/port")
pass "a KRaft Kafka 4.4.0 broker listens on 127.0.0.1:$port"

# through_proxy NAME COMMAND...: runs the client against a fresh proxy (bootstrap as last argument).
# UPSTREAM_PORT overrides the broker port, PROXY_ARGS adds proxy flags, and KWIRE_CLIENT_CONFIG
# (a key=value file) reaches the client scripts.
through_proxy() {
  local name=$1; shift
  local log="$work/$name.jsonl" lport
  local port=${UPSTREAM_PORT:-$port}
  lport=$(free_port)
  # shellcheck disable=SC2086
  "$kwire" proxy --listen "127.0.0.1:$lport" --upstream "127.0.0.1:$port" --log "$log" ${PROXY_ARGS:-} \
    --port-file "$work/$name.port" 2>"$work/$name.proxy.err" &
  local proxy_pid=$!
  pids+=($proxy_pid)
  for _ in $(seq 1 50); do [ -s "$work/$name.port" ] && break; sleep 0.1; done
  local t0=$(date +%s) rc
  timeout 240 "$@" "127.0.0.1:$lport" >"$work/$name.client.log" 2>&1
  rc=$?
  sleep 0.5
  kill "$proxy_pid" 2>/dev/null; wait "$proxy_pid" 2>/dev/null
  if [ "$rc" -eq 0 ]; then
    pass "$name through the proxy: the client script passed (records read back equal those produced) in $(( $(date +%s) - t0 ))s"
  else
    fail "$name through the proxy: client exit $rc; its log:"; tail -n 30 "$work/$name.client.log"
    echo "-- proxy stderr:"; tail -n 10 "$work/$name.proxy.err"
  fi
  echo "proxy stderr: $(tr '\n' ' ' < "$work/$name.proxy.err")"
  # Checks on the JSON log; one PASS:/FAILED: line each.
  python3 - "$log" "$name" "$port" "$lport" <<'EOF'
import collections, json, sys
path, name, broker_port, bootstrap = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
lines = [json.loads(l) for l in open(path) if l.strip()]
frames = [l for l in lines if "event" not in l]
events = collections.Counter((l["event"], l.get("kind", "")) for l in lines if "event" in l)
# A client that closes with a request in flight, or resets, costs that request: nothing else may
# go wrong on the way.
faults = [l for l in lines if l.get("event") == "fault" and l["kind"] not in ("unanswered", "client_reset")]
summary = ", ".join("%s%s x%d" % (e, " " + k if k else "", n) for (e, k), n in sorted(events.items()))
if not faults:
    print("PASS: %s: no fault beyond requests in flight when a client closed (events: %s)" % (name, summary or "none"))
else:
    print("FAILED: %s: faults %s" % (name, json.dumps(faults[:5])[:2000]))
bad = [f for f in frames if "error" in f or "note" in f]
by_api = collections.Counter((f["apiName"], f["apiVersion"], f["direction"][:3]) for f in frames)
req = {(f["connection"], f["correlationId"]) for f in frames if f["direction"] == "request"}
resp = {(f["connection"], f["correlationId"]) for f in frames if f["direction"] == "response"}
produce0 = {(f["connection"], f["correlationId"]) for f in frames
            if f["direction"] == "request" and f["apiName"] == "Produce" and f.get("body", {}).get("acks") == 0}
apis = ", ".join("%s v%d %s x%d" % (a, v, d, n) for (a, v, d), n in sorted(by_api.items()))
if frames and not bad:
    print("PASS: %s: %d frames, every one decoded strictly (%s)" % (name, len(frames), apis))
else:
    print("FAILED: %s: %d frames, %d did not decode strictly: %s" % (name, len(frames), len(bad), json.dumps(bad[:3])[:2000]))
# Kafka answers the requests of a connection in order, so a request may go unanswered only when
# the client closed the connection first: no later request of its connection has a response.
order = {}
for i, f in enumerate(frames):
    if f["direction"] == "request":
        order[(f["connection"], f["correlationId"])] = i
missing = req - resp - produce0
early = [m for m in missing if any(c == m[0] and order[(c, k)] > order[m] for (c, k) in resp)]
if req and not early and not (resp - req):
    print("PASS: %s: %d requests, %d responses paired by correlation id; %d request(s) still in flight when the client closed its connection"
          % (name, len(req), len(resp), len(missing)))
else:
    print("FAILED: %s: requests left unanswered while later ones were answered %s, responses without a request %s" % (name, sorted(early)[:10], sorted(resp - req)[:10]))
addressing = [f for f in frames if f["direction"] == "response" and f["apiName"] in ("Metadata", "DescribeCluster", "FindCoordinator")]
def ports(body):
    out = []
    for b in body.get("brokers", []) if isinstance(body.get("brokers"), list) else []:
        out.append(b["port"])
    if "port" in body and body.get("nodeId", -1) >= 0:
        out.append(body["port"])
    for c in body.get("coordinators", []) or []:
        if c.get("nodeId", -1) >= 0:
            out.append(c["port"])
    return out
leaked = [f for f in addressing if broker_port in ports(f.get("forwardedBody", f.get("body", {})))]
rewritten = [f for f in addressing if f.get("rewritten")]
conns = sorted({f["connection"] for f in frames})
# Connection labels end with "via <proxy listener>": the bootstrap port or a broker listener.
via_broker = [c for c in conns if int(c.rsplit(":", 1)[1]) != bootstrap]
if addressing and not leaked and rewritten and via_broker:
    print("PASS: %s: %d Metadata/DescribeCluster/FindCoordinator responses, %d rewritten to the proxy's broker listener, none forwarded the broker's port %d; %d of %d connections came through the broker listener"
          % (name, len(addressing), len(rewritten), broker_port, len(via_broker), len(conns)))
else:
    print("FAILED: %s: %d address-bearing responses, %d rewritten, %d forwarded the broker's own port %d; %d connections through a broker listener"
          % (name, len(addressing), len(rewritten), len(leaked), broker_port, len(via_broker)))
EOF
}

echo "== proxy: librdkafka"
export KAFKAJS_NO_PARTITIONER_WARNING=1
through_proxy librdkafka "$py" tests/clients/python/confluent_client.py 2>&1 | tee "$work/out1"
echo "== proxy: Kafka's Java client 4.4.0"
through_proxy java-4.4.0 java -Xmx256m -cp "$jdir/kwire-java-client.jar:$(cat "$jdir/classpath.txt")" kwire.Client 2>&1 | tee "$work/out2"

# TLS from the clients to the proxy (its certificate, made here by openssl for 127.0.0.1), SASL
# SCRAM-SHA-512 passed through untouched to the broker's SASL_PLAINTEXT listener.
echo "== proxy: TLS and SASL/SCRAM through the proxy"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost -keyout "$work/key.pem" -out "$work/cert.pem" \
  -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" >"$work/openssl.log" 2>&1 || { cat "$work/openssl.log"; fail "openssl: the proxy's certificate"; finish; }
sport=$(cat "$work/broker/sasl-port")
cat >"$work/java-sasl-ssl.properties" <<EOF2
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="alice-secret";
ssl.truststore.type=PEM
ssl.truststore.location=$work/cert.pem
EOF2
cat >"$work/rdkafka-sasl-ssl.conf" <<EOF2
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.username=alice
sasl.password=alice-secret
ssl.ca.location=$work/cert.pem
EOF2
tls_args="--tls-cert $work/cert.pem --tls-key $work/key.pem"
UPSTREAM_PORT=$sport PROXY_ARGS=$tls_args KWIRE_CLIENT_CONFIG=$work/rdkafka-sasl-ssl.conf KWIRE_NAME_SUFFIX=-sasl-ssl \
  through_proxy librdkafka-sasl-ssl "$py" tests/clients/python/confluent_client.py 2>&1 | tee "$work/out3"
UPSTREAM_PORT=$sport PROXY_ARGS=$tls_args KWIRE_CLIENT_CONFIG=$work/java-sasl-ssl.properties KWIRE_NAME_SUFFIX=-sasl-ssl \
  through_proxy java-4.4.0-sasl-ssl java -Xmx256m -cp "$jdir/kwire-java-client.jar:$(cat "$jdir/classpath.txt")" kwire.Client 2>&1 | tee "$work/out4"
# The SASL exchanges went through, decoded, and every request after them was answered.
for n in librdkafka-sasl-ssl java-4.4.0-sasl-ssl; do
  if grep -q '"apiName":"SaslAuthenticate"' "$work/$n.jsonl" && grep -q '"apiName":"SaslHandshake"' "$work/$n.jsonl"; then
    echo "PASS: $n: SaslHandshake and SaslAuthenticate (SCRAM-SHA-512) passed through the proxy, decoded" | tee -a "$work/out4"
  else
    echo "FAILED: $n: no SASL exchange in the proxy's log" | tee -a "$work/out4"
  fi
done
# The fault suite's checks that need only a broker that answers, against this broker
# (tests/proxy/faults.py --real-broker; about 25 s).
python3 tests/proxy/faults.py "$kwire" --real-broker "$port" 2>&1 | grep -v '^faults:' | tee "$work/out5"
passed=$((passed + $(cat "$work/out1" "$work/out2" "$work/out3" "$work/out4" "$work/out5" | grep -c '^PASS:')))
failed=$((failed + $(cat "$work/out1" "$work/out2" "$work/out3" "$work/out4" "$work/out5" | grep -c '^FAILED:')))
finish
