/*
 * test_builder.c: the builder API (tvm/tir/builder.h): composing with _take functions, error
 * propagation, reference counts, functions and modules; and the large generated function.
 */
#include "tir_check.h"

TEST(compose_expressions) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  /* (x + 1) * 2 - x // 3, literals converted, nothing folded */
  tvm_tir_expr_obj* e = tvm_tir_sub_take(
      tvm_tir_mul_take(tvm_tir_add_take(tvm_tir_ref(x), tvm_tir_int(1)), tvm_tir_int(2)),
      tvm_tir_floordiv_take(tvm_tir_ref(x), tvm_tir_int(3)));
  if (EXPECT_OK(e)) {
    CHECK(tvm_tir_kind_of(e) == TVM_TIR_KIND_Sub);
    CHECK_STR_EQ(DT(e), "int32");
  }
  /* Constants fold as they compose. */
  tvm_tir_expr_obj* c =
      tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_int(6), tvm_tir_int(7)), tvm_tir_int(-2));
  int64_t v = 0;
  CHECK(tvm_tir_as_const_int(c, &v) && v == 40);
  tvm_tir_expr_obj* cond =
      tvm_tir_and_take(tvm_tir_lt_take(tvm_tir_ref(x), tvm_tir_int(10)),
                       tvm_tir_not_take(tvm_tir_eq_take(tvm_tir_ref(x), tvm_tir_int(0))));
  if (EXPECT_OK(cond)) CHECK_STR_EQ(DT(cond), "bool");
  tvm_tir_expr_obj* sel = tvm_tir_select_take(
      tvm_tir_ref(cond), tvm_tir_cast_take(TVM_TIR_FLOAT32, tvm_tir_ref(x)), tvm_tir_f32(0));
  if (EXPECT_OK(sel)) CHECK_STR_EQ(DT(sel), "float32");
  tvm_tir_expr_obj* r = tvm_tir_ramp_take(tvm_tir_ref(x), tvm_tir_int(1), 4);
  tvm_tir_expr_obj* vb =
      tvm_tir_add_take(tvm_tir_ref(r), tvm_tir_broadcast_take(tvm_tir_int(2), 4));
  if (EXPECT_OK(vb)) CHECK_STR_EQ(DT(vb), "int32x4");
  tvm_tir_var_obj* t = tvm_tir_var("t", TVM_TIR_INT32);
  tvm_tir_expr_obj* let = tvm_tir_let_take(tvm_tir_ref(t), tvm_tir_int(5),
                                           tvm_tir_mul_take(tvm_tir_ref(t), tvm_tir_ref(x)));
  EXPECT_OK(let);
  tvm_tir_expr_obj* neg = tvm_tir_neg_take(tvm_tir_ref(x));
  tvm_tir_expr_obj* m =
      tvm_tir_max_take(tvm_tir_min_take(tvm_tir_ref(x), tvm_tir_int(4)), tvm_tir_int(0));
  tvm_tir_expr_obj* dm = tvm_tir_add_take(tvm_tir_div_take(tvm_tir_ref(x), tvm_tir_int(2)),
                                          tvm_tir_mod_take(tvm_tir_ref(x), tvm_tir_int(2)));
  tvm_tir_expr_obj* cmp = tvm_tir_or_take(
      tvm_tir_ge_take(tvm_tir_ref(x), tvm_tir_int(1)),
      tvm_tir_and_take(
          tvm_tir_le_take(tvm_tir_ref(x), tvm_tir_int(2)),
          tvm_tir_gt_take(tvm_tir_ref(x), tvm_tir_floormod_take(tvm_tir_ref(x), tvm_tir_int(3)))));
  tvm_tir_expr_obj* ne = tvm_tir_ne_take(tvm_tir_ref(x), tvm_tir_int(7));
  CHECK(EXPECT_OK(neg) && EXPECT_OK(m) && EXPECT_OK(dm) && EXPECT_OK(cmp) && EXPECT_OK(ne));
  tvm_tir_expr_obj* s = tvm_tir_str("message");
  tvm_tir_expr_obj* b = tvm_tir_bool(true);
  tvm_tir_expr_obj* i64 = tvm_tir_i64(1LL << 40);
  tvm_tir_expr_obj* f64 = tvm_tir_f64(0.25);
  tvm_tir_expr_obj* u8 = tvm_tir_const(TVM_TIR_UINT8, 255);
  CHECK(EXPECT_OK(s) && EXPECT_OK(b) && EXPECT_OK(i64) && EXPECT_OK(f64) && EXPECT_OK(u8));
  EXPECT_ERROR("TypeError", tvm_tir_int(1LL << 40), "rule T-INTIMM");
  RELEASE(x, e, c, cond, sel, r, vb, t, let, neg, m, dm, cmp, ne, s, b, i64, f64, u8);
}

