/*
 * test_block_builder.c: building functions and modules with the BlockBuilder: A-normal form,
 * struct info through the bindings, unique names, symbolic shapes across a call, and the
 * builder's errors.
 */
#include <tvm/tir/builder.h>

#include "relax_models.h"
#include "relax_testing.h"

/* main(x: (n, 4), w: (4, 3)) { lv = matmul-free MLP-ish chain; return gv } built twice. */
static tvm_tir_ir_module_obj* build_chain(const char* n_name) {
  tvm_tir_var_obj* n = tvm_tir_var_new(n_name, I64);
  void* dims_x[2] = {n, NULL};
  tvm_tir_expr_obj* four = tvm_tir_const_int(I64, 4);
  dims_x[1] = four;
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor_sym(F32, 2, dims_x));
  tvm_relax_var_obj* b = rt_var_take("b", rt_tensor(F32, 1, (int64_t)4));
  void* params = rt_array(2, x, b);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", params, NULL, true));
  CHECK_OK(tvm_relax_bb_dataflow_begin(bb));
  /* A nested call: add(exp(x), b) is emitted as two bindings. */
  tvm_relax_expr_obj* e = RT_CALL("relax.exp", NULL, x);
  tvm_relax_expr_obj* add = RT_CALL("relax.add", NULL, e, b);
  tvm_relax_var_obj* lv = tvm_relax_bb_emit(bb, add, NULL);
  CHECK(lv != NULL);
  CHECK_EQ_INT(tvm_relax_bb_num_bindings(bb), 2);
  CHECK(tvm_relax_kind_of(lv) == TVM_RELAX_KIND_DataflowVar);
  CHECK_STR_EQ(tvm_relax_var_name(lv), "lv1");
  tvm_relax_var_obj* gv = tvm_relax_bb_emit_output(bb, (tvm_relax_expr_obj*)lv, NULL);
  CHECK_STR_EQ(tvm_relax_var_name(gv), "gv");
  CHECK_OK(tvm_relax_bb_block_end(bb));
  tvm_tir_global_var_obj* g = tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)gv, NULL);
  CHECK(g != NULL);
  tvm_tir_ir_module_obj* mod = tvm_relax_bb_module(bb);
  tvm_relax_bb_free(bb);
  tvm_ffi_release(g);
  tvm_ffi_release(gv);
  tvm_ffi_release(lv);
  tvm_ffi_release(add);
  tvm_ffi_release(e);
  tvm_ffi_release(params);
  tvm_ffi_release(x);
  tvm_ffi_release(b);
  tvm_ffi_release(four);
  tvm_ffi_release(n);
  return mod;
}

TEST(chain_struct_info_and_anf) {
  tvm_tir_ir_module_obj* mod = build_chain("n");
  CHECK(mod != NULL);
  tvm_relax_function_obj* f = tvm_tir_ir_module_lookup(mod, "main");
  CHECK(tvm_relax_kind_of(f) == TVM_RELAX_KIND_Function);
  CHECK_STR_EQ(rt_text(f->ret_struct_info), "R.Tensor((n, 4), dtype=\"float32\")");
  CHECK_STR_EQ(rt_sinfo_text(f), "R.Callable((R.Tensor((n, 4), dtype=\"float32\"), "
                                 "R.Tensor((4,), dtype=\"float32\")), "
                                 "R.Tensor((n, 4), dtype=\"float32\"))");
  tvm_relax_seq_expr_obj* seq = (tvm_relax_seq_expr_obj*)f->body;
  CHECK_EQ_INT(tvm_ffi_seq_size(seq->blocks), 1);
  tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(seq->blocks, 0);
  CHECK(tvm_relax_kind_of(blk) == TVM_RELAX_KIND_DataflowBlock);
  CHECK_EQ_INT(tvm_ffi_seq_size(blk->bindings), 3);
  /* The add's first argument is the exp's variable, not the nested call. */
  tvm_relax_binding_obj* b1 = tvm_ffi_seq_obj_at(blk->bindings, 1);
  tvm_relax_call_obj* c = (tvm_relax_call_obj*)tvm_relax_binding_value(b1);
  CHECK(tvm_relax_is_call_to(c, TVM_RELAX_OP_add));
  CHECK(tvm_relax_kind_of(tvm_ffi_seq_obj_at(c->args, 0)) == TVM_RELAX_KIND_DataflowVar);
  tvm_ffi_release(f);
  tvm_ffi_release(mod);
}

