#!/usr/bin/env python3
"""kafka-wire-client against a real broker, read back by Kafka's own Java consumer.

    tests/client/check.py KWIRE CLASSPATH_FILE BOOTSTRAP [RECORDS [BROKER_DIR]]

For each acks mode (all with idempotence, 1, 0): creates a topic of 3 partitions with Kafka's
Admin client, produces RECORDS records (default 5000) with `KWIRE produce --format json`, reads
them back with Kafka's consumer (tests/client/ClientCheck.java) and compares:
- every record read once, no record missing or extra;
- key, value and headers byte for byte;
- each partition holds its records in the order they were produced;
- a keyed record without a partition is in the partition Kafka's Java partitioner gives its key
  (Utils.murmur2, asked of the Java classes), a record with a partition in that partition.
Then the other way, for each compression codec (none, gzip, snappy, lz4, zstd): Kafka's Java
producer writes RECORDS records over 3 partitions, `KWIRE consume -e` reads them, and its output
is compared with what Kafka's Java consumer reads (partition, offset, key, value, headers, in
order); `-o OFFSET -c N` on one partition is compared with the Java consumer's records from that
offset. Transactions: a transactional Java producer commits some transactions and aborts others;
`KWIRE consume --isolation read-committed` must equal the Java consumer under read_committed, and
read-uncommitted the Java consumer under read_uncommitted. Our producer compresses with each codec:
Kafka's consumer reads the records back, and the broker's log segment holds batches of that
codec. The idempotent produce and a zstd consume are run once more through the client's async
driver on tokio (`--async`), and once more with a bootstrap list whose first address has nothing
listening. A produce over a quota is captured: no request follows a throttled answer before the
throttle has passed (KIP-219). With a broker started with `start.sh --sasl`, produce and consume over its SASL listener with PLAIN,
SCRAM-SHA-256 and SCRAM-SHA-512, and a wrong password refused.
    tests/client/check.py KWIRE CLASSPATH_FILE --cluster CLUSTER_DIR [RECORDS]
runs on a 3-node cluster (tests/broker/cluster.sh) instead: RECORDS records (default 50,000)
produced with acks=all while the node leading a partition is killed, read back exactly once, in
order per partition, by Kafka's consumer and by `KWIRE consume`.
With BROKER_DIR (the broker's tests/broker/start.sh work folder): idempotence under a fault. A
produce of 100,000 records with acks=all is running when the broker is killed (SIGKILL) and
started again; Kafka's consumer then reads every record exactly once, in order per partition.
Prints PASS:/FAILED: lines and `conformance: N passed, M failed`; exits 1 on any failure.
"""
import base64
import json
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
JAVA_TOOL = os.path.join(HERE, "ClientCheck.java")


_classes = None


def java(classpath, *args, stdin=None):
    """Runs ClientCheck (compiled once per run, rather than by every launch)."""
    global _classes
    if _classes is None:
        import atexit
        import shutil
        import tempfile
        out = tempfile.mkdtemp(prefix="clientcheck-")
        atexit.register(shutil.rmtree, out, True)
        subprocess.run(["javac", "-nowarn", "-cp", classpath, "-d", out, JAVA_TOOL], check=True, capture_output=True,
                       timeout=180)
        _classes = out
    r = subprocess.run(["java", "-cp", classpath + os.pathsep + _classes, "ClientCheck", *args], input=stdin,
                       capture_output=True, text=True, timeout=180)
    if r.returncode != 0:
        why = [l for l in r.stderr.splitlines() if "Exception" in l][:2] or r.stderr.splitlines()[-3:]
        raise RuntimeError(f"ClientCheck {args[0]} exited {r.returncode}: {' / '.join(why)}")
    return r.stdout


