# Sourced by the figure tests: sets $py to the first interpreter that can import the given
# modules (/usr/bin/python3, Debian's, first), or fails the test with an install hint.
#   find_python "pandas, matplotlib" "python3-pandas python3-matplotlib" [EXTRA_CANDIDATE]
find_python() {
  local modules=$1 packages=$2 extra=${3:-} candidate tried=""
  py=""
  for candidate in /usr/bin/python3 "$extra" python3; do
    [ -n "$candidate" ] || continue
    command -v "$candidate" >/dev/null 2>&1 || continue
    tried="$tried $candidate"
    if "$candidate" -c "import $modules" >/dev/null 2>&1; then
      py=$candidate
      echo "using $py ($("$py" -c 'import sys; print(sys.version.split()[0])'), with $modules)"
      return 0
    fi
  done
  echo "FAIL: no Python interpreter with $modules (tried:${tried:- none})."
  echo "      Install them, e.g. apt-get install $packages"
  exit 1
}

# A non-empty file that starts with the PNG signature.
is_png() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; }

# A scratch directory, $out, removed when the test exits.
make_scratch() {
  out=$(mktemp -d "${TMPDIR:-/tmp}/warpsort_$1.XXXXXX")
  trap 'rm -rf "$out"' EXIT
}