TEST(structural_equal_hash_json_of_modules) {
  tvm_tir_ir_module_obj* a = build_chain("n");
  tvm_tir_ir_module_obj* b = build_chain("m"); /* alpha-equivalent: another symbolic var */
  TVMFFIAny la = tvm_ffi_any_obj(a), lb = tvm_ffi_any_obj(b);
  CHECK_EQ_INT(tvm_ffi_structural_equal(&la, &lb, false, NULL, NULL), 1);
  CHECK(tvm_ffi_structural_hash(&la, false) == tvm_ffi_structural_hash(&lb, false));
  /* JSON round trip */
  tvm_ffi_strbuf json = {0};
  CHECK_OK(tvm_ffi_json_save(&la, &json));
  TVMFFIAny back = tvm_ffi_any_none();
  CHECK_OK(tvm_ffi_json_load(tvm_ffi_strbuf_cstr(&json), json.size, &back));
  CHECK_EQ_INT(tvm_ffi_structural_equal(&la, &back, false, NULL, NULL), 1);
  tvm_ffi_any_release(&back);
  tvm_ffi_strbuf_free(&json);
  tvm_ffi_release(a);
  tvm_ffi_release(b);
}

TEST(different_shapes_not_equal) {
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 2, (int64_t)2, (int64_t)3));
  tvm_relax_var_obj* y = rt_var_take("x", rt_tensor(F32, 2, (int64_t)3, (int64_t)2));
  void* px = rt_array(1, x);
  void* py = rt_array(1, y);
  tvm_relax_function_obj* fx = tvm_relax_function_new(px, (tvm_relax_expr_obj*)x, NULL, true, NULL);
  tvm_relax_function_obj* fy = tvm_relax_function_new(py, (tvm_relax_expr_obj*)y, NULL, true, NULL);
  TVMFFIAny a = tvm_ffi_any_obj(fx), b = tvm_ffi_any_obj(fy);
  CHECK_EQ_INT(tvm_ffi_structural_equal(&a, &b, false, NULL, NULL), 0);
  tvm_ffi_release(fx);
  tvm_ffi_release(fy);
  tvm_ffi_release(px);
  tvm_ffi_release(py);
  tvm_ffi_release(x);
  tvm_ffi_release(y);
}

/* A PrimFunc's GlobalVar carries upstream's declared FuncStructInfo: opaque params and the
 * result its ret_type gives, so a direct call (lowered code's `cls.f(x, out)`) is void. */
TEST(prim_func_calls_infer_their_result) {
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_tir_expr_obj* zero = tvm_tir_int_imm_new(tvm_tir_dtype_int(32), 0);
  tvm_tir_stmt_obj* body = tvm_tir_evaluate_new(zero);
  void* none = tvm_ffi_array_new(NULL, 0);
  tvm_tir_prim_func_obj* void_fn = tvm_tir_prim_func_new(none, body, NULL, NULL, NULL);
  /* `T.ret(T.int32(7))`: the PrimFunc's ret_type is inferred, PrimType(int32). */
  tvm_tir_stmt_obj* ret =
      tvm_tir_evaluate_take(tvm_tir_call_take(TVM_TIR_VOID, "tir.ret", tvm_tir_int(7)));
  tvm_tir_prim_func_obj* int_fn = tvm_tir_prim_func_new(none, ret, NULL, NULL, NULL);
  tvm_tir_global_var_obj* gv_void = tvm_relax_bb_add_function(bb, void_fn, "k");
  tvm_tir_global_var_obj* gv_int = tvm_relax_bb_add_function(bb, int_fn, "k_int");
  CHECK(int_fn && gv_void && gv_int);
  CHECK_STR_EQ(rt_sinfo_text(gv_void), "R.Callable(R.Tuple(), purity=False)");
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 1, (int64_t)4));
  void* args = rt_array(2, x, x); /* (opaque params: not checked against the PrimFunc's) */
  RT_EXPECT_SINFO(tvm_relax_call_new(gv_void, args, NULL, NULL, NULL), "R.Tuple()");
  RT_EXPECT_SINFO(tvm_relax_call_new(gv_int, args, NULL, NULL, NULL), "R.Prim(\"int32\")");
  tvm_ffi_release(args);
  tvm_ffi_release(x);
  /* The declared form, before a PrimFunc exists: no return annotation is void. */
  tvm_relax_sinfo_obj* declared = tvm_relax_prim_func_type_sinfo(NULL);
  CHECK_STR_EQ(rt_text(declared), "R.Callable(R.Tuple(), purity=False)");
  tvm_ffi_release(declared);
  CHECK(tvm_relax_prim_func_sinfo(NULL) == NULL);
  CHECK_RAISED("TypeError", "NULL PrimFunc");
  tvm_ffi_release(gv_int);
  tvm_ffi_release(gv_void);
  tvm_ffi_release(int_fn);
  tvm_ffi_release(void_fn);
  tvm_ffi_release(ret);
  tvm_ffi_release(none);
  tvm_ffi_release(body);
  tvm_ffi_release(zero);
  tvm_relax_bb_free(bb);
}

