# Sourced by every shell test (tests/integration/*.sh), right after its
# `set` line. What a pass means, the same for all of them:
#   it_skip WHY   a case that cannot run here: said, and counted
#   it_exit FAIL  ends the test: 1 when a case failed (FAIL not 0), 77 (ctest's
#                 "skipped") when a case was skipped and none failed, else 0;
#                 never a pass with a case left out
#   it_need TOOL WHY  exits 77, naming TOOL and the package that brings it,
#                 when TOOL is not installed: the whole entry cannot run
# and fio never leaves its verify state files where it runs: the function
# fio adds --verify_state_save=0 (a call through strace or timeout names
# $IT_FIO_FLAGS itself).
it_skipped=0

it_skip() {
    echo "SKIP $*"
    it_skipped=$((it_skipped + 1))
}

it_exit() {
    if [ "${1:-0}" != 0 ]; then
        exit 1
    fi
    if [ "$it_skipped" -gt 0 ]; then
        echo "$it_skipped case(s) could not run here: the entry is skipped (77), not passed"
        exit 77
    fi
    exit 0
}

it_need() {
    type -P "$1" > /dev/null && return 0
    echo "SKIP: $1 is not installed ($2; deploy/setup.sh --test installs it)"
    exit 77
}

IT_FIO_FLAGS=--verify_state_save=0
fio() {
    command fio "$IT_FIO_FLAGS" "$@"
}
