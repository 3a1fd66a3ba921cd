/*
 * op_registry.c: the ir.Op registry. Builtins come from ops.def; other dialects add theirs with
 * tvm_tir_op_register. Ops are singletons (structural equality by identity), so JSON stores an
 * op by name: the "__data_to_json__" / "__data_from_json__" type attributes of ir.Op (the
 * upstream hook names) map an op to its name and back.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const struct {
  const char* name;
  int32_t effect;
  int32_t num_inputs;
} k_builtins[TVM_TIR_BUILTIN_COUNT] = {
#define TVM_TIR_OP(id, name, effect, num_inputs) \
  [TVM_TIR_BUILTIN_##id] = {name, TVM_TIR_EFFECT_##effect, num_inputs},
#include <tvm/tir/ops.def>
};

static tvm_tir_op_obj* g_builtins[TVM_TIR_BUILTIN_COUNT];
/* The strong references the registry itself holds to each builtin op (g_builtins and g_ops),
 * read once they are both set: see tvm_tir__builtin_unused. */
static uint32_t g_builtin_own_refs[TVM_TIR_BUILTIN_COUNT];

static uint32_t strong_refs(const void* obj) {
  return (uint32_t)(__atomic_load_n(&((const TVMFFIObject*)obj)->combined_ref_count,
                                    __ATOMIC_ACQUIRE) &
                    UINT32_MAX);
}
static void* g_ops; /* ffi.Dict: name -> Op; written under g_lock */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static tvm_tir_op_obj* op_make(const char* name, int32_t num_inputs, int32_t effect) {
  void* str = tvm_tir__str(name);
  tvm_tir_op_obj* op = str ? TIR_NEW(tvm_tir_op_obj, Op) : NULL;
  if (!op) {
    tvm_ffi_release(str);
    return NULL;
  }
  op->name = str;
  op->num_inputs = num_inputs;
  op->call_effect_kind = effect;
  op->builtin = -1;
  return op;
}

/* Find or add under g_lock; a new reference or NULL. */
static tvm_tir_op_obj* register_locked(const char* name, int32_t num_inputs, int32_t effect) {
  TVMFFIAny key = tvm_ffi_any_raw_str(name);
  const TVMFFIAny* found = tvm_ffi_map_get(g_ops, &key);
  if (found) {
    tvm_tir_op_obj* op = (tvm_tir_op_obj*)found->v_obj;
    if (op->num_inputs != num_inputs || op->call_effect_kind != effect) {
      tvm_ffi_raise("ValueError",
                    "op %s is already registered with num_inputs %d and effect %d "
                    "(requested %d and %d)",
                    name, (int)op->num_inputs, (int)op->call_effect_kind, (int)num_inputs,
                    (int)effect);
      return NULL;
    }
    tvm_ffi_retain(op);
    return op;
  }
  tvm_tir_op_obj* op = op_make(name, num_inputs, effect);
  if (!op) return NULL;
  TVMFFIAny value = tvm_ffi_any_obj(op);
  if (tvm_ffi_dict_set(g_ops, &key, &value) != 0) {
    tvm_ffi_release(op);
    return NULL;
  }
  return op;
}

/* ---- JSON hooks ---------------------------------------------------------------------------- */
static int op_to_json(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  if (!tvm_ffi_check_num_args("ir.Op.__data_to_json__", n, 1)) return -1;
  tvm_tir_op_obj* op = (tvm_tir_op_obj*)tvm_ffi_arg_object("ir.Op.__data_to_json__", args, 0,
                                                           tvm_tir__index[TVM_TIR_KIND_Op]);
  if (!op) return -1;
  *result = tvm_ffi_string(tvm_tir_op_name(op));
  return tvm_ffi_any_is_none(result) ? -1 : 0;
}

static int op_from_json(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  TVMFFIByteArray name;
  if (!tvm_ffi_check_num_args("ir.Op.__data_from_json__", n, 1) ||
      !tvm_ffi_arg_bytes("ir.Op.__data_from_json__", args, 0, &name)) {
    return -1;
  }
  char* cname = tvm_ffi_strndup(name.data, name.size);
  if (!cname) return -1;
  tvm_tir_op_obj* op = tvm_tir_op_get(cname);
  tvm_ffi_free(cname);
  if (!op) return -1;
  *result = tvm_ffi_any_obj(op); /* the reference moves to the result */
  return 0;
}

static int register_hook(const char* attr, TVMFFISafeCallType fn) {
  void* f = tvm_ffi_function_new(NULL, fn, NULL);
  if (!f) return -1;
  TVMFFIByteArray name = {attr, strlen(attr)};
  TVMFFIAny value = tvm_ffi_any_obj(f);
  int rc = TVMFFITypeRegisterAttr(tvm_tir__index[TVM_TIR_KIND_Op], &name, &value);
  tvm_ffi_release(f);
  return rc;
}

