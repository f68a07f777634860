"""warpsort: GPU Warp Sort (Ye et al., IPDPS 2010) for 1-D arrays.

    import cupy, warpsort
    x = cupy.random.randint(0, 2**31, 1 << 24, dtype=cupy.uint32)
    y = warpsort.sort(x)                      # a new CuPy array, on CuPy's current stream
    i = warpsort.argsort(x)                   # stable, int64 indices
    k, v = warpsort.sort_pairs(x, i)          # stable, by key; values of any 4- or 8-byte dtype
    warpsort.sort(x, out=x, descending=True)  # in place

Arrays: any 1-D contiguous GPU array of PyTorch, CuPy or Numba (read in place, no copy), of JAX
or any other framework that speaks DLPack (read in place; the result comes back through DLPack
as that framework's array), or NumPy arrays and PyTorch CPU tensors (copied to the GPU, sorted
and copied back). Key dtypes: warpsort.key_types (uint32, int32, float32, uint64, int64,
float64). Floats sort in a total order: -NaN first, -inf .. +inf (-0.0 and +0.0 equal), +NaN
last. Values of sort_pairs: any dtype of 4 or 8 bytes (complex64, datetime64, structured NumPy
dtypes ...), carried bit for bit; object arrays are refused.

Work runs on the framework's current stream (PyTorch, CuPy; the legacy default stream
otherwise) or on `stream=` (an int handle, or a stream object of PyTorch, CuPy or Numba) and is
not waited for, except for NumPy inputs, times=True (which waits to read the step times) and
arrays of DLPack-only frameworks such as JAX (which has no stream warpsort could order work on:
the call waits for the sort, so its result is ready on every stream; a JAX input is read once
the JAX computation writing it is done, through DLPack's stream handshake).

Sharing memory: an `out` may be exactly its own input (the sort is then in place; for argsort,
an int64/uint32 `out` that is the keys array itself); any other overlap between keys, values and
the outputs (keys and values one array, an output over the other input, views of one buffer at
different offsets) is refused with ValueError before any work.

Errors: TypeError (a dtype the call cannot take, named), ValueError (shape, strides, lengths,
devices, shared memory, a read-only or immutable output), RuntimeError (no CUDA device, CUDA
errors, too little device memory). A refused call writes nothing.
"""

from . import _warpsort as _ext

__version__ = _ext.__version__
__all__ = ["sort", "argsort", "sort_pairs", "key_types", "value_types", "__version__"]

#: Key dtypes the library is built for (include/warpsort/key_types.hpp).
key_types = tuple(_ext.key_types())
#: Value words of pairs: values of any dtype of these widths are carried as these words.
value_types = tuple(_ext.value_types())

_STEP_NAMES = ("sort_chunks_ms", "merge_sequences_ms", "split_ms", "merge_groups_ms")
_KIND_PREFIX = {"u": "uint", "i": "int", "f": "float"}
# DLPack dtype codes (the DLPack C API): int, uint, float, opaque, bfloat, complex, bool
_DLPACK_NAMES = {0: "int", 1: "uint", 2: "float", 3: "opaque", 4: "bfloat", 5: "complex", 6: "bool"}
_DLPACK_CODE_OF_KIND = {"i": 0, "u": 1, "f": 2}
_DLPACK_CPU, _DLPACK_CUDA, _DLPACK_CUDA_HOST, _DLPACK_CUDA_MANAGED = 1, 2, 3, 13


