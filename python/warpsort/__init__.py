"""warpsort: GPU Warp Sort (Ye et al., IPDPS 2010) for 1-D arrays.

    import cupy, warpsort
    x = cupy.random.randint(0, 2**31, 1 << 24, dtype=cupy.uint32)
    y = warpsort.sort(x)                      # a new CuPy array, on CuPy's current stream
    i = warpsort.argsort(x)                   # stable, int64 indices
    k, v = warpsort.sort_pairs(x, i)          # stable, by key; 4- or 8-byte values
    warpsort.sort(x, out=x, descending=True)  # in place

Arrays: any 1-D contiguous GPU array with __cuda_array_interface__ or DLPack (CuPy, PyTorch,
Numba, JAX), used without a copy; results come back as arrays of the caller's framework. NumPy
arrays (and PyTorch CPU tensors) are copied to the GPU, sorted and copied back. Key dtypes:
warpsort.key_types (uint32, int32, float32, uint64, int64, float64). Floats sort in a total
order: -NaN first, -inf .. +inf (-0.0 and +0.0 equal), +NaN last.

Work runs on the framework's current stream (PyTorch, CuPy; the legacy default stream
otherwise) or on `stream=` (an int handle, or a stream object of PyTorch, CuPy or Numba) and is
not waited for, except for NumPy inputs and times=True (which waits to read the step times).
Errors: TypeError (dtype), ValueError (shape, strides, lengths, read-only output),
RuntimeError (no CUDA device, CUDA errors, too little memory). On an error nothing is returned;
an `out=` array may then hold partial results.
"""

from . import _warpsort as _ext

__version__ = _ext.__version__
__all__ = ["sort", "argsort", "sort_pairs", "key_types", "value_types", "__version__"]

#: Key dtypes the library is built for (include/warpsort/key_types.hpp).
key_types = tuple(_ext.key_types())
#: Value words of pairs: values of any dtype of these widths are carried as these words.
value_types = tuple(_ext.value_types())

_STEP_NAMES = ("sort_chunks_ms", "merge_pairs_ms", "split_ms", "merge_groups_ms")
_KIND_PREFIX = {"u": "uint", "i": "int", "f": "float"}
_DLPACK_CODE_KIND = {0: "i", 1: "u", 2: "f"}
_DLPACK_CUDA, _DLPACK_CPU, _DLPACK_CUDA_HOST, _DLPACK_CUDA_MANAGED = 2, 1, 3, 13


class _View:
    """One array as the module needs it: pointer, length, dtype name, where it lives."""

    __slots__ = ("obj", "ptr", "n", "dtype", "itemsize", "host", "device", "framework",
                 "readonly", "producer_stream")

    def __init__(self, obj, ptr, n, dtype, itemsize, host, device, framework, readonly=False,
                 producer_stream=None):
        self.obj, self.ptr, self.n, self.dtype, self.itemsize = obj, ptr, n, dtype, itemsize
        self.host, self.device, self.framework = host, device, framework
        self.readonly, self.producer_stream = readonly, producer_stream


def _framework(x):
    return type(x).__module__.split(".")[0]


def _dtype_name(kind, itemsize):
    prefix = _KIND_PREFIX.get(kind)
    return f"{prefix}{8 * itemsize}" if prefix else f"{kind}{itemsize} (kind {kind!r})"


def _check_1d_contiguous(what, shape, strides_elems):
    if len(shape) != 1:
        raise ValueError(f"warpsort: {what} must be 1-D (got shape {tuple(shape)})")
    if strides_elems is not None and shape[0] > 1 and strides_elems[0] != 1:
        raise ValueError(f"warpsort: {what} must be contiguous (stride {strides_elems[0]} elements)")


