/*
 * test_relax_legalized_models.c: models of the operator families LegalizeOps gained (conv2d,
 * batch_norm, pooling, pad, reshape, split / concat, permute_dims, take, strided_slice, tile,
 * flip, creation ops, resize2d; variance / std, cumsum / cumprod, layout_transform,
 * conv2d_transpose, attention), legalized, compiled to a VM executable with LLVM kernels and run in
 * libvm, against the Relax reference evaluator on random inputs, with a symbolic batch.
 */
#include <math.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/tir/attr_value.h>
#include <tvm/vm/vm.h>

#include "relax_testing.h"
#include "values_testing.h"
#include "exec_mode_testing.h"

/* Random values in [0.1, 2.1): a batch norm's variance. */
static void* rand_positive(int ndim, const int64_t* shape) {
  void* t = rv_rand(ndim, shape);
  float* p = tvm_ffi_tensor_dl(t)->data;
  for (int64_t i = 0; i < tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(t)); ++i) p[i] = fabsf(p[i]) + 0.1f;
  return t;
}

/* Objects made while building a model, released at the end. */
typedef struct {
  void* objs[128];
  int n;
} pool;
static void* keep(pool* p, void* o) {
  if (p->n < 128) p->objs[p->n++] = o;
  return o;
}
static void* ints(pool* p, int n, const int64_t* v) {
  TVMFFIAny a[8];
  for (int i = 0; i < n; ++i) a[i] = tvm_ffi_any_int(v[i]);
  return keep(p, tvm_ffi_array_new(a, n));
}
static tvm_relax_var_obj* emit(pool* p, tvm_relax_block_builder* bb, tvm_relax_expr_obj* e) {
  keep(p, e);
  return e ? keep(p, tvm_relax_bb_emit(bb, e, NULL)) : NULL;
}
static tvm_relax_expr_obj* prim_tuple(pool* p, int n, const int64_t* v) {
  void* items[4];
  for (int i = 0; i < n; ++i) items[i] = keep(p, tvm_relax_prim_value_int64(v[i]));
  void* arr = keep(p, tvm_ffi_array_of_objects(items, n));
  return keep(p, tvm_relax_tuple_new(arr));
}

/*
 * main(x: (n, 3, 8, 8), w: (4, 3, 3, 3), gamma, beta, mean, var: (4,), fc: (64, 10), idx: (3,)):
 *   c = conv2d(x, w, padding 1); bn = batch_norm(c, ...)[0]; r = relu(bn)
 *   s = max_pool2d(r, 2, 2) + avg_pool2d(pad(r), 3, 2, padding 1)
 *   y = reshape(s, (n, 64)) @ fc; (a, b) = split(y, 2, axis 1); z = concat((b, a), axis 1)
 *   t = take(permute_dims(z), idx, axis 0); u = flip(tile(t[1:3], (2, 1)), axis 0)
 *   return (softmax(z), u + zeros_like(u) + ones((4, 1)))
 * (Every symbolic dim here is n itself; composite_dims_compiled below has composite ones.)
 */
