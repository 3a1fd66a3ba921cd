/*
 * test_fuse.c: AnnotateTIROpPattern, FuseOps and FuseTIR. The op pattern of each family of
 * legalized kernels; the groups FuseOps forms (elementwise chains, broadcasting, injective
 * chains, a reduction's prologue, matmul / softmax epilogues, tuple results, split with its
 * TupleGetItems, a value used twice, symbolic shapes) as the text of main; the fused kernels
 * FuseTIR makes (intermediates computed per element, epilogues in the producer's loops); every
 * fused module evaluated against the unfused one on random inputs, bit for bit; whole models
 * (kernel counts before and after); the build pipeline with fusion; bad inputs.
 */
#include <string.h>

#include "fuse_testing.h"
#include "pass_roundtrip.h"

static char g_text[16384];
static const char* text(const tvm_tir_ir_module_obj* mod) {
  return mod ? relax_models_bindings_text(mod, "main", g_text, sizeof(g_text)) : "(null module)";
}

/* The op pattern of kernel `name` of mod after AnnotateTIROpPattern. */
static int64_t pattern_of(const tvm_tir_ir_module_obj* mod, const char* name) {
  void* f = tvm_tir_ir_module_lookup(mod, name);
  const TVMFFIAny* p = f ? tvm_ffi_map_get_str(((tvm_tir_prim_func_obj*)f)->func.attrs, "op_pattern") : NULL;
  int64_t v = p ? p->v_int64 : -1;
  tvm_ffi_release(f);
  return v;
}

/* ---- AnnotateTIROpPattern ---------------------------------------------------------------------- */
TEST(op_patterns_of_legalized_kernels) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 2, (int64_t[]){4, 6});
  tvm_relax_var_obj* b = fm_param(&m, "b", 1, (int64_t[]){6});
  tvm_relax_var_obj* c = fm_param(&m, "c", 2, (int64_t[]){4, 1});
  tvm_relax_var_obj* w = fm_param(&m, "w", 2, (int64_t[]){6, 3});
  tvm_relax_var_obj* img = fm_param(&m, "img", 4, (int64_t[]){1, 2, 6, 6});
  tvm_relax_var_obj* k = fm_param(&m, "k", 4, (int64_t[]){2, 2, 3, 3});
  fm_begin(&m);
  tvm_relax_var_obj* e = FM_OP(&m, "relax.exp", x);                   /* exp */
  tvm_relax_var_obj* a = FM_OP(&m, "relax.add", e, b);                /* add: elementwise */
  tvm_relax_var_obj* bc = FM_OP(&m, "relax.add", b, c);               /* add1: broadcast only */
  tvm_relax_var_obj* t = fm_op(&m, false, "relax.permute_dims", NULL, a, NULL, NULL); /* injective */
  tvm_relax_var_obj* r = fm_op(&m, false, "relax.reshape", NULL, t, fm_shape(&m, 2, (int64_t[]){3, 8}), NULL);
  tvm_relax_var_obj* s = fm_op(&m, false, "relax.sum", fm_ints_attr(&m, "axis", 1, (int64_t[]){1}), bc, NULL, NULL);
  tvm_relax_var_obj* mm = FM_OP(&m, "relax.matmul", a, w);
  tvm_relax_var_obj* sm = FM_OP(&m, "relax.nn.softmax", mm);
  tvm_relax_var_obj* am = fm_op(&m, false, "relax.argmax", fm_int_attr(&m, "axis", 1), sm, NULL, NULL);
  void* pair = fm_keep(&m, rt_array(2, x, e));
  tvm_relax_var_obj* cat = fm_op(&m, false, "relax.concat", NULL, fm_keep(&m, tvm_relax_tuple_new(pair)), NULL, NULL);
  tvm_relax_var_obj* cv = FM_OP(&m, "relax.nn.conv2d", img, k);
  tvm_relax_var_obj* mp = fm_op(&m, false, "relax.nn.max_pool2d", fm_ints_attr(&m, "pool_size", 2, (int64_t[]){2, 2}), cv, NULL, NULL);
  tvm_relax_var_obj* o = FM_OUT(&m, "relax.multiply", r, fm_scalar(&m, 2.0));
  (void)s, (void)am, (void)cat, (void)mp;
  tvm_tir_ir_module_obj* mod = fm_end(&m, o, NULL);
  tvm_tir_ir_module_obj* ann = mod ? tvm_relax_transform_annotate_tir_op_pattern(mod) : NULL;
  CHECK(ann != NULL);
  if (ann) {
    CHECK_EQ_INT(pattern_of(ann, "exp"), TVM_RELAX_PATTERN_ELEMWISE);
    CHECK_EQ_INT(pattern_of(ann, "add"), TVM_RELAX_PATTERN_ELEMWISE);
    CHECK_EQ_INT(pattern_of(ann, "add1"), TVM_RELAX_PATTERN_BROADCAST);
    CHECK_EQ_INT(pattern_of(ann, "permute_dims"), TVM_RELAX_PATTERN_INJECTIVE);
    CHECK_EQ_INT(pattern_of(ann, "reshape"), TVM_RELAX_PATTERN_INJECTIVE);
    CHECK_EQ_INT(pattern_of(ann, "sum"), TVM_RELAX_PATTERN_COMM_REDUCE);
    CHECK_EQ_INT(pattern_of(ann, "matmul"), TVM_RELAX_PATTERN_OUT_EWISE_FUSABLE);
    CHECK_EQ_INT(pattern_of(ann, "nn_softmax"), TVM_RELAX_PATTERN_OUT_EWISE_FUSABLE);
    CHECK_EQ_INT(pattern_of(ann, "argmax"), TVM_RELAX_PATTERN_COMM_REDUCE);
    CHECK_EQ_INT(pattern_of(ann, "concat"), TVM_RELAX_PATTERN_OPAQUE);
    CHECK_EQ_INT(pattern_of(ann, "nn_conv2d"), TVM_RELAX_PATTERN_OUT_EWISE_FUSABLE);
    CHECK_EQ_INT(pattern_of(ann, "nn_max_pool2d"), TVM_RELAX_PATTERN_OUT_EWISE_FUSABLE);
    CHECK_EQ_INT(pattern_of(ann, "multiply"), TVM_RELAX_PATTERN_ELEMWISE);
    /* Annotated kernels keep their pattern: a second run changes nothing. */
    tvm_tir_ir_module_obj* again = tvm_relax_transform_annotate_tir_op_pattern(ann);
    CHECK(again == ann);
    tvm_ffi_release(again);
  }
  tvm_ffi_release(ann), tvm_ffi_release(mod);
}

