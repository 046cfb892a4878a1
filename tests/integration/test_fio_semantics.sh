#!/usr/bin/env bash
# The same small, size-bound job run by fio and by `rackbench run --local 1`
# moves the same bytes: read and written exactly, and for a mix the same
# share of reads within a few points. Each case is fio job text; DIR stands
# for a folder of the run's own. A "files" case also leaves the same files:
# as many as fio leaves in its folder, the agent removes at the end of the
# run (what unlink did not remove before). Then three checks of their own:
# which bytes of which files offset_increment writes (seen in the run folder
# while a later phase waits out its startdelay), that startdelay delays a
# worker, and that SIGINT during a startdelay ends the run at once. Trims:
# on a loop device (as root) the trims and writes each makes, seen by
# strace, are fio's, one by one (in order, or as a set for random offsets),
# and the trimmed bytes per direction are fio's; on a file, where fio has
# no trim (its BLKDISCARD fails with ENOTTY), rackbench punches holes where
# fio's null engine places its trims, and the file's blocks go. Directory
# lists (directory=/a:/b:/c): the same files, of the same names and sizes,
# in the same directories as fio's. On the loop device too, size=N% and
# offset=N% of it: the same writes at the same offsets as fio's. Page cache
# advice (invalidate, fadvise_hint): the fadvise64 calls strace sees when
# the job opens its file are fio's. PART is "base" (all before the trims),
# "more" (the trims, directory lists and advice) or "all" (the default): ctest runs
# the first two apart, each within its timeout.
#   test_fio_semantics.sh BIN_DIR SCRATCH [PART]
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
. "$(dirname "$0")/fio_pair_lib.sh"
part=${3:-all}
scratch=$2/fio-semantics.$$
it_need fio "Debian's fio, the peer these tests run beside"
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
export RB_SEM_SIZE=3M
fail=0

