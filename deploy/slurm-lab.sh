#!/usr/bin/env bash
# A Slurm cluster on one machine: slurmctld and munged in the host namespace,
# and K nodes made by deploy/virtual-rack.sh (network namespaces on a bridge,
# each with an ext4 file system on a loop device), each running a slurmd of
# its own with its own host name. `run` submits deploy/rackbench.sbatch to it
# as one would on a cluster: Slurm starts an agent on every node with srun
# and the coordinator on the first, and they talk over tcp between the
# namespaces. It tests the batch script for real without a cluster.
#
#   deploy/slurm-lab.sh up K [--size 256M] [--prefix sl] [--subnet 10.80.0] [--port 16817]
#   deploy/slurm-lab.sh run [--sbatch-option=VALUE ...] PLAN [RACKS]
#   deploy/slurm-lab.sh status
#   deploy/slurm-lab.sh down [--prefix sl]
#
# Node i is PREFIXi at SUBNET.(i+1) (its `hostname -s` too, in a UTS
# namespace of its own); the bridge holds SUBNET.1, where slurmctld listens
# on --port (slurmd on --port + 1 in each node). Every node resolves every
# node's name (/etc/netns/PREFIXi/hosts), so the batch script's
# tcp://FIRST-NODE:PORT works as on a cluster. Each slurmd runs in a mount
# namespace of its own where its node's disk is mounted at STATE/disk: the
# jobs' RB_ROOT is that one path on every node, and each node writes to its
# own disk (the host sees an empty folder). The rest of the file system is
# the host's, so the submit folder is shared storage, as the batch script
# needs.
#
# `run` submits the batch script with sbatch --wait --no-requeue --nodes=K
# (a job whose launch failed ends, rather than waiting held), RB_BIN,
# RB_ROOT=STATE/disk and RB_PORT (--port + 2) set, from the current folder
# (the submit folder: run folders go to runs/ there, the job's output to
# rackbench-JOBID.out); sbatch options go before PLAN, each as one word
# (--time=5, --output=FILE). It prints the job's output when the job ends
# and exits with the job's exit code. Slurm's own commands reach the lab
# with SLURM_CONF=STATE/slurm.conf, as `status` shows.
#
# Everything the lab makes lives in STATE: slurm.conf, the munge key,
# slurmctld's state, each node's log (STATE/nodes/PREFIXi), and the rack
# (STATE/rack); but for the munge socket and the slurmds' spool folders,
# where slurmstepd makes its sockets: a socket's path has at most 107 bytes,
# so they are in a folder of their own with a short name, /run/rbslurm.XXXXXX
# (/tmp without /run). Nothing under /etc/slurm or /etc/munge is read or
# changed, and no system munged or slurmd is used.
#
# Environment: RB_BIN as for virtual-rack.sh; RB_SLAB_STATE, the state
# folder (default build/slurm-lab of this repository).
#
# Needs root, slurmctld, slurmd, sbatch/srun/scontrol/sinfo (slurm-client)
# and munged (munge), and what virtual-rack.sh needs. `down` removes
# whatever exists of a lab (jobs, every daemon by pid, what still runs in the
# namespaces, the rack, the state folder): also after a failed `up`, and
# twice.
# K, PREFIX, SUBNET, PORT, RUNDIR, MUNGED_PID, SLURMCTLD_PID come from STATE/lab.env:
# shellcheck disable=SC2153
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
bin=$(realpath -m "${RB_BIN:-$repo/build/bin}")
state=$(realpath -m "${RB_SLAB_STATE:-$repo/build/slurm-lab}")
vrack=$here/virtual-rack.sh
conf=$state/slurm.conf
me=deploy/slurm-lab.sh

tag=slurm-lab
# shellcheck source=deploy/lib.sh
. "$here/lib.sh"

rack() { RB_VRACK_STATE="$state/rack" RB_BIN="$bin" "$vrack" "$@"; }

load_env() {
    [ -f "$state/lab.env" ] || return 1
    # shellcheck source=/dev/null
    . "$state/lab.env"
}