def records(n, seed):
    """N records: most keyed, some without a key, some with a partition; headers on some; values
    of many sizes, some null, some not ASCII."""
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        r = {}
        kind = rnd.random()
        if kind < 0.8:
            r["key"] = f"key-{rnd.randrange(500)}"
        elif kind < 0.9:
            r["partition"] = rnd.randrange(3)
            r["key"] = f"pinned-{i}"
        if rnd.random() < 0.05:
            # A null value (a tombstone) under a key of its own, so that each record is told
            # apart by its key, value and headers.
            r["value"] = None
            if "partition" not in r:
                r["key"] = f"tombstone-{i}"
        else:
            r["value"] = f"record {i} " + "é" * rnd.randrange(3) + "x" * rnd.choice([0, 10, 100, 1000])
        if rnd.random() < 0.3:
            r["headers"] = {"h1": f"v{i}", "trace": None} if rnd.random() < 0.5 else {"only": "one"}
        r["_i"] = i
        out.append(r)
    return out


def b64(s):
    return None if s is None else base64.b64encode(s.encode()).decode()


def restart_broker(work, cp_file):
    """A fault: the single broker of WORK is killed (SIGKILL) and started again."""
    def fault(classpath, bootstrap, topic):
        pid = int(open(os.path.join(work, "broker.pid")).read())
        kill(pid)
        r = subprocess.run(["bash", os.path.join(HERE, "..", "broker", "start.sh"), "--restart", work, cp_file],
                           capture_output=True, text=True, timeout=120)
        return r.returncode == 0, f"the broker was killed and started again ({r.stdout.strip()[-300:]})"
    fault.label = "broker restarted"
    fault.replicas = 1
    return fault


def kill_a_leader(cluster):
    """A fault on a cluster (tests/broker/cluster.sh's WORKDIR): the node leading a partition,
    other than the bootstrap node (node 1), is killed (SIGKILL); its partitions' leadership moves
    to the other replicas."""
    def fault(classpath, bootstrap, topic):
        leaders = dict(map(int, l.split()) for l in java(classpath, "leaders", bootstrap, topic).splitlines() if l.strip())
        victim = next((node for part, node in sorted(leaders.items()) if node not in (1, -1)), None)
        if victim is None:
            return False, f"no partition led by a node other than node 1 ({leaders})"
        kill(int(open(os.path.join(cluster, f"node{victim}", "broker.pid")).read()))
        moved = {}
        for _ in range(100):
            time.sleep(0.2)
            moved = dict(map(int, l.split()) for l in java(classpath, "leaders", bootstrap, topic).splitlines() if l.strip())
            if all(node not in (victim, -1) for node in moved.values()):
                break
        led = sorted(p for p, node in leaders.items() if node == victim)
        return (all(node not in (victim, -1) for node in moved.values()),
                f"node {victim}, leader of partitions {led}, was killed; leaders before {leaders}, after {moved}")
    fault.label = "leader killed"
    fault.replicas = 3
    return fault


def kill(pid):
    os.kill(pid, 9)
    while os.path.exists(f"/proc/{pid}") and open(f"/proc/{pid}/stat").read().split()[2] != "Z":
        time.sleep(0.05)


def dead_address():
    """A local address where nothing listens: a port bound, then let go."""
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"127.0.0.1:{port}"


