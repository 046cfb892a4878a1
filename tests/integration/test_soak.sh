#!/usr/bin/env bash
# test_soak: tests/bench/soak.sh at CI size. Three local agents at a steady
# rate for SECONDS (30 in the gate; deploy/test.sh --full's long soak sets
# more with -DRB_SOAK_SECONDS), times RB_TEST_TIME_SCALE, RSS sampled every 5 s: the run
# completes, samples.csv lost no sample and has no gap, and no process's RSS
# grew by more than 16 MiB (times the scale: the sanitizers' allocators hold
# freed memory for a while).
# usage: test_soak.sh BIN_DIR WORK_DIR SCALE [SECONDS]
set -u
. "$(dirname "$0")/it_lib.sh"
bin=$1 work=$2 scale=${3:-1} seconds=${4:-30}
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work"
mkdir -p "$work"
# keep ASan's quarantine of freed blocks small, or it is what grows
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
hours=$(awk -v s="$scale" -v t="$seconds" 'BEGIN { printf "%.6f", t * s / 3600 }')
RB="$bin/rackbench" SOAK_NODES=3 SOAK_RATE=1M SOAK_INTERVAL=250ms SOAK_EVERY=5 \
    SOAK_MAX_GROWTH_KB=$((16384 * scale)) bash "$src/tests/bench/soak.sh" "$hours" "$work/soak"
code=$?
[ "$code" -eq 0 ] && rm -rf "$work"
exit "$code"
