#!/usr/bin/env bash
# Start-up and memory against fio: for each job shape (workers 1 to 256,
# iodepth 1 and 64, the sync and libaio engines; 128 KiB reads of a small
# file each, O_DIRECT, time-based for 1 s), the median over RUNS runs of
#   - rackbench (one --local agent): the time from the GO time to the first
#     IO (first_start_utc_ns - go_utc_ns of summary.json), the agent's peak
#     RSS (GNU time around the agent), and the command's wall time beyond
#     the phase's IO window (start-up and teardown);
#   - fio (--thread, as the agent's workers are threads): its peak RSS and
#     its wall time beyond its job_runtime.
# Runs alternate between the two tools, shape by shape.
#
#   tests/bench/startup.sh [RUNS=3]
#
# RB_BIN chooses the binaries (default build/bin). Not run by ctest: figures
# go in docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tests/bench/lib.sh
. tests/bench/lib.sh
if [ -n "${RB_BIN:-}" ]; then rb=$RB_BIN/rackbench; fi
bench_need python3 python3 fio fio /usr/bin/time time
runs=${1:-3}
work=$(mktemp -d)
dir=$(bench_disk_dir bench-data/startup)
trap 'rm -rf "$work" "$dir"' EXIT
agent=$(realpath "$(dirname "$rb")/rackbench-agent")
# the agent under GNU time: its peak RSS in KiB, one file per agent
cat > "$work/agent" << EOF
#!/bin/sh
exec /usr/bin/time -f %M -o "$work/agent.rss.\$\$" "$agent" "\$@"
EOF
chmod +x "$work/agent"

now_ns() { date +%s%N; }
median() { python3 -c 'import statistics,sys; v=[float(x) for x in sys.argv[1:]]; print("%.0f" % statistics.median(v) if v else "-")' "$@"; }
median1() { python3 -c 'import statistics,sys; v=[float(x) for x in sys.argv[1:]]; print("%.1f" % statistics.median(v) if v else "-")' "$@"; }

printf '| engine | workers | iodepth | GO to first IO, ms | agent RSS, MiB | fio RSS, MiB | ratio | rackbench start-up and teardown, s | fio, s |\n'
printf '| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'
for engine in sync libaio; do
    for workers in 1 16 64 256; do
        for depth in 1 64; do
            job=(--ioengine="$engine" --rw=read --bs=128k --size=4m --direct=1 --iodepth="$depth"
                --numjobs="$workers" --runtime=1 --time_based)
            plan=$work/p.ini
            printf '[global]\ndirectory=%s\nioengine=%s\nrw=read\nbs=128k\nsize=4m\ndirect=1\niodepth=%s\nruntime=1\ntime_based\n[j]\nnumjobs=%s\n' \
                "$dir" "$engine" "$depth" "$workers" > "$plan"
            go=() rss=() frss=() rover=() fover=()
            for ((i = 0; i < runs; i++)); do
                rm -f "$work"/agent.rss.*
                t0=$(now_ns)
                "$rb" run "$plan" --local 1 --quiet --out "$work/runs" --agent-bin "$work/agent" > /dev/null 2>&1 || true
                t1=$(now_ns)
                sum=$(ls -t "$work"/runs/*/summary.json | head -1)
                read -r g w < <(python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
print("%.1f %.3f" % ((p["first_start_utc_ns"] - p["go_utc_ns"]) / 1e6, p["window_s"]))' "$sum")
                go+=("$g")
                rss+=("$(($(cat "$work"/agent.rss.*) / 1024))")
                rover+=("$(python3 -c "print(($t1 - $t0) / 1e9 - $w)")")
                rm -rf "$work/runs"
                t0=$(now_ns)
                /usr/bin/time -f %M -o "$work/fio.rss" fio --thread --name=j --directory="$dir" "${job[@]}" \
                    --output-format=json --output="$work/fio.json" > /dev/null 2>&1
                t1=$(now_ns)
                frss+=("$(($(cat "$work/fio.rss") / 1024))")
                # (fio writes its notes, such as the depth capped, before the JSON)
                rt=$(python3 -c 'import json,sys; t=open(sys.argv[1]).read(); print(max(j["job_runtime"] for j in json.loads(t[t.index("{"):])["jobs"]) / 1e3)' "$work/fio.json")
                fover+=("$(python3 -c "print(($t1 - $t0) / 1e9 - $rt)")")
                rm -f "$dir"/j.*
            done
            r=$(median "${rss[@]}") f=$(median "${frss[@]}")
            printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$engine" "$workers" "$depth" \
                "$(median1 "${go[@]}")" "$r" "$f" "$(python3 -c "print('%.2f' % ($r / max($f, 1)))")" \
                "$(python3 -c 'import statistics,sys; print("%.2f" % statistics.median(float(x) for x in sys.argv[1:]))' "${rover[@]}")" \
                "$(python3 -c 'import statistics,sys; print("%.2f" % statistics.median(float(x) for x in sys.argv[1:]))' "${fover[@]}")"
        done
    done
done
