/* test_core.c: objects and reference counts, types and reflection, strings, errors, functions
 * and the global registry. */
#include <pthread.h>

#include "test_util.h"

/* ---- A test object type with reflected fields ------------------------------------------- */
typedef struct {
  TVMFFIObject header;
  int64_t count;
  double scale;
  DLDataType dtype;
  void* child; /* test.Node or NULL */
  TVMFFIAny payload;
  uint8_t flag;
} node_obj;

static int32_t node_type(void) {
  static int32_t idx = -1;
  if (idx >= 0) return idx;
  idx = tvm_ffi_type_register("test.Node", kTVMFFIObject, -1, sizeof(node_obj), NULL,
                              kTVMFFISEqHashKindTreeNode);
  static const tvm_ffi_field_def fields[] = {
      TVM_FFI_FIELD(node_obj, count, kTVMFFIInt, 0),
      TVM_FFI_FIELD(node_obj, scale, kTVMFFIFloat, 0),
      TVM_FFI_FIELD(node_obj, dtype, kTVMFFIDataType, 0),
      TVM_FFI_FIELD(node_obj, child, kTVMFFIObject, 0),
      TVM_FFI_FIELD(node_obj, payload, kTVMFFIAny, 0),
      TVM_FFI_FIELD(node_obj, flag, kTVMFFIBool, 0),
  };
  CHECK_OK(tvm_ffi_type_add_fields(idx, fields, 6));
  return idx;
}

static node_obj* node_new(int64_t count, void* child_take) {
  node_obj* n = (node_obj*)tvm_ffi_object_new(node_type(), sizeof(node_obj));
  n->count = count;
  n->child = child_take;
  return n;
}

TEST(refcount_and_destruction) {
  node_obj* leaf = node_new(1, NULL);
  CHECK_EQ_INT(leaf->header.combined_ref_count, 0x100000001ull);
  CHECK_EQ_INT(tvm_ffi_strong_count(leaf), 1);
  CHECK_EQ_INT(tvm_ffi_weak_count(leaf), 1);
  tvm_ffi_retain(leaf);
  CHECK_OK(TVMFFIObjectIncRef(leaf));
  CHECK_EQ_INT(tvm_ffi_strong_count(leaf), 3);
  CHECK_OK(TVMFFIObjectDecRef(leaf));
  tvm_ffi_release(leaf);
  /* The parent owns the leaf through a reflected object field: releasing the parent releases
   * the leaf (checked by ASan/LSan: no leak, no double free). */
  tvm_ffi_retain(leaf);
  node_obj* parent = node_new(2, leaf);
  parent->payload = tvm_ffi_string("a string longer than seven bytes");
  tvm_ffi_release(parent);
  CHECK_EQ_INT(tvm_ffi_strong_count(leaf), 1);
  tvm_ffi_release(leaf);
  tvm_ffi_release(NULL);
  CHECK(TVMFFIObjectIncRef(NULL) != 0);
  CHECK_RAISED("ValueError", "NULL");
  CHECK(TVMFFIObjectDecRef(NULL) != 0);
  CHECK_RAISED("ValueError", "NULL");
}

TEST(weak_references) {
  node_obj* n = node_new(7, NULL);
  tvm_ffi_weak_retain(n);
  CHECK_EQ_INT(tvm_ffi_weak_count(n), 2);
  void* locked = tvm_ffi_weak_lock(n);
  CHECK(locked == n);
  tvm_ffi_release(locked);
  tvm_ffi_release(n); /* contents destroyed, memory kept by the weak reference */
  CHECK_EQ_INT(tvm_ffi_strong_count(n), 0);
  CHECK(tvm_ffi_weak_lock(n) == NULL);
  tvm_ffi_weak_release(n); /* frees the block */
}

static int deleter_flags[4];
static int deleter_calls;
static void counting_deleter(void* self, int flags) {
  deleter_flags[deleter_calls++ & 3] = flags;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) tvm_ffi_free(self);
}

TEST(deleter_flags_follow_abi) {
  /* An object made by hand, as a foreign runtime would, with its own deleter. */
  TVMFFIObject* o = (TVMFFIObject*)tvm_ffi_calloc(1, sizeof(TVMFFIObject));
  o->combined_ref_count = 0x100000001ull;
  o->type_index = kTVMFFIObject;
  o->deleter = counting_deleter;
  deleter_calls = 0;
  TVMFFIObjectDecRef(o);
  CHECK_EQ_INT(deleter_calls, 1);
  CHECK_EQ_INT(deleter_flags[0], kTVMFFIObjectDeleterFlagBitMaskBoth);

  o = (TVMFFIObject*)tvm_ffi_calloc(1, sizeof(TVMFFIObject));
  o->combined_ref_count = 0x100000001ull;
  o->type_index = kTVMFFIObject;
  o->deleter = counting_deleter;
  deleter_calls = 0;
  tvm_ffi_weak_retain(o);
  TVMFFIObjectDecRef(o);
  CHECK_EQ_INT(deleter_calls, 1);
  CHECK_EQ_INT(deleter_flags[0], kTVMFFIObjectDeleterFlagBitMaskStrong);
  tvm_ffi_weak_release(o);
  CHECK_EQ_INT(deleter_calls, 2);
  CHECK_EQ_INT(deleter_flags[1], kTVMFFIObjectDeleterFlagBitMaskWeak);
}

