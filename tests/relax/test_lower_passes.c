/*
 * test_lower_passes.c: the passes that lower a legalized Relax module towards VMCodeGen
 * (ToNonDataflow, RemovePurityChecking, CallTIRRewrite, StaticPlanBlockMemory,
 * KillAfterLastUse) and the build pipeline: the structure each produces on small models, that
 * each result is well formed, storage reuse on an MLP-like chain, and the errors.
 */
#include <string.h>

#include "pass_roundtrip.h"
#include "relax_models.h"
#include "relax_testing.h"

static char g_text[8192];
static const char* text(const tvm_tir_ir_module_obj* mod) {
  return relax_models_bindings_text(mod, "main", g_text, sizeof(g_text));
}

/* mod after the build pipeline's passes up to and including the one named `last` (mod
 * released), without the fusion passes, which test_fuse.c covers (here each kernel stays its
 * own call). By name, so that passes added to the pipeline leave these tests alone. */
static tvm_tir_ir_module_obj* passes_upto(tvm_tir_ir_module_obj* mod, const char* last) {
  const tvm_relax_pass* p;
  tvm_relax_pass lowering[32];
  int64_t all = tvm_relax_build_pipeline_passes(&p), m = 0, k = 0;
  for (int64_t i = 0; i < all && m < 32; ++i) {
    if (strcmp(p[i].name, "AnnotateTIROpPattern") != 0 && strcmp(p[i].name, "FuseOps") != 0 &&
        strcmp(p[i].name, "FuseTIR") != 0) {
      lowering[m++] = p[i];
    }
  }
  while (k < m && strcmp(lowering[k].name, last) != 0) ++k;
  CHECK(k < m);
  tvm_tir_ir_module_obj* out = mod && k < m ? run_passes_roundtrip(mod, lowering, k + 1) : NULL;
  tvm_ffi_release(mod);
  return out;
}

static int visit_no_dataflow(const void* node, void* ctx) {
  (void)ctx;
  return tvm_relax_kind_of(node) == TVM_RELAX_KIND_DataflowVar ||
         tvm_relax_kind_of(node) == TVM_RELAX_KIND_DataflowBlock;
}

TEST(pipeline_lists_the_passes_in_order) {
  const tvm_relax_pass* p;
  int64_t n = tvm_relax_build_pipeline_passes(&p);
  const char* want[] = {"LambdaLift",          "LegalizeOps",
                        "AnnotateTIROpPattern", "FoldConstant",
                        "FuseOps",             "FuseTIR",
                        "RewriteDataflowReshape", "DeadCodeElimination",
                        "ToNonDataflow",       "RemovePurityChecking",
                        "CallTIRRewrite",      "StaticPlanBlockMemory",
                        "KillAfterLastUse",    "LowerRuntimeBuiltin",
                        "ComputePrimValue"};
  CHECK_EQ_INT(n, 15);
  for (int64_t i = 0; i < n && i < 15; ++i) CHECK_STR_EQ(p[i].name, want[i]);
}

TEST(to_non_dataflow) {
  tvm_tir_ir_module_obj* mod = passes_upto(relax_models_mlp(2, 4, 8), "LegalizeOps");
  CHECK(mod != NULL);
  CHECK_STR_EQ(text(mod), "df: lv = call_tir(matmul, (x, w)); lv1 = call_tir(nn_relu, (lv)); lv2 = call_tir(matmul, (lv1, w)); out = call_tir(nn_relu, (lv2))");
  CHECK_EQ_INT(tvm_relax_post_order_visit(mod, visit_no_dataflow, NULL), 1);
  tvm_tir_ir_module_obj* flat = tvm_relax_transform_to_non_dataflow(mod);
  CHECK(flat != NULL && flat != mod);
  CHECK_STR_EQ(text(flat), "lv = call_tir(matmul, (x, w)); lv1 = call_tir(nn_relu, (lv)); lv2 = call_tir(matmul, (lv1, w)); out = call_tir(nn_relu, (lv2))");
  /* No DataflowVar is left, uses included (a use of an old DataflowVar would be one). */
  CHECK_EQ_INT(tvm_relax_post_order_visit(flat, visit_no_dataflow, NULL), 0);
  CHECK_OK(tvm_relax_verify_well_formed(flat));
  /* Nothing to do: the module itself. */
  tvm_tir_ir_module_obj* again = tvm_relax_transform_to_non_dataflow(flat);
  CHECK(again == flat);
  tvm_ffi_release(again), tvm_ffi_release(flat), tvm_ffi_release(mod);
}

