/*
 * legalize_grad.c: the kernels of grad.nll_loss_backward, grad.take_backward and median.
 * (grad.max_pool2d_backward / avg_pool2d_backward share the window code of the pooling kernels
 * in legalize_conv.c; the markers and call_tir_with_grad are rewritten by legalize.c itself.)
 *
 *   nll_loss_backward  d predictions[n, c, d..] = c == t && t != ignore_index ?
 *                      -weights[t] * g / den : 0, with t = targets[n, d..], g the output
 *                      gradient at (n, d..) (broadcast to targets' shape for "sum" / "mean",
 *                      where it is usually the loss's one value, as upstream's), den the
 *                      sum of the weights of the targets not ignored for "mean" (else 1): the
 *                      derivative of nll_loss's kernel (legalize_nn_extra.c); as there, a target
 *                      not ignored outside [0, C) fails the kernel's assertion.
 *   take_backward      zeros of x's shape, then each output gradient added at the position its
 *                      index names along the axis (axis None: x is 1-d); a negative index counts
 *                      from the end; one out of range fails the kernel's assertion, as take's.
 *   median             per output element, the lower median of the reduced elements (rank
 *                      (K - 1) // 2 of the K reduced values in a stable ascending order, as
 *                      upstream's argsort + gather), and with one axis its index along that axis.
 *                      The rank is counted directly (O(K^2) comparisons per output element, no
 *                      scratch row), which suits the short reductions models take medians over.
 */
#include <stdio.h>
#include <string.h>
#include <tvm/tir/builder.h>

#include "internal.h"

enum { MAX_DIMS = 16 };

static int64_t rank(tvm_tir_buffer_obj* b) { return tvm_ffi_seq_size(b->shape); }
static void* dim(tvm_tir_buffer_obj* b, int64_t i) { return tvm_ffi_seq_obj_at(b->shape, i); }

static bool attr_is_none(const tvm_relax_call_obj* call, const char* name) {
  const TVMFFIAny* a = tvm_relax_call_attr(call, name);
  return !a || tvm_ffi_any_is_none(a);
}

static void* too_many_dims(void) {
  tvm_ffi_raise("ValueError", "more than %d dims", MAX_DIMS);
  return NULL;
}

