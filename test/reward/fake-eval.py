#!/usr/bin/env python3
"""A stand-in for cudaperf-eval in the reward's command-line and service tests: the result a
candidate gets is chosen by a marker in its source, so the tests need neither nvcc nor a GPU.

  // fake: ok SPEEDUP      correct, every configuration SPEEDUP times faster than the baseline
  // fake: OUTCOME          that outcome (compile_error, wrong_answer, internal_error, ...)
  // fake: crash            the evaluator itself dies (SIGSEGV) without a result
  // fake: sleep SECONDS    wait, then ok 1.0
  // fake: garbage          print something that is not JSON

Usage as cudaperf-eval: fake-eval.py TASK_DIR CANDIDATE --jsonl [--compile-only] [--counters] ...
"""
import hashlib
import json
import os
import re
import signal
import sys
import time


def main():
    argv = sys.argv[1:]
    if "--devices" in argv:  # its value is no positional argument
        del argv[argv.index("--devices") + 1]
    args = [a for a in argv if not a.startswith("--")]
    task_dir, candidate = args[0], args[1]
    compile_only = "--compile-only" in sys.argv
    source = open(candidate, "rb").read()
    m = re.search(rb"// fake: (\w+) ?([0-9.]*)", source)
    kind, value = (m.group(1).decode(), m.group(2).decode()) if m else ("ok", "1")
    if kind == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if kind == "env":  # the environment it was given, for the leak tests
        kind, value = "ok", "1"
        env_text = json.dumps(dict(os.environ))
    else:
        env_text = ""
    if kind == "garbage":
        print("this is not a result")
        return 1
    if kind == "sleep":
        time.sleep(float(value))
        kind, value = "ok", "1"
    task = json.load(open(os.path.join(task_dir, "task.json")))
    result = {"schema": "cudaperf-eval-result/1", "task": task.get("name", os.path.basename(task_dir)),
              "task_dir": os.path.abspath(task_dir), "candidate": candidate,
              "candidate_sha256": hashlib.sha256(source).hexdigest(), "outcome": kind, "detail": env_text,
              "speedup": None, "compile": {"ok": kind != "compile_error",
                                           "log": "candidate.cu(3): error: fake error\n" if kind == "compile_error" else ""},
              "compile_only": compile_only}
    if not compile_only and kind not in ("compile_error", "internal_error"):
        speedup = float(value or 1)
        result["configs"] = []
        for c in task["configs"]:
            timing = lambda ms: {"median_ms": ms, "min_ms": ms, "max_ms": ms, "mean_ms": ms, "p10_ms": ms,
                                 "p90_ms": ms, "spread": 0.0, "runs": 30, "stable": True}
            result["configs"].append({"name": c["name"], "params": {k: v for k, v in c.items() if k != "name"},
                                      "correctness": {"pass": kind == "ok", "checks": []},
                                      "baseline": timing(1.0), "candidate": timing(1.0 / speedup),
                                      "speedup": speedup})
        if kind == "ok":
            result["speedup"] = speedup
        # Where a real evaluator's time goes (docs/eval-result.md), fixed numbers the RL tests look for.
        result["worker"] = {"status": "exit status 0", "seconds": 0.5,
                            "stage_seconds": {"context": 0.125, "baseline": 0.0625, "candidate": 0.25}}
        result["stage_seconds"] = {"queued": 0.0, "build": 0.75, "worker": 0.5, "device_slot": 0.5}
    else:
        result["stage_seconds"] = {"queued": 0.0, "build": 0.75}
    if "--devices" in sys.argv:  # which GPU the caller leased for this candidate (cudaperf-reward --devices)
        result["fake_devices"] = sys.argv[sys.argv.index("--devices") + 1]
    print(json.dumps(result))
    return 1 if kind == "internal_error" else 0


if __name__ == "__main__":
    sys.exit(main())
