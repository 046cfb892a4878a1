#!/usr/bin/env bash
# Streaming O_DIRECT write then read of one file by one worker: rackbench
# (one local agent) side by side with fio (psync engine) and dd, alternating,
# several rounds; prints each tool's median and rackbench's ratio to it.
# All three move the same bytes with the same block size on the same file
# system. fio and rackbench write random (incompressible) buffers; dd copies
# a random file held in RAM (/dev/shm), which costs it one extra memory copy
# per block.
#
#   tests/bench/stream.sh [SIZE_MIB=1024] [ROUNDS=5] [BS=1M] [DIR=bench-data]
#
# Needs fio (apt-get install fio). Not run by ctest: figures go in
# docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
bench_need fio fio
size_mib=${1:-1024}
rounds=${2:-5}
bs=${3:-1M}
dir=$(bench_disk_dir "${4:-bench-data}")
case "$bs" in
    *k|*K) bs_bytes=$(( ${bs%?} * 1024 )) ;;
    *m|*M) bs_bytes=$(( ${bs%?} * 1048576 )) ;;
    *) bs_bytes=$bs ;;
esac
count=$(( size_mib * 1048576 / bs_bytes ))
work=$(mktemp -d)
src=/dev/shm/rackbench-bench.$$
trap 'rm -rf "$work" "$dir"/dd.bin "$dir"/fio.bin "$src"' EXIT
head -c "$(( size_mib * 1048576 ))" /dev/urandom >"$src"

cat >"$work/plan.ini" <<PLAN
[global]
directory=$dir
bs=$bs
size=${size_mib}M
direct=1
filename_format=bench.\$jobnum
; dd does not preallocate; nor do fio and rackbench here
fallocate=none
[write]
rw=write
[read]
stonewall
rw=read
PLAN

# Two fio runs, not one file with two jobs: fio lays out every job's file
# before the first job starts, so its write job would overwrite an allocated
# file while dd and rackbench write a new one (overwriting is much faster).
for rw in write read; do
    cat >"$work/fio-$rw.ini" <<FIO
[$rw]
filename=$dir/fio.bin
bs=$bs
size=${size_mib}M
direct=1
ioengine=psync
; dd does not preallocate; nor do fio and rackbench here
fallocate=none
rw=$rw
FIO
done

dd_bw() { awk '/copied/ { for (i = 1; i <= NF; i++) if ($i == "s,") print $1 / $(i-1) }' "$1"; }

json_bw() {  # $1 = rackbench runs dir or fio json, $2 = phase index
    python3 - "$@" <<'PY'
import glob, json, os, sys
src, i = sys.argv[1], int(sys.argv[2])
if os.path.isdir(src):
    j = json.load(open(glob.glob(src + "/*/summary.json")[0]))
    print(j["phases"][i]["aggregate_bw"])
else:
    job = json.load(open(src))["jobs"][0]
    print(job["write" if i == 0 else "read"]["bw_bytes"])
PY
}

: >"$work/results"
run_dd() {
    dd if="$src" of="$dir/dd.bin" bs="$bs" count="$count" oflag=direct 2>"$work/dd.w"
    dd if="$dir/dd.bin" of=/dev/null bs="$bs" iflag=direct 2>"$work/dd.r"
    rm -f "$dir/dd.bin"
}
run_fio() {
    fio --output-format=json --output="$work/fio-write.json" "$work/fio-write.ini" >/dev/null
    fio --output-format=json --output="$work/fio-read.json" "$work/fio-read.ini" >/dev/null
    rm -f "$dir/fio.bin"
}
run_rb() {
    rm -rf "$work/runs"
    "$rb" run "$work/plan.ini" --local 1 --quiet --out "$work/runs" >/dev/null 2>"$work/rb.err"
}
# The order rotates every round, so that no tool always follows the same one
# (the disk's write-back and the host cache carry over from run to run).
orders=("run_dd run_fio run_rb" "run_fio run_rb run_dd" "run_rb run_dd run_fio")
echo "round  dd-w  fio-w  rb-w  dd-r  fio-r  rb-r  (MB/s)"
for r in $(seq 1 "$rounds"); do
    for step in ${orders[$(( (r - 1) % 3 ))]}; do $step; done
    row="$(dd_bw "$work/dd.w") $(json_bw "$work/fio-write.json" 0) $(json_bw "$work/runs" 0)"
    row="$row $(dd_bw "$work/dd.r") $(json_bw "$work/fio-read.json" 1) $(json_bw "$work/runs" 1)"
    echo "$row" >>"$work/results"
    echo "$r $row" | awk '{ printf "%5d", $1; for (i = 2; i <= NF; i++) printf " %6.0f", $i / 1e6; print "" }'
done

python3 - "$work/results" "$size_mib" "$bs" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
cols = list(zip(*rows))
med = [statistics.median(c) for c in cols]
spread = [(max(c) - min(c)) / statistics.median(c) * 100 for c in cols]
print(f"\n{len(rows)} rounds, {sys.argv[2]} MiB, bs={sys.argv[3]}, O_DIRECT, one worker; "
      "median MB/s (max-min spread as % of median)")
for name, base in (("write", 0), ("read", 3)):
    d, f, r = med[base], med[base + 1], med[base + 2]
    print(f"  {name:5}  dd {d/1e6:7.1f} ({spread[base]:.0f}%)  fio {f/1e6:7.1f} ({spread[base+1]:.0f}%)"
          f"  rackbench {r/1e6:7.1f} ({spread[base+2]:.0f}%)  rackbench/fio {r/f:.2f}  rackbench/dd {r/d:.2f}")
PY
