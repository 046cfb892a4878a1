#!/usr/bin/env bash
# The Debian packages and the install rules (issue 35):
#
#   test_packages.sh SRC BUILD_DIR SCRATCH
#
# `cmake --install BUILD_DIR --prefix SCRATCH/prefix` puts the programs, the
# plans and the docs where GNUInstallDirs says. deploy/package.sh builds the
# packages from a clean copy of SRC; lintian must report no error (E:) and
# no warning (W:); each
# package holds what it ships (the deploy/ files it installs only when SRC
# has them: man pages, agent.conf as a conffile, the sysusers.d and
# tmpfiles.d files with their postinst calls), depends on no -dev package,
# and never restarts the agent on upgrade but reloads it (it restarts itself
# between runs); the programs unpacked (dpkg -x)
# have no RPATH, every library ldd looks for is found, and `--version` says
# the package's version. Skipped (77) without dpkg-buildpackage, debhelper
# or lintian (deploy/setup.sh --package). A minute and a half: in the gate.
set -euo pipefail
. "$(dirname "$0")/it_lib.sh"

src=$(realpath "${1:?usage: test_packages.sh SRC BUILD_DIR SCRATCH}")
build=$(realpath "${2:?BUILD_DIR}")
scratch=${3:?SCRATCH}

it_need dpkg-buildpackage "dpkg-dev"
it_need dh "debhelper"
it_need lintian "lintian"

failed=0
fail() {
    echo "FAIL: $*" >&2
    failed=1
}

rm -rf "$scratch"
mkdir -p "$scratch"

# cmake --install under a prefix of our own, after a build (seconds when up
# to date), which reads again the lists of deploy/'s files to install
prefix=$scratch/prefix
cmake --build "$build" --target rackbench rackbench-agent >"$scratch/build.log" || fail "cmake --build (see $scratch/build.log)"
cmake --install "$build" --prefix "$prefix" >"$scratch/install.log" || fail "cmake --install (see $scratch/install.log)"
for f in bin/rackbench bin/rackbench-agent share/rackbench/plans/quickstart.ini share/doc/rackbench/deploy.md; do
    [ -e "$prefix/$f" ] || fail "cmake --install: no $f under the prefix"
done

# the packages
start=$(date +%s)
if ! "$src/deploy/package.sh" "$scratch/out" >"$scratch/package.log" 2>&1; then
    tail -40 "$scratch/package.log" >&2
    echo "FAIL: deploy/package.sh (all of it in $scratch/package.log)" >&2
    exit 1
fi
echo "deploy/package.sh: $(($(date +%s) - start)) s"
cd "$scratch/out"
changes=$(ls ./*.changes)
deb() { ls ./"$1"_*.deb; }
version=$(dpkg-deb -f "$(deb rackbench-agent)" Version)
ls -l ./*.deb

lintian "$changes" >"$scratch/lintian.txt" 2>&1 || true
cat "$scratch/lintian.txt"
# no error and no warning: a warning that must stay goes in a lintian
# override of deploy/debian/ with a comment saying why
if grep -qE '^(E|W): ' "$scratch/lintian.txt"; then
    fail "lintian reports errors or warnings (above)"
fi

# has PACKAGE PATH: the package's data holds PATH (./usr/bin/...)
has() {
    dpkg-deb -c "$(deb "$1")" | awk '{ print $6 }' | grep -qxF "$2" || fail "$1 has no $2"
}
has rackbench ./usr/bin/rackbench
for doc in README.md docs/deploy.md; do # compressed by dh_compress (over 4 KiB)
    has rackbench "./usr/share/doc/rackbench/$(basename "$doc").gz"
done
has rackbench ./usr/share/rackbench/hosts.example
for plan in "$src"/deploy/plans/*.ini; do
    has rackbench "./usr/share/rackbench/plans/$(basename "$plan")"
done
has rackbench-agent ./usr/bin/rackbench-agent
has rackbench-agent ./lib/systemd/system/rackbench-agent.service
for page in "$src"/deploy/man/*.1; do # rackbench-mpi's page goes with its program
    case ${page##*/} in
        rackbench-mpi.1) [ -z "$(deb rackbench-mpi 2>/dev/null)" ] ||
            has rackbench-mpi ./usr/share/man/man1/rackbench-mpi.1.gz ;;
        *) has rackbench "./usr/share/man/man1/$(basename "$page").gz" ;;
    esac
