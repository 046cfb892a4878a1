#!/usr/bin/env bash
# The rackbench-agent package installed, run, upgraded and purged on a node
# booted with systemd (issue 35):
#
#   test_package_install.sh SRC SCRATCH
#
# deploy/package.sh builds the packages from a clean copy of SRC, then again
# from a clone of SRC where its working tree's changes (if any) are
# committed, one commit more: a newer version of the same code. lintian must
# find no error in the second agent package. The node is a systemd-nspawn
# container booted with systemd (systemd.unit= a target needing basic.target
# only) whose root is this machine's / under an overlay whose upper layer is
# a tmpfs: dpkg inside sees this machine's packages, so the agent's
# dependencies are there, and whatever it writes goes with the tmpfs (a
# Docker-style policy-rc.d, which would keep dpkg from stopping or starting
# the agent, is removed in it). The head node is this machine: rackbench
# from its package unpacked with dpkg -x (nothing is installed here), keys
# made by its `rackbench keygen` and the node's by `rackbench-agent
# --keygen` in the container, over tcp with CURVE keys (the container
# shares this machine's network).
#
#   1. dpkg -i rackbench-agent inside, /etc/rackbench/agent.conf and the
#      keys as docs/deploy.md writes them, systemctl enable --now, a plan
#      from the head: it must pass, the agent's bytes and build (the
#      package's version) in its summary, the root left empty; the time
#      from dpkg -i to the end of the run's report is printed.
#   2. dpkg -i of the newer package with no run active: postinst reloads
#      the unit, and the agent leaves (exit 75) and is started again on
#      the new binary (a new MainPID, /usr/bin/rackbench-agent not
#      deleted); the plan runs again through it (its build in the summary).
#      Then the same package again while a slower plan runs: the agent
#      serves that run to its end on the same process, says it will leave,
#      and is started again only after it.
#   3. rackbench (the head's package) installed too, then dpkg --purge of
#      the agent: the keys stay, the coordinator's too, and it says so; of
#      rackbench then. The agent stopped, no unit, no agent.conf, no file of
#      `dpkg -L` that the install made, no /etc/rackbench with the keys
#      placed in it, no /var/lib/rackbench, no rackbench user or group; the
#      file-system diff (the overlay's upper layer since before the install)
#      is printed, and any path in it naming rackbench fails.
#
# Skipped (77) without root, systemd-nspawn, nsenter, overlayfs,
# dpkg-buildpackage, debhelper or lintian. The container is stopped by pid
# and the overlay unmounted whatever happens. Minutes (two package builds):
# the nightly run only.
set -euo pipefail
. "$(dirname "$0")/it_lib.sh"
. "$(dirname "$0")/it_container.sh"

src=$(realpath "${1:?usage: test_package_install.sh SRC SCRATCH}")
scratch=${2:?SCRATCH}
port=17894
name=node01

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: needs root (systemd-nspawn, mount)"
    exit 77
fi
it_need systemd-nspawn "systemd-container"
it_need nsenter "util-linux"
it_need dpkg-buildpackage "dpkg-dev"
it_need dh "debhelper"
it_need lintian "lintian"
it_need python3 "python3, to read summary.json"
if ! grep -qw overlay /proc/filesystems; then
    echo "SKIP: the kernel has no overlayfs"
    exit 77
fi

begin=$(date +%s)
rm -rf "$scratch"
mkdir -p "$scratch"
scratch=$(realpath "$scratch")

# now: seconds since the epoch, with the fraction
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# package SRC OUT: deploy/package.sh of SRC into OUT
package() {
    local start
    start=$(now)
    if ! "$1/deploy/package.sh" "$2" >"$2.log" 2>&1; then
        tail -40 "$2.log" >&2
        fail "deploy/package.sh of $1 (all of it in $2.log)"
    fi
    echo "deploy/package.sh ($(basename "$2")): $(since "$start") s"
}
package "$src" "$scratch/v1"
# the newer build: SRC's commit with its working tree's changes, committed
src2=$scratch/src2
git clone -q --shared --no-checkout "$src" "$src2"
git -C "$src2" checkout -q --detach "$(git -C "$src" rev-parse HEAD)"
(cd "$src" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | tar -xf - -C "$src2")
(cd "$src" && git ls-files -z --deleted) | (cd "$src2" && xargs -0 -r rm -f --)
git -C "$src2" add -A
git -C "$src2" -c user.name=rackbench -c user.email=rackbench@invalid \
    commit -q --allow-empty -m "the upgrade's build"
