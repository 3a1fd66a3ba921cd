/* test_structural.c: structural equality (variable mapping, DAG sharing, first-mismatch access
 * paths), structural hashing and its consistency with equality, depth limits, globals. */
#include <math.h>
#include <stdlib.h>

#include "refl_test_types.h"

/* Equality with the mismatch paths formatted into the two strings (cleared first). */
static int seq_paths(void* a, void* b, bool mfv, tvm_ffi_strbuf* lp, tvm_ffi_strbuf* rp) {
  TVMFFIAny x = tvm_ffi_any_obj(a), y = tvm_ffi_any_obj(b);
  void *l = NULL, *r = NULL;
  int rc = tvm_ffi_structural_equal(&x, &y, mfv, &l, &r);
  lp->size = rp->size = 0;
  tvm_ffi_strbuf_puts(lp, "");
  tvm_ffi_strbuf_puts(rp, "");
  if (l) tvm_ffi_access_path_format(l, lp);
  if (r) tvm_ffi_access_path_format(r, rp);
  CHECK((rc == 0) == (l != NULL && r != NULL));
  tvm_ffi_release(l);
  tvm_ffi_release(r);
  return rc;
}

static int any_eq(TVMFFIAny a, TVMFFIAny b) {
  return tvm_ffi_structural_equal(&a, &b, false, NULL, NULL);
}
static uint64_t any_hash(TVMFFIAny a) { return tvm_ffi_structural_hash(&a, false); }

TEST(alpha_equivalent_functions) {
  register_test_types();
  /* fn(x, y) { x + (y + 1) }  vs  fn(a, b) { a + (b + 1) } */
  void* x = var("x");
  void* y = var("y");
  void* f1 = func2(ref(x), ref(y), O(add(O(x), O(add(O(y), I(1))))));
  void* a = var("a");
  void* b = var("b");
  void* f2 = func2(ref(a), ref(b), O(add(O(a), O(add(O(b), I(1))))));
  CHECK_EQ_INT(seq(f1, f2, false), 1);
  CHECK_EQ_INT(seq(f2, f1, false), 1);
  CHECK_EQ_INT(seq(f1, f1, false), 1);
  CHECK(shash(f1, false) == shash(f2, false));
  CHECK(shash(f1, true) == shash(f2, true));
  /* Hashes are deterministic for one value. */
  CHECK(shash(f1, false) == shash(f1, false));
  tvm_ffi_release(f1);
  tvm_ffi_release(f2);
}

TEST(different_variable_usage) {
  register_test_types();
  tvm_ffi_strbuf lp = {0}, rp = {0};
  /* fn(x, y) { x + y }  vs  fn(a, b) { b + a } */
  void* x = var("x");
  void* y = var("y");
  void* f1 = func2(ref(x), ref(y), O(add(O(x), O(y))));
  void* a = var("a");
  void* b = var("b");
  void* f2 = func2(ref(a), ref(b), O(add(O(b), O(a))));
  CHECK_EQ_INT(seq_paths(f1, f2, false, &lp, &rp), 0);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&lp), "<root>.body.a");
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&rp), "<root>.body.a");
  CHECK(shash(f1, false) != shash(f2, false));
  /* Parameter count differs: fn(x) { x } vs fn(x, y) { x } */
  void* p = var("p");
  void* g1 = func1(ref(p), O(p));
  void* q = var("q");
  void* g2 = func2(ref(q), var("r"), O(q));
  CHECK_EQ_INT(seq_paths(g1, g2, false, &lp, &rp), 0);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&lp), "<root>.params[1]<missing>");
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&rp), "<root>.params[1]");
  tvm_ffi_release(f1);
  tvm_ffi_release(f2);
  tvm_ffi_release(g1);
  tvm_ffi_release(g2);
  tvm_ffi_strbuf_free(&lp);
  tvm_ffi_strbuf_free(&rp);
}

