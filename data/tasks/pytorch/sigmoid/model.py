"""Sigmoid over a (batch_size, dim) tensor."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = sigmoid(x) = 1 / (1 + exp(-x)), elementwise."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sigmoid(x)


batch_size = 16
dim = 16384

# Elementwise: the large config is 8M elements (32 MB in, 32 MB out), a few tens of microseconds on an H200.
# Inputs spread over [-8, 8] so both tails of the sigmoid are exercised. get_inputs() scales torch.rand,
# which the import script cannot read from the source, so the distribution is declared.
DISTRIBUTIONS = {"x": {"uniform": [-8, 8]}}

CONFIGS = {
    "small": {"batch_size": 4, "dim": 1000},
    "medium": {"batch_size": 16, "dim": 16384},
    "large": {"batch_size": 128, "dim": 65536},
}


def get_inputs():
    x = torch.rand(batch_size, dim) * 16 - 8
    return [x]


def get_init_inputs():
    return []
