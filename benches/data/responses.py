"""Cuts the broker's response frames out of tests/pcap/clients.pcapng into benches/data/.

    python3 benches/data/responses.py [CAPTURE]

Reads the capture (pcapng, Ethernet over loopback, IPv4 or IPv6, TCP to port 9092), puts each
connection's bytes back in order in both directions, cuts both streams into size-prefixed
frames, and pairs each response with the request of the same correlation id on its
connection (API key and version come from the request header). Writes, in capture order:

- responses.bin: every response frame, size prefix included, one after the other, each
  byte for byte as the broker sent it;
- responses.tsv: one line per frame: its offset and length in responses.bin, the API key
  and version of the request it answers, its correlation id, the client's port.

Responses are kept only when their request was seen; requests without an answer (a Produce
with acks 0) are skipped. Only the standard library is used.
"""

import struct
import sys
from pathlib import Path

BROKER_PORT = 9092


def blocks(data):
    """(type, body) of every pcapng block (little-endian sections only)."""
    i = 0
    while i + 12 <= len(data):
        kind, length = struct.unpack_from("<II", data, i)
        if length < 12:
            raise ValueError(f"pcapng block of length {length} at {i}")
        yield kind, data[i + 8 : i + length - 4]
        i += length


def packets(data):
    """Link-layer bytes of every captured packet, in file order."""
    for kind, body in blocks(data):
        if kind == 0x0A0D0D0A:
            if struct.unpack_from("<I", body, 0)[0] != 0x1A2B3C4D:
                raise ValueError("big-endian pcapng sections are not read here")
        elif kind == 1:
            link = struct.unpack_from("<H", body, 0)[0]
            if link != 1:
                raise ValueError(f"link type {link}: only Ethernet is read here")
        elif kind == 6:  # enhanced packet block
            _iface, _hi, _lo, captured, _orig = struct.unpack_from("<IIIII", body, 0)
            yield body[20 : 20 + captured]
        elif kind == 3:  # simple packet block
            yield body[4:]


def tcp_segment(frame):
    """(src ip, src port, dst ip, dst port, seq, flags, payload) of a TCP packet, or None."""
    ethertype = struct.unpack_from("!H", frame, 12)[0]
    ip = frame[14:]
    if ethertype == 0x0800:
        ihl = (ip[0] & 0x0F) * 4
        total = struct.unpack_from("!H", ip, 2)[0]
        if ip[9] != 6:
            return None
        src, dst = ip[12:16], ip[16:20]
        tcp = ip[ihl:total]
    elif ethertype == 0x86DD:
        if ip[6] != 6:  # no extension headers on loopback TCP
            return None
        plen = struct.unpack_from("!H", ip, 4)[0]
        src, dst = ip[8:24], ip[24:40]
        tcp = ip[40 : 40 + plen]
    else:
        return None
    sport, dport, seq = struct.unpack_from("!HHI", tcp, 0)
    offset = (tcp[12] >> 4) * 4
    flags = tcp[13]
    return src, sport, dst, dport, seq, flags, tcp[offset:]


def streams(data):
    """{(client ip, client port): [request bytes, response bytes]}, each direction in order."""
    segs = {}
    for frame in packets(data):
        s = tcp_segment(frame)
        if s is None:
            continue
        src, sport, dst, dport, seq, flags, payload = s
        if dport == BROKER_PORT:
            key, way = (src, sport), 0
        elif sport == BROKER_PORT:
            key, way = (dst, dport), 1
        else:
            continue
        conn = segs.setdefault(key, [{"isn": None, "data": {}}, {"isn": None, "data": {}}])
        d = conn[way]
        if flags & 0x02:  # SYN: the next byte is the first of the stream
            d["isn"] = (seq + 1) & 0xFFFFFFFF
            continue
        if payload:
            d["data"].setdefault(seq, payload)
    out = {}
    for key, dirs in segs.items():
        joined = []
        for d in dirs:
            if d["isn"] is None and d["data"]:
                raise ValueError(f"connection {key}: no SYN seen")
            buf = bytearray()
            pos = d["isn"]
            pending = dict(d["data"])
            while pending:
                # The segment that starts at or before the next byte wanted and reaches past it.
                best = None
                for seq, p in pending.items():
                    rel = (pos - seq) & 0xFFFFFFFF
                    if rel < len(p) and (best is None or len(p) - rel > best[1]):
                        best = (seq, len(p) - rel)
                if best is None:
                    # Every remaining segment is a retransmission of bytes already taken.
                    if all(((pos - seq) & 0xFFFFFFFF) < 0x80000000 for seq in pending):
                        break
                    raise ValueError(f"connection {key}: a gap in the stream at {pos}")
                seq, _ = best
                p = pending.pop(seq)
                rel = (pos - seq) & 0xFFFFFFFF
                buf += p[rel:]
                pos = (pos + len(p) - rel) & 0xFFFFFFFF
            joined.append(bytes(buf))
        out[key] = joined
    return out


def frames(stream):
    """Size-prefixed frames of a stream; a partial frame at the end is an error."""
    i = 0
    while i < len(stream):
        size = struct.unpack_from("!i", stream, i)[0]
        if size < 0 or i + 4 + size > len(stream):
            raise ValueError(f"a partial or negative frame at {i}")
        yield stream[i : i + 4 + size]
        i += 4 + size


def main():
    here = Path(__file__).resolve().parent
    repo = here.parent.parent
    capture = Path(sys.argv[1]) if len(sys.argv) > 1 else repo / "tests/pcap/clients.pcapng"
    conns = streams(capture.read_bytes())
    blob = bytearray()
    lines = ["offset\tlen\tapi_key\tapi_version\tcorrelation_id\tclient_port"]
    # Connections in the order of their first appearance (dict order), frames in stream order.
    for (ip, port), (requests, responses) in conns.items():
        asked = {}
        for f in frames(requests):
            key, version, corr = struct.unpack_from("!hhi", f, 4)
            asked[corr] = (key, version)
        for f in frames(responses):
            corr = struct.unpack_from("!i", f, 4)[0]
            if corr not in asked:
                raise ValueError(f"port {port}: a response to correlation id {corr}, never asked")
            key, version = asked.pop(corr)
            lines.append(f"{len(blob)}\t{len(f)}\t{key}\t{version}\t{corr}\t{port}")
            blob += f
    (here / "responses.bin").write_bytes(bytes(blob))
    (here / "responses.tsv").write_text("\n".join(lines) + "\n")
    print(f"{len(lines) - 1} response frames, {len(blob)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
