#!/usr/bin/env python3
"""Rebuilds schemas/derived/releases.tsv: for each Apache Kafka release from 3.0 on whose
kafka-clients jar Maven Central serves, every API's request version range, read from the
request schemas inside that jar (common/message/*Request.json).

    python3 schemas/tools/releases.py            # every release from 3.0.0 to 4.4.x that is served
    python3 schemas/tools/releases.py 4.4.0      # add or refresh one release

Columns: release, API key, the schema's name in that release, lowest and highest valid version,
whether the highest is marked unstable (latestVersionUnstable: a broker does not advertise it by
default), and the listeners the schema names. Needs Maven (mvn).
"""
import io, json, os, re, subprocess, sys, tempfile, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "derived", "releases.tsv")
# Candidate minor releases: 3.0 to 4.4. For each, x.y.0, x.y.1, ... are fetched until Maven
# Central answers that it has no such artifact.
MINORS = [(3, b) for b in range(10)] + [(4, b) for b in range(5)]


def strip_comments(text):
    """JSON with // and /* */ comments (Kafka's schema files) to plain JSON; strings kept."""
    out, i, n, in_str = [], 0, len(text), False
    while i < n:
        ch = text[i]
        if in_str:
            out.append(ch)
            if ch == "\\":
                out.append(text[i + 1])
                i += 1
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
            out.append(ch)
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 2
            continue
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def versions(spec):
    if spec == "none":
        return None
    if spec.endswith("+"):
        raise ValueError(f"open range {spec} in validVersions")
    lo, _, hi = spec.partition("-")
    return int(lo), int(hi or lo)


def fetch(release, tmp):
    r = subprocess.run(
        ["mvn", "-q", "-B", "dependency:copy", f"-Dartifact=org.apache.kafka:kafka-clients:{release}:jar",
         f"-DoutputDirectory={tmp}"], capture_output=True, text=True)
    if r.returncode != 0:
        if any(m in r.stdout + r.stderr for m in ("Could not find artifact", "Failure to find", "Unable to find artifact")):
            return None
        sys.stderr.write(r.stdout + r.stderr)
        raise SystemExit(f"releases: could not download kafka-clients {release}")
    return os.path.join(tmp, f"kafka-clients-{release}.jar")


def rows(release, jar):
    out = []
    with zipfile.ZipFile(jar) as z:
        for name in z.namelist():
            if not (name.startswith("common/message/") and name.endswith("Request.json")):
                continue
            s = json.loads(strip_comments(z.read(name).decode("utf-8")))
            if s.get("type") != "request":
                continue
            v = versions(s["validVersions"])
            if v is None:
                continue
            out.append((release, s["apiKey"], s["name"], v[0], v[1],
                        "true" if s.get("latestVersionUnstable") else "false",
                        ",".join(s.get("listeners", []))))
    return sorted(out, key=lambda r: r[1])


def key(release):
    return tuple(int(x) for x in release.split("."))


def main():
    explicit = sys.argv[1:]
    table = {}
    if os.path.exists(OUT):
        for line in open(OUT):
            if line.startswith("#") or line.startswith("release\t"):
                continue
            f = line.rstrip("\n").split("\t")
            table.setdefault(f[0], []).append((f[0], int(f[1]), f[2], int(f[3]), int(f[4]), f[5], f[6]))
    def one(release, tmp):
        jar = fetch(release, tmp)
        if jar is None:
            print(f"releases: kafka-clients {release} is not served")
            return False
        table[release] = rows(release, jar)
        print(f"releases: {release}: {len(table[release])} APIs")
        os.remove(jar)
        return True

    with tempfile.TemporaryDirectory() as tmp:
        if explicit:
            for release in explicit:
                if not one(release, tmp):
                    raise SystemExit(1)
        else:
            for a, b in MINORS:
                c = 0
                while one(f"{a}.{b}.{c}", tmp):
                    c += 1
    with open(OUT, "w") as o:
        o.write("# Request version ranges of every API in each Apache Kafka release from 3.0 on, read from the\n"
                "# request schemas in that release's kafka-clients jar by schemas/tools/releases.py.\n")
        o.write("release\tapi_key\tname\tmin\tmax\tlatest_unstable\tlisteners\n")
        for release in sorted(table, key=key):
            for r in table[release]:
                o.write("\t".join(str(x) for x in r) + "\n")
    print(f"releases: wrote {OUT}: {len(table)} releases")


if __name__ == "__main__":
    main()
