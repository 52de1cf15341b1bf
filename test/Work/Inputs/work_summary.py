"""One line per kernel with the work analysis's main numbers, for FileCheck."""
import json
import sys


def fmt(v):
    return "None" if v is None else str(v)


doc = json.load(open(sys.argv[1]))
for k in doc["kernels"]:
    w = k["work"]
    fl = w.get("flops", {})
    parts = [k["name"], "threads=" + fmt(w.get("threads")), "flops=" + fmt(fl.get("total"))]
    if fl.get("per_thread_expr"):
        parts.append("expr=" + fl["per_thread_expr"])
    for p in ("fp16", "bf16", "fp32", "fp64"):
        if p in fl:
            parts.append("%s=add:%s,mul:%s,fma:%s" % (p, fmt(fl[p]["add"]), fmt(fl[p]["mul"]), fmt(fl[p]["fma"])))
    sass = w.get("sass_fp_instructions", {})
    if sass:
        parts.append("sass=" + ",".join("%s:%s" % (n, fmt(v)) for n, v in sass.items()))
    for key, name in (("global_load_bytes", "load"), ("global_store_bytes", "store"),
                      ("dram_read_bytes_estimate", "dram_read"), ("dram_write_bytes_estimate", "dram_write"),
                      ("bound", "bound")):
        parts.append(name + "=" + fmt(w.get(key)))
    if fl.get("special_functions"):
        parts.append("special=" + ",".join("%s:%s" % kv for kv in sorted(fl["special_functions"].items())))
    print(" ".join(parts))
