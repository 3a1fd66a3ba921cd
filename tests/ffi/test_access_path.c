/* test_access_path.c: AccessPath construction, formatting, prefix/equality checks, argument
 * errors, reflection of its fields and the globals. */
#include "test_util.h"

static const char* fmt(void* path, tvm_ffi_strbuf* b) {
  b->size = 0;
  tvm_ffi_strbuf_puts(b, "");
  tvm_ffi_access_path_format(path, b);
  return tvm_ffi_strbuf_cstr(b);
}

static void* map_item(void* parent, TVMFFIAny key, bool missing) {
  return tvm_ffi_access_path_extend(
      parent, missing ? TVM_FFI_PATH_MAP_ITEM_MISSING : TVM_FFI_PATH_MAP_ITEM, &key);
}

TEST(formatting) {
  tvm_ffi_strbuf b = {0};
  void* root = tvm_ffi_access_path_root();
  CHECK_STR_EQ(fmt(root, &b), "<root>");
  void* body = tvm_ffi_access_path_attr(root, "body");
  void* seq = tvm_ffi_access_path_attr(body, "seq");
  void* item = tvm_ffi_access_path_item(seq, 2);
  void* value = tvm_ffi_access_path_attr(item, "value");
  CHECK_STR_EQ(fmt(value, &b), "<root>.body.seq[2].value");
  CHECK_EQ_INT(((tvm_ffi_access_path_obj*)value)->depth, 4);
  CHECK(((tvm_ffi_access_path_obj*)value)->parent == item);
  /* Map keys print as literals; missing steps are marked. */
  TVMFFIAny s = tvm_ffi_string("key \"q\"\\\n"), bytes = tvm_ffi_bytes_n("by", 2);
  void* m1 = map_item(root, s, false);
  void* m2 = map_item(root, tvm_ffi_any_int(3), false);
  void* m3 = map_item(root, s, true);
  void* m4 = map_item(root, tvm_ffi_any_bool(true), false);
  void* m5 = map_item(root, tvm_ffi_any_none(), false);
  void* m6 = map_item(root, bytes, false);
  void* m7 = map_item(root, tvm_ffi_any_dtype(tvm_ffi_dtype(kDLFloat, 16, 1)), false);
  void* m8 = map_item(root, tvm_ffi_any_float(0.5), false);
  void* m9 = map_item(root, tvm_ffi_any_obj(root), false);
  CHECK_STR_EQ(fmt(m1, &b), "<root>[\"key \\\"q\\\"\\\\\\x0a\"]");
  CHECK_STR_EQ(fmt(m2, &b), "<root>[3]");
  CHECK_STR_EQ(fmt(m3, &b), "<root>[\"key \\\"q\\\"\\\\\\x0a\"]<missing>");
  CHECK_STR_EQ(fmt(m4, &b), "<root>[True]");
  CHECK_STR_EQ(fmt(m5, &b), "<root>[None]");
  CHECK_STR_EQ(fmt(m6, &b), "<root>[b\"by\"]");
  CHECK_STR_EQ(fmt(m7, &b), "<root>[float16]");
  CHECK_STR_EQ(fmt(m8, &b), "<root>[0.5]");
  CHECK_STR_EQ(fmt(m9, &b), "<root>[<ffi.reflection.AccessPath>]");
  TVMFFIAny name = tvm_ffi_string("attr"), idx = tvm_ffi_any_int(7);
  void* am = tvm_ffi_access_path_extend(body, TVM_FFI_PATH_ATTR_MISSING, &name);
  void* im = tvm_ffi_access_path_extend(body, TVM_FFI_PATH_ARRAY_ITEM_MISSING, &idx);
  CHECK_STR_EQ(fmt(am, &b), "<root>.body.attr<missing>");
  CHECK_STR_EQ(fmt(im, &b), "<root>.body[7]<missing>");
  /* Long paths (beyond the on-stack step buffer). */
  void* p = tvm_ffi_access_path_root();
  for (int i = 0; i < 100; ++i) {
    void* q = tvm_ffi_access_path_item(p, i);
    tvm_ffi_release(p);
    p = q;
  }
  const char* text = fmt(p, &b);
  CHECK(strncmp(text, "<root>[0][1][2]", 15) == 0);
  CHECK_EQ_INT(strlen(text), 6 + 10 * 3 + 90 * 4);
  CHECK(strstr(text, "[98][99]") != NULL);
  CHECK_STR_EQ(fmt(NULL, &b), "None");
  tvm_ffi_any_release(&s);
  tvm_ffi_any_release(&bytes);
  void* objs[] = {root, body, seq, item, value, m1, m2, m3, m4, m5, m6, m7, m8, m9, am, im, p};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  tvm_ffi_strbuf_free(&b);
}

