/*
 * refl_test_types.h: a tiny IR of reflected object types for the reflection tests
 * (structural equality/hash, JSON, access paths).
 *
 *   test.Var   FreeVar   name_hint: ffi.String (SEqHashIgnore), dtype: DataType
 *   test.Add   TreeNode  a, b: Any
 *   test.Func  TreeNode  params: ffi.Array of test.Var (SEqHashDef), body: Any
 *   test.Let   TreeNode  var: test.Var (SEqHashDef), value: Any, body: Any
 *   test.DAG   DAGNode   value: Any
 *   test.Pod   TreeNode  one field of every inline storage kind, plus a Device and a String
 *
 * Builders take ownership of the values passed in (so trees read as nested calls) and return
 * new references; `ref(obj)` adds a reference for sharing a node.
 */
#ifndef TVM_TESTS_FFI_REFL_TEST_TYPES_H_
#define TVM_TESTS_FFI_REFL_TEST_TYPES_H_

#include "test_util.h"

typedef struct {
  TVMFFIObject header;
  void* name_hint; /* ffi.String */
  DLDataType dtype;
} var_obj;

typedef struct {
  TVMFFIObject header;
  TVMFFIAny a, b;
} add_obj;

typedef struct {
  TVMFFIObject header;
  void* params; /* ffi.Array */
  TVMFFIAny body;
} func_obj;

typedef struct {
  TVMFFIObject header;
  void* var; /* test.Var */
  TVMFFIAny value, body;
} let_obj;

typedef struct {
  TVMFFIObject header;
  TVMFFIAny value;
} dag_obj;

typedef struct {
  TVMFFIObject header;
  uint8_t flag;
  int64_t i64;
  int32_t i32;
  int8_t i8;
  double f64;
  float f32;
  DLDataType dt;
  DLDevice dev;
  TVMFFIAny any;
  void* str; /* ffi.String */
} pod_obj;

static int32_t g_var_t = -1, g_add_t, g_func_t, g_let_t, g_dag_t, g_pod_t;

static inline void register_test_types(void) {
  if (g_var_t >= 0) return;
  g_var_t = tvm_ffi_type_register("test.Var", kTVMFFIObject, -1, sizeof(var_obj), NULL,
                                  kTVMFFISEqHashKindFreeVar);
  g_add_t = tvm_ffi_type_register("test.Add", kTVMFFIObject, -1, sizeof(add_obj), NULL,
                                  kTVMFFISEqHashKindTreeNode);
  g_func_t = tvm_ffi_type_register("test.Func", kTVMFFIObject, -1, sizeof(func_obj), NULL,
                                   kTVMFFISEqHashKindTreeNode);
  g_let_t = tvm_ffi_type_register("test.Let", kTVMFFIObject, -1, sizeof(let_obj), NULL,
                                  kTVMFFISEqHashKindTreeNode);
  g_dag_t = tvm_ffi_type_register("test.DAG", kTVMFFIObject, -1, sizeof(dag_obj), NULL,
                                  kTVMFFISEqHashKindDAGNode);
  g_pod_t = tvm_ffi_type_register("test.Pod", kTVMFFIObject, -1, sizeof(pod_obj), NULL,
                                  kTVMFFISEqHashKindTreeNode);
  const tvm_ffi_field_def var_f[] = {
      TVM_FFI_FIELD(var_obj, name_hint, kTVMFFIStr, kTVMFFIFieldFlagBitMaskSEqHashIgnore),
      TVM_FFI_FIELD(var_obj, dtype, kTVMFFIDataType, 0),
  };
  const tvm_ffi_field_def add_f[] = {
      TVM_FFI_FIELD(add_obj, a, kTVMFFIAny, 0),
      TVM_FFI_FIELD(add_obj, b, kTVMFFIAny, 0),
  };
  const tvm_ffi_field_def func_f[] = {
      TVM_FFI_FIELD(func_obj, params, kTVMFFIArray, kTVMFFIFieldFlagBitMaskSEqHashDef),
      TVM_FFI_FIELD(func_obj, body, kTVMFFIAny, 0),
  };
  const tvm_ffi_field_def let_f[] = {
      TVM_FFI_FIELD(let_obj, var, g_var_t, kTVMFFIFieldFlagBitMaskSEqHashDef),
      TVM_FFI_FIELD(let_obj, value, kTVMFFIAny, 0),
      TVM_FFI_FIELD(let_obj, body, kTVMFFIAny, 0),
  };
  const tvm_ffi_field_def dag_f[] = {TVM_FFI_FIELD(dag_obj, value, kTVMFFIAny, 0)};
  const tvm_ffi_field_def pod_f[] = {
      TVM_FFI_FIELD(pod_obj, flag, kTVMFFIBool, 0),   TVM_FFI_FIELD(pod_obj, i64, kTVMFFIInt, 0),
      TVM_FFI_FIELD(pod_obj, i32, kTVMFFIInt, 0),     TVM_FFI_FIELD(pod_obj, i8, kTVMFFIInt, 0),
      TVM_FFI_FIELD(pod_obj, f64, kTVMFFIFloat, 0),   TVM_FFI_FIELD(pod_obj, f32, kTVMFFIFloat, 0),
      TVM_FFI_FIELD(pod_obj, dt, kTVMFFIDataType, 0), TVM_FFI_FIELD(pod_obj, dev, kTVMFFIDevice, 0),
      TVM_FFI_FIELD(pod_obj, any, kTVMFFIAny, 0),     TVM_FFI_FIELD(pod_obj, str, kTVMFFIStr, 0),
  };
  CHECK_OK(tvm_ffi_type_add_fields(g_var_t, var_f, 2));
  CHECK_OK(tvm_ffi_type_add_fields(g_add_t, add_f, 2));
  CHECK_OK(tvm_ffi_type_add_fields(g_func_t, func_f, 2));
  CHECK_OK(tvm_ffi_type_add_fields(g_let_t, let_f, 3));
  CHECK_OK(tvm_ffi_type_add_fields(g_dag_t, dag_f, 1));
  CHECK_OK(tvm_ffi_type_add_fields(g_pod_t, pod_f, 10));
}

