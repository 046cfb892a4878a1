#!/usr/bin/env bash
# fill_device and write_hint beside Debian's fio; allrandrepeat; ioscheduler.
# - fill_device=1 with no size, rw=write bs=64k: each tool fills a tmpfs of
#   its own (16 MiB, mounted here: needs root) and ends without an error.
#   The bytes each reports written are compared with what the file system
#   had free before the run: at most that, and at least that less 2 blocks
#   of the job. The tolerance: a last write that finds only part of a block
#   free is short, and the rest then fails with ENOSPC; neither tool counts
#   such a write (fio counts no IO that ends in an error), so each may come
#   up to a block short; a tmpfs keeps no metadata in its data pages, so
#   nothing else takes the space. The two tools' figures are also within a
#   block of each other. rackbench's agent runs with --reserve 0 (without it,
#   the agent refuses the job: a test of that too).
# - write_hint (short; long with direct): under strace, each tool's
#   fcntl calls on the job's file: F_SET_RW_HINT (0x40c), once, answered 0;
#   with direct=1, F_SET_FILE_RW_HINT (0x40e), which kernels since 5.17
#   refuse with EINVAL, and both tools fail the job. (strace does not show
#   the hint's value, which is passed by pointer.)
# - allrandrepeat=1 with randrepeat=0: two rackbench runs write the same
#   offsets in the same order (under strace); randrepeat=0 alone, others.
# - ioscheduler on a loop device the agent may use (--allow-device): the
#   run switches it to another scheduler it offers (seen while the run
#   goes on) and puts the old one back after it; a name it does not offer
#   fails the run naming the device and its list; without --allow-device
#   the device is refused. (fio sets the scheduler and leaves it so.)
#   test_fio_fill.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
scratch=$2/fio-fill.$$
it_need fio "Debian's fio, the peer these tests run beside"
it_need strace "to see the calls each tool makes"
mkdir -p "$scratch"
mounted=()
loop=""
rb_pid=""
cleanup() {
    [ -n "$rb_pid" ] && kill -INT "$rb_pid" 2> /dev/null && wait "$rb_pid"
    for m in "${mounted[@]}"; do umount "$m" 2> /dev/null; done
    [ -n "$loop" ] && losetup -d "$loop"
    rm -rf "$scratch"
}
trap cleanup EXIT
fail=0
# LeakSanitizer cannot run under ptrace (as in test_fio_calls.sh)
nolsan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# free bytes of the file system of $1
free_bytes() { python3 -c 'import os,sys; s=os.statvfs(sys.argv[1]); print(s.f_bavail*s.f_frsize)' "$1"; }
# bytes written by the first job of fio's JSON $1
written() {
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["write"]["io_bytes"])' "$1"
}

# ---- fill_device ----
if [ "$(id -u)" != 0 ]; then
    it_skip "fill_device: mounting a tmpfs needs root"
