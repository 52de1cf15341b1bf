#!/usr/bin/env python3
"""The policy's held-out candidates of an RL run as cudaperf-bench candidate directories (docs/bench.md,
"The policy's candidates").

    scripts/policy-candidates.py RUN_DIR|CANDIDATES.jsonl[.gz] OUTDIR [--labels before,after]
                                 [--dataset DATASET_DIR] [--force]

`cudaperf-train rl` (and `eval-policy`) log every candidate of their held-out evaluations to
candidates.jsonl (schema cudaperf-rl-candidate/1, docs/training.md): records whose "phase" is
"eval:<label>:<set>", label `before` (the policy RL started from: the SFT policy), `after` (the RL
policy), `step N` (eval_every) or `policy` (eval-policy), set `train_families` or `held_out_families`,
each with task, family, trajectory, turn (1..T), outcome and the candidate's full "source" (null when
the answer had no code block; then "completion" holds the answer's text).

For every label found (or those of --labels) it writes OUTDIR/<label>/<task>/<trajectory>/turn<t>.cu, the
layout cudaperf-bench reads (`--candidates OUTDIR/<label> --turns T`; a label with characters other than
letters, digits, _ . - gets them replaced by "-": "step 10" -> step-10). A turn without code gets no file:
cudaperf-bench then takes the sample's best earlier turn, as the RL evaluation's best-of-T does, and a
sample without any code counts as a failed (missing) sample. OUTDIR/policy-candidates.json
(schema cudaperf-policy-candidates/1) lists, per label, every task with its eval set and family, each
sample's turns with their outcome as the RL run recorded it, which turns got a file and which had no
code; and the counts.

--dataset DATASET_DIR (a directory of cudaperf-dataset generate, with manifest.jsonl): each task must be
in the manifest (its directory and split are listed; a split other than "test" is a warning), its
configurations are compared with those the RL run's reward documents recorded, and OUTDIR/suite-<set>.json
(cudaperf-suite/1) lists exactly the tasks of each eval set, so the figures of the tasks the policy was
evaluated on can be scored apart from the whole test split (`cudaperf-bench --results ... --suite
OUTDIR/suite-train_families.json`).

Exit status: 0 written; 1 a bad input (no such file, not JSON Lines, no held-out evaluation records, a
record without task/turn/trajectory, a source whose sha256 is not the recorded one, two different
sources for one task/sample/turn, a label asked for that the file does not have, a task missing from
the dataset, OUTDIR/<label> already there without --force); 2 bad usage.
"""
import argparse
import gzip
import hashlib
import json
import os
import re
import shutil
import sys

SCHEMA = "cudaperf-policy-candidates/1"
NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


class InputError(Exception):
    pass


def candidates_file(path):
    if os.path.isdir(path):
        for name in ("candidates.jsonl.gz", "candidates.jsonl"):
            if os.path.isfile(os.path.join(path, name)):
                return os.path.join(path, name)
        raise InputError(f"{path}: no candidates.jsonl.gz or candidates.jsonl in this run directory")
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file or directory")
    return path


def read_records(path):
    """The eval:* records of a candidates file, with their line numbers."""
    opener = gzip.open if path.endswith(".gz") else open
    records, lines = [], 0
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                lines = number
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                except ValueError as e:
                    raise InputError(f"{path}:{number}: not a JSON line ({e})")
                if not isinstance(r, dict):
                    raise InputError(f"{path}:{number}: expected a JSON object")
                phase = r.get("phase")
                if isinstance(phase, str) and phase.startswith("eval:"):
                    records.append((number, r))
    except (OSError, EOFError, UnicodeDecodeError) as e:  # gzip.BadGzipFile is an OSError
        raise InputError(f"{path}: cannot be read ({e})")
    if not records:
        raise InputError(f"{path}: no held-out evaluation records (phase \"eval:<label>:<set>\") among its "
                         f"{lines} lines: not a candidates.jsonl of cudaperf-train rl or eval-policy, or the run "
                         "ended before its first evaluation")
    return records


def dir_name(label):
    return re.sub(r"[^A-Za-z0-9_.-]", "-", label)


