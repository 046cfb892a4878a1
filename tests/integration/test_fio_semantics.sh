#!/usr/bin/env bash
# The same small, size-bound job run by fio and by `rackbench run --local 1`
# moves the same bytes: read and written exactly, and for a mix the same
# share of reads within a few points. Each case is fio job text; DIR stands
# for a folder of the run's own.
#   test_fio_semantics.sh BIN_DIR SCRATCH
set -uo pipefail
bin=$1
scratch=$2/fio-semantics.$$
command -v fio > /dev/null || { echo "fio is not installed (deploy/setup.sh --test installs it)"; exit 1; }
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
export RB_SEM_SIZE=3M
fail=0

# name | job options, one per line after [global]/[j] | what to compare (exact, or mix)
cases=(
  "kib-is-1000|[j]\nrw=write\nbs=1000\nsize=4KiB|exact"
  "ki-is-1024|[j]\nrw=write\nbs=1k\nsize=4Ki|exact"
  "mib-rounds-to-blocks|[j]\nrw=write\nbs=4k\nsize=2MiB|exact"
  "kb_base-1000|[global]\nkb_base=1000\n[j]\nrw=write\nbs=4k\nsize=1M|exact"
  "hexadecimal|[j]\nrw=write\nbs=0x1000\nsize=0x100000|exact"
  "keyword-arithmetic|[j]\nrw=write\nbs=4k\nsize=256*\$pagesize|exact"
  "environment|[j]\nrw=write\nbs=64k\nsize=\${RB_SEM_SIZE}|exact"
  "name-in-global|[global]\nname=everything\nrw=write\nbs=64k\nsize=1M\n[a]\n[b]|exact"
  "aio-is-libaio|[j]\nioengine=aio\nrw=read\nbs=4k\nsize=1M\ndirect=1\niodepth=4|exact"
  "linuxaio-is-libaio|[j]\nioengine=linuxaio\nrw=write\nbs=4k\nsize=1M\ndirect=1\niodepth=4|exact"
  "bsrange-randwrite|[j]\nrw=randwrite\nbsrange=4k-64k\nsize=1M|exact"
  "bsrange-randread|[j]\nrw=randread\nbsrange=4k-64k\nsize=1M|exact"
  "bsrange-write|[j]\nrw=write\nbsrange=4k-64k\nsize=1M|exact"
  "rwmix-70|[j]\nrw=randrw\nrwmixread=70\nbs=4k\nsize=8M|mix"
  "rwmixwrite-20|[j]\nrw=rw\nrwmixwrite=20\nbs=4k\nsize=8M|mix"
)

# bytes read and written of fio's JSON (all jobs)
fio_bytes() {
    python3 -c '
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index("{"):])
print(sum(x["read"]["io_bytes"] for x in j["jobs"]), sum(x["write"]["io_bytes"] for x in j["jobs"]))' "$1"
}

# bytes read and written of a run folder's summary.json (all phases)
rb_bytes() {
    python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print(sum(p["read_bytes"] for p in j["phases"]), sum(p["write_bytes"] for p in j["phases"]))' "$1"
}

for c in "${cases[@]}"; do
    IFS='|' read -r name text how <<< "$c"
    d=$scratch/$name
    mkdir -p "$d/fio" "$d/rb"
    body=$(printf '%b' "$text")
    # fio preallocates by default; rackbench writes files as they grow
    printf '[global]\ndirectory=%s\nfallocate=none\n%s\n' "$d/fio" "$body" > "$d/fio.fio"
    printf '[global]\ndirectory=%s\n%s\n' "$d/rb" "$body" > "$d/rb.fio"
    if ! fio --output-format=json --output="$d/fio.json" "$d/fio.fio" > "$d/fio.out" 2>&1; then
        echo "FAIL $name: fio failed:"; cat "$d/fio.out"; fail=1; continue
    fi
    if ! "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1; then
        echo "FAIL $name: rackbench failed:"; cat "$d/rb.out"; fail=1; continue
    fi
    read -r fr fw <<< "$(fio_bytes "$d/fio.json")"
    read -r rr rw <<< "$(rb_bytes "$(ls -d "$d"/runs/*/ | head -1)/summary.json")"
    if [ "$how" = exact ]; then
        if [ "$fr" != "$rr" ] || [ "$fw" != "$rw" ]; then
            echo "FAIL $name: fio read $fr written $fw, rackbench read $rr written $rw"; fail=1
        else
            echo "ok   $name: read $rr written $rw, as fio"
        fi
    else
        verdict=$(python3 -c '
import sys
fr, fw, rr, rw = map(int, sys.argv[1:])
fs, rs = 100 * fr / (fr + fw), 100 * rr / (rr + rw)
ok = fr + fw == rr + rw and abs(fs - rs) <= 5
print("ok" if ok else "FAIL", "total %d vs %d, reads %.1f%% vs fio %.1f%%" % (rr + rw, fr + fw, rs, fs))' "$fr" "$fw" "$rr" "$rw")
        echo "${verdict%% *} $name: ${verdict#* }"
        [ "${verdict%% *}" = ok ] || fail=1
    fi
done
exit $fail