TEST(builder_errors) {
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 1, (int64_t)4));
  CHECK(tvm_relax_bb_emit(bb, (tvm_relax_expr_obj*)x, NULL) == NULL);
  CHECK_RAISED("ValueError", "outside a function");
  void* params = rt_array(1, x);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "f", params, NULL, true));
  CHECK(tvm_relax_bb_scope_end(bb, (tvm_relax_expr_obj*)x) == NULL);
  CHECK_RAISED("ValueError", "no binding scope");
  CHECK_OK(tvm_relax_bb_dataflow_begin(bb));
  tvm_relax_var_obj* lv = tvm_relax_bb_emit(bb, (tvm_relax_expr_obj*)x, NULL);
  CHECK_OK(tvm_relax_bb_block_end(bb));
  CHECK(tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)lv, NULL) == NULL);
  CHECK_RAISED("ValueError", "DataflowVar");
  tvm_ffi_release(lv);
  tvm_ffi_release(params);
  tvm_ffi_release(x);
  tvm_relax_bb_free(bb);
}

TEST(symbolic_call_binds_dims) {
  /* f(a: (k, 8)) -> (k, 8); calling it with x: (16, 8) gives (16, 8). */
  tvm_tir_var_obj* k = tvm_tir_var_new("k", I64);
  tvm_tir_expr_obj* eight = tvm_tir_const_int(I64, 8);
  void* dims[2] = {k, eight};
  tvm_relax_sinfo_obj* ps = rt_tensor_sym(F32, 2, dims);
  tvm_relax_var_obj* a = rt_var_take("a", ps);
  void* params = rt_array(1, a);
  tvm_relax_function_obj* f = tvm_relax_function_new(params, (tvm_relax_expr_obj*)a, NULL, true, NULL);
  CHECK(f != NULL);
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 2, (int64_t)16, (int64_t)8));
  void* args = rt_array(1, x);
  tvm_relax_expr_obj* call = tvm_relax_call_new(f, args, NULL, NULL, NULL);
  CHECK_STR_EQ(rt_sinfo_text(call), "R.Tensor((16, 8), dtype=\"float32\")");
  /* A wrong argument is refused. */
  tvm_relax_var_obj* y = rt_var_take("y", rt_tensor(F32, 2, (int64_t)16, (int64_t)9));
  void* bad = rt_array(1, y);
  CHECK(tvm_relax_call_new(f, bad, NULL, NULL, NULL) == NULL);
  CHECK_RAISED("TypeError", "does not match the parameter");
  tvm_ffi_release(bad);
  tvm_ffi_release(y);
  tvm_ffi_release(call);
  tvm_ffi_release(args);
  tvm_ffi_release(x);
  tvm_ffi_release(f);
  tvm_ffi_release(params);
  tvm_ffi_release(a);
  tvm_ffi_release(eight);
  tvm_ffi_release(k);
}

/* f(c: R.Tensor((), "bool"), x: R.Tensor((4,))) with a local function g and an if/else built in
 * binding scopes:
 *   g = fn(y) { e = exp(y); return e }
 *   z = if c { t = g(x); t } else { x }
 *   return z */
