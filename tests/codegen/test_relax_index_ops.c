/*
 * test_relax_index_ops.c: the gather / scatter (and take, index_tensor), one_hot, sorting and
 * einsum operators (tests/corpus/relax/index_ops.py, one function each) legalized, then run two
 * ways on random inputs: in the Relax reference evaluator (the kernels in libtir's interpreter)
 * and compiled (LLVM kernels in libvm), each checked against the operator's semantics written as
 * plain C loops below; an index out of range fails both ways with the kernel's assertion. Then
 * the located errors of bad calls (the data-dependent ones: test_relax_dynamic_ops.c).
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

static float* F(void* t) { return tvm_ffi_tensor_dl(t)->data; }
static int64_t* L(void* t) { return tvm_ffi_tensor_dl(t)->data; }

/* ---- gather_elements ------------------------------------------------------------------------- */
#define INDEX_ERROR(op) "relax." op ": an index is out of range"

/* out[r, c] = x[r, i[r, c]] for x (3 x 4) and i (3 x 2); a negative index counts from the end. */
static void gather_of(const float* x, const int64_t* i, double* out) {
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 2; ++c) {
      int64_t k = i[r * 2 + c];
      out[r * 2 + c] = x[r * 4 + (k < 0 ? k + 4 : k)];
    }
  }
}

TEST(gather_elements) {
  void* a[2] = {rv_rand(2, (int64_t[]){3, 4}), rv_rand_int(2, (int64_t[]){3, 2}, -4, 4)};
  double want[6];
  gather_of(F(a[0]), L(a[1]), want);
  expect2("gather", a, 2, 2, (int64_t[]){3, 2}, F32, want);
  /* negative indices only, down to -4 */
  for (int k = 0; k < 6; ++k) L(a[1])[k] = -1 - k % 4;
  gather_of(F(a[0]), L(a[1]), want);
  expect2("gather", a, 2, 2, (int64_t[]){3, 2}, F32, want);
  /* an index past the end or before -4 stops both runs with the kernel's error */
  static const int64_t kBad[2] = {4, -5};
  for (int b = 0; b < 2; ++b) {
    L(a[1])[3] = kBad[b];
    expect2_error("gather", a, 2, "AssertionError", INDEX_ERROR("gather_elements"));
  }
  release_all(a, 2);
  /* indices with more rows than data: row 3 is outside data */
  void* t[2] = {rv_rand(2, (int64_t[]){3, 4}), rv_rand_int(2, (int64_t[]){4, 2}, -4, 4)};
  expect2_error("gather_tall", t, 2, "AssertionError", INDEX_ERROR("gather_elements"));
  release_all(t, 2);
}

/* ---- take ------------------------------------------------------------------------------------ */
/* take in its default mode "fast": rows of x (4 x 3) at i (2 x 3), a negative one from the end;
 * one outside [-4, 4) stops both runs with the kernel's error. */
static void take_rows_of(const float* x, const int64_t* i, double* out) {
  for (int p = 0; p < 6; ++p) {
    int64_t r = i[p] < 0 ? i[p] + 4 : i[p];
    for (int c = 0; c < 3; ++c) out[p * 3 + c] = x[r * 3 + c];
  }
}

TEST(take) {
  void* a[2] = {rv_rand(2, (int64_t[]){4, 3}), rv_rand_int(2, (int64_t[]){2, 3}, -4, 4)};
  double want[18];
  take_rows_of(F(a[0]), L(a[1]), want);
  expect2("take_rows", a, 2, 3, (int64_t[]){2, 3, 3}, F32, want);
  for (int p = 0; p < 6; ++p) L(a[1])[p] = -1 - p % 4;
  take_rows_of(F(a[0]), L(a[1]), want);
  expect2("take_rows", a, 2, 3, (int64_t[]){2, 3, 3}, F32, want);
  static const int64_t kBad[2] = {4, -5};
  for (int b = 0; b < 2; ++b) {
    L(a[1])[4] = kBad[b];
    expect2_error("take_rows", a, 2, "AssertionError", INDEX_ERROR("take"));
  }
  release_all(a, 2);
}

/* take in modes "clip" (an index clamped to [0, n)) and "wrap" (taken modulo n, Python's sign)
 * with the axis a symbolic n: any index reads inside x, for n = 4 and for n = 1; on an empty
 * axis (n = 0) there is nothing to read and both runs fail with the kernel's assertion. */
static int64_t clip_or_wrap(int64_t k, int64_t n, bool wrap) {
  if (wrap) return ((k % n) + n) % n;
  return k < 0 ? 0 : k >= n ? n - 1 : k;
}

TEST(take_clip_wrap) {
  static const int64_t kIdx[5] = {-7, -1, 0, 3, 9};
  for (int n = 4; n >= 0; n -= 3) { /* n = 4, 1; then 0 below */
    void* xc = rv_rand(2, (int64_t[]){n, 3});
    void* xw = rv_rand(2, (int64_t[]){3, n});
    void* i = rv_rand_int(1, (int64_t[]){5}, -9, 10);
    memcpy(L(i), kIdx, sizeof(kIdx));
    double want[15];
    for (int p = 0; p < 5; ++p) {
      for (int c = 0; c < 3; ++c) want[p * 3 + c] = F(xc)[clip_or_wrap(kIdx[p], n, false) * 3 + c];
    }
    expect2("take_clip", (void*[]){xc, i}, 2, 2, (int64_t[]){5, 3}, F32, want);
    for (int r = 0; r < 3; ++r) {
      for (int p = 0; p < 5; ++p) want[r * 5 + p] = F(xw)[r * n + clip_or_wrap(kIdx[p], n, true)];
    }
    expect2("take_wrap", (void*[]){xw, i}, 2, 2, (int64_t[]){3, 5}, F32, want);
    release_all((void*[]){xc, xw, i}, 3);
  }
  void* e[3] = {rv_rand(2, (int64_t[]){0, 3}), rv_rand(2, (int64_t[]){3, 0}),
                rv_rand_int(1, (int64_t[]){5}, -3, 3)};
  expect2_error("take_clip", (void*[]){e[0], e[2]}, 2, "AssertionError", INDEX_ERROR("take"));
  expect2_error("take_wrap", (void*[]){e[1], e[2]}, 2, "AssertionError", INDEX_ERROR("take"));
  release_all(e, 3);
}