# name | job options, one per line after [global]/[j] | what to compare (exact, or mix)
cases=(
  "kib-is-1000|[j]\nrw=write\nbs=1000\nsize=4KiB|exact"
  "ki-is-1024|[j]\nrw=write\nbs=1k\nsize=4Ki|exact"
  "mib-rounds-to-blocks|[j]\nrw=write\nbs=4k\nsize=2MiB|exact"
  "kb_base-1000|[global]\nkb_base=1000\n[j]\nrw=write\nbs=4k\nsize=1M|exact"
  "hexadecimal|[j]\nrw=write\nbs=0x1000\nsize=0x100000|exact"
  "keyword-arithmetic|[j]\nrw=write\nbs=4k\nsize=256*\$pagesize|exact"
  "environment|[j]\nrw=write\nbs=64k\nsize=\${RB_SEM_SIZE}|exact"
  "name-in-global|[global]\nname=everything\nrw=write\nbs=64k\nsize=1M\n[a]\n[b]|exact"
  "aio-is-libaio|[j]\nioengine=aio\nrw=read\nbs=4k\nsize=1M\ndirect=1\niodepth=4|exact"
  "linuxaio-is-libaio|[j]\nioengine=linuxaio\nrw=write\nbs=4k\nsize=1M\ndirect=1\niodepth=4|exact"
  "bsrange-randwrite|[j]\nrw=randwrite\nbsrange=4k-64k\nsize=1M|exact"
  "bsrange-randread|[j]\nrw=randread\nbsrange=4k-64k\nsize=1M|exact"
  "bsrange-write|[j]\nrw=write\nbsrange=4k-64k\nsize=1M|exact"
  "bssplit-write|[j]\nrw=write\nbssplit=4k/50:64k/50\nsize=16M|sizes"
  "bssplit-randwrite|[j]\nrw=randwrite\nbssplit=4k/50:64k/50\nsize=16M|sizes"
  "bssplit-randread|[j]\nrw=randread\nbssplit=4k/20:16k/80\nsize=16M|sizes"
  "bssplit-blank-share|[j]\nrw=write\nbssplit=4k/50:8k/:64k/\nsize=16M|sizes"
  "bs-per-direction|[j]\nrw=rw\nbs=4k,64k\nsize=16M|mixsizes"
  "bssplit-per-direction|[j]\nrw=rw\nbssplit=4k/50:8k/50,64k/100\nsize=16M|mixsizes"
  "bs-writes-only|[j]\nrw=write\nbs=,64k\nsize=4M|sizes"
  "rate-each-direction|[j]\nrw=randrw\nbs=4k\nsize=64M\nrate=1m\ntime_based\nruntime=3|rate"
  "rate-apart|[j]\nrw=randrw\nbs=4k\nsize=64M\nrate=1m,256k\ntime_based\nruntime=3|rate"
  "rate_iops|[j]\nrw=randread\nbs=4k\nsize=64M\nrate_iops=200\ntime_based\nruntime=3|rate"
  "rate_iops-libaio|[j]\nrw=read\nioengine=libaio\niodepth=32\ndirect=1\nsize=64M\nrate_iops=1000\ntime_based\nruntime=3|rate"
  "thinktime|[j]\nrw=randread\nbs=4k\nsize=64M\nthinktime=20000\ntime_based\nruntime=3|rate"
  "thinktime-blocks-spin|[j]\nrw=read\nbs=4k\nsize=64M\nthinktime=50ms\nthinktime_spin=10ms\nthinktime_blocks=20\ntime_based\nruntime=3|rate"
  "thinktime-libaio-issue|[j]\nrw=randread\nioengine=libaio\niodepth=8\ndirect=1\nsize=64M\nthinktime=20ms\nthinktime_blocks=16\nthinktime_blocks_type=issue\ntime_based\nruntime=3|rate"
  "thinktime-rate|[j]\nrw=read\nbs=4k\nsize=64M\nrate_iops=200\nthinktime=100ms\nthinktime_blocks=50\ntime_based\nruntime=2|rate"
  "rwmix-70|[j]\nrw=randrw\nrwmixread=70\nbs=4k\nsize=8M|mix"
  "rwmixwrite-20|[j]\nrw=rw\nrwmixwrite=20\nbs=4k\nsize=8M|mix"
  "number_ios|[j]\nrw=write\nbs=4k\nsize=1M\nnumber_ios=10|exact"
  "number_ios-times-loops|[j]\nrw=write\nbs=4k\nsize=1M\nnumber_ios=10\nloops=3|exact"
  "number_ios-past-size|[j]\nrw=read\nbs=4k\nsize=64k\nnumber_ios=100|exact"
  "number_ios-randread|[j]\nrw=randread\nbs=4k\nsize=1M\nnumber_ios=7|exact"
  "number_ios-iodepth|[j]\nioengine=libaio\ndirect=1\niodepth=8\nrw=read\nbs=4k\nsize=1M\nnumber_ios=13|exact"
  "number_ios-suffix|[j]\nrw=write\nbs=4k\nsize=8M\nnumber_ios=1k|exact"
  "io_size-below-size|[j]\nrw=write\nbs=4k\nsize=1M\nio_size=256k|exact"
  "io_size-loops-over-size|[j]\nrw=write\nbs=4k\nsize=256k\nio_size=1M|exact"
  "io_size-rounds-up-a-block|[j]\nrw=write\nbs=4k\nsize=256k\nio_size=1001k|exact"
  "io_size-no-pass-for-less-than-a-block|[j]\nrw=write\nbs=4k\nsize=256k\nio_size=258k|exact"
  "io_size-a-pass-for-a-block|[j]\nrw=write\nbs=4k\nsize=256k\nio_size=262k|exact"
  "io_size-read|[j]\nrw=read\nbs=4k\nsize=256k\nio_size=1M|exact"
  "io_size-randread|[j]\nrw=randread\nbs=4k\nsize=256k\nio_size=600k|exact"
  "io_size-randwrite-norandommap|[j]\nrw=randwrite\nnorandommap\nbs=4k\nsize=256k\nio_size=600k|exact"
  "io_size-percent|[j]\nrw=write\nbs=4k\nsize=1M\nio_size=10%|exact"
  "io_size-times-loops|[j]\nrw=write\nbs=4k\nsize=256k\nio_size=100k\nloops=3|exact"
  "io_size-past-loops|[j]\nrw=write\nbs=4k\nsize=256k\nio_size=1M\nloops=2|exact"
  "io_limit-and-number_ios|[j]\nrw=randrw\nbs=4k\nsize=1M\nnumber_ios=50\nio_limit=100k|total"
  "job-names-as-fio|[punch hole-fuzzer]\nrw=write\nbs=4k\nsize=64k\n[dup]\nrw=write\nbs=4k\nsize=64k\n[dup]\nstonewall\nrw=read\nbs=4k\nsize=64k\n[t] trailing text\nrw=write\nbs=4k\nsize=32k|files"
  "files-kept|[j]\nrw=write\nbs=4k\nsize=64k\nnumjobs=2|files"
  "unlink|[j]\nrw=write\nbs=4k\nsize=64k\nunlink=1\n[k]\nrw=read\nbs=4k\nsize=64k\nunlink=1\n[l]\nrw=write\nbs=4k\nsize=64k|files"
  "unlink_each_loop-write|[j]\nrw=write\nbs=4k\nsize=64k\nunlink_each_loop=1\nloops=3|files"
  "unlink_each_loop-once|[j]\nrw=read\nbs=4k\nsize=64k\nunlink_each_loop=1|files"
  "offset_increment|[j]\nrw=write\nbs=4k\nsize=64k\noffset_increment=1M\nnumjobs=3|exact"
  "startdelay|[a]\nrw=write\nbs=4k\nsize=64k\n[b]\nrw=write\nbs=4k\nsize=64k\nstartdelay=1s|exact"
)