TEST(op_patterns_of_layer_norm_and_mean) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 3, (int64_t[]){-1, 4, 8});
  tvm_relax_var_obj* g = fm_param(&m, "g", 1, (int64_t[]){8});
  tvm_relax_var_obj* bt = fm_param(&m, "bt", 1, (int64_t[]){8});
  fm_begin(&m);
  void* args = fm_keep(&m, rt_array(3, x, g, bt));
  tvm_relax_var_obj* l = fm_emit(&m, false, tvm_relax_call_new(tvm_relax_op(TVM_RELAX_OP_nn_layer_norm), args,
                                                               fm_ints_attr(&m, "axes", 1, (int64_t[]){-1}), NULL, NULL));
  tvm_relax_var_obj* mean = FM_OUT(&m, "relax.mean", l);
  tvm_tir_ir_module_obj* mod = fm_end(&m, mean, NULL);
  tvm_tir_ir_module_obj* ann = mod ? tvm_relax_transform_annotate_tir_op_pattern(mod) : NULL;
  CHECK(ann != NULL);
  CHECK_EQ_INT(pattern_of(ann, "nn_layer_norm"), TVM_RELAX_PATTERN_OUT_EWISE_FUSABLE);
  CHECK_EQ_INT(pattern_of(ann, "mean"), TVM_RELAX_PATTERN_COMM_REDUCE);
  tvm_ffi_release(ann), tvm_ffi_release(mod);
}

/* A hand-written kernel with a store whose index is not a loop variable, and one calling an
 * impure op: opaque. */
TEST(op_pattern_opaque_kernels) {
  tvm_tir_buffer_obj* a = tvm_tir_buffer_declv("A", F32, 1, (int64_t[]){8});
  tvm_tir_buffer_obj* o = tvm_tir_buffer_declv("O", F32, 1, (int64_t[]){8});
  void* i = tvm_tir_var("i", I64);
  /* O[7 - i] = A[i] */
  void* body = tvm_tir_serial_take(tvm_tir_ref(i), tvm_tir_i64(0), tvm_tir_i64(8),
                                   tvm_tir_store_take(tvm_tir_ref(o), tvm_tir_load_take(tvm_tir_ref(a), tvm_tir_ref(i)),
                                                      tvm_tir_sub_take(tvm_tir_i64(7), tvm_tir_ref(i))));
  tvm_tir_prim_func_obj* f = tvm_tir_func_take("rev", tvm_tir_list_take(tvm_tir_ref(a), tvm_tir_ref(o)), body);
  CHECK_EQ_INT(tvm_relax_analyze_op_pattern(f), TVM_RELAX_PATTERN_OPAQUE);
  /* O[i] = A[i] is elementwise, with the same buffers */
  void* body2 = tvm_tir_serial_take(tvm_tir_ref(i), tvm_tir_i64(0), tvm_tir_i64(8),
                                    tvm_tir_store_take(tvm_tir_ref(o), tvm_tir_load_take(tvm_tir_ref(a), tvm_tir_ref(i)),
                                                       tvm_tir_ref(i)));
  tvm_tir_prim_func_obj* f2 = tvm_tir_func_take("copy", tvm_tir_list_take(tvm_tir_ref(a), tvm_tir_ref(o)), body2);
  CHECK_EQ_INT(tvm_relax_analyze_op_pattern(f2), TVM_RELAX_PATTERN_ELEMWISE);
  /* a kernel that stores nothing */
  tvm_tir_prim_func_obj* f3 = tvm_tir_func_take("nop", tvm_tir_list_take(tvm_tir_ref(a), tvm_tir_ref(o)),
                                                tvm_tir_evaluate_take(tvm_tir_int(0)));
  CHECK_EQ_INT(tvm_relax_analyze_op_pattern(f3), TVM_RELAX_PATTERN_OPAQUE);
  /* not a PrimFunc */
  CHECK_EQ_INT(tvm_relax_analyze_op_pattern((void*)a), -1);
  CHECK_RAISED("TypeError", "PrimFunc is required");
  tvm_ffi_release(f), tvm_ffi_release(f2), tvm_ffi_release(f3);
  tvm_ffi_release(i), tvm_ffi_release(a), tvm_ffi_release(o);
}

