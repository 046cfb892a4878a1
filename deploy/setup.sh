#!/usr/bin/env bash
# Installs what rackbench needs to build and test from Debian's packages.
# As root it installs what is missing; otherwise it prints the apt line and stops.
# With --test it adds what only the tests need (deploy/test.sh passes it):
# fio, the peer the plan semantics are checked against, strace to see the
# calls each of them makes, locales (localedef: a decimal-comma locale for
# test_json), fdisk (sfdisk) and
# e2fsprogs (mkfs.ext4) for the partitioned and formatted loop devices of the
# raw-device safety test,
# xmllint, a headless Chromium with python3 to check report.html, and clang
# for the libFuzzer targets, Open MPI for rackbench-mpi and its test,
# GlusterFS (server, FUSE client, xfsprogs for the bricks) for the lab of
# deploy/gluster-lab.sh and its test, Slurm with munge for the lab of
# deploy/slurm-lab.sh and its test, and systemd-analyze and systemd-nspawn
# to check deploy/rackbench-agent.service and run it under systemd, and
# Prometheus with curl to scrape a live run's --metrics and query it, and
# smartmontools (smartctl) for the drive-health test's real smartctl case.
# With --package it adds Debian's packaging tools for deploy/package.sh and
# its test (dpkg-dev, debhelper, lintian; deploy/test.sh --full passes it).
# Either may be given, or both.
#
# Those packages' postinst scripts start their system services. The labs
# start daemons of their own and need none of them, and where systemd is not
# PID 1 (a container, a CI machine) a service that cannot start would fail
# the install: there, unless the machine has a policy-rc.d already, one that
# forbids starting services is in place while apt-get runs.
set -euo pipefail

packages=(build-essential cmake pkg-config clang-format git
          libzmq3-dev libczmq-dev libmsgpack-dev libcmocka-dev
          libaio-dev liburing-dev libblkid-dev libmicrohttpd-dev
          libssl-dev zlib1g-dev libxxhash-dev)
want_test=0
want_package=0
for arg in "$@"; do
    case $arg in
    --test) want_test=1 ;;
    --package) want_package=1 ;;
    *)
        echo "usage: $0 [--test] [--package]" >&2
        exit 2
        ;;
    esac
done
if [ $want_package = 1 ]; then
    packages+=(dpkg-dev debhelper lintian)
fi
if [ $want_test = 1 ]; then
    packages+=(fio strace fdisk e2fsprogs libxml2-utils chromium python3 clang locales openmpi-bin libopenmpi-dev
               glusterfs-server glusterfs-client xfsprogs
               slurmctld slurmd slurm-client munge systemd systemd-container prometheus curl
               smartmontools)
fi

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "setup.sh: the ${#packages[@]} Debian packages it asks for are installed"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "rackbench needs these Debian packages; as root, run:" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
policy=/usr/sbin/policy-rc.d
if [ ! -d /run/systemd/system ] && [ ! -e "$policy" ]; then
    printf '%s\n' '#!/bin/sh' '# deploy/setup.sh: no service starts while it installs' 'exit 101' >"$policy"
    chmod 755 "$policy"
    trap 'rm -f "$policy"' EXIT
fi
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
