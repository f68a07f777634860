# GPU tests of what users of each framework meet beyond the plain sort: outputs that share memory
# with inputs (in place exactly, every other overlap refused with nothing written), JAX arrays
# in and out, PyTorch's lazy conjugate and negative views, values of any 4- or 8-byte dtype
# carried bit for bit without out=, and every unsupported dtype a TypeError naming it.
import numpy as np
import pytest

import warpsort

pytestmark = pytest.mark.gpu


def stable_perm(keys, descending=False):
    # integer keys here: NumPy's stable argsort is the reference
    k = keys.astype(np.int64)
    return np.argsort(-k if descending else k, kind="stable")


def keys_with_ties(n, dtype, seed=1):
    return np.random.default_rng(seed).integers(0, 50, n).astype(dtype)


# ---- out= aliasing: in place exactly is right, anything else is refused and writes nothing ----

@pytest.mark.parametrize("dtype", ["uint32", "int64"])
@pytest.mark.parametrize("n", [0, 1, 129, 4099, 200_003])
def test_argsort_into_its_own_keys_cupy(dtype, n):
    cp = pytest.importorskip("cupy")
    keys = keys_with_ties(n, dtype)
    x = cp.asarray(keys)
    r = warpsort.argsort(x, out=x)
    assert r is x
    np.testing.assert_array_equal(cp.asnumpy(x).astype(np.int64), stable_perm(keys))


@pytest.mark.parametrize("dtype", ["int64", "uint32"])
def test_argsort_into_its_own_keys_torch_and_numpy(dtype):
    torch = pytest.importorskip("torch")
    keys = keys_with_ties(70_001, dtype, seed=2)
    t = torch.from_numpy(keys.copy()).cuda()
    warpsort.argsort(t, out=t, descending=True)
    np.testing.assert_array_equal(t.cpu().numpy().astype(np.int64), stable_perm(keys, True))
    h = keys.copy()
    warpsort.argsort(h, out=h)
    np.testing.assert_array_equal(h.astype(np.int64), stable_perm(keys))


@pytest.mark.parametrize("n", [1, 4099, 150_001])
def test_pairs_outputs_swapped_over_inputs_refused(n):
    cp = pytest.importorskip("cupy")
    k = cp.asarray(keys_with_ties(n, "uint32", seed=3))
    v = cp.arange(n, dtype=cp.uint32)
    k0, v0 = k.copy(), v.copy()
    with pytest.raises(ValueError, match="share memory"):
        warpsort.sort_pairs(k, v, out=(v, k))
    cp.cuda.Device().synchronize()
    cp.testing.assert_array_equal(k, k0)
    cp.testing.assert_array_equal(v, v0)


def test_pairs_in_place_is_the_stable_sort():
    cp = pytest.importorskip("cupy")
    keys = keys_with_ties(300_007, "uint32", seed=4)
    values = np.arange(keys.size, dtype=np.uint64) * 7
    k, v = cp.asarray(keys), cp.asarray(values)
    rk, rv = warpsort.sort_pairs(k, v, out=(k, v))
    assert rk is k and rv is v
    perm = stable_perm(keys)
    np.testing.assert_array_equal(cp.asnumpy(k), keys[perm])
    np.testing.assert_array_equal(cp.asnumpy(v), values[perm])


def test_views_of_one_buffer_refused_on_every_framework():
    cp = pytest.importorskip("cupy")
    torch = pytest.importorskip("torch")
    for lib, base in (("cupy", cp.arange(4000, dtype=cp.uint32)[::-1].copy()),
                      ("torch", torch.arange(4000, dtype=torch.int32, device="cuda").flip(0).contiguous())):
        before = base.clone() if lib == "torch" else base.copy()
        a, b, c = base[0:1000], base[500:1500], base[2000:3000]
        cases = [
            lambda: warpsort.sort(a, out=b),
            lambda: warpsort.sort_pairs(a, a),
            lambda: warpsort.sort_pairs(a, b),
            lambda: warpsort.sort_pairs(a, c, out=(c, a)),
            lambda: warpsort.sort_pairs(a, c, out=(a, base[2001:3001])),
            lambda: warpsort.sort_pairs(c, a, out=(base[1999:2999], a)),
        ]
        for call in cases:
            with pytest.raises(ValueError, match="share memory"):
                call()
        if lib == "torch":
            torch.cuda.synchronize()
            assert torch.equal(base, before)
        else:
            cp.cuda.Device().synchronize()
            cp.testing.assert_array_equal(base, before)


