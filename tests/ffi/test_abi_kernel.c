/*
 * test_abi_kernel.c: load the kernel libraries of tests/ffi/kernels the way an outside C loader
 * does — only through the global functions ffi.Module.load_from_file.so and
 * ffi.ModuleGetFunction, reached with TVMFFIFunctionGetGlobal and called with
 * TVMFFIFunctionCall — then call their kernels and check results, errors and lifetimes.
 * The libraries do not link libtvmffi: their TVMFFI* references resolve from this executable.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_util.h"

#ifndef TVM_TEST_KERNEL_DIR
#error "TVM_TEST_KERNEL_DIR must name the directory of the kernel libraries"
#endif

static const char* kernel_path(const char* name) {
  static char buf[4096];
  snprintf(buf, sizeof(buf), "%s/%s.so", TVM_TEST_KERNEL_DIR, name);
  return buf;
}

/* ---- A minimal outside loader: ABI calls only ------------------------------------------- */

static TVMFFIAny none_any(void) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  return a;
}

static TVMFFIAny str_arg(const char* s) {
  TVMFFIAny a = none_any();
  a.type_index = kTVMFFIRawStr;
  a.v_c_str = s;
  return a;
}

static TVMFFIAny obj_arg(void* obj) {
  TVMFFIAny a = none_any();
  a.type_index = TVMFFIObjectGetTypeIndex(obj);
  a.v_obj = (TVMFFIObject*)obj;
  return a;
}

static TVMFFIAny int_arg(int64_t v) {
  TVMFFIAny a = none_any();
  a.type_index = kTVMFFIInt;
  a.v_int64 = v;
  return a;
}

static TVMFFIAny bool_arg(int v) {
  TVMFFIAny a = none_any();
  a.type_index = kTVMFFIBool;
  a.v_int64 = v;
  return a;
}

/* Call global `name`; *result is owned by the caller. */
static int call_global(const char* name, TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  TVMFFIByteArray key = {name, strlen(name)};
  TVMFFIObjectHandle f = NULL;
  *result = none_any();
  if (TVMFFIFunctionGetGlobal(&key, &f) != 0) return -1;
  if (!f) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", name);
    return -1;
  }
  int rc = TVMFFIFunctionCall(f, args, n, result);
  TVMFFIObjectDecRef(f);
  return rc;
}

/* A new Module handle for kernels/<name>.so, or NULL with the error raised. */
static void* load_kernel(const char* name) {
  TVMFFIAny args[2] = {str_arg(kernel_path(name)), str_arg("so")};
  TVMFFIAny result;
  if (call_global("ffi.Module.load_from_file.so", args, 2, &result) != 0) return NULL;
  return result.v_obj;
}

/* ffi.ModuleGetFunction(mod, name, query_imports): a Function handle, or NULL for None (no
 * error) or on failure (error raised). */
static void* get_function(void* mod, const char* name, int query_imports) {
  TVMFFIAny args[3] = {obj_arg(mod), str_arg(name), bool_arg(query_imports)};
  TVMFFIAny result;
  if (call_global("ffi.ModuleGetFunction", args, 3, &result) != 0) return NULL;
  return result.type_index == kTVMFFINone ? NULL : result.v_obj;
}

/* Call a module global taking (mod, name, query_imports) and returning an owned value. */
static int module_query(const char* global, void* mod, const char* name, int query_imports,
                        TVMFFIAny* result) {
  TVMFFIAny args[3] = {obj_arg(mod), str_arg(name), bool_arg(query_imports)};
  return call_global(global, args, 3, result);
}

static TVMFFIAny dltensor_arg(DLTensor* t) {
  TVMFFIAny a = none_any();
  a.type_index = kTVMFFIDLTensorPtr;
  a.v_ptr = t;
  return a;
}

static DLTensor vector_f32(float* data, int64_t* shape) {
  DLTensor t;
  memset(&t, 0, sizeof(t));
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = 1;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = shape;
  return t;
}

/* Whether the library file is still mapped in the process. */
static bool library_loaded(const char* name) {
  void* h = dlopen(kernel_path(name), RTLD_LAZY | RTLD_NOLOAD);
  if (h) dlclose(h);
  return h != NULL;
}

/* ---- Tests ------------------------------------------------------------------------------ */

