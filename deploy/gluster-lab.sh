#!/usr/bin/env bash
# A GlusterFS lab on one machine: glusterd in the host namespace serving one
# volume of N bricks, each brick a file system on a loop device, and a K-node
# virtual rack (deploy/virtual-rack.sh) whose nodes each mount the volume with
# the FUSE client in their agent's own mount namespace and run a
# rackbench-agent rooted in that mount. It runs the acceptance plan
# (deploy/plans/gluster-acceptance.ini) against a real GlusterFS without a
# cluster: every agent sees the same files over the network stack.
#
#   deploy/gluster-lab.sh up K [--replica 2|3] [--bricks N] [--brick-size 8G] [--volume rbgl]
#                              [--prefix gl] [--port 7780] [--subnet 10.78.0] [--dir acceptance]
#   deploy/gluster-lab.sh run PLAN [rackbench run options]
#   deploy/gluster-lab.sh status
#   deploy/gluster-lab.sh down
#
# Bricks: N (default: the replica count, a multiple of it) sparse images of
# --brick-size under STATE/bricks, xfs when mkfs.xfs is there, else ext4,
# mounted at STATE/bricks/bI in the host namespace; the brick is the folder
# `brick` inside. The volume's bricks are named by this machine's host name,
# which each node resolves to the bridge address (virtual-rack.sh
# --host-alias). Each node mounts HOST:/VOLUME at STATE/rack/PREFIXi/disk,
# its agent's root; `up` makes the folder --dir on the volume, where the
# plans' relative `directory=` points.
#
# Environment: RB_BIN as for virtual-rack.sh; RB_GLAB_STATE, the state
# folder (default build/gluster-lab of this repository).
#
# Needs root, glusterd and the FUSE client (glusterfs-server,
# glusterfs-client), /dev/fuse, and what virtual-rack.sh needs. `down`
# removes whatever exists of a lab (the rack, the volume, glusterd and the
# brick processes by pid, the brick mounts, loop devices and images): also
# after a failed `up`, and twice.
# VOLUME, GLUSTERD_PID, HOST, PREFIX come from STATE/lab.env:
# shellcheck disable=SC2153
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
state=$(realpath -m "${RB_GLAB_STATE:-$repo/build/gluster-lab}")
vrack=$here/virtual-rack.sh
me=deploy/gluster-lab.sh

tag=gluster-lab
# shellcheck source=deploy/lib.sh
. "$here/lib.sh"

rack() { RB_VRACK_STATE="$state/rack" "$vrack" "$@"; }

gl() { gluster --mode=script "$@"; }

load_env() {
    [ -f "$state/lab.env" ] || return 1
    # shellcheck source=/dev/null
    . "$state/lab.env"
}

