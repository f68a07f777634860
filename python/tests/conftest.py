# Shared fixtures: whether a usable CUDA device is present (GPU tests skip cleanly without one).
import pytest

import warpsort


def _gpu_present():
    try:
        return warpsort._ext.device_count() > 0
    except RuntimeError as e:
        return str(e)


_GPU = _gpu_present()
HAS_GPU = _GPU is True


def pytest_collection_modifyitems(config, items):
    if HAS_GPU:
        return
    skip = pytest.mark.skip(reason=f"no usable CUDA device ({_GPU})")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device")
    config.addinivalue_line("markers", "nogpu: runs only without a CUDA device")
