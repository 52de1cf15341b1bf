#!/usr/bin/env python3
"""Replays the stored H200 counters-mode A/B (data/eval-runs/2026-12-02-h200-counters-ab, docs/counters.md,
"Counters mode"): scripts/gpu/counters-ab-compare.py run again on the three stored result files gives the stored
compare.txt; the mode is recorded as it should be in every document; the counters that are deterministic (equal
in every pair of the per-config run and its repeat) are equal in every pair of the shared run too; and the
candidates per minute docs/counters.md quotes are those of the stored runs. And counters-ab-compare.py --verdict,
which picks the mode for a dataset shard that follows an A/B in the same device call: the stored A/B's verdict is
its new mode, and each way of failing the verdict's conditions gives the base mode. The second A/B
(data/eval-runs/2026-12-02-h200-counters-ab-joint, shared against joint, docs/counters.md "Joint mode") is replayed
the same way: its compare.txt byte for byte, every joint document split (no fallback), the deterministic metrics
equal, the verdict shared (joint not faster), and the figures docs/counters.md quotes."""
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from script_checks import ROOT, check, finish  # noqa: E402
RUN = os.path.join(ROOT, "data", "eval-runs", "2026-12-02-h200-counters-ab")
JOINT_RUN = os.path.join(ROOT, "data", "eval-runs", "2026-12-02-h200-counters-ab-joint")
RANGES_RUN = os.path.join(ROOT, "data", "eval-runs", "2026-12-02-h200-counters-ab-ranges")
COMPARE = os.path.join(ROOT, "scripts", "gpu", "counters-ab-compare.py")


def unpack(run, labels, tmp):
    """The stored results-LABEL.jsonl.zst of an A/B folder, decompressed into tmp: label -> path."""
    paths = {}
    for label in labels:
        paths[label] = os.path.join(tmp, f"results-{label}.jsonl")
        with open(paths[label], "wb") as f:
            subprocess.run(["zstd", "-qdc", os.path.join(run, f"results-{label}.jsonl.zst")], stdout=f, check=True)
    return paths


def replay(run, what, args, tmp):
    """counters-ab-compare.py with args on the stored runs.tsv; checks its text against the stored compare.txt
    and returns its JSON document and path."""
    js = os.path.join(tmp, "compare.json")
    p = subprocess.run([sys.executable, COMPARE, *args, "--runs", os.path.join(run, "runs.tsv"), "--json", js],
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"{what}: counters-ab-compare.py exit {p.returncode}: {p.stderr}")
    check(p.stdout == open(os.path.join(run, "compare.txt")).read(), f"{what}: compare.txt replays byte for byte")
    return json.load(open(js)), js


def main():
    with tempfile.TemporaryDirectory(prefix="counters-ab-test-") as tmp:
        paths = unpack(RUN, ("default", "shared", "repeat"), tmp)
        d, js = replay(RUN, "first A/B", [a for label, path in paths.items() for a in (f"--{label}", path)], tmp)
        verdict = subprocess.run([sys.executable, COMPARE, "--verdict", js], capture_output=True, text=True, timeout=60)
        check(verdict.returncode == 0 and verdict.stdout == "shared\n",
              f"the stored A/B's verdict is shared: {verdict.returncode} {verdict.stdout!r} {verdict.stderr}")
        label = subprocess.run([sys.executable, COMPARE, "--verdict-label", js], capture_output=True, text=True,
                               timeout=60)
        check(label.returncode == 0 and label.stdout == "shared\n",
              f"the stored A/B's winning label is shared: {label.returncode} {label.stdout!r} {label.stderr}")
        bad = subprocess.run([sys.executable, COMPARE, "--verdict", os.path.join(tmp, "missing.json")],
                             capture_output=True, text=True, timeout=60)
        check(bad.returncode == 2 and "missing.json" in bad.stderr, f"a missing file: exit {bad.returncode}, {bad.stderr}")
    check(d["modes"] == {"base": "per-config", "new": "shared"} and d["labels"] == ["default", "shared", "repeat"],
          f"modes and labels recorded: {d.get('modes')} {d.get('labels')}")
    sys.path.insert(0, os.path.join(ROOT, "scripts", "gpu"))
    import importlib
    compare = importlib.import_module("counters-ab-compare")
    check(compare.verdict(d)[0] == "shared", "verdict() on the stored A/B")
    slower = copy.deepcopy(d)
    slower["runs"]["shared"]["candidates_per_minute"] = slower["runs"]["repeat"]["candidates_per_minute"]
    check(compare.verdict(slower)[0] == "per-config", "not faster than both base runs: the base mode")
    # An A/B of options within one mode: both modes shared, the labels tell the runs apart.
    options = copy.deepcopy(d)
    options["modes"] = {"base": "shared", "new": "shared"}
    options["labels"] = ["shared", "ranges-auto", "repeat"]
    options["runs"] = {"shared": d["runs"]["default"], "ranges-auto": d["runs"]["shared"], "repeat": d["runs"]["repeat"]}
    check(compare.verdict_label(options)[0] == "ranges-auto", "verdict_label(): the new run's label where it won")
    options["runs"]["ranges-auto"] = slower["runs"]["shared"]
    check(compare.verdict_label(options)[0] == "shared", "verdict_label(): the base run's label where it lost")
    unequal = copy.deepcopy(d)
    m = next(m for m, st in unequal["metrics"].items() if st["pairs"] and st["equal_repeat"] == st["pairs"])
    unequal["metrics"][m]["equal_shared"] -= 1
    mode, why = compare.verdict(unequal)
    check(mode == "per-config" and any(m in w for w in why), f"a deterministic metric unequal: {mode} {why}")
    failed = copy.deepcopy(d)
    failed["runs"]["repeat"]["ok"] -= 1
    check(compare.verdict(failed)[0] == "per-config", "a run with a result not ok: the base mode")
    recorded = copy.deepcopy(d)
    recorded["mode_problems"] = ["shared: counters_mode {'(absent)': 2}, expected only shared"]
    check(compare.verdict(recorded)[0] == "per-config", "a mode not recorded as expected: the base mode")
    check(not d["mode_problems"], f"modes recorded as expected: {d['mode_problems']}")
    deterministic = [m for m, s in d["metrics"].items() if s["equal_repeat"] == s["pairs"] > 0]
    check(len(deterministic) >= 10, f"deterministic metrics found: {deterministic}")
    for m in deterministic:
        s = d["metrics"][m]
        check(s["equal_shared"] == s["pairs"], f"{m}: shared equal in {s['equal_shared']} of {s['pairs']} pairs")
    runs = d["runs"]
    check(all(r["ok"] == r["results"] == 20 for r in runs.values()), "20 ok results in each run")
    doc = open(os.path.join(ROOT, "docs", "counters.md")).read()
    for label in ("default", "shared", "repeat"):
        quoted = f"{runs[label]['candidates_per_minute']:.1f} candidates per minute"
        check(quoted in doc, f"docs/counters.md quotes the {label} run's '{quoted}'")
    check_joint()
    check_ranges()
    return finish()


