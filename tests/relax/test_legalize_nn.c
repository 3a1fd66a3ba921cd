/*
 * test_legalize_nn.c: the kernels of matmul, softmax / log_softmax, layer_norm / rms_norm and
 * the reductions (sum, mean, max, min, prod, argmax, argmin), legalized and run by the reference
 * evaluator, against direct C computations on random inputs.
 */
#include <math.h>

#include "relax_testing.h"
#include "values_testing.h"

static const float* data(void* t) { return tvm_ffi_tensor_dl(t)->data; }

/* Evaluate main = op(args) (attrs optional) after LegalizeOps; *out the result. */
static int run(const char* op, void* attrs, int n, void** tensors, TVMFFIAny* out) {
  tvm_relax_var_obj* params[4];
  TVMFFIAny args[4];
  for (int i = 0; i < n; ++i) {
    const DLTensor* dl = tvm_ffi_tensor_dl(tensors[i]);
    char name[16];
    snprintf(name, sizeof(name), "p%d", i);
    params[i] = rt_var_take(name, tvm_relax_tensor_sinfo_of_ints(dl->shape, dl->ndim, dl->dtype));
    args[i] = tvm_ffi_any_obj(tensors[i]);
  }
  void* parr = tvm_ffi_array_of_objects((void**)params, n);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_relax_bb_function_begin(bb, "main", parr, NULL, true);
  void* cargs = tvm_ffi_array_of_objects((void**)params, n);
  const tvm_relax_op_info* info = tvm_relax_op_info_find(op, strlen(op));
  tvm_relax_expr_obj* call = tvm_relax_call_new(tvm_relax_op(info->id), cargs, attrs, NULL, NULL);
  tvm_relax_var_obj* v = call ? tvm_relax_bb_emit(bb, call, NULL) : NULL;
  tvm_tir_global_var_obj* gv = v ? tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)v, NULL) : NULL;
  tvm_tir_ir_module_obj* mod = gv ? tvm_relax_bb_module(bb) : NULL;
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  int rc = legal ? tvm_relax_eval(legal, "main", args, n, out) : -1;
  tvm_ffi_release(legal), tvm_ffi_release(mod), tvm_ffi_release(gv), tvm_ffi_release(v);
  tvm_ffi_release(call), tvm_ffi_release(cargs), tvm_ffi_release(parr);
  tvm_relax_bb_free(bb);
  for (int i = 0; i < n; ++i) tvm_ffi_release(params[i]);
  return rc;
}

static int count_bad(const float* got, const double* want, int64_t n, double tol) {
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!(fabs(got[i] - want[i]) <= tol * (1 + fabs(want[i])))) ++bad;
  }
  return bad;
}

TEST(matmul_batched_broadcast) {
  /* (2, 1, 3, 4) @ (5, 4, 6) -> (2, 5, 3, 6) */
  int64_t sa[4] = {2, 1, 3, 4}, sb[3] = {5, 4, 6};
  void* t[2] = {rv_rand(4, sa), rv_rand(3, sb)};
  TVMFFIAny out;
  CHECK_OK(run("relax.matmul", NULL, 2, t, &out));
  if (out.type_index == kTVMFFITensor) {
    double want[2 * 5 * 3 * 6];
    const float *a = data(t[0]), *b = data(t[1]);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 5; ++j)
        for (int m = 0; m < 3; ++m)
          for (int n = 0; n < 6; ++n) {
            double s = 0;
            for (int k = 0; k < 4; ++k) s += (double)a[(i * 3 + m) * 4 + k] * b[(j * 4 + k) * 6 + n];
            want[((i * 5 + j) * 3 + m) * 6 + n] = s;
          }
    CHECK_EQ_INT(tvm_ffi_tensor_dl(out.v_obj)->ndim, 4);
    CHECK_EQ_INT(count_bad(data(out.v_obj), want, 180, 1e-5), 0);
  }
  tvm_ffi_any_release(&out);
  tvm_ffi_release(t[0]), tvm_ffi_release(t[1]);
  /* vector @ matrix: (4,) @ (4, 3) -> (3,) */
  int64_t sv[1] = {4}, sm[2] = {4, 3};
  void* u[2] = {rv_rand(1, sv), rv_rand(2, sm)};
  CHECK_OK(run("relax.matmul", NULL, 2, u, &out));
  if (out.type_index == kTVMFFITensor) {
    double want[3];
    for (int n = 0; n < 3; ++n) {
      want[n] = 0;
      for (int k = 0; k < 4; ++k) want[n] += (double)data(u[0])[k] * data(u[1])[k * 3 + n];
    }
    CHECK_EQ_INT(tvm_ffi_tensor_dl(out.v_obj)->ndim, 1);
    CHECK_EQ_INT(count_bad(data(out.v_obj), want, 3, 1e-5), 0);
  }
  tvm_ffi_any_release(&out);
  tvm_ffi_release(u[0]), tvm_ffi_release(u[1]);
}

