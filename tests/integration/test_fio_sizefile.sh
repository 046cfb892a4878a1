#!/usr/bin/env bash
# A job without size= takes the size of its file as an earlier phase left it
# (fio's size of an existing file), beside Debian's fio, on a tmpfs of its
# own per tool: 16 MiB and 4 KiB, so that the file a fill leaves is not a
# whole number of 64 KiB blocks.
# - Phase 1 fills the file system through filename= (fill_device=1, as
#   fio's surface-scan example), phase 2 reads it back verified with no
#   size=, phase 3 reads it from offset=128k with no size=. Each tool's reads
#   must be the file's size (as fio left it), from the offset on, rounded
#   down to whole blocks (fio ends a file at the first block that would go
#   past its end): the same bytes in both, exactly, and the verify passes.
#   That needs create_serialize=0 in fio (it then sets a job's files up as
#   the job starts); with fio's default, 1, both refuse the plan.
# - A reading job without size= whose file is there before the run (fio's
#   butterfly example): read in place, never written, the bytes fio reads
#   (below), and its phase judged cache-influenced on the file's blocks. A writer without size= is refused; a file that is not there
#   fails the run before any phase, as fio fails the job.
#   test_fio_sizefile.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
scratch=$2/fio-sizefile.$$
it_need fio "Debian's fio, the peer these tests run beside"
[ "$(id -u)" = 0 ] || { echo "SKIP: mounting a tmpfs needs root"; exit 77; }
mounted=()
cleanup() {
    for m in "${mounted[@]}"; do umount "$m" 2> /dev/null; done
    rm -rf "$scratch"
}
trap cleanup EXIT
fail=0
bs=65536
off=131072
mkdir -p "$scratch/fio" "$scratch/rb"
for side in fio rb; do
    if ! mount -t tmpfs -o size=16388k tmpfs "$scratch/$side"; then
        echo "SKIP: cannot mount a tmpfs"; exit 77
    fi
    mounted+=("$scratch/$side")
done

jnum() {
    python3 -c "import json,sys; t=open(sys.argv[1]).read(); j=json.loads(t[t.index('{'):]); print($2)" "$1"
}

body='bs=64k
ioengine=psync
create_serialize=0
filename=datafile.tmp
verify=meta
verify_pattern=0xaa555aa5
verify_interval=512

[write-phase]
rw=write
fill_device=1
do_verify=0

[verify-phase]
stonewall
rw=read
do_verify=1

[tail]
stonewall
rw=read
offset=128k
do_verify=0
'
printf '[global]\ndirectory=%s\n%s' "$scratch/fio" "$body" > "$scratch/fio.fio"
printf '[global]\ndirectory=%s\n%s' "$scratch/rb" "$body" > "$scratch/rb.fio"
fio --output-format=json --output="$scratch/fio.json" "$scratch/fio.fio" > "$scratch/fio.out" 2>&1
frc=$?
"$bin/rackbench" run "$scratch/rb.fio" --local 1 --quiet --out "$scratch/runs" \
    --agent-arg=--reserve=0 > "$scratch/rb.out" 2>&1
