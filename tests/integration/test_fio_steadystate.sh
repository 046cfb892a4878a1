#!/usr/bin/env bash
# fio's steady-state detection beside fio: the same rate-limited, time-based
# job with steadystate (ss, ss_dur, ss_ramp) run by Debian's fio and by
# `rackbench run --local 1`. Steady early: both end long before the runtime,
# at about ss_ramp + ss_dur, within a few seconds of each other, and both say
# attained (fio's JSON, rackbench's summary.json and report.txt). Never
# steady (a window longer than the runtime; a limit of 0, which no criterion
# is below): both run the whole runtime and say not attained.
#   test_fio_steadystate.sh BIN_DIR SCRATCH [TIME_SCALE]
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
. "$(dirname "$0")/fio_pair_lib.sh"
scale=${3:-${RB_TEST_TIME_SCALE:-1}}
scratch=$2/fio-steadystate.$$
it_need fio "Debian's fio, the peer these tests run beside"
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
fail=0

# fio's job runtime and steadystate.attained, rackbench's window and its
# first steadystate entry: "FIO_S FIO_ATTAINED RB_S RB_ATTAINED RB_AFTER_S"
figures() {
    python3 - "$1" "$2" << 'PY'
import json, sys
f = json.load(open(sys.argv[1]))["jobs"][0]
r = json.load(open(sys.argv[2]))["phases"][0]
ss = (r.get("steadystate") or [{}])[0]
print(f["job_runtime"] / 1000.0, f.get("steadystate", {}).get("attained", "none"),
      r["window_s"], str(ss.get("attained", "none")).lower(), ss.get("after_s", -1))
PY
}

# a float comparison: cmp A OP B
cmp() { python3 -c "import sys; sys.exit(0 if $1 $2 $3 else 1)"; }

job() { # runtime_s ss ss_dur ss_ramp
    printf '[s]\nioengine=null\nrw=randread\nbs=4k\nsize=64m\ntime_based\nruntime=%s\nrate_iops=2000\nss=%s\nss_dur=%s\nss_ramp=%s\n' "$@"
}

# Steady: 2000 IOPS is steady from the first second on; the window of 3 s
# fills 1 s after a ramp of 2 s ends (fio's rule), so about 5 to 6 s.
runtime=$((60 * scale))
d=$scratch/attained
if fio_pair attained "$d" "$(job "$runtime" 'iops:5%' 3 2)"; then
    summary="$(ls -d "$d"/runs/*/ | head -1)/summary.json"
    report="$(ls -d "$d"/runs/*/ | head -1)/report.txt"
    read -r fs fa rs ra rafter <<< "$(figures "$d/fio.json" "$summary")"
    quarter=$((runtime / 4))
    if [ "$fa" != 1 ] || [ "$ra" != true ]; then
        echo "FAIL attained: fio attained=$fa, rackbench attained=$ra"; fail=1
    elif ! cmp "$fs" '<' "$quarter" || ! cmp "$rs" '<' "$quarter"; then
        echo "FAIL attained: fio ran $fs s, rackbench $rs s, not both under $quarter s of $runtime"; fail=1
    elif ! cmp "abs($rs - $fs)" '<=' "4 * $scale"; then
        echo "FAIL attained: fio ran $fs s, rackbench $rs s: more than $((4 * scale)) s apart"; fail=1
    elif ! cmp "$rafter" '>=' 5 || ! cmp "$rs" '>=' 4.9; then
        # never before ss_ramp + ss_dur: the window cannot be full sooner
        echo "FAIL attained: rackbench judged steady after $rafter s (ran $rs s), before 2 + 3 s"; fail=1
    elif ! grep -q "steady state attained after [0-9.]* s (iops within 5% over 3 s)" "$report"; then
        echo "FAIL attained: report.txt has no steady-state line:"; grep -i steady "$report"; fail=1
    else
        echo "ok   attained: fio ran $fs s, rackbench $rs s (steady after $rafter s) of runtime=$runtime"
    fi
else
    fail=1
fi

# Never steady: a window of 10 s in a runtime of 5 s, and a limit of 0.
for c in "window|iops:5%|10" "zero-limit|iops:0|2"; do
    IFS='|' read -r name crit dur <<< "$c"
    runtime=5
    d=$scratch/$name
    fio_pair "$name" "$d" "$(job "$runtime" "$crit" "$dur" 0)" || { fail=1; continue; }
    summary="$(ls -d "$d"/runs/*/ | head -1)/summary.json"
    report="$(ls -d "$d"/runs/*/ | head -1)/report.txt"
    read -r fs fa rs ra rafter <<< "$(figures "$d/fio.json" "$summary")"
    # the lower bound proves the whole runtime ran: not scaled
    if [ "$fa" != 0 ] || [ "$ra" != false ]; then
        echo "FAIL $name: fio attained=$fa, rackbench attained=$ra"; fail=1
    elif ! cmp "$fs" '>=' "$runtime - 0.2" || ! cmp "$rs" '>=' "$runtime - 0.2"; then
        echo "FAIL $name: fio ran $fs s, rackbench $rs s, not the whole runtime=$runtime"; fail=1
    elif ! cmp "$rs" '<=' "$runtime + 3 * $scale"; then
        echo "FAIL $name: rackbench ran $rs s of runtime=$runtime"; fail=1
    elif ! grep -q "steady state not attained in [0-9.]* s (iops within ${crit#iops:} over $dur s)" "$report"; then
        echo "FAIL $name: report.txt has no steady-state line:"; grep -i steady "$report"; fail=1
    else
        echo "ok   $name: fio ran $fs s, rackbench $rs s, neither steady ($crit over $dur s)"
    fi
done
it_exit "$fail"
