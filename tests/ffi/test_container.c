/* test_container.c: Array, List, Map, Dict and Shape, through the C API and the globals. */
#include "test_util.h"

static TVMFFIAny I(int64_t v) { return tvm_ffi_any_int(v); }
static TVMFFIAny S(const char* s) { return tvm_ffi_any_raw_str(s); }
static TVMFFIAny O(const void* obj) { return tvm_ffi_any_obj(obj); }

/* Call a global; returns its rc and leaves the result in *out (None on failure). */
static int call(const char* name, const TVMFFIAny* args, int32_t n, TVMFFIAny* out) {
  return tvm_ffi_global_call(name, args, n, out);
}

/* The string content of a value, or "" if it is not a string. */
static const char* str_of(const TVMFFIAny* v, char* buf, size_t size) {
  TVMFFIByteArray b;
  if (!tvm_ffi_any_as_bytes(v, &b)) return "";
  snprintf(buf, size, "%.*s", (int)b.size, b.data);
  return buf;
}

static int64_t int_of(const TVMFFIAny* v) {
  int64_t x = -999999;
  tvm_ffi_any_as_int(v, &x);
  return x;
}

TEST(layout) {
  CHECK_EQ_INT(sizeof(TVMFFISeqCell), 32);
  CHECK_EQ_INT(sizeof(TVMFFIShapeCell), 16);
  CHECK_EQ_INT(offsetof(TVMFFISeqCell, data), 0);
  CHECK_EQ_INT(offsetof(TVMFFISeqCell, size), 8);
  CHECK_EQ_INT(offsetof(TVMFFISeqCell, capacity), 16);
  CHECK_EQ_INT(offsetof(TVMFFISeqCell, data_deleter), 24);
  TVMFFIAny items[2] = {I(1), I(2)};
  void* a = tvm_ffi_array_new(items, 2);
  CHECK((char*)TVMFFISeqGetCellPtr(a) == (char*)a + 24);
  /* Array elements are inline, right after the cell, with no deleter. */
  CHECK((char*)tvm_ffi_seq_data(a) == (char*)a + 56);
  CHECK(TVMFFISeqGetCellPtr(a)->data_deleter == NULL);
  CHECK_EQ_INT(TVMFFISeqGetCellPtr(a)->capacity, 2);
  int64_t dims[3] = {2, 3, 4};
  void* s = tvm_ffi_shape_new(dims, 3);
  CHECK((char*)TVMFFIShapeGetCellPtr(s) == (char*)s + 24);
  CHECK((const char*)tvm_ffi_shape_data(s) == (char*)s + 40);
  void* l = tvm_ffi_list_new();
  CHECK(TVMFFISeqGetCellPtr(l)->data_deleter != NULL);
  tvm_ffi_release(a);
  tvm_ffi_release(s);
  tvm_ffi_release(l);
}

TEST(type_registration) {
  static const struct {
    const char* key;
    int32_t index;
  } types[] = {{"ffi.Shape", kTVMFFIShape}, {"ffi.Array", kTVMFFIArray}, {"ffi.Map", kTVMFFIMap},
               {"ffi.List", kTVMFFIList},   {"ffi.Dict", kTVMFFIDict}};
  for (int i = 0; i < 5; ++i) {
    CHECK_EQ_INT(tvm_ffi_type_find(types[i].key), types[i].index);
    CHECK_STR_EQ(tvm_ffi_type_key(types[i].index), types[i].key);
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(types[i].index);
    CHECK(info && info->metadata);
    if (info && info->metadata) {
      CHECK_EQ_INT(info->metadata->structural_eq_hash_kind, kTVMFFISEqHashKindTreeNode);
    }
    CHECK_EQ_INT(info->type_depth, 1);
  }
  void* m = tvm_ffi_map_new(NULL, NULL, 0);
  void* d = tvm_ffi_dict_new();
  void* l = tvm_ffi_list_new();
  CHECK_EQ_INT(tvm_ffi_type_index(m), kTVMFFIMap);
  CHECK_EQ_INT(tvm_ffi_type_index(d), kTVMFFIDict);
  CHECK_EQ_INT(tvm_ffi_type_index(l), kTVMFFIList);
  tvm_ffi_release(m);
  tvm_ffi_release(d);
  tvm_ffi_release(l);
}

TEST(array_basic) {
  void* obj = tvm_ffi_str_obj("a long string object", 20);
  TVMFFIAny items[5] = {I(7), S("hi"), S("a string longer than seven"), O(obj),
                        tvm_ffi_any_none()};
  void* a = tvm_ffi_array_new(items, 5);
  CHECK(a != NULL);
  CHECK_EQ_INT(tvm_ffi_type_index(a), kTVMFFIArray);
  CHECK_EQ_INT(tvm_ffi_seq_size(a), 5);
  CHECK_EQ_INT(tvm_ffi_strong_count(obj), 2);
  CHECK_EQ_INT(int_of(tvm_ffi_seq_at(a, 0)), 7);
  char buf[64];
  /* Raw strings were converted to owned strings (small inline, long as objects). */
  CHECK_EQ_INT(tvm_ffi_seq_at(a, 1)->type_index, kTVMFFISmallStr);
  CHECK_STR_EQ(str_of(tvm_ffi_seq_at(a, 1), buf, sizeof(buf)), "hi");
  CHECK_EQ_INT(tvm_ffi_seq_at(a, 2)->type_index, kTVMFFIStr);
  CHECK_STR_EQ(str_of(tvm_ffi_seq_at(a, 2), buf, sizeof(buf)), "a string longer than seven");
  CHECK(tvm_ffi_seq_obj_at(a, 3) == obj);
  CHECK(tvm_ffi_any_is_none(tvm_ffi_seq_at(a, 4)));
  tvm_ffi_release(a);
  CHECK_EQ_INT(tvm_ffi_strong_count(obj), 1);

  void* empty = tvm_ffi_array_new(NULL, 0);
  CHECK(empty && tvm_ffi_seq_size(empty) == 0);
  tvm_ffi_release(empty);
  tvm_ffi_release(obj);
}

TEST(array_bad_inputs) {
  CHECK(tvm_ffi_array_new(NULL, 3) == NULL);
  CHECK_RAISED("ValueError", "NULL");
  TVMFFIAny one = I(1);
  CHECK(tvm_ffi_array_new(&one, -1) == NULL);
  CHECK_RAISED("ValueError", "negative");
  TVMFFIAny bad = tvm_ffi_any_raw_str(NULL);
  CHECK(tvm_ffi_array_new(&bad, 1) == NULL);
  CHECK_RAISED("ValueError", "NULL pointer");
  CHECK(tvm_ffi_array_of_objects(NULL, 2) == NULL);
  CHECK_RAISED("ValueError", "NULL");
}

