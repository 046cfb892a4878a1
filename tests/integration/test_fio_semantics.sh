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
  "bssplit-write|[j]\nrw=write\nbssplit=4k/50:64k/50\nsize=16M|sizes"
  "bssplit-randwrite|[j]\nrw=randwrite\nbssplit=4k/50:64k/50\nsize=16M|sizes"
  "bssplit-randread|[j]\nrw=randread\nbssplit=4k/20:16k/80\nsize=16M|sizes"
  "bssplit-blank-share|[j]\nrw=write\nbssplit=4k/50:8k/:64k/\nsize=16M|sizes"
  "bs-per-direction|[j]\nrw=rw\nbs=4k,64k\nsize=16M|mixsizes"
  "bssplit-per-direction|[j]\nrw=rw\nbssplit=4k/50:8k/50,64k/100\nsize=16M|mixsizes"
  "bs-writes-only|[j]\nrw=write\nbs=,64k\nsize=4M|sizes"
  "rwmix-70|[j]\nrw=randrw\nrwmixread=70\nbs=4k\nsize=8M|mix"
  "rwmixwrite-20|[j]\nrw=rw\nrwmixwrite=20\nbs=4k\nsize=8M|mix"
)

# bytes and IOs read and written of fio's JSON (all jobs)
fio_bytes() {
    python3 -c '
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index("{"):])["jobs"]
print(*(sum(x[d][k] for x in j) for d in ("read", "write") for k in ("io_bytes", "total_ios")))' "$1"
}

# bytes and IOs read and written of a run folder's summary.json (all phases)
rb_bytes() {
    python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["phases"]
print(*(sum(x[d + k] for x in p) for d in ("read_", "write_") for k in ("bytes", "ops")))' "$1"
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
    read -r fr fro fw fwo <<< "$(fio_bytes "$d/fio.json")"
    read -r rr rro rw rwo <<< "$(rb_bytes "$(ls -d "$d"/runs/*/ | head -1)/summary.json")"
    if [ "$how" = exact ]; then
        if [ "$fr" != "$rr" ] || [ "$fw" != "$rw" ]; then
            echo "FAIL $name: fio read $fr written $fw, rackbench read $rr written $rw"; fail=1
        else
            echo "ok   $name: read $rr written $rw, as fio"
        fi
        continue
    fi
    # mix: the same total, reads' share of the bytes within 5 points;
    # sizes: the same bytes, each direction's mean IO size within 10%
    # (fio's random map ends some IOs early, as rackbench's does);
    # mixsizes: totals within one largest IO (each stops once its bytes are
    # issued), reads' share of the IOs within 8 points, mean sizes within 10%
    verdict=$(python3 -c '
import sys
how = sys.argv[1]
fr, fro, fw, fwo, rr, rro, rw, rwo = map(int, sys.argv[2:])
why = []
mean = lambda b, n: b / n if n else 0
def near(a, b, tol):
    return abs(a - b) <= tol * max(a, b)
if how == "mix":
    fs, rs = 100 * fr / (fr + fw), 100 * rr / (rr + rw)
    if fr + fw != rr + rw: why.append("totals differ")
    if abs(fs - rs) > 5: why.append("read share")
    text = "total %d vs %d, reads %.1f%% vs fio %.1f%%" % (rr + rw, fr + fw, rs, fs)
else:
    if how == "sizes" and (fr != rr or fw != rw): why.append("bytes differ")
    if how == "mixsizes":
        if abs((fr + fw) - (rr + rw)) > 1048576: why.append("totals differ")
        fs, rs = 100 * fro / (fro + fwo), 100 * rro / (rro + rwo)
        if abs(fs - rs) > 8: why.append("read share of IOs")
    for d, a, b in (("read", mean(rr, rro), mean(fr, fro)), ("write", mean(rw, rwo), mean(fw, fwo))):
        if not near(a, b, 0.10): why.append("mean %s size" % d)
    text = "read %d in %d IOs (fio %d in %d), written %d in %d IOs (fio %d in %d)" % (
        rr, rro, fr, fro, rw, rwo, fw, fwo)
print("FAIL" if why else "ok", text + ("; " + ", ".join(why) if why else ""))' "$how" "$fr" "$fro" "$fw" "$fwo" "$rr" "$rro" "$rw" "$rwo")
    echo "${verdict%% *} $name: ${verdict#* }"
    [ "${verdict%% *}" = ok ] || fail=1
done
exit $fail
