#!/usr/bin/env bash
# --local runs what fio runs, and a real job file scales without editing:
# the real coordinator and --local agents on files under the scratch folder.
#
# 1. A four-volume job file (each job's filename= an absolute path in a
#    folder of its own, no directory anywhere) runs on two local agents:
#    each agent gets the four folders as roots; nothing is left in them.
# 2. The shipped velocibunny plan (its directory in the job section, sizes
#    from ${SIZE} and ${DIR}) runs as it is, scaled from the command line:
#    --var gives the variables, --override the job's own numjobs, and the
#    note says the sync engine's depth.
# 3. --set SIZE=1m is refused, naming --var; a --var the plan never uses is
#    refused, naming it.
#   test_run_local_dirs.sh BIN_DIR SCRATCH SOURCE_DIR
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
s=$2/local-dirs.$$
src=$3
mkdir -p "$s"
trap '[ -n "${KEEP:-}" ] || rm -rf "$s"' EXIT
fail=0
no() { echo "FAIL $*"; fail=1; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
run() { # NAME PLAN ARGS...: a run; its exit code
    local name=$1 plan=$2
    shift 2
    timeout 120 "$bin/rackbench" run "$plan" --out "$s/runs.$name" --agent-bin "$bin/rackbench-agent" \
        "$@" > "$s/$name.log" 2>&1
}

# 1. absolute filenames, one folder a volume
for v in 1 2 3 4; do
    mkdir -p "$s/vol$v"
    printf '[vol%s]\nfilename=%s/vol%s/file\nrw=write\nbs=64k\nsize=1m\n' "$v" "$s" "$v" >> "$s/nfs.fio"
done
run nfs "$s/nfs.fio" --local 2
rc=$?
sum=$(ls "$s"/runs.nfs/*/summary.json 2> /dev/null | head -1)
bytes=$([ -n "$sum" ] && json "$sum" "d['phases'][0]['bytes']")
left=$(find "$s"/vol? -mindepth 1 | wc -l)
if [ "$rc" = 0 ] && [ "$bytes" = $((4 * 2 * 1048576)) ] && [ "$left" = 0 ]; then
    echo "ok   case 1: four volumes by absolute filename on two local agents: $bytes bytes, nothing left"
else
    no "case 1: exit $rc, $bytes bytes, $left left; log:"; tail -5 "$s/nfs.log"
fi

# 2. the shipped plan as it is, scaled from the command line
run vb "$src/deploy/plans/velocibunny-randread.ini" --local 1 --var SIZE=2m --var "DIR=$s/vb" \
    --override numjobs=2
rc=$?
sum=$(ls "$s"/runs.vb/*/summary.json 2> /dev/null | head -1)
got=$([ -n "$sum" ] && json "$sum" "'%d %d' % (d['phases'][0]['workers'], d['phases'][0]['bytes'])")
if [ "$rc" = 0 ] && [ "$got" = "2 4194304" ] &&
    grep -q "iodepth=192 with ioengine=sync, which does one IO at a time" "$s/vb.log" &&
    [ "$(find "$s/vb" -mindepth 1 | wc -l)" = 0 ]; then
    echo "ok   case 2: velocibunny-randread.ini with --var SIZE=2m --var DIR=... --override numjobs=2: 2 workers read 2 MiB each"
else
    no "case 2: exit $rc, workers and bytes '$got'; log:"; grep -E "error|rackbench:" "$s/vb.log" | head
fi

# 3. a variable is not an option, and a --var is used or refused
"$bin/rackbench" check "$src/deploy/plans/velocibunny-randread.ini" --set SIZE=1m > "$s/c1.log" 2>&1
c1=$?
"$bin/rackbench" check "$src/deploy/plans/velocibunny-randread.ini" --var SIZE=1m --var SIZ=2m > "$s/c2.log" 2>&1
c2=$?
if [ "$c1" = 2 ] && grep -q "SIZE is no option; a plan's variable (\${SIZE}) is set with --var SIZE=1m" "$s/c1.log" &&
    [ "$c2" = 2 ] && grep -q -- "--var:2: SIZ: the plan has no \${SIZ}" "$s/c2.log"; then
    echo "ok   case 3: $(head -1 "$s/c1.log"); $(grep -m1 -- '--var:2' "$s/c2.log")"
else
    no "case 3: exits $c1 $c2:"; cat "$s/c1.log" "$s/c2.log"
fi
it_exit "$fail"
