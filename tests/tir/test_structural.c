/*
 * test_structural.c: libtir nodes under libtvmffi's reflection-driven algorithms: structural
 * equality (alpha-equivalence, access path of the first mismatch), structural hash, and a JSON
 * round trip of every node kind.
 */
#include "tir_check.h"

static int equal(const void* a, const void* b, bool map_free_vars) {
  TVMFFIAny x = tvm_ffi_any_obj(a), y = tvm_ffi_any_obj(b);
  return tvm_ffi_structural_equal(&x, &y, map_free_vars, NULL, NULL);
}
static uint64_t hash(const void* a, bool map_free_vars) {
  TVMFFIAny x = tvm_ffi_any_obj(a);
  return tvm_ffi_structural_hash(&x, map_free_vars);
}

TEST(alpha_equivalent_funcs) {
  tvm_tir_prim_func_obj* a = tvm_tir_testing_make_matmul("", 64, 32, 16);
  tvm_tir_prim_func_obj* b = tvm_tir_testing_make_matmul("_renamed", 64, 32, 16);
  if (EXPECT_OK(a) && EXPECT_OK(b)) {
    CHECK(a != b);
    CHECK_EQ_INT(equal(a, b, false), 1);
    CHECK_EQ_INT(equal(b, a, false), 1);
    CHECK(hash(a, false) == hash(b, false));
  }
  tvm_tir_prim_func_obj* l1 = tvm_tir_testing_make_large_func(200);
  tvm_tir_prim_func_obj* l2 = tvm_tir_testing_make_large_func(200);
  if (EXPECT_OK(l1) && EXPECT_OK(l2)) {
    CHECK_EQ_INT(equal(l1, l2, false), 1);
    CHECK(hash(l1, false) == hash(l2, false));
  }
  RELEASE(a, b, l1, l2);
}

TEST(changed_shape_path) {
  tvm_tir_prim_func_obj* a = tvm_tir_testing_make_matmul("", 64, 32, 16);
  tvm_tir_prim_func_obj* b = tvm_tir_testing_make_matmul("_renamed", 64, 32, 8);
  if (EXPECT_OK(a) && EXPECT_OK(b)) {
    TVMFFIAny x = tvm_ffi_any_obj(a), y = tvm_ffi_any_obj(b);
    void *lp = NULL, *rp = NULL;
    CHECK_EQ_INT(tvm_ffi_structural_equal(&x, &y, false, &lp, &rp), 0);
    CHECK(lp && rp);
    if (lp && rp) {
      tvm_ffi_strbuf l = {0}, r = {0};
      tvm_ffi_access_path_format(lp, &l);
      tvm_ffi_access_path_format(rp, &r);
      /* A's shape (64, 16) vs (64, 8): the buffer_map entry of the first param. */
      CHECK_STR_CONTAINS(tvm_ffi_strbuf_cstr(&l), "buffer_map");
      CHECK_STR_CONTAINS(tvm_ffi_strbuf_cstr(&l), ".shape[1]");
      CHECK_STR_CONTAINS(tvm_ffi_strbuf_cstr(&r), ".shape[1]");
      tvm_ffi_strbuf_free(&l);
      tvm_ffi_strbuf_free(&r);
    }
    RELEASE(lp, rp);
    CHECK(hash(a, false) != hash(b, false));
  }
  RELEASE(a, b);
}

TEST(free_variables) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* y = tvm_tir_var("y", TVM_TIR_INT32);
  tvm_tir_var_obj* z = tvm_tir_var("z", TVM_TIR_INT64);
  tvm_tir_expr_obj* ex = tvm_tir_add_take(tvm_tir_ref(x), tvm_tir_int(1));
  tvm_tir_expr_obj* ey = tvm_tir_add_take(tvm_tir_ref(y), tvm_tir_int(1));
  tvm_tir_expr_obj* ez = tvm_tir_add_take(tvm_tir_ref(z), tvm_tir_int(1));
  CHECK_EQ_INT(equal(ex, ey, false), 0); /* free and different */
  CHECK_EQ_INT(equal(ex, ey, true), 1);  /* mapped */
  CHECK_EQ_INT(equal(ex, ez, true), 0);  /* dtypes differ */
  CHECK_EQ_INT(equal(ex, ex, false), 1);
  /* Bound by Let: equal whatever the names. */
  tvm_tir_expr_obj* lx = tvm_tir_let_take(tvm_tir_ref(x), tvm_tir_int(2), tvm_tir_ref(ex));
  tvm_tir_expr_obj* ly = tvm_tir_let_take(tvm_tir_ref(y), tvm_tir_int(2), tvm_tir_ref(ey));
  CHECK_EQ_INT(equal(lx, ly, false), 1);
  CHECK(hash(lx, false) == hash(ly, false));
  RELEASE(x, y, z, ex, ey, ez, lx, ly);
}

