#!/usr/bin/env bash
# test_fleet: the coordinator's cost at fleet size does not creep back.
# tests/bench/fleet-sim.sh runs a real `rackbench run` against AGENTS
# simulated agents (4,000 by default) speaking the current protocol (HELLO
# with an inventory of 12 drives, SAMPLEs with lat and clat histograms and
# telemetry, DONE with devices, END with the drives' health) for SECONDS
# (5) of one SAMPLE a second each, and the run must complete with no
# sample lost and:
#   - CPU (both of its threads, over the phase) per 1,000 agents at most
#     RB_FLEET_MAX_CPU_PER_K % of a core (15; measured 3.2 - 4.2 with a
#     phase's HEARTBEATs every 3 s, 4.4 - 4.6 with one a second and
#     simulators on plain sockets, 3.6 - 4.3 with ZeroMQ sockets; before
#     messages were taken in batches: 5.2 - 6.5; before the message path
#     was mended: 9.5 - 10.4)
#   - peak RSS per agent at most RB_FLEET_MAX_KB_PER_AGENT KiB (100;
#     measured 58 - 61; before the connections were closed ahead of the
#     reports and DONEs, disk rows and telemetry kept smaller: 84 - 85; the
#     build before this check: 975)
#   - sample lag p99 at most RB_FLEET_MAX_LAG_MS (500) more than the
#     simulators' own lateness p99 (the coordinator's share of it;
#     measured 10 - 34 with simulators on plain sockets; 50 - 153 with
#     simulators that send on time, 38 - 53 ms
#     late at p99; 0 - 51 when they trickled, 250 ms and more late)
#   - HEARTBEATs an agent heard a second from its GO to its DONE at most
#     RB_FLEET_MAX_BEATS (0.65; measured 0.47 with a phase's every 3 s, the
#     default at 4,000 agents, the first one saying so; 0.85 - 1 with
#     --phase-heartbeat 1s: at 16,000 agents those cost ZeroMQ a fifth of
#     a core)
#   - those HEARTBEATs heard halfway between two intervals' samples (the
#     simulators' medians within 400 - 700 ms of an interval's end of 1 s;
#     measured 505 - 535 at 16,000 agents), not at a time that drifts
#     through the fleet's bursts of samples (rb_router_beat_at)
#   - the simulated agents held their DONEs after their last samples as
#     their GOs said (20 us an agent; GO's done_hold_ns), none taken sooner
#   - the coordinator closed the agents' connections before its reports
#     (rb_router_close: ZeroMQ's memory given back, not under theirs)
#   - what the run does after the phase's samples (figures, findings,
#     reports) at most RB_FLEET_MAX_AFTER_S_PER_K s per 1,000 agents (1.5;
#     measured 0.6 - 0.7 at 2,000 and 4,000 agents). A walk over the
#     nodes per node or per row makes it grow with their square: the build
#     before took 1.3 - 1.5 s per 1,000 at 2,000 agents and 2.5 - 3.2 at
#     4,000, and 16,000 nodes' reports took minutes.
# The bounds are the measured figures with room for a busy machine
# (docs/performance.md, "Coordinator at scale"). It measures the machine:
# it runs alone (SERIAL), in the gate.
# usage: test_fleet.sh BIN_DIR [AGENTS] [SECONDS]
set -u
. "$(dirname "$0")/it_lib.sh"
bin=$1 agents=${2:-4000} seconds=${3:-5}
src=$(cd "$(dirname "$0")/../.." && pwd)
max_cpu=${RB_FLEET_MAX_CPU_PER_K:-15}
max_kb=${RB_FLEET_MAX_KB_PER_AGENT:-100}
max_lag=${RB_FLEET_MAX_LAG_MS:-500}
max_after=${RB_FLEET_MAX_AFTER_S_PER_K:-1.5}
max_beats=${RB_FLEET_MAX_BEATS:-0.65}
[ -x "$bin/fleet-sim" ] || { echo "SKIP: $bin/fleet-sim is not built"; exit 77; }
# under ASan the coordinator costs 4 - 5 times the CPU and memory it costs
# (68 % and 1 GiB at 4,000 agents): the bounds would measure the sanitizer
if ldd "$bin/rackbench" 2>/dev/null | grep -q libasan; then
    echo "SKIP: $bin/rackbench is built with ASan: its CPU and memory are the sanitizer's"
    exit 77
