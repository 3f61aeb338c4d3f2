#!/usr/bin/env bash
# tests/test_readme.sh samples|commands BUILD_DIR SOURCE_DIR: README.md as a
# user reads it.
#
# samples (ctest test_readme_samples, label core): every ```console block is
# a sample: each `$ COMMAND` line is run (bash, from a scratch folder where
# build/, scenarios/, plans/ and tools/ are the tree's) and the lines under
# it must appear in its output, in order. A line `...` stands for any
# lines, a line ending in `...` for any line starting with what comes before;
# the timings (`ms/step X`, `in X s`) are not compared. A sample that no
# longer reproduces fails here instead of misleading a reader.
#
# commands (ctest test_readme_commands, labels long and mpi): a fresh copy
# of the source tree (no build), then every ```sh and ```python block of
# README.md in order, as written, each in that copy (sh: bash -euo
# pipefail; python: the venv README.md's install line made,
# ~/.venv/boids/bin/python), HOME a
# scratch folder, as the user running the suite (root in CI), with a
# `python3` first on PATH that is not Debian's (it fails when called: no
# command may rely on which python3 comes first). A block right after
# `<!-- readme-test: not run (REASON) -->` is left out, with its reason
# printed: the viewer's window (tests/test_viewer.c runs the viewer), the
# test suite itself.
set -euo pipefail
mode=$1
build=$(cd "$2" && pwd)
src=$(cd "$3" && pwd)
work="$build/tests/tmp/readme-$mode"
rm -rf "$work"
mkdir -p "$work"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The fenced blocks of README.md in the languages LANGS (a regex: sh,
# console, sh|python), one file each: $work/blocks/NNN (its first line: the
# line number of the fence, the language, then `skip REASON` or `run`;
# then the block's lines).
split_blocks() {
  local langs=$1
  mkdir -p "$work/blocks"
  awk -v l="$langs" -v dir="$work/blocks" '
    BEGIN { langs = "^```(" l ")$" }
    /^<!-- readme-test: not run/ { skip = $0; sub(/^<!-- readme-test: not run */, "", skip); sub(/ *-->$/, "", skip); next }
    !inb && $0 ~ langs { inb = 1; n++; f = sprintf("%s/%03d", dir, n); lang = substr($0, 4)
                         print NR " " lang " " (skip != "" ? "skip " skip : "run") > f; skip = ""; next }
    inb && /^```/ { inb = 0; close(f); next }
    inb { print > f; next }
    /^[^ ]/ { skip = "" }
  ' "$src/README.md"
}

if [[ $mode == samples ]]; then
  for d in build scenarios plans tools; do
    ln -s "$([[ $d == build ]] && echo "$build" || echo "$src/$d")" "$work/$d"
  done
  split_blocks console
  [ -d "$work/blocks" ] || fail "README.md has no \`\`\`console sample"
  mask() { sed -E 's/ms\/step [0-9.]+/ms\/step T/g; s/ in [0-9.]+ s/ in T s/g'; }
  samples=0
  for f in "$work"/blocks/*; do
    line=$(head -1 "$f" | cut -d' ' -f1)
    cmd=""
    check() { # the previous command against its expected lines
      [ -n "$cmd" ] || return 0
      samples=$((samples + 1))
      echo "== README.md:$line: \$ $cmd"
      (cd "$work" && timeout 300 bash -c "$cmd") 2>&1 | mask >"$work/got" || fail "README.md:$line: \$ $cmd failed: $(tail -3 "$work/got")"
      local want_line got_from=1 n
      while IFS= read -r want_line; do
        want_line=$(printf '%s\n' "$want_line" | mask)
        [[ $want_line == "..." ]] && continue
        if [[ $want_line == *... ]]; then
          n=$(tail -n +"$got_from" "$work/got" | grep -n -F -- "${want_line%...}" | awk -v p="${want_line%...}" -F: '{ l = substr($0, index($0, ":") + 1); if (index(l, p) == 1) { print $1; exit } }' || true)
        else
          n=$(tail -n +"$got_from" "$work/got" | grep -n -x -F -- "$want_line" | head -1 | cut -d: -f1 || true)
        fi
        [ -n "$n" ] || fail "README.md:$line: \$ $cmd: no line \"$want_line\" (in order) in its output:
$(cat "$work/got")"
        got_from=$((got_from + n))
      done <"$work/want"
    }
    : >"$work/want"
    while IFS= read -r l; do
      if [[ $l == '$ '* ]]; then
        check
        cmd=${l#\$ }
        : >"$work/want"
      else
        printf '%s\n' "$l" >>"$work/want"
      fi
    done < <(tail -n +2 "$f")
    check
  done
  echo "PASS: $samples README.md samples reproduce"
  exit 0
fi

[[ $mode == commands ]] || fail "mode: $mode (samples or commands)"
# A fresh copy of the tree, as a clone has it: its files, no build.
tar -C "$src" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$work" -xf - || fail "copying the tree"
mkdir -p "$work/home" "$work/fakebin"
cat >"$work/fakebin/python3" <<'EOF'
#!/bin/sh
echo "python3 (a fake, first on PATH: not Debian's): README.md must not rely on it" >&2
exit 1
EOF
chmod +x "$work/fakebin/python3"
cp "$work/fakebin/python3" "$work/fakebin/pip"
split_blocks 'sh|python'
ran=0
for f in "$work"/blocks/*; do
  read -r line lang what reason <<<"$(head -1 "$f")"
  if [[ $what == skip ]]; then
    echo "== README.md:$line: not run $reason"
    continue
  fi
  ran=$((ran + 1))
  echo "== README.md:$line"
  tail -n +2 "$f" | sed 's/^/   /'
  start=$(date +%s)
  tail -n +2 "$f" >"$f.$lang"
  run=(bash -euo pipefail)
  [[ $lang == python ]] && run=("$work/home/.venv/boids/bin/python")
  (cd "$work" && HOME="$work/home" PATH="$work/fakebin:$PATH" timeout 1200 "${run[@]}" "$f.$lang" \
    >"$f.out" 2>&1 </dev/null) ||
    fail "README.md:$line failed (status $?):
$(tail -20 "$f.out")"
  echo "   ok in $(($(date +%s) - start)) s"
done
echo "PASS: $ran README.md command blocks run as written"
