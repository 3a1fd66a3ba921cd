/*
 * test_legalize_manip.c: the kernels of the manipulation and indexing operators (reshape,
 * flatten, squeeze, expand_dims, permute_dims, broadcast_to, concat, split, strided_slice,
 * take, tile, repeat, flip, layout_transform), legalized and run by the reference evaluator on random inputs,
 * against index arithmetic done here in C; symbolic dims where the operator has them.
 */
#include <tvm/tir/attr_value.h>

#include "legalize_testing.h"

/* Row-major offset of idx in shape, and its inverse. */
static int64_t offset(const int64_t* shape, int n, const int64_t* idx) {
  int64_t o = 0;
  for (int i = 0; i < n; ++i) o = o * shape[i] + idx[i];
  return o;
}
static void unravel(int64_t lin, const int64_t* shape, int n, int64_t* idx) {
  for (int i = n - 1; i >= 0; --i) idx[i] = lin % shape[i], lin /= shape[i];
}

static void* one_param(void* t, tvm_relax_var_obj** x) {
  *x = rt_var_take("x", lg_sinfo_of(t));
  return rt_array(1, *x);
}

/* Run op(x, extra...) on tensor t; the result in *out. */
static int run1(void* t, const char* op, void* attrs, tvm_relax_expr_obj* extra, TVMFFIAny* out) {
  tvm_relax_var_obj* x;
  void* params = one_param(t, &x);
  tvm_relax_expr_obj* call = extra ? tvm_relax_call_op(op, attrs, 2, x, extra)
                                   : tvm_relax_call_op(op, attrs, 1, x);
  TVMFFIAny a = tvm_ffi_any_obj(t);
  int rc = lg_eval(params, call, &a, 1, out);
  tvm_ffi_release(params), tvm_ffi_release(x);
  return rc;
}

TEST(reshape_family) {
  int64_t s[3] = {2, 3, 4};
  void* t = rv_rand(3, s);
  double want[24];
  for (int i = 0; i < 24; ++i) want[i] = lg_f(t)[i];
  TVMFFIAny out;
  /* reshape to (4, -1) */
  int64_t ns[2] = {4, -1};
  tvm_relax_expr_obj* shape = tvm_relax_shape_expr_of_ints(ns, 2);
  CHECK_OK(run1(t, "relax.reshape", NULL, shape, &out));
  CHECK_EQ_INT(lg_bad(&out, want, 24, 0), 0);
  if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 2, (int64_t[]){4, 6}));
  tvm_ffi_any_release(&out);
  tvm_ffi_release(shape);
  CHECK_OK(run1(t, "relax.flatten", NULL, NULL, &out));
  CHECK_EQ_INT(lg_bad(&out, want, 24, 0), 0);
  tvm_ffi_any_release(&out);
  /* expand_dims at 0 and 3: (1, 2, 3, 1, 4) */
  void* ax = lg_ints(2, (int64_t[]){0, 3});
  void* attrs = rt_attrs(1, "axis", tvm_ffi_any_obj(ax));
  CHECK_OK(run1(t, "relax.expand_dims", attrs, NULL, &out));
  CHECK_EQ_INT(lg_bad(&out, want, 24, 0), 0);
  if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 5, (int64_t[]){1, 2, 3, 1, 4}));
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs), tvm_ffi_release(ax), tvm_ffi_release(t);
  /* squeeze (2, 1, 3, 1) -> (2, 3) */
  int64_t s2[4] = {2, 1, 3, 1};
  t = rv_rand(4, s2);
  for (int i = 0; i < 6; ++i) want[i] = lg_f(t)[i];
  CHECK_OK(run1(t, "relax.squeeze", NULL, NULL, &out));
  CHECK_EQ_INT(lg_bad(&out, want, 6, 0), 0);
  if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 2, (int64_t[]){2, 3}));
  tvm_ffi_any_release(&out);
  /* axes 0..3: the axes of extent 2 and 3 stay (PyTorch's squeeze) -> (2, 3) */
  ax = lg_ints(4, (int64_t[]){0, 1, 2, 3});
  attrs = rt_attrs(1, "axis", tvm_ffi_any_obj(ax));
  CHECK_OK(run1(t, "relax.squeeze", attrs, NULL, &out));
  CHECK_EQ_INT(lg_bad(&out, want, 6, 0), 0);
  if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 2, (int64_t[]){2, 3}));
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs), tvm_ffi_release(ax);
  tvm_ffi_release(t);
}

