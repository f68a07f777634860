# Tests that run everywhere, GPU or not (CI has none): the module builds, imports, reports its
# version and types, and without a device every call refuses with a clear RuntimeError.
import re

import numpy as np
import pytest

import warpsort
from conftest import HAS_GPU


def test_imports_with_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+", warpsort.__version__)
    assert warpsort.__version__ == warpsort._ext.__version__


def test_key_and_value_types_come_from_the_library():
    assert warpsort.key_types == ("uint32", "int32", "float32", "uint64", "int64", "float64")
    assert warpsort.value_types == ("uint32", "uint64")


@pytest.mark.skipif(HAS_GPU, reason="a CUDA device is present")
@pytest.mark.parametrize("call", [
    lambda x: warpsort.sort(x),
    lambda x: warpsort.argsort(x),
    lambda x: warpsort.sort_pairs(x, x),
    lambda x: warpsort.sort(x, out=x),
])
def test_without_device_refuses_clearly(call):
    x = np.arange(10, dtype=np.uint32)[::-1].copy()
    before = x.copy()
    with pytest.raises(RuntimeError, match="no CUDA device"):
        call(x)
    np.testing.assert_array_equal(x, before)  # nothing written


@pytest.mark.skipif(HAS_GPU, reason="a CUDA device is present")
def test_without_device_low_level_refuses_clearly():
    with pytest.raises(RuntimeError, match="no CUDA device"):
        warpsort._ext.sort_keys(0, 0, 10, "uint32", False, 0, 0, False)


def test_not_an_array_is_a_type_error():
    if not HAS_GPU:
        pytest.skip("the device check comes first")
    with pytest.raises(TypeError):
        warpsort.sort([3, 1, 2])
