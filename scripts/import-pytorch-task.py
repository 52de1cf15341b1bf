#!/usr/bin/env python3
"""Import PyTorch problems (KernelBench convention, model.py) as cudaperf-eval tasks.

    scripts/import-pytorch-task.py MODEL_PY|TASK_DIR... [--out TASK_DIR] [--export-only | --check | --signature]
    scripts/import-pytorch-task.py --many DIR [--jobs N] [--skip-done] [--verify-task-json] [--no-timing]

Many problems import in one process (torch and CUDA start once); --jobs N splits them over N
such processes. --many DIR takes every */model.py below DIR; --from-file FILE one path per line.
Every failure is reported per problem and the rest continue; the last line counts them and
gives the rate.

For every model.py: per configuration, set the module's size globals, build Model with
torch.manual_seed(0), call get_inputs(), run forward once on CUDA, then write task.json
("kind": "pytorch-to-cuda") and exported/<config>.pt (a TorchScript trace taking the forward's
tensor inputs, then the parameters and buffers). docs/pytorch-tasks.md describes the convention
and everything generated.

The helpers above the "PyTorch side" line need no torch, so the CPU tests import them.
Exit status: 0 done, 1 a problem failed (or --check found a difference), 2 bad usage or no
PyTorch/CUDA.
"""
import argparse
import ast
import contextlib
import difflib
import importlib.util
import inspect
import json
import math
import os
import re
import sys
import time

# dtypes the task format accepts (lib/Runtime/Dtype.cpp), by the torch dtype's name. f16/bf16 have
# no task dtype, so problems stay in fp32.
TORCH_DTYPES = {
    "torch.float32": "f32",
    "torch.float64": "f64",
    "torch.int32": "i32",
    "torch.int64": "i64",
    "torch.uint8": "u8",
    "torch.bool": "u8",
}
C_TYPES = {"f32": "float", "f64": "double", "i32": "int", "i64": "long long", "u32": "unsigned int",
           "u8": "unsigned char"}
FLOAT_DTYPES = ("f32", "f64")
INT32_MAX = 2**31 - 1
# Names an argument cannot take: C/C++ keywords the entry point would not compile with, and the
# stream the task format reserves.
RESERVED_NAMES = set("""
    auto break case char const continue default do double else enum extern float for goto if inline
    int long register restrict return short signed sizeof static struct switch typedef union unsigned
    void volatile while bool catch class delete friend mutable namespace new operator private
    protected public template this throw try typename using virtual stream""".split())
EXTRA_NAMES = ("CONFIGS", "TOLERANCE", "DISTRIBUTIONS", "MODE", "INPUTS_ON_DEVICE")
MODES = ("eval", "train")
# The trace must reproduce eager PyTorch up to the differences of the algorithms each run picks
# (cuDNN chooses per call: convolution-transpose outputs differ by up to ~5e-3 of their scale on the
# H200): max |diff| <= TRACE_ATOL + TRACE_RTOL * the output's largest magnitude. A parameter baked
# into the trace, or a branch taken on the example values, differs by the output's own scale.
TRACE_RTOL = 1e-2
TRACE_ATOL = 1e-5
# torch functions whose results are random: named in the refusal of a forward that is not deterministic.
RANDOM_FUNCTIONS = ("rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "randperm", "normal",
                    "bernoulli", "multinomial", "dropout", "poisson")


class TaskImportError(Exception):
    """A problem that cannot be imported; the message says why and what to change."""


# ---------------------------------------------------------------------------------------------
# model.py read as source (no torch)
# ---------------------------------------------------------------------------------------------

def is_identifier(name):
    return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) is not None


_INT_OPERATORS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
                  ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b, ast.Pow: lambda a, b: a ** b}


def constant_int(node, known):
    """The value of an integer expression of literals and earlier int globals (`2048 * 2`, `N // 4`,
    `(dim + 1) * 2`), or None for anything else (floats, calls, unknown names, bools)."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, int) and not isinstance(node.value, bool) else None
    if isinstance(node, ast.Name):
        return known.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = constant_int(node.operand, known)
        return None if v is None else (-v if isinstance(node.op, ast.USub) else v)
    if isinstance(node, ast.BinOp) and type(node.op) in _INT_OPERATORS:
        a, b = constant_int(node.left, known), constant_int(node.right, known)
        if a is None or b is None or (isinstance(node.op, (ast.FloorDiv, ast.Mod)) and b == 0) or \
                (isinstance(node.op, ast.Pow) and not 0 <= b <= 64):
            return None
        return _INT_OPERATORS[type(node.op)](a, b)
    return None


def module_size_globals(source):
    """Module-level int assignments, in order: the default configuration. The value may be an
    integer expression over literals and earlier ones (`N = 2048 * 2`), and several may be assigned
    at once (`depth, height, width = 16, 64, 64`)."""
    sizes = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0]
        if isinstance(target, ast.Name):
            pairs = [(target, node.value)]
        elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) and \
                len(target.elts) == len(node.value.elts) and all(isinstance(t, ast.Name) for t in target.elts):
            pairs = list(zip(target.elts, node.value.elts))
        else:
            continue
        for name_node, value_node in pairs:
            name = name_node.id
            value = constant_int(value_node, sizes)
            if value is None:
                sizes.pop(name, None)  # reassigned to something else: no longer a size
            elif name not in EXTRA_NAMES and not name.startswith("_"):
                sizes[name] = value
    return sizes


def source_extras(source):
    """CONFIGS, TOLERANCE and DISTRIBUTIONS as literals from the source (None where absent)."""
    extras = dict.fromkeys(EXTRA_NAMES)
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in EXTRA_NAMES:
            try:
                extras[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError as e:
                raise TaskImportError(f"{node.targets[0].id} must be a literal (dicts, numbers, strings): {e}")
    return extras


def problem_configs(configs, size_globals):
    """[(name, {param: value})] from CONFIGS, or one "default" config of the module's int globals."""
    if configs is None:
        if not size_globals:
            raise TaskImportError("no CONFIGS and no module-level int globals to make a configuration of")
        return [("default", dict(size_globals))]
    if not isinstance(configs, dict) or not configs:
        raise TaskImportError("CONFIGS must be a non-empty dict {config name: {global: int, ...}}")
    result = []
    keys = None
    for name, params in configs.items():
        if not isinstance(name, str) or not is_identifier(name):
            raise TaskImportError(f"CONFIGS: config name {name!r} must be an identifier (it names exported/<name>.pt)")
        if not isinstance(params, dict) or not params:
            raise TaskImportError(f"CONFIGS[{name!r}] must be a non-empty dict of size globals")
        for p, v in params.items():
            if p not in size_globals:
                raise TaskImportError(f"CONFIGS[{name!r}] sets {p!r}, which is not a module-level int global")
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise TaskImportError(f"CONFIGS[{name!r}][{p!r}] must be a positive int, not {v!r}")
        if keys is None:
            keys = list(params)
        elif set(params) != set(keys):
            raise TaskImportError(f"CONFIGS[{name!r}] sets {sorted(params)}; every config must set {sorted(keys)}")
        result.append((name, {k: params[k] for k in keys}))
    return result


