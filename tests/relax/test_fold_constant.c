/*
 * test_fold_constant.c: FoldConstant. Models with random constant inputs: operators folded before
 * legalization and call_tir folded after it give a module whose evaluation equals the unfolded
 * module's, and whose folded constants equal the evaluator's values of the same expressions;
 * tuple results and their fields; what is not folded (results over the size limit, impure
 * calls, calls whose evaluation fails); the result is well formed and a second run changes
 * nothing.
 */
#include <math.h>
#include <string.h>

#include "relax_models.h"
#include "relax_pool.h"
#include "relax_testing.h"
#include "values_testing.h"

/* A Constant of random float32 data, kept by the builder. */
static tvm_relax_expr_obj* rand_const(rp* m, int ndim, const int64_t* shape) {
  void* t = rv_rand(ndim, shape);
  tvm_relax_expr_obj* c = tvm_relax_constant_new(t, NULL);
  tvm_ffi_release(t);
  return rp_keep(m, c);
}

/* eval(mod, main, x); the result, or None with the error printed. */
static TVMFFIAny run(const tvm_tir_ir_module_obj* mod, void* x) {
  TVMFFIAny arg = tvm_ffi_any_obj(x), out = tvm_ffi_any_none();
  if (!mod || tvm_relax_eval(mod, "main", &arg, 1, &out) != 0) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "eval: %s\n", e ? tvm_ffi_error_message(e) : "(no module)");
    tvm_ffi_release(e);
    return tvm_ffi_any_none();
  }
  return out;
}

static char g_text[4096];
static const char* text(const tvm_tir_ir_module_obj* mod) {
  return mod ? relax_models_bindings_text(mod, "main", g_text, sizeof(g_text)) : "(null)";
}

/* main(x: (2, 3)) with constants c1 (2, 3), c2 (3,), c3 (4, 3):
 *   a = c1 + c2; b = exp(a) (an output); s = split(c3, 2); t0 = s[0]; y = x + b; gv = y * t0
 *   return (gv, b) */
static tvm_tir_ir_module_obj* const_model(void) {
  rp m;
  rp_init(&m);
  tvm_relax_var_obj* x = rp_param(&m, "x", rt_tensor(F32, 2, (int64_t)2, (int64_t)3));
  rp_begin(&m, "main");
  int64_t s23[2] = {2, 3}, s3[1] = {3}, s43[2] = {4, 3};
  tvm_relax_expr_obj* c1 = rand_const(&m, 2, s23);
  tvm_relax_expr_obj* c2 = rand_const(&m, 1, s3);
  tvm_relax_expr_obj* c3 = rand_const(&m, 2, s43);
  rp_dataflow(&m);
  tvm_relax_var_obj* a = rp_emit(&m, rp_call(&m, "relax.add", NULL, 2, c1, c2), "a");
  tvm_relax_var_obj* b = rp_output(&m, rp_call(&m, "relax.exp", NULL, 1, a), "b");
  void* attrs = rp_keep(&m, rt_attrs(2, "indices_or_sections", tvm_ffi_any_int(2), "axis", tvm_ffi_any_int(0)));
  tvm_relax_var_obj* s = rp_emit(&m, rp_call(&m, "relax.split", attrs, 1, c3), "s");
  tvm_relax_var_obj* t0 = rp_emit(&m, s ? rp_keep(&m, tvm_relax_tuple_get_item_new((void*)s, 0)) : NULL, "t0");
  tvm_relax_var_obj* y = rp_emit(&m, rp_call(&m, "relax.add", NULL, 2, x, b), "y");
  tvm_relax_var_obj* gv = rp_output(&m, rp_call(&m, "relax.multiply", NULL, 2, y, t0), "gv");
  rp_block_end(&m);
  return rp_finish(&m, rp_tuple(&m, 2, gv, b));
}

/* The field i of main's result when it is a Tuple (borrowed), else NULL. */
static const void* result_field(const tvm_tir_ir_module_obj* mod, int64_t i) {
  void* f = tvm_tir_ir_module_lookup(mod, "main");
  const void* body = f ? ((const tvm_relax_seq_expr_obj*)((tvm_relax_function_obj*)f)->body)->body : NULL;
  tvm_ffi_release(f); /* the module keeps it */
  if (tvm_relax_kind_of(body) != TVM_RELAX_KIND_Tuple) return NULL;
  return tvm_ffi_seq_obj_at(((const tvm_relax_tuple_obj*)body)->fields, i);
}