TEST(error_propagation) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* f = tvm_tir_var("f", TVM_TIR_FLOAT32);
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 8);
  /* The inner failure is reported; the outer calls release their arguments and fail. */
  tvm_tir_var_obj* c = tvm_tir_var("c", TVM_TIR_BOOL);
  void* e = tvm_tir_mul_take(
      tvm_tir_add_take(tvm_tir_add_take(tvm_tir_ref(x), tvm_tir_ref(c)), tvm_tir_int(1)),
      tvm_tir_int(2));
  EXPECT_ERROR("TypeError", e, "Add: operands must have the same dtype", "a = x (int32)",
               "b = c (bool)");
  void* s = tvm_tir_store_take(tvm_tir_ref(A), tvm_tir_load_take(tvm_tir_ref(A), tvm_tir_ref(f)),
                               tvm_tir_ref(x));
  EXPECT_ERROR("TypeError", s, "rule T-BUFFERLOAD", "indices[0] = f (float32)");
  /* The offending index is named once (indices[0] again only for a bit-width mismatch). */
  void* bad = tvm_tir_load_take(tvm_tir_ref(A), tvm_tir_ref(f));
  void* err = bad ? NULL : tvm_ffi_error_take();
  const char* msg = err ? tvm_ffi_error_message(err) : "";
  const char* once = strstr(msg, "indices[0] = ");
  CHECK(bad == NULL && once && !strstr(once + 1, "indices[0] = "));
  tvm_ffi_release(err);
  void* loop = tvm_tir_serial_take(
      tvm_tir_ref(x), tvm_tir_int(0), tvm_tir_int(8),
      tvm_tir_seq_take(
          tvm_tir_evaluate_take(tvm_tir_int(0)),
          tvm_tir_if_take(tvm_tir_ref(x), tvm_tir_evaluate_take(tvm_tir_int(1)), NULL)));
  EXPECT_ERROR("TypeError", loop, "rule S-IF", "condition = x (int32)");
  /* A raised error stops builder calls until taken. */
  tvm_ffi_raise("RuntimeError", "earlier failure");
  CHECK(tvm_tir_int(1) == NULL && tvm_tir_add_take(tvm_tir_ref(x), tvm_tir_ref(x)) == NULL);
  CHECK_RAISED("RuntimeError", "earlier failure");
  /* A NULL argument without an error raised is a ValueError. */
  EXPECT_ERROR("ValueError", tvm_tir_add_take(tvm_tir_ref(x), NULL), "argument 1 is NULL");
  /* Nothing leaked a reference to the operands. */
  CHECK_EQ_INT(tvm_ffi_strong_count(x), 1);
  CHECK_EQ_INT(tvm_ffi_strong_count(f), 1);
  CHECK_EQ_INT(tvm_ffi_strong_count(A), 1);
  RELEASE(x, f, c, A);
}

