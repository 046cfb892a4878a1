#!/usr/bin/env bash
# zonemode=zbd beside fio, on zones both emulate over a file (1 MiB zones,
# 64 KiB IOs, psync): the same small jobs run by fio and by `rackbench run
# --local 1` under strace, each tool's reads and writes of the job's file
# taken from its trace. Sequential jobs must make the same calls; random
# ones draw their offsets from different generators, so their traces are
# replayed against fio's rules instead: each write at its zone's write
# pointer (or at the zone's start: a reset of a full zone), each read below
# the pointer, no more zones written at once than max_open_zones; and the
# counts that do not depend on the draw must be the same. A trim resets its
# zone and reaches no storage. Last, fio's zbd-rand-write-trim-gc example,
# scaled down, runs with its flow ratio.
#   test_fio_zbd.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$(cd "$1" && pwd)
scratch=$(mkdir -p "$2" && cd "$2" && pwd)/fio-zbd.$$
src=$(cd "$(dirname "$0")/../fio-examples" && pwd)
it_need fio "Debian's fio, the peer these tests run beside"
it_need strace "to see the calls each tool makes"
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
nolsan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # LeakSanitizer cannot run under ptrace
cd "$scratch" || exit 1
fail=0
zone=1048576

# run NAME FILESIZE JOBS: both tools; NAME.fio.ops and NAME.rb.ops hold
# "read|write OFFSET LENGTH" of the job's 64 KiB IOs, and "TRIM ..." for any
# discard or punched hole
run() {
    local n=$1 size=$2 jobs=$3 who
    for who in fio rb; do
        rm -rf "$who" && mkdir -p "$who"
        printf '[global]\ndirectory=%s\nfilename=zf\nzonemode=zbd\nzonesize=1M\nbs=64k\nioengine=psync\n%b\n' \
            "$scratch/$who" "$jobs" > "$n.$who.fio"
    done
    truncate -s "$size" fio/zf # fio emulates zones over the file as it is
    local st=(-qq -f -e trace=pread64,pwrite64,fallocate,ioctl)
    if ! timeout 120 strace "${st[@]}" -o "$n.fio.st" fio $IT_FIO_FLAGS "$n.fio.fio" --output-format=json \
            > "$n.fio.out" 2>&1; then
        echo "FAIL $n: fio failed:"; tail -20 "$n.fio.out"; exit 1
    fi
    if ! ASAN_OPTIONS="$nolsan" timeout 120 strace "${st[@]}" -o "$n.rb.st" "$bin/rackbench" run \
            "$n.rb.fio" --local 1 --quiet --out "$scratch/runs.$n" > "$n.rb.out" 2>&1; then
        echo "FAIL $n: rackbench failed:"; tail -20 "$n.rb.out"; exit 1
    fi
    for who in fio rb; do
        python3 - "$n.$who.st" > "$n.$who.ops" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.search(r'(pread64|pwrite64)\(\d+, .*, (\d+), (\d+)(\) = | <unfinished)', line)
    if m and int(m[2]) == 65536:  # the job's IOs (layouts write 1 MiB)
        print("read" if m[1] == "pread64" else "write", m[3], m[2])
    if re.search(r'fallocate\(\d+, [^,]*(PUNCH|\b3\b)', line) or 'BLKDISCARD' in line:
        print("TRIM", line.strip())
PY
    done
}

# replay OPS [MAX_OPEN]: checks fio's rules over a trace; prints the counts
replay() {
    python3 - "$1" "$zone" "${2:-0}" <<'PY'
import sys
zs, lim = int(sys.argv[2]), int(sys.argv[3])
wp, opened, bad, peak, n = {}, set(), [], 0, {"read": 0, "write": 0, "reset": 0, "TRIM": 0}
for line in open(sys.argv[1]):
    op, off, ln = line.split()[:3]
    n[op] += 1
    if op == "TRIM":
        bad.append(line.strip())
        continue
    off, ln = int(off), int(ln)
    z = off // zs
    at = wp.get(z, z * zs)
    if op == "write":
        if off != at:
            if off == z * zs:
                n["reset"] += 1
            else:
                bad.append(f"write at {off}, the write pointer at {at}")
        wp[z] = off + ln
        opened.add(z)
        if wp[z] >= (z + 1) * zs:
            opened.discard(z)
        peak = max(peak, len(opened))
    elif off + ln > at:
        bad.append(f"read of {off}+{ln} past the write pointer {at}")
if lim and peak > lim:
    bad.append(f"{peak} zones written at once, max_open_zones={lim}")
print(f"reads {n['read']} writes {n['write']} resets {n['reset']} open {peak}",
      "BAD: " + "; ".join(bad[:3]) if bad else "ok")
PY
}

