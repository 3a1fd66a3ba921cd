/*
 * test_typing.c: every typing rule of the TIR spec that the constructors enforce, each with a
 * passing and a failing case; the TypeError must name the rule and show the operands.
 */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tir_check.h"
#include <tvm-private/ffi.h>
#include <tvm-private/tir.h>

static tvm_tir_var_obj* var(const char* name, DLDataType t) { return tvm_tir_var_new(name, t); }
static tvm_tir_expr_obj* i32(int64_t v) { return tvm_tir_int_imm_new(TVM_TIR_INT32, v); }
static tvm_tir_expr_obj* f32(double v) { return tvm_tir_float_imm_new(TVM_TIR_FLOAT32, v); }
static tvm_tir_expr_obj* E(tvm_tir_var_obj* v) { return &v->expr; }
static tvm_tir_stmt_obj* nop(void) {
  tvm_tir_expr_obj* z = i32(0);
  tvm_tir_stmt_obj* s = tvm_tir_evaluate_new(z);
  tvm_ffi_release(z);
  return s;
}
static tvm_tir_buffer_obj* buffer2d(const char* name, DLDataType t) {
  return tvm_tir_buffer_decl(name, t, 16, 16);
}

/* ---- E1..E16: expressions ------------------------------------------------------------------ */
TEST(t_var) {
  tvm_tir_prim_type_obj* pt = tvm_tir_prim_type_new(TVM_TIR_FLOAT32);
  tvm_tir_var_obj* x = tvm_tir_var_new_typed("x", &pt->type);
  if (EXPECT_OK(x)) CHECK_STR_EQ(DT(x), "float32");
  tvm_tir_pointer_type_obj* ptr = tvm_tir_pointer_type_of(TVM_TIR_INT8, "shared");
  tvm_tir_var_obj* p = tvm_tir_var_new_typed("p", &ptr->type);
  if (EXPECT_OK(p)) CHECK_STR_EQ(DT(p), "handle");
  tvm_tir_tuple_type_obj* unit = tvm_tir_tuple_type_new(NULL);
  tvm_tir_var_obj* v = tvm_tir_var_new_typed("v", &unit->type);
  if (EXPECT_OK(v)) CHECK_STR_EQ(DT(v), "void");
  /* From a dtype: PrimType(dtype), or TupleType([]) for void. */
  tvm_tir_var_obj* w = var("w", TVM_TIR_VOID);
  CHECK(tvm_tir_type_is_void(w->type_annotation));
  tvm_tir_var_obj* h = var("h", TVM_TIR_HANDLE);
  CHECK(tvm_tir_kind_of(h->type_annotation) == TVM_TIR_KIND_PrimType);
  tvm_tir_tuple_type_obj* pair = tvm_tir_tuple_type_new(ARR(pt, pt));
  EXPECT_ERROR("TypeError", tvm_tir_var_new_typed("bad", &pair->type), "rule T-VAR",
               "(float32, float32)");
  RELEASE(pt, x, ptr, p, unit, v, w, h, pair);
}

TEST(t_intimm) {
  tvm_tir_expr_obj* ok = tvm_tir_int_imm_new(TVM_TIR_INT8, -128);
  EXPECT_OK(ok);
  tvm_tir_expr_obj* u = tvm_tir_int_imm_new(TVM_TIR_UINT64, INT64_MAX);
  EXPECT_OK(u);
  tvm_tir_expr_obj* b = tvm_tir_int_imm_new(TVM_TIR_BOOL, 1);
  EXPECT_OK(b);
  EXPECT_ERROR("TypeError", tvm_tir_int_imm_new(TVM_TIR_INT8, 128), "rule T-INTIMM", "128", "int8");
  EXPECT_ERROR("TypeError", tvm_tir_int_imm_new(TVM_TIR_UINT8, -1), "rule T-INTIMM", "-1", "uint8");
  EXPECT_ERROR("TypeError", tvm_tir_int_imm_new(TVM_TIR_BOOL, 2), "rule T-INTIMM", "bool");
  EXPECT_ERROR("TypeError", tvm_tir_int_imm_new(tvm_tir_dtype_int(1), -1), "rule T-INTIMM");
  EXPECT_ERROR("TypeError", tvm_tir_int_imm_new(TVM_TIR_FLOAT32, 1), "rule T-INTIMM",
               "scalar Int or UInt");
  EXPECT_ERROR("TypeError", tvm_tir_int_imm_new(tvm_tir_dtype_with_lanes(TVM_TIR_INT32, 4), 1),
               "rule T-INTIMM", "int32x4");
  RELEASE(ok, u, b);
}

/* Small IntImms (int32/int64 in [-1, 255], bool), scalar PrimTypes and their global-scope
 * PointerTypes are process-wide shared objects (expr.c, type.c): the same object each time,
 * with its own reference each time. */
static bool same_structure(void* x, void* y) {
  TVMFFIAny a = tvm_ffi_any_obj(x), b = tvm_ffi_any_obj(y);
  return tvm_ffi_structural_equal(&a, &b, false, NULL, NULL) == 1;
}

static void* make_int_imm_200(void* arg) {
  (void)arg;
  return tvm_tir_int_imm_new(TVM_TIR_INT64, 200); /* raced by two threads on first use */
}

TEST(t_shared_constants) {
  tvm_tir_expr_obj* a = i32(0);
  tvm_tir_expr_obj* b = i32(0);
  CHECK(a && a == b);
  tvm_tir_expr_obj* big = i32(256); /* past the shared range: a fresh object each time */
  tvm_tir_expr_obj* big2 = i32(256);
  CHECK(big && big2 && big != big2);
  CHECK(same_structure(big, big2));
  tvm_tir_expr_obj* neg = i32(-1);
  tvm_tir_expr_obj* neg64 = tvm_tir_int_imm_new(TVM_TIR_INT64, -1);
  CHECK(neg && neg64 && neg != neg64); /* shared per dtype */
  CHECK_STR_EQ(DT(neg64), "int64");
  CHECK(((tvm_tir_int_imm_obj*)neg64)->value == -1);
  tvm_tir_expr_obj* t1 = tvm_tir_int_imm_new(TVM_TIR_BOOL, 1);
  tvm_tir_expr_obj* t2 = tvm_tir_bool(true);
  CHECK(t1 && t1 == t2);
  tvm_tir_expr_obj* u8 = tvm_tir_int_imm_new(TVM_TIR_UINT8, 1); /* not shared */
  CHECK(u8 && u8 != t1);
  CHECK_STR_EQ(DT(u8), "uint8");
  /* Releasing every reference leaves the shared object usable. */
  tvm_ffi_release(b);
  tvm_tir_expr_obj* c = i32(0);
  CHECK(c == a && ((tvm_tir_int_imm_obj*)c)->value == 0);
  pthread_t th[2];
  void* got[2] = {NULL, NULL};
  for (int i = 0; i < 2; ++i) pthread_create(&th[i], NULL, make_int_imm_200, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(th[i], &got[i]);
  CHECK(got[0] && got[0] == got[1]);
  tvm_tir_prim_type_obj* f1 = tvm_tir_prim_type_new(TVM_TIR_FLOAT32);
  tvm_tir_prim_type_obj* f2 = tvm_tir_prim_type_new(TVM_TIR_FLOAT32);
  tvm_tir_prim_type_obj* v4 = tvm_tir_prim_type_new(tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 4));
  tvm_tir_prim_type_obj* v4b = tvm_tir_prim_type_new(tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 4));
  CHECK(f1 && f1 == f2 && v4 && v4b && v4 != v4b && v4 != f1);
  CHECK(same_structure(v4, v4b));
  tvm_tir_pointer_type_obj* p1 = tvm_tir_pointer_type_of(TVM_TIR_FLOAT32, NULL);
  tvm_tir_pointer_type_obj* p2 = tvm_tir_pointer_type_new(&f1->type, "");
  tvm_tir_pointer_type_obj* s1 = tvm_tir_pointer_type_of(TVM_TIR_FLOAT32, "shared");
  tvm_tir_pointer_type_obj* s2 = tvm_tir_pointer_type_of(TVM_TIR_FLOAT32, "shared");
  CHECK(p1 && p1 == p2 && s1 && s2 && s1 != s2 && s1 != p1);
  CHECK(p1 && p1->element_type == &f1->type);
  CHECK(same_structure(s1, s2) && !same_structure(s1, p1));
  RELEASE(a, big, big2, neg, neg64, t1, t2, u8, c, got[0], got[1], f1, f2, v4, v4b, p1, p2, s1,
          s2);
}

TEST(t_floatimm) {
  tvm_tir_expr_obj* h = tvm_tir_float_imm_new(TVM_TIR_FLOAT16, 65504);
  tvm_tir_expr_obj* bf = tvm_tir_float_imm_new(TVM_TIR_BFLOAT16, 3e38);
  tvm_tir_expr_obj* inf = tvm_tir_float_imm_new(TVM_TIR_FLOAT32, INFINITY);
  tvm_tir_expr_obj* nan = tvm_tir_float_imm_new(TVM_TIR_FLOAT64, NAN);
  CHECK(EXPECT_OK(h) && EXPECT_OK(bf) && EXPECT_OK(inf) && EXPECT_OK(nan));
  EXPECT_ERROR("TypeError", tvm_tir_float_imm_new(TVM_TIR_FLOAT16, 70000), "rule T-FLOATIMM",
               "70000", "float16");
  EXPECT_ERROR("TypeError", tvm_tir_float_imm_new(TVM_TIR_FLOAT32, 1e39), "rule T-FLOATIMM",
               "float32");
  EXPECT_ERROR("TypeError", tvm_tir_float_imm_new(TVM_TIR_INT32, 1.0), "rule T-FLOATIMM", "int32");
  EXPECT_ERROR("TypeError", tvm_tir_float_imm_new(tvm_tir_dtype_float(8), 1.0), "rule T-FLOATIMM");
  RELEASE(h, bf, inf, nan);
}

