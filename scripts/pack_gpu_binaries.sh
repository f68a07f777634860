#!/usr/bin/env bash
# Packs what a GPU machine without the build tools needs to run the GPU checks and the
# experiments: the stripped `warpsort` binary, every GPU test binary (and test_cli_process, whose
# round trips run the CLI on the GPU) and the shared libraries
# they load (libfmt, libtbb), into one xz tarball (about 28 MB; the unstripped CLI alone is ~64 MB).
#   scripts/pack_gpu_binaries.sh [OUT]        (default build/gpu_binaries.tar.xz; after scripts/build.sh)
# On the GPU machine: mkdir w && xz -dc gpu_binaries.tar.xz | tar -C w -xf -
#   then scripts/gpu_check_binaries.sh w  (or LD_LIBRARY_PATH=w/lib w/bin/warpsort ...).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/gpu_binaries.tar.xz}
stage=$(mktemp -d "${TMPDIR:-/tmp}/warpsort_pack.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
bins=(build/src/cli/warpsort)
while IFS= read -r t; do bins+=("$t"); done < <(find build/tests -maxdepth 2 -type f -perm -u+x \
  \( -name 'test_*_gpu' -o -name 'test_gpu_*' -o -name test_cli_process \) | sort)
for b in "${bins[@]}"; do
  cp "$b" "$stage/bin/"
  strip "$stage/bin/$(basename "$b")"
done
for lib in libfmt.so libtbb.so; do
  path=$(ldd build/src/cli/warpsort | awk -v l="$lib" 'index($1, l) == 1 {print $3; exit}')
  [ -n "$path" ] && cp -L "$path" "$stage/lib/$(basename "$path")"
done
tar -C "$stage" -cf - bin lib | xz -T2 -6 > "$out"
echo "packed ${#bins[@]} binaries into $out ($(du -h "$out" | cut -f1))"
