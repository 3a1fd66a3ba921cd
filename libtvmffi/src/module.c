/*
 * module.c: ffi.Module objects (a vtable per kind, a list of imports, a function cache), the
 * module global functions ffi.Module* and TVMFFIEnvModLookupFromImports. The library kinds
 * (dlopen'ed libraries and the system library) are in library_module.c.
 *
 * Lifetime design. A Function obtained from a module may hold the module strongly: library
 * functions do, because their code lives in the module's dlopen handle and the library's
 * __tvm_ffi__library_ctx points at the module. The module's cache therefore must not hold its
 * own functions strongly, or module -> cache -> function -> module would be a cycle that never
 * dies. The cache (an ffi.Dict) keeps two kinds of entries:
 *   String name -> OpaquePtr : a *weak* reference to the module's own Function. A lookup
 *                              upgrades it with tvm_ffi_weak_lock, so the same Function comes
 *                              back while anyone holds it; a dead entry is replaced.
 *   Bytes name  -> Function  : strong, filled by TVMFFIEnvModLookupFromImports, whose result is
 *                              borrowed by the caller and so must live as long as the module.
 *                              These are functions of imports (which never import this module:
 *                              imports are acyclic) or global functions. As upstream, a global
 *                              function that itself holds this module would form a cycle.
 * Destruction runs vtable->destroy, drops the weak entries, then releases cache and imports.
 *
 * Threads: one mutex guards every cache, held only around dictionary operations (never while
 * calling into a vtable or releasing an object, so deleters may re-enter module code). As
 * upstream, changing a module's imports is not synchronised with concurrent lookups in it.
 */
#include <pthread.h>
#include <string.h>

#include "module_internal.h"

static pthread_mutex_t g_cache_lock = PTHREAD_MUTEX_INITIALIZER;

static int check_module(const char* fname, const void* mod) {
  if (mod && tvm_ffi_instance_of(mod, kTVMFFIModule)) return 0;
  return tvm_ffi_raise("TypeError", "%s: expected ffi.Module but got %s", fname,
                       mod ? tvm_ffi_type_key(tvm_ffi_type_index(mod)) : "NULL");
}

static const char* kind_of(const void* mod) {
  return ((const tvm_ffi_module_obj*)mod)->vtable->kind;
}

static void module_destroy(void* self) {
  tvm_ffi_module_obj* m = (tvm_ffi_module_obj*)self;
  if (m->vtable && m->vtable->destroy) m->vtable->destroy(m);
  if (m->cache) {
    const TVMFFIAny* value;
    for (int64_t pos = 0; (pos = tvm_ffi_map_next(m->cache, pos, NULL, &value)) >= 0;) {
      if (value->type_index == kTVMFFIOpaquePtr) tvm_ffi_weak_release(value->v_ptr);
    }
    tvm_ffi_release(m->cache);
  }
  tvm_ffi_release(m->imports);
}

void* tvm_ffi_module_new(const tvm_ffi_module_vtable* vtable, size_t size) {
  if (!vtable || !vtable->kind || !vtable->get_function) {
    tvm_ffi_raise("ValueError", "tvm_ffi_module_new: the vtable needs a kind and get_function");
    return NULL;
  }
  if (size < sizeof(tvm_ffi_module_obj)) {
    tvm_ffi_raise("ValueError", "tvm_ffi_module_new: size %zu is smaller than tvm_ffi_module_obj",
                  size);
    return NULL;
  }
  tvm_ffi_init();
  tvm_ffi_module_obj* m = (tvm_ffi_module_obj*)tvm_ffi_object_new(kTVMFFIModule, size);
  if (!m) return NULL;
  m->imports = tvm_ffi_list_new();
  m->cache = m->imports ? tvm_ffi_dict_new() : NULL;
  if (!m->cache) {
    tvm_ffi_release(m); /* vtable still NULL: destroy releases only what exists */
    return NULL;
  }
  m->vtable = vtable;
  return m;
}

/* ---- Function lookup -------------------------------------------------------------------- */

