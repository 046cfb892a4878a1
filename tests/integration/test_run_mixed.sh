#!/usr/bin/env bash
# A rack of mixed protocol versions: a real coordinator and real agents over
# ZeroMQ (ipc://), the older side being this build told to speak the older
# version of the window (--protocol 23): it writes and reads exactly what a
# build of 23 did (test_proto's frozen frames of 23 are written back byte for
# byte), and it keeps the test to one build, where a tree of 23 built in the
# scratch folder would cost a minute of the gate.
#
# 1. A plan of options both versions have runs on an agent of this build's
#    version (NEW) and one of 23: both nodes' figures are in summary.json
#    with their builds and protocols, and report.txt notes the two builds.
# 2. A plan setting create_fsync=0 (protocol 24) is refused before GO,
#    naming the node of 23, its version and the option; no file is made.
# 3. An agent of NEW beside a coordinator speaking 23 (agents newer than
#    the coordinator are outside its window) is refused with both versions
#    named, and over 10 s neither process uses more than 5 % of a core nor
#    logs more than a few lines: no ERROR answers an ERROR.
#   test_run_mixed.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
s=$2/mixed.$$
mkdir -p "$s"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -KILL "$p" 2> /dev/null; done
    [ -n "${KEEP:-}" ] || rm -rf "$s"
}
trap cleanup EXIT
fail=0
no() { echo "FAIL $*"; fail=1; }
# waits (at most $2 s) for process $1 to end; its exit code, 124 on the deadline
wait_for() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        kill -0 "$1" 2> /dev/null || { wait "$1"; return $?; }
        sleep 0.1
    done
    return 124
}
agent() { # NAME ROOT ARGS...: an agent of this run, in the background
    local name=$1 root=$2
    shift 2
    mkdir -p "$root"
    "$bin/rackbench-agent" --coordinator "ipc://$s/c" --insecure --name "$name" --root "$root" \
        "$@" > "$s/$name.log" 2>&1 &
    pids+=($!)
}
coordinator() { # PLAN LOG ARGS...
    local plan=$1 log=$2
    shift 2
    "$bin/rackbench" run "$plan" --bind "ipc://$s/c" --insecure --out "$s/runs" "$@" > "$log" 2>&1 &
    pids+=($!)
    cpid=$!
}
new=$("$bin/rackbench" --version | sed -n 's/.*(protocol \([0-9]*\),.*/\1/p')
head_build=$("$bin/rackbench" --version | sed -n 's/^rackbench \([^ ]*\) (protocol.*/\1/p')
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# 1. old options only: both nodes run, each with its build
printf '[w]\nrw=write\nbs=4k\nsize=256k\n' > "$s/old.fio"
coordinator "$s/old.fio" "$s/c1.log" --expect 2 --wait 20s
agent "n$new" "$s/rnew" --once
agent n23 "$s/r23" --once --protocol 23
wait_for "$cpid" 60
rc=$?
sum=$(ls "$s"/runs/*/summary.json 2> /dev/null | head -1)
if [ "$rc" != 0 ] || [ -z "$sum" ]; then
    no "case 1: the run exited $rc"; cat "$s/c1.log"
else
    got=$(json "$sum" "';'.join('%s %s %s %d' % (n['name'], n['status'], n.get('protocol'), n.get('build') != None) for n in d['nodes'])")
    bytes=$(json "$sum" "' '.join(str(n['bytes']) for n in d['phases'][0]['nodes'])" 2> /dev/null ||
        json "$sum" "d['phases'][0]['bytes']")
    builds=$(json "$sum" "' | '.join(n['build'] for n in d['nodes'])")
    report=$(dirname "$sum")/report.txt
    ran=$(json "$sum" "d.get('rackbench_build')")
    if [ "$got" = "n23 ok 23 1;n$new ok $new 1" ] && grep -q "the nodes ran 2 builds" "$report" &&
        grep -q "n23 ran 0.1.0 (protocol 23)" "$report" && [ "$ran" = "$head_build" ] &&
        head -1 "$report" | grep -qF "rackbench $head_build  run "; then
        echo "ok   case 1: protocols 23 and $new in one run, both ok ($builds), bytes $bytes; report.txt notes both builds and the coordinator's ($ran)"
    else
        no "case 1: nodes '$got', coordinator's build '$ran' (want $head_build), report: $(head -1 "$report"; grep -A2 'builds' "$report")"
    fi
fi

# 2. an option of 24 for a node of 23: refused before GO, named; no file made
rm -rf "$s/runs" "$s/r23" "$s/rnew"
printf '[r]\nrw=read\nbs=4k\nsize=64k\ncreate_fsync=0\n' > "$s/new.fio"
coordinator "$s/new.fio" "$s/c2.log" --expect 2 --wait 20s
agent "n$new" "$s/rnew" --once
agent n23 "$s/r23" --once --protocol 23
wait_for "$cpid" 60
rc=$?
files=$(find "$s/r23" "$s/rnew" -mindepth 1 | wc -l)
if [ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q "n23 speaks protocol 23 (build 0.1.0): job 'r' of phase 1 sets create_fsync, which needs protocol 24" "$s/c2.log" &&
    [ "$files" = 0 ] && ! grep -q "phase 1/1" "$s/c2.log"; then
    echo "ok   case 2: refused before GO (exit $rc): $(grep -m1 'n23 speaks' "$s/c2.log" | sed 's/^rackbench: error: //'); no file made"
else
    no "case 2: exit $rc, $files files made, log:"; cat "$s/c2.log"
fi
for p in "${pids[@]}"; do wait_for "$p" 10 > /dev/null; done
pids=()

# 3. outside the window: said once, then quiet
rm -rf "$s/runs"
coordinator "$s/old.fio" "$s/c3.log" --expect 1 --wait 14s --protocol 23
agent nnew "$s/rnew"
apid=$!
ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2> /dev/null || echo 0; }
# the refusal reaches the agent: measured from then
for ((i = 0; i < 100; i++)); do grep -q "refused by coordinator" "$s/nnew.log" && break; sleep 0.1; done
c0=$(ticks "$cpid") a0=$(ticks "$apid") l0=$(( $(wc -l < "$s/c3.log") + $(wc -l < "$s/nnew.log") ))
sleep 10
c1=$(ticks "$cpid") a1=$(ticks "$apid") l1=$(( $(wc -l < "$s/c3.log") + $(wc -l < "$s/nnew.log") ))
hz=$(getconf CLK_TCK)
cpu_c=$(( (c1 - c0) * 1000 / hz / 10 )) cpu_a=$(( (a1 - a0) * 1000 / hz / 10 )) # per mille of a core
if grep -q "protocol version $new from peer (build [^)]*), this build ([^)]*) speaks 23" "$s/c3.log" &&
    grep -q "refused by coordinator" "$s/nnew.log" && [ "$cpu_c" -le 50 ] && [ "$cpu_a" -le 50 ] &&
    [ $((l1 - l0)) -le 4 ]; then
    echo "ok   case 3: refused with both versions named; over 10 s coordinator ${cpu_c}‰, agent ${cpu_a}‰ of a core, $((l1 - l0)) more log lines"
else
    no "case 3: coordinator ${cpu_c}‰, agent ${cpu_a}‰ of a core, $((l1 - l0)) more log lines; logs:"
    tail -5 "$s/c3.log" "$s/nnew.log"
fi
kill -TERM "$apid" 2> /dev/null
wait_for "$cpid" 20 > /dev/null
it_exit "$fail"