/* ---- nll_loss_backward ----------------------------------------------------------------------- */
static void* nll_backward_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                               int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nout;
  tvm_tir_buffer_obj *g = in[0], *p = in[1], *tg = in[2], *w = nin > 3 ? in[3] : NULL, *o = out[0];
  const TVMFFIAny* rv = tvm_relax_call_attr(call, "reduction");
  TVMFFIByteArray rb = {"mean", 4};
  if (rv) tvm_ffi_any_as_bytes(rv, &rb);
  bool mean = rb.size == 4 && memcmp(rb.data, "mean", 4) == 0;
  int64_t ignore = tvm_relax__call_attr_int(call, "ignore_index", -100);
  int64_t np = rank(p), nt = rank(tg), ng = rank(g);
  DLDataType t = o->dtype;
  if (np > MAX_DIMS) return too_many_dims();
  if (ng > nt) { /* (the inference rule refuses it) */
    tvm_ffi_raise("ValueError", "output_grad has more dims than targets");
    return NULL;
  }
  /* The target's class at targets' indices ti (borrowed): raw, valid, and the class read. */
  void* v[MAX_DIMS];
  if (tvm_relax__kernel_vars(v, np, "i") != 0) return NULL;
  void* ti[MAX_DIMS];
  int64_t k = 0;
  if (np > 1) {
    ti[k++] = v[0];
    for (int64_t i = 2; i < np; ++i) ti[k++] = v[i];
  }
  void* tii[MAX_DIMS];
  for (int64_t i = 0; i < nt; ++i) tii[i] = tvm_tir_ref(ti[i]);
  void* raw = tvm_tir_cast_take(TVM_TIR_INT64, tvm_tir_load_takev(tvm_tir_ref(tg), nt, tii));
  void* valid = tvm_tir_ne_take(tvm_tir_ref(raw), tvm_tir_i64(ignore));
  void* classes = dim(p, np == 1 ? 0 : 1);
  void* ok =
      tvm_tir_or_take(tvm_tir_not_take(tvm_tir_ref(valid)), tvm_relax__in_range(raw, classes));
  /* An ignored target reads weight 0's slot (Select evaluates both of its values). */
  void* safe = tvm_tir_select_take(tvm_tir_ref(valid), tvm_tir_ref(raw), tvm_tir_i64(0));
  void* wv = w ? tvm_tir_load_take(tvm_tir_ref(w), safe)
               : (tvm_ffi_release(safe), tvm_tir_const_float(t, 1));
  /* g at the target's indices: for "none" of targets' shape; else broadcast to it (its dims
   * aligned on the right, one of size 1 read at 0). */
  void* gi[MAX_DIMS];
  for (int64_t i = 0; i < ng; ++i) {
    void* at = ti[nt - ng + i];
    void* gdim = dim(g, i);
    int64_t extent;
    if (tvm_tir_as_const_int(gdim, &extent)) {
      gi[i] = extent == 1 ? tvm_tir_i64(0) : tvm_tir_ref(at);
    } else {
      gi[i] = tvm_tir_select_take(tvm_tir_eq_take(tvm_tir_ref(gdim), tvm_tir_i64(1)),
                                  tvm_tir_i64(0), tvm_tir_ref(at));
    }
  }
  void* gv = tvm_tir_load_takev(tvm_tir_ref(g), ng, gi);
  void* cls = tvm_tir_ref(np == 1 ? v[0] : v[1]);
  void* hit = tvm_tir_and_take(tvm_tir_ref(valid), tvm_tir_eq_take(cls, tvm_tir_ref(raw)));
  tvm_tir_buffer_obj* ws = mean ? tvm_relax__scratch("weight_sum", t) : NULL;
  void* grad = tvm_tir_neg_take(tvm_tir_mul_take(tvm_tir_ref(wv), gv));
  if (mean) grad = tvm_tir_div_take(grad, tvm_relax__scratch_load(ws));
  void* value = tvm_tir_select_take(hit, grad, tvm_tir_const_float(t, 0));
  void *oi[MAX_DIMS], *oext[MAX_DIMS];
  for (int64_t i = 0; i < np; ++i) oi[i] = tvm_tir_ref(v[i]), oext[i] = dim(o, i);
  void* body = tvm_tir_store_takev(tvm_tir_ref(o), value, np, oi);
  body = tvm_relax__loop_nest(v, oext, np, NULL, tvm_relax__assert_indices(call, ok, body));
  if (mean) {
    /* weight_sum over the targets (a loop of its own over targets' dims) */
    void* u[MAX_DIMS];
    if (tvm_relax__kernel_vars(u, nt, "j") != 0) {
      tvm_ffi_release(body);
      body = NULL;
    } else {
      void* ui[MAX_DIMS];
      for (int64_t i = 0; i < nt; ++i) ui[i] = tvm_tir_ref(u[i]);
      void* r2 = tvm_tir_cast_take(TVM_TIR_INT64, tvm_tir_load_takev(tvm_tir_ref(tg), nt, ui));
      void* ok2 = tvm_tir_ne_take(tvm_tir_ref(r2), tvm_tir_i64(ignore));
      void* in2 =
          tvm_tir_or_take(tvm_tir_not_take(tvm_tir_ref(ok2)), tvm_relax__in_range(r2, classes));
      void* s2 = tvm_tir_select_take(tvm_tir_ref(ok2), r2, tvm_tir_i64(0));
      void* w2 = w ? tvm_tir_load_take(tvm_tir_ref(w), s2)
                   : (tvm_ffi_release(s2), tvm_tir_const_float(t, 1));
      void* add = tvm_tir_select_take(ok2, w2, tvm_tir_const_float(t, 0));
      void* ext[MAX_DIMS];
      for (int64_t i = 0; i < nt; ++i) ext[i] = dim(tg, i);
      void* acc = tvm_relax__scratch_store(ws, tvm_tir_add_take(tvm_relax__scratch_load(ws), add));
      void* sum = tvm_relax__loop_nest(u, ext, nt, NULL, tvm_relax__assert_indices(call, in2, acc));
      body = tvm_relax__scratch_scope(
          ws, tvm_tir_seq_take(tvm_relax__scratch_store(ws, tvm_tir_const_float(t, 0)), sum, body));
      tvm_relax__release_all(u, nt);
    }
  }
  tvm_ffi_release(ws);
  tvm_ffi_release(wv), tvm_ffi_release(valid), tvm_ffi_release(raw);
  tvm_relax__release_all(v, np);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_nll_loss_backward(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, nll_backward_body);
}