def check_mode(kwire, classpath, bootstrap, acks, n, report, fault=None, tokio=False, codec=None, broker_dir=None,
               dead_first=False):
    """Produces N records with acks ACKS and reads them back; with FAULT (restart_broker or
    kill_a_leader), the fault strikes once a tenth of the records are acknowledged; with TOKIO,
    through the client's async driver on tokio (`--async`); with CODEC, compressed with it, and
    the broker's log segment (BROKER_DIR) read with `kwire dump-log` shows the codec kept; with
    DEAD_FIRST, `--bootstrap` names an address where nothing listens before the broker's."""
    topic = (f"kwire-client-acks-{acks}-{os.getpid()}{'-fault' if fault else ''}{'-tokio' if tokio else ''}"
             f"{'-' + codec if codec else ''}{'-dead-first' if dead_first else ''}")
    java(classpath, "create", bootstrap, topic, "3", str(fault.replicas if fault else 1))
    recs = records(n, seed=hash(acks) & 0xffff)
    lines = "".join(json.dumps({k: v for k, v in r.items() if k != "_i"}) + "\n" for r in recs)
    if fault:
        acks = f"all, {fault.label}"
    start = time.time()
    first = bootstrap.split(",")[0]
    if dead_first:
        first = f"{dead_address()},{first}"
        acks += ", a dead address first in --bootstrap"
    cmd = [kwire, "produce", "-b", first, "-t", topic, "--format", "json", "--acks", acks.split(",")[0]]
    if tokio:
        cmd.append("--async")
        acks += ", tokio"
    if codec:
        cmd += ["--compression", codec]
        acks += f", {codec}"
    if fault:
        import tempfile
        import threading
        errf = tempfile.TemporaryFile(mode="w+")
        proc = subprocess.Popen(cmd + ["--report"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errf,
                                text=True)
        fed = threading.Thread(target=lambda: (proc.stdin.write(lines), proc.stdin.close()))
        fed.start()
        # The fault strikes once a tenth of the records are acknowledged.
        delivered = 0
        for line in proc.stdout:
            delivered += json.loads(line).get("count", 0)
            if delivered >= n // 10:
                break
        rest = []
        drain = threading.Thread(target=lambda: rest.extend(proc.stdout))
        drain.start()
        ok, what = fault(classpath, bootstrap, topic)
        if not report.check(ok, f"acks={acks}: {what}, after {delivered} records were acknowledged"):
            proc.kill()
            return
        try:
            proc.wait(timeout=300)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        fed.join()
        drain.join()
        errf.seek(0)
        p = subprocess.CompletedProcess(cmd, proc.returncode, "".join(rest), errf.read())
    else:
        p = subprocess.run(cmd, input=lines, capture_output=True, text=True, timeout=300)
    took = time.time() - start
    summary = (p.stderr.strip().splitlines() or ["(nothing on standard error)"])[-1]
    if not report.check(p.returncode == 0, f"acks={acks}: kwire produce exited {p.returncode}: {summary}"):
        return
    got = [json.loads(l) for l in java(classpath, "consume", bootstrap, topic, str(n)).splitlines() if l.strip()]
    report.check(len(got) == n, f"acks={acks}: Kafka's consumer read {len(got)} records of {n} produced ({took:.1f} s)")
    # The partition of each keyed record without one, from Kafka's Java partitioner.
    keyed = [r for r in recs if r.get("key") is not None and "partition" not in r]
    parts = java(classpath, "partition", "3", stdin="".join(r["key"] + "\n" for r in keyed)).split()
    for r, p in zip(keyed, parts):
        r["partition"] = int(p)
    by_value = {}
    for r in recs:
        by_value.setdefault((b64(r.get("key")), b64(r.get("value")),
                             json.dumps(sorted([k, b64(v)] for k, v in (r.get("headers") or {}).items()))), []).append(r)
    wrong_part = mismatched = 0
    seen = set()
    last = {}
    order_ok = True
    for g in got:
        key = (g["key"], g["value"], json.dumps(sorted(g["headers"])))
        cands = [r for r in by_value.get(key, []) if r["_i"] not in seen]
        if not cands:
            mismatched += 1
            continue
        r = cands[0]
        seen.add(r["_i"])
        if "partition" in r and r["partition"] != g["partition"]:
            wrong_part += 1
        if r["_i"] < last.get(g["partition"], -1):
            order_ok = False
        last[g["partition"]] = r["_i"]
    report.check(mismatched == 0 and len(seen) == n,
                 f"acks={acks}: every record read back once with its key, value and headers "
                 f"({len(seen)} matched, {mismatched} read that were not produced)")
    report.check(wrong_part == 0,
                 f"acks={acks}: {len(keyed)} keyed records in the partition Kafka's Java partitioner gives "
                 f"(murmur2), {n // 10} in the partition named ({wrong_part} elsewhere)")
    report.check(order_ok, f"acks={acks}: each partition holds its records in the order produced")
    if codec and broker_dir:
        # The batches as the broker stored them: its log segment of each partition.
        names = []
        for part in range(3):
            seg = os.path.join(broker_dir, "logs", f"{topic}-{part}", "00000000000000000000.log")
            out = subprocess.run([kwire, "dump-log", seg], capture_output=True, text=True, timeout=60).stdout
            names += [json.loads(l)["batch"]["compression"] for l in out.splitlines() if l.startswith('{"batch"')]
        # A batch that does not shrink goes uncompressed (a lone short record under lz4's frame).
        kept = names.count(codec)
        report.check(kept > len(names) // 2 and set(names) <= {codec, "none"},
                     f"acks={acks}: the broker stored {len(names)} batches, {kept} compressed with {codec}, "
                     f"{names.count('none')} that did not shrink uncompressed")


def java_lines(recs):
    """RECORDS as ClientCheck's produce-records lines: partition, key, value, headers."""
    out = []
    for r in recs:
        key = b64(r.get("key")) or "-"
        value = b64(r.get("value")) or "-"
        hs = r.get("headers") or {}
        headers = ",".join(f"{k}={b64(v) or '-'}" for k, v in hs.items()) or "-"
        out.append(f"{r['partition']}\t{key}\t{value}\t{headers}\n")
    return out


def normal_java(lines):
    return [(g["partition"], g["offset"], g["key"], g["value"], [list(h) for h in g["headers"]])
            for g in (json.loads(l) for l in lines.splitlines() if l.strip())]


def normal_kwire(lines):
    return [(g["partition"], g["offset"], g["key"], g["value"], [[h["key"], h["value"]] for h in g["headers"]])
            for g in (json.loads(l) for l in lines.splitlines() if l.strip())]


def kwire_consume(kwire, bootstrap, topic, *args):
    cmd = [kwire, "consume", "-b", bootstrap, "-t", topic, *args]
    start = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"kwire consume exited {p.returncode}: {p.stderr.strip()[-300:]}")
    # Partition by partition, in offset order within each (as the Java side prints them).
    got = normal_kwire(p.stdout)
    return sorted(got, key=lambda g: (g[0], g[1])), time.time() - start


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"first difference at {i}: {x} against Kafka's {y}"
    return f"{len(a)} records against Kafka's {len(b)}"


