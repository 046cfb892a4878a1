#!/usr/bin/env bash
# A rack's burn-in as deploy/plans/jbod-burnin.ini runs it, unchanged: four
# nodes (--local 4), each allowed three clean loop disks of its own and a
# fourth that is not safe to write (local-1: an ext4 signature, local-2:
# mounted, local-3: a partition table, local-4: an ext4 signature), with one
# disk of local-3 slowed by the cgroup v1 blkio throttle (reads, 4 MiB/s):
#  - filename=@devices puts the writes on the 12 clean disks, 3 per node,
#    and never writes the unsafe ones (their sha256sum does not change);
#    reads go to every allowed disk but the mounted one;
#  - seq-read has one out-of-family finding, naming exactly local-3 and the
#    slowed disk; the acceptance fails (exit 1) on it;
#  - each node's inventory (summary.json, report.txt) lists its disks with
#    access write, the unsafe one with its reason and read only, and the
#    other nodes' disks as not allowed;
#  - with a stand-in for smartctl printing a real SAS drive's output for
#    every disk, local-2's second disk gaining 8 grown defects during the
#    run: that drive alone is worse, and the plan's drive acceptance fails
#    on it, naming node, device and serial.
#   test_jbod_rack.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "needs root (loop devices, cgroups)"; exit 77; }
for t in losetup partx python3 mkfs.ext4 sfdisk sha256sum mount; do
    command -v $t > /dev/null || { echo "$t is not installed (deploy/setup.sh --test)"; exit 77; }
done
. "$(dirname "$0")/blkio_lib.sh"
blkio_check
scratch=$2/jbod-rack.$$
group=$blkio/rackbench-test-jbod.$$
mkdir -p "$scratch/mnt"
cleanup() {
    mountpoint -q "$scratch/mnt" && umount "$scratch/mnt"
    blkio_cleanup "$group" "$scratch/loops"
    [ -n "${RB_KEEP:-}" ] || rm -rf "$scratch"
}
trap cleanup EXIT
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

# node K's disk J: a loop device on a 64 MiB image, linked as nodes/local-K/dJ
args=()
for k in 1 2 3 4; do
    mkdir -p "$scratch/nodes/local-$k"
    for j in 0 1 2 3; do
        truncate -s 64M "$scratch/n$k-d$j.img"
        part=()
        [ $k$j = 33 ] && part=(-P) # the kernel reads its partition table
        l=$(losetup --find --show --direct-io=on "${part[@]}" "$scratch/n$k-d$j.img") ||
            { echo "losetup failed"; exit 1; }
        echo "$l" >> "$scratch/loops"
        ln -s "$l" "$scratch/nodes/local-$k/d$j"
    done
done
for j in 0 1 2 3; do args+=(--agent-arg "--allow-device=$scratch/nodes/{node}/d$j"); done
dev() { readlink "$scratch/nodes/local-$1/d$2"; }
# each node's drives as SAS drives to smartctl: a stand-in printing a real
# SAS drive's smartctl output (tests/unit/fixtures/smart/sas.json), serial
# SIM-NODE-DEVICE; local-2's d1 gains 8 grown defects after its first reading
grown=$(basename "$(dev 2 1)")
for k in 1 2 3 4; do
    cat >"$scratch/nodes/local-$k/smartctl" <<EOF
