/*
 * legalize.c: LegalizeOps, and the helpers that operator kernels are built with.
 *
 * The pass rewrites each binding `v = R.<op>(args)` whose operator has a legalization (the table
 * below, one entry per operator, filled by the legalize_<family>.c files) into
 * `v = R.call_tir(cls.<kernel>, (tensor args), out_sinfo=<v's struct info>)` and adds the kernel
 * to the module. Functions nested in bindings and If branches are rewritten too. The struct info
 * of a rewritten binding is unchanged, so no variable needs remapping, except after a call of
 * data-dependent shape (legalize_dynamic below), whose variable is replaced by one of the
 * kernel's precise struct info.
 */
#include <stdio.h>
#include <string.h>

#include <tvm/relax/analysis.h>
#include <tvm/tir/builder.h>

#include "internal.h"

static const tvm_relax__legalize_fn k_legalize[TVM_RELAX_OP_COUNT] = {
#define ELEMWISE(Id) [TVM_RELAX_OP_##Id] = tvm_relax__legalize_elementwise,
    ELEMWISE(abs) ELEMWISE(negative) ELEMWISE(exp) ELEMWISE(log) ELEMWISE(sqrt) ELEMWISE(rsqrt)
    ELEMWISE(tanh) ELEMWISE(sigmoid) ELEMWISE(erf) ELEMWISE(sin) ELEMWISE(cos) ELEMWISE(floor)
    ELEMWISE(ceil) ELEMWISE(round) ELEMWISE(sign) ELEMWISE(square) ELEMWISE(logical_not)
    ELEMWISE(isnan) ELEMWISE(isinf) ELEMWISE(clip) ELEMWISE(astype) ELEMWISE(wrap_param) ELEMWISE(add)
    ELEMWISE(subtract) ELEMWISE(multiply) ELEMWISE(divide) ELEMWISE(floor_divide) ELEMWISE(power)
    ELEMWISE(maximum) ELEMWISE(minimum) ELEMWISE(mod) ELEMWISE(floor_mod) ELEMWISE(equal)
    ELEMWISE(not_equal) ELEMWISE(less) ELEMWISE(less_equal) ELEMWISE(greater)
    ELEMWISE(greater_equal) ELEMWISE(logical_and) ELEMWISE(logical_or) ELEMWISE(where)
    ELEMWISE(ewise_fma) ELEMWISE(logical_xor) ELEMWISE(bitwise_and) ELEMWISE(bitwise_or)
    ELEMWISE(bitwise_xor) ELEMWISE(left_shift) ELEMWISE(right_shift) ELEMWISE(log_add_exp)
    ELEMWISE(nn_relu) ELEMWISE(nn_relu6) ELEMWISE(nn_gelu) ELEMWISE(nn_gelu_tanh) ELEMWISE(nn_silu)
    ELEMWISE(tan) ELEMWISE(sinh) ELEMWISE(cosh) ELEMWISE(asin) ELEMWISE(acos) ELEMWISE(atan)
    ELEMWISE(asinh) ELEMWISE(acosh) ELEMWISE(atanh) ELEMWISE(trunc) ELEMWISE(isfinite)
    ELEMWISE(bitwise_not)
#undef ELEMWISE
    [TVM_RELAX_OP_matmul] = tvm_relax__legalize_matmul,
    [TVM_RELAX_OP_outer] = tvm_relax__legalize_outer,
    [TVM_RELAX_OP_nn_pixel_shuffle] = tvm_relax__legalize_pixel_shuffle,
    [TVM_RELAX_OP_nn_softmax] = tvm_relax__legalize_softmax,
    [TVM_RELAX_OP_nn_log_softmax] = tvm_relax__legalize_softmax,
    [TVM_RELAX_OP_nn_layer_norm] = tvm_relax__legalize_norm,
    [TVM_RELAX_OP_nn_rms_norm] = tvm_relax__legalize_norm,
    [TVM_RELAX_OP_sum] = tvm_relax__legalize_reduce,
    [TVM_RELAX_OP_mean] = tvm_relax__legalize_reduce,
    [TVM_RELAX_OP_max] = tvm_relax__legalize_reduce,
    [TVM_RELAX_OP_min] = tvm_relax__legalize_reduce,
    [TVM_RELAX_OP_prod] = tvm_relax__legalize_reduce,
    [TVM_RELAX_OP_argmax] = tvm_relax__legalize_reduce,
    [TVM_RELAX_OP_argmin] = tvm_relax__legalize_reduce,
    [TVM_RELAX_OP_variance] = tvm_relax__legalize_variance,
    [TVM_RELAX_OP_std] = tvm_relax__legalize_variance,
    [TVM_RELAX_OP_cumsum] = tvm_relax__legalize_scan,
    [TVM_RELAX_OP_cumprod] = tvm_relax__legalize_scan,
    [TVM_RELAX_OP_bucketize] = tvm_relax__legalize_bucketize,
    [TVM_RELAX_OP_multinomial_from_uniform] = tvm_relax__legalize_multinomial,
    [TVM_RELAX_OP_collapse_sum_like] = tvm_relax__legalize_collapse_sum,
    [TVM_RELAX_OP_collapse_sum_to] = tvm_relax__legalize_collapse_sum,
    [TVM_RELAX_OP_reshape] = tvm_relax__legalize_reshape,
    [TVM_RELAX_OP_flatten] = tvm_relax__legalize_reshape,
    [TVM_RELAX_OP_nn_batch_flatten] = tvm_relax__legalize_reshape,
    [TVM_RELAX_OP_squeeze] = tvm_relax__legalize_reshape,
    [TVM_RELAX_OP_expand_dims] = tvm_relax__legalize_reshape,
    [TVM_RELAX_OP_permute_dims] = tvm_relax__legalize_permute_dims,
    [TVM_RELAX_OP_broadcast_to] = tvm_relax__legalize_broadcast_to,
    [TVM_RELAX_OP_concat] = tvm_relax__legalize_concat,
    [TVM_RELAX_OP_stack] = tvm_relax__legalize_stack,
    [TVM_RELAX_OP_split] = tvm_relax__legalize_split,
    [TVM_RELAX_OP_strided_slice] = tvm_relax__legalize_strided_slice,
    [TVM_RELAX_OP_take] = tvm_relax__legalize_take,
    [TVM_RELAX_OP_tile] = tvm_relax__legalize_tile,
    [TVM_RELAX_OP_repeat] = tvm_relax__legalize_repeat,
    [TVM_RELAX_OP_flip] = tvm_relax__legalize_flip,
    [TVM_RELAX_OP_layout_transform] = tvm_relax__legalize_layout_transform,
    [TVM_RELAX_OP_meshgrid] = tvm_relax__legalize_meshgrid,
    [TVM_RELAX_OP_zeros] = tvm_relax__legalize_fill,
    [TVM_RELAX_OP_ones] = tvm_relax__legalize_fill,
    [TVM_RELAX_OP_full] = tvm_relax__legalize_fill,
    [TVM_RELAX_OP_zeros_like] = tvm_relax__legalize_fill,
    [TVM_RELAX_OP_ones_like] = tvm_relax__legalize_fill,
    [TVM_RELAX_OP_full_like] = tvm_relax__legalize_fill,
    [TVM_RELAX_OP_arange] = tvm_relax__legalize_arange,
    [TVM_RELAX_OP_tril] = tvm_relax__legalize_tri,
    [TVM_RELAX_OP_triu] = tvm_relax__legalize_tri,
    [TVM_RELAX_OP_eye] = tvm_relax__legalize_eye,
    [TVM_RELAX_OP_hamming_window] = tvm_relax__legalize_hamming_window,
    [TVM_RELAX_OP_eye_like] = tvm_relax__legalize_eye,
    [TVM_RELAX_OP_nn_conv1d] = tvm_relax__legalize_conv,
    [TVM_RELAX_OP_nn_conv2d] = tvm_relax__legalize_conv,
    [TVM_RELAX_OP_nn_conv2d_transpose] = tvm_relax__legalize_conv_transpose,
    [TVM_RELAX_OP_nn_attention] = tvm_relax__legalize_attention,
    [TVM_RELAX_OP_nn_attention_var_len] = tvm_relax__legalize_attention_var_len,
    [TVM_RELAX_OP_nn_max_pool2d] = tvm_relax__legalize_pool,
    [TVM_RELAX_OP_nn_avg_pool2d] = tvm_relax__legalize_pool,
    [TVM_RELAX_OP_nn_adaptive_avg_pool2d] = tvm_relax__legalize_adaptive_pool,
    [TVM_RELAX_OP_nn_pad] = tvm_relax__legalize_pad,
    [TVM_RELAX_OP_nn_batch_norm] = tvm_relax__legalize_batch_norm,
    [TVM_RELAX_OP_nn_dropout] = tvm_relax__legalize_dropout,
    [TVM_RELAX_OP_image_resize2d] = tvm_relax__legalize_resize2d,
    [TVM_RELAX_OP_image_grid_sample] = tvm_relax__legalize_grid_sample,
    [TVM_RELAX_OP_quantize] = tvm_relax__legalize_quantize,
    [TVM_RELAX_OP_dequantize] = tvm_relax__legalize_dequantize,
    [TVM_RELAX_OP_atan2] = tvm_relax__legalize_elementwise,
    [TVM_RELAX_OP_nn_leakyrelu] = tvm_relax__legalize_elementwise,
    [TVM_RELAX_OP_nn_softplus] = tvm_relax__legalize_elementwise,
    [TVM_RELAX_OP_nn_selu] = tvm_relax__legalize_elementwise,
    [TVM_RELAX_OP_nn_prelu] = tvm_relax__legalize_prelu,
    [TVM_RELAX_OP_nn_group_norm] = tvm_relax__legalize_group_norm,
    [TVM_RELAX_OP_nn_instance_norm] = tvm_relax__legalize_instance_norm,
    [TVM_RELAX_OP_nn_nll_loss] = tvm_relax__legalize_nll_loss,
    [TVM_RELAX_OP_nn_cross_entropy_with_logits] = tvm_relax__legalize_cross_entropy,
    [TVM_RELAX_OP_nn_conv3d] = tvm_relax__legalize_conv,
    [TVM_RELAX_OP_nn_conv1d_transpose] = tvm_relax__legalize_conv_transpose,
    [TVM_RELAX_OP_nn_max_pool3d] = tvm_relax__legalize_pool,
    [TVM_RELAX_OP_nn_max_pool1d] = tvm_relax__legalize_pool,
    [TVM_RELAX_OP_nn_avg_pool1d] = tvm_relax__legalize_pool,
    [TVM_RELAX_OP_nn_adaptive_avg_pool1d] = tvm_relax__legalize_adaptive_pool,
    [TVM_RELAX_OP_nn_adaptive_avg_pool3d] = tvm_relax__legalize_adaptive_pool,
    [TVM_RELAX_OP_nn_avg_pool3d] = tvm_relax__legalize_pool,
    [TVM_RELAX_OP_gather_elements] = tvm_relax__legalize_gather_elements,
    [TVM_RELAX_OP_gather_nd] = tvm_relax__legalize_gather_nd,
    [TVM_RELAX_OP_scatter_elements] = tvm_relax__legalize_scatter_elements,
    [TVM_RELAX_OP_scatter_nd] = tvm_relax__legalize_scatter_nd,
    [TVM_RELAX_OP_index_put] = tvm_relax__legalize_index_put,
    [TVM_RELAX_OP_index_tensor] = tvm_relax__legalize_index_tensor,
    [TVM_RELAX_OP_slice_scatter] = tvm_relax__legalize_slice_scatter,
    [TVM_RELAX_OP_one_hot] = tvm_relax__legalize_one_hot,
    [TVM_RELAX_OP_argsort] = tvm_relax__legalize_sort,
    [TVM_RELAX_OP_sort] = tvm_relax__legalize_sort,
    [TVM_RELAX_OP_topk] = tvm_relax__legalize_sort,
    [TVM_RELAX_OP_einsum] = tvm_relax__legalize_einsum,
    [TVM_RELAX_OP_nn_conv3d_transpose] = tvm_relax__legalize_conv_transpose,
    [TVM_RELAX_OP_image_resize3d] = tvm_relax__legalize_resize2d,
    [TVM_RELAX_OP_image_affine_grid] = tvm_relax__legalize_affine_grid,
    [TVM_RELAX_OP_vision_roi_align] = tvm_relax__legalize_roi_align,
    [TVM_RELAX_OP_vision_roi_pool] = tvm_relax__legalize_roi_pool,
    [TVM_RELAX_OP_vision_get_valid_counts] = tvm_relax__legalize_get_valid_counts,
    [TVM_RELAX_OP_vision_non_max_suppression] = tvm_relax__legalize_nms,
    [TVM_RELAX_OP_vision_all_class_non_max_suppression] = tvm_relax__legalize_all_class_nms,
    [TVM_RELAX_OP_vision_multibox_transform_loc] = tvm_relax__legalize_multibox_transform_loc,
    [TVM_RELAX_OP_median] = tvm_relax__legalize_median,
    [TVM_RELAX_OP_unique] = tvm_relax__legalize_unique,
    [TVM_RELAX_OP_grad_nll_loss_backward] = tvm_relax__legalize_nll_loss_backward,
    [TVM_RELAX_OP_grad_max_pool2d_backward] = tvm_relax__legalize_pool2d_backward,
    [TVM_RELAX_OP_grad_avg_pool2d_backward] = tvm_relax__legalize_pool2d_backward,
    [TVM_RELAX_OP_grad_take_backward] = tvm_relax__legalize_take_backward,
#define INSPECT(Id) [TVM_RELAX_OP_inspect_tensor_##Id] = tvm_relax__legalize_inspect,
    INSPECT(dtype_code) INSPECT(dtype_bits) INSPECT(dtype_lanes) INSPECT(ndim) INSPECT(shape_i)
    INSPECT(stride_i) INSPECT(byte_offset) INSPECT(elem_offset)
#undef INSPECT
};