def collect(path, records):
    """label -> {"set_of": task -> set, "family": task -> family, "step": ..., "turns": {(task, sample, turn): record}}"""
    labels = {}
    for number, r in records:
        where = f"{path}:{number}"
        parts = r["phase"].split(":", 2)
        if len(parts) != 3 or not parts[1] or not parts[2]:
            raise InputError(f"{where}: phase \"{r['phase']}\" is not eval:<label>:<set>")
        label, eval_set = parts[1], parts[2]
        task, turn, trajectory = r.get("task"), r.get("turn"), r.get("trajectory")
        if not isinstance(task, str) or not NAME.match(task):
            raise InputError(f"{where}: \"task\" {json.dumps(task)} is not a task name (letters, digits, _ . -)")
        if not isinstance(turn, int) or isinstance(turn, bool) or turn < 1:
            raise InputError(f"{where}: \"turn\" {json.dumps(turn)} is not a turn number (1, 2, ...)")
        if not isinstance(trajectory, int) or isinstance(trajectory, bool) or trajectory < 0:
            raise InputError(f"{where}: \"trajectory\" {json.dumps(trajectory)} is not a sample number (0, 1, ...)")
        source = r.get("source")
        if source is not None and not isinstance(source, str):
            raise InputError(f"{where}: \"source\" is neither text nor null")
        if source:
            sha = r.get("source_sha256")
            if sha and hashlib.sha256(source.encode("utf-8")).hexdigest() != sha:
                raise InputError(f"{where}: the source's sha256 is not the recorded source_sha256 {sha}")
        L = labels.setdefault(label, {"set_of": {}, "family": {}, "steps": set(), "turns": {}})
        if L["set_of"].setdefault(task, eval_set) != eval_set:
            raise InputError(f"{where}: task {task} is in eval sets {L['set_of'][task]} and {eval_set} of label {label}")
        L["family"][task] = r.get("family") or ""
        L["steps"].add(r.get("step"))
        key = (task, str(trajectory), turn)
        if key in L["turns"]:
            before = L["turns"][key][1].get("source")
            if before != source:
                raise InputError(f"{where}: a second, different candidate for {task} sample {trajectory} turn {turn} "
                                 f"of label {label} (first at line {L['turns'][key][0]})")
            continue
        L["turns"][key] = (number, r)
    return labels


def read_manifest(dataset):
    manifest = os.path.join(dataset, "manifest.jsonl")
    if not os.path.isfile(manifest):
        raise InputError(f"{dataset}: no manifest.jsonl (a directory of cudaperf-dataset generate)")
    tasks = {}
    with open(manifest) as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                try:
                    m = json.loads(line)
                    tasks[m["task"]] = m
                except (ValueError, KeyError, TypeError) as e:
                    raise InputError(f"{manifest}:{number}: not a manifest line ({e})")
    return tasks