static tvm_tir_ir_module_obj* cnn_model(void) {
  pool p = {.n = 0};
  tvm_tir_var_obj* n = keep(&p, tvm_tir_var_new("n", I64));
  void* d[4] = {n, keep(&p, tvm_tir_const_int(I64, 3)), keep(&p, tvm_tir_const_int(I64, 8)), NULL};
  d[3] = d[2];
  tvm_relax_var_obj* x = keep(&p, rt_var_take("x", rt_tensor_sym(F32, 4, d)));
  tvm_relax_var_obj* w = keep(&p, rt_var_take("w", rt_tensor(F32, 4, (int64_t)4, (int64_t)3, (int64_t)3, (int64_t)3)));
  tvm_relax_var_obj* bnp[4];
  static const char* const bnn[4] = {"gamma", "beta", "mean", "var"};
  for (int i = 0; i < 4; ++i) bnp[i] = keep(&p, rt_var_take(bnn[i], rt_tensor(F32, 1, (int64_t)4)));
  tvm_relax_var_obj* fc = keep(&p, rt_var_take("fc", rt_tensor(F32, 2, (int64_t)64, (int64_t)10)));
  tvm_relax_var_obj* idx = keep(&p, rt_var_take("idx", rt_tensor(I64, 1, (int64_t)3)));
  void* params = keep(&p, rt_array(8, x, w, bnp[0], bnp[1], bnp[2], bnp[3], fc, idx));
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", params, NULL, true));
  void* a_conv = keep(&p, rt_attrs(1, "padding", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){1}))));
  tvm_relax_var_obj* c = emit(&p, bb, tvm_relax_call_op("relax.nn.conv2d", a_conv, 2, x, w));
  void* a_bn = keep(&p, rt_attrs(2, "axis", tvm_ffi_any_int(1), "training", tvm_ffi_any_bool(false)));
  void* bn_args = keep(&p, rt_array(5, c, bnp[0], bnp[1], bnp[2], bnp[3]));
  const tvm_relax_op_info* bn_info = tvm_relax_op_info_find("relax.nn.batch_norm", 19);
  tvm_relax_var_obj* bn = emit(&p, bb, tvm_relax_call_new(tvm_relax_op(bn_info->id), bn_args, a_bn, NULL, NULL));
  tvm_relax_var_obj* bn0 = emit(&p, bb, tvm_relax_tuple_get_item_new((tvm_relax_expr_obj*)bn, 0));
  tvm_relax_var_obj* r = emit(&p, bb, tvm_relax_call_op("relax.nn.relu", NULL, 1, bn0));
  void* a_max = keep(&p, rt_attrs(2, "pool_size", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){2})),
                                  "strides", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){2}))));
  tvm_relax_var_obj* mp = emit(&p, bb, tvm_relax_call_op("relax.nn.max_pool2d", a_max, 1, r));
  void* a_pad = keep(&p, rt_attrs(1, "pad_width", tvm_ffi_any_obj(ints(&p, 8, (int64_t[]){0, 0, 0, 0, 1, 0, 0, 1}))));
  tvm_relax_var_obj* pd = emit(&p, bb, tvm_relax_call_op("relax.nn.pad", a_pad, 1, r)); /* (n, 4, 9, 9) */
  void* a_avg = keep(&p, rt_attrs(4, "pool_size", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){3})),
                                  "strides", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){2})),
                                  "padding", tvm_ffi_any_obj(ints(&p, 4, (int64_t[]){1, 1, 0, 0})),
                                  "count_include_pad", tvm_ffi_any_bool(false)));
  tvm_relax_var_obj* ap = emit(&p, bb, tvm_relax_call_op("relax.nn.avg_pool2d", a_avg, 1, pd)); /* (n, 4, 4, 4) */
  tvm_relax_var_obj* s = emit(&p, bb, tvm_relax_call_op("relax.add", NULL, 2, mp, ap));
  void* shape_vals = keep(&p, rt_array(2, n, keep(&p, tvm_tir_const_int(I64, 64))));
  tvm_relax_expr_obj* shape = keep(&p, tvm_relax_shape_expr_new(shape_vals));
  tvm_relax_var_obj* f = emit(&p, bb, tvm_relax_call_op("relax.reshape", NULL, 2, s, shape));
  tvm_relax_var_obj* y = emit(&p, bb, tvm_relax_call_op("relax.matmul", NULL, 2, f, fc));
  void* a_split = keep(&p, rt_attrs(2, "indices_or_sections", tvm_ffi_any_int(2), "axis", tvm_ffi_any_int(1)));
  tvm_relax_var_obj* sp = emit(&p, bb, tvm_relax_call_op("relax.split", a_split, 1, y));
  tvm_relax_var_obj* s0 = emit(&p, bb, tvm_relax_tuple_get_item_new((tvm_relax_expr_obj*)sp, 0));
  tvm_relax_var_obj* s1 = emit(&p, bb, tvm_relax_tuple_get_item_new((tvm_relax_expr_obj*)sp, 1));
  void* cf = keep(&p, rt_array(2, s1, s0));
  tvm_relax_expr_obj* ct = keep(&p, tvm_relax_tuple_new(cf));
  void* a_cat = keep(&p, rt_attrs(1, "axis", tvm_ffi_any_int(1)));
  tvm_relax_var_obj* z = emit(&p, bb, tvm_relax_call_op("relax.concat", a_cat, 1, ct));
  tvm_relax_var_obj* pt = emit(&p, bb, tvm_relax_call_op("relax.permute_dims", NULL, 1, z)); /* (10, n) */
  void* a_take = keep(&p, rt_attrs(1, "axis", tvm_ffi_any_int(0)));
  tvm_relax_var_obj* tk = emit(&p, bb, tvm_relax_call_op("relax.take", a_take, 2, pt, idx)); /* (3, n) */
  tvm_relax_var_obj* sl = emit(&p, bb, tvm_relax_call_op("relax.strided_slice", NULL, 5, tk,
                                                        prim_tuple(&p, 1, (int64_t[]){0}),
                                                        prim_tuple(&p, 1, (int64_t[]){1}),
                                                        prim_tuple(&p, 1, (int64_t[]){3}),
                                                        prim_tuple(&p, 1, (int64_t[]){1}))); /* (2, n) */
  void* a_tile = keep(&p, rt_attrs(1, "repeats", tvm_ffi_any_obj(ints(&p, 2, (int64_t[]){2, 1}))));
  tvm_relax_var_obj* tl = emit(&p, bb, tvm_relax_call_op("relax.tile", a_tile, 1, sl)); /* (4, n) */
  void* a_flip = keep(&p, rt_attrs(1, "axis", tvm_ffi_any_int(0)));
  tvm_relax_var_obj* fl = emit(&p, bb, tvm_relax_call_op("relax.flip", a_flip, 1, tl));
  tvm_relax_var_obj* zl = emit(&p, bb, tvm_relax_call_op("relax.zeros_like", NULL, 1, fl));
  tvm_relax_var_obj* u0 = emit(&p, bb, tvm_relax_call_op("relax.add", NULL, 2, fl, zl));
  tvm_relax_expr_obj* os = keep(&p, tvm_relax_shape_expr_of_ints((int64_t[]){4, 1}, 2));
  void* a_dt = keep(&p, rt_attrs(1, "dtype", tvm_ffi_any_dtype(F32)));
  tvm_relax_var_obj* on = emit(&p, bb, tvm_relax_call_op("relax.ones", a_dt, 1, os));
  tvm_relax_var_obj* u = emit(&p, bb, tvm_relax_call_op("relax.add", NULL, 2, u0, on));
  tvm_relax_var_obj* sm = emit(&p, bb, tvm_relax_call_op("relax.nn.softmax", NULL, 1, z));
  void* rf = keep(&p, rt_array(2, sm, u));
  tvm_relax_expr_obj* ret = keep(&p, tvm_relax_tuple_new(rf));
  tvm_tir_global_var_obj* g = keep(&p, tvm_relax_bb_function_end(bb, ret, NULL));
  tvm_tir_ir_module_obj* mod = g ? keep(&p, tvm_relax_bb_module(bb)) : NULL;
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  for (int i = p.n - 1; i >= 0; --i) tvm_ffi_release(p.objs[i]);
  tvm_relax_bb_free(bb);
  return legal;
}

