/*
 * test_schedule_compiled.c: the default CPU schedule (tvm/tir/schedule.h) compiled. The kernels
 * LegalizeOps makes for dense / matmul / batch matmul / convolutions (strided, padded) /
 * pooling / softmax / layer norm / reductions / elementwise ops with broadcasting, at odd shapes
 * (not multiples of the vector width, 1-sized dims, whole packed panels) and a symbolic batch,
 * are scheduled for
 * 128-, 256- and 512-bit vectors whatever the host (LLVM splits or widens what the host lacks),
 * with every nest parallel (grain 0), lowered, JIT-compiled and run on random inputs against the
 * interpreter on the unscheduled kernel. Then whole models through tvm_codegen_relax_build with
 * and without the schedule against the Relax reference evaluator.
 */
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/vm/vm.h>

#include "codegen_testing.h"
#include "relax_testing.h"
#include "pass_roundtrip.h"

/* Objects to release at the end of a test. */
typedef struct {
  void* objs[128];
  int n;
} pool;
static void* keep(pool* p, void* o) {
  if (p->n < 128) p->objs[p->n++] = o;
  return o;
}
static void drain(pool* p) {
  for (int i = p->n - 1; i >= 0; --i) tvm_ffi_release(p->objs[i]);
  p->n = 0;
}
static void* ints(pool* p, int n, const int64_t* v) {
  TVMFFIAny a[8];
  for (int i = 0; i < n; ++i) a[i] = tvm_ffi_any_int(v[i]);
  return keep(p, tvm_ffi_array_new(a, n));
}

/* main(...) over one call of each operator of the list; returns the tuple of their results. */
static tvm_tir_ir_module_obj* op_zoo(void) {
  pool p = {.n = 0};
  tvm_tir_var_obj* n = keep(&p, tvm_tir_var_new("n", I64));
  void* c37 = keep(&p, tvm_tir_const_int(I64, 37));
  tvm_relax_var_obj* x = keep(&p, rt_var_take("x", rt_tensor_sym(F32, 2, (void*[]){n, c37})));
  tvm_relax_var_obj* b = keep(&p, rt_var_take("b", rt_tensor(F32, 1, (int64_t)37)));
  tvm_relax_var_obj* a = keep(&p, rt_var_take("a", rt_tensor(F32, 2, (int64_t)7, (int64_t)13)));
  tvm_relax_var_obj* w = keep(&p, rt_var_take("w", rt_tensor(F32, 2, (int64_t)13, (int64_t)37)));
  tvm_relax_var_obj* a1 = keep(&p, rt_var_take("a1", rt_tensor(F32, 2, (int64_t)1, (int64_t)50)));
  tvm_relax_var_obj* w1 = keep(&p, rt_var_take("w1", rt_tensor(F32, 2, (int64_t)50, (int64_t)33)));
  void* c5 = keep(&p, tvm_tir_const_int(I64, 5)), *c9 = keep(&p, tvm_tir_const_int(I64, 9));
  tvm_relax_var_obj* bp = keep(&p, rt_var_take("bp", rt_tensor_sym(F32, 3, (void*[]){n, c5, c9})));
  tvm_relax_var_obj* bq = keep(&p, rt_var_take("bq", rt_tensor(F32, 2, (int64_t)9, (int64_t)18)));
  tvm_relax_var_obj* img = keep(&p, rt_var_take("img", rt_tensor(F32, 4, (int64_t)1, (int64_t)3, (int64_t)9, (int64_t)13)));
  tvm_relax_var_obj* k = keep(&p, rt_var_take("k", rt_tensor(F32, 4, (int64_t)5, (int64_t)3, (int64_t)3, (int64_t)3)));
  tvm_relax_var_obj* img2 = keep(&p, rt_var_take("img2", rt_tensor(F32, 4, (int64_t)2, (int64_t)4, (int64_t)11, (int64_t)10)));
  tvm_relax_var_obj* k2 = keep(&p, rt_var_take("k2", rt_tensor(F32, 4, (int64_t)6, (int64_t)4, (int64_t)3, (int64_t)3)));
  tvm_relax_var_obj* sm = keep(&p, rt_var_take("sm", rt_tensor(F32, 2, (int64_t)3, (int64_t)21)));
  tvm_relax_var_obj* ln = keep(&p, rt_var_take("ln", rt_tensor(F32, 2, (int64_t)4, (int64_t)37)));
  tvm_relax_var_obj* lg = keep(&p, rt_var_take("lg", rt_tensor(F32, 1, (int64_t)37)));
  tvm_relax_var_obj* lb = keep(&p, rt_var_take("lb", rt_tensor(F32, 1, (int64_t)37)));
  /* 256 rows over whole panels: packed (pack) */
  tvm_relax_var_obj* pa = keep(&p, rt_var_take("pa", rt_tensor(F32, 2, (int64_t)256, (int64_t)11)));
  tvm_relax_var_obj* pw = keep(&p, rt_var_take("pw", rt_tensor(F32, 2, (int64_t)11, (int64_t)64)));
  void* pv[18] = {x, b, a, w, a1, w1, bp, bq, img, k, img2, k2, sm, ln, lg, lb, pa, pw};
  void* params = keep(&p, tvm_ffi_array_of_objects(pv, 18)); /* rt_array takes 16 at most */
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_relax_bb_function_begin(bb, "main", params, NULL, true);
#define EMIT(call) keep(&p, tvm_relax_bb_emit(bb, keep(&p, (call)), NULL))
  void* r0 = EMIT(RT_CALL("relax.nn.relu", NULL, EMIT(RT_CALL("relax.add", NULL, x, b))));
  void* r1 = EMIT(RT_CALL("relax.matmul", NULL, a, w));
  void* r2 = EMIT(RT_CALL("relax.add", NULL, EMIT(RT_CALL("relax.matmul", NULL, a1, w1)),
                          keep(&p, tvm_relax_prim_value_new(keep(&p, tvm_tir_const_float(F32, 0.5))))));
  void* r3 = EMIT(RT_CALL("relax.matmul", NULL, bp, bq));
  void* pad1 = keep(&p, rt_attrs(1, "padding", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){1}))));
  void* c1 = EMIT(RT_CALL("relax.nn.conv2d", pad1, img, k));
  void* pool2 = keep(&p, rt_attrs(3, "pool_size", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){3})),
                                  "strides", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){2})),
                                  "padding", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){1}))));
  void* r4 = EMIT(RT_CALL("relax.nn.max_pool2d", pool2, c1));
  void* st2 = keep(&p, rt_attrs(2, "padding", tvm_ffi_any_obj(ints(&p, 2, (int64_t[]){1, 2})),
                                "strides", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){2}))));
  void* r5 = EMIT(RT_CALL("relax.nn.conv2d", st2, img2, k2));
  void* r6 = EMIT(RT_CALL("relax.nn.softmax", NULL, sm));
  void* ax = keep(&p, rt_attrs(1, "axes", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){-1}))));
  void* r7 = EMIT(RT_CALL("relax.nn.layer_norm", ax, ln, lg, lb));
  void* ax1 = keep(&p, rt_attrs(1, "axis", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){1}))));
  void* r8 = EMIT(RT_CALL("relax.sum", ax1, ln));
  void* r9 = EMIT(RT_CALL("relax.permute_dims", NULL, a));
  void* r10 = EMIT(RT_CALL("relax.matmul", NULL, pa, pw));
