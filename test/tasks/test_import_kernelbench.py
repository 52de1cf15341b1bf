#!/usr/bin/env python3
"""scripts/import-kernelbench.py without PyTorch: names, suites, the importer's output read back,
and the driver around a stand-in importer that imports, refuses, hangs and crashes.

    python3 test/tasks/test_import_kernelbench.py
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "import-kernelbench.py")
spec = importlib.util.spec_from_file_location("import_kernelbench", SCRIPT)
kb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kb)

# Reads each model.py's "# fake: WHAT" line: ok (writes task.json), refuse REASON, hang, crash.
FAKE_IMPORTER = textwrap.dedent("""\
    import os, sys, time
    failed = 0
    for path in sys.argv[1:]:
        label = os.path.basename(os.path.dirname(os.path.abspath(path)))
        print("== " + label, flush=True)
        what = [l for l in open(path) if l.startswith("# fake:")][0].split()[2:]
        if what[0] == "ok":
            open(os.path.join(os.path.dirname(path), "task.json"), "w").write("{}")
            print("  wrote task.json", flush=True)
        elif what[0] == "refuse":
            print("error: %s: %s" % (label, " ".join(what[1:])), file=sys.stderr, flush=True)
            failed += 1
        elif what[0] == "hang":
            time.sleep(60)
        elif what[0] == "crash":
            os._exit(139)
    sys.exit(1 if failed else 0)