TEST(statements_and_seq) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 16);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* s1 = tvm_tir_store_take(tvm_tir_ref(A), tvm_tir_f32(1), tvm_tir_int(0));
  void* s2 = tvm_tir_store_take(tvm_tir_ref(A), tvm_tir_f32(2), tvm_tir_int(1));
  void* s3 =
      tvm_tir_evaluate_take(tvm_tir_call_take(TVM_TIR_INT32, "tir.call_extern", tvm_tir_str("f")));
  /* Nested sequences are spliced: seq(seq(s1, s2), s3) has three statements. */
  tvm_tir_stmt_obj* seq =
      tvm_tir_seq_take(tvm_tir_seq_take(tvm_tir_ref(s1), tvm_tir_ref(s2)), tvm_tir_ref(s3));
  if (EXPECT_OK(seq)) {
    CHECK(tvm_tir_kind_of(seq) == TVM_TIR_KIND_SeqStmt);
    CHECK_EQ_INT(tvm_ffi_seq_size(((tvm_tir_seq_stmt_obj*)seq)->seq), 3);
  }
  tvm_tir_stmt_obj* one = tvm_tir_seq_take(tvm_tir_ref(s1));
  CHECK(one == s1);
  tvm_tir_stmt_obj* none = tvm_tir_seq_takev(0, NULL);
  if (EXPECT_OK(none)) CHECK(tvm_tir_kind_of(none) == TVM_TIR_KIND_Evaluate);
  EXPECT_ERROR("TypeError", tvm_tir_seq_take(tvm_tir_ref(s1), tvm_tir_int(3)),
               "must be a tir.Stmt");
  tvm_tir_var_obj* p = tvm_tir_ptr_var("buf", TVM_TIR_FLOAT32, "local");
  void* alloc = tvm_tir_allocate_takev(tvm_tir_ref(p), TVM_TIR_FLOAT32, 1,
                                       (void*[]){tvm_tir_int(4)}, tvm_tir_ref(s3));
  void* decl = tvm_tir_decl_buffer_take(tvm_tir_ref(A), tvm_tir_ref(s1));
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  void* wh = tvm_tir_while_take(tvm_tir_ref(n), tvm_tir_ref(s2));
  void* let = tvm_tir_let_stmt_take(tvm_tir_ref(n), tvm_tir_int(3), tvm_tir_ref(wh));
  void* as = tvm_tir_assert_take(tvm_tir_gt_take(tvm_tir_ref(n), tvm_tir_int(0)),
                                 "n must be positive", tvm_tir_ref(s1));
  void* attr = tvm_tir_attr_take(tvm_tir_ref(i), "pragma_unroll", tvm_tir_int(1), tvm_tir_ref(s1));
  void* attr0 = tvm_tir_attr_take(NULL, "no_node", tvm_tir_int(0), tvm_tir_ref(s1));
  void* vec = tvm_tir_for_take(tvm_tir_ref(i), tvm_tir_int(0), tvm_tir_int(4),
                               TVM_TIR_FOR_VECTORIZED, tvm_tir_ref(s1));
  CHECK(EXPECT_OK(alloc) && EXPECT_OK(decl) && EXPECT_OK(wh) && EXPECT_OK(let) && EXPECT_OK(as) &&
        EXPECT_OK(attr) && EXPECT_OK(attr0) && EXPECT_OK(vec));
  if (attr0) CHECK(tvm_ffi_any_is_none(&((tvm_tir_attr_stmt_obj*)attr0)->node));
  RELEASE(A, i, s1, s2, s3, seq, one, none, p, alloc, decl, n, wh, let, as, attr, attr0, vec);
}

