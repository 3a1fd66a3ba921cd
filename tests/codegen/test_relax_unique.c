/*
 * test_relax_unique.c: relax.unique (tests/corpus/relax/unique_ops.py) legalized into its count
 * kernel, R.tensor_to_shape, an R.match_cast and its value kernel, then run two ways on random
 * inputs with many repeats: in the Relax reference evaluator (the kernels in libtir's
 * interpreter) and compiled (LLVM kernels in libvm; bytecode mode here, compiled mode in the
 * _compiled twin). Each result (values, index, inverse, counts) is compared, shape, dtype and
 * values, with a plain C numpy.unique: sorted and in order of first occurrence, flattened and
 * along an axis, ints, bools and floats with NaNs (one NaN, sorted last) and signed zeros, a
 * symbolic dim, a 0-d and an empty x. Calls no kernel can be built for are located errors.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/relax/transform.h>
#include <tvm/script/parser.h>
#include <tvm/vm/vm.h>

/* (in this order: corpus_ops_testing.h uses the others) */
#include "relax_testing.h"
#include "exec_mode_testing.h"
#include "script_testing.h"
#include "values_testing.h"
#include "corpus_ops_testing.h"

enum { MAXN = 64 };

/* ---- The reference: numpy.unique over A slices of M elements -----------------------------------
 */
/* numpy's order of elements: numbers as numbers, NaN after them and equal to NaN. */
static int cmp_elem(double u, double v) {
  if (isnan(u) || isnan(v)) return isnan(u) - isnan(v);
  return u < v ? -1 : u > v;
}

typedef struct {
  int64_t A, M;
  double s[MAXN]; /* s[a * M + m]: element m of slice a */
} slices;

static int cmp_slice(const slices* x, int64_t a, int64_t b) {
  for (int64_t m = 0; m < x->M; ++m) {
    int c = cmp_elem(x->s[a * x->M + m], x->s[b * x->M + m]);
    if (c) return c;
  }
  return 0;
}

/* K, and the first occurrence index[k] of each unique slice (ascending or in order), its count
 * and every slice's inverse. */
static int64_t ref_unique(const slices* x, bool sorted, int64_t* index, int64_t* counts,
                          int64_t* inverse) {
  int64_t K = 0;
  for (int64_t a = 0; a < x->A; ++a) {
    int64_t b = 0;
    while (b < a && cmp_slice(x, b, a) != 0) ++b;
    if (b == a) index[K++] = a;
  }
  for (int64_t i = 1; sorted && i < K; ++i) { /* insertion sort of distinct slices */
    int64_t v = index[i], j = i;
    for (; j > 0 && cmp_slice(x, index[j - 1], v) > 0; --j) index[j] = index[j - 1];
    index[j] = v;
  }
  for (int64_t k = 0; k < K; ++k) {
    counts[k] = 0;
    for (int64_t a = 0; a < x->A; ++a) {
      if (cmp_slice(x, a, index[k]) == 0) counts[k]++, inverse[a] = k;
    }
  }
  return K;
}

/* ---- Inputs ---------------------------------------------------------------------------------- */
static void set_elem(DLTensor* t, int64_t i, double v) {
  char* p = (char*)t->data;
  if (t->dtype.code == kDLFloat) {
    if (t->dtype.bits == 64)
      ((double*)p)[i] = v;
    else
      ((float*)p)[i] = (float)v;
  } else if (t->dtype.bits == 64) {
    ((int64_t*)p)[i] = (int64_t)v;
  } else if (t->dtype.bits == 32) {
    ((int32_t*)p)[i] = (int32_t)v;
  } else {
    ((uint8_t*)p)[i] = (uint8_t)v;
  }
}

/* A random element from a small pool: ints in [-3, 3), bools, floats k / 4 in [-1, 1) with
 * NaNs and -0.0 (equal to 0.0) when `nan`. */
static double pool_value(DLDataType t, bool nan) {
  if (t.code != kDLFloat) return t.bits <= 8 ? (double)rv_rnd_int(0, 2) : (double)rv_rnd_int(-3, 3);
  double r = rv_rnd();
  if (nan && r > 1.4) return NAN;
  if (nan && r < -1.6) return -0.0;
  return (double)rv_rnd_int(-4, 4) / 4;
}

/* x of dtype t and shape (r dims), slices along axis (-1: flattened), each slice random or a
 * copy of an earlier one; *out the slices, read back from the tensor. */
