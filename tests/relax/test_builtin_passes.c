/*
 * test_builtin_passes.c: RewriteDataflowReshape (which kernels are recognized as reshapes, which
 * are not, symbolic element counts, dataflow outputs left alone), LowerRuntimeBuiltin (operators
 * to vm.builtin ExternFunc calls) and ComputePrimValue (composite prim values to PrimFunc calls,
 * bound to variables where A-normal form needs one); each result well formed and evaluating as
 * the module before it on random inputs.
 */
#include <math.h>
#include <string.h>

#include "relax_models.h"
#include "relax_pool.h"
#include "relax_testing.h"
#include "values_testing.h"

static TVMFFIAny run(const tvm_tir_ir_module_obj* mod, const TVMFFIAny* args, int n) {
  TVMFFIAny out = tvm_ffi_any_none();
  if (!mod || tvm_relax_eval(mod, "main", args, n, &out) != 0) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "eval: %s\n", e ? tvm_ffi_error_message(e) : "(no module)");
    tvm_ffi_release(e);
    return tvm_ffi_any_int(-12345);
  }
  return out;
}

static char g_text[4096];
static const char* text(const tvm_tir_ir_module_obj* mod) {
  return mod ? relax_models_bindings_text(mod, "main", g_text, sizeof(g_text)) : "(null)";
}

static void* i64(rp* m, int64_t v) { return rp_keep(m, tvm_tir_const_int(I64, v)); }

/* main(x: (2, 6), y: (n, 4)):
 *   a = reshape(x, (3, 4)); b = exp(a); c = permute_dims(a); d = reshape(y, (n * 2, 2));
 *   e = flatten(d); f = strided_slice(x, [1], [0], [3]); s = shape_of(e); gv = reshape(b, (12,))
 *   return (gv, c, e, f, s) */
static tvm_tir_ir_module_obj* reshape_model(void) {
  rp m;
  rp_init(&m);
  tvm_tir_expr_obj* n = rp_keep(&m, tvm_tir_var_new("n", I64));
  tvm_relax_var_obj* x = rp_param(&m, "x", rt_tensor(F32, 2, (int64_t)2, (int64_t)6));
  void* yd[2] = {n, i64(&m, 4)};
  tvm_relax_var_obj* y = rp_param(&m, "y", rt_tensor_sym(F32, 2, yd));
  rp_begin(&m, "main");
  rp_dataflow(&m);
  void* s34[2] = {i64(&m, 3), i64(&m, 4)};
  tvm_relax_var_obj* a = rp_emit(&m, rp_call(&m, "relax.reshape", NULL, 2, x, rp_shape(&m, 2, s34)), "a");
  tvm_relax_var_obj* b = rp_emit(&m, rp_call(&m, "relax.exp", NULL, 1, a), "b");
  tvm_relax_var_obj* c = rp_emit(&m, rp_call(&m, "relax.permute_dims", NULL, 1, a), "c");
  void* sn2[2] = {rp_keep(&m, tvm_tir_mul(n, i64(&m, 2))), i64(&m, 2)};
  tvm_relax_var_obj* d = rp_emit(&m, rp_call(&m, "relax.reshape", NULL, 2, y, rp_shape(&m, 2, sn2)), "d");
  /* (flatten's kernel sees n only in composite dims, (n * 2, 2) -> (n * 4,): each becomes a
   * kernel variable of its own.) */
  tvm_relax_var_obj* e = rp_emit(&m, rp_call(&m, "relax.flatten", NULL, 1, d), "e");
  void* one[1] = {i64(&m, 1)};
  void* zero[1] = {i64(&m, 0)};
  void* three[1] = {i64(&m, 3)};
  tvm_relax_var_obj* f = rp_emit(
      &m, rp_call(&m, "relax.strided_slice", NULL, 4, x, rp_shape(&m, 1, one), rp_shape(&m, 1, zero),
                  rp_shape(&m, 1, three)),
      "f");
  tvm_relax_var_obj* s = rp_emit(&m, rp_call(&m, "relax.shape_of", NULL, 1, e), "s");
  void* s12[1] = {i64(&m, 12)};
  tvm_relax_var_obj* gv = rp_output(&m, rp_call(&m, "relax.reshape", NULL, 2, b, rp_shape(&m, 1, s12)), "gv");
  tvm_relax_var_obj* outs[4] = {c, e, f, s};
  for (int i = 0; i < 4; ++i) outs[i] = rp_output(&m, (tvm_relax_expr_obj*)outs[i], "o");
  rp_block_end(&m);
  return rp_finish(&m, rp_tuple(&m, 5, gv, outs[0], outs[1], outs[2], outs[3]));
}