same() { # NAME WHAT: the two traces must be the same calls
    if [ -s "$1.fio.ops" ] && cmp -s "$1.fio.ops" "$1.rb.ops"; then
        echo "ok   $1: $2, the same $(wc -l < "$1.rb.ops") calls"
    else
        echo "FAIL $1: $2: the calls differ"; diff "$1.fio.ops" "$1.rb.ops" | head -10; fail=1
    fi
}

rules() { # NAME WHAT [MAX_OPEN] [WRITES]: both traces follow the rules, WRITES writes each
    local f r
    f=$(replay "$1.fio.ops" "${3:-0}")
    r=$(replay "$1.rb.ops" "${3:-0}")
    if [[ $f == *" ok" && $r == *" ok" ]] && { [ -z "${4:-}" ] || [[ $f == *"writes $4 "* && $r == *"writes $4 "* ]]; }; then
        echo "ok   $1: $2; fio $f; rackbench $r"
    else
        echo "FAIL $1: $2; fio $f; rackbench $r"; fail=1
    fi
}

# 1. sequential writes of 2.5 zones, then sequential reads: only the data
run seq 4M '[w]\nrw=write\nsize=4M\nio_size=2560k\n[r]\nstonewall\nrw=read\nsize=4M\nread_beyond_wp=0'
same seq "40 writes, then the reads stop at the write pointer"
[ "$(grep -c '^read' seq.rb.ops)" = 40 ] || { echo "FAIL seq: $(grep -c '^read' seq.rb.ops) reads, not 40"; fail=1; }

# 1b. a write job's range rounded to whole zones, as fio rounds it
run round 8M '[w]\nrw=write\noffset=1536k\nsize=4M'
same round "offset=1536k size=4M writes zones 2 to 4 (offset rounded up, the end down)"

# 1c. a read job alone: the zones start empty, so both read nothing, and
# rackbench says why
run empty 4M '[r]\nrw=read\nsize=4M'
if [ ! -s empty.fio.ops ] && [ ! -s empty.rb.ops ] && grep -q "zonemode=zbd: nothing to read in" empty.rb.out; then
    echo "ok   empty: a read of empty zones reads nothing in both, and rackbench says why"
else
    echo "FAIL empty: fio $(grep -c . empty.fio.ops) IOs, rackbench $(grep -c . empty.rb.ops)"; tail -3 empty.rb.out; fail=1
fi

# 2. read_beyond_wp=1: the reads go on to the range's end
run beyond 4M '[w]\nrw=write\nsize=4M\nio_size=2560k\n[r]\nstonewall\nrw=read\nsize=4M\nread_beyond_wp=1'
same beyond "read_beyond_wp=1 reads all 64 blocks"

# 3. random writes, twice the range, at most 2 zones at once: resets
run open 8M '[w]\nrw=randwrite\nsize=8M\nio_size=16M\nmax_open_zones=2'
rules open "randwrite of 16 MiB over 8 zones, max_open_zones=2" 2 256

# 4. random writes without a limit
run free 8M '[w]\nrw=randwrite\nsize=8M\nio_size=24M'
rules free "randwrite of 24 MiB over 8 zones" 0 384

# 4b. zone_reset_frequency: every 4th write resets its zone first (the
# threshold 0 always met); sequential, so the same calls
run zrf 8M '[w]\nrw=write\nsize=8M\nzone_reset_threshold=0\nzone_reset_frequency=0.25'
same zrf "zone_reset_frequency=0.25 on sequential writes"
run zrfr 8M '[w]\nrw=randwrite\nsize=8M\nzone_reset_threshold=0\nzone_reset_frequency=0.1'
rules zrfr "zone_reset_frequency=0.1 on random writes" 0 128

