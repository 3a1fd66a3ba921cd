/*
 * test_relax_runtime_ops.c: the runtime operators in one model, run by the reference evaluator
 * (after LegalizeOps) and compiled (tvm_codegen_relax_build: CallTIRRewrite, VMCodeGen, libvm):
 * call_tir_inplace of a hand-written kernel (one output in place, one new), call_dps_packed and
 * call_pure_packed of C functions registered here, tensor_to_shape with a match_cast binding
 * its values, shape_to_tensor, print (stdout captured) and assert_op (passing, and failing
 * with its message); on a symbolic batch, against values computed here; and the bad inputs.
 */
#include <math.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/tir/builder.h>
#include <tvm/vm/vm.h>

#include "relax_models.h"
#include "relax_testing.h"
#include "exec_mode_testing.h"
#include "stdout_capture.h"

/* test.dps_scale3(x, out): out = 3 * x (float32, same shape). */
static int dps_scale3(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  *rv = tvm_ffi_any_none();
  if (n != 2 || args[0].type_index != kTVMFFITensor || args[1].type_index != kTVMFFITensor) {
    return tvm_ffi_raise("TypeError", "test.dps_scale3 expects two tensors");
  }
  const DLTensor *x = tvm_ffi_tensor_dl(args[0].v_obj), *o = tvm_ffi_tensor_dl(args[1].v_obj);
  int64_t k = tvm_ffi_dltensor_numel(x);
  if (tvm_ffi_dltensor_numel(o) != k) return tvm_ffi_raise("ValueError", "test.dps_scale3: sizes differ");
  for (int64_t i = 0; i < k; ++i) ((float*)o->data)[i] = 3 * ((const float*)x->data)[i];
  return 0;
}

/* test.numel(x) -> int */
static int numel(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  if (n != 1 || args[0].type_index != kTVMFFITensor) return tvm_ffi_raise("TypeError", "test.numel expects a tensor");
  *rv = tvm_ffi_any_int(tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(args[0].v_obj)));
  return 0;
}

/* The in-place kernel: A (n, 4) in place, B (n, 4) new: A = 2 * A; B = A + 1. */
static tvm_tir_prim_func_obj* inplace_kernel(tvm_tir_var_obj* n) {
  tvm_tir_var_obj* kn = tvm_tir_var_new("n", I64);
  tvm_tir_buffer_obj* a = tvm_tir_buffer_decl_takev("A", F32, 2, (void*[]){tvm_tir_ref(kn), tvm_tir_i64(4)}, NULL);
  tvm_tir_buffer_obj* b = tvm_tir_buffer_decl_takev("B", F32, 2, (void*[]){tvm_tir_ref(kn), tvm_tir_i64(4)}, NULL);
  void *i = tvm_tir_var("i", I64), *j = tvm_tir_var("j", I64);
  void* s1 = tvm_tir_store_take(tvm_tir_ref(a), tvm_tir_mul_take(tvm_tir_load_take(tvm_tir_ref(a), tvm_tir_ref(i), tvm_tir_ref(j)), tvm_tir_f32(2)),
                                tvm_tir_ref(i), tvm_tir_ref(j));
  void* s2 = tvm_tir_store_take(tvm_tir_ref(b), tvm_tir_add_take(tvm_tir_load_take(tvm_tir_ref(a), tvm_tir_ref(i), tvm_tir_ref(j)), tvm_tir_f32(1)),
                                tvm_tir_ref(i), tvm_tir_ref(j));
  void* body = tvm_tir_serial_take(tvm_tir_ref(i), tvm_tir_i64(0), tvm_tir_ref(kn),
                                   tvm_tir_serial_take(tvm_tir_ref(j), tvm_tir_i64(0), tvm_tir_i64(4), tvm_tir_seq_take(s1, s2)));
  tvm_tir_prim_func_obj* f = tvm_tir_func_take("twice_inplace", tvm_tir_list_take(a, b), body);
  tvm_ffi_release(i), tvm_ffi_release(j), tvm_ffi_release(kn);
  (void)n;
  return f;
}

/* Objects made while building the model, released at the end. */
typedef struct {
  void* objs[128];
  int n;
} pool;
static void* keep(pool* p, void* o) {
  if (p->n < 128) p->objs[p->n++] = o;
  return o;
}
static tvm_relax_var_obj* emit(pool* p, tvm_relax_block_builder* bb, tvm_relax_expr_obj* e) {
  keep(p, e);
  return e ? keep(p, tvm_relax_bb_emit(bb, e, NULL)) : NULL;
}

