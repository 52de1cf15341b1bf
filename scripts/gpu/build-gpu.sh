# Sourced by the GPU scripts that build the LibTorch programs on the GPU host (sft.sh, rl.sh,
# lm-crosscheck.sh): one configuration of build-gpu for all of them.
# gpu_build LOG CONFIGURE_WANT BUILD_WANT TARGET...: configures build-gpu (no analyzer, no tests) against
# the host's LibTorch and .carry/deps, then builds TARGETs; both into LOG. The caller's cap() turns each
# WANT into the seconds its deadline leaves, the build's after the configuration has run.
gpu_build() {
  local log=$1 configure_want=$2 build_want=$3 prefix
  shift 3
  prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)
  local deps=()
  [ -d .carry/deps ] && deps=(-DCUDAPERF_DEPS_PREFIX="$PWD/.carry/deps")
  timeout "$(cap "$configure_want")" cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCUDAPERF_BUILD_ANALYZER=OFF -DCUDAPERF_BUILD_TESTS=OFF -DCUDAPERF_BUILD_TORCH_REFERENCE=ON -DCMAKE_PREFIX_PATH="$prefix" "${deps[@]}" > "$log" 2>&1 &&
    timeout "$(cap "$build_want")" cmake --build build-gpu -j "$(nproc)" --target "$@" >> "$log" 2>&1
}
