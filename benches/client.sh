#!/usr/bin/env bash
# Client CPU of kafka-wire-client's command-line tools (`kwire produce`, `kwire consume`; release
# build) against librdkafka through `kcat -P` and `kcat -C`, moving the same records with the
# same settings through the same real single-node Kafka 4.4.0 broker (tests/broker/start.sh),
# side by side in one run.
#
#   bash benches/client.sh                     # both benchmarks
#   bash benches/client.sh produce             # or: consume
#   CASES="100:1000000 1024:200000" RUNS=3 bash benches/client.sh
#   KWIRE=/path/to/kwire bash benches/client.sh     # that binary, no build
#
# CASES lists VALUE_BYTES:RECORDS (default "100:1000000 1024:200000"). The records are keyed
# (KEY<TAB>VALUE, 11-byte keys, random alphanumeric values of exactly VALUE_BYTES), written once
# to a temporary folder before anything is measured.
#
# produce: each tool reads the records from that file on standard input (`< file`); both split
# key and value at the tab (-K) and partition by Kafka's murmur2 of the key (kcat:
# partitioner=murmur2_random). Each size is produced twice:
#   acks=all, idempotent        kwire produce --acks all
#                               kcat -X acks=all -X enable.idempotence=true
#   acks=1, not idempotent      kwire produce --acks 1 --no-idempotence
#                               kcat -X acks=1 -X enable.idempotence=false
# with, for both tools, linger LINGER_MS (default 5), batches of at most kwire's batch buffer
# size (BATCH in kwire/src/produce.rs, read from there; kcat: batch.size), at most 5 requests in
# flight per connection (kwire's fixed limit; kcat: max.in.flight), Nagle off (kwire sets
# TCP_NODELAY; kcat: socket.nagle.disable), no compression. After each run the sum of the
# topic's end offsets (kcat -Q) must have grown by exactly RECORDS.
#
# consume: each size's records are produced once (kwire produce, acks=1) into a topic of their
# own, then read from the earliest offset to the end of every partition by
#   kwire consume -o earliest -e --format value
#   kcat -C -o beginning -e -q -f '%s\n'
#   kcat -C -o beginning -e -q -f '%s\n' -X check.crcs=true
# each printing every record's value and a newline to a file; librdkafka's consumer settings are
# its defaults, which do not check batch CRCs (kwire's consumer, like Kafka's Java consumer,
# does): the target is against kcat as it comes, the third row does the same work as kwire. After each run the file must hold exactly the input's values, one per line
# (compared as sorted lists: partitions interleave differently), or the script fails. "CPU s /
# GB" counts the key and value bytes consumed.
#
# Every case has its own topic of PARTITIONS partitions (default 6), created beforehand with
# Kafka's Admin client (tests/client/ClientCheck.java). Both tools first warm up on the first
# case (not measured: the broker's JIT, the page cache). Each case runs RUNS times (default 3)
# per tool, the order of the tools turning each round. Per run:
# wall time from start to exit, and the tool's CPU time, user + system, every thread, and its
# peak RSS, from /usr/bin/time; the tool must exit 0, or the script fails. The tables show the
# median of each figure over the runs; "kwire/kcat CPU" is kwire's median CPU per record over
# kcat's. Targets: kwire at most half of librdkafka's CPU per record at no lower throughput
# (records/s) when producing, at most half of its CPU per GB when consuming. MB/s counts key and
# value bytes.
#
# The broker runs on the same machine, so it competes with the client for the CPUs: throughput
# is the pair's, CPU seconds are the client's alone. Prints the machine (nproc, CPU model), kcat
# and librdkafka versions, the kwire commit, the load average before and after (other work on
# the machine shows in the figures), then a markdown table per benchmark.
#
# Needs java, python3, cargo, GNU time (/usr/bin/time), kcat (KCAT, default /usr/bin/kcat) and
# the broker's class path file (tests/broker/target/classpath.txt; fetched with mvn when missing,
# as .ci/broker.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${CASES:-"100:1000000 1024:200000"}
runs=${RUNS:-3}
partitions=${PARTITIONS:-6}
linger=${LINGER_MS:-5}
kcat=${KCAT:-/usr/bin/kcat}
kwire=${KWIRE:-}
cp_file=tests/broker/target/classpath.txt

what=${*:-produce consume}
for w in $what; do
  case $w in produce | consume) ;; *) echo "client.sh: unknown benchmark $w (produce, consume)" >&2; exit 2 ;; esac