TEST(add_one_with_dltensor_pointers) {
  void* mod = load_kernel("abi_kernel");
  CHECK(mod != NULL);
  if (!mod) return;
  void* f = get_function(mod, "add_one", 0);
  CHECK(f != NULL);
  float x[4] = {1, 2, 3, 4}, y[4] = {0};
  int64_t shape[1] = {4};
  DLTensor tx = vector_f32(x, shape), ty = vector_f32(y, shape);
  TVMFFIAny args[2] = {dltensor_arg(&tx), dltensor_arg(&ty)};
  TVMFFIAny result = none_any();
  CHECK_OK(TVMFFIFunctionCall(f, args, 2, &result));
  CHECK_EQ_INT(result.type_index, kTVMFFINone);
  for (int i = 0; i < 4; ++i) CHECK(y[i] == x[i] + 1.0f);
  TVMFFIObjectDecRef(f);
  TVMFFIObjectDecRef(mod);
}

TEST(add_one_with_tensor_objects) {
  void* mod = load_kernel("abi_kernel");
  void* f = mod ? get_function(mod, "add_one", 0) : NULL;
  CHECK(f != NULL);
  if (!f) {
    tvm_ffi_release(mod);
    return;
  }
  int64_t shape[1] = {5};
  DLDevice cpu = {kDLCPU, 0};
  void* x = tvm_ffi_tensor_empty(shape, 1, tvm_ffi_dtype(kDLFloat, 32, 1), cpu);
  void* y = tvm_ffi_tensor_empty(shape, 1, tvm_ffi_dtype(kDLFloat, 32, 1), cpu);
  CHECK(x && y);
  if (x && y) {
    float* xp = (float*)tvm_ffi_tensor_dl(x)->data;
    for (int i = 0; i < 5; ++i) xp[i] = (float)i * 0.5f;
    TVMFFIAny args[2] = {obj_arg(x), obj_arg(y)};
    TVMFFIAny result = none_any();
    CHECK_OK(TVMFFIFunctionCall(f, args, 2, &result));
    const float* yp = (const float*)tvm_ffi_tensor_dl(y)->data;
    for (int i = 0; i < 5; ++i) CHECK(yp[i] == (float)i * 0.5f + 1.0f);
    /* a mix of a DLTensor pointer and a Tensor object */
    float z[5] = {0};
    DLTensor tz = vector_f32(z, shape);
    args[1] = dltensor_arg(&tz);
    CHECK_OK(TVMFFIFunctionCall(f, args, 2, &result));
    CHECK(z[4] == 3.0f);
  }
  tvm_ffi_release(x);
  tvm_ffi_release(y);
  TVMFFIObjectDecRef(f);
  TVMFFIObjectDecRef(mod);
}

TEST(add_one_rejects_bad_tensors) {
  void* mod = load_kernel("abi_kernel");
  void* f = mod ? get_function(mod, "add_one", 0) : NULL;
  CHECK(f != NULL);
  if (!f) {
    tvm_ffi_release(mod);
    return;
  }
  float x[4] = {0}, y[4] = {0};
  int64_t shape4[1] = {4}, shape3[1] = {3}, shape22[2] = {2, 2};
  DLTensor tx = vector_f32(x, shape4), ty = vector_f32(y, shape4);
  TVMFFIAny result = none_any();

  DLTensor bad = tx;
  bad.dtype.code = kDLInt;
  TVMFFIAny args[2] = {dltensor_arg(&bad), dltensor_arg(&ty)};
  CHECK(TVMFFIFunctionCall(f, args, 2, &result) != 0);
  CHECK_RAISED("TypeError", "x must be float32");

  bad = tx;
  bad.ndim = 2;
  bad.shape = shape22;
  CHECK(TVMFFIFunctionCall(f, args, 2, &result) != 0);
  CHECK_RAISED("ValueError", "x must be a compact 1-D CPU tensor");

  bad = ty;
  bad.shape = shape3;
  args[0] = dltensor_arg(&tx);
  args[1] = dltensor_arg(&bad);
  CHECK(TVMFFIFunctionCall(f, args, 2, &result) != 0);
  CHECK_RAISED("ValueError", "differ in length");

  args[1] = int_arg(3);
  CHECK(TVMFFIFunctionCall(f, args, 2, &result) != 0);
  CHECK_RAISED("TypeError", "arguments must be tensors");

  CHECK(TVMFFIFunctionCall(f, args, 1, &result) != 0);
  CHECK_RAISED("TypeError", "expected 2 arguments");
  TVMFFIObjectDecRef(f);
  TVMFFIObjectDecRef(mod);
}

