#!/usr/bin/env python3
"""Load on `kwire proxy` beside HAProxy (TCP mode, the cost of a proxy that decodes nothing) and
a direct connection, on one machine, against a fake broker process.

  python3 benches/proxy_load.py [--connections 10000] [--seconds 8]

Needs target/release/kwire (cargo build --release -p kwire) and haproxy on the PATH; raises
`ulimit -n` for itself and its children. Prints Markdown tables for benches/RESULTS.md:

1. Connections: N clients connect through the proxy, each sends one ApiVersions request and
   keeps its connection open; the proxy's RSS and threads are read from /proc. Meanwhile a
   healthy client sends 2,000 requests one at a time; its latency p50/p99 and errors.
2. Throughput and CPU: one client sends 1 MiB Produce v3 requests (up to 8 in flight) for the
   given seconds and reads the answers; MB/s, and the proxy's CPU-seconds per GB (utime + stime
   from /proc), for: direct, HAProxy, `kwire proxy --quiet`, `kwire proxy --log FILE` (every
   frame decoded and logged as JSON).

The fake broker (this script, `broker PORT` mode, asyncio) answers ApiVersions v0 and Produce
v3 with frames built here from the protocol's layout, so the proxy decodes every frame strictly.
"""
import asyncio, os, resource, socket, statistics, struct, subprocess, sys, tempfile, threading, time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
KWIRE = os.path.join(ROOT, "target", "release", "kwire")
MAXCONN = 10050


def frame(payload):
    return struct.pack(">i", len(payload)) + payload


def api_versions(corr):
    return frame(struct.pack(">hhih", 18, 0, corr, -1))


def produce(corr, value):
    # Produce v3, request header v1: no transactional id, acks 1, one topic "t", partition 0.
    head = struct.pack(">hhih", 0, 3, corr, -1) + struct.pack(">hhi", -1, 1, 30000)
    topics = struct.pack(">ih", 1, 1) + b"t" + struct.pack(">ii", 1, 0) + struct.pack(">i", len(value))
    return struct.pack(">i", len(head) + len(topics) + len(value)) + head + topics + value


def answer(payload):
    key, _version, corr = struct.unpack(">hhi", payload[:8])
    if key == 0:
        # Produce v3 response: topic "t", partition 0, no error, offset, log append time; throttle.
        body = struct.pack(">ih", 1, 1) + b"t" + struct.pack(">iihqq", 1, 0, 0, 0, -1) + struct.pack(">i", 0)
    else:
        body = struct.pack(">hi", 0, 0)  # ApiVersions v0: no error, no keys
    return frame(struct.pack(">i", corr) + body)


class BrokerProtocol(asyncio.Protocol):
    def connection_made(self, transport):
        self.t = transport
        self.buf = bytearray()

    def data_received(self, data):
        self.buf += data
        off = 0
        out = []
        while len(self.buf) - off >= 4:
            size = struct.unpack_from(">i", self.buf, off)[0]
            if len(self.buf) - off < 4 + size:
                break
            out.append(answer(bytes(self.buf[off + 4:off + 12])))
            off += 4 + size
        if off:
            del self.buf[:off]
        if out:
            self.t.write(b"".join(out))


def run_broker(port):
    loop = asyncio.new_event_loop()
    server = loop.run_until_complete(loop.create_server(BrokerProtocol, "127.0.0.1", port, backlog=4096))
    loop.run_until_complete(server.serve_forever())


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port):
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("nothing listens on %d" % port)


