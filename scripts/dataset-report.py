#!/usr/bin/env python3
"""The measured side of docs/dataset.md, made from the stored H200 results.

    scripts/dataset-report.py [--results FILE.jsonl.zst ...] [--manifest DIR/manifest.jsonl] [--svg-dir DIR]
                              [--summary | --write-doc]

Results default to data/measured/dataset-h200/*.jsonl.zst (cudaperf-eval results with "dataset_task" and
"dataset_impl"); the manifest to a fresh `cudaperf-dataset generate` (--dataset-tool, default
build/bin/cudaperf-dataset). Prints, or with --write-doc replaces the part of docs/dataset.md between
the report markers: counts per family and split, the tasks measured against issue 15's goal, the worker's
time per implementation per shard, outcome counts, the spread of speedups within tasks (best over worst
implementation, median per family), and how often each implementation labeled "fast" beats the baseline,
per family; two figures (docs/dataset-spread.svg: best over worst per task and family;
docs/dataset-repeat.svg: implementations measured twice, older against newer). A stored result whose candidate_sha256 is not that of the implementation the generator makes
now (a generator fix since it was measured) is stale: named, and left out of the figures, with the rest of its
task; where a later shard measured the same implementation again, the older result is superseded (named too, and
left out) and the task counts as current. An implementation measured again while current (a shard that ran
without the earlier shard's results at hand) counts once, with its newest result; the pairs of results say how
far two measurements of the same files agree (speed over the baseline, and the order of a task's
implementations). --summary prints outcome counts only (the GPU script's last lines).
"""
import argparse
import collections
import glob
import hashlib
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
GOAL_TASKS = 1000  # issue 15: at least 1,000 tasks measured
BEGIN, END = "<!-- BEGIN dataset-report (scripts/dataset-report.py --write-doc) -->", "<!-- END dataset-report -->"


class InputError(Exception):
    """Bad input (a results file that cannot be read or holds no JSON objects): main prints it and exits 2."""


def read_results(paths):
    results = []
    for p in paths:
        if not os.path.isfile(p):
            raise InputError(f"{p}: no such results file")
        if p.endswith(".zst"):
            z = subprocess.run(["zstd", "-dc", p], capture_output=True, text=True)
            if z.returncode != 0:
                raise InputError(f"{p}: zstd -dc failed: {z.stderr.strip()}")
            text = z.stdout
        else:
            text = open(p, errors="replace").read()
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    r = json.loads(line)
                except json.JSONDecodeError as e:
                    raise InputError(f"{p}:{n}: not JSON: {e}")
                if not isinstance(r, dict):
                    raise InputError(f"{p}:{n}: not a JSON object")
                r["_shard"] = os.path.basename(p)
                results.append(r)
    return results


def read_manifest(path, tool):
    """The manifest's entries, each with "_root": the dataset directory (for the implementations' hashes)."""
    if path is None:
        out = tempfile.mkdtemp(prefix="dataset-report-")
        subprocess.run([tool, "generate", "--out", out, "--quiet"], check=True)
        path = os.path.join(out, "manifest.jsonl")
    root = os.path.dirname(os.path.abspath(path))
    entries = [json.loads(line) for line in open(path)]
    for e in entries:
        e["_root"] = root
    return entries


def is_current(r, entry):
    """The result is of the implementation the generator makes now (same SHA-256 of the source)."""
    if entry is None:
        return False
    path = os.path.join(entry["_root"], entry["dir"], "impls", r.get("dataset_impl", ""))
    if not os.path.isfile(path):
        return False
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest() == r.get("candidate_sha256")


