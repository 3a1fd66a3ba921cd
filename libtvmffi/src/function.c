/*
 * function.c: Function objects, the global function registry, argument checking helpers and
 * one-time handle initialisation.
 *
 * The registry is an open-addressing table read without locks: entries and tables are only
 * ever added, a replaced or removed function is parked on a retired list (so a reader that
 * loaded it just before can still take a reference), and writers serialise on g_lock.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct {
  TVMFFIObject header;
  TVMFFIFunctionCell cell;
  void* self;
  TVMFFISafeCallType user_fn;
  void (*self_deleter)(void* self);
} function_obj;
_Static_assert(offsetof(function_obj, cell) == sizeof(TVMFFIObject), "function cell follows header");

static void function_destroy(void* obj) {
  function_obj* f = (function_obj*)obj;
  if (f->self_deleter) f->self_deleter(f->self);
}

static int call_with_self(void* handle, const TVMFFIAny* args, int32_t num_args,
                          TVMFFIAny* result) {
  function_obj* f = (function_obj*)handle;
  return f->user_fn(f->self, args, num_args, result);
}

int TVMFFIFunctionCreate(void* self, TVMFFISafeCallType safe_call, void (*deleter)(void* self),
                         TVMFFIObjectHandle* out) {
  if (!out) return tvm_ffi_raise("ValueError", "TVMFFIFunctionCreate: out is NULL");
  *out = NULL;
  if (!safe_call) return tvm_ffi_raise("ValueError", "TVMFFIFunctionCreate: safe_call is NULL");
  tvm_ffi_init();
  function_obj* f = (function_obj*)tvm_ffi_object_new(kTVMFFIFunction, sizeof(function_obj));
  if (!f) return -1;
  f->self = self;
  f->self_deleter = deleter;
  f->user_fn = safe_call;
  f->cell.safe_call = self ? call_with_self : safe_call;
  f->cell.cpp_call = NULL;
  *out = f;
  return 0;
}

void* tvm_ffi_function_new(void* self, TVMFFISafeCallType fn, void (*deleter)(void* self)) {
  void* out = NULL;
  if (TVMFFIFunctionCreate(self, fn, deleter, &out) != 0) return NULL;
  return out;
}

int TVMFFIFunctionCall(TVMFFIObjectHandle func, TVMFFIAny* args, int32_t num_args,
                       TVMFFIAny* result) {
  return ((function_obj*)func)->cell.safe_call(func, args, num_args, result);
}

/* ---- Global registry -------------------------------------------------------------------- */
typedef struct {
  uint64_t hash;
  char* name;
  size_t len;
  TVMFFIObject* func; /* atomic; NULL once removed */
  char* metadata;     /* JSON text or NULL */
} gentry;

typedef struct {
  size_t cap; /* power of two */
  size_t used;
  gentry** slots; /* atomic pointers */
} gtable;

typedef struct retired {
  struct retired* next;
  void* ptr;
  int is_object; /* 1: a function to release at exit, 0: a table to free */
} retired;

static gtable* g_table;
static retired* g_retired;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* Word-at-a-time hash of a name (faster than byte-wise FNV on the lookup path). */
static uint64_t name_hash(const char* s, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
    s += 8;
    n -= 8;
  }
  uint64_t w = 0;
  memcpy(&w, s, n);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 29;
  return h;
}

static void retire(void* ptr, int is_object) {
  retired* r = (retired*)tvm_ffi_malloc(sizeof(retired));
  if (!r) return; /* leak rather than free something a reader may hold */
  r->ptr = ptr;
  r->is_object = is_object;
  r->next = g_retired;
  g_retired = r;
}

static gentry* lookup(const char* name, size_t len, uint64_t h) {
  gtable* t = __atomic_load_n(&g_table, __ATOMIC_ACQUIRE);
  if (!t) return NULL;
  size_t mask = t->cap - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    gentry* e = __atomic_load_n(&t->slots[i], __ATOMIC_ACQUIRE);
    if (!e) return NULL;
    if (e->hash == h && e->len == len && memcmp(e->name, name, len) == 0) return e;
  }
}

