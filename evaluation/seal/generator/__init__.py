"""Deterministic synthetic pages with red seals, and their ground truth (see `page`)."""

from .page import Page, SealTruth, generate_page, random_spec

__all__ = ["Page", "SealTruth", "generate_page", "random_spec"]