TEST(local_function_and_scopes) {
  tvm_relax_var_obj* c = rt_var_take("c", rt_tensor(tvm_tir_dtype_bool(), 0));
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 1, (int64_t)4));
  tvm_relax_var_obj* y = rt_var_take("y", rt_tensor(F32, 1, (int64_t)4));
  void* params = rt_array(2, c, x);
  void* gparams = rt_array(1, y);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin_ex(bb, "f", params, NULL, TVM_RELAX_BB_PRIVATE));
  CHECK_OK(tvm_relax_bb_function_begin_ex(bb, "g", gparams, NULL, TVM_RELAX_BB_PRIVATE));
  tvm_relax_expr_obj* ex = RT_CALL("relax.exp", NULL, y);
  tvm_relax_var_obj* e = tvm_relax_bb_emit(bb, ex, "e");
  CHECK_EQ_INT(tvm_relax_bb_num_bindings(bb), 1);
  /* Attributes set before the end are the local function's own (a Map; anything else refused). */
  TVMFFIAny key = tvm_ffi_string("note"), val = tvm_ffi_any_int(7);
  void* attrs = tvm_ffi_map_new(&key, &val, 1);
  tvm_ffi_any_release(&key);
  CHECK(tvm_relax_bb_function_set_attrs(bb, params) != 0);
  CHECK_RAISED("TypeError", "attrs must be an ffi.Map");
  CHECK_OK(tvm_relax_bb_function_set_attrs(bb, attrs));
  tvm_ffi_release(attrs);
  tvm_relax_function_obj* g = tvm_relax_bb_function_finish(bb, (tvm_relax_expr_obj*)e, NULL);
  CHECK(g != NULL);
  const TVMFFIAny* note = g ? tvm_ffi_map_get_str(g->func.attrs, "note") : NULL;
  CHECK(note && note->type_index == kTVMFFIInt && note->v_int64 == 7);
  /* The enclosing function is current again, with its own bindings. */
  CHECK_EQ_INT(tvm_relax_bb_num_bindings(bb), 0);
  tvm_relax_var_obj* gv = tvm_relax_bb_emit(bb, (tvm_relax_expr_obj*)g, "g");
  CHECK_STR_EQ(rt_sinfo_text(gv), "R.Callable((R.Tensor((4,), dtype=\"float32\")), "
                                  "R.Tensor((4,), dtype=\"float32\"))");
  CHECK_OK(tvm_relax_bb_scope_begin(bb));
  void* args = rt_array(1, x);
  tvm_relax_expr_obj* call = tvm_relax_call_new(gv, args, NULL, NULL, NULL);
  /* A non-leaf result is bound in the scope. */
  tvm_relax_expr_obj* then_seq = tvm_relax_bb_scope_end(bb, call);
  CHECK(tvm_relax_kind_of(then_seq) == TVM_RELAX_KIND_SeqExpr);
  CHECK_EQ_INT(tvm_ffi_seq_size(((tvm_relax_seq_expr_obj*)then_seq)->blocks), 1);
  CHECK(tvm_relax_is_var(((tvm_relax_seq_expr_obj*)then_seq)->body));
  CHECK_OK(tvm_relax_bb_scope_begin(bb));
  tvm_relax_expr_obj* else_seq = tvm_relax_bb_scope_end(bb, (tvm_relax_expr_obj*)x);
  CHECK_EQ_INT(tvm_ffi_seq_size(((tvm_relax_seq_expr_obj*)else_seq)->blocks), 0);
  tvm_relax_expr_obj* iff = tvm_relax_if_new((tvm_relax_expr_obj*)c, then_seq, else_seq);
  tvm_relax_var_obj* z = tvm_relax_bb_emit(bb, iff, "z");
  tvm_relax_function_obj* f = tvm_relax_bb_function_finish(bb, (tvm_relax_expr_obj*)z, NULL);
  CHECK(f != NULL);
  CHECK_OK(tvm_relax_verify_well_formed(f));
  tvm_relax_seq_expr_obj* body = (tvm_relax_seq_expr_obj*)f->body;
  tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(body->blocks, 0);
  CHECK_EQ_INT(tvm_ffi_seq_size(blk->bindings), 2); /* g, z: the branch's binding is inside it */
  CHECK_STR_EQ(rt_sinfo_text(f), "R.Callable((R.Tensor((), dtype=\"bool\"), R.Tensor((4,), "
                                 "dtype=\"float32\")), R.Tensor((4,), dtype=\"float32\"))");
  CHECK(!tvm_ffi_map_get_str(f->func.attrs, "note")); /* (g's, not the enclosing function's) */
  /* Nothing went to the module. */
  tvm_tir_ir_module_obj* mod = tvm_relax_bb_module(bb);
  CHECK_EQ_INT(tvm_ffi_map_size(mod->functions), 0);
  tvm_ffi_release(mod), tvm_ffi_release(f), tvm_ffi_release(z), tvm_ffi_release(iff);
  tvm_ffi_release(else_seq), tvm_ffi_release(then_seq), tvm_ffi_release(call);
  tvm_ffi_release(args), tvm_ffi_release(gv), tvm_ffi_release(g), tvm_ffi_release(e);
  tvm_ffi_release(ex), tvm_relax_bb_free(bb), tvm_ffi_release(gparams), tvm_ffi_release(params);
  /* No function to set them on. */
  tvm_relax_block_builder* none = tvm_relax_bb_new(NULL);
  CHECK(tvm_relax_bb_function_set_attrs(none, NULL) != 0);
  CHECK_RAISED("ValueError", "set_attrs");
  tvm_relax_bb_free(none);
  tvm_ffi_release(y), tvm_ffi_release(x), tvm_ffi_release(c);
}

