/* test_reflection.c: reflected fields as the generic algorithms see them: inheritance order,
 * lookup, typed get/set (TypeErrors for mismatches), and structural equality / JSON over
 * inherited fields. */
#include "refl_test_types.h"

typedef struct {
  TVMFFIObject header;
  int64_t x;
  void* label; /* ffi.String */
} base_obj;

typedef struct {
  base_obj base;
  TVMFFIAny y;
} derived_obj;

static int32_t g_base_t, g_derived_t;

static void register_hierarchy(void) {
  g_base_t = tvm_ffi_type_register("test.Base", kTVMFFIObject, -1, sizeof(base_obj), NULL,
                                   kTVMFFISEqHashKindTreeNode);
  g_derived_t = tvm_ffi_type_register("test.Derived", g_base_t, -1, sizeof(derived_obj), NULL,
                                      kTVMFFISEqHashKindTreeNode);
  const tvm_ffi_field_def bf[] = {TVM_FFI_FIELD(base_obj, x, kTVMFFIInt, 0),
                                  TVM_FFI_FIELD(base_obj, label, kTVMFFIStr, 0)};
  const tvm_ffi_field_def df[] = {TVM_FFI_FIELD(derived_obj, y, kTVMFFIAny, 0)};
  CHECK_OK(tvm_ffi_type_add_fields(g_base_t, bf, 2));
  CHECK_OK(tvm_ffi_type_add_fields(g_derived_t, df, 1));
}

static derived_obj* derived_new(int64_t x, const char* label, TVMFFIAny y_take) {
  derived_obj* d = (derived_obj*)tvm_ffi_object_new(g_derived_t, sizeof(derived_obj));
  d->base.x = x;
  d->base.label = tvm_ffi_str_obj(label, strlen(label));
  d->y = y_take;
  return d;
}

TEST(field_order_and_lookup) {
  const TVMFFIFieldInfo* const* fields;
  int32_t n = tvm_ffi_type_all_fields(g_derived_t, &fields);
  CHECK_EQ_INT(n, 3);
  if (n == 3) {
    CHECK_STR_EQ(fields[0]->name.data, "x"); /* ancestors first */
    CHECK_STR_EQ(fields[1]->name.data, "label");
    CHECK_STR_EQ(fields[2]->name.data, "y");
  }
  CHECK_EQ_INT(tvm_ffi_type_all_fields(g_base_t, &fields), 2);
  CHECK(tvm_ffi_type_find_field(g_derived_t, "x") != NULL);
  CHECK(tvm_ffi_type_find_field(g_base_t, "y") == NULL);
  CHECK(tvm_ffi_type_find_field(g_derived_t, "nope") == NULL);
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(g_derived_t);
  CHECK(info && info->metadata &&
        info->metadata->structural_eq_hash_kind == kTVMFFISEqHashKindTreeNode);
  CHECK(info && info->type_ancestors[info->type_depth - 1]->type_index == g_base_t);
}

TEST(get_returns_owned_values) {
  derived_obj* d = derived_new(5, "lbl", tvm_ffi_string("a value longer than seven"));
  const TVMFFIFieldInfo* label = tvm_ffi_type_find_field(g_derived_t, "label");
  const TVMFFIFieldInfo* y = tvm_ffi_type_find_field(g_derived_t, "y");
  const TVMFFIFieldInfo* x = tvm_ffi_type_find_field(g_derived_t, "x");
  TVMFFIAny v;
  CHECK_OK(tvm_ffi_field_get(d, label, &v));
  CHECK(v.type_index == kTVMFFIStr && v.v_obj == d->base.label);
  CHECK_EQ_INT(tvm_ffi_strong_count(d->base.label), 2);
  tvm_ffi_any_release(&v);
  CHECK_EQ_INT(tvm_ffi_strong_count(d->base.label), 1);
  CHECK_OK(tvm_ffi_field_get(d, y, &v));
  CHECK(v.type_index == kTVMFFIStr && tvm_ffi_strong_count(v.v_obj) == 2);
  tvm_ffi_any_release(&v);
  CHECK_OK(tvm_ffi_field_get(d, x, &v));
  CHECK(v.type_index == kTVMFFIInt && v.v_int64 == 5);
  tvm_ffi_release(d);
}

