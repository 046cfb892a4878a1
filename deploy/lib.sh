# shellcheck shell=bash
# Shared by deploy/virtual-rack.sh and deploy/gluster-lab.sh (sourced, not
# run): messages, usage from the script's own header, and stopping a
# process by pid. The sourcing script sets tag (its name in messages).

: "${tag:?set tag before sourcing deploy/lib.sh}"

die() {
    echo "$tag: $*" >&2
    exit 1
}
note() { echo "$tag: $*"; }

# usage: the "#   deploy/..." lines of the script's header.
usage() {
    sed -n '/^#   deploy/s/^#   //p' "$0" >&2
    exit 2
}

# alive PID: the process exists and is not a zombie.
alive() {
    local st
    st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$st" ] && [ "$st" != Z ]
}

# stop_pid PID [WHAT]: TERM, then KILL after 5 s; says "stopped WHAT (pid PID)".
stop_pid() {
    local _
    alive "$1" || return 0
    kill -TERM "$1" 2>/dev/null || true
    for _ in $(seq 1 50); do
        alive "$1" || break
        sleep 0.1
    done
    if alive "$1"; then kill -KILL "$1" 2>/dev/null || true; fi
    note "stopped ${2:-process} (pid $1)"
}
