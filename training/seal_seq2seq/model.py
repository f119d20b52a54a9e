"""The compact encoder-decoder: a CNN encoder over the strip and a 2-layer transformer decoder.

Shaped as `VisionEncoderDecoderModel` is, so it exports to the same two ONNX graphs:
`Encoder(pixel_values) -> last_hidden_state` [N, S, D] (one vector per strip column of 4
pixels, after a transformer layer that lets columns see each other), and
`Decoder(input_ids, encoder_hidden_states) -> logits` [N, T, V] (causal self-attention over
the tokens so far, cross-attention over the columns).
"""

from __future__ import annotations

import torch
from torch import nn

D_MODEL = 128
HEADS = 4
FEED_FORWARD = 384
DECODER_LAYERS = 2
MAX_TOKENS = 40  # decoder positions: the start token + up to 39 generated
DROPOUT = 0.1


class Attention(nn.Module):
    """Multi-head attention written out with batch-first reshapes by -1, so that the exported
    graph keeps its sequence lengths dynamic (torch's own module bakes the traced ones in)."""

    def __init__(self) -> None:
        super().__init__()
        self.query, self.key, self.value = (nn.Linear(D_MODEL, D_MODEL) for _ in range(3))
        self.out = nn.Linear(D_MODEL, D_MODEL)

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        return x.reshape(x.shape[0], -1, HEADS, D_MODEL // HEADS).transpose(1, 2)

    def forward(
        self, x: torch.Tensor, memory: torch.Tensor, mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        q, k, v = self._heads(self.query(x)), self._heads(self.key(memory)), self._heads(self.value(memory))
        scores = q @ k.transpose(-1, -2) / (D_MODEL // HEADS) ** 0.5
        if mask is not None:
            scores = scores + mask
        mixed = (scores.softmax(-1) @ v).transpose(1, 2)
        return self.out(mixed.reshape(x.shape[0], -1, D_MODEL))


class Layer(nn.Module):
    """A pre-norm transformer layer: self-attention, cross-attention (decoder only), feed-forward."""

    def __init__(self, cross: bool) -> None:
        super().__init__()
        self.self_attention, self.norm1 = Attention(), nn.LayerNorm(D_MODEL)
        self.cross = Attention() if cross else None
        self.norm2 = nn.LayerNorm(D_MODEL)
        self.feed = nn.Sequential(
            nn.LayerNorm(D_MODEL),
            nn.Linear(D_MODEL, FEED_FORWARD),
            nn.GELU(),
            nn.Linear(FEED_FORWARD, D_MODEL),
        )
        self.drop = nn.Dropout(DROPOUT)

    def forward(
        self, x: torch.Tensor, memory: torch.Tensor | None = None, mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        own = self.norm1(x)
        x = x + self.drop(self.self_attention(own, own, mask))
        if self.cross is not None and memory is not None:
            x = x + self.drop(self.cross(self.norm2(x), memory))
        return x + self.drop(self.feed(x))


def _block(c_in: int, c_out: int, pool: tuple[int, int]) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, padding=1, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(pool),
    )


class Encoder(nn.Module):
    """float32[N, 3, 32, W] -> float32[N, W / 4, D_MODEL]."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.cnn = nn.Sequential(
            _block(3, 32, (2, 2)),  # 16 x W/2
            _block(32, 64, (2, 2)),  # 8 x W/4
            _block(64, 96, (2, 1)),  # 4
            _block(96, 128, (2, 1)),  # 2
            nn.Conv2d(128, D_MODEL, (2, 1)),  # 1: the column's features
        )
        self.position = nn.Parameter(torch.zeros(1, width // 4, D_MODEL))
        self.context = Layer(cross=False)
        self.norm = nn.LayerNorm(D_MODEL)

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        columns = self.cnn(pixel_values).squeeze(2).transpose(1, 2)
        return self.norm(self.context(columns + self.position))


class Decoder(nn.Module):
    """int64[N, T] tokens + encoder states -> float32[N, T, vocab] next-token logits."""

    def __init__(self, vocab: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, D_MODEL)
        self.position = nn.Parameter(torch.zeros(1, MAX_TOKENS, D_MODEL))
        self.layers = nn.ModuleList(Layer(cross=True) for _ in range(DECODER_LAYERS))
        self.norm = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, vocab)

    def forward(self, input_ids: torch.Tensor, encoder_hidden_states: torch.Tensor) -> torch.Tensor:
        length = input_ids.shape[1]
        causal = torch.triu(torch.full((length, length), float("-inf"), device=input_ids.device), diagonal=1)
        tokens = self.embed(input_ids) + self.position[:, :length]
        for layer in self.layers:
            tokens = layer(tokens, encoder_hidden_states, causal)
        return self.head(self.norm(tokens))


class Seq2Seq(nn.Module):
    """Both halves, for training with teacher forcing."""

    def __init__(self, vocab: int, width: int) -> None:
        super().__init__()
        self.encoder = Encoder(width)
        self.decoder = Decoder(vocab)

    def forward(self, pixel_values: torch.Tensor, input_ids: torch.Tensor) -> torch.Tensor:
        return self.decoder(input_ids, self.encoder(pixel_values))


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