def _view(x, what):
    fw = _framework(x)
    if fw == "torch":
        # read directly: torch's __cuda_array_interface__ refuses tensors that require grad
        # and some dtypes (uint32, uint64)
        shape, strides = tuple(x.shape), tuple(x.stride())
        _check_1d_contiguous(what, shape, strides)
        name = str(x.dtype).replace("torch.", "")
        host = not x.is_cuda
        if host and x.device.type != "cpu":
            raise TypeError(f"warpsort: {what} is on {x.device}, neither CUDA nor CPU")
        return _View(x, x.data_ptr(), shape[0], name, x.element_size(), host,
                     -1 if host else x.device.index, fw)
    if fw == "numpy" or (hasattr(x, "__array_interface__") and not hasattr(x, "__cuda_array_interface__")):
        ai = x.__array_interface__
        shape = tuple(ai["shape"])
        itemsize = int(ai["typestr"][2:])
        strides = None if ai.get("strides") is None else tuple(s // itemsize for s in ai["strides"])
        if ai.get("strides") is not None and len(shape) == 1 and shape[0] > 1 and ai["strides"][0] != itemsize:
            raise ValueError(f"warpsort: {what} must be contiguous (stride {ai['strides'][0]} bytes)")
        _check_1d_contiguous(what, shape, strides)
        if ai["typestr"][0] == ">":
            raise TypeError(f"warpsort: {what} is big-endian ({ai['typestr']})")
        ptr, readonly = ai["data"]
        return _View(x, ptr, shape[0], _dtype_name(ai["typestr"][1], itemsize), itemsize, True,
                     -1, "numpy", readonly)
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        shape = tuple(cai["shape"])
        itemsize = int(cai["typestr"][2:])
        if len(shape) != 1:
            raise ValueError(f"warpsort: {what} must be 1-D (got shape {shape})")
        st = cai.get("strides")
        if st is not None and shape[0] > 1 and st[0] != itemsize:
            raise ValueError(f"warpsort: {what} must be contiguous (stride {st[0]} bytes)")
        if cai["typestr"][0] == ">":
            raise TypeError(f"warpsort: {what} is big-endian ({cai['typestr']})")
        ptr, readonly = cai["data"]
        device = _ext.pointer_device(ptr) if ptr else _current_device(fw)
        if ptr and device < 0:
            raise ValueError(f"warpsort: {what}'s __cuda_array_interface__ points to host memory")
        return _View(x, ptr, shape[0], _dtype_name(cai["typestr"][1], itemsize), itemsize, False,
                     device, fw, readonly, cai.get("stream"))
    if hasattr(x, "__dlpack__"):
        ptr, shape, strides, code, bits, lanes, dev_type, dev_id = _ext.dlpack_info(x)
        _check_1d_contiguous(what, shape, strides)
        if lanes != 1 or code not in _DLPACK_CODE_KIND:
            raise TypeError(f"warpsort: {what} has an unsupported DLPack dtype (code {code}, {bits} bits, {lanes} lanes)")
        if dev_type not in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
            raise TypeError(f"warpsort: {what} is not a CUDA array (DLPack device type {dev_type}); "
                            "pass a NumPy array for host data")
        itemsize = bits // 8
        return _View(x, ptr, shape[0], _dtype_name(_DLPACK_CODE_KIND[code], itemsize), itemsize,
                     False, dev_id, fw)
    raise TypeError(f"warpsort: {what} ({type(x).__name__}) is not an array: it has neither "
                    "__cuda_array_interface__ nor __dlpack__ and is not a NumPy array")


def _current_device(fw):
    if fw == "cupy":
        import cupy
        return cupy.cuda.Device().id
    return -1


def _check_key(v, what):
    if v.dtype not in key_types:
        raise TypeError(f"warpsort: unsupported key dtype {v.dtype} of {what} "
                        f"(supported: {', '.join(key_types)})")


def _empty(like, n, dtype):
    """A new 1-D array of n elements of `dtype`, of the same framework and device as `like`."""
    fw = like.framework
    if like.host and fw != "torch":
        import numpy
        return numpy.empty(n, dtype=dtype)
    if fw == "torch":
        import torch
        return torch.empty(n, dtype=getattr(torch, dtype), device=like.obj.device)
    if fw == "cupy":
        import cupy
        with cupy.cuda.Device(like.device):
            return cupy.empty(n, dtype=dtype)
    if fw == "numba":
        from numba import cuda
        with cuda.gpus[like.device]:
            return cuda.device_array(n, dtype=dtype)
    # another framework: memory of our own, handed over by DLPack
    buf = _ext.device_array(n, dtype, like.device)
    ns = like.obj.__array_namespace__() if hasattr(like.obj, "__array_namespace__") else None
    if ns is not None and hasattr(ns, "from_dlpack"):
        return ns.from_dlpack(buf)
    raise TypeError(f"warpsort: cannot make a {fw} array for the result; pass out=")


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


def _stream_for(v, stream):
    """The stream to work on: stream=, else the framework's current stream (legacy default
    otherwise); made to wait for the stream a __cuda_array_interface__ producer named."""
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
    if v.producer_stream is not None and not v.host:
        _ext.stream_wait(s, int(v.producer_stream), v.device)
    return s


def _check_out(out, v, what, n, dtype):
    o = _view(out, what)
    if o.n != n:
        raise ValueError(f"warpsort: {what} has {o.n} elements, expected {n}")
    if o.dtype != dtype:
        raise TypeError(f"warpsort: {what} has dtype {o.dtype}, expected {dtype}")
    if o.host != v.host or (not o.host and o.device != v.device):
        raise ValueError(f"warpsort: {what} must be on the same device as the input")
    if o.readonly:
        raise ValueError(f"warpsort: {what} is read-only")
    return o


def _same_length(a, b, what):
    if a.n != b.n:
        raise ValueError(f"warpsort: {what} have different lengths ({a.n} and {b.n})")


def _times(t):
    d = dict(zip(_STEP_NAMES, t))
    d["total_ms"] = sum(t)
    return d


def _finish(result, t, times):
    return (result, _times(t)) if times else result


class _HostStaging:
    """NumPy inputs: device copies of host arrays, freed at the end (the host waits)."""

    def __init__(self):
        self.device = -1  # the current device
        self.buffers = []

    def upload(self, v):
        d = _ext.device_alloc(v.n * v.itemsize, self.device)
        self.buffers.append(d)
        _ext.copy(d, v.ptr, v.n * v.itemsize, 0, self.device)
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
    _ext.device_count()  # RuntimeError without a usable CUDA device
    v = _view(x, "x")
    _check_key(v, "x")
    o = _check_out(out, v, "out", v.n, v.dtype) if out is not None else None
    result = out if out is not None else _empty(v, v.n, v.dtype)
    o = o or _view(result, "out")
    if v.host:
        with _HostStaging() as h:
            d = h.upload(v)
            t = _ext.sort_keys(d, d, v.n, v.dtype, descending, 0, h.device, times)
            h.download(o.ptr, d, v.n * v.itemsize)
    else:
        s = _stream_for(v, stream)
        t = _ext.sort_keys(v.ptr, o.ptr, v.n, v.dtype, descending, s, v.device, times)
    return _finish(result, t, times)


def argsort(x, *, descending=False, out=None, stream=None, times=False, index_dtype="int64"):
    """Stable argsort: indices that sort x (equal keys keep their order), int64 like NumPy and
    PyTorch (or uint32: index_dtype="uint32", or an out= of either dtype). x is unchanged."""
    _ext.device_count()
    v = _view(x, "x")
    _check_key(v, "x")
    if out is not None:
        o = _view(out, "out")
        index_dtype = o.dtype
    if index_dtype not in ("int64", "uint32"):
        raise TypeError(f"warpsort.argsort: indices are int64 or uint32 (got {index_dtype})")
    if out is not None:
        o = _check_out(out, v, "out", v.n, index_dtype)
        result = out
    else:
        result = _empty(v, v.n, index_dtype)
        o = _view(result, "out")
    isz = 8 if index_dtype == "int64" else 4
    if v.host:
        with _HostStaging() as h:
            d = h.upload(v)
            di = h.scratch(v.n * isz)
            t = _ext.argsort(d, di, v.n, v.dtype, index_dtype, descending, 0, h.device, times)
            h.download(o.ptr, di, v.n * isz)
    else:
        s = _stream_for(v, stream)
        t = _ext.argsort(v.ptr, o.ptr, v.n, v.dtype, index_dtype, descending, s, v.device, times)
    return _finish(result, t, times)


def sort_pairs(keys, values, *, descending=False, out=None, stream=None, times=False):
    """(keys, values) sorted by key, stably; values of any 4- or 8-byte dtype. out=(keys_out,
    values_out) writes there (they may be the inputs)."""
    _ext.device_count()
    k = _view(keys, "keys")
    _check_key(k, "keys")
    val = _view(values, "values")
    _same_length(k, val, "keys and values")
    if val.host != k.host or (not k.host and val.device != k.device):
        raise ValueError("warpsort: keys and values must be on the same device")
    word = {4: "uint32", 8: "uint64"}.get(val.itemsize)
    if word not in value_types:
        raise TypeError(f"warpsort: values must have 4- or 8-byte elements (got {val.dtype})")
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError("warpsort: out= must be a (keys_out, values_out) pair")
        ko = _check_out(out[0], k, "out[0]", k.n, k.dtype)
        vo = _check_out(out[1], val, "out[1]", k.n, val.dtype)
        result = (out[0], out[1])
    else:
        result = (_empty(k, k.n, k.dtype), _empty(val, k.n, val.dtype))
        ko, vo = _view(result[0], "out[0]"), _view(result[1], "out[1]")
    if k.host:
        with _HostStaging() as h:
            dk, dv = h.upload(k), h.upload(val)
            t = _ext.sort_pairs(dk, dk, dv, dv, k.n, k.dtype, word, descending, 0, h.device, times)
            h.download(ko.ptr, dk, k.n * k.itemsize)
            h.download(vo.ptr, dv, k.n * val.itemsize)
    else:
        s = _stream_for(k, stream)
        t = _ext.sort_pairs(k.ptr, ko.ptr, val.ptr, vo.ptr, k.n, k.dtype, word, descending, s,
                            k.device, times)
    return _finish(result, t, times)