/* take in mode "nan": an index inside [-n, n) reads x (a negative one from the end, as in
 * "fast"), any other gives a row of NaN; on an empty axis (n = 0) every row is NaN and nothing
 * is read. */
TEST(take_nan) {
  static const int64_t kIdx[5] = {-7, -1, 0, 3, 9};
  for (int n = 4; n >= 0; n -= 2) {
    void* x = rv_rand(2, (int64_t[]){n, 3});
    void* i = rv_rand_int(1, (int64_t[]){5}, -9, 10);
    memcpy(L(i), kIdx, sizeof(kIdx));
    double want[15];
    for (int p = 0; p < 5; ++p) {
      int64_t k = kIdx[p] < 0 ? kIdx[p] + n : kIdx[p];
      for (int c = 0; c < 3; ++c) want[p * 3 + c] = k >= 0 && k < n ? F(x)[k * 3 + c] : NAN;
    }
    expect2("take_nan", (void*[]){x, i}, 2, 2, (int64_t[]){5, 3}, F32, want);
    release_all((void*[]){x, i}, 2);
  }
}

/* ---- scatter_elements: every reduction ------------------------------------------------------- */
/* data (R x C) scattered with indices / updates (IR x IC) along axis in index order; "mean" is
 * upstream's running average of the element and each update, (acc + u) / 2. */
static void scatter_oracle(const float* x, int64_t R, int64_t C, const int64_t* ind, const float* u,
                           int64_t IR, int64_t IC, int axis, const char* red, double* out) {
  for (int64_t i = 0; i < R * C; ++i) out[i] = x[i];
  for (int64_t r = 0; r < IR; ++r) {
    for (int64_t c = 0; c < IC; ++c) {
      int64_t k = ind[r * IC + c], ext = axis == 0 ? R : C;
      if (k < 0) k += ext;
      int64_t o = axis == 0 ? k * C + c : r * C + k;
      double v = u[r * IC + c];
      if (!strcmp(red, "update")) out[o] = v;
      else if (!strcmp(red, "add")) out[o] += v;
      else if (!strcmp(red, "mean")) out[o] = (float)((float)out[o] + (float)v) / 2.0f;
      else if (!strcmp(red, "mul")) out[o] *= v;
      else if (!strcmp(red, "max")) out[o] = fmax(out[o], v);
      else if (!strcmp(red, "min")) out[o] = fmin(out[o], v);
    }
  }
}

TEST(scatter_elements) {
  /* axis 1 "update": (3, 4) data, (2, 3) indices (rows 0-1 of data, columns 0-2 in range) */
  void* a[3] = {rv_rand(2, (int64_t[]){3, 4}), rv_rand_int(2, (int64_t[]){2, 3}, -4, 4),
                rv_rand(2, (int64_t[]){2, 3})};
  double want[16];
  scatter_oracle(F(a[0]), 3, 4, L(a[1]), F(a[2]), 2, 3, 1, "update", want);
  expect2("se_update", a, 3, 2, (int64_t[]){3, 4}, F32, want);
  release_all(a, 3);
  static const char* const fns[5] = {"se_add", "se_mul", "se_mean", "se_max", "se_min"};
  static const char* const reds[5] = {"add", "mul", "mean", "max", "min"};
  for (int i = 0; i < 5; ++i) {
    /* (4, 3) data, (3, 3) indices along axis 0: duplicates are likely */
    void* b[3] = {rv_rand(2, (int64_t[]){4, 3}), rv_rand_int(2, (int64_t[]){3, 3}, -4, 4),
                  rv_rand(2, (int64_t[]){3, 3})};
    scatter_oracle(F(b[0]), 4, 3, L(b[1]), F(b[2]), 3, 3, 0, reds[i], want);
    expect2(fns[i], b, 3, 2, (int64_t[]){4, 3}, F32, want);
    release_all(b, 3);
  }
}

/* Negative indices only count from the end; one past the end or before -extent (on either axis)
 * stops both runs with the kernel's error. */
TEST(scatter_elements_range) {
  void* a[3] = {rv_rand(2, (int64_t[]){3, 4}), rv_rand_int(2, (int64_t[]){2, 3}, -4, 0),
                rv_rand(2, (int64_t[]){2, 3})};
  double want[12];
  scatter_oracle(F(a[0]), 3, 4, L(a[1]), F(a[2]), 2, 3, 1, "update", want);
  expect2("se_update", a, 3, 2, (int64_t[]){3, 4}, F32, want);
  static const int64_t kBad[2] = {4, -5};
  for (int b = 0; b < 2; ++b) {
    L(a[1])[4] = kBad[b];
    expect2_error("se_update", a, 3, "AssertionError", INDEX_ERROR("scatter_elements"));
  }
  release_all(a, 3);
  void* c[3] = {rv_rand(2, (int64_t[]){4, 3}), rv_rand_int(2, (int64_t[]){3, 3}, -4, 0),
                rv_rand(2, (int64_t[]){3, 3})};
  scatter_oracle(F(c[0]), 4, 3, L(c[1]), F(c[2]), 3, 3, 0, "add", want);
  expect2("se_add", c, 3, 2, (int64_t[]){4, 3}, F32, want);
  for (int b = 0; b < 2; ++b) {
    L(c[1])[8] = kBad[b];
    expect2_error("se_add", c, 3, "AssertionError", INDEX_ERROR("scatter_elements"));
  }
  release_all(c, 3);
  /* indices with more rows than data (along axis 1): row 3 is outside data */
  void* t[3] = {rv_rand(2, (int64_t[]){3, 4}), rv_rand_int(2, (int64_t[]){4, 2}, -4, 4),
                rv_rand(2, (int64_t[]){4, 2})};
  expect2_error("se_tall", t, 3, "AssertionError", INDEX_ERROR("scatter_elements"));
  release_all(t, 3);
}

