#!/usr/bin/env bash
# KernelBench level-1 ReLU (model.py here, 4096 x 393216 fp32) as a task in KB_DIR, with the shipped
# relu baseline as impls/baseline.cu: scripts/import-pytorch-task.py within SECONDS (PyTorch, 6.4 GB
# tensors on the GPU). Its output goes to LOG, its exit status to KB_DIR/import.rc. Run from the
# repository root; trust-cost.sh and relu-isolation.sh start it in the background beside their builds.
# Usage: scripts/gpu/kernelbench-relu/import.sh KB_DIR LOG [SECONDS]
kb=$1 log=$2
mkdir -p "$kb/impls"
cp scripts/gpu/kernelbench-relu/model.py "$kb/model.py"
cp data/tasks/pytorch/relu/impls/baseline.cu "$kb/impls/baseline.cu"
timeout "${3:-240}" python3 scripts/import-pytorch-task.py "$kb/model.py" --out "$kb" > "$log" 2>&1
echo $? > "$kb/import.rc"