TEST(array_take_and_objects) {
  void* o1 = tvm_ffi_list_new();
  void* o2 = tvm_ffi_dict_new();
  TVMFFIAny items[3];
  tvm_ffi_retain(o1);
  items[0] = O(o1); /* owned reference moves into the array */
  items[1] = S("raw view gets converted");
  items[2] = I(3);
  void* a = tvm_ffi_array_new_take(items, 3);
  CHECK(a != NULL);
  for (int i = 0; i < 3; ++i) CHECK(tvm_ffi_any_is_none(&items[i]));
  CHECK_EQ_INT(tvm_ffi_strong_count(o1), 2);
  CHECK_EQ_INT(tvm_ffi_seq_at(a, 1)->type_index, kTVMFFIStr);
  tvm_ffi_release(a);
  CHECK_EQ_INT(tvm_ffi_strong_count(o1), 1);

  /* A failing take still consumes every item. */
  TVMFFIAny bad[2];
  tvm_ffi_retain(o1);
  bad[0] = O(o1);
  bad[1] = tvm_ffi_any_raw_str(NULL);
  CHECK(tvm_ffi_array_new_take(bad, 2) == NULL);
  CHECK_RAISED("ValueError", "NULL pointer");
  CHECK_EQ_INT(tvm_ffi_strong_count(o1), 1);

  void* objs[3] = {o1, NULL, o2};
  void* b = tvm_ffi_array_of_objects(objs, 3);
  CHECK_EQ_INT(tvm_ffi_seq_size(b), 3);
  CHECK(tvm_ffi_seq_obj_at(b, 0) == o1);
  CHECK(tvm_ffi_any_is_none(tvm_ffi_seq_at(b, 1)));
  CHECK(tvm_ffi_seq_obj_at(b, 2) == o2);
  CHECK_EQ_INT(tvm_ffi_strong_count(o2), 2);
  tvm_ffi_release(b);
  CHECK_EQ_INT(tvm_ffi_strong_count(o1), 1);
  CHECK_EQ_INT(tvm_ffi_strong_count(o2), 1);
  tvm_ffi_release(o1);
  tvm_ffi_release(o2);
}

TEST(list_growth_and_mutation) {
  void* l = tvm_ffi_list_new();
  void* elem = tvm_ffi_str_obj("element object", 14);
  void* l0 = l;
  for (int64_t i = 0; i < 10000; ++i) {
    TVMFFIAny v = (i % 100 == 0) ? O(elem) : I(i);
    CHECK_OK(tvm_ffi_list_push(l, &v));
  }
  CHECK(l == l0);
  CHECK_EQ_INT(tvm_ffi_seq_size(l), 10000);
  CHECK(TVMFFISeqGetCellPtr(l)->capacity >= 10000);
  CHECK_EQ_INT(tvm_ffi_strong_count(elem), 101);
  CHECK_EQ_INT(int_of(tvm_ffi_seq_at(l, 9999)), 9999);
  CHECK(tvm_ffi_seq_obj_at(l, 500) == elem);

  TVMFFIAny v = S("replaced");
  CHECK_OK(tvm_ffi_list_set(l, 0, &v));
  CHECK_EQ_INT(tvm_ffi_strong_count(elem), 100);
  char buf[32];
  CHECK_STR_EQ(str_of(tvm_ffi_seq_at(l, 0), buf, sizeof(buf)), "replaced");
  CHECK(tvm_ffi_list_set(l, 10000, &v) != 0);
  CHECK_RAISED("IndexError", "index 10000 out of range");
  CHECK(tvm_ffi_list_set(l, -1, &v) != 0);
  CHECK_RAISED("IndexError", "index -1");

  TVMFFIAny out;
  CHECK_OK(tvm_ffi_list_pop(l, &out));
  CHECK_EQ_INT(int_of(&out), 9999);
  CHECK_EQ_INT(tvm_ffi_seq_size(l), 9999);

  void* arr = tvm_ffi_list_to_array(l);
  CHECK_EQ_INT(tvm_ffi_type_index(arr), kTVMFFIArray);
  CHECK_EQ_INT(tvm_ffi_seq_size(arr), 9999);
  CHECK_EQ_INT(tvm_ffi_strong_count(elem), 199);

  tvm_ffi_list_clear(l);
  CHECK(!tvm_ffi_error_pending());
  CHECK_EQ_INT(tvm_ffi_seq_size(l), 0);
  CHECK_EQ_INT(tvm_ffi_strong_count(elem), 100);
  CHECK(tvm_ffi_list_pop(l, &out) != 0);
  CHECK_RAISED("IndexError", "empty");

  /* push_take moves an owned reference in. */
  tvm_ffi_retain(elem);
  TVMFFIAny owned = O(elem);
  CHECK_OK(tvm_ffi_list_push_take(l, &owned));
  CHECK(tvm_ffi_any_is_none(&owned));
  CHECK_EQ_INT(tvm_ffi_strong_count(elem), 101);
  CHECK_OK(tvm_ffi_list_pop(l, &out));
  CHECK(out.v_obj == elem);
  tvm_ffi_any_release(&out);
  CHECK_EQ_INT(tvm_ffi_strong_count(elem), 100);

  tvm_ffi_release(arr);
  CHECK_EQ_INT(tvm_ffi_strong_count(elem), 1);
  tvm_ffi_release(l);
  tvm_ffi_release(elem);
}

TEST(list_bad_inputs) {
  void* a = tvm_ffi_array_new(NULL, 0);
  TVMFFIAny v = I(1), out;
  CHECK(tvm_ffi_list_push(a, &v) != 0);
  CHECK_RAISED("TypeError", "expected ffi.List but got ffi.Array");
  CHECK(tvm_ffi_list_push(NULL, &v) != 0);
  CHECK_RAISED("TypeError", "got NULL");
  CHECK(tvm_ffi_list_set(a, 0, &v) != 0);
  CHECK_RAISED("TypeError", "ffi.List");
  CHECK(tvm_ffi_list_pop(a, &out) != 0);
  CHECK_RAISED("TypeError", "ffi.List");
  tvm_ffi_list_clear(a);
  CHECK_RAISED("TypeError", "ffi.List");
  CHECK(tvm_ffi_list_to_array(a) == NULL);
  CHECK_RAISED("TypeError", "ffi.List");
  void* l = tvm_ffi_list_new();
  CHECK(tvm_ffi_list_push(l, NULL) != 0);
  CHECK_RAISED("ValueError", "NULL");
  TVMFFIAny bad = tvm_ffi_any_raw_str(NULL);
  CHECK(tvm_ffi_list_push(l, &bad) != 0);
  CHECK_RAISED("ValueError", "NULL pointer");
  /* push_take into a non-list still consumes the item. */
  void* o = tvm_ffi_list_new();
  tvm_ffi_retain(o);
  TVMFFIAny owned = O(o);
  CHECK(tvm_ffi_list_push_take(a, &owned) != 0);
  CHECK_RAISED("TypeError", "ffi.List");
  CHECK(tvm_ffi_any_is_none(&owned));
  CHECK_EQ_INT(tvm_ffi_strong_count(o), 1);
  CHECK_EQ_INT(tvm_ffi_seq_size(l), 0);
  tvm_ffi_release(o);
  tvm_ffi_release(l);
  tvm_ffi_release(a);
}

