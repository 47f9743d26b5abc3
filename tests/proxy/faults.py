#!/usr/bin/env python3
"""The faults of a proxy under pressure, against `kwire proxy` as a process, with a fake broker
or a real one.

Each check starts its own proxy and prints one PASS:/FAILED: line; the last line is
`faults: N passed, M failed`. The fake broker answers ApiVersions v0 (or stays silent, or
answers late); its frames are built here from the protocol's layout (request header v1, response
header v0), so kwire decodes every one strictly.

  python3 tests/proxy/faults.py target/debug/kwire
  python3 tests/proxy/faults.py target/debug/kwire --real-broker PORT

With `--real-broker`, the checks that need only a broker that answers (descriptors run out,
1,000 slow clients, 1,000 hostile size prefixes, a stalled log) run against the Kafka broker on
127.0.0.1:PORT instead; a broker that answers late or never is the fake one's alone.
"""
import json, os, resource, signal, socket, struct, subprocess, sys, tempfile, threading, time

KWIRE = os.path.abspath(sys.argv[1])
WORK = tempfile.mkdtemp(prefix="kwire-faults.")
results = []


def check(ok, what):
    results.append(bool(ok))
    print(("PASS: " if ok else "FAILED: ") + what, flush=True)


def request(corr):
    # ApiVersions (18) v0, request header v1: key, version, correlation id, null client id.
    payload = struct.pack(">hhih", 18, 0, corr, -1)
    return struct.pack(">i", len(payload)) + payload


def response(corr):
    # Response header v0 (correlation id), ApiVersions v0: error code 0, no API keys.
    payload = struct.pack(">ihi", corr, 0, 0)
    return struct.pack(">i", len(payload)) + payload


def read_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError("closed after %d of %d bytes" % (len(b), n))
        b += c
    return b


def read_frame(s):
    size = struct.unpack(">i", read_exact(s, 4))[0]
    return read_exact(s, size)


def fake_broker(mode="answer", delay=0.0):
    """A broker on an ephemeral port: 'answer' (after `delay`), or 'silent'. Returns its port."""
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(4096)

    def serve(c):
        try:
            while True:
                p = read_frame(c)
                if mode == "silent":
                    continue
                if delay:
                    time.sleep(delay)
                c.sendall(response(struct.unpack(">i", p[4:8])[0]))
        except (EOFError, OSError):
            pass
        finally:
            c.close()

    def accept():
        while True:
            try:
                c, _ = ls.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(c,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return ls.getsockname()[1]


class Proxy:
    def __init__(self, name, upstream, *args, prefix=(), stdout=None):
        self.name = name
        self.err = os.path.join(WORK, name + ".err")
        self.log = os.path.join(WORK, name + ".jsonl")
        port_file = os.path.join(WORK, name + ".port")
        cmd = list(prefix) + [KWIRE, "proxy", "--listen", "127.0.0.1:0", "--upstream", "127.0.0.1:%d" % upstream,
                              "--port-file", port_file] + list(args)
        if stdout is None and "--quiet" not in args and "--log" not in args:
            cmd += ["--log", self.log]
        self.p = subprocess.Popen(cmd, stdout=stdout or subprocess.DEVNULL, stderr=open(self.err, "w"))
        for _ in range(100):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.05)
        self.port = int(open(port_file).read())

    def connect(self):
        s = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        return s

    def healthy(self, corr=1):
        """A client's ApiVersions through the proxy is answered."""
        try:
            s = self.connect()
            s.sendall(request(corr))
            p = read_frame(s)
            s.close()
            return struct.unpack(">i", p[:4])[0] == corr
        except (OSError, EOFError):
            return False

    def status(self, key):
        for line in open("/proc/%d/status" % self.p.pid):
            if line.startswith(key + ":"):
                return int(line.split()[1])
        return 0

    def cpu(self):
        f = open("/proc/%d/stat" % self.p.pid).read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

    def lines(self, path=None):
        out = []
        for l in open(path or self.err):
            l = l.strip()
            if l.startswith("{"):
                out.append(json.loads(l))
        return out

    def faults(self, kind, path=None):
        return [l for l in self.lines(path) if l.get("event") == "fault" and l.get("kind") == kind]

    def alive(self):
        return self.p.poll() is None

    def stop(self, timeout=40):
        if self.alive():
            self.p.send_signal(signal.SIGTERM)
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return None


# 1,000 clients at once need about 3,000 descriptors between this script and the proxy.
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
want = 20000 if hard == resource.RLIM_INFINITY else min(20000, hard)
resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
broker = fake_broker()

