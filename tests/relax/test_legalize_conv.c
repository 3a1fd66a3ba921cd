/*
 * test_legalize_conv.c: the kernels of conv1d / conv2d (strides, padding, dilation, groups;
 * conv2d also in data / weight / output layouts that permute NCHW / OIHW),
 * conv2d_transpose (the same, output_padding, symbolic batch and height, data / weight /
 * output layouts that permute NCHW / IOHW),
 * max_pool2d / avg_pool2d (ceil_mode, count_include_pad), adaptive_avg_pool2d (both also in
 * packed layouts, NCHW4c / NHWC4c, against the NCHW oracle packed), pad (constant,
 * edge, reflect), batch_norm (inference and training) and dropout, legalized and run by the
 * reference evaluator on random inputs, against direct C loops; a symbolic batch for conv2d.
 */
#include "legalize_testing.h"

/* Run main(params from tensors) { op(params) } with attrs; *out the result. */
static int run(const char* op, void* attrs, int n, void* const* tensors, TVMFFIAny* out) {
  tvm_relax_var_obj* p[6];
  TVMFFIAny args[6];
  for (int i = 0; i < n; ++i) {
    char name[16];
    snprintf(name, sizeof(name), "p%d", i);
    p[i] = rt_var_take(name, lg_sinfo_of(tensors[i]));
    args[i] = tvm_ffi_any_obj(tensors[i]);
  }
  void* params = tvm_ffi_array_of_objects((void**)p, n);
  void* cargs = tvm_ffi_array_of_objects((void**)p, n);
  const tvm_relax_op_info* info = tvm_relax_op_info_find(op, strlen(op));
  tvm_relax_expr_obj* call = tvm_relax_call_new(tvm_relax_op(info->id), cargs, attrs, NULL, NULL);
  int rc = lg_eval(params, call, args, n, out);
  tvm_ffi_release(cargs), tvm_ffi_release(params);
  for (int i = 0; i < n; ++i) tvm_ffi_release(p[i]);
  return rc;
}

/* NCHW conv2d oracle: x (N, C, H, W), w (O, I, KH, KW), groups; out (N, O, OH, OW). */
static void conv2d_ref(const float* x, const int64_t* xs, const float* w, const int64_t* ws,
                       const int64_t* st, const int64_t* pad, const int64_t* dl, int64_t groups,
                       const int64_t* os, double* out) {
  int64_t opg = ws[0] / groups;
  for (int64_t n = 0; n < os[0]; ++n)
    for (int64_t o = 0; o < os[1]; ++o)
      for (int64_t y = 0; y < os[2]; ++y)
        for (int64_t z = 0; z < os[3]; ++z) {
          double s = 0;
          for (int64_t c = 0; c < ws[1]; ++c)
            for (int64_t ky = 0; ky < ws[2]; ++ky)
              for (int64_t kx = 0; kx < ws[3]; ++kx) {
                int64_t iy = y * st[0] - pad[0] + ky * dl[0], ix = z * st[1] - pad[1] + kx * dl[1];
                if (iy < 0 || iy >= xs[2] || ix < 0 || ix >= xs[3]) continue;
                int64_t ic = (o / opg) * ws[1] + c;
                s += (double)x[((n * xs[1] + ic) * xs[2] + iy) * xs[3] + ix] *
                     w[((o * ws[1] + c) * ws[2] + ky) * ws[3] + kx];
              }
          out[((n * os[1] + o) * os[2] + y) * os[3] + z] = s;
        }
}

TEST(conv2d_strided_padded_dilated_grouped) {
  int64_t xs[4] = {2, 4, 7, 6}, ws[4] = {6, 2, 3, 2};
  int64_t st[2] = {2, 1}, pad[4] = {1, 0, 2, 1}, dl[2] = {1, 2};
  void* t[2] = {rv_rand(4, xs), rv_rand(4, ws)};
  void* a_st = lg_ints(2, st), *a_pad = lg_ints(4, pad), *a_dl = lg_ints(2, dl);
  void* attrs = rt_attrs(4, "strides", tvm_ffi_any_obj(a_st), "padding", tvm_ffi_any_obj(a_pad),
                         "dilation", tvm_ffi_any_obj(a_dl), "groups", tvm_ffi_any_int(2));
  TVMFFIAny out;
  CHECK_OK(run("relax.nn.conv2d", attrs, 2, t, &out));
  int64_t os[4] = {2, 6, 4, 5};
  double want[2 * 6 * 4 * 5];
  conv2d_ref(lg_f(t[0]), xs, lg_f(t[1]), ws, st, pad, dl, 2, os, want);
  CHECK_EQ_INT(lg_bad(&out, want, 240, 1e-5), 0);
  if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 4, os));
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs), tvm_ffi_release(a_st), tvm_ffi_release(a_pad), tvm_ffi_release(a_dl);
  tvm_ffi_release(t[0]), tvm_ffi_release(t[1]);
}

