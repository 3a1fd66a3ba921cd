/*
 * legalize_conv.c: the kernels of the convolutions (conv1d / conv2d / conv3d in any permutation of
 * NCW/OIW, NCHW/OIHW or NCDHW/OIDHW, e.g. NHWC/OHWI, N, C, O and I possibly packed as in
 * NCHW4c / OIHW4o, with strides, padding, dilation and groups), conv1d_transpose / conv2d_transpose /
 * conv3d_transpose (any permutation of NCW/IOW, NCHW/IOHW or NCDHW/IODHW, the same attributes and
 * output_padding), pooling
 * (max_pool1d / avg_pool1d, max_pool2d / avg_pool2d, max_pool3d / avg_pool3d, with
 * count_include_pad and ceil_mode, and adaptive_avg_pool1d / 2d / 3d, in any layouts that permute
 * NCW / NCHW / NCDHW, N and C possibly packed as in NCHW16c), pad (constant, edge, reflect),
 * batch_norm (inference: the moving statistics, passed through as the second and third
 * results; training: the batch's statistics, the moving ones updated) and dropout (the
 * identity, with a mask of ones). Windows read only the taps inside the input: padding is a
 * condition, not a copy. List attributes are expanded the way the inference rules expand them
 * (op_nn.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <tvm/tir/builder.h>

#include "internal.h"

enum { MAX_DIMS = 16 };

static int64_t rank(tvm_tir_buffer_obj* b) { return tvm_ffi_seq_size(b->shape); }
static void* dim(tvm_tir_buffer_obj* b, int64_t i) { return tvm_ffi_seq_obj_at(b->shape, i); }

/* An INTS attribute expanded to `want` values (one value repeated), as the inference rules do;
 * -1 + ValueError when it has another length. */
static int attr_ints(const tvm_relax_call_obj* call, const char* name, int want, int64_t dflt,
                     int64_t* out) {
  const TVMFFIAny* a = tvm_relax_call_attr(call, name);
  int64_t n = a && a->type_index == kTVMFFIArray ? tvm_ffi_seq_size(a->v_obj) : 0;
  if (n == 0) {
    for (int i = 0; i < want; ++i) out[i] = dflt;
    return 0;
  }
  if (n != want && n != 1) {
    tvm_ffi_raise("ValueError", "attribute '%s' must have 1 or %d values", name, want);
    return -1;
  }
  for (int i = 0; i < want; ++i) {
    out[i] = 0;
    tvm_ffi_any_as_int(tvm_ffi_seq_at(a->v_obj, n == 1 ? 0 : i), &out[i]);
  }
  return 0;
}

/* padding of s spatial dims into 2*s values (all befores, then all afters) from 1, s or 2*s. */
static int attr_padding(const tvm_relax_call_obj* call, int s, int64_t* out) {
  const TVMFFIAny* a = tvm_relax_call_attr(call, "padding");
  int64_t n = a && a->type_index == kTVMFFIArray ? tvm_ffi_seq_size(a->v_obj) : 0;
  int64_t given[8] = {0};
  if (n != 0 && n != 1 && n != s && n != 2 * s) {
    tvm_ffi_raise("ValueError", "attribute 'padding' must have 1, %d or %d values", s, 2 * s);
    return -1;
  }
  for (int64_t i = 0; i < n; ++i) tvm_ffi_any_as_int(tvm_ffi_seq_at(a->v_obj, i), &given[i]);
  for (int i = 0; i < 2 * s; ++i) out[i] = n == 0 ? 0 : given[n == 1 ? 0 : n == s ? i % s : i];
  return 0;
}

/* Whether layout attribute `name` is `canon` (an absent out_layout counts as canonical). */
static bool layout_is(const tvm_relax_call_obj* call, const char* name, const char* canon) {
  const char* l = tvm_relax__call_attr_str(call, name, NULL);
  return !l || strcmp(l, canon) == 0;
}

static void* zero_of(DLDataType t) {
  return tvm_tir_dtype_is_floating(t) ? tvm_tir_const_float(t, 0) : tvm_tir_const_int(t, 0);
}

/* lo <= e < hi as a condition (e consumed; hi borrowed); NULL when both sides are known to
 * hold (no padding on that side). */
static void* in_range(void* e, bool check_lo, bool check_hi, void* hi) {
  void* c = NULL;
  if (check_lo) c = tvm_tir_ge_take(tvm_tir_ref(e), tvm_tir_i64(0));
  if (check_hi) {
    void* h = tvm_tir_lt_take(tvm_tir_ref(e), tvm_tir_ref(hi));
    c = c ? tvm_tir_and_take(c, h) : h;
  }
  tvm_ffi_release(e);
  return c;
}

static void* and_opt(void* a, void* b) {
  if (!a) return b;
  if (!b) return a;
  return tvm_tir_and_take(a, b);
}

/* ---- conv1d / conv2d / conv3d ---------------------------------------------------------------- */
static bool layout_pos(const tvm_relax_call_obj* call, const char* name, const char* dflt,
                       const char* canon, int* pos);

/* The index in l of the sub-axis of primal axis k, or -1 when k is not packed. */
static int sub_axis(const tvm_relax__layout* l, int k) {
  for (int j = l->nprimal; j < l->rank; ++j) {
    if (l->letter[j] == (char)(l->letter[k] - 'A' + 'a')) return j;
  }
  return -1;
}

/* Whether dim d of b is the constant f. */
static bool dim_is(tvm_tir_buffer_obj* b, int64_t d, int64_t f) {
  int64_t c;
  return tvm_tir_as_const_int(dim(b, d), &c) && c == f;
}

/* The extent of primal axis k of b in layout l (a new reference): its dim, times the factor of
 * its sub-axis when packed. */
static void* logical_dim(tvm_tir_buffer_obj* b, const tvm_relax__layout* l, int k) {
  int j = sub_axis(l, k);
  void* d = tvm_tir_ref(dim(b, l->pos[k]));
  return j < 0 ? d : tvm_tir_mul_take(d, tvm_tir_i64(l->factor[j]));
}

/* The logical indices e[0..nprimal) (consumed) at their places in a buffer of layout l: a packed
 * axis's index split as e // factor and e % factor. */
static void place(const tvm_relax__layout* l, void* const* e, void** idx) {
  for (int k = 0; k < l->nprimal; ++k) {
    int j = sub_axis(l, k);
    if (j < 0) {
      idx[l->pos[k]] = e[k];
      continue;
    }
    idx[l->pos[j]] = tvm_tir_floormod_take(tvm_tir_ref(e[k]), tvm_tir_i64(l->factor[j]));
    idx[l->pos[k]] = tvm_tir_floordiv_take(e[k], tvm_tir_i64(l->factor[j]));
  }
}

/* Whether e (borrowed) is provably a multiple of f. */
static bool provably_divisible(void* e, int64_t f) {
  void* m = tvm_tir_floormod_take(tvm_tir_ref(e), tvm_tir_i64(f));
  void* sm = m ? tvm_tir_simplify_expr(m, NULL) : NULL;
  int64_t c = 1;
  bool ok = sm && tvm_tir_as_const_int(sm, &c) && c == 0;
  tvm_ffi_release(m), tvm_ffi_release(sm);
  return ok;
}

