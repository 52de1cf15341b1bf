#!/usr/bin/env python3
"""Registers: cudaperf-analyze's resources against cudaFuncGetAttributes measured on a GPU.

Runs the analyzer on each file the measurement covered (data/corpus, data/examples), once per
resource route, and matches kernels by mangled name with the CSV of tools/occupancy-sweep's
kernel-attributes. Prints one summary line per route and, with --details, every mismatch.

Usage: scripts/compare-registers.py --analyzer build/bin/cudaperf-analyze \
           --measured data/measured/kernel-attributes-h200.csv [--routes nvcc,estimate] [--details]
The measured CSV needs columns cubin, kernel, num_regs (shared_size_bytes optional): the GPU's
kernel-attributes output, or scripts/cubin-registers.py's reading of cubins on a CPU host.
"""
import argparse, collections, csv, json, os, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def source_for(cubin):
    stem = cubin[:-len(".cubin")]
    for d in ("data/corpus", "data/examples"):
        p = os.path.join(ROOT, d, stem + ".cu")
        if os.path.exists(p):
            return p
    return None


def analyze(analyzer, path, route, cache):
    env = dict(os.environ, CUDAPERF_RESOURCES=route, CUDAPERF_CACHE_DIR=cache)
    t = time.time()
    p = subprocess.run([analyzer, "--format=json", path], capture_output=True, text=True, env=env)
    dt = time.time() - t
    try:
        d = json.loads(p.stdout)
    except json.JSONDecodeError:
        return {}, dt
    return {k.get("mangled_name", k.get("name")): k.get("resources", {}) for k in d.get("kernels", [])}, dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--analyzer", required=True)
    ap.add_argument("--measured", required=True)
    ap.add_argument("--routes", default="nvcc,estimate")
    ap.add_argument("--details", action="store_true")
    a = ap.parse_args()
    measured = collections.defaultdict(dict)
    with open(a.measured) as f:
        for r in csv.DictReader(f):
            measured[r["cubin"]][r["kernel"]] = r
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.environ.get("CUDAPERF_CACHE_DIR", tmp)
        for route in a.routes.split(","):
            n = exact = missing = 0
            smem_exact = 0
            abs_err = []
            seconds = 0.0
            for cubin, kernels in sorted(measured.items()):
                src = source_for(cubin)
                if not src:
                    continue
                got, dt = analyze(a.analyzer, src, route, cache)
                seconds += dt
                for name, m in sorted(kernels.items()):
                    n += 1
                    r = got.get(name)
                    if not r or "registers" not in r:
                        missing += 1
                        if a.details:
                            print(f"  {route} {cubin} {name}: not in the analyzer's report")
                        continue
                    want = int(m["num_regs"])
                    if r["registers"] == want:
                        exact += 1
                    elif a.details:
                        print(f"  {route} {cubin} {name}: analyzer {r['registers']} ({r.get('source')}) vs measured {want}")
                    abs_err.append(abs(r["registers"] - want))
                    if "shared_size_bytes" in m and r.get("static_smem_bytes") == int(m["shared_size_bytes"]):
                        smem_exact += 1
            mean = sum(abs_err) / len(abs_err) if abs_err else 0
            print(f"route={route}: kernels={n} registers exact={exact} ({100.0 * exact / max(n, 1):.1f}%) "
                  f"mean |error|={mean:.2f} missing={missing} static smem exact={smem_exact} "
                  f"analyzer wall time={seconds:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
