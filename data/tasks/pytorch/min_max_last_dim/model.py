"""Minimum and maximum over the last dimension of a (batch_size, dim) tensor: two outputs."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """Returns (out0, out1) = (min over d of x[b, d], max over d of x[b, d])."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.amin(x, dim=-1), torch.amax(x, dim=-1)


batch_size = 128
dim = 4096

CONFIGS = {
    "small": {"batch_size": 5, "dim": 1000},
    "medium": {"batch_size": 128, "dim": 4096},
    "large": {"batch_size": 1024, "dim": 16384},
}


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
