#!/usr/bin/env bash
# deploy/rackbench-agent.service, checked two ways (ctest runs each):
#
#   test_agent_unit.sh verify BIN_DIR SCRATCH
#   test_agent_unit.sh boot BIN_DIR SCRATCH
#
# verify: `systemd-analyze verify` on the unit as shipped, its ExecStart
# pointed at the built agent (a copy: the unit names /usr/bin) and its
# Documentation= found in deploy/man; any line it prints fails the test (it
# exits 0 on unknown keys and bad values, which it only warns about). A
# copy with a misspelt key must make it speak, or the check is blind.
# deploy/agent.conf must show every option of --help that is a key of the
# file, and be taken by the agent as shipped and with every key set; rackbench-agent.sysusers and .tmpfiles by
# systemd-sysusers and systemd-tmpfiles (into a scratch root; as root only).
# Last, `systemd-analyze security --offline=yes`: the unit's exposure must
# stay at most RB_UNIT_EXPOSURE_MAX (3.0: the 2.8 measured with systemd 252
# and a margin). Skipped (77) without systemd-analyze, or, after the rest
# passed, when its security has no --offline (systemd before 250).
#
# boot: the unit run for real by systemd as PID 1 of a container
# (systemd-nspawn --volatile=yes: an empty root with this machine's /usr
# read-only, systemd.unit= a target that needs only the agent), with
# /etc/rackbench/agent.conf, CURVE keys and the ReadWritePaths= drop-in for
# the root /data as docs/deploy.md sets them up, /data from the scratch
# folder. The agent must run with the unit's hardening (NoNewPrivs, its
# capabilities bounded to the unit's three, a seccomp filter, / and
# /proc/sys read-only, /data and /proc/sys/vm/drop_caches writable, a
# private /tmp, an inaccessible /home, the unit's LimitNOFILE as far as
# this machine's hard limit allows), serve a plan from a coordinator on the
# host over tcp with keys, write its bytes to /data and leave nothing
# there, drop the page cache before its read phase (drop_caches=1: the
# host's, once), run a phase of libaio, io_uring and mmap jobs and one of
# prioclass=1 and nice=-1 (the filter's system calls, CAP_SYS_NICE), and
# still be active with no restart; then `systemctl reload` with no run
# active must make it leave and be started again (a new MainPID, result
# success: exit 75). Skipped (77) without root,
# systemd-nspawn (systemd-container) or a merged /usr. The container is
# stopped, by pid, whatever happens.
set -euo pipefail
. "$(dirname "$0")/it_lib.sh"
. "$(dirname "$0")/it_container.sh"

mode=${1:?usage: test_agent_unit.sh verify|boot BIN_DIR SCRATCH}
bin=$(realpath "${2:?BIN_DIR}")
scratch=${3:?SCRATCH}
here=$(cd "$(dirname "$0")" && pwd)
deploy=$(realpath "$here/../../deploy")
unit=$deploy/rackbench-agent.service
port=17893
exposure_max=${RB_UNIT_EXPOSURE_MAX:-3.0}
agent_cmd="/opt/rackbench/rackbench-agent --config /etc/rackbench/agent.conf"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
skip() {
    echo "skipped: $*"
    exit 77
}

rm -rf "$scratch"
mkdir -p "$scratch"