#undef EMIT
  void* outs = keep(&p, rt_array(11, r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10));
  tvm_relax_expr_obj* ret = keep(&p, tvm_relax_tuple_new(outs));
  tvm_tir_global_var_obj* g = keep(&p, tvm_relax_bb_function_end(bb, ret, NULL));
  tvm_tir_ir_module_obj* mod = g ? keep(&p, tvm_relax_bb_module(bb)) : NULL;
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  if (!legal) CHECK_OK(-1);
  drain(&p);
  tvm_relax_bb_free(bb);
  return legal;
}

/* Every PrimFunc of legal, scheduled for `bits`, compiled and compared with the interpreter on
 * the unscheduled kernel, at symbolic sizes 1 and 3. */
static void check_kernels(const tvm_tir_ir_module_obj* legal, int bits, int* out_scheduled) {
  tvm_tir_schedule_target t = tvm_tir_schedule_target_default();
  t.vector_bits = bits;
  t.parallel_grain = 0;
  const TVMFFIAny *key, *val;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(legal->functions, pos, &key, &val)) >= 0;) {
    if (!tvm_tir_is(val->v_obj, TVM_TIR_KIND_PrimFunc)) continue;
    TVMFFIAny name = tvm_ffi_any_obj(((tvm_tir_global_var_obj*)key->v_obj)->name_hint);
    void* f = tvm_tir_prim_func_with_attr((tvm_tir_prim_func_obj*)val->v_obj, "global_symbol", &name);
    void* g = f ? tvm_tir_schedule_default(f, &t) : NULL;
    if (!g) {
      CHECK_OK(-1);
      tvm_ffi_release(f);
      continue;
    }
    *out_scheduled += g != f;
    void* low = tvm_tir_lower(g, NULL);
    void* m = NULL;
    void* fn = low ? build_fn_(__LINE__, low, tvm_tir_func_global_symbol(low), &m) : NULL;
    if (!low) CHECK_OK(-1);
    for (int64_t sym = 1; fn && sym <= 3; sym += 2) diff_fn_(__LINE__, f, low, fn, &(cg_opts){.sym = sym});
    tvm_ffi_release(fn), tvm_ffi_release(m), tvm_ffi_release(low), tvm_ffi_release(g), tvm_ffi_release(f);
  }
}