TEST(softmax_and_log_softmax) {
  int64_t s[3] = {2, 3, 5};
  for (int logsm = 0; logsm < 2; ++logsm) {
    for (int axis = -1; axis <= 1; axis += 2) { /* axis -1 and 1 */
      int ax = axis < 0 ? 2 : axis;
      void* t = rv_rand(3, s);
      void* attrs = rt_attrs(1, "axis", tvm_ffi_any_int(axis));
      TVMFFIAny out;
      CHECK_OK(run(logsm ? "relax.nn.log_softmax" : "relax.nn.softmax", attrs, 1, &t, &out));
      if (out.type_index == kTVMFFITensor) {
        double want[30];
        const float* x = data(t);
        int64_t str[3] = {15, 5, 1};
        for (int i = 0; i < 30; ++i) {
          int64_t idx[3] = {i / 15, (i / 5) % 3, i % 5};
          double m = -INFINITY, sum = 0;
          for (int64_t r = 0; r < s[ax]; ++r) {
            int64_t off = i + (r - idx[ax]) * str[ax];
            if (x[off] > m) m = x[off];
          }
          for (int64_t r = 0; r < s[ax]; ++r) sum += exp(x[i + (r - idx[ax]) * str[ax]] - m);
          want[i] = logsm ? x[i] - m - log(sum) : exp(x[i] - m) / sum;
        }
        CHECK_EQ_INT(count_bad(data(out.v_obj), want, 30, 1e-5), 0);
      }
      tvm_ffi_any_release(&out);
      tvm_ffi_release(attrs), tvm_ffi_release(t);
    }
  }
}

TEST(layer_norm_and_rms_norm) {
  int64_t s[2] = {3, 8}, sg[1] = {8};
  void* t[3] = {rv_rand(2, s), rv_rand(1, sg), rv_rand(1, sg)};
  void* axes = tvm_ffi_array_new(&(TVMFFIAny){0}, 0);
  tvm_ffi_release(axes);
  TVMFFIAny ax = tvm_ffi_any_int(-1);
  axes = tvm_ffi_array_new(&ax, 1);
  void* attrs = rt_attrs(2, "axes", tvm_ffi_any_obj(axes), "epsilon", tvm_ffi_any_float(1e-3));
  TVMFFIAny out;
  CHECK_OK(run("relax.nn.layer_norm", attrs, 3, t, &out));
  const float *x = data(t[0]), *g = data(t[1]), *b = data(t[2]);
  double want[24];
  for (int i = 0; i < 3; ++i) {
    double mean = 0, var = 0;
    for (int j = 0; j < 8; ++j) mean += x[i * 8 + j];
    mean /= 8;
    for (int j = 0; j < 8; ++j) var += (x[i * 8 + j] - mean) * (x[i * 8 + j] - mean);
    var /= 8;
    for (int j = 0; j < 8; ++j) want[i * 8 + j] = (x[i * 8 + j] - mean) / sqrt(var + 1e-3) * g[j] + b[j];
  }
  if (out.type_index == kTVMFFITensor) CHECK_EQ_INT(count_bad(data(out.v_obj), want, 24, 1e-4), 0);
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs);
  attrs = rt_attrs(1, "axes", tvm_ffi_any_obj(axes));
  CHECK_OK(run("relax.nn.rms_norm", attrs, 2, t, &out));
  for (int i = 0; i < 3; ++i) {
    double ms = 0;
    for (int j = 0; j < 8; ++j) ms += (double)x[i * 8 + j] * x[i * 8 + j];
    ms /= 8;
    for (int j = 0; j < 8; ++j) want[i * 8 + j] = x[i * 8 + j] / sqrt(ms + 1e-5) * g[j];
  }
  if (out.type_index == kTVMFFITensor) CHECK_EQ_INT(count_bad(data(out.v_obj), want, 24, 1e-4), 0);
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs), tvm_ffi_release(axes);
  tvm_ffi_release(t[0]), tvm_ffi_release(t[1]), tvm_ffi_release(t[2]);
}