/* ---- scatter_nd ------------------------------------------------------------------------------ */
/* x (4 x 3) with whole rows i[p] (5 of them) of u (5 x 3) added. */
static void scatter_rows_of(const float* x, const int64_t* i, const float* u, double* out) {
  for (int k = 0; k < 12; ++k) out[k] = x[k];
  for (int p = 0; p < 5; ++p) {
    int64_t r = i[p];
    if (r < 0) r += 4;
    for (int c = 0; c < 3; ++c) out[r * 3 + c] += u[p * 3 + c];
  }
}

TEST(scatter_nd) {
  /* indices (5, 1): whole rows, added */
  void* a[3] = {rv_rand(2, (int64_t[]){4, 3}), rv_rand_int(2, (int64_t[]){5, 1}, -4, 4),
                rv_rand(2, (int64_t[]){5, 3})};
  double want[12];
  scatter_rows_of(F(a[0]), L(a[1]), F(a[2]), want);
  expect2("snd", a, 3, 2, (int64_t[]){4, 3}, F32, want);
  /* negative rows only, down to -4 */
  for (int p = 0; p < 5; ++p) L(a[1])[p] = -1 - p % 4;
  scatter_rows_of(F(a[0]), L(a[1]), F(a[2]), want);
  expect2("snd", a, 3, 2, (int64_t[]){4, 3}, F32, want);
  /* a row past the end or before -4 stops both runs with the kernel's error */
  static const int64_t kBad[2] = {4, -5};
  for (int b = 0; b < 2; ++b) {
    L(a[1])[2] = kBad[b];
    expect2_error("snd", a, 3, "AssertionError", INDEX_ERROR("scatter_nd"));
  }
  release_all(a, 3);
  /* indices (2, 2, 2): single elements, replaced */
  void* b[3] = {rv_rand(2, (int64_t[]){4, 3}), tensor(3, (int64_t[]){2, 2, 2}, I64),
                rv_rand(2, (int64_t[]){2, 2})};
  for (int p = 0; p < 4; ++p) L(b[1])[p * 2] = rv_rnd_int(0, 4), L(b[1])[p * 2 + 1] = rv_rnd_int(-3, 3);
  for (int i = 0; i < 12; ++i) want[i] = F(b[0])[i];
  for (int p = 0; p < 4; ++p) {
    int64_t r = L(b[1])[p * 2], c = L(b[1])[p * 2 + 1];
    want[r * 3 + (c < 0 ? c + 3 : c)] = F(b[2])[p];
  }
  expect2("snd_full", b, 3, 2, (int64_t[]){4, 3}, F32, want);
  /* the second coordinate (a dim of 3) at 3 or -4 */
  static const int64_t kBadCol[2] = {3, -4};
  for (int k = 0; k < 2; ++k) {
    L(b[1])[5] = kBadCol[k];
    expect2_error("snd_full", b, 3, "AssertionError", INDEX_ERROR("scatter_nd"));
  }
  release_all(b, 3);
}

/* ---- index_put ------------------------------------------------------------------------------- */
/* x (4 x 3) with v[p] added at (r[p], c[p]) for 5 points. */
static void index_put_of(const float* x, const int64_t* r, const int64_t* c, const float* v,
                         double* out) {
  for (int i = 0; i < 12; ++i) out[i] = x[i];
  for (int p = 0; p < 5; ++p) {
    out[(r[p] < 0 ? r[p] + 4 : r[p]) * 3 + (c[p] < 0 ? c[p] + 3 : c[p])] += v[p];
  }
}

TEST(index_put) {
  void* a[4] = {rv_rand(2, (int64_t[]){4, 3}), rv_rand_int(1, (int64_t[]){5}, -4, 4),
                rv_rand_int(1, (int64_t[]){5}, -3, 3), rv_rand(1, (int64_t[]){5})};
  double want[12];
  index_put_of(F(a[0]), L(a[1]), L(a[2]), F(a[3]), want);
  expect2("ip_acc", a, 4, 2, (int64_t[]){4, 3}, F32, want);
  /* negative indices only, down to -4 and -3 */
  for (int p = 0; p < 5; ++p) L(a[1])[p] = -1 - p % 4, L(a[2])[p] = -1 - p % 3;
  index_put_of(F(a[0]), L(a[1]), L(a[2]), F(a[3]), want);
  expect2("ip_acc", a, 4, 2, (int64_t[]){4, 3}, F32, want);
  /* a row (of 4) at 4 or -5, then a column (of 3) at 3 or -4: both runs fail */
  static const int64_t kBad[2][2] = {{4, -5}, {3, -4}};
  for (int t = 0; t < 2; ++t) {
    for (int b = 0; b < 2; ++b) {
      int64_t keep = L(a[1 + t])[3];
      L(a[1 + t])[3] = kBad[t][b];
      expect2_error("ip_acc", a, 4, "AssertionError", INDEX_ERROR("index_put"));
      L(a[1 + t])[3] = keep;
    }
  }
  release_all(a, 4);
  /* whole rows replaced by a broadcast (3,) row */
  void* b[3] = {rv_rand(2, (int64_t[]){4, 3}), rv_rand_int(1, (int64_t[]){2}, 0, 4),
                rv_rand(1, (int64_t[]){3})};
  for (int i = 0; i < 12; ++i) want[i] = F(b[0])[i];
  for (int p = 0; p < 2; ++p) {
    for (int c = 0; c < 3; ++c) want[L(b[1])[p] * 3 + c] = F(b[2])[c];
  }
  expect2("ip_rows", b, 3, 2, (int64_t[]){4, 3}, F32, want);
  release_all(b, 3);
}

