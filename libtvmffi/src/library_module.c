/*
 * library_module.c: modules whose functions are symbols `__tvm_ffi_<name>` of a library:
 *
 *   "library"    a shared library opened with dlopen (ffi.Module.load_from_file.so,
 *                ffi.ModuleLoadFromFile, tvm_ffi_module_load_file);
 *   "system_lib" the symbols registered with TVMFFIEnvModRegisterSystemLibSymbol by statically
 *                linked kernels (ffi.SystemLib, one module per prefix for the whole process).
 *
 * A library symbol is called with handle == NULL. The Function wrapping it holds a strong
 * reference to its module, so the module (and the dlopen handle it owns) outlives every
 * Function taken from it; module.c caches those Functions weakly, so there is no cycle.
 *
 * The dlopen handle lives in a small reference-counted `lib_t` shared by the library modules
 * made from it (a __tvm_ffi__library_bin may place "_lib" more than once, or not at all), and
 * is closed when the last of them dies.
 *
 * __tvm_ffi__library_ctx: the library's `void*` receives its library module (borrowed). Two
 * loads of one file share that variable, so every library module with a context address is
 * kept on a list: when the module the variable points to dies, the variable is pointed at
 * another live module of the same library (or NULL), never left dangling.
 *
 * Data symbols (the context variables and __tvm_ffi__library_bin) are checked with the ELF
 * symbol table (dladdr1) to be data objects of the library itself, large enough for what is
 * read or written, so that a broken library gives an error instead of a crash.
 *
 * Libraries are opened with RTLD_NOW: an undefined function is a load error naming it.
 *
 * Requires glibc (dladdr1, dlinfo, <link.h>).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "module_internal.h"

/* ---- The shared library handle ---------------------------------------------------------- */

typedef struct {
  uint64_t refs; /* atomic */
  void* handle;  /* dlopen handle; NULL for the system library */
  char* prefix;  /* system library: the symbol prefix ("" for none) */
  char* path;    /* shared library: the path it was opened from, for messages */
} lib_t;

static lib_t* lib_new(void* handle, const char* prefix, const char* path) {
  lib_t* lib = (lib_t*)tvm_ffi_calloc(1, sizeof(lib_t));
  if (!lib) return NULL;
  lib->refs = 1;
  lib->handle = handle;
  const char* s = handle ? path : prefix;
  char* copy = tvm_ffi_strndup(s, strlen(s));
  if (!copy) {
    tvm_ffi_free(lib);
    return NULL;
  }
  if (handle) {
    lib->path = copy;
  } else {
    lib->prefix = copy;
  }
  return lib;
}

static void lib_retain(lib_t* lib) { __atomic_fetch_add(&lib->refs, 1, __ATOMIC_RELAXED); }