TEST(conv2d_symbolic_batch) {
  /* x: (n, 3, 5, 5), w: (4, 3, 3, 3), padding 1 -> (n, 4, 5, 5), run with n = 1 and 3 */
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_tir_expr_obj* c3 = tvm_tir_const_int(I64, 3);
  tvm_tir_expr_obj* c5 = tvm_tir_const_int(I64, 5);
  void* d[4] = {n, c3, c5, c5};
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor_sym(F32, 4, d));
  tvm_relax_var_obj* w = rt_var_take("w", rt_tensor(F32, 4, (int64_t)4, (int64_t)3, (int64_t)3, (int64_t)3));
  void* params = rt_array(2, x, w);
  void* a_pad = lg_ints(1, (int64_t[]){1});
  void* attrs = rt_attrs(1, "padding", tvm_ffi_any_obj(a_pad));
  tvm_relax_expr_obj* call = tvm_relax_call_op("relax.nn.conv2d", attrs, 2, x, w);
  tvm_tir_ir_module_obj* legal = lg_legalize(params, call);
  CHECK(legal != NULL);
  int64_t ws[4] = {4, 3, 3, 3};
  void* wt = rv_rand(4, ws);
  for (int64_t nv = 1; legal && nv <= 3; nv += 2) {
    int64_t xs[4] = {nv, 3, 5, 5}, os[4] = {nv, 4, 5, 5};
    void* xt = rv_rand(4, xs);
    TVMFFIAny args[2] = {tvm_ffi_any_obj(xt), tvm_ffi_any_obj(wt)}, out;
    CHECK_OK(tvm_relax_eval(legal, "main", args, 2, &out));
    double want[3 * 4 * 25];
    conv2d_ref(lg_f(xt), xs, lg_f(wt), ws, (int64_t[]){1, 1}, (int64_t[]){1, 1, 1, 1},
               (int64_t[]){1, 1}, 1, os, want);
    CHECK_EQ_INT(lg_bad(&out, want, nv * 100, 1e-5), 0);
    tvm_ffi_any_release(&out);
    tvm_ffi_release(xt);
  }
  tvm_ffi_release(wt), tvm_ffi_release(legal), tvm_ffi_release(call), tvm_ffi_release(attrs);
  tvm_ffi_release(a_pad), tvm_ffi_release(params), tvm_ffi_release(x), tvm_ffi_release(w);
  tvm_ffi_release(c3), tvm_ffi_release(c5), tvm_ffi_release(n);
}

TEST(conv1d) {
  int64_t xs[3] = {2, 3, 9}, ws[3] = {4, 3, 3};
  void* t[2] = {rv_rand(3, xs), rv_rand(3, ws)};
  void* a_st = lg_ints(1, (int64_t[]){2}), *a_pad = lg_ints(2, (int64_t[]){1, 2});
  void* attrs = rt_attrs(2, "strides", tvm_ffi_any_obj(a_st), "padding", tvm_ffi_any_obj(a_pad));
  TVMFFIAny out;
  CHECK_OK(run("relax.nn.conv1d", attrs, 2, t, &out));
  /* (9 + 3 - 2 - 1) // 2 + 1 = 5 */
  double want[2 * 4 * 5];
  const float *x = lg_f(t[0]), *w = lg_f(t[1]);
  for (int n = 0; n < 2; ++n)
    for (int o = 0; o < 4; ++o)
      for (int y = 0; y < 5; ++y) {
        double s = 0;
        for (int c = 0; c < 3; ++c)
          for (int k = 0; k < 3; ++k) {
            int iy = y * 2 - 1 + k;
            if (iy >= 0 && iy < 9) s += (double)x[(n * 3 + c) * 9 + iy] * w[(o * 3 + c) * 3 + k];
          }
        want[(n * 4 + o) * 5 + y] = s;
      }
  CHECK_EQ_INT(lg_bad(&out, want, 40, 1e-5), 0);
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs), tvm_ffi_release(a_st), tvm_ffi_release(a_pad);
  tvm_ffi_release(t[0]), tvm_ffi_release(t[1]);
}

/* Pooling oracle on (N, C, H, W): kind 0 max, 1 avg excluding the padding, 2 avg including it. */
static void pool_ref(const float* x, const int64_t* xs, const int64_t* os, int64_t k, int64_t st,
                     const int64_t* pad, int kind, double* out) {
  for (int64_t nc = 0; nc < xs[0] * xs[1]; ++nc)
    for (int64_t y = 0; y < os[2]; ++y)
      for (int64_t z = 0; z < os[3]; ++z) {
        double m = -INFINITY, s = 0;
        int64_t valid = 0, padded = 0;
        for (int64_t ky = 0; ky < k; ++ky)
          for (int64_t kx = 0; kx < k; ++kx) {
            int64_t iy = y * st - pad[0] + ky, ix = z * st - pad[1] + kx;
            if (iy < xs[2] + pad[2] && ix < xs[3] + pad[3]) ++padded;
            if (iy < 0 || iy >= xs[2] || ix < 0 || ix >= xs[3]) continue;
            double v = x[(nc * xs[2] + iy) * xs[3] + ix];
            m = v > m ? v : m;
            s += v;
            ++valid;
          }
        out[(nc * os[2] + y) * os[3] + z] = kind == 0 ? m : kind == 1 ? s / valid : s / padded;
      }
}

TEST(pool2d) {
  int64_t xs[4] = {2, 3, 8, 7};
  void* t = rv_rand(4, xs);
  for (int kind = 0; kind < 3; ++kind) {
    for (int ceil = 0; ceil < 2; ++ceil) {
      int64_t pad[4] = {1, 1, 1, 0};
      void* a_k = lg_ints(1, (int64_t[]){3}), *a_st = lg_ints(1, (int64_t[]){2}), *a_pad = lg_ints(4, pad);
      void* attrs = rt_attrs(5, "pool_size", tvm_ffi_any_obj(a_k), "strides", tvm_ffi_any_obj(a_st),
                             "padding", tvm_ffi_any_obj(a_pad), "ceil_mode", tvm_ffi_any_bool(ceil),
                             "count_include_pad", tvm_ffi_any_bool(kind == 2));
      TVMFFIAny out;
      CHECK_OK(run(kind == 0 ? "relax.nn.max_pool2d" : "relax.nn.avg_pool2d", attrs, 1, &t, &out));
      /* H: (8 + 2 - 3 [+ 1]) // 2 + 1 = 4 (ceil: 5, the last window starts at 8 - 1 + ... kept
       * when it starts before the input's end plus the before-padding); W likewise. */
      int64_t os[4] = {2, 3, 0, 0};
      for (int i = 0; i < 2; ++i) {
        int64_t in = xs[2 + i], c = pad[i] + pad[2 + i] - 3 + (ceil ? 1 : 0);
        int64_t r = (in + c) / 2 + 1;
        if (ceil && (r - 1) * 2 >= in + pad[i]) --r;
        os[2 + i] = r;
      }
      double want[2 * 3 * 5 * 5];
      pool_ref(lg_f(t), xs, os, 3, 2, pad, kind, want);
      CHECK_EQ_INT(lg_bad(&out, want, 6 * os[2] * os[3], 1e-5), 0);
      if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 4, os));
      tvm_ffi_any_release(&out);
      tvm_ffi_release(attrs), tvm_ffi_release(a_k), tvm_ffi_release(a_st), tvm_ffi_release(a_pad);
    }
  }
  tvm_ffi_release(t);
}

