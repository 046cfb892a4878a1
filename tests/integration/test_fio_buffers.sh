#!/usr/bin/env bash
# Write buffers' contents beside Debian's fio: buffer_compress_percentage
# (with buffer_compress_chunk at 4k and at fio's default), dedupe_percentage,
# both at once, and scramble_buffers on (the default) and off. Each case is
# one job writing one file; the same plan runs through fio and through
# `rackbench run --local 1`, whose files are read while a later phase waits
# out a long startdelay (the agent removes its run folder at the end of a
# run), and the run is then ended with SIGINT. For each file: its size once
# compressed by zlib at level 1 (gzip -1) whole and 4 KiB block by block, and
# the share of its 4 KiB blocks that repeat an earlier one; each within a
# few points of fio's. The contents are alike, not the bytes: the two
# random generators differ.
#   test_fio_buffers.sh BIN_DIR SCRATCH [TIME_SCALE]
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
scale=${3:-1}
scratch=$2/fio-buffers.$$
it_need fio "Debian's fio, the peer these tests run beside"
mkdir -p "$scratch/fio" "$scratch/rb"
rb_pid=""
cleanup() {
    [ -n "$rb_pid" ] && kill -INT "$rb_pid" 2> /dev/null && wait "$rb_pid"
    rm -rf "$scratch"
}
trap cleanup EXIT

# name | options of its job | what to compare: all, or dup (the share of
# repeated blocks alone: fio's scrambled blocks compress a little, its
# random bytes being weaker than rackbench's)
cases=(
  "c0-4k|buffer_compress_percentage=0\nbuffer_compress_chunk=4k|all"
  "c25-4k|buffer_compress_percentage=25\nbuffer_compress_chunk=4k|all"
  "c50-4k|buffer_compress_percentage=50\nbuffer_compress_chunk=4k|all"
  "c75-4k|buffer_compress_percentage=75\nbuffer_compress_chunk=4k|all"
  "c25|buffer_compress_percentage=25|all"
  "c50|buffer_compress_percentage=50|all"
  "c75|buffer_compress_percentage=75|all"
  "c100|buffer_compress_percentage=100|all"
  "d0|dedupe_percentage=0|all"
  "d30|dedupe_percentage=30|all"
  "d60|dedupe_percentage=60|all"
  "d30-c50|dedupe_percentage=30\nbuffer_compress_percentage=50\nbuffer_compress_chunk=4k|all"
  "d60-c25|dedupe_percentage=60\nbuffer_compress_percentage=25|all"
  "scramble|scramble_buffers=1|dup"
  "no-scramble|scramble_buffers=0|all"
)

body="[global]\nrw=write\nbs=4k\nsize=16m\nioengine=psync\niodepth=1\nfallocate=none\n"
for c in "${cases[@]}"; do
    IFS='|' read -r name opts how <<< "$c"
    body+="[$name]\n$opts\n"
done
printf "[global]\ndirectory=%s\n$body" "$scratch/fio" > "$scratch/fio.fio"
if ! fio --output="$scratch/fio.out" "$scratch/fio.fio" > /dev/null 2>&1; then
    echo "FAIL: fio failed:"; cat "$scratch/fio.out"; exit 1
fi

# rackbench: the same jobs, then [hold], whose file shows that they are done
printf "[global]\ndirectory=%s\n$body[hold]\nstonewall\nrw=write\nbs=4k\nsize=4k\nstartdelay=600s\n" \
    "$scratch/rb" > "$scratch/rb.fio"
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

# per case: "name how" then fio's and rackbench's figures, one line each
fail=0
for c in "${cases[@]}"; do
    IFS='|' read -r name opts how <<< "$c"
    echo "$name $how $scratch/fio/$name.0.0 $folder/$name.0.0"
done > "$scratch/list"
python3 - "$scratch/list" <<'PY' || fail=1
import hashlib, os, sys, zlib

def figures(path):
    d = open(path, "rb").read()
    n = len(d) // 4096
    whole = 100.0 * len(zlib.compress(d, 1)) / len(d)
    blocks = [d[i * 4096:(i + 1) * 4096] for i in range(n)]
    per4k = 100.0 * sum(len(zlib.compress(b, 1)) for b in blocks) / len(d)
    dup = 100.0 * (n - len({hashlib.sha1(b).digest() for b in blocks})) / n
    return len(d), whole, per4k, dup

bad = 0
for line in open(sys.argv[1]):
    name, how, fpath, rpath = line.split()
    if not os.path.exists(rpath):
        print("FAIL %s: rackbench left no file %s" % (name, os.path.basename(rpath)))
        bad = 1
        continue
    f, r = figures(fpath), figures(rpath)
    why = []
    if f[0] != r[0]:
        why.append("size")
    names = ("gzip -1 whole", "gzip -1 per 4k", "repeated 4k blocks")
    for i, what in enumerate(names, 1):
        if (how == "all" or i == 3) and abs(f[i] - r[i]) > 3.0:
            why.append(what)
    text = ("%-12s rackbench %5.1f%% %5.1f%% %5.1f%%  fio %5.1f%% %5.1f%% %5.1f%%"
            " (gzip -1 whole, per 4k, repeated 4k blocks)" % ((name,) + r[1:] + f[1:]))
    print(("FAIL " if why else "ok   ") + text + ("; differs: " + ", ".join(why) if why else ""))
    bad |= bool(why)
sys.exit(bad)
PY
kill -INT "$rb_pid"
wait "$rb_pid"
rb_pid=""
[ $fail -eq 0 ] && echo "PASS test_fio_buffers" || echo "FAIL test_fio_buffers"
it_exit "$fail"
