/*
 * test_module.c: the in-process module kinds: custom vtable modules (tvm_ffi_module_new), the
 * weak function cache and its lifetimes, imports and cycles, TVMFFIEnvModLookupFromImports,
 * the system library, context symbols, __tvm_ffi__library_bin reading (with corrupted and
 * fuzzed blobs) and writing, and the ffi.Module* globals with bad arguments.
 * Shared libraries are covered by test_abi_kernel.c.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_util.h"

/* ---- Helpers ---------------------------------------------------------------------------- */

static int call(const char* global, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  return tvm_ffi_global_call(global, args, n, result);
}

static bool any_str_eq(const TVMFFIAny* v, const char* s) {
  TVMFFIByteArray b;
  return tvm_ffi_any_as_bytes(v, &b) && b.size == strlen(s) && memcmp(b.data, s, b.size) == 0;
}

/* Call a Function with no arguments and return its int result (or -999 on failure). */
static int64_t call_int(void* f, const TVMFFIAny* args, int32_t n) {
  TVMFFIAny r;
  if (tvm_ffi_function_call(f, args, n, &r) != 0 || r.type_index != kTVMFFIInt) return -999;
  return r.v_int64;
}

/* ---- A custom module kind: "test_counter" ----------------------------------------------- */

typedef struct {
  tvm_ffi_module_obj base;
  int64_t counter;
  int get_function_calls;
  int* destroyed; /* set to 1 by destroy */
  char name[16];
} counter_module;

static int counter_inc(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  counter_module* m = (counter_module*)self;
  *result = tvm_ffi_any_int(++m->counter);
  return 0;
}

static int counter_name(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  *result = tvm_ffi_string(((counter_module*)self)->name);
  return 0;
}

/* Functions hold their module (like library functions): the cache must not make a cycle. */
static int counter_get_function(void* mod, const char* name, void** out) {
  counter_module* m = (counter_module*)mod;
  TVMFFISafeCallType fn = NULL;
  __atomic_fetch_add(&m->get_function_calls, 1, __ATOMIC_RELAXED);
  if (!strcmp(name, "inc")) fn = counter_inc;
  if (!strncmp(name, "name_", 5) && !strcmp(name + 5, m->name)) fn = counter_name;
  if (!strcmp(name, "fail")) return tvm_ffi_raise("ValueError", "get_function refuses `fail`");
  if (!strcmp(name, "not_a_function")) {
    *out = tvm_ffi_str_obj("oops", 4);
    return *out ? 0 : -1;
  }
  if (!fn) return 0;
  tvm_ffi_retain(mod);
  *out = tvm_ffi_function_new(mod, fn, tvm_ffi_release);
  if (!*out) tvm_ffi_release(mod);
  return *out ? 0 : -1;
}

static int counter_list_functions(void* mod, void* list) {
  char buf[32];
  snprintf(buf, sizeof(buf), "name_%s", ((counter_module*)mod)->name);
  TVMFFIAny a = tvm_ffi_string("inc");
  TVMFFIAny b = tvm_ffi_string(buf);
  int rc = tvm_ffi_list_push_take(list, &a);
  if (rc == 0) rc = tvm_ffi_list_push_take(list, &b);
  tvm_ffi_any_release(&a);
  tvm_ffi_any_release(&b);
  return rc;
}

static int counter_inspect_source(void* mod, const char* format, TVMFFIAny* out) {
  char buf[64];
  snprintf(buf, sizeof(buf), "// source of %s as %s", ((counter_module*)mod)->name,
           format[0] ? format : "default");
  *out = tvm_ffi_string(buf);
  return 0;
}

static int counter_save_to_bytes(void* mod, TVMFFIAny* out) {
  const char* name = ((counter_module*)mod)->name;
  *out = tvm_ffi_bytes_n(name, strlen(name));
  return 0;
}

static int counter_write_to_file(void* mod, const char* path, const char* format) {
  if (strcmp(format, "txt") != 0) {
    return tvm_ffi_raise("ValueError", "test_counter cannot write format `%s`", format);
  }
  FILE* f = fopen(path, "w");
  if (!f) return tvm_ffi_raise("RuntimeError", "cannot open %s", path);
  fprintf(f, "%s\n", ((counter_module*)mod)->name);
  fclose(f);
  return 0;
}

static int counter_metadata(void* mod, const char* name, TVMFFIAny* out) {
  if (!strcmp(name, "inc")) *out = tvm_ffi_string("{\"arity\": 0}");
  return 0;
}

static void counter_destroy(void* mod) {
  counter_module* m = (counter_module*)mod;
  if (m->destroyed) *m->destroyed = 1;
}

static const char* const counter_formats[] = {"txt", NULL};

static const tvm_ffi_module_vtable counter_vtable = {
    .kind = "test_counter",
    .property_mask = TVM_FFI_MODULE_RUNNABLE | TVM_FFI_MODULE_BINARY_SERIALIZABLE,
    .get_function = counter_get_function,
    .list_functions = counter_list_functions,
    .inspect_source = counter_inspect_source,
    .save_to_bytes = counter_save_to_bytes,
    .write_to_file = counter_write_to_file,
    .destroy = counter_destroy,
    .get_function_metadata = counter_metadata,
    .write_formats = counter_formats,
};

/* A module with only get_function. */
static const tvm_ffi_module_vtable minimal_vtable = {
    .kind = "test_minimal",
    .get_function = counter_get_function,
};

static counter_module* counter_new(const char* name, int* destroyed) {
  counter_module* m = (counter_module*)tvm_ffi_module_new(&counter_vtable, sizeof(counter_module));
  if (!m) return NULL;
  snprintf(m->name, sizeof(m->name), "%s", name);
  m->destroyed = destroyed;
  return m;
}