TEST(folds_operators_and_call_tir) {
  tvm_tir_ir_module_obj* mod = const_model();
  CHECK(mod != NULL);
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  /* Before legalization: the operators are evaluated through their kernels. */
  tvm_tir_ir_module_obj* pre = mod ? tvm_relax_transform_fold_constant(mod) : NULL;
  CHECK(pre != NULL);
  CHECK_STR_EQ(text(pre), "df: y = add(x, const); gv = multiply(y, const)");
  CHECK_OK(tvm_relax_verify_well_formed(pre));
  tvm_tir_ir_module_obj* pre_legal = pre ? tvm_relax_transform_legalize_ops(pre) : NULL;
  /* After legalization: call_tir of the kernels. */
  tvm_tir_ir_module_obj* post = legal ? tvm_relax_transform_fold_constant(legal) : NULL;
  CHECK(post != NULL);
  CHECK_STR_EQ(text(post), "df: y = call_tir(add1, (x, const)); gv = call_tir(multiply, (y, const))");
  CHECK_OK(tvm_relax_verify_well_formed(post));
  /* The folded b is the evaluator's b; the whole model evaluates alike. */
  for (int trial = 0; trial < 3; ++trial) {
    int64_t s23[2] = {2, 3};
    void* x = rv_rand(2, s23);
    TVMFFIAny want = run(legal, x), got_pre = run(pre_legal, x), got_post = run(post, x);
    CHECK_EQ_INT(rv_differ(&got_pre, &want, 1e-6), 0);
    CHECK_EQ_INT(rv_differ(&got_post, &want, 1e-6), 0);
    for (int k = 0; k < 2; ++k) {
      const tvm_relax_constant_obj* b = result_field(k ? post : pre, 1);
      CHECK(tvm_relax_kind_of(b) == TVM_RELAX_KIND_Constant);
      if (b && want.type_index == kTVMFFIArray) {
        TVMFFIAny folded = tvm_ffi_any_obj(b->data);
        CHECK_EQ_INT(rv_differ(&folded, tvm_ffi_seq_at(want.v_obj, 1), 1e-6), 0);
      }
    }
    tvm_ffi_any_release(&want), tvm_ffi_any_release(&got_pre), tvm_ffi_any_release(&got_post);
    tvm_ffi_release(x);
  }
  /* Nothing is left to fold. */
  tvm_tir_ir_module_obj* again = post ? tvm_relax_transform_fold_constant(post) : NULL;
  CHECK(again != NULL && again == post);
  tvm_ffi_release(again), tvm_ffi_release(post), tvm_ffi_release(pre_legal), tvm_ffi_release(pre);
  tvm_ffi_release(legal), tvm_ffi_release(mod);
}

/* main(x: (512, 1024)): big = broadcast_to(c, (512, 1024)) (2 MiB, over the limit);
 * small = broadcast_to(c, (4, 4)); bad = take(c4, [7]) (out of range: its evaluation fails);
 * return (x + big, small, bad) */