bool tvm_relax_op_has_legalization(int32_t id) {
  return id >= 0 && id < TVM_RELAX_OP_COUNT && k_legalize[id] != NULL;
}

tvm_relax__legalize_fn tvm_relax__legalization(int32_t id) {
  return tvm_relax_op_has_legalization(id) ? k_legalize[id] : NULL;
}

/* ---- Kernel helpers -------------------------------------------------------------------------- */
/* The kernel variable standing for composite dim e (one per structurally distinct e), for a
 * dim whose variables some bare dim does not give (see tvm_relax__kernel). */
static tvm_tir_expr_obj* composite_dim(tvm_relax__kernel* k, tvm_tir_expr_obj* e, void* vars) {
  TVMFFIAny ev = tvm_ffi_any_obj(e);
  int64_t n = tvm_ffi_seq_size(k->dims);
  for (int64_t i = 0; i + 1 < n; i += 2) {
    if (tvm_ffi_structural_equal(&ev, tvm_ffi_seq_at(k->dims, i), false, NULL, NULL) == 1) {
      void* v = tvm_ffi_seq_obj_at(k->dims, i + 1);
      tvm_ffi_retain(v);
      return v;
    }
  }
  char name[64];
  snprintf(name, sizeof(name), "%s_dim%lld", tvm_tir_var_name(tvm_ffi_seq_obj_at(vars, 0)),
           (long long)(n / 2));
  tvm_tir_var_obj* v = tvm_tir_var_new(name, tvm_tir_expr_dtype(e));
  TVMFFIAny vv = tvm_ffi_any_obj(v);
  if (!v || tvm_ffi_list_push(k->dims, &ev) != 0 || tvm_ffi_list_push(k->dims, &vv) != 0) {
    tvm_ffi_release(v);
    return NULL;
  }
  return (tvm_tir_expr_obj*)v;
}