TEST(free_variables) {
  register_test_types();
  void* x = var("x");
  void* y = var("y");
  void* e1 = add(O(ref(x)), I(1));
  void* e2 = add(O(ref(y)), I(1));
  void* e3 = add(O(ref(x)), I(1));
  /* Distinct free variables are equal only when free variables may be mapped. */
  CHECK_EQ_INT(seq(e1, e2, false), 0);
  CHECK_EQ_INT(seq(e1, e2, true), 1);
  CHECK(shash(e1, true) == shash(e2, true));
  /* The same free variable on both sides is equal either way. */
  CHECK_EQ_INT(seq(e1, e3, false), 1);
  CHECK(shash(e1, false) == shash(e3, false));
  /* The mapping is a bijection: x+x vs y+z and y+z vs x+x are unequal even when mapping. */
  void* z = var("z");
  void* xx = add(O(ref(x)), O(ref(x)));
  void* yz = add(O(ref(y)), O(ref(z)));
  void* zz = add(O(ref(z)), O(ref(z)));
  CHECK_EQ_INT(seq(xx, yz, true), 0);
  CHECK_EQ_INT(seq(yz, xx, true), 0);
  CHECK_EQ_INT(seq(xx, zz, true), 1);
  CHECK(shash(xx, true) == shash(zz, true));
  CHECK(shash(xx, true) != shash(yz, true));
  /* Variables with different dtypes never correspond; the path names the field. */
  void* xi = var_t("x", tvm_ffi_dtype(kDLInt, 32, 1));
  void* f1 = func1(ref(x), O(ref(x)));
  void* f2 = func1(ref(xi), O(ref(xi)));
  tvm_ffi_strbuf lp = {0}, rp = {0};
  CHECK_EQ_INT(seq_paths(f1, f2, false, &lp, &rp), 0);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&lp), "<root>.params[0].dtype");
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&rp), "<root>.params[0].dtype");
  CHECK(shash(f1, false) != shash(f2, false));
  /* name_hint is ignored (SEqHashIgnore). */
  void* renamed = var("completely_different_name");
  void* f3 = func1(ref(renamed), O(ref(renamed)));
  CHECK_EQ_INT(seq(f1, f3, false), 1);
  CHECK(shash(f1, false) == shash(f3, false));
  void* objs[] = {x, y, z, xi, renamed, e1, e2, e3, xx, yz, zz, f1, f2, f3};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  tvm_ffi_strbuf_free(&lp);
  tvm_ffi_strbuf_free(&rp);
}

TEST(let_binding_defines_variable) {
  register_test_types();
  /* let x = 1 in x + 2  vs  let y = 1 in y + 2 ; and vs let y = 1 in x + 2 (x free) */
  void* x = var("x");
  void* y = var("y");
  void* l1 = let(ref(x), I(1), O(add(O(ref(x)), I(2))));
  void* l2 = let(ref(y), I(1), O(add(O(ref(y)), I(2))));
  void* l3 = let(ref(y), I(1), O(add(O(ref(x)), I(2))));
  CHECK_EQ_INT(seq(l1, l2, false), 1);
  CHECK(shash(l1, false) == shash(l2, false));
  tvm_ffi_strbuf lp = {0}, rp = {0};
  CHECK_EQ_INT(seq_paths(l1, l3, false, &lp, &rp), 0);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&lp), "<root>.body.a");
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&rp), "<root>.body.a");
  void* objs[] = {x, y, l1, l2, l3};
  for (size_t i = 0; i < 5; ++i) tvm_ffi_release(objs[i]);
  tvm_ffi_strbuf_free(&lp);
  tvm_ffi_strbuf_free(&rp);
}

/* A variable with a type annotation that may hold other variables (a buffer's shape vars), and
 * two lets binding it: one through a recursive definition region, one through a
 * non-recursive one. */
typedef struct {
  TVMFFIObject header;
  TVMFFIAny ann;
} tvar_obj;
typedef struct {
  TVMFFIObject header;
  void* var;
  TVMFFIAny body;
} dlet_obj;
static int32_t g_tvar_t = -1, g_rlet_t, g_nlet_t;
static void register_def_region_types(void) {
  if (g_tvar_t >= 0) return;
  g_tvar_t = tvm_ffi_type_register("test.TVar", kTVMFFIObject, -1, sizeof(tvar_obj), NULL,
                                   kTVMFFISEqHashKindFreeVar);
  g_rlet_t = tvm_ffi_type_register("test.RLet", kTVMFFIObject, -1, sizeof(dlet_obj), NULL,
                                   kTVMFFISEqHashKindTreeNode);
  g_nlet_t = tvm_ffi_type_register("test.NLet", kTVMFFIObject, -1, sizeof(dlet_obj), NULL,
                                   kTVMFFISEqHashKindTreeNode);
  const tvm_ffi_field_def tvar_f[] = {TVM_FFI_FIELD(tvar_obj, ann, kTVMFFIAny, 0)};
  const tvm_ffi_field_def rlet_f[] = {
      TVM_FFI_FIELD(dlet_obj, var, g_tvar_t, kTVMFFIFieldFlagBitMaskSEqHashDefRecursive),
      TVM_FFI_FIELD(dlet_obj, body, kTVMFFIAny, 0)};
  const tvm_ffi_field_def nlet_f[] = {
      TVM_FFI_FIELD(dlet_obj, var, g_tvar_t, kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive),
      TVM_FFI_FIELD(dlet_obj, body, kTVMFFIAny, 0)};
  CHECK_OK(tvm_ffi_type_add_fields(g_tvar_t, tvar_f, 1));
  CHECK_OK(tvm_ffi_type_add_fields(g_rlet_t, rlet_f, 2));
  CHECK_OK(tvm_ffi_type_add_fields(g_nlet_t, nlet_f, 2));
}
static void* tvar(TVMFFIAny ann) {
  tvar_obj* v = (tvar_obj*)tvm_ffi_object_new(g_tvar_t, sizeof(tvar_obj));
  v->ann = ann;
  return v;
}
/* let v in v, through the given let type; v is consumed. */
static void* dlet(int32_t type, void* v) {
  dlet_obj* l = (dlet_obj*)tvm_ffi_object_new(type, sizeof(dlet_obj));
  l->var = v;
  l->body = tvm_ffi_any_obj(ref(v));
  return l;
}