/* The module's own function `name` (not its imports), through the weak cache. */
static int own_function(tvm_ffi_module_obj* m, const char* name, void** out) {
  *out = NULL;
  TVMFFIAny key = tvm_ffi_any_raw_str(name);
  pthread_mutex_lock(&g_cache_lock);
  const TVMFFIAny* v = tvm_ffi_map_get(m->cache, &key);
  void* f = v && v->type_index == kTVMFFIOpaquePtr ? tvm_ffi_weak_lock(v->v_ptr) : NULL;
  pthread_mutex_unlock(&g_cache_lock);
  if (f) {
    *out = f;
    return 0;
  }
  if (m->vtable->get_function(m, name, &f) != 0) {
    tvm_ffi_release(f);
    return -1;
  }
  if (!f) return 0;
  if (!tvm_ffi_instance_of(f, kTVMFFIFunction)) {
    const char* got = tvm_ffi_type_key(tvm_ffi_type_index(f));
    tvm_ffi_release(f);
    return tvm_ffi_raise("TypeError", "Module[%s].get_function(\"%s\") returned %s, not a Function",
                         m->vtable->kind, name, got);
  }
  /* Publish f unless another thread cached a live one meanwhile (then use that one, so the
   * Function of a name stays unique while it lives). */
  void* existing = NULL;
  void* dead = NULL;
  int rc = 0;
  pthread_mutex_lock(&g_cache_lock);
  v = tvm_ffi_map_get(m->cache, &key);
  if (v && v->type_index == kTVMFFIOpaquePtr) {
    existing = tvm_ffi_weak_lock(v->v_ptr);
    if (!existing) dead = v->v_ptr;
  }
  if (!existing) {
    TVMFFIAny weak = tvm_ffi_any_none();
    weak.type_index = kTVMFFIOpaquePtr;
    weak.v_ptr = f;
    tvm_ffi_weak_retain(f);
    rc = tvm_ffi_dict_set(m->cache, &key, &weak);
    if (rc != 0) {
      tvm_ffi_weak_release(f); /* f is strongly held here, so this frees nothing */
      dead = NULL;             /* the old entry stays in the dict */
    }
  }
  pthread_mutex_unlock(&g_cache_lock);
  tvm_ffi_weak_release(dead);
  if (existing || rc != 0) {
    tvm_ffi_release(f);
    if (rc != 0) return -1;
    f = existing;
  }
  *out = f;
  return 0;
}

static int get_function_rec(tvm_ffi_module_obj* m, const char* name, bool query_imports,
                            void** out) {
  if (own_function(m, name, out) != 0) return -1;
  if (*out || !query_imports) return 0;
  int64_t n = tvm_ffi_seq_size(m->imports);
  for (int64_t i = 0; i < n; ++i) {
    if (get_function_rec(tvm_ffi_seq_obj_at(m->imports, i), name, true, out) != 0) return -1;
    if (*out) return 0;
  }
  return 0;
}

int tvm_ffi_module_get_function(void* mod, const char* name, bool query_imports, void** out) {
  if (!out) return tvm_ffi_raise("ValueError", "tvm_ffi_module_get_function: out is NULL");
  *out = NULL;
  if (check_module("tvm_ffi_module_get_function", mod) != 0) return -1;
  if (!name) return tvm_ffi_raise("ValueError", "tvm_ffi_module_get_function: name is NULL");
  return get_function_rec((tvm_ffi_module_obj*)mod, name, query_imports, out);
}

/* Metadata (doc == false) or documentation (doc == true) of a function, imports depth first. */
static int function_info_rec(tvm_ffi_module_obj* m, const char* name, bool query_imports, bool doc,
                             TVMFFIAny* out) {
  int (*getter)(void*, const char*, TVMFFIAny*) =
      doc ? m->vtable->get_function_doc : m->vtable->get_function_metadata;
  *out = tvm_ffi_any_none();
  if (getter) {
    if (getter(m, name, out) != 0) {
      tvm_ffi_any_release(out);
      return -1;
    }
    if (!tvm_ffi_any_is_none(out)) return 0;
  }
  if (!query_imports) return 0;
  int64_t n = tvm_ffi_seq_size(m->imports);
  for (int64_t i = 0; i < n; ++i) {
    if (function_info_rec(tvm_ffi_seq_obj_at(m->imports, i), name, true, doc, out) != 0) return -1;
    if (!tvm_ffi_any_is_none(out)) return 0;
  }
  return 0;
}