TEST(reshape_symbolic) {
  /* x: (n, 6) reshaped to (2 * n, 3), run with n = 3 and n = 5 */
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_tir_expr_obj* six = tvm_tir_const_int(I64, 6);
  tvm_tir_expr_obj* three = tvm_tir_const_int(I64, 3);
  tvm_tir_expr_obj* two = tvm_tir_const_int(I64, 2);
  tvm_tir_expr_obj* n2 = tvm_tir_mul(two, (tvm_tir_expr_obj*)n);
  void* d[2] = {n, six};
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor_sym(F32, 2, d));
  void* params = rt_array(1, x);
  void* vals = rt_array(2, n2, three);
  tvm_relax_expr_obj* shape = tvm_relax_shape_expr_new(vals);
  tvm_relax_expr_obj* call = tvm_relax_call_op("relax.reshape", NULL, 2, x, shape);
  tvm_tir_ir_module_obj* legal = lg_legalize(params, call);
  CHECK(legal != NULL);
  for (int64_t nv = 3; legal && nv <= 5; nv += 2) {
    void* t = rv_rand(2, (int64_t[]){nv, 6});
    double want[30];
    for (int i = 0; i < nv * 6; ++i) want[i] = lg_f(t)[i];
    TVMFFIAny a = tvm_ffi_any_obj(t), out;
    CHECK_OK(tvm_relax_eval(legal, "main", &a, 1, &out));
    CHECK_EQ_INT(lg_bad(&out, want, nv * 6, 0), 0);
    if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 2, (int64_t[]){2 * nv, 3}));
    tvm_ffi_any_release(&out);
    tvm_ffi_release(t);
  }
  tvm_ffi_release(legal), tvm_ffi_release(call), tvm_ffi_release(shape), tvm_ffi_release(vals);
  tvm_ffi_release(params), tvm_ffi_release(x), tvm_ffi_release(n2), tvm_ffi_release(two);
  tvm_ffi_release(three), tvm_ffi_release(six), tvm_ffi_release(n);
}

TEST(permute_dims) {
  int64_t s[3] = {2, 3, 4};
  void* t = rv_rand(3, s);
  for (int variant = 0; variant < 2; ++variant) {
    int64_t perm[3] = {2, 0, 1};
    if (variant == 1) perm[0] = 2, perm[1] = 1, perm[2] = 0; /* axes None: reversed */
    void* ax = lg_ints(3, perm);
    void* attrs = variant == 0 ? rt_attrs(1, "axes", tvm_ffi_any_obj(ax)) : NULL;
    TVMFFIAny out;
    CHECK_OK(run1(t, "relax.permute_dims", attrs, NULL, &out));
    int64_t os[3] = {s[perm[0]], s[perm[1]], s[perm[2]]};
    double want[24];
    for (int64_t o = 0; o < 24; ++o) {
      int64_t oi[3], ii[3];
      unravel(o, os, 3, oi);
      for (int k = 0; k < 3; ++k) ii[perm[k]] = oi[k];
      want[o] = lg_f(t)[offset(s, 3, ii)];
    }
    CHECK_EQ_INT(lg_bad(&out, want, 24, 0), 0);
    if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 3, os));
    tvm_ffi_any_release(&out);
    tvm_ffi_release(attrs), tvm_ffi_release(ax);
  }
  tvm_ffi_release(t);
}

TEST(broadcast_to) {
  int64_t s[2] = {3, 1}, os[3] = {2, 3, 4};
  void* t = rv_rand(2, s);
  tvm_relax_expr_obj* shape = tvm_relax_shape_expr_of_ints(os, 3);
  TVMFFIAny out;
  CHECK_OK(run1(t, "relax.broadcast_to", NULL, shape, &out));
  double want[24];
  for (int64_t o = 0; o < 24; ++o) want[o] = lg_f(t)[(o / 4) % 3];
  CHECK_EQ_INT(lg_bad(&out, want, 24, 0), 0);
  tvm_ffi_any_release(&out);
  tvm_ffi_release(shape), tvm_ffi_release(t);
}

