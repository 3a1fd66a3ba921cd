#!/usr/bin/env bash
# test_tvmc.sh: the tvmc driver from the outside: exit codes, messages, and each command's
# result (fmt/check output, a built library loaded and called, run's check against the
# interpreter, including its reduced checks).
#   test_tvmc.sh TVMC LOAD_KERNEL SOURCE_DIR WORK_DIR
set -u
tvmc=$1 load_kernel=$2 src=$3 work=$4
fx=$src/tests/tools/fixtures
add=$src/examples/add.py
mkdir -p "$work"
failed=0 passed=0
out=""

# expect RC CMD...: run CMD, keep its stdout+stderr in $out, and check its exit status.
expect() {
  local want=$1
  shift
  out=$("$@" 2>&1)
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAILED: exit $rc (want $want): $*"
    echo "$out" | sed 's/^/  | /'
    failed=$((failed + 1))
    return 1
  fi
  passed=$((passed + 1))
}
# assert CMD...: a test command (e.g. [ -z "$out" ]) that must succeed.
assert() {
  if "$@"; then
    passed=$((passed + 1))
  else
    echo "FAILED: $*"
    echo "$out" | sed 's/^/  | /'
    failed=$((failed + 1))
  fi
}
# has TEXT: the last command's output contains TEXT.
has() {
  if ! grep -qF -- "$1" <<<"$out"; then
    echo "FAILED: output lacks '$1'"
    echo "$out" | sed 's/^/  | /'
    failed=$((failed + 1))
    return 1
  fi
  passed=$((passed + 1))
}

# ---- help, version, usage errors ----------------------------------------------------------
expect 0 "$tvmc" --help && has "exit status"
for c in build run fmt check; do expect 0 "$tvmc" $c --help && has "usage: tvmc $c"; done
expect 0 "$tvmc" --version && has "libtir" && has "libcodegen"
expect 2 "$tvmc"
expect 2 "$tvmc" frobnicate && has "unknown command 'frobnicate'"
expect 2 "$tvmc" --bogus
expect 2 "$tvmc" run --bogus "$add" && has "unknown option '--bogus'"
expect 2 "$tvmc" build "$add" --target rocm && has "unknown target kind \"rocm\" (known: llvm, cuda)"
expect 2 "$tvmc" run "$add" --target "cuda -arch=sm_12" && has "sm_12 is not a compute capability"
expect 2 "$tvmc" fmt && has "missing FILE"
expect 2 "$tvmc" check "$work/does_not_exist.py" && has "does_not_exist.py"
expect 2 "$tvmc" run "$add" --repeat && has "needs a value"
expect 2 "$tvmc" run "$add" --repeat many && has "expects an integer"
expect 2 "$tvmc" run "$add" --lib "$work/no_such.so" && has "no_such.so"
expect 2 "$tvmc" run "$add" --func nope && has "no function \`nope\`" && has "add_n"

# ---- fmt ----------------------------------------------------------------------------------
# not_canonical.py is matmul.py as a person writes it; its canonical form is what fmt prints.
expect 1 "$tvmc" fmt --check "$fx/not_canonical.py" && has "first difference at line 1" &&
  has "-# The program" && has "+# from tvm.script import tirx as T"
expect 0 "$tvmc" fmt "$fx/not_canonical.py" -o "$work/canonical.py" &&
  assert [ -z "$out" ]
expect 0 "$tvmc" fmt --check "$work/canonical.py" &&
  assert [ -z "$out" ]
expect 0 "$tvmc" fmt "$work/canonical.py" &&
  assert [ "$out" = "$(cat "$work/canonical.py")" ]
# One changed line of a canonical file is reported at its line.
sed 's/T.grid(128, 128, 64)/T.grid(128,128,64)/' "$work/canonical.py" >"$work/edited.py"
line=$(grep -n 'T.grid' "$work/edited.py" | cut -d: -f1)
expect 1 "$tvmc" fmt --check "$work/edited.py" && has "first difference at line $line" &&
  has "-    for i, j, k in T.grid(128,128,64):"
expect 0 "$tvmc" check "$work/canonical.py" &&
  assert [ "$out" = ok ]

# ---- check --------------------------------------------------------------------------------
expect 0 "$tvmc" check "$add" && has ok
expect 1 "$tvmc" check "$fx/undefined_name.py" && has "undefined_name.py:7:18: error" &&
  has "'j'" && has "^"
# libtir's well-formedness error: located in the file through the printed, underlined program.
expect 1 "$tvmc" check "$fx/ill_formed.py" && has "ill_formed.py:9:34: error: well-formedness" &&
  has "<root>.body" && has "                                 ^"
expect 1 "$tvmc" check "$fx/ill_formed_module.py" &&
  has "ill_formed_module.py:17:38: error: well-formedness" && has "in function \`bad\`"
# Ill-typed IR the code generator cannot compile is a located typing error (rule named), not
# an invalid-LLVM-IR failure at run or build time.
expect 1 "$tvmc" check "$fx/pow_mixed.py" && has "pow_mixed.py:6:16: error" &&
  has "rule T-CALL" && has "args[1] = B[i] (float16)"