static int load_counter_from_bytes(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  TVMFFIByteArray b;
  if (!tvm_ffi_check_num_args("ffi.Module.load_from_bytes.test_counter", n, 1) ||
      !tvm_ffi_arg_bytes("ffi.Module.load_from_bytes.test_counter", args, 0, &b)) {
    return -1;
  }
  if (b.size >= sizeof(((counter_module*)0)->name)) {
    return tvm_ffi_raise("ValueError", "test_counter name too long");
  }
  char name[16];
  memcpy(name, b.data, b.size);
  name[b.size] = '\0';
  counter_module* m = counter_new(name, NULL);
  *result = tvm_ffi_any_obj(m);
  return m ? 0 : -1;
}

/* ---- Tests: custom modules -------------------------------------------------------------- */

TEST(module_new_checks_its_arguments) {
  CHECK(tvm_ffi_module_new(NULL, sizeof(tvm_ffi_module_obj)) == NULL);
  CHECK_RAISED("ValueError", "the vtable needs a kind and get_function");
  tvm_ffi_module_vtable no_get = {.kind = "x"};
  CHECK(tvm_ffi_module_new(&no_get, sizeof(tvm_ffi_module_obj)) == NULL);
  CHECK_RAISED("ValueError", "get_function");
  CHECK(tvm_ffi_module_new(&counter_vtable, 8) == NULL);
  CHECK_RAISED("ValueError", "smaller than tvm_ffi_module_obj");
}

TEST(functions_are_cached_weakly_and_keep_the_module) {
  int destroyed = 0;
  counter_module* m = counter_new("a", &destroyed);
  CHECK(m != NULL);
  if (!m) return;
  CHECK(tvm_ffi_instance_of(m, kTVMFFIModule));
  void *f1, *f2;
  CHECK_OK(tvm_ffi_module_get_function(m, "inc", false, &f1));
  CHECK_OK(tvm_ffi_module_get_function(m, "inc", false, &f2));
  CHECK(f1 != NULL && f1 == f2); /* the cached Function while it is held */
  CHECK_EQ_INT(m->get_function_calls, 1);
  CHECK_EQ_INT(tvm_ffi_strong_count(m), 2); /* ours + the Function's */
  CHECK_EQ_INT(call_int(f1, NULL, 0), 1);
  CHECK_EQ_INT(call_int(f2, NULL, 0), 2);
  tvm_ffi_release(f2);
  tvm_ffi_release(f1); /* dead now: the next lookup makes a new one */
  CHECK_EQ_INT(tvm_ffi_strong_count(m), 1);
  CHECK_OK(tvm_ffi_module_get_function(m, "inc", false, &f1));
  CHECK_EQ_INT(m->get_function_calls, 2);
  CHECK_EQ_INT(call_int(f1, NULL, 0), 3);
  tvm_ffi_release(m); /* the Function keeps the module alive */
  CHECK_EQ_INT(destroyed, 0);
  CHECK_EQ_INT(call_int(f1, NULL, 0), 4);
  tvm_ffi_release(f1);
  CHECK_EQ_INT(destroyed, 1);
}

TEST(get_function_errors) {
  counter_module* m = counter_new("b", NULL);
  void* f = (void*)1;
  CHECK_OK(tvm_ffi_module_get_function(m, "missing", true, &f));
  CHECK(f == NULL);
  CHECK(tvm_ffi_module_get_function(m, "fail", false, &f) != 0);
  CHECK_RAISED("ValueError", "get_function refuses `fail`");
  CHECK(tvm_ffi_module_get_function(m, "not_a_function", false, &f) != 0);
  CHECK_RAISED("TypeError", "returned ffi.String, not a Function");
  CHECK(tvm_ffi_module_get_function(m, NULL, false, &f) != 0);
  CHECK_RAISED("ValueError", "name is NULL");
  CHECK(tvm_ffi_module_get_function(m, "inc", false, NULL) != 0);
  CHECK_RAISED("ValueError", "out is NULL");
  void* s = tvm_ffi_str_obj("not a module", 12);
  CHECK(tvm_ffi_module_get_function(s, "inc", false, &f) != 0);
  CHECK_RAISED("TypeError", "expected ffi.Module but got ffi.String");
  CHECK(tvm_ffi_module_get_function(NULL, "inc", false, &f) != 0);
  CHECK_RAISED("TypeError", "expected ffi.Module but got NULL");
  tvm_ffi_release(s);
  tvm_ffi_release(m);
}