/* e with the call's TIR variables replaced by the kernel's own (made on first sight). */
static tvm_tir_expr_obj* kernel_dim(tvm_relax__kernel* k, tvm_tir_expr_obj* e) {
  void* vars = tvm_ffi_list_new();
  void* seen = tvm_ffi_dict_new();
  bool ok = vars && seen && tvm_relax__expr_tir_vars(e, vars, seen) == 0;
  bool unbound = false;
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(vars); ++i) {
    unbound |= tvm_ffi_map_get(k->bound, tvm_ffi_seq_at(vars, i)) == NULL;
  }
  if (ok && unbound && !tvm_tir_is_var(e)) {
    tvm_tir_expr_obj* d = composite_dim(k, e, vars);
    tvm_ffi_release(vars);
    tvm_ffi_release(seen);
    return d;
  }
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(vars); ++i) {
    const TVMFFIAny* v = tvm_ffi_seq_at(vars, i);
    if (tvm_ffi_map_get(k->vmap, v)) continue;
    tvm_tir_var_obj* kv = tvm_tir_var_new(tvm_tir_var_name((const tvm_tir_var_obj*)v->v_obj), tvm_tir_expr_dtype(v->v_obj));
    TVMFFIAny val = tvm_ffi_any_obj(kv);
    ok = kv && tvm_ffi_dict_set(k->vmap, v, &val) == 0;
    tvm_ffi_release(kv);
  }
  tvm_ffi_release(vars);
  tvm_ffi_release(seen);
  if (!ok) return NULL;
  /* Reuse the struct info substitution on a one-dim shape. */
  TVMFFIAny item = tvm_ffi_any_obj(e);
  void* arr = tvm_ffi_array_new(&item, 1);
  tvm_relax_sinfo_obj* s = arr ? tvm_relax_shape_sinfo_new(arr, 1) : NULL;
  tvm_ffi_release(arr);
  tvm_relax_sinfo_obj* t = s ? tvm_relax_sinfo_substitute(s, k->vmap) : NULL;
  tvm_ffi_release(s);
  if (!t) return NULL;
  tvm_tir_expr_obj* out = tvm_ffi_seq_obj_at(((tvm_relax_shape_sinfo_obj*)t)->values, 0);
  tvm_ffi_retain(out);
  tvm_ffi_release(t);
  return out;
}

tvm_tir_buffer_obj* tvm_relax__kernel_buffer(tvm_relax__kernel* k, const char* name,
                                             const tvm_relax_sinfo_obj* sinfo) {
  if (tvm_relax_kind_of(sinfo) != TVM_RELAX_KIND_TensorStructInfo) {
    tvm_ffi_raise("ValueError", "legalize: %s is not a tensor", name);
    return NULL;
  }
  const tvm_relax_tensor_sinfo_obj* t = (const void*)sinfo;
  void* dims = tvm_relax_tensor_sinfo_dims(sinfo);
  if (!dims || tvm_relax_dtype_is_unknown(t->dtype)) {
    tvm_ffi_raise("ValueError", "legalize: the shape and dtype of %s must be known", name);
    return NULL;
  }
  int64_t n = tvm_ffi_seq_size(dims);
  void* shape[16];
  if (n > 16) {
    tvm_ffi_raise("ValueError", "legalize: %s has more than 16 dims", name);
    return NULL;
  }
  int64_t i = 0;
  for (; i < n; ++i) {
    if (!(shape[i] = kernel_dim(k, tvm_ffi_seq_obj_at(dims, i)))) break;
  }
  if (i < n) {
    for (int64_t j = 0; j < i; ++j) tvm_ffi_release(shape[j]);
    return NULL;
  }
  tvm_tir_buffer_obj* b = tvm_tir_buffer_decl_takev(name, t->dtype, n, shape, NULL);
  TVMFFIAny item = tvm_ffi_any_obj(b);
  if (b && tvm_ffi_list_push(k->params, &item) != 0) {
    tvm_ffi_release(b);
    return NULL;
  }
  return b;
}

tvm_tir_expr_obj* tvm_relax__kernel_scalar(tvm_relax__kernel* k, tvm_tir_expr_obj* e) {
  void* vars = tvm_ffi_list_new();
  void* seen = tvm_ffi_dict_new();
  bool ok = vars && seen && tvm_relax__expr_tir_vars(e, vars, seen) == 0;
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(vars); ++i) {
    const TVMFFIAny* v = tvm_ffi_seq_at(vars, i);
    if (tvm_ffi_map_get(k->vmap, v)) continue;
    /* Not given by a buffer of the kernel: a scalar parameter of its own. */
    tvm_tir_var_obj* kv = tvm_tir_var_new(tvm_tir_var_name((const tvm_tir_var_obj*)v->v_obj),
                                          tvm_tir_expr_dtype(v->v_obj));
    TVMFFIAny val = tvm_ffi_any_obj(kv);
    ok = kv && tvm_ffi_dict_set(k->vmap, v, &val) == 0 && tvm_ffi_list_push(k->scalars, v) == 0 &&
         tvm_ffi_list_push(k->scalars, &val) == 0;
    tvm_ffi_release(kv);
  }
  tvm_ffi_release(vars);
  tvm_ffi_release(seen);
  return ok ? tvm_relax__subst_expr(k->vmap, e) : NULL;
}

void* tvm_relax__kernel_scalar_args(const tvm_relax__kernel* k) {
  int64_t n = tvm_ffi_seq_size(k->scalars) / 2;
  if (n == 0) return NULL;
  TVMFFIAny items[64];
  if (n > 64) {
    tvm_ffi_raise("ValueError", "legalize: a kernel with more than 64 scalar parameters");
    return NULL;
  }
  for (int64_t i = 0; i < n; ++i) items[i] = *tvm_ffi_seq_at(k->scalars, 2 * i);
  return tvm_ffi_array_new(items, n);
}

tvm_tir_prim_func_obj* tvm_relax__kernel_finish(tvm_relax__kernel* k, void* body) {
  bool ok = true;
  for (int64_t i = 1; body && ok && i < tvm_ffi_seq_size(k->scalars); i += 2) {
    ok = tvm_ffi_list_push(k->params, tvm_ffi_seq_at(k->scalars, i)) == 0;
  }
  void* params = body && ok ? tvm_ffi_list_to_array(k->params) : NULL;
  if (!params) {
    tvm_ffi_release(body);
    return NULL;
  }
  tvm_ffi_retain(params); /* tvm_tir_func_take consumes one reference */
  tvm_tir_prim_func_obj* f = tvm_tir_func_take(NULL, params, body);
  tvm_ffi_release(params);
  return f;
}

/* Mark the variables that are bare dims of tensor struct info s (or of a tuple's fields). */
static int mark_bound(tvm_relax__kernel* k, const tvm_relax_sinfo_obj* s) {
  if (tvm_relax_kind_of(s) == TVM_RELAX_KIND_TupleStructInfo) {
    void* f = ((const tvm_relax_tuple_sinfo_obj*)s)->fields;
    for (int64_t i = 0; i < tvm_ffi_seq_size(f); ++i) {
      if (mark_bound(k, tvm_ffi_seq_obj_at(f, i)) != 0) return -1;
    }
    return 0;
  }
  void* dims = tvm_relax_tensor_sinfo_dims(s);
  TVMFFIAny none = tvm_ffi_any_none();
  for (int64_t i = 0; dims && i < tvm_ffi_seq_size(dims); ++i) {
    if (tvm_tir_is_var(tvm_ffi_seq_obj_at(dims, i)) && tvm_ffi_dict_set(k->bound, tvm_ffi_seq_at(dims, i), &none) != 0) {
      return -1;
    }
  }
  return 0;
}