TEST(type_registry) {
  int32_t t = node_type();
  CHECK(t >= kTVMFFIDynObjectBegin);
  CHECK_EQ_INT(tvm_ffi_type_find("test.Node"), t);
  CHECK_EQ_INT(tvm_ffi_type_find("test.Missing"), -1);
  /* Re-registering the same key returns the same index. */
  CHECK_EQ_INT(tvm_ffi_type_register("test.Node", kTVMFFIObject, -1, sizeof(node_obj), NULL,
                                     kTVMFFISEqHashKindTreeNode),
               t);
  int32_t child = tvm_ffi_type_register("test.SubNode", t, -1, sizeof(node_obj), NULL,
                                        kTVMFFISEqHashKindTreeNode);
  CHECK(child > t);
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(child);
  CHECK_EQ_INT(info->type_depth, 2);
  CHECK_EQ_INT(info->type_ancestors[0]->type_index, kTVMFFIObject);
  CHECK_EQ_INT(info->type_ancestors[1]->type_index, t);
  node_obj* sub = (node_obj*)tvm_ffi_object_new(child, sizeof(node_obj));
  CHECK(tvm_ffi_instance_of(sub, child));
  CHECK(tvm_ffi_instance_of(sub, t));
  CHECK(tvm_ffi_instance_of(sub, kTVMFFIObject));
  CHECK(!tvm_ffi_instance_of(sub, kTVMFFIStr));
  /* Inherited fields are visible and the inherited destructor releases them. */
  const TVMFFIFieldInfo* const* fields;
  CHECK_EQ_INT(tvm_ffi_type_all_fields(child, &fields), 6);
  sub->child = node_new(3, NULL);
  tvm_ffi_release(sub);

  TVMFFIByteArray bad = {"test.Bad", 8};
  CHECK_EQ_INT(TVMFFITypeGetOrAllocIndex(&bad, -1, 5, 0, 0, kTVMFFIObject), -1);
  CHECK_RAISED("RuntimeError", "depth");
  CHECK_EQ_INT(TVMFFITypeGetOrAllocIndex(&bad, kTVMFFIStr, 1, 0, 0, kTVMFFIObject), -1);
  CHECK_RAISED("RuntimeError", "already used");
  CHECK_EQ_INT(tvm_ffi_type_register("test.Orphan", 4000, -1, 32, NULL, 1), -1);
  CHECK_RAISED("RuntimeError", "unknown parent");
  TVMFFIByteArray missing = {"no.such.Type", 12};
  int32_t idx;
  CHECK(TVMFFITypeKeyToIndex(&missing, &idx) != 0);
  CHECK_RAISED("KeyError", "no.such.Type");
}

TEST(reflection_fields) {
  node_obj* n = node_new(5, NULL);
  const TVMFFIFieldInfo* f = tvm_ffi_type_find_field(node_type(), "count");
  CHECK(f != NULL);
  TVMFFIAny v;
  CHECK_OK(tvm_ffi_field_get(n, f, &v));
  CHECK_EQ_INT(v.type_index, kTVMFFIInt);
  CHECK_EQ_INT(v.v_int64, 5);
  TVMFFIAny nine = tvm_ffi_any_int(9);
  CHECK_OK(tvm_ffi_field_set(n, f, &nine));
  CHECK_EQ_INT(n->count, 9);
  TVMFFIAny s = tvm_ffi_any_raw_str("x");
  CHECK(tvm_ffi_field_set(n, f, &s) != 0);
  CHECK_RAISED("TypeError", "expected an int");

  const TVMFFIFieldInfo* dt = tvm_ffi_type_find_field(node_type(), "dtype");
  TVMFFIAny dts = tvm_ffi_any_raw_str("float16x4");
  CHECK_OK(tvm_ffi_field_set(n, dt, &dts));
  CHECK_EQ_INT(n->dtype.code, kDLFloat);
  CHECK_EQ_INT(n->dtype.bits, 16);
  CHECK_EQ_INT(n->dtype.lanes, 4);

  /* Object fields check the static type and box short strings. */
  const TVMFFIFieldInfo* child = tvm_ffi_type_find_field(node_type(), "child");
  void* other = node_new(1, NULL);
  TVMFFIAny ov = tvm_ffi_any_obj(other);
  CHECK_OK(tvm_ffi_field_set(n, child, &ov));
  CHECK(n->child == other);
  CHECK_EQ_INT(tvm_ffi_strong_count(other), 2);
  TVMFFIAny none = tvm_ffi_any_none();
  CHECK_OK(tvm_ffi_field_set(n, child, &none));
  CHECK(n->child == NULL);
  CHECK_EQ_INT(tvm_ffi_strong_count(other), 1);
  tvm_ffi_release(other);

  const TVMFFIFieldInfo* payload = tvm_ffi_type_find_field(node_type(), "payload");
  TVMFFIAny raw = tvm_ffi_any_raw_str("owned copy of a raw string");
  CHECK_OK(tvm_ffi_field_set(n, payload, &raw));
  CHECK_EQ_INT(n->payload.type_index, kTVMFFIStr);
  CHECK(tvm_ffi_type_find_field(node_type(), "nope") == NULL);
  tvm_ffi_release(n);
}