TEST(module_globals) {
  int destroyed = 0;
  counter_module* m = counter_new("c", &destroyed);
  TVMFFIAny r;
  TVMFFIAny arg = tvm_ffi_any_obj(m);
  CHECK_OK(call("ffi.ModuleGetKind", &arg, 1, &r));
  CHECK(any_str_eq(&r, "test_counter"));
  tvm_ffi_any_release(&r);
  CHECK_OK(call("ffi.ModuleGetPropertyMask", &arg, 1, &r));
  CHECK_EQ_INT(r.v_int64, 3);

  CHECK_OK(call("ffi.ModuleListFunctions", &arg, 1, &r));
  CHECK(tvm_ffi_any_as_object(&r, kTVMFFIArray) && tvm_ffi_seq_size(r.v_obj) == 2);
  if (r.type_index == kTVMFFIArray) CHECK(any_str_eq(tvm_ffi_seq_at(r.v_obj, 1), "name_c"));
  tvm_ffi_any_release(&r);

  CHECK_OK(call("ffi.ModuleGetWriteFormats", &arg, 1, &r));
  CHECK(tvm_ffi_any_as_object(&r, kTVMFFIArray) && tvm_ffi_seq_size(r.v_obj) == 1);
  if (r.type_index == kTVMFFIArray) CHECK(any_str_eq(tvm_ffi_seq_at(r.v_obj, 0), "txt"));
  tvm_ffi_any_release(&r);

  TVMFFIAny src[2] = {arg, tvm_ffi_any_raw_str("cuda")};
  CHECK_OK(call("ffi.ModuleInspectSource", src, 2, &r));
  CHECK(any_str_eq(&r, "// source of c as cuda"));
  tvm_ffi_any_release(&r);

  char path[] = "/tmp/tvm_test_module_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd >= 0) {
    TVMFFIAny w[3] = {arg, tvm_ffi_any_raw_str(path), tvm_ffi_any_raw_str("txt")};
    CHECK_OK(call("ffi.ModuleWriteToFile", w, 3, &r));
    char buf[16] = {0};
    FILE* f = fopen(path, "r");
    CHECK(f && fgets(buf, sizeof(buf), f));
    if (f) fclose(f);
    CHECK_STR_EQ(buf, "c\n");
    w[2] = tvm_ffi_any_raw_str("bin");
    CHECK(call("ffi.ModuleWriteToFile", w, 3, &r) != 0);
    CHECK_RAISED("ValueError", "cannot write format `bin`");
    close(fd);
    remove(path);
  }

  TVMFFIAny q[3] = {arg, tvm_ffi_any_raw_str("inc"), tvm_ffi_any_bool(false)};
  CHECK_OK(call("ffi.ModuleGetFunctionMetadata", q, 3, &r));
  CHECK(any_str_eq(&r, "{\"arity\": 0}"));
  tvm_ffi_any_release(&r);
  CHECK_OK(call("ffi.ModuleGetFunctionDoc", q, 3, &r));
  CHECK(tvm_ffi_any_is_none(&r));
  CHECK_OK(call("ffi.ModuleImplementsFunction", q, 3, &r));
  CHECK(r.type_index == kTVMFFIBool && r.v_int64 == 1);
  CHECK_OK(call("ffi.ModuleGetFunction", q, 3, &r));
  CHECK(tvm_ffi_any_as_object(&r, kTVMFFIFunction) != NULL);
  tvm_ffi_any_release(&r);
  q[1] = tvm_ffi_string("name_c"); /* a small string argument */
  CHECK_OK(call("ffi.ModuleGetFunction", q, 3, &r));
  CHECK(tvm_ffi_any_as_object(&r, kTVMFFIFunction) != NULL);
  tvm_ffi_any_release(&r);

  /* the imports are reflected read-only as "imports_" */
  const TVMFFIFieldInfo* field = tvm_ffi_type_find_field(kTVMFFIModule, "imports_");
  CHECK(field != NULL);
  if (field) {
    CHECK_OK(tvm_ffi_field_get(m, field, &r));
    CHECK(tvm_ffi_any_as_object(&r, kTVMFFIList) != NULL);
    tvm_ffi_any_release(&r);
  }
  tvm_ffi_release(m);
  CHECK_EQ_INT(destroyed, 1);
}

TEST(optional_operations_raise) {
  void* m = tvm_ffi_module_new(&minimal_vtable, sizeof(counter_module));
  TVMFFIAny arg = tvm_ffi_any_obj(m), r;
  CHECK_OK(call("ffi.ModuleGetPropertyMask", &arg, 1, &r));
  CHECK_EQ_INT(r.v_int64, 0);
  CHECK(call("ffi.ModuleListFunctions", &arg, 1, &r) != 0);
  CHECK_RAISED("RuntimeError", "Module[test_minimal] does not support ListFunctions");
  TVMFFIAny src[3] = {arg, tvm_ffi_any_raw_str(""), tvm_ffi_any_raw_str("o")};
  CHECK(call("ffi.ModuleInspectSource", src, 2, &r) != 0);
  CHECK_RAISED("RuntimeError", "Module[test_minimal] does not support InspectSource");
  CHECK(call("ffi.ModuleWriteToFile", src, 3, &r) != 0);
  CHECK_RAISED("RuntimeError", "Module[test_minimal] does not support WriteToFile");
  CHECK_OK(call("ffi.ModuleGetWriteFormats", &arg, 1, &r));
  CHECK(tvm_ffi_any_as_object(&r, kTVMFFIArray) && tvm_ffi_seq_size(r.v_obj) == 0);
  tvm_ffi_any_release(&r);
  TVMFFIAny q[3] = {arg, tvm_ffi_any_raw_str("inc"), tvm_ffi_any_bool(true)};
  CHECK_OK(call("ffi.ModuleGetFunctionMetadata", q, 3, &r));
  CHECK(tvm_ffi_any_is_none(&r));
  tvm_ffi_release(m);
}

TEST(globals_reject_bad_arguments) {
  counter_module* m = counter_new("d", NULL);
  TVMFFIAny r;
  TVMFFIAny q[3] = {tvm_ffi_any_obj(m), tvm_ffi_any_raw_str("inc"), tvm_ffi_any_bool(false)};
  CHECK(call("ffi.ModuleGetFunction", q, 2, &r) != 0);
  CHECK_RAISED("TypeError", "ffi.ModuleGetFunction expects 3 arguments but got 2");
  q[0] = tvm_ffi_any_int(3);
  CHECK(call("ffi.ModuleGetFunction", q, 3, &r) != 0);
  CHECK_RAISED("TypeError",
               "argument #0 when calling `ffi.ModuleGetFunction`: expected ffi.Module");
  q[0] = tvm_ffi_any_obj(m);
  q[1] = tvm_ffi_any_int(3);
  CHECK(call("ffi.ModuleGetFunction", q, 3, &r) != 0);
  CHECK_RAISED("TypeError", "argument #1 when calling `ffi.ModuleGetFunction`: expected str");
  q[1] = tvm_ffi_string_n("in\0c", 4);
  CHECK(call("ffi.ModuleGetFunction", q, 3, &r) != 0);
  CHECK_RAISED("ValueError", "argument #1 contains a NUL byte");
  q[1] = tvm_ffi_string_n("a long name with a \0 inside", 27);
  CHECK(call("ffi.ModuleImplementsFunction", q, 3, &r) != 0);
  CHECK_RAISED("ValueError", "contains a NUL byte");
  tvm_ffi_any_release(&q[1]);
  q[1] = tvm_ffi_any_raw_str("inc");
  q[2] = tvm_ffi_any_raw_str("yes");
  CHECK(call("ffi.ModuleGetFunctionDoc", q, 3, &r) != 0);
  CHECK_RAISED("TypeError", "expected bool");
  CHECK(call("ffi.ModuleGetKind", q, 0, &r) != 0);
  CHECK_RAISED("TypeError", "ffi.ModuleGetKind expects 1 argument but got 0");
  q[1] = tvm_ffi_any_int(5);
  CHECK(call("ffi.ModuleImportModule", q, 2, &r) != 0);
  CHECK_RAISED("TypeError", "expected ffi.Module but got int");
  CHECK(call("ffi.ModuleInspectSource", q, 2, &r) != 0);
  CHECK_RAISED("TypeError", "expected str but got int");
  CHECK(call("ffi.ModuleClearImports", q, 2, &r) != 0);
  CHECK_RAISED("TypeError", "expects 1 argument");
  TVMFFIAny none = tvm_ffi_any_none();
  CHECK(call("ffi.ModuleGetImports", &none, 1, &r) != 0);
  CHECK_RAISED("TypeError", "expected ffi.Module but got None");
  tvm_ffi_release(m);
}

