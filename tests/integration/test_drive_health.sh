#!/usr/bin/env bash
# Did any drive get worse? The drive health of a run, end to end (issue 36):
#
#   test_drive_health.sh BIN_DIR SCRATCH FIXTURES
#
# 1. `rackbench run --local 2`, each agent reading its disk with its own
#    stand-in for smartctl (--agent-arg --smartctl=DIR/{node}/smartctl): a
#    script that checks it is called as `smartctl --json=c -a DEVICE` and
#    prints a real smartctl output (tests/unit/fixtures/smart): local-1 a
#    SATA drive (sata-grown.json) whose reallocated sectors grow by 8 after
#    its first reading and which reads 20 C hotter in its second (the first
#    of the readings every --health-every=1s during the 2.5 s phase),
#    local-2 a healthy one (sata-healthy.json). The plan's acceptance asks
#    for no growth, no pending growth, at most 50 C and every verdict
#    PASSED: the run fails (exit 1) on max_reallocated_growth and
#    max_drive_temperature (53 C), naming local-1's device and serial;
#    summary.json's drive_health says
#    local-1 worse (reallocated 304 -> 312, a drive-health finding with
#    node, device, model and serial) and local-2 ok; report.txt has the
#    table row and the FINDING line; `rackbench report` renders the same
#    report.txt again from the run folder. A second run of the same rack,
#    the drive having gained 8 more between the runs: `rackbench compare`
#    of the two names it (312 -> 320) and not local-2's.
# 2. The real smartctl (Debian's smartmontools), when installed, on the disk
#    under this machine's scratch folder: on a disk that has no SMART by its
#    kind (a loop or virtio disk) the drive is "not read" with the reason
#    and the drive check does not apply (exit 0); on a disk that has SMART,
#    it is read. Skipped (visibly) without smartctl.
# 3. A drive that could not be read (--smartctl names no program): not read,
#    with the reason, and the drive check fails for want of a reading.
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=${1:?usage: test_drive_health.sh BIN_DIR SCRATCH FIXTURES}
s=${2:?SCRATCH}/drive-health.$$
fix=${3:?FIXTURES}
mkdir -p "$s/data"
trap 'rm -rf "$s"' EXIT
fail=0
no() {
    echo "FAIL $*"
    fail=1
}
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# the stand-in smartctl of node $1: fixture $2, its reallocated sectors
# grown by $3 in every reading after the first, its temperature $4 degrees
# higher in the second (the first during the run)
stand_in() {
    mkdir -p "$s/$1"
    cp "$fix/$2" "$s/$1/fixture.json"
    cat >"$s/$1/smartctl" <<EOF
#!/bin/sh
[ "\$1" = --json=c ] && [ "\$2" = -a ] && [ -n "\$3" ] && [ \$# -eq 3 ] || exit 64
here=\$(dirname "\$0")
n=\$(cat "\$here/readings" 2>/dev/null || echo 0)
echo \$((n + 1)) >"\$here/readings"
exec python3 - "\$here/fixture.json" "\$n" $3 $4 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n, grow, peak = (int(x) for x in sys.argv[2:5])
for a in d["ata_smart_attributes"]["table"]:
    if a["id"] == 5 and n > 0:
        a["raw"]["value"] += grow
        a["raw"]["string"] = str(a["raw"]["value"])
if n == 1:
    d["temperature"]["current"] += peak
print(json.dumps(d))
PY
EOF
    chmod +x "$s/$1/smartctl"
}
stand_in local-1 sata-grown.json 8 20
stand_in local-2 sata-healthy.json 0 0
cat >"$s/plan.fio" <<EOF
[global]
directory=$s/data
[w]
rw=write
bs=64k
size=256k
rate=100k
[acceptance]
max_reallocated_growth=0
max_pending_growth=0
max_drive_temperature=50
require_smart_pass=1
EOF

# 1. the stand-ins
"$bin/rackbench" run "$s/plan.fio" --local 2 --agent-arg "--smartctl=$s/{node}/smartctl" \
    --agent-arg --health-every=1s --out "$s/runs" >"$s/run1.log" 2>&1
rc=$?
run=$(ls -d "$s"/runs/*/ 2>/dev/null | head -1)
if [ "$rc" != 1 ] || [ -z "$run" ]; then
    no "case 1: the run exited $rc, not 1 (acceptance failed)"
    tail -20 "$s/run1.log"
else
    sum=$run/summary.json
    got=$(json "$sum" "'; '.join('%s %s %s %s' % (x['node'], x['status'], ','.join(x['grew']), x['evidence']) for x in d['drive_health']['drives'])")
    find=$(json "$sum" "'; '.join('%s %s %s %s %s' % (f['kind'], f['node'], f['model'], f['serial'], f['evidence']) for f in d['drive_health']['findings'])")
    acc=$(json "$sum" "'; '.join('%s %s %s %s' % (c['name'], c['passed'], c['measured'], c['note']) for c in d['acceptance']['checks'])")
    tmax=$(json "$sum" "' '.join(str(x['after']['temperature_max']) for x in d['drive_health']['drives'])")
    readings=$(cat "$s/local-1/readings" "$s/local-2/readings" | tr '\n' ' ')
    read -r r1 r2 <<<"$readings"
    if [[ $got == "local-1 worse reallocated reallocated 304 -> 312; local-2 ok  None" ]] &&
        [[ $find == "drive-health local-1 ST3500418AS REDACTED reallocated 304 -> 312" ]] &&
        [[ $acc == "max_reallocated_growth False 8 the worst drive: local-1 /dev/"*" (ST3500418AS, serial REDACTED); max_pending_growth True 0 None; max_drive_temperature False 53 the worst drive: local-1 /dev/"*"; require_smart_pass True 0 None" ]] &&
        [ "$tmax" = "53 34" ] && [ "$r1" -ge 3 ] && [ "$r2" -ge 3 ] &&
        grep -q "worse .*304->312" "$run/report.txt" &&
        grep -q "FINDING: drive-health local-1 /dev/.* (ST3500418AS, serial REDACTED): reallocated 304 -> 312" "$run/report.txt"; then
        echo "ok   case 1: local-1's drive worse (reallocated 304 -> 312, 53 C read during the run), local-2's ok; acceptance fails on it, naming it (exit 1; readings $r1 and $r2)"
    else
        no "case 1: drives '$got', findings '$find', acceptance '$acc', temperatures '$tmax', readings '$readings'"
        sed -n '/Drive health/,/^$/p' "$run/report.txt"
    fi
    # (its exit code is the run's: 1)
    "$bin/rackbench" report "$run" --format text >"$s/again.txt" 2>"$s/again.err"
    if cmp -s "$s/again.txt" "$run/report.txt"; then
        echo "ok   case 1: rackbench report renders the same report.txt from the run folder"
    else
        no "case 1: rackbench report's text differs from report.txt"
        diff "$s/again.txt" "$run/report.txt" | head -20
        cat "$s/again.err"
    fi
fi

# 1b. the next burn-in of the same rack: local-1's drive gained 8 more
# between the runs (the stand-in's fixture now says 312) and 8 during this
# one; `rackbench compare` of the two runs names it, 312 -> 320
python3 - "$s/local-1/fixture.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for a in d["ata_smart_attributes"]["table"]:
    if a["id"] == 5:
        a["raw"]["value"] += 8
        a["raw"]["string"] = str(a["raw"]["value"])
json.dump(d, open(sys.argv[1], "w"))
PY
rm -f "$s"/local-*/readings
"$bin/rackbench" run "$s/plan.fio" --local 2 --agent-arg "--smartctl=$s/{node}/smartctl" \
    --agent-arg --health-every=0 --out "$s/runs-b" >"$s/run1b.log" 2>&1
run_b=$(ls -d "$s"/runs-b/*/ 2>/dev/null | head -1)
if [ -z "$run" ] || [ -z "$run_b" ]; then
    no "case 1b: no second run folder ($(tail -3 "$s/run1b.log"))"
else
    "$bin/rackbench" compare "$run" "$run_b" >"$s/compare.txt" 2>&1
    if grep -q "GREW local-1 /dev/.* (ST3500418AS, serial REDACTED): reallocated 312 -> 320" "$s/compare.txt" &&
        ! grep -q "GREW local-2" "$s/compare.txt"; then
        echo "ok   case 1b: rackbench compare of the two runs: $(grep "GREW" "$s/compare.txt" | sed 's/^ *//')"
    else
        no "case 1b: rackbench compare says:"
        cat "$s/compare.txt"
    fi
fi

# 2. the real smartctl on this machine's disk
printf '[global]\ndirectory=%s/data\n[w]\nrw=write\nbs=64k\nsize=64k\n[acceptance]\nmax_reallocated_growth=0\n' \
    "$s" >"$s/plan2.fio"
if ! type -P smartctl >/dev/null; then
    it_skip "case 2: no smartctl (Debian's smartmontools)"
else
    "$bin/rackbench" run "$s/plan2.fio" --local 1 --out "$s/runs2" >"$s/run2.log" 2>&1
    rc=$?
    sum=$(ls "$s"/runs2/*/summary.json 2>/dev/null | head -1)
    if [ -z "$sum" ]; then
        no "case 2: no summary.json (exit $rc)"
        tail -20 "$s/run2.log"
    else
        st=$(json "$sum" "'; '.join('%s %s %s' % (x['status'], x['after']['no_smart'], x['reason']) for x in d['drive_health']['drives'])")
        acc=$(json "$sum" "'%s %s' % (d['acceptance']['checks'][0]['passed'], d['acceptance']['checks'][0]['note'])")
        if [[ $st == "not read True "* ]] && [ "$rc" = 0 ] &&
            [ "$acc" = "None no drive here has SMART (loop, virtio, device-mapper or md devices)" ]; then
            echo "ok   case 2: this machine's disk has no SMART: ${st#not read True }; the drive check does not apply (exit 0)"
        elif [[ $st == ok* ]] || [[ $st == worse* ]] || [[ $st == failing* ]]; then
            echo "ok   case 2: this machine's disk has SMART and was read: $st"
        else
            no "case 2: drives '$st', exit $rc, acceptance '$acc'"
        fi
    fi
fi

# 3. a drive that could not be read (no smartctl where it was said to be):
# the check is not passed but failed, for want of a reading (exit 1)
"$bin/rackbench" run "$s/plan2.fio" --local 1 --agent-arg "--smartctl=$s/no-such-smartctl" \
    --out "$s/runs3" >"$s/run3.log" 2>&1
rc=$?
sum=$(ls "$s"/runs3/*/summary.json 2>/dev/null | head -1)
st=$( [ -n "$sum" ] && json "$sum" "'; '.join('%s %s' % (x['status'], x['reason']) for x in d['drive_health']['drives'])")
acc=$( [ -n "$sum" ] && json "$sum" "'%s %s' % (d['acceptance']['checks'][0]['passed'], d['acceptance']['checks'][0]['note'])")
if [ "$rc" = 1 ] && [[ $st == "not read no smartctl (Debian's smartmontools) at $s/no-such-smartctl"* ]] &&
    [ "$acc" = "False no drive's health was read (report.txt's Drive health says why)" ]; then
    echo "ok   case 3: no smartctl: the drive not read, said why, and the check fails (exit 1)"
else
    no "case 3: exit $rc, drives '$st', acceptance '$acc'"
fi
it_exit "$fail"
