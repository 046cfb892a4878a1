#!/usr/bin/env bash
# Every disk of a node: four loop devices of one size read through
# filename=@devices by one agent, one of them slowed to 4 MiB/s by a cgroup
# v1 blkio throttle on the processes of the run (root only):
#  - summary.json has a disks[] entry for each, with its path, kernel name,
#    size, its own bytes (16 MiB each), bandwidth, IOPS and latency, and its
#    family (4 disks, the median);
#  - the slowed disk is below 6 MiB/s, the others above 16 MiB/s, and it is
#    the one out-of-family finding, naming the node and the device;
#  - report.txt lists the disks, the slowed one first, and the FINDING;
#    report.html has the disks table with its row marked;
#  - acceptance: min_device_bw=8M fails measuring the slowed disk,
#    min_device_iops=1 passes, max_device_spread=50% fails (exit 1);
#    min_device_bw's row and the live out-of-family warning name the node
#    and the device.
#   test_disks.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
[ "$(id -u)" -eq 0 ] || { echo "needs root (loop devices, cgroups)"; exit 77; }
for t in losetup python3; do
    command -v $t > /dev/null || { echo "$t is not installed (deploy/setup.sh --test)"; exit 77; }
done
. "$(dirname "$0")/blkio_lib.sh"
blkio_check
scratch=$2/disks.$$
group=$blkio/rackbench-test-disks.$$
mkdir -p "$scratch"
cleanup() {
    blkio_cleanup "$group" "$scratch/loops"
    [ -n "${RB_KEEP:-}" ] || rm -rf "$scratch"
}
trap cleanup EXIT
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

loops=()
for i in 0 1 2 3; do
    truncate -s 64M "$scratch/d$i.img"
    l=$(losetup --find --show --direct-io=on "$scratch/d$i.img") || { echo "losetup failed"; exit 1; }
    echo "$l" >> "$scratch/loops"
    loops+=("$l")
done
slow=${loops[2]}
slow_name=$(basename "$slow")
blkio_throttle "$group" "$slow" 4194304

cat > "$scratch/plan.ini" <<PLAN
[global]
; the local agent's folder; the job clears it for its devices
directory=$scratch/data
rw=read
bs=64k
size=16m
direct=1
ioengine=libaio
iodepth=4

[burnin]
directory=
filename=@devices

[acceptance]
min_device_bw=8M
min_device_iops=1
max_device_spread=50%
PLAN

args=()
for l in "${loops[@]}"; do args+=(--agent-arg "--allow-device=$l"); done
# the run and its agent in the throttled group
timeout 180 bash -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' _ "$group" \
    "$bin/rackbench" run "$scratch/plan.ini" --local 1 --quiet --out "$scratch/runs" "${args[@]}" \
    > "$scratch/out.txt" 2> "$scratch/err.txt"