TEST(recursive_and_non_recursive_definition_regions) {
  register_test_types();
  register_def_region_types();
  _Static_assert(kTVMFFIFieldFlagBitMaskSEqHashDef == kTVMFFIFieldFlagBitMaskSEqHashDefRecursive,
                 "old name of the recursive flag");
  void* n = var("n");
  void* m = var("m");
  /* x: T[n] and y: T[m] (distinct shape variables), z: T[n] (the same one as x). */
  void* rx = dlet(g_rlet_t, tvar(O(ref(n))));
  void* ry = dlet(g_rlet_t, tvar(O(ref(m))));
  void* nx = dlet(g_nlet_t, tvar(O(ref(n))));
  void* ny = dlet(g_nlet_t, tvar(O(ref(m))));
  void* nz = dlet(g_nlet_t, tvar(O(ref(n))));
  /* Recursive: n and m are defined along with x and y. */
  CHECK_EQ_INT(seq(rx, ry, false), 1);
  CHECK(shash(rx, false) == shash(ry, false));
  /* Non-recursive: x and y are defined, but their annotations use n and m, which differ. */
  CHECK_EQ_INT(seq(nx, ny, false), 0);
  CHECK(shash(nx, false) != shash(ny, false));
  /* ... and the same n is a use on both sides, so x: T[n] and z: T[n] are defined equal. */
  CHECK_EQ_INT(seq(nx, nz, false), 1);
  CHECK(shash(nx, false) == shash(nz, false));
  /* With free variables mapped everywhere, the non-recursive lets are equal again. */
  CHECK_EQ_INT(seq(nx, ny, true), 1);
  CHECK(shash(nx, true) == shash(ny, true));
  void* objs[] = {n, m, rx, ry, nx, ny, nz};
  for (size_t i = 0; i < 7; ++i) tvm_ffi_release(objs[i]);
}

TEST(nested_value_mismatch_path) {
  register_test_types();
  tvm_ffi_strbuf lp = {0}, rp = {0};
  void* x = var("x");
  void* y = var("y");
  void* f1 = func1(ref(x), O(add(O(add(O(x), I(1))), I(2))));
  void* f2 = func1(ref(y), O(add(O(add(O(y), I(3))), I(2))));
  CHECK_EQ_INT(seq_paths(f1, f2, false, &lp, &rp), 0);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&lp), "<root>.body.a.b");
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&rp), "<root>.body.a.b");
  /* The global returns the same two paths. */
  TVMFFIAny args[2] = {tvm_ffi_any_obj(f1), tvm_ffi_any_obj(f2)}, r;
  CHECK_OK(tvm_ffi_global_call("ffi.GetFirstStructuralMismatch", args, 2, &r));
  CHECK(r.type_index == kTVMFFIArray && tvm_ffi_seq_size(r.v_obj) == 2);
  if (r.type_index == kTVMFFIArray) {
    CHECK_STR_EQ(path_str(tvm_ffi_seq_obj_at(r.v_obj, 1), &lp), "<root>.body.a.b");
  }
  tvm_ffi_any_release(&r);
  CHECK_OK(tvm_ffi_global_call("ffi.GetFirstStructuralMismatch", args, 1 + 1, &r));
  tvm_ffi_any_release(&r);
  args[1] = tvm_ffi_any_obj(f1);
  CHECK_OK(tvm_ffi_global_call("ffi.GetFirstStructuralMismatch", args, 2, &r));
  CHECK(r.type_index == kTVMFFINone);
  tvm_ffi_release(f1);
  tvm_ffi_release(f2);
  tvm_ffi_strbuf_free(&lp);
  tvm_ffi_strbuf_free(&rp);
}

