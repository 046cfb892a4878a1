#!/usr/bin/env bash
# The calls fio and `rackbench run --local 1` make on a job's file, side by
# side, each tool under strace.
# - The small synchronous engines, ioengine=psync, pvsync, pvsync2 and
#   vsync: each job's IOs on its file, as the calls the engine names make
#   them (pread64/pwrite64, preadv/pwritev, preadv2/pwritev2, lseek then
#   readv/writev): sequential writes and reads, the same (direction, offset,
#   length) in the same order as fio's; random reads, the same set (each
#   block once); and no call of another engine's kind on the job's file.
# - ioengine=posixaio at iodepth=8: the same IOs, as pread64/pwrite64 made by
#   glibc's helper threads. glibc gives a file's requests to one helper at a
#   time, in the order they were queued, so fio's sequential order is
#   deterministic and is compared as it is. The thread that makes a job's
#   IOs is one level deeper in the tree of threads than psync's (the worker
#   started it: it is not the worker), in both tools; and a separate run
#   without strace shows IOs in flight together: IOPS x mean latency (Little's
#   law, the mean number in flight) above 2 in both, where one IO at a time
#   cannot exceed 1 (rackbench's posixaio at iodepth=1, the control).
# - fallocate= (default, none, native, posix, keep, truncate, 0, 1): the
#   fallocate and ftruncate calls on the file of a job that writes it and of
#   one that reads it (laid out first), the same as fio's, call by call.
# - cpus_allowed, cpumask and cpus_allowed_policy: each job's threads (those
#   that write its file) set the same CPU affinity as fio's, split round
#   robin by the thread's place in the whole job file, as fio numbers them.
# - The engines' own options: io_uring's sqthread_poll (with and without
#   sqthread_poll_cpu) and hipri, each tool's io_uring_setup flags
#   (IORING_SETUP_SQPOLL, IORING_SETUP_SQ_AFF on that CPU,
#   IORING_SETUP_IOPOLL) and the bytes each job moves; hipri with buffered
#   IO, where every IO fails in fio (Operation not supported), failing in
#   both the same way; pvsync2's hipri, RWF_HIPRI on every preadv2/pwritev2
#   of the job's files in both, the same IOs.
# - fsync=N, fdatasync=N and sync_file_range=FLAGS:N: the writes and syncs
#   of a job's thread on its file, in order, the same as fio's: a sync
#   before the write after every N-th, none after the job's last write;
#   sync_file_range over the bytes written since the last sync, with its
#   flags; two of them together, the first due (fsync, fdatasync,
#   sync_file_range) after each write.
# - lockmem: each worker's mlock and munlock of that many bytes, two
#   workers, the same calls as fio's (under AddressSanitizer, which makes
#   mlock do nothing, the mappings it would lock).
# - create_fsync=0 and 1: the fsync calls on the file a read job lays out,
#   the same count as fio's (one with 1, none with 0).
#   test_fio_calls.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
scratch=$2/fio-engines.$$
it_need fio "Debian's fio, the peer these tests run beside"
it_need strace "to see the calls each tool makes"
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
fail=0
# LeakSanitizer cannot run under ptrace (as in test_fio_semantics.sh)
nolsan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
calls=pread64,pwrite64,preadv,pwritev,preadv2,pwritev2,lseek,readv,writev
# thread and process creation, for the depth of the thread that makes the IOs
spawn=clone,clone3,fork,vfork

# The IOs of direction $4 (read, write) on job $3's file (its name starts
# with "$3.") under folder $2 in the per-thread traces $1.*: one "call dir
# offset length" a line, in the order each thread made them (one thread
# does a job's IO). Reads only of a read job: how each tool lays out the
# file it reads is its own (fio write(), rackbench pwrite before GO).
ios() {
    python3 - "$@" <<'PY'
import glob, re, sys
prefix, root, job, want = sys.argv[1:5]
line_re = re.compile(r'^(\w+)\((\d+)<([^>]*)>, (.*)\) += (-?\d+)')
for path in sorted(glob.glob(prefix + ".*")):
    pos = {}
    for line in open(path):
        m = line_re.match(line)
        if not m:
            continue
        call, fd, name, args, ret = m[1], m[2], m[3], m[4], int(m[5])
        if not name.startswith(root + "/") or not name.split("/")[-1].startswith(job + "."):
            continue
        if call == "lseek":
            if args.endswith("SEEK_SET"):
                pos[fd] = ret
            continue
        if ret <= 0:
            continue
        d = "read" if "read" in call else "write"
        if d != want:
            continue
        if call in ("readv", "writev"):
            off = pos.get(fd, 0)
            pos[fd] = off + ret
        else:
            off = int(re.search(r'\], \d+, (\d+)', args)[1]) if call.endswith(("v", "v2")) \
                else int(args.rsplit(", ", 1)[1])
        print(call, d, off, ret)
PY
}