TEST(rewrite_dataflow_reshape) {
  tvm_tir_ir_module_obj* mod = reshape_model();
  CHECK(mod != NULL);
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  tvm_tir_ir_module_obj* out = legal ? tvm_relax_transform_rewrite_dataflow_reshape(legal) : NULL;
  CHECK(out != NULL);
  /* a, d, e (reshape, reshape with a symbolic count, flatten) become views; the transpose and
   * the slice do not; gv, a dataflow output, stays a kernel call. */
  CHECK_STR_EQ(text(out),
               "df: a = reshape(x, shape(3, 4)); b = call_tir(exp, (a)); c = call_tir(permute_dims, (a)); "
               "d = reshape(y, shape(n * T.int64(2), 2)); e = reshape(d, shape(n * T.int64(4))); "
               "f = call_tir(strided_slice, (x)); s = shape_of(e); gv = call_tir(reshape2, (b)); "
               "o = c; o1 = e; o2 = f; o3 = s");
  CHECK_OK(tvm_relax_verify_well_formed(out));
  /* The views evaluate to the kernels' results. */
  for (int64_t n = 1; n <= 5; n += 2) {
    int64_t sx[2] = {2, 6}, sy[2] = {n, 4};
    void* x = rv_rand(2, sx);
    void* y = rv_rand(2, sy);
    TVMFFIAny args[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(y)};
    TVMFFIAny want = run(legal, args, 2), got = run(out, args, 2);
    CHECK_EQ_INT(rv_differ(&got, &want, 0), 0);
    tvm_ffi_any_release(&want), tvm_ffi_any_release(&got);
    tvm_ffi_release(x), tvm_ffi_release(y);
  }
  /* LowerRuntimeBuiltin: the views and shape_of become VM builtins, struct info kept. */
  tvm_tir_ir_module_obj* low = out ? tvm_relax_transform_lower_runtime_builtin(out) : NULL;
  CHECK(low != NULL);
  CHECK_STR_CONTAINS(text(low), "a = vm.builtin.reshape(x, shape(3, 4))");
  CHECK_STR_CONTAINS(text(low), "d = vm.builtin.reshape(y, shape(n * T.int64(2), 2))");
  CHECK_STR_CONTAINS(text(low), "s = vm.builtin.shape_of(e)");
  CHECK_EQ_INT(relax_models_count_calls(low, "main", "relax.reshape"), 0);
  CHECK_OK(tvm_relax_verify_well_formed(low));
  tvm_tir_ir_module_obj* again = low ? tvm_relax_transform_lower_runtime_builtin(low) : NULL;
  CHECK(again == low);
  tvm_ffi_release(again), tvm_ffi_release(low);
  tvm_ffi_release(out), tvm_ffi_release(legal), tvm_ffi_release(mod);
}

/* main(x: (8,)): z = memory.ensure_zero_offset(x); y = exp(z). Evaluated on a tensor whose
 * byte_offset is not 0 (a view 16 bytes into a 12-element buffer), z is x's elements from a data
 * pointer that holds the offset; LowerRuntimeBuiltin makes it vm.builtin.ensure_zero_offset. */
