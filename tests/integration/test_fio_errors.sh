#!/usr/bin/env bash
# IO errors beside Debian's fio, on a 16 MiB tmpfs per side (each its own
# mount, so both start empty). A job writing 32 MiB sequentially in 64 KiB
# blocks with ignore_error=,ENOSPC (which, as in fio, makes writes go on
# after those errors), and with continue_on_error=write beside it, writes to
# the end in both: the bytes written and the errors counted must match fio's
# within one block (tmpfs takes whole pages, so a 64 KiB write either fits
# or fails; one block of slack for a page the file system may keep). In the
# other cases a first job fills the file system (going on after ENOSPC) and
# a job of the next phase writes: with continue_on_error=write alone (fio's
# default list, EIO and EILSEQ, leaves ENOSPC fatal) and with neither, both
# fail at its first write with ENOSPC, nothing written; with
# exitall_on_error, a time-based reader beside it (runtime 60 s) ends with
# it in both.
#   test_fio_errors.sh BIN_DIR SCRATCH [TIME_SCALE]
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
scratch=$2/fio-errors.$$
it_need fio "Debian's fio, the peer these tests run beside"
[ "$(id -u)" = 0 ] || { echo "SKIP: mounting a tmpfs needs root"; exit 77; }
. "$(dirname "$0")/fio_pair_lib.sh"
mounted=()
cleanup() {
    for m in "${mounted[@]}"; do umount "$m" 2> /dev/null; done
    rm -rf "$scratch"
}
trap cleanup EXIT
fail=0
block=65536

# A json value: $1 file, $2 python expression over j (the parsed file; fio
# may put a line of its own before the JSON in its output file).
jnum() {
    python3 -c "import json,sys; t=open(sys.argv[1]).read(); j=json.loads(t[t.index('{'):]); print($2)" "$1"
}

# The job that fills the file system first in the cases that stop: its
# errors are not the case's.
filler='[fill]\nrw=write\nbs=64k\nsize=32m\nioengine=psync\nignore_error=,ENOSPC\n'
# name | options | what both must do: go (run to the end), stop (fail at
# the first write, the file system being full), or end (stop, and the
# time-based reader beside the failed job ends with it, by exitall_on_error)
cases=(
  "ignore|ignore_error=,ENOSPC|go"
  "both|continue_on_error=write\nignore_error=,ENOSPC|go"
  "default-list|continue_on_error=write|stop"
  "none||stop"
  "exitall|exitall_on_error=1|end"
)
for c in "${cases[@]}"; do
    IFS='|' read -r name opts how <<< "$c"
    d=$scratch/$name
    mkdir -p "$d/fio" "$d/rb"
    for side in fio rb; do
        if ! mount -t tmpfs -o size=16m tmpfs "$d/$side"; then
            echo "SKIP: cannot mount a tmpfs"; exit 77
        fi
        mounted+=("$d/$side")
    done
    if [ "$how" = go ]; then
        body=$(printf '[w]\nrw=write\nbs=64k\nsize=32m\nioengine=psync\n%b\n' "$opts")
    else
        body=$(printf '%b\n[w]\nstonewall\nrw=write\nbs=64k\nsize=8m\nioengine=psync\n%b\n' \
            "$filler" "$opts")
        [ "$how" = end ] && body=$(printf '%s\n[r]\nrw=read\nbs=64k\nsize=1m\nfilename=fill.0.0\ntime_based\nruntime=60\n' "$body")
    fi
    printf '[global]\ndirectory=%s\nfallocate=none\n%s\n' "$d/fio" "$body" > "$d/fio.fio"
    printf '[global]\ndirectory=%s\nfallocate=none\n%s\n' "$d/rb" "$body" > "$d/rb.fio"
    t0=$(date +%s)
    fio --output-format=json --output="$d/fio.json" "$d/fio.fio" > "$d/fio.out" 2>&1
    frc=$?
    "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1
    rrc=$?
    t1=$(date +%s)
    if [ "$how" = end ] && [ $((t1 - t0)) -ge 60 ]; then
        echo "FAIL $name: the reader ran its whole runtime ($((t1 - t0)) s for both)"; fail=1
    fi
    if [ "$how" != go ]; then
        # fio's job w (the last but the reader) failed with ENOSPC (28), after no bytes
        fw=$(jnum "$d/fio.json" "[(x['error'], x['write']['io_bytes']) for x in j['jobs'] if x['jobname'] == 'w'][0]")
        if [ "$fw" != "(28, 0)" ]; then
            echo "FAIL $name: fio did not stop on ENOSPC ($fw)"; cat "$d/fio.out"
            head -c 2000 "$d/fio.json"; fail=1
        fi
        if [ $rrc = 0 ] || ! grep -q "No space left" "$d/rb.out"; then
            echo "FAIL $name: rackbench did not fail on ENOSPC (exit $rrc):"; cat "$d/rb.out"; fail=1
        else
            echo "ok $name: both stop at the first ENOSPC (fio: error, bytes $fw; rackbench exit $rrc) in $((t1 - t0)) s"
        fi
        continue
    fi
    if [ $frc != 0 ] || [ $rrc != 0 ]; then
        echo "FAIL $name: fio exit $frc, rackbench exit $rrc"; cat "$d/fio.out" "$d/rb.out"; fail=1
        continue
    fi
    fb=$(jnum "$d/fio.json" "j['jobs'][0]['write']['io_bytes']")
    fe=$(jnum "$d/fio.json" "j['jobs'][0].get('total_err', -1)")
    ff=$(jnum "$d/fio.json" "j['jobs'][0].get('first_error', -1)")
    sum=$(ls "$d"/runs/*/summary.json 2> /dev/null | head -1)
    if [ -z "$sum" ]; then
        echo "FAIL $name: no summary.json"; cat "$d/rb.out"; fail=1; continue
    fi
    rb=$(jnum "$sum" "j['phases'][0]['job_stats'][0]['bytes']")
    re=$(jnum "$sum" "j['phases'][0]['job_stats'][0]['errors']")
    rf=$(jnum "$sum" "j['phases'][0]['job_stats'][0].get('first_errno', -1)")
    rn=$(jnum "$sum" "j['phases'][0]['job_stats'][0].get('first_errno_name', '?')")
    echo "$name: fio wrote $fb bytes, $fe errors (first $ff); rackbench $rb bytes, $re errors (first $rf $rn)"
    if [ "$rf" != "$ff" ] || [ "$rn" != ENOSPC ]; then
        echo "FAIL $name: rackbench's first error $rf ($rn), fio's $ff"; fail=1
    fi
    if [ "$ff" != 28 ] || [ "$fe" -lt 1 ]; then
        echo "FAIL $name: fio did not go on after ENOSPC"; fail=1; continue
    fi
    db=$((fb > rb ? fb - rb : rb - fb))
    de=$((fe > re ? fe - re : re - fe))
    if [ $db -gt $block ] || [ $de -gt 1 ] || [ $((rb + re * block)) -lt $((32 << 20)) ]; then
        echo "FAIL $name: rackbench differs from fio by $db bytes and $de errors"; fail=1
    fi
done
[ $fail = 0 ] && echo "PASS test_fio_errors"
it_exit "$fail"