/* The data, kernel and output layouts of a convolution (out_layout absent: data_layout; none:
 * the canonical ones), parsed by layout.c: the primal axes NC.. / OI.., then the packed
 * sub-axes (NCHW4c, OIHW4o); *s the spatial rank. The kernel reads a packed axis as outer *
 * factor + inner, so each packed dim of the buffers must be its factor, and the output's packed
 * axes must divide (the inference rule rounds up). false + NotImplementedError otherwise. */
static bool conv_layouts(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                         tvm_tir_buffer_obj* o, int* s, tvm_relax__layout* ld,
                         tvm_relax__layout* lk, tvm_relax__layout* lo) {
  const char* dl = tvm_relax__call_attr_str(call, "data_layout", NULL);
  const char* kl = tvm_relax__call_attr_str(call, "kernel_layout", NULL);
  const char* ol = tvm_relax__call_attr_str(call, "out_layout", NULL);
  *s = dl ? tvm_relax__layout_primal_count(dl) - 2 : (int)rank(in[0]) - 2;
  const char* dc = *s == 1 ? "NCW" : *s == 2 ? "NCHW" : *s == 3 ? "NCDHW" : NULL;
  const char* kc = *s == 1 ? "OIW" : *s == 2 ? "OIHW" : "OIDHW";
  if (!dl) dl = dc;
  char err[200];
  bool ok = dc && tvm_relax__layout_parse(dl, dc, "DHW", ld, err, sizeof(err)) == 0 &&
            tvm_relax__layout_parse(kl ? kl : kc, kc, "DHW", lk, err, sizeof(err)) == 0 &&
            tvm_relax__layout_parse(ol ? ol : dl, dc, "DHW", lo, err, sizeof(err)) == 0 &&
            rank(in[0]) == ld->rank && rank(in[1]) == lk->rank && rank(o) == lo->rank;
  const tvm_relax__layout* ls[3] = {ld, lk, lo};
  tvm_tir_buffer_obj* bs[3] = {in[0], in[1], o};
  for (int b = 0; ok && b < 3; ++b) {
    for (int j = ls[b]->nprimal; ok && j < ls[b]->rank; ++j) {
      ok = dim_is(bs[b], ls[b]->pos[j], ls[b]->factor[j]);
    }
  }
  for (int k = 0; ok && k < 2; ++k) {
    /* the output's N and C: the data's N, the kernel's O */
    int j = sub_axis(lo, k);
    void* e = k == 0 ? logical_dim(in[0], ld, 0) : logical_dim(in[1], lk, 0);
    ok = j < 0 || provably_divisible(e, lo->factor[j]);
    tvm_ffi_release(e);
  }
  if (!ok) {
    tvm_ffi_raise("NotImplementedError",
                  "%s: only layouts of NCW / OIW, NCHW / OIHW or NCDHW / OIDHW's axes, N, C, O "
                  "or I possibly packed by factors that divide them (NCHW4c / OIHW4o), have a "
                  "kernel",
                  tvm_relax_op_info_of(call->op)->name);
  }
  return ok;
}

/*
 * Data, weight and output in any layout of NCHW / OIHW / NCHW's axes (NHWC / OHWI as well as
 * the canonical ones; N, C, O and I possibly packed: NCHW4c / OIHW4o; out_layout defaults to
 * data_layout): out[n, o, y, x] is the sum over the input channels c of o's group and the taps
 * (ky, kx) of data[n, g * I + c, y * stride - pad + ky * dilation, ...] * w[o, c, ky, kx]. The
 * logical indices are placed by the layouts (a packed one split into outer and inner), the
 * loops follow the output buffer's dims.
 */
static void* conv_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                       tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  int s;
  tvm_relax__layout ld, lk, lo;
  if (!conv_layouts(call, in, out[0], &s, &ld, &lk, &lo)) return NULL;
  int64_t strides[3], dilation[3], pad[6];
  if (attr_ints(call, "strides", s, 1, strides) != 0 || attr_ints(call, "dilation", s, 1, dilation) != 0 ||
      attr_padding(call, s, pad) != 0) {
    return NULL;
  }
  int64_t groups = 1;
  const TVMFFIAny* gv = tvm_relax_call_attr(call, "groups");
  if (gv) tvm_ffi_any_as_int(gv, &groups);
  tvm_tir_buffer_obj *x = in[0], *w = in[1], *o = out[0];
  DLDataType t = o->dtype;
  int n = 2 + s, no = lo.rank;
  void* v[TVM_RELAX_LAYOUT_MAX]; /* the output buffer's loop variables, by its dims */
  void* r[4];                    /* c, then the kernel taps */
  if (tvm_relax__kernel_vars(v, no, "i") != 0) return NULL;
  if (tvm_relax__kernel_vars(r, 1 + s, "r") != 0) {
    tvm_relax__release_all(v, no);
    return NULL;
  }
  /* The output's logical indices: a packed axis's outer * factor + inner. */
  void* vl[5];
  for (int k = 0; k < n; ++k) {
    int j = sub_axis(&lo, k);
    vl[k] = tvm_tir_ref(v[lo.pos[k]]);
    if (j >= 0) {
      vl[k] = tvm_tir_add_take(tvm_tir_mul_take(vl[k], tvm_tir_i64(lo.factor[j])),
                               tvm_tir_ref(v[lo.pos[j]]));
    }
  }
  /* The group of output channel o: o // (O / groups); its input channels start at g * I. */
  void *w_o = logical_dim(w, &lk, 0), *w_i = logical_dim(w, &lk, 1);
  void* opg = tvm_tir_floordiv_take(w_o, tvm_tir_i64(groups));
  void* chan = tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_floordiv_take(tvm_tir_ref(vl[1]), opg),
                                                 tvm_tir_ref(w_i)),
                                tvm_tir_ref(r[0]));
  void* xl[5] = {tvm_tir_ref(vl[0]), chan, NULL, NULL, NULL};
  void* wl[5] = {tvm_tir_ref(vl[1]), tvm_tir_ref(r[0]), NULL, NULL, NULL};
  void* cond = NULL;
  for (int i = 0; i < s; ++i) {
    /* y * stride - pad_before + k * dilation */
    void* pos = tvm_tir_add_take(
        tvm_tir_sub_take(tvm_tir_mul_take(tvm_tir_ref(vl[2 + i]), tvm_tir_i64(strides[i])), tvm_tir_i64(pad[i])),
        tvm_tir_mul_take(tvm_tir_ref(r[1 + i]), tvm_tir_i64(dilation[i])));
    cond = and_opt(cond, in_range(tvm_tir_ref(pos), pad[i] > 0, pad[s + i] > 0, dim(x, ld.pos[2 + i])));
    xl[2 + i] = pos;
    wl[2 + i] = tvm_tir_ref(r[1 + i]);
  }
  tvm_relax__release_all(vl, n);
  /* The logical indices at their places in each buffer's layout. */
  void *xi[TVM_RELAX_LAYOUT_MAX], *wi[TVM_RELAX_LAYOUT_MAX];
  void *oi[TVM_RELAX_LAYOUT_MAX], *oi2[TVM_RELAX_LAYOUT_MAX], *oi3[TVM_RELAX_LAYOUT_MAX];
  void* oext[TVM_RELAX_LAYOUT_MAX];
  place(&ld, xl, xi);
  place(&lk, wl, wi);
  for (int d = 0; d < no; ++d) {
    oi[d] = tvm_tir_ref(v[d]), oi2[d] = tvm_tir_ref(v[d]), oi3[d] = tvm_tir_ref(v[d]);
    oext[d] = dim(o, d);
  }
  void* prod = tvm_tir_mul_take(tvm_tir_cast_take(t, tvm_tir_load_takev(tvm_tir_ref(x), ld.rank, xi)),
                                tvm_tir_cast_take(t, tvm_tir_load_takev(tvm_tir_ref(w), lk.rank, wi)));
  void* acc = tvm_tir_store_takev(tvm_tir_ref(o), tvm_tir_add_take(tvm_tir_load_takev(tvm_tir_ref(o), no, oi), prod), no, oi2);
  if (cond) acc = tvm_tir_if_take(cond, acc, NULL);
  void* rext[4] = {w_i, NULL, NULL, NULL};
  for (int i = 0; i < s; ++i) rext[1 + i] = dim(w, lk.pos[2 + i]);
  void* red = tvm_relax__loop_nest(r, rext, 1 + s, NULL, acc);
  tvm_ffi_release(w_i);
  void* init = tvm_tir_store_takev(tvm_tir_ref(o), zero_of(t), no, oi3);
  /* The output's loops in its own order. */
  void* body = tvm_relax__loop_nest(v, oext, no, NULL, tvm_tir_seq_take(init, red));
  tvm_relax__release_all(v, no);
  tvm_relax__release_all(r, 1 + s);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_conv(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, conv_body);
}