# The depths, in the tree of processes and threads traced in $1.* (the
# command traced at 0), of the threads that made pread64/pwrite64 calls of
# direction $4 (read, write) on job $3's file under folder $2: the distinct
# depths, sorted, comma-separated (reads only of a read job, as in ios).
depth() {
    python3 - "$@" <<'PY'
import glob, os, re, sys
prefix, root, job, want = sys.argv[1:5]
parent, io = {}, set()
spawn_re = re.compile(r'^(?:clone3?|v?fork)\(.*\) += (\d+)$')
io_re = re.compile(r'^p(read|write)64\((\d+)<([^>]*)>, .*\) += \d+')
for path in glob.glob(prefix + ".*"):
    tid = int(path.rsplit(".", 1)[1])
    for line in open(path):
        m = spawn_re.match(line)
        if m:
            parent[int(m[1])] = tid
            continue
        m = io_re.match(line)
        if m and m[1] == want and m[3].startswith(root + "/") and \
                m[3].split("/")[-1].startswith(job + "."):
            io.add(tid)
def depth(t):
    n = 0
    while t in parent and n < 100:
        t, n = parent[t], n + 1
    return n
print(",".join(str(x) for x in sorted({depth(t) for t in io})))
PY
}

# job, its body, its direction and how its IOs are compared: "order" or "set"
jobs=(
  "w|rw=write\nbs=16k\nsize=1M|write|order"
  "r|stonewall\nrw=read\nbs=4k\nsize=512k|read|order"
  "rr|stonewall\nrw=randread\nbs=4k\nsize=512k|read|set"
)
declare -A want=([psync]="pread64 pwrite64" [pvsync]="preadv pwritev" [pvsync2]="preadv2 pwritev2"
                 [vsync]="readv writev" [posixaio]="pread64 pwrite64")
declare -A depth_psync=()
for eng in psync pvsync pvsync2 vsync posixaio; do
    d=$scratch/$eng
    mkdir -p "$d/fio" "$d/rb"
    body=""
    for j in "${jobs[@]}"; do
        IFS='|' read -r name text dir how <<< "$j"
        body+=$(printf '[%s]\n%b\n' "$name" "$text")$'\n'
    done
    qd=""
    [ $eng = posixaio ] && qd="iodepth=8"$'\n'
    printf '[global]\ndirectory=%s\nioengine=%s\n%sfallocate=none\n%s' "$d/fio" "$eng" "$qd" "$body" > "$d/fio.fio"
    printf '[global]\ndirectory=%s\nioengine=%s\n%s%s' "$d/rb" "$eng" "$qd" "$body" > "$d/rb.fio"
    if ! strace -qq -f -ff -s 0 -y -e trace=$calls,$spawn -o "$d/fio.st" \
            fio $IT_FIO_FLAGS --output-format=json --output="$d/fio.json" "$d/fio.fio" > "$d/fio.out" 2>&1; then
        echo "FAIL $eng: fio failed:"; cat "$d/fio.out"; fail=1; continue
    fi
    if ! ASAN_OPTIONS="$nolsan" strace -qq -f -ff -s 0 -y -e trace=$calls,$spawn -o "$d/rb.st" \
            "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1; then
        echo "FAIL $eng: rackbench failed:"; cat "$d/rb.out"; fail=1; continue
    fi
    for j in "${jobs[@]}"; do
        IFS='|' read -r name text dir how <<< "$j"
        ios "$d/fio.st" "$d/fio" "$name" "$dir" > "$d/fio.$name"
        ios "$d/rb.st" "$d/rb" "$name" "$dir" > "$d/rb.$name"
        v=$(python3 - "$d/fio.$name" "$d/rb.$name" "$how" "${want[$eng]}" <<'PY'
import sys
fa, fb, how, want = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split()
def load(p):
    rows = [l.split() for l in open(p) if l.strip()]
    return [r[0] for r in rows], [(r[1], int(r[2]), int(r[3])) for r in rows]
ca, a = load(fa)
cb, b = load(fb)
other = sorted(set(cb) - set(want))
if not a:
    print("FAIL fio made no %s call on the job's file" % "/".join(want))
elif other:
    print("FAIL rackbench made %s calls on the job's file" % ",".join(other))
elif (a if how == "order" else sorted(a)) != (b if how == "order" else sorted(b)):
    print("FAIL fio %d IOs (%d bytes), rackbench %d (%d bytes); first difference at IO %s" % (
        len(a), sum(x[2] for x in a), len(b), sum(x[2] for x in b),
        next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))))
