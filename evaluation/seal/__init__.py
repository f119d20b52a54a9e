"""Seal evaluation: the truth (`dataset`), one scorer (`scoring`), the in-process harness
(`inprocess`), the page generator (`generator`) and a command line (`python -m evaluation.seal`)."""
