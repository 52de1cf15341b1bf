"""Fused pair: nn.Linear(in_features, out_features) with bias, then ReLU."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = relu(x @ fc.weight.T + fc.bias); fc.weight is (out_features, in_features)."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.fc(x))


batch_size = 64
in_features = 1024
out_features = 512

CONFIGS = {
    "small": {"batch_size": 3, "in_features": 100, "out_features": 50},
    "medium": {"batch_size": 64, "in_features": 1024, "out_features": 512},
    "large": {"batch_size": 512, "in_features": 2048, "out_features": 4096},
}

TOLERANCE = {"atol": 1e-3, "rtol": 1e-3}


def get_inputs():
    x = torch.randn(batch_size, in_features)
    return [x]


def get_init_inputs():
    return [in_features, out_features]