TEST(arrays) {
  register_test_types();
  tvm_ffi_strbuf lp = {0}, rp = {0};
  TVMFFIAny i3[3] = {I(1), I(2), I(3)}, i2[2] = {I(1), I(2)}, j3[3] = {I(1), I(2), I(4)};
  void* a3 = arr(i3, 3);
  void* a2 = arr(i2, 2);
  void* b3 = arr(j3, 3);
  CHECK_EQ_INT(seq_paths(a3, a2, false, &lp, &rp), 0);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&lp), "<root>[2]");
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&rp), "<root>[2]<missing>");
  CHECK_EQ_INT(seq_paths(a2, a3, false, &lp, &rp), 0);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&lp), "<root>[2]<missing>");
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&rp), "<root>[2]");
  CHECK_EQ_INT(seq_paths(a3, b3, false, &lp, &rp), 0);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&lp), "<root>[2]");
  CHECK_EQ_INT(seq(a3, a2, false), 0);
  /* Array vs List with the same items: different types. */
  void* l = tvm_ffi_list_new();
  for (int i = 1; i <= 3; ++i) {
    TVMFFIAny v = I(i);
    CHECK_OK(tvm_ffi_list_push(l, &v));
  }
  CHECK_EQ_INT(seq(a3, l, false), 0);
  void* l2 = tvm_ffi_list_to_array(l);
  CHECK_EQ_INT(seq(a3, l2, false), 1);
  CHECK(shash(a3, false) == shash(l2, false));
  CHECK(shash(a3, false) != shash(a2, false));
  CHECK(shash(a3, false) != shash(l, false));
  /* Shapes compare by dims, with item paths. */
  int64_t d1[] = {2, 3, 4}, d2[] = {2, 5, 4};
  void* s1 = tvm_ffi_shape_new(d1, 3);
  void* s2 = tvm_ffi_shape_new(d2, 3);
  void* s3 = tvm_ffi_shape_new(d1, 3);
  CHECK_EQ_INT(seq(s1, s3, false), 1);
  CHECK(shash(s1, false) == shash(s3, false));
  CHECK_EQ_INT(seq_paths(s1, s2, false, &lp, &rp), 0);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&lp), "<root>[1]");
  void* objs[] = {a3, a2, b3, l, l2, s1, s2, s3};
  for (size_t i = 0; i < 8; ++i) tvm_ffi_release(objs[i]);
  tvm_ffi_strbuf_free(&lp);
  tvm_ffi_strbuf_free(&rp);
}

static void* str_map(const char** keys, const int64_t* vals, int64_t n) {
  TVMFFIAny k[8], v[8];
  for (int64_t i = 0; i < n; ++i) {
    k[i] = tvm_ffi_string(keys[i]);
    v[i] = I(vals[i]);
  }
  void* m = tvm_ffi_map_new(k, v, n);
  for (int64_t i = 0; i < n; ++i) tvm_ffi_any_release(&k[i]);
  return m;
}

TEST(maps) {
  register_test_types();
  tvm_ffi_strbuf lp = {0}, rp = {0};
  const char* ab[] = {"a", "b"};
  const char* ba[] = {"b", "a"};
  const char* ac[] = {"a", "c"};
  const char* a_[] = {"a"};
  int64_t v12[] = {1, 2}, v21[] = {2, 1}, v13[] = {1, 3};
  void* m1 = str_map(ab, v12, 2);
  void* m2 = str_map(ba, v21, 2); /* same items, other insertion order */
  void* m3 = str_map(ab, v13, 2);
  void* m4 = str_map(ac, v12, 2);
  void* m5 = str_map(a_, v12, 1);
  CHECK_EQ_INT(seq(m1, m2, false), 1);
  CHECK(shash(m1, false) == shash(m2, false));
  CHECK_EQ_INT(seq_paths(m1, m3, false, &lp, &rp), 0);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&lp), "<root>[\"b\"]");
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&rp), "<root>[\"b\"]");
  CHECK(shash(m1, false) != shash(m3, false));
  CHECK_EQ_INT(seq_paths(m1, m4, false, &lp, &rp), 0);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&lp), "<root>[\"b\"]");
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&rp), "<root>[\"b\"]<missing>");
  CHECK_EQ_INT(seq_paths(m5, m1, false, &lp, &rp), 0);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&lp), "<root>[\"b\"]<missing>");
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&rp), "<root>[\"b\"]");
  CHECK_EQ_INT(seq(m1, m5, false), 0);
  /* Map vs Dict are different types; a Dict compares like a Map. */
  void* d = tvm_ffi_dict_new();
  void* d2 = tvm_ffi_dict_new();
  for (int i = 0; i < 2; ++i) {
    TVMFFIAny k = tvm_ffi_string(ab[i]), v = I(v12[i]);
    CHECK_OK(tvm_ffi_dict_set(d, &k, &v));
    TVMFFIAny k2 = tvm_ffi_string(ba[i]), v2 = I(v21[i]);
    CHECK_OK(tvm_ffi_dict_set(d2, &k2, &v2));
  }
  CHECK_EQ_INT(seq(m1, d, false), 0);
  CHECK_EQ_INT(seq(d, d2, false), 1);
  CHECK(shash(d, false) == shash(d2, false));
  /* Variable keys match through the variable mapping: fn(x) { {x: 1} } vs fn(y) { {y: 1} }. */
  void* x = var("x");
  void* y = var("y");
  TVMFFIAny kx = tvm_ffi_any_obj(x), ky = tvm_ffi_any_obj(y), one = I(1);
  void* f1 = func1(ref(x), O(tvm_ffi_map_new(&kx, &one, 1)));
  void* f2 = func1(ref(y), O(tvm_ffi_map_new(&ky, &one, 1)));
  CHECK_EQ_INT(seq(f1, f2, false), 1);
  CHECK(shash(f1, false) == shash(f2, false));
  void* f3 = func1(ref(y), O(tvm_ffi_map_new(&kx, &one, 1))); /* x is free here */
  CHECK_EQ_INT(seq(f1, f3, false), 0);
  void* objs[] = {m1, m2, m3, m4, m5, d, d2, x, y, f1, f2, f3};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  tvm_ffi_strbuf_free(&lp);
  tvm_ffi_strbuf_free(&rp);
}