package "$src2" "$scratch/v2"
agent1=$(ls "$scratch"/v1/rackbench-agent_*.deb)
agent2=$(ls "$scratch"/v2/rackbench-agent_*.deb)
v1=$(dpkg-deb -f "$agent1" Version)
v2=$(dpkg-deb -f "$agent2" Version)
dpkg --compare-versions "$v2" gt "$v1" || fail "the second build's version $v2 is not above the first's $v1"
echo "rackbench-agent $v1, then $v2"
lintian --fail-on error "$agent2" >"$scratch/lintian.txt" 2>&1 || {
    cat "$scratch/lintian.txt" >&2
    fail "lintian finds errors in $agent2 (above)"
}

# the head: rackbench unpacked, its keys and the node's (before the overlay
# is mounted: the container sees this machine's files as they were then)
head=$scratch/head
dpkg -x "$(ls "$scratch"/v1/rackbench_*.deb)" "$head"
rb=$head/usr/bin/rackbench
keys=$scratch/keys
mkdir -p "$keys/allowed"
"$rb" keygen "$keys" --name head >/dev/null
ip=$(ip -4 -o addr show scope global 2>/dev/null | awk '{ split($4, a, "/"); print a[1]; exit }')
ip=${ip:-127.0.0.1}
cat >"$scratch/plan.ini" <<'EOF'
[global]
bs=1M
size=8M
direct=1

[write]
rw=write

[read]
stonewall
rw=read
EOF

# the node: this machine's / under a tmpfs, booted
ovl=$scratch/ovl
root=$scratch/root
mkdir -p "$ovl" "$root"
cleanup() {
    stop_container
    mountpoint -q "$root" && umount "$root"
    mountpoint -q "$ovl" && umount "$ovl"
    return 0
}
trap cleanup EXIT
mount -t tmpfs -o size=1g,mode=0755 rbpkg "$ovl"
mkdir "$ovl/upper" "$ovl/work"
mount -t overlay rbpkg -o "lowerdir=/,upperdir=$ovl/upper,workdir=$ovl/work" "$root"
systemd-id128 new >"$root/etc/machine-id"
# a policy-rc.d that forbids starting and stopping services (as in a Docker
# image) would keep dpkg from stopping the agent, and hide a restart
rm -f "$root/usr/sbin/policy-rc.d"
printf '%s\n' "[Unit]" "Description=a node with nothing started" \
    "Requires=basic.target" "After=basic.target" >"$root/etc/systemd/system/rbnode.target"
setsid systemd-nspawn --quiet --register=no --keep-unit --console=pipe -D "$root" -M "rbpkg$$" \
    -b -- systemd.unit=rbnode.target systemd.firstboot=off \
    </dev/null >"$scratch/nspawn.log" 2>&1 &
nspawn_pid=$!
state=""
for _ in $(seq 1 300); do
    state=$(in_container systemctl is-system-running 2>/dev/null) || true
    case "$state" in running | degraded) break ;; esac
    kill -0 "$nspawn_pid" 2>/dev/null || break
    sleep 0.2
done
case "$state" in
running | degraded) ;;
*)
    sed 's/^/  /' "$scratch/nspawn.log" >&2
    fail "the container's systemd is not up in 60 s (is-system-running: '$state')"
    ;;
esac
echo "container booted: $state; the coordinator at tcp://$ip:$port"

# the package's paths that are there before it is installed (/etc, /usr/bin)
dpkg-deb -c "$agent1" | awk '{ sub("^\\./", "/", $6); sub("/$", "", $6); if ($6 != "") print $6 }' \
    >"$scratch/paths"
mapfile -t paths <"$scratch/paths"
# shellcheck disable=SC2016 # expanded by the container's sh
in_container sh -c 'for p; do [ -e "$p" ] && echo "$p"; done; true' sh "${paths[@]}" >"$scratch/paths.before"
mkdir "$root/rbpkg-debs"
cp "$agent1" "$agent2" "$scratch"/v1/rackbench_*.deb "$root/rbpkg-debs/"
head_deb=/rbpkg-debs/$(basename "$(ls "$scratch"/v1/rackbench_*.deb)")
agent1=/rbpkg-debs/$(basename "$agent1")
agent2=/rbpkg-debs/$(basename "$agent2")
(cd "$ovl/upper" && find . -mindepth 1 -type c -printf '%P\n') >"$scratch/whiteouts.before"
touch "$scratch/marker"

# unit: what systemd says of the agent's unit
unit() { in_container systemctl show rackbench-agent -p "$1" --value; }