TEST(ensure_zero_offset) {
  rp m;
  rp_init(&m);
  tvm_relax_var_obj* x = rp_param(&m, "x", rt_tensor(F32, 1, (int64_t)8));
  rp_begin(&m, "main");
  tvm_relax_var_obj* z = rp_emit(&m, rp_call(&m, "relax.memory.ensure_zero_offset", NULL, 1, x), "z");
  tvm_relax_var_obj* y = rp_emit(&m, rp_call(&m, "relax.exp", NULL, 1, z), "y");
  tvm_tir_ir_module_obj* built = rp_finish(&m, (tvm_relax_expr_obj*)y);
  tvm_tir_ir_module_obj* mod = built ? tvm_relax_transform_legalize_ops(built) : NULL;
  tvm_ffi_release(built);
  CHECK(mod != NULL);
  int64_t s12 = 12;
  void* base = rv_rand(1, &s12);
  DLTensor proto = *tvm_ffi_tensor_dl(base);
  int64_t s8 = 8;
  proto.shape = &s8;
  proto.byte_offset = 16;
  void* off = NULL;
  CHECK_OK(TVMFFITensorCreateUnsafeView(base, &proto, &off));
  TVMFFIAny arg = tvm_ffi_any_obj(off);
  TVMFFIAny got = run(mod, &arg, 1);
  CHECK(got.type_index == kTVMFFITensor);
  if (got.type_index == kTVMFFITensor) {
    const float* in = tvm_ffi_tensor_dl(base)->data;
    const DLTensor* o = tvm_ffi_tensor_dl(got.v_obj);
    for (int i = 0; i < 8; ++i) CHECK(fabsf(((const float*)o->data)[i] - expf(in[4 + i])) < 1e-5f);
  }
  tvm_ffi_any_release(&got);
  tvm_tir_ir_module_obj* low = mod ? tvm_relax_transform_lower_runtime_builtin(mod) : NULL;
  CHECK_STR_CONTAINS(text(low), "z = vm.builtin.ensure_zero_offset(x)");
  CHECK_OK(tvm_relax_verify_well_formed(low));
  tvm_ffi_release(low), tvm_ffi_release(mod), tvm_ffi_release(off), tvm_ffi_release(base);
}

/* The element counts must be provably equal: reshaping (n, 4) to (m, 4) with m from a
 * match_cast stays a kernel call (upstream's rule). */
TEST(reshape_needs_equal_counts) {
  rp m;
  rp_init(&m);
  tvm_tir_expr_obj* n = rp_keep(&m, tvm_tir_var_new("n", I64));
  tvm_tir_var_obj* k = rp_keep(&m, tvm_tir_var_new("k", I64));
  void* yd[2] = {n, i64(&m, 4)};
  tvm_relax_var_obj* y = rp_param(&m, "y", rt_tensor_sym(F32, 2, yd));
  void* sd[1] = {k};
  rp_param(&m, "sh", tvm_relax_shape_sinfo_new(rp_keep(&m, tvm_ffi_array_of_objects(sd, 1)), 1));
  rp_begin(&m, "main");
  rp_dataflow(&m);
  void* kd[2] = {k, i64(&m, 4)};
  tvm_relax_var_obj* r = rp_emit(&m, rp_call(&m, "relax.reshape", NULL, 2, y, rp_shape(&m, 2, kd)), "r");
  tvm_relax_var_obj* o = rp_output(&m, rp_call(&m, "relax.exp", NULL, 1, r), "o");
  rp_block_end(&m);
  tvm_tir_ir_module_obj* mod = rp_finish(&m, (tvm_relax_expr_obj*)o);
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  tvm_tir_ir_module_obj* out = legal ? tvm_relax_transform_rewrite_dataflow_reshape(legal) : NULL;
  CHECK(out != NULL && out == legal);
  tvm_ffi_release(out), tvm_ffi_release(legal), tvm_ffi_release(mod);
}

/* main(x: (n, 4)): a = R.prim_value(n * 2); t = (x, R.prim_value(n + 1)); b = R.prim_value(n);
 * c = R.prim_value(n % 3 == 1); return (a, t, b, c, R.prim_value(n * n)) */