/* ---- take_backward --------------------------------------------------------------------------- */
static void* take_backward_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                                int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  tvm_tir_buffer_obj *g = in[0], *idx = in[2], *o = out[0];
  int64_t nx = rank(o), ng = rank(g), ni = rank(idx);
  int64_t axis = 0;
  if (!attr_is_none(call, "axis")) {
    axis = tvm_relax__call_attr_int(call, "axis", 0);
    if (axis < 0) axis += nx;
  }
  if (nx > MAX_DIMS || ng > MAX_DIMS) return too_many_dims();
  DLDataType t = o->dtype;
  void* z[MAX_DIMS];
  if (tvm_relax__kernel_vars(z, nx, "z") != 0) return NULL;
  void* zero = tvm_relax__store_all(
      o, z, tvm_tir_dtype_is_floating(t) ? tvm_tir_const_float(t, 0) : tvm_tir_const_int(t, 0));
  tvm_relax__release_all(z, nx);
  void* v[MAX_DIMS];
  if (tvm_relax__kernel_vars(v, ng, "i") != 0) {
    tvm_ffi_release(zero);
    return NULL;
  }
  /* g's dims: x's before the axis, then indices' (ni of them), then x's after it. */
  void* ii[1] = {ni ? tvm_tir_ref(v[axis]) : NULL};
  void* raw = tvm_tir_cast_take(TVM_TIR_INT64, tvm_tir_load_takev(tvm_tir_ref(idx), ni, ii));
  void* pos = tvm_tir_select_take(tvm_tir_lt_take(tvm_tir_ref(raw), tvm_tir_i64(0)),
                                  tvm_tir_add_take(tvm_tir_ref(raw), tvm_tir_ref(dim(o, axis))),
                                  tvm_tir_ref(raw));
  tvm_ffi_release(raw);
  void* oi[MAX_DIMS];
  for (int64_t i = 0; i < nx; ++i) {
    oi[i] = i < axis    ? tvm_tir_ref(v[i])
            : i == axis ? tvm_tir_ref(pos)
                        : tvm_tir_ref(v[i - 1 + ni]);
  }
  void* oi2[MAX_DIMS];
  for (int64_t i = 0; i < nx; ++i) oi2[i] = tvm_tir_ref(oi[i]);
  void* gi[MAX_DIMS];
  for (int64_t i = 0; i < ng; ++i) gi[i] = tvm_tir_ref(v[i]);
  void* upd = tvm_tir_store_takev(tvm_tir_ref(o),
                                  tvm_tir_add_take(tvm_tir_load_takev(tvm_tir_ref(o), nx, oi),
                                                   tvm_tir_load_takev(tvm_tir_ref(g), ng, gi)),
                                  nx, oi2);
  /* An index outside x's dim fails as take's does (the forward pass would have failed on it);
   * the assertion sits outside the loops over g's dims after the index's, as take's. */
  void* ok = tvm_relax__in_range(pos, dim(o, axis));
  tvm_ffi_release(pos);
  void* ext[MAX_DIMS];
  for (int64_t i = 0; i < ng; ++i) ext[i] = dim(g, i);
  int64_t k = axis + ni;
  void* scatter = tvm_relax__loop_nest(v + k, ext + k, ng - k, NULL, upd);
  scatter = tvm_relax__assert_indices(call, ok, scatter);
  scatter = tvm_relax__loop_nest(v, ext, k, NULL, scatter);
  tvm_relax__release_all(v, ng);
  return tvm_tir_seq_take(zero, scatter);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_take_backward(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, take_backward_body);
}

/* ---- median ---------------------------------------------------------------------------------- */
/* x's indices for output position `outer` (vars of the kept dims, borrowed) and the reduced
 * coordinates of flat index `flat` (borrowed) over the reduced dims: new references. */
static void median_index(tvm_tir_buffer_obj* x, const bool* red, void* const* outer, void* flat,
                         void** out) {
  int64_t n = rank(x);
  void* rest = tvm_tir_ref(flat);
  for (int64_t i = n - 1; i >= 0; --i) {
    if (!red[i]) {
      out[i] = tvm_tir_ref(outer[i]);
      continue;
    }
    out[i] = tvm_tir_floormod_take(tvm_tir_ref(rest), tvm_tir_ref(dim(x, i)));
    rest = tvm_tir_floordiv_take(rest, tvm_tir_ref(dim(x, i)));
  }
  tvm_ffi_release(rest);
}

