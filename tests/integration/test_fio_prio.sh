#!/usr/bin/env bash
# fio's IO priorities, fio and `rackbench run --local 1` side by side, each
# under strace.
# - prio and prioclass: each job's worker sets its own priority with the
#   same ioprio_set call as fio's (who 0: the calling thread), job by job.
# - nice: each job's worker threads set their CPU nice value with the same
#   setpriority call as fio's nice(2) makes, job by job.
# - cmdprio_percentage, cmdprio_class and cmdprio with ioengine=libaio: the
#   iocbs io_submit takes for the job's file, as strace decodes them (the
#   priority in aio_reqprio, flagged IOCB_FLAG_IOPRIO): the share of reads
#   and of writes with a priority within 6 points of the share asked and of
#   fio's, with the same priority values, and none on the others.
# - cmdprio_bssplit: by IO size and priority (the entries of one size with a
#   class and level each), each share within 6 points of fio's; a size at 0%
#   and a size not listed never carry one.
# - io_uring: strace does not show a submission's fields, so rackbench's
#   share comes from its agent's log (the count of IOs it gave a priority),
#   within 6 points of the share asked; fio runs the same job without error.
# Class RT needs CAP_SYS_NICE: as another user the classes asked are BE and
# IDLE only.
#   test_fio_prio.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
scratch=$2/fio-prio.$$
it_need fio "Debian's fio, the peer these tests run beside"
it_need strace "to see the calls each tool makes"
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
fail=0
# LeakSanitizer cannot run under ptrace (as in test_fio_calls.sh)
nolsan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
rt=1
[ "$(id -u)" = 0 ] || rt=2

# run NAME CALLS BODY: BODY after a [global] naming the folder, through fio
# and rackbench, each under strace of CALLS into $d/fio.st and $d/rb.st.
run() {
    local name=$1 calls=$2 body=$3
    d=$scratch/$name
    mkdir -p "$d/fio" "$d/rb"
    for t in fio rb; do
        printf '[global]\ndirectory=%s\n%s\n' "$d/$t" "$body" > "$d/$t.fio"
    done
    if ! strace -qq -f --seccomp-bpf -s 1 -y -e trace="$calls" -o "$d/fio.st" \
            fio $IT_FIO_FLAGS --output="$d/fio.out" "$d/fio.fio" > /dev/null 2>&1; then
        echo "FAIL $name: fio failed:"; cat "$d/fio.out"; fail=1; return 1
    fi
    if ! ASAN_OPTIONS="$nolsan" strace -qq -f --seccomp-bpf -s 1 -y -e trace="$calls" -o "$d/rb.st" \
            "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1; then
        echo "FAIL $name: rackbench failed:"; cat "$d/rb.out"; fail=1; return 1
    fi
}

# prio and prioclass: the ioprio_set calls, in order (one job after another)
body=$(printf '[a]\nprioclass=2\nprio=7\n[b]\nstonewall\nprio=3\n[c]\nstonewall\nprioclass=3\nprio=5\n[d]\nstonewall\nprioclass=0\n[e]\nstonewall\nprioclass=%s\nprio=1\n[f]\nstonewall\n' $rt)
if run prio ioprio_set "$(printf 'ioengine=psync\nrw=write\nbs=4k\nsize=64k\n%s' "$body")"; then
    a=$(sed -n 's/^[0-9]* *\(ioprio_set(.*\)$/\1/p' "$d/fio.st" | tr '\n' ';')
    b=$(sed -n 's/^[0-9]* *\(ioprio_set(.*\)$/\1/p' "$d/rb.st" | tr '\n' ';')
    if [ "$a" = "$b" ] && [ "$(grep -c ioprio_set "$d/rb.st")" = 5 ]; then
        echo "ok   prio/prioclass: $b"
    else
        echo "FAIL prio/prioclass: fio $a"; echo "                   rackbench $b"; fail=1
    fi
fi

