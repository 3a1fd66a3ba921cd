/*
 * test_relax_build.c: Relax models compiled to VM executables (VMCodeGen + LLVM kernels) and run
 * in libvm, checked against the Relax reference evaluator on random inputs: a chain of
 * elementwise operators with broadcasting and a symbolic batch, If, tuples, match_cast; bad
 * arguments to the compiled model are located errors from the VM.
 */
#include <math.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/relax.h>
#include <tvm/vm/vm.h>

#include "relax_testing.h"

static uint64_t g_rng = 0x1234567887654321ull;
static float rndf(void) {
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return (float)((double)(g_rng >> 11) / 9007199254740992.0 * 4.0 - 2.0);
}

static void* rand_tensor(int ndim, const int64_t* shape) {
  void* t = tvm_ffi_tensor_empty(shape, ndim, F32, (DLDevice){kDLCPU, 0});
  int64_t n = tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(t));
  float* p = tvm_ffi_tensor_dl(t)->data;
  for (int64_t i = 0; i < n; ++i) p[i] = rndf();
  return t;
}

/* Compare two tensors (or tuples of tensors) elementwise. */
static int max_diff_bad(const TVMFFIAny* a, const TVMFFIAny* b) {
  if (a->type_index == kTVMFFIArray) {
    int bad = 0;
    for (int64_t i = 0; i < tvm_ffi_seq_size(a->v_obj); ++i) {
      bad += max_diff_bad(tvm_ffi_seq_at(a->v_obj, i), tvm_ffi_seq_at(b->v_obj, i));
    }
    return bad;
  }
  const DLTensor* x = tvm_ffi_tensor_dl(a->v_obj);
  const DLTensor* y = tvm_ffi_tensor_dl(b->v_obj);
  int64_t n = tvm_ffi_dltensor_numel(x);
  if (n != tvm_ffi_dltensor_numel(y)) return 1;
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    double u = ((const float*)x->data)[i], v = ((const float*)y->data)[i];
    if (fabs(u - v) > 1e-5 * (1 + fabs(v))) ++bad;
  }
  return bad;
}

/* main(x: (n, 4), b: (4,)): lv = exp(x) + b; if cond: r = relu(lv) else r = sigmoid(lv);
 * m = match_cast(r, (n, 4)); return (m, x * b) */
static tvm_tir_ir_module_obj* model(void) {
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_tir_expr_obj* four = tvm_tir_const_int(I64, 4);
  void* d[2] = {n, four};
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor_sym(F32, 2, d));
  tvm_relax_var_obj* b = rt_var_take("b", rt_tensor(F32, 1, (int64_t)4));
  tvm_relax_var_obj* c = rt_var_take("c", rt_tensor(tvm_tir_dtype_bool(), 0));
  void* params = rt_array(3, x, b, c);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", params, NULL, true));
  tvm_relax_expr_obj* e = RT_CALL("relax.exp", NULL, x);
  tvm_relax_expr_obj* add = e ? RT_CALL("relax.add", NULL, e, b) : NULL;
  tvm_relax_var_obj* lv = tvm_relax_bb_emit(bb, add, "lv");
  /* the branches are SeqExprs of their own bindings */
  tvm_relax_expr_obj* relu = RT_CALL("relax.nn.relu", NULL, lv);
  tvm_relax_var_obj* t1 = tvm_relax_var_new("t1", tvm_relax_sinfo_of(relu), false);
  tvm_relax_binding_obj* b1 = tvm_relax_var_binding_new(t1, relu);
  void* bs1 = rt_array(1, b1);
  tvm_relax_block_obj* k1 = tvm_relax_block_new(bs1, false);
  void* ks1 = rt_array(1, k1);
  tvm_relax_expr_obj* s1 = tvm_relax_seq_expr_new(ks1, (tvm_relax_expr_obj*)t1);
  tvm_relax_expr_obj* sig = RT_CALL("relax.sigmoid", NULL, lv);
  tvm_relax_var_obj* t2 = tvm_relax_var_new("t2", tvm_relax_sinfo_of(sig), false);
  tvm_relax_binding_obj* b2 = tvm_relax_var_binding_new(t2, sig);
  void* bs2 = rt_array(1, b2);
  tvm_relax_block_obj* k2 = tvm_relax_block_new(bs2, false);
  void* ks2 = rt_array(1, k2);
  tvm_relax_expr_obj* s2 = tvm_relax_seq_expr_new(ks2, (tvm_relax_expr_obj*)t2);
  tvm_relax_expr_obj* iff = tvm_relax_if_new((tvm_relax_expr_obj*)c, s1, s2);
  tvm_relax_var_obj* r = tvm_relax_bb_emit(bb, iff, "r");
  tvm_relax_sinfo_obj* ms = rt_tensor_sym(F32, 2, d);
  tvm_relax_var_obj* m = tvm_relax_bb_match_cast(bb, (tvm_relax_expr_obj*)r, ms, "m");
  tvm_relax_expr_obj* mul = RT_CALL("relax.multiply", NULL, x, b);
  tvm_relax_var_obj* p = tvm_relax_bb_emit(bb, mul, "p");
  void* out_f = rt_array(2, m, p);
  tvm_relax_expr_obj* out = tvm_relax_tuple_new(out_f);
  tvm_tir_global_var_obj* g = tvm_relax_bb_function_end(bb, out, NULL);
  tvm_tir_ir_module_obj* mod = g ? tvm_relax_bb_module(bb) : NULL;
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  void* objs[] = {mod, g, out, out_f, p, mul, m, ms, r, iff, s2, ks2, k2, bs2, b2, t2, sig,
                  s1, ks1, k1, bs1, b1, t1, relu, lv, add, e, params, c, b, x, four, n};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  tvm_relax_bb_free(bb);
  return legal;
}