cmd_up() {
    local k="" replica=2 bricks="" bsize=8G volume=rbgl prefix=gl port=7780 subnet=10.78.0 dir=acceptance
    while [ $# -gt 0 ]; do
        case "$1" in
        --replica) replica=${2:?--replica 2|3}; shift 2 ;;
        --bricks) bricks=${2:?--bricks N}; shift 2 ;;
        --brick-size) bsize=${2:?--brick-size SIZE}; shift 2 ;;
        --volume) volume=${2:?--volume NAME}; shift 2 ;;
        --prefix) prefix=${2:?--prefix NAME}; shift 2 ;;
        --port) port=${2:?--port N}; shift 2 ;;
        --subnet) subnet=${2:?--subnet A.B.C}; shift 2 ;;
        --dir) dir=${2:?--dir NAME}; shift 2 ;;
        -*) usage ;;
        *) [ -z "$k" ] || usage; k=$1; shift ;;
        esac
    done
    if ! [[ "$k" =~ ^[0-9]+$ ]] || [ "$k" -lt 1 ]; then die "up K: K nodes, at least 1"; fi
    [ "$replica" = 2 ] || [ "$replica" = 3 ] || die "--replica $replica: 2 or 3"
    [ -n "$bricks" ] || bricks=$replica
    if ! [[ "$bricks" =~ ^[0-9]+$ ]] || [ "$bricks" -lt "$replica" ] || [ $((bricks % replica)) -ne 0 ]; then
        die "--bricks $bricks: a multiple of the replica count $replica"
    fi
    [[ "$dir" =~ ^[A-Za-z0-9._-]+$ ]] || die "--dir $dir: one folder name"
    [[ "$volume" =~ ^[a-z][a-z0-9_]{0,30}$ ]] || die "--volume $volume: a lower-case letter then letters, digits, _"
    [ "$(id -u)" -eq 0 ] || die "needs root (glusterd, loop devices, mounts, network namespaces)"
    local missing=() t
    for t in glusterd:glusterfs-server gluster:glusterfs-server mount.glusterfs:glusterfs-client \
        losetup:mount mkfs.ext4:e2fsprogs; do
        command -v "${t%%:*}" >/dev/null 2>&1 || missing+=("${t%%:*} (${t#*:})")
    done
    [ ${#missing[@]} -eq 0 ] || die "missing: ${missing[*]}; apt-get install the packages named"
    [ -c /dev/fuse ] || die "no /dev/fuse: the GlusterFS client needs FUSE (modprobe fuse)"
    [ -e "$state/lab.env" ] && die "a lab exists already ($state/lab.env): '$me down' removes it"
    local other
    other=$(live_glusterd)
    [ -z "$other" ] || die "a glusterd runs already (pid $other): this lab starts its own; stop that one first"
    [ -e "/var/lib/glusterd/vols/$volume" ] && die "glusterd knows a volume $volume already: pick another --volume"

    local host fs=ext4
    host=$(hostname)
    command -v mkfs.xfs >/dev/null 2>&1 && fs=xfs
    mkdir -p "$state/bricks"
    cat >"$state/lab.env" <<ENV
VOLUME=$volume
HOST=$host
PREFIX=$prefix
BRICKS=$bricks
ENV
    trap 'echo "gluster-lab: up failed; '"'"'$me down'"'"' removes what was made (logs in $state)" >&2' ERR

    local i b list=()
    for i in $(seq 1 "$bricks"); do
        b=$state/bricks/b$i
        mkdir -p "$b"
        truncate -s "$bsize" "$b.img"
        local loop
        loop=$(losetup -f --show "$b.img")
        if [ "$fs" = xfs ]; then mkfs.xfs -q "$loop"; else mkfs.ext4 -q "$loop"; fi
        mount -t "$fs" "$loop" "$b"
        mkdir -p "$b/brick"
        list+=("$host:$b/brick")
    done

    setsid glusterd -N --log-file="$state/glusterd.log" </dev/null >"$state/glusterd.out" 2>&1 &
    echo "GLUSTERD_PID=$!" >>"$state/lab.env"
    for t in $(seq 1 100); do
        gluster volume list >/dev/null 2>&1 && break
        sleep 0.1
    done
    gluster volume list >/dev/null 2>&1 || die "glusterd did not answer (log: $state/glusterd.log)"
    gl volume create "$volume" replica "$replica" "${list[@]}" force >/dev/null
    gl volume start "$volume" >/dev/null
    note "volume $volume: replica $replica, $bricks bricks of $bsize ($fs) at $state/bricks/bI/brick"

    # its notes, not its how-to, which names virtual-rack.sh
    rack up "$k" --prefix "$prefix" --port "$port" --subnet "$subnet" \
        --shared "glusterfs:$host:/$volume" --host-alias "$host" | sed '/^$/,$d'
    # the plans' folder, made once on the volume through node 1's mount
    local pid1
    pid1=$(cat "$state/rack/${prefix}1/agent.pid")
    nsenter -t "$pid1" -m mkdir -p "$state/rack/${prefix}1/disk/$dir"
    trap - ERR
    note "folder $dir made on the volume: plans use directory=$dir (relative to each agent's root)"
    note "lab up: '$me run PLAN' runs a plan, '$me down' removes everything"
}

# The first glusterd that runs (not one that has exited and waits to be
# reaped, as a lab's own does for a moment after `down`), or nothing.
live_glusterd() {
    local p
    for p in $(pgrep -x glusterd || true); do
        if alive "$p"; then
            echo "$p"
            return 0
        fi
    done
}

cmd_status() {
    load_env || { note "no lab (no $state/lab.env)"; return 1; }
    gluster volume info "$VOLUME" 2>&1 | sed 's/^/  /'
    rack status
}

cmd_down() {
    [ "$(id -u)" -eq 0 ] || die "needs root"
    local volume="" pid t b dev m
    if load_env; then volume=$VOLUME; fi
    if [ -f "$state/rack/rack.env" ]; then rack down; fi
    if [ -n "$volume" ] && [ -n "${GLUSTERD_PID:-}" ] && alive "$GLUSTERD_PID" &&
        grep -qa glusterd "/proc/$GLUSTERD_PID/cmdline"; then
        if gluster volume info "$volume" >/dev/null 2>&1; then
            gl volume stop "$volume" force >/dev/null 2>&1 || true
            gl volume delete "$volume" >/dev/null 2>&1 && note "deleted volume $volume"
        fi
        stop_pid "$GLUSTERD_PID" glusterd
    fi
    # brick and self-heal processes of this lab's volume, found by what
    # their command line names (the bricks' folder, the volume)
    if [ -n "$volume" ]; then
        for pid in $(pgrep -f '^/usr/sbin/gluster' || true); do
            tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null |
                grep -qE -- "$state/bricks/|--volfile-id [a-z]*/?$volume( |\.)" || continue
            stop_pid "$pid" "$(cat "/proc/$pid/comm" 2>/dev/null || echo gluster)"
        done
        # a volume whose glusterd died before it could delete it
        if [ -d "/var/lib/glusterd/vols/$volume" ] && [ -z "$(live_glusterd)" ]; then
            rm -rf "/var/lib/glusterd/vols/$volume" && note "removed glusterd's record of $volume"
        fi
    fi
    if [ -d "$state/bricks" ]; then
        awk -v s="$state/bricks/" 'index($2, s) == 1 { print $2 }' /proc/self/mounts | sort -r |
            while read -r m; do umount "$m" && note "unmounted $m"; done
        for b in "$state/bricks"/b*.img; do
            [ -f "$b" ] || continue
            for dev in $(losetup -j "$b" | cut -d: -f1); do
                for t in $(seq 1 50); do
                    losetup -d "$dev" 2>/dev/null && break
                    sleep 0.1
                done
                note "detached $dev"
            done
            rm -f "$b"
            # an unmounted brick folder holds only what glusterd left there
            mountpoint -q "${b%.img}" || rm -rf "${b%.img}"
        done
        rmdir "$state/bricks" 2>/dev/null || note "left $state/bricks: it holds other files"
    fi
    if [ -d "$state" ]; then
        rm -f "$state/lab.env" "$state/glusterd.log" "$state/glusterd.out"
        if rmdir "$state" 2>/dev/null; then note "removed $state"; else note "left $state: it holds other files"; fi
    fi
    return 0
}

case "${1:-}" in
up) shift; cmd_up "$@" ;;
run) shift; load_env || die "no lab (no $state/lab.env): '$me up K' first"; rack run "$@" ;;
status) shift; cmd_status ;;
down) shift; cmd_down ;;
*) usage ;;
esac