static bool force_pure(const tvm_tir_ir_module_obj* mod) {
  void* f = tvm_tir_ir_module_lookup(mod, "main");
  const TVMFFIAny* v = f ? tvm_ffi_map_get_str(((tvm_relax_function_obj*)f)->func.attrs, "relax.force_pure") : NULL;
  bool yes = v && v->type_index == kTVMFFIBool && v->v_int64;
  tvm_ffi_release(f);
  return yes;
}

TEST(remove_purity_checking) {
  tvm_tir_ir_module_obj* mod = passes_upto(relax_models_mlp(1, 4, 8), "ToNonDataflow");
  CHECK(mod != NULL && !force_pure(mod));
  tvm_tir_ir_module_obj* out = tvm_relax_transform_remove_purity_checking(mod);
  CHECK(out != NULL && force_pure(out));
  tvm_tir_ir_module_obj* again = tvm_relax_transform_remove_purity_checking(out);
  CHECK(again == out);
  tvm_ffi_release(again), tvm_ffi_release(out), tvm_ffi_release(mod);
}

TEST(call_tir_rewrite) {
  tvm_tir_ir_module_obj* mod = passes_upto(relax_models_mlp(2, 4, 8), "RemovePurityChecking");
  CHECK_EQ_INT(relax_models_count_calls(mod, "main", "relax.call_tir"), 4);
  tvm_tir_ir_module_obj* out = tvm_relax_transform_call_tir_rewrite(mod);
  CHECK(out != NULL);
  CHECK_STR_EQ(text(out),
               "alloc = builtin.alloc_tensor(shape(4, 8), float32, 0); _ = matmul(x, w, alloc); lv = alloc; "
               "alloc1 = builtin.alloc_tensor(shape(4, 8), float32, 0); _ = nn_relu(lv, alloc1); lv1 = alloc1; "
               "alloc2 = builtin.alloc_tensor(shape(4, 8), float32, 0); _ = matmul(lv1, w, alloc2); lv2 = alloc2; "
               "alloc3 = builtin.alloc_tensor(shape(4, 8), float32, 0); _ = nn_relu(lv2, alloc3); out = alloc3");
  CHECK_EQ_INT(relax_models_count_calls(out, "main", "relax.call_tir"), 0);
  CHECK_OK(tvm_relax_verify_well_formed(out));
  /* Before RemovePurityChecking the direct kernel calls are impure calls in a pure function. */
  tvm_tir_ir_module_obj* flat = passes_upto(relax_models_mlp(1, 4, 8), "ToNonDataflow");
  tvm_tir_ir_module_obj* impure = flat ? tvm_relax_transform_call_tir_rewrite(flat) : NULL;
  CHECK(impure != NULL);
  CHECK(tvm_relax_verify_well_formed(impure) != 0);
  CHECK_RAISED("ValueError", "in a pure function");
  /* In a dataflow block the rewrite is refused. */
  tvm_tir_ir_module_obj* df = passes_upto(relax_models_mlp(1, 4, 8), "LegalizeOps");
  CHECK(tvm_relax_transform_call_tir_rewrite(df) == NULL);
  CHECK_RAISED("ValueError", "run ToNonDataflow first");
  tvm_ffi_release(df), tvm_ffi_release(impure), tvm_ffi_release(flat);
  tvm_ffi_release(out), tvm_ffi_release(mod);
}

/* After CallTIRRewrite, the allocation pattern of mlp(3): tensors t0..t4 (t5 is returned) live
 * from their allocation to the next-but-one kernel, so two storages alternate. */
