#!/usr/bin/env bash
# tests/test_man.sh BUILD_DIR (ctest: test_man, label core): the man pages
# and bash completions the build made from each installed program's flag
# table (BUILD/man/man1/PROG.1, BUILD/completions/PROG; cmake/docs.cmake).
# Each man page renders without a warning (groff -ww, man --warnings), has
# its sections, an entry for every flag the program's parser accepts
# (--list-flags, the list --help is checked against in test_help) with every
# name its value may be, and the examples of --help. Each completion, sourced
# into bash and called as bash calls it, offers every such flag, every name
# of each flag's value, the shipped scenarios by name (as --scenario
# resolves them) and behaviours after a comma.
set -euo pipefail
build=$(cd "$1" && pwd)
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
programs=(boids boids-run boids-bench boids-validate boids-ensemble)
unset DISPLAY WAYLAND_DISPLAY
export MANWIDTH=200 MAN_KEEP_FORMATTING= LC_ALL=C.UTF-8

# COMPREPLY, one word a line, of PROG's completion for the words given
# (the last one the word under the cursor).
complete_words() {
  local prog=$1
  shift
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    fn=_${COMP_WORDS[0]##*/}; "${fn//-/_}"; printf "%s\n" "${COMPREPLY[@]}"' _ "$build/completions/$prog" "$@"
}

for prog in "${programs[@]}"; do
  man="$build/man/man1/$prog.1"
  comp="$build/completions/$prog"
  [[ -s "$man" ]] || fail "$man was not made"
  [[ -s "$comp" ]] || fail "$comp was not made"
  warnings=$(groff -man -ww -z "$man" 2>&1) || fail "groff -man $man: exit $?"
  [[ -z "$warnings" ]] || fail "groff -man -ww $man: $warnings"
  for width in 80 60; do
    warnings=$(MANWIDTH=$width man --warnings -l "$man" 2>&1 >/dev/null) || fail "man -l $man: exit $?"
    [[ -z "$warnings" ]] || fail "man --warnings -l $man at $width columns: $warnings"
  done
  text=$(man -l "$man" 2>/dev/null | col -bx)
  for section in NAME SYNOPSIS DESCRIPTION OPTIONS EXAMPLES "EXIT STATUS" ENVIRONMENT "SEE ALSO"; do
    grep -qx "$section" <<<"$text" || fail "$prog.1: no section $section"
  done
  grep -q "^ *$prog - [a-z]" <<<"$text" || fail "$prog.1: no NAME line '$prog - ...'"
  bash -n "$comp" || fail "$comp: not bash"
  offered=$(complete_words "$prog" "$prog" --)
  flags=0
  names=0
  while read -r flag values; do
    grep -qE "^ +$flag( |$)" <<<"$text" || fail "$prog.1: no entry for $flag, which its parser accepts"
    grep -qxF -- "$flag" <<<"$offered" || fail "$comp: does not offer $flag, which its parser accepts"
    flags=$((flags + 1))
    [[ -n "$values" ]] || continue
    got=$(complete_words "$prog" "$prog" "$flag" "")
    for name in $values; do
      grep -qwF -- "$name" <<<"$text" || fail "$prog.1: $flag accepts '$name', which the page does not name"
      grep -qxE -- "$name=?" <<<"$got" || fail "$comp: $flag accepts '$name', which it does not complete"
      names=$((names + 1))
    done
  done < <("$build/bin/$prog" --list-flags)
  # The examples of --help, as written.
  examples=0
  while read -r command; do
    grep -qF -- "$command" <<<"$text" || fail "$prog.1: no example '$command' (--help has it)"
    examples=$((examples + 1))
  done < <("$build/bin/$prog" --help | sed -n '/^Examples:$/,$p' | sed -n "s/^  \($prog\( .*\)*\)$/\1/p")
  [[ $examples -ge 3 ]] || fail "$prog --help: $examples examples"
  echo "$prog: $flags flags and $names names in the man page and the completion, $examples examples"
done

# Values completed as a user types them.
expect() {
  local want=$1
  shift
  got=$(complete_words "${1##*/}" "$@" | tr '\n' ' ')
  [[ " $got" == *" $want "* ]] || fail "completing '$*': expected '$want', got '$got'"
  echo "completing '$*': $want"
}
expect predators-prey "$build/bin/boids-run" --scenario predators-
expect couzin-mill "$build/bin/boids" --scenario couzin-m
expect vicsek boids-run --rules vic
expect separation,alignment boids-validate --behaviors separation,ali
expect cohesion= boids-bench --weights coh
expect gpu boids-run --backend = g
expect --backend boids-run --back
echo "PASS: man pages render without warnings and hold every flag and example; completions offer every flag and name"