# 5. random reads after 2.5 zones written: every read below the pointer,
# and as many per zone in both (a read's zone follows from its drawn one)
run rread 8M '[w]\nrw=write\nsize=8M\nio_size=2560k\n[r]\nstonewall\nrw=randread\nsize=8M'
rules rread "randread over 2.5 zones of data in 8"
per_zone() { awk -v z=$zone '$1=="read"{c[int($2/z)]++} END{for(k in c) print k, c[k]}' "$1" | sort; }
if [ "$(per_zone rread.fio.ops)" = "$(per_zone rread.rb.ops)" ] && [ "$(grep -c '^read' rread.rb.ops)" = 128 ]; then
    echo "ok   rread: 128 reads in each, per zone $(per_zone rread.rb.ops | tr '\n' ' ')"
else
    echo "FAIL rread: reads per zone: fio $(per_zone rread.fio.ops | tr '\n' ' '), rackbench $(per_zone rread.rb.ops | tr '\n' ' ')"; fail=1
fi

# 6. trims reset zones: the reads after them find only the zones left
run trim 4M '[w]\nrw=write\nsize=4M\n[t]\nstonewall\nrw=trim\nbs=1M\nsize=2M\n[r]\nstonewall\nrw=read\nsize=4M'
same trim "4 zones written, 2 trimmed (reset, no discard), the other 2 read"
trims() { python3 -c 'import json, sys; print(sum(j["trim"]["total_ios"] for j in json.load(open(sys.argv[1]))["jobs"]))' "$1"; }
ft=$(trims trim.fio.out) rt=$(trims runs.trim/*/fio.json)
if [ "$ft" = 2 ] && [ "$rt" = 2 ]; then echo "ok   trim: 2 trims counted by each"; else echo "FAIL trim: trims fio $ft, rackbench $rt"; fail=1; fi

# 7. a random mix: its first reads are writes until there is data
run mix 4M '[m]\nrw=randrw\nsize=4M'
rules mix "randrw over 4 zones"
for who in fio rb; do
    c=$(grep -c . "mix.$who.ops")
    [ "$c" = 64 ] || { echo "FAIL mix: $who made $c IOs, not 64"; fail=1; }
done

# 8. libaio at depth: the IOs each io_submit carries, in the order
# submitted, follow the rules too
for who in fio rb; do
    rm -rf "$who" && mkdir -p "$who"
    printf '[global]\ndirectory=%s\nfilename=zf\nzonemode=zbd\nzonesize=1M\nbs=64k\nioengine=libaio\ndirect=1\n[w]\nrw=randwrite\nsize=8M\nio_size=16M\niodepth=8\nmax_open_zones=3\n[r]\nstonewall\nrw=randread\nsize=8M\niodepth=8\n' \
        "$scratch/$who" > "aio.$who.fio"
done
truncate -s 8M fio/zf
st=(-qq -f -e trace=io_submit)
timeout 120 strace "${st[@]}" -o aio.fio.st fio $IT_FIO_FLAGS aio.fio.fio > aio.fio.out 2>&1 || { echo "FAIL aio: fio failed"; tail aio.fio.out; fail=1; }
ASAN_OPTIONS="$nolsan" timeout 120 strace "${st[@]}" -o aio.rb.st "$bin/rackbench" run aio.rb.fio --local 1 --quiet \
    --out "$scratch/runs.aio" > aio.rb.out 2>&1 || { echo "FAIL aio: rackbench failed"; tail aio.rb.out; fail=1; }
for who in fio rb; do
    python3 - "aio.$who.st" > "aio.$who.ops" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    for m in re.finditer(r'IOCB_CMD_(PREAD|PWRITE).*?aio_nbytes=(\d+), aio_offset=(\d+)', line):
        if int(m[2]) == 65536:
            print("read" if m[1] == "PREAD" else "write", m[3], m[2])
PY
done
rules aio "libaio iodepth=8, 16 MiB over 8 zones, max_open_zones=3, then reads" 3 256

# 9. fio's zbd-rand-write-trim-gc, scaled to 24 MiB: a warmup of random
# writes, then writes and a garbage collector's trims in the ratio 128:1
mkdir -p gc
sed -e 's|filename=/dev/sdb|directory='"$scratch"'/gc\nfilename=zf|; s|zonesize=256M|zonesize=1M|' \
    -e 's|offset=524z|offset=8z|; s|size=128z|size=16z|; s|bs=256M|bs=1M|; s|bs=2M|bs=128k|' \
    -e 's|runtime=30|runtime=3|' "$src/zbd-rand-write-trim-gc.fio" > gc.fio
if ASAN_OPTIONS="$nolsan" timeout 120 "$bin/rackbench" run gc.fio --local 1 --quiet \
        --out "$scratch/runs.gc" > gc.out 2>&1; then
    python3 - runs.gc/*/fio.json <<'PY' || fail=1
import json, sys
j = {x["jobname"].split("/")[-1]: x for x in json.load(open(sys.argv[1]))["jobs"]}
w, t = j["wjob"]["write"]["total_ios"], j["trimjob"]["trim"]["total_ios"]
ok = t > 0 and 100 <= w / t <= 160
print(f"{'ok  ' if ok else 'FAIL'} gc: warmup {j['warmup']['write']['total_ios']} writes; "
      f"then {w} writes and {t} trims, {w / max(t, 1):.1f}:1 (flow 128:1)")
sys.exit(0 if ok else 1)
PY
else
    echo "FAIL gc: rackbench failed:"; tail -20 gc.out; fail=1
fi
# 10. on a raw device (a loop device the agent may write): the same calls
# as fio, sequential writes then reads; and a device whose queue says it is
# zoned (a /sys of the test's own) is refused, its zones being its own
if command -v losetup > /dev/null && truncate -s 16M disk.img && dev=$(losetup --direct-io=on -f --show disk.img 2> /dev/null); then
    trap 'losetup -d "$dev"; rm -rf "$scratch"' EXIT
    printf '[global]\nfilename=%s\nzonemode=zbd\nzonesize=1M\nbs=64k\nioengine=psync\ndirect=1\n[w]\nrw=write\nsize=8M\nio_size=2560k\n[r]\nstonewall\nrw=read\nsize=8M\n' \
        "$dev" > dev.ini
    st=(-qq -f -e trace=pread64,pwrite64)
    timeout 120 strace "${st[@]}" -o dev.fio.st fio $IT_FIO_FLAGS dev.ini > dev.fio.out 2>&1 || { echo "FAIL dev: fio failed"; tail dev.fio.out; fail=1; }
    ASAN_OPTIONS="$nolsan" timeout 120 strace "${st[@]}" -o dev.rb.st "$bin/rackbench" run dev.ini --local 1 --quiet \
        --out "$scratch/runs.dev" --agent-arg "--allow-device=$dev" > dev.rb.out 2>&1 || { echo "FAIL dev: rackbench failed"; tail dev.rb.out; fail=1; }
    for who in fio rb; do
        sed -nE 's/.*(pread64|pwrite64)\([0-9]+, .*, 65536, ([0-9]+)(\) = | <unfinished).*/\1 \2/p' "dev.$who.st" > "dev.$who.ops"
    done
    same dev "on $dev: 40 writes, then reads to the write pointer"
    mm=$(printf '%d:%d' "0x$(stat -c %t "$dev")" "0x$(stat -c %T "$dev")")
    mkdir -p "sys/dev/block/$mm/queue" && echo host-managed > "sys/dev/block/$mm/queue/zoned"
    sum=$(sha256sum < "$dev")
    timeout 120 "$bin/rackbench" run dev.ini --local 1 --quiet --out "$scratch/runs.zoned" \
        --agent-arg "--allow-device=$dev" --agent-arg "--sys-root=$scratch/sys" > zoned.out 2>&1
    code=$?
    if [ $code = 3 ] && grep -q "$dev is a zoned block device: rackbench emulates zones" zoned.out &&
       [ "$(sha256sum < "$dev")" = "$sum" ]; then
        echo "ok   zoned: a host-managed device is refused (exit 3), unchanged"
    else
        echo "FAIL zoned: exit $code"; tail -5 zoned.out; fail=1
    fi
else
    it_skip "dev: no loop device here"
fi
it_exit "$fail"
