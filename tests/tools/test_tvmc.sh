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
expect 2 "$tvmc" build "$add" --target cuda && has "unsupported target"
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

# ---- build: a library a C program loads ----------------------------------------------------
rm -f "$work/add.so"
expect 0 "$tvmc" build "$add" -o "$work/add.so" &&
  assert [ -z "$out" ] && assert [ -f "$work/add.so" ]
expect 0 "$load_kernel" "$work/add.so"
expect 0 "$tvmc" build "$add" --func add_n -o "$work/add_n.so"
expect 1 "$tvmc" build "$fx/undefined_name.py" -o "$work/bad.so" && has "undefined_name.py:7:18"

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
# ... through a sequence inside a narrowed loop (the baseline run is narrowed alike).
TVMC_CHECK_WORK=1000000 expect 0 "$tvmc" run "$fx/matmul_tiles.py" --repeat 1 &&
  has "(loop \`io\` narrowed to 1 of 8 iterations, loop \`ii\` narrowed to 3 of 8 iterations)"
expect 0 "$tvmc" build "$fx/tiles_wrong.py" -o "$work/tiles_wrong.so"
TVMC_CHECK_WORK=1000000 expect 1 "$tvmc" run "$fx/matmul_tiles.py" --lib "$work/tiles_wrong.so" &&
  has "check FAILED: C[1, 5]: compiled"
expect 0 "$tvmc" run "$add" --func add_n --shape n=64 --no-check --repeat 0 &&
  assert [ -z "$out" ]

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

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
