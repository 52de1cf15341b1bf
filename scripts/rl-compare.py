#!/usr/bin/env python3
"""Overlays the per-step curves of several `cudaperf-train rl` runs (their rl-log.jsonl) in one SVG, for the
ablations of docs/training.md ("The experiment"): the RL run and its outcome-only and single-turn twins.

    scripts/rl-compare.py OUT.svg NAME=RUN_DIR_OR_LOG [NAME=...] [--metrics reward_mean,turn1_correct,speedup_mean]

Metrics are keys of the step records (schema in docs/training.md, "Outputs"), plus turn1_correct
(correct_by_turn[0]). One panel per metric, x = the step's elapsed seconds (runs in parallel share a
clock), each run a line with a marker per step, and a light line for the running mean over 4 steps. The
SVG is written directly (no plotting package on the GPU host or in CI). Exit 2 on a missing or empty log.
"""
import json
import os
import sys

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]


def load(path):
    if os.path.isdir(path):
        path = os.path.join(path, "rl-log.jsonl")
    try:
        rows = [json.loads(l) for l in open(path) if l.strip()]
    except (OSError, ValueError) as e:
        print("rl-compare: cannot read %s: %s" % (path, e), file=sys.stderr)
        sys.exit(2)
    if not rows:
        print("rl-compare: %s has no step" % path, file=sys.stderr)
        sys.exit(2)
    return rows


def value(row, metric):
    if metric == "turn1_correct":
        c = row.get("correct_by_turn") or []
        return c[0] if c else None
    v = row.get(metric)
    return v if isinstance(v, (int, float)) else None


def main(argv):
    metrics = ["reward_mean", "turn1_correct", "speedup_mean"]
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == "--metrics" and i + 1 < len(argv):
            metrics = argv[i + 1].split(",")
            i += 2
            continue
        args.append(argv[i])
        i += 1
    if len(args) < 2 or any("=" not in a for a in args[1:]):
        print(__doc__, file=sys.stderr)
        return 2
    out = args[0]
    runs = [(a.split("=", 1)[0], load(a.split("=", 1)[1])) for a in args[1:]]
    W, PH, L, R, T, GAP = 760, 200, 70, 170, 30, 40
    H = T + len(metrics) * (PH + GAP)
    xmax = max(r[-1].get("elapsed", r[-1]["step"]) for _, r in runs) or 1
    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>']
    for m, metric in enumerate(metrics):
        top = T + m * (PH + GAP)
        vals = [value(row, metric) for _, rows in runs for row in rows]
        vals = [v for v in vals if v is not None]
        if not vals:
            continue
        lo, hi = min(vals + [0.0]), max(vals)
        if hi == lo:
            hi = lo + 1
        pw = W - L - R
        sx = lambda x: L + pw * x / xmax
        sy = lambda y: top + PH - PH * (y - lo) / (hi - lo)
        svg.append('<text x="%d" y="%d" font-weight="bold">%s per step</text>' % (L, top - 8, metric))
        svg.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>' % (L, top, pw, PH))
        for k in range(5):
            y = lo + (hi - lo) * k / 4
            svg.append('<text x="%d" y="%.1f" text-anchor="end">%.2f</text>' % (L - 4, sy(y) + 4, y))
            svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/>' % (L, L + pw, sy(y), sy(y)))
        svg.append('<text x="%d" y="%d" text-anchor="middle">seconds since the start of training</text>' % (L + pw / 2, top + PH + 28))
        for k in range(6):
            x = xmax * k / 5
            svg.append('<text x="%.1f" y="%d" text-anchor="middle">%.0f</text>' % (sx(x), top + PH + 14, x))
        for n, (name, rows) in enumerate(runs):
            color = COLORS[n % len(COLORS)]
            pts = [(row.get("elapsed", row["step"]), value(row, metric)) for row in rows]
            pts = [(x, y) for x, y in pts if y is not None]
            if not pts:
                continue
            svg.append('<polyline fill="none" stroke="%s" stroke-opacity="0.35" points="%s"/>' % (color, " ".join("%.1f,%.1f" % (sx(x), sy(y)) for x, y in pts)))
            run_mean = []
            for j in range(len(pts)):
                w = [y for _, y in pts[max(0, j - 3):j + 1]]
                run_mean.append((pts[j][0], sum(w) / len(w)))
            svg.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (color, " ".join("%.1f,%.1f" % (sx(x), sy(y)) for x, y in run_mean)))
            for x, y in pts:
                svg.append('<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>' % (sx(x), sy(y), color))
            svg.append('<text x="%d" y="%d" fill="%s">%s (%d steps)</text>' % (L + pw + 10, top + 14 + 16 * n, color, name, len(rows)))
        svg.append('<text x="%d" y="%d" fill="#666">thick: mean of 4 steps</text>' % (L + pw + 10, top + 14 + 16 * len(runs)))
    svg.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(svg) + "\n")
    print("rl-compare: %s (%d runs, %d panels)" % (out, len(runs), len(metrics)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