TEST(adaptive_avg_pool2d) {
  int64_t xs[4] = {1, 2, 7, 5};
  void* t = rv_rand(4, xs);
  void* sz = lg_ints(2, (int64_t[]){3, 2});
  void* attrs = rt_attrs(1, "output_size", tvm_ffi_any_obj(sz));
  TVMFFIAny out;
  CHECK_OK(run("relax.nn.adaptive_avg_pool2d", attrs, 1, &t, &out));
  double want[12];
  for (int c = 0; c < 2; ++c)
    for (int y = 0; y < 3; ++y)
      for (int z = 0; z < 2; ++z) {
        int y0 = y * 7 / 3, y1 = ((y + 1) * 7 + 2) / 3, z0 = z * 5 / 2, z1 = ((z + 1) * 5 + 1) / 2;
        double s = 0;
        for (int i = y0; i < y1; ++i)
          for (int j = z0; j < z1; ++j) s += lg_f(t)[(c * 7 + i) * 5 + j];
        want[(c * 3 + y) * 2 + z] = s / ((y1 - y0) * (z1 - z0));
      }
  CHECK_EQ_INT(lg_bad(&out, want, 12, 1e-5), 0);
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs), tvm_ffi_release(sz), tvm_ffi_release(t);
}

/* Packed layouts (NCHW4c, as upstream's test_max_pool2d_NCHW16c): the packed input's result is
 * the NCHW oracle's, packed the same way -- the sub-axis c passes through the window like C;
 * out_layout may reorder the axes (NHWC4c) but keeps the packing. */
TEST(pool2d_packed) {
  static const struct {
    const char *in, *out;
    int pi[5], po[5];
  } cases[3] = {
      {"NCHW4c", NULL, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}},
      {"NCHW4c", "NHWC4c", {0, 1, 2, 3, 4}, {0, 3, 1, 2, 4}},
      {"NHWC4c", "NCHW4c", {0, 3, 1, 2, 4}, {0, 1, 2, 3, 4}},
  };
  int64_t xs[4] = {2, 8, 7, 6};
  void* t = rv_rand(4, xs);
  for (int ci = 0; ci < 3; ++ci) {
    void* tp = lg_packed_tensor(t, 4, cases[ci].pi);
    for (int kind = 0; kind < 3; ++kind) {
      int ceil = kind == 1;
      int64_t pad[4] = {1, 1, 1, 0};
      void *a_k = lg_ints(1, (int64_t[]){3}), *a_st = lg_ints(1, (int64_t[]){2});
      void* a_pad = lg_ints(4, pad);
      TVMFFIAny li = tvm_ffi_string(cases[ci].in);
      TVMFFIAny lo = cases[ci].out ? tvm_ffi_string(cases[ci].out) : tvm_ffi_any_none();
      void* attrs = rt_attrs(7, "pool_size", tvm_ffi_any_obj(a_k), "strides",
                             tvm_ffi_any_obj(a_st), "padding", tvm_ffi_any_obj(a_pad),
                             "ceil_mode", tvm_ffi_any_bool(ceil), "count_include_pad",
                             tvm_ffi_any_bool(kind == 2), "layout", li, "out_layout", lo);
      tvm_ffi_any_release(&li), tvm_ffi_any_release(&lo);
      TVMFFIAny out;
      CHECK_OK(run(kind == 0 ? "relax.nn.max_pool2d" : "relax.nn.avg_pool2d", attrs, 1, &tp,
                   &out));
      int64_t os[4] = {2, 8, 0, 0}, ds[5];
      for (int i = 0; i < 2; ++i) {
        int64_t in = xs[2 + i], c = pad[i] + pad[2 + i] - 3 + (ceil ? 1 : 0);
        int64_t r = (in + c) / 2 + 1;
        if (ceil && (r - 1) * 2 >= in + pad[i]) --r;
        os[2 + i] = r;
      }
      double want[2 * 8 * 4 * 4], packed[2 * 8 * 4 * 4];
      pool_ref(lg_f(t), xs, os, 3, 2, pad, kind, want);
      lg_pack_nchw(want, os, 4, cases[ci].po, packed, ds);
      int64_t n = 16 * os[2] * os[3];
      int nbad = lg_bad(&out, packed, n, 1e-5);
      if (nbad) fprintf(stderr, "  pool %s -> %s kind %d: %d bad\n", cases[ci].in,
                        cases[ci].out ? cases[ci].out : "(same)", kind, nbad);
      CHECK_EQ_INT(nbad, 0);
      if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 5, ds));
      tvm_ffi_any_release(&out);
      tvm_ffi_release(attrs), tvm_ffi_release(a_k), tvm_ffi_release(a_st);
      tvm_ffi_release(a_pad);
    }
    /* adaptive_avg_pool2d: against the NCHW kernel (tested above against its oracle), packed */
    void* sz = lg_ints(2, (int64_t[]){3, 2});
    TVMFFIAny li = tvm_ffi_string(cases[ci].in);
    TVMFFIAny lo = cases[ci].out ? tvm_ffi_string(cases[ci].out) : tvm_ffi_any_none();
    void* attrs = rt_attrs(3, "output_size", tvm_ffi_any_obj(sz), "layout", li, "out_layout", lo);
    void* attrs0 = rt_attrs(1, "output_size", tvm_ffi_any_obj(sz));
    tvm_ffi_any_release(&li), tvm_ffi_any_release(&lo);
    TVMFFIAny out, ref;
    CHECK_OK(run("relax.nn.adaptive_avg_pool2d", attrs, 1, &tp, &out));
    CHECK_OK(run("relax.nn.adaptive_avg_pool2d", attrs0, 1, &t, &ref));
    if (ref.type_index == kTVMFFITensor) {
      int64_t os[4] = {2, 8, 3, 2}, ds[5];
      double want[96], packed[96];
      for (int i = 0; i < 96; ++i) want[i] = lg_f(ref.v_obj)[i];
      lg_pack_nchw(want, os, 4, cases[ci].po, packed, ds);
      CHECK_EQ_INT(lg_bad(&out, packed, 96, 1e-5), 0);
      if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 5, ds));
    }
    tvm_ffi_any_release(&out), tvm_ffi_any_release(&ref);
    tvm_ffi_release(attrs), tvm_ffi_release(attrs0), tvm_ffi_release(sz);
    tvm_ffi_release(tp);
  }
  tvm_ffi_release(t);
}

