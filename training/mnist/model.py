"""The digit classifier: a compact CNN, and the deployable graph that wraps an ensemble of them.

`Deployed` is what gets exported: it takes `to_mnist` output as is (N,1,28,28 in [0, 1]),
normalises with the training-set mean/std baked in as constants, runs each member and
averages their softmax probabilities. Serving code therefore never normalises anything.
"""

from __future__ import annotations

import torch
from torch import nn

CHANNELS = (32, 64, 128)
FEATURE_SIDE = 5  # 28 -> pool 14 -> pool 7 -> 3x3 valid conv 5
BLOCK_DROPOUT = 0.1
HEAD_DROPOUT = 0.3
NUM_CLASSES = 10


def _conv(cin: int, cout: int, padding: int = 1) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, padding=padding, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


class DigitNet(nn.Module):
    """Two conv-conv-pool blocks and a valid conv, then one linear layer (~170k parameters)."""

    def __init__(self) -> None:
        super().__init__()
        small, medium, large = CHANNELS
        self.features = nn.Sequential(
            *_conv(1, small),
            *_conv(small, small),
            nn.MaxPool2d(2),
            nn.Dropout2d(BLOCK_DROPOUT),
            *_conv(small, medium),
            *_conv(medium, medium),
            nn.MaxPool2d(2),
            nn.Dropout2d(BLOCK_DROPOUT),
            *_conv(medium, large, padding=0),
        )
        self.head = nn.Sequential(
            nn.Flatten(),
            nn.Dropout(HEAD_DROPOUT),
            nn.Linear(large * FEATURE_SIDE * FEATURE_SIDE, NUM_CLASSES),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


class Deployed(nn.Module):
    """PIXELS in [0, 1] -> PROBABILITIES: baked normalisation, ensemble-averaged softmax."""

    def __init__(self, members: list[nn.Module], mean: float, std: float) -> None:
        super().__init__()
        self.members = nn.ModuleList(members)
        self.register_buffer("mean", torch.tensor(mean, dtype=torch.float32))
        self.register_buffer("std", torch.tensor(std, dtype=torch.float32))

    def forward(self, pixels: torch.Tensor) -> torch.Tensor:
        x = (pixels - self.mean) / self.std
        probabilities = [torch.softmax(member(x), dim=1) for member in self.members]
        return torch.stack(probabilities).mean(dim=0)


def normalised(pixels: torch.Tensor, mean: float, std: float) -> torch.Tensor:
    """The same normalisation `Deployed` bakes in, for training."""
    return (pixels - mean) / std


def parameter_count(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())