/* ---- Builders (arguments are consumed) --------------------------------------------------- */
static inline TVMFFIAny I(int64_t v) { return tvm_ffi_any_int(v); }
static inline TVMFFIAny O(void* obj_take) { return tvm_ffi_any_obj(obj_take); }
static inline void* ref(void* obj) {
  tvm_ffi_retain(obj);
  return obj;
}

static inline void* var_t(const char* name, DLDataType dt) {
  var_obj* v = (var_obj*)tvm_ffi_object_new(g_var_t, sizeof(var_obj));
  v->name_hint = tvm_ffi_str_obj(name, strlen(name));
  v->dtype = dt;
  return v;
}
static inline void* var(const char* name) { return var_t(name, tvm_ffi_dtype(kDLFloat, 32, 1)); }

static inline void* add(TVMFFIAny a, TVMFFIAny b) {
  add_obj* n = (add_obj*)tvm_ffi_object_new(g_add_t, sizeof(add_obj));
  n->a = a;
  n->b = b;
  return n;
}

/* params: n test.Var objects (consumed). */
static inline void* func(void** params, int64_t n, TVMFFIAny body) {
  func_obj* f = (func_obj*)tvm_ffi_object_new(g_func_t, sizeof(func_obj));
  f->params = tvm_ffi_array_of_objects(params, n);
  for (int64_t i = 0; i < n; ++i) tvm_ffi_release(params[i]);
  f->body = body;
  return f;
}
static inline void* func1(void* p, TVMFFIAny body) { return func(&p, 1, body); }
static inline void* func2(void* p, void* q, TVMFFIAny body) {
  void* ps[2] = {p, q};
  return func(ps, 2, body);
}

static inline void* let(void* v, TVMFFIAny value, TVMFFIAny body) {
  let_obj* l = (let_obj*)tvm_ffi_object_new(g_let_t, sizeof(let_obj));
  l->var = v;
  l->value = value;
  l->body = body;
  return l;
}

static inline void* dag(TVMFFIAny value) {
  dag_obj* d = (dag_obj*)tvm_ffi_object_new(g_dag_t, sizeof(dag_obj));
  d->value = value;
  return d;
}

/* An Array of n values (consumed). */
static inline void* arr(TVMFFIAny* items, int64_t n) { return tvm_ffi_array_new_take(items, n); }

/* ---- Checks ------------------------------------------------------------------------------ */
/* tvm_ffi_structural_equal on two objects (borrowed). */
static inline int seq(void* a, void* b, bool map_free_vars) {
  TVMFFIAny x = tvm_ffi_any_obj(a), y = tvm_ffi_any_obj(b);
  return tvm_ffi_structural_equal(&x, &y, map_free_vars, NULL, NULL);
}
static inline uint64_t shash(void* a, bool map_free_vars) {
  TVMFFIAny x = tvm_ffi_any_obj(a);
  uint64_t h = 0;
  CHECK_OK(tvm_ffi_structural_hash_checked(&x, map_free_vars, &h));
  return h;
}

/* The formatted path into buf (cleared first). */
static inline const char* path_str(void* path, tvm_ffi_strbuf* buf) {
  buf->size = 0;
  tvm_ffi_access_path_format(path, buf);
  return tvm_ffi_strbuf_cstr(buf);
}

#endif /* TVM_TESTS_FFI_REFL_TEST_TYPES_H_ */
