#!/usr/bin/env bash
# Build every libFuzzer target with clang (ASan on) and run each for a bounded time.
#   tests/fuzz/run-fuzzers.sh [SECONDS_PER_TARGET]
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-60}
build=build-fuzz
CC=clang cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DTVM_BUILD_FUZZERS=ON \
  -DTVM_BUILD_TESTS=ON -DTVM_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target fuzzers
status=0
for f in "$build"/tests/fuzz/fuzz_*; do
  [ -x "$f" ] || continue
  name=$(basename "$f")
  corpus="$build/tests/fuzz/corpus_$name"
  mkdir -p "$corpus"
  seeds="tests/fuzz/seeds/$name"
  args=("$corpus")
  [ -d "$seeds" ] && args+=("$seeds")
  echo "-- $name for ${secs}s"
  if ! "$f" -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 "${args[@]}" > "$build/tests/fuzz/$name.log" 2>&1; then
    echo "!! $name found a failure:"; tail -40 "$build/tests/fuzz/$name.log"; status=1
  else
    grep -E 'stat::number_of_executed_units|Done' "$build/tests/fuzz/$name.log" | tail -2
  fi
done
exit $status