/* ---- FuseOps and FuseTIR on small models -------------------------------------------------------- */
/* Fuse mod (released), check main's text after FuseOps and after FuseTIR, and that both evaluate
 * bit-identically to the unfused module at batch sizes 1 and 3. Returns the FuseTIR result. */
static tvm_tir_ir_module_obj* check_fusion(tvm_tir_ir_module_obj* mod, const char* after_ops,
                                           const char* after_tir) {
  CHECK(mod != NULL);
  if (!mod) return NULL;
  tvm_tir_ir_module_obj* f = fm_fuse_ops(mod);
  CHECK_STR_EQ(text(f), after_ops);
  tvm_tir_ir_module_obj* t = f ? tvm_relax_transform_fuse_tir(f) : NULL;
  CHECK(t != NULL);
  if (t) CHECK_OK(tvm_relax_verify_well_formed(t));
  CHECK_STR_EQ(text(t), after_tir);
  for (int64_t batch = 1; t && batch <= 3; batch += 2) {
    CHECK_EQ_INT(fm_eval_diff(mod, f, batch, 0), 0);
    CHECK_EQ_INT(fm_eval_diff(mod, t, batch, 0), 0);
  }
  /* No group function is left, nor any kernel nothing calls. */
  CHECK_EQ_INT(fm_count_funcs(t, false), 1);
  tvm_ffi_release(f);
  tvm_ffi_release(mod);
  return t;
}

TEST(elementwise_chain) {
  tvm_tir_ir_module_obj* t = check_fusion(fm_elementwise_chain(), "df: gv = fused_exp_add_nn_relu(x, y)",
                                          "df: gv = call_tir(fused_exp_add_nn_relu, (x, y))");
  /* One loop nest per element: the intermediates inlined, nothing allocated. */
  CHECK_EQ_INT(fm_count_funcs(t, true), 1);
  CHECK_EQ_INT(fm_count_tir(t, "fused_exp_add_nn_relu", TVM_TIR_KIND_Allocate), 0);
  CHECK_EQ_INT(fm_count_tir(t, "fused_exp_add_nn_relu", TVM_TIR_KIND_For), 2);
  tvm_ffi_release(t);
}

TEST(broadcast_and_scalar) {
  tvm_tir_ir_module_obj* t = check_fusion(fm_broadcast_and_scalar(), "df: gv = fused_multiply_add_multiply1_tanh(b, c, x)",
                                          "df: gv = call_tir(fused_multiply_add_multiply1_tanh, (b, c, x))");
  CHECK_EQ_INT(fm_count_tir(t, "fused_multiply_add_multiply1_tanh", TVM_TIR_KIND_Allocate), 0);
  tvm_ffi_release(t);
}

TEST(injective_chain) {
  tvm_tir_ir_module_obj* t = check_fusion(fm_injective_chain(), "df: gv = fused_reshape_permute_dims_add_negative(x, y)",
                                          "df: gv = call_tir(fused_reshape_permute_dims_add_negative, (x, y))");
  CHECK_EQ_INT(fm_count_tir(t, "fused_reshape_permute_dims_add_negative", TVM_TIR_KIND_Allocate), 0);
  tvm_ffi_release(t);
}

/* exp before a reduction joins it; the reduction's consumer stays apart (a kCommReduce node
 * takes no epilogue, as upstream). The reduction reads exp(x)[i, k] once per element inside its
 * k loop, so exp is computed there. */
TEST(reduction_prologue) {
  tvm_tir_ir_module_obj* t = check_fusion(fm_reduction_prologue(), "df: lv1 = fused_exp_sum(x); gv = call_tir(sqrt, (lv1))",
                                          "df: lv1 = call_tir(fused_exp_sum, (x)); gv = call_tir(sqrt, (lv1))");
  CHECK_EQ_INT(fm_count_funcs(t, true), 2);
  CHECK_EQ_INT(fm_count_tir(t, "fused_exp_sum", TVM_TIR_KIND_Allocate), 1); /* the accumulator */
  tvm_ffi_release(t);
}

/* softmax (kOutEWiseFusable) takes its elementwise epilogue, computed right after each element
 * of softmax is stored. */
