#!/usr/bin/env python3
"""Whether two builds run the same device code: every kernel's SASS in each binary of OLD_DIR
against the binary of the same name in NEW_DIR, compared as a multiset of instruction bodies
(addresses and encodings dropped, kernel names ignored, so a rename that leaves the code alone
compares equal). For refactors that must not change what runs on the GPU; it needs no GPU, only
cuobjdump and nvdisasm (the CUDA toolkit, or `pip install nvidia-cuda-cuobjdump
nvidia-cuda-nvdisasm`). Exits 1 if any kernel body differs.

usage: compare_sass.py OLD_DIR NEW_DIR   (e.g. the bin/ of two scripts/pack_gpu_binaries.sh
                                           tarballs, unpacked)
"""
import collections
import os
import pathlib
import re
import shutil
import subprocess
import sys


def find_cuobjdump() -> str:
    tool = os.environ.get("CUOBJDUMP") or shutil.which("cuobjdump")
    if not tool:
        try:  # the pip wheels put the tools beside the nvidia package
            import nvidia  # type: ignore
            for base in nvidia.__path__:
                for candidate in pathlib.Path(base).glob("cu*/bin/cuobjdump"):
                    tool = str(candidate)
        except ImportError:
            pass
    if not tool:
        sys.exit("compare_sass: cuobjdump not found (set CUOBJDUMP)")
    os.environ["PATH"] = os.path.dirname(tool) + os.pathsep + os.environ["PATH"]  # nvdisasm
    return tool


def kernel_bodies(cuobjdump: str, binary: pathlib.Path) -> dict:
    run = subprocess.run([cuobjdump, "-sass", str(binary)], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"compare_sass: cuobjdump failed on {binary}: {run.stderr.strip()}")
    bodies = collections.defaultdict(list)
    name, body = None, []
    for line in run.stdout.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            if name:
                bodies[name].append("\n".join(body))
            name, body = m.group(1), []
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;", line)
        if name and m:
            body.append(m.group(1))
    if name:
        bodies[name].append("\n".join(body))
    return bodies


def main() -> int:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    old_dir, new_dir = map(pathlib.Path, sys.argv[1:])
    cuobjdump = find_cuobjdump()
    differing = 0
    for old in sorted(p for p in old_dir.iterdir() if p.is_file()):
        new = new_dir / old.name
        if not new.exists():
            print(f"{old.name}: missing in {new_dir}")
            differing += 1
            continue
        ko, kn = kernel_bodies(cuobjdump, old), kernel_bodies(cuobjdump, new)
        bo = collections.Counter(b for v in ko.values() for b in v)
        bn = collections.Counter(b for v in kn.values() for b in v)
        only_old, only_new = bo - bn, bn - bo
        print(f"{old.name}: {sum(bo.values())} kernels before, {sum(bn.values())} after; "
              f"{sum((bo & bn).values())} identical, {sum(only_old.values())} only before, "
              f"{sum(only_new.values())} only after")
        for label, kernels, only in (("before", ko, only_old), ("after", kn, only_new)):
            for n in sorted({n for n, v in kernels.items() if any(b in only for b in v)})[:5]:
                print(f"  only {label}: {n[:150]}")
        differing += sum(only_old.values()) + sum(only_new.values())
    print("same device code" if differing == 0 else f"{differing} kernel bodies differ")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
