"""Pure image-processing functions shared by the Triton python models.

Everything here is NumPy/OpenCV/Pillow only, imports nothing from Triton, and runs on
Python >= 3.10, so the same code serves the Python backend, the training scripts and the
unit tests.
"""