done
work=$(mktemp -d /tmp/kwire-client-bench.XXXXXX)
broker_pid=
cleanup() {
  if [ -n "$broker_pid" ]; then
    kill "$broker_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$broker_pid" 2>/dev/null || break; sleep 0.2; done
  fi
  rm -rf "$work"
}
trap cleanup EXIT

[ -x "$kcat" ] || { echo "client.sh: $kcat is missing (apt-get install kcat)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "client.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
if ! grep -qs 'kafka_2.13-4.4.0.jar' "$cp_file"; then
  mvn -B -q -Dstyle.color=never -f tests/broker/pom.xml dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
fi
if [ -z "$kwire" ]; then
  nice -n 10 cargo build -q --release -p kwire
  kwire=target/release/kwire
  kwire_is="release build of $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- client kwire core || echo ' with uncommitted changes'), $(rustc --version | cut -d' ' -f1-2)"
else
  kwire_is="$kwire (KWIRE, not built here)"
fi
batch=$(python3 -c '
import re, sys
m = re.search(r"^const BATCH: usize = ([0-9 <]+);", open("kwire/src/produce.rs").read(), re.M)
sys.exit("client.sh: no `const BATCH` in kwire/src/produce.rs") if not m else print(eval(m.group(1)))')

bash tests/broker/start.sh "$work/broker" "$cp_file" >&2
broker_pid=$(cat "$work/broker/broker.pid")
bootstrap=127.0.0.1:$(cat "$work/broker/port")

echo "- machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), Linux $(uname -r)"
echo "- kcat: $("$kcat" -V 2>&1 | grep -m1 '^Version' | sed 's/^Version //')"
echo "- kwire: $kwire_is"
echo "- broker: Kafka 4.4.0, single node (KRaft) on the same machine; topics of $partitions partitions"
echo "- load average (1, 5, 15 min) before the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- produce settings: linger $linger ms, batch $batch bytes, 5 in flight, Nagle off, no compression; consume: librdkafka's defaults, kwire's; median of $runs runs, tools alternating"
echo

WHAT=$what KWIRE=$kwire KCAT=$kcat BOOTSTRAP=$bootstrap CLASSPATH_FILE=$cp_file WORK=$work \
  CASES=$cases RUNS=$runs PARTITIONS=$partitions LINGER_MS=$linger BATCH=$batch python3 - <<'PY'
import hashlib
import os
import random
import statistics
import string
import subprocess
import sys
import time

E = os.environ
kwire, kcat, bootstrap, work = E["KWIRE"], E["KCAT"], E["BOOTSTRAP"], E["WORK"]
classpath = open(E["CLASSPATH_FILE"]).read().strip()
runs, partitions, linger, batch = int(E["RUNS"]), int(E["PARTITIONS"]), int(E["LINGER_MS"]), int(E["BATCH"])
cases = [tuple(int(x) for x in c.split(":")) for c in E["CASES"].split()]
what = E["WHAT"].split()


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def gen(path, n, size, seed):
    """N lines KEY<TAB>VALUE: an 11-byte key, a VALUE of SIZE random alphanumeric bytes.
    Returns the key and value bytes."""
    rnd = random.Random(seed)
    pool = "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(1 << 16))
    with open(path, "w") as f:
        buf = []
        for _ in range(n):
            o = rnd.randrange(len(pool) - size)
            buf.append(f"key-{rnd.randrange(1 << 20):07d}\t{pool[o:o + size]}\n")
            if len(buf) >= 10000:
                f.write("".join(buf))
                buf.clear()
        f.write("".join(buf))
    return n * (11 + size)


def create(topic):
    r = subprocess.run(["java", "-cp", classpath, "tests/client/ClientCheck.java", "create", bootstrap, topic,
                        str(partitions)], capture_output=True, text=True, timeout=180)
    if r.returncode != 0:
        sys.exit(f"client.sh: creating {topic} failed: {r.stderr[-600:]}")


def end_offsets(topic):
    """The sum of the topic's end offsets, asked again for up to 10 s while a new topic's
    partitions are not yet served by their leader."""
    args = [kcat, "-Q", "-b", bootstrap]
    for p in range(partitions):
        args += ["-t", f"{topic}:{p}:-1"]
    for _ in range(20):
        r = subprocess.run(args, capture_output=True, text=True, timeout=60)
        got = [l for l in r.stdout.splitlines() if " offset " in l]
        if r.returncode == 0 and len(got) == partitions:
            return sum(int(l.split()[-1]) for l in got)
        time.sleep(0.5)
    sys.exit(f"client.sh: kcat -Q {topic} failed: {r.stdout[-300:]} {r.stderr[-600:]}")


def produce_command(tool, topic, acks):
    if tool == "kwire":
        c = [kwire, "produce", "-b", bootstrap, "-t", topic, "-K", "\t", "--linger-ms", str(linger)]
        return c + (["--acks", "all"] if acks == "all" else ["--acks", "1", "--no-idempotence"])
    c = [kcat, "-P", "-b", bootstrap, "-t", topic, "-K", "\t",
         "-X", f"linger.ms={linger}", "-X", f"batch.size={batch}", "-X", "max.in.flight=5",
         "-X", "socket.nagle.disable=true", "-X", "compression.codec=none", "-X", "partitioner=murmur2_random"]
    return c + (["-X", "acks=all", "-X", "enable.idempotence=true"] if acks == "all"
                else ["-X", "acks=1", "-X", "enable.idempotence=false"])


def consume_command(tool, topic):
    if tool == "kwire":
        return [kwire, "consume", "-b", bootstrap, "-t", topic, "-o", "earliest", "-e", "--format", "value"]
    c = [kcat, "-C", "-b", bootstrap, "-t", topic, "-o", "beginning", "-e", "-q", "-f", "%s\n"]
    # librdkafka does not check batch CRCs by default; kwire (like Kafka's Java consumer) does.
    return c + (["-X", "check.crcs=true"] if tool == "kcat-crc" else [])


def measure(tool, args, stdin_path, stdout_path):
    """One run of ARGS under /usr/bin/time: (wall s, CPU s, max RSS KiB); the tool must exit 0."""
    err, usage = os.path.join(work, "stderr"), os.path.join(work, "usage")
    with open(stdin_path, "rb") as stdin, open(stdout_path, "wb") as stdout, open(err, "wb") as stderr:
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", usage] + args,
                           stdin=stdin, stdout=stdout, stderr=stderr)
        wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"client.sh: {tool} ({' '.join(args[1:3])}) exited {p.returncode}: {open(err).read()[-800:]}")
    user, system, rss = open(usage).read().split()[-3:]
    return wall, float(user) + float(system), int(rss)