TEST(cnn_compiled_matches_evaluator) {
  tvm_tir_ir_module_obj* mod = cnn_model();
  CHECK(mod != NULL);
  tvm_vm_executable* exec = mod ? test_mode(tvm_codegen_relax_build(mod, test_opts())) : NULL;
  CHECK(exec != NULL);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  CHECK(!exec || vm != NULL);
  for (int64_t batch = 1; vm && batch <= 3; batch += 2) {
    int64_t xs[4] = {batch, 3, 8, 8}, ws[4] = {4, 3, 3, 3}, cs[1] = {4}, fs[2] = {64, 10}, is[1] = {3};
    void* t[8] = {rv_rand(4, xs), rv_rand(4, ws), rv_rand(1, cs),
                  rv_rand(1, cs), rv_rand(1, cs), rand_positive(1, cs),
                  rv_rand(2, fs),
                  tvm_ffi_tensor_empty(is, 1, I64, (DLDevice){kDLCPU, 0})};
    int64_t* ip = tvm_ffi_tensor_dl(t[7])->data;
    ip[0] = 7, ip[1] = 0, ip[2] = 3 + batch;
    TVMFFIAny args[8], want, got;
    for (int i = 0; i < 8; ++i) args[i] = tvm_ffi_any_obj(t[i]);
    CHECK_OK(tvm_relax_eval(mod, "main", args, 8, &want));
    CHECK_OK(tvm_vm_invoke(vm, "main", args, 8, &got));
    CHECK_EQ_INT(rv_differ(&got, &want, 1e-4), 0);
    tvm_ffi_any_release(&want), tvm_ffi_any_release(&got);
    for (int i = 0; i < 8; ++i) tvm_ffi_release(t[i]);
  }
  if (vm) tvm_vm_release(vm);
  tvm_ffi_release(exec);
  tvm_ffi_release(mod);
}

/*
 * main(x: (2, 3, 6, 5), k: (4, 3, 3), q: (2, 3)):
 *   a = adaptive_avg_pool2d(x, (2, 2)); f = flatten(a) (24,); e = expand_dims(f, 0) (1, 24)
 *   b = broadcast_to(e, (2, 24)); r = repeat(q, 2, axis 1) (2, 6); l = tril(r, 1)
 *   c = conv1d(squeeze(x[:, :, 0:1, :]), k) (2, 4, 3)
 *   t = (l, full((2, 6), 0.5) + arange(0, 6)); cc = concat(t) through a tuple variable
 *   d = dropout(cc)[0]; rz, rn = resize2d(x, (4, 3)) linear and nearest_neighbor
 *   bn = batch_norm(x, q[0], q[0], q[0], q[0], training=True)
 *   return (b, c, d, rz, rn, bn)
 */