TEST(scheduled_kernels_match_interpreter) {
  tvm_tir_ir_module_obj* legal = op_zoo();
  for (int b = 128; legal && b <= 512; b *= 2) {
    int scheduled = 0;
    check_kernels(legal, b, &scheduled);
    CHECK(scheduled >= 10); /* every kernel of the zoo has a loop nest the rules take */
  }
  tvm_ffi_release(legal);
}

/* Fused dense layers after the build pipeline (matmul + bias + relu in one kernel, reading its
 * intermediate): 70 columns (a short remainder vector after the full ones), 10 and 3 columns
 * (one vector narrower than the target's), 512 (full vectors: the epilogue computed from the
 * accumulators, schedule_epilogue), 32, 5 and 1 rows; dense + bias + relu, dense + bias, dense +
 * bias + a residual add. */
static tvm_tir_ir_module_obj* fused_dense_model(void) {
  pool p = {.n = 0};
  tvm_relax_var_obj* x = keep(&p, rt_var_take("x", rt_tensor(F32, 2, (int64_t)32, (int64_t)40)));
  tvm_relax_var_obj* w1 = keep(&p, rt_var_take("w1", rt_tensor(F32, 2, (int64_t)40, (int64_t)70)));
  tvm_relax_var_obj* b1 = keep(&p, rt_var_take("b1", rt_tensor(F32, 1, (int64_t)70)));
  tvm_relax_var_obj* w2 = keep(&p, rt_var_take("w2", rt_tensor(F32, 2, (int64_t)70, (int64_t)10)));
  tvm_relax_var_obj* b2 = keep(&p, rt_var_take("b2", rt_tensor(F32, 1, (int64_t)10)));
  tvm_relax_var_obj* a = keep(&p, rt_var_take("a", rt_tensor(F32, 2, (int64_t)5, (int64_t)7)));
  tvm_relax_var_obj* w3 = keep(&p, rt_var_take("w3", rt_tensor(F32, 2, (int64_t)7, (int64_t)3)));
  tvm_relax_var_obj* v = keep(&p, rt_var_take("v", rt_tensor(F32, 2, (int64_t)1, (int64_t)70)));
  tvm_relax_var_obj* w4 = keep(&p, rt_var_take("w4", rt_tensor(F32, 2, (int64_t)40, (int64_t)512)));
  tvm_relax_var_obj* b4 = keep(&p, rt_var_take("b4", rt_tensor(F32, 1, (int64_t)512)));
  tvm_relax_var_obj* r4 = keep(&p, rt_var_take("r4", rt_tensor(F32, 2, (int64_t)32, (int64_t)512)));
  tvm_relax_var_obj* x5 = keep(&p, rt_var_take("x5", rt_tensor(F32, 2, (int64_t)5, (int64_t)40)));
  tvm_relax_var_obj* x1 = keep(&p, rt_var_take("x1", rt_tensor(F32, 2, (int64_t)1, (int64_t)40)));
  void* params = keep(&p, rt_array(13, x, w1, b1, w2, b2, a, w3, v, w4, b4, r4, x5, x1));
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_relax_bb_function_begin(bb, "main", params, NULL, true);
  tvm_relax_bb_dataflow_begin(bb);
#define EMIT(call) keep(&p, tvm_relax_bb_emit(bb, keep(&p, (call)), NULL))
  void* h = EMIT(RT_CALL("relax.nn.relu", NULL, EMIT(RT_CALL("relax.add", NULL, EMIT(RT_CALL("relax.matmul", NULL, x, w1)), b1))));
  void* y = EMIT(RT_CALL("relax.add", NULL, EMIT(RT_CALL("relax.matmul", NULL, h, w2)), b2));
  void* z = EMIT(RT_CALL("relax.nn.relu", NULL, EMIT(RT_CALL("relax.matmul", NULL, a, w3))));
  void* u = EMIT(RT_CALL("relax.add", NULL, EMIT(RT_CALL("relax.matmul", NULL, v, w2)), b2));
  void* d1 = EMIT(RT_CALL("relax.nn.relu", NULL, EMIT(RT_CALL("relax.add", NULL, EMIT(RT_CALL("relax.matmul", NULL, x, w4)), b4))));
  void* d2 = EMIT(RT_CALL("relax.add", NULL, EMIT(RT_CALL("relax.add", NULL, EMIT(RT_CALL("relax.matmul", NULL, x, w4)), b4)), r4));
  void* d3 = EMIT(RT_CALL("relax.nn.relu", NULL, EMIT(RT_CALL("relax.add", NULL, EMIT(RT_CALL("relax.matmul", NULL, x5, w1)), b1))));
  void* d4 = EMIT(RT_CALL("relax.add", NULL, EMIT(RT_CALL("relax.matmul", NULL, x1, w4)), b4));
  void* d5 = EMIT(RT_CALL("relax.add", NULL, EMIT(RT_CALL("relax.matmul", NULL, x5, w1)), b1));
#undef EMIT
  void* out = keep(&p, tvm_relax_bb_emit_output(bb, keep(&p, tvm_relax_tuple_new(keep(&p, rt_array(8, y, z, u, d1, d2, d3, d4, d5)))), "out"));
  tvm_relax_bb_block_end(bb);
  tvm_tir_global_var_obj* g = keep(&p, tvm_relax_bb_function_end(bb, out, NULL));
  tvm_tir_ir_module_obj* mod = g ? keep(&p, tvm_relax_bb_module(bb)) : NULL;
  tvm_tir_ir_module_obj* built = mod ? tvm_relax_build_pipeline(mod) : NULL;
  if (!built) CHECK_OK(-1);
  drain(&p);
  tvm_relax_bb_free(bb);
  return built;
}