def produce(tool, topic, acks, path, n):
    """One produce of the N records of PATH; checks that the topic's end offsets grew by N."""
    before = end_offsets(topic)
    got = measure(tool, produce_command(tool, topic, acks), path, os.devnull)
    grew = end_offsets(topic) - before
    if grew != n:
        sys.exit(f"client.sh: {tool} ({topic}): the end offsets grew by {grew}, not {n}: "
                 f"{open(os.path.join(work, 'stderr')).read()[-800:]}")
    return got


def values_digest(lines):
    """A digest of a multiset of lines (bytes, without their newlines)."""
    h = hashlib.sha256()
    for line in sorted(lines):
        h.update(len(line).to_bytes(4, "big"))
        h.update(line)
    return h.hexdigest()


def consume(tool, topic, n, digest):
    """One read of TOPIC from its start to its end; checks that exactly the N values produced
    came out, one per line."""
    out = os.path.join(work, "consumed")
    got = measure(tool, consume_command(tool, topic), os.devnull, out)
    with open(out, "rb") as f:
        lines = f.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if len(lines) != n or values_digest(lines) != digest:
        sys.exit(f"client.sh: {tool} consumed {len(lines)} lines from {topic}, not the {n} values produced")
    os.remove(out)
    return got


def rounds(label, run, tools=("kwire", "kcat")):
    """RUNS rounds of RUN(tool) per tool, the order turning each round: the medians of (wall, CPU,
    RSS) per tool."""
    got = {t: [] for t in tools}
    for r in range(runs):
        k = r % len(tools)
        for tool in tools[k:] + tools[:k]:
            got[tool].append(run(tool))
            w, c, _ = got[tool][-1]
            log(f"client.sh: {label} round {r + 1} {tool}: {w:.2f} s wall, {c:.2f} s CPU")
    return {t: tuple(statistics.median(x[i] for x in got[t]) for i in range(3)) for t in got}


def row(*cells):
    """One markdown table row."""
    print("| " + " | ".join(cells) + " |", flush=True)


inputs = {}
for size, n in cases:
    path = os.path.join(work, f"records-{size}.txt")
    inputs[size] = (path, n, gen(path, n, size, seed=size))
log(f"client.sh: inputs written ({', '.join(f'{n} x {s} B' for s, n in cases)})")
verdicts = []