def check_model_source(source):
    """Problems with a model.py that reading it as source can find (empty list: none)."""
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return [f"does not parse: {e}"]
    problems = []
    top = {n.name: n for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    model = top.get("Model")
    if not isinstance(model, ast.ClassDef):
        problems.append("no top-level class Model")
    elif not any(isinstance(n, ast.FunctionDef) and n.name == "forward" for n in model.body):
        problems.append("class Model has no forward method")
    for fn in ("get_inputs", "get_init_inputs"):
        if not isinstance(top.get(fn), ast.FunctionDef):
            problems.append(f"no top-level function {fn}()")
    try:
        extras = source_extras(source)
        problem_configs(extras["CONFIGS"], module_size_globals(source))
        tolerance_entries(extras["TOLERANCE"], ["f32"])
        for name, spec in (extras["DISTRIBUTIONS"] or {}).items():
            distribution_from_extra(name, spec)
        model_mode(extras)
        inputs_on_device(extras)
    except TaskImportError as e:
        problems.append(str(e))
    return problems


def model_mode(extras):
    """MODE: "eval" (the default: BatchNorm uses its running statistics, Dropout is off) or "train"
    (KernelBench's convention: the model is called as constructed, BatchNorm on batch statistics)."""
    mode = extras.get("MODE")
    if mode is None:
        return "eval"
    if mode not in MODES:
        raise TaskImportError(f"MODE must be one of {', '.join(MODES)}, not {mode!r}")
    return mode


def inputs_on_device(extras):
    """INPUTS_ON_DEVICE: build the model and call get_inputs() with the GPU as the default device,
    so large inputs are not made on the host (their values then come from the GPU's generator)."""
    value = extras.get("INPUTS_ON_DEVICE")
    if value is None:
        return False
    if not isinstance(value, bool):
        raise TaskImportError(f"INPUTS_ON_DEVICE must be True or False, not {value!r}")
    return value


def forward_inputs_used(parameters, count):
    """Names of the forward parameters that get_inputs()'s `count` values go to, in order.

    parameters: [(name, has_default, is_variadic)] after self. Trailing parameters with defaults that
    get_inputs() does not return (`h0=None`, `mask=None`) keep their defaults and are not arguments.
    """
    names = []
    for name, has_default, variadic in parameters:
        if variadic:
            break
        names.append((name, has_default))
    if count > len(names):
        raise TaskImportError(f"get_inputs() returns {count} values; forward takes {len(names)}")
    missing = [n for n, has_default in names[count:] if not has_default]
    if missing:
        raise TaskImportError(f"get_inputs() returns {count} values; forward's {', '.join(missing)} "
                              "have no default and are not among them")
    return [n for n, _ in names[:count]]


def random_calls(source):
    """The torch random functions Model's methods call (`torch.randn`, `F.dropout`, ...), sorted."""
    found = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef):
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                        call.func.attr in RANDOM_FUNCTIONS:
                    found.add(call.func.attr)
    return sorted(found)


def within_trace_tolerance(max_abs_diff, scale):
    """Whether an exported module's output differs from eager's only as another algorithm would."""
    return max_abs_diff <= TRACE_ATOL + TRACE_RTOL * scale


def size_globals_free_of(params, taken):
    """The default configuration's size globals without those named like a tensor or scalar argument
    (a parameter `scaling_factor` beside a global `scaling_factor = 2` passed to __init__): with no
    CONFIGS every int global is a size, and a size named like an argument would be a second argument
    of that name. Returns (kept, dropped)."""
    kept = {k: v for k, v in params.items() if k not in taken}
    return kept, sorted(set(params) - set(kept))


def forward_parameter_names(source):
    """Names of Model.forward's parameters after self, from the source."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and node.name == "Model":
            for f in node.body:
                if isinstance(f, ast.FunctionDef) and f.name == "forward":
                    return [a.arg for a in f.args.args[1:]]
    return []


# torch factory functions whose values the evaluator can reproduce: name -> distribution.
_FACTORY_DISTRIBUTIONS = {
    "rand": {"dist": "uniform", "min": 0, "max": 1},
    "rand_like": {"dist": "uniform", "min": 0, "max": 1},
    "randn": {"dist": "normal", "mean": 0, "std": 1},
    "randn_like": {"dist": "normal", "mean": 0, "std": 1},
    "zeros": {"dist": "constant", "value": 0},
    "ones": {"dist": "constant", "value": 1},
}


def _factory_distribution(call):
    """The distribution of a torch.<factory>(...) call, or None when it is anything else."""
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute) \
            or not isinstance(call.func.value, ast.Name) or call.func.value.id != "torch":
        return None
    name = call.func.attr
    if name in _FACTORY_DISTRIBUTIONS:
        return dict(_FACTORY_DISTRIBUTIONS[name])
    if name == "randint":
        # torch.randint(high, size) or torch.randint(low, high, size): integers in [low, high).
        try:
            bounds = [ast.literal_eval(a) for a in call.args[:-1]]
        except ValueError:
            return None
        if len(bounds) == 1:
            bounds = [0] + bounds
        if len(bounds) == 2 and all(isinstance(b, int) for b in bounds):
            return {"dist": "uniform", "min": bounds[0], "max": bounds[1] - 1}
    return None


def get_inputs_elements(source):
    """Per element of get_inputs()'s returned list, the expression that makes it (a returned name
    followed to its single assignment in get_inputs), or None when get_inputs returns no literal list."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == "get_inputs":
            assigned = {}
            returned = None
            for stmt in ast.walk(node):
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                    name = stmt.targets[0].id
                    assigned[name] = None if name in assigned else stmt.value  # reassigned: unknown
                elif isinstance(stmt, ast.Return):
                    returned = stmt.value
            if not isinstance(returned, (ast.List, ast.Tuple)):
                return None
            return [assigned.get(e.id) if isinstance(e, ast.Name) else e for e in returned.elts]
    return None


def infer_input_distributions(source):
    """Per element of get_inputs()'s returned list: the distribution its factory call gives, or None.

    Anything but a torch factory call (arithmetic on the tensor, a helper call) gives None: the caller
    then uses the observed value range.
    """
    elements = get_inputs_elements(source)
    return None if elements is None else [_factory_distribution(e) for e in elements]


