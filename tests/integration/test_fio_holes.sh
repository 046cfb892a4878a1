#!/usr/bin/env bash
# Holes (rw=write:N, read:N) with an offset, beside Debian's fio, offset by
# offset: fio's from its --write_iolog (under strace, as rackbench's, when
# several clones would share the log), rackbench's from strace.
# fio places a step past the end of the range by comparing its place in the
# range with the end of the file, so with an offset a pass ends at the end
# of its range (fio's file is done) instead of wrapping, and the next one
# (loops, or io_size after them) starts at the offset again; a step that
# jumps past the file's end wraps to the offset taken as a place in the
# range. On files (psync, one worker): the same offsets in the same order;
# with numjobs and offset_increment on one shared file: the same offsets
# (as many of each). On a loop device (root): fio's cross-stripe-verify
# example scaled down (rw=write:112k, bs=16k, offset=120k,
# offset_increment=4m, numjobs=3, io_size=3m, loops=2, verify=crc32c with
# verify_backlog=1, and size= to keep the workers apart): the same writes
# and reads, as many of each offset; the read-backs count toward io_size
# as fio's do (the passes go on after the loops until writes and reads
# reach it). A plain sequential write with offset_increment and no size:
# the same bytes, each worker from its own offset to the device's end, as
# each fio clone does.
#   test_fio_holes.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
scratch=$2/fio-holes.$$
it_need fio "Debian's fio, the peer these tests run beside"
it_need strace "to see the calls each tool makes"
loop=
cleanup() {
    [ -n "$loop" ] && losetup -d "$loop" 2> /dev/null
    rm -rf "$scratch"
}
trap cleanup EXIT
mkdir -p "$scratch"
fail=0
# LeakSanitizer cannot run under ptrace (as in test_fio_offsets.sh)
nolsan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# The IOs "DIR OFFSET" of the trace $1 on files matching the regex $2, in
# the order they were issued. A read's offset shows only when the call
# resumes (its buffer is an output): a call of pid P left unfinished is
# matched with P's next resumed line.
rb_ios() {
    python3 -c '
import re, sys
trace, target = sys.argv[1:3]
full = re.compile(r"^(\d+) +p(write|read)64\(\d+<" + target + r">, .*, (\d+), (\d+)\) += ")
unf = re.compile(r"^(\d+) +p(write|read)64\(\d+<" + target + r">, (.*)<unfinished")
res = re.compile(r"^(\d+) +<\.\.\. p(write|read)64 resumed>.*, (\d+), (\d+)\) += ")
pending = {}
for line in open(trace):
    m = full.search(line)
    if m:
        print(m[2], m[4]); continue
    m = unf.search(line)
    if m:
        a = re.search(r", (\d+), (\d+) $", m[3])
        if a:
            print(m[2], a[2])
        else:
            pending[m[1]] = m[2]
        continue
    m = res.search(line)
    if m and pending.pop(m[1], None) == m[2]:
        print(m[2], m[4])' "$@"
}
fio_ios() {
    awk '$3 == "write" || $3 == "read" { print $3, $4 }' "$1"
}
# "ok|FAIL text": fio's IOs $1 against rackbench's $2, in order (exact) or
# as multisets (same)
verdict() {
    python3 -c '
import sys
from collections import Counter
fa, fb, how = sys.argv[1:4]
f = [l.split() for l in open(fa) if l.strip()]
r = [l.split() for l in open(fb) if l.strip()]
kib = lambda v: " ".join(str(int(o) // 1024) for _, o in v[:6])
if how == "exact":
    ok = f == r and f
    first = next((i for i, (x, y) in enumerate(zip(f, r)) if x != y), min(len(f), len(r)))
    print("ok" if ok else "FAIL", "%d IOs (fio %d), %s; KiB %s ..." % (len(r), len(f),
          "the same offsets in the same order" if ok else "the first difference at IO %d" % first,
          kib(r[0 if ok else first:])))
else:
    ok = Counter(map(tuple, f)) == Counter(map(tuple, r)) and f
    nw = sum(1 for d, _ in r if d == "write")
    print("ok" if ok else "FAIL", "%d writes, %d reads (fio %d, %d): %s" % (nw, len(r) - nw,
          sum(1 for d, _ in f if d == "write"), sum(1 for d, _ in f if d == "read"),
          "as many IOs at each offset" if ok else "other offsets"))' "$@"
}

# name | job options | how
cases=(
  "offset|rw=write:112k\noffset=120k\nsize=2M|exact"
  "offset-io_size|rw=write:112k\noffset=120k\nsize=2M\nio_size=8M|exact"
  "offset-loops|rw=write:112k\noffset=120k\nsize=2M\nloops=2|exact"
  "offset-wraps|rw=write:112k\noffset=16k\nsize=1984k|exact"
  "read-offset|rw=read:112k\noffset=120k\nsize=2M\nio_size=4M|exact"
  "no-offset|rw=write:112k\nsize=2M\nio_size=3M|exact"
  "increment|rw=write:112k\noffset=120k\nsize=2M\nnumjobs=2\noffset_increment=3M|same"
  "increment-wraps|rw=write:112k\noffset=16k\nsize=1984k\nnumjobs=2\noffset_increment=1M\nio_size=3M|same"
)
for c in "${cases[@]}"; do
    IFS='|' read -r name text how <<< "$c"
    d=$scratch/$name
    mkdir -p "$d/fio" "$d/rb"
    job=$(printf '[global]\nfilename=f\nbs=16k\nioengine=psync\n%b\n[j]\n' "$text")
    printf 'directory=%s\n%s\n' "$d/fio" "$job" > "$d/fio.fio"
    printf 'directory=%s\n%s\n' "$d/rb" "$job" > "$d/rb.fio"
    sed -i '1{h;d};/^\[global\]$/G' "$d/fio.fio" "$d/rb.fio" # directory= into [global]
    # several clones would share one iolog, their lines mixed: then strace
    if [ "$how" = same ]; then
        ASAN_OPTIONS="$nolsan" strace -f -y -e trace=pread64,pwrite64 -o "$d/fio.st" \
            fio $IT_FIO_FLAGS --output="$d/fio.out" "$d/fio.fio" > /dev/null 2>&1
    else
        fio --write_iolog="$d/fio.log" --output="$d/fio.out" "$d/fio.fio" > /dev/null 2>&1
    fi
    if [ $? != 0 ]; then
        echo "FAIL $name: fio failed:"; cat "$d/fio.out"; fail=1; continue
    fi
    if ! ASAN_OPTIONS="$nolsan" strace -f -y -e trace=pread64,pwrite64 -o "$d/rb.st" \
            "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1; then
        echo "FAIL $name: rackbench failed:"; cat "$d/rb.out"; fail=1; continue
    fi
    dir=write
    case $text in rw=read*) dir=read ;; esac
    if [ "$how" = same ]; then
        rb_ios "$d/fio.st" "$d/fio/f" | grep "^$dir " > "$d/fio.ios"
    else
        fio_ios "$d/fio.log" | grep "^$dir " > "$d/fio.ios"
    fi
    rb_ios "$d/rb.st" "$d/rb/[^>]*/f" | grep "^$dir " > "$d/rb.ios"
    v=$(verdict "$d/fio.ios" "$d/rb.ios" "$how")
    echo "${v%% *} $name: ${v#* }"
    [ "${v%% *}" = ok ] || fail=1
done

if [ "$(id -u)" != 0 ]; then
    it_skip "the loop device cases: they need root"
else
    truncate -s 16M "$scratch/disk.img"
    loop=$(losetup -f --show --direct-io=on "$scratch/disk.img") || { echo "FAIL: no loop device"; exit 1; }
    # size= keeps the workers' ranges apart: else the first ones' reach the
    # next ones' (to the device's end), and fio's verify then fails when
    # another job writes a block before its own read-back (fio warns of it)
    body=$(printf 'bs=16k\ndirect=1\nrw=write:112k\nverify=crc32c\nfilename=%s\nverify_backlog=1\noffset_increment=4m\nsize=3968k\nio_size=3m\noffset=120k\nloops=2\n[write-verify]\nnumjobs=3\n' "$loop")
    printf '[global]\nioengine=psync\n%s\n' "$body" > "$scratch/cs-fio.fio"
    printf '[global]\n%s\n' "$body" > "$scratch/cs-rb.fio"
    # fio's clones would share one iolog, their lines mixed: both under strace
    strace -f -y -e trace=pread64,pwrite64 -o "$scratch/cs-fio.st" \
        fio $IT_FIO_FLAGS --output="$scratch/cs-fio.out" "$scratch/cs-fio.fio" > /dev/null 2>&1 \
        || { echo "FAIL cross-stripe: fio failed"; cat "$scratch/cs-fio.out"; fail=1; }
    if ! ASAN_OPTIONS="$nolsan" strace -f -y -e trace=pread64,pwrite64 -o "$scratch/cs.st" \
            "$bin/rackbench" run "$scratch/cs-rb.fio" --local 1 --quiet --out "$scratch/runs" \
            --agent-arg=--allow-device="$loop" > "$scratch/cs-rb.out" 2>&1; then
        echo "FAIL cross-stripe: rackbench failed:"; cat "$scratch/cs-rb.out"; fail=1
    fi
    rb_ios "$scratch/cs-fio.st" "$loop" > "$scratch/cs-fio.ios"
    rb_ios "$scratch/cs.st" "$loop" > "$scratch/cs-rb.ios"
    v=$(verdict "$scratch/cs-fio.ios" "$scratch/cs-rb.ios" same)
    echo "${v%% *} cross-stripe-verify (3 workers on $loop): ${v#* }"
    [ "${v%% *}" = ok ] || fail=1

    # a plain sequential write with offset_increment and no size: each worker to the device's end
    body=$(printf 'bs=16k\ndirect=1\nrw=write\nfilename=%s\noffset_increment=4m\noffset=120k\n[w]\nnumjobs=3\n' "$loop")
    printf '[global]\nioengine=psync\n%s\n' "$body" > "$scratch/inc-fio.fio"
    printf '[global]\n%s\n' "$body" > "$scratch/inc-rb.fio"
    fio --output-format=json --output="$scratch/inc.json" "$scratch/inc-fio.fio" > /dev/null 2>&1
    "$bin/rackbench" run "$scratch/inc-rb.fio" --local 1 --quiet --out "$scratch/runs-inc" \
        --agent-arg=--allow-device="$loop" > "$scratch/inc-rb.out" 2>&1
    fb=$(python3 -c "import json,sys; t=open(sys.argv[1]).read(); j=json.loads(t[t.index('{'):]); print(sum(x['write']['io_bytes'] for x in j['jobs']))" "$scratch/inc.json" 2> /dev/null)
    sum=$(ls "$scratch"/runs-inc/*/summary.json 2> /dev/null | head -1)
    rb=$([ -n "$sum" ] && python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['phases'][0]['write_bytes'])" "$sum")
    # 16 MiB less each worker's offset (120k, 4216k, 8312k), in 16k blocks
    want=$(( (16384 - 120) / 16 * 16 + (16384 - 4216) / 16 * 16 + (16384 - 8312) / 16 * 16 ))
    want=$((want * 1024))
    if [ "${fb:-x}" = "$want" ] && [ "${rb:-y}" = "$want" ]; then
        echo "ok offset_increment on a device: fio and rackbench wrote $rb bytes, each worker from its offset to the end"
    else
        echo "FAIL offset_increment on a device: fio $fb bytes, rackbench ${rb:-none}, each worker to the end $want"
        cat "$scratch/inc-rb.out"; fail=1
    fi
fi
[ $fail = 0 ] && echo "PASS test_fio_holes"
it_exit "$fail"
