#!/usr/bin/env bash
# The first command of the README: set up, build, and run a local rack of
# four agents on this machine (deploy/plans/quickstart.ini: a short O_DIRECT
# streaming write, then a read of the same files).
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/setup.sh
./deploy/build.sh build
exec ./build/bin/rackbench run deploy/plans/quickstart.ini --local 4 --out runs "$@"