# bytes and IOs read and written of fio's JSON (all jobs)
fio_bytes() {
    python3 -c '
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index("{"):])["jobs"]
print(*(sum(x[d][k] for x in j) for d in ("read", "write") for k in ("io_bytes", "total_ios")))' "$1"
}

# bytes and IOs read and written of a run folder's summary.json (all phases)
rb_bytes() {
    python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["phases"]
print(*(sum(x[d + k] for x in p) for d in ("read_", "write_") for k in ("bytes", "ops")))' "$1"
}

# files the agents removed at the end of the run, of a summary.json
rb_removed() {
    python3 -c '
import json, sys
print(sum(n["removed_files"] for n in json.load(open(sys.argv[1]))["nodes"]))' "$1"
}

# each regular file of a folder but those named in $2 (a space-separated
# list): name, size and the byte ranges that hold data (SEEK_DATA/SEEK_HOLE)
file_map() {
    python3 -c '
import os, sys
d, skip = sys.argv[1], sys.argv[2].split()
for name in sorted(os.listdir(d)):
    p = os.path.join(d, name)
    if name in skip or not os.path.isfile(p):
        continue
    fd = os.open(p, os.O_RDONLY)
    os.fsync(fd)
    size, off, runs = os.fstat(fd).st_size, 0, []
    while off < size:
        try:
            a = os.lseek(fd, off, os.SEEK_DATA)
        except OSError:
            break
        b = os.lseek(fd, a, os.SEEK_HOLE)
        runs.append("%d-%d" % (a, b))
        off = b
    os.close(fd)
    print(name, size, ",".join(runs))' "$1" "${2:-}"
}

scale=${RB_TEST_TIME_SCALE:-1}

