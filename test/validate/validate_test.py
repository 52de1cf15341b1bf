#!/usr/bin/env python3
"""Tests of scripts/validate.py: its statistics on hand-made inputs with known answers, a task result
through cudaperf-features (the analyzer's --task launches joined to the measured kernels), and a
replay of the corpus comparison on the stored Nsight Compute measurements
(data/corpus/measured/h200-ncu.json) through each input route (--ncu, --corpus-counters, --analysis,
--task-results). The analyzer runs over the corpus once; the other routes reuse its saved analysis.

Usage: validate_test.py --analyzer build/bin/cudaperf-analyze [unittest options]
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import validate  # noqa: E402

NCU = os.path.join(ROOT, "data", "corpus", "measured", "h200-ncu.json")
ANALYZER = None


def load(path):
    with open(path) as f:
        return json.load(f)


class Statistics(unittest.TestCase):
    def test_average_ranks_share_ties(self):
        self.assertEqual(validate.average_ranks([10, 20, 20, 30]), [1, 2.5, 2.5, 4])
        self.assertEqual(validate.average_ranks([3, 1, 3, 3]), [3, 1, 3, 3])

    def test_spearman_known_values(self):
        self.assertAlmostEqual(validate.spearman([1, 2, 3, 4, 5], [1, 8, 27, 64, 125]), 1.0)
        self.assertAlmostEqual(validate.spearman([1, 2, 3, 4, 5], [9, 7, 5, 3, 1]), -1.0)
        # ys ranks [1, 2, 3.5, 5, 3.5] against [1..5]: rho = 8 / sqrt(10 * 9.5).
        self.assertAlmostEqual(validate.spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]), 8 / 95 ** 0.5)
        self.assertIsNone(validate.spearman([1, 2, 3], [4, 4, 4]))  # undefined for a constant side
        self.assertIsNone(validate.spearman([1, 2], [1, 2]))

    def test_median_ape_ignores_zero_measurements(self):
        self.assertAlmostEqual(validate.median_ape([(110, 100), (90, 100), (5, 0), (50, 100)]), 10.0)
        self.assertIsNone(validate.median_ape([(1, 0)]))

    def test_summary_of_rows(self):
        kernel = {"accesses": [{"space": "global", "op": "load", "pattern": "strided", "sectors_per_request": 8.0,
                                "executions_per_thread": 1, "line": 3}],
                  "work": {}, "resources": {"registers": 10}, "occupancy": {"theoretical": 0.5}}
        metrics = {validate.M_SECTORS % "ld": 80, validate.M_REQUESTS % "ld": 10, validate.M_REGISTERS: 16,
                   validate.M_THEORETICAL: 50.0, validate.M_ACHIEVED: 40.0, validate.M_DRAM_READ: 4096}
        rows = {r["feature"]: r for r in validate.compare_kernel(kernel, metrics)}
        self.assertTrue(rows["global_ld_sectors_per_request"]["exact"])
        self.assertNotIn("global_st_sectors_per_request", rows)  # no store requests measured
        self.assertFalse(rows["registers"]["exact"])
        self.assertTrue(rows["registers_allocated"]["exact"])
        self.assertTrue(rows["theoretical_occupancy"]["exact"])
        self.assertFalse(rows["achieved_occupancy"]["exact"])
        self.assertEqual(rows["dram_read_bytes"]["status"], "DRAM estimate unknown")
        summary = {s["feature"]: s for s in validate.summarize(list(rows.values()))}
        self.assertEqual(summary["dram_read_bytes"]["n"], 0)
        self.assertEqual(summary["dram_read_bytes"]["excluded"], {"DRAM estimate unknown": 1})
        self.assertEqual(summary["registers"]["median_ape_pct"], 37.5)


@unittest.skipUnless(os.path.exists(NCU), "no stored measurements")
class CorpusReplay(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="validate-test-")
        cls.analysis = os.path.join(cls.tmp, "analysis")
        cls.ncu_json = os.path.join(cls.tmp, "ncu.json")
        rc = validate.main(["--analyzer", ANALYZER, "--ncu", NCU, "--save-analysis", cls.analysis,
                            "--json", cls.ncu_json, "--markdown", os.path.join(cls.tmp, "ncu.md")])
        assert rc == 0, rc
        cls.result = load(cls.ncu_json)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def summary(self, source="corpus-ncu"):
        return {s["feature"]: s for s in self.result["summaries"][source]}

    def test_one_row_per_feature_with_kernels(self):
        summary = self.summary()
        self.assertEqual(list(summary), [f["key"] for f in validate.FEATURES])
        missing = load(NCU).get("metrics_missing", [])
        for key, s in summary.items():
            if key == "theoretical_occupancy" and validate.M_THEORETICAL in missing:
                self.assertEqual(s["n"], 0)
            else:
                self.assertGreater(s["n"], 0, key)

    def test_agreement_is_what_the_accuracy_tests_report(self):
        # The levels achieved on 2026-11-29, less a margin (docs/accuracy.md, "Validation").
        s = self.summary()
        self.assertGreaterEqual(s["global_ld_sectors_per_request"]["within_rate"], 0.95)
        self.assertGreaterEqual(s["global_st_sectors_per_request"]["within_rate"], 0.95)
        self.assertGreaterEqual(s["shared_ld_wavefronts_per_request"]["within_rate"], 0.80)
        self.assertGreaterEqual(s["flops_total"]["within_rate"], 0.90)
        self.assertGreaterEqual(s["dram_read_bytes"]["within_rate"], 0.90)
        self.assertGreaterEqual(s["registers_allocated"]["exact_rate"], 0.95)
        self.assertGreaterEqual(s["global_ld_sectors_per_request"]["spearman"], 0.9)
        self.assertLess(s["achieved_occupancy"]["exact_rate"], 0.5)  # achieved is not theoretical
        self.assertEqual(len({(r["file"], r["mangled"]) for r in self.result["rows"]}), 136)

    def test_counters_documents_give_the_same_table(self):
        """The CUPTI route, fed the same numbers in cudaperf-counters/1 form, and the saved analysis."""
        counters = os.path.join(self.tmp, "counters")
        os.makedirs(counters)
        docs = {}
        for rec in load(NCU)["kernels"].values():
            stem = os.path.basename(rec["file"])[:-3]
            docs.setdefault(stem, {"schema": "cudaperf-counters/1", "program": stem, "available": True, "reason": "",
                                   "gpu": {"name": "NVIDIA H200", "compute_capability": "9.0"},
                                   "dropped_metrics": {}, "kernels": []})["kernels"].append(
                {"name": rec["mangled"], "demangled": rec["demangled"], "launch": 0, "metrics": rec["metrics"]})
        docs["global_atomic"] = {"schema": "cudaperf-counters/1", "available": False, "reason": "no GPU", "kernels": []}
        for stem, doc in docs.items():
            with open(os.path.join(counters, stem + ".json"), "w") as f:
                json.dump(doc, f)
        out = os.path.join(self.tmp, "cupti.json")
        self.assertEqual(validate.main(["--analysis", self.analysis, "--corpus-counters", counters, "--json", out]), 0)
        cupti = load(out)
        without_atomic = [r for r in self.result["rows"] if not r["file"].endswith("global_atomic.cu")]
        self.assertEqual(cupti["summaries"]["corpus-cupti"], validate.summarize(without_atomic))
        self.assertTrue(any("global_atomic: counters not available: no GPU" in n for n in cupti["notes"]))

    def test_task_result_uses_largest_configuration_and_its_launch(self):
        rel = "data/tasks/saxpy/impls/baseline.cu"
        mangled = "_Z11saxpyKernelifPKfPf"
        metrics = {validate.M_SECTORS % "ld": 262144 * 4, validate.M_REQUESTS % "ld": 262144,
                   validate.M_DRAM_READ: 33554432, validate.M_REGISTERS: 16}
        result = {"schema": "cudaperf-eval-result/1", "task": "saxpy", "outcome": "ok",
                  "task_dir": "/elsewhere/data/tasks/saxpy", "candidate": "/elsewhere/" + rel,
                  "configs": [{"name": "medium", "params": {"n": 100000, "alpha": -0.75},
                               "counters": {"available": True, "kernels": [
                                   {"name": mangled, "launch": 0, "metrics": {validate.M_REGISTERS: 99}}]}},
                              {"name": "large", "params": {"n": 4194305},
                               "counters": {"available": True, "kernels": [
                                   {"name": mangled, "launch": 1, "metrics": {validate.M_REGISTERS: 99}},
                                   {"name": mangled, "launch": 0, "metrics": metrics}]}}]}
        results = os.path.join(self.tmp, "results.jsonl")
        with open(results, "w") as f:
            f.write(json.dumps({"schema": "cudaperf-eval-result/1", "candidate": "x.cu", "outcome": "compile_error"}) + "\n")
            f.write(json.dumps(result) + "\n")
        saved = os.path.join(self.tmp, "task-analysis")
        out = os.path.join(self.tmp, "tasks.json")
        self.assertEqual(validate.main(["--analyzer", ANALYZER, "--task-results", results,
                                        "--save-analysis", saved, "--json", out]), 0)
        # The saved document is what cudaperf-features ran: `cudaperf-analyze --task` at that configuration.
        doc = load(os.path.join(saved, validate.analysis_name(rel, "large")))
        self.assertEqual([c["name"] for c in doc["configurations"]], ["large"])
        launch = doc["configurations"][0]["launches"][0]
        self.assertEqual((launch["mangled_name"], launch["grid"], launch["block"]), (mangled, [16385, 1, 1], [256, 1, 1]))
        self.assertEqual(launch["scalar_args"]["n"], 4194305)
        validation = load(out)
        rows = {r["feature"]: r for r in validation["rows"]}
        self.assertEqual(rows["registers"]["measured"], 16)  # launch 0 of the largest configuration
        self.assertEqual(rows["global_ld_sectors_per_request"]["predicted"], 4.0)
        self.assertIsNotNone(rows["dram_read_bytes"]["predicted"])  # the grid is known
        self.assertEqual(rows["registers"]["grid_origin"], "cudaperf-analyze --task")
        # The entry point launches once; the second measured launch is left out of the join, and said so.
        self.assertTrue(any("saxpy/impls/baseline.cu@large: join incomplete, 1 of 2 measured launches joined" in n
                            for n in validation["notes"]), validation["notes"])
        # The saved analysis replays to the same rows (cudaperf-features --analysis).
        again = os.path.join(self.tmp, "tasks-again.json")
        self.assertEqual(validate.main(["--analysis", saved, "--task-results", results, "--json", again]), 0)
        self.assertEqual(load(again)["rows"], validation["rows"])


if __name__ == "__main__":
    if "--analyzer" in sys.argv:
        i = sys.argv.index("--analyzer")
        ANALYZER = os.path.abspath(sys.argv[i + 1])
        del sys.argv[i:i + 2]
    else:
        ANALYZER = os.path.join(ROOT, "build", "bin", "cudaperf-analyze")
    unittest.main(verbosity=2)
