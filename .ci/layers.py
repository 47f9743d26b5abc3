#!/usr/bin/env python3
"""Checks that the modules of kafka-wire (core/src) and of its runtime, kafka-wire-rt
(core/rt/src), depend on each other one way only, in each crate.

Reads every module of the crate's src folder (a top-level file or folder, and each submodule of `records`),
collects the modules its code names (`crate::NAME`, `super::NAME` inside `records/`), leaving
out comments, unit tests and the crate root (`lib.rs`, which only declares and re-exports), and fails when
the graph has a cycle, naming it. Prints the modules in an order that respects every edge.

    python3 .ci/layers.py
"""
import os
import re
import sys

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ROOTS = [("kafka-wire", os.path.join(HERE, "core", "src")), ("kafka-wire-rt", os.path.join(HERE, "core", "rt", "src"))]
ROOT = ROOTS[0][1]
# Modules left out of a crate's graph (see `edges`).
SEAMS = {os.path.join(HERE, "core", "rt", "src"): ("profile",)}


def code(text):
    """The text without comments (line comments, doc comments, block comments) and without the
    unit tests at the end of a module (a top-level `#[cfg(test)] mod NAME {`, and all after it):
    tests may use any module."""
    m = re.search(r"^#\[cfg\(test\)\]\s*\nmod \w+ \{", text, flags=re.M)
    if m:
        text = text[: m.start()]
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(re.sub(r"//.*$", "", line) for line in text.split("\n"))


def modules():
    mods = {}
    for entry in sorted(os.listdir(ROOT)):
        path = os.path.join(ROOT, entry)
        if entry == "lib.rs":
            continue
        if entry.endswith(".rs"):
            name = entry[:-3]
            files = [path]
            sub = os.path.join(ROOT, name)
            if name == "records":
                for f in sorted(os.listdir(sub)):
                    mods["records::" + f[:-3]] = [os.path.join(sub, f)]
            elif os.path.isdir(sub):
                # `name.rs` with its submodules in `name/`: one module.
                for d, _, fs in os.walk(sub):
                    files += [os.path.join(d, f) for f in sorted(fs) if f.endswith(".rs")]
            mods[name] = files
        elif os.path.isdir(path) and entry != "records" and not os.path.exists(path + ".rs"):
            files = []
            for d, _, fs in os.walk(path):
                files += [os.path.join(d, f) for f in fs if f.endswith(".rs")]
            mods[entry] = files
    return mods


def root_names(mods):
    """What the crate root makes visible: `crate::Item` re-exports and the `rt` facade, each
    mapped to the modules it comes from."""
    text = code(open(os.path.join(ROOT, "lib.rs"), encoding="utf-8").read())
    names = {}
    for src, items in re.findall(r"pub use ([a-z_]+)(?:::[a-z_]+)*::\{?([^;]*?)\}?;", text):
        for item in re.split(r"[,\s]+", items):
            item = item.split(" as ")[-1].strip()
            if item and src in mods:
                names.setdefault(item, set()).add(src)
    rt = re.search(r"mod rt \{(.*?)\n\}", text, re.S)
    if rt:
        names["rt"] = {m for m in re.findall(r"crate::([a-z_]+)", rt.group(1)) if m in mods}
    return names


def edges(mods):
    out = {m: set() for m in mods}
    roots = root_names(mods)
    for m, files in mods.items():
        for f in files:
            text = code(open(f, encoding="utf-8").read())
            for used in re.findall(r"\bcrate::([A-Za-z_]+)", text):
                top = m.split("::")[0]
                if used in mods and used != top:
                    out[m].add(used)
                elif used in roots:
                    out[m] |= {x for x in roots[used] if x != top}
            if re.search(r"\brt::", text) and m != "rt":
                out[m] |= {x for x in roots.get("rt", ()) if x != m.split("::")[0]}
            if m.startswith("records::"):
                for used in re.findall(r"\bsuper::([a-z_]+)", text):
                    sub = "records::" + used
                    if sub in mods and sub != m:
                        out[m].add(sub)
                    elif used not in ("super",) and sub not in mods:
                        out[m].add("records")
            if m == "records":
                for used in re.findall(r"\b(?:pub )?(?:use|mod) ([a-z_]+)", text):
                    if "records::" + used in mods:
                        out[m].add("records::" + used)
    # `rt` is the generated code's view of the runtime, declared in lib.rs: generated -> runtime.
    # The runtime's `profile` (core/rt/src/profile) is a seam, not a layer: it holds the bodies
    # that differ between the default build and `small-code` for functions of several layers
    # (read, write, compound, codec), which call it and on whose primitives it builds. It is
    # left out of the graph, and each layer is checked without it.
    for seam in SEAMS.get(ROOT, ()):
        out.pop(seam, None)
        for m in out:
            out[m].discard(seam)
    return out


def find_cycle(g):
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(g[n]):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(g):
        if n not in state:
            c = visit(n)
            if c:
                return c
    return None


def order(g):
    done, out = set(), []
    while len(out) < len(g):
        ready = sorted(n for n in g if n not in done and g[n] <= done)
        out += ready
        done |= set(ready)
    return out


def main():
    global ROOT
    for name, root in ROOTS:
        ROOT = root
        g = edges(modules())
        cycle = find_cycle(g)
        if cycle:
            print("layers: FAILED, an import cycle in %s: %s" % (name, " -> ".join(cycle)))
            sys.exit(1)
        print("layers: %s's %d modules depend one way; bottom to top:" % (name, len(g)))
        for n in order(g):
            print("  %-18s uses %s" % (n, ", ".join(sorted(g[n])) or "-"))


if __name__ == "__main__":
    main()