/* ---- conv2d_transpose ------------------------------------------------------------------------ */
/* pos[k] = where letter canon[k] is in layout attribute `name` (absent: `dflt`, absent too: canon).
 * false when the layout is not a permutation of canon's letters (a packed layout). */
static bool layout_pos(const tvm_relax_call_obj* call, const char* name, const char* dflt,
                       const char* canon, int* pos) {
  const char* l = tvm_relax__call_attr_str(call, name, NULL);
  if (!l) l = dflt ? dflt : canon;
  size_t n = strlen(canon);
  if (strlen(l) != n) return false;
  for (size_t k = 0; k < n; ++k) {
    const char* p = strchr(l, canon[k]);
    if (!p) return false;
    pos[k] = (int)(p - l);
  }
  return true;
}

/*
 * Data, weight and output in any layout that permutes the letters of NCHW / IOHW / NCHW (the
 * weight: in channels I, out channels per group O, kh, kw; out_layout defaults to data_layout),
 * as upstream's group_conv2d_transpose_nchw computes it in NCHW/IOHW: out[n, o, y, x] is the sum
 * over the input channels c of o's group and the taps (ky, kx) of data[n, c, iy, ix] *
 * w[c, o % O_g, ky, kx] where y + pad_top - ky * dilation = iy * stride (likewise for x), for iy
 * inside the input. The indices are placed by the layouts, the loops follow the output's. Taps
 * that land between strides or outside the input are conditions, not a dilated copy.
 * output_padding only lengthens the output (its inference rule).
 */
static void* conv_transpose_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                                 int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  int s = (int)rank(in[0]) - 2, n = s + 2;
  const char* dc = s == 1 ? "NCW" : s == 2 ? "NCHW" : "NCDHW";
  const char* kc = s == 1 ? "IOW" : s == 2 ? "IOHW" : "IODHW";
  int pd[5], pk[5], po[5];
  if (s < 1 || s > 3 || !layout_pos(call, "data_layout", NULL, dc, pd) ||
      !layout_pos(call, "kernel_layout", NULL, kc, pk) ||
      !layout_pos(call, "out_layout", tvm_relax__call_attr_str(call, "data_layout", NULL), dc,
                  po)) {
    tvm_ffi_raise("NotImplementedError",
                  "%s: only layouts that permute NCW / IOW, NCHW / IOHW or NCDHW / IODHW have a "
                  "kernel (packed layouts do not)", tvm_relax_op_info_of(call->op)->name);
    return NULL;
  }
  int64_t strides[3], dilation[3], pad[6];
  if (attr_ints(call, "strides", s, 1, strides) != 0 || attr_ints(call, "dilation", s, 1, dilation) != 0 ||
      attr_padding(call, s, pad) != 0) {
    return NULL;
  }
  int64_t groups = 1;
  const TVMFFIAny* gv = tvm_relax_call_attr(call, "groups");
  if (gv) tvm_ffi_any_as_int(gv, &groups);
  tvm_tir_buffer_obj *x = in[0], *w = in[1], *o = out[0];
  DLDataType t = o->dtype;
  void *v[5], *r[4]; /* r: the channel within the group, then the taps */
  if (tvm_relax__kernel_vars(v, n, "i") != 0) return NULL;
  if (tvm_relax__kernel_vars(r, 1 + s, "r") != 0) {
    tvm_relax__release_all(v, n);
    return NULL;
  }
  /* v: n, o, spatial..; the logical dims of the weight: I, O_g, taps... */
  void *w_i = dim(w, pk[0]), *w_og = dim(w, pk[1]);
  /* o's group: o // O_g; its input channels start at group * (I / groups). */
  void* ipg = tvm_tir_floordiv_take(tvm_tir_ref(w_i), tvm_tir_i64(groups));
  void* chan = tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_floordiv_take(tvm_tir_ref(v[1]), tvm_tir_ref(w_og)),
                                                 tvm_tir_ref(ipg)),
                                tvm_tir_ref(r[0]));
  void* xl[5] = {tvm_tir_ref(v[0]), tvm_tir_ref(chan), NULL, NULL, NULL};
  void* wl[5] = {chan, tvm_tir_floormod_take(tvm_tir_ref(v[1]), tvm_tir_ref(w_og)), NULL, NULL, NULL};
  void* cond = NULL;
  for (int i = 0; i < s; ++i) {
    wl[2 + i] = tvm_tir_ref(r[1 + i]);
    /* t = y + pad_before - k * dilation must be a multiple of the stride, t / stride inside. */
    void* tt = tvm_tir_sub_take(tvm_tir_add_take(tvm_tir_ref(v[2 + i]), tvm_tir_i64(pad[i])),
                                tvm_tir_mul_take(tvm_tir_ref(r[1 + i]), tvm_tir_i64(dilation[i])));
    void* pos = tvm_tir_floordiv_take(tvm_tir_ref(tt), tvm_tir_i64(strides[i]));
    void* c = tvm_tir_ge_take(tvm_tir_ref(tt), tvm_tir_i64(0));
    if (strides[i] != 1) {
      c = tvm_tir_and_take(c, tvm_tir_eq_take(tvm_tir_floormod_take(tvm_tir_ref(tt), tvm_tir_i64(strides[i])),
                                              tvm_tir_i64(0)));
    }
    c = tvm_tir_and_take(c, tvm_tir_lt_take(tvm_tir_ref(pos), tvm_tir_ref(dim(x, pd[2 + i]))));
    cond = and_opt(cond, c);
    xl[2 + i] = pos;
    tvm_ffi_release(tt);
  }
  /* The logical indices at their places in each buffer's layout. */
  void *xi[5], *wi[5], *oi[5], *oi2[5], *oi3[5], *ov[5], *oext[5];
  for (int k = 0; k < n; ++k) {
    xi[pd[k]] = xl[k], wi[pk[k]] = wl[k];
    oi[po[k]] = tvm_tir_ref(v[k]), oi2[po[k]] = tvm_tir_ref(v[k]), oi3[po[k]] = tvm_tir_ref(v[k]);
    ov[po[k]] = v[k];
  }
  for (int p = 0; p < n; ++p) oext[p] = dim(o, p);
  void* prod = tvm_tir_mul_take(tvm_tir_cast_take(t, tvm_tir_load_takev(tvm_tir_ref(x), n, xi)),
                                tvm_tir_cast_take(t, tvm_tir_load_takev(tvm_tir_ref(w), n, wi)));
  void* acc = tvm_tir_store_takev(tvm_tir_ref(o), tvm_tir_add_take(tvm_tir_load_takev(tvm_tir_ref(o), n, oi), prod), n, oi2);
  acc = tvm_tir_if_take(cond, acc, NULL);
  void* rext[4] = {ipg, NULL, NULL, NULL};
  for (int i = 0; i < s; ++i) rext[1 + i] = dim(w, pk[2 + i]);
  void* red = tvm_relax__loop_nest(r, rext, 1 + s, NULL, acc);
  void* init = tvm_tir_store_takev(tvm_tir_ref(o), zero_of(t), n, oi3);
  /* The output's loops in its own order (ov: v placed by the output layout). */
  void* body = tvm_relax__loop_nest(ov, oext, n, NULL, tvm_tir_seq_take(init, red));
  tvm_ffi_release(ipg);
  tvm_relax__release_all(v, n);
  tvm_relax__release_all(r, 1 + s);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_conv_transpose(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, conv_transpose_body);
}

