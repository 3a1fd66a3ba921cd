/*
 * test_relax_build.c: Relax models compiled to VM executables (VMCodeGen + LLVM kernels) and run
 * in libvm, checked against the Relax reference evaluator on random inputs: a chain of
 * elementwise operators with broadcasting and a symbolic batch, If, tuples, match_cast; an MLP
 * chain through the build pipeline (planned storages, kills) and through LegalizeOps alone
 * (call_tir compiled directly); the peak memory of a run with and without the memory passes;
 * bad arguments to the compiled model are located errors from the VM; an error the caller left
 * raised does not disturb parse, call, print, build or run.
 */
#include <math.h>
#include <string.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/relax.h>
#include <tvm/script/parser.h>
#include <tvm/script/printer.h>
#include <tvm/vm/vm.h>

#include "relax_models.h"
#include "pass_roundtrip.h"
#include "relax_testing.h"
#include "values_testing.h"
#include "exec_mode_testing.h"

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
  tvm_vm_executable* exec = mod ? test_mode(tvm_codegen_relax_build(mod, test_opts())) : NULL;
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
    void* x = rv_rand(2, sx);
    void* b = rv_rand(1, sb);
    void* c = tvm_ffi_tensor_empty(NULL, 0, tvm_ffi_dtype(kDLBool, 8, 1), (DLDevice){kDLCPU, 0});
    *(uint8_t*)tvm_ffi_tensor_dl(c)->data = (uint8_t)(trial & 1);
    /* The bool condition: the model declares it bool (uint1); a DLPack bool tensor. */
    tvm_ffi_tensor_dl(c)->dtype = tvm_tir_dtype_bool();
    TVMFFIAny args[3] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(b), tvm_ffi_any_obj(c)};
    TVMFFIAny want, got;
    CHECK_OK(tvm_relax_eval(mod, "main", args, 3, &want));
    CHECK_OK(tvm_vm_invoke(vm, "main", args, 3, &got));
    if (want.type_index == kTVMFFIArray && got.type_index == kTVMFFIArray) {
      CHECK_EQ_INT(rv_differ(&got, &want, 1e-5), 0);
    } else {
      CHECK(0);
    }
    tvm_ffi_any_release(&want);
    tvm_ffi_any_release(&got);
    tvm_ffi_release(x), tvm_ffi_release(b), tvm_ffi_release(c);
  }
  /* A wrong shape is refused by the compiled function's entry checks. */
  int64_t s5[1] = {5}, sx[2] = {2, 4};
  void* x = rv_rand(2, sx);
  void* b5 = rv_rand(1, s5);
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

/* Run main(x, w) of exec on random inputs of batch `batch` and compare with the evaluator on the
 * legalized module; returns the number of mismatching elements (or 1 on an error). */
static int mlp_mismatches(tvm_vm* vm, const tvm_tir_ir_module_obj* legal, int64_t batch, int64_t hidden) {
  int64_t sx[2] = {batch, hidden}, sw[2] = {hidden, hidden};
  void* x = rv_rand(2, sx);
  void* w = rv_rand(2, sw);
  /* Weights of about 1/hidden keep the activations of the order of the inputs, so the float
   * rounding of the two sides (summation order, contraction) stays within the tolerance. */
  float* wp = tvm_ffi_tensor_dl(w)->data;
  for (int64_t i = 0; i < hidden * hidden; ++i) wp[i] /= (float)hidden;
  TVMFFIAny args[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(w)}, want, got;
  int bad = 1;
  if (tvm_relax_eval(legal, "main", args, 2, &want) == 0) {
    if (tvm_vm_invoke(vm, "main", args, 2, &got) == 0) {
      bad = rv_differ(&got, &want, 1e-5);
      tvm_ffi_any_release(&got);
    } else {
      void* e = tvm_ffi_error_take();
      fprintf(stderr, "vm: %s\n", e ? tvm_ffi_error_message(e) : "?");
      tvm_ffi_release(e);
    }
    tvm_ffi_any_release(&want);
  } else {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "eval: %s\n", e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
  }
  tvm_ffi_release(x), tvm_ffi_release(w);
  return bad;
}

