#!/usr/bin/env bash
# The second command of the README (and what CI runs): set up, build with
# warnings as errors, run every test; then the same tests again under
# AddressSanitizer and UBSan; then the fuzz targets of the message decoder
# and the plan parser, briefly, with clang and libFuzzer.
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/setup.sh --test
# Formatting is part of the build: any difference from .clang-format fails.
git ls-files -z '*.c' '*.h' | xargs -0 clang-format --dry-run --Werror
./deploy/build.sh build -DRB_WERROR=ON
ctest --test-dir build --output-on-failure
if [ "${RB_SKIP_SANITIZE:-0}" != 1 ]; then
    ./deploy/build.sh build-asan -DRB_WERROR=ON -DRB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        ctest --test-dir build-asan --output-on-failure
fi
if [ "${RB_SKIP_FUZZ:-0}" != 1 ]; then
    CC=clang cmake -S . -B build-fuzz -DRB_WERROR=ON -DRB_FUZZ=ON >/dev/null
    cmake --build build-fuzz -j"$(nproc)" --target fuzz_proto fuzz_plan
    ctest --test-dir build-fuzz -L fuzz --output-on-failure
fi
