#!/usr/bin/env bash
# A virtual rack on one machine: K network namespaces (vr1..vrK) joined by
# veth pairs to a bridge in the host namespace, each with its own ext4 file
# system on a loop device and a rackbench-agent inside, connected over tcp to
# a coordinator in the host namespace. It tests a multi-node deployment
# (addresses, one agent per "host", racks, start skew over a network stack)
# without the hardware.
#
#   deploy/virtual-rack.sh up K [--size 256M] [--prefix vr] [--port 7770] [--subnet 10.77.0]
#                              [--shared TYPE:SOURCE] [--host-alias NAME] [--no-agents]
#                              [--disks D [--disk-size 64M]]
#   deploy/virtual-rack.sh run PLAN [rackbench run options]
#   deploy/virtual-rack.sh status
#   deploy/virtual-rack.sh down [--prefix vr]
#
# Namespace i is PREFIXi at SUBNET.(i+1)/24; the bridge rbPREFIX0 holds
# SUBNET.1, where the coordinator binds. Each node's file system is mounted at
# STATE/PREFIXi/disk inside the mount namespace of its agent only (the host
# sees an empty folder; `nsenter -t PID -m` looks inside), so it goes away
# with the agent. Agents run as daemons (no --once) and serve one run after
# another until `down`.
#
# Inside the namespaces every node's name (PREFIXi) resolves to its address
# (/etc/netns/PREFIXi/hosts, which `ip netns exec` binds over /etc/hosts).
#
# --shared TYPE:SOURCE gives the nodes one shared file system instead of
# disks of their own: each node mounts SOURCE (`mount -t TYPE SOURCE`, as
# glusterfs:host:/vol) at STATE/PREFIXi/disk in its agent's mount namespace,
# and no loop device is made. --host-alias NAME makes NAME resolve to the
# bridge address inside the namespaces too, for a server in the host
# namespace known by name (deploy/gluster-lab.sh uses both). A process the
# mount leaves in a namespace (a FUSE client) is stopped by pid at `down`.
#
# --disks D gives each node D raw disks besides its file system: loop
# devices (--direct-io=on) on zeroed images of --disk-size, named as a
# JBOD's bays are by id, STATE/PREFIXi/bays/bay-1..D (links to the loop
# devices), and its agent starts with --allow-device 'STATE/PREFIXi/bays/bay-*:wipe=D':
# a plan with devices=@all (or filename= of the links) runs on them as on
# a node's own disks (deploy/plans/jbod-burnin.ini).
#
# --no-agents makes the nodes (namespace, address, names, a disk on a loop
# device, formatted but not mounted: STATE/PREFIXi/loop names it) and starts
# nothing in them: another script starts what runs there and mounts the disk
# where it needs it (deploy/slurm-lab.sh starts a slurmd per node). `down`
# still stops whatever runs in the namespaces.
#
# Environment: RB_BIN, the folder of rackbench and rackbench-agent (default
# build/bin of this repository; /usr/bin for the packages' programs), which
# `up` keeps for the later commands; RB_VRACK_STATE, the state folder
# (default build/virtual-rack of this repository).
#
# Keys: when `rackbench keygen` exists (and the rack has agents), `up` makes
# a key pair per node and one for the coordinator under STATE/keys, starts
# the agents with --key and --coordinator-key, and `run` passes --key and
# --allow-keys; with binaries that know no keygen it runs without keys.
#
# Needs root, ip (iproute2), losetup and mount (mount), mkfs.ext4 (e2fsprogs).
# K, PREFIX, PORT, SUBNET, KEYS, AGENTS, BIN come from STATE/rack.env:
# shellcheck disable=SC2153
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
bin=$(realpath -m "${RB_BIN:-$repo/build/bin}")
state=$(realpath -m "${RB_VRACK_STATE:-$repo/build/virtual-rack}")
rb=$bin/rackbench
agent=$bin/rackbench-agent
me=deploy/virtual-rack.sh
# first line of the /etc/netns/NS/hosts files up makes (a file that starts
# otherwise is someone else's and left alone)
hosts_mark="# made by deploy/virtual-rack.sh"

tag=virtual-rack
# shellcheck source=deploy/lib.sh
. "$here/lib.sh"

