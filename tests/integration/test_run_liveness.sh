#!/usr/bin/env bash
# Healthy agents never look lost, and nothing is left behind: the real
# coordinator and --local agents, on files under the scratch folder.
#
# 1. Job shapes that made healthy agents "lost" with the default
#    --lost-after, in one run of two agents: a sync job of 40 workers at
#    iodepth=64 and bs=1M (its buffers were set up after GO, on the thread
#    that heartbeats), 26 libaio workers at qd1 (their io_destroy held that
#    thread at the phase's end) and 256 posixaio workers (128 a node). The run
#    passes, each phase starts within a second of its GO, the plan notes the
#    sync engine's depth, and an earlier agent's leftover folder of
#    local-1's name is gone (the agent removes it as it starts).
# 2. 100,000 metadata files removed at the end by one agent, with a
#    --lost-after shorter than the removal takes: the removal runs beside
#    the heartbeats (each with its count), and the run passes.
# 3. An agent that stops answering mid-run (SIGSTOP) is lost, killed at the
#    end, and the coordinator removes its run folder: no file is left under
#    the root, summary.json says "removed by the coordinator", report.txt
#    says so too.
# 4. A plan whose IO buffers (or lockmem) cannot fit the node's memory is refused before
#    any file is made, naming the job, its workers, depth and block size;
#    so is one that fits each of two agents of one host, not both.
# 5. A phase's HEARTBEATs come less often than the others (--phase-heartbeat
#    2s against --heartbeat 250ms, agents lost after 1 s of silence): the
#    agents of this build are told, wait three of them, and the run passes;
#    agents of protocol 28, which cannot be told, hear one every 250 ms
#    through the phase, and their run passes too. With --done-hold 400ms,
#    the agents of this build send their DONE 400 ms after their last
#    sample (GO's done_hold_ns, protocol 30).
#   test_run_liveness.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
s=$2/liveness.$$
mkdir -p "$s"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -CONT "$p" 2> /dev/null; kill -KILL "$p" 2> /dev/null; done
    [ -n "${KEEP:-}" ] || rm -rf "$s"
}
trap cleanup EXIT
fail=0
no() { echo "FAIL $*"; fail=1; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
run() { # NAME PLAN ARGS...: a run of --local agents; its exit code
    local name=$1 plan=$2
    shift 2
    timeout 300 "$bin/rackbench" run "$plan" --out "$s/runs.$name" --agent-bin "$bin/rackbench-agent" \
        --verbose "$@" > "$s/$name.log" 2>&1
}
summary() { ls "$s/runs.$1"/*/summary.json 2> /dev/null | head -1; }

# 1. many workers, deep queues, slow teardown: default --lost-after
mkdir -p "$s/d1/rackbench.20240102-030405-beef.local-1"
touch "$s/d1/rackbench.20240102-030405-beef.local-1/left"
cat > "$s/shapes.fio" << EOF
[global]
directory=$s/d1
size=2M
runtime=1
time_based

[fuse]
ioengine=sync
rw=read
bs=1M
iodepth=64
numjobs=40

[db]
stonewall
ioengine=libaio
direct=1
rw=randrw
bs=8k
iodepth=1
numjobs=26

[paio]
stonewall
ioengine=posixaio
rw=write
bs=4k
iodepth=4
size=256k
numjobs=128
EOF
run shapes "$s/shapes.fio" --local 2
rc=$?
sum=$(summary shapes)
skews=$([ -n "$sum" ] && json "$sum" "' '.join('%.0f' % (p.get('start_skew_s', 0) * 1000) for p in d['phases'])")
late=$(for k in $skews; do [ "$k" -ge 1000 ] && echo "$k"; done)
if [ "$rc" = 0 ] && [ -n "$skews" ] && [ -z "$late" ] &&
    grep -q "job 'fuse': iodepth=64 with ioengine=sync, which does one IO at a time" "$s/shapes.log" &&
    grep -q "removed what an earlier agent local-1 left: 1 run folders, 1 files" "$s/shapes.log" &&
    [ ! -e "$s/d1/rackbench.20240102-030405-beef.local-1" ]; then
    echo "ok   case 1: 40 sync workers at iodepth=64, 26 libaio at qd1, 256 posixaio (128 a node): passed; start skews ${skews// / ms, } ms; an earlier agent's leftovers removed"
else
    no "case 1: exit $rc, start skews '$skews' ms; log:"; grep -E "lost|error|note|removed|skew" "$s/shapes.log" | head -20
fi

# 2. a clean-up that outlasts --lost-after
mkdir -p "$s/d2"
printf '[global]\ndirectory=%s/d2\n[md]\nrw=meta\nmeta_ops=create\nmeta_files=50000\nnumjobs=2\n' "$s" > "$s/meta.fio"
run meta "$s/meta.fio" --local 1 --heartbeat 200ms --lost-after 1s
rc=$?
took=$(sed -n 's/.*ended; 100000 files removed in \([0-9.]*\) s.*/\1/p' "$s/meta.log")
if [ "$rc" = 0 ] && [ -n "$took" ] && [ "$(find "$s/d2" -mindepth 1 | wc -l)" = 0 ]; then
    if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 1.0 else 1)" "$took"; then
        echo "ok   case 2: 100000 files removed in $took s with --lost-after 1s: the agent stayed with us"
    else
        echo "ok   case 2: 100000 files removed in $took s (under --lost-after 1s here: a faster disk than the case needs to prove its point)"
    fi
else
    no "case 2: exit $rc, removal '$took' s; log:"; grep -E "lost|error|removed" "$s/meta.log" | head
fi

# 3. an agent that stops answering: lost, killed, its files removed for it
mkdir -p "$s/d3"
printf '[global]\ndirectory=%s/d3\nrw=write\nbs=64k\nsize=8M\nruntime=6\ntime_based\n[w]\n' "$s" > "$s/lost.fio"
run lost "$s/lost.fio" --local 2 &
cpid=$!
for ((i = 0; i < 200; i++)); do
    apid=$(pgrep -f -n -- "--name local-2 .*--root $s/d3")
    [ -n "$apid" ] && compgen -G "$s/d3/rackbench.*.local-2/*" > /dev/null && break
    sleep 0.05
done
if [ -n "$apid" ]; then
    kill -STOP "$apid"
    pids+=("$apid")
fi
wait "$cpid"
rc=$?
sum=$(summary lost)
left=$(find "$s/d3" -mindepth 1 | wc -l)
cl=$([ -n "$sum" ] && json "$sum" "','.join('%s %s %s' % (n['name'], n['status'], n.get('cleanup')) for n in d['nodes'])")
if [ -n "$apid" ] && [ "$rc" = 3 ] && [ "$left" = 0 ] &&
    [ "$cl" = "local-1 ok confirmed,local-2 lost removed by the coordinator" ] &&
    grep -q "its files: removed by the coordinator" "$(dirname "$sum")/report.txt"; then
    echo "ok   case 3: a stopped agent lost (exit 3), killed, and no file left under the root: $cl"
else
    no "case 3: agent pid '$apid', exit $rc, $left left under the root, nodes '$cl'; log:"
    grep -E "lost|clean|kill|removed" "$s/lost.log" | head
fi

# 4. buffers that do not fit: refused before anything is made; and so is
# memory that lockmem pins, summed over the workers
mkdir -p "$s/d4"
refused() { # NAME JOBTEXT EXPECTED SAID: the plan of job NAME refused with EXPECTED in the log
    printf '[global]\ndirectory=%s/d4\n[%s]\n%b\n' "$s" "$1" "$2" > "$s/$1.fio"
    run "$1" "$s/$1.fio" --local 1
    local rc=$?
    if [ "$rc" = 3 ] && grep -q "$3" "$s/$1.log" && [ "$(find "$s/d4" -mindepth 1 | wc -l)" = 0 ]; then
        echo "ok   case 4: refused: $(grep -m1 -o "$4[^;]*" "$s/$1.log")"
    else
        no "case 4, $1: exit $rc; log:"; grep -E "refus|error" "$s/$1.log" | head
    fi
}
refused big 'ioengine=libaio\nrw=write\nbs=256m\niodepth=256\nnumjobs=64\nsize=256m' \
    "job big alone needs .* (64 workers x 256 IOs in flight x 268435456 bytes)" "phase big: IO buffers need"
refused pin 'rw=write\nbs=4k\nsize=1m\nlockmem=1024t\nnumjobs=4' \
    "phase pin: lockmem pins .* on node local-1 .* job pin pins .* in each of its 4 workers" "phase pin: lockmem pins"
# ... and two agents of one host that fit it each alone, not together: the
# coordinator adds them up (lockmem is pinned only after GO: nothing is)
room=$(sed -n 's/.*which has \([0-9.]*\) \([KMGT]\)iB for them.*/\1 \2/p' "$s/pin.log" | head -1 |
    awk '{ m = index("KMGT", $2); printf "%.0fk\n", $1 * 1024 ^ (m - 1) * 0.6 }')
printf '[global]\ndirectory=%s/d4\n[two]\nrw=write\nbs=4k\nsize=1m\nlockmem=%s\n' "$s" "$room" > "$s/two.fio"
run two "$s/two.fio" --local 2
rc=$?
if [ "$rc" = 3 ] && grep -q "nodes local-1, local-2 run on one host (.*): together their IO buffers and lockmem take up to" "$s/two.log" &&
    [ "$(find "$s/d4" -mindepth 1 | wc -l)" = 0 ]; then
    echo "ok   case 4: two agents on one host, lockmem=$room each: $(grep -m1 -o 'together their IO buffers and lockmem take up to [^(]*' "$s/two.log")"
else
    no "case 4, two agents of one host (lockmem=$room each): exit $rc; log:"; grep -E "refus|error" "$s/two.log" | head
fi

# 5. a phase's heartbeats, less often, told to the agents that can be told
mkdir -p "$s/d5"
printf '[global]\ndirectory=%s/d5\nioengine=null\nsize=1m\nbs=4k\nrw=write\ntime_based\nruntime=3s\n[beat]\n' "$s" > "$s/beat.fio"
for proto in 30 28; do
    run "beat$proto" "$s/beat.fio" --local 2 --heartbeat 250ms --phase-heartbeat 2s \
        --done-hold 400ms --agent-arg "--protocol=$proto" --agent-arg --lost-after=1s
    rc=$?
    said=$(grep -o "HEARTBEATs every [0-9.]* s to agents of protocol [0-9]* on" "$s/beat$proto.log" | head -1)
    # agents of 30 on held their DONEs 400 ms after their last samples
    held=$(sed -n "s/.* DONEs taken in \([0-9.]*\) - .* (held \([0-9.]*\) ms)$/\1 \2/p" "$s/beat$proto.log")
    held_ok=$(echo "$held" | awk -v p="$proto" 'NF == 2 && $2 == 400 && (p < 30 || $1 >= 395) { ok = 1 } END { print ok + 0 }')
    if [ "$rc" = 0 ] && [ "$said" = "HEARTBEATs every 2.0 s to agents of protocol 29 on" ] &&
        [ "$held_ok" = 1 ] && ! grep -q "silent for" "$s/beat$proto.log"; then
        echo "ok   case 5: agents of protocol $proto lost after 1 s, $said; DONEs taken in ${held% *} ms after the last samples: run passed"
    else
        no "case 5, agents of protocol $proto: exit $rc, said '$said', DONEs taken in / held (ms) '$held'; log:"
        grep -E "silent|lost|error|abandon" "$s/beat$proto.log" | head
    fi
done
it_exit "$fail"
