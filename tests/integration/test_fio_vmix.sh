#!/usr/bin/env bash
# verify on a mix of reads and writes, and create_on_open, beside fio.
#
# psync, under strace: a randrw or rw job with verify reads back every block
# it wrote, as fio does: after the pass (in the order written at random, by
# offset in order), or in batches with verify_backlog (after a write that
# leaves a multiple of verify_backlog blocks not yet read back, the first
# ones of them). The mix draws its directions with its own generator in
# each tool, so the traces are not the same; both must follow that one
# rule, checked by replaying it over each trace, with every block touched
# once by a random mix and its reads not checked.
#
# libaio at iodepth 16, from fio's JSON and rackbench's fio.json: the same
# jobs read as many blocks as the file has (the mix's reads, and each block
# written read back once), with no errors; with create_on_open the file is
# made empty when the job opens it (no layout, no fallocate, unlike the job
# without) and a read past the end the file has so far brings nothing, as
# libaio's event says. With psync such a read fails the job in both tools.
# A reading job with create_on_open and no earlier writer is refused.
#   test_fio_vmix.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$(cd "$1" && pwd)
scratch=$(cd "$2" && pwd)/fio-vmix.$$
it_need fio "Debian's fio, the peer these tests run beside"
it_need strace "to see the calls each tool makes"
mkdir -p "$scratch/fio" "$scratch/rb"
trap 'rm -rf "$scratch"' EXIT
nolsan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # LeakSanitizer cannot run under ptrace
cd "$scratch" || exit 1 # fio leaves its verify state files in its folder
fail=0

