#!/usr/bin/env bash
# Streaming O_DIRECT write and read of one file: rackbench (one local agent,
# one worker) side by side with dd, alternating, several rounds; prints the
# median of each and the ratio rackbench/dd. Both move the same bytes with the
# same block size on the same file system.
#
#   tests/bench/stream_vs_dd.sh [SIZE_MIB=1024] [ROUNDS=5] [BS=1M] [DIR=bench-data]
#
# Not run by ctest: figures go in docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
size_mib=${1:-1024}
rounds=${2:-5}
bs=${3:-1M}
dir=$(realpath -m "${4:-bench-data}")
rb=./build/bin/rackbench
[ -x "$rb" ] || { echo "build first: ./deploy/build.sh" >&2; exit 2; }
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work" "$dir"/dd.bin' EXIT

bs_bytes=$(numfmt --from=iec "$bs")
count=$(( size_mib * 1048576 / bs_bytes ))

cat >"$work/plan.ini" <<PLAN
[global]
directory=$dir
bs=$bs
size=${size_mib}M
direct=1
filename_format=bench.\$jobnum
[write]
rw=write
[read]
stonewall
rw=read
PLAN

# dd prints "N bytes (...) copied, T s, R MB/s"; take bytes / seconds.
dd_bw() { awk '/copied/ { for (i = 1; i <= NF; i++) if ($i == "s,") print $1 / $(i-1) }' "$1"; }

rb_bw() {  # aggregate_bw of phase $2 from the one summary.json in $1
    python3 - "$1" "$2" <<'PY'
import glob, json, sys
j = json.load(open(glob.glob(sys.argv[1] + "/*/summary.json")[0]))
print(j["phases"][int(sys.argv[2])]["aggregate_bw"])
PY
}

: >"$work/results"
for r in $(seq 1 "$rounds"); do
    dd if=/dev/zero of="$dir/dd.bin" bs="$bs" count="$count" oflag=direct conv=fsync 2>"$work/dd.w"
    dd if="$dir/dd.bin" of=/dev/null bs="$bs" iflag=direct 2>"$work/dd.r"
    rm -f "$dir/dd.bin"
    rm -rf "$work/runs"
    "$rb" run "$work/plan.ini" --local 1 --quiet --out "$work/runs" >/dev/null 2>"$work/rb.err"
    echo "$r $(dd_bw "$work/dd.w") $(rb_bw "$work/runs" 0) $(dd_bw "$work/dd.r") $(rb_bw "$work/runs" 1)" \
        | tee -a "$work/results"
done

python3 - "$work/results" "$size_mib" "$bs" <<'PY'
import statistics, sys
rows = [list(map(float, l.split()[1:])) for l in open(sys.argv[1])]
cols = list(zip(*rows))
med = [statistics.median(c) for c in cols]
spread = [(max(c) - min(c)) / statistics.median(c) * 100 for c in cols]
print(f"\n{len(rows)} rounds, {sys.argv[2]} MiB, bs={sys.argv[3]}, O_DIRECT; medians (MB/s, spread max-min as % of median)")
for name, i, j in (("write", 0, 1), ("read", 2, 3)):
    print(f"  {name:5}  dd {med[i]/1e6:8.1f} ({spread[i]:.0f}%)  rackbench {med[j]/1e6:8.1f} ({spread[j]:.0f}%)"
          f"  ratio {med[j]/med[i]:.2f}")
PY