static int insert_locked(gentry* e) {
  gtable* t = g_table;
  if (!t || (t->used + 1) * 2 > t->cap) {
    size_t cap = t ? t->cap * 2 : 256;
    gtable* nt = (gtable*)tvm_ffi_calloc(1, sizeof(gtable));
    gentry** slots = (gentry**)tvm_ffi_calloc(cap, sizeof(gentry*));
    if (!nt || !slots) {
      tvm_ffi_free(nt);
      tvm_ffi_free(slots);
      return -1;
    }
    nt->cap = cap;
    nt->slots = slots;
    if (t) {
      for (size_t i = 0; i < t->cap; ++i) {
        gentry* x = t->slots[i];
        if (!x) continue;
        size_t j = x->hash & (cap - 1);
        while (slots[j]) j = (j + 1) & (cap - 1);
        slots[j] = x;
      }
      nt->used = t->used;
      retire(t, 0);
    }
    __atomic_store_n(&g_table, nt, __ATOMIC_RELEASE);
    t = nt;
  }
  size_t j = e->hash & (t->cap - 1);
  while (t->slots[j]) j = (j + 1) & (t->cap - 1);
  __atomic_store_n(&t->slots[j], e, __ATOMIC_RELEASE);
  t->used++;
  return 0;
}

static int set_global(const char* name, size_t len, void* f, int allow_override,
                      const TVMFFIByteArray* metadata) {
  if (!f || !tvm_ffi_instance_of(f, kTVMFFIFunction)) {
    return tvm_ffi_raise("TypeError", "global `%.*s`: the value is not a Function", (int)len, name);
  }
  uint64_t h = name_hash(name, len);
  pthread_mutex_lock(&g_lock);
  gentry* e = lookup(name, len, h);
  if (e && e->func) {
    if (!allow_override) {
      pthread_mutex_unlock(&g_lock);
      return tvm_ffi_raise("RuntimeError", "Global Function `%.*s` is already registered",
                           (int)len, name);
    }
    retire(e->func, 1);
  }
  if (!e) {
    e = (gentry*)tvm_ffi_calloc(1, sizeof(gentry));
    char* n = e ? tvm_ffi_strndup(name, len) : NULL;
    if (n) {
      /* Fill the entry before publishing it: readers may see it as soon as it is inserted. */
      e->hash = h;
      e->name = n;
      e->len = len;
    }
    if (!n || insert_locked(e) != 0) {
      tvm_ffi_free(n);
      tvm_ffi_free(e);
      pthread_mutex_unlock(&g_lock);
      return -1;
    }
  }
  tvm_ffi_free(e->metadata);
  e->metadata = metadata && metadata->size ? tvm_ffi_strndup(metadata->data, metadata->size) : NULL;
  tvm_ffi_retain(f);
  __atomic_store_n(&e->func, (TVMFFIObject*)f, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&g_lock);
  return 0;
}

int TVMFFIFunctionSetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle f, int allow_override) {
  tvm_ffi_init();
  if (!name || !name->data) return tvm_ffi_raise("ValueError", "TVMFFIFunctionSetGlobal: NULL name");
  return set_global(name->data, name->size, f, allow_override, NULL);
}

int TVMFFIFunctionSetGlobalFromMethodInfo(const TVMFFIMethodInfo* info, int allow_override) {
  tvm_ffi_init();
  if (!info || !info->name.data) {
    return tvm_ffi_raise("ValueError", "TVMFFIFunctionSetGlobalFromMethodInfo: NULL name");
  }
  if (info->method.type_index != kTVMFFIFunction) {
    return tvm_ffi_raise("TypeError", "global `%.*s`: method is not a Function",
                         (int)info->name.size, info->name.data);
  }
  return set_global(info->name.data, info->name.size, info->method.v_obj, allow_override,
                    &info->metadata);
}

int TVMFFIFunctionGetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle* out) {
  if (!out) return tvm_ffi_raise("ValueError", "TVMFFIFunctionGetGlobal: out is NULL");
  *out = NULL;
  if (!name || !name->data) return tvm_ffi_raise("ValueError", "TVMFFIFunctionGetGlobal: NULL name");
  if (__builtin_expect(!tvm_ffi__initialized, 0)) tvm_ffi_init();
  gentry* e = lookup(name->data, name->size, name_hash(name->data, name->size));
  if (e) {
    TVMFFIObject* f = __atomic_load_n(&e->func, __ATOMIC_ACQUIRE);
    if (f) {
      tvm_ffi_retain(f);
      *out = f;
    }
  }
  return 0;
}

void* tvm_ffi_global_get(const char* name) {
  TVMFFIByteArray n = {name, strlen(name)};
  void* f = NULL;
  TVMFFIFunctionGetGlobal(&n, &f);
  return f;
}

