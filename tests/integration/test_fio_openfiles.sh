#!/usr/bin/env bash
# openfiles and file_service_type beside fio: a job of 4 files of 64 KiB
# (4k IOs, psync) with openfiles below nrfiles, file_service_type=sequential
# or roundrobin:N, run by fio and by `rackbench run --local 1` under
# strace; each tool's reads and writes as (file, offset), the file known by
# the number its name ends in. fio's round robin goes over the files it has
# open and takes in the next one as one is done; roundrobin:N does N IOs
# on a file before the next, sequential each file to its end: the same
# sequence, worker by worker, in both. A time_based job goes on as long as
# its runtime lets it, so there the shorter sequence must begin the longer.
#   test_fio_openfiles.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$(cd "$1" && pwd)
scratch=$(mkdir -p "$2" && cd "$2" && pwd)/fio-openfiles.$$
it_need fio "Debian's fio, the peer these tests run beside"
it_need strace "to see the calls each tool makes"
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
nolsan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # LeakSanitizer cannot run under ptrace
cd "$scratch" || exit 1
fail=0

# seq TRACE: "op file offset" of the 4k IOs, one worker (thread) after the
# other in the order they first appear; a call strace split in two
# (unfinished ... resumed) put together again
seq() {
    python3 - "$1" <<'PY'
import re, sys
pend, out, order = {}, {}, []
for line in open(sys.argv[1]):
    pid = line.split()[0]
    m = re.search(r'(pread64|pwrite64)\(\d+<([^>]*)>, ', line)
    r = re.search(r'<\.\.\. (pread64|pwrite64) resumed>', line)
    n = re.search(r', (\d+), (\d+)(\) = | <unfinished)', line)
    if m and not n:
        pend[pid] = (m[1], m[2])  # the rest comes when it is resumed
        continue
    if m:
        op, path = m[1], m[2]
    elif r and pid in pend and n:
        op, path = pend.pop(pid)
    else:
        continue
    if int(n[1]) != 4096:
        continue
    if pid not in out:
        out[pid] = []
        order.append(pid)
    num = re.search(r'(\d+)$', path)[1]
    out[pid].append(f"{op[1:-2]} {num} {n[2]}")
for pid in order:
    print("\n".join(out[pid]))
    print("--")
PY
}

run() { # NAME HOW JOB: HOW is same (the sequences) or prefix (one begins the other)
    local n=$1 how=$2 job=$3 who
    for who in fio rb; do
        rm -rf "$who" && mkdir -p "$who"
        printf '[global]\ndirectory=%s\nioengine=psync\nbs=4k\nnrfiles=4\nfilesize=64k\n[j]\n%b\n' \
            "$scratch/$who" "$job" > "$n.$who.fio"
    done
    local st=(-qq -f -y -e trace=pread64,pwrite64)
    if ! timeout 120 strace "${st[@]}" -o "$n.fio.st" fio $IT_FIO_FLAGS "$n.fio.fio" > "$n.fio.out" 2>&1; then
        echo "FAIL $n: fio failed:"; tail -20 "$n.fio.out"; exit 1
    fi
    if ! ASAN_OPTIONS="$nolsan" timeout 120 strace "${st[@]}" -o "$n.rb.st" "$bin/rackbench" run \
            "$n.rb.fio" --local 1 --quiet --out "$scratch/runs.$n" > "$n.rb.out" 2>&1; then
        echo "FAIL $n: rackbench failed:"; tail -20 "$n.rb.out"; exit 1
    fi
    seq "$n.fio.st" > "$n.fio.seq"
    seq "$n.rb.st" > "$n.rb.seq"
    local f r k
    f=$(grep -vc -- -- "$n.fio.seq") r=$(grep -vc -- -- "$n.rb.seq")
    k=$((f < r ? f : r))
    files() { grep -v -- -- "$1" | awk '{print $2}' | sort -u | tr '\n' ' '; }
    if [ "$how" = same ] && [ "$f" -gt 0 ] && cmp -s "$n.fio.seq" "$n.rb.seq"; then
        echo "ok   $n: the same $f IOs, files in the same order"
    elif [ "$how" = prefix ] && [ "$k" -gt 64 ] && cmp -s <(head -n "$k" "$n.fio.seq") <(head -n "$k" "$n.rb.seq") &&
         [ "$(files "$n.fio.seq")" = "$(files "$n.rb.seq")" ]; then
        echo "ok   $n: the first $k IOs the same (fio $f, rackbench $r), files $(files "$n.rb.seq")"
    else
        echo "FAIL $n: the IOs differ (fio $f, rackbench $r)"
        diff <(grep -v -- -- "$n.fio.seq") <(grep -v -- -- "$n.rb.seq") | head -6
        fail=1
    fi
}

run read same 'rw=read\nopenfiles=2'
run write same 'rw=write\nopenfiles=2'
run one same 'rw=read\nopenfiles=1'
run three same 'rw=write\nopenfiles=3'
run loops same 'rw=write\nopenfiles=2\nloops=2'
run workers same 'rw=write\nopenfiles=2\nnumjobs=2'
run timed prefix 'rw=read\nopenfiles=2\ntime_based\nruntime=1'
run seqfs same 'rw=read\nfile_service_type=sequential'
run seqfs_w same 'rw=write\nfile_service_type=sequential\nloops=2'
run rr4 same 'rw=write\nfile_service_type=roundrobin:4'
run rr3_open2 same 'rw=read\nfile_service_type=roundrobin:3\nopenfiles=2'
run seq_open2 same 'rw=write\nfile_service_type=sequential\nopenfiles=2\nnumjobs=2'
it_exit "$fail"