expect 1 "$tvmc" run "$fx/pow_mixed.py" && has "rule T-CALL"
expect 1 "$tvmc" check "$fx/or_mixed.py" && has "or_mixed.py:6:16: error" &&
  has "the operands of tir.bitwise_or must have the call's dtype uint32"
expect 1 "$tvmc" check "$fx/int65_loop.py" && has "int65_loop.py:5:20: error" &&
  has "int65 is wider than 64 bits" && has "rule T-INTIMM"
expect 1 "$tvmc" check "$fx/negative_shape.py" && has "negative_shape.py:4:10: error" &&
  has "Buffer A: shape[0] is -4"
expect 1 "$tvmc" run "$fx/negative_shape.py" && has "shape[0] is -4"
# Well-formed, but a dtype the CPU code generator does not represent: check says so, at the
# first use of the buffer.
expect 1 "$tvmc" check "$fx/float8_buffer.py" &&
  has "dtype float8 (buffer elements) is not supported by the CPU code generator" &&
  has "at <root>.body.body.buffer" && has "        ^"
expect 3 "$tvmc" run "$fx/float8_buffer.py" && has "unsupported dtype float8"
# A GPU thread binding is well-formed TIR, but not a CPU kernel.
expect 3 "$tvmc" run "$fx/launch_thread.py" && has "GPU construct in a CPU kernel" &&
  has "blockIdx.x"
expect 3 "$tvmc" build "$fx/launch_thread.py" -o "$work/launch.so" &&
  has "GPU construct in a CPU kernel"

# Relax and mixed files go through the same parse / print entry points (check runs Relax's
# well-formedness too); fmt's output is a fixed point.
expect 0 "$tvmc" check "$src/tests/corpus/relax/mixed_call_tir.py" && has ok
expect 0 "$tvmc" check "$src/tests/corpus/relax/sinfo_forms.py" && has ok
expect 0 "$tvmc" fmt "$src/tests/corpus/relax/control_flow.py" -o "$work/relax.py" &&
  expect 0 "$tvmc" fmt --check "$work/relax.py"
expect 1 "$tvmc" check "$src/tests/corpus/errors/relax_wrong_annotation.py" &&
  has "relax_wrong_annotation.py:7:5: error" && has "does not match the value's struct info"
# Relax's well-formedness error in a module function: at the offending call (not the def), with
# the function and path named and only that call underlined in the printed module.
expect 1 "$tvmc" check "$fx/relax_wf_impure_call.py" &&
  has "relax_wf_impure_call.py:19:9: error: impure call to @fill in a pure function" &&
  has "in function \`main\`, at <root>.body.blocks[0].bindings[1].value" &&
  has "        cls.fill(y)" && has "        ^^^^^^^^^^^" &&
  assert [ "$(printf '%s\n' "$out" | grep -c '\^')" = 1 ]
# (a decorator's check_well_formed=False: the error is located all the same)
expect 1 "$tvmc" check "$fx/relax_wf_flag_off.py" &&
  has "relax_wf_flag_off.py:10:5: error: impure call to relax.print in a pure function"

# ---- build: a library a C program loads ----------------------------------------------------
rm -f "$work/add.so"
expect 0 "$tvmc" build "$add" -o "$work/add.so" &&
  assert [ -z "$out" ] && assert [ -f "$work/add.so" ]
expect 0 "$load_kernel" "$work/add.so"
# the library records the tvm-ffi ABI it was built against (libtvmffi's loader checks it)
expect 0 nm -D --defined-only "$work/add.so" && has "__tvm_ffi__abi_version"
expect 0 "$tvmc" build "$add" --func add_n -o "$work/add_n.so"
expect 1 "$tvmc" build "$fx/undefined_name.py" -o "$work/bad.so" && has "undefined_name.py:7:18"

# ---- the matmul examples: one per register tile (AVX-512, AVX2); both check and run ----------
for ex in matmul matmul_avx2; do
  expect 0 "$tvmc" check "$src/examples/$ex.py" && has "ok"
  TVMC_CHECK_WORK=100000 expect 0 "$tvmc" run "$src/examples/$ex.py" --repeat 1 &&
    has "check: ok on a sample"
done
# TVM_CODEGEN_CPU compiles for another CPU: Haswell has AVX2 (ymm) and no AVX-512 (zmm).
TVM_CODEGEN_CPU=haswell expect 0 "$tvmc" build "$src/examples/matmul.py" -o "$work/mm_hsw.so"
expect 0 objdump -d "$work/mm_hsw.so" && assert [ "$(grep -c zmm <<<"$out")" -eq 0 ] &&
  assert [ "$(grep -c ymm <<<"$out")" -gt 0 ]
if grep -qw avx512f /proc/cpuinfo; then # the host build of the same file does use zmm
  expect 0 "$tvmc" build "$src/examples/matmul.py" -o "$work/mm_host.so"
  expect 0 objdump -d "$work/mm_host.so" && assert [ "$(grep -c zmm <<<"$out")" -gt 0 ]
fi

# ---- run ----------------------------------------------------------------------------------
expect 0 "$tvmc" run "$add" --func add_n --shape n=1003 --repeat 3 &&
  has "check: ok (3009 elements match" && has "add_n: median" && has "(1003 flops)" &&
  has "(12036 bytes)"