/* R.output(lv1): lv1's binding rebinds a Var, and the later lv2 uses it. */
TEST(dataflow_outputs) {
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 1, (int64_t)4));
  void* params = rt_array(1, x);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", params, NULL, true));
  CHECK_EQ_INT(tvm_relax_bb_in_dataflow(bb), 0);
  CHECK_OK(tvm_relax_bb_dataflow_begin(bb));
  CHECK_EQ_INT(tvm_relax_bb_in_dataflow(bb), 1);
  tvm_relax_expr_obj* c0 = RT_CALL("relax.exp", NULL, x);
  tvm_relax_var_obj* lv0 = tvm_relax_bb_emit(bb, c0, "lv0");
  tvm_relax_expr_obj* c1 = RT_CALL("relax.add", NULL, lv0, lv0);
  tvm_relax_var_obj* lv1 = tvm_relax_bb_emit(bb, c1, "lv1");
  tvm_relax_expr_obj* c2 = RT_CALL("relax.multiply", NULL, lv1, lv0);
  tvm_relax_var_obj* lv2 = tvm_relax_bb_emit(bb, c2, "lv2");
  tvm_relax_var_obj* lv3 = tvm_relax_bb_emit(bb, (tvm_relax_expr_obj*)lv1, "lv3");
  /* Errors first: a Var that is not a DataflowVar, one given twice, one not of the block. */
  void* bad = rt_array(1, x);
  void* out = NULL;
  CHECK(tvm_relax_bb_dataflow_end_outputs(bb, bad, &out) != 0);
  CHECK_RAISED("ValueError", "not a DataflowVar");
  tvm_ffi_release(bad);
  bad = rt_array(2, lv1, lv1);
  CHECK(tvm_relax_bb_dataflow_end_outputs(bb, bad, &out) != 0);
  CHECK_RAISED("ValueError", "output twice");
  tvm_ffi_release(bad);
  tvm_relax_var_obj* other = tvm_relax_var_new("other", tvm_relax_sinfo_of(x), true);
  bad = rt_array(1, other);
  CHECK(tvm_relax_bb_dataflow_end_outputs(bb, bad, &out) != 0);
  CHECK_RAISED("ValueError", "not bound in this dataflow block");
  tvm_ffi_release(bad);
  tvm_ffi_release(other);
  /* The open block's bindings, in order: outside a function there are none. */
  CHECK(tvm_relax_bb_open_bindings(NULL) == NULL);
  CHECK(tvm_relax_bb_last_block(bb) == NULL); /* (no block ended yet) */
  const void* open = tvm_relax_bb_open_bindings(bb);
  CHECK_EQ_INT(tvm_ffi_seq_size(open), 4);
  const void* before[4];
  for (int i = 0; i < 4; ++i) before[i] = tvm_ffi_seq_obj_at(open, i);
  CHECK(((tvm_relax_binding_obj*)before[1])->var == lv1);
  void* outs = rt_array(2, lv2, lv1);
  CHECK_OK(tvm_relax_bb_dataflow_end_outputs(bb, outs, &out));
  CHECK_EQ_INT(tvm_relax_bb_in_dataflow(bb), 0);
  /* The block it ended: lv0's binding kept; lv1's and lv2's rebind new Vars, lv3's uses one. */
  const tvm_relax_block_obj* ended = tvm_relax_bb_last_block(bb);
  CHECK(ended != NULL);
  CHECK_EQ_INT(tvm_ffi_seq_size(ended->bindings), 4);
  CHECK(tvm_ffi_seq_obj_at(ended->bindings, 0) == before[0]);
  for (int i = 1; i < 4; ++i) CHECK(tvm_ffi_seq_obj_at(ended->bindings, i) != before[i]);
  CHECK_EQ_INT(tvm_ffi_seq_size(tvm_relax_bb_open_bindings(bb)), 0);
  CHECK_EQ_INT(tvm_ffi_seq_size(out), 2);
  tvm_relax_var_obj* gv2 = tvm_ffi_seq_obj_at(out, 0);
  tvm_relax_var_obj* gv1 = tvm_ffi_seq_obj_at(out, 1);
  CHECK(tvm_relax_kind_of(gv1) == TVM_RELAX_KIND_Var);
  CHECK_STR_EQ(tvm_relax_var_name(gv1), "lv1");
  tvm_relax_expr_obj* sum = RT_CALL("relax.add", NULL, gv1, gv2);
  tvm_tir_global_var_obj* g = tvm_relax_bb_function_end(bb, sum, NULL);
  CHECK(g != NULL);
  tvm_tir_ir_module_obj* mod = tvm_relax_bb_module(bb);
  CHECK_OK(tvm_relax_verify_well_formed(mod));
  char buf[512];
  CHECK_STR_EQ(relax_models_bindings_text(mod, "main", buf, sizeof(buf)),
               "df: lv0 = exp(x); lv1 = add(lv0, lv0); lv2 = multiply(lv1, lv0); lv3 = lv1 | "
               "gv = add(lv1, lv2)");
  /* lv2 and lv3 use the new lv1, a Var. */
  tvm_relax_function_obj* f = tvm_tir_ir_module_lookup(mod, "main");
  tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(((tvm_relax_seq_expr_obj*)f->body)->blocks, 0);
  tvm_relax_binding_obj* b2 = tvm_ffi_seq_obj_at(blk->bindings, 2);
  tvm_relax_binding_obj* b3 = tvm_ffi_seq_obj_at(blk->bindings, 3);
  tvm_relax_call_obj* v2 = (tvm_relax_call_obj*)tvm_relax_binding_value(b2);
  CHECK(tvm_ffi_seq_obj_at(v2->args, 0) == (void*)gv1);
  CHECK(tvm_relax_binding_value(b3) == (void*)gv1);
  CHECK(b2->var == gv2);
  tvm_ffi_release(f), tvm_ffi_release(mod), tvm_ffi_release(g), tvm_ffi_release(sum);
  tvm_ffi_release(out), tvm_ffi_release(outs), tvm_ffi_release(lv3), tvm_ffi_release(lv2);
  tvm_ffi_release(c2), tvm_ffi_release(lv1), tvm_ffi_release(c1), tvm_ffi_release(lv0);
  tvm_ffi_release(c0), tvm_relax_bb_free(bb), tvm_ffi_release(params), tvm_ffi_release(x);
}

