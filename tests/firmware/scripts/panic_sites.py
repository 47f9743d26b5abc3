#!/usr/bin/env python3
"""Counts the code in a Cortex-M firmware ELF that can reach the panic handler.

Usage: panic_sites.py ELF [--objdump llvm-objdump-22] [--addr2line llvm-addr2line-22]
                          [--json OUT.json] [--list]

How (a documented approximation of a call graph):
- disassemble with `llvm-objdump -d -C`, and take every direct branch (`bl`, `b`, `b.w`, `bxx`,
  `cbz`/`cbnz`) whose target lies in another symbol as a call edge (tail calls included);
- the sinks are the panic handler (`rust_begin_unwind`, which LTO may inline away) and
  `core::panicking::*`; every symbol from which a sink is reachable through direct edges
  "reaches core::panicking";
- a symbol whose name starts with `core::`, `<core::` or `__rustc::` is a library panic helper
  (`core::panicking::panic_fmt`, `core::slice::index::slice_index_fail`, ...); the others are the
  program's own symbols (kafka-wire, its dependencies, the firmware) after inlining;
- a panic call site is a direct branch from one of the program's symbols to a panic helper; each
  is attributed with `llvm-addr2line -i` to the innermost source frame outside the Rust library
  (kafka-wire's core/src, the firmware, or another crate; `?` when LLVM merged the call and kept
  no line).
Indirect calls (through `fmt` trait objects or function pointers) are not followed: the
parse-path build has none on its own paths.
"""

import argparse
import collections
import json
import re
import subprocess
import sys

FUNC = re.compile(r"^([0-9a-f]+) <(.+)>:$")
INSN = re.compile(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$")
TARGET = re.compile(r"0x([0-9a-f]+) <(.+?)(?:\+0x[0-9a-f]+)?>")
BRANCH = re.compile(r"^(bl|blx|b|cbz|cbnz|b[a-z]{2})(\.w|\.n)?$")


def is_library(name):
    return name.startswith(("core::", "<core::", "__rustc::", "compiler_builtins::")) or "rust_begin_unwind" in name


def origin(frames, root):
    """The innermost frame outside the Rust library: (kind, 'file:line')."""
    for fn, loc in frames:
        path = loc.rsplit(":", 1)[0] if ":" in loc else loc
        if "/rustlib/src/rust/library/" in path or "/usr/src/rustc-" in path or path.startswith("/rustc/"):
            continue
        if path in ("??", ""):
            return "?", loc
        short = path.replace(root + "/", "") if root else path
        # kafka-wire's own code (the codec, its runtime and generated messages, the client),
        # also where LLVM kept the file but not the line (generated code).
        if re.search(r"/(core/(rt/|msgs-[ab]/)?src|client/src)/", path) and "registry" not in path:
            return "kafka-wire", f"{short}:{loc.rsplit(':', 1)[1]}"
        if loc.endswith(":0"):
            return "?", loc
        if "/tests/firmware/" in path:
            return "firmware", f"{short}:{loc.rsplit(':', 1)[1]}"
        m = re.search(r"/registry/src/[^/]+/([^/]+)/(.*)", path)
        if m:
            return "dependency", f"{m.group(1)}/{m.group(2)}:{loc.rsplit(':', 1)[1]}"
        return "other", f"{short}:{loc.rsplit(':', 1)[1]}"
    return "?", "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("elf")
    ap.add_argument("--objdump", default="llvm-objdump-22")
    ap.add_argument("--addr2line", default="llvm-addr2line-22")
    ap.add_argument("--root", default="")
    ap.add_argument("--json")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()

    dis = subprocess.run([a.objdump, "-d", "--no-show-raw-insn", "-C", a.elf], check=True,
                         capture_output=True, text=True).stdout
    funcs = {}            # name -> list of (addr, target name)
    cur = None
    for line in dis.splitlines():
        m = FUNC.match(line)
        if m:
            cur = m.group(2)
            funcs.setdefault(cur, [])
            continue
        m = INSN.match(line)
        if not (m and cur):
            continue
        if not BRANCH.match(m.group(2)):
            continue
        t = TARGET.search(m.group(3))
        if t and t.group(2) != cur:
            funcs[cur].append((int(m.group(1), 16), t.group(2)))

    # The handler may be inlined into core::panicking::panic_fmt: take both as sinks.
    handler = [f for f in funcs if "rust_begin_unwind" in f or f.startswith("core::panicking::")]
    if not handler:
        print("symbols: %d; nothing reaches the panic handler (no rust_begin_unwind, no core::panicking)" % len(funcs))
        if a.json:
            with open(a.json, "w") as fh:
                json.dump({"elf": a.elf, "symbols": len(funcs), "program_symbols_reaching_panic": 0,
                           "call_sites": 0, "call_sites_by_origin": {}, "sites": []}, fh, indent=1)
        return
    callers = collections.defaultdict(set)
    for f, edges in funcs.items():
        for _, t in edges:
            callers[t].add(f)
    reach = set(handler)
    todo = list(handler)
    while todo:
        f = todo.pop()
        for c in callers[f]:
            if c not in reach:
                reach.add(c)
                todo.append(c)

    helpers = sorted(f for f in reach if is_library(f))
    program = sorted(f for f in reach if not is_library(f))
    sites = [(addr, f, t) for f in program for addr, t in funcs[f] if t in helpers]
    sites.sort()

    frames_of = {}
    if sites:
        # One address at a time keeps the inline chains apart.
        for addr, _, _ in sites:
            o = subprocess.run([a.addr2line, "-f", "-i", "-C", "-e", a.elf, hex(addr)],
                               capture_output=True, text=True).stdout.splitlines()
            frames_of[addr] = list(zip(o[0::2], o[1::2]))

    by_origin = collections.Counter()
    rows = []
    for addr, f, t in sites:
        kind, loc = origin(frames_of.get(addr, []), a.root)
        by_origin[kind] += 1
        rows.append({"addr": hex(addr), "symbol": f, "helper": t, "origin": kind, "at": loc})

    result = {
        "elf": a.elf,
        "symbols": len(funcs),
        "program_symbols_reaching_panic": len(program),
        "panic_helpers": helpers,
        "call_sites": len(sites),
        "call_sites_by_origin": dict(by_origin),
        "sites": rows,
        "program_symbols": program,
    }
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(result, fh, indent=1)
    print(f"symbols: {len(funcs)}; program symbols that reach the panic handler: {len(program)}; "
          f"call sites to panic helpers: {len(sites)} "
          f"({', '.join(f'{k} {v}' for k, v in sorted(by_origin.items())) or 'none'})")
    print("panic helpers: " + (", ".join(helpers) or "none"))
    if a.list:
        for r in rows:
            print(f"  {r['addr']} {r['origin']:<10} {r['at']:<50} in {r['symbol']} -> {r['helper']}")


if __name__ == "__main__":
    main()
