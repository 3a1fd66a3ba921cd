/*
 * closure.c: vm.Closure (a function name plus an implementation that takes the VM context
 * first) and partial application of trailing arguments (upstream's VMClosure::BindLastArgs).
 */
#include <string.h>

#include "internal.h"

static int32_t g_closure_type = -1;

int32_t tvm_vm__closure_type_index(void) { return g_closure_type; }
int32_t tvm_vm_closure_type_index(void) {
  tvm_vm_init();
  return g_closure_type;
}

int tvm_vm__register_closure_type(void);
int tvm_vm__register_closure_type(void) {
  g_closure_type = tvm_ffi_type_register("vm.Closure", kTVMFFIObject, -1,
                                         sizeof(tvm_vm_closure_obj), NULL,
                                         kTVMFFISEqHashKindUniqueInstance);
  if (g_closure_type < 0) return -1;
  static const tvm_ffi_field_def fields[] = {
      TVM_FFI_FIELD(tvm_vm_closure_obj, func_name, kTVMFFIStr, 0),
      TVM_FFI_FIELD(tvm_vm_closure_obj, impl, kTVMFFIFunction, 0),
  };
  return tvm_ffi_type_add_fields(g_closure_type, fields, 2);
}

tvm_vm_closure_obj* tvm_vm__closure_new(const char* name, size_t name_len, void* impl) {
  tvm_vm_closure_obj* c =
      (tvm_vm_closure_obj*)tvm_ffi_object_new(g_closure_type, sizeof(tvm_vm_closure_obj));
  if (!c) return NULL;
  c->func_name = tvm_ffi_str_obj(name, name_len);
  if (!c->func_name) {
    tvm_ffi_release(c);
    return NULL;
  }
  tvm_ffi_retain(impl);
  c->impl = impl;
  return c;
}

/* ---- Binding trailing arguments --------------------------------------------------------- */
typedef struct {
  void* func;
  int32_t num_bound;
  TVMFFIAny bound[];
} bound_fn;

static void bound_delete(void* self) {
  bound_fn* b = (bound_fn*)self;
  tvm_ffi_release(b->func);
  for (int32_t i = 0; i < b->num_bound; ++i) tvm_ffi_any_release(&b->bound[i]);
  tvm_ffi_free(b);
}

static int bound_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  bound_fn* b = (bound_fn*)self;
  TVMFFIAny small[16];
  int64_t total = (int64_t)n + b->num_bound;
  TVMFFIAny* all = total <= 16 ? small : (TVMFFIAny*)tvm_ffi_malloc((size_t)total * sizeof(TVMFFIAny));
  if (!all) return -1;
  if (n) memcpy(all, args, (size_t)n * sizeof(TVMFFIAny));
  memcpy(all + n, b->bound, (size_t)b->num_bound * sizeof(TVMFFIAny));
  int rc = tvm_ffi_function_call(b->func, all, (int32_t)total, rv);
  if (all != small) tvm_ffi_free(all);
  return rc;
}

void* tvm_vm__bind_last_args(void* func, const TVMFFIAny* bound, int32_t num_bound) {
  bound_fn* b = (bound_fn*)tvm_ffi_calloc(1, sizeof(bound_fn) + (size_t)num_bound * sizeof(TVMFFIAny));
  if (!b) return NULL;
  tvm_ffi_retain(func);
  b->func = func;
  for (int32_t i = 0; i < num_bound; ++i) {
    if (tvm_ffi_any_to_owned(&bound[i], &b->bound[i]) != 0) {
      bound_delete(b);
      return NULL;
    }
    b->num_bound = i + 1;
  }
  void* f = tvm_ffi_function_new(b, bound_call, bound_delete);
  if (!f) bound_delete(b);
  return f;
}
