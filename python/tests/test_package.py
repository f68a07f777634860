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
    lambda x: warpsort.sort_pairs(x, x.copy()),
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
    with pytest.raises(TypeError, match="not an array"):
        warpsort.sort([3, 1, 2])


# Argument checks come before the device is touched: these run with or without a GPU, on NumPy
# arrays, and every refused call leaves every array as it was.

KEYS = np.arange(64, dtype=np.uint32)[::-1].copy()


@pytest.mark.parametrize("bad", [
    np.array(["2020-01-01"] * 8, dtype="datetime64[ns]"),
    np.arange(8).astype("timedelta64[s]"),
    np.array([object()] * 8, dtype=object),
    np.arange(8, dtype=np.complex64),
    np.arange(8, dtype=np.float16),
    np.ones(8, dtype=bool),
    np.arange(8, dtype=np.int8),
    np.arange(8, dtype=">u4"),
    np.zeros(8, dtype=[("a", "<u4"), ("b", "<f4")]),
], ids=lambda a: str(a.dtype))
def test_unsupported_key_dtypes_are_type_errors_naming_the_dtype(bad):
    before = bad.copy()
    for call in (warpsort.sort, warpsort.argsort, lambda a: warpsort.sort(a, out=a),
                 lambda a: warpsort.sort_pairs(a, np.arange(a.size, dtype=np.uint32))):
        with pytest.raises(TypeError) as e:
            call(bad)
        assert str(bad.dtype) in str(e.value) or "Python objects" in str(e.value), str(e.value)
    assert bad.tobytes() == before.tobytes() if bad.dtype != object else True


@pytest.mark.parametrize("bad", [
    np.array([object()] * 64, dtype=object),
    np.zeros(64, dtype=[("a", "O"), ("b", "<i4")]),
    np.arange(64, dtype=np.int16),
    np.arange(64, dtype=np.complex128),
], ids=lambda a: str(a.dtype))
def test_unsupported_value_dtypes_are_type_errors(bad):
    with pytest.raises(TypeError) as e:
        warpsort.sort_pairs(KEYS.copy(), bad)
    assert str(bad.dtype) in str(e.value) or "Python objects" in str(e.value), str(e.value)


def test_overlaps_are_refused_before_any_work():
    base = np.arange(200, dtype=np.uint32)[::-1].copy()
    before = base.copy()
    a, b = base[0:100], base[50:150]       # one buffer at two offsets
    c = base[100:200]
    calls = [
        lambda: warpsort.sort(a, out=b),                       # partial overlap
        lambda: warpsort.sort_pairs(a, c, out=(c, a)),         # outputs swapped over the inputs
        lambda: warpsort.sort_pairs(a, a),                     # keys and values one array
        lambda: warpsort.sort_pairs(a, b),                     # keys and values overlapping
        lambda: warpsort.sort_pairs(a, c, out=(a, b)),         # out values over the keys
        lambda: warpsort.argsort(a, out=base[1:101]),          # indices offset over the keys
        lambda: warpsort.sort_pairs(a, c, out=(a, a)),         # both outputs one array
    ]
    for call in calls:
        with pytest.raises(ValueError, match="share memory"):
            call()
    np.testing.assert_array_equal(base, before)


def test_lengths_and_out_shapes_are_value_errors():
    x = KEYS.copy()
    with pytest.raises(ValueError, match="lengths"):
        warpsort.sort_pairs(x, np.arange(63, dtype=np.uint32))
    with pytest.raises(ValueError, match="elements"):
        warpsort.sort(x, out=np.empty(63, dtype=np.uint32))
    with pytest.raises(TypeError, match="dtype"):
        warpsort.sort(x, out=np.empty(64, dtype=np.int32))
    with pytest.raises(ValueError, match="contiguous"):
        warpsort.sort(np.arange(100, dtype=np.uint32)[::3])
    ro = KEYS.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        warpsort.sort(ro, out=ro)