def split_current(manifest, results):
    """(the current results of the tasks that are not stale, task -> its stored results that are not current
    and not measured again since: a stale task, task -> its older results that a current result of the same
    implementation supersedes: measured again after a generator fix).

    A result is current when it is of the implementation the generator makes now (is_current). A stale result
    of an implementation that also has a current result (a later shard measured the task again) is superseded;
    any other stale result makes its task stale, and the task's current results are left out with it."""
    entries = {e["task"]: e for e in manifest}
    current, old = [], []
    for r in results:
        (current if is_current(r, entries.get(r.get("dataset_task"))) else old).append(r)
    remeasured = {(r.get("dataset_task"), r.get("dataset_impl")) for r in current}
    stale, superseded = {}, {}
    for r in old:
        bucket = superseded if (r.get("dataset_task"), r.get("dataset_impl")) in remeasured else stale
        bucket.setdefault(r.get("dataset_task"), []).append(r)
    return [r for r in current if r.get("dataset_task") not in stale], stale, superseded


def newest_only(current):
    """(the newest result of each (task, implementation), [(older, newer)] for each implementation measured more
    than once while current). Shards are named results-<UTC stamp>, so their names sort in time order."""
    by_impl = {}
    for r in current:
        by_impl.setdefault((r.get("dataset_task"), r.get("dataset_impl")), []).append(r)
    newest, pairs = [], []
    for rs in by_impl.values():
        rs.sort(key=lambda r: r["_shard"])
        newest.append(rs[-1])
        pairs += [(a, rs[-1]) for a in rs[:-1]]
    return newest, pairs


def repeat_speeds(pairs):
    """(task, implementation, older speed, newer speed) over the baseline of each implementation measured twice,
    both results `ok`."""
    rows = []
    for old, new in pairs:
        if old.get("outcome") == new.get("outcome") == "ok":
            so, sn = relative_speed(old), relative_speed(new)
            if so is not None and sn is not None:
                rows.append((new.get("dataset_task"), new.get("dataset_impl"), so, sn))
    return rows


def repeat_agreement(speeds):
    """How two measurements of the same implementations agree (speeds: repeat_speeds): the speeds over the
    baseline (|log ratio|), and per task the order of its implementations (pairs of implementations ordered the
    same way in both runs; and whether the fastest is the same), only within tasks with at least two
    implementations measured twice. None without speeds."""
    by_task = {}
    for task, impl, so, sn in speeds:
        by_task.setdefault(task, []).append((impl, so, sn))
    ratios, same, pairs_n, clear_same, clear_n, best_same, tasks = [], 0, 0, 0, 0, 0, 0
    for rows in by_task.values():
        ratios += [abs(math.log(sn / so)) for _, so, sn in rows]
        if len(rows) < 2:
            continue
        tasks += 1
        best_same += max(rows, key=lambda x: x[1])[0] == max(rows, key=lambda x: x[2])[0]
        for i in range(len(rows)):
            for j in range(i + 1, len(rows)):
                lo = math.log(rows[i][1] / rows[j][1])
                agree = lo * math.log(rows[i][2] / rows[j][2]) > 0
                pairs_n += 1
                same += agree
                if abs(lo) > math.log(1.1):  # more than 10% apart in the older run
                    clear_n += 1
                    clear_same += agree
    if not ratios:
        return None
    ratios.sort()
    return {"implementations": len(ratios), "tasks": tasks,
            "median_ratio": math.exp(statistics.median(ratios)),
            "p90_ratio": math.exp(ratios[min(len(ratios) - 1, int(0.9 * len(ratios)))]),
            "pairs": pairs_n, "pairs_same": same, "clear_pairs": clear_n, "clear_pairs_same": clear_same,
            "best_same": best_same}


# The two figures are SVG written here (as scripts/rl-compare.py's): a few circles and lines on log axes need
# no plotting package on the GPU host or in CI, and the text is byte-stable for the test that compares it.
def _svg(width, height, body):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">\n'
            f'<rect width="{width}" height="{height}" fill="white"/>\n' + "".join(body) + "</svg>\n")