TEST(t_stringimm) {
  tvm_tir_expr_obj* s = tvm_tir_string_imm_new("hello", 5);
  if (EXPECT_OK(s)) {
    CHECK_STR_EQ(DT(s), "handle");
    CHECK_STR_EQ(tvm_ffi_str_cstr(((tvm_tir_string_imm_obj*)s)->value), "hello");
  }
  /* Every byte is kept: a NUL inside is part of the value, not its end. */
  tvm_tir_expr_obj* z = tvm_tir_string_imm_new("ab\0cd", 5);
  if (EXPECT_OK(z)) {
    TVMFFIByteArray v = tvm_ffi_str_view(((tvm_tir_string_imm_obj*)z)->value);
    CHECK(v.size == 5 && memcmp(v.data, "ab\0cd", 5) == 0);
  }
  tvm_tir_expr_obj* e = tvm_tir_string_imm_new(NULL, 0);
  if (EXPECT_OK(e)) CHECK(tvm_ffi_str_view(((tvm_tir_string_imm_obj*)e)->value).size == 0);
  EXPECT_ERROR("ValueError", tvm_tir_string_imm_new(NULL, 3), "NULL");
  RELEASE(s, z, e);
}

TEST(t_cast) {
  tvm_tir_var_obj* x = var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* v = var("v", tvm_tir_dtype_with_lanes(TVM_TIR_INT32, 4));
  tvm_tir_var_obj* h = var("h", TVM_TIR_HANDLE);
  tvm_tir_var_obj* f = var("f", TVM_TIR_FLOAT32);
  tvm_tir_expr_obj* ok1 = tvm_tir_cast_new(TVM_TIR_FLOAT32, E(x));
  tvm_tir_expr_obj* ok2 = tvm_tir_cast_new(TVM_TIR_HANDLE, E(x));
  tvm_tir_expr_obj* ok3 = tvm_tir_cast_new(tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 4), E(v));
  CHECK(EXPECT_OK(ok1) && EXPECT_OK(ok2) && EXPECT_OK(ok3));
  if (ok1) CHECK_STR_EQ(DT(ok1), "float32");
  EXPECT_ERROR("TypeError", tvm_tir_cast_new(TVM_TIR_FLOAT32, E(v)), "rule T-CAST", "lanes",
               "value = v (int32x4)");
  EXPECT_ERROR("TypeError", tvm_tir_cast_new(TVM_TIR_INT64, E(h)), "rule T-CAST",
               "a handle cannot be cast to int64", "value = h (handle)");
  EXPECT_ERROR("TypeError", tvm_tir_cast_new(TVM_TIR_HANDLE, E(f)), "rule T-CAST",
               "value = f (float32)");
  RELEASE(x, v, h, f, ok1, ok2, ok3);
}

TEST(t_binop) {
  tvm_tir_var_obj* x = var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* y = var("y", TVM_TIR_INT32);
  tvm_tir_var_obj* f = var("f", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* h = var("h", TVM_TIR_HANDLE);
  tvm_tir_var_obj* v = var("v", tvm_tir_dtype_with_lanes(TVM_TIR_INT32, 4));
  for (tvm_tir_kind k = TVM_TIR_KIND_Add; k <= TVM_TIR_KIND_Max; ++k) {
    tvm_tir_expr_obj* e = tvm_tir_binary_new(k, E(x), E(y));
    if (EXPECT_OK(e)) CHECK_STR_EQ(DT(e), "int32");
    tvm_ffi_release(e);
    EXPECT_ERROR("TypeError", tvm_tir_binary_new(k, E(x), E(f)), "rule T-BINOP",
                 "operands must have the same dtype", "a = x (int32)", "b = f (float32)");
  }
  EXPECT_ERROR("TypeError", tvm_tir_binary_new(TVM_TIR_KIND_Add, E(h), E(h)), "Add",
               "operands must not be handles", "rule T-BINOP", "a = h (handle)");
  EXPECT_ERROR("TypeError", tvm_tir_binary_new(TVM_TIR_KIND_Mod, E(f), E(f)), "rule T-BINOP",
               "Int or UInt", "a = f (float32)");
  EXPECT_ERROR("TypeError", tvm_tir_binary_new(TVM_TIR_KIND_Mul, E(x), E(v)), "rule T-BINOP",
               "b = v (int32x4)");
  tvm_tir_expr_obj* fm = tvm_tir_binary_new(TVM_TIR_KIND_FloorMod, E(f), E(f));
  EXPECT_OK(fm);
  EXPECT_ERROR("ValueError", tvm_tir_binary_new(TVM_TIR_KIND_Not, E(x), E(y)),
               "not a binary operator");
  RELEASE(x, y, f, h, v, fm);
}

TEST(t_cmp_logic_not) {
  tvm_tir_var_obj* x = var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* f = var("f", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* h = var("h", TVM_TIR_HANDLE);
  tvm_tir_var_obj* v = var("v", tvm_tir_dtype_with_lanes(TVM_TIR_INT32, 4));
  tvm_tir_var_obj* c = var("c", TVM_TIR_BOOL);
  tvm_tir_var_obj* c4 = var("c4", tvm_tir_dtype_with_lanes(TVM_TIR_BOOL, 4));
  for (tvm_tir_kind k = TVM_TIR_KIND_EQ; k <= TVM_TIR_KIND_GE; ++k) {
    tvm_tir_expr_obj* e = tvm_tir_binary_new(k, E(x), E(x));
    if (EXPECT_OK(e)) CHECK_STR_EQ(DT(e), "bool");
    tvm_tir_expr_obj* ev = tvm_tir_binary_new(k, E(v), E(v));
    if (EXPECT_OK(ev)) CHECK_STR_EQ(DT(ev), "boolx4");
    RELEASE(e, ev);
    EXPECT_ERROR("TypeError", tvm_tir_binary_new(k, E(x), E(f)), "rule T-CMP", "a = x (int32)",
                 "b = f (float32)");
  }
  EXPECT_ERROR("TypeError", tvm_tir_binary_new(TVM_TIR_KIND_EQ, E(h), E(h)), "rule T-CMP",
               "handles");
  tvm_tir_expr_obj* a = tvm_tir_binary_new(TVM_TIR_KIND_And, E(c), E(c));
  tvm_tir_expr_obj* o = tvm_tir_binary_new(TVM_TIR_KIND_Or, E(c4), E(c4));
  if (EXPECT_OK(a) && EXPECT_OK(o)) CHECK_STR_EQ(DT(o), "boolx4");
  EXPECT_ERROR("TypeError", tvm_tir_binary_new(TVM_TIR_KIND_And, E(c), E(x)), "rule T-LOGIC",
               "a = c (bool)", "b = x (int32)");
  EXPECT_ERROR("TypeError", tvm_tir_binary_new(TVM_TIR_KIND_Or, E(c), E(c4)), "rule T-LOGIC",
               "same number of lanes");
  tvm_tir_expr_obj* n = tvm_tir_not_new(E(c4));
  if (EXPECT_OK(n)) CHECK_STR_EQ(DT(n), "boolx4");
  EXPECT_ERROR("TypeError", tvm_tir_not_new(E(x)), "rule T-NOT", "a = x (int32)");
  RELEASE(x, f, h, v, c, c4, a, o, n);
}

TEST(t_select) {
  tvm_tir_var_obj* c = var("c", TVM_TIR_BOOL);
  tvm_tir_var_obj* c4 = var("c4", tvm_tir_dtype_with_lanes(TVM_TIR_BOOL, 4));
  tvm_tir_var_obj* c2 = var("c2", tvm_tir_dtype_with_lanes(TVM_TIR_BOOL, 2));
  tvm_tir_var_obj* x = var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* f = var("f", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* v = var("v", tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 4));
  tvm_tir_expr_obj* s1 = tvm_tir_select_new(E(c), E(x), E(x));
  tvm_tir_expr_obj* s2 = tvm_tir_select_new(E(c4), E(v), E(v));
  tvm_tir_expr_obj* s3 = tvm_tir_select_new(E(c), E(v), E(v));
  CHECK(EXPECT_OK(s1) && EXPECT_OK(s2) && EXPECT_OK(s3));
  if (s2) CHECK_STR_EQ(DT(s2), "float32x4");
  EXPECT_ERROR("TypeError", tvm_tir_select_new(E(x), E(x), E(x)), "rule T-SELECT",
               "condition must be bool", "condition = x (int32)");
  EXPECT_ERROR("TypeError", tvm_tir_select_new(E(c), E(x), E(f)), "rule T-SELECT",
               "true_value = x (int32)", "false_value = f (float32)");
  EXPECT_ERROR("TypeError", tvm_tir_select_new(E(c2), E(v), E(v)), "rule T-SELECT", "lanes",
               "condition = c2 (boolx2)");
  RELEASE(c, c4, c2, x, f, v, s1, s2, s3);
}

TEST(t_bufferload) {
  tvm_tir_buffer_obj* A = buffer2d("A", TVM_TIR_FLOAT32);
  tvm_tir_buffer_obj* V =
      tvm_tir_buffer_decl("V", tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 4), 16);
  tvm_tir_var_obj* i = var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* k = var("k", TVM_TIR_INT64);
  tvm_tir_var_obj* f = var("f", TVM_TIR_FLOAT32);
  tvm_tir_expr_obj *zero = i32(0), *one = i32(1);
  tvm_tir_expr_obj* ramp = tvm_tir_ramp_new(zero, one, 4);
  tvm_tir_expr_obj* l1 = tvm_tir_buffer_load_new(A, ARR(i, j));
  tvm_tir_expr_obj* l2 = tvm_tir_buffer_load_new(A, ARR(i, ramp));
  tvm_tir_expr_obj* ramp2 = tvm_tir_ramp_new(zero, one, 2);
  tvm_tir_expr_obj* l3 = tvm_tir_buffer_load_new(V, ARR(ramp2));
  if (EXPECT_OK(l1) && EXPECT_OK(l2) && EXPECT_OK(l3)) {
    CHECK_STR_EQ(DT(l1), "float32");
    CHECK_STR_EQ(DT(l2), "float32x4");
    CHECK_STR_EQ(DT(l3), "float32x8"); /* index lanes x buffer lanes */
  }
  EXPECT_ERROR("TypeError", tvm_tir_buffer_load_new(A, ARR(i)), "rule T-BUFFERLOAD",
               "buffer A has 2 dimensions but 1 indices are given");
  EXPECT_ERROR("TypeError", tvm_tir_buffer_load_new(A, ARR(i, f)), "rule T-BUFFERLOAD",
               "Int or UInt", "indices[1] = f (float32)");
  EXPECT_ERROR("TypeError", tvm_tir_buffer_load_new(A, ARR(i, k)), "rule T-BUFFERLOAD",
               "same bit width", "indices[1] = k (int64)");
  EXPECT_ERROR("TypeError", tvm_tir_buffer_load_new(A, ARR(ramp, j)), "rule T-BUFFERLOAD",
               "only the last index may be a vector", "T.Ramp(0, 1, 4) (int32x4)");
  RELEASE(A, V, i, j, k, f, zero, one, ramp, ramp2, l1, l2, l3);
}

/* tvm_tir_buffer_load_check(buffer, items, n) agrees with tvm_tir_buffer_load_new(buffer, an
 * Array of the items): both succeed, or both raise the same kind with the same message. */
static void expect_load_check_agrees(int line, tvm_tir_buffer_obj* buffer, void* indices) {
  tvm_tir_expr_obj* load = tvm_tir_buffer_load_new(buffer, indices);
  void* load_err = load ? NULL : tvm_ffi_error_take();
  int rc = tvm_tir_buffer_load_check(buffer, indices ? tvm_ffi_seq_data(indices) : NULL,
                                     indices ? tvm_ffi_seq_size(indices) : 0);
  void* check_err = rc == 0 ? NULL : tvm_ffi_error_take();
  bool same = (load != NULL) == (rc == 0);
  if (same && load_err) {
    same = check_err && strcmp(tvm_ffi_error_kind(load_err), tvm_ffi_error_kind(check_err)) == 0 &&
           strcmp(tvm_ffi_error_message(load_err), tvm_ffi_error_message(check_err)) == 0;
  }
  if (!same) {
    fprintf(stderr, "%s:%d: buffer_load_check disagrees with buffer_load_new:\n  new: %s\n  check: %s\n",
            __FILE__, line, load_err ? tvm_ffi_error_message(load_err) : "ok",
            check_err ? tvm_ffi_error_message(check_err) : "ok");
    g_test_failed_checks++;
  }
  RELEASE(load, load_err, check_err);
}
#define EXPECT_LOAD_CHECK_AGREES(buffer, indices) \
  expect_load_check_agrees(__LINE__, (buffer), (indices))

TEST(t_bufferload_check) {
  tvm_tir_buffer_obj* A = buffer2d("A", TVM_TIR_FLOAT32);
  tvm_tir_buffer_obj* V =
      tvm_tir_buffer_decl("V", tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 4), 16);
  tvm_tir_var_obj* i = var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* k = var("k", TVM_TIR_INT64);
  tvm_tir_var_obj* f = var("f", TVM_TIR_FLOAT32);
  tvm_tir_expr_obj *zero = i32(0), *one = i32(1);
  tvm_tir_expr_obj* ramp = tvm_tir_ramp_new(zero, one, 4);
  EXPECT_LOAD_CHECK_AGREES(A, ARR(i, j));
  EXPECT_LOAD_CHECK_AGREES(A, ARR(i, ramp));
  EXPECT_LOAD_CHECK_AGREES(V, ARR(ramp));
  EXPECT_LOAD_CHECK_AGREES(A, ARR(i));
  EXPECT_LOAD_CHECK_AGREES(A, ARR(i, f));
  EXPECT_LOAD_CHECK_AGREES(A, ARR(i, k));
  EXPECT_LOAD_CHECK_AGREES(A, ARR(ramp, j));
  EXPECT_LOAD_CHECK_AGREES(NULL, ARR(i, j));
  EXPECT_LOAD_CHECK_AGREES((tvm_tir_buffer_obj*)i, ARR(i, j)); /* not a Buffer */
  /* Items that are not PrimExprs: a TypeError naming the item (the constructor checks the
   * Array's element type with its own message, so only the kind is compared here). */
  TVMFFIAny bad[2] = {tvm_ffi_any_obj(i), tvm_ffi_any_int(3)};
  CHECK(tvm_tir_buffer_load_check(A, bad, 2) != 0);
  void* e = tvm_ffi_error_take();
  CHECK(e && strcmp(tvm_ffi_error_kind(e), "TypeError") == 0 &&
        strstr(tvm_ffi_error_message(e), "indices[1]"));
  tvm_ffi_release(e);
  CHECK(tvm_tir_buffer_load_check(A, NULL, 2) != 0); /* n items promised, none given */
  e = tvm_ffi_error_take();
  CHECK(e && strcmp(tvm_ffi_error_kind(e), "ValueError") == 0);
  tvm_ffi_release(e);
  RELEASE(A, V, i, j, k, f, zero, one, ramp);
}

