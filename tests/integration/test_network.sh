#!/usr/bin/env bash
# Network phases on a virtual rack of 4 nodes (deploy/virtual-rack.sh: a
# network namespace and a daemon agent each, CURVE keys), every link shaped
# with htb to 400 Mbit/s but nt2's to nt1, 100 Mbit/s (small packets, the
# other streams' ACKs, let through):
#  - pairs both ways and all-to-all name nt2 -> nt1 alone as slow-link,
#    measure it within 10% of 100 Mbit/s (the others near their 400), and
#    min_link_bw fails the run (exit 1) on it, naming it;
#  - a process that is not an agent of the run connects to nt1's data port
#    during the phase and sends bytes: it is refused and named (REFUSED, the
#    summary's refused_by), and every link's receiver counted exactly what its
#    sender sent, and each node's NIC (telemetry) what its streams sent;
#  - /metrics (--metrics) has each link's rate and whether it is slow once
#    its phase is done;
#  - an agent killed mid-phase: the run fails (exit 3), the other links'
#    figures are kept;
# and, on --local agents: one started with --no-net refuses the plan naming
# the phase and the option; ioengine=net is refused by `rackbench check`,
# naming network=.
#   test_network.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (network namespaces)"; exit 77; }
it_need tc "iproute2"
it_need ss "iproute2"
it_need python3 "python3"
it_need curl "curl"
scratch=$2/network.$$
mkdir -p "$scratch/runs"
export RB_BIN=$bin RB_VRACK_STATE=$scratch/vr
vr() { "$src/deploy/virtual-rack.sh" "$@"; }
cleanup() {
    vr down --prefix nt > /dev/null 2>&1
    [ -n "${RB_KEEP:-}" ] || rm -rf "$scratch"
}
trap cleanup EXIT
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
newest() { ls -td "$scratch"/runs/*/ 2> /dev/null | head -1; }

# --- on this host: --no-net and ioengine=net ---
cat > "$scratch/local.ini" << 'EOF'
[net]
network=pairs
runtime=1s
time_based
EOF
out=$("$bin/rackbench" run --local 2 --agent-arg --no-net --out "$scratch/runs" \
    "$scratch/local.ini" 2>&1)
rc=$?
if [ $rc -eq 3 ] && grep -q "phase net, job net: a network phase (network=pairs).*--no-net" <<< "$out"; then
    ok "an agent with --no-net refuses the plan, naming the phase and the option"
else
    bad "--no-net: exit $rc, $out"
fi
printf '[fio-net]\nioengine=net\nhostname=server\nport=8888\nrw=write\nsize=1g\n' > "$scratch/fio.ini"
out=$("$bin/rackbench" check "$scratch/fio.ini" 2>&1)
rc=$?
if [ $rc -eq 2 ] && grep -q "fio.ini:2: ioengine=net: .*network=pairs" <<< "$out"; then
    ok "ioengine=net is refused at its line, naming network="
else
    bad "ioengine=net: exit $rc, $out"
fi

# --- the virtual rack ---
if ! vr up 4 --size 16M --prefix nt --subnet 10.78.0 --port 17792 > "$scratch/up.log" 2>&1; then
    cat "$scratch/up.log"
    echo "SKIP: no virtual rack here (network namespaces, loop devices)"
    exit 77
fi
ns() { ip netns exec "$@"; }
# every link its own htb class: 400 Mbit/s, but nt2 (10.78.0.3) to nt1
# (10.78.0.2) 100 Mbit/s; packets under 128 bytes (the ACKs of the streams
# the other way) go by an unshaped class. Each link is then held by its
# class, not by who gets the CPU.
shape() { # NODE
    local n=$1 i r
    ns "$n" tc qdisc add dev eth0 root handle 1: htb default 1 || return 1
    ns "$n" tc class add dev eth0 parent 1: classid 1:1 htb rate 20gbit quantum 60000 || return 1
    ns "$n" tc filter add dev eth0 protocol ip parent 1: prio 1 u32 match u16 0x0000 0xff80 at 2 \
        flowid 1:1 || return 1
    for i in 1 2 3 4; do
        [ "nt$i" = "$n" ] && continue
        r=400mbit
        [ "$n" = nt2 ] && [ $i = 1 ] && r=100mbit
        ns "$n" tc class add dev eth0 parent 1: classid 1:$((10 + i)) htb rate $r ceil $r \
            quantum 60000 || return 1
        ns "$n" tc filter add dev eth0 protocol ip parent 1: prio 2 u32 \
            match ip dst 10.78.0.$((i + 1))/32 flowid 1:$((10 + i)) || return 1
    done
}
for n in nt1 nt2 nt3 nt4; do
    shape $n || { bad "tc htb in namespace $n"; it_exit $fail; }
done

cat > "$scratch/net.ini" << 'EOF'
[global]
runtime=3s
time_based

[pairs]
network=pairs
rw=rw

[a2a]
stonewall
network=all-to-all

[acceptance]
min_link_bw=300Mbit
EOF
# the stranger: once nt1 listens for the phase, connects from the host and
# sends 1 MiB that is no handshake
(
    for _ in $(seq 200); do
        port=$(ns nt1 ss -Htln 2> /dev/null | awk '$4 ~ /^10\.78\.0\.2:/ {sub(/.*:/, "", $4); print $4; exit}')
        [ -n "$port" ] && break
        sleep 0.05
    done
    [ -n "$port" ] || exit 1
    python3 - "$port" << 'PY'
import socket, sys
s = socket.create_connection(("10.78.0.2", int(sys.argv[1])), timeout=5)
try:
    s.sendall(b"GET / HTTP/1.0\r\n" + b"x" * (1 << 20))
except OSError:
    pass
s.close()
PY
) > "$scratch/stranger.log" 2>&1 &
stranger=$!
# --metrics: once the first phase's figures are made, its links are there
(
    for _ in $(seq 600); do
        curl -sf http://127.0.0.1:17793/metrics 2> /dev/null |
            grep -E '^rackbench_link_(slow|gbps)\{phase="pairs",from="nt2",to="nt1"\}' > "$scratch/metrics.txt" &&
            [ "$(wc -l < "$scratch/metrics.txt")" = 2 ] && exit 0
        sleep 0.05
    done
    exit 1
) &
scraper=$!
vr run "$scratch/net.ini" --out "$scratch/runs" --metrics 127.0.0.1:17793 --metrics-linger 0 \
    > "$scratch/run1.log" 2>&1
rc=$?
wait $stranger || bad "the stranger found no data port of nt1 listening ($(cat "$scratch/stranger.log"))"
if wait $scraper && grep -qx 'rackbench_link_slow{phase="pairs",from="nt2",to="nt1"} 1' "$scratch/metrics.txt" &&
    grep -qE '^rackbench_link_gbps\{phase="pairs",from="nt2",to="nt1"\} 0\.09[0-9]+$' "$scratch/metrics.txt"; then
    ok "/metrics has the slow link and its rate once its phase is done"
else
    bad "/metrics: $(cat "$scratch/metrics.txt" 2> /dev/null)"
fi
d=$(newest)
[ $rc -eq 1 ] && ok "min_link_bw fails the run (exit 1)" ||
    bad "run exit $rc (want 1): $(grep -E 'error|warning|FAIL' "$scratch/run1.log" | head -20)"
python3 - "$d/summary.json" << 'PY' || fail=1
import json, sys
s = json.load(open(sys.argv[1]))
bad = 0
def check(cond, what):
    global bad
    print(("ok   " if cond else "FAIL ") + what)
    bad |= not cond
for ph in s["phases"]:
    n = ph["network"]
    slow = [(l["from"], l["to"]) for l in n["links"] if l["slow"]]
    check(slow == [("nt2", "nt1")], "%s: slow links %s (want nt2 -> nt1 alone)" % (ph["name"], slow))
    f = [x for x in ph["findings"] if x["kind"] == "slow-link"]
    check(len(f) == 1 and f[0]["node"] == "nt2" and f[0]["device"] == "to nt1",
          "%s: one slow-link finding, nt2 to nt1" % ph["name"])
    g = [l["gbps"] for l in n["links"] if (l["from"], l["to"]) == ("nt2", "nt1")][0]
    check(0.09 <= g <= 0.11, "%s: nt2 -> nt1 at %.3f Gbit/s, within 10%% of 0.1" % (ph["name"], g))
    others = [l["gbps"] for l in n["links"] if (l["from"], l["to"]) != ("nt2", "nt1")]
    # their classes hold them at 0.4 where the CPUs keep up (0.38 alone); beside
    # other tests under the sanitizers all-to-all's 12 links came to 0.34
    check(all(0.28 <= x <= 0.44 for x in others),
          "%s: the other links at %.3f .. %.3f Gbit/s (0.4 shaped)" % (ph["name"], min(others), max(others)))
    odd = [(l["from"], l["to"], l["bytes"], l["sent"], l["error"]) for l in n["links"]
           if l["bytes"] != l["sent"] or l["partial"] or l["error"] is not None]
    check(not odd, "%s: every receiver counted what its sender sent %s" % (ph["name"], odd or ""))
    check(len(n["links"]) == (4 if ph["name"] == "pairs" else 12), "%s: its links" % ph["name"])
    # the NICs' bytes add up the telemetry intervals inside the phase: its
    # edges (before the first, after the last) are left out, headers added
    nic = all(x["nic_tx_bytes"] is not None and 0.9 * x["out_bytes"] <= x["nic_tx_bytes"] <= 1.2 * x["out_bytes"]
              and x["cpu_cores"] is not None for x in n["nodes"])
    check(nic and not [x for x in ph["findings"] if x["kind"] == "honesty"],
          "%s: each node's NIC sent what its streams counted (within 10%%)" % ph["name"])
p = s["phases"][0]["network"]
by = {x["node"]: x for x in p["nodes"]}
check(p["refused"] >= 1 and by["nt1"]["refused"] >= 1 and "10.78.0.1:" in by["nt1"]["refused_by"],
      "the stranger refused and named: %s" % by["nt1"]["refused_by"])
rows = [r for r in s["acceptance"]["checks"] if r["name"] == "min_link_bw"]
check(all(not r["passed"] and "nt2 to nt1" in r["note"] for r in rows) and len(rows) == 2,
      "min_link_bw fails on nt2 to nt1 in both phases")
sys.exit(bad)
PY
grep -q "REFUSED  nt1's data port turned away 1 connection: 10.78.0.1:[0-9]* (not a rackbench agent)" \
    "$d/report.txt" && ok "report.txt names the refused stranger" ||
    bad "report.txt: $(grep REFUSED "$d/report.txt")"

# --- an agent lost mid-phase: the other links are kept ---
cat > "$scratch/lost.ini" << 'EOF'
[pairs]
network=pairs
rw=rw
runtime=5s
time_based
EOF
vr run "$scratch/lost.ini" --out "$scratch/runs" --lost-after 2s > "$scratch/run2.log" 2>&1 &
run=$!
for _ in $(seq 300); do # its phase runs once nt4 listens for it
    ns nt4 ss -Htln 2> /dev/null | grep -q "10.78.0.5:" && break
    sleep 0.05
done
sleep 1 # a second of streams
kill -9 "$(cat "$scratch/vr/nt4/agent.pid")"
wait $run
rc=$?
d=$(newest)
[ $rc -eq 3 ] && ok "a lost agent fails the run (exit 3)" || bad "lost agent: exit $rc (want 3)"
python3 - "$d/summary.json" << 'PY' || fail=1
import json, sys
s = json.load(open(sys.argv[1]))
n = s["phases"][0]["network"]
kept = [l for l in n["links"] if {l["from"], l["to"]} == {"nt1", "nt2"}]
ok = len(kept) == 2 and all(l["bytes"] > 0 and l["gbps"] > 0.05 and not l["partial"] for l in kept)
print(("ok   " if ok else "FAIL ") + "nt1 <-> nt2 kept: %s" % [(l["from"], l["to"], l["gbps"]) for l in kept])
sys.exit(not ok)
PY
it_exit $fail