/*
 * main(x: (n, 4) f32, s: (2,) i64, limit: () f32), impure:
 *   y = x + x
 *   z = call_tir_inplace(twice_inplace, (y,), [(n, 4), (n, 4)], inplace_indices=[0, -1])
 *   sh = tensor_to_shape(s); shm = match_cast(sh, R.Shape([a, 3])); o = ones(shape(a, 3))
 *   st = shape_to_tensor(shape_of(x))
 *   print(z[0], st, format="z0={} shape={}")
 *   assert_op(max(x) < limit, max(x), format="max {} too large")
 *   d = call_dps_packed("test.dps_scale3", (x,), (n, 4)); k = call_pure_packed("test.numel", x)
 *   return (z[0], z[1], o, st, d, k)
 */
static tvm_tir_ir_module_obj* runtime_model(void) {
  pool p = {.n = 0};
  tvm_tir_var_obj* n = keep(&p, tvm_tir_var_new("n", I64));
  tvm_tir_var_obj* a = keep(&p, tvm_tir_var_new("a", I64));
  void* c4 = keep(&p, tvm_tir_const_int(I64, 4));
  void* c3 = keep(&p, tvm_tir_const_int(I64, 3));
  void* dx[2] = {n, c4};
  tvm_relax_sinfo_obj* xs = keep(&p, rt_tensor_sym(F32, 2, dx));
  tvm_relax_var_obj* x = keep(&p, tvm_relax_var_new("x", xs, false));
  tvm_relax_var_obj* s = keep(&p, rt_var_take("s", rt_tensor(I64, 1, (int64_t)2)));
  tvm_relax_var_obj* limit = keep(&p, rt_var_take("limit", tvm_relax_tensor_sinfo_of_ints(NULL, 0, F32)));
  void* params = keep(&p, rt_array(3, x, s, limit));
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin_ex(bb, "main", params, NULL, TVM_RELAX_BB_IMPURE));
  tvm_tir_global_var_obj* kern = keep(&p, tvm_relax_bb_add_function(bb, keep(&p, inplace_kernel(n)), "twice_inplace"));
  tvm_relax_var_obj* y = emit(&p, bb, tvm_relax_call_op("relax.add", NULL, 2, x, x));
  /* call_tir_inplace */
  void* tin = keep(&p, rt_array(1, y));
  tvm_relax_expr_obj* tup = keep(&p, tvm_relax_tuple_new(tin));
  void* cargs = keep(&p, rt_array(2, kern, tup));
  void* osf = keep(&p, rt_array(2, xs, xs));
  tvm_relax_sinfo_obj* os = keep(&p, tvm_relax_tuple_sinfo_new(osf));
  void* osa = keep(&p, rt_array(1, os));
  TVMFFIAny idx[2] = {tvm_ffi_any_int(0), tvm_ffi_any_int(-1)};
  void* ia = keep(&p, tvm_ffi_array_new(idx, 2));
  void* iattrs = keep(&p, rt_attrs(1, "inplace_indices", tvm_ffi_any_obj(ia)));
  const tvm_relax_op_info* ip = tvm_relax_op_info_find("relax.call_tir_inplace", 22);
  tvm_relax_var_obj* z = emit(&p, bb, tvm_relax_call_new(tvm_relax_op(ip->id), cargs, iattrs, osa, NULL));
  tvm_relax_var_obj* z0 = emit(&p, bb, tvm_relax_tuple_get_item_new((tvm_relax_expr_obj*)z, 0));
  tvm_relax_var_obj* z1 = emit(&p, bb, tvm_relax_tuple_get_item_new((tvm_relax_expr_obj*)z, 1));
  /* tensor_to_shape + match_cast, then a tensor of that shape */
  tvm_relax_var_obj* sh = emit(&p, bb, tvm_relax_call_op("relax.tensor_to_shape", NULL, 1, s));
  void* sv = keep(&p, rt_array(2, a, c3));
  tvm_relax_sinfo_obj* shs = keep(&p, tvm_relax_shape_sinfo_new(sv, 2));
  tvm_relax_var_obj* shm = keep(&p, tvm_relax_bb_match_cast(bb, (tvm_relax_expr_obj*)sh, shs, "shm"));
  (void)shm;
  tvm_relax_expr_obj* oshape = keep(&p, tvm_relax_shape_expr_new(sv));
  void* a_dt = keep(&p, rt_attrs(1, "dtype", tvm_ffi_any_dtype(F32)));
  tvm_relax_var_obj* o = emit(&p, bb, tvm_relax_call_op("relax.ones", a_dt, 1, oshape));
  /* shape_to_tensor(shape_of(x)) */
  tvm_relax_var_obj* shx = emit(&p, bb, tvm_relax_call_op("relax.shape_of", NULL, 1, x));
  tvm_relax_var_obj* st = emit(&p, bb, tvm_relax_call_op("relax.shape_to_tensor", NULL, 1, shx));
  /* print and assert_op */
  TVMFFIAny pfmt = tvm_ffi_string("z0={} shape={}"), afmt = tvm_ffi_string("max {} too large");
  void* pattrs = keep(&p, rt_attrs(1, "format", pfmt));
  tvm_ffi_any_release(&pfmt);
  emit(&p, bb, tvm_relax_call_op("relax.print", pattrs, 2, z0, st));
  tvm_relax_var_obj* mx = emit(&p, bb, tvm_relax_call_op("relax.max", NULL, 1, x));
  tvm_relax_var_obj* cond = emit(&p, bb, tvm_relax_call_op("relax.less", NULL, 2, mx, limit));
  void* aattrs = keep(&p, rt_attrs(1, "format", afmt));
  tvm_ffi_any_release(&afmt);
  emit(&p, bb, tvm_relax_call_op("relax.assert_op", aattrs, 2, cond, mx));
  /* call_dps_packed and call_pure_packed of registered C functions */
  tvm_relax_expr_obj* dps_f = keep(&p, tvm_relax_extern_func_new("test.dps_scale3", NULL));
  void* xin = keep(&p, rt_array(1, x));
  tvm_relax_expr_obj* xt = keep(&p, tvm_relax_tuple_new(xin));
  void* dargs = keep(&p, rt_array(2, dps_f, xt));
  void* dsa = keep(&p, rt_array(1, xs));
  const tvm_relax_op_info* dp = tvm_relax_op_info_find("relax.call_dps_packed", 21);
  tvm_relax_var_obj* d = emit(&p, bb, tvm_relax_call_new(tvm_relax_op(dp->id), dargs, NULL, dsa, NULL));
  tvm_relax_expr_obj* nf = keep(&p, tvm_relax_extern_func_new("test.numel", NULL));
  void* pargs = keep(&p, rt_array(2, nf, x));
  tvm_relax_sinfo_obj* ps = keep(&p, tvm_relax_prim_sinfo_new(I64, NULL));
  void* psa = keep(&p, rt_array(1, ps));
  const tvm_relax_op_info* pp = tvm_relax_op_info_find("relax.call_pure_packed", 22);
  tvm_relax_var_obj* k = emit(&p, bb, tvm_relax_call_new(tvm_relax_op(pp->id), pargs, NULL, psa, NULL));
  void* rf = keep(&p, rt_array(6, z0, z1, o, st, d, k));
  tvm_relax_expr_obj* ret = keep(&p, tvm_relax_tuple_new(rf));
  tvm_tir_global_var_obj* g = keep(&p, tvm_relax_bb_function_end(bb, ret, NULL));
  tvm_tir_ir_module_obj* mod = g ? keep(&p, tvm_relax_bb_module(bb)) : NULL;
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  for (int i = p.n - 1; i >= 0; --i) tvm_ffi_release(p.objs[i]);
  tvm_relax_bb_free(bb);
  return legal;
}