TEST(static_plan_block_memory) {
  tvm_tir_ir_module_obj* mod = passes_upto(relax_models_mlp(3, 4, 8), "CallTIRRewrite");
  CHECK_EQ_INT(relax_models_count_calls(mod, "main", "relax.builtin.alloc_tensor"), 6);
  tvm_tir_ir_module_obj* out = tvm_relax_transform_static_plan_block_memory(mod);
  CHECK(out != NULL);
  CHECK_STR_EQ(text(out),
               "storage = memory.alloc_storage(shape(128), 0, global, uint8); "
               "alloc = memory.alloc_tensor(storage, 0, shape(4, 8), float32); _ = matmul(x, w, alloc); lv = alloc; "
               "storage1 = memory.alloc_storage(shape(128), 0, global, uint8); "
               "alloc1 = memory.alloc_tensor(storage1, 0, shape(4, 8), float32); _ = nn_relu(lv, alloc1); lv1 = alloc1; "
               "alloc2 = memory.alloc_tensor(storage, 0, shape(4, 8), float32); _ = matmul(lv1, w, alloc2); lv2 = alloc2; "
               "alloc3 = memory.alloc_tensor(storage1, 0, shape(4, 8), float32); _ = nn_relu(lv2, alloc3); lv3 = alloc3; "
               "alloc4 = memory.alloc_tensor(storage, 0, shape(4, 8), float32); _ = matmul(lv3, w, alloc4); lv4 = alloc4; "
               "alloc5 = builtin.alloc_tensor(shape(4, 8), float32, 0); _ = nn_relu(lv4, alloc5); out = alloc5");
  CHECK_EQ_INT(relax_models_count_calls(out, "main", "relax.memory.alloc_storage"), 2);
  CHECK_EQ_INT(relax_models_count_calls(out, "main", "relax.memory.alloc_tensor"), 5);
  CHECK_OK(tvm_relax_verify_well_formed(out));
  tvm_ffi_release(out), tvm_ffi_release(mod);
  /* A longer chain still needs two storages. */
  mod = passes_upto(relax_models_mlp(16, 4, 8), "StaticPlanBlockMemory");
  CHECK_EQ_INT(relax_models_count_calls(mod, "main", "relax.memory.alloc_storage"), 2);
  CHECK_EQ_INT(relax_models_count_calls(mod, "main", "relax.memory.alloc_tensor"), 31);
  tvm_ffi_release(mod);
  /* Symbolic shapes are left to the runtime. */
  mod = passes_upto(relax_models_mlp(3, -1, 8), "CallTIRRewrite");
  out = mod ? tvm_relax_transform_static_plan_block_memory(mod) : NULL;
  CHECK(out != NULL && out == mod);
  tvm_ffi_release(out), tvm_ffi_release(mod);
}

/* main(x: (4, 8), w: (8, 32)): a = exp(x); b = sum(a); c = exp(b); d = exp(x); e = matmul(d, w);
 * f = add(e, c); return exp(f). Sizes in bytes: a 128, b 4, c 4, d 128, e 512, f 512. */
static tvm_tir_ir_module_obj* sizes_module(void) {
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 2, (int64_t)4, (int64_t)8));
  tvm_relax_var_obj* w = rt_var_take("w", rt_tensor(F32, 2, (int64_t)8, (int64_t)32));
  void* params = rt_array(2, x, w);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_relax_bb_function_begin(bb, "main", params, NULL, true);
  tvm_relax_var_obj* v[7];
  const char* names[7] = {"a", "b", "c", "d", "e", "f", "g"};
  for (int i = 0; i < 7; ++i) {
    tvm_relax_expr_obj* call = NULL;
    switch (i) {
      case 0: call = RT_CALL("relax.exp", NULL, x); break;
      case 1: call = RT_CALL("relax.sum", NULL, v[0]); break;
      case 2: call = RT_CALL("relax.exp", NULL, v[1]); break;
      case 3: call = RT_CALL("relax.exp", NULL, x); break;
      case 4: call = RT_CALL("relax.matmul", NULL, v[3], w); break;
      case 5: call = RT_CALL("relax.add", NULL, v[4], v[2]); break;
      default: call = RT_CALL("relax.exp", NULL, v[5]); break;
    }
    v[i] = tvm_relax_bb_emit(bb, call, names[i]);
    tvm_ffi_release(call);
  }
  tvm_tir_global_var_obj* g = tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)v[6], NULL);
  tvm_tir_ir_module_obj* mod = tvm_relax_bb_module(bb);
  for (int i = 0; i < 7; ++i) tvm_ffi_release(v[i]);
  tvm_ffi_release(g), tvm_ffi_release(params), tvm_ffi_release(w), tvm_ffi_release(x);
  tvm_relax_bb_free(bb);
  return mod;
}