TEST(what_is_not_folded) {
  rp m;
  rp_init(&m);
  tvm_relax_var_obj* x = rp_param(&m, "x", rt_tensor(F32, 2, (int64_t)512, (int64_t)1024));
  rp_begin(&m, "main");
  int64_t s1[1] = {1}, s4[1] = {4};
  tvm_relax_expr_obj* c = rand_const(&m, 1, s1);
  tvm_relax_expr_obj* c4 = rand_const(&m, 1, s4);
  void* idx = tvm_ffi_tensor_empty((int64_t[]){1}, 1, I64, (DLDevice){kDLCPU, 0});
  *(int64_t*)tvm_ffi_tensor_dl(idx)->data = 7;
  tvm_relax_expr_obj* ci = rp_keep(&m, tvm_relax_constant_new(idx, NULL));
  tvm_ffi_release(idx);
  tvm_tir_expr_obj* dims_big[2] = {rp_keep(&m, tvm_tir_const_int(I64, 512)), rp_keep(&m, tvm_tir_const_int(I64, 1024))};
  tvm_tir_expr_obj* dims_small[2] = {rp_keep(&m, tvm_tir_const_int(I64, 4)), rp_keep(&m, tvm_tir_const_int(I64, 4))};
  rp_dataflow(&m);
  tvm_relax_var_obj* big = rp_emit(&m, rp_call(&m, "relax.broadcast_to", NULL, 2, c, rp_shape(&m, 2, (void**)dims_big)), "big");
  tvm_relax_var_obj* small = rp_emit(&m, rp_call(&m, "relax.broadcast_to", NULL, 2, c, rp_shape(&m, 2, (void**)dims_small)), "small");
  tvm_relax_var_obj* bad = rp_emit(&m, rp_call(&m, "relax.take", NULL, 2, c4, ci), "bad");
  tvm_relax_var_obj* sum = rp_output(&m, rp_call(&m, "relax.add", NULL, 2, x, big), "sum");
  tvm_relax_var_obj* gs = rp_output(&m, (tvm_relax_expr_obj*)small, "gs");
  tvm_relax_var_obj* gb = rp_output(&m, (tvm_relax_expr_obj*)bad, "gb");
  rp_block_end(&m);
  tvm_tir_ir_module_obj* mod = rp_finish(&m, rp_tuple(&m, 3, sum, gs, gb));
  CHECK(mod != NULL);
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  tvm_tir_ir_module_obj* out = legal ? tvm_relax_transform_fold_constant(legal) : NULL;
  CHECK(out != NULL);
  CHECK(!tvm_ffi_error_pending());
  /* small is folded (and so is its output alias); big and the failing take are not. */
  CHECK_STR_EQ(text(out), "df: big = call_tir(broadcast_to, (const)); bad = call_tir(take, (const, const)); "
                          "sum = call_tir(add, (x, big)); gb = bad");
  CHECK(tvm_relax_kind_of(result_field(out, 1)) == TVM_RELAX_KIND_Constant);
  CHECK_OK(tvm_relax_verify_well_formed(out));
  tvm_ffi_release(out), tvm_ffi_release(legal), tvm_ffi_release(mod);
}

/* An impure call is never folded, even with constant arguments. */
TEST(impure_calls_stay) {
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 1, (int64_t)4));
  void* params = rt_array(1, x);
  void* t = tvm_ffi_tensor_empty(NULL, 0, tvm_tir_dtype_bool(), (DLDevice){kDLCPU, 0});
  *(uint8_t*)tvm_ffi_tensor_dl(t)->data = 1;
  tvm_relax_expr_obj* c = tvm_relax_constant_new(t, NULL);
  tvm_relax_expr_obj* fmt = tvm_relax_string_imm_new("never", 5);
  tvm_relax_expr_obj* check = c ? RT_CALL("relax.assert_op", NULL, c, fmt) : NULL;
  CHECK_OK(tvm_relax_bb_function_begin_ex(bb, "main", params, NULL, TVM_RELAX_BB_IMPURE));
  tvm_relax_var_obj* v = check ? tvm_relax_bb_emit(bb, check, "_") : NULL;
  tvm_tir_global_var_obj* g = tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)x, NULL);
  tvm_tir_ir_module_obj* mod = g ? tvm_relax_bb_module(bb) : NULL;
  tvm_tir_ir_module_obj* out = mod ? tvm_relax_transform_fold_constant(mod) : NULL;
  CHECK(out != NULL && out == mod);
  CHECK_EQ_INT(relax_models_count_calls(out, "main", "relax.assert_op"), 1);
  void* objs[] = {out, mod, g, v, check, fmt, c, t, params, x};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  tvm_relax_bb_free(bb);
}

TEST(bad_input) {
  CHECK(tvm_relax_transform_fold_constant(NULL) == NULL);
  CHECK_RAISED("TypeError", "FoldConstant: an IRModule is required");
}

int main(void) {
  RUN(folds_operators_and_call_tir);
  RUN(what_is_not_folded);
  RUN(impure_calls_stay);
  RUN(bad_input);
  return test_summary();
}
