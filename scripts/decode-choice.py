#!/usr/bin/env python3
"""Which `decode` an experiment arm uses, from a decode A/B (scripts/gpu/decode-ab.sh's decode-ab.json).

Prints `graph` or `dynamic` on stdout and the reason on stderr. `graph` only when, at the arm's batch
(--batch, 24 = 6 tasks x G = 4):
  - the graph's rows equal static's in greedy decoding and in sampling (it replays static's step: the same
    kernels in the same order, so anything else is a capture fault), at least --min-identical of them;
  - static's greedy rows agree with dynamic's for --min-prefix tokens on average (a wrong mask or cache index
    diverges at the first tokens; bf16 rounding differences later are expected and harmless);
  - the graph is at least --min-ratio times dynamic's tokens/s when sampling (the RL rollouts sample).
Anything missing (a run that failed or ran out of time) chooses `dynamic`. Exit 0 with a choice; 2 when the
file cannot be read.
Usage: decode-choice.py DECODE_AB_JSON [--batch 24] [--min-ratio 1.25] [--min-identical 0.9] [--min-prefix 32]
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ab")
    ap.add_argument("--batch", type=int, default=24)
    ap.add_argument("--min-ratio", type=float, default=1.25)
    ap.add_argument("--min-identical", type=float, default=0.9)
    ap.add_argument("--min-prefix", type=float, default=32)
    a = ap.parse_args()
    try:
        rows = json.load(open(a.ab))
        if not isinstance(rows, list):
            raise ValueError("not a list of results")
    except (OSError, ValueError) as e:
        print(f"decode-choice: cannot read {a.ab}: {e}", file=sys.stderr)
        return 2

    def get(sampling, decode):
        for r in rows:
            if isinstance(r, dict) and r.get("batch") == a.batch and r.get("sampling") == sampling and r.get("decode") == decode:
                return r
        return None

    def choose(decode, why):
        print(decode)
        print(f"decode-choice: {decode} ({why})", file=sys.stderr)
        return 0

    need = {(s, d): get(s, d) for s in ("greedy", "t1") for d in ("dynamic", "static", "graph")}
    missing = [f"{s} {d}" for (s, d), r in need.items() if r is None]
    if missing:
        return choose("dynamic", f"no result at batch {a.batch} for " + ", ".join(missing))
    for s in ("greedy", "t1"):
        same = need[(s, "graph")].get("rows_identical_to_static")
        if same is None or same < a.min_identical:
            return choose("dynamic", f"graph rows identical to static's when {s}: {same} < {a.min_identical}")
    prefix = need[("greedy", "static")].get("mean_common_prefix")
    if prefix is None or prefix < a.min_prefix:
        return choose("dynamic", f"static's greedy rows agree with dynamic's for {prefix} tokens on average < {a.min_prefix}")
    g, d = need[("t1", "graph")]["tokens_per_second"], need[("t1", "dynamic")]["tokens_per_second"]
    if not d or g / d < a.min_ratio:
        return choose("dynamic", f"graph {g:.0f} tokens/s against dynamic's {d:.0f}: below x{a.min_ratio}")
    return choose("graph", f"x{g / d:.2f} dynamic's tokens/s when sampling at batch {a.batch}; rows identical to static; "
                           f"greedy common prefix with dynamic {prefix:.0f} tokens")


if __name__ == "__main__":
    sys.exit(main())