TEST(concat_and_split) {
  /* concat((a: (2, 3), b: (2, 5)), axis=1) from a Tuple literal */
  void* a = rv_rand(2, (int64_t[]){2, 3});
  void* b = rv_rand(2, (int64_t[]){2, 5});
  tvm_relax_var_obj* xa = rt_var_take("a", lg_sinfo_of(a));
  tvm_relax_var_obj* xb = rt_var_take("b", lg_sinfo_of(b));
  void* params = rt_array(2, xa, xb);
  void* fields = rt_array(2, xa, xb);
  tvm_relax_expr_obj* tup = tvm_relax_tuple_new(fields);
  void* attrs = rt_attrs(1, "axis", tvm_ffi_any_int(1));
  TVMFFIAny args[2] = {tvm_ffi_any_obj(a), tvm_ffi_any_obj(b)}, out;
  CHECK_OK(lg_eval(params, tvm_relax_call_op("relax.concat", attrs, 1, tup), args, 2, &out));
  double want[16];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 8; ++j) want[i * 8 + j] = j < 3 ? lg_f(a)[i * 3 + j] : lg_f(b)[i * 5 + j - 3];
  CHECK_EQ_INT(lg_bad(&out, want, 16, 0), 0);
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs), tvm_ffi_release(tup), tvm_ffi_release(fields), tvm_ffi_release(params);
  tvm_ffi_release(xa), tvm_ffi_release(xb);

  /* split (4, 6) into 3 sections on axis 1, and at indices [1, 3] on axis 0 */
  void* x = rv_rand(2, (int64_t[]){4, 6});
  for (int variant = 0; variant < 2; ++variant) {
    void* idx = lg_ints(2, (int64_t[]){1, 3});
    void* sattrs = variant == 0 ? rt_attrs(2, "indices_or_sections", tvm_ffi_any_int(3), "axis", tvm_ffi_any_int(1))
                                : rt_attrs(2, "indices_or_sections", tvm_ffi_any_obj(idx), "axis", tvm_ffi_any_int(0));
    CHECK_OK(run1(x, "relax.split", sattrs, NULL, &out));
    CHECK(out.type_index == kTVMFFIArray);
    if (out.type_index == kTVMFFIArray) {
      CHECK_EQ_INT(tvm_ffi_seq_size(out.v_obj), 3);
      int64_t lo[3] = {0, 1, 3}, hi[3] = {1, 3, 4};
      for (int p = 0; p < 3 && p < tvm_ffi_seq_size(out.v_obj); ++p) {
        double w[24];
        int k = 0;
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 6; ++j) {
            bool in = variant == 0 ? j / 2 == p : i >= lo[p] && i < hi[p];
            if (in) w[k++] = lg_f(x)[i * 6 + j];
          }
        CHECK_EQ_INT(lg_bad(tvm_ffi_seq_at(out.v_obj, p), w, k, 0), 0);
      }
    }
    tvm_ffi_any_release(&out);
    tvm_ffi_release(sattrs), tvm_ffi_release(idx);
  }
  tvm_ffi_release(x), tvm_ffi_release(a), tvm_ffi_release(b);
}