static tvm_tir_ir_module_obj* misc_model(void) {
  pool p = {.n = 0};
  tvm_relax_var_obj* x = keep(&p, rt_var_take("x", rt_tensor(F32, 4, (int64_t)2, (int64_t)3, (int64_t)6, (int64_t)5)));
  tvm_relax_var_obj* k = keep(&p, rt_var_take("k", rt_tensor(F32, 3, (int64_t)4, (int64_t)3, (int64_t)3)));
  tvm_relax_var_obj* q = keep(&p, rt_var_take("q", rt_tensor(F32, 2, (int64_t)2, (int64_t)3)));
  void* params = keep(&p, rt_array(3, x, k, q));
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", params, NULL, true));
  void* a_ad = keep(&p, rt_attrs(1, "output_size", tvm_ffi_any_obj(ints(&p, 2, (int64_t[]){2, 2}))));
  tvm_relax_var_obj* a = emit(&p, bb, tvm_relax_call_op("relax.nn.adaptive_avg_pool2d", a_ad, 1, x));
  tvm_relax_var_obj* f = emit(&p, bb, tvm_relax_call_op("relax.flatten", NULL, 1, a));
  void* a_ex = keep(&p, rt_attrs(1, "axis", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){0}))));
  tvm_relax_var_obj* e = emit(&p, bb, tvm_relax_call_op("relax.expand_dims", a_ex, 1, f));
  tvm_relax_expr_obj* bs = keep(&p, tvm_relax_shape_expr_of_ints((int64_t[]){2, 24}, 2));
  tvm_relax_var_obj* b = emit(&p, bb, tvm_relax_call_op("relax.broadcast_to", NULL, 2, e, bs));
  void* a_rep = keep(&p, rt_attrs(2, "repeats", tvm_ffi_any_int(2), "axis", tvm_ffi_any_int(1)));
  tvm_relax_var_obj* r = emit(&p, bb, tvm_relax_call_op("relax.repeat", a_rep, 1, q));
  tvm_relax_var_obj* l = emit(&p, bb, tvm_relax_call_op("relax.tril", NULL, 2, r, keep(&p, tvm_relax_prim_value_int64(1))));
  tvm_relax_var_obj* sl = emit(&p, bb, tvm_relax_call_op("relax.strided_slice", NULL, 4, x,
                                                        prim_tuple(&p, 1, (int64_t[]){2}),
                                                        prim_tuple(&p, 1, (int64_t[]){0}),
                                                        prim_tuple(&p, 1, (int64_t[]){1}))); /* (2, 3, 1, 5) */
  tvm_relax_var_obj* sq = emit(&p, bb, tvm_relax_call_op("relax.squeeze", NULL, 1, sl)); /* (2, 3, 5) */
  tvm_relax_var_obj* c = emit(&p, bb, tvm_relax_call_op("relax.nn.conv1d", NULL, 2, sq, k)); /* (2, 4, 3) */
  tvm_relax_expr_obj* fs = keep(&p, tvm_relax_shape_expr_of_ints((int64_t[]){2, 6}, 2));
  tvm_relax_expr_obj* half = keep(&p, tvm_relax_prim_value_new(keep(&p, tvm_tir_const_float(F32, 0.5))));
  tvm_relax_var_obj* fu = emit(&p, bb, tvm_relax_call_op("relax.full", NULL, 2, fs, half));
  void* a_dt = keep(&p, rt_attrs(1, "dtype", tvm_ffi_any_dtype(F32)));
  tvm_relax_var_obj* ar = emit(&p, bb, tvm_relax_call_op("relax.arange", a_dt, 3, keep(&p, tvm_relax_prim_value_int64(0)),
                                                        keep(&p, tvm_relax_prim_value_int64(6)),
                                                        keep(&p, tvm_relax_prim_value_int64(1))));
  tvm_relax_var_obj* fa = emit(&p, bb, tvm_relax_call_op("relax.add", NULL, 2, fu, ar));
  void* tf = keep(&p, rt_array(2, l, fa));
  tvm_relax_var_obj* tv = emit(&p, bb, tvm_relax_tuple_new(tf));
  tvm_relax_var_obj* cc = emit(&p, bb, tvm_relax_call_op("relax.concat", NULL, 1, tv)); /* (4, 6) */
  tvm_relax_var_obj* dr = emit(&p, bb, tvm_relax_call_op("relax.nn.dropout", NULL, 1, cc));
  tvm_relax_var_obj* d = emit(&p, bb, tvm_relax_tuple_get_item_new((tvm_relax_expr_obj*)dr, 0));
  tvm_relax_expr_obj* rs = keep(&p, tvm_relax_shape_expr_of_ints((int64_t[]){4, 3}, 2));
  tvm_relax_var_obj* rz = emit(&p, bb, tvm_relax_call_op("relax.image.resize2d", NULL, 2, x, rs));
  TVMFFIAny nn = tvm_ffi_string("nearest_neighbor");
  void* a_nn = keep(&p, rt_attrs(1, "method", nn));
  tvm_ffi_any_release(&nn);
  tvm_relax_var_obj* rn = emit(&p, bb, tvm_relax_call_op("relax.image.resize2d", a_nn, 2, x, rs));
  /* batch_norm in training mode on x, with q's first row as every per-channel vector */
  tvm_relax_var_obj* q0 = emit(&p, bb, tvm_relax_call_op("relax.strided_slice", NULL, 4, q, prim_tuple(&p, 1, (int64_t[]){0}),
                                       prim_tuple(&p, 1, (int64_t[]){0}), prim_tuple(&p, 1, (int64_t[]){1})));
  tvm_relax_var_obj* qv = emit(&p, bb, tvm_relax_call_op("relax.squeeze", NULL, 1, q0)); /* (3,) */
  void* a_bn = keep(&p, rt_attrs(3, "axis", tvm_ffi_any_int(1), "training", tvm_ffi_any_bool(true),
                                 "momentum", tvm_ffi_any_float(0.3)));
  void* bn_args = keep(&p, rt_array(5, x, qv, qv, qv, qv));
  const tvm_relax_op_info* bn_info = tvm_relax_op_info_find("relax.nn.batch_norm", 19);
  tvm_relax_var_obj* bn = emit(&p, bb, tvm_relax_call_new(tvm_relax_op(bn_info->id), bn_args, a_bn, NULL, NULL));
  void* rf = keep(&p, rt_array(6, b, c, d, rz, rn, bn));
  tvm_relax_expr_obj* ret = keep(&p, tvm_relax_tuple_new(rf));
  tvm_tir_global_var_obj* g = keep(&p, tvm_relax_bb_function_end(bb, ret, NULL));
  tvm_tir_ir_module_obj* mod = g ? keep(&p, tvm_relax_bb_module(bb)) : NULL;
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  for (int i = p.n - 1; i >= 0; --i) tvm_ffi_release(p.objs[i]);
  tvm_relax_bb_free(bb);
  return legal;
}