TEST(fused_dense_kernels_match_interpreter) {
  tvm_tir_ir_module_obj* mod = fused_dense_model();
  for (int b = 128; mod && b <= 512; b *= 2) {
    int scheduled = 0;
    check_kernels(mod, b, &scheduled);
    CHECK(scheduled >= 3);
  }
  tvm_ffi_release(mod);
}

TEST(host_target_facts) {
  tvm_tir_schedule_target t;
  tvm_codegen_schedule_target(NULL, &t);
  CHECK(t.vector_bits == 128 || t.vector_bits == 256 || t.vector_bits == 512);
  tvm_codegen_options o = tvm_codegen_options_default();
  CHECK(o.schedule);
  o.host_cpu = false; /* generic x86-64: SSE2 */
  tvm_codegen_schedule_target(&o, &t);
  CHECK_EQ_INT(t.vector_bits, 128);
  /* a named CPU: its ISA, whatever the host */
  setenv("TVM_CODEGEN_CPU", "haswell", 1);
  tvm_codegen_schedule_target(NULL, &t);
  CHECK_EQ_INT(t.vector_bits, 256);
  CHECK_EQ_INT(t.tile_rows, 4);
  setenv("TVM_CODEGEN_CPU", "skylake-avx512", 1);
  tvm_codegen_schedule_target(NULL, &t);
  CHECK_EQ_INT(t.vector_bits, 512);
  CHECK_EQ_INT(t.tile_rows, 8);
  unsetenv("TVM_CODEGEN_CPU");
}

/* relu(x @ w1 + b1) @ w2 + b2 with a batch-1 row (a 1 broadcast against a missing dim), and a
 * conv + bias + relu + pool, through the Relax build with and without the schedule. */
static tvm_tir_ir_module_obj* small_model(void) {
  pool p = {.n = 0};
  tvm_relax_var_obj* x = keep(&p, rt_var_take("x", rt_tensor(F32, 2, (int64_t)1, (int64_t)40)));
  tvm_relax_var_obj* w1 = keep(&p, rt_var_take("w1", rt_tensor(F32, 2, (int64_t)40, (int64_t)70)));
  tvm_relax_var_obj* b1 = keep(&p, rt_var_take("b1", rt_tensor(F32, 1, (int64_t)70)));
  tvm_relax_var_obj* w2 = keep(&p, rt_var_take("w2", rt_tensor(F32, 2, (int64_t)70, (int64_t)10)));
  tvm_relax_var_obj* img = keep(&p, rt_var_take("img", rt_tensor(F32, 4, (int64_t)1, (int64_t)3, (int64_t)20, (int64_t)20)));
  tvm_relax_var_obj* k = keep(&p, rt_var_take("k", rt_tensor(F32, 4, (int64_t)8, (int64_t)3, (int64_t)3, (int64_t)3)));
  tvm_relax_var_obj* kb = keep(&p, rt_var_take("kb", rt_tensor(F32, 3, (int64_t)8, (int64_t)1, (int64_t)1)));
  void* params = keep(&p, rt_array(7, x, w1, b1, w2, img, k, kb));
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_relax_bb_function_begin(bb, "main", params, NULL, true);
#define EMIT(call) keep(&p, tvm_relax_bb_emit(bb, keep(&p, (call)), NULL))
  void* h = EMIT(RT_CALL("relax.nn.relu", NULL, EMIT(RT_CALL("relax.add", NULL, EMIT(RT_CALL("relax.matmul", NULL, x, w1)), b1))));
  void* y = EMIT(RT_CALL("relax.matmul", NULL, h, w2));
  void* pad1 = keep(&p, rt_attrs(1, "padding", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){1}))));
  void* c = EMIT(RT_CALL("relax.nn.relu", NULL, EMIT(RT_CALL("relax.add", NULL, EMIT(RT_CALL("relax.nn.conv2d", pad1, img, k)), kb))));
  void* pl = keep(&p, rt_attrs(2, "pool_size", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){2})),
                               "strides", tvm_ffi_any_obj(ints(&p, 1, (int64_t[]){2}))));
  void* q = EMIT(RT_CALL("relax.nn.max_pool2d", pl, c));