int tvm_relax__kernel_init(tvm_relax__kernel* k, const tvm_relax_call_obj* call) {
  k->vmap = tvm_ffi_dict_new();
  k->params = tvm_ffi_list_new();
  k->bound = tvm_ffi_dict_new();
  k->dims = tvm_ffi_list_new();
  k->scalars = tvm_ffi_list_new();
  void* inputs = tvm_ffi_list_new();
  int rc = k->vmap && k->params && k->bound && k->dims && k->scalars && inputs ? 0 : -1;
  if (rc == 0 && call) rc = tvm_relax__kernel_inputs(call, inputs);
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(inputs); ++i) {
    rc = mark_bound(k, tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(inputs, i)));
  }
  if (rc == 0 && call) rc = mark_bound(k, tvm_relax_sinfo_of(call));
  tvm_ffi_release(inputs);
  if (rc != 0) tvm_relax__kernel_free(k);
  return rc;
}

void tvm_relax__kernel_free(tvm_relax__kernel* k) {
  tvm_ffi_release(k->vmap);
  tvm_ffi_release(k->params);
  tvm_ffi_release(k->bound);
  tvm_ffi_release(k->dims);
  tvm_ffi_release(k->scalars);
  k->vmap = k->params = k->bound = k->dims = k->scalars = NULL;
}

int tvm_relax__kernel_vars(void** out, int64_t n, const char* prefix) {
  for (int64_t i = 0; i < n; ++i) {
    char name[32];
    snprintf(name, sizeof(name), "%s%lld", prefix, (long long)i);
    if (!(out[i] = tvm_tir_var(name, TVM_TIR_INT64))) {
      tvm_relax__release_all(out, i);
      return -1;
    }
  }
  return 0;
}

void tvm_relax__release_all(void* const* objs, int64_t n) {
  for (int64_t i = 0; i < n; ++i) tvm_ffi_release(objs[i]);
}

void* tvm_relax__loop_nest(void* const* vars, void* const* extents, int64_t n, const bool* include,
                           void* body) {
  for (int64_t i = n - 1; i >= 0; --i) {
    if (include && !include[i]) continue;
    body = tvm_tir_serial_take(tvm_tir_ref(vars[i]), tvm_tir_i64(0), tvm_tir_ref(extents[i]), body);
  }
  return body;
}

tvm_tir_buffer_obj* tvm_relax__scratch(const char* name, DLDataType dtype) {
  return tvm_tir_buffer_declv(name, dtype, 1, (int64_t[]){1});
}

void* tvm_relax__scratch_scope(tvm_tir_buffer_obj* buf, void* body) {
  if (!buf) {
    tvm_ffi_release(body);
    return NULL;
  }
  return tvm_tir_allocate_takev(tvm_tir_ref(buf->data), buf->dtype, 1, (void*[]){tvm_tir_i64(1)},
                                tvm_tir_decl_buffer_take(tvm_tir_ref(buf), body));
}

void* tvm_relax__scratch_load(tvm_tir_buffer_obj* buf) {
  return tvm_tir_load_take(tvm_tir_ref(buf), tvm_tir_i64(0));
}

void* tvm_relax__scratch_store(tvm_tir_buffer_obj* buf, void* value) {
  return tvm_tir_store_take(tvm_tir_ref(buf), value, tvm_tir_i64(0));
}

/* ---- The pass -------------------------------------------------------------------------------- */
typedef struct {
  void* funcs;   /* ffi.Dict GlobalVar -> function: the module being built */
  void* names;   /* ffi.Dict name -> next numeric suffix, for the kernels' unique names */
  void* kernels; /* ffi.Dict structural hash -> ffi.List of the GlobalVars of kernels */
  void* pending; /* ffi.List of bindings to put before the binding being rewritten */
  bool dataflow; /* the block being rewritten is a dataflow block */
  bool changed;
  const char* func; /* the name of the module function being rewritten */
  /* After a call of data-dependent shape is legalized, its variable is replaced by one of the
   * kernel's precise struct info (dims bound by the match_cast) and later bindings are
   * rewritten through this mutator first, so their calls are inferred again and get a known
   * shape (upstream's ExprMutator re-emits bindings alike). */
  tvm_relax_mutator remap;
  bool remapping;
} pass_ctx;

/* The distributed dialect (R.dist.*, R.ccl.*, DTensor values) needs a distributed runtime
 * (upstream's Disco), which this project does not have: a NotImplementedError naming the
 * function, the binding and what in it is distributed. 0 when b is not distributed. */
static int refuse_distributed(pass_ctx* c, const tvm_relax_binding_obj* b) {
  tvm_relax_expr_obj* v = tvm_relax_binding_value(b);
  const char* what = NULL;
  if (tvm_relax_kind_of(v) == TVM_RELAX_KIND_Call) {
    const tvm_relax_call_obj* call = (const void*)v;
    const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
    if (info && (strncmp(info->name, "relax.dist.", 11) == 0 ||
                 strncmp(info->name, "relax.ccl.", 10) == 0)) {
      what = info->name;
    }
    for (int64_t i = 0; !what && i < tvm_ffi_seq_size(call->args); ++i) {
      const void* a = tvm_ffi_seq_obj_at(call->args, i);
      if (tvm_relax_is_expr(a) && tvm_relax_sinfo_of(a) &&
          tvm_relax_sinfo_has_dtensor(tvm_relax_sinfo_of(a))) {
        what = "a call on a DTensor";
      }
    }
  }
  if (!what && tvm_relax_sinfo_has_dtensor(tvm_relax_sinfo_of(v))) what = "a DTensor value";
  if (!what) return 0;
  tvm_ffi_raise("NotImplementedError",
                "function '%s', binding '%s': %s: distributed execution is not "
                "supported (this project has no distributed runtime such as upstream's Disco)",
                c->func ? c->func : "?", tvm_relax_var_name(b->var), what);
  return -1;
}

/* Bind a TupleGetItem the kernel's arguments need (a field of a tuple variable) to a new
 * variable, emitted before the current binding (A-normal form): the variable, or NULL. */
static tvm_relax_expr_obj* bind_item(pass_ctx* c, tvm_relax_expr_obj* item) {
  tvm_relax_var_obj* v = tvm_relax_var_new("lv_item", tvm_relax_sinfo_of(item), c->dataflow);
  tvm_relax_binding_obj* b = v ? tvm_relax_var_binding_new(v, item) : NULL;
  TVMFFIAny a = tvm_ffi_any_obj(b);
  if (!b || tvm_ffi_list_push(c->pending, &a) != 0) {
    tvm_ffi_release(b);
    tvm_ffi_release(v);
    return NULL;
  }
  tvm_ffi_release(b);
  return (tvm_relax_expr_obj*)v;
}

static tvm_relax_expr_obj* rewrite_expr(pass_ctx* c, tvm_relax_expr_obj* e);

/* Whether `name` is a function of the module being built (or made by this pass). */
static bool name_taken(pass_ctx* c, const char* name) {
  TVMFFIAny key = tvm_ffi_string(name);
  bool taken = tvm_ffi_map_get(c->names, &key) != NULL;
  tvm_ffi_any_release(&key);
  return taken;
}

/* A name for a kernel from the operator's: "add", "add1", ... (a counter per base name, so
 * naming n kernels of one operator is linear). */
