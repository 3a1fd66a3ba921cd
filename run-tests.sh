#!/usr/bin/env bash
# Build (if needed) and run the whole test suite with CTest.
#   ./run-tests.sh                                  # tests of ./build
#   BUILD_DIR=build-asan ./run-tests.sh -DCMAKE_BUILD_TYPE=Debug -DTVM_SANITIZE=ON
# Extra arguments are passed to CMake when the build directory is configured.
set -euo pipefail
cd "$(dirname "$0")"
build=${BUILD_DIR:-build}
if [ ! -f "$build/CMakeCache.txt" ] || [ $# -gt 0 ]; then
  cmake -S . -B "$build" "$@"
fi
cmake --build "$build" -j"$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