TEST(strings_and_pod) {
  register_test_types();
  TVMFFIAny small = tvm_ffi_string("abc");
  TVMFFIAny boxed = tvm_ffi_any_obj(tvm_ffi_str_obj("abc", 3));
  TVMFFIAny raw = tvm_ffi_any_raw_str("abc");
  TVMFFIAny bytes = tvm_ffi_bytes_n("abc", 3);
  TVMFFIAny long1 = tvm_ffi_string("abcdefghijk"), long2 = tvm_ffi_string("abcdefghijX");
  CHECK_EQ_INT(any_eq(small, boxed), 1);
  CHECK_EQ_INT(any_eq(raw, boxed), 1);
  CHECK(any_hash(small) == any_hash(boxed));
  CHECK(any_hash(raw) == any_hash(boxed));
  CHECK_EQ_INT(any_eq(small, bytes), 0);
  CHECK(any_hash(small) != any_hash(bytes));
  CHECK_EQ_INT(any_eq(long1, long2), 0);
  CHECK(any_hash(long1) != any_hash(long2));
  /* int vs bool, float edge cases */
  CHECK_EQ_INT(any_eq(I(1), tvm_ffi_any_bool(true)), 0);
  CHECK_EQ_INT(any_eq(I(7), I(7)), 1);
  CHECK_EQ_INT(any_eq(tvm_ffi_any_float(NAN), tvm_ffi_any_float(-NAN)), 1);
  CHECK(any_hash(tvm_ffi_any_float(NAN)) == any_hash(tvm_ffi_any_float(-NAN)));
  CHECK_EQ_INT(any_eq(tvm_ffi_any_float(0.0), tvm_ffi_any_float(-0.0)), 0);
  CHECK_EQ_INT(any_eq(tvm_ffi_any_float(1.5), tvm_ffi_any_float(1.5)), 1);
  CHECK_EQ_INT(any_eq(tvm_ffi_any_float(1.0), I(1)), 0);
  CHECK_EQ_INT(any_eq(tvm_ffi_any_none(), tvm_ffi_any_none()), 1);
  CHECK_EQ_INT(any_eq(tvm_ffi_any_dtype(tvm_ffi_dtype(kDLFloat, 16, 1)),
                      tvm_ffi_any_dtype(tvm_ffi_dtype(kDLFloat, 16, 1))),
               1);
  CHECK_EQ_INT(any_eq(tvm_ffi_any_dtype(tvm_ffi_dtype(kDLFloat, 16, 1)),
                      tvm_ffi_any_dtype(tvm_ffi_dtype(kDLBfloat, 16, 1))),
               0);
  CHECK_EQ_INT(any_eq(tvm_ffi_any_device(TVMFFIDLDeviceFromIntPair(2, 0)),
                      tvm_ffi_any_device(TVMFFIDLDeviceFromIntPair(2, 1))),
               0);
  tvm_ffi_any_release(&boxed);
  tvm_ffi_any_release(&bytes);
  tvm_ffi_any_release(&long1);
  tvm_ffi_any_release(&long2);
}

TEST(dag_sharing) {
  register_test_types();
  /* [n, n] vs [n1, n2]: DAG nodes must be shared alike; tree nodes need not. */
  void* n = dag(I(1));
  void* n1 = dag(I(1));
  void* n2 = dag(I(1));
  void* m = dag(I(1));
  TVMFFIAny nn[2] = {O(ref(n)), O(ref(n))}, n12[2] = {O(ref(n1)), O(ref(n2))},
            mm[2] = {O(ref(m)), O(ref(m))};
  void* a_nn = arr(nn, 2);
  void* a_n12 = arr(n12, 2);
  void* a_mm = arr(mm, 2);
  tvm_ffi_strbuf lp = {0}, rp = {0};
  CHECK_EQ_INT(seq_paths(a_nn, a_n12, false, &lp, &rp), 0);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&lp), "<root>[1]");
  CHECK_EQ_INT(seq(a_n12, a_nn, false), 0);
  CHECK_EQ_INT(seq(a_nn, a_mm, false), 1);
  CHECK(shash(a_nn, false) == shash(a_mm, false));
  CHECK(shash(a_nn, false) != shash(a_n12, false));
  /* Tree nodes: sharing does not matter. */
  void* t = add(I(1), I(2));
  TVMFFIAny tt[2] = {O(ref(t)), O(ref(t))}, t12[2] = {O(add(I(1), I(2))), O(add(I(1), I(2)))};
  void* a_tt = arr(tt, 2);
  void* a_t12 = arr(t12, 2);
  CHECK_EQ_INT(seq(a_tt, a_t12, false), 1);
  CHECK(shash(a_tt, false) == shash(a_t12, false));
  void* objs[] = {n, n1, n2, m, a_nn, a_n12, a_mm, t, a_tt, a_t12};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  tvm_ffi_strbuf_free(&lp);
  tvm_ffi_strbuf_free(&rp);
}

