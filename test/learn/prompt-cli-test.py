#!/usr/bin/env python3
"""cudaperf-train prompt (docs/reward.md, "Reward components and the prompt"): the messages, the ChatML
text and a refinement prompt for a shipped task; bad usage exits 2, a missing task 1 or 2 with a message."""
import json
import os
import subprocess
import sys
import tempfile

train, root = sys.argv[1], sys.argv[2]
task = os.path.join(root, "data", "tasks", "transpose")
failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    failures += not cond


def run(*args):
    return subprocess.run([train, "prompt", *args], capture_output=True, text=True, timeout=60)


r = run(task)
msgs = json.loads(r.stdout) if r.returncode == 0 else []
check([m["role"] for m in msgs] == ["system", "user"], "messages: system then the task (%s)" % r.stderr[-200:])
check(len(msgs) == 2 and "transpose" in msgs[1]["content"] and "```cuda" in msgs[0]["content"] + msgs[1]["content"],
      "messages: the task's text and the answer format")
r = run(task, "--format", "chatml")
check(r.returncode == 0 and r.stdout.startswith("<|im_start|>system") and r.stdout.rstrip().endswith("<|im_start|>assistant"),
      "chatml: the assistant turn opened")
with tempfile.TemporaryDirectory() as d:
    cand, fb = os.path.join(d, "first.cu"), os.path.join(d, "first.txt")
    open(cand, "w").write("__global__ void k() {}  // FIRST-CANDIDATE\n")
    open(fb, "w").write("Outcome: wrong_answer (FIRST-FEEDBACK)\n")
    r = run(task, "--format", "json", "--turn", cand, "--feedback", fb)
    doc = json.loads(r.stdout) if r.returncode == 0 else {}
    roles = [m["role"] for m in doc.get("messages", [])]
    check(roles == ["system", "user", "assistant", "user"], "a refinement prompt: the turn's candidate and feedback (%s)" % roles)
    check("FIRST-CANDIDATE" in doc.get("chatml", "") and "FIRST-FEEDBACK" in doc.get("chatml", ""),
          "json: the ChatML holds the earlier turn")
    r = run(task, "--turn", cand)
    check(r.returncode == 2 and "--feedback" in r.stderr, "a --turn without its --feedback: exit 2 (%d)" % r.returncode)
r = run(task, "--format", "yaml")
check(r.returncode == 2 and "--format" in r.stderr, "an unknown format: exit 2")
r = run()
check(r.returncode == 2, "no task: exit 2")
r = run(os.path.join(root, "data", "tasks", "no-such-task"))
check(r.returncode in (1, 2) and r.stderr.strip() != "", "a task that does not exist: a message, exit %d" % r.returncode)
sys.exit(1 if failures else 0)