TEST(type_attrs_and_methods) {
  TVMFFIByteArray name = {"test.attr", 9};
  CHECK(TVMFFIGetTypeAttrColumn(&name) == NULL);
  TVMFFIAny v = tvm_ffi_any_int(42);
  CHECK_OK(TVMFFITypeRegisterAttr(node_type(), &name, &v));
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&name);
  CHECK(col != NULL);
  int32_t t = node_type();
  CHECK(t - col->begin_index < col->size);
  CHECK_EQ_INT(col->data[t - col->begin_index].v_int64, 42);
  CHECK_EQ_INT(col->data[kTVMFFIStr - col->begin_index].type_index, kTVMFFINone);
  CHECK(TVMFFITypeRegisterAttr(99999, &name, &v) != 0);
  CHECK_RAISED("IndexError", "out of range");

  TVMFFIMethodInfo m;
  memset(&m, 0, sizeof(m));
  m.name.data = "bad";
  m.name.size = 3;
  m.method = tvm_ffi_any_int(1);
  CHECK(TVMFFITypeRegisterMethod(node_type(), &m) != 0);
  CHECK_RAISED("TypeError", "not a Function");
}

TEST(strings_small_and_large) {
  TVMFFIAny small = tvm_ffi_string("1234567");
  CHECK_EQ_INT(small.type_index, kTVMFFISmallStr);
  CHECK_EQ_INT(small.small_str_len, 7);
  TVMFFIAny big = tvm_ffi_string("12345678");
  CHECK_EQ_INT(big.type_index, kTVMFFIStr);
  TVMFFIByteArray b;
  CHECK(tvm_ffi_any_as_bytes(&big, &b));
  CHECK_EQ_INT(b.size, 8);
  CHECK_EQ_INT(b.data[8], '\0');
  CHECK(tvm_ffi_any_equal(&small, &small));
  TVMFFIAny raw = tvm_ffi_any_raw_str("12345678");
  CHECK(tvm_ffi_any_equal(&big, &raw));
  CHECK_EQ_INT(tvm_ffi_any_hash(&big), tvm_ffi_any_hash(&raw));
  TVMFFIAny bytes = tvm_ffi_bytes_n("12345678", 8);
  CHECK_EQ_INT(bytes.type_index, kTVMFFIBytes);
  CHECK(!tvm_ffi_any_equal(&bytes, &big));
  TVMFFIByteArray in = {"abc", 3};
  TVMFFIAny out;
  CHECK_OK(TVMFFIBytesFromByteArray(&in, &out));
  CHECK_EQ_INT(out.type_index, kTVMFFISmallBytes);
  TVMFFIAny owned;
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&raw, &owned));
  CHECK_EQ_INT(owned.type_index, kTVMFFIStr);
  CHECK_STR_EQ(tvm_ffi_any_type_name(&small), "ffi.String");
  tvm_ffi_any_release(&owned);
  tvm_ffi_any_release(&big);
  tvm_ffi_any_release(&bytes);
  tvm_ffi_any_release(&small);
  CHECK(TVMFFIStringFromByteArray(NULL, &out) != 0);
  CHECK_RAISED("ValueError", "NULL");

  tvm_ffi_strbuf sb = {0};
  for (int i = 0; i < 1000; ++i) tvm_ffi_strbuf_printf(&sb, "%d,", i);
  CHECK(sb.size > 3000);
  CHECK(strncmp(tvm_ffi_strbuf_cstr(&sb), "0,1,2,", 6) == 0);
  tvm_ffi_strbuf_free(&sb);
  void* s = tvm_ffi_str_obj_printf("%s-%d", "x", 5);
  CHECK_STR_EQ(tvm_ffi_str_cstr(s), "x-5");
  tvm_ffi_release(s);
}