# ---- JAX: arrays in, JAX arrays out, inputs read once JAX has written them ----

@pytest.fixture(scope="module")
def jax_x64():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX sees no GPU")
    return jax


@pytest.mark.parametrize("dtype", ["uint32", "int32", "float32", "uint64", "int64", "float64"])
def test_jax_sort_argsort_pairs(jax_x64, dtype):
    jnp = jax_x64.numpy
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 1000, 100_003).astype(dtype)
    x = jnp.asarray(keys)
    y = warpsort.sort(x, descending=True)
    assert isinstance(y, jax_x64.Array) and y.dtype == x.dtype and y.shape == x.shape
    np.testing.assert_array_equal(np.asarray(y), np.sort(keys)[::-1])
    i = warpsort.argsort(x)
    assert isinstance(i, jax_x64.Array) and i.dtype == jnp.int64
    np.testing.assert_array_equal(np.asarray(i), np.argsort(keys, kind="stable"))
    vals = (rng.standard_normal(keys.size) + 1j * rng.standard_normal(keys.size)).astype(np.complex64)
    k, v = warpsort.sort_pairs(x, jnp.asarray(vals))
    perm = np.argsort(keys, kind="stable")
    assert isinstance(v, jax_x64.Array) and v.dtype == jnp.complex64
    np.testing.assert_array_equal(np.asarray(k), keys[perm])
    np.testing.assert_array_equal(np.asarray(v), vals[perm])
    np.testing.assert_array_equal(np.asarray(x), keys)  # JAX arrays are immutable: x is as it was


def test_jax_input_still_being_written(jax_x64):
    jax, jnp = jax_x64, jax_x64.numpy

    @jax.jit
    def scramble(seed):
        # a long computation: sorting its output right after dispatch races it unless warpsort
        # waits for JAX's stream
        x = jnp.arange(1 << 24, dtype=jnp.uint32) * jnp.uint32(2654435761) + seed
        def body(_, x):
            return (x ^ (x >> 13)) * jnp.uint32(1664525) + jnp.uint32(1013904223)
        return jax.lax.fori_loop(0, 200, body, x)

    for seed in range(3):
        x = scramble(jnp.uint32(seed))  # dispatched, not waited for
        y = warpsort.sort(x)
        np.testing.assert_array_equal(np.asarray(y), np.sort(np.asarray(x)))


def test_jax_out_refused(jax_x64):
    jnp = jax_x64.numpy
    x = jnp.arange(100, dtype=jnp.uint32)[::-1]
    with pytest.raises(ValueError, match="immutable"):
        warpsort.sort(x, out=x)
    np.testing.assert_array_equal(np.asarray(x), np.arange(100)[::-1])


# ---- PyTorch lazy views: honoured as inputs, refused as outputs ----

def test_torch_conj_and_neg_views():
    torch = pytest.importorskip("torch")
    n = 50_001
    keys = torch.from_numpy(keys_with_ties(n, "int64", seed=6)).cuda()
    z = torch.randn(n, dtype=torch.complex64, device="cuda")
    perm = torch.from_numpy(stable_perm(keys.cpu().numpy())).cuda()
    k, v = warpsort.sort_pairs(keys, z.conj())
    assert torch.equal(v, z.conj().resolve_conj()[perm])
    f = torch.randn(n, dtype=torch.float64, device="cuda")
    neg = torch._neg_view(f)
    assert neg.is_neg()
    _, v = warpsort.sort_pairs(keys, neg)
    assert torch.equal(v, (-f)[perm])
    y = warpsort.sort(neg)  # a negative view as keys
    assert torch.equal(y, torch.sort(-f).values)
    out_v = torch.empty(n, dtype=torch.complex64, device="cuda").conj()
    with pytest.raises(ValueError, match="conjugate view"):
        warpsort.sort_pairs(keys, z, out=(torch.empty_like(keys), out_v))