done
for page in "$src"/deploy/man/*.8; do
    has rackbench-agent "./usr/share/man/man8/$(basename "$page").gz"
done
dpkg-deb -e "$(deb rackbench-agent)" "$scratch/agent-control"
if [ -e "$src/deploy/agent.conf" ]; then
    has rackbench-agent ./etc/rackbench/agent.conf
    grep -qxF /etc/rackbench/agent.conf "$scratch/agent-control/conffiles" ||
        fail "rackbench-agent: /etc/rackbench/agent.conf is not a conffile"
else
    it_skip "no deploy/agent.conf in the tree: its conffile is not checked"
fi
if [ -e "$src/deploy/rackbench-agent.sysusers" ]; then
    has rackbench-agent ./usr/lib/sysusers.d/rackbench-agent.conf
    grep -q 'systemd-sysusers .*rackbench-agent.conf' "$scratch/agent-control/postinst" ||
        fail "rackbench-agent's postinst does not create its user (systemd-sysusers)"
fi
if [ -e "$src/deploy/rackbench-agent.tmpfiles" ]; then
    has rackbench-agent ./usr/lib/tmpfiles.d/rackbench-agent.conf
    grep -q 'systemd-tmpfiles .*--create rackbench-agent.conf' "$scratch/agent-control/postinst" ||
        fail "rackbench-agent's postinst does not create its key folder (systemd-tmpfiles)"
fi
# an upgrade never stops or restarts the agent (SIGTERM would end its run)
# but reloads it (it restarts itself between runs); removing the package
# stops it
if grep -q 'deb-systemd-invoke.*restart' "$scratch/agent-control/postinst" ||
    grep -qs 'deb-systemd-invoke stop' "$scratch/agent-control/preinst"; then
    fail "rackbench-agent's maintainer scripts stop or restart the agent on upgrade"
fi
grep -q 'deb-systemd-invoke reload rackbench-agent.service' "$scratch/agent-control/postinst" ||
    fail "rackbench-agent's postinst does not reload the agent on upgrade"
grep -qs 'deb-systemd-invoke stop' "$scratch/agent-control/prerm" ||
    fail "rackbench-agent's prerm does not stop the agent on remove"
programs=(rackbench rackbench-agent)
if dpkg-query -W -f='${Status}' libopenmpi-dev 2>/dev/null | grep -q 'install ok installed'; then
    has rackbench-mpi ./usr/bin/rackbench-mpi
    programs+=(rackbench-mpi)
fi

root=$scratch/root
for p in "${programs[@]}"; do
    depends=$(dpkg-deb -f "$(deb "$p")" Depends)
    echo "$p depends on: $depends"
    if echo "$depends" | tr ',|' '\n' | grep -q -- '-dev\b'; then
        fail "$p depends on a -dev package"
    fi
    dpkg -x "$(deb "$p")" "$root"
    exe=$root/usr/bin/$p
    if readelf -d "$exe" | grep -Eq 'RPATH|RUNPATH'; then
        fail "$p keeps an RPATH: $(readelf -d "$exe" | grep -E 'RPATH|RUNPATH')"
    fi
    if ldd "$exe" | grep -q 'not found'; then
        fail "$p: libraries not found: $(ldd "$exe" | grep 'not found' | tr '\n' ' ')"
    fi
done
out=$("$root/usr/bin/rackbench" --version)
[[ $out == "rackbench $version "* ]] || fail "rackbench --version says '$out', not the package's version $version"
out=$("$root/usr/bin/rackbench-agent" --version 2>&1) || true
[[ $out == *"$version"* ]] || fail "rackbench-agent --version says '$out', not the package's version $version"

it_exit "$failed"
