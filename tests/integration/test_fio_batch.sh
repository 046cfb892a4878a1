#!/usr/bin/env bash
# iodepth_batch_submit, iodepth_batch_complete_min and _max, iodepth_low
# beside fio: the same libaio job (4 MiB of 4k random reads, O_DIRECT,
# iodepth=16) run by fio and by `rackbench run --local 1` under strace, its
# io_submit calls counted by how many IOs each submits and its io_getevents
# calls by their (min_nr, nr): the same counts in both, for fio's defaults
# and each option. Where nr is above min_nr a call reaps as many as are done
# by then, so for iodepth_batch_complete_max only the kinds of call must be
# the same (and the last reap takes whatever is left).
#   test_fio_batch.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$(cd "$1" && pwd)
scratch=$(cd "$2" && pwd)/fio-batch.$$
it_need fio "Debian's fio, the peer these tests run beside"
it_need strace "to see the calls each tool makes"
mkdir -p "$scratch/fio" "$scratch/rb"
trap 'rm -rf "$scratch"' EXIT
nolsan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # LeakSanitizer cannot run under ptrace
cd "$scratch" || exit 1

# "how|options": how=same (the counts) or kinds (the kinds of call)
cases=(
  "same|"
  "same|iodepth_batch_submit=4"
  "same|iodepth_batch=0"
  "same|iodepth_batch_complete_min=4"
  "kinds|iodepth_batch_complete_max=4"
  "same|iodepth_low=8"
  "same|iodepth_batch_submit=4\niodepth_batch_complete=4\niodepth_low=4"
)
calls() { # TRACE: "submit N" and "getevents MIN MAX", counted
    python3 - "$1" <<'PY'
import collections, re, sys
c = collections.Counter()
for line in open(sys.argv[1]):
    m = re.search(r'io_submit\(\w+, (\d+),', line)
    if m:
        c[f"submit {m[1]}"] += 1
    m = re.search(r'io_getevents\(\w+, (\d+), (\d+),', line)
    if m:
        c[f"getevents {m[1]} {m[2]}"] += 1
for k in sorted(c):
    print(c[k], k)
PY
}
fail=0
n=0
for c in "${cases[@]}"; do
    IFS='|' read -r how opts <<< "$c"
    n=$((n + 1))
    for who in fio rb; do
        printf '[global]\ndirectory=%s\nioengine=libaio\ndirect=1\niodepth=16\nbs=4k\nsize=4m\n[j]\nrw=randread\n%b\n' \
            "$scratch/$who" "$opts" > "$who.$n.fio"
    done
    st=(-qq -f -e trace=io_submit,io_getevents)
    if ! timeout 120 strace "${st[@]}" -o "fio.$n.st" fio $IT_FIO_FLAGS "fio.$n.fio" > "fio.$n.out" 2>&1; then
        echo "FAIL fio failed:"; cat "fio.$n.out"; exit 1
    fi
    if ! ASAN_OPTIONS="$nolsan" timeout 120 strace "${st[@]}" -o "rb.$n.st" "$bin/rackbench" run \
            "rb.$n.fio" --local 1 --quiet --out "$scratch/runs" > "rb.$n.out" 2>&1; then
        echo "FAIL rackbench failed:"; cat "rb.$n.out"; exit 1
    fi
    calls "fio.$n.st" > "fio.$n.calls"
    calls "rb.$n.st" > "rb.$n.calls"
    if [ "$how" = kinds ]; then
        # the kinds; the last reap takes what is left, however many that is
        awk '!($2 == "getevents" && $3 == $4) {$1=""; print}' "fio.$n.calls" > "fio.$n.cmp"
        awk '!($2 == "getevents" && $3 == $4) {$1=""; print}' "rb.$n.calls" > "rb.$n.cmp"
    else
        cp "fio.$n.calls" "fio.$n.cmp"
        cp "rb.$n.calls" "rb.$n.cmp"
    fi
    name=$(printf '%b' "${opts:-defaults}" | tr '\n' ' ')
    if [ "$(grep -c . "fio.$n.cmp")" -gt 0 ] && cmp -s "fio.$n.cmp" "rb.$n.cmp"; then
        echo "ok   $name: $(tr '\n' ',' < "rb.$n.calls")"
    else
        echo "FAIL $name: fio made"; cat "fio.$n.calls"; echo "  rackbench made"; cat "rb.$n.calls"
        fail=1
    fi
done
it_exit "$fail"
