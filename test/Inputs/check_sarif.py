"""Checks that a file is a SARIF 2.1.0 log as cudaperf-analyze writes it; prints a short summary.

usage: check_sarif.py FILE
"""
import json
import sys

with open(sys.argv[1]) as f:
    log = json.load(f)

def need(cond, what):
    if not cond:
        sys.exit("check_sarif: " + what)

need(log.get("version") == "2.1.0", "version must be 2.1.0")
need("sarif" in log.get("$schema", ""), "$schema must name the SARIF schema")
need(isinstance(log.get("runs"), list) and len(log["runs"]) == 1, "one run expected")
run = log["runs"][0]
driver = run["tool"]["driver"]
need(driver.get("name") == "cudaperf-analyze", "tool.driver.name")
rules = driver.get("rules", [])
ids = [r["id"] for r in rules]
for r in rules:
    need(r["id"] == r["name"], "rule id and name are the check name")
    need(r["shortDescription"]["text"], "rule %s has a description" % r["id"])
    need(r["defaultConfiguration"]["level"] in ("note", "warning", "error"), "rule level")
need("SRCROOT" in run.get("originalUriBaseIds", {}), "originalUriBaseIds.SRCROOT")
artifacts = run.get("artifacts", [])
need(artifacts, "artifacts listed")
for a in artifacts:
    need(not a["location"]["uri"].startswith("/"), "artifact URIs are relative: " + a["location"]["uri"])
for res in run.get("results", []):
    need(res["ruleId"] in ids, "result ruleId %s is in the rules table" % res["ruleId"])
    need(ids[res["ruleIndex"]] == res["ruleId"], "ruleIndex points at the rule")
    need(res["level"] in ("note", "warning", "error"), "result level")
    loc = res["locations"][0]["physicalLocation"]
    need(loc["region"]["startLine"] >= 1, "startLine")
    need(0 <= loc["artifactLocation"]["index"] < len(artifacts), "artifact index")
print("sarif ok: %d rules, %d artifacts, %d results" % (len(rules), len(artifacts), len(run.get("results", []))))
for a in artifacts:
    print("artifact:", a["location"]["uri"])
