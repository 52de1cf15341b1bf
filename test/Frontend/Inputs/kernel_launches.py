"""Prints one line per kernel of a cudaperf-analyze JSON report: name, mangled name, launch origin,
grid, block, dynamic shared memory, known parameters, launch bounds, shared arrays."""
import json
import sys

report = json.load(sys.stdin if sys.argv[1] == "-" else open(sys.argv[1]))
assert report["schema_version"] == 1
for k in report["kernels"]:
    l = k["launch"]
    params = ",".join("%s:%s" % (n, v) for n, v in sorted(l["params"].items()))
    line = "%s %s %s grid=%s block=%s smem=%d params=%s" % (
        k["name"], k["mangled_name"], l["origin"], l["grid"], l["block"], l["dynamic_smem_bytes"], params)
    if k["launch_bounds"]:
        lb = k["launch_bounds"]
        line += " bounds=%s/%s" % (lb["max_threads"], lb["min_blocks"])
    if k["shared_arrays"]:
        line += " shared=" + ",".join(
            "%s:%s" % (s["name"], "dynamic" if s["dynamic"] else s["bytes"]) for s in k["shared_arrays"])
    print(line)
