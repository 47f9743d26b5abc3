#!/usr/bin/env python3
"""Seeds of the `conversation` fuzz target from the committed capture of real clients and a real
broker (tests/pcap/clients.pcapng): one seed per TCP connection, its client's frames then its
broker's, in the layout `kafka_wire_testkit::conversation_input` writes (a chunking seed byte,
the request stream's length as two big-endian bytes, the request stream, the response stream).
Frames are read with `kwire pcap --hex`; a stream stops before its first frame larger than the
target's buffer (4,092 bytes), so that the rest of the connection is explored too.

    python3 fuzz/conversation-seeds.py      # rewrites fuzz/corpus/conversation/capture-*
"""
import collections
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
MAX_FRAME = 4092
OUT = os.path.join(HERE, "corpus", "conversation")

lines = subprocess.run(
    ["cargo", "run", "-q", "-p", "kwire", "--", "pcap", "--hex", "tests/pcap/clients.pcapng"],
    cwd=ROOT, check=True, capture_output=True, text=True,
).stdout.splitlines()
streams = collections.OrderedDict()
for line in lines:
    ev = json.loads(line)
    if "hex" not in ev:
        continue
    conn = streams.setdefault(ev["connection"], {"request": [], "response": []})
    conn[ev["direction"]].append(bytes.fromhex(ev["hex"]))

os.makedirs(OUT, exist_ok=True)
for f in os.listdir(OUT):
    if f.startswith("capture-"):
        os.remove(os.path.join(OUT, f))
for i, (label, conn) in enumerate(streams.items()):
    parts = []
    for direction in ("request", "response"):
        out = b""
        for frame in conn[direction]:
            if len(frame) - 4 > MAX_FRAME or len(out) + len(frame) > 60000:
                break
            out += frame
        parts.append(out)
    seed = bytes([i % 256]) + len(parts[0]).to_bytes(2, "big") + parts[0] + parts[1]
    with open(os.path.join(OUT, "capture-%02d" % i), "wb") as f:
        f.write(seed)
print("%d seeds from %d connections" % (len(streams), len(streams)))