TEST(softmax_epilogue) {
  tvm_tir_ir_module_obj* t = check_fusion(fm_softmax_epilogue(), "df: gv = fused_nn_softmax_multiply(x)",
                                          "df: gv = call_tir(fused_nn_softmax_multiply, (x))");
  /* the scaling runs right after softmax's output store: softmax's four loops, no fifth */
  CHECK_EQ_INT(fm_count_tir(t, "fused_nn_softmax_multiply", TVM_TIR_KIND_For), 4);
  tvm_ffi_release(t);
}

/* A dense layer with bias add and relu is one kernel, the epilogue in the matmul's loops. */
TEST(matmul_bias_relu) {
  tvm_tir_ir_module_obj* t = check_fusion(fm_matmul_bias_relu(), "df: gv = fused_matmul_add_nn_relu(x, w, b)",
                                          "df: gv = call_tir(fused_matmul_add_nn_relu, (x, w, b))");
  /* matmul's nest (i, j, k) holds the epilogue: three loops in all, add inlined into relu. */
  CHECK_EQ_INT(fm_count_funcs(t, true), 1);
  CHECK_EQ_INT(fm_count_tir(t, "fused_matmul_add_nn_relu", TVM_TIR_KIND_For), 3);
  CHECK_EQ_INT(fm_count_tir(t, "fused_matmul_add_nn_relu", TVM_TIR_KIND_BufferStore), 3);
  tvm_ffi_release(t);
}

/* An extern (block output) value inside a chain ends fusion there: upstream's post-dominator
 * tree makes such a node a root, so exp and add stay apart and multiply + relu fuse. */
TEST(block_output_in_a_chain) {
  tvm_tir_ir_module_obj* t = check_fusion(
      fm_block_output_in_a_chain(), "df: lv = call_tir(exp, (x)); gv = call_tir(add, (lv, y)); gv1 = fused_multiply_nn_relu(lv, gv)",
      "df: lv = call_tir(exp, (x)); gv = call_tir(add, (lv, y)); gv1 = call_tir(fused_multiply_nn_relu, (lv, gv))");
  tvm_ffi_release(t);
}

/* A group whose result is a field of a tuple kernel (upstream's test_tuple_get_root): split's
 * kernel writes that field straight into the fused kernel's result buffer. */
TEST(tuple_get_root) {
  tvm_tir_ir_module_obj* t = check_fusion(fm_tuple_get_root(), "df: lv1 = fused_split(x); gv = call_tir(matmul, (lv1, w))",
                                          "df: lv1 = call_tir(fused_split, (x)); gv = call_tir(matmul, (lv1, w))");
  /* the two other fields are intermediates */
  CHECK_EQ_INT(fm_count_tir(t, "fused_split", TVM_TIR_KIND_Allocate), 2);
  tvm_ffi_release(t);
}

/* FuseTIR on a group function returning a tuple (two results, one also read inside the group):
 * the call becomes a call_tir with a tuple out_sinfo, its items taken as before. */