static void* make_x(DLDataType t, int r, const int64_t* shape, int axis, bool nan, slices* out) {
  int64_t n = 1, outer = 1, inner = 1;
  for (int d = 0; d < r; ++d) {
    n *= shape[d];
    if (axis >= 0 && d < axis) outer *= shape[d];
    if (axis >= 0 && d > axis) inner *= shape[d];
  }
  out->A = axis < 0 ? n : shape[axis];
  out->M = axis < 0 ? 1 : outer * inner;
  void* x = tensor(r, shape, t);
  DLTensor* dl = tvm_ffi_tensor_dl(x);
  for (int64_t a = 0; a < out->A; ++a) {
    int64_t from = a > 0 && rv_rnd() > 0 ? rv_rnd_int(0, a) : -1;
    for (int64_t m = 0; m < out->M; ++m) {
      int64_t o = m / inner, i = m % inner;
      int64_t at = axis < 0 ? a : (o * out->A + a) * inner + i;
      int64_t src = axis < 0 ? from : (o * out->A + from) * inner + i;
      set_elem(dl, at, from >= 0 ? rv_elem(dl, src) : pool_value(t, nan));
      out->s[a * out->M + m] = rv_elem(dl, at);
    }
  }
  return x;
}

/* ---- Checks ---------------------------------------------------------------------------------- */
typedef struct {
  bool sorted, ret_index, ret_inverse, ret_counts;
  int axis; /* -1: None */
} flags;

/* fn(x) both ways against the reference: x has r dims `shape` and dtype t; `twice`: fn returns
 * (values + values, counts) (counts_sym). */
static void check(const char* fn, DLDataType t, int r, const int64_t* shape, flags f, bool nan,
                  bool twice) {
  slices s;
  void* x = make_x(t, r, shape, f.axis, nan, &s);
  int64_t index[MAXN], counts[MAXN], inverse[MAXN];
  int64_t K = ref_unique(&s, f.sorted, index, counts, inverse);
  /* the values: x's dims with K on the axis, or (K,) */
  int vr = f.axis < 0 ? 1 : r;
  int64_t vshape[8];
  int64_t inner = 1;
  for (int d = 0; d < vr; ++d) vshape[d] = f.axis < 0 || d == f.axis ? K : shape[d];
  for (int d = f.axis + 1; f.axis >= 0 && d < r; ++d) inner *= shape[d];
  double values[MAXN], di[MAXN], dc[MAXN], dv[MAXN];
  int64_t nv = K * s.M;
  for (int64_t e = 0; e < nv; ++e) {
    int64_t o = e / (K * inner), k = e / inner % K, i = e % inner;
    values[e] = s.s[index[k] * s.M + o * inner + i] * (twice ? 2 : 1);
  }
  for (int64_t k = 0; k < K; ++k) di[k] = (double)index[k], dc[k] = (double)counts[k];
  for (int64_t a = 0; a < s.A; ++a) dv[a] = (double)inverse[a];
  TVMFFIAny res[2];
  void* args[1] = {x};
  if (run2(fn, args, 1, res)) {
    for (int w = 0; w < 2; ++w) {
      bool tuple = res[w].type_index == kTVMFFIArray;
      int want_fields = twice ? 2 : 1 + f.ret_index + f.ret_inverse + f.ret_counts;
      CHECK(tuple == (want_fields > 1));
      if (tuple && tvm_ffi_seq_size(res[w].v_obj) != want_fields) {
        CHECK_EQ_INT(tvm_ffi_seq_size(res[w].v_obj), want_fields);
        continue;
      }
      int at = 0, bad = 0;
      const TVMFFIAny* field = tuple ? tvm_ffi_seq_at(res[w].v_obj, at++) : &res[w];
      bad += mismatches(field, vr, vshape, t, values);
      DLDataType i64 = tvm_tir_dtype_int(64);
      if (f.ret_index) bad += mismatches(tvm_ffi_seq_at(res[w].v_obj, at++), 1, &K, i64, di);
      if (f.ret_inverse) bad += mismatches(tvm_ffi_seq_at(res[w].v_obj, at++), 1, &s.A, i64, dv);
      if (f.ret_counts) bad += mismatches(tvm_ffi_seq_at(res[w].v_obj, at++), 1, &K, i64, dc);
      if (bad)
        fprintf(stderr, "%s (%s): %d elements differ\n", fn, w ? "compiled" : "evaluator", bad);
      CHECK_EQ_INT(bad, 0);
    }
  }
  tvm_ffi_any_release(&res[0]), tvm_ffi_any_release(&res[1]);
  tvm_ffi_release(x);
}