static int cmp_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

/* tvm_ffi_hash_bytes reads every byte of a short text (up to eight it is one-to-one: the
 * length, then the bytes in one word), whatever the length: no two of these texts collide,
 * and a string key's Map lookup agrees with it. */
TEST(hash_bytes_reads_every_byte) {
  enum { ALPHA = 12, SHORT = 1 + ALPHA + ALPHA * ALPHA + ALPHA * ALPHA * ALPHA, LONG = 30 };
  uint64_t* h = malloc((SHORT + LONG * 40) * sizeof(uint64_t));
  size_t n = 0;
  char t[40];
  /* Every text of 0-3 bytes over a 12-letter alphabet. */
  for (int len = 0; len <= 3; ++len) {
    int count = len == 0 ? 1 : len == 1 ? ALPHA : len == 2 ? ALPHA * ALPHA : ALPHA * ALPHA * ALPHA;
    for (int i = 0; i < count; ++i) {
      for (int j = 0, v = i; j < len; ++j, v /= ALPHA) t[j] = (char)('a' + v % ALPHA);
      h[n++] = tvm_ffi_hash_bytes(t, (size_t)len);
    }
  }
  CHECK_EQ_INT(n, SHORT);
  /* Texts of 4-33 bytes, each once as is and once with one byte changed, at every place. */
  for (int len = 4; len < 4 + LONG; ++len) {
    memset(t, 'x', sizeof(t));
    h[n++] = tvm_ffi_hash_bytes(t, (size_t)len);
    for (int at = 0; at < len && at < 39; ++at) {
      t[at] = 'y';
      h[n++] = tvm_ffi_hash_bytes(t, (size_t)len);
      t[at] = 'x';
    }
  }
  qsort(h, n, sizeof(uint64_t), cmp_u64);
  size_t same = 0;
  for (size_t i = 1; i < n; ++i) same += h[i] == h[i - 1];
  CHECK_EQ_INT(same, 0);
  free(h);
  CHECK_EQ_INT(tvm_ffi_hash_bytes(NULL, 0), tvm_ffi_hash_bytes("", 0));
  CHECK_EQ_INT(tvm_ffi_hash_bytes("abcdefghij", 10), tvm_ffi_hash_bytes("abcdefghijk", 10));

  /* A Map with a string key finds it by its text, on both sides of eight bytes. */
  const char* keys[] = {"a", "dtype", "12345678", "global_symbol", "a_rather_long_attribute"};
  for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); ++i) {
    TVMFFIAny k = tvm_ffi_string(keys[i]), v = tvm_ffi_any_int((int64_t)i);
    void* m = tvm_ffi_map_new(&k, &v, 1);
    const TVMFFIAny* got = tvm_ffi_map_get_str(m, keys[i]);
    CHECK(got && got->v_int64 == (int64_t)i);
    CHECK(!tvm_ffi_map_get_str(m, "b"));
    tvm_ffi_any_release(&k);
    tvm_ffi_release(m);
  }
}

