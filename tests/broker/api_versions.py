#!/usr/bin/env python3
"""Sends one ApiVersions request to a Kafka listener and writes the raw response frame.

    python3 tests/broker/api_versions.py HOST:PORT VERSION OUT

VERSION 0 sends a request header v1 with an empty body; VERSION 3 sends header v2 and a v3 body
naming the client software ("kwire-capture", "1"); VERSION 5 sends the same header and body
and a v5 body (v3's fields, then a null cluster id and node id -1): a broker that supports v5
answers in v5's shape, an older one in version 0's shape with UNSUPPORTED_VERSION. OUT gets the whole response frame: the 4-byte
size, the response header (correlation id 1) and the body, exactly as the listener sent them.
"""
import socket
import struct
import sys

CLIENT_ID = b"kwire-capture"


def request(version):
    header = struct.pack(">hhih", 18, version, 1, len(CLIENT_ID)) + CLIENT_ID
    if version == 0:
        body = b""
    elif version in (3, 5):
        header += b"\x00"  # header v2: no tagged fields
        name, ver = b"kwire-capture", b"1"
        # compact strings (length + 1 as an unsigned varint, all < 128 here), no tagged fields
        body = bytes([len(name) + 1]) + name + bytes([len(ver) + 1]) + ver
        if version == 5:
            body += b"\x00" + struct.pack(">i", -1)  # ClusterId: null compact string; NodeId -1
        body += b"\x00"
    else:
        raise SystemExit(f"api_versions.py: version {version} is not one this script sends")
    msg = header + body
    return struct.pack(">i", len(msg)) + msg


def read_exact(s, n):
    out = b""
    while len(out) < n:
        chunk = s.recv(n - len(out))
        if not chunk:
            raise SystemExit("api_versions.py: the listener closed the connection")
        out += chunk
    return out


def main():
    host, _, port = sys.argv[1].rpartition(":")
    version, out = int(sys.argv[2]), sys.argv[3]
    with socket.create_connection((host, int(port)), 10) as s:
        s.sendall(request(version))
        size = read_exact(s, 4)
        frame = size + read_exact(s, struct.unpack(">i", size)[0])
    if struct.unpack(">i", frame[4:8])[0] != 1:
        raise SystemExit("api_versions.py: the response's correlation id is not 1")
    with open(out, "wb") as f:
        f.write(frame)
    print(f"api_versions.py: {sys.argv[1]} ApiVersions v{version}: {len(frame)} bytes -> {out}")


if __name__ == "__main__":
    main()
