#!/usr/bin/env python3
"""Prints every access of a cudaperf-analyze JSON report, one line each, for FileCheck:
KERNEL LINE:COL OP SPACE BYTES base=BASE; then the notes of each kernel as KERNEL note: TEXT."""
import json
import sys

report = json.load(open(sys.argv[1]))
for k in report["kernels"]:
    for a in k["accesses"]:
        print("%s %d:%d %s %s %d base=%s" % (k["name"], a["line"], a["column"], a["op"], a["space"],
                                             a["bytes"], a.get("base", "-")))
    for n in k.get("notes", []):
        print("%s note: %s" % (k["name"], n))
