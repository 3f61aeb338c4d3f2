# tests/checks.sh: sourced by the shell tests that count checks (after they
# set `bin`, the build's bin/): ok / bad print one PASS / FAIL line and count
# it; hash_of runs boids-run and gives its state-hash line.
passed=0
failed=0
ok() {
  echo "PASS: $*"
  passed=$((passed + 1))
}
bad() {
  echo "FAIL: $*"
  failed=$((failed + 1))
}
hash_of() { # hash_of ARGS...: boids-run's state-hash line
  "$bin/boids-run" "$@" --quiet 2>&1 | tail -1
}