TEST(errors) {
  void* none = (void*)1;
  TVMFFIErrorMoveFromRaised(&none);
  CHECK(none == NULL);

  TVMFFIErrorSetRaisedFromCStr("ValueError", "bad value");
  void* e = NULL;
  TVMFFIErrorMoveFromRaised(&e);
  CHECK(e != NULL);
  CHECK_EQ_INT(tvm_ffi_type_index(e), kTVMFFIError);
  TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(e);
  CHECK_STR_EQ(cell->kind.data, "ValueError");
  CHECK_STR_EQ(cell->message.data, "bad value");
  CHECK(cell->backtrace.data != NULL);
  TVMFFIByteArray extra = {"frame A\n", 8};
  cell->update_backtrace(e, &extra, kTVMFFIBacktraceUpdateModeReplace);
  cell->update_backtrace(e, &extra, kTVMFFIBacktraceUpdateModeAppend);
  CHECK_STR_EQ(cell->backtrace.data, "frame A\nframe A\n");
  /* Raise an existing error object: the slot takes its own reference. */
  TVMFFIErrorSetRaised(e);
  tvm_ffi_release(e);
  CHECK_RAISED("ValueError", "bad value");

  const char* parts[] = {"Argument 1 mismatch in `f(x)`", NULL, ", dtype mismatch"};
  TVMFFIErrorSetRaisedFromCStrParts("TypeError", parts, 3);
  void* pe = tvm_ffi_error_take();
  CHECK_STR_EQ(tvm_ffi_error_message(pe), "Argument 1 mismatch in `f(x)`, dtype mismatch");
  tvm_ffi_release(pe);

  tvm_ffi_raise("IndexError", "index %d out of range [0, %d)", 7, 3);
  tvm_ffi_raise_context("while reading `%s`", "x.bin");
  void* ce = tvm_ffi_error_take();
  CHECK_STR_EQ(tvm_ffi_error_kind(ce), "IndexError");
  CHECK_STR_EQ(tvm_ffi_error_message(ce), "while reading `x.bin`: index 7 out of range [0, 3)");
  void* cause = TVMFFIErrorGetCellPtr(ce)->cause_chain;
  CHECK(cause != NULL);
  CHECK_STR_EQ(tvm_ffi_error_message(cause), "index 7 out of range [0, 3)");
  tvm_ffi_release(ce);

  TVMFFIByteArray kind = {"RuntimeError", 12}, msg = {"m", 1};
  void* a = NULL;
  void* b = NULL;
  CHECK_OK(TVMFFIErrorCreate(&kind, &msg, NULL, &a));
  CHECK_OK(TVMFFIErrorCreateWithCauseAndExtraContext(&kind, &msg, NULL, a, a, &b));
  CHECK(TVMFFIErrorGetCellPtr(b)->cause_chain == a);
  CHECK_EQ_INT(tvm_ffi_strong_count(a), 3);
  tvm_ffi_release(b);
  CHECK_EQ_INT(tvm_ffi_strong_count(a), 1);
  tvm_ffi_release(a);

  /* Long messages are kept whole. */
  char longmsg[3000];
  memset(longmsg, 'x', sizeof(longmsg) - 1);
  longmsg[sizeof(longmsg) - 1] = '\0';
  tvm_ffi_raise("ValueError", "%s", longmsg);
  void* le = tvm_ffi_error_take();
  CHECK_EQ_INT(strlen(tvm_ffi_error_message(le)), sizeof(longmsg) - 1);
  tvm_ffi_release(le);

  const TVMFFIByteArray* bt = TVMFFIBacktrace("file.c", 3, "fn", 0);
  CHECK_STR_CONTAINS(bt->data, "file.c");
}

static void* thread_error_check(void* arg) {
  (void)arg;
  /* The raised error is thread-local: nothing is raised in a fresh thread. */
  return (void*)(intptr_t)tvm_ffi_error_pending();
}

TEST(errors_are_thread_local) {
  tvm_ffi_raise("RuntimeError", "main thread");
  pthread_t th;
  void* r = (void*)1;
  pthread_create(&th, NULL, thread_error_check, NULL);
  pthread_join(th, &r);
  CHECK(r == NULL);
  CHECK_RAISED("RuntimeError", "main thread");
}

/* Marks tell an error raised after them from an older one. */
TEST(error_marks) {
  uint64_t m = tvm_ffi_error_mark();
  CHECK(!tvm_ffi_error_raised_since(m));
  tvm_ffi_raise("ValueError", "new");
  CHECK(tvm_ffi_error_raised_since(m));
  uint64_t after = tvm_ffi_error_mark();
  CHECK(!tvm_ffi_error_raised_since(after)); /* raised, but before this mark */
  tvm_ffi_error_clear();
  CHECK(!tvm_ffi_error_raised_since(m)); /* none raised now */
  /* An error set aside and given back predates marks taken meanwhile. */
  tvm_ffi_raise("RuntimeError", "stale");
  void* stale = tvm_ffi_error_take();
  uint64_t inner = tvm_ffi_error_mark();
  tvm_ffi_error_give_back(stale);
  CHECK(!tvm_ffi_error_raised_since(inner));
  CHECK_RAISED("RuntimeError", "stale");
  /* Raising an existing error object counts as a raise. */
  void* e = tvm_ffi_error_new("TypeError", "object");
  uint64_t m2 = tvm_ffi_error_mark();
  TVMFFIErrorSetRaised(e);
  tvm_ffi_release(e);
  CHECK(tvm_ffi_error_raised_since(m2));
  CHECK_RAISED("TypeError", "object");
}

static int failing_task(int task, int num_tasks, void* closure) {
  (void)task, (void)num_tasks, (void)closure;
  return -5; /* fails without raising */
}


static int add_fn(void* handle, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  int64_t a, b;
  if (!tvm_ffi_check_num_args("add", n, 2) || !tvm_ffi_arg_int("add", args, 0, &a) ||
      !tvm_ffi_arg_int("add", args, 1, &b)) {
    return -1;
  }
  *result = tvm_ffi_any_int(a + b);
  return 0;
}

static void* seen_handle;
static int echo_handle(void* handle, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  seen_handle = handle;
  return 0;
}

static int self_deleted;
static void self_deleter(void* self) { self_deleted += *(int*)self; }