# nice: each job's worker threads call nice(2) as fio's do (getpriority,
# then setpriority of the calling thread), one job after another; none
# for a job without it. Below 0 needs root.
lo=-3
[ "$(id -u)" = 0 ] || lo=3
body=$(printf '[a]\nnice=5\n[b]\nstonewall\nnice=%s\n[c]\nstonewall\n[d]\nstonewall\nnice=19\nnumjobs=2\n' $lo)
if run nice setpriority "$(printf 'ioengine=psync\nrw=write\nbs=4k\nsize=64k\n%s' "$body")"; then
    # the values set, in order; fio's nice(0) of a job without it sets 0,
    # which changes nothing and which rackbench does not call
    a=$(sed -n 's/^[0-9]* *setpriority(PRIO_PROCESS, 0, \(-*[0-9]*\).*$/\1/p' "$d/fio.st" | grep -vx 0 | tr '\n' ' ')
    b=$(sed -n 's/^[0-9]* *setpriority(PRIO_PROCESS, 0, \(-*[0-9]*\).*$/\1/p' "$d/rb.st" | tr '\n' ' ')
    if [ "$a" = "$b" ] && [ "$b" = "5 $lo 19 19 " ]; then
        echo "ok   nice: setpriority of the calling thread to $b(fio's nice(2), thread by thread)"
    else
        echo "FAIL nice: fio $a"; echo "           rackbench $b"; fail=1
    fi
fi

# The iocbs of job $2's files in trace $1: per direction, size and
# priority, the count, as "DIR SIZE PRIO COUNT" lines (PRIO "-" for none; an
# iocb with a priority but without IOCB_FLAG_IOPRIO is "unflagged").
iocbs() {
    python3 - "$@" <<'PY'
import collections, re, sys
path, job = sys.argv[1:3]
cb_re = re.compile(r'\{aio_data=[^,]*, aio_lio_opcode=IOCB_CMD_P(READ|WRITE), '
                   r'(?:aio_reqprio=(IOPRIO_PRIO_VALUE\([^)]*\)|\d+), )?aio_fildes=\d+<([^>]*)>, '
                   r'.*?aio_nbytes=(\d+), aio_offset=\d+(, aio_flags=([A-Z_|]+))?[^}]*\}')
n = collections.Counter()
for line in open(path):
    if "io_submit(" not in line or line.rstrip().endswith("= -1"):
        continue
    for m in cb_re.finditer(line):
        if not m[3].split("/")[-1].startswith(job + "."):
            continue
        prio = m[2] or "-"
        if prio != "-" and "IOCB_FLAG_IOPRIO" not in (m[6] or ""):
            prio = "unflagged"
        n[(m[1].lower(), int(m[4]), prio)] += 1
for (d, bs, prio), c in sorted(n.items()):
    print(d, bs, prio.replace(" ", ""), c)
PY
}

# share LINES DIR SIZE PRIO: the percentage of DIR's IOs of SIZE bytes
# (any size: 0) with priority PRIO in iocbs' LINES ("any": any priority)
share() {
    python3 - "$@" <<'PY'
import sys
lines, d, bs, prio = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
tot = hit = 0
for l in lines.splitlines():
    dd, b, p, c = l.split()
    if dd != d or (bs and int(b) != bs):
        continue
    tot += int(c)
    if p == prio or (prio == "any" and p != "-"):
        hit += int(c)
print("%.1f" % (100.0 * hit / tot) if tot else "none")
PY
}
near() { python3 -c "import sys; a, b = sys.argv[1:3]; sys.exit(0 if a != 'none' and b != 'none' and abs(float(a) - float(b)) <= 6 else 1)" "$1" "$2"; }

# cmdprio_percentage: reads 30% at class $rt level 2, writes 60% at IDLE 5
body=$(printf 'ioengine=libaio\ndirect=1\niodepth=8\n[p]\nrw=randrw\nbs=4k\nsize=2m\nprioclass=2\nprio=6\ncmdprio_percentage=30,60\ncmdprio_class=%s,3\ncmdprio=2,5\n' $rt)
if run cmdprio io_submit "$body"; then
    a=$(iocbs "$d/fio.st" p); b=$(iocbs "$d/rb.st" p)
    rp=$([ $rt = 1 ] && echo 'IOPRIO_PRIO_VALUE(IOPRIO_CLASS_RT,2)' || echo 'IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE,2)')
    wp='IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE,5)'
    ok=1
    for t in "read $rp 30" "write $wp 60"; do
        set -- $t
        fa=$(share "$a" "$1" 0 "$2"); fb=$(share "$b" "$1" 0 "$2")
        fany=$(share "$a" "$1" 0 any); bany=$(share "$b" "$1" 0 any)
        echo "     cmdprio $1s with $2: fio $fa%, rackbench $fb% (asked $3%)"
        if ! near "$fa" "$3" || ! near "$fb" "$3" || ! near "$fa" "$fb" || \
                [ "$fa" != "$fany" ] || [ "$fb" != "$bany" ]; then
            ok=0
        fi
    done
    if [ $ok = 1 ] && ! grep -q unflagged <<< "$b"; then
        echo "ok   cmdprio_percentage (libaio)"
    else
        echo "FAIL cmdprio_percentage: fio"; echo "$a"; echo "rackbench"; echo "$b"; fail=1
    fi
