# GPU tests: every key dtype and both orders against numpy / cupy / torch (floats in the
# library's total order), argsort stability, pairs, edge sizes, refusals, streams, zero copy.
import numpy as np
import pytest

import warpsort

pytestmark = pytest.mark.gpu

DTYPES = ["uint32", "int32", "float32", "uint64", "int64", "float64"]
SIZES = [0, 1, 7, 4099, 200_003, 700_001]  # version 4, version 5 with one and two rounds
UNSIGNED = {4: np.uint32, 8: np.uint64}


def order_key(a):
    """Unsigned words whose integer order is the library's total order (-NaN first, -0.0 ==
    +0.0, +NaN last); equal words are equal keys."""
    a = np.asarray(a)
    u = UNSIGNED[a.dtype.itemsize]
    sign = u(1) << u(8 * a.dtype.itemsize - 1)
    b = a.view(u).copy()
    if a.dtype.kind == "i":
        return b ^ sign
    if a.dtype.kind == "f":
        b[b == sign] = 0  # -0.0 is +0.0
        neg = (b & sign) != 0
        return np.where(neg, ~b, b ^ sign).astype(u)
    return b


def reference_argsort(a, descending):
    k = order_key(a)
    return np.argsort(~k if descending else k, kind="stable")


def make_keys(dtype, n, seed=1, distinct=None):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        a = rng.standard_normal(n).astype(dt) * 1000
        if distinct:
            a = rng.integers(0, distinct, n).astype(dt) - distinct / 2
        if n > 16:  # the total order's corners
            u = UNSIGNED[dt.itemsize]
            specials = np.array([np.inf, -np.inf, 0.0, -0.0, np.nan, 1.0, -1.0], dtype=dt)
            neg_nan = np.array([~u(0) >> u(1) | (u(1) << u(8 * dt.itemsize - 1))], dtype=u).view(dt)
            pos = rng.choice(n, 16, replace=False)
            a[pos[:7]] = specials
            a[pos[7:9]] = neg_nan[0]
            a[pos[9:]] = -0.0
        return a
    info = np.iinfo(dt)
    hi = distinct if distinct else info.max
    lo = 0 if distinct else info.min
    return rng.integers(lo, hi, n, dtype=dt, endpoint=not distinct)


def check_sorted(result, keys, descending):
    result = np.asarray(result)
    expected = keys[reference_argsort(keys, descending)]
    np.testing.assert_array_equal(order_key(result), order_key(expected))
    # every key kept its bits (-0.0 and +0.0 included): the multiset of bit patterns
    u = UNSIGNED[keys.dtype.itemsize]
    np.testing.assert_array_equal(np.sort(result.view(u)), np.sort(keys.view(u)))


# ---- NumPy: copied in, sorted, copied back ----

@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_numpy(dtype, n, descending):
    keys = make_keys(dtype, n)
    before = keys.copy()
    out = warpsort.sort(keys, descending=descending)
    assert isinstance(out, np.ndarray) and out.dtype == keys.dtype and out.shape == (n,)
    check_sorted(out, keys, descending)
    np.testing.assert_array_equal(keys.view(UNSIGNED[keys.itemsize]), before.view(UNSIGNED[keys.itemsize]))
    if keys.dtype.kind != "f":
        expected = np.sort(keys)
        np.testing.assert_array_equal(out, expected[::-1] if descending else expected)


def test_sort_numpy_in_place():
    keys = make_keys("int32", 5000)
    expected = np.sort(keys)
    res = warpsort.sort(keys, out=keys)
    assert res is keys
    np.testing.assert_array_equal(keys, expected)


# ---- CuPy ----