TEST(functions) {
  void* f = NULL;
  CHECK_OK(TVMFFIFunctionCreate(NULL, echo_handle, NULL, &f));
  CHECK(TVMFFIFunctionGetCellPtr(f)->safe_call == echo_handle);
  TVMFFIAny r = tvm_ffi_any_none();
  CHECK_OK(TVMFFIFunctionCall(f, NULL, 0, &r));
  CHECK(seen_handle == f);
  tvm_ffi_release(f);

  static int self = 5;
  self_deleted = 0;
  CHECK_OK(TVMFFIFunctionCreate(&self, echo_handle, self_deleter, &f));
  CHECK_OK(TVMFFIFunctionCall(f, NULL, 0, &r));
  CHECK(seen_handle == &self);
  tvm_ffi_release(f);
  CHECK_EQ_INT(self_deleted, 5);

  f = tvm_ffi_function_new(NULL, add_fn, NULL);
  TVMFFIAny args[2] = {tvm_ffi_any_int(2), tvm_ffi_any_int(40)};
  CHECK_OK(tvm_ffi_function_call(f, args, 2, &r));
  CHECK_EQ_INT(r.v_int64, 42);
  args[1] = tvm_ffi_any_float(1.5);
  CHECK(tvm_ffi_function_call(f, args, 2, &r) != 0);
  CHECK_RAISED("TypeError", "argument #1 when calling `add`: expected int but got float");
  CHECK(tvm_ffi_function_call(f, args, 1, &r) != 0);
  CHECK_RAISED("TypeError", "add expects 2 arguments but got 1");
  tvm_ffi_release(f);
  CHECK(TVMFFIFunctionCreate(NULL, NULL, NULL, &f) != 0);
  CHECK_RAISED("ValueError", "safe_call is NULL");
}

TEST(global_registry) {
  TVMFFIByteArray name = {"test.add", 8};
  void* f = tvm_ffi_function_new(NULL, add_fn, NULL);
  CHECK_OK(TVMFFIFunctionSetGlobal(&name, f, 0));
  CHECK(TVMFFIFunctionSetGlobal(&name, f, 0) != 0);
  CHECK_RAISED("RuntimeError", "test.add");
  CHECK_OK(TVMFFIFunctionSetGlobal(&name, f, 1));
  tvm_ffi_release(f);

  void* g = NULL;
  CHECK_OK(TVMFFIFunctionGetGlobal(&name, &g));
  CHECK(g != NULL);
  TVMFFIAny args[2] = {tvm_ffi_any_int(1), tvm_ffi_any_int(2)};
  TVMFFIAny r = tvm_ffi_any_none();
  CHECK_OK(TVMFFIFunctionCall(g, args, 2, &r));
  CHECK_EQ_INT(r.v_int64, 3);
  tvm_ffi_release(g);

  TVMFFIByteArray missing = {"test.missing", 12};
  g = (void*)1;
  CHECK_OK(TVMFFIFunctionGetGlobal(&missing, &g));
  CHECK(g == NULL);
  CHECK(tvm_ffi_global_call("test.missing", NULL, 0, &r) != 0);
  CHECK_RAISED("ValueError", "test.missing");

  /* Many registrations force the table to grow; all stay reachable. */
  char buf[64];
  for (int i = 0; i < 600; ++i) {
    snprintf(buf, sizeof(buf), "test.many.%d", i);
    CHECK_OK(tvm_ffi_global_register(buf, add_fn, false));
  }
  for (int i = 0; i < 600; i += 37) {
    snprintf(buf, sizeof(buf), "test.many.%d", i);
    void* h = tvm_ffi_global_get(buf);
    CHECK(h != NULL);
    tvm_ffi_release(h);
  }
  CHECK(tvm_ffi_global_remove("test.many.3"));
  CHECK(!tvm_ffi_global_remove("test.many.3"));
  CHECK(tvm_ffi_global_get("test.many.3") == NULL);

  /* The names functor of the ABI. */
  TVMFFIAny fr;
  CHECK_OK(tvm_ffi_global_call("ffi.FunctionListGlobalNamesFunctor", NULL, 0, &fr));
  TVMFFIAny idx = tvm_ffi_any_int(-1);
  TVMFFIAny count;
  CHECK_OK(tvm_ffi_function_call(fr.v_obj, &idx, 1, &count));
  CHECK(count.v_int64 >= 600);
  idx = tvm_ffi_any_int(count.v_int64);
  CHECK(tvm_ffi_function_call(fr.v_obj, &idx, 1, &count) != 0);
  CHECK_RAISED("IndexError", "out of bounds");
  tvm_ffi_any_release(&fr);

  TVMFFIAny rm = tvm_ffi_any_raw_str("test.many.4");
  CHECK_OK(tvm_ffi_global_call("ffi.FunctionRemoveGlobal", &rm, 1, &r));
  CHECK_EQ_INT(r.v_int64, 1);
  TVMFFIAny num = tvm_ffi_any_int(3);
  CHECK(tvm_ffi_global_call("ffi.FunctionRemoveGlobal", &num, 1, &r) != 0);
  CHECK_RAISED("TypeError", "expected str but got int");

  TVMFFIMethodInfo mi;
  memset(&mi, 0, sizeof(mi));
  mi.name.data = "test.with_meta";
  mi.name.size = strlen(mi.name.data);
  mi.metadata.data = "{\"arity\": 2}";
  mi.metadata.size = strlen(mi.metadata.data);
  void* mf = tvm_ffi_function_new(NULL, add_fn, NULL);
  mi.method = tvm_ffi_any_obj(mf);
  CHECK_OK(TVMFFIFunctionSetGlobalFromMethodInfo(&mi, 0));
  tvm_ffi_release(mf);
  TVMFFIAny mname = tvm_ffi_any_raw_str("test.with_meta");
  CHECK_OK(tvm_ffi_global_call("ffi.GetGlobalFuncMetadata", &mname, 1, &r));
  TVMFFIByteArray mb;
  CHECK(tvm_ffi_any_as_bytes(&r, &mb));
  CHECK(mb.size == 12 && memcmp(mb.data, "{\"arity\": 2}", 12) == 0);
  tvm_ffi_any_release(&r);
}

