#!/usr/bin/env bash
# fio's latency_target beside fio: the same time-based random-read job
# (libaio, direct, iodepth=8) run by Debian's fio and by
# `rackbench run --local 1`:
#  - a target every IO keeps within (500 ms): both double the depth up to
#    iodepth, run a last window there and end long before the runtime, and
#    report latency_depth 8 (rackbench: summary.json, its fio-json,
#    report.txt);
#  - a target no IO keeps within (1 us) at latency_percentile=50: no window
#    holds, both stay at depth 1 for the whole runtime;
#  - the same at latency_percentile=100: the first IO fails both, with
#    fio's "latency of N nsec exceeds specified max";
#  - thinktime_iotime: the pauses between reads of a job held to a rate,
#    counted under strace, the same in both.
#   test_fio_latency.sh BIN_DIR SCRATCH [TIME_SCALE]
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
. "$(dirname "$0")/fio_pair_lib.sh"
scale=${3:-${RB_TEST_TIME_SCALE:-1}}
scratch=$2/fio-latency.$$
it_need fio "Debian's fio, the peer these tests run beside"
mkdir -p "$scratch"
trap '[ -n "${RB_KEEP:-}" ] || rm -rf "$scratch"' EXIT
fail=0

job() { # runtime target percentile
    printf '[lat]\nrw=randread\nbs=4k\nsize=16m\ndirect=1\nioengine=libaio\niodepth=8\ntime_based\n'
    printf 'runtime=%s\nlatency_target=%s\nlatency_window=200ms\nlatency_percentile=%s\n' "$@"
}

# fio's depth and elapsed s, rackbench's depth (summary.json, its fio-json) and window s
figures() {
    python3 - "$1" "$2" << 'PY'
import glob, json, sys
f = json.load(open(sys.argv[1]))["jobs"][0]
run = sorted(glob.glob(sys.argv[2] + "/*/"))[0]
r = json.load(open(run + "summary.json"))["phases"][0]
x = json.load(open(run + "fio.json"))["jobs"][0]
print(f["latency_depth"], f["elapsed"], r["job_stats"][0].get("latency_depth", -1),
      x["latency_depth"], r["window_s"])
PY
}

# Held: 1, 2, 4, 8, then 8 twice (the last window) at 200 ms each.
runtime=$((30 * scale))
d=$scratch/held
if fio_pair held "$d" "$(job "$runtime" 500ms 100)"; then
    read -r fq fs rq xq rs <<< "$(figures "$d/fio.json" "$d/runs")"
    half=$((runtime / 2))
    if [ "$fq" != 8 ] || [ "$rq" != 8 ] || [ "$xq" != 8 ]; then
        echo "FAIL held: depth found: fio $fq, rackbench $rq (fio-json $xq), not 8"; fail=1
    elif ! python3 -c "import sys; sys.exit(0 if $fs < $half and $rs < $half else 1)"; then
        echo "FAIL held: fio ran $fs s, rackbench $rs s: not both ended early (runtime=$runtime)"; fail=1
    elif ! grep -q "latency target  *job lat: depth 8 found (of iodepth=8)" "$(ls -d "$d"/runs/*/ | head -1)/report.txt"; then
        echo "FAIL held: report.txt has no latency target line"; fail=1
    else
        echo "ok   held: depth 8 found by both, fio in $fs s, rackbench in $rs s of runtime=$runtime"
    fi
else
    fail=1
fi

# Never held at 50%: depth 1 the whole runtime (whole: not scaled).
runtime=3
d=$scratch/never
if fio_pair never "$d" "$(job "$runtime" 1 50)"; then
    read -r fq fs rq xq rs <<< "$(figures "$d/fio.json" "$d/runs")"
    if [ "$fq" != 1 ] || [ "$rq" != 1 ]; then
        echo "FAIL never: depth: fio $fq, rackbench $rq, not 1"; fail=1
    elif ! python3 -c "import sys; sys.exit(0 if $fs >= $runtime - 0.2 and $rs >= $runtime - 0.2 else 1)"; then
        echo "FAIL never: fio ran $fs s, rackbench $rs s, not the whole runtime=$runtime"; fail=1
    else
        echo "ok   never: depth 1 in both, fio ran $fs s, rackbench $rs s of runtime=$runtime"
    fi
else
    fail=1
fi

# Never held at 100%: the first IO fails each.
d=$scratch/fatal
mkdir -p "$d/fio" "$d/rb"
printf '[global]\ndirectory=%s\n%s\n' "$d/fio" "$(job 3 1 100)" > "$d/fio.fio"
printf '[global]\ndirectory=%s\n%s\n' "$d/rb" "$(job 3 1 100)" > "$d/rb.fio"
timeout $((60 * scale)) fio "$d/fio.fio" > "$d/fio.out" 2>&1
frc=$?
timeout $((60 * scale)) "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1
rrc=$?
if [ $frc = 0 ] || ! grep -q "exceeds specified max (1000 nsec)" "$d/fio.out"; then
    echo "FAIL fatal: fio exit $frc:"; cat "$d/fio.out"; fail=1
elif [ $rrc = 0 ] || [ $rrc = 2 ] || ! grep -q "exceeds specified max (1000 nsec)" "$d/rb.out"; then
    echo "FAIL fatal: rackbench exit $rrc:"; cat "$d/rb.out"; fail=1
else
    echo "ok   fatal: fio exit $frc, rackbench exit $rrc, both: latency exceeds specified max"
fi
# thinktime_iotime: a job held to 500 IOPS thinks 200 ms after each
# thinktime_iotime of issuing; both tools under strace, the pauses of
# more than 150 ms between reads counted: 1 at thinktime_iotime=1 (seconds,
# as fio reads a bare number) in 2 s, 3 at 300ms (a think at the end of the
# runtime has no read after it), the same in both (one apart at most: a
# think near the end may fall either side of it)
if command -v strace > /dev/null; then
    for iot in 1 300ms; do
        d=$scratch/iotime-$iot
        mkdir -p "$d/fio" "$d/rb"
        for t in fio rb; do
            printf '[global]\ndirectory=%s\n[j]\nrw=read\nbs=4k\nsize=1m\nioengine=psync\ntime_based\nruntime=2\nrate_iops=500\nthinktime=200ms\nthinktime_iotime=%s\n' \
                "$d/$t" "$iot" > "$d/$t.fio"
        done
        strace -qq -f -ttt -e trace=pread64 -o "$d/fio.st" fio $IT_FIO_FLAGS "$d/fio.fio" > "$d/fio.out" 2>&1
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -qq -f -ttt -e trace=pread64 \
            -o "$d/rb.st" "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1
        pauses() {
            python3 - "$1" << 'PY'
import sys
t = [float(l.split()[1]) for l in open(sys.argv[1]) if "pread64(" in l and ", 4096," in l]
print(sum(1 for a, b in zip(t, t[1:]) if b - a > 0.15), len(t))
PY
        }
        read -r fp fn <<< "$(pauses "$d/fio.st")"
        read -r rp rn <<< "$(pauses "$d/rb.st")"
        if [ "$rp" -ge 1 ] && [ "$fp" -ge 1 ] && [ $((fp - rp)) -le 1 ] && [ $((rp - fp)) -le 1 ]; then
            echo "ok   thinktime_iotime=$iot: pauses fio $fp ($fn reads), rackbench $rp ($rn reads)"
        else
            echo "FAIL thinktime_iotime=$iot: pauses fio $fp ($fn reads), rackbench $rp ($rn reads)"; fail=1
        fi
    done
fi
it_exit "$fail"
