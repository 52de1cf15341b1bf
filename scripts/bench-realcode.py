#!/usr/bin/env python3
"""cudaperf-analyze on real CUDA code, against nvcc (docs/benchmarks.md, "Real code").

For every file of data/realcode/manifest.jsonl, with the include and define flags of its own build:
  nvcc -O3 -arch=sm_90 -c FLAGS FILE            accepted? seconds
  cudaperf-analyze --format=json FILE -- FLAGS  accepted? exit code or signal, seconds, kernels,
                                                registers from the compiler or the estimate,
                                                constant launch blocks and whether they were used,
                                                budget notes, analysis faults
Both run in the file's directory. The analyzer gets an empty resource cache for each file (what a
first run costs; its register compile is part of its time).

usage:
  bench-realcode.py --sources DIR [--jobs 2] [--results data/realcode/results.jsonl]
  bench-realcode.py --sources DIR --rerun failed      # measure again what the analyzer failed
  bench-realcode.py --summary [--markdown]            # statistics of the results file only
  bench-realcode.py --summary --results NEW --compare OLD   # what changed between two runs
  bench-realcode.py --summary --results NEW --same-files-as OLD   # NEW's statistics on OLD's files

DIR holds the checkouts scripts/realcode/checkout.py makes (OWNER+NAME at the manifest's commits).
The results file is appended to as files finish, so an interrupted run resumes where it stopped;
the last row of a file counts. Nothing is fetched.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def key_of(row):
    return (row["repository"], row["path"])


def run_timed(cmd, cwd, timeout, env=None):
    """(exit code or -signal, seconds, stdout, stderr); exit code None on a time-out."""
    start = time.monotonic()
    try:
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            return None, time.monotonic() - start, out, err
        return p.returncode, time.monotonic() - start, out, err
    except OSError as e:
        return 127, time.monotonic() - start, b"", str(e).encode()


def first_error(text):
    for line in text.splitlines():
        if re.search(r"\berror\b|fatal", line):
            return line.strip()[:300]
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1].strip()[:300] if lines else ""


def kernel_facts(k):
    """What the benchmark counts of one kernel of the analyzer's JSON."""
    sites = k.get("launch_sites", [])
    const_blocks = [s["block"] for s in sites if s.get("block")]
    block = k.get("launch", {}).get("block")
    res = k.get("resources", {}) or {}
    notes = k.get("notes", []) or []
    return {
        "name": k.get("name"),
        "registers_source": res.get("source"),
        "registers": res.get("registers"),
        "launch_origin": k.get("launch", {}).get("origin"),
        "launch_sites": len(sites),
        "constant_block_sites": len(const_blocks),
        "constant_block_used": (block in const_blocks) if const_blocks else None,
        "budget_notes": sum(1 for n in notes if "budget" in n),
        "faults": len(k.get("analysis_faults", []) or []),
        "resource_note": next((n for n in notes if "resources are estimated" in n or "ptxas's report" in n), None),
    }


def measure(entry, args):
    root = os.path.join(args.sources, entry["repository"].replace("/", "+"))
    path = os.path.join(root, entry["path"])
    cwd = os.path.dirname(path)
    flags = [f.replace("{root}", root) for f in entry["flags"]]
    row = {k: entry[k] for k in ("suite", "repository", "commit", "path")}
    row["flags"] = entry["flags"]
    if not os.path.isfile(path):
        row["missing"] = True
        return row
    tmp = tempfile.mkdtemp(prefix="bench-realcode-")
    try:
        earlier = args.nvcc_rows.get(key_of(row)) if args.nvcc_rows is not None else None
        if earlier is not None:
            row["nvcc"] = dict(earlier["nvcc"], from_earlier_run=True)
        else:
            rc, secs, out, err = run_timed([args.nvcc, "-O3", "-arch=sm_90", "-c"] + flags +
                                           [path, "-o", os.path.join(tmp, "out.o")], cwd, args.timeout)
            row["nvcc"] = {"ok": rc == 0, "exit": rc, "seconds": round(secs, 3)}
            if rc != 0:
                row["nvcc"]["error"] = first_error(err.decode(errors="replace"))
        if args.nvcc_rows is not None and not row["nvcc"]["ok"]:
            return row  # only what nvcc compiles is measured again
        env = dict(os.environ)
        env["CUDAPERF_CACHE_DIR"] = os.path.join(tmp, "cache")
        rc, secs, out, err = run_timed([args.analyzer, "--format=json", path, "--"] + flags, cwd,
                                       args.timeout, env)
        a = {"exit": rc, "seconds": round(secs, 3), "signal": -rc if rc is not None and rc < 0 else None,
             "timed_out": rc is None}
        text = err.decode(errors="replace")
        try:
            report = json.loads(out.decode(errors="replace")) if out else None
        except ValueError:
            report = None
        analysed = bool(report) and all(f.get("analysed") for f in report.get("files", []))
        a["ok"] = rc in (0, 1) and analysed
        if not a["ok"]:
            a["error"] = first_error(text) or ("no JSON on stdout" if rc == 0 else "")
        if report:
            a["kernels"] = [kernel_facts(k) for k in report.get("kernels", [])]
            a["diagnostics"] = len(report.get("diagnostics", []))
        if "Stack dump" in text or "PLEASE submit a bug report" in text:
            a["stack_dump"] = True
        row["analyzer"] = a
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return row