/* ---- Random trees: equal trees hash equal ----------------------------------------------- */
static uint64_t g_rng;
static uint32_t rnd(void) {
  g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(g_rng >> 33);
}

/* A random expression over the bound variables vars[0..nv) (borrowed). Same seed, same
 * shape; `perturb` changes one leaf when it reaches 0. */
static TVMFFIAny gen(int depth, void** vars, int nv, int* perturb) {
  uint32_t r = rnd() % 10;
  if (depth == 0 || r < 3) {
    uint32_t leaf = rnd() % 4;
    int64_t value = rnd() % 5;
    if (--*perturb == 0) value += 100;
    if (leaf == 0 && nv > 0) return O(ref(vars[rnd() % (uint32_t)nv]));
    if (leaf == 1) return tvm_ffi_string(value % 2 ? "leaf" : "another leaf string");
    if (leaf == 2) return tvm_ffi_any_float((double)value / 4);
    return I(value);
  }
  if (r < 6) {
    TVMFFIAny a = gen(depth - 1, vars, nv, perturb);
    return O(add(a, gen(depth - 1, vars, nv, perturb)));
  }
  if (r < 8 && nv < 8) {
    void* v = var("v");
    vars[nv] = v;
    TVMFFIAny value = gen(depth - 1, vars, nv, perturb);
    TVMFFIAny body = gen(depth - 1, vars, nv + 1, perturb);
    return O(let(v, value, body));
  }
  TVMFFIAny items[3];
  int n = (int)(rnd() % 3) + 1;
  for (int i = 0; i < n; ++i) items[i] = gen(depth - 1, vars, nv, perturb);
  return O(arr(items, n));
}

TEST(random_trees_hash_consistency) {
  register_test_types();
  int equal_pairs = 0, distinct_hashes = 0, unequal_pairs = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    void* vars[8];
    int no = -1;
    g_rng = seed;
    TVMFFIAny t1 = gen(6, vars, 0, &no);
    g_rng = seed;
    TVMFFIAny t2 = gen(6, vars, 0, &no); /* same shape, fresh variables */
    int k = 3;
    g_rng = seed;
    TVMFFIAny t3 = gen(6, vars, 0, &k); /* one leaf changed (if it has three leaves) */
    TVMFFIAny w[2] = {tvm_ffi_any_copy(&t1), tvm_ffi_any_copy(&t2)};
    void* wrap = arr(w, 2); /* shares subtrees across both halves */
    CHECK_EQ_INT(tvm_ffi_structural_equal(&t1, &t2, false, NULL, NULL), 1);
    CHECK(tvm_ffi_structural_hash(&t1, false) == tvm_ffi_structural_hash(&t2, false));
    CHECK(tvm_ffi_structural_hash(&t1, true) == tvm_ffi_structural_hash(&t2, true));
    CHECK_EQ_INT(seq(wrap, wrap, false), 1);
    equal_pairs++;
    if (k <= 0) {
      int r = tvm_ffi_structural_equal(&t1, &t3, false, NULL, NULL);
      if (r == 0) {
        unequal_pairs++;
        distinct_hashes +=
            tvm_ffi_structural_hash(&t1, false) != tvm_ffi_structural_hash(&t3, false);
      }
    }
    tvm_ffi_any_release(&t1);
    tvm_ffi_any_release(&t2);
    tvm_ffi_any_release(&t3);
    tvm_ffi_release(wrap);
  }
  CHECK_EQ_INT(equal_pairs, 200);
  CHECK(unequal_pairs > 50);
  CHECK_EQ_INT(distinct_hashes, unequal_pairs);
}

