/*
 * op_grad.c: attribute schemas and inference rules of the gradient operators (upstream's
 * relax/op/tensor/grad.cc: grad.no_grad, grad.start_checkpoint, grad.end_checkpoint,
 * grad.nll_loss_backward, grad.max_pool2d_backward, grad.avg_pool2d_backward,
 * grad.take_backward) and of builtin.stop_lift_params (relax/op/op.cc).
 *
 * The markers (no_grad, the checkpoints, stop_lift_params) give their argument's struct info;
 * a checkpoint's argument must be a variable, as upstream requires. A backward operator gives
 * the struct info of the forward operator's input (predictions, data, x); beyond upstream, which
 * checks nothing, the arguments are checked as the forward operator checks them, and
 * output_grad against the forward operator's result where that is provable.
 */
#include <string.h>

#include "internal.h"

const tvm_relax_attr_field tvm_relax__attrs_take_backward[] = {
    {"axis", TVM_RELAX_ATTR_OPT_INT, "None"}, {NULL, 0, NULL}};

/* ---- Markers --------------------------------------------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax__infer_identity(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, 0);
  return s ? retained_sinfo(s) : NULL;
}

tvm_relax_sinfo_obj* tvm_relax__infer_checkpoint(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_expr_obj* x = tvm_relax__arg(ctx, 0);
  if (!tvm_relax_is_var(x)) {
    tvm_ffi_strbuf b = {0};
    tvm_relax__text(&b, x);
    tvm_relax__arg_error(ctx, 0, "TypeError",
                         "must be a variable (a checkpoint marks a bound "
                         "value), got %s",
                         tvm_ffi_strbuf_cstr(&b));
    tvm_ffi_strbuf_free(&b);
    return NULL;
  }
  return tvm_relax__infer_identity(ctx);
}

/* ---- Helpers --------------------------------------------------------------------------------- */
static bool is_float(DLDataType t) { return t.code == kDLFloat || t.code == kDLBfloat; }

/* output_grad (argument 0) must have the shape of `want` (the forward result) where provable:
 * its rank, and each pair of dims not provably unequal. */
static bool grad_matches(const tvm_relax__infer_ctx* ctx, const tvm_relax_tensor_sinfo_obj* g,
                         const tvm_relax_sinfo_obj* want, const char* what) {
  if (tvm_relax_kind_of(want) != TVM_RELAX_KIND_TensorStructInfo) return true;
  const tvm_relax_tensor_sinfo_obj* w = (const tvm_relax_tensor_sinfo_obj*)want;
  if (g->ndim != TVM_RELAX_UNKNOWN_NDIM && w->ndim != TVM_RELAX_UNKNOWN_NDIM &&
      g->ndim != w->ndim) {
    tvm_relax__arg_error(ctx, 0, "ValueError", "must have ndim %d (the rank of %s), got %d",
                         w->ndim, what, g->ndim);
    return false;
  }
  void* gd = tvm_relax_tensor_sinfo_dims(&g->base);
  void* wd = tvm_relax_tensor_sinfo_dims(want);
  for (int64_t i = 0; gd && wd && i < tvm_ffi_seq_size(gd); ++i) {
    tvm_tir_expr_obj *a = tvm_ffi_seq_obj_at(gd, i), *b = tvm_ffi_seq_obj_at(wd, i);
    if (tvm_relax__dim_unequal(a, b)) {
      tvm_ffi_strbuf x = {0}, y = {0};
      tvm_relax__dim_text(&x, a);
      tvm_relax__dim_text(&y, b);
      tvm_relax__arg_error(ctx, 0, "ValueError", "dim %lld is %s but %s has %s there", (long long)i,
                           tvm_ffi_strbuf_cstr(&x), what, tvm_ffi_strbuf_cstr(&y));
      tvm_ffi_strbuf_free(&x);
      tvm_ffi_strbuf_free(&y);
      return false;
    }
  }
  return true;
}

/* The struct info of forward operator `fwd` applied to the arguments [first, num_args) of ctx
 * with ctx's attributes (its errors re-raised under ctx's operator name), or NULL + error. */