static int64_t storage_bytes(const tvm_tir_ir_module_obj* mod, int64_t* sizes, int64_t cap) {
  void* f = tvm_tir_ir_module_lookup(mod, "main");
  const tvm_relax_seq_expr_obj* seq = (const void*)((tvm_relax_function_obj*)f)->body;
  int64_t n = 0;
  for (int64_t i = 0; i < tvm_ffi_seq_size(seq->blocks); ++i) {
    const tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(seq->blocks, i);
    for (int64_t j = 0; j < tvm_ffi_seq_size(blk->bindings); ++j) {
      const tvm_relax_call_obj* c = (const void*)tvm_relax_binding_value(tvm_ffi_seq_obj_at(blk->bindings, j));
      const tvm_relax_op_info* info = tvm_relax_kind_of(c) == TVM_RELAX_KIND_Call ? tvm_relax_op_info_of(c->op) : NULL;
      if (!info || info->id != TVM_RELAX_OP_memory_alloc_storage || n == cap) continue;
      const tvm_relax_shape_expr_obj* sh = tvm_ffi_seq_obj_at(c->args, 0);
      tvm_tir_as_const_int(tvm_ffi_seq_obj_at(sh->values, 0), &sizes[n++]);
    }
  }
  tvm_ffi_release(f);
  return n;
}

/* Upstream's reuse rule: the smallest free storage at least the request, else the largest
 * smaller one grown; never one 16 times larger or smaller than the request. */
TEST(static_plan_sizes) {
  tvm_tir_ir_module_obj* mod = passes_upto(sizes_module(), "StaticPlanBlockMemory");
  CHECK(mod != NULL);
  int64_t sizes[8];
  int64_t n = mod ? storage_bytes(mod, sizes, 8) : 0;
  /* a: new s0 (128); b: new s1 (4); c: s0 is free but 32x too big, new s2 (4); d: s0 again;
   * e: only 4-byte storages free (128x too small), new s3 (512); f: s0 free, grown to 512;
   * g: returned, not planned. */
  CHECK_EQ_INT(n, 4);
  if (n == 4) {
    CHECK_EQ_INT(sizes[0], 512);
    CHECK_EQ_INT(sizes[1], 4);
    CHECK_EQ_INT(sizes[2], 4);
    CHECK_EQ_INT(sizes[3], 512);
  }
  CHECK_EQ_INT(relax_models_count_calls(mod, "main", "relax.memory.alloc_tensor"), 6);
  CHECK_EQ_INT(relax_models_count_calls(mod, "main", "relax.builtin.alloc_tensor"), 1);
  tvm_ffi_release(mod);
}

TEST(kill_after_last_use) {
  tvm_tir_ir_module_obj* mod = passes_upto(relax_models_mlp(3, 4, 8), "StaticPlanBlockMemory");
  tvm_tir_ir_module_obj* out = mod ? tvm_relax_transform_kill_after_last_use(mod) : NULL;
  CHECK(out != NULL);
  CHECK_STR_EQ(text(out),
               "storage = memory.alloc_storage(shape(128), 0, global, uint8); "
               "alloc = memory.alloc_tensor(storage, 0, shape(4, 8), float32); _ = matmul(x, w, alloc); lv = alloc; "
               "storage1 = memory.alloc_storage(shape(128), 0, global, uint8); "
               "alloc1 = memory.alloc_tensor(storage1, 0, shape(4, 8), float32); _ = nn_relu(lv, alloc1); "
               "_ = memory.kill_tensor(alloc); lv1 = alloc1; "
               "alloc2 = memory.alloc_tensor(storage, 0, shape(4, 8), float32); _ = matmul(lv1, w, alloc2); "
               "_ = memory.kill_tensor(alloc1); lv2 = alloc2; "
               "alloc3 = memory.alloc_tensor(storage1, 0, shape(4, 8), float32); _ = memory.kill_storage(storage1); "
               "_ = nn_relu(lv2, alloc3); _ = memory.kill_tensor(alloc2); lv3 = alloc3; "
               "alloc4 = memory.alloc_tensor(storage, 0, shape(4, 8), float32); _ = memory.kill_storage(storage); "
               "_ = matmul(lv3, w, alloc4); _ = memory.kill_tensor(alloc3); lv4 = alloc4; "
               "alloc5 = builtin.alloc_tensor(shape(4, 8), float32, 0); _ = nn_relu(lv4, alloc5); "
               "_ = memory.kill_tensor(alloc4); out = alloc5");
  CHECK_OK(tvm_relax_verify_well_formed(out));
  tvm_ffi_release(out), tvm_ffi_release(mod);
  /* Unplanned (symbolic) allocations are killed too. */
  mod = passes_upto(relax_models_mlp(2, -1, 8), "KillAfterLastUse");
  CHECK_STR_EQ(text(mod),
               "alloc = builtin.alloc_tensor(shape(n, 8), float32, 0); _ = matmul(x, w, alloc); lv = alloc; "
               "alloc1 = builtin.alloc_tensor(shape(n, 8), float32, 0); _ = nn_relu(lv, alloc1); "
               "_ = memory.kill_tensor(alloc); lv1 = alloc1; "
               "alloc2 = builtin.alloc_tensor(shape(n, 8), float32, 0); _ = matmul(lv1, w, alloc2); "
               "_ = memory.kill_tensor(alloc1); lv2 = alloc2; "
               "alloc3 = builtin.alloc_tensor(shape(n, 8), float32, 0); _ = nn_relu(lv2, alloc3); "
               "_ = memory.kill_tensor(alloc2); out = alloc3");
  tvm_ffi_release(mod);
}