expect 0 "$tvmc" run "$add" --func add_n --shape n=1003 --lib "$work/add.so" --repeat 1 &&
  has "check: ok"
# A library whose kernel is wrong: the first mismatch, with its index and both values.
expect 0 "$tvmc" build "$fx/sub_as_add.py" -o "$work/sub_as_add.so"
expect 1 "$tvmc" run "$add" --func add_n --shape n=100 --lib "$work/sub_as_add.so" &&
  has "check FAILED: C[0]: compiled" && has "interpreter" && has "elements differ"
expect 2 "$tvmc" run "$add" --func add_n --shape m=4 && has "no symbolic size named \`m\`" &&
  has "(it has: n)"
expect 2 "$tvmc" run "$add" --func add_n && has "bind n with --shape"
expect 2 "$tvmc" run "$add" --func add_n --shape n=0 && has "positive"
expect 1 "$tvmc" run "$fx/ill_formed.py" && has "ill_formed.py"
# A kernel returning a value (T.ret): the value is checked against the interpreter's, so a
# library returning another one fails.
expect 0 "$tvmc" run "$fx/ret_count.py" --shape x=10 --repeat 1 &&
  has "check: ok (65 elements match"
expect 0 "$tvmc" build "$fx/ret_count_wrong.py" -o "$work/ret_count_wrong.so"
expect 1 "$tvmc" run "$fx/ret_count.py" --shape x=10 --lib "$work/ret_count_wrong.so" &&
  has "check FAILED: the returned value: compiled" && has "interpreter"
# A matmul: 2*128*128*64 flops counted through the lowered loops.
expect 0 "$tvmc" run "$fx/matmul.py" --repeat 2 && has "check: ok (32768 elements" &&
  has "GFLOP/s (2097152 flops)" && has "(131072 bytes)"
# Reduced checks, reached on small problems by lowering the interpreter budget:
# symbolic sizes are checked smaller (n keeps its remainder mod 64) ...
TVMC_CHECK_WORK=5000 expect 0 "$tvmc" run "$add" --func add_n --shape n=1003 --repeat 1 &&
  has "check: ok at the smaller sizes n="
# ... constant ones on a sample: the spatial loop i narrowed, the reduction k kept whole.
TVMC_CHECK_WORK=100000 expect 0 "$tvmc" run "$fx/matmul.py" --repeat 1 &&
  has "check: ok on a sample" && has "loop \`i\` narrowed"
TVMC_CHECK_WORK=20000 expect 0 "$tvmc" run "$add" --repeat 1 && has "check: ok on a sample"
# ... through an initialisation nest into the last one, past its reduction loop k; a wrong
# element inside the sample is found.
TVMC_CHECK_WORK=1000000 expect 0 "$tvmc" run "$fx/matmul_init.py" --repeat 1 &&
  has "check: ok on a sample: 256 output elements (loop \`i\` narrowed to 4 of 64"
expect 0 "$tvmc" build "$fx/mm_wrong.py" -o "$work/mm_wrong.so"
TVMC_CHECK_WORK=1000000 expect 1 "$tvmc" run "$fx/matmul_init.py" --lib "$work/mm_wrong.so" &&
  has "check FAILED: C[2, 3]: compiled" && has "1 of 4096 elements differ"
# A float32 sum of 65536 terms: the relative tolerance grows with the reduction's length
# (2 * 65536 * 2^-24), so rounding differences pass and a kernel dropping 1/8 of the terms fails;
# a function without a reduction keeps float32's 1e-4 (sub_as_add above).
expect 0 "$tvmc" run "$fx/long_sum.py" --repeat 0 && has "check: ok (262148 elements"
expect 0 "$tvmc" build "$fx/long_sum_wrong.py" -o "$work/long_sum_wrong.so"
expect 1 "$tvmc" run "$fx/long_sum.py" --lib "$work/long_sum_wrong.so" --repeat 0 &&
  has "check FAILED: C[0]: compiled" && has "(relative tolerance 0.0078125)"
expect 1 "$tvmc" run "$add" --func add_n --shape n=100 --lib "$work/sub_as_add.so" &&
  has "(relative tolerance 0.0001)"
# ... through a sequence inside a narrowed loop (the baseline run is narrowed alike).
TVMC_CHECK_WORK=1000000 expect 0 "$tvmc" run "$fx/matmul_tiles.py" --repeat 1 &&
  has "(loop \`io\` narrowed to 1 of 8 iterations, loop \`ii\` narrowed to 3 of 8 iterations)"
expect 0 "$tvmc" build "$fx/tiles_wrong.py" -o "$work/tiles_wrong.so"
TVMC_CHECK_WORK=1000000 expect 1 "$tvmc" run "$fx/matmul_tiles.py" --lib "$work/tiles_wrong.so" &&
  has "check FAILED: C[1, 5]: compiled"
expect 0 "$tvmc" run "$add" --func add_n --shape n=64 --no-check --repeat 0 &&
  assert [ -z "$out" ]
