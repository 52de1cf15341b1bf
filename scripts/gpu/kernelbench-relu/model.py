"""KernelBench level 1, problem 19 (ReLU), at KernelBench's own size: x is 4096 x 393216 fp32
(6.4 GB). Written in the KernelBench convention for scripts/gpu/eval-scale.sh, which imports it
with scripts/import-pytorch-task.py on the GPU host (one configuration: the module's globals)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = relu(x), elementwise, at KernelBench's level-1 size."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


batch_size = 4096
dim = 393216


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []

# The 6.4 GB input made on the GPU, not on the host (docs/pytorch-tasks.md; as
# scripts/import-kernelbench.py imports KernelBench's problems).
INPUTS_ON_DEVICE = True
