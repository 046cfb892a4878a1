#!/usr/bin/env bash
# fio's own examples as a test set: rackbench check accepts exactly the files
# of tests/fio-examples/ACCEPTED, and refuses every other one, each problem
# named with the file and its line. One `rackbench check` of every example
# at once (exit 2: some are refused; any other code fails), then each file
# is judged by the lines that name it: the file a problem names is refused,
# and the last line lists exactly those refused.
#   test_fio_examples.sh BIN_DIR EXAMPLES_DIR
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1/rackbench
dir=$2
fail=0
declare -A want refused
while read -r name; do [ -n "$name" ] && want[$name]=1; done < "$dir/ACCEPTED"
err=$(mktemp)
trap 'rm -f "$err"' EXIT
cd "$dir" || exit 1
files=(*.fio)
# the variables some examples name are left unset, as on a fresh shell
env -u FIO_BS -u FILENAME -u DEVICE "$bin" check "${files[@]}" --ram 64G > /dev/null 2> "$err"
rc=$?
if [ $rc -ne 2 ]; then
    echo "FAIL: exit $rc, not 2 (some examples are refused):"; cat "$err"; fail=1
fi
listed=""
while IFS= read -r line; do
    case "$line" in
    "rackbench: note: "* | "rackbench: warning: "*) continue ;;
    "rackbench: "[0-9]*" problems in "*) continue ;;
    "rackbench: "[0-9]*" of ${#files[@]} plans refused: "*) listed=${line#*refused: }; continue ;;
    esac
    # a problem: "rackbench: FILE:LINE: ..." or "rackbench: FILE: ..." (the plan as a whole)
    f=${line#rackbench: }
    f=${f%%:*}
    if [ -z "$f" ] || [ ! -f "$f" ] || [[ "$f" != *.fio ]]; then
        echo "FAIL: a problem without its file and line: $line"; fail=1; continue
    fi
    refused[$f]=1
done < "$err"
accepted=0
for f in "${files[@]}"; do
    if [ -n "${refused[$f]:-}" ]; then
        [ -z "${want[$f]:-}" ] || { echo "FAIL: $f is in ACCEPTED but refused:"; grep -F "$f" "$err"; fail=1; }
    else
        accepted=$((accepted + 1))
        [ -n "${want[$f]:-}" ] || { echo "FAIL: $f is accepted now; add it to $dir/ACCEPTED"; fail=1; }
    fi
done
want_list=$(printf '%s\n' "${!refused[@]}" | sort | tr '\n' ' ')
got_list=$(tr ' ' '\n' <<< "$listed" | sed '/^$/d' | sort | tr '\n' ' ')
[ "$want_list" = "$got_list" ] || { echo "FAIL: the last line lists '$got_list', the problems name '$want_list'"; fail=1; }
echo "fio examples: $accepted accepted, ${#refused[@]} refused, by one check of ${#files[@]} files"
it_exit "$fail"