/* stack of three (2, 3) tensors on each new axis (0, 1, 2 and -1), against C's indexing. */
TEST(stack_kernel) {
  void* t[3] = {rv_rand(2, (int64_t[]){2, 3}), rv_rand(2, (int64_t[]){2, 3}),
                rv_rand(2, (int64_t[]){2, 3})};
  tvm_relax_var_obj* x[3];
  for (int k = 0; k < 3; ++k) x[k] = rt_var_take("x", lg_sinfo_of(t[k]));
  void* params = rt_array(3, x[0], x[1], x[2]);
  void* fields = rt_array(3, x[0], x[1], x[2]);
  tvm_relax_expr_obj* tup = tvm_relax_tuple_new(fields);
  TVMFFIAny args[3] = {tvm_ffi_any_obj(t[0]), tvm_ffi_any_obj(t[1]), tvm_ffi_any_obj(t[2])};
  static const int64_t kAxes[4] = {0, 1, 2, -1};
  for (int a = 0; a < 4; ++a) {
    int64_t axis = kAxes[a] < 0 ? kAxes[a] + 3 : kAxes[a];
    void* attrs = rt_attrs(1, "axis", tvm_ffi_any_int(kAxes[a]));
    TVMFFIAny out;
    CHECK_OK(lg_eval(params, tvm_relax_call_op("relax.stack", attrs, 1, tup), args, 3, &out));
    /* out's (i0, i1, i2) in row-major order; the stacked index k is i[axis] */
    int64_t shape[3] = {2, 3, 3}; /* (2, 3) with 3 inserted at axis */
    for (int64_t d = 2; d > axis; --d) shape[d] = shape[d - 1];
    shape[axis] = 3;
    double want[18];
    for (int64_t i0 = 0; i0 < shape[0]; ++i0)
      for (int64_t i1 = 0; i1 < shape[1]; ++i1)
        for (int64_t i2 = 0; i2 < shape[2]; ++i2) {
          int64_t i[3] = {i0, i1, i2}, r[2], m = 0;
          for (int64_t d = 0; d < 3; ++d) {
            if (d != axis) r[m++] = i[d];
          }
          want[(i0 * shape[1] + i1) * shape[2] + i2] = lg_f(t[i[axis]])[r[0] * 3 + r[1]];
        }
    CHECK_EQ_INT(lg_bad(&out, want, 18, 0), 0);
    if (out.type_index == kTVMFFITensor) {
      const DLTensor* o = tvm_ffi_tensor_dl(out.v_obj);
      CHECK(o->ndim == 3 && o->shape[0] == shape[0] && o->shape[1] == shape[1] &&
            o->shape[2] == shape[2]);
    }
    tvm_ffi_any_release(&out);
    tvm_ffi_release(attrs);
  }
  tvm_ffi_release(tup), tvm_ffi_release(fields), tvm_ffi_release(params);
  for (int k = 0; k < 3; ++k) tvm_ffi_release(x[k]), tvm_ffi_release(t[k]);
}

TEST(concat_symbolic) {
  /* concat((a: (n, 3), b: (m, 3)), axis 0) -> (n + m, 3), passed as a tuple variable */
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_tir_var_obj* m = tvm_tir_var_new("m", I64);
  tvm_tir_expr_obj* three = tvm_tir_const_int(I64, 3);
  void* da[2] = {n, three}, *db[2] = {m, three};
  tvm_relax_sinfo_obj* sa = rt_tensor_sym(F32, 2, da);
  tvm_relax_sinfo_obj* sb = rt_tensor_sym(F32, 2, db);
  void* sf = rt_array(2, sa, sb);
  tvm_relax_var_obj* tv = rt_var_take("t", tvm_relax_tuple_sinfo_new(sf));
  void* params = rt_array(1, tv);
  tvm_relax_expr_obj* call = tvm_relax_call_op("relax.concat", NULL, 1, tv);
  tvm_tir_ir_module_obj* legal = lg_legalize(params, call);
  CHECK(legal != NULL);
  for (int64_t nv = 1; legal && nv <= 4; nv += 3) {
    int64_t mv = 5 - nv;
    void* a = rv_rand(2, (int64_t[]){nv, 3});
    void* b = rv_rand(2, (int64_t[]){mv, 3});
    TVMFFIAny items[2] = {tvm_ffi_any_obj(a), tvm_ffi_any_obj(b)};
    void* tup = tvm_ffi_array_new(items, 2);
    TVMFFIAny arg = tvm_ffi_any_obj(tup), out;
    CHECK_OK(tvm_relax_eval(legal, "main", &arg, 1, &out));
    double want[15];
    for (int i = 0; i < 15; ++i) want[i] = i < nv * 3 ? lg_f(a)[i] : lg_f(b)[i - nv * 3];
    CHECK_EQ_INT(lg_bad(&out, want, 15, 0), 0);
    tvm_ffi_any_release(&out);
    tvm_ffi_release(tup), tvm_ffi_release(a), tvm_ffi_release(b);
  }
  tvm_ffi_release(legal), tvm_ffi_release(call), tvm_ffi_release(params), tvm_ffi_release(tv);
  tvm_ffi_release(sf), tvm_ffi_release(sa), tvm_ffi_release(sb), tvm_ffi_release(three);
  tvm_ffi_release(n), tvm_ffi_release(m);
}