/* tvm_tir__buffer_load_new_typed (arguments of their kinds) agrees with tvm_tir_buffer_load_new:
 * both make a load of the same dtype, buffer and indices, or both raise the same error. */
static void expect_typed_load_agrees(int line, tvm_tir_buffer_obj* buffer, void* indices) {
  tvm_tir_expr_obj* load = tvm_tir_buffer_load_new(buffer, indices);
  void* load_err = load ? NULL : tvm_ffi_error_take();
  tvm_tir_expr_obj* typed = tvm_tir__buffer_load_new_typed(buffer, indices);
  void* typed_err = typed ? NULL : tvm_ffi_error_take();
  bool same = (load != NULL) == (typed != NULL);
  if (same && load) {
    const tvm_tir_buffer_load_obj* a = (const tvm_tir_buffer_load_obj*)load;
    const tvm_tir_buffer_load_obj* b = (const tvm_tir_buffer_load_obj*)typed;
    same = tvm_tir_dtype_equal(load->dtype, typed->dtype) && a->buffer == b->buffer &&
           tvm_ffi_seq_size(a->indices) == tvm_ffi_seq_size(b->indices);
    for (int64_t n = 0; same && n < tvm_ffi_seq_size(a->indices); ++n) {
      same = tvm_ffi_seq_data(a->indices)[n].v_obj == tvm_ffi_seq_data(b->indices)[n].v_obj;
    }
  } else if (same) {
    same = strcmp(tvm_ffi_error_kind(load_err), tvm_ffi_error_kind(typed_err)) == 0 &&
           strcmp(tvm_ffi_error_message(load_err), tvm_ffi_error_message(typed_err)) == 0;
  }
  if (!same) {
    fprintf(stderr, "%s:%d: buffer_load_new_typed disagrees with buffer_load_new:\n  new: %s\n"
            "  typed: %s\n", __FILE__, line, load_err ? tvm_ffi_error_message(load_err) : "ok",
            typed_err ? tvm_ffi_error_message(typed_err) : "ok");
    g_test_failed_checks++;
  }
  RELEASE(load, load_err, typed, typed_err);
}
#define EXPECT_TYPED_LOAD_AGREES(buffer, indices) \
  expect_typed_load_agrees(__LINE__, (buffer), (indices))

TEST(t_bufferload_typed) {
  tvm_tir_buffer_obj* A = buffer2d("A", TVM_TIR_FLOAT32);
  tvm_tir_buffer_obj* V =
      tvm_tir_buffer_decl("V", tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 4), 16);
  tvm_tir_var_obj* i = var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* k = var("k", TVM_TIR_INT64);
  tvm_tir_var_obj* f = var("f", TVM_TIR_FLOAT32);
  tvm_tir_expr_obj *zero = i32(0), *one = i32(1);
  tvm_tir_expr_obj* ramp = tvm_tir_ramp_new(zero, one, 4);
  EXPECT_TYPED_LOAD_AGREES(A, ARR(i, j));
  EXPECT_TYPED_LOAD_AGREES(A, ARR(i, ramp));
  EXPECT_TYPED_LOAD_AGREES(V, ARR(ramp));
  EXPECT_TYPED_LOAD_AGREES(A, ARR(i));
  EXPECT_TYPED_LOAD_AGREES(A, ARR(i, f));
  EXPECT_TYPED_LOAD_AGREES(A, ARR(i, k));
  EXPECT_TYPED_LOAD_AGREES(A, ARR(ramp, j));
  EXPECT_TYPED_LOAD_AGREES(A, NULL); /* no indices: the count error */
  tvm_tir_expr_obj* l = tvm_tir__buffer_load_new_typed(V, ARR(ramp));
  if (EXPECT_OK(l)) CHECK_STR_EQ(DT(l), "float32x16"); /* index lanes x buffer lanes */
  RELEASE(A, V, i, j, k, f, zero, one, ramp, l);
}

/* The trusted-caller functions of tvm-private/ assert their caller's promise in debug builds:
 * each broken promise below aborts (in a child process) instead of making a malformed node or
 * reading a non-map as a map. Release builds compile the asserts out (the test says so). */
#ifndef NDEBUG
static tvm_tir_buffer_obj* g_buf;
static tvm_tir_var_obj* g_loop_var;
static tvm_tir_expr_obj* g_expr;
static tvm_tir_stmt_obj* g_stmt;
static void seq_of_an_expr(void) { tvm_tir__seq_stmt_new_typed(ARR(g_expr)); }
static void load_indexed_by_a_stmt(void) { tvm_tir__buffer_load_new_typed(g_buf, ARR(g_stmt)); }
static void store_of_a_stmt(void) {
  tvm_tir__buffer_store_new_typed(g_buf, (tvm_tir_expr_obj*)g_stmt, ARR(g_expr, g_expr));
}
static void for_with_a_stmt_bound(void) {
  tvm_tir__for_new_typed(g_loop_var, (tvm_tir_expr_obj*)g_stmt, g_expr, TVM_TIR_FOR_SERIAL,
                         g_stmt, NULL, NULL);
}
static void for_over_an_expr(void) {
  tvm_tir__for_new_typed((tvm_tir_var_obj*)g_expr, g_expr, g_expr, TVM_TIR_FOR_SERIAL, g_stmt,
                         NULL, NULL);
}
static void entries_of_an_array(void) {
  int64_t n;
  tvm_ffi__map_entries(ARR(g_expr), &n);
}
static void keys_of_an_array(void) { tvm_ffi__map_keys_are_str(ARR(g_expr)); }
static void object_of_no_type(void) { tvm_ffi__object_new_uninit(4000, 64); }

