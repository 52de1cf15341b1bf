#!/usr/bin/env python3
"""Converts the raw Nsight Compute CSVs written by scripts/gpu/measure-corpus.sh into one JSON file.

Usage: ncu-to-json.py --csv-dir DIR --env-dir DIR --output FILE.json [--summary FILE.txt]

Input per corpus file F (in --csv-dir): F.raw-mangled.csv and F.raw-demangled.csv (`ncu -i R --csv --page raw
--print-units base --print-kernel-base mangled|demangled`), optionally F.source-sass.csv (`--page source
--print-source sass`). Input in --env-dir: metrics-used.txt, ncu-version.txt, system.txt, ncu-command.txt.
Output layout: see docs/corpus.md. Python 3 standard library only.
"""
import argparse
import csv
import json
import os
import re
import sys

# Ratios the analyses compare against: numerator metric, denominator metric.
RATIOS = {
    "global_ld_sectors_per_request": ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                      "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
    "global_st_sectors_per_request": ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                                      "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
    "global_atom_sectors_per_request": ("l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
                                        "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"),
    "global_red_sectors_per_request": ("l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
                                       "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"),
    "shared_ld_wavefronts_per_instruction": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                                             "smsp__inst_executed_op_shared_ld.sum"),
    "shared_st_wavefronts_per_instruction": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                                             "smsp__inst_executed_op_shared_st.sum"),
    "shared_atom_wavefronts_per_instruction": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
                                               "smsp__inst_executed_op_shared_atom.sum"),
}
# FLOPs from thread-level SASS instruction counts, an FMA counted as 2.
FLOPS = {
    "fp32": ("fadd", "fmul", "ffma"),
    "fp64": ("dadd", "dmul", "dfma"),
    "fp16": ("hadd", "hmul", "hfma"),
}


def parse_number(text):
    text = text.strip().replace(",", "")
    if text in ("", "n/a", "N/A"):
        return None
    try:
        value = float(text)
    except ValueError:
        return text
    return int(value) if value.is_integer() else value


def read_raw_csv(path):
    """Returns a list of row dicts (one per profiled kernel launch, in ID order) from a `--page raw --csv`
    export. Lines before the header, and lines that are not CSV records (program output interleaved with
    ncu's), are skipped; so is the units row."""
    if not os.path.exists(path):
        return []
    with open(path, newline="", errors="replace") as f:
        lines = [l for l in f.read().splitlines() if l.startswith('"')]
    rows = list(csv.reader(lines))
    header_index = next((i for i, r in enumerate(rows) if "ID" in r and "Kernel Name" in r), None)
    if header_index is None:
        return []
    header = rows[header_index]
    result = []
    for r in rows[header_index + 1:]:
        if len(r) != len(header):
            continue
        record = dict(zip(header, r))
        if not record["ID"].strip().isdigit():
            continue  # the units row
        result.append(record)
    result.sort(key=lambda r: int(r["ID"]))
    return result


def plain_name(demangled):
    """'void foo<2>(const float *, float *)' -> 'foo<2>'."""
    name = demangled.strip()
    if name.startswith("void "):
        name = name[5:]
    depth = 0
    for i, ch in enumerate(name):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            return name[:i]
    return name


def parse_dim(text):
    numbers = [int(x) for x in re.findall(r"\d+", text or "")]
    return numbers if numbers else None


def read_text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


def read_source_sass(path):
    """Per-SASS-instruction rows of `--page source --print-source sass`, reduced to memory instructions."""
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows


def derive(metrics):
    derived = {}
    for name, (num, den) in RATIOS.items():
        n, d = metrics.get(num), metrics.get(den)
        if isinstance(n, (int, float)) and isinstance(d, (int, float)) and d > 0:
            derived[name] = round(n / d, 4)
    for precision, (add, mul, fma) in FLOPS.items():
        counts = [metrics.get("smsp__sass_thread_inst_executed_op_%s_pred_on.sum" % op) for op in (add, mul, fma)]
        if all(isinstance(c, (int, float)) for c in counts):
            derived["flops_" + precision] = counts[0] + counts[1] + 2 * counts[2]
    writes = metrics.get("lts__t_sectors_srcunit_tex_op_write.sum")
    if isinstance(writes, (int, float)):
        derived["l2_write_bytes_from_l1"] = writes * 32
    return derived


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv-dir", required=True)
    parser.add_argument("--env-dir", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--summary")
    args = parser.parse_args()

    used = [m for m in read_text(os.path.join(args.env_dir, "metrics-used.txt")).split() if m]
    missing = [m for m in read_text(os.path.join(args.env_dir, "metrics-missing.txt")).split() if m]
    system = read_text(os.path.join(args.env_dir, "system.txt")).splitlines()
    gpu_line = next((l for l in system if l and not l.startswith("name") and "," in l), "")
    gpu_fields = [x.strip() for x in gpu_line.split(",")]
    ncu_version = read_text(os.path.join(args.env_dir, "ncu-version.txt")).splitlines()
    doc = {
        "schema_version": 1,
        "source": "scripts/gpu/measure-corpus.sh",
        "date": system[0] if system else "",
        "gpu": gpu_fields[0] if gpu_fields else "",
        "driver": gpu_fields[1] if len(gpu_fields) > 1 else "",
        "ncu_version": ncu_version[-1] if ncu_version else "",
        "nvcc_command": "nvcc -O3 -arch=sm_90 -lineinfo -Xptxas -v -o BIN FILE.cu",
        "ncu_command": read_text(os.path.join(args.env_dir, "ncu-command.txt")),
        "metrics": used,
        "metrics_missing": missing,
        "kernels": {},
    }
    files = sorted({name.split(".raw-")[0] for name in os.listdir(args.csv_dir) if ".raw-" in name})
    for stem in files:
        mangled_rows = read_raw_csv(os.path.join(args.csv_dir, stem + ".raw-mangled.csv"))
        demangled_rows = {r["ID"]: r for r in read_raw_csv(os.path.join(args.csv_dir, stem + ".raw-demangled.csv"))}
        for row in mangled_rows:
            demangled = demangled_rows.get(row["ID"], {}).get("Kernel Name", "")
            name = plain_name(demangled) if demangled else row["Kernel Name"]
            key = "%s/%s" % (stem, name)
            suffix = 2
            while key in doc["kernels"]:
                key = "%s/%s#%d" % (stem, name, suffix)
                suffix += 1
            metrics = {m: parse_number(row[m]) for m in used if m in row}
            doc["kernels"][key] = {
                "file": "data/corpus/%s.cu" % stem,
                "kernel": name,
                "demangled": demangled,
                "mangled": row["Kernel Name"],
                "launch_id": int(row["ID"]),
                "grid": parse_dim(row.get("Grid Size")),
                "block": parse_dim(row.get("Block Size")),
                "metrics": metrics,
                "derived": derive(metrics),
            }
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")

    if args.summary:
        cols = [("ld s/r", "global_ld_sectors_per_request"), ("st s/r", "global_st_sectors_per_request"),
                ("sh.ld wf/i", "shared_ld_wavefronts_per_instruction"),
                ("sh.st wf/i", "shared_st_wavefronts_per_instruction")]
        lines = ["%-48s %8s %8s %10s %10s %9s %9s %9s" % ("kernel", *[c[0] for c in cols], "dramRdMB", "dramWrMB", "time_us")]
        for key, k in doc["kernels"].items():
            d, m = k["derived"], k["metrics"]
            fmt = lambda v: "-" if v is None else ("%.2f" % v)
            rd, wr, t = (m.get("dram__bytes_read.sum"), m.get("dram__bytes_write.sum"), m.get("gpu__time_duration.sum"))
            lines.append("%-48s %8s %8s %10s %10s %9s %9s %9s" % (
                key[:48], *[fmt(d.get(c[1])) for c in cols],
                fmt(rd / 1e6) if isinstance(rd, (int, float)) else "-",
                fmt(wr / 1e6) if isinstance(wr, (int, float)) else "-",
                fmt(t / 1e3) if isinstance(t, (int, float)) else "-"))
        lines.append("%d kernels from %d files" % (len(doc["kernels"]), len(files)))
        with open(args.summary, "w") as f:
            f.write("\n".join(lines) + "\n")
    print("wrote %s: %d kernels" % (args.output, len(doc["kernels"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