static int kernel_name(pass_ctx* c, const char* hint, char* out, size_t size) {
  char base[128];
  snprintf(base, sizeof(base), "%s", hint);
  for (char* p = base; *p; ++p) {
    if (*p == '.') *p = '_';
  }
  TVMFFIAny key = tvm_ffi_string(base);
  const TVMFFIAny* next = tvm_ffi_map_get(c->names, &key);
  int64_t k = 0;
  if (next) tvm_ffi_any_as_int(next, &k);
  for (;; ++k) {
    if (k == 0) snprintf(out, size, "%s", base);
    else snprintf(out, size, "%s%lld", base, (long long)k);
    if (!name_taken(c, out)) break;
  }
  TVMFFIAny nk = tvm_ffi_any_int(k + 1), one = tvm_ffi_any_int(1);
  TVMFFIAny name = tvm_ffi_string(out);
  int rc = tvm_ffi_dict_set(c->names, &key, &nk);
  if (rc == 0 && k > 0) rc = tvm_ffi_dict_set(c->names, &name, &one);
  tvm_ffi_any_release(&key);
  tvm_ffi_any_release(&name);
  return rc;
}

/* The GlobalVar of a kernel equal to func (structurally) added earlier, else func added under a
 * new name. Identical kernels (an operator applied to tensors of one shape, many times) are
 * shared. */
static tvm_tir_global_var_obj* add_kernel(pass_ctx* c, const char* hint, void* func) {
  TVMFFIAny fv = tvm_ffi_any_obj(func);
  uint64_t h;
  if (tvm_ffi_structural_hash_checked(&fv, false, &h) != 0) return NULL;
  TVMFFIAny hkey = tvm_ffi_any_int((int64_t)h);
  /* c->kernels[hash] lists (GlobalVar, kernel as made, before naming) pairs. */
  const TVMFFIAny* same = tvm_ffi_map_get(c->kernels, &hkey);
  for (int64_t i = 0; same && i + 1 < tvm_ffi_seq_size(same->v_obj); i += 2) {
    if (tvm_ffi_structural_equal(&fv, tvm_ffi_seq_at(same->v_obj, i + 1), false, NULL, NULL) == 1) {
      void* gv = tvm_ffi_seq_obj_at(same->v_obj, i);
      tvm_ffi_retain(gv);
      return gv;
    }
  }
  char name[160];
  if (kernel_name(c, hint, name, sizeof(name)) != 0) return NULL;
  /* Private, as upstream's (no global_symbol): DeadCodeElimination removes the kernels no
   * longer called, and VMCodeGen compiles each under its GlobalVar's name. */
  tvm_tir_global_var_obj* gv = tvm_relax__prim_func_global_var(name, func);
  TVMFFIAny k = tvm_ffi_any_obj(gv), v = tvm_ffi_any_obj(func);
  int rc = gv ? tvm_ffi_dict_set(c->funcs, &k, &v) : -1;
  if (rc == 0 && !same) {
    void* list = tvm_ffi_list_new();
    TVMFFIAny lv = tvm_ffi_any_obj(list);
    rc = list ? tvm_ffi_dict_set(c->kernels, &hkey, &lv) : -1;
    tvm_ffi_release(list);
    same = rc == 0 ? tvm_ffi_map_get(c->kernels, &hkey) : NULL;
  }
  if (rc == 0) rc = tvm_ffi_list_push(same->v_obj, &k) == 0 && tvm_ffi_list_push(same->v_obj, &fv) == 0 ? 0 : -1;
  if (rc != 0) {
    tvm_ffi_release(gv);
    return NULL;
  }
  return gv;
}

/* Whether a call's struct info is one the kernels can write: a tensor of known shape, or a
 * tuple of such tensors (split, batch_norm, dropout). */
static bool known_output(const tvm_relax_sinfo_obj* out) {
  if (tvm_relax_kind_of(out) != TVM_RELAX_KIND_TupleStructInfo) {
    return tvm_relax_tensor_sinfo_dims(out) != NULL;
  }
  void* fields = ((const tvm_relax_tuple_sinfo_obj*)out)->fields;
  for (int64_t i = 0; i < tvm_ffi_seq_size(fields); ++i) {
    if (!tvm_relax_tensor_sinfo_dims(tvm_ffi_seq_obj_at(fields, i))) return false;
  }
  return tvm_ffi_seq_size(fields) > 0;
}

/* Whether call has a data-dependent shape, lowered by legalize_dynamic: nonzero,
 * dynamic_strided_slice, and unique unless its results are known (a 0-d x has one value). */
static bool is_dynamic(const tvm_relax_call_obj* call) {
  const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
  if (info && info->id == TVM_RELAX_OP_unique) return !known_output(tvm_relax_sinfo_of(call));
  return info && (info->id == TVM_RELAX_OP_nonzero ||
                  info->id == TVM_RELAX_OP_dynamic_strided_slice);
}

/* Whether e's struct info is a tuple whose fields are all tensors (concat's argument). */
static bool tensor_tuple(const tvm_relax_expr_obj* e) {
  tvm_relax_sinfo_obj* s = tvm_relax_sinfo_of(e);
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_TupleStructInfo) return false;
  void* fields = ((tvm_relax_tuple_sinfo_obj*)s)->fields;
  for (int64_t i = 0; i < tvm_ffi_seq_size(fields); ++i) {
    if (tvm_relax_kind_of(tvm_ffi_seq_obj_at(fields, i)) != TVM_RELAX_KIND_TensorStructInfo) {
      return false;
    }
  }
  return true;
}

