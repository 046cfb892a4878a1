# Sourced by the tests that boot systemd in a systemd-nspawn container
# (test_agent_unit.sh boot, test_package_install.sh), after it_lib.sh. The
# test starts `setsid systemd-nspawn ... -b &` and sets nspawn_pid to its
# pid; then
#   in_container CMD...  runs CMD in the container (all its namespaces)
#   stop_container       halts it: TERM to systemd-nspawn halts the
#                        container's systemd; KILL after 30 s
#   container_run ...    a plan from this machine through the container's
#                        agent (below)
nspawn_pid=""

stop_container() {
    local _
    [ -n "$nspawn_pid" ] || return 0
    kill -TERM "$nspawn_pid" 2>/dev/null || true
    for _ in $(seq 1 150); do
        kill -0 "$nspawn_pid" 2>/dev/null || break
        sleep 0.2
    done
    if kill -0 "$nspawn_pid" 2>/dev/null; then
        echo "the container did not halt in 30 s: killing systemd-nspawn (pid $nspawn_pid)" >&2
        kill -KILL "$nspawn_pid" 2>/dev/null || true
    fi
    wait "$nspawn_pid" 2>/dev/null || true
    nspawn_pid=""
}

in_container() {
    local init
    init=$(awk '{ print $1 }' "/proc/$nspawn_pid/task/$nspawn_pid/children" 2>/dev/null)
    [ -n "$init" ] || return 1
    nsenter -t "$init" -a "$@"
}

# container_run RACKBENCH PLAN ADDRESS HEAD_SECRET ALLOWED OUT: PLAN from a
# coordinator on this machine bound at ADDRESS with CURVE keys, served by
# the container's agent (one), the run in OUT and its output in OUT.txt; a
# failed run shows the output and the agent's journal, and returns 1.
container_run() {
    local rc=0
    "$1" run "$2" --expect 1 --bind "$3" --key "$4" --allow-keys "$5" --wait 30s --quiet \
        --out "$6" >"$6.txt" 2>&1 || rc=$?
    [ "$rc" -ne 0 ] || return 0
    cat "$6.txt" >&2
    in_container journalctl --no-pager -u rackbench-agent >&2 || true
    echo "rackbench run exited $rc" >&2
    return 1
}