@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_cupy(dtype, descending):
    cp = pytest.importorskip("cupy")
    keys = make_keys(dtype, 300_007, seed=2)
    x = cp.asarray(keys)
    y = warpsort.sort(x, descending=descending)
    assert isinstance(y, cp.ndarray) and y.dtype == x.dtype
    check_sorted(cp.asnumpy(y), keys, descending)
    if keys.dtype.kind != "f":
        ref = cp.sort(x)
        cp.testing.assert_array_equal(y, ref[::-1] if descending else ref)
    else:
        z = cp.asarray(np.random.default_rng(4).standard_normal(100_000).astype(dtype))
        ref = cp.sort(z)
        cp.testing.assert_array_equal(warpsort.sort(z, descending=descending), ref[::-1] if descending else ref)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_torch(dtype, descending):
    torch = pytest.importorskip("torch")
    keys = make_keys(dtype, 300_007, seed=5)
    tdtype = getattr(torch, dtype)
    x = torch.from_numpy(keys).cuda()
    y = warpsort.sort(x, descending=descending)
    assert isinstance(y, torch.Tensor) and y.dtype == tdtype and y.is_cuda
    check_sorted(y.cpu().numpy(), keys, descending)
    if dtype in ("int32", "int64", "float32", "float64"):
        z = x if keys.dtype.kind != "f" else torch.randn(100_000, device="cuda", dtype=tdtype)
        ref, _ = torch.sort(z, descending=descending, stable=True)
        assert torch.equal(warpsort.sort(z, descending=descending), ref)


def test_sort_torch_cpu_tensor_round_trip():
    torch = pytest.importorskip("torch")
    x = torch.randint(-1000, 1000, (10_001,), dtype=torch.int64)
    y = warpsort.sort(x)
    assert isinstance(y, torch.Tensor) and not y.is_cuda
    assert torch.equal(y, torch.sort(x).values)


# ---- argsort ----

@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_argsort_stable_many_duplicates(dtype, descending):
    cp = pytest.importorskip("cupy")
    keys = make_keys(dtype, 400_009, seed=6, distinct=11)
    idx = warpsort.argsort(cp.asarray(keys), descending=descending)
    assert idx.dtype == cp.int64
    np.testing.assert_array_equal(cp.asnumpy(idx), reference_argsort(keys, descending))
    idx32 = warpsort.argsort(cp.asarray(keys), descending=descending, index_dtype="uint32")
    assert idx32.dtype == cp.uint32
    np.testing.assert_array_equal(cp.asnumpy(idx32), reference_argsort(keys, descending))


@pytest.mark.parametrize("n", [0, 1, 7, 50_000])
def test_argsort_numpy_and_torch(n):
    keys = make_keys("float32", n, seed=7, distinct=5)
    idx = warpsort.argsort(keys)
    assert isinstance(idx, np.ndarray) and idx.dtype == np.int64
    np.testing.assert_array_equal(idx, reference_argsort(keys, False))
    torch = pytest.importorskip("torch")
    t = torch.from_numpy(keys).cuda()
    ti = warpsort.argsort(t)
    assert ti.dtype == torch.int64
    np.testing.assert_array_equal(ti.cpu().numpy(), reference_argsort(keys, False))
    np.testing.assert_array_equal(t.cpu().numpy().view(np.uint32), keys.view(np.uint32))  # keys unchanged


# ---- pairs ----

