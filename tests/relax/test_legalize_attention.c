/*
 * test_legalize_attention.c: the kernel of relax.nn.attention, legalized and run by the
 * reference evaluator on random inputs, against softmax(Q K^T * scale + bias) V computed here
 * in double: the default and a given scale, a bias broadcast over batch / heads / queries, the
 * "TopLeft" and "BottomRight" causal masks (upstream's offsets, |S - S_kv| for BottomRight),
 * grouped-query heads, symbolic sequence lengths, sliding windows (w keys ending at the causal
 * diagonal, a row without keys zero; a window needs a causal mask).
 */
#include "legalize_testing.h"

typedef struct {
  int64_t b, s, n, h, skv, nkv, hv;
  int64_t bias[4]; /* bias dims, {0} for none */
  double scale;    /* NaN: the default */
  const char* mask;
  int64_t window; /* 0: none */
} attn_case;

/* The oracle: out (B, S, N, Hv). */
static void attention_ref(const attn_case* c, const float* q, const float* k, const float* v,
                          const float* bias, double* out) {
  double scale = isnan(c->scale) ? 1.0 / sqrt((double)c->h) : c->scale;
  int64_t offset = 0;
  if (c->mask && strcmp(c->mask, "BottomRight") == 0) offset = c->s > c->skv ? c->s - c->skv : c->skv - c->s;
  double p[64];
  for (int64_t b = 0; b < c->b; ++b)
    for (int64_t s = 0; s < c->s; ++s)
      for (int64_t n = 0; n < c->n; ++n) {
        int64_t kn = n / (c->n / c->nkv);
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < c->skv; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < c->h; ++d) {
            dot += (double)q[((b * c->s + s) * c->n + n) * c->h + d] * k[((b * c->skv + j) * c->nkv + kn) * c->h + d];
          }
          dot *= scale;
          if (bias) {
            int64_t bb = c->bias[0] == 1 ? 0 : b, bn = c->bias[1] == 1 ? 0 : n, bs = c->bias[2] == 1 ? 0 : s;
            dot += bias[((bb * c->bias[1] + bn) * c->bias[2] + bs) * c->bias[3] + j];
          }
          bool keep = !c->mask || (j <= s + offset && (c->window == 0 || j > s + offset - c->window));
          p[j] = keep ? dot : -INFINITY;
          if (keep && dot > mx) mx = dot;
        }
        for (int64_t j = 0; j < c->skv; ++j) sum += p[j] = isinf(p[j]) ? 0 : exp(p[j] - mx);
        for (int64_t e = 0; e < c->hv; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < c->skv; ++j) acc += p[j] * v[((b * c->skv + j) * c->nkv + kn) * c->hv + e];
          out[((b * c->s + s) * c->n + n) * c->hv + e] = sum > 0 ? acc / sum : 0.0;
        }
      }
}

static void* attn_attrs(const attn_case* c) {
  TVMFFIAny mask = c->mask ? tvm_ffi_string(c->mask) : tvm_ffi_any_none();
  void* attrs = rt_attrs(3, "scale", isnan(c->scale) ? tvm_ffi_any_none() : tvm_ffi_any_float(c->scale),
                         "causal_mask", mask, "window_size",
                         c->window ? tvm_ffi_any_int(c->window) : tvm_ffi_any_none());
  tvm_ffi_any_release(&mask);
  return attrs;
}