static void lib_release(lib_t* lib) {
  if (!lib || __atomic_sub_fetch(&lib->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
  if (lib->handle) dlclose(lib->handle);
  tvm_ffi_free(lib->prefix);
  tvm_ffi_free(lib->path);
  tvm_ffi_free(lib);
}

static const char* lib_name(const lib_t* lib) {
  return lib->handle ? lib->path : "the system library";
}

/* ---- The system library symbol registry ------------------------------------------------- */

static pthread_mutex_t g_sym_lock = PTHREAD_MUTEX_INITIALIZER;
static void* g_sym_table; /* Dict: symbol name -> OpaquePtr; never freed */

/* Address registered under prefix + name, or NULL. */
static void* system_symbol(const char* prefix, const char* name) {
  tvm_ffi_strbuf b = {0};
  tvm_ffi_strbuf_puts(&b, prefix);
  tvm_ffi_strbuf_puts(&b, name);
  void* addr = NULL;
  if (!b.failed) {
    pthread_mutex_lock(&g_sym_lock);
    const TVMFFIAny* v = g_sym_table ? tvm_ffi_map_get_str(g_sym_table, b.data) : NULL;
    if (v) addr = v->v_ptr;
    pthread_mutex_unlock(&g_sym_lock);
  }
  tvm_ffi_strbuf_free(&b);
  return addr;
}

int TVMFFIEnvModRegisterSystemLibSymbol(const char* name, void* symbol) {
  if (!name || !name[0]) {
    return tvm_ffi_raise("ValueError", "TVMFFIEnvModRegisterSystemLibSymbol: empty symbol name");
  }
  if (!symbol) {
    return tvm_ffi_raise("ValueError", "TVMFFIEnvModRegisterSystemLibSymbol: symbol `%s` is NULL",
                         name);
  }
  tvm_ffi_init(); /* may run from a static constructor before anything else */
  pthread_mutex_lock(&g_sym_lock);
  if (!g_sym_table) g_sym_table = tvm_ffi_dict_new();
  int rc = -1;
  if (g_sym_table) {
    TVMFFIAny key = tvm_ffi_any_raw_str(name);
    TVMFFIAny value = tvm_ffi_any_ptr(symbol);
    rc = tvm_ffi_dict_set(g_sym_table, &key, &value); /* a later registration wins */
  }
  pthread_mutex_unlock(&g_sym_lock);
  return rc;
}

/* ---- Symbol lookup ---------------------------------------------------------------------- */

#define SYM_TYPE(info) ((info)&0xf)
#define SYM_BIND(info) ((info) >> 4)

/* ELF type of the dynamic symbol at `addr` of the library (STT_NOTYPE when unknown), its size
 * (SIZE_MAX when unknown), and whether it is defined by the library itself. */
static void symbol_info(const lib_t* lib, const void* addr, int* type, size_t* size, bool* own) {
  Dl_info info;
  const ElfW(Sym)* sym = NULL;
  struct link_map* owner = NULL;
  struct link_map* self = NULL;
  *type = STT_NOTYPE;
  *size = SIZE_MAX;
  *own = true;
  if (dladdr1(addr, &info, (void**)&sym, RTLD_DL_SYMENT) && sym &&
      (const void*)info.dli_saddr == addr) {
    *type = SYM_TYPE(sym->st_info);
    if (sym->st_size) *size = (size_t)sym->st_size;
  }
  if (dladdr1(addr, &info, (void**)&owner, RTLD_DL_LINKMAP) && owner &&
      dlinfo(lib->handle, RTLD_DI_LINKMAP, &self) == 0 && self) {
    *own = owner == self;
  }
}

/* Raw address of `name`: dlsym, or for the system library prefix + name then name. */
static void* lib_symbol(const lib_t* lib, const char* name) {
  if (!lib->handle) {
    void* addr = lib->prefix[0] ? system_symbol(lib->prefix, name) : NULL;
    return addr ? addr : system_symbol("", name);
  }
  void* addr = dlsym(lib->handle, name);
  if (!addr) dlerror(); /* drop the "undefined symbol" message */
  return addr;
}

/* A function symbol `name` (never a data object of that name, which would crash if called). */
static TVMFFISafeCallType lib_function(const lib_t* lib, const char* name) {
  void* addr = lib_symbol(lib, name);
  if (addr && lib->handle) {
    int type;
    size_t size;
    bool own;
    symbol_info(lib, addr, &type, &size, &own);
    if (type == STT_OBJECT || type == STT_COMMON || type == STT_TLS) return NULL;
  }
  return (TVMFFISafeCallType)addr;
}

/* The function `<head><tail>` of the library (system library: `<head><prefix><tail>` first). */
static TVMFFISafeCallType lib_function_named(const lib_t* lib, const char* head, const char* tail,
                                             int* rc) {
  tvm_ffi_strbuf b = {0};
  TVMFFISafeCallType fn = NULL;
  *rc = 0;
  if (!lib->handle && lib->prefix[0]) {
    tvm_ffi_strbuf_puts(&b, head);
    tvm_ffi_strbuf_puts(&b, lib->prefix);
    tvm_ffi_strbuf_puts(&b, tail);
    if (!b.failed) fn = (TVMFFISafeCallType)system_symbol("", b.data);
    b.size = 0;
  }
  if (!fn) {
    tvm_ffi_strbuf_puts(&b, head);
    tvm_ffi_strbuf_puts(&b, tail);
    if (!b.failed && lib->handle) fn = lib_function(lib, b.data);
    if (!b.failed && !lib->handle) fn = (TVMFFISafeCallType)system_symbol("", b.data);
  }
  if (b.failed) *rc = -1;
  tvm_ffi_strbuf_free(&b);
  return fn;
}

/*
 * Data symbol `name` defined by the library itself: 0 with *out NULL when absent; 0 with *out
 * and *out_size (SIZE_MAX when unknown) when found; -1 (RuntimeError) when the symbol is not a
 * data object or is smaller than min_size.
 */
static int lib_data_symbol(const lib_t* lib, const char* name, size_t min_size, void** out,
                           size_t* out_size) {
  *out = lib_symbol(lib, name);
  *out_size = SIZE_MAX;
  if (!*out || !lib->handle) return 0;
  int type;
  bool own;
  symbol_info(lib, *out, &type, out_size, &own);
  if (!own) { /* found in a dependency of the library, not in it */
    *out = NULL;
    return 0;
  }
  if (type != STT_OBJECT && type != STT_COMMON) {
    *out = NULL;
    return tvm_ffi_raise("RuntimeError", "%s: symbol %s is not a data object (ELF type %d)",
                         lib->path, name, type);
  }
  if (*out_size < min_size) {
    *out = NULL;
    return tvm_ffi_raise("RuntimeError", "%s: symbol %s has %zu bytes, expected at least %zu",
                         lib->path, name, *out_size, min_size);
  }
  return 0;
}

/* ---- Context symbols -------------------------------------------------------------------- */

static pthread_mutex_t g_context_lock = PTHREAD_MUTEX_INITIALIZER;
static void* g_context_symbols; /* Dict: name -> OpaquePtr value; never freed */

int TVMFFIEnvModRegisterContextSymbol(const char* name, void* symbol) {
  if (!name || !name[0]) {
    return tvm_ffi_raise("ValueError", "TVMFFIEnvModRegisterContextSymbol: empty symbol name");
  }
  tvm_ffi_init();
  pthread_mutex_lock(&g_context_lock);
  if (!g_context_symbols) g_context_symbols = tvm_ffi_dict_new();
  int rc = -1;
  if (g_context_symbols) {
    TVMFFIAny key = tvm_ffi_any_raw_str(name);
    TVMFFIAny value = tvm_ffi_any_none();
    value.type_index = kTVMFFIOpaquePtr; /* even for NULL: the value to write */
    value.v_ptr = symbol;
    rc = tvm_ffi_dict_set(g_context_symbols, &key, &value);
  }
  pthread_mutex_unlock(&g_context_lock);
  return rc;
}

/* Write every registered context symbol into the same-named pointer variable of the library. */
static int write_context_symbols(const lib_t* lib) {
  int rc = 0;
  pthread_mutex_lock(&g_context_lock);
  const TVMFFIAny *key, *value;
  for (int64_t pos = 0; rc == 0 && g_context_symbols &&
                        (pos = tvm_ffi_map_next(g_context_symbols, pos, &key, &value)) >= 0;) {
    TVMFFIByteArray name;
    tvm_ffi_any_as_bytes(key, &name);
    char small[8];
    const char* cname = name.data;
    if (key->type_index == kTVMFFISmallStr) { /* inline: not NUL-terminated */
      memcpy(small, name.data, name.size);
      small[name.size] = '\0';
      cname = small;
    }
    void* addr;
    size_t size;
    rc = lib_data_symbol(lib, cname, sizeof(void*), &addr, &size);
    if (rc == 0 && addr) *(void**)addr = value->v_ptr;
  }
  pthread_mutex_unlock(&g_context_lock);
  return rc;
}

/* ---- Library modules -------------------------------------------------------------------- */

typedef struct lib_module {
  tvm_ffi_module_obj base;
  lib_t* lib;
  void** ctx_addr;                        /* the library's __tvm_ffi__library_ctx, or NULL */
  struct lib_module *ctx_prev, *ctx_next; /* on g_ctx_modules while ctx_addr is set */
} lib_module;

static pthread_mutex_t g_ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static lib_module* g_ctx_modules;

static const tvm_ffi_module_vtable library_vtable;
static const tvm_ffi_module_vtable system_lib_vtable;

bool tvm_ffi__module_is_library(const void* mod) {
  const tvm_ffi_module_obj* m = (const tvm_ffi_module_obj*)mod;
  return m->vtable == &library_vtable || m->vtable == &system_lib_vtable;
}

/* A library module of lib; with ctx_addr, the library's context variable points at it. */
static void* lib_module_new(lib_t* lib, void** ctx_addr) {
  lib_module* m = (lib_module*)tvm_ffi_module_new(
      lib->handle ? &library_vtable : &system_lib_vtable, sizeof(lib_module));
  if (!m) return NULL;
  lib_retain(lib);
  m->lib = lib;
  if (ctx_addr) {
    pthread_mutex_lock(&g_ctx_lock);
    m->ctx_addr = ctx_addr;
    m->ctx_next = g_ctx_modules;
    if (g_ctx_modules) g_ctx_modules->ctx_prev = m;
    g_ctx_modules = m;
    *ctx_addr = m;
    pthread_mutex_unlock(&g_ctx_lock);
  }
  return m;
}

static void lib_module_destroy(void* self) {
  lib_module* m = (lib_module*)self;
  if (m->ctx_addr) {
    pthread_mutex_lock(&g_ctx_lock);
    if (m->ctx_prev) {
      m->ctx_prev->ctx_next = m->ctx_next;
    } else {
      g_ctx_modules = m->ctx_next;
    }
    if (m->ctx_next) m->ctx_next->ctx_prev = m->ctx_prev;
    if (*m->ctx_addr == m) {
      lib_module* other = g_ctx_modules;
      while (other && other->ctx_addr != m->ctx_addr) other = other->ctx_next;
      *m->ctx_addr = other;
    }
    pthread_mutex_unlock(&g_ctx_lock);
  }
  lib_release(m->lib); /* may dlclose: after the context variable is no longer written */
}

/* A Function calling a library symbol; holds its module. */
typedef struct {
  TVMFFISafeCallType fn;
  void* mod;
} lib_closure;

static int lib_closure_call(void* self, const TVMFFIAny* args, int32_t num_args,
                            TVMFFIAny* result) {
  return ((lib_closure*)self)->fn(NULL, args, num_args, result);
}

static void lib_closure_free(void* self) {
  lib_closure* c = (lib_closure*)self;
  tvm_ffi_release(c->mod);
  tvm_ffi_free(c);
}

static int lib_get_function(void* mod, const char* name, void** out) {
  lib_module* m = (lib_module*)mod;
  int rc;
  *out = NULL;
  TVMFFISafeCallType fn = lib_function_named(m->lib, TVM_FFI_SYMBOL_PREFIX, name, &rc);
  if (rc != 0 || !fn) return rc;
  lib_closure* c = (lib_closure*)tvm_ffi_malloc(sizeof(lib_closure));
  if (!c) return -1;
  c->fn = fn;
  c->mod = mod;
  tvm_ffi_retain(mod);
  *out = tvm_ffi_function_new(c, lib_closure_call, lib_closure_free);
  if (!*out) {
    lib_closure_free(c);
    return -1;
  }
  return 0;
}

/* Call the optional string getter `<head><name>` (metadata or doc). */
static int lib_call_getter(lib_module* m, const char* head, const char* name, TVMFFIAny* out) {
  int rc;
  TVMFFISafeCallType fn = lib_function_named(m->lib, head, name, &rc);
  *out = tvm_ffi_any_none();
  if (rc != 0 || !fn) return rc;
  if (fn(NULL, NULL, 0, out) != 0) {
    tvm_ffi_any_release(out);
    return tvm_ffi_raise_context("%s%s in %s", head, name, lib_name(m->lib));
  }
  if (out->type_index != kTVMFFIStr && out->type_index != kTVMFFISmallStr) {
    const char* got = tvm_ffi_any_type_name(out);
    tvm_ffi_any_release(out);
    return tvm_ffi_raise("TypeError", "%s%s in %s returned %s, expected a str", head, name,
                         lib_name(m->lib), got);
  }
  return 0;
}

static int lib_get_metadata(void* mod, const char* name, TVMFFIAny* out) {
  return lib_call_getter((lib_module*)mod, TVM_FFI_SYMBOL_METADATA_PREFIX, name, out);
}

static int lib_get_doc(void* mod, const char* name, TVMFFIAny* out) {
  return lib_call_getter((lib_module*)mod, TVM_FFI_SYMBOL_DOC_PREFIX, name, out);
}

/* ---- Listing functions ------------------------------------------------------------------ */

typedef struct {
  TVMFFIByteArray* data;
  size_t size, cap;
} name_vec;

static int name_vec_push(name_vec* v, const char* s, size_t n) {
  if (v->size == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 32;
    TVMFFIByteArray* d = (TVMFFIByteArray*)tvm_ffi_realloc(v->data, cap * sizeof(TVMFFIByteArray));
    if (!d) return -1;
    v->data = d;
    v->cap = cap;
  }
  v->data[v->size].data = s;
  v->data[v->size].size = n;
  v->size++;
  return 0;
}

static int cmp_names(const void* a, const void* b) {
  const TVMFFIByteArray *x = (const TVMFFIByteArray*)a, *y = (const TVMFFIByteArray*)b;
  int c = memcmp(x->data, y->data, x->size < y->size ? x->size : y->size);
  return c ? c : (x->size > y->size) - (x->size < y->size);
}

/* Push the sorted, distinct names onto `list`; frees the vector. */
static int name_vec_flush(name_vec* v, void* list) {
  int rc = 0;
  if (v->size) qsort(v->data, v->size, sizeof(TVMFFIByteArray), cmp_names);
  for (size_t i = 0; rc == 0 && i < v->size; ++i) {
    if (i && cmp_names(&v->data[i - 1], &v->data[i]) == 0) continue;
    TVMFFIAny s = tvm_ffi_string_n(v->data[i].data, v->data[i].size);
    rc = tvm_ffi_any_is_none(&s) ? -1 : tvm_ffi_list_push_take(list, &s);
    tvm_ffi_any_release(&s);
  }
  tvm_ffi_free(v->data);
  v->data = NULL;
  v->size = v->cap = 0;
  return rc;
}

/* `name` when `sym` is __tvm_ffi_<name> for a user function (not a __tvm_ffi__ special). */
static bool function_name(const char* sym, size_t n, const char** name, size_t* name_n) {
  static const size_t plen = sizeof(TVM_FFI_SYMBOL_PREFIX) - 1;
  if (n <= plen || memcmp(sym, TVM_FFI_SYMBOL_PREFIX, plen) != 0 || sym[plen] == '_') return false;
  *name = sym + plen;
  *name_n = n - plen;
  return true;
}

/* A dynamic-section address: glibc relocates most of them in place, other loaders do not. */
static const void* dyn_addr(ElfW(Addr) base, ElfW(Addr) p) {
  return (const void*)(p < base ? p + base : p);
}

/* Number of dynamic symbols from a DT_GNU_HASH table: one past the largest chain's end. */
static size_t gnu_hash_symbol_count(const uint32_t* h) {
  uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2];
  const ElfW(Addr)* bloom = (const ElfW(Addr)*)(h + 4);
  const uint32_t* buckets = (const uint32_t*)(bloom + bloom_size);
  const uint32_t* chain = buckets + nbuckets;
  uint32_t last = 0;
  for (uint32_t b = 0; b < nbuckets; ++b) {
    if (buckets[b] > last) last = buckets[b];
  }
  if (last < symoffset) return symoffset;
  while (!(chain[last - symoffset] & 1)) ++last; /* the low bit ends a chain */
  return (size_t)last + 1;
}

/* Enumerate __tvm_ffi_<name> functions from the loaded library's ELF dynamic symbol table. */
static int list_dso_functions(lib_module* m, void* list) {
  struct link_map* lm = NULL;
  if (dlinfo(m->lib->handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_ld) {
    const char* err = dlerror();
    return tvm_ffi_raise("RuntimeError", "%s: cannot read the dynamic section: %s", m->lib->path,
                         err ? err : "no link map");
  }
  ElfW(Addr) base = lm->l_addr;
  const ElfW(Sym)* symtab = NULL;
  const char* strtab = NULL;
  size_t strsz = 0;
  const uint32_t *hash = NULL, *gnu_hash = NULL;
  for (const ElfW(Dyn)* d = lm->l_ld; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB:
        symtab = (const ElfW(Sym)*)dyn_addr(base, d->d_un.d_ptr);
        break;
      case DT_STRTAB:
        strtab = (const char*)dyn_addr(base, d->d_un.d_ptr);
        break;
      case DT_STRSZ:
        strsz = (size_t)d->d_un.d_val;
        break;
      case DT_HASH:
        hash = (const uint32_t*)dyn_addr(base, d->d_un.d_ptr);
        break;
      case DT_GNU_HASH:
        gnu_hash = (const uint32_t*)dyn_addr(base, d->d_un.d_ptr);
        break;
      default:
        break;
    }
  }
  if (!symtab || !strtab || (!hash && !gnu_hash)) {
    return tvm_ffi_raise("RuntimeError", "%s: no dynamic symbol table to list functions from",
                         m->lib->path);
  }
  size_t count = hash ? hash[1] : gnu_hash_symbol_count(gnu_hash);
  name_vec names = {0};
  for (size_t i = 0; i < count; ++i) {
    const ElfW(Sym)* s = &symtab[i];
    int type = SYM_TYPE(s->st_info), bind = SYM_BIND(s->st_info);
    if (s->st_shndx == SHN_UNDEF || s->st_name >= strsz) continue;
    if (bind != STB_GLOBAL && bind != STB_WEAK) continue;
    if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE) continue;
    const char* sym = strtab + s->st_name;
    const char* name;
    size_t n;
    if (function_name(sym, strnlen(sym, strsz - s->st_name), &name, &n) &&
        name_vec_push(&names, name, n) != 0) {
      tvm_ffi_free(names.data);
      return -1;
    }
  }
  return name_vec_flush(&names, list);
}