verify() {
    command -v systemd-analyze >/dev/null || skip "no systemd-analyze (systemd)"
    [ -x "$bin/rackbench-agent" ] || fail "no built agent in $bin"
    local copy=$scratch/rackbench-agent.service out rc=0
    sed "s#^ExecStart=/usr/bin/rackbench-agent #ExecStart=$bin/rackbench-agent #" "$unit" >"$copy"
    grep -q "^ExecStart=$bin/rackbench-agent --config /etc/rackbench/agent.conf$" "$copy" ||
        fail "$unit: no 'ExecStart=/usr/bin/rackbench-agent --config /etc/rackbench/agent.conf' line"
    # Documentation=man:rackbench-agent(8), found where man looks
    mkdir -p "$scratch/man/man8"
    cp "$deploy/man/rackbench-agent.8" "$scratch/man/man8/"
    out=$(MANPATH=$scratch/man systemd-analyze verify "$copy" 2>&1) || rc=$?
    if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
        echo "$out" >&2
        fail "systemd-analyze verify on $unit (ExecStart at the build) exited $rc and said the above"
    fi
    # the same check on a copy with a misspelt key must not stay silent
    sed 's/^ProtectSystem=/ProtectSytem=/' "$copy" >"$scratch/misspelt.service"
    out=$(MANPATH=$scratch/man systemd-analyze verify "$scratch/misspelt.service" 2>&1) || true
    grep -q "ProtectSytem" <<<"$out" ||
        fail "systemd-analyze verify said nothing of a misspelt key: this check would miss one (it said: $out)"
    echo "systemd-analyze verify: $unit is clean"

    # the packaged agent.conf, as shipped and with every key it shows set (--help
    # after --config: the file is read whole, its values checked, nothing done)
    "$bin/rackbench-agent" --config "$deploy/agent.conf" --help >/dev/null ||
        fail "rackbench-agent does not take $deploy/agent.conf as shipped (said above)"
    sed 's/^#\([a-z-]* = \)/\1/' "$deploy/agent.conf" >"$scratch/agent.conf"
    local keys shown options missing
    keys=$(grep -c '^[a-z]' "$scratch/agent.conf")
    # every option that is a key of the file (not one that says what to do)
    shown=$(sed -n 's/^\([a-z-]*\) = .*/\1/p' "$scratch/agent.conf" | sort -u)
    options=$("$bin/rackbench-agent" --help | sed -n 's/^  --\([a-z-]*\).*/\1/p' |
        grep -vxE 'config|once|cleanup|list-devices|keygen|run|help|version' | sort -u)
    missing=$(comm -13 <(echo "$shown") <(echo "$options") | tr '\n' ' ')
    [ -z "$missing" ] || fail "$deploy/agent.conf does not show the keys: $missing"
    "$bin/rackbench-agent" --config "$scratch/agent.conf" --help >/dev/null ||
        fail "rackbench-agent does not take $deploy/agent.conf with its keys set (said above)"
    echo "agent.conf: taken as shipped and with its $keys keys set"

    # sysusers.d and tmpfiles.d, into a scratch root
    if [ "$(id -u)" -eq 0 ] && command -v systemd-sysusers >/dev/null && command -v systemd-tmpfiles >/dev/null; then
        mkdir -p "$scratch/root/etc"
        systemd-sysusers --root="$scratch/root" "$deploy/rackbench-agent.sysusers" >/dev/null 2>&1 ||
            fail "systemd-sysusers refused $deploy/rackbench-agent.sysusers"
        grep -q '^rackbench:x:[0-9]*:[0-9]*:[^:]*:/var/lib/rackbench:/usr/sbin/nologin$' "$scratch/root/etc/passwd" ||
            fail "systemd-sysusers made no rackbench user: $(cat "$scratch/root/etc/passwd")"
        systemd-tmpfiles --root="$scratch/root" --create "$deploy/rackbench-agent.tmpfiles" ||
            fail "systemd-tmpfiles refused $deploy/rackbench-agent.tmpfiles"
        [ "$(stat -c %a "$scratch/root/etc/rackbench")" = 700 ] || fail "tmpfiles: /etc/rackbench is not 0700"
        echo "sysusers.d and tmpfiles.d: the rackbench user, /etc/rackbench 0700"
    else
        echo "sysusers.d and tmpfiles.d not tried: needs root, systemd-sysusers and systemd-tmpfiles"
    fi

    # the sandbox's exposure, as systemd-analyze security scores it
    out=$(systemd-analyze security --offline=yes "$copy" 2>&1) || {
        echo "$out" | tail -n 3
        skip "systemd-analyze security has no --offline here (systemd before 250); the rest passed"
    }
    local score
    score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p' <<<"$out")
    [ -n "$score" ] || fail "no exposure level in systemd-analyze security's output: $out"
    if awk -v s="$score" -v m="$exposure_max" 'BEGIN { exit !(s > m) }'; then
        grep '✗' <<<"$out" >&2 || true
        fail "systemd-analyze security: exposure $score, above $exposure_max (what it counts is above)"
    fi
    echo "systemd-analyze security: exposure $score (at most $exposure_max)"
    rm -rf "$scratch"
}