else:
    print("ok %d IOs, %d bytes, by %s, %s" % (len(b), sum(x[2] for x in b), "/".join(sorted(set(cb))),
          "in fio's order" if how == "order" else "the same offsets as fio's"))
PY
)
        echo "${v%% *} $eng $name: ${v#* }"
        [ "${v%% *}" = ok ] || fail=1
        # the depth of the threads that made the job's IOs: psync's is the
        # worker's own, posixaio's must be one deeper (a thread the worker
        # started), never the worker
        for t in fio rb; do
            dep=$(depth "$d/$t.st" "$d/$t" "$name" "$dir")
            if [ $eng = psync ]; then
                depth_psync[$t.$name]=$dep
            elif [ $eng = posixaio ]; then
                tool=$([ $t = fio ] && echo fio || echo rackbench)
                if [ -n "$dep" ] && [ "$dep" = "$((${depth_psync[$t.$name]:-99} + 1))" ]; then
                    echo "ok   posixaio $name: $tool's IOs made by threads at depth $dep, the worker's at ${depth_psync[$t.$name]} (psync's)"
                else
                    echo "FAIL posixaio $name: $tool's IOs made by threads at depth '${dep}', psync's at '${depth_psync[$t.$name]:-}': not a thread the worker started"
                    fail=1
                fi
            fi
        done
    done
done

# posixaio's IOs in flight together: the mean number in flight of each
# tool's job (IOPS x mean latency, from fio's JSON and rackbench's fio.json)
# at iodepth=8, and rackbench's at iodepth=1 as the control (at most 1).
inflight() {
    python3 - "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["read"]
print("%.2f %d %.1f" % (j["iops"] * j["lat_ns"]["mean"] / 1e9, j["iops"], j["lat_ns"]["mean"] / 1e3))
PY
}
d=$scratch/posixaio-qd
mkdir -p "$d/fio" "$d/rb1" "$d/rb8"
job='[q]\nrw=randread\nbs=4k\nsize=8M\n'
printf "[global]\ndirectory=%s\nioengine=posixaio\niodepth=8\n$job" "$d/fio" > "$d/fio.fio"
printf "[global]\ndirectory=%s\nioengine=posixaio\niodepth=8\n$job" "$d/rb8" > "$d/rb8.fio"
printf "[global]\ndirectory=%s\nioengine=posixaio\niodepth=1\n$job" "$d/rb1" > "$d/rb1.fio"
if ! fio --output-format=json --output="$d/fio.json" "$d/fio.fio" > "$d/fio.out" 2>&1; then
    echo "FAIL posixaio in flight: fio failed:"; cat "$d/fio.out" "$d/fio.json"; fail=1
elif ! "$bin/rackbench" run "$d/rb8.fio" --local 1 --quiet --out "$d/runs8" > "$d/rb8.out" 2>&1 ||
     ! "$bin/rackbench" run "$d/rb1.fio" --local 1 --quiet --out "$d/runs1" > "$d/rb1.out" 2>&1; then
    echo "FAIL posixaio in flight: rackbench failed:"; cat "$d/rb8.out" "$d/rb1.out"; fail=1
else
    read -r lf if lf_lat <<< "$(inflight "$d/fio.json")"
    read -r l8 i8 l8_lat <<< "$(inflight "$d"/runs8/*/fio.json)"
    read -r l1 i1 l1_lat <<< "$(inflight "$d"/runs1/*/fio.json)"
    msg="in flight (IOPS x mean lat): fio qd8 $lf ($if IOPS, $lf_lat us), rackbench qd8 $l8 ($i8 IOPS, $l8_lat us), rackbench qd1 $l1 ($i1 IOPS, $l1_lat us)"
    if python3 -c "import sys; f, a, b = map(float, sys.argv[1:]); sys.exit(not (f > 2 and a > 2 and b <= 1.05))" "$lf" "$l8" "$l1"; then
        echo "ok   posixaio $msg"
    else
        echo "FAIL posixaio $msg"; fail=1
    fi
