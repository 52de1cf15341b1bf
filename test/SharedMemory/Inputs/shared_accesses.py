"""Prints 'kernel line op bytes pattern ways' for each shared-memory access of a JSON report on stdin,
sorted by kernel order, then line, then column."""
import json
import sys

report = json.load(sys.stdin)
for k in report["kernels"]:
    acc = sorted((a for a in k["accesses"] if a["space"] == "shared"), key=lambda a: (a["line"], a["column"]))
    for a in acc:
        ways = a["bank_conflict_ways"]
        ways = "null" if ways is None else ("%g" % ways)
        print(k["name"], a["line"], a["op"], a["bytes"], a["pattern"], ways)
