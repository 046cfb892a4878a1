#!/usr/bin/env bash
# verify_backlog and verify_backlog_batch beside fio: each job's reads and
# writes on its file, as strace sees fio and `rackbench run --local 1` make
# them with ioengine=psync (pread64/pwrite64), the same (direction, offset,
# length) in the same order: 16 blocks written with a read back of 4 after
# every 4 (and with batches of 2 and 6), and the holes of fio's
# cross-stripe-verify example (rw=write:112k, a read back after every
# write, two loops) at a small size.
#   test_fio_vbacklog.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$(cd "$1" && pwd)
scratch=$(cd "$2" && pwd)/fio-vbacklog.$$
it_need fio "Debian's fio, the peer these tests run beside"
it_need strace "to see the calls each tool makes"
mkdir -p "$scratch/fio" "$scratch/rb"
trap 'rm -rf "$scratch"' EXIT
# LeakSanitizer cannot run under ptrace (as in test_fio_calls.sh)
nolsan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# The reads and writes on job $3's file (its name starts with "$3.") under
# folder $2 in the per-thread traces $1.*: one "r|w offset length" a line.
ios() {
    python3 - "$@" <<'PY'
import glob, re, sys
prefix, root, job = sys.argv[1:4]
line_re = re.compile(r'^p(read|write)64\(\d+<([^>]*)>, .*, (\d+)\) += (\d+)')
for path in sorted(glob.glob(prefix + ".*")):
    for line in open(path):
        m = line_re.match(line)
        if m and m[2].startswith(root + "/") and m[2].split("/")[-1].startswith(job + "."):
            print(m[1][0], int(m[3]), int(m[4]))
PY
}

jobs=(
  "b4|rw=write\nbs=4k\nsize=64k\nverify_backlog=4"
  "b4x2|rw=write\nbs=4k\nsize=64k\nverify_backlog=4\nverify_backlog_batch=2"
  "b4x6|rw=write\nbs=4k\nsize=64k\nverify_backlog=4\nverify_backlog_batch=6"
  "stripe|rw=write:112k\nbs=16k\nsize=1M\nio_size=512k\nverify_backlog=1\nloops=2"
)
body=""
for j in "${jobs[@]}"; do
    IFS='|' read -r name text <<< "$j"
    body+=$(printf '[%s]\nstonewall\n%b\n' "$name" "$text")$'\n'
done
g='[global]\ndirectory=%s\nioengine=psync\nverify=crc32c\nverify_dump=1\n%b%s'
printf "$g" "$scratch/fio" 'fallocate=none\n' "$body" > "$scratch/fio.fio"
printf "$g" "$scratch/rb" '' "$body" > "$scratch/rb.fio"
cd "$scratch" || exit 1 # fio leaves its verify state files in its folder
if ! timeout 60 strace -qq -f -ff -s 0 -y -e trace=pread64,pwrite64 -o "$scratch/fio.st" \
        fio $IT_FIO_FLAGS "$scratch/fio.fio" > "$scratch/fio.out" 2>&1; then
    echo "FAIL fio failed:"; cat "$scratch/fio.out"; exit 1
fi
if ! ASAN_OPTIONS="$nolsan" timeout 60 strace -qq -f -ff -s 0 -y -e trace=pread64,pwrite64 \
        -o "$scratch/rb.st" "$bin/rackbench" run "$scratch/rb.fio" --local 1 --quiet \
        --out "$scratch/runs" > "$scratch/rb.out" 2>&1; then
    echo "FAIL rackbench failed:"; cat "$scratch/rb.out"; exit 1
fi
fail=0
for j in "${jobs[@]}"; do
    IFS='|' read -r name text <<< "$j"
    ios "$scratch/fio.st" "$scratch/fio" "$name" > "$scratch/fio.$name"
    ios "$scratch/rb.st" "$scratch/rb" "$name" > "$scratch/rb.$name"
    w=$(grep -c '^w' "$scratch/fio.$name")
    r=$(grep -c '^r' "$scratch/fio.$name")
    if [ "$w" -eq 0 ] || [ "$r" -eq 0 ]; then
        echo "FAIL $name: fio made $w writes and $r reads"; fail=1
    elif cmp -s "$scratch/fio.$name" "$scratch/rb.$name"; then
        echo "ok   $name: $w writes and $r reads back, in fio's order, at fio's offsets"
    else
        echo "FAIL $name: fio $w writes $r reads, rackbench $(grep -c '^w' "$scratch/rb.$name") writes $(grep -c '^r' "$scratch/rb.$name") reads; first difference:"
        diff "$scratch/fio.$name" "$scratch/rb.$name" | head -4
        fail=1
    fi
done
it_exit "$fail"
