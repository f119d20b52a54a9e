# One entry point for people and CI. `make serve` and `make test` set everything up first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
REF_VENV := .venv-ref
IMAGE_VENV := .venv-image
# The unit tests of the python models' code (triton_repo/shared), run again under the Triton image's
# pins: those that import it and nothing of the gateway's (which the image does not hold).
IMAGE_TESTS = $(shell grep -l -E '^(from|import) (imgproc|pymodel)|import_module."(pymodel|pydocument)"' tests/unit/test_*.py \
	| xargs grep -L -E '^(from|import) gateway')
PYTEST_PIN = $(shell grep -o '"pytest==[^"]*"' pyproject.toml | tr -d '"')
HOST ?= 0.0.0.0
PORT ?= 8080
PYTEST_ARGS ?=

.PHONY: setup serve test test-fast lint unit system-packages kubectl models reference image-tests train train-seq2seq export-seq2seq finetune-seal-rec bench clean

setup: $(VENV)/.installed system-packages kubectl models

$(VENV)/.installed: pyproject.toml triton_repo/shared/pyproject.toml triton_repo/provision/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[local,dev]' -e triton_repo/shared -e triton_repo/provision
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

$(REF_VENV)/.installed: evaluation/support/requirements-ref.txt
	test -x $(REF_VENV)/bin/python || $(PYTHON) -m venv $(REF_VENV)
	$(REF_VENV)/bin/python -m pip install -q -r evaluation/support/requirements-ref.txt
	touch $@

# The Triton image runs the python models on its own Python (3.10) with its own pins
# (triton_repo/requirements.txt: older Pillow and onnxruntime than .venv). This environment has
# those pins on that Python where this machine has it (scripts/image-python.sh), and runs the
# python models' unit tests and the image's weight provisioning in it.
$(IMAGE_VENV)/.installed: triton_repo/requirements.txt scripts/image-python.sh
	test -x $(IMAGE_VENV)/bin/python || $$(scripts/image-python.sh $(PYTHON)) -m venv $(IMAGE_VENV)
	$(IMAGE_VENV)/bin/python -m pip install -q --upgrade pip
	$(IMAGE_VENV)/bin/python -m pip install -q -r triton_repo/requirements.txt '$(PYTEST_PIN)'
	touch $@

image-tests: $(IMAGE_VENV)/.installed models
	$(IMAGE_VENV)/bin/python triton_repo/provision/provision.py triton_repo/models .cache/wheels
	$(IMAGE_VENV)/bin/python -m pytest --noconftest -p no:cacheprovider -q $(IMAGE_TESTS)

serve: setup
	$(BIN)/python -m gateway serve --host $(HOST) --port $(PORT)

# mypy --strict over gateway, evaluation, bench and triton_repo (pyproject.toml), then once more
# for Python 3.10 over what the Triton image runs on its Python, each model.py on its own (they
# are all modules named `model`).
lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/mypy --python-version 3.10 triton_repo/shared triton_repo/provision
	for model in triton_repo/models/*/1/model.py; do $(BIN)/mypy --python-version 3.10 $$model || exit 1; done

test: setup reference lint image-tests
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The edit loop: the unit and app tests without those marked slow (under a minute); CI runs `test`.
test-fast: $(VENV)/.installed
	$(BIN)/python -m pytest tests/unit tests/app -m "not slow" -q $(PYTEST_ARGS)

unit: $(VENV)/.installed
	$(BIN)/python -m pytest tests/unit $(PYTEST_ARGS)

# Retrains the committed MNIST model (not needed to serve or test).
train:
	test -x .venv-train/bin/python || $(PYTHON) -m venv .venv-train
	.venv-train/bin/python -m pip install -q -r training/mnist/requirements.txt
	.venv-train/bin/python training/mnist/train.py

# Retrains the committed seal encoder-decoder (seal_seq2seq_*; not needed to serve or test):
# rim strips cut by the seal pipeline from generated pages (and the seals-dev tuning part,
# measured only), then the training on 2 CPU cores (45 min on a busy machine) and the ONNX export.
SEQ2SEQ_DATA := .cache/seq2seq
train-seq2seq: setup .venv-train/.seq2seq
	test -f $(SEQ2SEQ_DATA)/train.npz || $(BIN)/python -m training.seal_seq2seq.strips --seed 11 --pages 900 --out $(SEQ2SEQ_DATA)/train.npz
	test -f $(SEQ2SEQ_DATA)/val.npz || $(BIN)/python -m training.seal_seq2seq.strips --seed 12 --pages 150 --out $(SEQ2SEQ_DATA)/val.npz
	test -f $(SEQ2SEQ_DATA)/tuning.npz || $(BIN)/python -m training.seal_seq2seq.strips --tuning --out $(SEQ2SEQ_DATA)/tuning.npz
	.venv-train/bin/python training/seal_seq2seq/train.py

# Writes the seal encoder-decoder's two decoder graphs (with and without past key/values) again
# from the committed decoder_model.onnx's weights, without training (seal_seq2seq_decoder/MODEL_CARD.md).
export-seq2seq: .venv-train/.seq2seq
	.venv-train/bin/python training/seal_seq2seq/export.py --decoders-from-onnx

# Fine-tunes the served PP-OCRv4 recogniser on rim strips of generated seals with random names
# (training/seal_rec/; not served: README "Tried and not kept (twelfth)"). The strips take
# about 15 min, the training about 18 min on 2 otherwise idle cores.
SEAL_REC_DATA := .cache/seal_rec
finetune-seal-rec: setup .venv-train/.seal_rec
	test -f $(SEAL_REC_DATA)/train.npz || $(BIN)/python -m training.seal_rec.strips --seed 101 --pages 1200 --out $(SEAL_REC_DATA)/train.npz
	test -f $(SEAL_REC_DATA)/val.npz || $(BIN)/python -m training.seal_rec.strips --seed 102 --pages 150 --out $(SEAL_REC_DATA)/val.npz
	test -f $(SEAL_REC_DATA)/tuning.npz || $(BIN)/python -m training.seal_seq2seq.strips --tuning --out $(SEAL_REC_DATA)/tuning.npz
	.venv-train/bin/python training/seal_rec/finetune.py

.venv-train/.seal_rec: .venv-train/.seq2seq training/seal_rec/requirements.txt
	.venv-train/bin/python -m pip install -q --no-deps -r training/seal_rec/requirements.txt
	touch $@

.venv-train/.seq2seq: training/seal_seq2seq/requirements.txt
	test -x .venv-train/bin/python || $(PYTHON) -m venv .venv-train
	.venv-train/bin/python -m pip install -q -r training/seal_seq2seq/requirements.txt
	touch $@

bench: setup reference
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) $(REF_VENV) $(IMAGE_VENV) .venv-train .cache .pytest_cache .mypy_cache .ruff_cache