TEST(attention_static) {
  static const attn_case cases[] = {
      {2, 3, 2, 4, 5, 2, 3, {0}, NAN, NULL},
      {2, 3, 2, 4, 5, 2, 3, {1, 2, 3, 5}, 0.3, "TopLeft"},
      {1, 4, 2, 3, 2, 2, 4, {1, 1, 4, 2}, NAN, "BottomRight"}, /* S > S_kv: offset |4 - 2| */
      {2, 2, 2, 3, 5, 2, 2, {0}, 0.5, "BottomRight"},           /* S < S_kv */
      {1, 3, 4, 4, 3, 2, 5, {1, 4, 1, 3}, NAN, NULL},           /* grouped-query: 4 heads on 2 */
      /* sliding windows: w keys ending at the diagonal */
      {2, 4, 2, 3, 6, 2, 3, {0}, NAN, "TopLeft", 2},
      {1, 3, 2, 4, 6, 1, 2, {1, 2, 3, 6}, 0.4, "BottomRight", 3},
      {1, 5, 1, 2, 2, 1, 3, {0}, NAN, "TopLeft", 1}, /* rows 3, 4 see no key: zero */
      {1, 4, 2, 2, 4, 2, 2, {0}, NAN, "BottomRight", 9}, /* wider than the keys: plain causal */
  };
  for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ++ci) {
    const attn_case* c = &cases[ci];
    int64_t qs[4] = {c->b, c->s, c->n, c->h}, ks[4] = {c->b, c->skv, c->nkv, c->h},
            vs[4] = {c->b, c->skv, c->nkv, c->hv};
    bool has_bias = c->bias[0] != 0;
    void* t[4] = {rv_rand(4, qs), rv_rand(4, ks), rv_rand(4, vs), has_bias ? rv_rand(4, c->bias) : NULL};
    int nt = has_bias ? 4 : 3;
    tvm_relax_var_obj* p[4];
    TVMFFIAny args[4];
    static const char* const names[4] = {"q", "k", "v", "bias"};
    for (int i = 0; i < nt; ++i) p[i] = rt_var_take(names[i], lg_sinfo_of(t[i])), args[i] = tvm_ffi_any_obj(t[i]);
    void* params = tvm_ffi_array_of_objects((void**)p, nt);
    void* attrs = attn_attrs(c);
    tvm_relax_expr_obj* call = has_bias ? tvm_relax_call_op("relax.nn.attention", attrs, 4, p[0], p[1], p[2], p[3])
                                        : tvm_relax_call_op("relax.nn.attention", attrs, 3, p[0], p[1], p[2]);
    TVMFFIAny out;
    CHECK_OK(lg_eval(params, call, args, nt, &out));
    double want[256];
    attention_ref(c, lg_f(t[0]), lg_f(t[1]), lg_f(t[2]), has_bias ? lg_f(t[3]) : NULL, want);
    int64_t os[4] = {c->b, c->s, c->n, c->hv};
    if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 4, os));
    int bad = lg_bad(&out, want, c->b * c->s * c->n * c->hv, 1e-5);
    if (bad) fprintf(stderr, "  attention case %d: %d elements differ\n", (int)ci, bad);
    CHECK_EQ_INT(bad, 0);
    tvm_ffi_any_release(&out);
    tvm_ffi_release(attrs), tvm_ffi_release(params);
    for (int i = 0; i < nt; ++i) tvm_ffi_release(p[i]), tvm_ffi_release(t[i]);
  }
}

