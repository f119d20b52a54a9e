"""A REST gateway in front of NVIDIA Triton: validates uploads, forwards bytes, returns JSON."""