/* main(x: (4, 8)): lv = call_tir(nn_relu, (x,), out_sinfo=(R.Tensor((4, 8)), R.Tensor((2, 8))));
 * return lv (the kernel itself is not run here). */
static tvm_tir_ir_module_obj* tuple_out_module(void) {
  tvm_tir_ir_module_obj* legal = passes_upto(relax_models_mlp(1, 4, 8), "RemovePurityChecking");
  const TVMFFIAny *k, *v;
  void* kernel_gv = NULL;
  for (int64_t pos = 0; legal && (pos = tvm_ffi_map_next(legal->functions, pos, &k, &v)) >= 0;) {
    if (strcmp(tvm_ffi_str_cstr(((tvm_tir_global_var_obj*)k->v_obj)->name_hint), "nn_relu") == 0) kernel_gv = k->v_obj;
  }
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 2, (int64_t)4, (int64_t)8));
  tvm_relax_sinfo_obj* s1 = rt_tensor(F32, 2, (int64_t)4, (int64_t)8);
  tvm_relax_sinfo_obj* s2 = rt_tensor(F32, 2, (int64_t)2, (int64_t)8);
  void* fields = rt_array(2, s1, s2);
  tvm_relax_sinfo_obj* ts = tvm_relax_tuple_sinfo_new(fields);
  void* sargs = rt_array(1, ts);
  void* targs = rt_array(1, x);
  tvm_relax_expr_obj* tup = tvm_relax_tuple_new(targs);
  void* cargs = rt_array(2, kernel_gv, tup);
  tvm_relax_expr_obj* call = tvm_relax_call_new(tvm_relax_op(TVM_RELAX_OP_call_tir), cargs, NULL, sargs, NULL);
  tvm_relax_var_obj* lv = rt_var_take("lv", ts);
  tvm_relax_binding_obj* b = tvm_relax_var_binding_new(lv, call);
  void* bs = rt_array(1, b);
  tvm_relax_block_obj* blk = tvm_relax_block_new(bs, false);
  void* blks = rt_array(1, blk);
  tvm_relax_expr_obj* body = tvm_relax_seq_expr_new(blks, (tvm_relax_expr_obj*)lv);
  void* params = rt_array(1, x);
  TVMFFIAny yes = tvm_ffi_any_bool(true);
  void* attrs = rt_attrs(1, "relax.force_pure", yes);
  tvm_relax_function_obj* f = tvm_relax_function_new(params, body, NULL, true, attrs);
  tvm_tir_global_var_obj* g = tvm_relax_global_var_new("main", tvm_relax_sinfo_of(f));
  TVMFFIAny keys[2] = {tvm_ffi_any_obj(g), tvm_ffi_any_obj(kernel_gv)};
  void* kf = tvm_tir_ir_module_lookup(legal, "nn_relu");
  TVMFFIAny vals[2] = {tvm_ffi_any_obj(f), tvm_ffi_any_obj(kf)};
  void* funcs = tvm_ffi_map_new(keys, vals, 2);
  tvm_tir_ir_module_obj* mod = tvm_tir_ir_module_new(funcs, NULL);
  void* objs[] = {funcs, kf, g, f, attrs, params, body, blks, blk, bs, b, lv, call, cargs, tup, targs, sargs, fields, s2, s1, x, legal};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  return mod;
}

