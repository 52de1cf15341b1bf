#!/usr/bin/env python3
"""Import KernelBench's problems as cudaperf tasks, one report line per problem.

    scripts/import-kernelbench.py KERNELBENCH [--levels 1,2,3] [--out build/kernelbench] [--problems GLOB]
                                  [--stall-timeout S] [--level-timeout S] [--report FILE]
    scripts/import-kernelbench.py KERNELBENCH --write-suites data/suites

KERNELBENCH is a KernelBench checkout (github ScalingIntelligence/KernelBench: its root or its
KernelBench/ folder), or the copy scripts/fetch-kernelbench.sh makes (.carry/kernelbench). Problem
levelN/<id>_<Name>.py becomes task levelN_<id>_<Name> in OUT/levelN_<id>_<Name>/: model.py (the
problem, with two lines appended: MODE = "train", because KernelBench calls its models as
constructed, in training mode, and INPUTS_ON_DEVICE = True), then task.json and exported/ from scripts/import-pytorch-task.py, which runs all
problems of a level in one process. Sizes are KernelBench's own (one configuration, "default").

A problem the importer refuses keeps its reason in OUT/<task>/import-error.txt (cudaperf-bench shows
it for suites that list the task). A problem that makes no progress for --stall-timeout seconds is
killed with the importer process, reported as refused ("over the time limit"), and the importer
restarts on the problems after it. OUT/import-report.json has every problem's outcome, reason and
seconds, and each level's time; the summary table goes to stdout.

--write-suites DIR writes DIR/kernelbench-level{1,2,3}.json (cudaperf-suite/1) listing every problem
of the checkout (run it when KernelBench adds problems; no PyTorch needed).

Exit status: 0 every problem imported or refused with a reason; 1 the importer could not run;
2 bad usage.
"""
import argparse
import fnmatch
import importlib.util
import json
import os
import re
import selectors
import subprocess
import sys
import time

REPORT_SCHEMA = "cudaperf-kernelbench-import/1"
MODE_LINES = ('\n\n# Added by scripts/import-kernelbench.py: KernelBench calls models as constructed (training '
              'mode),\n# and its inputs are large enough that they are better made on the GPU.\n'
              'MODE = "train"\nINPUTS_ON_DEVICE = True\n')
KERNELBENCH_TOLERANCE = None  # KernelBench's fp32 tolerance (1e-4) is the evaluator's default
PROBLEM_FILE = re.compile(r"(\d+)_([A-Za-z0-9_]+)\.py")


# ---------------------------------------------------------------------------------------------
# No torch, no processes: tested by test/tasks/test_import_kernelbench.py
# ---------------------------------------------------------------------------------------------

def levels_dir(path):
    """The folder holding level1/, level2/, level3/ inside a checkout, its KernelBench/ or a copy."""
    for candidate in (path, os.path.join(path, "KernelBench")):
        if os.path.isdir(os.path.join(candidate, "level1")):
            return candidate
    raise SystemExit(f"error: {path}: no level1/ folder (expected a KernelBench checkout, its KernelBench/ "
                     "folder, or the copy of scripts/fetch-kernelbench.sh)")


def task_name(level, filename):
    """levelN_<file stem>: a C identifier for every KernelBench file name (they are <id>_<Name>.py)."""
    m = PROBLEM_FILE.fullmatch(filename)
    if not m:
        return None
    return f"level{level}_{m.group(1)}_{m.group(2)}"


def problems_of(root, level, pattern="*"):
    """[(problem id, file name, task name)] of one level, in KernelBench's numeric order."""
    folder = os.path.join(root, f"level{level}")
    if not os.path.isdir(folder):
        return []
    found = []
    for f in os.listdir(folder):
        name = task_name(level, f)
        if name and (fnmatch.fnmatch(f, pattern) or fnmatch.fnmatch(name, pattern)):
            found.append((int(PROBLEM_FILE.fullmatch(f).group(1)), f, name))
    return sorted(found)


def model_source(original):
    """model.py of the task: KernelBench's file, then the MODE line."""
    return original.rstrip("\n") + MODE_LINES


def parse_importer_line(line):
    """("start", label) for "== label", ("error", label, reason) for "error: label: reason", else None."""
    if line.startswith("== "):
        # "== label", or "== label: already imported" (--skip-done)
        return ("start", re.split(r"[\s:]", line[3:].strip(), maxsplit=1)[0])
    m = re.match(r"error: ([A-Za-z0-9_]+): (.*)", line)
    if m:
        return ("error", m.group(1), m.group(2).strip())
    return None