fi

# cmdprio_bssplit: 4k reads split between two priorities, 64k reads at 0%,
# 16k reads not listed; half the 8k writes at BE 3, the 4k ones none
body=$(printf 'ioengine=libaio\ndirect=1\niodepth=8\n[s]\nrw=randrw\nnorandommap=1\nbssplit=4k/60:16k/20:64k/20,4k/50:8k/50\nsize=8m\ncmdprio_bssplit=4k/25/%s/1:4k/75/3/2:64k/0,8k/50/2/3\n' $rt)
if run cmdprio_bssplit io_submit "$body"; then
    a=$(iocbs "$d/fio.st" s); b=$(iocbs "$d/rb.st" s)
    p1=$([ $rt = 1 ] && echo 'IOPRIO_PRIO_VALUE(IOPRIO_CLASS_RT,1)' || echo 'IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE,1)')
    ok=1
    for t in "read 4096 $p1 25" "read 4096 IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE,2) 75" \
             "read 16384 any 0" "read 65536 any 0" "write 4096 any 0" \
             "write 8192 IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE,3) 50"; do
        set -- $t
        fa=$(share "$a" "$1" "$2" "$3"); fb=$(share "$b" "$1" "$2" "$3")
        echo "     cmdprio_bssplit $1s of $2 bytes with $3: fio $fa%, rackbench $fb% (asked $4%)"
        if ! near "$fa" "$4" || ! near "$fb" "$4" || ! near "$fa" "$fb"; then ok=0; fi
    done
    if [ $ok = 1 ] && [ "$(share "$b" read 4096 any)" = 100.0 ] && ! grep -q unflagged <<< "$b"; then
        echo "ok   cmdprio_bssplit (libaio)"
    else
        echo "FAIL cmdprio_bssplit: fio"; echo "$a"; echo "rackbench"; echo "$b"; fail=1
    fi
fi

# io_uring: fio runs the job; rackbench's agent says how many IOs it gave a
# priority (its log at --verbose)
d=$scratch/uring
mkdir -p "$d/fio" "$d/rb"
for t in fio rb; do
    printf '[global]\ndirectory=%s\nioengine=io_uring\ndirect=1\niodepth=8\n[u]\nrw=randrw\nbs=4k\nsize=4m\ncmdprio_percentage=40,20\ncmdprio_class=%s,2\n' "$d/$t" $rt > "$d/$t.fio"
done
if ! fio --output="$d/fio.out" "$d/fio.fio" > /dev/null 2>&1 || grep -q "err=[^ ]*[1-9]" "$d/fio.out"; then
    echo "FAIL cmdprio io_uring: fio failed:"; cat "$d/fio.out"; fail=1
elif ! "$bin/rackbench" run "$d/rb.fio" --local 1 --verbose --out "$d/runs" > "$d/rb.out" 2>&1; then
    echo "FAIL cmdprio io_uring: rackbench failed:"; tail -20 "$d/rb.out"; fail=1
else
    line=$(grep -o 'cmdprio: [0-9]* of [0-9]* reads and [0-9]* of [0-9]* writes' "$d/rb.out")
    read -r _ rh _ rn _ _ wh _ wn _ <<< "$line"
    if [ -n "$line" ] && [ "$rn" -gt 0 ] && [ "$wn" -gt 0 ] && \
            near "$((100 * rh / rn))" 40 && near "$((100 * wh / wn))" 20; then
        echo "ok   cmdprio (io_uring): rackbench $line (asked 40%, 20%)"
    else
        echo "FAIL cmdprio io_uring: rackbench said '$line'"; fail=1
    fi
fi
echo "     ${SECONDS}s in all"
it_exit "$fail"