int tvm_relax__kernel_inputs(const tvm_relax_call_obj* call, void* out) {
  for (int64_t i = 0; i < tvm_ffi_seq_size(call->args); ++i) {
    tvm_relax_expr_obj* a = tvm_ffi_seq_obj_at(call->args, i);
    if (tvm_relax_kind_of(tvm_relax_sinfo_of(a)) == TVM_RELAX_KIND_TensorStructInfo) {
      TVMFFIAny item = tvm_ffi_any_obj(a);
      if (tvm_ffi_list_push(out, &item) != 0) return -1;
      continue;
    }
    if (!tensor_tuple(a)) continue;
    /* A tuple of tensors: each field, taken from a Tuple literal or by TupleGetItem. */
    int64_t n = tvm_ffi_seq_size(((tvm_relax_tuple_sinfo_obj*)tvm_relax_sinfo_of(a))->fields);
    bool literal = tvm_relax_kind_of(a) == TVM_RELAX_KIND_Tuple;
    for (int64_t j = 0; j < n; ++j) {
      tvm_relax_expr_obj* f = literal ? tvm_ffi_seq_obj_at(((tvm_relax_tuple_obj*)a)->fields, j)
                                      : tvm_relax_tuple_get_item_new(a, j);
      if (!f) return -1;
      TVMFFIAny item = tvm_ffi_any_obj(f);
      int rc = tvm_ffi_list_push(out, &item);
      if (!literal) tvm_ffi_release(f);
      if (rc != 0) return -1;
    }
  }
  return 0;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_with(const tvm_relax_call_obj* call,
                                                tvm_relax__body_fn fn) {
  return tvm_relax__legalize_with_out(call, tvm_relax_sinfo_of(call), fn);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_with_out(const tvm_relax_call_obj* call,
                                                    const tvm_relax_sinfo_obj* os,
                                                    tvm_relax__body_fn fn) {
  enum { MAX_BUFS = 1024 };
  tvm_relax__kernel k;
  if (tvm_relax__kernel_init(&k, call) != 0) return NULL;
  if (os != tvm_relax_sinfo_of(call) && mark_bound(&k, os) != 0) {
    tvm_relax__kernel_free(&k);
    return NULL;
  }
  void* inputs = tvm_ffi_list_new();
  tvm_tir_buffer_obj* in[MAX_BUFS];
  tvm_tir_buffer_obj* out[MAX_BUFS];
  int nin = 0, nout = 0;
  bool ok = inputs && tvm_relax__kernel_inputs(call, inputs) == 0;
  int64_t n = ok ? tvm_ffi_seq_size(inputs) : 0;
  bool tuple = tvm_relax_kind_of(os) == TVM_RELAX_KIND_TupleStructInfo;
  int64_t m = tuple ? tvm_ffi_seq_size(((const tvm_relax_tuple_sinfo_obj*)os)->fields) : 1;
  if (ok && (n > MAX_BUFS || m > MAX_BUFS)) {
    tvm_ffi_raise("ValueError", "more than %d kernel inputs or outputs", MAX_BUFS);
    ok = false;
  }
  for (; ok && nin < n; ++nin) {
    char name[16];
    snprintf(name, sizeof(name), "A%d", nin);
    in[nin] = tvm_relax__kernel_buffer(&k, name, tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(inputs, nin)));
    if (!in[nin]) ok = false;
  }
  if (!ok && nin > 0 && !in[nin - 1]) --nin;
  for (; ok && nout < m; ++nout) {
    char name[16];
    snprintf(name, sizeof(name), "T_out%d", nout);
    const tvm_relax_sinfo_obj* s =
        tuple ? tvm_ffi_seq_obj_at(((const tvm_relax_tuple_sinfo_obj*)os)->fields, nout) : os;
    out[nout] = tvm_relax__kernel_buffer(&k, name, s);
    if (!out[nout]) ok = false;
  }
  if (!ok && nout > 0 && !out[nout - 1]) --nout;
  void* body = ok ? fn(call, in, nin, out, nout) : NULL;
  tvm_tir_prim_func_obj* f = body ? tvm_relax__kernel_finish(&k, body) : NULL;
  tvm_relax__release_all((void* const*)in, nin);
  tvm_relax__release_all((void* const*)out, nout);
  tvm_ffi_release(inputs);
  tvm_relax__kernel_free(&k);
  return f;
}

/* Whether operator id is a marker that is the identity at inference (upstream legalizes each
 * to its argument). */
static bool is_marker(int32_t id) {
  return id == TVM_RELAX_OP_grad_no_grad || id == TVM_RELAX_OP_grad_start_checkpoint ||
         id == TVM_RELAX_OP_grad_end_checkpoint || id == TVM_RELAX_OP_builtin_stop_lift_params;
}

/* call_tir_with_grad(f, args[, packed_ints]) without its gradient attributes: the call_tir. */
static tvm_relax_expr_obj* drop_grad(pass_ctx* c, tvm_relax_call_obj* call) {
  tvm_relax_expr_obj* r = tvm_relax_call_new(tvm_relax_op(TVM_RELAX_OP_call_tir), call->args, NULL,
                                             call->sinfo_args, call->expr.span);
  if (r) c->changed = true;
  return r;
}

/* call_tir(gv, (the call's tensor arguments), out_sinfo=[out][, tir_vars]): tir_vars (an
 * ffi.Array of the call's TIR variables, NULL: none) the kernel's scalar parameters, as
 * R.shape([...]). */
static tvm_relax_expr_obj* call_kernel(pass_ctx* c, tvm_relax_call_obj* call, tvm_tir_global_var_obj* gv,
                                       tvm_relax_sinfo_obj* out, void* tir_vars) {
  /* The kernel's inputs are the call's tensor arguments (and the fields of tensor tuples), in
   * order. */
  void* list = tvm_ffi_list_new();
  bool ok = list && tvm_relax__kernel_inputs(call, list) == 0;
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(list); ++i) {
    tvm_relax_expr_obj* e = tvm_ffi_seq_obj_at(list, i);
    if (tvm_relax_kind_of(e) != TVM_RELAX_KIND_TupleGetItem) continue;
    tvm_relax_expr_obj* v = bind_item(c, e);
    TVMFFIAny item = tvm_ffi_any_obj(v);
    ok = v && tvm_ffi_list_set(list, i, &item) == 0;
    tvm_ffi_release(v);
  }
  void* arr = ok ? tvm_ffi_list_to_array(list) : NULL;
  tvm_ffi_release(list);
  tvm_relax_expr_obj* tuple = arr ? tvm_relax_tuple_new(arr) : NULL;
  tvm_ffi_release(arr);
  tvm_relax_expr_obj* shape = tuple && tir_vars ? tvm_relax_shape_expr_new(tir_vars) : NULL;
  TVMFFIAny args[3] = {tvm_ffi_any_obj(gv), tvm_ffi_any_obj(tuple), tvm_ffi_any_obj(shape)};
  void* aarr = tuple && (shape || !tir_vars) ? tvm_ffi_array_new(args, shape ? 3 : 2) : NULL;
  tvm_ffi_release(shape);
  tvm_relax_expr_obj* r =
      tvm_relax__call_sinfo(tvm_relax_op(TVM_RELAX_OP_call_tir), aarr, out, call->expr.span);
  tvm_ffi_release(aarr);
  tvm_ffi_release(tuple);
  if (r) c->changed = true;
  return r;
}


/* Bind value to a new variable (named name, of value's struct info, or sinfo for a match_cast),
 * emitted before the current binding; the variable (new reference) or NULL. */
static tvm_relax_var_obj* emit_pending(pass_ctx* c, const char* name, tvm_relax_expr_obj* value,
                                       tvm_relax_sinfo_obj* cast) {
  tvm_relax_var_obj* v = value ? tvm_relax_var_new(name, cast ? cast : tvm_relax_sinfo_of(value), c->dataflow) : NULL;
  tvm_relax_binding_obj* b = !v ? NULL : cast ? tvm_relax_match_cast_new(v, value, cast)
                                               : tvm_relax_var_binding_new(v, value);
  TVMFFIAny a = tvm_ffi_any_obj(b);
  if (!b || tvm_ffi_list_push(c->pending, &a) != 0) {
    tvm_ffi_release(b);
    tvm_ffi_release(v);
    return NULL;
  }
  tvm_ffi_release(b);
  return v;
}

/* A call whose output shape depends on the data (dynamic_strided_slice, nonzero, unique),
 * lowered as upstream's dynamic_strided_slice: before the binding,
 *   shape_t = call_tir(<op>_shape, args, out_sinfo=R.Tensor((n,), "int64"))
 *   shape = R.tensor_to_shape(shape_t)
 *   shape_m = R.match_cast(shape, R.Shape([s0, ..., s<n-1>]))
 * and the call becomes call_tir(<op>, args, out_sinfo=R.Tensor((s0, ...), dtype)) (unique's
 * out_sinfo is a tuple when it returns more than the values: tvm_relax__dynamic_out_sinfo). */