TEST(kernel_errors_propagate) {
  void* mod = load_kernel("abi_kernel");
  void* f = mod ? get_function(mod, "raise_error", 0) : NULL;
  CHECK(f != NULL);
  if (f) {
    TVMFFIAny result = none_any();
    CHECK_EQ_INT(TVMFFIFunctionCall(f, NULL, 0, &result), -1);
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    CHECK(err != NULL);
    if (err) {
      CHECK_STR_EQ(TVMFFIErrorGetCellPtr(err)->kind.data, "ValueError");
      CHECK_STR_CONTAINS(TVMFFIErrorGetCellPtr(err)->message.data, "always fails");
      TVMFFIObjectDecRef(err);
    }
    TVMFFIObjectDecRef(f);
  }
  tvm_ffi_release(mod);
}

TEST(kernel_reads_the_stream) {
  void* mod = load_kernel("abi_kernel");
  void* f = mod ? get_function(mod, "get_stream", 0) : NULL;
  CHECK(f != NULL);
  if (f) {
    TVMFFIStreamHandle original = NULL;
    CHECK_OK(TVMFFIEnvSetStream(kDLCUDA, 0, (void*)0x1234, &original));
    TVMFFIAny result = none_any();
    CHECK_OK(TVMFFIFunctionCall(f, NULL, 0, &result));
    CHECK_EQ_INT(result.type_index, kTVMFFIOpaquePtr);
    CHECK(result.v_ptr == (void*)0x1234);
    CHECK_OK(TVMFFIEnvSetStream(kDLCUDA, 0, original, NULL));
    result = none_any();
    CHECK_OK(TVMFFIFunctionCall(f, NULL, 0, &result));
    CHECK(result.type_index == kTVMFFINone || result.v_ptr == original);
    TVMFFIObjectDecRef(f);
  }
  tvm_ffi_release(mod);
}

static int abi_add(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  int64_t a, b;
  if (!tvm_ffi_check_num_args("testing.abi_add", n, 2) ||
      !tvm_ffi_arg_int("testing.abi_add", args, 0, &a) ||
      !tvm_ffi_arg_int("testing.abi_add", args, 1, &b)) {
    return -1;
  }
  *result = tvm_ffi_any_int(a + b);
  return 0;
}

TEST(kernel_calls_a_global_through_its_context) {
  CHECK_OK(tvm_ffi_global_register("testing.abi_add", abi_add, true));
  void* mod = load_kernel("abi_kernel");
  void* f = mod ? get_function(mod, "call_import", 0) : NULL;
  CHECK(f != NULL);
  if (f) {
    for (int round = 0; round < 2; ++round) { /* the second lookup hits the module's cache */
      TVMFFIAny args[3] = {str_arg("testing.abi_add"), int_arg(2), int_arg(40 + round)};
      TVMFFIAny result = none_any();
      CHECK_OK(TVMFFIFunctionCall(f, args, 3, &result));
      CHECK_EQ_INT(result.type_index, kTVMFFIInt);
      CHECK_EQ_INT(result.v_int64, 42 + round);
    }
    TVMFFIAny args[1] = {str_arg("testing.no_such_function")};
    TVMFFIAny result = none_any();
    CHECK(TVMFFIFunctionCall(f, args, 1, &result) != 0);
    CHECK_RAISED("RuntimeError",
                 "Cannot find function testing.no_such_function in the imported modules or "
                 "global registry.");
    TVMFFIObjectDecRef(f);
  }
  tvm_ffi_release(mod);
  tvm_ffi_global_remove("testing.abi_add");
}