fi
if [ "$(ulimit -Hn)" -lt $((agents + 1024)) ]; then
    echo "SKIP: $agents agents need $((agents + 1024)) file descriptors, the hard limit is $(ulimit -Hn)"
    exit 77
fi
out=$(RB_BIN="$bin/rackbench" timeout 300 bash "$src/tests/bench/fleet-sim.sh" "$seconds" "$agents" 2>&1)
code=$?
echo "$out"
[ "$code" -eq 0 ] || { echo "FAIL: fleet-sim.sh exited $code"; exit 1; }
echo "$out" | grep -q "the agents' connections closed in" ||
    { echo "FAIL: the coordinator did not close the agents' connections before its reports"; exit 1; }
# the lag of the phase's first, steady and last intervals said apart
echo "$out" | grep -Eq "lag p99 by interval \(ms\): first [0-9.]+, steady [0-9.]+, last [0-9.]+$" ||
    { echo "FAIL: the coordinator did not say the lag of the first, steady and last intervals"; exit 1; }
# the agents held their DONEs after their last samples as their GOs said
# (20 us an agent: 80 ms at 4,000), and the coordinator took none sooner
held=$(echo "$out" | sed -n "s/.*DONEs taken in \([0-9.]*\) - [0-9.]* ms after their nodes' last samples (held \([0-9.]*\) ms).*/\1 \2/p")
echo "$held" | awk -v n="$agents" '{ want = n * 0.02; want = want > 500 ? 500 : want
        if (NF != 2 || $2 != want || $1 < $2 - 1) { print "FAIL: DONEs taken in " $1 " ms after the last samples, held " $2 " ms (want " want ")"; exit 1 } }
    END { if (NR != 1) { print "FAIL: the coordinator did not say when the DONEs came"; exit 1 } }' || exit 1
row=$(echo "$out" | grep "^| $agents |")
sims=$(echo "$out" | grep "simulators:")
[ -n "$row" ] && [ -n "$sims" ] || { echo "FAIL: no figures for $agents agents"; exit 1; }
# | agents | CPU % | RSS MiB | samples/s | lag median / p99 / max | lost | phase end | skew | run s | after | exit |
echo "$row" | awk -F'|' -v n="$agents" -v cpu="$max_cpu" -v kb="$max_kb" -v lag="$max_lag" \
    -v after="$max_after" -v sims="$sims" -v maxbeats="$max_beats" '
    function fail(m) { print "FAIL: " m; bad = 1 }
    {
        split($6, l, "/"); split(sims, s, "late"); split(s[1], t, "sent "); split(t[2], sl, "/")
        own = sl[2] + 0
        split(sims, h, "HEARTBEATs heard in the phase "); beats = h[2] + 0
        split(sims, ba, "an agent a second, "); split(ba[2], br, " - "); b0 = br[1] + 0; b1 = br[2] + 0
        printf "%d agents: CPU %.1f%% of a core per 1,000 (bound %s), RSS %.0f KiB an agent (bound %s), lag p99 %.1f ms of which the simulators %.1f (bound %s more), after the phase %.2f s per 1,000 (bound %s), HEARTBEATs %.2f an agent a second in the phase (bound %s), lost %d, exit %d\n",
            n, $3 * 1000 / n, cpu, $4 * 1024 / n, kb, l[2], own, lag, $11 * 1000 / n, after, beats, maxbeats, $7, $12
        if (h[2] == "") fail("the simulators did not say the HEARTBEATs they heard")
        if (beats > maxbeats) fail("the coordinator beat its agents more often than its phase period says")
        if (br[2] == "" || b0 < 400 || b1 > 700)
            fail("the phase'"'"'s HEARTBEATs came " ba[2] ", not halfway between the samples of 1 s intervals")
        if ($12 + 0 != 0) fail("the run did not complete: rackbench exited " $12)
        if ($11 * 1000 / n > after) fail("the time after the phase over its bound")
        if ($7 + 0 != 0) fail($7 " samples lost")
        if ($3 * 1000 / n > cpu) fail("CPU per 1,000 agents over its bound")
        if ($4 * 1024 / n > kb) fail("RSS per agent over its bound")
        if (l[2] - own > lag) fail("sample lag over the simulators own by more than its bound")
    }
    END { exit bad }'