/* Symbolic shapes that inference cannot tell apart (values' m against the indices' n, an index
 * tensor's k against n): LegalizeOps refuses them, where the kernel would read past the buffer. */
TEST(index_put_unproven_broadcast) {
  static const char* const cases[] = {
      "def f(x: R.Tensor((\"a\",), \"float32\"), i: R.Tensor((\"n\",), \"int64\"), "
      "v: R.Tensor((\"m\",), \"float32\")):\n    return R.index_put(x, (i,), v)\n",
      "def f(x: R.Tensor((\"a\", \"b\"), \"float32\"), i: R.Tensor((\"n\",), \"int64\"), "
      "j: R.Tensor((\"k\",), \"int64\"), v: R.Tensor((\"n\",), \"float32\")):\n"
      "    return R.index_put(x, (i, j), v)\n",
      /* (the same with values' dim that of the indices: legalized) */
      "def f(x: R.Tensor((\"a\",), \"float32\"), i: R.Tensor((\"n\",), \"int64\"), "
      "v: R.Tensor((\"n\",), \"float32\")):\n    return R.index_put(x, (i,), v)\n",
  };
  for (int c = 0; c < 3; ++c) {
    char src[1024];
    snprintf(src, sizeof(src), "from tvm.script import relax as R\n@R.function\n%s", cases[c]);
    void* f = tvm_script_parse(src, strlen(src), NULL);
    CHECK(f != NULL);
    tvm_tir_global_var_obj* gv = f ? tvm_relax_global_var_new("f", tvm_relax_sinfo_of(f)) : NULL;
    tvm_tir_ir_module_obj* empty = tvm_tir_ir_module_new(NULL, NULL);
    tvm_tir_ir_module_obj* m = gv && empty ? tvm_tir_ir_module_add(empty, gv, f) : NULL;
    tvm_ffi_release(empty);
    tvm_tir_ir_module_obj* legal = m ? tvm_relax_transform_legalize_ops(m) : NULL;
    if (c < 2) {
      CHECK(legal == NULL);
      CHECK_RAISED("ValueError", "index_put: the index tensors and values are not known to "
                                 "broadcast to the indexed shape");
    } else {
      CHECK(legal != NULL);
    }
    tvm_ffi_release(legal), tvm_ffi_release(m), tvm_ffi_release(gv), tvm_ffi_release(f);
  }
}

/* ---- index_tensor ---------------------------------------------------------------------------- */
/*
 * numpy's advanced indexing x[i_0, ..., i_{k-1}], written here without the kernel's helpers: x
 * (float32) of shape xs (n dims); index m has rank ir[m], shape is[m] and int64 values idx[m].
 * The index shapes broadcast right-aligned (a dim of 1 takes the other); out[b, r] =
 * x[i_0[b], ..., i_{k-1}[b], r], each index read at b's last ir[m] coordinates (0 on its dims of
 * 1), a negative one counted from the end. The result's shape into os and its values into out;
 * its rank, or -1 when the shapes do not broadcast or an index is outside its dim.
 */
static int adv_index(const float* x, int n, const int64_t* xs, int k, const int64_t* const* idx,
                     const int* ir, const int64_t* const* is, int64_t* os, double* out) {
  int nb = 0;
  for (int m = 0; m < k; ++m) nb = ir[m] > nb ? ir[m] : nb;
  for (int d = 0; d < nb; ++d) os[d] = 1;
  for (int m = 0; m < k; ++m) {
    for (int d = 0; d < ir[m]; ++d) {
      int64_t e = is[m][d], *o = &os[nb - ir[m] + d];
      if (e == 1) continue;
      if (*o != 1 && *o != e) return -1;
      *o = e;
    }
  }
  int no = nb + n - k;
  int64_t total = 1;
  for (int d = k; d < n; ++d) os[nb + d - k] = xs[d];
  for (int d = 0; d < no; ++d) total *= os[d];
  for (int64_t p = 0; p < total; ++p) {
    int64_t pos[16], rem = p, src = 0;
    for (int d = no - 1; d >= 0; --d) pos[d] = rem % os[d], rem /= os[d];
    for (int d = 0; d < n; ++d) {
      int64_t c;
      if (d < k) {
        int64_t off = 0;
        for (int a = 0; a < ir[d]; ++a) {
          off = off * is[d][a] + (is[d][a] == 1 ? 0 : pos[nb - ir[d] + a]);
        }
        c = idx[d][off] < 0 ? idx[d][off] + xs[d] : idx[d][off];
        if (c < 0 || c >= xs[d]) return -1;
      } else {
        c = pos[nb + d - k];
      }
      src = src * xs[d] + c;
    }
    out[p] = x[src];
  }
  return no;
}

/* An int64 tensor as an argument (a new reference): itself, or an int32 copy when i32. */
static void* index_arg(void* t, bool i32) {
  if (!i32) {
    tvm_ffi_retain(t);
    return t;
  }
  const DLTensor* dl = tvm_ffi_tensor_dl(t);
  void* r = tensor(dl->ndim, dl->shape, tvm_tir_dtype_int(32));
  for (int64_t i = 0; i < tvm_ffi_dltensor_numel(dl); ++i) {
    ((int32_t*)tvm_ffi_tensor_dl(r)->data)[i] = (int32_t)L(t)[i];
  }
  return r;
}

