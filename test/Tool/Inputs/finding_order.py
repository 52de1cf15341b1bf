"""Prints, one per line, the findings of a cudaperf-analyze JSON report or SARIF log in the order
the file lists them: `check line estimated_saving_us` (`-` where there is none).

usage: finding_order.py FILE
"""
import json
import sys

with open(sys.argv[1]) as f:
    doc = json.load(f)
if "runs" in doc:
    for res in doc["runs"][0].get("results", []):
        line = res["locations"][0]["physicalLocation"]["region"]["startLine"]
        print(res["ruleId"], line, res.get("properties", {}).get("estimated_saving_us", "-"))
else:
    for d in doc["diagnostics"]:
        print(d["check"], d["line"], d.get("estimated_saving_us", "-"))
