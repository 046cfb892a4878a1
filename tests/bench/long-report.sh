#!/usr/bin/env bash
# long-report.sh [HOURS [NODES [DIR]]]: are the reports of a long run on
# many nodes still readable, and how much do they cost? Runs a short real
# run on NODES local agents (16), then stretches its samples.csv to HOURS
# (24) of 1 s samples, every node's rows repeated, and renders the folder
# again with `rackbench report` as text and HTML. Prints for each: the wall
# time, the peak RSS, the output's size, and for the HTML the points its
# charts draw (bounded by the downsampling, whatever the length), so that a
# person can also open DIR/report-long.html and look.
#
# Exit 0 when both render, 1 when one fails, 2 for bad usage.
# RB: the rackbench binary (./build/bin/rackbench).
set -u
hours=${1:-24}
nodes=${2:-16}
dir=${3:-./long-report-$(date +%Y%m%d-%H%M%S)}
rb=${RB:-./build/bin/rackbench}
awk -v h="$hours" 'BEGIN { exit !(h ~ /^[0-9]*\.?[0-9]+$/ && h > 0) }' ||
    { echo "usage: $0 [HOURS [NODES [DIR]]]  (HOURS > 0)" >&2; exit 2; }
case $nodes in '' | *[!0-9]* | 0) echo "long-report.sh: NODES=$nodes: a whole number above 0" >&2; exit 2 ;; esac
[ -x "$rb" ] || { echo "long-report.sh: $rb is not an executable (build first, or set RB)" >&2; exit 2; }
command -v /usr/bin/time > /dev/null || { echo "long-report.sh: needs /usr/bin/time (Debian package time)" >&2; exit 2; }
mkdir -p "$dir/data" || exit 2
dir=$(cd "$dir" && pwd)

cat > "$dir/plan.ini" << EOF
[global]
directory=$dir/data
bs=64k
size=64m
rate=1m
sample_interval=1s
[w]
rw=write
time_based
runtime=4s
EOF
"$rb" run "$dir/plan.ini" --local "$nodes" --quiet --out "$dir/runs" > "$dir/run.log" 2>&1 ||
    { echo "long-report.sh: the short run failed (see $dir/run.log)" >&2; exit 1; }
run=$(ls -d "$dir"/runs/*/ | head -1)
run=${run%/}

# the samples stretched: every node's rows of the run, again and again, one per second
secs=$(awk -v h="$hours" 'BEGIN { printf "%d", h * 3600 }')
awk -F, -v OFS=, -v secs="$secs" '
    NR == 1 { print; next }
    { t = $1 + 0; if (t >= 0.5 && (first == "" || t < first)) first = t; row[++n] = $0; at[n] = t }
    END { # the rows of the first full interval (one per node and job), once a second
        for (t = 1; t <= secs; t++) {
            for (i = 1; i <= n; i++) {
                if (at[i] >= first + 0.5) continue
                k = index(row[i], ",")
                print t substr(row[i], k)
            }
        }
    }' "$run/samples.csv" > "$run/samples.long" && mv "$run/samples.long" "$run/samples.csv"
rows=$(($(wc -l < "$run/samples.csv") - 1))
echo "samples.csv: $rows rows ($(du -h "$run/samples.csv" | cut -f1)) for $hours h on $nodes nodes"

status=0
for fmt in text html; do
    out="$dir/report-long.$fmt"
    if ! /usr/bin/time -f "%e %M" -o "$dir/time.$fmt" "$rb" report "$run" --format "$fmt" > "$out" 2> "$dir/report.$fmt.err"; then
        echo "long-report.sh: rackbench report --format $fmt failed (see $dir/report.$fmt.err)" >&2
        status=1
        continue
    fi
    read -r wall rss < "$dir/time.$fmt"
    extra=""
    if [ "$fmt" = html ]; then
        points=$(grep -o '<polyline[^>]*points="[^"]*"' "$out" | awk -F'"' '{ n += gsub(/ /, " ", $0) } END { print n + 0 }')
        extra="  chart points ~$points"
    fi
    echo "report --format $fmt: ${wall} s, peak RSS $((rss / 1024)) MiB, $(du -h "$out" | cut -f1)$extra"
done
echo "folder: $run (report-long.html beside it)"
exit $status