class _View:
    """One array as the module needs it: where its bytes are, what they are, who made them."""

    __slots__ = ("obj", "ptr", "n", "itemsize", "key_name", "dtype_name", "native", "dl_dtype",
                 "host", "device", "framework", "readonly", "lazy", "producer_stream", "keep")

    def __init__(self, obj, ptr, n, itemsize, key_name, dtype_name, native, host, device,
                 framework, readonly=False, producer_stream=None, dl_dtype=None, keep=None,
                 lazy=None):
        self.obj, self.ptr, self.n, self.itemsize = obj, ptr, n, itemsize
        self.key_name = key_name      # one of key_types' spellings, or None for other dtypes
        self.dtype_name = dtype_name  # the framework's own name of the dtype, for messages
        self.native = native          # the framework's dtype object (results are made of it)
        self.dl_dtype = dl_dtype      # (code, bits) for arrays that came by DLPack
        self.host, self.device, self.framework = host, device, framework
        self.readonly, self.lazy, self.producer_stream = readonly, lazy, producer_stream
        self.keep = keep              # what must live while the pointer is used (a capsule)

    @property
    def nbytes(self):
        return self.n * self.itemsize

    @property
    def dlpack_only(self):
        return self.dl_dtype is not None


def _framework(x):
    name = type(x).__module__.split(".")[0]
    return "jax" if name in ("jax", "jaxlib") else name


def _key_name(kind, itemsize):
    prefix = _KIND_PREFIX.get(kind)
    return f"{prefix}{8 * itemsize}" if prefix else None


def _check_1d_contiguous(what, shape, strides_elems):
    if len(shape) != 1:
        raise ValueError(f"warpsort: {what} must be 1-D (got shape {tuple(shape)})")
    if strides_elems is not None and shape[0] > 1 and strides_elems[0] != 1:
        raise ValueError(f"warpsort: {what} must be contiguous (stride {strides_elems[0]} elements)")


def _numpy_dtype(typestr, what):
    import numpy
    try:
        return numpy.dtype(typestr)
    except TypeError as e:
        raise TypeError(f"warpsort: {what} has an unknown dtype {typestr!r}") from e


def _from_numpy_dtype(dt):
    """(itemsize, key name or None, display name) of a NumPy dtype; keys need native order."""
    key = _key_name(dt.kind, dt.itemsize) if dt.isnative and dt.fields is None else None
    return dt.itemsize, key, str(dt)


def _torch_view(x, what, role):
    shape, strides = tuple(x.shape), tuple(x.stride())
    _check_1d_contiguous(what, shape, strides)
    lazy = "conjugate" if x.is_conj() else "negative" if x.is_neg() else None
    if lazy and role == "in":
        # a view whose values are conj(x) or -x of its memory: read the values it stands for
        x = x.resolve_conj().resolve_neg()
        lazy = None
    host = not x.is_cuda
    if host and x.device.type != "cpu":
        raise TypeError(f"warpsort: {what} is on {x.device}, neither CUDA nor CPU")
    name = str(x.dtype).replace("torch.", "")
    dt = x.dtype
    kind = ("c" if dt.is_complex else "f" if dt.is_floating_point else
            "b" if name == "bool" else "u" if name.startswith("uint") else "i")
    key = _key_name(kind, x.element_size()) if name in key_types else None
    return _View(x, x.data_ptr(), shape[0], x.element_size(), key, name, dt, host,
                 -1 if host else x.device.index, "torch", lazy=lazy)


def _numpy_view(x, what):
    import numpy
    a = x if isinstance(x, numpy.ndarray) else numpy.asarray(x)
    if a.dtype.hasobject:
        raise TypeError(f"warpsort: {what} has dtype {a.dtype}, which holds Python objects")
    _check_1d_contiguous(what, a.shape, None)
    if a.ndim == 1 and a.shape[0] > 1 and a.strides[0] != a.itemsize:
        raise ValueError(f"warpsort: {what} must be contiguous (stride {a.strides[0]} bytes)")
    itemsize, key, name = _from_numpy_dtype(a.dtype)
    ptr = a.__array_interface__["data"][0]
    return _View(a, ptr, a.shape[0], itemsize, key, name, a.dtype, True, -1, "numpy",
                 readonly=not a.flags.writeable)


