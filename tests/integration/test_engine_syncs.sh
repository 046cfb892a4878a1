#!/usr/bin/env bash
# fsync=N on a time-based job of the queued engines (libaio, io_uring): the
# IO held back for a sync when the runtime ends right after that sync is
# not issued, and the phase ends cleanly. It failed with "libaio is busy
# with no IO in flight" on nearly every phase with fsync=1, and on 2 or 3 of
# 3 runs of a job shaped like the issue's (bs=4M iodepth=16 nrfiles=100
# filesize=4M fsync=64 time_based runtime=3, here scaled to 64 KiB blocks:
# 10 phases in a row of each engine). One run of 26 phases of half a
# second, half of each engine.
#   test_engine_syncs.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
s=$2/syncs.$$
mkdir -p "$s/d"
trap 'rm -rf "$s"' EXIT
{
    printf '[global]\ndirectory=%s\ndirect=1\nrw=write\ntime_based\nruntime=500ms\n' "$s/d"
    for e in libaio io_uring; do
        for i in 1 2 3; do
            printf '[%s-fsync1-%d]\nstonewall\nioengine=%s\nbs=64k\niodepth=8\nnrfiles=8\nfilesize=64k\nfsync=1\n' "$e" "$i" "$e"
        done
        for i in $(seq 1 10); do
            printf '[%s-fsync64-%d]\nstonewall\nioengine=%s\nbs=64k\niodepth=16\nnrfiles=100\nfilesize=64k\nfsync=64\n' "$e" "$i" "$e"
        done
    done
} > "$s/p.fio"
"$bin/rackbench" run "$s/p.fio" --local 1 --quiet --out "$s/runs" > "$s/out" 2>&1
rc=$?
sum=$(ls "$s"/runs/*/summary.json 2> /dev/null | head -1)
phases=$([ -n "$sum" ] && python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
print(' '.join('%s:%d:%d' % (p['name'], p['bytes'] > 0, p.get('errors', 0)) for p in d['phases']))" "$sum")
if [ "$rc" = 0 ] && ! grep -q "busy with no IO" "$s/out" && [ "$(wc -w <<< "$phases")" = 26 ] &&
    ! grep -qE ':0:|:[0-9]+:[1-9]' <<< "$phases"; then
    echo "ok   26 time-based phases with fsync=1 (3 of each engine) and fsync=64 (10 of each) on libaio and io_uring end cleanly, each with bytes written"
    it_exit 0
fi
echo "FAIL exit $rc, phases (name:wrote:errors) '$phases'"
grep -m3 "busy with no IO\|error" "$s/out"
it_exit 1