rc=$?
[ $rc -eq 1 ] && ok "exit 1: acceptance failed" || { bad "exit $rc, expected 1"; cat "$scratch/err.txt"; }
dir=$(ls -d "$scratch"/runs/*/ 2> /dev/null | tail -1)
[ -n "$dir" ] || { echo "FAIL no run folder"; exit 1; }

python3 - "$dir/summary.json" "$slow" "$slow_name" "${loops[@]}" <<'PY' || fail=1
import csv, json, os, sys
summary, slow, slow_name, loops = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
s = json.load(open(summary))
ph = s["phases"][0]
bad = 0
def check(cond, what):
    global bad
    print(("ok   " if cond else "FAIL ") + what)
    bad |= not cond
disks = ph.get("disks", [])
check(sorted(d["path"] for d in disks) == sorted(loops), "a disks[] entry for each loop device")
for d in disks:
    check(d["node"] == "local-1" and d["name"] == d["path"].rsplit("/", 1)[1],
          "%s: node and kernel name" % d["path"])
    check(d["size"] == 64 << 20 and d["bytes"] == 16 << 20 and d["ops"] == 256,
          "%s: size 64 MiB, 16 MiB in 256 reads of its own" % d["path"])
    check(d["directions"]["read"]["bytes"] == d["bytes"] and d["lat_us"]["count"] == 256,
          "%s: all reads, 256 latencies" % d["path"])
    check(d["family"]["disks"] == 4 and d["family"]["median_bw"] > 0,
          "%s: a family of 4 with a median" % d["path"])
    if d["path"] == slow:
        check(d["bw"] < 6 << 20, "slowed %s: %.2f MiB/s, under 6" % (d["path"], d["bw"] / 2**20))
        check(d["family"]["deviation"] < -0.5, "slowed disk far below its family")
    else:
        check(d["bw"] > 16 << 20, "%s: %.1f MiB/s, over 16" % (d["path"], d["bw"] / 2**20))
ooff = [f for f in ph["findings"] if f["kind"] == "out-of-family"]
check(len(ooff) == 1 and ooff[0]["node"] == "local-1" and ooff[0]["device"] == slow_name,
      "one out-of-family finding, local-1 %s: %s" % (slow_name, [f["device"] for f in ooff]))
rows = {r["name"]: r for r in s["acceptance"]["checks"]}
slow_bw = [d["bw"] for d in disks if d["path"] == slow][0]
check(rows["min_device_bw"]["passed"] is False and abs(rows["min_device_bw"]["measured"] - slow_bw) < 1,
      "min_device_bw fails on the slowed disk")
check(rows["min_device_bw"]["note"] == "the slowest disk: local-1 " + slow_name,
      "min_device_bw names the slowed disk: %s" % rows["min_device_bw"]["note"])
check(rows["min_device_iops"]["passed"] is True, "min_device_iops passes")
check(rows["max_device_spread"]["passed"] is False, "max_device_spread fails")
# the inventory: every device of the host, the allowed ones as sysfs says
inv = {d["path"]: d for d in s["nodes"][0]["host"]["devices"]}
for l in loops:
    d = inv.get(l)
    sysq = "/sys/class/block/%s/queue/" % os.path.basename(l)
    check(d is not None and d["access"] == "write" and d["use"] == "",
          "inventory: %s may be written" % l)
    if d:
        check(d["size"] == 64 << 20 and d["logical_block_size"] ==
              int(open(sysq + "logical_block_size").read()),
              "inventory: %s size and logical block size" % l)
        check(d["read_ahead_kb"] == int(open(sysq + "read_ahead_kb").read()) and
              d["nr_requests"] == int(open(sysq + "nr_requests").read()) and d["nr_requests"] > 0,
              "inventory: %s read-ahead %d KiB, queue %d" % (l, d["read_ahead_kb"], d["nr_requests"]))
others = [d for p, d in inv.items() if p not in loops]
check(all(d["access"] == "none" and d["use"].startswith("not allowed") for d in others),
      "inventory: the %d other devices are not allowed" % len(others))
# host telemetry follows the raw disks, which no root is on
seen = {r["name"] for r in csv.DictReader(open(os.path.join(os.path.dirname(summary), "telemetry.csv")))
        if r["kind"] == "dev"}
check(all(os.path.basename(l) in seen for l in loops), "telemetry.csv has every loop device")
sys.exit(bad)
PY

first=$(awk '/^  node +device +serial/ { getline; print $2; exit }' "$dir/report.txt")
[ "$first" = "$slow_name" ] && ok "report.txt lists the slowed disk first" ||
    bad "report.txt's first disk is '$first', not $slow_name"
grep -q "FINDING.*out-of-family.*local-1.*$slow_name" "$dir/report.txt" &&
    ok "report.txt has the out-of-family FINDING" || bad "no out-of-family FINDING in report.txt"
grep -q "out-of-family local-1 $slow_name: serial" "$scratch/err.txt" &&
    ok "the live warning names the node and the device" ||
    bad "no live out-of-family warning naming local-1 $slow_name: $(grep family "$scratch/err.txt")"
grep -q "min_device_bw .*FAIL  (the slowest disk: local-1 $slow_name)" "$dir/report.txt" &&
    ok "report.txt's min_device_bw row names the disk" || bad "min_device_bw's row names no disk"
grep -q "Disks, the farthest below their family first" "$dir/report.html" &&
    grep -q "<tr class=\"bad\"><td>local-1</td><td>$slow_name</td>" "$dir/report.html" &&
    ok "report.html marks the slowed disk" || bad "report.html has no marked disk row"
# before the results, the four loop disks alike on one line; every device
# (with serials) in the inventory after them
sed '/^phase 1\//q' "$dir/report.txt" > "$scratch/head.txt"
grep -q "^devices of the nodes: [0-9]* on 1 node, alike ones on one line" "$scratch/head.txt" &&
    grep -Eq "^  local-1 +4 devices .* write$" "$scratch/head.txt" &&
    ! grep -q "$slow " "$scratch/head.txt" &&
    ok "report.txt's head groups the alike disks ($(wc -l < "$scratch/head.txt") lines to the first phase)" ||
    bad "report.txt's head does not group the four loop disks"
sed -n '/^inventory: every device of the nodes$/,$p' "$dir/report.txt" | grep -Eq "^  local-1 +$slow .* write$" &&
    ok "report.txt lists the inventory after the results" || bad "report.txt has no inventory row for $slow"
grep -q '<h3 id="devices">Devices of the nodes</h3>' "$dir/report.html" &&
    ok "report.html lists the inventory" || bad "report.html has no inventory"
# the run folder renders again the same
"$bin/rackbench" report "$dir" > "$scratch/again.txt" 2> /dev/null
cmp -s "$scratch/again.txt" "$dir/report.txt" && ok "rackbench report renders the disks again" ||
    bad "rackbench report differs from report.txt"
it_exit "$fail"
