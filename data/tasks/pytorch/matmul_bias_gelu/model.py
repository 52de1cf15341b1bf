"""Fused triple: matrix multiply by a (in_features, out_features) weight, add a bias, exact GELU."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = gelu(x @ weight + bias) with the exact (erf) GELU: 0.5 v (1 + erf(v / sqrt(2))).

    weight is stored (in_features, out_features), unlike nn.Linear's (out_features, in_features).
    """

    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features) * 0.05)
        self.bias = nn.Parameter(torch.randn(out_features) * 0.1)

    def forward(self, x):
        return torch.nn.functional.gelu(torch.matmul(x, self.weight) + self.bias)


batch_size = 128
in_features = 1024
out_features = 768

CONFIGS = {
    "small": {"batch_size": 5, "in_features": 64, "out_features": 96},
    "medium": {"batch_size": 128, "in_features": 1024, "out_features": 768},
    "large": {"batch_size": 1024, "in_features": 2048, "out_features": 2048},
}

# The parameters are initialized from normal distributions; the evaluator draws them the same way
# (rather than uniformly over the observed range).
DISTRIBUTIONS = {"weight": {"normal": [0, 0.05]}, "bias": {"normal": [0, 0.1]}}

TOLERANCE = {"atol": 1e-3, "rtol": 1e-3}


def get_inputs():
    x = torch.randn(batch_size, in_features)
    return [x]


def get_init_inputs():
    return [in_features, out_features]