/* Unique names past the name table's first sizes: a parameter's name and bound names taken,
 * emits with the same hint numbered after them, skipping a number a binding already took. */
TEST(unique_names_many) {
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 1, (int64_t)4));
  void* params = rt_array(1, x);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", params, NULL, true));
  /* A binding of its own Var named "x3": the emits below skip that name. */
  tvm_relax_var_obj* x3 = rt_var_take("x3", rt_tensor(F32, 1, (int64_t)4));
  tvm_relax_binding_obj* b3 = tvm_relax_var_binding_new(x3, (tvm_relax_expr_obj*)x);
  CHECK(b3 != NULL);
  CHECK_OK(tvm_relax_bb_emit_binding(bb, b3));
  tvm_relax_var_obj* last = NULL;
  char want[32];
  for (int i = 1; i <= 40; ++i) {
    tvm_ffi_release(last);
    last = tvm_relax_bb_emit(bb, (tvm_relax_expr_obj*)x, "x");
    CHECK(last != NULL);
    snprintf(want, sizeof(want), "x%d", i < 3 ? i : i + 1);
    CHECK_STR_EQ(tvm_relax_var_name(last), want);
  }
  tvm_relax_var_obj* lv = tvm_relax_bb_emit(bb, (tvm_relax_expr_obj*)x, NULL);
  CHECK_STR_EQ(tvm_relax_var_name(lv), "gv");
  tvm_tir_global_var_obj* g = tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)last, NULL);
  CHECK(g != NULL);
  tvm_relax_bb_free(bb);
  tvm_ffi_release(g);
  tvm_ffi_release(lv);
  tvm_ffi_release(last);
  tvm_ffi_release(b3);
  tvm_ffi_release(x3);
  tvm_ffi_release(params);
  tvm_ffi_release(x);
}

int main(void) {
  RUN(unique_names_many);
  RUN(local_function_and_scopes);
  RUN(dataflow_outputs);
  RUN(chain_struct_info_and_anf);
  RUN(structural_equal_hash_json_of_modules);
  RUN(different_shapes_not_equal);
  RUN(builder_errors);
  RUN(prim_func_calls_infer_their_result);
  RUN(symbolic_call_binds_dims);
  return test_summary();
}