TEST(group_with_tuple_result) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 2, (int64_t[]){-1, 4});
  tvm_relax_var_obj* y = fm_param(&m, "y", 2, (int64_t[]){-1, 4});
  fm_begin(&m);
  tvm_relax_var_obj* a = FM_OUT(&m, "relax.exp", x);
  tvm_relax_var_obj* b = FM_OUT(&m, "relax.add", a, y);
  tvm_tir_ir_module_obj* legal = fm_end(&m, a, b); /* main(x, y) = (exp(x), exp(x) + y) */
  /* The same function as a group "fused_pair" called by a new main. */
  tvm_relax_function_obj* f = legal ? tvm_tir_ir_module_lookup(legal, "main") : NULL;
  TVMFFIAny key = tvm_ffi_string("Primitive"), one = tvm_ffi_any_int(1);
  void* attrs = tvm_ffi_map_new(&key, &one, 1);
  tvm_ffi_any_release(&key);
  tvm_relax_function_obj* group = f ? tvm_relax_function_new(f->params, f->body, NULL, true, attrs) : NULL;
  tvm_tir_global_var_obj* ggv = group ? tvm_relax_global_var_new("fused_pair", tvm_relax_sinfo_of(group)) : NULL;
  /* main's parameters with a symbolic variable of its own */
  tvm_tir_var_obj* n2 = tvm_tir_var_new("n", I64);
  void* dims0 = f ? tvm_relax_tensor_sinfo_dims(tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(f->params, 0))) : NULL;
  TVMFFIAny nk = tvm_ffi_any_obj(dims0 ? tvm_ffi_seq_obj_at(dims0, 0) : NULL), nv = tvm_ffi_any_obj(n2);
  void* nmap = tvm_ffi_map_new(&nk, &nv, 1);
  tvm_relax_sinfo_obj* s2 = f ? tvm_relax_sinfo_substitute(tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(f->params, 0)), nmap) : NULL;
  tvm_relax_var_obj* x2 = s2 ? tvm_relax_var_new("x", s2, false) : NULL;
  tvm_relax_var_obj* y2 = s2 ? tvm_relax_var_new("y", s2, false) : NULL;
  tvm_ffi_release(s2), tvm_ffi_release(nmap), tvm_ffi_release(n2);
  tvm_tir_ir_module_obj* mod = NULL;
  if (ggv && x2 && y2) {
    void* args = rt_array(2, x2, y2);
    tvm_relax_expr_obj* call = tvm_relax_call_new(ggv, args, NULL, NULL, NULL);
    tvm_relax_var_obj* tv = tvm_relax_var_new("t", tvm_relax_sinfo_of(call), true);
    tvm_relax_expr_obj* i0 = tvm_relax_tuple_get_item_new(&tv->expr, 0);
    tvm_relax_expr_obj* i1 = tvm_relax_tuple_get_item_new(&tv->expr, 1);
    tvm_relax_var_obj* o0 = tvm_relax_var_new("o0", tvm_relax_sinfo_of(i0), false);
    tvm_relax_var_obj* o1 = tvm_relax_var_new("o1", tvm_relax_sinfo_of(i1), false);
    tvm_relax_binding_obj* b0 = tvm_relax_var_binding_new(tv, call);
    tvm_relax_binding_obj* b1 = tvm_relax_var_binding_new(o0, i0);
    tvm_relax_binding_obj* b2 = tvm_relax_var_binding_new(o1, i1);
    void* binds = rt_array(3, b0, b1, b2);
    tvm_relax_block_obj* blk = tvm_relax_block_new(binds, true);
    void* blocks = rt_array(1, blk);
    void* res_f = rt_array(2, o0, o1);
    tvm_relax_expr_obj* res = tvm_relax_tuple_new(res_f);
    tvm_relax_expr_obj* body = tvm_relax_seq_expr_new(blocks, res);
    TVMFFIAny gk = tvm_ffi_string("global_symbol"), gs = tvm_ffi_string("main");
    void* mattrs = tvm_ffi_map_new(&gk, &gs, 1);
    tvm_ffi_any_release(&gk), tvm_ffi_any_release(&gs);
    tvm_relax_function_obj* main2 = tvm_relax_function_new(args, body, NULL, true, mattrs);
    /* the module: the kernels of legal, fused_pair and the new main */
    void* funcs = tvm_ffi_dict_new();
    const TVMFFIAny *k, *v;
    for (int64_t pos = 0; (pos = tvm_ffi_map_next(legal->functions, pos, &k, &v)) >= 0;) {
      if (tvm_tir_is(v->v_obj, TVM_TIR_KIND_PrimFunc)) tvm_ffi_dict_set(funcs, k, v);
    }
    tvm_tir_global_var_obj* mgv = tvm_relax_global_var_new("main", tvm_relax_sinfo_of(main2));
    TVMFFIAny gkk = tvm_ffi_any_obj(ggv), gvv = tvm_ffi_any_obj(group), mk = tvm_ffi_any_obj(mgv), mv = tvm_ffi_any_obj(main2);
    tvm_ffi_dict_set(funcs, &gkk, &gvv);
    tvm_ffi_dict_set(funcs, &mk, &mv);
    void* map = tvm_ffi_dict_to_map(funcs);
    mod = tvm_tir_ir_module_new(map, NULL);
    tvm_ffi_release(map), tvm_ffi_release(funcs), tvm_ffi_release(mgv), tvm_ffi_release(main2);
    tvm_ffi_release(mattrs), tvm_ffi_release(body), tvm_ffi_release(res), tvm_ffi_release(res_f);
    tvm_ffi_release(blocks), tvm_ffi_release(blk), tvm_ffi_release(binds);
    tvm_ffi_release(b0), tvm_ffi_release(b1), tvm_ffi_release(b2), tvm_ffi_release(o0), tvm_ffi_release(o1);
    tvm_ffi_release(i0), tvm_ffi_release(i1), tvm_ffi_release(tv), tvm_ffi_release(call), tvm_ffi_release(args);
  }
  CHECK(mod != NULL);
  if (mod) CHECK_OK(tvm_relax_verify_well_formed(mod));
  tvm_tir_ir_module_obj* t = mod ? tvm_relax_transform_fuse_tir(mod) : NULL;
  CHECK(t != NULL);
  if (t) CHECK_OK(tvm_relax_verify_well_formed(t));
  CHECK_STR_EQ(text(t), "df: t = call_tir(fused_pair, (x, y)); o0 = t[0]; o1 = t[1]");
  CHECK_EQ_INT(fm_count_funcs(t, true), 1);
  /* exp is a result and read by add: computed once into the first result buffer */
  CHECK_EQ_INT(fm_count_tir(t, "fused_pair", TVM_TIR_KIND_Allocate), 0);
  CHECK_EQ_INT(fm_count_tir(t, "fused_pair", TVM_TIR_KIND_BufferStore), 2);
  for (int64_t batch = 1; t && batch <= 3; batch += 2) CHECK_EQ_INT(fm_eval_diff(legal, t, batch, 0), 0);
  tvm_ffi_release(t), tvm_ffi_release(mod), tvm_ffi_release(x2), tvm_ffi_release(y2), tvm_ffi_release(ggv);
  tvm_ffi_release(group), tvm_ffi_release(attrs), tvm_ffi_release(f), tvm_ffi_release(legal);
}