/* ---- Imports ---------------------------------------------------------------------------- */

/* A growable array of module pointers (the traversal stack and visited set of an import). */
typedef struct {
  void** data;
  size_t size, cap;
} ptr_vec;

static int ptr_vec_push(ptr_vec* v, void* p) {
  if (v->size == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 16;
    void** d = (void**)tvm_ffi_realloc(v->data, cap * sizeof(void*));
    if (!d) return -1;
    v->data = d;
    v->cap = cap;
  }
  v->data[v->size++] = p;
  return 0;
}

static bool ptr_vec_has(const ptr_vec* v, const void* p) {
  for (size_t i = 0; i < v->size; ++i) {
    if (v->data[i] == p) return true;
  }
  return false;
}

/* *out = whether `target` is `from` or imported by it, directly or not. */
static int reaches(void* from, const void* target, bool* out) {
  ptr_vec stack = {0}, seen = {0};
  int rc = ptr_vec_push(&stack, from) || ptr_vec_push(&seen, from) ? -1 : 0;
  *out = false;
  while (rc == 0 && stack.size && !*out) {
    tvm_ffi_module_obj* m = (tvm_ffi_module_obj*)stack.data[--stack.size];
    if (m == target) {
      *out = true;
      break;
    }
    int64_t n = tvm_ffi_seq_size(m->imports);
    for (int64_t i = 0; rc == 0 && i < n; ++i) {
      void* next = tvm_ffi_seq_obj_at(m->imports, i);
      if (ptr_vec_has(&seen, next)) continue;
      rc = ptr_vec_push(&seen, next) || ptr_vec_push(&stack, next) ? -1 : 0;
    }
  }
  tvm_ffi_free(stack.data);
  tvm_ffi_free(seen.data);
  return rc;
}

int tvm_ffi_module_import(void* mod, void* other) {
  if (check_module("tvm_ffi_module_import", mod) != 0 ||
      check_module("tvm_ffi_module_import", other) != 0) {
    return -1;
  }
  bool cycle;
  if (reaches(other, mod, &cycle) != 0) return -1;
  if (cycle && other == mod) {
    return tvm_ffi_raise("RuntimeError",
                         "Cyclic dependency detected during import: a Module[%s] cannot import "
                         "itself",
                         kind_of(mod));
  }
  if (cycle) {
    return tvm_ffi_raise("RuntimeError",
                         "Cyclic dependency detected during import: the Module[%s] to import "
                         "already imports this Module[%s], directly or not",
                         kind_of(other), kind_of(mod));
  }
  TVMFFIAny item = tvm_ffi_any_obj(other);
  return tvm_ffi_list_push(((tvm_ffi_module_obj*)mod)->imports, &item);
}

/* ---- Lookup from a library's context ---------------------------------------------------- */

