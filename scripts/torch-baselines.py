#!/usr/bin/env python3
"""PyTorch baselines of pytorch-to-cuda tasks: eager and torch.compile times per configuration.

    scripts/torch-baselines.py TASK_DIR... [--no-compile] [--jobs N] [--deadline S] [--task-timeout S]

For every configuration of each task's task.json: model.py run afresh with that configuration's
globals (as scripts/import-pytorch-task.py does), the model built with torch.manual_seed(0) in the
mode the task was imported in (MODE in model.py; eval by default), inputs from get_inputs() on the
GPU, then

  * eager: the module called from Python;
  * compile: torch.compile(model) with Inductor's default mode, dynamic=False, after
    torch._dynamo.reset(); the first (compiling) call is timed separately as compile_seconds;

each timed as the evaluator times candidates (docs/eval-result.md): warm-up calls, then per call a
buffer of twice the L2 size filled on the stream, CUDA events around the call, until at least
--min-runs calls and --budget-ms spent (or --max-runs); median, percentiles and the spread; the wall
clock of each call beside the events. TF32 is off in matmuls and convolutions, as in the reference.

Writes TASK_DIR/exported/torch-timing.json (schema cudaperf-torch-timing/1), which cudaperf-bench
reads for its torch.compile figures (docs/bench.md), and one summary line per task on stdout.
libTorch (C++) has no torch.compile, so this runs in Python next to cudaperf-torch-reference.

Time caps: --task-timeout per task (compilation included; a task past it gets an "error" entry for
what was left), --deadline for the whole run (tasks not started by then are listed as skipped).
--jobs N compiles in N processes and lets one at a time time on the GPU (a file lock).
Exit status: 0 every task timed (compile failures are results, reported per configuration), 1 a task
could not be timed at all, 2 bad usage or no PyTorch/CUDA.

The helpers above the "PyTorch side" line need no torch, so the CPU tests import them.
"""
import argparse
import contextlib
import importlib.util
import json
import math
import os
import signal
import subprocess
import sys
import time

SCHEMA = "cudaperf-torch-timing/1"
OUTPUT_NAME = "torch-timing.json"


class TaskTimeout(Exception):
    """The per-task time limit passed (raised from SIGALRM, in the middle of whatever ran)."""


# ---------------------------------------------------------------------------------------------
# No torch
# ---------------------------------------------------------------------------------------------

