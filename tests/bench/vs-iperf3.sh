#!/usr/bin/env bash
# rackbench's network phases against iperf3, side by side: two nodes of a
# virtual rack (deploy/virtual-rack.sh: network namespaces on a bridge, an
# agent in each), node 1 streaming to node 2 for SECS seconds, one stream
# and four, one way and both ways at once (iperf3 --bidir), alternating
# rackbench and iperf3 RUNS times each; then the same with the link shaped
# to 1 Gbit/s each way (htb), where the link, not the CPU, is the limit.
# Prints each case's medians (Gbit/s, what the receiver got), the runs'
# range and the ratio rackbench / iperf3, and with --rtt the round trip of
# 64 bytes (rackbench pingpong) against ping's.
#
#   tests/bench/vs-iperf3.sh [RUNS=3] [SECS=5]
#
# RATES="veth 1gbit" (the default) chooses the links: veth unshaped, and
# each rate htb understands.
# Needs root, iperf3 and iproute2. RB_BIN chooses the binaries (default
# build/bin). Not run by ctest: figures go in docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tests/bench/lib.sh
. tests/bench/lib.sh
if [ -n "${RB_BIN:-}" ]; then rb=$RB_BIN/rackbench; fi
bench_need python3 python3 iperf3 iperf3 tc iproute2 ping iputils-ping
[ "$(id -u)" -eq 0 ] || { echo "needs root (network namespaces)" >&2; exit 2; }
runs=${1:-3}
secs=${2:-5}
work=$(mktemp -d)
export RB_BIN=${RB_BIN:-$(dirname "$rb")}
export RB_VRACK_STATE=$work/vrack
cleanup() {
    deploy/virtual-rack.sh down --prefix vri >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
deploy/virtual-rack.sh up 2 --prefix vri --subnet 10.76.0 --port 17773 --size 16M >/dev/null
a=10.76.0.2 b=10.76.0.3

plan() { # STREAMS RW
    printf '[global]\nsample_interval=1s\n[net]\nnetwork=pairs\nrw=%s\nnumjobs=%s\nruntime=%ss\ntime_based\n' \
        "$2" "$1" "$secs"
}
# rackbench: prints Gbit/s of vri1 -> vri2, and of vri2 -> vri1 (0 one way)
rb_run() { # STREAMS RW
    plan "$1" "$2" >"$work/p.ini"
    rm -rf "$work/runs"
    deploy/virtual-rack.sh run "$work/p.ini" --out "$work/runs" >"$work/rb.log" 2>&1 || {
        tail -5 "$work/rb.log" >&2
        exit 1
    }
    python3 - "$(ls -d "$work"/runs/*/)summary.json" <<'PY'
import json, sys
n = json.load(open(sys.argv[1]))["phases"][0]["network"]
g = {(l["from"], l["to"]): l["gbps"] for l in n["links"]}
print(g.get(("vri1", "vri2"), 0), g.get(("vri2", "vri1"), 0))
PY
}
# iperf3: the same, client on vri1, server on vri2
ip_run() { # STREAMS both(0/1)
    ip netns exec vri2 iperf3 -s -1 -B "$b" >/dev/null 2>&1 &
    local srv=$! extra=()
    for _ in $(seq 100); do
        ip netns exec vri2 ss -Htln | grep -q "$b:5201" && break
        sleep 0.05
    done
    [ "$2" = 1 ] && extra=(--bidir)
    ip netns exec vri1 iperf3 -c "$b" -B "$a" -t "$secs" -P "$1" -l 128K -J "${extra[@]}" >"$work/ip.json"
    wait $srv || true
    python3 - "$work/ip.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["end"]
fwd = e["sum_received"]["bits_per_second"] / 1e9
rev = e.get("sum_received_bidir_reverse", {}).get("bits_per_second", 0) / 1e9
print(fwd, rev)
PY
}
shape() { # RATE (empty: none) on both nodes' eth0
    for n in vri1 vri2; do
        ip netns exec $n tc qdisc del dev eth0 root 2>/dev/null || true
        [ -n "$1" ] && ip netns exec $n tc qdisc add dev eth0 root handle 1: htb default 1 &&
            ip netns exec $n tc class add dev eth0 parent 1: classid 1:1 htb rate "$1" ceil "$1" quantum 60000
    done
    return 0
}
report() { # LABEL FILE_RB FILE_IP
    python3 - "$@" <<'PY'
import statistics as st, sys
label, frb, fip = sys.argv[1:4]
def col(f, k):
    return [float(l.split()[k]) for l in open(f) if l.strip()]
sums = ([a + b for a, b in zip(col(frb, 0), col(frb, 1))],
        [a + b for a, b in zip(col(fip, 0), col(fip, 1))])
for k, d in ((0, "1->2"), (1, "2->1"), (2, "sum")):
    r, i = (col(frb, k), col(fip, k)) if k < 2 else sums
    if k == 2 and not any(col(frb, 1)):
        continue
    if not any(r) and not any(i):
        continue
    mr, mi = st.median(r), st.median(i)
    print("%-28s %-5s rackbench %7.3f (%.3f..%.3f)  iperf3 %7.3f (%.3f..%.3f)  ratio %.3f"
          % (label, d, mr, min(r), max(r), mi, min(i), max(i), mr / mi if mi else float("nan")))
PY
}
for rate in ${RATES:-veth 1gbit}; do
    [ "$rate" = veth ] && rate=""
    shape "$rate"
    for streams in 1 4; do
        for both in 0 1; do
            : >"$work/rb.txt"
            : >"$work/ip.txt"
            for _ in $(seq "$runs"); do # alternating
                rb_run "$streams" "$([ $both = 1 ] && echo rw || echo write)" >>"$work/rb.txt"
                ip_run "$streams" "$both" >>"$work/ip.txt"
            done
            report "${rate:-veth} P=$streams $([ $both = 1 ] && echo both || echo one-way)" \
                "$work/rb.txt" "$work/ip.txt"
        done
    done
done
shape ""
# round trips of 64 bytes: rackbench's pingpong against ping's (ICMP, 64 bytes)
printf '[rtt]\nnetwork=pairs\npingpong=1\nbs=64\nruntime=%ss\ntime_based\n' "$secs" >"$work/p.ini"
rm -rf "$work/runs"
deploy/virtual-rack.sh run "$work/p.ini" --out "$work/runs" >"$work/rb.log" 2>&1
python3 - "$(ls -d "$work"/runs/*/)report.txt" <<'PY'
import sys
for l in open(sys.argv[1]):
    if l.startswith("  round trip "):
        print("rackbench pingpong 64 B:", l.split("round trip", 1)[1].strip())
PY
ip netns exec vri1 ping -q -c 200 -i 0.01 -s 56 "$b" | tail -1 | sed 's/^/ping 64 B: /'