rb_run() { # PLAN RUNS [strace options...]: rackbench run --local 1, its exit code
    local plan=$1 runs=$2
    shift 2
    if [ $# -gt 0 ]; then
        ASAN_OPTIONS="$nolsan" timeout 120 strace "$@" "$bin/rackbench" run "$plan" --local 1 \
            --quiet --out "$runs" > "$runs.out" 2>&1
    else
        timeout 120 "$bin/rackbench" run "$plan" --local 1 --quiet --out "$runs" > "$runs.out" 2>&1
    fi
}

# --- psync: the rule of the read back, over both traces
jobs=(
  "mix|rw=randrw"
  "mixb|rw=randrw\nverify_backlog=8"
  "mixb3|rw=randrw\nverify_backlog=8\nverify_backlog_batch=3"
  "seq|rw=rw"
  "seqb|rw=rw\nverify_backlog=4"
)
body=""
for j in "${jobs[@]}"; do
    IFS='|' read -r name text <<< "$j"
    body+=$(printf '[%s]\nstonewall\n%b\n' "$name" "$text")$'\n'
done
g='[global]\ndirectory=%s\nioengine=psync\nbs=4k\nsize=256k\nverify=crc32c\n%s\n%s'
printf "$g" "$scratch/fio" 'fallocate=none' "$body" > fio.fio
printf "$g" "$scratch/rb" '' "$body" > rb.fio
st=(-qq -f -ff -s 0 -y -e trace=pread64,pwrite64)
if ! timeout 120 strace "${st[@]}" -o fio.st fio $IT_FIO_FLAGS fio.fio > fio.out 2>&1; then
    echo "FAIL fio failed:"; cat fio.out; exit 1
fi
if ! rb_run rb.fio "$scratch/runs1" "${st[@]}" -o rb.st; then
    echo "FAIL rackbench failed:"; cat "$scratch/runs1.out"; exit 1
fi
for j in "${jobs[@]}"; do
    IFS='|' read -r name text <<< "$j"
    backlog=$(printf '%b' "$text" | sed -n 's/^verify_backlog=//p')
    batch=$(printf '%b' "$text" | sed -n 's/^verify_backlog_batch=//p')
    for who in fio rb; do
        python3 - "$who.st" "$scratch/$who" "$name" "${backlog:-0}" "${batch:-0}" <<'PY' || fail=1
import glob, re, sys
prefix, root, job, backlog, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
batch = batch or backlog
line_re = re.compile(r'^p(read|write)64\(\d+<([^>]*)>, .*, (\d+), (\d+)\) += (\d+)')
ios = []
for path in sorted(glob.glob(prefix + ".*")):
    mine = []
    for line in open(path):
        m = line_re.match(line)
        if m and m[2].startswith(root + "/") and m[2].split("/")[-1].startswith(job + "."):
            mine.append((m[1][0], int(m[4]), int(m[3])))
    if any(d == "r" for d, _, _ in mine):  # the job's own thread (not a layout's)
        ios += mine
tool = "fio" if root.endswith("/fio") else "rackbench"
units, bs, rand = 64, 4096, not job.startswith("seq")
def bad(why):
    print(f"FAIL {job}: {tool}: {why}")
    sys.exit(1)
hist, due, mix, wrote, mread = [], 0, 0, [], []
for n, (d, off, ln) in enumerate(ios):
    if ln != bs:
        bad(f"IO {n} of {ln} bytes")
    if mix == units or (due and hist):
        if d != "r" or off != hist[0]:
            bad(f"IO {n} is {d} {off}, the read back of {hist[0] if hist else None} was due")
        hist.pop(0)
        due = max(due - 1, 0)
        continue
    mix += 1
    if d == "r":
        mread.append(off)
        continue
    wrote.append(off)
    if rand:
        hist.append(off)
    else:
        hist = sorted(set(hist) | {off})
    if backlog and not due and len(hist) % backlog == 0:
        due = batch
if mix != units or hist:
    bad(f"{mix} IOs of the mix, {len(hist)} blocks never read back")
if len(set(wrote)) != len(wrote) or not wrote or not mread:
    bad(f"{len(wrote)} writes ({len(set(wrote))} blocks), {len(mread)} reads")
every = [i * bs for i in range(units)]
if rand and sorted(wrote + mread) != every:
    bad("the mix did not touch every block once")
if not rand and (mread != every[:len(mread)] or wrote != every[:len(wrote)]):
    bad("the mix's reads and writes do not each go on from the start")
print(f"ok   {job}: {tool}: {len(wrote)} writes, {len(mread)} reads of the mix, each write read back as fio's rule says")
PY
    done
done

# --- libaio at iodepth 16: totals, create_on_open
cat > aio.tmpl <<'EOF'
[global]
directory=DIR
ioengine=libaio
iodepth=16
direct=1
bs=4k
size=2m
verify=crc32c
verify_fatal=1
[coo]
create_on_open=1
verify_backlog=64
rw=randrw
filename=coo
[lay]
stonewall
verify_backlog=64
rw=randrw
filename=lay
[mix]
stonewall
rw=randrw
filename=mix
EOF
rm -rf "${scratch:?}/fio/"* "${scratch:?}/rb/"*
sed "s#DIR#$scratch/fio#" aio.tmpl > aio-fio.fio
sed "s#DIR#$scratch/rb#" aio.tmpl > aio-rb.fio
if ! timeout 120 fio $IT_FIO_FLAGS aio-fio.fio --output-format=json > aio-fio.json 2> aio-fio.err; then
    echo "FAIL fio failed:"; cat aio-fio.err aio-fio.json; exit 1
fi
if ! rb_run aio-rb.fio "$scratch/runs2" -qq -f -s 0 -y -e trace=pwrite64,fallocate -o aio-rb.st; then
    echo "FAIL rackbench failed:"; cat "$scratch/runs2.out"; exit 1
fi
python3 - "$scratch/aio-fio.json" "$scratch"/runs2/*/fio.json "$scratch/aio-rb.st" <<'PY' || fail=1
import json, sys
fio = {j["jobname"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
rb = {j["jobname"].split("/")[-1]: j for j in json.load(open(sys.argv[2]))["jobs"]}
trace = open(sys.argv[3]).read()
bad = 0
for name in ("coo", "lay", "mix"):
    for tool, j in (("fio", fio[name]), ("rackbench", rb[name])):
        r, w = j["read"], j["write"]
        ok = (j["error"] == 0 and r["total_ios"] == 512 and 0 < w["total_ios"] < 512 and
              w["io_bytes"] == 4096 * w["total_ios"] and r["io_bytes"] <= 4096 * 512 and
              r["io_bytes"] % 4096 == 0 and (name == "coo" or r["io_bytes"] == 4096 * 512))
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {tool}: {r['total_ios']} reads "
              f"({r['io_bytes']} bytes), {w['total_ios']} writes, error {j['error']}")
        bad |= not ok
laid = {n: sum(1 for l in trace.splitlines() if f"/{n}>" in l) for n in ("coo", "lay")}
ok = laid["coo"] == 0 and laid["lay"] > 0
print(f"{'ok  ' if ok else 'FAIL'} create_on_open: {laid['coo']} layout writes or fallocate "
      f"on coo, {laid['lay']} on lay")
sys.exit(1 if bad or not ok else 0)
PY

# --- psync: a read past the file's end fails the job in both tools
printf '[global]\ndirectory=%s\nioengine=psync\nbs=4k\nsize=256k\n[c]\ncreate_on_open=1\nrw=randrw\n' \
    "$scratch/fio" > sync-fio.fio
printf '[global]\ndirectory=%s\nioengine=psync\nbs=4k\nsize=256k\n[c]\ncreate_on_open=1\nrw=randrw\n' \
    "$scratch/rb" > sync-rb.fio
timeout 60 fio $IT_FIO_FLAGS sync-fio.fio > sync-fio.out 2>&1
frc=$?
rb_run sync-rb.fio "$scratch/runs3"
rrc=$?
if [ $frc -ne 0 ] && grep -q "full resid" sync-fio.out && [ $rrc -ne 0 ] &&
    grep -q "read at end of file" "$scratch/runs3.out"; then
    echo "ok   psync create_on_open: fio (exit $frc) and rackbench (exit $rrc) fail at the file's end"
else
    echo "FAIL psync create_on_open: fio exit $frc, rackbench exit $rrc:"
    cat sync-fio.out "$scratch/runs3.out"; fail=1
fi

# --- a reader of a file no earlier phase writes
printf '[global]\ndirectory=%s\nbs=4k\nsize=256k\n[r]\ncreate_on_open=1\nrw=read\n' \
    "$scratch/rb" > ro.fio
rb_run ro.fio "$scratch/runs4"
rc=$?
if [ $rc -ne 0 ] && grep -q "create_on_open=1, and no earlier phase writes it" "$scratch/runs4.out" &&
    [ -z "$(find "$scratch/rb" -name 'r.*' -print)" ]; then
    echo "ok   a reader with create_on_open and no writer: refused (exit $rc), no file made"
else
    echo "FAIL a reader with create_on_open and no writer: exit $rc"; cat "$scratch/runs4.out"; fail=1
fi
it_exit "$fail"