@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("vdtype", ["uint32", "int32", "float32", "uint64", "int64", "float64"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_pairs(dtype, vdtype, descending):
    cp = pytest.importorskip("cupy")
    n = 150_001
    keys = make_keys(dtype, n, seed=8, distinct=97)
    values = (np.arange(n) * 3).astype(vdtype)
    k, v = warpsort.sort_pairs(cp.asarray(keys), cp.asarray(values), descending=descending)
    perm = reference_argsort(keys, descending)
    np.testing.assert_array_equal(order_key(cp.asnumpy(k)), order_key(keys[perm]))
    np.testing.assert_array_equal(cp.asnumpy(v), values[perm])


def test_sort_pairs_numpy_in_place_and_edges():
    for n in (0, 1, 2, 9999):
        keys = make_keys("uint64", n, seed=9, distinct=3)
        values = np.arange(n, dtype=np.int64)
        perm = reference_argsort(keys, False)
        ek, ev = keys[perm], values[perm]
        rk, rv = warpsort.sort_pairs(keys, values, out=(keys, values))
        assert rk is keys and rv is values
        np.testing.assert_array_equal(keys, ek)
        np.testing.assert_array_equal(values, ev)


# ---- edges and refusals ----

@pytest.mark.parametrize("n", [0, 1])
def test_empty_and_one_element(n):
    cp = pytest.importorskip("cupy")
    for dtype in DTYPES:
        x = cp.asarray(make_keys(dtype, n))
        y = warpsort.sort(x)
        assert y.shape == (n,) and y.dtype == x.dtype
        cp.testing.assert_array_equal(y, x)
        assert warpsort.argsort(x).shape == (n,)
        k, v = warpsort.sort_pairs(x, cp.arange(n, dtype=cp.uint32))
        assert k.shape == (n,) and v.shape == (n,)


def test_strided_and_2d_refused():
    cp = pytest.importorskip("cupy")
    x = cp.arange(100, dtype=cp.uint32)
    with pytest.raises(ValueError, match="contiguous"):
        warpsort.sort(x[::2])
    with pytest.raises(ValueError, match="1-D"):
        warpsort.sort(x.reshape(10, 10))
    with pytest.raises(ValueError, match="contiguous"):
        warpsort.sort(np.arange(100, dtype=np.uint32)[::3])
    torch = pytest.importorskip("torch")
    t = torch.arange(100, dtype=torch.int32, device="cuda")
    with pytest.raises(ValueError, match="contiguous"):
        warpsort.sort(t[::2])
    with pytest.raises(ValueError, match="1-D"):
        warpsort.argsort(t.reshape(10, 10))


def test_refusals():
    cp = pytest.importorskip("cupy")
    x = cp.arange(100, dtype=cp.uint32)
    with pytest.raises(TypeError, match="dtype"):
        warpsort.sort(x.astype(cp.float16))
    with pytest.raises(TypeError, match="dtype"):
        warpsort.sort(x.astype(cp.int8))
    with pytest.raises(TypeError, match="4- or 8-byte"):
        warpsort.sort_pairs(x, x.astype(cp.int16))
    with pytest.raises(ValueError, match="lengths"):
        warpsort.sort_pairs(x, cp.arange(99, dtype=cp.uint32))
    with pytest.raises(ValueError, match="elements"):
        warpsort.sort(x, out=cp.empty(99, dtype=cp.uint32))
    with pytest.raises(TypeError, match="dtype"):
        warpsort.sort(x, out=cp.empty(100, dtype=cp.int32))
    with pytest.raises(TypeError):
        warpsort.sort([3, 1, 2])
    with pytest.raises(ValueError, match="same device"):
        warpsort.sort(x, out=np.empty(100, dtype=np.uint32))


# ---- streams and zero copy ----

def test_cupy_non_default_stream():
    cp = pytest.importorskip("cupy")
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        x = cp.random.randint(0, 2**31, 1 << 22, dtype=cp.int64)  # made on s
        ref = cp.sort(x)
        y = warpsort.sort(x)  # on s: ordered after x's creation with no host wait
    s.synchronize()
    cp.testing.assert_array_equal(y, ref)
    z = cp.empty_like(x)
    warpsort.sort(x, out=z, stream=s)  # explicit stream object
    s.synchronize()
    cp.testing.assert_array_equal(z, ref)


def test_torch_non_default_stream():
    torch = pytest.importorskip("torch")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.randint(-2**31, 2**31 - 1, (1 << 22,), device="cuda", dtype=torch.int32)
        ref = torch.sort(x).values
        y = warpsort.sort(x)
        i = warpsort.argsort(x, descending=True)
    s.synchronize()
    assert torch.equal(y, ref)
    assert torch.equal(x[i], torch.sort(x, descending=True, stable=True).values)
    w = torch.empty_like(x)
    warpsort.sort(x, out=w, stream=s.cuda_stream)  # raw handle
    s.synchronize()
    assert torch.equal(w, ref)


def test_zero_copy_torch_and_cupy():
    torch = pytest.importorskip("torch")
    t = torch.randint(0, 1000, (1 << 20,), device="cuda", dtype=torch.int64)
    ref = torch.sort(t).values
    ptr = t.data_ptr()
    r = warpsort.sort(t, out=t)
    assert r is t and t.data_ptr() == ptr
    assert torch.equal(t, ref)
    out = torch.empty_like(t)
    r = warpsort.sort(ref.flip(0).contiguous(), out=out)
    assert r is out and out.data_ptr() == r.data_ptr()
    assert torch.equal(out, ref)

    cp = pytest.importorskip("cupy")
    c = cp.random.random(1 << 20).astype(cp.float32)
    ref = cp.sort(c)
    ptr = c.data.ptr
    r = warpsort.sort(c, out=c)
    assert r is c and c.data.ptr == ptr
    cp.testing.assert_array_equal(c, ref)


def test_times():
    cp = pytest.importorskip("cupy")
    x = cp.random.randint(0, 2**31, 1 << 21, dtype=cp.uint32)
    y, t = warpsort.sort(x, times=True)
    assert set(t) == {"sort_chunks_ms", "merge_sequences_ms", "split_ms", "merge_groups_ms", "total_ms"}
    assert all(v >= 0 for v in t.values()) and t["total_ms"] > 0
    cp.testing.assert_array_equal(y, cp.sort(x))
    (k, v), t = warpsort.sort_pairs(x, cp.arange(x.size, dtype=cp.uint32), times=True)
    assert t["total_ms"] > 0


def test_dlpack_only_input():
    # an object that speaks only DLPack (like a JAX array): zero-copy in, result via DLPack
    cp = pytest.importorskip("cupy")
    x = cp.random.randint(0, 1000, 10_000, dtype=cp.int32)

    class OnlyDLPack:
        def __init__(self, a):
            self._a = a

        def __dlpack__(self, **kw):
            return self._a.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self._a.__dlpack_device__()

        def __array_namespace__(self):
            return cp

    y = warpsort.sort(OnlyDLPack(x))
    cp.testing.assert_array_equal(cp.asarray(y), cp.sort(x))


class _ClaimsMore:
    """A device buffer whose __cuda_array_interface__ claims n elements, far more than it holds:
    the temporary storage a sort of n keys needs is then more than the device has, and the sort
    must refuse before it touches the buffer."""

    def __init__(self, base, n):
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": base.dtype.str,
                                         "data": (base.data.ptr, False), "version": 2,
                                         "strides": None}


def test_too_little_memory_is_a_runtime_error_and_leaves_out_alone():
    cp = pytest.importorskip("cupy")
    base = cp.arange(1024, dtype=cp.uint64)
    _, total = cp.cuda.runtime.memGetInfo()
    claims = _ClaimsMore(base, 2 * total // 8)  # temporary storage alone: twice the device
    with pytest.raises(RuntimeError, match="(?i)memory"):
        warpsort.sort(claims, out=claims)
    cp.testing.assert_array_equal(base, cp.arange(1024, dtype=cp.uint64))


def test_a_failed_allocation_does_not_fail_the_next_call():
    # the failed allocation's error must not be left for the next call's launch check to find
    cp = pytest.importorskip("cupy")
    base = cp.arange(1024, dtype=cp.uint64)
    _, total = cp.cuda.runtime.memGetInfo()
    claims = _ClaimsMore(base, 2 * total // 8)
    with pytest.raises(RuntimeError, match="(?i)memory"):
        warpsort.sort(claims, out=claims)
    x = cp.asarray([3, 1, 2], dtype=cp.uint32)
    cp.testing.assert_array_equal(warpsort.argsort(x), cp.asarray([1, 2, 0]))
    warpsort.argsort(x, out=x)
    cp.testing.assert_array_equal(x, cp.asarray([1, 2, 0], dtype=cp.uint32))