TEST(functions_and_modules) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 128);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 128);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* scale = tvm_tir_var("scale", TVM_TIR_FLOAT32);
  /* B[i] = A[i] * scale + 1 */
  void* store = tvm_tir_store_take(
      tvm_tir_ref(B),
      tvm_tir_add_take(
          tvm_tir_mul_take(tvm_tir_load_take(tvm_tir_ref(A), tvm_tir_ref(i)), tvm_tir_ref(scale)),
          tvm_tir_f32(1)),
      tvm_tir_ref(i));
  void* loop = tvm_tir_serial_take(tvm_tir_ref(i), tvm_tir_int(0), tvm_tir_int(128), store);
  tvm_tir_prim_func_obj* f = tvm_tir_func_take(
      "scale_add", tvm_tir_list_take(tvm_tir_ref(A), tvm_tir_ref(B), tvm_tir_ref(scale)), loop);
  if (EXPECT_OK(f)) {
    CHECK_EQ_INT(tvm_ffi_seq_size(f->params), 3);
    CHECK_EQ_INT(tvm_ffi_map_size(f->buffer_map), 2);
    tvm_tir_var_obj* a_handle = (tvm_tir_var_obj*)tvm_ffi_seq_obj_at(f->params, 0);
    CHECK_STR_EQ(tvm_tir_var_name(a_handle), "A_handle");
    CHECK_STR_EQ(DT(a_handle), "handle");
    TVMFFIAny key = tvm_ffi_any_obj(a_handle);
    const TVMFFIAny* bound = tvm_ffi_map_get(f->buffer_map, &key);
    CHECK(bound && bound->v_obj == (TVMFFIObject*)A);
    CHECK(tvm_ffi_seq_obj_at(f->params, 2) == (void*)scale);
    CHECK_STR_EQ(tvm_tir_func_global_symbol(f), "scale_add");
    CHECK(tvm_tir_type_is_void(f->ret_type));
  }
  tvm_tir_prim_func_obj* g =
      tvm_tir_func_take("a_function_with_a_long_name", NULL, tvm_tir_evaluate_take(tvm_tir_int(0)));
  TVMFFIAny yes = tvm_ffi_any_bool(true);
  tvm_tir_prim_func_obj* g2 = tvm_tir_prim_func_with_attr(g, "tir.noalias", &yes);
  if (EXPECT_OK(g2)) {
    CHECK_STR_EQ(tvm_tir_func_global_symbol(g2), "a_function_with_a_long_name");
    CHECK(tvm_ffi_map_get_str(g2->func.attrs, "tir.noalias") != NULL);
    CHECK(g2->body == g->body);
  }
  tvm_tir_ir_module_obj* mod = tvm_tir_module_take(tvm_tir_ref(f), tvm_tir_ref(g2));
  if (EXPECT_OK(mod)) {
    CHECK_EQ_INT(tvm_ffi_map_size(mod->functions), 2);
    void* found = tvm_tir_ir_module_lookup(mod, "scale_add");
    CHECK(found == (void*)f);
    tvm_tir_global_var_obj* gv =
        tvm_tir_ir_module_get_global_var(mod, "a_function_with_a_long_name");
    if (EXPECT_OK(gv)) CHECK_STR_EQ(tvm_ffi_str_cstr(gv->name_hint), "a_function_with_a_long_name");
    CHECK(tvm_tir_ir_module_lookup(mod, "missing") == NULL);
    EXPECT_ERROR("ValueError", tvm_tir_ir_module_add(mod, gv, f), "already exists");
    tvm_tir_global_var_obj* gv3 = tvm_tir_global_var_new("third");
    tvm_tir_ir_module_obj* mod3 = tvm_tir_ir_module_add(mod, gv3, g);
    if (EXPECT_OK(mod3)) CHECK_EQ_INT(tvm_ffi_map_size(mod3->functions), 3);
    RELEASE(found, gv, gv3, mod3);
  }
  tvm_tir_prim_func_obj* nameless =
      tvm_tir_func_take(NULL, NULL, tvm_tir_evaluate_take(tvm_tir_int(0)));
  if (EXPECT_OK(nameless)) CHECK(tvm_tir_func_global_symbol(nameless) == NULL);
  EXPECT_ERROR("ValueError", tvm_tir_module_take(tvm_tir_ref(nameless)), "no global_symbol");
  EXPECT_ERROR("TypeError",
               tvm_tir_func_take("bad", tvm_tir_list_take(tvm_tir_int(1)),
                                 tvm_tir_evaluate_take(tvm_tir_int(0))),
               "params[0] must be a Var or a Buffer");
  /* Two functions of one name. */
  tvm_tir_global_var_obj *k1 = tvm_tir_global_var_new("same"), *k2 = tvm_tir_global_var_new("same");
  TVMFFIAny keys[2] = {tvm_ffi_any_obj(k1), tvm_ffi_any_obj(k2)},
            vals[2] = {tvm_ffi_any_obj(g), tvm_ffi_any_obj(g)};
  void* fns = tvm_ffi_map_new(keys, vals, 2);
  EXPECT_ERROR("ValueError", tvm_tir_ir_module_new(fns, NULL), "two functions are named `same`");
  RELEASE(i, scale, f, g, g2, mod, nameless, k1, k2, fns);
  /* Only the declarations hold the buffers now. */
  CHECK_EQ_INT(tvm_ffi_strong_count(A), 1);
  CHECK_EQ_INT(tvm_ffi_strong_count(B), 1);
  RELEASE(A, B);
}

