"""One line per kernel with the main keys of its `sync` section (JSON report on stdin)."""
import json
import sys

for k in json.load(sys.stdin)["kernels"]:
    s = k["sync"]
    print("%s barriers=%d in_loops=%d per_thread=%s divergent=%d prims=%s atomics=%s" % (
        k["name"], s["barriers"], s["barriers_in_loops"], s["barriers_per_thread"], s["divergent_barriers"],
        s["warp_primitives"], {sp: dict(sorted(c.items())) for sp, c in sorted(s["atomics"].items())}))
