#!/usr/bin/env bash
# A clean-up slower than --lost-after, on a file system where removing a
# file is slow for real: ext4 without a journal, mounted with discard, on a
# loop device whose writes (the discards of each removed file's blocks
# among them) a cgroup v1 blkio throttle holds to a few a second. The run's
# files are removed after END while the agent goes on sending heartbeats
# (with the count so far), and the run passes with the default
# --lost-after: before, the agent sat silent in unlink and was lost.
#   test_run_slow_cleanup.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
. "$(dirname "$0")/blkio_lib.sh"
bin=$1
s=$2/slow-cleanup.$$
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (loop devices, mounts, cgroups)"; exit 77; }
it_need losetup "mount"
it_need mkfs.ext4 "e2fsprogs"
blkio_check
mkdir -p "$s/mnt"
group=$blkio/rb-slow-cleanup.$$
cleanup() {
    blkio_cleanup "$group" /dev/null
    mountpoint -q "$s/mnt" && umount "$s/mnt"
    [ -n "${loop:-}" ] && losetup -d "$loop"
    [ -n "${KEEP:-}" ] || rm -rf "$s"
}
trap cleanup EXIT
truncate -s 128M "$s/disk.img"
loop=$(losetup --find --show --direct-io=on "$s/disk.img") || { echo "SKIP: no loop device"; exit 77; }
mkfs.ext4 -q -O ^has_journal "$loop" && mount -o discard "$loop" "$s/mnt" ||
    { echo "SKIP: cannot make and mount ext4 with discard"; exit 77; }
mkdir "$group" || { echo "SKIP: cannot make a blkio cgroup"; exit 77; }
echo "$(cat "/sys/class/block/$(basename "$loop")/dev") 4" > "$group/blkio.throttle.write_iops_device" ||
    { echo "SKIP: cannot set a write throttle"; exit 77; }
# 10 files of 64 KiB, written directly (their blocks allocated at once)
printf '[global]\ndirectory=%s/mnt\ndirect=1\n[w]\nrw=write\nbs=64k\nnrfiles=10\nfilesize=64k\n' "$s" > "$s/p.fio"
# the coordinator in the group: its --local agent too
timeout 120 sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$group" \
    "$bin/rackbench" run "$s/p.fio" --local 1 --verbose --out "$s/runs" > "$s/out" 2>&1
rc=$?
took=$(sed -n 's/.*ended; 10 files removed in \([0-9.]*\) s.*/\1/p' "$s/out")
sum=$(ls "$s"/runs/*/summary.json 2> /dev/null | head -1)
cl=$([ -n "$sum" ] && python3 -c "import json,sys; n=json.load(open(sys.argv[1]))['nodes'][0]; print(n['status'], n.get('cleanup'), n['removed_files'])" "$sum")
if [ "$rc" = 0 ] && [ "$cl" = "ok confirmed 10" ] && [ -n "$took" ] &&
    python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 3.0 else 1)" "$took" &&
    [ "$(find "$s/mnt" -mindepth 1 -not -name lost+found | wc -l)" = 0 ]; then
    echo "ok   10 files removed in $took s (discards at 4 a second), over the default --lost-after of 3 s: node $cl"
else
    echo "FAIL exit $rc, removal '$took' s, node '$cl'; log:"
    grep -E "lost|error|removed|clean" "$s/out" | head
    exit 1
fi
