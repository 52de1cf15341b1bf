"""Sum over the last dimension of a (batch_size, dim) tensor."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """out[b] = sum over d of x[b, d]."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sum(x, dim=-1)


batch_size = 64
dim = 4096

CONFIGS = {
    "small": {"batch_size": 7, "dim": 1000},
    "medium": {"batch_size": 64, "dim": 4096},
    "large": {"batch_size": 2048, "dim": 8192},
}

# Sums of 8192 normal values are ~90 in size; float summation orders differ by ~1e-5 of that, and
# sums near zero need an absolute allowance.
TOLERANCE = {"atol": 1e-3, "rtol": 1e-4}


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