TEST(pad_modes) {
  int64_t xs[2] = {3, 4};
  void* t = rv_rand(2, xs);
  static const char* const modes[3] = {"constant", "edge", "reflect"};
  for (int m = 0; m < 3; ++m) {
    void* w = lg_ints(4, (int64_t[]){1, 2, 2, 1});
    TVMFFIAny mode = tvm_ffi_string(modes[m]);
    void* attrs = rt_attrs(3, "pad_width", tvm_ffi_any_obj(w), "pad_value", tvm_ffi_any_float(1.5),
                           "pad_mode", mode);
    tvm_ffi_any_release(&mode);
    TVMFFIAny out;
    CHECK_OK(run("relax.nn.pad", attrs, 1, &t, &out));
    double want[6 * 7];
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 7; ++j) {
        int a = i - 1, b = j - 2;
        bool inside = a >= 0 && a < 3 && b >= 0 && b < 4;
        if (m == 1) a = a < 0 ? 0 : a > 2 ? 2 : a, b = b < 0 ? 0 : b > 3 ? 3 : b;
        if (m == 2) a = a < 0 ? -a : a > 2 ? 4 - a : a, b = b < 0 ? -b : b > 3 ? 6 - b : b;
        want[i * 7 + j] = m == 0 && !inside ? 1.5 : lg_f(t)[a * 4 + b];
      }
    CHECK_EQ_INT(lg_bad(&out, want, 42, 0), 0);
    tvm_ffi_any_release(&out);
    tvm_ffi_release(attrs), tvm_ffi_release(w);
  }
  tvm_ffi_release(t);
}

TEST(batch_norm_and_dropout) {
  int64_t xs[3] = {2, 3, 4}, cs[1] = {3};
  void* t[5] = {rv_rand(3, xs), rv_rand(1, cs), rv_rand(1, cs), rv_rand(1, cs), rv_rand(1, cs)};
  float* var = tvm_ffi_tensor_dl(t[4])->data;
  for (int i = 0; i < 3; ++i) var[i] = var[i] < 0 ? -var[i] : var[i]; /* a variance */
  void* attrs = rt_attrs(3, "axis", tvm_ffi_any_int(1), "training", tvm_ffi_any_bool(false),
                         "epsilon", tvm_ffi_any_float(1e-3));
  TVMFFIAny out;
  CHECK_OK(run("relax.nn.batch_norm", attrs, 5, t, &out));
  CHECK(out.type_index == kTVMFFIArray);
  if (out.type_index == kTVMFFIArray && tvm_ffi_seq_size(out.v_obj) == 3) {
    const float *x = lg_f(t[0]), *g = lg_f(t[1]), *b = lg_f(t[2]), *mu = lg_f(t[3]);
    double want[24], wm[3], wv[3];
    for (int i = 0; i < 24; ++i) {
      int c = (i / 4) % 3;
      want[i] = (x[i] - mu[c]) / sqrt(var[c] + 1e-3) * g[c] + b[c];
    }
    for (int c = 0; c < 3; ++c) wm[c] = mu[c], wv[c] = var[c];
    CHECK_EQ_INT(lg_bad(tvm_ffi_seq_at(out.v_obj, 0), want, 24, 1e-5), 0);
    CHECK_EQ_INT(lg_bad(tvm_ffi_seq_at(out.v_obj, 1), wm, 3, 0), 0);
    CHECK_EQ_INT(lg_bad(tvm_ffi_seq_at(out.v_obj, 2), wv, 3, 0), 0);
  }
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs);
  /* training: the batch's statistics over dims 0 and 2, the moving ones updated */
  attrs = rt_attrs(4, "axis", tvm_ffi_any_int(1), "training", tvm_ffi_any_bool(true), "momentum",
                   tvm_ffi_any_float(0.25), "center", tvm_ffi_any_bool(false));
  CHECK_OK(run("relax.nn.batch_norm", attrs, 5, t, &out));
  CHECK(out.type_index == kTVMFFIArray);
  if (out.type_index == kTVMFFIArray && tvm_ffi_seq_size(out.v_obj) == 3) {
    const float *x = lg_f(t[0]), *g = lg_f(t[1]), *mu = lg_f(t[3]);
    double want[24], wm[3], wv[3];
    for (int c = 0; c < 3; ++c) {
      double m = 0, v = 0;
      for (int b = 0; b < 2; ++b)
        for (int k = 0; k < 4; ++k) m += x[(b * 3 + c) * 4 + k];
      m /= 8;
      for (int b = 0; b < 2; ++b)
        for (int k = 0; k < 4; ++k) v += (x[(b * 3 + c) * 4 + k] - m) * (x[(b * 3 + c) * 4 + k] - m);
      v /= 8;
      for (int b = 0; b < 2; ++b)
        for (int k = 0; k < 4; ++k) {
          int i = (b * 3 + c) * 4 + k;
          want[i] = (x[i] - m) / sqrt(v + 1e-5) * g[c];
        }
      wm[c] = 0.75 * mu[c] + 0.25 * m;
      wv[c] = 0.75 * var[c] + 0.25 * v;
    }
    CHECK_EQ_INT(lg_bad(tvm_ffi_seq_at(out.v_obj, 0), want, 24, 1e-4), 0);
    CHECK_EQ_INT(lg_bad(tvm_ffi_seq_at(out.v_obj, 1), wm, 3, 1e-5), 0);
    CHECK_EQ_INT(lg_bad(tvm_ffi_seq_at(out.v_obj, 2), wv, 3, 1e-5), 0);
  }
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs);
  /* dropout: (x, ones) */
  CHECK_OK(run("relax.nn.dropout", NULL, 1, t, &out));
  if (out.type_index == kTVMFFIArray && tvm_ffi_seq_size(out.v_obj) == 2) {
    double want[24], ones[24];
    for (int i = 0; i < 24; ++i) want[i] = lg_f(t[0])[i], ones[i] = 1;
    CHECK_EQ_INT(lg_bad(tvm_ffi_seq_at(out.v_obj, 0), want, 24, 0), 0);
    CHECK_EQ_INT(lg_bad(tvm_ffi_seq_at(out.v_obj, 1), ones, 24, 0), 0);
  } else {
    CHECK(0);
  }
  tvm_ffi_any_release(&out);
  for (int i = 0; i < 5; ++i) tvm_ffi_release(t[i]);
}