def check_against_shared(d, new, what):
    """What the second and third A/Bs (base shared, 24 candidates of 6 tasks) have in common: 18 deterministic
    metrics, equal in all 52 pairs of the new run against shared too; 24 ok results in each run; docs/counters.md
    quotes the new run's candidates per minute and counters stage median against both shared runs'. Returns the
    runs and the document's text."""
    deterministic = [m for m, s in d["metrics"].items() if s["pairs"] and s["equal_repeat"] == s["pairs"]]
    check(len(deterministic) == 18, f"{what}: 18 deterministic metrics ({len(deterministic)})")
    check(all(d["metrics"][m]["equal_shared"] == d["metrics"][m]["pairs"] == 52 for m in deterministic),
          f"{what}: the deterministic metrics equal in all 52 pairs")
    runs = d["runs"]
    check(all(r["ok"] == r["results"] == 24 for r in runs.values()), f"{what}: 24 ok results in each run")
    doc = open(os.path.join(ROOT, "docs", "counters.md")).read()
    quoted = (f"{runs[new]['candidates_per_minute']:.1f} candidates per minute against "
              f"{runs['shared']['candidates_per_minute']:.1f} and {runs['repeat']['candidates_per_minute']:.1f}")
    check(quoted in doc, f"docs/counters.md quotes '{quoted}'")
    stages = (f"{runs[new]['counters_seconds_median']:.3f} s against {runs['shared']['counters_seconds_median']:.3f} s "
              f"and {runs['repeat']['counters_seconds_median']:.3f} s")
    check(stages in doc, f"docs/counters.md quotes the counters stage medians '{stages}'")
    return runs, doc