TEST(tuple_outputs) {
  tvm_tir_ir_module_obj* mod = tuple_out_module();
  CHECK(mod != NULL);
  tvm_tir_ir_module_obj* out = mod ? tvm_relax_transform_call_tir_rewrite(mod) : NULL;
  CHECK(out != NULL);
  CHECK_STR_EQ(text(out),
               "alloc = builtin.alloc_tensor(shape(4, 8), float32, 0); "
               "alloc1 = builtin.alloc_tensor(shape(2, 8), float32, 0); _ = nn_relu(x, alloc, alloc1); "
               "lv = (alloc, alloc1)");
  CHECK_OK(tvm_relax_verify_well_formed(out));
  /* The tensors escape in the tuple: neither planned nor killed. */
  tvm_tir_ir_module_obj* planned = out ? tvm_relax_transform_static_plan_block_memory(out) : NULL;
  CHECK(planned != NULL && planned == out);
  tvm_tir_ir_module_obj* killed = planned ? tvm_relax_transform_kill_after_last_use(planned) : NULL;
  CHECK(killed != NULL && killed == out);
  tvm_ffi_release(killed), tvm_ffi_release(planned), tvm_ffi_release(out), tvm_ffi_release(mod);
}

/* main(x: (4, 8)), impure: alloc = builtin.alloc_tensor(...); _ = nn_relu(x, alloc);
 * v = test.view(alloc) (a packed function: it may return a view of alloc); alloc1 = ...;
 * _ = nn_relu(x, alloc1); return alloc1. By lifetimes alone alloc1 could reuse alloc's storage,
 * while v may still point into it. */
static tvm_tir_ir_module_obj* extern_use_module(void) {
  tvm_tir_ir_module_obj* legal = passes_upto(relax_models_mlp(1, 4, 8), "RemovePurityChecking");
  const TVMFFIAny *k, *v;
  void* kernel_gv = NULL;
  for (int64_t pos = 0; legal && (pos = tvm_ffi_map_next(legal->functions, pos, &k, &v)) >= 0;) {
    if (strcmp(tvm_ffi_str_cstr(((tvm_tir_global_var_obj*)k->v_obj)->name_hint), "nn_relu") == 0) kernel_gv = k->v_obj;
  }
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 2, (int64_t)4, (int64_t)8));
  int64_t dims[2] = {4, 8};
  void* bindings = tvm_ffi_list_new();
  tvm_relax_var_obj* allocs[2];
  tvm_relax_var_obj* view = NULL;
  for (int i = 0; i < 2; ++i) {
    tvm_relax_expr_obj* shape = tvm_relax_shape_expr_of_ints(dims, 2);
    tvm_relax_expr_obj* dt = tvm_relax_dtype_imm_new(F32);
    tvm_relax_expr_obj* dev = tvm_relax_prim_value_int64(0);
    tvm_relax_expr_obj* alloc = RT_CALL("relax.builtin.alloc_tensor", NULL, shape, dt, dev);
    allocs[i] = tvm_relax_var_new(i ? "alloc1" : "alloc", tvm_relax_sinfo_of(alloc), false);
    void* kargs = rt_array(2, x, allocs[i]);
    tvm_relax_expr_obj* kcall = tvm_relax_call_new(kernel_gv, kargs, NULL, NULL, NULL);
    tvm_relax_var_obj* unit = tvm_relax_var_new("_", tvm_relax_sinfo_of(kcall), false);
    tvm_relax_binding_obj* b0 = tvm_relax_var_binding_new(allocs[i], alloc);
    tvm_relax_binding_obj* b1 = tvm_relax_var_binding_new(unit, kcall);
    TVMFFIAny i0 = tvm_ffi_any_obj(b0), i1 = tvm_ffi_any_obj(b1);
    tvm_ffi_list_push(bindings, &i0), tvm_ffi_list_push(bindings, &i1);
    if (i == 0) {
      tvm_relax_expr_obj* ext = tvm_relax_extern_func_new("test.view", NULL);
      void* eargs = rt_array(1, allocs[0]);
      tvm_relax_expr_obj* ecall = tvm_relax_call_new(ext, eargs, NULL, NULL, NULL);
      view = tvm_relax_var_new("v", tvm_relax_sinfo_of(ecall), false);
      tvm_relax_binding_obj* b2 = tvm_relax_var_binding_new(view, ecall);
      TVMFFIAny i2 = tvm_ffi_any_obj(b2);
      tvm_ffi_list_push(bindings, &i2);
      tvm_ffi_release(b2), tvm_ffi_release(ecall), tvm_ffi_release(eargs), tvm_ffi_release(ext);
    }
    void* objs[] = {b1, b0, unit, kcall, kargs, alloc, dev, dt, shape};
    for (size_t j = 0; j < sizeof(objs) / sizeof(objs[0]); ++j) tvm_ffi_release(objs[j]);
  }
  void* bs = tvm_ffi_list_to_array(bindings);
  tvm_relax_block_obj* blk = tvm_relax_block_new(bs, false);
  void* blks = rt_array(1, blk);
  tvm_relax_expr_obj* body = tvm_relax_seq_expr_new(blks, (tvm_relax_expr_obj*)allocs[1]);
  void* params = rt_array(1, x);
  tvm_relax_function_obj* f = tvm_relax_function_new(params, body, NULL, false, NULL);
  tvm_tir_global_var_obj* g = tvm_relax_global_var_new("main", tvm_relax_sinfo_of(f));
  void* kf = tvm_tir_ir_module_lookup(legal, "nn_relu");
  TVMFFIAny keys[2] = {tvm_ffi_any_obj(g), tvm_ffi_any_obj(kernel_gv)};
  TVMFFIAny vals[2] = {tvm_ffi_any_obj(f), tvm_ffi_any_obj(kf)};
  void* funcs = tvm_ffi_map_new(keys, vals, 2);
  tvm_tir_ir_module_obj* mod = tvm_tir_ir_module_new(funcs, NULL);
  void* objs[] = {funcs, kf, g, f, params, body, blks, blk, bs, bindings, view, allocs[0], allocs[1], x, legal};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  return mod;
}

