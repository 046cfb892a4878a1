#!/usr/bin/env bash
# Where the IOs of a job go, fio's and `rackbench run --local 1`'s, side by
# side: fio's offsets from its --write_iolog, rackbench's from strace
# (pread64 and pwrite64 on the job's file). random_distribution: the same
# number of IOs, and the share of them on the hottest 10% of the blocks
# within 4 points of fio's (zipf, pareto, normal); for zoned and zoned_abs,
# each zone's share within 3 points of fio's. rw=write:8k (holes) and
# rw=read:-8k (backwards): the same offsets in the same order. rw=randX:N,
# rw_sequencer, percentage_random and percentage_sequential: the share of
# the IOs that go on from the one before (or repeat its offset) within 3
# points of fio's. blockalign (ba): every offset a multiple of it, and the
# share at odd multiples within 3 points of fio's. zonemode=strided
# (zonesize, zonerange, zoneskip): sequential jobs issue fio's offsets and
# sizes in fio's order, up to the end of the file where fio stops; random
# ones visit fio's zones in fio's order, as many IOs in each, with as many
# on blocks of their own in each visit.
#   test_fio_offsets.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
scratch=$2/fio-offsets.$$
it_need fio "Debian's fio, the peer these tests run beside"
it_need strace "to see the calls each tool makes"
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
fail=0
# LeakSanitizer cannot run under ptrace (as in test_fio_semantics.sh)
nolsan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# fio's offsets of direction $2 (read, write) in its iolog $1, one a line
fio_offsets() {
    awk -v d="$2" '$3 == d { print $4 }' "$1"
}

# rackbench's offsets of direction $3 (read, write) on the file of job j in
# trace $1 under folder $2, one a line
rb_offsets() {
    python3 -c '
import re, sys
trace, root, d = sys.argv[1:4]
call = "pread64" if d == "read" else "pwrite64"
pat = re.compile(call + r"\(\d+<" + re.escape(root) + r"/[^>]*/j\.0\.0>, .*, (\d+), (\d+)\) += ")
for line in open(trace):
    m = pat.search(line)
    if m:
        print(m[2])' "$@"
}