static void* median_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                         tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin;
  tvm_tir_buffer_obj* x = in[0];
  int64_t n = rank(x);
  if (n > MAX_DIMS) return too_many_dims();
  bool red[MAX_DIMS] = {false};
  const TVMFFIAny* axes = tvm_relax_call_attr(call, "axis");
  bool all = !axes || tvm_ffi_any_is_none(axes);
  for (int64_t i = 0; all && i < n; ++i) red[i] = true;
  for (int64_t k = 0; !all && k < tvm_ffi_seq_size(axes->v_obj); ++k) {
    int64_t a = 0;
    tvm_ffi_any_as_int(tvm_ffi_seq_at(axes->v_obj, k), &a);
    if (a < 0) a += n;
    red[a] = true;
  }
  const TVMFFIAny* kd = tvm_relax_call_attr(call, "keepdims");
  bool keep = false;
  if (kd) tvm_ffi_any_as_bool(kd, &keep);
  /* K = the product of the reduced dims; m = (K - 1) // 2 */
  void* K = tvm_tir_i64(1);
  for (int64_t i = 0; i < n; ++i) {
    if (red[i]) K = tvm_tir_mul_take(K, tvm_tir_ref(dim(x, i)));
  }
  void* v[MAX_DIMS];
  void* jk[2];
  if (tvm_relax__kernel_vars(v, n, "i") != 0) {
    tvm_ffi_release(K);
    return NULL;
  }
  if (tvm_relax__kernel_vars(jk, 2, "r") != 0) {
    tvm_ffi_release(K);
    tvm_relax__release_all(v, n);
    return NULL;
  }
  void *xj[MAX_DIMS], *xk[MAX_DIMS];
  median_index(x, red, v, jk[0], xj);
  median_index(x, red, v, jk[1], xk);
  void* xjv = tvm_tir_load_takev(tvm_tir_ref(x), n, xj);
  void* xkv = tvm_tir_load_takev(tvm_tir_ref(x), n, xk);
  /* element k ranks before element j: smaller, or equal and earlier */
  void* before =
      tvm_tir_or_take(tvm_tir_lt_take(tvm_tir_ref(xkv), tvm_tir_ref(xjv)),
                      tvm_tir_and_take(tvm_tir_eq_take(xkv, tvm_tir_ref(xjv)),
                                       tvm_tir_lt_take(tvm_tir_ref(jk[1]), tvm_tir_ref(jk[0]))));
  tvm_tir_buffer_obj* cnt = tvm_relax__scratch("rank", TVM_TIR_INT64);
  void* count = tvm_tir_serial_take(
      tvm_tir_ref(jk[1]), tvm_tir_i64(0), tvm_tir_ref(K),
      tvm_relax__scratch_store(
          cnt, tvm_tir_add_take(tvm_relax__scratch_load(cnt),
                                tvm_tir_select_take(before, tvm_tir_i64(1), tvm_tir_i64(0)))));
  /* the outputs' indices: kept dims, and 0 for a reduced dim kept as 1 */
  void* oi[MAX_DIMS];
  int64_t no = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!red[i])
      oi[no++] = v[i];
    else if (keep)
      oi[no++] = NULL;
  }
  void* st[2] = {NULL, NULL};
  for (int r = 0; r < nout && r < 2; ++r) {
    void* idx[MAX_DIMS];
    for (int64_t i = 0; i < no; ++i) idx[i] = oi[i] ? tvm_tir_ref(oi[i]) : tvm_tir_i64(0);
    /* (with one axis, the flat index is the index along it) */
    void* val = r == 0 ? tvm_tir_ref(xjv) : tvm_tir_ref(jk[0]);
    st[r] = tvm_tir_store_takev(tvm_tir_ref(out[r]), val, no, idx);
  }
  void* write = nout > 1 ? tvm_tir_seq_take(st[0], st[1]) : st[0];
  void* m = tvm_tir_floordiv_take(tvm_tir_sub_take(tvm_tir_ref(K), tvm_tir_i64(1)), tvm_tir_i64(2));
  void* per_j = tvm_tir_seq_take(
      tvm_relax__scratch_store(cnt, tvm_tir_i64(0)), count,
      tvm_tir_if_take(tvm_tir_eq_take(tvm_relax__scratch_load(cnt), m), write, NULL));
  void* scan = tvm_relax__scratch_scope(
      cnt, tvm_tir_serial_take(tvm_tir_ref(jk[0]), tvm_tir_i64(0), tvm_tir_ref(K), per_j));
  void* ext[MAX_DIMS];
  bool kept[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) ext[i] = dim(x, i), kept[i] = !red[i];
  void* body = tvm_relax__loop_nest(v, ext, n, kept, scan);
  tvm_ffi_release(xjv);
  tvm_ffi_release(cnt);
  tvm_ffi_release(K);
  tvm_relax__release_all(jk, 2);
  tvm_relax__release_all(v, n);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_median(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, median_body);
}
