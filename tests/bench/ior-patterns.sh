#!/usr/bin/env bash
# IOR's access patterns on one machine: three local agents of two workers
# each write and read back N-N (a file per worker), N-1 segmented and N-1
# strided (one shared file), every read of the next node's data. fio runs
# the same patterns (N-1 through one shared filename with offset_increment,
# strided with rw=write:SKIP) with six jobs; rackbench and fio alternate for
# ROUNDS rounds after one warm-up of each, on files under DIR.
# Prints, per pattern, the median aggregate bandwidth of each tool with its
# spread ((max - min) / median) and the ratio rackbench/fio.
#
#   tests/bench/ior-patterns.sh DIR [ROUNDS=5] [SIZE_MIB=256]
#
# Not run by ctest: its figures go in docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
[ $# -ge 1 ] || { echo "usage: $0 DIR [ROUNDS] [SIZE_MIB]" >&2; exit 2; }
bench_need fio fio
dir=$(bench_disk_dir "$1")
rounds=${2:-5}
mib=${3:-256}
nodes=3
per=2
workers=$((nodes * per))
work=$(mktemp -d)
trap 'rm -rf "$work"; rm -f "$dir"/fio.*' EXIT

common="ioengine=libaio
iodepth=8
direct=1
bs=1m"

# rackbench: one plan, six phases
{
    echo "[global]"
    echo "directory=$dir"
    echo "$common"
    echo "fallocate=none" # as the fio side
    echo "size=${mib}m"
    echo "numjobs=$per"
    for p in nn n1seg n1str; do
        case $p in
            nn) opts="filename_format=nn.\$jobnum" ;;
            n1seg) opts=$'file_per_worker=0\nlayout=segmented\nfilename_format=seg' ;;
            n1str) opts=$'file_per_worker=0\nlayout=strided\ntransfer=1m\nfilename_format=str' ;;
        esac
        printf '[%s-write]\nstonewall\nrw=write\n%s\n' "$p" "$opts"
        printf '[%s-read]\nstonewall\nrw=read\nread_from=neighbour\n%s\n' "$p" "$opts"
    done
} >"$work/plan.ini"

# fio: the same six as separate runs of six jobs
fio_job() {  # $1 = pattern, $2 = write|read
    echo "[global]"
    echo "$common"
    echo "numjobs=$workers"
    echo "group_reporting"
    echo "fallocate=none"
    echo "[$1-$2]"
    case $1 in
        nn) echo "directory=$dir"; echo "filename_format=fio.nn.\$jobnum"; echo "size=${mib}m"
            echo "rw=$2" ;;
        n1seg) echo "filename=$dir/fio.seg"; echo "size=${mib}m"; echo "offset_increment=${mib}m"
            echo "rw=$2" ;;
        n1str) echo "filename=$dir/fio.str"; echo "size=$((mib * workers))m"
            echo "io_size=${mib}m"; echo "offset_increment=1m"; echo "rw=$2:$((workers - 1))m" ;;
    esac
}

run_rb() {
    rm -rf "$work/runs"
    "$rb" run "$work/plan.ini" --local $nodes --quiet --out "$work/runs" >/dev/null \
        2>"$work/rb.err" || { cat "$work/rb.err" >&2; return 1; }
    python3 - "$work/runs" <<'PY'
import glob, json, sys
j = json.load(open(glob.glob(sys.argv[1] + "/*/summary.json")[0]))
for ph in j["phases"]:
    assert ph["errors"] == 0, ph["name"]
    print("rb", ph["name"], ph["aggregate_bw"])
PY
}

run_fio() {
    for p in nn n1seg n1str; do
        for d in write read; do
            fio_job $p $d >"$work/$p-$d.fio"
            fio --output-format=json --output="$work/fio.json" "$work/$p-$d.fio" >/dev/null
            python3 - "$work/fio.json" "$p-$d" "$d" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0][sys.argv[3]]
print("fio", sys.argv[2], j["bw_bytes"])
PY
        done
        rm -f "$dir"/fio.*
    done
}

run_rb >/dev/null   # warm-up
run_fio >/dev/null
: >"$work/res"
for _ in $(seq 1 "$rounds"); do
    run_rb >>"$work/res"
    run_fio >>"$work/res"
done
python3 - "$work/res" <<'PY'
import collections, statistics, sys
v = collections.defaultdict(list)
for tool, name, bw in (l.split() for l in open(sys.argv[1])):
    v[(tool, name)].append(float(bw) / 1e6)
med = statistics.median
spread = lambda xs: (max(xs) - min(xs)) / med(xs) * 100
print(f"{'pattern':16} {'rackbench MB/s':>18} {'fio MB/s':>16} {'ratio':>6}")
for name in ["nn-write", "nn-read", "n1seg-write", "n1seg-read", "n1str-write", "n1str-read"]:
    r, f = v[("rb", name)], v[("fio", name)]
    print(f"{name:16} {med(r):10.0f} ({spread(r):3.0f}%) {med(f):8.0f} ({spread(f):3.0f}%) "
          f"{med(r) / med(f):6.2f}")
PY
