"""Helpers only the tests use (hostile uploads, seal grids, made-up graphs and fault-injecting
models); what bench, training and evaluation share too lives in `evaluation.support`."""