/* One index argument of an index_tensor function: its shape and whether it is int32. */
typedef struct {
  int rank;
  int64_t shape[3];
  bool i32;
} ix_arg;

/* fn(x, i_0, ..., i_{k-1}) both ways against adv_index: random x of shape xs (n dims) and random
 * indices in [-dim, dim) of the dim each selects, then all of them negative, down to -dim; then
 * an index of each argument at its dim, or below -dim, fails both runs with the kernel's error. */
static void index_tensor_case(const char* fn, int n, const int64_t* xs, int k, const ix_arg* ix) {
  void *a[4], *i64[3];
  const int64_t *idx[3], *is[3];
  int ir[3];
  a[0] = rv_rand(n, xs);
  for (int m = 0; m < k; ++m) {
    i64[m] = rv_rand_int(ix[m].rank, ix[m].shape, -xs[m], xs[m]);
    idx[m] = L(i64[m]), ir[m] = ix[m].rank, is[m] = ix[m].shape;
  }
  for (int round = 0; round < 2; ++round) {
    for (int m = 0; round == 1 && m < k; ++m) {
      int64_t cnt = tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(i64[m]));
      for (int64_t p = 0; p < cnt; ++p) L(i64[m])[p] = -1 - (p + m) % xs[m];
    }
    for (int m = 0; m < k; ++m) a[1 + m] = index_arg(i64[m], ix[m].i32);
    double want[256];
    int64_t os[16];
    int no = adv_index(F(a[0]), n, xs, k, idx, ir, is, os, want);
    CHECK(no >= 0);
    if (no >= 0) expect2(fn, a, 1 + k, no, os, F32, want);
    release_all(a + 1, k);
  }
  for (int m = 0; m < k; ++m) {
    int64_t bad[2] = {xs[m], -xs[m] - 1}, keep = L(i64[m])[0];
    for (int b = 0; b < 2; ++b) {
      L(i64[m])[0] = bad[b];
      for (int j = 0; j < k; ++j) a[1 + j] = index_arg(i64[j], ix[j].i32);
      expect2_error(fn, a, 1 + k, "AssertionError", INDEX_ERROR("index_tensor"));
      release_all(a + 1, k);
    }
    L(i64[m])[0] = keep;
  }
  release_all(a, 1), release_all(i64, k);
}

TEST(index_tensor) {
  for (int trial = 0; trial < 3; ++trial) {
    /* (2, 1) and (3,) broadcast to (2, 3), then x's last dim */
    index_tensor_case("it_pair", 3, (int64_t[]){5, 4, 3}, 2,
                      (ix_arg[]){{2, {2, 1}, false}, {1, {3}, false}});
    /* every dim indexed, (2, 3) with an int32 (1, 3) */
    index_tensor_case("it_all", 2, (int64_t[]){4, 5}, 2,
                      (ix_arg[]){{2, {2, 3}, false}, {2, {1, 3}, true}});
    /* one int32 (2, 2) index: whole rows */
    index_tensor_case("it_one", 2, (int64_t[]){4, 3}, 1, (ix_arg[]){{2, {2, 2}, true}});
    /* symbolic dims (n, m, k) = (4, 5, 3), and (2, 6, 1): k = 1 against the constant 1s */
    index_tensor_case("it_sym", 3, (int64_t[]){4, 5, 2}, 2,
                      (ix_arg[]){{2, {3, 1}, false}, {2, {1, 3}, false}});
    index_tensor_case("it_sym", 3, (int64_t[]){2, 6, 2}, 2,
                      (ix_arg[]){{2, {1, 1}, false}, {2, {1, 3}, false}});
  }
}

/* ---- slice_scatter, one_hot ------------------------------------------------------------------ */
TEST(slice_scatter_one_hot) {
  void* a[2] = {rv_rand(2, (int64_t[]){6, 3}), rv_rand(2, (int64_t[]){2, 3})};
  double want[24];
  for (int i = 0; i < 18; ++i) want[i] = F(a[0])[i];
  for (int k = 0; k < 2; ++k) {
    for (int c = 0; c < 3; ++c) want[(1 + 2 * k) * 3 + c] = F(a[1])[k * 3 + c]; /* rows 1, 3 */
  }
  expect2("sl_scatter", a, 2, 2, (int64_t[]){6, 3}, F32, want);
  release_all(a, 2);
  void* b[1] = {rv_rand_int(2, (int64_t[]){2, 3}, -1, 5)}; /* -1 and 4 hit no position */
  for (int r = 0; r < 2; ++r) {
    for (int d = 0; d < 4; ++d) {
      for (int c = 0; c < 3; ++c) want[(r * 4 + d) * 3 + c] = L(b[0])[r * 3 + c] == d ? 2.5 : -1;
    }
  }
  expect2("onehot", b, 1, 3, (int64_t[]){2, 4, 3}, F32, want);
  release_all(b, 1);
}

/* ---- argsort, topk --------------------------------------------------------------------------- */
/* The stable order of row r of x (R x C, stride sr between rows and sc between columns). */
static void order(const float* x, int64_t n, int64_t base, int64_t stride, bool desc, int64_t* idx) {
  for (int64_t i = 0; i < n; ++i) idx[i] = i;
  for (int64_t i = 1; i < n; ++i) { /* insertion sort: stable */
    int64_t k = idx[i], j = i;
    float v = x[base + k * stride];
    while (j > 0 && (desc ? x[base + idx[j - 1] * stride] < v : x[base + idx[j - 1] * stride] > v)) {
      idx[j] = idx[j - 1];
      --j;
    }
    idx[j] = k;
  }
}