/* conv2d_transpose oracle, the scatter form: each input element times each tap of its
 * channel's filters added at y = iy * stride - pad_top + ky * dilation of the output.
 * x (N, C, H, W), w (C, O_g, KH, KW); out (N, O_g * groups, OH, OW). */
static void conv2d_transpose_ref(const float* x, const int64_t* xs, const float* w, const int64_t* ws,
                                 const int64_t* st, const int64_t* pad, const int64_t* dl,
                                 int64_t groups, const int64_t* os, double* out) {
  int64_t ipg = ws[0] / groups, n_out = os[0] * os[1] * os[2] * os[3];
  for (int64_t i = 0; i < n_out; ++i) out[i] = 0;
  for (int64_t n = 0; n < xs[0]; ++n)
    for (int64_t c = 0; c < xs[1]; ++c)
      for (int64_t iy = 0; iy < xs[2]; ++iy)
        for (int64_t ix = 0; ix < xs[3]; ++ix)
          for (int64_t og = 0; og < ws[1]; ++og)
            for (int64_t ky = 0; ky < ws[2]; ++ky)
              for (int64_t kx = 0; kx < ws[3]; ++kx) {
                int64_t y = iy * st[0] - pad[0] + ky * dl[0], z = ix * st[1] - pad[1] + kx * dl[1];
                if (y < 0 || y >= os[2] || z < 0 || z >= os[3]) continue;
                int64_t o = (c / ipg) * ws[1] + og;
                out[((n * os[1] + o) * os[2] + y) * os[3] + z] +=
                    (double)x[((n * xs[1] + c) * xs[2] + iy) * xs[3] + ix] *
                    w[((c * ws[1] + og) * ws[2] + ky) * ws[3] + kx];
              }
}

TEST(conv2d_transpose) {
  static const struct {
    int64_t xs[4], ws[4], st[2], pad[4], opad[2], dl[2], groups;
  } cases[] = {
      /* plain: (1, 2, 3, 3) x (2, 3, 2, 2) -> (1, 3, 4, 4) */
      {{1, 2, 3, 3}, {2, 3, 2, 2}, {1, 1}, {0, 0, 0, 0}, {0, 0}, {1, 1}, 1},
      /* strided, padded, output_padding, grouped: H (5 - 1) * 2 - 1 - 0 + 2 + 1 + 1 = 11 */
      {{2, 4, 5, 4}, {4, 3, 3, 2}, {2, 3}, {1, 0, 0, 1}, {1, 2}, {1, 1}, 2},
      /* dilated (upstream's TOPI has no dilation; the definition extends to it) */
      {{1, 3, 4, 3}, {3, 2, 3, 3}, {2, 1}, {1, 1, 1, 1}, {0, 0}, {2, 2}, 1},
  };
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
    void* t[2] = {rv_rand(4, cases[c].xs), rv_rand(4, cases[c].ws)};
    void *a_st = lg_ints(2, cases[c].st), *a_pad = lg_ints(4, cases[c].pad),
         *a_op = lg_ints(2, cases[c].opad), *a_dl = lg_ints(2, cases[c].dl);
    void* attrs = rt_attrs(5, "strides", tvm_ffi_any_obj(a_st), "padding", tvm_ffi_any_obj(a_pad),
                           "output_padding", tvm_ffi_any_obj(a_op), "dilation", tvm_ffi_any_obj(a_dl),
                           "groups", tvm_ffi_any_int(cases[c].groups));
    int64_t os[4] = {cases[c].xs[0], cases[c].ws[1] * cases[c].groups, 0, 0};
    for (int i = 0; i < 2; ++i) {
      os[2 + i] = (cases[c].xs[2 + i] - 1) * cases[c].st[i] - cases[c].pad[i] - cases[c].pad[2 + i] +
                  cases[c].dl[i] * (cases[c].ws[2 + i] - 1) + cases[c].opad[i] + 1;
    }
    TVMFFIAny out;
    CHECK_OK(run("relax.nn.conv2d_transpose", attrs, 2, t, &out));
    double want[2 * 6 * 11 * 12];
    conv2d_transpose_ref(lg_f(t[0]), cases[c].xs, lg_f(t[1]), cases[c].ws, cases[c].st, cases[c].pad,
                         cases[c].dl, cases[c].groups, os, want);
    if (out.type_index == kTVMFFITensor) {
      CHECK(lg_shape_is(out.v_obj, 4, os));
      CHECK_EQ_INT(lg_bad(&out, want, os[0] * os[1] * os[2] * os[3], 1e-5), 0);
    }
    tvm_ffi_any_release(&out);
    tvm_ffi_release(attrs), tvm_ffi_release(a_st), tvm_ffi_release(a_pad), tvm_ffi_release(a_op);
    tvm_ffi_release(a_dl), tvm_ffi_release(t[0]), tvm_ffi_release(t[1]);
  }
}

