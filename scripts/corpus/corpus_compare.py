"""Shared pieces of the corpus comparisons (compare-coalescing.py, compare-shared.py): run the
analyzer over the corpus files, and turn rows of (kernel, op, predicted, measured) into the
markdown table, the summary line and the exit code. Python 3 standard library only."""
import argparse
import json
import os
import subprocess

SKIP = 77
IN_POPULATION = ("ok", "unweighted", "no access")


def analyse(analyzer, path, extra=()):
    cmd = [analyzer, "--format=json", "--checks=-*", path] + list(extra)
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), out.returncode, out.stderr[-2000:]))
    return json.loads(out.stdout)


def load(corpus, measured_path):
    """(manifest, measured kernels, {file: {kernel name: report}}) or None without measurements."""
    measured_path = measured_path or os.path.join(corpus, "measured", "h200-ncu.json")
    if not os.path.exists(measured_path):
        print("no measurements at %s: skipped" % measured_path)
        return None
    with open(os.path.join(corpus, "manifest.json")) as f:
        manifest = json.load(f)
    with open(measured_path) as f:
        measured = json.load(f)["kernels"]
    return manifest, measured


def analyse_corpus(analyzer, root, manifest, extra=()):
    reports = {}
    for rel in sorted({k["file"] for k in manifest["kernels"]}):
        path = rel if os.path.isabs(rel) else os.path.join(root, rel)
        reports[rel] = {k["name"]: k for k in analyse(analyzer, path, extra)["kernels"]}
    return reports


def parser(doc, root):
    """The options every comparison takes."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--analyzer", required=True)
    p.add_argument("--corpus", default=os.path.join(root, "data", "corpus"))
    p.add_argument("--measured", default=None)
    p.add_argument("--tolerance", type=float, default=0.10)
    p.add_argument("--min-within", type=float, default=0.95)
    p.add_argument("--markdown", default=None, help="write the comparison table here")
    p.add_argument("--verbose", action="store_true")
    return p


def weighted_mean(kernel, spaces, op, key, excluded, status_of):
    """Execution-weighted mean of access[key] (access["launch_" + key] where present) over a kernel's accesses of one op in \p spaces, with
    a status: "ok", "unweighted" (some executions unknown, weighted 1) or status_of(pattern) for an
    access that cannot be judged; and the lines that were averaged."""
    num = den = 0.0
    status, lines = "ok", []
    for a in kernel["accesses"]:
        if a["space"] not in spaces or a["op"] != op:
            continue
        if a["pattern"] in excluded or a.get(key) is None:
            status = status_of(a["pattern"])
            continue
        execs = a.get("executions_per_thread")
        if execs is None:
            status = "unweighted" if status == "ok" else status
            execs = 1
        # The launch's average where the analyzer has one (guards idling lanes of partial warps:
        # launch_sectors_per_request, docs/json-schema.md), else the whole-warp prediction.
        value = a.get("launch_" + key)
        num += (a[key] if value is None else value) * execs
        den += execs
        lines.append(a["line"])
    return (num / den if den else None), status, lines


def row(kernel, op, lines, predicted, measured, status):
    if predicted is None and status == "ok":
        status = "no access"
    err = None if predicted is None else abs(predicted - measured) / measured
    return {"kernel": kernel, "op": op, "line": ",".join(str(l) for l in sorted(set(lines))),
            "predicted": predicted, "measured": measured, "status": status, "error": err}


def finish(rows, tolerance, min_within, what, markdown=None, verbose=False):
    """Prints the outcome and returns the exit code: 1 when the share within tolerance is too low."""
    population = [r for r in rows if r["status"] in IN_POPULATION]
    within = [r for r in population if r["error"] is not None and r["error"] <= tolerance]
    share = len(within) / len(population) if population else 0.0
    table = ["| kernel | op | lines | predicted | measured | error | |",
             "| --- | --- | --- | ---: | ---: | ---: | --- |"]
    for r in rows:
        excluded = r["status"] not in ("ok", "unweighted")
        pred = "-" if r["predicted"] is None or excluded else "%.2f" % r["predicted"]
        err = "-" if r["error"] is None or excluded else "%.0f%%" % (100 * r["error"])
        mark = "" if r["status"] == "ok" else r["status"]
        if r in population and r not in within:
            mark = (mark + " outside").strip()
        table.append("| %s | %s | %s | %s | %.2f | %s | %s |" % (
            r["kernel"], r["op"], r["line"], pred, r["measured"], err, mark))
    summary = ("%d of %d kernel-level %s without data-dependent accesses are within %.0f%% of the H200 "
               "measurement (%.1f%%); %d data-dependent or unanalysable ones excluded."
               % (len(within), len(population), what, 100 * tolerance, 100 * share, len(rows) - len(population)))
    if markdown:
        with open(markdown, "w") as f:
            f.write(summary + "\n\n" + "\n".join(table) + "\n")
    if verbose:
        print("\n".join(table))
    else:
        for r in population:
            if r not in within:
                print("outside: %s %s predicted %s measured %.2f" % (
                    r["kernel"], r["op"], "-" if r["predicted"] is None else "%.2f" % r["predicted"], r["measured"]))
    print(summary)
    if share + 1e-9 < min_within:
        print("FAIL: below the required %.1f%%" % (100 * min_within))
        return 1
    return 0