TEST(misc_compiled_matches_evaluator) {
  tvm_tir_ir_module_obj* mod = misc_model();
  CHECK(mod != NULL);
  tvm_vm_executable* exec = mod ? test_mode(tvm_codegen_relax_build(mod, test_opts())) : NULL;
  if (!exec) CHECK_OK(-1); /* prints the error */
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  for (int trial = 0; vm && trial < 2; ++trial) {
    int64_t xs[4] = {2, 3, 6, 5}, ks[3] = {4, 3, 3}, qs[2] = {2, 3};
    void* t[3] = {rv_rand(4, xs), rv_rand(3, ks), rv_rand(2, qs)};
    TVMFFIAny args[3], want, got;
    for (int i = 0; i < 3; ++i) args[i] = tvm_ffi_any_obj(t[i]);
    CHECK_OK(tvm_relax_eval(mod, "main", args, 3, &want));
    CHECK_OK(tvm_vm_invoke(vm, "main", args, 3, &got));
    CHECK_EQ_INT(rv_differ(&got, &want, 1e-4), 0);
    tvm_ffi_any_release(&want), tvm_ffi_any_release(&got);
    for (int i = 0; i < 3; ++i) tvm_ffi_release(t[i]);
  }
  if (vm) tvm_vm_release(vm);
  tvm_ffi_release(exec);
  tvm_ffi_release(mod);
}

/*
 * The operators LegalizeOps gained last, with a symbolic batch n:
 * main(x: (n, 4, 6, 6), w: (4, 2, 3, 3), q: (n, 5, 2, 4), kv: (n, 7, 1, 4), bias: (1, 2, 5, 7)):
 *   ct = conv2d_transpose(x, w, strides 2, padding 1, output_padding 1) (n, 2, 12, 12)
 *   v = variance(ct, axis [2, 3], keepdims) (n, 2, 1, 1); sd = std(x, axis 1) (n, 6, 6)
 *   cs = cumsum(sd, axis 2); cp = cumprod(x, axis 1, exclusive)
 *   lt = layout_transform(cs, lambda i, j, k: (i, k // 4, j, k % 4), pad 0.5) (n, 2, 6, 4)
 *   at = attention(q, kv, kv, bias, causal TopLeft) (n, 5, 2, 4): two query heads on one
 *   return (v, sd, cs, cp, lt, at)
 */