static void* concurrent_lookups(void* arg) {
  intptr_t ok = 1;
  for (int i = 0; i < 20000; ++i) {
    void* f = tvm_ffi_global_get("test.add");
    if (!f) ok = 0;
    tvm_ffi_release(f);
  }
  return (void*)ok;
}

TEST(registry_concurrent_reads_and_writes) {
  pthread_t th[2];
  for (int i = 0; i < 2; ++i) pthread_create(&th[i], NULL, concurrent_lookups, NULL);
  char buf[64];
  for (int i = 0; i < 300; ++i) {
    snprintf(buf, sizeof(buf), "test.concurrent.%d", i);
    tvm_ffi_global_register(buf, add_fn, false);
    tvm_ffi_global_register("test.add", add_fn, true); /* replaced while being read */
  }
  for (int i = 0; i < 2; ++i) {
    void* r = NULL;
    pthread_join(th[i], &r);
    CHECK(r == (void*)1);
  }
}

static int init_calls;
static int make_handle(void** out) {
  init_calls++;
  *out = node_new(11, NULL);
  return 0;
}
static int drop_handle(void* h) {
  tvm_ffi_release(h);
  return 0;
}
static int failing_init(void** out) {
  TVMFFIErrorSetRaisedFromCStr("RuntimeError", "init failed");
  return -1;
}

TEST(handle_init_once) {
  void* h = NULL;
  CHECK_OK(TVMFFIHandleInitOnce(&h, make_handle));
  CHECK_OK(TVMFFIHandleInitOnce(&h, make_handle));
  CHECK_EQ_INT(init_calls, 1);
  CHECK(h != NULL);
  CHECK_OK(TVMFFIHandleDeinitOnce(&h, drop_handle));
  CHECK(h == NULL);
  CHECK_OK(TVMFFIHandleDeinitOnce(&h, drop_handle));
  CHECK(TVMFFIHandleInitOnce(&h, failing_init) != 0);
  CHECK(h == NULL);
  CHECK_RAISED("RuntimeError", "init failed");
}

static int custom_allocs;
static void custom_delete(void* body) { tvm_ffi_free((char*)body - 16); }
static void* custom_allocate(size_t size, size_t align, int32_t type_index, void* ctx) {
  custom_allocs++;
  char* block = (char*)tvm_ffi_malloc(16 + size);
  ((TVMFFIObjectAllocHeader*)(block + 16) - 1)->delete_space = custom_delete;
  return block + 16;
}

/* A custom allocator out of memory (without raising) for the test's node objects only, or for
 * everything. */
static void* no_node_allocate(size_t size, size_t align, int32_t type_index, void* ctx) {
  if (type_index == node_type()) return NULL;
  return custom_allocate(size, align, type_index, ctx);
}
static void* no_allocate(size_t size, size_t align, int32_t type_index, void* ctx) {
  (void)size, (void)align, (void)type_index, (void)ctx;
  return NULL;
}

/* Failures judged by what the step raised, not by an error a caller left raised: a parallel
 * task that fails silently, a custom allocator that returns NULL silently. */