# ours PID WHAT: PID is alive and still the daemon this lab started (pids
# are reused): its command line names this lab's state folder.
ours() {
    [ -n "$1" ] && alive "$1" && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qF "$state/"
}

# tail_log FILE: the last lines of a daemon's log, indented, on stderr.
tail_log() {
    [ -f "$1" ] || return 0
    echo "  $1:" >&2
    tail -n 15 "$1" | sed 's/^/    /' >&2
}

# up_failed WHAT: says what failed in up, and how to remove what was made.
up_failed() { die "$*; '$me down' removes what was made"; }

# wait_for SECONDS PIDS CMD...: runs CMD every 0.2 s until it succeeds; 1 if
# it never did, or as soon as one of PIDS (space separated, "-" for none)
# has died: a daemon that died will not answer.
wait_for() {
    local n=$(($1 * 5)) pids=$2 _ p
    shift 2
    for _ in $(seq 1 "$n"); do
        "$@" >/dev/null 2>&1 && return 0
        for p in $pids; do
            [ "$p" = - ] || alive "$p" || return 1
        done
        sleep 0.2
    done
    return 1
}

# nodes_idle: every node of the lab has registered and is idle.
nodes_idle() {
    local states
    states=$(SLURM_CONF=$conf sinfo -h -N -o '%t' 2>/dev/null) || return 1
    [ "$(grep -c '^idle$' <<<"$states")" -eq "$K" ]
}