#!/bin/sh
[ "\$1" = --json=c ] && [ "\$2" = -a ] && [ \$# -eq 3 ] || exit 64
name=\$(basename "\$(readlink -f "\$3")")
state="$scratch/nodes/local-$k/read.\$name"
n=\$(cat "\$state" 2>/dev/null || echo 0)
echo \$((n + 1)) >"\$state"
exec python3 - "$src/tests/unit/fixtures/smart/sas.json" "local-$k-\$name" "\$n" "$([ $k = 2 ] && echo "$grown")" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["serial_number"] = "SIM-" + sys.argv[2]
if int(sys.argv[3]) > 0 and sys.argv[2].endswith("-" + sys.argv[4]) and sys.argv[4]:
    d["scsi_grown_defect_list"] += 8
print(json.dumps(d))
PY
EOF
    chmod +x "$scratch/nodes/local-$k/smartctl"
done
args+=(--agent-arg "--smartctl=$scratch/nodes/{node}/smartctl")
# (ext4 that writes nothing later: no lazy init, mounted read-only)
mkfs.ext4 -q -F "$(dev 1 3)" && mkfs.ext4 -q -F "$(dev 4 3)" &&
    mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$(dev 2 3)" &&
    mount -o ro "$(dev 2 3)" "$scratch/mnt" || { echo "cannot prepare the unsafe disks"; exit 1; }
printf 'label: dos\n,16M,L\n' | sfdisk -q "$(dev 3 3)" > /dev/null 2>&1
p3=/sys/block/$(basename "$(dev 3 3)")/$(basename "$(dev 3 3)")p1
[ -e "$p3" ] || partx -a "$(dev 3 3)" 2> /dev/null
for i in $(seq 50); do [ -e "$p3" ] && break; sleep 0.1; done
[ -e "$p3" ] || { echo "FAIL no partition $p3 after sfdisk"; exit 1; }
for k in 1 2 3 4; do sha256sum "$(dev $k 3)"; done > "$scratch/before"
slow=$(dev 3 1)
slow_name=$(basename "$slow")
blkio_throttle "$group" "$slow" 4194304

SIZE=16m RUNTIME=2s MIN_BW=1M timeout 300 bash -c \
    'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' _ "$group" \
    "$bin/rackbench" run "$src/deploy/plans/jbod-burnin.ini" --local 4 --quiet --lost-after 30s \
    --out "$scratch/runs" "${args[@]}" > "$scratch/out.txt" 2> "$scratch/err.txt"
rc=$?
[ $rc -eq 1 ] && ok "exit 1: acceptance failed" || { bad "exit $rc, expected 1"; cat "$scratch/err.txt"; }
for k in 1 2 3 4; do sha256sum "$(dev $k 3)"; done > "$scratch/after"
cmp -s "$scratch/before" "$scratch/after" && ok "the four unsafe disks are unchanged" ||
    bad "an unsafe disk changed: $(diff "$scratch/before" "$scratch/after")"
dir=$(ls -d "$scratch"/runs/*/ 2> /dev/null | tail -1)
[ -n "$dir" ] || { echo "FAIL no run folder"; exit 1; }

python3 - "$dir/summary.json" "$scratch/nodes" "$slow_name" <<'PY' || fail=1
import json, os, sys
summary, nodes, slow_name = sys.argv[1:]
s = json.load(open(summary))
bad = 0
def check(cond, what):
    global bad
    print(("ok   " if cond else "FAIL ") + what)
    bad |= not cond
own = {n: [os.path.realpath(os.path.join(nodes, n, "d%d" % j)) for j in range(4)]
       for n in sorted(os.listdir(nodes))}
for ph in s["phases"]:
    got = sorted((d["node"], d["path"]) for d in ph.get("disks", []))
    want = [(n, p) for n, ps in own.items() for p in ps[:3]]
    if ph["name"] == "seq-write":
        check(got == sorted(want), "seq-write: the 12 clean disks, 3 per node, and no other")
    else:  # reads need no :wipe: the signed and the partitioned disks too, not the mounted one
        want += [(n, own[n][3]) for n in ("local-1", "local-3", "local-4")]
        check(got == sorted(want), "%s: the 12 clean disks and 3 unsafe to write but not "
              "mounted, no other" % ph["name"])
read = [p for p in s["phases"] if p["name"] == "seq-read"][0]
ooff = [(f["node"], f["device"]) for f in read["findings"] if f["kind"] == "out-of-family"]
check(ooff == [("local-3", slow_name)], "seq-read: out-of-family exactly local-3 %s: %s" %
      (slow_name, ooff))
why = {"local-1": "ext4", "local-2": "mounted", "local-3": "partition", "local-4": "ext4"}
for n in s["nodes"]:
    inv = {d["path"]: d for d in n["host"]["devices"]}
    mine = own[n["name"]]
    check(all(inv[p]["access"] == "write" and inv[p]["use"] == "" for p in mine[:3]),
          "%s: its three disks may be written" % n["name"])
    u = inv[mine[3]]
    check(u["access"] in ("read", "none") and why[n["name"]] in u["use"],
          "%s: %s not written: %s" % (n["name"], mine[3], u["use"]))
    others = [p for m, ps in own.items() if m != n["name"] for p in ps]
    check(all(inv[p]["access"] == "none" and inv[p]["use"].startswith("not allowed")
              for p in others), "%s: the other nodes' 16 disks are not allowed" % n["name"])
sys.exit(bad)
PY
# the drives: every one read before and after, local-2's d1 worse (its
# grown defects 0 -> 8), the drive acceptance failing on it by name
python3 - "$dir/summary.json" "$grown" <<'PY' || fail=1
import json, sys
s = json.load(open(sys.argv[1]))
grown = sys.argv[2]
dh = s["drive_health"]
worse = [(x["node"], x["device"], x["serial"], x["evidence"]) for x in dh["drives"] if x["status"] != "ok"]
want = [("local-2", "/dev/" + grown, "SIM-local-2-" + grown, "reallocated 0 -> 8")]
rows = {c["name"]: c for c in s["acceptance"]["checks"] if c["phase"] == "drives"}
r = rows["max_reallocated_growth"]
ok = worse == want and dh["drives_not_read"] == 0 and r["passed"] is False and r["measured"] == 8
ok = ok and ("local-2 /dev/%s (" % grown) in r["note"] and ("serial SIM-local-2-%s" % grown) in r["note"]
# (a SAS drive reports no pending sectors: that check does not apply)
ok = ok and rows["require_smart_pass"]["passed"] is True and rows["max_pending_growth"]["passed"] is None
print(("ok   " if ok else "FAIL ") + "drive health: %d drives read, worse %s; max_reallocated_growth: %s" %
      (dh["drives_read"], worse, r["note"]))
sys.exit(not ok)
PY
grep -q "FINDING: drive-health local-2 /dev/$grown (.*, serial SIM-local-2-$grown): reallocated 0 -> 8" "$dir/report.txt" &&
    ok "report.txt has the drive-health finding" || bad "no drive-health FINDING in report.txt"
grep -q "FINDING.*out-of-family.*local-3.*$slow_name" "$dir/report.txt" &&
    ok "report.txt has the finding" || bad "no out-of-family FINDING in report.txt"
[ "$(grep -Ec "^  local-[1-4] +/dev/loop[0-9]+ .* write$" "$dir/report.txt")" -eq 12 ] &&
    ok "report.txt's inventory has 12 writable disks" || bad "report.txt's inventory is not 12 writable disks"
it_exit "$fail"
