#!/usr/bin/env bash
# tests/test_python_examples.sh BUILD_DIR SOURCE_DIR (ctest:
# test_python_examples, label python): every example of examples/python runs
# as its docstring says. Each indented docstring line that runs the example
# (it names examples/python/NAME.py) is run as written, from a copy of
# python/ and examples/ beside the build (the source tree stays clean), with
# a `python3` and `pip` first on PATH that are not Debian's (they fail when
# called, as a pyenv 3.11 without matplotlib does), no BOIDS_LIBRARY. Its
# optional arguments get small values: OUT.png a scratch file (which must be
# a PNG afterwards), COUNT 300, STEPS 40; an argument the table lacks fails
# the test, so a new example states what it takes.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work="$build/tests/tmp/python-examples"
rm -rf "$work"
mkdir -p "$work/tree" "$work/fakebin"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

cp -r "$src/python" "$src/examples" "$work/tree/"
rm -rf "$work/tree/python/build" "$work/tree/python"/*.egg-info
ln -s "$build" "$work/tree/build" # PYTHONPATH=python finds ../build/lib/libboids.so, as in a clone
for p in python3 pip; do
  printf '#!/bin/sh\necho "%s: a fake first on PATH, not Debian'"'"'s" >&2\nexit 1\n' "$p" >"$work/fakebin/$p"
  chmod +x "$work/fakebin/$p"
done
examples=0 lines=0
for f in "$src"/examples/python/*.py; do
  name=${f#"$src/"}
  examples=$((examples + 1))
  base=$(basename "$f" .py)
  # The docstring's run lines: indented, naming the example's path.
  mapfile -t runs < <(awk '/^"""/ && ++q == 2 { exit } q == 1' "$f" | grep -E "^    .*[^ ]+ $name( |$)" || true)
  [ "${#runs[@]}" -ge 1 ] || fail "$name: no docstring line that runs it (an indented line naming $name)"
  for line in "${runs[@]}"; do
    lines=$((lines + 1))
    out="$work/$base-$lines.png"
    cmd=$(printf '%s\n' "${line#    }" | sed -e "s#OUT\.png#$out#g" -e 's/\bCOUNT\b/300/g' -e 's/\bSTEPS\b/40/g' -e 's/[][]//g')
    left=$(printf '%s\n' "${cmd#*"$name"}" | grep -oE '\b[A-Z][A-Z_.]+\b' || true)
    [ -z "$left" ] || fail "$name: the run line '$line' takes $left, which this test gives no value"
    echo "== $name: $cmd"
    start=$(date +%s)
    (cd "$work/tree" && env -u BOIDS_LIBRARY -u PYTHONPATH -u BOIDS_SCENARIOS PATH="$work/fakebin:$PATH" \
      timeout 240 bash -euo pipefail -c "$cmd") >"$work/$base-$lines.log" 2>&1 ||
      fail "$name: '$line' as written failed (status $?): $(tail -5 "$work/$base-$lines.log")"
    if [[ $line == *OUT.png* ]]; then
      [ "$(head -c 8 "$out" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$name: no PNG at $out"
    fi
    echo "   ok in $(($(date +%s) - start)) s: $(tail -1 "$work/$base-$lines.log")"
  done
done
[ "$examples" -ge 1 ] || fail "no example in $src/examples/python"
echo "PASS: $lines run lines of $examples examples run as their docstrings say"
