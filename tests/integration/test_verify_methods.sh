#!/usr/bin/env bash
# fio's verify methods through `rackbench run --local 1`, on real files:
# (1) a write job with each method reads every block back intact (do_verify),
#     its read-back counted as reads; (2) a byte of the file flipped from
#     outside (dd conv=notrunc) between the write phase and a verifying read
#     phase is a verify error that names the block's offset, and the run
#     exits as it does for crc32c (3, the run failed), but with verify=null,
#     which checks nothing; (3) verify=md5 jobs (and a meta, a pattern and a
#     null one) move the same bytes as Debian's fio, their verify read pass
#     counted as fio counts it.
#   test_verify_methods.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
. "$(dirname "$0")/fio_pair_lib.sh"
scratch=$2/verify-methods.$$
it_need fio "Debian's fio, the peer these tests run beside"
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
scale=${RB_TEST_TIME_SCALE:-1}
fail=0
methods="crc32c md5 crc32 crc64 sha1 sha256 sha512 xxhash crc16 crc7 meta pattern null"

# the options of a method's job: a pattern where it needs one, and a few
# with verify_interval, verify_offset or %o
opts() {
    case $1 in
    pattern) printf 'verify=pattern\nverify_pattern=0xaa555aa5%%o"rb"\n' ;;
    md5) printf 'verify=md5\nverify_interval=512\n' ;;
    sha256) printf 'verify=sha256\nverify_offset=1024\n' ;;
    meta) printf 'verify=meta\nverify_pattern=0xaa555aa5\nverify_interval=512\n' ;;
    *) printf 'verify=%s\n' "$1" ;;
    esac
}

# "name read_bytes read_ops write_bytes write_ops verify_errors errors" per phase of a summary.json
phases() {
    python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["phases"]:
    print(p["name"], p["read_bytes"], p["read_ops"], p["write_bytes"], p["write_ops"],
          p["verify_errors"], p["errors"])' "$1"
}

# the offset of the first error of phase $2 of a summary.json, or none
first_error_offset() {
    python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["phases"]:
    if p["name"] == sys.argv[2]:
        e = p.get("first_error")
        print(e["offset"] if e else "none")' "$1" "$2"
}