# ---- values of any 4- or 8-byte dtype, without out= ----

STRUCT8 = np.dtype([("a", "<i4"), ("b", "<f4")])


@pytest.mark.parametrize("vdtype", ["complex64", "datetime64[ns]", "timedelta64[us]", STRUCT8,
                                    "<f2,<f2", "S8", "U1", "V4"],
                         ids=str)
def test_numpy_values_carried_bit_for_bit(vdtype):
    n = 20_011
    keys = keys_with_ties(n, "float64", seed=7)
    raw = np.random.default_rng(8).integers(0, 2**63, n, dtype=np.uint64)
    dt = np.dtype(vdtype)
    values = raw.view(np.uint8).reshape(n, 8)[:, : dt.itemsize].copy().view(dt).reshape(n)
    k, v = warpsort.sort_pairs(keys, values)
    assert v.dtype == values.dtype and v.shape == values.shape
    perm = stable_perm(keys)
    assert v.tobytes() == values[perm].tobytes()


@pytest.mark.parametrize("vdtype", ["complex64", "float64", "int32"])
def test_cupy_and_torch_values_of_other_dtypes(vdtype):
    cp = pytest.importorskip("cupy")
    torch = pytest.importorskip("torch")
    n = 30_011
    keys = keys_with_ties(n, "uint64", seed=9)
    values = (np.random.default_rng(10).standard_normal(2 * n).view(np.complex128)
              .astype(vdtype) if vdtype == "complex64"
              else np.random.default_rng(10).integers(-1000, 1000, n).astype(vdtype))
    perm = stable_perm(keys)
    k, v = warpsort.sort_pairs(cp.asarray(keys), cp.asarray(values))
    assert v.dtype == values.dtype
    assert cp.asnumpy(v).tobytes() == values[perm].tobytes()
    tk, tv = warpsort.sort_pairs(torch.from_numpy(keys).cuda(), torch.from_numpy(values).cuda())
    assert tv.dtype == getattr(torch, vdtype)
    assert tv.cpu().numpy().tobytes() == values[perm].tobytes()


# ---- unsupported dtypes of GPU arrays: TypeError naming the dtype, nothing written ----

def test_gpu_unsupported_dtypes_named():
    cp = pytest.importorskip("cupy")
    torch = pytest.importorskip("torch")
    for x in (cp.zeros(10, dtype=cp.complex64), cp.zeros(10, dtype=cp.float16),
              torch.zeros(10, dtype=torch.bfloat16, device="cuda"),
              torch.zeros(10, dtype=torch.complex128, device="cuda"),
              torch.zeros(10, dtype=torch.bool, device="cuda")):
        name = str(x.dtype).replace("torch.", "")
        for call in (warpsort.sort, warpsort.argsort):
            with pytest.raises(TypeError, match=name):
                call(x)
    k = cp.arange(10, dtype=cp.uint32)
    with pytest.raises(TypeError, match="complex128"):
        warpsort.sort_pairs(k, cp.zeros(10, dtype=cp.complex128))


def test_library_refuses_overlapping_pairs_itself():
    # the C++ rule under the module (warpsort::sort_pairs), called directly with raw pointers
    cp = pytest.importorskip("cupy")
    k = cp.arange(4099, dtype=cp.uint32)[::-1].copy()
    v = cp.arange(4099, dtype=cp.uint32)
    k0, v0 = k.copy(), v.copy()
    dev = cp.cuda.Device().id
    with pytest.raises(ValueError, match="overlap"):
        warpsort._ext.sort_pairs(k.data.ptr, v.data.ptr, v.data.ptr, k.data.ptr, k.size, "uint32",
                                 "uint32", False, 0, dev, False)
    with pytest.raises(ValueError, match="overlap"):
        warpsort._ext.sort_keys(k.data.ptr, k.data.ptr + 4, k.size - 1, "uint32", False, 0, dev,
                                False)
    cp.cuda.Device().synchronize()
    cp.testing.assert_array_equal(k, k0)
    cp.testing.assert_array_equal(v, v0)
