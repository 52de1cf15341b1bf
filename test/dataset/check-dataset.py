#!/usr/bin/env python3
"""CPU checks of the generated dataset (docs/dataset.md, "Tests"), one ctest test per step.

    test/dataset/check-dataset.py STEP --dataset-tool BIN [--work DIR] [options]

Steps (each generates the dataset it checks into --work, default a temporary directory):
  determinism   two generations with the same seed are byte-identical (hash of every file);
                another seed differs; the whole dataset's generation time is printed
  manifest      manifest.jsonl and dataset.json agree with the task directories; counts and
                the minimums of issue 15 (families, tasks, implementations, configurations)
  validate      cudaperf-eval --validate accepts every task (--eval BIN)
  pytorch       every pytorch task: model.py passes the importer's source checks, and the task.json
                the generator predicted is the one scripts/import-pytorch-task.py builds from
                model.py and the tensor shapes (the importer's torch-free half)
  compile       a sample of tasks across every family (--sample N, at least one per family)
                builds with `cudaperf-eval --compile-only --jobs 2` (--eval, --nvcc): every
                implementation against the entry point of task.json
  analyze       cudaperf-analyze (--analyzer BIN) runs on every implementation of the sample
  emulate       the sample's implementations run on the CPU emulator (--emulator BIN) and agree
                with reference.c (c tasks) or the baseline (pytorch tasks)
  inputs        the sample's baselines (--emulator BIN) depend on every input their task's reference
                uses: with one `in` argument redrawn, the outputs change (cudaperf-emulate-task
                --inputs-matter). A pytorch task's other implementations are checked against its
                baseline, and a c task's reference.c comes from the same skeleton, so a baseline that
                ignores an input (issue 15: pt_matvec's A, its placeholder taken by the vector x) passes
                every other step. An input that the reference itself never names (a random expression
                without that operand: `out[i] = y`) is allowed and counted

Ends with "N passed, N failed"; exit status 1 on any failure, 2 on bad usage.
"""
import argparse
import hashlib
import importlib.util
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# Issue 15's minimums for the full dataset.
MIN_C_TASKS, MIN_PYTORCH_TASKS = 2900, 1000
MIN_C_FAMILIES, MIN_PYTORCH_FAMILIES = 40, 25