TEST(prefix_and_equality) {
  void* r1 = tvm_ffi_access_path_root();
  void* r2 = tvm_ffi_access_path_root();
  void* a1 = tvm_ffi_access_path_attr(r1, "a");
  void* a2 = tvm_ffi_access_path_attr(r2, "a");
  void* a1x = tvm_ffi_access_path_item(a1, 0);
  void* a2x = tvm_ffi_access_path_item(a2, 0);
  void* a2y = tvm_ffi_access_path_item(a2, 1);
  void* b1 = tvm_ffi_access_path_attr(r1, "b");
  TVMFFIAny zero = tvm_ffi_any_int(0);
  void* a1xm = tvm_ffi_access_path_extend(a1, TVM_FFI_PATH_ARRAY_ITEM_MISSING, &zero);
  CHECK(tvm_ffi_access_path_is_prefix(r1, a1x));
  CHECK(tvm_ffi_access_path_is_prefix(r2, a1x)); /* different objects, same steps */
  CHECK(tvm_ffi_access_path_is_prefix(a2, a1x));
  CHECK(tvm_ffi_access_path_is_prefix(a1x, a2x)); /* equal paths are prefixes of each other */
  CHECK(!tvm_ffi_access_path_is_prefix(a1x, a2));
  CHECK(!tvm_ffi_access_path_is_prefix(b1, a1x));
  CHECK(!tvm_ffi_access_path_is_prefix(a2y, a1x));
  CHECK(!tvm_ffi_access_path_is_prefix(a1xm, a1x)); /* missing differs from present */
  CHECK(tvm_ffi_access_path_equal(a1x, a2x));
  CHECK(tvm_ffi_access_path_equal(r1, r2));
  CHECK(!tvm_ffi_access_path_equal(a1x, a2y));
  CHECK(!tvm_ffi_access_path_equal(a1, a1x));
  CHECK(!tvm_ffi_access_path_equal(a1, NULL));
  /* Paths are reflected tree nodes: structural equality agrees with path equality. */
  TVMFFIAny x = tvm_ffi_any_obj(a1x), y = tvm_ffi_any_obj(a2x), z = tvm_ffi_any_obj(a2y);
  CHECK_EQ_INT(tvm_ffi_structural_equal(&x, &y, false, NULL, NULL), 1);
  CHECK_EQ_INT(tvm_ffi_structural_equal(&x, &z, false, NULL, NULL), 0);
  CHECK(tvm_ffi_structural_hash(&x, false) == tvm_ffi_structural_hash(&y, false));
  void* objs[] = {r1, r2, a1, a2, a1x, a2x, a2y, b1, a1xm};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
}