TEST(compute_prim_value) {
  rp m;
  rp_init(&m);
  tvm_tir_expr_obj* n = rp_keep(&m, tvm_tir_var_new("n", I64));
  void* xd[2] = {n, i64(&m, 4)};
  tvm_relax_var_obj* x = rp_param(&m, "x", rt_tensor_sym(F32, 2, xd));
  rp_begin(&m, "main");
  tvm_relax_expr_obj* pv2 = rp_keep(&m, tvm_relax_prim_value_new(rp_keep(&m, tvm_tir_mul(n, i64(&m, 2)))));
  tvm_relax_expr_obj* pv1 = rp_keep(&m, tvm_relax_prim_value_new(rp_keep(&m, tvm_tir_add(n, i64(&m, 1)))));
  tvm_relax_expr_obj* pvn = rp_keep(&m, tvm_relax_prim_value_new(n));
  tvm_tir_expr_obj* mod3 = rp_keep(&m, tvm_tir_floormod(n, i64(&m, 3)));
  tvm_relax_expr_obj* pvb = rp_keep(&m, tvm_relax_prim_value_new(rp_keep(&m, tvm_tir_eq(mod3, i64(&m, 1)))));
  tvm_relax_expr_obj* pvsq = rp_keep(&m, tvm_relax_prim_value_new(rp_keep(&m, tvm_tir_mul(n, n))));
  tvm_relax_var_obj* a = rp_emit(&m, pv2, "a");
  tvm_relax_var_obj* t = rp_emit(&m, rp_tuple(&m, 2, x, pv1), "t");
  tvm_relax_var_obj* b = rp_emit(&m, pvn, "b");
  tvm_relax_var_obj* c = rp_emit(&m, pvb, "c");
  tvm_tir_ir_module_obj* mod = rp_finish(&m, rp_tuple(&m, 5, a, t, b, c, pvsq));
  CHECK(mod != NULL);
  /* A call of a PrimFunc counts as impure: the pass runs after RemovePurityChecking. */
  tvm_tir_ir_module_obj* unchecked = mod ? tvm_relax_transform_remove_purity_checking(mod) : NULL;
  tvm_tir_ir_module_obj* out = unchecked ? tvm_relax_transform_compute_prim_value(unchecked) : NULL;
  tvm_ffi_release(unchecked);
  CHECK(out != NULL);
  /* The result's prim value is bound at the end of the last (ordinary) block, not in a block of
   * its own: adjacent ordinary blocks print alike and would not round trip. */
  CHECK_STR_EQ(text(out),
               "a = compute_symbolic_expr(?); lv_prim = compute_symbolic_expr1(?); t = (x, lv_prim); "
               "b = ?; c = compute_symbolic_expr2(?); lv_prim = compute_symbolic_expr3(?)");
  CHECK_OK(tvm_relax_verify_well_formed(out));
  void* f = out ? tvm_tir_ir_module_lookup(out, "compute_symbolic_expr3") : NULL;
  CHECK(tvm_tir_is(f, TVM_TIR_KIND_PrimFunc));
  tvm_ffi_release(f);
  for (int64_t k = 1; k <= 7; k += 3) {
    int64_t sx[2] = {k, 4};
    void* xt = rv_rand(2, sx);
    TVMFFIAny arg = tvm_ffi_any_obj(xt);
    TVMFFIAny want = run(mod, &arg, 1), got = run(out, &arg, 1);
    CHECK_EQ_INT(rv_differ(&got, &want, 0), 0);
    if (got.type_index == kTVMFFIArray) {
      CHECK_EQ_INT(tvm_ffi_seq_at(got.v_obj, 0)->v_int64, 2 * k);
      CHECK_EQ_INT(tvm_ffi_seq_at(got.v_obj, 4)->v_int64, k * k);
      CHECK(tvm_ffi_seq_at(got.v_obj, 3)->type_index == kTVMFFIBool);
      CHECK_EQ_INT(tvm_ffi_seq_at(got.v_obj, 3)->v_int64, k % 3 == 1);
    }
    tvm_ffi_any_release(&want), tvm_ffi_any_release(&got);
    tvm_ffi_release(xt);
  }
  tvm_tir_ir_module_obj* again = out ? tvm_relax_transform_compute_prim_value(out) : NULL;
  CHECK(again == out);
  tvm_ffi_release(again), tvm_ffi_release(out), tvm_ffi_release(mod);
}

TEST(bad_input) {
  CHECK(tvm_relax_transform_rewrite_dataflow_reshape(NULL) == NULL);
  CHECK_RAISED("TypeError", "RewriteDataflowReshape: an IRModule is required");
  CHECK(tvm_relax_transform_lower_runtime_builtin(NULL) == NULL);
  CHECK_RAISED("TypeError", "LowerRuntimeBuiltin: an IRModule is required");
  CHECK(tvm_relax_transform_compute_prim_value(NULL) == NULL);
  CHECK_RAISED("TypeError", "ComputePrimValue: an IRModule is required");
}

int main(void) {
  RUN(rewrite_dataflow_reshape);
  RUN(reshape_needs_equal_counts);
  RUN(compute_prim_value);
  RUN(ensure_zero_offset);
  RUN(bad_input);
  return test_summary();
}