def percentile(sorted_values, q):
    """Linear interpolation between closest ranks (as runtime/TimingStats.cpp does)."""
    if not sorted_values:
        return float("nan")
    pos = min(max(q, 0.0), 1.0) * (len(sorted_values) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def summarize(samples_ms):
    """The evaluator's timing summary: runs, median_ms, min_ms, max_ms, mean_ms, p10_ms, p90_ms, spread."""
    s = sorted(samples_ms)
    median = percentile(s, 0.5)
    p10, p90 = percentile(s, 0.1), percentile(s, 0.9)
    return {"runs": len(s), "median_ms": median, "min_ms": s[0], "max_ms": s[-1], "mean_ms": sum(s) / len(s),
            "p10_ms": p10, "p90_ms": p90, "spread": (p90 - p10) / median if median > 0 else 0.0}


def keep_timing(samples, elapsed_ms, min_runs, max_runs, budget_ms):
    """Whether the timing loop takes another sample."""
    if len(samples) >= max_runs:
        return False
    return len(samples) < min_runs or elapsed_ms < budget_ms


def config_globals(config):
    """A task.json configuration's values without its name: the globals model.py is run with."""
    return {k: v for k, v in config.items() if k != "name"}


def read_task(task_dir):
    """(task.json as a dict, path of model.py); raises ValueError for a task this script cannot time."""
    path = os.path.join(task_dir, "task.json")
    try:
        with open(path) as f:
            task = json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: {e}")
    if task.get("kind") != "pytorch-to-cuda" or "pytorch" not in task:
        raise ValueError(f"{path}: not a pytorch-to-cuda task")
    model = os.path.join(task_dir, task["pytorch"].get("module", "model.py"))
    if not os.path.isfile(model):
        raise ValueError(f"{model}: missing")
    if not task.get("configs"):
        raise ValueError(f"{path}: no configurations")
    return task, model


def shard(items, index, count):
    """Every count-th item from index: how --jobs splits the tasks (round robin keeps sizes mixed)."""
    return items[index::count]


def timing_document(task_name, torch_version, device, mode, conventions, configs):
    return {"schema": SCHEMA, "task": task_name, "torch_version": torch_version, "device": device, "mode": mode,
            "conventions": conventions, "configs": configs}


@contextlib.contextmanager
def time_limit(seconds):
    """Raises TaskTimeout in the main thread after `seconds` (no limit for None or <= 0)."""
    if not seconds or seconds <= 0:
        yield
        return
    def expire(signum, frame):
        raise TaskTimeout(f"over the {seconds:g} s limit per task")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def gpu_turn(lock_path):
    """Exclusive use of the GPU among the --jobs processes while timing (fcntl lock on a file)."""
    if not lock_path:
        yield
        return
    import fcntl
    with open(lock_path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def load_importer():
    """scripts/import-pytorch-task.py as a module (model loading, the MODE extra)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "import-pytorch-task.py")
    spec = importlib.util.spec_from_file_location("import_pytorch_task", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------------------------
# PyTorch side
# ---------------------------------------------------------------------------------------------

class Timer:
    """The evaluator's timing loop on the current stream (--device cpu: the wall clock, no flush)."""

    def __init__(self, torch, args):
        self.torch = torch
        self.args = args
        self.cuda = args.device == "cuda"
        l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 64 << 20) if self.cuda else 0
        self.flush = torch.empty(max(2 * l2, 1 << 20), dtype=torch.uint8, device=args.device)

    def conventions(self):
        a = self.args
        if not self.cuda:
            return {"events": "none: --device cpu, the wall clock of each call (a trial of the script, not a baseline)"}
        return {"events": "CUDA events around each call on the current stream", "l2_flush_bytes": self.flush.numel(),
                "l2_flush": "the buffer filled on the stream before every timed call", "warmup": a.warmup,
                "min_runs": a.min_runs, "max_runs": a.max_runs, "budget_ms": a.budget_ms, "tf32": False,
                "compile": "torch.compile(model) (Inductor, mode default, dynamic=False) after torch._dynamo.reset(), "
                           "first call excluded and reported as compile_seconds",
                "wall_clock": "perf_counter around each call and its stop event, beside the event time"}

    def measure(self, call):
        torch = self.torch
        with torch.no_grad():
            for _ in range(self.args.warmup):
                call()
            if self.cuda:
                torch.cuda.synchronize()
            samples, walls = [], []
            start = time.perf_counter()
            while keep_timing(samples, (time.perf_counter() - start) * 1e3, self.args.min_runs, self.args.max_runs,
                              self.args.budget_ms):
                if not self.cuda:
                    t0 = time.perf_counter()
                    call()
                    samples.append((time.perf_counter() - t0) * 1e3)
                    walls.append(samples[-1])
                    continue
                self.flush.fill_(len(samples) & 0xFF)
                before, after = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                before.record()
                t0 = time.perf_counter()
                call()
                after.record()
                after.synchronize()
                walls.append((time.perf_counter() - t0) * 1e3)
                samples.append(before.elapsed_time(after))
        stats = summarize(samples)
        stats["wall_median_ms"] = percentile(sorted(walls), 0.5)
        return stats


def build(torch, importer, model_path, config, mode, device):
    """Model and inputs of one configuration on the device, created there directly where PyTorch can
    (>= 2.0: no host copies of large inputs)."""
    module = importer.load_model_module(model_path, config_globals(config))
    torch.manual_seed(0)
    where = torch.device(device)
    with where if hasattr(where, "__enter__") else contextlib.nullcontext():
        model = module.Model(*module.get_init_inputs())
        inputs = list(module.get_inputs())
    model = model.to(device)
    model.train(mode == "train")
    inputs = [v.to(device) if isinstance(v, torch.Tensor) else v for v in inputs]
    return model, inputs


def describe(e):
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:300] if text else ''}"


def time_config(torch, importer, timer, model_path, config, mode, entry, args, lock_path):
    """Fills entry["eager"] and, unless --no-compile, entry["compile"] (a timing or an "error")."""
    model, inputs = build(torch, importer, model_path, config, mode, args.device)
    try:
        with gpu_turn(lock_path):
            entry["eager"] = timer.measure(lambda: model(*inputs))
        if not args.compile:
            return
        try:
            torch._dynamo.reset()
            compiled = torch.compile(model, dynamic=False)
            t0 = time.perf_counter()
            with torch.no_grad():
                compiled(*inputs)  # compiles
            if args.device == "cuda":
                torch.cuda.synchronize()
            compile_seconds = time.perf_counter() - t0
            with gpu_turn(lock_path):
                entry["compile"] = timer.measure(lambda: compiled(*inputs))
            entry["compile"]["compile_seconds"] = round(compile_seconds, 3)
        except TaskTimeout:
            raise
        except Exception as e:  # compilation failing is a result, not a failure of the run
            entry["compile"] = {"error": describe(e)}
    finally:
        del model, inputs


