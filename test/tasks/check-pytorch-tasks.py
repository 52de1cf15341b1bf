#!/usr/bin/env python3
"""Checks every PyTorch problem in data/tasks/pytorch without PyTorch or a GPU.

    test/tasks/check-pytorch-tasks.py [--root DIR] [--eval CUDAPERF_EVAL] [--nvcc NVCC] [--jobs N] [PROBLEM...]

Per problem: model.py parses and defines Model (with forward), get_inputs and get_init_inputs, and its
extras (CONFIGS, TOLERANCE, DISTRIBUTIONS) are well formed; impls/baseline.cu exists, carries the
`// entry: void NAME(...)` comment and defines NAME with extern "C". Where task.json exists (generated
on the GPU host by `make tasks`): its entry point equals the comment, its "pytorch" object agrees with
its args and model.py's CONFIGS, and `cudaperf-eval --validate` accepts it (with --eval). With --nvcc,
each baseline is compiled beside a shim that binds it to a function pointer of the comment's exact
type, so a baseline whose parameters differ from its comment fails.
Ends with the line "N passed, N failed"; exit status 1 if any problem failed.
"""
import argparse
import concurrent.futures
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def load_import_script(root):
    spec = importlib.util.spec_from_file_location("import_pytorch_task",
                                                  os.path.join(root, "scripts", "import-pytorch-task.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_task_json(imp, name, task_dir, source, comment):
    """Problems with a generated task.json."""
    problems = []
    with open(os.path.join(task_dir, "task.json")) as f:
        try:
            task = json.load(f)
        except json.JSONDecodeError as e:
            return [f"task.json: {e}"]
    for key, want in (("kind", "pytorch-to-cuda"), ("name", name), ("entry", name)):
        if task.get(key) != want:
            problems.append(f"task.json: {key} is {task.get(key)!r}, expected {want!r}")
    try:
        signature = imp.c_signature(task)
    except (KeyError, TypeError) as e:
        return problems + [f"task.json: malformed args ({e})"]
    if comment and imp.normalize_signature(signature) != imp.normalize_signature(comment):
        problems.append(f"task.json gives `{signature}`, baseline.cu says `{comment}`")
    pytorch = task.get("pytorch", {})
    args = task["args"]
    pointers = {a["name"]: a for a in args if a["type"] == "pointer"}
    shapes = pytorch.get("shapes", {})
    if set(shapes) != set(pointers):
        problems.append(f"pytorch.shapes names {sorted(shapes)}, the pointer args are {sorted(pointers)}")
    for a_name, dims in shapes.items():
        if a_name in pointers and imp.count_expr(dims) != pointers[a_name]["count"]:
            problems.append(f"{a_name}: count {pointers[a_name]['count']!r} is not the product of shape {dims}")
    ins = [a["name"] for a in args if a["type"] == "pointer" and a["access"] == "in"]
    outs = [a["name"] for a in args if a["type"] == "pointer" and a["access"] != "in"]
    if pytorch.get("forward_args") != ins:
        problems.append(f"pytorch.forward_args {pytorch.get('forward_args')} are not the input pointers {ins}")
    if pytorch.get("outputs") != outs:
        problems.append(f"pytorch.outputs {pytorch.get('outputs')} are not the output pointers {outs}")
    extras = imp.source_extras(source)
    configs = imp.problem_configs(extras["CONFIGS"], imp.module_size_globals(source))
    in_json = [(c.get("name"), {k: v for k, v in c.items() if k in dict(configs[0][1])}) for c in task["configs"]]
    if in_json != configs:
        problems.append(f"task.json configs {in_json} are not model.py's {configs}")
    return problems


def check_problem(imp, task_dir, eval_bin):
    """Problems with one task directory (empty list: it passes)."""
    name = os.path.basename(task_dir)
    problems = []
    if not imp.is_identifier(name):
        problems.append(f"directory name {name!r} is not a C identifier (it is the entry point)")
    model_path = os.path.join(task_dir, "model.py")
    source = ""
    if not os.path.isfile(model_path):
        problems.append("model.py missing")
    else:
        with open(model_path) as f:
            source = f.read()
        problems += [f"model.py: {p}" for p in imp.check_model_source(source)]
    baseline = os.path.join(task_dir, "impls", "baseline.cu")
    comment = None
    if not os.path.isfile(baseline):
        problems.append("impls/baseline.cu missing")
    else:
        with open(baseline) as f:
            cu = f.read()
        comment = imp.signature_comment(cu)
        if comment is None:
            problems.append("impls/baseline.cu has no `// entry: void NAME(...)` comment")
        elif not comment.startswith(f"void {name}("):
            problems.append(f"impls/baseline.cu's entry comment names another function: `{comment}`")
        if not re.search(rf'extern\s+"C"\s+void\s+{re.escape(name)}\s*\(', cu):
            problems.append(f'impls/baseline.cu defines no extern "C" void {name}(...)')
    if os.path.isfile(os.path.join(task_dir, "task.json")) and not problems:
        problems += check_task_json(imp, name, task_dir, source, comment)
        if eval_bin and not problems:
            r = subprocess.run([eval_bin, "--validate", task_dir], capture_output=True, text=True, timeout=60)
            if r.returncode != 0:
                problems.append(f"cudaperf-eval --validate: {(r.stdout + r.stderr).strip()}")
    return problems


def compile_with_shim(imp, task_dir, nvcc, work):
    """nvcc problems of baseline.cu bound to a pointer of its comment's type (empty: it compiles)."""
    name = os.path.basename(task_dir)
    baseline = os.path.join(task_dir, "impls", "baseline.cu")
    with open(baseline) as f:
        comment = imp.signature_comment(f.read())
    if comment is None:
        return []  # reported by check_problem
    params = comment[comment.index("(") + 1:comment.rindex(")")]
    shim = os.path.join(work, f"{name}_shim.cu")
    with open(shim, "w") as f:
        f.write(f'#include "{os.path.abspath(baseline)}"\n'
                f"// The exact type of the documented entry point; any other parameter list fails here.\n"
                f"static void (*entryPointer)({params}) = &{name};\n"
                f"void *entryAddress() {{ return (void *)entryPointer; }}\n")
    r = subprocess.run([nvcc, "-O3", "-arch=sm_90", "-c", "-o", os.devnull, shim], capture_output=True, text=True,
                       timeout=300)
    return [] if r.returncode == 0 else [f"nvcc with the signature shim failed:\n{r.stderr.strip()}"]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=ROOT, help="repository root")
    ap.add_argument("--eval", help="cudaperf-eval binary: run --validate on problems that have task.json")
    ap.add_argument("--nvcc", help="nvcc: compile every baseline with a signature shim")
    ap.add_argument("--jobs", type=int, default=2, help="parallel nvcc runs")
    ap.add_argument("problems", nargs="*", help="problem names (default: all)")
    args = ap.parse_args(argv)
    imp = load_import_script(args.root)
    base = os.path.join(args.root, "data", "tasks", "pytorch")
    names = args.problems or sorted(d for d in os.listdir(base) if os.path.isdir(os.path.join(base, d)))
    if not names:
        print(f"no problems under {base}")
        return 1
    results = {n: check_problem(imp, os.path.join(base, n), args.eval) for n in names}
    if args.nvcc:
        with tempfile.TemporaryDirectory() as work, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            compiled = dict(zip(names, pool.map(lambda n: compile_with_shim(imp, os.path.join(base, n), args.nvcc, work),
                                                names)))
        for n in names:
            results[n] += compiled[n]
    with_json = sum(os.path.isfile(os.path.join(base, n, "task.json")) for n in names)
    failed = 0
    for n in names:
        if results[n]:
            failed += 1
            print(f"FAIL {n}")
            for p in results[n]:
                print("     " + p.replace("\n", "\n     "))
        else:
            print(f"ok   {n}")
    print(f"{with_json} of {len(names)} problems have task.json"
          f"{'; baselines compiled with nvcc' if args.nvcc else ''}")
    print(f"{len(names) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
