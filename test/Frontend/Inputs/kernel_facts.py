"""One line per kernel of a JSON report on stdin: name, launch origin, accesses (space:op:bytes:pattern
in source order), barrier count and warp primitives."""
import json
import sys

for k in json.load(sys.stdin)["kernels"]:
    acc = ",".join("%s:%s:%d:%s" % (a["space"], a["op"], a["bytes"], a["pattern"])
                   for a in sorted(k["accesses"], key=lambda a: (a["line"], a["column"], a["op"])))
    print("%s %s accesses=%s barriers=%d prims=%s" % (
        k["name"], k["launch"]["origin"], acc, k["sync"]["barriers"], ",".join(k["sync"]["warp_primitives"])))