/* A value used twice inside a group is computed once, not inlined into both users; a value used
 * once is inlined. */
TEST(value_used_twice) {
  tvm_tir_ir_module_obj* t = check_fusion(fm_value_used_twice(), "df: gv = fused_exp_sqrt_add(x)",
                                          "df: gv = call_tir(fused_exp_sqrt_add, (x))");
  /* exp is computed once per element into a scalar (a LetStmt) that sqrt and add read */
  CHECK_EQ_INT(fm_count_tir(t, "fused_exp_sqrt_add", TVM_TIR_KIND_Allocate), 0);
  CHECK_EQ_INT(fm_count_tir(t, "fused_exp_sqrt_add", TVM_TIR_KIND_LetStmt), 1);
  CHECK_EQ_INT(fm_count_tir(t, "fused_exp_sqrt_add", TVM_TIR_KIND_Call), 2); /* exp, sqrt */
  tvm_ffi_release(t);
}

/* split's fields through TupleGetItem, each with its own elementwise op, joined again:
 * upstream's test_fuse_tuple_get_elemwise. The matmul before it stays apart (split is not
 * elementwise). */
TEST(split_tuple_get_item) {
  tvm_tir_ir_module_obj* t = check_fusion(fm_split_tuple_get_item(),
                                          "df: lv = call_tir(matmul, (x, w)); gv = fused_split_sigmoid_tanh_exp_multiply_add(lv)",
                                          "df: lv = call_tir(matmul, (x, w)); gv = call_tir(fused_split_sigmoid_tanh_exp_multiply_add, (lv))");
  tvm_ffi_release(t);
}

/* A field of a tuple made outside the group becomes a parameter of the group. */
TEST(tuple_get_item_of_outside_tuple) {
  tvm_tir_ir_module_obj* t = check_fusion(fm_tuple_get_item_of_outside_tuple(),
                                          "df: lv = call_tir(split, (x)); lv1 = call_tir(exp, (x)); lv2 = (lv, lv1); lv3 = lv[0]; gv = fused_negative_abs(lv3)",
                                          "df: lv = call_tir(split, (x)); lv1 = call_tir(exp, (x)); lv2 = (lv, lv1); lv3 = lv[0]; gv = call_tir(fused_negative_abs, (lv3))");
  tvm_ffi_release(t);
}

/* A Constant operand becomes a parameter of the group; the call passes it. */
TEST(constant_operand) {
  tvm_tir_ir_module_obj* t = check_fusion(fm_constant_operand(), "df: gv = fused_multiply_exp(x, const)",
                                          "df: gv = call_tir(fused_multiply_exp, (x, const))");
  tvm_ffi_release(t);
}

/* conv2d + bias (broadcast over channels) + relu, then max pooling apart. */
TEST(conv_bias_relu) {
  tvm_tir_ir_module_obj* t = check_fusion(fm_conv_bias_relu(),
                                          "df: lv2 = fused_nn_conv2d_add_nn_relu(x, k, b); gv = call_tir(nn_max_pool2d, (lv2))",
                                          "df: lv2 = call_tir(fused_nn_conv2d_add_nn_relu, (x, k, b)); gv = call_tir(nn_max_pool2d, (lv2))");
  tvm_ffi_release(t);
}

/* The same with batch 1: legalization reads the conv's result at [0, c, h, w] for the store at
 * [i0, c, h, w] (i0 over one iteration), still elementwise, so the add is the conv's epilogue. */
TEST(conv_bias_relu_batch_one) {
  tvm_tir_ir_module_obj* t = check_fusion(fm_conv_bias_relu_batch(1),
                                          "df: lv2 = fused_nn_conv2d_add_nn_relu(x, k, b); gv = call_tir(nn_max_pool2d, (lv2))",
                                          "df: lv2 = call_tir(fused_nn_conv2d_add_nn_relu, (x, k, b)); gv = call_tir(nn_max_pool2d, (lv2))");
  tvm_ffi_release(t);
}

/* ---- Whole models -------------------------------------------------------------------------------- */
TEST(mlp_model) {
  tvm_tir_ir_module_obj* mod = relax_models_mlp(3, -1, 8);
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  CHECK_EQ_INT(relax_models_count_calls(legal, "main", "relax.call_tir"), 6);
  tvm_tir_ir_module_obj* t = legal ? fm_fuse(legal) : NULL;
  CHECK_STR_EQ(text(t), "df: lv1 = call_tir(fused_matmul_nn_relu, (x, w)); lv3 = call_tir(fused_matmul_nn_relu, (lv1, w)); out = call_tir(fused_matmul_nn_relu, (lv3, w))");
  /* three groups of one kernel: compiled once */
  CHECK_EQ_INT(fm_count_funcs(t, true), 1);
  CHECK_EQ_INT(fm_eval_diff(legal, t, 2, 0), 0);
  tvm_ffi_release(t), tvm_ffi_release(legal), tvm_ffi_release(mod);
}