def sample_per_suite(manifest, n):
    """At most n entries of each suite, evenly spaced; interleaved suite by suite."""
    suites = {}
    for m in manifest:
        suites.setdefault(m["suite"], []).append(m)
    picked = []
    for entries in suites.values():
        step = max(1.0, len(entries) / n)
        picked.append([entries[int(i * step)] for i in range(min(n, len(entries)))])
    out = []
    for i in range(max((len(p) for p in picked), default=0)):
        out.extend(p[i] for p in picked if i < len(p))
    return out


def load_results(path):
    rows = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    r = json.loads(line)
                    rows[key_of(r)] = r
    return rows


def analyzer_failed(r):
    a = r.get("analyzer")
    return a is None or not a.get("ok") or a.get("signal") or a.get("timed_out")


def percent(a, b):
    return 100.0 * a / b if b else float("nan")


def summarize(rows):
    rows = [r for r in rows if not r.get("missing")]
    nvcc_ok = [r for r in rows if r.get("nvcc", {}).get("ok")]
    analysed = [r for r in nvcc_ok if r.get("analyzer", {}).get("ok")]
    both = analysed
    ratios = [r["analyzer"]["seconds"] / r["nvcc"]["seconds"] for r in both if r["nvcc"]["seconds"] > 0]
    kernels = [k for r in analysed for k in r["analyzer"].get("kernels", [])]
    compiler_regs = [k for k in kernels if k["registers_source"] in ("nvcc", "nvrtc")]
    with_block = [k for k in kernels if k["constant_block_sites"]]
    block_used = [k for k in with_block if k["constant_block_used"]]
    over = [r for r in both if r["analyzer"]["seconds"] > 60 or
            (r["nvcc"]["seconds"] > 0 and r["analyzer"]["seconds"] > 3 * r["nvcc"]["seconds"])]
    signals = [r for r in rows if r.get("analyzer", {}).get("signal") or r.get("analyzer", {}).get("stack_dump")]
    timeouts = [r for r in rows if r.get("analyzer", {}).get("timed_out")]
    faults = [r for r in analysed if any(k["faults"] for k in r["analyzer"].get("kernels", []))]
    failures = {}
    for r in nvcc_ok:
        if not r.get("analyzer", {}).get("ok"):
            failures.setdefault(r["analyzer"].get("error", "?"), []).append(r["path"])
    s = {
        "files": len(rows),
        "nvcc_accepts": len(nvcc_ok),
        "analyzer_accepts_of_nvcc": len(analysed),
        "analyzed_percent": round(percent(len(analysed), len(nvcc_ok)), 2),
        "analyzer_accepts_nvcc_rejects": sum(1 for r in rows if not r.get("nvcc", {}).get("ok") and r.get("analyzer", {}).get("ok")),
        "signals": len(signals),
        "timeouts": len(timeouts),
        "files_with_analysis_faults": len(faults),
        "kernels": len(kernels),
        "kernels_compiler_registers": len(compiler_regs),
        "compiler_registers_percent": round(percent(len(compiler_regs), len(kernels)), 2),
        "kernels_with_constant_launch_block": len(with_block),
        "constant_launch_block_used": len(block_used),
        "kernels_with_budget_notes": sum(1 for k in kernels if k["budget_notes"]),
        "median_seconds_nvcc": round(statistics.median([r["nvcc"]["seconds"] for r in both]), 3) if both else None,
        "median_seconds_analyzer": round(statistics.median([r["analyzer"]["seconds"] for r in both]), 3) if both else None,
        "median_time_ratio": round(statistics.median(ratios), 3) if ratios else None,
        "max_time_ratio": round(max(ratios), 2) if ratios else None,
        "max_seconds_analyzer": round(max(r["analyzer"]["seconds"] for r in both), 2) if both else None,
        "files_over_3x_nvcc_or_60s": [r["path"] for r in over],
        "failures_by_first_error": sorted(([e, len(p), p[:5]] for e, p in failures.items()), key=lambda x: -x[1]),
        "suites": {},
    }
    for suite in sorted({r["suite"] for r in rows}):
        sr = [r for r in rows if r["suite"] == suite]
        sn = [r for r in sr if r.get("nvcc", {}).get("ok")]
        sa = [r for r in sn if r.get("analyzer", {}).get("ok")]
        s["suites"][suite] = {"files": len(sr), "nvcc_accepts": len(sn), "analyzer_accepts_of_nvcc": len(sa)}
    return s