# KernelBench level-1 problems that compute what a shipped PyTorch problem computes (read from both
# sources): its impls/baseline.cu, renamed, becomes the imported task's baseline when the entry
# points take the same types in the same order.
SHIPPED_EQUIVALENTS = {
    "level1_1_Square_matrix_multiplication_": "matmul_square",    # A @ B, (N, N)
    "level1_3_Batched_matrix_multiplication": "matmul_batched",   # torch.bmm
    "level1_4_Matrix_vector_multiplication_": "matvec",           # (M, K) @ (K, 1)
    "level1_16_Matmul_with_transposed_A": "matmul_at",            # A.T @ B, A (K, M)
    "level1_19_ReLU": "relu",
    "level1_20_LeakyReLU": "leaky_relu",                          # negative_slope 0.01
    "level1_21_Sigmoid": "sigmoid",
    "level1_22_Tanh": "tanh_act",
    "level1_23_Softmax": "softmax_last_dim",                      # dim=1 of a 2-d input
    "level1_24_LogSoftmax": "log_softmax_last_dim",
    "level1_25_Swish": "silu",                                    # x * sigmoid(x)
    "level1_48_Mean_reduction_over_a_dimension": "mean_mid_dim",  # dim=1 of a 3-d input
    "level1_49_Max_reduction_over_a_dimension": "max_dim",
}


def parameter_types(signature):
    """"void f(const float *x, int n, cudaStream_t stream)" -> ["const float *", "int", "cudaStream_t"]."""
    m = re.search(r"\((.*)\)", signature, re.S)
    if not m:
        return None
    types = []
    for p in m.group(1).split(","):
        p = " ".join(p.split())
        name = re.search(r"(\w+)\s*$", p)
        types.append(re.sub(r"\s*\*\s*", " *", p[:name.start()].strip()) if name else p)
    return types


def renamed_baseline(source, old, new):
    """A baseline.cu whose entry point (its `// entry:` comment and `extern "C"` definition) is called `new`."""
    out = []
    for line in source.split("\n"):
        if line.lstrip().startswith("// entry:") or 'extern "C"' in line:
            line = re.sub(rf"\b{re.escape(old)}(\s*\()", rf"{new}\1", line)
        out.append(line)
    return "\n".join(out)


def adopt_baseline(task_dir, name, shipped_root, c_signature):
    """Writes TASK_DIR/impls/baseline.cu from the shipped equivalent, if any; returns what was done."""
    shipped = SHIPPED_EQUIVALENTS.get(name)
    if not shipped:
        return ""
    base = os.path.join(shipped_root, shipped, "impls", "baseline.cu")
    try:
        source = open(base).read()
        with open(os.path.join(task_dir, "task.json")) as f:
            task = json.load(f)
    except (OSError, ValueError) as e:
        return f"no baseline: {e}"
    m = re.search(r"^//\s*entry:\s*(void\s+\w+\s*\([^)]*\))", source, re.M)
    ours = c_signature(task)
    if not m or parameter_types(m.group(1)) != parameter_types(ours):
        return f"no baseline: {shipped}'s entry point takes other arguments than `{ours}`"
    os.makedirs(os.path.join(task_dir, "impls"), exist_ok=True)
    with open(os.path.join(task_dir, "impls", "baseline.cu"), "w") as f:
        f.write(f"// Adopted by scripts/import-kernelbench.py from {os.path.relpath(base, os.path.dirname(shipped_root))}"
                "\n" + renamed_baseline(source, shipped, name))
    return f"baseline from {shipped}"


# Refusal reasons in classes, for the report's table (first match wins).
REASON_CLASSES = [
    # import-pytorch-task.py: "forward is not deterministic: two calls with the same inputs differ (...)"
    ("random", r"random|nondetermin|not deterministic|differs between two calls|two calls with the same inputs differ"),
    ("dtype", r"dtype|has no task dtype"),
    ("size expression", r"cannot express|size expression|count .* !="),
    ("output type", r"forward must return|returns no tensor|non-tensor"),
    ("inputs", r"get_inputs|forward takes|only tensors and numbers"),
    ("names", r"names used twice|not usable in C|C identifier"),
    ("trace", r"does not reproduce|trace"),
    ("time limit", r"time limit|no progress"),
    ("memory", r"out of memory|OutOfMemory"),
]


def reason_class(reason):
    for name, pattern in REASON_CLASSES:
        if re.search(pattern, reason, re.IGNORECASE):
            return name
    return "other"


def suite_document(level, problems):
    """data/suites/kernelbench-levelN.json for the problems of one level."""
    return {
        "schema": "cudaperf-suite/1",
        "name": f"kernelbench-level{level}",
        "description": f"KernelBench level {level} ({len(problems)} problems), imported by "
                       "scripts/import-kernelbench.py at KernelBench's own sizes (docs/bench.md). Set "
                       "CUDAPERF_KERNELBENCH_TASKS to the import's --out directory if it is not build/kernelbench.",
        "root": "${CUDAPERF_KERNELBENCH_TASKS:-../../build/kernelbench}",
        "disallowed_libraries": ["cublas", "cublasLt", "cudnn"],
        "tasks": [{"dir": name, "source": f"level{level}/{f}"} for _, f, name in problems],
    }