TEST(map_keys) {
  void* key_obj = tvm_ffi_list_new();   /* objects are keyed by identity */
  void* other_obj = tvm_ffi_list_new();
  void* val_obj = tvm_ffi_dict_new();
  TVMFFIAny keys[7] = {I(1), S("ab"), S("a rather long string key"), O(key_obj),
                       tvm_ffi_any_none(), tvm_ffi_any_bool(true), tvm_ffi_any_float(2.5)};
  TVMFFIAny vals[7] = {S("one"), I(2), I(3), O(val_obj), I(5), I(6), I(7)};
  void* m = tvm_ffi_map_new(keys, vals, 7);
  CHECK(m != NULL);
  CHECK_EQ_INT(tvm_ffi_map_size(m), 7);
  CHECK_EQ_INT(tvm_ffi_strong_count(key_obj), 2);
  CHECK_EQ_INT(tvm_ffi_strong_count(val_obj), 2);
  char buf[32];
  TVMFFIAny k = I(1);
  CHECK_STR_EQ(str_of(tvm_ffi_map_get(m, &k), buf, sizeof(buf)), "one");
  CHECK_EQ_INT(int_of(tvm_ffi_map_get_str(m, "ab")), 2);
  CHECK_EQ_INT(int_of(tvm_ffi_map_get_str(m, "a rather long string key")), 3);
  /* Owned string keys match small and object strings of the same content. */
  TVMFFIAny owned = tvm_ffi_string("a rather long string key");
  CHECK_EQ_INT(int_of(tvm_ffi_map_get(m, &owned)), 3);
  tvm_ffi_any_release(&owned);
  k = O(key_obj);
  CHECK(tvm_ffi_map_get(m, &k)->v_obj == val_obj);
  k = O(other_obj);
  CHECK(tvm_ffi_map_get(m, &k) == NULL);
  k = tvm_ffi_any_none();
  CHECK_EQ_INT(int_of(tvm_ffi_map_get(m, &k)), 5);
  k = tvm_ffi_any_bool(true);
  CHECK_EQ_INT(int_of(tvm_ffi_map_get(m, &k)), 6);
  k = tvm_ffi_any_float(2.5);
  CHECK_EQ_INT(int_of(tvm_ffi_map_get(m, &k)), 7);
  k = I(2); /* missing: NULL, no error */
  CHECK(tvm_ffi_map_get(m, &k) == NULL);
  CHECK(!tvm_ffi_error_pending());
  CHECK(tvm_ffi_map_get_str(m, "missing") == NULL);
  CHECK(!tvm_ffi_error_pending());
  /* Stored keys are owned: the long raw string became an ffi.String object. */
  const TVMFFIAny *ik, *iv;
  int64_t pos = tvm_ffi_map_next(m, 0, &ik, &iv);
  pos = tvm_ffi_map_next(m, pos, &ik, &iv);
  pos = tvm_ffi_map_next(m, pos, &ik, &iv);
  CHECK_EQ_INT(ik->type_index, kTVMFFIStr);
  tvm_ffi_release(m);
  CHECK_EQ_INT(tvm_ffi_strong_count(key_obj), 1);
  CHECK_EQ_INT(tvm_ffi_strong_count(val_obj), 1);
  tvm_ffi_release(key_obj);
  tvm_ffi_release(other_obj);
  tvm_ffi_release(val_obj);
}

TEST(map_duplicates_and_order) {
  TVMFFIAny keys[6] = {S("z"), S("y"), S("x"), S("y"), I(0), S("z")};
  TVMFFIAny vals[6] = {I(1), I(2), I(3), I(4), I(5), I(6)};
  void* m = tvm_ffi_map_new(keys, vals, 6);
  CHECK_EQ_INT(tvm_ffi_map_size(m), 4);
  /* The later duplicate wins; order is that of first insertion. */
  CHECK_EQ_INT(int_of(tvm_ffi_map_get_str(m, "z")), 6);
  CHECK_EQ_INT(int_of(tvm_ffi_map_get_str(m, "y")), 4);
  const char* expect_keys[3] = {"z", "y", "x"};
  int64_t expect_vals[4] = {6, 4, 3, 5};
  const TVMFFIAny *k, *v;
  int count = 0;
  char buf[8];
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(m, pos, &k, &v)) >= 0; ++count) {
    if (count < 3) CHECK_STR_EQ(str_of(k, buf, sizeof(buf)), expect_keys[count]);
    if (count == 3) CHECK_EQ_INT(int_of(k), 0);
    if (count < 4) CHECK_EQ_INT(int_of(v), expect_vals[count]);
  }
  CHECK_EQ_INT(count, 4);
  CHECK_EQ_INT(tvm_ffi_map_next(m, -5, &k, &v), -1);
  CHECK_EQ_INT(tvm_ffi_map_next(m, 100, &k, &v), -1);
  tvm_ffi_release(m);
}

TEST(map_bad_inputs) {
  void* a = tvm_ffi_array_new(NULL, 0);
  CHECK_EQ_INT(tvm_ffi_map_size(a), -1);
  CHECK_RAISED("TypeError", "expected ffi.Map or ffi.Dict but got ffi.Array");
  TVMFFIAny k = I(1);
  CHECK(tvm_ffi_map_get(a, &k) == NULL);
  CHECK_RAISED("TypeError", "ffi.Map");
  CHECK(tvm_ffi_map_get(NULL, &k) == NULL);
  CHECK_RAISED("TypeError", "NULL");
  CHECK_EQ_INT(tvm_ffi_map_next(a, 0, NULL, NULL), -1);
  CHECK_RAISED("TypeError", "ffi.Map");
  CHECK(tvm_ffi_map_new(NULL, NULL, 2) == NULL);
  CHECK_RAISED("ValueError", "NULL");
  CHECK(tvm_ffi_map_new(&k, &k, -1) == NULL);
  CHECK_RAISED("ValueError", "negative");
  void* m = tvm_ffi_map_new(&k, &k, 1);
  CHECK(tvm_ffi_map_get(m, NULL) == NULL);
  CHECK_RAISED("ValueError", "key is NULL");
  CHECK(tvm_ffi_map_get_str(m, NULL) == NULL);
  CHECK_RAISED("ValueError", "NULL");
  TVMFFIAny bad = tvm_ffi_any_raw_str(NULL);
  CHECK(tvm_ffi_map_get(m, &bad) == NULL);
  CHECK_RAISED("ValueError", "NULL pointer");
  CHECK(tvm_ffi_map_new(&bad, &k, 1) == NULL);
  CHECK_RAISED("ValueError", "NULL pointer");
  /* A Map is immutable: the Dict mutators refuse it. */
  CHECK(tvm_ffi_dict_set(m, &k, &k) != 0);
  CHECK_RAISED("TypeError", "expected ffi.Dict but got ffi.Map");
  CHECK(!tvm_ffi_dict_erase(m, &k));
  CHECK_RAISED("TypeError", "ffi.Dict");
  tvm_ffi_dict_clear(m);
  CHECK_RAISED("TypeError", "ffi.Dict");
  CHECK(tvm_ffi_dict_to_map(m) == NULL);
  CHECK_RAISED("TypeError", "ffi.Dict");
  void* d = tvm_ffi_dict_new();
  CHECK(tvm_ffi_dict_set(d, NULL, &k) != 0);
  CHECK_RAISED("ValueError", "NULL");
  CHECK(tvm_ffi_dict_set(d, &bad, &k) != 0);
  CHECK_RAISED("ValueError", "NULL pointer");
  CHECK(tvm_ffi_dict_set(d, &k, &bad) != 0);
  CHECK_RAISED("ValueError", "NULL pointer");
  CHECK_EQ_INT(tvm_ffi_map_size(d), 0);
  CHECK(!tvm_ffi_dict_erase(d, NULL));
  CHECK_RAISED("ValueError", "NULL");
  tvm_ffi_release(d);
  tvm_ffi_release(m);
  tvm_ffi_release(a);
}

