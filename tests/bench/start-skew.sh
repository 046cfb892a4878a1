#!/usr/bin/env bash
# Start skew: how far apart the nodes' first IOs of a phase begin
# (phases[0].start_skew_s of summary.json). Runs a tiny O_DIRECT write RUNS
# times with 8 local agents, and, as root where network namespaces and loop
# devices work, on a 4-node virtual rack (deploy/virtual-rack.sh: agents in
# their own network namespaces, over tcp on a bridge); prints the median and
# the maximum per setup, and the median of phases[0].clock_error_s (how well
# the clock offsets behind the skew are known: the true skew is within twice
# it of the one measured).
#
#   tests/bench/start-skew.sh [RUNS=20]
#
# RB_BIN chooses the binaries (default build/bin). Not run by ctest: figures
# go in docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tests/bench/lib.sh
. tests/bench/lib.sh
if [ -n "${RB_BIN:-}" ]; then rb=$RB_BIN/rackbench; fi
bench_need python3 python3
runs=${1:-20}
work=$(mktemp -d)
export RB_BIN=${RB_BIN:-$(dirname "$rb")}
export RB_VRACK_STATE=$work/vrack
vrack_opts=(--prefix vrsk --subnet 10.78.0 --port 17772 --size 128M)
cleanup() {
    if [ -e "$work/vrack" ]; then
        deploy/virtual-rack.sh down --prefix vrsk >/dev/null || true
    fi
    rm -rf "$work" "$dir"
}
dir=$(bench_disk_dir bench-data/start-skew)
trap cleanup EXIT

plan() { # $1 = directory line or empty
    printf '[global]\n%s\nbs=64k\nsize=1M\ndirect=1\n\n[write]\nrw=write\n' "$1"
}
plan "directory=$dir" >"$work/local.ini"
plan "" >"$work/rack.ini"

# skews RUNS_DIR: every run's phases[0].start_skew_s and clock_error_s, in
# ms, one run a line
skews() {
    python3 - "$1" <<'PY'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/*/summary.json")):
    j = json.load(open(f))
    if j["status"] == "ok":
        ph = j["phases"][0]
        print("%.4f %.4f" % (ph["start_skew_s"] * 1e3, ph.get("clock_error_s", 0) * 1e3))
PY
}

summary() { # $1 = setup name, stdin = skews in ms
    python3 -c '
import statistics, sys
rows = [[float(f) for f in x.split()] for x in sys.stdin if x.strip()]
v, e = [r[0] for r in rows], [r[1] for r in rows]
name, want = sys.argv[1], int(sys.argv[2])
if not v:
    print("| %s | no run succeeded | | | | |" % name)
else:
    print("| %s | %d of %d | %.3f | %.3f | %.3f | %.3f |" % (name, len(v), want, statistics.median(v), min(v), max(v), statistics.median(e)))
' "$1" "$runs"
}

for _ in $(seq 1 "$runs"); do
    "$rb" run "$work/local.ini" --local 8 --quiet --out "$work/runs-local" >/dev/null 2>&1 || true
done
results=$(skews "$work/runs-local" | summary "8 local agents (--local 8)")

if [ "$(id -u)" -eq 0 ] && ip netns add vrskprobe 2>/dev/null && ip netns del vrskprobe; then
    deploy/virtual-rack.sh up 4 "${vrack_opts[@]}" >/dev/null
    for _ in $(seq 1 "$runs"); do
        deploy/virtual-rack.sh run "$work/rack.ini" --quiet --out "$work/runs-rack" >/dev/null 2>&1 || true
    done
    results="$results
$(skews "$work/runs-rack" | summary "4-node virtual rack (tcp over veth)")"
else
    echo "virtual rack skipped: needs root and working 'ip netns'" >&2
fi

echo "start skew of phase 1, $runs runs each (ms)"
echo "| setup | runs ok | median | min | max | clock error, median |"
echo "| --- | --- | --- | --- | --- | --- |"
echo "$results"
