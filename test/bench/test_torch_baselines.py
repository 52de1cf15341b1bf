#!/usr/bin/env python3
"""scripts/torch-baselines.py's helpers without PyTorch: the timing summary (the same percentiles as
the evaluator's), the loop's stopping rule, task reading, sharding and the per-task time limit.

    python3 test/bench/test_torch_baselines.py
"""
import importlib.util
import json
import os
import tempfile
import time
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
spec = importlib.util.spec_from_file_location("torch_baselines", os.path.join(ROOT, "scripts", "torch-baselines.py"))
tb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tb)


class Summary(unittest.TestCase):
    def test_percentiles_interpolate_between_ranks(self):
        self.assertEqual(tb.percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.5), 3.0)
        self.assertAlmostEqual(tb.percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.1), 1.4)
        self.assertAlmostEqual(tb.percentile([0.0, 10.0], 0.25), 2.5)

    def test_summary_fields_are_the_evaluators(self):
        s = tb.summarize([5.0, 1.0, 4.0, 2.0, 3.0])
        self.assertEqual(s["runs"], 5)
        self.assertEqual(s["median_ms"], 3.0)
        self.assertEqual((s["min_ms"], s["max_ms"], s["mean_ms"]), (1.0, 5.0, 3.0))
        self.assertAlmostEqual(s["p10_ms"], 1.4)
        self.assertAlmostEqual(s["p90_ms"], 4.6)
        self.assertAlmostEqual(s["spread"], (4.6 - 1.4) / 3.0)

    def test_the_loop_stops_after_min_runs_and_budget_or_at_max_runs(self):
        self.assertTrue(tb.keep_timing([1] * 5, 500, 20, 1000, 100))   # below min runs
        self.assertTrue(tb.keep_timing([1] * 25, 50, 20, 1000, 100))   # budget left
        self.assertFalse(tb.keep_timing([1] * 25, 150, 20, 1000, 100))
        self.assertFalse(tb.keep_timing([1] * 1000, 1, 20, 1000, 100))


class Tasks(unittest.TestCase):
    def test_config_globals_drop_the_name(self):
        self.assertEqual(tb.config_globals({"name": "small", "n": 4, "alpha": 0.5}), {"n": 4, "alpha": 0.5})

    def test_read_task_accepts_pytorch_tasks_only(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(ValueError):
                tb.read_task(d)
            with open(os.path.join(d, "task.json"), "w") as f:
                json.dump({"name": "x", "kind": "c-to-cuda", "configs": [{"name": "a"}]}, f)
            with self.assertRaisesRegex(ValueError, "not a pytorch-to-cuda task"):
                tb.read_task(d)
            with open(os.path.join(d, "task.json"), "w") as f:
                json.dump({"name": "x", "kind": "pytorch-to-cuda", "pytorch": {"module": "model.py"},
                           "configs": [{"name": "a", "n": 3}]}, f)
            with self.assertRaisesRegex(ValueError, "model.py: missing"):
                tb.read_task(d)
            open(os.path.join(d, "model.py"), "w").close()
            task, model = tb.read_task(d)
            self.assertEqual(task["configs"][0]["n"], 3)
            self.assertEqual(model, os.path.join(d, "model.py"))

    def test_shards_cover_every_task_once(self):
        items = list(range(10))
        shards = [tb.shard(items, i, 3) for i in range(3)]
        self.assertEqual(sorted(sum(shards, [])), items)
        self.assertEqual(shards[0], [0, 3, 6, 9])

    def test_the_document_has_the_schema_cudaperf_bench_reads(self):
        doc = tb.timing_document("relu", "2.11", "H200", "eval", {}, {"small": {"eager": tb.summarize([1.0])}})
        self.assertEqual(doc["schema"], "cudaperf-torch-timing/1")
        self.assertEqual(doc["configs"]["small"]["eager"]["median_ms"], 1.0)


class Limits(unittest.TestCase):
    def test_time_limit_interrupts_and_resets(self):
        start = time.monotonic()
        with self.assertRaises(tb.TaskTimeout):
            with tb.time_limit(0.2):
                time.sleep(5)
        self.assertLess(time.monotonic() - start, 2)
        with tb.time_limit(0.2):
            pass
        time.sleep(0.3)  # no alarm left behind
        with tb.time_limit(0):
            time.sleep(0.01)

    def test_gpu_turn_is_exclusive_and_released(self):
        with tempfile.TemporaryDirectory() as d:
            lock = os.path.join(d, "lock")
            with tb.gpu_turn(lock):
                pass
            with tb.gpu_turn(lock):  # released: taken again at once
                pass
            with tb.gpu_turn(None):
                pass


if __name__ == "__main__":
    unittest.main()