TEST(transformer_model) {
  tvm_tir_ir_module_obj* mod = relax_models_transformer(2, 2, 4, 8);
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  int64_t before = relax_models_count_calls(legal, "main", "relax.call_tir");
  tvm_tir_ir_module_obj* t = legal ? fm_fuse(legal) : NULL;
  int64_t after = relax_models_count_calls(t, "main", "relax.call_tir");
  /* per layer: each head's scores and scaling fuse (2 heads), the output projection with the
   * residual, the first MLP matmul with GELU, the second with the residual */
  CHECK_EQ_INT(before, 2 * (2 * 8 + 9));
  CHECK_EQ_INT(after, before - 2 * (2 + 3));
  CHECK_EQ_INT(fm_eval_diff(legal, t, 2, 0), 0);
  tvm_ffi_release(t), tvm_ffi_release(legal), tvm_ffi_release(mod);
}

/* The build pipeline fuses: its result is well formed, storage is still planned. */
TEST(build_pipeline_fuses) {
  const tvm_relax_pass* p;
  int64_t n = tvm_relax_build_pipeline_passes(&p);
  /* In this order (other passes may come between). */
  const char* order[] = {"LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR", "CallTIRRewrite"};
  int64_t at = 0;
  for (int k = 0; k < 5; ++k) {
    while (at < n && strcmp(p[at].name, order[k]) != 0) ++at;
    if (at == n) fprintf(stderr, "pass %s missing or out of order\n", order[k]);
    CHECK(at < n);
  }
  tvm_tir_ir_module_obj* mod = relax_models_mlp(3, 4, 8);
  tvm_tir_ir_module_obj* out = mod ? build_pipeline_roundtrip(mod) : NULL;
  CHECK(out != NULL);
  if (out) CHECK_OK(tvm_relax_verify_well_formed(out));
  CHECK_EQ_INT(relax_models_count_calls(out, "main", "relax.memory.alloc_storage"), 2);
  CHECK_STR_CONTAINS(text(out), "_ = fused_matmul_nn_relu(x, w, alloc)");
  tvm_ffi_release(out), tvm_ffi_release(mod);
}

/* ---- Corner cases and errors ------------------------------------------------------------------- */
TEST(nothing_to_fuse) {
  tvm_tir_ir_module_obj* mod = relax_models_mlp(1, 4, 8); /* not legalized: no call_tir */
  tvm_tir_ir_module_obj* a = tvm_relax_transform_annotate_tir_op_pattern(mod);
  tvm_tir_ir_module_obj* f = a ? tvm_relax_transform_fuse_ops(a) : NULL;
  tvm_tir_ir_module_obj* t = f ? tvm_relax_transform_fuse_tir(f) : NULL;
  CHECK(a == mod && f == mod && t == mod);
  tvm_ffi_release(t), tvm_ffi_release(f), tvm_ffi_release(a);
  /* Fusing a fused module again changes nothing. */
  tvm_tir_ir_module_obj* legal = tvm_relax_transform_legalize_ops(mod);
  tvm_tir_ir_module_obj* once = legal ? fm_fuse_ops(legal) : NULL;
  tvm_tir_ir_module_obj* twice = once ? tvm_relax_transform_fuse_ops(once) : NULL;
  CHECK(twice == once);
  tvm_ffi_release(twice), tvm_ffi_release(once), tvm_ffi_release(legal), tvm_ffi_release(mod);
}

/* A Primitive function FuseTIR cannot merge (a match_cast in its block) is left as it is, and
 * its callers still call it. */