static void* f32_tensor(int ndim, const int64_t* shape, const float* vals) {
  void* t = tvm_ffi_tensor_empty(shape, ndim, F32, (DLDevice){kDLCPU, 0});
  memcpy(tvm_ffi_tensor_dl(t)->data, vals, (size_t)tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(t)) * 4);
  return t;
}

static void* i64_tensor(int ndim, const int64_t* shape, const int64_t* vals) {
  void* t = tvm_ffi_tensor_empty(shape, ndim, I64, (DLDevice){kDLCPU, 0});
  memcpy(tvm_ffi_tensor_dl(t)->data, vals, (size_t)tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(t)) * 8);
  return t;
}

/* Check a result of main against x (nx rows) and s: (4x, 4x + 1, ones(s0, 3), [nx, 4], 3x, 4nx). */
static void check_result(const TVMFFIAny* r, const float* x, int64_t nx, int64_t s0) {
  CHECK(r->type_index == kTVMFFIArray && tvm_ffi_seq_size(r->v_obj) == 6);
  if (r->type_index != kTVMFFIArray || tvm_ffi_seq_size(r->v_obj) != 6) return;
  const TVMFFIAny* f[6];
  for (int i = 0; i < 6; ++i) f[i] = tvm_ffi_seq_at(r->v_obj, i);
  for (int i = 0; i < 5; ++i) CHECK_EQ_INT(f[i]->type_index, kTVMFFITensor);
  if (f[0]->type_index != kTVMFFITensor || f[4]->type_index != kTVMFFITensor) return;
  const float *z0 = tvm_ffi_tensor_dl(f[0]->v_obj)->data, *z1 = tvm_ffi_tensor_dl(f[1]->v_obj)->data;
  const float* d = tvm_ffi_tensor_dl(f[4]->v_obj)->data;
  int bad = 0;
  for (int64_t i = 0; i < nx * 4; ++i) {
    bad += z0[i] != 4 * x[i] || z1[i] != 4 * x[i] + 1 || d[i] != 3 * x[i];
  }
  CHECK_EQ_INT(bad, 0);
  const DLTensor* o = tvm_ffi_tensor_dl(f[2]->v_obj);
  CHECK(o->ndim == 2 && o->shape[0] == s0 && o->shape[1] == 3);
  for (int64_t i = 0; i < s0 * 3 && o->ndim == 2; ++i) bad += ((const float*)o->data)[i] != 1;
  CHECK_EQ_INT(bad, 0);
  const DLTensor* st = tvm_ffi_tensor_dl(f[3]->v_obj);
  CHECK(st->ndim == 1 && st->shape[0] == 2 && ((const int64_t*)st->data)[0] == nx && ((const int64_t*)st->data)[1] == 4);
  CHECK(f[5]->type_index == kTVMFFIInt && f[5]->v_int64 == nx * 4);
}

