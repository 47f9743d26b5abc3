#!/usr/bin/env bash
# Captures the request frames that real Kafka clients send to the kafka-wire stub server.
#
#   bash tests/clients/capture.sh              # re-capture the committed vectors (tests/clients/frames)
#   bash tests/clients/capture.sh /tmp/frames  # capture somewhere else (what .ci/clients.sh does)
#
# For each client (librdkafka via confluent-kafka, and again told to speak Kafka 0.9.0's protocol;
# kafka-python; kafkajs; Kafka's Java client 4.1.1 and 4.4.0; versions pinned in
# python/requirements.txt, js/package-lock.json and java_versions below) it starts the stub
# (target/debug/kwire-stub) on an ephemeral 127.0.0.1 port, runs the client's script (admin:
# create topics, describe configs; produce records, compressed with each codec the client has;
# consume them back in a group and commit; admin: list groups, delete a topic) and stops the
# stub. The stub writes
# OUT/<client>/<Api>-v<version>-<n>.bin and a manifest line for each; they are merged into
# OUT/MANIFEST.tsv.
#
# Needs python3 (with venv), node and npm, java 17 and mvn, and cargo; installs the pinned
# clients itself (a virtualenv in tests/clients/.venv, npm ci, mvn package). Prints `PASS:` or
# `FAILED:` for each client; exits non-zero if any client failed.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$(realpath -m "${1:-$here/frames}")"
logs="$(mktemp -d /tmp/kwire-capture-logs.XXXXXX)"
fail=0

echo "== capture: pinned clients"
if [ ! -x "$here/.venv/bin/python" ]; then python3 -m venv "$here/.venv" || exit 1; fi
"$here/.venv/bin/pip" install -q --disable-pip-version-check -r "$here/python/requirements.txt" || exit 1
(cd "$here/js" && npm ci --silent --no-audit --no-fund) || exit 1
# Kafka's Java client, built once per version (java/pom.xml, target/kafka-V). Maven's output
# goes to a log, shown when it fails.
java_versions="4.1.1 4.4.0"
mvn_java() { # version
  mvn -B -q -Dstyle.color=never -f "$here/java/pom.xml" -Dkafka.version="$1" package dependency:build-classpath \
    -Dmdep.outputFile="target/kafka-$1/classpath.txt" >"$logs/mvn.log" 2>&1 || { cat "$logs/mvn.log"; return 1; }
}
for v in $java_versions; do
  mvn_java "$v" || { echo "Maven failed; retrying once"; sleep 5; mvn_java "$v"; } || exit 1
done
(cd "$here" && cargo build -q --bin kwire-stub) || exit 1

py="$here/.venv/bin/python"
v_rdkafka=$("$py" -c 'import confluent_kafka as c; print("confluent-kafka %s (librdkafka %s)" % (c.__version__, c.libversion()[0]))')
v_kafka_python=$("$py" -c 'import kafka; print("kafka-python %s" % kafka.__version__)')
v_kafkajs="kafkajs $(node -p "require('$here/js/node_modules/kafkajs/package.json').version")"
# java_cp VERSION: the classpath of the Java client built against kafka-clients VERSION.
java_cp() { echo "$here/java/target/kafka-$1/kwire-java-client.jar:$(cat "$here/java/target/kafka-$1/classpath.txt")"; }

rm -rf "$out"
mkdir -p "$out"

# run_client NAME VERSION COMMAND...: the command gets the bootstrap address as its last argument.
run_client() {
  local name=$1 version=$2; shift 2
  local portfile="$logs/$name.port" stub_pid rc
  "$here/target/debug/kwire-stub" --client "$name" --client-version "$version" --out "$out" --port-file "$portfile" \
    >"$logs/$name.stub.log" 2>&1 &
  stub_pid=$!
  for _ in $(seq 1 50); do [ -s "$portfile" ] && break; sleep 0.1; done
  local start=$(date +%s)
  timeout 180 "$@" "127.0.0.1:$(cat "$portfile")" >"$logs/$name.client.log" 2>&1
  rc=$?
  kill "$stub_pid" 2>/dev/null; wait "$stub_pid" 2>/dev/null
  local n=$(wc -l < "$out/$name/captured.tsv" 2>/dev/null || echo 0)
  if [ "$rc" -eq 0 ] && [ "$n" -gt 0 ]; then
    echo "PASS: $name ($version): the client script passed (records read back equal those produced); $n frames in $(( $(date +%s) - start ))s"
  else
    echo "FAILED: $name ($version): client exit $rc, $n frames; its log:"
    tail -n 30 "$logs/$name.client.log"; echo "-- stub log:"; tail -n 10 "$logs/$name.stub.log"
    fail=1
  fi
}

echo "== capture: into $out"
export KAFKAJS_NO_PARTITIONER_WARNING=1
run_client librdkafka "$v_rdkafka" "$py" "$here/python/confluent_client.py"
run_client librdkafka-legacy "$v_rdkafka with api.version.request=false, broker.version.fallback=0.9.0" \
  "$py" "$here/python/confluent_legacy_client.py"
run_client kafka-python "$v_kafka_python" "$py" "$here/python/kafka_python_client.py"
run_client kafkajs "$v_kafkajs" node "$here/js/client.js"
for v in $java_versions; do
  got=$(tr ':' '\n' < "$here/java/target/kafka-$v/classpath.txt" | sed -n 's#.*/kafka-clients-\(.*\)\.jar$#\1#p')
  if [ "$got" != "$v" ]; then echo "FAILED: java-$v: the classpath has kafka-clients '$got'"; fail=1; continue; fi
  run_client "java-$v" "kafka-clients $v" java -Xmx256m -cp "$(java_cp "$v")" kwire.Client
done

{
  printf 'file\tclient\tclient_version\taction\tapi_key\tapi\tapi_version\tmode\tnote\n'
  cat "$out"/*/captured.tsv 2>/dev/null | sort -t$'\t' -k1,1V
} > "$out/MANIFEST.tsv"
rm -f "$out"/*/captured.tsv
echo "capture: $(( $(wc -l < "$out/MANIFEST.tsv") - 1 )) frames in $out/MANIFEST.tsv (client logs in $logs)"
exit $fail