def generate(tool, out, seed=1, extra=()):
    if os.path.exists(out):
        shutil.rmtree(out)
    start = time.time()
    r = subprocess.run([tool, "generate", "--out", out, "--seed", str(seed), "--quiet", *extra],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise SystemExit(f"cudaperf-dataset generate failed ({r.returncode}):\n{r.stderr}")
    return time.time() - start


def tree_hash(root):
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            h.update(os.path.relpath(path, root).encode() + b"\0")
            with open(path, "rb") as f:
                h.update(f.read())
            h.update(b"\0")
    return h.hexdigest()


def read_manifest(out):
    with open(os.path.join(out, "manifest.jsonl")) as f:
        return [json.loads(line) for line in f]


def sample_tasks(entries, size):
    """At least one task of every family, round-robin over families until `size`."""
    by_family = {}
    for e in entries:
        by_family.setdefault(e["family"], []).append(e)
    chosen, depth = [], 0
    while len(chosen) < max(size, len(by_family)):
        added = False
        for family in sorted(by_family):
            tasks = by_family[family]
            if depth < len(tasks):
                # Spread over each family's index range, not only its first tasks.
                index = (depth * 7919) % len(tasks)
                while tasks[index] in chosen:
                    index = (index + 1) % len(tasks)
                chosen.append(tasks[index])
                added = True
                if len(chosen) >= max(size, len(by_family)):
                    break
        if not added:
            break
        depth += 1
    return chosen


class Checker:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {what}", flush=True)
        return ok

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


def step_determinism(args, c):
    t1 = generate(args.dataset_tool, os.path.join(args.work, "a"))
    t2 = generate(args.dataset_tool, os.path.join(args.work, "b"))
    generate(args.dataset_tool, os.path.join(args.work, "c"), seed=2)
    ha, hb, hc = (tree_hash(os.path.join(args.work, d)) for d in "abc")
    print(f"generation: {t1:.1f} s and {t2:.1f} s; hash {ha[:16]} (seed 1), {hc[:16]} (seed 2)")
    c.check(ha == hb, "two generations with seed 1 differ")
    c.check(ha != hc, "seeds 1 and 2 give the same dataset")
    c.check(max(t1, t2) <= 120, f"generation took {max(t1, t2):.0f} s (limit 120 s)")
    # --limit and --families select a prefix of the same tasks.
    sub = os.path.join(args.work, "sub")
    generate(args.dataset_tool, sub, extra=["--limit", "2", "--families", "map_*"])
    for e in read_manifest(sub):
        a = os.path.join(args.work, "a", e["dir"])
        b = os.path.join(sub, e["dir"])
        c.check(tree_hash(a) == tree_hash(b), f"{e['task']}: differs when generated with --limit/--families")


def step_manifest(args, c):
    out = os.path.join(args.work, "a")
    generate(args.dataset_tool, out)
    entries = read_manifest(out)
    with open(os.path.join(out, "dataset.json")) as f:
        doc = json.load(f)
    c.check(doc.get("schema") == "cudaperf-dataset/1", "dataset.json schema")
    c.check(doc["counts"]["tasks"] == len(entries), "dataset.json counts.tasks != manifest lines")
    kinds = {"c": 0, "pytorch": 0}
    families = {"c": set(), "pytorch": set()}
    splits = {}
    names = set()
    for e in entries:
        where = e.get("task", "?")
        c.check(e["task"] not in names, f"{where}: task name twice")
        names.add(e["task"])
        kinds[e["kind"]] += 1
        families[e["kind"]].add(e["family"])
        splits[e["split"]] = splits.get(e["split"], 0) + 1
        d = os.path.join(out, e["dir"])
        c.check(os.path.basename(d) == e["task"], f"{where}: dir does not end in the task name")
        c.check(os.path.isfile(os.path.join(d, "task.json")), f"{where}: no task.json")
        c.check(os.path.isfile(os.path.join(d, "reference.c" if e["kind"] == "c" else "model.py")),
                f"{where}: no reference")
        impls = e["implementations"]
        c.check(len(impls) >= 3, f"{where}: {len(impls)} implementations")
        c.check(impls[0]["file"] == "impls/baseline.cu" and impls[0]["baseline"], f"{where}: baseline not first")
        c.check(sum(i["baseline"] for i in impls) == 1, f"{where}: not exactly one baseline")
        c.check(len({tuple(i["strategies"]) for i in impls}) == len(impls), f"{where}: two implementations share labels")
        for i in impls:
            c.check(os.path.isfile(os.path.join(d, i["file"])), f"{where}: {i['file']} missing")
            c.check(bool(i["strategies"]) and i["expected"] in ("fast", "slow", "neutral"), f"{where}: {i['file']} labels")
        on_disk = sorted(os.listdir(os.path.join(d, "impls")))
        c.check(on_disk == sorted(os.path.basename(i["file"]) for i in impls), f"{where}: impls/ != manifest")
        c.check(len(e["configs"]) >= 2, f"{where}: fewer than 2 configurations")
        c.check(e["split"] in ("train", "val", "test"), f"{where}: split {e['split']}")
    held_out = {f["name"] for f in doc["families"] if f["held_out"]}
    for e in entries:
        if e["family"] in held_out:
            c.check(e["split"] == "test", f"{e['task']}: a held-out family's task outside the test split")
    print(f"{kinds['c']} c tasks in {len(families['c'])} families, {kinds['pytorch']} pytorch tasks in "
          f"{len(families['pytorch'])} families; splits {splits}; held-out families {sorted(held_out)}")
    c.check(kinds["c"] >= MIN_C_TASKS, f"{kinds['c']} c tasks (issue 15: at least {MIN_C_TASKS})")
    c.check(kinds["pytorch"] >= MIN_PYTORCH_TASKS, f"{kinds['pytorch']} pytorch tasks (at least {MIN_PYTORCH_TASKS})")
    c.check(len(families["c"]) >= MIN_C_FAMILIES, f"{len(families['c'])} c families (at least {MIN_C_FAMILIES})")
    c.check(len(families["pytorch"]) >= MIN_PYTORCH_FAMILIES,
            f"{len(families['pytorch'])} pytorch families (at least {MIN_PYTORCH_FAMILIES})")
    for kind in ("c", "pytorch"):
        c.check(any(f["kind"] == kind and f["held_out"] for f in doc["families"]), f"no held-out {kind} family")
    c.check(all(splits.get(s, 0) > 0 for s in ("train", "val", "test")), f"an empty split: {splits}")


def step_validate(args, c):
    out = os.path.join(args.work, "a")
    generate(args.dataset_tool, out)
    dirs = [os.path.join(out, e["dir"]) for e in read_manifest(out)]
    for k in range(0, len(dirs), 1000):
        chunk = dirs[k:k + 1000]
        r = subprocess.run([args.eval, "--validate", *chunk], capture_output=True, text=True, timeout=600)
        bad = [line for line in r.stderr.splitlines() if line.strip()]
        for line in bad[:20]:
            print(line)
        ok_lines = sum(1 for line in r.stdout.splitlines() if ": ok (" in line)
        c.check(r.returncode == 0 and ok_lines == len(chunk),
                f"cudaperf-eval --validate: {len(chunk) - ok_lines} of {len(chunk)} tasks rejected")
    print(f"validated {len(dirs)} tasks")


def load_importer():
    spec = importlib.util.spec_from_file_location("import_pytorch_task",
                                                  os.path.join(ROOT, "scripts", "import-pytorch-task.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def observations_from_task(task, source, imp):
    """What the importer would observe on the GPU, from the predicted task.json's shapes."""
    extras = imp.source_extras(source)
    configs = imp.problem_configs(extras["CONFIGS"], imp.module_size_globals(source))
    args = {a["name"]: a for a in task["args"]}
    shapes = task["pytorch"]["shapes"]
    forward = imp.forward_parameter_names(source)
    observations = []
    for name, params in configs:
        def tensor(arg):
            dims = [imp.evaluate_count(d, params) for d in shapes[arg]]
            return {"name": arg, "kind": "tensor", "dtype": args[arg]["dtype"], "shape": dims, "min": -1, "max": 1}
        inputs = [tensor(a) for a in forward]
        weights = [tensor(a) for a in task["pytorch"]["forward_args"] if a not in forward]
        outputs = [{"name": a, "dtype": args[a]["dtype"], "shape": tensor(a)["shape"]} for a in task["pytorch"]["outputs"]]
        observations.append({"name": name, "params": params, "inputs": inputs, "weights": weights, "outputs": outputs})
    return observations, extras


def step_pytorch(args, c):
    out = os.path.join(args.work, "a")
    generate(args.dataset_tool, out, extra=["--kind", "pytorch"])
    imp = load_importer()
    count = 0
    for e in read_manifest(out):
        d = os.path.join(out, e["dir"])
        source = open(os.path.join(d, "model.py")).read()
        problems = imp.check_model_source(source)
        if not c.check(not problems, f"{e['task']}: model.py: {problems}"):
            continue
        predicted = json.load(open(os.path.join(d, "task.json")))
        try:
            observations, _ = observations_from_task(predicted, source, imp)
            built = imp.build_task(e["task"], imp.model_description(source), observations, imp.build_extras(source))
        except imp.TaskImportError as err:
            c.check(False, f"{e['task']}: the importer rejects it: {err}")
            continue
        if not c.check(json.loads(json.dumps(built)) == predicted,
                       f"{e['task']}: predicted task.json differs from the importer's:\n"
                       f"  predicted {json.dumps(predicted)}\n  importer  {json.dumps(built)}"):
            continue
        signature = imp.c_signature(built)
        for i in e["implementations"]:
            comment = imp.signature_comment(open(os.path.join(d, i["file"])).read())
            c.check(comment is not None and imp.normalize_signature(comment) == imp.normalize_signature(signature),
                    f"{e['task']}: {i['file']} says `{comment}`, the importer's entry is `{signature}`")
        count += 1
    print(f"{count} pytorch tasks: task.json as the importer will write it")


def sample_dirs(args, out):
    generate(args.dataset_tool, out)
    return [(e, os.path.join(out, e["dir"])) for e in sample_tasks(read_manifest(out), args.sample)]


def step_compile(args, c):
    out = os.path.join(args.work, "a")
    sample = sample_dirs(args, out)
    batch = os.path.join(args.work, "compile.batch")
    with open(batch, "w") as f:
        for e, d in sample:
            for i in e["implementations"]:
                f.write(f"{d} {os.path.join(d, i['file'])}\n")
    cmd = [args.eval, "--batch", batch, "--compile-only", "--jobs", str(args.jobs), "--jsonl",
           "--cache-dir", os.path.join(args.work, "build-cache")]
    if args.nvcc:
        cmd += ["--nvcc", args.nvcc]
    start = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=3000)
    results = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    expected = sum(len(e["implementations"]) for e, _ in sample)
    c.check(len(results) == expected, f"{len(results)} results for {expected} implementations: {r.stderr[-2000:]}")
    for res in results:
        c.check(res.get("outcome") == "ok",
                f"{res.get('candidate')}: {res.get('outcome')}: {str(res.get('detail', ''))[:1500]}")
    print(f"compiled {expected} implementations of {len(sample)} tasks "
          f"({len({e['family'] for e, _ in sample})} families) in {time.time() - start:.0f} s")


def step_analyze(args, c):
    out = os.path.join(args.work, "a")
    sample = sample_dirs(args, out)
    files = [os.path.join(d, i["file"]) for e, d in sample for i in e["implementations"]]
    # Two processes (2 cores), each analysing its half of the files.
    halves = [files[k::args.jobs] for k in range(args.jobs)]
    procs = [subprocess.Popen([args.analyzer, "--format=json", *h], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for h in halves if h]
    start = time.time()
    for p, h in zip(procs, halves):
        stdout, stderr = p.communicate(timeout=1800)
        ok = c.check(p.returncode == 0, f"cudaperf-analyze exit {p.returncode} on {len(h)} files:\n{stderr[-3000:]}")
        if ok:
            report = json.loads(stdout)
            for f in report.get("files", []):
                c.check(f.get("analysed") and f.get("kernels", 0) >= 1, f"cudaperf-analyze: {f.get('file')}: {f}")
            c.check(len(report.get("files", [])) == len(h), f"cudaperf-analyze reported {len(report.get('files', []))} "
                    f"of {len(h)} files")
    print(f"analyzed {len(files)} implementations of {len(sample)} tasks in {time.time() - start:.0f} s")


def step_emulate(args, c):
    out = os.path.join(args.work, "a")
    sample = sample_dirs(args, out)
    start = time.time()
    r = subprocess.run([args.emulator, "--jobs", str(args.jobs), "--sets", "1", "--work",
                        os.path.join(args.work, "emulate"), *[d for _, d in sample]],
                       capture_output=True, text=True, timeout=3000)
    for line in r.stdout.splitlines():
        if line.startswith("ok"):
            c.check(True, line)
        elif line.startswith("FAIL"):
            c.check(False, line[5:])
    c.check(r.returncode == 0, f"cudaperf-emulate-task exit {r.returncode}: {r.stderr[-2000:]}")
    print(f"emulated {len(sample)} tasks in {time.time() - start:.0f} s")


def names_in_reference(entry, d):
    """The arguments the task's own reference names: identifiers in reference.c's entry function, or in
    model.py's forward (its tensor inputs; parameters and buffers are always counted as named)."""
    task = json.load(open(os.path.join(d, "task.json")))
    pointers = [a["name"] for a in task["args"] if a["type"] == "pointer"]
    if entry["kind"] == "c":
        source = open(os.path.join(d, "reference.c")).read()
        body = source[source.index("void " + entry["task"] + "("):]
        body = body[body.index("{"):]  # past the parameter list
        return {a for a in pointers if re.search(r"\b" + re.escape(a) + r"\b", body)}
    source = open(os.path.join(d, "model.py")).read()
    m = re.search(r"def forward\(self,?\s*([^)]*)\):\n(.*?)(?:\n\n|\Z)", source, re.S)
    forward = [p.strip() for p in m.group(1).split(",") if p.strip()]
    return {a for a in pointers if a not in forward or re.search(r"\b" + re.escape(a) + r"\b", m.group(2))}


def step_inputs(args, c):
    out = os.path.join(args.work, "a")
    sample = sample_dirs(args, out)
    by_name = {e["task"]: (e, d) for e, d in sample}
    start = time.time()
    r = subprocess.run([args.emulator, "--jobs", str(args.jobs), "--sets", "1", "--impls", "baseline",
                        "--inputs-matter", "--work", os.path.join(args.work, "emulate"), *[d for _, d in sample]],
                       capture_output=True, text=True, timeout=3000)
    unnamed = []
    failed = False
    for line in r.stdout.splitlines():
        if line.startswith("ok"):
            c.check(True, line)
        elif line.startswith("FAIL"):
            m = re.match(r"FAIL (\S+) baseline: config \S+: the outputs do not depend on input\(s\) (.*?) \(", line)
            if m and m.group(1) in by_name:
                ignored = m.group(2).split(", ")
                named = names_in_reference(*by_name[m.group(1)])
                wrong = [a for a in ignored if a in named]
                if not wrong:  # the reference does not use them either: the task's own spec
                    unnamed.append(f"{m.group(1)} ({', '.join(ignored)})")
                    c.check(True, line)
                    continue
                c.check(False, f"{m.group(1)}: its reference uses {', '.join(wrong)} but the baseline's outputs "
                               f"do not depend on {'it' if len(wrong) == 1 else 'them'}: {line[5:]}")
            else:
                c.check(False, line[5:])
            failed = True
    c.check(r.returncode == 0 or not failed, f"cudaperf-emulate-task exit {r.returncode}: {r.stderr[-2000:]}")
    if unnamed:
        print(f"{len(unnamed)} tasks declare inputs that neither their reference nor their baseline uses: "
              + "; ".join(unnamed))
    print(f"checked the baselines of {len(sample)} tasks ({len({e['family'] for e, _ in sample})} families) "
          f"for ignored inputs in {time.time() - start:.0f} s")


STEPS = {"determinism": step_determinism, "manifest": step_manifest, "validate": step_validate,
         "pytorch": step_pytorch, "compile": step_compile, "analyze": step_analyze, "emulate": step_emulate,
         "inputs": step_inputs}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("step", choices=sorted(STEPS))
    ap.add_argument("--dataset-tool", required=True)
    ap.add_argument("--eval")
    ap.add_argument("--nvcc")
    ap.add_argument("--analyzer")
    ap.add_argument("--emulator")
    ap.add_argument("--work", help="work directory (default: a temporary one, removed afterwards)")
    ap.add_argument("--sample", type=int, default=100, help="tasks in the compile/analyze/emulate sample")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    need = {"validate": "eval", "compile": "eval", "analyze": "analyzer", "emulate": "emulator",
            "inputs": "emulator"}.get(args.step)
    if need and not getattr(args, need):
        ap.error(f"step {args.step} needs --{need}")
    temporary = args.work is None
    if temporary:
        args.work = tempfile.mkdtemp(prefix="cudaperf-dataset-check-")
    os.makedirs(args.work, exist_ok=True)
    c = Checker()
    try:
        STEPS[args.step](args, c)
    finally:
        if temporary:
            shutil.rmtree(args.work, ignore_errors=True)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