/* Every name the system library module resolves: __tvm_ffi_<prefix><name> and __tvm_ffi_<name>. */
static int list_system_functions(lib_module* m, void* list) {
  const char* prefix = m->lib->prefix;
  size_t plen = strlen(prefix);
  name_vec names = {0};
  int rc = 0;
  pthread_mutex_lock(&g_sym_lock); /* the names point into the table */
  const TVMFFIAny* key;
  for (int64_t pos = 0;
       rc == 0 && g_sym_table && (pos = tvm_ffi_map_next(g_sym_table, pos, &key, NULL)) >= 0;) {
    TVMFFIByteArray sym;
    tvm_ffi_any_as_bytes(key, &sym);
    const char* name;
    size_t n;
    if (!function_name(sym.data, sym.size, &name, &n)) continue;
    rc = name_vec_push(&names, name, n);
    if (rc == 0 && plen && n > plen && memcmp(name, prefix, plen) == 0) {
      rc = name_vec_push(&names, name + plen, n - plen);
    }
  }
  if (rc == 0) {
    rc = name_vec_flush(&names, list);
  } else {
    tvm_ffi_free(names.data);
  }
  pthread_mutex_unlock(&g_sym_lock);
  return rc;
}

static int lib_list_functions(void* mod, void* list) {
  lib_module* m = (lib_module*)mod;
  return m->lib->handle ? list_dso_functions(m, list) : list_system_functions(m, list);
}