TEST(packed_call_arguments_escape) {
  tvm_tir_ir_module_obj* mod = extern_use_module();
  CHECK(mod != NULL);
  CHECK_STR_EQ(text(mod),
               "alloc = builtin.alloc_tensor(shape(4, 8), float32, 0); _ = nn_relu(x, alloc); "
               "v = test.view(alloc); alloc1 = builtin.alloc_tensor(shape(4, 8), float32, 0); "
               "_ = nn_relu(x, alloc1)");
  CHECK_OK(tvm_relax_verify_well_formed(mod));
  tvm_tir_ir_module_obj* out = mod ? tvm_relax_transform_static_plan_block_memory(mod) : NULL;
  CHECK(out != NULL && out == mod);
  tvm_ffi_release(out), tvm_ffi_release(mod);
}

/* Without RemovePurityChecking, CallTIRRewrite's result is ill-formed (impure calls in a pure
 * function): debug builds stop there and name the pass; release builds do not check. */
TEST(debug_builds_check_each_pass) {
  tvm_tir_ir_module_obj* legal = passes_upto(relax_models_mlp(1, 4, 8), "LegalizeOps");
  tvm_relax_pass passes[2] = {{"ToNonDataflow", tvm_relax_transform_to_non_dataflow},
                              {"CallTIRRewrite", tvm_relax_transform_call_tir_rewrite}};
  tvm_tir_ir_module_obj* out = legal ? tvm_relax_run_passes(legal, passes, 2) : NULL;
#ifndef NDEBUG
  CHECK(out == NULL);
  CHECK_RAISED("ValueError", "the result of CallTIRRewrite is not well formed");
#else
  CHECK(out != NULL);
#endif
  tvm_ffi_release(out);
  /* The test builds' check after each pass (pass_roundtrip.h) stops there in every build. */
  CHECK(run_passes_roundtrip(legal, passes, 2) == NULL);
  CHECK_RAISED("ValueError", "CallTIRRewrite");
  tvm_ffi_release(legal);
}

/* A "pass" adding a copy of a kernel under a GlobalVar without struct info, which the module's
 * TVMScript cannot express (the parser gives a module's GlobalVars their function's): the
 * round trip fails naming the pass, with the differing node underlined in the printed text. */
static tvm_tir_ir_module_obj* add_bare_kernel(const tvm_tir_ir_module_obj* mod) {
  void* k = tvm_tir_ir_module_lookup(mod, "nn_relu");
  tvm_tir_global_var_obj* gv = tvm_tir_global_var_new("nn_relu_copy");
  tvm_tir_ir_module_obj* out = k && gv ? tvm_tir_ir_module_add((void*)mod, gv, k) : NULL;
  tvm_ffi_release(gv), tvm_ffi_release(k);
  return out;
}

