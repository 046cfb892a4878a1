#!/usr/bin/env bash
# soak.sh HOURS [DIR]: an overnight burn-in of rackbench itself. Runs a
# rate-limited plan on SOAK_NODES local agents for HOURS (a fraction is
# fine: 0.5 is half an hour), samples the resident memory (RSS) of the
# coordinator and of every agent every SOAK_EVERY seconds, and at the end
# prints each process's RSS at the start and at the end, and the samples
# samples.csv should hold against those it holds (lost = expected - seen,
# and the gaps between a node's consecutive rows).
#
# Exit 0 when the run completed, no sample was lost, no node's rows have a
# gap and (with SOAK_MAX_GROWTH_KB) no process grew by more than that; 1
# when one of these fails; 2 for bad usage.
#
# Settings (environment): SOAK_NODES (4), SOAK_RATE per node (1M),
# SOAK_BS (64k), SOAK_INTERVAL, the plan's sample_interval (1s),
# SOAK_EVERY, seconds between RSS samples (60), SOAK_MAX_GROWTH_KB (none),
# RB, the rackbench binary (./build/bin/rackbench). DIR (default
# ./soak-YYYYmmdd-HHMMSS) gets the plan, the run folder, rss.csv and the
# coordinator's log; its data folder must be on a disk file system.
set -u

usage() {
    echo "usage: $0 HOURS [DIR]   (HOURS > 0, fractions allowed)" >&2
    exit 2
}
[ $# -ge 1 ] && [ $# -le 2 ] || usage
hours=$1
awk -v h="$hours" 'BEGIN { exit !(h ~ /^[0-9]*\.?[0-9]+$/ && h > 0) }' ||
    { echo "soak.sh: HOURS '$hours' is not a number above 0" >&2; usage; }
nodes=${SOAK_NODES:-4}
rate=${SOAK_RATE:-1M}
bs=${SOAK_BS:-64k}
interval=${SOAK_INTERVAL:-1s}
every=${SOAK_EVERY:-60}
max_growth=${SOAK_MAX_GROWTH_KB:-}
rb=${RB:-./build/bin/rackbench}
dir=${2:-./soak-$(date +%Y%m%d-%H%M%S)}
[ -x "$rb" ] || { echo "soak.sh: $rb is not an executable (build first, or set RB)" >&2; exit 2; }
case $nodes in '' | *[!0-9]* | 0) echo "soak.sh: SOAK_NODES=$nodes: a whole number above 0" >&2; exit 2 ;; esac
case $every in '' | *[!0-9]* | 0) echo "soak.sh: SOAK_EVERY=$every: whole seconds above 0" >&2; exit 2 ;; esac
if [ -n "$max_growth" ]; then
    case $max_growth in *[!0-9]*) echo "soak.sh: SOAK_MAX_GROWTH_KB=$max_growth: whole KiB" >&2; exit 2 ;; esac
fi
# the sample interval in seconds, for the counts (ms or s)
interval_s=$(awk -v v="$interval" 'BEGIN {
    if (v ~ /^[0-9.]+ms$/) { sub(/ms$/, "", v); print v / 1000 }
    else if (v ~ /^[0-9.]+s$/) { sub(/s$/, "", v); print v + 0 }
    else print "" }')
[ -n "$interval_s" ] && awk -v i="$interval_s" 'BEGIN { exit !(i > 0) }' ||
    { echo "soak.sh: SOAK_INTERVAL=$interval: a duration in ms or s, e.g. 1s" >&2; exit 2; }
runtime=$(awk -v h="$hours" 'BEGIN { printf "%d", h * 3600 + 0.5 }')
[ "$runtime" -ge 1 ] || { echo "soak.sh: HOURS=$hours is under a second" >&2; exit 2; }

mkdir -p "$dir/data" || exit 2
dir=$(realpath "$dir")
plan=$dir/soak.ini
cat >"$plan" <<EOF
; soak.sh: rate-limited mixed IO on $nodes local agents for $runtime s
[global]
directory=$dir/data
bs=$bs
size=64M
sample_interval=$interval

[soak]
rw=randrw
rwmixread=50
rate=$rate
time_based
runtime=${runtime}s
EOF

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }

echo "soak: $nodes agents at $rate each for $runtime s; RSS every $every s into $dir/rss.csv"
"$rb" run --local "$nodes" --quiet --out "$dir/runs" "$plan" >"$dir/stdout" 2>"$dir/stderr" &
coord=$!
trap 'kill -INT $coord 2>/dev/null; wait $coord; exit 3' INT TERM
echo "t_s,pid,process,rss_kb" >"$dir/rss.csv"
start=$(date +%s)
# the agents are the coordinator's children; wait for all of them
agents=""
for _ in $(seq 1 600); do
    agents=$(pgrep -P "$coord" -x rackbench-agent | tr '\n' ' ')
    [ "$(echo $agents | wc -w)" -ge "$nodes" ] && break
    kill -0 "$coord" 2>/dev/null || break
    sleep 0.1
done
# RSS from the phase's first samples on: the start is the set-up done
for _ in $(seq 1 1200); do
    [ "$(cat "$dir"/runs/*/samples.csv 2>/dev/null | wc -l)" -ge 2 ] && break
    kill -0 "$coord" 2>/dev/null || break
    sleep 0.1
done
start=$(date +%s)
next=0
while kill -0 "$coord" 2>/dev/null; do
    now=$(($(date +%s) - start))
    if [ "$now" -ge "$next" ]; then
        r=$(rss_kb "$coord") && [ -n "$r" ] && echo "$now,$coord,coordinator,$r" >>"$dir/rss.csv"
        for a in $agents; do
            r=$(rss_kb "$a") && [ -n "$r" ] && echo "$now,$a,agent,$r" >>"$dir/rss.csv"
        done
        next=$((next + every))
    fi
    sleep 1
done
wait "$coord"
code=$?
trap - INT TERM
echo "soak: rackbench exited $code after $(($(date +%s) - start)) s"
fail=0
[ "$code" -eq 0 ] || { fail=1; tail -5 "$dir/stderr"; }

# RSS at the first and the last sample of each process, and the growth
awk -F, -v max="$max_growth" 'NR > 1 {
        if (!($2 in first)) { first[$2] = $4; name[$2] = $3; order[++n] = $2 }
        last[$2] = $4
    }
    END {
        bad = 0
        for (i = 1; i <= n; i++) {
            p = order[i]; g = last[p] - first[p]
            printf "rss %-11s pid %-7s start %8d KiB  end %8d KiB  growth %+d KiB\n",
                   name[p], p, first[p], last[p], g
            if (max != "" && g > max + 0) bad = 1
        }
        if (n == 0) { print "rss: no sample"; bad = 1 }
        exit bad
    }' "$dir/rss.csv" || { fail=1; [ -n "$max_growth" ] && echo "soak: RSS grew by more than $max_growth KiB (or was never sampled)"; }

# samples: every node's rows of the phase, against the intervals of the runtime
samples=$(ls "$dir"/runs/*/samples.csv 2>/dev/null | head -1)
if [ -z "$samples" ]; then
    echo "soak: no samples.csv"
    fail=1
else
    # columns t_s, t_utc_ns, phase, node, ...
    awk -F, -v iv="$interval_s" -v rt="$runtime" -v nodes="$nodes" 'NR > 1 && $3 == "soak" {
            seen[$4]++
            if (($4 in last) && $1 - last[$4] > 1.5 * iv) gaps[$4]++
            last[$4] = $1
        }
        END {
            per = int(rt / iv + 0.5) # full intervals; a short last one may come on top
            lost = 0; ngaps = 0; k = 0; total = 0
            for (n in seen) {
                k++; total += seen[n]
                l = per - seen[n]; if (l < 0) l = 0
                lost += l; ngaps += gaps[n]
            }
            lost += (nodes - k) * per # a node without any row lost them all
            printf "samples: expected %d (%d nodes x %d intervals of %g s), seen %d, lost %d, gaps %d\n",
                   nodes * per, nodes, per, iv, total, lost, ngaps
            exit lost > 0 || ngaps > 0
        }' "$samples" || fail=1
fi
[ "$fail" -eq 0 ] && echo "soak: PASS" || echo "soak: FAIL (details in $dir)"
exit "$fail"
