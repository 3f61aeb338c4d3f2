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
# test suite itself. A block right after `<!-- readme-test: own suite -->`
# (minutes of work of its own, the papers' sweeps) is left out of
# `commands` and run by `own K BUILD_DIR SOURCE_DIR` (ctest
# test_readme_own_K, label long), the K-th such block, beside the rest: in
# a scratch folder where build/, scenarios/, plans/, tools/ and python/ are
# the tree's, with the same fake python3 first on PATH. `commands` takes
# the number of those blocks as a 4th argument and fails when README.md
# has another (a block no suite runs). A block right after `<!-- readme-test: display -->`
# (the viewer writing files and exiting) runs as written under a virtual X
# server (xvfb-run -a), as it would on a desktop.
#
# Time claims: README.md's "the build N to M minutes" holds for the fresh
# copy's `tools/build.sh` (commands: timed from its block's trace, within
# 1.5 times: N / 1.5 to M x 1.5), and its gallery's "N to M minutes" is the
# one tools/gallery.sh's header states (samples; the gallery itself takes
# minutes, too long to time here).
set -euo pipefail
mode=$1
build=$(cd "$2" && pwd)
src=$(cd "$3" && pwd)
own_k=${4:-}
work="$build/tests/tmp/readme-$mode${own_k:+-$own_k}"
rm -rf "$work"
mkdir -p "$work"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The fenced blocks of README.md in the languages LANGS (a regex: sh,
# console, sh|python), one file each: $work/blocks/NNN (its first line: the
# line number of the fence, the language, then `skip REASON`, `display` or
# `run`; then the block's lines).
split_blocks() {
  local langs=$1
  mkdir -p "$work/blocks"
  awk -v l="$langs" -v dir="$work/blocks" '
    BEGIN { langs = "^```(" l ")$" }
    /^<!-- readme-test: not run/ { skip = $0; sub(/^<!-- readme-test: not run */, "", skip); sub(/ *-->$/, "", skip); next }
    /^<!-- readme-test: display/ { display = 1; next }
    /^<!-- readme-test: own suite/ { own = 1; next }
    !inb && $0 ~ langs { inb = 1; n++; f = sprintf("%s/%03d", dir, n); lang = substr($0, 4)
                         print NR " " lang " " (skip != "" ? "skip " skip : display ? "display" : own ? "own" : "run") > f
                         skip = ""; display = 0; own = 0; next }
    inb && /^```/ { inb = 0; close(f); next }
    inb { print > f; next }
    /^[^ ]/ { skip = ""; display = 0; own = 0 }
  ' "$src/README.md"
}

# FILE's claim "WHAT N to M minutes" (or "WHAT about N minutes") as "N M";
# WHAT a regex ("the build"), NAME what it times (for the failure: FILE
# states none).
claim() {
  local got
  got=$(tr '\n' ' ' <"$1" | grep -oE "$2 (about )?[0-9]+( to [0-9]+)? minutes?" | head -1 |
    grep -oE '[0-9]+( to [0-9]+)?' | sed 's/ to / /') || true
  [ -n "$got" ] || fail "$1 states no time in minutes for $3 (\"N to M minutes\" after \"${2%%[[]*}\")"
  set -- $got
  echo "$1 ${2:-$1}"
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
  # The gallery's time: README.md says what tools/gallery.sh's header says.
  readme_gallery=$(claim "$src/README.md" 'tools/gallery.sh[^.]*' "the gallery")
  script_gallery=$(claim "$src/tools/gallery.sh" 'Takes' "the gallery")
  [ "$readme_gallery" = "$script_gallery" ] ||
    fail "README.md gives tools/gallery.sh ${readme_gallery/ / to } minutes, its header ${script_gallery/ / to }"
  echo "PASS: $samples README.md samples reproduce; the gallery's ${readme_gallery/ / to } minutes agree with its header"
  exit 0
fi

if [[ $mode == own ]]; then
  [[ $own_k =~ ^[1-9][0-9]*$ ]] || fail "own: K: '$own_k' is not a block number (1, 2, ...)"
  for d in build scenarios plans tools python; do
    ln -s "$([[ $d == build ]] && echo "$build" || echo "$src/$d")" "$work/$d"
  done
  mkdir -p "$work/home" "$work/fakebin"
  printf '#!/bin/sh\necho "python3 (a fake, first on PATH): README.md must not rely on it" >&2\nexit 1\n' >"$work/fakebin/python3"
  chmod +x "$work/fakebin/python3"
  split_blocks 'sh|python'
  k=0
  for f in "$work"/blocks/*; do
    read -r line lang what reason <<<"$(head -1 "$f")"
    [[ $what == own ]] || continue
    k=$((k + 1))
    [ "$k" = "$own_k" ] || continue
    [[ $lang == sh ]] || fail "README.md:$line: an own suite's block must be sh, not $lang"
    echo "== README.md:$line"
    tail -n +2 "$f" | sed 's/^/   /'
    start=$(date +%s)
    tail -n +2 "$f" >"$f.sh"
    (cd "$work" && HOME="$work/home" PATH="$work/fakebin:$PATH" timeout 1800 bash -euo pipefail "$f.sh" \
      >"$f.out" 2>&1 </dev/null) ||
      fail "README.md:$line failed (status $?):
$(tail -20 "$f.out")"
    echo "PASS: README.md:$line ran as written in $(($(date +%s) - start)) s"
    exit 0
  done
  fail "README.md has $k blocks marked 'own suite', not $own_k"
fi
[[ $mode == commands ]] || fail "mode: $mode (samples, commands or own)"
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
build_claim=$(claim "$src/README.md" 'the build' "the build")
read -r build_low build_high <<<"$build_claim"
build_s=""
ran=0
owns=0
for f in "$work"/blocks/*; do
  read -r line lang what reason <<<"$(head -1 "$f")"
  if [[ $what == skip ]]; then
    echo "== README.md:$line: not run $reason"
    continue
  fi
  if [[ $what == own ]]; then
    owns=$((owns + 1))
    echo "== README.md:$line: run by its own suite (test_readme_own_$owns)"
    continue
  fi
  ran=$((ran + 1))
  echo "== README.md:$line$([[ $what == display ]] && echo " (under xvfb-run -a)")"
  tail -n +2 "$f" | sed 's/^/   /'
  start=$(date +%s)
  run=(bash -euo pipefail)
  if [[ $lang == python ]]; then
    run=("$work/home/.venv/boids/bin/python")
    tail -n +2 "$f" >"$f.$lang"
  else # each command's start in $f.trace (bash's xtrace with the time), the block as written after it
    { echo "exec 9>'$f.trace'; BASH_XTRACEFD=9; PS4='+\${EPOCHREALTIME} '; set -x"; tail -n +2 "$f"; } >"$f.$lang"
  fi
  [[ $what == display ]] && run=(xvfb-run -a "${run[@]}")
  (cd "$work" && HOME="$work/home" PATH="$work/fakebin:$PATH" timeout 1200 "${run[@]}" "$f.$lang" \
    >"$f.out" 2>&1 </dev/null) ||
    fail "README.md:$line failed (status $?):
$(tail -20 "$f.out")"
  end=$(date +%s.%N)
  echo "   ok in $(($(date +%s) - start)) s"
  # tools/build.sh's time: from its trace line to the next command's (or the block's end).
  if [ -f "$f.trace" ] && grep -q '^+[0-9.]* tools/build.sh' "$f.trace"; then
    build_s=$(awk -v end="$end" '/^\+[0-9.]+ / { if (t0 != "" && t1 == "") t1 = substr($1, 2)
        if (t0 == "" && $2 == "tools/build.sh") t0 = substr($1, 2) }
      END { if (t1 == "") t1 = end; printf "%.0f", t1 - t0 }' "$f.trace")
    echo "   tools/build.sh: $build_s s (README.md: the build $build_low to $build_high minutes)"
  fi
done
[ -n "$build_s" ] || fail "no README.md block ran tools/build.sh: the build's time is not checked"
awk -v s="$build_s" -v lo="$build_low" -v hi="$build_high" 'BEGIN { exit !(s >= lo * 60 / 1.5 && s <= hi * 60 * 1.5) }' ||
  fail "the build took $build_s s; README.md says $build_low to $build_high minutes (within 1.5 times: $((build_low * 40)) to $((build_high * 90)) s)"
[ "$owns" = "$own_k" ] ||
  fail "README.md has $owns blocks marked 'own suite'; tests/CMakeLists.txt registers ${own_k:-0} (test_readme_own_1..K)"
echo "PASS: $ran README.md command blocks run as written ($owns more in their own suites); the build in $build_s s, as README.md says"