def config_mismatches(task_dir, records):
    """Configurations whose parameters differ between the task.json and what the RL run's reward documents say."""
    try:
        task = json.load(open(os.path.join(task_dir, "task.json")))
    except (OSError, ValueError):
        return None  # a PyTorch task before its import: nothing to compare
    ours = {c.get("name"): c for c in task.get("configs", [])}
    out = []
    for r in records:
        for c in ((r.get("reward_document") or {}).get("configurations") or []):
            mine = ours.get(c.get("name"))
            if mine is None:
                out.append(f"configuration {c.get('name')} is not in {task_dir}/task.json")
                continue
            for k, v in (c.get("params") or {}).items():
                if k in mine and isinstance(v, (int, float)) and isinstance(mine[k], (int, float)) and float(mine[k]) != float(v):
                    out.append(f"configuration {c.get('name')}: {k} is {mine[k]} in task.json, {v} in the run")
    return sorted(set(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("input", help="an RL run directory (with candidates.jsonl.gz or candidates.jsonl) or the file")
    ap.add_argument("outdir")
    ap.add_argument("--labels", help="comma-separated labels to write (default: every label in the file)")
    ap.add_argument("--dataset", help="the dataset directory the tasks come from (manifest.jsonl): check and write suites")
    ap.add_argument("--force", action="store_true", help="replace OUTDIR/<label> when it exists")
    args = ap.parse_args()
    try:
        path = candidates_file(args.input)
        labels = collect(path, read_records(path))
        chosen = list(labels)
        if args.labels:
            chosen = [l for l in args.labels.split(",") if l]
            absent = [l for l in chosen if l not in labels]
            if absent:
                raise InputError(f"{path}: no evaluation labelled {', '.join(absent)} (it has: {', '.join(labels)})")
        manifest = read_manifest(args.dataset) if args.dataset else None
        for label in chosen:
            target = os.path.join(args.outdir, dir_name(label))
            if os.path.exists(target) and not args.force:
                raise InputError(f"{target}: already there (remove it, or pass --force)")
            for task in sorted(labels[label]["set_of"]) if manifest is not None else []:
                if task not in manifest:
                    raise InputError(f"{args.dataset}/manifest.jsonl: no task {task} (label {label}, set "
                                     f"{labels[label]['set_of'][task]}); the run used another dataset (seed, generator version)")

        listing = {"schema": SCHEMA, "input": os.path.abspath(path), "layout": "<label>/<task>/<sample>/turn<t>.cu",
                   "labels": {}}
        warnings = []
        sets_tasks = {}  # eval set -> task -> manifest entry
        for label in chosen:
            L = labels[label]
            target = os.path.join(args.outdir, dir_name(label))
            if os.path.exists(target):
                shutil.rmtree(target)
            os.makedirs(target)
            tasks, records_of = {}, {}
            for (task, sample, turn), (number, r) in sorted(L["turns"].items(), key=lambda kv: (kv[0][0], int(kv[0][1]), kv[0][2])):
                t = tasks.setdefault(task, {"task": task, "family": L["family"][task], "set": L["set_of"][task],
                                            "samples": {}})
                s = t["samples"].setdefault(sample, {"turns": {}, "written": [], "no_code": []})
                records_of.setdefault(task, []).append(r)
                s["turns"][str(turn)] = {"outcome": r.get("outcome"), "correct": r.get("correct"),
                                         "speedup": r.get("speedup"), "line": number}
                if r.get("source"):
                    d = os.path.join(target, task, sample)
                    os.makedirs(d, exist_ok=True)
                    with open(os.path.join(d, f"turn{turn}.cu"), "w", encoding="utf-8") as f:
                        f.write(r["source"])
                    s["written"].append(turn)
                else:
                    s["no_code"].append(turn)
                    s["turns"][str(turn)]["completion"] = (r.get("completion") or "")[:200]
            for t in tasks.values():
                if manifest is not None:
                    m = manifest[t["task"]]
                    t["dir"], t["split"], t["kind"] = m.get("dir"), m.get("split"), m.get("kind")
                    if t["split"] != "test":
                        warnings.append(f"{t['task']} is in split {t['split']} of the dataset, not test")
                    bad = config_mismatches(os.path.join(args.dataset, m.get("dir", "")), records_of[t["task"]])
                    t["configs_match"] = None if bad is None else not bad
                    warnings += [f"{t['task']}: {b}" for b in bad or []]
                    sets_tasks.setdefault(t["set"], {})[t["task"]] = m
            samples = sum(len(t["samples"]) for t in tasks.values())
            written = sum(len(s["written"]) for t in tasks.values() for s in t["samples"].values())
            no_code = sum(len(s["no_code"]) for t in tasks.values() for s in t["samples"].values())
            without = sum(1 for t in tasks.values() for s in t["samples"].values() if not s["written"])
            turns = max((k[2] for k in L["turns"]), default=0)
            by_set = {}
            for t in tasks.values():
                by_set.setdefault(t["set"], []).append(t["task"])
            per_turn = {str(n): sum(n in s["written"] for t in tasks.values() for s in t["samples"].values())
                        for n in range(1, turns + 1)}
            listing["labels"][label] = {
                "dir": dir_name(label), "phase": f"eval:{label}:*", "steps": sorted(x for x in L["steps"] if x is not None),
                "tasks": len(tasks), "samples": samples, "turns": turns, "files": written, "files_per_turn": per_turn,
                "turns_without_code": no_code, "samples_without_code": without,
                "sets": {k: sorted(v) for k, v in sorted(by_set.items())},
                "task_list": [tasks[k] for k in sorted(tasks)]}
            sets_text = ", ".join(f"{k} {len(v)}" for k, v in sorted(by_set.items()))
            print(f"{label}: {len(tasks)} tasks ({sets_text}), {samples} samples, turns 1..{turns}: {written} files "
                  f"({', '.join(f'turn {k}: {v}' for k, v in per_turn.items())}), {no_code} turns without code "
                  f"({without} samples with none) -> {target}")
        if manifest is not None:
            listing["dataset"] = os.path.abspath(args.dataset)
            listing["suites"] = {}
            for eval_set, members in sorted(sets_tasks.items()):
                suite = {"schema": "cudaperf-suite/1", "name": f"policy-{eval_set}",
                         "description": f"The tasks of eval set {eval_set} of {os.path.abspath(path)} "
                                        f"(scripts/policy-candidates.py), from the dataset's test split",
                         "root": os.path.relpath(os.path.abspath(args.dataset), os.path.abspath(args.outdir)),
                         "disallowed_libraries": ["cublas", "cublasLt", "cudnn"],
                         "tasks": [members[t]["dir"] for t in sorted(members)]}
                file = os.path.join(args.outdir, f"suite-{eval_set}.json")
                with open(file, "w") as f:
                    json.dump(suite, f, indent=1)
                    f.write("\n")
                listing["suites"][eval_set] = os.path.basename(file)
        listing["warnings"] = warnings
        with open(os.path.join(args.outdir, "policy-candidates.json"), "w") as f:
            json.dump(listing, f, indent=1)
            f.write("\n")
        for w in warnings:
            print("warning:", w, file=sys.stderr)
        return 0
    except InputError as e:
        print(f"policy-candidates.py: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"policy-candidates.py: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