boot() {
    [ "$(id -u)" -eq 0 ] || skip "needs root (systemd-nspawn)"
    command -v systemd-nspawn >/dev/null || skip "no systemd-nspawn (systemd-container)"
    command -v nsenter >/dev/null || skip "no nsenter (util-linux)"
    if [ ! -L /lib ] || [ ! -L /bin ]; then
        skip "needs a merged /usr (the container gets this machine's /usr only)"
    fi
    if [ ! -x "$bin/rackbench-agent" ] || [ ! -x "$bin/rackbench" ]; then fail "no built rackbench in $bin"; fi
    command -v python3 >/dev/null || skip "no python3 (to read summary.json)"

    local name=unit$$ etc=$scratch/etc-rackbench units=$scratch/etc-systemd data=$scratch/data
    mkdir -p "$etc" "$units" "$data" "$scratch/allowed"
    "$bin/rackbench" keygen "$etc" --name head >/dev/null
    "$bin/rackbench" keygen "$etc" --name "$name" >/dev/null
    cp "$etc/$name.key" "$scratch/allowed/"
    # as docs/deploy.md writes them: agent.conf, and the root in a drop-in
    cat >"$etc/agent.conf" <<EOF
coordinator = tcp://127.0.0.1:$port
name = $name
rack = r01
root = /data
key = /etc/rackbench/$name.key_secret
coordinator-key = /etc/rackbench/head.key
EOF
    chmod 700 "$etc"
    mkdir -p "$units/rackbench-agent.service.d"
    printf '%s\n' "[Service]" "ReadWritePaths=/data" >"$units/rackbench-agent.service.d/roots.conf"
    # the unit as shipped, but for where the binary is
    sed "s#^ExecStart=/usr/bin/rackbench-agent #ExecStart=/opt/rackbench/rackbench-agent #" \
        "$unit" >"$units/rackbench-agent.service"
    grep -q "^ExecStart=$agent_cmd\$" "$units/rackbench-agent.service" || fail "$unit: no ExecStart line"
    printf '%s\n' "[Unit]" "Description=the rackbench agent alone" \
        "Requires=rackbench-agent.service" "After=rackbench-agent.service" >"$units/rbtest.target"

    trap stop_container EXIT
    # (nspawn keeps CAP_SYS_RAWIO, which the unit grants, from a container
    # unless told)
    setsid systemd-nspawn --quiet --register=no --keep-unit --console=pipe -D / --volatile=yes \
        -M "$name" --bind-ro="$units:/etc/systemd/system" --bind-ro="$etc:/etc/rackbench" \
        --bind="$data:/data" --bind-ro="$bin:/opt/rackbench" \
        --capability=CAP_SYS_RAWIO \
        -b -- systemd.unit=rbtest.target systemd.firstboot=off \
        </dev/null >"$scratch/nspawn.log" 2>&1 &
    nspawn_pid=$!

    # the agent, once the container's systemd has started it
    local pid="" _
    for _ in $(seq 1 300); do
        pid=$(pgrep -f "^$agent_cmd\$" | head -n1 || true)
        [ -n "$pid" ] && break
        kill -0 "$nspawn_pid" 2>/dev/null || break
        sleep 0.2
    done
    if [ -z "$pid" ]; then
        sed 's/^/  /' "$scratch/nspawn.log" >&2
        in_container journalctl --no-pager -u rackbench-agent >&2 || true
        fail "the container's systemd did not start rackbench-agent.service in 60 s (log above)"
    fi
    echo "agent pid $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline")"
    [ -z "${RB_UNIT_DEBUG:-}" ] || cat "/proc/$pid/mountinfo"

    # the hardening, as the kernel sees it
    grep -q '^NoNewPrivs:[[:space:]]*1$' "/proc/$pid/status" || fail "NoNewPrivileges=yes: NoNewPrivs is not 1"
    # CAP_DAC_READ_SEARCH (2), CAP_SYS_RAWIO (17), CAP_SYS_PTRACE (19), CAP_SYS_NICE (23), no other
    grep -q '^CapBnd:[[:space:]]*00000000008a0004$' "/proc/$pid/status" ||
        fail "CapabilityBoundingSet=: $(grep '^CapBnd' "/proc/$pid/status"), not 00000000008a0004"
    grep -q '^Seccomp:[[:space:]]*2$' "/proc/$pid/status" || fail "SystemCallFilter=: no seccomp filter"
    local opts
    opts=$(awk '$5 == "/" { print $6 }' "/proc/$pid/mountinfo" | tail -n1)
    [[ ",$opts," == *,ro,* ]] || fail "ProtectSystem=strict: / is mounted '$opts' for the agent, not ro"
    opts=$(awk '$5 == "/data" { print $6 }' "/proc/$pid/mountinfo" | tail -n1)
    [[ ",$opts," == *,rw,* ]] || fail "ReadWritePaths=/data: /data is mounted '$opts' for the agent, not rw"
    opts=$(awk '$5 == "/proc/sys" { print $6 }' "/proc/$pid/mountinfo" | tail -n1)
    [[ ",$opts," == *,ro,* ]] || fail "ProtectKernelTunables=yes: /proc/sys is mounted '$opts', not ro"
    opts=$(awk '$5 == "/proc/sys/vm/drop_caches" { print $6 }' "/proc/$pid/mountinfo" | tail -n1)
    [[ ",$opts," == *,rw,* ]] || fail "ReadWritePaths=/proc/sys/vm/drop_caches: it is mounted '$opts', not rw"
    # the top mount at /tmp is systemd's private folder for the service
    opts=$(awk '$5 == "/tmp" { print $4 }' "/proc/$pid/mountinfo" | tail -n1)
    [[ "$opts" == */systemd-private-*-rackbench-agent.service-*/tmp ]] ||
        fail "PrivateTmp=yes: the agent's /tmp is '$opts' of its file system, not a private one"
    # and /home an inaccessible, read-only folder
    opts=$(awk '$5 == "/home" { print $4, $6 }' "/proc/$pid/mountinfo" | tail -n1)
    [[ "$opts" == *inaccessible*\ ro,* ]] || fail "ProtectHome=yes: the agent's /home is '$opts'"
    local hard want soft
    hard=$(ulimit -Hn)
    want=65536
    [ "$hard" = unlimited ] || [ "$hard" -ge "$want" ] || want=$hard
    soft=$(awk '/^Max open files/ { print $4 }' "/proc/$pid/limits")
    [ "$soft" = "$want" ] || fail "LimitNOFILE=65536: the agent may open $soft files, not $want"

    # a plan through it, from a coordinator on the host, with keys
    cat >"$scratch/plan.ini" <<'EOF'