/* ---- max_pool / avg_pool (1d, 2d, 3d) -------------------------------------------------------- */
/* The input (li) and output (lo) layouts of a pooling call (out_layout absent: layout), by
 * logical dim (N, C, the s spatial ones, then the packed sub-axes of NCHW16c: layout.c); *s the
 * spatial rank. The packed dims pass through the kernels like N and C. false +
 * NotImplementedError for layouts the inference rule would refuse. */
static bool pool_layouts(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* x, int* s,
                         tvm_relax__layout* li, tvm_relax__layout* lo) {
  const char* l = tvm_relax__call_attr_str(call, "layout", NULL);
  const char* ol = tvm_relax__call_attr_str(call, "out_layout", NULL);
  /* (no layout: the canonical one, as IR built without the defaults means) */
  *s = l ? tvm_relax__layout_primal_count(l) - 2 : (int)rank(x) - 2;
  const char* canon = *s == 1 ? "NCW" : *s == 2 ? "NCHW" : *s == 3 ? "NCDHW" : NULL;
  if (!l) l = canon;
  char err[200];
  if (!canon || tvm_relax__layout_parse(l, canon, "DHW", li, err, sizeof(err)) != 0 ||
      tvm_relax__layout_parse(ol ? ol : l, canon, "DHW", lo, err, sizeof(err)) != 0 ||
      !tvm_relax__layout_same_axes(li, lo)) {
    tvm_ffi_raise("NotImplementedError",
                  "only layouts that permute NCW, NCHW or NCDHW, with N or C packed by the same "
                  "factors in and out (NCHW16c), have a kernel");
    return false;
  }
  return true;
}