static tvm_relax_expr_obj* legalize_dynamic(pass_ctx* c, tvm_relax_call_obj* call) {
  const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
  const char* op = info->name + strlen("relax.");
  int64_t n = tvm_relax__dynamic_shape_len(call);
  if (n < 0) return NULL;
  void* vars[16];
  char name[160];
  int64_t made = 0;
  for (; made < n; ++made) {
    const char* vname = info->id == TVM_RELAX_OP_unique                     ? "num_unique"
                        : info->id == TVM_RELAX_OP_nonzero && made == 1 ? "nnz"
                                                                        : "s";
    if (!(vars[made] = tvm_tir_var_new(vname, TVM_TIR_INT64))) {
      break;
    }
  }
  tvm_relax_sinfo_obj* shape_t_sinfo = made == n ? tvm_relax_tensor_sinfo_of_ints(&n, 1, TVM_TIR_INT64) : NULL;
  tvm_tir_prim_func_obj* k1 = shape_t_sinfo ? tvm_relax__legalize_dynamic_shape(call, shape_t_sinfo) : NULL;
  snprintf(name, sizeof(name), "%s_shape", op);
  tvm_tir_global_var_obj* gv1 = k1 ? add_kernel(c, name, k1) : NULL;
  tvm_ffi_release(k1);
  tvm_relax_expr_obj* shape_call = gv1 ? call_kernel(c, call, gv1, shape_t_sinfo, NULL) : NULL;
  tvm_ffi_release(gv1);
  tvm_relax_var_obj* shape_t = emit_pending(c, "lv_shape_t", shape_call, NULL);
  tvm_ffi_release(shape_call);
  tvm_relax_expr_obj* to_shape =
      shape_t ? tvm_relax_call_op("relax.tensor_to_shape", NULL, 1, shape_t) : NULL;
  tvm_relax_var_obj* shape = emit_pending(c, "lv_shape", to_shape, NULL);
  tvm_ffi_release(to_shape);
  /* nonzero's rows are max(ndim, 1), a constant the match checks. */
  void* dims[16];
  int64_t rows = 0;
  if (made != n) {
    /* a variable was not made: the error is raised */
  } else if (info->id == TVM_RELAX_OP_nonzero) {
    const tvm_relax_sinfo_obj* xs = tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(call->args, 0));
    rows = tvm_ffi_seq_size(tvm_relax_tensor_sinfo_dims(xs));
    dims[0] = tvm_tir_i64(rows ? rows : 1);
    dims[1] = tvm_tir_ref(vars[1]);
  } else {
    for (int64_t i = 0; i < n; ++i) dims[i] = tvm_tir_ref(vars[i]);
  }
  void* darr = made == n ? tvm_ffi_array_of_objects(dims, n) : NULL;
  tvm_relax__release_all(dims, made == n ? n : 0);
  tvm_relax_sinfo_obj* cast = darr && shape ? tvm_relax_shape_sinfo_new(darr, (int32_t)n) : NULL;
  tvm_relax_var_obj* shape_m = cast ? emit_pending(c, "lv_shape_m", (tvm_relax_expr_obj*)shape, cast) : NULL;
  tvm_relax_sinfo_obj* out = shape_m ? tvm_relax__dynamic_out_sinfo(call, darr) : NULL;
  tvm_tir_prim_func_obj* k2 = out ? tvm_relax__legalize_dynamic_value(call, out) : NULL;
  tvm_tir_global_var_obj* gv2 = k2 ? add_kernel(c, op, k2) : NULL;
  tvm_ffi_release(k2);
  tvm_relax_expr_obj* r = gv2 ? call_kernel(c, call, gv2, out, NULL) : NULL;
  if (!r) tvm_ffi_raise_context("%s", info->name);
  tvm_ffi_release(gv2), tvm_ffi_release(out), tvm_ffi_release(shape_m), tvm_ffi_release(cast);
  tvm_ffi_release(darr), tvm_ffi_release(shape), tvm_ffi_release(shape_t), tvm_ffi_release(shape_t_sinfo);
  tvm_relax__release_all(vars, made);
  return r;
}

/* A relax.inspect call (its value known only at run time): a direct call of its host PrimFunc
 * `_get_tensor_<field>(tensor[, axis])`, the call's R.Prim as sinfo_args (legalize_inspect.c). */
static tvm_relax_expr_obj* legalize_inspect(pass_ctx* c, tvm_relax_call_obj* call,
                                            const tvm_relax_op_info* info) {
  char hint[64];
  snprintf(hint, sizeof(hint), "_get_%s", info->name + strlen("relax.inspect."));
  tvm_tir_prim_func_obj* kernel = tvm_relax__legalize_inspect(call);
  tvm_tir_global_var_obj* gv = kernel ? add_kernel(c, hint, kernel) : NULL;
  tvm_ffi_release(kernel);
  tvm_relax_expr_obj* r =
      tvm_relax__call_sinfo(gv, call->args, tvm_relax_sinfo_of(call), call->expr.span);
  tvm_ffi_release(gv);
  if (r) c->changed = true;
  else tvm_ffi_raise_context("%s", info->name);
  return r;
}

static bool is_inspect(int32_t id) {
  return id >= TVM_RELAX_OP_inspect_tensor_dtype_code &&
         id <= TVM_RELAX_OP_inspect_tensor_elem_offset;
}

/* call_tir(kernel, (tensor args), out_sinfo) for an operator call, or the call itself. */
static tvm_relax_expr_obj* legalize_call(pass_ctx* c, tvm_relax_call_obj* call) {
  const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
  tvm_relax__legalize_fn fn = info ? k_legalize[info->id] : NULL;
  tvm_relax_sinfo_obj* out = tvm_relax_sinfo_of(call);
  if (info && is_marker(info->id)) {
    tvm_relax_expr_obj* x = tvm_ffi_seq_obj_at(call->args, 0);
    tvm_ffi_retain(x);
    c->changed = true;
    return x;
  }
  if (info && info->id == TVM_RELAX_OP_call_tir_with_grad) return drop_grad(c, call);
  if (is_dynamic(call)) return legalize_dynamic(c, call);
  if (info && is_inspect(info->id)) return legalize_inspect(c, call, info);
  if (!fn || !known_output(out)) {
    tvm_ffi_retain(call);
    return &call->expr;
  }
  /* strided_slice's kernel may take scalars (a symbolic begin): passed as tir_vars. */
  void* tir_vars = NULL;
  tvm_tir_prim_func_obj* kernel = info->id == TVM_RELAX_OP_strided_slice
                                      ? tvm_relax__legalize_strided_slice_vars(call, &tir_vars)
                                      : fn(call);
  if (!kernel) {
    tvm_ffi_raise_context("%s", info->name);
    return NULL;
  }
  tvm_tir_global_var_obj* gv = add_kernel(c, info->name + strlen("relax."), kernel);
  tvm_ffi_release(kernel);
  tvm_relax_expr_obj* r = gv ? call_kernel(c, call, gv, out, tir_vars) : NULL;
  tvm_ffi_release(gv);
  tvm_ffi_release(tir_vars);
  return r;
}

static tvm_relax_binding_obj* rewrite_binding(pass_ctx* c, tvm_relax_binding_obj* b) {
  if (refuse_distributed(c, b) != 0) return NULL;
  tvm_relax_expr_obj* v = tvm_relax_binding_value(b);
  tvm_relax_expr_obj* nv = rewrite_expr(c, v);
  if (!nv) return NULL;
  if (nv == v) {
    tvm_ffi_release(nv);
    tvm_ffi_retain(b);
    return b;
  }
  tvm_relax_var_obj* var = b->var;
  tvm_relax_var_obj* precise = NULL;
  if (tvm_relax_kind_of(v) == TVM_RELAX_KIND_Call && is_dynamic((tvm_relax_call_obj*)v) &&
      tvm_relax_kind_of(b) != TVM_RELAX_KIND_MatchCast) {
    precise = tvm_relax_var_new_str(((tvm_relax_var_obj*)var)->name_hint, tvm_relax_sinfo_of(nv),
                                    tvm_relax_kind_of(var) == TVM_RELAX_KIND_DataflowVar);
    if (!precise || tvm_relax_mutator_remap(&c->remap, var, precise) != 0) {
      tvm_ffi_release(precise);
      tvm_ffi_release(nv);
      return NULL;
    }
    c->remapping = true;
    var = precise;
  }
  tvm_relax_binding_obj* out =
      tvm_relax_kind_of(b) == TVM_RELAX_KIND_MatchCast
          ? tvm_relax_match_cast_new(var, nv, ((tvm_relax_match_cast_obj*)b)->struct_info)
          : tvm_relax_var_binding_new(var, nv);
  tvm_ffi_release(precise);
  tvm_ffi_release(nv);
  return out;
}