[global]
bs=1M
size=8M
direct=1
filename_format=unit.$jobnum.$filenum

[write]
rw=write

[read]
stonewall
rw=read
drop_caches=1

; the engines' system calls through the unit's filter, and CAP_SYS_NICE
[libaio]
stonewall
rw=write
size=1M
ioengine=libaio
iodepth=4

[io_uring]
rw=write
size=1M
ioengine=io_uring
iodepth=4

[mmap]
rw=write
size=1M
direct=0
ioengine=mmap

[prio]
rw=write
size=1M
prioclass=1
prio=0
nice=-1
EOF
    container_run "$bin/rackbench" "$scratch/plan.ini" "tcp://127.0.0.1:$port" "$etc/head.key_secret" \
        "$scratch/allowed" "$scratch/runs" || fail "the run through the unit's agent failed (above)"
    python3 - "$scratch/runs" "$name" <<'EOF' || fail "summary.json (above)"
import glob, json, sys
runs, name = sys.argv[1], sys.argv[2]
(path,) = glob.glob(runs + "/*/summary.json")
j = json.load(open(path))
assert j["status"] == "ok", j["status"]
(node,) = j["nodes"]
assert (node["name"], node["rack"], node["status"]) == (name, "r01", "ok"), node
assert node["removed_files"] == 1, node
for phase, size in zip(j["phases"], (8 << 20, 8 << 20, 4 << 20)):
    assert phase["bytes"] == size, (phase["name"], phase["bytes"])
    assert phase["errors"] == 0, phase["name"]
assert len(j["phases"]) == 3, [p["name"] for p in j["phases"]]
# drop_caches=1: uid 0 wrote /proc/sys/vm/drop_caches through the sandbox
cache = j["phases"][1]["cache"]
assert (cache["dropped_nodes"], cache["drop_failed_nodes"]) == (1, 0), cache
print("run ok:", [(p["name"], p["bytes"]) for p in j["phases"]])
EOF
    local left
    left=$(find "$data" -mindepth 1 | head -n 5)
    [ -z "$left" ] || fail "the agent left files in /data: $left"
    local state
    state=$(in_container systemctl show rackbench-agent -p ActiveState -p NRestarts | tr '\n' ' ')
    [ "$state" = "ActiveState=active NRestarts=0 " ] || [ "$state" = "NRestarts=0 ActiveState=active " ] ||
        fail "after the run the unit says: $state"
    echo "rackbench-agent.service under systemd: $state"

    # systemctl reload with no run active (what an upgrade does): the agent
    # leaves (exit 75) and systemd starts it again, a clean exit, not a failure
    local pid new="" result
    pid=$(in_container systemctl show rackbench-agent -p MainPID --value)
    in_container systemctl reload rackbench-agent || fail "systemctl reload rackbench-agent"
    for _ in $(seq 1 150); do
        new=$(in_container systemctl show rackbench-agent -p MainPID --value)
        [ "$new" -gt 0 ] && [ "$new" != "$pid" ] &&
            [ "$(in_container systemctl show rackbench-agent -p ActiveState --value)" = active ] && break
        sleep 0.2
    done
    result=$(in_container systemctl show rackbench-agent -p Result --value)
    [ "$new" != "$pid" ] && [ "$result" = success ] ||
        fail "after systemctl reload: MainPID $pid, now '$new', result '$result' (not started again)"
    in_container journalctl --no-pager -u rackbench-agent | grep -q "leaving to be started again (SIGHUP), between runs" ||
        fail "the agent did not say why it left on SIGHUP"
    echo "systemctl reload with no run active: the agent left and was started again (pid $pid -> $new)"

    stop_container
    trap - EXIT
    pgrep -f "^$agent_cmd\$" >/dev/null && fail "the agent outlived its container"
    rm -rf "$scratch"
}

case "$mode" in
verify) verify ;;
boot) boot ;;
*) fail "mode $mode: verify or boot" ;;
esac
