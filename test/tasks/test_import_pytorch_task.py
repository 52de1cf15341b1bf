#!/usr/bin/env python3
"""Unit tests of scripts/import-pytorch-task.py's helpers that need no PyTorch.

    python3 test/tasks/test_import_pytorch_task.py
"""
import ast
import importlib.util
import os
import sys
import textwrap
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def load_import_script():
    spec = importlib.util.spec_from_file_location("import_pytorch_task",
                                                  os.path.join(ROOT, "scripts", "import-pytorch-task.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


imp = load_import_script()

POOL_CONFIGS = [
    {"batch_size": 2, "channels": 3, "height": 16, "width": 22},
    {"batch_size": 4, "channels": 32, "height": 64, "width": 96},
    {"batch_size": 8, "channels": 64, "height": 128, "width": 128},
]


class DimensionExpressions(unittest.TestCase):
    def test_a_parameter_that_matches_in_every_config(self):
        self.assertEqual(imp.infer_dim_expr([16, 64, 128], POOL_CONFIGS), "height")
        self.assertEqual(imp.infer_dim_expr([22, 96, 128], POOL_CONFIGS), "width")

    def test_a_parameter_that_matches_in_one_config_only_is_not_taken(self):
        # 128 equals width in the last config, but the first two say height.
        self.assertEqual(imp.infer_dim_expr([16, 64, 128], POOL_CONFIGS), "height")

    def test_the_first_parameter_wins_when_two_always_agree(self):
        configs = [{"rows": 4, "cols": 4}, {"rows": 8, "cols": 8}]
        self.assertEqual(imp.infer_dim_expr([4, 8], configs), "rows")

    def test_product_of_two_parameters(self):
        configs = [{"batch_size": 2, "dim": 10}, {"batch_size": 3, "dim": 100}]
        self.assertEqual(imp.infer_dim_expr([20, 300], configs), "batch_size * dim")

    def test_square_of_a_parameter(self):
        configs = [{"n": 3}, {"n": 5}]
        self.assertEqual(imp.infer_dim_expr([9, 25], configs), "n * n")

    def test_literal_when_constant_and_no_parameter_matches(self):
        configs = [{"in_channels": 3, "height": 17}, {"in_channels": 16, "height": 256}]
        self.assertEqual(imp.infer_dim_expr([3, 3], configs), "3")

    def test_division_by_a_literal(self):
        self.assertEqual(imp.infer_dim_expr([8, 32, 64], POOL_CONFIGS), "height / 2")
        self.assertEqual(imp.infer_dim_expr([11, 48, 64], POOL_CONFIGS), "width / 2")

    def test_minus_a_literal(self):
        configs = [{"batch_size": 2, "channels": 8, "length": 100}, {"batch_size": 8, "channels": 64, "length": 1024},
                   {"batch_size": 16, "channels": 256, "length": 4096}]
        self.assertEqual(imp.infer_dim_expr([96, 1020, 4092], configs), "length - 4")

    def test_times_and_plus_a_literal(self):
        configs = [{"n": 10}, {"n": 20}]
        self.assertEqual(imp.infer_dim_expr([30, 60], configs), "n * 3")
        self.assertEqual(imp.infer_dim_expr([13, 23], configs), "n + 3")

    def test_inexact_division_is_not_taken(self):
        configs = [{"n": 10}, {"n": 21}]
        with self.assertRaises(imp.TaskImportError):
            imp.infer_dim_expr([5, 10], configs)

    def test_unexpressible_dimension_fails_with_the_values(self):
        configs = [{"n": 10}, {"n": 20}]
        with self.assertRaises(imp.TaskImportError) as caught:
            imp.infer_dim_expr([7, 9], configs)
        self.assertIn("cannot express", str(caught.exception))
        self.assertIn("7", str(caught.exception))

    def test_single_config_prefers_a_parameter_over_a_literal(self):
        self.assertEqual(imp.infer_dim_expr([1024], [{"batch_size": 16, "dim": 1024}]), "dim")
        self.assertEqual(imp.infer_dim_expr([1], [{"batch_size": 16, "dim": 1024}]), "1")

    def test_counts_parenthesize_compound_dimensions_and_drop_ones(self):
        self.assertEqual(imp.count_expr(["batch_size", "channels", "height / 2", "width / 2"]),
                         "batch_size * channels * (height / 2) * (width / 2)")
        self.assertEqual(imp.count_expr(["m", "1"]), "m")
        self.assertEqual(imp.count_expr([]), "1")
        self.assertEqual(imp.count_expr(["1", "1"]), "1")
        self.assertEqual(imp.count_expr(["batch_size * dim", "k"]), "batch_size * dim * k")

    def test_evaluate_count_uses_integer_division(self):
        params = {"batch_size": 2, "channels": 3, "height": 16, "width": 22}
        self.assertEqual(imp.evaluate_count("batch_size * channels * (height / 2) * (width / 2)", params),
                         2 * 3 * 8 * 11)
        self.assertEqual(imp.evaluate_count("(width - 4)", params), 18)


class SourceReading(unittest.TestCase):
    SOURCE = '''
"""A module docstring."""
import torch

class Model(torch.nn.Module):
    """Doubles x."""
    def forward(self, x, y, scale):
        return x * 2

batch_size = 16
dim = 1024
_private = 3
flag = True
ratio = 0.5
CONFIGS = {"small": {"batch_size": 2, "dim": 8}, "large": {"batch_size": 4, "dim": 64}}
TOLERANCE = {"atol": 1e-3, "rtol": 1e-3}

def get_inputs():
    x = torch.randn(batch_size, dim)
    y = torch.rand(batch_size, dim) * 2
    idx = torch.randint(0, 10, (batch_size,))
    return [x, y, torch.rand(dim), idx, torch.ones(3), 0.5, helper(), torch.randint(5, (2,))]

def get_init_inputs():
    return []
'''

    def test_size_globals_are_the_int_assignments(self):
        self.assertEqual(imp.module_size_globals(self.SOURCE), {"batch_size": 16, "dim": 1024})

    def test_extras_are_read_as_literals(self):
        extras = imp.source_extras(self.SOURCE)
        self.assertEqual(extras["TOLERANCE"], {"atol": 1e-3, "rtol": 1e-3})
        self.assertIsNone(extras["DISTRIBUTIONS"])
        self.assertEqual(list(extras["CONFIGS"]), ["small", "large"])

    def test_distributions_from_the_factory_calls(self):
        self.assertEqual(imp.infer_input_distributions(self.SOURCE), [
            {"dist": "normal", "mean": 0, "std": 1},
            None,  # arithmetic on torch.rand: unknown
            {"dist": "uniform", "min": 0, "max": 1},
            {"dist": "uniform", "min": 0, "max": 9},
            {"dist": "constant", "value": 1},
            None,
            None,
            {"dist": "uniform", "min": 0, "max": 4},
        ])

    def test_forward_parameters_and_description(self):
        self.assertEqual(imp.forward_parameter_names(self.SOURCE), ["x", "y", "scale"])
        self.assertEqual(imp.model_description(self.SOURCE), "Doubles x.")

    def test_check_model_source_reports_what_is_missing(self):
        problems = imp.check_model_source("import torch\nclass Model:\n    pass\n")
        self.assertIn("class Model has no forward method", problems)
        self.assertIn("no top-level function get_inputs()", problems)
        self.assertIn("no top-level function get_init_inputs()", problems)
        self.assertEqual(imp.check_model_source(self.SOURCE), [])
        self.assertTrue(imp.check_model_source("def (:")[0].startswith("does not parse"))

    def test_configs(self):
        sizes = {"batch_size": 16, "dim": 1024}
        self.assertEqual(imp.problem_configs(None, sizes), [("default", sizes)])
        with self.assertRaisesRegex(imp.TaskImportError, "not a module-level int global"):
            imp.problem_configs({"small": {"batch": 2}}, sizes)
        with self.assertRaisesRegex(imp.TaskImportError, "every config must set"):
            imp.problem_configs({"a": {"batch_size": 2}, "b": {"dim": 3}}, sizes)
        with self.assertRaisesRegex(imp.TaskImportError, "positive int"):
            imp.problem_configs({"a": {"batch_size": 0}}, sizes)

    def test_distribution_extras(self):
        self.assertEqual(imp.distribution_from_extra("x", {"normal": [0, 2]}), {"dist": "normal", "mean": 0, "std": 2})
        self.assertEqual(imp.distribution_from_extra("x", {"uniform": [-8, 8]}), {"dist": "uniform", "min": -8, "max": 8})
        self.assertEqual(imp.distribution_from_extra("x", {"constant": 1.5}), {"dist": "constant", "value": 1.5})
        for bad in ({"normal": 1}, {"uniform": [2, 1]}, {"poisson": [1, 2]}, {"normal": [0, 1], "uniform": [0, 1]}):
            with self.assertRaises(imp.TaskImportError):
                imp.distribution_from_extra("x", bad)

    def test_tolerances(self):
        self.assertEqual(imp.tolerance_entries({"atol": 1e-3, "rtol": 1e-4}, ["f32", "i64", "f32"]),
                         {"f32": {"atol": 1e-3, "rtol": 1e-4}})
        self.assertEqual(imp.tolerance_entries({"f64": {"atol": 1e-9}}, ["f32"]), {"f64": {"atol": 1e-9}})
        self.assertIsNone(imp.tolerance_entries(None, ["f32"]))
        with self.assertRaises(imp.TaskImportError):
            imp.tolerance_entries({"f16": {"atol": 1}}, ["f32"])


def observation(name, params, batch, dim, weight_range=(-0.1, 0.1)):
    return {"name": name, "params": params,
            "inputs": [{"name": "x", "kind": "tensor", "dtype": "f32", "shape": [batch, dim], "min": -4.1, "max": 3.9}],
            "weights": [{"name": "fc_weight", "dtype": "f32", "shape": [8, dim], "min": weight_range[0],
                         "max": weight_range[1]},
                        {"name": "fc_bias", "dtype": "f32", "shape": [8], "min": 0.0, "max": 0.0}],
            "outputs": [{"name": "out0", "dtype": "f32", "shape": [batch, 8]},
                        {"name": "out1", "dtype": "i64", "shape": [batch]}]}


class BuildTask(unittest.TestCase):
    OBSERVATIONS = [observation("small", {"batch_size": 2, "dim": 10}, 2, 10, (-0.31622776, 0.31)),
                    observation("large", {"batch_size": 64, "dim": 1000}, 64, 1000, (-0.03, 0.0316))]
    EXTRAS = {"TOLERANCE": {"atol": 1e-3, "rtol": 1e-3}, "DISTRIBUTIONS": None,
              "input_distributions": [{"dist": "normal", "mean": 0, "std": 1}]}

    def test_args_in_the_documented_order(self):
        task = imp.build_task("lin", "A linear layer.", self.OBSERVATIONS, self.EXTRAS)
        self.assertEqual([(a["name"], a["type"], a["dtype"], a.get("access"), a.get("count")) for a in task["args"]], [
            ("x", "pointer", "f32", "in", "batch_size * dim"),
            ("fc_weight", "pointer", "f32", "in", "8 * dim"),
            ("fc_bias", "pointer", "f32", "in", "8"),
            ("out0", "pointer", "f32", "out", "batch_size * 8"),
            ("out1", "pointer", "i64", "out", "batch_size"),
            ("batch_size", "scalar", "i32", None, None),
            ("dim", "scalar", "i32", None, None),
        ])
        self.assertEqual(task["kind"], "pytorch-to-cuda")
        self.assertEqual(task["entry"], "lin")
        self.assertEqual(task["configs"], [{"name": "small", "batch_size": 2, "dim": 10},
                                           {"name": "large", "batch_size": 64, "dim": 1000}])
        self.assertEqual(task["tolerances"], {"f32": {"atol": 1e-3, "rtol": 1e-3}})
        self.assertEqual(task["pytorch"], {
            "module": "model.py", "exported": "exported/{config}.pt", "forward_args": ["x", "fc_weight", "fc_bias"],
            "outputs": ["out0", "out1"],
            "shapes": {"x": ["batch_size", "dim"], "fc_weight": ["8", "dim"], "fc_bias": ["8"],
                       "out0": ["batch_size", "8"], "out1": ["batch_size"]}})

    def test_distributions_inferred_observed_and_declared(self):
        task = imp.build_task("lin", "", self.OBSERVATIONS, self.EXTRAS)
        self.assertEqual(task["inputs"], {
            "x": {"dist": "normal", "mean": 0, "std": 1},
            "fc_weight": {"dist": "uniform", "min": -0.316228, "max": 0.31},  # union over configs, 6 digits
            "fc_bias": {"dist": "constant", "value": 0},
        })
        declared = dict(self.EXTRAS, DISTRIBUTIONS={"fc_bias": {"uniform": [-1, 1]}}, input_distributions=None)
        task = imp.build_task("lin", "", self.OBSERVATIONS, declared)
        self.assertEqual(task["inputs"]["fc_bias"], {"dist": "uniform", "min": -1, "max": 1})
        self.assertEqual(task["inputs"]["x"], {"dist": "uniform", "min": -4.1, "max": 3.9})  # observed

    def test_signature(self):
        task = imp.build_task("lin", "", self.OBSERVATIONS, self.EXTRAS)
        self.assertEqual(imp.c_signature(task),
                         "void lin(const float *x, const float *fc_weight, const float *fc_bias, float *out0, "
                         "long long *out1, int batch_size, int dim, cudaStream_t stream)")
        self.assertEqual(imp.normalize_signature("void lin(const float* x, int  n)"),
                         imp.normalize_signature("void lin(const float *x, int n)"))
        self.assertEqual(imp.signature_comment("// One line.\n// entry: void f(int n, cudaStream_t stream)\n"),
                         "void f(int n, cudaStream_t stream)")
        self.assertIsNone(imp.signature_comment("extern \"C\" void f(int n, cudaStream_t stream) {}\n"))

    def test_scalar_forward_inputs(self):
        obs = []
        for o, scale in zip(self.OBSERVATIONS, (0.5, 0.25)):
            o = dict(o, inputs=o["inputs"] + [{"name": "scale", "kind": "scalar", "dtype": "f32", "value": scale},
                                              {"name": "steps", "kind": "scalar", "dtype": "i32", "value": 3}])
            obs.append(o)
        task = imp.build_task("lin", "", obs, self.EXTRAS)
        self.assertEqual(task["args"][-2:], [{"name": "scale", "type": "scalar", "dtype": "f32"},
                                             {"name": "steps", "type": "scalar", "dtype": "i32", "value": 3}])
        self.assertEqual(task["configs"][1], {"name": "large", "batch_size": 64, "dim": 1000, "scale": 0.25})
        self.assertEqual(task["pytorch"]["forward_args"], ["x", "fc_weight", "fc_bias"])

    def test_name_clashes_and_bad_names_fail(self):
        clash = [dict(o, outputs=[{"name": "x", "dtype": "f32", "shape": [o["params"]["batch_size"]]}])
                 for o in self.OBSERVATIONS]
        with self.assertRaisesRegex(imp.TaskImportError, "used twice"):
            imp.build_task("lin", "", clash, self.EXTRAS)
        with self.assertRaisesRegex(imp.TaskImportError, "C identifier"):
            imp.build_task("3d-conv", "", self.OBSERVATIONS, self.EXTRAS)
        reserved = [dict(o, inputs=[dict(o["inputs"][0], name="int")]) for o in self.OBSERVATIONS]
        with self.assertRaisesRegex(imp.TaskImportError, "not usable in C"):
            imp.build_task("lin", "", reserved, self.EXTRAS)

    def test_changing_outputs_between_configs_fail(self):
        changed = [self.OBSERVATIONS[0], dict(self.OBSERVATIONS[1], outputs=self.OBSERVATIONS[1]["outputs"][:1])]
        with self.assertRaisesRegex(imp.TaskImportError, "differ between configs"):
            imp.build_task("lin", "", changed, self.EXTRAS)

    def test_large_sizes_become_i64(self):
        obs = [observation("huge", {"batch_size": 1, "dim": 2**31}, 1, 2**31)]
        task = imp.build_task("lin", "", obs, self.EXTRAS)
        self.assertEqual([a["dtype"] for a in task["args"] if a["type"] == "scalar"], ["i32", "i64"])

    def test_format_is_stable_json(self):
        import json
        task = imp.build_task("lin", "A linear layer.", self.OBSERVATIONS, self.EXTRAS)
        text = imp.format_task_json(task)
        self.assertEqual(json.loads(text), task)
        self.assertIn('\n    {"name": "x", "type": "pointer", "dtype": "f32", "access": "in", "count": "batch_size * dim"},\n',
                      text)
        self.assertEqual(text, imp.format_task_json(json.loads(text)))


class KernelBenchFailureClasses(unittest.TestCase):
    """Each way KernelBench's problems failed to import on the H200 (issue 19), without torch."""

    def test_sizes_written_as_expressions_and_tuples(self):
        source = textwrap.dedent("""\
            M = 1024 * 2
            N = 2048 * 2
            K = (M + 7) // 8 - -1
            P = 2 ** 10
            depth, height, width = 16, 64, 64
            dims = (N,)
            bad = N / 2
            flag = True
            Q = N * unknown
            R = 5
            R = int("5")
        """)
        self.assertEqual(imp.module_size_globals(source), {"M": 2048, "N": 4096, "K": 257, "P": 1024, "depth": 16,
                                                            "height": 64, "width": 64})
        self.assertEqual(imp.problem_configs(None, imp.module_size_globals("N = 2048 * 2\n")), [("default", {"N": 4096})])
        self.assertIsNone(imp.constant_int(ast.parse("2 ** 100").body[0].value, {}))
        self.assertIsNone(imp.constant_int(ast.parse("4 // 0").body[0].value, {}))

    def test_trace_tolerance_is_relative_to_the_output_scale(self):
        # cuDNN's other algorithm: 5e-3 on outputs of magnitude ~3 passes; a baked parameter does not.
        self.assertTrue(imp.within_trace_tolerance(5e-3, 3.0))
        self.assertTrue(imp.within_trace_tolerance(4e-6, 0.5))
        self.assertFalse(imp.within_trace_tolerance(0.5, 3.0))
        self.assertTrue(imp.within_trace_tolerance(0.0, 0.0))
        self.assertFalse(imp.within_trace_tolerance(1e-3, 0.0))

    def test_forward_defaults_not_returned_by_get_inputs(self):
        lstm = [("x", False, False), ("h0", True, False), ("c0", True, False)]
        self.assertEqual(imp.forward_inputs_used(lstm, 1), ["x"])
        self.assertEqual(imp.forward_inputs_used(lstm, 3), ["x", "h0", "c0"])
        with self.assertRaisesRegex(imp.TaskImportError, "forward's y have no default"):
            imp.forward_inputs_used([("x", False, False), ("y", False, False), ("mask", True, False)], 1)
        with self.assertRaisesRegex(imp.TaskImportError, "returns 3 values; forward takes 2"):
            imp.forward_inputs_used([("x", False, False), ("y", True, False)], 3)
        self.assertEqual(imp.forward_inputs_used([("x", False, False), ("rest", False, True)], 1), ["x"])

    def test_a_parameter_named_like_a_size_global(self):
        # KernelBench level 2, 48: a parameter scaling_factor beside `scaling_factor = 2` (passed to __init__).
        obs = observation("default", {"batch_size": 4, "dim": 10, "scaling_factor": 2}, 4, 10)
        obs["weights"].append({"name": "scaling_factor", "dtype": "f32", "shape": [8], "min": -1.0, "max": 1.0})
        extras = dict(BuildTask.EXTRAS, sizes_from_globals=True)
        task = imp.build_task("lvl2_48", "", [obs], extras)
        names = [a["name"] for a in task["args"]]
        self.assertEqual(names.count("scaling_factor"), 1)
        self.assertEqual(task["configs"], [{"name": "default", "batch_size": 4, "dim": 10}])
        # With CONFIGS the user chose the sizes: the clash is theirs to resolve.
        obs = observation("default", {"batch_size": 4, "dim": 10, "scaling_factor": 2}, 4, 10)
        obs["weights"].append({"name": "scaling_factor", "dtype": "f32", "shape": [8], "min": -1.0, "max": 1.0})
        with self.assertRaisesRegex(imp.TaskImportError, "used twice"):
            imp.build_task("lvl2_48", "", [obs], BuildTask.EXTRAS)
        self.assertEqual(imp.size_globals_free_of({"a": 1, "b": 2}, {"b"}), ({"a": 1}, ["b"]))

    def test_training_mode_and_inputs_on_the_device(self):
        self.assertEqual(imp.model_mode({}), "eval")
        self.assertEqual(imp.model_mode({"MODE": "train"}), "train")
        with self.assertRaisesRegex(imp.TaskImportError, "MODE must be one of eval, train"):
            imp.model_mode({"MODE": "training"})
        self.assertFalse(imp.inputs_on_device({}))
        self.assertTrue(imp.inputs_on_device({"INPUTS_ON_DEVICE": True}))
        with self.assertRaises(imp.TaskImportError):
            imp.inputs_on_device({"INPUTS_ON_DEVICE": 1})
        source = 'import torch\nclass Model:\n    def forward(self, x):\n        return x\n' \
                 'def get_inputs():\n    return []\ndef get_init_inputs():\n    return []\nn = 4\nMODE = "inference"\n'
        self.assertIn("MODE must be one of", imp.check_model_source(source)[0])

    def test_dimensions_named_by_the_factory_call(self):
        # One configuration: depth 16 equals out_channels 16, and only the call says which it is.
        source = textwrap.dedent("""\
            import torch
            def get_inputs():
                x = torch.rand(batch_size, in_channels, depth, height, width)
                return [x, torch.randint(0, 10, (batch_size,)), torch.rand(batch_size, *shape), torch.rand(4, n)]
        """)
        self.assertEqual(imp.input_dimension_names(source), [
            ["batch_size", "in_channels", "depth", "height", "width"], ["batch_size"], None, [None, "n"]])
        config = [{"batch_size": 128, "in_channels": 3, "out_channels": 16, "depth": 16, "height": 64, "width": 64}]
        shape = [[128, 3, 16, 64, 64]]
        self.assertEqual(imp.shape_exprs(shape, config), ["batch_size", "in_channels", "out_channels", "height", "height"])
        self.assertEqual(imp.shape_exprs(shape, config, ["batch_size", "in_channels", "depth", "height", "width"]),
                         ["batch_size", "in_channels", "depth", "height", "width"])
        # Only without CONFIGS (one configuration) do the factory's names decide.
        configs_source = source + 'CONFIGS = {"a": {"n": 2}, "b": {"n": 3}}\nn = 2\n'
        self.assertIsNone(imp.build_extras(configs_source)["input_dim_names"])
        self.assertEqual(imp.build_extras(source + "n = 4\n")["input_dim_names"][3], [None, "n"])
        # A name that does not give the dimension is not taken.
        self.assertEqual(imp.shape_exprs([[128, 5]], [{"batch_size": 128, "n": 4}], ["batch_size", "n"]),
                         ["batch_size", "5"])

    def test_random_forward_is_named(self):
        source = textwrap.dedent("""\
            import torch
            import torch.nn.functional as F
            class Model(torch.nn.Module):
                def forward(self, x, h0=None):
                    if h0 is None:
                        h0 = torch.randn(3, 4, device=x.device)
                    return F.dropout(x, 0.5) + h0.sum()
            def get_inputs():
                return [torch.rand(3)]
        """)
        self.assertEqual(imp.random_calls(source), ["dropout", "randn"])
        self.assertEqual(imp.random_calls("import torch\nclass Model:\n    def forward(self, x):\n        return x\n"), [])

    def test_fresh_inputs_follow_the_task_distributions(self):
        # BatchNorm's running_var is constant 1 in the task: the fresh-input check must not draw it
        # from a standard normal (negative variances gave NaN).
        obs = observation("default", {"batch_size": 4, "dim": 10}, 4, 10)
        obs["weights"].append({"name": "bn_running_var", "dtype": "f32", "shape": [8], "min": 1.0, "max": 1.0})
        task = imp.build_task("bn", "", [obs], BuildTask.EXTRAS)
        self.assertEqual(task["inputs"]["bn_running_var"], {"dist": "constant", "value": 1})
        self.assertEqual(imp.argument_distribution("w", "f32", (-0.5, 0.5), {}, None),
                         {"dist": "uniform", "min": -0.5, "max": 0.5})
        self.assertEqual(imp.argument_distribution("w", "f32", (-0.5, 0.5), {"w": {"normal": [0, 2]}}, None),
                         {"dist": "normal", "mean": 0, "std": 2})


class CheckScript(unittest.TestCase):
    """test/tasks/check-pytorch-tasks.py finds what it is meant to find."""

    @classmethod
    def setUpClass(cls):
        spec = importlib.util.spec_from_file_location("check_pytorch_tasks",
                                                      os.path.join(ROOT, "test", "tasks", "check-pytorch-tasks.py"))
        cls.check = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cls.check)

    def make_problem(self, root, name="relu"):
        """A copy of the relu problem plus the task.json the import script makes of it."""
        import shutil
        task_dir = os.path.join(root, name)
        shutil.copytree(os.path.join(ROOT, "data", "tasks", "pytorch", "relu"), task_dir,
                        ignore=shutil.ignore_patterns("exported", "task.json"))
        obs = [{"name": c, "params": {"batch_size": b, "dim": d},
                "inputs": [{"name": "x", "kind": "tensor", "dtype": "f32", "shape": [b, d], "min": -4, "max": 4}],
                "weights": [], "outputs": [{"name": "out", "dtype": "f32", "shape": [b, d]}]}
               for c, b, d in (("small", 4, 1000), ("medium", 16, 16384), ("large", 128, 65536))]
        task = imp.build_task(name, "", obs, {"input_distributions": [{"dist": "normal", "mean": 0, "std": 1}]})
        with open(os.path.join(task_dir, "task.json"), "w") as f:
            f.write(imp.format_task_json(task))
        return task_dir

    def edit(self, path, old, new):
        with open(path) as f:
            text = f.read()
        self.assertIn(old, text)
        with open(path, "w") as f:
            f.write(text.replace(old, new))

    def test_a_consistent_problem_passes(self):
        import tempfile
        with tempfile.TemporaryDirectory() as root:
            self.assertEqual(self.check.check_problem(imp, self.make_problem(root), None), [])

    def test_a_comment_that_differs_from_task_json_fails(self):
        import tempfile
        with tempfile.TemporaryDirectory() as root:
            task_dir = self.make_problem(root)
            self.edit(os.path.join(task_dir, "impls", "baseline.cu"), "// entry: void relu(const float *x, float *out, int batch_size",
                      "// entry: void relu(const float *x, float *out, long long batch_size")
            problems = self.check.check_problem(imp, task_dir, None)
            self.assertEqual(len(problems), 1)
            self.assertIn("baseline.cu says", problems[0])

    def test_missing_comment_function_and_model_parts_fail(self):
        import tempfile
        with tempfile.TemporaryDirectory() as root:
            task_dir = self.make_problem(root)
            self.edit(os.path.join(task_dir, "impls", "baseline.cu"), "// entry:", "// entry point:")
            self.edit(os.path.join(task_dir, "impls", "baseline.cu"), 'extern "C" void relu(', 'void relu(')
            self.edit(os.path.join(task_dir, "model.py"), "def get_init_inputs", "def get_constructor_inputs")
            problems = self.check.check_problem(imp, task_dir, None)
            self.assertIn("model.py: no top-level function get_init_inputs()", problems)
            self.assertIn("impls/baseline.cu has no `// entry: void NAME(...)` comment", problems)
            self.assertIn('impls/baseline.cu defines no extern "C" void relu(...)', problems)

    def test_task_json_inconsistencies_fail(self):
        import tempfile
        with tempfile.TemporaryDirectory() as root:
            task_dir = self.make_problem(root)
            self.edit(os.path.join(task_dir, "task.json"), '"count": "batch_size * dim"}',
                      '"count": "batch_size * dim + 1"}')
            self.edit(os.path.join(task_dir, "task.json"), '{"name": "large", "batch_size": 128',
                      '{"name": "large", "batch_size": 64')
            problems = self.check.check_problem(imp, task_dir, None)
            self.assertTrue(any(p.startswith("x: count") for p in problems), problems)
            self.assertTrue(any("configs" in p for p in problems), problems)


if __name__ == "__main__":
    unittest.main(verbosity=1)