static const tvm_ffi_module_vtable library_vtable = {
    .kind = "library",
    .property_mask = TVM_FFI_MODULE_BINARY_SERIALIZABLE | TVM_FFI_MODULE_RUNNABLE,
    .get_function = lib_get_function,
    .list_functions = lib_list_functions,
    .destroy = lib_module_destroy,
    .get_function_metadata = lib_get_metadata,
    .get_function_doc = lib_get_doc,
};

static const tvm_ffi_module_vtable system_lib_vtable = {
    .kind = "system_lib",
    .property_mask = TVM_FFI_MODULE_BINARY_SERIALIZABLE | TVM_FFI_MODULE_RUNNABLE,
    .get_function = lib_get_function,
    .list_functions = lib_list_functions,
    .destroy = lib_module_destroy,
    .get_function_metadata = lib_get_metadata,
    .get_function_doc = lib_get_doc,
};

/* ---- Building the module tree of a library ---------------------------------------------- */

typedef struct {
  lib_t* lib;
  void** ctx_addr;
} make_lib_ctx;

static void* make_lib_module(void* ctx) {
  make_lib_ctx* c = (make_lib_ctx*)ctx;
  return lib_module_new(c->lib, c->ctx_addr);
}

bool tvm_ffi_abi_version_serves(uint32_t major, uint32_t minor) {
  if (major != TVM_FFI_VERSION_MAJOR) return false;
  return TVM_FFI_VERSION_MAJOR == 0 ? minor == TVM_FFI_VERSION_MINOR
                                    : minor <= TVM_FFI_VERSION_MINOR;
}

