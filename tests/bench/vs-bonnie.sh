#!/usr/bin/env bash
# rackbench's metadata steps against bonnie++'s file tests, side by side:
# bonnie++ -s 0 -n N (N × 1024 empty files in one folder: create, stat,
# delete in order, then in random order) and the equivalent rackbench plan,
# alternating bonnie++, rackbench, ... for PAIRS pairs, on DIR. Prints the
# median of each rate, and the ratio rackbench / bonnie++. When bonnie++
# prints +++++ the rate was too fast for it to measure; that is said.
#
#   tests/bench/vs-bonnie.sh DIR [PAIRS=5] [N=128]
#
# Needs bonnie++ (apt-get install bonnie++). Not run by ctest.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
[ $# -ge 1 ] || { echo "usage: $0 DIR [PAIRS] [N]" >&2; exit 2; }
bench_need bonnie++ bonnie++
dir=$(bench_disk_dir "$1")
pairs=${2:-5}
n=${3:-128}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/plan.ini" <<PLAN
; bonnie++ -s 0 -n $n: $n × 1024 empty files, one worker, one folder
[global]
directory=$dir
rw=meta
meta_ops=create,stat,delete
meta_files=$(( n * 1024 ))
numjobs=1

[seq]
meta_order=sequential

[rand]
meta_order=random
PLAN

: >"$work/res"
for _ in $(seq 1 "$pairs"); do
    # bonnie++ CSV: 26 seq create, 28 seq stat, 30 seq delete, 32/34/36 random
    bonnie++ -s 0 -n "$n" -u root -d "$dir" -q 2>/dev/null | tail -1 \
        | awk -F, '{ print "bonnie", $27, $29, $31, $33, $35, $37 }' >>"$work/res"
    rm -rf "$work/runs"
    "$rb" run "$work/plan.ini" --local 1 --quiet --out "$work/runs" >/dev/null 2>"$work/rb.err" \
        || { cat "$work/rb.err" >&2; exit 1; }
    python3 - "$work/runs" >>"$work/res" <<'PY'
import glob, json, sys
j = json.load(open(glob.glob(sys.argv[1] + "/*/summary.json")[0]))
rate = {p["name"]: p["iops"] for p in j["phases"]}
print("rackbench", *(round(rate[k]) for k in
      ("seq.create", "seq.stat", "seq.delete", "rand.create", "rand.stat", "rand.delete")))
PY
done

python3 - "$work/res" "$n" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
cols = ["seq create", "seq stat", "seq delete", "rand create", "rand stat", "rand delete"]
def med(tool, i):
    vals = [r[1 + i] for r in rows if r[0] == tool]
    nums = [float(v) for v in vals if v.replace(".", "").isdigit()]
    return (statistics.median(nums) if nums else None, len(vals) - len(nums), len(vals))
print(f"{sys.argv[2]} x 1024 files, {len([r for r in rows if r[0] == 'rackbench'])} pairs; "
      "median operations/s")
print(f"  {'step':12} {'bonnie++':>12} {'rackbench':>12} {'ratio':>7}")
for i, c in enumerate(cols):
    b, bplus, nb = med("bonnie", i)
    r, _, _ = med("rackbench", i)
    if b is None:
        print(f"  {c:12} {'+++++':>12} {r:12.0f} {'-':>7}  (bonnie++ too fast to measure in all {nb} runs)")
    else:
        note = f"  ({bplus} of {nb} bonnie++ runs +++++)" if bplus else ""
        print(f"  {c:12} {b:12.0f} {r:12.0f} {r / b:7.2f}{note}")
PY