def check_joint():
    with tempfile.TemporaryDirectory(prefix="counters-ab-joint-test-") as tmp:
        paths = unpack(JOINT_RUN, ("shared", "joint", "repeat"), tmp)
        d, js = replay(JOINT_RUN, "joint A/B", ["--base", paths["shared"], "--new", paths["joint"], "--repeat",
                                                paths["repeat"], "--base-mode", "shared", "--new-mode", "joint"], tmp)
        # An A/B of options within one mode (--counters-ranges): the new run needs its own label.
        same = [sys.executable, COMPARE, "--base", paths["shared"], "--new", paths["repeat"], "--repeat",
                paths["shared"], "--base-mode", "shared", "--new-mode", "shared"]
        p = subprocess.run(same, capture_output=True, text=True, timeout=120)
        check(p.returncode == 2 and "--new-label" in p.stderr, f"same mode without --new-label: {p.returncode} {p.stderr}")
        p = subprocess.run(same + ["--new-label", "ranges-auto"], capture_output=True, text=True, timeout=120)
        check(p.returncode == 0 and p.stdout.startswith("Counters mode A/B: shared vs ranges-auto, and shared repeated"),
              f"--new-label names the new run: {p.returncode} {p.stdout[:80]!r} {p.stderr}")
        v = subprocess.run([sys.executable, COMPARE, "--verdict", js], capture_output=True, text=True, timeout=60)
        check(v.stdout == "shared\n" and "joint not faster" in v.stderr, f"joint A/B verdict: {v.stdout!r} {v.stderr}")
        joint_docs = []
        for line in open(paths["joint"]):
            r = json.loads(line)
            joint_docs += [c["counters"] for c in r.get("configs", []) if isinstance(c.get("counters"), dict)]
    check(len(joint_docs) == 48 and all(doc.get("counters_mode") == "joint" for doc in joint_docs),
          f"joint A/B: 48 documents, all counters_mode joint ({len(joint_docs)})")
    check(not any(n.startswith("joint session not used") for doc in joint_docs for n in doc.get("notes", [])),
          "joint A/B: no fallback to shared")
    check(all(any(n.startswith("one session for 2 calls") for n in doc.get("notes", [])) for doc in joint_docs),
          "joint A/B: every document names the launches it holds")
    check(not d["mode_problems"], f"joint A/B: modes recorded as expected: {d['mode_problems']}")
    runs, doc = check_against_shared(d, "joint", "joint A/B")
    starts = runs["joint"]["profiler_seconds_median"]["pass_start"]["0"]
    check(f"five Starts take {starts:.3f} s" in doc, f"docs/counters.md quotes joint's Starts {starts:.3f} s")


def median_ratios(new_path, base_path, metric):
    """configuration -> the median over kernel launches of new/base for metric (launches matched by candidate,
    configuration and position)."""
    def load(path):
        out = {}
        for line in open(path):
            r = json.loads(line)
            for c in r.get("configs", []):
                doc = c.get("counters")
                if isinstance(doc, dict):
                    for i, k in enumerate(doc.get("kernels", [])):
                        out[(r["candidate_sha256"], c["name"], i)] = k["metrics"].get(metric)
        return out
    new, base = load(new_path), load(base_path)
    by_config = {}
    for key, b in base.items():
        if b and new.get(key) is not None:
            by_config.setdefault(key[1], []).append(new[key] / b)
    return {c: statistics.median(v) for c, v in by_config.items()}


def check_ranges():
    """The third A/B: shared with the fixed 256-range image against shared with --counters-ranges auto."""
    with tempfile.TemporaryDirectory(prefix="counters-ab-ranges-test-") as tmp:
        paths = unpack(RANGES_RUN, ("shared", "ranges-auto", "repeat"), tmp)
        d, js = replay(RANGES_RUN, "ranges A/B", ["--base", paths["shared"], "--new", paths["ranges-auto"], "--repeat",
                                                  paths["repeat"], "--base-mode", "shared", "--new-mode", "shared",
                                                  "--new-label", "ranges-auto"], tmp)
        v = subprocess.run([sys.executable, COMPARE, "--verdict-label", js], capture_output=True, text=True, timeout=60)
        check(v.returncode == 0 and v.stdout == "ranges-auto\n", f"ranges A/B winning label: {v.stdout!r} {v.stderr}")
        ratios = {m: {label: median_ratios(paths[label], paths["shared"], m) for label in ("ranges-auto", "repeat")}
                  for m in ("dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum")}
    runs, doc = check_against_shared(d, "ranges-auto", "ranges A/B")
    starts = [runs[label]["profiler_seconds_median"]["pass_start"]["0"] for label in ("ranges-auto", "shared", "repeat")]
    check("the five Starts\n  %.3f s against %.3f s and %.3f s" % tuple(starts) in doc,
          f"docs/counters.md quotes the first configuration's Starts {starts}")
    w, r, t = (ratios[m] for m in ("dram__bytes_write.sum", "dram__bytes_read.sum", "gpu__time_duration.sum"))
    for text in (f"DRAM bytes written {w['ranges-auto']['small']:.3f} at the small configuration and "
                 f"{w['ranges-auto']['large']:.3f} at the large one (the repeat: {w['repeat']['small']:.3f} and "
                 f"{w['repeat']['large']:.3f})",
                 f"median ratio to the first run {r['ranges-auto']['small']:.3f} at both configurations",
                 f"duration {t['ranges-auto']['small']:.3f} and {t['ranges-auto']['large']:.3f} (the repeat: "
                 f"{t['repeat']['small']:.3f} and {t['repeat']['large']:.3f})"):
        check(" ".join(text.split()) in " ".join(doc.split()), f"docs/counters.md quotes '{text}'")
    check(abs(r["ranges-auto"]["large"] - r["ranges-auto"]["small"]) < 5e-4, "DRAM reads: the same median at both")


if __name__ == "__main__":
    sys.exit(main())