/* 0 when the library records no ABI version or one this runtime serves; -1 + RuntimeError
 * naming both versions otherwise. */
static int check_abi_version(const lib_t* lib) {
  void* rec;
  size_t size;
  if (!lib->handle) return 0;
  if (lib_data_symbol(lib, TVM_FFI_SYMBOL_ABI_VERSION, sizeof(TVMFFIVersion), &rec, &size) != 0)
    return -1;
  if (!rec) return 0;
  TVMFFIVersion v;
  memcpy(&v, rec, sizeof(v));
  if (tvm_ffi_abi_version_serves(v.major, v.minor)) return 0;
  return tvm_ffi_raise("RuntimeError",
                       "cannot load %s: it was built for tvm-ffi ABI %u.%u.%u (its %s), which "
                       "this runtime (tvm-ffi ABI %d.%d.%d) cannot serve; rebuild it against "
                       "tvm-ffi %d.%d",
                       lib->path, v.major, v.minor, v.patch, TVM_FFI_SYMBOL_ABI_VERSION,
                       TVM_FFI_VERSION_MAJOR, TVM_FFI_VERSION_MINOR, TVM_FFI_VERSION_PATCH,
                       TVM_FFI_VERSION_MAJOR, TVM_FFI_VERSION_MINOR);
}