/* The MLP chain through the build pipeline (static shapes: planned storages; a symbolic batch:
 * runtime allocations with kills) matches the evaluator; so does the legacy path (no passes
 * but LegalizeOps: call_tir compiled directly). */
TEST(pipeline_matches_evaluator) {
  struct {
    int64_t batch; /* < 0: symbolic */
    bool legalize_only; /* else the whole pipeline */
  } k_cases[] = {{5, false}, {-1, false}, {5, true}, {-1, true}};
  const tvm_relax_pass legalize = {"LegalizeOps", tvm_relax_transform_legalize_ops};
  for (size_t i = 0; i < sizeof(k_cases) / sizeof(k_cases[0]); ++i) {
    tvm_tir_ir_module_obj* mod = relax_models_mlp(4, k_cases[i].batch, 16);
    tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
    tvm_vm_executable* exec =
        !k_cases[i].legalize_only ? test_mode(tvm_codegen_relax_build(mod, test_opts()))
                                  : test_mode(tvm_codegen_relax_build_passes(mod, &legalize, 1, test_opts()));
    CHECK(exec != NULL);
    tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
    for (int64_t trial = 0; vm && trial < 3; ++trial) {
      int64_t batch = k_cases[i].batch > 0 ? k_cases[i].batch : 1 + 3 * trial;
      CHECK_EQ_INT(mlp_mismatches(vm, legal, batch, 16), 0);
    }
    if (vm) tvm_vm_release(vm);
    tvm_ffi_release(exec), tvm_ffi_release(legal), tvm_ffi_release(mod);
  }
}

/* Bytes the VM's pool holds after one run of an MLP chain (8 layers, 64 x 256 float32 tensors of
 * 64 KiB) compiled with the build pipeline's passes whose bit is set in `mask`: the pool keeps
 * freed blocks, so this is the run's high-water mark. */
static size_t mlp_pool_bytes(unsigned mask) {
  /* The lowering passes by name (the build pipeline also fuses: the MLP's matmul and relu would
   * be one kernel, as test_relax_fuse checks). */
  static const char* const names[] = {"LegalizeOps", "ToNonDataflow", "RemovePurityChecking",
                                      "CallTIRRewrite", "StaticPlanBlockMemory", "KillAfterLastUse"};
  const tvm_relax_pass* p;
  tvm_relax_pass passes[32];
  int64_t all = tvm_relax_build_pipeline_passes(&p), n = 0;
  for (int b = 0; b < 6; ++b) {
    for (int64_t i = 0; (mask & (1u << b)) && i < all; ++i) {
      if (strcmp(p[i].name, names[b]) == 0) passes[n++] = p[i];
    }
  }
  tvm_tir_ir_module_obj* mod = relax_models_mlp(8, 64, 256);
  tvm_vm_executable* exec = mod ? test_mode(tvm_codegen_relax_build_passes(mod, passes, n, test_opts())) : NULL;
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  size_t allocated = 0, cached = 0;
  CHECK(vm != NULL);
  if (vm) {
    int64_t sx[2] = {64, 256}, sw[2] = {256, 256};
    void* x = rv_rand(2, sx);
    void* w = rv_rand(2, sw);
    TVMFFIAny args[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(w)}, got;
    if (tvm_vm_invoke(vm, "main", args, 2, &got) == 0) tvm_ffi_any_release(&got);
    else CHECK_OK(-1);
    CHECK_OK(tvm_vm_memory_usage(vm, 0, &allocated, &cached));
    tvm_ffi_release(x), tvm_ffi_release(w);
    tvm_vm_release(vm);
  }
  tvm_ffi_release(exec), tvm_ffi_release(mod);
  return allocated + cached;
}