/* ---- Tests: imports --------------------------------------------------------------------- */

TEST(imports_are_searched_depth_first) {
  int da = 0, db = 0, dc = 0;
  counter_module* a = counter_new("a", &da);
  counter_module* b = counter_new("b", &db);
  counter_module* c = counter_new("c", &dc);
  CHECK_OK(tvm_ffi_module_import(a, b));
  CHECK_OK(tvm_ffi_module_import(b, c));
  void* f;
  CHECK_OK(tvm_ffi_module_get_function(a, "name_c", false, &f));
  CHECK(f == NULL);
  CHECK_OK(tvm_ffi_module_get_function(a, "name_c", true, &f));
  CHECK(f != NULL);
  TVMFFIAny r;
  CHECK_OK(tvm_ffi_function_call(f, NULL, 0, &r));
  CHECK(any_str_eq(&r, "c"));
  tvm_ffi_any_release(&r);
  tvm_ffi_release(f);
  /* "inc" exists in a itself: found there first */
  CHECK_OK(tvm_ffi_module_get_function(a, "inc", true, &f));
  CHECK_EQ_INT(call_int(f, NULL, 0), 1);
  CHECK_EQ_INT(a->counter, 1);
  tvm_ffi_release(f);

  /* cycles are refused, directly or not */
  CHECK(tvm_ffi_module_import(c, a) != 0);
  CHECK_RAISED("RuntimeError", "Cyclic dependency detected during import");
  CHECK(tvm_ffi_module_import(a, a) != 0);
  CHECK_RAISED("RuntimeError", "Cyclic dependency detected during import");
  TVMFFIAny args[2] = {tvm_ffi_any_obj(c), tvm_ffi_any_obj(b)};
  CHECK(call("ffi.ModuleImportModule", args, 2, &r) != 0);
  CHECK_RAISED("RuntimeError", "Cyclic dependency");
  /* a diamond is fine */
  CHECK_OK(tvm_ffi_module_import(a, c));
  CHECK(tvm_ffi_module_import(NULL, c) != 0);
  CHECK_RAISED("TypeError", "expected ffi.Module");

  TVMFFIAny arg = tvm_ffi_any_obj(a);
  CHECK_OK(call("ffi.ModuleGetImports", &arg, 1, &r));
  CHECK(tvm_ffi_any_as_object(&r, kTVMFFIArray) && tvm_ffi_seq_size(r.v_obj) == 2);
  if (r.type_index == kTVMFFIArray) CHECK(tvm_ffi_seq_obj_at(r.v_obj, 0) == (void*)b);
  tvm_ffi_any_release(&r);
  TVMFFIAny q[3] = {arg, tvm_ffi_any_raw_str("name_c"), tvm_ffi_any_bool(true)};
  CHECK_OK(call("ffi.ModuleImplementsFunction", q, 3, &r));
  CHECK_EQ_INT(r.v_int64, 1);
  q[1] = tvm_ffi_any_raw_str("inc");
  CHECK_OK(call("ffi.ModuleGetFunctionMetadata", q, 3, &r));
  CHECK(any_str_eq(&r, "{\"arity\": 0}"));
  tvm_ffi_any_release(&r);

  tvm_ffi_release(b);
  tvm_ffi_release(c);
  CHECK(db == 0 && dc == 0); /* held by a's imports */
  CHECK_OK(call("ffi.ModuleClearImports", &arg, 1, &r));
  CHECK(db == 1 && dc == 1);
  q[1] = tvm_ffi_any_raw_str("name_c");
  CHECK_OK(call("ffi.ModuleImplementsFunction", q, 3, &r));
  CHECK_EQ_INT(r.v_int64, 0);
  tvm_ffi_release(a);
  CHECK_EQ_INT(da, 1);
}

static int global_triple(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  int64_t x;
  if (!tvm_ffi_check_num_args("testing.module_triple", n, 1) ||
      !tvm_ffi_arg_int("testing.module_triple", args, 0, &x)) {
    return -1;
  }
  *result = tvm_ffi_any_int(3 * x);
  return 0;
}

