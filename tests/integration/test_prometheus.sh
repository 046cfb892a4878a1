#!/usr/bin/env bash
# rackbench run --metrics, with the real parts: curl and Debian's Prometheus.
#   test_prometheus.sh BIN_DIR SCRATCH metrics|prometheus
# metrics: a non-loopback --metrics with --insecure, a bad address, and
#   --metrics-inventory alone are refused with exit 2 naming the option;
#   mid-run, /metrics has a HELP and TYPE line for every family, the node,
#   rack and direction labels and the phase running, / is the report marked
#   RUNNING that reloads itself, and `rackbench report` on the run folder
#   says RUNNING; a scrape is answered while 70 slow clients hold
#   connections, and / shows the plan as written (a ${VAR}'s value never)
#   and no host inventory (issue 33); headless Chromium loads / mid-run and
#   finds the summary and a drawn line (not dots) of the phase running, and
#   paints it. The run ends on that event: once the checks are done, SIGINT
#   stops it (its runtime is only a deadline); it exits 3, interrupted, and
#   report.html is no longer marked running. The end (issue 37): a short
#   run scraped from two addresses (127.0.0.1 and .2) serves its final
#   /metrics once it is over (the counters equal summary.json's bytes,
#   rackbench_run_finished 1, the exit code 0; / the report, no longer
#   running; with --metrics-inventory and a stand-in smartctl whose disk
#   gains 8 reallocated sectors, the drive worse with its counters before
#   and after, issue 36) until both have read it, and exits at once after the second
#   scrape, well before --metrics-linger's default 30 s; with
#   --metrics-linger 0 a run closes at its end unscraped; --metrics-linger
#   without --metrics or out of range is refused.
# prometheus: Prometheus scrapes a rate-limited run of two nodes every
#   second; its rate of rackbench_bytes_total over the 10 s before the
#   phase's end agrees with summary.json's aggregate_bw within 10%; it holds
#   the run's final counters (summary.json's bytes) and
#   rackbench_run_finished 1, and the run exits within seconds of its report
#   (the linger ends on Prometheus's scrape). Exit 77 without prometheus.
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
mode=$3
scratch=$2/prometheus-$mode.$$
src=$(cd "$(dirname "$0")/../.." && pwd)
for tool in curl python3; do
    command -v $tool > /dev/null || { echo "$tool is not installed (deploy/setup.sh --test)"; exit 1; }
done
if [ "$mode" = prometheus ] && ! command -v prometheus > /dev/null; then
    echo "prometheus is not installed (deploy/setup.sh --test installs it): skipped"
    exit 77
fi
mkdir -p "$scratch/data"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2> /dev/null; done
    [ -n "${RB_KEEP:-}" ] || rm -rf "$scratch"
}
trap cleanup EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
# wait_for SECONDS COMMAND...: runs COMMAND until it succeeds, at most SECONDS.
wait_for() {
    local deadline=$((SECONDS + $1)); shift
    until "$@"; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 0.2
    done
}

runtime=14
# metrics: a deadline, the browser's room to load the live page mid-run; the
# run is stopped once the checks are done
[ "$mode" = metrics ] && runtime=120
cat > "$scratch/plan.ini" <<PLAN
[global]
directory=$scratch/data
size=32m
bs=4k
time_based=1
runtime=${runtime}s

[mix]
description=built by \${IT_TOKEN}
rw=randrw
rwmixread=70
rate=2m,1m
PLAN
# a value from the environment that the live page must never show
export IT_TOKEN=tok-$$-$RANDOM-secret