else
    for t in fio rb; do
        mkdir -p "$scratch/$t"
        if ! mount -t tmpfs -o size=16m tmpfs "$scratch/$t"; then
            it_skip "fill_device: cannot mount a tmpfs"
            exit 77
        fi
        mounted+=("$scratch/$t")
    done
    body='[fill]\nrw=write\nbs=64k\nfill_device=1\n'
    printf "[global]\ndirectory=%s\n$body" "$scratch/fio" > "$scratch/fio.fio"
    printf "[global]\ndirectory=%s\n$body" "$scratch/rb" > "$scratch/rb.fio"
    free_fio=$(free_bytes "$scratch/fio")
    if ! timeout 60 fio $IT_FIO_FLAGS --output-format=json --output="$scratch/fio.json" "$scratch/fio.fio" \
        > "$scratch/fio.out" 2>&1; then
        echo "FAIL fill_device: fio failed:"; cat "$scratch/fio.out"; fail=1
    fi
    # the agent's capacity guard refuses the job by default
    if timeout 60 "$bin/rackbench" run "$scratch/rb.fio" --local 1 --quiet --out "$scratch/runs0" \
        > "$scratch/rb0.out" 2>&1; then
        echo "FAIL fill_device: an agent with its default --reserve ran it"; fail=1
    elif ! grep -q "fill_device fills its file system.*--reserve" "$scratch/rb0.out"; then
        echo "FAIL fill_device: the refusal does not say why:"; cat "$scratch/rb0.out"; fail=1
    fi
    free_rb=$(free_bytes "$scratch/rb")
    if ! timeout 60 "$bin/rackbench" run "$scratch/rb.fio" --local 1 --quiet --out "$scratch/runs" \
        --agent-arg=--reserve=0 > "$scratch/rb.out" 2>&1; then
        echo "FAIL fill_device: rackbench failed:"; cat "$scratch/rb.out"; fail=1
    fi
    if [ "$fail" = 0 ]; then
        wf=$(written "$scratch/fio.json")
        wr=$(written "$scratch"/runs/*/fio.json)
        echo "fill_device: free before fio $free_fio, fio wrote $wf; free before rackbench $free_rb, rackbench wrote $wr"
        if ! python3 - "$free_fio" "$wf" "$free_rb" "$wr" <<'PY'; then
import sys
ff, wf, fr, wr = map(int, sys.argv[1:])
bs = 65536
ok = ff - 2 * bs <= wf <= ff and fr - 2 * bs <= wr <= fr and abs((ff - wf) - (fr - wr)) <= bs
sys.exit(0 if ok else 1)
PY
            echo "FAIL fill_device: the bytes written are not the free space (within 2 blocks)"
            fail=1
        fi
    fi
fi

# ---- write_hint ----
# the fcntl calls on the job's file (name "hint.*") in the traces $1.*:
# one "cmd result" a line
hints() {
    python3 - "$1" <<'PY'
import glob, re, sys
for path in sorted(glob.glob(sys.argv[1] + ".*")):
    for line in open(path):
        m = re.match(r'^fcntl\(\d+<([^>]*)>, (\w+)[^,]*, [^)]*\) += (-?\d+)( \w+)?', line)
        if m and m[1].split("/")[-1].startswith("hint."):
            print(m[2], m[3] + (m[4] or ""))
PY
}
# one name buffered, another with direct (each run takes a few
# seconds under strace)
for c in short:0 long:1; do
    h=${c%:*} direct=${c#*:}
    {
        d=$scratch/hint-$h-$direct
        mkdir -p "$d/fio" "$d/rb"
        body="[hint]\nrw=write\nbs=4k\nsize=64k\ndirect=$direct\nwrite_hint=$h\n"
        printf "[global]\ndirectory=%s\n$body" "$d/fio" > "$d/fio.fio"
        printf "[global]\ndirectory=%s\n$body" "$d/rb" > "$d/rb.fio"
        timeout 60 strace -f -qq -yy -ff -e trace=fcntl -o "$d/st.fio" \
            fio $IT_FIO_FLAGS --output-format=json --output="$d/fio.json" "$d/fio.fio" > "$d/fio.out" 2>&1
        rf=$?
        ASAN_OPTIONS=$nolsan timeout 60 strace -f -qq -yy -ff -e trace=fcntl -o "$d/st.rb" \
            "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1
        rr=$?
        hf=$(hints "$d/st.fio")
        hr=$(hints "$d/st.rb")
        want="0x40c 0"
        [ "$direct" = 1 ] && want="0x40e -1 EINVAL"
        echo "write_hint=$h direct=$direct: fio [$hf] exit $rf, rackbench [$hr] exit $rr"
        if [ "$hf" != "$want" ] || [ "$hr" != "$hf" ]; then
            echo "FAIL write_hint=$h direct=$direct: fcntl calls differ (expected [$want])"
            fail=1
        fi
        if { [ "$rf" = 0 ] && [ "$rr" != 0 ]; } || { [ "$rf" != 0 ] && [ "$rr" = 0 ]; }; then
            echo "FAIL write_hint=$h direct=$direct: fio exit $rf, rackbench exit $rr"
            cat "$d/rb.out"
            fail=1
        fi
    }
done

# ---- allrandrepeat ----
# the offsets of the pwrite64 calls on the job's file (name "rnd.*") in the
# traces $1.*, in order
offsets() {
    python3 - "$1" <<'PY'
import glob, re, sys
for path in sorted(glob.glob(sys.argv[1] + ".*")):
    for line in open(path):
        m = re.match(r'^pwrite64\(\d+<([^>]*)>, .*, (\d+)\) += \d+', line)
        if m and m[1].split("/")[-1].startswith("rnd."):
            print(m[2])
PY
}
for c in a1 a2 r0; do
    d=$scratch/rnd-$c
    mkdir -p "$d/rb"
    extra="allrandrepeat=1"
    [ "$c" = r0 ] && extra="allrandrepeat=0"
    printf '[global]\ndirectory=%s\n[rnd]\nrw=randwrite\nbs=4k\nsize=256k\nrandrepeat=0\n%s\n' \
        "$d/rb" "$extra" > "$d/rb.fio"
    ASAN_OPTIONS=$nolsan timeout 60 strace -f -qq -yy -ff -e trace=pwrite64 -o "$d/st" \
        "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1 ||
        { echo "FAIL allrandrepeat: rackbench failed:"; cat "$d/rb.out"; fail=1; }
    offsets "$d/st" > "$d/offsets"
done
n=$(wc -l < "$scratch/rnd-a1/offsets")
if [ "$n" != 64 ] || ! cmp -s "$scratch/rnd-a1/offsets" "$scratch/rnd-a2/offsets"; then
    echo "FAIL allrandrepeat: two runs with allrandrepeat=1 wrote different offsets ($n writes)"
    fail=1
elif cmp -s "$scratch/rnd-a1/offsets" "$scratch/rnd-r0/offsets"; then
    echo "FAIL allrandrepeat: randrepeat=0 alone repeated the offsets too (the control)"
    fail=1
else
    echo "allrandrepeat: two runs with randrepeat=0 allrandrepeat=1, the same $n offsets; without it, others"
fi

# ---- ioscheduler ----
# the scheduler in use (in brackets) of loop device $1
sched_now() { sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/${1#/dev/}/queue/scheduler"; }
if [ "$(id -u)" != 0 ] || ! command -v losetup > /dev/null; then
    it_skip "ioscheduler: a loop device needs root and losetup"
else
    truncate -s 64M "$scratch/sched.img"
    loop=$(losetup --find --show "$scratch/sched.img")
    before=$(sched_now "$loop")
    want=$(tr -d '[]' < "/sys/block/${loop#/dev/}/queue/scheduler" | tr ' ' '\n' |
        grep -v -x -e "$before" -e '' | head -n 1)
    if [ -z "$want" ]; then
        it_skip "ioscheduler: $loop offers no other scheduler than $before"
    else
        d=$scratch/sched
        mkdir -p "$d"
        printf '[s]\nfilename=%s\nrw=randread\nbs=4k\nsize=16m\ntime_based\nruntime=3\nioscheduler=%s\n' \
            "$loop" "$want" > "$d/rb.fio"
        "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" \
            --agent-arg "--allow-device=$loop" > "$d/rb.out" 2>&1 &
        rb_pid=$!
        seen=""
        deadline=$((SECONDS + 60))
        while [ $SECONDS -lt $deadline ] && kill -0 "$rb_pid" 2> /dev/null; do
            [ "$(sched_now "$loop")" = "$want" ] && { seen=1; break; }
            sleep 0.1
        done
        wait "$rb_pid"
        rc=$?
        rb_pid=""
        after=$(sched_now "$loop")
        echo "ioscheduler: $loop had $before, ${seen:+showed $want during the run, }has $after after it (exit $rc)"
        if [ "$rc" != 0 ] || [ -z "$seen" ] || [ "$after" != "$before" ]; then
            echo "FAIL ioscheduler: not switched to $want for the run and back to $before"
            cat "$d/rb.out"
            fail=1
        fi
        # a name the device does not offer: the run fails, naming the device and its list
        printf '[s]\nfilename=%s\nrw=read\nbs=4k\nsize=1m\nioscheduler=nosuch\n' "$loop" > "$d/bad.fio"
        if timeout 60 "$bin/rackbench" run "$d/bad.fio" --local 1 --quiet --out "$d/runs" \
            --agent-arg "--allow-device=$loop" > "$d/bad.out" 2>&1 ||
            ! grep -q "ioscheduler=nosuch: $loop offers only" "$d/bad.out"; then
            echo "FAIL ioscheduler: an unknown scheduler was not refused with its reason:"
            cat "$d/bad.out"
            fail=1
        fi
        # a device the agent may not touch: refused, naming it
        if timeout 60 "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" \
            > "$d/deny.out" 2>&1 || ! grep -q "$loop" "$d/deny.out"; then
            echo "FAIL ioscheduler: a device not allowed was not refused:"
            cat "$d/deny.out"
            fail=1
        fi
        [ "$(sched_now "$loop")" = "$before" ] ||
            { echo "FAIL ioscheduler: $loop left with $(sched_now "$loop")"; fail=1; }
    fi
fi

[ "$fail" = 0 ] && echo "PASS test_fio_fill"
it_exit "$fail"