int TVMFFIEnvModLookupFromImports(TVMFFIObjectHandle library_ctx, const char* func_name,
                                  TVMFFIObjectHandle* out) {
  static const char* fname = "TVMFFIEnvModLookupFromImports";
  if (!out) return tvm_ffi_raise("ValueError", "%s: out is NULL", fname);
  *out = NULL;
  if (!func_name) return tvm_ffi_raise("ValueError", "%s: func_name is NULL", fname);
  if (!library_ctx) {
    return tvm_ffi_raise("ValueError",
                         "%s: library_ctx is NULL (was the library loaded as a module?)", fname);
  }
  if (check_module(fname, library_ctx) != 0) return -1;
  tvm_ffi_module_obj* m = (tvm_ffi_module_obj*)library_ctx;
  TVMFFIByteArray name_bytes = {func_name, strlen(func_name)};
  TVMFFIAny key = tvm_ffi_any_none();
  key.type_index = kTVMFFIByteArrayPtr;
  key.v_ptr = &name_bytes;

  pthread_mutex_lock(&g_cache_lock);
  const TVMFFIAny* v = tvm_ffi_map_get(m->cache, &key);
  void* cached = v && tvm_ffi_any_is_object(v) ? v->v_obj : NULL;
  pthread_mutex_unlock(&g_cache_lock);
  if (cached) {
    *out = cached;
    return 0;
  }

  void* f = NULL;
  int64_t n = tvm_ffi_seq_size(m->imports);
  for (int64_t i = 0; i < n && !f; ++i) {
    if (get_function_rec(tvm_ffi_seq_obj_at(m->imports, i), func_name, true, &f) != 0) return -1;
  }
  if (!f) f = tvm_ffi_global_get(func_name);
  if (!f) {
    return tvm_ffi_raise("RuntimeError",
                         "Cannot find function %s in the imported modules or global registry.",
                         func_name);
  }
  /* Keep the first Function cached for the name: earlier callers may hold it borrowed. */
  int rc = 0;
  pthread_mutex_lock(&g_cache_lock);
  v = tvm_ffi_map_get(m->cache, &key);
  cached = v && tvm_ffi_any_is_object(v) ? v->v_obj : NULL;
  if (!cached) {
    TVMFFIAny value = tvm_ffi_any_obj(f);
    rc = tvm_ffi_dict_set(m->cache, &key, &value);
    if (rc == 0) cached = f;
  }
  pthread_mutex_unlock(&g_cache_lock);
  tvm_ffi_release(f); /* the cache holds it (or another thread's equal entry) */
  if (rc != 0) return -1;
  *out = cached;
  return 0;
}

/* ---- Global functions ------------------------------------------------------------------- */

/* A NUL-terminated view of string argument i: String objects and raw C strings are used in
 * place, small strings are copied into `small`. A string with a NUL byte is a ValueError. */
static const char* arg_cstr(const char* fname, const TVMFFIAny* args, int32_t i, char small[8]) {
  const TVMFFIAny* a = &args[i];
  TVMFFIByteArray b;
  switch (a->type_index) {
    case kTVMFFIRawStr:
      if (!a->v_c_str) break;
      return a->v_c_str;
    case kTVMFFISmallStr:
    case kTVMFFIStr:
      tvm_ffi_any_as_bytes(a, &b);
      if (memchr(b.data, '\0', b.size)) {
        tvm_ffi_raise("ValueError", "%s: argument #%d contains a NUL byte", fname, (int)i);
        return NULL;
      }
      if (a->type_index == kTVMFFIStr) return b.data; /* String objects are NUL-terminated */
      memcpy(small, b.data, b.size);
      small[b.size] = '\0';
      return small;
    default:
      break;
  }
  tvm_ffi_raise("TypeError",
                "Mismatched type on argument #%d when calling `%s`: expected str but got %s",
                (int)i, fname, tvm_ffi_any_type_name(a));
  return NULL;
}

/* Arguments (mod: Module) after checking the count. */
static void* arg_module(const char* fname, const TVMFFIAny* args, int32_t n, int32_t expected) {
  if (!tvm_ffi_check_num_args(fname, n, expected)) return NULL;
  return tvm_ffi_arg_object(fname, args, 0, kTVMFFIModule);
}

/* Arguments (mod: Module, name: str, query_imports: bool). */
static tvm_ffi_module_obj* args_mod_name_query(const char* fname, const TVMFFIAny* args, int32_t n,
                                               char small[8], const char** name,
                                               bool* query_imports) {
  tvm_ffi_module_obj* m = (tvm_ffi_module_obj*)arg_module(fname, args, n, 3);
  if (!m || !(*name = arg_cstr(fname, args, 1, small)) ||
      !tvm_ffi_arg_bool(fname, args, 2, query_imports)) {
    return NULL;
  }
  return m;
}

static int g_get_function(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  char small[8];
  const char* name;
  bool q;
  tvm_ffi_module_obj* m = args_mod_name_query("ffi.ModuleGetFunction", args, n, small, &name, &q);
  if (!m) return -1;
  void* f;
  if (get_function_rec(m, name, q, &f) != 0) return -1;
  if (f) *rv = tvm_ffi_any_obj(f);
  return 0;
}