fi

# fallocate=: the fallocate and ftruncate calls on job $3's file in traces $1.*
# under folder $2, one "call flags offset length" a line (ftruncate: "ftruncate
# - 0 length"), in order
sizing() {
    python3 - "$@" <<'PY'
import glob, re, sys
prefix, root, job = sys.argv[1:4]
line_re = re.compile(r'^(fallocate|ftruncate)\((\d+)<([^>]*)>, (.*)\) += 0')
for path in sorted(glob.glob(prefix + ".*")):
    for line in open(path):
        m = line_re.match(line)
        if not m or not m[3].startswith(root + "/") or not m[3].split("/")[-1].startswith(job + "."):
            continue
        a = [x.strip() for x in m[4].split(",")]
        print(m[1], *(a if m[1] == "fallocate" else ["-", "0", a[0]]))
PY
}
for mode in default none native posix keep truncate 0 1; do
    d=$scratch/fallocate-$mode
    mkdir -p "$d/fio" "$d/rb"
    opt=""
    [ $mode = default ] || opt="fallocate=$mode"
    body=$(printf '[w]\nrw=randwrite\nbs=4k\nsize=1M\nio_size=256k\n%s\n[r]\nstonewall\nrw=randread\nbs=4k\nsize=1M\nio_size=256k\n%s\n' "$opt" "$opt")
    printf '[global]\ndirectory=%s\nioengine=psync\n%s\n' "$d/fio" "$body" > "$d/fio.fio"
    printf '[global]\ndirectory=%s\nioengine=psync\n%s\n' "$d/rb" "$body" > "$d/rb.fio"
    if ! strace -qq -f -ff -y -e trace=fallocate,ftruncate -o "$d/fio.st" \
            fio $IT_FIO_FLAGS --output="$d/fio.out" "$d/fio.fio" > /dev/null 2>&1; then
        echo "FAIL fallocate=$mode: fio failed:"; cat "$d/fio.out"; fail=1; continue
    fi
    if ! ASAN_OPTIONS="$nolsan" strace -qq -f -ff -y -e trace=fallocate,ftruncate -o "$d/rb.st" \
            "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1; then
        echo "FAIL fallocate=$mode: rackbench failed:"; cat "$d/rb.out"; fail=1; continue
    fi
    for job in w r; do
        a=$(sizing "$d/fio.st" "$d/fio" $job | tr '\n' ';')
        b=$(sizing "$d/rb.st" "$d/rb" $job | tr '\n' ';')
        if [ "$a" = "$b" ]; then
            echo "ok   fallocate=$mode $job: ${b:-no call}"
        else
            echo "FAIL fallocate=$mode $job: fio ${a:-no call}, rackbench ${b:-no call}"; fail=1
        fi
    done
done

# CPU affinity: per job (in the order of $4), the CPU sets its threads gave
# sched_setaffinity in traces $1.* under folder $2, a thread's job being the
# one whose file it writes: "job:[0 1],[1];job2:..." (each job's sorted)
affinity() {
    python3 - "$@" <<'PY'
import glob, re, sys
prefix, root, jobs = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
got = {j: [] for j in jobs}
for path in glob.glob(prefix + ".*"):
    text = open(path).read()
    masks = re.findall(r'^sched_setaffinity\(\d+, \d+, \[([\d ]*)\]\) += 0', text, re.M)
    for j in jobs:
        if re.search(r'^pwrite64\(\d+<' + re.escape(root) + r'/(?:[^>]*/)?' + re.escape(j) + r'\.',
                     text, re.M):
            got[j] += ["[%s]" % m for m in masks]
print(";".join("%s:%s" % (j, ",".join(sorted(got[j]))) for j in jobs))
PY
}
d=$scratch/cpus
mkdir -p "$d/fio" "$d/rb"
ncpu=$(nproc)
last=$((ncpu - 1))
# a shared set; split, its one thread the plan's second (CPU 1 of 0-1);
# split over three threads, the 3rd to 5th (0, 1, 0); a mask (CPU 1)
body=$(printf '[a]\ncpus_allowed=0-%s\n[b]\nstonewall\ncpus_allowed=0-%s\ncpus_allowed_policy=split\n[c]\nstonewall\nnumjobs=3\ncpus_allowed=0-%s\ncpus_allowed_policy=split\n[d]\nstonewall\ncpumask=2\n' $last $last $last)
if [ "$ncpu" -lt 2 ]; then
    it_skip "cpus_allowed: one CPU"
