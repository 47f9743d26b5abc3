#!/usr/bin/env python3
"""Lists the public API of kafka-wire's published crates from rustdoc's JSON output, one item a
line, so that a change to it shows in review (`docs/public-api.txt`).

    python3 .ci/public-api.py            # rebuild the JSON (nightly rustdoc) and print the list
    python3 .ci/public-api.py --check    # fail when docs/public-api.txt differs

Every item a user can name is listed by the path they name it by: modules, types with their
public fields and variants, traits with their items, functions and methods with their
signatures, constants, statics, macros, and the traits each type implements (derived and
hand-written; blanket and auto-trait impls are left out). Items hidden from the docs
(`#[doc(hidden)]`) are left out, except where a visible path re-exports them. The generated
message crates (`kafka-wire-msgs-a`, `-b`) are listed by module and type, without fields and
methods: every message module has the same shape, which the generator fixes.
"""
import json
import os
import subprocess
import sys

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TARGET = os.path.join(HERE, os.environ.get("DOCS_TARGET", os.path.join("target", "public-api")))
# (package, features, depth): depth "full" lists members, "types" stops at types.
CRATES = [
    ("kafka-wire-rt", "std,bytes,arbitrary,defmt", "full"),
    ("kafka-wire", "std,bytes,arbitrary,defmt,embedded-io,embedded-io-async", "full"),
    ("kafka-wire-msgs-a", "all", "types"),
    ("kafka-wire-msgs-b", "all", "types"),
    ("kafka-wire-ext", "tokio,proxy,tls", "full"),
    ("kwire", "", "full"),
    ("kafka-wire-client", "std,embedded-io,embedded-io-async,tokio", "full"),
]


def build(pkg, features):
    cmd = ["cargo", "+nightly", "rustdoc", "-q", "-p", pkg, "--lib"]
    if features == "all":
        cmd += ["--all-features"]
    elif features:
        cmd += ["--features", features]
    cmd += ["--", "-Z", "unstable-options", "--output-format", "json", "--document-hidden-items", "-A", "warnings"]
    env = dict(os.environ, CARGO_TARGET_DIR=TARGET, RUSTDOCFLAGS="")
    subprocess.run(cmd, check=True, cwd=HERE, env=env)
    with open(os.path.join(TARGET, "doc", pkg.replace("-", "_") + ".json")) as f:
        return json.load(f)