[ "$part" = more ] && cases=()
for c in "${cases[@]}"; do
    IFS='|' read -r name text how <<< "$c"
    d=$scratch/$name
    body=$(printf '%b' "$text")
    fio_pair "$name" "$d" "$body" || { fail=1; continue; }
    summary="$(ls -d "$d"/runs/*/ | head -1)/summary.json"
    read -r fr fro fw fwo <<< "$(fio_bytes "$d/fio.json")"
    read -r rr rro rw rwo <<< "$(rb_bytes "$summary")"
    if [ "$how" = exact ] || [ "$how" = files ]; then
        if [ "$fr" != "$rr" ] || [ "$fw" != "$rw" ]; then
            echo "FAIL $name: fio read $fr written $fw, rackbench read $rr written $rw"; fail=1
        elif [ "$how" = files ]; then
            left=$(find "$d/fio" -type f | wc -l)
            removed=$(rb_removed "$summary")
            if [ "$left" != "$removed" ]; then
                echo "FAIL $name: fio left $left files, rackbench's agent removed $removed at the end"; fail=1
            else
                echo "ok   $name: read $rr written $rw, $left files left, as fio"
            fi
        else
            echo "ok   $name: read $rr written $rw, as fio"
        fi
    elif [ "$how" = total ]; then
        if [ $((fr + fw)) != $((rr + rw)) ]; then
            echo "FAIL $name: fio moved $((fr + fw)) bytes, rackbench $((rr + rw))"; fail=1
        else
            echo "ok   $name: $((rr + rw)) bytes in all, as fio"
        fi
    else
        # mix: the same total, reads' share of the bytes within 5 points;
        # sizes: the same bytes, each direction's mean IO size within 10%
        # (fio's random map ends some IOs early, as rackbench's does);
        # mixsizes: totals within one largest IO (each stops once its bytes are
        # issued), reads' share of the IOs within 8 points, mean sizes within 10%;
        # rate: a time-based job under rate or rate_iops, each direction's
        # bytes within 15% of fio's
        verdict=$(python3 -c '
import sys
how = sys.argv[1]
fr, fro, fw, fwo, rr, rro, rw, rwo = map(int, sys.argv[2:])
why = []
mean = lambda b, n: b / n if n else 0
def near(a, b, tol):
    return abs(a - b) <= tol * max(a, b)
if how == "rate":
    # a time-based, rate-capped job: each direction within 15% of fio
    for d, a, b in (("read", rr, fr), ("write", rw, fw)):
        if not near(a, b, 0.15): why.append("%s bytes" % d)
    text = "read %d written %d in the runtime (fio %d and %d)" % (rr, rw, fr, fw)
elif how == "mix":
    fs, rs = 100 * fr / (fr + fw), 100 * rr / (rr + rw)
    if fr + fw != rr + rw: why.append("totals differ")
    if abs(fs - rs) > 5: why.append("read share")
    text = "total %d vs %d, reads %.1f%% vs fio %.1f%%" % (rr + rw, fr + fw, rs, fs)
else:
    if how == "sizes" and (fr != rr or fw != rw): why.append("bytes differ")
    if how == "mixsizes":
        if abs((fr + fw) - (rr + rw)) > 1048576: why.append("totals differ")
        fs, rs = 100 * fro / (fro + fwo), 100 * rro / (rro + rwo)
        if abs(fs - rs) > 8: why.append("read share of IOs")
    for d, a, b in (("read", mean(rr, rro), mean(fr, fro)), ("write", mean(rw, rwo), mean(fw, fwo))):
        if not near(a, b, 0.10): why.append("mean %s size" % d)
    text = "read %d in %d IOs (fio %d in %d), written %d in %d IOs (fio %d in %d)" % (
            rr, rro, fr, fro, rw, rwo, fw, fwo)
print("FAIL" if why else "ok", text + ("; " + ", ".join(why) if why else ""))' "$how" "$fr" "$fro" "$fw" "$fwo" "$rr" "$rro" "$rw" "$rwo")
        echo "${verdict%% *} $name: ${verdict#* }"
        [ "${verdict%% *}" = ok ] || fail=1
    fi
    if [ "$name" = startdelay ]; then
        # [b] starts at least its startdelay after [a], which starts at GO
        verdict=$(python3 -c '
import json, sys
j, scale = json.load(open(sys.argv[1])), float(sys.argv[2])
w = {x["job"]: x["start_s"] for p in j["phases"] for x in p["per_worker"]}
late = w["b"] - w["a"]
ok = 0.95 <= late <= 1 + 2 * scale
print("ok" if ok else "FAIL", "[b] started %.3f s after [a] (startdelay=1s)" % late)' "$summary" "$scale")
        echo "${verdict%% *} $name-timing: ${verdict#* }"
        [ "${verdict%% *}" = ok ] || fail=1
    fi
done

# A run whose second phase waits out a long startdelay: once that phase's
# file is there, the first phase's files are as it left them; then SIGINT
# must end the run within a few seconds. Prints the file map of the first
# phase's files and the seconds from SIGINT to exit.
held_run() {
    local d=$1 body=$2
    mkdir -p "$d/rb"
    printf '[global]\ndirectory=%s\n%s\n[hold]\nstonewall\nrw=write\nbs=4k\nsize=4k\nstartdelay=600s\n' \
        "$d/rb" "$body" > "$d/rb.fio"
    "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1 &
    local pid=$! folder="" t0 t1
    for _ in $(seq 1 $((200 * scale))); do
        folder=$(ls -d "$d"/rb/rackbench.*.local-1 2> /dev/null | head -1)
        [ -n "$folder" ] && [ -e "$folder/hold.0.0" ] && break
        folder=""
        sleep 0.1
    done
    if [ -z "$folder" ]; then
        echo "FAIL: the held run never reached its second phase:"; cat "$d/rb.out"
        kill -INT $pid; wait $pid; return 1
    fi
    file_map "$folder" hold.0.0 > "$d/rb.map"
    # each file's size and the bytes allocated to it (st_blocks)
    python3 -c '
import os, sys
d = sys.argv[1]
for n in sorted(os.listdir(d)):
    if n != "hold.0.0" and os.path.isfile(os.path.join(d, n)):
        st = os.stat(os.path.join(d, n))
        print(n, st.st_size, st.st_blocks * 512)' "$folder" > "$d/rb.blocks"
    t0=$(date +%s.%N)
    kill -INT $pid
    wait $pid
    t1=$(date +%s.%N)
    python3 -c 'import sys; print("%.2f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$t0" "$t1" > "$d/rb.stop"
}

# offset_increment: the same files, of the same sizes, with data where fio puts it
incs=("per-worker|[j]\nrw=write\nbs=4k\nsize=64k\noffset_increment=1M\nnumjobs=3" \
         "filename|[j]\nrw=write\nbs=4k\nsize=64k\nfilename=shared\noffset=8k\noffset_increment=100k\nnumjobs=3")
[ "$part" = more ] && incs=()
for c in "${incs[@]}"; do
    IFS='|' read -r name text <<< "$c"
    d=$scratch/offset_increment-$name
    mkdir -p "$d/fio"
    body=$(printf '%b' "$text")
    printf '[global]\ndirectory=%s\nfallocate=none\n%s\n' "$d/fio" "$body" > "$d/fio.fio"
    if ! fio --output="$d/fio.out" "$d/fio.fio" > /dev/null 2>&1; then
        echo "FAIL offset_increment-$name: fio failed:"; cat "$d/fio.out"; fail=1; continue
    fi
    file_map "$d/fio" > "$d/fio.map"
    held_run "$d" "$body" || { fail=1; continue; }
    if ! cmp -s "$d/fio.map" "$d/rb.map"; then
        echo "FAIL offset_increment-$name: files (name size data) differ: fio"; cat "$d/fio.map"
        echo "rackbench"; cat "$d/rb.map"; fail=1
    else
        echo "ok   offset_increment-$name: $(tr '\n' ' ' < "$d/rb.map")as fio"
    fi
    # SIGINT while [hold] waits out its startdelay: the run ends at once
    stop=$(cat "$d/rb.stop")
    if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= 5 * float(sys.argv[2]) else 1)' "$stop" "$scale"; then
        echo "ok   startdelay-sigint: the run ended ${stop} s after SIGINT during a 600 s startdelay"
    else
        echo "FAIL startdelay-sigint: the run took ${stop} s to end after SIGINT during a startdelay"; fail=1
    fi
done
[ "$part" = base ] && exit $fail

# ---- directory lists ----
# fio gives clone k of a job the k-th directory of the list, round robin;
# rackbench's files are in a run folder of each directory. Each directory's
# files (name size), seen while a later phase waits out its startdelay.
d=$scratch/dirs
mkdir -p "$d/fio/d1" "$d/fio/d2" "$d/fio/d3" "$d/rb/d1" "$d/rb/d2" "$d/rb/d3"
for c in "numjobs|rw=write\nbs=4k\nsize=64k\nnrfiles=2\nnumjobs=4" \
         "filename|rw=write\nbs=4k\nsize=64k\nfilename=shared\nnumjobs=2"; do
    IFS='|' read -r name text <<< "$c"
    rm -rf "$d"/fio/d?/* "$d"/rb/d?/* "$d/runs"
    body=$(printf '%b' "$text")
    printf '[global]\nfallocate=none\ndirectory=%s\n[j]\n%s\n' "$d/fio/d1:$d/fio/d2:$d/fio/d3" "$body" > "$d/fio.fio"
    printf '[global]\ndirectory=%s\n[j]\ndirectory=%s\n%s\n[hold]\nstonewall\nrw=write\nbs=4k\nsize=4k\nstartdelay=600s\n' \
        "$d/rb" "$d/rb/d1:$d/rb/d2:$d/rb/d3" "$body" > "$d/rb.fio"
    if ! fio --output="$d/fio.out" "$d/fio.fio" > /dev/null 2>&1; then
        echo "FAIL dirs-$name: fio failed:"; cat "$d/fio.out"; fail=1; continue
    fi
    for k in 1 2 3; do
        (cd "$d/fio/d$k" && for f in *; do [ -f "$f" ] && echo "d$k $f $(stat -c %s "$f")"; done)
    done > "$d/fio.list"
    "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1 &
    pid=$!
    held=
    for _ in $(seq 1 $((200 * scale))); do
        held=$(ls "$d"/rb/rackbench.*.local-1/hold.0.0 2> /dev/null | head -1)
        [ -n "$held" ] && break
        sleep 0.1
    done
    for k in 1 2 3; do
        for f in "$d/rb/d$k"/rackbench.*.local-1/*; do [ -f "$f" ] && echo "d$k $(basename "$f") $(stat -c %s "$f")"; done
    done > "$d/rb.list"
    kill -INT $pid
    wait $pid
    if [ -z "$held" ]; then
        echo "FAIL dirs-$name: the run never reached its second phase:"; cat "$d/rb.out"; fail=1
    elif ! cmp -s "$d/fio.list" "$d/rb.list"; then
        echo "FAIL dirs-$name: files (directory name size) differ: fio"; cat "$d/fio.list"
        echo "rackbench"; cat "$d/rb.list"; fail=1
    elif ls -d "$d"/rb/d?/rackbench.* > /dev/null 2>&1; then
        echo "FAIL dirs-$name: run folders left after the run: $(ls -d "$d"/rb/d?/rackbench.*)"; fail=1
    else
        echo "ok   dirs-$name: $(tr '\n' ' ' < "$d/rb.list")as fio"
    fi
done
# a directory of the list outside [global]'s: --local roots its agents there
# too, as fio writes there (agents of a rack refuse it, naming their roots:
# test_run_faults); the run's folders go from both at the end
printf '[global]\ndirectory=%s\n[j]\ndirectory=%s\nrw=write\nbs=4k\nsize=64k\nnumjobs=2\n' \
    "$d/rb" "$d/rb/d1:$d/elsewhere" > "$d/out.fio"
mkdir -p "$d/elsewhere"
"$bin/rackbench" run "$d/out.fio" --local 1 --quiet --out "$d/runs" > "$d/out.out" 2>&1
code=$?
sum=$(ls "$d"/runs/*/summary.json 2> /dev/null | head -1)
bytes=$([ -n "$sum" ] && python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['phases'][0]['bytes'])" "$sum")
if [ $code = 0 ] && [ "$bytes" = 131072 ] && [ -z "$(ls -A "$d/elsewhere")" ]; then
    echo "ok   dirs-outside-global: --local takes $d/elsewhere as a root too: $bytes bytes, nothing left"
