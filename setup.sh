#!/usr/bin/env bash
# Install the build dependencies from Debian (as root, or through sudo) and build the suite.
#   ./setup.sh                 # Release build in ./build
#   BUILD_DIR=b ./setup.sh -DCMAKE_BUILD_TYPE=Debug -DTVM_SANITIZE=ON
# Then it runs the main job: the example matmul compiled by tvmc, checked against the reference
# interpreter and timed (its last line is the timing). The example's register tile is the one
# for this CPU: examples/matmul.py with AVX-512, examples/matmul_avx2.py without.
set -euo pipefail
cd "$(dirname "$0")"
pkgs=(build-essential cmake pkg-config libdlpack-dev libjemalloc-dev clang llvm-19-dev lua5.4
      libopenblas-dev python3)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd=sudo
  $sudo_cmd apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y --no-install-recommends "${missing[@]}"
fi
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build" -j"$(nproc)"
tvmc="$build/tools/tvmc"
if [ -x "$tvmc" ]; then
  example=examples/matmul.py
  grep -qw avx512f /proc/cpuinfo 2>/dev/null || example=examples/matmul_avx2.py
  echo "+ $tvmc run $example"
  "$tvmc" run "$example"
else
  echo "setup.sh: $tvmc was not built (it needs libcodegen, i.e. llvm-19-dev); skipping the matmul" >&2
fi
