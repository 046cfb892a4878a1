#!/usr/bin/env bash
# The floor ZeroMQ alone sets at a fleet's size: a bare ROUTER (one process,
# as the coordinator's, with its I/O threads: two from 2,000 agents) taking
# one message a second from each of N DEALERs (processes of at most 4,000,
# as fleet-sim.sh's), with no decoding, aggregation or files. Set beside
# fleet-sim.sh's figures at the same N: what the coordinator spends beyond
# this is its own.
#
#   tests/bench/zmq-floor.sh [SECONDS=20] [N]...     (default N: 1000 4000 16000)
#
# RB_FLOOR_SIZE=BYTES: each message's size (2000: a SAMPLE of fleet-sim's,
# a writing job with its lat and clat histograms and 4 disks' telemetry).
# RB_FLOOR_BEAT=1: the ROUTER also sends each DEALER 16 bytes a second, as
# the coordinator's HEARTBEATs go (k: k times a second).
# RB_FLOOR_RATE=k: each DEALER sends k messages a second (1): a pipe's
# count of a long phase in seconds (ZeroMQ's pipes grow until they have
# carried 512 messages: what a phase of 9 minutes at 1 a second reaches).
# Not run by ctest: figures go in docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
floor=$(dirname "${RB_BIN:-$rb}")/zmq-floor
[ -x "$floor" ] || { echo "build first: $floor is missing" >&2; exit 2; }
secs=${1:-20}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 4000 16000)
size=${RB_FLOOR_SIZE:-2000}
ulimit -n "$(ulimit -Hn)"
work=$(mktemp -d)
trap 'kill -9 $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
for n in "${sizes[@]}"; do
    ep="ipc://$work/floor-$n.sock"
    threads=1
    [ "$n" -lt 2000 ] || threads=2
    "$floor" router "$ep" "$n" "$secs" "$threads" "${RB_FLOOR_BEAT:-0}" >"$work/router-$n.out" &
    rpid=$!
    for _ in $(seq 1 200); do
        [ -S "${ep#ipc://}" ] && break
        sleep 0.05
    done
    dpids=()
    for ((first = 0; first < n; first += 4000)); do
        cnt=$((n - first < 4000 ? n - first : 4000))
        "$floor" dealers "$ep" "$first" "$cnt" "$size" $((secs + 120)) "${RB_FLOOR_RATE:-1}" 2>>"$work/dealers-$n.err" &
        dpids+=($!)
    done
    wait "$rpid"
    kill "${dpids[@]}" 2>/dev/null || true
    wait "${dpids[@]}" 2>/dev/null || true
    printf '%6d DEALERs, %d B %s a second each, %d I/O thread(s)%s: %s\n' "$n" "$size" \
        "${RB_FLOOR_RATE:-1}x" "$threads" \
        "$([ "${RB_FLOOR_BEAT:-0}" = 0 ] || echo ", a beat back ${RB_FLOOR_BEAT}x a second")" \
        "$(cat "$work/router-$n.out")"
    if [ -s "$work/dealers-$n.err" ]; then head -3 "$work/dealers-$n.err"; fi
done