TEST(lookup_from_imports) {
  int da = 0, db = 0;
  counter_module* a = counter_new("a", &da);
  counter_module* b = counter_new("b", &db);
  CHECK_OK(tvm_ffi_module_import(a, b));
  void* f = NULL;
  CHECK_OK(TVMFFIEnvModLookupFromImports(a, "name_b", &f));
  CHECK(f != NULL);
  TVMFFIAny r;
  CHECK_OK(tvm_ffi_function_call(f, NULL, 0, &r));
  CHECK(any_str_eq(&r, "b"));
  void* again = NULL;
  CHECK_OK(TVMFFIEnvModLookupFromImports(a, "name_b", &again));
  CHECK(again == f); /* borrowed from the cache */
  CHECK_EQ_INT(tvm_ffi_strong_count(f), 1);

  /* a's own "inc" is not an import: the lookup finds b's, a separate cache entry */
  void* own = NULL;
  CHECK_OK(tvm_ffi_module_get_function(a, "inc", false, &own));
  CHECK_OK(TVMFFIEnvModLookupFromImports(a, "inc", &f));
  CHECK(f != own);
  CHECK_EQ_INT(call_int(f, NULL, 0), 1);
  CHECK_EQ_INT(b->counter, 1);
  CHECK_EQ_INT(a->counter, 0);
  tvm_ffi_release(own);

  /* then the global registry */
  CHECK_OK(tvm_ffi_global_register("testing.module_triple", global_triple, true));
  CHECK_OK(TVMFFIEnvModLookupFromImports(a, "testing.module_triple", &f));
  TVMFFIAny seven = tvm_ffi_any_int(7);
  CHECK_EQ_INT(call_int(f, &seven, 1), 21);
  tvm_ffi_global_remove("testing.module_triple");
  /* still cached in the module */
  CHECK_OK(TVMFFIEnvModLookupFromImports(a, "testing.module_triple", &f));
  CHECK_EQ_INT(call_int(f, &seven, 1), 21);

  CHECK(TVMFFIEnvModLookupFromImports(a, "nothing_anywhere", &f) != 0);
  CHECK_RAISED("RuntimeError",
               "Cannot find function nothing_anywhere in the imported modules or global registry.");
  CHECK(TVMFFIEnvModLookupFromImports(NULL, "x", &f) != 0);
  CHECK_RAISED("ValueError", "library_ctx is NULL");
  CHECK(TVMFFIEnvModLookupFromImports(a, NULL, &f) != 0);
  CHECK_RAISED("ValueError", "func_name is NULL");
  CHECK(TVMFFIEnvModLookupFromImports(a, "x", NULL) != 0);
  CHECK_RAISED("ValueError", "out is NULL");
  void* s = tvm_ffi_str_obj("ctx", 3);
  CHECK(TVMFFIEnvModLookupFromImports(s, "x", &f) != 0);
  CHECK_RAISED("TypeError", "expected ffi.Module but got ffi.String");
  tvm_ffi_release(s);

  tvm_ffi_release(b);
  tvm_ffi_release(a); /* drops the cached functions, which drop b */
  CHECK(da == 1 && db == 1);
}

/* ---- Tests: the system library ---------------------------------------------------------- */

static int sys_add(void* handle, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  int64_t a, b;
  if (handle != NULL) return tvm_ffi_raise("RuntimeError", "library symbols get handle NULL");
  if (!tvm_ffi_check_num_args("sys_add", n, 2) || !tvm_ffi_arg_int("sys_add", args, 0, &a) ||
      !tvm_ffi_arg_int("sys_add", args, 1, &b)) {
    return -1;
  }
  *result = tvm_ffi_any_int(a + b);
  return 0;
}

static int sys_mul(void* handle, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  int64_t a, b;
  if (!tvm_ffi_check_num_args("mul", n, 2) || !tvm_ffi_arg_int("mul", args, 0, &a) ||
      !tvm_ffi_arg_int("mul", args, 1, &b)) {
    return -1;
  }
  *result = tvm_ffi_any_int(a * b);
  return 0;
}

static int sys_add_doc(void* handle, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  *result = tvm_ffi_string("adds two ints");
  return 0;
}