""")


class Names(unittest.TestCase):
    def test_task_names_are_identifiers(self):
        self.assertEqual(kb.task_name(1, "19_ReLU.py"), "level1_19_ReLU")
        self.assertEqual(kb.task_name(2, "1_Conv2D_ReLU_BiasAdd.py"), "level2_1_Conv2D_ReLU_BiasAdd")
        self.assertEqual(kb.task_name(1, "1_Square_matrix_multiplication_.py"), "level1_1_Square_matrix_multiplication_")
        self.assertIsNone(kb.task_name(1, "README.md"))
        self.assertIsNone(kb.task_name(1, "x_ReLU.py"))

    def test_model_source_appends_the_training_mode(self):
        src = kb.model_source("import torch\nbatch_size = 4\n\n\n")
        self.assertTrue(src.startswith("import torch\nbatch_size = 4\n"))
        self.assertTrue(src.rstrip().endswith('MODE = "train"\nINPUTS_ON_DEVICE = True'))

    def test_importer_lines(self):
        self.assertEqual(kb.parse_importer_line("== level1_19_ReLU\n"), ("start", "level1_19_ReLU"))
        self.assertEqual(kb.parse_importer_line("== level1_19_ReLU: already imported"), ("start", "level1_19_ReLU"))
        self.assertEqual(kb.parse_importer_line("error: level3_35_LSTM: forward draws random numbers"),
                         ("error", "level3_35_LSTM", "forward draws random numbers"))
        self.assertIsNone(kb.parse_importer_line("  default: {'N': 4096}  eager 1.2 ms"))

    def test_reason_classes(self):
        self.assertEqual(kb.reason_class("outputs differ between two calls with the same inputs: forward draws "
                                         "random numbers"), "random")
        self.assertEqual(kb.reason_class("tensor dtype torch.float16 has no task dtype"), "dtype")
        self.assertEqual(kb.reason_class("over the time limit: no progress for 60 s"), "time limit")
        # The importer's own wording for a forward that uses dropout (KernelBench level2_66 on the H200).
        self.assertEqual(kb.reason_class("forward is not deterministic: two calls with the same inputs differ "
                                         "(output out differs (max |diff| 0.000347)); the model calls dropout"),
                         "random")
        self.assertEqual(kb.reason_class("something new"), "other")


class Baselines(unittest.TestCase):
    def test_parameter_types_ignore_names_and_spacing(self):
        self.assertEqual(kb.parameter_types("void f(const float* x, float *out, int n, cudaStream_t stream)"),
                         ["const float *", "float *", "int", "cudaStream_t"])

    def test_renaming_touches_the_entry_point_only(self):
        src = '// entry: void relu(const float *x)\n__device__ float relu(float v);\nextern "C" void relu(const float *x) {}\n'
        out = kb.renamed_baseline(src, "relu", "level1_19_ReLU")
        self.assertIn("// entry: void level1_19_ReLU(", out)
        self.assertIn('extern "C" void level1_19_ReLU(', out)
        self.assertIn("__device__ float relu(float v);", out)

    def test_a_shipped_equivalent_with_the_same_arguments_becomes_the_baseline(self):
        shipped = os.path.join(ROOT, "data", "tasks", "pytorch")
        imp = kb.importer_module()
        args = [{"name": "x", "type": "pointer", "dtype": "f32", "access": "in", "count": "batch_size * dim"},
                {"name": "out", "type": "pointer", "dtype": "f32", "access": "out", "count": "batch_size * dim"},
                {"name": "batch_size", "type": "scalar", "dtype": "i32"}, {"name": "dim", "type": "scalar", "dtype": "i32"}]
        with tempfile.TemporaryDirectory() as d:
            task_dir = os.path.join(d, "level1_19_ReLU")
            os.makedirs(task_dir)
            with open(os.path.join(task_dir, "task.json"), "w") as f:
                json.dump({"name": "level1_19_ReLU", "entry": "level1_19_ReLU", "args": args}, f)
            self.assertEqual(kb.adopt_baseline(task_dir, "level1_19_ReLU", shipped, imp.c_signature), "baseline from relu")
            with open(os.path.join(task_dir, "impls", "baseline.cu")) as f:
                text = f.read()
            self.assertIn('extern "C" void level1_19_ReLU(const float *x, float *out, int batch_size, int dim', text)
            self.assertEqual(kb.adopt_baseline(task_dir, "level1_99_Other", shipped, imp.c_signature), "")
            # A size past 2^31 makes it i64: the shipped baseline takes int, so it is not adopted.
            args[3]["dtype"] = "i64"
            with open(os.path.join(task_dir, "task.json"), "w") as f:
                json.dump({"name": "level1_19_ReLU", "entry": "level1_19_ReLU", "args": args}, f)
            self.assertIn("takes other arguments", kb.adopt_baseline(task_dir, "level1_19_ReLU", shipped, imp.c_signature))

    def test_every_equivalent_names_a_shipped_problem(self):
        for task, shipped in kb.SHIPPED_EQUIVALENTS.items():
            self.assertTrue(os.path.isfile(os.path.join(ROOT, "data", "tasks", "pytorch", shipped, "impls", "baseline.cu")),
                            shipped)
            self.assertTrue(task.startswith("level1_"))


class Suites(unittest.TestCase):
    def test_suites_list_every_problem_in_numeric_order(self):
        with tempfile.TemporaryDirectory() as d:
            for f in ("10_B.py", "2_A.py", "1_C.py", "notes.txt"):
                os.makedirs(os.path.join(d, "KernelBench", "level1"), exist_ok=True)
                open(os.path.join(d, "KernelBench", "level1", f), "w").close()
            root = kb.levels_dir(d)
            problems = kb.problems_of(root, 1)
            self.assertEqual([p[2] for p in problems], ["level1_1_C", "level1_2_A", "level1_10_B"])
            self.assertEqual([p[2] for p in kb.problems_of(root, 1, "1*")], ["level1_1_C", "level1_10_B"])
            doc = json.loads(kb.format_suite(kb.suite_document(1, problems)))
            self.assertEqual(doc["schema"], "cudaperf-suite/1")
            self.assertEqual(doc["tasks"][2], {"dir": "level1_10_B", "source": "level1/10_B.py"})
            self.assertIn("${CUDAPERF_KERNELBENCH_TASKS", doc["root"])

    def test_the_committed_suites_match_their_shape(self):
        for level, count in ((1, 100), (2, 100), (3, 50)):
            path = os.path.join(ROOT, "data", "suites", f"kernelbench-level{level}.json")
            with open(path) as f:
                doc = json.load(f)
            self.assertEqual(len(doc["tasks"]), count, path)
            for t in doc["tasks"]:
                self.assertEqual(kb.task_name(level, t["source"].split("/")[1]), t["dir"])


class Driver(unittest.TestCase):
    def test_imports_refuses_hangs_and_crashes(self):
        with tempfile.TemporaryDirectory() as d:
            level = os.path.join(d, "kb", "level1")
            os.makedirs(level)
            for f, what in (("1_A.py", "ok"), ("2_Hang.py", "hang"), ("3_B.py", "ok"), ("4_Crash.py", "crash"),
                            ("5_Refused.py", "refuse forward draws random numbers"), ("6_C.py", "ok")):
                open(os.path.join(level, f), "w").write(f"import torch\n# fake: {what}\n")
            fake = os.path.join(d, "fake-importer.py")
            open(fake, "w").write(FAKE_IMPORTER)
            out = os.path.join(d, "out")
            p = subprocess.run([sys.executable, SCRIPT, os.path.join(d, "kb"), "--levels", "1", "--out", out,
                                "--stall-timeout", "1.5", "--importer", fake], capture_output=True, text=True,
                               timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
            report = json.load(open(os.path.join(out, "import-report.json")))
            outcome = {r["task"]: (r["outcome"], r["reason"]) for r in report["problems"]}
            self.assertEqual(outcome["level1_1_A"], ("imported", ""))
            self.assertEqual(outcome["level1_3_B"], ("imported", ""))
            self.assertEqual(outcome["level1_6_C"], ("imported", ""))
            self.assertEqual(outcome["level1_2_Hang"][0], "refused")
            self.assertIn("no progress for 1.5 s", outcome["level1_2_Hang"][1])
            self.assertIn("exit status 139", outcome["level1_4_Crash"][1])
            self.assertEqual(outcome["level1_5_Refused"], ("refused", "forward draws random numbers"))
            self.assertEqual(report["levels"]["1"]["imported"], 3)
            self.assertEqual(report["refusal_classes"], {"time limit": 1, "other": 1, "random": 1})
            self.assertEqual(open(os.path.join(out, "level1_5_Refused", "import-error.txt")).read().strip(),
                             "forward draws random numbers")
            self.assertIn('MODE = "train"', open(os.path.join(out, "level1_1_A", "model.py")).read())
            self.assertIn("| 1 | 6 | 3 | 3 |", p.stdout)

    def test_an_importer_that_cannot_run_is_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "kb", "level1"))
            open(os.path.join(d, "kb", "level1", "1_A.py"), "w").write("# fake: ok\n")
            fake = os.path.join(d, "no-torch.py")
            open(fake, "w").write("import sys\nprint('error: PyTorch is not importable', file=sys.stderr)\nsys.exit(2)\n")
            p = subprocess.run([sys.executable, SCRIPT, os.path.join(d, "kb"), "--levels", "1", "--out",
                                os.path.join(d, "out"), "--importer", fake], capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 1)
            self.assertIn("PyTorch is not importable", p.stderr)


if __name__ == "__main__":
    unittest.main()