static int g_implements_function(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  char small[8];
  const char* name;
  bool q;
  tvm_ffi_module_obj* m =
      args_mod_name_query("ffi.ModuleImplementsFunction", args, n, small, &name, &q);
  if (!m) return -1;
  void* f;
  if (get_function_rec(m, name, q, &f) != 0) return -1;
  *rv = tvm_ffi_any_bool(f != NULL);
  tvm_ffi_release(f);
  return 0;
}

static int function_info_global(const char* fname, bool doc, const TVMFFIAny* args, int32_t n,
                                TVMFFIAny* rv) {
  char small[8];
  const char* name;
  bool q;
  tvm_ffi_module_obj* m = args_mod_name_query(fname, args, n, small, &name, &q);
  if (!m || function_info_rec(m, name, q, doc, rv) != 0) return -1;
  if (!tvm_ffi_any_is_none(rv) && rv->type_index != kTVMFFIStr &&
      rv->type_index != kTVMFFISmallStr) {
    const char* got = tvm_ffi_any_type_name(rv);
    tvm_ffi_any_release(rv);
    return tvm_ffi_raise("TypeError", "%s: the %s of `%s` is a %s, not a str", fname,
                         doc ? "documentation" : "metadata", name, got);
  }
  return 0;
}

static int g_get_function_metadata(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  return function_info_global("ffi.ModuleGetFunctionMetadata", false, args, n, rv);
}

static int g_get_function_doc(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  return function_info_global("ffi.ModuleGetFunctionDoc", true, args, n, rv);
}

static int g_get_property_mask(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  tvm_ffi_module_obj* m = (tvm_ffi_module_obj*)arg_module("ffi.ModuleGetPropertyMask", args, n, 1);
  if (!m) return -1;
  *rv = tvm_ffi_any_int(m->vtable->property_mask);
  return 0;
}

static int g_get_kind(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  tvm_ffi_module_obj* m = (tvm_ffi_module_obj*)arg_module("ffi.ModuleGetKind", args, n, 1);
  if (!m) return -1;
  *rv = tvm_ffi_string(m->vtable->kind);
  return tvm_ffi_any_is_none(rv) ? -1 : 0;
}

static int g_inspect_source(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  static const char* fname = "ffi.ModuleInspectSource";
  char small[8];
  const char* format;
  tvm_ffi_module_obj* m = (tvm_ffi_module_obj*)arg_module(fname, args, n, 2);
  if (!m || !(format = arg_cstr(fname, args, 1, small))) return -1;
  if (!m->vtable->inspect_source) {
    return tvm_ffi_raise("RuntimeError", "Module[%s] does not support InspectSource",
                         m->vtable->kind);
  }
  if (m->vtable->inspect_source(m, format, rv) != 0) {
    tvm_ffi_any_release(rv);
    return -1;
  }
  return 0;
}

static int g_get_write_formats(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  tvm_ffi_module_obj* m = (tvm_ffi_module_obj*)arg_module("ffi.ModuleGetWriteFormats", args, n, 1);
  if (!m) return -1;
  const char* const* formats = m->vtable->write_formats;
  void* list = tvm_ffi_list_new();
  for (int64_t i = 0; list && formats && formats[i]; ++i) {
    TVMFFIAny s = tvm_ffi_string(formats[i]);
    if (tvm_ffi_any_is_none(&s) || tvm_ffi_list_push_take(list, &s) != 0) {
      tvm_ffi_release(list);
      return -1;
    }
  }
  void* arr = list ? tvm_ffi_list_to_array(list) : NULL;
  tvm_ffi_release(list);
  return tvm_ffi__ret_obj(rv, arr);
}

static int g_write_to_file(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  static const char* fname = "ffi.ModuleWriteToFile";
  char small_path[8], small_format[8];
  const char *path, *format;
  tvm_ffi_module_obj* m = (tvm_ffi_module_obj*)arg_module(fname, args, n, 3);
  if (!m || !(path = arg_cstr(fname, args, 1, small_path)) ||
      !(format = arg_cstr(fname, args, 2, small_format))) {
    return -1;
  }
  if (!m->vtable->write_to_file) {
    return tvm_ffi_raise("RuntimeError", "Module[%s] does not support WriteToFile",
                         m->vtable->kind);
  }
  return m->vtable->write_to_file(m, path, format);
}