_SHAPE_FACTORIES = ("rand", "randn", "zeros", "ones", "empty")


def factory_dimension_names(call):
    """The size global naming each dimension of a torch factory call (`torch.rand(batch_size, dim)`,
    `torch.randint(0, 10, (batch_size,))`), None for a dimension written otherwise; None when the
    dimensions cannot be told apart (`*shape`)."""
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute) or \
            not isinstance(call.func.value, ast.Name) or call.func.value.id != "torch":
        return None
    if call.func.attr in _SHAPE_FACTORIES:
        dims = call.args
        if len(dims) == 1 and isinstance(dims[0], (ast.Tuple, ast.List)):
            dims = dims[0].elts
    elif call.func.attr == "randint" and call.args and isinstance(call.args[-1], (ast.Tuple, ast.List)):
        dims = call.args[-1].elts
    else:
        return None
    if any(isinstance(d, ast.Starred) for d in dims):
        return None
    return [d.id if isinstance(d, ast.Name) else None for d in dims]


def input_dimension_names(source):
    """Per element of get_inputs()'s returned list: factory_dimension_names of what makes it."""
    elements = get_inputs_elements(source)
    return None if elements is None else [factory_dimension_names(e) for e in elements]


def distribution_from_extra(name, spec):
    """A DISTRIBUTIONS entry ({"normal": [m, s]}, {"uniform": [a, b]}, {"constant": v}) in task.json form."""
    if not isinstance(spec, dict) or len(spec) != 1:
        raise TaskImportError(f"DISTRIBUTIONS[{name!r}] must be one of {{'normal': [mean, std]}}, "
                              f"{{'uniform': [min, max]}}, {{'constant': value}}")
    (kind, value), = spec.items()
    number = (int, float)
    if kind in ("normal", "uniform") and isinstance(value, (list, tuple)) and len(value) == 2 \
            and all(isinstance(v, number) and not isinstance(v, bool) for v in value):
        keys = ("mean", "std") if kind == "normal" else ("min", "max")
        if kind == "uniform" and value[0] > value[1]:
            raise TaskImportError(f"DISTRIBUTIONS[{name!r}]: uniform min {value[0]} > max {value[1]}")
        if kind == "normal" and value[1] < 0:
            raise TaskImportError(f"DISTRIBUTIONS[{name!r}]: normal std {value[1]} < 0")
        return {"dist": kind, keys[0]: value[0], keys[1]: value[1]}
    if kind == "constant" and isinstance(value, number) and not isinstance(value, bool):
        return {"dist": "constant", "value": value}
    raise TaskImportError(f"DISTRIBUTIONS[{name!r}]: cannot read {spec!r}")


def round_bound(value, dtype):
    """A value range bound for task.json: integers exact, floats to 6 significant digits."""
    if dtype not in FLOAT_DTYPES:
        return int(value)
    rounded = float(f"{value:.6g}")
    return int(rounded) if rounded == int(rounded) and abs(rounded) < 1e15 else rounded


def observed_distribution(low, high, dtype):
    """Uniform over an observed [low, high], or constant when all values are equal."""
    low, high = round_bound(low, dtype), round_bound(high, dtype)
    if low == high:
        return {"dist": "constant", "value": low}
    return {"dist": "uniform", "min": low, "max": high}


def tolerance_entries(tolerance, output_dtypes):
    """task.json "tolerances" from TOLERANCE: {"atol", "rtol"} for every float output dtype, or per dtype."""
    if tolerance is None:
        return None
    if not isinstance(tolerance, dict) or not tolerance:
        raise TaskImportError("TOLERANCE must be {'atol': x, 'rtol': y} or {'f32': {'atol': x, 'rtol': y}, ...}")
    if set(tolerance) <= {"atol", "rtol"}:
        per_dtype = {d: tolerance for d in dict.fromkeys(output_dtypes) if d in FLOAT_DTYPES}
    else:
        per_dtype = tolerance
    result = {}
    for dtype, tol in per_dtype.items():
        if dtype not in C_TYPES or not isinstance(tol, dict) or not set(tol) <= {"atol", "rtol"} \
                or not all(isinstance(v, (int, float)) and v >= 0 for v in tol.values()):
            raise TaskImportError(f"TOLERANCE: bad entry {dtype!r}: {tol!r}")
        result[dtype] = {k: tol[k] for k in ("atol", "rtol") if k in tol}
    return result


# ---------------------------------------------------------------------------------------------
# Size expressions
# ---------------------------------------------------------------------------------------------

def infer_dim_expr(values, configs):
    """A size expression over the config params that gives values[i] in configs[i], for every i.

    Tried in order: one parameter; a product of two; a literal when the value is the same in
    every config; a parameter times, divided by, plus or minus a literal. The first match wins,
    parameters in config order. Raises TaskImportError when nothing fits.
    """
    params = list(configs[0])
    def fits(f):
        return all(f(c) == v for c, v in zip(configs, values))
    for p in params:
        if fits(lambda c: c[p]):
            return p
    for i, p in enumerate(params):
        for q in params[i:]:
            if fits(lambda c: c[p] * c[q]):
                return f"{p} * {q}"
    if len(set(values)) == 1:
        return str(values[0])
    for p in params:
        p0, v0 = configs[0][p], values[0]
        if v0 % p0 == 0 and v0 // p0 > 1 and fits(lambda c: c[p] * (v0 // p0)):
            return f"{p} * {v0 // p0}"
        if p0 % v0 == 0 and p0 // v0 > 1 and fits(lambda c: c[p] % (p0 // v0) == 0 and c[p] // (p0 // v0)):
            return f"{p} / {p0 // v0}"
        if v0 > p0 and fits(lambda c: c[p] + (v0 - p0)):
            return f"{p} + {v0 - p0}"
        if v0 < p0 and fits(lambda c: c[p] - (p0 - v0)):
            return f"{p} - {p0 - v0}"
    shown = ", ".join(f"{name}: {v} with {c}" for (name, c), v in
                      zip(((f"config {i}", c) for i, c in enumerate(configs)), values))
    raise TaskImportError(f"cannot express a dimension as a size expression of the config params ({shown}); "
                          "add the size as a module global and set it in every CONFIGS entry")