TEST(metadata_and_doc) {
  void* mod = load_kernel("abi_kernel");
  CHECK(mod != NULL);
  if (!mod) return;
  TVMFFIAny r;
  CHECK_OK(module_query("ffi.ModuleGetFunctionMetadata", mod, "add_one", 0, &r));
  TVMFFIByteArray text;
  CHECK(tvm_ffi_any_as_bytes(&r, &text));
  CHECK(text.size > 0 && strstr(text.data, "\"type_schema\"") != NULL);
  tvm_ffi_any_release(&r);
  CHECK_OK(module_query("ffi.ModuleGetFunctionDoc", mod, "add_one", 0, &r));
  CHECK(tvm_ffi_any_as_bytes(&r, &text) && strstr(text.data, "x + 1") != NULL);
  tvm_ffi_any_release(&r);
  CHECK_OK(module_query("ffi.ModuleGetFunctionMetadata", mod, "raise_error", 0, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);
  CHECK_OK(module_query("ffi.ModuleGetFunctionDoc", mod, "missing", 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);
  tvm_ffi_release(mod);
}

TEST(missing_functions_are_none) {
  void* mod = load_kernel("abi_kernel");
  CHECK(mod != NULL);
  if (!mod) return;
  CHECK(get_function(mod, "no_such_kernel", 1) == NULL);
  CHECK(!tvm_ffi_error_pending());
  /* __tvm_ffi_not_a_function is a data object: calling it would crash, so it is no function */
  CHECK(get_function(mod, "not_a_function", 0) == NULL);
  CHECK(!tvm_ffi_error_pending());
  /* neither are the special symbols */
  CHECK(get_function(mod, "_library_ctx", 0) == NULL);
  CHECK(!tvm_ffi_error_pending());
  TVMFFIAny r;
  CHECK_OK(module_query("ffi.ModuleImplementsFunction", mod, "add_one", 0, &r));
  CHECK(r.type_index == kTVMFFIBool && r.v_int64 == 1);
  CHECK_OK(module_query("ffi.ModuleImplementsFunction", mod, "nope", 1, &r));
  CHECK(r.type_index == kTVMFFIBool && r.v_int64 == 0);
  tvm_ffi_release(mod);
}

TEST(main_entry_and_kind) {
  void* mod = load_kernel("abi_kernel");
  CHECK(mod != NULL);
  if (!mod) return;
  void* f = get_function(mod, "main", 0);
  CHECK(f != NULL);
  if (f) {
    TVMFFIAny args[3] = {int_arg(1), int_arg(2), int_arg(3)};
    TVMFFIAny result = none_any();
    CHECK_OK(TVMFFIFunctionCall(f, args, 3, &result));
    CHECK_EQ_INT(result.v_int64, 6);
    TVMFFIObjectDecRef(f);
  }
  TVMFFIAny arg = obj_arg(mod), r;
  CHECK_OK(call_global("ffi.ModuleGetKind", &arg, 1, &r));
  TVMFFIByteArray s;
  CHECK(tvm_ffi_any_as_bytes(&r, &s) && s.size == 7 && memcmp(s.data, "library", 7) == 0);
  tvm_ffi_any_release(&r);
  CHECK_OK(call_global("ffi.ModuleGetPropertyMask", &arg, 1, &r));
  CHECK_EQ_INT(r.v_int64, TVM_FFI_MODULE_BINARY_SERIALIZABLE | TVM_FFI_MODULE_RUNNABLE);
  tvm_ffi_any_release(&r);
  CHECK_OK(call_global("ffi.ModuleGetImports", &arg, 1, &r));
  CHECK(tvm_ffi_any_as_object(&r, kTVMFFIArray) && tvm_ffi_seq_size(r.v_obj) == 0);
  tvm_ffi_any_release(&r);
  TVMFFIAny src_args[2] = {obj_arg(mod), str_arg("")};
  CHECK(call_global("ffi.ModuleInspectSource", src_args, 2, &r) != 0);
  CHECK_RAISED("RuntimeError", "Module[library] does not support InspectSource");
  tvm_ffi_release(mod);
}

/* The __tvm_ffi_<name> functions come from the ELF dynamic symbol table, with a GNU hash
 * table (the default) or only a SysV one; data objects and __tvm_ffi__ specials are left out. */
TEST(list_functions_from_the_symbol_table) {
  static const char* expected[] = {"add_one",         "call_import", "get_context_value",
                                   "get_library_ctx", "get_stream",  "main",
                                   "raise_error"};
  static const char* libraries[] = {"abi_kernel", "abi_kernel_sysv"};
  for (int k = 0; k < 2; ++k) {
    void* mod = load_kernel(libraries[k]);
    CHECK(mod != NULL);
    if (!mod) continue;
    TVMFFIAny arg = obj_arg(mod), r;
    CHECK_OK(call_global("ffi.ModuleListFunctions", &arg, 1, &r));
    void* names = tvm_ffi_any_as_object(&r, kTVMFFIArray);
    CHECK(names != NULL);
    if (names) {
      CHECK_EQ_INT(tvm_ffi_seq_size(names), 7);
      for (int64_t i = 0; i < tvm_ffi_seq_size(names) && i < 7; ++i) {
        TVMFFIByteArray b;
        tvm_ffi_any_as_bytes(tvm_ffi_seq_at(names, i), &b);
        CHECK(b.size == strlen(expected[i]) && memcmp(b.data, expected[i], b.size) == 0);
      }
    }
    tvm_ffi_any_release(&r);
    tvm_ffi_release(mod);
  }
}

TEST(function_keeps_its_library_alive) {
  void* mod = load_kernel("abi_kernel");
  void* f = mod ? get_function(mod, "main", 0) : NULL;
  CHECK(f != NULL);
  if (!f) {
    tvm_ffi_release(mod);
    return;
  }
  void* again = get_function(mod, "main", 0);
  CHECK(again == f); /* cached while held */
  TVMFFIObjectDecRef(again);
  CHECK(library_loaded("abi_kernel"));
  TVMFFIObjectDecRef(mod); /* the function still holds the module and its dlopen handle */
  TVMFFIAny args[2] = {int_arg(20), int_arg(22)};
  TVMFFIAny result = none_any();
  CHECK_OK(TVMFFIFunctionCall(f, args, 2, &result));
  CHECK_EQ_INT(result.v_int64, 42);
  CHECK(library_loaded("abi_kernel"));
  TVMFFIObjectDecRef(f); /* last reference: module destroyed, library closed */
  CHECK(!library_loaded("abi_kernel"));
}

TEST(context_symbols_and_library_ctx) {
  CHECK_OK(TVMFFIEnvModRegisterContextSymbol("__tvm_test_context_value", (void*)0xbeef));
  void* mod = load_kernel("abi_kernel");
  void* value = mod ? get_function(mod, "get_context_value", 0) : NULL;
  void* ctx = mod ? get_function(mod, "get_library_ctx", 0) : NULL;
  CHECK(value && ctx);
  if (value && ctx) {
    TVMFFIAny result = none_any();
    CHECK_OK(TVMFFIFunctionCall(value, NULL, 0, &result));
    CHECK(result.type_index == kTVMFFIOpaquePtr && result.v_ptr == (void*)0xbeef);
    CHECK_OK(TVMFFIFunctionCall(ctx, NULL, 0, &result));
    CHECK(result.type_index == kTVMFFIOpaquePtr && result.v_ptr == mod);

    /* A second load of the same file shares the context variable: it points at the newest
     * module, and back at the first one once the newest dies. */
    void* mod2 = load_kernel("abi_kernel");
    CHECK(mod2 != NULL && mod2 != mod);
    CHECK_OK(TVMFFIFunctionCall(ctx, NULL, 0, &result));
    CHECK(result.v_ptr == mod2);
    tvm_ffi_release(mod2);
    CHECK_OK(TVMFFIFunctionCall(ctx, NULL, 0, &result));
    CHECK(result.v_ptr == mod);
  }
  CHECK_OK(TVMFFIEnvModRegisterContextSymbol("__tvm_test_context_value", NULL));
  tvm_ffi_release(value);
  tvm_ffi_release(ctx);
  tvm_ffi_release(mod);
}

TEST(load_errors) {
  TVMFFIAny args[2] = {str_arg("/nonexistent/dir/libnothing.so"), str_arg("so")};
  TVMFFIAny result;
  CHECK(call_global("ffi.Module.load_from_file.so", args, 2, &result) != 0);
  CHECK_RAISED("RuntimeError", "/nonexistent/dir/libnothing.so");

  /* a file that is not a shared library */
  char path[] = "/tmp/tvm_test_garbage_XXXXXX.so";
  int fd = mkstemps(path, 3);
  CHECK(fd >= 0);
  if (fd >= 0) {
    FILE* f = fdopen(fd, "w");
    fputs("this is not an ELF file\n", f);
    fclose(f);
    args[0] = str_arg(path);
    CHECK(call_global("ffi.Module.load_from_file.so", args, 2, &result) != 0);
    CHECK_RAISED("RuntimeError", "Failed to load dynamic shared library");
    remove(path);
  }

  /* A library referencing a function defined nowhere: a load error naming it (immediate
   * binding), not a loaded library whose first call ends the process. */
  args[0] = str_arg(kernel_path("missing_symbol"));
  CHECK(call_global("ffi.Module.load_from_file.so", args, 2, &result) != 0);
  CHECK_RAISED("RuntimeError", "tvm_test_kernel_no_such_symbol");

  args[0] = int_arg(1);
  CHECK(call_global("ffi.Module.load_from_file.so", args, 2, &result) != 0);
  CHECK_RAISED("TypeError", "expected str");
  CHECK(call_global("ffi.Module.load_from_file.so", args, 1, &result) != 0);
  CHECK_RAISED("TypeError", "expects 2 arguments");

  /* ffi.ModuleLoadFromFile dispatches on the extension */
  args[0] = str_arg(kernel_path("abi_kernel"));
  CHECK_OK(call_global("ffi.ModuleLoadFromFile", args, 1, &result));
  CHECK(tvm_ffi_any_as_object(&result, kTVMFFIModule) != NULL);
  tvm_ffi_any_release(&result);
  args[0] = str_arg("/nonexistent/kernel.dylib"); /* dll/dylib/dso load as .so */
  CHECK(call_global("ffi.ModuleLoadFromFile", args, 1, &result) != 0);
  CHECK_RAISED("RuntimeError", "/nonexistent/kernel.dylib");
  args[0] = str_arg("/tmp/model.params");
  CHECK(call_global("ffi.ModuleLoadFromFile", args, 1, &result) != 0);
  CHECK_RAISED("RuntimeError", "ffi.Module.load_from_file.params");
  args[0] = str_arg("/tmp/dir.d/no_extension");
  CHECK(call_global("ffi.ModuleLoadFromFile", args, 1, &result) != 0);
  CHECK_RAISED("RuntimeError", "Failed to get file format from /tmp/dir.d/no_extension");

  CHECK(tvm_ffi_module_load_file(NULL) == NULL);
  CHECK_RAISED("ValueError", "path is NULL");
}

TEST(abi_version_record) {
  /* The rule: the same major, and while the major is 0 the same minor. */
  CHECK(tvm_ffi_abi_version_serves(TVM_FFI_VERSION_MAJOR, TVM_FFI_VERSION_MINOR));
  CHECK(!tvm_ffi_abi_version_serves(TVM_FFI_VERSION_MAJOR + 1, TVM_FFI_VERSION_MINOR));
  CHECK(!tvm_ffi_abi_version_serves(TVM_FFI_VERSION_MAJOR, TVM_FFI_VERSION_MINOR + 1));
  if (TVM_FFI_VERSION_MAJOR == 0 && TVM_FFI_VERSION_MINOR > 0)
    CHECK(!tvm_ffi_abi_version_serves(0, TVM_FFI_VERSION_MINOR - 1));

  /* Libraries recording an ABI this runtime does not serve are refused, naming both versions,
   * and unloaded again. */
  static const struct {
    const char* kernel;
    int major, minor;
  } refused[] = {{"abi_version_next_minor", TVM_FFI_VERSION_MAJOR, TVM_FFI_VERSION_MINOR + 1},
                 {"abi_version_next_major", TVM_FFI_VERSION_MAJOR + 1, TVM_FFI_VERSION_MINOR}};
  char theirs[64], ours[64];
  snprintf(ours, sizeof(ours), "this runtime (tvm-ffi ABI %d.%d.%d) cannot serve",
           TVM_FFI_VERSION_MAJOR, TVM_FFI_VERSION_MINOR, TVM_FFI_VERSION_PATCH);
  for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); ++i) {
    CHECK(load_kernel(refused[i].kernel) == NULL);
    void* e = tvm_ffi_error_take();
    CHECK(e != NULL);
    if (!e) continue;
    snprintf(theirs, sizeof(theirs), "built for tvm-ffi ABI %d.%d.0", refused[i].major,
             refused[i].minor);
    CHECK_STR_EQ(tvm_ffi_error_kind(e), "RuntimeError");
    CHECK_STR_CONTAINS(tvm_ffi_error_message(e), kernel_path(refused[i].kernel));
    CHECK_STR_CONTAINS(tvm_ffi_error_message(e), theirs);
    CHECK_STR_CONTAINS(tvm_ffi_error_message(e), ours);
    tvm_ffi_release(e);
    CHECK(!library_loaded(refused[i].kernel));
  }
  /* A record too short for a version is a broken library, not an unversioned one. */
  CHECK(load_kernel("abi_version_short") == NULL);
  CHECK_RAISED("RuntimeError", "__tvm_ffi__abi_version has 2 bytes, expected at least 12");

  /* Another patch of the same minor loads and runs; so does the library without a record. */
  const char* ok[] = {"abi_version_other_patch", "abi_kernel"};
  for (size_t i = 0; i < 2; ++i) {
    void* mod = load_kernel(ok[i]);
    CHECK(mod != NULL);
    void* main_fn = mod ? get_function(mod, "main", 0) : NULL;
    CHECK(main_fn != NULL);
    if (main_fn) {
      TVMFFIAny args[2] = {int_arg(40), int_arg(2)}, result;
      CHECK_OK(TVMFFIFunctionCall(main_fn, args, 2, &result));
      CHECK_EQ_INT(result.v_int64, 42);
      TVMFFIObjectDecRef(main_fn);
    }
    if (mod) TVMFFIObjectDecRef(mod);
  }
}