TEST(round_trip_failure_names_the_pass) {
  tvm_tir_ir_module_obj* mod = relax_models_mlp(1, 4, 8);
  tvm_relax_pass passes[2] = {{"LegalizeOps", tvm_relax_transform_legalize_ops},
                              {"AddBareKernel", add_bare_kernel}};
  int64_t before = g_pass_roundtrips;
  CHECK(mod && run_passes_roundtrip(mod, passes, 2) == NULL);
  CHECK_EQ_INT(g_pass_roundtrips - before, 2); /* the input and LegalizeOps' result held */
  void* e = tvm_ffi_error_take();
  CHECK(e != NULL);
  if (e) {
    const char* msg = tvm_ffi_error_message(e);
    CHECK_STR_EQ(tvm_ffi_error_kind(e), "ValueError");
    CHECK_STR_CONTAINS(msg, "after AddBareKernel");
    CHECK_STR_CONTAINS(msg, "the parsed module is not structurally equal to the pass's result");
    CHECK_STR_CONTAINS(msg, "nn_relu_copy");
    CHECK_STR_CONTAINS(msg, "^^^");
  }
  tvm_ffi_release(e), tvm_ffi_release(mod);
}

/* The observer sees every pass's result in order, and its error stops the run naming the pass. */
typedef struct {
  int calls;
  const char* names[32];
  const char* stop_at;
} observed;

static int observe(void* ctx, const char* pass, const tvm_tir_ir_module_obj* result) {
  observed* o = ctx;
  CHECK(tvm_tir_is(result, TVM_TIR_KIND_IRModule));
  if (o->calls < 32) o->names[o->calls] = pass;
  o->calls++;
  if (o->stop_at && strcmp(pass, o->stop_at) == 0) {
    return tvm_ffi_raise("RuntimeError", "stopped by the observer");
  }
  return 0;
}

TEST(observer_sees_each_pass) {
  const tvm_relax_pass* p;
  int64_t n = tvm_relax_build_pipeline_passes(&p);
  tvm_tir_ir_module_obj* mod = relax_models_mlp(1, 4, 8);
  observed o = {0};
  tvm_tir_ir_module_obj* out = tvm_relax_run_passes_observed(mod, p, n, observe, &o);
  CHECK(out != NULL);
  CHECK_EQ_INT(o.calls, n);
  for (int64_t i = 0; i < n && i < o.calls; ++i) CHECK_STR_EQ(o.names[i], p[i].name);
  tvm_ffi_release(out);
  observed stop = {.stop_at = "FuseOps"};
  CHECK(tvm_relax_run_passes_observed(mod, p, n, observe, &stop) == NULL);
  CHECK_EQ_INT(stop.calls, 5);
  CHECK_RAISED("RuntimeError", "after FuseOps");
  tvm_ffi_release(mod);
}

TEST(bad_input) {
  CHECK(tvm_relax_transform_call_tir_rewrite(NULL) == NULL);
  CHECK_RAISED("TypeError", "CallTIRRewrite: an IRModule is required");
  CHECK(tvm_relax_build_pipeline(NULL) == NULL);
  CHECK_RAISED("TypeError", "an IRModule");
  tvm_tir_ir_module_obj* mod = relax_models_mlp(1, 4, 8);
  tvm_relax_pass none = {"Nothing", NULL};
  CHECK(tvm_relax_run_passes(mod, &none, 1) == NULL);
  CHECK_RAISED("TypeError", "has no function");
  /* A failing pass is named. */
  tvm_relax_pass rewrite = {"CallTIRRewrite", tvm_relax_transform_call_tir_rewrite};
  tvm_tir_ir_module_obj* legal = passes_upto(mod, "LegalizeOps");
  CHECK(tvm_relax_run_passes(legal, &rewrite, 1) == NULL);
  CHECK_RAISED("ValueError", "CallTIRRewrite");
  tvm_ffi_release(legal);
}

int main(void) {
  RUN(pipeline_lists_the_passes_in_order);
  RUN(to_non_dataflow);
  RUN(remove_purity_checking);
  RUN(call_tir_rewrite);
  RUN(static_plan_block_memory);
  RUN(static_plan_sizes);
  RUN(kill_after_last_use);
  RUN(tuple_outputs);
  RUN(packed_call_arguments_escape);
  RUN(debug_builds_check_each_pass);
  RUN(observer_sees_each_pass);
  RUN(round_trip_failure_names_the_pass);
  RUN(bad_input);
  return test_summary();
}