# Memory is checked as the total held before anything is allocated: 4 copies of each buffer
# with the check (3 x 200000 bytes: B is the one that passes 1 MiB), 1 without.
TVMC_MEMORY_LIMIT=1M expect 3 "$tvmc" run "$add" --func add_n --shape n=50000 &&
  has "MemoryError: buffer \`B\` (200000 bytes) would bring the memory tvmc run holds to 1600000 bytes" &&
  has "over its limit of 1048576 bytes"
TVMC_MEMORY_LIMIT=1M expect 0 "$tvmc" run "$add" --func add_n --shape n=50000 --no-check --repeat 1
TVMC_MEMORY_LIMIT=lots expect 3 "$tvmc" run "$add" --func add_n --shape n=4 &&
  has "TVMC_MEMORY_LIMIT=lots is not a byte count"
# The reference interpreter's own allocations have their limit (4 MiB asked, 1 MiB allowed).
TVM_TIR_INTERP_MEMORY_LIMIT=1M expect 3 "$tvmc" run "$fx/big_allocate.py" &&
  has "MemoryError: Allocate buf: 4194304 bytes would bring the interpreter's allocations to"
expect 0 "$tvmc" run "$fx/big_allocate.py" --repeat 1 && has "check: ok"

# Explicit strides and an elem_offset: a padded, offset input and a stride Var bound to the
# compact value, checked against the interpreter; a handle parameter the body declares a
# buffer over gets that buffer's memory; one without is refused with what to do instead.
expect 0 "$tvmc" run "$fx/strided.py" --shape n=5 --repeat 1 && has "check: ok (68 elements"
TVMC_CHECK_WORK=2000 expect 0 "$tvmc" run "$fx/strided.py" --shape n=200 --repeat 1 &&
  has "check: ok at the smaller sizes n="
expect 0 "$tvmc" run "$fx/handle_param.py" --shape n=4 --repeat 1 && has "check: ok (16 elements"
expect 3 "$tvmc" run "$fx/handle_bare.py" --shape n=4 &&
  has "parameter \`p\` of \`touch\` is a handle without a buffer" && has "T.decl_buffer"

# A kernel calling other PrimFuncs of its module: the module is compiled and interpreted whole,
# in a full check and in a sampled one (the narrowed kernel in the module in its place).
calls=$src/tests/corpus/tir/module_calls.py
expect 0 "$tvmc" run "$calls" --repeat 1 && has "check: ok (48 elements"
TVMC_CHECK_WORK=100 expect 0 "$tvmc" run "$calls" --repeat 1 && has "check: ok on a sample"
expect 0 "$tvmc" run "$src/tests/corpus/tir/module_call_recursive.py" --repeat 1 &&
  has "check: ok (12 elements"

# ---- --bounds-check ---------------------------------------------------------------------------
for c in build run; do expect 0 "$tvmc" $c --help && has "--bounds-check"; done
# A store one past B: the compiled kernel raises IndexError with the values instead of writing.
expect 3 "$tvmc" run --bounds-check --no-check "$fx/out_of_bounds.py" &&
  has "IndexError: shift: buffer B: index [8] is out of bounds for shape [8]"
# In-bounds kernels compute the same with the checks (the interpreter compares; add_n's tail
# loop and vector body, main's parallel rows), from a JIT and from a built library.
expect 0 "$tvmc" run --bounds-check "$add" --func add_n --shape n=1003 --repeat 1 && has "check: ok"
expect 0 "$tvmc" run --bounds-check "$add" --repeat 1 && has "check: ok"
expect 0 "$tvmc" build --bounds-check "$add" -o "$work/add_checked.so"
expect 0 "$load_kernel" "$work/add_checked.so"

# ---- --target ---------------------------------------------------------------------------------
# llvm -mcpu: code for another CPU than the host's (the check still passes on this one).
expect 0 "$tvmc" run "$add" --target "llvm -mcpu=x86-64" --repeat 1 && has "check: ok"
# cuda: the kernels of tests/gpu compile to a library carrying their PTX (no GPU needed); run
# compiles them and, without a CUDA driver, says it ran nothing (exit 4); with the fake driver
# of tests/vm (host memory, launches recorded, nothing computed) the copies and launches happen
# (--no-check: the fake computes nothing to compare).
gpu=$src/tests/gpu/kernels
expect 0 "$tvmc" build "$gpu/matmul_tiled.py" --target "cuda -arch=sm_90" -o "$work/mm_cuda.so" &&
  assert [ -s "$work/mm_cuda.so" ]
expect 0 "$tvmc" build "$fx/launch_thread.py" --target cuda -o "$work/launch_cuda.so"
expect 3 "$tvmc" build "$add" --target cuda -o "$work/add_cuda.so" &&
  has "launches no GPU kernel"
TVM_VM_LIBCUDA=/nonexistent/libcuda.so.1 expect 4 "$tvmc" run "$gpu/add.py" --target cuda --shape n=1000 &&
  has "skipped" && has "no CUDA driver"
# ... and checks instead every stage of the GPU lowering in the interpreter (an allreduce kernel:
# its stages run warp shuffles and barriers in lockstep), none without the check
TVM_VM_LIBCUDA=/nonexistent/libcuda.so.1 expect 4 "$tvmc" run "$gpu/row_sum_root_local.py" \
  --target cuda && has "stage tvm_tir_lower: check: ok" &&
  has "stage lower_thread_allreduce: check: ok (8256 elements" &&
  has "stage split_host_device: check: ok"