/* A tuple of constant R.Prim int64 values. */
static tvm_relax_expr_obj* prim_tuple(int n, const int64_t* v) {
  void* items[8];
  for (int i = 0; i < n; ++i) items[i] = tvm_relax_prim_value_int64(v[i]);
  void* arr = tvm_ffi_array_of_objects(items, n);
  tvm_relax_expr_obj* t = tvm_relax_tuple_new(arr);
  tvm_ffi_release(arr);
  for (int i = 0; i < n; ++i) tvm_ffi_release(items[i]);
  return t;
}

TEST(strided_slice) {
  /* x[1:4, -1::-2] of (5, 6) (end -100 clamps to before the start) -> (3, 3) */
  void* t = rv_rand(2, (int64_t[]){5, 6});
  tvm_relax_var_obj* x;
  void* params = one_param(t, &x);
  tvm_relax_expr_obj* axes = prim_tuple(2, (int64_t[]){0, 1});
  tvm_relax_expr_obj* begin = prim_tuple(2, (int64_t[]){1, -1});
  tvm_relax_expr_obj* end = prim_tuple(2, (int64_t[]){4, -100});
  tvm_relax_expr_obj* strides = prim_tuple(2, (int64_t[]){1, -2});
  tvm_relax_expr_obj* call = tvm_relax_call_op("relax.strided_slice", NULL, 5, x, axes, begin, end, strides);
  TVMFFIAny a = tvm_ffi_any_obj(t), out;
  CHECK_OK(lg_eval(params, call, &a, 1, &out));
  double want[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) want[i * 3 + j] = lg_f(t)[(1 + i) * 6 + 5 - 2 * j];
  CHECK_EQ_INT(lg_bad(&out, want, 9, 0), 0);
  tvm_ffi_any_release(&out);
  tvm_ffi_release(axes), tvm_ffi_release(begin), tvm_ffi_release(end), tvm_ffi_release(strides);
  tvm_ffi_release(params), tvm_ffi_release(x), tvm_ffi_release(t);

  /* symbolic: x: (n, 4), x[1:100:2] -> (ceil((n - 1) / 2), 4), run with n = 6 and n = 7 */
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_tir_expr_obj* four = tvm_tir_const_int(I64, 4);
  void* d[2] = {n, four};
  x = rt_var_take("x", rt_tensor_sym(F32, 2, d));
  params = rt_array(1, x);
  axes = prim_tuple(1, (int64_t[]){0});
  begin = prim_tuple(1, (int64_t[]){1});
  end = prim_tuple(1, (int64_t[]){100});
  strides = prim_tuple(1, (int64_t[]){2});
  call = tvm_relax_call_op("relax.strided_slice", NULL, 5, x, axes, begin, end, strides);
  tvm_tir_ir_module_obj* legal = lg_legalize(params, call);
  CHECK(legal != NULL);
  for (int64_t nv = 6; legal && nv <= 7; ++nv) {
    t = rv_rand(2, (int64_t[]){nv, 4});
    a = tvm_ffi_any_obj(t);
    CHECK_OK(tvm_relax_eval(legal, "main", &a, 1, &out));
    int64_t rows = nv / 2;
    double w[16];
    for (int64_t i = 0; i < rows; ++i)
      for (int j = 0; j < 4; ++j) w[i * 4 + j] = lg_f(t)[(1 + 2 * i) * 4 + j];
    CHECK_EQ_INT(lg_bad(&out, w, rows * 4, 0), 0);
    tvm_ffi_any_release(&out);
    tvm_ffi_release(t);
  }
  tvm_ffi_release(legal), tvm_ffi_release(call);
  tvm_ffi_release(axes), tvm_ffi_release(begin), tvm_ffi_release(end), tvm_ffi_release(strides);
  tvm_ffi_release(params), tvm_ffi_release(x), tvm_ffi_release(four), tvm_ffi_release(n);
}