# need_root_and_tools: root, and every tool up and down use, or says which
# are missing and where they come from.
need_root_and_tools() {
    [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, loop devices, mounts)"
    local missing=() t pkg
    for t in ip:iproute2 losetup:mount mount:mount umount:mount mkfs.ext4:e2fsprogs \
        setsid:util-linux; do
        pkg=${t#*:}
        t=${t%%:*}
        command -v "$t" >/dev/null 2>&1 || missing+=("$t ($pkg)")
    done
    [ ${#missing[@]} -eq 0 ] || die "missing: ${missing[*]}; apt-get install the packages named"
}

# has_keygen: the binaries know `rackbench keygen` (CURVE keys). An older
# rackbench answers "unknown command 'keygen'".
has_keygen() {
    local out rc=0
    out=$("$rb" keygen --help 2>&1) || rc=$?
    [ "$rc" -eq 0 ] && return 0
    ! grep -q "unknown command" <<<"$out"
}

load_env() {
    [ -f "$state/rack.env" ] || return 1
    # shellcheck source=/dev/null
    . "$state/rack.env"
    # the binaries `up` started the agents with, unless RB_BIN says otherwise
    if [ -z "${RB_BIN:-}" ] && [ -n "${BIN:-}" ]; then
        bin=$BIN
        rb=$bin/rackbench
        agent=$bin/rackbench-agent
    fi
}

cmd_up() {
    local k="" size=256M prefix=vr port=7770 subnet=10.77.0 shared="" alias="" agents=1
    local disks=0 disk_size=64M
    while [ $# -gt 0 ]; do
        case "$1" in
        --size) size=${2:?--size SIZE}; shift 2 ;;
        --prefix) prefix=${2:?--prefix NAME}; shift 2 ;;
        --port) port=${2:?--port N}; shift 2 ;;
        --subnet) subnet=${2:?--subnet A.B.C}; shift 2 ;;
        --shared) shared=${2:?--shared TYPE:SOURCE}; shift 2 ;;
        --host-alias) alias=${2:?--host-alias NAME}; shift 2 ;;
        --no-agents) agents=0; shift ;;
        --disks) disks=${2:?--disks D}; shift 2 ;;
        --disk-size) disk_size=${2:?--disk-size SIZE}; shift 2 ;;
        -*) usage ;;
        *) [ -z "$k" ] || usage; k=$1; shift ;;
        esac
    done
    if ! [[ "$k" =~ ^[0-9]+$ ]] || [ "$k" -lt 1 ] || [ "$k" -gt 250 ]; then
        die "up K: K from 1 to 250 nodes"
    fi
    [[ "$prefix" =~ ^[a-z][a-z0-9]{0,6}$ ]] || die "--prefix $prefix: a lower-case letter then up to 6 letters or digits"
    if ! [[ "$port" =~ ^[0-9]+$ ]] || [ "$port" -lt 1 ] || [ "$port" -gt 65535 ]; then
        die "--port $port: 1 to 65535"
    fi
    [[ "$subnet" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "--subnet $subnet: three numbers, as 10.77.0"
    [ -z "$shared" ] || [[ "$shared" =~ ^[a-z0-9.]+:.+$ ]] || die "--shared $shared: TYPE:SOURCE, as glusterfs:server:/volume"
    [ -z "$alias" ] || [[ "$alias" =~ ^[A-Za-z0-9.-]+$ ]] || die "--host-alias $alias: a host name"
    if ! [[ "$disks" =~ ^[0-9]+$ ]] || [ "$disks" -gt 64 ]; then
        die "--disks $disks: 0 to 64 raw disks a node"
    fi
    [[ "$disk_size" =~ ^[0-9]+[KMG]?$ ]] || die "--disk-size $disk_size: a size, as 64M"
    if [ "$agents" -eq 0 ] && [ -n "$shared" ]; then
        die "--shared and --no-agents: the shared file system is mounted by each node's agent"
    fi
    need_root_and_tools
    if [ ! -x "$agent" ] || [ ! -x "$rb" ]; then
        die "no rackbench binaries in $bin: build first (deploy/build.sh) or set RB_BIN"
    fi

    local bridge=rb${prefix}0 i ns
    if [ -e "$state/rack.env" ]; then
        die "a virtual rack exists already ($state/rack.env): '$me status' shows it, '$me down' removes it"
    fi
    ip link show "$bridge" >/dev/null 2>&1 && die "bridge $bridge exists already: '$me down --prefix $prefix' removes it"
    for ns in $(ip netns list 2>/dev/null | awk '{ print $1 }'); do
        [[ "$ns" =~ ^${prefix}[0-9]+$ ]] && die "network namespace $ns exists already: '$me down --prefix $prefix' removes it"
    done

    local keys=0
    if [ "$agents" -eq 1 ] && has_keygen; then keys=1; fi
    mkdir -p "$state"
    cat >"$state/rack.env" <<ENV
K=$k
PREFIX=$prefix
PORT=$port
SUBNET=$subnet
BRIDGE=$bridge
KEYS=$keys
SHARED=$shared
ALIAS=$alias
AGENTS=$agents
BIN=$(printf '%q' "$bin")
ENV
    trap 'echo "virtual-rack: up failed; '"'"'$me down'"'"' removes what was made (logs in $state)" >&2' ERR

    ip netns add "${prefix}probe$$" 2>/dev/null || die "cannot make network namespaces here ('ip netns add' failed)"
    ip netns del "${prefix}probe$$"
    ip link add "$bridge" type bridge
    # A bridge takes the lowest address of its ports unless it has one set:
    # it would change as nodes join, and agents would keep the old one in
    # their ARP cache and never reach the coordinator. Pin the first one.
    ip link set "$bridge" address "$(cat "/sys/class/net/$bridge/address")"
    ip addr add "$subnet.1/24" dev "$bridge"
    ip link set "$bridge" up

    local key_opts_head=()
    if [ "$keys" -eq 1 ]; then
        mkdir -p "$state/keys/head" "$state/keys/agents"
        chmod 700 "$state/keys" "$state/keys/head" "$state/keys/agents"
        "$rb" keygen "$state/keys/head" --name head >/dev/null
    fi

    # every node by name, and the alias, inside every namespace
    local hosts=("$hosts_mark" "127.0.0.1 localhost")
    for i in $(seq 1 "$k"); do hosts+=("$subnet.$((i + 1)) $prefix$i"); done
    [ -z "$alias" ] || hosts+=("$subnet.1 $alias")

    for i in $(seq 1 "$k"); do
        ns=$prefix$i
        local dir=$state/$ns
        mkdir -p "$dir/disk"
        ip netns add "$ns"
        ip link add "rb-$ns" type veth peer name eth0 netns "$ns"
        ip link set "rb-$ns" master "$bridge" up
        ip -n "$ns" addr add "$subnet.$((i + 1))/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up

        # ip netns exec binds this file over /etc/hosts for the node
        mkdir -p "/etc/netns/$ns"
        printf '%s\n' "${hosts[@]}" >"/etc/netns/$ns/hosts"
        local loop fstype
        if [ -n "$shared" ]; then
            fstype=${shared%%:*}
            loop=${shared#*:}
        else
            fstype=ext4
            truncate -s "$size" "$dir/disk.img"
            loop=$(losetup -f --show "$dir/disk.img")
            echo "$loop" >"$dir/loop"
            mkfs.ext4 -q "$loop"
        fi
        local j bay
        if [ "$disks" -gt 0 ]; then
            mkdir -p "$dir/bays"
            for j in $(seq 1 "$disks"); do
                truncate -s "$disk_size" "$dir/bay-$j.img"
                bay=$(losetup -f --show --direct-io=on "$dir/bay-$j.img")
                ln -sfn "$bay" "$dir/bays/bay-$j"
            done
        fi
        [ "$agents" -eq 1 ] || continue

        local opts=(--coordinator "tcp://$subnet.1:$port" --name "$ns" --root "$dir/disk" --rack vrack)
        [ "$disks" -eq 0 ] || opts+=(--allow-device "$dir/bays/bay-*:wipe=$disks")
        if [ "$keys" -eq 1 ]; then
            "$rb" keygen "$state/keys/agents" --name "$ns" >/dev/null
            opts+=(--key "$state/keys/agents/$ns.key_secret" --coordinator-key "$state/keys/head/head.key")
        fi
        # ip netns exec gives the command a mount namespace of its own (a
        # slave of the host's): the mount is seen by this agent only. sh
        # execs the agent, so $! is the agent's pid.
        # shellcheck disable=SC2016 # the inner sh expands them
        setsid ip netns exec "$ns" sh -c 'mount -t "$1" "$2" "$3" && shift 3 && exec "$@"' \
            sh "$fstype" "$loop" "$dir/disk" "$agent" "${opts[@]}" </dev/null >"$dir/agent.log" 2>&1 &
        echo $! >"$dir/agent.pid"
    done

    # each agent is up once its shell has become rackbench-agent
    for i in $(seq 1 "$k"); do
        [ "$agents" -eq 1 ] || break
        ns=$prefix$i
        local pid t
        pid=$(cat "$state/$ns/agent.pid")
        for t in $(seq 1 400); do
            alive "$pid" || break
            [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = rackbench-agent ] && break
            sleep 0.05
        done
        if ! alive "$pid" || [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != rackbench-agent ]; then
            sed 's/^/  /' "$state/$ns/agent.log" >&2
            die "the agent of $ns did not start (log above, in $state/$ns/agent.log); '$me down' removes the rack"
        fi
    done
    trap - ERR

    if [ "$agents" -eq 0 ]; then
        note "$k nodes up without agents: ${prefix}1..$prefix$k at $subnet.2..$subnet.$((k + 1)), bridge $bridge at $subnet.1"
        note "each node: a $size ext4 file system on the loop device in $state/${prefix}I/loop, not mounted"
        note "remove everything: $me down"
        return 0
    fi
    [ "$keys" -eq 1 ] && key_opts_head=(--key "$state/keys/head/head.key_secret" --allow-keys "$state/keys/agents")
    note "$k nodes up: ${prefix}1..$prefix$k at $subnet.2..$subnet.$((k + 1)), bridge $bridge at $subnet.1"
    if [ -n "$shared" ]; then
        note "each node: $shared mounted at $state/${prefix}I/disk (inside its agent's mount namespace), rack vrack"
    else
        note "each node: a $size ext4 file system at $state/${prefix}I/disk (inside its agent's mount namespace), rack vrack"
    fi
    [ "$disks" -eq 0 ] || note "each node: $disks raw disks of $disk_size, $state/${prefix}I/bays/bay-1..$disks, allowed to its agent (:wipe=$disks)"
    if [ "$keys" -eq 1 ]; then
        note "CURVE keys in $state/keys (coordinator: head, agents: one each)"
    else
        note "these binaries know no 'rackbench keygen': running without keys"
    fi
    cat <<EOF

Run a plan (leave 'directory' out, or make it relative: each agent takes a
relative directory below its own disk):

  $me run PLAN [rackbench run options]

which runs:

  $rb run PLAN --expect $k --bind tcp://$subnet.1:$port ${key_opts_head[*]}

Remove everything: $me down
EOF
}

cmd_run() {
    [ $# -ge 1 ] || usage
    load_env || die "no virtual rack (no $state/rack.env): '$me up K' first"
    [ "${AGENTS:-1}" -eq 1 ] || die "this rack has no agents (up --no-agents): what runs on its nodes was started by another script"
    local plan=$1
    shift
    local opts=(--expect "$K" --bind "tcp://$SUBNET.1:$PORT")
    [ "$KEYS" -eq 1 ] && opts+=(--key "$state/keys/head/head.key_secret" --allow-keys "$state/keys/agents")
    exec "$rb" run "$plan" "${opts[@]}" "$@"
}

cmd_status() {
    load_env || { note "no virtual rack (no $state/rack.env)"; return 1; }
    local i ns pid st=0
    if [ "${AGENTS:-1}" -eq 0 ]; then
        note "$K nodes, prefix $PREFIX, no agents (up --no-agents)"
    else
        note "$K nodes, prefix $PREFIX, coordinator tcp://$SUBNET.1:$PORT, keys: $([ "$KEYS" -eq 1 ] && echo yes || echo no)"
    fi
    for i in $(seq 1 "$K"); do
        ns=$PREFIX$i
        pid=$(cat "$state/$ns/agent.pid" 2>/dev/null || echo none)
        if [ "${AGENTS:-1}" -eq 0 ]; then
            echo "  $ns $SUBNET.$((i + 1)) $(cat "$state/$ns/loop" 2>/dev/null), no agent"
        elif [ "$pid" != none ] && alive "$pid"; then
            echo "  $ns $SUBNET.$((i + 1)) $(cat "$state/$ns/loop" 2>/dev/null) agent pid $pid"
        else
            echo "  $ns $SUBNET.$((i + 1)) agent not running (log: $state/$ns/agent.log)"
            st=1
        fi
    done
    return $st
}

# down: removes whatever exists of a rack, in reverse order: agents (by
# recorded pid), mounts, loop devices, namespaces and veths, the bridge, the
# state folder. Safe to run after a partial up, and twice.
cmd_down() {
    local prefix=vr
    while [ $# -gt 0 ]; do
        case "$1" in
        --prefix) prefix=${2:?--prefix NAME}; shift 2 ;;
        *) usage ;;
        esac
    done
    need_root_and_tools
    if load_env; then prefix=$PREFIX; fi
    local bridge=rb${prefix}0 d pid t ns dev link

    for d in "$state/$prefix"[0-9]*; do
        [ -f "$d/agent.pid" ] || continue
        pid=$(cat "$d/agent.pid")
        # only a process that is still our agent (pids are reused)
                if alive "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "--root $d/disk"; then
            stop_pid "$pid" "the agent of $(basename "$d")"
        fi
    done
    # the disks live in the agents' mount namespaces and went with them; a
    # mount under the state folder in the host's namespace is unmounted too
    awk -v s="$state/" 'index($2, s) == 1 { print $2 }' /proc/self/mounts | sort -r |
        while read -r m; do umount "$m" && note "unmounted $m"; done
    for d in "$state/$prefix"[0-9]*; do
        for img in "$d"/bay-*.img; do
            [ -f "$img" ] || continue
            for dev in $(losetup -j "$img" | cut -d: -f1); do
                losetup -d "$dev" 2>/dev/null && note "detached $dev"
            done
            rm -f "$img"
        done
        rm -rf "$d/bays"
        [ -f "$d/disk.img" ] || continue
        for dev in $(losetup -j "$d/disk.img" | cut -d: -f1); do
            for t in $(seq 1 50); do
                losetup -d "$dev" 2>/dev/null && break
                sleep 0.1
            done
            note "detached $dev"
        done
    done
    for ns in $(ip netns list 2>/dev/null | awk '{ print $1 }'); do
        [[ "$ns" =~ ^${prefix}[0-9]+$ ]] || continue
        # what a mount left running there (a FUSE client, which unmounts
        # itself on TERM) would keep the namespace and the mount alive
        for pid in $(ip netns pids "$ns" 2>/dev/null); do
                        stop_pid "$pid" "$(cat "/proc/$pid/comm" 2>/dev/null || echo a process) in $ns"
        done
        ip netns del "$ns" && note "removed network namespace $ns"
        if [ -f "/etc/netns/$ns/hosts" ] && [[ "$(head -n1 "/etc/netns/$ns/hosts")" == "$hosts_mark"* ]]; then
            rm -f "/etc/netns/$ns/hosts"
            rmdir "/etc/netns/$ns" 2>/dev/null || true
        fi
    done
    for d in /etc/netns/"$prefix"[0-9]*; do
        if ! [ -f "$d/hosts" ] || [[ "$(head -n1 "$d/hosts")" != "$hosts_mark"* ]]; then continue; fi
        rm -f "$d/hosts"
        rmdir "$d" 2>/dev/null || true
    done
    for link in $(ip -o link show 2>/dev/null | awk -F': ' '{ print $2 }' | cut -d@ -f1); do
        if [[ "$link" =~ ^rb-${prefix}[0-9]+$ ]]; then
            ip link del "$link" 2>/dev/null || true
        fi
    done
    if ip link show "$bridge" >/dev/null 2>&1; then
        ip link del "$bridge" && note "removed bridge $bridge"
    fi
    if [ -d "$state" ]; then
        for d in "$state/$prefix"[0-9]*; do
            [ -d "$d" ] || continue
            rmdir "$d/disk" 2>/dev/null || true
            rm -f "$d/disk.img" "$d/loop" "$d/agent.pid" "$d/agent.log"
            rmdir "$d" 2>/dev/null || note "left $d: it holds other files"
        done
        rm -rf "$state/keys"
        rm -f "$state/rack.env"
        if rmdir "$state" 2>/dev/null; then
            note "removed $state"
        else
            note "left $state: it holds other files"
        fi
    fi
    return 0
}

case "${1:-}" in
up) shift; cmd_up "$@" ;;
run) shift; cmd_run "$@" ;;
status) shift; cmd_status ;;
down) shift; cmd_down "$@" ;;
*) usage ;;
esac