# (1) write then verify, each method
for m in $methods; do
    d=$scratch/wv-$m
    mkdir -p "$d/data"
    printf '[global]\ndirectory=%s\nbs=4k\nsize=1m\ndirect=1\n%s\n[j]\nrw=randwrite\n' \
        "$d/data" "$(opts "$m")" > "$d/plan.fio"
    if ! "$bin/rackbench" run "$d/plan.fio" --local 1 --quiet --out "$d/runs" > "$d/out" 2>&1; then
        echo "FAIL write-verify $m: rackbench failed:"; cat "$d/out"; fail=1; continue
    fi
    read -r _ rb ro wb wo ve er <<< "$(phases "$(ls -d "$d"/runs/*/)summary.json")"
    if [ "$wb" != 1048576 ] || [ "$rb" != 1048576 ] || [ "$ro" != 256 ] || [ "$ve" != 0 ] || [ "$er" != 0 ]; then
        echo "FAIL write-verify $m: wrote $wb, read back $rb in $ro ops, $ve verify errors, $er errors"; fail=1
    else
        echo "ok   write-verify $m: wrote $wb, read back $rb in $ro ops, no verify error"
    fi
done

# (2) a byte flipped between the write phase and the verifying read phase;
# the read phase waits out a startdelay, within which the byte is flipped
want_rc=
for m in $methods; do
    d=$scratch/flip-$m
    mkdir -p "$d/data"
    printf '[global]\ndirectory=%s\nbs=4k\nsize=1m\ndirect=1\nfilename_format=f.$jobnum\n%s\n' \
        "$d/data" "$(opts "$m")" > "$d/plan.fio"
    printf '[w]\nrw=write\ndo_verify=0\n[r]\nstonewall\nstartdelay=%ss\nrw=randread\n' \
        $((2 * scale)) >> "$d/plan.fio"
    "$bin/rackbench" run "$d/plan.fio" --local 1 --quiet --out "$d/runs" > "$d/out" 2>&1 &
    pid=$!
    for _ in $(seq 1 $((400 * scale))); do
        grep -qs ',r,' "$d"/runs/*/samples.csv && break
        sleep 0.05
    done
    f=$(find "$d/data" -type f -name f.0 | head -1)
    # block 5, byte 1000: in the data of every method (meta's 512-byte
    # intervals: byte 1000 - 512 = 488 of the second, its data too, so meta
    # gets byte 5 * 4096 + 20 of its first header instead)
    at=$((5 * 4096 + 1000))
    [ "$m" = meta ] && at=$((5 * 4096 + 20))
    if [ -z "$f" ]; then
        echo "FAIL flip $m: no file f.0 under $d/data while phase r waits"; fail=1; wait $pid; continue
    fi
    byte=$(od -An -tu1 -j "$at" -N1 "$f" | tr -d ' ')
    printf "\\$(printf %03o $((byte ^ 0x40)))" | dd of="$f" bs=1 seek="$at" conv=notrunc status=none
    wait $pid
    rc=$?
    summary="$(ls -d "$d"/runs/*/ | head -1)summary.json"
    read -r _ _ _ _ _ ve _ <<< "$(phases "$summary" | grep '^r ')"
    off=$(first_error_offset "$summary" r)
    if [ "$m" = null ]; then
        if [ "$rc" != 0 ] || [ "$ve" != 0 ]; then
            echo "FAIL flip null: exit $rc, $ve verify errors (null checks nothing)"; fail=1
        else
            echo "ok   flip null: exit 0, nothing checked"
        fi
        continue
    fi
    [ -z "$want_rc" ] && want_rc=$rc # crc32c's, the first
    if [ "$rc" != "$want_rc" ] || [ "$rc" = 0 ] || [ "$ve" != 1 ] || [ "$off" != 20480 ] ||
        ! grep -q "verify: .* at offset 20480 of .*/f.0" "$d/out"; then
        echo "FAIL flip $m: exit $rc (crc32c's $want_rc), $ve verify errors, first error at $off:"
        grep verify "$d/out" | head -3; fail=1
    else
        echo "ok   flip $m: exit $rc as crc32c, 1 verify error at offset $off: $(grep -o 'verify: [^(]*' "$d/out" | head -1)"
    fi
done

# (3) verify=md5 beside fio: the same bytes and IOs written and read (fio
# counts its verify pass as reads)
fio_bytes() {
    python3 -c '
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index("{"):])["jobs"]
print(*(sum(x[d][k] for x in j) for d in ("read", "write") for k in ("io_bytes", "total_ios")))' "$1"
}
cases=(
  "md5-write|[j]\nrw=write\nbs=4k\nsize=1M\nverify=md5"
  "md5-randwrite|[j]\nrw=randwrite\nbs=4k\nsize=1M\nverify=md5"
  "md5-interval|[j]\nrw=write\nbs=16k\nsize=2M\nverify=md5\nverify_interval=1k\nnumjobs=2"
  "md5-do_verify-0|[j]\nrw=write\nbs=4k\nsize=1M\nverify=md5\ndo_verify=0"
  "meta-interval|[j]\nrw=randwrite\nbs=4k\nsize=1M\nverify=meta\nverify_interval=512"
  "pattern|[j]\nrw=write\nbs=4k\nsize=1M\nverify_pattern=0xaa555aa5"
  "null|[j]\nrw=write\nbs=4k\nsize=1M\nverify=null"
)
for c in "${cases[@]}"; do
    IFS='|' read -r name text <<< "$c"
    d=$scratch/fio-$name
    body=$(printf '%b' "$text")
    fio_pair "$name" "$d" "$body" || { fail=1; continue; }
    read -r fr fro fw fwo <<< "$(fio_bytes "$d/fio.json")"
    read -r _ rr rro rw rwo _ _ <<< "$(phases "$(ls -d "$d"/runs/*/)summary.json")"
    if [ "$fr $fro $fw $fwo" != "$rr $rro $rw $rwo" ]; then
        echo "FAIL $name: fio read $fr in $fro, wrote $fw in $fwo; rackbench read $rr in $rro, wrote $rw in $rwo"; fail=1
    else
        echo "ok   $name: read $rr in $rro IOs, wrote $rw in $rwo IOs, as fio"
    fi
done
it_exit "$fail"