def check_consume(kwire, classpath, bootstrap, codec, n, report, tokio=False, dead_first=False):
    """Kafka's producer writes N records compressed with CODEC; kwire consume reads them (with
    TOKIO, through the client's async driver on tokio; with DEAD_FIRST, its `--bootstrap` names
    an address where nothing listens before the broker's)."""
    topic = f"kwire-consume-{codec}-{os.getpid()}{'-tokio' if tokio else ''}{'-dead-first' if dead_first else ''}"
    extra = ["--async"] if tokio else []
    if tokio:
        codec += ", tokio"
    ours = bootstrap
    if dead_first:
        ours = f"{dead_address()},{bootstrap}"
        codec += ", a dead address first in --bootstrap"
    java(classpath, "create", bootstrap, topic, "3")
    recs = records(n, seed=hash(codec) & 0xffff)
    for r in recs:
        r.setdefault("partition", r["_i"] % 3)
    sent = java(classpath, "produce-records", bootstrap, topic, codec.split(",")[0],
                stdin="".join(java_lines(recs))).split()
    report.check(sent == [str(n)], f"consume, {codec}: Kafka's producer wrote {sent} of {n} records")
    want = sorted(normal_java(java(classpath, "consume", bootstrap, topic, str(n), "read_uncommitted")),
                  key=lambda g: (g[0], g[1]))
    got, took = kwire_consume(kwire, ours, topic, "-e", *extra)
    report.check(got == want and len(want) == n,
                 f"consume, {codec}: kwire consume read every record as Kafka's consumer did, in order "
                 f"(partition, offset, key, value, headers; {len(got)} records, {took:.1f} s"
                 f"{'' if got == want else '; ' + first_difference(got, want)})")
    p0 = [g for g in want if g[0] == 0]
    start = p0[len(p0) // 2][1]
    got, _ = kwire_consume(kwire, ours, topic, "-p", "0", "-o", str(start), "-c", "10", *extra)
    report.check(got == [g for g in p0 if g[1] >= start][:10],
                 f"consume, {codec}: -p 0 -o {start} -c 10 gives Kafka's records {start} to {start + 9}")


def check_throttle(kwire, classpath, bootstrap, report):
    """KIP-219: a produce quota of 20 kB/s on our client id (set with Kafka's Admin client);
    `kwire produce` of 400 records of 1 kB while dumpcap captures the broker's port. The broker
    answers a request over the quota at once, with `throttle_time_ms`, and mutes the connection
    for that long; Kafka's clients send nothing on it in the meantime. In the capture (decoded by
    `kwire pcap`), no request may follow a throttled answer on its connection before the throttle
    has passed, and some answers must be throttled. Every record is then read back by Kafka's
    consumer."""
    import shutil
    import tempfile
    topic = f"kwire-throttled-{os.getpid()}"
    client_id = f"kwire-throttled-{os.getpid()}"
    port = bootstrap.split(",")[0].rsplit(":", 1)[1]
    dumpcap = shutil.which("dumpcap")
    if not report.check(dumpcap is not None, "throttle: dumpcap (from Debian's tshark) is installed"):
        return
    java(classpath, "create", bootstrap, topic, "1")
    java(classpath, "quota", bootstrap, client_id, "20000")
    work = tempfile.mkdtemp(prefix="kwire-throttle-")
    cap = os.path.join(work, "throttle.pcapng")
    dc = subprocess.Popen([dumpcap, "-q", "-i", "lo", "-f", f"tcp port {port}", "-w", cap],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(50):  # until the capture file exists: dumpcap is listening
            if os.path.exists(cap) and os.path.getsize(cap) > 0:
                break
            time.sleep(0.1)
        lines = "".join(json.dumps({"value": f"{i:05d}" + "x" * 995}) + "\n" for i in range(400))
        p = subprocess.run([kwire, "produce", "-b", bootstrap.split(",")[0], "-t", topic, "--client-id", client_id,
                            "--format", "json"], input=lines, capture_output=True, text=True, timeout=300)
        time.sleep(0.5)
    finally:
        dc.terminate()
        dc.wait(timeout=30)
    if not report.check(p.returncode == 0, f"throttle: kwire produce exited {p.returncode}: "
                                           f"{(p.stderr.strip().splitlines() or [''])[-1]}"):
        return
    out = subprocess.run([kwire, "pcap", "--port", port, "--api", "Produce", "--no-summary", cap],
                         capture_output=True, text=True, timeout=120).stdout
    shutil.rmtree(work, True)
    frames = [json.loads(l) for l in out.splitlines() if l.strip()]
    throttled = early = 0
    until = {}  # connection -> (time the throttle ends, its length in ms)
    worst = 0.0
    for f in frames:
        conn = f["connection"]
        if f["direction"] == "response":
            ms = f["body"].get("throttleTimeMs", 0)
            if ms > 0:
                throttled += 1
                until[conn] = (f["time"] + ms / 1000.0, ms)
        elif conn in until and f["time"] < until[conn][0] - 0.002:
            early += 1
            worst = max(worst, until[conn][0] - f["time"])
    requests = sum(1 for f in frames if f["direction"] == "request")
    report.check(throttled > 0 and early == 0,
                 f"throttle: {throttled} of {requests} Produce answers throttled by the broker, "
                 f"{early} requests sent before a throttle ended"
                 f"{f' (the earliest {worst * 1000:.0f} ms early)' if early else ''}")
    got = java(classpath, "consume", bootstrap, topic, "400").splitlines()
    report.check(len([l for l in got if l.strip()]) == 400,
                 f"throttle: Kafka's consumer read {len(got)} of the 400 records produced")


def check_transactions(kwire, classpath, bootstrap, n, report):
    """A transactional Java producer commits and aborts; kwire consume under each isolation."""
    topic = f"kwire-consume-tx-{os.getpid()}"
    java(classpath, "create", bootstrap, topic, "3")
    recs = records(n, seed=7)
    lines = []
    for i, line in enumerate(java_lines([dict(r, partition=r["_i"] % 3) for r in recs])):
        lines.append(line)
        if i % 50 == 49:
            lines.append("ABORT\n" if (i // 50) % 3 == 1 else "COMMIT\n")
    java(classpath, "produce-records", bootstrap, topic, "lz4", "tx", stdin="".join(lines))
    for iso, java_iso in (("read-committed", "read_committed"), ("read-uncommitted", "read_uncommitted")):
        want = sorted(normal_java(java(classpath, "consume", bootstrap, topic, str(n), java_iso)),
                      key=lambda g: (g[0], g[1]))
        got, took = kwire_consume(kwire, bootstrap, topic, "-e", "--isolation", iso)
        report.check(got == want and 0 < len(want),
                     f"transactions, {iso}: kwire consume read what Kafka's consumer read ({len(got)} records "
                     f"of {n} written, {took:.1f} s{'' if got == want else '; ' + first_difference(got, want)})")


def check_sasl(kwire, classpath, bootstrap, sasl_bootstrap, n, report):
    """Over the broker's SASL_PLAINTEXT listener: kwire produce with each mechanism, kwire consume
    with another, Kafka's consumer (over PLAINTEXT) reading the same records; a wrong password
    fails fast."""
    mechanisms = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]
    for i, m in enumerate(mechanisms):
        topic = f"kwire-sasl-{m.lower()}-{os.getpid()}"
        java(classpath, "create", bootstrap, topic, "3")
        lines = [f"{m} record {j} " + "x" * (j % 50) for j in range(n)]
        cred = ["--sasl-username", "alice", "--sasl-password", "alice-secret"]
        p = subprocess.run([kwire, "produce", "-b", sasl_bootstrap, "-t", topic, "--sasl-mechanism", m, *cred],
                           input="".join(l + "\n" for l in lines), capture_output=True, text=True, timeout=120)
        summary = (p.stderr.strip().splitlines() or [""])[-1]
        if not report.check(p.returncode == 0, f"SASL {m}: kwire produce exited {p.returncode}: {summary}"):
            continue
        other = mechanisms[(i + 1) % 3]
        c = subprocess.run([kwire, "consume", "-b", sasl_bootstrap, "-t", topic, "-e", "--format", "value",
                            "--sasl-mechanism", other, *cred], capture_output=True, text=True, timeout=120)
        got = sorted(c.stdout.splitlines())
        report.check(c.returncode == 0 and got == sorted(lines),
                     f"SASL {m}: kwire consume over SASL {other} read the {n} records produced ({len(got)} read)")
        java_got = [json.loads(l) for l in java(classpath, "consume", bootstrap, topic, str(n)).splitlines() if l.strip()]
        values = sorted(base64.b64decode(g["value"]).decode() for g in java_got)
        report.check(values == sorted(lines), f"SASL {m}: Kafka's consumer read the same {len(values)} records")
    start = time.time()
    p = subprocess.run([kwire, "produce", "-b", sasl_bootstrap, "-t", "any", "--sasl-mechanism", "SCRAM-SHA-256",
                        "--sasl-username", "alice", "--sasl-password", "wrong"], input="x\n", capture_output=True,
                       text=True, timeout=120)
    took = time.time() - start
    report.check(p.returncode != 0 and "SASL authentication failed" in p.stderr and took < 15,
                 f"SASL: a wrong password fails with the broker's error in {took:.1f} s "
                 f"({(p.stderr.strip().splitlines() or [''])[-1]})")


class Report:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what):
        print(("PASS: " if ok else "FAILED: ") + what, flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok


def cluster_main():
    """check.py KWIRE CLASSPATH_FILE --cluster CLUSTER_DIR [RECORDS]: a leader killed during an
    idempotent produce on a 3-node cluster; then kwire consume reads the topic from the leaders
    that remain, as Kafka's consumer does."""
    kwire, cp_file, _, cluster = sys.argv[1:5]
    n = int(sys.argv[5]) if len(sys.argv) > 5 else 50_000
    classpath = open(cp_file).read().strip()
    bootstrap = open(os.path.join(cluster, "bootstrap")).read().strip()
    report = Report()
    try:
        check_mode(kwire, classpath, bootstrap, "all", n, report, fault=kill_a_leader(cluster))
        topic = f"kwire-client-acks-all-{os.getpid()}-fault"
        want = sorted(normal_java(java(classpath, "consume", bootstrap, topic, str(n), "read_uncommitted")),
                      key=lambda g: (g[0], g[1]))
        got, took = kwire_consume(kwire, bootstrap.split(",")[0], topic, "-e")
        report.check(got == want and len(want) == n,
                     f"leader killed: kwire consume read every record from the leaders that remain, as Kafka's "
                     f"consumer did ({len(got)} records, {took:.1f} s{'' if got == want else '; ' + first_difference(got, want)})")
    except Exception as e:
        report.check(False, f"leader killed: {e}")
    print(f"conformance: {report.passed} passed, {report.failed} failed")
    sys.exit(0 if report.failed == 0 and report.passed > 0 else 1)


def main():
    if len(sys.argv) > 4 and sys.argv[3] == "--cluster":
        return cluster_main()
    kwire, cp_file, bootstrap = sys.argv[1:4]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 5000
    broker_dir = sys.argv[5] if len(sys.argv) > 5 else None
    classpath = open(cp_file).read().strip()
    report = Report()
    for acks in ["all", "1", "0"]:
        try:
            check_mode(kwire, classpath, bootstrap, acks, n, report)
        except Exception as e:  # a tool that failed is a failed check
            report.check(False, f"acks={acks}: {e}")
    for codec in ["none", "gzip", "snappy", "lz4", "zstd"]:
        try:
            check_consume(kwire, classpath, bootstrap, codec, n, report)
        except Exception as e:
            report.check(False, f"consume, {codec}: {e}")
    try:
        check_transactions(kwire, classpath, bootstrap, min(n, 3000), report)
    except Exception as e:
        report.check(False, f"transactions: {e}")
    # Compressed batches from our producer, read back by Kafka's consumer and found in the log.
    for codec in ["gzip", "snappy", "lz4", "zstd"]:
        try:
            check_mode(kwire, classpath, bootstrap, "all", n, report, codec=codec, broker_dir=broker_dir)
        except Exception as e:
            report.check(False, f"acks=all, {codec}: {e}")
    # The async driver on tokio: the idempotent producer, and the consumer on a compressed topic.
    try:
        check_mode(kwire, classpath, bootstrap, "all", n, report, tokio=True)
    except Exception as e:
        report.check(False, f"acks=all, tokio: {e}")
    try:
        check_consume(kwire, classpath, bootstrap, "zstd", n, report, tokio=True)
    except Exception as e:
        report.check(False, f"consume, zstd, tokio: {e}")
    try:
        check_throttle(kwire, classpath, bootstrap, report)
    except Exception as e:
        report.check(False, f"throttle: {e}")
    # A bootstrap list whose first address has nothing listening: the next one is tried.
    try:
        check_mode(kwire, classpath, bootstrap, "all", min(n, 1000), report, dead_first=True)
    except Exception as e:
        report.check(False, f"acks=all, a dead address first in --bootstrap: {e}")
    try:
        check_consume(kwire, classpath, bootstrap, "none", min(n, 1000), report, dead_first=True)
    except Exception as e:
        report.check(False, f"consume, none, a dead address first in --bootstrap: {e}")
    sasl_port = os.path.join(broker_dir, "sasl-port") if broker_dir else None
    if sasl_port and os.path.exists(sasl_port):
        try:
            check_sasl(kwire, classpath, bootstrap, f"127.0.0.1:{open(sasl_port).read().strip()}", 1000, report)
        except Exception as e:
            report.check(False, f"SASL: {e}")
    if broker_dir:
        try:
            check_mode(kwire, classpath, bootstrap, "all", 100_000, report, fault=restart_broker(broker_dir, cp_file))
        except Exception as e:
            report.check(False, f"acks=all, broker restarted: {e}")
    print(f"conformance: {report.passed} passed, {report.failed} failed")
    sys.exit(0 if report.failed == 0 and report.passed > 0 else 1)


if __name__ == "__main__":
    main()
