/*
 * test_relax_dynamic_ops.c: the operators whose output shape depends on the data (nonzero,
 * dynamic_strided_slice; tests/corpus/relax/index_dynamic.py) legalized into a shape kernel,
 * R.tensor_to_shape, an R.match_cast and the value kernel, then run two ways on random inputs:
 * in the Relax reference evaluator (the kernels in libtir's interpreter) and compiled (LLVM
 * kernels in libvm; bytecode mode here, compiled mode in the _compiled twin). Each result is
 * compared, shape and values, with plain C: NumPy's nonzero, and Python's slice.indices for the
 * slice (negative strides, bounds out of range). A zero stride is a located error both ways.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/script/parser.h>
#include <tvm/vm/vm.h>

#include "relax_testing.h"
#include "exec_mode_testing.h"
#include "script_testing.h"
#include "values_testing.h"
#include "corpus_ops_testing.h"

/* ---- nonzero --------------------------------------------------------------------------------- */
/* NumPy's nonzero(atleast_1d(x)) stacked: (rows, count), column k the index of the k-th nonzero
 * element in row-major order. x is given as doubles. */
static int64_t nonzero_oracle(const double* x, int ndim, const int64_t* shape, double* want) {
  int64_t total = 1;
  for (int d = 0; d < ndim; ++d) total *= shape[d];
  int64_t count = 0;
  for (int64_t i = 0; i < total; ++i) count += x[i] != 0;
  int rows = ndim ? ndim : 1;
  int64_t k = 0;
  for (int64_t i = 0; i < total; ++i) {
    if (x[i] == 0) continue;
    int64_t rem = i;
    for (int d = rows - 1; d >= 0; --d) {
      int64_t e = ndim ? shape[d] : 1;
      want[d * count + k] = (double)(rem % e);
      rem /= e;
    }
    ++k;
  }
  return count;
}

/* A tensor of dtype dt with about `zeros` of its elements zero, the rest random nonzero. */
static void* mixed(int ndim, const int64_t* shape, DLDataType dt, double zeros, double* vals) {
  void* t = tensor(ndim, shape, dt);
  DLTensor* dl = tvm_ffi_tensor_dl(t);
  int64_t n = tvm_ffi_dltensor_numel(dl);
  for (int64_t i = 0; i < n; ++i) {
    bool zero = (rv_rnd() + 2) / 4 < zeros;
    double v = rv_rnd();
    if (dt.code == kDLFloat) {
      ((float*)dl->data)[i] = zero ? 0.0f : (float)(v == 0 ? 1 : v);
      vals[i] = ((float*)dl->data)[i];
    } else if (dt.bits == 1) {
      ((uint8_t*)dl->data)[i] = !zero;
      vals[i] = !zero;
    } else {
      int32_t iv = zero ? 0 : (int32_t)rv_rnd_int(1, 100) * (v < 0 ? -1 : 1);
      ((int32_t*)dl->data)[i] = iv;
      vals[i] = iv;
    }
  }
  return t;
}

static void check_nonzero(const char* fn, int ndim, const int64_t* shape, DLDataType dt, double zeros) {
  double vals[64], want[3 * 64] = {0};
  void* x = mixed(ndim, shape, dt, zeros, vals);
  int64_t count = nonzero_oracle(vals, ndim, shape, want);
  expect2(fn, &x, 1, 2, (int64_t[]){ndim ? ndim : 1, count}, tvm_tir_dtype_int(64), want);
  tvm_ffi_release(x);
}

TEST(nonzero) {
  DLDataType f32 = tvm_tir_dtype_float(32), i32 = tvm_tir_dtype_int(32);
  DLDataType b = tvm_tir_dtype_bool();
  const double mixes[4] = {0.5, 0.0, 1.0, 0.8}; /* mixed, none zero, all zero, mostly zero */
  for (int m = 0; m < 4; ++m) {
    check_nonzero("nz", 2, (int64_t[]){3, 4}, f32, mixes[m]);
    check_nonzero("nz3", 3, (int64_t[]){2, 3, 5}, i32, mixes[m]);
    check_nonzero("nz_bool", 1, (int64_t[]){7}, b, mixes[m]);
  }
  check_nonzero("nz0", 0, NULL, f32, 0.0);
  check_nonzero("nz0", 0, NULL, f32, 1.0);
}

/* nz_take: 2 * d at the true positions of m (the take fused with the add, after nonzero's
 * data-dependent length is bound). */
TEST(nonzero_take_fused) {
  const double mixes[3] = {0.5, 0.0, 1.0};
  for (int t = 0; t < 3; ++t) {
    double dv[6], mv[6], want[6];
    void* a[2] = {mixed(1, (int64_t[]){6}, tvm_tir_dtype_float(32), 0.0, dv),
                  mixed(1, (int64_t[]){6}, tvm_tir_dtype_bool(), mixes[t], mv)};
    int64_t count = 0;
    for (int i = 0; i < 6; ++i) {
      if (mv[i] != 0) want[count++] = 2 * dv[i];
    }
    expect2("nz_take", a, 2, 1, (int64_t[]){count}, tvm_tir_dtype_float(32), want);
    tvm_ffi_release(a[0]), tvm_ffi_release(a[1]);
  }
}