TEST(take_modes) {
  void* t = rv_rand(2, (int64_t[]){5, 3});
  static const char* const modes[4] = {"fast", "clip", "wrap", "nan"};
  for (int mi = 0; mi < 4; ++mi) {
    /* indices (2, 2); clip, wrap and nan also get out-of-range ones */
    void* ind = mi == 0 ? rv_rand_int(2, (int64_t[]){2, 2}, 0, 5) : rv_rand_int(2, (int64_t[]){2, 2}, -7, 12);
    tvm_relax_var_obj* x = rt_var_take("x", lg_sinfo_of(t));
    tvm_relax_var_obj* iv = rt_var_take("i", lg_sinfo_of(ind));
    void* params = rt_array(2, x, iv);
    TVMFFIAny mode = tvm_ffi_string(modes[mi]);
    void* attrs = rt_attrs(2, "axis", tvm_ffi_any_int(0), "mode", mode);
    tvm_ffi_any_release(&mode);
    TVMFFIAny args[2] = {tvm_ffi_any_obj(t), tvm_ffi_any_obj(ind)}, out;
    CHECK_OK(lg_eval(params, tvm_relax_call_op("relax.take", attrs, 2, x, iv), args, 2, &out));
    double want[12];
    const int64_t* ip = tvm_ffi_tensor_dl(ind)->data;
    for (int k = 0; k < 4; ++k) {
      int64_t r = ip[k];
      if (mi == 1) r = r < 0 ? 0 : r > 4 ? 4 : r;
      if (mi == 2) r = ((r % 5) + 5) % 5;
      if (mi == 3 && r < 0) r += 5; /* nan: inside [-5, 5) as in fast, NaN elsewhere */
      bool nan = mi == 3 && (r < 0 || r > 4);
      for (int j = 0; j < 3; ++j) want[k * 3 + j] = nan ? NAN : lg_f(t)[r * 3 + j];
    }
    CHECK_EQ_INT(lg_bad(&out, want, 12, 0), 0);
    if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 3, (int64_t[]){2, 2, 3}));
    tvm_ffi_any_release(&out);
    tvm_ffi_release(attrs), tvm_ffi_release(params), tvm_ffi_release(x), tvm_ffi_release(iv);
    tvm_ffi_release(ind);
  }
  tvm_ffi_release(t);
}

TEST(tile_repeat_flip) {
  int64_t s[2] = {2, 3};
  void* t = rv_rand(2, s);
  TVMFFIAny out;
  /* tile by (2, 1, 2) -> (2, 2, 6) */
  void* reps = lg_ints(3, (int64_t[]){2, 1, 2});
  void* attrs = rt_attrs(1, "repeats", tvm_ffi_any_obj(reps));
  CHECK_OK(run1(t, "relax.tile", attrs, NULL, &out));
  double want[24];
  for (int64_t o = 0; o < 24; ++o) {
    int64_t oi[3];
    unravel(o, (int64_t[]){2, 2, 6}, 3, oi);
    want[o] = lg_f(t)[(oi[1] % 2) * 3 + oi[2] % 3];
  }
  CHECK_EQ_INT(lg_bad(&out, want, 24, 0), 0);
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs), tvm_ffi_release(reps);
  /* repeat 2 on axis 1 -> (2, 6); on the flattened input -> (12,) */
  attrs = rt_attrs(2, "repeats", tvm_ffi_any_int(2), "axis", tvm_ffi_any_int(1));
  CHECK_OK(run1(t, "relax.repeat", attrs, NULL, &out));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 6; ++j) want[i * 6 + j] = lg_f(t)[i * 3 + j / 2];
  CHECK_EQ_INT(lg_bad(&out, want, 12, 0), 0);
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs);
  attrs = rt_attrs(1, "repeats", tvm_ffi_any_int(2));
  CHECK_OK(run1(t, "relax.repeat", attrs, NULL, &out));
  for (int i = 0; i < 12; ++i) want[i] = lg_f(t)[i / 2];
  CHECK_EQ_INT(lg_bad(&out, want, 12, 0), 0);
  if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 1, (int64_t[]){12}));
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs);
  /* flip axis -1 */
  attrs = rt_attrs(1, "axis", tvm_ffi_any_int(-1));
  CHECK_OK(run1(t, "relax.flip", attrs, NULL, &out));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) want[i * 3 + j] = lg_f(t)[i * 3 + 2 - j];
  CHECK_EQ_INT(lg_bad(&out, want, 6, 0), 0);
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs), tvm_ffi_release(t);
}