TEST(compiled_model_matches_evaluator) {
  tvm_tir_ir_module_obj* mod = model();
  CHECK(mod != NULL);
  tvm_vm_executable* exec = mod ? tvm_codegen_relax_build(mod, NULL) : NULL;
  CHECK(exec != NULL);
  if (!exec) {
    CHECK_OK(-1);
    tvm_ffi_release(mod);
    return;
  }
  tvm_vm* vm = tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1);
  CHECK(vm != NULL);
  for (int trial = 0; trial < 4; ++trial) {
    int64_t batch = 1 + trial * 3;
    int64_t sx[2] = {batch, 4}, sb[1] = {4};
    void* x = rand_tensor(2, sx);
    void* b = rand_tensor(1, sb);
    void* c = tvm_ffi_tensor_empty(NULL, 0, tvm_ffi_dtype(kDLBool, 8, 1), (DLDevice){kDLCPU, 0});
    *(uint8_t*)tvm_ffi_tensor_dl(c)->data = (uint8_t)(trial & 1);
    /* The bool condition: the model declares it bool (uint1); a DLPack bool tensor. */
    tvm_ffi_tensor_dl(c)->dtype = tvm_tir_dtype_bool();
    TVMFFIAny args[3] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(b), tvm_ffi_any_obj(c)};
    TVMFFIAny want, got;
    CHECK_OK(tvm_relax_eval(mod, "main", args, 3, &want));
    CHECK_OK(tvm_vm_invoke(vm, "main", args, 3, &got));
    if (want.type_index == kTVMFFIArray && got.type_index == kTVMFFIArray) {
      CHECK_EQ_INT(max_diff_bad(&got, &want), 0);
    } else {
      CHECK(0);
    }
    tvm_ffi_any_release(&want);
    tvm_ffi_any_release(&got);
    tvm_ffi_release(x), tvm_ffi_release(b), tvm_ffi_release(c);
  }
  /* A wrong shape is refused by the compiled function's entry checks. */
  int64_t s5[1] = {5}, sx[2] = {2, 4};
  void* x = rand_tensor(2, sx);
  void* b5 = rand_tensor(1, s5);
  void* c = tvm_ffi_tensor_empty(NULL, 0, tvm_tir_dtype_bool(), (DLDevice){kDLCPU, 0});
  TVMFFIAny args[3] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(b5), tvm_ffi_any_obj(c)}, got;
  CHECK(tvm_vm_invoke(vm, "main", args, 3, &got) != 0);
  void* err = tvm_ffi_error_take();
  CHECK(err != NULL);
  if (err) {
    CHECK_STR_CONTAINS(tvm_ffi_error_message(err), "argument 'b'");
    tvm_ffi_release(err);
  }
  tvm_ffi_release(x), tvm_ffi_release(b5), tvm_ffi_release(c);
  tvm_vm_release(vm);
  tvm_ffi_release(exec);
  tvm_ffi_release(mod);
}

TEST(unlegalized_module_is_refused) {
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 1, (int64_t)4));
  void* params = rt_array(1, x);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_relax_bb_function_begin(bb, "main", params, NULL, true);
  tvm_relax_expr_obj* e = RT_CALL("relax.exp", NULL, x);
  tvm_relax_var_obj* v = tvm_relax_bb_emit(bb, e, NULL);
  tvm_tir_global_var_obj* g = tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)v, NULL);
  tvm_tir_ir_module_obj* mod = tvm_relax_bb_module(bb);
  CHECK(tvm_codegen_relax_vm_codegen(mod) == NULL);
  CHECK_RAISED("ValueError", "VMCodeGen: main: operator call left in the module (legalize it first): relax.exp");
  tvm_ffi_release(mod), tvm_ffi_release(g), tvm_ffi_release(v), tvm_ffi_release(e);
  tvm_relax_bb_free(bb), tvm_ffi_release(params), tvm_ffi_release(x);
}

int main(void) {
  RUN(compiled_model_matches_evaluator);
  RUN(unlegalized_module_is_refused);
  return test_summary();
}