/* ---- dynamic_strided_slice ------------------------------------------------------------------- */
/* CPython's PySlice_AdjustIndices: the start and length of x[start:stop:step] over len. */
static int64_t py_slice(int64_t start, int64_t stop, int64_t step, int64_t len, int64_t* out_start) {
  if (start < 0) {
    start += len;
    if (start < 0) start = step < 0 ? -1 : 0;
  } else if (start >= len) {
    start = step < 0 ? len - 1 : len;
  }
  if (stop < 0) {
    stop += len;
    if (stop < 0) stop = step < 0 ? -1 : 0;
  } else if (stop >= len) {
    stop = step < 0 ? len - 1 : len;
  }
  *out_start = start;
  if (step < 0) return stop < start ? (start - stop - 1) / -step + 1 : 0;
  return start < stop ? (stop - start - 1) / step + 1 : 0;
}

/* x (shape xs, r dims) sliced with random bounds in [-lim, lim) and nonzero strides in [-3, 3],
 * of index dtype it; `twice` for dslice3 (its result is y + y). */
static void check_dslice(const char* fn, int r, const int64_t* xs, DLDataType it, int64_t lim,
                         bool twice) {
  void* x = rv_rand(r, xs);
  const float* xv = tvm_ffi_tensor_dl(x)->data;
  void* bes[3];
  int64_t bnd[3][3];
  for (int a = 0; a < 3; ++a) {
    bes[a] = tensor(1, (int64_t[]){r}, it);
    for (int d = 0; d < r; ++d) {
      int64_t v = a < 2 ? rv_rnd_int(-lim, lim) : rv_rnd_int(1, 4) * (rv_rnd() < 0 ? -1 : 1);
      bnd[a][d] = v;
      if (it.bits == 64) ((int64_t*)tvm_ffi_tensor_dl(bes[a])->data)[d] = v;
      else ((int32_t*)tvm_ffi_tensor_dl(bes[a])->data)[d] = (int32_t)v;
    }
  }
  int64_t start[3], len[3], total = 1;
  for (int d = 0; d < r; ++d) {
    len[d] = py_slice(bnd[0][d], bnd[1][d], bnd[2][d], xs[d], &start[d]);
    total *= len[d];
  }
  double want[8 * 9 * 6];
  for (int64_t i = 0; i < total; ++i) {
    int64_t rem = i, flat = 0, o[3];
    for (int d = r - 1; d >= 0; --d) o[d] = rem % len[d], rem /= len[d];
    for (int d = 0; d < r; ++d) flat = flat * xs[d] + start[d] + o[d] * bnd[2][d];
    want[i] = twice ? (double)(xv[flat] + xv[flat]) : xv[flat];
  }
  void* args[4] = {x, bes[0], bes[1], bes[2]};
  expect2(fn, args, 4, r, len, tvm_tir_dtype_float(32), want);
  for (int i = 0; i < 4; ++i) tvm_ffi_release(args[i]);
}

TEST(dynamic_strided_slice) {
  for (int trial = 0; trial < 24; ++trial) {
    /* bounds within, around and far outside the dims */
    int64_t lim = trial < 8 ? 9 : trial < 16 ? 14 : 40;
    check_dslice("dslice", 2, (int64_t[]){8, 9}, tvm_tir_dtype_int(64), lim, false);
    check_dslice("dslice3", 3, (int64_t[]){4, 5, 6}, tvm_tir_dtype_int(32), lim / 2 + 1, true);
  }
}

/* strided_slice with begin and end from a shape argument (symbolic), the kernel reading the
 * begin as a scalar parameter: against Python's slice on bounds within, around and outside the
 * axis (sslice: axis 1, stride 2; sslice_back: axis 0, stride -1, then y + y, fused; sslice2:
 * two axes, a begin using x's own dim). */
static void check_sslice(const char* fn, int axis, int64_t step, int64_t b, int64_t e, bool twice) {
  int64_t xs[2] = {8, 9};
  void* x = rv_rand(2, xs);
  const float* xv = tvm_ffi_tensor_dl(x)->data;
  void* s = tvm_ffi_shape_new((int64_t[]){b, e}, 2);
  int64_t start, shape[2] = {8, 9};
  shape[axis] = py_slice(b, e, step, xs[axis], &start);
  double want[8 * 9];
  for (int64_t i = 0; i < shape[0]; ++i) {
    for (int64_t j = 0; j < shape[1]; ++j) {
      int64_t si = axis == 0 ? start + i * step : i, sj = axis == 1 ? start + j * step : j;
      want[i * shape[1] + j] = twice ? (double)(xv[si * 9 + sj] + xv[si * 9 + sj]) : xv[si * 9 + sj];
    }
  }
  void* args[2] = {x, s};
  expect2(fn, args, 2, 2, shape, tvm_tir_dtype_float(32), want);
  tvm_ffi_release(x);
  tvm_ffi_release(s);
}