TEST(dict_identity_and_growth) {
  void* d = tvm_ffi_dict_new();
  void* d0 = d;
  void* val = tvm_ffi_str_obj("shared value object", 19);
  for (int64_t i = 0; i < 10000; ++i) {
    TVMFFIAny k = I(i * 7919), v = (i % 10 == 0) ? O(val) : I(i);
    CHECK_OK(tvm_ffi_dict_set(d, &k, &v));
  }
  CHECK(d == d0);
  CHECK_EQ_INT(tvm_ffi_map_size(d), 10000);
  CHECK_EQ_INT(tvm_ffi_strong_count(val), 1001);
  int bad = 0;
  for (int64_t i = 0; i < 10000; ++i) {
    TVMFFIAny k = I(i * 7919);
    const TVMFFIAny* v = tvm_ffi_map_get(d, &k);
    if (!v || (i % 10 == 0 ? v->v_obj != val : int_of(v) != i)) ++bad;
  }
  CHECK_EQ_INT(bad, 0);
  /* Iteration follows insertion order. */
  const TVMFFIAny *k, *v;
  int64_t expect = 0;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(d, pos, &k, &v)) >= 0; ++expect) {
    if (int_of(k) != expect * 7919) ++bad;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(expect, 10000);
  /* Replacing a value keeps the size and releases the old value. */
  TVMFFIAny k0 = I(0), v0 = S("zero");
  CHECK_OK(tvm_ffi_dict_set(d, &k0, &v0));
  CHECK_EQ_INT(tvm_ffi_map_size(d), 10000);
  CHECK_EQ_INT(tvm_ffi_strong_count(val), 1000);

  void* m = tvm_ffi_dict_to_map(d);
  CHECK_EQ_INT(tvm_ffi_type_index(m), kTVMFFIMap);
  CHECK_EQ_INT(tvm_ffi_map_size(m), 10000);
  CHECK_EQ_INT(tvm_ffi_strong_count(val), 1999);
  TVMFFIAny k10 = I(10 * 7919);
  CHECK(tvm_ffi_map_get(m, &k10)->v_obj == val);
  tvm_ffi_dict_clear(d);
  CHECK(!tvm_ffi_error_pending());
  CHECK_EQ_INT(tvm_ffi_map_size(d), 0);
  CHECK_EQ_INT(tvm_ffi_strong_count(val), 1000);
  CHECK_EQ_INT(tvm_ffi_map_next(d, 0, &k, &v), -1);
  CHECK_OK(tvm_ffi_dict_set(d, &k0, &v0));
  CHECK_EQ_INT(tvm_ffi_map_size(d), 1);
  tvm_ffi_release(m);
  CHECK_EQ_INT(tvm_ffi_strong_count(val), 1);
  tvm_ffi_release(d);
  tvm_ffi_release(val);
}

/* A new Dict keeps its first entries in itself: clearing it releases them and keeps the
 * storage, and it moves to a heap block when it outgrows it (also compacting dead entries). */
TEST(dict_small_inline_entries) {
  void* val = tvm_ffi_str_obj("held", 4);
  void* d = tvm_ffi_dict_new();
  for (int64_t i = 0; i < 3; ++i) {
    TVMFFIAny k = I(i), v = tvm_ffi_any_obj(val);
    CHECK_OK(tvm_ffi_dict_set(d, &k, &v));
  }
  TVMFFIAny k1 = I(1);
  CHECK(tvm_ffi_dict_erase(d, &k1));
  CHECK_EQ_INT(tvm_ffi_strong_count(val), 3);
  tvm_ffi_dict_clear(d);
  CHECK(!tvm_ffi_error_pending());
  CHECK_EQ_INT(tvm_ffi_map_size(d), 0);
  CHECK_EQ_INT(tvm_ffi_strong_count(val), 1);
  const TVMFFIAny *k, *v;
  CHECK_EQ_INT(tvm_ffi_map_next(d, 0, &k, &v), -1);
  /* Refill past the inline entries, with a dead one among them. */
  for (int64_t i = 0; i < 4; ++i) {
    TVMFFIAny key = I(i), value = tvm_ffi_any_obj(val);
    CHECK_OK(tvm_ffi_dict_set(d, &key, &value));
  }
  CHECK(tvm_ffi_dict_erase(d, &k1));
  for (int64_t i = 4; i < 12; ++i) {
    TVMFFIAny key = I(i), value = tvm_ffi_any_obj(val);
    CHECK_OK(tvm_ffi_dict_set(d, &key, &value));
  }
  CHECK_EQ_INT(tvm_ffi_map_size(d), 11);
  CHECK_EQ_INT(tvm_ffi_strong_count(val), 12);
  CHECK(tvm_ffi_map_get(d, &k1) == NULL);
  TVMFFIAny k7 = I(7);
  CHECK(tvm_ffi_map_get(d, &k7)->v_obj == val);
  void* m = tvm_ffi_dict_to_map(d);
  CHECK_EQ_INT(tvm_ffi_map_size(m), 11);
  tvm_ffi_release(d);
  tvm_ffi_release(m);
  CHECK_EQ_INT(tvm_ffi_strong_count(val), 1);
  tvm_ffi_release(val);
}