def ty(t):
    """A type from rustdoc JSON, as Rust source."""
    if t is None:
        return "()"
    (k, v), = t.items()
    if k == "primitive":
        return v
    if k == "generic":
        return v
    if k == "resolved_path":
        name = v["path"]
        args = v.get("args")
        return name + generic_args(args)
    if k == "borrowed_ref":
        lt = (v.get("lifetime") or "") + " " if v.get("lifetime") else ""
        return "&" + lt + ("mut " if v.get("is_mutable") else "") + ty(v["type"])
    if k == "raw_pointer":
        return "*" + ("mut " if v.get("is_mutable") else "const ") + ty(v["type"])
    if k == "slice":
        return "[" + ty(v) + "]"
    if k == "array":
        return "[" + ty(v["type"]) + "; " + str(v["len"]) + "]"
    if k == "tuple":
        return "(" + ", ".join(ty(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if k == "impl_trait":
        return "impl " + " + ".join(bound(b) for b in v)
    if k == "dyn_trait":
        return "dyn " + " + ".join(p["trait"]["path"] + generic_args(p["trait"].get("args")) for p in v["traits"])
    if k == "qualified_path":
        tr = v.get("trait")
        self_t = ty(v["self_type"])
        if tr:
            return f"<{self_t} as {tr['path']}>::{v['name']}"
        return f"{self_t}::{v['name']}"
    if k == "function_pointer":
        return "fn(" + ", ".join(ty(x[1]) for x in v["sig"]["inputs"]) + ")" + ret(v["sig"].get("output"))
    if k == "infer":
        return "_"
    return k


def generic_args(a):
    if not a:
        return ""
    if "angle_bracketed" in a:
        parts = []
        for g in a["angle_bracketed"]["args"]:
            (gk, gv), = g.items()
            parts.append(gv if gk == "lifetime" else ty(gv) if gk == "type" else str(gv.get("expr", gv)) if gk == "const" else "_")
        for c in a["angle_bracketed"].get("constraints", []):
            b = c.get("binding", {})
            if "equality" in b:
                (ek, ev), = b["equality"].items()
                parts.append(c["name"] + " = " + (ty(ev) if ek == "type" else str(ev)))
            else:
                parts.append(c["name"] + ": " + " + ".join(bound(x) for x in b.get("constraint", [])))
        return "<" + ", ".join(parts) + ">" if parts else ""
    if "parenthesized" in a:
        p = a["parenthesized"]
        return "(" + ", ".join(ty(x) for x in p["inputs"]) + ")" + ret(p.get("output"))
    return ""


def bound(b):
    if "trait_bound" in b:
        t = b["trait_bound"]["trait"]
        return t["path"] + generic_args(t.get("args"))
    if "outlives" in b:
        return b["outlives"]
    if "use" in b:
        return "use<..>"
    return "?"


def ret(o):
    return "" if o is None else " -> " + ty(o)


def generics(g):
    if not g:
        return ""
    ps = []
    for p in g.get("params", []):
        (k, v), = p["kind"].items()
        if k == "lifetime":
            ps.append(p["name"])
        elif k == "type":
            if v.get("is_synthetic"):
                continue
            bs = v.get("bounds") or []
            ps.append(p["name"] + (": " + " + ".join(bound(b) for b in bs) if bs else ""))
        elif k == "const":
            ps.append("const " + p["name"] + ": " + ty(v["type"]))
    return "<" + ", ".join(ps) + ">" if ps else ""


def sig(name, f):
    s = f["sig"]
    h = f.get("header", {})
    q = ("const " if h.get("is_const") else "") + ("async " if h.get("is_async") else "") + ("unsafe " if h.get("is_unsafe") else "")
    args = ", ".join((a[0] + ": " if a[0] not in ("self",) else "") + (ty(a[1]) if a[0] != "self" else "self: " + ty(a[1])) for a in s["inputs"])
    return f"{q}fn {name}{generics(f.get('generics'))}({args}){ret(s.get('output'))}"


def hidden(item):
    return any("doc(hidden)" in str(a) for a in item.get("attrs", []))


class Lister:
    def __init__(self, doc, depth):
        self.d = doc
        self.idx = doc["index"]
        self.depth = depth
        self.out = set()
        self.seen = set()

    def item(self, i):
        return self.idx.get(str(i))

    def ext_path(self, i):
        p = self.d["paths"].get(str(i))
        return "::".join(p["path"]) if p else None

    def walk_module(self, mid, path, via_use=False):
        key = (mid, path)
        if key in self.seen:
            return
        self.seen.add(key)
        m = self.item(mid)
        for cid in m["inner"]["module"]["items"]:
            c = self.item(cid)
            if c is None:
                continue
            self.visit(c, path)

    def visit(self, c, path, name=None):
        (k, v), = c["inner"].items()
        if c.get("visibility") != "public" and k not in ("impl",):
            return
        if k == "use":
            target = self.item(v["id"]) if v.get("id") is not None else None
            if v["is_glob"]:
                if target and "module" in target["inner"]:
                    self.walk_module(target["id"], path)
                else:
                    self.out.add(f"{path}::* = {v['source']}::* (glob re-export)")
                return
            if target is None:
                ext = self.ext_path(v["id"]) if v.get("id") is not None else None
                self.out.add(f"use {path}::{v['name']} = {ext or v['source']}")
                return
            self.visit(target, path, name=v["name"])
            return
        if hidden(c) and name is None:
            return
        if self.depth == "types" and k not in ("module", "struct", "enum", "trait", "type_alias"):
            return
        n = name or c.get("name")
        p = f"{path}::{n}"
        if k == "module":
            self.out.add(f"mod {p}")
            self.walk_module(c["id"], p)
        elif k == "struct":
            self.out.add(f"struct {p}{generics(v.get('generics'))}")
            if self.depth == "full":
                kind = v["kind"]
                fields = kind.get("plain", {}).get("fields", []) if isinstance(kind, dict) else []
                if isinstance(kind, dict) and "tuple" in kind:
                    fields = [f for f in kind["tuple"] if f is not None]
                for fid in fields:
                    f = self.item(fid)
                    if f and f.get("visibility") == "public" and not hidden(f):
                        self.out.add(f"field {p}::{f['name']}: {ty(f['inner']['struct_field'])}")
                self.impls(p, v.get("impls", []))
        elif k == "enum":
            self.out.add(f"enum {p}{generics(v.get('generics'))}")
            if self.depth == "full":
                for vid in v["variants"]:
                    var = self.item(vid)
                    if var and not hidden(var):
                        self.out.add(f"variant {p}::{var['name']}")
                self.impls(p, v.get("impls", []))
        elif k == "union":
            self.out.add(f"union {p}")
        elif k == "trait":
            self.out.add(f"trait {p}{generics(v.get('generics'))}")
            if self.depth == "full":
                for tid in v["items"]:
                    t = self.item(tid)
                    if t is None or hidden(t):
                        continue
                    self.member(p, t)
        elif k == "function":
            self.out.add(f"{sig(p, v)}")
        elif k == "constant":
            self.out.add(f"const {p}: {ty(v['type'])}")
        elif k == "static":
            self.out.add(f"static {p}: {ty(v['type'])}")
        elif k == "type_alias":
            self.out.add(f"type {p}{generics(v.get('generics'))} = {ty(v['type'])}")
        elif k in ("macro", "proc_macro"):
            self.out.add(f"macro {p}!")
        elif k == "trait_alias":
            self.out.add(f"trait alias {p}")
        else:
            self.out.add(f"{k} {p}")

    def member(self, owner, t):
        (k, v), = t["inner"].items()
        if k == "function":
            self.out.add(sig(f"{owner}::{t['name']}", v))
        elif k == "assoc_const":
            self.out.add(f"const {owner}::{t['name']}: {ty(v['type'])}")
        elif k == "assoc_type":
            self.out.add(f"type {owner}::{t['name']}")
        else:
            self.out.add(f"{k} {owner}::{t['name']}")

    def impls(self, p, ids):
        for iid in ids:
            im = self.item(iid)
            if im is None:
                continue
            v = im["inner"]["impl"]
            if v.get("is_synthetic") or v.get("blanket_impl") is not None:
                continue
            tr = v.get("trait")
            if tr is None:
                for mid in v["items"]:
                    m = self.item(mid)
                    if m and m.get("visibility") == "public" and not hidden(m):
                        self.member(p, m)
            else:
                self.out.add(f"impl {tr['path']}{generic_args(tr.get('args'))} for {p}")


def main():
    check = "--check" in sys.argv
    lines = []
    for pkg, feats, depth in CRATES:
        doc = build(pkg, feats)
        crate = pkg.replace("-", "_")
        ls = Lister(doc, depth)
        ls.walk_module(doc["root"], crate)
        lines.append(f"# {pkg} (features: {feats or 'default'})")
        lines.extend(sorted(ls.out))
        lines.append("")
    text = "\n".join(lines)
    path = os.path.join(HERE, "docs", "public-api.txt")
    if check:
        with open(path) as f:
            old = f.read()
        if old != text:
            import difflib
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True), "docs/public-api.txt (committed)", "public API (this build)"))
            print("public-api: the public API differs from docs/public-api.txt (regenerate with `python3 .ci/public-api.py > docs/public-api.txt` if the change is meant)")
            sys.exit(1)
        print(f"public-api: {sum(1 for l in text.splitlines() if l and not l.startswith('#'))} items, as committed")
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