TEST(argument_errors) {
  void* root = tvm_ffi_access_path_root();
  TVMFFIAny k = tvm_ffi_any_int(1), s = tvm_ffi_string("x");
  CHECK(tvm_ffi_access_path_extend(root, 0, &k) == NULL);
  CHECK_RAISED("ValueError", "invalid step kind 0");
  CHECK(tvm_ffi_access_path_extend(root, 7, &k) == NULL);
  CHECK_RAISED("ValueError", "invalid step kind 7");
  CHECK(tvm_ffi_access_path_extend(root, TVM_FFI_PATH_ATTR, &k) == NULL);
  CHECK_RAISED("TypeError", "an attribute step needs a string key, got int");
  TVMFFIAny bytes = tvm_ffi_bytes_n("x", 1);
  CHECK(tvm_ffi_access_path_extend(root, TVM_FFI_PATH_ATTR, &bytes) == NULL);
  CHECK_RAISED("TypeError", "string key");
  CHECK(tvm_ffi_access_path_extend(root, TVM_FFI_PATH_ARRAY_ITEM, &s) == NULL);
  CHECK_RAISED("TypeError", "an array item step needs an int key, got ffi.String");
  CHECK(tvm_ffi_access_path_extend(NULL, TVM_FFI_PATH_ATTR, &s) == NULL);
  CHECK_RAISED("TypeError", "the parent is not an AccessPath");
  void* str = tvm_ffi_str_obj("not a path", 10);
  CHECK(tvm_ffi_access_path_attr(str, "a") == NULL);
  CHECK_RAISED("TypeError", "not an AccessPath");
  CHECK(!tvm_ffi_access_path_is_prefix(str, root));
  tvm_ffi_release(str);
  tvm_ffi_release(root);
}

TEST(reflection_and_globals) {
  int32_t t = tvm_ffi_access_path_type_index();
  CHECK(t >= kTVMFFIDynObjectBegin);
  CHECK_EQ_INT(tvm_ffi_type_find("ffi.reflection.AccessPath"), t);
  const TVMFFIFieldInfo* parent = tvm_ffi_type_find_field(t, "parent");
  const TVMFFIFieldInfo* kind = tvm_ffi_type_find_field(t, "kind");
  CHECK(parent && kind && tvm_ffi_type_find_field(t, "key") && tvm_ffi_type_find_field(t, "depth"));
  TVMFFIAny r;
  CHECK_OK(tvm_ffi_global_call("ffi.reflection.AccessPathRoot", NULL, 0, &r));
  CHECK(r.type_index == t);
  void* a = tvm_ffi_access_path_attr(r.v_obj, "field");
  TVMFFIAny v;
  CHECK_OK(tvm_ffi_field_get(a, kind, &v));
  CHECK(v.type_index == kTVMFFIInt && v.v_int64 == TVM_FFI_PATH_ATTR);
  CHECK_OK(tvm_ffi_field_get(a, parent, &v));
  CHECK(v.v_obj == r.v_obj);
  tvm_ffi_any_release(&v);
  TVMFFIAny arg = tvm_ffi_any_obj(a), s;
  CHECK_OK(tvm_ffi_global_call("ffi.reflection.AccessPathToString", &arg, 1, &s));
  TVMFFIByteArray text;
  CHECK(tvm_ffi_any_as_bytes(&s, &text) && text.size == 12 &&
        memcmp(text.data, "<root>.field", 12) == 0);
  tvm_ffi_any_release(&s);
  TVMFFIAny bad = tvm_ffi_any_int(1);
  CHECK(tvm_ffi_global_call("ffi.reflection.AccessPathToString", &bad, 1, &s) != 0);
  CHECK_RAISED("TypeError", "expected ffi.reflection.AccessPath but got int");
  CHECK(tvm_ffi_global_call("ffi.reflection.AccessPathRoot", &bad, 1, &s) != 0);
  CHECK_RAISED("TypeError", "expects 0 arguments");
  tvm_ffi_release(a);
  tvm_ffi_any_release(&r);
}

int main(void) {
  tvm_ffi_init();
  RUN(formatting);
  RUN(prefix_and_equality);
  RUN(argument_errors);
  RUN(reflection_and_globals);
  return test_summary();
}
