# One entry point for people and CI. `make serve` and `make test` set everything up first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
REF_VENV := .venv-ref
HOST ?= 0.0.0.0
PORT ?= 8080
PYTEST_ARGS ?=

.PHONY: setup serve test lint unit system-packages kubectl models reference train bench clean

setup: $(VENV)/.installed system-packages kubectl models

$(VENV)/.installed: pyproject.toml triton_repo/shared/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]' -e triton_repo/shared
	touch $@

system-packages:
	./scripts/system-packages.sh

# A pinned kubectl (Debian's) that renders deploy/k8s in the tests.
kubectl: system-packages
	./scripts/kubectl.sh

models: $(VENV)/.installed
	$(BIN)/python -m gateway models

# The OCR reference (rapidocr-onnxruntime) needs numpy>=2, so it lives in its own environment.
reference: $(REF_VENV)/.installed

$(REF_VENV)/.installed: tests/support/requirements-ref.txt
	test -x $(REF_VENV)/bin/python || $(PYTHON) -m venv $(REF_VENV)
	$(REF_VENV)/bin/python -m pip install -q -r tests/support/requirements-ref.txt
	touch $@

serve: setup
	$(BIN)/python -m gateway serve --host $(HOST) --port $(PORT)

lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/mypy

test: setup reference lint
	$(BIN)/python -m pytest $(PYTEST_ARGS)

unit: $(VENV)/.installed
	$(BIN)/python -m pytest tests/unit $(PYTEST_ARGS)

# Retrains the committed MNIST model (not needed to serve or test).
train:
	test -x .venv-train/bin/python || $(PYTHON) -m venv .venv-train
	.venv-train/bin/python -m pip install -q -r training/mnist/requirements.txt
	.venv-train/bin/python training/mnist/train.py

bench: setup reference
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) $(REF_VENV) .venv-train .cache .pytest_cache .mypy_cache .ruff_cache