def format_suite(doc):
    """One task per line, like the other suite files."""
    head = {k: v for k, v in doc.items() if k != "tasks"}
    lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()] + ['  "tasks": [']
    lines += [f"    {json.dumps(t)}" + ("," if i + 1 < len(doc["tasks"]) else "") for i, t in enumerate(doc["tasks"])]
    return "\n".join(lines + ["  ]", "}"]) + "\n"


def level_summary(records):
    imported = sum(r["outcome"] == "imported" for r in records)
    return {"problems": len(records), "imported": imported, "refused": len(records) - imported}


# ---------------------------------------------------------------------------------------------
# Running the importer
# ---------------------------------------------------------------------------------------------

def importer_module():
    """scripts/import-pytorch-task.py's helpers (c_signature), loaded once; no torch needed."""
    global _IMPORTER
    if _IMPORTER is None:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "import-pytorch-task.py")
        spec = importlib.util.spec_from_file_location("import_pytorch_task", path)
        _IMPORTER = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_IMPORTER)
    return _IMPORTER


_IMPORTER = None


class ImporterUnusable(Exception):
    """The importer exited with status 2 before its first problem: no PyTorch, no GPU."""


def run_importer(importer, model_paths, stall_timeout, deadline, log, importer_args=()):
    """Runs the importer over model_paths in one process, restarting it after a problem that stalls
    or crashes it. Yields (label, outcome, reason, seconds) per problem, in order."""
    pending = list(model_paths)
    while pending:
        proc = subprocess.Popen([sys.executable, importer, *importer_args, *pending], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        fd = proc.stdout.fileno()
        sel = selectors.DefaultSelector()
        sel.register(fd, selectors.EVENT_READ)
        buffered, current, started, errors, done, tail = b"", None, time.monotonic(), {}, [], []
        last_output, killed = time.monotonic(), None
        while True:
            now = time.monotonic()
            if deadline and now > deadline:
                killed = "not imported: the level's time limit (--level-timeout) passed"
            elif current and now - last_output > stall_timeout:
                killed = f"over the time limit: no progress for {stall_timeout:g} s (the importer was killed)"
            if killed:
                proc.kill()
                break
            if not sel.select(timeout=1.0):
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break  # the importer closed its output: it has ended
            last_output = time.monotonic()
            buffered += chunk
            *lines, buffered = buffered.split(b"\n")
            for raw in lines:
                line = raw.decode("utf-8", "replace")
                log.write(line + "\n")
                tail = (tail + [line])[-5:]
                parsed = parse_importer_line(line)
                if parsed and parsed[0] == "start":
                    if current:
                        done.append((current, time.monotonic() - started))
                    current, started = parsed[1], time.monotonic()
                elif parsed and parsed[0] == "error":
                    errors[parsed[1]] = parsed[2]
        proc.wait()
        sel.close()
        proc.stdout.close()
        log.flush()
        if not current and not killed and proc.returncode == 2:
            raise ImporterUnusable("\n".join(tail) or "exit status 2 (no PyTorch or no CUDA?)")
        # Exit status 0 or 1: every problem it was given was dealt with (1: some were refused).
        finished_normally = not killed and proc.returncode in (0, 1)
        if current and finished_normally:
            done.append((current, time.monotonic() - started))
        for label, seconds in done:
            reason = errors.get(label)
            yield label, ("refused" if reason else "imported"), reason or "", seconds
        finished = {label for label, _ in done}
        if current and not finished_normally:
            why = killed or f"the importer ended during this problem (exit status {proc.returncode})"
            yield current, "refused", why, time.monotonic() - started
            finished.add(current)
        rest = [p for p in pending if os.path.basename(os.path.dirname(p)) not in finished]
        if (killed and killed.startswith("not imported")) or (finished_normally and rest) or \
                (not current and rest):
            why = killed if killed else "the importer never reached it"
            for p in rest:
                yield os.path.basename(os.path.dirname(p)), "refused", why, 0.0
            return
        pending = rest


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kernelbench", metavar="KERNELBENCH")
    ap.add_argument("--levels", default="1,2,3")
    ap.add_argument("--out", default="build/kernelbench")
    ap.add_argument("--problems", default="*", help="glob over file or task names (19_*, level1_2*)")
    ap.add_argument("--stall-timeout", type=float, default=90, help="seconds a problem may go without output")
    ap.add_argument("--level-timeout", type=float, default=0, help="seconds per level in all (0: none)")
    ap.add_argument("--report", help="default OUT/import-report.json")
    ap.add_argument("--log", help="the importer's output (default OUT/import.log)")
    ap.add_argument("--write-suites", metavar="DIR", help="write the suite files for the checkout and stop")
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"),
                    help="cpu: try without a GPU (the traces are then CPU traces, for checking the import only)")
    ap.add_argument("--baselines", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                                                          "tasks", "pytorch"),
                    help="shipped PyTorch problems whose baselines equivalent problems adopt ('' for none)")
    ap.add_argument("--importer", help=argparse.SUPPRESS)  # tests: a stand-in for import-pytorch-task.py
    args = ap.parse_args(argv)
    try:
        levels = [int(x) for x in args.levels.split(",") if x]
    except ValueError:
        ap.error(f"--levels {args.levels}: comma-separated level numbers")
    root = levels_dir(args.kernelbench)

    if args.write_suites:
        os.makedirs(args.write_suites, exist_ok=True)
        for level in levels:
            problems = problems_of(root, level)
            if not problems:
                continue
            path = os.path.join(args.write_suites, f"kernelbench-level{level}.json")
            with open(path, "w") as f:
                f.write(format_suite(suite_document(level, problems)))
            print(f"{path}: {len(problems)} problems")
        return 0

    importer = args.importer or os.path.join(os.path.dirname(os.path.abspath(__file__)), "import-pytorch-task.py")
    os.makedirs(args.out, exist_ok=True)
    report_path = args.report or os.path.join(args.out, "import-report.json")
    log = open(args.log or os.path.join(args.out, "import.log"), "w")
    records, per_level = [], {}
    for level in levels:
        problems = problems_of(root, level, args.problems)
        if not problems:
            print(f"level {level}: no problems in {root}/level{level}", file=sys.stderr)
            continue
        models = {}
        for _, f, name in problems:
            task_dir = os.path.join(args.out, name)
            os.makedirs(task_dir, exist_ok=True)
            for stale in ("task.json", "import-error.txt", os.path.join("impls", "baseline.cu")):
                if os.path.exists(os.path.join(task_dir, stale)):
                    os.unlink(os.path.join(task_dir, stale))
            with open(os.path.join(root, f"level{level}", f)) as src, open(os.path.join(task_dir, "model.py"), "w") as dst:
                dst.write(model_source(src.read()))
            models[name] = (f, os.path.join(task_dir, "model.py"))
        started = time.monotonic()
        deadline = started + args.level_timeout if args.level_timeout else None
        level_records = []
        print(f"== level {level}: {len(problems)} problems", flush=True)
        try:
            outcomes = list(run_importer(importer, [m for _, m in models.values()], args.stall_timeout, deadline, log,
                                         ["--device", args.device] if args.device != "cuda" else []))
        except ImporterUnusable as e:
            print(f"error: {importer} cannot import anything here: {str(e).strip()[-500:]}", file=sys.stderr)
            return 1
        for label, outcome, reason, seconds in outcomes:
            f = models.get(label, ("?", ""))[0]
            if outcome == "refused":
                with open(os.path.join(args.out, label, "import-error.txt"), "w") as e:
                    e.write(reason + "\n")
            elif not os.path.isfile(os.path.join(args.out, label, "task.json")):
                outcome, reason = "refused", "the importer wrote no task.json"
            rec = {"level": level, "file": f, "task": label, "outcome": outcome, "reason": reason,
                   "reason_class": reason_class(reason) if reason else "", "seconds": round(seconds, 2)}
            if outcome == "imported" and args.baselines:
                rec["baseline"] = adopt_baseline(os.path.join(args.out, label), label, args.baselines,
                                                 importer_module().c_signature)
            level_records.append(rec)
            print(f"  {outcome:8} {label}  {seconds:6.1f} s  {reason[:160]}", flush=True)
        seen = {r["task"] for r in level_records}
        for name, (f, _) in models.items():  # never reported by the importer at all
            if name not in seen:
                level_records.append({"level": level, "file": f, "task": name, "outcome": "refused",
                                      "reason": "the importer never reached it", "reason_class": "other",
                                      "seconds": 0.0})
        per_level[str(level)] = dict(level_summary(level_records), seconds=round(time.monotonic() - started, 1))
        records += level_records
        print(f"level {level}: {per_level[str(level)]}", flush=True)
    log.close()
    classes = {}
    for r in records:
        if r["outcome"] == "refused":
            classes[r["reason_class"]] = classes.get(r["reason_class"], 0) + 1
    report = {"schema": REPORT_SCHEMA, "kernelbench": os.path.abspath(root), "out": os.path.abspath(args.out),
              "levels": per_level, "refusal_classes": classes, "problems": records}
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    print("\n| level | problems | imported | refused | seconds |\n|---|---|---|---|---|")
    for level, s in per_level.items():
        print(f"| {level} | {s['problems']} | {s['imported']} | {s['refused']} | {s['seconds']} |")
    print(f"report: {report_path}")
    return 0 if records else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