TEST(modules) {
  tvm_tir_ir_module_obj* m1 = tvm_tir_module_take(tvm_tir_testing_make_matmul("", 8, 8, 8),
                                                  tvm_tir_testing_make_large_func(10));
  tvm_tir_ir_module_obj* m2 = tvm_tir_module_take(tvm_tir_testing_make_matmul("x", 8, 8, 8),
                                                  tvm_tir_testing_make_large_func(10));
  tvm_tir_ir_module_obj* m3 = tvm_tir_module_take(tvm_tir_testing_make_matmul("", 8, 8, 4),
                                                  tvm_tir_testing_make_large_func(10));
  if (EXPECT_OK(m1) && EXPECT_OK(m2) && EXPECT_OK(m3)) {
    CHECK_EQ_INT(equal(m1, m2, false), 1);
    CHECK(hash(m1, false) == hash(m2, false));
    CHECK_EQ_INT(equal(m1, m3, false), 0);
  }
  RELEASE(m1, m2, m3);
}

/* ---- JSON ---------------------------------------------------------------------------------- */
static bool g_seen[TVM_TIR_KIND_COUNT];

/* Save obj to JSON, load it back, check it is structurally equal (and of the same type). */
static void json_roundtrip(const void* obj, bool map_free_vars, int line) {
  TVMFFIAny v = tvm_ffi_any_obj(obj), loaded;
  tvm_ffi_strbuf text = {0};
  if (tvm_ffi_json_save(&v, &text) != 0) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "%s:%d: json_save failed: %s\n", __FILE__, line,
            e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
    g_test_failed_checks++;
    tvm_ffi_strbuf_free(&text);
    return;
  }
  if (tvm_ffi_json_load(text.data, text.size, &loaded) != 0) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "%s:%d: json_load failed: %s\n", __FILE__, line,
            e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
    g_test_failed_checks++;
    tvm_ffi_strbuf_free(&text);
    return;
  }
  void *lp = NULL, *rp = NULL;
  int eq = tvm_ffi_structural_equal(&v, &loaded, map_free_vars, &lp, &rp);
  if (eq != 1 || loaded.type_index != v.type_index) {
    tvm_ffi_strbuf path = {0};
    if (lp) tvm_ffi_access_path_format(lp, &path);
    fprintf(stderr, "%s:%d: JSON round trip of %s not equal (at %s)\n", __FILE__, line,
            tvm_ffi_type_key(v.type_index), tvm_ffi_strbuf_cstr(&path));
    tvm_ffi_strbuf_free(&path);
    tvm_ffi_error_clear();
    g_test_failed_checks++;
  }
  RELEASE(lp, rp);
  tvm_ffi_any_release(&loaded);
  tvm_ffi_strbuf_free(&text);
}
#define JSON_ROUNDTRIP(obj, map_free_vars) json_roundtrip((obj), (map_free_vars), __LINE__)

/* Record the kinds reachable from obj through reflection (nodes, arrays, maps). */
static void visit_kinds(const void* obj);
static void visit_any(const TVMFFIAny* a) {
  if (tvm_ffi_any_is_object(a)) visit_kinds(a->v_obj);
}
static void visit_kinds(const void* obj) {
  if (!obj) return;
  int32_t t = tvm_ffi_type_index(obj);
  if (t == kTVMFFIArray) {
    for (int64_t i = 0; i < tvm_ffi_seq_size(obj); ++i) visit_any(tvm_ffi_seq_at(obj, i));
    return;
  }
  if (t == kTVMFFIMap) {
    const TVMFFIAny *k, *v;
    for (int64_t pos = 0; (pos = tvm_ffi_map_next(obj, pos, &k, &v)) >= 0;) {
      visit_any(k);
      visit_any(v);
    }
    return;
  }
  tvm_tir_kind kind = tvm_tir_kind_of(obj);
  if (kind >= 0) g_seen[kind] = true;
  const TVMFFIFieldInfo* const* fields;
  int32_t n = tvm_ffi_type_all_fields(t, &fields);
  for (int32_t i = 0; i < n; ++i) {
    const char* addr = (const char*)obj + fields[i]->offset;
    if (fields[i]->field_static_type_index == kTVMFFIAny) {
      visit_any((const TVMFFIAny*)addr);
    } else if (fields[i]->field_static_type_index >= kTVMFFIStaticObjectBegin) {
      visit_kinds(*(void* const*)addr);
    }
  }
}