/* Run main on (x, s, limit) through the evaluator (vm NULL) or the VM; *printed what it printed. */
static int run(tvm_tir_ir_module_obj* mod, tvm_vm* vm, void* x, void* s, float limit, TVMFFIAny* out,
               const char** printed) {
  void* lt = f32_tensor(0, NULL, &limit);
  TVMFFIAny args[3] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(s), tvm_ffi_any_obj(lt)};
  *out = tvm_ffi_any_none();
  capture_begin();
  int rc = vm ? tvm_vm_invoke(vm, "main", args, 3, out) : tvm_relax_eval(mod, "main", args, 3, out);
  *printed = capture_end();
  tvm_ffi_release(lt);
  return rc;
}

/* pipeline: the build pipeline (CallTIRRewrite allocates); else VMCodeGen on the legalized
 * module as it is (call_tir / call_tir_inplace / call_dps_packed compiled directly). */
static void runtime_ops(bool pipeline) {
  tvm_tir_ir_module_obj* mod = runtime_model();
  CHECK(mod != NULL);
  tvm_vm_executable* exec = !mod ? NULL : pipeline ? test_mode(tvm_codegen_relax_build(mod, test_opts()))
                                                   : test_mode(tvm_codegen_relax_build_passes(mod, NULL, 0, test_opts()));
  CHECK(exec != NULL);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  CHECK(!exec || vm != NULL);
  /* Exact values: x = [[0.25, -0.5, 1, 2]], s = [2, 3]. */
  const float x1[4] = {0.25f, -0.5f, 1.0f, 2.0f};
  const int64_t s23[2] = {2, 3};
  for (int compiled = 0; mod && compiled < 2; ++compiled) {
    if (compiled && !vm) break;
    void* xt = f32_tensor(2, (int64_t[]){1, 4}, x1);
    void* st = i64_tensor(1, (int64_t[]){2}, s23);
    TVMFFIAny out;
    const char* printed;
    CHECK_OK(run(mod, compiled ? vm : NULL, xt, st, 100, &out, &printed));
    CHECK_STR_EQ(printed, "z0=[[1.0, -2.0, 4.0, 8.0]] shape=[1, 4]\n");
    check_result(&out, x1, 1, 2);
    tvm_ffi_any_release(&out);
    /* The assertion fails: an AssertionError with the formatted message, in both. */
    CHECK(run(mod, compiled ? vm : NULL, xt, st, 1.5f, &out, &printed) != 0);
    CHECK_RAISED("AssertionError", "max 2.0 too large");
    tvm_ffi_release(xt), tvm_ffi_release(st);
  }
  /* Random inputs on a larger batch: the compiled model prints and returns what the evaluator
   * does. */
  for (int64_t nx = 3; vm && nx <= 5; nx += 2) {
    float xv[20];
    uint64_t r = 0x1234567u + (uint64_t)nx;
    for (int64_t i = 0; i < nx * 4; ++i) {
      r ^= r << 13, r ^= r >> 7, r ^= r << 17;
      xv[i] = (float)((int64_t)(r % 64) - 32) / 8.0f;
    }
    void* xt = f32_tensor(2, (int64_t[]){nx, 4}, xv);
    void* st = i64_tensor(1, (int64_t[]){2}, (int64_t[]){nx + 1, 3});
    TVMFFIAny want, got;
    const char* printed;
    char want_text[4096];
    CHECK_OK(run(mod, NULL, xt, st, 100, &want, &printed));
    snprintf(want_text, sizeof(want_text), "%s", printed);
    CHECK_OK(run(mod, vm, xt, st, 100, &got, &printed));
    CHECK_STR_EQ(printed, want_text);
    CHECK(strncmp(want_text, "z0=[[", 5) == 0);
    check_result(&want, xv, nx, nx + 1);
    check_result(&got, xv, nx, nx + 1);
    tvm_ffi_any_release(&want), tvm_ffi_any_release(&got);
    tvm_ffi_release(xt), tvm_ffi_release(st);
  }
  /* A shape tensor that does not match the match_cast's R.Shape([a, 3]): a located error in
   * both, before anything is printed. */
  const int64_t s25[2] = {2, 5};
  for (int compiled = 0; mod && compiled < 2; ++compiled) {
    if (compiled && !vm) break;
    void* xt = f32_tensor(2, (int64_t[]){1, 4}, x1);
    void* st = i64_tensor(1, (int64_t[]){2}, s25);
    TVMFFIAny out;
    const char* printed;
    CHECK(run(mod, compiled ? vm : NULL, xt, st, 100, &out, &printed) != 0);
    CHECK_STR_EQ(printed, "");
    void* e = tvm_ffi_error_take();
    CHECK(e != NULL);
    if (e) {
      CHECK_STR_EQ(tvm_ffi_error_kind(e), "ValueError");
      /* evaluator: "main: match_cast of shm dim 1 is 5, expected 3"; VM: "... match_cast of
       * shm of R.Shape([a, 3]): expected 3 but got 5" */
      CHECK_STR_CONTAINS(tvm_ffi_error_message(e), "match_cast of shm");
      CHECK_STR_CONTAINS(tvm_ffi_error_message(e), compiled ? "expected 3 but got 5" : "is 5, expected 3");
    }
    tvm_ffi_release(e), tvm_ffi_release(xt), tvm_ffi_release(st);
  }
  if (vm) tvm_vm_release(vm);
  tvm_ffi_release(exec);
  tvm_ffi_release(mod);
}