static void* pool_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                       tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  tvm_relax_op_id id = tvm_relax_op_info_of(call->op)->id;
  bool is_max = id == TVM_RELAX_OP_nn_max_pool1d || id == TVM_RELAX_OP_nn_max_pool2d ||
                id == TVM_RELAX_OP_nn_max_pool3d;
  int s;
  tvm_relax__layout li, lo;
  if (!pool_layouts(call, in[0], &s, &li, &lo)) return NULL;
  int n = li.rank;
  const int32_t *pd = li.pos, *po = lo.pos;
  int64_t size[3], strides[3], dilation[3], pad[6];
  if (attr_ints(call, "pool_size", s, 1, size) != 0 || attr_ints(call, "strides", s, 1, strides) != 0 ||
      attr_ints(call, "dilation", s, 1, dilation) != 0 || attr_padding(call, s, pad) != 0) {
    return NULL;
  }
  bool include_pad = tvm_relax__call_attr_bool(call, "count_include_pad", false);
  tvm_tir_buffer_obj *x = in[0], *o = out[0];
  DLDataType t = o->dtype;
  bool fl = tvm_tir_dtype_is_floating(t);
  void *v[TVM_RELAX_LAYOUT_MAX], *r[3];
  if (tvm_relax__kernel_vars(v, n, "i") != 0) return NULL;
  if (tvm_relax__kernel_vars(r, s, "r") != 0) {
    tvm_relax__release_all(v, n);
    return NULL;
  }
  tvm_tir_buffer_obj* acc = tvm_relax__scratch("acc", t);
  tvm_tir_buffer_obj* cnt = tvm_relax__scratch("count", TVM_TIR_INT64);
  /* x's indices (xl: logical, placed into xi by the layout; all but the spatial pass through) */
  void* xl[TVM_RELAX_LAYOUT_MAX];
  for (int k = 0; k < n; ++k) xl[k] = k >= 2 && k < 2 + s ? NULL : tvm_tir_ref(v[k]);
  void* cond = NULL;
  void* start[3];
  for (int i = 0; i < s; ++i) {
    start[i] = tvm_tir_sub_take(tvm_tir_mul_take(tvm_tir_ref(v[2 + i]), tvm_tir_i64(strides[i])),
                                tvm_tir_i64(pad[i]));
    void* pos = tvm_tir_add_take(tvm_tir_ref(start[i]), tvm_tir_mul_take(tvm_tir_ref(r[i]), tvm_tir_i64(dilation[i])));
    /* ceil_mode windows may reach past the after-padding too: always check the upper end. */
    cond = and_opt(cond, in_range(tvm_tir_ref(pos), true, true, dim(x, pd[2 + i])));
    xl[2 + i] = pos;
  }
  void* xi[TVM_RELAX_LAYOUT_MAX];
  for (int k = 0; k < n; ++k) xi[pd[k]] = xl[k];
  void* xv = tvm_tir_load_takev(tvm_tir_ref(x), n, xi);
  void* update = is_max ? tvm_relax__scratch_store(acc, tvm_tir_max_take(tvm_relax__scratch_load(acc), xv))
                        : tvm_tir_seq_take(tvm_relax__scratch_store(acc, tvm_tir_add_take(tvm_relax__scratch_load(acc), xv)),
                                           tvm_relax__scratch_store(cnt, tvm_tir_add_take(tvm_relax__scratch_load(cnt), tvm_tir_i64(1))));
  void* ksz[3];
  for (int i = 0; i < s; ++i) ksz[i] = tvm_tir_i64(size[i]);
  void* red = tvm_relax__loop_nest(r, ksz, s, NULL, tvm_tir_if_take(cond, update, NULL));
  tvm_relax__release_all(ksz, s);
  void* result;
  if (is_max) {
    result = tvm_relax__scratch_load(acc);
  } else {
    void* divisor;
    if (include_pad) {
      /* The taps inside the padded input: (min(start + (k - 1) * d, in + pad_after - 1) -
       * start) // d + 1 per dim (upstream's count with ceil_mode's extra windows cut off). */
      divisor = tvm_tir_i64(1);
      for (int i = 0; i < s; ++i) {
        void* last = tvm_tir_min_take(
            tvm_tir_add_take(tvm_tir_ref(start[i]), tvm_tir_i64((size[i] - 1) * dilation[i])),
            tvm_tir_add_take(tvm_tir_ref(dim(x, pd[2 + i])), tvm_tir_i64(pad[s + i] - 1)));
        void* cnt_i = tvm_tir_add_take(
            tvm_tir_floordiv_take(tvm_tir_sub_take(last, tvm_tir_ref(start[i])), tvm_tir_i64(dilation[i])),
            tvm_tir_i64(1));
        divisor = tvm_tir_mul_take(divisor, cnt_i);
      }
    } else {
      divisor = tvm_tir_max_take(tvm_relax__scratch_load(cnt), tvm_tir_i64(1));
    }
    result = tvm_tir_div_take(tvm_relax__scratch_load(acc), tvm_tir_cast_take(t, divisor));
  }
  void* init = is_max ? tvm_relax__scratch_store(acc, fl ? tvm_tir_const_float(t, -INFINITY)
                                                         : tvm_tir_const_int(t, tvm_tir_dtype_min_int(t)))
                      : tvm_tir_seq_take(tvm_relax__scratch_store(acc, zero_of(t)),
                                         tvm_relax__scratch_store(cnt, tvm_tir_i64(0)));
  /* The output's indices placed by out_layout, its loops in its own order. */
  void *oi[TVM_RELAX_LAYOUT_MAX], *ov[TVM_RELAX_LAYOUT_MAX], *oext[TVM_RELAX_LAYOUT_MAX];
  for (int k = 0; k < n; ++k) oi[po[k]] = tvm_tir_ref(v[k]), ov[po[k]] = v[k];
  for (int k = 0; k < n; ++k) oext[k] = dim(o, k);
  void* inner = tvm_tir_seq_take(init, red, tvm_tir_store_takev(tvm_tir_ref(o), result, n, oi));
  inner = tvm_relax__scratch_scope(cnt, tvm_relax__scratch_scope(acc, inner));
  void* body = tvm_relax__loop_nest(ov, oext, n, NULL, inner);
  tvm_relax__release_all(start, s);
  tvm_ffi_release(acc), tvm_ffi_release(cnt);
  tvm_relax__release_all(v, n);
  tvm_relax__release_all(r, s);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_pool(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, pool_body);
}

/* ---- grad.max_pool2d_backward / grad.avg_pool2d_backward ------------------------------------- */
/*
 * The derivative of pool_body's kernel: d data starts at zero; for each output window, max
 * adds the output gradient at the window's first maximum (the tap pool_body's max keeps; no tap
 * when the window holds only padding), avg adds gradient / divisor (pool_body's divisor) at each
 * tap inside the input.
 */
