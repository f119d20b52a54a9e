"""Benchmarks: load runs against the real stack, side by side with references, in one run."""