TEST(set_type_checks) {
  let_obj* l = (let_obj*)tvm_ffi_object_new(g_let_t, sizeof(let_obj));
  pod_obj* p = (pod_obj*)tvm_ffi_object_new(g_pod_t, sizeof(pod_obj));
  const TVMFFIFieldInfo* fvar = tvm_ffi_type_find_field(g_let_t, "var");
  const TVMFFIFieldInfo* fvalue = tvm_ffi_type_find_field(g_let_t, "value");
  TVMFFIAny v;
  /* An object field checks the object's type. */
  void* a = tvm_ffi_array_new(NULL, 0);
  v = tvm_ffi_any_obj(a);
  CHECK(tvm_ffi_field_set(l, fvar, &v) != 0);
  CHECK_RAISED("TypeError", "field `var` expects test.Var, got ffi.Array");
  v = tvm_ffi_any_int(3);
  CHECK(tvm_ffi_field_set(l, fvar, &v) != 0);
  CHECK_RAISED("TypeError", "expected an object, got int");
  void* x = var("x");
  v = tvm_ffi_any_obj(x);
  CHECK_OK(tvm_ffi_field_set(l, fvar, &v));
  CHECK(l->var == x && tvm_ffi_strong_count(x) == 2);
  v = tvm_ffi_any_none(); /* object fields are nullable */
  CHECK_OK(tvm_ffi_field_set(l, fvar, &v));
  CHECK(l->var == NULL && tvm_ffi_strong_count(x) == 1);
  /* An Any field takes anything, owning views (a raw C string becomes a String). */
  v = tvm_ffi_any_raw_str("a raw C string view");
  CHECK_OK(tvm_ffi_field_set(l, fvalue, &v));
  CHECK(l->value.type_index == kTVMFFIStr);
  /* POD fields. */
  const TVMFFIFieldInfo* flag = tvm_ffi_type_find_field(g_pod_t, "flag");
  const TVMFFIFieldInfo* i32 = tvm_ffi_type_find_field(g_pod_t, "i32");
  const TVMFFIFieldInfo* f64 = tvm_ffi_type_find_field(g_pod_t, "f64");
  const TVMFFIFieldInfo* dt = tvm_ffi_type_find_field(g_pod_t, "dt");
  const TVMFFIFieldInfo* dev = tvm_ffi_type_find_field(g_pod_t, "dev");
  const TVMFFIFieldInfo* str = tvm_ffi_type_find_field(g_pod_t, "str");
  v = tvm_ffi_string("12");
  CHECK(tvm_ffi_field_set(p, i32, &v) != 0);
  CHECK_RAISED("TypeError", "expected an int, got ffi.String");
  v = tvm_ffi_any_float(1.0);
  CHECK(tvm_ffi_field_set(p, flag, &v) != 0);
  CHECK_RAISED("TypeError", "expected a bool, got float");
  v = tvm_ffi_any_obj(a);
  CHECK(tvm_ffi_field_set(p, f64, &v) != 0);
  CHECK_RAISED("TypeError", "expected a float, got ffi.Array");
  v = tvm_ffi_any_int(2);
  CHECK_OK(tvm_ffi_field_set(p, f64, &v)); /* ints widen to floats */
  CHECK(p->f64 == 2.0);
  v = tvm_ffi_string("int8x4");
  CHECK_OK(tvm_ffi_field_set(p, dt, &v)); /* dtype strings parse */
  CHECK(tvm_ffi_dtype_equal(p->dt, tvm_ffi_dtype(kDLInt, 8, 4)));
  v = tvm_ffi_string("notatype");
  CHECK(tvm_ffi_field_set(p, dt, &v) != 0);
  CHECK(tvm_ffi_error_pending());
  tvm_ffi_error_clear();
  tvm_ffi_any_release(&v);
  v = tvm_ffi_any_int(1);
  CHECK(tvm_ffi_field_set(p, dt, &v) != 0);
  CHECK_RAISED("TypeError", "expected a DataType, got int");
  CHECK(tvm_ffi_field_set(p, dev, &v) != 0);
  CHECK_RAISED("TypeError", "expected a Device, got int");
  v = tvm_ffi_string("hi"); /* a small string is boxed into the String field */
  CHECK_OK(tvm_ffi_field_set(p, str, &v));
  CHECK(p->str && tvm_ffi_type_index(p->str) == kTVMFFIStr);
  CHECK_STR_EQ(tvm_ffi_str_cstr(p->str), "hi");
  v = tvm_ffi_any_obj(x);
  CHECK(tvm_ffi_field_set(p, str, &v) != 0);
  CHECK_RAISED("TypeError", "field `str` expects ffi.String, got test.Var");
  tvm_ffi_release(a);
  tvm_ffi_release(x);
  tvm_ffi_release(l);
  tvm_ffi_release(p);
}

TEST(inherited_fields_in_generic_algorithms) {
  derived_obj* a = derived_new(1, "a", tvm_ffi_any_int(10));
  derived_obj* b = derived_new(1, "a", tvm_ffi_any_int(10));
  derived_obj* c = derived_new(2, "a", tvm_ffi_any_int(10));
  CHECK_EQ_INT(seq(a, b, false), 1);
  CHECK(shash(a, false) == shash(b, false));
  TVMFFIAny x = tvm_ffi_any_obj(a), z = tvm_ffi_any_obj(c);
  void *lp = NULL, *rp = NULL;
  CHECK_EQ_INT(tvm_ffi_structural_equal(&x, &z, false, &lp, &rp), 0);
  tvm_ffi_strbuf buf = {0};
  CHECK_STR_EQ(path_str(lp, &buf), "<root>.x");
  /* A Base with the same inherited values is a different type. */
  base_obj* base = (base_obj*)tvm_ffi_object_new(g_base_t, sizeof(base_obj));
  base->x = 1;
  CHECK_EQ_INT(seq(a, base, false), 0);
  /* JSON writes and restores inherited fields. */
  buf.size = 0;
  CHECK_OK(tvm_ffi_json_save(&x, &buf));
  CHECK_STR_CONTAINS(tvm_ffi_strbuf_cstr(&buf),
                     "{\"type\":\"test.Derived\",\"data\":{\"x\":1,\"label\":0,\"y\":1}}");
  TVMFFIAny back;
  CHECK_OK(tvm_ffi_json_load(buf.data, buf.size, &back));
  CHECK(back.type_index == g_derived_t);
  CHECK_EQ_INT(tvm_ffi_structural_equal(&x, &back, false, NULL, NULL), 1);
  tvm_ffi_any_release(&back);
  tvm_ffi_release(lp);
  tvm_ffi_release(rp);
  tvm_ffi_release(a);
  tvm_ffi_release(b);
  tvm_ffi_release(c);
  tvm_ffi_release(base);
  tvm_ffi_strbuf_free(&buf);
}

int main(void) {
  /* All types first: reflection caches are rebuilt whenever fields are added later. */
  register_test_types();
  register_hierarchy();
  RUN(field_order_and_lookup);
  RUN(get_returns_owned_values);
  RUN(set_type_checks);
  RUN(inherited_fields_in_generic_algorithms);
  return test_summary();
}