static void* pool_backward_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                                int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  bool is_max = tvm_relax_op_info_of(call->op)->id == TVM_RELAX_OP_grad_max_pool2d_backward;
  enum { S = 2, N = 4 };
  if (rank(in[1]) != N || !layout_is(call, "layout", "NCHW") ||
      !layout_is(call, "out_layout", "NCHW")) {
    tvm_ffi_raise("NotImplementedError", "%s: only the NCHW layout has a kernel",
                  tvm_relax_op_info_of(call->op)->name);
    return NULL;
  }
  int64_t size[S], strides[S], dilation[S], pad[2 * S];
  if (attr_ints(call, "pool_size", S, 1, size) != 0 ||
      attr_ints(call, "strides", S, 1, strides) != 0 ||
      attr_ints(call, "dilation", S, 1, dilation) != 0 || attr_padding(call, S, pad) != 0) {
    return NULL;
  }
  bool include_pad = tvm_relax__call_attr_bool(call, "count_include_pad", false);
  tvm_tir_buffer_obj *g = in[0], *x = in[1], *o = out[0];
  DLDataType t = o->dtype;
  void *z[N], *v[N], *r[S];
  if (tvm_relax__kernel_vars(z, N, "z") != 0) return NULL;
  void* zero = tvm_relax__store_all(o, z, zero_of(t));
  tvm_relax__release_all(z, N);
  if (tvm_relax__kernel_vars(v, N, "i") != 0) {
    tvm_ffi_release(zero);
    return NULL;
  }
  if (tvm_relax__kernel_vars(r, S, "r") != 0) {
    tvm_ffi_release(zero);
    tvm_relax__release_all(v, N);
    return NULL;
  }
  void *start[S], *pos[S], *cond = NULL;
  for (int i = 0; i < S; ++i) {
    start[i] = tvm_tir_sub_take(tvm_tir_mul_take(tvm_tir_ref(v[2 + i]), tvm_tir_i64(strides[i])),
                                tvm_tir_i64(pad[i]));
    pos[i] = tvm_tir_add_take(tvm_tir_ref(start[i]),
                              tvm_tir_mul_take(tvm_tir_ref(r[i]), tvm_tir_i64(dilation[i])));
    cond = and_opt(cond, in_range(tvm_tir_ref(pos[i]), true, true, dim(x, 2 + i)));
  }
  void* gi[N];
  for (int i = 0; i < N; ++i) gi[i] = tvm_tir_ref(v[i]);
  void* gv = tvm_tir_load_takev(tvm_tir_ref(g), N, gi);
  void* ksz[S];
  for (int i = 0; i < S; ++i) ksz[i] = tvm_tir_i64(size[i]);
  void* inner;
  if (is_max) {
    /* the first maximum's taps into best_h / best_w (-1: none), its value into acc */
    tvm_tir_buffer_obj* acc = tvm_relax__scratch("acc", t);
    tvm_tir_buffer_obj* best[S] = {tvm_relax__scratch("best_h", TVM_TIR_INT64),
                                   tvm_relax__scratch("best_w", TVM_TIR_INT64)};
    void* xi[N] = {tvm_tir_ref(v[0]), tvm_tir_ref(v[1]), tvm_tir_ref(pos[0]), tvm_tir_ref(pos[1])};
    void* xv = tvm_tir_load_takev(tvm_tir_ref(x), N, xi);
    void* better = tvm_tir_or_take(
        tvm_tir_lt_take(tvm_tir_load_take(tvm_tir_ref(best[0]), tvm_tir_i64(0)), tvm_tir_i64(0)),
        tvm_tir_gt_take(tvm_tir_ref(xv), tvm_relax__scratch_load(acc)));
    void* take = tvm_tir_seq_take(tvm_relax__scratch_store(acc, xv),
                                  tvm_relax__scratch_store(best[0], tvm_tir_ref(pos[0])),
                                  tvm_relax__scratch_store(best[1], tvm_tir_ref(pos[1])));
    void* scan = tvm_relax__loop_nest(
        r, ksz, S, NULL, tvm_tir_if_take(cond, tvm_tir_if_take(better, take, NULL), NULL));
    void* oi[N] = {tvm_tir_ref(v[0]), tvm_tir_ref(v[1]), tvm_relax__scratch_load(best[0]),
                   tvm_relax__scratch_load(best[1])};
    void* oi2[N] = {tvm_tir_ref(v[0]), tvm_tir_ref(v[1]), tvm_relax__scratch_load(best[0]),
                    tvm_relax__scratch_load(best[1])};
    void* add = tvm_tir_store_takev(
        tvm_tir_ref(o), tvm_tir_add_take(tvm_tir_load_takev(tvm_tir_ref(o), N, oi), gv), N, oi2);
    void* found = tvm_tir_ge_take(tvm_relax__scratch_load(best[0]), tvm_tir_i64(0));
    inner = tvm_tir_seq_take(tvm_relax__scratch_store(best[0], tvm_tir_i64(-1)),
                             tvm_relax__scratch_store(best[1], tvm_tir_i64(-1)),
                             tvm_relax__scratch_store(acc, zero_of(t)), scan,
                             tvm_tir_if_take(found, add, NULL));
    inner = tvm_relax__scratch_scope(
        acc, tvm_relax__scratch_scope(best[0], tvm_relax__scratch_scope(best[1], inner)));
    tvm_ffi_release(acc), tvm_ffi_release(best[0]), tvm_ffi_release(best[1]);
  } else {
    /* pool_body's divisor: the taps inside the padded input, or those inside the input */
    tvm_tir_buffer_obj* cnt = tvm_relax__scratch("count", TVM_TIR_INT64);
    void* divisor;
    void* count = NULL;
    if (include_pad) {
      divisor = tvm_tir_i64(1);
      for (int i = 0; i < S; ++i) {
        void* last = tvm_tir_min_take(
            tvm_tir_add_take(tvm_tir_ref(start[i]), tvm_tir_i64((size[i] - 1) * dilation[i])),
            tvm_tir_add_take(tvm_tir_ref(dim(x, 2 + i)), tvm_tir_i64(pad[S + i] - 1)));
        divisor = tvm_tir_mul_take(
            divisor,
            tvm_tir_add_take(tvm_tir_floordiv_take(tvm_tir_sub_take(last, tvm_tir_ref(start[i])),
                                                   tvm_tir_i64(dilation[i])),
                             tvm_tir_i64(1)));
      }
    } else {
      void* rr[S];
      if (tvm_relax__kernel_vars(rr, S, "c") != 0) {
        divisor = NULL;
      } else {
        void* c2 = NULL;
        for (int i = 0; i < S; ++i) {
          void* p2 =
              tvm_tir_add_take(tvm_tir_ref(start[i]),
                               tvm_tir_mul_take(tvm_tir_ref(rr[i]), tvm_tir_i64(dilation[i])));
          c2 = and_opt(c2, in_range(p2, true, true, dim(x, 2 + i)));
        }
        count = tvm_tir_seq_take(
            tvm_relax__scratch_store(cnt, tvm_tir_i64(0)),
            tvm_relax__loop_nest(
                rr, ksz, S, NULL,
                tvm_tir_if_take(
                    c2,
                    tvm_relax__scratch_store(
                        cnt, tvm_tir_add_take(tvm_relax__scratch_load(cnt), tvm_tir_i64(1))),
                    NULL)));
        tvm_relax__release_all(rr, S);
        divisor = tvm_tir_max_take(tvm_relax__scratch_load(cnt), tvm_tir_i64(1));
      }
    }
    void* share = tvm_tir_div_take(gv, tvm_tir_cast_take(t, divisor));
    void* oi[N] = {tvm_tir_ref(v[0]), tvm_tir_ref(v[1]), tvm_tir_ref(pos[0]), tvm_tir_ref(pos[1])};
    void* oi2[N] = {tvm_tir_ref(v[0]), tvm_tir_ref(v[1]), tvm_tir_ref(pos[0]), tvm_tir_ref(pos[1])};
    void* add = tvm_tir_store_takev(
        tvm_tir_ref(o), tvm_tir_add_take(tvm_tir_load_takev(tvm_tir_ref(o), N, oi), share), N, oi2);
    void* spread = tvm_relax__loop_nest(r, ksz, S, NULL, tvm_tir_if_take(cond, add, NULL));
    inner = tvm_relax__scratch_scope(cnt, count ? tvm_tir_seq_take(count, spread) : spread);
    tvm_ffi_release(cnt);
  }
  tvm_relax__release_all(ksz, S);
  void* gext[N];
  for (int i = 0; i < N; ++i) gext[i] = dim(g, i);
  void* body = tvm_tir_seq_take(zero, tvm_relax__loop_nest(v, gext, N, NULL, inner));
  tvm_relax__release_all(start, S);
  tvm_relax__release_all(pos, S);
  tvm_relax__release_all(v, N);
  tvm_relax__release_all(r, S);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_pool2d_backward(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, pool_backward_body);
}