TEST(argsort_topk) {
  void* a[1] = {rv_rand(2, (int64_t[]){3, 5})};
  /* a tie, to check the order is stable */
  F(a[0])[3] = F(a[0])[1];
  double want[15], wv[9];
  int64_t idx[5];
  for (int r = 0; r < 3; ++r) {
    order(F(a[0]), 5, r * 5, 1, true, idx);
    for (int k = 0; k < 5; ++k) want[r * 5 + k] = (double)idx[k];
  }
  expect2("sort_desc", a, 1, 2, (int64_t[]){3, 5}, tvm_tir_dtype_int(32), want);
  /* topk(k=2): values and int32 indices of the two largest per row */
  TVMFFIAny res[2];
  if (run2("top2", a, 1, res)) {
    double vals[6], inds[6];
    for (int r = 0; r < 3; ++r) {
      order(F(a[0]), 5, r * 5, 1, true, idx);
      for (int k = 0; k < 2; ++k) vals[r * 2 + k] = F(a[0])[r * 5 + idx[k]], inds[r * 2 + k] = (double)idx[k];
    }
    for (int w = 0; w < 2; ++w) {
      CHECK(res[w].type_index == kTVMFFIArray);
      if (res[w].type_index != kTVMFFIArray || tvm_ffi_seq_size(res[w].v_obj) != 2) continue;
      CHECK_EQ_INT(mismatches(tvm_ffi_seq_at(res[w].v_obj, 0), 2, (int64_t[]){3, 2}, F32, vals), 0);
      CHECK_EQ_INT(mismatches(tvm_ffi_seq_at(res[w].v_obj, 1), 2, (int64_t[]){3, 2},
                              tvm_tir_dtype_int(32), inds), 0);
    }
  }
  tvm_ffi_any_release(&res[0]), tvm_ffi_any_release(&res[1]);
  /* the three smallest values */
  for (int r = 0; r < 3; ++r) {
    order(F(a[0]), 5, r * 5, 1, false, idx);
    for (int k = 0; k < 3; ++k) wv[r * 3 + k] = F(a[0])[r * 5 + idx[k]];
  }
  expect2("bottom3", a, 1, 2, (int64_t[]){3, 3}, F32, wv);
  release_all(a, 1);
  /* the indices of the two smallest along axis 0 (the kept values read through them), ties */
  void* c[1] = {rv_rand(2, (int64_t[]){5, 3})};
  F(c[0])[3 * 3 + 1] = F(c[0])[1 * 3 + 1];
  F(c[0])[4 * 3 + 1] = F(c[0])[1 * 3 + 1];
  for (int col = 0; col < 3; ++col) {
    order(F(c[0]), 5, col, 3, false, idx);
    for (int k = 0; k < 2; ++k) want[k * 3 + col] = (double)idx[k];
  }
  expect2("top_idx", c, 1, 2, (int64_t[]){2, 3}, I64, want);
  release_all(c, 1);
  /* ascending along axis 0, int64 indices */
  void* b[1] = {rv_rand(2, (int64_t[]){4, 3})};
  for (int c = 0; c < 3; ++c) {
    order(F(b[0]), 4, c, 3, false, idx);
    for (int k = 0; k < 4; ++k) want[k * 3 + c] = (double)idx[k];
  }
  expect2("sort_cols", b, 1, 2, (int64_t[]){4, 3}, I64, want);
  release_all(b, 1);
}

/* sort: the values in argsort's order (a tie in a row; int32 columns ascending). */
TEST(sort_values) {
  void* a[1] = {rv_rand(2, (int64_t[]){3, 5})};
  F(a[0])[7] = F(a[0])[9];
  double want[15];
  int64_t idx[5];
  for (int r = 0; r < 3; ++r) {
    order(F(a[0]), 5, r * 5, 1, true, idx);
    for (int k = 0; k < 5; ++k) want[r * 5 + k] = F(a[0])[r * 5 + idx[k]];
  }
  expect2("sorted_rows", a, 1, 2, (int64_t[]){3, 5}, F32, want);
  release_all(a, 1);
  DLDataType i32 = tvm_tir_dtype_int(32);
  void* b[1] = {tensor(2, (int64_t[]){4, 3}, i32)};
  int32_t* bi = tvm_ffi_tensor_dl(b[0])->data;
  float asf[12];
  for (int i = 0; i < 12; ++i) asf[i] = (float)(bi[i] = (int32_t)((i * 7919 + 13) % 23) - 11);
  for (int c = 0; c < 3; ++c) {
    order(asf, 4, c, 3, false, idx);
    for (int k = 0; k < 4; ++k) want[k * 3 + c] = asf[idx[k] * 3 + c];
  }
  expect2("sorted_cols", b, 1, 2, (int64_t[]){4, 3}, i32, want);
  release_all(b, 1);
}

/* ---- einsum ---------------------------------------------------------------------------------- */
TEST(einsum) {
  void* a[2] = {rv_rand(2, (int64_t[]){3, 4}), rv_rand(2, (int64_t[]){4, 5})};
  double want[30];
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 5; ++k) {
      float acc = 0;
      for (int j = 0; j < 4; ++j) acc += F(a[0])[i * 4 + j] * F(a[1])[j * 5 + k];
      want[i * 5 + k] = acc;
    }
  }
  expect2("mm", a, 2, 2, (int64_t[]){3, 5}, F32, want);
  release_all(a, 2);
  /* "...ij,...jk" (implicit output "...ik"): the batch of 1 broadcasts against 2 */
  void* b[2] = {rv_rand(3, (int64_t[]){2, 3, 4}), rv_rand(3, (int64_t[]){1, 4, 5})};
  for (int n = 0; n < 2; ++n) {
    for (int i = 0; i < 3; ++i) {
      for (int k = 0; k < 5; ++k) {
        float acc = 0;
        for (int j = 0; j < 4; ++j) acc += F(b[0])[(n * 3 + i) * 4 + j] * F(b[1])[j * 5 + k];
        want[(n * 3 + i) * 5 + k] = acc;
      }
    }
  }
  expect2("bmm", b, 2, 3, (int64_t[]){2, 3, 5}, F32, want);
  release_all(b, 2);
  void* c[1] = {rv_rand(2, (int64_t[]){4, 4})};
  for (int i = 0; i < 4; ++i) want[i] = F(c[0])[i * 5];
  expect2("diag", c, 1, 1, (int64_t[]){4}, F32, want);
  release_all(c, 1);
  /* "ij,ij->i" with a of one row: a dim of 1 broadcasts under a letter too (upstream's rule) */
  void* r[2] = {rv_rand(2, (int64_t[]){1, 4}), rv_rand(2, (int64_t[]){2, 4})};
  for (int i = 0; i < 2; ++i) {
    float acc = 0;
    for (int j = 0; j < 4; ++j) acc += F(r[0])[j] * F(r[1])[i * 4 + j];
    want[i] = acc;
  }
  expect2("row_bcast", r, 2, 1, (int64_t[]){2}, F32, want);
  release_all(r, 2);
}