TVM_VM_LIBCUDA=/nonexistent/libcuda.so.1 expect 4 "$tvmc" run "$gpu/add.py" --target cuda \
  --shape n=1000 --no-check && assert [ -z "$(grep -F "stage " <<<"$out")" ]
if [ -n "${TVM_FAKE_CUDA:-}" ]; then
  TVM_VM_LIBCUDA=$TVM_FAKE_CUDA expect 0 "$tvmc" run "$gpu/add.py" --target cuda --shape n=1000 \
    --no-check --repeat 3 && has "mean 0.25 ms over 3 launches on cuda:0 (CUDA events"
fi
# ---- the default schedule -----------------------------------------------------------------
for c in build run; do expect 0 "$tvmc" $c --help && has "--no-schedule"; done
# The block matmul as written has no parallel or vector loop: run schedules it (checked against
# the interpreter on the unscheduled kernel), the flops still counted from the loops as written.
expect 0 "$tvmc" run "$fx/matmul.py" --repeat 1 && has "check: ok (32768 elements" &&
  has "(2097152 flops)"
expect 0 "$tvmc" run --no-schedule "$fx/matmul.py" --repeat 1 && has "check: ok (32768 elements"
expect 0 "$tvmc" run --bounds-check "$fx/matmul.py" --repeat 1 && has "check: ok"
# build: the scheduled library has a parallel loop (the pool's launch variable), the other not.
expect 0 "$tvmc" build "$fx/matmul.py" -o "$work/mm_sched.so"
expect 0 "$tvmc" build --no-schedule "$fx/matmul.py" -o "$work/mm_plain.so"
assert grep -q __TVMBackendParallelLaunch "$work/mm_sched.so"
assert bash -c "! grep -q __TVMBackendParallelLaunch '$work/mm_plain.so'"
expect 0 "$tvmc" run "$fx/matmul.py" --lib "$work/mm_sched.so" --repeat 1 && has "check: ok"

# ---- Relax models ------------------------------------------------------------------------------
# build: the Relax pipeline into one model library (executable + kernels); run: the VM against
# the reference evaluator on random inputs, every output compared (tuples field by field).
mlp=$src/examples/serve/model.py
models=$fx/relax_models.py
rm -f "$work/mlp.so"
expect 0 "$tvmc" build "$mlp" -o "$work/mlp.so" && assert [ -z "$out" ] &&
  assert [ -s "$work/mlp.so" ]
expect 0 nm -D --defined-only "$work/mlp.so" && has "__tvm_ffi__library_bin"
# the distributed dialect parses and prints, but there is no distributed runtime: build refuses
# it, naming the function and the binding or parameter
expect 3 "$tvmc" build "$fx/ccl_allreduce.py" -o "$work/ccl.so" &&
  has "function 'main', binding 'z': relax.ccl.allreduce: distributed execution is not supported"
expect 3 "$tvmc" build "$fx/dtensor_param.py" -o "$work/dtensor.so" &&
  has "function 'main', parameter 'x': a DTensor parameter: distributed execution is not supported"
expect 0 "$tvmc" check "$fx/dtensor_param.py"
expect 0 "$tvmc" run "$mlp" --shape n=5 --repeat 2 && has "output: float32 (5, 3):" &&
  has "check: ok (15 values in 1 output tensors match the reference evaluator; max abs error" &&
  has "main: median"
expect 0 "$tvmc" run "$mlp" --shape n=64 --seed 7 --repeat 1 && has "check: ok (192 values"
# bitwise and shift kernels, logical_xor, log_add_exp, softplus and selu compiled vs the
# reference evaluator
expect 0 "$tvmc" run "$fx/relax_elementwise_more.py" --repeat 1 &&
  has "check: ok (128 values in 4 output"
# stack and sort kernels compiled vs the reference evaluator, in both exec modes
expect 0 "$tvmc" run "$fx/relax_stack_sort.py" --shape n=4 --repeat 1 &&
  has "check: ok (155 values in 3 output"
expect 0 "$tvmc" run "$fx/relax_stack_sort.py" --shape n=3 --exec-mode compiled --repeat 1 &&
  has "check: ok (125 values in 3 output"
# a reference run over the check budget is announced (with its estimate) before it starts
expect 0 "$tvmc" run "$fx/relax_matmuls.py" --repeat 0 && has "check: ok (256 values" &&
  assert [ "${out#*the reference evaluator interprets}" = "$out" ]
TVMC_CHECK_WORK=1000 expect 0 "$tvmc" run "$fx/relax_matmuls.py" --repeat 0 &&
  has "check: ok (256 values" &&
  has "tvmc run: the reference evaluator interprets about 4.2e+05 IR nodes"
expect 0 "$tvmc" run --no-schedule "$mlp" --shape n=3 --repeat 0 && has "check: ok (9 values"
# a transformer block whose reshape kernel sizes its flat input (seq * 32,) by the seq that only
# its output defines (bound and checked in the packed API's order)
expect 0 "$tvmc" run "$src/tests/corpus/relax/transformer_block.py" --shape seq=8 --repeat 1 &&
  has "check: ok (256 values"
