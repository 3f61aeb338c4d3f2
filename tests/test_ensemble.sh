#!/usr/bin/env bash
# tests/test_ensemble.sh MODE BUILD SOURCE [MPIRUN]: boids-ensemble end to end.
#   cli: a job killed half-way (BOIDS_DEBUG=ensemble-kill-after=N: SIGKILL once that
#        many runs are written, runs in flight lost) and resumed gives the
#        same files as an uninterrupted one, as does a --resume over runs
#        whose files were damaged or disagree, or that a full disk
#        interrupted (BOIDS_DEBUG=ensemble-enospc=RUN); a changed plan stops
#        the resume; --jobs 1 and 2 the same; the
#        progress lines carry no carriage return off a terminal;
#        tools/plot_ensemble.py draws a PNG of the output (at the last step, and
#        --from-step: each run averaged over a window of steps; --table: the points),
#        every text inside the figure (a long title wrapped).
#   mpi: mpirun -n 1, 2 and 4 (--oversubscribe) write the same files as one
#        process; a killed MPI job resumed; a run a full disk interrupted
#        resumed; a bad plan under mpirun stops at once.
# Every file is compared byte for byte but runs/*.time.json (timings, rank, host).
set -euo pipefail
mode=$1 build=$2 src=$3 mpirun=${4:-mpirun}
bin=$build/bin/boids-ensemble
plan=$src/plans/tiny.ini
tmp=$build/tests/tmp/ensemble-$mode
rm -rf "$tmp" && mkdir -p "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
same() { diff -r -x '*.time.json' "$1" "$2" >/dev/null || { diff -r -x '*.time.json' "$1" "$2" | head -20 >&2; fail "$1 differs from $2"; }; }
runs_done() { ls "$1"/runs/*.json 2>/dev/null | grep -vc time.json || true; }

timeout 120 "$bin" "$plan" --out "$tmp/ref" --jobs 1 2>"$tmp/ref.err" || fail "reference run: $(cat "$tmp/ref.err")"
[ "$(runs_done "$tmp/ref")" = 12 ] || fail "12 run logs expected"
[ "$(grep -c ',failed$' "$tmp/ref/results.csv")" = 6 ] || fail "6 failed runs (radius 0) expected in results.csv"
# Tidy: every row has the header's fields (no value of this plan holds a comma).
width=$(head -1 "$tmp/ref/results.csv" | awk -F, '{print NF}')
[ "$width" -gt 10 ] || fail "a header of $width columns"
[ "$(awk -F, '{print NF}' "$tmp/ref/results.csv" | sort -u)" = "$width" ] || fail "rows of another width than the header's $width"
[ "$(grep -c ',[0-9a-f]\{16\},ok$' "$tmp/ref/results.csv")" = 12 ] || fail "the state hash on each ok run's final rows (6 runs x 2)"
grep -q '"message": ".*tiny.ini:17: \[group.boids\] radius: '"'"'0'"'"'' "$tmp/ref/runs/000002.json" \
  || fail "the failed run's message names the plan, line and key: $(cat "$tmp/ref/runs/000002.json")"

if [ "$mode" = cli ]; then
  timeout 120 "$bin" "$plan" --out "$tmp/j2" --jobs 2 2>/dev/null || fail "--jobs 2"
  same "$tmp/ref" "$tmp/j2"
  ! grep -q $'\r' "$tmp/ref.err" || fail "a carriage return in stderr off a terminal"
  grep -q 'runs done' "$tmp/ref.err" || fail "no progress line: $(cat "$tmp/ref.err")"
  # Killed after 5 runs were written, with another in flight (--jobs 2).
  set +e
  BOIDS_DEBUG=ensemble-kill-after=5 timeout 120 "$bin" "$plan" --out "$tmp/killed" --jobs 2 2>/dev/null
  rc=$?
  set -e
  [ $rc = 137 ] || fail "the killed job's status: $rc, expected 137 (SIGKILL)"
  n=$(runs_done "$tmp/killed")
  [ "$n" -ge 5 ] && [ "$n" -lt 12 ] || fail "a killed job keeps the runs written: $n"
  [ ! -e "$tmp/killed/results.csv" ] || fail "results.csv of an unfinished job"
  # A file half written when the job was killed (boids_atomic_write's temporary name) is cleared by --resume;
  # one of a live process (this shell: another writer on the folder) stays.
  echo partial >"$tmp/killed/runs/.000011.boids.tmp.999999.0"
  echo writing >"$tmp/killed/runs/.000010.boids.tmp.$$.0"
  set +e
  timeout 60 "$bin" "$plan" --out "$tmp/killed" 2>"$tmp/again.err"
  rc=$?
  set -e
  [ $rc = 2 ] || fail "an existing folder without --resume: status $rc, expected 2"
  timeout 120 "$bin" "$plan" --out "$tmp/killed" --resume --jobs 2 2>/dev/null || fail "--resume"
  [ ! -e "$tmp/killed/runs/.000011.boids.tmp.999999.0" ] || fail "--resume kept a dead process's temporary"
  [ -e "$tmp/killed/runs/.000010.boids.tmp.$$.0" ] || fail "--resume removed a live process's temporary"
  rm "$tmp/killed/runs/.000010.boids.tmp.$$.0"
  same "$tmp/ref" "$tmp/killed"
  # Files the ensemble names itself are never followed: a link planted in
  # place of a run's CSV and snapshot leaves its target alone, a FIFO in
  # place of a run's record is not read (no hang); --resume runs those runs
  # again and replaces what was planted with the run's own files.
  echo keep >"$tmp/victim"
  for f in 000004.csv 000004.boids; do
    rm -f "$tmp/killed/runs/$f"
    ln -s "$tmp/victim" "$tmp/killed/runs/$f"
  done
  rm "$tmp/killed/runs/000005.json"
  mkfifo "$tmp/killed/runs/000005.json"
  timeout 60 "$bin" "$plan" --out "$tmp/killed" --resume --jobs 2 2>/dev/null || fail "--resume over links and a FIFO"
  [ "$(cat "$tmp/victim")" = keep ] || fail "a link planted in runs/ had its target overwritten"
  for f in 000004.csv 000004.boids 000005.json; do
    [ -f "$tmp/killed/runs/$f" ] && [ ! -L "$tmp/killed/runs/$f" ] || fail "runs/$f is not the run's own file"
  done
  same "$tmp/ref" "$tmp/killed"
  # --resume trusts nothing it finds: a run whose files disagree with each
  # other or with the plan runs again (the folder then equals the
  # uninterrupted one); a run that failed by itself (radius 0) stays failed,
  # not run again. Runs 0-1, 4-5, 8-9 are ok, the others failed.
  r=$tmp/killed/runs
  own_failure=$(stat -c %i "$r/000002.json")
  resumed() { # $1: what was done to the folder
    timeout 60 "$bin" "$plan" --out "$tmp/killed" --resume 2>"$tmp/resume.err" \
      || fail "--resume after $1: $(cat "$tmp/resume.err")"
    grep -q "12 runs (6 failed)" "$tmp/resume.err" || fail "--resume after $1: $(cat "$tmp/resume.err")"
    same "$tmp/ref" "$tmp/killed"
  }
  sed -i '3d' "$r/000000.csv"; resumed "a CSV row deleted"
  sed -i '3p' "$r/000001.csv"; resumed "a CSV row duplicated"
  awk -F, -v OFS=, 'NR == 3 { $8 = $8 "1" } 1' "$r/000004.csv" >"$tmp/edited" && mv "$tmp/edited" "$r/000004.csv"
  resumed "a CSV row edited"
  sed -i 's/"state_hash": "[0-9a-f]*"/"state_hash": "0123456789abcdef"/' "$r/000005.json"
  resumed "the state hash changed in a record"
  sed -i 's/"status": "ok"/"status": "failed"/' "$r/000008.json"; resumed "a record's status made failed"
  sed -i '/"plan_hash"/d' "$r/000009.json"; resumed "a record without the plan's hash"
  truncate -s 300 "$r/000000.boids"; resumed "a snapshot truncated"
  /usr/bin/python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(400); b = f.read(1); f.seek(400); f.write(bytes([b[0] ^ 1]))' \
    "$r/000001.boids"
  resumed "a snapshot with a bit flipped"
  rm "$r/000004.boids"; resumed "a snapshot deleted"
  [ "$(stat -c %i "$r/000002.json")" = "$own_failure" ] || fail "--resume ran again a run that failed by itself"
  # The plan changed since the folder was started (steps, [log] every, the
  # same file name): one line, exit 2, nothing written.
  mkdir -p "$tmp/changed"
  before=$(find "$tmp/killed" -printf '%p %s %T@ %i\n' | sort)
  for edit in 's/^steps = 30/steps = 31/' 's/^every = 10/every = 5/'; do
    sed "$edit" "$plan" >"$tmp/changed/tiny.ini"
    set +e
    timeout 60 "$bin" "$tmp/changed/tiny.ini" --out "$tmp/killed" --resume 2>"$tmp/changed.err"
    rc=$?
    set -e
    [ $rc = 2 ] && [ "$(wc -l <"$tmp/changed.err")" = 1 ] && grep -q "the plan changed since this folder was started" \
      "$tmp/changed.err" && grep -q "restore it" "$tmp/changed.err" \
      || fail "a changed plan ($edit) resumed: status $rc, $(cat "$tmp/changed.err")"
    [ "$(find "$tmp/killed" -printf '%p %s %T@ %i\n' | sort)" = "$before" ] || fail "a changed plan ($edit) wrote to the folder"
  done
  # A full disk (BOIDS_DEBUG=ensemble-enospc=4: run 4's snapshot write fails
  # with ENOSPC): the run is recorded as interrupted, the job stops with exit
  # 3 and no results.csv; --resume with space again runs it, and the folder
  # equals the uninterrupted one.
  set +e
  BOIDS_DEBUG=ensemble-enospc=4 timeout 60 "$bin" "$plan" --out "$tmp/full" --jobs 2 2>"$tmp/full.err"
  rc=$?
  set -e
  [ $rc = 3 ] && grep -q "run 4: .*000004.boids: cannot be written: No space left on device; recorded as interrupted" \
    "$tmp/full.err" || fail "a full disk: status $rc, $(cat "$tmp/full.err")"
  grep -q '"status": "interrupted"' "$tmp/full/runs/000004.json" && grep -q 'No space left on device' "$tmp/full/runs/000004.json" \
    || fail "the interrupted run's record: $(cat "$tmp/full/runs/000004.json")"
  [ ! -e "$tmp/full/results.csv" ] || fail "results.csv of a job a full disk stopped"
  timeout 60 "$bin" "$plan" --out "$tmp/full" --resume 2>"$tmp/full.err" || fail "--resume after a full disk: $(cat "$tmp/full.err")"
  grep -q "12 runs (6 failed)" "$tmp/full.err" || fail "--resume after a full disk: $(cat "$tmp/full.err")"
  same "$tmp/ref" "$tmp/full"
  # The plot: a statistic against the swept weight, and against steps; every
  # text drawn inside the figure (plot_text_inside.py), a long title wrapped.
  plot=("/usr/bin/python3" "$src/tests/plot_text_inside.py" "$src/tools/plot_ensemble.py")
  "${plot[@]}" "$tmp/ref" --x group.boids.weight.alignment --y polarisation \
    --out "$tmp/sweep.png" || fail "plot against a parameter"
  "${plot[@]}" "$tmp/ref" --x step --y mean_speed --out "$tmp/steps.png" \
    || fail "plot against steps"
  "${plot[@]}" "$tmp/ref" --x step --y mean_speed --out "$tmp/title.png" \
    --title "$(printf 'a title longer than the figure is wide, %.0s' 1 2 3 4 5 6)" || fail "plot with a long --title"
  for f in sweep steps; do
    [ "$(head -c 8 "$tmp/$f.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$f.png is not a PNG"
    [ "$(stat -c %s "$tmp/$f.png")" -gt 10000 ] || fail "$f.png is too small to hold a plot"
  done
  # --from-step: each run's mean over steps >= 10, then over the seeds; --table has the points
  # (checked against awk's means from results.csv); two --y: a curve of each statistic.
  "${plot[@]}" "$tmp/ref" --x group.boids.weight.alignment --y polarisation \
    --y milling --from-step 10 --out "$tmp/window.png" --table "$tmp/window.csv" || fail "plot with --from-step"
  [ "$(head -1 "$tmp/window.csv")" = "curve,x,mean,sd,min,max,n" ] || fail "--table's header: $(head -1 "$tmp/window.csv")"
  [ "$(grep -c '^polarisation,' "$tmp/window.csv")" = 3 ] && [ "$(grep -c '^milling,' "$tmp/window.csv")" = 3 ] \
    || fail "a curve of 3 points per --y expected: $(cat "$tmp/window.csv")"
  col() { head -1 "$tmp/ref/results.csv" | tr , '\n' | grep -nx "$1" | cut -d: -f1; }
  cw=$(col group.boids.weight.alignment) cg=$(col group) cs=$(col step) cp=$(col polarisation)
  # The mean over the ok runs (2 seeds) of each run's mean of steps 10, 20, 30: the sum of their 6 rows / 6.
  expect=$(awk -F, -v cw="$cw" -v cg="$cg" -v cs="$cs" -v cp="$cp" \
    'NR > 1 && $NF == "ok" && $cg == "all" && $cs >= 10 { s[$cw] += $cp; n[$cw]++ }
     END { for (w in s) printf "%.9g %.4f %d\n", w, s[w] / n[w], n[w] }' "$tmp/ref/results.csv" | sort -g)
  got=$(awk -F, '$1 == "polarisation" { printf "%s %.4f %d\n", $2, $3, $7 * 3 }' "$tmp/window.csv" | sort -g)
  [ -n "$expect" ] && [ "$expect" = "$got" ] || fail "--from-step 10: $got, expected $expect"
  # Without --from-step: the last step's values (as before), 2 seeds per point.
  /usr/bin/python3 "$src/tools/plot_ensemble.py" "$tmp/ref" --x group.boids.weight.alignment --y polarisation \
    --out "$tmp/last.png" --table "$tmp/last.csv" || fail "plot with --table"
  expect=$(awk -F, -v cw="$cw" -v cg="$cg" -v cs="$cs" -v cp="$cp" \
    'NR > 1 && $NF == "ok" && $cg == "all" && $cs == 30 { s[$cw] += $cp; n[$cw]++ }
     END { for (w in s) printf "%.9g %.4f %d\n", w, s[w] / n[w], n[w] }' "$tmp/ref/results.csv" | sort -g)
  got=$(awk -F, 'NR > 1 { printf "%s %.4f %d\n", $2, $3, $7 }' "$tmp/last.csv" | sort -g)
  [ "$expect" = "$got" ] || fail "the last step's points: $got, expected $expect"
  set +e
  /usr/bin/python3 "$src/tools/plot_ensemble.py" "$tmp/ref" --x step --y polarisation --from-step 10 --out "$tmp/x.png" 2>"$tmp/plot.err"
  rc=$?
  set -e
  [ $rc = 2 ] && grep -q -- "--from-step" "$tmp/plot.err" || fail "--from-step against steps: status $rc, $(cat "$tmp/plot.err")"
  set +e
  /usr/bin/python3 "$src/tools/plot_ensemble.py" "$tmp/ref" --x group.boids.weight.alignment --y polarisation --from-step 31 \
    --out "$tmp/x.png" 2>"$tmp/plot.err"
  rc=$?
  set -e
  [ $rc = 2 ] && grep -q -- "--from-step 31 is past the last step; expected at most 30" "$tmp/plot.err" \
    || fail "--from-step past the end: status $rc, $(cat "$tmp/plot.err")"
  set +e
  /usr/bin/python3 "$src/tools/plot_ensemble.py" "$tmp/ref" --x no.such.key --y polarisation --out "$tmp/x.png" 2>"$tmp/plot.err"
  rc=$?
  set -e
  [ $rc = 2 ] && grep -q "no.such.key" "$tmp/plot.err" || fail "plot of an unknown column: status $rc, $(cat "$tmp/plot.err")"
  echo "test_ensemble cli: ok"
  exit 0
fi

mpi=("$mpirun" --allow-run-as-root --oversubscribe)
if [ "$mode" = gpu ]; then
  # The same plan on the GPU backend (llvmpipe in CI): one run after another on
  # one headless context; the final states equal the CPU's bit for bit (the
  # logs differ only in "backend", the plan's name and hash, the CSV's hash:
  # the GPU's cell_max at step 0 is 0); under mpirun (when given) the same files.
  sed 's/^backend = cpu/backend = gpu/' "$plan" >"$tmp/tiny-gpu.ini"
  timeout 200 "$bin" "$tmp/tiny-gpu.ini" --out "$tmp/gpu" 2>"$tmp/gpu.err" || fail "gpu: $(cat "$tmp/gpu.err")"
  for f in "$tmp"/ref/runs/*[0-9].json; do
    g="$tmp/gpu/runs/$(basename "$f")"
    skip=(-e '"backend"' -e '"plan"' -e '"plan_hash"' -e '"message"' -e '"csv_hash"')
    diff <(grep -v "${skip[@]}" "$f") <(grep -v "${skip[@]}" "$g") >/dev/null \
      || fail "gpu run log $(basename "$f") differs from the cpu's: $(diff "$f" "$g")"
  done
  grep -q '"backend": "gpu"' "$tmp/gpu/runs/000000.json" || fail "the gpu run log names its backend"
  # --resume finds every run done: the GPU's snapshots load (on the CPU) with their logs' hashes.
  ino=$(stat -c %i "$tmp/gpu/runs/000000.json")
  timeout 200 "$bin" "$tmp/tiny-gpu.ini" --out "$tmp/gpu" --resume 2>/dev/null || fail "gpu --resume"
  [ "$(stat -c %i "$tmp/gpu/runs/000000.json")" = "$ino" ] || fail "gpu --resume ran again a run whose files agree"
  if [ -n "${4:-}" ]; then
    timeout 200 "${mpi[@]}" -n 2 "$bin" "$tmp/tiny-gpu.ini" --out "$tmp/gpu2" --timeout 120 2>/dev/null || fail "gpu -n 2"
    same "$tmp/gpu" "$tmp/gpu2"
  fi
  echo "test_ensemble gpu: ok"
  exit 0
fi

# mpi
for n in 1 2 4; do
  timeout 120 "${mpi[@]}" -n $n "$bin" "$plan" --out "$tmp/r$n" --timeout 60 2>"$tmp/r$n.err" \
    || fail "mpirun -n $n: $(tail -5 "$tmp/r$n.err")"
  same "$tmp/ref" "$tmp/r$n"
done
# (Which ranks ran the runs of -n 4 is not checked: on a loaded machine rank
# 0's own worker may finish them all before the others start. --jobs 0
# below makes the workers run everything.)
# Rank 0 only dispatches (--jobs 0): the workers run everything.
timeout 120 "${mpi[@]}" -n 3 "$bin" "$plan" --out "$tmp/d3" --jobs 0 --timeout 60 2>/dev/null || fail "-n 3 --jobs 0"
same "$tmp/ref" "$tmp/d3"
! grep -q '"rank": 0' "$tmp"/d3/runs/*.time.json || fail "--jobs 0: rank 0 ran a run"
# Killed under mpirun after 4 written runs, then resumed on another rank count.
set +e
BOIDS_DEBUG=ensemble-kill-after=4 timeout 120 "${mpi[@]}" -n 2 "$bin" "$plan" --out "$tmp/mk" --timeout 60 >/dev/null 2>&1
set -e
n=$(runs_done "$tmp/mk")
[ "$n" -ge 4 ] && [ "$n" -lt 12 ] || fail "a killed MPI job keeps the runs written: $n"
timeout 120 "${mpi[@]}" -n 4 "$bin" "$plan" --out "$tmp/mk" --resume --timeout 60 2>/dev/null || fail "MPI --resume"
same "$tmp/ref" "$tmp/mk"
# A full disk on whichever rank runs run 4 (its snapshot: ENOSPC): recorded
# as interrupted, the job stops with exit 3; resumed, the same files.
set +e
BOIDS_DEBUG=ensemble-enospc=4 timeout 120 "${mpi[@]}" -x BOIDS_DEBUG -n 2 "$bin" "$plan" --out "$tmp/mfull" --timeout 60 \
  >/dev/null 2>"$tmp/mfull.err"
rc=$?
set -e
[ $rc = 3 ] && grep -q "run 4: .*No space left on device; recorded as interrupted" "$tmp/mfull.err" \
  || fail "a full disk under mpirun: status $rc, $(cat "$tmp/mfull.err")"
timeout 120 "${mpi[@]}" -n 2 "$bin" "$plan" --out "$tmp/mfull" --resume --timeout 60 2>/dev/null \
  || fail "MPI --resume after a full disk"
same "$tmp/ref" "$tmp/mfull"
# A bad plan under mpirun: every rank stops, status 2, one message.
printf '[plan]\nscenario = flocking\nsteps = 5\nbackend = tpu\n' >"$tmp/bad.ini"
set +e
timeout 60 "${mpi[@]}" -n 2 "$bin" "$tmp/bad.ini" --out "$tmp/bad" --timeout 30 2>"$tmp/bad.err"
rc=$?
set -e
[ $rc = 2 ] || fail "a bad plan under mpirun: status $rc, expected 2"
grep -q "bad.ini:4: \[plan\] backend: 'tpu' is not a backend" "$tmp/bad.err" || fail "bad plan message: $(cat "$tmp/bad.err")"
# A lost rank: one that hangs holding a run is reported within --timeout
# (rank 0 aborts the job), one that dies ends the job; never a hang.
for how in hang die; do
  start=$(date +%s)
  set +e
  BOIDS_DEBUG=ensemble-fail-rank=1:$how timeout 90 "${mpi[@]}" -x BOIDS_DEBUG -n 2 "$bin" "$plan" \
    --out "$tmp/lost-$how" --timeout 3 >"$tmp/lost-$how.err" 2>&1
  rc=$?
  set -e
  took=$(($(date +%s) - start))
  [ $rc != 0 ] && [ $rc != 124 ] || fail "a lost rank ($how): status $rc (124: the job hung)"
  [ $took -lt 60 ] || fail "a lost rank ($how) took $took s to be noticed"
  if [ $how = hang ]; then
    grep -q "rank 1 sent no result of run [0-9]* for 3 s" "$tmp/lost-$how.err" \
      || fail "the hung rank is named: $(cat "$tmp/lost-$how.err")"
  fi
done
echo "test_ensemble mpi: ok"