/* ---- adaptive_avg_pool (1d, 2d, 3d) ---------------------------------------------------------- */
static void* adaptive_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                           tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  int s;
  tvm_relax__layout li, lo;
  if (!pool_layouts(call, in[0], &s, &li, &lo)) return NULL;
  int n = li.rank;
  const int32_t *pd = li.pos, *po = lo.pos;
  tvm_tir_buffer_obj *x = in[0], *o = out[0];
  DLDataType t = o->dtype;
  void *v[TVM_RELAX_LAYOUT_MAX], *r[3];
  if (tvm_relax__kernel_vars(v, n, "i") != 0) return NULL;
  if (tvm_relax__kernel_vars(r, s, "r") != 0) {
    tvm_relax__release_all(v, n);
    return NULL;
  }
  /* Window of output y along a dim of H in, OH out: [y * H // OH, ceil((y + 1) * H / OH)). */
  void *st[3], *len[3], *xl[TVM_RELAX_LAYOUT_MAX];
  for (int k = 0; k < n; ++k) xl[k] = k >= 2 && k < 2 + s ? NULL : tvm_tir_ref(v[k]);
  void* area = tvm_tir_i64(1);
  for (int i = 0; i < s; ++i) {
    void *h = dim(x, pd[2 + i]), *oh = dim(o, po[2 + i]);
    st[i] = tvm_tir_floordiv_take(tvm_tir_mul_take(tvm_tir_ref(v[2 + i]), tvm_tir_ref(h)),
                                  tvm_tir_ref(oh));
    void* next = tvm_tir_mul_take(tvm_tir_add_take(tvm_tir_ref(v[2 + i]), tvm_tir_i64(1)),
                                  tvm_tir_ref(h));
    void* end = tvm_tir_floordiv_take(
        tvm_tir_sub_take(tvm_tir_add_take(next, tvm_tir_ref(oh)), tvm_tir_i64(1)),
        tvm_tir_ref(oh));
    len[i] = tvm_tir_sub_take(end, tvm_tir_ref(st[i]));
    xl[2 + i] = tvm_tir_add_take(tvm_tir_ref(st[i]), tvm_tir_ref(r[i]));
    area = tvm_tir_mul_take(area, tvm_tir_ref(len[i]));
  }
  void* xi[TVM_RELAX_LAYOUT_MAX];
  for (int k = 0; k < n; ++k) xi[pd[k]] = xl[k];
  tvm_tir_buffer_obj* acc = tvm_relax__scratch("acc", t);
  void* upd = tvm_relax__scratch_store(
      acc, tvm_tir_add_take(tvm_relax__scratch_load(acc), tvm_tir_load_takev(tvm_tir_ref(x), n, xi)));
  void* red = tvm_relax__loop_nest(r, len, s, NULL, upd);
  /* The output's indices placed by out_layout, its loops in its own order. */
  void *oi[TVM_RELAX_LAYOUT_MAX], *ov[TVM_RELAX_LAYOUT_MAX], *oext[TVM_RELAX_LAYOUT_MAX];
  for (int k = 0; k < n; ++k) oi[po[k]] = tvm_tir_ref(v[k]), ov[po[k]] = v[k];
  for (int k = 0; k < n; ++k) oext[k] = dim(o, k);
  void* mean = tvm_tir_div_take(tvm_relax__scratch_load(acc), tvm_tir_cast_take(t, area));
  void* inner = tvm_tir_seq_take(tvm_relax__scratch_store(acc, zero_of(t)), red,
                                 tvm_tir_store_takev(tvm_tir_ref(o), mean, n, oi));
  inner = tvm_relax__scratch_scope(acc, inner);
  void* body = tvm_relax__loop_nest(ov, oext, n, NULL, inner);
  tvm_ffi_release(acc);
  tvm_relax__release_all(st, s);
  tvm_relax__release_all(len, s);
  tvm_relax__release_all(v, n);
  tvm_relax__release_all(r, s);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_adaptive_pool(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, adaptive_body);
}

/* ---- pad ------------------------------------------------------------------------------------- */
static void* pad_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                      tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  tvm_tir_buffer_obj *x = in[0], *o = out[0];
  int64_t n = rank(o);
  const TVMFFIAny* wa = tvm_relax_call_attr(call, "pad_width");
  const char* mode = tvm_relax__call_attr_str(call, "pad_mode", NULL);
  if (n > MAX_DIMS || !wa || wa->type_index != kTVMFFIArray || tvm_ffi_seq_size(wa->v_obj) != 2 * n) {
    tvm_ffi_raise("ValueError", "pad: attribute 'pad_width' must have 2 values per dim");
    return NULL;
  }
  int m = !mode || strcmp(mode, "constant") == 0 ? 0 : strcmp(mode, "edge") == 0 ? 1 : 2;
  void* v[MAX_DIMS];
  if (tvm_relax__kernel_vars(v, n, "i") != 0) return NULL;
  void* ind[MAX_DIMS];
  void* cond = NULL;
  for (int64_t i = 0; i < n; ++i) {
    int64_t before = 0;
    tvm_ffi_any_as_int(tvm_ffi_seq_at(wa->v_obj, 2 * i), &before);
    void* h = dim(x, i);
    void* p = tvm_tir_sub_take(tvm_tir_ref(v[i]), tvm_tir_i64(before));
    void* last = tvm_tir_sub_take(tvm_tir_ref(h), tvm_tir_i64(1));
    if (m == 2) {
      /* reflect (without repeating the edge): -p below, 2 * (h - 1) - p above */
      p = tvm_tir_select_take(tvm_tir_lt_take(tvm_tir_ref(p), tvm_tir_i64(0)), tvm_tir_neg_take(tvm_tir_ref(p)), p);
      p = tvm_tir_select_take(tvm_tir_gt_take(tvm_tir_ref(p), tvm_tir_ref(last)),
                              tvm_tir_sub_take(tvm_tir_mul_take(tvm_tir_i64(2), tvm_tir_ref(last)), tvm_tir_ref(p)), p);
    } else if (m == 0) {
      cond = and_opt(cond, in_range(tvm_tir_ref(p), true, true, h));
    }
    /* clamped, so that the load stays inside x whatever the select picks */
    ind[i] = tvm_tir_min_take(tvm_tir_max_take(p, tvm_tir_i64(0)), last);
  }
  void* value = tvm_tir_load_takev(tvm_tir_ref(x), n, ind);
  if (cond) {
    double pv = tvm_relax__call_attr_float(call, "pad_value", 0);
    DLDataType t = o->dtype;
    void* c = tvm_tir_dtype_is_floating(t) ? tvm_tir_const_float(t, pv) : tvm_tir_const_int(t, (int64_t)pv);
    value = tvm_tir_select_take(cond, value, c);
  }
  void* body = tvm_relax__store_all(o, v, value);
  tvm_relax__release_all(v, n);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_pad(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, pad_body);
}

/* ---- batch_norm, dropout ---------------------------------------------------------------------- */
/* batch_norm as upstream's topi: inference normalises with the moving statistics and returns
 * them unchanged; training normalises with the batch's mean and (biased) variance over every
 * dim but axis and returns the moving statistics updated as (1 - momentum) * moving + momentum *
 * batch. One pass per channel: the statistics into scratch buffers, then the output. */
