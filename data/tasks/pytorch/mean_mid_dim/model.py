"""Mean over the middle dimension of a (batch_size, dim1, dim2) tensor."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """out[b, j] = mean over i of x[b, i, j]."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.mean(x, dim=1)


batch_size = 16
dim1 = 256
dim2 = 256

CONFIGS = {
    "small": {"batch_size": 3, "dim1": 17, "dim2": 33},
    "medium": {"batch_size": 16, "dim1": 256, "dim2": 256},
    "large": {"batch_size": 32, "dim1": 512, "dim2": 1024},
}


def get_inputs():
    x = torch.randn(batch_size, dim1, dim2)
    return [x]


def get_init_inputs():
    return []