/* ---- A custom module kind serialized into __tvm_ffi__library_bin ------------------------- */

typedef struct {
  tvm_ffi_module_obj base;
  char name[32];
} blob_module;

static int blob_fn(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  *result = tvm_ffi_string(((blob_module*)self)->name);
  return 0;
}

/* blob_<name>() returns <name>; the Function holds its module, like a library function. */
static int blob_get_function(void* mod, const char* name, void** out) {
  blob_module* m = (blob_module*)mod;
  *out = NULL;
  if (strncmp(name, "blob_", 5) != 0 || strcmp(name + 5, m->name) != 0) return 0;
  tvm_ffi_retain(mod);
  *out = tvm_ffi_function_new(mod, blob_fn, tvm_ffi_release);
  if (!*out) tvm_ffi_release(mod);
  return *out ? 0 : -1;
}

static const tvm_ffi_module_vtable blob_vtable = {
    .kind = "test_blob",
    .property_mask = TVM_FFI_MODULE_BINARY_SERIALIZABLE | TVM_FFI_MODULE_RUNNABLE,
    .get_function = blob_get_function,
};

static int load_test_blob(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  TVMFFIByteArray b;
  if (!tvm_ffi_check_num_args("ffi.Module.load_from_bytes.test_blob", n, 1) ||
      !tvm_ffi_arg_bytes("ffi.Module.load_from_bytes.test_blob", args, 0, &b)) {
    return -1;
  }
  if (b.size >= sizeof(((blob_module*)0)->name)) {
    return tvm_ffi_raise("ValueError", "test_blob payload too long");
  }
  blob_module* m = (blob_module*)tvm_ffi_module_new(&blob_vtable, sizeof(blob_module));
  if (!m) return -1;
  memcpy(m->name, b.data, b.size);
  *result = tvm_ffi_any_obj(m);
  return 0;
}