static tvm_tir_ir_module_obj* newer_ops_model(void) {
  pool p = {.n = 0};
  tvm_tir_var_obj* n = keep(&p, tvm_tir_var_new("n", I64));
  void* c[8];
  for (int i = 0; i < 8; ++i) c[i] = keep(&p, tvm_tir_const_int(I64, i));
  void* c6 = keep(&p, tvm_tir_const_int(I64, 6));
  void* dx[4] = {n, c[4], c6, c6};
  void* dq[4] = {n, c[5], c[2], c[4]};
  void* dk[4] = {n, c[7], c[1], c[4]};
  tvm_relax_var_obj* x = keep(&p, rt_var_take("x", rt_tensor_sym(F32, 4, dx)));
  tvm_relax_var_obj* w = keep(&p, rt_var_take("w", rt_tensor(F32, 4, (int64_t)4, (int64_t)2, (int64_t)3, (int64_t)3)));
  tvm_relax_var_obj* q = keep(&p, rt_var_take("q", rt_tensor_sym(F32, 4, dq)));
  tvm_relax_var_obj* kv = keep(&p, rt_var_take("kv", rt_tensor_sym(F32, 4, dk)));
  tvm_relax_var_obj* bias = keep(&p, rt_var_take("bias", rt_tensor(F32, 4, (int64_t)1, (int64_t)2, (int64_t)5, (int64_t)7)));
  void* params = keep(&p, rt_array(5, x, w, q, kv, bias));
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", params, NULL, true));
  void* a_ct = keep(&p, rt_attrs(3, "strides", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){2})),
                                 "padding", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){1})),
                                 "output_padding", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){1}))));
  tvm_relax_var_obj* ct = emit(&p, bb, tvm_relax_call_op("relax.nn.conv2d_transpose", a_ct, 2, x, w));
  void* a_v = keep(&p, rt_attrs(2, "axis", tvm_ffi_any_obj(ints(&p, 2, (int64_t[]){2, 3})), "keepdims", tvm_ffi_any_bool(true)));
  tvm_relax_var_obj* v = emit(&p, bb, tvm_relax_call_op("relax.variance", a_v, 1, ct));
  void* a_sd = keep(&p, rt_attrs(1, "axis", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){1}))));
  tvm_relax_var_obj* sd = emit(&p, bb, tvm_relax_call_op("relax.std", a_sd, 1, x));
  void* a_cs = keep(&p, rt_attrs(1, "axis", tvm_ffi_any_int(2)));
  tvm_relax_var_obj* cs = emit(&p, bb, tvm_relax_call_op("relax.cumsum", a_cs, 1, sd));
  void* a_cp = keep(&p, rt_attrs(2, "axis", tvm_ffi_any_int(1), "exclusive", tvm_ffi_any_bool(true)));
  tvm_relax_var_obj* cp = emit(&p, bb, tvm_relax_call_op("relax.cumprod", a_cp, 1, x));
  tvm_tir_var_obj *i = keep(&p, tvm_tir_var_new("i", I64)), *j = keep(&p, tvm_tir_var_new("j", I64)),
                  *k = keep(&p, tvm_tir_var_new("k", I64));
  void* kd = keep(&p, tvm_tir_floordiv((tvm_tir_expr_obj*)k, c[4]));
  void* km = keep(&p, tvm_tir_floormod((tvm_tir_expr_obj*)k, c[4]));
  void* init = keep(&p, rt_array(3, i, j, k));
  void* fin = keep(&p, rt_array(4, i, kd, j, km));
  tvm_tir_index_map_obj* map = keep(&p, tvm_tir_index_map_new(init, fin, NULL));
  tvm_relax_expr_obj* pad = keep(&p, tvm_relax_prim_value_new(keep(&p, tvm_tir_const_float(F32, 0.5))));
  void* a_lt = keep(&p, rt_attrs(2, "index_map", tvm_ffi_any_obj(map), "pad_value", tvm_ffi_any_obj(pad)));
  tvm_relax_var_obj* lt = emit(&p, bb, tvm_relax_call_op("relax.layout_transform", a_lt, 1, cs));
  TVMFFIAny top_left = tvm_ffi_string("TopLeft");
  void* a_at = keep(&p, rt_attrs(1, "causal_mask", top_left));
  tvm_ffi_any_release(&top_left);
  tvm_relax_var_obj* at = emit(&p, bb, tvm_relax_call_op("relax.nn.attention", a_at, 4, q, kv, kv, bias));
  void* rf = keep(&p, rt_array(6, v, sd, cs, cp, lt, at));
  tvm_relax_expr_obj* ret = keep(&p, tvm_relax_tuple_new(rf));
  tvm_tir_global_var_obj* g = keep(&p, tvm_relax_bb_function_end(bb, ret, NULL));
  tvm_tir_ir_module_obj* mod = g ? keep(&p, tvm_relax_bb_module(bb)) : NULL;
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  for (int m = p.n - 1; m >= 0; --m) tvm_ffi_release(p.objs[m]);
  tvm_relax_bb_free(bb);
  return legal;
}