def shape_exprs(shapes, configs, preferred=None):
    """Per dimension of a tensor seen with shapes[i] in configs[i]: its size expression. preferred:
    per dimension, the size global the source names it by (a factory call's argument), taken when it
    gives that dimension in every configuration; otherwise infer_dim_expr decides."""
    ranks = {len(s) for s in shapes}
    if len(ranks) != 1:
        raise TaskImportError(f"rank differs between configs: {shapes}")
    rank = ranks.pop()
    if preferred is None or len(preferred) != rank:
        preferred = [None] * rank
    exprs = []
    for d in range(rank):
        values = [s[d] for s in shapes]
        name = preferred[d]
        if name is not None and all(name in c and c[name] == v for c, v in zip(configs, values)):
            exprs.append(name)
        else:
            exprs.append(infer_dim_expr(values, configs))
    return exprs


def count_expr(dims):
    """Element count of a tensor with these dimension expressions ("1" for a 0-d tensor)."""
    factors = [d if re.fullmatch(r"\w+( \* \w+)*", d) else f"({d})" for d in dims if d != "1"]
    return " * ".join(factors) or "1"


def evaluate_count(expr, params):
    """Value of a count expression for one config (integer division, as the evaluator does)."""
    tree = ast.parse(expr, mode="eval")
    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.Name):
            return params[n.id]
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                   ast.Div: lambda: a // b, ast.Mod: lambda: a % b}
            return ops[type(n.op)]()
        raise ValueError(f"not a size expression: {expr}")
    return ev(tree)


# ---------------------------------------------------------------------------------------------
# task.json from what was observed (no torch)
# ---------------------------------------------------------------------------------------------

def _check_consistent(kind, per_config):
    """The names and dtypes of inputs/weights/outputs must not change between configs."""
    first = [(t["name"], t["dtype"], t.get("kind", "tensor")) for t in per_config[0]]
    for entries in per_config[1:]:
        if [(t["name"], t["dtype"], t.get("kind", "tensor")) for t in entries] != first:
            raise TaskImportError(f"the {kind} differ between configs: {first} vs "
                                  f"{[(t['name'], t['dtype']) for t in entries]}")


def argument_distribution(name, dtype, seen, declared, inferred):
    """How the evaluator draws a tensor input or parameter: DISTRIBUTIONS first, then the factory call
    get_inputs() makes it with (inferred; forward inputs only), else uniform over the values seen."""
    if name in declared:
        return distribution_from_extra(name, declared[name])
    if inferred is not None:
        return inferred
    return observed_distribution(*seen, dtype)


def build_task(name, description, observations, extras):
    """task.json (a dict in file order) from per-config observations.

    observations: [{"name": config name, "params": {p: int},
                    "inputs": [{"name", "kind": "tensor", "dtype", "shape", "min", "max"} or
                               {"name", "kind": "scalar", "dtype", "value"}],   # forward inputs in order
                    "weights": [{"name", "dtype", "shape", "min", "max"}],      # parameters, then buffers
                    "outputs": [{"name", "dtype", "shape"}]}]
    extras: {"TOLERANCE", "DISTRIBUTIONS", "input_distributions" (per forward input: dict or None)}.
    """
    if not is_identifier(name) or name in RESERVED_NAMES:
        raise TaskImportError(f"task name {name!r} must be a C identifier (the directory name is the entry point)")
    if extras.get("sizes_from_globals"):
        first = observations[0]
        taken = {t["name"] for t in first["inputs"] + first["weights"] + first["outputs"]}
        for o in observations:
            o["params"], _ = size_globals_free_of(o["params"], taken)
    configs = [o["params"] for o in observations]
    for kind in ("inputs", "weights", "outputs"):
        _check_consistent(kind, [o[kind] for o in observations])
    first = observations[0]
    tensors_in = [t for t in first["inputs"] if t.get("kind", "tensor") == "tensor"]
    scalars_in = [t for t in first["inputs"] if t.get("kind") == "scalar"]
    if not first["outputs"]:
        raise TaskImportError("forward returns no tensor")

    names = [t["name"] for t in tensors_in + first["weights"] + first["outputs"]] + list(configs[0]) + \
        [s["name"] for s in scalars_in]
    for n in names:
        if not is_identifier(n) or n in RESERVED_NAMES:
            raise TaskImportError(f"argument name {n!r} is not usable in C; rename it")
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise TaskImportError(f"argument names used twice: {duplicates} (forward inputs, parameters, "
                              "outputs and size globals share one namespace)")

    distributions = extras.get("DISTRIBUTIONS") or {}
    unknown = sorted(set(distributions) - {t["name"] for t in tensors_in + first["weights"]})
    if unknown:
        raise TaskImportError(f"DISTRIBUTIONS names {unknown}, which are not tensor inputs or parameters")
    inferred = extras.get("input_distributions") or []
    forward_names = [t["name"] for t in first["inputs"]]

    def seen_range(kind, index):
        entries = [o[kind][index] for o in observations]
        return min(e["min"] for e in entries), max(e["max"] for e in entries)

    args, inputs, shapes = [], {}, {}

    named_dims = extras.get("input_dim_names") or []

    def pointer(kind, index, access):
        t = first[kind][index]
        preferred = None
        if kind == "inputs":
            position = forward_names.index(t["name"])
            preferred = named_dims[position] if position < len(named_dims) else None
        try:
            dims = shape_exprs([o[kind][index]["shape"] for o in observations], configs, preferred)
        except TaskImportError as e:
            raise TaskImportError(f"{t['name']}: {e}")
        for o, c in zip(observations, configs):
            want = math.prod(o[kind][index]["shape"])
            if evaluate_count(count_expr(dims), c) != want:
                raise TaskImportError(f"{t['name']}: count {count_expr(dims)} != {want} in config {o['name']}")
        shapes[t["name"]] = dims
        args.append({"name": t["name"], "type": "pointer", "dtype": t["dtype"], "access": access,
                     "count": count_expr(dims)})

    for t in tensors_in:
        i = first["inputs"].index(t)
        pointer("inputs", i, "in")
        position = forward_names.index(t["name"])
        inputs[t["name"]] = argument_distribution(t["name"], t["dtype"], seen_range("inputs", i), distributions,
                                                  inferred[position] if position < len(inferred) else None)
    for i, t in enumerate(first["weights"]):
        pointer("weights", i, "in")
        inputs[t["name"]] = argument_distribution(t["name"], t["dtype"], seen_range("weights", i), distributions, None)
    for i, t in enumerate(first["outputs"]):
        pointer("outputs", i, "out")
    for p in configs[0]:
        wide = any(abs(c[p]) > INT32_MAX for c in configs)
        args.append({"name": p, "type": "scalar", "dtype": "i64" if wide else "i32"})
    varying_scalars = []
    for s in scalars_in:
        values = [next(x["value"] for x in o["inputs"] if x["name"] == s["name"]) for o in observations]
        arg = {"name": s["name"], "type": "scalar", "dtype": s["dtype"]}
        if len(set(values)) == 1:
            arg["value"] = values[0]
        else:
            varying_scalars.append(s["name"])
        args.append(arg)

    task_configs = []
    for o in observations:
        entry = {"name": o["name"], **o["params"]}
        for s in varying_scalars:
            entry[s] = next(x["value"] for x in o["inputs"] if x["name"] == s)
        task_configs.append(entry)

    task = {"name": name, "kind": "pytorch-to-cuda"}
    if description:
        task["description"] = description
    task["entry"] = name
    task["args"] = args
    task["configs"] = task_configs
    task["inputs"] = inputs
    tolerances = tolerance_entries(extras.get("TOLERANCE"), [t["dtype"] for t in first["outputs"]])
    if tolerances:
        task["tolerances"] = tolerances
    task["pytorch"] = {
        "module": "model.py",
        "exported": "exported/{config}.pt",
        "forward_args": [t["name"] for t in tensors_in + first["weights"]],
        "outputs": [t["name"] for t in first["outputs"]],
        "shapes": shapes,
    }
    return task