static const char* str_of(const TVMFFIAny* v, TVMFFIByteArray* b) {
  return tvm_ffi_any_as_bytes(v, b) ? b->data : "";
}

TEST(library_bin_builds_the_import_tree) {
  /* without the loader the kind cannot be rebuilt */
  tvm_ffi_global_remove("ffi.Module.load_from_bytes.test_blob");
  CHECK(load_kernel("blob_imports") == NULL);
  CHECK_RAISED("RuntimeError", "ffi.Module.load_from_bytes.test_blob");
  CHECK(!library_loaded("blob_imports"));

  CHECK_OK(tvm_ffi_global_register("ffi.Module.load_from_bytes.test_blob", load_test_blob, true));
  void* root = load_kernel("blob_imports");
  CHECK(root != NULL);
  if (root) {
    TVMFFIAny arg = obj_arg(root), r;
    TVMFFIByteArray b;
    CHECK_OK(call_global("ffi.ModuleGetKind", &arg, 1, &r));
    CHECK_STR_EQ(str_of(&r, &b), "test_blob");
    tvm_ffi_any_release(&r);

    /* root -> _lib -> child */
    CHECK_OK(call_global("ffi.ModuleGetImports", &arg, 1, &r));
    void* imports = tvm_ffi_any_as_object(&r, kTVMFFIArray);
    CHECK(imports && tvm_ffi_seq_size(imports) == 1);
    void* lib = imports && tvm_ffi_seq_size(imports) ? tvm_ffi_seq_obj_at(imports, 0) : NULL;
    tvm_ffi_retain(lib);
    tvm_ffi_any_release(&r);
    CHECK(lib != NULL);
    if (lib) {
      TVMFFIAny larg = obj_arg(lib);
      CHECK_OK(call_global("ffi.ModuleGetKind", &larg, 1, &r));
      CHECK_STR_EQ(str_of(&r, &b), "library");
      tvm_ffi_any_release(&r);
      CHECK_OK(call_global("ffi.ModuleGetImports", &larg, 1, &r));
      CHECK(tvm_ffi_seq_size(r.v_obj) == 1);
      tvm_ffi_any_release(&r);
    }

    CHECK(get_function(root, "lib_value", 0) == NULL); /* not the root's own */
    CHECK(!tvm_ffi_error_pending());
    void* f = get_function(root, "lib_value", 1);
    CHECK(f != NULL);
    TVMFFIAny result = none_any();
    if (f) {
      CHECK_OK(TVMFFIFunctionCall(f, NULL, 0, &result));
      CHECK_EQ_INT(result.v_int64, 7);
      TVMFFIObjectDecRef(f);
    }
    f = get_function(root, "blob_root", 0);
    CHECK(f != NULL);
    if (f) {
      CHECK_OK(TVMFFIFunctionCall(f, NULL, 0, &result));
      CHECK_STR_EQ(str_of(&result, &b), "root");
      tvm_ffi_any_release(&result);
      TVMFFIObjectDecRef(f);
    }
    /* the library's code finds the child module through __tvm_ffi__library_ctx */
    f = get_function(root, "lib_call_child", 1);
    CHECK(f != NULL);
    if (f) {
      for (int round = 0; round < 2; ++round) {
        CHECK_OK(TVMFFIFunctionCall(f, NULL, 0, &result));
        CHECK_STR_EQ(str_of(&result, &b), "child");
        tvm_ffi_any_release(&result);
      }
    }
    CHECK(library_loaded("blob_imports"));
    tvm_ffi_release(lib);
    TVMFFIObjectDecRef(root);
    /* f holds the library module, which keeps its imports (the child) alive */
    if (f) {
      CHECK_OK(TVMFFIFunctionCall(f, NULL, 0, &result));
      CHECK_STR_EQ(str_of(&result, &b), "child");
      tvm_ffi_any_release(&result);
      TVMFFIObjectDecRef(f);
    }
    CHECK(!library_loaded("blob_imports"));
  }
  tvm_ffi_global_remove("ffi.Module.load_from_bytes.test_blob");
}