TEST(depth_limit_and_cycles) {
  register_test_types();
  /* A list containing itself: equality with another such list and hashing raise instead of
   * overflowing the stack; the list is equal to itself (the same object, not walked). */
  void* l = tvm_ffi_list_new();
  void* l2 = tvm_ffi_list_new();
  TVMFFIAny self = tvm_ffi_any_obj(l), other = tvm_ffi_any_obj(l2);
  CHECK_OK(tvm_ffi_list_push(l, &self));
  CHECK_OK(tvm_ffi_list_push(l2, &other));
  CHECK_EQ_INT(tvm_ffi_structural_equal(&self, &other, false, NULL, NULL), -1);
  CHECK_RAISED("RuntimeError", "deeper than 10000");
  CHECK_EQ_INT(tvm_ffi_structural_equal(&self, &self, false, NULL, NULL), 1);
  tvm_ffi_list_clear(l2);
  tvm_ffi_release(l2);
  uint64_t h = 1;
  CHECK_EQ_INT(tvm_ffi_structural_hash_checked(&self, false, &h), -1);
  CHECK_RAISED("RuntimeError", "structural hash");
  CHECK(h == 0);
  CHECK(tvm_ffi_structural_hash(&self, false) == 0);
  CHECK_RAISED("RuntimeError", "deeper");
  tvm_ffi_list_clear(l); /* break the cycle */
  tvm_ffi_release(l);
  /* Deep but within the limit works. */
  TVMFFIAny e = I(0);
  for (int i = 0; i < 5000; ++i) e = O(add(e, I(i)));
  TVMFFIAny f = I(0);
  for (int i = 0; i < 5000; ++i) f = O(add(f, I(i)));
  CHECK_EQ_INT(tvm_ffi_structural_equal(&e, &f, false, NULL, NULL), 1);
  CHECK(tvm_ffi_structural_hash(&e, false) == tvm_ffi_structural_hash(&f, false));
  /* Past the limit raises (the same value wrapped twice more than allowed). */
  TVMFFIAny g = tvm_ffi_any_copy(&e);
  for (int i = 0; i < 6000; ++i) g = O(add(g, I(i)));
  TVMFFIAny g2 = tvm_ffi_any_copy(&f);
  for (int i = 0; i < 6000; ++i) g2 = O(add(g2, I(i)));
  CHECK_EQ_INT(tvm_ffi_structural_equal(&g, &g2, false, NULL, NULL), -1);
  CHECK_RAISED("RuntimeError", "structural equality");
  /* Release the deep chains from the top, one level at a time, to keep the test itself from
   * recursing 11000 levels deep in the destructor. */
  TVMFFIAny* chains[] = {&e, &f, &g, &g2};
  for (int c = 0; c < 4; ++c) {
    TVMFFIAny cur = *chains[c];
    while (cur.type_index == g_add_t) {
      add_obj* a = (add_obj*)cur.v_obj;
      TVMFFIAny next = tvm_ffi_any_copy(&a->a);
      tvm_ffi_any_release(&cur);
      cur = next;
    }
    tvm_ffi_any_release(&cur);
  }
}

TEST(unique_and_unsupported_kinds) {
  register_test_types();
  /* Functions are UniqueInstance: equal only to themselves. */
  void* fn1 = tvm_ffi_global_get("ffi.StructuralEqual");
  void* fn2 = tvm_ffi_global_get("ffi.StructuralHash");
  CHECK_EQ_INT(seq(fn1, fn1, false), 1);
  CHECK_EQ_INT(seq(fn1, fn2, false), 0);
  CHECK(shash(fn1, false) == shash(fn1, false));
  /* A type registered with kind Unsupported compares by identity too. */
  int32_t t = tvm_ffi_type_find("test.Unsupported");
  void* u1 = tvm_ffi_object_new(t, sizeof(add_obj));
  void* u2 = tvm_ffi_object_new(t, sizeof(add_obj));
  CHECK_EQ_INT(seq(u1, u1, false), 1);
  CHECK_EQ_INT(seq(u1, u2, false), 0);
  tvm_ffi_release(fn1);
  tvm_ffi_release(fn2);
  tvm_ffi_release(u1);
  tvm_ffi_release(u2);
}

static void* cpu_tensor_i32(const int32_t* data, int64_t n) {
  int64_t shape[1] = {n};
  void* t = tvm_ffi_tensor_empty(shape, 1, tvm_ffi_dtype(kDLInt, 32, 1),
                                 TVMFFIDLDeviceFromIntPair(kDLCPU, 0));
  if (t) memcpy(tvm_ffi_tensor_dl(t)->data, data, (size_t)n * sizeof(int32_t));
  return t;
}

