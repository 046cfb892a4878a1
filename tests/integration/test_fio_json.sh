#!/usr/bin/env bash
# fio's JSON of a real run (--output-format fio-json and fio-json+), read
# by the tools made for fio's output. A randrw rwmixread=70 phase on libaio
# (so that slat and clat exist), then a paced randread of 3 s (so that each
# node has whole sample intervals: fio's bw_ and iops_ samples), run with
# --local 2 and print fio-json+:
#   1. Debian's fio_jsonplus_clat2csv turns it into CSV (and validates its
#      CSV against the bins), a file per phase; the counts of each
#      direction's rows add up to the phase's IOs of that direction and
#      every latency lies within the direction's min and max (summary.json);
#   2. the fio-json the run left in its folder (fio.json), read by the
#      field paths fio-plot reads (jobs[] and, as fio's client/server mode,
#      client_stats[] with a hostname per node and "All clients"), holds
#      the bytes, IOPS, bandwidth and p99 of summary.json; `rackbench
#      report --output-format fio-json` renders the same file byte for
#      byte, and a comma list prints each format in turn;
#   3. an unknown format is a usage error (exit 2) naming it and the valid
#      ones, before any agent starts;
#   4. fio's logs (write_bw_log, write_iops_log, write_lat_log,
#      write_hist_log with log_hist_msec and log_hist_coarseness=1, and
#      log_offset in [global]; log_max_value in the paced job): a file per
#      job, node and kind (bw, iops, lat, clat, slat, clat_hist), found and
#      read by Debian's fio2gnuplot (its count of values, min and max are
#      the files'); each line is its samples.csv row's rate or its
#      latency.csv rows' mean (the paced job's: their largest, between the
#      mean and the node's max), with fio's six columns of log_offset; a
#      node's lines add up to the bytes and IOs summary.json gives it in the
#      phase, the mixed job's lat lines to its mean latency; the histogram
#      lines have as many columns as fio's own at the same coarseness (a
#      tiny null job run by fio, whose file name ours extend by the node),
#      their bins add up to the node's IOs of each direction and give the
#      phase's clat p99 within its bin.
#   test_fio_json.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$(realpath "${1:?usage: test_fio_json.sh BIN_DIR SCRATCH}")
scratch=${2:?SCRATCH}/fio-json.$$
clat2csv=/usr/bin/fio_jsonplus_clat2csv
[ -x "$clat2csv" ] || { echo "$clat2csv is missing (Debian's fio package has it)"; exit 1; }
[ -x /usr/bin/fio2gnuplot ] || { echo "/usr/bin/fio2gnuplot is missing (Debian's fio package has it)"; exit 1; }
mkdir -p "$scratch/data"
trap '[ -n "${RB_KEEP:-}" ] || rm -rf "$scratch"' EXIT
fail=0
say() { echo "$@"; }
bad() { echo "FAIL: $*" >&2; fail=1; }

cat > "$scratch/plan.ini" <<EOF
[global]
directory=$scratch/data
ioengine=libaio
iodepth=4
direct=1
bs=4k
size=4M
write_bw_log=rr
write_iops_log=rr
write_lat_log=rr
write_hist_log=rr
log_hist_msec=1000
log_hist_coarseness=1
log_offset=1

[mixed]
rw=randrw
rwmixread=70

[paced]
stonewall
rw=randread
rate_iops=200
time_based
runtime=3
log_max_value=1
EOF

# 1. a real run, fio-json+ on stdout
if ! "$bin/rackbench" run "$scratch/plan.ini" --local 2 --out "$scratch/runs" --quiet \
        --output-format fio-json+ > "$scratch/plus.json" 2> "$scratch/run.err"; then
    cat "$scratch/run.err" >&2
    bad "rackbench run --output-format fio-json+ failed"
    exit 1