def proc_status(pid, key):
    for line in open("/proc/%d/status" % pid):
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def cpu(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def read_exact(s, n):
    b = bytearray(n)
    v = memoryview(b)
    got = 0
    while got < n:
        k = s.recv_into(v[got:])
        if not k:
            raise EOFError
        got += k
    return b


def read_frame(s):
    return read_exact(s, struct.unpack(">i", read_exact(s, 4))[0])


def start_kwire(broker, *args):
    port = free_port()
    p = subprocess.Popen([KWIRE, "proxy", "--listen", "127.0.0.1:%d" % port, "--upstream", "127.0.0.1:%d" % broker]
                         + list(args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port)
    return p, port


def start_haproxy(broker, work):
    port = free_port()
    cfg = os.path.join(work, "haproxy.cfg")
    open(cfg, "w").write(
        "global\n  maxconn %d\n  nbthread 2\n"
        "defaults\n  mode tcp\n  timeout connect 10s\n  timeout client 600s\n  timeout server 600s\n"
        "frontend kafka\n  bind 127.0.0.1:%d\n  default_backend broker\n"
        "backend broker\n  server b1 127.0.0.1:%d\n" % (MAXCONN, port, broker))
    p = subprocess.Popen(["haproxy", "-f", cfg], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port)
    return p, port


async def hold(port, n):
    """Opens n connections, one ApiVersions answered on each; returns them."""
    conns = []
    for start in range(0, n, 500):
        async def one(i):
            r, w = await asyncio.open_connection("127.0.0.1", port)
            w.write(api_versions(i))
            size = struct.unpack(">i", await r.readexactly(4))[0]
            await r.readexactly(size)
            return r, w
        conns += await asyncio.gather(*(one(i) for i in range(start, min(n, start + 500))))
    return conns


def healthy(port, n=2000):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    lat, errors = [], 0
    for corr in range(n):
        t = time.perf_counter()
        try:
            s.sendall(api_versions(corr))
            read_frame(s)
        except (OSError, EOFError):
            errors += 1
            s = socket.create_connection(("127.0.0.1", port))
            continue
        lat.append(time.perf_counter() - t)
    s.close()
    lat.sort()
    return lat[len(lat) // 2] * 1e3, lat[int(len(lat) * 0.99)] * 1e3, errors


def throughput(port, seconds, window=8):
    value = os.urandom(1 << 20)
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sent = [0]
    done = [0]
    stop = [False]
    credit = threading.Semaphore(window)
    req = produce(0, value)

    def sender():
        corr = 0
        while not stop[0]:
            credit.acquire()
            s.sendall(req)
            corr += 1
            sent[0] += 1

    th = threading.Thread(target=sender, daemon=True)
    th.start()
    t0 = time.time()
    warm = t0 + 1
    counted_from = None
    n0 = 0
    while True:
        read_frame(s)
        done[0] += 1
        credit.release()
        now = time.time()
        if counted_from is None and now >= warm:
            counted_from, n0 = now, done[0]
        if counted_from is not None and now - counted_from >= seconds:
            break
    stop[0] = True
    elapsed = time.time() - counted_from
    frames = done[0] - n0
    s.close()
    # MB/s over the measured seconds; bytes over the whole run (warm-up included), as the CPU is.
    return frames * len(req) / elapsed / 1e6, done[0] * len(req)


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "broker":
        run_broker(int(sys.argv[2]))
        return
    n = 10000
    seconds = 8
    args = sys.argv[1:]
    if "--connections" in args:
        n = int(args[args.index("--connections") + 1])
    if "--seconds" in args:
        seconds = float(args[args.index("--seconds") + 1])
    global MAXCONN
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    want = 65536 if hard == resource.RLIM_INFINITY else min(65536, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    # A proxy holds two descriptors per connection: the limit caps the connections measured.
    if 2 * n + 200 > want:
        print("(`ulimit -n` is %d here: %d connections instead of %d)\n" % (want, (want - 200) // 2, n))
        n = (want - 200) // 2
    MAXCONN = n + 50
    work = tempfile.mkdtemp(prefix="kwire-load.")
    bport = free_port()
    broker = subprocess.Popen([sys.executable, os.path.abspath(__file__), "broker", str(bport)])
    wait_port(bport)
    procs = [broker]
    try:
        print("## Connections: %d held through each proxy, a healthy client beside them\n" % n)
        print("| through | RSS before | RSS with %d connections | per connection | threads | healthy client p50 / p99 | errors |" % n)
        print("|---|---|---|---|---|---|---|")
        for name in ["kwire proxy --quiet", "HAProxy 2.6 (TCP mode)"]:
            p, port = start_kwire(bport, "--quiet") if name.startswith("kwire") else start_haproxy(bport, work)
            procs.append(p)
            time.sleep(0.3)
            rss0 = proc_status(p.pid, "VmRSS")
            loop = asyncio.new_event_loop()
            conns = loop.run_until_complete(hold(port, n))
            time.sleep(1)
            rss = proc_status(p.pid, "VmRSS")
            threads = proc_status(p.pid, "Threads")
            p50, p99, errors = healthy(port)
            print("| %s | %.1f MiB | %.1f MiB | %.1f KiB | %d | %.3f / %.3f ms | %d |" % (
                name, rss0 / 1024, rss / 1024, (rss - rss0) / n, threads, p50, p99, errors))
            for _, w in conns:
                w.close()
            loop.run_until_complete(asyncio.sleep(0.5))
            loop.close()
            p.terminate()
            p.wait(30)
        print("\n## Throughput: 1 MiB Produce requests, up to 8 in flight, %g s\n" % seconds)
        print("| through | MB/s | of direct | proxy CPU-s per GB |")
        print("|---|---|---|---|")
        direct = None
        log = os.path.join(work, "frames.jsonl")
        for name in ["direct", "HAProxy 2.6 (TCP mode)", "kwire proxy --quiet", "kwire proxy --log FILE"]:
            p = None
            if name == "direct":
                port = bport
            elif name.startswith("HAProxy"):
                p, port = start_haproxy(bport, work)
            elif name.endswith("--quiet"):
                p, port = start_kwire(bport, "--quiet")
            else:
                p, port = start_kwire(bport, "--log", log)
            if p:
                procs.append(p)
            c0 = cpu(p.pid) if p else 0
            mbs, nbytes = throughput(port, seconds)
            spent = (cpu(p.pid) - c0) if p else 0
            direct = direct or mbs
            per_gb = "%.2f" % (spent / (nbytes / 1e9)) if p else "-"
            print("| %s | %.0f | %.0f%% | %s |" % (name, mbs, 100 * mbs / direct, per_gb))
            if p:
                p.terminate()
                p.wait(30)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


if __name__ == "__main__":
    main()