else
    echo "FAIL dirs-outside-global: exit $code, $bytes bytes, left: $(ls -A "$d/elsewhere")"; cat "$d/out.out"; fail=1
fi

# ---- trims ----

# The trims and writes strace saw on path $2 in trace $1, one "op offset
# length" a line in order: BLKDISCARD and punched holes are trims; pwrite
# and libaio's IOCB_CMD_PWRITE are writes. With $3 = sort, as a sorted set.
io_ops() {
    python3 -c '
import re, sys
path, out = sys.argv[2], []
fd = r"\d+<" + re.escape(path) + ">"
for line in open(sys.argv[1]):
    if "resumed>" in line:
        continue
    m = re.search(r"ioctl\(" + fd + r", BLKDISCARD, \[(\d+), (\d+)\]", line)
    if m:
        out.append(("trim", int(m[1]), int(m[2]))); continue
    m = re.search(r"fallocate\(" + fd + r", FALLOC_FL_KEEP_SIZE\|FALLOC_FL_PUNCH_HOLE, (\d+), (\d+)\)", line)
    if m:
        out.append(("trim", int(m[1]), int(m[2]))); continue
    # a call another thread interrupted ends its line "<unfinished ...>"
    m = re.search(r"pwrite64\(" + fd + r", .*, (\d+), (\d+)(\) += | <unfinished \.\.\.>)", line)
    if m:
        out.append(("write", int(m[2]), int(m[1]))); continue
    for m in re.finditer(r"IOCB_CMD_PWRITE, aio_fildes=" + fd + r", .*?aio_nbytes=(\d+), aio_offset=(\d+)", line):
        out.append(("write", int(m[2]), int(m[1])))
if sys.argv[3:] == ["sort"]:
    out.sort()
for o in out:
    print(*o)' "$@"
}