if [ "$mode" = metrics ]; then
    out=$("$bin/rackbench" run "$scratch/plan.ini" --local 2 --insecure --metrics 0.0.0.0:9 \
          --out "$scratch/runs" 2>&1)
    rc=$?
    [ $rc -eq 2 ] || bad "non-loopback --metrics with --insecure: exit $rc, expected 2"
    grep -q -- "--metrics 0.0.0.0:9" <<< "$out" || bad "the refusal does not name --metrics: $out"
    out=$("$bin/rackbench" run "$scratch/plan.ini" --local 2 --metrics host:nine \
          --out "$scratch/runs" 2>&1)
    rc=$?
    [ $rc -eq 2 ] || bad "--metrics host:nine: exit $rc, expected 2"
    grep -q -- "--metrics host:nine" <<< "$out" || bad "the refusal does not name --metrics: $out"
    out=$("$bin/rackbench" run "$scratch/plan.ini" --local 2 --metrics-inventory \
          --out "$scratch/runs" 2>&1)
    rc=$?
    [ $rc -eq 2 ] || bad "--metrics-inventory without --metrics: exit $rc, expected 2"
    grep -q -- "--metrics-inventory goes with --metrics" <<< "$out" || bad "no refusal: $out"
    out=$("$bin/rackbench" run "$scratch/plan.ini" --local 2 --metrics-linger 5 \
          --out "$scratch/runs" 2>&1)
    rc=$?
    [ $rc -eq 2 ] || bad "--metrics-linger without --metrics: exit $rc, expected 2"
    grep -q -- "--metrics-linger goes with --metrics" <<< "$out" || bad "no refusal: $out"
    out=$("$bin/rackbench" run "$scratch/plan.ini" --local 2 --metrics 9 --metrics-linger 2h \
          --out "$scratch/runs" 2>&1)
    rc=$?
    [ $rc -eq 2 ] || bad "--metrics-linger 2h: exit $rc, expected 2"
    grep -q -- "--metrics-linger 2h: expected a duration from 0" <<< "$out" || bad "no refusal: $out"
    [ ! -d "$scratch/runs" ] || bad "a refused run left a run folder"
fi

# the sum over phases of summary.json's bytes per direction: "read write trim"
summary_bytes() {
    python3 - "$1" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"]
print(*(sum(p["directions"][d]["bytes"] for p in ph) for d in ("read", "write", "trim")))
PY
}

if [ "$mode" = metrics ]; then
    # The end of a run that ends by itself: scraped from two addresses while
    # it goes, it serves the final /metrics until both have read it.
    eport=$(free_port)
    sed -e 's/^runtime=.*/runtime=3s/' -e 's/^size=.*/size=4m/' "$scratch/plan.ini" > "$scratch/end.ini"
    sed -e 's/^runtime=.*/runtime=1s/' "$scratch/end.ini" > "$scratch/end0.ini"
    # its disk's health from a stand-in smartctl (a real output, 8 more
    # reallocated sectors from its second reading on), served with the inventory
    cat > "$scratch/smartctl" <<SH
#!/bin/sh
n=\$(cat "$scratch/smartctl.calls" 2> /dev/null || echo 0)
echo \$((n + 1)) > "$scratch/smartctl.calls"
exec python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for a in d["ata_smart_attributes"]["table"]:
    a["raw"]["value"] += 8 * (a["id"] == 5 and int(sys.argv[2]) > 0)