TEST(planning_and_kills_lower_peak_memory) {
  /* Bits: LegalizeOps 0, ToNonDataflow 1, RemovePurityChecking 2, CallTIRRewrite 3,
   * StaticPlanBlockMemory 4, KillAfterLastUse 5. */
  size_t legacy = mlp_pool_bytes(0x1);    /* call_tir compiled directly: all 16 outputs live */
  size_t rewrite = mlp_pool_bytes(0xf);   /* allocation ops, nothing freed early */
  size_t kills = mlp_pool_bytes(0x2f);    /* no planning: kills, the runtime pool reuses */
  size_t planned = mlp_pool_bytes(0x3f);  /* the lowering passes */
  size_t tensor = 64 * 256 * 4;
  CHECK(legacy >= 16 * tensor);
  CHECK(rewrite >= 16 * tensor);
  /* Two tensors live at a time (a kernel's input and output). The returned tensor (not planned)
   * is allocated after the last kill of the other storage, so the pool hands that block again. */
  CHECK(kills >= 2 * tensor && kills < 3 * tensor);
  CHECK(planned >= 2 * tensor && planned < 3 * tensor);
}

TEST(kill_of_a_non_variable_is_refused) {
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 1, (int64_t)4));
  int64_t shape[1] = {4};
  void* data = rv_rand(1, shape);
  tvm_relax_expr_obj* k = tvm_relax_constant_new(data, NULL);
  tvm_relax_expr_obj* kill = RT_CALL("relax.memory.kill_tensor", NULL, k);
  void* params = rt_array(1, x);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_relax_bb_function_begin_ex(bb, "main", params, NULL, TVM_RELAX_BB_IMPURE);
  tvm_relax_var_obj* v = tvm_relax_bb_emit(bb, kill, "_");
  tvm_tir_global_var_obj* g = tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)x, NULL);
  tvm_tir_ir_module_obj* mod = tvm_relax_bb_module(bb);
  CHECK(mod != NULL);
  CHECK(tvm_codegen_relax_vm_codegen(mod) == NULL);
  CHECK_RAISED("ValueError", "VMCodeGen: main: a kill (memory.kill_*, vm.kill_object) of a value that is not a variable");
  tvm_ffi_release(mod), tvm_ffi_release(g), tvm_ffi_release(v), tvm_ffi_release(params);
  tvm_ffi_release(kill), tvm_ffi_release(k), tvm_ffi_release(data), tvm_ffi_release(x);
  tvm_relax_bb_free(bb);
}

/* The transformer of tests/relax/relax_models.c (layer norm, per-head attention with softmax,
 * concat, GELU MLP, residuals; symbolic batch) compiled through the whole pipeline matches the
 * reference evaluator of its legalized form. */
TEST(transformer_compiled_matches_evaluator) {
  tvm_tir_ir_module_obj* raw = relax_models_transformer(2, 4, 8, 16);
  tvm_tir_ir_module_obj* mod = raw ? tvm_relax_transform_legalize_ops(raw) : NULL;
  tvm_vm_executable* exec = mod ? test_mode(tvm_codegen_relax_build(raw, test_opts())) : NULL;
  CHECK(exec != NULL);
  if (!exec) {
    CHECK_OK(-1);
    tvm_ffi_release(mod), tvm_ffi_release(raw);
    return;
  }
  tvm_vm* vm = tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1);
  tvm_relax_function_obj* f = tvm_tir_ir_module_lookup(mod, "main");
  int64_t np = tvm_ffi_seq_size(f->params);
  TVMFFIAny args[64];
  CHECK(np <= 64);
  for (int64_t i = 0; i < np && i < 64; ++i) {
    tvm_relax_var_obj* p = tvm_ffi_seq_obj_at(f->params, i);
    const tvm_relax_tensor_sinfo_obj* t = (const void*)tvm_relax_sinfo_of(p);
    void* dims = tvm_relax_tensor_sinfo_dims(&t->base);
    int64_t shape[4];
    for (int32_t d = 0; d < t->ndim; ++d) {
      if (!tvm_tir_as_const_int(tvm_ffi_seq_obj_at(dims, d), &shape[d])) shape[d] = 3; /* n */
    }
    args[i] = tvm_ffi_any_obj(rv_rand(t->ndim, shape));
  }
  TVMFFIAny want, got;
  CHECK_OK(tvm_relax_eval(mod, "main", args, (int32_t)np, &want));
  CHECK_OK(tvm_vm_invoke(vm, "main", args, (int32_t)np, &got));
  if (want.type_index == kTVMFFITensor && got.type_index == kTVMFFITensor) {
    CHECK_EQ_INT(tvm_ffi_tensor_dl(got.v_obj)->shape[0], 3);
    /* Two layers of float32 with FMA contraction and LLVM's exp/erf against libm's: 1e-4. */
    CHECK_EQ_INT(rv_differ(&got, &want, 1e-4), 0);
  } else {
    CHECK(0);
  }
  tvm_ffi_any_release(&want), tvm_ffi_any_release(&got);
  for (int64_t i = 0; i < np && i < 64; ++i) tvm_ffi_any_release(&args[i]);
  tvm_ffi_release(f);
  tvm_vm_release(vm);
  tvm_ffi_release(exec), tvm_ffi_release(mod), tvm_ffi_release(raw);
}

