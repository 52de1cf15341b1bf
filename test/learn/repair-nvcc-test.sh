#!/usr/bin/env bash
# SFT's repair examples against nvcc (docs/training.md, "Repair examples"): every mutation compiled here
# must fail with exactly the log cudaperf-train predicted for it (after the evaluator's own path
# stripping), and lib/Reward's feedback for the real result (cudaperf-reward --result) must be the
# predicted feedback. Compiled: the repair example of each task of a generated dataset with one task per
# family (train, val and test splits), a spread of further mutations of the same tasks (deeper cuts,
# other renamed uses), and the shipped tasks' repair examples plus one more mutation of each kind per
# implementation. Every name an undeclared-identifier mutation of those datasets uses is checked to be
# undeclared after <cuda_runtime.h>. With CUDAPERF_UPDATE_GOLDEN=1 the shipped tasks' results are written
# to test/learn/fixtures/repair/shipped-nvcc.jsonl (RepairExamplesTest replays them without nvcc).
# Usage: repair-nvcc-test.sh CUDAPERF_TRAIN CUDAPERF_DATASET CUDAPERF_EVAL CUDAPERF_REWARD SOURCE_DIR
# Exit 77 (skipped) where no nvcc is found, as on CI's machine.
set -u
train=$(readlink -f "$1") dataset=$(readlink -f "$2") eval=$(readlink -f "$3") reward=$(readlink -f "$4") src=$(readlink -f "$5")
nvcc=""
for c in "${CUDAPERF_NVCC:-}" "${CUDA_HOME:+$CUDA_HOME/bin/nvcc}" /usr/local/cuda/bin/nvcc "$(command -v nvcc || true)"; do
  if [ -n "$c" ] && [ -x "$c" ]; then nvcc=$c; break; fi
done
if [ -z "$nvcc" ]; then echo "skipped: no nvcc (CUDAPERF_NVCC, CUDA_HOME, /usr/local/cuda, PATH)"; exit 77; fi
work=$(mktemp -d /tmp/cudaperf-repair-nvcc.XXXXXX)
trap 'rm -rf "$work"' EXIT
export CUDAPERF_CACHE_DIR=$work/cache # builds of this test only
jobs=$(( $(nproc) < 4 ? $(nproc) : 4 ))
cd "$work" || exit 1

"$dataset" generate --out ds --limit 1 --kind all --quiet || { echo "FAIL dataset"; exit 1; }
python3 - "$src" <<'EOF' || exit 1
import json, os, sys
root = os.path.join(sys.argv[1], "data", "tasks")
os.makedirs("shipped", exist_ok=True)
names = sorted(n for n in os.listdir(root) if os.path.isdir(os.path.join(root, n, "impls")))
names += sorted("pytorch/" + n for n in os.listdir(os.path.join(root, "pytorch"))
                if os.path.isdir(os.path.join(root, "pytorch", n, "impls")))
with open("shipped/manifest.jsonl", "w") as f:
    for n in names:
        d = os.path.join(root, n)
        impls = sorted(i for i in os.listdir(os.path.join(d, "impls")) if i.endswith(".cu"))
        f.write(json.dumps({"task": n, "dir": d, "family": n.split("/")[0], "kind": "pytorch" if "/" in n else "c",
                            "split": "train", "implementations": [{"file": "impls/" + i} for i in impls]}) + "\n")
EOF
run() { "$train" repair-examples --seed 0 "$@" 2>>repair.log || { echo "FAIL cudaperf-train repair-examples $*"; cat repair.log; exit 1; }; }
run --dataset ds --splits train,val,test --out ds-chosen.jsonl
run --dataset ds --splits train,val,test --every 3 --out ds-every.jsonl
run --dataset shipped --splits train --out shipped-chosen.jsonl
run --dataset shipped --splits train --every 1 --out shipped-every.jsonl

# The sample: every chosen example, and from the spread the deepest cuts and some renamed uses (a fixed pick).
python3 - <<'EOF' || exit 1
import json, os
def rows(f): return [json.loads(l) for l in open(f)]
sample = []
for r in rows("ds-chosen.jsonl"): sample.append(dict(r, set="dataset", chosen=True))
every = rows("ds-every.jsonl")
deep = sorted((r for r in every if r["mutation"] == "truncation" and r["open_blocks"] >= 2),
              key=lambda r: (-r["open_blocks"], r["task"], r["implementation"], r["line"]))
seen = set()
for r in deep:
    if r["task"] not in seen and len(seen) < 16: seen.add(r["task"]); sample.append(dict(r, set="dataset", chosen=False))
