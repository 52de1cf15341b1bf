#!/usr/bin/env python3
"""Bad input never crashes: cudaperf-analyze on damaged copies of real CUDA files.

usage: mutate-check.py --sources DIR [--files 40] [--seed 1] [--jobs 2] [--out FILE.jsonl]

Takes --files files of data/realcode/manifest.jsonl (seeded choice) and makes five copies of each,
damaged differently: truncated at a random point, 10% of the lines deleted, random bytes and
tokens inserted, one kernel duplicated (a redefinition), braces and parentheses removed. Each copy
is analysed (with the file's flags, in its directory, 120 s limit). Passes when every run exits with
0 or 1 and none is killed by a signal, times out or prints a stack dump; prints one line per
failure and a summary, writes one JSON line per run to --out.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def truncate(text, rng):
    return text[:rng.randrange(1, max(2, len(text)))]


def delete_lines(text, rng):
    lines = text.split("\n")
    return "\n".join(l for l in lines if rng.random() > 0.1)


def insert_garbage(text, rng):
    pieces = ["\x01\x7f", "<<<", ">>>", "__shared__", "}", "{", "#if", "#endif", "asm(\"%", "\"",
              "template <", "::", "__global__ void", "0x", "/*", "*/", "alignas(", "<<<1,"]
    chars = list(text)
    for _ in range(12):
        chars.insert(rng.randrange(len(chars) + 1), rng.choice(pieces))
    return "".join(chars)


def duplicate_kernel(text, rng):
    kernels = [m.start() for m in re.finditer(r"__global__", text)]
    if not kernels:
        return text + "\n" + text[: len(text) // 3]
    start = rng.choice(kernels)
    end = text.find("\n}\n", start)
    end = len(text) if end < 0 else end + 3
    return text[:end] + "\n" + text[start:end] + text[end:]


def drop_brackets(text, rng):
    return "".join(c for c in text if not (c in "{}()" and rng.random() < 0.05))


MUTATIONS = [truncate, delete_lines, insert_garbage, duplicate_kernel, drop_brackets]


def run_one(args, entry, mutation, seed):
    root = os.path.join(args.sources, entry["repository"].replace("/", "+"))
    path = os.path.join(root, entry["path"])
    rng = random.Random(seed)
    with open(path, errors="replace") as f:
        text = mutation(f.read(), rng)
    directory = os.path.dirname(path)
    # The copy sits next to the original, so that its includes resolve as the original's do.
    fd, mutant = tempfile.mkstemp(prefix=".cudaperf-mutant-", suffix=".cu", dir=directory)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    flags = [x.replace("{root}", root) for x in entry["flags"]]
    env = dict(os.environ, CUDAPERF_CACHE_DIR=os.path.join(tempfile.gettempdir(), "cudaperf-mutants-cache"))
    row = {"path": entry["path"], "mutation": mutation.__name__, "seed": seed}
    try:
        p = subprocess.run([args.analyzer, "--format=json", mutant, "--"] + flags, cwd=directory,
                           capture_output=True, timeout=120, env=env)
        err = p.stderr.decode(errors="replace")
        row["exit"] = p.returncode
        row["ok"] = p.returncode in (0, 1) and "Stack dump" not in err and "PLEASE submit" not in err
    except subprocess.TimeoutExpired:
        row["exit"] = None
        row["ok"] = False
        row["timed_out"] = True
    finally:
        os.unlink(mutant)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--sources", required=True)
    ap.add_argument("--manifest", default=os.path.join(ROOT, "data/realcode/manifest.jsonl"))
    ap.add_argument("--analyzer", default=os.path.join(ROOT, "build/bin/cudaperf-analyze"))
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out")
    args = ap.parse_args()
    args.sources = os.path.abspath(args.sources)
    manifest = [json.loads(l) for l in open(args.manifest) if l.strip()]
    rng = random.Random(args.seed)
    chosen = rng.sample(manifest, min(args.files, len(manifest)))
    work = [(e, m, args.seed * 1000 + i * 10 + j) for i, e in enumerate(chosen) for j, m in enumerate(MUTATIONS)]
    rows = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for row in pool.map(lambda w: run_one(args, *w), work):
            rows.append(row)
            if not row["ok"]:
                print("FAIL %s %s exit=%s" % (row["path"], row["mutation"], row["exit"]), flush=True)
    if args.out:
        with open(args.out, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    bad = [r for r in rows if not r["ok"]]
    by_exit = {}
    for r in rows:
        by_exit[str(r["exit"])] = by_exit.get(str(r["exit"]), 0) + 1
    print("mutate-check: %d runs on %d files, %d failures (signal, time-out or stack dump); exit codes %s"
          % (len(rows), len(chosen), len(bad), by_exit))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
