"""Deterministic synthetic pages with red seals, and their ground truth (see `page`)."""

from .page import STYLE_NAMES, Page, SealTruth, generate_page, random_spec

__all__ = ["STYLE_NAMES", "Page", "SealTruth", "generate_page", "random_spec"]
