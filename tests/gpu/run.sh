#!/usr/bin/env bash
# tests/gpu/run.sh [BUILD_DIR]: the GPU checks of the CUDA target, for a machine with an NVIDIA
# GPU and its driver (CI and most machines here have neither; there these tests skip).
#   1. builds BUILD_DIR (default: build-gpu, configured Release if it does not exist)
#   2. runs every GPU test: the kernels of tests/gpu/kernels on the GPU against the interpreter
#      (gpu_launch_real), Relax models built for CUDA against their CPU build (gpu_relax_real),
#      the VM on a CUDA device (vm_cuda), and the rest of tests/gpu and the CUDA module tests
#   3. runs each kernel through `tvmc run --target cuda` (checked against the interpreter, timed
#      with CUDA events), the allreduce / warp-shuffle / vthread / tensor-core kernels included,
#      and Relax models (checked against the reference evaluator)
#   4. prints the benchmark table of bench/cuda_bench (add at 1 GiB against the copy bandwidth,
#      a shared-memory tiled matmul, a softmax)
# Exit status: 0 when everything passed, 1 otherwise, 77 when there is no GPU to run on.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-gpu}
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && [ ! -e /usr/lib/x86_64-linux-gnu/libcuda.so.1 ]; then
  echo "no CUDA driver (libcuda.so.1) on this machine: nothing to run"
  exit 77
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release || exit 1
fi
cmake --build "$build" -j"$(nproc)" || exit 1
failed=0
echo "== GPU tests"
unset TVM_VM_LIBCUDA
ctest --test-dir "$build" -R '^(gpu_|vm_cuda)' --output-on-failure || failed=1
# the real-GPU tests must have run, not skipped
for t in gpu_launch_real gpu_relax_real vm_cuda; do
  if ctest --test-dir "$build" -R "^$t\$" 2>&1 | grep -q "Skipped"; then
    echo "FAILED: $t skipped on a machine with a driver"
    failed=1
  fi
done
echo "== tvmc run --target cuda"
tvmc=$build/tools/tvmc
k=$src/tests/gpu/kernels
run() {
  echo "-- $*"
  "$tvmc" run "$@" --target cuda --repeat 20 || { echo "FAILED: tvmc run $*"; failed=1; }
}
run "$k/add.py" --shape n=16777216
run "$k/row_sum.py" --shape m=4096
run "$k/matmul_tiled.py" --shape n=1024
run "$k/matmul_sched.py"
run "$k/transpose.py" --shape m=2048 --shape n=4096
run "$k/softmax.py" --shape m=8192
run "$k/row_sum_allreduce.py" --shape m=4096
run "$k/softmax_warp.py" --shape m=8192
run "$k/col_sum_tree.py" --shape n=4096
run "$k/row_argmax.py" --shape m=4096
run "$k/matmul_vthread.py"
run "$k/row_sum_upstream.py"
run "$k/matmul_wmma.py" --shape n=1024
run "$k/matmul_wmma_f16.py" --shape m=1024 --shape n=1024 --shape k=1024
echo "== tvmc run --target cuda (Relax models)"
for m in "$src/examples/serve/model.py --shape n=4096" \
         "$src/tests/corpus/relax/transformer_block.py --shape seq=128"; do
  echo "-- $m"
  # shellcheck disable=SC2086
  "$tvmc" run $m --target cuda --repeat 20 || { echo "FAILED: tvmc run $m"; failed=1; }
done
echo "== bench/cuda_bench"
"$build/bench/cuda_bench" || failed=1
[ $failed -eq 0 ] && echo "all GPU checks passed" || echo "some GPU checks FAILED"
exit $failed
