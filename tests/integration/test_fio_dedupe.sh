#!/usr/bin/env bash
# dedupe_mode=working_set, dedupe_working_set_percentage and dedupe_global
# beside Debian's fio. Two groups, each its own fio run (fio shares a global
# working set among every job of a run) and its own rackbench phase (which
# shares it among the phase's workers on the node): one job with a working
# set of 10 % of its size, and the two jobs of fio's
# examples/dedupe-global.fio (working set of 50 %, shared, and
# buffer_compress_percentage=50), smaller. rackbench's files are read while
# a later phase waits out a long startdelay (the agent removes its run
# folder at the end of a run), and the run is then ended with SIGINT. Every
# 4 KiB block of the written files is hashed: the share of blocks that
# repeat an earlier one, the share of different blocks among those repeated
# (the working set actually used), for the shared set the share of one
# file's blocks found in the other, and with buffer_compress_percentage the
# size per 4 KiB block once compressed by zlib at level 1; each within 3
# points of fio's. The contents
# are alike, not the bytes: the two random generators differ.
#   test_fio_dedupe.sh BIN_DIR SCRATCH [TIME_SCALE]
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
scale=${3:-1}
scratch=$2/fio-dedupe.$$
it_need fio "Debian's fio, the peer these tests run beside"
it_need python3 "to read the JSON"
mkdir -p "$scratch/fio" "$scratch/rb"
rb_pid=""
cleanup() {
    [ -n "$rb_pid" ] && kill -INT "$rb_pid" 2> /dev/null && wait "$rb_pid"
    rm -rf "$scratch"
}
trap cleanup EXIT

common="rw=write\nbs=4k\nsize=32m\nioengine=psync\niodepth=1\nfallocate=none\n"
ws="[ws]\ndedupe_percentage=50\ndedupe_mode=working_set\ndedupe_working_set_percentage=10\n"
global="[global]\ndedupe_mode=working_set\ndedupe_global=1\ndedupe_percentage=50\n"
global+="buffer_compress_percentage=50\ndedupe_working_set_percentage=50\n[ga]\n[gb]\n"

for g in ws global; do
    printf "[global]\ndirectory=%s\n$common${!g}" "$scratch/fio" > "$scratch/$g.fio"
    if ! fio --output="$scratch/$g.out" "$scratch/$g.fio" > /dev/null 2>&1; then
        echo "FAIL: fio failed on $g:"; cat "$scratch/$g.out"; exit 1
    fi
done

# rackbench: the groups as two phases, then [hold], whose file shows that
# they are done
printf "[global]\ndirectory=%s\n$common$ws\n[ga]\nstonewall\n" "$scratch/rb" > "$scratch/rb.fio"
printf "dedupe_mode=working_set\ndedupe_global=1\ndedupe_percentage=50\n" >> "$scratch/rb.fio"
printf "buffer_compress_percentage=50\ndedupe_working_set_percentage=50\n" >> "$scratch/rb.fio"
sed -n '/^\[ga\]/,$p' "$scratch/rb.fio" | sed 's/^\[ga\]/[gb]/; /^stonewall$/d' >> "$scratch/rb.fio"
printf "[hold]\nstonewall\nrw=write\nbs=4k\nsize=4k\nstartdelay=600s\n" >> "$scratch/rb.fio"
"$bin/rackbench" run "$scratch/rb.fio" --local 1 --quiet --out "$scratch/runs" > "$scratch/rb.out" 2>&1 &
rb_pid=$!
folder=""
for _ in $(seq 1 $((600 * scale))); do
    folder=$(ls -d "$scratch"/rb/rackbench.*.local-1 2> /dev/null | head -1)
    [ -n "$folder" ] && [ -e "$folder/hold.0.0" ] && break
    folder=""
    kill -0 "$rb_pid" 2> /dev/null || break
    sleep 0.1
done
if [ -z "$folder" ]; then
    echo "FAIL: the run never reached its [hold] phase:"; cat "$scratch/rb.out"; exit 1
fi

fail=0
python3 - "$scratch/fio" "$folder" <<'PY' || fail=1
import collections, hashlib, os, sys, zlib

def figures(folder, names, gzip):
    files = []
    z = 0
    for name in names:
        d = open(os.path.join(folder, name + ".0.0"), "rb").read()
        blocks = [d[i:i + 4096] for i in range(0, len(d) - len(d) % 4096, 4096)]
        files.append([hashlib.sha1(b).digest() for b in blocks])
        if gzip:
            z += sum(len(zlib.compress(b, 1)) for b in blocks)
    every = [h for f in files for h in f]
    n = len(every)
    count = collections.Counter(every)
    dup = 100.0 * (n - len(count)) / n
    used = 100.0 * sum(1 for c in count.values() if c > 1) / n
    cross = 0.0
    if len(files) == 2:
        other = set(files[1])
        cross = 100.0 * sum(h in other for h in files[0]) / len(files[0])
    return n, dup, used, cross, 100.0 * z / (n * 4096)

fio_dir, rb_dir = sys.argv[1], sys.argv[2]
bad = 0
for label, names in (("ws", ["ws"]), ("global", ["ga", "gb"])):
    missing = [n for n in names if not os.path.exists(os.path.join(rb_dir, n + ".0.0"))]
    if missing:
        print("FAIL %s: rackbench left no file %s.0.0" % (label, missing[0]))
        bad = 1
        continue
    f, r = figures(fio_dir, names, label == "global"), figures(rb_dir, names, label == "global")
    why = [] if f[0] == r[0] else ["size"]
    what = ("repeated blocks", "different blocks repeated", "blocks of ga in gb", "gzip -1 per 4k")
    for i, w in enumerate(what, 1):
        if abs(f[i] - r[i]) > 3.0:
            why.append(w)
    text = ("%-7s rackbench %5.1f%% %5.1f%% %5.1f%% %5.1f%%  fio %5.1f%% %5.1f%% %5.1f%% %5.1f%%"
            " (%s)" % ((label,) + r[1:] + f[1:] + (", ".join(what),)))
    print(("FAIL " if why else "ok   ") + text + ("; differs: " + ", ".join(why) if why else ""))
    bad |= bool(why)
sys.exit(bad)
PY
kill -INT "$rb_pid"
wait "$rb_pid"
rb_pid=""
[ $fail -eq 0 ] && echo "PASS test_fio_dedupe" || echo "FAIL test_fio_dedupe"
it_exit "$fail"
