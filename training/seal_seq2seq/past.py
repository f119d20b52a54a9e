"""The trained decoder with past key/values, in the two graphs optimum exports for
`VisionEncoderDecoderModel --task image-to-text-with-past`.

- `FirstStep` (`decoder_model.onnx`): `input_ids` [N, T] and `encoder_hidden_states` ->
  `logits` [N, T, V] and, per layer i, `present.{i}.decoder.key|value` [N, HEADS, T, D / HEADS]
  (the self-attention's keys and values of the T tokens) and `present.{i}.encoder.key|value`
  [N, HEADS, S, D / HEADS] (the cross-attention's, over the S encoder states).
- `WithPast` (`decoder_with_past_model.onnx`): `input_ids` [N, 1] (the last token) and the
  `past_key_values.{i}.decoder|encoder.key|value` of the step before -> `logits` [N, 1, V] and
  `present.{i}.decoder.key|value`, one position longer. As in optimum's export the encoder
  keys and values are not output again (they never change) and the encoder states are no input.

Both reuse the trained `Decoder`'s own layers, so they compute what it computes: the logits
of the last position equal the full decoder's (checked in export.py).
"""

from __future__ import annotations

import torch
from model import D_MODEL, HEADS, Attention, Decoder, Layer
from torch import nn

KINDS = ("key", "value")


def past_names(prefix: str, layers: int, sides: tuple[str, ...] = ("decoder", "encoder")) -> list[str]:
    """`prefix.{i}.{side}.{key|value}` for every layer, in optimum's order."""
    return [f"{prefix}.{i}.{side}.{kind}" for i in range(layers) for side in sides for kind in KINDS]


def _heads(x: torch.Tensor) -> torch.Tensor:
    return x.reshape(x.shape[0], -1, HEADS, D_MODEL // HEADS).transpose(1, 2)


def _attend(
    attention: Attention, x: torch.Tensor, key: torch.Tensor, value: torch.Tensor, mask: torch.Tensor | None
) -> torch.Tensor:
    """`Attention.forward` with the keys and values already projected into heads."""
    scores = _heads(attention.query(x)) @ key.transpose(-1, -2) / (D_MODEL // HEADS) ** 0.5
    if mask is not None:
        scores = scores + mask
    mixed = (scores.softmax(-1) @ value).transpose(1, 2)
    return attention.out(mixed.reshape(x.shape[0], -1, D_MODEL))


def _layer(
    layer: Layer,
    x: torch.Tensor,
    own: tuple[torch.Tensor, torch.Tensor],
    cross: tuple[torch.Tensor, torch.Tensor],
    mask: torch.Tensor | None,
) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
    """One decoder layer over new tokens `x`, given the earlier tokens' self-attention keys and
    values `own` (possibly none yet) and the cross-attention's; returns the layer's output and
    the self-attention keys and values including the new tokens."""
    assert layer.cross is not None
    normed = layer.norm1(x)
    key = torch.cat([own[0], _heads(layer.self_attention.key(normed))], 2)
    value = torch.cat([own[1], _heads(layer.self_attention.value(normed))], 2)
    x = x + _attend(layer.self_attention, normed, key, value, mask)
    x = x + _attend(layer.cross, layer.norm2(x), *cross, None)
    return x + layer.feed(x), (key, value)


def _cross(layer: Layer, states: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    assert layer.cross is not None
    return _heads(layer.cross.key(states)), _heads(layer.cross.value(states))


class FirstStep(nn.Module):
    """The first call: the start token (or any prefix) -> logits and every layer's present."""

    def __init__(self, decoder: Decoder) -> None:
        super().__init__()
        self.decoder = decoder

    def forward(
        self, input_ids: torch.Tensor, encoder_hidden_states: torch.Tensor
    ) -> tuple[torch.Tensor, ...]:
        decoder, length = self.decoder, input_ids.shape[1]
        causal = torch.triu(torch.full((length, length), float("-inf"), device=input_ids.device), diagonal=1)
        x = decoder.embed(input_ids) + decoder.position[:, :length]
        empty = x.new_zeros(x.shape[0], HEADS, 0, D_MODEL // HEADS)
        presents: list[torch.Tensor] = []
        for layer in decoder.layers:
            cross = _cross(layer, encoder_hidden_states)
            x, own = _layer(layer, x, (empty, empty), cross, causal)
            presents += [*own, *cross]
        return (decoder.head(decoder.norm(x)), *presents)


class WithPast(nn.Module):
    """A later call: the last token and the past -> its logits and the layers' new self-attention
    keys and values (`past_key_values` flattened in `past_names` order as inputs)."""

    def __init__(self, decoder: Decoder) -> None:
        super().__init__()
        self.decoder = decoder

    def forward(self, input_ids: torch.Tensor, *past: torch.Tensor) -> tuple[torch.Tensor, ...]:
        decoder = self.decoder
        done = past[0].shape[2]  # positions already decoded
        x = decoder.embed(input_ids) + decoder.position[:, done : done + input_ids.shape[1]]
        presents: list[torch.Tensor] = []
        for i, layer in enumerate(decoder.layers):
            own, cross = past[4 * i : 4 * i + 2], past[4 * i + 2 : 4 * i + 4]
            x, new = _layer(layer, x, (own[0], own[1]), (cross[0], cross[1]), None)
            presents += new
        return (decoder.head(decoder.norm(x)), *presents)
