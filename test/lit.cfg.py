# lit configuration for cudaperf. Substitutions:
#   %cudaperf-analyze   the analyzer under test
#   %cuda-sdk-args      header mode using the CUDA toolkit (tests needing it are marked REQUIRES: cuda-sdk)
#   %cuda-builtin-args  header mode with cudaperf's built-in declarations (no toolkit)
#   %python             the Python interpreter
#   %data               the repository's data/ folder
#   %nvcc               the toolkit's nvcc (with cuda-sdk)
import os
import lit.formats

config.name = "cudaperf"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cu", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "unit", "runtime", "learn", "static-only"]  # learn: GoogleTest and fixture texts, no lit tests; static-only: reward candidates (static_only_test.py)
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.cudaperf_obj_root, "test")

config.environment["PATH"] = os.pathsep.join(
    [config.cudaperf_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
# Keep results reproducible: no colour, a private cache.
config.environment["CUDAPERF_CACHE_DIR"] = os.path.join(config.test_exec_root, "cache")
for var in ["CUDA_PATH"]:
    config.environment.pop(var, None)

analyze = os.path.join(config.cudaperf_tools_dir, "cudaperf-analyze")
config.substitutions.append(("%cudaperf-analyze", analyze))
config.substitutions.append(("%cuda-builtin-args", "--cuda-headers=builtin"))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%data", os.path.join(config.cudaperf_src_root, "data")))
if config.cuda_path and os.path.exists(os.path.join(config.cuda_path, "include", "cuda_runtime.h")):
    config.available_features.add("cuda-sdk")
    config.substitutions.append(("%cuda-sdk-args", "--cuda-headers=sdk --cuda-path=" + config.cuda_path))
    config.substitutions.append(("%nvcc", os.path.join(config.cuda_path, "bin", "nvcc")))
else:
    config.substitutions.append(("%cuda-sdk-args", "--cuda-headers=sdk"))

inputs = os.path.join(config.test_source_root, "Inputs")
config.substitutions.append(("%expect-exit", config.python_executable + " " + os.path.join(inputs, "expect_exit.py")))
config.substitutions.append(("%check-sarif", config.python_executable + " " + os.path.join(inputs, "check_sarif.py")))