static bool aborts(void (*broken)(void)) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stderr)) _exit(2); /* (the assert's message) */
    broken();
    _exit(0);
  }
  int status = 0;
  return pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
         WTERMSIG(status) == SIGABRT;
}
#endif

TEST(t_typed_promises_asserted) {
#ifdef NDEBUG
  printf("  (release build: the asserts are compiled out)\n");
#else
  g_buf = buffer2d("A", TVM_TIR_FLOAT32);
  g_loop_var = var("i", TVM_TIR_INT32);
  g_expr = i32(0);
  tvm_tir_expr_obj* one = i32(1);
  g_stmt = tvm_tir_evaluate_new(one);
  /* The promises kept: no abort. */
  tvm_tir_stmt_obj* ok = tvm_tir__seq_stmt_new_typed(ARR(g_stmt));
  CHECK(ok != NULL);
  CHECK(aborts(seq_of_an_expr));
  CHECK(aborts(load_indexed_by_a_stmt));
  CHECK(aborts(store_of_a_stmt));
  CHECK(aborts(for_with_a_stmt_bound));
  CHECK(aborts(for_over_an_expr));
  CHECK(aborts(entries_of_an_array));
  CHECK(aborts(keys_of_an_array));
  CHECK(aborts(object_of_no_type));
  RELEASE(g_buf, g_loop_var, g_expr, one, g_stmt, ok);
#endif
}

TEST(t_ramp_broadcast) {
  tvm_tir_expr_obj *zero = i32(0), *one = i32(1), *fz = f32(0);
  tvm_tir_expr_obj* i64 = tvm_tir_int_imm_new(TVM_TIR_INT64, 1);
  tvm_tir_expr_obj* r = tvm_tir_ramp_new(zero, one, 8);
  if (EXPECT_OK(r)) CHECK_STR_EQ(DT(r), "int32x8");
  EXPECT_ERROR("TypeError", tvm_tir_ramp_new(zero, one, 1), "rule T-RAMP", "lanes",
               "base = 0 (int32)");
  EXPECT_ERROR("TypeError", tvm_tir_ramp_new(fz, fz, 4), "rule T-RAMP", "Int or UInt",
               "base = T.float32(0) (float32)");
  EXPECT_ERROR("TypeError", tvm_tir_ramp_new(zero, i64, 4), "rule T-RAMP", "same dtype",
               "stride = T.int64(1) (int64)");
  EXPECT_ERROR("TypeError", tvm_tir_ramp_new(r, r, 4), "rule T-RAMP", "scalars");
  tvm_tir_expr_obj* b = tvm_tir_broadcast_new(fz, 16);
  if (EXPECT_OK(b)) CHECK_STR_EQ(DT(b), "float32x16");
  EXPECT_ERROR("TypeError", tvm_tir_broadcast_new(r, 2), "rule T-BROADCAST", "scalar",
               "value = T.Ramp(0, 1, 8) (int32x8)");
  EXPECT_ERROR("TypeError", tvm_tir_broadcast_new(fz, 1), "rule T-BROADCAST", "lanes");
  RELEASE(zero, one, fz, i64, r, b);
}

TEST(t_let) {
  tvm_tir_var_obj* x = var("x", TVM_TIR_INT32);
  tvm_tir_expr_obj *one = i32(1), *half = f32(0.5);
  tvm_tir_expr_obj* body = tvm_tir_binary_new(TVM_TIR_KIND_Add, E(x), one);
  tvm_tir_expr_obj* let = tvm_tir_let_new(x, one, half);
  if (EXPECT_OK(let)) CHECK_STR_EQ(DT(let), "float32"); /* dtype of the body */
  EXPECT_ERROR("TypeError", tvm_tir_let_new(x, half, body), "rule T-LET", "var = x (int32)",
               "value = T.float32(0.5) (float32)");
  RELEASE(x, one, half, body, let);
}

TEST(t_call) {
  tvm_tir_var_obj* f = var("f", TVM_TIR_FLOAT32);
  tvm_tir_op_obj* exp = tvm_tir_op_get("tir.exp");
  tvm_tir_op_obj* ext = tvm_tir_op_get("tir.call_extern");
  tvm_tir_expr_obj* name = tvm_tir_string_imm_new("my_func", 7);
  tvm_tir_expr_obj* c1 = tvm_tir_call_new(TVM_TIR_FLOAT32, exp, ARR(f));
  tvm_tir_expr_obj* c2 = tvm_tir_call_new(TVM_TIR_INT32, ext, ARR(name, f, f, f));
  CHECK(EXPECT_OK(c1) && EXPECT_OK(c2));
  EXPECT_ERROR("TypeError", tvm_tir_call_new(TVM_TIR_FLOAT32, exp, ARR(f, f)), "rule T-CALL",
               "tir.exp takes 1 argument but 2 were given", "args = [f, f]");
  EXPECT_ERROR("TypeError", tvm_tir_call_new(TVM_TIR_FLOAT32, exp, NULL), "rule T-CALL",
               "but 0 were given");
  EXPECT_ERROR("TypeError", tvm_tir_call_new(TVM_TIR_FLOAT32, f, NULL), "op must be an ir.Op");
  void* bad_args = ARR(exp);
  EXPECT_ERROR("TypeError", tvm_tir_call_new(TVM_TIR_FLOAT32, exp, bad_args),
               "args[0] must be a ir.PrimExpr");
  RELEASE(f, exp, ext, name, c1, c2);
}

/* The builtins computed in one dtype (bit operations, float math) take operands of the call's
 * dtype: a mix has no code (LLVM rejects `pow(float, half)` and `or i32, i49`). */
TEST(t_call_operands) {
  tvm_tir_var_obj* f = var("f", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* h = var("h", TVM_TIR_FLOAT16);
  tvm_tir_var_obj* u = var("u", TVM_TIR_UINT32);
  tvm_tir_var_obj* w = var("w", tvm_tir_dtype_uint(49));
  tvm_tir_var_obj* i = var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* f4 = var("f4", tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 4));
  tvm_tir_op_obj* pow = tvm_tir_op_get("tir.pow");
  tvm_tir_op_obj* bor = tvm_tir_op_get("tir.bitwise_or");
  tvm_tir_op_obj* exp = tvm_tir_op_get("tir.exp");
  tvm_tir_op_obj* ldexp = tvm_tir_op_get("tir.ldexp");
  tvm_tir_expr_obj* ok1 = tvm_tir_call_new(TVM_TIR_FLOAT32, pow, ARR(f, f));
  tvm_tir_expr_obj* ok2 = tvm_tir_call_new(TVM_TIR_UINT32, bor, ARR(u, u));
  tvm_tir_expr_obj* ok3 = tvm_tir_call_new(tvm_tir_dtype_uint(49), bor, ARR(w, w));
  tvm_tir_expr_obj* ok4 = tvm_tir_call_new(TVM_TIR_FLOAT32, ldexp, ARR(f, i)); /* (not one dtype) */
  CHECK(EXPECT_OK(ok1) && EXPECT_OK(ok2) && EXPECT_OK(ok3) && EXPECT_OK(ok4));
  EXPECT_ERROR("TypeError", tvm_tir_call_new(TVM_TIR_FLOAT32, pow, ARR(f, h)), "rule T-CALL",
               "the operands of tir.pow must have the call's dtype float32", "args[1] = h (float16)");
  EXPECT_ERROR("TypeError", tvm_tir_call_new(TVM_TIR_UINT32, bor, ARR(u, w)), "rule T-CALL",
               "the operands of tir.bitwise_or must have the call's dtype uint32");
  EXPECT_ERROR("TypeError", tvm_tir_call_new(TVM_TIR_FLOAT32, bor, ARR(f, f)), "rule T-CALL",
               "tir.bitwise_or computes on Int/UInt values, not float32");
  EXPECT_ERROR("TypeError", tvm_tir_call_new(TVM_TIR_INT32, exp, ARR(i)), "rule T-CALL",
               "tir.exp computes on Float/BFloat values, not int32");
  EXPECT_ERROR("TypeError", tvm_tir_call_new(TVM_TIR_FLOAT32, exp, ARR(f4)), "rule T-CALL",
               "the operands of tir.exp must have the call's dtype float32");
  /* A string operand is shown whole in the message, its NUL and quote escaped. */
  tvm_tir_expr_obj* str = tvm_tir_string_imm_new("a\0\"b", 4);
  EXPECT_ERROR("TypeError", tvm_tir_call_new(TVM_TIR_INT32, bor, ARR(str, i)),
               "args[0] = \"a\\x00\\\"b\" (handle)");
  RELEASE(f, h, u, w, i, f4, pow, bor, exp, ldexp, ok1, ok2, ok3, ok4, str);
}