static void* batch_norm_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                             tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin;
  bool training = tvm_relax__call_attr_bool(call, "training", false);
  tvm_tir_buffer_obj *x = in[0], *gamma = in[1], *beta = in[2], *mmean = in[3], *mvar = in[4];
  tvm_tir_buffer_obj* o = out[0];
  int64_t n = rank(o);
  int64_t axis = 1;
  const TVMFFIAny* av = tvm_relax_call_attr(call, "axis");
  if (av) tvm_ffi_any_as_int(av, &axis);
  if (axis < 0) axis += n;
  if (n > MAX_DIMS || axis < 0 || axis >= n || nout != 3) {
    tvm_ffi_raise("ValueError", "batch_norm: bad axis or results");
    return NULL;
  }
  double eps = tvm_relax__call_attr_float(call, "epsilon", 1e-5);
  double momentum = tvm_relax__call_attr_float(call, "momentum", 0.1);
  bool center = true, scale = true;
  const TVMFFIAny* cv = tvm_relax_call_attr(call, "center");
  const TVMFFIAny* sv = tvm_relax_call_attr(call, "scale");
  if (cv) tvm_ffi_any_as_bool(cv, &center);
  if (sv) tvm_ffi_any_as_bool(sv, &scale);
  DLDataType t = o->dtype;
  /* Each loop nest over the other dims has its own variables (a variable is bound once); the
   * channel variable c, bound by the outer loop, stands at axis in all three sets. */
  void* vs[3][MAX_DIMS];
  void* c = tvm_tir_var("c", TVM_TIR_INT64);
  for (int k = 0; k < 3; ++k) {
    char prefix[4] = {'i', (char)('a' + k), 0, 0};
    if (tvm_relax__kernel_vars(vs[k], n, prefix) != 0) {
      for (int j = 0; j < k; ++j) tvm_relax__release_all(vs[j], n);
      tvm_ffi_release(c);
      return NULL;
    }
    tvm_ffi_release(vs[k][axis]);
    vs[k][axis] = tvm_tir_ref(c);
  }
  void** v = vs[2]; /* the output's */
  void* ext[MAX_DIMS];
  bool rest[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) ext[i] = dim(o, i), rest[i] = i != axis;
  tvm_tir_buffer_obj* mean = tvm_relax__scratch("mean", t);
  tvm_tir_buffer_obj* var = tvm_relax__scratch("var", t);
  void* ind[MAX_DIMS];
  void* stmts[12];
  int ns = 0;
  if (training) {
    /* count = the product of the other dims */
    void* count = tvm_tir_i64(1);
    for (int64_t i = 0; i < n; ++i) {
      if (i != axis) count = tvm_tir_mul_take(count, tvm_tir_ref(ext[i]));
    }
    void* cf = tvm_tir_cast_take(t, count);
    for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(vs[0][i]);
    void* sum = tvm_relax__loop_nest(vs[0], ext, n, rest, tvm_relax__scratch_store(mean, tvm_tir_add_take(
        tvm_relax__scratch_load(mean), tvm_tir_load_takev(tvm_tir_ref(x), n, ind))));
    for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(vs[1][i]);
    void* d = tvm_tir_sub_take(tvm_tir_load_takev(tvm_tir_ref(x), n, ind), tvm_relax__scratch_load(mean));
    void* sq = tvm_relax__loop_nest(vs[1], ext, n, rest, tvm_relax__scratch_store(var, tvm_tir_add_take(
        tvm_relax__scratch_load(var), tvm_tir_mul_take(tvm_tir_ref(d), d))));
    stmts[ns++] = tvm_relax__scratch_store(mean, zero_of(t));
    stmts[ns++] = sum;
    stmts[ns++] = tvm_relax__scratch_store(mean, tvm_tir_div_take(tvm_relax__scratch_load(mean), tvm_tir_ref(cf)));
    stmts[ns++] = tvm_relax__scratch_store(var, zero_of(t));
    stmts[ns++] = sq;
    stmts[ns++] = tvm_relax__scratch_store(var, tvm_tir_div_take(tvm_relax__scratch_load(var), cf));
  } else {
    stmts[ns++] = tvm_relax__scratch_store(mean, tvm_tir_load_take(tvm_tir_ref(mmean), tvm_tir_ref(c)));
    stmts[ns++] = tvm_relax__scratch_store(var, tvm_tir_load_take(tvm_tir_ref(mvar), tvm_tir_ref(c)));
  }
  /* (x - mean) * rsqrt(var + eps) [* gamma[c]] [+ beta[c]] */
  for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(v[i]);
  void* value = tvm_tir_mul_take(
      tvm_tir_sub_take(tvm_tir_load_takev(tvm_tir_ref(x), n, ind), tvm_relax__scratch_load(mean)),
      tvm_tir_call_take(t, "tir.rsqrt", tvm_tir_add_take(tvm_relax__scratch_load(var), tvm_tir_const_float(t, eps))));
  if (scale) value = tvm_tir_mul_take(value, tvm_tir_load_take(tvm_tir_ref(gamma), tvm_tir_ref(c)));
  if (center) value = tvm_tir_add_take(value, tvm_tir_load_take(tvm_tir_ref(beta), tvm_tir_ref(c)));
  for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(v[i]);
  stmts[ns++] = tvm_relax__loop_nest(v, ext, n, rest, tvm_tir_store_takev(tvm_tir_ref(o), value, n, ind));
  /* the moving statistics: passed through, or updated */
  for (int k = 0; k < 2; ++k) {
    tvm_tir_buffer_obj* mv = k == 0 ? mmean : mvar;
    tvm_tir_buffer_obj* st = k == 0 ? mean : var;
    void* old = tvm_tir_load_take(tvm_tir_ref(mv), tvm_tir_ref(c));
    void* nv = training ? tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_const_float(t, 1 - momentum), old),
                                           tvm_tir_mul_take(tvm_tir_const_float(t, momentum), tvm_relax__scratch_load(st)))
                        : old;
    stmts[ns++] = tvm_tir_store_take(tvm_tir_ref(out[1 + k]), nv, tvm_tir_ref(c));
  }
  void* inner = tvm_tir_seq_takev(ns, stmts);
  inner = tvm_relax__scratch_scope(var, tvm_relax__scratch_scope(mean, inner));
  void* body = tvm_tir_serial_take(tvm_tir_ref(c), tvm_tir_i64(0), tvm_tir_ref(ext[axis]), inner);
  tvm_ffi_release(mean), tvm_ffi_release(var), tvm_ffi_release(c);
  for (int k = 0; k < 3; ++k) tvm_relax__release_all(vs[k], n);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_batch_norm(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, batch_norm_body);
}

static void* dropout_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                          tvm_tir_buffer_obj* const* out, int nout) {
  (void)call, (void)nin;
  if (nout != 2) {
    tvm_ffi_raise("ValueError", "dropout: two results expected");
    return NULL;
  }
  int64_t n = rank(out[0]);
  void* v[MAX_DIMS], *w[MAX_DIMS];
  if (n > MAX_DIMS || tvm_relax__kernel_vars(v, n, "i") != 0) {
    if (!tvm_ffi_error_pending()) tvm_ffi_raise("ValueError", "more than %d dims", MAX_DIMS);
    return NULL;
  }
  if (tvm_relax__kernel_vars(w, n, "j") != 0) {
    tvm_relax__release_all(v, n);
    return NULL;
  }
  void* ind[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(v[i]);
  void* copy = tvm_relax__store_all(out[0], v, tvm_tir_load_takev(tvm_tir_ref(in[0]), n, ind));
  DLDataType t = out[1]->dtype;
  void* one = tvm_tir_dtype_is_floating(t) ? tvm_tir_const_float(t, 1) : tvm_tir_const_int(t, 1);
  void* mask = tvm_relax__store_all(out[1], w, one);
  tvm_relax__release_all(v, n);
  tvm_relax__release_all(w, n);
  return tvm_tir_seq_take(copy, mask);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_dropout(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, dropout_body);
}