def print_markdown(s):
    print("| measure | value |")
    print("| --- | --- |")
    print("| files | %d |" % s["files"])
    print("| nvcc 13 accepts (`-O3 -arch=sm_90 -c`) | %d |" % s["nvcc_accepts"])
    print("| ... of which the analyzer analyses | %d (%.1f%%) |" % (s["analyzer_accepts_of_nvcc"], s["analyzed_percent"]))
    print("| exits with a signal / time-outs | %d / %d |" % (s["signals"], s["timeouts"]))
    print("| files with an analysis fault (reported, other kernels analysed) | %d |" % s["files_with_analysis_faults"])
    print("| kernels | %d |" % s["kernels"])
    print("| ... registers from the compiler (not the estimate) | %d (%.1f%%) |" % (s["kernels_compiler_registers"], s["compiler_registers_percent"]))
    print("| ... with a constant block at a launch site / analysed with it | %d / %d |" % (s["kernels_with_constant_launch_block"], s["constant_launch_block_used"]))
    print("| ... with a budget note | %d |" % s["kernels_with_budget_notes"])
    print("| median seconds nvcc / analyzer (files both accept) | %s / %s |" % (s["median_seconds_nvcc"], s["median_seconds_analyzer"]))
    print("| median analyzer/nvcc time ratio | %s |" % s["median_time_ratio"])
    print("| max ratio / max analyzer seconds | %s / %s |" % (s["max_time_ratio"], s["max_seconds_analyzer"]))
    print("| files over 3x nvcc or 60 s | %d |" % len(s["files_over_3x_nvcc_or_60s"]))
    print()
    print("| suite | files | nvcc accepts | analyzer analyses |")
    print("| --- | --- | --- | --- |")
    for name, v in s["suites"].items():
        print("| %s | %d | %d | %d |" % (name, v["files"], v["nvcc_accepts"], v["analyzer_accepts_of_nvcc"]))


def kernel_map(r):
    """A file's kernels by name; a name that occurs more than once (overloads, template instances
    of one name) gets its occurrence number: name#2, name#3 ..."""
    out, seen = {}, {}
    for k in r.get("analyzer", {}).get("kernels", []) or []:
        seen[k["name"]] = seen.get(k["name"], 0) + 1
        out[k["name"] if seen[k["name"]] == 1 else "%s#%d" % (k["name"], seen[k["name"]])] = k
    return out