/* The root module of a library: its library_bin tree, or its own library module. The ABI
 * record is checked before the context symbols are written. */
static void* create_library_module(lib_t* lib) {
  void *bin, *ctx;
  size_t bin_size, ctx_size;
  if (check_abi_version(lib) != 0 || write_context_symbols(lib) != 0 ||
      lib_data_symbol(lib, TVM_FFI_SYMBOL_LIBRARY_CTX, sizeof(void*), &ctx, &ctx_size) != 0 ||
      lib_data_symbol(lib, TVM_FFI_SYMBOL_LIBRARY_BIN, 0, &bin, &bin_size) != 0) {
    return NULL;
  }
  if (!bin) return lib_module_new(lib, (void**)ctx);
  make_lib_ctx c = {lib, (void**)ctx};
  void* root = tvm_ffi__library_bin_load((const uint8_t*)bin, bin_size, make_lib_module, &c);
  if (!root) tvm_ffi_raise_context("cannot load %s", lib_name(lib));
  return root;
}

void* tvm_ffi_module_load_file(const char* path) {
  if (!path) {
    tvm_ffi_raise("ValueError", "tvm_ffi_module_load_file: path is NULL");
    return NULL;
  }
  tvm_ffi_init();
  /* Immediate binding: a function the library needs and no loaded object defines is a load
   * error naming it, not a process killed by the dynamic linker at its first call. */
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    tvm_ffi_raise("RuntimeError", "Failed to load dynamic shared library %s: %s", path,
                  err ? err : "unknown dlopen error");
    return NULL;
  }
  lib_t* lib = lib_new(handle, NULL, path);
  if (!lib) {
    dlclose(handle);
    return NULL;
  }
  void* root = create_library_module(lib);
  lib_release(lib); /* the library modules hold it now (none if loading failed) */
  return root;
}