TEST(unmergeable_group_left_as_is) {
  tvm_tir_ir_module_obj* mlp = relax_models_mlp(1, 4, 8);
  tvm_tir_ir_module_obj* legal = mlp ? tvm_relax_transform_legalize_ops(mlp) : NULL;
  tvm_relax_block_builder* bb = legal ? tvm_relax_bb_new(legal) : NULL;
  tvm_tir_global_var_obj* relu = legal ? tvm_tir_ir_module_get_global_var(legal, "nn_relu") : NULL;
  CHECK(relu != NULL);
  tvm_tir_ir_module_obj* mod = NULL;
  if (relu) {
    tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 2, (int64_t)4, (int64_t)8));
    void* params = rt_array(1, x);
    void* attrs = rt_attrs(1, "Primitive", tvm_ffi_any_int(1));
    CHECK_OK(tvm_relax_bb_function_begin_ex(bb, "group", params, attrs, TVM_RELAX_BB_PRIVATE));
    CHECK_OK(tvm_relax_bb_dataflow_begin(bb));
    tvm_relax_expr_obj* tup = tvm_relax_tuple_new(params);
    void* cargs = rt_array(2, relu, tup);
    tvm_relax_sinfo_obj* s = rt_tensor(F32, 2, (int64_t)4, (int64_t)8);
    void* outs = rt_array(1, s);
    tvm_relax_expr_obj* call = tvm_relax_call_new(tvm_relax_op(TVM_RELAX_OP_call_tir), cargs, NULL, outs, NULL);
    tvm_relax_var_obj* y = tvm_relax_bb_emit(bb, call, NULL);
    tvm_relax_var_obj* z = tvm_relax_bb_match_cast(bb, &y->expr, s, NULL);
    tvm_relax_var_obj* r = tvm_relax_bb_emit_output(bb, &z->expr, NULL);
    CHECK_OK(tvm_relax_bb_block_end(bb));
    tvm_tir_global_var_obj* g = tvm_relax_bb_function_end(bb, &r->expr, NULL);
    tvm_relax_var_obj* x2 = rt_var_take("x", rt_tensor(F32, 2, (int64_t)4, (int64_t)8));
    void* params2 = rt_array(1, x2);
    CHECK_OK(tvm_relax_bb_function_begin(bb, "main2", params2, NULL, true));
    CHECK_OK(tvm_relax_bb_dataflow_begin(bb));
    tvm_relax_expr_obj* call2 = tvm_relax_call_new(g, params2, NULL, NULL, NULL);
    tvm_relax_var_obj* o = tvm_relax_bb_emit_output(bb, call2, NULL);
    CHECK_OK(tvm_relax_bb_block_end(bb));
    tvm_tir_global_var_obj* g2 = tvm_relax_bb_function_end(bb, &o->expr, NULL);
    mod = g2 ? tvm_relax_bb_module(bb) : NULL;
    tvm_ffi_release(g2), tvm_ffi_release(o), tvm_ffi_release(call2), tvm_ffi_release(params2), tvm_ffi_release(x2);
    tvm_ffi_release(g), tvm_ffi_release(r), tvm_ffi_release(z), tvm_ffi_release(y), tvm_ffi_release(call);
    tvm_ffi_release(outs), tvm_ffi_release(s), tvm_ffi_release(cargs), tvm_ffi_release(tup);
    tvm_ffi_release(attrs), tvm_ffi_release(params), tvm_ffi_release(x);
  }
  CHECK(mod != NULL);
  if (mod) CHECK_OK(tvm_relax_verify_well_formed(mod));
  tvm_tir_ir_module_obj* t = mod ? tvm_relax_transform_fuse_tir(mod) : NULL;
  CHECK(t != NULL && t == mod);
  if (t) {
    TVMFFIAny args[1], out;
    int64_t shape[2] = {4, 8};
    void* xt = tvm_ffi_tensor_empty(shape, 2, F32, (DLDevice){kDLCPU, 0});
    float* p = tvm_ffi_tensor_dl(xt)->data;
    for (int i = 0; i < 32; ++i) p[i] = (float)(i - 16);
    args[0] = tvm_ffi_any_obj(xt);
    CHECK_OK(tvm_relax_eval(t, "main2", args, 1, &out));
    if (out.type_index == kTVMFFITensor) CHECK(((float*)tvm_ffi_tensor_dl(out.v_obj)->data)[3] == 0.0f);
    if (out.type_index == kTVMFFITensor) CHECK(((float*)tvm_ffi_tensor_dl(out.v_obj)->data)[20] == 4.0f);
    tvm_ffi_any_release(&out);
    tvm_ffi_release(xt);
  }
  tvm_ffi_release(t), tvm_ffi_release(mod), tvm_ffi_release(relu);
  tvm_relax_bb_free(bb);
  tvm_ffi_release(legal), tvm_ffi_release(mlp);
}

TEST(not_a_module) {
  tvm_tir_var_obj* v = tvm_tir_var_new("v", I64);
  CHECK(tvm_relax_transform_annotate_tir_op_pattern((void*)v) == NULL);
  CHECK_RAISED("TypeError", "AnnotateTIROpPattern: an IRModule is required");
  CHECK(tvm_relax_transform_fuse_ops((void*)v) == NULL);
  CHECK_RAISED("TypeError", "FuseOps: an IRModule is required");
  CHECK(tvm_relax_transform_fuse_tir((void*)v) == NULL);
  CHECK_RAISED("TypeError", "FuseTIR: an IRModule is required");
  tvm_ffi_release(v);
}

int main(void) {
  RUN(op_patterns_of_legalized_kernels);
  RUN(op_patterns_of_layer_norm_and_mean);
  RUN(op_pattern_opaque_kernels);
  RUN(elementwise_chain);
  RUN(broadcast_and_scalar);
  RUN(injective_chain);
  RUN(reduction_prologue);
  RUN(softmax_epilogue);
  RUN(matmul_bias_relu);
  RUN(block_output_in_a_chain);
  RUN(tuple_get_root);
  RUN(group_with_tuple_result);
  RUN(value_used_twice);
  RUN(split_tuple_get_item);
  RUN(tuple_get_item_of_outside_tuple);
  RUN(constant_operand);
  RUN(conv_bias_relu);
  RUN(conv_bias_relu_batch_one);
  RUN(mlp_model);
  RUN(transformer_model);
  RUN(build_pipeline_fuses);
  RUN(nothing_to_fuse);
  RUN(unmergeable_group_left_as_is);
  RUN(not_a_module);
  return test_summary();
}
