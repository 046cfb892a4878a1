#!/usr/bin/env bash
# The second command of the README, and what CI runs. Three tiers, chosen by
# the ctest labels every entry carries (docs/hacking.md, "Tests in tiers"):
#
#   ./deploy/test.sh          the gate: set-up, clang-format, a -Werror
#                             Release build and every entry once in it (labs
#                             included), then an ASan+UBSan build with the
#                             entries labelled san (the unit tier and the
#                             integration tests of the wire, the state
#                             machines, the sandbox and the faults), then the
#                             fuzz tier (each libFuzzer target for 10 s, and
#                             the plan parser's mutation run) in a clang
#                             build. Under 25 minutes on 2 cores.
#   ./deploy/test.sh --quick  after every change: the Release build, the unit
#                             tier and the smoke entries (no set-up, no
#                             formatting check). Under 3 minutes after a build.
#   ./deploy/test.sh --full   the nightly run: every entry in Release (those
#                             labelled nightly too) with a 5-minute soak,
#                             every entry under the sanitizers, and each fuzz
#                             target for 3 minutes.
#
# Entries run RB_TEST_JOBS at a time (default: the cores); those
# marked RUN_SERIAL run alone, those with a RESOURCE_LOCK one at a time per
# resource. Each step's time is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

tier=gate
case "${1:-}" in
"") ;;
--quick) tier=quick ;;
--full) tier=full ;;
-h | --help)
    sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
*)
    echo "usage: $0 [--quick | --full]" >&2
    exit 2
    ;;
esac
# as many as the cores: RB_TEST_JOBS=3 ran the gate in 17.6 minutes on 2
# cores, but the heavier load is where races hide (docs/hacking.md)
jobs=${RB_TEST_JOBS:-$(nproc)}
started=$SECONDS
steps=()

# step NAME COMMAND...: runs COMMAND and keeps its time for the summary.
step() {
    local name=$1 t0=$SECONDS
    shift
    echo "== $name"
    "$@"
    steps+=("$(printf '%-40s %5d s' "$name" $((SECONDS - t0)))")
}

summary() {
    echo
    echo "== ./deploy/test.sh ${1:-} ($tier): $((SECONDS - started)) s"
    printf '   %s\n' "${steps[@]}"
}
trap 'rc=$?; [ $rc -eq 0 ] || summary "FAILED (exit $rc)"' EXIT

# ctest over DIR with the given selection, in parallel where entries allow it
tests() {
    local dir=$1
    shift
    ctest --test-dir "$dir" --output-on-failure -j "$jobs" "$@"
}

format() {
    git ls-files -z '*.c' '*.h' | xargs -0 clang-format --dry-run --Werror
}

fuzz() {
    local seconds=$1 runs=$2
    CC=clang cmake -S . -B build-fuzz -DRB_WERROR=ON -DRB_FUZZ=ON -DRB_FUZZ_SECONDS="$seconds" \
        -DRB_FUZZ_RUNS="$runs" > /dev/null
    cmake --build build-fuzz -j"$(nproc)" --target fuzz_proto fuzz_plan test_plan
    tests build-fuzz -L '^fuzz$'
}

# ctest over DIR of the sanitizer build, with what the sanitizers need
sanitized() (
    export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    tests "$@"
)

case $tier in
quick)
    step "build (Release, -Werror)" ./deploy/build.sh build -DRB_WERROR=ON -DRB_SOAK_SECONDS=30
    step "unit and smoke entries" tests build -L '^(unit|smoke)$' -LE '^nightly$'
    ;;
gate | full)
    # --package: debhelper and lintian, for test_packages (in the gate)
    step "set-up (Debian packages)" ./deploy/setup.sh --test --package
    step "clang-format" format
    soak=30
    [ $tier = full ] && soak=300
    step "build (Release, -Werror)" ./deploy/build.sh build -DRB_WERROR=ON -DRB_SOAK_SECONDS=$soak
    if [ $tier = gate ]; then
        step "Release: every entry but fuzz, nightly" tests build -LE '^(fuzz|nightly)$'
    else
        step "Release: every entry" tests build
    fi
    if [ "${RB_SKIP_SANITIZE:-0}" != 1 ]; then
        step "build (ASan+UBSan)" ./deploy/build.sh build-asan -DRB_WERROR=ON -DRB_SANITIZE=ON \
            -DCMAKE_BUILD_TYPE=Debug -DRB_SOAK_SECONDS=30
        if [ $tier = gate ]; then
            step "ASan+UBSan: entries labelled san" sanitized build-asan -L '^san$'
        else
            step "ASan+UBSan: every entry but fuzz" sanitized build-asan -LE '^fuzz$'
        fi
    fi
    if [ "${RB_SKIP_FUZZ:-0}" != 1 ]; then
        if [ $tier = gate ]; then
            step "fuzz tier (10 s a target)" fuzz 10 20000
        else
            step "fuzz tier (180 s a target)" fuzz 180 -1
        fi
    fi
    ;;
esac
summary