int tvm_tir__init_ops(void) {
  if (!(g_ops = tvm_ffi_dict_new())) return -1;
  for (int i = 0; i < TVM_TIR_BUILTIN_COUNT; ++i) {
    g_builtins[i] = op_make(k_builtins[i].name, k_builtins[i].num_inputs, k_builtins[i].effect);
    if (!g_builtins[i]) return -1;
    g_builtins[i]->builtin = i;
    TVMFFIAny key = tvm_ffi_any_raw_str(k_builtins[i].name);
    TVMFFIAny value = tvm_ffi_any_obj(g_builtins[i]);
    if (tvm_ffi_dict_set(g_ops, &key, &value) != 0) return -1;
    g_builtin_own_refs[i] = strong_refs(g_builtins[i]);
  }
  if (register_hook("__data_to_json__", op_to_json) != 0) return -1;
  return register_hook("__data_from_json__", op_from_json);
}

/* ---- Public API ---------------------------------------------------------------------------- */
tvm_tir_op_obj* tvm_tir_op_get(const char* name) {
  tvm_tir__ensure_init();
  if (!name) return tvm_tir__null_arg("tvm_tir_op_get", "name");
  TVMFFIAny key = tvm_ffi_any_raw_str(name);
  pthread_mutex_lock(&g_lock);
  const TVMFFIAny* found = g_ops ? tvm_ffi_map_get(g_ops, &key) : NULL;
  tvm_tir_op_obj* op = found ? (tvm_tir_op_obj*)found->v_obj : NULL;
  tvm_ffi_retain(op);
  pthread_mutex_unlock(&g_lock);
  if (!op) tvm_ffi_raise("KeyError", "no operator named `%s` is registered", name);
  return op;
}

tvm_tir_op_obj* tvm_tir_builtin_op(tvm_tir_builtin id) {
  tvm_tir__ensure_init();
  if ((int)id < 0 || id >= TVM_TIR_BUILTIN_COUNT || !g_builtins[id]) {
    tvm_ffi_raise("ValueError", "tvm_tir_builtin_op: invalid builtin id %d", (int)id);
    return NULL;
  }
  tvm_ffi_retain(g_builtins[id]);
  return g_builtins[id];
}

bool tvm_tir__builtin_unused(tvm_tir_builtin id) {
  return g_builtins[id] && strong_refs(g_builtins[id]) == g_builtin_own_refs[id];
}

bool tvm_tir_is_builtin(const void* obj, tvm_tir_builtin id) {
  return obj && (int)id >= 0 && id < TVM_TIR_BUILTIN_COUNT && obj == (const void*)g_builtins[id];
}

int tvm_tir_builtin_of(const void* obj) {
  return tvm_tir_kind_of(obj) == TVM_TIR_KIND_Op ? ((const tvm_tir_op_obj*)obj)->builtin : -1;
}

tvm_tir_op_obj* tvm_tir_op_register(const char* name, int32_t num_inputs,
                                    tvm_tir_call_effect_kind effect) {
  tvm_tir__ensure_init();
  if (!name || !*name) {
    tvm_ffi_raise("ValueError", "tvm_tir_op_register: empty op name");
    return NULL;
  }
  if (num_inputs < -1 || (int)effect < TVM_TIR_EFFECT_EXPR_ANNOTATION ||
      (int)effect > TVM_TIR_EFFECT_CONTROL_JUMP) {
    tvm_ffi_raise("ValueError", "tvm_tir_op_register(%s): invalid num_inputs %d or effect %d", name,
                  (int)num_inputs, (int)effect);
    return NULL;
  }
  pthread_mutex_lock(&g_lock);
  tvm_tir_op_obj* op = register_locked(name, num_inputs, (int32_t)effect);
  pthread_mutex_unlock(&g_lock);
  return op;
}

static int compare_names(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}

void* tvm_tir_op_list_names(void) {
  tvm_tir__ensure_init();
  pthread_mutex_lock(&g_lock);
  int64_t n = tvm_ffi_map_size(g_ops);
  const char** names = (const char**)tvm_ffi_malloc((size_t)(n ? n : 1) * sizeof(char*));
  TVMFFIAny* items =
      names ? (TVMFFIAny*)tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny)) : NULL;
  void* arr = NULL;
  if (items) {
    int64_t i = 0;
    const TVMFFIAny *k, *v;
    for (int64_t pos = 0; (pos = tvm_ffi_map_next(g_ops, pos, &k, &v)) >= 0;) {
      names[i++] = tvm_tir_op_name((const tvm_tir_op_obj*)v->v_obj);
    }
    qsort(names, (size_t)n, sizeof(char*), compare_names);
    bool ok = true;
    for (i = 0; i < n && ok; ++i) {
      items[i] = tvm_ffi_string(names[i]);
      ok = !tvm_ffi_any_is_none(&items[i]);
    }
    if (ok) arr = tvm_ffi_array_new_take(items, n);
    for (i = 0; i < n; ++i) tvm_ffi_any_release(&items[i]);
  }
  pthread_mutex_unlock(&g_lock);
  tvm_ffi_free(items);
  tvm_ffi_free(names);
  return arr;
}
