#!/usr/bin/env bash
# One H200: the Python module built as a user builds it, its pytest with CuPy, PyTorch and JAX,
# and one 2^26-key sort through it (the rounds whose small sets merge their samples) against CuPy.
set -u
R=/tmp/res; rm -rf $R; mkdir -p $R
fin() { cd /tmp && tar -czf $OUT/res.tgz res; cd - >/dev/null; }
trap fin EXIT
export XLA_PYTHON_CLIENT_PREALLOCATE=false
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
CMAKE_BUILD_PARALLEL_LEVEL=16 timeout 220 python3 -m pip install --no-build-isolation --no-deps --target /tmp/site . > $R/pip.log 2>&1; el "pip rc=$?"
PYTHONPATH=/tmp/site timeout 150 python3 -m pytest -q python/tests > $R/pytest.log 2>&1; el "pytest rc=$?"
tail -3 $R/pytest.log
PYTHONPATH=/tmp/site timeout 60 python3 - > $R/large.log 2>&1 <<'PY'
import cupy as cp, warpsort
for dt in (cp.uint32, cp.int32, cp.float32):
    x = cp.random.default_rng(7).integers(0, 2**31, size=1 << 26).astype(dt)
    if dt == cp.float32: x = cp.random.default_rng(7).standard_normal(1 << 26, dtype=cp.float32)
    y = warpsort.sort(x)
    print(dt.__name__, 'equal to cupy.sort:', bool((y == cp.sort(x)).all()))
PY
el "large rc=$?"; cat $R/large.log