TEST(corrupted_library_bin) {
  CHECK_OK(tvm_ffi_global_register("ffi.Module.load_from_bytes.test_blob", load_test_blob, true));
  static const struct {
    const char* library;
    const char* message;
  } cases[] = {
      {"blob_truncated", "corrupted __tvm_ffi__library_bin: the length prefix says"},
      {"blob_huge_count", "corrupted __tvm_ffi__library_bin: indptr claims 4294967295 entries"},
      {"blob_bad_child", "corrupted __tvm_ffi__library_bin: child index 5 out of range"},
      {"blob_not_monotone", "corrupted __tvm_ffi__library_bin: indptr is not monotone"},
      {"blob_cycle", "corrupted __tvm_ffi__library_bin: import cycle"},
      {"blob_huge_str", "corrupted __tvm_ffi__library_bin: the kind of module 0 claims 1000"},
      {"blob_no_loader", "ffi.Module.load_from_bytes.no_such_kind"},
      {"blob_not_data", "__tvm_ffi__library_bin is not a data object"},
      {"ctx_not_data", "__tvm_ffi__library_ctx is not a data object"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    void* mod = load_kernel(cases[i].library);
    CHECK(mod == NULL);
    tvm_ffi_release(mod);
    void* err = tvm_ffi_error_take();
    CHECK(err != NULL);
    if (err) {
      CHECK_STR_EQ(tvm_ffi_error_kind(err), "RuntimeError");
      if (!strstr(tvm_ffi_error_message(err), cases[i].message)) {
        fprintf(stderr, "  %s: \"%s\" lacks \"%s\"\n", cases[i].library, tvm_ffi_error_message(err),
                cases[i].message);
        CHECK(false);
      }
      CHECK_STR_CONTAINS(tvm_ffi_error_message(err), cases[i].library);
      tvm_ffi_release(err);
    }
    CHECK(!library_loaded(cases[i].library));
  }
  tvm_ffi_global_remove("ffi.Module.load_from_bytes.test_blob");
}

int main(void) {
  RUN(add_one_with_dltensor_pointers);
  RUN(add_one_with_tensor_objects);
  RUN(add_one_rejects_bad_tensors);
  RUN(kernel_errors_propagate);
  RUN(kernel_reads_the_stream);
  RUN(kernel_calls_a_global_through_its_context);
  RUN(metadata_and_doc);
  RUN(missing_functions_are_none);
  RUN(main_entry_and_kind);
  RUN(list_functions_from_the_symbol_table);
  RUN(function_keeps_its_library_alive);
  RUN(context_symbols_and_library_ctx);
  RUN(load_errors);
  RUN(abi_version_record);
  RUN(library_bin_builds_the_import_tree);
  RUN(corrupted_library_bin);
  return test_summary();
}
