#!/usr/bin/env bash
# The coordinator at scale: a real `rackbench run` against N simulated agents
# (build/bin/fleet-sim, several processes of at most 4,000 agents each, over
# an ipc:// endpoint) running one time-based phase at one SAMPLE per second
# per agent. For each N, prints the coordinator's CPU (% of one core, over
# the phase), its peak RSS, samples ingested per second, how long after its
# interval's end a sample was aggregated (median / p99 / max; below, its
# p99 in the phase's first interval, the steady ones and the last, and how
# long after their last samples the DONEs came, held by the agents), samples lost
# (sent by the simulator, not in samples.csv), the time from the phase's
# last DONE to its figures, the start skew of summary.json, the whole
# run's wall time and what it spent after the phase's samples (its
# figures, findings and reports, to its exit). Beside, the simulators' CPU,
# how late they sent their samples, the true spread of their starts and how
# many HEARTBEATs an agent heard a second during its phase.
#
#   tests/bench/fleet-sim.sh [RUNTIME_S=20] [N]...     (default N: 100 1000 4000 16000)
#
# RB_BIN=PATH runs another build's rackbench (and the fleet-sim beside it).
# RB_RUN_ARGS="--heartbeat 3s" adds options to the coordinator's command.
# RB_FLEET_DIRECT=1 gives the plan O_DIRECT libaio writes (the simulated
# agents still do no IO), so the phase end also runs the honesty check,
# which only judges direct IO.
#
# The simulator shares the machine with the coordinator: on a small machine
# its CPU competes with the coordinator's. Not run by ctest: figures go in
# docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
rb=${RB_BIN:-$rb} # another build: RB_BIN=build-x/bin/rackbench
bench_need
sim=$(dirname "$rb")/fleet-sim
[ -x "$sim" ] || { echo "build first: $sim is missing" >&2; exit 2; }
runtime=${1:-20}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100 1000 4000 16000)
per_proc=4000
ulimit -n "$(ulimit -Hn)"
work=$(mktemp -d)
[ -z "${RB_KEEP:-}" ] || echo "keeping $work" >&2
# the coordinator and simulators go with it, also when it is killed
trap 'kill -9 $(jobs -p) $(pgrep -P $$) 2>/dev/null || true; [ -n "${RB_KEEP:-}" ] || rm -rf "$work"' EXIT
trap 'exit 143' TERM INT
engine=ioengine=null
[ -z "${RB_FLEET_DIRECT:-}" ] || engine=$'ioengine=libaio\ndirect=1'
cat >"$work/plan.ini" <<PLAN
[global]
$engine
sample_interval=1s
time_based
runtime=${runtime}s
bs=1M
size=1G

[fleet]
rw=write
PLAN
tck=$(getconf CLK_TCK)

now() { date +%s.%N; }