TEST(conv2d_transpose_symbolic_and_layouts) {
  /* x: (n, 2, h, 3) with symbolic batch and height, stride 2: (n, 4, 2h + 1, 7). */
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_tir_var_obj* h = tvm_tir_var_new("h", I64);
  tvm_tir_expr_obj *c2 = tvm_tir_const_int(I64, 2), *c3 = tvm_tir_const_int(I64, 3);
  void* d[4] = {n, c2, h, c3};
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor_sym(F32, 4, d));
  tvm_relax_var_obj* w = rt_var_take("w", rt_tensor(F32, 4, (int64_t)2, (int64_t)4, (int64_t)3, (int64_t)3));
  void* params = rt_array(2, x, w);
  void* a_st = lg_ints(1, (int64_t[]){2}), *a_pad = lg_ints(1, (int64_t[]){1});
  void* attrs = rt_attrs(2, "strides", tvm_ffi_any_obj(a_st), "padding", tvm_ffi_any_obj(a_pad));
  tvm_relax_expr_obj* call = tvm_relax_call_op("relax.nn.conv2d_transpose", attrs, 2, x, w);
  tvm_tir_ir_module_obj* legal = lg_legalize(params, call);
  CHECK(legal != NULL);
  int64_t ws[4] = {2, 4, 3, 3};
  void* wt = rv_rand(4, ws);
  for (int64_t nv = 1; legal && nv <= 2; ++nv) {
    int64_t hv = nv + 2, xs[4] = {nv, 2, hv, 3}, os[4] = {nv, 4, 2 * hv - 1, 5};
    void* xt = rv_rand(4, xs);
    TVMFFIAny args[2] = {tvm_ffi_any_obj(xt), tvm_ffi_any_obj(wt)}, out;
    CHECK_OK(tvm_relax_eval(legal, "main", args, 2, &out));
    double want[2 * 4 * 7 * 5];
    conv2d_transpose_ref(lg_f(xt), xs, lg_f(wt), ws, (int64_t[]){2, 2}, (int64_t[]){1, 1, 1, 1},
                         (int64_t[]){1, 1}, 1, os, want);
    if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 4, os));
    CHECK_EQ_INT(lg_bad(&out, want, os[0] * os[1] * os[2] * os[3], 1e-5), 0);
    tvm_ffi_any_release(&out);
    tvm_ffi_release(xt);
  }
  tvm_ffi_release(legal), tvm_ffi_release(call), tvm_ffi_release(attrs);
  tvm_ffi_release(wt), tvm_ffi_release(a_st), tvm_ffi_release(a_pad);
  tvm_ffi_release(params), tvm_ffi_release(x), tvm_ffi_release(w);
  tvm_ffi_release(c2), tvm_ffi_release(c3), tvm_ffi_release(n), tvm_ffi_release(h);
}

/* pos[k] = where letter canon[k] is in layout. */
static void letter_pos(const char* layout, const char* canon, int* pos) {
  for (int k = 0; k < 4; ++k) pos[k] = (int)(strchr(layout, canon[k]) - layout);
}

/* The 4-d tensor t (canonical dims cs) with its axes placed by pos (a new tensor). */
static void* permuted(const void* t, const int64_t* cs, const int* pos) {
  int64_t ps[4];
  for (int k = 0; k < 4; ++k) ps[pos[k]] = cs[k];
  void* u = tvm_ffi_tensor_empty(ps, 4, F32, (DLDevice){kDLCPU, 0});
  const float* src = lg_f(t);
  float* dst = tvm_ffi_tensor_dl(u)->data;
  int64_t i[4];
  for (i[0] = 0; i[0] < cs[0]; ++i[0])
    for (i[1] = 0; i[1] < cs[1]; ++i[1])
      for (i[2] = 0; i[2] < cs[2]; ++i[2])
        for (i[3] = 0; i[3] < cs[3]; ++i[3]) {
          int64_t pi[4];
          for (int k = 0; k < 4; ++k) pi[pos[k]] = i[k];
          dst[((pi[0] * ps[1] + pi[1]) * ps[2] + pi[2]) * ps[3] + pi[3]] =
              src[((i[0] * cs[1] + i[1]) * cs[2] + i[2]) * cs[3] + i[3]];
        }
  return u;
}

