#!/usr/bin/env bash
# fio's own examples as a test set: rackbench check accepts exactly the files
# of tests/fio-examples/ACCEPTED, and refuses every other one with exit 2,
# each problem named with the file and its line; never another exit code.
#   test_fio_examples.sh BIN_DIR EXAMPLES_DIR
set -uo pipefail
bin=$1/rackbench
dir=$2
fail=0 accepted=0 refused=0
declare -A want
while read -r name; do [ -n "$name" ] && want[$name]=1; done < "$dir/ACCEPTED"
err=$(mktemp)
trap 'rm -f "$err"' EXIT
for f in "$dir"/*.fio; do
    name=$(basename "$f")
    # the variables some examples name are left unset, as on a fresh shell
    env -u FIO_BS -u FILENAME -u DEVICE "$bin" check "$f" --ram 64G > /dev/null 2> "$err"
    rc=$?
    if [ $rc -eq 0 ]; then
        accepted=$((accepted + 1))
        if [ -z "${want[$name]:-}" ]; then
            echo "FAIL: $name is accepted now; add it to $dir/ACCEPTED"; fail=1
        fi
        continue
    fi
    refused=$((refused + 1))
    if [ $rc -ne 2 ]; then
        echo "FAIL: $name: exit $rc, not 2:"; cat "$err"; fail=1; continue
    fi
    if [ -n "${want[$name]:-}" ]; then
        echo "FAIL: $name is in ACCEPTED but refused:"; cat "$err"; fail=1; continue
    fi
    # every problem names the file (and a line, or the plan as a whole)
    if grep -v "^rackbench: [0-9]* problems in " "$err" | grep -qv "^rackbench: $f\(:[0-9]*\)\?: "; then
        echo "FAIL: $name: a problem without its file and line:"; cat "$err"; fail=1
    fi
    if ! grep -q "^rackbench: $f" "$err"; then
        echo "FAIL: $name: refused without a reason:"; cat "$err"; fail=1
    fi
done
echo "fio examples: $accepted accepted, $refused refused"
exit $fail