def _cai_view(x, what, fw):
    cai = x.__cuda_array_interface__
    shape = tuple(cai["shape"])
    dt = _numpy_dtype(cai["typestr"], what)
    if dt.hasobject:
        raise TypeError(f"warpsort: {what} has dtype {dt}, which holds Python objects")
    if len(shape) != 1:
        raise ValueError(f"warpsort: {what} must be 1-D (got shape {shape})")
    st = cai.get("strides")
    if st is not None and shape[0] > 1 and st[0] != dt.itemsize:
        raise ValueError(f"warpsort: {what} must be contiguous (stride {st[0]} bytes)")
    ptr, readonly = cai["data"]
    device = _ext.pointer_device(ptr) if ptr else _current_device(fw)
    if ptr and device < 0:
        raise ValueError(f"warpsort: {what}'s __cuda_array_interface__ points to host memory")
    itemsize, key, name = _from_numpy_dtype(dt)
    native = getattr(x, "dtype", dt)
    return _View(x, ptr, shape[0], itemsize, key, name, native, False, device, fw, readonly,
                 cai.get("stream"))


def _dlpack_view(x, what, fw, stream):
    dev_type, dev_id = x.__dlpack_device__()
    if dev_type not in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
        raise TypeError(f"warpsort: {what} is not a CUDA array (DLPack device type {dev_type}); "
                        "pass a NumPy array for host data")
    # the producer makes this stream wait for the work that writes x (1: the legacy default)
    consumer = _stream_handle(stream) if stream is not None else 0
    consumer = consumer or 1
    try:
        capsule = x.__dlpack__(stream=consumer, max_version=(1, 0))
    except TypeError:  # a producer older than DLPack 1.0
        capsule = x.__dlpack__(stream=consumer)
    ptr, shape, strides, code, bits, lanes, _, _, readonly = _ext.dlpack_info(capsule)
    _check_1d_contiguous(what, shape, strides)
    if lanes != 1 or bits % 8:
        raise TypeError(f"warpsort: {what} has an unsupported DLPack dtype (code {code}, "
                        f"{bits} bits, {lanes} lanes)")
    name = f"{_DLPACK_NAMES.get(code, f'code {code} ')}{bits}"
    kind = {0: "i", 1: "u", 2: "f"}.get(code)
    key = _key_name(kind, bits // 8) if kind else None
    # JAX arrays are immutable whatever the capsule says
    readonly = readonly or fw == "jax"
    return _View(x, ptr, shape[0], bits // 8, key, name, None, False, dev_id, fw, readonly,
                 dl_dtype=(code, bits), keep=capsule)


def _view(x, what, role="in", stream=None):
    """The array x as a _View; role "out" for arrays written to (lazy torch views refused)."""
    fw = _framework(x)
    if fw == "torch":
        return _torch_view(x, what, role)
    if fw == "numpy" or (hasattr(x, "__array_interface__")
                         and not hasattr(x, "__cuda_array_interface__")):
        return _numpy_view(x, what)
    if fw != "jax" and hasattr(x, "__cuda_array_interface__"):
        return _cai_view(x, what, fw)
    if hasattr(x, "__dlpack__"):
        return _dlpack_view(x, what, fw, stream)
    if hasattr(x, "__cuda_array_interface__"):
        return _cai_view(x, what, fw)
    raise TypeError(f"warpsort: {what} ({type(x).__name__}) is not an array: it has neither "
                    "__cuda_array_interface__ nor __dlpack__ and is not a NumPy array")


def _current_device(fw):
    if fw == "cupy":
        import cupy
        return cupy.cuda.Device().id
    return -1


def _check_key(v, what):
    if v.key_name not in key_types:
        raise TypeError(f"warpsort: unsupported key dtype {v.dtype_name} of {what} "
                        f"(supported: {', '.join(key_types)})")


def _value_word(v, what):
    word = {4: "uint32", 8: "uint64"}.get(v.itemsize)
    if word not in value_types:
        raise TypeError(f"warpsort: values must have 4- or 8-byte elements ({what} has dtype "
                        f"{v.dtype_name}, {v.itemsize} bytes)")
    return word


class _Result:
    """A new 1-D array for a result, of `like`'s framework and device: made before the sort,
    which writes at .ptr; .array() is what the caller gets, once the sort is done."""

    def __init__(self, like, n, dtype_name=None):
        self.like, self.exported = like, None
        fw = like.framework
        if like.dlpack_only:
            import numpy
            code, bits = like.dl_dtype
            if dtype_name is not None:
                dt = numpy.dtype(dtype_name)
                code, bits = _DLPACK_CODE_OF_KIND[dt.kind], 8 * dt.itemsize
            self.exported = _ext.DeviceArray(n, code, bits, like.device)
            self.ptr = self.exported.ptr
            return
        if fw == "torch":
            import torch
            dt = getattr(torch, dtype_name) if dtype_name else like.native
            self.obj = torch.empty(n, dtype=dt, device=like.obj.device)
            self.ptr = self.obj.data_ptr()
            return
        import numpy
        dt = numpy.dtype(dtype_name) if dtype_name else like.native
        if like.host:
            self.obj = numpy.empty(n, dtype=dt)
        elif fw == "cupy":
            import cupy
            with cupy.cuda.Device(like.device):
                self.obj = cupy.empty(n, dtype=dt)
        elif fw == "numba":
            from numba import cuda
            with cuda.gpus[like.device]:
                self.obj = cuda.device_array(n, dtype=dt)
        else:
            raise TypeError(f"warpsort: cannot make a {fw} array for the result; pass out=")
        self.ptr = _view(self.obj, "result").ptr

    def array(self):
        if self.exported is None:
            return self.obj
        obj = self.like.obj
        ns = obj.__array_namespace__() if hasattr(obj, "__array_namespace__") else None
        if self.like.framework == "jax":
            import jax.numpy
            ns = jax.numpy
        if ns is None or not hasattr(ns, "from_dlpack"):
            raise TypeError(f"warpsort: cannot make a {self.like.framework} array for the "
                            "result (no __array_namespace__().from_dlpack); pass out=")
        return ns.from_dlpack(self.exported)


def _stream_handle(stream):
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr"):  # torch.cuda.Stream, cupy.cuda.Stream
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    handle = getattr(stream, "handle", None)  # numba
    if handle is not None:
        return int(getattr(handle, "value", handle) or 0)
    raise TypeError(f"warpsort: stream= must be an int handle or a CUDA stream object (got {type(stream).__name__})")


def _stream_for(views, stream):
    """The stream to work on: stream=, else the first array's framework's current stream (the
    legacy default otherwise); made to wait for every stream a __cuda_array_interface__
    producer named."""
    v = views[0]
    if stream is not None:
        s = _stream_handle(stream)
    elif v.framework == "torch" and not v.host:
        import torch
        s = torch.cuda.current_stream(v.device).cuda_stream
    elif v.framework == "cupy":
        import cupy
        with cupy.cuda.Device(v.device):
            s = cupy.cuda.get_current_stream().ptr
    else:
        s = 0
    for w in views:
        if w.producer_stream is not None and not w.host:
            _ext.stream_wait(s, int(w.producer_stream), w.device)
    return s


def _check_out(o, v, what, n, dtype_name):
    """The output view o of n elements of dtype_name, on v's device, writable and resolved."""
    if o.n != n:
        raise ValueError(f"warpsort: {what} has {o.n} elements, expected {n}")
    if o.dtype_name != dtype_name:
        raise TypeError(f"warpsort: {what} has dtype {o.dtype_name}, expected {dtype_name}")
    if o.host != v.host or (not o.host and o.device != v.device):
        raise ValueError(f"warpsort: {what} must be on the same device as the input")
    if o.framework == "jax":
        raise ValueError(f"warpsort: {what} is a JAX array, which is immutable; use the "
                         "returned array instead of out=")
    if o.readonly:
        raise ValueError(f"warpsort: {what} is read-only")
    if o.lazy:
        raise ValueError(f"warpsort: {what} is a PyTorch {o.lazy} view (its memory holds other "
                         "values than it shows); pass a resolved tensor "
                         "(resolve_conj() / resolve_neg())")
    return o


def _refuse_overlaps(named, in_place=()):
    """ValueError, before any work, for two of `named` ((name, view) pairs) that share memory,
    unless the pair is listed in `in_place` (index pairs) and the two are the same bytes."""
    for i in range(len(named)):
        for j in range(i + 1, len(named)):
            (na, a), (nb, b) = named[i], named[j]
            if a.host != b.host or (not a.host and a.device != b.device):
                continue
            if not (a.nbytes and b.nbytes and a.ptr < b.ptr + b.nbytes and b.ptr < a.ptr + a.nbytes):
                continue
            if ((i, j) in in_place or (j, i) in in_place) and a.ptr == b.ptr and a.nbytes == b.nbytes:
                continue
            raise ValueError(f"warpsort: {na} and {nb} share memory; an output may only be "
                             "exactly its own input (in place)")


def _same_length(a, b, what):
    if a.n != b.n:
        raise ValueError(f"warpsort: {what} have different lengths ({a.n} and {b.n})")


def _same_place(a, b, what):
    if a.host != b.host or (not a.host and a.device != b.device):
        raise ValueError(f"warpsort: {what} must be on the same device")


def _times(t):
    d = dict(zip(_STEP_NAMES, t))
    d["total_ms"] = sum(t)
    return d


def _finish(result, t, times):
    return (result, _times(t)) if times else result


def _wait_if_needed(views, s):
    """DLPack-only frameworks (JAX) cannot order work after ours: the sort must be done before
    their arrays are handed back or their inputs may be reused."""
    v = views[0]
    if not v.host and any(w.dlpack_only for w in views):
        _ext.synchronize(s, v.device)


class _HostStaging:
    """NumPy inputs: device copies of host arrays, freed at the end (the host waits)."""

    def __init__(self):
        self.device = -1  # the current device
        self.buffers = []

    def upload(self, v):
        d = _ext.device_alloc(v.nbytes, self.device)
        self.buffers.append(d)
        _ext.copy(d, v.ptr, v.nbytes, 0, self.device)
        return d

    def scratch(self, nbytes):
        d = _ext.device_alloc(nbytes, self.device)
        self.buffers.append(d)
        return d

    def download(self, host_ptr, d, nbytes):
        _ext.copy(host_ptr, d, nbytes, 0, self.device)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            _ext.synchronize(0, self.device)
        finally:
            for d in self.buffers:
                _ext.device_free(d, self.device)
        return False


def sort(x, *, descending=False, out=None, stream=None, times=False):
    """Sorted copy of x (or x sorted into out=, which may be x itself); with times=True also a
    dict of the four step times in ms."""
    v = _view(x, "x", stream=stream)
    _check_key(v, "x")
    o = None
    if out is not None:
        o = _check_out(_view(out, "out", role="out", stream=stream), v, "out", v.n, v.dtype_name)
        _refuse_overlaps([("x", v), ("out", o)], in_place={(0, 1)})
    _ext.device_count()  # RuntimeError without a usable CUDA device, after the argument checks
    result = _Result(v, v.n) if o is None else None
    out_ptr = o.ptr if o is not None else result.ptr
    if v.host:
        with _HostStaging() as h:
            d = h.upload(v)
            t = _ext.sort_keys(d, d, v.n, v.key_name, descending, 0, h.device, times)
            h.download(out_ptr, d, v.nbytes)
    else:
        s = _stream_for([v] + ([o] if o else []), stream)
        t = _ext.sort_keys(v.ptr, out_ptr, v.n, v.key_name, descending, s, v.device, times)
        _wait_if_needed([v] + ([o] if o else []), s)
    return _finish(out if o is not None else result.array(), t, times)


def argsort(x, *, descending=False, out=None, stream=None, times=False, index_dtype="int64"):
    """Stable argsort: indices that sort x (equal keys keep their order), int64 like NumPy and
    PyTorch (or uint32: index_dtype="uint32", or an out= of either dtype; out may be x itself
    when x has that dtype). x is otherwise unchanged."""
    v = _view(x, "x", stream=stream)
    _check_key(v, "x")
    o = None
    if out is not None:
        o = _view(out, "out", role="out", stream=stream)
        index_dtype = o.dtype_name
    if index_dtype not in ("int64", "uint32"):
        raise TypeError(f"warpsort.argsort: indices are int64 or uint32 (got {index_dtype})")
    if o is not None:
        _check_out(o, v, "out", v.n, index_dtype)
        _refuse_overlaps([("x", v), ("out", o)], in_place={(0, 1)})
    _ext.device_count()
    result = _Result(v, v.n, index_dtype) if o is None else None
    out_ptr = o.ptr if o is not None else result.ptr
    isz = 8 if index_dtype == "int64" else 4
    if v.host:
        with _HostStaging() as h:
            d = h.upload(v)
            di = h.scratch(v.n * isz)
            t = _ext.argsort(d, di, v.n, v.key_name, index_dtype, descending, 0, h.device, times)
            h.download(out_ptr, di, v.n * isz)
    else:
        s = _stream_for([v] + ([o] if o else []), stream)
        t = _ext.argsort(v.ptr, out_ptr, v.n, v.key_name, index_dtype, descending, s, v.device,
                         times)
        _wait_if_needed([v] + ([o] if o else []), s)
    return _finish(out if o is not None else result.array(), t, times)


def sort_pairs(keys, values, *, descending=False, out=None, stream=None, times=False):
    """(keys, values) sorted by key, stably; values of any 4- or 8-byte dtype, carried bit for
    bit. out=(keys_out, values_out) writes there (each may be exactly its own input)."""
    k = _view(keys, "keys", stream=stream)
    _check_key(k, "keys")
    val = _view(values, "values", stream=stream)
    word = _value_word(val, "values")
    _same_length(k, val, "keys and values")
    _same_place(k, val, "keys and values")
    named = [("keys", k), ("values", val)]
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError("warpsort: out= must be a (keys_out, values_out) pair")
        ko = _check_out(_view(out[0], "out[0]", role="out", stream=stream), k, "out[0]", k.n,
                        k.dtype_name)
        vo = _check_out(_view(out[1], "out[1]", role="out", stream=stream), val, "out[1]", k.n,
                        val.dtype_name)
        named += [("out[0]", ko), ("out[1]", vo)]
    _refuse_overlaps(named, in_place={(0, 2), (1, 3)})
    _ext.device_count()
    if out is None:
        rk, rv = _Result(k, k.n), _Result(val, k.n)
        ko_ptr, vo_ptr = rk.ptr, rv.ptr
    else:
        ko_ptr, vo_ptr = ko.ptr, vo.ptr
    views = [w for _, w in named]
    if k.host:
        with _HostStaging() as h:
            dk, dv = h.upload(k), h.upload(val)
            t = _ext.sort_pairs(dk, dk, dv, dv, k.n, k.key_name, word, descending, 0, h.device,
                                times)
            h.download(ko_ptr, dk, k.nbytes)
            h.download(vo_ptr, dv, val.nbytes)
    else:
        s = _stream_for(views, stream)
        t = _ext.sort_pairs(k.ptr, ko_ptr, val.ptr, vo_ptr, k.n, k.key_name, word, descending,
                            s, k.device, times)
        _wait_if_needed(views, s)
    result = (out[0], out[1]) if out is not None else (rk.array(), rv.array())
    return _finish(result, t, times)