/* Int/UInt wider than 64 bits are rejected where a dtype enters the IR. */
TEST(too_wide_integers) {
  DLDataType i65 = tvm_tir_dtype_int(65), u128 = tvm_tir_dtype_uint(128);
  tvm_tir_var_obj* x = var("x", TVM_TIR_INT64);
  tvm_tir_op_obj* bor = tvm_tir_op_get("tir.bitwise_or");
  EXPECT_ERROR("TypeError", tvm_tir_int_imm_new(i65, 4), "rule T-INTIMM", "int65 is wider than 64");
  EXPECT_ERROR("TypeError", tvm_tir_var_new("v", u128), "rule T-PRIMTYPE",
               "uint128 is wider than 64");
  EXPECT_ERROR("TypeError", tvm_tir_prim_type_new(i65), "rule T-PRIMTYPE");
  EXPECT_ERROR("TypeError", tvm_tir_pointer_type_of(i65, NULL), "rule T-PRIMTYPE");
  EXPECT_ERROR("TypeError", tvm_tir_cast_new(i65, &x->expr), "rule T-CAST", "int65 is wider");
  EXPECT_ERROR("TypeError", tvm_tir_call_new(i65, bor, ARR(x, x)), "rule T-CALL", "int65");
  /* 64 bits and odd widths up to it stay valid. */
  tvm_tir_expr_obj* c = tvm_tir_int_imm_new(tvm_tir_dtype_uint(49), 5);
  tvm_tir_var_obj* v = var("v", tvm_tir_dtype_int(63));
  CHECK(EXPECT_OK(c) && EXPECT_OK(v));
  RELEASE(x, bor, c, v);
}

TEST(t_shuffle) {
  tvm_tir_var_obj* a = var("a", tvm_tir_dtype_with_lanes(TVM_TIR_INT32, 2));
  tvm_tir_var_obj* b = var("b", tvm_tir_dtype_with_lanes(TVM_TIR_INT32, 2));
  tvm_tir_var_obj* c = var("c", tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 2));
  tvm_tir_expr_obj *i0 = i32(0), *i1 = i32(1), *i2 = i32(2), *i3 = i32(3), *fx = f32(1);
  tvm_tir_expr_obj* s = tvm_tir_shuffle_new(ARR(a, b), ARR(i3, i2, i1, i0));
  if (EXPECT_OK(s)) CHECK_STR_EQ(DT(s), "int32x4");
  EXPECT_ERROR("TypeError", tvm_tir_shuffle_new(NULL, NULL), "rule T-SHUFFLE",
               "vectors must not be empty");
  EXPECT_ERROR("TypeError", tvm_tir_shuffle_new(ARR(a, c), ARR(i0, i1, i2, i3)), "rule T-SHUFFLE",
               "same element type", "offending = c (float32x2)");
  EXPECT_ERROR("TypeError", tvm_tir_shuffle_new(ARR(a, b), ARR(i0, i1)), "rule T-SHUFFLE",
               "2 indices for vectors of 4 lanes");
  EXPECT_ERROR("TypeError", tvm_tir_shuffle_new(ARR(a), ARR(i0, fx)), "rule T-SHUFFLE",
               "Int or UInt scalars", "offending = T.float32(1) (float32)");
  RELEASE(a, b, c, i0, i1, i2, i3, fx, s);
}

TEST(t_pointer_type) {
  tvm_tir_pointer_type_obj* p = tvm_tir_pointer_type_of(TVM_TIR_FLOAT16, NULL);
  if (EXPECT_OK(p)) CHECK_STR_EQ(tvm_tir_pointer_type_scope(&p->type), "");
  tvm_tir_tuple_type_obj* t = tvm_tir_tuple_type_new(NULL);
  EXPECT_ERROR("TypeError", tvm_tir_pointer_type_new(&t->type, "global"), "rule T-POINTERTYPE",
               "element_type = ()");
  RELEASE(p, t);
}

/* ---- S1..S14: statements ------------------------------------------------------------------- */
TEST(s_letstmt) {
  tvm_tir_var_obj* x = var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* y = var("y", TVM_TIR_INT64);
  tvm_tir_var_obj* h = var("h", TVM_TIR_HANDLE);
  tvm_tir_var_obj* p = tvm_tir_ptr_var("p", TVM_TIR_FLOAT32, NULL);
  tvm_tir_stmt_obj* body = nop();
  tvm_tir_expr_obj* one = i32(1);
  tvm_tir_stmt_obj* s1 = tvm_tir_let_stmt_new(x, one, body);
  tvm_tir_stmt_obj* s2 = tvm_tir_let_stmt_new(p, E(h), body); /* pointers convert implicitly */
  CHECK(EXPECT_OK(s1) && EXPECT_OK(s2));
  EXPECT_ERROR("TypeError", tvm_tir_let_stmt_new(y, one, body), "rule S-LETSTMT", "var = y (int64)",
               "value = 1 (int32)");
  EXPECT_ERROR("TypeError", tvm_tir_let_stmt_new(p, one, body), "rule S-LETSTMT", "handle",
               "var = p (handle)");
  EXPECT_ERROR("ValueError", tvm_tir_let_stmt_new(x, one, NULL), "LetStmt: body is NULL");
  RELEASE(x, y, h, p, body, one, s1, s2);
}

TEST(s_attr_assert) {
  tvm_tir_var_obj* tx = var("threadIdx.x", TVM_TIR_INT32);
  tvm_tir_stmt_obj* body = nop();
  tvm_tir_expr_obj *n = i32(32), *msg = tvm_tir_string_imm_new("bad", 3),
                   *c = tvm_tir_int_imm_new(TVM_TIR_BOOL, 1);
  TVMFFIAny node = tvm_ffi_any_obj(tx);
  tvm_tir_stmt_obj* attr = tvm_tir_attr_stmt_new(&node, "thread_extent", n, body);
  if (EXPECT_OK(attr)) {
    CHECK(((tvm_tir_attr_stmt_obj*)attr)->node.v_obj == (TVMFFIObject*)tx);
    CHECK_STR_EQ(tvm_ffi_str_cstr(((tvm_tir_attr_stmt_obj*)attr)->attr_key), "thread_extent");
  }
  tvm_tir_stmt_obj* a1 = tvm_tir_assert_stmt_new(c, msg, body);
  tvm_tir_stmt_obj* a2 = tvm_tir_assert_stmt_new(c, n, body); /* an int32 message */
  CHECK(EXPECT_OK(a1) && EXPECT_OK(a2));
  EXPECT_ERROR("TypeError", tvm_tir_assert_stmt_new(n, msg, body), "rule S-ASSERT", "bool scalar",
               "condition = 32 (int32)");
  tvm_tir_expr_obj* fmsg = f32(1);
  EXPECT_ERROR("TypeError", tvm_tir_assert_stmt_new(c, fmsg, body), "rule S-ASSERT",
               "StringImm or an int32", "message = T.float32(1) (float32)");
  RELEASE(tx, body, n, msg, c, attr, a1, a2, fmsg);
}