TEST(newer_ops_compiled_match_evaluator) {
  tvm_tir_ir_module_obj* mod = newer_ops_model();
  if (!mod) CHECK_OK(-1);
  /* every operator became a kernel */
  CHECK(mod && tvm_ffi_map_size(mod->functions) == 8);
  tvm_vm_executable* exec = mod ? test_mode(tvm_codegen_relax_build(mod, test_opts())) : NULL;
  if (mod && !exec) CHECK_OK(-1);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  for (int64_t batch = 1; vm && batch <= 3; batch += 2) {
    int64_t xs[4] = {batch, 4, 6, 6}, ws[4] = {4, 2, 3, 3}, qs[4] = {batch, 5, 2, 4}, ks[4] = {batch, 7, 1, 4},
            bs[4] = {1, 2, 5, 7};
    void* t[5] = {rv_rand(4, xs), rv_rand(4, ws), rv_rand(4, qs),
                  rv_rand(4, ks), rv_rand(4, bs)};
    TVMFFIAny args[5], want, got;
    for (int m = 0; m < 5; ++m) args[m] = tvm_ffi_any_obj(t[m]);
    CHECK_OK(tvm_relax_eval(mod, "main", args, 5, &want));
    CHECK_OK(tvm_vm_invoke(vm, "main", args, 5, &got));
    CHECK_EQ_INT(rv_differ(&got, &want, 1e-4), 0);
    tvm_ffi_any_release(&want), tvm_ffi_any_release(&got);
    for (int m = 0; m < 5; ++m) tvm_ffi_release(t[m]);
  }
  if (vm) tvm_vm_release(vm);
  tvm_ffi_release(exec);
  tvm_ffi_release(mod);
}

/*
 * Composite output dims: main(x: (n, 3)):
 *   a = cumsum(x) (no axis: the flattened tensor, (n * 3,)); b = exp(a) * 0.5 (n * 3,)
 *   c = cumprod(x, exclusive) (n * 3,); cc = concat((x, x), axis 0) (n * 2, 3)
 *   s = sum(cc * cc, axis 1) (n * 2,); return (b, c, s)
 * compiled and run in libvm against plain C loops (and the evaluator), n = 1, 2, 5.
 */