TEST(dict_erase_and_reinsert) {
  void* d = tvm_ffi_dict_new();
  const char* names[5] = {"alpha", "beta", "a long key named gamma", "delta", "epsilon!"};
  for (int i = 0; i < 5; ++i) {
    TVMFFIAny k = S(names[i]), v = I(i);
    CHECK_OK(tvm_ffi_dict_set(d, &k, &v));
  }
  TVMFFIAny kb = S("beta"), kg = S("a long key named gamma"), kx = S("nope");
  CHECK(tvm_ffi_dict_erase(d, &kb));
  CHECK(!tvm_ffi_dict_erase(d, &kb));
  CHECK(!tvm_ffi_dict_erase(d, &kx));
  CHECK(!tvm_ffi_error_pending());
  CHECK(tvm_ffi_dict_erase(d, &kg));
  CHECK_EQ_INT(tvm_ffi_map_size(d), 3);
  CHECK(tvm_ffi_map_get(d, &kb) == NULL);
  TVMFFIAny v = I(42);
  CHECK_OK(tvm_ffi_dict_set(d, &kb, &v)); /* reinserted keys go to the end */
  const char* order[4] = {"alpha", "delta", "epsilon!", "beta"};
  const TVMFFIAny *k, *val;
  int n = 0;
  char buf[32];
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(d, pos, &k, &val)) >= 0; ++n) {
    if (n < 4) CHECK_STR_EQ(str_of(k, buf, sizeof(buf)), order[n]);
  }
  CHECK_EQ_INT(n, 4);
  CHECK_EQ_INT(int_of(tvm_ffi_map_get_str(d, "beta")), 42);
  /* Erasing everything and refilling many times exercises tombstones and compaction. */
  for (int round = 0; round < 20; ++round) {
    for (int64_t i = 0; i < 300; ++i) {
      TVMFFIAny key = I(i + round * 1000), value = I(i);
      CHECK_OK(tvm_ffi_dict_set(d, &key, &value));
    }
    for (int64_t i = 0; i < 300; ++i) {
      TVMFFIAny key = I(i + round * 1000);
      if (i % 3 != 0) CHECK(tvm_ffi_dict_erase(d, &key));
    }
  }
  CHECK_EQ_INT(tvm_ffi_map_size(d), 4 + 20 * 100);
  int64_t seen = 0, prev = -1;
  int order_ok = 1;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(d, pos, &k, &val)) >= 0;) {
    if (k->type_index != kTVMFFIInt) continue;
    if (k->v_int64 <= prev || k->v_int64 % 1000 % 3 != 0) order_ok = 0;
    prev = k->v_int64;
    ++seen;
  }
  CHECK(order_ok);
  CHECK_EQ_INT(seen, 2000);
  tvm_ffi_release(d);
}

/* Random operations against a plain array model of a dict with keys 0..nkeys-1 (a few keys
 * keep the map small and unindexed; many exercise the index, tombstones and compaction). */
static void dict_model_check(int nkeys, int steps) {
  void* d = tvm_ffi_dict_new();
  int64_t model[256];
  for (int i = 0; i < 256; ++i) model[i] = -1;
  uint64_t seed = 12345;
  int mismatches = 0;
  for (int step = 0; step < steps; ++step) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    int key = (int)((seed >> 33) % (uint64_t)nkeys);
    int op = (int)((seed >> 45) % 3);
    TVMFFIAny k = I(key);
    if (op == 0) {
      TVMFFIAny v = I(step);
      CHECK_OK(tvm_ffi_dict_set(d, &k, &v));
      model[key] = step;
    } else if (op == 1) {
      bool erased = tvm_ffi_dict_erase(d, &k);
      if (erased != (model[key] >= 0)) ++mismatches;
      model[key] = -1;
    } else {
      const TVMFFIAny* v = tvm_ffi_map_get(d, &k);
      if ((v ? int_of(v) : -1) != model[key]) ++mismatches;
    }
  }
  int64_t live = 0;
  for (int i = 0; i < 256; ++i) live += model[i] >= 0;
  CHECK_EQ_INT(tvm_ffi_map_size(d), live);
  CHECK_EQ_INT(mismatches, 0);
  /* Iteration visits exactly the live keys. */
  const TVMFFIAny *k, *v;
  int64_t visited = 0;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(d, pos, &k, &v)) >= 0; ++visited) {
    if (model[k->v_int64] != v->v_int64) ++mismatches;
  }
  CHECK_EQ_INT(visited, live);
  CHECK_EQ_INT(mismatches, 0);
  tvm_ffi_release(d);
}

TEST(dict_model_small) { dict_model_check(6, 5000); }
TEST(dict_model_large) { dict_model_check(256, 50000); }

/* Floats that compare equal are one key; ints, bools, strings and bytes are distinct keys. */
TEST(map_key_kinds) {
  void* d = tvm_ffi_dict_new();
  TVMFFIAny keys[6] = {tvm_ffi_any_float(0.0), tvm_ffi_any_float(-0.0), tvm_ffi_any_float(__builtin_nan("")),
                       tvm_ffi_any_float(-__builtin_nan("")), I(1), tvm_ffi_any_bool(true)};
  for (int i = 0; i < 6; ++i) {
    TVMFFIAny v = I(i);
    CHECK_OK(tvm_ffi_dict_set(d, &keys[i], &v));
  }
  CHECK_EQ_INT(tvm_ffi_map_size(d), 4);
  CHECK_EQ_INT(int_of(tvm_ffi_map_get(d, &keys[0])), 1);
  CHECK_EQ_INT(int_of(tvm_ffi_map_get(d, &keys[2])), 3);
  TVMFFIAny str = tvm_ffi_string("ab"), bytes = tvm_ffi_bytes_n("ab", 2), one = I(7);
  CHECK_OK(tvm_ffi_dict_set(d, &str, &one));
  CHECK(tvm_ffi_map_get(d, &bytes) == NULL);
  CHECK_OK(tvm_ffi_dict_set(d, &bytes, &one));
  CHECK_EQ_INT(tvm_ffi_map_size(d), 6);
  TVMFFIByteArray ba = {"ab", 2};
  TVMFFIAny view = tvm_ffi_any_none();
  view.type_index = kTVMFFIByteArrayPtr;
  view.v_ptr = &ba;
  CHECK_EQ_INT(int_of(tvm_ffi_map_get(d, &view)), 7);
  tvm_ffi_release(d);
}

TEST(shape) {
  int64_t dims[4] = {1, -1, 224, 224};
  void* s = tvm_ffi_shape_new(dims, 4);
  CHECK_EQ_INT(tvm_ffi_type_index(s), kTVMFFIShape);
  CHECK_EQ_INT(tvm_ffi_shape_ndim(s), 4);
  CHECK_EQ_INT(tvm_ffi_shape_data(s)[1], -1);
  CHECK_EQ_INT(tvm_ffi_shape_data(s)[3], 224);
  void* scalar = tvm_ffi_shape_new(NULL, 0);
  CHECK_EQ_INT(tvm_ffi_shape_ndim(scalar), 0);
  CHECK(tvm_ffi_shape_new(NULL, 2) == NULL);
  CHECK_RAISED("ValueError", "NULL");
  CHECK(tvm_ffi_shape_new(dims, -1) == NULL);
  CHECK_RAISED("ValueError", "negative");
  tvm_ffi_release(s);
  tvm_ffi_release(scalar);
}