TEST(runtime_ops_evaluated_and_compiled) { runtime_ops(true); }
TEST(runtime_ops_compiled_without_call_tir_rewrite) { runtime_ops(false); }

TEST(call_tir_rewrite_of_inplace_and_dps) {
  tvm_tir_ir_module_obj* mod = runtime_model();
  CHECK(mod != NULL);
  const tvm_relax_pass* passes;
  int64_t np = tvm_relax_build_pipeline_passes(&passes), k = 0;
  while (k < np && strcmp(passes[k].name, "CallTIRRewrite") != 0) ++k;
  tvm_tir_ir_module_obj* out = mod && k < np ? run_passes_roundtrip(mod, passes, k + 1) : NULL;
  CHECK(out != NULL);
  char buf[4096];
  const char* text = out ? relax_models_bindings_text(out, "main", buf, sizeof(buf)) : "";
  /* in place: only the new output is allocated and passed; the result is (y, alloc) */
  CHECK_STR_CONTAINS(text, "_ = twice_inplace(gv, alloc1); gv1 = (gv, alloc1)");
  /* call_dps_packed: the ExternFunc called with the input and the allocated output */
  CHECK_STR_CONTAINS(text, "_ = test.dps_scale3(x, alloc");
  CHECK_EQ_INT(relax_models_count_calls(out, "main", "relax.call_tir_inplace"), 0);
  CHECK_EQ_INT(relax_models_count_calls(out, "main", "relax.call_dps_packed"), 0);
  if (out) CHECK_OK(tvm_relax_verify_well_formed(out));
  tvm_ffi_release(out), tvm_ffi_release(mod);
}

int main(void) {
  tvm_vm_init();
  CHECK_OK(tvm_ffi_global_register("test.dps_scale3", dps_scale3, true));
  CHECK_OK(tvm_ffi_global_register("test.numel", numel, true));
  RUN(runtime_ops_evaluated_and_compiled);
  RUN(runtime_ops_compiled_without_call_tir_rewrite);
  RUN(call_tir_rewrite_of_inplace_and_dps);
  return test_summary();
}