def spread_svg(spread):
    """Best over worst implementation within each task, one row per family (sorted by median), log x axis."""
    rows = sorted(spread.items(), key=lambda kv: (-statistics.median(kv[1]), kv[0]))
    top = max(max(v) for v in spread.values())
    decades = max(1, math.ceil(math.log10(top) + 1e-9))
    left, right, head, row_h = 150, 20, 40, 12
    width, height = 720, head + row_h * len(rows) + 40
    plot_w = width - left - right
    x = lambda v: left + plot_w * math.log10(max(v, 1.0)) / decades
    body = [f'<text x="{left}" y="16" font-size="13">Best over worst implementation within a task, per family '
            f'({sum(len(v) for v in spread.values())} tasks; dashed: 2x)</text>\n']
    bottom = head + row_h * len(rows)
    for d in range(decades + 1):
        for m in (1, 2, 5):
            v = m * 10 ** d
            if v > 10 ** decades:
                continue
            body.append(f'<line x1="{x(v):.1f}" y1="{head - 6}" x2="{x(v):.1f}" y2="{bottom}" stroke="#ddd"/>\n')
            body.append(f'<text x="{x(v):.1f}" y="{bottom + 14}" text-anchor="middle">{v:g}x</text>\n')
    body.append(f'<line x1="{x(2):.1f}" y1="{head - 6}" x2="{x(2):.1f}" y2="{bottom}" stroke="#c33" '
                f'stroke-dasharray="4 3"/>\n')
    for i, (family, values) in enumerate(rows):
        y = head + row_h * i + row_h / 2
        body.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{family}</text>\n')
        for v in sorted(values):
            body.append(f'<circle cx="{x(v):.1f}" cy="{y:.1f}" r="3" fill="#2a6fb0" fill-opacity="0.6"/>\n')
        mx = x(statistics.median(values))
        body.append(f'<line x1="{mx:.1f}" y1="{y - 5:.1f}" x2="{mx:.1f}" y2="{y + 5:.1f}" stroke="black" '
                    f'stroke-width="2"/>\n')
    body.append(f'<text x="{left + plot_w / 2:.1f}" y="{bottom + 30}" text-anchor="middle">fastest / slowest '
                f'implementation (geometric mean over configurations; bar: the family\'s median)</text>\n')
    return _svg(width, height, body)


def repeat_svg(points):
    """Speed over the baseline in the older measurement (x) against the newer (y), log-log, with y = x."""
    lo = min(min(p) for p in points) / 1.2
    hi = max(max(p) for p in points) * 1.2
    size, margin = 420, 50
    span = math.log10(hi) - math.log10(lo)
    pos = lambda v: margin + (size - 2 * margin) * (math.log10(v) - math.log10(lo)) / span
    body = [f'<text x="{margin}" y="20" font-size="13">The same implementations measured twice '
            f'({len(points)})</text>\n',
            f'<rect x="{margin}" y="{margin}" width="{size - 2 * margin}" height="{size - 2 * margin}" fill="none" '
            f'stroke="#999"/>\n',
            f'<line x1="{pos(lo):.1f}" y1="{size - pos(lo):.1f}" x2="{pos(hi):.1f}" y2="{size - pos(hi):.1f}" '
            f'stroke="#c33" stroke-dasharray="4 3"/>\n']
    for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5) if span <= 3 else (1,):  # over more than 3 decades 2 and 5 would overlap
            v = m * 10.0 ** e
            if lo <= v <= hi:
                body.append(f'<text x="{pos(v):.1f}" y="{size - margin + 14}" text-anchor="middle">{v:g}</text>\n')
                body.append(f'<text x="{margin - 4}" y="{size - pos(v) + 4:.1f}" text-anchor="end">{v:g}</text>\n')
    for a, b in points:
        body.append(f'<circle cx="{pos(a):.1f}" cy="{size - pos(b):.1f}" r="2.5" fill="#2a6fb0" '
                    f'fill-opacity="0.5"/>\n')
    body.append(f'<text x="{size / 2}" y="{size - 12}" text-anchor="middle">speed over the baseline, older '
                f'shard</text>\n')
    body.append(f'<text x="14" y="{size / 2}" text-anchor="middle" transform="rotate(-90 14 {size / 2})">newer '
                f'shard</text>\n')
    return _svg(size, size, body)


def outcome_counts(results):
    return collections.Counter(r.get("outcome") for r in results)


def median_or_none(values):
    return statistics.median(values) if values else None