TEST(globals_array_list) {
  void* obj = tvm_ffi_list_new();
  TVMFFIAny args[3] = {I(1), S("two"), O(obj)};
  TVMFFIAny r, r2;
  CHECK_OK(call("ffi.Array", args, 3, &r));
  void* a = r.v_obj;
  CHECK_EQ_INT(r.type_index, kTVMFFIArray);
  CHECK_EQ_INT(tvm_ffi_strong_count(obj), 2);
  TVMFFIAny get[2] = {O(a), I(2)};
  CHECK_OK(call("ffi.ArrayGetItem", get, 2, &r2));
  CHECK(r2.v_obj == obj);
  CHECK_EQ_INT(tvm_ffi_strong_count(obj), 3);
  tvm_ffi_any_release(&r2);
  CHECK_OK(call("ffi.ArraySize", get, 1, &r2));
  CHECK_EQ_INT(int_of(&r2), 3);
  get[1] = I(3);
  CHECK(call("ffi.ArrayGetItem", get, 2, &r2) != 0);
  CHECK_RAISED("IndexError", "ffi.ArrayGetItem: index 3 out of range for ffi.Array of size 3");
  get[1] = I(-1);
  CHECK(call("ffi.ArrayGetItem", get, 2, &r2) != 0);
  CHECK_RAISED("IndexError", "index -1");
  get[1] = S("x");
  CHECK(call("ffi.ArrayGetItem", get, 2, &r2) != 0);
  CHECK_RAISED("TypeError", "argument #1");
  CHECK(call("ffi.ArrayGetItem", get, 1, &r2) != 0);
  CHECK_RAISED("TypeError", "ffi.ArrayGetItem expects 2 arguments but got 1");
  TVMFFIAny none_args[2] = {tvm_ffi_any_none(), I(0)};
  CHECK(call("ffi.ArrayGetItem", none_args, 2, &r2) != 0);
  CHECK_RAISED("TypeError", "expected ffi.Array but got None");
  CHECK(call("ffi.ArraySize", none_args, 1, &r2) != 0);
  CHECK_RAISED("TypeError", "ffi.Array");
  CHECK_OK(call("ffi.Array", NULL, 0, &r2));
  CHECK_EQ_INT(tvm_ffi_seq_size(r2.v_obj), 0);
  tvm_ffi_any_release(&r2);

  CHECK_OK(call("ffi.List", args, 2, &r2));
  void* l = r2.v_obj;
  CHECK_EQ_INT(r2.type_index, kTVMFFIList);
  TVMFFIAny la[3] = {O(l), O(a), I(0)};
  CHECK_OK(call("ffi.ListAppend", la, 2, &r2));
  CHECK(tvm_ffi_any_is_none(&r2));
  CHECK_OK(call("ffi.ListSize", la, 1, &r2));
  CHECK_EQ_INT(int_of(&r2), 3);
  la[1] = I(1);
  CHECK_OK(call("ffi.ListGetItem", la, 2, &r2));
  char buf[16];
  CHECK_STR_EQ(str_of(&r2, buf, sizeof(buf)), "two");
  tvm_ffi_any_release(&r2);
  la[2] = S("new");
  CHECK_OK(call("ffi.ListSetItem", la, 3, &r2));
  CHECK_OK(call("ffi.ListGetItem", la, 2, &r2));
  CHECK_STR_EQ(str_of(&r2, buf, sizeof(buf)), "new");
  tvm_ffi_any_release(&r2);
  la[1] = I(5);
  CHECK(call("ffi.ListSetItem", la, 3, &r2) != 0);
  CHECK_RAISED("IndexError", "ffi.ListSetItem: index 5 out of range for ffi.List of size 3");
  CHECK(call("ffi.ListGetItem", la, 2, &r2) != 0);
  CHECK_RAISED("IndexError", "ffi.ListGetItem");
  CHECK(call("ffi.ListSetItem", la, 2, &r2) != 0);
  CHECK_RAISED("TypeError", "expects 3 arguments");
  CHECK(call("ffi.ListAppend", la, 3, &r2) != 0);
  CHECK_RAISED("TypeError", "expects 2 arguments");
  TVMFFIAny wrong[2] = {O(a), I(0)};
  CHECK(call("ffi.ListAppend", wrong, 2, &r2) != 0);
  CHECK_RAISED("TypeError", "expected ffi.List but got ffi.Array");
  CHECK(call("ffi.ListGetItem", wrong, 2, &r2) != 0);
  CHECK_RAISED("TypeError", "ffi.List");
  CHECK_OK(call("ffi.ListPop", la, 1, &r2));
  CHECK(r2.v_obj == a);
  tvm_ffi_any_release(&r2);
  CHECK(call("ffi.ListPop", la, 2, &r2) != 0);
  CHECK_RAISED("TypeError", "expects 1 argument but got 2");
  CHECK_OK(call("ffi.ListClear", la, 1, &r2));
  CHECK_EQ_INT(tvm_ffi_seq_size(l), 0);
  CHECK(call("ffi.ListPop", la, 1, &r2) != 0);
  CHECK_RAISED("IndexError", "empty");
  CHECK(call("ffi.ListClear", wrong, 1, &r2) != 0);
  CHECK_RAISED("TypeError", "ffi.List");
  TVMFFIAny bad = tvm_ffi_any_raw_str(NULL);
  CHECK(call("ffi.List", &bad, 1, &r2) != 0);
  CHECK_RAISED("ValueError", "NULL pointer");
  CHECK(call("ffi.Array", &bad, 1, &r2) != 0);
  CHECK_RAISED("ValueError", "NULL pointer");
  tvm_ffi_release(l);
  tvm_ffi_release(a);
  CHECK_EQ_INT(tvm_ffi_strong_count(obj), 1);
  tvm_ffi_release(obj);
}