TEST(json_every_kind) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 16, 16);
  tvm_tir_buffer_obj* S = tvm_tir_buffer_decl("S", TVM_TIR_FLOAT32, 16);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* n = tvm_tir_size_var_new("n", TVM_TIR_INT32);
  tvm_tir_var_obj* c = tvm_tir_var("c", TVM_TIR_BOOL);
  tvm_tir_var_obj* f = tvm_tir_var("f", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* p = tvm_tir_ptr_var("p", TVM_TIR_FLOAT32, "shared");
  tvm_tir_var_obj* vi = tvm_tir_var("vi", TVM_TIR_INT32);
  tvm_tir_var_obj* t = tvm_tir_var("t", TVM_TIR_INT32);
  tvm_tir_var_obj* v = tvm_tir_var("v", TVM_TIR_VOID);

  /* Expressions: every binary kind, and the rest. */
  void* exprs = tvm_ffi_list_new();
#define PUSH(list, obj)                    \
  do {                                     \
    void* o_ = (obj);                      \
    if (EXPECT_OK(o_)) {                   \
      TVMFFIAny it_ = tvm_ffi_any_obj(o_); \
      tvm_ffi_list_push((list), &it_);     \
    }                                      \
    tvm_ffi_release(o_);                   \
  } while (0)
  for (tvm_tir_kind k = TVM_TIR_KIND_Add; k <= TVM_TIR_KIND_GE; ++k) {
    PUSH(exprs, tvm_tir_binary_new(k, &i->expr, &n->expr));
  }
  PUSH(exprs, tvm_tir_binary_take(TVM_TIR_KIND_And, tvm_tir_ref(c), tvm_tir_ref(c)));
  PUSH(exprs, tvm_tir_binary_take(TVM_TIR_KIND_Or, tvm_tir_ref(c), tvm_tir_bool(false)));
  PUSH(exprs, tvm_tir_not_take(tvm_tir_ref(c)));
  PUSH(exprs, tvm_tir_cast_take(TVM_TIR_FLOAT16, tvm_tir_ref(f)));
  PUSH(exprs, tvm_tir_float_imm_new(TVM_TIR_FLOAT64, 0.1));
  PUSH(exprs, tvm_tir_float_imm_new(TVM_TIR_FLOAT32, 1e38));
  PUSH(exprs, tvm_tir_int_imm_new(TVM_TIR_INT64, INT64_MIN));
  PUSH(exprs, tvm_tir_int_imm_new(TVM_TIR_UINT64, INT64_MAX));
  PUSH(exprs, tvm_tir_string_imm_new("a \"quoted\"\nstring\0nul", 21));
  PUSH(exprs, tvm_tir_select_take(tvm_tir_ref(c), tvm_tir_ref(f), tvm_tir_f32(0)));
  PUSH(exprs, tvm_tir_load_take(tvm_tir_ref(A), tvm_tir_ref(i),
                                tvm_tir_ramp_take(tvm_tir_int(0), tvm_tir_int(2), 4)));
  PUSH(exprs, tvm_tir_broadcast_take(tvm_tir_ref(f), 8));
  PUSH(exprs, tvm_tir_let_take(tvm_tir_ref(t), tvm_tir_int(3),
                               tvm_tir_mul_take(tvm_tir_ref(t), tvm_tir_ref(i))));
  PUSH(exprs, tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.exp", tvm_tir_ref(f)));
  PUSH(exprs, tvm_tir_shuffle_new(
                  tir_temp(tvm_tir_list_take(tvm_tir_ramp_take(tvm_tir_int(0), tvm_tir_int(1), 2))),
                  tir_temp(tvm_tir_list_take(tvm_tir_int(1), tvm_tir_int(0)))));
  void* exprs_arr = tvm_ffi_list_to_array(exprs);
  JSON_ROUNDTRIP(exprs_arr, true);
  visit_kinds(exprs_arr);

  /* Attribute values (tvm/tir/attr_value.h): their Vars are bound inside them. */
  {
    tvm_tir_var_obj *x = tvm_tir_var("x", TVM_TIR_FLOAT32), *y = tvm_tir_var("y", TVM_TIR_FLOAT32);
    tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT64);
    void* values = tvm_ffi_list_new();
    PUSH(values, tvm_tir_comm_reducer_new(
                     tir_temp(tvm_tir_list_take(tvm_tir_ref(x))),
                     tir_temp(tvm_tir_list_take(tvm_tir_ref(y))),
                     tir_temp(tvm_tir_list_take(tvm_tir_add_take(tvm_tir_ref(x), tvm_tir_ref(y)))),
                     tir_temp(tvm_tir_list_take(tvm_tir_f32(0)))));
    tvm_tir_target_obj* host = tvm_tir_target_new("llvm", NULL);
    TVMFFIAny keys[2] = {tvm_ffi_string("host"), tvm_ffi_string("mcpu")};
    TVMFFIAny vals[2] = {tvm_ffi_any_obj(host), tvm_ffi_string("sm_80")};
    void* attrs = tvm_ffi_map_new(keys, vals, 2);
    PUSH(values, tvm_tir_target_new("cuda", attrs));
    PUSH(values, tvm_tir_vdevice_new(host, 1, "global"));
    PUSH(values, tvm_tir_dummy_global_info_new());
    tvm_tir_index_map_obj* inv = tvm_tir_index_map_new(
        tir_temp(tvm_tir_list_take(tvm_tir_ref(j))), tir_temp(tvm_tir_list_take(tvm_tir_ref(j))),
        NULL);
    PUSH(values, tvm_tir_index_map_new(tir_temp(tvm_tir_list_take(tvm_tir_ref(j))),
                                       tir_temp(tvm_tir_list_take(tvm_tir_ref(j))), inv));
    void* values_arr = tvm_ffi_list_to_array(values);
    JSON_ROUNDTRIP(values_arr, false);
    visit_kinds(values_arr);
    for (int k = 0; k < 2; ++k) tvm_ffi_any_release(&keys[k]);
    tvm_ffi_any_release(&vals[1]);
    RELEASE(x, y, j, values, values_arr, host, attrs, inv);
  }

  /* Statements and the other constructs, in a module. */
  void* store = tvm_tir_store_take(tvm_tir_ref(A), tvm_tir_ref(f), tvm_tir_ref(i), tvm_tir_ref(i));
  void* body = tvm_tir_seq_take(
      tvm_tir_let_stmt_take(tvm_tir_ref(t), tvm_tir_int(1), tvm_tir_evaluate_take(tvm_tir_ref(t))),
      tvm_tir_attr_take(tvm_tir_ref(i), "pragma_x", tvm_tir_int(1), tvm_tir_ref(store)),
      tvm_tir_assert_take(tvm_tir_ref(c), "failed", tvm_tir_ref(store)),
      tvm_tir_allocate_takev(tvm_tir_ref(p), TVM_TIR_FLOAT32, 1, (void*[]){tvm_tir_int(32)},
                             tvm_tir_ref(store)),
      tvm_tir_decl_buffer_take(tvm_tir_ref(S), tvm_tir_ref(store)),
      tvm_tir_if_take(tvm_tir_ref(c), tvm_tir_ref(store), tvm_tir_evaluate_take(tvm_tir_int(0))),
      tvm_tir_while_take(tvm_tir_ref(i), tvm_tir_ref(store)),
      tvm_tir_for_take(tvm_tir_ref(i), tvm_tir_int(0), tvm_tir_int(4), TVM_TIR_FOR_UNROLLED,
                       tvm_tir_ref(store)));
  tvm_tir_expr_obj *zero = tvm_tir_int(0), *sixteen = tvm_tir_int(16);
  tvm_tir_range_obj* r16 = tvm_tir_range_new(zero, sixteen);
  tvm_tir_stmt_obj* realize =
      tvm_tir_buffer_realize_new(S, tir_temp(tvm_tir_list_take(tvm_tir_ref(r16))), NULL, body);
  tvm_tir_buffer_region_obj* sub = tvm_tir_region_take(
      tvm_tir_ref(A), tvm_tir_range_take(tvm_tir_ref(vi), tvm_tir_int(1)), tvm_tir_ref(r16));
  tvm_tir_buffer_obj* M = tvm_tir_buffer_decl("M", TVM_TIR_FLOAT32, 16);
  tvm_tir_match_buffer_region_obj* mb = tvm_tir_match_buffer_region_new(M, sub);
  tvm_tir_iter_var_obj* iv = tvm_tir_iter_var_take(tvm_tir_ref(vi), tvm_tir_int(0), tvm_tir_int(16),
                                                   TVM_TIR_ITER_DATA_PAR);
  tvm_tir_sblock_fields bf = {.iter_vars = tir_temp(tvm_tir_list_take(tvm_tir_ref(iv))),
                              .reads = tir_temp(tvm_tir_list_take(tvm_tir_ref(sub))),
                              .name_hint = "blk",
                              .body = realize,
                              .match_buffers = tir_temp(tvm_tir_list_take(tvm_tir_ref(mb)))};
  tvm_tir_sblock_obj* blk = tvm_tir_sblock_new(&bf);
  tvm_tir_stmt_obj* br =
      tvm_tir_sblock_realize_new(tir_temp(tvm_tir_list_take(tvm_tir_int(0))), NULL, blk);
  tvm_tir_expr_obj* ret_v = tvm_tir_call_take(TVM_TIR_VOID, "tir.ret", tvm_tir_ref(v));
  tvm_tir_stmt_obj* full =
      tvm_tir_seq_take(tvm_tir_ref(br), tvm_tir_evaluate_take(tvm_tir_ref(ret_v)));
  tvm_tir_prim_func_obj* func = tvm_tir_func_take(
      "everything", tvm_tir_list_take(tvm_tir_ref(A), tvm_tir_ref(v), tvm_tir_ref(n)),
      tvm_tir_ref(full));
  tvm_tir_ir_module_obj* mod =
      tvm_tir_module_take(tvm_tir_ref(func), tvm_tir_testing_make_matmul("", 4, 4, 4));
  if (EXPECT_OK(mod)) {
    /* The body uses i, t, vi before (or without) binding them: map free variables. */
    JSON_ROUNDTRIP(mod, true);
    visit_kinds(mod);
  }
  /* Every concrete kind was saved and loaded. */
  for (int k = 0; k < TVM_TIR_KIND_COUNT; ++k) {
    bool abstract = k == TVM_TIR_KIND_BaseExpr || k == TVM_TIR_KIND_PrimExpr ||
                    k == TVM_TIR_KIND_RelaxExpr || k == TVM_TIR_KIND_BaseFunc ||
                    k == TVM_TIR_KIND_Type || k == TVM_TIR_KIND_Stmt;
    if (!abstract && !g_seen[k]) {
      fprintf(stderr, "json_every_kind: %s was not covered\n", tvm_tir_kind_name((tvm_tir_kind)k));
      g_test_failed_checks++;
    }
  }
  RELEASE(A, S, i, n, c, f, p, vi, t, v, exprs, exprs_arr, store, body, zero, sixteen, r16, realize,
          sub, M, mb, iv, blk, br, ret_v, full, func, mod);
}

TEST(json_closed_functions) {
  /* Functions without free variables round-trip without mapping free variables. */
  tvm_tir_prim_func_obj* f = tvm_tir_testing_make_large_func(500);
  if (EXPECT_OK(f)) JSON_ROUNDTRIP(f, false);
  tvm_tir_ir_module_obj* m = tvm_tir_module_take(tvm_tir_testing_make_matmul("", 16, 16, 16));
  if (EXPECT_OK(m)) JSON_ROUNDTRIP(m, false);
  RELEASE(f, m);
}

int main(void) {
  RUN(alpha_equivalent_funcs);
  RUN(changed_shape_path);
  RUN(free_variables);
  RUN(modules);
  RUN(json_every_kind);
  RUN(json_closed_functions);
  tir_release_temps();
  return test_summary();
}
