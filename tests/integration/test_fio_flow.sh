#!/usr/bin/env bash
# fio's flow and wait_for beside fio: the same jobs run by Debian's fio and
# by `rackbench run --local 1`.
#   flow: as fio's examples/flow.fio, small: a writer of flow=1 and a random
#   reader of flow=8 sharing flow_id 0 (flow_sleep=1000, libaio at depth 16,
#   2 s): the reader's IOs over the writer's are within 5% of fio's ratio and
#   of the 8 the weights ask for.
#   wait_for: a reader that waits for a writer of two workers (held to 128
#   IOs/s, 0.25 s): in both it reads nothing before the writers' last write
#   (fio: its calls' times under strace; rackbench: the per-worker start and
#   time of summary.json), and each job moves fio's bytes.
#   test_fio_flow.sh BIN_DIR SCRATCH [TIME_SCALE]
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
. "$(dirname "$0")/fio_pair_lib.sh"
scratch=$2/fio-flow.$$
it_need fio "Debian's fio, the peer these tests run beside"
it_need strace "to see the calls each tool makes"
mkdir -p "$scratch"
[ -n "${RB_KEEP:-}" ] || trap 'rm -rf "$scratch"' EXIT
fail=0

summary() { echo "$(ls -d "$1"/runs/*/ | head -1)summary.json"; }

# flow: IOs per job in fio's JSON and in rackbench's summary
d=$scratch/flow
body='[global]
ioengine=libaio
iodepth=16
size=16m
bs=4k
time_based
runtime=2
flow_sleep=1000
norandommap
[job2]
rw=write
flow=1
[job1]
rw=randread
flow=8'
if fio_pair flow "$d" "$body"; then
    out=$(python3 - "$d/fio.json" "$(summary "$d")" << 'PY'
import json, sys
text = open(sys.argv[1]).read()
f = {j["jobname"]: j for j in json.loads(text[text.index('{'):])["jobs"]}
fr = f["job1"]["read"]["total_ios"] / max(1, f["job2"]["write"]["total_ios"])
ops = {}
for w in json.load(open(sys.argv[2]))["phases"][0]["per_worker"]:
    ops[w["job"]] = ops.get(w["job"], 0) + w["ops"]
rr = ops.get("job1", 0) / max(1, ops.get("job2", 0))
ok = abs(rr - fr) <= 0.05 * fr and abs(rr - 8) <= 0.4 and abs(fr - 8) <= 0.4
print("ok  " if ok else "FAIL", "flow: reads/writes fio %d/%d = %.3f, rackbench %d/%d = %.3f (flow asks 8)"
      % (f["job1"]["read"]["total_ios"], f["job2"]["write"]["total_ios"], fr,
         ops.get("job1", 0), ops.get("job2", 0), rr))
PY
)
    echo "$out"
    [[ $out == ok* ]] || fail=1
else
    fail=1
fi

# wait_for: fio under strace (its reads' and writes' times), rackbench's summary
d=$scratch/waitfor
body='[global]
ioengine=psync
[w]
rw=write
bs=64k
size=2m
numjobs=2
rate_iops=128
[r]
wait_for=w
rw=read
bs=4k
size=4m'
mkdir -p "$d/fio" "$d/rb"
printf '[global]\ndirectory=%s\nfallocate=none\n%s\n' "$d/fio" "$body" > "$d/fio.fio"
printf '[global]\ndirectory=%s\nfallocate=none\n%s\n' "$d/rb" "$body" > "$d/rb.fio"
if ! strace -f -ttt -y -e trace=pread64,pwrite64,read,write -o "$d/fio.st" \
    fio $IT_FIO_FLAGS --output-format=json --output="$d/fio.json" "$d/fio.fio" > "$d/fio.out" 2>&1; then
    echo "FAIL wait_for: fio failed:"; cat "$d/fio.out"; fail=1
elif ! "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1; then
    echo "FAIL wait_for: rackbench failed:"; cat "$d/rb.out"; fail=1
else
    out=$(python3 - "$d/fio.json" "$d/fio.st" "$(summary "$d")" "$d/fio" << 'PY'
import json, re, sys
text = open(sys.argv[1]).read()
fb = {}
for j in json.loads(text[text.index('{'):])["jobs"]:
    fb[j["jobname"]] = fb.get(j["jobname"], 0) + j["read"]["io_bytes"] + j["write"]["io_bytes"]
# fio: the last write to a w file, the first read of r's file
last_w, first_r = 0.0, None
for line in open(sys.argv[2]):
    m = re.match(r"\d+\s+([\d.]+) (\w+)\((\d+)<([^>]*)>", line)
    if not m or not m.group(4).startswith(sys.argv[4] + "/"):
        continue
    t, call, name = float(m.group(1)), m.group(2), m.group(4).rsplit("/", 1)[1]
    if name.startswith("w.") and "write" in call:
        last_w = max(last_w, t)
    if name.startswith("r.") and "read" in call and first_r is None:
        first_r = t
rb, w_end, r_start = {}, 0.0, None
for w in json.load(open(sys.argv[3]))["phases"][0]["per_worker"]:
    rb[w["job"]] = rb.get(w["job"], 0) + w["bytes"]
    if w["job"] == "w":
        w_end = max(w_end, w["start_s"] + w["time_s"])
    else:
        r_start = w["start_s"]
fgap = (first_r - last_w) if first_r is not None else -1
rgap = (r_start - w_end) if r_start is not None else -1
ok = fb == rb and fgap >= 0 and rgap >= -1e-6 and w_end > 0.1
print("ok  " if ok else "FAIL",
      "wait_for: bytes fio %s, rackbench %s; r's first read %.4f s after w's last write in fio, "
      "r's start %.4f s after w's end (%.3f s) in rackbench" % (fb, rb, fgap, rgap, w_end))
PY
)
    echo "$out"
    [[ $out == ok* ]] || fail=1
fi
it_exit "$fail"