print(json.dumps(d))' "$src/tests/unit/fixtures/smart/sata-grown.json" "\$n"
SH
    chmod +x "$scratch/smartctl"
    "$bin/rackbench" run "$scratch/end.ini" --local 1 --metrics "$eport" --metrics-inventory \
        --agent-arg --smartctl="$scratch/smartctl" --out "$scratch/end" \
        > "$scratch/end.out" 2> "$scratch/end.err" &
    end_pid=$!
    pids+=($end_pid)
    eurl="http://127.0.0.1:$eport/metrics"
    running() { curl -sf "$eurl" | grep -q '^rackbench_phase_index 1$'; }
    wait_for 60 running || bad "the short run's phase is not at /metrics within 60 s"
    curl -sf --interface 127.0.0.2 "$eurl" -o /dev/null || bad "no scrape from 127.0.0.2 mid-run"
    over() { grep -q "the run is over: serving its final /metrics on port $eport for up to 30 s, until each of the 2 addresses that scraped it has read it" "$scratch/end.err"; }
    wait_for 60 over || { cat "$scratch/end.err"; bad "the short run does not say it serves its final metrics"; }
    grep -q '^run folder: ' "$scratch/end.out" || bad "the report is not on stdout before the wait"
    curl -sf "$eurl" -o "$scratch/final.txt" || bad "no final /metrics"
    read -r r w t < <(summary_bytes "$scratch"/end/*/summary.json)
    for dir_bytes in "read $r" "write $w" "trim $t"; do
        grep -qx "rackbench_cluster_bytes_total{direction=\"${dir_bytes% *}\"} ${dir_bytes#* }" \
            "$scratch/final.txt" || bad "the final ${dir_bytes% *} bytes are not summary.json's ${dir_bytes#* }"
    done
    [ "${r:-0}" -gt 0 ] || bad "the short run read nothing"
    grep -qx 'rackbench_run_finished 1' "$scratch/final.txt" || bad "the final /metrics is not finished"
    grep -qx 'rackbench_run_exit_code 0' "$scratch/final.txt" || bad "the final exit code is not 0"
    grep -q '^rackbench_run_info{run_id="[^"]*",state="ended"} 1$' "$scratch/final.txt" ||
        bad "the final run_info is not ended"
    # issue 36: the drive whose reallocated sectors grew, worse, with its counters
    grep -qx 'rackbench_drives{node="local-1",status="worse"} 1' "$scratch/final.txt" ||
        bad "the final /metrics has no worse drive on local-1"
    grep -qE '^rackbench_drive_health_status\{node="local-1",device="/dev/[^"]+",model="ST3500418AS",serial="REDACTED"\} 1$' \
        "$scratch/final.txt" || bad "no drive_health_status 1 (worse) for local-1's disk"
    for rd in before:304 after:312; do
        grep -qE "^rackbench_drive_health_counter\{node=\"local-1\",device=\"/dev/[^\"]+\",serial=\"REDACTED\",counter=\"reallocated\",reading=\"${rd%:*}\"\} ${rd#*:}\$" \
            "$scratch/final.txt" || bad "no reallocated ${rd%:*} ${rd#*:} in the final /metrics"
    done
    curl -sf "http://127.0.0.1:$eport/" -o "$scratch/final.html" || bad "no final /"
    grep -q 'RUNNING\|http-equiv="refresh"' "$scratch/final.html" && bad "the final / is still running"
    # 127.0.0.2 scraped during the run and has not read the final text: waited for
    kill -0 $end_pid 2> /dev/null || bad "the run closed before 127.0.0.2 read its final metrics"
    curl -sf --interface 127.0.0.2 "$eurl" -o /dev/null || bad "no final scrape from 127.0.0.2"
    t0=$(date +%s%N)
    ended() { ! kill -0 $end_pid 2> /dev/null; }
    wait_for 10 ended || bad "the run does not end once both scrapers read its final metrics"
    wait $end_pid
    rc=$?
    echo "closed $(( ($(date +%s%N) - t0) / 1000000 )) ms after the last scraper's final scrape"
    [ $rc -eq 0 ] || { cat "$scratch/end.err"; bad "the short run exit $rc, expected 0"; }
    grep -q 'the final /metrics scraped: closing' "$scratch/end.err" || bad "no word of the close"
    # --metrics-linger 0: closed at the end, nobody scraping
    "$bin/rackbench" run "$scratch/end0.ini" --local 1 --metrics "$(free_port)" --metrics-linger 0 \
        --out "$scratch/end0" > "$scratch/end0.out" 2> "$scratch/end0.err" &
    end_pid=$!
    pids+=($end_pid)
    reported0() { grep -q '^run folder: ' "$scratch/end0.out"; }
    wait_for 60 reported0 || bad "--metrics-linger 0: no report within 60 s"
    wait_for 5 ended || bad "--metrics-linger 0: the run did not end within 5 s of its report"
    wait $end_pid
    rc=$?
    [ $rc -eq 0 ] || { cat "$scratch/end0.err"; bad "--metrics-linger 0: exit $rc, expected 0"; }
    grep -q 'serving its final' "$scratch/end0.err" && bad "--metrics-linger 0 still served"
fi

mport=$(free_port)
if [ "$mode" = prometheus ]; then
    pport=$(free_port)
    cat > "$scratch/prometheus.yml" <<CFG
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: rackbench
    static_configs:
      - targets: ['127.0.0.1:$mport']
CFG
    prometheus --config.file="$scratch/prometheus.yml" --storage.tsdb.path="$scratch/tsdb" \
        --web.listen-address="127.0.0.1:$pport" > "$scratch/prometheus.log" 2>&1 &
    pids+=($!)
    wait_for 60 curl -sf "http://127.0.0.1:$pport/-/ready" -o /dev/null ||
        { cat "$scratch/prometheus.log"; echo "FAIL: prometheus not ready within 60 s"; exit 1; }
    # its discovery hands targets to the scrapers a few seconds after it is
    # ready: the run starts once the target is there, so that every second
    # of it is scraped
    has_target() { curl -sf "http://127.0.0.1:$pport/api/v1/targets" | grep -q "127.0.0.1:$mport"; }
    wait_for 60 has_target || { echo "FAIL: prometheus has no target within 60 s"; exit 1; }
fi

"$bin/rackbench" run "$scratch/plan.ini" --local 2 --metrics "$mport" --out "$scratch/runs" \
    --quiet > "$scratch/run.out" 2> "$scratch/run.err" &
run_pid=$!
pids+=($run_pid)
metrics_url="http://127.0.0.1:$mport/metrics"
has_phase() { curl -sf "$metrics_url" -o "$scratch/metrics.txt" &&
              grep -q 'rackbench_phase_info{phase="mix",index="1"} 1' "$scratch/metrics.txt" &&
              grep -q 'rackbench_bytes_total{node="local-2",rack="local",direction="read"} [1-9]' \
                  "$scratch/metrics.txt"; }
wait_for 60 has_phase || bad "no sample of phase mix at /metrics within 60 s"

if [ "$mode" = metrics ]; then
    m=$scratch/metrics.txt
    for fam in bytes_total:counter ops_total:counter latency_seconds:histogram \
               rack_bytes_total:counter rack_ops_total:counter rack_latency_seconds:histogram \
               cluster_bytes_total:counter cluster_ops_total:counter \
               cluster_latency_seconds:histogram nodes:gauge run_info:gauge phases:gauge \
               phase_index:gauge phase_info:gauge findings:gauge phases_done:gauge; do
        name=rackbench_${fam%%:*}
        grep -q "^# HELP $name " "$m" || bad "no HELP line for $name"
        grep -qx "# TYPE $name ${fam##*:}" "$m" || bad "no TYPE $name ${fam##*:}"
    done
    grep -q '^rackbench_ops_total{node="local-1",rack="local",direction="write"} [1-9]' "$m" ||
        bad "no writes counted for local-1"
    grep -q '^rackbench_latency_seconds_bucket{node="local-1",rack="local",direction="read",le="+Inf"} [1-9]' "$m" ||
        bad "no read latency histogram for local-1"
    grep -q '^rackbench_cluster_bytes_total{direction="trim"} 0$' "$m" || bad "trims counted"
    grep -q '^rackbench_nodes{status="ok"} 2$' "$m" || bad "not 2 nodes ok"
    grep -q '^rackbench_phase_index 1$' "$m" || bad "phase_index is not 1"
    grep -q '^rackbench_run_info{run_id="[^"]*",state="running"} 1$' "$m" || bad "run_info not running"
    # every line a comment or NAME{LABELS} VALUE
    if grep -vE '^(# (HELP|TYPE) .*|rackbench_[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [-+0-9.eInf]+)$' "$m"; then
        bad "lines above are not in the text format"
    fi
    page_running() { curl -sf "http://127.0.0.1:$mport/" -o "$scratch/page.html" &&
                     grep -q 'RUNNING' "$scratch/page.html"; }
    wait_for 30 page_running || bad "/ is not the report marked RUNNING"
    grep -q '<meta http-equiv="refresh" content="[0-9]*"/>' "$scratch/page.html" ||
        bad "/ does not reload itself"
    grep -q '^<!DOCTYPE html>' "$scratch/page.html" || bad "/ is not an HTML page"
    # issue 33: the plan as written, no variable's value, no host inventory
    grep -qF "$IT_TOKEN" "$scratch/page.html" && bad "the live page shows \${IT_TOKEN}'s value"
    grep -qF 'description=built by ${IT_TOKEN}' "$scratch/page.html" ||
        bad "the live page does not show the plan as written"
    grep -qF "$IT_TOKEN" "$scratch"/runs/*/plan.ini || bad "plan.ini does not hold the plan as run"
    grep -qE '<th>(NICs|file systems|serial)</th>|id="devices"' "$scratch/page.html" &&
        bad "the live page shows the hosts' inventory without --metrics-inventory"
    dir=$(ls -d "$scratch"/runs/*/ | head -1)
    "$bin/rackbench" report "$dir" > "$scratch/report.txt" 2> "$scratch/report.err"
    grep -q 'RUNNING' "$scratch/report.txt" || bad "rackbench report mid-run does not say RUNNING"
    grep -q 'DID NOT FINISH' "$scratch/report.txt" && bad "rackbench report mid-run says DID NOT FINISH"
    curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$mport/nothing" | grep -q 404 ||
        bad "an unknown path is not 404"
    # issue 33: 70 slow clients on the scraper's own address, each a byte
    # of a request and no more; curl's scrape is answered meanwhile
    python3 - "$mport" <<'PY' || bad "no scrape beside 70 slow clients (above)"
import socket, subprocess, sys, time
port = int(sys.argv[1])
slow = []
for i in range(70):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.send(b"G")
    slow.append(s)
t = time.monotonic()
r = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "20",
                    f"http://127.0.0.1:{port}/metrics"], capture_output=True, text=True)
print(f"a scrape beside 70 slow clients: {r.stdout} in {time.monotonic() - t:.3f} s")
sys.exit(0 if r.stdout == "200" else 1)
PY
    if command -v chromium > /dev/null; then
        # the live page in a browser, mid-run: a line of several points, drawn
        has_line() { curl -sf "http://127.0.0.1:$mport/" -o "$scratch/page.html" &&
                     grep -q '<polyline class="cluster"' "$scratch/page.html"; }
        wait_for 30 has_line || bad "/ has no line of the phase running within 30 s"
        chrome() { timeout 60 chromium --headless --no-sandbox --disable-gpu \
                   --disable-dev-shm-usage --hide-scrollbars --no-first-run \
                   --user-data-dir="$scratch/chromium" --window-size=1400,2400 "$@" 2> /dev/null; }
        chrome --dump-dom "http://127.0.0.1:$mport/" > "$scratch/live.dom" ||
            bad "chromium could not load the live page"
        kill -0 $run_pid 2> /dev/null || bad "the run ended before the browser loaded the page"
        grep -q 'RUNNING' "$scratch/live.dom" || bad "the live page in the browser is not RUNNING"
        grep -q '<section id="summary">' "$scratch/live.dom" || bad "the live page has no summary"
        grep -q 'Phase 1/1: mix' "$scratch/live.dom" || bad "the live page lacks the phase running"
        # a polyline of at least 3 points: "x,y x,y x,y"
        grep -Eq '<polyline class="cluster"[^>]* points="[0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+' \
            "$scratch/live.dom" || bad "the live page draws no line of 3 points or more"
        grep -q 'IOPS over time, per direction' "$scratch/live.dom" ||
            bad "the live page has no IOPS per direction"
        chrome --screenshot="$scratch/live.png" "http://127.0.0.1:$mport/" > /dev/null ||
            bad "chromium could not take a screenshot of the live page"
        read -r w h colours permille < <(python3 "$src/tests/integration/png_stats.py" "$scratch/live.png")
        echo "live page screenshot ${w}x${h}: $colours colours, $permille/1000 not background"
        [ "${w:-0}" -eq 1400 ] && [ "${colours:-0}" -gt 10 ] && [ "${permille:-0}" -ge 5 ] ||
            bad "the live page's screenshot is blank or one colour"
    else
        it_skip "the browser checks: chromium is not installed (deploy/setup.sh --test)"
    fi
fi

# prometheus: the run ends on its own, in time; metrics: it is stopped now
want=0
if [ "$mode" = metrics ]; then
    kill -0 $run_pid 2> /dev/null || bad "the run ended before its checks were done"
    kill -INT $run_pid
    want=3
fi
if [ "$mode" = prometheus ]; then
    # its report on stdout, then the final /metrics until Prometheus scrapes it
    reported() { grep -q '^run folder: ' "$scratch/run.out"; }
    wait_for $((runtime + 60)) reported || bad "the run wrote no report"
    t0=$(date +%s%N)
fi
wait_for $((runtime + 60)) bash -c "! kill -0 $run_pid 2> /dev/null" || bad "the run did not end"
if [ "$mode" = prometheus ]; then
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    echo "the run closed $ms ms after its report (scrapes every 1 s; linger at most 30 s)"
    [ $ms -lt 10000 ] || bad "the run lingered ${ms} ms after its report, Prometheus scraping every 1 s"
fi
wait $run_pid
rc=$?
[ $rc -eq $want ] || { cat "$scratch/run.err"; bad "run exit $rc, expected $want"; }
[ "$mode" = metrics ] && { grep -q "interrupted during phase mix" "$scratch/run.err" ||
                           bad "the stopped run does not say it was interrupted"; }
summary=$(ls "$scratch"/runs/*/summary.json | head -1)

if [ "$mode" = metrics ]; then
    dir=$(dirname "$summary")
    "$bin/rackbench" report "$dir" > "$scratch/report.txt" 2>&1
    grep -q 'RUNNING' "$scratch/report.txt" && bad "rackbench report after the run says RUNNING"
    grep -q 'RUNNING' "$dir/report.html" && bad "report.html after the run says RUNNING"
    grep -q '<section id="summary">' "$dir/report.html" || bad "report.html has no summary"
    grep -q '<th>file systems</th>' "$dir/report.html" || bad "report.html lacks the hosts"
fi

if [ "$mode" = prometheus ]; then
    # the rate over the 10 s that end a second before the phase's last IO
    read -r agg mid < <(python3 - "$summary" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
print(p["aggregate_bw"], p["last_end_utc_ns"] / 1e9 - 1)
PY
)
    query='sum(rate(rackbench_bytes_total[10s]))'
    curl -sf "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$query" \
        --data-urlencode "time=$mid" -o "$scratch/answer.json" || bad "query failed"
    prom=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["data"]["result"]; print(r[0]["value"][1] if r else "none")' "$scratch/answer.json")
    echo "Prometheus $query at $mid: $prom B/s; summary.json aggregate_bw: $agg B/s"
    python3 -c 'import sys; p,a=sys.argv[1],float(sys.argv[2]); sys.exit(0 if p!="none" and abs(float(p)-a)<=0.1*a else 1)' "$prom" "$agg" ||
        bad "Prometheus's rate ($prom B/s) is not within 10% of aggregate_bw ($agg B/s)"
    # the final scrape: the last values Prometheus holds are the run's totals
    prom_last() {
        curl -sf "http://127.0.0.1:$pport/api/v1/query" \
            --data-urlencode "query=last_over_time($1[5m])" -o "$scratch/last.json" &&
        python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["data"]["result"]; print(" ".join(x["metric"].get("direction","")+"="+x["value"][1] for x in r))' "$scratch/last.json"
    }
    finished() { [ "$(prom_last rackbench_run_finished)" = "=1" ]; }
    wait_for 10 finished || bad "Prometheus has no rackbench_run_finished 1: $(prom_last rackbench_run_finished)"
    read -r r w t < <(summary_bytes "$summary")
    last=$(prom_last rackbench_cluster_bytes_total | tr ' ' '\n' | sort | tr '\n' ' ')
    echo "Prometheus's last rackbench_cluster_bytes_total: $last; summary.json: read=$r write=$w trim=$t"
    [ "$last" = "read=$r trim=$t write=$w " ] ||
        bad "Prometheus's last counters ($last) are not summary.json's (read=$r write=$w trim=$t)"
    [ "$(prom_last rackbench_run_exit_code)" = "=0" ] || bad "Prometheus has no exit code 0"
fi
[ $fail -eq 0 ] && echo "ok"
it_exit "$fail"