else
    for t in fio rb; do
        printf '[global]\ndirectory=%s\nioengine=psync\nrw=write\nbs=4k\nsize=64k\n%s\n' "$d/$t" "$body" > "$d/$t.fio"
    done
    if ! strace -qq -f -ff -y -e trace=sched_setaffinity,pwrite64 -o "$d/fio.st" \
            fio $IT_FIO_FLAGS --output="$d/fio.out" "$d/fio.fio" > /dev/null 2>&1; then
        echo "FAIL cpus_allowed: fio failed:"; cat "$d/fio.out"; fail=1
    elif ! ASAN_OPTIONS="$nolsan" strace -qq -f -ff -y -e trace=sched_setaffinity,pwrite64 -o "$d/rb.st" \
            "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1; then
        echo "FAIL cpus_allowed: rackbench failed:"; cat "$d/rb.out"; fail=1
    else
        a=$(affinity "$d/fio.st" "$d/fio" a,b,c,d)
        b=$(affinity "$d/rb.st" "$d/rb" a,b,c,d)
        if [ "$a" = "$b" ] && [[ "$b" == *"b:[1];"* ]]; then
            echo "ok   cpus_allowed: $b"
        else
            echo "FAIL cpus_allowed: fio $a, rackbench $b"; fail=1
        fi
    fi
fi