def compare(new_rows, old_rows):
    """What changed per file between two runs (for example two LLVM versions), on the files both
    measured whose nvcc result is the same: acceptance, kernels, register counts and their source,
    constant blocks used, and the analyzer's seconds."""
    common = sorted(k for k in new_rows if k in old_rows and not new_rows[k].get("missing")
                    and not old_rows[k].get("missing"))
    nvcc_ok = [k for k in common if new_rows[k].get("nvcc", {}).get("ok") and old_rows[k].get("nvcc", {}).get("ok")]
    both_measured = [k for k in nvcc_ok if "analyzer" in new_rows[k] and "analyzer" in old_rows[k]]
    ok = lambda r: bool(r.get("analyzer", {}).get("ok"))
    c = {
        "files_in_both": len(common),
        "nvcc_accepts_in_both": len(nvcc_ok),
        "analyzer_measured_in_both": len(both_measured),
        "nvcc_differs": [k[1] for k in common if bool(new_rows[k].get("nvcc", {}).get("ok")) !=
                         bool(old_rows[k].get("nvcc", {}).get("ok"))],
        "analysed_by_both": 0,
        "newly_analysed": [],
        "newly_failing": [],
        "failing_in_both": [],
        "kernel_set_differs": [],
        "register_count_differs": [],
        "register_source_differs": [],
        "constant_block_use_differs": [],
    }
    ratios = []
    for k in both_measured:
        n, o = new_rows[k], old_rows[k]
        if ok(n) and not ok(o):
            c["newly_analysed"].append([k[1], o["analyzer"].get("error", "")])
        elif ok(o) and not ok(n):
            c["newly_failing"].append([k[1], n["analyzer"].get("error", "")])
        elif not ok(n):
            c["failing_in_both"].append([k[1], n["analyzer"].get("error", ""), o["analyzer"].get("error", "")])
        if not (ok(n) and ok(o)):
            continue
        c["analysed_by_both"] += 1
        if o["analyzer"]["seconds"] > 0:
            ratios.append(n["analyzer"]["seconds"] / o["analyzer"]["seconds"])
        nk, ok_ = kernel_map(n), kernel_map(o)
        if set(nk) != set(ok_):
            c["kernel_set_differs"].append([k[1], sorted(set(nk) - set(ok_))[:5], sorted(set(ok_) - set(nk))[:5]])
        for name in sorted(set(nk) & set(ok_)):
            a, b = nk[name], ok_[name]
            if a.get("registers") != b.get("registers"):
                c["register_count_differs"].append([k[1], name, b.get("registers"), a.get("registers")])
            if a.get("registers_source") != b.get("registers_source"):
                c["register_source_differs"].append([k[1], name, b.get("registers_source"), a.get("registers_source")])
            if a.get("constant_block_used") != b.get("constant_block_used"):
                c["constant_block_use_differs"].append([k[1], name, b.get("constant_block_used"), a.get("constant_block_used")])
    c["analyzer_seconds_ratio_new_over_old_median"] = round(statistics.median(ratios), 3) if ratios else None
    if ratios:
        qs = statistics.quantiles(ratios, n=10) if len(ratios) > 1 else [ratios[0]] * 9
        c["analyzer_seconds_ratio_new_over_old_p10_p90"] = [round(qs[0], 3), round(qs[-1], 3)]
    nkernels = lambda r: len(r["analyzer"].get("kernels", []) or [])
    c["kernels_new_old"] = [sum(nkernels(new_rows[k]) for k in both_measured if ok(new_rows[k]) and ok(old_rows[k])),
                            sum(nkernels(old_rows[k]) for k in both_measured if ok(new_rows[k]) and ok(old_rows[k]))]
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--sources", help="directory with the OWNER+NAME checkouts")
    ap.add_argument("--manifest", default=os.path.join(ROOT, "data/realcode/manifest.jsonl"))
    ap.add_argument("--results", default=os.path.join(ROOT, "data/realcode/results.jsonl"))
    ap.add_argument("--analyzer", default=os.path.join(ROOT, "build/bin/cudaperf-analyze"))
    ap.add_argument("--nvcc", default=os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"), "bin/nvcc"))
    ap.add_argument("--jobs", type=int, default=2, help="files measured at once (default 2)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per command (default 300)")
    ap.add_argument("--rerun", choices=["none", "failed", "all"], default="none",
                    help="measure again: files the analyzer failed, or everything (default: only new files)")
    ap.add_argument("--filter", help="only paths matching this regular expression")
    ap.add_argument("--limit", type=int, help="at most this many files (in manifest order)")
    ap.add_argument("--per-suite", type=int, metavar="N",
                    help="a sample: at most N files of each suite, evenly spaced in manifest order, "
                         "measured round-robin across suites (so a stopped run still covers every suite)")
    ap.add_argument("--nvcc-from", metavar="RESULTS",
                    help="take nvcc's results from this earlier results file (nvcc is not run again for "
                         "the files it has) and measure the analyzer only on files nvcc compiled: a "
                         "re-measurement of a new analyzer; its time ratios mix two runs")
    ap.add_argument("--summary", action="store_true", help="only print the statistics of --results")
    ap.add_argument("--markdown", action="store_true", help="statistics as a markdown table")
    ap.add_argument("--summary-json", help="also write the statistics to this file")
    ap.add_argument("--compare", metavar="RESULTS",
                    help="with --summary: also compare --results (new) with this earlier results file (old), "
                         "file by file, and print what changed as JSON (with --compare-json, also to a file)")
    ap.add_argument("--compare-json", help="write the comparison to this file")
    ap.add_argument("--same-files-as", metavar="RESULTS",
                    help="with --summary: only the rows of --results whose file is also in this results file "
                         "(one sample's statistics from a larger run)")
    args = ap.parse_args()

    if args.compare and not args.summary:
        ap.error("--compare goes with --summary")
    if args.same_files_as and not args.summary:
        ap.error("--same-files-as goes with --summary")
    for path in [args.results] * args.summary + [p for p in (args.compare, args.same_files_as) if p]:
        if not os.path.isfile(path):
            ap.error("no results file %s" % path)
    try:
        results = load_results(args.results)
        old = load_results(args.compare) if args.compare else None
        if args.same_files_as:
            keep = load_results(args.same_files_as)
            results = {k: v for k, v in results.items() if k in keep}
    except (ValueError, KeyError, TypeError) as e:
        sys.exit("bench-realcode: a results file is not JSON lines of results rows: %s" % e)
    args.nvcc_rows = load_results(args.nvcc_from) if args.nvcc_from else None
    if not args.summary:
        if not args.sources or not os.path.isdir(args.sources):
            ap.error("--sources DIR is required (checkouts from scripts/realcode/checkout.py)")
        for tool in (args.analyzer, args.nvcc):
            if not os.access(tool, os.X_OK):
                ap.error("not executable: %s" % tool)
        # Both tools run in each file's directory: a relative path would name another file there.
        args.analyzer, args.nvcc = os.path.abspath(args.analyzer), os.path.abspath(args.nvcc)
        args.sources = os.path.abspath(args.sources)
        manifest = [json.loads(l) for l in open(args.manifest) if l.strip()]
        if args.filter:
            manifest = [m for m in manifest if re.search(args.filter, m["path"])]
        if args.per_suite:
            manifest = sample_per_suite(manifest, args.per_suite)
        todo = []
        for m in manifest:
            prev = results.get(key_of(m))
            if prev is None or args.rerun == "all" or (args.rerun == "failed" and prev.get("nvcc", {}).get("ok")
                                                       and analyzer_failed(prev)):
                todo.append(m)
        if args.limit:
            todo = todo[:args.limit]
        print("bench-realcode: %d files to measure (%d in the manifest, %d already measured), %d at once"
              % (len(todo), len(manifest), len(results), args.jobs), file=sys.stderr, flush=True)
        os.makedirs(os.path.dirname(os.path.abspath(args.results)), exist_ok=True)
        start = time.monotonic()
        with open(args.results, "a") as out, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {pool.submit(measure, m, args): m for m in todo}
            for n, f in enumerate(concurrent.futures.as_completed(futures), 1):
                r = f.result()
                out.write(json.dumps(r) + "\n")
                out.flush()
                results[key_of(r)] = r
                a, v = r.get("analyzer", {}), r.get("nvcc", {})
                status = "missing" if r.get("missing") else \
                    ("ok" if a.get("ok") else "SIGNAL %s" % a["signal"] if a.get("signal") else
                     "TIMEOUT" if a.get("timed_out") else "FAIL") + ("" if v.get("ok") else " (nvcc fails)")
                print("[%d/%d %.0fs] %s %s nvcc %.2fs analyzer %.2fs" % (
                    n, len(todo), time.monotonic() - start, status, r["path"], v.get("seconds", 0),
                    a.get("seconds", 0)), file=sys.stderr, flush=True)
    if old is not None:
        c = dict({"new": os.path.basename(args.results), "old": os.path.basename(args.compare)},
                 **compare(results, old))
        if args.compare_json:
            with open(args.compare_json, "w") as f:
                json.dump(c, f, indent=1)
                f.write("\n")
        print(json.dumps(c, indent=1))
        return
    s = summarize(list(results.values()))
    if args.summary_json:
        with open(args.summary_json, "w") as f:
            json.dump(s, f, indent=1)
            f.write("\n")
    if args.markdown:
        print_markdown(s)
    else:
        print(json.dumps({k: v for k, v in s.items() if k != "failures_by_first_error"}, indent=1))
        for e, n, paths in s["failures_by_first_error"][:40]:
            print("%4d  %s  (%s)" % (n, e, ", ".join(paths[:2])))


if __name__ == "__main__":
    main()