# The shares of the IOs, fio's and rackbench's, of the offsets in $1 and $2
# over blocks of $3 bytes, $4 of them: "hot" (the hottest 10% of the
# blocks) or zones "Z1:Z2:..." (% of the range each, in order)
verdict() {
    python3 -c '
import sys
from collections import Counter
fa, fb, bs, n, how, tol = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], float(sys.argv[6])
def shares(path):
    offs = [int(l) for l in open(path) if l.strip()]
    blocks = [o // bs for o in offs]
    if how == "exact":
        return len(blocks), blocks
    if how == "distinct":
        # the share of the first n IOs (a pass) on a block none of them had
        return len(blocks), [100.0 * len(set(blocks[:n])) / n]
    if how.startswith("align"):
        # blockalign=A: every offset a multiple of A, and as many odd multiples as fio
        a = int(how[5:])
        if any(o % a for o in offs):
            return len(offs), [-100.0]
        return len(offs), [100.0 * sum(1 for o in offs if o % (2 * a)) / max(len(offs), 1)]
    if how in ("seq", "same"):
        # IOs at the end of the one before (seq) or at its offset (same)
        step = 1 if how == "seq" else 0
        hits = sum(1 for a, b in zip(blocks, blocks[1:]) if b == a + step)
        return len(blocks), [100.0 * hits / max(len(blocks) - 1, 1)]
    if how == "hot":
        top = sorted(Counter(blocks).values(), reverse=True)[: n // 10]
        return len(blocks), [100.0 * sum(top) / max(len(blocks), 1)]
    ends, e = [], 0
    for z in how.split(":"):
        e += float(z)
        ends.append(e * n / 100)
    c = Counter(next(i for i, end in enumerate(ends) if b < end or i == len(ends) - 1) for b in blocks)
    return len(blocks), [100.0 * c[i] / max(len(blocks), 1) for i in range(len(ends))]
nf, f = shares(fa)
nr, r = shares(fb)
if how == "exact":
    bad = f != r or not nf
    first = next((i for i, (x, y) in enumerate(zip(f, r)) if x != y), min(nf, nr))
    print("FAIL" if bad else "ok", "%d IOs (fio %d), %s; blocks %s ..." % (nr, nf,
          "the same offsets in the same order" if not bad else "the first difference at IO %d" % first,
          " ".join(map(str, r[first if bad else 0:(first if bad else 0) + 8]))))
    sys.exit(0)
bad = nf != nr or not nf or any(abs(x - y) > tol for x, y in zip(f, r))
fmt = lambda v: "/".join("%.1f" % x for x in v)
what = {"hot": "on the hottest 10%", "seq": "going on from the one before",
        "same": "at the offset of the one before",
        "distinct": "of the first pass on blocks of their own"}.get(how, "per zone")
if how.startswith("align"):
    what = "at odd multiples of %s (all multiples of it)" % how[5:]
print("FAIL" if bad else "ok", "%d IOs (fio %d), %s %s%% (fio %s%%)" % (nr, nf, what, fmt(r), fmt(f)))' "$@"
}

# name | job options | direction | how the shares are compared | tolerance (points)
cases=(
  "zipf-1.2|rw=randread\nrandom_distribution=zipf:1.2|read|hot|4"
  "zipf-0.5|rw=randread\nrandom_distribution=zipf:0.5|read|hot|4"
  "pareto-0.9|rw=randread\nrandom_distribution=pareto:0.9|read|hot|4"
  "pareto-0.3|rw=randwrite\nrandom_distribution=pareto:0.3|write|hot|4"
  "normal-10|rw=randread\nrandom_distribution=normal:10|read|hot|4"
  "zoned|rw=randread\nrandom_distribution=zoned:60/10:30/20:8/30:2/40|read|10:20:30:40|3"
  "zoned-rest|rw=randread\nrandom_distribution=zoned:50/5:30/15:20/|read|5:15:80|3"
  "zoned-randwrite|rw=randwrite\nrandom_distribution=zoned:90/25:10/75|write|25:75|3"
  "zoned_abs|rw=randread\nrandom_distribution=zoned_abs:70/512k:20/1M:10/2560k|read|12.5:25:62.5|3"
  "holes|rw=write:8k|write|exact|0"
  "backwards|rw=read:-8k|read|exact|0"
  "randread-8|rw=randread:8|read|seq|3"
  "randwrite-4-identical|rw=randwrite:4\nrw_sequencer=identical|write|same|3"
  "percentage_random-30|rw=randread\npercentage_random=30|read|seq|3"
  "lfsr|rw=randread\nnorandommap\nrandom_generator=lfsr|read|distinct|0"
  "norandommap|rw=randread\nnorandommap|read|distinct|3"
  "blockalign|rw=randread\nbs=8k\nblockalign=4k|read|align4096|3"
  "ba-writes|rw=randwrite\nbs=16k\nba=4k,8k|write|align8192|3"
  "percentage_random-50-randwrite|rw=randwrite\npercentage_random=50|write|seq|3"
)
for c in "${cases[@]}"; do
    IFS='|' read -r name text dir how tol <<< "$c"
    d=$scratch/$name
    mkdir -p "$d/fio" "$d/rb"
    body=$(printf '%b' "$text")
    job=$(printf '[j]\nbs=4k\nsize=4M\nio_size=64M\n%s\n' "$body")
    printf '[global]\ndirectory=%s\nioengine=null\n%s\n' "$d/fio" "$job" > "$d/fio.fio"
    printf '[global]\ndirectory=%s\n%s\n' "$d/rb" "$job" > "$d/rb.fio"
    if ! fio --write_iolog="$d/fio.log" --output="$d/fio.out" "$d/fio.fio" > /dev/null 2>&1; then
        echo "FAIL $name: fio failed:"; cat "$d/fio.out"; fail=1; continue
    fi
    if ! ASAN_OPTIONS="$nolsan" strace -f -y -e trace=pread64,pwrite64 -o "$d/rb.st" \
            "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1; then
        echo "FAIL $name: rackbench failed:"; cat "$d/rb.out"; fail=1; continue
    fi
    fio_offsets "$d/fio.log" "$dir" > "$d/fio.offs"
    rb_offsets "$d/rb.st" "$d/rb" "$dir" > "$d/rb.offs"
    v=$(verdict "$d/fio.offs" "$d/rb.offs" 4096 1024 "$how" "$tol")
    echo "${v%% *} $name: ${v#* }"
    [ "${v%% *}" = ok ] || fail=1
done

# The IOs of direction $3 (read, write) as "offset length" lines: fio's
# from its iolog $1, or (with $2 the folder) rackbench's from the trace $1
fio_ios() {
    awk -v d="$2" '$3 == d { print $4, $5 }' "$1"
}
rb_ios() {
    python3 -c '
import re, sys
trace, root, d = sys.argv[1:4]
call = "pread64" if d == "read" else "pwrite64"
pat = re.compile(call + r"\(\d+<" + re.escape(root) + r"/[^>]*/j\.0\.0>, .*, (\d+), (\d+)\) += ")
for line in open(trace):
    m = pat.search(line)
    if m:
        print(m[2], m[1])' "$@"
}

# fio's IOs in $1 against rackbench's in $2: "exact" (the same offsets and
# sizes in the same order), or "zoneN" for random jobs: the zone of each IO
# (its offset over N, the zones' stride) in the same order, the same sizes,
# and as many IOs as fio's on a block no earlier IO of that visit had
zone_verdict() {
    python3 -c '
import sys
fa, fb, how = sys.argv[1:4]
def ios(path):
    return [tuple(map(int, l.split())) for l in open(path) if l.strip()]
f, r = ios(fa), ios(fb)
fmt = lambda v: " ".join("%d+%d" % (o // 1024, n // 1024) for o, n in v)
if how == "exact":
    first = next((i for i, (x, y) in enumerate(zip(f, r)) if x != y), min(len(f), len(r)))
    bad = f != r or not f
    print("FAIL" if bad else "ok", "%d IOs, %d KiB (fio %d, %d KiB), %s; KiB %s ..." % (
        len(r), sum(n for _, n in r) // 1024, len(f), sum(n for _, n in f) // 1024,
        "the same offsets and sizes in the same order" if not bad
        else "the first difference at IO %d" % first, fmt(r[first if bad else 0:][:6])))
    sys.exit(0)
stride = int(how[4:])
def visits(v):
    zones, own, seen, last = [], 0, set(), None
    for o, n in v:
        z = o // stride
        if z != last:
            seen, last = set(), z
        own += o not in seen
        seen.add(o)
        zones.append(z)
    return zones, own
fz, fo = visits(f)
rz, ro = visits(r)
bad = fz != rz or fo != ro or not f or {n for _, n in f} != {n for _, n in r}
print("FAIL" if bad else "ok", "%d IOs (fio %d), %s, %d on blocks of their own in their zone visit (fio %d)" % (
    len(r), len(f), "in the same zones in the same order" if fz == rz else "in other zones", ro, fo))' "$@"
}

# zonemode=strided on a 4 MiB file of 4k blocks: name | job options | direction | how
zcases=(
  "zone-read|rw=read\nzonesize=256k\nzoneskip=768k\nio_size=8M|read|exact"
  "zone-write|rw=write\nzonesize=512k\nzoneskip=1M\nloops=2|write|exact"
  "zone-range-wider|rw=read\nzonesize=64k\nzonerange=1M\nzoneskip=512k\nio_size=8M|read|exact"
  "zone-range-narrower|rw=read\nzonesize=512k\nzonerange=128k\nzoneskip=384k|read|exact"
  "zone-skip-0|rw=write\nzonesize=128k\nzonerange=512k\nzoneskip=0|write|exact"
  "zone-at-the-end|rw=read\nzonesize=1M\nzoneskip=256k|read|exact"
  "zone-at-the-end-io_size|rw=read\nzonesize=1M\nzoneskip=256k\nio_size=8M|read|exact"
  "zone-randread|rw=randread\nzonesize=256k\nzoneskip=768k\nio_size=16M|read|zone1048576"
  "zone-randread-range|rw=randread\nzonesize=64k\nzonerange=1M|read|zone1048576"
  "zone-randwrite|rw=randwrite\nzonesize=512k\nzonerange=256k\nzoneskip=256k|write|zone524288"
)
for c in "${zcases[@]}"; do
    IFS='|' read -r name text dir how <<< "$c"
    d=$scratch/$name
    mkdir -p "$d/fio" "$d/rb"
    job=$(printf '[j]\nbs=4k\nsize=4M\nzonemode=strided\n%b\n' "$text")
    printf '[global]\ndirectory=%s\nioengine=null\n%s\n' "$d/fio" "$job" > "$d/fio.fio"
    printf '[global]\ndirectory=%s\n%s\n' "$d/rb" "$job" > "$d/rb.fio"
    if ! fio --write_iolog="$d/fio.log" --output="$d/fio.out" "$d/fio.fio" > /dev/null 2>&1; then
        echo "FAIL $name: fio failed:"; cat "$d/fio.out"; fail=1; continue
    fi
    if ! ASAN_OPTIONS="$nolsan" strace -f -y -e trace=pread64,pwrite64 -o "$d/rb.st" \
            "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1; then
        echo "FAIL $name: rackbench failed:"; cat "$d/rb.out"; fail=1; continue
    fi
    fio_ios "$d/fio.log" "$dir" > "$d/fio.ios"
    rb_ios "$d/rb.st" "$d/rb" "$dir" > "$d/rb.ios"
    v=$(zone_verdict "$d/fio.ios" "$d/rb.ios" "$how")
    echo "${v%% *} $name: ${v#* }"
    [ "${v%% *}" = ok ] || fail=1
done
it_exit "$fail"