TEST(s_bufferstore) {
  tvm_tir_buffer_obj* A = buffer2d("A", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* i = var("i", TVM_TIR_INT32);
  tvm_tir_expr_obj *zero = i32(0), *one = i32(1), *fv = f32(2);
  tvm_tir_expr_obj* ramp = tvm_tir_ramp_new(zero, one, 4);
  tvm_tir_expr_obj* bv = tvm_tir_broadcast_new(fv, 4);
  tvm_tir_stmt_obj* s1 = tvm_tir_buffer_store_new(A, fv, ARR(i, i));
  tvm_tir_stmt_obj* s2 = tvm_tir_buffer_store_new(A, bv, ARR(i, ramp));
  CHECK(EXPECT_OK(s1) && EXPECT_OK(s2));
  EXPECT_ERROR("TypeError", tvm_tir_buffer_store_new(A, one, ARR(i, i)), "rule S-BUFFERSTORE",
               "element type float32", "value = 1 (int32)",
               "buffer = T.Buffer(A, (16, 16), \"float32\")");
  EXPECT_ERROR("TypeError", tvm_tir_buffer_store_new(A, fv, ARR(i, ramp)), "rule S-BUFFERSTORE",
               "4 lanes", "value = T.float32(2) (float32)");
  EXPECT_ERROR("TypeError", tvm_tir_buffer_store_new(A, fv, ARR(i)), "rule S-BUFFERSTORE",
               "2 dimensions");
  RELEASE(A, i, zero, one, fv, ramp, bv, s1, s2);
}

TEST(s_bufferrealize) {
  tvm_tir_buffer_obj* A = buffer2d("A", TVM_TIR_FLOAT32);
  tvm_tir_expr_obj *zero = i32(0), *n = i32(16), *fz = f32(0), *c = i32(1);
  tvm_tir_stmt_obj* body = nop();
  tvm_tir_range_obj* r = tvm_tir_range_new(zero, n);
  tvm_tir_range_obj* rf = tvm_tir_range_new(fz, n);
  tvm_tir_stmt_obj* s = tvm_tir_buffer_realize_new(A, ARR(r, r), NULL, body);
  EXPECT_OK(s);
  EXPECT_ERROR("TypeError", tvm_tir_buffer_realize_new(A, ARR(r, rf), NULL, body),
               "rule S-BUFFERREALIZE", "Int or UInt", "offending = T.Range(T.float32(0), 16)");
  EXPECT_ERROR("TypeError", tvm_tir_buffer_realize_new(A, ARR(r, r), c, body),
               "rule S-BUFFERREALIZE", "bool scalar", "offending = 1 (int32)");
  RELEASE(A, zero, n, fz, c, body, r, rf, s);
}

TEST(s_allocate) {
  tvm_tir_var_obj* p = tvm_tir_ptr_var("p", TVM_TIR_FLOAT32, "shared");
  tvm_tir_var_obj* q = tvm_tir_ptr_var("q", TVM_TIR_INT8, NULL);
  tvm_tir_var_obj* x = var("x", TVM_TIR_INT32);
  tvm_tir_expr_obj *n = i32(64), *m = tvm_tir_int_imm_new(TVM_TIR_INT64, 2), *f = f32(2);
  tvm_tir_stmt_obj* body = nop();
  tvm_tir_stmt_obj* a1 = tvm_tir_allocate_new(p, TVM_TIR_FLOAT32, ARR(n, n), NULL, body, NULL);
  tvm_tir_stmt_obj* a2 = tvm_tir_allocate_new(q, TVM_TIR_BOOL, ARR(n), NULL, body, NULL);
  CHECK(EXPECT_OK(a1) && EXPECT_OK(a2));
  EXPECT_ERROR("TypeError", tvm_tir_allocate_new(p, TVM_TIR_INT32, ARR(n), NULL, body, NULL),
               "rule S-ALLOCATE", "PointerType(int32)", "buffer_var = p (handle)",
               "T.handle(float32, \"shared\")");
  EXPECT_ERROR("TypeError", tvm_tir_allocate_new(x, TVM_TIR_INT32, ARR(n), NULL, body, NULL),
               "rule S-ALLOCATE", "buffer_var->type_annotation = int32");
  EXPECT_ERROR("TypeError", tvm_tir_allocate_new(p, TVM_TIR_FLOAT32, ARR(n, m), NULL, body, NULL),
               "rule S-ALLOCATE", "same dtype", "extents[1] = T.int64(2) (int64)");
  EXPECT_ERROR("TypeError", tvm_tir_allocate_new(p, TVM_TIR_FLOAT32, ARR(f), NULL, body, NULL),
               "rule S-ALLOCATE", "Int or UInt");
  EXPECT_ERROR("TypeError", tvm_tir_allocate_new(p, TVM_TIR_FLOAT32, ARR(n), n, body, NULL),
               "rule S-ALLOCATE", "bool scalar", "condition = 64 (int32)");
  RELEASE(p, q, x, n, m, f, body, a1, a2);
}

TEST(s_seq_if_evaluate) {
  tvm_tir_stmt_obj* body = nop();
  tvm_tir_var_obj* c = var("c", TVM_TIR_BOOL);
  tvm_tir_var_obj* c4 = var("c4", tvm_tir_dtype_with_lanes(TVM_TIR_BOOL, 4));
  tvm_tir_var_obj* x = var("x", TVM_TIR_INT32);
  tvm_tir_stmt_obj* seq = tvm_tir_seq_stmt_new(ARR(body, body));
  if (EXPECT_OK(seq)) CHECK_EQ_INT(tvm_ffi_seq_size(((tvm_tir_seq_stmt_obj*)seq)->seq), 2);
  EXPECT_ERROR("TypeError", tvm_tir_seq_stmt_new(ARR(body, x)), "seq[1] must be a tir.Stmt",
               "got tir.Var");
  tvm_tir_stmt_obj* i1 = tvm_tir_if_then_else_new(E(c), body, NULL);
  tvm_tir_stmt_obj* i2 = tvm_tir_if_then_else_new(E(c), body, body);
  CHECK(EXPECT_OK(i1) && EXPECT_OK(i2));
  if (i1) CHECK(((tvm_tir_if_then_else_obj*)i1)->else_case == NULL);
  EXPECT_ERROR("TypeError", tvm_tir_if_then_else_new(E(x), body, NULL), "rule S-IF",
               "condition = x (int32)");
  EXPECT_ERROR("TypeError", tvm_tir_if_then_else_new(E(c4), body, NULL), "rule S-IF", "bool scalar",
               "condition = c4 (boolx4)");
  EXPECT_ERROR("ValueError", tvm_tir_evaluate_new(NULL), "Evaluate: value is NULL");
  RELEASE(body, c, c4, x, seq, i1, i2);
}

TEST(s_for) {
  tvm_tir_var_obj* i = var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* l = var("l", TVM_TIR_INT64);
  tvm_tir_var_obj* n = var("n", TVM_TIR_INT32);
  tvm_tir_var_obj* f = var("f", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* u = var("u", TVM_TIR_UINT64);
  tvm_tir_expr_obj *zero = i32(0), *ten = i32(10), *neg = i32(-1),
                   *big = tvm_tir_int_imm_new(TVM_TIR_INT64, 5);
  tvm_tir_stmt_obj* body = nop();
  tvm_tir_stmt_obj* f1 = tvm_tir_for_new(i, zero, E(n), TVM_TIR_FOR_SERIAL, body, NULL, NULL);
  /* IntImm bounds narrower than the loop variable are promoted (S11 items 3-4). */
  tvm_tir_stmt_obj* f2 = tvm_tir_for_new(l, zero, ten, TVM_TIR_FOR_PARALLEL, body, NULL, NULL);
  if (EXPECT_OK(f1) && EXPECT_OK(f2)) {
    CHECK_STR_EQ(DT(((tvm_tir_for_obj*)f2)->min), "int64");
    CHECK_STR_EQ(DT(((tvm_tir_for_obj*)f2)->extent), "int64");
  }
  EXPECT_ERROR("TypeError", tvm_tir_for_new(l, zero, E(n), TVM_TIR_FOR_SERIAL, body, NULL, NULL),
               "rule S-FOR", "extent must have the loop variable's dtype", "loop_var = l (int64)",
               "extent = n (int32)");
  EXPECT_ERROR("TypeError", tvm_tir_for_new(i, zero, big, TVM_TIR_FOR_SERIAL, body, NULL, NULL),
               "rule S-FOR", "wider", "extent = T.int64(5) (int64)");
  EXPECT_ERROR("TypeError", tvm_tir_for_new(f, zero, ten, TVM_TIR_FOR_SERIAL, body, NULL, NULL),
               "rule S-FOR", "loop_var = f (float32)");
  EXPECT_ERROR("TypeError", tvm_tir_for_new(u, neg, ten, TVM_TIR_FOR_SERIAL, body, NULL, NULL),
               "rule S-FOR", "min -1 cannot be promoted", "uint64");
  /* Vectorized loops: min 0, constant extent >= 1, no While inside. */
  tvm_tir_expr_obj* four = i32(4);
  tvm_tir_stmt_obj* v = tvm_tir_for_new(i, zero, four, TVM_TIR_FOR_VECTORIZED, body, NULL, NULL);
  EXPECT_OK(v);
  EXPECT_ERROR("TypeError",
               tvm_tir_for_new(i, zero, E(n), TVM_TIR_FOR_VECTORIZED, body, NULL, NULL),
               "rule S-FOR", "constant extent");
  EXPECT_ERROR("TypeError", tvm_tir_for_new(i, ten, four, TVM_TIR_FOR_VECTORIZED, body, NULL, NULL),
               "rule S-FOR", "min 0");
  tvm_tir_expr_obj* cond = tvm_tir_binary_new(TVM_TIR_KIND_LT, E(n), ten);
  tvm_tir_stmt_obj* w = tvm_tir_while_new(cond, body);
  tvm_tir_stmt_obj* seq = tvm_tir_seq_stmt_new(ARR(body, w));
  tvm_tir_stmt_obj* wrapped = tvm_tir_if_then_else_new(cond, seq, NULL);
  EXPECT_ERROR("TypeError",
               tvm_tir_for_new(i, zero, four, TVM_TIR_FOR_VECTORIZED, wrapped, NULL, NULL),
               "rule S-FOR", "must not contain a While");
  EXPECT_ERROR("ValueError", tvm_tir_for_new(i, zero, four, (tvm_tir_for_kind)9, body, NULL, NULL),
               "invalid kind 9");
  RELEASE(i, l, n, f, u, zero, ten, neg, big, body, f1, f2, four, v, cond, w, seq, wrapped);
}

TEST(s_while) {
  tvm_tir_var_obj* n = var("n", TVM_TIR_INT32);
  tvm_tir_var_obj* f = var("f", TVM_TIR_FLOAT32);
  tvm_tir_expr_obj* one = i32(1);
  tvm_tir_expr_obj* c = tvm_tir_binary_new(TVM_TIR_KIND_GT, E(n), one);
  tvm_tir_stmt_obj* body = nop();
  tvm_tir_stmt_obj* w1 = tvm_tir_while_new(c, body);
  tvm_tir_stmt_obj* w2 = tvm_tir_while_new(E(n), body); /* any Int/UInt scalar */
  CHECK(EXPECT_OK(w1) && EXPECT_OK(w2));
  EXPECT_ERROR("TypeError", tvm_tir_while_new(one, body), "rule S-WHILE", "IntImm",
               "condition = 1 (int32)");
  EXPECT_ERROR("TypeError", tvm_tir_while_new(E(f), body), "rule S-WHILE",
               "condition = f (float32)");
  RELEASE(n, f, one, c, body, w1, w2);
}

TEST(s_block) {
  tvm_tir_var_obj* vi = var("vi", TVM_TIR_INT32);
  tvm_tir_var_obj* vf = var("vf", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* i = var("i", TVM_TIR_INT32);
  tvm_tir_expr_obj *zero = i32(0), *n = i32(8), *fz = f32(0), *fn = f32(8);
  tvm_tir_range_obj* dom = tvm_tir_range_new(zero, n);
  tvm_tir_range_obj* fdom = tvm_tir_range_new(fz, fn);
  tvm_tir_iter_var_obj* iv = tvm_tir_iter_var_new(dom, vi, TVM_TIR_ITER_DATA_PAR, NULL);
  tvm_tir_iter_var_obj* fv = tvm_tir_iter_var_new(NULL, vf, TVM_TIR_ITER_DATA_PAR, NULL);
  tvm_tir_stmt_obj* body = nop();
  tvm_tir_sblock_fields fields = {.iter_vars = ARR(iv), .name_hint = "blk", .body = body};
  tvm_tir_sblock_obj* blk = tvm_tir_sblock_new(&fields);
  EXPECT_OK(blk);
  tvm_tir_sblock_fields bad = {.iter_vars = ARR(fv), .name_hint = "bad", .body = body};
  EXPECT_ERROR("TypeError", tvm_tir_sblock_new(&bad), "rule S-BLOCK",
               "iter_vars[0] = vf (float32)");
  tvm_tir_stmt_obj* r = tvm_tir_sblock_realize_new(ARR(i), NULL, blk);
  EXPECT_OK(r);
  EXPECT_ERROR("TypeError", tvm_tir_sblock_realize_new(NULL, NULL, blk), "rule S-BLOCKREALIZE",
               "0 iter_values for a block with 1 iter_vars");
  EXPECT_ERROR("TypeError", tvm_tir_sblock_realize_new(ARR(i), n, blk), "rule S-BLOCKREALIZE",
               "predicate must be bool", "predicate = 8 (int32)");
  RELEASE(vi, vf, i, zero, n, fz, fn, dom, fdom, iv, fv, body, blk, r);
}

/* ---- O1..O6: other constructs -------------------------------------------------------------- */
TEST(o_itervar) {
  tvm_tir_var_obj* v = var("v", TVM_TIR_INT32);
  tvm_tir_expr_obj *zero = i32(0), *n = i32(8), *n64 = tvm_tir_int_imm_new(TVM_TIR_INT64, 8),
                   *u = tvm_tir_int_imm_new(TVM_TIR_UINT32, 8);
  tvm_tir_range_obj* ok = tvm_tir_range_new(zero, n);
  tvm_tir_range_obj* wide = tvm_tir_range_new(zero, n64);
  tvm_tir_range_obj* unsig = tvm_tir_range_new(zero, u);
  tvm_tir_iter_var_obj* iv = tvm_tir_iter_var_new(ok, v, TVM_TIR_ITER_THREAD_INDEX, "threadIdx.x");
  if (EXPECT_OK(iv)) CHECK_STR_EQ(tvm_ffi_str_cstr(iv->thread_tag), "threadIdx.x");
  EXPECT_ERROR("TypeError", tvm_tir_iter_var_new(wide, v, TVM_TIR_ITER_DATA_PAR, NULL),
               "rule O-ITERVAR", "same dtype", "dom->extent = T.int64(8) (int64)",
               "var = v (int32)");
  EXPECT_ERROR("TypeError", tvm_tir_iter_var_new(unsig, v, TVM_TIR_ITER_DATA_PAR, NULL),
               "rule O-ITERVAR", "Int scalar");
  EXPECT_ERROR("ValueError", tvm_tir_iter_var_new(ok, v, (tvm_tir_iter_var_type)42, NULL),
               "iter_type 42");
  RELEASE(v, zero, n, n64, u, ok, wide, unsig, iv);
}

TEST(o_buffer) {
  tvm_tir_var_obj* plain = var("plain", TVM_TIR_HANDLE);
  tvm_tir_var_obj* data = tvm_tir_ptr_var("data", TVM_TIR_FLOAT32, NULL);
  tvm_tir_var_obj* n = var("n", TVM_TIR_INT32);
  tvm_tir_var_obj* s64 = var("s64", TVM_TIR_INT64);
  tvm_tir_expr_obj *f = f32(2), *one = i32(1);
  tvm_tir_buffer_fields fl = {
      .data = data, .dtype = TVM_TIR_FLOAT32, .shape = ARR(n, n), .name = "B"};
  tvm_tir_buffer_obj* b = tvm_tir_buffer_new(&fl);
  if (EXPECT_OK(b)) { /* defaults */
    CHECK_EQ_INT(b->data_alignment, TVM_TIR_DEFAULT_ALIGNMENT);
    CHECK_EQ_INT(b->offset_factor, 1);
    CHECK_EQ_INT(b->buffer_type, TVM_TIR_BUFFER_DEFAULT);
    int64_t off = -1;
    CHECK(tvm_tir_as_const_int(b->elem_offset, &off) && off == 0);
    CHECK_STR_EQ(DT(b->elem_offset), "int32");
    CHECK_EQ_INT(tvm_ffi_seq_size(b->strides), 0);
  }
  tvm_tir_buffer_fields bc = fl;
  bc.buffer_type = TVM_TIR_BUFFER_AUTO_BROADCAST;
  tvm_tir_buffer_obj* ab = tvm_tir_buffer_new(&bc);
  if (EXPECT_OK(ab)) { /* fresh stride vars (O3 item 5) */
    CHECK_EQ_INT(tvm_ffi_seq_size(ab->strides), 2);
    CHECK_STR_EQ(tvm_tir_var_name(tvm_ffi_seq_obj_at(ab->strides, 1)), "B_s1");
  }
  tvm_tir_buffer_fields e1 = fl;
  e1.data = plain;
  EXPECT_ERROR("TypeError", tvm_tir_buffer_new(&e1), "rule O-BUFFER", "PointerType",
               "data = plain (handle)");
  tvm_tir_buffer_fields e2 = fl;
  e2.shape = ARR(n, f);
  EXPECT_ERROR("TypeError", tvm_tir_buffer_new(&e2), "rule O-BUFFER",
               "shape must be Int or UInt scalars", "shape[1] = T.float32(2) (float32)");
  tvm_tir_buffer_fields e3 = fl;
  e3.strides = ARR(n, s64);
  EXPECT_ERROR("TypeError", tvm_tir_buffer_new(&e3), "rule O-BUFFER",
               "strides must all have the same dtype", "strides[1] = s64 (int64)");
  tvm_tir_buffer_fields e4 = fl;
  e4.elem_offset = f;
  EXPECT_ERROR("TypeError", tvm_tir_buffer_new(&e4), "rule O-BUFFER",
               "elem_offset = T.float32(2) (float32)");
  tvm_tir_buffer_fields e5 = fl;
  e5.axis_separators = ARR(n);
  EXPECT_ERROR("TypeError", tvm_tir_buffer_new(&e5), "axis_separators[0] must be a ir.IntImm");
  tvm_tir_buffer_fields e6 = fl;
  e6.axis_separators = ARR(one);
  tvm_tir_buffer_obj* sep = tvm_tir_buffer_new(&e6);
  EXPECT_OK(sep);
  /* A constant dimension is a size: a negative one is rejected here, not when the buffer is
   * bound to a tensor; 0 is a valid (empty) size. */
  tvm_tir_expr_obj *neg = i32(-4), *zero = i32(0);
  tvm_tir_buffer_fields e7 = fl;
  e7.shape = ARR(n, neg);
  EXPECT_ERROR("ValueError", tvm_tir_buffer_new(&e7), "Buffer B: shape[1] is -4",
               "must not be negative");
  tvm_tir_buffer_fields e8 = fl;
  e8.shape = ARR(zero, n);
  tvm_tir_buffer_obj* empty = tvm_tir_buffer_new(&e8);
  EXPECT_OK(empty);
  /* Elements wider than 64 bits are not represented. */
  tvm_tir_buffer_fields e9 = fl;
  e9.dtype = tvm_tir_dtype_int(65);
  EXPECT_ERROR("TypeError", tvm_tir_buffer_new(&e9), "rule O-BUFFER", "int65 is wider than 64");
  RELEASE(plain, data, n, s64, f, one, b, ab, sep, neg, zero, empty);
}

TEST(o_bufferregion) {
  tvm_tir_buffer_obj* A = buffer2d("A", TVM_TIR_FLOAT32);
  tvm_tir_expr_obj *zero = i32(0), *n = i32(16);
  tvm_tir_range_obj* r = tvm_tir_range_new(zero, n);
  tvm_tir_buffer_region_obj* ok = tvm_tir_buffer_region_new(A, ARR(r, r));
  tvm_tir_buffer_region_obj* full = tvm_tir_buffer_region_full(A);
  CHECK(EXPECT_OK(ok) && EXPECT_OK(full));
  EXPECT_ERROR("TypeError", tvm_tir_buffer_region_new(A, ARR(r)), "rule O-BUFFERREGION",
               "1 ranges but buffer A has 2 dimensions", "region = [T.Range(0, 16)]");
  RELEASE(A, zero, n, r, ok, full);
}

TEST(o_matchbuffer) {
  tvm_tir_buffer_obj* A = buffer2d("A", TVM_TIR_FLOAT32);
  tvm_tir_buffer_obj* S = tvm_tir_buffer_decl("S", TVM_TIR_FLOAT32, 8);
  tvm_tir_buffer_obj* I = tvm_tir_buffer_decl("I", TVM_TIR_INT32, 8);
  tvm_tir_buffer_obj* S4 = tvm_tir_buffer_decl("S4", TVM_TIR_FLOAT32, 4);
  tvm_tir_buffer_obj* S2 = tvm_tir_buffer_decl("S2", TVM_TIR_FLOAT32, 2, 8);
  tvm_tir_expr_obj *zero = i32(0), *one = i32(1), *two = i32(2), *eight = i32(8);
  void* shp = ARR(eight);
  tvm_tir_buffer_obj* SH = tvm_tir_buffer_decl_new("SH", TVM_TIR_FLOAT32, shp, "shared");
  tvm_tir_range_obj* row = tvm_tir_range_new(zero, one);
  tvm_tir_range_obj* rows2 = tvm_tir_range_new(zero, two);
  tvm_tir_range_obj* cols = tvm_tir_range_new(zero, eight);
  tvm_tir_buffer_region_obj* src = tvm_tir_buffer_region_new(A, ARR(row, cols));
  tvm_tir_buffer_region_obj* src2 = tvm_tir_buffer_region_new(A, ARR(rows2, cols));
  tvm_tir_match_buffer_region_obj* m = tvm_tir_match_buffer_region_new(S, src);
  EXPECT_OK(m);
  EXPECT_ERROR("TypeError", tvm_tir_match_buffer_region_new(I, src), "rule O-MATCHBUFFER",
               "same dtype", "buffer = T.Buffer(I, (8,), \"int32\")");
  EXPECT_ERROR("TypeError", tvm_tir_match_buffer_region_new(SH, src), "rule O-MATCHBUFFER",
               "storage scopes differ: \"shared\" and \"\"");
  EXPECT_ERROR("TypeError", tvm_tir_match_buffer_region_new(S4, src), "rule O-MATCHBUFFER",
               "shape[0] = 4 does not match the extent 8");
  EXPECT_ERROR("TypeError", tvm_tir_match_buffer_region_new(S, src2), "rule O-MATCHBUFFER",
               "region[0] has extent 2");
  tvm_tir_buffer_region_obj* src1 = tvm_tir_buffer_region_new(S, ARR(cols));
  EXPECT_ERROR("TypeError", tvm_tir_match_buffer_region_new(S2, src1), "rule O-MATCHBUFFER",
               "2 dimensions but the region only 1");
  RELEASE(A, S, I, S4, S2, zero, one, two, eight, SH, row, rows2, cols, src, src2, m, src1);
}

TEST(o_primfunc) {
  tvm_tir_var_obj* x = var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* p = tvm_tir_ptr_var("p", TVM_TIR_FLOAT32, NULL);
  tvm_tir_expr_obj *one = i32(1), *half = f32(0.5);
  tvm_tir_stmt_obj* body = nop();
  tvm_tir_prim_func_obj* f = tvm_tir_prim_func_new(ARR(x), body, NULL, NULL, NULL);
  if (EXPECT_OK(f)) CHECK(tvm_tir_type_is_void(f->ret_type)); /* no tir.ret: TupleType([]) */
  tvm_tir_prim_type_obj* t_i32 = tvm_tir_prim_type_new(TVM_TIR_INT32);
  tvm_tir_prim_type_obj* t_f32 = tvm_tir_prim_type_new(TVM_TIR_FLOAT32);
  EXPECT_ERROR("TypeError", tvm_tir_prim_func_new(ARR(x), body, &t_i32->type, NULL, NULL),
               "rule O-PRIMFUNC", "no tir.ret", "ret_type = int32");
  /* With tir.ret: the returned value's type. */
  tvm_tir_expr_obj *xe = E(x), *pe = E(p);
  tvm_tir_expr_obj* ret_x = tvm_tir_call_builtin(TVM_TIR_INT32, TVM_TIR_BUILTIN_ret, &xe, 1);
  tvm_tir_expr_obj* ret_h = tvm_tir_call_builtin(TVM_TIR_FLOAT32, TVM_TIR_BUILTIN_ret, &half, 1);
  tvm_tir_expr_obj* ret_p = tvm_tir_call_builtin(TVM_TIR_HANDLE, TVM_TIR_BUILTIN_ret, &pe, 1);
  tvm_tir_stmt_obj* s_x = tvm_tir_evaluate_new(ret_x);
  tvm_tir_stmt_obj* s_h = tvm_tir_evaluate_new(ret_h);
  tvm_tir_stmt_obj* s_p = tvm_tir_evaluate_new(ret_p);
  tvm_tir_prim_func_obj* g = tvm_tir_prim_func_new(ARR(x), s_x, NULL, NULL, NULL);
  if (EXPECT_OK(g)) CHECK(tvm_tir_type_equal(g->ret_type, &t_i32->type));
  tvm_tir_prim_func_obj* g2 = tvm_tir_prim_func_new(ARR(x), s_x, &t_i32->type, NULL, NULL);
  tvm_tir_prim_func_obj* g3 = tvm_tir_prim_func_new(ARR(p), s_p, p->type_annotation, NULL, NULL);
  CHECK(EXPECT_OK(g2) && EXPECT_OK(g3));
  EXPECT_ERROR("TypeError", tvm_tir_prim_func_new(ARR(x), s_x, &t_f32->type, NULL, NULL),
               "rule O-PRIMFUNC", "does not match ret_type", "ret_type = float32",
               "returned = x (int32)");
  tvm_tir_stmt_obj* both = tvm_tir_seq_stmt_new(ARR(s_x, s_h));
  EXPECT_ERROR("TypeError", tvm_tir_prim_func_new(ARR(x), both, NULL, NULL, NULL),
               "rule O-PRIMFUNC", "do not all have the same type",
               "returned = T.float32(0.5) (float32)");
  RELEASE(x, p, one, half, body, f, t_i32, t_f32, ret_x, ret_h, ret_p, s_x, s_h, s_p, g, g2, g3,
          both);
}

/* The constructor skips its search for tir.ret while nothing but the op registry refers to the
 * tir.ret op (func.c): a call that became tir.ret through reflection, after the constructors had
 * seen it, must still be found, and so must one whose op another holder also refers to. */
TEST(o_primfunc_ret_by_reflection) {
  tvm_tir_var_obj* x = var("x", TVM_TIR_INT32);
  tvm_tir_expr_obj* xe = E(x);
  tvm_tir_expr_obj* call = tvm_tir_call_builtin(TVM_TIR_INT32, TVM_TIR_BUILTIN_likely, &xe, 1);
  tvm_tir_stmt_obj* body = tvm_tir_evaluate_new(call);
  tvm_tir_prim_func_obj* before = tvm_tir_prim_func_new(ARR(x), body, NULL, NULL, NULL);
  if (EXPECT_OK(before)) CHECK(tvm_tir_type_is_void(before->ret_type));
  const TVMFFIFieldInfo* op_field =
      tvm_ffi_type_find_field(tvm_tir_type_index(TVM_TIR_KIND_Call), "op");
  tvm_tir_op_obj* ret = tvm_tir_builtin_op(TVM_TIR_BUILTIN_ret);
  TVMFFIAny v = tvm_ffi_any_obj(ret);
  CHECK(op_field && tvm_ffi_field_set(call, op_field, &v) == 0);
  tvm_tir_prim_func_obj* g = tvm_tir_prim_func_new(ARR(x), body, NULL, NULL, NULL);
  if (EXPECT_OK(g)) CHECK(tvm_tir_type_equal(g->ret_type, x->type_annotation));
  tvm_ffi_release(ret); /* now only the call refers to the op */
  tvm_tir_tuple_type_obj* unit = tvm_tir_tuple_type_new(NULL);
  EXPECT_ERROR("TypeError", tvm_tir_prim_func_new(ARR(x), body, &unit->type, NULL, NULL),
               "rule O-PRIMFUNC", "does not match ret_type");
  RELEASE(x, call, body, before, g, unit);
}

/* The constructors taking the name as an ffi.String share it; anything else is a TypeError. */
TEST(t_var_named_by_string) {
  void* name = tvm_ffi_str_obj("a_rather_long_name", 18);
  tvm_tir_var_obj* a = tvm_tir_var_new_str(name, TVM_TIR_INT64);
  if (EXPECT_OK(a)) {
    CHECK(a->name_hint == name);
    CHECK_STR_EQ(tvm_tir_var_name(a), "a_rather_long_name");
    CHECK_STR_EQ(DT(a), "int64");
  }
  tvm_tir_prim_type_obj* pt = tvm_tir_prim_type_new(TVM_TIR_FLOAT32);
  tvm_tir_var_obj* b = tvm_tir_var_new_typed_str(name, &pt->type);
  if (EXPECT_OK(b)) {
    CHECK(b->name_hint == name && tvm_tir_type_equal(b->type_annotation, &pt->type));
  }
  tvm_tir_var_obj* p = tvm_tir_ptr_var_str(name, TVM_TIR_FLOAT32, "shared");
  if (EXPECT_OK(p)) CHECK(p->name_hint == name && DT(p)[0] == 'h');
  EXPECT_ERROR("TypeError", tvm_tir_var_new_str(pt, TVM_TIR_INT32),
               "name_hint must be an ffi.String");
  CHECK(tvm_tir_var_new_str(NULL, TVM_TIR_INT32) == NULL && tvm_ffi_error_pending());
  tvm_ffi_error_clear();
  RELEASE(name, a, pt, b, p);
}

TEST(kinds) {
  tvm_tir_var_obj* x = var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* s = tvm_tir_size_var_new("s", TVM_TIR_INT32);
  CHECK(tvm_tir_kind_of(x) == TVM_TIR_KIND_Var);
  CHECK(tvm_tir_kind_of(s) == TVM_TIR_KIND_SizeVar);
  CHECK(tvm_tir_is_var(s) && tvm_tir_is_expr(s) && !tvm_tir_is_stmt(s));
  CHECK_STR_EQ(tvm_ffi_type_key(tvm_ffi_type_index(s)), "tir.SizeVar");
  CHECK_STR_EQ(tvm_tir_kind_type_key(TVM_TIR_KIND_IntImm), "ir.IntImm");
  CHECK_STR_EQ(tvm_tir_kind_type_key(TVM_TIR_KIND_SBlockRealize), "tir.SBlockRealize");
  CHECK_STR_EQ(tvm_tir_kind_name(TVM_TIR_KIND_FloorMod), "FloorMod");
  CHECK(tvm_tir_kind_of(NULL) == TVM_TIR_KIND_NONE);
  void* a = tvm_ffi_array_new(NULL, 0);
  CHECK(tvm_tir_kind_of(a) == TVM_TIR_KIND_NONE);
  CHECK(tvm_tir_type_index(TVM_TIR_KIND_PrimFunc) == tvm_ffi_type_find("tir.PrimFunc"));
  CHECK(
      tvm_tir_is(tvm_tir_type_index(TVM_TIR_KIND_PrimFunc) >= 0 ? x : NULL, TVM_TIR_KIND_BaseExpr));
  CHECK_STR_EQ(tvm_tir_rule_name(TVM_TIR_RULE_T_BINOP), "T-BINOP");
  CHECK_STR_EQ(tvm_tir_rule_spec_ref(TVM_TIR_RULE_S_FOR), "S11");
  RELEASE(x, s, a);
}

int main(void) {
  RUN(t_typed_promises_asserted);
  RUN(t_var);
  RUN(t_var_named_by_string);
  RUN(t_intimm);
  RUN(t_shared_constants);
  RUN(t_floatimm);
  RUN(t_stringimm);
  RUN(t_cast);
  RUN(t_binop);
  RUN(t_cmp_logic_not);
  RUN(t_select);
  RUN(t_bufferload);
  RUN(t_bufferload_check);
  RUN(t_bufferload_typed);
  RUN(t_ramp_broadcast);
  RUN(t_let);
  RUN(t_call);
  RUN(t_call_operands);
  RUN(too_wide_integers);
  RUN(t_shuffle);
  RUN(t_pointer_type);
  RUN(s_letstmt);
  RUN(s_attr_assert);
  RUN(s_bufferstore);
  RUN(s_bufferrealize);
  RUN(s_allocate);
  RUN(s_seq_if_evaluate);
  RUN(s_for);
  RUN(s_while);
  RUN(s_block);
  RUN(o_itervar);
  RUN(o_buffer);
  RUN(o_bufferregion);
  RUN(o_matchbuffer);
  RUN(o_primfunc);
  RUN(o_primfunc_ret_by_reflection);
  RUN(kinds);
  tir_release_temps();
  return test_summary();
}