static void* block_fn(void* ctx, void* obj) {
  pass_ctx* c = ctx;
  tvm_relax_block_obj* blk = obj;
  bool dataflow = tvm_relax_kind_of(blk) == TVM_RELAX_KIND_DataflowBlock;
  bool saved = c->dataflow;
  /* This block's own pending list (an If or Function in a binding has blocks of its own). */
  void* saved_pending = c->pending;
  c->pending = tvm_ffi_list_new();
  void* list = c->pending ? tvm_ffi_list_new() : NULL;
  bool changed = false;
  int rc = list ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(blk->bindings); ++i) {
    tvm_relax_binding_obj* old = tvm_ffi_seq_obj_at(blk->bindings, i);
    c->dataflow = dataflow;
    tvm_ffi_list_clear(c->pending);
    /* the mutator returns a new reference, old itself retained when nothing changed */
    bool mutated = c->remapping;
    tvm_relax_binding_obj* src = mutated ? tvm_relax_mutate(&c->remap, old) : old;
    tvm_relax_binding_obj* nb = src ? rewrite_binding(c, src) : NULL;
    if (mutated) tvm_ffi_release(src);
    if (!nb) {
      rc = -1;
      break;
    }
    changed |= nb != old || tvm_ffi_seq_size(c->pending) > 0;
    for (int64_t j = 0; rc == 0 && j < tvm_ffi_seq_size(c->pending); ++j) {
      rc = tvm_ffi_list_push(list, tvm_ffi_seq_at(c->pending, j));
    }
    TVMFFIAny a = tvm_ffi_any_obj(nb);
    if (rc == 0) rc = tvm_ffi_list_push(list, &a);
    tvm_ffi_release(nb);
  }
  c->dataflow = saved;
  tvm_ffi_release(c->pending);
  c->pending = saved_pending;
  void* out = NULL;
  if (rc == 0 && !changed) {
    tvm_ffi_retain(blk);
    out = blk;
  } else if (rc == 0) {
    void* bindings = tvm_ffi_list_to_array(list);
    out = bindings ? tvm_relax_block_new(bindings, dataflow) : NULL;
    tvm_ffi_release(bindings);
  }
  tvm_ffi_release(list);
  return out;
}

static tvm_relax_expr_obj* rewrite_expr(pass_ctx* c, tvm_relax_expr_obj* e) {
  switch (tvm_relax_kind_of(e)) {
    case TVM_RELAX_KIND_Call:
      return legalize_call(c, (tvm_relax_call_obj*)e);
    case TVM_RELAX_KIND_SeqExpr: {
      tvm_relax_seq_expr_obj* s = (void*)e;
      void* blocks = tvm_relax__map_array(s->blocks, block_fn, c);
      if (!blocks) return NULL;
      bool mutated = c->remapping;
      tvm_relax_expr_obj* body = mutated ? tvm_relax_mutate(&c->remap, s->body) : s->body;
      tvm_relax_expr_obj* out = !body ? NULL
                                : blocks == s->blocks && body == s->body ? (tvm_ffi_retain(e), e)
                                                                         : tvm_relax_seq_expr_new(blocks, body);
      if (mutated) tvm_ffi_release(body);
      tvm_ffi_release(blocks);
      return out;
    }
    case TVM_RELAX_KIND_If: {
      tvm_relax_if_obj* f = (void*)e;
      tvm_relax_expr_obj* t = rewrite_expr(c, f->true_branch);
      tvm_relax_expr_obj* fb = t ? rewrite_expr(c, f->false_branch) : NULL;
      tvm_relax_expr_obj* out = NULL;
      if (fb) {
        out = t == f->true_branch && fb == f->false_branch ? (tvm_ffi_retain(e), e)
                                                            : tvm_relax_if_new(f->cond, t, fb);
      }
      tvm_ffi_release(t);
      tvm_ffi_release(fb);
      return out;
    }
    case TVM_RELAX_KIND_Function: {
      tvm_relax_function_obj* f = (void*)e;
      tvm_relax_expr_obj* body = rewrite_expr(c, f->body);
      if (!body || body == f->body) return body ? (tvm_ffi_release(body), tvm_ffi_retain(e), e) : NULL;
      tvm_relax_function_obj* out =
          tvm_relax_function_new(f->params, body, f->ret_struct_info, f->is_pure, f->func.attrs);
      tvm_ffi_release(body);
      return &out->func.relax;
    }
    default:
      tvm_ffi_retain(e);
      return e;
  }
}

static tvm_tir_ir_module_obj* run_legalize_ops(const tvm_tir_ir_module_obj* mod) {
  tvm_relax__ensure_init();
  if (!tvm_tir_is(mod, TVM_TIR_KIND_IRModule)) {
    tvm_ffi_raise("TypeError", "tvm_relax_legalize_ops: an IRModule is required");
    return NULL;
  }
  pass_ctx c = {tvm_ffi_dict_new(), tvm_ffi_dict_new(), tvm_ffi_dict_new(), tvm_ffi_list_new(),
                false, false, NULL, {{0}, NULL, NULL, NULL}, false};
  int rc = c.funcs && c.names && c.kernels && c.pending ? 0 : -1;
  const TVMFFIAny *k, *v;
  TVMFFIAny one = tvm_ffi_any_int(1);
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
    TVMFFIAny name = tvm_ffi_any_obj(((tvm_tir_global_var_obj*)k->v_obj)->name_hint);
    rc = tvm_ffi_dict_set(c.funcs, k, v) == 0 && tvm_ffi_dict_set(c.names, &name, &one) == 0 ? 0 : -1;
  }
  /* Each Relax function rewritten; the kernels go into c.funcs as they are made. */
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
    if (tvm_relax_kind_of(v->v_obj) != TVM_RELAX_KIND_Function) continue;
    c.func = tvm_ffi_str_cstr(((tvm_tir_global_var_obj*)k->v_obj)->name_hint);
    tvm_relax_function_obj* fn = (tvm_relax_function_obj*)v->v_obj;
    for (int64_t i = 0; i < tvm_ffi_seq_size(fn->params) && rc == 0; ++i) {
      tvm_relax_var_obj* p = tvm_ffi_seq_obj_at(fn->params, i);
      if (tvm_relax_sinfo_has_dtensor(tvm_relax_sinfo_of(p))) {
        tvm_ffi_raise("NotImplementedError",
                      "function '%s', parameter '%s': a DTensor parameter: "
                      "distributed execution is not supported (this project has no distributed "
                      "runtime such as upstream's Disco)",
                      c.func, tvm_relax_var_name(p));
        rc = -1;
      }
    }
    if (rc != 0) break;
    tvm_relax_expr_obj* nf = rewrite_expr(&c, (tvm_relax_expr_obj*)v->v_obj);
    TVMFFIAny nv = tvm_ffi_any_obj(nf);
    rc = nf && tvm_ffi_dict_set(c.funcs, k, &nv) == 0 ? 0 : -1;
    tvm_ffi_release(nf);
  }
  tvm_tir_ir_module_obj* out = rc == 0 ? tvm_relax__module_with(mod, c.funcs, c.changed) : NULL;
  tvm_ffi_release(c.funcs);
  tvm_ffi_release(c.names);
  tvm_ffi_release(c.kernels);
  tvm_ffi_release(c.pending);
  tvm_relax_mutator_free(&c.remap);
  return out;
}

tvm_tir_ir_module_obj* tvm_relax_transform_legalize_ops(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__pass_set_aside(run_legalize_ops, mod);
}