TEST(globals_map_dict) {
  TVMFFIAny r, r2;
  TVMFFIAny kv[6] = {S("a"), I(1), I(2), S("a long string value here"), S("a"), I(3)};
  CHECK_OK(call("ffi.Map", kv, 6, &r));
  void* m = r.v_obj;
  CHECK_EQ_INT(r.type_index, kTVMFFIMap);
  TVMFFIAny q[2] = {O(m), S("a")};
  CHECK_OK(call("ffi.MapSize", q, 1, &r2));
  CHECK_EQ_INT(int_of(&r2), 2);
  CHECK_OK(call("ffi.MapGetItem", q, 2, &r2));
  CHECK_EQ_INT(int_of(&r2), 3);
  CHECK_OK(call("ffi.MapCount", q, 2, &r2));
  CHECK_EQ_INT(int_of(&r2), 1);
  q[1] = S("missing");
  CHECK_OK(call("ffi.MapCount", q, 2, &r2));
  CHECK_EQ_INT(int_of(&r2), 0);
  CHECK(call("ffi.MapGetItem", q, 2, &r2) != 0);
  CHECK_RAISED("KeyError", "ffi.MapGetItem: key \"missing\" not found");
  q[1] = I(99);
  CHECK(call("ffi.MapGetItem", q, 2, &r2) != 0);
  CHECK_RAISED("KeyError", "key 99 not found");
  CHECK_OK(call("ffi.MapItems", q, 1, &r2));
  CHECK_EQ_INT(r2.type_index, kTVMFFIArray);
  CHECK_EQ_INT(tvm_ffi_seq_size(r2.v_obj), 4);
  char buf[64];
  CHECK_STR_EQ(str_of(tvm_ffi_seq_at(r2.v_obj, 0), buf, sizeof(buf)), "a");
  CHECK_EQ_INT(int_of(tvm_ffi_seq_at(r2.v_obj, 1)), 3);
  CHECK_EQ_INT(int_of(tvm_ffi_seq_at(r2.v_obj, 2)), 2);
  CHECK_STR_EQ(str_of(tvm_ffi_seq_at(r2.v_obj, 3), buf, sizeof(buf)), "a long string value here");
  tvm_ffi_any_release(&r2);
  CHECK(call("ffi.Map", kv, 5, &r2) != 0);
  CHECK_RAISED("ValueError", "even number of arguments");
  CHECK(call("ffi.MapGetItem", q, 1, &r2) != 0);
  CHECK_RAISED("TypeError", "ffi.MapGetItem expects 2 arguments but got 1");
  CHECK(call("ffi.MapCount", q, 3, &r2) != 0);
  CHECK_RAISED("TypeError", "expects 2 arguments");
  TVMFFIAny wrong[2] = {I(5), I(1)};
  CHECK(call("ffi.MapSize", wrong, 1, &r2) != 0);
  CHECK_RAISED("TypeError", "expected ffi.Map but got int");
  CHECK(call("ffi.MapItems", wrong, 1, &r2) != 0);
  CHECK_RAISED("TypeError", "ffi.Map");
  CHECK_OK(call("ffi.Map", NULL, 0, &r2));
  CHECK_EQ_INT(tvm_ffi_map_size(r2.v_obj), 0);
  tvm_ffi_any_release(&r2);

  /* Dict */
  CHECK_OK(call("ffi.Dict", kv, 4, &r2));
  void* d = r2.v_obj;
  CHECK_EQ_INT(r2.type_index, kTVMFFIDict);
  TVMFFIAny da[3] = {O(d), S("k"), O(m)};
  CHECK_OK(call("ffi.DictSetItem", da, 3, &r2));
  CHECK_EQ_INT(tvm_ffi_strong_count(m), 2);
  CHECK_OK(call("ffi.DictSize", da, 1, &r2));
  CHECK_EQ_INT(int_of(&r2), 3);
  CHECK_OK(call("ffi.DictGetItem", da, 2, &r2));
  CHECK(r2.v_obj == m);
  tvm_ffi_any_release(&r2);
  CHECK_OK(call("ffi.DictCount", da, 2, &r2));
  CHECK_EQ_INT(int_of(&r2), 1);
  CHECK_OK(call("ffi.DictItems", da, 1, &r2));
  CHECK_EQ_INT(tvm_ffi_seq_size(r2.v_obj), 6);
  CHECK(tvm_ffi_seq_obj_at(r2.v_obj, 5) == m);
  tvm_ffi_any_release(&r2);
  CHECK_OK(call("ffi.DictErase", da, 2, &r2));
  CHECK_EQ_INT(tvm_ffi_strong_count(m), 1);
  CHECK(call("ffi.DictErase", da, 2, &r2) != 0);
  CHECK_RAISED("KeyError", "ffi.DictErase: key \"k\" not found");
  CHECK(call("ffi.DictGetItem", da, 2, &r2) != 0);
  CHECK_RAISED("KeyError", "ffi.DictGetItem: key \"k\" not found");
  CHECK_OK(call("ffi.DictCount", da, 2, &r2));
  CHECK_EQ_INT(int_of(&r2), 0);
  CHECK(call("ffi.DictSetItem", da, 2, &r2) != 0);
  CHECK_RAISED("TypeError", "expects 3 arguments");
  TVMFFIAny onmap[3] = {O(m), I(1), I(2)};
  CHECK(call("ffi.DictSetItem", onmap, 3, &r2) != 0);
  CHECK_RAISED("TypeError", "expected ffi.Dict but got ffi.Map");
  CHECK(call("ffi.DictErase", onmap, 2, &r2) != 0);
  CHECK_RAISED("TypeError", "ffi.Dict");
  CHECK(call("ffi.DictSize", onmap, 1, &r2) != 0);
  CHECK_RAISED("TypeError", "ffi.Dict");
  CHECK(call("ffi.Dict", kv, 3, &r2) != 0);
  CHECK_RAISED("ValueError", "ffi.Dict expects alternating keys and values");
  TVMFFIAny bad[3] = {O(d), tvm_ffi_any_raw_str(NULL), I(1)};
  CHECK(call("ffi.DictSetItem", bad, 3, &r2) != 0);
  CHECK_RAISED("ValueError", "NULL pointer");
  CHECK(call("ffi.DictGetItem", bad, 2, &r2) != 0);
  CHECK_RAISED("ValueError", "NULL pointer");
  CHECK(call("ffi.Map", bad + 1, 2, &r2) != 0);
  CHECK_RAISED("ValueError", "NULL pointer");
  tvm_ffi_release(d);
  tvm_ffi_release(m);
}

/* A missing key with an error left raised by an earlier call (upstream's functions never read
 * the slot): Count is 0 and GetItem / Erase raise their own KeyError, a bad key its own error;
 * the stale error is gone after a failure (replaced) and stays after a success. */
TEST(globals_map_dict_stale_error) {
  TVMFFIAny kv[2] = {S("a"), I(1)}, r = tvm_ffi_any_none();
  CHECK_OK(call("ffi.Map", kv, 2, &r));
  void* m = r.v_obj;
  CHECK_OK(call("ffi.Dict", kv, 2, &r));
  void* d = r.v_obj;
  TVMFFIAny mq[2] = {O(m), S("zz")}, dq[2] = {O(d), S("zz")};
  const char* counts[2] = {"ffi.MapCount", "ffi.DictCount"};
  const char* gets[2] = {"ffi.MapGetItem", "ffi.DictGetItem"};
  for (int i = 0; i < 2; ++i) {
    tvm_ffi_raise("RuntimeError", "stale");
    CHECK_OK(call(counts[i], i ? dq : mq, 2, &r));
    CHECK_EQ_INT(int_of(&r), 0);
    CHECK_RAISED("RuntimeError", "stale");
    tvm_ffi_raise("RuntimeError", "stale");
    CHECK(call(gets[i], i ? dq : mq, 2, &r) != 0);
    CHECK_RAISED("KeyError", "key \"zz\" not found");
  }
  tvm_ffi_raise("RuntimeError", "stale");
  CHECK(call("ffi.DictErase", dq, 2, &r) != 0);
  CHECK_RAISED("KeyError", "ffi.DictErase: key \"zz\" not found");
  TVMFFIAny bad[2] = {O(d), tvm_ffi_any_raw_str(NULL)};
  tvm_ffi_raise("RuntimeError", "stale");
  CHECK(call("ffi.DictGetItem", bad, 2, &r) != 0);
  CHECK_RAISED("ValueError", "NULL pointer");
  tvm_ffi_release(d);
  tvm_ffi_release(m);
}

