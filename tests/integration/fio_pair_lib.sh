# Sourced by the tests that run one job through Debian's fio and through
# rackbench (needs $bin, the folder of rackbench).
#   fio_pair NAME DIR BODY: BODY (job sections, after a [global] naming the
#   folder) run by fio into DIR/fio.json and by `rackbench run --local 1`
#   into DIR/runs; 1, with the failure said, when either fails.
fio_pair() {
    local name=$1 d=$2 body=$3
    mkdir -p "$d/fio" "$d/rb"
    # files as the writes make them, for both (fallocate= has its own test)
    printf '[global]\ndirectory=%s\nfallocate=none\n%s\n' "$d/fio" "$body" > "$d/fio.fio"
    printf '[global]\ndirectory=%s\nfallocate=none\n%s\n' "$d/rb" "$body" > "$d/rb.fio"
    if ! fio --output-format=json --output="$d/fio.json" "$d/fio.fio" > "$d/fio.out" 2>&1; then
        echo "FAIL $name: fio failed:"; cat "$d/fio.out"; return 1
    fi
    if ! "$bin/rackbench" run "$d/rb.fio" --local 1 --quiet --out "$d/runs" > "$d/rb.out" 2>&1; then
        echo "FAIL $name: rackbench failed:"; cat "$d/rb.out"; return 1
    fi
}