def speed_of(config):
    """One configuration's speed over the baseline (PyTorch tasks: speedup_vs_baseline; C tasks: speedup), or
    None."""
    v = config.get("speedup_vs_baseline", config.get("speedup"))
    return v if isinstance(v, (int, float)) and v > 0 else None


def relative_speed(r):
    """The implementation's speed over the baseline's (geometric mean over configurations)."""
    values = [v for v in map(speed_of, r.get("configs", [])) if v is not None]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def config_speed(r, name):
    """The implementation's speed over the baseline at configuration `name`, or None."""
    return next((speed_of(c) for c in r.get("configs", []) if c.get("name") == name), None)


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(str(x) for x in row) + " |" for row in rows]
    return "\n".join(lines)


def report(manifest, results):
    """(the report's Markdown, {file name: SVG text} of its figures)."""
    out, figures = [], {}
    families = {}
    for e in manifest:
        f = families.setdefault(e["family"], {"kind": e["kind"], "train": 0, "val": 0, "test": 0, "impls": 0})
        f[e["split"]] += 1
        f["impls"] += len(e["implementations"])
    total = {s: sum(f[s] for f in families.values()) for s in ("train", "val", "test")}
    out.append(f"### Counts\n\n{len(manifest)} tasks ({sum(1 for e in manifest if e['kind'] == 'c')} C->CUDA, "
               f"{sum(1 for e in manifest if e['kind'] == 'pytorch')} PyTorch->CUDA) in {len(families)} families, "
               f"{sum(f['impls'] for f in families.values())} implementations; splits: train {total['train']}, "
               f"val {total['val']}, test {total['test']}.\n")
    out.append(table(["family", "kind", "train", "val", "test", "implementations"],
                     [[n, f["kind"], f["train"], f["val"], f["test"], f["impls"]] for n, f in families.items()]))
    entries = {e["task"]: e for e in manifest}
    current, stale, superseded = split_current(manifest, results)
    current, repeats = newest_only(current)
    by_task = {}
    for r in current:
        by_task.setdefault(r.get("dataset_task"), []).append(r)
    outcomes = outcome_counts(current)
    stored = {r.get("dataset_task") for r in results}
    out.append(f"\n### Measurements (H200)\n\n{len(stored)} tasks measured in {len({r['_shard'] for r in results})} "
               f"shards, {len(results)} implementations; {len(by_task)} of them as the generator makes them now "
               f"({len(current)} distinct implementations), {100 * len(by_task) / GOAL_TASKS:.1f}% of issue 15's goal of "
               f"{GOAL_TASKS:,} tasks measured. Outcomes: " +
               (", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())) or "none yet") + ".\n")
    if stale:
        out.append(f"Stale (left out of every figure here until measured again): {len(stale)} task{'s' if len(stale) != 1 else ''} whose stored "
                   "implementations are not the ones the generator makes now, a generator fix since: " +
                   "; ".join(f"`{t}` ({', '.join(f'{k} {v}' for k, v in sorted(outcome_counts(rs).items()))})"
                             for t, rs in sorted(stale.items())) + ".\n")
    if superseded:
        out.append(f"Measured again after a generator fix: {len(superseded)} task{'s' if len(superseded) != 1 else ''} whose older stored results (of "
                   "implementations the generator no longer makes) are superseded by a later shard's and left out: " +
                   "; ".join(f"`{t}` (older: {', '.join(f'{k} {v}' for k, v in sorted(outcome_counts(rs).items()))})"
                             for t, rs in sorted(superseded.items())) + ".\n")
    if repeats:
        speeds = repeat_speeds(repeats)
        a = repeat_agreement(speeds)
        text = (f"Measured twice: {len(repeats)} result{'s' if len(repeats) != 1 else ''} of "
                f"{len({o.get('dataset_task') for o, _ in repeats})} tasks repeat a measurement of the same files "
                "(a shard that ran without the earlier one's results); each counts once above, with its newest "
                "result.")
        if a:
            text += (f" The two measurements agree: speed over the baseline within a factor of "
                     f"{a['median_ratio']:.3f} at the median and {a['p90_ratio']:.3f} at the 90th percentile "
                     f"({a['implementations']} `ok` implementations); within a task, {a['pairs_same']} of "
                     f"{a['pairs']} pairs of implementations in the same order ({a['clear_pairs_same']} of "
                     f"{a['clear_pairs']} of the pairs more than 10% apart in the older run); the fastest the same "
                     f"in {a['best_same']} of {a['tasks']} tasks.")
        out.append(text + "\n")
        if speeds:
            figures["dataset-repeat.svg"] = repeat_svg(sorted((so, sn) for _, _, so, sn in speeds))
            out.append("![the same implementations measured twice](dataset-repeat.svg)\n")
    shards = {}
    for r in results:
        shards.setdefault(r["_shard"], []).append(r)
    rows = []
    for shard, rs in sorted(shards.items()):
        worker = [r["worker"]["seconds"] for r in rs if isinstance(r.get("worker", {}).get("seconds"), (int, float))
                  and r.get("outcome") == "ok"]
        counters = [r["worker"]["stage_seconds"]["counters"] for r in rs if r.get("outcome") == "ok"
                    and isinstance(r.get("worker", {}).get("stage_seconds", {}).get("counters"), (int, float))]
        mw, mc = median_or_none(worker), median_or_none(counters)
        rows.append([f"`{shard}`", len({r.get("dataset_task") for r in rs}), len(rs),
                     f"{mw:.2f}" if mw is not None else "-", f"{mc:.2f}" if mc is not None else "not recorded"])
    out.append("Per shard: the worker's median seconds per `ok` implementation (`worker.seconds`) and of it the hardware "
               "counters stage (`worker.stage_seconds.counters`).\n")
    out.append(table(["shard", "tasks", "implementations", "median worker s", "median counters s"], rows) + "\n")
    spread, wins = {}, {}
    for task, rs in by_task.items():
        e = entries.get(task)
        if not e:
            continue
        labels = {os.path.basename(i["file"]): i for i in e["implementations"]}
        speeds = [1.0]
        for r in rs:
            s = relative_speed(r) if r.get("outcome") == "ok" else None
            impl = labels.get(r.get("dataset_impl"), {})
            if s is not None and not impl.get("baseline"):
                speeds.append(s)
                if impl.get("expected") == "fast":
                    w = wins.setdefault((e["family"], tuple(impl["strategies"])), [0, 0, 0])
                    w[0] += s > 1.0
                    w[1] += 1
                    # The manifest lists the configurations small to large: the last is the largest.
                    big = config_speed(r, e["configs"][-1]) if e.get("configs") else None
                    w[2] += big is not None and big > 1.0
        if len(speeds) > 1:
            spread.setdefault(e["family"], []).append(max(speeds) / min(speeds))
    if spread:
        every = [x for v in spread.values() for x in v]
        out.append(f"Best over worst implementation within a task: median {statistics.median(every):.2f}x over "
                   f"{len(every)} tasks (target: at least 2x).\n")
        figures["dataset-spread.svg"] = spread_svg(spread)
        out.append("![best over worst implementation per task and family](dataset-spread.svg)\n")
        out.append(table(["family", "tasks", "median best/worst"],
                         [[f, len(v), f"{statistics.median(v):.2f}x"] for f, v in sorted(spread.items())]))
    if wins:
        by_strategy = {}
        for (f, st), w in wins.items():
            agg = by_strategy.setdefault(st, [0, 0, set(), 0])
            agg[0] += w[0]
            agg[1] += w[1]
            agg[2].add(f)
            agg[3] += w[2]
        total_faster, total = sum(w[0] for w in wins.values()), sum(w[1] for w in wins.values())
        total_big = sum(w[2] for w in wins.values())
        out.append(f"\nImplementations labeled `fast` beat the baseline (geometric mean over configurations above 1) in "
                   f"{total_faster} of {total} measurements, and at the task's largest configuration (the last in the "
                   f"manifest) in {total_big}; per strategy labels, over all families:\n")
        out.append(table(["strategies", "families", "faster / measured", "faster at the largest configuration"],
                         [[", ".join(st), len(agg[2]), f"{agg[0]} / {agg[1]}", f"{agg[3]} / {agg[1]}"]
                          for st, agg in sorted(by_strategy.items(), key=lambda kv: (-kv[1][1], kv[0]))]))
        out.append("\nPer family:\n")
        out.append(table(["family", "strategies", "faster / measured", "faster at the largest configuration"],
                         [[f, ", ".join(s), f"{w[0]} / {w[1]}", f"{w[2]} / {w[1]}"]
                          for (f, s), w in sorted(wins.items())]))
    return "\n".join(out) + "\n", figures


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", nargs="*")
    ap.add_argument("--manifest")
    ap.add_argument("--dataset-tool", default=os.path.join(ROOT, "build", "bin", "cudaperf-dataset"))
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--write-doc", action="store_true",
                    help="replace the report section of docs/dataset.md and write its figures (docs/dataset-*.svg)")
    ap.add_argument("--svg-dir", help="also write the figures (dataset-spread.svg, dataset-repeat.svg) here")
    ap.add_argument("--measured-tasks", action="store_true",
                    help="print the tasks whose stored results are all of the implementations the generator makes "
                         "now, each newest one ok, one per line; name the stale and the not ok ones on stderr "
                         "(scripts/gpu/measure-dataset.sh)")
    args = ap.parse_args(argv)
    paths = args.results if args.results is not None else sorted(glob.glob(os.path.join(ROOT, "data", "measured",
                                                                                         "dataset-h200", "*.jsonl.zst")))
    try:
        results = read_results(paths)
    except InputError as e:
        print(f"dataset-report.py: {e}", file=sys.stderr)
        return 2
    if args.summary:
        fams = {}
        for r in results:
            fam = r.get("dataset_task", "?").rsplit("_", 1)[0]
            fams.setdefault(fam, {}).setdefault(r.get("outcome"), 0)
            fams[fam][r.get("outcome")] += 1
        for fam, o in sorted(fams.items()):
            print(f"{fam:<26} " + " ".join(f"{k}={v}" for k, v in sorted(o.items())))
        bad = sum(v for o in fams.values() for k, v in o.items() if k != "ok")
        print(f"{len(results)} implementations, {bad} not ok")
        return 0
    manifest = read_manifest(args.manifest, args.dataset_tool)
    if args.measured_tasks:
        # Only the manifest's tasks: one generated with --families names the others' results nowhere, which
        # does not make them stale (a pt_full_reduce-only call named every other measured task "changed").
        in_manifest = {e["task"] for e in manifest}
        current, stale, _ = split_current(manifest, [r for r in results if r.get("dataset_task") in in_manifest])
        # A task whose newest result of some implementation is not ok is measured again: the failure was a
        # generator bug, fixed since (issue 15: fixed, not filtered), in the task rather than the implementation.
        failed = {r.get("dataset_task") for r in newest_only(current)[0] if r.get("outcome") != "ok"}
        print("\n".join(sorted({r.get("dataset_task") for r in current} - failed)))
        if stale:
            print(f"measured again (the generator changed them): {' '.join(sorted(stale))}", file=sys.stderr)
        if failed:
            print(f"measured again (not ok): {' '.join(sorted(failed))}", file=sys.stderr)
        return 0
    text, figures = report(manifest, results)
    svg_dirs = ([args.svg_dir] if args.svg_dir else []) + ([os.path.join(ROOT, "docs")] if args.write_doc else [])
    for d in svg_dirs:
        os.makedirs(d, exist_ok=True)
        for name, svg in figures.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(svg)
    if not args.write_doc:
        print(text)
        return 0
    doc_path = os.path.join(ROOT, "docs", "dataset.md")
    doc = open(doc_path).read()
    if BEGIN not in doc or END not in doc:
        print(f"{doc_path}: no report markers", file=sys.stderr)
        return 1
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    open(doc_path, "w").write(head + BEGIN + "\n" + text + END + tail)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