# data-dependent shapes: a shape kernel, R.tensor_to_shape, a match_cast, then the values
expect 0 "$tvmc" run "$src/tests/corpus/relax/index_dynamic.py" --func nz3 --repeat 1 &&
  has "output: int64 (3, 28)" && has "check: ok (84 values"
expect 0 "$tvmc" run "$src/tests/corpus/relax/index_dynamic.py" --func dslice --seed 6 \
  --exec-mode compiled --repeat 1 && has "output: float32 (1, 3)" && has "check: ok (3 values"
expect 0 "$tvmc" run "$src/tests/corpus/relax/index_dynamic.py" --func dslice3 --shape n=6 \
  --repeat 1 && has "check: ok"
# random strides of seed 2 hold a 0: the shape kernel's located error
expect 1 "$tvmc" run "$src/tests/corpus/relax/index_dynamic.py" --func dslice --seed 2 --repeat 0 &&
  has "relax.dynamic_strided_slice: a stride is 0"
expect 0 "$tvmc" build "$src/tests/corpus/relax/index_dynamic.py" -o "$work/dynamic.so"
# gather / scatter / one_hot / sorting kernels (indices from argsort and topk of the input)
expect 0 "$tvmc" run "$fx/relax_index_model.py" --shape n=5 --repeat 1 &&
  has "check: ok (216 values in 5 output tensors"
expect 0 "$tvmc" run "$fx/relax_index_model.py" --shape n=64 --exec-mode compiled --repeat 1 &&
  has "check: ok (2576 values in 5 output tensors"
expect 0 "$tvmc" run "$fx/relax_einsum_fused.py" --shape n=3 --repeat 1 &&
  has "check: ok (240 values in 1 output tensors"
# compiled exec mode: each Relax function native code, in-process and in a library
expect 0 "$tvmc" run "$mlp" --shape n=5 --exec-mode compiled --repeat 1 &&
  has "check: ok (15 values"
rm -f "$work/mlp_compiled.so"
expect 0 "$tvmc" build "$mlp" --exec-mode compiled -o "$work/mlp_compiled.so" &&
  assert [ -s "$work/mlp_compiled.so" ]
expect 0 "$tvmc" run "$work/mlp_compiled.so" --ref "$mlp" --shape n=4 --repeat 1 &&
  has "check: ok (12 values"
expect 0 "$tvmc" build "$mlp" --exec-mode compiled --emit text && has "@main num_inputs=5 vm_tir_func"
expect 0 "$tvmc" build "$mlp" --emit text && has "call  vm.builtin.check_tensor_info"
expect 2 "$tvmc" run "$mlp" --shape n=5 --exec-mode fast &&
  has "--exec-mode expects bytecode or compiled, got 'fast'"
expect 2 "$tvmc" build "$add" --exec-mode compiled && has "are for Relax models"
expect 2 "$tvmc" run "$add" --exec-mode compiled && has "is for Relax models"
# the symbolic batch must be bound, by a name the signature has
expect 2 "$tvmc" run "$mlp" && has "bind n (in the shape of parameter \`x\`) with --shape n=VALUE"
expect 2 "$tvmc" run "$mlp" --shape m=4 && has "no symbolic size named \`m\` (it has: n)"
expect 2 "$tvmc" run "$mlp" --shape n=0 && has "positive"
expect 2 "$tvmc" run "$mlp" --func nope --shape n=2 && has "no Relax function \`nope\` (it has: main)"
# the library: with its file as the reference, and alone (no reference: outputs printed)
expect 0 "$tvmc" run "$work/mlp.so" --ref "$mlp" --shape n=4 --repeat 1 &&
  has "check: ok (12 values"
expect 0 "$tvmc" run "$work/mlp.so" --input x=6x4 --input w0=4x8 --input b0=8 --input w1=8x3 \
  --input b1=3 --repeat 1 && has "output: float32 (6, 3):" && has "no reference" && has "main: median"
expect 2 "$tvmc" run "$work/mlp.so" --input x=6x4 && has "takes 5 arguments (x, w0, b0, w1, b1)" &&
  has "missing: w0"
expect 2 "$tvmc" run "$work/mlp.so" --func nope && has "has no function \`nope\` (it has: main)"
expect 2 "$tvmc" run "$work/mlp.so" --input q=3 && has "no parameter \`q\` (it has: x, w0, b0, w1, b1)"
expect 2 "$tvmc" run "$work/mlp.so" --input x=4y4 && has "expected a shape such as 4x16"
# Bad calls: located errors from the compiled model's entry checks (function, parameter), never
# a crash; wrong rank, dtype, shape, then argument count (the reference file of another model).
ins="--input w0=4x8 --input b0=8 --input w1=8x3 --input b1=3"
expect 1 "$tvmc" run "$work/mlp.so" --input x=6x4x1 $ins &&
  has "main: argument 'x' of R.Tensor((n, 4), dtype=\"float32\"): expected a Tensor with ndim 2 but got 3"
expect 1 "$tvmc" run "$work/mlp.so" --input x=6x4:int32 $ins &&
  has "argument 'x'" && has "expected a Tensor with dtype float32 but got int32"
expect 1 "$tvmc" run "$work/mlp.so" --input x=6x5 $ins &&
  has "dimension 1 of main: argument 'x'" && has "expected 4 but got 5"