#define I32 tvm_tir_dtype_int(32)
#define I64 tvm_tir_dtype_int(64)
#define F32 tvm_tir_dtype_float(32)

TEST(flattened) {
  for (int trial = 0; trial < 8; ++trial) {
    check("flat", I32, 2, (int64_t[]){4, 6}, (flags){true, false, false, false, -1}, false, false);
    check("flat_all", F32, 2, (int64_t[]){5, 7}, (flags){true, true, true, true, -1}, trial > 1,
          false);
    check("unsorted_all", F32, 1, (int64_t[]){30}, (flags){false, true, true, true, -1}, trial > 1,
          false);
    check("unsorted_index", I32, 2, (int64_t[]){3, 8}, (flags){false, true, false, false, -1},
          false, false);
    check("inverse_bool", tvm_tir_dtype_bool(), 1, (int64_t[]){9},
          (flags){true, false, true, false, -1}, false, false);
  }
}

/* A symbolic dim, the values used by a later binding (the variable remapped to the precise
 * struct info), an empty x among them. */
TEST(symbolic) {
  const int64_t ns[5] = {1, 3, 6, 0, 5};
  for (int i = 0; i < 5; ++i) {
    check("counts_sym", I64, 2, (int64_t[]){ns[i], 4}, (flags){true, false, false, true, -1}, false,
          true);
  }
}

TEST(along_axis) {
  for (int trial = 0; trial < 8; ++trial) {
    check("along0", I32, 2, (int64_t[]){6, 3}, (flags){true, true, true, true, 0}, false, false);
    check("along1", F32, 3, (int64_t[]){2, 7, 2}, (flags){false, true, true, true, 1}, trial > 3,
          false);
    check("along_sorted", tvm_tir_dtype_float(64), 2, (int64_t[]){3, 5},
          (flags){true, false, false, false, 1}, trial > 3, false);
  }
}

/* A 0-d x (one value, results of known shape: the kernel without the count) and an empty one. */
TEST(scalar_and_empty) {
  for (int trial = 0; trial < 3; ++trial) {
    check("scalar", F32, 0, NULL, (flags){true, true, true, true, -1}, trial > 0, false);
  }
  check("empty", F32, 1, (int64_t[]){0}, (flags){true, true, true, true, -1}, false, false);
}

/* What LegalizeOps refuses, naming the operator: an x of unknown shape, a flag known at run time
 * only (upstream's NumPy function reads it then). */
TEST(refused) {
  static const char* const srcs[2] = {
      "from tvm.script import ir as I\n"
      "from tvm.script import relax as R\n"
      "@I.ir_module\n"
      "class M:\n"
      "    @R.function\n"
      "    def f(x: R.Tensor(ndim=2, dtype=\"float32\")):\n"
      "        y = R.unique(x)\n"
      "        return y\n",
      "from tvm.script import ir as I\n"
      "from tvm.script import relax as R\n"
      "@I.ir_module\n"
      "class M:\n"
      "    @R.function\n"
      "    def f(x: R.Tensor((4,), dtype=\"float32\"), s: R.Prim(\"bool\")):\n"
      "        y = R.unique(x, s)\n"
      "        return y\n"};
  static const char* const msgs[2] = {"relax.unique: the shape of 'x' must be known",
                                      "relax.unique: 'sorted' must be a constant"};
  for (int i = 0; i < 2; ++i) {
    tvm_script_parse_options opts;
    tvm_script_parse_options_init(&opts);
    tvm_tir_ir_module_obj* mod = tvm_script_parse(srcs[i], strlen(srcs[i]), &opts);
    CHECK_OK(mod ? 0 : -1);
    if (!mod) continue;
    tvm_tir_ir_module_obj* legal = tvm_relax_transform_legalize_ops(mod);
    CHECK(legal == NULL);
    CHECK_RAISED("NotImplementedError", msgs[i]);
    tvm_ffi_release(legal);
    tvm_ffi_release(mod);
  }
}

int main(void) {
  corpus_ops_setup("unique_ops.py", 0);
  RUN(flattened);
  RUN(symbolic);
  RUN(along_axis);
  RUN(scalar_and_empty);
  RUN(refused);
  corpus_ops_teardown();
  return test_summary();
}