/* ---- Bad inputs: located errors from the parser's inference --------------------------------- */
#define SIG(params) "    def f(" params "):\n"
TEST(bad_inputs) {
  test_expect_relax_error(SIG("x: R.Tensor((3, 4), \"float32\"), i: R.Tensor((3,), \"int64\")")
                     "        return R.gather_elements(x, i, axis=1)\n",
                     "ValueError", "bad.py:9:37: error: R.gather_elements: argument 'indices' must have the rank of 'data' (2), got 1");
  test_expect_relax_error(SIG("x: R.Tensor((3, 4), \"float32\"), i: R.Tensor((3, 4), \"float32\")")
                     "        return R.gather_elements(x, i)\n",
                     "TypeError", "argument 'indices' must have an integer dtype, got float32");
  test_expect_relax_error(SIG("x: R.Tensor((3, 4), \"float32\"), i: R.Tensor((3, 4), \"int64\")")
                     "        return R.gather_elements(x, i, axis=2)\n",
                     "ValueError", "R.gather_elements: axis 2 is out of range for a tensor of ndim 2");
  test_expect_relax_error(SIG("x: R.Tensor((3, 4), \"float32\"), i: R.Tensor((3, 4), \"int64\"), u: R.Tensor((3, 4), \"float32\")")
                     "        return R.scatter_elements(x, i, u, reduction=\"sub\")\n",
                     "ValueError", "attribute 'reduction' must be");
  test_expect_relax_error(SIG("x: R.Tensor((3, 4), \"float32\"), i: R.Tensor((3, 4), \"int64\"), u: R.Tensor((3, 4), \"float16\")")
                     "        return R.scatter_elements(x, i, u)\n",
                     "TypeError", "argument 'updates' must have the dtype of 'data' (float32), got float16");
  test_expect_relax_error(SIG("x: R.Tensor((3, 4), \"float32\"), i: R.Tensor((3, 4), \"int64\"), u: R.Tensor((3, 2), \"float32\")")
                     "        return R.scatter_elements(x, i, u)\n",
                     "ValueError", "argument 'updates' must have the shape of 'indices'");
  test_expect_relax_error(SIG("x: R.Tensor((4, 3), \"float32\"), i: R.Tensor((5, 1), \"int64\"), u: R.Tensor((5, 4), \"float32\")")
                     "        return R.scatter_nd(x, i, u)\n",
                     "ValueError", "must have the shape indices.shape[:-1] + data.shape[1:]");
  test_expect_relax_error(SIG("x: R.Tensor((4, 3), \"float32\"), i: R.Tensor((5, 3), \"int64\"), u: R.Tensor((5,), \"float32\")")
                     "        return R.scatter_nd(x, i, u)\n",
                     "ValueError", "must have a last dim in [1, 2]");
  test_expect_relax_error(SIG("x: R.Tensor((4, 3), \"float32\"), i: R.Tensor((2,), \"int64\"), v: R.Tensor((2,), \"float32\")")
                     "        return R.index_put(x, (i, i, i), v)\n",
                     "ValueError", "holds 3 index tensors, more than the rank of 'data' (2)");
  test_expect_relax_error(SIG("x: R.Tensor((4, 3), \"float32\"), i: R.Tensor((2,), \"float32\"), v: R.Tensor((2,), \"float32\")")
                     "        return R.index_put(x, (i,), v)\n",
                     "TypeError", "must hold integer tensors, field 0 is");
  /* values must broadcast to data[indices] (the kernel would read past them) */
  test_expect_relax_error(SIG("x: R.Tensor((8,), \"float32\"), i: R.Tensor((2,), \"int64\"), v: R.Tensor((3, 2), \"float32\")")
                     "        return R.index_put(x, (i,), v)\n",
                     "ValueError", "argument 'values' has rank 2, more than data[indices]'s 1");
  test_expect_relax_error(SIG("x: R.Tensor((4, 3), \"float32\"), i: R.Tensor((2,), \"int64\"), v: R.Tensor((5, 3), \"float32\")")
                     "        return R.index_put(x, i, v)\n",
                     "ValueError", "argument 'values' dim 0 is 5, which does not broadcast to dim 0 of data[indices], 2");
  test_expect_relax_error(SIG("x: R.Tensor((4, 3), \"float32\"), i: R.Tensor((2,), \"int64\"), j: R.Tensor((3,), \"int64\")")
                     "        return R.index_tensor(x, (i, j))\n",
                     "ValueError", "R.index_tensor: cannot broadcast R.Tensor((2,), dtype=\"int64\") with R.Tensor((3,), dtype=\"int64\")");
  test_expect_relax_error(SIG("x: R.Tensor((4, 3), \"float32\"), i: R.Tensor((2,), \"float32\")")
                     "        return R.index_tensor(x, [i])\n",
                     "TypeError", "R.index_tensor: argument 'indices' must hold signed integer tensors, field 0 is");
  test_expect_relax_error(SIG("x: R.Tensor((4, 3), \"float32\"), i: R.Tensor((2,), \"int64\")")
                     "        return R.index_tensor(x, i)\n",
                     "TypeError", "R.index_tensor: argument 'indices' must be a tuple of tensors");
  test_expect_relax_error(SIG("x: R.Tensor((6, 3), \"float32\"), s: R.Tensor((3, 3), \"float32\")")
                     "        return R.slice_scatter(x, s, R.prim_value(1), R.prim_value(5), R.prim_value(2))\n",
                     "ValueError", "the slice [1:5:2] of 'input' has 2");
  test_expect_relax_error(SIG("x: R.Tensor((6, 3), \"float32\"), s: R.Tensor((2, 3), \"float32\")")
                     "        return R.slice_scatter(x, s, R.prim_value(1), R.prim_value(5), R.prim_value(0))\n",
                     "ValueError", "argument 'step' must be positive");
  test_expect_relax_error(SIG("i: R.Tensor((2, 3), \"int64\")")
                     "        return R.one_hot(i, R.prim_value(T.float32(1)), R.prim_value(T.float32(0)), depth=0)\n",
                     "ValueError", "attribute 'depth' must be positive, got 0");
  test_expect_relax_error(SIG("i: R.Tensor((2, 3), \"int64\")")
                     "        return R.one_hot(i, R.prim_value(T.float32(1)), R.prim_value(0), depth=3)\n",
                     "TypeError", "argument 'off_value' must have the dtype of 'on_value' (float32), got int64");
  test_expect_relax_error(SIG("i: R.Tensor((2, 3), \"int64\")")
                     "        return R.one_hot(i, R.prim_value(1), R.prim_value(0), depth=3, axis=3)\n",
                     "ValueError", "R.one_hot: axis 3 is out of range for a tensor of ndim 3");
  test_expect_relax_error(SIG("x: R.Tensor((3, 5), \"float32\")")
                     "        return R.argsort(x, axis=2)\n",
                     "ValueError", "R.argsort: axis 2 is out of range");
  test_expect_relax_error(SIG("x: R.Tensor((3, 5), \"float32\")")
                     "        return R.sort(x, axis=-3)\n",
                     "ValueError", "R.sort: axis -3 is out of range");
  test_expect_relax_error(SIG("x: R.Tuple(R.Tensor((3, 5), \"float32\"))")
                     "        return R.sort(x)\n",
                     "TypeError", "R.sort: argument 'x'");
  test_expect_relax_error(SIG("x: R.Tensor((3, 5), \"float32\")")
                     "        return R.argsort(x, dtype=\"float32\")\n",
                     "TypeError", "attribute 'dtype' must be an integer dtype, got float32");
  test_expect_relax_error(SIG("x: R.Tensor((3, 5), \"float32\")")
                     "        return R.topk(x, k=2, ret_type=\"all\")\n",
                     "ValueError", "attribute 'ret_type' must be \"both\", \"values\" or \"indices\"");
  test_expect_relax_error(SIG("a: R.Tensor((3, 4), \"float32\"), b: R.Tensor((4, 5), \"float32\")")
                     "        return R.einsum((a, b), \"ij,jk->il\")\n",
                     "ValueError", "R.einsum: subscripts \"ij,jk->il\": output label 'l' is in no operand");
  test_expect_relax_error(SIG("a: R.Tensor((3, 4), \"float32\"), b: R.Tensor((5, 6), \"float32\")")
                     "        return R.einsum((a, b), \"ij,jk\")\n",
                     "ValueError", "dims for one subscript differ: 4 and 5");
  test_expect_relax_error(SIG("a: R.Tensor((3, 4), \"float32\")")
                     "        return R.einsum((a,), \"ijk\")\n",
                     "ValueError", "operand 0 has 2 dims, its term names 3");
  test_expect_relax_error(SIG("a: R.Tensor((3, 4), \"float32\")")
                     "        return R.einsum((a,), \"ij,jk\")\n",
                     "ValueError", "name more operands than the 1 given");
  test_expect_relax_error(SIG("a: R.Tensor((3, 4), \"float32\"), b: R.Tensor((4, 5), \"int32\")")
                     "        return R.einsum((a, b), \"ij,jk\")\n",
                     "TypeError", "must hold tensors of one dtype, field 1 is int32, not float32");
  test_expect_relax_error(SIG("x: R.Tensor((3, 5), \"float32\"), b: R.Tensor((3,), \"int64\")")
                     "        return R.dynamic_strided_slice(x, b, b, b)\n",
                     "ValueError", "argument 'begin' must have one value per dim of 'x' (2), got 3");
  test_expect_relax_error(SIG("x: R.Tensor((3, 5), \"float32\"), b: R.Tensor((2,), \"float32\")")
                     "        return R.dynamic_strided_slice(x, b, b, b)\n",
                     "TypeError", "argument 'begin' must have an integer dtype");
}

int main(void) {
  corpus_ops_setup("index_ops.py", 1e-5);
  RUN(gather_elements);
  RUN(take);
  RUN(take_clip_wrap);
  RUN(take_nan);
  RUN(scatter_elements);
  RUN(scatter_elements_range);
  RUN(scatter_nd);
  RUN(index_put);
  RUN(index_put_unproven_broadcast);
  RUN(index_tensor);
  RUN(slice_scatter_one_hot);
  RUN(argsort_topk);
  RUN(sort_values);
  RUN(einsum);
  RUN(bad_inputs);
  corpus_ops_teardown();
  return test_summary();
}