static tvm_relax_sinfo_obj* forward_sinfo(const tvm_relax__infer_ctx* ctx, tvm_relax_op_id fwd,
                                          int32_t first, tvm_relax__infer_fn infer) {
  const tvm_relax_op_info* info = tvm_relax_op_info_get(fwd);
  int32_t n = ctx->num_args - first;
  TVMFFIAny items[4];
  for (int32_t i = 0; i < n && i < 4; ++i) items[i] = *tvm_ffi_seq_at(ctx->args, first + i);
  void* args = tvm_ffi_array_new(items, n);
  if (!args) return NULL;
  tvm_relax__infer_ctx sub = {info, args, n, ctx->attrs, ctx->sinfo_args, NULL};
  tvm_relax_sinfo_obj* out = infer(&sub);
  tvm_ffi_release(args);
  if (out) return out;
  void* e = tvm_ffi_error_take();
  if (!e) return NULL;
  const char* msg = tvm_ffi_error_message(e);
  size_t len = strlen(info->name);
  if (strncmp(msg, info->name, len) == 0) msg += len;
  tvm_ffi_raise(tvm_ffi_error_kind(e), "%s%s", ctx->op->name, msg);
  tvm_ffi_release(e);
  return NULL;
}

/* ---- nll_loss_backward ----------------------------------------------------------------------- */
/* output_grad (argument 0) must broadcast to the shape of targets (argument 2) where provable:
 * no more dims, and each (aligned on the right) 1 or not provably unequal to targets'. */
static bool grad_broadcasts(const tvm_relax__infer_ctx* ctx, const tvm_relax_tensor_sinfo_obj* g) {
  const tvm_relax_tensor_sinfo_obj* t = tvm_relax__arg_tensor(ctx, 2);
  if (!t || g->ndim == TVM_RELAX_UNKNOWN_NDIM || t->ndim == TVM_RELAX_UNKNOWN_NDIM) return true;
  if (g->ndim > t->ndim) {
    tvm_relax__arg_error(ctx, 0, "ValueError",
                         "must broadcast to the shape of 'targets' (ndim %d), got ndim %d",
                         t->ndim, g->ndim);
    return false;
  }
  void* gd = tvm_relax_tensor_sinfo_dims(&g->base);
  void* td = tvm_relax_tensor_sinfo_dims(&t->base);
  for (int64_t i = 0; gd && td && i < g->ndim; ++i) {
    tvm_tir_expr_obj* a = tvm_ffi_seq_obj_at(gd, i);
    tvm_tir_expr_obj* b = tvm_ffi_seq_obj_at(td, t->ndim - g->ndim + i);
    int64_t one;
    if ((tvm_tir_as_const_int(a, &one) && one == 1) || !tvm_relax__dim_unequal(a, b)) continue;
    tvm_ffi_strbuf x = {0}, y = {0};
    tvm_relax__dim_text(&x, a);
    tvm_relax__dim_text(&y, b);
    tvm_relax__arg_error(ctx, 0, "ValueError",
                         "dim %lld is %s, which does not broadcast to %s of 'targets'",
                         (long long)i, tvm_ffi_strbuf_cstr(&x), tvm_ffi_strbuf_cstr(&y));
    tvm_ffi_strbuf_free(&x);
    tvm_ffi_strbuf_free(&y);
    return false;
  }
  return true;
}

/* (output_grad, predictions, targets, weights?): predictions, targets and weights as nll_loss
 * checks them. output_grad: of nll_loss's result for reduction "none"; for "sum" / "mean" any
 * shape that broadcasts to targets' (upstream's kernel broadcasts it: the scalar of the loss, or
 * a gradient per target). The result is predictions' struct info. */
tvm_relax_sinfo_obj* tvm_relax__infer_nll_loss_backward(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* g = tvm_relax__arg_tensor(ctx, 0);
  if (!g) return NULL;
  tvm_relax_sinfo_obj* fwd =
      forward_sinfo(ctx, TVM_RELAX_OP_nn_nll_loss, 1, tvm_relax__infer_nll_loss);
  if (!fwd) return NULL;
  tvm_relax_tensor_sinfo_obj* p = tvm_relax__arg_tensor(ctx, 1);
  const char* reduction = tvm_relax__attr_str(ctx, "reduction");
  bool none = reduction && strcmp(reduction, "none") == 0;
  bool ok = p && tvm_relax__same_dtype(ctx, 0, g, 1, p) &&
            (none ? grad_matches(ctx, g, fwd, "nll_loss's result") : grad_broadcasts(ctx, g));
  tvm_ffi_release(fwd);
  return ok ? retained_sinfo(&p->base) : NULL;
}

