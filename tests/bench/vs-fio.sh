#!/usr/bin/env bash
# rackbench's engine against fio's, workload by workload: the same job text
# runs through fio (Debian's fio) and through `rackbench run --local 1`,
# alternating fio, rackbench, fio, rackbench ... for PAIRS pairs after one
# warm-up of each, on files under DIR (a real file system, not tmpfs).
# Prints, per workload, the median of each tool and the ratio rackbench/fio
# (bandwidth or IOPS, and p99 latency from submission to completion).
#
#   tests/bench/vs-fio.sh DIR [PAIRS=5] [SIZE=1G] [RUNTIME=5]
#   (RB_BENCH_ONLY=randwrite runs only the workloads whose name contains it)
#
# Not run by ctest: its figures go in docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
[ $# -ge 1 ] || { echo "usage: $0 DIR [PAIRS] [SIZE] [RUNTIME]" >&2; exit 2; }
bench_need fio fio
dir=$(bench_disk_dir "$1")
pairs=${2:-5}
size=${3:-1G}
runtime=${4:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"; rm -rf "$dir"/fio.* ' EXIT

# name | metric (bw or iops) | job options (fio syntax, both tools)
workloads=(
  "seqwrite-1M-qd16-libaio|bw|rw=write bs=1M iodepth=16 ioengine=libaio direct=1 size=$size"
  "seqread-1M-qd16-libaio|bw|rw=read bs=1M iodepth=16 ioengine=libaio direct=1 size=$size"
  "randread-8k-qd32x2-libaio|iops|rw=randread bs=8k iodepth=32 numjobs=2 ioengine=libaio direct=1 size=$size time_based runtime=$runtime"
  "randread-8k-qd32x2-io_uring|iops|rw=randread bs=8k iodepth=32 numjobs=2 ioengine=io_uring direct=1 size=$size time_based runtime=$runtime"
  "randwrite-4k-qd32-libaio|iops|rw=randwrite bs=4k iodepth=32 ioengine=libaio direct=1 size=$size time_based runtime=$runtime"
  "null-4k-qd1|iops|rw=randread bs=4k iodepth=1 ioengine=null size=64G time_based runtime=$runtime"
  "null-4k-qd32|iops|rw=randread bs=4k iodepth=32 ioengine=null size=64G time_based runtime=$runtime"
)

job_text() {  # $1 = tool, $2 = options
    echo "[global]"
    echo "directory=$dir"
    # Both preallocate by default (fio's native); the figures here are of
    # files that the writes make, as they always were, for both tools.
    echo "fallocate=none"
    # rackbench times an IO from handing it to the engine to reaping it:
    # fio's "lat" (submission + completion), so ask fio for those percentiles.
    [ "$1" = fio ] && echo "lat_percentiles=1"
    echo "[bench]"
    for o in $2; do echo "$o"; done
    echo "group_reporting"
}

# fio: metric and p99 (us) of the one (grouped) job
fio_figures() {
    python3 - "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
d = j["write"] if j["write"]["io_bytes"] > j["read"]["io_bytes"] else j["read"]
v = d["bw_bytes"] if sys.argv[2] == "bw" else d["iops"]
p = d["lat_ns"].get("percentile", d["clat_ns"].get("percentile", {})).get("99.000000", 0) / 1e3
print(v, p)
PY
}

rb_figures() {
    python3 - "$1" "$2" <<'PY'
import glob, json, sys
j = json.load(open(glob.glob(sys.argv[1] + "/*/summary.json")[0]))
ph = j["phases"][0]
v = ph["aggregate_bw"] if sys.argv[2] == "bw" else ph["iops"]
print(v, ph["lat_us"]["p99"])
PY
}

run_fio() {  # $1 = job file, $2 = metric
    rm -f "$dir"/bench.*
    fio --output-format=json --output="$work/fio.json" "$1" >/dev/null
    rm -f "$dir"/bench.*
    fio_figures "$work/fio.json" "$2"
}

run_rb() {
    rm -rf "$work/runs"
    "$rb" run "$1" --local 1 --quiet --out "$work/runs" >/dev/null 2>"$work/rb.err" \
        || { cat "$work/rb.err" >&2; return 1; }
    rb_figures "$work/runs" "$2"
}

printf "%-28s %5s %14s %14s %7s %10s %10s %6s\n" workload unit fio rackbench ratio "fio p99" "rb p99" ratio
for w in "${workloads[@]}"; do
    IFS='|' read -r name metric opts <<<"$w"
    [[ "$name" == *${RB_BENCH_ONLY:-}* ]] || continue
    job_text fio "$opts" >"$work/$name.fio"
    job_text rackbench "$opts" >"$work/$name.ini"
    run_fio "$work/$name.fio" "$metric" >/dev/null   # warm-up
    run_rb "$work/$name.ini" "$metric" >/dev/null
    : >"$work/$name.res"
    for _ in $(seq 1 "$pairs"); do
        echo "fio $(run_fio "$work/$name.fio" "$metric")" >>"$work/$name.res"
        echo "rb $(run_rb "$work/$name.ini" "$metric")" >>"$work/$name.res"
    done
    python3 - "$work/$name.res" "$name" "$metric" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
f = [(float(r[1]), float(r[2])) for r in rows if r[0] == "fio"]
b = [(float(r[1]), float(r[2])) for r in rows if r[0] == "rb"]
med = lambda xs: statistics.median(xs)
fv, bv = med([x[0] for x in f]), med([x[0] for x in b])
fp, bp = med([x[1] for x in f]), med([x[1] for x in b])
unit = "MB/s" if sys.argv[3] == "bw" else "IOPS"
scale = 1e6 if sys.argv[3] == "bw" else 1
spread = lambda xs: (max(xs) - min(xs)) / statistics.median(xs) * 100 if statistics.median(xs) else 0
print(f"{sys.argv[2]:28} {unit:>5} {fv/scale:10.0f}({spread([x[0] for x in f]):2.0f}%) "
      f"{bv/scale:10.0f}({spread([x[0] for x in b]):2.0f}%) {bv/fv:7.2f} {fp:10.1f} {bp:10.1f} "
      f"{(bp/fp if fp else 0):6.2f}")
PY
done