# The engines' own options. Each case: a write job, then (stonewall) a
# random read job, through fio and rackbench under strace. setup_flags $1
# prints the flags of every io_uring_setup that succeeded in trace $1, one
# "FLAGS cpu=N" a line; moved $1 $2 prints "READ WRITE" bytes of fio's JSON
# ($1 fio) or of a run folder's summary.json ($1 rb).
setup_flags() {
    sed -n 's/.*io_uring_setup([0-9]*, {flags=\([^,]*\), sq_thread_cpu=\([^,]*\),.*) = [0-9][0-9]*\(<.*>\)\{0,1\}$/\1 cpu=\2/p' "$1" | sort -u
}
moved() {
    python3 - "$@" <<'PY'
import glob, json, sys
kind, path = sys.argv[1:3]
if kind == "fio":
    jobs = json.load(open(path))["jobs"]
    print(sum(j["read"]["io_bytes"] for j in jobs), sum(j["write"]["io_bytes"] for j in jobs))
else:
    s = json.load(open(glob.glob(path + "/*/summary.json")[0]))
    print(sum(p["read_bytes"] for p in s["phases"]), sum(p["write_bytes"] for p in s["phases"]))
PY
}
# The jobs of a case: a write job, a random read job (its file laid out
# first), or both (the read after the write, stonewall).
wjob=$(printf '[w]\nrw=write\nbs=16k\nsize=1M')
rjob=$(printf '[r]\nstonewall\nrw=randread\nbs=4k\nsize=512k')
# case name | engine | options | jobs (w, r, wr) | flags every setup must have |
# flags none may have | outcome: ok (both succeed, the same bytes), fio (as
# fio: the same bytes, or the same error), or the error both must end with
uring_cases=(
  "sqpoll|io_uring|sqthread_poll=1|wr|IORING_SETUP_SQPOLL|IORING_SETUP_SQ_AFF IORING_SETUP_IOPOLL|ok"
  "sqpoll_cpu|io_uring|sqthread_poll=1\nsqthread_poll_cpu=1|wr|IORING_SETUP_SQPOLL IORING_SETUP_SQ_AFF cpu=0x1|IORING_SETUP_IOPOLL|ok"
  "cpu_alone|io_uring|sqthread_poll_cpu=1|wr|-|IORING_SETUP_SQPOLL IORING_SETUP_SQ_AFF|ok"
  "hipri_write|io_uring|hipri\ndirect=1|w|IORING_SETUP_IOPOLL|IORING_SETUP_SQPOLL|fio"
  "hipri_read|io_uring|hipri\ndirect=1|r|IORING_SETUP_IOPOLL|IORING_SETUP_SQPOLL|fio"
  "hipri_buffered|io_uring|hipri\ndirect=0|w|IORING_SETUP_IOPOLL|IORING_SETUP_SQPOLL|Operation not supported"
  "pvsync2_hipri|pvsync2|hipri\ndirect=1|wr|-|-|ok"
)
for c in "${uring_cases[@]}"; do
    IFS='|' read -r name eng opts jobs have lack outcome <<< "$c"
    if [[ "$opts" == *poll_cpu* ]] && [ "$(nproc)" -lt 2 ]; then
        it_skip "$name: one CPU"; continue
    fi
    d=$scratch/opt-$name
    mkdir -p "$d/fio" "$d/rb"
    case $jobs in w) body=$wjob ;; r) body=$rjob ;; *) body="$wjob"$'\n'"$rjob" ;; esac
    for t in fio rb; do
        printf '[global]\ndirectory=%s\nioengine=%s\niodepth=4\nfallocate=none\n%b\n%s\n' \
            "$d/$t" "$eng" "$opts" "$body" > "$d/$t.fio"
    done
    sed -i '/^fallocate=none$/d' "$d/rb.fio"
    trace="io_uring_setup,io_uring_enter,preadv2,pwritev2"
    timeout 120 strace -qq -f -s 0 -y -e trace=$trace -o "$d/fio.st" \
        fio $IT_FIO_FLAGS --output-format=json --output="$d/fio.json" "$d/fio.fio" > "$d/fio.out" 2>&1
    frc=$?
    ASAN_OPTIONS="$nolsan" timeout 120 strace -qq -f -s 0 -y -e trace=$trace -o "$d/rb.st" \
        "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1
    rrc=$?
    why=""
    if [ "$eng" = io_uring ]; then
        for t in fio rb; do
            flags=$(setup_flags "$d/$t.st")
            [ -n "$flags" ] || why+=" $t: no io_uring_setup succeeded;"
            while read -r line; do
                [ -n "$line" ] || continue
                for f in $have; do
                    [ "$f" = - ] || [[ " $line " == *"$f"[\ \|]* ]] || why+=" $t: setup without $f ($line);"
                done
                for f in $lack; do
                    [ "$f" = - ] || [[ " $line " != *"$f"[\ \|]* ]] || why+=" $t: setup with $f ($line);"
                done
            done <<< "$flags"
        done
        figures="flags $(setup_flags "$d/rb.st" | head -1 | cut -d' ' -f1), io_uring_enter fio $(grep -c 'io_uring_enter(' "$d/fio.st") rackbench $(grep -c 'io_uring_enter(' "$d/rb.st")"
    else
        # every preadv2/pwritev2 of the jobs' files carries RWF_HIPRI; the same (call, offset, length) set
        v=$(python3 - "$d" <<'PY'
import re, sys
d = sys.argv[1]
call_re = re.compile(r'^\d+ +(preadv2|pwritev2)\(\d+<([^>]*)>, \[.*\], \d+, (\d+), ([^)]*)\) += (\d+)')
got = {}
for t in ("fio", "rb"):
    ios, bad = [], 0
    for line in open("%s/%s.st" % (d, t)):
        m = call_re.match(line)
        if not m or not m[2].startswith("%s/%s/" % (d, t)) or m[2].split("/")[-1][:2] not in ("w.", "r."):
            continue
        if "RWF_HIPRI" not in m[4]:
            bad += 1
        ios.append((m[1], m[2].split("/")[-1][0], int(m[3]), int(m[5])))
    got[t] = (sorted(ios), bad)
(a, abad), (b, bbad) = got["fio"], got["rb"]
if not a or abad:
    print("FAIL fio: %d calls, %d without RWF_HIPRI" % (len(a), abad))
elif bbad:
    print("FAIL rackbench: %d of %d calls without RWF_HIPRI" % (bbad, len(b)))
elif a != b:
    print("FAIL fio %d calls (%d bytes), rackbench %d (%d bytes)" % (
        len(a), sum(x[3] for x in a), len(b), sum(x[3] for x in b)))
else:
    print("ok %d preadv2/pwritev2 calls, every one with RWF_HIPRI in both" % len(b))
PY
)
        [ "${v%% *}" = ok ] || why+=" ${v#* };"
        figures=${v#* }
    fi
    if [ "$outcome" = fio ]; then
        # fio's outcome, which the kernel decides: each IO polled where the
        # device can poll; else -EOPNOTSUPP, but for writes it does not poll
        # (those that extend a file or fill its holes)
        outcome=ok
        if [ $frc -ne 0 ]; then
            outcome=$(sed -n 's/^fio: io_u error on file .*: \(.*\): \(read\|write\) offset=.*/\1/p' "$d/fio.out" | head -1)
            [ -n "$outcome" ] || { outcome="fio's error"; why+=" fio failed without an IO error ($(head -1 "$d/fio.out"));"; }
        fi
    fi
    if [ "$outcome" = ok ]; then
        [ $frc -eq 0 ] || why+=" fio failed ($(grep -m1 -i error "$d/fio.out"));"
        [ $rrc -eq 0 ] || why+=" rackbench failed ($(grep -m1 -i error "$d/rb.out"));"
        if [ $frc -eq 0 ] && [ $rrc -eq 0 ]; then
            a=$(moved fio "$d/fio.json"); b=$(moved rb "$d/runs")
            [ "$a" = "$b" ] || why+=" bytes read, written: fio $a, rackbench $b;"
            figures+=", bytes read/written ${b/ //}"
        fi
    else
        # fio ends in error with the kernel's answer to every IO; so must rackbench
        [ $frc -ne 0 ] && grep -q "$outcome" "$d/fio.out" || why+=" fio did not fail with '$outcome' (exit $frc);"
        rerr=$(python3 -c 'import glob,json,sys; s=json.load(open(glob.glob(sys.argv[1]+"/*/summary.json")[0])); print(" ".join(str(n.get("error")) for n in s["nodes"]))' "$d/runs" 2>/dev/null)
        [ $rrc -ne 0 ] && [[ "$rerr" == *"$outcome"* ]] || why+=" rackbench did not fail with '$outcome' (exit $rrc: $rerr);"
        figures+=", both failed: $outcome"
    fi
    if [ -z "$why" ]; then
        echo "ok   $name ($eng, $(printf '%b' "$opts" | tr '\n' ' ')): $figures"
    else
        echo "FAIL $name ($eng, $(printf '%b' "$opts" | tr '\n' ' ')):$why"; fail=1
    fi
done

# fsync=N / fdatasync=N: the calls of the thread that writes the job's file,
# as runs ("16 pwrite64 1 fsync ..."), the same in both tools
syncs() {
    python3 - "$@" <<'PY'
import glob, re, sys
prefix, root = sys.argv[1:3]
call_re = re.compile(r'^(pwrite64|fsync|fdatasync|sync_file_range)\((\d+)<([^>]*)>(.*)\)')
for path in sorted(glob.glob(prefix + ".*")):
    runs = []
    for line in open(path):
        m = call_re.match(line)
        if not m or not m[3].startswith(root + "/"):
            continue
        # sync_file_range: its range and flags too
        call = m[1] + (m[4].replace(" ", "") if m[1] == "sync_file_range" else "")
        if runs and runs[-1][1] == call:
            runs[-1][0] += 1
        else:
            runs.append([1, call])
    if any(c == "pwrite64" for _, c in runs):
        print(" ".join("%d %s" % (n, c) for n, c in runs))
PY
}
for sync in "fsync=16\nsize=256k" "fdatasync=8\nsize=200k" "sync_file_range=write:16\nsize=200k" \
    "sync_file_range=wait_before,write,wait_after:5\nsize=64k" "fsync=8\nfdatasync=3\nsize=128k" \
    "fdatasync=4\nsync_file_range=write:3\nsize=64k"; do
    d=$scratch/sync.$(printf '%s' "${sync%%\\n*}" | tr -c 'a-z0-9=' '_')
    mkdir -p "$d/fio" "$d/rb"
    for t in fio rb; do
        printf '[global]\ndirectory=%s\nfallocate=none\n[s]\nioengine=psync\nrw=write\nbs=4k\n%b\n' \
            "$d/$t" "$sync" > "$d/$t.fio"
    done
    strace -qq -f -ff -s 0 -y -e trace=pwrite64,fsync,fdatasync,sync_file_range -o "$d/fio.st" \
        fio $IT_FIO_FLAGS --output-format=json --output="$d/fio.json" "$d/fio.fio" > "$d/fio.out" 2>&1 ||
        { echo "FAIL $sync: fio failed"; cat "$d/fio.out"; fail=1; continue; }
    ASAN_OPTIONS="$nolsan" strace -qq -f -ff -s 0 -y -e trace=pwrite64,fsync,fdatasync,sync_file_range \
        -o "$d/rb.st" "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1 ||
        { echo "FAIL $sync: rackbench failed"; cat "$d/rb.out"; fail=1; continue; }
    a=$(syncs "$d/fio.st" "$d/fio"); b=$(syncs "$d/rb.st" "$d/rb")
    what=$(printf '%b' "$sync" | tr '\n' ' ')
    if [ -n "$a" ] && [ "$a" = "$b" ]; then
        echo "ok   $what: $b, as fio"
    else
        echo "FAIL $what: fio '$a', rackbench '$b'"; fail=1
    fi
done

# lockmem: the mlock and munlock calls of 8 MiB, one of each per worker
d=$scratch/lockmem
mkdir -p "$d/fio" "$d/rb"
for t in fio rb; do
    printf '[global]\ndirectory=%s\n[l]\nrw=write\nbs=4k\nsize=64k\nnumjobs=2\nlockmem=8m\n' "$d/$t" > "$d/$t.fio"
done
# (rackbench's CURVE keys are mlocked too, a page at a time: only 8 MiB counts)
locks() { grep -hoE '\b(mlock|munlock)\(0x[0-9a-f]+, 8388608\b' "$1" | cut -d'(' -f1 | sort | uniq -c | tr -s ' ' | tr '\n' ','; }
strace -qq -f -e trace=mlock,munlock -o "$d/fio.st" fio $IT_FIO_FLAGS "$d/fio.fio" > "$d/fio.out" 2>&1 ||
    { echo "FAIL lockmem: fio failed"; cat "$d/fio.out"; fail=1; }
ASAN_OPTIONS="$nolsan" strace -qq -f -e trace=mlock,munlock -o "$d/rb.st" "$bin/rackbench" run "$d/rb.fio" \
    --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1 || { echo "FAIL lockmem: rackbench failed"; cat "$d/rb.out"; fail=1; }
a=$(locks "$d/fio.st") b=$(locks "$d/rb.st")
# AddressSanitizer makes mlock and munlock do nothing, and the calls never
# reach the kernel: there, the 8 MiB mappings they would lock are counted
maps() { grep -hoE '\bmmap\(NULL, 8388608, PROT_READ\|PROT_WRITE, MAP_PRIVATE\|MAP_ANONYMOUS' "$1" | wc -l; }
if ldd "$bin/rackbench-agent" 2> /dev/null | grep -q libasan; then
    ASAN_OPTIONS="$nolsan" strace -qq -f -e trace=mmap -o "$d/rb.mm" "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet \
        --out "$d/runs.mm" > /dev/null 2>&1
    if [ "$a" = " 2 mlock, 2 munlock," ] && [ "$(maps "$d/rb.mm")" = 2 ]; then
        echo "ok   lockmem=8m, 2 workers: fio $a rackbench 2 mappings of 8 MiB (mlock is a no-op under AddressSanitizer)"
    else
        echo "FAIL lockmem: fio '$a', rackbench $(maps "$d/rb.mm") mappings of 8 MiB"; fail=1
    fi
elif [ "$a" = " 2 mlock, 2 munlock," ] && [ "$a" = "$b" ]; then
    echo "ok   lockmem=8m, 2 workers: $b as fio"
else
    echo "FAIL lockmem: fio '$a', rackbench '$b'"; fail=1
fi
# create_fsync: the fsyncs on the file a read job lays out
for v in 0 1; do
    d=$scratch/create_fsync$v
    mkdir -p "$d/fio" "$d/rb"
    for t in fio rb; do
        printf '[global]\ndirectory=%s\n[c]\nrw=read\nbs=4k\nsize=64k\ncreate_fsync=%s\n' "$d/$t" "$v" > "$d/$t.fio"
    done
    strace -qq -f -y -e trace=fsync,fdatasync -o "$d/fio.st" fio $IT_FIO_FLAGS "$d/fio.fio" > "$d/fio.out" 2>&1 ||
        { echo "FAIL create_fsync=$v: fio failed"; cat "$d/fio.out"; fail=1; }
    ASAN_OPTIONS="$nolsan" strace -qq -f -y -e trace=fsync,fdatasync -o "$d/rb.st" "$bin/rackbench" run "$d/rb.fio" \
        --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1 || { echo "FAIL create_fsync=$v: rackbench failed"; cat "$d/rb.out"; fail=1; }
    a=$(grep -c "sync([0-9]*<$d/fio/c\." "$d/fio.st") b=$(grep -c "sync([0-9]*<$d/rb/[^>]*/c\." "$d/rb.st")
    if [ "$a" = "$b" ] && [ "$a" = "$v" ]; then
        echo "ok   create_fsync=$v: $b fsync of the laid-out file, as fio"
    else
        echo "FAIL create_fsync=$v: fio $a fsync, rackbench $b"; fail=1
    fi
done
it_exit "$fail"