int tvm_ffi_global_register(const char* name, TVMFFISafeCallType fn, bool allow_override) {
  void* f = tvm_ffi_function_new(NULL, fn, NULL);
  if (!f) return -1;
  TVMFFIByteArray n = {name, strlen(name)};
  int rc = TVMFFIFunctionSetGlobal(&n, f, allow_override);
  tvm_ffi_release(f);
  return rc;
}

void tvm_ffi__register_global(const char* name, TVMFFISafeCallType fn) {
  /* Built-ins are registered once at init; a clash is a programming error reported to the
   * first caller that sees the raised error. */
  tvm_ffi_global_register(name, fn, false);
}

int tvm_ffi_global_call(const char* name, const TVMFFIAny* args, int32_t num_args,
                        TVMFFIAny* result) {
  *result = tvm_ffi_any_none();
  void* f = tvm_ffi_global_get(name);
  if (!f) return tvm_ffi_raise("ValueError", "Function %s not found", name);
  int rc = tvm_ffi_function_call(f, args, num_args, result);
  tvm_ffi_release(f);
  return rc;
}

bool tvm_ffi_global_remove(const char* name) {
  tvm_ffi_init();
  size_t len = strlen(name);
  pthread_mutex_lock(&g_lock);
  gentry* e = lookup(name, len, name_hash(name, len));
  bool existed = e && e->func;
  if (existed) {
    retire(e->func, 1);
    __atomic_store_n(&e->func, NULL, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&g_lock);
  return existed;
}

static int cmp_names(const void* a, const void* b) {
  TVMFFIByteArray x, y;
  tvm_ffi_any_as_bytes((const TVMFFIAny*)a, &x);
  tvm_ffi_any_as_bytes((const TVMFFIAny*)b, &y);
  size_t n = x.size < y.size ? x.size : y.size;
  int c = memcmp(x.data, y.data, n);
  return c ? c : (x.size < y.size ? -1 : x.size > y.size);
}

void* tvm_ffi_global_names(void) {
  tvm_ffi_init();
  pthread_mutex_lock(&g_lock);
  gtable* t = g_table;
  size_t n = 0;
  TVMFFIAny* names = t ? (TVMFFIAny*)tvm_ffi_malloc(t->used * sizeof(TVMFFIAny) + 1) : NULL;
  for (size_t i = 0; names && i < t->cap; ++i) {
    gentry* e = t->slots[i];
    if (e && e->func) names[n++] = tvm_ffi_string_n(e->name, e->len);
  }
  pthread_mutex_unlock(&g_lock);
  if (!names) return tvm_ffi_array_new(NULL, 0);
  qsort(names, n, sizeof(TVMFFIAny), cmp_names);
  void* arr = tvm_ffi_array_new_take(names, (int64_t)n);
  for (size_t i = 0; i < n; ++i) tvm_ffi_any_release(&names[i]);
  tvm_ffi_free(names);
  return arr;
}

/* ---- Argument checking ------------------------------------------------------------------ */
bool tvm_ffi_check_num_args(const char* fname, int32_t num_args, int32_t expected) {
  if (num_args == expected) return true;
  tvm_ffi_raise("TypeError", "%s expects %d argument%s but got %d", fname, (int)expected,
                expected == 1 ? "" : "s", (int)num_args);
  return false;
}

static bool arg_mismatch(const char* fname, const TVMFFIAny* args, int32_t i, const char* want) {
  tvm_ffi_raise("TypeError",
                "Mismatched type on argument #%d when calling `%s`: expected %s but got %s",
                (int)i, fname, want, tvm_ffi_any_type_name(&args[i]));
  return false;
}

bool tvm_ffi_arg_int(const char* fname, const TVMFFIAny* args, int32_t i, int64_t* out) {
  return tvm_ffi_any_as_int(&args[i], out) || arg_mismatch(fname, args, i, "int");
}
bool tvm_ffi_arg_float(const char* fname, const TVMFFIAny* args, int32_t i, double* out) {
  return tvm_ffi_any_as_float(&args[i], out) || arg_mismatch(fname, args, i, "float");
}
bool tvm_ffi_arg_bool(const char* fname, const TVMFFIAny* args, int32_t i, bool* out) {
  return tvm_ffi_any_as_bool(&args[i], out) || arg_mismatch(fname, args, i, "bool");
}
bool tvm_ffi_arg_bytes(const char* fname, const TVMFFIAny* args, int32_t i, TVMFFIByteArray* out) {
  return tvm_ffi_any_as_bytes(&args[i], out) || arg_mismatch(fname, args, i, "str");
}
void* tvm_ffi_arg_object(const char* fname, const TVMFFIAny* args, int32_t i, int32_t type_index) {
  void* o = tvm_ffi_any_as_object(&args[i], type_index);
  if (!o) arg_mismatch(fname, args, i, tvm_ffi_type_key(type_index));
  return o;
}

/* ---- One-time handle initialisation ----------------------------------------------------- */
static pthread_mutex_t g_once_lock = PTHREAD_MUTEX_INITIALIZER;

int TVMFFIHandleInitOnce(void** handle_addr, int (*init_func)(void** result)) {
  if (!handle_addr || !init_func) return tvm_ffi_raise("ValueError", "TVMFFIHandleInitOnce: NULL");
  if (__atomic_load_n(handle_addr, __ATOMIC_ACQUIRE)) return 0;
  pthread_mutex_lock(&g_once_lock);
  int rc = 0;
  if (!*handle_addr) {
    void* result = NULL;
    rc = init_func(&result);
    if (rc == 0) __atomic_store_n(handle_addr, result, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&g_once_lock);
  return rc;
}

int TVMFFIHandleDeinitOnce(void** handle_addr, int (*deinit_func)(void* handle)) {
  if (!handle_addr || !deinit_func) return tvm_ffi_raise("ValueError", "TVMFFIHandleDeinitOnce: NULL");
  pthread_mutex_lock(&g_once_lock);
  int rc = 0;
  void* h = *handle_addr;
  if (h) {
    rc = deinit_func(h);
    if (rc == 0) __atomic_store_n(handle_addr, NULL, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&g_once_lock);
  return rc;
}

/* ---- Registry globals ------------------------------------------------------------------- */
static int names_functor(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  void* names = self;
  int64_t i;
  if (!tvm_ffi_check_num_args("ffi.FunctionListGlobalNamesFunctor()", n, 1) ||
      !tvm_ffi_arg_int("ffi.FunctionListGlobalNamesFunctor()", args, 0, &i)) {
    return -1;
  }
  int64_t size = tvm_ffi_seq_size(names);
  if (i == -1) {
    *result = tvm_ffi_any_int(size);
    return 0;
  }
  if (i < 0 || i >= size) return tvm_ffi_raise("IndexError", "Index %lld out of bounds %lld",
                                               (long long)i, (long long)size);
  *result = tvm_ffi_any_copy(tvm_ffi_seq_at(names, i));
  return 0;
}

static int g_list_names(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  void* names = tvm_ffi_global_names();
  if (!names) return -1;
  void* f = tvm_ffi_function_new(names, names_functor, tvm_ffi_release);
  if (!f) {
    tvm_ffi_release(names);
    return -1;
  }
  return tvm_ffi__ret_obj(result, f);
}

static int g_remove(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  TVMFFIByteArray name;
  if (!tvm_ffi_check_num_args("ffi.FunctionRemoveGlobal", n, 1) ||
      !tvm_ffi_arg_bytes("ffi.FunctionRemoveGlobal", args, 0, &name)) {
    return -1;
  }
  char* s = tvm_ffi_strndup(name.data, name.size);
  if (!s) return -1;
  *result = tvm_ffi_any_bool(tvm_ffi_global_remove(s));
  tvm_ffi_free(s);
  return 0;
}

static int g_metadata(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  TVMFFIByteArray name;
  if (!tvm_ffi_check_num_args("ffi.GetGlobalFuncMetadata", n, 1) ||
      !tvm_ffi_arg_bytes("ffi.GetGlobalFuncMetadata", args, 0, &name)) {
    return -1;
  }
  gentry* e = lookup(name.data, name.size, name_hash(name.data, name.size));
  if (!e || !e->func) {
    return tvm_ffi_raise("RuntimeError", "Global Function `%.*s` is not registered",
                         (int)name.size, name.data);
  }
  *result = tvm_ffi_string(e->metadata ? e->metadata : "{}");
  return 0;
}

void tvm_ffi__init_functions(void) {
  tvm_ffi_type_register("ffi.Function", kTVMFFIObject, kTVMFFIFunction, sizeof(function_obj),
                        function_destroy, kTVMFFISEqHashKindUniqueInstance);
  tvm_ffi__register_global("ffi.FunctionListGlobalNamesFunctor", g_list_names);
  tvm_ffi__register_global("ffi.FunctionRemoveGlobal", g_remove);
  tvm_ffi__register_global("ffi.GetGlobalFuncMetadata", g_metadata);
}