# run N VERSION [PLAN]: the plan from the head through the node's agent;
# its summary must show the agent's bytes and build VERSION
run() {
    local out=$scratch/run$1
    container_run "$rb" "${3:-$scratch/plan.ini}" "tcp://$ip:$port" "$keys/head.key_secret" "$keys/allowed" "$out" ||
        fail "run $1 failed (above)"
    python3 - "$out" "$name" "$2" "$v1" <<'EOF' || fail "run $1: summary.json (above)"
import glob, json, sys
out, name, version, head = sys.argv[1:]
(path,) = glob.glob(out + "/*/summary.json")
j = json.load(open(path))
assert j["status"] == "ok", j["status"]
assert j["rackbench_build"] == head, (j["rackbench_build"], head)  # the head's package
(node,) = j["nodes"]
assert (node["name"], node["rack"], node["status"]) == (name, "r01", "ok"), node
assert node["build"] == version, (node["build"], version)
assert node["removed_files"] == 2, node  # a file a job
assert [(p["bytes"], p["errors"]) for p in j["phases"]] == [(8 << 20, 0)] * 2, j["phases"]
print("run ok: agent", node["build"], [(p["name"], p["bytes"]) for p in j["phases"]])
EOF
    local left
    left=$(find "$root/var/lib/rackbench" -mindepth 1 | head -n 5)
    [ -z "$left" ] || fail "run $1: the agent left files in its root: $left"
}

# 1. install, configure, enable, run
t0=$(now)
in_container dpkg -i "$agent1" >"$scratch/install1.txt" 2>&1 || {
    cat "$scratch/install1.txt" >&2
    fail "dpkg -i $agent1 in the container"
}
[ "$(unit UnitFileState)" = disabled ] || fail "installed, the unit is '$(unit UnitFileState)', not disabled"
[ "$(unit ActiveState)" = inactive ] || fail "installed, the unit is '$(unit ActiveState)', not inactive"
in_container getent passwd rackbench >/dev/null || fail "installed, there is no rackbench user"
[ "$(stat -c %a "$root/etc/rackbench")" = 700 ] || fail "installed, /etc/rackbench is not 0700"
# the node's own pair, made on it as docs/deploy.md says; its public key to the head
in_container rackbench-agent --keygen /etc/rackbench --name "$name" >/dev/null ||
    fail "rackbench-agent --keygen in the container"
cp "$root/etc/rackbench/$name.key" "$keys/allowed/"
install -m 0644 "$keys/head.key" "$root/etc/rackbench/head.key"
cat >"$root/etc/rackbench/agent.conf" <<EOF
coordinator = tcp://$ip:$port
name = $name
rack = r01
root = /var/lib/rackbench
key = /etc/rackbench/$name.key_secret
coordinator-key = /etc/rackbench/head.key
EOF
in_container systemctl enable --now rackbench-agent >/dev/null 2>&1 || fail "systemctl enable --now rackbench-agent"
run 1 "$v1"
first=$(since "$t0")
echo "install to first run: $first s (dpkg -i to the end of the run's report)"

# 2. upgrade while no run is active: postinst reloads the unit, the agent
# leaves at once (exit 75) and systemd starts it again on the new build
pid=$(unit MainPID)
[ "$pid" -gt 0 ] || fail "no MainPID after the first run"
in_container dpkg -i "$agent2" >"$scratch/install2.txt" 2>&1 || {
    cat "$scratch/install2.txt" >&2
    fail "dpkg -i $agent2 (the upgrade) in the container"
}
# shellcheck disable=SC2016 # dpkg-query's format
[ "$(in_container dpkg-query -W -f='${Version}' rackbench-agent)" = "$v2" ] || fail "the upgrade did not install $v2"
# restarted: a new MainPID, active, on the binary now installed
restarted() {
    local new=""
    for _ in $(seq 1 150); do
        new=$(unit MainPID)
        [ "$(unit ActiveState)" = active ] && [ "$new" -gt 0 ] && [ "$new" != "$1" ] && break
        sleep 0.2
    done
    [ "$new" != "$1" ] && [ "$(unit ActiveState)" = active ] ||
        fail "$2: the agent was not started again (MainPID $1, now '$new', $(unit ActiveState))"
    local exe
    exe=$(in_container readlink "/proc/$new/exe")
    [ "$exe" = /usr/bin/rackbench-agent ] || fail "$2: the agent runs '$exe', not /usr/bin/rackbench-agent"
    echo "$new"
}
pid2=$(restarted "$pid" "upgraded with the agent idle")
echo "upgraded to $v2 with the agent idle: it left and was started again on the new build (pid $pid -> $pid2)"
run 2 "$v2"