TEST(attention_symbolic_lengths) {
  /* q (1, s, 2, 4), k / v (1, t, 2, 4), causal BottomRight; s, t = (3, 5), (1, 2), (4, 4) */
  tvm_tir_var_obj *s = tvm_tir_var_new("s", I64), *tt = tvm_tir_var_new("t", I64);
  tvm_tir_expr_obj *c1 = tvm_tir_const_int(I64, 1), *c2 = tvm_tir_const_int(I64, 2), *c4 = tvm_tir_const_int(I64, 4);
  void* dq[4] = {c1, s, c2, c4};
  void* dk[4] = {c1, tt, c2, c4};
  tvm_relax_var_obj* q = rt_var_take("q", rt_tensor_sym(F32, 4, dq));
  tvm_relax_var_obj* k = rt_var_take("k", rt_tensor_sym(F32, 4, dk));
  tvm_relax_var_obj* v = rt_var_take("v", rt_tensor_sym(F32, 4, dk));
  void* params = rt_array(3, q, k, v);
  attn_case c = {1, 0, 2, 4, 0, 2, 4, {0}, NAN, "BottomRight"};
  void* attrs = attn_attrs(&c);
  tvm_relax_expr_obj* call = tvm_relax_call_op("relax.nn.attention", attrs, 3, q, k, v);
  tvm_tir_ir_module_obj* legal = lg_legalize(params, call);
  CHECK(legal != NULL);
  static const int64_t lens[3][2] = {{3, 5}, {1, 2}, {4, 4}};
  for (int i = 0; legal && i < 3; ++i) {
    c.s = lens[i][0], c.skv = lens[i][1];
    int64_t qs[4] = {1, c.s, 2, 4}, ks[4] = {1, c.skv, 2, 4};
    void* t[3] = {rv_rand(4, qs), rv_rand(4, ks), rv_rand(4, ks)};
    TVMFFIAny args[3] = {tvm_ffi_any_obj(t[0]), tvm_ffi_any_obj(t[1]), tvm_ffi_any_obj(t[2])}, out;
    CHECK_OK(tvm_relax_eval(legal, "main", args, 3, &out));
    double want[64];
    attention_ref(&c, lg_f(t[0]), lg_f(t[1]), lg_f(t[2]), NULL, want);
    CHECK_EQ_INT(lg_bad(&out, want, c.s * 2 * 4, 1e-5), 0);
    tvm_ffi_any_release(&out);
    for (int j = 0; j < 3; ++j) tvm_ffi_release(t[j]);
  }
  tvm_ffi_release(legal), tvm_ffi_release(call), tvm_ffi_release(attrs);
  /* A sliding window over symbolic lengths (upstream's legalization refuses windows). */
  c.window = 2;
  attrs = attn_attrs(&c);
  call = tvm_relax_call_op("relax.nn.attention", attrs, 3, q, k, v);
  legal = call ? lg_legalize(params, call) : NULL;
  CHECK(legal != NULL);
  for (int i = 0; legal && i < 3; ++i) {
    c.s = lens[i][0], c.skv = lens[i][1];
    int64_t qs[4] = {1, c.s, 2, 4}, ks[4] = {1, c.skv, 2, 4};
    void* t[3] = {rv_rand(4, qs), rv_rand(4, ks), rv_rand(4, ks)};
    TVMFFIAny args[3] = {tvm_ffi_any_obj(t[0]), tvm_ffi_any_obj(t[1]), tvm_ffi_any_obj(t[2])}, out;
    CHECK_OK(tvm_relax_eval(legal, "main", args, 3, &out));
    double want[64];
    attention_ref(&c, lg_f(t[0]), lg_f(t[1]), lg_f(t[2]), NULL, want);
    CHECK_EQ_INT(lg_bad(&out, want, c.s * 2 * 4, 1e-5), 0);
    tvm_ffi_any_release(&out);
    for (int j = 0; j < 3; ++j) tvm_ffi_release(t[j]);
  }
  tvm_ffi_release(legal), tvm_ffi_release(call), tvm_ffi_release(attrs);
  /* A window without a causal mask has no diagonal to end at. */
  attrs = rt_attrs(1, "window_size", tvm_ffi_any_int(2));
  call = tvm_relax_call_op("relax.nn.attention", attrs, 3, q, k, v);
  CHECK(call != NULL);
  legal = call ? lg_legalize(params, call) : NULL;
  CHECK(legal == NULL);
  CHECK_RAISED("NotImplementedError", "needs a causal_mask");
  tvm_ffi_release(legal), tvm_ffi_release(call), tvm_ffi_release(attrs);
  tvm_ffi_release(params), tvm_ffi_release(q), tvm_ffi_release(k), tvm_ffi_release(v);
  tvm_ffi_release(c1), tvm_ffi_release(c2), tvm_ffi_release(c4), tvm_ffi_release(s), tvm_ffi_release(tt);
}

int main(void) {
  RUN(attention_static);
  RUN(attention_symbolic_lengths);
  return test_summary();
}
