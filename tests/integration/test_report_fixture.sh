#!/usr/bin/env bash
# A run folder made by the release before the layered coordinator (the
# fixture in tests/unit/fixtures/run-before-redesign: plan.ini, summary.json,
# samples.csv, telemetry.csv of a 3-node run with a data phase, a mixed
# phase, metadata steps, racks, [acceptance] and [capacity]) must render
# byte for byte as that release rendered it, in every format of
# `rackbench report`. expected/report.FORMAT holds those renderings.
# Likewise `rackbench check PLAN --ram 64G` (its notes, warnings and
# normalised print) of every plan in CHECK_DIR gives CHECK_DIR/PLAN.out
# byte for byte: the shipped plans, the fixture run's plan, and a plan with
# every job option set away from its default.
#
#   test_report_fixture.sh BIN_DIR FIXTURE_DIR CHECK_DIR
set -euo pipefail
. "$(dirname "$0")/it_lib.sh"

bin=${1:?usage: test_report_fixture.sh BIN_DIR FIXTURE_DIR}
fixture=${2:?FIXTURE_DIR}
checks=$(realpath "${3:?CHECK_DIR}")
bin=$(realpath "$bin")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

fail=0
for format in text json csv html; do
    if ! "$bin/rackbench" report "$fixture" --format "$format" >"$out/report.$format"; then
        echo "FAIL: rackbench report --format $format exited $?" >&2
        fail=1
        continue
    fi
    if ! cmp -s "$fixture/expected/report.$format" "$out/report.$format"; then
        echo "FAIL: --format $format differs from the release's rendering:" >&2
        diff -u "$fixture/expected/report.$format" "$out/report.$format" | head -40 >&2 || true
        fail=1
    else
        echo "ok: --format $format renders byte for byte as before"
    fi
done
# --units: IEC (the default) keeps every line within 120 columns; si shows
# MB/s and no MiB/s; both shows both (the projection's sources are in
# powers of 1000 whatever the units: as disks are sold)
for units in iec si both; do
    if ! "$bin/rackbench" report "$fixture" --units "$units" >"$out/units.$units"; then
        echo "FAIL: rackbench report --units $units exited $?" >&2
        fail=1
    fi
done
if ! cmp -s "$out/units.iec" "$out/report.text"; then
    echo "FAIL: --units iec is not the default rendering" >&2
    fail=1
fi
wide=$(awk 'length($0) > 120' "$out/units.iec")
if [ -n "$wide" ]; then
    echo "FAIL: --units iec has lines over 120 columns:" >&2
    echo "$wide" >&2
    fail=1
fi
sed '/^projection/,$d' "$out/units.iec" >"$out/units.iec.figures"
if grep -q 'MB/s' "$out/units.iec.figures" || ! grep -q 'MiB/s' "$out/units.iec.figures"; then
    echo "FAIL: --units iec shows MB/s or no MiB/s" >&2
    fail=1
fi
if ! grep -q ' MB/s' "$out/units.si" || grep -q 'iB/s' "$out/units.si"; then
    echo "FAIL: --units si shows no MB/s, or an IEC rate" >&2
    fail=1
fi
if ! grep -q 'MiB/s (.* MB/s)' "$out/units.both"; then
    echo "FAIL: --units both does not show both" >&2
    fail=1
fi
if "$bin/rackbench" report "$fixture" --units metric >/dev/null 2>"$out/units.err" ||
    ! grep -q -- '--units metric: expected iec' "$out/units.err"; then
    echo "FAIL: --units metric is not refused with a message" >&2
    fail=1
fi
# metadata steps: ops/s, never a 0 B/s row
if grep -q ' 0 B/s' "$out/units.iec"; then
    echo "FAIL: a 0 B/s row in report.txt" >&2
    fail=1
fi
[ "$fail" = 0 ] && echo "ok: --units iec, si and both"
for plan in "$checks"/*.ini; do
    name=$(basename "$plan" .ini)
    (cd "$checks" && "$bin/rackbench" check "$name.ini" --ram 64G) >"$out/$name.out" 2>&1 || true
    if ! cmp -s "$checks/$name.out" "$out/$name.out"; then
        echo "FAIL: rackbench check $name.ini differs from the release's:" >&2
        diff -u "$checks/$name.out" "$out/$name.out" | head -40 >&2 || true
        fail=1
    else
        echo "ok: rackbench check $name.ini prints byte for byte as before"
    fi
done
[ "$fail" = 0 ] && echo "all renderings match" || echo "some renderings differ"
it_exit "$fail"