# 2b. a reload (dpkg -i of the same package again) while a run is active:
# the agent serves the run to its end on the same process, then leaves and
# is started again
sed 's/^direct=1$/direct=1\nrate=2m/' "$scratch/plan.ini" >"$scratch/plan-slow.ini"
(run 3 "$v2" "$scratch/plan-slow.ini") >"$scratch/run3.log" 2>&1 &
bg=$!
for _ in $(seq 1 150); do
    [ -n "$(find "$root/var/lib/rackbench" -mindepth 1 -maxdepth 1 2>/dev/null | head -n 1)" ] && break
    sleep 0.2
done
[ -n "$(find "$root/var/lib/rackbench" -mindepth 1 -maxdepth 1 | head -n 1)" ] ||
    fail "the slow run did not reach the agent in 30 s: $(cat "$scratch/run3.log")"
in_container dpkg -i "$agent2" >"$scratch/install3.txt" 2>&1 || {
    cat "$scratch/install3.txt" >&2
    fail "dpkg -i $agent2 (again, during a run) in the container"
}
[ "$(unit MainPID)" = "$pid2" ] || fail "the reload during a run restarted the agent at once"
wait "$bg" || fail "the run during the reload failed: $(cat "$scratch/run3.log")"
in_container journalctl --no-pager -u rackbench-agent | grep -q "SIGHUP: leaving to be started again when run" ||
    fail "the agent did not say it would leave after its run"
pid3=$(restarted "$pid2" "reloaded during a run")
echo "reloaded during a run: the agent (pid $pid2) served it to its end, then was started again (pid $pid3)"

# 3. purge, with the head's package there too at first: the key folder
# is the coordinator's as well and stays until that one is purged
in_container dpkg -i "$head_deb" >"$scratch/install-head.txt" 2>&1 || {
    cat "$scratch/install-head.txt" >&2
    fail "dpkg -i $head_deb in the container"
}
in_container dpkg -L rackbench-agent >"$scratch/dpkg-L.txt"
purge() {
    in_container dpkg --purge "$1" >"$scratch/purge-$1.txt" 2>&1 || {
        cat "$scratch/purge-$1.txt" >&2
        fail "dpkg --purge $1 in the container"
    }
}
purge rackbench-agent
[ -e "$root/etc/rackbench/head.key" ] ||
    fail "purging rackbench-agent removed the keys while the rackbench package is installed"
grep -q "stays for the rackbench package" "$scratch/purge-rackbench-agent.txt" ||
    fail "purging rackbench-agent did not say why /etc/rackbench stays: $(cat "$scratch/purge-rackbench-agent.txt")"
purge rackbench
! in_container pgrep -x rackbench-agent >/dev/null || fail "an agent still runs after the purge"
[ "$(unit LoadState)" = not-found ] || fail "after the purge the unit is '$(unit LoadState)', not not-found"
[ ! -e "$root/etc/rackbench/agent.conf" ] || fail "after the purge /etc/rackbench/agent.conf is there"
mapfile -t paths < <(grep -vx '/\.' "$scratch/dpkg-L.txt")
# shellcheck disable=SC2016 # expanded by the container's sh
left=$(in_container sh -c 'for p; do [ -e "$p" ] || [ -L "$p" ] && echo "$p"; done; true' sh "${paths[@]}" |
    grep -vxF -f "$scratch/paths.before" || true)
echo "after the purge, of dpkg -L's paths the install made: ${left:-none}"
[ -z "$left" ] || fail "the purge left files of the package: $left"
for db in passwd group; do
    ! in_container getent "$db" rackbench || fail "the purge left the rackbench entry of /etc/$db"
done
rm -rf "$root/rbpkg-debs"
# the diff: what the overlay's upper layer holds that changed since before
# the install, but for the folders copied up from the lower layer; a file
# removed from the lower layer is a whiteout (a character device), whose
# times the kernel may share with every other whiteout: a new one counts
(cd "$ovl/upper" && find . -mindepth 1 \( -newer "$scratch/marker" -o -cnewer "$scratch/marker" \) -printf '%y %P\n') |
    while read -r type path; do
        [ "$type" = d ] && [ -d "/$path" ] && continue
        [ "$type" = c ] && grep -qxF "$path" "$scratch/whiteouts.before" && continue
        echo "$path"
    done | sort >"$scratch/diff.txt"
echo "the file-system diff since before the install (logs, caches, dpkg's and systemd's state left out here):"
grep -Ev '^(var/log|var/cache|var/lib/dpkg|var/lib/systemd|run|tmp|var/tmp)/' "$scratch/diff.txt" | sed 's/^/  /'
ours=$(grep -i rackbench "$scratch/diff.txt" || true)
[ -z "$ours" ] || fail "the purge left these of ours: $ours"

stop_container
echo "test_package_install: $(($(date +%s) - begin)) s in all; install to first run $first s"
cleanup
trap - EXIT
rm -rf "$scratch"