static int g_import_module(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  static const char* fname = "ffi.ModuleImportModule";
  void* m = arg_module(fname, args, n, 2);
  void* other = m ? tvm_ffi_arg_object(fname, args, 1, kTVMFFIModule) : NULL;
  if (!other) return -1;
  return tvm_ffi_module_import(m, other);
}

static int g_clear_imports(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  tvm_ffi_module_obj* m = (tvm_ffi_module_obj*)arg_module("ffi.ModuleClearImports", args, n, 1);
  if (!m) return -1;
  tvm_ffi_list_clear(m->imports);
  return 0;
}

static int g_get_imports(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  tvm_ffi_module_obj* m = (tvm_ffi_module_obj*)arg_module("ffi.ModuleGetImports", args, n, 1);
  if (!m) return -1;
  return tvm_ffi__ret_obj(rv, tvm_ffi_list_to_array(m->imports));
}

static int g_list_functions(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  tvm_ffi_module_obj* m = (tvm_ffi_module_obj*)arg_module("ffi.ModuleListFunctions", args, n, 1);
  if (!m) return -1;
  if (!m->vtable->list_functions) {
    return tvm_ffi_raise("RuntimeError", "Module[%s] does not support ListFunctions",
                         m->vtable->kind);
  }
  void* list = tvm_ffi_list_new();
  if (!list) return -1;
  if (m->vtable->list_functions(m, list) != 0) {
    tvm_ffi_release(list);
    return -1;
  }
  void* arr = tvm_ffi_list_to_array(list);
  tvm_ffi_release(list);
  return tvm_ffi__ret_obj(rv, arr);
}

/* Read-only reflection of the imports, as upstream's "imports_" field. */
static int get_imports_field(void* field, TVMFFIAny* result) {
  void* list = *(void**)field;
  tvm_ffi_retain(list);
  *result = tvm_ffi_any_obj(list);
  return 0;
}

void tvm_ffi__init_modules(void) {
  int32_t idx =
      tvm_ffi_type_register("ffi.Module", kTVMFFIObject, kTVMFFIModule, sizeof(tvm_ffi_module_obj),
                            module_destroy, kTVMFFISEqHashKindUniqueInstance);
  if (idx >= 0) {
    TVMFFIFieldInfo fi;
    memset(&fi, 0, sizeof(fi));
    fi.name.data = "imports_";
    fi.name.size = strlen("imports_");
    fi.doc.data = "";
    fi.metadata.data = "";
    fi.size = sizeof(void*);
    fi.alignment = sizeof(void*);
    fi.offset = (int64_t)offsetof(tvm_ffi_module_obj, imports);
    fi.getter = get_imports_field;
    fi.default_value_or_factory = tvm_ffi_any_none();
    fi.field_static_type_index = kTVMFFIList;
    TVMFFITypeRegisterField(idx, &fi);
  }
  tvm_ffi__register_global("ffi.ModuleGetFunction", g_get_function);
  tvm_ffi__register_global("ffi.ModuleImplementsFunction", g_implements_function);
  tvm_ffi__register_global("ffi.ModuleGetFunctionMetadata", g_get_function_metadata);
  tvm_ffi__register_global("ffi.ModuleGetFunctionDoc", g_get_function_doc);
  tvm_ffi__register_global("ffi.ModuleGetPropertyMask", g_get_property_mask);
  tvm_ffi__register_global("ffi.ModuleGetKind", g_get_kind);
  tvm_ffi__register_global("ffi.ModuleInspectSource", g_inspect_source);
  tvm_ffi__register_global("ffi.ModuleGetWriteFormats", g_get_write_formats);
  tvm_ffi__register_global("ffi.ModuleWriteToFile", g_write_to_file);
  tvm_ffi__register_global("ffi.ModuleImportModule", g_import_module);
  tvm_ffi__register_global("ffi.ModuleClearImports", g_clear_imports);
  tvm_ffi__register_global("ffi.ModuleGetImports", g_get_imports);
  tvm_ffi__register_global("ffi.ModuleListFunctions", g_list_functions);
  tvm_ffi__init_library_modules();
}
