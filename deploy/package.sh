#!/usr/bin/env bash
# Builds the Debian packages (rackbench, rackbench-agent, and rackbench-mpi
# when Open MPI's libopenmpi-dev is installed) with Debian's own tools:
#
#   deploy/package.sh [OUTDIR]     # .deb, .buildinfo, .changes into OUTDIR (./packages)
#
# Each package comes with its -dbgsym package (the programs' debug symbols,
# for gdb on a node: install it beside the package when needed).
#
# It copies the working tree (the files Git tracks or would track: no build
# folders, no runs) into a scratch folder, puts deploy/debian/ at its root as
# debian/, writes debian/changelog with the tree's version, and runs
# dpkg-buildpackage -b -us -uc there with the tests off (DEB_BUILD_OPTIONS
# nocheck) and a compiler per core (parallel=N in DEB_BUILD_OPTIONS sets
# another number). The version is the project's (CMakeLists.txt) and the commit:
# X.Y.Z for a commit tagged vX.Y.Z, X.Y.Z+gitN.gHASH for the Nth commit
# (after the last tag, or from the start), +dirty when the working tree
# differs from it. Needs dpkg-dev and debhelper (deploy/setup.sh --package)
# and the build dependencies deploy/debian/control lists
# (dpkg-buildpackage names what is missing). DEB_BUILD_PROFILES=nompi leaves
# rackbench-mpi out where libopenmpi-dev is installed.
set -euo pipefail

die() {
    echo "package.sh: $*" >&2
    exit 1
}

src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$src/packages}
mkdir -p "$out"
out=$(cd "$out" && pwd)
command -v dpkg-buildpackage >/dev/null || die "no dpkg-buildpackage: install dpkg-dev and debhelper (deploy/setup.sh --package)"
git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1 || die "$src is not a Git work tree"

base=$(sed -n 's/^project(rackbench VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[ -n "$base" ] || die "no 'project(rackbench VERSION X.Y.Z' line in $src/CMakeLists.txt"
hash=$(git -C "$src" rev-parse --short=10 HEAD)
if desc=$(git -C "$src" describe --tags --match 'v[0-9]*' 2>/dev/null); then
    desc=${desc#v}
    if [[ $desc =~ ^(.*)-([0-9]+)-g[0-9a-f]+$ ]]; then
        version="${BASH_REMATCH[1]}+git${BASH_REMATCH[2]}.g$hash"
    else
        version=$desc
    fi
else
    version="$base+git$(git -C "$src" rev-list --count HEAD).g$hash"
fi
if [ -n "$(git -C "$src" status --porcelain --untracked-files=normal)" ]; then
    version+="+dirty"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rackbench-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
tree=$work/rackbench-$version
mkdir "$tree"
# the files of the working tree that Git tracks or would track (no build
# folders, no run folders: .gitignore), as they are now
(cd "$src" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | tar -xf - -C "$tree")
cp -r "$src/deploy/debian" "$tree/debian"

maintainer=$(sed -n 's/^Maintainer: //p' "$tree/debian/control")
cat >"$tree/debian/changelog" <<CHANGELOG
rackbench ($version) unstable; urgency=medium

  * Built from commit $hash$( [[ $version == *+dirty ]] && echo " with changes not committed").

 -- $maintainer  $(date -R)
CHANGELOG

profiles=()
if ! dpkg-query -W -f='${Status}' libopenmpi-dev 2>/dev/null | grep -q 'install ok installed'; then
    echo "package.sh: no libopenmpi-dev: building without rackbench-mpi (profile nompi)"
    profiles=(-Pnompi)
fi
echo "package.sh: building rackbench $version"
# as many compilers as cores unless DEB_BUILD_OPTIONS says parallel=N
options="nocheck ${DEB_BUILD_OPTIONS:-}"
[[ $options == *parallel=* ]] || options+=" parallel=$(nproc)"
(cd "$tree" && DEB_BUILD_OPTIONS="$options" dpkg-buildpackage -b -us -uc "${profiles[@]}")
for f in "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes; do
    [ -e "$f" ] && mv "$f" "$out/"
done
ls -l "$out"/*_"$version"_*.deb