if "produce" in what:
    for acks in ("all", "1"):
        topic = f"bench-warm-up-{acks}"
        create(topic)
        path, n, _ = inputs[cases[0][0]]
        for tool in ("kwire", "kcat"):
            produce(tool, topic, acks, path, n)
    log("client.sh: warmed up (produce)")
    print("### produce")
    print()
    print("| value | records | acks | client | records/s | MB/s | wall s | CPU s (user+sys) | CPU s / M records "
          "| max RSS MiB | kwire/kcat CPU per record | target: ≤ 0.5× CPU, ≥ kcat's records/s |")
    print("|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for size, _ in cases:
        path, n, payload = inputs[size]
        for acks in ("all", "1"):
            topic = f"bench-{size}-acks-{acks}"
            create(topic)
            med = rounds(f"produce {size} B acks={acks}", lambda tool: produce(tool, topic, acks, path, n))
            ratio = med["kwire"][1] / med["kcat"][1]
            faster = med["kwire"][0] <= med["kcat"][0]
            met = ratio <= 0.5 and faster
            why = "met" if met else "**missed** (" + ", ".join(
                ([f"CPU {ratio:.2f}×"] if ratio > 0.5 else []) + ([] if faster else ["lower throughput"])) + ")"
            verdicts.append(met)
            label = "all, idempotent" if acks == "all" else "1"
            for tool in ("kwire", "kcat"):
                wall, cpu, rss = med[tool]
                mine = tool == "kwire"
                row(f"{size} B", f"{n:,}", label, "kwire produce" if mine else "kcat (librdkafka)", f"{n / wall:,.0f}",
                    f"{payload / wall / 1e6:.1f}", f"{wall:.2f}", f"{cpu:.2f}", f"{cpu / n * 1e6:.2f}",
                    f"{rss / 1024:.0f}", f"{ratio:.2f}×" if mine else "", why if mine else "")
    print()
    print(f"every produce run's records counted in the topic's end offsets: exact ({len(cases) * 2 * runs * 2} runs)")
    print()

if "consume" in what:
    topics = {}
    for size, _ in cases:
        path, n, _ = inputs[size]
        topic = f"bench-consume-{size}"
        create(topic)
        produce("kwire", topic, "1", path, n)
        with open(path, "rb") as f:
            digest = values_digest([line.rstrip(b"\n").split(b"\t", 1)[1] for line in f])
        topics[size] = (topic, digest)
    topic, digest = topics[cases[0][0]]
    for tool in ("kwire", "kcat", "kcat-crc"):
        consume(tool, topic, cases[0][1], digest)
    log("client.sh: warmed up (consume)")
    print("### consume")
    print()
    print("| value | records | client | records/s | MB/s | wall s | CPU s (user+sys) | CPU s / GB "
          "| max RSS MiB | kwire/kcat CPU per GB | target: ≤ 0.5× kcat's CPU |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for size, n in cases:
        _, _, payload = inputs[size]
        topic, digest = topics[size]
        med = rounds(f"consume {size} B", lambda tool: consume(tool, topic, n, digest), ("kwire", "kcat", "kcat-crc"))
        ratio = med["kwire"][1] / med["kcat"][1]
        met = ratio <= 0.5
        verdicts.append(met)
        why = "met" if met else f"**missed** (CPU {ratio:.2f}×)"
        same = med["kwire"][1] / med["kcat-crc"][1]
        names = {"kwire": "kwire consume (CRCs checked)", "kcat": "kcat -C (librdkafka; CRCs not checked, its default)",
                 "kcat-crc": "kcat -C -X check.crcs=true"}
        cols = {"kwire": (f"{ratio:.2f}× ({same:.2f}× of check.crcs=true)", why), "kcat": ("", ""), "kcat-crc": ("", "")}
        for tool in ("kwire", "kcat", "kcat-crc"):
            wall, cpu, rss = med[tool]
            row(f"{size} B", f"{n:,}", names[tool], f"{n / wall:,.0f}", f"{payload / wall / 1e6:.1f}", f"{wall:.2f}",
                f"{cpu:.2f}", f"{cpu / payload * 1e9:.2f}", f"{rss / 1024:.0f}", *cols[tool])
    print()
    print(f"every consume run's output held exactly the values produced ({len(cases) * runs * 3} runs)")
    print()

print(f"targets met in {sum(verdicts)} of {len(verdicts)} cases")
print("load average (1, 5, 15 min) after the runs: " + " ".join(open("/proc/loadavg").read().split()[:3]))
PY