TEST(stale_error_is_not_a_failure_cause) {
  tvm_ffi_raise("RuntimeError", "stale");
  CHECK_EQ_INT(tvm_ffi_parallel_launch(failing_task, NULL, 1), -5);
  CHECK_RAISED("RuntimeError", "parallel task 0 of 1 failed with code -5");
  static TVMFFICustomAllocator no_nodes = {no_node_allocate, NULL};
  tvm_ffi_raise("RuntimeError", "stale");
  CHECK_OK(TVMFFISetCustomAllocator(&no_nodes));
  void* n = tvm_ffi_object_new(node_type(), sizeof(node_obj));
  CHECK_OK(TVMFFISetCustomAllocator(NULL));
  CHECK(n == NULL);
  CHECK_RAISED("MemoryError", "out of memory allocating");
  /* Not even the MemoryError fits: NULL, nothing raised (and no endless recursion). */
  static TVMFFICustomAllocator nothing = {no_allocate, NULL};
  CHECK_OK(TVMFFISetCustomAllocator(&nothing));
  n = tvm_ffi_object_new(node_type(), sizeof(node_obj));
  bool raised = tvm_ffi_error_pending();
  CHECK_OK(TVMFFISetCustomAllocator(NULL));
  CHECK(n == NULL);
  CHECK(!raised);
}

TEST(custom_object_allocator) {
  static TVMFFICustomAllocator mine = {custom_allocate, NULL};
  TVMFFICustomAllocator* def = TVMFFIGetCustomAllocator();
  CHECK(def != NULL);
  CHECK_OK(TVMFFISetCustomAllocator(&mine));
  CHECK(TVMFFIGetCustomAllocator() == &mine);
  void* n = node_new(1, NULL);
  CHECK_EQ_INT(custom_allocs, 1);
  CHECK_OK(TVMFFISetCustomAllocator(NULL));
  CHECK(TVMFFIGetCustomAllocator() == def);
  tvm_ffi_release(n); /* freed by the allocator that made it */
  static TVMFFICustomAllocator broken = {NULL, NULL};
  CHECK(TVMFFISetCustomAllocator(&broken) != 0);
  CHECK_RAISED("ValueError", "allocate is NULL");
}

static void opaque_free(void* handle) { (*(int*)handle)++; }

TEST(opaque_objects) {
  static int freed = 0;
  void* o = NULL;
  CHECK_OK(TVMFFIObjectCreateOpaque(&freed, kTVMFFIOpaquePyObject, opaque_free, &o));
  CHECK(TVMFFIOpaqueObjectGetCellPtr(o)->handle == &freed);
  tvm_ffi_release(o);
  CHECK_EQ_INT(freed, 1);
  CHECK(TVMFFIObjectCreateOpaque(&freed, kTVMFFIStr, opaque_free, &o) != 0);
  CHECK_RAISED("TypeError", "not an opaque object type");
}

TEST(allocator_interface) {
  void* p = tvm_ffi_aligned_alloc(64, 1000);
  CHECK(((uintptr_t)p & 63) == 0);
  tvm_ffi_free(p);
  char* z = (char*)tvm_ffi_calloc(10, 10);
  int zero = 1;
  for (int i = 0; i < 100; ++i) zero &= z[i] == 0;
  CHECK(zero);
  z = (char*)tvm_ffi_realloc(z, 10000);
  tvm_ffi_free(z);
  CHECK(tvm_ffi_calloc(SIZE_MAX / 2, 4) == NULL);
  CHECK_RAISED("MemoryError", "out of memory");
  CHECK(strlen(tvm_ffi_allocator_name()) > 0);
}

TEST(number_text) {
  char buf[40];
  CHECK_EQ_INT(tvm_ffi_format_double(0.1, false, buf, sizeof(buf)), 3);
  CHECK_STR_EQ(buf, "0.1");
  tvm_ffi_format_double(1.0 / 3.0, false, buf, sizeof(buf));
  CHECK(tvm_ffi_strtod(buf, NULL) == 1.0 / 3.0);
  tvm_ffi_format_double((double)0.1f, true, buf, sizeof(buf));
  CHECK_STR_EQ(buf, "0.1");
  tvm_ffi_format_double((double)0.1f, false, buf, sizeof(buf));
  CHECK(strlen(buf) > 8); /* the exact double of 0.1f needs more digits */
  char* end = NULL;
  CHECK(tvm_ffi_strtod("2.5e3x", &end) == 2500.0);
  CHECK(*end == 'x');
}

int main(void) {
  RUN(refcount_and_destruction);
  RUN(weak_references);
  RUN(deleter_flags_follow_abi);
  RUN(type_registry);
  RUN(reflection_fields);
  RUN(type_attrs_and_methods);
  RUN(strings_small_and_large);
  RUN(hash_bytes_reads_every_byte);
  RUN(errors);
  RUN(errors_are_thread_local);
  RUN(error_marks);
  RUN(functions);
  RUN(global_registry);
  RUN(registry_concurrent_reads_and_writes);
  RUN(handle_init_once);
  RUN(custom_object_allocator);
  RUN(stale_error_is_not_a_failure_cause);
  RUN(opaque_objects);
  RUN(allocator_interface);
  RUN(number_text);
  return test_summary();
}