/* ---- layout_transform ------------------------------------------------------------------------ */
/* lambda i, j, k: (i, k // 4, j, k % 4) (NCW -> NCW4c style) */
static tvm_tir_index_map_obj* split4_map(void) {
  tvm_tir_var_obj *i = tvm_tir_var_new("i", I64), *j = tvm_tir_var_new("j", I64), *k = tvm_tir_var_new("k", I64);
  tvm_tir_expr_obj* c4 = tvm_tir_const_int(I64, 4);
  tvm_tir_expr_obj *kd = tvm_tir_floordiv((tvm_tir_expr_obj*)k, c4), *km = tvm_tir_floormod((tvm_tir_expr_obj*)k, c4);
  void* init = rt_array(3, i, j, k);
  void* fin = rt_array(4, i, kd, j, km);
  tvm_tir_index_map_obj* m = tvm_tir_index_map_new(init, fin, NULL);
  tvm_ffi_release(init), tvm_ffi_release(fin), tvm_ffi_release(kd), tvm_ffi_release(km);
  tvm_ffi_release(c4), tvm_ffi_release(i), tvm_ffi_release(j), tvm_ffi_release(k);
  return m;
}

TEST(layout_transform) {
  tvm_tir_index_map_obj* m = split4_map();
  /* (2, 3, 16) -> (2, 4, 3, 4): a bijection, no padding */
  int64_t s16[3] = {2, 3, 16}, s10[3] = {2, 3, 10};
  void* t = rv_rand(3, s16);
  void* attrs = rt_attrs(1, "index_map", tvm_ffi_any_obj(m));
  TVMFFIAny out;
  CHECK_OK(run1(t, "relax.layout_transform", attrs, NULL, &out));
  double want[96];
  for (int64_t l = 0; l < 96; ++l) {
    int64_t o[4], os[4] = {2, 4, 3, 4};
    unravel(l, os, 4, o);
    want[l] = lg_f(t)[offset(s16, 3, (int64_t[]){o[0], o[2], o[1] * 4 + o[3]})];
  }
  if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 4, (int64_t[]){2, 4, 3, 4}));
  CHECK_EQ_INT(lg_bad(&out, want, 96, 0), 0);
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs), tvm_ffi_release(t);
  /* (2, 3, 10) -> (2, 3, 3, 4): the last block padded, with pad_value 1.5, then with None (0) */
  t = rv_rand(3, s10);
  for (int with_pad = 1; with_pad >= 0; --with_pad) {
    tvm_tir_expr_obj* pv = tvm_tir_const_float(F32, 1.5);
    tvm_relax_expr_obj* pad = tvm_relax_prim_value_new(pv);
    attrs = with_pad ? rt_attrs(2, "index_map", tvm_ffi_any_obj(m), "pad_value", tvm_ffi_any_obj(pad))
                     : rt_attrs(1, "index_map", tvm_ffi_any_obj(m));
    CHECK_OK(run1(t, "relax.layout_transform", attrs, NULL, &out));
    for (int64_t l = 0; l < 72; ++l) {
      int64_t o[4], os[4] = {2, 3, 3, 4};
      unravel(l, os, 4, o);
      int64_t k = o[1] * 4 + o[3];
      want[l] = k < 10 ? lg_f(t)[offset(s10, 3, (int64_t[]){o[0], o[2], k})] : with_pad ? 1.5 : 0;
    }
    CHECK_EQ_INT(lg_bad(&out, want, 72, 0), 0);
    tvm_ffi_any_release(&out);
    tvm_ffi_release(attrs), tvm_ffi_release(pad), tvm_ffi_release(pv);
  }
  tvm_ffi_release(t);
  /* (2, 3, 2) -> (2, 1, 3, 4): k % 4 over 2 values still has extent 4 (upstream's padded
   * layout), the last two of each block padding */
  int64_t s2[3] = {2, 3, 2};
  t = rv_rand(3, s2);
  attrs = rt_attrs(1, "index_map", tvm_ffi_any_obj(m));
  CHECK_OK(run1(t, "relax.layout_transform", attrs, NULL, &out));
  for (int64_t l = 0; l < 24; ++l) {
    int64_t o[4], os[4] = {2, 1, 3, 4};
    unravel(l, os, 4, o);
    want[l] = o[3] < 2 ? lg_f(t)[offset(s2, 3, (int64_t[]){o[0], o[2], o[3]})] : 0;
  }
  if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 4, (int64_t[]){2, 1, 3, 4}));
  CHECK_EQ_INT(lg_bad(&out, want, 24, 0), 0);
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs), tvm_ffi_release(t);
  /* A symbolic last dim: x (2, 3, n) -> (2, (n + 3) // 4, 3, 4), run with n = 5 and 8 */
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_tir_expr_obj *c2 = tvm_tir_const_int(I64, 2), *c3 = tvm_tir_const_int(I64, 3);
  void* d[3] = {c2, c3, n};
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor_sym(F32, 3, d));
  void* params = rt_array(1, x);
  attrs = rt_attrs(1, "index_map", tvm_ffi_any_obj(m));
  tvm_relax_expr_obj* call = tvm_relax_call_op("relax.layout_transform", attrs, 1, x);
  tvm_tir_ir_module_obj* legal = lg_legalize(params, call);
  CHECK(legal != NULL);
  for (int64_t nv = 5; legal && nv <= 8; nv += 3) {
    int64_t xs[3] = {2, 3, nv}, nb = (nv + 3) / 4;
    void* xt = rv_rand(3, xs);
    TVMFFIAny arg = tvm_ffi_any_obj(xt);
    CHECK_OK(tvm_relax_eval(legal, "main", &arg, 1, &out));
    int64_t os[4] = {2, nb, 3, 4}, total = 2 * nb * 12;
    for (int64_t l = 0; l < total; ++l) {
      int64_t o[4];
      unravel(l, os, 4, o);
      int64_t k = o[1] * 4 + o[3];
      want[l] = k < nv ? lg_f(xt)[offset(xs, 3, (int64_t[]){o[0], o[2], k})] : 0;
    }
    if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 4, os));
    CHECK_EQ_INT(lg_bad(&out, want, total, 0), 0);
    tvm_ffi_any_release(&out);
    tvm_ffi_release(xt);
  }
  tvm_ffi_release(legal), tvm_ffi_release(call), tvm_ffi_release(attrs), tvm_ffi_release(params);
  tvm_ffi_release(x);
  /* A permutation with int32 map variables: lambda a, b: (b, a) over (n, 3) -> (3, n). */
  tvm_tir_var_obj *a32 = tvm_tir_var_new("a", tvm_tir_dtype_int(32)), *b32 = tvm_tir_var_new("b", tvm_tir_dtype_int(32));
  void* init = rt_array(2, a32, b32);
  void* fin = rt_array(2, b32, a32);
  tvm_tir_index_map_obj* pm = tvm_tir_index_map_new(init, fin, NULL);
  void* d2[2] = {n, c3};
  x = rt_var_take("x", rt_tensor_sym(F32, 2, d2));
  params = rt_array(1, x);
  attrs = rt_attrs(1, "index_map", tvm_ffi_any_obj(pm));
  call = tvm_relax_call_op("relax.layout_transform", attrs, 1, x);
  legal = call ? lg_legalize(params, call) : NULL;
  CHECK(legal != NULL);
  if (legal) {
    int64_t xs[2] = {4, 3};
    void* xt = rv_rand(2, xs);
    TVMFFIAny arg = tvm_ffi_any_obj(xt);
    CHECK_OK(tvm_relax_eval(legal, "main", &arg, 1, &out));
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 4; ++i) want[j * 4 + i] = lg_f(xt)[i * 3 + j];
    if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 2, (int64_t[]){3, 4}));
    CHECK_EQ_INT(lg_bad(&out, want, 12, 0), 0);
    tvm_ffi_any_release(&out);
    tvm_ffi_release(xt);
  }
  tvm_ffi_release(legal), tvm_ffi_release(call), tvm_ffi_release(attrs), tvm_ffi_release(params);
  tvm_ffi_release(x), tvm_ffi_release(pm), tvm_ffi_release(init), tvm_ffi_release(fin);
  tvm_ffi_release(a32), tvm_ffi_release(b32), tvm_ffi_release(c2), tvm_ffi_release(c3), tvm_ffi_release(n);
  tvm_ffi_release(m);
}

int main(void) {
  RUN(reshape_family);
  RUN(reshape_symbolic);
  RUN(permute_dims);
  RUN(broadcast_to);
  RUN(concat_and_split);
  RUN(concat_symbolic);
  RUN(stack_kernel);
  RUN(strided_slice);
  RUN(take_modes);
  RUN(tile_repeat_flip);
  RUN(layout_transform);
  return test_summary();
}
