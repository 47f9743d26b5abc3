#!/usr/bin/env python3
"""Draws benches/chart.svg from the instruction-count table in benches/RESULTS.md.

For each benchmark case, three bars on a log scale: kafka-wire's view parse, kafka-wire's owned
decode, and kafka-protocol's decode, in callgrind instructions per operation on the same bytes.

    python3 benches/chart.py            # writes benches/chart.svg
    python3 benches/chart.py --check    # fails if benches/chart.svg is not what RESULTS.md gives
"""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "RESULTS.md")
OUT = os.path.join(HERE, "chart.svg")
SERIES = [
    ("kafka-wire view parse", "#2b6cb0"),
    ("kafka-wire owned decode", "#68a0d8"),
    ("kafka-protocol 0.18 decode", "#c05621"),
]


def num(s):
    return int(s.replace(",", "").strip())


def read_rows(path):
    """case -> [view parse Ir, owned decode Ir, their decode Ir], in table order."""
    rows = {}
    for line in open(path, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 8 or not cells[2].endswith("/ their decode"):
            continue
        case, op = cells[0], cells[2]
        if not cells[3] or not cells[6]:
            continue
        r = rows.setdefault(case, [None, None, None])
        if op == "view parse / their decode":
            r[0], r[2] = num(cells[3]), num(cells[6])
        elif op == "owned decode / their decode":
            r[1] = num(cells[3])
    return [(c, r) for c, r in rows.items() if None not in r]


def svg(rows):
    bar_h, gap, left, right, top = 11, 12, 230, 40, 48
    group_h = len(SERIES) * bar_h + gap
    width = 860
    height = top + len(rows) * group_h + 40
    lo = 10 ** math.floor(math.log10(min(v for _, r in rows for v in r)))
    hi = 10 ** math.ceil(math.log10(max(v for _, r in rows for v in r)))
    span = math.log10(hi) - math.log10(lo)
    plot_w = width - left - right

    def x(v):
        return left + plot_w * (math.log10(v) - math.log10(lo)) / span

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="16" font-size="13" font-weight="bold">'
        "Decode cost, callgrind instructions per operation (log scale; fewer is better)</text>",
    ]
    for i, (name, colour) in enumerate(SERIES):
        lx = left + i * 210
        out.append(f'<rect x="{lx}" y="26" width="10" height="10" fill="{colour}"/>')
        out.append(f'<text x="{lx + 14}" y="35">{name}</text>')
    p = 0
    while 10 ** p <= hi:
        if 10 ** p >= lo:
            gx = x(10 ** p)
            out.append(f'<line x1="{gx:.1f}" y1="{top - 4}" x2="{gx:.1f}" y2="{height - 30}" stroke="#ddd"/>')
            out.append(f'<text x="{gx:.1f}" y="{height - 16}" text-anchor="middle">1e{p}</text>')
        p += 1
    for g, (case, values) in enumerate(rows):
        y0 = top + g * group_h
        out.append(f'<text x="{left - 8}" y="{y0 + 1.5 * bar_h + 4}" text-anchor="end">{case}</text>')
        for s, v in enumerate(values):
            y = y0 + s * bar_h
            out.append(
                f'<rect x="{left}" y="{y}" width="{x(v) - left:.1f}" height="{bar_h - 2}" fill="{SERIES[s][1]}"/>'
            )
            out.append(f'<text x="{x(v) + 4:.1f}" y="{y + bar_h - 3}" font-size="9">{v:,}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    rows = read_rows(RESULTS)
    if not rows:
        sys.exit("chart.py: no decode rows found in benches/RESULTS.md")
    text = svg(rows)
    if "--check" in sys.argv[1:]:
        if not os.path.exists(OUT) or open(OUT, encoding="utf-8").read() != text:
            sys.exit("chart.py: benches/chart.svg is stale; run python3 benches/chart.py")
        print(f"chart.py: benches/chart.svg matches RESULTS.md ({len(rows)} cases)")
        return
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"chart.py: wrote benches/chart.svg ({len(rows)} cases)")


if __name__ == "__main__":
    main()
