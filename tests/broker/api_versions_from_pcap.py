#!/usr/bin/env python3
"""Extracts the broker's answer to the first ApiVersions v3 request in a pcapng capture of a
Kafka listener (tests/pcap/clients.pcapng), as the raw response frame.

    python3 tests/broker/api_versions_from_pcap.py CAPTURE PORT OUT

Reads the capture's Enhanced Packet Blocks (Ethernet or Linux loopback/null link types, IPv4,
TCP), reassembles each TCP direction by sequence number, finds the first client-to-PORT request
frame with API key 18 and version 3, and writes the frame the broker sent back with the same
correlation id on that connection: the 4-byte size, the response header and the body.
"""
import struct
import sys


def packets(path):
    data = open(path, "rb").read()
    i, links, endian = 0, [], "<"
    while i + 12 <= len(data):
        btype = struct.unpack(endian + "I", data[i:i + 4])[0]
        if btype == 0x0A0D0D0A:  # section header: byte order
            endian = "<" if data[i + 8:i + 12] == b"\x4d\x3c\x2b\x1a" else ">"
            links = []
        blen = struct.unpack(endian + "I", data[i + 4:i + 8])[0]
        body = data[i + 8:i + blen - 4]
        if btype == 1:  # interface description
            links.append(struct.unpack(endian + "H", body[:2])[0])
        elif btype == 6:  # enhanced packet
            iface, _, _, caplen, _ = struct.unpack(endian + "IIIII", body[:20])
            yield links[iface], body[20:20 + caplen]
        i += blen


def tcp(link, pkt):
    if link == 1:  # Ethernet
        if struct.unpack(">H", pkt[12:14])[0] != 0x0800:
            return None
        ip = pkt[14:]
    elif link == 0:  # BSD null/loopback
        ip = pkt[4:]
    elif link == 113:  # Linux cooked
        ip = pkt[16:]
    elif link == 101:  # raw IP
        ip = pkt
    else:
        raise SystemExit(f"api_versions_from_pcap.py: link type {link} not handled")
    if ip[0] >> 4 != 4 or ip[9] != 6:
        return None
    ihl = (ip[0] & 15) * 4
    total = struct.unpack(">H", ip[2:4])[0]
    t = ip[ihl:total]
    sport, dport, seq = struct.unpack(">HHI", t[:8])
    off = (t[12] >> 4) * 4
    return (ip[12:16], sport, ip[16:20], dport), seq, t[off:]


def main():
    path, port, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    streams = {}  # (src, sport, dst, dport) -> {seq: payload}
    first = {}  # (src, sport, dst, dport) -> index of its first packet with data
    for n, (link, pkt) in enumerate(packets(path)):
        r = tcp(link, pkt)
        if r and r[2]:
            streams.setdefault(r[0], {})[r[1]] = r[2]
            first.setdefault(r[0], n)

    def joined(key):
        segs = streams.get(key, {})
        out, nxt = b"", None
        for seq in sorted(segs):
            if nxt is not None and seq != nxt:
                if seq < nxt:
                    continue
                raise SystemExit("api_versions_from_pcap.py: a gap in a TCP stream")
            out += segs[seq]
            nxt = seq + len(segs[seq])
        return out

    def frames(b):
        i = 0
        while i + 4 <= len(b):
            n = struct.unpack(">i", b[i:i + 4])[0]
            yield b[i:i + 4 + n]
            i += 4 + n

    for key in sorted(streams, key=first.get):
        src, sport, dst, dport = key
        if dport != port:
            continue
        for f in frames(joined(key)):
            k, v, corr = struct.unpack(">hhi", f[4:12])
            if (k, v) != (18, 3):
                continue
            for r in frames(joined((dst, dport, src, sport))):
                if struct.unpack(">i", r[4:8])[0] == corr:
                    with open(out, "wb") as o:
                        o.write(r)
                    print(f"api_versions_from_pcap.py: client port {sport}, correlation id {corr}: "
                          f"{len(r)} bytes -> {out}")
                    return
    raise SystemExit("api_versions_from_pcap.py: no answered ApiVersions v3 request")


if __name__ == "__main__":
    main()
