#!/usr/bin/env python3
"""cudaperf-features on every shipped implementation with a stored eval result.

For each result in the given files (JSON Lines, optionally gzipped; the first result of a
candidate wins), runs `cudaperf-features TASK_DIR CANDIDATE.cu --result FILE` and checks that there
is a record for every configuration of the task, each with its feature vector, and that the join of
the analyzer's launches to the measured kernels is complete. Prints one line per implementation and
a summary; exit 0 when every configuration passes, 1 otherwise, 77 (skipped) when the analyzer has
no --task. Python 3 standard library only.
"""
import argparse
import concurrent.futures
import gzip
import json
import os
import subprocess
import sys
import tempfile


def read_results(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def repository_path(path, root):
    marker = "/data/tasks/"
    if marker in path:
        return os.path.join(root, "data/tasks/" + path.rsplit(marker, 1)[1])
    return path if os.path.isabs(path) else os.path.join(root, path)


def analyzer_has_task(analyzer):
    p = subprocess.run([analyzer, "--help"], capture_output=True, text=True, timeout=60)
    return "--task" in p.stdout + p.stderr


def check(features, analyzer, task_dir, candidate, result_file, timeout):
    cmd = [features, task_dir, candidate, "--result", result_file, "--analyzer", analyzer]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, ["timed out after %d s" % timeout]
    if p.returncode != 0:
        return None, ["exit %d: %s" % (p.returncode, p.stderr.strip()[:500])]
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()], []


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--features", required=True)
    ap.add_argument("--analyzer", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--results", action="append", required=True, help="stored cudaperf-eval results")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300)
    args = ap.parse_args()

    if not analyzer_has_task(args.analyzer):
        print("skipped: %s has no --task (issue 13, part 1)" % args.analyzer)
        return 77

    # The candidates, each with the file of its first result (written out uncompressed).
    tmp = tempfile.mkdtemp(prefix="cudaperf-shipped-features-")
    jobs, seen = [], set()
    for n, path in enumerate(args.results):
        results = read_results(os.path.join(args.root, path))
        plain = os.path.join(tmp, "results-%d.jsonl" % n)
        with open(plain, "w") as f:
            for r in results:
                f.write(json.dumps(r) + "\n")
        for r in results:
            candidate = repository_path(r["candidate"], args.root)
            if candidate in seen or not os.path.exists(candidate):
                continue
            seen.add(candidate)
            jobs.append((repository_path(r["task_dir"], args.root), candidate, plain, r))

    failures, rows = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(check, args.features, args.analyzer, t, c, f, args.timeout): (t, c, r)
                   for t, c, f, r in jobs}
        for future in concurrent.futures.as_completed(futures):
            task_dir, candidate, result = futures[future]
            records, problems = future.result()
            rel = os.path.relpath(candidate, args.root)
            with open(os.path.join(task_dir, "task.json")) as f:
                configs = [c["name"] for c in json.load(f)["configs"]]
            if records is not None:
                by_name = {r["configuration"]: r for r in records}
                for name in configs:
                    r = by_name.get(name)
                    if r is None:
                        problems.append("%s: no record" % name)
                    elif not r.get("features"):
                        problems.append("%s: no feature vector" % name)
                    elif not r["join"]["complete"]:
                        j = r["join"]
                        why = [u["reason"] for u in j["unjoined_static"] + j["unjoined_measured"]] + \
                              [m["what"] for m in j["mismatches"]] + ([j["measured"]] if not j["joined"] else [])
                        problems.append("%s: join incomplete (%s)" % (name, "; ".join(why)[:300]))
            launches = sum(len(r["launches"]) for r in records or [])
            rows.append((rel, len(configs), launches, problems))
            failures.extend("%s %s" % (rel, p) for p in problems)

    for rel, n, launches, problems in sorted(rows):
        print("%-58s %d configurations %3d launches  %s" % (rel, n, launches, "ok" if not problems else "FAILED"))
    total = sum(n for _, n, _, _ in rows)
    print("\n%d implementations, %d candidate x configuration records, %d failing" %
          (len(rows), total, len(failures)))
    for f in failures:
        print("  " + f)
    return 1 if failures or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