TEST(system_library) {
  CHECK_OK(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_sys_add", (void*)sys_add));
  CHECK_OK(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi__doc_sys_add", (void*)sys_add_doc));
  CHECK_OK(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_mt_mul", (void*)sys_mul));
  TVMFFIAny r;
  CHECK_OK(call("ffi.SystemLib", NULL, 0, &r));
  void* lib = tvm_ffi_any_as_object(&r, kTVMFFIModule);
  CHECK(lib != NULL);
  void* lib2 = tvm_ffi_system_lib("");
  CHECK(lib2 == lib); /* one module per prefix for the process */
  tvm_ffi_release(lib2);
  TVMFFIAny arg = tvm_ffi_any_obj(lib);
  TVMFFIAny kind;
  CHECK_OK(call("ffi.ModuleGetKind", &arg, 1, &kind));
  CHECK(any_str_eq(&kind, "system_lib"));
  tvm_ffi_any_release(&kind);
  void* f = NULL;
  CHECK_OK(tvm_ffi_module_get_function(lib, "sys_add", false, &f));
  TVMFFIAny ab[2] = {tvm_ffi_any_int(2), tvm_ffi_any_int(5)};
  CHECK(f && call_int(f, ab, 2) == 7);
  tvm_ffi_release(f);
  TVMFFIAny q[3] = {arg, tvm_ffi_any_raw_str("sys_add"), tvm_ffi_any_bool(false)};
  TVMFFIAny doc;
  CHECK_OK(call("ffi.ModuleGetFunctionDoc", q, 3, &doc));
  CHECK(any_str_eq(&doc, "adds two ints"));
  tvm_ffi_any_release(&doc);
  tvm_ffi_any_release(&r);

  /* a prefix: __tvm_ffi_<prefix><name> first, then __tvm_ffi_<name> */
  TVMFFIAny prefix = tvm_ffi_any_raw_str("mt_");
  CHECK_OK(call("ffi.SystemLib", &prefix, 1, &r));
  lib = r.v_obj;
  CHECK_OK(tvm_ffi_module_get_function(lib, "mul", false, &f));
  CHECK(f && call_int(f, ab, 2) == 10);
  tvm_ffi_release(f);
  CHECK_OK(tvm_ffi_module_get_function(lib, "sys_add", false, &f));
  CHECK(f && call_int(f, ab, 2) == 7);
  tvm_ffi_release(f);
  CHECK_OK(tvm_ffi_module_get_function(lib, "nothing", false, &f));
  CHECK(f == NULL);
  arg = tvm_ffi_any_obj(lib);
  TVMFFIAny names;
  CHECK_OK(call("ffi.ModuleListFunctions", &arg, 1, &names));
  /* every name the module resolves, sorted: mt_mul, mul, sys_add (+ any other test's) */
  bool has_mul = false, has_mt_mul = false, has_add = false;
  for (int64_t i = 0; i < tvm_ffi_seq_size(names.v_obj); ++i) {
    const TVMFFIAny* n = tvm_ffi_seq_at(names.v_obj, i);
    has_mul |= any_str_eq(n, "mul");
    has_mt_mul |= any_str_eq(n, "mt_mul");
    has_add |= any_str_eq(n, "sys_add");
    CHECK(!any_str_eq(n, "_doc_sys_add"));
  }
  CHECK(has_mul && has_mt_mul && has_add);
  tvm_ffi_any_release(&names);
  tvm_ffi_any_release(&r);

  TVMFFIAny bad = tvm_ffi_any_int(1);
  CHECK(call("ffi.SystemLib", &bad, 1, &r) != 0);
  CHECK_RAISED("TypeError", "expected str but got int");
  TVMFFIAny two[2] = {prefix, prefix};
  CHECK(call("ffi.SystemLib", two, 2, &r) != 0);
  CHECK_RAISED("TypeError", "at most 1 argument");
  CHECK(TVMFFIEnvModRegisterSystemLibSymbol(NULL, (void*)sys_add) != 0);
  CHECK_RAISED("ValueError", "empty symbol name");
  CHECK(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_x", NULL) != 0);
  CHECK_RAISED("ValueError", "is NULL");
}

static void* g_ctx_slot;     /* a system library's __tvm_ffi__library_ctx */
static void* g_context_slot; /* a context symbol */

TEST(system_library_context_symbols) {
  CHECK_OK(TVMFFIEnvModRegisterContextSymbol("test_context_symbol", (void*)0x77));
  CHECK_OK(TVMFFIEnvModRegisterSystemLibSymbol("ctxp_test_context_symbol", &g_context_slot));
  CHECK_OK(TVMFFIEnvModRegisterSystemLibSymbol("ctxp___tvm_ffi__library_ctx", &g_ctx_slot));
  void* lib = tvm_ffi_system_lib("ctxp_");
  CHECK(lib != NULL);
  CHECK(g_ctx_slot == lib);
  CHECK(g_context_slot == (void*)0x77);
  tvm_ffi_release(lib);
  CHECK(g_ctx_slot == lib); /* system libraries live as long as the process */
  CHECK(TVMFFIEnvModRegisterContextSymbol("", NULL) != 0);
  CHECK_RAISED("ValueError", "empty symbol name");
}

/* ---- Tests: __tvm_ffi__library_bin ------------------------------------------------------ */

static void put_u64(tvm_ffi_strbuf* b, uint64_t v) {
  for (int i = 0; i < 8; ++i) tvm_ffi_strbuf_putc(b, (char)(v >> (8 * i)));
}

static void put_str(tvm_ffi_strbuf* b, const char* s) {
  put_u64(b, strlen(s));
  tvm_ffi_strbuf_puts(b, s);
}

/* A blob over test_counter modules: names[i], imports in CSR form. */
static void make_blob(tvm_ffi_strbuf* out, int num, const char* const* names,
                      const uint64_t* indptr, const uint64_t* child, int num_child) {
  tvm_ffi_strbuf body = {0};
  put_u64(&body, (uint64_t)num + 1);
  for (int i = 0; i <= num; ++i) put_u64(&body, indptr[i]);
  put_u64(&body, (uint64_t)num_child);
  for (int i = 0; i < num_child; ++i) put_u64(&body, child[i]);
  for (int i = 0; i < num; ++i) {
    if (!strcmp(names[i], "_lib")) {
      put_str(&body, "_lib");
    } else {
      put_str(&body, "test_counter");
      put_str(&body, names[i]);
    }
  }
  put_u64(out, body.size);
  tvm_ffi_strbuf_append(out, body.data, body.size);
  tvm_ffi_strbuf_free(&body);
}

static const char* module_name(void* mod) { return ((counter_module*)mod)->name; }

TEST(library_bin_without_a_library) {
  CHECK_OK(tvm_ffi_global_register("ffi.Module.load_from_bytes.test_counter",
                                   load_counter_from_bytes, true));
  static const char* const names[] = {"root", "x", "y"};
  static const uint64_t indptr[] = {0, 2, 3, 3}, child[] = {1, 2, 2}; /* root->x,y; x->y */
  tvm_ffi_strbuf blob = {0};
  make_blob(&blob, 3, names, indptr, child, 3);
  void* root = tvm_ffi_module_from_library_bin(blob.data, blob.size);
  CHECK(root != NULL);
  if (root) {
    CHECK_STR_EQ(module_name(root), "root");
    void* imports = ((tvm_ffi_module_obj*)root)->imports;
    CHECK_EQ_INT(tvm_ffi_seq_size(imports), 2);
    void* x = tvm_ffi_seq_obj_at(imports, 0);
    void* y = tvm_ffi_seq_obj_at(imports, 1);
    CHECK_STR_EQ(module_name(x), "x");
    CHECK_STR_EQ(module_name(y), "y");
    void* ximports = ((tvm_ffi_module_obj*)x)->imports;
    CHECK(tvm_ffi_seq_size(ximports) == 1 && tvm_ffi_seq_obj_at(ximports, 0) == y); /* shared */

    /* written back, read again: the same tree, the shared import still shared */
    tvm_ffi_strbuf packed = {0};
    CHECK_OK(tvm_ffi_module_pack_library_bin(root, &packed));
    CHECK_EQ_INT(packed.size, blob.size);
    void* root2 = tvm_ffi_module_from_library_bin(packed.data, packed.size);
    CHECK(root2 != NULL && root2 != root);
    if (root2) {
      void* i2 = ((tvm_ffi_module_obj*)root2)->imports;
      void* x2 = tvm_ffi_seq_obj_at(i2, 0);
      CHECK_STR_EQ(module_name(x2), "x");
      CHECK(tvm_ffi_seq_obj_at(((tvm_ffi_module_obj*)x2)->imports, 0) == tvm_ffi_seq_obj_at(i2, 1));
    }
    tvm_ffi_release(root2);
    tvm_ffi_strbuf_free(&packed);
  }
  tvm_ffi_release(root);
  tvm_ffi_strbuf_free(&blob);

  /* "_lib" needs a library */
  static const char* const lib_names[] = {"root", "_lib"};
  static const uint64_t lib_indptr[] = {0, 1, 1}, lib_child[] = {1};
  make_blob(&blob, 2, lib_names, lib_indptr, lib_child, 1);
  CHECK(tvm_ffi_module_from_library_bin(blob.data, blob.size) == NULL);
  CHECK_RAISED("RuntimeError", "module 1 is `_lib` but no library is being loaded");
  tvm_ffi_strbuf_free(&blob);

  /* the loader's own errors come through with the loader's name */
  static const char* const long_names[] = {"a name far too long for the test module"};
  static const uint64_t one_indptr[] = {0, 0};
  make_blob(&blob, 1, long_names, one_indptr, NULL, 0);
  CHECK(tvm_ffi_module_from_library_bin(blob.data, blob.size) == NULL);
  CHECK_RAISED("ValueError", "ffi.Module.load_from_bytes.test_counter: test_counter name too long");
  tvm_ffi_strbuf_free(&blob);

  CHECK(tvm_ffi_module_from_library_bin(NULL, 0) == NULL);
  CHECK_RAISED("ValueError", "data is NULL");
  CHECK(tvm_ffi_module_from_library_bin("1234", 4) == NULL);
  CHECK_RAISED("RuntimeError", "corrupted __tvm_ffi__library_bin: 4 bytes cannot hold");
}

/* A system library may embed a blob too (registered like any other symbol, prefixed). */
TEST(system_library_with_library_bin) {
  CHECK_OK(tvm_ffi_global_register("ffi.Module.load_from_bytes.test_counter",
                                   load_counter_from_bytes, true));
  static const char* const names[] = {"sysroot", "_lib"};
  static const uint64_t indptr[] = {0, 1, 1}, child[] = {1};
  static char blob_storage[256]; /* registered symbols must outlive the process's use */
  tvm_ffi_strbuf blob = {0};
  make_blob(&blob, 2, names, indptr, child, 1);
  CHECK(blob.size <= sizeof(blob_storage));
  memcpy(blob_storage, blob.data, blob.size);
  tvm_ffi_strbuf_free(&blob);
  CHECK_OK(TVMFFIEnvModRegisterSystemLibSymbol("binp___tvm_ffi__library_bin", blob_storage));
  CHECK_OK(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_sys_sub", (void*)sys_mul));
  void* root = tvm_ffi_system_lib("binp_");
  CHECK(root != NULL);
  if (!root) return;
  CHECK_STR_EQ(((tvm_ffi_module_obj*)root)->vtable->kind, "test_counter");
  CHECK_STR_EQ(module_name(root), "sysroot");
  void* again = tvm_ffi_system_lib("binp_");
  CHECK(again == root);
  tvm_ffi_release(again);
  void* f = NULL;
  CHECK_OK(tvm_ffi_module_get_function(root, "sys_sub", false, &f));
  CHECK(f == NULL);
  CHECK_OK(tvm_ffi_module_get_function(root, "sys_sub", true, &f)); /* from the "_lib" import */
  TVMFFIAny ab[2] = {tvm_ffi_any_int(3), tvm_ffi_any_int(4)};
  CHECK(f && call_int(f, ab, 2) == 12);
  tvm_ffi_release(f);
  tvm_ffi_release(root);
}

TEST(pack_library_bin) {
  counter_module* a = counter_new("a", NULL);
  void* lib = tvm_ffi_system_lib("");
  void* plain = tvm_ffi_module_new(&minimal_vtable, sizeof(counter_module));
  CHECK_OK(tvm_ffi_module_import(a, lib));
  tvm_ffi_strbuf out = {0};
  CHECK_OK(tvm_ffi_module_pack_library_bin(a, &out));
  /* a library module is written as "_lib" */
  CHECK(out.size > 8 && memmem(out.data, out.size, "\x04\0\0\0\0\0\0\0_lib", 12) != NULL);
  void* back = tvm_ffi_module_from_library_bin(out.data, out.size);
  CHECK(back == NULL);
  CHECK_RAISED("RuntimeError", "`_lib` but no library");
  tvm_ffi_strbuf_free(&out);
  CHECK_OK(tvm_ffi_module_import(a, plain));
  CHECK(tvm_ffi_module_pack_library_bin(a, &out) != 0);
  CHECK_RAISED("RuntimeError", "Module[test_minimal] does not support SaveToBytes");
  tvm_ffi_strbuf_free(&out);
  CHECK(tvm_ffi_module_pack_library_bin(NULL, &out) != 0);
  CHECK_RAISED("TypeError", "expected ffi.Module");
  tvm_ffi_release(plain);
  tvm_ffi_release(lib);
  tvm_ffi_release(a);
}

static void expect_corrupted(const void* data, size_t size, const char* what) {
  void* m = tvm_ffi_module_from_library_bin(data, size);
  CHECK(m == NULL);
  tvm_ffi_release(m);
  void* e = tvm_ffi_error_take();
  CHECK(e != NULL);
  if (e) {
    CHECK_STR_EQ(tvm_ffi_error_kind(e), "RuntimeError");
    if (!strstr(tvm_ffi_error_message(e), what)) {
      fprintf(stderr, "  \"%s\" lacks \"%s\"\n", tvm_ffi_error_message(e), what);
      CHECK(false);
    }
    tvm_ffi_release(e);
  }
}

TEST(corrupted_blobs) {
  tvm_ffi_strbuf b = {0};
  /* indptr not monotone, past the children, children out of range, a cycle */
  static const char* const names2[] = {"p", "q"};
  static const uint64_t down[] = {0, 2, 1}, two_children[] = {1, 1};
  make_blob(&b, 2, names2, down, two_children, 2);
  expect_corrupted(b.data, b.size, "indptr is not monotone at 1 (2 > 1)");
  tvm_ffi_strbuf_free(&b);
  static const uint64_t past[] = {0, 1, 3}, one_child[] = {1};
  make_blob(&b, 2, names2, past, one_child, 1);
  expect_corrupted(b.data, b.size, "indptr ends at 3 but there are only 1 child indices");
  tvm_ffi_strbuf_free(&b);
  static const uint64_t ok_ptr[] = {0, 1, 1}, far[] = {9};
  make_blob(&b, 2, names2, ok_ptr, far, 1);
  expect_corrupted(b.data, b.size, "child index 9 out of range (2 modules)");
  tvm_ffi_strbuf_free(&b);
  static const uint64_t cyc_ptr[] = {0, 1, 2}, cyc[] = {1, 0};
  make_blob(&b, 2, names2, cyc_ptr, cyc, 2);
  expect_corrupted(b.data, b.size, "import cycle");
  tvm_ffi_strbuf_free(&b);
  static const uint64_t self_ptr[] = {0, 0, 1}, self[] = {1};
  make_blob(&b, 2, names2, self_ptr, self, 1);
  expect_corrupted(b.data, b.size, "import cycle through module 1");
  tvm_ffi_strbuf_free(&b);
  /* no module at all */
  static const uint64_t zero[] = {0};
  make_blob(&b, 0, NULL, zero, NULL, 0);
  expect_corrupted(b.data, b.size, "indptr has 1 entries, so there is no module");
  tvm_ffi_strbuf_free(&b);
  /* huge counts and lengths */
  put_u64(&b, 16);
  put_u64(&b, UINT64_MAX);
  put_u64(&b, 0);
  expect_corrupted(b.data, b.size, "indptr claims 18446744073709551615 entries");
  tvm_ffi_strbuf_free(&b);
  put_u64(&b, UINT64_MAX);
  expect_corrupted(b.data, b.size, "the length prefix says 18446744073709551615 bytes");
  tvm_ffi_strbuf_free(&b);
}

/* Every truncation and many byte flips of a valid blob fail cleanly (or, for flips that keep
 * it valid, load); AddressSanitizer checks that nothing reads out of bounds. */
TEST(fuzzed_blobs_never_crash) {
  static const char* const names[] = {"root", "x", "y"};
  static const uint64_t indptr[] = {0, 2, 3, 3}, child[] = {1, 2, 2};
  tvm_ffi_strbuf blob = {0};
  make_blob(&blob, 3, names, indptr, child, 3);
  uint8_t* copy = (uint8_t*)malloc(blob.size);
  for (size_t len = 0; len < blob.size; ++len) {
    /* honest prefix for a shorter body: the reader runs out of bytes somewhere */
    memcpy(copy, blob.data, len);
    if (len >= 8) {
      uint64_t n = len - 8;
      for (int i = 0; i < 8; ++i) copy[i] = (uint8_t)(n >> (8 * i));
    }
    expect_corrupted(copy, len, "corrupted __tvm_ffi__library_bin");
    /* original prefix, fewer bytes available */
    expect_corrupted(blob.data, len, "corrupted __tvm_ffi__library_bin");
  }
  static const uint8_t flips[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
  int loaded = 0, failed = 0;
  for (size_t pos = 0; pos < blob.size; ++pos) {
    for (size_t k = 0; k < sizeof(flips); ++k) {
      memcpy(copy, blob.data, blob.size);
      copy[pos] = flips[k];
      void* m = tvm_ffi_module_from_library_bin(copy, blob.size);
      if (m) {
        loaded++;
        tvm_ffi_release(m);
      } else {
        failed++;
        CHECK(tvm_ffi_error_pending());
        tvm_ffi_error_clear();
      }
    }
  }
  CHECK(loaded > 0 && failed > 0);
  free(copy);
  tvm_ffi_strbuf_free(&blob);
}

/* ---- Tests: concurrency ----------------------------------------------------------------- */

typedef struct {
  void* mod;
  int errors;
} thread_arg;

static void* lookup_loop(void* p) {
  thread_arg* t = (thread_arg*)p;
  for (int i = 0; i < 2000; ++i) {
    void* f = NULL;
    if (tvm_ffi_module_get_function(t->mod, (i & 1) ? "inc" : "name_t", false, &f) != 0 || !f) {
      t->errors++;
      tvm_ffi_error_clear();
      continue;
    }
    void* g = NULL;
    if (TVMFFIEnvModLookupFromImports(t->mod, "name_u", &g) != 0 || !g) {
      t->errors++;
      tvm_ffi_error_clear();
    }
    tvm_ffi_release(f);
  }
  return NULL;
}

TEST(concurrent_lookups) {
  int dt = 0, du = 0;
  counter_module* t = counter_new("t", &dt);
  counter_module* u = counter_new("u", &du);
  CHECK_OK(tvm_ffi_module_import(t, u));
  tvm_ffi_release(u);
  pthread_t threads[4];
  thread_arg args[4];
  for (int i = 0; i < 4; ++i) {
    args[i].mod = t;
    args[i].errors = 0;
    pthread_create(&threads[i], NULL, lookup_loop, &args[i]);
  }
  for (int i = 0; i < 4; ++i) {
    pthread_join(threads[i], NULL);
    CHECK_EQ_INT(args[i].errors, 0);
  }
  CHECK_EQ_INT(tvm_ffi_strong_count(t), 1); /* every Function released: no reference left */
  tvm_ffi_release(t);
  CHECK(dt == 1 && du == 1);
}

int main(void) {
  RUN(module_new_checks_its_arguments);
  RUN(functions_are_cached_weakly_and_keep_the_module);
  RUN(get_function_errors);
  RUN(module_globals);
  RUN(optional_operations_raise);
  RUN(globals_reject_bad_arguments);
  RUN(imports_are_searched_depth_first);
  RUN(lookup_from_imports);
  RUN(system_library);
  RUN(system_library_context_symbols);
  RUN(library_bin_without_a_library);
  RUN(system_library_with_library_bin);
  RUN(pack_library_bin);
  RUN(corrupted_blobs);
  RUN(fuzzed_blobs_never_crash);
  RUN(concurrent_lookups);
  tvm_ffi_global_remove("ffi.Module.load_from_bytes.test_counter");
  return test_summary();
}