expect 1 "$tvmc" run "$work/mlp.so" --ref "$fx/relax_other_sig.py" --repeat 0 &&
  has "VM function \`main\` expects 5 arguments but got 1"
# a library whose results differ from the reference: the first mismatch, with both values
expect 0 "$tvmc" build "$fx/relax_other_sig.py" -o "$work/other.so"
expect 1 "$tvmc" run "$work/other.so" --ref "$fx/relax_other_wrong.py" &&
  has "check FAILED: output[0, 0]: compiled" && has "reference" &&
  has "8 difference(s) from the reference evaluator (8 values compared)"
# float16 / bfloat16 inputs and a float16 output: made, run and compared (both exec modes); a
# library whose float16 results differ is caught
expect 0 "$tvmc" run "$fx/relax_half.py" --repeat 1 && has "check: ok (12 values"
expect 0 "$tvmc" run "$fx/relax_half.py" --repeat 0 --exec-mode compiled && has "check: ok (12 values"
expect 0 "$tvmc" build "$fx/relax_half.py" -o "$work/half.so"
expect 1 "$tvmc" run "$work/half.so" --ref "$fx/relax_half_wrong.py" --repeat 0 &&
  has "check FAILED: output[0, 1]: compiled 0.665039062, reference 0" && has "values compared)"
# the same bad shape to the compiled file and the reference: the VM names the parameter first
expect 1 "$tvmc" run "$mlp" --input x=6x5 --repeat 0 && has "argument 'x'" &&
  has "expected 4 but got 5"
# --emit: the executable's text (the library written only with -o), --dump-ir: every pass
expect 0 "$tvmc" build "$mlp" --emit text && has "@main" && has "call" && has "ret"
expect 0 "$tvmc" build "$mlp" --emit python && has "ib.emit_call"
rm -f "$work/mlp3.so"
expect 0 "$tvmc" build "$mlp" --emit text -o "$work/mlp3.so" && has "@main" &&
  assert [ -s "$work/mlp3.so" ]
rm -rf "$work/dump" "$work/mlp2.so"
expect 0 "$tvmc" build "$mlp" --dump-ir "$work/dump" -o "$work/mlp2.so" &&
  assert [ -s "$work/mlp2.so" ] && assert [ -f "$work/dump/00_input.py" ] &&
  assert [ -f "$work/dump/02_LegalizeOps.py" ]
