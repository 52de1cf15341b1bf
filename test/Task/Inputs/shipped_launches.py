"""Hand-derived launches of every shipped task implementation (data/tasks/*/impls,
data/tasks/pytorch/*/impls), at every configuration of its task: each implementation's launch
formula, written here from reading its entry point, applied to the configuration's sizes. This is
the expectation cudaperf-analyze --task is checked against until a GPU measurement of the same
launches is stored (scripts/gpu/task-launches.sh); it shares no code with the analyzer.

derive(root) returns a cudaperf-launches/1 document (scripts/check-task-launches.py)."""
import json
import os


def cdiv(a, b):
    return (a + b - 1) // b


def one(kernel, grid, block, smem=0):
    grid = list(grid) + [1] * (3 - len(grid))
    block = list(block) + [1] * (3 - len(block))
    return {"kernel_name": kernel, "grid": grid, "block": block, "dynamic_smem_bytes": smem}


def elementwise(kernel):
    # (unsigned)((n + 255) / 256) blocks of 256 for n = batch_size * dim
    return lambda c: [one(kernel, [cdiv(c["batch_size"] * c["dim"], 256)], [256])]


def rows(kernel, count):
    return lambda c: [one(kernel, [count(c)], [256])]  # one block of kThreads = 256 per row


def saxpy_vectorized(c):
    n = c["n"]
    out = []
    if n // 4 > 0:
        out.append(one("saxpyFloat4", [min(cdiv(n // 4, 256), 132 * 8)], [256]))
    if n % 4:
        out.append(one("saxpyTail", [1], [4]))
    return out


def vector_add_vectorized(c):
    n = c["n"]
    out = []
    if n // 4 > 0:  # smCount from cudaDeviceGetAttribute: 132 on the H200
        out.append(one("vectorAddFloat4", [min(cdiv(n // 4, 256), 132 * 8)], [256]))
    if n % 4:
        out.append(one("vectorAddTail", [1], [4]))
    return out


def pool_total(c):
    return c["batch_size"] * c["channels"] * (c["height"] // 2) * (c["width"] // 2)


FORMULAS = {
    "histogram/baseline": lambda c: [one("histogramGlobal", [cdiv(c["n"], 256)], [256])],
    "histogram/shared_private": lambda c: [
        one("histogramShared", [min(max((c["n"] // 16 + 255) // 256, 1), 132 * 4)], [256])],
    "matmul/baseline": lambda c: [one("matmulNaive", [cdiv(c["N"], 16), cdiv(c["M"], 16)], [16, 16])],
    "matmul/tiled": lambda c: [one("matmulTiled", [cdiv(c["N"], 64), cdiv(c["M"], 64)], [256])],
    "reduce_sum/baseline": lambda c: [one("reduceAtomic", [cdiv(c["n"], 256)], [256])],
    "reduce_sum/block_reduce": lambda c: [one("reduceBlocks", [min(cdiv(c["n"], 512), 132 * 4)], [512])],
    "saxpy/baseline": lambda c: [one("saxpyKernel", [cdiv(c["n"], 256)], [256])],
    "saxpy/vectorized": saxpy_vectorized,
    "softmax/baseline": lambda c: [one("softmaxRowPerThread", [cdiv(c["rows"], 128)], [128])],
    "softmax/block_per_row": lambda c: [one("softmaxBlockPerRow", [c["rows"]], [256])],
    "stencil2d/baseline": lambda c: [one("stencilNaive", [cdiv(c["cols"], 16), cdiv(c["rows"], 16)], [16, 16])],
    "stencil2d/column_sweep": lambda c: [one("stencilSweep", [cdiv(c["cols"], 128), cdiv(c["rows"], 16)], [128])],
    "transpose/baseline": lambda c: [one("transposeNaive", [cdiv(c["cols"], 32), cdiv(c["rows"], 8)], [32, 8])],
    "transpose/tiled": lambda c: [one("transposeTiled", [cdiv(c["cols"], 32), cdiv(c["rows"], 32)], [32, 8])],
    "vector_add/baseline": lambda c: [one("vectorAddKernel", [cdiv(c["n"], 256)], [256])],
    "vector_add/vectorized": vector_add_vectorized,
    "pytorch/argmax_dim/baseline": rows("argmaxRows", lambda c: c["batch_size"]),
    "pytorch/avg_pool2d/baseline": lambda c: [one("avgPool3x3s2", [cdiv(pool_total(c), 256)], [256])],
    "pytorch/conv1d_depthwise/baseline": lambda c: [
        one("depthwiseConv1d", [cdiv(c["batch_size"] * c["channels"] * (c["length"] - 5 + 1), 256)], [256])],
    "pytorch/conv2d_3x3/baseline": lambda c: [
        one("conv2d3x3Direct", [cdiv(c["batch_size"] * c["out_channels"] * c["height"] * c["width"], 256)], [256])],
    "pytorch/gelu_tanh/baseline": elementwise("geluTanhKernel"),
    "pytorch/layer_norm/baseline": rows("layerNormRows", lambda c: c["batch_size"] * c["seq_len"]),
    "pytorch/layer_norm_relu/baseline": rows("layerNormReluRows", lambda c: c["batch_size"] * c["seq_len"]),
    "pytorch/leaky_relu/baseline": elementwise("leakyReluKernel"),
    "pytorch/linear/baseline": lambda c: [
        one("linearTiled", [cdiv(c["out_features"], 16), cdiv(c["batch_size"], 16)], [16, 16])],
    "pytorch/linear_relu/baseline": lambda c: [
        one("linearReluTiled", [cdiv(c["out_features"], 16), cdiv(c["batch_size"], 16)], [16, 16])],
    "pytorch/log_softmax_last_dim/baseline": rows("logSoftmaxRows", lambda c: c["batch_size"]),
    "pytorch/matmul_at/baseline": lambda c: [one("matmulAtNaive", [cdiv(c["n"], 32), cdiv(c["m"], 8)], [32, 8])],
    "pytorch/matmul_batched/baseline": lambda c: [
        one("bmmNaive", [cdiv(c["n"], 32), cdiv(c["m"], 8), c["batch_size"]], [32, 8])],
    "pytorch/matmul_bias_gelu/baseline": lambda c: [
        one("matmulBiasGelu", [cdiv(c["out_features"], 32), cdiv(c["batch_size"], 8)], [32, 8])],
    "pytorch/matmul_square/baseline": lambda c: [one("matmulNaive", [cdiv(c["n"], 32), cdiv(c["n"], 8)], [32, 8])],
    "pytorch/matvec/baseline": lambda c: [one("matvecWarpPerRow", [cdiv(c["m"], 8)], [8 * 32])],
    "pytorch/max_dim/baseline": lambda c: [one("maxMiddle", [cdiv(c["batch_size"] * c["dim2"], 256)], [256])],
    "pytorch/max_pool2d/baseline": lambda c: [one("maxPool2x2", [cdiv(pool_total(c), 256)], [256])],
    "pytorch/mean_mid_dim/baseline": lambda c: [one("meanMiddle", [cdiv(c["batch_size"] * c["dim2"], 256)], [256])],
    "pytorch/min_max_last_dim/baseline": rows("minMaxRows", lambda c: c["batch_size"]),
    "pytorch/relu/baseline": elementwise("reluKernel"),
    "pytorch/rms_norm/baseline": rows("rmsNormRows", lambda c: c["batch_size"] * c["seq_len"]),
    "pytorch/sigmoid/baseline": elementwise("sigmoidKernel"),
    "pytorch/silu/baseline": elementwise("siluKernel"),
    "pytorch/softmax_last_dim/baseline": rows("softmaxRows", lambda c: c["batch_size"]),
    "pytorch/sum_last_dim/baseline": rows("sumRows", lambda c: c["batch_size"]),
    "pytorch/tanh_act/baseline": elementwise("tanhActKernel"),
}


def derive(root):
    impls = []
    for key, formula in sorted(FORMULAS.items()):
        task, impl = key.rsplit("/", 1)
        task_dir = os.path.join("data", "tasks", task)
        spec = json.load(open(os.path.join(root, task_dir, "task.json")))
        fixed = {a["name"]: a["value"] for a in spec["args"] if "value" in a}
        configs = []
        for c in spec["configs"]:
            values = dict(fixed, **{k: v for k, v in c.items() if k != "name"})
            configs.append({"name": c["name"], "launches": formula(values)})
        impls.append({"task": task_dir, "candidate": os.path.join(task_dir, "impls", impl + ".cu"),
                      "configs": configs})
    return {"schema": "cudaperf-launches/1",
            "source": "hand-derived from each implementation's entry point (test/Task/Inputs/shipped_launches.py)",
            "implementations": impls}


if __name__ == "__main__":
    import sys
    json.dump(derive(sys.argv[1] if len(sys.argv) > 1 else "."), sys.stdout, indent=1)
    print()