fi
run=$(ls -d "$scratch"/runs/*/ | head -1)
run=${run%/}
grep -q "run folder: $run" "$scratch/run.err" || bad "the run folder is not said on stderr"
[ -f "$run/fio.json" ] || bad "the run left no fio.json"

(cd "$scratch" && "$clat2csv" plus.json clat.csv > clat2csv.out && "$clat2csv" plus.json clat.csv --validate >> clat2csv.out) \
    || bad "fio_jsonplus_clat2csv failed on rackbench's fio-json+"
grep -q "clat_job1.csv validated" "$scratch/clat2csv.out" || bad "fio_jsonplus_clat2csv did not validate its CSV"

python3 - "$scratch" "$run" <<'EOF' || fail=1
import csv, json, os, sys
scratch, run = sys.argv[1], sys.argv[2]
s = json.load(open(os.path.join(run, "summary.json")))
plus = json.load(open(os.path.join(scratch, "plus.json")))
ok = True
def bad(msg):
    global ok
    ok = False
    print("FAIL:", msg, file=sys.stderr)

# one CSV per jobs[] entry: the one job of each phase
files = sorted(f for f in os.listdir(scratch) if f.startswith("clat_job") and f.endswith(".csv"))
if files != ["clat_job0.csv", "clat_job1.csv"]:
    bad("fio_jsonplus_clat2csv made %s, not clat_job0.csv and clat_job1.csv" % files)
for p, d in ((0, "read"), (0, "write"), (1, "read")):
    rows = list(csv.reader(open(os.path.join(scratch, "clat_job%d.csv" % p)), skipinitialspace=True))
    head = [h.strip() for h in rows[0]]
    sd = s["phases"][p]["directions"][d]
    for kind in ("slat", "clat", "lat"):
        col = head.index("%s_%s_ns_count" % (d, kind))
        hist = sd["%s_hist" % kind]
        lo, hi = hist["min"], hist["max"]
        n = 0
        for r in rows[1:]:
            if len(r) > col and r[col].strip():
                ns = int(r[0])
                n += int(r[col])
                if not lo <= ns <= hi:
                    bad("phase %d %s %s: %d ns outside the run's %d..%d" % (p, d, kind, ns, lo, hi))
        if n != sd["ops"] or n == 0:
            bad("phase %d %s %s: the CSV counts %d IOs, the run %d" % (p, d, kind, n, sd["ops"]))
        else:
            print("ok: phase %d %s %s: %d IOs in the CSV as in the run, within %d..%d ns" % (p, d, kind, n, lo, hi))
    # the bins and the percentiles of one histogram agree
    clat = plus["jobs"][p][d]["clat_ns"]
    if sum(clat["bins"].values()) != clat["N"]:
        bad("%s clat bins add up to %d, N is %d" % (d, sum(clat["bins"].values()), clat["N"]))

# 2. fio.json by fio-plot's paths
fj = json.load(open(os.path.join(run, "fio.json")))
for key in ("fio version", "timestamp", "timestamp_ms", "time", "global options", "jobs", "client_stats"):
    if key not in fj:
        bad("fio.json lacks %r" % key)
if not fj["fio version"].startswith("rackbench-"):
    bad("fio version says %r" % fj["fio version"])
if "bins" in json.dumps(fj):
    bad("fio-json holds json+'s bins")
ph = s["phases"][0]
nodes = {n["name"]: n for n in ph["nodes"]}

def fio_plot_row(record, mode, glob):
    # the mapping fio-plot makes of one record (fiolib/jsonparsing.py)
    opts = {**record["job options"], **glob}
    return {"iodepth": int(opts["iodepth"]), "numjobs": int(opts["numjobs"]), "bs": opts["bs"],
            "rw": opts["rw"], "bw": record[mode]["bw"], "iops": record[mode]["iops"],
            "iops_stddev": record[mode]["iops_stddev"], "lat": record[mode]["lat_ns"]["mean"],
            "lat_stddev": record[mode]["lat_ns"]["stddev"], "latency_ms": record["latency_ms"],
            "latency_us": record["latency_us"], "latency_ns": record["latency_ns"],
            "cpu_usr": record["usr_cpu"], "cpu_sys": record["sys_cpu"],
            "hostname": record.get("hostname")}

def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1)

glob = fj["global options"]
job = fj["jobs"][0]
if job["jobname"] != "mixed" or job["rackbench"]["phase"] != "mixed":
    bad("jobs[0] is %r" % job["jobname"])
for d in ("read", "write"):
    row = fio_plot_row(job, d, glob)
    sd = ph["directions"][d]
    if (row["iodepth"], row["numjobs"], row["bs"], row["rw"]) != (4, 1, "4k", "randrw"):
        bad("job options read as %r" % ((row["iodepth"], row["numjobs"], row["bs"], row["rw"]),))
    if job[d]["io_bytes"] != sd["bytes"] or job[d]["total_ios"] != sd["ops"]:
        bad("%s: %d bytes %d IOs, summary.json %d %d" % (d, job[d]["io_bytes"], job[d]["total_ios"], sd["bytes"], sd["ops"]))
    if not close(row["iops"], sd["iops"]) or row["bw"] != round(sd["bw"] / 1024):
        bad("%s: iops %r bw %r KiB/s, summary.json %r %r B/s" % (d, row["iops"], row["bw"], sd["iops"], sd["bw"]))
    p99 = job[d]["clat_ns"]["percentile"]["99.000000"]
    if abs(p99 - sd["clat_us"]["p99"] * 1e3) > 1:
        bad("%s: clat p99 %d ns, summary.json %r us" % (d, p99, sd["clat_us"]["p99"]))
    if abs(row["lat"] - sd["lat_us"]["mean"] * 1e3) > 1:
        bad("%s: lat mean %r ns, summary.json %r us" % (d, row["lat"], sd["lat_us"]["mean"]))
    print("ok: jobs[0].%s: %d bytes, %.1f IOPS, %d KiB/s, clat p99 %d ns as summary.json" % (d, sd["bytes"], row["iops"], row["bw"], p99))

# client_stats, as fio-plot takes it when it is there: hosts, then "All clients"
hosts, allc = {}, None
for rec in (c for c in fj["client_stats"] if c["rackbench"]["phase"] == "mixed"):
    if rec["jobname"] == "All clients":
        allc = rec
        continue
    hosts[fio_plot_row(rec, "read", glob)["hostname"]] = rec
if sorted(hosts) != sorted(nodes):
    bad("client_stats hosts %s, nodes %s" % (sorted(hosts), sorted(nodes)))
if allc is None:
    bad("client_stats has no All clients")
for d in ("read", "write"):
    for name, rec in hosts.items():
        nd = nodes[name]["directions"][d]
        if rec[d]["io_bytes"] != nd["bytes"] or not close(rec[d]["iops"], nd["iops"]):
            bad("%s %s: %d bytes %r IOPS, summary.json %d %r" % (name, d, rec[d]["io_bytes"], rec[d]["iops"], nd["bytes"], nd["iops"]))
        p99 = rec[d]["lat_ns"]["percentile"]["99.000000"]
        if abs(p99 - nd["lat_us"]["p99"] * 1e3) > 1:
            bad("%s %s: lat p99 %d, summary.json %r us" % (name, d, p99, nd["lat_us"]["p99"]))
    total = sum(rec[d]["io_bytes"] for rec in hosts.values())
    if allc and (allc[d]["io_bytes"] != total or allc[d]["io_bytes"] != ph["directions"][d]["bytes"]):
        bad("All clients %s: %d bytes, nodes %d" % (d, allc[d]["io_bytes"], total))
    if allc and allc[d]["lat_ns"]["percentile"]["99.000000"] != job[d]["lat_ns"]["percentile"]["99.000000"]:
        bad("All clients %s p99 differs from jobs[0]'s" % d)
print("ok: client_stats: %s and All clients, as summary.json" % ", ".join(sorted(hosts)))

# the paced phase's samples (fio's bw_ and iops_): an interval a sample,
# each entry's rate the sum of its rows', as fio sums its threads'
paced = fj["jobs"][1]
if paced["jobname"] != "paced" or paced["groupid"] != 1:
    bad("jobs[1] is %r, group %r" % (paced["jobname"], paced["groupid"]))
entries = [paced] + [c for c in fj["client_stats"] if c["rackbench"]["phase"] == "paced"]
if len(entries) != 4:
    bad("the paced phase has %d entries, not jobs[1], 2 nodes and All clients" % len(entries))
for e in entries:
    r = e["read"]
    who = e.get("hostname") or e["jobname"]
    if r["iops_samples"] < 2 or r["bw_samples"] != r["iops_samples"]:
        bad("%s: %d IOPS samples, %d bandwidth samples" % (who, r["iops_samples"], r["bw_samples"]))
    elif not (r["iops_min"] - 0.5 <= r["iops_mean"] <= r["iops_max"] + 0.5 and
              r["bw_min"] - 0.5 <= r["bw_mean"] <= r["bw_max"] + 0.5):
        bad("%s: min, mean, max out of order: %r" % (who, r))
    elif not close(r["bw_mean"] * 1024, r["iops_mean"] * 4096, 1e-9):
        bad("%s: bw_mean %r KiB/s is not iops_mean %r x 4k" % (who, r["bw_mean"], r["iops_mean"]))
    elif not 0.5 * r["iops"] <= r["iops_mean"] <= 1.5 * r["iops"]:
        bad("%s: iops_mean %r, the entry's IOPS %r" % (who, r["iops_mean"], r["iops"]))
    else:
        print("ok: %s: %d samples of %d..%d IOPS, mean %.1f (%.1f over the phase)" % (
            who, r["iops_samples"], r["iops_min"], r["iops_max"], r["iops_mean"], r["iops"]))
sys.exit(0 if ok else 1)
EOF

"$bin/rackbench" report "$run" --output-format fio-json > "$scratch/again.json" \
    || bad "rackbench report --output-format fio-json failed"
cmp -s "$run/fio.json" "$scratch/again.json" && say "ok: rackbench report renders fio.json byte for byte" \
    || bad "rackbench report --output-format fio-json differs from the run's fio.json"
"$bin/rackbench" report "$run" --format fio-json+ | cmp -s - "$scratch/plus.json" \
    && say "ok: --format fio-json+ renders the run's fio-json+" || bad "--format fio-json+ differs from the run's"
"$bin/rackbench" report "$run" --output-format=fio-json,text > "$scratch/both.out" || bad "a comma list failed"
python3 - "$scratch/both.out" "$run/fio.json" "$run/report.txt" <<'EOF' || bad "--output-format=fio-json,text is not fio.json then report.txt"
import sys
out, fj, txt = (open(p).read() for p in sys.argv[1:])
sys.exit(0 if out == fj + txt else 1)
EOF

# 3. an unknown format: exit 2, named with the valid ones, nothing started
for cmd in "run $scratch/plan.ini --local 1 --out $scratch/none --output-format fio-json,xml" \
           "report $run --output-format xml" "report $run --format=xml"; do
    # shellcheck disable=SC2086
    "$bin/rackbench" $cmd > /dev/null 2> "$scratch/usage.err"
    rc=$?
    if [ "$rc" != 2 ] || ! grep -q "unknown format 'xml'" "$scratch/usage.err" \
            || ! grep -q "fio-json or fio-json+" "$scratch/usage.err"; then
        bad "rackbench ${cmd%% *} with an unknown format: exit $rc, said: $(cat "$scratch/usage.err")"
    else
        say "ok: rackbench ${cmd%% *}: $(cat "$scratch/usage.err") (exit 2)"
    fi
done
[ ! -e "$scratch/none" ] || bad "a run with an unknown format made its --out folder"

# 4. fio's logs, read by fio2gnuplot and checked against samples.csv,
# latency.csv and summary.json; fio's own histogram log of a tiny null job
# (the same coarseness) gives the columns and the name to match
(cd "$run" && fio2gnuplot -b -d "$scratch/gp" > "$scratch/gp.out" 2>&1) \
    || bad "fio2gnuplot -b failed in the run folder: $(cat "$scratch/gp.out")"
mkdir -p "$scratch/fio"
(cd "$scratch/fio" && fio --name=h --ioengine=null --rw=randread --bs=4k --size=256k \
    --rate_iops=2000 --write_hist_log=h --log_hist_msec=10 --log_hist_coarseness=1 \
    --output=/dev/null > fio.out 2>&1) || bad "fio's histogram log run failed: $(cat "$scratch/fio/fio.out")"
python3 - "$run" "$scratch/gp" "$scratch/fio" <<'EOF' || fail=1
import csv, json, os, sys
run, gp, fio = sys.argv[1], sys.argv[2], sys.argv[3]
ok = True
def bad(msg):
    global ok
    ok = False
    print("FAIL:", msg, file=sys.stderr)
s = json.load(open(os.path.join(run, "summary.json")))
rows = list(csv.DictReader(open(os.path.join(run, "samples.csv"))))
lats = list(csv.DictReader(open(os.path.join(run, "latency.csv"))))
def read_log(path):
    return [[int(v) for v in line.split(",")] for line in open(path) if line.strip()]
# fio's histogram log: its name and its columns at log_hist_coarseness=1
fio_hist = sorted(f for f in os.listdir(fio) if "hist" in f)
if fio_hist != ["h_clat_hist.1.log"]:
    bad("fio wrote %r as its histogram log" % fio_hist)
fio_cols = set(len(l) for l in read_log(os.path.join(fio, "h_clat_hist.1.log")))
if len(fio_cols) != 1:
    bad("fio's histogram lines have %r columns" % fio_cols)
def bin_lo(i):  # fio's bins: below 128 ns the value, then 64 to each power of two
    return i if i < 128 else (64 + i % 64) << (i // 64 - 1)
def bin_hi(i):
    return i + 1 if i < 128 else bin_lo(i) + (1 << (i // 64 - 1))
values = []
for number, phase, maxed in ((1, "mixed", False), (2, "paced", True)):
    ph = [p for p in s["phases"] if p["name"] == phase][0]
    merged = {}
    for node in ph["nodes"]:
        name = node["name"]
        logs = {}
        for kind in ("bw", "iops", "lat", "clat", "slat", "clat_hist"):
            # fio's name with the node before ".log"
            path = os.path.join(run, "rr_%s.%d.%s.log" % (kind, number, name))
            if os.path.exists(path):
                logs[kind] = read_log(path)
            else:
                bad("no %s" % os.path.basename(path))
        if len(logs) < 6:
            continue
        values += [l[1] for l in logs["bw"]]
        # the lines each samples.csv row gives: one per direction that moved IO
        want = {"bw": [], "iops": []}
        secs = []
        for r in rows:
            iv = float(r["interval_s"])
            if r["job"] != phase or r["node"] != name or iv <= 0:
                continue
            for p in ("read", "write"):
                n = int(r[p + "_ops"])
                if n:
                    want["bw"].append(round(int(r[p + "_bytes"]) / iv / 1024))
                    want["iops"].append(round(n / iv))
                    secs.append(iv)
        # ... and latency.csv's: the mean of each (log_max_value: the largest)
        mine = [r for r in lats if r["job"] == phase and r["node"] == name and
                float(r["interval_s"]) > 0]
        for kind in ("lat", "clat", "slat"):
            want[kind] = [int(r["max_ns"]) if maxed else round(int(r["sum_ns"]) / int(r["ops"]))
                          for r in mine if r["kind"] == kind]
        for kind in want:
            got = [l[1] for l in logs[kind]]
            if len(got) != len(want[kind]) or any(abs(g - w) > 1 for g, w in zip(got, want[kind])):
                bad("%s %s %s log: %r, the CSV files give %r" % (phase, name, kind, got, want[kind]))
        if not logs["slat"]:
            bad("%s %s: libaio's slat log is empty" % (phase, name))
        # log_offset: fio's six columns, block size and offset 0 in a windowed entry
        for kind in ("bw", "iops", "lat", "clat", "slat"):
            if any(len(l) != 6 or l[3] or l[4] or l[5] or l[2] not in (0, 1) for l in logs[kind]):
                bad("%s %s %s: not fio's windowed columns with log_offset: %r" % (
                    phase, name, kind, logs[kind][:3]))
        # the node's bytes and IOs of the phase, as summary.json has them
        got_bytes = sum(l[1] * 1024 * t for l, t in zip(logs["bw"], secs))
        got_ops = sum(l[1] * t for l, t in zip(logs["iops"], secs))
        slack = sum(secs)
        if abs(got_bytes - node["bytes"]) > 512 * slack + 1 or abs(got_ops - node["ops"]) > slack + 1:
            bad("%s %s: the logs add up to %d bytes, %d IOs; summary.json says %d, %d" % (
                phase, name, got_bytes, got_ops, node["bytes"], node["ops"]))
        else:
            print("ok: %s %s: %d bw lines add up to %d bytes (summary.json %d), %d IOs (%d)" % (
                phase, name, len(logs["bw"]), got_bytes, node["bytes"], got_ops, node["ops"]))
        for d, dn in enumerate(("read", "write")):
            nd = node["directions"][dn]
            lines = [l[1] for l in logs["lat"] if l[2] == d]
            rs = [r for r in mine if r["kind"] == "lat" and r["dir"] == dn]
            if not nd["ops"]:
                continue
            if maxed:
                # log_max_value: no entry below its window's mean, none above the node's max
                means = [int(r["sum_ns"]) / int(r["ops"]) for r in rs]
                top = nd["lat_us"]["max"] * 1000 + 1
                if len(means) != len(lines) or any(v < m - 1 or v > top for v, m in zip(lines, means)):
                    bad("%s %s %s: max entries %r, means %r, max %d" % (
                        phase, name, dn, lines, means, top))
                else:
                    print("ok: %s %s %s: %d max entries between their window's mean and %d ns" % (
                        phase, name, dn, len(lines), top))
            else:
                # the ops-weighted mean of the lines is the node's mean latency
                w = [int(r["ops"]) for r in rs]
                mean = sum(v * n for v, n in zip(lines, w)) / max(1, sum(w))
                want_mean = nd["lat_us"]["mean"] * 1000
                if len(w) != len(lines) or abs(mean - want_mean) > 1e-3 * want_mean + 2:
                    bad("%s %s %s: the lat log's mean is %.0f ns, summary.json's %.0f" % (
                        phase, name, dn, mean, want_mean))
                else:
                    print("ok: %s %s %s: the lat log's mean %.0f ns, summary.json's %.0f" % (
                        phase, name, dn, mean, want_mean))
        # the histogram log: fio's columns, bins adding up to the node's IOs
        hist = logs["clat_hist"]
        cols = set(len(l) for l in hist)
        if not hist or cols != fio_cols:
            bad("%s %s: histogram lines of %r columns, fio's have %r" % (phase, name, cols, fio_cols))
            continue
        if any(l[2] != 4096 for l in hist):
            bad("%s %s: a histogram line's block size is not the job's 4096" % (phase, name))
        for d, dn in enumerate(("read", "write")):
            n = sum(sum(l[3:]) for l in hist if l[1] == d)
            if n != node["directions"][dn]["ops"]:
                bad("%s %s %s: the histogram log holds %d IOs, summary.json %d" % (
                    phase, name, dn, n, node["directions"][dn]["ops"]))
            m = merged.setdefault(d, [0] * (len(hist[0]) - 3))
            for l in hist:
                if l[1] == d:
                    m[:] = [a + b for a, b in zip(m, l[3:])]
        print("ok: %s %s: %d histogram lines of %d columns as fio's, %d IOs" % (
            phase, name, len(hist), len(hist[0]), sum(sum(l[3:]) for l in hist)))
    # the phase's clat p99 off the nodes' bins: summary.json's lies in its (coarse) bin
    for d, bins in merged.items():
        dn = ("read", "write")[d]
        total = sum(bins)
        if not total:
            continue
        acc = 0
        for j, c in enumerate(bins):
            acc += c
            if acc >= 0.99 * total:
                break
        lo, hi = bin_lo(2 * j), bin_hi(2 * j + 1)
        p99 = ph["directions"][dn]["clat_us"]["p99"] * 1000
        if not lo - 1 <= p99 <= hi + 1:
            bad("%s %s: p99 off the histogram log is in %d..%d ns, summary.json's is %.0f" % (
                phase, dn, lo, hi, p99))
        else:
            print("ok: %s %s: p99 off the histogram log in %d..%d ns, summary.json's %.0f" % (
                phase, dn, lo, hi, p99))
g = dict(line.strip().split("=") for line in open(os.path.join(gp, "result.global")) if "=" in line)
if int(g["disks_count"]) != 4 or int(g["values_count"]) != len(values) or \
        float(g["max"]) != max(values) or float(g["min"]) != min(values):
    bad("fio2gnuplot read %r; the 4 bw logs hold %d values, %d..%d" % (
        g, len(values), min(values), max(values)))
else:
    print("ok: fio2gnuplot read the 4 bw logs: %s values, %s..%s KiB/s" % (
        g["values_count"], g["min"], g["max"]))
sys.exit(0 if ok else 1)
EOF

[ "$fail" = 0 ] && echo "fio's JSON: all checks passed"
it_exit "$fail"