/* ---- The system library modules --------------------------------------------------------- */

static pthread_mutex_t g_syslib_lock = PTHREAD_MUTEX_INITIALIZER;
static void* g_syslib_modules; /* Dict: prefix -> Module; never freed */

void* tvm_ffi_system_lib(const char* prefix) {
  if (!prefix) prefix = "";
  tvm_ffi_init();
  TVMFFIAny key = tvm_ffi_any_raw_str(prefix);
  pthread_mutex_lock(&g_syslib_lock);
  const TVMFFIAny* v = g_syslib_modules ? tvm_ffi_map_get(g_syslib_modules, &key) : NULL;
  void* mod = v ? v->v_obj : NULL;
  tvm_ffi_retain(mod);
  pthread_mutex_unlock(&g_syslib_lock);
  if (mod) return mod;
  /* Build outside the lock: a library_bin loader may run arbitrary code (even ffi.SystemLib). */
  lib_t* lib = lib_new(NULL, prefix, NULL);
  void* created = lib ? create_library_module(lib) : NULL;
  lib_release(lib);
  if (!created) return NULL;
  int rc = 0;
  pthread_mutex_lock(&g_syslib_lock);
  if (!g_syslib_modules) g_syslib_modules = tvm_ffi_dict_new();
  v = g_syslib_modules ? tvm_ffi_map_get(g_syslib_modules, &key) : NULL;
  if (v) {
    mod = v->v_obj; /* another thread won the race: one module per prefix */
  } else if (g_syslib_modules) {
    TVMFFIAny value = tvm_ffi_any_obj(created);
    rc = tvm_ffi_dict_set(g_syslib_modules, &key, &value);
    mod = created;
  } else {
    rc = -1;
  }
  tvm_ffi_retain(mod);
  pthread_mutex_unlock(&g_syslib_lock);
  tvm_ffi_release(created);
  if (rc != 0) {
    tvm_ffi_release(mod);
    return NULL;
  }
  return mod;
}

