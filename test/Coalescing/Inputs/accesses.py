#!/usr/bin/env python3
"""Prints the global accesses of a cudaperf-analyze JSON report, one line each, for FileCheck:
KERNEL LINE:COL OP BYTES PATTERN sectors=S ideal=I exec=E coef=X,Y,Z [grid-stride] [worst=W] [launch=L]
then one line per kernel: KERNEL efficiency=E. A --task document: its launches' reports, each kernel name
prefixed with CONFIG#INDEX/."""
import json
import sys


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def main():
    with open(sys.argv[1]) as f:
        report = json.load(f)
    kernels = report["kernels"]
    if "configurations" in report:
        kernels = [dict(l["report"], name="%s#%d/%s" % (c["name"], l["index"], l["kernel"]))
                   for c in report["configurations"] for l in c["launches"] if l.get("report")]
    for k in kernels:
        for a in k["accesses"]:
            if a["space"] not in ("global", "generic"):
                continue
            c = a.get("thread_coefficients")
            coef = "-" if c is None else "%d,%d,%d" % (c["x"], c["y"], c["z"])
            extra = ""
            if a.get("grid_stride_loop"):
                extra += " grid-stride"
            if "sectors_per_request_worst" in a:
                extra += " worst=" + fmt(a["sectors_per_request_worst"])
            if "launch_sectors_per_request" in a:
                extra += " launch=" + fmt(a["launch_sectors_per_request"])
            print("%s %d:%d %s %d %s sectors=%s ideal=%s exec=%s coef=%s%s" % (
                k["name"], a["line"], a["column"], a["op"], a["bytes"], a["pattern"],
                fmt(a["sectors_per_request"]), fmt(a.get("ideal_sectors_per_request")),
                fmt(a.get("executions_per_thread")), coef, extra))
        print("%s efficiency=%s" % (k["name"], fmt(k.get("coalescing_efficiency"))))


if __name__ == "__main__":
    main()