write_conf() {
    local i host=$1
    cat >"$conf" <<EOF
# Written by $me: a Slurm cluster of network namespaces on one machine.
ClusterName=rblab
SlurmctldHost=$host($SUBNET.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$RUNDIR/munge.socket
StateSaveLocation=$state/ctld
SlurmctldPidFile=$state/ctld/slurmctld.pid
SlurmctldLogFile=$state/ctld/slurmctld.log
SlurmdSpoolDir=$RUNDIR/%n
SlurmdPidFile=$state/nodes/%n/slurmd.pid
SlurmdLogFile=$state/nodes/%n/slurmd.log
PlugStackConfig=$state/plugstack.conf
# No cgroups: processes are tracked by their parents, tasks are not bound.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# A node that finds other hardware than this file says keeps running
SlurmdParameters=config_overrides
ReturnToService=2
MailProg=/bin/true
KillWait=5
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=60
EOF
    # every node is this machine: its CPUs as slurmd counts them
    local hw
    hw=$(slurmd -C 2>/dev/null | sed -n '1s/^NodeName=[^ ]* \(CPUs=.*ThreadsPerCore=[0-9]*\).*/\1/p')
    [ -n "$hw" ] || hw="CPUs=$(nproc)"
    for i in $(seq 1 "$K"); do
        echo "NodeName=$PREFIX$i NodeAddr=$SUBNET.$((i + 1)) $hw State=UNKNOWN" >>"$conf"
    done
    echo "PartitionName=lab Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$conf"
    : >"$state/plugstack.conf"
    # slurmd 22.05 loads a cgroup plugin whatever the other plugins are, and
    # autodetection finds no cgroup file system in the fresh /sys of a
    # namespace; v1 only looks for its controllers when a plugin uses one
    echo "CgroupPlugin=cgroup/v1" >"$state/cgroup.conf"
}

cmd_up() {
    local k="" size=256M prefix=sl port=16817 subnet=10.80.0
    while [ $# -gt 0 ]; do
        case "$1" in
        --size) size=${2:?--size SIZE}; shift 2 ;;
        --prefix) prefix=${2:?--prefix NAME}; shift 2 ;;
        --port) port=${2:?--port N}; shift 2 ;;
        --subnet) subnet=${2:?--subnet A.B.C}; shift 2 ;;
        -*) usage ;;
        *) [ -z "$k" ] || usage; k=$1; shift ;;
        esac
    done
    if ! [[ "$k" =~ ^[0-9]+$ ]] || [ "$k" -lt 1 ] || [ "$k" -gt 64 ]; then
        die "up K: K from 1 to 64 nodes"
    fi
    if ! [[ "$port" =~ ^[0-9]+$ ]] || [ "$port" -lt 1024 ] || [ "$port" -gt 65533 ]; then
        die "--port $port: 1024 to 65533 (slurmctld's; slurmd takes the next, the coordinator the one after)"
    fi
    [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, loop devices, mounts, Slurm's daemons)"
    local missing=() t
    for t in slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client srun:slurm-client \
        scontrol:slurm-client sinfo:slurm-client squeue:slurm-client scancel:slurm-client \
        munged:munge munge:munge unmunge:munge unshare:util-linux hostname:hostname; do
        command -v "${t%%:*}" >/dev/null 2>&1 || missing+=("${t%%:*} (${t#*:})")
    done
    [ ${#missing[@]} -eq 0 ] || die "missing: ${missing[*]}; apt-get install the packages named"
    if [ ! -x "$bin/rackbench-agent" ] || [ ! -x "$bin/rackbench" ]; then
        die "no rackbench binaries in $bin: build first (deploy/build.sh) or set RB_BIN"
    fi
    [ -e "$state/lab.env" ] && die "a lab exists already ($state/lab.env): '$me status' shows it, '$me down' removes it"

    local host base=/run rundir
    host=$(hostname -s)
    if [ ! -d "$base" ] || [ ! -w "$base" ]; then base=/tmp; fi
    mkdir -p "$state/ctld" "$state/munge" "$state/nodes" "$state/disk"
    rundir=$(mktemp -d "$base/rbslurm.XXXXXX")
    cat >"$state/lab.env" <<ENV
K=$k
PREFIX=$prefix
SUBNET=$subnet
PORT=$port
RUNDIR=$rundir
ENV
    load_env
    trap 'echo "slurm-lab: up failed; '"'"'$me down'"'"' removes what was made (logs in $state)" >&2' ERR

    # the nodes: namespaces, addresses, names, disks; this host's name
    # resolves to the bridge in them (slurmctld's host)
    rack up "$k" --no-agents --size "$size" --prefix "$prefix" --subnet "$subnet" \
        --port "$((port + 2))" --host-alias "$host" >/dev/null

    # munged: a key and a socket of the lab's own. The socket's folder must
    # be open to all (munged checks); the namespaces reach it by its path.
    chmod 755 "$state/munge" "$RUNDIR"
    (
        umask 077
        head -c 1024 /dev/urandom >"$state/munge/munge.key"
    )
    setsid munged -F --socket="$RUNDIR/munge.socket" --key-file="$state/munge/munge.key" \
        --pid-file="$state/munge/munged.pid" --seed-file="$state/munge/munged.seed" \
        --log-file="$state/munge/munged.log" </dev/null >"$state/munge/munged.out" 2>&1 &
    echo "MUNGED_PID=$!" >>"$state/lab.env"
    load_env
    # shellcheck disable=SC2016 # the inner sh expands it
    if ! wait_for 10 "$MUNGED_PID" sh -c 'munge -n -S "$1" | unmunge -S "$1"' _ "$RUNDIR/munge.socket"; then
        tail_log "$state/munge/munged.out"
        up_failed "munged did not answer on $RUNDIR/munge.socket (log above)"
    fi

    write_conf "$host"
    setsid slurmctld -D -f "$conf" </dev/null >"$state/ctld/slurmctld.out" 2>&1 &
    echo "SLURMCTLD_PID=$!" >>"$state/lab.env"
    load_env
    if ! wait_for 20 "$SLURMCTLD_PID" env SLURM_CONF="$conf" scontrol ping; then
        tail_log "$state/ctld/slurmctld.log"
        tail_log "$state/ctld/slurmctld.out"
        up_failed "slurmctld did not answer at $subnet.1:$port (logs above)"
    fi

    # a slurmd per node, in the node's network namespace, with its own host
    # name (UTS namespace) and its disk mounted at STATE/disk in its own
    # mount namespace (the one ip netns exec makes); sh execs slurmd, so $!
    # is slurmd's pid
    local i ns loop
    for i in $(seq 1 "$k"); do
        ns=$prefix$i
        loop=$(cat "$state/rack/$ns/loop")
        mkdir -p "$state/nodes/$ns" "$RUNDIR/$ns"
        # shellcheck disable=SC2016 # the inner sh expands them
        setsid ip netns exec "$ns" unshare --uts sh -c \
            'hostname "$1" && mount -t ext4 "$2" "$3" && shift 3 && exec "$@"' \
            sh "$ns" "$loop" "$state/disk" slurmd -D -f "$conf" \
            </dev/null >"$state/nodes/$ns/slurmd.out" 2>&1 &
        echo "$!" >"$state/nodes/$ns/pid"
    done
    if ! wait_for 60 "$(cat "$state/nodes"/*/pid | tr '\n' ' ')" nodes_idle; then
        SLURM_CONF=$conf sinfo -N -o '%N %t %E' >&2 || true
        for i in $(seq 1 "$k"); do
            tail_log "$state/nodes/$prefix$i/slurmd.out"
            tail_log "$state/nodes/$prefix$i/slurmd.log"
        done
        tail_log "$state/ctld/slurmctld.log"
        up_failed "not every slurmd registered as idle within 60 s (nodes and logs above)"
    fi
    trap - ERR
    note "$k nodes up: ${prefix}1..$prefix$k at $subnet.2..$subnet.$((k + 1)), slurmctld at $subnet.1:$port"
    note "each node: its own slurmd, host name and $size ext4 disk at $state/disk (RB_ROOT)"
    cat <<EOF

Run deploy/rackbench.sbatch on every node (from the submit folder):

  $me run PLAN [RACKS]

Slurm's commands: SLURM_CONF=$conf sinfo (squeue, scontrol, sbatch)
Remove everything: $me down
EOF
}

cmd_run() {
    load_env || die "no lab (no $state/lab.env): '$me up K' first"
    local opts=()
    while [ $# -gt 0 ] && [[ "$1" == -* ]]; do
        [[ "$1" == --*=* ]] || die "run: sbatch option $1: give it as one word, --name=VALUE"
        opts+=("$1")
        shift
    done
    if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
    [ -f "$1" ] || die "run: no plan $1"
    [ $# -lt 2 ] || [ -f "$2" ] || die "run: no rack file $2"
    local out rc=0 job
    out=$(mktemp)
    # sbatch exports this environment to the job (--export=ALL); it says the
    # job's id at once and returns the job's exit code when it ends
    SLURM_CONF=$conf RB_BIN=$bin RB_ROOT=$state/disk RB_PORT=$((PORT + 2)) \
        sbatch --wait --no-requeue --nodes="$K" "${opts[@]}" "$here/rackbench.sbatch" "$@" | tee "$out" || rc=$?
    job=$(sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p' "$out")
    rm -f "$out"
    [ -n "$job" ] || die "sbatch submitted no job (exit $rc)"
    local info path st
    info=$(SLURM_CONF=$conf scontrol show job "$job" 2>/dev/null || true)
    path=$(sed -n 's/^ *StdOut=//p' <<<"$info")
    st=$(grep -o 'JobState=[A-Z_]*' <<<"$info" | head -n1)
    if [ -n "$path" ] && [ -f "$path" ]; then
        note "job $job ended (${st:-JobState unknown}, exit $rc); its output, $path:"
        cat "$path"
    fi
    # a job Slurm ended itself (its launch failed, a node failed, it ran out
    # of time) has exit code 0 of its own: not a run that went well
    case "$st" in
    JobState=COMPLETED | JobState=FAILED | "") ;;
    *)
        echo "$tag: job $job did not run to its end: $st $(grep -o 'Reason=[^ ]*' <<<"$info" | head -n1)" \
            "(slurmd logs: $state/nodes/*/slurmd.log)" >&2
        return 3
        ;;
    esac
    return "$rc"
}

cmd_status() {
    load_env || { note "no lab (no $state/lab.env)"; return 1; }
    local i ns pid st=0
    note "$K nodes, prefix $PREFIX, slurmctld at $SUBNET.1:$PORT; SLURM_CONF=$conf"
    if ours "${MUNGED_PID:-}"; then echo "  munged pid $MUNGED_PID"; else echo "  munged not running" && st=1; fi
    if ours "${SLURMCTLD_PID:-}"; then echo "  slurmctld pid $SLURMCTLD_PID"; else echo "  slurmctld not running" && st=1; fi
    for i in $(seq 1 "$K"); do
        ns=$PREFIX$i
        pid=$(cat "$state/nodes/$ns/pid" 2>/dev/null || true)
        if ours "$pid"; then
            echo "  $ns $SUBNET.$((i + 1)) slurmd pid $pid"
        else
            echo "  $ns $SUBNET.$((i + 1)) slurmd not running (log: $state/nodes/$ns/slurmd.log)"
            st=1
        fi
    done
    SLURM_CONF=$conf sinfo -N -o '%N %t %E' 2>&1 | sed 's/^/  /' || st=1
    SLURM_CONF=$conf squeue 2>&1 | sed 's/^/  /' || st=1
    return $st
}

# down: jobs first (so that they can clean up), then the slurmds, whatever
# is left in the namespaces (virtual-rack.sh down), slurmctld, munged, the
# rack, the state folder.
cmd_down() {
    local prefix=sl d pid
    while [ $# -gt 0 ]; do
        case "$1" in
        --prefix) prefix=${2:?--prefix NAME}; shift 2 ;;
        *) usage ;;
        esac
    done
    [ "$(id -u)" -eq 0 ] || die "needs root"
    if load_env; then prefix=$PREFIX; fi
    if ours "${SLURMCTLD_PID:-}" && [ -f "$conf" ]; then
        local jobs
        jobs=$(SLURM_CONF=$conf squeue -h -o %i 2>/dev/null || true)
        if [ -n "$jobs" ]; then
            # shellcheck disable=SC2086 # one job id a word
            SLURM_CONF=$conf scancel $jobs 2>/dev/null || true
            note "cancelled job(s) $(tr '\n' ' ' <<<"$jobs")"
            # shellcheck disable=SC2016 # the inner sh expands it
            wait_for 30 - sh -c '[ -z "$(SLURM_CONF="$1" squeue -h -o %i)" ]' _ "$conf" ||
                note "jobs still listed after 30 s; their processes are stopped with the namespaces"
        fi
    fi
    for d in "$state/nodes"/*; do
        [ -f "$d/pid" ] || continue
        pid=$(cat "$d/pid")
        if ours "$pid"; then stop_pid "$pid" "slurmd of $(basename "$d")"; fi
    done
    # steps and tasks left in the namespaces, the loop devices, namespaces
    # and bridge (the disks' mounts went with the slurmds' mount namespaces)
    if [ -d "$state/rack" ] || ip netns list 2>/dev/null | grep -qE "^${prefix}[0-9]+( |$)"; then
        rack down --prefix "$prefix" | sed 's/^virtual-rack/slurm-lab/'
    fi
    if ours "${SLURMCTLD_PID:-}"; then stop_pid "$SLURMCTLD_PID" slurmctld; fi
    if ours "${MUNGED_PID:-}"; then stop_pid "$MUNGED_PID" munged; fi
    if [ -d "$state" ]; then
        if mountpoint -q "$state/disk" 2>/dev/null; then
            umount "$state/disk" && note "unmounted $state/disk"
        fi
        rmdir "$state/disk" 2>/dev/null || true
        rm -rf "$state/ctld" "$state/munge" "$state/nodes"
        # the sockets' folder, if it is one up made
        if [[ "${RUNDIR:-}" =~ ^/(run|tmp)/rbslurm\.[A-Za-z0-9]{6}$ ]] && [ -d "$RUNDIR" ]; then
            rm -rf "$RUNDIR"
        fi
        rm -f "$conf" "$state/plugstack.conf" "$state/cgroup.conf" "$state/lab.env"
        if rmdir "$state" 2>/dev/null; then note "removed $state"; else note "left $state: it holds other files"; fi
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
