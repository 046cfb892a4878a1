#!/usr/bin/env bash
# fio's exitall and rate_min / rate_iops_min beside fio: the same jobs run by
# Debian's fio and by `rackbench run --local 1`.
#   exitall: a small size-bound job beside a long time-based one; with
#   exitall both tools end long before the long job's runtime, without it
#   both run the whole runtime. exit_what=group leaves a later phase (fio's
#   next stonewall group) to run, exit_what=all ends it before any IO.
#   rate_min: a job held to 100 IOPS of 4 KiB (400 KiB/s) under rate_min=1m
#   fails in both (fio's status and "rate_min=1048576B/s not met", rackbench
#   exit 3 with the job, node, floor and figure), and so does rate_iops_min
#   above what rate allows; a floor above its rate is refused by both before
#   any IO; rate=4m with rate_min=1m passes in both.
#   max_latency: a limit of 1 us on writes ends the job at its first write
#   in both (fio's ETIMEDOUT, rackbench exit 3 naming the limit and the IO).
#   test_fio_exitall_ratemin.sh BIN_DIR SCRATCH [TIME_SCALE]
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
. "$(dirname "$0")/fio_pair_lib.sh"
scale=${3:-${RB_TEST_TIME_SCALE:-1}}
scratch=$2/fio-exitall.$$
it_need fio "Debian's fio, the peer these tests run beside"
mkdir -p "$scratch"
[ -n "${RB_KEEP:-}" ] || trap 'rm -rf "$scratch"' EXIT
fail=0

# a float comparison: cmp A OP B
cmp() { python3 -c "import sys; sys.exit(0 if $1 $2 $3 else 1)"; }
now() { date +%s.%N; }

# the long job's runtime in fio's JSON and rackbench's phase window, in s
figures() {
    python3 - "$1" "$2" << 'PY'
import json, sys
def fio_json(path):
    text = open(path).read()  # fio may write a note before the document
    return json.loads(text[text.index('{'):])
f = {j["jobname"]: j for j in fio_json(sys.argv[1])["jobs"]}
r = json.load(open(sys.argv[2]))["phases"][0]
print(f["long"]["job_runtime"] / 1000.0, r["window_s"])
PY
}

pair() { # pair GLOBAL_LINES RUNTIME: the small and the long job
    printf '%s\n[small]\nioengine=psync\nrw=write\nbs=4k\nsize=1m\n' "$1"
    printf '[long]\nioengine=psync\nrw=read\nbs=4k\nsize=1m\nrate_iops=200\ntime_based\nruntime=%s\n' "$2"
}

# exitall: the small job's end ends the long one, in well under its runtime
runtime=$((30 * scale))
d=$scratch/exitall
t0=$(now)
if fio_pair exitall "$d" "$(pair exitall "$runtime")"; then
    wall=$(python3 -c "print(round($(now) - $t0, 1))")
    read -r fs rs <<< "$(figures "$d/fio.json" "$(ls -d "$d"/runs/*/ | head -1)/summary.json")"
    third=$((runtime / 3))
    if ! cmp "$fs" '<' "$third" || ! cmp "$rs" '<' "$third"; then
        echo "FAIL exitall: the long job ran $fs s in fio, $rs s in rackbench, not both under $third s of runtime=$runtime"
        fail=1
    else
        echo "ok   exitall: the long job (runtime=$runtime) ran $fs s in fio, rackbench's phase $rs s (both tools: $wall s)"
    fi
else
    fail=1
fi

# without exitall: the long job runs its whole runtime in both
runtime=6
d=$scratch/no-exitall
if fio_pair no-exitall "$d" "$(pair '' "$runtime")"; then
    read -r fs rs <<< "$(figures "$d/fio.json" "$(ls -d "$d"/runs/*/ | head -1)/summary.json")"
    # the lower bound proves the whole runtime ran: not scaled
    if ! cmp "$fs" '>=' "$runtime - 0.2" || ! cmp "$rs" '>=' "$runtime - 0.2"; then
        echo "FAIL no-exitall: the long job ran $fs s in fio, $rs s in rackbench, not runtime=$runtime"
        fail=1
    elif ! cmp "$rs" '<=' "$runtime + 3 * $scale"; then
        echo "FAIL no-exitall: rackbench's phase ran $rs s of runtime=$runtime"; fail=1
    else
        echo "ok   no-exitall: the long job ran $fs s in fio, rackbench's phase $rs s of runtime=$runtime"
    fi