printf '| agents | CPU %% (phase) | peak RSS MiB | samples/s | lag median / p99 / max ms | lost | phase end s | start skew ms | run s | after the phase s | exit |\n'
printf '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'
for n in "${sizes[@]}"; do
    ep="ipc://$work/coord-$n.sock"
    log="$work/coord-$n.log"
    t_run0=$(now)
    "$rb" run "$work/plan.ini" --expect "$n" --bind "$ep" --wait 600s --quiet --verbose \
        --lost-after 10s ${RB_RUN_ARGS:-} --out "$work/runs-$n" >"$work/coord-$n.out" \
        2> >(perl -MTime::HiRes=time -ne '$|=1; printf "%.3f %s", time, $_' >"$log") &
    cpid=$!
    # the simulators connect once the coordinator's socket exists (10 s at most)
    for _ in $(seq 1 200); do
        [ -S "${ep#ipc://}" ] && break
        kill -0 "$cpid" 2>/dev/null || break
        sleep 0.05
    done
    procs=$(( (n + per_proc - 1) / per_proc ))
    spids=()
    for ((p = 0; p < procs; p++)); do
        first=$(( p * per_proc ))
        cnt=$(( n - first < per_proc ? n - first : per_proc ))
        "$sim" "$ep" "sim$p-" "$cnt" "$first" >"$work/sim-$n-$p.out" 2>"$work/sim-$n-$p.err" &
        spids+=($!)
    done
    # CPU ticks of the coordinator from the GO line to the end of the phase's
    # sample stream (read every 50 ms: the last reading before its log says
    # so), with bash's own reads and waits: a process started every 10 ms
    # took 5 - 10 % of this machine's two cores from what it measures
    go_c="" end_c="" last_c=0 hwm=0 part="" logfd="" seen=""
    exec {tick}<> <(:) # read -t on it waits 50 ms
    while kill -0 "$cpid" 2>/dev/null; do
        c=0
        if read -r -a st <"/proc/$cpid/stat" 2>/dev/null; then c=$(( st[13] + st[14] )); fi
        [ -n "$logfd" ] || { [ -e "$log" ] && exec {logfd}<"$log"; }
        while [ -n "$logfd" ] && IFS= read -r line <&$logfd; do
            line=$part$line part=""
            case $line in
                *"GO for"*) seen="$seen go" ;;
                *"samples aggregated"*) seen="$seen end" ;;
            esac
        done
        [ -z "$logfd" ] || part=$part$line # a line not ended yet
        if [ -z "$go_c" ] && [[ $seen == *go* ]]; then go_c=$c; fi
        if [ -n "$go_c" ] && [ -z "$end_c" ]; then
            if [[ $seen == *end* ]]; then end_c=$last_c; else last_c=$c; fi
        fi
        while read -r k v _; do
            if [ "$k" = VmHWM: ] && [ "$v" -gt "$hwm" ]; then hwm=$v; fi
        done <"/proc/$cpid/status" 2>/dev/null || true
        read -r -t 0.05 -u "$tick" _ || true
    done
    [ -z "$logfd" ] || exec {logfd}<&-
    exec {tick}<&-
    rc=0
    wait "$cpid" || rc=$?
    t_run1=$(now)
    sleep 0.2 # the log's last lines
    end_c=${end_c:-$last_c}
    go_t=$(awk '/GO for/ {print $1; exit}' "$log")
    end_t=$(awk '/samples aggregated/ {print $1; exit}' "$log")
    agg_t=$(awk '/ aggregate$/ {print $1; exit}' "$log")
    for p in "${spids[@]}"; do wait "$p" || true; done
    sent=$(cat "$work"/sim-$n-*.out | awk '{s += $4} END {print s + 0}')
    csv=$(ls "$work"/runs-$n/*/samples.csv)
    rows=$(( $(wc -l <"$csv") - 1 ))
    lagl=$(grep "samples aggregated" "$log" || true)
    nsamp=$(echo "$lagl" | sed -n 's/.*: \([0-9]*\) samples aggregated.*/\1/p')
    med=$(echo "$lagl" | sed -n 's/.*, \([0-9.]*\) ms after.*/\1/p')
    p99=$(echo "$lagl" | sed -n 's/.*(median; p99 \([0-9.]*\) ms.*/\1/p')
    byiv=$(echo "$lagl" | sed -n 's/.*p99 by interval (ms): //p')
    mx=$(echo "$lagl" | sed -n 's/.*max \([0-9.]*\) ms).*/\1/p')
    skew=$(grep -o '"start_skew_s": *[0-9.e+-]*' "$(dirname "$csv")/summary.json" | head -1 | awk -F: '{printf "%.2f", $2 * 1000}')
    awk -v n="$n" -v gt="$go_t" -v gc="$go_c" -v et="$end_t" -v ec="$end_c" -v at="${agg_t:-$end_t}" \
        -v tck="$tck" -v hwm="$hwm" -v ns="${nsamp:-0}" -v med="$med" -v p99="$p99" -v mx="$mx" \
        -v lost="$(( sent - rows ))" -v sk="$skew" -v r0="$t_run0" -v r1="$t_run1" -v rc="$rc" 'BEGIN {
        w = et - gt
        printf "| %d | %.1f | %.0f | %.0f | %s / %s / %s | %d | %.2f | %s | %.1f | %.1f | %d |\n",
            n, 100 * (ec - gc) / tck / w, hwm / 1024, ns / w, med, p99, mx, lost, at - et, sk, r1 - r0,
            r1 - et, rc
    }'
            # the simulators' side: their CPU over the whole run (% of one core), how
    # late they sent samples (the worst process's median / p99 / max) and the
    # true spread of all their agents' starts (they share one clock: the
    # coordinator's start skew is only as good as its clock offsets)
    cat "$work"/sim-$n-*.out | awk -v w="$(awk -v a="$t_run0" -v b="$t_run1" 'BEGIN {print b - a}')" '
        { for (i = 1; i < NF; i++) v[$i] = $(i + 1)
          cpu += v["cpu_s"]; if (v["late_ms"] > m) m = v["late_ms"]
          if ($(idx("late_ms") + 2) > p) p = $(idx("late_ms") + 2)
          if ($(idx("late_ms") + 3) > x) x = $(idx("late_ms") + 3)
                    if (!f || v["first_start_ns"] < f) f = v["first_start_ns"]
          if (v["last_start_ns"] > l) l = v["last_start_ns"]
          beats += v["beats"]; run += v["run_s"]; np++
          if (v["beat_after_ms"] >= 0) { if (bn == 0 || v["beat_after_ms"] < b0) b0 = v["beat_after_ms"]
                                         if (bn == 0 || v["beat_after_ms"] > b1) b1 = v["beat_after_ms"]; bn++ } }
        function idx(k,   i) { for (i = 1; i <= NF; i++) if ($i == k) return i; return 0 }
        END { printf "    simulators: %d processes, %.0f%% of one core over the run; samples sent %.1f / %.1f / %.1f ms late (median / p99 / max, worst process); true start spread %.2f ms; HEARTBEATs heard in the phase %.2f an agent a second, %s ms after an interval'"'"'s end (median, processes'"'"' range)\n", np, 100 * cpu / w, m, p, x, (l - f) / 1e6, run ? beats / run : 0, bn ? sprintf("%.0f - %.0f", b0, b1) : "none" }'
    { grep -E "(error|warning):" "$log" || true; } | cut -d' ' -f2- | sort | uniq -c | sort -rn |
        head -5 | sed 's/^/    coordinator: /' || true # head ends the pipe early
    [ -z "$byiv" ] || echo "    coordinator: lag p99 by interval (ms): $byiv"
    # the DONEs, held by the agents after their last samples (GO's done_hold_ns)
    { grep -E "DONEs taken in .* after their nodes' last samples" "$log" || true; } |
        sed 's/.*: \([0-9]* DONEs taken in\)/    coordinator: \1/'
    # before its reports it closes the agents' connections (rb_router_close)
    { grep -E "connections (closed in|still closing)" "$log" || true; } | cut -d' ' -f2- |
        sed 's/^/    coordinator: /'
done
