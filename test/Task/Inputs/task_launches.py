"""Prints the launches of a `cudaperf-analyze --task --format=json` document, one line each:
  config NAME entry_found=B complete=B [reason=...]
  launch I KERNEL grid=X,Y,Z block=X,Y,Z smem=N [args=NAME:VALUE,...] [report=ORIGIN | same_report_as=J | no_report]
    unresolved PART: REASON
    launch_error: TEXT
    diagnostic CHECK: MESSAGE
    note: TEXT
Arguments print in name order; pointers as arg:NAME+OFFSET_ELEMENTS, scratch#ID:BYTES, null, host or unknown."""
import json
import sys


def dims(d):
    return "?" if d is None else ",".join(str(x) for x in d)


def pointer(p):
    if p.get("argument"):
        return "arg:%s+%s" % (p["argument"], p["offset_elements"])
    if p.get("scratch"):
        return "scratch#%d:%s+%d" % (p["scratch_id"], p["bytes"], p["offset_bytes"])
    if p.get("null"):
        return "null"
    if p.get("host"):
        return "host"
    return "unknown"


doc = json.load(open(sys.argv[1]))
assert doc["schema_version"] == 1
for c in doc["configurations"]:
    line = "config %s entry_found=%s complete=%s" % (c["name"], c["entry_found"], c["launches_complete"])
    if "reason" in c:
        line += " reason=" + c["reason"]
    print(line)
    for l in c["launches"]:
        args = []
        for name, v in l["scalar_args"].items():
            if name in l["pointer_args"]:
                args.append("%s:%s" % (name, pointer(l["pointer_args"][name])))
            else:
                args.append("%s:%s" % (name, "?" if v is None else v))
        line = "launch %d %s grid=%s block=%s smem=%s" % (
            l["index"], l["kernel"] or "?", dims(l["grid"]), dims(l["block"]),
            "?" if l["dynamic_smem_bytes"] is None else l["dynamic_smem_bytes"])
        if args:
            line += " args=" + ",".join(args)
        if "max_dynamic_smem_attribute" in l:
            line += " smem_limit=%d" % l["max_dynamic_smem_attribute"]
        if "report" in l:
            r = l["report"]
            line += " report=" + r["launch"]["origin"]
            assert r["launch"]["grid"] == l["grid"] or l["grid"] is None
        elif "same_report_as" in l:
            line += " same_report_as=%d" % l["same_report_as"]
        else:
            line += " no_report"
        print(line)
        for u in l["unresolved"]:
            print("  unresolved %s: %s" % (u["part"], u["reason"]))
        for e in l.get("launch_errors", []):
            print("  launch_error: " + e)
    for d in c["diagnostics"]:
        print("  diagnostic %s: %s" % (d["check"], d["message"]))
    for n in c["notes"]:
        print("  note: " + n)