# trims and writes of fio's JSON and of a summary.json: bytes and ops of each
fio_tw() {
    python3 -c '
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index("{"):])["jobs"]
print(*(sum(x[d][k] for x in j) for d in ("trim", "write") for k in ("io_bytes", "total_ios")))' "$1"
}
rb_tw() {
    python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["phases"]
print(*(sum(x["directions"][d][k] for x in p) for d in ("trim", "write") for k in ("bytes", "ops")))' "$1"
}

# each trim of a trimwrite followed by the write of its block: 1 line a pair
pairs_ok() {
    python3 -c '
import sys
ops = [l.split() for l in open(sys.argv[1])]
bad = [i for i in range(0, len(ops), 2)
       if ops[i][0] != "trim" or i + 1 >= len(ops) or ops[i + 1][0] != "write" or ops[i][1] != ops[i + 1][1]]
sys.exit(1 if bad or not ops else 0)' "$1"
}

# LeakSanitizer cannot run under ptrace: a sanitized build traced by strace
# keeps AddressSanitizer's other checks and leaves leaks to the untraced runs
nolsan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
if [ "$(id -u)" -ne 0 ] || ! command -v losetup > /dev/null || ! command -v strace > /dev/null; then
    it_skip "trims on a loop device: needs root, losetup and strace"
