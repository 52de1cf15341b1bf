"""Prints each kernel's resources and occupancy from cudaperf-analyze's JSON, one line per kernel."""
import json, sys

d = json.load(open(sys.argv[1]))
for k in sorted(d["kernels"], key=lambda k: k["name"]):
    r, o = k.get("resources", {}), k.get("occupancy", {})
    print(k["name"], " ".join(f"{key}={r.get(key)}" for key in
          ("source", "cached", "registers", "local_bytes", "static_smem_bytes", "barriers", "spill_store_bytes")),
          "occupancy", " ".join(f"{key}={o.get(key)}" for key in
          ("block_size", "active_blocks_per_sm", "theoretical", "limiter", "grid_blocks", "waves")))