/* ---- Global functions ------------------------------------------------------------------- */

/* String argument i as a NUL-terminated copy (free with tvm_ffi_free), or NULL + TypeError. */
static char* arg_string(const char* fname, const TVMFFIAny* args, int32_t i) {
  TVMFFIByteArray b;
  int32_t t = args[i].type_index;
  if ((t != kTVMFFIStr && t != kTVMFFISmallStr && t != kTVMFFIRawStr) ||
      (t == kTVMFFIRawStr && !args[i].v_c_str)) {
    tvm_ffi_raise("TypeError",
                  "Mismatched type on argument #%d when calling `%s`: expected str but got %s",
                  (int)i, fname, tvm_ffi_any_type_name(&args[i]));
    return NULL;
  }
  tvm_ffi_any_as_bytes(&args[i], &b);
  if (memchr(b.data, '\0', b.size)) {
    tvm_ffi_raise("ValueError", "%s: argument #%d contains a NUL byte", fname, (int)i);
    return NULL;
  }
  return tvm_ffi_strndup(b.data, b.size);
}

static int g_load_so(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  static const char* fname = "ffi.Module.load_from_file.so";
  if (!tvm_ffi_check_num_args(fname, n, 2)) return -1;
  char* path = arg_string(fname, args, 0);
  char* format = path ? arg_string(fname, args, 1) : NULL; /* checked, not needed */
  void* mod = format ? tvm_ffi_module_load_file(path) : NULL;
  tvm_ffi_free(path);
  tvm_ffi_free(format);
  return tvm_ffi__ret_obj(rv, mod);
}

static int g_load_from_file(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  static const char* fname = "ffi.ModuleLoadFromFile";
  if (!tvm_ffi_check_num_args(fname, n, 1)) return -1;
  char* path = arg_string(fname, args, 0);
  if (!path) return -1;
  const char* slash = strrchr(path, '/');
  const char* dot = strrchr(slash ? slash : path, '.');
  if (!dot || !dot[1]) {
    tvm_ffi_raise("RuntimeError", "Failed to get file format from %s", path);
    tvm_ffi_free(path);
    return -1;
  }
  const char* format = dot + 1;
  if (!strcmp(format, "dll") || !strcmp(format, "dylib") || !strcmp(format, "dso")) format = "so";
  void* loader = NULL;
  tvm_ffi_strbuf loader_name = {0};
  tvm_ffi_strbuf_printf(&loader_name, "ffi.Module.load_from_file.%s", format);
  int rc = loader_name.failed ? -1 : 0;
  if (rc == 0 && !(loader = tvm_ffi_global_get(loader_name.data))) {
    rc = tvm_ffi_raise("RuntimeError",
                       "Loader for `.%s` files is not registered: no global function %s", format,
                       loader_name.data);
  }
  if (rc == 0) {
    TVMFFIAny call_args[2] = {tvm_ffi_any_raw_str(path), tvm_ffi_any_raw_str(format)};
    rc = tvm_ffi_function_call(loader, call_args, 2, rv);
    if (rc == 0 && !tvm_ffi_any_as_object(rv, kTVMFFIModule)) {
      const char* got = tvm_ffi_any_type_name(rv);
      tvm_ffi_any_release(rv);
      rc = tvm_ffi_raise("TypeError", "%s returned %s, not a Module", loader_name.data, got);
    }
  }
  tvm_ffi_release(loader);
  tvm_ffi_strbuf_free(&loader_name);
  tvm_ffi_free(path);
  return rc;
}

static int g_system_lib(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  static const char* fname = "ffi.SystemLib";
  if (n > 1) {
    return tvm_ffi_raise("TypeError", "%s expects at most 1 argument but got %d", fname, (int)n);
  }
  char* prefix = n ? arg_string(fname, args, 0) : NULL;
  if (n && !prefix) return -1;
  void* mod = tvm_ffi_system_lib(prefix ? prefix : "");
  tvm_ffi_free(prefix);
  return tvm_ffi__ret_obj(rv, mod);
}

void tvm_ffi__init_library_modules(void) {
  tvm_ffi__register_global("ffi.Module.load_from_file.so", g_load_so);
  tvm_ffi__register_global("ffi.ModuleLoadFromFile", g_load_from_file);
  tvm_ffi__register_global("ffi.SystemLib", g_system_lib);
}