renamed = [r for r in every if r["mutation"] == "undeclared_identifier"]
for r in renamed[::max(1, len(renamed) // 16)][:16]: sample.append(dict(r, set="dataset", chosen=False))
chosen = rows("shipped-chosen.jsonl")
keys = {(r["task"], r["implementation"], r["line"], r.get("identifier", "")) for r in chosen}
for r in chosen: sample.append(dict(r, set="shipped", chosen=True))
for r in rows("shipped-every.jsonl"):
    if (r["task"], r["implementation"], r["line"], r.get("identifier", "")) not in keys:
        sample.append(dict(r, set="shipped", chosen=False))
with open("batch.txt", "w") as b:
    for i, r in enumerate(sample):
        open("c%d.cu" % i, "w").write(r["source"])
        b.write("%s %s/c%d.cu\n" % (r["task_dir"], os.getcwd(), i))
json.dump(sample, open("sample.json", "w"))
names = sorted({r["identifier"] for f in ("ds-chosen.jsonl", "ds-every.jsonl", "shipped-chosen.jsonl", "shipped-every.jsonl")
                for r in rows(f) if r["mutation"] == "undeclared_identifier"})
with open("names.cu", "w") as f:
    f.write("#include <cuda_runtime.h>\n")
    for i, n in enumerate(names): f.write("void probe%d() { (void)(%s); }\n" % (i, n))
json.dump(names, open("names.json", "w"))
print("sample: %d mutations (%d chosen); %d names to probe" % (len(sample), sum(r["chosen"] for r in sample), len(names)))
EOF
"$eval" --batch batch.txt --compile-only --jobs "$jobs" --jsonl -o results.jsonl 2>eval.log
"$nvcc" -arch=sm_90 -c names.cu -o names.o >names.log 2>&1

python3 - "$reward" "$src" <<'EOF'
import hashlib, json, os, re, subprocess, sys
reward, src = sys.argv[1], sys.argv[2]
sample = json.load(open("sample.json"))
results = {json.loads(l)["candidate"]: json.loads(l) for l in open("results.jsonl")}
def strip(log):  # the build directory, as lib/Reward's feedback and Build.cpp remove it
    return re.sub(r'(?<![^\s("])/[^\s:()"]*/', "", log)
fails, golden = 0, []
for i, r in enumerate(sample):
    cand = os.path.join(os.getcwd(), "c%d.cu" % i)
    res = results.get(cand)
    what = "%s %s %s line %d %s" % (r["task"], r["implementation"], r["mutation"], r["line"], r.get("identifier", ""))
    if not res or res["outcome"] != "compile_error":
        print("FAIL %s: outcome %s" % (what, res and res["outcome"])); fails += 1; continue
    log = strip(res["compile"]["log"])
    if log != r["compile_log"]:
        print("FAIL %s: nvcc's log differs\n--- predicted\n%s\n--- nvcc\n%s" % (what, r["compile_log"], log)); fails += 1; continue
    with open("r%d.json" % i, "w") as f: json.dump(res, f)
    fb = subprocess.run([reward, "--result", "r%d.json" % i, "--analyzer", "none", "--format", "text"],
                        capture_output=True, text=True)
    if fb.returncode != 0 or fb.stdout.rstrip("\n") != r["feedback"]:
        print("FAIL %s: the reward's feedback differs\n--- predicted\n%s\n--- cudaperf-reward\n%s%s" % (what, r["feedback"], fb.stdout, fb.stderr)); fails += 1; continue
    if r["set"] == "shipped":
        g = {"task": os.path.relpath(r["task_dir"], os.path.join(src, "data", "tasks")), "implementation": r["implementation"],
             "mutation": r["mutation"], "line": r["line"]}
        if "identifier" in r: g["identifier"] = r["identifier"]
        g.update({"chosen": r["chosen"], "source_sha256": hashlib.sha256(r["source"].encode()).hexdigest(),
                  "nvcc_log": log, "reward_feedback": fb.stdout.rstrip("\n")})
        golden.append(g)
print("%d of %d mutations: nvcc's log and the reward's feedback as predicted" % (len(sample) - fails, len(sample)))
names = json.load(open("names.json"))
undefined = set(re.findall(r'identifier "(\w+)" is undefined', open("names.log").read()))
declared = [n for n in names if n not in undefined]
if declared: print("FAIL names declared by the CUDA headers: %s" % declared); fails += 1
else: print("%d undeclared names, none declared by the CUDA headers" % len(names))
if os.environ.get("CUDAPERF_UPDATE_GOLDEN") == "1" and fails == 0:
    path = os.path.join(src, "test", "learn", "fixtures", "repair", "shipped-nvcc.jsonl")
    with open(path, "w") as f:
        for g in golden: f.write(json.dumps(g) + "\n")
    print("wrote %s (%d mutations)" % (path, len(golden)))
sys.exit(1 if fails else 0)
EOF