def time_task(torch, importer, timer, task_dir, args, lock_path):
    task, model_path = read_task(task_dir)
    with open(model_path) as f:
        mode = importer.model_mode(importer.source_extras(f.read()))
    configs = {}
    started = time.monotonic()
    try:
        with time_limit(args.task_timeout):
            for config in task["configs"]:
                entry = configs[config["name"]] = {}
                try:
                    time_config(torch, importer, timer, model_path, config, mode, entry, args, lock_path)
                except TaskTimeout:
                    raise
                except Exception as e:  # out of memory, a model that raises: a result for this config
                    entry.setdefault("eager_error", describe(e))
                if args.device == "cuda":
                    torch.cuda.empty_cache()
    except TaskTimeout as e:
        for config in task["configs"]:
            entry = configs.setdefault(config["name"], {})
            if args.compile and "compile" not in entry:
                entry["compile"] = {"error": f"not measured: {e}"}
            if "eager" not in entry:
                entry.setdefault("eager_error", f"not measured: {e}")
    device = torch.cuda.get_device_name() if args.device == "cuda" else "cpu"
    doc = timing_document(task["name"], torch.__version__, device, mode, timer.conventions(), configs)
    out = os.path.join(task_dir, "exported", OUTPUT_NAME)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    summary = {"task": task["name"], "seconds": round(time.monotonic() - started, 2), "configs": {}}
    for name, entry in configs.items():
        summary["configs"][name] = {
            "eager_ms": entry.get("eager", {}).get("median_ms"),
            "compile_ms": entry.get("compile", {}).get("median_ms"),
            "compile_seconds": entry.get("compile", {}).get("compile_seconds"),
            "compile_error": entry.get("compile", {}).get("error"), "eager_error": entry.get("eager_error")}
    return summary


def run_tasks(task_dirs, args, lock_path):
    importer = load_importer()
    torch = importer.import_torch(args.device, "the baselines are GPU timings")
    if torch is None:
        return 2
    timer = Timer(torch, args)
    deadline = time.monotonic() + args.deadline if args.deadline else None
    failed = 0
    for task_dir in task_dirs:
        if deadline and time.monotonic() > deadline:
            print(json.dumps({"task": os.path.basename(task_dir), "skipped": "the run's --deadline passed"}), flush=True)
            continue
        try:
            print(json.dumps(time_task(torch, importer, timer, task_dir, args, lock_path)), flush=True)
        except Exception as e:
            failed += 1
            print(json.dumps({"task": os.path.basename(os.path.abspath(task_dir)),
                              "error": f"{type(e).__name__}: {str(e)[:300]}"}), flush=True)
    return 1 if failed else 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tasks", nargs="+", metavar="TASK_DIR")
    ap.add_argument("--no-compile", dest="compile", action="store_false", help="eager only")
    ap.add_argument("--jobs", type=int, default=1, help="processes compiling at once (timing stays one at a time)")
    ap.add_argument("--deadline", type=float, default=0, help="seconds for the whole run (0: none)")
    ap.add_argument("--task-timeout", type=float, default=120, help="seconds per task, compilation included")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--min-runs", type=int, default=20)
    ap.add_argument("--max-runs", type=int, default=1000)
    ap.add_argument("--budget-ms", type=float, default=100)
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"),
                    help="cpu: try the script without a GPU (wall-clock times, not baselines)")
    ap.add_argument("--lock", help=argparse.SUPPRESS)  # set by the parent for its --jobs children
    args = ap.parse_args(argv)
    if args.jobs < 1 or args.min_runs < 1 or args.max_runs < args.min_runs or args.warmup < 0:
        ap.error("--jobs, --min-runs >= 1, --max-runs >= --min-runs, --warmup >= 0")
    if args.jobs == 1 or len(args.tasks) == 1:
        return run_tasks(args.tasks, args, args.lock)
    # Children each take every jobs-th task; their summary lines come through their stdout.
    lock = os.path.join("/tmp", f"cudaperf-torch-baselines-{os.getpid()}.lock")
    child_args = [a for a in argv if a not in args.tasks]
    procs = []
    for i in range(args.jobs):
        mine = shard(args.tasks, i, args.jobs)
        if mine:
            cmd = [sys.executable, os.path.abspath(__file__), *mine, *child_args, "--jobs", "1", "--lock", lock]
            procs.append(subprocess.Popen(cmd))
    codes = [p.wait() for p in procs]
    with contextlib.suppress(OSError):
        os.unlink(lock)
    return max(codes) if codes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