TEST(composite_dims_compiled) {
  pool p = {.n = 0};
  tvm_tir_var_obj* n = keep(&p, tvm_tir_var_new("n", I64));
  void* d[2] = {n, keep(&p, tvm_tir_const_int(I64, 3))};
  tvm_relax_var_obj* x = keep(&p, rt_var_take("x", rt_tensor_sym(F32, 2, d)));
  void* params = keep(&p, rt_array(1, x));
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", params, NULL, true));
  tvm_relax_var_obj* a = emit(&p, bb, tvm_relax_call_op("relax.cumsum", NULL, 1, x));
  tvm_relax_var_obj* e = emit(&p, bb, tvm_relax_call_op("relax.exp", NULL, 1, a));
  tvm_relax_expr_obj* half = keep(&p, tvm_relax_prim_value_new(keep(&p, tvm_tir_const_float(F32, 0.5))));
  tvm_relax_var_obj* b = emit(&p, bb, tvm_relax_call_op("relax.multiply", NULL, 2, e, half));
  void* a_cp = keep(&p, rt_attrs(1, "exclusive", tvm_ffi_any_bool(true)));
  tvm_relax_var_obj* c = emit(&p, bb, tvm_relax_call_op("relax.cumprod", a_cp, 1, x));
  /* cc = concat((x, x), axis 0) (n * 2, 3); s = sum(cc * cc, axis 1) (n * 2,) */
  void* a_cc = keep(&p, rt_attrs(1, "axis", tvm_ffi_any_int(0)));
  tvm_relax_expr_obj* xx = keep(&p, tvm_relax_tuple_new(keep(&p, rt_array(2, x, x))));
  tvm_relax_var_obj* cc = emit(&p, bb, tvm_relax_call_op("relax.concat", a_cc, 1, xx));
  tvm_relax_var_obj* sq = emit(&p, bb, tvm_relax_call_op("relax.multiply", NULL, 2, cc, cc));
  void* a_sum = keep(&p, rt_attrs(1, "axis", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){1}))));
  tvm_relax_var_obj* sm = emit(&p, bb, tvm_relax_call_op("relax.sum", a_sum, 1, sq));
  tvm_relax_expr_obj* ret = keep(&p, tvm_relax_tuple_new(keep(&p, rt_array(3, b, c, sm))));
  if (a) CHECK_STR_CONTAINS(rt_sinfo_text(a), "(n * T.int64(3),)");
  if (sm) CHECK_STR_CONTAINS(rt_sinfo_text(sm), "(n * T.int64(2),)");
  tvm_tir_global_var_obj* gv = b && c && sm ? tvm_relax_bb_function_end(bb, ret, NULL) : NULL;
  tvm_tir_ir_module_obj* mod = gv ? tvm_relax_bb_module(bb) : NULL;
  tvm_ffi_release(gv);
  tvm_relax_bb_free(bb);
  for (int i = p.n - 1; i >= 0; --i) tvm_ffi_release(p.objs[i]);
  CHECK(mod != NULL);
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  tvm_vm_executable* exec = mod ? tvm_codegen_relax_build(mod, NULL) : NULL;
  if (mod && !exec) CHECK_OK(-1);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  static const int64_t batches[3] = {1, 2, 5};
  for (int bi = 0; vm && legal && bi < 3; ++bi) {
    int64_t xs[2] = {batches[bi], 3}, m = batches[bi] * 3;
    void* t = rv_rand(2, xs);
    TVMFFIAny arg = tvm_ffi_any_obj(t), want, got;
    CHECK_OK(tvm_relax_eval(legal, "main", &arg, 1, &want));
    CHECK_OK(tvm_vm_invoke(vm, "main", &arg, 1, &got));
    CHECK_EQ_INT(rv_differ(&got, &want, 1e-4), 0);
    /* The oracle: running sums / exclusive products over the row-major elements. */
    const float* xv = tvm_ffi_tensor_dl(t)->data;
    int64_t wrong = 0;
    if (got.type_index == kTVMFFIArray && tvm_ffi_seq_size(got.v_obj) == 3) {
      const DLTensor* gs = tvm_ffi_tensor_dl(tvm_ffi_seq_at(got.v_obj, 2)->v_obj);
      CHECK(gs->ndim == 1 && gs->shape[0] == 2 * batches[bi]);
      for (int64_t r = 0; gs->shape[0] == 2 * batches[bi] && r < 2 * batches[bi]; ++r) {
        double ws = 0;
        for (int j = 0; j < 3; ++j) ws += (double)xv[(r % batches[bi]) * 3 + j] * xv[(r % batches[bi]) * 3 + j];
        double vs = ((const float*)gs->data)[r];
        wrong += !(fabs(vs - ws) <= 1e-4 * (1 + fabs(ws)));
      }
      const DLTensor* gb = tvm_ffi_tensor_dl(tvm_ffi_seq_at(got.v_obj, 0)->v_obj);
      const DLTensor* gc = tvm_ffi_tensor_dl(tvm_ffi_seq_at(got.v_obj, 1)->v_obj);
      CHECK(gb->ndim == 1 && gb->shape[0] == m && gc->ndim == 1 && gc->shape[0] == m);
      double sum = 0, prod = 1;
      for (int64_t i = 0; gb->shape[0] == m && gc->shape[0] == m && i < m; ++i) {
        sum += xv[i];
        double wb = exp(sum) * 0.5, vb = ((const float*)gb->data)[i], vc = ((const float*)gc->data)[i];
        wrong += !(fabs(vb - wb) <= 1e-4 * (1 + fabs(wb))) + !(fabs(vc - prod) <= 1e-4 * (1 + fabs(prod)));
        prod *= xv[i];
      }
    } else {
      wrong = 1;
    }
    CHECK_EQ_INT(wrong, 0);
    tvm_ffi_any_release(&want), tvm_ffi_any_release(&got);
    tvm_ffi_release(t);
  }
  if (vm) tvm_vm_release(vm);
  tvm_ffi_release(exec), tvm_ffi_release(legal), tvm_ffi_release(mod);
}

int main(void) {
  RUN(cnn_compiled_matches_evaluator);
  RUN(misc_compiled_matches_evaluator);
  RUN(newer_ops_compiled_match_evaluator);
  RUN(composite_dims_compiled);
  return test_summary();
}