else
    loop=
    trap 'rm -rf "$scratch"; [ -n "$loop" ] && losetup -d "$loop"' EXIT
    truncate -s 16M "$scratch/trim.img"
    loop=$(losetup --find --show --direct-io=on "$scratch/trim.img")
    # name | job options | how the IO is compared (order: one by one; set: as
    # a sorted set; range: sizes drawn at random, so the same bytes, every
    # trim of a size in the range and where the last one ended)
    for c in "trim|rw=trim\nbs=16k\nsize=1M|order" \
             "randtrim|rw=randtrim\nbs=16k\nsize=1M|set" \
             "trimwrite|rw=trimwrite\nbs=16k\nsize=1M|order" \
             "trimwrite-libaio|rw=trimwrite\nbs=16k\nsize=1M\nioengine=libaio\niodepth=4|order" \
             "randtrimwrite|rw=randtrimwrite\nbs=16k\nsize=1M|set" \
             "trimwrite-sizes|rw=trimwrite\nbs=4k,8k,16k\nsize=256k|order" \
             "trim-bsrange|rw=trim\nbsrange=4k-4k,4k-4k,16k-64k\nsize=1M|range" \
             "trim-io_uring|rw=randtrim\nbs=16k\nsize=1M\nioengine=io_uring\niodepth=8|set" \
             "trim-number_ios|rw=trimwrite\nbs=16k\nsize=1M\nnumber_ios=5|order" \
             "trim-offset|rw=trim\nbs=64k\nsize=512k\noffset=4M|order" \
             "size-offset-percent|rw=write\nbs=64k\nsize=30%\noffset=10%|order" \
             "size-percent-to-the-end|rw=write\nbs=64k\nsize=80%\noffset=50%|order" \
             "offset-percent|rw=write\nbs=16k\nsize=1M\noffset=33%|order"; do
        IFS='|' read -r name text how <<< "$c"
        d=$scratch/dev-$name
        mkdir -p "$d/root"
        body=$(printf '%b' "$text")
        printf '[j]\ndirect=1\nfilename=%s\n%s\n' "$loop" "$body" > "$d/fio.fio"
        printf '[global]\ndirectory=%s\n[j]\ndirectory=\ndirect=1\nfilename=%s\n%s\n' "$d/root" "$loop" "$body" > "$d/rb.fio"
        if ! strace -f -y -e trace=ioctl,pwrite64,io_submit -o "$d/fio.st" \
                fio $IT_FIO_FLAGS --output-format=json --output="$d/fio.json" "$d/fio.fio" > "$d/fio.out" 2>&1; then
            echo "FAIL trims-$name: fio failed:"; cat "$d/fio.out" "$d/fio.json"; fail=1; continue
        fi
        if ! ASAN_OPTIONS="$nolsan" strace -f -y -e trace=ioctl,pwrite64,io_submit -o "$d/rb.st" \
                "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" \
                --agent-arg "--allow-device=$loop" > "$d/rb.out" 2>&1; then
            echo "FAIL trims-$name: rackbench failed:"; cat "$d/rb.out"; fail=1; continue
        fi
        summary="$(ls -d "$d"/runs/*/ | head -1)/summary.json"
        sort=; [ "$how" = set ] && sort=sort
        io_ops "$d/fio.st" "$loop" $sort > "$d/fio.ops"
        io_ops "$d/rb.st" "$loop" $sort > "$d/rb.ops"
        read -r ftb fto fwb fwo <<< "$(fio_tw "$d/fio.json")"
        read -r rtb rto rwb rwo <<< "$(rb_tw "$summary")"
        why=
        if [ "$how" = range ]; then
            [ "$ftb $fwb" = "$rtb $rwb" ] || why="fio trimmed $ftb, wrote $fwb; rackbench trimmed $rtb, wrote $rwb"
        else
            [ "$ftb $fto $fwb $fwo" = "$rtb $rto $rwb $rwo" ] ||
                why="fio trimmed $ftb in $fto, wrote $fwb in $fwo; rackbench trimmed $rtb in $rto, wrote $rwb in $rwo"
        fi
        nf=$(grep -c . "$d/fio.ops") nr=$(grep -c . "$d/rb.ops")
        [ "$nf" = $((fto + fwo)) ] || why="$why; strace saw $nf trims and writes of fio, its JSON says $((fto + fwo))"
        [ "$nr" = $((rto + rwo)) ] || why="$why; strace saw $nr trims and writes of rackbench, its summary says $((rto + rwo))"
        if [ "$how" = range ]; then
            python3 -c '
import sys
ops, end = [l.split() for l in open(sys.argv[1])], 0
for op, off, n in ops:
    if op != "trim" or int(off) != end or not 16384 <= int(n) <= 65536 or int(n) % 4096:
        sys.exit(1)
    end += int(n)' "$d/rb.ops" || why="$why; a trim out of the range or not where the last one ended"
        elif ! cmp -s "$d/fio.ops" "$d/rb.ops"; then
            why="$why; the IOs differ (fio, rackbench): $(diff "$d/fio.ops" "$d/rb.ops" | head -6 | tr '\n' ' ')"
        fi
        case $name in
            *trimwrite*|trim-number_ios)
                [ "$how" = set ] && io_ops "$d/rb.st" "$loop" > "$d/rb.order" || cp "$d/rb.ops" "$d/rb.order"
                [ "$name" = trimwrite-sizes ] || pairs_ok "$d/rb.order" || why="$why; a trim not followed by the write of its block" ;;
        esac
        if [ -n "$why" ]; then
            echo "FAIL trims-$name: ${why#; }"; fail=1
        else
            echo "ok   trims-$name: $nr IOs on $loop ($how), trimmed $rtb in $rto, wrote $rwb in $rwo, as fio"
        fi
    done
fi

# A file: rackbench punches holes where fio would trim (fio's null engine
# shows where; fio itself fails, BLKDISCARD on a file being ENOTTY)
d=$scratch/file-trim
mkdir -p "$d/fio" "$d/rb"
body=$'[j]\nrw=trim\nbs=64k\nsize=1M\nio_size=512k'
printf '[global]\ndirectory=%s\n%s\n' "$d/fio" "$body" > "$d/fio.fio"
printf '[global]\ndirectory=%s\n%s\n' "$d/rb" "$body" > "$d/rb.fio"
fio --output="$d/fio-real.out" "$d/fio.fio" > /dev/null 2>&1
if ! grep -q "Inappropriate ioctl for device" "$d/fio-real.out"; then
    echo "note file-trim: fio's trim of a file did not fail with ENOTTY: $(grep -m1 err= "$d/fio-real.out")"