rrc=$?
fsize=$(stat -c %s "$scratch/fio/datafile.tmp" 2> /dev/null || echo 0)
sum=$(ls "$scratch"/runs/*/summary.json 2> /dev/null | head -1)
if [ $frc != 0 ] || [ $rrc != 0 ] || [ -z "$sum" ]; then
    echo "FAIL: fio exit $frc, rackbench exit $rrc"; cat "$scratch/fio.out" "$scratch/rb.out"
    exit 1
fi
if [ $((fsize % bs)) = 0 ]; then
    echo "FAIL: fio's filled file is $fsize bytes, a whole number of blocks: the case tests no rounding"
    fail=1
fi
for k in 1 2; do
    name=$(jnum "$sum" "j['phases'][$k]['name']")
    fr=$(jnum "$scratch/fio.json" "j['jobs'][$k]['read']['io_bytes']")
    fe=$(jnum "$scratch/fio.json" "j['jobs'][$k]['error']")
    rr=$(jnum "$sum" "j['phases'][$k]['read_bytes']")
    re=$(jnum "$sum" "j['phases'][$k]['job_stats'][0]['errors']")
    o=$([ $k = 2 ] && echo $off || echo 0)
    want=$(((fsize - o) / bs * bs))
    echo "$name: file $fsize bytes, offset $o: fio read $fr (error $fe), rackbench $rr ($re errors); whole blocks from the offset: $want"
    if [ "$fr" != "$want" ] || [ "$rr" != "$want" ] || [ "$fe" != 0 ] || [ "$re" != 0 ]; then
        echo "FAIL $name"; fail=1
    fi
done

# create_serialize=1 (fio's default): both refuse the job that reads
sed 's/^create_serialize=0$/create_serialize=1/' "$scratch/fio.fio" > "$scratch/serial.fio"
fio "$scratch/serial.fio" > "$scratch/serial-fio.out" 2>&1
frc=$?
"$bin/rackbench" check "$scratch/serial.fio" > "$scratch/serial-rb.out" 2>&1
rrc=$?
if [ $frc = 0 ] || ! grep -q "verify-phase: you need to specify size=" "$scratch/serial-fio.out"; then
    echo "FAIL: fio ran the plan with create_serialize=1 (exit $frc)"; cat "$scratch/serial-fio.out"; fail=1
fi
if [ $rrc != 2 ] || ! grep -q "job 'verify-phase' has no size: .*only with create_serialize=0" "$scratch/serial-rb.out"; then
    echo "FAIL: rackbench check of the plan with create_serialize=1: exit $rrc"; cat "$scratch/serial-rb.out"; fail=1
else
    echo "ok: create_serialize=1: fio exit $frc, rackbench check exit 2 naming job 'verify-phase'"
fi

# A file that is there before the run (fio's butterfly example reads one):
# read in place, its size its own, rounded down to whole blocks; never
# written (its checksum after both tools), and read the same bytes as fio
# reads. 4 MiB and 12 KiB: not a whole number of the blocks below.
ex=$scratch/existing
mkdir -p "$ex"
head -c $((4 * 1048576 + 12288)) /dev/urandom > "$ex/data"
sum0=$(sha256sum < "$ex/data")
for c in "read|64k" "randread|64k" "read:-8k|4k" "read:112k|16k"; do
    rw=${c%|*}
    bs=${c#*|}
    printf '[global]\ndirectory=%s\nfilename=data\nbs=%s\n[j]\nrw=%s\n' "$ex" "$bs" "$rw" > "$ex/j.fio"
    fio --output-format=json --output="$ex/fio.json" --ioengine=psync "$ex/j.fio" > /dev/null 2>&1
    fr=$(jnum "$ex/fio.json" "j['jobs'][0]['read']['io_bytes']" 2> /dev/null)
    rm -rf "$ex/runs"
    "$bin/rackbench" run "$ex/j.fio" --local 1 --quiet --out "$ex/runs" > "$ex/rb.out" 2>&1
    rrc=$?
    esum=$(ls "$ex"/runs/*/summary.json 2> /dev/null | head -1)
    rr=$([ -n "$esum" ] && jnum "$esum" "j['phases'][0]['read_bytes']")
    # buffered: the page cache is judged on the file's whole blocks, as its agent settled them
    cset=$([ -n "$esum" ] && jnum "$esum" "(j['phases'][0]['cache_influenced'], j['phases'][0]['cache']['buffered_bytes_per_node'])")
    bsb=$((${bs%k} * 1024))
    if [ "$cset" != "(True, $(((4 * 1048576 + 12288) / bsb * bsb)))" ]; then
        echo "FAIL existing file, rw=$rw: cache influence and working set $cset"; fail=1
    fi
    if [ $rrc = 0 ] && [ -n "$fr" ] && [ "$fr" = "$rr" ]; then
        echo "ok existing file, rw=$rw bs=$bs: fio and rackbench read $rr bytes of its $((4 * 1048576 + 12288)), flagged cache-influenced on the blocks it holds"
    else
        echo "FAIL existing file, rw=$rw bs=$bs: fio read ${fr:-?}, rackbench ${rr:-?} (exit $rrc)"
        cat "$ex/rb.out"; fail=1
    fi
done
if [ "$(sha256sum < "$ex/data")" != "$sum0" ]; then
    echo "FAIL: the existing file changed"; fail=1
fi
# ... a job that would write it without size= is refused; one that is not
# there fails the run before any phase, naming it, as fio fails the job
printf '[global]\ndirectory=%s\nfilename=data\n[w]\nrw=write\n' "$ex" > "$ex/w.fio"
"$bin/rackbench" check "$ex/w.fio" > "$ex/w.out" 2>&1
wrc=$?
if [ $wrc != 2 ] || ! grep -q "rackbench writes only files it makes" "$ex/w.out"; then
    echo "FAIL: a writer of the existing file without size=: check exit $wrc"; cat "$ex/w.out"; fail=1
fi
printf '[global]\ndirectory=%s\nfilename=absent\nbs=4k\n[forward]\nrw=read\n' "$ex" > "$ex/none.fio"
fio "$ex/none.fio" > "$ex/none-fio.out" 2>&1
frc=$?
"$bin/rackbench" run "$ex/none.fio" --local 1 --quiet --out "$ex/runs-none" > "$ex/none-rb.out" 2>&1
rrc=$?
if [ $frc = 0 ] || ! grep -q "you need to specify size=" "$ex/none-fio.out"; then
    echo "FAIL: fio ran a job without size= on a file that is not there (exit $frc)"
    cat "$ex/none-fio.out"; fail=1
fi
if [ $rrc != 3 ] || ! grep -q "refused the plan: .*$ex/absent: No such file" "$ex/none-rb.out"; then
    echo "FAIL: rackbench on a file that is not there: exit $rrc"; cat "$ex/none-rb.out"; fail=1
else
    echo "ok: a file that is not there: fio exit $frc, rackbench refuses the plan, exit 3, naming it"
fi
if [ "$(sha256sum < "$ex/data")" = "$sum0" ] && [ $wrc = 2 ]; then
    echo "ok: the existing file is unchanged, and a writer without size= is refused (exit 2)"
fi
[ $fail = 0 ] && echo "PASS test_fio_sizefile"
it_exit "$fail"