/* Other layouts: the data, weight and output permuted; the oracle's NCHW result permuted. */
TEST(conv2d_transpose_layouts) {
  static const struct {
    const char *dl, *kl, *ol; /* ol NULL: data_layout */
    int64_t xs[4], ws[4], st[2], pad[4], opad[2], dil[2], groups;
  } cases[] = {
      {"NHWC", "HWOI", NULL, {2, 4, 3, 3}, {4, 3, 2, 3}, {2, 1}, {1, 0, 0, 1}, {1, 0}, {1, 1}, 2},
      {"NCHW", "OIHW", "NHWC", {1, 2, 4, 3}, {2, 3, 3, 2}, {1, 2}, {0, 1, 1, 0}, {0, 1}, {2, 1}, 1},
      {"CHWN", "IHWO", "WNCH", {2, 3, 3, 4}, {3, 2, 2, 2}, {2, 2}, {1, 1, 0, 0}, {1, 1}, {1, 2}, 3},
  };
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
    const char* ol = cases[c].ol ? cases[c].ol : cases[c].dl;
    int pd[4], pk[4], po[4];
    letter_pos(cases[c].dl, "NCHW", pd), letter_pos(cases[c].kl, "IOHW", pk), letter_pos(ol, "NCHW", po);
    void* x = rv_rand(4, cases[c].xs);
    void* w = rv_rand(4, cases[c].ws);
    void* t[2] = {permuted(x, cases[c].xs, pd), permuted(w, cases[c].ws, pk)};
    void *a_st = lg_ints(2, cases[c].st), *a_pad = lg_ints(4, cases[c].pad),
         *a_op = lg_ints(2, cases[c].opad), *a_dl = lg_ints(2, cases[c].dil);
    TVMFFIAny dl = tvm_ffi_string(cases[c].dl), kl = tvm_ffi_string(cases[c].kl);
    TVMFFIAny olv = cases[c].ol ? tvm_ffi_string(cases[c].ol) : tvm_ffi_any_none();
    void* attrs = rt_attrs(8, "strides", tvm_ffi_any_obj(a_st), "padding", tvm_ffi_any_obj(a_pad),
                           "output_padding", tvm_ffi_any_obj(a_op), "dilation", tvm_ffi_any_obj(a_dl),
                           "groups", tvm_ffi_any_int(cases[c].groups), "data_layout", dl,
                           "kernel_layout", kl, "out_layout", olv);
    int64_t os[4] = {cases[c].xs[0], cases[c].ws[1] * cases[c].groups, 0, 0};
    for (int i = 0; i < 2; ++i) {
      os[2 + i] = (cases[c].xs[2 + i] - 1) * cases[c].st[i] - cases[c].pad[i] - cases[c].pad[2 + i] +
                  cases[c].dil[i] * (cases[c].ws[2 + i] - 1) + cases[c].opad[i] + 1;
    }
    TVMFFIAny out;
    CHECK_OK(run("relax.nn.conv2d_transpose", attrs, 2, t, &out));
    static double want[2048], placed[2048];
    int64_t n_out = os[0] * os[1] * os[2] * os[3];
    CHECK(n_out <= 2048);
    conv2d_transpose_ref(lg_f(x), cases[c].xs, lg_f(w), cases[c].ws, cases[c].st, cases[c].pad,
                         cases[c].dil, cases[c].groups, os, want);
    int64_t ps[4];
    for (int k = 0; k < 4; ++k) ps[po[k]] = os[k];
    int64_t i[4];
    for (i[0] = 0; i[0] < os[0]; ++i[0])
      for (i[1] = 0; i[1] < os[1]; ++i[1])
        for (i[2] = 0; i[2] < os[2]; ++i[2])
          for (i[3] = 0; i[3] < os[3]; ++i[3]) {
            int64_t pi[4];
            for (int k = 0; k < 4; ++k) pi[po[k]] = i[k];
            placed[((pi[0] * ps[1] + pi[1]) * ps[2] + pi[2]) * ps[3] + pi[3]] =
                want[((i[0] * os[1] + i[1]) * os[2] + i[2]) * os[3] + i[3]];
          }
    if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 4, ps));
    int bad = lg_bad(&out, placed, n_out, 1e-5);
    if (bad) fprintf(stderr, "  layouts case %d: %d elements differ\n", (int)c, bad);
    CHECK_EQ_INT(bad, 0);
    tvm_ffi_any_release(&out);
    tvm_ffi_any_release(&dl), tvm_ffi_any_release(&kl), tvm_ffi_any_release(&olv);
    tvm_ffi_release(attrs), tvm_ffi_release(a_st), tvm_ffi_release(a_pad), tvm_ffi_release(a_op);
    tvm_ffi_release(a_dl), tvm_ffi_release(t[0]), tvm_ffi_release(t[1]), tvm_ffi_release(x);
    tvm_ffi_release(w);
  }
}

/* conv2d in other layouts (NHWC / OHWI as ConvertLayout writes them, and others): the data,
 * weight and output permuted; the NCHW oracle's result permuted. */
/* Packed layouts (upstream's convert_layout NCHW4c / OIHW4o): the result is the NCHW oracle's
 * on the unpacked data and kernel, packed by out_layout -- with a packed or a plain kernel, a
 * reordered output (NHWC4c), groups and padding. An output channel count the output's factor
 * does not divide has no kernel (the inference rule rounds the outer dim up). */
TEST(conv2d_packed) {
  static const struct {
    const char *dl, *kl, *ol;
    int pi[5], pk[5], po[5]; /* the data's, kernel's (pk[0] < 0: OIHW) and output's placings */
    int64_t groups;
  } cases[] = {
      {"NCHW4c", "OIHW4o", "NCHW4c", {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}, 1},
      {"NCHW4c", "OIHW", "NHWC4c", {0, 1, 2, 3, 4}, {-1}, {0, 3, 1, 2, 4}, 1},
      {"NHWC4c", "OIHW4o", "NCHW4c", {0, 3, 1, 2, 4}, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}, 2},
      {"NCHW4c", "OIHW4o", "NCHW", {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}, {-1}, 1},
  };
  int64_t xs[4] = {2, 8, 7, 6};
  void* x = rv_rand(4, xs);
  for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ++ci) {
    int64_t g = cases[ci].groups;
    int64_t ws[4] = {8, 8 / g, 3, 2};
    void* w = rv_rand(4, ws);
    void* t[2] = {lg_packed_tensor(x, 4, cases[ci].pi),
                  cases[ci].pk[0] < 0 ? tvm_ffi_retain(w), w
                                      : lg_packed_tensor_axis(w, 0, 4, cases[ci].pk)};
    int64_t st[2] = {2, 1}, pad[4] = {1, 0, 1, 1}, dil[2] = {1, 1};
    void *a_st = lg_ints(2, st), *a_pad = lg_ints(4, pad);
    void* attrs = rt_attrs(6, "strides", tvm_ffi_any_obj(a_st), "padding", tvm_ffi_any_obj(a_pad),
                           "groups", tvm_ffi_any_int(g), "data_layout",
                           tvm_ffi_string(cases[ci].dl), "kernel_layout",
                           tvm_ffi_string(cases[ci].kl), "out_layout",
                           tvm_ffi_string(cases[ci].ol));
    TVMFFIAny out;
    CHECK_OK(run("relax.nn.conv2d", attrs, 2, t, &out));
    int64_t os[4] = {2, 8, (7 + 2 - 3) / 2 + 1, (6 + 1 - 2) / 1 + 1}, ds[5];
    double want[2 * 8 * 4 * 6], packed[2 * 8 * 4 * 6];
    conv2d_ref(lg_f(x), xs, lg_f(w), ws, st, pad, dil, g, os, want);
    int64_t nel = 2 * 8 * os[2] * os[3];
    const double* expect = want;
    if (cases[ci].po[0] >= 0) {
      lg_pack_nchw(want, os, 4, cases[ci].po, packed, ds);
      expect = packed;
    }
    int nbad = lg_bad(&out, expect, nel, 1e-4);
    if (nbad) fprintf(stderr, "  conv2d %s / %s -> %s: %d bad\n", cases[ci].dl, cases[ci].kl,
                      cases[ci].ol, nbad);
    CHECK_EQ_INT(nbad, 0);
    if (out.type_index == kTVMFFITensor) {
      CHECK(cases[ci].po[0] >= 0 ? lg_shape_is(out.v_obj, 5, ds) : lg_shape_is(out.v_obj, 4, os));
    }
    tvm_ffi_any_release(&out);
    tvm_ffi_release(attrs), tvm_ffi_release(a_st), tvm_ffi_release(a_pad);
    tvm_ffi_release(t[0]), tvm_ffi_release(t[1]), tvm_ffi_release(w);
  }
  /* 6 output channels into NCHW4c: no kernel */
  int64_t ws6[4] = {6, 8, 3, 3};
  void* t6[2] = {lg_packed_tensor(x, 4, cases[0].pi), rv_rand(4, ws6)};
  void* attrs = rt_attrs(1, "data_layout", tvm_ffi_string("NCHW4c"));
  TVMFFIAny out = tvm_ffi_any_none();
  CHECK(run("relax.nn.conv2d", attrs, 2, t6, &out) != 0);
  CHECK_RAISED("NotImplementedError", "possibly packed by factors that divide them");
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs), tvm_ffi_release(t6[0]), tvm_ffi_release(t6[1]);
  tvm_ffi_release(x);
}

