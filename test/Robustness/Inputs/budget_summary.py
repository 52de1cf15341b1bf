#!/usr/bin/env python3
"""One line per kernel of a cudaperf-analyze JSON report, for FileCheck:
NAME accesses=N known=K budget=NOTE|no [registers=SOURCE note=NOTE] where K counts the accesses
whose pattern is known (not 'unknown'), NOTE the budget note and, for kernels without accesses,
the resource source and their first note."""
import json
import sys

for k in json.load(open(sys.argv[1]))["kernels"]:
    notes = k.get("notes", [])
    budget = next((n for n in notes if n.startswith("analysis budget")), "no")
    known = sum(1 for a in k["accesses"] if a["pattern"] not in ("unknown", ""))
    line = "%s accesses=%d known=%d budget=%s" % (k["name"], len(k["accesses"]), known, budget)
    if not k["accesses"]:
        line += " registers=%s note=%s" % (k["resources"].get("source"), notes[0] if notes else "-")
    print(line)
