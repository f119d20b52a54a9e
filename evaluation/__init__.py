"""Evaluation code shared by the tests and the benchmarks: truth data, scorers, harnesses.

Not part of the service: nothing under `gateway/` or `triton_repo/` imports it.
"""