TEST(conv2d_layouts) {
  static const struct {
    const char *dl, *kl, *ol; /* ol NULL: data_layout */
    int64_t xs[4], ws[4], st[2], pad[4], dil[2], groups;
  } cases[] = {
      {"NHWC", "OHWI", NULL, {2, 4, 5, 6}, {6, 2, 3, 2}, {2, 1}, {1, 0, 2, 1}, {1, 2}, 2},
      {"NCHW", "HWIO", "NHWC", {1, 3, 6, 5}, {4, 3, 2, 3}, {1, 2}, {0, 1, 1, 0}, {2, 1}, 1},
      {"CHWN", "IHWO", "WNCH", {2, 3, 4, 4}, {3, 1, 2, 2}, {1, 1}, {1, 1, 0, 0}, {1, 1}, 3},
  };
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
    const char* ol = cases[c].ol ? cases[c].ol : cases[c].dl;
    int pd[4], pk[4], po[4];
    letter_pos(cases[c].dl, "NCHW", pd), letter_pos(cases[c].kl, "OIHW", pk), letter_pos(ol, "NCHW", po);
    void* x = rv_rand(4, cases[c].xs);
    void* w = rv_rand(4, cases[c].ws);
    void* t[2] = {permuted(x, cases[c].xs, pd), permuted(w, cases[c].ws, pk)};
    void *a_st = lg_ints(2, cases[c].st), *a_pad = lg_ints(4, cases[c].pad),
         *a_dl = lg_ints(2, cases[c].dil);
    TVMFFIAny dl = tvm_ffi_string(cases[c].dl), kl = tvm_ffi_string(cases[c].kl);
    TVMFFIAny olv = cases[c].ol ? tvm_ffi_string(cases[c].ol) : tvm_ffi_any_none();
    void* attrs = rt_attrs(7, "strides", tvm_ffi_any_obj(a_st), "padding", tvm_ffi_any_obj(a_pad),
                           "dilation", tvm_ffi_any_obj(a_dl), "groups",
                           tvm_ffi_any_int(cases[c].groups), "data_layout", dl, "kernel_layout", kl,
                           "out_layout", olv);
    int64_t os[4] = {cases[c].xs[0], cases[c].ws[0], 0, 0};
    for (int i = 0; i < 2; ++i) {
      os[2 + i] = (cases[c].xs[2 + i] + cases[c].pad[i] + cases[c].pad[2 + i] -
                   cases[c].dil[i] * (cases[c].ws[2 + i] - 1) - 1) / cases[c].st[i] + 1;
    }
    TVMFFIAny out;
    CHECK_OK(run("relax.nn.conv2d", attrs, 2, t, &out));
    static double want[2048], placed[2048];
    int64_t n_out = os[0] * os[1] * os[2] * os[3];
    CHECK(n_out <= 2048);
    conv2d_ref(lg_f(x), cases[c].xs, lg_f(w), cases[c].ws, cases[c].st, cases[c].pad, cases[c].dil,
               cases[c].groups, os, want);
    int64_t ps[4];
    for (int k = 0; k < 4; ++k) ps[po[k]] = os[k];
    int64_t i[4];
    for (i[0] = 0; i[0] < os[0]; ++i[0])
      for (i[1] = 0; i[1] < os[1]; ++i[1])
        for (i[2] = 0; i[2] < os[2]; ++i[2])
          for (i[3] = 0; i[3] < os[3]; ++i[3]) {
            int64_t pi[4];
            for (int k = 0; k < 4; ++k) pi[po[k]] = i[k];
            placed[((pi[0] * ps[1] + pi[1]) * ps[2] + pi[2]) * ps[3] + pi[3]] =
                want[((i[0] * os[1] + i[1]) * os[2] + i[2]) * os[3] + i[3]];
          }
    if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 4, ps));
    int bad = lg_bad(&out, placed, n_out, 1e-5);
    if (bad) fprintf(stderr, "  conv2d layouts case %d: %d elements differ\n", (int)c, bad);
    CHECK_EQ_INT(bad, 0);
    tvm_ffi_any_release(&out);
    tvm_ffi_any_release(&dl), tvm_ffi_any_release(&kl), tvm_ffi_any_release(&olv);
    tvm_ffi_release(attrs), tvm_ffi_release(a_st), tvm_ffi_release(a_pad), tvm_ffi_release(a_dl);
    tvm_ffi_release(t[0]), tvm_ffi_release(t[1]), tvm_ffi_release(x), tvm_ffi_release(w);
  }
}

int main(void) {
  RUN(conv2d_strided_padded_dilated_grouped);
  RUN(conv2d_symbolic_batch);
  RUN(conv1d);
  RUN(pool2d);
  RUN(adaptive_avg_pool2d);
  RUN(pool2d_packed);
  RUN(pad_modes);
  RUN(batch_norm_and_dropout);
  RUN(conv2d_transpose);
  RUN(conv2d_transpose_symbolic_and_layouts);
  RUN(conv2d_transpose_layouts);
  RUN(conv2d_layouts);
  RUN(conv2d_packed);
  return test_summary();
}
