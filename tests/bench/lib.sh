# Shared by the benchmarks in tests/bench/ (sourced, not run): the checks
# each makes before it measures anything.

rb=./build/bin/rackbench

# bench_need [TOOL PACKAGE]...: the built rackbench, and each tool on PATH.
bench_need() {
    [ -x "$rb" ] || { echo "build first: ./deploy/build.sh" >&2; exit 2; }
    while [ $# -ge 2 ]; do
        command -v "$1" >/dev/null || { echo "needs $1: apt-get install $2" >&2; exit 2; }
        shift 2
    done
}

# bench_disk_dir PATH: makes PATH and prints it absolute; refuses tmpfs,
# where O_DIRECT does not work and nothing touches a disk.
bench_disk_dir() {
    local d
    d=$(realpath -m "$1")
    if [ "$(stat -f -c %T "$(dirname "$d")" 2>/dev/null)" = tmpfs ]; then
        echo "$d is on tmpfs: O_DIRECT needs a real file system" >&2
        exit 2
    fi
    mkdir -p "$d"
    echo "$d"
}
