#!/usr/bin/env python3
"""Draws a Chrome trace (the JSON the `trace` example writes) as an SVG timeline.

    scripts/trace-svg.py trace.json docs/trace.svg

One band per track (each host thread, and the example's device track), spans nested by depth,
each coloured by its name and labelled where it is wide enough, on a millisecond axis. Only the
standard library: the picture in docs/tracing.md is made with it.
"""
import json
import sys
import zlib

WIDTH = 1200
LEFT = 230
ROW = 18
GAP = 10
AXIS = 28


def intervals(events):
    """(track names, {tid: [(start_us, end_us, depth, name)]}) from B/E pairs and X events."""
    names, spans, open_ = {}, {}, {}
    for e in events:
        ph, tid = e.get("ph"), e.get("tid")
        if ph == "M" and e.get("name") == "thread_name":
            names[tid] = e["args"]["name"]
        elif ph == "B":
            open_.setdefault(tid, []).append((e["ts"], e["name"]))
        elif ph == "E" and open_.get(tid):
            start, name = open_[tid].pop()
            spans.setdefault(tid, []).append((start, e["ts"], len(open_[tid]), name))
        elif ph == "X":
            spans.setdefault(tid, []).append((e["ts"], e["ts"] + e["dur"], 0, e["name"]))
    return names, spans


def colour(name):
    h = zlib.crc32(name.encode()) % 360
    return f"hsl({h},55%,70%)"


def main(src, dst):
    with open(src) as f:
        events = json.load(f)
    names, spans = intervals(events)
    all_spans = [s for track in spans.values() for s in track]
    t0 = min(s[0] for s in all_spans)
    t1 = max(s[1] for s in all_spans)
    scale = (WIDTH - LEFT - 10) / max(t1 - t0, 1.0)
    # Host threads first; the example's device track has the largest id.
    tracks = sorted(spans)
    out, y = [], AXIS
    for tid in tracks:
        depth = 1 + max(s[2] for s in spans[tid])
        label = names.get(tid, f"thread {tid}")
        out.append(f'<text x="4" y="{y + 13}" font-size="12">{escape(label[:36])}</text>')
        for start, end, d, name in spans[tid]:
            x = LEFT + (start - t0) * scale
            w = max((end - start) * scale, 0.5)
            ry = y + d * ROW
            out.append(
                f'<rect x="{x:.1f}" y="{ry}" width="{w:.1f}" height="{ROW - 2}" '
                f'fill="{colour(name)}" stroke="#555" stroke-width="0.3">'
                f"<title>{escape(name)}: {(end - start) / 1000:.3f} ms</title></rect>"
            )
            if w > 7 * len(name):
                out.append(f'<text x="{x + 2:.1f}" y="{ry + 12}" font-size="10">{escape(name)}</text>')
        y += depth * ROW + GAP
    # The axis: the smallest step of 1, 2 or 5 times a power of ten milliseconds that gives
    # at most 12 ticks.
    span_ms = (t1 - t0) / 1000
    steps = (m * 10.0**k for k in range(-3, 7) for m in (1, 2, 5))
    step = next(s for s in steps if span_ms / s <= 12)
    tick, axis = 0.0, []
    while tick <= span_ms:
        x = LEFT + tick * 1000 * scale
        axis.append(f'<line x1="{x:.1f}" y1="{AXIS - 6}" x2="{x:.1f}" y2="{y}" stroke="#ddd"/>')
        axis.append(f'<text x="{x + 2:.1f}" y="{AXIS - 10}" font-size="10">{tick:g} ms</text>')
        tick += step
    svg = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{y}" '
        f'font-family="sans-serif">',
        f'<rect width="{WIDTH}" height="{y}" fill="white"/>',
        *axis,
        *out,
        "</svg>",
    ]
    with open(dst, "w") as f:
        f.write("\n".join(svg) + "\n")


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: trace-svg.py trace.json out.svg")
    main(sys.argv[1], sys.argv[2])