TEST(reductions) {
  int64_t s[3] = {2, 3, 4};
  void* t = rv_rand(3, s);
  const float* x = data(t);
  TVMFFIAny out;
  /* sum over axis 1, keepdims -> (2, 1, 4) */
  TVMFFIAny one = tvm_ffi_any_int(1);
  void* ax1 = tvm_ffi_array_new(&one, 1);
  void* attrs = rt_attrs(2, "axis", tvm_ffi_any_obj(ax1), "keepdims", tvm_ffi_any_bool(true));
  CHECK_OK(run("relax.sum", attrs, 1, &t, &out));
  double want[24];
  for (int i = 0; i < 2; ++i)
    for (int l = 0; l < 4; ++l) {
      want[i * 4 + l] = 0;
      for (int j = 0; j < 3; ++j) want[i * 4 + l] += x[(i * 3 + j) * 4 + l];
    }
  if (out.type_index == kTVMFFITensor) {
    CHECK_EQ_INT(tvm_ffi_tensor_dl(out.v_obj)->ndim, 3);
    CHECK_EQ_INT(count_bad(data(out.v_obj), want, 8, 1e-5), 0);
  }
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs);
  /* mean of everything -> () */
  CHECK_OK(run("relax.mean", NULL, 1, &t, &out));
  double m = 0;
  for (int i = 0; i < 24; ++i) m += x[i];
  want[0] = m / 24;
  if (out.type_index == kTVMFFITensor) CHECK_EQ_INT(count_bad(data(out.v_obj), want, 1, 1e-5), 0);
  tvm_ffi_any_release(&out);
  /* max / min / prod over axis 1 (no keepdims) -> (2, 4) */
  const char* ops[3] = {"relax.max", "relax.min", "relax.prod"};
  for (int o = 0; o < 3; ++o) {
    attrs = rt_attrs(1, "axis", tvm_ffi_any_obj(ax1));
    CHECK_OK(run(ops[o], attrs, 1, &t, &out));
    for (int i = 0; i < 2; ++i)
      for (int l = 0; l < 4; ++l) {
        double r = o == 2 ? 1 : x[i * 12 + l];
        for (int j = 0; j < 3; ++j) {
          double v = x[(i * 3 + j) * 4 + l];
          r = o == 0 ? (v > r ? v : r) : o == 1 ? (v < r ? v : r) : r * v;
        }
        want[i * 4 + l] = r;
      }
    if (out.type_index == kTVMFFITensor) CHECK_EQ_INT(count_bad(data(out.v_obj), want, 8, 1e-5), 0);
    tvm_ffi_any_release(&out);
    tvm_ffi_release(attrs);
  }
  /* argmax over axis 2 -> (2, 3) int64; argmin of everything -> () */
  attrs = rt_attrs(1, "axis", tvm_ffi_any_int(2));
  CHECK_OK(run("relax.argmax", attrs, 1, &t, &out));
  if (out.type_index == kTVMFFITensor) {
    const int64_t* r = tvm_ffi_tensor_dl(out.v_obj)->data;
    int bad = 0;
    for (int i = 0; i < 6; ++i) {
      int best = 0;
      for (int l = 1; l < 4; ++l) if (x[i * 4 + l] > x[i * 4 + best]) best = l;
      bad += r[i] != best;
    }
    CHECK_EQ_INT(bad, 0);
  }
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs);
  CHECK_OK(run("relax.argmin", NULL, 1, &t, &out));
  if (out.type_index == kTVMFFITensor) {
    int best = 0;
    for (int i = 1; i < 24; ++i) if (x[i] < x[best]) best = i;
    CHECK_EQ_INT(*(const int64_t*)tvm_ffi_tensor_dl(out.v_obj)->data, best);
  }
  tvm_ffi_any_release(&out);
  tvm_ffi_release(ax1), tvm_ffi_release(t);
}

int main(void) {
  RUN(matmul_batched_broadcast);
  RUN(softmax_and_log_softmax);
  RUN(layer_norm_and_rms_norm);
  RUN(reductions);
  return test_summary();
}