else
    fail=1
fi

# exit_what: a third job in a later phase (fio's next stonewall group) of
# runtime 6 s. group (the default) ends the first phase only: the later job
# runs its runtime in both; all ends it too: it does no IO in either.
later() { # later EXIT_WHAT
    pair "$(printf 'exitall\nexit_what=%s' "$1")" 6
    printf '[later]\nstonewall\nioengine=psync\nrw=read\nbs=4k\nsize=1m\nrate_iops=200\ntime_based\nruntime=6\n'
}
for what in group all; do
    d=$scratch/exit-$what
    fio_pair "exit_what=$what" "$d" "$(later "$what")" || { fail=1; continue; }
    read -r fs fb rs rb <<< "$(python3 - "$d/fio.json" "$(ls -d "$d"/runs/*/ | head -1)/summary.json" << 'PY'
import json, sys
def fio_json(path):
    text = open(path).read()  # fio may write a note before the document
    return json.loads(text[text.index('{'):])
f = {j["jobname"]: j for j in fio_json(sys.argv[1])["jobs"]}["later"]
r = json.load(open(sys.argv[2]))["phases"][1]
print(f["job_runtime"] / 1000.0, f["read"]["io_bytes"], r["window_s"], r["bytes"])
PY
)"
    if [ "$what" = group ] && { ! cmp "$fs" '>=' 5.8 || ! cmp "$rs" '>=' 5.8; }; then
        echo "FAIL exit_what=group: the later job ran $fs s in fio, $rs s in rackbench, not its 6 s"; fail=1
    elif [ "$what" = all ] && { [ "$fb" != 0 ] || [ "$rb" != 0 ]; }; then
        echo "FAIL exit_what=all: the later job read $fb bytes in fio, $rb in rackbench, not 0"; fail=1
    else
        echo "ok   exit_what=$what: the later phase's job ran $fs s ($fb bytes) in fio, $rs s ($rb bytes) in rackbench"
    fi
done

# Both tools on one job that must fail: "NAME FIO_PATTERN RB_STATUS RB_PATTERN
# OPTIONS" (OPTIONS a line each, '|' between).
expect_fail() {
    local name=$1 fpat=$2 rbrc=$3 rpat=$4 opts=$5
    local d=$scratch/$name runtime=$((20 * scale))
    mkdir -p "$d/fio" "$d/rb"
    local body
    body=$(printf '[rm]\nrw=write\nbs=4k\nsize=16m\ntime_based\nruntime=%s\n%s\n' "$runtime" "${opts//|/$'\n'}")
    printf '[global]\ndirectory=%s\nfallocate=none\n%s\n' "$d/fio" "$body" > "$d/fio.fio"
    printf '[global]\ndirectory=%s\nfallocate=none\n%s\n' "$d/rb" "$body" > "$d/rb.fio"
    local t0 frc rrc fwall rwall
    t0=$(now)
    fio --output-format=json --output="$d/fio.json" "$d/fio.fio" > "$d/fio.out" 2>&1
    frc=$?
    fwall=$(python3 -c "print(round($(now) - $t0, 1))")
    t0=$(now)
    "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1
    rrc=$?
    rwall=$(python3 -c "print(round($(now) - $t0, 1))")
    if [ "$frc" = 0 ] || ! grep -q -- "$fpat" "$d/fio.out"; then
        echo "FAIL $name: fio exited $frc, expected a failure saying '$fpat':"; cat "$d/fio.out"; fail=1
    elif [ "$rrc" != "$rbrc" ] || ! grep -q -- "$rpat" "$d/rb.out"; then
        echo "FAIL $name: rackbench exited $rrc, expected $rbrc saying '$rpat':"; cat "$d/rb.out"; fail=1
    elif ! cmp "$fwall" '<' "$runtime / 2" || ! cmp "$rwall" '<' "$runtime / 2"; then
        echo "FAIL $name: fio took $fwall s, rackbench $rwall s: not well before runtime=$runtime"; fail=1
    else
        echo "ok   $name: fio exit $frc in $fwall s: $(grep -o -- "$fpat.*" "$d/fio.out" | head -1)"
        echo "     rackbench exit $rrc in $rwall s: $(grep -o -- "$rpat.*" "$d/rb.out" | head -1)"
    fi
}

expect_fail rate-min 'rm: rate_min=1048576B/s not met, got' 3 \
    'node local-1: failed: phase rm: job rm, worker 0: rate_min=1048576B/s of writes not met, got' \
    'rate_iops=100|rate_min=1m'
expect_fail rate-iops-min 'rm: rate_iops_min=200 not met, got' 3 \
    'node local-1: failed: phase rm: job rm, worker 0: rate_iops_min=200 of writes not met, got' \
    'rate=400k|rate_iops_min=200'
expect_fail rate-min-above-rate 'minimum rate exceeds rate' 2 \
    "rate_min of reads (2097152/s) exceeds rate (1048576/s)" 'rate=1m|rate_min=2m'

# max_latency: an IO slower than the limit ends the job with ETIMEDOUT in
# both, per direction (reads at 10 s, writes at 1 us: the writes fail)
expect_fail max-latency 'exceeds specified max (1000 nsec)' 3 \
    'max_latency=1.000 us exceeded: a write of 4096 bytes took' 'max_latency=1'
expect_fail max-latency-writes 'exceeds specified max (1000 nsec)' 3 \
    'max_latency=1.000 us exceeded: a write of 4096 bytes took' 'max_latency=10s,1'

# ... and a limit on reads alone leaves a job of writes to its end in both
d=$scratch/max-latency-reads
if fio_pair max-latency-reads "$d" "$(printf '[ml]\nrw=write\nbs=4k\nsize=1m\nmax_latency=1,10s\n')"; then
    echo "ok   max-latency-reads: max_latency=1,10s on 1 MiB of writes: both wrote it all and passed"
else
    fail=1
fi

# a floor that is met: both run the whole runtime and pass
runtime=5
d=$scratch/rate-min-met
if fio_pair rate-min-met "$d" "$(printf '[rm]\nrw=write\nbs=4k\nsize=16m\ntime_based\nruntime=%s\nrate=4m\nrate_min=1m\n' "$runtime")"; then
    read -r fs fe rs <<< "$(python3 - "$d/fio.json" "$(ls -d "$d"/runs/*/ | head -1)/summary.json" << 'PY'
import json, sys
def fio_json(path):
    text = open(path).read()  # fio may write a note before the document
    return json.loads(text[text.index('{'):])
f = fio_json(sys.argv[1])["jobs"][0]
r = json.load(open(sys.argv[2]))["phases"][0]
print(f["job_runtime"] / 1000.0, f["error"], r["window_s"])
PY
)"
    if [ "$fe" != 0 ] || ! cmp "$fs" '>=' "$runtime - 0.2" || ! cmp "$rs" '>=' "$runtime - 0.2"; then
        echo "FAIL rate-min-met: fio error $fe after $fs s, rackbench $rs s of runtime=$runtime"; fail=1
    else
        echo "ok   rate-min-met: rate=4m rate_min=1m: fio ran $fs s (error $fe), rackbench $rs s, both passed"
    fi
else
    fail=1
fi
it_exit "$fail"