#undef EMIT
  tvm_relax_expr_obj* ret = keep(&p, tvm_relax_tuple_new(keep(&p, rt_array(2, y, q))));
  tvm_tir_global_var_obj* g = keep(&p, tvm_relax_bb_function_end(bb, ret, NULL));
  tvm_tir_ir_module_obj* mod = g ? keep(&p, tvm_relax_bb_module(bb)) : NULL;
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  if (!legal) CHECK_OK(-1);
  drain(&p);
  tvm_relax_bb_free(bb);
  return legal;
}

static int64_t far_elems(const TVMFFIAny* a, const TVMFFIAny* b) {
  if (a->type_index == kTVMFFIArray) {
    int64_t n = 0;
    for (int64_t i = 0; i < tvm_ffi_seq_size(a->v_obj); ++i)
      n += far_elems(tvm_ffi_seq_at(a->v_obj, i), tvm_ffi_seq_at(b->v_obj, i));
    return n;
  }
  const DLTensor *x = tvm_ffi_tensor_dl(a->v_obj), *y = tvm_ffi_tensor_dl(b->v_obj);
  int64_t n = tvm_ffi_dltensor_numel(x), bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    double u = ((const float*)x->data)[i], v = ((const float*)y->data)[i];
    bad += !(fabs(u - v) <= 1e-4 * (1 + fabs(v)));
  }
  return bad;
}

TEST(models_with_and_without_schedule) {
  tvm_tir_ir_module_obj* mod = small_model();
  for (int s = 0; mod && s < 2; ++s) {
    tvm_codegen_options o = relax_roundtrip_options();
    o.schedule = s == 1;
    tvm_vm_executable* exec = tvm_codegen_relax_build(mod, &o);
    if (!exec) CHECK_OK(-1);
    tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
    int64_t shapes[7][4] = {{1, 40}, {40, 70}, {70}, {70, 10}, {1, 3, 20, 20}, {8, 3, 3, 3}, {8, 1, 1}};
    int nd[7] = {2, 2, 1, 2, 4, 4, 3};
    void* t[7];
    TVMFFIAny args[7], want, got;
    unsigned st = 77;
    for (int i = 0; i < 7; ++i) {
      t[i] = tvm_ffi_tensor_empty(shapes[i], nd[i], F32, (DLDevice){kDLCPU, 0});
      float* d = tvm_ffi_tensor_dl(t[i])->data;
      for (int64_t e = 0; e < tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(t[i])); ++e)
        d[e] = (float)((int)(rand_r(&st) % 199) - 99) / 64.0f;
      args[i] = tvm_ffi_any_obj(t[i]);
    }
    CHECK_OK(tvm_relax_eval(mod, "main", args, 7, &want));
    if (vm) {
      CHECK_OK(tvm_vm_invoke(vm, "main", args, 7, &got));
      CHECK_EQ_INT(far_elems(&got, &want), 0);
      tvm_ffi_any_release(&got);
    }
    tvm_ffi_any_release(&want);
    for (int i = 0; i < 7; ++i) tvm_ffi_release(t[i]);
    if (vm) tvm_vm_release(vm);
    tvm_ffi_release(exec);
  }
  tvm_ffi_release(mod);
}

int main(void) {
  RUN(scheduled_kernels_match_interpreter);
  RUN(fused_dense_kernels_match_interpreter);
  RUN(host_target_facts);
  RUN(models_with_and_without_schedule);
  return test_summary();
}
