#!/usr/bin/env bash
# ioengine=mmap beside Debian's fio, under strace: the calls each tool makes
# on the mapping of the job's file (mmap with its length, protection and
# offset, madvise and msync with their place in the mapping and length)
# must be the same, in the same order for sequential jobs and as many of
# each for random ones (whose orders are each tool's own), and the bytes
# each reports moved the same. The cases: a sequential write with fsync=16
# (one write-only mapping advised sequential, fio's three msyncs of the
# whole mapping and none after the last write), a sequential read, a random
# read (read-only, advised random), and direct=1 sequential and random
# writes (each IO's pages written back with msync and dropped with madvise
# DONTNEED, as fio's "not really direct").
#   test_fio_mmap.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
scratch=$2/fio-mmap.$$
it_need fio "Debian's fio, the peer these tests run beside"
it_need strace "to see the calls each tool makes"
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
fail=0
# LeakSanitizer cannot run under ptrace (as in test_fio_offsets.sh)
nolsan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# The calls on the mapping of the file matching regex $2 in trace $1, one a
# line: "mmap LEN PROT FLAGS off=OFF", "madvise +AT LEN ADVICE", "msync +AT
# LEN FLAGS" (AT: from the mapping's start); sorted with $3 = sort.
calls() {
    python3 -c '
import re, sys
trace, target, how = sys.argv[1:4]
# a call another thread interrupts is split: "<unfinished ...>", then the
# next "<... NAME resumed>" line of that pid with the result
mm = re.compile(r"^(\d+) +mmap\(NULL, (\d+), ([A-Z_|]+), ([A-Z_|]+), \d+<" + target + r">, (0x[0-9a-f]+|\d+)(?:\) += (0x[0-9a-f]+)| <unfinished)")
res = re.compile(r"^(\d+) +<\.\.\. mmap resumed>\) += (0x[0-9a-f]+)")
other = re.compile(r"^(\d+) +(madvise|msync)\((0x[0-9a-f]+), (\d+), ([A-Z_0-9|]+)(?:\) += 0| <unfinished)")
maps, out, pending = {}, [], {}
for line in open(trace):
    m = mm.search(line)
    if m:
        out.append("mmap %s %s %s off=%d" % (m[2], m[3], m[4], int(m[5], 0)))
        if m[6]:
            maps[int(m[6], 16)] = int(m[2])
        else:
            pending[m[1]] = int(m[2])
        continue
    m = res.search(line)
    if m and m[1] in pending:
        maps[int(m[2], 16)] = pending.pop(m[1])
        continue
    m = other.search(line)
    if m:
        a = int(m[3], 16)
        base = next((b for b, n in maps.items() if b <= a < b + n), None)
        if base is not None:
            out.append("%s +%d %s %s" % (m[2], a - base, m[4], m[5]))
print("\n".join(sorted(out) if how == "sort" else out))' "$@"
}

# name | job options | order (seq: as issued, sort: as many of each)
cases=(
  "write-fsync|rw=write\nbs=64k\nsize=4M\nfsync=16|seq"
  "read|rw=read\nbs=64k\nsize=4M|seq"
  "randread|rw=randread\nbs=4k\nsize=4M|seq"
  "write-direct|rw=write\nbs=4k\nsize=1M\ndirect=1|seq"
  "randwrite-direct|rw=randwrite\nbs=8k\nsize=1M\ndirect=1|sort"
)
for c in "${cases[@]}"; do
    IFS='|' read -r name text how <<< "$c"
    d=$scratch/$name
    mkdir -p "$d/fio" "$d/rb"
    for side in fio rb; do
        printf '[global]\ndirectory=%s\nfilename=f\nioengine=mmap\n%b\n[j]\n' "$d/$side" "$text" > "$d/$side.fio"
    done
    ASAN_OPTIONS="$nolsan" strace -f -y -e trace=mmap,msync,madvise -o "$d/fio.st" \
        fio $IT_FIO_FLAGS --output-format=json --output="$d/fio.json" "$d/fio.fio" > /dev/null 2>&1 \
        || { echo "FAIL $name: fio failed"; cat "$d/fio.json"; fail=1; continue; }
    ASAN_OPTIONS="$nolsan" strace -f -y -e trace=mmap,msync,madvise -o "$d/rb.st" \
        "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1 \
        || { echo "FAIL $name: rackbench failed"; cat "$d/rb.out"; fail=1; continue; }
    calls "$d/fio.st" "$d/fio/f" "$how" > "$d/fio.calls"
    calls "$d/rb.st" "$d/rb/[^>]*/f" "$how" > "$d/rb.calls"
    fb=$(python3 -c "import json,sys; t=open(sys.argv[1]).read(); j=json.loads(t[t.index('{'):])['jobs'][0]; print(j['read']['io_bytes'] + j['write']['io_bytes'])" "$d/fio.json")
    sum=$(ls "$d"/runs/*/summary.json | head -1)
    rb=$(python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['phases'][0]; print(p['read_bytes'] + p['write_bytes'])" "$sum")
    n=$(wc -l < "$d/fio.calls")
    first=$(head -3 "$d/fio.calls" | paste -sd ';' -)
    if [ "$n" -gt 0 ] && cmp -s "$d/fio.calls" "$d/rb.calls" && [ "$fb" = "$rb" ]; then
        echo "ok $name: the same $n calls on the mapping ($first ...), $rb bytes in both"
    else
        echo "FAIL $name: fio $n calls, $fb bytes; rackbench $(wc -l < "$d/rb.calls") calls, $rb bytes"
        diff "$d/fio.calls" "$d/rb.calls" | head -8; fail=1
    fi
done
# rackbench's own shared file (file_per_worker=0, IOR's N-1): each node's
# regions lie across the whole file, so the engine maps all of it; two
# local agents write and read their regions back, 4 MiB each phase
d=$scratch/shared
mkdir -p "$d/rb"
printf '[global]\ndirectory=%s\nioengine=mmap\nbs=64k\nsize=1m\nfile_per_worker=0\n[w]\nrw=write\nnumjobs=2\n[r]\nstonewall\nrw=read\nnumjobs=2\n' "$d/rb" > "$d/rb.fio"
if "$bin/rackbench" run "$d/rb.fio" --local 2 --quiet --out "$d/runs" > "$d/rb.out" 2>&1 &&
    [ "$(python3 -c "import json,sys; print([p['read_bytes'] + p['write_bytes'] for p in json.load(open(sys.argv[1]))['phases']])" "$(ls "$d"/runs/*/summary.json | head -1)")" = "[4194304, 4194304]" ]; then
    echo "ok shared file (file_per_worker=0) on 2 nodes: 4 MiB written and read back through the mapping"
else
    echo "FAIL shared file (file_per_worker=0) on 2 nodes"; cat "$d/rb.out"; fail=1
fi
[ $fail = 0 ] && echo "PASS test_fio_mmap"
it_exit "$fail"