/* An error a caller left raised and never took (a stale one) neither fails nor changes the
 * top-level operations that succeed, and is still raised after each; one that fails raises its
 * own. Without the set-aside, concat's inference (the arithmetic simplifier), the printer's Doc
 * constructors and the build's passes read the stale error as their own failure. */
static void raise_stale(void) { tvm_ffi_raise("StaleError", "left by an earlier call"); }

TEST(stale_error_is_set_aside) {
  static const char src[] =
      "from tvm.script import ir as I\n"
      "from tvm.script import relax as R\n\n"
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((\"n\", 4), \"float32\"), y: R.Tensor((2, 4), \"float32\")):\n"
      "        c = R.concat((x, y), axis=0)\n"
      "        r = R.nn.relu(c)\n"
      "        return r\n";
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  raise_stale();
  tvm_tir_ir_module_obj* mod = tvm_script_parse(src, strlen(src), &opts);
  CHECK(mod != NULL);
  CHECK_RAISED("StaleError", "left by an earlier call");
  if (!mod) return;
  /* A call made directly: concat of (n, 4) and (2, 4) is (n + 2, 4). */
  tvm_relax_function_obj* f = tvm_tir_ir_module_lookup(mod, "main");
  void* fields = rt_array(2, tvm_ffi_seq_obj_at(f->params, 0), tvm_ffi_seq_obj_at(f->params, 1));
  tvm_ffi_release(f);
  tvm_relax_expr_obj* tuple = tvm_relax_tuple_new(fields);
  raise_stale();
  tvm_relax_expr_obj* cat = RT_CALL("relax.concat", NULL, tuple);
  CHECK(cat != NULL);
  CHECK_RAISED("StaleError", "left by an earlier call");
  if (cat) {
    const tvm_relax_tensor_sinfo_obj* t = (const void*)tvm_relax_sinfo_of(cat);
    CHECK_EQ_INT(t->ndim, 2);
  }
  tvm_ffi_release(cat), tvm_ffi_release(tuple), tvm_ffi_release(fields);
  raise_stale();
  void* text = tvm_script_print_obj(mod, NULL);
  CHECK(text != NULL);
  CHECK_RAISED("StaleError", "left by an earlier call");
  tvm_ffi_release(text);
  raise_stale();
  tvm_vm_executable* exec = tvm_codegen_relax_build(mod, NULL);
  CHECK(exec != NULL);
  CHECK_RAISED("StaleError", "left by an earlier call");
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  if (vm) {
    int64_t sx[2] = {3, 4}, sy[2] = {2, 4};
    void* x = rv_rand(2, sx);
    void* y = rv_rand(2, sy);
    TVMFFIAny args[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(y)}, got;
    raise_stale();
    CHECK_OK(tvm_vm_invoke(vm, "main", args, 2, &got));
    CHECK_RAISED("StaleError", "left by an earlier call");
    if (got.type_index == kTVMFFITensor) {
      const float* out = tvm_ffi_tensor_dl(got.v_obj)->data;
      const float* xs = tvm_ffi_tensor_dl(x)->data;
      const float* ys = tvm_ffi_tensor_dl(y)->data;
      CHECK_EQ_INT(tvm_ffi_tensor_dl(got.v_obj)->shape[0], 5);
      for (int i = 0; i < 20; ++i) {
        float in = i < 12 ? xs[i] : ys[i - 12];
        CHECK(out[i] == (in > 0 ? in : 0.0f));
      }
    } else {
      CHECK(0);
    }
    tvm_ffi_any_release(&got);
    tvm_ffi_release(x), tvm_ffi_release(y);
    tvm_vm_release(vm);
  }
  /* A failing operation raises its own error over the stale one. */
  raise_stale();
  CHECK(tvm_codegen_relax_vm_codegen(mod) == NULL);
  CHECK_RAISED("ValueError", "operator call left in the module");
  tvm_ffi_release(exec), tvm_ffi_release(mod);
}

/* Every pass of the pipeline, called alone, sets a stale error aside: it succeeds with the
 * result it gives without one, and the stale error is still raised after it. The module has
 * what legalization, constant folding, fusion and prim-value lifting act on (those four read a
 * stale error as their own failure before). */
TEST(each_pass_sets_a_stale_error_aside) {
  static const char src[] =
      "from tvm.script import ir as I\n"
      "from tvm.script import relax as R\n"
      "from tvm.script import tir as T\n\n"
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((\"n\", 4), \"float32\")):\n"
      "        n = T.int64()\n"
      "        with R.dataflow():\n"
      "            c = R.add(R.const(1.5, \"float32\"), R.const(2.0, \"float32\"))\n"
      "            y = R.add(x, c)\n"
      "            r = R.nn.relu(y)\n"
      "            s = R.reshape(r, R.shape([n * 4]))\n"
      "            R.output(s)\n"
      "        p = R.prim_value(n * 2)\n"
      "        return (s, p)\n";
  tvm_tir_ir_module_obj* cur = tvm_script_parse(src, strlen(src), NULL);
  CHECK(cur != NULL);
  const tvm_relax_pass* passes;
  int64_t n = tvm_relax_build_pipeline_passes(&passes);
  for (int64_t i = 0; cur && i < n; ++i) {
    tvm_tir_ir_module_obj* clean = passes[i].run(cur);
    raise_stale();
    tvm_tir_ir_module_obj* again = passes[i].run(cur);
    if (!clean || !again) fprintf(stderr, "pass %s failed\n", passes[i].name);
    CHECK(clean != NULL && again != NULL);
    CHECK_RAISED("StaleError", "left by an earlier call");
    if (clean && again) {
      TVMFFIAny a = tvm_ffi_any_obj(clean), b = tvm_ffi_any_obj(again);
      CHECK_EQ_INT(tvm_ffi_structural_equal(&a, &b, true, NULL, NULL), 1);
    }
    tvm_ffi_release(again);
    tvm_ffi_release(cur);
    cur = clean;
  }
  /* DeadCodeElimination's other entry point, which takes the entry names. */
  const char* entries[] = {"main"};
  raise_stale();
  tvm_tir_ir_module_obj* dce =
      cur ? tvm_relax_transform_dead_code_elimination_entries(cur, entries, 1) : NULL;
  CHECK(dce != NULL);
  CHECK_RAISED("StaleError", "left by an earlier call");
  tvm_ffi_release(dce), tvm_ffi_release(cur);
}

int main(void) {
  RUN(compiled_model_matches_evaluator);
  RUN(unlegalized_module_is_refused);
  RUN(pipeline_matches_evaluator);
  RUN(planning_and_kills_lower_peak_memory);
  RUN(kill_of_a_non_variable_is_refused);
  RUN(transformer_compiled_matches_evaluator);
  RUN(stale_error_is_set_aside);
  RUN(each_pass_sets_a_stale_error_aside);
  return test_summary();
}