/* sslice2: rows [n - b, n) and columns [c, c + 4) of an (8, 9) x; n is x's dim (a buffer
 * gives it), b and c the kernel's scalar parameters. */
static void check_sslice2(int64_t b, int64_t c) {
  int64_t xs[2] = {8, 9};
  void* x = rv_rand(2, xs);
  const float* xv = tvm_ffi_tensor_dl(x)->data;
  void* s = tvm_ffi_shape_new((int64_t[]){b, c}, 2);
  int64_t r0, c0, shape[2];
  shape[0] = py_slice(8 - b, 8, 1, 8, &r0);
  shape[1] = py_slice(c, c + 4, 1, 9, &c0);
  double want[8 * 9];
  for (int64_t i = 0; i < shape[0]; ++i) {
    for (int64_t j = 0; j < shape[1]; ++j) want[i * shape[1] + j] = xv[(r0 + i) * 9 + c0 + j];
  }
  void* args[2] = {x, s};
  expect2("sslice2", args, 2, 2, shape, tvm_tir_dtype_float(32), want);
  tvm_ffi_release(x);
  tvm_ffi_release(s);
}

TEST(symbolic_strided_slice) {
  for (int trial = 0; trial < 24; ++trial) {
    int64_t lim = trial < 8 ? 9 : trial < 16 ? 14 : 40;
    check_sslice("sslice", 1, 2, rv_rnd_int(-lim, lim), rv_rnd_int(-lim, lim), false);
    check_sslice("sslice_back", 0, -1, rv_rnd_int(-lim, lim), rv_rnd_int(-lim, lim), true);
    check_sslice2(rv_rnd_int(-4, 12), rv_rnd_int(-12, 12));
  }
}

/* A zero stride: Python's ValueError, here the shape kernel's assertion, located, both ways. */
TEST(zero_stride) {
  void* x = rv_rand(2, (int64_t[]){8, 9});
  int64_t vals[3][2] = {{0, 1}, {8, 9}, {1, 0}};
  void* args[4] = {x};
  for (int a = 0; a < 3; ++a) {
    args[a + 1] = tensor(1, (int64_t[]){2}, tvm_tir_dtype_int(64));
    memcpy(tvm_ffi_tensor_dl(args[a + 1])->data, vals[a], sizeof(vals[a]));
  }
  TVMFFIAny a[4], r = tvm_ffi_any_none();
  for (int i = 0; i < 4; ++i) a[i] = tvm_ffi_any_obj(args[i]);
  if (g_ops.legal) {
    CHECK(tvm_relax_eval(g_ops.legal, "dslice", a, 4, &r) != 0);
    CHECK_RAISED("AssertionError", "relax.dynamic_strided_slice: a stride is 0");
  }
  if (g_ops.vm) {
    CHECK(tvm_vm_invoke(g_ops.vm, "dslice", a, 4, &r) != 0);
    CHECK_RAISED("AssertionError", "relax.dynamic_strided_slice: a stride is 0");
  }
  for (int i = 0; i < 4; ++i) tvm_ffi_release(args[i]);
}

/* An x of unknown shape: no kernel can be built, a NotImplementedError naming the operator. */
TEST(unknown_shape) {
  static const char src[] =
      "from tvm.script import ir as I\n"
      "from tvm.script import relax as R\n"
      "@I.ir_module\n"
      "class M:\n"
      "    @R.function\n"
      "    def f(x: R.Tensor(ndim=2, dtype=\"float32\")) -> R.Tensor(ndim=2, dtype=\"int64\"):\n"
      "        y = R.nonzero(x)\n"
      "        return y\n";
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  tvm_tir_ir_module_obj* mod = tvm_script_parse(src, strlen(src), &opts);
  CHECK(mod != NULL);
  if (!mod) return;
  tvm_tir_ir_module_obj* legal = tvm_relax_transform_legalize_ops(mod);
  CHECK(legal == NULL);
  CHECK_RAISED("NotImplementedError", "relax.nonzero: the shape of 'x' must be known");
  tvm_ffi_release(legal);
  tvm_ffi_release(mod);
}

int main(void) {
  corpus_ops_setup("index_dynamic.py", 0);
  RUN(nonzero);
  RUN(nonzero_take_fused);
  RUN(dynamic_strided_slice);
  RUN(symbolic_strided_slice);
  RUN(zero_stride);
  RUN(unknown_shape);
  corpus_ops_teardown();
  return test_summary();
}