TEST(tensors) {
  register_test_types();
  int32_t d1[6] = {1, 2, 3, 4, 5, 6}, d2[6] = {1, 2, 3, 4, 5, 7}, even[3] = {1, 3, 5};
  void* a = cpu_tensor_i32(d1, 6);
  void* b = cpu_tensor_i32(d1, 6);
  void* c = cpu_tensor_i32(d2, 6);
  void* e = cpu_tensor_i32(even, 3);
  CHECK(a && b && c && e);
  if (a && b && c && e) {
    CHECK_EQ_INT(seq(a, b, false), 1);
    CHECK(shash(a, false) == shash(b, false));
    CHECK_EQ_INT(seq(a, c, false), 0);
    CHECK(shash(a, false) != shash(c, false));
    /* A strided view (every other element) equals a compact tensor with the same items. */
    int64_t shape[1] = {3}, strides[1] = {2};
    void* v = tvm_ffi_tensor_view(a, shape, 1, strides, 0, tvm_ffi_dtype(kDLInt, 32, 1));
    CHECK(v != NULL);
    if (v) {
      CHECK_EQ_INT(seq(v, e, false), 1);
      CHECK_EQ_INT(seq(e, v, false), 1);
      CHECK(shash(v, false) == shash(e, false));
      tvm_ffi_release(v);
    }
    /* skip_tensor_content through the global: shapes and dtypes only. */
    TVMFFIAny args[4] = {tvm_ffi_any_obj(a), tvm_ffi_any_obj(c), tvm_ffi_any_bool(false),
                         tvm_ffi_any_bool(true)},
              r;
    CHECK_OK(tvm_ffi_global_call("ffi.StructuralEqual", args, 4, &r));
    CHECK(r.type_index == kTVMFFIBool && r.v_int64 == 1);
    CHECK_OK(tvm_ffi_global_call("ffi.StructuralEqual", args, 2, &r));
    CHECK(r.type_index == kTVMFFIBool && r.v_int64 == 0);
  }
  tvm_ffi_release(a);
  tvm_ffi_release(b);
  tvm_ffi_release(c);
  tvm_ffi_release(e);
}

TEST(globals) {
  register_test_types();
  void* x = var("x");
  void* y = var("y");
  void* e1 = add(O(ref(x)), I(1));
  void* e2 = add(O(ref(y)), I(1));
  TVMFFIAny args[3] = {tvm_ffi_any_obj(e1), tvm_ffi_any_obj(e2), tvm_ffi_any_bool(true)}, r;
  CHECK_OK(tvm_ffi_global_call("ffi.StructuralEqual", args, 2, &r));
  CHECK(r.type_index == kTVMFFIBool && r.v_int64 == 0);
  CHECK_OK(tvm_ffi_global_call("ffi.StructuralEqual", args, 3, &r));
  CHECK(r.type_index == kTVMFFIBool && r.v_int64 == 1);
  TVMFFIAny h1, h2;
  TVMFFIAny hargs1[2] = {tvm_ffi_any_obj(e1), tvm_ffi_any_bool(true)};
  TVMFFIAny hargs2[2] = {tvm_ffi_any_obj(e2), tvm_ffi_any_bool(true)};
  CHECK_OK(tvm_ffi_global_call("ffi.StructuralHash", hargs1, 2, &h1));
  CHECK_OK(tvm_ffi_global_call("ffi.StructuralHash", hargs2, 2, &h2));
  CHECK(h1.type_index == kTVMFFIInt && h1.v_int64 == h2.v_int64);
  CHECK((uint64_t)h1.v_int64 == shash(e1, true));
  /* Bad arguments raise TypeErrors. */
  CHECK(tvm_ffi_global_call("ffi.StructuralEqual", args, 1, &r) != 0);
  CHECK_RAISED("TypeError", "expects 2 to 4 arguments");
  TVMFFIAny bad[3] = {tvm_ffi_any_obj(e1), tvm_ffi_any_obj(e2), tvm_ffi_string("no")};
  CHECK(tvm_ffi_global_call("ffi.StructuralEqual", bad, 3, &r) != 0);
  CHECK_RAISED("TypeError", "argument #2");
  tvm_ffi_release(x);
  tvm_ffi_release(y);
  tvm_ffi_release(e1);
  tvm_ffi_release(e2);
}

/* A type with kind Unsupported (registered up front, see main). */
static void register_unsupported_type(void) {
  int32_t t = tvm_ffi_type_register("test.Unsupported", kTVMFFIObject, -1, sizeof(add_obj), NULL,
                                    kTVMFFISEqHashKindUnsupported);
  const tvm_ffi_field_def f[] = {TVM_FFI_FIELD(add_obj, a, kTVMFFIAny, 0)};
  CHECK_OK(tvm_ffi_type_add_fields(t, f, 1));
}

int main(void) {
  /* Types are registered before any test runs: reflection caches are rebuilt (and the old
   * ones kept alive for concurrent readers) whenever fields are added later. */
  register_test_types();
  register_unsupported_type();
  RUN(alpha_equivalent_functions);
  RUN(different_variable_usage);
  RUN(free_variables);
  RUN(let_binding_defines_variable);
  RUN(recursive_and_non_recursive_definition_regions);
  RUN(nested_value_mismatch_path);
  RUN(arrays);
  RUN(maps);
  RUN(strings_and_pod);
  RUN(dag_sharing);
  RUN(random_trees_hash_consistency);
  RUN(depth_limit_and_cycles);
  RUN(unique_and_unsupported_kinds);
  RUN(tensors);
  RUN(globals);
  return test_summary();
}