/* ---- max_pool2d_backward / avg_pool2d_backward ----------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax__infer_pool2d_backward(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* g = tvm_relax__arg_tensor(ctx, 0);
  if (!g) return NULL;
  bool is_max = ctx->op->id == TVM_RELAX_OP_grad_max_pool2d_backward;
  tvm_relax_sinfo_obj* fwd =
      forward_sinfo(ctx, is_max ? TVM_RELAX_OP_nn_max_pool2d : TVM_RELAX_OP_nn_avg_pool2d, 1,
                    tvm_relax__infer_pool2d);
  if (!fwd) return NULL;
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 1);
  bool ok = x && tvm_relax__same_dtype(ctx, 0, g, 1, x) &&
            grad_matches(ctx, g, fwd, is_max ? "max_pool2d's result" : "avg_pool2d's result");
  if (ok && !tvm_relax_dtype_is_unknown(x->dtype) && !is_float(x->dtype)) {
    tvm_relax__arg_error(ctx, 1, "TypeError", "must be a float tensor, got dtype %s",
                         tvm_tir_dtype_str(x->dtype).s);
    ok = false;
  }
  tvm_ffi_release(fwd);
  return ok ? retained_sinfo(&x->base) : NULL;
}

/* ---- take_backward --------------------------------------------------------------------------- */
/* (output_grad, x, indices): indices an integer tensor of ndim <= 1 (the kernel's form, as
 * upstream's), output_grad of take's result. The result is x's struct info. */
tvm_relax_sinfo_obj* tvm_relax__infer_take_backward(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* g = tvm_relax__arg_tensor(ctx, 0);
  tvm_relax_tensor_sinfo_obj* x = g ? tvm_relax__arg_tensor(ctx, 1) : NULL;
  tvm_relax_tensor_sinfo_obj* idx = x ? tvm_relax__arg_tensor(ctx, 2) : NULL;
  if (!idx || !tvm_relax__same_dtype(ctx, 0, g, 1, x)) return NULL;
  if (!tvm_relax_dtype_is_unknown(idx->dtype) && idx->dtype.code != kDLInt &&
      idx->dtype.code != kDLUInt) {
    return tvm_relax__arg_error(ctx, 2, "TypeError", "must be an integer tensor, got dtype %s",
                                tvm_tir_dtype_str(idx->dtype).s);
  }
  if (idx->ndim != TVM_RELAX_UNKNOWN_NDIM && idx->ndim > 1) {
    return tvm_relax__arg_error(ctx, 2, "ValueError", "must have ndim 0 or 1, got %d", idx->ndim);
  }
  if (tvm_relax__attr_is_none(ctx, "axis") && x->ndim != TVM_RELAX_UNKNOWN_NDIM && x->ndim != 1) {
    return tvm_relax__arg_error(ctx, 1, "ValueError",
                                "must be 1-d when attribute 'axis' is None, got ndim %d", x->ndim);
  }
  tvm_relax_sinfo_obj* fwd = NULL;
  if (!tvm_relax__attr_is_none(ctx, "axis")) {
    /* take's own rule (with its default mode) for the forward result */
    void* attrs = NULL;
    TVMFFIAny k = tvm_ffi_string("axis");
    void* given = tvm_ffi_map_new(&k, tvm_relax__attr(ctx, "axis"), 1);
    tvm_ffi_any_release(&k);
    const tvm_relax_op_info* take = tvm_relax_op_info_get(TVM_RELAX_OP_take);
    if (!given || tvm_relax__complete_attrs(take, given, &attrs) != 0) {
      tvm_ffi_release(given);
      return NULL;
    }
    tvm_ffi_release(given);
    tvm_relax__infer_ctx sub = *ctx;
    sub.attrs = attrs;
    fwd = forward_sinfo(&sub, TVM_RELAX_OP_take, 1, tvm_relax__infer_take);
    tvm_ffi_release(attrs);
    if (!fwd) return NULL;
  }
  bool ok = !fwd || grad_matches(ctx, g, fwd, "take's result");
  tvm_ffi_release(fwd);
  return ok ? retained_sinfo(&x->base) : NULL;
}