fi
rm -f "$d"/fio/*
fio --ioengine=null --write_iolog="$d/fio.log" --output="$d/fio.out" "$d/fio.fio" > /dev/null 2>&1
awk '$3 == "trim" { print "trim", $4, $5 }' "$d/fio.log" > "$d/fio.ops"
if command -v strace > /dev/null && ASAN_OPTIONS="$nolsan" strace -f -y -e trace=fallocate -o "$d/rb.st" \
        "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1; then
    f=$(grep -o "<$d/rb/[^>]*/j.0.0>" "$d/rb.st" | head -1 | tr -d '<>')
    io_ops "$d/rb.st" "$f" > "$d/rb.ops"
    summary="$(ls -d "$d"/runs/*/ | head -1)/summary.json"
    read -r rtb rto _ _ <<< "$(rb_tw "$summary")"
    if [ -s "$d/fio.ops" ] && cmp -s "$d/fio.ops" "$d/rb.ops" && [ "$rtb $rto" = "524288 8" ]; then
        echo "ok   file-trim: $(wc -l < "$d/rb.ops") holes punched where fio places its trims, 512 KiB trimmed in 8"
    else
        echo "FAIL file-trim: trims differ (fio, rackbench; summary $rtb in $rto):"
        diff "$d/fio.ops" "$d/rb.ops" | head; fail=1
    fi
else
    echo "FAIL file-trim: rackbench failed:"; cat "$d/rb.out"; fail=1
fi
# the file's blocks: laid out whole, trimmed in its first half, seen while
# a later phase waits out its startdelay
d=$scratch/file-trim-held
if held_run "$d" "$body"; then
    read -r _ size alloc < "$d/rb.blocks"
    if [ "$(cat "$d/rb.map")" = "j.0.0 1048576 524288-1048576" ] && [ "$size" = 1048576 ] &&
       [ "$alloc" -le 524288 ]; then
        echo "ok   file-trim-blocks: j.0.0 keeps its 1 MiB, data only in its second half, $alloc bytes allocated (of 1 MiB laid out)"
    else
        echo "FAIL file-trim-blocks: map $(cat "$d/rb.map"), size $size, $alloc bytes allocated"; fail=1
    fi
else
    fail=1
fi
# ---- page cache advice ----

# The fadvise64 calls on the file named $2 (its base name) in trace $1 after
# the last open of it (the job's open; fio's layout and rackbench's prefill
# come before): "offset length advice", one a line.
advice() {
    python3 -c '
import re, sys
name, out = sys.argv[2], []
fd = r"\d+<[^>]*/" + re.escape(name) + ">"
for line in open(sys.argv[1]):
    if re.search(r"openat\([^,]*, \"([^\"]*/)?" + re.escape(name) + "\"", line) and "resumed>" not in line:
        out = []
    m = re.search(r"fadvise64\(" + fd + r", (\d+), (\d+), (POSIX_FADV_\w+)", line)
    if m:
        out.append(" ".join(m.groups()))
print("\n".join(out))' "$@"
}
if ! command -v strace > /dev/null; then
    it_skip "page cache advice: needs strace"
else
    # name | job options: the advice fio gives when the job opens its file, given alike
    for c in "advice-read|rw=read\nbs=4k\nsize=1M\noffset=64k" \
             "advice-randread|rw=randread\nbs=4k\nsize=1M" \
             "advice-write-random|rw=write\nbs=4k\nsize=512k\nfadvise_hint=random" \
             "advice-sequential|rw=randwrite\nbs=4k\nsize=512k\nfadvise_hint=sequential\ninvalidate=0" \
             "advice-none|rw=read\nbs=4k\nsize=512k\nfadvise_hint=0\ninvalidate=0"; do
        IFS='|' read -r name text <<< "$c"
        d=$scratch/$name
        mkdir -p "$d/fio" "$d/rb"
        body=$(printf '%b' "$text")
        printf '[global]\ndirectory=%s\nfallocate=none\n[j]\n%s\n' "$d/fio" "$body" > "$d/fio.fio"
        printf '[global]\ndirectory=%s\n[j]\n%s\n' "$d/rb" "$body" > "$d/rb.fio"
        if ! strace -f -y -e trace=openat,fadvise64 -o "$d/fio.st" \
                fio $IT_FIO_FLAGS --output-format=json --output="$d/fio.json" "$d/fio.fio" > "$d/fio.out" 2>&1; then
            echo "FAIL $name: fio failed:"; cat "$d/fio.out"; fail=1; continue
        fi
        if ! ASAN_OPTIONS="$nolsan" strace -f -y -e trace=openat,fadvise64 -o "$d/rb.st" \
                "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1; then
            echo "FAIL $name: rackbench failed:"; cat "$d/rb.out"; fail=1; continue
        fi
        advice "$d/fio.st" j.0.0 > "$d/fio.adv"
        advice "$d/rb.st" j.0.0 > "$d/rb.adv"
        if cmp -s "$d/fio.adv" "$d/rb.adv"; then
            echo "ok   $name: $(tr '\n' ';' < "$d/rb.adv") as fio"
        else
            echo "FAIL $name: advice differs: fio $(tr '\n' ';' < "$d/fio.adv") rackbench $(tr '\n' ';' < "$d/rb.adv")"; fail=1
        fi
    done
fi
it_exit "$fail"
