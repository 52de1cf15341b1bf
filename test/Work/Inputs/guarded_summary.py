"""One line per kernel: FLOPs, shared bytes, and each global access's lane executions, for FileCheck."""
import json
import sys


def fmt(v):
    return "None" if v is None else str(v)


doc = json.load(open(sys.argv[1]))
for k in doc["kernels"]:
    w = k["work"]
    parts = [k["name"], "flops=" + fmt(w.get("flops", {}).get("total")), "shared=" + fmt(w.get("shared_bytes"))]
    for a in k.get("accesses", []):
        if a["space"] == "global":
            parts.append("%s:%s" % (a["op"], fmt(a.get("lane_executions"))))
    print(" ".join(parts))
