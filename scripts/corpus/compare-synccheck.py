#!/usr/bin/env python3
"""cuda-divergent-barrier against compute-sanitizer --tool synccheck, from stored sanitizer output.

The outputs (data/corpus/measured/synccheck-h200/, made on the H200 by scripts/gpu/synccheck.sh)
are one file per corpus program that uses barriers (<stem>.txt) and one per kernel of
data/synccheck/barriers.cu (barriers.<kernel>.txt). For every kernel with a barrier the analyzer's
verdict (divergent_barriers > 0) is put beside synccheck's ("Barrier error detected ... at
<kernel>(" in the output). synccheck reports threads of one warp that disagree at a barrier when
the program runs; the analyzer reports barriers that threads of a block can disagree on, so the
analyzer may flag more (whole warps skipping a barrier, exited threads), never less: the exit code
is 1 when synccheck reports a kernel the analyzer does not flag, or a stored run did not finish.

Usage: compare-synccheck.py --analyzer build/bin/cudaperf-analyze [--measured DIR] [--markdown]
Python 3 standard library only.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ERROR_AT = re.compile(r"Barrier error detected.*?\n=+\s+at (\w+)\(", re.S)


def analyse(analyzer, path):
    out = subprocess.run([analyzer, "--format=json", "--checks=-*", path], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("%s failed (%d): %s" % (analyzer, out.returncode, out.stderr[-2000:]))
    return {k["name"]: k for k in json.loads(out.stdout)["kernels"]}


def sanitizer_run(path):
    """(kernels synccheck reported, finished normally?)"""
    text = open(path).read()
    exit_line = re.findall(r"^exit=(\d+)$", text, re.M)
    finished = bool(exit_line) and exit_line[-1] in ("0", "1") and "ERROR SUMMARY" in text
    return set(ERROR_AT.findall(text)), finished


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--analyzer", required=True)
    ap.add_argument("--measured", default=os.path.join(ROOT, "data/corpus/measured/synccheck-h200"))
    ap.add_argument("--markdown", action="store_true", help="print the rows as a Markdown table")
    a = ap.parse_args()
    runs = sorted(glob.glob(os.path.join(a.measured, "*.txt")))
    runs = [r for r in runs if not r.endswith("synccheck-env.txt")]
    if not runs:
        print("no synccheck output in %s: skipped" % a.measured)
        return 77
    rows, problems = [], []
    analyses = {}
    for run in runs:
        stem = os.path.basename(run)[:-len(".txt")]
        if stem.startswith("barriers."):
            source, only = os.path.join(ROOT, "data/synccheck/barriers.cu"), stem.split(".", 1)[1]
        else:
            source, only = os.path.join(ROOT, "data/corpus", stem + ".cu"), None
        if source not in analyses:
            analyses[source] = analyse(a.analyzer, source)
        reported, finished = sanitizer_run(run)
        if not finished:
            problems.append("%s: the sanitizer run did not finish" % stem)
        for name, k in sorted(analyses[source].items()):
            if (only and name != only) or k["sync"]["barriers"] == 0:
                continue
            rows.append((os.path.relpath(source, ROOT), name, k["sync"]["divergent_barriers"] > 0, name in reported))
        for name in reported - set(analyses[source]):
            problems.append("%s: synccheck names kernel %s, which the analyzer did not find" % (stem, name))
    both = sum(1 for r in rows if r[2] and r[3])
    neither = sum(1 for r in rows if not r[2] and not r[3])
    only_analyzer = [r for r in rows if r[2] and not r[3]]
    only_synccheck = [r for r in rows if r[3] and not r[2]]
    if a.markdown:
        print("| file | kernel | cuda-divergent-barrier | synccheck |")
        print("| --- | --- | --- | --- |")
        for f, n, flagged, rep in rows:
            print("| %s | `%s` | %s | %s |" % (f, n, "flagged" if flagged else "-", "barrier error" if rep else "clean"))
    else:
        for f, n, flagged, rep in rows:
            print("%-32s %-28s analyzer=%-9s synccheck=%s" % (f, n, "flagged" if flagged else "clean",
                                                              "error" if rep else "clean"))
    print("kernels with barriers: %d; agree: %d (both flag %d, both clean %d); analyzer only: %d; "
          "synccheck only: %d" % (len(rows), both + neither, both, neither, len(only_analyzer), len(only_synccheck)))
    for f, n, _, _ in only_synccheck:
        problems.append("synccheck reports %s (%s), the analyzer does not flag it" % (n, f))
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