TEST(globals_map_iter) {
  TVMFFIAny kv[4] = {S("x"), I(10), S("y"), I(20)};
  TVMFFIAny r, f, out;
  CHECK_OK(call("ffi.Map", kv, 4, &r));
  CHECK_OK(call("ffi.MapForwardIterFunctor", &r, 1, &f));
  TVMFFIAny cmd[3] = {I(0), I(1), I(2)};
  char buf[8];
  CHECK_OK(tvm_ffi_function_call(f.v_obj, &cmd[0], 1, &out));
  CHECK_STR_EQ(str_of(&out, buf, sizeof(buf)), "x");
  CHECK_OK(tvm_ffi_function_call(f.v_obj, &cmd[1], 1, &out));
  CHECK_EQ_INT(int_of(&out), 10);
  CHECK_OK(tvm_ffi_function_call(f.v_obj, &cmd[2], 1, &out));
  CHECK(out.type_index == kTVMFFIBool && out.v_int64 == 1);
  CHECK_OK(tvm_ffi_function_call(f.v_obj, &cmd[1], 1, &out));
  CHECK_EQ_INT(int_of(&out), 20);
  CHECK_OK(tvm_ffi_function_call(f.v_obj, &cmd[2], 1, &out));
  CHECK(out.type_index == kTVMFFIBool && out.v_int64 == 0);
  CHECK(tvm_ffi_function_call(f.v_obj, &cmd[0], 1, &out) != 0);
  CHECK_RAISED("IndexError", "exhausted");
  TVMFFIAny seven = I(7);
  CHECK(tvm_ffi_function_call(f.v_obj, &seven, 1, &out) != 0);
  CHECK_RAISED("ValueError", "command");
  CHECK(tvm_ffi_function_call(f.v_obj, cmd, 2, &out) != 0);
  CHECK_RAISED("TypeError", "expects 1 argument");
  tvm_ffi_any_release(&r); /* the functor keeps the map alive */
  tvm_ffi_any_release(&f);
  TVMFFIAny d;
  CHECK_OK(call("ffi.Dict", NULL, 0, &d));
  CHECK(call("ffi.MapForwardIterFunctor", &d, 1, &f) != 0);
  CHECK_RAISED("TypeError", "expected ffi.Map but got ffi.Dict");
  tvm_ffi_any_release(&d);
}

TEST(globals_shape) {
  TVMFFIAny dims[3] = {I(2), I(3), tvm_ffi_any_bool(true)};
  TVMFFIAny r, r2;
  CHECK_OK(call("ffi.Shape", dims, 3, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIShape);
  CHECK_EQ_INT(tvm_ffi_shape_ndim(r.v_obj), 3);
  CHECK_EQ_INT(tvm_ffi_shape_data(r.v_obj)[2], 1);
  TVMFFIAny q[2] = {r, I(1)};
  CHECK_OK(call("ffi.ShapeGetItem", q, 2, &r2));
  CHECK_EQ_INT(int_of(&r2), 3);
  CHECK_OK(call("ffi.ShapeSize", q, 1, &r2));
  CHECK_EQ_INT(int_of(&r2), 3);
  q[1] = I(3);
  CHECK(call("ffi.ShapeGetItem", q, 2, &r2) != 0);
  CHECK_RAISED("IndexError", "ffi.ShapeGetItem: index 3 out of range for ffi.Shape of size 3");
  CHECK(call("ffi.ShapeSize", q, 2, &r2) != 0);
  CHECK_RAISED("TypeError", "expects 1 argument");
  TVMFFIAny bad[2] = {I(1), S("x")};
  CHECK(call("ffi.Shape", bad, 2, &r2) != 0);
  CHECK_RAISED("TypeError", "argument #1 when calling `ffi.Shape`: expected int but got ffi.String");
  CHECK(call("ffi.ShapeGetItem", bad, 2, &r2) != 0);
  CHECK_RAISED("TypeError", "expected ffi.Shape but got int");
  CHECK_OK(call("ffi.Shape", NULL, 0, &r2));
  CHECK_EQ_INT(tvm_ffi_shape_ndim(r2.v_obj), 0);
  tvm_ffi_any_release(&r2);
  tvm_ffi_any_release(&r);
}

/* An rvalue-reference key reads through to the object without moving it. */
TEST(rvalue_ref_keys) {
  void* key = tvm_ffi_list_new();
  void* d = tvm_ffi_dict_new();
  TVMFFIAny k = O(key), v = I(1);
  CHECK_OK(tvm_ffi_dict_set(d, &k, &v));
  void* slot = key;
  TVMFFIAny rv = tvm_ffi_any_none();
  rv.type_index = kTVMFFIObjectRValueRef;
  rv.v_ptr = &slot;
  CHECK_EQ_INT(int_of(tvm_ffi_map_get(d, &rv)), 1);
  CHECK(slot == key);
  CHECK(tvm_ffi_dict_erase(d, &rv));
  CHECK_EQ_INT(tvm_ffi_strong_count(key), 1);
  void* nslot = NULL;
  rv.v_ptr = &nslot; /* an rvalue slot holding NULL reads as None */
  CHECK(tvm_ffi_map_get(d, &rv) == NULL);
  CHECK(!tvm_ffi_error_pending());
  rv.v_ptr = NULL;
  CHECK(tvm_ffi_map_get(d, &rv) == NULL);
  CHECK_RAISED("ValueError", "NULL pointer");
  tvm_ffi_release(d);
  tvm_ffi_release(key);
}

int main(void) {
  tvm_ffi_init();
  RUN(layout);
  RUN(type_registration);
  RUN(array_basic);
  RUN(array_bad_inputs);
  RUN(array_take_and_objects);
  RUN(list_growth_and_mutation);
  RUN(list_bad_inputs);
  RUN(map_keys);
  RUN(map_duplicates_and_order);
  RUN(map_bad_inputs);
  RUN(dict_identity_and_growth);
  RUN(dict_small_inline_entries);
  RUN(dict_erase_and_reinsert);
  RUN(dict_model_small);
  RUN(dict_model_large);
  RUN(map_key_kinds);
  RUN(shape);
  RUN(globals_array_list);
  RUN(globals_map_dict);
  RUN(globals_map_dict_stale_error);
  RUN(globals_map_iter);
  RUN(globals_shape);
  RUN(rvalue_ref_keys);
  return test_summary();
}
