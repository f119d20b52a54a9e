"""What the tests, the benchmarks, the training and the evaluation share: the MNIST digits and
their photo style, the generated text corpus, the reference OCR (RapidOCR in `.venv-ref`) and the
launchers that serve the real gateway. One module per fact; nothing here is a test."""