ndump=$(ls "$work/dump" | wc -l)
assert [ "$ndump" -ge 10 ]
for f in "$work"/dump/*.py; do expect 0 "$tvmc" check "$f" && has ok; done
expect 2 "$tvmc" build "$mlp" --dump-ir "$work/no_such_dir/ir" -o "$work/x.so" &&
  has "--dump-ir: cannot make the folder"
expect 0 "$tvmc" check "$fx/relax_lone.py" && has ok
for c in build run; do
  expect 1 "$tvmc" $c "$fx/relax_lone.py" && has "a lone @R.function: put it in an \`@I.ir_module\` class"
done
expect 2 "$tvmc" run "$models" --func scale_add && has "no Relax function \`scale_add\`"
expect 2 "$tvmc" build "$mlp" --emit json && has "--emit expects text or python"
expect 2 "$tvmc" build "$add" --emit text && has "defines no @R.function"
# Relax models for cuda: the kernels given the default GPU schedule and their PTX written into
# the model library (no GPU needed); run needs a GPU: without a driver it says so (exit 4); with
# the fake driver the model runs on "cuda:0" (--no-check: the fake computes nothing).
rm -f "$work/mlp_cuda.so"
expect 0 "$tvmc" build "$mlp" --target "cuda -arch=sm_80" -o "$work/mlp_cuda.so" &&
  assert [ -s "$work/mlp_cuda.so" ]
expect 0 "$tvmc" build "$mlp" --target cuda --no-schedule -o "$work/mlp_cuda.so"
TVM_VM_LIBCUDA=/nonexistent/libcuda.so.1 expect 4 "$tvmc" run "$mlp" --target cuda --shape n=4 &&
  has "skipped" && has "no CUDA driver"
TVM_VM_LIBCUDA=/nonexistent/libcuda.so.1 expect 4 "$tvmc" run "$work/mlp_cuda.so" --ref "$mlp" \
  --target cuda --shape n=4 && has "skipped" && has "no CUDA driver"
if [ -n "${TVM_FAKE_CUDA:-}" ]; then
  TVM_VM_LIBCUDA=$TVM_FAKE_CUDA expect 0 "$tvmc" run "$mlp" --target cuda --shape n=4 --no-check \
    --repeat 2 && has "output: float32 (4, 3):" && has "median"
  TVM_VM_LIBCUDA=$TVM_FAKE_CUDA expect 0 "$tvmc" run "$work/mlp_cuda.so" --ref "$mlp" \
    --target cuda --shape n=4 --no-check --repeat 1 && has "output: float32 (4, 3):"
  # compiled mode: the VM's functions host code next to the GPU kernels
  TVM_VM_LIBCUDA=$TVM_FAKE_CUDA expect 0 "$tvmc" run "$mlp" --target cuda --exec-mode compiled \
    --shape n=4 --no-check --repeat 1 && has "output: float32 (4, 3):"
fi
expect 2 "$tvmc" build "$mlp" --func main && has "--func does not apply"
expect 2 "$tvmc" run "$add" --input A=4 && has "--input is for Relax models"
expect 2 "$tvmc" run "$add" --ref "$mlp" && has "--ref is for running a model library"
expect 2 "$tvmc" run "$work/mlp.so" --ref "$add" && has "defines no @R.function"
# a parameter of unknown shape needs --input; a shape output; the inputs' memory is bounded
cf=$src/tests/corpus/relax/control_flow.py
expect 2 "$tvmc" run "$cf" --func cast && has "cannot make a value of R.Tensor(dtype=\"float32\", ndim=1)" &&
  has "--input x=SHAPE:DTYPE"
expect 0 "$tvmc" run "$cf" --func cast --input x=5 --repeat 1 && has "output[1]: shape (5,)" &&
  has "check: ok (6 values in 1 output tensors"
expect 0 "$tvmc" run "$cf" --func closure --repeat 1 && has "check: ok (6 values"
# hamming_window's kernel compiled (cos in float64) against the evaluator
expect 0 "$tvmc" run "$fx/relax_hamming_window.py" --repeat 1 && has "check: ok (7 values"
# index_tensor's kernel compiled (broadcast index tensors, negative indices) against the evaluator
expect 0 "$tvmc" run "$fx/relax_index_tensor.py" --repeat 1 && has "check: ok (24 values"
# meshgrid's kernel compiled ("ij" and "xy": one loop nest per output grid) against the evaluator
expect 0 "$tvmc" run "$fx/relax_meshgrid.py" --repeat 1 && has "check: ok (48 values"
# bucketize's kernel compiled (a binary search per element; right, out_int32) against the evaluator
expect 0 "$tvmc" run "$fx/relax_bucketize.py" --repeat 1 && has "check: ok (40 values"
# multinomial_from_uniform's kernel compiled (a scan of a row's running sums per sample) and
# grid_sample's (an affine_grid grid; bicubic / reflection and nearest / border) against the
# evaluator
expect 0 "$tvmc" run "$fx/relax_multinomial.py" --repeat 1 && has "check: ok (12 values"
expect 0 "$tvmc" run "$fx/relax_grid_sample.py" --repeat 1 && has "check: ok (312 values"
# roi_pool's kernel compiled (rounded rois partly outside the image, empty bins) against the
# evaluator; get_valid_counts' (scores equal to the threshold, the class check on and off)
expect 0 "$tvmc" run "$fx/relax_roi_pool.py" --repeat 1 && has "check: ok (150 values"
expect 0 "$tvmc" run "$fx/relax_get_valid_counts.py" --repeat 1 && has "check: ok (228 values"
# attention_var_len's kernel compiled (ragged sequences, one without queries, one without keys;
# no mask, TopLeft, BottomRight with a window) against the evaluator
expect 0 "$tvmc" run "$fx/relax_attention_var_len.py" --repeat 1 && has "check: ok (600 values"
# unique's count and value kernels compiled (floored inputs: many repeats; sorted, unsorted, rows
# along an axis) against the evaluator
expect 0 "$tvmc" run "$fx/relax_unique.py" --repeat 1 && has "check: ok (62 values in 8 output"
# multibox_transform_loc's kernel compiled (the defaults; clip, a threshold, distinct variances,
# no background; raw scores) against the evaluator
expect 0 "$tvmc" run "$fx/relax_multibox_transform_loc.py" --repeat 1 &&
  has "check: ok (210 values in 6 output"
# if branches ending with dataflow blocks (seed 1 takes the else branch, seed 3 the then branch)
for seed in 1 3; do
  expect 0 "$tvmc" run "$cf" --func choose_dataflow --seed $seed --repeat 1 &&
    has "check: ok (4 values"
done
TVMC_MEMORY_LIMIT=4K expect 3 "$tvmc" run "$mlp" --shape n=1000 && has "MemoryError: parameter \`x\`"
# if/else (both branches), nested tuple outputs, call_tir to a hand-written PrimFunc
for seed in 1 2 3; do
  expect 0 "$tvmc" run "$models" --func choose --shape n=7 --seed $seed --repeat 1 &&
    has "check: ok (28 values"
done
expect 0 "$tvmc" run "$models" --func pair --repeat 1 && has "output[0]: float32 (3, 5)" &&
  has "output[1][1]: float32 (5,)" && has "check: ok (35 values in 3 output tensors"
expect 0 "$tvmc" run "$models" --func kernel --shape n=9 --repeat 1 && has "check: ok (36 values"
expect 2 "$tvmc" run "$models" --shape n=2 && has "several Relax functions and no \`main\`" &&
  has "choose, pair, kernel"
expect 0 "$tvmc" build "$models" -o "$work/models.so"
expect 0 "$tvmc" run "$work/models.so" --ref "$models" --func kernel --shape n=3 --repeat 1 &&
  has "check: ok (12 values"
expect 0 "$tvmc" run "$work/models.so" --func pair --input x=3x5 --input y=5 --repeat 0 &&
  has "output[1][0]: float32 (3, 5)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