def format_task_json(task):
    """task.json text in the style of data/tasks: one argument, config or input per line."""
    def compact(v):
        return json.dumps(v, separators=(", ", ": "))
    lines = ["{"]
    items = list(task.items())
    for k, (key, value) in enumerate(items):
        comma = "," if k + 1 < len(items) else ""
        if isinstance(value, list) and value and isinstance(value[0], dict):
            lines.append(f"  {json.dumps(key)}: [")
            lines += [f"    {compact(v)}{',' if i + 1 < len(value) else ''}" for i, v in enumerate(value)]
            lines.append(f"  ]{comma}")
        elif isinstance(value, dict) and key in ("inputs", "pytorch"):
            lines.append(f"  {json.dumps(key)}: {{")
            sub = list(value.items())
            lines += [f"    {json.dumps(a)}: {compact(b)}{',' if i + 1 < len(sub) else ''}"
                      for i, (a, b) in enumerate(sub)]
            lines.append(f"  }}{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {compact(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def c_signature(task):
    """The entry point an implementation defines, as docs/task-format.md derives it from args."""
    params = []
    for a in task["args"]:
        ctype = C_TYPES[a["dtype"]]
        if a["type"] == "pointer":
            params.append(f"{'const ' if a['access'] == 'in' else ''}{ctype} *{a['name']}")
        else:
            params.append(f"{ctype} {a['name']}")
    params.append("cudaStream_t stream")
    return f"void {task['entry']}({', '.join(params)})"


def normalize_signature(text):
    """A signature with whitespace removed, so `float* x` and `float *x` compare equal."""
    return re.sub(r"\s+", "", text)


def signature_comment(cu_source):
    """The `// entry: void name(...)` comment of an implementation, or None."""
    m = re.search(r"^//\s*entry:\s*(void\s+\w+\s*\([^)]*\))", cu_source, re.MULTILINE)
    return m.group(1) if m else None


def model_description(source):
    """The Model class docstring, else the module docstring, on one line."""
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Model" and ast.get_docstring(node):
            return " ".join(ast.get_docstring(node).split())
    doc = ast.get_docstring(tree)
    return " ".join(doc.split()) if doc else ""


# ---------------------------------------------------------------------------------------------
# PyTorch side
# ---------------------------------------------------------------------------------------------

def torch_dtype(t):
    name = str(t.dtype)
    if name not in TORCH_DTYPES:
        raise TaskImportError(f"tensor dtype {name} has no task dtype (supported: {', '.join(TORCH_DTYPES)})")
    return TORCH_DTYPES[name]


def tensor_record(torch, name, t):
    record = {"name": name, "kind": "tensor", "dtype": torch_dtype(t), "shape": list(t.shape)}
    if t.numel():
        # min/max of the tensor itself (a float64 copy of a 6 GB input would double the memory).
        values = t.detach().to(torch.uint8) if t.dtype == torch.bool else t.detach()
        record["min"], record["max"] = values.min().item(), values.max().item()
    else:
        raise TaskImportError(f"{name} has no elements; every argument needs at least one")
    return record


def load_model_module(path, config_params):
    """model.py executed fresh, its size globals overridden by one config."""
    spec = importlib.util.spec_from_file_location(f"cudaperf_pytorch_task_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for attr in ("Model", "get_inputs", "get_init_inputs"):
        if not hasattr(module, attr):
            raise TaskImportError(f"model.py defines no {attr}")
    for p, v in config_params.items():
        setattr(module, p, v)
    return module


def output_list(torch, out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)) and out and all(isinstance(t, torch.Tensor) for t in out):
        return list(out)
    raise TaskImportError(f"forward must return a tensor or a tuple of tensors, not {type(out).__name__}")


@contextlib.contextmanager
def substituted_state(model, state):
    """model's parameters and buffers replaced by the tensors in state ({dotted name: tensor}) for a while."""
    saved = []
    try:
        for dotted, tensor in state.items():
            owner_name, _, leaf = dotted.rpartition(".")
            owner = model.get_submodule(owner_name) if owner_name else model
            table = owner._parameters if leaf in owner._parameters else owner._buffers
            saved.append((table, leaf, table[leaf]))
            table[leaf] = tensor
        yield
    finally:
        for table, leaf, original in reversed(saved):
            table[leaf] = original


def device_context(torch, device, enabled):
    """The device as the default for new tensors (PyTorch >= 2.0), or nothing."""
    d = torch.device(device)
    return d if enabled and hasattr(d, "__enter__") else contextlib.nullcontext()


def draw(torch, dist, like, generator):
    """A tensor shaped and typed like `like` from a task.json distribution (the fresh-input check)."""
    shape, dtype, device = like.shape, like.dtype, like.device
    if dist["dist"] == "constant":
        return torch.full(shape, dist["value"], dtype=dtype, device=device)
    if dtype.is_floating_point:
        if dist["dist"] == "normal":
            v = torch.randn(shape, generator=generator, device=device) * dist["std"] + dist["mean"]
        else:
            v = torch.rand(shape, generator=generator, device=device) * (dist["max"] - dist["min"]) + dist["min"]
        return v.to(dtype)
    low, high = (int(dist["min"]), int(dist["max"])) if dist["dist"] == "uniform" else (0, 1)
    return torch.randint(low, high + 1, shape, generator=generator, device=device).to(dtype)


def difference(torch, g, e, chunk=1 << 26):
    """(max |g - e| over the elements finite in both, max |e| there, or a mismatch of non-finite
    elements as text), in chunks so that a 6 GB output needs no 12 GB float64 copy."""
    g, e = g.reshape(-1), e.reshape(-1)
    diff = scale = 0.0
    for i in range(0, e.numel(), chunk):
        gi, ei = g[i:i + chunk].double(), e[i:i + chunk].double()
        g_bad, e_bad = ~torch.isfinite(gi), ~torch.isfinite(ei)
        g_inf, e_inf = torch.where(torch.isinf(gi), gi, 0), torch.where(torch.isinf(ei), ei, 0)  # +-inf kept
        if not torch.equal(g_bad, e_bad) or not torch.equal(torch.isnan(gi), torch.isnan(ei)) or \
                not torch.equal(g_inf, e_inf):
            return None, None, (f"NaN or infinity in {int(g_bad.sum())} elements where eager has them in "
                                f"{int(e_bad.sum())} (elements {i}..{i + ei.numel() - 1})")
        ok = ~e_bad
        if ok.any():
            diff = max(diff, torch.where(ok, (gi - ei).abs(), 0).max().item())
            scale = max(scale, torch.where(ok, ei.abs(), 0).max().item())
    return diff, scale, None


def compare_outputs(torch, got, expected, names, what):
    """None, or why `got` is not `expected` up to the trace tolerance (non-finite values where eager
    has them, shapes, dtypes; integer outputs exactly)."""
    for name, g, e in zip(names, got, expected):
        if g.shape != e.shape or g.dtype != e.dtype:
            return f"output {name} is {g.dtype}{list(g.shape)} instead of {e.dtype}{list(e.shape)}"
        if not e.is_floating_point():
            if not torch.equal(g, e):
                return f"output {name} differs in {int((g != e).sum())} of {e.numel()} elements"
            continue
        diff, scale, mismatch = difference(torch, g, e)
        if mismatch:
            return f"output {name}: {mismatch}"
        if not within_trace_tolerance(diff, scale):
            return (f"output {name} differs (max |diff| {diff:.3g}; allowed {TRACE_ATOL:g} + {TRACE_RTOL:g} x "
                    f"max |output| {scale:.3g})")
    return None


class ProblemRun:
    """One config of one problem on the GPU: model, inputs, outputs and the exported trace."""

    def __init__(self, torch, path, config_name, params, device, mode="eval", on_device=False):
        self.torch = torch
        self.device = device
        self.mode = mode
        self.config_name = config_name
        module = load_model_module(path, params)
        parameters = [(p.name, p.default is not inspect.Parameter.empty, p.kind == p.VAR_POSITIONAL)
                      for p in list(inspect.signature(module.Model.forward).parameters.values())[1:]]
        torch.manual_seed(0)
        with device_context(torch, device, on_device):
            model = module.Model(*module.get_init_inputs())
            raw_inputs = list(module.get_inputs())
        self.model = model.to(device).train(mode == "train")
        forward_names = forward_inputs_used(parameters, len(raw_inputs))
        self.inputs = []  # (name, tensor on the GPU or python scalar)
        for name, v in zip(forward_names, raw_inputs):
            if isinstance(v, torch.Tensor):
                self.inputs.append((name, v.to(device)))
            elif isinstance(v, (bool, int, float)):
                self.inputs.append((name, v))
            else:
                raise TaskImportError(f"get_inputs() element {name!r} is a {type(v).__name__}; "
                                      "only tensors and numbers are supported")
        self.params = [(n.replace(".", "_"), n, p) for n, p in self.model.named_parameters()]
        self.buffers = [(n.replace(".", "_"), n, b) for n, b in self.model.named_buffers()]
        call = [v for _, v in self.inputs]
        with torch.no_grad():
            self.outputs = output_list(torch, self.model(*call))
            again = output_list(torch, self.model(*call))
        self.output_names = ["out"] if len(self.outputs) == 1 else [f"out{i}" for i in range(len(self.outputs))]
        why = compare_outputs(torch, again, self.outputs, self.output_names, "a second call")
        if why:
            hint = random_calls(open(path).read())
            raise TaskImportError("forward is not deterministic: two calls with the same inputs differ (" + why + ")" +
                                  (f"; the model calls {', '.join(hint)}" if hint else "") +
                                  "; the evaluator needs a reference that gives one answer per input")
        del again

    def observation(self, params):
        torch = self.torch
        inputs = []
        for name, v in self.inputs:
            if isinstance(v, torch.Tensor):
                inputs.append(tensor_record(torch, name, v))
            else:
                dtype = "f32" if isinstance(v, float) else ("i64" if abs(int(v)) > INT32_MAX else "i32")
                inputs.append({"name": name, "kind": "scalar", "dtype": dtype,
                               "value": float(v) if isinstance(v, float) else int(v)})
        weights = [tensor_record(torch, n, t) for n, _, t in self.params + self.buffers]
        outputs = [{"name": n, "dtype": torch_dtype(t), "shape": list(t.shape)}
                   for n, t in zip(self.output_names, self.outputs)]
        return {"name": self.config_name, "params": params, "inputs": inputs, "weights": weights,
                "outputs": outputs}

    def exported_wrapper(self):
        """A module taking (tensor inputs..., parameters..., buffers...) that runs the model on them.

        torch.func.functional_call refuses to run under torch.jit.trace, so the wrapper does what it
        does by hand: the model's parameter and buffer tables hold the passed tensors for the call,
        and the trace records them as inputs rather than constants.
        """
        torch = self.torch
        run = self
        state_names = [orig for _, orig, _ in run.params + run.buffers]
        layout = [(isinstance(v, torch.Tensor), v) for _, v in run.inputs]

        class Exported(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.model = run.model

            def forward(self, *args):
                tensors = list(args[:sum(is_t for is_t, _ in layout)])
                state = dict(zip(state_names, args[len(tensors):]))
                # Non-tensor forward inputs are constants of the trace.
                call = [tensors.pop(0) if is_t else v for is_t, v in layout]
                with substituted_state(self.model, state):
                    return self.model(*call)

        # train()/eval() reach the model too: the trace records the problem's mode.
        return Exported().train(self.mode == "train")

    def example_args(self):
        torch = self.torch
        return tuple(v for _, v in self.inputs if isinstance(v, torch.Tensor)) + \
            tuple(t for _, _, t in self.params + self.buffers)

    def arg_names(self):
        torch = self.torch
        return [n for n, v in self.inputs if isinstance(v, torch.Tensor)] + [n for n, _, _ in self.params + self.buffers]

    def export(self, path, distributions=None):
        """Trace, save, reload and check the exported module against eager PyTorch.

        distributions: {argument: task.json distribution} to draw the fresh inputs of the second
        check from, as the evaluator will; arguments without one get standard normal values.
        """
        torch = self.torch
        args = tuple(a.detach() for a in self.example_args())
        with torch.no_grad():
            traced = torch.jit.trace(self.exported_wrapper(), args, check_trace=False)
        print(f"  {self.config_name}: traced", flush=True)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        traced.save(path)
        del traced
        loaded = torch.jit.load(path, map_location=self.device)
        self._compare(loaded, args, self.outputs, "the example inputs")
        # New values everywhere: catches parameters baked into the trace as constants and
        # control flow that depended on the example values.
        gen = torch.Generator(device=self.device).manual_seed(1)
        distributions = distributions or {}
        fresh = []
        for name, a in zip(self.arg_names(), args):
            if name in distributions:
                fresh.append(draw(torch, distributions[name], a, gen))
            elif a.is_floating_point():
                fresh.append(torch.randn(a.shape, device=self.device, generator=gen).to(a.dtype))
            else:
                fresh.append(a.clone())
        fresh = tuple(fresh)
        with torch.no_grad():
            eager = output_list(torch, self.functional_forward(fresh))
        self._compare(loaded, fresh, eager, "fresh random inputs and parameters")

    def functional_forward(self, args):
        """Eager outputs for exported-style args, through torch.func.functional_call where it exists."""
        torch = self.torch
        if not hasattr(torch, "func"):  # before PyTorch 2.0: the wrapper itself
            return self.exported_wrapper()(*args)
        tensors = list(args[:sum(isinstance(v, torch.Tensor) for _, v in self.inputs)])
        state = dict(zip([orig for _, orig, _ in self.params + self.buffers], args[len(tensors):]))
        call = [tensors.pop(0) if isinstance(v, torch.Tensor) else v for _, v in self.inputs]
        return torch.func.functional_call(self.model, state, tuple(call))

    def _compare(self, loaded, args, expected, what):
        torch = self.torch
        # As cudaperf-torch-reference runs it: the interpreter without its optimising executor (whose
        # profiling and fusion passes on a second call grow with the graph), so the check tests what
        # the evaluator will run.
        with torch.no_grad(), torch.jit.optimized_execution(False):
            got = output_list(torch, loaded(*args))
        why = compare_outputs(torch, got, expected, self.output_names, what)
        if why:
            raise TaskImportError(f"exported/{self.config_name}.pt does not reproduce eager PyTorch on {what}: {why}")

    def reference_ms(self):
        """Median time of one eager forward (CUDA events), to size the configs: at least 3 calls after a
        warm-up, more while they take under 0.2 s in all (at most 10)."""
        torch = self.torch
        call = [v for _, v in self.inputs]
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        with torch.no_grad():
            self.model(*call)
            while len(times) < 3 or (len(times) < 10 and sum(times) < 200):
                start.record()
                self.model(*call)
                stop.record()
                stop.synchronize()
                times.append(start.elapsed_time(stop))
        return sorted(times)[len(times) // 2]


def build_extras(source):
    """What build_task takes from model.py's source besides the observations: the extras, each forward
    input's distribution, and whether the sizes are the module's int globals. Without CONFIGS there is
    one configuration, where equal sizes cannot be told apart by value (KernelBench's depth 16 and
    out_channels 16): the forward inputs' dimensions then take the names their factory calls give.
    With CONFIGS the first size that fits every configuration names a dimension, as before (the
    dataset generator predicts task.json by that rule)."""
    extras = source_extras(source)
    single = extras["CONFIGS"] is None
    return {"TOLERANCE": extras["TOLERANCE"], "DISTRIBUTIONS": extras["DISTRIBUTIONS"],
            "input_distributions": infer_input_distributions(source),
            "input_dim_names": input_dimension_names(source) if single else None,
            "sizes_from_globals": single}


def import_problem(torch, model_path, task_dir, mode, device, timing=True):
    """Generate one problem's task (and exported/ unless --check or --signature). Returns the task."""
    name = os.path.basename(os.path.abspath(task_dir))
    with open(model_path) as f:
        source = f.read()
    problems = check_model_source(source)
    if problems:
        raise TaskImportError("; ".join(problems))
    extras = source_extras(source)
    configs = problem_configs(extras["CONFIGS"], module_size_globals(source))
    task_extras = build_extras(source)
    run_mode, on_device = model_mode(extras), inputs_on_device(extras)
    exporting = mode in ("write", "export-only")
    observations = []
    for config_name, params in configs:
        run = ProblemRun(torch, model_path, config_name, params, device, run_mode, on_device)
        observations.append(run.observation(params))
        if exporting:
            # The fresh inputs of the export's check are drawn as this configuration's task would draw them.
            seen = build_task(name, "", [dict(observations[-1], params=dict(params))], task_extras)
            run.export(os.path.join(task_dir, "exported", f"{config_name}.pt"), seen["inputs"])
            eager = f"  eager {run.reference_ms():.4f} ms" if device == "cuda" and timing else ""
            print(f"  {config_name}: {params}{eager}", flush=True)
        del run
        if device == "cuda":
            torch.cuda.empty_cache()
    return build_task(name, model_description(source), observations, task_extras)


def import_torch(device, why_cuda):
    """PyTorch set up as the evaluator's reference runs it (TF32 off: fp32 matmuls and convolutions in
    full precision), or None after saying why it cannot be used (no PyTorch, or no GPU for device cuda)."""
    try:
        import torch
    except ImportError:
        print("error: PyTorch is not importable by this python3 (on the GPU host: "
              "export PATH=/opt/torch/.venv/bin:$PATH)", file=sys.stderr)
        return None
    if device == "cuda" and not torch.cuda.is_available():
        print(f"error: no CUDA device visible to PyTorch; {why_cuda}", file=sys.stderr)
        return None
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return torch


def import_one(torch, path, args, chosen):
    """Imports one problem; returns None when done, else the error message. Prints its progress."""
    model_path, task_dir = resolve(path)
    if args.out:
        task_dir = args.out
    label = os.path.basename(os.path.abspath(task_dir))
    try:
        if not os.path.isfile(model_path):
            raise TaskImportError(f"{model_path}: no such file")
        if args.skip_done and chosen == "write" and import_done(model_path, task_dir):
            print(f"== {label}: already imported", flush=True)
            return None
        if chosen != "signature":
            print(f"== {label}", flush=True)
        task = import_problem(torch, model_path, task_dir, chosen, args.device, timing=not args.no_timing)
        text = format_task_json(task)
        task_json = os.path.join(task_dir, "task.json")
        if chosen == "signature":
            print(f"{label}\t{c_signature(task)}", flush=True)
        elif chosen == "check":
            old = open(task_json).read() if os.path.exists(task_json) else ""
            if old != text:
                sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                           task_json, "generated"))
                raise TaskImportError("task.json is not what the import script generates")
            print("  task.json up to date")
        elif chosen == "write":
            if args.verify_task_json and os.path.exists(task_json) and \
                    json.loads(open(task_json).read()) != json.loads(text):
                # The generator predicted task.json (docs/dataset.md): a difference is its bug.
                raise TaskImportError("the generated task.json differs from the one present (kept): "
                                      f"present {json.dumps(json.load(open(task_json)))} generated {json.dumps(task)}")
            os.makedirs(task_dir, exist_ok=True)
            with open(task_json, "w") as f:
                f.write(text)
            mark_done(model_path, task_dir)
            print(f"  wrote {task_json}\n  entry: {c_signature(task)}")
        if chosen == "write" and os.path.exists(os.path.join(task_dir, "impls", "baseline.cu")):
            comment = signature_comment(open(os.path.join(task_dir, "impls", "baseline.cu")).read())
            if comment is None or normalize_signature(comment) != normalize_signature(c_signature(task)):
                print(f"  warning: impls/baseline.cu says `{comment}`", flush=True)
        return None
    except TaskImportError as e:
        message = str(e)
    except Exception as e:  # a model that raises: report it and go on with the others
        message = f"{type(e).__name__}: {e}"
    print(f"error: {label}: {message}", file=sys.stderr, flush=True)
    return message


DONE_MARKER = os.path.join("exported", ".imported")


def import_done(model_path, task_dir):
    """True when exported/ was written by an import of this very model.py (--skip-done)."""
    marker = os.path.join(task_dir, DONE_MARKER)
    if not os.path.exists(marker) or not os.path.exists(os.path.join(task_dir, "task.json")):
        return False
    import hashlib
    return open(marker).read().strip() == hashlib.sha256(open(model_path, "rb").read()).hexdigest()


def mark_done(model_path, task_dir):
    import hashlib
    os.makedirs(os.path.join(task_dir, "exported"), exist_ok=True)
    with open(os.path.join(task_dir, DONE_MARKER), "w") as f:
        f.write(hashlib.sha256(open(model_path, "rb").read()).hexdigest() + "\n")


def collect_models(args):
    """The problems to import: positional paths, --many DIR (every */model.py below it), --from-file."""
    paths = list(args.models)
    if args.many:
        for root, dirs, files in os.walk(args.many):
            dirs.sort()
            if "model.py" in files:
                paths.append(os.path.join(root, "model.py"))
    if args.from_file:
        paths += [line.strip() for line in open(args.from_file) if line.strip()]
    return paths


def run_in_processes(paths, argv, jobs):
    """Splits the problems over `jobs` processes of this script; returns the number that failed."""
    import subprocess
    import tempfile
    rest = [a for a in argv if a not in paths]
    cleaned, skip = [], False
    for a in rest:  # drop --many/--from-file/--jobs and their values
        if skip:
            skip = False
            continue
        if a in ("--many", "--from-file", "--jobs"):
            skip = True
            continue
        cleaned.append(a)
    procs, lists = [], []
    for k in range(jobs):
        chunk = paths[k::jobs]
        if not chunk:
            continue
        f = tempfile.NamedTemporaryFile("w", suffix=".list", delete=False)
        f.write("\n".join(chunk) + "\n")
        f.close()
        lists.append(f.name)
        procs.append(subprocess.Popen([sys.executable, os.path.abspath(__file__), *cleaned, "--from-file", f.name]))
    failed = 0
    for p in procs:
        p.wait()
        failed += p.returncode != 0
    for name in lists:
        os.unlink(name)
    return failed


def resolve(path):
    """(model.py, task dir) from either."""
    if os.path.isdir(path):
        return os.path.join(path, "model.py"), path
    return path, os.path.dirname(os.path.abspath(path))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="*", metavar="MODEL_PY", help="model.py files or task directories")
    ap.add_argument("--out", help="task directory to write (one model only; default: the model's directory)")
    ap.add_argument("--many", metavar="DIR", help="import every */model.py below DIR")
    ap.add_argument("--from-file", metavar="FILE", help="import the model.py files or task directories listed in FILE")
    ap.add_argument("--jobs", type=int, default=1, help="split the problems over N processes (default 1)")
    ap.add_argument("--skip-done", action="store_true",
                    help="skip problems already imported from the same model.py (exported/.imported)")
    ap.add_argument("--verify-task-json", action="store_true",
                    help="fail a problem whose existing task.json differs from the generated one (and keep it)")
    ap.add_argument("--no-timing", action="store_true", help="skip the eager timing of each configuration")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--export-only", action="store_true", help="regenerate exported/ only, not task.json")
    mode.add_argument("--check", action="store_true", help="exit 1 with a diff if task.json differs from what would be written")
    mode.add_argument("--signature", action="store_true", help="print each problem's C entry point; write nothing")
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"),
                    help="cpu: try the import without a GPU (task.json comes out the same; the traces are CPU traces "
                         "and the evaluator needs CUDA ones)")
    args = ap.parse_args(argv)
    paths = collect_models(args)
    if not paths:
        ap.error("no problems: give model.py files, task directories, --many DIR or --from-file FILE")
    if args.out and len(paths) != 1:
        ap.error("--out takes one model")
    chosen = "export-only" if args.export_only else "check" if args.check else \
        "signature" if args.signature else "write"
    start = time.time()
    if args.jobs > 1 and len(paths) > 1:
        failed_processes = run_in_processes(paths, argv, min(args.jobs, len(paths)))
        print(f"{len(paths)} problems in {args.jobs} processes, {time.time() - start:.1f} s "
              f"({len(paths) / max(time.time() - start, 1e-9):.1f} problems/s); "
              f"{failed_processes} processes reported failures", file=sys.stderr)
        return 1 if failed_processes else 0

    torch = import_torch(args.device, "the import runs every model on the GPU")
    if torch is None:
        return 2

    failed = []
    for path in paths:
        if import_one(torch, path, args, chosen) is not None:
            failed.append(os.path.basename(os.path.dirname(os.path.abspath(path))) if path.endswith(".py")
                          else os.path.basename(os.path.abspath(path)))
    elapsed = time.time() - start
    print(f"imported {len(paths) - len(failed)} of {len(paths)} problems in {elapsed:.1f} s "
          f"({len(paths) / max(elapsed, 1e-9):.1f} problems/s)", file=sys.stderr)
    if failed:
        print(f"{len(failed)} of {len(paths)} failed: {' '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