def pressure(broker, tag):
    """Checks 1 to 4 against the broker on port `broker`; `tag` starts every line."""
    # 1. Out of file descriptors: clients are refused or lost one by one, the acceptor backs off
    #    instead of spinning, and the proxy serves again once descriptors are free.
    p = Proxy("nofile", broker, "--quiet", prefix=["prlimit", "--nofile=48:48", "--"])
    held = []
    for _ in range(60):
        try:
            held.append(p.connect())
        except OSError:
            pass
    time.sleep(0.5)
    cpu0 = p.cpu()
    time.sleep(3)
    spent = p.cpu() - cpu0
    lost = len(p.faults("accept_failed")) + len(p.faults("upstream_refused"))
    for s in held:
        s.close()
    time.sleep(1.5)
    ok = p.alive() and lost > 0 and spent < 0.5 and p.healthy()
    check(ok, tag + "out of descriptors (--nofile 48, 60 clients): %d faults logged (accept_failed, upstream_refused), "
          "%.2f CPU-s in 3 s while exhausted, alive and serving afterwards: %s" % (lost, spent, p.alive() and p.healthy()))
    p.stop()

    # 2. 1,000 slow clients (two bytes of a size prefix each): tasks, not threads; closed when idle;
    #    a healthy client is served meanwhile.
    p = Proxy("slowloris", broker, "--quiet", "--idle-timeout", "3")
    slow = []
    for _ in range(1000):
        s = p.connect()
        s.sendall(b"\x00\x00")
        slow.append(s)
    time.sleep(0.5)
    threads = p.status("Threads")
    served = p.healthy()
    time.sleep(4)
    closed = 0
    for s in slow:
        s.settimeout(5)
        try:
            closed += s.recv(1) == b""
        except OSError:
            closed += 1
        s.close()
    idle = len(p.faults("idle_timeout"))
    check(threads <= 12 and served and closed == 1000 and idle >= 1000,
          tag + "1,000 slow clients: %d threads, healthy client served: %s, %d closed after --idle-timeout 3 (%d idle_timeout faults)"
          % (threads, served, closed, idle))
    p.stop()

    # 3. 1,000 clients announcing 100 MiB frames and sending nothing else add at most 64 MiB.
    p = Proxy("prefix", broker, "--quiet")
    time.sleep(0.3)
    rss0 = p.status("VmRSS")
    hostile = []
    for _ in range(1000):
        s = p.connect()
        s.sendall(struct.pack(">i", 100 << 20))
        hostile.append(s)
    time.sleep(1.5)
    added = (p.status("VmRSS") - rss0) / 1024
    served = p.healthy()
    check(added <= 64 and served and p.alive(),
          tag + "1,000 clients announcing 100 MiB each: RSS +%.1f MiB (bound 64), healthy client served: %s" % (added, served))
    for s in hostile:
        s.close()
    p.stop()

    # 4. A log nobody reads (a full pipe) never holds up forwarding; lines are dropped and counted;
    #    SIGTERM still ends the proxy.
    r, w = os.pipe()
    p = Proxy("stalled", broker, "--log-queue", "1000", stdout=w)
    s = p.connect()
    t0 = time.time()
    n = 0
    try:
        for corr in range(20000):
            s.sendall(request(corr))
            read_frame(s)
            n += 1
    except (OSError, EOFError):
        pass
    took = time.time() - t0
    t0 = time.time()
    rc = p.stop()
    ended = time.time() - t0
    dropped = [l for l in open(p.err) if "log lines dropped" in l]
    check(n == 20000 and rc == 0 and ended < 10 and dropped,
          tag + "a log pipe nobody reads: %d of 20,000 requests answered in %.1f s, exit %s %.1f s after SIGTERM; %s"
          % (n, took, rc, ended, dropped[-1].strip()[-60:] if dropped else "no drop count printed"))
    os.close(r)
    os.close(w)


real = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--real-broker" else None
if real:
    pressure(int(real), "real broker: ")
    passed = sum(results)
    print("faults: %d passed, %d failed" % (passed, len(results) - passed))
    sys.exit(0 if passed == len(results) and results else 1)
pressure(broker, "")

# 5. SIGTERM with a request in flight: it is answered, the log is flushed, exit 0, nothing
#    listens afterwards.
slow_broker = fake_broker(delay=1.0)
p = Proxy("drain", slow_broker)
s = p.connect()
s.sendall(request(7))
time.sleep(0.2)
p.p.send_signal(signal.SIGTERM)
try:
    answered = struct.unpack(">i", read_frame(s)[:4])[0] == 7
except (OSError, EOFError):
    answered = False
rc = p.p.wait(40)
frames = [l for l in p.lines(p.log) if "event" not in l]
final = [l for l in open(p.err) if "stopped;" in l]
try:
    socket.create_connection(("127.0.0.1", p.port), timeout=2).close()
    listening = True
except OSError:
    listening = False
check(answered and rc == 0 and len(frames) == 2 and final and not listening,
      "SIGTERM with a request in flight: answered %s, exit %s, %d frames in the log, final counters %s, still listening %s"
      % (answered, rc, len(frames), "printed" if final else "missing", listening))

# 6. 200,000 pipelined requests to a broker that never answers: pairing stays linear.
silent = fake_broker("silent")
p = Proxy("pipelined", silent, "--quiet")
s = p.connect()
batch = b"".join(request(c) for c in range(1000))
cpu0 = p.cpu()
for _ in range(200):
    s.sendall(batch)
time.sleep(1)
spent = p.cpu() - cpu0
check(spent < 1.5 and p.alive(), "200,000 pipelined requests, no answers: %.2f CPU-s in the proxy" % spent)
s.close()
p.stop()

# 7. A listener that cannot be bound ends the process with a non-zero status.
taken = socket.socket()
taken.bind(("127.0.0.1", 0))
taken.listen(1)
rc = subprocess.run([KWIRE, "proxy", "--listen", "127.0.0.1:%d" % taken.getsockname()[1], "--upstream",
                     "127.0.0.1:%d" % broker, "--quiet"], stderr=subprocess.DEVNULL, timeout=20).returncode
check(rc != 0, "a bootstrap address already in use: exit %d" % rc)

passed = sum(results)
print("faults: %d passed, %d failed" % (passed, len(results) - passed))
sys.exit(0 if passed == len(results) and results else 1)