TEST(blocks) {
  tvm_tir_prim_func_obj* mm = tvm_tir_testing_make_matmul("", 64, 32, 16);
  if (EXPECT_OK(mm)) {
    /* for i: for j: for k: SBlockRealize(SBlock "update") */
    tvm_tir_for_obj* li = (tvm_tir_for_obj*)mm->body;
    CHECK(tvm_tir_kind_of(li) == TVM_TIR_KIND_For);
    tvm_tir_for_obj* lk = (tvm_tir_for_obj*)((tvm_tir_for_obj*)li->body)->body;
    tvm_tir_sblock_realize_obj* br = (tvm_tir_sblock_realize_obj*)lk->body;
    CHECK(tvm_tir_kind_of(br) == TVM_TIR_KIND_SBlockRealize);
    CHECK_STR_EQ(tvm_ffi_str_cstr(br->block->name_hint), "update");
    CHECK(br->block->init != NULL);
    CHECK_EQ_INT(tvm_ffi_seq_size(br->block->iter_vars), 3);
    CHECK_EQ_INT(tvm_ffi_seq_size(br->block->reads), 2);
    tvm_tir_iter_var_obj* vk = (tvm_tir_iter_var_obj*)tvm_ffi_seq_obj_at(br->block->iter_vars, 2);
    CHECK_EQ_INT(vk->iter_type, TVM_TIR_ITER_COMM_REDUCE);
    int64_t pred = 0;
    CHECK(tvm_tir_as_const_int(br->predicate, &pred) && pred == 1);
  }
  RELEASE(mm);
}

TEST(large_func) {
  tvm_tir_prim_func_obj* f = tvm_tir_testing_make_large_func(1000);
  if (EXPECT_OK(f)) {
    tvm_tir_seq_stmt_obj* seq = (tvm_tir_seq_stmt_obj*)f->body;
    CHECK(tvm_tir_kind_of(seq) == TVM_TIR_KIND_SeqStmt);
    CHECK_EQ_INT(tvm_ffi_seq_size(seq->seq), 1000);
    CHECK(tvm_tir_kind_of(tvm_ffi_seq_obj_at(seq->seq, 0)) == TVM_TIR_KIND_LetStmt);
    CHECK(tvm_tir_kind_of(tvm_ffi_seq_obj_at(seq->seq, 1)) == TVM_TIR_KIND_For);
  }
  EXPECT_ERROR("ValueError", tvm_tir_testing_make_large_func(0), "n must be");
  RELEASE(f);
}

int main(void) {
  RUN(compose_expressions);
  RUN(error_propagation);
  RUN(statements_and_seq);
  RUN(functions_and_modules);
  RUN(blocks);
  RUN(large_func);
  tir_release_temps();
  return test_summary();
}
